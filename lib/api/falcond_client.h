/*
 * falcond_client.h - the falcond API client (libcurl) used by falconctl and
 * falcon-prolog/epilog.  Each call signs its request with munge (auth.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_FALCOND_CLIENT_H
#define FALCON_FALCOND_CLIENT_H

#include <json-c/json.h>

#include "core/falcon_err.h"
#include "api/proto.h"

struct falcon_client; /* opaque */

/*
 * falcon_client_new - a client for falcond at url ("http://127.0.0.1:6830",
 * conf->falcond_url), or at a list of them separated by ',' or blanks
 * (FalcondUrl=, falcon.conf(5): the active falcond and its backups, in
 * order); signing with munged at munge_socket (NULL = default), each
 * request bounded by timeout_s seconds (total, over all URLs tried).  The
 * first URL tried is the one that last answered in this process, else the
 * first of the list.  *out is freed with falcon_client_free().  Not shared
 * between threads.  FALCON_ERR_INVAL naming an element that is not
 * http(s)://..., FALCON_ERR_NOMEM.
 */
falcon_err_t falcon_client_new(const char *url, const char *munge_socket, int timeout_s,
			       struct falcon_client **out);
void falcon_client_free(struct falcon_client *cl);
/* falcon_client_url - the URL the client uses now (the last tried); owned
 * by cl, valid until its next call or its free. */
const char *falcon_client_url(const struct falcon_client *cl);

/*
 * falcon_client_retry_after - after a failed call on cl: seconds to wait
 * before sending it again, by the answer's Retry-After (a 503 of falcond's
 * start-up reconcile or of a standby), or 1 after a round of several URLs
 * without an answer; -1 when the failure gave no such advice (and after a
 * call that succeeded).  The wait and the decision to call again are the
 * caller's (its budget bounds the retries); the library never sleeps.
 */
long falcon_client_retry_after(const struct falcon_client *cl);

/*
 * falcon_client_answer - the answer half of falcon_client_call(): HTTP
 * status code and the NUL-terminated body (NULL = none) of METHOD PATH.  A
 * 2xx JSON object goes to *resp (may be NULL; caller puts); a non-2xx
 * answer returns the error named by its {"code"}, FALCON_ERR_PROTOCOL when
 * that is unknown, absent or "ok"; a body that is not a JSON object is
 * FALCON_ERR_PROTOCOL.  *resp is untouched on error.
 */
falcon_err_t falcon_client_answer(const char *method, const char *path, long code,
				  const char *body, json_object **resp);

/*
 * falcon_client_call - one signed request: method "GET"/"POST", path
 * "/v1/..." (a "?query" part is sent but not bound by the credential),
 * body (NULL = none; serialised compactly).  On a 2xx answer
 * *resp (may be NULL) gets the parsed JSON object (caller puts).  A non-2xx
 * answer returns the code named by its {"code"} (falcon_err_name), with the
 * daemon's "error" text in the detail; no answer is FALCON_ERR_TRANSPORT or
 * FALCON_ERR_TIMEOUT; an answer that is not a JSON object FALCON_ERR_PROTOCOL.
 * *http (may be NULL) gets the HTTP status, 0 when none came.
 * With several URLs, no answer (connection refused, timeout: the budget
 * left is the try's limit, connecting at most 5 s) or a standby falcond's
 * 503 ({"standby":true}, doc/falcond.8 HIGH AVAILABILITY) moves on to the
 * next URL at once, for one round at most.  Never sleeps and never sends
 * a request again after an answer: a 503 with Retry-After (RFC 9110
 * section 10.2.3; read with libcurl's CURLINFO_RETRY_AFTER), or a round
 * of URLs without an answer, is returned as is (FALCON_ERR_SERVER,
 * _TRANSPORT, _TIMEOUT) with falcon_client_retry_after() saying when to
 * try again; the caller's retry policy decides whether its budget allows.
 * A compose sent again is answered with the same lease (falcond_compose:
 * a repeat of the job on the host), so a retry after a lost answer is safe.
 */
falcon_err_t falcon_client_call(struct falcon_client *cl, const char *method,
				const char *path, json_object *body, long *http,
				json_object **resp);

/* falcon_client_compose - POST /v1/compose; the lease into *lease. */
falcon_err_t falcon_client_compose(struct falcon_client *cl,
				   const struct falcon_compose_req *req,
				   struct falcon_lease *lease);
/* falcon_client_decompose - POST /v1/decompose by job (job_id > 0) or lease id. */
falcon_err_t falcon_client_decompose(struct falcon_client *cl, uint32_t job_id,
				     const char *lease_id);
/*
 * falcon_client_decompose_check - the same, recording check (the job's
 * falcon-ncclcheck/link verdict, at most 127 characters; NULL = none) in
 * each device's history.
 */
falcon_err_t falcon_client_decompose_check(struct falcon_client *cl, uint32_t job_id,
					   const char *lease_id, const char *check);
/* falcon_client_status - GET /v1/status; the JSON object into *out (caller puts). */
falcon_err_t falcon_client_status(struct falcon_client *cl, json_object **out);
/* falcon_client_quarantine - POST /v1/quarantine (reason may be NULL). */
falcon_err_t falcon_client_quarantine(struct falcon_client *cl, const char *chassis,
				      const char *device, const char *reason);
/* falcon_client_unquarantine - POST /v1/unquarantine. */
falcon_err_t falcon_client_unquarantine(struct falcon_client *cl, const char *chassis,
					const char *device);
/*
 * falcon_client_reconcile - POST /v1/reconcile; the report into *out
 * (caller puts).  reread: every device's description is read again (what
 * an admin asks for); false reads the zones and what changed only (the
 * prolog's question "does the chassis still hold my lease?").  An answer
 * other than 2xx is an error as for falcon_client_call() (502: a chassis
 * did not answer; 503: falcond's start-up reconcile runs), *out untouched.
 */
falcon_err_t falcon_client_reconcile(struct falcon_client *cl, bool reread, json_object **out);
/* falcon_client_health - GET /v1/health; the answer into *out (caller puts). */
falcon_err_t falcon_client_health(struct falcon_client *cl, json_object **out);

#endif /* FALCON_FALCOND_CLIENT_H */
