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
 * falcond_chassis_inventory - the chassis inventory into *inv (caller
 * frees with falcon_inventory_free), with or without ch->lock held: reads
 * go through ch->reader under ch->read_lock (the kept descriptions,
 * desc.h), one at a time; a caller that waited for another's read takes
 * its result.  With fresh false, the last read (a compose's or a
 * reconcile's) is reused while younger than InventoryReuse seconds
 * (falcon.conf(5)) and no error happened since: falcond changes owners
 * only under ch->lock and records them (falcond_port_change).  A
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

/* What falcond_port_change() does to a port's devices. */
enum falcond_change {
	FALCOND_ATTACH, /* give them to the port: falcon_chassis_attach_set() */
	FALCOND_DETACH, /* take them back: falcon_chassis_detach_set(), or
			 * falcon_chassis_detach() for one device */
};

/*
 * falcond_port_change - the one write of a port's devices to the chassis,
 * for a compose's attach, a release's or a rollback's detach and a
 * reconcile's alike: under the port's lock (requests on one port take
 * turns; the caller holds no lock but, for a release, ch->lock), with the
 * port's client (opened on first use from falcon.conf's ChassisName line,
 * an open error counted in the metrics), the caller's budget as the
 * client's deadline (deadline_ms on falcon_now_ms()'s clock, a task
 * followed no longer; 0 = the chassis' own ChangeTimeout= only), what of
 * ids[n] (1 <= n <= FALCON_CHASSIS_SET_MAX) to or from port; then the
 * change recorded for the cache and for a reconcile that read without the
 * lock (on FALCON_OK the cache has them on port, or free for a detach;
 * otherwise the error is counted, the cache is stale and the chassis down
 * when the change may land late; each device touched at a new generation,
 * falcond_chassis_touched).  in_time (may be NULL) is asked under the
 * port's lock before anything is sent: a caller that waited there for
 * another's request may be out of budget; its error is returned with
 * nothing sent.  *sent (may be NULL): whether the request went out.
 * Returns the request's result, errors as falcon_chassis_attach_set() /
 * _detach_set() / _detach() (chassis/chassis.h), or in_time's or the
 * client's open error (nothing sent, nothing recorded).
 */
falcon_err_t falcond_port_change(struct falcond_state *st, struct falcond_chassis *ch,
				 const char *port, enum falcond_change what, const char **ids,
				 size_t n, long long deadline_ms,
				 falcon_err_t (*in_time)(void *ctx), void *ctx, bool *sent);

#endif /* FALCOND_INVENTORY_H */
