/*
 * proto.c - request and response bodies of the falcond API (see proto.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <strings.h>

#include "api/proto.h"
#include "core/util.h"

#define MAX_COUNT 16 /* a Falcon 4016 holds 16 devices */

/*
 * string_end - offset just past the string that opens at body[i] with
 * quote q ('"', or '\'' which json-c's JSON_TOKENER_STRICT still takes).
 */
static size_t string_end(const char *body, size_t len, size_t i, char q)
{
	for (i++; i < len && body[i] != q; i++)
		if (body[i] == '\\')
			i++;
	return i + 1;
}

/*
 * dup_key - refuse an object that names a key twice.  json-c keeps the
 * last value silently (RFC 8259 section 4 leaves duplicate names to the
 * implementation) and has no option to refuse them; Jansson's
 * JSON_REJECT_DUPLICATES does, but Jansson and json-c export the same
 * symbol names (json_object_get, ...), so a program linking both binds
 * them by link order.  body (len bytes) is JSON that json-c accepted
 * with JSON_TOKENER_STRICT (no comments) and depth <= 8, so a scan that
 * only follows strings and brackets is enough: each key, decoded by json-c itself (escapes
 * included), goes into a json-c object per open object (a hash table).
 */
static falcon_err_t dup_key(const char *what, const char *body, size_t len)
{
	json_object *seen[9] = { NULL };
	json_tokener *tok = json_tokener_new_ex(1);
	bool is_obj[9] = { false }, want_key = false;
	falcon_err_t rv = FALCON_OK;
	int depth = -1;
	size_t i, e;

	if (tok == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "%s: json_tokener_new_ex", what);
	for (i = 0; i < len && rv == FALCON_OK; i++) {
		char c = body[i];

		if (c == '{' || c == '[') {
			if (++depth >= 9) /* json-c allowed at most 8 */
				break;
			is_obj[depth] = c == '{';
			seen[depth] = c == '{' ? json_object_new_object() : NULL;
			want_key = c == '{';
		} else if ((c == '}' || c == ']') && depth >= 0) {
			json_object_put(seen[depth]);
			seen[depth--] = NULL;
		} else if (c == ',') {
			want_key = depth >= 0 && is_obj[depth];
		} else if (c == '"' || c == '\'') {
			e = string_end(body, len, i, c);
			if (want_key && seen[depth] != NULL) {
				json_object *k;
				const char *ks;

				json_tokener_reset(tok);
				k = json_tokener_parse_ex(tok, body + i, (int)(e - i));
				ks = k ? json_object_get_string(k) : "";

				if (json_object_object_get_ex(seen[depth], ks, NULL))
					rv = falcon_err_set(FALCON_ERR_PARSE,
							    "%s: body: key \"%.64s\" given twice",
							    what, ks);
				else
					json_object_object_add(seen[depth], ks, NULL);
				json_object_put(k);
			}
			want_key = false;
			i = e - 1;
		}
	}
	while (depth >= 0)
		json_object_put(seen[depth--]);
	json_tokener_free(tok);
	return rv;
}

/* parse_object - body as one JSON object (strict JSON, depth <= 8,
 * nothing after it, no key twice in one object). */
static falcon_err_t parse_object(const char *what, const char *body, size_t len,
				 json_object **out)
{
	json_tokener *tok = NULL;
	json_object *o = NULL;
	enum json_tokener_error jerr;
	falcon_err_t rv;
	size_t off, i;

	if (body == NULL || len == 0) {
		rv = falcon_err_set(FALCON_ERR_PARSE, "%s: empty body, expected a JSON object", what);
		goto fail;
	}
	if (len > FALCON_PROTO_MAX_BODY || memchr(body, '\0', len) != NULL) {
		rv = falcon_err_set(FALCON_ERR_PARSE, "%s: body too large or contains NUL", what);
		goto fail;
	}
	tok = json_tokener_new_ex(8);
	if (tok == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "%s: json_tokener_new_ex", what);
		goto fail;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, body, (int)len);
	jerr = json_tokener_get_error(tok);
	if (o == NULL || jerr != json_tokener_success) {
		rv = falcon_err_set(FALCON_ERR_PARSE, "%s: body: %s at offset %zu", what,
				    jerr == json_tokener_continue ? "truncated JSON"
								   : json_tokener_error_desc(jerr),
				    json_tokener_get_parse_end(tok));
		goto fail;
	}
	off = json_tokener_get_parse_end(tok);
	for (i = off; i < len; i++)
		if (!isspace((unsigned char)body[i])) {
			rv = falcon_err_set(FALCON_ERR_PARSE, "%s: body: trailing data at offset %zu",
					    what, i);
			goto fail;
		}
	if (!json_object_is_type(o, json_type_object)) {
		rv = falcon_err_set(FALCON_ERR_PARSE, "%s: body: expected a JSON object", what);
		goto fail;
	}
	rv = dup_key(what, body, len);
	if (rv != FALCON_OK)
		goto fail;
	*out = o;
	o = NULL;
	rv = FALCON_OK;
fail:
	json_object_put(o);
	if (tok)
		json_tokener_free(tok);
	return rv;
}

static falcon_err_t get_int(const char *what, const char *key, json_object *v,
			    long min, long max, long *out)
{
	int64_t x;

	if (!json_object_is_type(v, json_type_int))
		return falcon_err_set(FALCON_ERR_PARSE, "%s: %s: expected an integer in [%ld, %ld]",
				      what, key, min, max);
	errno = 0;
	x = json_object_get_int64(v);
	if (errno != 0 || x < min || x > max)
		return falcon_err_set(FALCON_ERR_PARSE, "%s: %s: expected an integer in [%ld, %ld]",
				      what, key, min, max);
	*out = (long)x;
	return FALCON_OK;
}

/* get_name - a non-empty string of [A-Za-z0-9._:-] that fits n bytes. */
static falcon_err_t get_name(const char *what, const char *key, json_object *v,
			     char *out, size_t n, bool empty_ok)
{
	const char *s;
	size_t i, l;

	if (!json_object_is_type(v, json_type_string))
		return falcon_err_set(FALCON_ERR_PARSE, "%s: %s: expected a string", what, key);
	s = json_object_get_string(v);
	l = (size_t)json_object_get_string_len(v);
	if ((l == 0 && !empty_ok) || l >= n || strlen(s) != l)
		return falcon_err_set(FALCON_ERR_PARSE, "%s: %s: expected a name of 1-%zu characters",
				      what, key, n - 1);
	for (i = 0; i < l; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._:-", s[i]))
			return falcon_err_set(FALCON_ERR_PARSE,
					      "%s: %s: character %zu not in [A-Za-z0-9._:-]",
					      what, key, i);
	memcpy(out, s, l + 1);
	return FALCON_OK;
}

/* get_bool - true or false (JSON's own, not 0/1 nor a string). */
static falcon_err_t get_bool(const char *what, const char *key, json_object *v, bool *out)
{
	if (!json_object_is_type(v, json_type_boolean))
		return falcon_err_set(FALCON_ERR_PARSE, "%s: %s: expected true or false", what, key);
	*out = json_object_get_boolean(v);
	return FALCON_OK;
}

/* get_text - any printable string that fits n bytes. */
static falcon_err_t get_text(const char *what, const char *key, json_object *v,
			     char *out, size_t n)
{
	const char *s;
	size_t i, l;

	if (!json_object_is_type(v, json_type_string))
		return falcon_err_set(FALCON_ERR_PARSE, "%s: %s: expected a string", what, key);
	s = json_object_get_string(v);
	l = (size_t)json_object_get_string_len(v);
	if (l >= n || strlen(s) != l)
		return falcon_err_set(FALCON_ERR_PARSE, "%s: %s: expected at most %zu characters",
				      what, key, n - 1);
	for (i = 0; i < l; i++)
		if (iscntrl((unsigned char)s[i]))
			return falcon_err_set(FALCON_ERR_PARSE, "%s: %s: control character", what, key);
	memcpy(out, s, l + 1);
	return FALCON_OK;
}

falcon_err_t falcon_proto_parse_compose(const char *body, size_t len,
					struct falcon_compose_req *out)
{
	static const char what[] = "compose";
	struct falcon_compose_req r = { .uid = -1 };
	json_object *o = NULL;
	falcon_err_t rv;
	bool have_job = false, have_host = false;
	long x;

	rv = parse_object(what, body, len, &o);
	if (rv != FALCON_OK)
		goto fail;
	json_object_object_foreach(o, key, v) {
		if (strcmp(key, "job_id") == 0) {
			rv = get_int(what, key, v, 1, UINT32_MAX - 1, &x);
			r.job_id = (uint32_t)x;
			have_job = true;
		} else if (strcmp(key, "host") == 0) {
			rv = get_name(what, key, v, r.host, sizeof(r.host), false);
			have_host = true;
		} else if (strcmp(key, "gpus") == 0) {
			rv = get_int(what, key, v, 0, MAX_COUNT, &x);
			r.gpus = (int)x;
		} else if (strcmp(key, "nvme") == 0) {
			rv = get_int(what, key, v, 0, MAX_COUNT, &x);
			r.nvme = (int)x;
		} else if (strcmp(key, "local_gpus") == 0) {
			rv = get_int(what, key, v, 0, 64, &x);
			r.local_gpus = (int)x;
		} else if (strcmp(key, "uid") == 0) {
			rv = get_int(what, key, v, 0, UINT32_MAX - 1, &x);
			r.uid = x;
		} else if (strcmp(key, "on_node") == 0) {
			rv = get_bool(what, key, v, &r.on_node);
		} else if (strcmp(key, "partition") == 0) {
			rv = get_name(what, key, v, r.partition, sizeof(r.partition), true);
		} else if (strcmp(key, "place") == 0) {
			if (!json_object_is_type(v, json_type_string) ||
			    falcon_place_from_str(json_object_get_string(v), &r.place) != FALCON_OK)
				rv = falcon_err_set(FALCON_ERR_PARSE,
						    "%s: place: expected pack, spread or any", what);
			r.place_set = true;
		} else {
			rv = falcon_err_set(FALCON_ERR_PARSE, "%s: unknown field '%.64s'", what, key);
		}
		if (rv != FALCON_OK)
			goto fail;
	}
	if (!have_job) {
		rv = falcon_err_set(FALCON_ERR_PARSE, "%s: job_id: missing", what);
		goto fail;
	}
	if (!have_host) {
		rv = falcon_err_set(FALCON_ERR_PARSE, "%s: host: missing", what);
		goto fail;
	}
	if (r.gpus + r.nvme == 0) {
		rv = falcon_err_set(FALCON_ERR_PARSE, "%s: gpus, nvme: at least one device wanted",
				    what);
		goto fail;
	}
	*out = r;
	rv = FALCON_OK;
fail:
	json_object_put(o);
	return rv;
}

falcon_err_t falcon_proto_parse_decompose(const char *body, size_t len,
					  struct falcon_decompose_req *out)
{
	static const char what[] = "decompose";
	struct falcon_decompose_req r = { 0 };
	json_object *o = NULL;
	falcon_err_t rv;
	long x;

	rv = parse_object(what, body, len, &o);
	if (rv != FALCON_OK)
		goto fail;
	json_object_object_foreach(o, key, v) {
		if (strcmp(key, "job_id") == 0) {
			rv = get_int(what, key, v, 1, UINT32_MAX - 1, &x);
			r.job_id = (uint32_t)x;
		} else if (strcmp(key, "lease") == 0) {
			rv = get_name(what, key, v, r.lease, sizeof(r.lease), false);
		} else if (strcmp(key, "check") == 0) {
			rv = get_text(what, key, v, r.check, sizeof(r.check));
		} else if (strcmp(key, "keep") == 0) {
			rv = get_bool(what, key, v, &r.keep);
		} else if (strcmp(key, "off_node") == 0) {
			rv = get_bool(what, key, v, &r.off_node);
		} else {
			rv = falcon_err_set(FALCON_ERR_PARSE, "%s: unknown field '%.64s'", what, key);
		}
		if (rv != FALCON_OK)
			goto fail;
	}
	if ((r.job_id == 0) == (r.lease[0] == '\0')) {
		rv = falcon_err_set(FALCON_ERR_PARSE, "%s: job_id, lease: expected exactly one", what);
		goto fail;
	}
	if (r.off_node && (r.job_id == 0 || r.keep)) {
		rv = falcon_err_set(FALCON_ERR_PARSE, "%s: off_node: expected with job_id, without "
				    "lease and keep", what);
		goto fail;
	}
	*out = r;
	rv = FALCON_OK;
fail:
	json_object_put(o);
	return rv;
}

falcon_err_t falcon_proto_parse_device(const char *body, size_t len, bool reason_allowed,
				       struct falcon_device_req *out)
{
	const char *what = reason_allowed ? "quarantine" : "unquarantine";
	struct falcon_device_req r;
	json_object *o = NULL;
	falcon_err_t rv;

	memset(&r, 0, sizeof(r));

	rv = parse_object(what, body, len, &o);
	if (rv != FALCON_OK)
		goto fail;
	json_object_object_foreach(o, key, v) {
		if (strcmp(key, "chassis") == 0)
			rv = get_name(what, key, v, r.chassis, sizeof(r.chassis), false);
		else if (strcmp(key, "device") == 0)
			rv = get_name(what, key, v, r.device, sizeof(r.device), false);
		else if (reason_allowed && strcmp(key, "reason") == 0)
			rv = get_text(what, key, v, r.reason, sizeof(r.reason));
		else
			rv = falcon_err_set(FALCON_ERR_PARSE, "%s: unknown field '%.64s'", what, key);
		if (rv != FALCON_OK)
			goto fail;
	}
	if (r.chassis[0] == '\0' || r.device[0] == '\0') {
		rv = falcon_err_set(FALCON_ERR_PARSE, "%s: %s: missing", what,
				    r.chassis[0] == '\0' ? "chassis" : "device");
		goto fail;
	}
	*out = r;
	rv = FALCON_OK;
fail:
	json_object_put(o);
	return rv;
}

json_object *falcon_proto_compose_json(const struct falcon_compose_req *req)
{
	json_object *o = json_object_new_object();

	if (o == NULL)
		return NULL;
	json_object_object_add(o, "job_id", json_object_new_int64(req->job_id));
	json_object_object_add(o, "host", json_object_new_string(req->host));
	json_object_object_add(o, "gpus", json_object_new_int(req->gpus));
	json_object_object_add(o, "nvme", json_object_new_int(req->nvme));
	if (req->local_gpus > 0)
		json_object_object_add(o, "local_gpus", json_object_new_int(req->local_gpus));
	if (req->place_set)
		json_object_object_add(o, "place",
				       json_object_new_string(falcon_place_str(req->place)));
	if (req->partition[0])
		json_object_object_add(o, "partition", json_object_new_string(req->partition));
	if (req->uid >= 0)
		json_object_object_add(o, "uid", json_object_new_int64(req->uid));
	if (req->on_node)
		json_object_object_add(o, "on_node", json_object_new_boolean(1));
	return o;
}

json_object *falcon_proto_lease_json(const struct falcon_lease *l)
{
	json_object *o = json_object_new_object();
	json_object *a = json_object_new_array();
	size_t i;

	if (o == NULL || a == NULL) {
		json_object_put(o);
		json_object_put(a);
		return NULL;
	}
	json_object_object_add(o, "id", json_object_new_string(l->id));
	json_object_object_add(o, "job_id", json_object_new_int64(l->job_id));
	json_object_object_add(o, "uid", json_object_new_int64(l->uid));
	json_object_object_add(o, "host", json_object_new_string(l->host));
	json_object_object_add(o, "partition", json_object_new_string(l->partition));
	json_object_object_add(o, "place", json_object_new_string(falcon_place_str(l->place)));
	json_object_object_add(o, "state", json_object_new_string(l->state));
	json_object_object_add(o, "created", json_object_new_int64(l->created_ms));
	if (l->kept_ms)
		json_object_object_add(o, "kept", json_object_new_int64(l->kept_ms));
	if (l->reset)
		json_object_object_add(o, "reset", json_object_new_boolean(1));
	if (l->on_node)
		json_object_object_add(o, "on_node", json_object_new_boolean(1));
	for (i = 0; i < l->ndevs; i++) {
		const struct falcon_lease_dev *d = &l->devs[i];
		json_object *j = json_object_new_object();

		json_object_object_add(j, "chassis", json_object_new_string(d->chassis));
		json_object_object_add(j, "id", json_object_new_string(d->id));
		json_object_object_add(j, "port", json_object_new_string(d->port));
		json_object_object_add(j, "drawer", json_object_new_int(d->drawer));
		json_object_object_add(j, "slot", json_object_new_int(d->slot));
		json_object_object_add(j, "type",
				       json_object_new_string(falcon_dev_type_str(d->type)));
		json_object_object_add(j, "vendor_id", json_object_new_string(d->vendor_id));
		json_object_object_add(j, "device_id", json_object_new_string(d->device_id));
		json_object_object_add(j, "serial", json_object_new_string(d->serial));
		json_object_array_add(a, j);
	}
	json_object_object_add(o, "devices", a);
	return o;
}

json_object *falcon_proto_error_json(falcon_err_t err, const char *detail)
{
	json_object *o = json_object_new_object();

	if (o == NULL)
		return NULL;
	json_object_object_add(o, "error",
			       json_object_new_string(detail ? detail : falcon_strerror(err)));
	json_object_object_add(o, "code", json_object_new_string(falcon_err_name(err)));
	return o;
}

/* Strict getters for the lease form. */
static falcon_err_t lget_name(json_object *o, const char *key, char *out, size_t n,
			      bool empty_ok)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return falcon_err_set(FALCON_ERR_PARSE, "lease: %s: missing", key);
	return get_name("lease", key, v, out, n, empty_ok);
}

static falcon_err_t lget_text(json_object *o, const char *key, char *out, size_t n)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return falcon_err_set(FALCON_ERR_PARSE, "lease: %s: missing", key);
	return get_text("lease", key, v, out, n);
}

static falcon_err_t lget_int(json_object *o, const char *key, long min, long max, long *out)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return falcon_err_set(FALCON_ERR_PARSE, "lease: %s: missing", key);
	return get_int("lease", key, v, min, max, out);
}

falcon_err_t falcon_proto_lease_from_json(json_object *o, struct falcon_lease *out)
{
	struct falcon_lease *l = out;
	json_object *a, *v;
	char buf[16];
	falcon_err_t rv;
	long x;
	size_t i, n;

	memset(l, 0, sizeof(*l));
	if (!json_object_is_type(o, json_type_object))
		return falcon_err_set(FALCON_ERR_PARSE, "lease: expected an object");
	if ((rv = lget_name(o, "id", l->id, sizeof(l->id), false)) != FALCON_OK ||
	    (rv = lget_int(o, "job_id", 1, UINT32_MAX - 1, &x)) != FALCON_OK)
		return rv;
	l->job_id = (uint32_t)x;
	if ((rv = lget_int(o, "uid", -1, UINT32_MAX - 1, &x)) != FALCON_OK)
		return rv;
	l->uid = x;
	if ((rv = lget_name(o, "host", l->host, sizeof(l->host), false)) != FALCON_OK ||
	    (rv = lget_name(o, "partition", l->partition, sizeof(l->partition), true)) != FALCON_OK ||
	    (rv = lget_name(o, "state", l->state, sizeof(l->state), false)) != FALCON_OK ||
	    (rv = lget_name(o, "place", buf, sizeof(buf), false)) != FALCON_OK)
		return rv;
	if (falcon_place_from_str(buf, &l->place) != FALCON_OK)
		return falcon_err_set(FALCON_ERR_PARSE, "lease: place: expected pack, spread or any");
	if ((rv = lget_int(o, "created", 0, LONG_MAX, &x)) != FALCON_OK)
		return rv;
	l->created_ms = x;
	if (json_object_object_get_ex(o, "kept", &v)) {
		if ((rv = get_int("lease", "kept", v, 1, LONG_MAX, &x)) != FALCON_OK)
			return rv;
		l->kept_ms = x;
	}
	/* a kept lease being given back ("closing", falcond_release_lease)
	 * kept its "kept" time in the ledgers of falcond before 2026-11-29,
	 * which then would not load them: it is dropped */
	if (l->kept_ms != 0 && strcmp(l->state, "closing") == 0)
		l->kept_ms = 0;
	if ((strcmp(l->state, "kept") == 0) != (l->kept_ms != 0))
		return falcon_err_set(FALCON_ERR_PARSE, "lease: kept: expected with state \"kept\" "
				      "and only then");
	if (json_object_object_get_ex(o, "reset", &v)) {
		if (!json_object_is_type(v, json_type_boolean))
			return falcon_err_set(FALCON_ERR_PARSE, "lease: reset: expected true or false");
		l->reset = json_object_get_boolean(v);
	}
	if (json_object_object_get_ex(o, "on_node", &v) &&
	    (rv = get_bool("lease", "on_node", v, &l->on_node)) != FALCON_OK)
		return rv;
	if (!json_object_object_get_ex(o, "devices", &a) ||
	    !json_object_is_type(a, json_type_array))
		return falcon_err_set(FALCON_ERR_PARSE, "lease: devices: expected an array");
	n = json_object_array_length(a);
	if (n > FALCON_PROTO_MAX_DEVS)
		return falcon_err_set(FALCON_ERR_PARSE, "lease: devices: more than %d",
				      FALCON_PROTO_MAX_DEVS);
	for (i = 0; i < n; i++) {
		struct falcon_lease_dev *d = &l->devs[i];

		v = json_object_array_get_idx(a, i);
		if (!json_object_is_type(v, json_type_object))
			return falcon_err_set(FALCON_ERR_PARSE, "lease: devices[%zu]: expected an object", i);
		if ((rv = lget_name(v, "chassis", d->chassis, sizeof(d->chassis), false)) != FALCON_OK ||
		    (rv = lget_name(v, "id", d->id, sizeof(d->id), false)) != FALCON_OK ||
		    (rv = lget_name(v, "port", d->port, sizeof(d->port), false)) != FALCON_OK ||
		    (rv = lget_int(v, "drawer", 0, 64, &x)) != FALCON_OK)
			return rv;
		d->drawer = (int)x;
		if ((rv = lget_int(v, "slot", 0, 64, &x)) != FALCON_OK ||
		    (rv = lget_name(v, "type", buf, sizeof(buf), false)) != FALCON_OK)
			return rv;
		d->slot = (int)x;
		if ((rv = falcon_dev_type_from_str(buf, &d->type)) != FALCON_OK ||
		    (rv = lget_name(v, "vendor_id", d->vendor_id, sizeof(d->vendor_id), true)) != FALCON_OK ||
		    (rv = lget_name(v, "device_id", d->device_id, sizeof(d->device_id), true)) != FALCON_OK ||
		    (rv = lget_text(v, "serial", d->serial, sizeof(d->serial))) != FALCON_OK)
			return rv;
	}
	l->ndevs = n;
	return FALCON_OK;
}

falcon_err_t falcon_proto_err_from_name(const char *name)
{
	int e;

	for (e = 0; name != NULL && e < FALCON_ERR_MAX; e++)
		if (strcmp(name, falcon_err_name((falcon_err_t)e)) == 0)
			return (falcon_err_t)e;
	return FALCON_ERR_PROTOCOL;
}

unsigned falcon_proto_http_status(falcon_err_t err)
{
	switch (err) {
	case FALCON_OK: return 200;
	case FALCON_ERR_INVAL:
	case FALCON_ERR_PARSE: return 400;
	case FALCON_ERR_AUTH: return 401;
	case FALCON_ERR_PERM:
	case FALCON_ERR_POLICY: return 403;
	case FALCON_ERR_NOTFOUND: return 404;
	case FALCON_ERR_CONFLICT:
	case FALCON_ERR_NORESOURCE:
	case FALCON_ERR_QUARANTINED: return 409;
	case FALCON_ERR_TIMEOUT: return 504;
	case FALCON_ERR_TRANSPORT:
	case FALCON_ERR_SERVER:
	case FALCON_ERR_PROTOCOL:
	case FALCON_ERR_CHASSIS: return 502;
	case FALCON_ERR_MUNGE: return 503;
	default: return 500;
	}
}
