/*
 * redfish.h - a small Redfish HTTP client (libcurl + json-c) and the pure
 * pieces of Redfish response handling that the chassis backends share.
 *
 * Three parts, none of which calls the others' callers:
 *   - pure functions, usable without a network (unit tests, the fuzzer),
 *     in rf_json.c: falcon_rf_parse() turns a body into a JSON object with
 *     json-c's depth limit, falcon_rf_map_status() turns an HTTP status and
 *     a Redfish error body into a falcon_err_t with the Redfish message,
 *     small accessors that never trust the type of a property;
 *   - rf_dir.c: a fetcher that reads a DMTF mockup directory (path
 *     /redfish/v1/X -> DIR/X/index.json), over rf_json.c;
 *   - rf_http.c: struct falcon_rf, one libcurl easy handle (keep-alive) with
 *     connect and total timeouts, TLS verification on by default, HTTP basic
 *     auth or a Redfish session (X-Auth-Token, DELETEd on close), ETag
 *     capture and If-Match, over rf_json.c.  A falcon_rf is not thread-safe:
 *     one per thread.
 *
 * Reference: DMTF DSP0266 (Redfish Specification) 1.20: sec 9.3.4 ETags and
 * If-Match, sec 9.5 error responses ("error" with "@Message.ExtendedInfo"),
 * sec 13.3.4 sessions (POST SessionService/Sessions, X-Auth-Token, Location).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_REDFISH_H
#define FALCON_REDFISH_H

#include <stdbool.h>
#include <stddef.h>

#include "chassis/chassis_types.h"
#include "core/falcon_err.h"

struct json_object;

#define FALCON_RF_ROOT "/redfish/v1"
#define FALCON_RF_PATH_LEN 256            /* longest @odata.id we accept, with NUL */
#define FALCON_RF_ETAG_LEN 128            /* longest ETag we keep, with NUL */
#define FALCON_RF_MAX_BODY (16u << 20)    /* bytes of one response body */
#define FALCON_RF_MAX_DEPTH 64            /* JSON nesting (json-c tokener depth) */
#define FALCON_RF_CONNECT_TIMEOUT_MS 5000 /* default connect timeout */
#define FALCON_RF_TIMEOUT_MS 10000        /* default total time of one read (GET) */
/*
 * Default budget of one change (PATCH, POST, DELETE, and the task monitor
 * of a 202 followed to its end): 120 s.  Issue #29: real chassis take
 * seconds to tens of seconds per attach (a zone PATCH or an action run as
 * a DSP0266 1.20 sec. 12.2 task; falcon-sim models 20 s per PATCH and a
 * 30 s task), which a read's 10 s cut off and rolled back every time; 120 s
 * is four times the slowest we model and the PrologEpilogTimeout
 * scripts/quickstart.sh ships.  A caller's budget (falcon_rf_set_deadline,
 * X-Falcon-Budget-Ms at falcond) ends a change earlier.
 */
#define FALCON_RF_CHANGE_TIMEOUT_MS 120000
/* The words of a timeout that the chassis' own key (Timeout=,
 * ChangeTimeout=) set, not the caller's budget: FALCON_CHASSIS_TIMEOUT_MARK
 * of chassis.h, the public face, where callers find it. */
#define FALCON_RF_KEY_TIMEOUT_MARK FALCON_CHASSIS_TIMEOUT_MARK

/*
 * How a backend reads one resource: *out gets a new JSON object (caller
 * puts it with json_object_put()), etag (may be NULL) the resource's ETag
 * from the header or, when absent, its @odata.etag property ("" if none).
 * Errors as falcon_rf_map_status(), FALCON_ERR_PARSE for a malformed body.
 */
typedef falcon_err_t (*falcon_rf_get_fn)(void *ctx, const char *path,
					 struct json_object **out,
					 char *etag, size_t etag_len);
/*
 * How a backend changes one: method "PATCH", "POST" or "DELETE", body may be
 * NULL, if_match may be NULL (no If-Match header).  FALCON_OK on 2xx.
 */
typedef falcon_err_t (*falcon_rf_send_fn)(void *ctx, const char *method,
					  const char *path,
					  struct json_object *body,
					  const char *if_match);
/*
 * A change whose answer is kept: as falcon_rf_send_fn; on FALCON_OK *out
 * gets the response body when there is one (a PATCH answered 200 with the
 * resource as it is now; NULL for 204 or an empty body; caller puts it) and
 * etag (may be NULL) the answer's ETag header, else the body's @odata.etag
 * ("" if none).
 */
typedef falcon_err_t (*falcon_rf_send_resp_fn)(void *ctx, const char *method,
					       const char *path,
					       struct json_object *body,
					       const char *if_match,
					       struct json_object **out,
					       char *etag, size_t etag_len);

/* ---- pure functions (rf_json.c) ---- */

/*
 * falcon_rf_parse - parse len bytes of buf as one JSON object (the only
 * top-level value a Redfish resource or error can be).  json-c's tokener
 * with depth FALCON_RF_MAX_DEPTH; truncated input, trailing garbage, a NUL
 * byte, too deep nesting or a top-level non-object is FALCON_ERR_PARSE with
 * `what` (the URL or file) and json-c's reason in the detail.  *out is a new
 * object owned by the caller.
 */
falcon_err_t falcon_rf_parse(const char *buf, size_t len, const char *what,
			     struct json_object **out);

/*
 * falcon_rf_error_message - the human text of a Redfish error body
 * (DSP0266 sec 9.5): error.@Message.ExtendedInfo[0].Message, else
 * error.message, copied into buf (size n) with control characters replaced
 * by '?'.  Returns buf, or NULL (buf = "") when the body has neither.
 */
const char *falcon_rf_error_message(struct json_object *body, char *buf, size_t n);

/*
 * falcon_rf_map_status - FALCON_OK for 2xx; otherwise the error for an HTTP
 * status, with "METHOD URL: HTTP STATUS: MESSAGE" in falcon_errmsg(), where
 * MESSAGE comes from the Redfish error body (body may be NULL or not JSON).
 * 401 AUTH, 403 PERM, 404 NOTFOUND, 408 TIMEOUT, 409 CONFLICT,
 * 412 PRECONDITION, 405/501 UNSUPPORTED, 429/5xx SERVER, other 4xx CHASSIS
 * (the service refused the request), 1xx/3xx PROTOCOL.
 */
falcon_err_t falcon_rf_map_status(long status, const char *body, size_t len,
				  const char *method, const char *url);

/*
 * Accessors that never trust a property's type: each returns NULL when obj
 * is not an object, the key is absent, or the value has another type.
 * falcon_rf_link() is obj[key]["@odata.id"] when it is a valid path.
 */
const char *falcon_rf_str(struct json_object *obj, const char *key);
struct json_object *falcon_rf_obj(struct json_object *obj, const char *key);
struct json_object *falcon_rf_arr(struct json_object *obj, const char *key);
const char *falcon_rf_link(struct json_object *obj, const char *key);

/*
 * falcon_rf_has_string - whether arr (a JSON array, e.g. from
 * falcon_rf_arr(); NULL or another type gives false) holds the string s
 * (exact match; other member types are skipped).
 */
bool falcon_rf_has_string(struct json_object *arr, const char *s);

/*
 * falcon_rf_odata_id - obj's @odata.id when it is a valid resource path;
 * else NULL with FALCON_ERR_PROTOCOL set naming `what`.
 */
const char *falcon_rf_odata_id(struct json_object *obj, const char *what);

/*
 * falcon_rf_path_ok - whether p is a resource path we will request: starts
 * with /redfish/v1, shorter than FALCON_RF_PATH_LEN, printable ASCII without
 * blanks, quotes, backslashes or "..", no '?'.  A '#' fragment is allowed
 * (and ignored when fetching).
 */
bool falcon_rf_path_ok(const char *p);

/* falcon_rf_last_segment - the last '/'-separated segment of a path (no
 * trailing '/', no '#' fragment) into buf; returns buf, "" when none. */
const char *falcon_rf_last_segment(const char *path, char *buf, size_t n);

/* falcon_rf_path_eq - paths equal ignoring one trailing '/'. */
bool falcon_rf_path_eq(const char *a, const char *b);

/*
 * falcon_rf_body_etag - obj's @odata.etag property (DSP0266 sec 9.3.4: the
 * ETag of a resource when the service sends no ETag header) into etag (n
 * bytes; nothing when etag is NULL or n is 0), when it is printable ASCII
 * shorter than n; else etag = "".
 */
void falcon_rf_body_etag(struct json_object *obj, char *etag, size_t n);

/*
 * falcon_rf_task_outcome - what a task monitor's answer says (DSP0266 1.20
 * sec. 12.2; Task.v1_7_3 TaskState).  A body that is not a Task (its
 * @odata.type not "#Task.") is the operation's own answer: *done, OK.  A
 * Task in TaskState Completed: *done, OK; Killed, Exception or Cancelled:
 * *done, FALCON_ERR_CHASSIS with "WHAT: task ID ended in TaskState S:
 * Messages[0].Message"; any other state: !*done (still running), OK.  A
 * Task without TaskState is FALCON_ERR_PROTOCOL naming what.
 */
falcon_err_t falcon_rf_task_outcome(struct json_object *body, const char *what, bool *done);

/* ---- Server-Sent Events and Redfish Events (rf_sse.c, pure) ---- */

#define FALCON_SSE_MAX_LINE (1u << 20) /* bytes of one SSE line or event's data */

/*
 * An SSE parser: the "event stream interpretation" of WHATWG HTML,
 * "Server-sent events" sec. 9.2.6, the framing DSP0266 1.20 sec. 13.5.2
 * uses: lines end in CRLF, LF or CR (a CRLF split across two chunks is one
 * end of line); an empty line dispatches the event; "data" fields are
 * joined with "\n"; "id" sets the last event id (ignored when it holds a
 * NUL); a line starting with ':' is a comment; "field" without ':' is the
 * field with an empty value; one space after the ':' is dropped; other
 * fields ("event", "retry") are ignored.  An event without data is not
 * dispatched.  Feed it the chunks libcurl's write callback gets.
 */
struct falcon_sse {
	char *line;               /* the line being read (owned) */
	size_t len, cap;
	char *data;               /* the event's data so far (owned) */
	size_t dlen, dcap;
	bool has_data;
	bool after_cr;            /* the last byte was CR: a following LF is part of it */
	char id[64];              /* last event id */
};

/* falcon_sse_fn - one dispatched event: its id (the last id seen, "" if
 * none) and data (NUL-terminated, len bytes, without the final "\n"). */
typedef void falcon_sse_fn(void *ctx, const char *id, const char *data, size_t len);

/* falcon_sse_init - an empty parser; falcon_sse_free frees what it holds. */
void falcon_sse_init(struct falcon_sse *p);
void falcon_sse_free(struct falcon_sse *p);

/*
 * falcon_sse_feed - n bytes of the stream (any split); fn gets each event
 * completed by them, in order.  FALCON_ERR_PROTOCOL when a line or an
 * event's data exceeds FALCON_SSE_MAX_LINE (the stream is then unusable),
 * FALCON_ERR_NOMEM.
 */
falcon_err_t falcon_sse_feed(struct falcon_sse *p, const char *buf, size_t n,
			     falcon_sse_fn *fn, void *ctx);

struct falcon_chassis_event;
/*
 * falcon_rf_events_parse - an SSE event's data as a Redfish Event (schema
 * #Event.v1_x: an object with Events[]); fn gets one struct
 * falcon_chassis_event per record (chassis and id copied in; kind from
 * the MessageId: a "ResourceEvent.<ver>.ResourceStatusChanged<Health>"
 * key is HEALTH, "ResourceEvent.<ver>.ResourceRemoved" REMOVED, anything
 * else OTHER; device the last segment of OriginOfCondition.@odata.id).
 * Returns the number of records, or -1 with FALCON_ERR_PARSE /
 * FALCON_ERR_PROTOCOL in falcon_errmsg() for data that is not JSON or not
 * an Event.
 */
int falcon_rf_events_parse(const char *data, size_t len, const char *chassis, const char *id,
			   void (*fn)(void *ctx, const struct falcon_chassis_event *ev),
			   void *ctx);

/* ---- the mockup directory (rf_dir.c) ---- */

/*
 * falcon_rf_dir_get - a falcon_rf_get_fn over a mockup directory ctx
 * (const char *): /redfish/v1 -> DIR/index.json, /redfish/v1/X/Y ->
 * DIR/X/Y/index.json ('#' fragment dropped).  FALCON_ERR_NOTFOUND when the
 * file is absent, FALCON_ERR_PARSE when malformed.  Bodies are limited to
 * FALCON_RF_MAX_BODY bytes.
 */
falcon_err_t falcon_rf_dir_get(void *ctx, const char *path, struct json_object **out,
			       char *etag, size_t etag_len);

/* ---- the HTTP client (rf_http.c) ---- */

/*
 * falcon_rf_read_credentials - read "user:password" (first line; the
 * password may contain ':') from path into user/pass.  The file must be a
 * regular file owned by root or the effective user and not accessible by
 * group or other: FALCON_ERR_PERM otherwise, naming the file and its mode.
 * FALCON_ERR_NOTFOUND when absent, FALCON_ERR_CONFIG when empty, without a
 * ':' or either part too long.
 */
falcon_err_t falcon_rf_read_credentials(const char *path, char *user, size_t ulen,
					char *pass, size_t plen);

struct falcon_rf_opts {
	const char *url;              /* http(s)://host[:port][/prefix]; a trailing
				       * "/redfish/v1" is dropped */
	const char *credentials_file; /* NULL = anonymous */
	const char *ca_file;          /* NULL = libcurl's default CA store */
	bool insecure;                /* no TLS verification (logged as a warning) */
	bool basic_auth;              /* credentials as HTTP basic on every request
				       * instead of a Redfish session */
	int connect_timeout_ms;       /* 0 = FALCON_RF_CONNECT_TIMEOUT_MS */
	int timeout_ms;               /* one read (GET); 0 = FALCON_RF_TIMEOUT_MS */
	int change_timeout_ms;        /* one change (PATCH, POST, DELETE); 0 =
				       * FALCON_RF_CHANGE_TIMEOUT_MS */
	int task_timeout_ms;          /* following a 202's task monitor;
				       * 0 = change_timeout_ms */
	const char *name;             /* the chassis, for messages; NULL = url */
};

struct falcon_rf;

/*
 * falcon_curl_global_init - curl_global_init(CURL_GLOBAL_DEFAULT) once per
 * process, thread-safe (pthread_once; libcurl's own call is not thread-safe
 * before 7.84).  Every libcurl user in libfalcon (the Redfish client, the
 * falcond client) calls it before curl_easy_init().  Returns FALCON_OK, or
 * FALCON_ERR_TRANSPORT with libcurl's reason; the same result on every call.
 */
falcon_err_t falcon_curl_global_init(void);

/*
 * falcon_rf_open - a client for opts->url.  Reads the credentials file
 * (errors as falcon_rf_read_credentials()) and, unless basic_auth, logs in:
 * POST /redfish/v1/SessionService/Sessions; a service without a
 * SessionService (404/405/501) falls back to basic auth.  Errors:
 * FALCON_ERR_INVAL (bad URL), FALCON_ERR_AUTH (credentials refused),
 * transport errors as falcon_rf_request().  *out is freed with
 * falcon_rf_close().
 */
falcon_err_t falcon_rf_open(const struct falcon_rf_opts *opts, struct falcon_rf **out);

/* falcon_rf_close - DELETE the session (errors only logged) and free; NULL ok. */
void falcon_rf_close(struct falcon_rf *rf);

/* One response.  body is the parsed JSON (NULL for an empty body). */
struct falcon_rf_resp {
	long status;
	struct json_object *body;
	char etag[FALCON_RF_ETAG_LEN];   /* ETag header, "" if none */
	char location[FALCON_RF_PATH_LEN]; /* Location header as a path, "" if none */
};

/* falcon_rf_resp_free - put the body and clear; safe on a zeroed resp. */
void falcon_rf_resp_free(struct falcon_rf_resp *resp);

/*
 * falcon_rf_request - one request: method GET/PATCH/POST/DELETE on path (a
 * resource path under /redfish/v1), body sent as JSON when non-NULL,
 * If-Match: if_match when non-NULL.  Returns FALCON_OK on 2xx with *resp
 * filled (caller frees with falcon_rf_resp_free()); otherwise the mapped
 * error (falcon_rf_map_status(); libcurl's timeout is FALCON_ERR_TIMEOUT,
 * connection and TLS failures FALCON_ERR_TRANSPORT, a body over
 * FALCON_RF_MAX_BODY or not JSON FALCON_ERR_PROTOCOL/PARSE) and resp holds
 * nothing to free.  With a session, a 401 logs in again once and retries.
 * One exchange is bounded by timeout_ms (GET) or change_timeout_ms (any
 * other method) and by the deadline of falcon_rf_set_deadline(), the
 * sooner; a timeout of the key's bound (not the deadline's) is logged at
 * warning level and its detail holds FALCON_RF_KEY_TIMEOUT_MARK, the
 * chassis, the key (Timeout= or ChangeTimeout=) and the time observed.
 * A change (not GET) answered 202 Accepted is an asynchronous operation
 * (DSP0266 1.20 sec. 12.2): its task monitor (Location, else the Task's
 * TaskMonitor) is polled with GET (100 ms, doubling to 1 s) until it
 * answers other than 202, at most task_timeout_ms or until the deadline
 * of falcon_rf_set_deadline() (then the task is cancelled with DELETE on
 * its monitor and the result is FALCON_ERR_TIMEOUT naming the monitor and
 * the last TaskState); *resp is then the monitor's final answer, with the
 * body dropped when it is a Task in TaskState Completed (there is no
 * resource to return: the caller reads back).  A failed task is the
 * monitor's error status mapped as above ("the task failed: HTTP S:
 * message"), or, from a service that answers 200 with the Task, the error
 * of falcon_rf_task_outcome().  A TLS certificate that does not match the
 * host is FALCON_ERR_TRANSPORT naming both the host and the certificate's
 * names; with Insecure each new connection is logged as unverified.
 */
falcon_err_t falcon_rf_request(struct falcon_rf *rf, const char *method,
			       const char *path, struct json_object *body,
			       const char *if_match, struct falcon_rf_resp *resp);

/* falcon_rf_get / falcon_rf_send - the falcon_rf_get_fn / falcon_rf_send_fn
 * of a struct falcon_rf (ctx). */
falcon_err_t falcon_rf_get(void *ctx, const char *path, struct json_object **out,
			   char *etag, size_t etag_len);
falcon_err_t falcon_rf_send(void *ctx, const char *method, const char *path,
			    struct json_object *body, const char *if_match);
/* falcon_rf_send_resp - the falcon_rf_send_resp_fn of a struct falcon_rf. */
falcon_err_t falcon_rf_send_resp(void *ctx, const char *method, const char *path,
				 struct json_object *body, const char *if_match,
				 struct json_object **out, char *etag, size_t etag_len);

/* What falcon_rf_stream() does with a stream.  on_data gets each chunk of
 * the body as libcurl receives it (any split; not NUL-terminated) and
 * returns FALCON_OK to go on, else an error (with its detail set) that
 * ends the stream and is returned; on_open (may be NULL) is told when the
 * answer is 200 text/event-stream; stop (may be NULL) is polled every
 * 100 ms (libcurl curl_multi_poll; with libcurl < 7.66 about once a second,
 * its progress callback) and true ends the stream. */
struct falcon_rf_stream_opts {
	falcon_err_t (*on_data)(void *ctx, const char *buf, size_t n);
	void (*on_open)(void *ctx);
	bool (*stop)(void *ctx);
	void *ctx;
	const char *last_id;  /* sent as Last-Event-ID when not NULL or "" */
	int stall_s;          /* seconds without a byte that end it (> 0) */
};

/*
 * falcon_rf_stream - a long-lived GET of path (Accept: text/event-stream,
 * the client's session token or basic auth, Last-Event-ID) for DSP0266
 * 1.20 sec. 13.5.2 Server-Sent Events: no total timeout (the connect
 * timeout holds), CURLOPT_LOW_SPEED_TIME o->stall_s.  Returns FALCON_OK when
 * o->stop ended it; on_data's error; FALCON_ERR_TRANSPORT when the service
 * closed an open stream or the connection failed; FALCON_ERR_TIMEOUT after
 * stall_s of silence; a 2xx that is not text/event-stream
 * FALCON_ERR_PROTOCOL; other HTTP answers as falcon_rf_map_status() (a 401
 * with a session logs in again once first).
 */
falcon_err_t falcon_rf_stream(struct falcon_rf *rf, const char *path,
			      const struct falcon_rf_stream_opts *o);

/*
 * falcon_rf_connects - how many new connections rf has made so far
 * (libcurl CURLINFO_NUM_CONNECTS summed; on https each is one TLS
 * handshake, as libcurl reuses a kept connection otherwise).  For the
 * benchmark of handshakes per compose; never fails.
 */
unsigned long falcon_rf_connects(const struct falcon_rf *rf);

/*
 * falcon_rf_set_deadline - the caller's budget: a CLOCK_MONOTONIC time in
 * ms (falcon_now_ms()'s clock) after which no exchange waits (libcurl's
 * total time is cut to what is left, at least 1 ms) and a 202's task is no
 * longer followed but cancelled (DELETE on its task monitor, DSP0266 1.20
 * sec. 12.2.2): the request is FALCON_ERR_TIMEOUT; 0 = none (the keys'
 * timeouts alone).  Stays until changed.
 */
void falcon_rf_set_deadline(struct falcon_rf *rf, long long deadline_ms);

/* falcon_rf_session_path - the session being used, "" for none (tests). */
const char *falcon_rf_session_path(const struct falcon_rf *rf);

#endif /* FALCON_REDFISH_H */
