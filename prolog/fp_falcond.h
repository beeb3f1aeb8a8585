/*
 * fp_falcond.h - falcon-prolog/epilog's requests to falcond (fp_falcond.c):
 * compose with one retry policy inside the caller's deadline, decompose,
 * quarantine, the lease of a job.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_FP_FALCOND_H
#define FALCON_FP_FALCOND_H

#include <stdbool.h>
#include <stdint.h>

#include "core/falcon_err.h"
#include "fp_common.h"


/*
 * fp_compose - ask falcond for the job's devices, retrying transient errors
 * (transport, timeout, 5xx, conflict, noresource) ChassisRetries times with
 * backoff 0.5, 1, 2 ... s, never past deadline (falcon_now_ms() clock); a
 * 503 with Retry-After (falcon_client_retry_after()) is sent again after
 * that wait, inside the same deadline, not counted as a retry: this is the
 * request's one retry loop (lib/api never retries or sleeps).  *job_error
 * is set for errors that are the job's (policy, perm): no retry, the node
 * is fine.  *out is filled on FALCON_OK, with the host's fields
 * (fp_lease_on_host()); left as it was otherwise.  Returns the cause of
 * the failure: the error of the retries that fp_cause_note() ranks highest
 * (FALCON_ERR_*; its detail set, the last try's error added when another).
 */
falcon_err_t fp_compose(const struct falcon_conf *conf, const struct fp_job *job,
			long long deadline, struct falcon_lease *out, bool *job_error);
/* fp_wait_fn - told each time the reason of a waiting compose changes:
 * why is the error, detail its message (borrowed for the call); arg is
 * fp_compose_wait()'s. */
typedef void (*fp_wait_fn)(falcon_err_t why, const char *detail, void *arg);
/*
 * fp_compose_wait - fp_compose for PrologSlurmctld: transient errors
 * (falcond unreachable or 503, the pool short, a chassis slow or failing)
 * are retried until deadline (falcon_now_ms() clock; ComposeWait=), with
 * backoff 0.5, 1, 2, 4, then 5 s, not ChassisRetries times; waiting (NULL
 * = none) is called when the reason changes.  falcond answers a repeated
 * compose of the same job and host with the same lease
 * (falcond's compose_repeat()), so a retry after a request
 * that timed out on our side never leases twice.  Returns the cause
 * (as fp_compose) when the deadline passed; *job_error as fp_compose.
 */
falcon_err_t fp_compose_wait(const struct falcon_conf *conf, const struct fp_job *job,
			     long long deadline, struct falcon_lease *out, bool *job_error,
			     fp_wait_fn waiting, void *arg);
/* fp_wait_why - the word of AdminComment "falcon:waiting=<word>" for a
 * transient compose error e ("falcond_unreachable", "pool_short", ...);
 * a static string.  detail (its falcon_errmsg(), NULL = none) tells a
 * timeout of the chassis' own key (FALCON_CHASSIS_TIMEOUT_MARK: Timeout=
 * or ChangeTimeout= too short for the chassis, "chassis_timeout") from
 * a caller's budget that ran out ("chassis_slow"). */
const char *fp_wait_why(falcon_err_t e, const char *detail);
/*
 * The cause of a compose that failed after its retries (the tag
 * falcon:requeued=<why>, issue #32) is the error of the retries that
 * tells most of why the job has no devices, ranked by fp_cause_rank():
 *   2  what falcond reported of the chassis, the pool or the lease
 *      (TIMEOUT: chassis_timeout, chassis_slow; CHASSIS, PRECONDITION,
 *      NORESOURCE, CONFLICT);
 *   1  falcond's own state (TRANSPORT: unreachable; SERVER: a 503 of a
 *      standby or of a falcond starting or failing over);
 *   0  anything else (not retried: returned as it is).
 * Why: falcond unreachable or answering 503 after it reported a chassis
 * timeout only says falcond could not be asked again (it restarted, a
 * standby answered); nothing since showed that the chassis recovered, so
 * the chassis stays the cause.  Of the same rank the later error counts:
 * it is the state now.  The waiting reason (falcon:waiting=<why>) is the
 * latest error's, not the ranked one's: it says what the prolog waits on.
 */
int fp_cause_rank(falcon_err_t e);
/* fp_cause - the ranked cause of a retry sequence and the waiting reason
 * last told (fp_cause_note()); zeroed (memset or = { 0 }) to start. */
struct fp_cause {
	falcon_err_t err;   /* FALCON_OK: no error yet */
	char detail[512];   /* its falcon_errmsg() */
	const char *told;   /* fp_wait_why() of the latest error; NULL = none */
};
/* fp_cause_note - one failed try with e (detail: its falcon_errmsg(), NULL
 * = none): c->err/detail become e's when e ranks at least as high as the
 * cause so far.  true when the waiting reason changed (fp_wait_why() of e
 * differs from the one before: tell it again). */
bool fp_cause_note(struct fp_cause *c, falcon_err_t e, const char *detail);
/*
 * fp_decompose - give back the job's lease on node: lease (its id; NULL or
 * "" = looked up with fp_lease_of()), never every lease of the job (the
 * job's other nodes keep theirs).  *quarantined (may be NULL) gets
 * falcond's count of devices it could not detach.  No lease is FALCON_OK.
 * check (NULL = none) is the job's check verdict, recorded by falcond in
 * each device's history (at most 127 characters are sent).  keep: the
 * devices are off the node's bus and falcond may keep them attached to the
 * host for the partition's KeepWarm= (sent only when true, so that a
 * falcond older than KeepWarm= is never sent the field).  Retries
 * transient errors like fp_compose, never past deadline (falcon_now_ms()).
 * Errors: falcond's (FALCON_ERR_*), the detail set.
 */
falcon_err_t fp_decompose(const struct falcon_conf *conf, uint32_t job, const char *node,
			  const char *lease, long long deadline, const char *check, bool keep,
			  int *quarantined);
/*
 * fp_decompose_off_node - EpilogSlurmctld's give-back: POST /v1/decompose
 * {"job_id": job, "off_node": true}: falcond waits for the job's composes
 * in flight, then closes each lease of the job no node prolog asked for
 * (a job cancelled in CONFIGURING: slurmctld SIGKILLs PrologSlurmctld and
 * runs no node epilog, so nothing else gives its devices back before the
 * reconcile; falcond also marks the job ended, so that a compose of it
 * asked before and not yet begun gives up).  *closed: leases closed,
 * *quarantined: devices the chassis
 * did not detach.  None to close is FALCON_OK with *closed 0.  Retries
 * transient errors like fp_decompose, never past deadline
 * (falcon_now_ms()).  Errors: falcond's (FALCON_ERR_*), the detail set.
 */
falcon_err_t fp_decompose_off_node(const struct falcon_conf *conf, uint32_t job,
				   long long deadline, int *closed, int *quarantined);
/* Kept back from the prolog's time for giving a lease back (ms). */
#define FP_RESERVE_MS 5000
/*
 * fp_give_back - the prolog's rollback of a lease on node: fp_decompose()
 * with check "rolled back" and FP_RESERVE_MS from now (falcond gets the
 * reserve even when the prolog's own time ran out), a failure logged
 * (falcond's reconcile reclaims the lease).  lease NULL or "": looked up.
 * Used by every rollback of the prolog (node prolog and PrologSlurmctld).
 */
void fp_give_back(const struct falcon_conf *conf, uint32_t job, const char *node,
		  const char *lease);
/* fp_quarantine - POST /v1/quarantine for one device (reason may be NULL),
 * within 10 s (a 503 with Retry-After sent again inside them).  FALCON_OK,
 * else falcond's error with the detail set. */
falcon_err_t fp_quarantine(const struct falcon_conf *conf, const struct falcon_lease_dev *d,
			   const char *reason);
/*
 * fp_lease_held - after a rescan timeout, is the lease's absence the node's
 * problem?  Asks falcond to reconcile (POST /v1/reconcile {"reread":false}:
 * the zones read again, the descriptions kept), which closes a lease whose
 * devices the chassis no longer gives the host ("gone from the chassis": a
 * chassis restarted and lost its zones), then looks for lease id of job on
 * node (GET /v1/status).  1: the chassis holds it (the devices are in the
 * host's zone: not appearing is the node's); 0: it does not, or a chassis
 * did not answer the reconcile (502); -1: falcond could not be asked before
 * deadline (falcon_now_ms(); a 503 of its start-up reconcile is retried)
 * or refused the request (an older falcond: 400), the error set.  why (n
 * bytes) gets what was found.
 */
int fp_lease_held(const struct falcon_conf *conf, uint32_t job, const char *node,
		  const char *lease, long long deadline, char *why, size_t n);
/* fp_lease_of - the job's lease on node from GET /v1/status into *out
 * (epilog fallback), with the host's fields (fp_lease_on_host()), within
 * 10 s as fp_quarantine.  FALCON_ERR_NOTFOUND when falcond has none; else
 * its error, the detail set. */
falcon_err_t fp_lease_of(const struct falcon_conf *conf, uint32_t job, const char *node,
			 struct falcon_lease *out);

#endif /* FALCON_FP_FALCOND_H */
