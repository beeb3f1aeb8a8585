/*
 * submit.h - what job_submit_falcon(8) decides of a job at submit and on
 * modify, without Slurm: the falcon.conf policy of each of its partitions,
 * the chassis pool licenses (slurm.conf(5) Licenses=<ChassisName>_gpu,
 * <ChassisName>_nvme) it needs and whether the pool can ever hold it, the
 * chassis a job whose nodes span several is pinned to (by what is free now,
 * else by backlog), the HRES licenses of Slurm 25.11+, a heterogeneous
 * job's licenses moved to its leader, and an update that contradicts the
 * licenses falcon derives.  plugin/job_submit_falcon.c is the glue: it
 * reads the job_desc and slurmctld's state into these structs and writes
 * the answer back (as plugin/spank_falcon.c over plugin/spank_core.c).
 *
 * slurmctld's state is read on demand through struct falcon_ctld_view:
 * Slurm 22.05 has no reader of one license's total or use, so each count
 * costs the glue a bisection over license_validate()/license_job_test()
 * and a walk of the job list, and most jobs ask for no falcon device at
 * all (nothing is read for them).
 *
 * Pure functions: no Slurm, no I/O, no logging (each judgment returns the
 * one line the glue logs).  Strings returned are malloc'd (free()).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_SUBMIT_H
#define FALCON_SUBMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/conf.h"
#include "core/device.h"
#include "core/falcon_err.h"
#include "core/policy.h"

/* Candidate hosts looked at to find a job's chassis (its -w list, else its
 * partition's nodes). */
#define FALCON_SUBMIT_MAX_HOSTS 4096
/* A job's node count is taken at most this (a pool never promises more). */
#define FALCON_SUBMIT_MAX_NODES 1024

/*
 * slurmctld's state as the judge reads it, each count when it needs it.
 * Every hook is called with arg; all are required except part_known.
 */
struct falcon_ctld_view {
	const char *default_partition;  /* slurmctld's default_part_name; NULL = none */
	falcon_policy_known_fn part_known; /* Slurm has this partition (to suggest it); NULL = any */
	/* partition's node list (slurm.conf PartitionName=... Nodes=, a
	 * hostlist expression; borrowed); NULL when Slurm has no such partition */
	const char *(*part_nodes)(const char *partition, void *arg);
	/* the hostlist expression expr expanded, at most max names into
	 * names[] (each malloc'd: the judge free()s them); returns how many */
	size_t (*hostlist)(const char *expr, char **names, size_t max, void *arg);
	/* license's configured total (slurm.conf Licenses=NAME:COUNT); -1 when
	 * slurmctld has no such license (nor HRES resource of that name) */
	long (*license_total)(const char *license, void *arg);
	/* how many of license one job could take now: its total less what
	 * running jobs hold and reservations (falcond's quarantine) keep; 0
	 * for an unknown license */
	long (*license_free)(const char *license, void *arg);
	/* the sum of license that pending jobs other than job_id ask for (the
	 * jobs this plugin pinned that wait to start) */
	long (*license_pending)(const char *license, uint32_t job_id, void *arg);
	void *arg;
};

/* What of a chassis pool falcon_pool_read() reads (a mask). */
#define FALCON_POOL_TOTAL 1u
#define FALCON_POOL_FREE 2u
#define FALCON_POOL_PENDING 4u

/* One chassis pool of one device type, in devices.  -1 = not read. */
struct falcon_pool_count {
	long total;    /* configured (Licenses=); -1 also when not configured */
	long free;     /* one job could take now (used and reserved ones counted) */
	long pending;  /* claimed by pending jobs other than the one judged */
};

/* The longest pool name falcon_pool_read() makes: an HRES layer
 * "falcon_pool_nvme(HOSTS)" of a chassis' HostName= list. */
#define FALCON_POOL_NAME_LEN 4200

/*
 * falcon_pool_read - what the pool of chassis (a ChassisName) holds of
 * devices of type (FALCON_DEV_GPU or FALCON_DEV_NVME), read through v: the
 * parts of what (FALCON_POOL_* mask) into *out, the others -1.  The pool is
 * the license <chassis>_gpu / <chassis>_nvme (job_submit_falcon(8), CHASSIS
 * POOL), or, where slurmctld has the HRES resource FALCON_HRES_GPU (Slurm
 * 25.11+) and conf is given, the chassis' layer "falcon_pool_gpu(HOSTS)"
 * (falcon_hres_layer_name(): v reads its total, and its free count as
 * Slurm 26.05's scheduler counts a MODE_3 layer; pending jobs ask for the
 * root layer, so none is counted against a layer).  This is the one place
 * that names the pool.  conf: falcon.conf (NULL: the licenses).  job_id:
 * the job judged (0 = a new one), not counted among the pending.
 * FALCON_ERR_INVAL for a chassis name no license can be made of
 * (falcon_license_name()) or, with HRES, one conf does not name or cable;
 * *out is all -1 then.
 */
falcon_err_t falcon_pool_read(const struct falcon_conf *conf, const struct falcon_ctld_view *v,
			      const char *chassis, falcon_dev_type_t type, unsigned what,
			      uint32_t job_id, struct falcon_pool_count *out);

/*
 * falcon_pool_fits - the pool arithmetic, in one place: can a pool with
 * counts c give want devices (a whole-job count: per node x nodes) ever
 * (now false: want <= the configured total) or now (want plus what pending
 * jobs already claim <= what a job could take now; the claims counted so
 * that jobs submitted in a burst, before the first starts, are spread over
 * the chassis)?  want <= 0 always fits; a count not read (-1) never
 * does.  As slurmctld's license_job_test() answers for a license of count
 * want + pending (src/slurmctld/licenses.c: per license, total, used and
 * reserved).
 */
bool falcon_pool_fits(const struct falcon_pool_count *c, long want, bool now);

/* A job as the judge sees it: the job_desc's fields, or on modify each
 * changed field else the job's own.  Strings are borrowed. */
struct falcon_submit_job {
	uint32_t job_id;            /* the job modified; 0 = a new job (job_submit) */
	uint32_t uid;               /* who submits, for the log line */
	const char *partitions;     /* -p "a,b"; NULL or "" = the default partition */
	const char *tres_per_node;  /* its per-node GRES (falcon_tres_parse()); NULL = none */
	char *const *env;           /* spank_job_env: the falcon options */
	size_t nenv;
	const char *licenses;       /* its licenses now ("a:2,b"); NULL = none */
	const char *req_nodes;      /* its -w list; NULL or "" = none */
	const char *features;       /* its constraint (-C); NULL = none */
	uint32_t min_nodes;         /* -N; 0 = not given (Slurm's NO_VAL) */
	uint32_t max_nodes;         /* -N min-max; 0 = not given (NO_VAL, INFINITE) */
};

/* The judge's answer, as job_submit_falcon tells Slurm. */
enum falcon_submit_verdict {
	FALCON_SUBMIT_ACCEPT = 0,    /* with the changes in the out struct */
	FALCON_SUBMIT_BAD_GRES,      /* policy, option or broken falcon.conf: ESLURM_INVALID_GRES */
	FALCON_SUBMIT_BAD_LICENSES,  /* a pool that can never hold it: ESLURM_INVALID_LICENSES */
	FALCON_SUBMIT_BAD_FEATURE,   /* a pin or constraint falcon cannot keep: ESLURM_INVALID_FEATURE */
};

struct falcon_submit_out {
	enum falcon_submit_verdict verdict;
	char *why;        /* on refusal the user's message ("falcon: ..."); else NULL */
	char *licenses;   /* the job's new licenses; NULL = unchanged, "" = none */
	char *features;   /* its new constraint; NULL = unchanged */
	char *note;       /* the one line for slurmctld's log; NULL = nothing to say */
	bool note_error;  /* log the note as an error (a license string not built) */
};

/*
 * falcon_submit_judge - job judged (job_submit_falcon(8), DESCRIPTION):
 *  1. without conf (NULL: none loaded yet), only a job asking for
 *     falcon_gpu/falcon_nvme is refused, and only when conf_broken (NULL
 *     = the file is missing) says why falcon.conf on disk is refused;
 *  2. the policy (falcon_policy_job()) of every partition of its list
 *     (each must accept it: Slurm may start it in any), or DEFAULT's when
 *     neither the job nor v names one;
 *  3. a job of no falcon device is left alone; the others count
 *     max_nodes, else min_nodes, else 1 nodes (a range at its most, at
 *     most FALCON_SUBMIT_MAX_NODES);
 *  4. where slurmctld has the HRES resource FALCON_HRES_GPU (Slurm 25.11+
 *     resources.yaml(5) MODE_3, which counts a job's request on each node
 *     from the layer of that node's chassis: licenses.c
 *     _foreach_hres_job_get): FALCON_HRES_GPU and FALCON_HRES_NVME set to
 *     the per-node counts, every chassis pool license removed; refused
 *     when the largest layer of its candidate hosts' chassis (license_total
 *     of falcon_hres_layer_name()) holds fewer than it asks per node
 *     (Slurm 26.05 takes such a request when the root layer's count is
 *     -1, and the job pends for ever);
 *  5. a job whose candidate hosts (its -w list, else its first partition's
 *     nodes) are cabled to several chassis of several: pinned
 *     (job_submit_falcon(8), SEVERAL CHASSIS): a -w list as it lists them
 *     (it must name as many falcon.conf hosts as its nodes), a pin already
 *     in its constraint kept (it must name a chassis of its nodes), else
 *     falcon_fleet_place() over falcon_pool_fits() now, then ever by
 *     backlog (pending claims minus free GPUs); each chassis' pool must
 *     ever hold its part; licenses by falcon_fleet_licenses(), constraint
 *     by falcon_fleet_constraint();
 *  6. otherwise the one chassis pool of its hosts (falcon_policy_pool();
 *     none known: no license added) must ever hold per node x nodes of
 *     each type, and its licenses are set (falcon_pool_licenses()).
 * *out is filled whole (the caller's; falcon_submit_out_free()).  Returns
 * FALCON_ERR_NOMEM (out->verdict ACCEPT, nothing changed) when memory
 * ran out, else FALCON_OK, whatever the verdict.
 */
falcon_err_t falcon_submit_judge(const struct falcon_conf *conf, const char *conf_broken,
				 const struct falcon_submit_job *job,
				 const struct falcon_ctld_view *v, struct falcon_submit_out *out);

/* falcon_submit_out_free - the strings of *out freed and set to NULL. */
void falcon_submit_out_free(struct falcon_submit_out *out);

/*
 * falcon_submit_contradiction - on job_id's update that sets its licenses
 * (asked), NULL in *why when asked names no chassis pool license of conf
 * or gives each the count falcon derived from the job's falcon GRES and
 * chassis (ours: falcon_submit_judge()'s licenses); else the message
 * (malloc'd): "scontrol update job=N licenses=c1_gpu:2" on a falcon_gpu:4
 * job was accepted and silently rewritten back (issue 32); the GRES is
 * what to change.  FALCON_ERR_NOMEM.
 */
falcon_err_t falcon_submit_contradiction(const struct falcon_conf *conf, const char *asked,
					 const char *ours, uint32_t job_id, char **why);

/*
 * falcon_het_licenses - a heterogeneous job's chassis pool licenses moved to
 * its leader: of a component's licenses comp (judged), every pool license
 * of conf is added to the leader's count (leader: its licenses now) and
 * taken off comp.  Slurm 24.11 (src/slurmctld/proc_req.c,
 * _slurm_rpc_submit_batch_het_job, _slurm_rpc_allocate_het_job) refuses a
 * component other than the leader that carries licenses ("license request
 * allowed only on leader job"); the component keeps its chassis pin, so
 * each node's devices still come from its own chassis.  *leader_out and
 * *comp_out are new strings (free(); NULL when nothing is left).
 * FALCON_ERR_INVAL (the user's message in falcon_errmsg()) when comp asks
 * for HRES (FALCON_HRES_GPU/NVME: judged on an HRES site): MODE_3 counts
 * the leader's HRES on the leader's nodes (Slurm 26.05 licenses.c
 * hres_create_select() per job record), so no move counts a later
 * component's devices on its own chassis.  FALCON_ERR_NOMEM.  Both NULL
 * on error.
 */
falcon_err_t falcon_het_licenses(const struct falcon_conf *conf, const char *leader,
				 const char *comp, char **leader_out, char **comp_out);

#endif /* FALCON_SUBMIT_H */
