/*
 * quarantine.c - an administrator takes a device out of the pool or puts
 * it back, committed before the answer (quarantine.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "quarantine.h"
#include "resv.h"
#include "core/log.h"
#include "core/util.h"

falcon_err_t falcond_quarantine(struct falcond_state *st, const struct falcon_device_req *r)
{
	const char *reason = r->reason[0] ? r->reason : "by an administrator";
	struct falcond_quarantine before, *q;
	bool existed;
	falcon_err_t rv;

	if (falcond_chassis_of(st, r->chassis) == NULL)
		return falcon_err_set(FALCON_ERR_NOTFOUND, "quarantine: no chassis %s", r->chassis);
	pthread_mutex_lock(&st->lock);
	q = falcond_ledger_quarantined(st->ledger, r->chassis, r->device);
	existed = q != NULL;
	if (existed)
		before = *q;
	rv = falcond_ledger_quarantine(st->ledger, r->chassis, r->device, reason);
	if (rv == FALCON_OK) {
		struct falcond_quarantine after = *falcond_ledger_quarantined(st->ledger, r->chassis, r->device);

		rv = falcond_commit_locked(st);
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
		rv = falcond_commit_locked(st);
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
