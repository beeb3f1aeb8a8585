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
 * is lib/api/proto.h's record, and a device's kind lib/core/device.h's
 * falcon_dev_type_t, folded to the kinds the bus tells apart (fp_dev_kind()).
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
#include "api/proto.h"

#define FP_MAX_DEVS FALCON_PROTO_MAX_DEVS /* devices of one lease */
#define FP_MAX_GPUS 64   /* GPUs of one host */
#define FP_MAX_WARNINGS 8 /* hot-plug warnings kept for topology.json */

/*
 * A lease and its devices are lib/api's struct falcon_lease and struct
 * falcon_lease_dev (api/proto.h), one record from falcond's answer to
 * lease.json and topology.json: falcond fills its fields, the prolog the
 * host's (fp_lease_on_host(): kind folded, phys_slot; fp_match(): bdf).
 * A lease read back from lease.json (fp_lease_from_json()) has only what
 * that file keeps: id, and per device chassis, id, port, type, vendor_id,
 * device_id, phys_slot, bdf.
 */

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
	bool slurmctld;                /* as PrologSlurmctld/EpilogSlurmctld: --slurmctld
					* or SLURM_SCRIPT_CONTEXT=prolog_slurmctld
					* (falcon-prolog), epilog_slurmctld (falcon-epilog) */
	bool interactive;              /* salloc/srun (job_info batch_flag 0) */
	bool no_requeue;               /* Slurm kills it rather than requeue it on a
					* failed prolog: interactive, or --no-requeue */
	/* as fp_slurm_job() read them (state_known), for fp_slurm_untag_requeued() */
	bool state_known;
	bool requeued;                 /* Slurm is requeueing it */
	bool topo_tagged;              /* its AdminComment shows a run's topology */
};

/* fp_left - ms left until deadline (falcon_now_ms() clock), >= 0. */
long fp_left(long long deadline);
/* fp_now_us - CLOCK_MONOTONIC in microseconds (timing breakdown). */
long long fp_now_us(void);
/*
 * struct fp_times - where a run's time went, for the timing line
 * falcon-prolog and falcon-epilog log at -v (the bench breakdown), in
 * microseconds: falcond's requests, libslurm calls, libpci scans.  One
 * record per process, kept here (no global of its own in each file):
 * fp_time_add(CLOCK, T0) adds fp_now_us() - T0 to CLOCK's total
 * (fp_falcond.c, fp_slurm.c, fp_topo.c), fp_times() reads them all (the
 * programs' main()).
 */
struct fp_times {
	long long falcond_us, slurm_us, scan_us;
};
enum fp_clock { FP_TIME_FALCOND, FP_TIME_SLURM, FP_TIME_SCAN };
void fp_time_add(enum fp_clock clock, long long t0_us);
struct fp_times fp_times(void);
/* fp_job_dir - RunDir/<jobid> into buf (n bytes); NULL when it does not fit. */
char *fp_job_dir(const struct falcon_conf *conf, uint32_t job, char *buf, size_t n);
/*
 * fp_claimed - the BDFs other jobs hold on node: "bdf" members of
 * RunDir/<other job>/lease.json devices and "local_bdfs" of their
 * topology.json, appended to bdfs (capacity cap).  Records of another node
 * (their "node", when RunDir is shared) and unreadable files are skipped.
 * Returns how many were appended (at most cap); never an error.
 */
size_t fp_claimed(const struct falcon_conf *conf, uint32_t self, const char *node,
		  char (*bdfs)[FALCON_BDF_LEN], size_t cap);
/* fp_lock - flock(LOCK_EX) RunDir/.lock (created 0600, RunDir 0755 when
 * missing), waiting as long as another run holds it; the fd, or -1 when
 * the lock cannot be had (logged: the run goes on without it). */
int fp_lock(const struct falcon_conf *conf);
/* fp_unlock - give back fp_lock()'s lock (close fd); fd -1 is nothing. */
void fp_unlock(int fd);
/*
 * fp_lease_on_host - the host's fields of lease l as falcond answered it,
 * in place: each device's kind folded (fp_dev_kind()), its phys_slot from
 * its drawer and slot (falcon_pcicfg_phys_slot()), else from its id
 * (fp_phys_slot_of()), 0 when neither tells; bdf cleared (fp_match()
 * finds it).
 */
void fp_lease_on_host(struct falcon_lease *l);
/*
 * fp_lease_json - the lease.json form of l, also topology.json's "lease":
 * {"id", "node" (node: the Slurm node it is on; NULL = left out),
 * "devices":[{"chassis","id","port","type","vendor_id","device_id",
 * "phys_slot","bdf"}]}, an empty string or a phys_slot of 0 as null.  A new
 * object the caller puts (json_object_put()); NULL only on ENOMEM.
 */
json_object *fp_lease_json(const struct falcon_lease *l, const char *node);
/*
 * fp_lease_from_json - lease.json object o (as fp_lease_json() writes it,
 * or an older prolog's) into *l, zeroed first (uid -1): a missing or
 * mistyped member is "", a "type" other than GPU and NVMe (any case) is
 * other, a device without a "phys_slot" in 1-8191 gets it from its id
 * (fp_phys_slot_of()); devices past FP_MAX_DEVS are dropped.
 * FALCON_ERR_PARSE (detail set) when o is NULL or has no "devices" array.
 */
falcon_err_t fp_lease_from_json(json_object *o, struct falcon_lease *l);
/* fp_write_json - write o (borrowed) pretty-printed to path atomically
 * (falcon_write_file_atomic()), mode 0640, then, as root, chown root:gid.
 * FALCON_ERR_NOMEM when o cannot be serialised, FALCON_ERR_IO from the
 * write or the chown; detail names path. */
falcon_err_t fp_write_json(const char *path, json_object *o, gid_t gid);
/* fp_rmtree - remove dir and the regular files in it (one level); a file
 * or dir that cannot be removed is logged (warning), a missing dir is
 * nothing. */
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
		     const struct falcon_lease *lease);

#endif /* FALCON_FP_COMMON_H */
