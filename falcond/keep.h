/*
 * keep.h - devices kept warm on their node (keep.c; falcon.conf's
 * KeepWarm=, issue 29): the pure questions of the ledger that decompose,
 * compose and reconcile ask about a lease kept warm.
 *
 * A job's epilog takes its devices off the node's bus (sysfs remove) and
 * asks for the decompose with "keep": when the job's partition has
 * KeepWarm= seconds and Slurm shows a job waiting on that host that can
 * use them, while the jobs waiting there that the keep would not serve ask
 * no more than the chassis has free (falcond_keep_for(); keepslurm.h asks),
 * falcond leaves the devices attached to the host's port and turns the
 * lease "kept" (no chassis request).  The next compose
 * on that host of that user (any user when KeepWarmReset= is set, the
 * prolog then resetting them first) takes the kept devices it can use and
 * attaches only the rest; one that asks for no more than one keep holds
 * is answered at once, with no chassis request: a new lease, the prolog
 * rescans the bus and finds them as after an attach.  A kept lease is
 * released (detached) at its deadline, when a compose anywhere on its
 * chassis lacks free devices (never starve another node: Slurm counts a
 * kept device as free, so a job holding the license gets it), when the
 * node drains or is down, and when a reload lowers KeepWarm= below its age.
 *
 * Above the ledger only: no lock is taken here, the callers hold
 * st->lock.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCOND_KEEP_H
#define FALCOND_KEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ledger.h"
#include "place.h"

/* The history results of a kept lease (falcond_ledger_record_release); a
 * history entry whose result starts with FALCOND_KEEP_RESULT is time the
 * device spent attached and idle (falconctl report --by device). */
#define FALCOND_KEEP_RESULT "kept warm"

/*
 * falcond_keep_seconds - KeepWarm= of lease l's partition in conf (its
 * PartitionName line, else DEFAULT's, else 0: off), in seconds.
 */
int falcond_keep_seconds(const struct falcon_conf *conf, const struct falcon_lease *l);

/*
 * falcond_keep_deadline - when kept lease l is due for release (ms since
 * the epoch, the ledger's clock): its kept_ms plus its partition's
 * KeepWarm= in conf now, so that a reload lowering KeepWarm= shortens
 * every keep at once.  0 when l is not kept.
 */
long long falcond_keep_deadline(const struct falcon_conf *conf, const struct falcon_lease *l);

/*
 * falcond_keep_wanted - whether a decompose of active lease l asked with
 * keep (r) keeps it warm: r->keep, its partition's KeepWarm= > 0, no
 * device of it quarantined in lg, and the job's check verdict (r->check,
 * the prolog's tag) not check=fail, check=warn or check=error (a device
 * that failed its check goes back to the chassis, as without KeepWarm).
 */
bool falcond_keep_wanted(struct falcond_ledger *lg, const struct falcon_conf *conf,
			 const struct falcon_lease *l, const struct falcon_decompose_req *r);

/*
 * falcond_keep_begin - lease l (active, in lg) kept warm at now_ms (ms
 * since the epoch): each device's history entry of the job is closed
 * ("released; kept warm") and a kept one opened, state "kept", kept_ms
 * set.  The caller commits.  FALCON_ERR_NOMEM (a history entry).
 */
falcon_err_t falcond_keep_begin(struct falcond_ledger *lg, struct falcon_lease *l,
				long long now_ms);

/*
 * falcond_keep_serves - whether kept lease l may give devices to compose r
 * on host: kept on host, not past its deadline at now_ms, its uid r->uid's
 * or, when any_user (KeepWarmReset= set), anyone's.
 */
bool falcond_keep_serves(const struct falcon_conf *conf, const struct falcon_lease *l,
			 const struct falcon_compose_req *r, const char *host, bool any_user,
			 long long now_ms);

/*
 * falcond_keep_give - device dev of chassis leaves its kept lease for job
 * (a compose that placed the rest of its devices around it): its kept
 * history entry is closed ("kept warm; reused by job N"), the lease loses
 * it (and is removed once empty).  *idle_gpu_ms (may be NULL) gets the
 * GPU-milliseconds it spent kept, to now_ms (0 for an NVMe).
 * FALCON_ERR_CONFLICT when dev is in no kept lease (nothing changed).  The
 * caller commits.
 */
falcon_err_t falcond_keep_give(struct falcond_ledger *lg, const char *chassis, const char *dev,
			       uint32_t job, long long now_ms, unsigned long long *idle_gpu_ms);

/*
 * falcond_keep_find - the kept lease of lg that can serve compose r on
 * host (NULL: none; a pointer into lg, valid until it changes): kept on
 * host, not past its deadline at now_ms, its uid r->uid's or, when
 * any_user (KeepWarmReset= set), anyone's, holding at least r->gpus GPUs
 * and r->nvme NVMe.  The same user's is preferred, then the oldest (its
 * deadline comes first).
 */
struct falcon_lease *falcond_keep_find(struct falcond_ledger *lg, const struct falcon_conf *conf,
				       const struct falcon_compose_req *r, const char *host,
				       bool any_user, long long now_ms);

/*
 * falcond_keep_take - a new active lease *out for compose r (job, uid,
 * partition, place; id "L-<seq>" from lg->seq) made of r->gpus GPUs and
 * r->nvme NVMe of kept lease k (in lg), added to lg: each device's kept
 * history entry is closed ("kept warm; reused by job N") and one of the
 * new lease opened; k loses them (and is removed once empty).  out->reset
 * is set when k was another user's.  *idle_gpu_ms (may be NULL) gets the
 * GPU-milliseconds the GPUs taken spent kept, to now_ms.  k is not valid
 * after the call.  FALCON_ERR_NORESOURCE (k holds too few: nothing
 * changed); FALCON_ERR_NOMEM adding the new lease (the devices taken are
 * then in no lease: a reconcile detaches them as orphans).  The caller
 * commits.
 */
falcon_err_t falcond_keep_take(struct falcond_ledger *lg, struct falcon_lease *k,
			       const struct falcon_compose_req *r, long long now_ms,
			       struct falcon_lease *out, unsigned long long *idle_gpu_ms);

/*
 * falcond_keep_idle_ms - the GPU-milliseconds kept lease l has held its
 * GPUs idle at now_ms (ms since the epoch): (now_ms - kept_ms) x its GPUs;
 * 0 when not kept.
 */
unsigned long long falcond_keep_idle_ms(const struct falcon_lease *l, long long now_ms);

/*
 * falcond_keep_next - the earliest deadline after after_ms of lg's kept
 * leases under conf (ms since the epoch), 0 when none: the reconcile
 * thread wakes then (one already past at its last pass, its chassis
 * unreachable, waits for the next pass instead of spinning).
 */
long long falcond_keep_next(const struct falcond_ledger *lg, const struct falcon_conf *conf,
			    long long after_ms);

/*
 * A job Slurm shows waiting for chassis devices on a keep's host
 * (falcond_keep_waiters(), keepslurm.h): pending, or configuring (its
 * PrologSlurmctld composing) with no lease yet.
 */
struct falcond_keep_waiter {
	uint32_t job_id;
	long uid;
	uint32_t priority;  /* Slurm's; a configuring job comes before any pending one */
	bool configuring;
	int gpus, nvme;     /* falcon_gpu and falcon_nvme it asks per node */
};

/*
 * falcond_keep_useful - whether keeping lease l warm serves waiter w: its
 * user is l's or any_user (KeepWarmReset= set), and it asks a device of a
 * type l holds (a compose takes the kept devices it can use and attaches
 * the rest: compose.c picks() of kept ones).  *why (may be NULL) gets a static
 * phrase for the log when false.
 */
bool falcond_keep_useful(const struct falcon_lease *l, const struct falcond_keep_waiter *w,
			 bool any_user, const char **why);

/*
 * The devices a compose on a keep's host would find free on the keep's
 * chassis (falcond_keep_pool): free or being released (a "closing" lease:
 * free once its detach ends), reachable from the host, not quarantined,
 * neither Critical nor Absent; kept ones not counted.
 */
struct falcond_keep_pool {
	int free_gpus, free_nvme;
};

/*
 * falcond_keep_pool - fill *pool for lease l (of lg, its devices on one
 * chassis) from inv, that chassis' inventory as last read, and h, the
 * falcon.conf host line of l's host, with r what placement knows of the
 * cabling (may be NULL: every drawer reachable).  The chassis' mode limits
 * (standard: a drawer half per host) are not applied: the free count is
 * an upper bound.  The caller guards lg (st->lock).  No error return.
 */
void falcond_keep_pool(struct falcond_ledger *lg, const struct falcon_lease *l,
		       const struct falcon_host_conf *h, const struct falcond_reach *r,
		       const struct falcon_inventory *inv, struct falcond_keep_pool *pool);

/*
 * falcond_keep_for - the job of w[0..n) that keeping lease l warm would
 * serve (falcond_keep_useful), the first in the order Slurm serves them (a
 * configuring job before a pending one, then the higher priority, then
 * the lower job id); a job that holds a lease of lg already is skipped
 * (its devices are composed), so the caller holds st->lock.  NULL when
 * none: l is then released at once, not kept for nobody (issue 41; a
 * keep that another user's job waits for first is still kept, since
 * releasing all such at their jobs' ends sent bench-warm's p95
 * time-to-start from 73.6 s to 253.8 s at 20 s per PATCH: each release is
 * a detach on the port that job attaches through, where a keep is
 * released for it only when it lacks free devices).
 *
 * With pool (may be NULL: not known, not judged) NULL is returned too
 * when the jobs of w that the keep does not serve (another user's, without
 * KeepWarmReset=) and that hold no lease ask together more of a kind l
 * holds than pool has free: Slurm counts a kept device as free and may
 * start any of them, whose compose, short of free devices, would then
 * release a keep within its own budget, a detach queued behind the port's
 * other requests (make bench-warm's mixed trace at 20 s per PATCH: another
 * user's job released a keep so in 31.8 s and was told to try again: p95
 * time-to-start 52.4 s against 40.1 s off).  Released now, as without
 * KeepWarm=, the detach is the epilog's.  Jobs submitted later are not
 * foreseen.
 *
 * *why (may be NULL) says why when NULL is returned.  The pointer is into
 * w.  No error return.
 */
const struct falcond_keep_waiter *falcond_keep_for(const struct falcond_ledger *lg,
						   const struct falcon_lease *l,
						   const struct falcond_keep_waiter *w, size_t n,
						   bool any_user, const struct falcond_keep_pool *pool,
						   const char **why);

#endif /* FALCOND_KEEP_H */
