/*
 * reconcile.h - the reconcile (reconcile.c): ledger x chassis x Slurm, the
 * settling of what a dead falcond left in flight, and the thread that
 * runs it.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCOND_RECONCILE_H
#define FALCOND_RECONCILE_H

#include <json-c/json.h>

#include "state.h"

/*
 * falcond_reconcile - ledger vs chassis vs Slurm (doc/falcond.8, RECONCILE),
 * the chassis in parallel (a thread each), each marked ready (served by
 * composes during the start-up reconcile) when its pass ends; *report (may
 * be NULL; caller puts) = the counts.  FALCON_ERR_TRANSPORT when a chassis
 * could not be read (the others are still reconciled).  Thread-safe.
 */
falcon_err_t falcond_reconcile(struct falcond_state *st, json_object **report);
/*
 * falcond_reconciler - the body of falcond's reconcile thread; arg is the
 * struct falcond_state.  Runs falcond_reconcile() every ReconcileInterval
 * seconds (falcon.conf; none when 0), at the settle deadline of a lease a
 * dead falcond left in flight (falcond_ledger_settle_next), and at once when
 * a chassis that failed answers again (st->kick).  Sleeps on st->wake in
 * between; returns NULL once falcond_reconciler_stop() was called (after
 * the pass in progress, if any, ends).
 */
void *falcond_reconciler(void *arg);

/* falcond_reconciler_stop - tell the reconcile thread to return (join it). */
void falcond_reconciler_stop(struct falcond_state *st);

#endif /* FALCOND_RECONCILE_H */
