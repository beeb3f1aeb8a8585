/*
 * job_submit_ctld.c - slurmctld's state as job_submit_falcon's decisions
 * read it (job_submit_ctld.h): partitions and their nodes, hostlists, the
 * licenses' totals, what a job could take now and what pending jobs claim.
 *
 * Built as job_submit_falcon.c is (plugin/job_submit.mk): against Slurm's
 * source tree, with Slurm's config.h and the -D flags of
 * m4/x_ac_slurm_source_api.m4.  slurmctld calls job_submit and job_modify
 * with at least the job and node read locks, which job_list and the node
 * table need; the license functions take the license mutex themselves.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

#include "job_submit_ctld.h"
#include "core/policy.h"

/* falcon_hostlist_t: Slurm's hostlist handle, a pointer in every release
 * (hostlist_t is the pointer up to 23.02, the struct from 23.11 on). */
#ifdef FALCON_HOSTLIST_IS_STRUCT
typedef hostlist_t *falcon_hostlist_t;
#else
typedef hostlist_t falcon_hostlist_t;
#endif

/* part_known - does slurmctld have this partition (to suggest it)? */
static bool part_known(const char *name)
{
	return find_part_record((char *)name) != NULL;
}

static const char *part_nodes(const char *partition, void *arg)
{
	part_record_t *p = find_part_record((char *)partition);

	(void)arg;
	return p != NULL ? p->nodes : NULL;
}

static size_t hosts_expand(const char *expr, char **names, size_t max, void *arg)
{
	falcon_hostlist_t hl = hostlist_create(expr);
	size_t n = 0;
	char *name;

	(void)arg;
	while (hl != NULL && n < max && (name = hostlist_shift(hl)) != NULL)
		names[n++] = name; /* malloc'd by hostlist_shift() */
	if (hl != NULL)
		hostlist_destroy(hl);
	return n;
}

/* lic_validate - license_validate() of every release: 25.05 added its hres
 * and fuzzy_match arguments (FALCON_LICENSE_VALIDATE_HRES from configure);
 * hres (a layer named "NAME(NODES)") when spec has a '(' (Slurm 26.05
 * licenses.c _build_license_list() reads the layer only then). */
#ifdef FALCON_LICENSE_VALIDATE_HRES
#define lic_validate(spec, cfg, exist, valid) \
	license_validate((spec), (cfg), (exist), (spec) != NULL && strchr((spec), '(') != NULL, \
			 NULL, (valid), NULL)
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

/* memo_find - the memo's entry of license name, added when new (NULL
 * without a memo or for a name too long for it: then nothing is
 * remembered). */
static struct jsf_memo_lic *memo_find(struct jsf_memo *m, const char *name)
{
	size_t i;

	if (m == NULL || strlen(name) >= sizeof(m->lic[0].name))
		return NULL;
	for (i = 0; i < m->nlic; i++)
		if (strcmp(m->lic[i].name, name) == 0)
			return &m->lic[i];
	if (m->nlic == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 16;
		xrecalloc(m->lic, m->cap, sizeof(*m->lic));
	}
	memset(&m->lic[m->nlic], 0, sizeof(m->lic[0]));
	strcpy(m->lic[m->nlic].name, name);
	m->lic[m->nlic].total = m->lic[m->nlic].free = LONG_MIN;
	return &m->lic[m->nlic++];
}

static long lic_total_read(const char *name);
static long lic_free_read(const char *name, long total);

/* lic_total - falcon_ctld_view's license_total, once per license and memo */
static long lic_total(const char *name, void *arg)
{
	struct jsf_memo_lic *e = memo_find(arg, name);

	if (e == NULL)
		return lic_total_read(name);
	if (e->total == LONG_MIN)
		e->total = lic_total_read(name);
	return e->total;
}

/* lic_total_read - the configured total of license name, -1 when there is
 * none: the largest count lic_fits() grants, doubled then bisected (no
 * reader of one total exists in 22.05); at most 2^31 (Slurm parses a count
 * as an int). */
static long lic_total_read(const char *name)
{
	long lo = 0, hi = 1, mid;
	bool exists = false;

	lic_fits(name, 0, &exists);
	if (!exists)
		return -1;
	while (hi < (1L << 31) && lic_fits(name, hi, NULL))
		hi *= 2;
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
 * spec_fits_now - would slurmctld grant the licenses spec ("a:2"; not
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

#ifdef FALCON_CLUSTER_LICENSE_COPY
/* hres_id_match - list_find_first() over a copy of slurmctld's licenses:
 * the entry of key's id (lic_id and hres_id: one HRES layer). */
static int hres_id_match(void *x, void *key)
{
	const licenses_t *a = x, *b = key;

	return a->id.lic_id == b->id.lic_id && a->id.hres_id == b->id.hres_id;
}

/* hres_free_read - how many of HRES layer name ("falcon_pool_gpu(n1,n2)")
 * a job could take now: the layer's total less what jobs use, as Slurm
 * 26.05's scheduler counts a MODE_3 layer (src/slurmctld/licenses.c
 * _foreach_hres_pre_select(): total - used, reservations not subtracted);
 * license_job_test() skips HRES entries, so spec_fits_now() cannot tell.
 * The layer found by license_validate() (its id), its counts in
 * cluster_license_copy() (copied under the license mutex).  0 for an
 * unknown layer. */
static long hres_free_read(const char *name)
{
	char *spec = xstrdup_printf("%s:1", name);
	__typeof__(lic_validate(NULL, false, false, NULL)) l, all;
	licenses_t *want, *have;
	bool valid = true;
	long n = 0;

	l = lic_validate(spec, false, true, &valid);
	xfree(spec);
	if (valid && l != NULL && (want = list_peek(l)) != NULL && (all = cluster_license_copy())) {
		if ((have = list_find_first(all, hres_id_match, want)) != NULL)
			n = have->total > have->used ? (long)(have->total - have->used) : 0;
		FREE_NULL_LIST(all);
	}
	FREE_NULL_LIST(l);
	return n;
}
#endif

/* lic_free - falcon_ctld_view's license_free, once per license and memo */
static long lic_free(const char *name, void *arg)
{
	struct jsf_memo_lic *e = memo_find(arg, name);

	if (e == NULL)
		return lic_free_read(name, lic_total(name, arg));
	if (e->free == LONG_MIN)
		e->free = lic_free_read(name, lic_total(name, arg));
	return e->free;
}

/* lic_free_read - how many of license name (total configured) a job could
 * take now (reservations such as falcond's quarantine counted as used):
 * the largest count spec_fits_now() grants, by bisection up to the total
 * (no reader of one license's use exists in all of 22.05 to 24.11); 0 for
 * an unknown license.  An HRES layer ("NAME(NODES)", Slurm 26.05):
 * hres_free_read(). */
static long lic_free_read(const char *name, long total)
{
	long lo = 0, hi = total, mid;
	char *spec;
	bool fits;

#ifdef FALCON_CLUSTER_LICENSE_COPY
	if (strchr(name, '(') != NULL)
		return hres_free_read(name);
#endif
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

/* A pending claim on one license: its name, the job not counted, the sum. */
struct claim {
	const char *name;
	uint32_t exclude;
	long sum;
};

/* claim_one - list_for_each() over slurmctld's job_list: a pending job's
 * count of license c->name (job_record_t licenses, "a:2,b:1"). */
static int claim_one(void *x, void *arg)
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

/* claim_all - list_for_each() over job_list: a pending job's count of each
 * pool license of the memo added to its entry (m->exclude not counted). */
static int claim_all(void *x, void *arg)
{
	job_record_t *j = x;
	struct jsf_memo *m = arg;
	size_t i;
	long n;

	if (!IS_JOB_PENDING(j) || j->job_id == m->exclude || j->licenses == NULL)
		return 0;
	for (i = 0; i < m->nlic; i++)
		if (m->lic[i].pool && (n = falcon_license_count(j->licenses, m->lic[i].name)) > 0)
			m->lic[i].pending += n;
	return 0;
}

/* lic_pending - falcon_ctld_view's license_pending: what pending jobs
 * other than exclude ask of license name (falcon_pool_fits() counts them
 * as taken).  For a pool license of the memo (jsf_memo_pools()), the first
 * call walks job_list once for all of them and the others are lookups;
 * else a walk for this license alone. */
static long lic_pending(const char *name, uint32_t exclude, void *arg)
{
	struct jsf_memo *m = arg;
	struct claim c = { name, exclude, 0 };
	size_t i;

	for (i = 0; m != NULL && i < m->nlic; i++) {
		if (!m->lic[i].pool || strcmp(m->lic[i].name, name) != 0)
			continue;
		if (m->walked && m->exclude != exclude)
			break;
		if (!m->walked) {
			m->exclude = exclude;
			if (job_list != NULL)
				list_for_each(job_list, claim_all, m);
			m->walked = true;
		}
		return m->lic[i].pending;
	}
	if (job_list != NULL)
		list_for_each(job_list, claim_one, &c);
	return c.sum;
}

void jsf_memo_pools(struct jsf_memo *m, const struct falcon_conf *fc)
{
	static const falcon_dev_type_t types[] = { FALCON_DEV_GPU, FALCON_DEV_NVME };
	struct jsf_memo_lic *e;
	char name[sizeof(m->lic[0].name)];
	size_t c, t;

	for (c = 0; fc != NULL && c < fc->nchassis; c++)
		for (t = 0; t < sizeof(types) / sizeof(types[0]); t++)
			if (falcon_license_name(fc->chassis[c].name, types[t], name,
						sizeof(name)) == FALCON_OK &&
			    (e = memo_find(m, name)) != NULL)
				e->pool = true;
}

void jsf_memo_free(struct jsf_memo *m)
{
	xfree(m->lic);
	memset(m, 0, sizeof(*m));
}

struct falcon_ctld_view jsf_ctld_view(struct jsf_memo *memo)
{
	struct falcon_ctld_view v = {
		.default_partition = default_part_name,
		.part_known = part_known,
		.part_nodes = part_nodes,
		.hostlist = hosts_expand,
		.license_total = lic_total,
		.license_free = lic_free,
		.license_pending = lic_pending,
		.arg = memo,
	};
	return v;
}

size_t jsf_ctld_nodes(const char *part, struct falcon_ctld_node **nodes)
{
	part_record_t *p = find_part_record((char *)part);
	node_record_t *np;
	size_t n = 0;
	int i;

	*nodes = xcalloc(node_record_count ? node_record_count : 1, sizeof(**nodes));
	for (i = 0; p != NULL && p->node_bitmap != NULL && (np = next_node(&i)); i++) {
		if (!bit_test(p->node_bitmap, np->index))
			continue;
		(*nodes)[n].name = np->name;
		(*nodes)[n].gres = np->gres;
		(*nodes)[n].gres_used = gres_get_node_used(np->gres_list);
		(*nodes)[n].up = !IS_NODE_DOWN(np) && !IS_NODE_DRAIN(np) && !IS_NODE_FAIL(np) &&
				 !IS_NODE_NO_RESPOND(np);
		n++;
	}
	return n;
}

void jsf_ctld_nodes_free(struct falcon_ctld_node *nodes, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char *used = (char *)nodes[i].gres_used;

		xfree(used);
	}
	xfree(nodes);
}
