/*
 * fp_falcond.c - falcon-prolog/epilog's calls to falcond: compose with
 * retries inside the prolog's budget, decompose, quarantine, the lease of
 * a job (see fp_falcond.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "api/falcond_client.h"
#include "chassis/chassis.h"
#include "fp_common.h"
#include "fp_falcond.h"
#include "core/log.h"
#include "core/util.h"

/* transient - worth another try: the chassis, falcond or a lease may clear. */
static bool transient(falcon_err_t e)
{
	switch (e) {
	case FALCON_ERR_TRANSPORT:
	case FALCON_ERR_TIMEOUT:
	case FALCON_ERR_SERVER:
	case FALCON_ERR_CONFLICT:
	case FALCON_ERR_NORESOURCE:
	case FALCON_ERR_PRECONDITION:
	case FALCON_ERR_CHASSIS:
		return true;
	default:
		return false;
	}
}

/* client - a client whose requests end before deadline (at least 1 s each). */
static falcon_err_t client(const struct falcon_conf *conf, long long deadline,
			   struct falcon_client **cl)
{
	long left = fp_left(deadline) / 1000;

	return falcon_client_new(conf->falcond_url, conf->munge_socket,
				 left < 1 ? 1 : left > 60 ? 60 : (int)left, cl);
}

/*
 * The one retry policy of the prolog's requests to falcond: each request
 * path (compose, compose_wait, decompose, the reconcile of fp_lease_held,
 * quarantine, status) has one loop, and the caller's deadline bounds it
 * and everything below it (lib/api sends once and never sleeps).
 */
struct retry {
	long long deadline;  /* falcon_now_ms() clock */
	int tries;           /* made so far that count against max */
	int max;             /* retries allowed after the first try; < 0: until deadline */
	bool capped;         /* backoff 0.5, 1, 2, 4, then 5 s; else 0.5 s doubling to 32 s */
};

/* pause_ms - sleep ms milliseconds (> 0). */
static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * again - after a try that failed with rv (ra: falcon_client_retry_after()
 * of it, seconds, -1 = none): whether to try again, having slept.  A
 * falcond that said when (a 503 with Retry-After: its start-up reconcile,
 * a standby; a round of FalcondUrl= without an answer) is tried again
 * after that wait, not counted against max; any other transient error
 * after the backoff of its try count, while max allows.  Either wait must
 * end 1 s before the deadline.  false for an error that is not transient.
 */
static bool again(struct retry *r, falcon_err_t rv, long ra)
{
	long ms;

	if (!transient(rv))
		return false;
	if (ra >= 0) {
		ms = ra * 1000L;
	} else {
		if (r->max >= 0 && r->tries >= r->max)
			return false;
		ms = r->capped ? (r->tries < 4 ? 500L << r->tries : 5000L)
			       : 500L << (r->tries < 6 ? r->tries : 6);
		r->tries++;
	}
	if (fp_left(r->deadline) <= ms + 1000)
		return false;
	if (ms > 0)
		pause_ms(ms);
	return true;
}

/* compose_req - the request of job on job->node. */
static void compose_req(const struct fp_job *job, struct falcon_compose_req *req)
{
	memset(req, 0, sizeof(*req));
	req->job_id = job->id;
	falcon_strlcpy(req->host, job->node, sizeof(req->host));
	req->gpus = job->req.falcon_gpus;
	req->nvme = job->req.falcon_nvme;
	req->local_gpus = job->req.gpus;
	req->place_set = job->opts.place_set;
	req->place = job->opts.place;
	falcon_strlcpy(req->partition, job->partition, sizeof(req->partition));
	req->uid = (long)job->uid;
	/* the node's prolog puts the devices on its bus next: only its
	 * epilog may close the lease from now on (decompose off_node) */
	req->on_node = !job->slurmctld;
}

/* compose_try - one POST /v1/compose within deadline; *ra gets its
 * falcon_client_retry_after() (-1 = none); *out is set only on FALCON_OK. */
static falcon_err_t compose_try(const struct falcon_conf *conf, const struct falcon_compose_req *req,
				long long deadline, struct falcon_lease *out, long *ra)
{
	struct falcon_client *cl = NULL;
	struct falcon_lease lease; /* *out only on success: a rollback reads it */
	long long t0 = fp_now_us();
	falcon_err_t rv;

	*ra = -1;
	if ((rv = client(conf, deadline, &cl)) == FALCON_OK) {
		rv = falcon_client_compose(cl, req, &lease);
		*ra = falcon_client_retry_after(cl);
		falcon_client_free(cl);
	}
	fp_time_add(FP_TIME_FALCOND, t0);
	if (rv == FALCON_OK) {
		*out = lease;
		fp_lease_on_host(out);
	}
	return rv;
}

int fp_cause_rank(falcon_err_t e)
{
	switch (e) {
	case FALCON_ERR_TIMEOUT:
	case FALCON_ERR_CHASSIS:
	case FALCON_ERR_PRECONDITION:
	case FALCON_ERR_NORESOURCE:
	case FALCON_ERR_CONFLICT:
		return 2;
	case FALCON_ERR_TRANSPORT:
	case FALCON_ERR_SERVER:
		return 1;
	default:
		return 0;
	}
}

bool fp_cause_note(struct fp_cause *c, falcon_err_t e, const char *detail)
{
	const char *why = fp_wait_why(e, detail);
	bool changed = why != c->told;

	if (c->err == FALCON_OK || fp_cause_rank(e) >= fp_cause_rank(c->err)) {
		c->err = e;
		falcon_strlcpy(c->detail, detail ? detail : "", sizeof(c->detail));
	}
	c->told = why;
	return changed;
}

/* give_up - the error to return after the last try failed with last (its
 * detail in falcon_errmsg()): last itself when it is not a transient one
 * (rank 0: the job's error, tagged falcon:error=), else the ranked cause
 * c, the last try added when it was another error. */
static falcon_err_t give_up(const struct fp_cause *c, falcon_err_t last)
{
	char msg[512];

	if (c->err == last || fp_cause_rank(last) == 0)
		return last; /* not transient (the job's, or unknown): as it is */
	falcon_strlcpy(msg, falcon_errmsg(), sizeof(msg));
	return falcon_err_set(c->err, "%s (the last try: %s: %s)", c->detail,
			      falcon_strerror(last), msg);
}

/*
 * compose_loop - the compose of job on job->node with retry policy r until
 * it is answered, fails for good or r gives up: fp_compose (r->max =
 * ChassisRetries) and fp_compose_wait (r->max < 0: until the deadline,
 * waiting told when the reason changes).  Returns FALCON_OK, the error
 * that is not transient, or the ranked cause (give_up()).
 */
static falcon_err_t compose_loop(const struct falcon_conf *conf, const struct fp_job *job,
				 struct retry *r, struct falcon_lease *out, bool *job_error,
				 fp_wait_fn waiting, void *arg)
{
	struct falcon_compose_req req;
	struct fp_cause cause = { .err = FALCON_OK };
	falcon_err_t rv;
	long ra;
	int n;

	*job_error = false;
	compose_req(job, &req);
	for (n = 1;; n++) {
		if ((rv = compose_try(conf, &req, r->deadline, out, &ra)) == FALCON_OK)
			return FALCON_OK;
		if (!transient(rv)) {
			*job_error = rv == FALCON_ERR_POLICY || rv == FALCON_ERR_PERM;
			return rv;
		}
		if (r->max >= 0)
			falcon_warn("job %u: compose (try %d of %d): %s: %s", job->id, n,
				    r->max + 1, falcon_strerror(rv), falcon_errmsg());
		else
			falcon_warn("job %u: compose on %s (try %d, waiting up to %ld s more): %s: %s",
				    job->id, job->node, n, fp_left(r->deadline) / 1000,
				    falcon_strerror(rv), falcon_errmsg());
		if (fp_cause_note(&cause, rv, falcon_errmsg()) && waiting != NULL) {
			char detail[512];

			/* waiting() may call libslurm, which may set the error */
			falcon_strlcpy(detail, falcon_errmsg(), sizeof(detail));
			waiting(rv, detail, arg);
			falcon_err_set(rv, "%s", detail);
		}
		if (!again(r, rv, ra))
			return give_up(&cause, rv);
	}
}

falcon_err_t fp_compose(const struct falcon_conf *conf, const struct fp_job *job,
			long long deadline, struct falcon_lease *out, bool *job_error)
{
	struct retry r = { .deadline = deadline, .max = conf->chassis_retries };

	return compose_loop(conf, job, &r, out, job_error, NULL, NULL);
}

const char *fp_wait_why(falcon_err_t e, const char *detail)
{
	if (e == FALCON_ERR_TIMEOUT && detail != NULL &&
	    strstr(detail, FALCON_CHASSIS_TIMEOUT_MARK) != NULL)
		return "chassis_timeout";
	switch (e) {
	case FALCON_ERR_TRANSPORT: return "falcond_unreachable";
	case FALCON_ERR_SERVER: return "falcond_unavailable";
	case FALCON_ERR_NORESOURCE: return "pool_short";
	case FALCON_ERR_CONFLICT: return "lease_busy";
	case FALCON_ERR_TIMEOUT: return "chassis_slow";
	case FALCON_ERR_PRECONDITION: return "chassis_busy";
	case FALCON_ERR_CHASSIS: return "chassis_error";
	default: return "compose";
	}
}

falcon_err_t fp_compose_wait(const struct falcon_conf *conf, const struct fp_job *job,
			     long long deadline, struct falcon_lease *out, bool *job_error,
			     fp_wait_fn waiting, void *arg)
{
	struct retry r = { .deadline = deadline, .max = -1, .capped = true };

	return compose_loop(conf, job, &r, out, job_error, waiting, arg);
}

/* decompose_call - one POST /v1/decompose of body (put here) within
 * deadline; *resp the answer (caller puts; NULL on errors), *ra its
 * Retry-After (-1 = none). */
static falcon_err_t decompose_call(const struct falcon_conf *conf, long long deadline,
				   json_object *body, json_object **resp, long *ra)
{
	struct falcon_client *cl = NULL;
	long long t0 = fp_now_us();
	falcon_err_t rv;

	*resp = NULL;
	*ra = -1;
	if ((rv = client(conf, deadline, &cl)) == FALCON_OK) {
		rv = falcon_client_call(cl, "POST", "/v1/decompose", body, NULL, resp);
		*ra = falcon_client_retry_after(cl);
		falcon_client_free(cl);
	}
	json_object_put(body);
	fp_time_add(FP_TIME_FALCOND, t0);
	return rv;
}

falcon_err_t fp_decompose_off_node(const struct falcon_conf *conf, uint32_t job,
				   long long deadline, int *closed, int *quarantined)
{
	struct retry r = { .deadline = deadline, .max = conf->chassis_retries };
	json_object *body, *resp = NULL, *v;
	falcon_err_t rv;
	long ra;
	int n;

	*closed = *quarantined = 0;
	for (n = 1;; n++) {
		body = json_object_new_object();
		json_object_object_add(body, "job_id", json_object_new_int64(job));
		json_object_object_add(body, "off_node", json_object_new_boolean(1));
		json_object_put(resp);
		rv = decompose_call(conf, deadline, body, &resp, &ra);
		if (rv == FALCON_ERR_NOTFOUND) {
			rv = FALCON_OK; /* most jobs: every lease was a node's, or none */
			break;
		}
		if (rv == FALCON_OK) {
			if (json_object_object_get_ex(resp, "closed", &v))
				*closed = (int)json_object_array_length(v);
			if (json_object_object_get_ex(resp, "quarantined", &v))
				*quarantined = json_object_get_int(v);
			break;
		}
		if (!transient(rv))
			break;
		/* (a 503 with Retry-After is not counted against ChassisRetries=) */
		falcon_warn("job %u: decompose off its nodes (try %d): %s: %s", job, n,
			    falcon_strerror(rv), falcon_errmsg());
		if (!again(&r, rv, ra))
			break;
	}
	json_object_put(resp);
	return rv;
}

falcon_err_t fp_decompose(const struct falcon_conf *conf, uint32_t job, const char *node,
			  const char *lease, long long deadline, const char *check, bool keep,
			  int *quarantined)
{
	struct retry r = { .deadline = deadline, .max = conf->chassis_retries };
	json_object *body, *resp = NULL, *q;
	struct falcon_lease found;
	char id[sizeof(found.id)] = "";
	falcon_err_t rv;
	long ra;
	int n;

	if (quarantined)
		*quarantined = 0;
	if (lease != NULL)
		falcon_strlcpy(id, lease, sizeof(id));
	for (n = 1;; n++) {
		ra = -1;
		if (id[0] == '\0') {
			/* by lease, never {"job_id"}: that closes the leases of
			 * the job's other nodes too */
			rv = fp_lease_of(conf, job, node, &found);
			if (rv == FALCON_OK)
				falcon_strlcpy(id, found.id, sizeof(id));
		}
		if (id[0] != '\0') {
			body = json_object_new_object();
			json_object_object_add(body, "lease", json_object_new_string(id));
			if (check != NULL && *check != '\0')
				json_object_object_add(body, "check", json_object_new_string_len(
							       check, (int)strnlen(check, 127)));
			if (keep)
				json_object_object_add(body, "keep", json_object_new_boolean(1));
			json_object_put(resp);
			rv = decompose_call(conf, deadline, body, &resp, &ra);
		}
		if (rv == FALCON_ERR_NOTFOUND) {
			rv = FALCON_OK; /* no lease: nothing to give back */
			break;
		}
		if (rv == FALCON_OK) {
			if (quarantined && json_object_object_get_ex(resp, "quarantined", &q))
				*quarantined = json_object_get_int(q);
			break;
		}
		if (!transient(rv))
			break;
		falcon_warn("job %u: decompose (try %d of %d): %s: %s", job, n,
			    conf->chassis_retries + 1, falcon_strerror(rv), falcon_errmsg());
		if (!again(&r, rv, ra))
			break;
	}
	json_object_put(resp);
	return rv;
}

void fp_give_back(const struct falcon_conf *conf, uint32_t job, const char *node,
		  const char *lease)
{
	if (fp_decompose(conf, job, node, lease, falcon_now_ms() + FP_RESERVE_MS, "rolled back",
			 false, NULL) != FALCON_OK)
		falcon_error("rollback: decompose job %u on %s: %s (falcond's reconcile will "
			     "reclaim the lease)", job, node, falcon_errmsg());
}

falcon_err_t fp_quarantine(const struct falcon_conf *conf, const struct falcon_lease_dev *d,
			   const char *reason)
{
	/* 10 s; only a falcond that says when (Retry-After) is asked again */
	struct retry r = { .deadline = falcon_now_ms() + 10000, .max = 0 };
	struct falcon_client *cl = NULL;
	long long t0 = fp_now_us();
	falcon_err_t rv;

	if ((rv = falcon_client_new(conf->falcond_url, conf->munge_socket, 10, &cl)) == FALCON_OK)
		do
			rv = falcon_client_quarantine(cl, d->chassis, d->id, reason);
		while (again(&r, rv, falcon_client_retry_after(cl)));
	falcon_client_free(cl);
	fp_time_add(FP_TIME_FALCOND, t0);
	return rv;
}

falcon_err_t fp_lease_of(const struct falcon_conf *conf, uint32_t job, const char *node,
			 struct falcon_lease *out)
{
	/* as fp_quarantine: 10 s, asked again only after a Retry-After */
	struct retry r = { .deadline = falcon_now_ms() + 10000, .max = 0 };
	struct falcon_client *cl = NULL;
	json_object *st = NULL, *leases;
	struct falcon_lease l;
	long long t0 = fp_now_us();
	falcon_err_t rv;
	size_t i;

	memset(out, 0, sizeof(*out));
	if ((rv = falcon_client_new(conf->falcond_url, conf->munge_socket, 10, &cl)) != FALCON_OK)
		goto fail;
	do
		rv = falcon_client_status(cl, &st);
	while (again(&r, rv, falcon_client_retry_after(cl)));
	if (rv != FALCON_OK)
		goto fail;
	rv = FALCON_ERR_NOTFOUND;
	if (json_object_object_get_ex(st, "leases", &leases) &&
	    json_object_is_type(leases, json_type_array))
		for (i = 0; i < json_object_array_length(leases); i++) {
			if (falcon_proto_lease_from_json(json_object_array_get_idx(leases, i), &l) !=
			    FALCON_OK)
				continue;
			/* a lease kept warm is no job's any more (KeepWarm=) */
			if (l.job_id == job && strcmp(l.host, node) == 0 &&
			    strcmp(l.state, "kept") != 0) {
				*out = l;
				fp_lease_on_host(out);
				rv = FALCON_OK;
				break;
			}
		}
	if (rv != FALCON_OK)
		falcon_err_set(rv, "falcond has no lease of job %u on %s", job, node);
fail:
	json_object_put(st);
	falcon_client_free(cl);
	fp_time_add(FP_TIME_FALCOND, t0);
	return rv;
}

int fp_lease_held(const struct falcon_conf *conf, uint32_t job, const char *node,
		  const char *lease, long long deadline, char *why, size_t n)
{
	struct falcon_client *cl = NULL;
	json_object *rep = NULL;
	struct retry r = { .deadline = deadline, .max = 3 };
	struct falcon_lease found;
	long long t0;
	falcon_err_t rv;

	for (;;) {
		long ra = -1;

		t0 = fp_now_us();
		if ((rv = client(conf, deadline, &cl)) == FALCON_OK) {
			rv = falcon_client_reconcile(cl, false, &rep);
			ra = falcon_client_retry_after(cl);
			falcon_client_free(cl);
			cl = NULL;
		}
		fp_time_add(FP_TIME_FALCOND, t0);
		json_object_put(rep);
		rep = NULL;
		if ((rv != FALCON_ERR_SERVER && rv != FALCON_ERR_TRANSPORT) || !again(&r, rv, ra))
			break;
	}
	/* 502 carries the reconcile's report, no error code: PROTOCOL */
	if (rv == FALCON_ERR_PROTOCOL || rv == FALCON_ERR_CHASSIS) {
		snprintf(why, n, "falcond's reconcile: a chassis did not answer (%s)", falcon_errmsg());
		return 0;
	}
	if (rv != FALCON_OK) {
		/* unreachable, too slow, or a falcond that does not take
		 * {"reread": false} (400): unknown, the node's as before */
		snprintf(why, n, "falcond could not be asked: %s", falcon_errmsg());
		return -1;
	}
	rv = fp_lease_of(conf, job, node, &found);
	if (rv == FALCON_ERR_NOTFOUND || (rv == FALCON_OK && strcmp(found.id, lease) != 0)) {
		snprintf(why, n, "falcond's reconcile closed lease %s: the chassis no longer gives "
			 "%s its devices", lease, node);
		return 0;
	}
	if (rv != FALCON_OK) {
		snprintf(why, n, "falcond could not be asked: %s", falcon_errmsg());
		return -1;
	}
	snprintf(why, n, "the chassis holds lease %s: its devices are in %s's zone", lease, node);
	return 1;
}
