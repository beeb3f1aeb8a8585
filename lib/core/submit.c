/*
 * submit.c - job_submit_falcon's decisions without Slurm (see submit.h):
 * the partitions' policy, the chassis pool and its arithmetic, the pin of
 * a job over several chassis, the HRES licenses, a hetjob's licenses and
 * an update that contradicts falcon's licenses.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fleet.h"
#include "core/jobtag.h"
#include "core/submit.h"
#include "core/util.h"

/* A license name of a pool: "<ChassisName>_nvme" and the NUL. */
#define LICENSE_LEN (FALCON_NAME_LEN + 8)

/* S - NULL as "" for the messages. */
#define S(x) ((x) != NULL ? (x) : "")

falcon_err_t falcon_pool_read(const struct falcon_conf *conf, const struct falcon_ctld_view *v,
			      const char *chassis, falcon_dev_type_t type, unsigned what,
			      uint32_t job_id, struct falcon_pool_count *out)
{
	char name[FALCON_POOL_NAME_LEN];
	falcon_err_t rv;
	size_t c;

	out->total = out->free = out->pending = -1;
	if (conf != NULL && v->license_total(FALCON_HRES_GPU, v->arg) >= 0) {
		for (c = 0; c < conf->nchassis && strcmp(conf->chassis[c].name, chassis); c++)
			;
		rv = falcon_hres_layer_name(conf, c, type, name, sizeof(name));
	} else
		rv = falcon_license_name(chassis, type, name, sizeof(name));
	if (rv != FALCON_OK)
		return rv;
	if (what & FALCON_POOL_TOTAL)
		out->total = v->license_total(name, v->arg);
	if (what & FALCON_POOL_FREE)
		out->free = v->license_free(name, v->arg);
	if (what & FALCON_POOL_PENDING)
		out->pending = v->license_pending(name, job_id, v->arg);
	return FALCON_OK;
}

bool falcon_pool_fits(const struct falcon_pool_count *c, long want, bool now)
{
	if (want <= 0)
		return true;
	if (!now)
		return c->total >= want;
	return c->free >= 0 && c->pending >= 0 && want + c->pending <= c->free;
}

/*
 * pool_refuse - NULL in *why when chassis' pool of type can ever hold
 * per_node x nodes devices, else the falcon message (the administrator's
 * missing license, or the pool's total against the ask).
 */
static void pool_refuse(const struct falcon_conf *conf, const struct falcon_ctld_view *v,
			const char *chassis,
			falcon_dev_type_t type, int per_node, uint32_t nodes, char **why)
{
	const char *what = type == FALCON_DEV_GPU ? "GPUs" : "NVMe";
	const char *gres = type == FALCON_DEV_GPU ? "falcon_gpu" : "falcon_nvme";
	long want = (long)per_node * nodes;
	struct falcon_pool_count c;
	char name[LICENSE_LEN];

	*why = NULL;
	if (per_node <= 0 || falcon_pool_read(conf, v, chassis, type, FALCON_POOL_TOTAL, 0, &c) != FALCON_OK ||
	    falcon_pool_fits(&c, want, false))
		return;
	falcon_license_name(chassis, type, name, sizeof(name)); /* good: read above */
	if (c.total < 0)
		*why = falcon_strf("falcon: chassis %s has no license %s in slurm.conf: the "
			    "administrator must add Licenses=%s:<number of %s> "
			    "(job_submit_falcon(8)); asked %s:%d", chassis, name, name, what, gres,
			    per_node);
	else
		*why = falcon_strf("falcon: chassis %s has %ld %s; asked %d per node x %u node%s (%s:%d)",
			    chassis, c.total, what, per_node, nodes, nodes == 1 ? "" : "s", gres,
			    per_node);
}

/* pool_refuse_both - pool_refuse() of the GPUs, then of the NVMe. */
static void pool_refuse_both(const struct falcon_conf *conf, const struct falcon_ctld_view *v,
			     const char *chassis, const struct falcon_job_req *req, uint32_t nodes,
			     char **why)
{
	pool_refuse(conf, v, chassis, FALCON_DEV_GPU, req->falcon_gpus, nodes, why);
	if (*why == NULL)
		pool_refuse(conf, v, chassis, FALCON_DEV_NVME, req->falcon_nvme, nodes, why);
}

/* The hosts a job may run on, as falcon.conf maps them to chassis. */
struct cands {
	size_t n;                   /* hosts looked at */
	char **names;               /* [FALCON_SUBMIT_MAX_HOSTS], from v->hostlist */
	bool fixed;                 /* from the job's -w list */
	size_t nchassis;            /* distinct chassis among the known hosts */
	struct falcon_fleet_cand *cand; /* [conf->nchassis]: every chassis of the
					 * partition, not only the first 16 */
};

static void cands_free(struct cands *ch)
{
	size_t i;

	for (i = 0; ch->names != NULL && i < ch->n; i++)
		free(ch->names[i]);
	free(ch->names);
	ch->names = NULL;
	ch->n = 0;
	free(ch->cand);
	ch->cand = NULL;
}

/*
 * cands_collect - the job's candidate hosts (its -w list, else partition
 * part's nodes) and, per chassis of conf, how many of them are cabled to
 * it (ch->cand, conf order).  FALCON_ERR_NOMEM.
 */
static falcon_err_t cands_collect(const struct falcon_conf *conf, const struct falcon_ctld_view *v,
				  const char *req_nodes, const char *part, struct cands *ch)
{
	const struct falcon_host_conf *h;
	const char *expr = NULL;
	size_t i, c;

	memset(ch, 0, sizeof(*ch));
	if ((ch->names = calloc(FALCON_SUBMIT_MAX_HOSTS, sizeof(*ch->names))) == NULL ||
	    (ch->cand = calloc(conf->nchassis + 1, sizeof(*ch->cand))) == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "%d host names, %zu chassis",
				      FALCON_SUBMIT_MAX_HOSTS, conf->nchassis);
	if (req_nodes != NULL && req_nodes[0] != '\0') {
		expr = req_nodes;
		ch->fixed = true;
	} else if (part != NULL) {
		expr = v->part_nodes(part, v->arg);
	}
	if (expr != NULL)
		ch->n = v->hostlist(expr, ch->names, FALCON_SUBMIT_MAX_HOSTS, v->arg);
	for (c = 0; c < conf->nchassis; c++) {
		uint32_t k = 0;

		for (i = 0; i < ch->n; i++)
			if ((h = falcon_conf_host(conf, ch->names[i])) != NULL &&
			    strcmp(h->chassis, conf->chassis[c].name) == 0)
				k++;
		if (k == 0)
			continue;
		ch->cand[ch->nchassis].chassis = c;
		ch->cand[ch->nchassis].nhosts = k;
		ch->nchassis++;
	}
	return FALCON_OK;
}

/* What fleet_fits() and fleet_backlog() read with. */
struct fleet_arg {
	const struct falcon_conf *conf;
	const struct falcon_ctld_view *v;
	uint32_t job_id;
};

/* fleet_fits - falcon_fleet_fits_fn: falcon_pool_fits() of both types,
 * against the totals (ever) or what is free now less the pending claims. */
static bool fleet_fits(size_t c, long gpus, long nvme, bool ever, void *arg)
{
	const struct fleet_arg *fa = arg;
	const char *name = fa->conf->chassis[c].name;
	unsigned what = ever ? FALCON_POOL_TOTAL : FALCON_POOL_FREE | FALCON_POOL_PENDING;
	struct falcon_pool_count g, n;

	if (falcon_pool_read(fa->conf, fa->v, name, FALCON_DEV_GPU, gpus > 0 ? what : 0,
			     fa->job_id, &g) != FALCON_OK ||
	    falcon_pool_read(fa->conf, fa->v, name, FALCON_DEV_NVME, nvme > 0 ? what : 0,
			     fa->job_id, &n) != FALCON_OK)
		return false;
	return falcon_pool_fits(&g, gpus, !ever) && falcon_pool_fits(&n, nvme, !ever);
}

/* fleet_backlog - falcon_fleet_backlog_fn: the GPUs pending jobs claim of
 * chassis c's pool minus those free in it now; 0 for a name no license
 * can be made of. */
static long fleet_backlog(size_t c, void *arg)
{
	const struct fleet_arg *fa = arg;
	struct falcon_pool_count g;

	if (falcon_pool_read(fa->conf, fa->v, fa->conf->chassis[c].name, FALCON_DEV_GPU,
			     FALCON_POOL_FREE | FALCON_POOL_PENDING, fa->job_id, &g) != FALCON_OK)
		return 0;
	return g.pending - g.free;
}

/* fixed_pick - the pick of a job whose -w list names hosts on several
 * chassis: its nodes per chassis as listed; false when it asks for more
 * nodes than it names of falcon.conf's hosts. */
static bool fixed_pick(const struct cands *ch, uint32_t nodes, struct falcon_fleet_pick *pick)
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
	return sum == nodes;
}

/* pin_unknown - the first chassis of pick on which none of the job's
 * candidate hosts is, or NULL. */
static const char *pin_unknown(const struct falcon_conf *conf, const struct cands *ch,
			       const struct falcon_fleet_pick *pick)
{
	bool known;
	size_t i, j;

	for (i = 0; i < pick->n; i++) {
		for (known = false, j = 0; j < ch->nchassis; j++)
			known = known || ch->cand[j].chassis == pick->chassis[i];
		if (!known)
			return conf->chassis[pick->chassis[i]].name;
	}
	return NULL;
}

/*
 * fleet_pick - where the job's nodes go (submit.h, falcon_submit_judge()
 * step 5): *pick and the new constraint *cons (NULL = none written).
 * false with out's verdict and message on refusal, or (verdict ACCEPT)
 * when the constraint could not be read (out of memory).
 */
static bool fleet_pick(const struct falcon_conf *conf, const struct falcon_ctld_view *v,
		       const struct cands *ch, const struct falcon_submit_job *job,
		       const struct falcon_job_req *req, uint32_t nodes,
		       struct falcon_fleet_pick *pick, char **cons, struct falcon_submit_out *out)
{
	struct fleet_arg fa = { conf, v, job->job_id };
	const char *bad;
	char *rest = NULL;
	bool ok = false;

	if (ch->fixed) {
		if (ch->nchassis > FALCON_FLEET_MAX) {
			out->verdict = FALCON_SUBMIT_BAD_LICENSES;
			out->why = falcon_strf("falcon: the job's -w list spans %zu chassis; a job "
					"is split over at most %d", ch->nchassis,
					FALCON_FLEET_MAX);
			return false;
		}
		if (fixed_pick(ch, nodes, pick))
			return true;
		out->verdict = FALCON_SUBMIT_BAD_LICENSES;
		out->why = falcon_strf("falcon: the job's -w list spans several chassis and names fewer "
				"falcon.conf hosts than its %u nodes: name them all, or none", nodes);
		return false;
	}
	if (falcon_fleet_pin_parse(conf, job->features, pick, &rest) != FALCON_OK)
		return false;
	if ((bad = pin_unknown(conf, ch, pick)) != NULL) {
		out->verdict = FALCON_SUBMIT_BAD_FEATURE;
		out->why = falcon_strf("falcon: constraint %s%s: no node of the job's partition is "
				"cabled to chassis %s", FALCON_FLEET_FEATURE_PREFIX, bad, bad);
		goto out;
	}
	if (pick->n == 1 && pick->nodes[0] == 0)
		pick->nodes[0] = nodes;
	if (pick->n == 0 &&
	    falcon_fleet_place(ch->cand, ch->nchassis, nodes, req->falcon_gpus, req->falcon_nvme,
			       fleet_fits, fleet_backlog, &fa, pick) != FALCON_OK) {
		out->verdict = FALCON_SUBMIT_BAD_LICENSES;
		out->why = falcon_strf("falcon: %s", falcon_errmsg());
		goto out;
	}
	if (falcon_fleet_constraint(conf, rest, pick, cons) != FALCON_OK) {
		out->verdict = FALCON_SUBMIT_BAD_FEATURE;
		out->why = falcon_strf("falcon: %s", falcon_errmsg());
		goto out;
	}
	ok = true;
out:
	free(rest);
	return ok;
}

/* judge_fleet - falcon_submit_judge() step 5: a job whose candidate hosts
 * span several chassis. */
static void judge_fleet(const struct falcon_conf *conf, const struct falcon_ctld_view *v,
			const struct cands *ch, const struct falcon_submit_job *job,
			const struct falcon_job_req *req, uint32_t nodes,
			struct falcon_submit_out *out)
{
	struct falcon_fleet_pick pick;
	char *cons = NULL, *merged = NULL;
	bool changed = false;
	size_t i;

	if (!fleet_pick(conf, v, ch, job, req, nodes, &pick, &cons, out))
		goto out;
	for (i = 0; i < pick.n && out->why == NULL; i++)
		pool_refuse_both(conf, v, conf->chassis[pick.chassis[i]].name, req, pick.nodes[i],
				 &out->why);
	if (out->why != NULL) {
		out->verdict = FALCON_SUBMIT_BAD_LICENSES;
		goto out;
	}
	if (falcon_fleet_licenses(conf, job->licenses, &pick, req->falcon_gpus, req->falcon_nvme,
				  &merged, &changed) != FALCON_OK) {
		out->note = falcon_strf("licenses of a fleet job: %s", falcon_errmsg());
		out->note_error = true;
		goto out;
	}
	if (changed)
		out->licenses = strdup(S(merged));
	if (cons != NULL && (job->features == NULL || strcmp(cons, job->features) != 0))
		out->features = strdup(cons);
	out->note = falcon_strf("uid %u: %u node%s on %zu chassis (%s): licenses '%s' -> '%s', "
			 "constraint '%s' -> '%s'", job->uid, nodes, nodes == 1 ? "" : "s", pick.n,
			 ch->fixed ? "its -w list" : pick.now ? "free now" : "pends for licenses",
			 S(job->licenses), S(merged), S(job->features),
			 cons ? cons : S(job->features));
out:
	if (out->verdict != FALCON_SUBMIT_ACCEPT)
		out->note = falcon_strf("uid %u: refused: %s", job->uid, S(out->why));
	free(cons);
	free(merged);
}

/* judge_pool - falcon_submit_judge() step 6: the job's one chassis pool. */
static void judge_pool(const struct falcon_conf *conf, const struct falcon_ctld_view *v,
		       const struct cands *ch, const struct falcon_submit_job *job,
		       const char *first, const struct falcon_job_req *req, uint32_t nodes,
		       struct falcon_submit_out *out)
{
	const char *pool = NULL;
	char *merged = NULL;
	bool changed = false;

	if (falcon_policy_pool(conf, (const char *const *)ch->names,
			       conf->nchassis == 1 ? 0 : ch->n, &pool) != FALCON_OK) {
		out->note = falcon_strf("no chassis pool license added: %s", falcon_errmsg());
		return;
	}
	pool_refuse_both(conf, v, pool, req, nodes, &out->why);
	if (out->why != NULL) {
		out->verdict = FALCON_SUBMIT_BAD_LICENSES;
		out->note = falcon_strf("uid %u tres_per_node '%s': refused: %s", job->uid,
				 S(job->tres_per_node), out->why);
		return;
	}
	if (falcon_pool_licenses(job->licenses, pool, req->falcon_gpus * (int)nodes,
				 req->falcon_nvme * (int)nodes, &merged, &changed) != FALCON_OK) {
		out->note = falcon_strf("license of pool %s: %s", pool, falcon_errmsg());
		out->note_error = true;
		return;
	}
	if (changed) {
		out->licenses = strdup(S(merged));
		out->note = falcon_strf("uid %u partition %s tres_per_node '%s': licenses '%s' -> '%s'",
				 job->uid, first ? first : "(default)", S(job->tres_per_node),
				 S(job->licenses), S(merged));
	}
	free(merged);
}

/* hres_refuse - judge_hres(): *why (malloc'd) when the job asks more of a
 * type per node than the largest HRES layer of its candidate chassis
 * holds; NULL when it fits, or when no layer's total could be read (an
 * admin's own resources.yaml: left to slurmctld). */
static void hres_refuse(const struct falcon_conf *conf, const struct falcon_ctld_view *v,
			const struct cands *ch, const struct falcon_job_req *req, char **why)
{
	char name[FALCON_POOL_NAME_LEN];
	size_t i;
	int t;

	*why = NULL;
	for (t = 0; t < 2 && *why == NULL; t++) {
		falcon_dev_type_t type = t == 0 ? FALCON_DEV_GPU : FALCON_DEV_NVME;
		int per_node = t == 0 ? req->falcon_gpus : req->falcon_nvme;
		long best = -1, total;
		const char *at = NULL;

		for (i = 0; per_node > 0 && i < ch->nchassis; i++) {
			if (falcon_hres_layer_name(conf, ch->cand[i].chassis, type, name,
						   sizeof(name)) != FALCON_OK ||
			    (total = v->license_total(name, v->arg)) < 0)
				continue;
			if (total > best) {
				best = total;
				at = conf->chassis[ch->cand[i].chassis].name;
			}
		}
		if (at != NULL && best < per_node)
			*why = falcon_strf("falcon: the largest chassis of the job's nodes (%s) has "
				    "%ld %s; asked %d per node (%s:%d)", at, best,
				    t == 0 ? "GPUs" : "NVMe", per_node,
				    t == 0 ? "falcon_gpu" : "falcon_nvme", per_node);
	}
}

/* judge_hres - falcon_submit_judge() step 4: the HRES counts per node, the
 * chassis pool licenses removed; a job no chassis of its nodes can ever
 * serve refused (hres_refuse()). */
static void judge_hres(const struct falcon_conf *conf, const struct falcon_ctld_view *v,
		       const struct cands *ch, const struct falcon_submit_job *job,
		       const struct falcon_job_req *req, struct falcon_submit_out *out)
{
	struct falcon_fleet_pick none = { 0 };
	char *a = NULL, *b = NULL, *c = NULL;
	bool ch1 = false, ch2 = false, ch3 = false;

	hres_refuse(conf, v, ch, req, &out->why);
	if (out->why != NULL) {
		out->verdict = FALCON_SUBMIT_BAD_LICENSES;
		out->note = falcon_strf("uid %u tres_per_node '%s': refused: %s", job->uid,
				 S(job->tres_per_node), out->why);
		return;
	}
	if (falcon_fleet_licenses(conf, job->licenses, &none, 0, 0, &a, &ch1) != FALCON_OK ||
	    falcon_license_merge(a, FALCON_HRES_GPU, req->falcon_gpus, &b, &ch2) != FALCON_OK ||
	    falcon_license_merge(b, FALCON_HRES_NVME, req->falcon_nvme, &c, &ch3) != FALCON_OK) {
		out->note = falcon_strf("HRES licenses: %s", falcon_errmsg());
		out->note_error = true;
	} else if (ch1 || ch2 || ch3) {
		out->licenses = strdup(S(c));
		out->note = falcon_strf("uid %u: HRES %s: licenses '%s' -> '%s'", job->uid,
				 FALCON_HRES_GPU, S(job->licenses), S(c));
	}
	free(a);
	free(b);
	free(c);
}

/*
 * judge_policy - falcon_submit_judge() step 2: the policy of every
 * partition of list (a copy of the job's or the default one, NULL = none;
 * strtok_r'd), the request parsed into *req and the first partition in
 * *first (into list).  false with out's refusal.
 */
static bool judge_policy(const struct falcon_conf *conf, const struct falcon_ctld_view *v,
			 const struct falcon_submit_job *job, char *list, struct falcon_job_req *req,
			 const char **first, struct falcon_submit_out *out)
{
	char *save = NULL, *part;

	*first = NULL;
	for (part = list ? strtok_r(list, ",", &save) : NULL; part != NULL;
	     part = strtok_r(NULL, ",", &save)) {
		if (*first == NULL)
			*first = part;
		if (falcon_policy_job(conf, v->part_known, part, job->tres_per_node, job->env,
				      job->nenv, req) != FALCON_OK) {
			out->verdict = FALCON_SUBMIT_BAD_GRES;
			out->why = falcon_strf("falcon: %s", falcon_errmsg());
			out->note = falcon_strf("uid %u partition %s tres_per_node '%s': refused: %s",
					 job->uid, part, S(job->tres_per_node), falcon_errmsg());
			return false;
		}
	}
	if (list == NULL && /* no partition at all: DEFAULT's policy */
	    falcon_policy_job(conf, v->part_known, NULL, job->tres_per_node, job->env, job->nenv,
			      req) != FALCON_OK) {
		out->verdict = FALCON_SUBMIT_BAD_GRES;
		out->why = falcon_strf("falcon: %s", falcon_errmsg());
		return false;
	}
	return true;
}

/* judge_noconf - falcon_submit_judge() step 1. */
static void judge_noconf(const char *conf_broken, const struct falcon_submit_job *job,
			 struct falcon_submit_out *out)
{
	struct falcon_job_req req = { 0, 0, 0 };

	if (falcon_tres_parse(job->tres_per_node, &req) == FALCON_OK &&
	    req.falcon_gpus + req.falcon_nvme == 0)
		return;
	if (conf_broken != NULL) {
		out->verdict = FALCON_SUBMIT_BAD_GRES;
		out->why = falcon_strf("falcon: falcon.conf is broken (%s): jobs asking for "
				"falcon_gpu/falcon_nvme are refused until the administrator "
				"fixes it", conf_broken);
	}
}

/* job_nodes - the nodes a job's pool must hold (step 3): a range at its
 * most, at most FALCON_SUBMIT_MAX_NODES. */
static uint32_t job_nodes(const struct falcon_submit_job *job)
{
	uint32_t n = job->max_nodes != 0 ? job->max_nodes : job->min_nodes != 0 ? job->min_nodes : 1;

	return n > FALCON_SUBMIT_MAX_NODES ? FALCON_SUBMIT_MAX_NODES : n;
}

falcon_err_t falcon_submit_judge(const struct falcon_conf *conf, const char *conf_broken,
				 const struct falcon_submit_job *job,
				 const struct falcon_ctld_view *v, struct falcon_submit_out *out)
{
	const char *dflt = job->partitions != NULL && job->partitions[0] != '\0' ? job->partitions
										 : v->default_partition;
	struct falcon_job_req req = { 0, 0, 0 };
	struct cands ch = { 0 };
	const char *first;
	char *list = NULL;
	uint32_t nodes;
	falcon_err_t rv = FALCON_OK;

	memset(out, 0, sizeof(*out));
	if (conf == NULL) {
		judge_noconf(conf_broken, job, out);
		return FALCON_OK;
	}
	if (dflt != NULL && (list = strdup(dflt)) == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "partition list");
	if (!judge_policy(conf, v, job, list, &req, &first, out) ||
	    req.falcon_gpus + req.falcon_nvme == 0)
		goto out;
	nodes = job_nodes(job);
	if ((rv = cands_collect(conf, v, job->req_nodes, first, &ch)) != FALCON_OK)
		goto out;
	if (v->license_total(FALCON_HRES_GPU, v->arg) >= 0) {
		judge_hres(conf, v, &ch, job, &req, out);
		goto out;
	}
	if (conf->nchassis > 1 && ch.nchassis > 1)
		judge_fleet(conf, v, &ch, job, &req, nodes, out);
	else
		judge_pool(conf, v, &ch, job, first, &req, nodes, out);
out:
	cands_free(&ch);
	free(list);
	return rv;
}

void falcon_submit_out_free(struct falcon_submit_out *out)
{
	free(out->why);
	free(out->licenses);
	free(out->features);
	free(out->note);
	out->why = out->licenses = out->features = out->note = NULL;
}

falcon_err_t falcon_submit_contradiction(const struct falcon_conf *conf, const char *asked,
					 const char *ours, uint32_t job_id, char **why)
{
	char name[LICENSE_LEN];
	long a, o;
	size_t i;
	int t;

	*why = NULL;
	for (i = 0; i < conf->nchassis; i++)
		for (t = 0; t < 2; t++) {
			if (falcon_license_name(conf->chassis[i].name,
						t ? FALCON_DEV_NVME : FALCON_DEV_GPU, name,
						sizeof(name)) != FALCON_OK)
				continue;
			a = falcon_license_count(asked, name);
			o = falcon_license_count(ours, name);
			if (a < 0 || a == (o < 0 ? 0 : o))
				continue;
			*why = falcon_strf("falcon: license %s follows job %u's falcon GRES and chassis "
				    "(%ld, not %ld): change its GRES instead (scontrol update "
				    "job=%u gres=%s:N)", name, job_id, o < 0 ? 0 : o, a, job_id,
				    t ? "falcon_nvme" : "falcon_gpu");
			return *why != NULL ? FALCON_OK
					    : falcon_err_set(FALCON_ERR_NOMEM, "license message");
		}
	return FALCON_OK;
}

/* het_move_one - license name's count n of *comp added to *lead and taken
 * off *comp (each string replaced). */
static falcon_err_t het_move_one(const char *name, long n, char **lead, char **comp)
{
	long have = falcon_license_count(*lead, name);
	char *out = NULL;
	falcon_err_t rv;

	rv = falcon_license_merge(*lead, name, (int)(n + (have > 0 ? have : 0)), &out, NULL);
	if (rv != FALCON_OK)
		return rv;
	free(*lead);
	*lead = out;
	out = NULL;
	if ((rv = falcon_license_merge(*comp, name, 0, &out, NULL)) != FALCON_OK)
		return rv;
	free(*comp);
	*comp = out;
	return FALCON_OK;
}

falcon_err_t falcon_het_licenses(const struct falcon_conf *conf, const char *leader,
				 const char *comp, char **leader_out, char **comp_out)
{
	char name[LICENSE_LEN];
	char *lead = leader != NULL ? strdup(leader) : NULL;
	char *mine = comp != NULL ? strdup(comp) : NULL;
	falcon_err_t rv = FALCON_OK;
	size_t i;
	int t;
	long n;

	*leader_out = *comp_out = NULL;
	if ((leader != NULL && lead == NULL) || (comp != NULL && mine == NULL))
		rv = falcon_err_set(FALCON_ERR_NOMEM, "hetjob licenses");
	else if (falcon_license_count(comp, FALCON_HRES_GPU) > 0 ||
		 falcon_license_count(comp, FALCON_HRES_NVME) > 0)
		rv = falcon_err_set(FALCON_ERR_INVAL, "falcon: a hetjob component after the first "
				    "asks for falcon_gpu/falcon_nvme, and this site counts them as HRES: "
				    "Slurm takes HRES, like licenses, on the first component only and "
				    "counts it on that component's nodes, so this component's devices "
				    "could not be counted on its own chassis; ask for them in the first "
				    "component, or submit separate jobs");
	for (i = 0; rv == FALCON_OK && i < conf->nchassis; i++)
		for (t = 0; rv == FALCON_OK && t < 2; t++) {
			if (falcon_license_name(conf->chassis[i].name,
						t ? FALCON_DEV_NVME : FALCON_DEV_GPU, name,
						sizeof(name)) != FALCON_OK ||
			    (n = falcon_license_count(mine, name)) <= 0)
				continue;
			rv = het_move_one(name, n, &lead, &mine);
		}
	if (rv != FALCON_OK) {
		free(lead);
		free(mine);
		return rv;
	}
	*leader_out = lead;
	*comp_out = mine;
	return FALCON_OK;
}
