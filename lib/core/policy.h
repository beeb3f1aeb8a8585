/*
 * policy.h - a job's per-node falcon request judged against its
 * partition's falcon.conf policy (AllowTopologies, MaxFalconGPUs,
 * MaxFalconNVMe), and the chassis pool licenses it needs (one per device
 * type: <ChassisName>_gpu, <ChassisName>_nvme).  One judge and
 * one message text for every place that checks: job_submit_falcon.so at
 * submit (the authoritative check), spank_falcon.so in sbatch/salloc (an
 * early courtesy), and falcond before it composes.
 *
 * Pure functions: no Slurm, no I/O.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_POLICY_H
#define FALCON_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "core/conf.h"
#include "core/device.h"
#include "core/falcon_err.h"
#include "core/jobtag.h"

/* Enough for every message falcon_policy_check() writes. */
#define FALCON_POLICY_MSG_LEN 512

/*
 * falcon_policy_topologies - the Table III labels (FALCON_CONF_TOPO_*
 * bits) a per-node request puts a job in, as falcon.conf(5)'s
 * AllowTopologies and README.md define them:
 * falcon_gpu only = falconGPUs, gpu + falcon_gpu = hybridGPUs, gpu only =
 * localGPUs; falcon_nvme adds falconNVMe.  localNVMe is not a GRES and is
 * never returned.  0 for a request of no GPU and no NVMe.
 */
unsigned falcon_policy_topologies(const struct falcon_job_req *req);

/*
 * falcon_policy_check - judge req (per node) against partition p.  Rules in
 * this order, the first broken one wins: the GPU label is in
 * AllowTopologies, falcon_gpu <= MaxFalconGPUs, falconNVMe is in
 * AllowTopologies, falcon_nvme <= MaxFalconNVMe.  On refusal returns
 * FALCON_ERR_POLICY with a message the user can act on in falcon_errmsg()
 * (at most FALCON_POLICY_MSG_LEN bytes), e.g.
 *   "partition gpu allows at most 8 falcon_gpu per node; asked 12
 *    (falcon.conf MaxFalconGPUs=8): ask for at most 8, or use partition big"
 * When conf is not NULL, the first other PartitionName= of conf (not
 * DEFAULT) whose policy accepts req and for which known (NULL = any) says
 * true (job_submit_falcon: Slurm has that partition) is suggested ("or use
 * partition X"); with conf NULL (falcond's re-check) the message has no
 * such suggestion.
 * FALCON_OK when req is allowed (a request of nothing always is).
 */
typedef bool (*falcon_policy_known_fn)(const char *partition);
falcon_err_t falcon_policy_check(const struct falcon_partition_conf *p,
				 const struct falcon_conf *conf, falcon_policy_known_fn known,
				 const struct falcon_job_req *req);

/*
 * falcon_policy_job - everything job_submit_falcon judges of one job in
 * one partition: tres (its tres_per_node, NULL = none) parsed with
 * falcon_tres_parse(), the falcon options of its SPANK environment (env[0..n),
 * NULL = none) with falcon_job_opts_parse() (an unknown --falcon-place or
 * --falcon-check word is refused: the prolog would fail on it), then
 * falcon_policy_check() against partition (NULL or "" = DEFAULT) of conf
 * (known: as there).
 * Returns FALCON_ERR_PARSE / FALCON_ERR_INVAL / FALCON_ERR_POLICY with the
 * message in falcon_errmsg() ("partition P: ..." for the first two);
 * *req (optional) gets the parsed request either way.
 */
falcon_err_t falcon_policy_job(const struct falcon_conf *conf, falcon_policy_known_fn known,
			       const char *partition, const char *tres, char *const *env, size_t n,
			       struct falcon_job_req *req);

/*
 * falcon_policy_pool - the chassis pool (ChassisName) a job on hosts[0..n)
 * draws from, for its license: the chassis of every host of the list that
 * falcon.conf names (HostName=; others are ignored), or, with n == 0 or no
 * host known, the only ChassisName of conf.  *out points into conf.
 * FALCON_ERR_NOTFOUND when conf defines no chassis (or none of the hosts'),
 * FALCON_ERR_INVAL naming them when the hosts span several chassis (Slurm
 * 22.05 has no "one of" license: a job there gets none added).
 */
falcon_err_t falcon_policy_pool(const struct falcon_conf *conf, const char *const *hosts,
				size_t n, const char **out);

/*
 * falcon_license_merge - the job's license string old (NULL = none; Slurm
 * 22.05 spelling "NAME[:COUNT]" joined by ',' or ';') with pool set to
 * count: every entry of pool is removed (22.05 adds up repeated names) and
 * "pool:count" appended; the other entries are kept in order, joined by
 * ','.  count 0 removes pool.  *out is a new string (free()), NULL when
 * nothing is left.  *changed (optional) tells whether the result differs
 * from old as Slurm counts it.  FALCON_ERR_INVAL for an empty pool or a
 * negative count, FALCON_ERR_NOMEM.
 */
falcon_err_t falcon_license_merge(const char *old, const char *pool, int count, char **out,
				  bool *changed);

/*
 * falcon_license_count - how many of license name a Slurm license list lic
 * asks for (22.05 spelling: "NAME[:COUNT]" joined by ',' or ';'; a bare
 * name counts 1; a name listed twice is summed, as Slurm 22.05 adds
 * repeated names up).  -1 when lic (NULL = none) does not name it at all,
 * so that "c1_gpu:0" (0) and its absence (-1) differ; FALCON_LICENSE_BAD
 * (-2, read as absent by a caller that tests < 0) when a count of name is
 * not a number in [0, FALCON_LICENSE_MAX] ("c1_gpu:x"), with the entry
 * named in the detail (falcon_errmsg: "license c1_gpu:x: the count: 'x' is
 * not an integer in [0, 1000000000]").
 */
#define FALCON_LICENSE_MAX 1000000000L
#define FALCON_LICENSE_BAD (-2L)
long falcon_license_count(const char *lic, const char *name);

/*
 * falcon_license_same - whether two Slurm license strings name the same
 * entries with the same counts, in any order: entries "NAME[(NODES)][:COUNT]"
 * joined by ',' or ';' (a reservation's Licenses=: Slurm 26.05's scontrol
 * joins them with ';', earlier releases with ','; an HRES layer's NODES, a
 * host list, may hold ',' inside its parentheses: Slurm 26.05
 * src/slurmctld/licenses.c _build_license_list()); a bare entry counts 1
 * (slurm.conf(5)); NULL is "".  FALCON_LICENSE_SAME_MAX entries or more
 * on either side, or an entry over 255 bytes, compare as different (the
 * caller then updates what it need not: harmless).
 */
#define FALCON_LICENSE_SAME_MAX 64
bool falcon_license_same(const char *a, const char *b);

/*
 * falcon_license_name - the Slurm license (slurm.conf(5) Licenses=) that
 * counts the devices of type (FALCON_DEV_GPU or FALCON_DEV_NVME) of chassis
 * pool: "<pool>_gpu" or "<pool>_nvme", written to buf (n bytes, caller's).
 * FALCON_ERR_INVAL for an empty pool, one with ',;:', another type, or a
 * name longer than n - 1 bytes.
 */
falcon_err_t falcon_license_name(const char *pool, falcon_dev_type_t type, char *buf, size_t n);

/*
 * falcon_pool_licenses - the job's license string old (as in
 * falcon_license_merge()) with pool's licenses set: "<pool>_gpu:gpus" and
 * "<pool>_nvme:nvme" (whole-job counts: per-node request x nodes; 0 = that
 * license removed), every earlier entry of those names and of the bare
 * name pool (the single license of both types that earlier falcon-slurm added;
 * a user's -L pool:N is never what the chassis counts) removed, the other
 * entries kept in order.  *out is a new string (free()), NULL when nothing
 * is left; *changed (optional) as in falcon_license_merge().
 * FALCON_ERR_INVAL for a bad pool (see falcon_license_name()) or a negative
 * count, FALCON_ERR_NOMEM.
 */
falcon_err_t falcon_pool_licenses(const char *old, const char *pool, int gpus, int nvme,
				  char **out, bool *changed);

#endif /* FALCON_POLICY_H */
