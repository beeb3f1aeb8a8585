/*
 * inventory.c - a chassis as falcond reads it: its client opened on first
 * use, its inventory (the last read reused within InventoryReuse, device
 * descriptions kept by desc.c) and the owners falcond itself changed
 * (inventory.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "inventory.h"
#include "desc.h"
#include "core/log.h"
#include "core/util.h"

/* open_client - *cl, ch's client opened on first use (falcon.conf's
 * ChassisName line); *opened when this call opened it.  Errors of
 * falcon_chassis_open(), counted in the metrics. */
static falcon_err_t open_client(struct falcond_state *st, struct falcond_chassis *ch,
				struct falcon_chassis **cl, bool *opened)
{
	falcon_err_t rv;

	*opened = false;
	if (*cl != NULL)
		return FALCON_OK;
	rv = falcon_chassis_open(ch->cc, cl);
	if (rv != FALCON_OK)
		falcond_count_chassis_error(st, rv);
	*opened = rv == FALCON_OK;
	return rv;
}

/* reader - ch->reader, opened on first use with the kept descriptions
 * (read_lock held). */
static falcon_err_t reader(struct falcond_state *st, struct falcond_chassis *ch)
{
	bool opened;
	falcon_err_t rv = open_client(st, ch, &ch->reader, &opened);

	if (opened)
		falcond_desc_open(st, ch);
	return rv;
}

/* inv_copy - a deep copy of src into dst (dst->n = 0 when out of memory). */
static void inv_copy(struct falcon_inventory *dst, const struct falcon_inventory *src)
{
	*dst = *src; /* the cabling */
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

/* cached - a copy of the cache into *inv when it is good to use: read at
 * or after since_ms (0: any time within InventoryReuse), no error since
 * (st->lock held).  false when it is not (or out of memory). */
static bool cached(struct falcond_state *st, struct falcond_chassis *ch,
		   struct falcon_inventory *inv, long long since_ms)
{
	long long age = falcon_now_ms() - ch->last_ms;

	if (!ch->have_last || ch->stale ||
	    (since_ms ? ch->last_ms < since_ms : age >= st->conf->inventory_reuse * 1000LL))
		return false;
	inv_copy(inv, &ch->last);
	if (inv->n == ch->last.n)
		return true;
	falcon_inventory_free(inv);
	return false;
}

/* keep_changes - a read begun at change generation since may show a
 * device as it was before a change that ended while it ran (a detach on
 * another port, with ParallelPorts=yes): such devices take their owner
 * from the cache, which falcond_port_change() brought up to date;
 * with no cache to take it from, returns false: the read is to be kept
 * as stale, so that the next use reads again (st->lock held).  Without it, a release was
 * forgotten until the next read: a compose 3 s after it found "8 GPU
 * wanted, 6 free". */
static bool keep_changes(const struct falcond_chassis *ch, unsigned long long since,
			 struct falcon_inventory *inv)
{
	bool all = true;
	size_t i, k;

	for (i = 0; i < inv->n; i++) {
		struct falcon_device *d = &inv->devs[i];

		if (!falcond_chassis_touched(ch, since, d->id))
			continue;
		for (k = 0; ch->have_last && k < ch->last.n; k++)
			if (strcmp(ch->last.devs[k].id, d->id) == 0)
				break;
		if (!ch->have_last || k == ch->last.n || ch->stale) {
			all = false;
			continue;
		}
		falcon_strlcpy(d->owner, ch->last.devs[k].owner, sizeof(d->owner));
	}
	return all;
}

falcon_err_t falcond_chassis_inventory(struct falcond_state *st, struct falcond_chassis *ch,
				       struct falcon_inventory *inv, bool fresh)
{
	struct falcon_inventory copy = { .devs = NULL };
	long long asked = falcon_now_ms();
	unsigned long long since;
	falcon_err_t rv;
	bool ok, kept;

	inv->n = 0;
	inv->devs = NULL;
	pthread_mutex_lock(&st->lock);
	ok = !fresh && cached(st, ch, inv, 0);
	pthread_mutex_unlock(&st->lock);
	if (ok)
		return FALCON_OK;
	pthread_mutex_lock(&ch->read_lock);
	/* a read that began after this call did, and ended while it waited
	 * for the lock, is as fresh as one of its own */
	pthread_mutex_lock(&st->lock);
	ok = cached(st, ch, inv, asked);
	pthread_mutex_unlock(&st->lock);
	if (ok) {
		pthread_mutex_unlock(&ch->read_lock);
		return FALCON_OK;
	}
	pthread_mutex_lock(&st->lock);
	asked = falcon_now_ms();
	since = ch->gen;
	pthread_mutex_unlock(&st->lock);
	rv = reader(st, ch);
	if (rv == FALCON_OK) {
		falcond_desc_before_read(st, ch);
		rv = falcon_chassis_inventory(ch->reader, inv);
	}
	if (rv == FALCON_OK)
		falcond_desc_after_read(st, ch);
	pthread_mutex_unlock(&ch->read_lock);
	if (rv != FALCON_OK) {
		falcond_count_chassis_error(st, rv);
		pthread_mutex_lock(&st->lock);
		ch->stale = true;
		ch->down = true;
		if (ch->unreach_ms == 0)
			ch->unreach_ms = asked ? asked : 1;
		pthread_mutex_unlock(&st->lock);
		return rv;
	}
	pthread_mutex_lock(&st->lock);
	kept = keep_changes(ch, since, inv);
	inv_copy(&copy, inv);
	if (ch->unreach_ms != 0 && st->conf->unreachable_hold > 0 &&
	    asked - ch->unreach_ms >= st->conf->unreachable_hold * 1000LL)
		falcon_info("chassis %s answers again after %lld s: its free devices are no "
			    "longer held", ch->cc->name, (asked - ch->unreach_ms) / 1000);
	ch->unreach_ms = 0;
	if (ch->down) {
		/* what failed may have landed meanwhile: reconcile soon */
		falcon_info("chassis %s answers again: reconcile", ch->cc->name);
		ch->down = false;
		st->kick = true;
		pthread_cond_signal(&st->wake);
	}
	if (copy.cabling_known) /* placement takes the service's word from now on */
		falcond_reach_cabling(&ch->reach, copy.cables, copy.ncables);
	if (ch->have_last)
		falcon_inventory_free(&ch->last);
	ch->last = copy;
	ch->have_last = true;
	falcon_inventory_free(&ch->described); /* read: no stand-in needed */
	ch->have_described = false;
	/* what it shows is as of when it was asked for: a change completed
	 * after that is in the cache (chassis_changed) but perhaps not
	 * in this read, so the read does not make the cache younger than that */
	ch->last_ms = asked;
	ch->stale = !kept || copy.n != inv->n;
	pthread_mutex_unlock(&st->lock);
	return FALCON_OK;
}

/* chassis_changed - a change request on ids[n] of ch ended with rv: the
 * record falcond_port_change() makes (takes st->lock). */
static void chassis_changed(struct falcond_state *st, struct falcond_chassis *ch,
			    falcon_err_t rv, const char *port, const char **ids, size_t n)
{
	size_t i, k;

	if (rv != FALCON_OK)
		falcond_count_chassis_error(st, rv);
	pthread_mutex_lock(&st->lock);
	for (k = 0; k < n; k++) {
		ch->gen++;
		ch->touched[ch->gen % FALCOND_TOUCHED_MAX].gen = ch->gen;
		falcon_strlcpy(ch->touched[ch->gen % FALCOND_TOUCHED_MAX].dev, ids[k],
			       sizeof(ch->touched[0].dev));
		for (i = 0; rv == FALCON_OK && ch->have_last && i < ch->last.n; i++)
			if (strcmp(ch->last.devs[i].id, ids[k]) == 0)
				falcon_strlcpy(ch->last.devs[i].owner, port,
					       sizeof(ch->last.devs[i].owner));
	}
	if (rv != FALCON_OK) {
		ch->stale = true;
		ch->down |= falcond_may_land_late(rv);
	}
	pthread_mutex_unlock(&st->lock);
}

falcon_err_t falcond_port_change(struct falcond_state *st, struct falcond_chassis *ch,
				 const char *port, enum falcond_change what, const char **ids,
				 size_t n, long long deadline_ms,
				 falcon_err_t (*in_time)(void *ctx), void *ctx, bool *sent)
{
	struct falcond_port *p = falcond_port_of(ch, port);
	falcon_err_t rv = FALCON_OK;
	bool opened;

	if (sent != NULL)
		*sent = false;
	pthread_mutex_lock(&p->lock);
	if (in_time != NULL)
		rv = in_time(ctx);
	if (rv == FALCON_OK)
		rv = open_client(st, ch, &p->client, &opened);
	if (rv != FALCON_OK) { /* nothing sent */
		pthread_mutex_unlock(&p->lock);
		return rv;
	}
	if (sent != NULL)
		*sent = true;
	if (deadline_ms != 0)
		falcon_chassis_set_deadline(p->client, deadline_ms);
	if (what == FALCOND_ATTACH) {
		rv = falcon_chassis_attach_set(p->client, port, ids, n);
	} else {
		__atomic_add_fetch(&ch->detaches, 1, __ATOMIC_RELAXED);
		rv = n == 1 ? falcon_chassis_detach(p->client, port, ids[0])
			    : falcon_chassis_detach_set(p->client, port, ids, n);
	}
	if (deadline_ms != 0)
		falcon_chassis_set_deadline(p->client, 0);
	chassis_changed(st, ch, rv, what == FALCOND_ATTACH ? port : "", ids, n);
	pthread_mutex_unlock(&p->lock);
	return rv;
}
