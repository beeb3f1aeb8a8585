/*
 * fp.h - the glue shared by falcon-prolog and falcon-epilog.
 *
 * Split by what each file includes: fp_falcond.c (falcond client, which
 * pulls in lib/chassis/chassis.h), fp_topo.c (lib/pci/topo.h) and fp_slurm.c
 * (libslurm).  This header includes neither lib/chassis/chassis.h nor
 * lib/pci/topo.h (FALCON_PCI_*); a lease device's kind is lib/core/
 * device.h's falcon_dev_type_t, folded to the kinds the bus tells apart
 * (fp_dev_kind()).
 *
 * Layered, no file calls back into its caller: fp_common.c calls none of
 * the others; fp_falcond.c, fp_topo.c and fp_slurm.c call only
 * fp_common.c; fp_start.c (the start of a run) calls fp_common.c and
 * fp_slurm.c; falcon-prolog.c and falcon-epilog.c call them all.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_FP_H
#define FALCON_FP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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
					* (falcon_chassis_phys_slot()), 0 = unknown */
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

/* ---- fp_common.c ---- */

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
 * "drawer<D>_slot<S>" (lib/chassis naming) by falcon_chassis_phys_slot();
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
/* ---- fp_falcond.c ---- */

/*
 * fp_compose - ask falcond for the job's devices, retrying transient errors
 * (transport, timeout, 5xx, conflict, noresource) ChassisRetries times with
 * backoff 0.5, 1, 2 ... s, never past deadline.  *fatal_job is set for
 * errors that are the job's (policy, perm): no retry, the node is fine.
 */
falcon_err_t fp_compose(const struct falcon_conf *conf, const struct fp_job *job,
			long long deadline, struct fp_lease *out, bool *job_error);
/* fp_wait_fn - told each time the reason of a waiting compose changes:
 * why is the error, detail its message. */
typedef void (*fp_wait_fn)(falcon_err_t why, const char *detail, void *arg);
/*
 * fp_compose_wait - fp_compose for PrologSlurmctld: transient errors
 * (falcond unreachable or 503, the pool short, a chassis slow or failing)
 * are retried until deadline (falcon_now_ms() clock; ComposeWait=), with
 * backoff 0.5, 1, 2, 4, then 5 s, not ChassisRetries times; waiting (NULL
 * = none) is called when the reason changes.  falcond answers a repeated
 * compose of the same job and host with the same lease
 * (composer/falcond_core.c compose_repeat()), so a retry after a request
 * that timed out on our side never leases twice.  Returns the last error
 * when the deadline passed; *job_error as fp_compose.
 */
falcon_err_t fp_compose_wait(const struct falcon_conf *conf, const struct fp_job *job,
			     long long deadline, struct fp_lease *out, bool *job_error,
			     fp_wait_fn waiting, void *arg);
/* fp_wait_why - the word of AdminComment "falcon:waiting=<word>" for a
 * transient compose error e ("falcond_unreachable", "pool_short", ...);
 * a static string. */
const char *fp_wait_why(falcon_err_t e);
/*
 * fp_decompose - give back the job's lease on node: lease (its id; NULL or
 * "" = looked up with fp_lease_of()), never every lease of the job (the
 * job's other nodes keep theirs).  *quarantined (may be NULL) gets
 * falcond's count of devices it could not detach.  No lease is FALCON_OK.
 * check (NULL = none) is the job's check verdict, recorded by falcond in
 * each device's history (at most 127 characters are sent).  Retries
 * transient errors like fp_compose, never past deadline (falcon_now_ms()).
 */
falcon_err_t fp_decompose(const struct falcon_conf *conf, uint32_t job, const char *node,
			  const char *lease, long long deadline, const char *check,
			  int *quarantined);
/* fp_quarantine - POST /v1/quarantine for one device. */
falcon_err_t fp_quarantine(const struct falcon_conf *conf, const struct fp_dev *d,
			   const char *reason);
/*
 * fp_lease_held - after a rescan timeout, is the lease's absence the node's
 * problem?  Asks falcond to reconcile (POST /v1/reconcile {"reread":false}:
 * the zones read again, the descriptions kept), which closes a lease whose
 * devices the chassis no longer gives the host ("gone from the chassis": a
 * chassis restarted and lost its zones), then looks for lease id of job on
 * node (GET /v1/status).  1: the chassis holds it (the devices are in the
 * host's zone: not appearing is the node's); 0: it does not, or a chassis
 * did not answer the reconcile (502); -1: falcond could not be asked before
 * deadline (falcon_now_ms(); a 503 of its start-up reconcile is retried)
 * or refused the request (an older falcond: 400), the error set.  why (n
 * bytes) gets what was found.
 */
int fp_lease_held(const struct falcon_conf *conf, uint32_t job, const char *node,
		  const char *lease, long long deadline, char *why, size_t n);
/* fp_lease_of - the job's lease on node from GET /v1/status (epilog fallback). */
falcon_err_t fp_lease_of(const struct falcon_conf *conf, uint32_t job, const char *node,
			 struct fp_lease *out);
/* fp_round_trip_ms - time spent in falcond calls so far (bench breakdown). */
extern long long fp_falcond_us;

/* ---- fp_topo.c ---- */

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
int fp_match(const char *root, const struct falcon_host_conf *host, struct fp_lease *lease,
	     char *why, size_t whylen);

/*
 * fp_build_topology - scan root, and build the job's topology: the job's
 * GPUs are the lease's plus want_local local NVIDIA GPUs (the SLURM_JOB_GPUS
 * indices among the host's local GPUs by BDF when given, else the first
 * unclaimed ones by BDF).  FALCON_ERR_NORESOURCE when fewer local GPUs are
 * there than asked.  *res is filled (res->topology owned by the caller).
 */
falcon_err_t fp_build_topology(const char *root, const struct falcon_host_conf *host,
			       const struct fp_lease *lease, int want_local,
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
size_t fp_dev_holders(const char *root, const char *proc, uint32_t job, const struct fp_dev *d,
		      char *held, size_t hn, char *reason, size_t n);
/* fp_scan_us - time spent in libpci scans so far (bench breakdown). */
extern long long fp_scan_us;

/* ---- fp_slurm.c ---- */

/*
 * fp_slurm_job - fill job from slurm_load_job() (tres_per_node, partition,
 * user, group, spank_job_env) or, with job->no_slurm, from the environment
 * (FALCON_TRES_PER_NODE, SLURM_JOB_PARTITION, SLURM_JOB_UID, SLURM_JOB_GID,
 * SPANK_FALCON_*).  FALCON_ERR_SLURM / FALCON_ERR_PARSE.
 */
falcon_err_t fp_slurm_job(struct fp_job *job);
/* fp_slurm_tag - merge tag into the job's AdminComment (re-read first). */
falcon_err_t fp_slurm_tag(const struct fp_job *job, const char *tag);
/*
 * fp_slurm_drain - DRAIN the node with reason ("falcon: ...").  A reason
 * the node already has is never overwritten (slurm_load_node_single()
 * first): an administrator's is kept as it is, falcon's own gets
 * "; reason" appended (unless it holds reason already).
 */
falcon_err_t fp_slurm_drain(const struct fp_job *job, const char *reason);
/*
 * fp_slurm_requeue - a failure that is not the node's (falcond, the pool,
 * a chassis): slurm_requeue(job, 0), so Slurm runs it again (pending, not
 * held; Slurm 22.05 src/slurmctld/job_mgr.c job_epilog_complete() delays its
 * start by the credential's expiry window + 1 s, 121 s by default).  A
 * job Slurm will not requeue (salloc/srun, --no-requeue) is told why
 * (slurm_notify_job()) and cancelled.  why is logged; FALCON_ERR_SLURM
 * when neither worked.
 */
falcon_err_t fp_slurm_requeue(const struct fp_job *job, const char *why);
/*
 * fp_slurm_nodes - the node names of a Slurm host list ("n[1-3],x")
 * into nodes (the first cap of them, the others logged; *n how many).  FALCON_ERR_INVAL when empty,
 * FALCON_ERR_PARSE when libslurm cannot read it.
 */
falcon_err_t fp_slurm_nodes(const char *nodelist, char (*nodes)[FALCON_NAME_LEN], size_t cap,
			    size_t *n);
/* fp_slurm_cancel - cancel the job (SIGKILL, whole job). */
falcon_err_t fp_slurm_cancel(const struct fp_job *job);
/* fp_slurm_us - time spent in libslurm calls so far (bench breakdown). */
extern long long fp_slurm_us;

/* ---- fp_start.c ---- */

/*
 * fp_start - what a prolog/epilog run is for: job->id from jobs
 * ($SLURM_JOB_ID or --job, 1..UINT32_MAX), job->node from node (NULL = the
 * short host name), *conf from falcon.conf at cfg (NULL = the default
 * path; caller frees with falcon_conf_free()).  Returns 0; 2 when the job
 * id is missing or bad (logged); 1 when falcon.conf does not load (logged,
 * the node drained with "falcon: falcon.conf: <detail>" unless
 * job->slurmctld: no node of its own there; *conf NULL).
 */
int fp_start(const char *jobs, const char *node, const char *cfg, struct fp_job *job,
	     struct falcon_conf **conf);
/*
 * fp_main_start - the start both programs share: falcon_log_init(prog),
 * the options -c/--config, -j/--job, -n/--node, --no-slurm (job->no_slurm),
 * -v/--verbose (repeatable), -h/--help, -V/--version, --slurmctld
 * (job->slurmctld, also set by SLURM_SCRIPT_CONTEXT=prolog_slurmctld, which
 * Slurm 22.05 src/plugins/prep/script/prep_script_slurmctld.c _build_env()
 * gives PrologSlurmctld) when proc is NULL, and --proc DIR when
 * proc is non-NULL (*proc gets it, else left as it is); the stderr and
 * syslog sinks; then fp_start() with $SLURM_JOB_ID / $SLURMD_NODENAME as
 * defaults.  usage(f) prints the program's usage.  Returns -1 when the
 * program should go on (*conf loaded, caller frees it), else its exit
 * code: 0 after --help/--version, 2 on a usage error, fp_start()'s.
 */
int fp_main_start(int argc, char **argv, const char *prog, void (*usage)(FILE *f),
		  const char **proc, struct fp_job *job, struct falcon_conf **conf);

#endif /* FALCON_FP_H */
