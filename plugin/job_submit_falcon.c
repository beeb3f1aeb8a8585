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
/* gres_get_node_used(): src/common/gres.h up to 23.02, src/interfaces/ from 23.11 */
#if __has_include("src/interfaces/gres.h")
#include "src/interfaces/gres.h"
#else
#include "src/common/gres.h"
#endif
#pragma GCC diagnostic pop

#include <json-c/json.h>

#include "core/conf.h"
#include "core/falcon_err.h"
#include "core/jobtag.h"
#include "core/log.h"
#include "core/fleet.h"
#include "core/policy.h"
#include "advise/advise.h"

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

/* The history `falconctl advise --save` wrote (falcon.conf's AdviceFile),
 * for --falcon-topology=auto; under g.lock. */
static struct {
	char path[4096];
	struct stat st;
	bool seen;                 /* st is valid (st_ino 0: no file) */
	struct falcon_rrel *rows;  /* malloc'd */
	size_t n;
} adv;

int fini(void)
{
	free(adv.rows);
	adv.rows = NULL;
	adv.n = 0;
	adv.seen = false;
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

/* The hosts a job may run on, as falcon.conf maps them to chassis. */
struct cand_hosts {
	size_t n;                   /* hosts looked at */
	char *names[MAX_HOSTS];     /* malloc'd by hostlist_shift() */
	bool fixed;                 /* from the job's -w list */
	size_t nchassis;            /* distinct chassis among the known hosts */
	struct falcon_fleet_cand cand[FALCON_FLEET_MAX];
};

static void cand_free(struct cand_hosts *ch)
{
	size_t i;

	for (i = 0; i < ch->n; i++)
		free(ch->names[i]);
	ch->n = 0;
}

/*
 * cand_collect - the job's candidate hosts (its -w list, else its
 * partition's nodes) and, per chassis of falcon.conf, how many of them are
 * cabled to it (ch->cand, conf order).
 */
static void cand_collect(const struct falcon_conf *fconf, const char *req_nodes,
			 const char *part, struct cand_hosts *ch)
{
	part_record_t *p = NULL;
	falcon_hostlist_t hl = NULL;
	const struct falcon_host_conf *h;
	size_t i, c;
	char *name;

	memset(ch, 0, sizeof(*ch));
	if (req_nodes != NULL && req_nodes[0] != '\0') {
		hl = hostlist_create(req_nodes);
		ch->fixed = true;
	} else if (part != NULL && (p = find_part_record((char *)part)) != NULL &&
		   p->nodes != NULL) {
		hl = hostlist_create(p->nodes);
	}
	while (hl != NULL && ch->n < MAX_HOSTS && (name = hostlist_shift(hl)) != NULL)
		ch->names[ch->n++] = name;
	if (hl != NULL)
		hostlist_destroy(hl);
	for (c = 0; c < fconf->nchassis && ch->nchassis < FALCON_FLEET_MAX; c++) {
		uint32_t k = 0;

		for (i = 0; i < ch->n; i++)
			if ((h = falcon_conf_host(fconf, ch->names[i])) != NULL &&
			    strcmp(h->chassis, fconf->chassis[c].name) == 0)
				k++;
		if (k == 0)
			continue;
		ch->cand[ch->nchassis].chassis = c;
		ch->cand[ch->nchassis].nhosts = k;
		ch->nchassis++;
	}
}

/* pool_of - the chassis pool of a job whose candidate hosts are on at most
 * one chassis (NULL = none known). */
static const char *pool_of(const struct falcon_conf *fconf, const struct cand_hosts *ch)
{
	const char *pool = NULL;

	if (falcon_policy_pool(fconf, (const char *const *)ch->names,
			       fconf->nchassis == 1 ? 0 : ch->n, &pool) != FALCON_OK) {
		falcon_info("no chassis pool license added: %s", falcon_errmsg());
		pool = NULL;
	}
	return pool;
}

/* lic_validate - license_validate() of every release: 25.05 added its hres
 * and fuzzy_match arguments (FALCON_LICENSE_VALIDATE_HRES from configure). */
#ifdef FALCON_LICENSE_VALIDATE_HRES
#define lic_validate(spec, cfg, exist, valid) \
	license_validate((spec), (cfg), (exist), false, NULL, (valid), NULL)
#else
#define lic_validate(spec, cfg, exist, valid) license_validate((spec), (cfg), (exist), NULL, (valid))
#endif

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
	__typeof__(lic_validate(NULL, false, false, NULL)) l;

	l = lic_validate(spec, count > 0, true, &valid);
	FREE_NULL_LIST(l);
	xfree(spec);
	if (exists != NULL)
		*exists = valid;
	return valid;
}

/* lic_total - the configured total of license name (slurm.conf Licenses=),
 * at most hi: the largest count lic_fits() grants, by bisection (no reader
 * of one total exists in 22.05).  0 when there is no such license. */
static long lic_total(const char *name, long hi)
{
	long lo = 0, mid;

	while (lo < hi) {
		mid = lo + (hi - lo + 1) / 2;
		if (lic_fits(name, mid, NULL))
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
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
	long want = (long)per_node * nodes;
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
	return xstrdup_printf("falcon: chassis %s has %ld %s; asked %d per node x %u node%s "
			      "(%s:%d)", pool, lic_total(name, want - 1), what, per_node, nodes,
			      nodes == 1 ? "" : "s", gres, per_node);
}

/* What fleet_fits() needs: the configuration and the job judged (not
 * counted among the pending claims; 0 = a new job). */
struct fleet_arg {
	const struct falcon_conf *conf;
	uint32_t job_id;
};

/* A pending claim on one license: its name, the job not counted, the sum. */
struct claim {
	const char *name;
	uint32_t exclude;
	long sum;
};

/* claim_add - list_for_each() over slurmctld's job_list: a pending job's
 * count of license c->name (job_record_t licenses, "a:2,b:1"). */
static int claim_add(void *x, void *arg)
{
	job_record_t *j = x;
	struct claim *c = arg;
	long n;

	if (!IS_JOB_PENDING(j) || j->job_id == c->exclude)
		return 0;
	if ((n = falcon_license_count(j->licenses, c->name)) > 0)
		c->sum += n;
	return 0;
}

/*
 * pending_claims - what pending jobs already ask of license name (those
 * this plugin pinned to its chassis and that wait to start): counted as
 * taken, so that jobs submitted in a burst, before the first starts, are
 * spread over the chassis instead of all pinned to the first.  slurmctld
 * calls job_submit and job_modify with at least the job read lock, which
 * job_list needs.
 */
static long pending_claims(const char *name, uint32_t exclude)
{
	struct claim c = { name, exclude, 0 };

	if (job_list != NULL)
		list_for_each(job_list, claim_add, &c);
	return c.sum;
}

/*
 * spec_fits_now - would slurmctld grant the licenses spec ("a:2,b:1"; not
 * const: 22.05's license_validate() takes a char *) now:
 * license_job_test() of a stub job holding only them (it takes the license
 * mutex itself; the stub has no reservation and no time limit).  false for
 * a spec naming an unknown license or more than a configured total.
 */
static bool spec_fits_now(char *spec)
{
	__typeof__(lic_validate(NULL, false, false, NULL)) l;
	job_record_t stub;
	bool valid = true, ok = false;

	l = lic_validate(spec, true, true, &valid);
	if (valid && l != NULL) {
		memset(&stub, 0, sizeof(stub));
		stub.license_list = l;
		stub.time_limit = INFINITE;
		ok = license_job_test(&stub, time(NULL), false) == SLURM_SUCCESS;
	}
	FREE_NULL_LIST(l);
	return ok;
}

/* lic_free - how many of license name a job could take now, at most hi:
 * the largest count spec_fits_now() grants, by bisection (no reader of one
 * license's use exists in all of 22.05 to 24.11). */
static long lic_free(const char *name, long hi)
{
	long lo = 0, mid;
	char *spec;
	bool fits;

	while (lo < hi) {
		mid = lo + (hi - lo + 1) / 2;
		spec = xstrdup_printf("%s:%ld", name, mid);
		fits = spec_fits_now(spec);
		xfree(spec);
		if (fits)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/*
 * fleet_fits - falcon_fleet_fits_fn over slurmctld's licenses: ever, the
 * configured totals (lic_fits()); else what is free now, reservations
 * (falcond's quarantine) and pending jobs' claims (pending_claims())
 * counted as used (spec_fits_now()).
 */
static bool fleet_fits(size_t c, long gpus, long nvme, bool ever, void *arg)
{
	const struct fleet_arg *fa = arg;
	const struct falcon_conf *fconf = fa->conf;
	char gname[FALCON_NAME_LEN + 8], nname[FALCON_NAME_LEN + 8], *spec = NULL;
	bool ok;

	if (falcon_license_name(fconf->chassis[c].name, FALCON_DEV_GPU, gname,
				sizeof(gname)) != FALCON_OK ||
	    falcon_license_name(fconf->chassis[c].name, FALCON_DEV_NVME, nname,
				sizeof(nname)) != FALCON_OK)
		return false;
	if (ever)
		return (gpus <= 0 || lic_fits(gname, gpus, NULL)) &&
		       (nvme <= 0 || lic_fits(nname, nvme, NULL));
	if (gpus > 0)
		xstrfmtcat(spec, "%s:%ld", gname, gpus + pending_claims(gname, fa->job_id));
	if (nvme > 0)
		xstrfmtcat(spec, "%s%s:%ld", spec ? "," : "", nname,
			   nvme + pending_claims(nname, fa->job_id));
	if (spec == NULL)
		return true;
	ok = spec_fits_now(spec);
	xfree(spec);
	return ok;
}

/*
 * fleet_backlog - falcon_fleet_backlog_fn over slurmctld's licenses: the
 * GPUs pending jobs claim of chassis c's pool (pending_claims()) minus the
 * GPUs free in it now (lic_free()).  In GPUs; 0 when the pool has no name.
 */
static long fleet_backlog(size_t c, void *arg)
{
	const struct fleet_arg *fa = arg;
	char gname[FALCON_NAME_LEN + 8];
	long hi = 1;

	if (falcon_license_name(fa->conf->chassis[c].name, FALCON_DEV_GPU, gname,
				sizeof(gname)) != FALCON_OK)
		return 0;
	while (hi < (1L << 20) && lic_fits(gname, hi, NULL)) /* the configured total, bounded */
		hi *= 2;
	return pending_claims(gname, fa->job_id) - lic_free(gname, hi);
}

/* fixed_pick - the pick of a job whose -w list names hosts on several
 * chassis: its nodes per chassis as listed; false when it asks for more
 * nodes than it names of falcon.conf's hosts. */
static bool fixed_pick(const struct falcon_conf *fconf, const struct cand_hosts *ch,
		       uint32_t nodes, struct falcon_fleet_pick *pick)
{
	uint32_t sum = 0;
	size_t i;

	memset(pick, 0, sizeof(*pick));
	for (i = 0; i < ch->nchassis; i++) {
		pick->chassis[i] = ch->cand[i].chassis;
		pick->nodes[i] = ch->cand[i].nhosts;
		sum += ch->cand[i].nhosts;
	}
	pick->n = ch->nchassis;
	(void)fconf;
	return sum == nodes;
}

/*
 * fleet_judge - the licenses and chassis pin of a job (job_id, 0 = a new
 * one) with falcon devices
 * whose candidate hosts span several chassis (job_submit_falcon(8),
 * SEVERAL CHASSIS).  A pin already in its constraint (features: one
 * falcon_<C>, or a split as falcon_fleet_constraint() writes it; the
 * user's -C or an earlier decision) is kept; otherwise falcon_fleet_place()
 * picks over what is free now.  On success *licenses and *features
 * (xmalloc'd; NULL = unchanged) are the job's new values; on refusal an
 * ESLURM code and *why (xmalloc'd).  Called with g.lock held.
 */
static int fleet_judge(const struct falcon_conf *fconf, const struct cand_hosts *ch,
		       const struct falcon_job_req *req, uint32_t nodes, const char *features,
		       const char *old_licenses, uint32_t job_id, uint32_t uid, char **why,
		       char **licenses, char **features_out)
{
	struct fleet_arg fa = { fconf, job_id };
	struct falcon_fleet_pick pick;
	char *rest = NULL, *cons = NULL, *merged = NULL;
	bool changed = false, known;
	size_t i, j;
	int rv = SLURM_SUCCESS;

	if (ch->fixed) {
		if (!fixed_pick(fconf, ch, nodes, &pick)) {
			*why = xstrdup_printf("falcon: the job's -w list spans several chassis and "
					      "names fewer falcon.conf hosts than its %u nodes: name "
					      "them all, or none", nodes);
			rv = ESLURM_INVALID_LICENSES;
			goto out;
		}
	} else {
		if (falcon_fleet_pin_parse(fconf, features, &pick, &rest) != FALCON_OK)
			goto out;
		for (i = 0; i < pick.n; i++) { /* a pin must name a chassis of the job's nodes */
			for (known = false, j = 0; j < ch->nchassis; j++)
				known = known || ch->cand[j].chassis == pick.chassis[i];
			if (!known) {
				*why = xstrdup_printf("falcon: constraint %s%s: no node of the job's "
						      "partition is cabled to chassis %s",
						      FALCON_FLEET_FEATURE_PREFIX,
						      fconf->chassis[pick.chassis[i]].name,
						      fconf->chassis[pick.chassis[i]].name);
				rv = ESLURM_INVALID_FEATURE;
				goto out;
			}
		}
		if (pick.n == 1 && pick.nodes[0] == 0)
			pick.nodes[0] = nodes;
		if (pick.n == 0 &&
		    falcon_fleet_place(ch->cand, ch->nchassis, nodes, req->falcon_gpus,
				       req->falcon_nvme, fleet_fits, fleet_backlog, &fa,
				       &pick) != FALCON_OK) {
			*why = xstrdup_printf("falcon: %s", falcon_errmsg());
			rv = ESLURM_INVALID_LICENSES;
			goto out;
		}
		if (falcon_fleet_constraint(fconf, rest, &pick, &cons) != FALCON_OK) {
			*why = xstrdup_printf("falcon: %s", falcon_errmsg());
			rv = ESLURM_INVALID_FEATURE;
			goto out;
		}
	}
	for (i = 0; i < pick.n && *why == NULL; i++) {
		*why = pool_refuse(fconf->chassis[pick.chassis[i]].name, FALCON_DEV_GPU,
				   req->falcon_gpus, pick.nodes[i]);
		if (*why == NULL)
			*why = pool_refuse(fconf->chassis[pick.chassis[i]].name, FALCON_DEV_NVME,
					   req->falcon_nvme, pick.nodes[i]);
	}
	if (*why != NULL) {
		rv = ESLURM_INVALID_LICENSES;
		goto out;
	}
	if (falcon_fleet_licenses(fconf, old_licenses, &pick, req->falcon_gpus, req->falcon_nvme,
				  &merged, &changed) != FALCON_OK) {
		falcon_error("licenses of a fleet job: %s", falcon_errmsg());
		goto out;
	}
	if (changed)
		*licenses = xstrdup(merged ? merged : "");
	if (cons != NULL && (features == NULL || strcmp(cons, features) != 0))
		*features_out = xstrdup(cons);
	falcon_info("uid %u: %u node%s on %zu chassis (%s): licenses '%s' -> '%s', constraint "
		    "'%s' -> '%s'", uid, nodes, nodes == 1 ? "" : "s", pick.n,
		    ch->fixed ? "its -w list" : pick.now ? "free now" : "pends for licenses",
		    old_licenses ? old_licenses : "", merged ? merged : "",
		    features ? features : "", cons ? cons : (features ? features : ""));
out:
	if (rv != SLURM_SUCCESS)
		falcon_info("uid %u: refused: %s", uid, *why ? *why : "");
	free(rest);
	free(cons);
	free(merged);
	return rv;
}

/*
 * hres_judge - the licenses of a job where slurmctld has the HRES resource
 * FALCON_HRES_GPU (Slurm 25.11+ resources.yaml(5), MODE_3, as falconctl
 * slurm-conf writes it): FALCON_HRES_GPU and FALCON_HRES_NVME set to the
 * job's per-node counts (MODE_3 takes a job's count on each of its nodes
 * from the layer of that node's chassis: licenses.c _foreach_hres_job_get),
 * every per-chassis license removed; no chassis pin, Slurm places the job.
 * *licenses (xmalloc'd, NULL = unchanged).  Called with g.lock held.
 */
static void hres_judge(const struct falcon_conf *fconf, const struct falcon_job_req *req,
		       const char *old_licenses, uint32_t uid, char **licenses)
{
	struct falcon_fleet_pick none = { 0 };
	char *a = NULL, *b = NULL, *c = NULL;
	bool ch1 = false, ch2 = false, ch3 = false;

	if (falcon_fleet_licenses(fconf, old_licenses, &none, 0, 0, &a, &ch1) != FALCON_OK ||
	    falcon_license_merge(a, FALCON_HRES_GPU, req->falcon_gpus, &b, &ch2) != FALCON_OK ||
	    falcon_license_merge(b, FALCON_HRES_NVME, req->falcon_nvme, &c, &ch3) != FALCON_OK) {
		falcon_error("HRES licenses: %s", falcon_errmsg());
		goto out;
	}
	if (ch1 || ch2 || ch3) {
		*licenses = xstrdup(c ? c : "");
		falcon_info("uid %u: HRES %s: licenses '%s' -> '%s'", uid, FALCON_HRES_GPU,
			    old_licenses ? old_licenses : "", c ? c : "");
	}
out:
	free(a);
	free(b);
	free(c);
}

/*
 * judge - the policy of every partition the job names (a comma list: each
 * must accept it, since Slurm may start it in any), then the pool
 * license.  partitions NULL = the default partition.  On refusal returns an
 * ESLURM code with the message in *why (xmalloc'd).  *licenses (xmalloc'd,
 * NULL = unchanged) gets the job's new license string, *features_out
 * (xmalloc'd, NULL = unchanged) its new constraint; job_id: the job
 * modified (0 at submit), whose own pending licenses are not counted.
 */
static int judge(const char *partitions, const char *tres, char **env, uint32_t nenv,
		 const char *old_licenses, const char *req_nodes, const char *features,
		 uint32_t min_nodes, uint32_t max_nodes, uint32_t job_id, uint32_t uid,
		 char **why, char **licenses, char **features_out)
{
	struct cand_hosts *ch = NULL;
	bool hres = false;
	struct falcon_job_req req = { 0, 0, 0 };
	char *list = NULL, *save = NULL, *part, *merged = NULL;
	const char *pool, *first = NULL;
	bool changed = false;
	falcon_err_t ferr;
	uint32_t nodes;
	int rv = SLURM_SUCCESS;

	*why = NULL;
	*licenses = NULL;
	*features_out = NULL;
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
	/* a node range is counted at its most: the pool must never promise
	 * more devices than it holds */
	nodes = max_nodes != NO_VAL && max_nodes != 0 && max_nodes != INFINITE ? max_nodes
		: min_nodes != NO_VAL && min_nodes != 0 ? min_nodes : 1;
	if (nodes > 1024)
		nodes = 1024;
	lic_fits(FALCON_HRES_GPU, 0, &hres);
	if (hres) {
		hres_judge(g.conf, &req, old_licenses, uid, licenses);
		goto out;
	}
	ch = xmalloc(sizeof(*ch));
	cand_collect(g.conf, req_nodes, first, ch);
	if (g.conf->nchassis > 1 && ch->nchassis > 1) {
		rv = fleet_judge(g.conf, ch, &req, nodes, features, old_licenses, job_id, uid,
				 why, licenses, features_out);
		goto out;
	}
	pool = pool_of(g.conf, ch);
	if (pool == NULL)
		goto out;
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
	if (ch != NULL) {
		cand_free(ch);
		xfree(ch);
	}
	free(merged);
	xfree(list);
	return rv;
}

/*
 * A heterogeneous job's licenses: Slurm 24.11 (src/slurmctld/proc_req.c,
 * _slurm_rpc_submit_batch_het_job and _slurm_rpc_allocate_het_job) refuses
 * a component other than the leader that carries licenses ("license
 * request allowed only on leader job"; 22.05 has no such check), and
 * calls job_submit for every component in turn, offset 0 first, in the
 * thread of that one RPC, before any is created.  So the leader's request
 * is remembered (per thread) and each later component's pool licenses are
 * added to it; the component keeps its chassis pin (constraint), so each
 * node's devices still come from its own chassis.
 */
static __thread job_desc_msg_t *het_leader;

/* het_move - of component offset (> 0) of the hetjob whose leader is
 * het_leader, the chassis pool licenses in *lic (judge()'s, xmalloc'd) are
 * added to the leader's and taken off *lic.  false (nothing changed) when
 * a license string cannot be merged (out of memory). */
static bool het_move(uint32_t offset, char **lic)
{
	char name[FALCON_NAME_LEN + 8];
	char *lead = het_leader->licenses ? xstrdup(het_leader->licenses) : NULL;
	char *mine = *lic ? xstrdup(*lic) : NULL;
	bool ok = true;
	size_t i;
	int t;

	pthread_mutex_lock(&g.lock);
	for (i = 0; ok && g.conf != NULL && i < g.conf->nchassis; i++)
		for (t = 0; ok && t < 2; t++) {
			char *out = NULL;
			long n, have;

			if (falcon_license_name(g.conf->chassis[i].name,
						t ? FALCON_DEV_NVME : FALCON_DEV_GPU, name,
						sizeof(name)) != FALCON_OK ||
			    (n = falcon_license_count(mine, name)) <= 0)
				continue;
			have = falcon_license_count(lead, name);
			ok = falcon_license_merge(lead, name, (int)(n + (have > 0 ? have : 0)), &out,
						  NULL) == FALCON_OK;
			xfree(lead);
			lead = out ? xstrdup(out) : NULL;
			free(out);
			out = NULL;
			ok = ok && falcon_license_merge(mine, name, 0, &out, NULL) == FALCON_OK;
			xfree(mine);
			mine = out ? xstrdup(out) : NULL;
			free(out);
		}
	pthread_mutex_unlock(&g.lock);
	if (!ok) {
		xfree(lead);
		xfree(mine);
		return false;
	}
	falcon_info("hetjob component %u: licenses '%s' go to its leader (Slurm 24.11: only "
		    "it may hold licenses): '%s' -> '%s'", offset, *lic ? *lic : "",
		    het_leader->licenses ? het_leader->licenses : "", lead ? lead : "");
	xfree(het_leader->licenses);
	het_leader->licenses = lead;
	xfree(*lic);
	*lic = mine ? mine : xstrdup("");
	return true;
}

/*
 * advice_refresh - (re)read the AdviceFile of c when it changed (as
 * conf_refresh() watches falcon.conf).  A file that does not parse keeps
 * the rows read before; none at all leaves no rows (auto then decides by
 * what is free now).  Logged once per change.  g.lock held.
 */
static void advice_refresh(const struct falcon_conf *c)
{
	struct falcon_rrel *rows = NULL;
	json_object *o;
	struct stat st;
	size_t n = 0;

	if (strcmp(c->advice_file, adv.path) != 0) {
		snprintf(adv.path, sizeof(adv.path), "%s", c->advice_file);
		adv.seen = false;
	}
	if (stat(adv.path, &st) != 0) {
		if (!adv.seen || adv.st.st_ino != 0)
			falcon_info("AdviceFile %s: %s: --falcon-topology=auto decides by what is "
				    "free now (`falconctl advise --save` writes it)", adv.path,
				    strerror(errno));
		memset(&adv.st, 0, sizeof(adv.st));
		adv.seen = true;
		free(adv.rows);
		adv.rows = NULL;
		adv.n = 0;
		return;
	}
	if (adv.seen && same_file(&st, &adv.st))
		return;
	adv.st = st;
	adv.seen = true;
	o = json_object_from_file(adv.path);
	if (o == NULL || falcon_advice_rows(o, &rows, &n) != FALCON_OK) {
		falcon_error("AdviceFile %s: %s; %s", adv.path,
			     o == NULL ? json_util_get_last_err() : falcon_errmsg(),
			     adv.rows ? "keeping the history read before" : "no history in use");
		json_object_put(o);
		return;
	}
	json_object_put(o);
	free(adv.rows);
	adv.rows = rows;
	adv.n = n;
	falcon_info("AdviceFile %s: %zu workload/topology rows", adv.path, n);
}

/*
 * avail_now - what is free now for a job of partition part, as `falconctl
 * advise` reads it from slurm_load_node and falcond: each node of the
 * partition, its GRES gpu and falcon_gpu configured and not allocated
 * (nothing free on a node down, drained, failing or not responding), and
 * each chassis cabled to one of them, its GPU license's total and what a
 * job could take now (reservations such as falcond's quarantine counted).
 * Slurm's node read lock is held (job_submit's caller).  The arrays are
 * xmalloc'd (xfree).
 */
static void avail_now(const struct falcon_conf *fc, const char *part, struct falcon_avail *av,
		      struct falcon_anode **nodes, struct falcon_achassis **chs)
{
	part_record_t *p = find_part_record((char *)part);
	bool *seen = xcalloc(fc->nchassis ? fc->nchassis : 1, sizeof(bool));
	node_record_t *np;
	size_t nn = 0, nc = 0, k;
	int i;

	*nodes = xcalloc(node_record_count ? node_record_count : 1, sizeof(**nodes));
	*chs = xcalloc(fc->nchassis ? fc->nchassis : 1, sizeof(**chs));
	for (i = 0; p != NULL && p->node_bitmap != NULL && (np = next_node(&i)); i++) {
		struct falcon_anode *d = &(*nodes)[nn];
		const struct falcon_host_conf *h;
		char *used;
		bool up;

		if (!bit_test(p->node_bitmap, np->index))
			continue;
		up = !IS_NODE_DOWN(np) && !IS_NODE_DRAIN(np) && !IS_NODE_FAIL(np) &&
		     !IS_NODE_NO_RESPOND(np);
		used = gres_get_node_used(np->gres_list);
		snprintf(d->name, sizeof(d->name), "%s", np->name);
		d->gpus = (uint32_t)falcon_gres_count(np->gres, "gpu");
		d->falcon_gpus = (uint32_t)falcon_gres_count(np->gres, "falcon_gpu");
		d->gpus_free = up ? d->gpus - (uint32_t)MIN(falcon_gres_count(used, "gpu"),
							   d->gpus) : 0;
		d->falcon_gpus_free = up ? d->falcon_gpus -
			(uint32_t)MIN(falcon_gres_count(used, "falcon_gpu"), d->falcon_gpus) : 0;
		xfree(used);
		nn++;
		if ((h = falcon_conf_host(fc, np->name)) == NULL)
			continue;
		for (k = 0; k < fc->nchassis; k++)
			if (!seen[k] && strcmp(fc->chassis[k].name, h->chassis) == 0) {
				struct falcon_achassis *c = &(*chs)[nc++];
				char lic[FALCON_NAME_LEN + 8];

				seen[k] = true;
				snprintf(c->name, sizeof(c->name), "%s", h->chassis);
				if (falcon_license_name(h->chassis, FALCON_DEV_GPU, lic,
							sizeof(lic)) == FALCON_OK) {
					c->gpus = (uint32_t)lic_total(lic, 4096);
					c->gpus_free = (uint32_t)lic_free(lic, c->gpus);
				}
			}
	}
	xfree(seen);
	av->nodes = *nodes;
	av->nnodes = nn;
	av->chassis = *chs;
	av->nchassis = nc;
	av->chassis_known = true;
}

/* tres_auto - old (a tres_per_node) with its gpu and falcon_gpu entries
 * replaced by local gpu and falcon falcon_gpu ones, in old's spelling
 * ("gres:" up to 22.05, "gres/" after); xmalloc'd. */
static char *tres_auto(const char *old, unsigned local, unsigned falcon)
{
	const char *pre = old != NULL && strstr(old, "gres/") != NULL ? "gres/" : "gres:";
	char *out = NULL, *copy = xstrdup(old ? old : ""), *save = NULL, *e;

	for (e = strtok_r(copy, ",", &save); e != NULL; e = strtok_r(NULL, ",", &save)) {
		const char *name = e + (strncmp(e, "gres", 4) == 0 && (e[4] == ':' || e[4] == '/')
					? 5 : 0);
		size_t len = strcspn(name, ":=");

		if (name != e && ((len == 3 && strncmp(name, "gpu", 3) == 0) ||
				  (len == 10 && strncmp(name, "falcon_gpu", 10) == 0)))
			continue;
		xstrfmtcat(out, "%s%s", out ? "," : "", e);
	}
	if (local > 0)
		xstrfmtcat(out, "%s%sgpu:%u", out ? "," : "", pre, local);
	if (falcon > 0)
		xstrfmtcat(out, "%s%sfalcon_gpu:%u", out ? "," : "", pre, falcon);
	xfree(copy);
	return out;
}

/*
 * auto_topology - --falcon-topology=auto (SPANK_FALCON_TOPOLOGY=auto in the
 * job's spank_job_env): the job's N GPUs (gres gpu + falcon_gpu) rewritten
 * as the topology falcon_advise_auto() chooses among those the partition's
 * policy allows, from the AdviceFile's history of the job's workload (its
 * --comment, else its name) and what is free now; the choice and its
 * reason told to the user (*msg, xmalloc'd) and put in the AdminComment
 * (falcon:auto=TOPOLOGY until the prolog's tag, which keeps auto=1).  A job
 * without auto is left alone (SLURM_SUCCESS, *msg NULL); one asking for no
 * GPU is refused (ESLURM_INVALID_GRES with *msg).  judge() then applies the
 * policy and the pool licenses to what was chosen.
 */
static int auto_topology(job_desc_msg_t *job, uint32_t uid, char **msg)
{
	static const unsigned cand[] = { FALCON_AUTO_LOCAL, FALCON_AUTO_HYBRID, FALCON_AUTO_FALCON };
	struct falcon_job_opts opts;
	struct falcon_job_req req = { 0, 0, 0 };
	struct falcon_avail av = { 0 };
	struct falcon_anode *nodes = NULL;
	struct falcon_achassis *chs = NULL;
	struct falcon_auto out;
	const char *wl = job->comment && job->comment[0] ? job->comment
			 : job->name ? job->name : "";
	char *part = NULL, *save = NULL, *tag = NULL, *t;
	unsigned allowed = 0, n, k;
	int rv = SLURM_SUCCESS;

	*msg = NULL;
	if (falcon_job_opts_parse(job->spank_job_env, job->spank_job_env_size, &opts) != FALCON_OK ||
	    !opts.topology_auto)
		return SLURM_SUCCESS; /* judge() refuses a bad option word */
	if (falcon_tres_parse(job->tres_per_node, &req) != FALCON_OK ||
	    req.gpus + req.falcon_gpus == 0) {
		*msg = xstrdup("falcon: --falcon-topology=auto chooses where a job's GPUs come "
			       "from: ask for them with --gres=gpu:N (or falcon_gpu:N)");
		return ESLURM_INVALID_GRES;
	}
	n = (unsigned)(req.gpus + req.falcon_gpus);
	pthread_mutex_lock(&g.lock);
	conf_refresh();
	if (g.conf == NULL) {
		pthread_mutex_unlock(&g.lock);
		return SLURM_SUCCESS; /* judge() says why */
	}
	part = xstrdup(job->partition && job->partition[0] ? job->partition : default_part_name);
	if (part != NULL)
		strtok_r(part, ",", &save); /* the first partition's nodes and policy */
	for (k = 0; k < sizeof(cand) / sizeof(cand[0]); k++) {
		char *tres;

		if (cand[k] == FALCON_AUTO_HYBRID && n < 2)
			continue;
		/* hybrid: its most local split, the one the fewest limits refuse */
		tres = cand[k] == FALCON_AUTO_LOCAL ? xstrdup_printf("gres/gpu:%u", n)
		       : cand[k] == FALCON_AUTO_HYBRID ? xstrdup_printf("gres/gpu:%u,gres/falcon_gpu:1", n - 1)
		       : xstrdup_printf("gres/falcon_gpu:%u", n);
		if (falcon_policy_job(g.conf, part_known, part, tres, NULL, 0, NULL) == FALCON_OK)
			allowed |= cand[k];
		xfree(tres);
	}
	falcon_err_clear();
	advice_refresh(g.conf);
	avail_now(g.conf, part ? part : "", &av, &nodes, &chs);
	falcon_advise_auto(adv.rows, adv.n, wl, &av, n, allowed, &out);
	t = out.topo[0] != '\0' ? tres_auto(job->tres_per_node, out.local, out.falcon) : NULL;
	if (t != NULL && falcon_policy_job(g.conf, part_known, part, t, NULL, 0, NULL) != FALCON_OK) {
		/* a hybrid split past a limit (MaxFalconGPUs) */
		snprintf(out.reason, sizeof(out.reason), "its choice %s (%s) is refused: %s",
			 out.topo, t, falcon_errmsg());
		out.topo[0] = '\0';
		xfree(t);
	}
	pthread_mutex_unlock(&g.lock);
	if (t == NULL) {
		*msg = xstrdup_printf("falcon: --falcon-topology=auto: %s; the job keeps what it "
				      "asked for", out.reason);
		falcon_info("uid %u: auto: %s", uid, out.reason);
		goto done;
	}
	falcon_info("uid %u partition %s: auto: tres_per_node '%s' -> '%s' (%s): %s", uid,
		    part ? part : "(default)", job->tres_per_node ? job->tres_per_node : "", t,
		    out.topo, out.reason);
	xfree(job->tres_per_node);
	job->tres_per_node = t;
	if (out.local > 0 && out.falcon > 0)
		t = xstrdup_printf("--gres=gpu:%u,falcon_gpu:%u", out.local, out.falcon);
	else
		t = xstrdup_printf("--gres=%s:%u", out.local ? "gpu" : "falcon_gpu",
				   out.local ? out.local : out.falcon);
	*msg = xstrdup_printf("falcon: --falcon-topology=auto: %s (%s) by %s: %s", out.topo, t,
			      out.history ? "the workload's history" : "what is free now",
			      out.reason);
	xfree(t);
	t = xstrdup_printf("%s%s", FALCON_TAG_PREFIX "auto=", out.topo);
	if (falcon_tag_merge(job->admin_comment, t, &tag) == FALCON_OK) {
		xfree(job->admin_comment);
		job->admin_comment = xstrdup(tag);
	}
	free(tag);
	xfree(t);
done:
	xfree(nodes);
	xfree(chs);
	xfree(part);
	return rv;
}

extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
	char *why = NULL, *lic = NULL, *feat = NULL;
	int rv;

	if (job_desc->het_job_offset == 0)
		het_leader = job_desc;
	else if (job_desc->het_job_offset == NO_VAL)
		het_leader = NULL;

	rv = auto_topology(job_desc, submit_uid, &why);
	if (rv != SLURM_SUCCESS || why != NULL) {
		/* the refusal, or on success what auto chose (sbatch shows it) */
		if (err_msg != NULL) {
			xfree(*err_msg);
			*err_msg = why;
			why = NULL;
		}
		xfree(why);
		if (rv != SLURM_SUCCESS)
			return rv;
	}

	rv = judge(job_desc->partition, job_desc->tres_per_node, job_desc->spank_job_env,
		   job_desc->spank_job_env_size, job_desc->licenses, job_desc->req_nodes,
		   job_desc->features, job_desc->min_nodes, job_desc->max_nodes, 0, submit_uid,
		   &why, &lic, &feat);
	if (rv != SLURM_SUCCESS) {
		if (err_msg != NULL && why != NULL) {
			xfree(*err_msg);
			*err_msg = why;
			why = NULL;
		}
		goto out;
	}
	if (lic != NULL && het_leader != NULL && het_leader != job_desc &&
	    job_desc->het_job_offset != NO_VAL && job_desc->het_job_offset > 0 && !het_move(job_desc->het_job_offset, &lic)) {
		rv = SLURM_ERROR;
		goto out;
	}
	if (lic != NULL) {
		xfree(job_desc->licenses);
		job_desc->licenses = lic[0] ? lic : NULL;
		if (job_desc->licenses != NULL)
			lic = NULL;
	}
	if (feat != NULL) {
		xfree(job_desc->features);
		job_desc->features = feat;
		feat = NULL;
	}
out:
	xfree(why);
	xfree(lic);
	xfree(feat);
	return rv;
}

/*
 * job_modify - the fields not changed are the job's own.  From Slurm 23.02
 * on the refusal's message is *err_msg (xmalloc'd, slurmctld frees it),
 * which scontrol update shows the user; 22.05 gives job_modify no err_msg:
 * the message goes to slurmctld's log only and the user gets "Invalid
 * generic resource (gres) specification".
 */
/*
 * pool_contradiction - NULL when the licenses a job update asks for (asked)
 * name no chassis pool license, or give each the count falcon derives from
 * the job's falcon GRES (ours, judge()'s answer); else the falcon message
 * (xmalloc'd): an update such as "scontrol update job=N licenses=c1_gpu:2"
 * on a falcon_gpu:4 job was accepted and silently rewritten back (issue
 * 32); the GRES is what to change.
 */
static char *pool_contradiction(const char *asked, const char *ours, uint32_t job_id)
{
	char name[FALCON_NAME_LEN + 8];
	char *why = NULL;
	long a, o;
	size_t i;
	int t;

	pthread_mutex_lock(&g.lock);
	for (i = 0; g.conf != NULL && i < g.conf->nchassis && why == NULL; i++)
		for (t = 0; t < 2 && why == NULL; t++) {
			if (falcon_license_name(g.conf->chassis[i].name,
						t ? FALCON_DEV_NVME : FALCON_DEV_GPU, name,
						sizeof(name)) != FALCON_OK)
				continue;
			a = falcon_license_count(asked, name);
			o = falcon_license_count(ours, name);
			if (a >= 0 && a != (o < 0 ? 0 : o))
				why = xstrdup_printf("falcon: license %s follows job %u's falcon "
						     "GRES and chassis (%ld, not %ld): change "
						     "its GRES instead (scontrol update job=%u "
						     "gres=%s:N)", name, job_id, o < 0 ? 0 : o,
						     a, job_id, t ? "falcon_nvme" : "falcon_gpu");
		}
	pthread_mutex_unlock(&g.lock);
	return why;
}

#ifdef FALCON_MODIFY_ERR_MSG
extern int job_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr, uint32_t submit_uid,
		      char **err_msg)
#else
extern int job_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr, uint32_t submit_uid)
#endif
{
	char *why = NULL, *lic = NULL, *feat = NULL;
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
	/* a constraint set to "" clears it (falcond's re-pin asks for a new pick) */
	const char *features = job_desc->features ? job_desc->features
		: job_ptr->details ? job_ptr->details->features : NULL;
	const char *req_nodes = job_desc->req_nodes ? job_desc->req_nodes
		: job_ptr->details ? job_ptr->details->req_nodes : NULL;
	int rv;

	/* nothing falcon judges changed: leave the job alone */
	if (job_desc->tres_per_node == NULL && job_desc->partition == NULL &&
	    job_desc->licenses == NULL && job_desc->min_nodes == NO_VAL &&
	    job_desc->max_nodes == NO_VAL && job_desc->spank_job_env == NULL &&
	    job_desc->features == NULL && job_desc->req_nodes == NULL)
		return SLURM_SUCCESS;
	rv = judge(part, tres, env, nenv, old, req_nodes, features, minn, maxn, job_ptr->job_id,
		   submit_uid, &why, &lic, &feat);
	if (rv == SLURM_SUCCESS && job_desc->licenses != NULL && lic != NULL &&
	    (why = pool_contradiction(job_desc->licenses, lic, job_ptr->job_id)) != NULL)
		rv = ESLURM_INVALID_LICENSES;
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
	if (feat != NULL && IS_JOB_PENDING(job_ptr)) {
		xfree(job_desc->features);
		job_desc->features = feat;
		feat = NULL;
	}
out:
	xfree(why);
	xfree(lic);
	xfree(feat);
	return rv;
}
