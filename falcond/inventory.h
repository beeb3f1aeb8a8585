/*
 * inventory.h - a chassis as falcond reads it (inventory.c): its client,
 * its inventory with the last read reused, the owners falcond changed.
 * Every call is made with the chassis' lock held.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCOND_INVENTORY_H
#define FALCOND_INVENTORY_H

#include <stdbool.h>

#include "chassis/chassis.h"
#include "state.h"

/*
 * falcond_chassis_client - ch->client, opened on first use (falcon.conf's
 * ChassisName line; the kept descriptions loaded, desc.h) (ch->lock held).
 * Errors of falcon_chassis_open(), counted in the metrics.
 */
falcon_err_t falcond_chassis_client(struct falcond_state *st, struct falcond_chassis *ch);

/*
 * falcond_chassis_inventory - the chassis inventory into *inv (caller
 * frees with falcon_inventory_free) (ch->lock held).  With fresh false,
 * the last read (a compose's or a reconcile's) is reused while younger
 * than InventoryReuse seconds (falcon.conf(5)) and no error happened
 * since: falcond itself changes owners only under ch->lock and records
 * them (falcond_chassis_set_owner).  A change made behind its back is safe
 * either way: a device attached to another host is refused by the chassis
 * (one PCIe device, one host port: 409), which marks the cache stale and
 * places again from a fresh read; a device freed is not used until the
 * next read (the periodic reconcile reads every ReconcileInterval).  A
 * read that fails marks the chassis down (its error returned); the next
 * one that works kicks the reconcile thread.
 */
falcon_err_t falcond_chassis_inventory(struct falcond_state *st, struct falcond_chassis *ch,
				       struct falcon_inventory *inv, bool fresh);

/* falcond_chassis_set_owner - record in the cached inventory that device
 * dev is on port ("" = free) (takes st->lock). */
void falcond_chassis_set_owner(struct falcond_state *st, struct falcond_chassis *ch,
			       const char *dev, const char *port);

#endif /* FALCOND_INVENTORY_H */
