/*
 * fp_common.h - the records and helpers shared by falcon-prolog and
 * falcon-epilog (fp_common.c): a lease's devices, the job, RunDir and its
 * lock, lease.json.
 *
 * prolog/ is layered by what each file includes, one header per .c, no
 * file calls back into its caller: fp_common.c calls none of the others;
 * fp_falcond.c (falcond client: lib/api), fp_topo.c (lib/pci/topo.h) and
 * fp_slurm.c (libslurm) call only fp_common.c; fp_start.c (the start of a
 * run) calls fp_common.c and fp_slurm.c; the programs (falcon-prolog.c and
 * its two modes, falcon-epilog.c) call them all.  This header includes
 * neither lib/chassis/chassis.h nor lib/pci/topo.h (FALCON_PCI_*); a lease
 * device's kind is lib/core/device.h's falcon_dev_type_t, folded to the
 * kinds the bus tells apart (fp_dev_kind()).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_FP_COMMON_H
#define FALCON_FP_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <json-c/json.h>

#include "core/conf.h"
#include "core/device.h"
#include "core/falcon_err.h"
#include "core/jobtag.h"

#define FP_MAX_DEVS 32   /* FALCON_PROTO_MAX_DEVS */
#define FP_MAX_GPUS 64   /* GPUs of one host */
#define FP_MAX_WARNINGS 8 /* hot-plug warnings kept for topology.json */

/* One device of a lease, and where it is on the host's bus. */
struct fp_dev {
	char chassis[FALCON_NAME_LEN];
	char id[FALCON_NAME_LEN];      /* "drawer1_slot3" */
	char port[FALCON_NAME_LEN];    /* "H1" */
	falcon_dev_type_t type;        /* GPU, NVMe or other: fp_dev_kind() */
	char vendor_id[8], device_id[8]; /* "10de", "" = not given */
	int phys_slot;                 /* PCIe Physical Slot Number the host sees
					* (falcon_pcicfg_phys_slot()), 0 = unknown */
	char bdf[FALCON_BDF_LEN];      /* "" = not found on the bus (yet) */
};

struct fp_lease {
	char id[48];                   /* "" = none */
	size_t n;
	struct fp_dev devs[FP_MAX_DEVS];
};

/* What the programs know about the job. */
struct fp_job {
	uint32_t id;
	char node[FALCON_NAME_LEN];
	uid_t uid;
	gid_t gid;
	char partition[FALCON_NAME_LEN];
	struct falcon_job_req req;
	struct falcon_job_opts opts;
	bool no_slurm;                 /* debugging switch: no libslurm calls */
	bool slurmctld;                /* falcon-prolog as PrologSlurmctld: --slurmctld
					* or SLURM_SCRIPT_CONTEXT=prolog_slurmctld */
};

/* fp_left - ms left until deadline (falcon_now_ms() clock), >= 0. */
long fp_left(long long deadline);
/* fp_now_us - CLOCK_MONOTONIC in microseconds (timing breakdown). */
long long fp_now_us(void);
/* fp_job_dir - RunDir/<jobid> into buf (n bytes); NULL when it does not fit. */
char *fp_job_dir(const struct falcon_conf *conf, uint32_t job, char *buf, size_t n);
/*
 * fp_claimed - the BDFs other jobs hold on node: "bdf" members of
 * RunDir/<other job>/lease.json devices and "local_bdfs" of their
 * topology.json, appended to bdfs (capacity cap).  Records of another node
 * (their "node", when RunDir is shared) and unreadable files are skipped.
 */
size_t fp_claimed(const struct falcon_conf *conf, uint32_t self, const char *node,
		  char (*bdfs)[FALCON_BDF_LEN], size_t cap);
/* fp_lock - flock(LOCK_EX) RunDir/.lock (created 0600); fd, or -1 (logged). */
int fp_lock(const struct falcon_conf *conf);
void fp_unlock(int fd);
/* fp_lease_json / fp_lease_from_json - the lease.json form (node: the
 * Slurm node it is on, NULL = left out).  A device without "phys_slot"
 * (lease.json of an older prolog) gets it from its id "drawer<D>_slot<S>"
 * (fp_phys_slot_of()). */
json_object *fp_lease_json(const struct fp_lease *l, const char *node);
falcon_err_t fp_lease_from_json(json_object *o, struct fp_lease *l);
/* fp_write_json - write o to path atomically, mode 0640, then chown root:gid. */
falcon_err_t fp_write_json(const char *path, json_object *o, gid_t gid);
/* fp_rmtree - remove dir and the regular files in it (one level). */
void fp_rmtree(const char *dir);
/*
 * fp_dev_kind - t folded to the kinds the prolog matches on the bus:
 * FALCON_DEV_GPU, FALCON_DEV_NVME, else FALCON_DEV_OTHER (a NIC too: the
 * bus scan (lib/pci/topo.h) has no NIC class, a NIC is FALCON_PCI_OTHER
 * there, and lease.json has always said "other" for it).
 */
falcon_dev_type_t fp_dev_kind(falcon_dev_type_t t);
/*
 * fp_phys_slot_of - the Physical Slot Number of a Falcon device id
 * "drawer<D>_slot<S>" (lib/chassis naming) by falcon_pcicfg_phys_slot();
 * 0 when id is not of that form or out of range.
 */
int fp_phys_slot_of(const char *id);
/*
 * fp_drop_stale - remove the records of ended jobs that name this job's
 * devices: a RunDir/<other job>/ on node whose lease.json lists a device
 * (chassis and id) of lease.  falcond leases a chassis slot to one job at
 * a time, so such a record outlived its job (an epilog that never ran or
 * died); left, it would claim the slot's BDF and local GPUs.  Each removal
 * is logged (warning) with the job and device.  Returns how many were
 * removed.  Call under fp_lock().
 */
size_t fp_drop_stale(const struct falcon_conf *conf, uint32_t self, const char *node,
		     const struct fp_lease *lease);

#endif /* FALCON_FP_COMMON_H */
