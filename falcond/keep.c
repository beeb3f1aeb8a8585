/*
 * keep.c - devices kept warm on their node (keep.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "keep.h"
#include "core/log.h"
#include "core/util.h"

int falcond_keep_seconds(const struct falcon_conf *conf, const struct falcon_lease *l)
{
	return falcon_conf_partition(conf, l->partition[0] ? l->partition : NULL)->keep_warm;
}

long long falcond_keep_deadline(const struct falcon_conf *conf, const struct falcon_lease *l)
{
	if (!falcond_lease_kept(l))
		return 0;
	return l->kept_ms + falcond_keep_seconds(conf, l) * 1000LL;
}

/* check_bad - the prolog's tag (or a history text) says check=fail, warn
 * or error (jobtag.h's vocabulary). */
static bool check_bad(const char *check)
{
	static const char *const bad[] = { "check=fail", "check=warn", "check=error" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		const char *p = strstr(check, bad[i]);
		size_t n = strlen(bad[i]);

		if (p != NULL && (p[n] == '\0' || p[n] == ',' || p[n] == ';' || p[n] == ' '))
			return true;
	}
	return false;
}

bool falcond_keep_wanted(struct falcond_ledger *lg, const struct falcon_conf *conf,
			 const struct falcon_lease *l, const struct falcon_decompose_req *r)
{
	size_t i;

	if (!r->keep || strcmp(l->state, "active") != 0 || l->ndevs == 0 ||
	    falcond_keep_seconds(conf, l) <= 0 || check_bad(r->check))
		return false;
	for (i = 0; i < l->ndevs; i++)
		if (falcond_ledger_quarantined(lg, l->devs[i].chassis, l->devs[i].id) != NULL)
			return false;
	return true;
}

falcon_err_t falcond_keep_begin(struct falcond_ledger *lg, struct falcon_lease *l, long long now_ms)
{
	falcon_err_t rv = FALCON_OK;
	size_t i;

	for (i = 0; i < l->ndevs; i++)
		falcond_ledger_record_release(lg, l->id, &l->devs[i], "released; " FALCOND_KEEP_RESULT);
	falcon_strlcpy(l->state, "kept", sizeof(l->state));
	l->kept_ms = now_ms;
	for (i = 0; i < l->ndevs; i++)
		if (falcond_ledger_record_attach(lg, l, &l->devs[i]) != FALCON_OK)
			rv = FALCON_ERR_NOMEM;
	return rv == FALCON_OK ? rv : falcon_err_set(rv, "keep: lease %s: history", l->id);
}

/* count - l's devices of type t. */
static int count(const struct falcon_lease *l, falcon_dev_type_t t)
{
	int n = 0;
	size_t i;

	for (i = 0; i < l->ndevs; i++)
		n += l->devs[i].type == t;
	return n;
}

bool falcond_keep_serves(const struct falcon_conf *conf, const struct falcon_lease *l,
			 const struct falcon_compose_req *r, const char *host, bool any_user,
			 long long now_ms)
{
	bool mine = r->uid >= 0 && l->uid == r->uid;

	return falcond_lease_kept(l) && strcmp(l->host, host) == 0 &&
	       falcond_keep_deadline(conf, l) > now_ms && (mine || any_user);
}

falcon_err_t falcond_keep_give(struct falcond_ledger *lg, const char *chassis, const char *dev,
			       uint32_t job, long long now_ms, unsigned long long *idle_gpu_ms)
{
	struct falcon_lease *k = falcond_ledger_device_lease(lg, chassis, dev);
	char result[80];
	size_t i, j;

	if (idle_gpu_ms)
		*idle_gpu_ms = 0;
	if (k == NULL || !falcond_lease_kept(k))
		return falcon_err_set(FALCON_ERR_CONFLICT, "keep: %s/%s is kept no more", chassis,
				      dev);
	for (i = 0; i < k->ndevs && strcmp(k->devs[i].id, dev) != 0; i++)
		;
	snprintf(result, sizeof(result), FALCOND_KEEP_RESULT "; reused by job %u", job);
	falcond_ledger_record_release(lg, k->id, &k->devs[i], result);
	if (idle_gpu_ms && k->devs[i].type == FALCON_DEV_GPU && now_ms > k->kept_ms)
		*idle_gpu_ms = (unsigned long long)(now_ms - k->kept_ms);
	for (j = i; j + 1 < k->ndevs; j++)
		k->devs[j] = k->devs[j + 1];
	if (--k->ndevs == 0) {
		char id[FALCON_LEASE_ID_LEN];

		falcon_strlcpy(id, k->id, sizeof(id));
		falcond_ledger_remove_lease(lg, id);
	}
	return FALCON_OK;
}

struct falcon_lease *falcond_keep_find(struct falcond_ledger *lg, const struct falcon_conf *conf,
				       const struct falcon_compose_req *r, const char *host,
				       bool any_user, long long now_ms)
{
	struct falcon_lease *best = NULL;
	size_t i;

	for (i = 0; i < lg->nleases; i++) {
		struct falcon_lease *l = &lg->leases[i];
		bool mine = r->uid >= 0 && l->uid == r->uid;

		if (!falcond_keep_serves(conf, l, r, host, any_user, now_ms) ||
		    count(l, FALCON_DEV_GPU) < r->gpus || count(l, FALCON_DEV_NVME) < r->nvme)
			continue;
		if (best == NULL ||
		    (mine && best->uid != r->uid) ||
		    ((mine || best->uid != r->uid) && l->kept_ms < best->kept_ms))
			best = l;
	}
	return best;
}

unsigned long long falcond_keep_idle_ms(const struct falcon_lease *l, long long now_ms)
{
	if (!falcond_lease_kept(l) || now_ms <= l->kept_ms)
		return 0;
	return (unsigned long long)(now_ms - l->kept_ms) * (unsigned)count(l, FALCON_DEV_GPU);
}

falcon_err_t falcond_keep_take(struct falcond_ledger *lg, struct falcon_lease *k,
			       const struct falcon_compose_req *r, long long now_ms,
			       struct falcon_lease *out, unsigned long long *idle_gpu_ms)
{
	struct falcon_lease nl, left;
	int want_gpu = r->gpus, want_nvme = r->nvme;
	char result[80], kid[FALCON_LEASE_ID_LEN];
	unsigned long long idle = 0;
	falcon_err_t rv;
	size_t i;

	memset(&nl, 0, sizeof(nl));
	left = *k;
	left.ndevs = 0;
	nl.job_id = r->job_id;
	nl.uid = r->uid;
	nl.on_node = r->on_node;
	falcon_strlcpy(nl.host, k->host, sizeof(nl.host));
	falcon_strlcpy(nl.partition, r->partition, sizeof(nl.partition));
	nl.place = r->place_set ? r->place : k->place;
	falcon_strlcpy(nl.state, "active", sizeof(nl.state));
	nl.created_ms = now_ms;
	nl.reset = k->uid != r->uid;
	for (i = 0; i < k->ndevs; i++) {
		int *want = k->devs[i].type == FALCON_DEV_GPU ? &want_gpu
			    : k->devs[i].type == FALCON_DEV_NVME ? &want_nvme : NULL;

		if (want != NULL && *want > 0) {
			(*want)--;
			nl.devs[nl.ndevs++] = k->devs[i];
			if (k->devs[i].type == FALCON_DEV_GPU && now_ms > k->kept_ms)
				idle += (unsigned long long)(now_ms - k->kept_ms);
		} else {
			left.devs[left.ndevs++] = k->devs[i];
		}
	}
	if (want_gpu > 0 || want_nvme > 0 || nl.ndevs == 0)
		return falcon_err_set(FALCON_ERR_NORESOURCE, "keep: lease %s holds too few devices",
				      k->id);
	snprintf(result, sizeof(result), FALCOND_KEEP_RESULT "; reused by job %u", r->job_id);
	for (i = 0; i < nl.ndevs; i++)
		falcond_ledger_record_release(lg, k->id, &nl.devs[i], result);
	falcon_strlcpy(kid, k->id, sizeof(kid));
	if (left.ndevs == 0)
		falcond_ledger_remove_lease(lg, kid);
	else
		*k = left;
	do /* a seq below an id in the ledger is raised at load; be sure */
		snprintf(nl.id, sizeof(nl.id), "L-%llu", ++lg->seq);
	while (falcond_ledger_lease(lg, nl.id) != NULL);
	/* out of memory here leaves the devices in no lease: a reconcile
	 * detaches them as orphans */
	if ((rv = falcond_ledger_add_lease(lg, &nl)) != FALCON_OK)
		return rv;
	for (i = 0; i < nl.ndevs; i++)
		if (falcond_ledger_record_attach(lg, &nl, &nl.devs[i]) != FALCON_OK)
			falcon_warn("keep: lease %s: %s", nl.id, falcon_errmsg());
	*out = nl;
	if (idle_gpu_ms)
		*idle_gpu_ms = idle;
	return FALCON_OK;
}

long long falcond_keep_next(const struct falcond_ledger *lg, const struct falcon_conf *conf,
			    long long after_ms)
{
	long long next = 0;
	size_t i;

	for (i = 0; i < lg->nleases; i++) {
		long long d = falcond_keep_deadline(conf, &lg->leases[i]);

		if (d > after_ms && (next == 0 || d < next))
			next = d;
	}
	return next;
}

bool falcond_keep_useful(const struct falcon_lease *l, const struct falcond_keep_waiter *w,
			 bool any_user, const char **why)
{
	const char *no = NULL;

	if (!any_user && (w->uid < 0 || w->uid != l->uid))
		no = "no job of its user waits for chassis devices on the host (no KeepWarmReset=)";
	else if (!((w->gpus > 0 && count(l, FALCON_DEV_GPU) > 0) ||
		   (w->nvme > 0 && count(l, FALCON_DEV_NVME) > 0)))
		no = "no job waiting on the host asks a device of the kind kept";
	if (why != NULL)
		*why = no;
	return no == NULL;
}

void falcond_keep_pool(struct falcond_ledger *lg, const struct falcon_lease *l,
		       const struct falcon_host_conf *h, const struct falcond_reach *r,
		       const struct falcon_inventory *inv, struct falcond_keep_pool *pool)
{
	const char *chassis = l->ndevs > 0 ? l->devs[0].chassis : "";
	size_t i;

	memset(pool, 0, sizeof(*pool));
	for (i = 0; i < inv->n; i++) {
		const struct falcon_device *d = &inv->devs[i];
		const struct falcon_lease *k = falcond_ledger_device_lease(lg, chassis, d->id);
		bool gpu = d->type == FALCON_DEV_GPU;

		if ((!gpu && d->type != FALCON_DEV_NVME) ||
		    falcond_ledger_quarantined(lg, chassis, d->id) != NULL ||
		    strcasecmp(d->health, "Critical") == 0 || strcasecmp(d->state, "Absent") == 0 ||
		    falcond_port_for(h, d->drawer, r) == NULL)
			continue;
		if (k == NULL ? d->owner[0] == '\0' : strcmp(k->state, "closing") == 0)
			(*(gpu ? &pool->free_gpus : &pool->free_nvme))++;
	}
}

/* before - Slurm serves waiter a before b: a configuring job first, then
 * the higher priority, then the lower job id. */
static bool before(const struct falcond_keep_waiter *a, const struct falcond_keep_waiter *b)
{
	if (a->configuring != b->configuring)
		return a->configuring;
	if (a->priority != b->priority)
		return a->priority > b->priority;
	return a->job_id < b->job_id;
}

/* leased - job holds a lease of lg: composed, it waits no more. */
static bool leased(const struct falcond_ledger *lg, uint32_t job)
{
	size_t j;

	for (j = 0; j < lg->nleases; j++)
		if (lg->leases[j].job_id == job)
			return true;
	return false;
}

/*
 * short_of - whether the jobs of w[0..n) that keep l does not serve (and
 * that hold no lease of lg) ask together more of a kind l holds than pool
 * has free (falcond_keep_for).
 */
static bool short_of(const struct falcond_ledger *lg, const struct falcon_lease *l,
		     const struct falcond_keep_waiter *w, size_t n, bool any_user,
		     const struct falcond_keep_pool *pool)
{
	long g = 0, v = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (leased(lg, w[i].job_id) || falcond_keep_useful(l, &w[i], any_user, NULL))
			continue;
		g += w[i].gpus > 0 ? w[i].gpus : 0;
		v += w[i].nvme > 0 ? w[i].nvme : 0;
	}
	return (count(l, FALCON_DEV_GPU) > 0 && g > pool->free_gpus) ||
	       (count(l, FALCON_DEV_NVME) > 0 && v > pool->free_nvme);
}

const struct falcond_keep_waiter *falcond_keep_for(const struct falcond_ledger *lg,
						   const struct falcon_lease *l,
						   const struct falcond_keep_waiter *w, size_t n,
						   bool any_user, const struct falcond_keep_pool *pool,
						   const char **why)
{
	const struct falcond_keep_waiter *best = NULL;
	const char *no = "no job waits for chassis devices on the host", *one;
	size_t i;

	for (i = 0; i < n; i++) {
		if (leased(lg, w[i].job_id))
			continue;
		if (!falcond_keep_useful(l, &w[i], any_user, &one)) {
			no = one;
			continue;
		}
		if (best == NULL || before(&w[i], best))
			best = &w[i];
	}
	if (best != NULL && pool != NULL && short_of(lg, l, w, n, any_user, pool)) {
		best = NULL;
		no = "jobs waiting that it does not serve ask more than the chassis has free: "
		     "one would release it in its compose";
	}
	if (why != NULL)
		*why = best == NULL ? no : NULL;
	return best;
}
