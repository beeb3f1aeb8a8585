/*
 * detach.h - taking devices back (detach.c): the one rollback of falcond,
 * used by a failed compose, a decompose and a reconcile.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCOND_DETACH_H
#define FALCOND_DETACH_H

#include <stdbool.h>

#include "state.h"

/*
 * falcond_detach_or_quarantine - take device dev of ch back from port; on
 * failure quarantine it with the reason ("detach from PORT failed during
 * WHY: ..."), committed at once (the port's lock taken for the request;
 * st->lock not held).  Returns
 * the detach's result: FALCON_OK, or the chassis error (the device is then
 * quarantined).
 */
falcon_err_t falcond_detach_or_quarantine(struct falcond_state *st, struct falcond_chassis *ch,
					  const char *port, const char *dev, const char *why);

/*
 * falcond_release_lease - detach every device of lease id, each port's in
 * one request (falcon_chassis_detach_set), device by device when that
 * fails (only those with sent[i] set when sent is not NULL: a compose's
 * rollback leaves alone a device whose attach was refused before anything
 * was sent, e.g. one someone else had given the host), close its history
 * with result and drop it from the ledger in memory (st->lock not held;
 * each port's lock taken for its request; the lease is live meanwhile, so
 * that a reconcile leaves it alone); the caller commits.  A crash before the commit leaves
 * the lease in the file with devices detached: reconcile closes it.
 * Returns the number of devices quarantined (0 when there is no lease id).
 */
int falcond_release_lease(struct falcond_state *st, struct falcond_chassis *ch, const char *id,
			  const char *result, const bool *sent);

#endif /* FALCOND_DETACH_H */
