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

/* falcond_chassis_client - the chassis' client, opened on first use (ch->lock held). */
falcon_err_t falcond_chassis_client(struct falcond_state *st, struct falcond_chassis *ch)
{
	falcon_err_t rv;

	if (ch->client != NULL)
		return FALCON_OK;
	rv = falcon_chassis_open(ch->cc, &ch->client);
	if (rv != FALCON_OK)
		falcond_count_chassis_error(st, rv);
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
 * falcond_chassis_inventory - the chassis inventory into *inv (caller frees) (ch->lock
 * held).  With fresh false, the last read (a compose's or a reconcile's)
 * is reused while younger than InventoryReuse (falcon.conf(5)) and no
 * error happened since: falcond itself changes owners only under ch->lock
 * and records them (falcond_chassis_set_owner).  A change made behind its back is safe
 * either way: a device attached to another host is refused by the chassis
 * (one PCIe device, one host port: 409), which marks the cache stale and
 * places again from a fresh read (attach_refused); a device freed is not
 * used until the next read (the periodic reconcile reads every
 * ReconcileInterval).  A read that fails marks the chassis down; the next
 * one that works kicks the reconcile thread (falcond_reconciler).
 */
falcon_err_t falcond_chassis_inventory(struct falcond_state *st, struct falcond_chassis *ch,
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
	rv = falcond_chassis_client(st, ch);
	if (rv == FALCON_OK) {
		falcond_desc_before_read(st, ch);
		rv = falcon_chassis_inventory(ch->client, inv);
	}
	if (rv == FALCON_OK)
		falcond_desc_after_read(st, ch);
	if (rv != FALCON_OK) {
		falcond_count_chassis_error(st, rv);
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

/* falcond_chassis_set_owner - record in the cached inventory that dev is on port ("" = free). */
void falcond_chassis_set_owner(struct falcond_state *st, struct falcond_chassis *ch, const char *dev,
			 const char *port)
{
	size_t i;

	pthread_mutex_lock(&st->lock);
	for (i = 0; ch->have_last && i < ch->last.n; i++)
		if (strcmp(ch->last.devs[i].id, dev) == 0)
			falcon_strlcpy(ch->last.devs[i].owner, port, sizeof(ch->last.devs[i].owner));
	pthread_mutex_unlock(&st->lock);
}
