/*
 * detach.c - taking devices back: one port's set in one request, device
 * by device when that fails, a device that will not come off quarantined;
 * and the release of a whole lease.  The one rollback of falcond: a
 * failed compose, a decompose and a reconcile all release through
 * falcond_release_lease() (detach.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "detach.h"
#include "inventory.h"
#include "resv.h"
#include "core/log.h"
#include "core/util.h"

/*
 * falcond_detach_or_quarantine - take d back (falcond_port_change); on
 * failure quarantine it with the reason (st->lock not held; takes the
 * port's lock).  Returns the detach
 * result.
 */
falcon_err_t falcond_detach_or_quarantine(struct falcond_state *st, struct falcond_chassis *ch,
					 const char *port, const char *dev, const char *why)
{
	char reason[256];
	falcon_err_t rv;

	rv = falcond_port_change(st, ch, port, FALCOND_DETACH, &dev, 1, 0, NULL, NULL, NULL);
	if (rv == FALCON_OK)
		return rv;
	snprintf(reason, sizeof(reason), "detach from %s failed during %s: %s", port, why,
		 falcon_errmsg());
	falcon_error("%s/%s: %s; quarantined", ch->cc->name, dev, reason);
	pthread_mutex_lock(&st->lock);
	ch->stale = true;
	if (falcond_ledger_quarantine(st->ledger, ch->cc->name, dev, reason) == FALCON_OK)
		st->quarantined_total++;
	/* Held in memory either way; if the ledger write fails, a restart
	 * forgets the quarantine but finds the device attached without a lease
	 * and its reconcile detaches (or quarantines) it again. */
	if (falcond_commit_locked(st) != FALCON_OK)
		falcon_error("%s/%s: quarantine not written to the ledger: %s",
			     ch->cc->name, dev, falcon_errmsg());
	pthread_mutex_unlock(&st->lock);
	falcond_resv_kick(st, false);
	return rv;
}

/*
 * detach_port - take back every device of l on port (those with sent[i]
 * set, unless sent is NULL) in one request (falcond_port_change,
 * falcon_chassis_detach_set: one zone PATCH); when that fails, each on its own with
 * falcond_detach_or_quarantine, so that only a device that will not come off is
 * quarantined (the port's lock taken for each request; st->lock not
 * held).  Returns the number quarantined.
 */
static int detach_port(struct falcond_state *st, struct falcond_chassis *ch,
		       const struct falcon_lease *l, const char *port, const bool *sent,
		       const char *why)
{
	const char *ids[FALCON_CHASSIS_SET_MAX];
	size_t i, n = falcond_lease_port_set(l, port, sent, ids);
	falcon_err_t rv;
	int nq = 0;

	if (n == 0) /* a rollback's device that was never sent */
		return 0;
	if (n > 1) {
		rv = falcond_port_change(st, ch, port, FALCOND_DETACH, ids, n, 0, NULL, NULL, NULL);
		if (rv == FALCON_OK)
			return 0;
		falcon_warn("%s: detach of %zu devices from %s during %s: %s; one by one",
			    ch->cc->name, n, port, why, falcon_errmsg());
	}
	for (i = n; i-- > 0;)
		if (falcond_detach_or_quarantine(st, ch, port, ids[i], why) != FALCON_OK)
			nq++;
	return nq;
}

/*
 * falcond_release_lease - detach every device of lease id (only those with sent[i]
 * set when sent is not NULL: a compose's rollback leaves alone a device
 * whose attach was refused before anything was sent, e.g. one someone else
 * had given the host), close its history with result and drop it from the
 * ledger in memory (no lock held but the caller's ch->lock, if it holds
 * it: the lease is live meanwhile); the caller commits.  A
 * crash before the commit leaves the lease in the file with devices
 * detached: reconcile closes it.  Returns the number of devices
 * quarantined.
 */
int falcond_release_lease(struct falcond_state *st, struct falcond_chassis *ch, const char *id,
			 const char *result, const bool *sent)
{
	struct falcon_lease l, *lp;
	bool live;
	int nq = 0;
	size_t i;

	pthread_mutex_lock(&st->lock);
	lp = falcond_ledger_lease(st->ledger, id);
	if (lp == NULL) {
		pthread_mutex_unlock(&st->lock);
		return 0;
	}
	if (strcmp(lp->state, "composing") != 0) {
		falcon_strlcpy(lp->state, "closing", sizeof(lp->state));
		/* kept no more: the ledger has "kept" with state "kept" only (a
		 * commit during the detach wrote a kept lease closing with it,
		 * and no falcond would load that ledger: make soak-fleet) */
		lp->kept_ms = 0;
	}
	l = *lp;
	/* a reconcile leaves it alone meanwhile (a compose's rollback has
	 * marked it already) */
	live = falcond_live_add(ch, id);
	pthread_mutex_unlock(&st->lock);
	for (i = 0; i < l.ndevs; i++)
		if (falcond_lease_port_first(&l, i))
			nq += detach_port(st, ch, &l, l.devs[i].port, sent, result);
	pthread_mutex_lock(&st->lock);
	for (i = 0; i < l.ndevs; i++) {
		bool q = falcond_ledger_quarantined(st->ledger, l.devs[i].chassis,
						    l.devs[i].id) != NULL;

		falcond_ledger_record_release(st->ledger, l.id, &l.devs[i],
					      q ? "quarantined" : result);
	}
	falcond_ledger_remove_lease(st->ledger, l.id);
	if (live)
		falcond_live_del(st, ch, l.id);
	pthread_mutex_unlock(&st->lock);
	return nq;
}
