/*
 * falcond.c - the composer daemon: HTTP front (libmicrohttpd's event loop:
 * an internal polling thread pool, epoll where the library has it; the
 * authenticated requests run on worker threads of their own, their
 * connection suspended meanwhile), munge authentication of every API
 * request, routing to falcond_core.c, the standby role (falcond_ha.c) and
 * the SIGHUP reload.  Routes and answers: doc/falcond.8.
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
#include "falcond_events.h"
#include "falcond_ha.h"
#include "falcond_history.h"
#include "falcond_status.h"
#include "api/auth.h"
#include "core/log.h"
#include "core/util.h"

static struct falcond_state g_st;

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
 * bounded by RLIMIT_NOFILE (raised to its hard limit at start); one
 * address holds at most PER_IP of them; a connection idle IDLE_S seconds
 * (headers sent byte by byte included: libmicrohttpd counts from the last
 * byte received) is closed.  At most WORKERS_MAX authenticated requests
 * run at a time (a thread each); more are answered 503 with Retry-After.
 */
#define HTTP_POOL_THREADS 4u
#define HTTP_CONN_LIMIT 16384u
#define HTTP_PER_IP 64u
#define HTTP_IDLE_S 10u
#define WORKERS_MAX 256

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
	return uid == 0 || (g_st.slurm_uid != (uid_t)-1 && uid == g_st.slurm_uid);
}

static double secs_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
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

static void dispatch(struct ans *a, struct MHD_Connection *c, const struct route *rt,
		     const struct req *rq, uid_t uid, const char *addr)
{
	struct falcond_state *st = &g_st;
	json_object *o = NULL;
	struct timespec t0;
	falcon_err_t rv;

	(void)c;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (rt->auth == PRIV && __atomic_load_n(&g_reconciling, __ATOMIC_ACQUIRE)) {
		answer_reconciling(a, rt->path);
		return;
	}
	switch (rt->id) {
	case R_COMPOSE: {
		struct falcon_compose_req r;
		struct falcon_lease l;

		rv = falcon_proto_parse_compose(rq->body, rq->len, &r);
		if (rv != FALCON_OK)
			{ answer_err(a, rv, falcon_errmsg()); return; }
		rv = falcond_compose(st, &r, &l);
		pthread_mutex_lock(&st->lock);
		falcond_observe(&st->compose_lat, secs_since(&t0));
		if (rv == FALCON_OK)
			st->compose_ok++;
		else
			st->compose_fail++;
		pthread_mutex_unlock(&st->lock);
		if (rv != FALCON_OK) {
			falcon_warn("compose job %u on %s (uid %u, %s): %s", r.job_id, r.host,
				    (unsigned)uid, addr, falcon_errmsg());
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
		pthread_mutex_lock(&st->lock);
		falcond_observe(&st->decompose_lat, secs_since(&t0));
		if (rv == FALCON_OK)
			st->decompose_ok++;
		else
			st->decompose_fail++;
		pthread_mutex_unlock(&st->lock);
		if (rv != FALCON_OK) {
			json_object_put(o);
			{ answer_err(a, rv, falcon_errmsg()); return; }
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

	rv = falcon_auth_verify(g_st.conf->munge_socket, falcon_auth_header_cred(rq->auth),
				rq->method, rt->path, rq->body ? rq->body : "", rq->len, uid, NULL);
	if (rv != FALCON_OK) {
		snprintf(detail, sizeof(detail), "%s", falcon_errmsg());
		falcon_warn("%u %s %s from %s uid %ld: %s", rv == FALCON_ERR_AUTH ? 401 : 503,
			    rq->method, rt->path, rq->addr, *uid == (uid_t)-1 ? -1L : (long)*uid,
			    detail);
		pthread_mutex_lock(&g_st.lock);
		g_st.auth_fail += rv == FALCON_ERR_AUTH;
		pthread_mutex_unlock(&g_st.lock);
		answer_err(a, rv, detail);
		return false;
	}
	if (rt->auth == PRIV && !privileged(*uid)) {
		snprintf(detail, sizeof(detail), "%s %s: uid %u is neither root nor SlurmUser",
			 rq->method, rt->path, (unsigned)*uid);
		falcon_warn("403 %s %s from %s uid %u: not allowed", rq->method, rt->path, rq->addr,
			    (unsigned)*uid);
		pthread_mutex_lock(&g_st.lock);
		g_st.perm_fail++;
		pthread_mutex_unlock(&g_st.lock);
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
		if (!rq->too_big && rq->len + *upload_size <= FALCON_PROTO_MAX_BODY) {
			char *nb = realloc(rq->body, rq->len + *upload_size + 1);

			if (nb == NULL)
				return MHD_NO;
			memcpy(nb + rq->len, upload, *upload_size);
			rq->body = nb;
			rq->len += *upload_size;
			rq->body[rq->len] = '\0';
		} else {
			rq->too_big = true;
		}
		*upload_size = 0;
		return MHD_YES;
	}
	if (!__atomic_load_n(&g_active, __ATOMIC_ACQUIRE)) {
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

/* listen_addr - ListenAddress host:port ([v6]:port too) into *ss. */
static falcon_err_t listen_addr(const char *spec, struct sockaddr_storage *ss, socklen_t *sl)
{
	char host[256];
	const char *colon = strrchr(spec, ':');
	struct addrinfo hints = { .ai_flags = AI_NUMERICSERV | AI_PASSIVE,
				  .ai_socktype = SOCK_STREAM }, *ai = NULL;
	long port;
	size_t hl;
	int e;

	if (colon == NULL || falcon_strtol(colon + 1, 10, 1, 65535, &port) != FALCON_OK)
		return falcon_err_set(FALCON_ERR_CONFIG, "ListenAddress=%s: expected HOST:PORT", spec);
	hl = (size_t)(colon - spec);
	if (hl >= 2 && spec[0] == '[' && spec[hl - 1] == ']') {
		spec++;
		hl -= 2;
	}
	if (hl == 0 || hl >= sizeof(host))
		return falcon_err_set(FALCON_ERR_CONFIG, "ListenAddress=%s: expected HOST:PORT", spec);
	memcpy(host, spec, hl);
	host[hl] = '\0';
	e = getaddrinfo(host, colon + 1, &hints, &ai);
	if (e != 0 || ai == NULL)
		return falcon_err_set(FALCON_ERR_CONFIG, "ListenAddress=%s: %s", spec, gai_strerror(e));
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*sl = ai->ai_addrlen;
	freeaddrinfo(ai);
	return FALCON_OK;
}

static bool str_differs(const char *a, const char *b)
{
	return (a == NULL) != (b == NULL) || (a != NULL && strcmp(a, b) != 0);
}

/*
 * restart_only_change - the first setting that falcond reads only at start
 * and that n changes from o (NULL when none): StateDir, ListenAddress,
 * SlurmUser, and the ChassisName and HostName lines (the chassis table,
 * the event listeners and the ledger's ports are built from them).
 */
static const char *restart_only_change(const struct falcon_conf *o, const struct falcon_conf *n)
{
	size_t i;
	int p;

	if (str_differs(o->state_dir, n->state_dir))
		return "StateDir";
	if (str_differs(o->listen_address, n->listen_address))
		return "ListenAddress";
	if (str_differs(o->slurm_user, n->slurm_user))
		return "SlurmUser";
	if (o->nchassis != n->nchassis)
		return "ChassisName (the number of chassis)";
	for (i = 0; i < o->nchassis; i++) {
		const struct falcon_chassis_conf *a = &o->chassis[i], *b = &n->chassis[i];

		if (strcmp(a->name, b->name) != 0 || str_differs(a->url, b->url) ||
		    a->backend != b->backend || a->mode != b->mode || a->insecure != b->insecure ||
		    a->timeout_s != b->timeout_s || str_differs(a->ca_file, b->ca_file) ||
		    str_differs(a->credentials_file, b->credentials_file))
			return "ChassisName";
	}
	if (o->nhosts != n->nhosts)
		return "HostName (the number of hosts)";
	for (i = 0; i < o->nhosts; i++) {
		const struct falcon_host_conf *a = &o->hosts[i], *b = &n->hosts[i];

		if (strcmp(a->name, b->name) != 0 || strcmp(a->chassis, b->chassis) != 0 ||
		    a->nports != b->nports || a->nadapters != b->nadapters)
			return "HostName";
		for (p = 0; p < a->nports; p++)
			if (strcmp(a->ports[p], b->ports[p]) != 0)
				return "HostName (Port=)";
		for (p = 0; p < a->nadapters; p++)
			if (strcmp(a->adapters[p], b->adapters[p]) != 0)
				return "HostName (Adapter=)";
	}
	return NULL;
}

/*
 * reload_conf - SIGHUP: load falcon.conf again.  A file with an error keeps
 * the running configuration (the loader's "FILE:LINE: KEY: ..." logged); a
 * file that changes a restart-only setting (restart_only_change) is not
 * applied at all (logged, naming it); otherwise the new file replaces the
 * running one and its PartitionName lines (policy, Place=) and MungeSocket
 * take effect for the next request.
 */
static void reload_conf(const char *path)
{
	struct falcon_conf *n = NULL;
	const char *what;

	if (falcon_conf_load(path, &n) != FALCON_OK) {
		falcon_error("SIGHUP: %s; keeping the configuration loaded before", falcon_errmsg());
		return;
	}
	what = restart_only_change(g_st.conf, n);
	if (what != NULL) {
		falcon_warn("SIGHUP: %s: %s changed, which needs a restart of falcond; "
			    "nothing reloaded", n->path, what);
		falcon_conf_free(n);
		return;
	}
	/* the old one is freed when the last request that may read it ends */
	if (!falcond_conf_publish(&g_st.conf, n)) {
		falcon_error("SIGHUP: %s: out of memory; nothing reloaded", n->path);
		falcon_conf_free(n);
		return;
	}
	falcon_info("SIGHUP: reloaded %s: PartitionName lines and MungeSocket take effect now; "
		    "StateDir, ListenAddress, SlurmUser, ChassisName and HostName need a restart",
		    n->path);
}

/* start_reconcile - the start-up reconcile (when asked), then changes are
 * served: g_reconciling cleared. */
static void start_reconcile(bool reconcile)
{
	if (reconcile) {
		falcon_info("start-up reconcile: compose and decompose answer 503 until it ends");
		if (falcond_reconcile(&g_st, NULL) != FALCON_OK)
			falcon_warn("start-up %s", falcon_errmsg());
		falcon_info("start-up reconcile done");
	}
	__atomic_store_n(&g_reconciling, false, __ATOMIC_RELEASE);
}

/*
 * self_url - the URL this falcond serves at, for the holder record: the
 * ListenAddress as http://HOST:PORT, the host name in place of a wildcard
 * address (0.0.0.0, ::).
 */
static void self_url(const char *listen, char *buf, size_t n)
{
	const char *colon = strrchr(listen, ':');
	char host[256];

	if (colon != NULL && (strncmp(listen, "0.0.0.0:", 8) == 0 || strncmp(listen, "[::]:", 5) == 0 ||
			      colon == listen)) {
		if (gethostname(host, sizeof(host) - 1) != 0)
			falcon_strlcpy(host, "localhost", sizeof(host));
		host[sizeof(host) - 1] = '\0';
		snprintf(buf, n, "http://%s%s", host, colon);
	} else {
		snprintf(buf, n, "http://%s", listen);
	}
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

/*
 * start_http - libmicrohttpd on ss: its event loop (an internal polling
 * thread pool of HTTP_POOL_THREADS, epoll where the library has it, poll
 * otherwise), suspend/resume for the worker threads, the limits of
 * HTTP_CONN_LIMIT (or what RLIMIT_NOFILE allows), HTTP_PER_IP and
 * HTTP_IDLE_S.  The flags and options exist in libmicrohttpd 0.9.75
 * (Debian 12) and 1.0.x (Debian 13).  NULL when it cannot listen.
 */
static struct MHD_Daemon *start_http(const struct sockaddr_storage *ss)
{
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_ALLOW_SUSPEND_RESUME |
			 MHD_USE_ERROR_LOG | (ss->ss_family == AF_INET6 ? MHD_USE_IPv6 : 0);
	unsigned limit = raise_nofile();

	if (MHD_is_feature_supported(MHD_FEATURE_EPOLL) == MHD_YES)
		flags |= MHD_USE_EPOLL;
	else if (MHD_is_feature_supported(MHD_FEATURE_POLL) == MHD_YES)
		flags |= MHD_USE_POLL;
	falcon_verbose("http: %u pool threads, %s, at most %u connections (%u per address), "
		       "idle ones closed after %u s", HTTP_POOL_THREADS,
		       flags & MHD_USE_EPOLL ? "epoll" : "poll", limit, HTTP_PER_IP, HTTP_IDLE_S);
	return MHD_start_daemon(flags, 0, NULL, NULL, handler, NULL,
				MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)ss,
				MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
				MHD_OPTION_THREAD_POOL_SIZE, HTTP_POOL_THREADS,
				MHD_OPTION_CONNECTION_LIMIT, limit,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, HTTP_PER_IP,
				MHD_OPTION_CONNECTION_TIMEOUT, HTTP_IDLE_S,
				MHD_OPTION_END);
}

/*
 * stand_by - until this falcond holds StateDir/falcond.lock: try it every
 * FALCOND_HA_POLL_MS, answering 503 standby meanwhile (handler), SIGHUP
 * reloading falcon.conf.  Returns 0 once held, the signal (SIGTERM,
 * SIGINT) that stopped it otherwise.
 */
static int stand_by(const sigset_t *set, const char *cfg)
{
	struct timespec poll = { FALCOND_HA_POLL_MS / 1000, (FALCOND_HA_POLL_MS % 1000) * 1000000L };
	char url[512];
	int sig;

	if (falcond_ha_try())
		return 0;
	falcon_info("standby: %s/" FALCOND_HA_LOCK_FILE " is held (active is %s); "
		    "taking over when it is free", g_st.conf->state_dir,
		    falcond_ha_active_url(url, sizeof(url)));
	for (;;) {
		sig = sigtimedwait(set, NULL, &poll);
		if (sig == SIGHUP)
			reload_conf(cfg);
		else if (sig > 0)
			return sig;
		if (falcond_ha_try())
			return 0;
	}
}

/*
 * become_active - with the lock held: the ledger and history of StateDir,
 * the chassis table; then requests are served (g_active).  false (logged)
 * when one of them cannot be loaded.
 */
static bool become_active(bool reconcile)
{
	struct passwd *pw;

	if (falcond_ledger_load(g_st.conf->state_dir, &g_st.ledger) != FALCON_OK ||
	    falcond_history_start(g_st.conf->state_dir, g_st.ledger) != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		return false;
	}
	/* the ledger sits below the history writer: it hands closed entries
	 * to the sink registered here */
	g_st.ledger->on_release = falcond_history_append;
	pw = getpwnam(g_st.conf->slurm_user);
	g_st.slurm_uid = pw ? pw->pw_uid : (uid_t)-1;
	if (pw == NULL)
		falcon_warn("SlurmUser=%s: no such user; only root may compose",
			    g_st.conf->slurm_user);
	if (falcond_state_init(&g_st) != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		return false;
	}
	/* until the start-up reconcile ends, health and status answer
	 * ("reconciling") and changes are 503 (answer_reconciling) */
	g_reconciling = reconcile;
	__atomic_store_n(&g_active, true, __ATOMIC_RELEASE);
	falcon_info("active: holding %s/" FALCOND_HA_LOCK_FILE " (state %s, %zu chassis, "
		    "%zu lease(s))", g_st.conf->state_dir, g_st.ledger->path, g_st.nchassis,
		    g_st.ledger->nleases);
	return true;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: falcond [-f FILE] [--no-slurm] [--no-reconcile] [-v]...\n"
		   "  -f, --config FILE   falcon.conf (default: $FALCON_CONF or %s)\n"
		   "      --no-slurm      do not ask Slurm which jobs run (reconcile)\n"
		   "      --no-reconcile  do not reconcile at start\n"
		   "  -v, --verbose       more log (repeat)\n"
		   "  -h, --help\n", falcon_conf_path(NULL));
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'f' },
		{ "no-slurm", no_argument, NULL, 'S' },
		{ "no-reconcile", no_argument, NULL, 'R' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cfg = NULL;
	struct MHD_Daemon *d = NULL;
	struct sockaddr_storage ss;
	socklen_t sl = 0;
	pthread_t reconciler;
	bool reconciling = false;
	sigset_t set;
	char url[512];
	int opt, sig, rc = 1, verbose = 0;
	bool reconcile = true;

	falcon_log_init("falcond");
	g_st.use_slurm = true;
	while ((opt = getopt_long(argc, argv, "f:vh", opts, NULL)) != -1) {
		switch (opt) {
		case 'f': cfg = optarg; break;
		case 'S': g_st.use_slurm = false; break;
		case 'R': reconcile = false; break;
		case 'v': verbose++; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	falcon_log_add_sink(falcon_log_sink_stderr,
			    verbose >= 2 ? FALCON_LOG_DEBUG : verbose ? FALCON_LOG_VERBOSE
								    : FALCON_LOG_INFO, NULL);
	cfg = falcon_conf_path(cfg);
	if (falcon_conf_load(cfg, &g_st.conf) != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		return 2;
	}
	if (!falcond_conf_pin(&g_st.conf, g_st.conf)) {
		falcon_error("out of memory");
		goto out;
	}
	if (listen_addr(g_st.conf->listen_address, &ss, &sl) != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		goto out;
	}
	self_url(g_st.conf->listen_address, url, sizeof(url));
	if (falcond_ha_open(g_st.conf->state_dir, url) != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		goto out;
	}
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	/* listen first: a standby answers 503 standby, an active one that
	 * reconciles answers health and status */
	d = start_http(&ss);
	if (d == NULL) {
		falcon_error("cannot listen on %s: %s", g_st.conf->listen_address, strerror(errno));
		goto out;
	}
	falcon_info("listening on %s (%s)", g_st.conf->listen_address, url);
	sig = stand_by(&set, cfg);
	if (sig != 0)
		goto stop;
	if (!become_active(reconcile))
		goto out;
	start_reconcile(reconcile);
	/* periodic reconcile, settle deadlines, chassis back after an outage */
	reconciling = pthread_create(&reconciler, NULL, falcond_reconciler, &g_st) == 0;
	if (!reconciling) {
		falcon_error("cannot start the reconcile thread");
		goto out;
	}
	if (falcond_events_start(&g_st) != FALCON_OK)
		falcon_warn("%s: chassis events are not followed", falcon_errmsg());
	for (;;) {
		struct timespec check = { FALCOND_HA_CHECK_S, 0 };

		sig = sigtimedwait(&set, NULL, &check);
		if (sig < 0) {
			/* still the holder? else another falcond serves: stop */
			if (!falcond_ha_check()) {
				falcon_error("%s; stopping", falcon_errmsg());
				goto out;
			}
			continue;
		}
		if (sig != SIGHUP)
			break;
		reload_conf(cfg);
		falcon_info("SIGHUP: reconcile");
		falcond_reconcile(&g_st, NULL);
	}
stop:
	falcon_info("signal %d: stopping", sig);
	rc = 0;
out:
	falcond_events_stop();
	if (reconciling) {
		falcond_reconciler_stop(&g_st);
		pthread_join(reconciler, NULL);
	}
	wait_workers();
	if (d)
		MHD_stop_daemon(d);
	if (g_st.ch)
		falcond_state_fini(&g_st);
	falcond_history_stop();
	falcond_ledger_free(g_st.ledger);
	falcond_ha_close();
	falcond_conf_free_all();
	return rc;
}
