/*
 * chassis_common.c - the layer below both Redfish backends (rf_fabric.c,
 * rf_composition.c) and the front end (chassis.c): budgeted requests,
 * collection members and link lists, ids, owners, the inventory array, and
 * the outcome of a change (rollback, detach refusal).  Declared in
 * lib/chassis/chassis_common.h.  Calls only lib/chassis/redfish.h and
 * lib/core: never the front end or a backend.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "chassis/chassis_common.h"
#include "core/log.h"
#include "core/util.h"

falcon_err_t falcon_be_get(struct falcon_be *be, const char *path,
			   struct json_object **out, char *etag, size_t etag_len)
{
	*out = NULL;
	if (be->budget <= 0)
		return falcon_err_set(FALCON_ERR_PROTOCOL,
				      "GET %s: more than %ld requests in one operation: the "
				      "service's resources do not end", path, be->max_fetches);
	be->budget--;
	return be->get(be->ctx, path, out, etag, etag_len);
}

/* Take one request of be's budget for a change; FALCON_ERR_PROTOCOL when spent. */
static falcon_err_t spend(struct falcon_be *be, const char *method, const char *path)
{
	if (be->budget <= 0)
		return falcon_err_set(FALCON_ERR_PROTOCOL,
				      "%s %s: more than %ld requests in one operation",
				      method, path, be->max_fetches);
	be->budget--;
	return FALCON_OK;
}

falcon_err_t falcon_be_send(struct falcon_be *be, const char *method, const char *path,
			    struct json_object *body, const char *if_match)
{
	falcon_err_t rv;

	if (be->send == NULL)
		return falcon_err_set(FALCON_ERR_UNSUPPORTED, "%s %s: this client is read-only",
				      method, path);
	rv = spend(be, method, path);
	if (rv != FALCON_OK)
		return rv;
	return be->send(be->ctx, method, path, body, if_match);
}

falcon_err_t falcon_be_send_resp(struct falcon_be *be, const char *method, const char *path,
				 struct json_object *body, const char *if_match,
				 struct json_object **out, char *etag, size_t etag_len)
{
	falcon_err_t rv;

	*out = NULL;
	if (etag != NULL && etag_len > 0)
		etag[0] = '\0';
	if (be->send_resp == NULL)
		return falcon_be_send(be, method, path, body, if_match);
	rv = spend(be, method, path);
	if (rv != FALCON_OK)
		return rv;
	return be->send_resp(be->ctx, method, path, body, if_match, out, etag, etag_len);
}

const struct falcon_be_desc *falcon_be_desc_use(struct falcon_be *be, const char *path)
{
	size_t i;

	if (be->desc_max_age_ms <= 0)
		return NULL;
	for (i = 0; i < be->ndescs; i++) {
		if (!falcon_rf_path_eq(be->descs[i].path, path))
			continue;
		if (falcon_now_ms() - be->descs[i].read_ms > be->desc_max_age_ms &&
		    be->desc_refresh_left > 0) {
			be->desc_refresh_left--;
			return NULL;
		}
		return &be->descs[i];
	}
	return NULL;
}

falcon_err_t falcon_be_desc_put(struct falcon_be *be, const char *path, bool host,
				const struct falcon_device *dev)
{
	struct falcon_be_desc *d = NULL, *grown;
	size_t i;

	if (be->desc_max_age_ms <= 0)
		return FALCON_OK;
	for (i = 0; i < be->ndescs && d == NULL; i++)
		if (falcon_rf_path_eq(be->descs[i].path, path))
			d = &be->descs[i];
	if (d == NULL) {
		if (strlen(path) >= sizeof(d->path))
			return FALCON_OK; /* not kept: read every time */
		grown = realloc(be->descs, (be->ndescs + 1) * sizeof(*grown));
		if (grown == NULL)
			return falcon_err_set(FALCON_ERR_NOMEM, "%s: description", path);
		be->descs = grown;
		d = &be->descs[be->ndescs++];
	}
	memset(d, 0, sizeof(*d));
	falcon_strlcpy(d->path, path, sizeof(d->path));
	d->host = host;
	d->read_ms = falcon_now_ms();
	if (dev != NULL && !host) {
		d->dev = *dev;
		d->dev.owner[0] = '\0';
	}
	be->desc_changed = true;
	return FALCON_OK;
}

/* Drop entry i (order not kept). */
static void desc_drop(struct falcon_be *be, size_t i)
{
	be->descs[i] = be->descs[--be->ndescs];
	be->desc_changed = true;
}

void falcon_be_desc_prune(struct falcon_be *be, const char *const *paths, size_t n)
{
	size_t i = 0, j;

	while (i < be->ndescs) {
		for (j = 0; j < n; j++)
			if (falcon_rf_path_eq(be->descs[i].path, paths[j]))
				break;
		if (j == n)
			desc_drop(be, i);
		else
			i++;
	}
}

void falcon_be_desc_forget(struct falcon_be *be, const char *dev_id)
{
	size_t i = 0;
	char seg[FALCON_NAME_LEN];

	while (i < be->ndescs) {
		if (dev_id == NULL ||
		    !strcmp(falcon_rf_last_segment(be->descs[i].path, seg, sizeof(seg)), dev_id) ||
		    (!be->descs[i].host && !strcmp(be->descs[i].dev.id, dev_id)))
			desc_drop(be, i);
		else
			i++;
	}
}

falcon_err_t falcon_be_get_member(struct falcon_be *be, const char *path,
				  struct json_object **out, const char **id)
{
	falcon_err_t rv;

	*id = NULL;
	rv = falcon_be_get(be, path, out, NULL, 0);
	if (rv != FALCON_OK)
		return rv;
	*id = falcon_rf_odata_id(*out, path);
	if (*id == NULL) {
		json_object_put(*out);
		*out = NULL;
		return FALCON_ERR_PROTOCOL;
	}
	return FALCON_OK;
}

static falcon_err_t path_array(struct json_object *arr, const char *what,
			       const char ***paths, size_t *n)
{
	const char **p = NULL;
	size_t i, j, k = 0, len;

	*paths = NULL;
	*n = 0;
	len = json_object_array_length(arr);
	if (len > FALCON_BE_MAX_MEMBERS)
		return falcon_err_set(FALCON_ERR_PROTOCOL, "%s: %zu members, at most %d accepted",
				      what, len, FALCON_BE_MAX_MEMBERS);
	if (len == 0)
		return FALCON_OK;
	p = calloc(len, sizeof(*p));
	if (p == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "%s", what);
	for (i = 0; i < len; i++) {
		struct json_object *m = json_object_array_get_idx(arr, i);
		const char *id;
		char w[FALCON_RF_PATH_LEN + 32];

		snprintf(w, sizeof(w), "%s[%zu]", what, i);
		if (m == NULL || !json_object_is_type(m, json_type_object)) {
			free(p);
			return falcon_err_set(FALCON_ERR_PROTOCOL, "%s: expected an object", w);
		}
		id = falcon_rf_odata_id(m, w);
		if (id == NULL) {
			free(p);
			return FALCON_ERR_PROTOCOL;
		}
		/* a resource listed twice is one resource */
		for (j = 0; j < k; j++)
			if (falcon_rf_path_eq(p[j], id))
				break;
		if (j == k)
			p[k++] = id;
		else
			falcon_debug("%s: %s listed twice", what, id);
	}
	*paths = p;
	*n = k;
	return FALCON_OK;
}

falcon_err_t falcon_be_members(struct json_object *obj, const char *what,
			       const char ***paths, size_t *n)
{
	struct json_object *arr = falcon_rf_arr(obj, "Members");

	*paths = NULL;
	*n = 0;
	if (arr == NULL)
		return falcon_err_set(FALCON_ERR_PROTOCOL, "%s: Members: expected an array", what);
	return path_array(arr, what, paths, n);
}

falcon_err_t falcon_be_get_collection(struct falcon_be *be, const char *path,
				      struct json_object **coll, const char ***paths,
				      size_t *n)
{
	falcon_err_t rv;

	*paths = NULL;
	*n = 0;
	rv = falcon_be_get(be, path, coll, NULL, 0);
	if (rv != FALCON_OK)
		return rv;
	rv = falcon_be_members(*coll, path, paths, n);
	if (rv != FALCON_OK) {
		json_object_put(*coll);
		*coll = NULL;
	}
	return rv;
}

falcon_err_t falcon_be_link_list(struct json_object *obj, const char *key, bool links,
				 const char *what, const char ***paths, size_t *n)
{
	struct json_object *parent = links ? falcon_rf_obj(obj, "Links") : obj;
	struct json_object *v;
	char w[FALCON_RF_PATH_LEN + 64];

	*paths = NULL;
	*n = 0;
	if (links && obj != NULL && json_object_object_get_ex(obj, "Links", &v) &&
	    parent == NULL)
		return falcon_err_set(FALCON_ERR_PROTOCOL, "%s: Links: expected an object", what);
	if (parent == NULL || !json_object_object_get_ex(parent, key, &v) || v == NULL)
		return FALCON_OK;
	snprintf(w, sizeof(w), "%s: %s%s", what, links ? "Links." : "", key);
	if (!json_object_is_type(v, json_type_array))
		return falcon_err_set(FALCON_ERR_PROTOCOL, "%s: expected an array", w);
	return path_array(v, w, paths, n);
}

bool falcon_be_id_ok(const char *id)
{
	size_t i;

	if (id == NULL || id[0] == '\0' || strlen(id) >= FALCON_NAME_LEN ||
	    !strcmp(id, ".") || !strcmp(id, ".."))
		return false;
	for (i = 0; id[i] != '\0'; i++)
		if (!isalnum((unsigned char)id[i]) && id[i] != '_' && id[i] != '-' &&
		    id[i] != '.')
			return false;
	return true;
}

void falcon_be_add_owner(struct falcon_device *dev, const char *owner)
{
	size_t have = strlen(dev->owner), add = strlen(owner);

	if (add == 0 || have + add + (have ? 1 : 0) >= sizeof(dev->owner))
		return;
	if (have)
		dev->owner[have++] = ',';
	memcpy(dev->owner + have, owner, add + 1);
}

falcon_err_t falcon_inventory_add(struct falcon_inventory *inv,
				  const struct falcon_device *dev)
{
	/* capacity is 16, then doubled whenever n reaches a power of two */
	if (inv->n == 0 || (inv->n >= 16 && (inv->n & (inv->n - 1)) == 0)) {
		size_t cap = inv->n == 0 ? 16 : inv->n * 2;
		struct falcon_device *p = realloc(inv->devs, cap * sizeof(*p));

		if (p == NULL)
			return falcon_err_set(FALCON_ERR_NOMEM, "inventory of %zu devices",
					      inv->n + 1);
		inv->devs = p;
	}
	inv->devs[inv->n++] = *dev;
	return FALCON_OK;
}

void falcon_inventory_free(struct falcon_inventory *inv)
{
	if (inv == NULL)
		return;
	free(inv->devs);
	inv->devs = NULL;
	inv->n = 0;
	inv->ncables = 0;
	inv->cabling_known = false;
}

/* After a failed change that was rolled back (rb is the rollback's
 * result, rb_what what it did): the detail is first_msg plus what the
 * rollback did; returns err. */
static falcon_err_t fail_with_rollback(falcon_err_t err, const char *first_msg,
				       falcon_err_t rb, const char *rb_what)
{
	char why[512];

	if (rb == FALCON_OK)
		return falcon_err_set(err, "%s; rolled back: %s", first_msg, rb_what);
	falcon_strlcpy(why, falcon_errmsg(), sizeof(why)); /* errmsg is overwritten */
	return falcon_err_set(err, "%s; rollback failed, state unknown: %s", first_msg, why);
}

bool falcon_be_err_definite(falcon_err_t rv)
{
	return rv == FALCON_ERR_INVAL || rv == FALCON_ERR_NOTFOUND ||
	       rv == FALCON_ERR_CONFLICT || rv == FALCON_ERR_AUTH ||
	       rv == FALCON_ERR_PERM || rv == FALCON_ERR_UNSUPPORTED ||
	       rv == FALCON_ERR_PRECONDITION;
}

falcon_err_t falcon_be_detach_result(falcon_err_t rv)
{
	if (rv != FALCON_ERR_CONFLICT)
		return rv;
	return falcon_err_prefix(FALCON_ERR_CHASSIS, "detach refused");
}

/* change_one - one device's request of a per-device change (how->one) on
 * the budget left, or on a fresh one when fresh; the device first read
 * back free of port when how->fresh. */
static falcon_err_t change_one(struct falcon_be *be, const char *port, const char *dev,
			       const struct falcon_be_change *how, bool add, bool fresh,
			       bool *changed)
{
	falcon_err_t rv;

	*changed = false;
	if (fresh)
		be->budget = be->max_fetches;
	if (add && how->fresh) {
		/* believed free: one already given to port is not taken over */
		rv = be->ops->verify(be, port, dev, false);
		if (rv == FALCON_ERR_CHASSIS)
			return falcon_err_set(FALCON_ERR_CONFLICT, "%s is already given to %s by "
					      "someone else, not taken over", dev, port);
		if (rv != FALCON_OK)
			return rv;
		be->budget = be->max_fetches;
	}
	return how->one(be, port, dev, add, changed);
}

/* undo - take devs[n] away again (the rollback: one request, or one per
 * device from the last); *changed: the service accepted a change.  The
 * first error is returned with its detail. */
static falcon_err_t undo(struct falcon_be *be, const char *port, const char **devs, size_t n,
			 const struct falcon_be_change *how, bool *changed)
{
	char first[512] = "";
	falcon_err_t rv = FALCON_OK, e;
	bool c;

	be->budget = be->max_fetches;
	if (how->set != NULL)
		return how->set(be, port, devs, n, false, changed);
	*changed = false;
	while (n-- > 0) {
		e = change_one(be, port, devs[n], how, false, true, &c);
		*changed |= c;
		if (e != FALCON_OK && rv == FALCON_OK) {
			rv = e;
			falcon_strlcpy(first, falcon_errmsg(), sizeof(first));
		}
	}
	return rv == FALCON_OK ? rv : falcon_err_set(rv, "%s", first);
}

falcon_err_t falcon_be_attach_with_rollback(struct falcon_be *be, const char *port,
					    const char **devs, size_t n,
					    const struct falcon_be_change *how,
					    const char *undone, const char *absent)
{
	char first[1024];
	size_t sent = 0, i;
	bool changed = false;
	falcon_err_t rv, rb;

	if (how->set != NULL) {
		rv = how->set(be, port, devs, n, true, &changed);
		sent = falcon_be_err_definite(rv) ? 0 : n; /* one request: all or none */
	} else {
		for (i = 0, rv = FALCON_OK; i < n && rv == FALCON_OK; i++) {
			rv = change_one(be, port, devs[i], how, true, how->fresh || i > 0,
					&changed);
			/* a request that failed with no definite answer may have
			 * taken effect */
			if (rv == FALCON_OK || !falcon_be_err_definite(rv))
				sent = i + 1;
		}
	}
	if (rv == FALCON_OK || sent == 0)
		return rv;
	/* what this call may have attached is taken away again, so that an
	 * error always means "none of them attached by this call" */
	falcon_strlcpy(first, falcon_errmsg(), sizeof(first));
	rb = undo(be, port, devs, sent, how, &changed);
	return fail_with_rollback(rv, first, rb, changed ? undone : absent);
}

falcon_err_t falcon_be_detach(struct falcon_be *be, const char *port, const char *dev,
			      falcon_be_change_fn change)
{
	bool changed;

	return falcon_be_detach_result(change(be, port, dev, false, &changed));
}

falcon_err_t falcon_be_detach_each(struct falcon_be *be, const char *port, const char **devs,
				   size_t n, falcon_be_change_fn change)
{
	falcon_err_t rv = FALCON_OK, e;
	char first[1024] = "";
	size_t i;

	for (i = 0; i < n; i++) {
		be->budget = be->max_fetches;
		e = falcon_be_detach(be, port, devs[i], change);
		if (e != FALCON_OK && rv == FALCON_OK) {
			rv = e;
			falcon_strlcpy(first, falcon_errmsg(), sizeof(first));
		}
	}
	return rv == FALCON_OK ? rv : falcon_err_set(rv, "%s", first);
}
