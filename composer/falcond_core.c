/*
 * falcond_core.c - falcond's decisions against the chassis: compose with
 * rollback, decompose, reconcile (ledger x chassis x Slurm), quarantine,
 * status and metrics.  Changes to one chassis are serialized by its mutex
 * (struct fd_chassis.lock); st->lock guards the ledger, caches and metrics
 * and is always taken after a chassis lock, never before.
 *
 * Ledger protocol (what makes a crash safe):
 *   compose:   lease added in memory ("composing": its devices are held) ->
 *              attach -> "active" -> chassis unlocked -> group commit of
 *              the ledger -> answer.
 *   decompose: detach -> lease dropped in memory -> commit -> answer.
 *   A crash before a commit leaves the chassis ahead of the file: a device
 *   attached that no lease names, or a lease whose devices are gone; the
 *   reconcile at start detaches the one and closes the other.  Nothing
 *   answered is lost, since every answer waits for its commit.  A
 *   "composing" lease found in a file (written by another request's
 *   commit) is rolled back.  A detach that fails quarantines the device
 *   (committed at once) with the reason.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_SLURM
#include <slurm/slurm.h>
#endif

#include "falcond.h"
#include "core/log.h"
#include "core/util.h"

const double fd_buckets[FD_NBUCKETS] = { 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
					 0.5, 1, 2.5, 5, 10, INFINITY };

void fd_observe(struct fd_hist_metric *h, double s)
{
	size_t i;

	for (i = 0; i < FD_NBUCKETS; i++)
		if (s <= fd_buckets[i])
			h->bucket[i]++;
	h->count++;
	h->sum += s;
}

falcon_err_t fd_state_init(struct fd_state *st)
{
	size_t i;

	pthread_mutex_init(&st->lock, NULL);
	pthread_cond_init(&st->saved, NULL);
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

void fd_state_fini(struct fd_state *st)
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
	pthread_mutex_destroy(&st->lock);
}

static struct fd_chassis *chassis_of(struct fd_state *st, const char *name)
{
	size_t i;

	for (i = 0; i < st->nchassis; i++)
		if (strcmp(st->ch[i].cc->name, name) == 0)
			return &st->ch[i];
	return NULL;
}

static void count_chassis_error(struct fd_state *st, falcon_err_t e)
{
	pthread_mutex_lock(&st->lock);
	if (e > 0 && e < FALCON_ERR_MAX)
		st->chassis_errors[e]++;
	pthread_mutex_unlock(&st->lock);
}

/* ch_client - the chassis' client, opened on first use (ch->lock held). */
static falcon_err_t ch_client(struct fd_state *st, struct fd_chassis *ch)
{
	falcon_err_t rv;

	if (ch->client != NULL)
		return FALCON_OK;
	rv = falcon_chassis_open(ch->cc, &ch->client);
	if (rv != FALCON_OK)
		count_chassis_error(st, rv);
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
 * held).  With fresh false, the one read within st->inventory_ttl_ms is
 * reused when no error happened since: falcond itself changes owners only
 * under ch->lock and records them (ch_set_owner); a change made behind its
 * back makes the attach fail, which marks the cache stale.
 */
static falcon_err_t ch_inventory(struct fd_state *st, struct fd_chassis *ch,
				 struct falcon_inventory *inv, bool fresh)
{
	struct falcon_inventory copy = { 0, NULL };
	falcon_err_t rv;

	if (!fresh && ch->have_last && !ch->stale &&
	    falcon_now_ms() - ch->last_ms < st->inventory_ttl_ms) {
		pthread_mutex_lock(&st->lock);
		inv_copy(inv, &ch->last);
		pthread_mutex_unlock(&st->lock);
		if (inv->n == ch->last.n)
			return FALCON_OK;
		falcon_inventory_free(inv);
	}
	rv = ch_client(st, ch);
	if (rv == FALCON_OK)
		rv = falcon_chassis_inventory(ch->client, inv);
	if (rv != FALCON_OK) {
		count_chassis_error(st, rv);
		ch->stale = true;
		return rv;
	}
	inv_copy(&copy, inv);
	pthread_mutex_lock(&st->lock);
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
static void ch_set_owner(struct fd_state *st, struct fd_chassis *ch, const char *dev,
			 const char *port)
{
	size_t i;

	pthread_mutex_lock(&st->lock);
	for (i = 0; ch->have_last && i < ch->last.n; i++)
		if (strcmp(ch->last.devs[i].id, dev) == 0)
			falcon_strlcpy(ch->last.devs[i].owner, port, sizeof(ch->last.devs[i].owner));
	pthread_mutex_unlock(&st->lock);
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
static falcon_err_t commit_upto_locked(struct fd_state *st, unsigned long long want)
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
			char *text = fd_ledger_text(st->ledger);

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
static falcon_err_t commit_locked(struct fd_state *st)
{
	return commit_upto_locked(st, ++st->gen);
}

/*
 * detach_or_quarantine - take d back; on failure quarantine it with the
 * reason (st->lock not held; ch->lock held).  Returns the detach result.
 */
static falcon_err_t detach_or_quarantine(struct fd_state *st, struct fd_chassis *ch,
					 const char *port, const char *dev, const char *why)
{
	falcon_err_t rv = ch_client(st, ch);
	char reason[256];

	if (rv == FALCON_OK)
		rv = falcon_chassis_detach(ch->client, port, dev);
	if (rv == FALCON_OK) {
		ch_set_owner(st, ch, dev, "");
		return rv;
	}
	count_chassis_error(st, rv);
	snprintf(reason, sizeof(reason), "detach from %s failed during %s: %s", port, why,
		 falcon_errmsg());
	falcon_error("%s/%s: %s; quarantined", ch->cc->name, dev, reason);
	ch->stale = true;
	pthread_mutex_lock(&st->lock);
	if (fd_ledger_quarantine(st->ledger, ch->cc->name, dev, reason) == FALCON_OK)
		st->quarantined_total++;
	/* Held in memory either way; if the ledger write fails, a restart
	 * forgets the quarantine but finds the device attached without a lease
	 * and its reconcile detaches (or quarantines) it again. */
	if (commit_locked(st) != FALCON_OK)
		falcon_error("%s/%s: quarantine not written to the ledger: %s",
			     ch->cc->name, dev, falcon_errmsg());
	pthread_mutex_unlock(&st->lock);
	return rv;
}

/*
 * release_lease - detach every device of lease id, close its history with
 * result and drop it from the ledger in memory (ch->lock held, st->lock
 * not); the caller commits.  A crash before the commit leaves the lease in
 * the file with devices detached: reconcile closes it.  Returns the number
 * of devices quarantined.
 */
static int release_lease(struct fd_state *st, struct fd_chassis *ch, const char *id,
			 const char *result)
{
	struct falcon_lease l, *lp;
	int nq = 0;
	size_t i;

	pthread_mutex_lock(&st->lock);
	lp = fd_ledger_lease(st->ledger, id);
	if (lp == NULL) {
		pthread_mutex_unlock(&st->lock);
		return 0;
	}
	if (strcmp(lp->state, "composing") != 0)
		falcon_strlcpy(lp->state, "closing", sizeof(lp->state));
	l = *lp;
	pthread_mutex_unlock(&st->lock);
	for (i = l.ndevs; i-- > 0;)
		if (detach_or_quarantine(st, ch, l.devs[i].port, l.devs[i].id, result) != FALCON_OK)
			nq++;
	pthread_mutex_lock(&st->lock);
	for (i = 0; i < l.ndevs; i++)
		fd_ledger_hist_close(st->ledger, l.id, &l.devs[i],
				     fd_ledger_quarantined(st->ledger, l.devs[i].chassis, l.devs[i].id)
					     ? "quarantined" : result);
	fd_ledger_remove_lease(st->ledger, l.id);
	pthread_mutex_unlock(&st->lock);
	return nq;
}

/* noreach - has the chassis refused port as not cabled to drawer? (ch->lock) */
static bool noreach(void *ctx, const char *port, int drawer)
{
	const struct fd_chassis *ch = ctx;
	size_t i;

	for (i = 0; i < ch->nnoreach; i++)
		if (ch->noreach[i].drawer == drawer && strcmp(ch->noreach[i].port, port) == 0)
			return falcon_now_ms() < ch->noreach[i].until_ms;
	return false;
}

/* learn_noreach - remember that port cannot take devices of drawer (ch->lock). */
static void learn_noreach(struct fd_chassis *ch, const char *port, int drawer)
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
	ch->noreach[i].until_ms = falcon_now_ms() + FD_NOREACH_MS;
	falcon_warn("chassis %s: port %s refused a free device of drawer %d: not cabled; "
		    "not used there for %d min", ch->cc->name, port, drawer, FD_NOREACH_MS / 60000);
}

static falcon_err_t compose_once(struct fd_state *st, const struct falcon_compose_req *r,
				 struct falcon_lease *out, bool *retry)
{
	const struct falcon_host_conf *h = falcon_conf_host(st->conf, r->host);
	const struct falcon_partition_conf *part;
	struct falcon_inventory inv = { 0, NULL };
	struct fd_slot *slots = NULL;
	size_t picks[FALCON_PROTO_MAX_DEVS];
	struct falcon_lease l, *old;
	struct fd_chassis *ch = NULL;
	falcon_place_t place;
	falcon_err_t rv;
	bool locked = false, recorded = false;
	size_t i, attached = 0;
	unsigned long long gen;

	if (h == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOTFOUND, "compose: host %s is not in falcon.conf",
				    r->host);
		goto fail;
	}
	part = falcon_conf_partition(st->conf, r->partition[0] ? r->partition : NULL);
	rv = fd_policy_check(part, r);
	if (rv != FALCON_OK)
		goto fail;
	place = r->place_set ? r->place : part->place;
	ch = chassis_of(st, h->chassis);
	if (ch == NULL) {
		rv = falcon_err_set(FALCON_ERR_CONFIG, "compose: host %s names chassis %s, not defined",
				    h->name, h->chassis);
		goto fail;
	}
	pthread_mutex_lock(&ch->lock);
	locked = true;
	/* the same job on the same host again (a prolog retry): the same lease,
	 * answered only once the write that made it active is durable (it
	 * became active at a generation <= st->gen, see step 3) */
	pthread_mutex_lock(&st->lock);
	old = fd_ledger_job_host(st->ledger, r->job_id, r->host);
	if (old != NULL && strcmp(old->state, "active") == 0 &&
	    (int)old->ndevs == r->gpus + r->nvme) {
		unsigned long long want = st->gen;

		falcon_strlcpy(l.id, old->id, sizeof(l.id));
		pthread_mutex_unlock(&ch->lock);
		locked = false;
		rv = commit_upto_locked(st, want);
		/* the write failed, or the lease was rolled back meanwhile */
		old = rv == FALCON_OK ? fd_ledger_lease(st->ledger, l.id) : NULL;
		if (old != NULL && strcmp(old->state, "active") == 0)
			*out = *old;
		else if (rv == FALCON_OK)
			rv = falcon_err_set(FALCON_ERR_IO, "compose: lease %s of job %u was rolled "
					    "back before it was written", l.id, r->job_id);
		old = &l; /* answered */
	} else if (old != NULL) {
		rv = falcon_err_set(FALCON_ERR_CONFLICT, "compose: job %u already has lease %s (%s) on %s",
				    r->job_id, old->id, old->state, r->host);
	}
	pthread_mutex_unlock(&st->lock);
	if (old != NULL)
		goto fail;
	rv = ch_inventory(st, ch, &inv, false);
	if (rv != FALCON_OK)
		goto fail;
	slots = calloc(inv.n ? inv.n : 1, sizeof(*slots));
	if (slots == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "compose");
		goto fail;
	}
	pthread_mutex_lock(&st->lock);
	for (i = 0; i < inv.n; i++) {
		const struct falcon_lease *ol = fd_ledger_device_lease(st->ledger, ch->cc->name,
								       inv.devs[i].id);
		slots[i].dev = &inv.devs[i];
		slots[i].quarantined = fd_ledger_quarantined(st->ledger, ch->cc->name,
							     inv.devs[i].id) != NULL;
		if (ol != NULL)
			slots[i].holder = falcon_conf_host(st->conf, ol->host)
						  ? falcon_conf_host(st->conf, ol->host)->name : "?";
		else if (inv.devs[i].owner[0])
			slots[i].holder = host_of_port(st->conf, ch->cc->name, inv.devs[i].owner)
						  ?: "(unknown host)";
		slots[i].unreachable = fd_port_for(h, inv.devs[i].drawer, noreach, ch) == NULL;
	}
	pthread_mutex_unlock(&st->lock);
	rv = fd_place(slots, inv.n, h->name, ch->cc->mode, place, r->gpus, r->nvme, picks);
	if (rv != FALCON_OK)
		goto fail;
	memset(&l, 0, sizeof(l));
	l.job_id = r->job_id;
	l.uid = r->uid;
	falcon_strlcpy(l.host, h->name, sizeof(l.host));
	falcon_strlcpy(l.partition, r->partition, sizeof(l.partition));
	l.place = place;
	falcon_strlcpy(l.state, "composing", sizeof(l.state));
	l.created_ms = fd_now_ms();
	l.ndevs = (size_t)(r->gpus + r->nvme);
	for (i = 0; i < l.ndevs; i++) {
		const struct falcon_device *d = slots[picks[i]].dev;
		struct falcon_lease_dev *ld = &l.devs[i];

		falcon_strlcpy(ld->chassis, ch->cc->name, sizeof(ld->chassis));
		falcon_strlcpy(ld->id, d->id, sizeof(ld->id));
		falcon_strlcpy(ld->port, fd_port_for(h, d->drawer, noreach, ch), sizeof(ld->port));
		ld->drawer = d->drawer;
		ld->slot = d->slot;
		ld->type = d->type;
		falcon_strlcpy(ld->vendor_id, d->vendor_id, sizeof(ld->vendor_id));
		falcon_strlcpy(ld->device_id, d->device_id, sizeof(ld->device_id));
		falcon_strlcpy(ld->serial, d->serial, sizeof(ld->serial));
	}
	/* 1. intent, in memory: the devices are held from now on; a crash
	 * before the commit below leaves them attached without a lease on
	 * disk, which reconcile at start detaches */
	pthread_mutex_lock(&st->lock);
	st->ledger->seq++;
	snprintf(l.id, sizeof(l.id), "L-%llu", st->ledger->seq);
	rv = fd_ledger_add_lease(st->ledger, &l);
	pthread_mutex_unlock(&st->lock);
	if (rv != FALCON_OK)
		goto fail;
	recorded = true;
	/* 2. attach */
	for (attached = 0; attached < l.ndevs; attached++) {
		rv = falcon_chassis_attach(ch->client, l.devs[attached].port, l.devs[attached].id);
		if (rv == FALCON_OK) {
			ch_set_owner(st, ch, l.devs[attached].id, l.devs[attached].port);
		} else {
			char detail[1024];

			count_chassis_error(st, rv);
			ch->stale = true;
			snprintf(detail, sizeof(detail), "%s", falcon_errmsg());
			if (rv == FALCON_ERR_POLICY || rv == FALCON_ERR_CONFLICT) {
				/* Refused: not cabled, the mode, or someone took it.
				 * Placement keeps to the mode rules the chassis applies
				 * (falcond_place.c), so when the device is still free
				 * the port is not cabled to its drawer: remember that
				 * (for FD_NOREACH_MS) and place again. */
				struct falcon_inventory now = { 0, NULL };
				bool free_now = false;
				size_t k;

				if (falcon_chassis_inventory(ch->client, &now) == FALCON_OK)
					for (k = 0; k < now.n; k++)
						if (strcmp(now.devs[k].id, l.devs[attached].id) == 0)
							free_now = now.devs[k].owner[0] == '\0';
				falcon_inventory_free(&now);
				if (free_now)
					learn_noreach(ch, l.devs[attached].port, l.devs[attached].drawer);
				*retry = true;
			}
			rv = falcon_err_set(rv, "compose: attach %s/%s to %s: %s", ch->cc->name,
					    l.devs[attached].id, l.devs[attached].port, detail);
			goto fail;
		}
	}
	/* 3. active in memory, at a new generation (a repeated compose that
	 * finds it waits for that one); the chassis is free for the next
	 * request while this one waits for its ledger write (group commit) */
	pthread_mutex_lock(&st->lock);
	old = fd_ledger_lease(st->ledger, l.id);
	falcon_strlcpy(old->state, "active", sizeof(old->state));
	for (i = 0; i < l.ndevs; i++)
		fd_ledger_hist_open(st->ledger, old, &old->devs[i]);
	*out = *old;
	gen = ++st->gen;
	pthread_mutex_unlock(&st->lock);
	pthread_mutex_unlock(&ch->lock);
	locked = false;
	/* 4. acknowledge only once it is written */
	pthread_mutex_lock(&st->lock);
	rv = commit_upto_locked(st, gen);
	pthread_mutex_unlock(&st->lock);
	if (rv != FALCON_OK) {
		pthread_mutex_lock(&ch->lock);
		locked = true;
		goto fail;
	}
	recorded = false;
	falcon_info("lease %s: job %u on %s: %zu device(s) on %s (%s)", l.id, l.job_id, l.host,
		    l.ndevs, ch->cc->name, falcon_place_str(place));
	rv = FALCON_OK;
fail:
	if (recorded) {
		/* roll back: the failed attach too (it may have half happened) */
		char detail[1024];
		int nq;

		snprintf(detail, sizeof(detail), "%s", falcon_errmsg());
		nq = release_lease(st, ch, l.id, "rolled back");
		pthread_mutex_unlock(&ch->lock);
		locked = false;
		pthread_mutex_lock(&st->lock);
		st->rolled_back++;
		commit_locked(st);
		pthread_mutex_unlock(&st->lock);
		falcon_warn("lease %s: compose failed (%s); rolled back%s", l.id, detail,
			    nq ? ", device(s) quarantined" : "");
		rv = falcon_err_set(rv, "%s (rolled back%s)", detail,
				    nq ? "; a device whose detach failed is quarantined" : "");
	}
	if (locked)
		pthread_mutex_unlock(&ch->lock);
	free(slots);
	falcon_inventory_free(&inv);
	return rv;
}

falcon_err_t fd_compose(struct fd_state *st, const struct falcon_compose_req *r,
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

falcon_err_t fd_decompose(struct fd_state *st, const struct falcon_decompose_req *r,
			  json_object **closed)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	falcon_err_t rv = FALCON_OK;
	int total_q = 0, n = 0;

	for (;;) {
		char id[FALCON_LEASE_ID_LEN] = "", chname[FALCON_NAME_LEN] = "";
		struct falcon_lease *lp = NULL;
		struct fd_chassis *ch;
		size_t i;

		pthread_mutex_lock(&st->lock);
		if (r->lease[0])
			lp = n == 0 ? fd_ledger_lease(st->ledger, r->lease) : NULL;
		else
			for (i = 0; i < st->ledger->nleases && lp == NULL; i++)
				if (st->ledger->leases[i].job_id == r->job_id)
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
			fd_ledger_remove_lease(st->ledger, id);
			pthread_mutex_unlock(&st->lock);
		} else {
			char result[160];

			snprintf(result, sizeof(result), "released%s%s", r->check[0] ? "; check: " : "",
				 r->check);
			pthread_mutex_lock(&ch->lock);
			total_q += release_lease(st, ch, id, result);
			pthread_mutex_unlock(&ch->lock);
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

/* running_jobs - ids of jobs Slurm says are alive; -1 when Slurm cannot be asked. */
static int running_jobs(struct fd_state *st, uint32_t **ids, size_t *n)
{
	*ids = NULL;
	*n = 0;
	if (!st->use_slurm)
		return -1;
#ifdef HAVE_SLURM
	{
		job_info_msg_t *msg = NULL;
		uint32_t i;

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

falcon_err_t fd_reconcile(struct fd_state *st, json_object **report)
{
	unsigned long long rolled = 0, closed_gone = 0, closed_job = 0, orphans = 0, errors = 0;
	uint32_t *jobs = NULL;
	size_t njobs = 0, c;
	int slurm_ok = running_jobs(st, &jobs, &njobs);

	for (c = 0; c < st->nchassis; c++) {
		struct fd_chassis *ch = &st->ch[c];
		struct falcon_inventory inv = { 0, NULL };
		char ids[64][FALCON_LEASE_ID_LEN];
		char why[64][32];
		size_t nids = 0, i, j;

		pthread_mutex_lock(&ch->lock);
		if (ch_inventory(st, ch, &inv, true) != FALCON_OK) {
			falcon_error("reconcile: chassis %s: %s", ch->cc->name, falcon_errmsg());
			errors++;
			pthread_mutex_unlock(&ch->lock);
			continue;
		}
		/* leases of this chassis that must go */
		pthread_mutex_lock(&st->lock);
		for (i = 0; i < st->ledger->nleases && nids < 64; i++) {
			const struct falcon_lease *l = &st->ledger->leases[i];
			const char *reason = NULL;

			if (l->ndevs == 0 || strcmp(l->devs[0].chassis, ch->cc->name) != 0)
				continue;
			if (strcmp(l->state, "composing") == 0) {
				reason = "rolled back";
				rolled++;
			} else if (strcmp(l->state, "closing") == 0) {
				reason = "released";
			}
			for (j = 0; reason == NULL && j < l->ndevs; j++) {
				size_t k;

				for (k = 0; k < inv.n; k++)
					if (strcmp(inv.devs[k].id, l->devs[j].id) == 0)
						break;
				if (k == inv.n || strcmp(inv.devs[k].owner, l->devs[j].port) != 0) {
					falcon_warn("reconcile: lease %s: %s/%s not attached to %s "
						    "any more; lease closed", l->id, ch->cc->name,
						    l->devs[j].id, l->devs[j].port);
					reason = "gone from the chassis";
					closed_gone++;
				}
			}
			if (reason == NULL && slurm_ok == 0) {
				for (j = 0; j < njobs && jobs[j] != l->job_id; j++)
					;
				if (j == njobs) {
					falcon_warn("reconcile: lease %s: job %u is not running; "
						    "devices reclaimed", l->id, l->job_id);
					reason = "job not running";
					closed_job++;
				}
			}
			if (reason != NULL) {
				falcon_strlcpy(ids[nids], l->id, sizeof(ids[nids]));
				falcon_strlcpy(why[nids++], reason, sizeof(why[0]));
			}
		}
		pthread_mutex_unlock(&st->lock);
		for (i = 0; i < nids; i++)
			release_lease(st, ch, ids[i], why[i]);
		/* devices attached that no lease names */
		for (i = 0; i < inv.n; i++) {
			bool leased;

			if (inv.devs[i].owner[0] == '\0')
				continue;
			pthread_mutex_lock(&st->lock);
			leased = fd_ledger_device_lease(st->ledger, ch->cc->name, inv.devs[i].id) != NULL;
			pthread_mutex_unlock(&st->lock);
			if (leased)
				continue;
			falcon_warn("reconcile: %s/%s attached to %s without a lease; detaching",
				    ch->cc->name, inv.devs[i].id, inv.devs[i].owner);
			orphans++;
			detach_or_quarantine(st, ch, inv.devs[i].owner, inv.devs[i].id, "reconcile");
		}
		falcon_inventory_free(&inv);
		/* refresh the cache after the changes */
		if (ch_inventory(st, ch, &inv, true) == FALCON_OK)
			falcon_inventory_free(&inv);
		pthread_mutex_unlock(&ch->lock);
		pthread_mutex_lock(&st->lock);
		if (commit_locked(st) != FALCON_OK)
			errors++;
		pthread_mutex_unlock(&st->lock);
	}
	free(jobs);
	pthread_mutex_lock(&st->lock);
	st->reconcile_runs++;
	st->rolled_back += rolled;
	st->disagree_gone += closed_gone;
	st->disagree_job += closed_job;
	st->disagree_orphan += orphans;
	pthread_mutex_unlock(&st->lock);
	falcon_info("reconcile: %llu rolled back, %llu closed (gone), %llu closed (job ended), "
		    "%llu orphan device(s) detached, %llu chassis unreachable",
		    rolled, closed_gone, closed_job, orphans, errors);
	if (report) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "rolled_back", json_object_new_int64((int64_t)rolled));
		json_object_object_add(o, "closed_gone", json_object_new_int64((int64_t)closed_gone));
		json_object_object_add(o, "closed_job_ended", json_object_new_int64((int64_t)closed_job));
		json_object_object_add(o, "orphans_detached", json_object_new_int64((int64_t)orphans));
		json_object_object_add(o, "chassis_unreachable", json_object_new_int64((int64_t)errors));
		json_object_object_add(o, "slurm_checked", json_object_new_boolean(slurm_ok == 0));
		*report = o;
	}
	return errors ? falcon_err_set(FALCON_ERR_TRANSPORT, "reconcile: %llu chassis unreachable",
				       errors)
		      : FALCON_OK;
}

falcon_err_t fd_quarantine(struct fd_state *st, const struct falcon_device_req *r)
{
	const char *reason = r->reason[0] ? r->reason : "by an administrator";
	struct fd_quarantine before, *q;
	bool existed;
	falcon_err_t rv;

	if (chassis_of(st, r->chassis) == NULL)
		return falcon_err_set(FALCON_ERR_NOTFOUND, "quarantine: no chassis %s", r->chassis);
	pthread_mutex_lock(&st->lock);
	q = fd_ledger_quarantined(st->ledger, r->chassis, r->device);
	existed = q != NULL;
	if (existed)
		before = *q;
	rv = fd_ledger_quarantine(st->ledger, r->chassis, r->device, reason);
	if (rv == FALCON_OK) {
		struct fd_quarantine after = *fd_ledger_quarantined(st->ledger, r->chassis, r->device);

		rv = commit_locked(st);
		q = fd_ledger_quarantined(st->ledger, r->chassis, r->device);
		/* Not written: the caller is told so, and the device goes back
		 * to what the file says (unless another request changed the
		 * entry meanwhile: then that one's answer stands) */
		if (rv != FALCON_OK && q != NULL && q->since_ms == after.since_ms &&
		    strcmp(q->reason, after.reason) == 0) {
			if (existed)
				*q = before;
			else
				fd_ledger_unquarantine(st->ledger, r->chassis, r->device);
		}
	}
	if (rv == FALCON_OK)
		st->quarantined_total++;
	pthread_mutex_unlock(&st->lock);
	if (rv == FALCON_OK)
		falcon_info("%s/%s quarantined: %s", r->chassis, r->device, reason);
	return rv;
}

falcon_err_t fd_unquarantine(struct fd_state *st, const struct falcon_device_req *r)
{
	struct fd_quarantine *q, before;
	falcon_err_t rv;

	pthread_mutex_lock(&st->lock);
	q = fd_ledger_quarantined(st->ledger, r->chassis, r->device);
	if (q != NULL)
		before = *q;
	rv = fd_ledger_unquarantine(st->ledger, r->chassis, r->device);
	if (rv == FALCON_OK) {
		rv = commit_locked(st);
		/* not written: the device stays quarantined, as the file says */
		if (rv != FALCON_OK &&
		    fd_ledger_quarantined(st->ledger, before.chassis, before.device) == NULL &&
		    fd_ledger_quarantine(st->ledger, before.chassis, before.device,
					 before.reason) == FALCON_OK)
			fd_ledger_quarantined(st->ledger, before.chassis, before.device)->since_ms =
				before.since_ms;
	}
	pthread_mutex_unlock(&st->lock);
	if (rv == FALCON_OK)
		falcon_info("%s/%s back in the pool", r->chassis, r->device);
	return rv;
}

json_object *fd_status_json(struct fd_state *st, uid_t uid, bool all)
{
	json_object *o = json_object_new_object();
	json_object *devs = json_object_new_array();
	json_object *leases = json_object_new_array();
	json_object *quar = json_object_new_array();
	size_t c, i;

	pthread_mutex_lock(&st->lock);
	for (c = 0; c < st->nchassis; c++) {
		const struct fd_chassis *ch = &st->ch[c];

		for (i = 0; ch->have_last && i < ch->last.n; i++) {
			const struct falcon_device *d = &ch->last.devs[i];
			const struct falcon_lease *l = fd_ledger_device_lease(st->ledger, ch->cc->name, d->id);
			bool q = fd_ledger_quarantined(st->ledger, ch->cc->name, d->id) != NULL;
			bool mine = l && (all || (l->uid >= 0 && (uid_t)l->uid == uid));
			json_object *j = json_object_new_object();

			json_object_object_add(j, "chassis", json_object_new_string(ch->cc->name));
			json_object_object_add(j, "id", json_object_new_string(d->id));
			json_object_object_add(j, "drawer", json_object_new_int(d->drawer));
			json_object_object_add(j, "slot", json_object_new_int(d->slot));
			json_object_object_add(j, "type",
					       json_object_new_string(falcon_dev_type_str(d->type)));
			json_object_object_add(j, "model", json_object_new_string(d->model));
			json_object_object_add(j, "health", json_object_new_string(d->health));
			json_object_object_add(j, "state", json_object_new_string(
				q ? "quarantined" : l ? "leased" : d->owner[0] ? "attached" : "free"));
			json_object_object_add(j, "lease", l ? json_object_new_string(l->id) : NULL);
			json_object_object_add(j, "job_id", mine ? json_object_new_int64(l->job_id) : NULL);
			json_object_object_add(j, "host", mine ? json_object_new_string(l->host) : NULL);
			json_object_array_add(devs, j);
		}
	}
	for (i = 0; i < st->ledger->nleases; i++) {
		const struct falcon_lease *l = &st->ledger->leases[i];
		bool mine = all || (l->uid >= 0 && (uid_t)l->uid == uid);
		json_object *j = falcon_proto_lease_json(l);

		if (!mine) {
			json_object_object_add(j, "job_id", NULL);
			json_object_object_add(j, "host", NULL);
			json_object_object_add(j, "uid", NULL);
			json_object_object_add(j, "partition", NULL);
		}
		json_object_array_add(leases, j);
	}
	for (i = 0; i < st->ledger->nquar; i++) {
		const struct fd_quarantine *q = &st->ledger->quar[i];
		json_object *j = json_object_new_object();

		json_object_object_add(j, "chassis", json_object_new_string(q->chassis));
		json_object_object_add(j, "device", json_object_new_string(q->device));
		json_object_object_add(j, "reason", json_object_new_string(q->reason));
		json_object_object_add(j, "since", json_object_new_int64(q->since_ms));
		json_object_array_add(quar, j);
	}
	pthread_mutex_unlock(&st->lock);
	json_object_object_add(o, "devices", devs);
	json_object_object_add(o, "leases", leases);
	json_object_object_add(o, "quarantine", quar);
	return o;
}

/* A growing string for the metrics text. */
struct sbuf {
	char *p;
	size_t n, cap;
	bool oom;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int k;

	for (;;) {
		if (b->oom)
			return;
		va_start(ap, fmt);
		k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
		va_end(ap);
		if (k < 0) {
			b->oom = true;
			return;
		}
		if (b->p && b->n + (size_t)k < b->cap) {
			b->n += (size_t)k;
			return;
		}
		b->cap = (b->cap + (size_t)k + 1) * 2;
		char *np = realloc(b->p, b->cap);
		if (np == NULL) {
			b->oom = true;
			return;
		}
		b->p = np;
	}
}

static void sb_hist(struct sbuf *b, const char *name, const char *help,
		    const struct fd_hist_metric *h)
{
	size_t i;

	sb_printf(b, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
	for (i = 0; i < FD_NBUCKETS; i++) {
		if (isinf(fd_buckets[i]))
			sb_printf(b, "%s_bucket{le=\"+Inf\"} %llu\n", name, h->bucket[i]);
		else
			sb_printf(b, "%s_bucket{le=\"%g\"} %llu\n", name, fd_buckets[i], h->bucket[i]);
	}
	sb_printf(b, "%s_sum %.6f\n%s_count %llu\n", name, h->sum, name, h->count);
}

char *fd_metrics_text(struct fd_state *st)
{
	static const char *const states[] = { "free", "leased", "attached", "quarantined" };
	unsigned long long by_state[4] = { 0 };
	struct sbuf b = { NULL, 0, 0, false };
	size_t c, i;
	int e;

	pthread_mutex_lock(&st->lock);
	for (c = 0; c < st->nchassis; c++)
		for (i = 0; st->ch[c].have_last && i < st->ch[c].last.n; i++) {
			const struct falcon_device *d = &st->ch[c].last.devs[i];
			const char *cn = st->ch[c].cc->name;

			if (fd_ledger_quarantined(st->ledger, cn, d->id))
				by_state[3]++;
			else if (fd_ledger_device_lease(st->ledger, cn, d->id))
				by_state[1]++;
			else if (d->owner[0])
				by_state[2]++;
			else
				by_state[0]++;
		}
	sb_printf(&b, "# HELP falcond_devices Chassis devices by state (last inventory).\n"
		      "# TYPE falcond_devices gauge\n");
	for (i = 0; i < ARRAY_SIZE(states); i++)
		sb_printf(&b, "falcond_devices{state=\"%s\"} %llu\n", states[i], by_state[i]);
	sb_printf(&b, "# HELP falcond_leases Leases in the ledger.\n# TYPE falcond_leases gauge\n"
		      "falcond_leases %zu\n", st->ledger->nleases);
	sb_printf(&b, "# HELP falcond_quarantined_devices Devices in quarantine.\n"
		      "# TYPE falcond_quarantined_devices gauge\nfalcond_quarantined_devices %zu\n",
		  st->ledger->nquar);
	sb_printf(&b, "# HELP falcond_compose_total Compose requests by result.\n"
		      "# TYPE falcond_compose_total counter\n"
		      "falcond_compose_total{result=\"ok\"} %llu\n"
		      "falcond_compose_total{result=\"error\"} %llu\n", st->compose_ok, st->compose_fail);
	sb_printf(&b, "# HELP falcond_decompose_total Decompose requests by result.\n"
		      "# TYPE falcond_decompose_total counter\n"
		      "falcond_decompose_total{result=\"ok\"} %llu\n"
		      "falcond_decompose_total{result=\"error\"} %llu\n",
		  st->decompose_ok, st->decompose_fail);
	sb_hist(&b, "falcond_compose_seconds", "Compose latency.", &st->compose_lat);
	sb_hist(&b, "falcond_decompose_seconds", "Decompose latency.", &st->decompose_lat);
	sb_printf(&b, "# HELP falcond_chassis_errors_total Chassis errors by kind.\n"
		      "# TYPE falcond_chassis_errors_total counter\n");
	for (e = 1; e < FALCON_ERR_MAX; e++)
		if (st->chassis_errors[e])
			sb_printf(&b, "falcond_chassis_errors_total{kind=\"%s\"} %llu\n",
				  falcon_err_name((falcon_err_t)e), st->chassis_errors[e]);
	sb_printf(&b, "# HELP falcond_auth_failures_total Requests refused: 401 and 403.\n"
		      "# TYPE falcond_auth_failures_total counter\n"
		      "falcond_auth_failures_total{status=\"401\"} %llu\n"
		      "falcond_auth_failures_total{status=\"403\"} %llu\n", st->auth_fail, st->perm_fail);
	sb_printf(&b, "# HELP falcond_reconcile_disagreements_total Ledger/chassis/Slurm "
		      "disagreements found by reconcile.\n"
		      "# TYPE falcond_reconcile_disagreements_total counter\n"
		      "falcond_reconcile_disagreements_total{kind=\"orphan_device\"} %llu\n"
		      "falcond_reconcile_disagreements_total{kind=\"device_gone\"} %llu\n"
		      "falcond_reconcile_disagreements_total{kind=\"job_not_running\"} %llu\n"
		      "falcond_reconcile_disagreements_total{kind=\"rolled_back\"} %llu\n",
		  st->disagree_orphan, st->disagree_gone, st->disagree_job, st->rolled_back);
	sb_printf(&b, "# HELP falcond_reconcile_runs_total Reconcile passes.\n"
		      "# TYPE falcond_reconcile_runs_total counter\nfalcond_reconcile_runs_total %llu\n",
		  st->reconcile_runs);
	pthread_mutex_unlock(&st->lock);
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	return b.p;
}
