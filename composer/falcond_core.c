/*
 * falcond_core.c - falcond's decisions against the chassis: compose with
 * rollback, decompose, reconcile (ledger x chassis x Slurm), quarantine.
 * (Status and metrics, which only read the state: falcond_status.c.)
 * Changes to one chassis are serialized by its mutex (struct
 * falcond_chassis.lock); st->lock guards the ledger, caches and metrics
 * and is always taken after a chassis lock, never before.
 *
 * Ledger protocol (what makes a crash safe): intent before action.
 *   compose:   lease added ("composing": its devices are held) and
 *              committed -> attach -> "active" -> chassis unlocked ->
 *              group commit of the ledger -> answer.
 *   decompose: "closing" committed -> detach -> lease dropped in memory ->
 *              commit -> answer.
 *   A crash leaves in the file what was in flight.  A "composing" lease
 *   found by a reconcile was left by a dead falcond (a live compose holds
 *   ch->lock, which reconcile takes): it becomes "settling", its devices
 *   stay held, and every reconcile detaches those the chassis shows
 *   attached (the dead process's PATCH may land late) until SettleTime
 *   passes with none attached; then it is dropped (rolled back).  A
 *   "closing" one is released again.  A device attached that no lease
 *   names is detached, a lease whose devices are gone closed.  Nothing
 *   answered is lost, since every answer waits for its commit.  A detach
 *   that fails quarantines the device (committed at once) with the reason.
 *   Reconcile runs at start, every ReconcileInterval (falcond_reconciler),
 *   when a chassis answers again after failing, on SIGHUP and on demand.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef HAVE_SLURM
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include "slurm_compat.h"
#endif

#include "falcond.h"
#include "falcond_resv.h"
#include "core/log.h"
#include "core/util.h"

falcon_err_t falcond_state_init(struct falcond_state *st)
{
	size_t i;

	pthread_condattr_t ca;

	pthread_mutex_init(&st->lock, NULL);
	pthread_cond_init(&st->saved, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&st->wake, &ca);
	pthread_condattr_destroy(&ca);
	st->nchassis = st->conf->nchassis;
	st->ch = calloc(st->nchassis ? st->nchassis : 1, sizeof(*st->ch));
	if (st->ch == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "falcond: chassis table");
	for (i = 0; i < st->nchassis; i++) {
		st->ch[i].cc = &st->conf->chassis[i];
		pthread_mutex_init(&st->ch[i].lock, NULL);
	}
	return FALCON_OK;
}

void falcond_state_fini(struct falcond_state *st)
{
	size_t i;

	for (i = 0; i < st->nchassis; i++) {
		falcon_chassis_close(st->ch[i].client);
		if (st->ch[i].have_last)
			falcon_inventory_free(&st->ch[i].last);
		pthread_mutex_destroy(&st->ch[i].lock);
	}
	free(st->ch);
	st->ch = NULL;
	pthread_cond_destroy(&st->saved);
	pthread_cond_destroy(&st->wake);
	pthread_mutex_destroy(&st->lock);
}

static struct falcond_chassis *chassis_of(struct falcond_state *st, const char *name)
{
	size_t i;

	for (i = 0; i < st->nchassis; i++)
		if (strcmp(st->ch[i].cc->name, name) == 0)
			return &st->ch[i];
	return NULL;
}

static void count_chassis_error(struct falcond_state *st, falcon_err_t e)
{
	pthread_mutex_lock(&st->lock);
	if (e > 0 && e < FALCON_ERR_MAX)
		st->chassis_errors[e]++;
	pthread_mutex_unlock(&st->lock);
}

/* may_land_late - a change that failed with e may still be carried out by
 * the chassis (it was sent, no answer came): a reconcile must look again. */
static bool may_land_late(falcon_err_t e)
{
	return e == FALCON_ERR_TIMEOUT || e == FALCON_ERR_TRANSPORT || e == FALCON_ERR_SERVER;
}

/* ch_client - the chassis' client, opened on first use (ch->lock held). */
static falcon_err_t ch_client(struct falcond_state *st, struct falcond_chassis *ch)
{
	falcon_err_t rv;

	if (ch->client != NULL)
		return FALCON_OK;
	rv = falcon_chassis_open(ch->cc, &ch->client);
	if (rv != FALCON_OK)
		count_chassis_error(st, rv);
	else
		falcond_desc_open(st, ch);
	return rv;
}

/* inv_copy - a deep copy of src into dst (dst->n = 0 when out of memory). */
static void inv_copy(struct falcon_inventory *dst, const struct falcon_inventory *src)
{
	dst->n = 0;
	dst->devs = NULL;
	if (src->n == 0)
		return;
	dst->devs = malloc(src->n * sizeof(*dst->devs));
	if (dst->devs != NULL) {
		memcpy(dst->devs, src->devs, src->n * sizeof(*dst->devs));
		dst->n = src->n;
	}
}

/*
 * ch_inventory - the chassis inventory into *inv (caller frees) (ch->lock
 * held).  With fresh false, the last read (a compose's or a reconcile's)
 * is reused while younger than InventoryReuse (falcon.conf(5)) and no
 * error happened since: falcond itself changes owners only under ch->lock
 * and records them (ch_set_owner).  A change made behind its back is safe
 * either way: a device attached to another host is refused by the chassis
 * (one PCIe device, one host port: 409), which marks the cache stale and
 * places again from a fresh read (attach_refused); a device freed is not
 * used until the next read (the periodic reconcile reads every
 * ReconcileInterval).  A read that fails marks the chassis down; the next
 * one that works kicks the reconcile thread (falcond_reconciler).
 */
static falcon_err_t ch_inventory(struct falcond_state *st, struct falcond_chassis *ch,
				 struct falcon_inventory *inv, bool fresh)
{
	struct falcon_inventory copy = { 0, NULL };
	falcon_err_t rv;

	if (!fresh && ch->have_last && !ch->stale &&
	    falcon_now_ms() - ch->last_ms < st->conf->inventory_reuse * 1000LL) {
		pthread_mutex_lock(&st->lock);
		inv_copy(inv, &ch->last);
		pthread_mutex_unlock(&st->lock);
		if (inv->n == ch->last.n)
			return FALCON_OK;
		falcon_inventory_free(inv);
	}
	rv = ch_client(st, ch);
	if (rv == FALCON_OK) {
		falcond_desc_before_read(st, ch);
		rv = falcon_chassis_inventory(ch->client, inv);
	}
	if (rv == FALCON_OK)
		falcond_desc_after_read(st, ch);
	if (rv != FALCON_OK) {
		count_chassis_error(st, rv);
		ch->stale = true;
		ch->down = true;
		return rv;
	}
	inv_copy(&copy, inv);
	pthread_mutex_lock(&st->lock);
	if (ch->down) {
		/* what failed may have landed meanwhile: reconcile soon */
		falcon_info("chassis %s answers again: reconcile", ch->cc->name);
		ch->down = false;
		st->kick = true;
		pthread_cond_signal(&st->wake);
	}
	if (ch->have_last)
		falcon_inventory_free(&ch->last);
	ch->last = copy;
	ch->have_last = true;
	ch->last_ms = falcon_now_ms();
	ch->stale = copy.n != inv->n;
	pthread_mutex_unlock(&st->lock);
	return FALCON_OK;
}

/* ch_set_owner - record in the cached inventory that dev is on port ("" = free). */
static void ch_set_owner(struct falcond_state *st, struct falcond_chassis *ch, const char *dev,
			 const char *port)
{
	size_t i;

	pthread_mutex_lock(&st->lock);
	for (i = 0; ch->have_last && i < ch->last.n; i++)
		if (strcmp(ch->last.devs[i].id, dev) == 0)
			falcon_strlcpy(ch->last.devs[i].owner, port, sizeof(ch->last.devs[i].owner));
	pthread_mutex_unlock(&st->lock);
}

/* in_flight - a lease a dead falcond left in flight, being settled (only
 * reconcile sees a live one: a compose holds ch->lock until it is active). */
static bool in_flight(const struct falcon_lease *l)
{
	return strcmp(l->state, "composing") == 0 || strcmp(l->state, "settling") == 0;
}

/* host_of_port - the HostName cabled to port of chassis, or NULL. */
static const char *host_of_port(const struct falcon_conf *conf, const char *chassis,
				const char *port)
{
	size_t i;
	int p;

	for (i = 0; i < conf->nhosts; i++) {
		if (strcmp(conf->hosts[i].chassis, chassis) != 0)
			continue;
		for (p = 0; p < conf->hosts[i].nports; p++)
			if (strcmp(conf->hosts[i].ports[p], port) == 0)
				return conf->hosts[i].name;
	}
	return NULL;
}

/*
 * commit_upto_locked - make every ledger change up to generation want
 * durable (st->lock held on entry and on return; dropped while writing).
 * Group commit: the thread that finds no write in progress writes the whole
 * ledger as it is (falcon_write_file_atomic: temp, fsync, rename, fsync of
 * the directory) for everyone who changed it before; the others wait for
 * that write.  FALCON_ERR_IO (logged) when the write covering want failed.
 */
static falcon_err_t commit_upto_locked(struct falcond_state *st, unsigned long long want)
{
	falcon_err_t rv = FALCON_OK;

	while (st->saved_gen < want) {
		if (st->saving) {
			pthread_cond_wait(&st->saved, &st->lock);
			if (!st->saving && st->saved_gen < want && st->failed_gen >= want)
				return falcon_err_set(FALCON_ERR_IO, "ledger %s: write failed",
						      st->ledger->path);
			continue;
		}
		{
			unsigned long long target = st->gen;
			char *text = falcond_ledger_text(st->ledger);

			st->saving = true;
			pthread_mutex_unlock(&st->lock);
			rv = text ? falcon_write_file_atomic(st->ledger->path, text, strlen(text), 0600)
				  : falcon_err_set(FALCON_ERR_NOMEM, "ledger: serialise");
			free(text);
			if (rv != FALCON_OK)
				falcon_error("ledger: %s", falcon_errmsg());
			pthread_mutex_lock(&st->lock);
			st->saving = false;
			if (rv == FALCON_OK)
				st->saved_gen = target;
			else
				st->failed_gen = target;
			pthread_cond_broadcast(&st->saved);
			if (rv != FALCON_OK)
				return rv;
		}
	}
	return FALCON_OK;
}

/* commit_locked - a new ledger change (the caller's, made under st->lock)
 * made durable: commit_upto_locked() of a new generation. */
static falcon_err_t commit_locked(struct falcond_state *st)
{
	return commit_upto_locked(st, ++st->gen);
}

/*
 * detach_or_quarantine - take d back; on failure quarantine it with the
 * reason (st->lock not held; ch->lock held).  Returns the detach result.
 */
static falcon_err_t detach_or_quarantine(struct falcond_state *st, struct falcond_chassis *ch,
					 const char *port, const char *dev, const char *why)
{
	falcon_err_t rv = ch_client(st, ch);
	char reason[256];

	if (rv == FALCON_OK) {
		ch->detaches++;
		rv = falcon_chassis_detach(ch->client, port, dev);
	}
	if (rv == FALCON_OK) {
		ch_set_owner(st, ch, dev, "");
		return rv;
	}
	count_chassis_error(st, rv);
	ch->down |= may_land_late(rv);
	snprintf(reason, sizeof(reason), "detach from %s failed during %s: %s", port, why,
		 falcon_errmsg());
	falcon_error("%s/%s: %s; quarantined", ch->cc->name, dev, reason);
	ch->stale = true;
	pthread_mutex_lock(&st->lock);
	if (falcond_ledger_quarantine(st->ledger, ch->cc->name, dev, reason) == FALCON_OK)
		st->quarantined_total++;
	/* Held in memory either way; if the ledger write fails, a restart
	 * forgets the quarantine but finds the device attached without a lease
	 * and its reconcile detaches (or quarantines) it again. */
	if (commit_locked(st) != FALCON_OK)
		falcon_error("%s/%s: quarantine not written to the ledger: %s",
			     ch->cc->name, dev, falcon_errmsg());
	pthread_mutex_unlock(&st->lock);
	falcond_resv_kick(st, false);
	return rv;
}

/* a lease's devices on one port fit one set */
_Static_assert(FALCON_CHASSIS_SET_MAX >= FALCON_PROTO_MAX_DEVS, "FALCON_CHASSIS_SET_MAX");

/* port_first - devs[i] is the first device of l on its port. */
static bool port_first(const struct falcon_lease *l, size_t i)
{
	size_t k;

	for (k = 0; k < i; k++)
		if (strcmp(l->devs[k].port, l->devs[i].port) == 0)
			return false;
	return true;
}

/* port_set - the ids of l's devices on port into ids (as many as l has),
 * only those with sent[i] set unless sent is NULL; returns how many. */
static size_t port_set(const struct falcon_lease *l, const char *port, const bool *sent,
		       const char **ids)
{
	size_t i, n = 0;

	for (i = 0; i < l->ndevs && n < FALCON_CHASSIS_SET_MAX; i++)
		if (strcmp(l->devs[i].port, port) == 0 && (sent == NULL || sent[i]))
			ids[n++] = l->devs[i].id;
	return n;
}

/*
 * detach_port - take back every device of l on port (those with sent[i]
 * set, unless sent is NULL) in one request (falcon_chassis_detach_set:
 * one zone PATCH); when that fails, each on its own with
 * detach_or_quarantine, so that only a device that will not come off is
 * quarantined (ch->lock held, st->lock not).  Returns the number
 * quarantined.
 */
static int detach_port(struct falcond_state *st, struct falcond_chassis *ch,
		       const struct falcon_lease *l, const char *port, const bool *sent,
		       const char *why)
{
	const char *ids[FALCON_CHASSIS_SET_MAX];
	size_t i, n = port_set(l, port, sent, ids);
	falcon_err_t rv;
	int nq = 0;

	if (n == 0) /* a rollback's device that was never sent */
		return 0;
	rv = ch_client(st, ch);

	if (rv == FALCON_OK && n > 1) {
		ch->detaches++;
		rv = falcon_chassis_detach_set(ch->client, port, ids, n);
		if (rv == FALCON_OK) {
			for (i = 0; i < n; i++)
				ch_set_owner(st, ch, ids[i], "");
			return 0;
		}
		count_chassis_error(st, rv);
		ch->down |= may_land_late(rv);
		ch->stale = true;
		falcon_warn("%s: detach of %zu devices from %s during %s: %s; one by one",
			    ch->cc->name, n, port, why, falcon_errmsg());
	}
	for (i = n; i-- > 0;)
		if (detach_or_quarantine(st, ch, port, ids[i], why) != FALCON_OK)
			nq++;
	return nq;
}

/*
 * release_lease - detach every device of lease id (only those with sent[i]
 * set when sent is not NULL: a compose's rollback leaves alone a device
 * whose attach was refused before anything was sent, e.g. one someone else
 * had given the host), close its history with result and drop it from the
 * ledger in memory (ch->lock held, st->lock not); the caller commits.  A
 * crash before the commit leaves the lease in the file with devices
 * detached: reconcile closes it.  Returns the number of devices
 * quarantined.
 */
static int release_lease(struct falcond_state *st, struct falcond_chassis *ch, const char *id,
			 const char *result, const bool *sent)
{
	struct falcon_lease l, *lp;
	int nq = 0;
	size_t i;

	pthread_mutex_lock(&st->lock);
	lp = falcond_ledger_lease(st->ledger, id);
	if (lp == NULL) {
		pthread_mutex_unlock(&st->lock);
		return 0;
	}
	if (strcmp(lp->state, "composing") != 0)
		falcon_strlcpy(lp->state, "closing", sizeof(lp->state));
	l = *lp;
	pthread_mutex_unlock(&st->lock);
	for (i = 0; i < l.ndevs; i++)
		if (port_first(&l, i))
			nq += detach_port(st, ch, &l, l.devs[i].port, sent, result);
	pthread_mutex_lock(&st->lock);
	for (i = 0; i < l.ndevs; i++) {
		bool q = falcond_ledger_quarantined(st->ledger, l.devs[i].chassis,
						    l.devs[i].id) != NULL;

		falcond_ledger_record_release(st->ledger, l.id, &l.devs[i],
					      q ? "quarantined" : result);
	}
	falcond_ledger_remove_lease(st->ledger, l.id);
	pthread_mutex_unlock(&st->lock);
	return nq;
}

/* noreach - has the chassis refused port as not cabled to drawer? (ch->lock) */
static bool noreach(void *ctx, const char *port, int drawer)
{
	const struct falcond_chassis *ch = ctx;
	size_t i;

	for (i = 0; i < ch->nnoreach; i++)
		if (ch->noreach[i].drawer == drawer && strcmp(ch->noreach[i].port, port) == 0)
			return falcon_now_ms() < ch->noreach[i].until_ms;
	return false;
}

/* learn_noreach - remember that port cannot take devices of drawer (ch->lock). */
static void learn_noreach(struct falcond_chassis *ch, const char *port, int drawer)
{
	size_t i;

	for (i = 0; i < ch->nnoreach; i++)
		if (ch->noreach[i].drawer == drawer && strcmp(ch->noreach[i].port, port) == 0)
			break;
	if (i == ARRAY_SIZE(ch->noreach))
		return;
	if (i == ch->nnoreach) {
		falcon_strlcpy(ch->noreach[i].port, port, sizeof(ch->noreach[0].port));
		ch->noreach[i].drawer = drawer;
		ch->nnoreach++;
	}
	ch->noreach[i].until_ms = falcon_now_ms() + FALCOND_NOREACH_MS;
	falcon_warn("chassis %s: port %s refused a free device of drawer %d: not cabled; "
		    "not used there for %d min", ch->cc->name, port, drawer, FALCOND_NOREACH_MS / 60000);
}

/*
 * One compose attempt as a chain of steps over a per-request context, each
 * step returning FALCON_OK to go on, with one cleanup (compose_end) -- the
 * shape of munge's enc_process_msg.  Locks, in the order taken:
 *   compose_resolve   none
 *   compose_repeat    ch->lock, then st->lock inside it; on a repeat
 *                     ch->lock is dropped before waiting for the commit
 *   compose_pick      ch->lock (st->lock briefly, for the ledger and cache)
 *   compose_record    ch->lock (st->lock briefly): x->recorded from here
 *   compose_attach    ch->lock
 *   compose_activate  ch->lock then st->lock; both dropped, then st->lock
 *                     alone for the commit; ch->lock taken again when the
 *                     commit failed (the rollback needs it)
 *   compose_rollback  ch->lock (dropped inside), then st->lock for the commit
 *   compose_end       drops ch->lock if still held, frees the context.
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
	bool answered;                    /* a repeat, answered from its lease */
	bool recorded;                    /* l is in the ledger: roll it back on failure */
	struct falcon_inventory inv;      /* owned */
	struct falcond_slot *slots;       /* owned, one per inv device */
	size_t picks[FALCON_PROTO_MAX_DEVS];
	struct falcon_lease l;            /* the lease being made */
	bool sent[FALCON_PROTO_MAX_DEVS]; /* l.devs[i] may be attached: a rollback detaches it */
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
	x->ch = chassis_of(x->st, x->h->chassis);
	if (x->ch == NULL)
		return falcon_err_set(FALCON_ERR_CONFIG,
				      "compose: host %s names chassis %s, not defined",
				      x->h->name, x->h->chassis);
	return FALCON_OK;
}

/*
 * compose_repeat - the same job on the same host again (a prolog retry):
 * the same lease, answered (x->answered) only once the write that made it
 * active is durable (it became active at a generation <= st->gen, see
 * compose_activate).  Another lease of the job on the host is
 * FALCON_ERR_CONFLICT; one a dead falcond left in flight is not counted:
 * it keeps its devices until settled and the job gets others.  Takes
 * ch->lock, kept unless a repeat.
 */
static falcon_err_t compose_repeat(struct compose_ctx *x)
{
	struct falcond_state *st = x->st;
	const struct falcon_compose_req *r = x->r;
	struct falcon_lease *old;
	falcon_err_t rv = FALCON_OK;

	size_t i;

	pthread_mutex_lock(&x->ch->lock);
	x->ch_locked = true;
	pthread_mutex_lock(&st->lock);
	for (i = 0, old = NULL; i < st->ledger->nleases && old == NULL; i++) {
		struct falcon_lease *l = &st->ledger->leases[i];

		if (l->job_id == r->job_id && strcmp(l->host, r->host) == 0 && !in_flight(l))
			old = l;
	}
	if (old != NULL && strcmp(old->state, "active") == 0 &&
	    (int)old->ndevs == r->gpus + r->nvme) {
		unsigned long long want = st->gen;
		char id[FALCON_LEASE_ID_LEN];

		falcon_strlcpy(id, old->id, sizeof(id));
		pthread_mutex_unlock(&x->ch->lock);
		x->ch_locked = false;
		rv = commit_upto_locked(st, want);
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
 * compose_slots - x->slots from x->inv: who holds each device (a lease's
 * host, or the host cabled to the port it is attached to), quarantined,
 * reachable from x->h (ch->lock held; takes st->lock).  FALCON_ERR_NOMEM.
 */
static falcon_err_t compose_slots(struct compose_ctx *x)
{
	struct falcond_state *st = x->st;
	const struct falcon_inventory *inv = &x->inv;
	const char *cn = x->ch->cc->name;
	size_t i;

	x->slots = calloc(inv->n ? inv->n : 1, sizeof(*x->slots));
	if (x->slots == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "compose");
	pthread_mutex_lock(&st->lock);
	for (i = 0; i < inv->n; i++) {
		const struct falcon_device *d = &inv->devs[i];
		const struct falcon_lease *ol = falcond_ledger_device_lease(st->ledger, cn, d->id);
		struct falcond_slot *s = &x->slots[i];

		s->dev = d;
		s->quarantined = falcond_ledger_quarantined(st->ledger, cn, d->id) != NULL;
		if (ol != NULL)
			s->holder = falcon_conf_host(st->conf, ol->host)
					    ? falcon_conf_host(st->conf, ol->host)->name : "?";
		else if (d->owner[0])
			s->holder = host_of_port(st->conf, cn, d->owner) ?: "(unknown host)";
		s->unreachable = falcond_port_for(x->h, d->drawer, noreach, x->ch) == NULL;
	}
	pthread_mutex_unlock(&st->lock);
	return FALCON_OK;
}

/* compose_lease - x->l, "composing", from the picked devices (ch->lock held). */
static void compose_lease(struct compose_ctx *x)
{
	const struct falcon_compose_req *r = x->r;
	struct falcon_lease *l = &x->l;
	size_t i;

	memset(l, 0, sizeof(*l));
	l->job_id = r->job_id;
	l->uid = r->uid;
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
		falcon_strlcpy(ld->port, falcond_port_for(x->h, d->drawer, noreach, x->ch),
			       sizeof(ld->port));
		ld->drawer = d->drawer;
		ld->slot = d->slot;
		ld->type = d->type;
		falcon_strlcpy(ld->vendor_id, d->vendor_id, sizeof(ld->vendor_id));
		falcon_strlcpy(ld->device_id, d->device_id, sizeof(ld->device_id));
		falcon_strlcpy(ld->serial, d->serial, sizeof(ld->serial));
	}
}

/* compose_pick - inventory, placement, the lease to make (ch->lock held). */
static falcon_err_t compose_pick(struct compose_ctx *x)
{
	falcon_err_t rv;

	rv = ch_inventory(x->st, x->ch, &x->inv, false);
	if (rv == FALCON_OK)
		rv = compose_slots(x);
	if (rv == FALCON_OK)
		rv = falcond_place(x->slots, x->inv.n, x->h->name, x->ch->cc->mode, x->place,
				   x->r->gpus, x->r->nvme, x->picks);
	if (rv == FALCON_OK)
		compose_lease(x);
	return rv;
}

/*
 * compose_record - step 1, intent before action: the lease gets its id,
 * its devices are held from now on, and it is written ("composing")
 * before any chassis request (ch->lock held, so no reconcile sees it until
 * it is active or gone; takes st->lock).  A crash after the write leaves
 * the intent in the file: the restarted falcond settles it (see the top of
 * this file) even when the dead process's attach lands late.  The write
 * failing is FALCON_ERR_IO, the lease dropped again (nothing was sent).
 */
static falcon_err_t compose_record(struct compose_ctx *x)
{
	struct falcond_state *st = x->st;
	falcon_err_t rv;

	pthread_mutex_lock(&st->lock);
	st->ledger->seq++;
	snprintf(x->l.id, sizeof(x->l.id), "L-%llu", st->ledger->seq);
	rv = falcond_ledger_add_lease(st->ledger, &x->l);
	if (rv == FALCON_OK) {
		rv = commit_locked(st);
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
 * its port: not cabled, the mode, or someone took it.  Placement keeps to
 * the mode rules the chassis applies (falcond_place.c), so when the device
 * is still free the port is not cabled to its drawer: remember that (for
 * FALCOND_NOREACH_MS) and place again (ch->lock held).
 */
static void attach_refused(struct compose_ctx *x, const struct falcon_lease_dev *d)
{
	struct falcon_inventory now = { 0, NULL };
	bool free_now = false;
	size_t k;

	if (falcon_chassis_inventory(x->ch->client, &now) == FALCON_OK)
		for (k = 0; k < now.n; k++)
			if (strcmp(now.devs[k].id, d->id) == 0)
				free_now = now.devs[k].owner[0] == '\0';
	falcon_inventory_free(&now);
	if (free_now)
		learn_noreach(x->ch, d->port, d->drawer);
	*x->retry = true;
}

/*
 * attach_ids - attach ids[n] (devices of x->l) to port as one set
 * (falcon_chassis_attach_set: one zone PATCH, all or nothing; a device
 * someone else already gave the port is refused) (ch->lock held).  Marks
 * each in x->sent unless the chassis refused before anything was sent
 * (FALCON_ERR_CONFLICT: in another zone, or already in this one: a
 * rollback detaching it would take it from whoever has it).  A single
 * device refused (mode rule, taken) goes to attach_refused.
 */
static falcon_err_t attach_ids(struct compose_ctx *x, const char *port, const char **ids,
			       size_t n)
{
	struct falcond_chassis *ch = x->ch;
	falcon_err_t rv = falcon_chassis_attach_set(ch->client, port, ids, n);
	char detail[1024];
	size_t i, k;

	for (i = 0; i < x->l.ndevs; i++)
		for (k = 0; k < n; k++)
			if (strcmp(x->l.devs[i].id, ids[k]) == 0)
				x->sent[i] = rv != FALCON_ERR_CONFLICT;
	if (rv == FALCON_OK) {
		for (k = 0; k < n; k++)
			ch_set_owner(x->st, ch, ids[k], port);
		return rv;
	}
	count_chassis_error(x->st, rv);
	ch->stale = true;
	ch->down |= may_land_late(rv);
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
 * (attach_refused) (ch->lock held).
 */
static falcon_err_t compose_attach(struct compose_ctx *x)
{
	size_t i, k;

	for (i = 0; i < x->l.ndevs; i++) {
		const char *port = x->l.devs[i].port;
		const char *ids[FALCON_CHASSIS_SET_MAX];
		size_t n;
		falcon_err_t rv;

		if (!port_first(&x->l, i))
			continue;
		n = port_set(&x->l, port, NULL, ids);
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
 * repeated compose that finds it waits for that one), *x->out set; the
 * chassis is free for the next request while this one waits (step 4) for
 * the ledger write covering it (group commit).  When that write failed,
 * ch->lock is taken again for the rollback.
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
	pthread_mutex_unlock(&st->lock);
	pthread_mutex_unlock(&x->ch->lock);
	x->ch_locked = false;
	/* 4. acknowledge only once it is written */
	pthread_mutex_lock(&st->lock);
	rv = commit_upto_locked(st, gen);
	pthread_mutex_unlock(&st->lock);
	if (rv != FALCON_OK) {
		pthread_mutex_lock(&x->ch->lock);
		x->ch_locked = true;
		return rv;
	}
	x->recorded = false; /* durable: nothing to roll back */
	falcon_info("lease %s: job %u on %s: %zu device(s) on %s (%s)", x->l.id, x->l.job_id,
		    x->l.host, x->l.ndevs, x->ch->cc->name, falcon_place_str(x->place));
	return FALCON_OK;
}

/*
 * compose_rollback - a recorded lease whose compose failed with rv: detach
 * its devices (the failed attach too: it may have half happened), close
 * and drop it, commit (ch->lock held on entry, dropped; takes st->lock).
 * Returns rv with "(rolled back)" added to the message.
 */
static falcon_err_t compose_rollback(struct compose_ctx *x, falcon_err_t rv)
{
	struct falcond_state *st = x->st;
	char detail[1024];
	int nq;

	snprintf(detail, sizeof(detail), "%s", falcon_errmsg());
	nq = release_lease(st, x->ch, x->l.id, "rolled back", x->sent);
	pthread_mutex_unlock(&x->ch->lock);
	x->ch_locked = false;
	x->recorded = false;
	pthread_mutex_lock(&st->lock);
	st->rolled_back++;
	commit_locked(st);
	pthread_mutex_unlock(&st->lock);
	falcon_warn("lease %s: compose failed (%s); rolled back%s", x->l.id, detail,
		    nq ? ", device(s) quarantined" : "");
	return falcon_err_set(rv, "%s (rolled back%s)", detail,
			      nq ? "; a device whose detach failed is quarantined" : "");
}

/* compose_end - the cleanup of every attempt: ch->lock if held, memory. */
static void compose_end(struct compose_ctx *x)
{
	if (x->ch_locked)
		pthread_mutex_unlock(&x->ch->lock);
	x->ch_locked = false;
	free(x->slots);
	x->slots = NULL;
	falcon_inventory_free(&x->inv);
}

/*
 * compose_once - one attempt of falcond_compose: *out on FALCON_OK; *retry
 * set when placing again may succeed (a port learnt not cabled).
 */
static falcon_err_t compose_once(struct falcond_state *st, const struct falcon_compose_req *r,
				 struct falcon_lease *out, bool *retry)
{
	struct compose_ctx x = { .st = st, .r = r, .out = out, .retry = retry,
				 .inv = { 0, NULL } };
	falcon_err_t rv;

	if ((rv = compose_resolve(&x)) == FALCON_OK &&
	    (rv = compose_repeat(&x)) == FALCON_OK && !x.answered &&
	    (rv = compose_pick(&x)) == FALCON_OK &&
	    (rv = compose_record(&x)) == FALCON_OK &&
	    (rv = compose_attach(&x)) == FALCON_OK)
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
	 * most one per port and drawer, so a few tries settle it */
	for (tries = 0; tries < 2 * FALCON_MAX_PORTS && retry; tries++) {
		retry = false;
		rv = compose_once(st, r, out, &retry);
		if (rv == FALCON_OK)
			break;
	}
	return rv;
}

/*
 * decompose_intent - intent before action: lease id is written "closing"
 * before its devices are detached, so that a falcond restarted after a
 * crash releases it (ch->lock held; takes st->lock).  FALCON_ERR_IO when
 * the write failed: the lease is left as it was and nothing is sent.
 */
static falcon_err_t decompose_intent(struct falcond_state *st, const char *id)
{
	struct falcon_lease *lp;
	char was[sizeof(lp->state)];
	falcon_err_t rv = FALCON_OK;

	pthread_mutex_lock(&st->lock);
	lp = falcond_ledger_lease(st->ledger, id);
	if (lp != NULL && strcmp(lp->state, "active") == 0) {
		falcon_strlcpy(was, lp->state, sizeof(was));
		falcon_strlcpy(lp->state, "closing", sizeof(lp->state));
		rv = commit_locked(st);
		lp = falcond_ledger_lease(st->ledger, id);
		if (rv != FALCON_OK && lp != NULL)
			falcon_strlcpy(lp->state, was, sizeof(lp->state));
	}
	pthread_mutex_unlock(&st->lock);
	return rv;
}

falcon_err_t falcond_decompose(struct falcond_state *st, const struct falcon_decompose_req *r,
			       json_object **closed)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	falcon_err_t rv = FALCON_OK;
	int total_q = 0, n = 0;

	for (;;) {
		char id[FALCON_LEASE_ID_LEN] = "", chname[FALCON_NAME_LEN] = "";
		struct falcon_lease *lp = NULL;
		struct falcond_chassis *ch;
		size_t i;

		pthread_mutex_lock(&st->lock);
		if (r->lease[0])
			lp = n == 0 ? falcond_ledger_lease(st->ledger, r->lease) : NULL;
		else /* a dead falcond's in-flight lease is left to settle */
			for (i = 0; i < st->ledger->nleases && lp == NULL; i++)
				if (st->ledger->leases[i].job_id == r->job_id &&
				    !in_flight(&st->ledger->leases[i]))
					lp = &st->ledger->leases[i];
		if (lp != NULL) {
			falcon_strlcpy(id, lp->id, sizeof(id));
			if (lp->ndevs > 0)
				falcon_strlcpy(chname, lp->devs[0].chassis, sizeof(chname));
		}
		pthread_mutex_unlock(&st->lock);
		if (id[0] == '\0')
			break;
		ch = chassis_of(st, chname);
		if (ch == NULL) { /* a lease without devices or of a chassis gone */
			pthread_mutex_lock(&st->lock);
			falcond_ledger_remove_lease(st->ledger, id);
			pthread_mutex_unlock(&st->lock);
		} else {
			char result[160];

			snprintf(result, sizeof(result), "released%s%s", r->check[0] ? "; check: " : "",
				 r->check);
			pthread_mutex_lock(&ch->lock);
			rv = decompose_intent(st, id);
			if (rv == FALCON_OK)
				total_q += release_lease(st, ch, id, result, NULL);
			pthread_mutex_unlock(&ch->lock);
			if (rv != FALCON_OK)
				break;
		}
		/* acknowledge only once it is written */
		pthread_mutex_lock(&st->lock);
		rv = commit_locked(st);
		pthread_mutex_unlock(&st->lock);
		if (rv != FALCON_OK)
			break;
		json_object_array_add(a, json_object_new_string(id));
		n++;
		falcon_info("lease %s: closed", id);
	}
	if (n == 0 && rv == FALCON_OK)
		rv = r->lease[0] ? falcon_err_set(FALCON_ERR_NOTFOUND, "decompose: no lease %s", r->lease)
				 : falcon_err_set(FALCON_ERR_NOTFOUND, "decompose: job %u has no lease",
						  r->job_id);
	json_object_object_add(o, "closed", a);
	json_object_object_add(o, "quarantined", json_object_new_int(total_q));
	if (closed)
		*closed = o;
	else
		json_object_put(o);
	return rv;
}

#ifdef HAVE_SLURM
/* libslurm reads slurm.conf ($SLURM_CONF) once, before its first call:
 * since Slurm 23.11.1 a call without slurm_init() is fatal.  Once per
 * process, on the first reconcile that asks Slurm (HTTP threads and the
 * main loop may reconcile at once). */
static pthread_once_t slurm_once = PTHREAD_ONCE_INIT;

static void slurm_init_once(void)
{
	slurm_init(NULL);
}
#endif

/* running_jobs - ids of jobs Slurm says are alive; -1 when Slurm cannot be asked. */
static int running_jobs(struct falcond_state *st, uint32_t **ids, size_t *n)
{
	*ids = NULL;
	*n = 0;
	if (!st->use_slurm)
		return -1;
#ifdef HAVE_SLURM
	{
		job_info_msg_t *msg = NULL;
		uint32_t i;

		pthread_once(&slurm_once, slurm_init_once);
		if (slurm_load_jobs(0, &msg, SHOW_ALL) != SLURM_SUCCESS) {
			falcon_warn("reconcile: slurm_load_jobs: %s; job states not checked",
				    slurm_strerror(slurm_get_errno()));
			return -1;
		}
		*ids = calloc(msg->record_count + 1, sizeof(**ids));
		for (i = 0; *ids && i < msg->record_count; i++) {
			uint32_t s = msg->job_array[i].job_state;

			if ((s & JOB_STATE_BASE) == JOB_RUNNING || (s & JOB_STATE_BASE) == JOB_SUSPENDED ||
			    (s & JOB_COMPLETING) || (s & JOB_CONFIGURING))
				(*ids)[(*n)++] = msg->job_array[i].job_id;
		}
		slurm_free_job_info_msg(msg);
		return *ids ? 0 : -1;
	}
#else
	return -1;
#endif
}

/* One reconcile pass: what Slurm said, and the counts. */
struct reconcile_run {
	uint32_t *jobs;              /* running jobs (owned) */
	size_t njobs;
	int slurm_ok;                /* 0: jobs is what Slurm says; -1: not checked */
	unsigned long long rolled, closed_gone, closed_job, orphans, errors;
	unsigned long long late, settling; /* late attaches detached; leases left settling */
};

/*
 * lease_verdict - why lease l of chassis cn must be closed, or NULL: a
 * "closing" one is released, one whose device is not attached to its port
 * in inv any more or whose job Slurm does not run closed (counted in run,
 * logged; st->lock held).  In-flight leases are reconcile_settle's.
 */
static const char *lease_verdict(struct reconcile_run *run, const char *cn,
				 const struct falcon_inventory *inv, const struct falcon_lease *l)
{
	size_t j, k;

	if (strcmp(l->state, "closing") == 0)
		return "released";
	for (j = 0; j < l->ndevs; j++) {
		for (k = 0; k < inv->n; k++)
			if (strcmp(inv->devs[k].id, l->devs[j].id) == 0)
				break;
		if (k == inv->n || strcmp(inv->devs[k].owner, l->devs[j].port) != 0) {
			falcon_warn("reconcile: lease %s: %s/%s not attached to %s any more; "
				    "lease closed", l->id, cn, l->devs[j].id, l->devs[j].port);
			run->closed_gone++;
			return "gone from the chassis";
		}
	}
	if (run->slurm_ok != 0)
		return NULL;
	for (j = 0; j < run->njobs && run->jobs[j] != l->job_id; j++)
		;
	if (j < run->njobs)
		return NULL;
	falcon_warn("reconcile: lease %s: job %u is not running; devices reclaimed", l->id,
		    l->job_id);
	run->closed_job++;
	return "job not running";
}

/*
 * reconcile_leases - close the leases of chassis ch that must go (at most
 * 64 a pass), judged under st->lock by lease_verdict, released after it
 * (ch->lock held).
 */
static void reconcile_leases(struct falcond_state *st, struct falcond_chassis *ch,
			     const struct falcon_inventory *inv, struct reconcile_run *run)
{
	char ids[64][FALCON_LEASE_ID_LEN];
	char why[64][32];
	size_t nids = 0, i;

	pthread_mutex_lock(&st->lock);
	for (i = 0; i < st->ledger->nleases && nids < 64; i++) {
		const struct falcon_lease *l = &st->ledger->leases[i];
		const char *reason;

		if (l->ndevs == 0 || strcmp(l->devs[0].chassis, ch->cc->name) != 0 || in_flight(l))
			continue;
		reason = lease_verdict(run, ch->cc->name, inv, l);
		if (reason != NULL) {
			falcon_strlcpy(ids[nids], l->id, sizeof(ids[nids]));
			falcon_strlcpy(why[nids++], reason, sizeof(why[0]));
		}
	}
	pthread_mutex_unlock(&st->lock);
	for (i = 0; i < nids; i++)
		release_lease(st, ch, ids[i], why[i], NULL);
}

/*
 * settle_one - one look at in-flight lease id (falcond_ledger_settle_look):
 * it becomes "settling"; its devices attached late are detached (or
 * quarantined); settled, it is dropped (ch->lock held; takes st->lock).
 */
static void settle_one(struct falcond_state *st, struct falcond_chassis *ch,
		       const struct falcon_inventory *inv, const char *id,
		       struct reconcile_run *run)
{
	bool late[FALCON_PROTO_MAX_DEVS], settled;
	struct falcon_lease l, *lp;
	size_t j, k;

	pthread_mutex_lock(&st->lock);
	lp = falcond_ledger_lease(st->ledger, id);
	if (lp == NULL || !in_flight(lp)) {
		pthread_mutex_unlock(&st->lock);
		return;
	}
	if (strcmp(lp->state, "composing") == 0)
		falcon_warn("reconcile: lease %s (job %u on %s) was in flight when falcond "
			    "stopped; its devices are held and watched %d s before it is "
			    "rolled back", id, lp->job_id, lp->host, st->conf->settle_time);
	falcon_strlcpy(lp->state, "settling", sizeof(lp->state));
	settled = falcond_ledger_settle_look(st->ledger, lp, inv, falcond_now_ms(),
					     st->conf->settle_time * 1000LL, late);
	l = *lp;
	if (settled)
		falcond_ledger_remove_lease(st->ledger, id);
	pthread_mutex_unlock(&st->lock);
	for (j = 0; j < l.ndevs; j++) {
		if (!late[j])
			continue;
		for (k = 0; k < inv->n && strcmp(inv->devs[k].id, l.devs[j].id) != 0; k++)
			;
		falcon_warn("reconcile: lease %s: %s/%s attached to %s late (by the request "
			    "in flight when falcond stopped); detaching", id, ch->cc->name,
			    l.devs[j].id, inv->devs[k].owner);
		run->late++;
		detach_or_quarantine(st, ch, inv->devs[k].owner, l.devs[j].id, "settle");
	}
	if (settled) {
		falcon_warn("reconcile: lease %s: settled; rolled back", id);
		run->rolled++;
	} else {
		run->settling++;
	}
}

/* reconcile_settle - settle_one for each in-flight lease of chassis ch (at
 * most 64 a pass; ch->lock held). */
static void reconcile_settle(struct falcond_state *st, struct falcond_chassis *ch,
			     const struct falcon_inventory *inv, struct reconcile_run *run)
{
	char ids[64][FALCON_LEASE_ID_LEN];
	size_t nids = 0, i;

	pthread_mutex_lock(&st->lock);
	for (i = 0; i < st->ledger->nleases && nids < 64; i++) {
		const struct falcon_lease *l = &st->ledger->leases[i];

		if (l->ndevs > 0 && strcmp(l->devs[0].chassis, ch->cc->name) == 0 && in_flight(l))
			falcon_strlcpy(ids[nids++], l->id, sizeof(ids[0]));
	}
	pthread_mutex_unlock(&st->lock);
	for (i = 0; i < nids; i++)
		settle_one(st, ch, inv, ids[i], run);
}

/* taken_back - whether this pass already detached dev (a lease it closed):
 * ch->last, read with inv, has it free since (ch_set_owner) (st->lock held). */
static bool taken_back(const struct falcond_chassis *ch, const char *dev)
{
	size_t i;

	for (i = 0; ch->have_last && i < ch->last.n; i++)
		if (strcmp(ch->last.devs[i].id, dev) == 0)
			return ch->last.devs[i].owner[0] == '\0';
	return false;
}

/* reconcile_orphans - detach the devices of inv attached that no lease
 * names (ch->lock held). */
static void reconcile_orphans(struct falcond_state *st, struct falcond_chassis *ch,
			      const struct falcon_inventory *inv, struct reconcile_run *run)
{
	size_t i;

	for (i = 0; i < inv->n; i++) {
		const struct falcon_device *d = &inv->devs[i];
		bool leased;

		if (d->owner[0] == '\0')
			continue;
		pthread_mutex_lock(&st->lock);
		leased = falcond_ledger_device_lease(st->ledger, ch->cc->name, d->id) != NULL ||
			 taken_back(ch, d->id);
		pthread_mutex_unlock(&st->lock);
		if (leased)
			continue;
		falcon_warn("reconcile: %s/%s attached to %s without a lease; detaching",
			    ch->cc->name, d->id, d->owner);
		run->orphans++;
		detach_or_quarantine(st, ch, d->owner, d->id, "reconcile");
	}
}

/* reconcile_chassis - one chassis: its leases, its orphans, the cache
 * read again, the ledger committed (takes ch->lock, then st->lock). */
static void reconcile_chassis(struct falcond_state *st, struct falcond_chassis *ch,
			      struct reconcile_run *run)
{
	struct falcon_inventory inv = { 0, NULL };
	unsigned long long detaches;

	pthread_mutex_lock(&ch->lock);
	if (ch->down) { /* it was away: it may have been serviced */
		pthread_mutex_lock(&st->lock);
		falcond_desc_forget(ch, NULL);
		pthread_mutex_unlock(&st->lock);
	}
	ch->down = false; /* this pass is the reconcile a recovery would kick */
	if (ch_inventory(st, ch, &inv, true) != FALCON_OK) {
		falcon_error("reconcile: chassis %s: %s", ch->cc->name, falcon_errmsg());
		run->errors++;
		pthread_mutex_unlock(&ch->lock);
		return;
	}
	detaches = ch->detaches;
	reconcile_settle(st, ch, &inv, run);
	reconcile_leases(st, ch, &inv, run);
	reconcile_orphans(st, ch, &inv, run);
	/* after changes, read again (the cache too); clear what healed
	 * (falcond_resv.h).  Without changes the first read is still true. */
	if (detaches == ch->detaches) {
		falcond_resv_heal(st, ch, &inv);
		falcon_inventory_free(&inv);
	} else {
		falcon_inventory_free(&inv);
		/* a detach of this pass that failed set ch->down; its device is
		 * quarantined, the next pass looks again: this read must not
		 * kick one at once (a chassis failing every PATCH would get
		 * passes back to back, without end) */
		ch->down = false;
		if (ch_inventory(st, ch, &inv, true) == FALCON_OK) {
			falcond_resv_heal(st, ch, &inv);
			falcon_inventory_free(&inv);
		}
	}
	pthread_mutex_unlock(&ch->lock);
	pthread_mutex_lock(&st->lock);
	if (commit_locked(st) != FALCON_OK)
		run->errors++;
	pthread_mutex_unlock(&st->lock);
}

/* reconcile_report - the counts of run (a new object, caller puts). */
static json_object *reconcile_report(const struct reconcile_run *run)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "rolled_back", json_object_new_int64((int64_t)run->rolled));
	json_object_object_add(o, "closed_gone", json_object_new_int64((int64_t)run->closed_gone));
	json_object_object_add(o, "closed_job_ended",
			       json_object_new_int64((int64_t)run->closed_job));
	json_object_object_add(o, "orphans_detached", json_object_new_int64((int64_t)run->orphans));
	json_object_object_add(o, "late_detached", json_object_new_int64((int64_t)run->late));
	json_object_object_add(o, "settling", json_object_new_int64((int64_t)run->settling));
	json_object_object_add(o, "chassis_unreachable",
			       json_object_new_int64((int64_t)run->errors));
	json_object_object_add(o, "slurm_checked", json_object_new_boolean(run->slurm_ok == 0));
	return o;
}

falcon_err_t falcond_reconcile(struct falcond_state *st, json_object **report)
{
	struct reconcile_run run = { NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	size_t c;

	run.slurm_ok = running_jobs(st, &run.jobs, &run.njobs);
	for (c = 0; c < st->nchassis; c++)
		reconcile_chassis(st, &st->ch[c], &run);
	free(run.jobs);
	pthread_mutex_lock(&st->lock);
	st->reconcile_runs++;
	st->rolled_back += run.rolled;
	st->disagree_gone += run.closed_gone;
	st->disagree_job += run.closed_job;
	st->disagree_orphan += run.orphans;
	st->disagree_late += run.late;
	pthread_mutex_unlock(&st->lock);
	/* a periodic pass that found nothing is not worth a line at info */
	falcon_log(run.rolled || run.closed_gone || run.closed_job || run.orphans || run.late ||
		   run.settling || run.errors ? FALCON_LOG_INFO : FALCON_LOG_VERBOSE,
		"reconcile: %llu rolled back, %llu closed (gone), %llu closed (job ended), "
		"%llu orphan device(s) detached, %llu late attach(es) detached, %llu lease(s) "
		"settling, %llu chassis unreachable", run.rolled, run.closed_gone,
		run.closed_job, run.orphans, run.late, run.settling, run.errors);
	falcond_resv_kick(st, run.errors == 0); /* Slurm's view of the quarantine */
	if (report)
		*report = reconcile_report(&run);
	return run.errors ? falcon_err_set(FALCON_ERR_TRANSPORT,
					   "reconcile: %llu chassis unreachable", run.errors)
			  : FALCON_OK;
}

/* wake_at - wait on st->wake until t (falcon_now_ms clock; t < 0: until
 * signalled) (st->lock held). */
static void wake_at(struct falcond_state *st, long long t)
{
	struct timespec ts;
	long long d;

	if (t < 0) {
		pthread_cond_wait(&st->wake, &st->lock);
		return;
	}
	d = t - falcon_now_ms();
	if (d <= 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += (time_t)(d / 1000);
	ts.tv_nsec += (long)(d % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&st->wake, &st->lock, &ts);
}

void *falcond_reconciler(void *arg)
{
	struct falcond_state *st = arg;
	long long interval = st->conf->reconcile_interval * 1000LL;
	long long next = interval ? falcon_now_ms() + interval : -1;
	long long last_wall = falcond_now_ms(); /* start of the last pass */
	unsigned gen;

	pthread_mutex_lock(&st->lock);
	while (!st->stopping) {
		/* a settle deadline set since the last pass (one that is past
		 * and still there, its chassis unreachable, waits for the next
		 * periodic pass or kick) */
		long long due = next, settle = falcond_ledger_settle_next(st->ledger);

		if (settle > last_wall) {
			long long at = falcon_now_ms() + (settle - falcond_now_ms());

			due = due < 0 || at < due ? at : due;
		}
		if (!st->kick && (due < 0 || falcon_now_ms() < due)) {
			wake_at(st, due);
			continue;
		}
		st->kick = false;
		last_wall = falcond_now_ms();
		pthread_mutex_unlock(&st->lock);
		gen = falcond_conf_hold(); /* a SIGHUP may reload meanwhile */
		falcond_reconcile(st, NULL);
		falcond_conf_release(gen);
		pthread_mutex_lock(&st->lock);
		if (interval)
			next = falcon_now_ms() + interval;
	}
	pthread_mutex_unlock(&st->lock);
	return NULL;
}

void falcond_reconciler_stop(struct falcond_state *st)
{
	pthread_mutex_lock(&st->lock);
	st->stopping = true;
	pthread_cond_broadcast(&st->wake);
	pthread_mutex_unlock(&st->lock);
}

falcon_err_t falcond_quarantine(struct falcond_state *st, const struct falcon_device_req *r)
{
	const char *reason = r->reason[0] ? r->reason : "by an administrator";
	struct falcond_quarantine before, *q;
	bool existed;
	falcon_err_t rv;

	if (chassis_of(st, r->chassis) == NULL)
		return falcon_err_set(FALCON_ERR_NOTFOUND, "quarantine: no chassis %s", r->chassis);
	pthread_mutex_lock(&st->lock);
	q = falcond_ledger_quarantined(st->ledger, r->chassis, r->device);
	existed = q != NULL;
	if (existed)
		before = *q;
	rv = falcond_ledger_quarantine(st->ledger, r->chassis, r->device, reason);
	if (rv == FALCON_OK) {
		struct falcond_quarantine after = *falcond_ledger_quarantined(st->ledger, r->chassis, r->device);

		rv = commit_locked(st);
		q = falcond_ledger_quarantined(st->ledger, r->chassis, r->device);
		/* Not written: the caller is told so, and the device goes back
		 * to what the file says (unless another request changed the
		 * entry meanwhile: then that one's answer stands) */
		if (rv != FALCON_OK && q != NULL && q->since_ms == after.since_ms &&
		    strcmp(q->reason, after.reason) == 0) {
			if (existed)
				*q = before;
			else
				falcond_ledger_unquarantine(st->ledger, r->chassis, r->device);
		}
	}
	if (rv == FALCON_OK)
		st->quarantined_total++;
	pthread_mutex_unlock(&st->lock);
	if (rv == FALCON_OK) {
		falcon_info("%s/%s quarantined: %s", r->chassis, r->device, reason);
		falcond_resv_kick(st, false);
	}
	return rv;
}

falcon_err_t falcond_unquarantine(struct falcond_state *st, const struct falcon_device_req *r)
{
	struct falcond_quarantine *q, before;
	falcon_err_t rv;

	pthread_mutex_lock(&st->lock);
	q = falcond_ledger_quarantined(st->ledger, r->chassis, r->device);
	if (q != NULL)
		before = *q;
	rv = falcond_ledger_unquarantine(st->ledger, r->chassis, r->device);
	if (rv == FALCON_OK) {
		rv = commit_locked(st);
		/* not written: the device stays quarantined, as the file says */
		if (rv != FALCON_OK &&
		    falcond_ledger_quarantined(st->ledger, before.chassis, before.device) == NULL &&
		    falcond_ledger_quarantine(st->ledger, before.chassis, before.device,
					      before.reason) == FALCON_OK)
			falcond_ledger_quarantined(st->ledger, before.chassis, before.device)->since_ms =
				before.since_ms;
	}
	pthread_mutex_unlock(&st->lock);
	if (rv == FALCON_OK) {
		falcon_info("%s/%s back in the pool", r->chassis, r->device);
		falcond_resv_kick(st, false);
	}
	return rv;
}
