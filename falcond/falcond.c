/*
 * falcond.c - falcond's HTTP front (falcond.h): lib/httpd's thread pool
 * over libmicrohttpd's event loop (epoll where the library has it; the
 * authenticated requests run on worker threads of their own, their
 * connection suspended meanwhile), munge authentication of every API
 * request and the dispatch to compose.c, decompose.c, reconcile.c,
 * quarantine.c, status.c and history.c; a standby answers 503.  The
 * process around it (options, signals, the standby and active roles, the
 * SIGHUP reload): main.c.  Routes and answers: doc/falcond.8.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "falcond.h"
#include "compose.h"
#include "confgen.h"
#include "decompose.h"
#include "desc.h"
#include "ha.h"
#include "history.h"
#include "quarantine.h"
#include "reconcile.h"
#include "status.h"
#include "api/auth.h"
#include "core/log.h"
#include "core/util.h"
#include "httpd/httpd.h"

/* Seconds a client is asked to wait (Retry-After) while falcond reconciles. */
#define RECONCILING_RETRY_AFTER "1"

/*
 * The HTTP front's limits (doc/falcond.8, LIMITS).  Idle connections cost
 * a socket and a few hundred bytes in the event loop, not a thread: the
 * connection limit is well above the 2,000 idle connections of issue 12,
 * bounded by RLIMIT_NOFILE (raised to its hard limit at start).  At most
 * WORKERS_MAX authenticated requests run at a time (a thread each); more
 * are answered 503 with Retry-After.
 *
 * Incomplete connections (issue 32; lib/httpd's deadlines, httpd.h):
 *  - HTTP_REQUEST_S: a new connection must have sent a complete request
 *    (headers and body) within this many seconds of its accept, else it is
 *    closed, however slowly it trickles;
 *  - HTTP_IDLE_S: after an answer, a kept-alive connection's next request
 *    must be complete within this many seconds of that answer, and within
 *    HTTP_REQUEST_S of its request line; libmicrohttpd's own inactivity
 *    timeout stays HTTP_IDLE_S;
 *  - HTTP_PER_IP: at most this many incomplete connections per address;
 *    a new one beyond it drops the oldest incomplete one of that address
 *    (the new one is accepted, never refused: libmicrohttpd's own
 *    per-address limit, which refuses it, is not set);
 *  - a quarter of the connection limit is kept for connections with a
 *    complete request (authenticated work: a worker, a suspended compose,
 *    its answer).
 */
#define HTTP_POOL_THREADS 4u
#define HTTP_CONN_LIMIT 16384u
#define HTTP_PER_IP 64u
#define HTTP_IDLE_S 10u
#define HTTP_REQUEST_S 5u
#define WORKERS_MAX 256

/* Seconds a compose refused by a stopping falcond is asked to wait. */
#define STOPPING_RETRY_AFTER "1"

/* The HTTP front (falcond_http_start): the server, the state it serves
 * (main.c's), the worker threads running (lock). */
struct falcond_http {
	struct falcon_httpd *httpd;
	struct falcond_state *st;
	pthread_mutex_t lock;
	pthread_cond_t done;
	int workers;
};

/* An answer built away from its connection (worker threads), queued by
 * queue_ans(). */
struct ans {
	unsigned status;
	char *text;               /* owned; NULL = close the connection */
	const char *ctype;
	const char *retry_after;  /* Retry-After header, NULL = none */
};

enum rq_state { RQ_NEW, RQ_RUNNING, RQ_DONE };

struct route;

/* A request's own state (falcon_httpd_req.ctx, freed by req_free). */
struct req {
	struct falcond_http *fh;
	struct falcond_state *st;
	const char *body;         /* the falcon_httpd_req's: valid until the request ends */
	size_t len;
	enum rq_state state;
	/* what the worker needs, copied off the connection */
	struct MHD_Connection *c;
	const struct route *rt;
	char method[16];
	char *auth, *qstart, *qend;
	long long deadline_ms;    /* the caller's budget ends (falcon_now_ms), 0 = none */
	long long asked_ms;       /* falcon_now_ms() when its body was complete */
	char addr[80];
	struct ans a;
};

/* answer_text - text (owned, consumed) as the answer a with status. */
static void answer_text(struct ans *a, unsigned status, char *text, const char *ctype)
{
	a->status = status;
	a->text = text;
	a->ctype = ctype;
}

/* answer_json - o (consumed) as the answer with status. */
static void answer_json(struct ans *a, unsigned status, json_object *o)
{
	char *s = strdup(o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN) : "{}");

	json_object_put(o);
	answer_text(a, status, s, "application/json");
}

static void answer_err(struct ans *a, falcon_err_t e, const char *detail)
{
	unsigned status = falcon_proto_http_status(e);

	answer_json(a, status, falcon_proto_error_json(e, detail));
}

/* chassis_err - the error of a compose or decompose as its caller must name
 * it: FALCON_ERR_SERVER out of them is the chassis' (a 5xx or 429 to a
 * request of falcond's: lib/chassis/rf_json.c), answered as
 * FALCON_ERR_CHASSIS, since "server" from falcond means falcond itself is
 * unavailable (its 503s: standby, stopping, reconciling) and a requeued
 * job's tag read falcond_unavailable for a chassis that answered 503
 * (prolog-slurm.sh); others as they are. */
static falcon_err_t chassis_err(falcon_err_t e)
{
	return e == FALCON_ERR_SERVER ? FALCON_ERR_CHASSIS : e;
}

/* queue_ans - queue a (its text consumed) on c; MHD_NO (the connection
 * is closed) when there is no text or it cannot be queued. */
static enum MHD_Result queue_ans(struct MHD_Connection *c, struct ans *a)
{
	struct MHD_Response *r;
	enum MHD_Result ret;
	char *text = a->text;

	a->text = NULL;
	if (text == NULL)
		return MHD_NO;
	if ((r = falcon_httpd_text(text, a->ctype)) == NULL)
		return MHD_NO;
	if (a->retry_after != NULL)
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, a->retry_after);
	ret = MHD_queue_response(c, a->status, r);
	MHD_destroy_response(r);
	return ret;
}

enum route_auth { OPEN, AUTH, PRIV };

struct route {
	const char *method;
	const char *path;
	enum route_auth auth;
	int id;
};

enum { R_COMPOSE, R_DECOMPOSE, R_STATUS, R_QUAR, R_UNQUAR, R_RECONCILE, R_HEALTH, R_METRICS,
       R_HISTORY };

static const struct route routes[] = {
	{ "POST", "/v1/compose", PRIV, R_COMPOSE },
	{ "POST", "/v1/decompose", PRIV, R_DECOMPOSE },
	{ "GET", "/v1/status", AUTH, R_STATUS },
	{ "POST", "/v1/quarantine", PRIV, R_QUAR },
	{ "POST", "/v1/unquarantine", PRIV, R_UNQUAR },
	{ "POST", "/v1/reconcile", PRIV, R_RECONCILE },
	{ "GET", "/v1/health", OPEN, R_HEALTH },
	{ "GET", "/metrics", OPEN, R_METRICS },
	{ "GET", "/v1/history", AUTH, R_HISTORY },
};

/*
 * reconcile_body - the body of POST /v1/reconcile: empty, {} or
 * {"reread": BOOL} (default true: every device's description is read
 * again).  FALCON_ERR_PARSE naming the field otherwise.
 */
static falcon_err_t reconcile_body(const char *body, size_t len, bool *reread)
{
	json_object *o, *v;
	falcon_err_t rv = FALCON_OK;

	*reread = true;
	if (len == 0)
		return FALCON_OK;
	o = json_tokener_parse(body);
	if (o == NULL || !json_object_is_type(o, json_type_object)) {
		rv = falcon_err_set(FALCON_ERR_PARSE, "reconcile: body: expected {} or "
				    "{\"reread\": true|false}");
	} else {
		json_object_object_foreach(o, key, val) {
			if (strcmp(key, "reread") != 0) {
				rv = falcon_err_set(FALCON_ERR_PARSE, "reconcile: body: unknown "
						    "field \"%.40s\" (expected reread)", key);
				break;
			}
			(void)val;
		}
		if (rv == FALCON_OK && json_object_object_get_ex(o, "reread", &v)) {
			if (!json_object_is_type(v, json_type_boolean))
				rv = falcon_err_set(FALCON_ERR_PARSE, "reconcile: body: reread: "
						    "expected true or false");
			else
				*reread = json_object_get_boolean(v);
		}
	}
	json_object_put(o);
	return rv;
}

static bool privileged(const struct falcond_state *st, uid_t uid)
{
	return uid == 0 || (st->slurm_uid != (uid_t)-1 && uid == st->slurm_uid);
}

static double secs_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* count_change - a compose or decompose done: its latency since t0 into
 * lat, one more in counter (ok or failed) (takes st->lock). */
static void count_change(struct falcond_state *st, struct falcond_hist_metric *lat,
			 unsigned long long *counter, const struct timespec *t0)
{
	pthread_mutex_lock(&st->lock);
	falcond_observe(lat, secs_since(t0));
	(*counter)++;
	pthread_mutex_unlock(&st->lock);
}

/* compose_ready - the start-up reconcile has reached the chassis of rq's
 * compose (a body that does not parse is answered by the compose route). */
static bool compose_ready(struct falcond_state *st, const struct req *rq)
{
	const struct falcon_host_conf *h;
	const struct falcond_chassis *ch;
	struct falcon_compose_req r;

	if (falcon_proto_parse_compose(rq->body, rq->len, &r) != FALCON_OK) {
		falcon_err_clear();
		return true;
	}
	h = falcon_conf_host(st->conf, r.host);
	ch = h ? falcond_chassis_of(st, h->chassis) : NULL;
	return ch == NULL || __atomic_load_n(&ch->ready, __ATOMIC_ACQUIRE);
}

/* decompose_ready - the start-up reconcile has reached every chassis that
 * holds a lease of rq's decompose (a body that does not parse is
 * answered by the decompose route). */
static bool decompose_ready(struct falcond_state *st, const struct req *rq)
{
	struct falcon_decompose_req r;
	bool ready = true;
	size_t i;

	if (falcon_proto_parse_decompose(rq->body, rq->len, &r) != FALCON_OK) {
		falcon_err_clear();
		return true;
	}
	pthread_mutex_lock(&st->lock);
	for (i = 0; i < st->ledger->nleases && ready; i++) {
		const struct falcon_lease *l = &st->ledger->leases[i];
		const struct falcond_chassis *ch;

		if (r.lease[0] ? strcmp(l->id, r.lease) != 0 : l->job_id != r.job_id)
			continue;
		ch = l->ndevs ? falcond_chassis_of(st, l->devs[0].chassis) : NULL;
		ready = ch == NULL || __atomic_load_n(&ch->ready, __ATOMIC_ACQUIRE);
	}
	pthread_mutex_unlock(&st->lock);
	return ready;
}

/*
 * answer_unavailable - 503 with Retry-After (RFC 9110 section 10.2.3, in
 * delta-seconds: retry) and the detail "URL: falcond is STATE; retry in
 * RETRY s" followed by tail.  For a change while the start-up reconcile
 * runs (it would race the reconcile's view of the ledger) and a compose
 * that reaches a stopping falcond (falcond_http_stopping: the client
 * moves on to another falcond, a standby takes over once this one has
 * gone, or retries; nothing is attached for it).
 */
static void answer_unavailable(struct ans *a, const char *url, const char *state,
			       const char *retry, const char *tail)
{
	char detail[300];

	snprintf(detail, sizeof(detail), "%s: falcond is %s; retry in %s s%s", url, state, retry,
		 tail);
	answer_json(a, MHD_HTTP_SERVICE_UNAVAILABLE, falcon_proto_error_json(FALCON_ERR_SERVER,
									     detail));
	a->retry_after = retry;
}

/*
 * answer_standby - what a standby falcond (or one whose workers are all
 * busy, busy true) answers to every request: 503 with Retry-After 1 and
 * {"code":"server","error":"standby, active is URL","standby":true,
 * "active":URL}, URL from the holder record of StateDir/falcond.lock, so
 * a client given several URLs moves on at once (falcond_client.h).
 */
static void answer_standby(struct ans *a, bool busy)
{
	char url[512], detail[600];
	json_object *o;

	if (busy) {
		answer_json(a, MHD_HTTP_SERVICE_UNAVAILABLE,
			    falcon_proto_error_json(FALCON_ERR_SERVER,
						    "falcond: too many requests at once; retry"));
		a->retry_after = "1";
		return;
	}
	falcond_ha_active_url(url, sizeof(url));
	snprintf(detail, sizeof(detail), "standby, active is %s", url);
	o = falcon_proto_error_json(FALCON_ERR_SERVER, detail);
	if (o != NULL) {
		json_object_object_add(o, "standby", json_object_new_boolean(true));
		json_object_object_add(o, "active", json_object_new_string(url));
	}
	answer_json(a, MHD_HTTP_SERVICE_UNAVAILABLE, o);
	a->retry_after = "1";
}

/* asker_gone - falcon_compose_req.asker_gone: c, a suspended connection
 * served by a worker, closed by its client. */
static bool asker_gone(void *c)
{
	return falcon_httpd_peer_gone(c);
}

static void dispatch(struct ans *a, struct MHD_Connection *c, const struct route *rt,
		     const struct req *rq, uid_t uid, const char *addr)
{
	struct falcond_state *st = rq->st;
	json_object *o = NULL;
	struct timespec t0;
	falcon_err_t rv;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (rt->auth == PRIV && __atomic_load_n(&st->role.reconciling, __ATOMIC_ACQUIRE) &&
	    !(rt->id == R_COMPOSE && compose_ready(st, rq)) &&
	    !(rt->id == R_DECOMPOSE && decompose_ready(st, rq))) {
		answer_unavailable(a, rt->path, "reconciling after its start",
				   RECONCILING_RETRY_AFTER, "");
		return;
	}
	/* a compose that waited for its worker while the stop began: refused
	 * like one that arrives after it (handler) */
	if (rt->id == R_COMPOSE && __atomic_load_n(&st->role.stopping, __ATOMIC_ACQUIRE)) {
		answer_unavailable(a, rt->path, "stopping", STOPPING_RETRY_AFTER,
				   " (another falcond, or this one once restarted)");
		return;
	}
	switch (rt->id) {
	case R_COMPOSE: {
		struct falcon_compose_req r;
		struct falcon_lease l;

		rv = falcon_proto_parse_compose(rq->body, rq->len, &r);
		if (rv != FALCON_OK)
			{ answer_err(a, rv, falcon_errmsg()); return; }
		r.deadline_ms = rq->deadline_ms;
		r.asked_ms = rq->asked_ms;
		r.asker_gone = asker_gone;
		r.asker = c;
		rv = falcond_compose(st, &r, &l);
		count_change(st, &st->compose_lat, rv == FALCON_OK ? &st->compose_ok
								   : &st->compose_fail, &t0);
		if (rv != FALCON_OK) {
			/* the error's name first: the cause a prolog's tag must
			 * give (make soak-lifecycle checks the one against the other) */
			rv = chassis_err(rv);
			falcon_warn("compose job %u on %s (uid %u, %s): %s: %s", r.job_id, r.host,
				    (unsigned)uid, addr, falcon_err_name(rv), falcon_errmsg());
			{ answer_err(a, rv, falcon_errmsg()); return; }
		}
		o = json_object_new_object();
		json_object_object_add(o, "lease", falcon_proto_lease_json(&l));
		{ answer_json(a, 200, o); return; }
	}
	case R_DECOMPOSE: {
		struct falcon_decompose_req r;

		rv = falcon_proto_parse_decompose(rq->body, rq->len, &r);
		if (rv != FALCON_OK)
			{ answer_err(a, rv, falcon_errmsg()); return; }
		rv = falcond_decompose(st, &r, &o);
		count_change(st, &st->decompose_lat, rv == FALCON_OK ? &st->decompose_ok
								     : &st->decompose_fail, &t0);
		if (rv != FALCON_OK) {
			json_object_put(o);
			{ answer_err(a, chassis_err(rv), falcon_errmsg()); return; }
		}
		{ answer_json(a, 200, o); return; }
	}
	case R_STATUS:
		o = falcond_status_json(st, uid, privileged(st, uid));
		if (o != NULL) {
			json_object_object_add(o, "reconciling",
					       json_object_new_boolean(__atomic_load_n(
						       &st->role.reconciling, __ATOMIC_ACQUIRE)));
			/* the lock's holder record: this falcond (falconctl status) */
			json_object_object_add(o, "holder", falcond_ha_holder());
		}
		{ answer_json(a, 200, o); return; }
	case R_QUAR:
	case R_UNQUAR: {
		struct falcon_device_req r;

		rv = falcon_proto_parse_device(rq->body, rq->len, rt->id == R_QUAR, &r);
		if (rv == FALCON_OK)
			rv = rt->id == R_QUAR ? falcond_quarantine(st, &r) : falcond_unquarantine(st, &r);
		if (rv != FALCON_OK)
			{ answer_err(a, rv, falcon_errmsg()); return; }
		o = json_object_new_object();
		json_object_object_add(o, "chassis", json_object_new_string(r.chassis));
		json_object_object_add(o, "device", json_object_new_string(r.device));
		json_object_object_add(o, "quarantined", json_object_new_boolean(rt->id == R_QUAR));
		{ answer_json(a, 200, o); return; }
	}
	case R_RECONCILE: {
		bool reread = true;
		size_t k;

		if ((rv = reconcile_body(rq->body, rq->len, &reread)) != FALCON_OK)
			{ answer_err(a, rv, falcon_errmsg()); return; }
		/* an admin asked: every device is read again (falcon.conf(5)
		 * InventoryRefresh); a prolog asks with "reread": false (the
		 * zones, which it needs, are read every time) */
		pthread_mutex_lock(&st->lock);
		for (k = 0; reread && k < st->nchassis; k++)
			falcond_desc_forget(&st->ch[k], NULL);
		pthread_mutex_unlock(&st->lock);
		rv = falcond_reconcile(st, &o);
		{ answer_json(a, rv == FALCON_OK ? 200 : 502, o); return; }
	}
	case R_HEALTH: {
		size_t i, up = 0;

		o = json_object_new_object();
		pthread_mutex_lock(&st->lock);
		for (i = 0; i < st->nchassis; i++)
			up += st->ch[i].have_last;
		json_object_object_add(o, "status",
				       json_object_new_string(__atomic_load_n(&st->role.reconciling,
									      __ATOMIC_ACQUIRE)
								      ? "reconciling" : "ok"));
		json_object_object_add(o, "leases", json_object_new_int64((int64_t)st->ledger->nleases));
		json_object_object_add(o, "quarantined", json_object_new_int64((int64_t)st->ledger->nquar));
		json_object_object_add(o, "chassis", json_object_new_int64((int64_t)st->nchassis));
		json_object_object_add(o, "chassis_seen", json_object_new_int64((int64_t)up));
		pthread_mutex_unlock(&st->lock);
		{ answer_json(a, 200, o); return; }
	}
	case R_HISTORY:
		rv = falcond_history_request(st->ledger, &st->lock,
					     rq->qstart, rq->qend,
					     uid, privileged(st, uid), &o);
		if (rv != FALCON_OK)
			{ answer_err(a, rv, falcon_errmsg()); return; }
		{ answer_json(a, 200, o); return; }
	case R_METRICS: {
		char *t = falcond_metrics_text(st);

		{ answer_text(a, 200, t, "text/plain; version=0.0.4"); return; }
	}
	}
	{ answer_err(a, FALCON_ERR_NOTFOUND, "no such route"); return; }
}

/*
 * authenticate - the munge credential of an AUTH or PRIV request
 * (rq->auth, copied off the connection) into *uid; false with the 401/403
 * (or 503 when munged fails) answer in a.
 */
static bool authenticate(struct ans *a, const struct req *rq, uid_t *uid)
{
	const struct route *rt = rq->rt;
	struct falcond_state *st = rq->st;
	char detail[1100];
	falcon_err_t rv;

	rv = falcon_auth_verify(st->conf->munge_socket, falcon_auth_header_cred(rq->auth),
				rq->method, rt->path, rq->body ? rq->body : "", rq->len, uid, NULL);
	if (rv != FALCON_OK) {
		snprintf(detail, sizeof(detail), "%s", falcon_errmsg());
		falcon_warn("%u %s %s from %s uid %ld: %s", rv == FALCON_ERR_AUTH ? 401 : 503,
			    rq->method, rt->path, rq->addr, *uid == (uid_t)-1 ? -1L : (long)*uid,
			    detail);
		pthread_mutex_lock(&st->lock);
		st->auth_fail += rv == FALCON_ERR_AUTH;
		pthread_mutex_unlock(&st->lock);
		answer_err(a, rv, detail);
		return false;
	}
	if (rt->auth == PRIV && !privileged(st, *uid)) {
		snprintf(detail, sizeof(detail), "%s %s: uid %u is neither root nor SlurmUser",
			 rq->method, rt->path, (unsigned)*uid);
		falcon_warn("403 %s %s from %s uid %u: not allowed", rq->method, rt->path, rq->addr,
			    (unsigned)*uid);
		pthread_mutex_lock(&st->lock);
		st->perm_fail++;
		pthread_mutex_unlock(&st->lock);
		answer_err(a, FALCON_ERR_PERM, detail);
		return false;
	}
	return true;
}

/*
 * worker - one authenticated request, on a thread of its own while its
 * connection is suspended (a compose may wait on a chassis for many
 * seconds: the event loop and /v1/health go on).  It holds a reference
 * on the configuration for its whole run (falcond_conf_hold), builds the
 * answer in rq->a and resumes the connection; handler() queues it.
 */
static void *worker(void *arg)
{
	struct req *rq = arg;
	struct falcond_http *fh = rq->fh;
	struct MHD_Connection *c = rq->c;
	uid_t uid = (uid_t)-1;
	unsigned gen = falcond_conf_hold(&rq->st->confgen);

	if (authenticate(&rq->a, rq, &uid))
		dispatch(&rq->a, c, rq->rt, rq, uid, rq->addr);
	falcond_conf_release(&rq->st->confgen, gen);
	rq->state = RQ_DONE;
	pthread_mutex_lock(&fh->lock);
	MHD_resume_connection(c); /* rq is the connection's from here on */
	if (--fh->workers == 0)
		pthread_cond_broadcast(&fh->done);
	pthread_mutex_unlock(&fh->lock);
	return NULL;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* deadline_of - the caller's budget header (ms, 1 ms to 1 day) as a
 * deadline from now on the falcon_now_ms() clock; 0 when absent or not a
 * number in that range (no deadline). */
static long long deadline_of(const char *budget)
{
	long ms;

	if (budget == NULL || falcon_strtol(budget, 10, 1, 86400000L, &ms) != FALCON_OK)
		return 0;
	return falcon_now_ms() + ms;
}

/* start_worker - suspend c and run rq on a worker thread (true); false
 * (nothing suspended, the busy answer in rq->a) when WORKERS_MAX run
 * already.  When no thread can be made, the busy answer is left for the
 * handler's next call on the resumed connection (true). */
static bool start_worker(struct MHD_Connection *c, struct req *rq)
{
	pthread_attr_t at;
	pthread_t t;
	bool ok = false;

	rq->c = c;
	rq->auth = dup_or_null(MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							   MHD_HTTP_HEADER_AUTHORIZATION));
	rq->qstart = dup_or_null(MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "start"));
	rq->qend = dup_or_null(MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "end"));
	rq->deadline_ms = deadline_of(MHD_lookup_connection_value(c, MHD_HEADER_KIND,
								  FALCON_PROTO_BUDGET_HEADER));
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_mutex_lock(&rq->fh->lock);
	if (rq->fh->workers < WORKERS_MAX) {
		rq->state = RQ_RUNNING;
		MHD_suspend_connection(c);
		ok = true;
		if (pthread_create(&t, &at, worker, rq) == 0) {
			rq->fh->workers++;
		} else {
			answer_standby(&rq->a, true);
			rq->state = RQ_DONE;
			MHD_resume_connection(c);
		}
	}
	pthread_mutex_unlock(&rq->fh->lock);
	pthread_attr_destroy(&at);
	if (!ok)
		answer_standby(&rq->a, true);
	return ok;
}

/* wait_workers - until no worker runs (before MHD_stop_daemon: a suspended
 * connection must be resumed first). */
static void wait_workers(struct falcond_http *fh)
{
	pthread_mutex_lock(&fh->lock);
	while (fh->workers > 0)
		pthread_cond_wait(&fh->done, &fh->lock);
	pthread_mutex_unlock(&fh->lock);
}

/* req_free - falcon_httpd_conf.ctx_free: a request's own state. */
static void req_free(void *ctx)
{
	struct req *rq = ctx;

	free(rq->auth);
	free(rq->qstart);
	free(rq->qend);
	free(rq->a.text);
	free(rq);
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
			       const char *method, struct falcon_httpd_req *hr)
{
	struct falcond_http *fh = cls;
	struct req *rq = hr->ctx;
	const struct route *rt = NULL;
	char detail[1100];
	size_t i;

	if (rq == NULL) {
		if ((rq = calloc(1, sizeof(*rq))) == NULL)
			return MHD_NO;
		hr->ctx = rq;
		rq->fh = fh;
		rq->st = fh->st;
		rq->body = hr->body;
		rq->len = hr->len;
		rq->asked_ms = falcon_now_ms();
	}
	if (rq->state == RQ_DONE) /* resumed: the worker's answer */
		return queue_ans(c, &rq->a);
	if (rq->state == RQ_RUNNING)
		return MHD_YES;
	if (!__atomic_load_n(&fh->st->role.active, __ATOMIC_ACQUIRE)) {
		/* a standby's role is scraped too (no active falcond: an alert) */
		if (strcmp(url, "/metrics") == 0 && strcmp(method, "GET") == 0)
			answer_text(&rq->a, 200, falcond_metrics_standby_text(),
				    "text/plain; version=0.0.4");
		else
			answer_standby(&rq->a, false);
		return queue_ans(c, &rq->a);
	}
	falcon_httpd_peer(c, true, rq->addr, sizeof(rq->addr));
	for (i = 0; i < ARRAY_SIZE(routes); i++)
		if (strcmp(routes[i].path, url) == 0) {
			rt = &routes[i];
			if (strcmp(routes[i].method, method) == 0)
				break;
		}
	if (rt == NULL) {
		answer_err(&rq->a, FALCON_ERR_NOTFOUND, "no such route");
	} else if (i == ARRAY_SIZE(routes)) {
		snprintf(detail, sizeof(detail), "%s %s: method not allowed (use %s)", method, url,
			 rt->method);
		answer_json(&rq->a, 405, falcon_proto_error_json(FALCON_ERR_INVAL, detail));
	} else if (hr->too_big) {
		answer_json(&rq->a, 413, falcon_proto_error_json(FALCON_ERR_PARSE,
								 "body larger than 64 KiB"));
	} else if (rt->id == R_COMPOSE && __atomic_load_n(&fh->st->role.stopping, __ATOMIC_ACQUIRE)) {
		answer_unavailable(&rq->a, rt->path, "stopping", STOPPING_RETRY_AFTER,
				   " (another falcond, or this one once restarted)");
	} else if (rt->auth == OPEN) {
		/* health and metrics: short, on the event loop's thread */
		unsigned gen = falcond_conf_hold(&fh->st->confgen);

		dispatch(&rq->a, c, rt, rq, (uid_t)-1, rq->addr);
		falcond_conf_release(&fh->st->confgen, gen);
	} else {
		rq->rt = rt;
		falcon_strlcpy(rq->method, method, sizeof(rq->method));
		if (start_worker(c, rq))
			return MHD_YES;
	}
	return queue_ans(c, &rq->a);
}

/*
 * raise_nofile - RLIMIT_NOFILE soft limit to the hard one: each idle
 * connection holds a descriptor (HTTP_CONN_LIMIT); the connection limit
 * given to libmicrohttpd is kept below what the limit allows.  Returns the
 * connection limit to use.
 */
static unsigned raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 512;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	/* leave room for the ledger, history, chassis and munge descriptors */
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > HTTP_CONN_LIMIT + 256)
		return HTTP_CONN_LIMIT;
	return rl.rlim_cur > 512 ? (unsigned)(rl.rlim_cur - 256) : 256;
}

falcon_err_t falcond_http_start(struct falcond_state *st, const struct sockaddr_storage *ss,
			       struct falcond_http **out)
{
	unsigned limit = raise_nofile();
	struct falcon_httpd_conf k = {
		.name = "http", .addr = (const struct sockaddr *)ss,
		.threads = FALCON_HTTPD_POOL, .pool_threads = HTTP_POOL_THREADS,
		.flags = FALCON_HTTPD_SUSPEND, .conn_limit = limit, .idle_s = HTTP_IDLE_S,
		.max_body = FALCON_PROTO_MAX_BODY, .request_s = HTTP_REQUEST_S,
		.incomplete_per_ip = HTTP_PER_IP, .mhd_log = FALCON_LOG_WARN,
		.handler = handler, .ctx_free = req_free,
	};
	struct falcond_http *fh = calloc(1, sizeof(*fh));
	falcon_err_t rv;

	if (fh == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "http: out of memory");
	fh->st = st;
	pthread_mutex_init(&fh->lock, NULL);
	pthread_cond_init(&fh->done, NULL);
	k.cls = fh;
	falcon_verbose("http: %u pool threads, at most %u connections (%u without a complete "
		       "request, %u of those per address), a request complete within %u s, idle "
		       "ones closed after %u s", HTTP_POOL_THREADS, limit, limit - limit / 4,
		       HTTP_PER_IP, HTTP_REQUEST_S, HTTP_IDLE_S);
	if ((rv = falcon_httpd_start(&k, &fh->httpd)) != FALCON_OK) {
		falcond_http_stop(fh);
		return rv;
	}
	*out = fh;
	return FALCON_OK;
}

void falcond_http_stop(struct falcond_http *fh)
{
	if (fh == NULL)
		return;
	falcond_role_stopping(fh->st);
	wait_workers(fh);
	falcon_httpd_stop(fh->httpd);
	pthread_mutex_destroy(&fh->lock);
	pthread_cond_destroy(&fh->done);
	free(fh);
}
