/*
 * httpd.h - the one libmicrohttpd server of the tree (httpd.c): falcond's
 * API (falcond/falcond.c), its event receiver (falcond/events.c), its
 * status page (falcond/statuspage.c) and falcon-sim (sim/falcon-sim.c)
 * each describe their server in a struct falcon_httpd_conf and get, written
 * once here: the listening address, the threading model, the connection
 * limits, the inactivity timeout, the per-address caps, the deadline by
 * which a new connection must have sent a complete request, the request
 * body gathered within a size limit and freed with its request, and TLS
 * 1.2 or later only.
 *
 * Sources: the libmicrohttpd manual (0.9.75, Debian 12; 1.0, Debian 13):
 * MHD_start_daemon and its options (MHD_OPTION_CONNECTION_LIMIT,
 * _PER_IP_CONNECTION_LIMIT, _CONNECTION_TIMEOUT, _NOTIFY_COMPLETED,
 * _NOTIFY_CONNECTION, _URI_LOG_CALLBACK, _HTTPS_MEM_CERT, _HTTPS_MEM_KEY,
 * _HTTPS_PRIORITIES), the access handler's calling convention (a first
 * call per request, one per piece of the body, a last one with
 * *upload_data_size 0); GnuTLS manual, "Priority strings".
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_HTTPD_H
#define FALCON_HTTPD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "core/falcon_err.h"
#include "core/log.h"

/*
 * FALCON_HTTPD_TLS_PRIORITIES - the GnuTLS priority string every HTTPS
 * server of the tree gets (MHD_OPTION_HTTPS_PRIORITIES): GnuTLS' NORMAL set
 * with TLS 1.2 and 1.3 only.  Without it libmicrohttpd takes "NORMAL",
 * which still negotiates TLS 1.0 and 1.1 with a client that offers them
 * (RFC 8996 deprecates both).
 */
#define FALCON_HTTPD_TLS_PRIORITIES "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"

/* How requests are served (libmicrohttpd's threading models). */
enum falcon_httpd_threads {
	/* one internal thread polls and answers every request in turn */
	FALCON_HTTPD_ONE_THREAD,
	/* pool_threads polling threads (epoll where libmicrohttpd has it, else
	 * poll); a handler must not block: hand long work to a thread of its
	 * own with suspend/resume (FALCON_HTTPD_SUSPEND) */
	FALCON_HTTPD_POOL,
	/* a thread per connection: a handler or a content reader may block */
	FALCON_HTTPD_THREAD_PER_CONNECTION,
};

/* struct falcon_httpd_conf flags */
#define FALCON_HTTPD_SUSPEND 0x1u   /* MHD_suspend_connection/_resume allowed */
#define FALCON_HTTPD_NO_BODY 0x2u   /* the handler is called at the request's first
				     * call, before any body: it must answer then */
#define FALCON_HTTPD_KEEP_NUL 0x4u  /* a URL with "%00" is left encoded (it names no
				     * resource) instead of being cut at the NUL */

/*
 * struct falcon_httpd_req - one request as the handler sees it, made at
 * the request's first call and freed when libmicrohttpd ends the request
 * (MHD_OPTION_NOTIFY_COMPLETED): body and its length (NUL-terminated, NULL
 * when there was none; the server's, never freed by the handler), too_big
 * when the body exceeded max_body (what came beyond it was dropped: the
 * handler answers 413), ctx for the handler's own state (freed by
 * conf->ctx_free at the end of the request when not NULL).
 */
struct falcon_httpd_req {
	char *body;
	size_t len;
	bool too_big;
	void *ctx;
};

/*
 * falcon_httpd_handler - a complete request (its whole body received) on
 * c: url, method, rq (NULL with FALCON_HTTPD_NO_BODY).  Returns what
 * libmicrohttpd's access handler returns: MHD_YES once an answer is queued
 * (or the connection is suspended), MHD_NO to close the connection.  A
 * suspended connection's handler is called again, the same rq, when it is
 * resumed.  cls is conf->cls.
 */
typedef enum MHD_Result (*falcon_httpd_handler)(void *cls, struct MHD_Connection *c,
						const char *url, const char *method,
						struct falcon_httpd_req *rq);

/*
 * falcon_httpd_conn_fn - a connection opened (opened true, *user NULL on
 * entry: what the callee stores there is the connection's) or closed
 * (opened false: the callee frees *user).  Called on libmicrohttpd's
 * threads; cls is conf->conn_cls.
 */
typedef void (*falcon_httpd_conn_fn)(void *cls, struct MHD_Connection *c, void **user,
				     bool opened);

/*
 * struct falcon_httpd_conf - a server.  Zero means "none" or "the
 * library's default" for every number.  Strings and the sockaddr are read
 * during falcon_httpd_start() only.
 */
struct falcon_httpd_conf {
	const char *name;              /* in log lines, e.g. "http", "status page" */
	const struct sockaddr *addr;   /* where to listen (bound by libmicrohttpd); NULL: */
	int listen_fd;                 /* this bound, listening socket (the server's once
				        * falcon_httpd_start succeeds, else the caller's) */
	enum falcon_httpd_threads threads;
	unsigned pool_threads;         /* FALCON_HTTPD_POOL: threads (>= 1) */
	unsigned flags;                /* FALCON_HTTPD_* */
	unsigned conn_limit;           /* connections at once (libmicrohttpd refuses more) */
	unsigned per_ip_limit;         /* connections at once per address (refused beyond) */
	unsigned idle_s;               /* a connection silent this long is closed */
	size_t max_body;               /* request body bytes kept (beyond: too_big) */
	/*
	 * The deadlines of connections without a complete request (0: none,
	 * the other two then unused): a new connection must have sent a whole
	 * request (headers and body) within request_s seconds of its accept,
	 * else it is shut down however slowly it trickles (libmicrohttpd's
	 * idle timeout restarts at every byte); after an answer, a kept-alive
	 * connection's next request must be complete within idle_s of that
	 * answer and within request_s of its request line.  At most
	 * incomplete_per_ip such connections per address: a new one beyond
	 * drops the oldest of its address (it is accepted, never refused); a
	 * quarter of conn_limit (which request_s needs set) is kept for
	 * connections with a complete request: once the incomplete ones fill
	 * the rest, a new connection drops the oldest incomplete one of any
	 * address.
	 */
	unsigned request_s;
	unsigned incomplete_per_ip;
	const char *tls_cert_file;     /* PEM certificate (chain): HTTPS; NULL: HTTP */
	const char *tls_key_file;      /* its PEM private key */
	falcon_log_level_t mhd_log;    /* level of libmicrohttpd's own messages */
	falcon_httpd_handler handler;
	void *cls;
	void (*ctx_free)(void *ctx);   /* frees falcon_httpd_req.ctx; NULL: none */
	falcon_httpd_conn_fn on_conn;  /* NULL: none */
	void *conn_cls;
};

struct falcon_httpd;

/*
 * falcon_httpd_start - start the server conf describes and return it in
 * *out (falcon_httpd_stop frees it).  TLS when conf->tls_cert_file is set:
 * both PEM files read (at most 1 MiB each; the key wiped from memory at
 * the stop), FALCON_HTTPD_TLS_PRIORITIES.  FALCON_ERR_INVAL when only one
 * TLS file is given, libmicrohttpd has no TLS, or the conf lacks a handler,
 * an address, or a conn_limit beside request_s; FALCON_ERR_IO/_NOTFOUND
 * from reading a TLS file;
 * FALCON_ERR_IO when libmicrohttpd does not start (the address in use, a
 * key that is not the certificate's); FALCON_ERR_NOMEM.  Each error's
 * detail names conf->name.  *out is untouched on error.
 */
falcon_err_t falcon_httpd_start(const struct falcon_httpd_conf *conf, struct falcon_httpd **out);

/*
 * falcon_httpd_stop - stop h (NULL: nothing) and free it: libmicrohttpd's
 * threads joined (MHD_stop_daemon: every connection closed, each request's
 * rq freed), the deadline thread ended, the TLS key wiped.  The caller
 * first resumes any suspended connection.
 */
void falcon_httpd_stop(struct falcon_httpd *h);

/* falcon_httpd_port - the TCP port h listens on (MHD_DAEMON_INFO_BIND_PORT),
 * 0 when unknown. */
unsigned falcon_httpd_port(const struct falcon_httpd *h);

/* falcon_httpd_daemon - h's libmicrohttpd daemon (owned by h). */
struct MHD_Daemon *falcon_httpd_daemon(const struct falcon_httpd *h);

/*
 * falcon_httpd_addr - a listening address "HOST:PORT" ("[V6]:PORT" too,
 * HOST a name or a numeric address, PORT 1 to 65535) into *ss and its
 * length *len (may be NULL), for conf->addr.  key names the setting in the
 * error: FALCON_ERR_CONFIG "KEY=SPEC: expected HOST:PORT" or with
 * getaddrinfo's reason.  *ss is untouched on error.
 */
falcon_err_t falcon_httpd_addr(const char *key, const char *spec, struct sockaddr_storage *ss,
			       socklen_t *len);

/*
 * falcon_httpd_peer - c's peer address into buf (n bytes, always
 * terminated) as the numeric host, with ":PORT" when with_port; "?" where
 * libmicrohttpd does not know it.
 */
void falcon_httpd_peer(struct MHD_Connection *c, bool with_port, char *buf, size_t n);

/*
 * falcon_httpd_peer_gone - whether c's client has closed its end (a FIN or
 * a reset read from the socket without consuming anything: recv(2)
 * MSG_PEEK), e.g. a process killed while its request is served.  Meant
 * for a suspended connection, whose socket libmicrohttpd does not read
 * meanwhile; false when the socket has data waiting (a pipelined request
 * or a TLS record), is quiet, or cannot be asked.  Thread-safe.
 */
bool falcon_httpd_peer_gone(struct MHD_Connection *c);

/* falcon_httpd_conn_user - the pointer c's on_conn stored (NULL: none). */
void *falcon_httpd_conn_user(struct MHD_Connection *c);

/*
 * falcon_httpd_text - a response whose body is text (malloc'd, owned from
 * here: libmicrohttpd frees it with the response, this call frees it when
 * none can be made) with Content-Type ctype.  The caller adds its headers,
 * queues it and destroys it (MHD_destroy_response).  NULL when
 * libmicrohttpd makes no response (out of memory).
 */
struct MHD_Response *falcon_httpd_text(char *text, const char *ctype);

#endif /* FALCON_HTTPD_H */
