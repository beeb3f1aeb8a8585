/*
 * falcon-sim.c - a Falcon 4016 chassis emulator: the Redfish subset of
 * H3 Platform's management service (fabric zones) plus DMTF's
 * CompositionService, basic auth and sessions, fault injection over a
 * loopback admin API, and the host side of the PCIe bus as sysfs-shaped
 * trees (sim_host.c).  lib/httpd (libmicrohttpd), one thread per
 * connection, HTTPS with TLS 1.2 or later.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "sim_server.h"
#include "core/util.h"
#include "httpd/httpd.h"

#define MAX_BODY (1024 * 1024)

static struct sim_server srv = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
};

/* Content reader of a dropped response: half the body, then an error. */
struct drop_ctx {
	char *data;
	size_t len;
};

static ssize_t drop_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct drop_ctx *dc = cls;
	size_t half = dc->len / 2, n;

	if (pos >= half)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	n = half - (size_t)pos;
	if (n > max)
		n = max;
	memcpy(buf, dc->data + pos, n);
	return (ssize_t)n;
}

static void drop_free(void *cls)
{
	struct drop_ctx *dc = cls;

	free(dc->data);
	free(dc);
}

/*
 * wait_ms - sleep up to ms milliseconds (forever when ms < 0), returning
 * early when the server stops or, with until_faults_change, when the fault
 * state is replaced (a hung request is released by DELETE /admin/faults).
 * Called without srv.lock held.
 */
static void wait_ms(long ms, bool until_faults_change)
{
	struct timespec ts;
	unsigned long gen;

	pthread_mutex_lock(&srv.lock);
	gen = srv.fault_gen;
	clock_gettime(CLOCK_REALTIME, &ts);
	if (ms >= 0) {
		ts.tv_sec += ms / 1000;
		ts.tv_nsec += (ms % 1000) * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
	}
	while (!srv.stopping && !(until_faults_change && srv.fault_gen != gen)) {
		int rc = ms >= 0 ? pthread_cond_timedwait(&srv.cond, &srv.lock, &ts)
				 : pthread_cond_wait(&srv.cond, &srv.lock);

		if (rc == ETIMEDOUT)
			break;
	}
	pthread_mutex_unlock(&srv.lock);
}

/*
 * The SSE stream of the EventService (DSP0266 1.20 sec. 13.5.2): one
 * response per client whose content reader blocks (this connection's own
 * thread: MHD_USE_THREAD_PER_CONNECTION) until an event newer than the
 * last one sent is kept (sim_events.c), sending a ": keep-alive" comment
 * every SSE_KEEPALIVE_MS so that a client can tell a quiet stream from a
 * dead one, and ends the stream when the server stops.
 */
#define SSE_KEEPALIVE_MS 5000

struct sse_ctx {
	unsigned long after;   /* id of the last event sent */
	char *pending;         /* SSE text being sent (owned), NULL = none */
	size_t len, off;
};

/* sse_wait - the next event's SSE text into x (a keep-alive comment after
 * SSE_KEEPALIVE_MS); false when the server stops. */
static bool sse_wait(struct sse_ctx *x)
{
	struct timespec ts;
	unsigned long id = 0;
	bool stopping;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += SSE_KEEPALIVE_MS / 1000;
	pthread_mutex_lock(&srv.lock);
	while (!srv.stopping && (x->pending = sim_events_next(&srv, x->after, &id)) == NULL)
		if (pthread_cond_timedwait(&srv.cond, &srv.lock, &ts) == ETIMEDOUT)
			break;
	stopping = srv.stopping;
	pthread_mutex_unlock(&srv.lock);
	if (x->pending != NULL)
		x->after = id;
	else if (!stopping)
		x->pending = strdup(": keep-alive\n\n");
	if (x->pending == NULL)
		return false;
	x->len = strlen(x->pending);
	x->off = 0;
	return true;
}

static ssize_t sse_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct sse_ctx *x = cls;
	size_t n;

	(void)pos;
	if (x->pending == NULL && !sse_wait(x))
		return MHD_CONTENT_READER_END_OF_STREAM;
	n = x->len - x->off;
	if (n > max)
		n = max;
	memcpy(buf, x->pending + x->off, n);
	x->off += n;
	if (x->off == x->len) {
		free(x->pending);
		x->pending = NULL;
	}
	return (ssize_t)n;
}

static void sse_free(void *cls)
{
	struct sse_ctx *x = cls;

	falcon_verbose("SSE stream closed after event %lu", x->after);
	free(x->pending);
	free(x);
}

/* sse_start - queue the stream; a Last-Event-ID header resumes after it,
 * else the stream starts with the next event. */
static enum MHD_Result sse_start(struct MHD_Connection *c)
{
	const char *last = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Last-Event-ID");
	struct sse_ctx *x = calloc(1, sizeof(*x));
	struct MHD_Response *resp;
	enum MHD_Result ret;
	long v;

	if (x == NULL)
		return MHD_NO;
	pthread_mutex_lock(&srv.lock);
	x->after = srv.last_event;
	pthread_mutex_unlock(&srv.lock);
	if (last != NULL && falcon_strtol(last, 10, 0, LONG_MAX, &v) == FALCON_OK)
		x->after = (unsigned long)v;
	resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 1024, sse_reader, x, sse_free);
	if (resp == NULL) {
		free(x);
		return MHD_NO;
	}
	MHD_add_response_header(resp, "Content-Type", "text/event-stream");
	MHD_add_response_header(resp, "Cache-Control", "no-cache");
	MHD_add_response_header(resp, "OData-Version", "4.0");
	falcon_verbose("SSE stream opened after event %lu", x->after);
	ret = MHD_queue_response(c, 200, resp);
	MHD_destroy_response(resp);
	return ret;
}

static bool peer_is_loopback(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa;

	if (ci == NULL || (sa = ci->client_addr) == NULL)
		return false;
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;

		return IN6_IS_ADDR_LOOPBACK(a) ||
		       (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
	}
	return false;
}

/*
 * Queue r as the response: JSON body, ETag, Redfish headers; optionally
 * dropped.  inm is the request's If-None-Match (NULL: none): a 200 whose
 * ETag it names becomes 304 Not Modified without a body (RFC 7232 sec. 3.2).
 */
static enum MHD_Result send_reply(struct MHD_Connection *c, struct sim_reply *r, bool drop,
				  const char *inm)
{
	struct MHD_Response *resp;
	const char *text = "";
	char etag[32], link[256];
	bool not_modified = false;
	enum MHD_Result ret;

	link[0] = '\0';
	if (r->body != NULL) {
		struct json_object *t;

		if (r->etag) {
			sim_etag_of(r->body, etag, sizeof(etag));
			json_object_object_add(r->body, "@odata.etag", json_object_new_string(etag));
			not_modified = r->status == 200 && sim_etag_listed(inm, etag);
		}
		/* DSP0266 sec. 8.2.2: Link: <schema>; rel=describedby */
		if (r->status < 300 && json_object_object_get_ex(r->body, "@odata.type", &t) &&
		    sim_odata_schema_uri(json_object_get_string(t), link + 1, sizeof(link) - 32)) {
			link[0] = '<';
			strcat(link, ">; rel=describedby");
		}
		text = not_modified ? "" : json_object_to_json_string_ext(r->body, JSON_C_TO_STRING_PRETTY |
						      JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
	} else if (r->text != NULL) {
		text = r->text;
	}
	if (drop) {
		struct drop_ctx *dc = calloc(1, sizeof(*dc));

		if (dc == NULL || (dc->data = strdup(text)) == NULL) {
			free(dc);
			return MHD_NO;
		}
		dc->len = strlen(text);
		resp = MHD_create_response_from_callback(dc->len, 4096, drop_reader, dc, drop_free);
		falcon_info("fault: dropping the connection after %zu of %zu bytes", dc->len / 2, dc->len);
	} else {
		resp = MHD_create_response_from_buffer(strlen(text), (void *)text,
						       MHD_RESPMEM_MUST_COPY);
	}
	if (resp == NULL)
		return MHD_NO;
	if (r->body != NULL && !not_modified)
		MHD_add_response_header(resp, "Content-Type", "application/json; charset=utf-8");
	else if (r->text != NULL)
		MHD_add_response_header(resp, "Content-Type", r->ctype);
	if (link[0] != '\0')
		MHD_add_response_header(resp, "Link", link);
	MHD_add_response_header(resp, "OData-Version", "4.0");
	MHD_add_response_header(resp, "Cache-Control", "no-cache");
	if (r->body != NULL && r->etag)
		MHD_add_response_header(resp, "ETag", etag);
	if (r->allow[0] != '\0')
		MHD_add_response_header(resp, "Allow", r->allow);
	if (r->location[0] != '\0')
		MHD_add_response_header(resp, "Location", r->location);
	if (r->token[0] != '\0')
		MHD_add_response_header(resp, "X-Auth-Token", r->token);
	if (r->status == 401)
		ret = MHD_queue_basic_auth_fail_response(c, "falcon-sim", resp);
	else
		ret = MHD_queue_response(c, not_modified ? 304u : (unsigned)r->status, resp);
	MHD_destroy_response(resp);
	return ret;
}

/*
 * identify - who sent the request (DSP0266 1.20 sec. 13.3: HTTP basic auth
 * or a session's X-Auth-Token) into *who with its role's privileges;
 * false when it names no valid account or session.  With no accounts the
 * service is anonymous: every request has every privilege.
 */
static bool identify(struct MHD_Connection *c, struct sim_caller *who)
{
	const char *tok = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Auth-Token");
	char *user = NULL, *pass = NULL;
	int i;

	memset(who, 0, sizeof(*who));
	who->account = -1;
	pthread_mutex_lock(&srv.lock);
	if (!sim_accounts_any(&srv)) {
		who->privs = SIM_PRIV_ALL;
		pthread_mutex_unlock(&srv.lock);
		return true;
	}
	if (tok != NULL) {
		for (i = 0; i < SIM_MAX_SESSIONS; i++)
			if (srv.sessions[i].id[0] != '\0' && strcmp(srv.sessions[i].token, tok) == 0) {
				who->account = sim_account_find(&srv, srv.sessions[i].user);
				falcon_strlcpy(who->session, srv.sessions[i].id, sizeof(who->session));
			}
	} else {
		pthread_mutex_unlock(&srv.lock);
		user = MHD_basic_auth_get_username_password(c, &pass);
		pthread_mutex_lock(&srv.lock);
		who->account = sim_account_check(&srv, user, pass);
		MHD_free(user);
		MHD_free(pass);
	}
	if (who->account >= 0 && srv.accounts[who->account].enabled)
		who->privs = sim_role_privs(srv.accounts[who->account].role);
	else
		who->account = -1;
	pthread_mutex_unlock(&srv.lock);
	return who->account >= 0;
}

/* url equals one of the NULL-terminated paths, ignoring one trailing '/'. */
static bool url_in(const char *url, const char *const *paths)
{
	size_t n = strlen(url);

	if (n > 1 && url[n - 1] == '/')
		n--;
	for (; *paths != NULL; paths++)
		if (strlen(*paths) == n && strncmp(url, *paths, n) == 0)
			return true;
	return false;
}

/* Requests Redfish serves without authentication (DSP0266 1.20 sec. 13.3.1:
 * the /redfish version object, the service root, $metadata and the schema
 * files it references, the OData service document, and POST to the session collection or its Members). */
static bool auth_exempt(const char *method, const char *url)
{
	static const char *const get[] = { "/redfish", "/redfish/v1", "/redfish/v1/$metadata",
					   "/redfish/v1/odata", SIM_SCHEMA_CSDL, SIM_SCHEMA_JSON, NULL };
	static const char *const post[] = { "/redfish/v1/SessionService/Sessions",
					    "/redfish/v1/SessionService/Sessions/Members", NULL };

	if (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0)
		return url_in(url, get);
	return strcmp(method, "POST") == 0 && url_in(url, post);
}

static enum MHD_Result admin(struct MHD_Connection *c, const char *url, const char *method,
			     const struct falcon_httpd_req *rq)
{
	struct sim_reply r;
	enum MHD_Result ret;

	memset(&r, 0, sizeof(r));
	if (!peer_is_loopback(c)) {
		sim_reply_error(&r, 403, "Base.1.16.InsufficientPrivilege",
				"The admin API answers loopback clients only.");
	} else if (strcmp(url, "/admin/state") == 0) {
		if (strcmp(method, "GET") != 0) {
			sim_reply_error(&r, 405, "Base.1.16.OperationNotAllowed", "GET only");
			falcon_strlcpy(r.allow, "GET", sizeof(r.allow));
		} else {
			pthread_mutex_lock(&srv.lock);
			r.body = sim_state_json(&srv);
			pthread_mutex_unlock(&srv.lock);
			r.status = 200;
		}
	} else if (strcmp(url, "/admin/faults") == 0) {
		if (strcmp(method, "GET") == 0) {
			pthread_mutex_lock(&srv.lock);
			r.body = sim_faults_to_json(&srv.cfg.faults);
			pthread_mutex_unlock(&srv.lock);
			r.status = 200;
		} else if (strcmp(method, "DELETE") == 0) {
			pthread_mutex_lock(&srv.lock);
			memset(&srv.cfg.faults, 0, sizeof(srv.cfg.faults));
			srv.fault_gen++;
			pthread_cond_broadcast(&srv.cond);
			pthread_mutex_unlock(&srv.lock);
			falcon_info("faults cleared");
			r.status = 204;
		} else if (strcmp(method, "POST") == 0 || strcmp(method, "PUT") == 0) {
			struct json_tokener *tok = json_tokener_new_ex(64);
			struct json_object *o = NULL;
			struct sim_faults nf;

			if (tok != NULL && rq->body != NULL)
				o = json_tokener_parse_ex(tok, rq->body, (int)rq->len);
			if (o == NULL || json_tokener_get_error(tok) != json_tokener_success) {
				sim_reply_error(&r, 400, "Base.1.16.MalformedJSON",
						"The request body is not valid JSON.");
			} else if (sim_faults_from_json(o, &nf) != FALCON_OK) {
				sim_reply_error(&r, 400, "Base.1.16.PropertyValueError", "%s",
						falcon_errmsg());
			} else {
				pthread_mutex_lock(&srv.lock);
				srv.cfg.faults = nf;
				srv.fault_gen++;
				pthread_cond_broadcast(&srv.cond);
				r.body = sim_faults_to_json(&srv.cfg.faults);
				pthread_mutex_unlock(&srv.lock);
				r.status = 200;
				falcon_info("faults set: %s",
					    json_object_to_json_string_ext(r.body, JSON_C_TO_STRING_PLAIN));
			}
			json_object_put(o);
			if (tok != NULL)
				json_tokener_free(tok);
		} else {
			sim_reply_error(&r, 405, "Base.1.16.OperationNotAllowed", "GET, POST or DELETE");
			falcon_strlcpy(r.allow, "GET, POST, DELETE", sizeof(r.allow));
		}
	} else if (strcmp(url, "/admin/health") == 0) {
		struct json_object *o = rq->body ? json_tokener_parse(rq->body) : NULL;

		if (strcmp(method, "POST") != 0) {
			sim_reply_error(&r, 405, "Base.1.16.OperationNotAllowed", "POST only");
			falcon_strlcpy(r.allow, "POST", sizeof(r.allow));
		} else if (!json_object_is_type(o, json_type_object)) {
			sim_reply_error(&r, 400, "Base.1.16.MalformedJSON",
					"The request body is not a JSON object.");
		} else {
			pthread_mutex_lock(&srv.lock);
			sim_events_admin(&srv, o, &r);
			pthread_mutex_unlock(&srv.lock);
		}
		json_object_put(o);
	} else {
		sim_reply_error(&r, 404, "Base.1.16.ResourceNotFound", "No admin resource %s.", url);
	}
	ret = send_reply(c, &r, false, NULL);
	json_object_put(r.body);
	return ret;
}

/* One connection's state (falcon_httpd_conf.on_conn): whether it has
 * carried a Redfish request yet (counted once in srv.redfish_connections). */
struct conn_info {
	bool redfish;
};

static void on_conn(void *cls, struct MHD_Connection *c, void **user, bool opened)
{
	(void)cls;
	(void)c;
	if (opened) {
		*user = calloc(1, sizeof(struct conn_info));
		pthread_mutex_lock(&srv.lock);
		srv.connections++;
		pthread_mutex_unlock(&srv.lock);
	} else {
		free(*user);
		*user = NULL;
	}
}

/* count_redfish_connection - the first Redfish request of a connection
 * counts it (the benchmark's TLS handshakes per compose). */
static void count_redfish_connection(struct MHD_Connection *c)
{
	struct conn_info *info = falcon_httpd_conn_user(c);

	if (info == NULL || info->redfish)
		return;
	info->redfish = true;
	pthread_mutex_lock(&srv.lock);
	srv.redfish_connections++;
	pthread_mutex_unlock(&srv.lock);
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
			       const char *method, struct falcon_httpd_req *rq)
{
	struct sim_fault_rule rule;
	struct sim_caller who;
	struct sim_reply r;
	bool fault = false, drop = false;
	const char *odata_version;
	long latency;
	enum MHD_Result ret;

	(void)cls;
	falcon_debug("%s %s", method, url);
	if (strncmp(url, "/admin/", 7) == 0)
		return admin(c, url, method, rq);
	count_redfish_connection(c);

	/* Injected faults apply to Redfish requests, before anything else. */
	pthread_mutex_lock(&srv.lock);
	latency = srv.cfg.faults.latency_ms;
	fault = sim_fault_match(&srv.cfg.faults, method, url, &rule);
	pthread_mutex_unlock(&srv.lock);
	if (fault && rule.action == SIM_FAULT_LATENCY)
		latency += rule.ms;
	if (latency > 0)
		wait_ms(latency, false);
	if (fault && rule.action == SIM_FAULT_TIMEOUT) {
		falcon_info("fault: %s %s accepted and never answered", method, url);
		wait_ms(rule.ms > 0 ? rule.ms : -1, true);
		falcon_info("fault: %s %s released without an answer", method, url);
		return MHD_NO;
	}
	memset(&r, 0, sizeof(r));
	if (fault && rule.action == SIM_FAULT_ERROR) {
		falcon_info("fault: %s %s answered %d", method, url, rule.status);
		sim_reply_error(&r, rule.status,
				rule.status == 503 ? "Base.1.16.ServiceTemporarilyUnavailable"
						   : "Base.1.16.InternalError",
				"Injected fault: the service answered %d.", rule.status);
	} else if ((odata_version = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
								"OData-Version")) != NULL &&
		   strcmp(odata_version, "4.0") != 0) {
		/* DSP0266 sec. 8.1.1: an unsupported OData-Version is 412 */
		sim_reply_error(&r, 412, "Base.1.16.HeaderInvalid",
				"OData-Version %.16s is not supported (only 4.0).", odata_version);
	} else if (!identify(c, &who) && !auth_exempt(method, url)) {
		sim_reply_error(&r, 401, "Base.1.16.NoValidSession",
				"Authentication required: basic auth or an X-Auth-Token from SessionService.");
	} else if (rq->too_big) {
		sim_reply_error(&r, 413, "Base.1.16.GeneralError",
				"The request body exceeds %d bytes.", MAX_BODY);
	} else if (strcmp(url, SIM_SSE_PATH) == 0 && strcmp(method, "GET") == 0 && !srv.no_sse) {
		return sse_start(c);
	} else {
		const char *if_match = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "If-Match");

		pthread_mutex_lock(&srv.lock);
		sim_redfish_handle(&srv, &who, method, url, rq->body, rq->len, if_match, &r);
		if (r.test_event) { /* EventService.SubmitTestEvent, allowed */
			struct json_object *o = rq->body ? json_tokener_parse(rq->body) : NULL;

			sim_events_test(&srv, o);
			json_object_put(o);
		}
		pthread_mutex_unlock(&srv.lock);
		drop = fault && rule.action == SIM_FAULT_DROP;
	}
	falcon_verbose("%s %s -> %d", method, url, r.status);
	ret = send_reply(c, &r, drop,
			 strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0
			 ? MHD_lookup_connection_value(c, MHD_HEADER_KIND, "If-None-Match") : NULL);
	json_object_put(r.body);
	return ret;
}

/*
 * bind_listen - bind and listen on "HOST:PORT" ("[::1]:PORT" for IPv6).
 * Non-loopback addresses are refused unless allow_remote.  Returns the
 * socket in *fd.
 */
static falcon_err_t bind_listen(const char *spec, bool allow_remote, int *fd)
{
	struct addrinfo hints, *res = NULL, *ai;
	char host[256];
	const char *colon, *port;
	long pn;
	int s = -1, one = 1, gai;
	falcon_err_t rv;

	colon = strrchr(spec, ':');
	if (colon == NULL || colon == spec) {
		rv = falcon_err_set(FALCON_ERR_INVAL, "--listen %s: expected HOST:PORT", spec);
		goto fail;
	}
	port = colon + 1;
	if (falcon_strtol(port, 10, 0, 65535, &pn) != FALCON_OK) {
		rv = falcon_err_set(FALCON_ERR_INVAL, "--listen %s: expected a port in [0, 65535]", spec);
		goto fail;
	}
	if (spec[0] == '[' && colon[-1] == ']')
		snprintf(host, sizeof(host), "%.*s", (int)(colon - spec - 2), spec + 1);
	else
		snprintf(host, sizeof(host), "%.*s", (int)(colon - spec), spec);
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	if ((gai = getaddrinfo(host, port, &hints, &res)) != 0) {
		rv = falcon_err_set(FALCON_ERR_INVAL, "--listen %s: %s", spec, gai_strerror(gai));
		goto fail;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		bool loop = false;

		if (ai->ai_family == AF_INET)
			loop = (ntohl(((struct sockaddr_in *)(void *)ai->ai_addr)->sin_addr.s_addr) >> 24) == 127;
		else if (ai->ai_family == AF_INET6)
			loop = IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)(void *)ai->ai_addr)->sin6_addr);
		if (!loop && !allow_remote) {
			rv = falcon_err_set(FALCON_ERR_PERM,
					    "--listen %s: not a loopback address (use --allow-remote to listen there anyway)",
					    spec);
			goto fail;
		}
		s = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (s < 0)
			continue;
		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(s, ai->ai_addr, ai->ai_addrlen) == 0 && listen(s, 64) == 0)
			break;
		close(s);
		s = -1;
	}
	if (s < 0) {
		rv = falcon_err_set(FALCON_ERR_IO, "--listen %s: cannot bind: %s", spec, strerror(errno));
		goto fail;
	}
	*fd = s;
	rv = FALCON_OK;
fail:
	if (res != NULL)
		freeaddrinfo(res);
	return rv;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: falcon-sim --listen HOST:PORT --sysfs-root DIR [options]\n"
		"Emulate a Falcon 4016 PCIe chassis (Redfish) and its hosts' PCIe buses.\n"
		"\n"
		"  -l, --listen HOST:PORT   address to serve (loopback only; PORT 0 = any free port)\n"
		"  -s, --sysfs-root DIR     keep each host's bus/pci tree under DIR/<host>/\n"
		"  -c, --config FILE        chassis configuration (JSON); default: the paper's testbed\n"
		"  -C, --credentials FILE   \"user:password\": an Administrator; require basic auth\n"
		"                           or a session\n"
		"  -A, --accounts FILE      accounts, one \"ROLE USER PASSWORD\" a line (ROLE:\n"
		"                           Administrator, Operator, ReadOnly)\n"
		"      --tls-cert FILE      serve HTTPS with this PEM certificate (chain)...\n"
		"      --tls-key FILE       ... and its PEM private key\n"
		"      --no-sse             no ServerSentEventUri: events by subscription only\n"
		"      --no-switches        no drawer switches: a zone does not say which\n"
		"                           drawers its port is cabled to\n"
		"      --event-ca FILE      CA certificates that verify https event destinations\n"
		"                           (default: the system store)\n"
		"  -p, --port-file FILE     write the bound port there once ready\n"
		"      --allow-remote       allow a non-loopback --listen address\n"
		"      --dump-config        print the effective configuration as JSON and exit\n"
		"  -v, --verbose            more logging (twice: debug)\n"
		"  -q, --quiet              warnings and errors only\n"
		"  -h, --help               this help\n"
		"  -V, --version            print the version\n");
}

/* The configuration as JSON (for --dump-config): the same format --config reads. */
static struct json_object *link_json(const struct sim_link *l)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "speed_gts", json_object_new_double(l->speed_gts));
	json_object_object_add(o, "width", json_object_new_int(l->width));
	return o;
}

static struct json_object *device_json(const struct sim_device *dev, int slot)
{
	struct json_object *o = json_object_new_object();
	char buf[16];

	if (slot > 0)
		json_object_object_add(o, "slot", json_object_new_int(slot));
	else
		json_object_object_add(o, "bdf", json_object_new_string(dev->bdf));
	json_object_object_add(o, "type", json_object_new_string(falcon_dev_type_str(dev->type)));
#define HEX(k, fmt, v) do { snprintf(buf, sizeof(buf), fmt, v); \
		json_object_object_add(o, k, json_object_new_string(buf)); } while (0)
	HEX("vendor_id", "%04x", dev->vendor_id);
	HEX("device_id", "%04x", dev->device_id);
	HEX("subsystem_vendor_id", "%04x", dev->subsys_vendor_id);
	HEX("subsystem_device_id", "%04x", dev->subsys_device_id);
	HEX("class", "%06x", dev->class_code);
	HEX("revision", "%02x", dev->revision);
#undef HEX
	json_object_object_add(o, "model", json_object_new_string(dev->model));
	json_object_object_add(o, "serial", json_object_new_string(dev->serial));
	json_object_object_add(o, "manufacturer", json_object_new_string(dev->manufacturer));
	json_object_object_add(o, "max_link", link_json(&dev->max_link));
	json_object_object_add(o, "link", link_json(&dev->link));
	return o;
}

static struct json_object *config_json(const struct sim_config *cfg)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();
	int p, d, s;
	size_t h, k;

	json_object_object_add(o, "chassis", json_object_new_string(cfg->chassis));
	json_object_object_add(o, "mode", json_object_new_string(sim_mode_str(cfg->mode)));
	json_object_object_add(o, "surprise_removal", json_object_new_string(
		cfg->surprise == SIM_SURPRISE_STALE ? "stale"
		: cfg->surprise == SIM_SURPRISE_REFUSE ? "refuse" : "remove"));
	for (p = 0; p < SIM_PORTS; p++) {
		struct json_object *po = json_object_new_object(), *br;
		char id[16];

		snprintf(id, sizeof(id), "H%d", p + 1);
		json_object_object_add(po, "id", json_object_new_string(id));
		if (cfg->port[p].host[0] == '\0') {
			json_object_object_add(po, "host", NULL);
		} else {
			json_object_object_add(po, "host", json_object_new_string(cfg->port[p].host));
			json_object_object_add(po, "adapter", json_object_new_string(cfg->port[p].adapter));
			br = json_object_new_array();
			snprintf(id, sizeof(id), "0x%02x", cfg->port[p].bus_first);
			json_object_array_add(br, json_object_new_string(id));
			snprintf(id, sizeof(id), "0x%02x", cfg->port[p].bus_last);
			json_object_array_add(br, json_object_new_string(id));
			json_object_object_add(po, "bus_range", br);
			json_object_object_add(po, "link", link_json(&cfg->port[p].link));
		}
		json_object_array_add(a, po);
	}
	json_object_object_add(o, "host_ports", a);
	a = json_object_new_array();
	for (d = 0; d < SIM_DRAWERS; d++) {
		struct json_object *dr = json_object_new_object();
		struct json_object *sl = json_object_new_array();

		json_object_object_add(dr, "id", json_object_new_int(d + 1));
		json_object_object_add(dr, "host_ports", sim_drawer_ports_json(cfg, d));
		for (s = 0; s < SIM_SLOTS; s++)
			if (cfg->drawer[d].slot[s].populated)
				json_object_array_add(sl, device_json(&cfg->drawer[d].slot[s], s + 1));
		json_object_object_add(dr, "slots", sl);
		json_object_array_add(a, dr);
	}
	json_object_object_add(o, "drawers", a);
	a = json_object_new_array();
	for (h = 0; h < cfg->nhosts; h++) {
		struct json_object *ho = json_object_new_object(), *ld = json_object_new_array();

		json_object_object_add(ho, "name", json_object_new_string(cfg->hosts[h].name));
		for (k = 0; k < cfg->hosts[h].nlocal; k++)
			json_object_array_add(ld, device_json(&cfg->hosts[h].local[k], 0));
		json_object_object_add(ho, "local_devices", ld);
		json_object_array_add(a, ho);
	}
	json_object_object_add(o, "hosts", a);
	json_object_object_add(o, "faults", sim_faults_to_json(&cfg->faults));
	return o;
}

/* What the command line asked for. */
struct sim_opts {
	const char *listen, *config, *creds, *accounts, *port_file, *sysfs_root;
	const char *tls_cert, *tls_key, *event_ca;
	bool allow_remote, dump, no_sse, no_switches;
};

/*
 * The steps of main().  parse_args() and configure() return -1 to go on,
 * else the exit code.
 */

/* parse_args - the options into *o, and the stderr log sink at -v/-q's level. */
static int parse_args(int argc, char **argv, struct sim_opts *o)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "sysfs-root", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'c' },
		{ "credentials", required_argument, NULL, 'C' },
		{ "accounts", required_argument, NULL, 'A' },
		{ "tls-cert", required_argument, NULL, 'T' },
		{ "tls-key", required_argument, NULL, 'K' },
		{ "port-file", required_argument, NULL, 'p' },
		{ "no-sse", no_argument, NULL, 'N' },
		{ "no-switches", no_argument, NULL, 'W' },
		{ "event-ca", required_argument, NULL, 'E' },
		{ "allow-remote", no_argument, NULL, 'R' },
		{ "dump-config", no_argument, NULL, 'D' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int level = FALCON_LOG_INFO, opt;

	while ((opt = getopt_long(argc, argv, "l:s:c:C:A:p:vqhV", opts, NULL)) != -1) {
		switch (opt) {
		case 'l': o->listen = optarg; break;
		case 's': o->sysfs_root = optarg; break;
		case 'c': o->config = optarg; break;
		case 'C': o->creds = optarg; break;
		case 'A': o->accounts = optarg; break;
		case 'T': o->tls_cert = optarg; break;
		case 'K': o->tls_key = optarg; break;
		case 'p': o->port_file = optarg; break;
		case 'N': o->no_sse = true; break;
		case 'W': o->no_switches = true; break;
		case 'E': o->event_ca = optarg; break;
		case 'R': o->allow_remote = true; break;
		case 'D': o->dump = true; break;
		case 'v': if (level < FALCON_LOG_DEBUG) level++; break;
		case 'q': level = FALCON_LOG_WARN; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("falcon-sim %s\n", PACKAGE_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	falcon_log_add_sink(falcon_log_sink_stderr, (falcon_log_level_t)level, NULL);
	if (optind != argc) {
		falcon_error("unexpected argument '%s'", argv[optind]);
		usage(stderr);
		return 2;
	}
	return -1;
}

/* configure - srv.cfg from --config (else the testbed); --dump-config
 * prints it (exit 0); --listen and --sysfs-root are required to serve. */
static int configure(const struct sim_opts *o)
{
	if (o->config != NULL) {
		if (sim_config_load(o->config, &srv.cfg) != FALCON_OK) {
			falcon_error("%s", falcon_errmsg());
			return 1;
		}
	} else {
		sim_config_default(&srv.cfg);
	}
	if (o->dump) {
		struct json_object *j = config_json(&srv.cfg);

		printf("%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY |
							      JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(j);
		return 0;
	}
	if (o->listen == NULL || o->sysfs_root == NULL) {
		falcon_error("--listen and --sysfs-root are required");
		usage(stderr);
		return 2;
	}
	return -1;
}

/* setup_auth - --credentials (one Administrator) and --accounts, else
 * anonymous; false when a file does not load (logged). */
static bool setup_auth(const struct sim_opts *o)
{
	int i, n = 0;

	if (o->creds == NULL && o->accounts == NULL) {
		falcon_warn("no --credentials or --accounts: accepting anonymous requests");
		return true;
	}
	if ((o->creds != NULL && sim_accounts_load(&srv, o->creds, true) != FALCON_OK) ||
	    (o->accounts != NULL && sim_accounts_load(&srv, o->accounts, false) != FALCON_OK)) {
		falcon_error("%s", falcon_errmsg());
		return false;
	}
	for (i = 0; i < SIM_MAX_ACCOUNTS; i++)
		if (srv.accounts[i].used) {
			falcon_verbose("account %s: %s", srv.accounts[i].user,
				       sim_role_name(srv.accounts[i].role));
			n++;
		}
	falcon_info("basic auth and sessions required (%d account%s)", n, n == 1 ? "" : "s");
	return true;
}

/* open_listener - the bound listening socket *fd (caller closes) and its
 * port (0 when --listen asked for any). */
static falcon_err_t open_listener(const struct sim_opts *o, int *fd, unsigned *port)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	falcon_err_t rv;

	if ((rv = bind_listen(o->listen, o->allow_remote, fd)) != FALCON_OK)
		return rv;
	if (getsockname(*fd, (struct sockaddr *)&ss, &sl) != 0)
		return falcon_err_set(FALCON_ERR_IO, "getsockname: %s", strerror(errno));
	*port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
					       : ((struct sockaddr_in *)&ss)->sin_port);
	return FALCON_OK;
}

/* block_signals - SIGTERM and SIGINT go to sigwait() in wait_signal(),
 * never to the server threads; SIGPIPE is ignored. */
static void block_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	pthread_sigmask(SIG_BLOCK, set, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* start_http - the server on fd (taken when it starts), one thread per
 * connection, HTTPS (TLS 1.2 or later) with --tls-cert and --tls-key. */
static falcon_err_t start_http(const struct sim_opts *o, int fd, struct falcon_httpd **h)
{
	struct falcon_httpd_conf k = {
		.name = "http", .listen_fd = fd, .threads = FALCON_HTTPD_THREAD_PER_CONNECTION,
		.flags = FALCON_HTTPD_KEEP_NUL, .idle_s = 600, .max_body = MAX_BODY,
		.tls_cert_file = o->tls_cert, .tls_key_file = o->tls_key,
		.mhd_log = FALCON_LOG_DEBUG, .handler = handler, .on_conn = on_conn,
	};

	return falcon_httpd_start(&k, h);
}

/* write_port_file - "<port>\n" to path, atomically (mode 0644). */
static falcon_err_t write_port_file(const char *path, unsigned port)
{
	char buf[16];
	int n = snprintf(buf, sizeof(buf), "%u\n", port);

	return falcon_write_file_atomic(path, buf, (size_t)n, 0644);
}

/* wait_signal - until SIGTERM or SIGINT (blocked by block_signals()). */
static void wait_signal(sigset_t *set)
{
	int sig = 0;

	do {
		if (sigwait(set, &sig) != 0)
			break;
	} while (sig != SIGTERM && sig != SIGINT);
	falcon_info("signal %d: stopping", sig);
}

/* stop - wake waiting handlers, stop the HTTP server (h may be NULL), close
 * fd (>= 0: not yet the server's), the host side, and free what srv holds. */
static void stop(struct falcon_httpd *h, int fd, bool host_started)
{
	pthread_mutex_lock(&srv.lock);
	srv.stopping = true;
	pthread_cond_broadcast(&srv.cond);
	pthread_mutex_unlock(&srv.lock);
	falcon_httpd_stop(h);
	if (fd >= 0)
		close(fd);
	sim_subs_stop(&srv);
	if (host_started)
		sim_host_stop(&srv);
	sim_events_free(&srv);
	sim_accounts_wipe(&srv);
	free(srv.sysfs_root);
	free(srv.event_ca);
}

/* serve - the chassis on o->listen and the hosts' trees until a signal;
 * the exit code (0 after a signal, 1 when something would not start). */
static int serve(const struct sim_opts *o)
{
	struct falcon_httpd *h = NULL;
	bool host_started = false;
	unsigned port = 0;
	int fd = -1, rc = 1;
	sigset_t set;

	sim_state_init(&srv.st);
	if ((srv.sysfs_root = strdup(o->sysfs_root)) == NULL) {
		falcon_error("out of memory");
		goto out;
	}
	if (!setup_auth(o))
		goto out;
	srv.tls = o->tls_cert != NULL;
	srv.no_sse = o->no_sse;
	srv.no_switches = o->no_switches;
	if (o->event_ca != NULL && (srv.event_ca = strdup(o->event_ca)) == NULL) {
		falcon_error("out of memory");
		goto out;
	}
	if (open_listener(o, &fd, &port) != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		goto out;
	}
	block_signals(&set);
	if (sim_host_start(&srv) != FALCON_OK) {
		falcon_error("host side: %s", falcon_errmsg());
		goto out;
	}
	host_started = true;
	if (sim_subs_start(&srv) != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		goto out;
	}
	if (start_http(o, fd, &h) != FALCON_OK) {
		falcon_error("cannot start the HTTP%s server on %s: %s", srv.tls ? "S" : "", o->listen,
			     falcon_errmsg());
		goto out;
	}
	fd = -1; /* the server owns it now */
	if (falcon_httpd_port(h) != 0)
		port = falcon_httpd_port(h);
	if (o->port_file != NULL && write_port_file(o->port_file, port) != FALCON_OK) {
		falcon_error("--port-file: %s", falcon_errmsg());
		goto out;
	}
	falcon_info("chassis %s (%s mode) serving Redfish over %s on %s (port %u), hosts under %s",
		    srv.cfg.chassis, sim_mode_str(srv.cfg.mode), srv.tls ? "HTTPS" : "HTTP",
		    o->listen, port, srv.sysfs_root);
	wait_signal(&set);
	rc = 0;
out:
	stop(h, fd, host_started);
	return rc;
}

int main(int argc, char **argv)
{
	struct sim_opts o = { 0 };
	int rc;

	falcon_log_init("falcon-sim");
	if ((rc = parse_args(argc, argv, &o)) >= 0 || (rc = configure(&o)) >= 0)
		return rc;
	return serve(&o);
}
