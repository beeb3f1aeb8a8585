/*
 * rf_json.c - the pure pieces of Redfish response handling (no network):
 * body parsing with a depth limit, accessors that never trust a property's
 * type, resource paths, the Redfish error message and the mapping of an HTTP
 * status to a falcon_err_t.  Declared in lib/chassis/redfish.h.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "chassis/redfish.h"
#include "core/util.h"

falcon_err_t falcon_rf_parse(const char *buf, size_t len, const char *what,
			     struct json_object **out)
{
	struct json_tokener *tok = NULL;
	struct json_object *obj = NULL;
	enum json_tokener_error jerr;
	size_t end;
	falcon_err_t rv;

	*out = NULL;
	if (len > FALCON_RF_MAX_BODY || len > INT_MAX) {
		rv = falcon_err_set(FALCON_ERR_PARSE, "%s: body of %zu bytes exceeds %u",
				    what, len, FALCON_RF_MAX_BODY);
		goto fail;
	}
	if (len == 0 || buf == NULL) {
		rv = falcon_err_set(FALCON_ERR_PARSE, "%s: empty body, expected a JSON object",
				    what);
		goto fail;
	}
	if (memchr(buf, '\0', len) != NULL) {
		rv = falcon_err_set(FALCON_ERR_PARSE, "%s: NUL byte in the JSON body", what);
		goto fail;
	}
	tok = json_tokener_new_ex(FALCON_RF_MAX_DEPTH);
	if (tok == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "%s: json_tokener_new_ex", what);
		goto fail;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	obj = json_tokener_parse_ex(tok, buf, (int)len);
	jerr = json_tokener_get_error(tok);
	if (jerr == json_tokener_continue) {
		rv = falcon_err_set(FALCON_ERR_PARSE, "%s: truncated JSON (%zu bytes)", what, len);
		goto fail;
	}
	if (jerr != json_tokener_success || obj == NULL) {
		rv = falcon_err_set(FALCON_ERR_PARSE, "%s: malformed JSON at byte %zu: %s",
				    what, json_tokener_get_parse_end(tok),
				    json_tokener_error_desc(jerr));
		goto fail;
	}
	for (end = json_tokener_get_parse_end(tok); end < len; end++)
		if (!isspace((unsigned char)buf[end])) {
			rv = falcon_err_set(FALCON_ERR_PARSE,
					    "%s: trailing data after the JSON value at byte %zu",
					    what, end);
			goto fail;
		}
	if (!json_object_is_type(obj, json_type_object)) {
		rv = falcon_err_set(FALCON_ERR_PARSE, "%s: expected a JSON object, got %s",
				    what, json_type_to_name(json_object_get_type(obj)));
		goto fail;
	}
	*out = obj;
	obj = NULL;
	rv = FALCON_OK;
fail:
	json_object_put(obj);
	if (tok != NULL)
		json_tokener_free(tok);
	return rv;
}

/* obj[key] when obj is an object and the value has type t, else NULL. */
static struct json_object *typed_member(struct json_object *obj, const char *key,
					json_type t)
{
	struct json_object *v;

	if (obj == NULL || !json_object_is_type(obj, json_type_object) ||
	    !json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, t))
		return NULL;
	return v;
}

const char *falcon_rf_str(struct json_object *obj, const char *key)
{
	struct json_object *v = typed_member(obj, key, json_type_string);

	return v != NULL ? json_object_get_string(v) : NULL;
}

struct json_object *falcon_rf_obj(struct json_object *obj, const char *key)
{
	return typed_member(obj, key, json_type_object);
}

struct json_object *falcon_rf_arr(struct json_object *obj, const char *key)
{
	return typed_member(obj, key, json_type_array);
}

bool falcon_rf_path_ok(const char *p)
{
	size_t i, n;

	if (p == NULL)
		return false;
	n = strlen(p);
	if (n >= FALCON_RF_PATH_LEN || strncmp(p, FALCON_RF_ROOT, strlen(FALCON_RF_ROOT)) != 0)
		return false;
	if (p[strlen(FALCON_RF_ROOT)] != '\0' && p[strlen(FALCON_RF_ROOT)] != '/' &&
	    p[strlen(FALCON_RF_ROOT)] != '#')
		return false;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c <= 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '?' ||
		    c == '<' || c == '>' || c == '`' || c == '{' || c == '}' || c == '|' ||
		    c == '^')
			return false;
	}
	return strstr(p, "/..") == NULL && strstr(p, "//") == NULL;
}

bool falcon_rf_has_string(struct json_object *arr, const char *s)
{
	size_t i, n;

	if (arr == NULL || !json_object_is_type(arr, json_type_array))
		return false;
	n = json_object_array_length(arr);
	for (i = 0; i < n; i++) {
		struct json_object *v = json_object_array_get_idx(arr, i);

		if (v != NULL && json_object_is_type(v, json_type_string) &&
		    !strcmp(json_object_get_string(v), s))
			return true;
	}
	return false;
}

const char *falcon_rf_link(struct json_object *obj, const char *key)
{
	const char *p = falcon_rf_str(falcon_rf_obj(obj, key), "@odata.id");

	return falcon_rf_path_ok(p) ? p : NULL;
}

const char *falcon_rf_odata_id(struct json_object *obj, const char *what)
{
	const char *p = falcon_rf_str(obj, "@odata.id");

	if (p == NULL) {
		falcon_err_set(FALCON_ERR_PROTOCOL, "%s: no @odata.id string", what);
		return NULL;
	}
	if (!falcon_rf_path_ok(p)) {
		falcon_err_set(FALCON_ERR_PROTOCOL,
			       "%s: @odata.id is not a path under " FALCON_RF_ROOT, what);
		return NULL;
	}
	return p;
}

const char *falcon_rf_last_segment(const char *path, char *buf, size_t n)
{
	size_t len;
	const char *s, *hash;

	buf[0] = '\0';
	hash = strchr(path, '#');
	len = hash != NULL ? (size_t)(hash - path) : strlen(path);
	while (len > 0 && path[len - 1] == '/')
		len--;
	s = path + len;
	while (s > path && s[-1] != '/')
		s--;
	if ((size_t)(path + len - s) < n) {
		memcpy(buf, s, (size_t)(path + len - s));
		buf[path + len - s] = '\0';
	}
	return buf;
}

bool falcon_rf_path_eq(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la > 0 && a[la - 1] == '/')
		la--;
	if (lb > 0 && b[lb - 1] == '/')
		lb--;
	return la == lb && memcmp(a, b, la) == 0;
}

/* Copy s into buf replacing control and non-ASCII bytes by '?'. */
static void copy_clean(char *buf, size_t n, const char *s, size_t slen)
{
	size_t i;

	if (n == 0)
		return;
	for (i = 0; i < slen && i + 1 < n; i++) {
		unsigned char c = (unsigned char)s[i];

		buf[i] = (c < 0x20 || c >= 0x7f) ? '?' : (char)c;
	}
	buf[i] = '\0';
}

const char *falcon_rf_error_message(struct json_object *body, char *buf, size_t n)
{
	struct json_object *err = falcon_rf_obj(body, "error");
	struct json_object *ext = falcon_rf_arr(err, "@Message.ExtendedInfo");
	const char *msg = NULL;

	if (n > 0)
		buf[0] = '\0';
	if (ext != NULL && json_object_array_length(ext) > 0)
		msg = falcon_rf_str(json_object_array_get_idx(ext, 0), "Message");
	if (msg == NULL)
		msg = falcon_rf_str(err, "message");
	if (msg == NULL || n == 0)
		return NULL;
	copy_clean(buf, n, msg, strlen(msg));
	return buf;
}

static falcon_err_t status_err(long status)
{
	switch (status) {
	case 401: return FALCON_ERR_AUTH;
	case 403: return FALCON_ERR_PERM;
	case 404: return FALCON_ERR_NOTFOUND;
	case 408: return FALCON_ERR_TIMEOUT;
	case 409: return FALCON_ERR_CONFLICT;
	case 412: return FALCON_ERR_PRECONDITION;
	case 405:
	case 501: return FALCON_ERR_UNSUPPORTED;
	case 429: return FALCON_ERR_SERVER;
	default: break;
	}
	if (status >= 500 && status <= 599)
		return FALCON_ERR_SERVER;
	if (status >= 400 && status <= 499)
		return FALCON_ERR_CHASSIS;
	return FALCON_ERR_PROTOCOL;
}

falcon_err_t falcon_rf_map_status(long status, const char *body, size_t len,
				  const char *method, const char *url)
{
	struct json_object *obj = NULL;
	char msg[400];
	falcon_err_t rv;

	if (status >= 200 && status <= 299)
		return FALCON_OK;
	rv = status_err(status);
	msg[0] = '\0';
	if (body != NULL && len > 0) {
		falcon_err_t saved_rv = rv;

		if (falcon_rf_parse(body, len, url, &obj) == FALCON_OK &&
		    falcon_rf_error_message(obj, msg, sizeof(msg)) != NULL) {
			/* the Redfish message */
		} else {
			char excerpt[81];

			copy_clean(excerpt, sizeof(excerpt), body, len);
			snprintf(msg, sizeof(msg), "no Redfish error message; body: \"%s%s\"",
				 excerpt, len > sizeof(excerpt) - 1 ? "..." : "");
		}
		rv = saved_rv;
	} else {
		snprintf(msg, sizeof(msg), "empty body");
	}
	json_object_put(obj);
	return falcon_err_set(rv, "%s %s: HTTP %ld: %s", method, url, status, msg);
}

void falcon_rf_body_etag(struct json_object *obj, char *etag, size_t n)
{
	const char *e = falcon_rf_str(obj, "@odata.etag");
	size_t i;

	if (etag == NULL || n == 0)
		return;
	etag[0] = '\0';
	if (e == NULL || strlen(e) >= n)
		return;
	for (i = 0; e[i] != '\0'; i++)
		if ((unsigned char)e[i] < 0x20 || (unsigned char)e[i] >= 0x7f)
			return;
	falcon_strlcpy(etag, e, n);
}

falcon_err_t falcon_rf_task_outcome(struct json_object *body, const char *what, bool *done)
{
	/* Task.v1_7_3 TaskState: New, Starting, Running, Suspended,
	 * Interrupted, Pending, Stopping, Completed, Killed, Exception,
	 * Service, Cancelling, Cancelled.  Still going unless one of these: */
	static const char *const failed[] = { "Killed", "Exception", "Cancelled", NULL };
	const char *type = falcon_rf_str(body, "@odata.type");
	const char *state = falcon_rf_str(body, "TaskState");
	struct json_object *msgs = falcon_rf_arr(body, "Messages");
	const char *msg = NULL;
	char clean[512];
	size_t i;

	*done = true;
	if (type == NULL || strncmp(type, "#Task.", 6) != 0)
		return FALCON_OK; /* the operation's own answer */
	if (state == NULL)
		return falcon_err_set(FALCON_ERR_PROTOCOL, "%s: a Task without TaskState", what);
	if (strcmp(state, "Completed") == 0)
		return FALCON_OK;
	for (i = 0; failed[i] != NULL; i++)
		if (strcmp(state, failed[i]) == 0)
			break;
	if (failed[i] == NULL) {
		*done = false;
		return FALCON_OK;
	}
	if (msgs != NULL && json_object_array_length(msgs) > 0)
		msg = falcon_rf_str(json_object_array_get_idx(msgs, 0), "Message");
	falcon_strlcpy(clean, msg != NULL ? msg : "no message", sizeof(clean));
	for (i = 0; clean[i] != '\0'; i++)
		if ((unsigned char)clean[i] < 0x20)
			clean[i] = '?';
	return falcon_err_set(FALCON_ERR_CHASSIS, "%s: task %s ended in TaskState %s: %s", what,
			      falcon_rf_str(body, "Id") != NULL ? falcon_rf_str(body, "Id") : "?",
			      state, clean);
}
