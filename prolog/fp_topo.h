/*
 * fp_topo.h - the prolog's view of the bus through lib/pci/topo
 * (fp_topo.c): which function is which lease device, the job's topology,
 * who holds a device open.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_FP_TOPO_H
#define FALCON_FP_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "core/conf.h"
#include "core/falcon_err.h"
#include "fp_common.h"


/* What the topology gave the prolog. */
struct fp_topo_result {
	json_object *topology;         /* falcon_topo_to_json() + the prolog's keys */
	char label[16];                /* "falconGPUs", "" = no GPU */
	char storage[16];              /* "falconNVMe", "localNVMe", "" */
	int local_gpus, falcon_gpus;
	char cuda_visible[256];        /* "0,1,2,3": NVIDIA GPUs' indices by BDF */
	char cuda_uuids[FP_MAX_GPUS * 41]; /* "GPU-...,GPU-..." in the same order */
	char no_uuid[FALCON_BDF_LEN];  /* first job GPU without a UUID, "" = none */
	size_t nwarnings;              /* hot-plug warnings (ACS redirect) */
	char warning[FP_MAX_WARNINGS][512];
	bool degraded;
	char degraded_what[256];       /* "0000:62:00.0 (drawer1_slot1) at 8 GT/s x16 ..." */
	char local_bdfs[FP_MAX_GPUS][FALCON_BDF_LEN];
	size_t nlocal;
};

struct falcon_topo; /* lib/pci/topo.h: one scan of the bus */

/*
 * fp_scan - one libpci scan of the bus under root for host
 * (falcon_topo_scan_host()), timed (fp_time_add: FP_TIME_SCAN).  *t is
 * the caller's (falcon_topo_free()).  Errors as falcon_topo_scan_host(), detail set.
 */
falcon_err_t fp_scan(const char *root, const struct falcon_host_conf *host,
		     struct falcon_topo **t);

/*
 * fp_match_in - fp_match() on a scan the caller made (fp_scan()): 1 when
 * every lease device is identified in t, 0 when some are not (why says
 * which, as fp_match()); fills devs[].bdf as fp_match().  No scan, no
 * error return; t is borrowed, why (whylen bytes) the caller's.
 */
int fp_match_in(const struct falcon_topo *t, const struct falcon_host_conf *host,
		struct falcon_lease *lease, char *why, size_t whylen);

/*
 * fp_match - find each lease device on the bus under root by where it is
 * (falcon_topo_identify()): the one function of its type (and
 * vendor:device when the lease gives them) in its physical slot
 * (devs[].phys_slot) below the adapter of its port (the host's Port= and
 * Adapter= lists pair up by position; one adapter serves every port).
 * Never by IDs alone: an orphan of the same IDs in another slot is not
 * taken (DESIGN "Device identity").  Fills devs[].bdf of the devices
 * found, clears it for the others.  Returns 1 when all are found, 0 when
 * some are not (yet), -err on a scan error (detail set).  *why gets, for
 * each device not identified, its id, type, IDs, port and what its slot
 * holds ("drawer1_slot2 (GPU 10de:1db4 on H1): slot 2 below 0000:3b:00.0:
 * empty"); a device without a slot number or a port without an adapter
 * is never identified.
 */
int fp_match(const char *root, const struct falcon_host_conf *host, struct falcon_lease *lease,
	     char *why, size_t whylen);

/*
 * fp_build_topology - the job's topology from bus (a scan of root the
 * caller made and keeps, e.g. the one fp_match_in() identified the lease
 * in: one scan per run), or, bus NULL, from a scan made here: the job's
 * GPUs are the lease's plus want_local local NVIDIA GPUs (the SLURM_JOB_GPUS
 * indices among the host's local GPUs by BDF when given, else the first
 * unclaimed ones by BDF; claimed: nclaimed BDFs other jobs hold, borrowed).
 * FALCON_ERR_NORESOURCE when fewer local GPUs are there than asked (or
 * SLURM_JOB_GPUS names one the node lacks); FALCON_ERR_PCI when a lease
 * device is gone from the bus or fails the hot-plug checks (config space
 * all-ones, a BAR without an address); the scan's and falcon_topo_to_json()'s
 * errors; detail set.  *res is filled (res->topology a new object the caller
 * puts, NULL on an error).
 */
falcon_err_t fp_build_topology(const char *root, const struct falcon_topo *bus,
			       const struct falcon_host_conf *host,
			       const struct falcon_lease *lease, int want_local,
			       const char *job_gpus, char (*claimed)[FALCON_BDF_LEN],
			       size_t nclaimed, struct fp_topo_result *res);
/*
 * fp_cuda_visible - the job's CUDA_VISIBLE_DEVICES (topology.json's
 * "cuda_visible_devices") by CudaVisibleDevices= (conf NULL: uuid): the
 * GPUs' UUIDs ("GPU-...") in PCI order; res->cuda_visible, their indices
 * in PCI order (CUDA_DEVICE_ORDER=PCI_BUS_ID, as spank_falcon sets it),
 * for index, or, with a warning, when a job GPU has no UUID (CUDA stops
 * at the first entry it cannot find: CUDA C Programming Guide, CUDA
 * Environment Variables).  A string of res (not to be freed).
 */
const char *fp_cuda_visible(const struct fp_topo_result *res, const struct falcon_conf *conf);
/*
 * fp_dev_holders - at teardown, before the epilog removes lease device d
 * (on the bus): the processes holding it open (an fd on its /dev/nvidiaN or
 * NVMe node, falcon_hp_dev_nodes() under root; for a GPU also
 * nvidia-persistenced, dcgm-exporter, nv-hostengine by name), scanning
 * proc (NULL = /proc) once with falcon_hp_holders(), each logged.  held (hn
 * bytes) gets "held by pid P (COMM)" of the first, "" when none; reason (n
 * bytes), when still "", the drain reason "falcon: job J: BDF (ID) held
 * open by pid P (COMM) at teardown: WHAT; ..." with what to do (the nvidia
 * driver's remove waits for the last close: a held GPU's remove blocks).
 * Returns how many hold it; errors reading /proc are logged, never fatal.
 */
size_t fp_dev_holders(const char *root, const char *proc, uint32_t job,
		      const struct falcon_lease_dev *d, char *held, size_t hn, char *reason,
		      size_t n);

#endif /* FALCON_FP_TOPO_H */
