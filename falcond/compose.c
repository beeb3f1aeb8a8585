/*
 * compose.c - the compose: a chain of steps over a per-request context
 * (compose.h; the ledger protocol: state.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compose.h"
#include "detach.h"
#include "inventory.h"
#include "keep.h"
#include "policy.h"
#include "slurmjob.h"
#include "core/log.h"
#include "core/util.h"

/*
 * One compose attempt as a chain of steps over a per-request context, each
 * step returning FALCON_OK to go on, with one cleanup (compose_end) -- the
 * shape of munge's enc_process_msg.  Locks, in the order taken:
 *   compose_resolve   none
 *   compose_repeat    waits (st->lock) for a compose of the same job on the
 *                     host in progress, then ch->lock, and st->lock inside
 *                     it; on a repeat ch->lock is dropped before waiting
 *                     for the commit
 *   compose_pick      ch->lock (st->lock briefly, for the ledger and cache;
 *                     read_lock when the cache is too old)
 *   compose_record    ch->lock and st->lock: the lease in memory, live
 *                     (x->recorded, x->live from here); ch->lock dropped,
 *                     st->lock for its commit
 *   compose_attach    each port's lock for its request: composes on other
 *                     ports of the chassis go on meanwhile
 *   compose_activate  st->lock: "active", no more live, its commit
 *   compose_rollback  the ports' locks (falcond_release_lease), st->lock
 *   compose_end       drops ch->lock if still held, the live mark if still
 *                     set, frees the context.
 */
struct compose_ctx {
	struct falcond_state *st;
	const struct falcon_compose_req *r;
	struct falcon_lease *out;         /* the caller's answer */
	bool *retry;                      /* set: place again (a port learnt not cabled) */
	const struct falcon_host_conf *h; /* r->host in falcon.conf */
	struct falcond_chassis *ch;       /* h's chassis */
	falcon_place_t place;
	bool ch_locked;                   /* ch->lock held */
	bool live;                        /* l.id in ch's live set */
	bool answered;                    /* a repeat, answered from its lease */
	bool recorded;                    /* l is in the ledger: roll it back on failure */
	struct falcon_inventory inv;      /* owned */
	struct falcond_slot *slots;       /* owned, one per inv device */
	size_t picks[FALCON_PROTO_MAX_DEVS];
	struct falcon_lease l;            /* the lease being made */
	bool sent[FALCON_PROTO_MAX_DEVS]; /* l.devs[i] may be attached: a rollback detaches it */
	size_t npre;                      /* picks[0..npre) are kept warm on the host
					   * (keep.h): attached already, taken from
					   * their kept lease at the record */
	size_t nown;                      /* picks[npre..npre+nown) are the job's own,
					   * left in flight on the host by a dead
					   * falcond (own) */
	bool pre[FALCON_PROTO_MAX_DEVS];  /* l.devs[i] is attached already */
	bool own[FALCON_PROTO_MAX_DEVS];  /* l.devs[i] is taken from the job's own
					   * in-flight lease at the record */
	long long t0_ms;                  /* falcon_now_ms() when the attempt began */
};

/* compose_resolve - host, policy, place and chassis of the request (no lock). */
static falcon_err_t compose_resolve(struct compose_ctx *x)
{
	const struct falcon_compose_req *r = x->r;
	const struct falcon_partition_conf *part;
	falcon_err_t rv;

	x->h = falcon_conf_host(x->st->conf, r->host);
	if (x->h == NULL)
		return falcon_err_set(FALCON_ERR_NOTFOUND, "compose: host %s is not in falcon.conf",
				      r->host);
	part = falcon_conf_partition(x->st->conf, r->partition[0] ? r->partition : NULL);
	rv = falcond_policy_check(part, r);
	if (rv != FALCON_OK)
		return rv;
	x->place = r->place_set ? r->place : part->place;
	x->ch = falcond_chassis_of(x->st, x->h->chassis);
	if (x->ch == NULL)
		return falcon_err_set(FALCON_ERR_CONFIG,
				      "compose: host %s names chassis %s, not defined",
				      x->h->name, x->h->chassis);
	return FALCON_OK;
}

/*
 * compose_repeat - the same job on the same host again (a prolog retry):
 * a compose of it still in progress is waited for (within the caller's
 * budget: FALCON_ERR_TIMEOUT past it), then the same lease is answered
 * (x->answered) only once the write that made it active is durable (it
 * became active at a generation <= st->gen, see compose_activate).
 * Another lease of the job on the host is FALCON_ERR_CONFLICT; one a dead
 * falcond left in flight is not counted: its devices are this compose's
 * first picks (own).  Takes ch->lock, kept unless a repeat.
 */
static falcon_err_t compose_repeat(struct compose_ctx *x)
{
	struct falcond_state *st = x->st;
	const struct falcon_compose_req *r = x->r;
	struct falcon_lease *old;
	falcon_err_t rv = FALCON_OK;
	size_t i;

	for (;;) {
		bool done;

		pthread_mutex_lock(&st->lock);
		done = falcond_live_wait(st, x->ch, r->job_id, r->host, r->deadline_ms);
		pthread_mutex_unlock(&st->lock);
		if (!done)
			return falcon_err_set(FALCON_ERR_TIMEOUT, "compose: job %u on %s: the "
					      "caller's budget passed while its earlier compose "
					      "was still in progress", r->job_id, r->host);
		pthread_mutex_lock(&x->ch->lock);
		x->ch_locked = true;
		pthread_mutex_lock(&st->lock);
		if (!falcond_live_job(st, x->ch, r->job_id, r->host))
			break;
		pthread_mutex_unlock(&st->lock);
		pthread_mutex_unlock(&x->ch->lock);
		x->ch_locked = false;
	}
	for (i = 0, old = NULL; i < st->ledger->nleases && old == NULL; i++) {
		struct falcon_lease *l = &st->ledger->leases[i];

		if (l->job_id == r->job_id && strcmp(l->host, r->host) == 0 &&
		    !falcond_lease_in_flight(l) && !falcond_lease_kept(l))
			old = l;
	}
	if (old != NULL && strcmp(old->state, "active") == 0 &&
	    (int)old->ndevs == r->gpus + r->nvme) {
		unsigned long long want;
		char id[FALCON_LEASE_ID_LEN];

		/* the node's prolog asks for PrologSlurmctld's lease: from now
		 * on only the node epilog closes it (decompose off_node skips
		 * it), written before the answer lets the prolog rescan */
		if (r->on_node && !old->on_node) {
			old->on_node = true;
			++st->gen;
		}
		want = st->gen;
		falcon_strlcpy(id, old->id, sizeof(id));
		pthread_mutex_unlock(&x->ch->lock);
		x->ch_locked = false;
		rv = falcond_commit_upto_locked(st, want);
		/* the write failed, or the lease was rolled back meanwhile */
		old = rv == FALCON_OK ? falcond_ledger_lease(st->ledger, id) : NULL;
		if (old != NULL && strcmp(old->state, "active") == 0)
			*x->out = *old;
		else if (rv == FALCON_OK)
			rv = falcon_err_set(FALCON_ERR_IO, "compose: lease %s of job %u was rolled "
					    "back before it was written", id, r->job_id);
		x->answered = true;
	} else if (old != NULL) {
		rv = falcon_err_set(FALCON_ERR_CONFLICT,
				    "compose: job %u already has lease %s (%s) on %s",
				    r->job_id, old->id, old->state, r->host);
	}
	pthread_mutex_unlock(&st->lock);
	return rv;
}

/*
 * compose_reuse - devices kept warm on the host (keep.h) that serve the
 * request are the answer, with no chassis request: a new lease of them,
 * active, written before the answer (x->answered) (ch->lock held: a
 * reconcile cannot release the kept lease meanwhile; takes st->lock).
 * Nothing kept that fits: FALCON_OK and the compose goes on.
 */
static falcon_err_t compose_reuse(struct compose_ctx *x)
{
	struct falcond_state *st = x->st;
	const struct falcon_compose_req *r = x->r;
	unsigned long long idle = 0, gen;
	struct falcon_lease *k;
	char from[FALCON_LEASE_ID_LEN];
	long long kept_ms;
	falcon_err_t rv;

	pthread_mutex_lock(&st->lock);
	k = falcond_keep_find(st->ledger, st->conf, r, x->h->name,
			      st->conf->keep_warm_reset != NULL, falcond_now_ms());
	if (k == NULL || falcond_live_has(x->ch, k->id)) {
		pthread_mutex_unlock(&st->lock);
		return FALCON_OK;
	}
	falcon_strlcpy(from, k->id, sizeof(from));
	kept_ms = k->kept_ms;
	rv = falcond_keep_take(st->ledger, k, r, falcond_now_ms(), x->out, &idle);
	if (rv != FALCON_OK) {
		pthread_mutex_unlock(&st->lock);
		return rv;
	}
	x->ch->idle_gpu_ms += idle;
	st->kept_reused++;
	gen = ++st->gen;
	pthread_mutex_unlock(&x->ch->lock);
	x->ch_locked = false;
	rv = falcond_commit_upto_locked(st, gen);
	pthread_mutex_unlock(&st->lock);
	x->answered = true;
	if (rv != FALCON_OK)
		return rv; /* the lease stays in memory: the prolog's retry is answered from it */
	falcon_info("lease %s: job %u on %s: %zu device(s) kept warm in lease %s for %.1f s, "
		    "reused%s; no chassis request", x->out->id, r->job_id, r->host, x->out->ndevs,
		    from, (double)(falcond_now_ms() - kept_ms) / 1000.0,
		    x->out->reset ? " by another user (KeepWarmReset= first)" : "");
	return FALCON_OK;
}

/* compose_slots - x->slots from x->inv (falcond_place_slots) (ch->lock
 * held; takes st->lock).  FALCON_ERR_NOMEM. */
static falcon_err_t compose_slots(struct compose_ctx *x)
{
	struct falcond_state *st = x->st;
	falcon_err_t rv;

	pthread_mutex_lock(&st->lock);
	rv = falcond_place_slots(st->ledger, st->conf, x->ch->cc->name, x->h, &x->ch->reach,
				 &x->inv, &x->slots);
	pthread_mutex_unlock(&st->lock);
	return rv;
}

/* compose_lease - x->l, "composing", from the picked devices (ch->lock
 * held; takes st->lock). */
static void compose_lease(struct compose_ctx *x)
{
	const struct falcon_compose_req *r = x->r;
	struct falcon_lease *l = &x->l;
	size_t i;

	memset(l, 0, sizeof(*l));
	pthread_mutex_lock(&x->st->lock); /* x->ch->reach */
	l->job_id = r->job_id;
	l->uid = r->uid;
	l->on_node = r->on_node;
	falcon_strlcpy(l->host, x->h->name, sizeof(l->host));
	falcon_strlcpy(l->partition, r->partition, sizeof(l->partition));
	l->place = x->place;
	falcon_strlcpy(l->state, "composing", sizeof(l->state));
	l->created_ms = falcond_now_ms();
	l->ndevs = (size_t)(r->gpus + r->nvme);
	for (i = 0; i < l->ndevs; i++) {
		const struct falcon_device *d = x->slots[x->picks[i]].dev;
		struct falcon_lease_dev *ld = &l->devs[i];

		falcon_strlcpy(ld->chassis, x->ch->cc->name, sizeof(ld->chassis));
		falcon_strlcpy(ld->id, d->id, sizeof(ld->id));
		if (i < x->npre + x->nown) {
			/* kept warm, or the job's own left in flight: on the
			 * port its lease names (attached there, or the late
			 * attach of a dead falcond lands there) */
			const struct falcon_lease *k = falcond_ledger_device_lease(
				x->st->ledger, x->ch->cc->name, d->id);
			size_t j;

			for (j = 0; k != NULL && j < k->ndevs; j++)
				if (strcmp(k->devs[j].id, d->id) == 0)
					falcon_strlcpy(ld->port, k->devs[j].port, sizeof(ld->port));
			x->own[i] = i >= x->npre;
			x->pre[i] = !x->own[i] || d->owner[0] != '\0';
		} else {
			falcon_strlcpy(ld->port, falcond_port_for(x->h, d->drawer, &x->ch->reach),
				       sizeof(ld->port));
		}
		ld->drawer = d->drawer;
		ld->slot = d->slot;
		ld->type = d->type;
		falcon_strlcpy(ld->vendor_id, d->vendor_id, sizeof(ld->vendor_id));
		falcon_strlcpy(ld->device_id, d->device_id, sizeof(ld->device_id));
		falcon_strlcpy(ld->serial, d->serial, sizeof(ld->serial));
	}
	pthread_mutex_unlock(&x->st->lock);
}

/* evict_helps - kept lease l holds a device of a type the request asks
 * that the host reaches (a port of it cabled to the device's drawer):
 * releasing it may let this compose place (st->lock held). */
static bool evict_helps(const struct compose_ctx *x, const struct falcon_lease *l)
{
	size_t i;

	for (i = 0; i < l->ndevs; i++)
		if (((l->devs[i].type == FALCON_DEV_GPU && x->r->gpus > 0) ||
		     (l->devs[i].type == FALCON_DEV_NVME && x->r->nvme > 0)) &&
		    falcond_port_for(x->h, l->devs[i].drawer, &x->ch->reach) != NULL)
			return true;
	return false;
}

/*
 * compose_evict - the kept lease of the chassis kept longest (keep.h) among
 * those holding a device this compose could use (evict_helps) is
 * released for this compose, which lacks free devices: Slurm counts kept
 * devices as free, so the job holding their license gets them (never
 * starve another node).  A keep of nothing it could use is left alone:
 * releasing an NVMe keep for a GPU job took the NVMe from the job it was
 * kept for and gave nothing (make bench-warm, mixed trace at 5 s a PATCH:
 * p95 time-to-start 18.8 s kept against 10.1 s off).  It is live while its devices are detached, with
 * ch->lock given up (a detach takes the chassis' seconds; the chassis'
 * other composes, reuses among them, go on), then committed; ch->lock is
 * held again on return (takes st->lock).  Returns false when none is kept
 * (ch->lock kept throughout).
 */
static bool compose_evict(struct compose_ctx *x)
{
	struct falcond_state *st = x->st;
	char id[FALCON_LEASE_ID_LEN] = "", why[96];
	long long now = falcond_now_ms(), oldest = 0;
	size_t i;

	pthread_mutex_lock(&st->lock);
	for (i = 0; i < st->ledger->nleases; i++) {
		const struct falcon_lease *l = &st->ledger->leases[i];

		/* not one this compose takes devices from (kept) */
		if (falcond_lease_kept(l) && l->ndevs > 0 &&
		    strcmp(l->devs[0].chassis, x->ch->cc->name) == 0 &&
		    !falcond_live_has(x->ch, l->id) &&
		    !falcond_keep_serves(st->conf, l, x->r, x->h->name,
					 st->conf->keep_warm_reset != NULL, now) &&
		    evict_helps(x, l) && (id[0] == '\0' || l->kept_ms < oldest)) {
			falcon_strlcpy(id, l->id, sizeof(id));
			oldest = l->kept_ms;
		}
	}
	/* live: no other compose, reuse or reconcile touches it meanwhile */
	if (id[0] != '\0' && falcond_live_add(x->ch, id)) {
		x->ch->idle_gpu_ms += falcond_keep_idle_ms(falcond_ledger_lease(st->ledger, id), now);
		st->kept_evicted++;
	} else {
		id[0] = '\0';
	}
	pthread_mutex_unlock(&st->lock);
	if (id[0] == '\0')
		return false;
	falcon_info("lease %s: kept warm; released for job %u on %s, short of free devices", id,
		    x->r->job_id, x->r->host);
	snprintf(why, sizeof(why), FALCOND_KEEP_RESULT "; released for job %u", x->r->job_id);
	/* the detach takes a chassis' seconds: the other composes of the
	 * chassis (a reuse among them) go on meanwhile */
	pthread_mutex_unlock(&x->ch->lock);
	x->ch_locked = false;
	falcond_release_lease(st, x->ch, id, why, NULL);
	pthread_mutex_lock(&st->lock);
	falcond_live_del(st, x->ch, id);
	falcond_commit_locked(st);
	pthread_mutex_unlock(&st->lock);
	pthread_mutex_lock(&x->ch->lock);
	x->ch_locked = true;
	return true;
}

/* a device's lease that picks() takes devices from (st->lock held) */
typedef bool pick_fn(struct compose_ctx *x, const struct falcon_device *d,
		     const struct falcon_lease *k);

/*
 * picks - the devices of inv whose lease takes() accepts (never a live
 * lease's, nor a quarantined one), up to the request's GPUs and NVMe less
 * *g and *v, into x->picks[at..), counted into *g and *v; how many (ch->lock
 * held; takes st->lock).
 */
static size_t picks(struct compose_ctx *x, int *g, int *v, size_t at, pick_fn *takes)
{
	struct falcond_state *st = x->st;
	size_t i, n0 = at;

	pthread_mutex_lock(&st->lock);
	for (i = 0; i < x->inv.n; i++) {
		const struct falcon_device *d = &x->inv.devs[i];
		const struct falcon_lease *k = falcond_ledger_device_lease(st->ledger,
									  x->ch->cc->name, d->id);
		int *n = d->type == FALCON_DEV_GPU ? g : d->type == FALCON_DEV_NVME ? v : NULL;
		int want = d->type == FALCON_DEV_GPU ? x->r->gpus : x->r->nvme;

		if (n == NULL || *n >= want || k == NULL || x->slots[i].quarantined ||
		    falcond_live_has(x->ch, k->id) || !takes(x, d, k))
			continue;
		x->picks[at++] = i;
		(*n)++;
	}
	pthread_mutex_unlock(&st->lock);
	return at - n0;
}

/* kept - d is kept warm on the host and may serve this compose
 * (falcond_keep_serves). */
static bool kept(struct compose_ctx *x, const struct falcon_device *d,
		 const struct falcon_lease *k)
{
	(void)d;
	return falcond_keep_serves(x->st->conf, k, x->r, x->h->name,
				   x->st->conf->keep_warm_reset != NULL, falcond_now_ms());
}

/*
 * own - d is of the job's own compose on this host that a dead falcond
 * left in flight ("composing" or "settling"; picks() leaves out this
 * process's live ones), free or attached to the port that compose used:
 * the prolog's retry of that very request.  Without this, the settling
 * lease (state.h) held them SettleTime= and more while the job's retry was
 * refused FALCON_ERR_NORESOURCE, until its prolog requeued it as
 * pool_short (make soak-fleet, 64 nodes: 15 requeues after falcond
 * SIGKILLs).  Taking them is safe where settling guards against a late
 * attach: the dead request attaches to the port this compose uses for the
 * same job.  A device attached to another port is left to the settle.
 */
static bool own(struct compose_ctx *x, const struct falcon_device *d,
		const struct falcon_lease *k)
{
	size_t j;

	if (k->job_id != x->r->job_id || strcmp(k->host, x->h->name) != 0 ||
	    !falcond_lease_in_flight(k))
		return false;
	for (j = 0; j < k->ndevs && strcmp(k->devs[j].id, d->id) != 0; j++)
		;
	return j < k->ndevs && (d->owner[0] == '\0' || strcmp(d->owner, k->devs[j].port) == 0);
}

/* compose_pick - inventory, placement, the lease to make (ch->lock held):
 * devices kept warm on the host first, then the job's own left in flight
 * by a dead falcond (picks), the rest placed; short
 * of free devices, kept ones elsewhere are released (compose_evict) one
 * lease at a time until the placement succeeds or none is kept, or until
 * less of the caller's budget is left than a release took
 * (FALCON_ERR_NORESOURCE: its retry attaches them). */
static falcon_err_t compose_pick(struct compose_ctx *x)
{
	falcon_err_t rv;
	int g = 0, v = 0;
	long long t0;

	for (;;) {
		rv = falcond_chassis_inventory(x->st, x->ch, &x->inv, false);
		if (rv == FALCON_OK)
			rv = compose_slots(x);
		if (rv == FALCON_OK) {
			/* kept warm on the host first (keep.h): a job asking
			 * for more than one keep holds, or for a mix of keeps,
			 * pays only for what is missing; then its own devices
			 * left in flight by a dead falcond (own); the rest
			 * placed around them and attached */
			g = v = 0;
			x->npre = picks(x, &g, &v, 0, kept);
			x->nown = picks(x, &g, &v, x->npre, own);
			rv = falcond_place(x->slots, x->inv.n, x->h->name, x->ch->cc->mode, x->place,
					   x->r->gpus - g, x->r->nvme - v,
					   x->picks + x->npre + x->nown);
		}
		t0 = falcon_now_ms();
		if (rv != FALCON_ERR_NORESOURCE ||
		    (x->r->deadline_ms && t0 >= x->r->deadline_ms) || !compose_evict(x))
			break;
		/* a release took a chassis change: the attach needs about as
		 * long; with less of the caller's budget left it would time out
		 * and roll back (make bench-warm, L = 20 s): the devices are
		 * free now, the caller's next try gets them with a whole budget */
		if (x->r->deadline_ms && x->r->deadline_ms - falcon_now_ms() < falcon_now_ms() - t0) {
			rv = falcon_err_set(FALCON_ERR_NORESOURCE, "compose: job %u on %s: kept "
					    "devices released for it in %.1f s, too little of the "
					    "caller's budget left to attach; try again",
					    x->r->job_id, x->r->host,
					    (double)(falcon_now_ms() - t0) / 1000.0);
			break;
		}
		free(x->slots);
		x->slots = NULL;
		falcon_inventory_free(&x->inv);
	}
	if (rv == FALCON_OK)
		compose_lease(x);
	return rv;
}

/*
 * compose_in_time - the caller is still waiting: its budget
 * (r->deadline_ms, FALCON_PROTO_BUDGET_HEADER) has not passed while this
 * compose waited for the chassis (its placement behind a reconcile, or its
 * port behind another compose's request there) or read it.  Past it,
 * nothing more is sent (nor recorded, before the record): FALCON_ERR_TIMEOUT,
 * so that no lease is made that nobody waits for.
 */
static falcon_err_t compose_in_time(struct compose_ctx *x)
{
	long long late = x->r->deadline_ms ? falcon_now_ms() - x->r->deadline_ms : 0;

	if (late <= 0)
		return FALCON_OK;
	return falcon_err_set(FALCON_ERR_TIMEOUT, "compose: job %u on %s: the caller's budget "
			      "passed %lld ms ago while waiting for chassis %s; nothing sent",
			      x->r->job_id, x->r->host, late, x->ch->cc->name);
}

/* in_time_cb - compose_in_time() as falcond_port_change()'s in_time. */
static falcon_err_t in_time_cb(void *x)
{
	return compose_in_time(x);
}

/*
 * take_own - device d of the lease being made out of the job's own lease
 * that a dead falcond left in flight (own), that lease dropped once
 * empty (st->lock and ch->lock held: a reconcile's settle has not changed
 * it since the pick).  FALCON_ERR_CONFLICT when it is no longer there.
 */
static falcon_err_t take_own(struct compose_ctx *x, const struct falcon_lease_dev *d)
{
	struct falcon_lease *k = falcond_ledger_device_lease(x->st->ledger, d->chassis, d->id);
	size_t i;

	if (k == NULL || k->job_id != x->r->job_id || !falcond_lease_in_flight(k))
		return falcon_err_set(FALCON_ERR_CONFLICT, "compose: %s/%s: the in-flight lease "
				      "of job %u holds it no more", d->chassis, d->id,
				      x->r->job_id);
	for (i = 0; i < k->ndevs && strcmp(k->devs[i].id, d->id) != 0; i++)
		;
	for (; i + 1 < k->ndevs; i++)
		k->devs[i] = k->devs[i + 1];
	if (--k->ndevs == 0) {
		char id[FALCON_LEASE_ID_LEN];

		falcon_strlcpy(id, k->id, sizeof(id));
		falcond_ledger_remove_lease(x->st->ledger, id);
	}
	return FALCON_OK;
}

/*
 * compose_record - step 1, intent before action: the lease gets its id,
 * its devices are held from now on (other composes place around them once
 * ch->lock is dropped here), it is live (no reconcile judges it until it
 * is active or gone), and it is written ("composing") before any chassis
 * request (takes st->lock; ch->lock dropped before the write).  A crash
 * after the write leaves the intent in the file: the restarted falcond
 * settles it (state.h) even when the dead process's attach lands late.
 * The write failing is FALCON_ERR_IO, the lease dropped again (nothing
 * was sent).
 */
static falcon_err_t compose_record(struct compose_ctx *x)
{
	struct falcond_state *st = x->st;
	falcon_err_t rv;
	size_t i;

	pthread_mutex_lock(&st->lock);
	rv = FALCON_OK;
	for (i = 0; i < x->l.ndevs && rv == FALCON_OK; i++) {
		unsigned long long idle = 0;

		if (x->own[i]) {
			/* out of the job's own in-flight lease; a rollback
			 * detaches it if its late attach landed */
			rv = take_own(x, &x->l.devs[i]);
			x->sent[i] = rv == FALCON_OK && x->pre[i];
			continue;
		}
		if (!x->pre[i])
			continue;
		/* kept warm: out of its kept lease, attached already */
		rv = falcond_keep_give(st->ledger, x->ch->cc->name, x->l.devs[i].id, x->r->job_id,
				       falcond_now_ms(), &idle);
		x->ch->idle_gpu_ms += idle;
		x->sent[i] = rv == FALCON_OK;
	}
	if (x->nown > 0 && rv == FALCON_OK)
		falcon_info("job %u on %s: %zu device(s) of its compose that a dead falcond left "
			    "in flight taken over (%s)", x->r->job_id, x->r->host, x->nown,
			    x->nown < x->l.ndevs ? "the rest placed" : "no other device");
	if (x->npre > 0 && rv == FALCON_OK) {
		st->kept_reused++;
		falcon_info("job %u on %s: %zu of %zu device(s) kept warm on the host, reused; %s",
			    x->r->job_id, x->r->host, x->npre, x->l.ndevs,
			    x->npre < x->l.ndevs ? "the rest attached" : "no chassis request");
	}
	st->ledger->seq++;
	snprintf(x->l.id, sizeof(x->l.id), "L-%llu", st->ledger->seq);
	if (rv == FALCON_OK)
		rv = falcond_ledger_add_lease(st->ledger, &x->l);
	if (rv == FALCON_OK)
		x->live = falcond_live_add(x->ch, x->l.id);
	pthread_mutex_unlock(&x->ch->lock);
	x->ch_locked = false;
	if (rv == FALCON_OK) {
		rv = falcond_commit_locked(st);
		if (rv != FALCON_OK)
			falcond_ledger_remove_lease(st->ledger, x->l.id);
	}
	pthread_mutex_unlock(&st->lock);
	if (rv == FALCON_OK)
		x->recorded = true;
	return rv;
}

/*
 * attach_refused - the chassis refused to attach device d of the lease to
 * its port: placement learns from a fresh read whether the port is not
 * cabled to d's drawer (falcond_place_refused), and places again (takes
 * read_lock, then st->lock).
 */
static void attach_refused(struct compose_ctx *x, const struct falcon_lease_dev *d)
{
	struct falcon_inventory now = { .devs = NULL };

	if (falcond_chassis_inventory(x->st, x->ch, &now, true) == FALCON_OK) {
		pthread_mutex_lock(&x->st->lock);
		falcond_place_refused(&x->ch->reach, x->ch->cc->name, &now, d);
		pthread_mutex_unlock(&x->st->lock);
	}
	falcon_inventory_free(&now);
	*x->retry = true;
}

/*
 * attach_ids - attach ids[n] (devices of x->l) to port as one set
 * (falcond_port_change, falcon_chassis_attach_set: one zone PATCH, all or
 * nothing; a device someone else already gave the port is refused).  Marks
 * each in x->sent unless the chassis refused before anything was sent
 * (FALCON_ERR_CONFLICT: in another zone, or already in this one: a
 * rollback detaching it would take it from whoever has it).  A single
 * device refused (mode rule, taken) goes to attach_refused.
 */
static falcon_err_t attach_ids(struct compose_ctx *x, const char *port, const char **ids,
			       size_t n)
{
	struct falcond_chassis *ch = x->ch;
	char detail[1024];
	falcon_err_t rv;
	bool sent;
	size_t i, k;

	/* in time: it may have waited for another compose's request on the
	 * port; the budget's deadline ends a task followed */
	rv = falcond_port_change(x->st, ch, port, FALCOND_ATTACH, ids, n, x->r->deadline_ms,
				 in_time_cb, x, &sent);
	if (!sent)
		return rv;
	for (i = 0; i < x->l.ndevs; i++)
		for (k = 0; k < n; k++)
			if (strcmp(x->l.devs[i].id, ids[k]) == 0)
				x->sent[i] = rv != FALCON_ERR_CONFLICT;
	if (rv == FALCON_OK)
		return rv;
	snprintf(detail, sizeof(detail), "%s", falcon_errmsg());
	for (i = 0; n == 1 && i < x->l.ndevs; i++)
		if ((rv == FALCON_ERR_POLICY || rv == FALCON_ERR_CONFLICT) &&
		    strcmp(x->l.devs[i].id, ids[0]) == 0)
			attach_refused(x, &x->l.devs[i]);
	return falcon_err_set(rv, "compose: attach %s%s of %s to %s: %s", ids[0],
			      n > 1 ? " and the others" : "", ch->cc->name, port, detail);
}

/*
 * compose_attach - step 2, the devices of each port in one request
 * (attach_ids); a set the chassis refuses (a mode rule, a device someone
 * took) is tried device by device so that the one refused is known
 * (attach_refused) (no lock held: each port's lock for its request).
 */
static falcon_err_t compose_attach(struct compose_ctx *x)
{
	size_t i, k;

	for (i = 0; i < x->l.ndevs; i++) {
		const char *port = x->l.devs[i].port;
		const char *ids[FALCON_CHASSIS_SET_MAX];
		size_t n;
		falcon_err_t rv;

		bool need[FALCON_PROTO_MAX_DEVS];

		if (!falcond_lease_port_first(&x->l, i))
			continue;
		for (k = 0; k < x->l.ndevs; k++)
			need[k] = !x->pre[k]; /* kept warm: attached already */
		n = falcond_lease_port_set(&x->l, port, need, ids);
		if (n == 0)
			continue;
		rv = attach_ids(x, port, ids, n);
		if (rv == FALCON_OK)
			continue;
		if (n == 1 || (rv != FALCON_ERR_POLICY && rv != FALCON_ERR_CONFLICT))
			return rv;
		falcon_verbose("%s: one by one", falcon_errmsg());
		for (k = 0; k < n; k++)
			if ((rv = attach_ids(x, port, &ids[k], 1)) != FALCON_OK)
				return rv;
	}
	return FALCON_OK;
}

/*
 * compose_activate - step 3, "active" in memory at a new generation (a
 * repeated compose that finds it waits for that one), no more live,
 * *x->out set; then (step 4) the ledger write covering it (group commit).
 * When that write failed, the caller rolls back.
 */
static falcon_err_t compose_activate(struct compose_ctx *x)
{
	struct falcond_state *st = x->st;
	struct falcon_lease *lp;
	unsigned long long gen;
	falcon_err_t rv;
	size_t i;

	pthread_mutex_lock(&st->lock);
	lp = falcond_ledger_lease(st->ledger, x->l.id);
	falcon_strlcpy(lp->state, "active", sizeof(lp->state));
	for (i = 0; i < x->l.ndevs; i++)
		falcond_ledger_record_attach(st->ledger, lp, &lp->devs[i]);
	*x->out = *lp;
	gen = ++st->gen;
	if (x->live)
		falcond_live_del(st, x->ch, x->l.id);
	x->live = false;
	/* 4. acknowledge only once it is written */
	rv = falcond_commit_upto_locked(st, gen);
	pthread_mutex_unlock(&st->lock);
	if (rv != FALCON_OK)
		return rv;
	x->recorded = false; /* durable: nothing to roll back */
	falcon_info("lease %s: job %u on %s: %zu device(s) on %s (%s) in %.2f s", x->l.id,
		    x->l.job_id, x->l.host, x->l.ndevs, x->ch->cc->name, falcon_place_str(x->place),
		    (double)(falcon_now_ms() - x->t0_ms) / 1000.0);
	return FALCON_OK;
}

/*
 * compose_rollback - a recorded lease whose compose failed with rv: detach
 * its devices (the failed attach too: it may have half happened), close
 * and drop it, commit (no lock held: the ports' locks for the detaches,
 * then st->lock).  Returns rv with "(rolled back)" added to the message.
 */
static falcon_err_t compose_rollback(struct compose_ctx *x, falcon_err_t rv)
{
	struct falcond_state *st = x->st;
	char detail[1024];
	int nq;

	snprintf(detail, sizeof(detail), "%s", falcon_errmsg());
	if (x->ch_locked) {
		pthread_mutex_unlock(&x->ch->lock);
		x->ch_locked = false;
	}
	nq = falcond_release_lease(st, x->ch, x->l.id, "rolled back", x->sent);
	x->recorded = false;
	pthread_mutex_lock(&st->lock);
	if (x->live)
		falcond_live_del(st, x->ch, x->l.id);
	x->live = false;
	st->rolled_back++;
	falcond_commit_locked(st);
	pthread_mutex_unlock(&st->lock);
	falcon_warn("lease %s: compose failed (%s); rolled back%s", x->l.id, detail,
		    nq ? ", device(s) quarantined" : "");
	return falcon_err_set(rv, "%s (rolled back%s)", detail,
			      nq ? "; a device whose detach failed is quarantined" : "");
}

/* compose_end - the cleanup of every attempt: ch->lock if held, the live
 * mark if set, memory. */
static void compose_end(struct compose_ctx *x)
{
	if (x->ch_locked)
		pthread_mutex_unlock(&x->ch->lock);
	x->ch_locked = false;
	if (x->live) {
		pthread_mutex_lock(&x->st->lock);
		falcond_live_del(x->st, x->ch, x->l.id);
		pthread_mutex_unlock(&x->st->lock);
		x->live = false;
	}
	free(x->slots);
	x->slots = NULL;
	falcon_inventory_free(&x->inv);
}

/*
 * compose_alive - FALCON_ERR_NOTFOUND when Slurm has ended the job since
 * this compose was asked: its PrologSlurmctld is dead, and a lease made
 * now would wait for the reconcile (make soak-fleet's fifth hour: 10 such
 * composes, caught in ch->lock's queue when EpilogSlurmctld asked).  Known
 * two ways:
 * - EpilogSlurmctld's decompose off_node marked the job
 *   (falcond_job_ended_since);
 * - the asker has gone (r->asker_gone: its connection closed) and Slurm
 *   says the run has ended (falcond_slurm_job_run_ended, an RPC, asked only
 *   then), for slurmctld may kill EpilogSlurmctld too: a job cancelled in
 *   CONFIGURING has its scripts flushed (slurmscriptd FLUSH_JOB) just
 *   before EpilogSlurmctld is started, and slurmscriptd serves each
 *   request in a thread of its own, so the flush can find and SIGKILL the
 *   epilog (Slurm 22.05 to 26.05 src/slurmctld/job_mgr.c job_signal,
 *   slurmscriptd.c _handle_accept; CI saw it once).  The job is marked
 *   ended then, as EpilogSlurmctld would have.  A prolog gone on its own
 *   timeout leaves a job CONFIGURING: served.
 * Not asked of a node prolog's compose (on_node), nor without asked_ms.
 */
static falcon_err_t compose_alive(struct compose_ctx *x)
{
	const struct falcon_compose_req *r = x->r;
	bool ended;

	if (r->on_node || r->asked_ms <= 0)
		return FALCON_OK;
	pthread_mutex_lock(&x->st->lock);
	ended = falcond_job_ended_since(x->st, r->job_id, r->asked_ms);
	pthread_mutex_unlock(&x->st->lock);
	if (ended)
		return falcon_err_set(FALCON_ERR_NOTFOUND, "compose: job %u on %s ended (its "
				      "EpilogSlurmctld ran) after this compose was asked",
				      r->job_id, r->host);
	if (r->asker_gone == NULL || !r->asker_gone(r->asker) ||
	    falcond_slurm_job_run_ended(x->st, r->job_id) != 1)
		return FALCON_OK;
	pthread_mutex_lock(&x->st->lock);
	falcond_job_ended_mark(x->st, r->job_id);
	pthread_mutex_unlock(&x->st->lock);
	return falcon_err_set(FALCON_ERR_NOTFOUND, "compose: job %u on %s ended (Slurm's word, "
			      "its PrologSlurmctld gone) while this compose ran", r->job_id,
			      r->host);
}

/*
 * compose_once - one attempt of falcond_compose: *out on FALCON_OK; *retry
 * set when placing again may succeed (a port learnt not cabled).
 */
static falcon_err_t compose_once(struct falcond_state *st, const struct falcon_compose_req *r,
				 struct falcon_lease *out, bool *retry)
{
	struct compose_ctx x = { .st = st, .r = r, .out = out, .retry = retry,
				 .inv = { .devs = NULL }, .t0_ms = falcon_now_ms() };
	falcon_err_t rv;

	if ((rv = compose_resolve(&x)) == FALCON_OK &&
	    (rv = compose_repeat(&x)) == FALCON_OK && !x.answered &&
	    (rv = compose_alive(&x)) == FALCON_OK &&
	    (rv = compose_reuse(&x)) == FALCON_OK && !x.answered &&
	    (rv = compose_pick(&x)) == FALCON_OK &&
	    (rv = compose_in_time(&x)) == FALCON_OK &&
	    (rv = compose_record(&x)) == FALCON_OK &&
	    (rv = compose_attach(&x)) == FALCON_OK &&
	    (rv = compose_alive(&x)) == FALCON_OK)
		rv = compose_activate(&x);
	if (rv != FALCON_OK && x.recorded)
		rv = compose_rollback(&x, rv);
	compose_end(&x);
	return rv;
}

falcon_err_t falcond_compose(struct falcond_state *st, const struct falcon_compose_req *r,
			     struct falcon_lease *out)
{
	falcon_err_t rv = FALCON_OK;
	bool retry = true;
	int tries;

	/* a refusal teaches which (port, drawer) pairs are not cabled: at
	 * most one per port and drawer, so a few tries settle it, each within
	 * the caller's budget (compose_in_time) */
	for (tries = 0; tries < 2 * FALCON_MAX_PORTS && retry; tries++) {
		retry = false;
		rv = compose_once(st, r, out, &retry);
		if (rv == FALCON_OK)
			break;
	}
	return rv;
}
