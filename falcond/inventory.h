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
 * falcond_port_client - p->client, the client that changes port p of ch,
 * opened on first use (falcon.conf's ChassisName line) (p->lock held).
 * Errors of falcon_chassis_open(), counted in the metrics.
 */
falcon_err_t falcond_port_client(struct falcond_state *st, struct falcond_chassis *ch,
				struct falcond_port *p);

/*
 * falcond_chassis_inventory - the chassis inventory into *inv (caller
 * frees with falcon_inventory_free), with or without ch->lock held: reads
 * go through ch->reader under ch->read_lock (the kept descriptions,
 * desc.h), one at a time; a caller that waited for another's read takes
 * its result.  With fresh false, the last read (a compose's or a
 * reconcile's) is reused while younger than InventoryReuse seconds
 * (falcon.conf(5)) and no error happened since: falcond changes owners
 * only under ch->lock and records them (falcond_chassis_changed).  A
 * change made behind its back is safe either way: a device attached to
 * another host is refused by the chassis (one PCIe device, one host port:
 * 409), which marks the cache stale and places again from a fresh read; a
 * device freed is not used until the next read (the periodic reconcile
 * reads every ReconcileInterval).  A read that fails marks the chassis
 * down (its error returned); the next one that works kicks the reconcile
 * thread.
 */
falcon_err_t falcond_chassis_inventory(struct falcond_state *st, struct falcond_chassis *ch,
				       struct falcon_inventory *inv, bool fresh);

/*
 * falcond_chassis_changed - a change request on devices ids[n] of ch
 * ended with rv (takes st->lock): on FALCON_OK the cache
 * has them on port ("" = free); otherwise the error is counted, the cache
 * is stale and the chassis down when the change may land late.  Either
 * way each device is recorded as touched at a new generation
 * (falcond_chassis_touched).
 */
void falcond_chassis_changed(struct falcond_state *st, struct falcond_chassis *ch,
			     falcon_err_t rv, const char *port, const char **ids, size_t n);

#endif /* FALCOND_INVENTORY_H */
