/*
 * falcond.c - falcond's HTTP front (falcond.h): libmicrohttpd's event loop
 * (an internal polling thread pool, epoll where the library has it; the
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

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <pwd.h>
#include <signal.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

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

/* the state served (falcond_http_start; main.c's) */
static struct falcond_state *g_st;

/* true while the start-up reconcile runs (falcond listens already) */
static bool g_reconciling;

/* true once this falcond holds StateDir/falcond.lock and has loaded the
 * ledger; a standby answers 503 (answer_standby) until then */
static bool g_active;

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
 * Incomplete connections (issue 32: 1,500 connections trickling header
 * bytes from the clients' own address took all 64 per-address slots of
 * libmicrohttpd's MHD_OPTION_PER_IP_CONNECTION_LIMIT, which refuses the
 * new connection, so root's falconctl status waited 40 s).  falcond keeps
 * its own table of the connections that wait for a complete request
 * (hc_*, below; libmicrohttpd 0.9.75 has no request-header deadline: its
 * MHD_OPTION_CONNECTION_TIMEOUT restarts at every byte received):
 *  - HTTP_REQUEST_S: a new connection must have sent a complete request
 *    (headers and body: the access handler's last call) within this many
 *    seconds of its accept, else it is closed, however slowly it trickles;
 *  - HTTP_IDLE_S: after an answer, a kept-alive connection's next request
 *    must be complete within this many seconds of that answer, and within
 *    HTTP_REQUEST_S of its request line (MHD_OPTION_URI_LOG_CALLBACK is
 *    called when the request line is complete); libmicrohttpd's own
 *    inactivity timeout (MHD_OPTION_CONNECTION_TIMEOUT) stays HTTP_IDLE_S;
 *  - HTTP_PER_IP: at most this many incomplete connections per address;
 *    a new one beyond it drops the oldest incomplete one of that address
 *    (the new one is accepted, never refused);
 *  - a quarter of the connection limit is kept for connections with a
 *    complete request (authenticated work: a worker, a suspended compose,
 *    its answer): once the incomplete ones fill the other three quarters,
 *    a new connection drops the oldest incomplete one of any address.
 * A connection is dropped by shutdown(2) of its descriptor
 * (MHD_CONNECTION_INFO_CONNECTION_FD); libmicrohttpd then reads the end
 * of the stream and closes it.  The descriptor is only touched under
 * g_hc.lock while the connection is in the table, which its
 * MHD_CONNECTION_NOTIFY_CLOSED leaves before libmicrohttpd closes the
 * descriptor (daemon.c: MHD_cleanup_connections, internal_add_connection;
 * read in 0.9.75), so a reused descriptor is never shut down.
 */
#define HTTP_POOL_THREADS 4u
#define HTTP_CONN_LIMIT 16384u
#define HTTP_PER_IP 64u
#define HTTP_IDLE_S 10u
#define HTTP_REQUEST_S 5u
#define HTTP_REAP_MS 200
#define HTTP_DROP_LOG_S 10
#define WORKERS_MAX 256

/* Seconds a compose refused by a stopping falcond is asked to wait. */
#define STOPPING_RETRY_AFTER "1"

/* true from falcond_http_stopping() on: composes are answered 503 */
static bool g_stopping;

/* A connection as the incomplete-connection table sees it
 * (MHD_CONNECTION_INFO_SOCKET_CONTEXT), made at its accept, freed at its
 * close. */
struct hconn {
	struct hconn *prev, *next;  /* g_hc's list, oldest deadline start first */
	int fd;                     /* libmicrohttpd's; shut down, never closed here */
	int family;
	unsigned char addr[16];     /* the peer's address (port left out) */
	long long deadline_ms;      /* falcon_now_ms() by which the request is complete */
	bool waiting;               /* in the list: no complete request yet */
	bool dropped;               /* shut down by falcond */
};

/* the incomplete connections (g_hc.lock) */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct hconn *head, *tail;
	size_t n, cap;              /* in the list; at most (cap: 3/4 of the limit) */
	bool stop;
	bool reaping;               /* the reaper thread runs */
	pthread_t reaper;
	unsigned long long late, per_ip, full;   /* dropped: deadline, address, limit */
} g_hc = { .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER };

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

struct req {
	char *body;
	size_t len;
	bool too_big;
	enum rq_state state;
	/* what the worker needs, copied off the connection */
	struct MHD_Connection *c;
	const struct route *rt;
	char method[16];
	char *auth, *qstart, *qend;
	long long deadline_ms;    /* the caller's budget ends (falcon_now_ms), 0 = none */
	char addr[80];
	struct ans a;
};

/* worker threads running (g_workers_lock) */
static pthread_mutex_t g_workers_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_workers_done = PTHREAD_COND_INITIALIZER;
static int g_workers;

static void addr_str(struct MHD_Connection *c, char *buf, size_t n)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	char host[INET6_ADDRSTRLEN + 1] = "?", port[16] = "?";

	if (ci != NULL && ci->client_addr != NULL)
		getnameinfo(ci->client_addr,
			    ci->client_addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
								   : sizeof(struct sockaddr_in),
			    host, sizeof(host), port, sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV);
	snprintf(buf, n, "%s:%s", host, port);
}

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
	r = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
	if (r == NULL) {
		free(text);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", a->ctype);
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

static bool privileged(uid_t uid)
{
	return uid == 0 || (g_st->slurm_uid != (uid_t)-1 && uid == g_st->slurm_uid);
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
 * answer_reconciling - 503 with Retry-After (RFC 9110 section 10.2.3, in
 * delta-seconds) to a request that changes leases or quarantines while the
 * start-up reconcile runs: it would race the reconcile's view of the
 * ledger.  MHD_NO when the answer cannot be queued.
 */
static void answer_reconciling(struct ans *a, const char *url)
{
	char detail[200];

	snprintf(detail, sizeof(detail), "%s: falcond is reconciling after its start; retry in "
		 RECONCILING_RETRY_AFTER " s", url);
	answer_json(a, MHD_HTTP_SERVICE_UNAVAILABLE, falcon_proto_error_json(FALCON_ERR_SERVER,
									     detail));
	a->retry_after = RECONCILING_RETRY_AFTER;
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

/*
 * answer_stopping - 503 with Retry-After (STOPPING_RETRY_AFTER) to a
 * compose that reaches a stopping falcond (falcond_http_stopping): the
 * client moves on to another falcond (a standby takes over once this one
 * has gone) or retries; nothing is attached for it.
 */
static void answer_stopping(struct ans *a, const char *url)
{
	char detail[200];

	snprintf(detail, sizeof(detail), "%s: falcond is stopping; retry in "
		 STOPPING_RETRY_AFTER " s (another falcond, or this one once restarted)", url);
	answer_json(a, MHD_HTTP_SERVICE_UNAVAILABLE, falcon_proto_error_json(FALCON_ERR_SERVER,
									     detail));
	a->retry_after = STOPPING_RETRY_AFTER;
}

static void dispatch(struct ans *a, struct MHD_Connection *c, const struct route *rt,
		     const struct req *rq, uid_t uid, const char *addr)
{
	struct falcond_state *st = g_st;
	json_object *o = NULL;
	struct timespec t0;
	falcon_err_t rv;

	(void)c;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (rt->auth == PRIV && __atomic_load_n(&g_reconciling, __ATOMIC_ACQUIRE) &&
	    !(rt->id == R_COMPOSE && compose_ready(st, rq)) &&
	    !(rt->id == R_DECOMPOSE && decompose_ready(st, rq))) {
		answer_reconciling(a, rt->path);
		return;
	}
	/* a compose that waited for its worker while the stop began: refused
	 * like one that arrives after it (handler) */
	if (rt->id == R_COMPOSE && __atomic_load_n(&g_stopping, __ATOMIC_ACQUIRE)) {
		answer_stopping(a, rt->path);
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
		o = falcond_status_json(st, uid, privileged(uid));
		if (o != NULL) {
			json_object_object_add(o, "reconciling",
					       json_object_new_boolean(__atomic_load_n(
						       &g_reconciling, __ATOMIC_ACQUIRE)));
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
				       json_object_new_string(__atomic_load_n(&g_reconciling,
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
					     uid, privileged(uid), &o);
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
	char detail[1100];
	falcon_err_t rv;

	rv = falcon_auth_verify(g_st->conf->munge_socket, falcon_auth_header_cred(rq->auth),
				rq->method, rt->path, rq->body ? rq->body : "", rq->len, uid, NULL);
	if (rv != FALCON_OK) {
		snprintf(detail, sizeof(detail), "%s", falcon_errmsg());
		falcon_warn("%u %s %s from %s uid %ld: %s", rv == FALCON_ERR_AUTH ? 401 : 503,
			    rq->method, rt->path, rq->addr, *uid == (uid_t)-1 ? -1L : (long)*uid,
			    detail);
		pthread_mutex_lock(&g_st->lock);
		g_st->auth_fail += rv == FALCON_ERR_AUTH;
		pthread_mutex_unlock(&g_st->lock);
		answer_err(a, rv, detail);
		return false;
	}
	if (rt->auth == PRIV && !privileged(*uid)) {
		snprintf(detail, sizeof(detail), "%s %s: uid %u is neither root nor SlurmUser",
			 rq->method, rt->path, (unsigned)*uid);
		falcon_warn("403 %s %s from %s uid %u: not allowed", rq->method, rt->path, rq->addr,
			    (unsigned)*uid);
		pthread_mutex_lock(&g_st->lock);
		g_st->perm_fail++;
		pthread_mutex_unlock(&g_st->lock);
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
	struct MHD_Connection *c = rq->c;
	uid_t uid = (uid_t)-1;
	unsigned gen = falcond_conf_hold();

	if (authenticate(&rq->a, rq, &uid))
		dispatch(&rq->a, c, rq->rt, rq, uid, rq->addr);
	falcond_conf_release(gen);
	rq->state = RQ_DONE;
	pthread_mutex_lock(&g_workers_lock);
	MHD_resume_connection(c); /* rq is the connection's from here on */
	if (--g_workers == 0)
		pthread_cond_broadcast(&g_workers_done);
	pthread_mutex_unlock(&g_workers_lock);
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
	pthread_mutex_lock(&g_workers_lock);
	if (g_workers < WORKERS_MAX) {
		rq->state = RQ_RUNNING;
		MHD_suspend_connection(c);
		ok = true;
		if (pthread_create(&t, &at, worker, rq) == 0) {
			g_workers++;
		} else {
			answer_standby(&rq->a, true);
			rq->state = RQ_DONE;
			MHD_resume_connection(c);
		}
	}
	pthread_mutex_unlock(&g_workers_lock);
	pthread_attr_destroy(&at);
	if (!ok)
		answer_standby(&rq->a, true);
	return ok;
}

/* hc_of - c's entry in the incomplete-connection table (NULL before its
 * MHD_CONNECTION_NOTIFY_STARTED or when it could not be made). */
static struct hconn *hc_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci != NULL ? ci->socket_context : NULL;
}

/* hc_unlink - h out of the list (g_hc.lock held). */
static void hc_unlink(struct hconn *h)
{
	if (!h->waiting)
		return;
	if (h->prev)
		h->prev->next = h->next;
	else
		g_hc.head = h->next;
	if (h->next)
		h->next->prev = h->prev;
	else
		g_hc.tail = h->prev;
	h->prev = h->next = NULL;
	h->waiting = false;
	g_hc.n--;
}

/* hc_wait - h waits for a complete request until now + secs, at the end
 * of the list (g_hc.lock held; a dropped connection is left out). */
static void hc_wait(struct hconn *h, unsigned secs)
{
	if (h->dropped)
		return;
	hc_unlink(h);
	h->deadline_ms = falcon_now_ms() + 1000LL * secs;
	h->prev = g_hc.tail;
	if (g_hc.tail)
		g_hc.tail->next = h;
	else
		g_hc.head = h;
	g_hc.tail = h;
	h->waiting = true;
	g_hc.n++;
}

/* hc_drop - shut h's connection down (g_hc.lock held): libmicrohttpd
 * reads the end of the stream and closes it, then frees h (hc_notify). */
static void hc_drop(struct hconn *h, unsigned long long *counter)
{
	hc_unlink(h);
	h->dropped = true;
	(*counter)++;
	if (h->fd >= 0)
		shutdown(h->fd, SHUT_RDWR);
}

/* hc_make_room - before h joins the list (g_hc.lock held): the oldest
 * incomplete connection of h's address when HTTP_PER_IP of them wait,
 * the oldest of all when the list is full (g_hc.cap), is dropped. */
static void hc_make_room(const struct hconn *h)
{
	struct hconn *p, *oldest = NULL;
	unsigned same = 0;

	for (p = g_hc.head; p != NULL; p = p->next)
		if (p->family == h->family && memcmp(p->addr, h->addr, sizeof(p->addr)) == 0 &&
		    same++ == 0)
			oldest = p;
	if (same >= HTTP_PER_IP && oldest != NULL)
		hc_drop(oldest, &g_hc.per_ip);
	if (g_hc.n >= g_hc.cap && g_hc.head != NULL)
		hc_drop(g_hc.head, &g_hc.full);
}

/*
 * hc_notify - MHD_OPTION_NOTIFY_CONNECTION: at the accept an entry (its
 * descriptor, its peer's address; *socket_context) joins the list with a
 * deadline HTTP_REQUEST_S from now, room made for it first; at the close
 * it leaves and is freed.  A connection whose entry cannot be allocated is
 * served without one (never dropped).
 */
static void hc_notify(void *cls, struct MHD_Connection *c, void **socket_context,
		      enum MHD_ConnectionNotificationCode code)
{
	struct hconn *h = *socket_context;
	const union MHD_ConnectionInfo *ci;

	(void)cls;
	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (h == NULL)
			return;
		pthread_mutex_lock(&g_hc.lock);
		hc_unlink(h);
		pthread_mutex_unlock(&g_hc.lock);
		free(h);
		*socket_context = NULL;
		return;
	}
	h = calloc(1, sizeof(*h));
	if (h == NULL)
		return;
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	h->fd = ci != NULL ? ci->connect_fd : -1;
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (ci != NULL && ci->client_addr != NULL) {
		h->family = ci->client_addr->sa_family;
		if (h->family == AF_INET)
			memcpy(h->addr, &((const struct sockaddr_in *)(const void *)ci->client_addr)
					 ->sin_addr, 4);
		else if (h->family == AF_INET6)
			memcpy(h->addr, &((const struct sockaddr_in6 *)(const void *)ci->client_addr)
					 ->sin6_addr, 16);
	}
	pthread_mutex_lock(&g_hc.lock);
	hc_make_room(h);
	hc_wait(h, HTTP_REQUEST_S);
	pthread_mutex_unlock(&g_hc.lock);
	*socket_context = h;
}

/* hc_request_line - MHD_OPTION_URI_LOG_CALLBACK (called once a request
 * line is complete): a kept-alive connection's deadline becomes at most
 * HTTP_REQUEST_S from now.  Returns NULL, the request's first con_cls. */
static void *hc_request_line(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct hconn *h = hc_of(c);
	long long dl = falcon_now_ms() + 1000LL * HTTP_REQUEST_S;

	(void)cls;
	(void)uri;
	if (h != NULL) {
		pthread_mutex_lock(&g_hc.lock);
		if (h->waiting && h->deadline_ms > dl)
			h->deadline_ms = dl;
		pthread_mutex_unlock(&g_hc.lock);
	}
	return NULL;
}

/* hc_set - c has a complete request (complete true: out of the list) or
 * waits for its next one after an answer (HTTP_IDLE_S). */
static void hc_set(struct MHD_Connection *c, bool complete)
{
	struct hconn *h = hc_of(c);

	if (h == NULL)
		return;
	pthread_mutex_lock(&g_hc.lock);
	if (complete)
		hc_unlink(h);
	else
		hc_wait(h, HTTP_IDLE_S);
	pthread_mutex_unlock(&g_hc.lock);
}

/*
 * hc_reaper - every HTTP_REAP_MS: the connections past their deadline are
 * dropped (the list is kept in deadline start order, but a request line
 * shortens a deadline: the whole list is read); what was dropped is
 * logged at most every HTTP_DROP_LOG_S seconds.  Until falcond_http_stop.
 */
static void *hc_reaper(void *arg)
{
	unsigned long long logged = 0;
	long long last_log = 0;

	(void)arg;
	pthread_mutex_lock(&g_hc.lock);
	while (!g_hc.stop) {
		struct timespec ts;
		long long now = falcon_now_ms();
		struct hconn *p, *next;
		unsigned long long all;

		for (p = g_hc.head; p != NULL; p = next) {
			next = p->next;
			if (p->deadline_ms <= now)
				hc_drop(p, &g_hc.late);
		}
		all = g_hc.late + g_hc.per_ip + g_hc.full;
		if (all != logged && now - last_log >= 1000LL * HTTP_DROP_LOG_S) {
			falcon_warn("http: %llu more connection(s) without a complete request "
				    "dropped (in all: %llu past their deadline, %llu over %u per "
				    "address, %llu over the limit)", all - logged, g_hc.late,
				    g_hc.per_ip, HTTP_PER_IP, g_hc.full);
			logged = all;
			last_log = now;
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += HTTP_REAP_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&g_hc.wake, &g_hc.lock, &ts);
	}
	if (g_hc.late + g_hc.per_ip + g_hc.full != 0)
		falcon_info("http: %llu connection(s) without a complete request dropped in all "
			    "(%llu past their deadline, %llu over %u per address, %llu over the "
			    "limit)", g_hc.late + g_hc.per_ip + g_hc.full, g_hc.late, g_hc.per_ip,
			    HTTP_PER_IP, g_hc.full);
	pthread_mutex_unlock(&g_hc.lock);
	return NULL;
}

/* hc_reaper_stop - end the reaper thread (when it runs; errno kept). */
static void hc_reaper_stop(void)
{
	int e = errno;

	if (!g_hc.reaping)
		return;
	pthread_mutex_lock(&g_hc.lock);
	g_hc.stop = true;
	pthread_cond_signal(&g_hc.wake);
	pthread_mutex_unlock(&g_hc.lock);
	pthread_join(g_hc.reaper, NULL);
	g_hc.reaping = false;
	errno = e;
}

/* wait_workers - until no worker runs (before MHD_stop_daemon: a suspended
 * connection must be resumed first). */
static void wait_workers(void)
{
	pthread_mutex_lock(&g_workers_lock);
	while (g_workers > 0)
		pthread_cond_wait(&g_workers_done, &g_workers_lock);
	pthread_mutex_unlock(&g_workers_lock);
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
			       const char *method, const char *version, const char *upload,
			       size_t *upload_size, void **con_cls)
{
	struct req *rq = *con_cls;
	const struct route *rt = NULL;
	char detail[1100];
	size_t i;

	if (rq == NULL) {
		rq = calloc(1, sizeof(*rq));
		if (rq == NULL)
			return MHD_NO;
		*con_cls = rq;
		return MHD_YES;
	}
	if (rq->state == RQ_DONE) /* resumed: the worker's answer */
		return queue_ans(c, &rq->a);
	if (rq->state == RQ_RUNNING)
		return MHD_YES;
	if (*upload_size > 0) {
		if (falcon_buf_append(&rq->body, &rq->len, &rq->too_big, upload, *upload_size,
				      FALCON_PROTO_MAX_BODY) != FALCON_OK)
			return MHD_NO;
		*upload_size = 0;
		return MHD_YES;
	}
	hc_set(c, true); /* the request is complete: no deadline while it is served */
	if (!__atomic_load_n(&g_active, __ATOMIC_ACQUIRE)) {
		/* a standby's role is scraped too (no active falcond: an alert) */
		if (strcmp(url, "/metrics") == 0 && strcmp(method, "GET") == 0)
			answer_text(&rq->a, 200, falcond_metrics_standby_text(),
				    "text/plain; version=0.0.4");
		else
			answer_standby(&rq->a, false);
		return queue_ans(c, &rq->a);
	}
	addr_str(c, rq->addr, sizeof(rq->addr));
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
	} else if (rq->too_big) {
		answer_json(&rq->a, 413, falcon_proto_error_json(FALCON_ERR_PARSE,
								 "body larger than 64 KiB"));
	} else if (rt->id == R_COMPOSE && __atomic_load_n(&g_stopping, __ATOMIC_ACQUIRE)) {
		answer_stopping(&rq->a, rt->path);
	} else if (rt->auth == OPEN) {
		/* health and metrics: short, on the event loop's thread */
		unsigned gen = falcond_conf_hold();

		dispatch(&rq->a, c, rt, rq, (uid_t)-1, rq->addr);
		falcond_conf_release(gen);
	} else {
		rq->rt = rt;
		falcon_strlcpy(rq->method, method, sizeof(rq->method));
		if (start_worker(c, rq))
			return MHD_YES;
	}
	return queue_ans(c, &rq->a);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
		      enum MHD_RequestTerminationCode toe)
{
	struct req *rq = *con_cls;

	(void)cls;
	if (toe == MHD_REQUEST_TERMINATED_COMPLETED_OK)
		hc_set(c, false); /* kept alive: its next request within HTTP_IDLE_S */
	if (rq != NULL) {
		free(rq->body);
		free(rq->auth);
		free(rq->qstart);
		free(rq->qend);
		free(rq->a.text);
		free(rq);
		*con_cls = NULL;
	}
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char buf[512];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	buf[strcspn(buf, "\n")] = '\0';
	falcon_warn("microhttpd: %s", buf);
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

/* HTTP_POOL_THREADS, HTTP_CONN_LIMIT, HTTP_PER_IP, HTTP_IDLE_S,
 * HTTP_REQUEST_S: the limits above; the flags and options (the connection
 * notifier, the request-line callback, MHD_CONNECTION_INFO_CONNECTION_FD
 * and _SOCKET_CONTEXT included) exist in libmicrohttpd 0.9.75 (Debian 12)
 * and 1.0.x (Debian 13).  libmicrohttpd's own per-address limit is not
 * set: it refuses the new connection (issue 32); hc_make_room drops the
 * oldest incomplete one instead. */
struct MHD_Daemon *falcond_http_start(struct falcond_state *st, const struct sockaddr_storage *ss)
{
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_ALLOW_SUSPEND_RESUME |
			 MHD_USE_ERROR_LOG | (ss->ss_family == AF_INET6 ? MHD_USE_IPv6 : 0);
	unsigned limit = raise_nofile();
	struct MHD_Daemon *d;

	g_st = st;
	g_hc.cap = limit - limit / 4;
	g_hc.stop = false;
	if (MHD_is_feature_supported(MHD_FEATURE_EPOLL) == MHD_YES)
		flags |= MHD_USE_EPOLL;
	else if (MHD_is_feature_supported(MHD_FEATURE_POLL) == MHD_YES)
		flags |= MHD_USE_POLL;
	falcon_verbose("http: %u pool threads, %s, at most %u connections (%zu without a "
		       "complete request, %u of those per address), a request complete within "
		       "%u s, idle ones closed after %u s", HTTP_POOL_THREADS,
		       flags & MHD_USE_EPOLL ? "epoll" : "poll", limit, g_hc.cap, HTTP_PER_IP,
		       HTTP_REQUEST_S, HTTP_IDLE_S);
	if (pthread_create(&g_hc.reaper, NULL, hc_reaper, NULL) != 0)
		return NULL;
	g_hc.reaping = true;
	d = MHD_start_daemon(flags, 0, NULL, NULL, handler, NULL,
			     MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
			     MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)ss,
			     MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
			     MHD_OPTION_NOTIFY_CONNECTION, hc_notify, NULL,
			     MHD_OPTION_URI_LOG_CALLBACK, hc_request_line, NULL,
			     MHD_OPTION_THREAD_POOL_SIZE, HTTP_POOL_THREADS,
			     MHD_OPTION_CONNECTION_LIMIT, limit,
			     MHD_OPTION_CONNECTION_TIMEOUT, HTTP_IDLE_S,
			     MHD_OPTION_END);
	if (d == NULL)
		hc_reaper_stop();
	return d;
}

void falcond_http_active(bool reconciling)
{
	g_reconciling = reconciling;
	__atomic_store_n(&g_active, true, __ATOMIC_RELEASE);
}

void falcond_http_reconciled(void)
{
	__atomic_store_n(&g_reconciling, false, __ATOMIC_RELEASE);
}

void falcond_http_stopping(void)
{
	__atomic_store_n(&g_stopping, true, __ATOMIC_RELEASE);
}

void falcond_http_stop(struct MHD_Daemon *d)
{
	falcond_http_stopping();
	wait_workers();
	if (d)
		MHD_stop_daemon(d);
	hc_reaper_stop();
}
