/*
 * falcond_client.c - the falcond API client (see falcond_client.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "api/auth.h"
#include "api/falcond_client.h"
#include "core/log.h"
#include "core/util.h"

struct falcon_client {
	char *url;          /* the URL in use: urls[cur] */
	char **urls;        /* FalcondUrl= list in order, each without trailing '/' */
	size_t nurls, cur;
	char *socket;       /* NULL = libmunge default */
	long timeout_s;
	long retry_after_s; /* the last call's advice (falcon_client_retry_after) */
	CURL *curl;
};

struct buf {
	char *p;
	size_t n;
};

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *ctx)
{
	struct buf *b = ctx;
	size_t add = size * nmemb;
	char *np;

	if (b->n + add > 4u * 1024 * 1024) /* bound what a peer can make us hold */
		return 0;
	np = realloc(b->p, b->n + add + 1);
	if (np == NULL)
		return 0;
	memcpy(np + b->n, ptr, add);
	b->p = np;
	b->n += add;
	b->p[b->n] = '\0';
	return add;
}

/* The URL that last answered in this process (any client): a new client
 * starts there, so a process does not knock at a dead primary each time. */
static pthread_mutex_t last_good_lock = PTHREAD_MUTEX_INITIALIZER;
static char last_good[512];

static void remember_good(const struct falcon_client *cl)
{
	pthread_mutex_lock(&last_good_lock);
	falcon_strlcpy(last_good, cl->url, sizeof(last_good));
	pthread_mutex_unlock(&last_good_lock);
}

/* split_urls - cl->urls from list (',' or blank separated); cl->cur at the
 * last good one when it is in the list. */
static falcon_err_t split_urls(struct falcon_client *cl, const char *list)
{
	char *copy = strdup(list), *p, *save = NULL;
	size_t i, l;

	if (copy == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "falcon_client_new");
	for (p = strtok_r(copy, ", \t", &save); p != NULL; p = strtok_r(NULL, ", \t", &save)) {
		char **grown;

		if (strncmp(p, "http", 4) != 0) {
			/* p points into copy: the message first, then the free */
			falcon_err_set(FALCON_ERR_INVAL, "falcond url '%s' (of '%s'): expected "
				       "http(s)://HOST:PORT", p, list);
			free(copy);
			return FALCON_ERR_INVAL;
		}
		grown = realloc(cl->urls, (cl->nurls + 1) * sizeof(*cl->urls));
		if (grown == NULL || (grown[cl->nurls] = strdup(p)) == NULL) {
			if (grown != NULL)
				cl->urls = grown;
			free(copy);
			return falcon_err_set(FALCON_ERR_NOMEM, "falcon_client_new");
		}
		cl->urls = grown;
		l = strlen(cl->urls[cl->nurls]);
		while (l > 0 && cl->urls[cl->nurls][l - 1] == '/')
			cl->urls[cl->nurls][--l] = '\0';
		cl->nurls++;
	}
	free(copy);
	if (cl->nurls == 0)
		return falcon_err_set(FALCON_ERR_INVAL, "falcond url '%s': expected "
				      "http(s)://HOST:PORT", list);
	pthread_mutex_lock(&last_good_lock);
	for (i = 0; i < cl->nurls; i++)
		if (strcmp(cl->urls[i], last_good) == 0)
			cl->cur = i;
	pthread_mutex_unlock(&last_good_lock);
	cl->url = cl->urls[cl->cur];
	return FALCON_OK;
}

/* libcurl's global set-up, once in this process before its first handle
 * (libcurl manual, curl_global_init(3); a call after the first is counted
 * and changes nothing, so lib/chassis' own beside this one is harmless). */
static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_once_rc;

static void curl_once_init(void)
{
	curl_once_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

falcon_err_t falcon_client_new(const char *url, const char *munge_socket, int timeout_s,
			       struct falcon_client **out)
{
	struct falcon_client *cl;
	falcon_err_t rv;

	if (url == NULL)
		return falcon_err_set(FALCON_ERR_INVAL, "falcond url '(null)': expected "
				      "http(s)://HOST:PORT");
	pthread_once(&curl_once, curl_once_init);
	if (curl_once_rc != CURLE_OK)
		return falcon_err_set(FALCON_ERR_TRANSPORT, "curl_global_init: %s",
				      curl_easy_strerror(curl_once_rc));
	cl = calloc(1, sizeof(*cl));
	if (cl == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "falcon_client_new");
	if ((rv = split_urls(cl, url)) != FALCON_OK) {
		falcon_client_free(cl);
		return rv;
	}
	cl->socket = munge_socket ? strdup(munge_socket) : NULL;
	cl->timeout_s = timeout_s > 0 ? timeout_s : 30;
	cl->retry_after_s = -1;
	cl->curl = curl_easy_init();
	if ((munge_socket && cl->socket == NULL) || cl->curl == NULL) {
		falcon_client_free(cl);
		return falcon_err_set(FALCON_ERR_NOMEM, "falcon_client_new");
	}
	*out = cl;
	return FALCON_OK;
}

void falcon_client_free(struct falcon_client *cl)
{
	size_t i;

	if (cl == NULL)
		return;
	if (cl->curl)
		curl_easy_cleanup(cl->curl);
	for (i = 0; i < cl->nurls; i++)
		free(cl->urls[i]);
	free(cl->urls);
	free(cl->socket);
	free(cl);
}

const char *falcon_client_url(const struct falcon_client *cl)
{
	return cl->url;
}

long falcon_client_retry_after(const struct falcon_client *cl)
{
	return cl->retry_after_s;
}

falcon_err_t falcon_client_answer(const char *method, const char *path, long code,
				  const char *body, json_object **resp)
{
	json_object *o, *e;
	falcon_err_t rv;

	o = body ? json_tokener_parse(body) : NULL;
	if (o == NULL || !json_object_is_type(o, json_type_object)) {
		rv = falcon_err_set(FALCON_ERR_PROTOCOL, "falcond: %s %s: HTTP %ld with a body "
				    "that is not a JSON object", method, path, code);
		goto fail;
	}
	if (code < 200 || code > 299) {
		const char *msg = json_object_object_get_ex(o, "error", &e) ? json_object_get_string(e) : "";

		rv = falcon_proto_err_from_name(json_object_object_get_ex(o, "code", &e)
							? json_object_get_string(e) : NULL);
		/* a failed answer never reads as success, whatever it names */
		if (rv == FALCON_OK)
			rv = FALCON_ERR_PROTOCOL;
		rv = falcon_err_set(rv, "falcond: %s %s: HTTP %ld: %s", method, path, code, msg);
		goto fail;
	}
	if (resp) {
		*resp = o;
		o = NULL;
	}
	rv = FALCON_OK;
fail:
	json_object_put(o);
	return rv;
}

/* client_call_once - one signed request (falcon_client_call); *retry_after_s gets
 * the answer's Retry-After in seconds, -1 when none (libcurl
 * CURLINFO_RETRY_AFTER: delta-seconds or an HTTP date). */
static falcon_err_t client_call_once(struct falcon_client *cl, const char *method, const char *path,
			      json_object *body, long *http, json_object **resp,
			      long long *retry_after_s, long timeout_ms, bool *standby)
{
	const char *js = body ? json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN) : "";
	size_t jlen = strlen(js);
	struct curl_slist *hdrs = NULL, *h;
	struct buf b = { NULL, 0 };
	char *cred = NULL, *url = NULL, *hdr = NULL, *spath = NULL;
	char budget[64];
	falcon_err_t rv;
	CURLcode cc;
	long code = 0;

	*retry_after_s = -1;
	*standby = false;
	if (http)
		*http = 0;
	/* the credential binds the path without its query: the server sees the
	 * query apart (read-only routes take their parameters there) */
	if ((spath = strndup(path, strcspn(path, "?"))) == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "falcon_client_call");
		goto fail;
	}
	rv = falcon_auth_sign(cl->socket, 0, method, spath, js, jlen, &cred);
	if (rv != FALCON_OK)
		goto fail;
	/* asprintf leaves its pointer undefined on failure: reset only that one */
	if (asprintf(&url, "%s%s", cl->url, path) < 0)
		url = NULL;
	if (url != NULL && asprintf(&hdr, "Authorization: " FALCON_AUTH_SCHEME " %s", cred) < 0)
		hdr = NULL;
	if (url == NULL || hdr == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "falcon_client_call");
		goto fail;
	}
	/* a NULL from curl_slist_append keeps the old list: never send a
	 * request without its Authorization header */
	if ((h = curl_slist_append(hdrs, hdr)) != NULL)
		hdrs = h, h = curl_slist_append(hdrs, "Content-Type: application/json");
	if (h != NULL)
		hdrs = h, h = curl_slist_append(hdrs, "Expect:");
	/* how long this caller waits: falcond starts nothing for it after that */
	snprintf(budget, sizeof(budget), FALCON_PROTO_BUDGET_HEADER ": %ld", timeout_ms);
	if (h != NULL)
		hdrs = h, h = curl_slist_append(hdrs, budget);
	if (h == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "falcon_client_call: headers");
		goto fail;
	}
	hdrs = h;
	curl_easy_reset(cl->curl);
	curl_easy_setopt(cl->curl, CURLOPT_URL, url);
	curl_easy_setopt(cl->curl, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(cl->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(cl->curl, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(cl->curl, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms < 5000 ? timeout_ms : 5000L);
	curl_easy_setopt(cl->curl, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(cl->curl, CURLOPT_WRITEDATA, &b);
	if (strcmp(method, "GET") != 0) {
		curl_easy_setopt(cl->curl, CURLOPT_CUSTOMREQUEST, method);
		curl_easy_setopt(cl->curl, CURLOPT_POSTFIELDS, js);
		curl_easy_setopt(cl->curl, CURLOPT_POSTFIELDSIZE, (long)jlen);
	}
	cc = curl_easy_perform(cl->curl);
	if (cc != CURLE_OK) {
		rv = falcon_err_set(cc == CURLE_OPERATION_TIMEDOUT ? FALCON_ERR_TIMEOUT
								   : FALCON_ERR_TRANSPORT,
				    "%s %s: %s", method, url, curl_easy_strerror(cc));
		goto fail;
	}
	curl_easy_getinfo(cl->curl, CURLINFO_RESPONSE_CODE, &code);
	if (http)
		*http = code;
	if (code == 503) {
		curl_off_t ra = -1;

		if (curl_easy_getinfo(cl->curl, CURLINFO_RETRY_AFTER, &ra) == CURLE_OK && ra > 0)
			*retry_after_s = (long long)ra;
		/* falcond's standby answer (doc/falcond.8, HIGH AVAILABILITY) */
		*standby = b.p != NULL && strstr(b.p, "\"standby\":true") != NULL;
	}
	rv = falcon_client_answer(method, path, code, b.p, resp);
fail:
	curl_slist_free_all(hdrs);
	free(b.p);
	free(hdr);
	free(url);
	free(cred);
	free(spath);
	return rv;
}

/* next_url - move to the next URL of the list (wrapping); true when that
 * closes a round (back at the URL the call started with). */
static bool next_url(struct falcon_client *cl, size_t first)
{
	cl->cur = (cl->cur + 1) % cl->nurls;
	cl->url = cl->urls[cl->cur];
	return cl->cur == first;
}

falcon_err_t falcon_client_call(struct falcon_client *cl, const char *method,
				const char *path, json_object *body, long *http,
				json_object **resp)
{
	long long deadline = falcon_now_ms() + cl->timeout_s * 1000LL, ra, left;
	size_t first = cl->cur;
	falcon_err_t rv;
	bool standby;

	cl->retry_after_s = -1;
	for (;;) {
		left = deadline - falcon_now_ms();
		rv = client_call_once(cl, method, path, body, http, resp, &ra, left > 1 ? (long)left : 1L,
			       &standby);
		if (rv == FALCON_OK) {
			remember_good(cl);
			return rv;
		}
		cl->retry_after_s = (long)ra;
		/* no answer, or a standby falcond: the next URL at once, for
		 * one round; after a whole round the caller may pause (a backup
		 * taking over: 1 s unless the answer said) and call again */
		if (cl->nurls > 1 && (standby || rv == FALCON_ERR_TRANSPORT ||
				      rv == FALCON_ERR_TIMEOUT)) {
			falcon_verbose("%s %s: %s; trying %s", method, path,
				       standby ? "standby" : falcon_errmsg(),
				       cl->urls[(cl->cur + 1) % cl->nurls]);
			if (!next_url(cl, first))
				continue;
			if (ra < 0)
				cl->retry_after_s = 1;
		}
		return rv;
	}
}

falcon_err_t falcon_client_compose(struct falcon_client *cl,
				   const struct falcon_compose_req *req,
				   struct falcon_lease *lease)
{
	json_object *body = falcon_proto_compose_json(req), *resp = NULL, *l;
	falcon_err_t rv;

	if (body == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "compose");
	rv = falcon_client_call(cl, "POST", "/v1/compose", body, NULL, &resp);
	if (rv == FALCON_OK) {
		if (json_object_object_get_ex(resp, "lease", &l))
			rv = falcon_proto_lease_from_json(l, lease);
		else
			rv = falcon_err_set(FALCON_ERR_PROTOCOL, "compose: answer without a lease");
	}
	json_object_put(body);
	json_object_put(resp);
	return rv;
}

falcon_err_t falcon_client_decompose(struct falcon_client *cl, uint32_t job_id,
				     const char *lease_id)
{
	return falcon_client_decompose_check(cl, job_id, lease_id, NULL);
}

falcon_err_t falcon_client_decompose_check(struct falcon_client *cl, uint32_t job_id,
					   const char *lease_id, const char *check)
{
	json_object *body = json_object_new_object();
	falcon_err_t rv;

	if (body == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "decompose");
	if (job_id > 0)
		json_object_object_add(body, "job_id", json_object_new_int64(job_id));
	else
		json_object_object_add(body, "lease", json_object_new_string(lease_id ? lease_id : ""));
	if (check != NULL)
		json_object_object_add(body, "check", json_object_new_string(check));
	rv = falcon_client_call(cl, "POST", "/v1/decompose", body, NULL, NULL);
	json_object_put(body);
	return rv;
}

falcon_err_t falcon_client_status(struct falcon_client *cl, json_object **out)
{
	return falcon_client_call(cl, "GET", "/v1/status", NULL, NULL, out);
}

static falcon_err_t device_call(struct falcon_client *cl, const char *path,
				const char *chassis, const char *device, const char *reason)
{
	json_object *body = json_object_new_object();
	falcon_err_t rv;

	if (body == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "%s", path);
	json_object_object_add(body, "chassis", json_object_new_string(chassis ? chassis : ""));
	json_object_object_add(body, "device", json_object_new_string(device ? device : ""));
	if (reason)
		json_object_object_add(body, "reason", json_object_new_string(reason));
	rv = falcon_client_call(cl, "POST", path, body, NULL, NULL);
	json_object_put(body);
	return rv;
}

falcon_err_t falcon_client_quarantine(struct falcon_client *cl, const char *chassis,
				      const char *device, const char *reason)
{
	return device_call(cl, "/v1/quarantine", chassis, device, reason);
}

falcon_err_t falcon_client_unquarantine(struct falcon_client *cl, const char *chassis,
					const char *device)
{
	return device_call(cl, "/v1/unquarantine", chassis, device, NULL);
}

falcon_err_t falcon_client_reconcile(struct falcon_client *cl, bool reread, json_object **out)
{
	json_object *body = json_object_new_object();
	falcon_err_t rv;

	if (body == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "reconcile");
	if (!reread)
		json_object_object_add(body, "reread", json_object_new_boolean(0));
	rv = falcon_client_call(cl, "POST", "/v1/reconcile", body, NULL, out);
	json_object_put(body);
	return rv;
}

falcon_err_t falcon_client_health(struct falcon_client *cl, json_object **out)
{
	return falcon_client_call(cl, "GET", "/v1/health", NULL, NULL, out);
}
