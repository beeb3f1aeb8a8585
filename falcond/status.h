/*
 * status.h - what falcond shows of its state (status.c):
 * the status answer, the Prometheus metrics and their latency histograms.
 * Read-only over struct falcond_state (under st->lock); called by the HTTP
 * front (falcond.c), never by compose.c.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCOND_STATUS_H
#define FALCOND_STATUS_H

#include <stdbool.h>
#include <sys/types.h>

#include <json-c/json.h>

#include "state.h"

/* upper bounds of the latency histogram buckets, seconds (Prometheus le=) */
extern const double falcond_buckets[FALCOND_NBUCKETS];

/*
 * falcond_status_json - chassis (each with "reachable": its last read
 * worked, and "read_age_ms": how long ago its inventory was read, ms), pool (each device of each
 * chassis' last inventory with its state: free, attached, leased,
 * quarantined), leases, quarantine (a new object, caller puts); job, host,
 * uid and partition only of uid's leases unless all.  Takes st->lock.
 */
json_object *falcond_status_json(struct falcond_state *st, uid_t uid, bool all);
/*
 * falcond_metrics_text - the counters, gauges and histograms of st in the
 * Prometheus text exposition format 0.0.4 (a new string, caller frees;
 * NULL when out of memory), falcond_active 1 among them.  Takes st->lock.
 */
char *falcond_metrics_text(struct falcond_state *st);
/*
 * falcond_metrics_standby_text - what a standby falcond exports on
 * /metrics: falcond_active 0 (a new string, caller frees; NULL when out of
 * memory).  Reads no state: a standby has no ledger.
 */
char *falcond_metrics_standby_text(void);
/*
 * falcond_observe - add one latency s (seconds) to histogram h: each bucket
 * whose bound is >= s, count and sum (Prometheus cumulative buckets).  The
 * caller holds st->lock.
 */
void falcond_observe(struct falcond_hist_metric *h, double s);

#endif /* FALCOND_STATUS_H */
