/*
 * falcond.c - the composer daemon: HTTP front (libmicrohttpd, a thread per
 * connection), munge authentication of every API request, routing to
 * falcond_core.c.  Routes and answers: doc/falcond.8.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "falcond.h"
#include "falcond_events.h"
#include "falcond_history.h"
#include "falcond_status.h"
#include "api/auth.h"
#include "core/log.h"
#include "core/util.h"

static struct falcond_state g_st;

/* true while the start-up reconcile runs (falcond listens already) */
static bool g_reconciling;

/* Seconds a client is asked to wait (Retry-After) while falcond reconciles. */
#define RECONCILING_RETRY_AFTER "1"

struct req {
	char *body;
	size_t len;
	bool too_big;
};

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

static enum MHD_Result answer_text(struct MHD_Connection *c, unsigned status, char *text,
				   const char *ctype)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
	if (r == NULL) {
		free(text);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", ctype);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* answer_json - queue o (consumed) with status. */
static enum MHD_Result answer_json(struct MHD_Connection *c, unsigned status, json_object *o)
{
	char *s = strdup(o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN) : "{}");

	json_object_put(o);
	if (s == NULL)
		return MHD_NO;
	return answer_text(c, status, s, "application/json");
}

static enum MHD_Result answer_err(struct MHD_Connection *c, falcon_err_t e, const char *detail)
{
	unsigned status = falcon_proto_http_status(e);

	return answer_json(c, status, falcon_proto_error_json(e, detail));
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
static enum MHD_Result answer_reconciling(struct MHD_Connection *c, const char *url)
{
	json_object *o = falcon_proto_error_json(FALCON_ERR_SERVER, "");
	char detail[200], *s;
	struct MHD_Response *r;
	enum MHD_Result ret;

	snprintf(detail, sizeof(detail), "%s: falcond is reconciling after its start; retry in "
		 RECONCILING_RETRY_AFTER " s", url);
	json_object_object_add(o, "error", json_object_new_string(detail));
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	if (s == NULL)
		return MHD_NO;
	r = MHD_create_response_from_buffer(strlen(s), s, MHD_RESPMEM_MUST_FREE);
	if (r == NULL) {
		free(s);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", "application/json");
	MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, RECONCILING_RETRY_AFTER);
	ret = MHD_queue_response(c, MHD_HTTP_SERVICE_UNAVAILABLE, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result dispatch(struct MHD_Connection *c, const struct route *rt,
				const struct req *rq, uid_t uid, const char *addr)
{
	struct falcond_state *st = &g_st;
	json_object *o = NULL;
	struct timespec t0;
	falcon_err_t rv;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (rt->auth == PRIV && __atomic_load_n(&g_reconciling, __ATOMIC_ACQUIRE))
		return answer_reconciling(c, rt->path);
	switch (rt->id) {
	case R_COMPOSE: {
		struct falcon_compose_req r;
		struct falcon_lease l;

		rv = falcon_proto_parse_compose(rq->body, rq->len, &r);
		if (rv != FALCON_OK)
			return answer_err(c, rv, falcon_errmsg());
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
			return answer_err(c, rv, falcon_errmsg());
		}
		o = json_object_new_object();
		json_object_object_add(o, "lease", falcon_proto_lease_json(&l));
		return answer_json(c, 200, o);
	}
	case R_DECOMPOSE: {
		struct falcon_decompose_req r;

		rv = falcon_proto_parse_decompose(rq->body, rq->len, &r);
		if (rv != FALCON_OK)
			return answer_err(c, rv, falcon_errmsg());
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
			return answer_err(c, rv, falcon_errmsg());
		}
		return answer_json(c, 200, o);
	}
	case R_STATUS:
		o = falcond_status_json(st, uid, privileged(uid));
		if (o != NULL)
			json_object_object_add(o, "reconciling",
					       json_object_new_boolean(__atomic_load_n(
						       &g_reconciling, __ATOMIC_ACQUIRE)));
		return answer_json(c, 200, o);
	case R_QUAR:
	case R_UNQUAR: {
		struct falcon_device_req r;

		rv = falcon_proto_parse_device(rq->body, rq->len, rt->id == R_QUAR, &r);
		if (rv == FALCON_OK)
			rv = rt->id == R_QUAR ? falcond_quarantine(st, &r) : falcond_unquarantine(st, &r);
		if (rv != FALCON_OK)
			return answer_err(c, rv, falcon_errmsg());
		o = json_object_new_object();
		json_object_object_add(o, "chassis", json_object_new_string(r.chassis));
		json_object_object_add(o, "device", json_object_new_string(r.device));
		json_object_object_add(o, "quarantined", json_object_new_boolean(rt->id == R_QUAR));
		return answer_json(c, 200, o);
	}
	case R_RECONCILE:
		if (rq->len > 0 && !(rq->len == 2 && memcmp(rq->body, "{}", 2) == 0))
			return answer_err(c, FALCON_ERR_PARSE, "reconcile: body: expected {} or nothing");
		rv = falcond_reconcile(st, &o);
		return answer_json(c, rv == FALCON_OK ? 200 : 502, o);
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
		return answer_json(c, 200, o);
	}
	case R_HISTORY:
		rv = falcond_history_request(st->ledger, &st->lock,
					     MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
									 "start"),
					     MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
									 "end"),
					     uid, privileged(uid), &o);
		if (rv != FALCON_OK)
			return answer_err(c, rv, falcon_errmsg());
		return answer_json(c, 200, o);
	case R_METRICS: {
		char *t = falcond_metrics_text(st);

		if (t == NULL)
			return MHD_NO;
		return answer_text(c, 200, t, "text/plain; version=0.0.4");
	}
	}
	return answer_err(c, FALCON_ERR_NOTFOUND, "no such route");
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
			       const char *method, const char *version, const char *upload,
			       size_t *upload_size, void **con_cls)
{
	struct req *rq = *con_cls;
	const struct route *rt = NULL;
	char addr[80], detail[1100];
	falcon_err_t rv;
	uid_t uid = (uid_t)-1;
	size_t i;

	if (rq == NULL) {
		rq = calloc(1, sizeof(*rq));
		if (rq == NULL)
			return MHD_NO;
		*con_cls = rq;
		return MHD_YES;
	}
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
	addr_str(c, addr, sizeof(addr));
	for (i = 0; i < ARRAY_SIZE(routes); i++)
		if (strcmp(routes[i].path, url) == 0) {
			rt = &routes[i];
			if (strcmp(routes[i].method, method) == 0)
				break;
		}
	if (rt == NULL)
		return answer_err(c, FALCON_ERR_NOTFOUND, "no such route");
	if (i == ARRAY_SIZE(routes)) {
		snprintf(detail, sizeof(detail), "%s %s: method not allowed (use %s)", method, url,
			 rt->method);
		return answer_json(c, 405, falcon_proto_error_json(FALCON_ERR_INVAL, detail));
	}
	if (rq->too_big)
		return answer_json(c, 413, falcon_proto_error_json(FALCON_ERR_PARSE,
								   "body larger than 64 KiB"));
	if (rt->auth != OPEN) {
		const char *cred = falcon_auth_header_cred(
			MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION));

		rv = falcon_auth_verify(g_st.conf->munge_socket, cred, method, url,
					rq->body ? rq->body : "", rq->len, &uid, NULL);
		if (rv != FALCON_OK) {
			snprintf(detail, sizeof(detail), "%s", falcon_errmsg());
			falcon_warn("%u %s %s from %s uid %ld: %s", rv == FALCON_ERR_AUTH ? 401 : 503,
				    method, url, addr, uid == (uid_t)-1 ? -1L : (long)uid, detail);
			pthread_mutex_lock(&g_st.lock);
			g_st.auth_fail += rv == FALCON_ERR_AUTH;
			pthread_mutex_unlock(&g_st.lock);
			return answer_err(c, rv, detail);
		}
		if (rt->auth == PRIV && !privileged(uid)) {
			snprintf(detail, sizeof(detail), "%s %s: uid %u is neither root nor SlurmUser",
				 method, url, (unsigned)uid);
			falcon_warn("403 %s %s from %s uid %u: not allowed", method, url, addr,
				    (unsigned)uid);
			pthread_mutex_lock(&g_st.lock);
			g_st.perm_fail++;
			pthread_mutex_unlock(&g_st.lock);
			return answer_err(c, FALCON_ERR_PERM, detail);
		}
	}
	return dispatch(c, rt, rq, uid, addr);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
		      enum MHD_RequestTerminationCode toe)
{
	struct req *rq = *con_cls;

	if (rq != NULL) {
		free(rq->body);
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

/* Confs replaced by a SIGHUP reload: request threads may still read one
 * (st->conf is read without the lock), so they are freed at exit only. */
static struct falcon_conf **old_confs;
static size_t nold_confs;

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
	struct falcon_conf *n = NULL, **grown;
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
	grown = realloc(old_confs, (nold_confs + 1) * sizeof(*old_confs));
	if (grown == NULL) {
		falcon_error("SIGHUP: %s: out of memory; nothing reloaded", n->path);
		falcon_conf_free(n);
		return;
	}
	old_confs = grown;
	old_confs[nold_confs++] = g_st.conf;
	__atomic_store_n(&g_st.conf, n, __ATOMIC_RELEASE);
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
	size_t nleases;
	struct passwd *pw;
	pthread_t reconciler;
	bool reconciling = false;
	sigset_t set;
	int opt, sig, rc = 1, verbose = 0;
	bool reconcile = true;

	falcon_log_init("falcond");
	g_st.use_slurm = true;
	g_st.inventory_ttl_ms = 5000; /* reuse a chassis inventory up to 5 s (falcond.8) */
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
	if (falcon_conf_load(falcon_conf_path(cfg), &g_st.conf) != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		return 2;
	}
	if (listen_addr(g_st.conf->listen_address, &ss, &sl) != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		goto out;
	}
	if (falcond_ledger_load(g_st.conf->state_dir, &g_st.ledger) != FALCON_OK ||
	    falcond_history_start(g_st.conf->state_dir, g_st.ledger) != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		goto out;
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
		goto out;
	}
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	/* listen first: until the start-up reconcile ends, health and status
	 * answer ("reconciling") and changes are 503 (answer_reconciling) */
	g_reconciling = reconcile;
	nleases = g_st.ledger->nleases;
	d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
				     MHD_USE_ERROR_LOG | (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
			     0, NULL, NULL, handler, NULL,
			     MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
			     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
			     MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned)512,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)60,
			     MHD_OPTION_END);
	if (d == NULL) {
		falcon_error("cannot listen on %s: %s", g_st.conf->listen_address, strerror(errno));
		goto out;
	}
	falcon_info("listening on %s (state %s, %zu chassis, %zu lease(s))",
		    g_st.conf->listen_address, g_st.ledger->path, g_st.nchassis, nleases);
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
		if (sigwait(&set, &sig) != 0)
			continue;
		if (sig != SIGHUP)
			break;
		reload_conf(falcon_conf_path(cfg));
		falcon_info("SIGHUP: reconcile");
		falcond_reconcile(&g_st, NULL);
	}
	falcon_info("signal %d: stopping", sig);
	rc = 0;
out:
	falcond_events_stop();
	if (reconciling) {
		falcond_reconciler_stop(&g_st);
		pthread_join(reconciler, NULL);
	}
	if (d)
		MHD_stop_daemon(d);
	if (g_st.ch)
		falcond_state_fini(&g_st);
	falcond_history_stop();
	falcond_ledger_free(g_st.ledger);
	falcon_conf_free(g_st.conf);
	while (nold_confs > 0)
		falcon_conf_free(old_confs[--nold_confs]);
	free(old_confs);
	return rc;
}
