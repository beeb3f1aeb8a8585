/*
 * job_submit_falcon.c - slurmctld's job_submit/falcon plugin
 * (job_submit_falcon(8)): at submit and on modify, the falcon.conf policy
 * of the job's partition(s) judged against its per-node GRES request
 * (tres_per_node) and its falcon SPANK options (spank_job_env), with the
 * falcon message as err_msg on refusal; the chassis pool licenses
 * (Licenses=<ChassisName>_gpu, <ChassisName>_nvme) added, counting the
 * job's falcon devices of each type; and a job asking for more than the
 * pool's configured total refused.
 *
 * Glue only: the judge, the pool and the license merge are lib/core/policy.c.
 *
 * Built against Slurm's source tree (--with-slurm-source): its internal
 * headers (slurmctld.h) are compiled with Slurm's own config.h, so this
 * file's "config.h" is Slurm's (plugin/job_submit.mk puts the tree first
 * with -iquote) and no falcon-slurm config.h macro is used here: what
 * configure decided about Slurm's internal API comes as -D flags
 * (FALCON_HOSTLIST_IS_STRUCT, FALCON_MODIFY_ERR_MSG:
 * m4/x_ac_slurm_source_api.m4).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Slurm's internal headers declare some functions as f(): not ours to fix */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"
#include "src/common/slurm_xlator.h"
#include "src/common/hostlist.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/licenses.h"
#include "src/slurmctld/slurmctld.h"
#pragma GCC diagnostic pop

#include "core/conf.h"
#include "core/falcon_err.h"
#include "core/jobtag.h"
#include "core/log.h"
#include "core/policy.h"

const char plugin_name[] = "falcon-slurm partition policies and chassis pool licenses";
const char plugin_type[] = "job_submit/falcon";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* The entry points slurmctld looks up (plugin/job_submit_falcon.map). */
int init(void);
int fini(void);
extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg);
#ifdef FALCON_MODIFY_ERR_MSG
extern int job_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr, uint32_t submit_uid,
		      char **err_msg);
#else
extern int job_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr, uint32_t submit_uid);
#endif

/* falcon_hostlist_t: Slurm's hostlist handle, a pointer in every release
 * (hostlist_t is the pointer up to 23.02, the struct from 23.11 on). */
#ifdef FALCON_HOSTLIST_IS_STRUCT
typedef hostlist_t *falcon_hostlist_t;
#else
typedef hostlist_t falcon_hostlist_t;
#endif

#define MAX_HOSTS 4096 /* nodes looked at to find a job's chassis pool */

/* The loaded falcon.conf and what it was loaded from. */
static struct {
	pthread_mutex_t lock;
	struct falcon_conf *conf;  /* last good one; NULL = none yet */
	char path[4096];
	struct stat st;            /* of the file conf (or the error) came from */
	bool seen;                 /* st is valid */
	char broken[FALCON_POLICY_MSG_LEN]; /* "" or why the file on disk is refused */
} g = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

static void log_sink_slurm(falcon_log_level_t level, const char *line, void *arg)
{
	(void)arg;
	if (level == FALCON_LOG_ERROR)
		error("%s", line);
	else if (level <= FALCON_LOG_INFO)
		info("%s", line);
	else
		debug("%s", line);
}

int init(void)
{
	falcon_log_init("job_submit_falcon");
	falcon_log_add_sink(log_sink_slurm, FALCON_LOG_DEBUG, NULL);
	falcon_info("loaded; falcon.conf %s", falcon_conf_path(NULL));
	return SLURM_SUCCESS;
}

int fini(void)
{
	falcon_conf_free(g.conf);
	g.conf = NULL;
	g.seen = false;
	return SLURM_SUCCESS;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/*
 * conf_refresh - (re)load falcon.conf when the file changed (inode, size or
 * mtime; Included files are not watched).  A file that does not load keeps
 * the last good configuration in use; g.broken says why it was refused
 * (logged once per change, with FILE:LINE).  Called with g.lock held.
 */
static void conf_refresh(void)
{
	const char *path = falcon_conf_path(NULL);
	struct falcon_conf *c = NULL;
	struct stat st;

	if (strcmp(path, g.path) != 0) {
		snprintf(g.path, sizeof(g.path), "%s", path);
		g.seen = false;
	}
	if (stat(path, &st) != 0) {
		if (!g.seen || g.st.st_ino != 0) {
			memset(&g.st, 0, sizeof(g.st));
			g.seen = true;
			snprintf(g.broken, sizeof(g.broken), "%s: %s", path, strerror(errno));
			falcon_error("%s; %s", g.broken,
				     g.conf ? "keeping the configuration loaded before"
					    : "no partition policy is enforced and no license added");
		}
		return;
	}
	if (g.seen && same_file(&st, &g.st))
		return;
	g.st = st;
	g.seen = true;
	if (falcon_conf_load(path, &c) != FALCON_OK) {
		snprintf(g.broken, sizeof(g.broken), "%s", falcon_errmsg());
		falcon_error("falcon.conf refused: %s; %s", g.broken,
			     g.conf ? "keeping the configuration loaded before"
				    : "jobs asking for falcon_gpu/falcon_nvme are refused until it is fixed");
		return;
	}
	falcon_conf_free(g.conf);
	g.conf = c;
	g.broken[0] = '\0';
	falcon_info("loaded %s: %zu partition policies, %zu chassis", path,
		    c->npartitions, c->nchassis);
}

/* part_known - does slurmctld have this partition (to suggest it)? */
static bool part_known(const char *name)
{
	return find_part_record((char *)name) != NULL;
}

/* pool_of - the chassis pool of a job in partition part (NULL = none known). */
static const char *pool_of(const struct falcon_conf *fconf, const char *req_nodes,
			   const char *part)
{
	const char *hosts[MAX_HOSTS], *pool = NULL;
	char *names[MAX_HOSTS];
	part_record_t *p = NULL;
	falcon_hostlist_t hl = NULL;
	size_t n = 0, i;
	char *h;

	if (fconf->nchassis != 1) {
		if (req_nodes != NULL && req_nodes[0] != '\0')
			hl = hostlist_create(req_nodes);
		else if (part != NULL && (p = find_part_record((char *)part)) != NULL &&
			 p->nodes != NULL)
			hl = hostlist_create(p->nodes);
		while (hl != NULL && n < MAX_HOSTS && (h = hostlist_shift(hl)) != NULL) {
			names[n] = h;
			hosts[n] = h;
			n++;
		}
	}
	if (falcon_policy_pool(fconf, hosts, n, &pool) != FALCON_OK) {
		falcon_info("no chassis pool license added: %s", falcon_errmsg());
		pool = NULL;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	if (hl != NULL)
		hostlist_destroy(hl);
	return pool;
}

/*
 * lic_fits - does slurmctld's license name (slurm.conf(5) Licenses=) have a
 * configured total of at least count?  With count 0, *exists (optional)
 * tells whether the license is configured at all.  license_validate() (licenses.h)
 * takes slurmctld's license mutex itself; it is the one reader of the
 * license list that 22.05 to 24.11 all export.
 */
static bool lic_fits(const char *name, long count, bool *exists)
{
	char *spec = xstrdup_printf("%s:%ld", name, count > 0 ? count : 1);
	bool valid = true;
	__typeof__(license_validate(NULL, false, false, NULL, NULL)) l;

	l = license_validate(spec, count > 0, true, NULL, &valid);
	FREE_NULL_LIST(l);
	xfree(spec);
	if (exists != NULL)
		*exists = valid;
	return valid;
}

/*
 * pool_refuse - NULL when pool's license of type holds per_node x nodes
 * devices, else the falcon message (xmalloc'd): the pool's total is found
 * by bisection over lic_fits() (no reader of one total exists in 22.05).
 */
static char *pool_refuse(const char *pool, falcon_dev_type_t type, int per_node, uint32_t nodes)
{
	char name[FALCON_NAME_LEN + 8];
	const char *what = type == FALCON_DEV_GPU ? "GPUs" : "NVMe";
	const char *gres = type == FALCON_DEV_GPU ? "falcon_gpu" : "falcon_nvme";
	long want = (long)per_node * nodes, lo = 0, hi = want - 1, mid;
	bool exists = true;

	if (per_node <= 0 || falcon_license_name(pool, type, name, sizeof(name)) != FALCON_OK)
		return NULL;
	if (lic_fits(name, want, NULL))
		return NULL;
	lic_fits(name, 0, &exists);
	if (!exists)
		return xstrdup_printf("falcon: chassis %s has no license %s in slurm.conf: the "
				      "administrator must add Licenses=%s:<number of %s> "
				      "(job_submit_falcon(8)); asked %s:%d", pool, name, name,
				      what, gres, per_node);
	while (lo < hi) { /* the largest count that fits: the configured total */
		mid = lo + (hi - lo + 1) / 2;
		if (lic_fits(name, mid, NULL))
			lo = mid;
		else
			hi = mid - 1;
	}
	return xstrdup_printf("falcon: chassis %s has %ld %s; asked %d per node x %u node%s "
			      "(%s:%d)", pool, lo, what, per_node, nodes, nodes == 1 ? "" : "s",
			      gres, per_node);
}

/*
 * judge - the policy of every partition the job names (a comma list: each
 * must accept it, since Slurm may start it in any), then the pool
 * license.  partitions NULL = the default partition.  On refusal returns an
 * ESLURM code with the message in *why (xmalloc'd).  *licenses (xmalloc'd,
 * NULL = unchanged) gets the job's new license string.
 */
static int judge(const char *partitions, const char *tres, char **env, uint32_t nenv,
		 const char *old_licenses, const char *req_nodes, uint32_t min_nodes,
		 uint32_t max_nodes, uint32_t uid, char **why, char **licenses)
{
	struct falcon_job_req req = { 0, 0, 0 };
	char *list = NULL, *save = NULL, *part, *merged = NULL;
	const char *pool, *first = NULL;
	bool changed = false;
	falcon_err_t ferr;
	uint32_t nodes;
	int rv = SLURM_SUCCESS;

	*why = NULL;
	*licenses = NULL;
	pthread_mutex_lock(&g.lock);
	conf_refresh();
	if (g.conf == NULL) {
		/* no usable falcon.conf: only jobs asking for falcon devices are refused */
		if (falcon_tres_parse(tres, &req) == FALCON_OK &&
		    req.falcon_gpus + req.falcon_nvme == 0)
			goto out;
		if (g.broken[0] != '\0' && g.st.st_ino != 0) {
			*why = xstrdup_printf("falcon: falcon.conf is broken (%s): jobs asking for "
					      "falcon_gpu/falcon_nvme are refused until the "
					      "administrator fixes it", g.broken);
			rv = ESLURM_INVALID_GRES;
		}
		goto out;
	}
	list = xstrdup(partitions != NULL && partitions[0] != '\0' ? partitions
								  : default_part_name);
	for (part = list ? strtok_r(list, ",", &save) : NULL; part != NULL;
	     part = strtok_r(NULL, ",", &save)) {
		if (first == NULL)
			first = part;
		ferr = falcon_policy_job(g.conf, part_known, part, tres, env, nenv, &req);
		if (ferr != FALCON_OK) {
			*why = xstrdup_printf("falcon: %s", falcon_errmsg());
			rv = ESLURM_INVALID_GRES;
			falcon_info("uid %u partition %s tres_per_node '%s': refused: %s", uid,
				    part, tres ? tres : "", falcon_errmsg());
			goto out;
		}
	}
	if (list == NULL) /* no partition at all: DEFAULT's policy */
		if (falcon_policy_job(g.conf, part_known, NULL, tres, env, nenv, &req) != FALCON_OK) {
			*why = xstrdup_printf("falcon: %s", falcon_errmsg());
			rv = ESLURM_INVALID_GRES;
			goto out;
		}
	if (req.falcon_gpus + req.falcon_nvme == 0)
		goto out;
	pool = pool_of(g.conf, req_nodes, first);
	if (pool == NULL)
		goto out;
	/* a node range is counted at its most: the pool must never promise
	 * more devices than it holds */
	nodes = max_nodes != NO_VAL && max_nodes != 0 && max_nodes != INFINITE ? max_nodes
		: min_nodes != NO_VAL && min_nodes != 0 ? min_nodes : 1;
	if (nodes > 1024)
		nodes = 1024;
	*why = pool_refuse(pool, FALCON_DEV_GPU, req.falcon_gpus, nodes);
	if (*why == NULL)
		*why = pool_refuse(pool, FALCON_DEV_NVME, req.falcon_nvme, nodes);
	if (*why != NULL) {
		rv = ESLURM_INVALID_LICENSES;
		falcon_info("uid %u tres_per_node '%s': refused: %s", uid, tres ? tres : "", *why);
		goto out;
	}
	if (falcon_pool_licenses(old_licenses, pool, req.falcon_gpus * (int)nodes,
				 req.falcon_nvme * (int)nodes, &merged, &changed) != FALCON_OK) {
		falcon_error("license of pool %s: %s", pool, falcon_errmsg());
		goto out;
	}
	if (changed) {
		*licenses = xstrdup(merged ? merged : "");
		falcon_info("uid %u partition %s tres_per_node '%s': licenses '%s' -> '%s'", uid,
			    first ? first : "(default)", tres ? tres : "",
			    old_licenses ? old_licenses : "", merged ? merged : "");
	}
out:
	pthread_mutex_unlock(&g.lock);
	free(merged);
	xfree(list);
	return rv;
}

extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
	char *why = NULL, *lic = NULL;
	int rv;

	rv = judge(job_desc->partition, job_desc->tres_per_node, job_desc->spank_job_env,
		   job_desc->spank_job_env_size, job_desc->licenses, job_desc->req_nodes,
		   job_desc->min_nodes, job_desc->max_nodes, submit_uid, &why, &lic);
	if (rv != SLURM_SUCCESS) {
		if (err_msg != NULL && why != NULL) {
			xfree(*err_msg);
			*err_msg = why;
			why = NULL;
		}
		goto out;
	}
	if (lic != NULL) {
		xfree(job_desc->licenses);
		job_desc->licenses = lic[0] ? lic : NULL;
		if (job_desc->licenses != NULL)
			lic = NULL;
	}
out:
	xfree(why);
	xfree(lic);
	return rv;
}

/*
 * job_modify - the fields not changed are the job's own.  From Slurm 23.02
 * on the refusal's message is *err_msg (xmalloc'd, slurmctld frees it),
 * which scontrol update shows the user; 22.05 gives job_modify no err_msg:
 * the message goes to slurmctld's log only and the user gets "Invalid
 * generic resource (gres) specification".
 */
#ifdef FALCON_MODIFY_ERR_MSG
extern int job_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr, uint32_t submit_uid,
		      char **err_msg)
#else
extern int job_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr, uint32_t submit_uid)
#endif
{
	char *why = NULL, *lic = NULL;
	const char *tres = job_desc->tres_per_node ? job_desc->tres_per_node
						   : job_ptr->tres_per_node;
	const char *part = job_desc->partition ? job_desc->partition : job_ptr->partition;
	const char *old = job_desc->licenses ? job_desc->licenses : job_ptr->licenses;
	uint32_t minn = job_desc->min_nodes != NO_VAL ? job_desc->min_nodes
		: job_ptr->details ? job_ptr->details->min_nodes : NO_VAL;
	uint32_t maxn = job_desc->max_nodes != NO_VAL ? job_desc->max_nodes
		: job_ptr->details ? job_ptr->details->max_nodes : NO_VAL;
	char **env = job_desc->spank_job_env ? job_desc->spank_job_env : job_ptr->spank_job_env;
	uint32_t nenv = job_desc->spank_job_env ? job_desc->spank_job_env_size
						: job_ptr->spank_job_env_size;
	int rv;

	/* nothing falcon judges changed: leave the job alone */
	if (job_desc->tres_per_node == NULL && job_desc->partition == NULL &&
	    job_desc->licenses == NULL && job_desc->min_nodes == NO_VAL &&
	    job_desc->max_nodes == NO_VAL && job_desc->spank_job_env == NULL)
		return SLURM_SUCCESS;
	rv = judge(part, tres, env, nenv, old, job_desc->req_nodes, minn, maxn, submit_uid,
		   &why, &lic);
	if (rv != SLURM_SUCCESS) {
		falcon_info("job %u: modify refused: %s", job_ptr->job_id, why ? why : "");
#ifdef FALCON_MODIFY_ERR_MSG
		if (err_msg != NULL && why != NULL) {
			xfree(*err_msg);
			*err_msg = why;
			why = NULL;
		}
#endif
		goto out;
	}
	if (lic != NULL && IS_JOB_PENDING(job_ptr)) {
		xfree(job_desc->licenses);
		job_desc->licenses = lic;
		lic = NULL;
	}
out:
	xfree(why);
	xfree(lic);
	return rv;
}
