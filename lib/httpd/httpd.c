/*
 * httpd.c - the one libmicrohttpd server (httpd.h): start and stop, the
 * request and its body, the connections without a complete request and
 * their deadlines, TLS.
 *
 * The deadline table (issue 32: 1,500 connections trickling header bytes
 * from the clients' own address took all 64 per-address slots of
 * libmicrohttpd's MHD_OPTION_PER_IP_CONNECTION_LIMIT, which refuses the new
 * connection, so root's falconctl status waited 40 s; libmicrohttpd 0.9.75
 * has no request-header deadline: its MHD_OPTION_CONNECTION_TIMEOUT
 * restarts at every byte received).  A connection is dropped by
 * shutdown(2) of its descriptor (MHD_CONNECTION_INFO_CONNECTION_FD);
 * libmicrohttpd then reads the end of the stream and closes it.  The
 * descriptor is only touched under h->lock while the connection is in the
 * table, which its MHD_CONNECTION_NOTIFY_CLOSED leaves before
 * libmicrohttpd closes the descriptor (daemon.c: MHD_cleanup_connections,
 * internal_add_connection; read in 0.9.75), so a reused descriptor is
 * never shut down.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>

#include "httpd/httpd.h"
#include "core/util.h"

#define REAP_MS 200          /* how often the deadlines are read */
#define DROP_LOG_S 10        /* drops are logged at most this often */
#define TLS_FILE_MAX (1 << 20)

/* A connection (MHD_CONNECTION_INFO_SOCKET_CONTEXT), made at its accept,
 * freed at its close. */
struct hconn {
	struct hconn *prev, *next;  /* the table, oldest deadline start first */
	int fd;                     /* libmicrohttpd's; shut down, never closed here */
	int family;
	unsigned char addr[16];     /* the peer's address (port left out) */
	long long deadline_ms;      /* falcon_now_ms() by which the request is complete */
	bool waiting;               /* in the table: no complete request yet */
	bool dropped;               /* shut down for its deadline or a cap */
	void *user;                 /* conf.on_conn's */
};

struct falcon_httpd {
	struct falcon_httpd_conf conf;  /* strings and addr not kept */
	char name[32];
	struct MHD_Daemon *d;
	char *tls_cert, *tls_key;
	size_t tls_key_len;
	/* the connections without a complete request (lock) */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct hconn *head, *tail;
	size_t n, cap;              /* in the table; at most (cap: 3/4 of the limit) */
	bool stop;
	bool reaping;               /* the reaper thread runs */
	pthread_t reaper;
	unsigned long long late, per_ip, full;   /* dropped: deadline, address, limit */
};

/* hc_of - c's entry (NULL before its MHD_CONNECTION_NOTIFY_STARTED or when
 * it could not be made). */
static struct hconn *hc_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci != NULL ? ci->socket_context : NULL;
}

/* hc_unlink - e out of the table (h->lock held). */
static void hc_unlink(struct falcon_httpd *h, struct hconn *e)
{
	if (!e->waiting)
		return;
	if (e->prev)
		e->prev->next = e->next;
	else
		h->head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		h->tail = e->prev;
	e->prev = e->next = NULL;
	e->waiting = false;
	h->n--;
}

/* hc_wait - e waits for a complete request until now + secs, at the end
 * of the table (h->lock held; a dropped connection is left out). */
static void hc_wait(struct falcon_httpd *h, struct hconn *e, unsigned secs)
{
	if (e->dropped)
		return;
	hc_unlink(h, e);
	e->deadline_ms = falcon_now_ms() + 1000LL * secs;
	e->prev = h->tail;
	if (h->tail)
		h->tail->next = e;
	else
		h->head = e;
	h->tail = e;
	e->waiting = true;
	h->n++;
}

/* hc_drop - shut e's connection down (h->lock held): libmicrohttpd reads
 * the end of the stream and closes it, then e is freed (on_notify). */
static void hc_drop(struct falcon_httpd *h, struct hconn *e, unsigned long long *counter)
{
	hc_unlink(h, e);
	e->dropped = true;
	(*counter)++;
	if (e->fd >= 0)
		shutdown(e->fd, SHUT_RDWR);
}

/* hc_make_room - before e joins the table (h->lock held): the oldest
 * incomplete connection of e's address when incomplete_per_ip of them
 * wait, the oldest of all when the table is full (h->cap), is dropped. */
static void hc_make_room(struct falcon_httpd *h, const struct hconn *e)
{
	struct hconn *p, *oldest = NULL;
	unsigned same = 0;

	for (p = h->head; p != NULL; p = p->next)
		if (p->family == e->family && memcmp(p->addr, e->addr, sizeof(p->addr)) == 0 &&
		    same++ == 0)
			oldest = p;
	if (h->conf.incomplete_per_ip && same >= h->conf.incomplete_per_ip && oldest != NULL)
		hc_drop(h, oldest, &h->per_ip);
	if (h->n >= h->cap && h->head != NULL)
		hc_drop(h, h->head, &h->full);
}

/* hc_set - c has a complete request (complete true: out of the table) or
 * waits for its next one after an answer (idle_s). */
static void hc_set(struct falcon_httpd *h, struct MHD_Connection *c, bool complete)
{
	struct hconn *e = hc_of(c);

	if (e == NULL || h->conf.request_s == 0)
		return;
	pthread_mutex_lock(&h->lock);
	if (complete)
		hc_unlink(h, e);
	else
		hc_wait(h, e, h->conf.idle_s);
	pthread_mutex_unlock(&h->lock);
}

/* peer_key - the peer's family and address (port left out) into e. */
static void peer_key(struct MHD_Connection *c, struct hconn *e)
{
	const union MHD_ConnectionInfo *ci;

	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	e->fd = ci != NULL ? ci->connect_fd : -1;
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (ci == NULL || ci->client_addr == NULL)
		return;
	e->family = ci->client_addr->sa_family;
	if (e->family == AF_INET)
		memcpy(e->addr, &((const struct sockaddr_in *)(const void *)ci->client_addr)->sin_addr, 4);
	else if (e->family == AF_INET6)
		memcpy(e->addr, &((const struct sockaddr_in6 *)(const void *)ci->client_addr)->sin6_addr,
		       16);
}

/*
 * on_notify - MHD_OPTION_NOTIFY_CONNECTION: at the accept an entry (its
 * descriptor, its peer's address; *socket_context) made, with deadlines
 * put in the table request_s from now, room made for it first; conf's
 * on_conn told.  At the close it leaves the table, on_conn is told, it is
 * freed.  A connection whose entry cannot be allocated is served without
 * one (never dropped, on_conn not told).
 */
static void on_notify(void *cls, struct MHD_Connection *c, void **socket_context,
		      enum MHD_ConnectionNotificationCode code)
{
	struct falcon_httpd *h = cls;
	struct hconn *e = *socket_context;

	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (e == NULL)
			return;
		pthread_mutex_lock(&h->lock);
		hc_unlink(h, e);
		pthread_mutex_unlock(&h->lock);
		if (h->conf.on_conn != NULL)
			h->conf.on_conn(h->conf.conn_cls, c, &e->user, false);
		free(e);
		*socket_context = NULL;
		return;
	}
	if ((e = calloc(1, sizeof(*e))) == NULL)
		return;
	peer_key(c, e);
	if (h->conf.request_s != 0) {
		pthread_mutex_lock(&h->lock);
		hc_make_room(h, e);
		hc_wait(h, e, h->conf.request_s);
		pthread_mutex_unlock(&h->lock);
	}
	if (h->conf.on_conn != NULL)
		h->conf.on_conn(h->conf.conn_cls, c, &e->user, true);
	*socket_context = e;
}

/* on_request_line - MHD_OPTION_URI_LOG_CALLBACK (called once a request
 * line is complete): a kept-alive connection's deadline becomes at most
 * request_s from now.  Returns NULL, the request's first con_cls. */
static void *on_request_line(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct falcon_httpd *h = cls;
	struct hconn *e = hc_of(c);
	long long dl = falcon_now_ms() + 1000LL * h->conf.request_s;

	(void)uri;
	if (e != NULL) {
		pthread_mutex_lock(&h->lock);
		if (e->waiting && e->deadline_ms > dl)
			e->deadline_ms = dl;
		pthread_mutex_unlock(&h->lock);
	}
	return NULL;
}

/* log_drops - what was dropped since *logged, at most every DROP_LOG_S
 * (h->lock held). */
static void log_drops(struct falcon_httpd *h, long long now, unsigned long long *logged,
		      long long *last_log)
{
	unsigned long long all = h->late + h->per_ip + h->full;

	if (all == *logged || now - *last_log < 1000LL * DROP_LOG_S)
		return;
	falcon_warn("%s: %llu more connection(s) without a complete request dropped (in all: "
		    "%llu past their deadline, %llu over %u per address, %llu over the limit)",
		    h->name, all - *logged, h->late, h->per_ip, h->conf.incomplete_per_ip, h->full);
	*logged = all;
	*last_log = now;
}

/*
 * reaper - every REAP_MS: the connections past their deadline are dropped
 * (the table is kept in deadline start order, but a request line shortens
 * a deadline: the whole table is read); what was dropped is logged at
 * most every DROP_LOG_S seconds.  Until falcon_httpd_stop.
 */
static void *reaper(void *arg)
{
	struct falcon_httpd *h = arg;
	unsigned long long logged = 0;
	long long last_log = 0;

	pthread_mutex_lock(&h->lock);
	while (!h->stop) {
		struct timespec ts;
		long long now = falcon_now_ms();
		struct hconn *p, *next;

		for (p = h->head; p != NULL; p = next) {
			next = p->next;
			if (p->deadline_ms <= now)
				hc_drop(h, p, &h->late);
		}
		log_drops(h, now, &logged, &last_log);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += REAP_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&h->wake, &h->lock, &ts);
	}
	if (h->late + h->per_ip + h->full != 0)
		falcon_info("%s: %llu connection(s) without a complete request dropped in all "
			    "(%llu past their deadline, %llu over %u per address, %llu over the "
			    "limit)", h->name, h->late + h->per_ip + h->full, h->late, h->per_ip,
			    h->conf.incomplete_per_ip, h->full);
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

/* reaper_stop - end the reaper thread (when it runs; errno kept). */
static void reaper_stop(struct falcon_httpd *h)
{
	int e = errno;

	if (!h->reaping)
		return;
	pthread_mutex_lock(&h->lock);
	h->stop = true;
	pthread_cond_signal(&h->wake);
	pthread_mutex_unlock(&h->lock);
	pthread_join(h->reaper, NULL);
	h->reaping = false;
	errno = e;
}

/* on_access - libmicrohttpd's access handler: the request made at its
 * first call, its body gathered (within max_body), conf's handler called
 * once it is complete (or at once with FALCON_HTTPD_NO_BODY). */
static enum MHD_Result on_access(void *cls, struct MHD_Connection *c, const char *url,
				 const char *method, const char *version, const char *upload,
				 size_t *upload_size, void **con_cls)
{
	struct falcon_httpd *h = cls;
	struct falcon_httpd_req *rq = *con_cls;

	(void)version;
	if (h->conf.flags & FALCON_HTTPD_NO_BODY)
		return h->conf.handler(h->conf.cls, c, url, method, NULL);
	if (rq == NULL) {
		if ((rq = calloc(1, sizeof(*rq))) == NULL)
			return MHD_NO;
		*con_cls = rq;
		return MHD_YES;
	}
	if (*upload_size > 0) {
		if (falcon_buf_append(&rq->body, &rq->len, &rq->too_big, upload, *upload_size,
				      h->conf.max_body) != FALCON_OK)
			return MHD_NO;
		*upload_size = 0;
		return MHD_YES;
	}
	hc_set(h, c, true); /* the request is complete: no deadline while it is served */
	return h->conf.handler(h->conf.cls, c, url, method, rq);
}

/* on_completed - MHD_OPTION_NOTIFY_COMPLETED: the request freed; a
 * kept-alive connection waits for its next request (idle_s). */
static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct falcon_httpd *h = cls;
	struct falcon_httpd_req *rq = *con_cls;

	if (toe == MHD_REQUEST_TERMINATED_COMPLETED_OK)
		hc_set(h, c, false);
	if (rq == NULL)
		return;
	if (rq->ctx != NULL && h->conf.ctx_free != NULL)
		h->conf.ctx_free(rq->ctx);
	free(rq->body);
	free(rq);
	*con_cls = NULL;
}

/* on_unescape - libmicrohttpd's %-decoding, except that a URL with an
 * encoded NUL ("%00") stays as it is (FALCON_HTTPD_KEEP_NUL). */
static size_t on_unescape(void *cls, struct MHD_Connection *c, char *uri)
{
	(void)cls;
	(void)c;
	if (strstr(uri, "%00") != NULL)
		return strlen(uri);
	return MHD_http_unescape(uri);
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct falcon_httpd *h = cls;
	char buf[512];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	buf[strcspn(buf, "\n")] = '\0';
	falcon_log(h->conf.mhd_log, "%s: microhttpd: %s", h->name, buf);
}

/* tls_load - conf's PEM files into h; FALCON_OK with nothing read when
 * there is no certificate. */
static falcon_err_t tls_load(struct falcon_httpd *h, const struct falcon_httpd_conf *conf)
{
	falcon_err_t rv;

	if (conf->tls_cert_file == NULL && conf->tls_key_file == NULL)
		return FALCON_OK;
	if (conf->tls_cert_file == NULL || conf->tls_key_file == NULL)
		return falcon_err_set(FALCON_ERR_INVAL, "%s: a TLS certificate and its key go "
				      "together", h->name);
	if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES)
		return falcon_err_set(FALCON_ERR_INVAL, "%s: this libmicrohttpd was built without "
				      "TLS (GnuTLS)", h->name);
	if ((rv = falcon_read_file(conf->tls_cert_file, TLS_FILE_MAX, &h->tls_cert, NULL)) != FALCON_OK ||
	    (rv = falcon_read_file(conf->tls_key_file, TLS_FILE_MAX, &h->tls_key,
				   &h->tls_key_len)) != FALCON_OK)
		return rv;
	return FALCON_OK;
}

/* daemon_flags - libmicrohttpd's flags for h's threading model, family
 * (AF_INET6: MHD_USE_IPv6), suspend/resume and TLS. */
static unsigned daemon_flags(const struct falcon_httpd *h, int family)
{
	unsigned f = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;

	if (h->conf.threads == FALCON_HTTPD_THREAD_PER_CONNECTION)
		f |= MHD_USE_THREAD_PER_CONNECTION;
	else if (h->conf.threads == FALCON_HTTPD_POOL &&
		 MHD_is_feature_supported(MHD_FEATURE_EPOLL) == MHD_YES)
		f |= MHD_USE_EPOLL;
	else if (h->conf.threads == FALCON_HTTPD_POOL &&
		 MHD_is_feature_supported(MHD_FEATURE_POLL) == MHD_YES)
		f |= MHD_USE_POLL;
	if (family == AF_INET6)
		f |= MHD_USE_IPv6;
	if (h->conf.flags & FALCON_HTTPD_SUSPEND)
		f |= MHD_ALLOW_SUSPEND_RESUME;
	if (h->tls_cert != NULL)
		f |= MHD_USE_TLS;
	return f;
}

/* family_of - the address family of conf's address or socket. */
static int family_of(const struct falcon_httpd_conf *conf)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	if (conf->addr != NULL)
		return conf->addr->sa_family;
	if (getsockname(conf->listen_fd, (struct sockaddr *)&ss, &sl) != 0)
		return AF_UNSPEC;
	return ss.ss_family;
}

/* start_daemon - MHD_start_daemon with every option h's conf asks for
 * (an option whose value is zero is left to the library). */
static struct MHD_Daemon *start_daemon(struct falcon_httpd *h, unsigned flags)
{
	const struct falcon_httpd_conf *k = &h->conf;
	struct MHD_OptionItem o[16];
	size_t n = 0;

#define OPT(opt, v, p) (o[n++] = (struct MHD_OptionItem){ (opt), (intptr_t)(v), (p) })
	OPT(MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, h);
	OPT(MHD_OPTION_NOTIFY_COMPLETED, on_completed, h);
	OPT(MHD_OPTION_NOTIFY_CONNECTION, on_notify, h);
	if (k->addr != NULL)
		OPT(MHD_OPTION_SOCK_ADDR, 0, (void *)k->addr);
	else
		OPT(MHD_OPTION_LISTEN_SOCKET, k->listen_fd, NULL);
	if (k->request_s != 0)
		OPT(MHD_OPTION_URI_LOG_CALLBACK, on_request_line, h);
	if (k->flags & FALCON_HTTPD_KEEP_NUL)
		OPT(MHD_OPTION_UNESCAPE_CALLBACK, on_unescape, NULL);
	if (k->threads == FALCON_HTTPD_POOL && k->pool_threads > 1)
		OPT(MHD_OPTION_THREAD_POOL_SIZE, k->pool_threads, NULL);
	if (k->conn_limit != 0)
		OPT(MHD_OPTION_CONNECTION_LIMIT, k->conn_limit, NULL);
	if (k->per_ip_limit != 0)
		OPT(MHD_OPTION_PER_IP_CONNECTION_LIMIT, k->per_ip_limit, NULL);
	if (k->idle_s != 0)
		OPT(MHD_OPTION_CONNECTION_TIMEOUT, k->idle_s, NULL);
	if (h->tls_cert != NULL) {
		OPT(MHD_OPTION_HTTPS_MEM_CERT, 0, h->tls_cert);
		OPT(MHD_OPTION_HTTPS_MEM_KEY, 0, h->tls_key);
		OPT(MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)FALCON_HTTPD_TLS_PRIORITIES);
	}
	OPT(MHD_OPTION_END, 0, NULL);
#undef OPT
	return MHD_start_daemon(flags, 0, NULL, NULL, on_access, h, MHD_OPTION_ARRAY, o,
				MHD_OPTION_END);
}

void falcon_httpd_stop(struct falcon_httpd *h)
{
	if (h == NULL)
		return;
	if (h->d != NULL)
		MHD_stop_daemon(h->d);
	reaper_stop(h);
	if (h->tls_key != NULL)
		explicit_bzero(h->tls_key, h->tls_key_len);
	free(h->tls_key);
	free(h->tls_cert);
	pthread_mutex_destroy(&h->lock);
	pthread_cond_destroy(&h->wake);
	free(h);
}

falcon_err_t falcon_httpd_start(const struct falcon_httpd_conf *conf, struct falcon_httpd **out)
{
	struct falcon_httpd *h;
	falcon_err_t rv;
	unsigned flags;

	if (conf->handler == NULL || (conf->addr == NULL && conf->listen_fd < 0) ||
	    (conf->request_s != 0 && conf->conn_limit == 0))
		return falcon_err_set(FALCON_ERR_INVAL, "%s: no handler, no address, or "
				      "deadlines without a connection limit",
				      conf->name ? conf->name : "httpd");
	if ((h = calloc(1, sizeof(*h))) == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "httpd: out of memory");
	h->conf = *conf;
	falcon_strlcpy(h->name, conf->name ? conf->name : "http", sizeof(h->name));
	h->conf.name = h->name;
	h->conf.tls_cert_file = h->conf.tls_key_file = NULL;
	h->conf.addr = NULL; /* read once, below */
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->wake, NULL);
	h->cap = conf->conn_limit - conf->conn_limit / 4;
	if ((rv = tls_load(h, conf)) != FALCON_OK)
		goto fail;
	flags = daemon_flags(h, family_of(conf));
	if (conf->request_s != 0) {
		if (pthread_create(&h->reaper, NULL, reaper, h) != 0) {
			rv = falcon_err_set(FALCON_ERR_NOMEM, "%s: no thread for the deadlines",
					    h->name);
			goto fail;
		}
		h->reaping = true;
	}
	h->conf.addr = conf->addr;
	errno = 0;
	h->d = start_daemon(h, flags);
	h->conf.addr = NULL;
	if (h->d == NULL) {
		rv = falcon_err_set(FALCON_ERR_IO, "%s: libmicrohttpd did not start (%s)%s", h->name,
				    errno ? strerror(errno) : "no reason given",
				    h->tls_cert ? " (is the key the certificate's, both PEM?)" : "");
		goto fail;
	}
	*out = h;
	return FALCON_OK;
fail:
	falcon_httpd_stop(h);
	return rv;
}

unsigned falcon_httpd_port(const struct falcon_httpd *h)
{
	const union MHD_DaemonInfo *di = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);

	return di != NULL ? di->port : 0;
}

struct MHD_Daemon *falcon_httpd_daemon(const struct falcon_httpd *h)
{
	return h->d;
}

falcon_err_t falcon_httpd_addr(const char *key, const char *spec, struct sockaddr_storage *ss,
			       socklen_t *len)
{
	char host[256];
	const char *colon = strrchr(spec, ':'), *h = spec;
	struct addrinfo hints = { .ai_flags = AI_NUMERICSERV | AI_PASSIVE,
				  .ai_socktype = SOCK_STREAM }, *ai = NULL;
	long port;
	size_t hl;
	int e;

	if (colon == NULL || falcon_strtol(colon + 1, 10, 1, 65535, &port) != FALCON_OK)
		return falcon_err_set(FALCON_ERR_CONFIG, "%s=%s: expected HOST:PORT", key, spec);
	hl = (size_t)(colon - spec);
	if (hl >= 2 && spec[0] == '[' && spec[hl - 1] == ']') {
		h++;
		hl -= 2;
	}
	if (hl == 0 || hl >= sizeof(host))
		return falcon_err_set(FALCON_ERR_CONFIG, "%s=%s: expected HOST:PORT", key, spec);
	memcpy(host, h, hl);
	host[hl] = '\0';
	e = getaddrinfo(host, colon + 1, &hints, &ai);
	if (e != 0 || ai == NULL)
		return falcon_err_set(FALCON_ERR_CONFIG, "%s=%s: %s", key, spec, gai_strerror(e));
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	if (len != NULL)
		*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return FALCON_OK;
}

void falcon_httpd_peer(struct MHD_Connection *c, bool with_port, char *buf, size_t n)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	char host[INET6_ADDRSTRLEN + 1] = "?", port[16] = "?";

	if (ci != NULL && ci->client_addr != NULL)
		getnameinfo(ci->client_addr,
			    ci->client_addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
								   : sizeof(struct sockaddr_in),
			    host, sizeof(host), port, sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV);
	if (with_port)
		snprintf(buf, n, "%s:%s", host, port);
	else
		snprintf(buf, n, "%s", host);
}

bool falcon_httpd_peer_gone(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	char byte;
	ssize_t n;

	if (ci == NULL || ci->connect_fd == MHD_INVALID_SOCKET)
		return false;
	do
		n = recv(ci->connect_fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	return n == 0 || (n < 0 && (errno == ECONNRESET || errno == EPIPE));
}

void *falcon_httpd_conn_user(struct MHD_Connection *c)
{
	struct hconn *e = hc_of(c);

	return e != NULL ? e->user : NULL;
}

struct MHD_Response *falcon_httpd_text(char *text, const char *ctype)
{
	struct MHD_Response *r;

	r = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
	if (r == NULL) {
		free(text);
		return NULL;
	}
	MHD_add_response_header(r, "Content-Type", ctype);
	return r;
}
