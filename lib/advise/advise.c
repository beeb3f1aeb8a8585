/*
 * advise.c - the topology advisor's pure part (advise.h): a workload's
 * relative runtime per topology and what is free now -> the topology to
 * ask for, its sbatch option and the reason; the GRES string parser; the
 * writers.  The rule is at the top of advise.h.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "advise/advise.h"
#include "core/util.h"

/* The GPU topologies, in the order ties are broken (Table III). */
static const char *const topos[] = { "localGPUs", "hybridGPUs", "falconGPUs" };
enum { T_LOCAL, T_HYBRID, T_FALCON };

const char *falcon_anow_str(enum falcon_anow s)
{
	switch (s) {
	case FALCON_ANOW_FREE: return "free";
	case FALCON_ANOW_BUSY: return "busy";
	case FALCON_ANOW_NEVER: return "never";
	default: return "unknown";
	}
}

/* app - printf appended to buf (size n), always terminated, cut when full. */
static void app(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void app(char *buf, size_t n, const char *fmt, ...)
{
	size_t len = strnlen(buf, n);
	va_list ap;

	if (len + 1 >= n)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, n - len, fmt, ap);
	va_end(ap);
}

void falcon_anode_set(struct falcon_anode *a, const char *name, const char *gres,
		      const char *gres_used, bool up)
{
	uint64_t used;

	memset(a, 0, sizeof(*a));
	falcon_strlcpy(a->name, name ? name : "", sizeof(a->name));
	a->gpus = (uint32_t)falcon_gres_count(gres, "gpu");
	used = falcon_gres_count(gres_used, "gpu");
	a->gpus_free = up && used < a->gpus ? a->gpus - (uint32_t)used : 0;
	a->falcon_gpus = (uint32_t)falcon_gres_count(gres, "falcon_gpu");
	used = falcon_gres_count(gres_used, "falcon_gpu");
	a->falcon_gpus_free = up && used < a->falcon_gpus ? a->falcon_gpus - (uint32_t)used : 0;
}

/* The best of the nodes and chassis for N GPUs, and the totals behind "never". */
struct scan {
	size_t local_free_nodes;        /* nodes with N local GPUs free */
	bool local_ever;                /* a node has N local GPUs */
	bool falcon_slot_free;          /* a node has N falcon_gpu slots free */
	bool falcon_slot_ever;
	const struct falcon_achassis *pool_best; /* most GPUs free */
	uint32_t pool_max;              /* most GPUs of one pool */
	const struct falcon_anode *hyb; /* hybrid's node: most local GPUs free, fits */
	uint32_t hyb_l, hyb_f;          /* its split */
	uint32_t hyb_ever_l;            /* the split by capacity, 0 = never */
};

/* split - N GPUs as l local + f falcon, as many local as fit (l, f >= 1);
 * false when the node and pool cannot. */
static bool split(uint32_t local, uint32_t slots, uint32_t pool, unsigned n, uint32_t *l,
		  uint32_t *f)
{
	if (n < 2 || local == 0)
		return false;
	*l = local < n - 1 ? local : n - 1;
	*f = n - *l;
	return *f <= slots && *f <= pool;
}

static void scan(const struct falcon_avail *av, unsigned n, struct scan *s)
{
	uint32_t pool_free = 0, l, f;
	size_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < av->nchassis; i++) {
		const struct falcon_achassis *c = &av->chassis[i];

		if (s->pool_best == NULL || c->gpus_free > s->pool_best->gpus_free)
			s->pool_best = c;
		if (c->gpus > s->pool_max)
			s->pool_max = c->gpus;
	}
	pool_free = s->pool_best ? s->pool_best->gpus_free : 0;
	for (i = 0; i < av->nnodes; i++) {
		const struct falcon_anode *d = &av->nodes[i];

		s->local_free_nodes += d->gpus_free >= n;
		s->local_ever |= d->gpus >= n;
		s->falcon_slot_free |= d->falcon_gpus_free >= n;
		s->falcon_slot_ever |= d->falcon_gpus >= n;
		if (split(d->gpus_free, d->falcon_gpus_free, pool_free, n, &l, &f) &&
		    (s->hyb == NULL || l > s->hyb_l)) {
			s->hyb = d;
			s->hyb_l = l;
			s->hyb_f = f;
		}
		if (split(d->gpus, d->falcon_gpus, av->chassis_known ? s->pool_max : UINT32_MAX, n,
			  &l, &f) && l > s->hyb_ever_l)
			s->hyb_ever_l = l;
	}
}

/* now_local / now_falcon / now_hybrid - t->now, t->option, t->where for N GPUs. */
static void now_local(struct falcon_atopo *t, const struct scan *s, unsigned n)
{
	snprintf(t->option, sizeof(t->option), "--gres=gpu:%u", n);
	if (s->local_free_nodes > 0) {
		t->now = FALCON_ANOW_FREE;
		app(t->where, sizeof(t->where), "local GPUs free on %zu node%s",
		    s->local_free_nodes, s->local_free_nodes == 1 ? "" : "s");
	} else if (s->local_ever) {
		t->now = FALCON_ANOW_BUSY;
		app(t->where, sizeof(t->where), "local GPUs busy (no node has %u free)", n);
	} else {
		t->now = FALCON_ANOW_NEVER;
		t->option[0] = '\0';
		app(t->where, sizeof(t->where), "no node has %u local GPUs", n);
	}
}

static void now_falcon(struct falcon_atopo *t, const struct scan *s, const struct falcon_avail *av,
		       unsigned n)
{
	bool pool_free = s->pool_best && s->pool_best->gpus_free >= n;

	snprintf(t->option, sizeof(t->option), "--gres=falcon_gpu:%u", n);
	if (!s->falcon_slot_ever) {
		t->now = FALCON_ANOW_NEVER;
		app(t->where, sizeof(t->where), "no node takes %u falcon GPUs (GRES falcon_gpu)", n);
	} else if (!av->chassis_known) {
		t->now = FALCON_ANOW_UNKNOWN;
		app(t->where, sizeof(t->where), "falcon GPUs unknown (falcond did not answer)");
		return;
	} else if (s->pool_max < n) {
		t->now = FALCON_ANOW_NEVER;
		app(t->where, sizeof(t->where), "no chassis has %u GPUs", n);
	} else if (pool_free && s->falcon_slot_free) {
		t->now = FALCON_ANOW_FREE;
		app(t->where, sizeof(t->where), "falcon GPUs free in %s (%u)", s->pool_best->name,
		    s->pool_best->gpus_free);
		return;
	} else {
		t->now = FALCON_ANOW_BUSY;
		app(t->where, sizeof(t->where), pool_free ? "falcon GPUs busy (no node has %u "
			"falcon_gpu free)" : "falcon GPUs busy (no chassis has %u free)", n);
		return;
	}
	t->option[0] = '\0';
}

static void now_hybrid(struct falcon_atopo *t, const struct scan *s, const struct falcon_avail *av,
		       unsigned n)
{
	if (s->hyb_ever_l == 0) {
		t->now = FALCON_ANOW_NEVER;
		app(t->where, sizeof(t->where), "no node takes %u GPUs as local + falcon", n);
	} else if (s->hyb != NULL && av->chassis_known) {
		t->now = FALCON_ANOW_FREE;
		snprintf(t->option, sizeof(t->option), "--gres=gpu:%u,falcon_gpu:%u", s->hyb_l,
			 s->hyb_f);
		t->local = s->hyb_l;
		t->falcon = s->hyb_f;
		app(t->where, sizeof(t->where), "%u local + %u falcon GPUs free on %s", s->hyb_l,
		    s->hyb_f, s->hyb->name);
	} else {
		t->now = av->chassis_known ? FALCON_ANOW_BUSY : FALCON_ANOW_UNKNOWN;
		snprintf(t->option, sizeof(t->option), "--gres=gpu:%u,falcon_gpu:%u", s->hyb_ever_l,
			 n - s->hyb_ever_l);
		t->local = s->hyb_ever_l;
		t->falcon = n - s->hyb_ever_l;
		app(t->where, sizeof(t->where), av->chassis_known ?
		    "local + falcon GPUs busy (no node has %u of them free)" :
		    "falcon GPUs unknown (falcond did not answer; %u GPUs)", n);
	}
}

/* better - a beats b: lower median, then the earlier topology. */
static bool better(const struct falcon_atopo *a, const struct falcon_atopo *b)
{
	return b == NULL || a->median < b->median;
}

/* choose - out->pick by the rule (advise.h); the index of the fastest trusted
 * topology whatever its state into *fast (-1 none). */
static int choose(const struct falcon_advice *a, int *fast)
{
	const struct falcon_atopo *best_free = NULL, *best_wait = NULL, *best = NULL;
	size_t i;

	for (i = 0; i < a->ntopo; i++) {
		const struct falcon_atopo *t = &a->topo[i];

		if (!t->trusted)
			continue;
		if (better(t, best))
			best = t;
		if (t->now == FALCON_ANOW_FREE && better(t, best_free))
			best_free = t;
		if ((t->now == FALCON_ANOW_BUSY || t->now == FALCON_ANOW_UNKNOWN) &&
		    better(t, best_wait))
			best_wait = t;
	}
	*fast = best ? (int)(best - a->topo) : -1;
	if (best_free)
		return (int)(best_free - a->topo);
	return best_wait ? (int)(best_wait - a->topo) : -1;
}

/* explain - out->reason for the pick p (fast: the fastest trusted one). */
static void explain(struct falcon_advice *a, int p, int fast, size_t min_jobs)
{
	size_t i, listed = 0; /* items listed so far: the separator */

	a->reason[0] = '\0';
	if (fast < 0) {
		app(a->reason, sizeof(a->reason), "too little history:");
		for (i = 0; i < a->ntopo; i++)
			app(a->reason, sizeof(a->reason), "%s %s %zu job%s", i ? "," : "",
			    a->topo[i].topo, a->topo[i].jobs, a->topo[i].jobs == 1 ? "" : "s");
		app(a->reason, sizeof(a->reason), " (fewer than %zu each)", min_jobs);
		return;
	}
	if (p < 0) {
		app(a->reason, sizeof(a->reason), "no topology with history can give %u GPUs:",
		    a->gpus);
		for (i = 0; i < a->ntopo; i++)
			if (a->topo[i].trusted)
				app(a->reason, sizeof(a->reason), "%s %s", listed++ ? ";" : "",
				    a->topo[i].where);
		return;
	}
	app(a->reason, sizeof(a->reason), "%s", a->topo[p].where);
	if (a->topo[p].now != FALCON_ANOW_FREE)
		app(a->reason, sizeof(a->reason), "; nothing is free now, wait unknown");
	if (fast != p) {
		const struct falcon_atopo *f = &a->topo[fast], *t = &a->topo[p];

		app(a->reason, sizeof(a->reason), "; %s is faster but %s; %s takes %.2fx %s's time",
		    f->topo, f->where, t->topo, f->median ? (double)t->median / f->median : 0.0,
		    f->topo);
	}
	for (i = 0; i < a->ntopo; i++)
		if (!a->topo[i].trusted)
			app(a->reason, sizeof(a->reason), "%s%s %zu job%s", listed++ ?
			    ", " : "; too little history (untrusted): ", a->topo[i].topo,
			    a->topo[i].jobs, a->topo[i].jobs == 1 ? "" : "s");
}

falcon_err_t falcon_advise(const struct falcon_rrel *rel, size_t nrel, const char *workload,
			   const struct falcon_avail *av, unsigned gpus, size_t min_jobs,
			   struct falcon_advice *out)
{
	struct scan s;
	size_t i, k;
	int fast;

	if (rel == NULL && nrel > 0)
		return falcon_err_set(FALCON_ERR_INVAL, "advise: no rows");
	if (workload == NULL || av == NULL || out == NULL)
		return falcon_err_set(FALCON_ERR_INVAL, "advise: NULL argument");
	if (gpus < 1 || gpus > 64)
		return falcon_err_set(FALCON_ERR_INVAL, "advise: %u GPUs (1..64)", gpus);
	if (min_jobs == 0)
		min_jobs = FALCON_ADVISE_MIN_JOBS;
	memset(out, 0, sizeof(*out));
	falcon_strlcpy(out->workload, workload, sizeof(out->workload));
	out->gpus = gpus;
	out->pick = -1;
	scan(av, gpus, &s);
	for (k = 0; k < ARRAY_SIZE(topos); k++)
		for (i = 0; i < nrel; i++) {
			struct falcon_atopo *t = &out->topo[out->ntopo];

			if (strcmp(rel[i].workload, workload) || strcmp(rel[i].topo, topos[k]))
				continue;
			falcon_strlcpy(t->topo, rel[i].topo, sizeof(t->topo));
			falcon_strlcpy(out->baseline, rel[i].baseline, sizeof(out->baseline));
			t->jobs = rel[i].jobs;
			t->median = rel[i].median;
			t->rel = rel[i].rel;
			t->trusted = t->jobs >= min_jobs;
			if (k == T_LOCAL)
				now_local(t, &s, gpus);
			else if (k == T_HYBRID)
				now_hybrid(t, &s, av, gpus);
			else
				now_falcon(t, &s, av, gpus);
			out->ntopo++;
			break;
		}
	if (out->ntopo == 0)
		return falcon_err_set(FALCON_ERR_NOTFOUND, "advise: workload %s has no GPU job "
				      "in the window", workload);
	out->pick = choose(out, &fast);
	explain(out, out->pick, fast, min_jobs);
	return FALCON_OK;
}

char *falcon_advise_line(const struct falcon_advice *a, char *buf, size_t n)
{
	size_t i;

	if (n == 0)
		return buf;
	buf[0] = '\0';
	app(buf, n, "%s:", a->workload);
	for (i = 0; i < a->ntopo; i++)
		app(buf, n, "%s %s %.2f (%zu job%s%s)", i ? "," : "", a->topo[i].topo,
		    a->topo[i].rel, a->topo[i].jobs, a->topo[i].jobs == 1 ? "" : "s",
		    a->topo[i].trusted ? "" : ", untrusted");
	if (a->pick >= 0)
		app(buf, n, ": ask for %s (%s); %s", a->topo[a->pick].option, a->topo[a->pick].topo,
		    a->reason);
	else
		app(buf, n, ": no advice; %s", a->reason);
	return buf;
}

/* avail_json - av as JSON: nodes, chassis (null when unknown) and why. */
static json_object *avail_json(const struct falcon_avail *av, const char *chassis_error)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array(), *e;
	size_t i;

	for (i = 0; i < av->nnodes; i++) {
		e = json_object_new_object();
		json_object_object_add(e, "node", json_object_new_string(av->nodes[i].name));
		json_object_object_add(e, "gpus", json_object_new_int64(av->nodes[i].gpus));
		json_object_object_add(e, "gpus_free", json_object_new_int64(av->nodes[i].gpus_free));
		json_object_object_add(e, "falcon_gpus", json_object_new_int64(av->nodes[i].falcon_gpus));
		json_object_object_add(e, "falcon_gpus_free",
				       json_object_new_int64(av->nodes[i].falcon_gpus_free));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "nodes", a);
	a = av->chassis_known ? json_object_new_array() : NULL;
	for (i = 0; a && i < av->nchassis; i++) {
		e = json_object_new_object();
		json_object_object_add(e, "chassis", json_object_new_string(av->chassis[i].name));
		json_object_object_add(e, "gpus", json_object_new_int64(av->chassis[i].gpus));
		json_object_object_add(e, "gpus_free", json_object_new_int64(av->chassis[i].gpus_free));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "chassis", a);
	json_object_object_add(o, "chassis_error",
			       chassis_error ? json_object_new_string(chassis_error) : NULL);
	return o;
}

/* advice_json - one advice as JSON. */
static json_object *advice_json(const struct falcon_advice *a)
{
	json_object *o = json_object_new_object(), *ts = json_object_new_array(), *e;
	const struct falcon_atopo *p = a->pick >= 0 ? &a->topo[a->pick] : NULL;
	char rel[32];
	size_t i;

	json_object_object_add(o, "workload", json_object_new_string(a->workload));
	json_object_object_add(o, "topology", p ? json_object_new_string(p->topo) : NULL);
	json_object_object_add(o, "sbatch", p ? json_object_new_string(p->option) : NULL);
	json_object_object_add(o, "reason", json_object_new_string(a->reason));
	json_object_object_add(o, "baseline", json_object_new_string(a->baseline));
	for (i = 0; i < a->ntopo; i++) {
		const struct falcon_atopo *t = &a->topo[i];

		e = json_object_new_object();
		snprintf(rel, sizeof(rel), "%.4f", t->rel);
		json_object_object_add(e, "topology", json_object_new_string(t->topo));
		json_object_object_add(e, "jobs", json_object_new_int64((int64_t)t->jobs));
		json_object_object_add(e, "elapsed_median_s", json_object_new_int64(t->median));
		json_object_object_add(e, "relative", json_object_new_double_s(t->rel, rel));
		json_object_object_add(e, "trusted", json_object_new_boolean(t->trusted));
		json_object_object_add(e, "now", json_object_new_string(falcon_anow_str(t->now)));
		json_object_object_add(e, "sbatch", t->option[0] ? json_object_new_string(t->option)
								 : NULL);
		json_object_object_add(e, "where", json_object_new_string(t->where));
		json_object_array_add(ts, e);
	}
	json_object_object_add(o, "topologies", ts);
	return o;
}

falcon_err_t falcon_advise_write(FILE *f, const struct falcon_advice *a, size_t n, unsigned gpus,
				 const struct falcon_avail *av, const char *chassis_error,
				 time_t start, time_t end, size_t min_jobs, bool json)
{
	char line[1024];
	size_t i;

	if (json) {
		json_object *o = json_object_new_object(), *arr = json_object_new_array();

		json_object_object_add(o, "start", json_object_new_int64((int64_t)start));
		json_object_object_add(o, "end", json_object_new_int64((int64_t)end));
		json_object_object_add(o, "gpus", json_object_new_int64(gpus));
		json_object_object_add(o, "min_jobs", json_object_new_int64(
			(int64_t)(min_jobs ? min_jobs : FALCON_ADVISE_MIN_JOBS)));
		json_object_object_add(o, "availability", avail_json(av, chassis_error));
		for (i = 0; i < n; i++)
			json_object_array_add(arr, advice_json(&a[i]));
		json_object_object_add(o, "advice", arr);
		fprintf(f, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
								     JSON_C_TO_STRING_SPACED));
		json_object_put(o);
	} else {
		for (i = 0; i < n; i++)
			fprintf(f, "%s\n", falcon_advise_line(&a[i], line, sizeof(line)));
	}
	if (fflush(f) != 0 || ferror(f))
		return falcon_err_set(FALCON_ERR_IO, "advise: write failed");
	return FALCON_OK;
}

/* auto_take - out's choice: topology k (T_*), local + falcon GPUs. */
static void auto_take(struct falcon_auto *out, int k, unsigned local, unsigned falcon)
{
	falcon_strlcpy(out->topo, topos[k], sizeof(out->topo));
	out->local = local;
	out->falcon = falcon;
}

falcon_err_t falcon_advise_auto(const struct falcon_rrel *rel, size_t nrel, const char *workload,
				const struct falcon_avail *av, unsigned gpus, unsigned allowed,
				struct falcon_auto *out)
{
	static const unsigned bit[] = { FALCON_AUTO_LOCAL, FALCON_AUTO_HYBRID, FALCON_AUTO_FALCON };
	struct falcon_atopo lt, ft;
	struct falcon_rrel *mine;
	struct falcon_advice *a;
	char hist[512] = "";
	struct scan s;
	size_t i, k, m = 0;

	if (workload == NULL || av == NULL || out == NULL || (rel == NULL && nrel > 0))
		return falcon_err_set(FALCON_ERR_INVAL, "auto: NULL argument");
	if (gpus < 1 || gpus > 64)
		return falcon_err_set(FALCON_ERR_INVAL, "auto: %u GPUs (1..64)", gpus);
	memset(out, 0, sizeof(*out));
	/* the history of the allowed topologies alone: the rule never picks
	 * one the partition refuses */
	mine = calloc(nrel ? nrel : 1, sizeof(*mine));
	a = calloc(1, sizeof(*a));
	for (i = 0; mine != NULL && i < nrel; i++)
		for (k = 0; k < ARRAY_SIZE(topos); k++)
			if ((allowed & bit[k]) && strcmp(rel[i].topo, topos[k]) == 0)
				mine[m++] = rel[i];
	if (mine != NULL && a != NULL &&
	    falcon_advise(mine, m, workload, av, gpus, 0, a) == FALCON_OK) {
		const struct falcon_atopo *p = a->pick >= 0 ? &a->topo[a->pick] : NULL;

		/* the split the advisor wrote into the option, not read back from it */
		if (p != NULL && strcmp(p->topo, topos[T_HYBRID]) == 0 && p->option[0] != '\0' &&
		    p->local + p->falcon == gpus)
			auto_take(out, T_HYBRID, p->local, p->falcon);
		else if (p != NULL && strcmp(p->topo, topos[T_LOCAL]) == 0)
			auto_take(out, T_LOCAL, gpus, 0);
		else if (p != NULL && strcmp(p->topo, topos[T_FALCON]) == 0)
			auto_take(out, T_FALCON, 0, gpus);
		if (out->topo[0] != '\0') {
			out->history = true;
			falcon_advise_line(a, out->reason, sizeof(out->reason));
		} else {
			falcon_strlcpy(hist, a->reason, sizeof(hist));
		}
	}
	falcon_err_clear();
	free(mine);
	free(a);
	if (out->topo[0] != '\0')
		return FALCON_OK;
	/* no advice from history: what is free now, local first */
	memset(&lt, 0, sizeof(lt));
	memset(&ft, 0, sizeof(ft));
	scan(av, gpus, &s);
	now_local(&lt, &s, gpus);
	now_falcon(&ft, &s, av, gpus);
	if ((allowed & FALCON_AUTO_LOCAL) && lt.now == FALCON_ANOW_FREE)
		auto_take(out, T_LOCAL, gpus, 0);
	else if ((allowed & FALCON_AUTO_FALCON) && ft.now == FALCON_ANOW_FREE)
		auto_take(out, T_FALCON, 0, gpus);
	else if ((allowed & FALCON_AUTO_LOCAL) && lt.now != FALCON_ANOW_NEVER)
		auto_take(out, T_LOCAL, gpus, 0);
	else if ((allowed & FALCON_AUTO_FALCON) && ft.now != FALCON_ANOW_NEVER)
		auto_take(out, T_FALCON, 0, gpus);
	app(out->reason, sizeof(out->reason), "%s: no advice from history (%s): ", workload,
	    hist[0] ? hist : "no GPU job of an allowed topology");
	if (out->topo[0] == '\0')
		app(out->reason, sizeof(out->reason), "no allowed topology can give %u GPUs", gpus);
	else
		app(out->reason, sizeof(out->reason), "%s", out->local ? lt.where : ft.where);
	if (out->topo[0] != '\0' &&
	    (out->local ? lt.now : ft.now) != FALCON_ANOW_FREE)
		app(out->reason, sizeof(out->reason), "; nothing is free now");
	return FALCON_OK;
}

/* jget - member key of o (ctx names o) of type t into *v, else the parse error. */
static falcon_err_t jget(json_object *o, const char *ctx, const char *key, json_type t,
			 json_object **v)
{
	if (!json_object_object_get_ex(o, key, v) ||
	    !(json_object_is_type(*v, t) ||
	      (t == json_type_double && json_object_is_type(*v, json_type_int))))
		return falcon_err_set(FALCON_ERR_PARSE, "%s.%s: expected %s", ctx, key,
				      t == json_type_string ? "a string" : t == json_type_array ?
				      "an array" : "a number");
	return FALCON_OK;
}

falcon_err_t falcon_advice_rows(json_object *o, struct falcon_rrel **rows, size_t *n)
{
	json_object *adv, *e, *ts, *t, *v;
	struct falcon_rrel *r = NULL;
	size_t i, k, cap = 0, cnt = 0;
	falcon_err_t rv;
	char ctx[96];

	*rows = NULL;
	*n = 0;
	if (o == NULL || !json_object_is_type(o, json_type_object))
		return falcon_err_set(FALCON_ERR_PARSE, "expected a JSON object");
	if ((rv = jget(o, "(top)", "advice", json_type_array, &adv)) != FALCON_OK)
		return rv;
	for (i = 0; i < json_object_array_length(adv); i++)
		if (json_object_object_get_ex(json_object_array_get_idx(adv, i), "topologies", &ts) &&
		    json_object_is_type(ts, json_type_array))
			cap += json_object_array_length(ts);
	if ((r = calloc(cap ? cap : 1, sizeof(*r))) == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "advice: %zu rows", cap);
	for (i = 0; i < json_object_array_length(adv); i++) {
		const char *wl, *base = "";

		e = json_object_array_get_idx(adv, i);
		snprintf(ctx, sizeof(ctx), "advice[%zu]", i);
		if (!json_object_is_type(e, json_type_object)) {
			rv = falcon_err_set(FALCON_ERR_PARSE, "%s: expected an object", ctx);
			goto fail;
		}
		if ((rv = jget(e, ctx, "workload", json_type_string, &v)) != FALCON_OK)
			goto fail;
		wl = json_object_get_string(v);
		if (json_object_object_get_ex(e, "baseline", &v) &&
		    json_object_is_type(v, json_type_string))
			base = json_object_get_string(v);
		if ((rv = jget(e, ctx, "topologies", json_type_array, &ts)) != FALCON_OK)
			goto fail;
		for (k = 0; k < json_object_array_length(ts) && cnt < cap; k++) {
			struct falcon_rrel *x = &r[cnt];
			int64_t jobs, med;

			t = json_object_array_get_idx(ts, k);
			snprintf(ctx, sizeof(ctx), "advice[%zu].topologies[%zu]", i, k);
			if (!json_object_is_type(t, json_type_object)) {
				rv = falcon_err_set(FALCON_ERR_PARSE, "%s: expected an object", ctx);
				goto fail;
			}
			if ((rv = jget(t, ctx, "topology", json_type_string, &v)) != FALCON_OK)
				goto fail;
			falcon_strlcpy(x->topo, json_object_get_string(v), sizeof(x->topo));
			if ((rv = jget(t, ctx, "jobs", json_type_int, &v)) != FALCON_OK)
				goto fail;
			jobs = json_object_get_int64(v);
			if ((rv = jget(t, ctx, "elapsed_median_s", json_type_int, &v)) != FALCON_OK)
				goto fail;
			med = json_object_get_int64(v);
			if (jobs < 0 || med < 0 || med > UINT32_MAX) {
				rv = falcon_err_set(FALCON_ERR_PARSE, "%s: jobs %lld, elapsed_median_s "
						    "%lld: expected counts >= 0", ctx, (long long)jobs,
						    (long long)med);
				goto fail;
			}
			if ((rv = jget(t, ctx, "relative", json_type_double, &v)) != FALCON_OK)
				goto fail;
			x->rel = json_object_get_double(v);
			x->jobs = (size_t)jobs;
			x->median = (uint32_t)med;
			falcon_strlcpy(x->workload, wl, sizeof(x->workload));
			falcon_strlcpy(x->baseline, base, sizeof(x->baseline));
			cnt++;
		}
	}
	*rows = r;
	*n = cnt;
	return FALCON_OK;
fail:
	free(r);
	return rv;
}
