/*
 * chassis.c - the chassis client API (lib/chassis/chassis.h): the front end
 * above the two Redfish backends.  It picks a backend, gives each public
 * operation its budget of fetches and calls the backend only through its
 * vtable (struct falcon_be_ops, lib/chassis/chassis_backend.h); what both
 * backends share lies below them in chassis_common.c and
 * chassis_describe.c, which never call up.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "chassis/chassis.h"
#include "chassis/chassis_backend.h"
#include "chassis/chassis_common.h"
#include "chassis/redfish.h"
#include "core/log.h"
#include "core/util.h"

struct falcon_chassis {
	struct falcon_rf *rf; /* NULL when opened over explicit callbacks */
	struct falcon_be be;
	char name[FALCON_NAME_LEN];
};

/* ------------------------------------------------------------------ */
/* construction                                                         */
/* ------------------------------------------------------------------ */

static const struct falcon_be_ops *backend_ops(falcon_backend_t b)
{
	switch (b) {
	case FALCON_BACKEND_FABRIC: return &falcon_be_fabric;
	case FALCON_BACKEND_COMPOSITION: return &falcon_be_composition;
	case FALCON_BACKEND_AUTO: break; /* resolved before be_init() */
	}
	return NULL;
}

static falcon_err_t be_init(struct falcon_be *be, falcon_backend_t backend,
			    const char *fabric, int retries, long max_fetches)
{
	be->ops = backend_ops(backend);
	if (be->ops == NULL)
		return falcon_err_set(FALCON_ERR_INVAL, "unknown chassis backend %d", (int)backend);
	be->retries = retries == 0 ? FALCON_BE_RETRIES : retries < 0 ? 0 : retries;
	be->max_fetches = max_fetches > 0 ? max_fetches : FALCON_BE_MAX_FETCHES;
	be->budget = be->max_fetches;
	if (fabric != NULL && *fabric != '\0') {
		char tmp[FALCON_RF_PATH_LEN];
		size_t n;

		if (!falcon_rf_path_ok(fabric) || strchr(fabric, '#') != NULL ||
		    strlen(fabric) + sizeof("/Endpoints") > FALCON_RF_PATH_LEN)
			return falcon_err_set(FALCON_ERR_INVAL,
					      "fabric '%s': expected a path such as "
					      "/redfish/v1/Fabrics/PCIe", fabric);
		falcon_strlcpy(tmp, fabric, sizeof(tmp));
		n = strlen(tmp);
		while (n > 0 && tmp[n - 1] == '/')
			tmp[--n] = '\0';
		falcon_strlcpy(be->fabric, tmp, sizeof(be->fabric));
		/* the standard layout: no discovery requests for attach/detach */
		snprintf(be->zones, sizeof(be->zones), "%s/Zones", tmp);
		snprintf(be->endpoints, sizeof(be->endpoints), "%s/Endpoints", tmp);
	}
	return FALCON_OK;
}

/* Does the fabric at path have a Zones collection?  A fabric that cannot be
 * read counts as none (the service root may list what it does not serve). */
static bool fabric_has_zones(struct falcon_be *be, const char *path)
{
	struct json_object *f = NULL;
	bool zones;

	if (falcon_be_get(be, path, &f, NULL, 0) != FALCON_OK)
		return false;
	zones = falcon_rf_link(f, "Zones") != NULL;
	json_object_put(f);
	return zones;
}

/*
 * pick_backend - read the service root (DSP0266 1.20 sec. 7: the root links
 * the services it offers) over be->get and choose: a Fabrics member with
 * Zones (H3's model, DMTF's CXL mockup) is redfish-fabric, else a
 * CompositionService is redfish-composition; the choice and why are logged.
 * FALCON_ERR_UNSUPPORTED when the root has neither; transport errors of
 * the root GET as they come.
 */
static falcon_err_t pick_backend(struct falcon_be *be, const char *name, falcon_backend_t *out)
{
	struct json_object *root = NULL, *coll = NULL;
	const char **paths = NULL, *fabrics, *comp;
	char why[FALCON_RF_PATH_LEN + 64] = "";
	falcon_err_t rv;
	size_t i, n = 0;

	be->budget = FALCON_BE_MAX_FETCHES;
	if ((rv = falcon_be_get(be, FALCON_RF_ROOT, &root, NULL, 0)) != FALCON_OK)
		return rv;
	fabrics = falcon_rf_link(root, "Fabrics");
	comp = falcon_rf_link(root, "CompositionService");
	if (fabrics != NULL &&
	    falcon_be_get_collection(be, fabrics, &coll, &paths, &n) == FALCON_OK)
		for (i = 0; i < n && i < 16; i++)
			if (fabric_has_zones(be, paths[i])) {
				snprintf(why, sizeof(why), "fabric %s has Zones", paths[i]);
				*out = FALCON_BACKEND_FABRIC;
				break;
			}
	if (why[0] == '\0' && comp != NULL) {
		snprintf(why, sizeof(why), "the service root has a CompositionService%s",
			 fabrics != NULL ? " and no fabric with Zones" : " and no Fabrics");
		*out = FALCON_BACKEND_COMPOSITION;
	}
	free(paths);
	json_object_put(coll);
	json_object_put(root);
	if (why[0] == '\0')
		return falcon_err_set(FALCON_ERR_UNSUPPORTED,
				      "chassis %s: the service root %s has neither a fabric with "
				      "Zones nor a CompositionService: no backend fits", name,
				      FALCON_RF_ROOT);
	falcon_info("chassis %s: backend %s (%s)", name, falcon_backend_str(*out), why);
	return FALCON_OK;
}

/* When backend is auto: a given fabric path means redfish-fabric, else
 * the service root decides (be's get and ctx set). */
static falcon_err_t resolve_backend(struct falcon_be *be, const char *name,
				    const char *fabric, falcon_backend_t *backend)
{
	if (*backend != FALCON_BACKEND_AUTO)
		return FALCON_OK;
	if (fabric != NULL && *fabric != '\0') {
		*backend = FALCON_BACKEND_FABRIC;
		return FALCON_OK;
	}
	return pick_backend(be, name, backend);
}

falcon_err_t falcon_chassis_open_io(falcon_backend_t backend, falcon_rf_get_fn get,
				    falcon_rf_send_fn send, void *ctx,
				    const char *fabric, long max_fetches,
				    struct falcon_chassis **out)
{
	struct falcon_chassis *ch;
	falcon_err_t rv;

	*out = NULL;
	ch = calloc(1, sizeof(*ch));
	if (ch == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "falcon_chassis_open_io");
	ch->be.get = get;
	ch->be.send = send;
	ch->be.ctx = ctx;
	rv = resolve_backend(&ch->be, "(io)", fabric, &backend);
	if (rv == FALCON_OK)
		rv = be_init(&ch->be, backend, fabric, 0, max_fetches);
	if (rv != FALCON_OK) {
		free(ch);
		return rv;
	}
	*out = ch;
	return FALCON_OK;
}

falcon_err_t falcon_chassis_open_opts(const struct falcon_chassis_opts *opts,
				      struct falcon_chassis **out)
{
	struct falcon_rf_opts ro = { 0 };
	struct falcon_chassis *ch = NULL;
	falcon_backend_t backend;
	falcon_err_t rv;

	*out = NULL;
	if (opts == NULL || opts->url == NULL) {
		rv = falcon_err_set(FALCON_ERR_INVAL, "chassis: no URL given");
		goto fail;
	}
	ch = calloc(1, sizeof(*ch));
	if (ch == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "falcon_chassis_open_opts");
		goto fail;
	}
	falcon_strlcpy(ch->name, opts->name != NULL ? opts->name : opts->url,
		       sizeof(ch->name));
	if (opts->name != NULL)
		falcon_strlcpy(ch->be.chassis, opts->name, sizeof(ch->be.chassis));
	backend = opts->backend;
	rv = be_init(&ch->be, backend == FALCON_BACKEND_AUTO ? FALCON_BACKEND_FABRIC : backend,
		     opts->fabric, opts->retries, 0);
	if (rv != FALCON_OK)
		goto fail;
	if (opts->timeout_s < 0 || opts->timeout_s > 3600 ||
	    opts->change_timeout_s < 0 || opts->change_timeout_s > 3600 ||
	    opts->task_timeout_s < 0 || opts->task_timeout_s > 3600 ||
	    opts->connect_timeout_s < 0 || opts->connect_timeout_s > 3600) {
		rv = falcon_err_set(FALCON_ERR_INVAL, "chassis %s: timeouts must be in [0, 3600] s",
				    ch->name);
		goto fail;
	}
	ro.url = opts->url;
	ro.credentials_file = opts->credentials_file;
	ro.ca_file = opts->ca_file;
	ro.insecure = opts->insecure;
	ro.basic_auth = opts->basic_auth;
	ro.name = ch->name;
	ro.timeout_ms = opts->timeout_s * 1000;
	ro.change_timeout_ms = opts->change_timeout_s * 1000;
	ro.connect_timeout_ms = opts->connect_timeout_s * 1000;
	ro.task_timeout_ms = opts->task_timeout_s * 1000;
	rv = falcon_rf_open(&ro, &ch->rf);
	if (rv != FALCON_OK)
		goto fail;
	ch->be.get = falcon_rf_get;
	ch->be.send = falcon_rf_send;
	ch->be.send_resp = falcon_rf_send_resp;
	ch->be.ctx = ch->rf;
	if (backend == FALCON_BACKEND_AUTO) {
		rv = resolve_backend(&ch->be, ch->name, opts->fabric, &backend);
		if (rv == FALCON_OK)
			rv = be_init(&ch->be, backend, opts->fabric, opts->retries, 0);
		if (rv != FALCON_OK)
			goto fail;
	}
	*out = ch;
	ch = NULL;
	rv = FALCON_OK;
fail:
	falcon_chassis_close(ch);
	return rv;
}

falcon_err_t falcon_chassis_open(const struct falcon_chassis_conf *cc,
				 struct falcon_chassis **out)
{
	struct falcon_chassis_opts o = { 0 };

	o.name = cc->name[0] != '\0' ? cc->name : NULL;
	o.url = cc->url;
	o.backend = cc->backend;
	o.credentials_file = cc->credentials_file;
	o.ca_file = cc->ca_file;
	o.insecure = cc->insecure;
	o.timeout_s = cc->timeout_s;
	o.change_timeout_s = cc->change_timeout_s;
	return falcon_chassis_open_opts(&o, out);
}

void falcon_chassis_close(struct falcon_chassis *ch)
{
	if (ch == NULL)
		return;
	if (ch->be.ops != NULL && ch->be.ops->close != NULL)
		ch->be.ops->close(&ch->be);
	falcon_rf_close(ch->rf);
	free(ch->be.descs);
	free(ch);
}

/* events_name - the chassis' name for event messages and records. */
static const char *events_name(const struct falcon_chassis *ch)
{
	return ch->be.chassis[0] ? ch->be.chassis : ch->name;
}

falcon_err_t falcon_chassis_listen(struct falcon_chassis *ch, struct falcon_chassis_listen *l)
{
	if (ch->rf == NULL)
		return falcon_err_set(FALCON_ERR_UNSUPPORTED,
				      "chassis %s: events need an HTTP client", ch->name);
	return falcon_events_listen(ch->rf, events_name(ch), l);
}

falcon_err_t falcon_chassis_events_offer(struct falcon_chassis *ch, bool *sse, bool *subs)
{
	if (ch->rf == NULL)
		return falcon_err_set(FALCON_ERR_UNSUPPORTED,
				      "chassis %s: events need an HTTP client", ch->name);
	return falcon_events_offer(ch->rf, events_name(ch), sse, subs);
}

falcon_err_t falcon_chassis_subscribe(struct falcon_chassis *ch, struct falcon_chassis_sub *s)
{
	if (ch->rf == NULL)
		return falcon_err_set(FALCON_ERR_UNSUPPORTED,
				      "chassis %s: events need an HTTP client", ch->name);
	return falcon_events_subscribe(ch->rf, events_name(ch), s);
}

falcon_err_t falcon_chassis_subscription_check(struct falcon_chassis *ch,
					       const struct falcon_chassis_sub *s)
{
	if (ch->rf == NULL)
		return falcon_err_set(FALCON_ERR_UNSUPPORTED,
				      "chassis %s: events need an HTTP client", ch->name);
	return falcon_events_sub_check(ch->rf, events_name(ch), s);
}

falcon_err_t falcon_chassis_unsubscribe(struct falcon_chassis *ch,
					const struct falcon_chassis_sub *s)
{
	if (ch->rf == NULL)
		return falcon_err_set(FALCON_ERR_UNSUPPORTED,
				      "chassis %s: events need an HTTP client", ch->name);
	return falcon_events_unsubscribe(ch->rf, events_name(ch), s);
}

int falcon_chassis_events_parse(const char *chassis, const char *data, size_t len,
				void (*fn)(void *ctx, const struct falcon_chassis_event *ev),
				void *ctx)
{
	return falcon_rf_events_parse(data, len, chassis, "", fn, ctx);
}

void falcon_chassis_set_deadline(struct falcon_chassis *ch, long long deadline_ms)
{
	if (ch->rf != NULL)
		falcon_rf_set_deadline(ch->rf, deadline_ms);
}

const char *falcon_chassis_backend_name(const struct falcon_chassis *ch)
{
	return ch->be.ops->name;
}

/* ------------------------------------------------------------------ */
/* operations                                                           */
/* ------------------------------------------------------------------ */

/* Check an operation's ids and give it its budget of fetches. */
static falcon_err_t begin(struct falcon_chassis *ch, const char *op, const char *port,
			  const char *dev)
{
	if (!falcon_be_id_ok(port))
		return falcon_err_set(FALCON_ERR_INVAL, "%s: host port '%s': expected an id "
				      "such as H1", op, port ? port : "(null)");
	if (!falcon_be_id_ok(dev))
		return falcon_err_set(FALCON_ERR_INVAL, "%s: device '%s': expected an id such "
				      "as drawer1_slot3", op, dev ? dev : "(null)");
	ch->be.budget = ch->be.max_fetches;
	return FALCON_OK;
}

falcon_err_t falcon_chassis_inventory(struct falcon_chassis *ch,
				      struct falcon_inventory *inv)
{
	struct falcon_inventory tmp = { 0 };
	falcon_err_t rv;

	inv->n = 0;
	inv->devs = NULL;
	ch->be.budget = ch->be.max_fetches;
	rv = ch->be.ops->inventory(&ch->be, &tmp);
	if (rv != FALCON_OK) {
		falcon_inventory_free(&tmp);
		return rv;
	}
	*inv = tmp;
	return FALCON_OK;
}

falcon_err_t falcon_chassis_attach(struct falcon_chassis *ch, const char *port,
				   const char *device_id)
{
	falcon_err_t rv = begin(ch, "attach", port, device_id);

	return rv != FALCON_OK ? rv : ch->be.ops->attach(&ch->be, port, device_id);
}

falcon_err_t falcon_chassis_detach(struct falcon_chassis *ch, const char *port,
				   const char *device_id)
{
	falcon_err_t rv = begin(ch, "detach", port, device_id);

	return rv != FALCON_OK ? rv : ch->be.ops->detach(&ch->be, port, device_id);
}

/* begin_set - begin() of each of devs[n] (the budget given once). */
static falcon_err_t begin_set(struct falcon_chassis *ch, const char *op, const char *port,
			      const char **devs, size_t n)
{
	falcon_err_t rv = FALCON_OK;
	size_t i;

	if (n == 0 || n > FALCON_CHASSIS_SET_MAX || devs == NULL)
		return falcon_err_set(FALCON_ERR_INVAL, "%s: %zu devices: expected 1 to %d", op, n,
				      FALCON_CHASSIS_SET_MAX);
	for (i = 0; i < n && rv == FALCON_OK; i++)
		rv = begin(ch, op, port, devs[i]);
	return rv;
}

typedef falcon_err_t (*set_fn)(struct falcon_be *be, const char *port, const char **devs,
			       size_t n);

/* change_set - op ("attach", "detach") of devs[n] to or from port by the
 * backend's set operation fn, after begin_set (the same shape both ways:
 * the backend does a set in one request or one per device; attach all or
 * nothing through falcon_be_attach_with_rollback, detach each tried
 * through falcon_be_detach_each for redfish-composition). */
static falcon_err_t change_set(struct falcon_chassis *ch, const char *op, set_fn fn,
			       const char *port, const char **devs, size_t n)
{
	falcon_err_t rv = begin_set(ch, op, port, devs, n);

	if (rv != FALCON_OK)
		return rv;
	if (fn == NULL)
		return falcon_err_set(FALCON_ERR_UNSUPPORTED, "%s: backend %s takes no set", op,
				      ch->be.ops->name);
	return fn(&ch->be, port, devs, n);
}

falcon_err_t falcon_chassis_attach_set(struct falcon_chassis *ch, const char *port,
				       const char **devs, size_t n)
{
	return change_set(ch, "attach", ch->be.ops->attach_set, port, devs, n);
}

falcon_err_t falcon_chassis_detach_set(struct falcon_chassis *ch, const char *port,
				       const char **devs, size_t n)
{
	return change_set(ch, "detach", ch->be.ops->detach_set, port, devs, n);
}

falcon_err_t falcon_chassis_verify(struct falcon_chassis *ch, const char *port,
				   const char *device_id, bool attached)
{
	falcon_err_t rv = begin(ch, "verify", port, device_id);

	return rv != FALCON_OK ? rv : ch->be.ops->verify(&ch->be, port, device_id, attached);
}

static int add_str(struct json_object *o, const char *key, const char *v, bool null_if_empty)
{
	struct json_object *s;

	if (v[0] == '\0' && null_if_empty)
		return json_object_object_add(o, key, NULL);
	s = json_object_new_string(v);
	if (s == NULL)
		return -1;
	return json_object_object_add(o, key, s);
}

struct json_object *falcon_device_to_json(const struct falcon_device *d)
{
	struct json_object *o = json_object_new_object();

	if (o == NULL)
		return NULL;
	if (add_str(o, "id", d->id, false) ||
	    add_str(o, "odata_id", d->odata_id, false) ||
	    add_str(o, "chassis", d->chassis, true) ||
	    json_object_object_add(o, "drawer", d->drawer ? json_object_new_int(d->drawer) : NULL) ||
	    json_object_object_add(o, "slot", d->slot ? json_object_new_int(d->slot) : NULL) ||
	    add_str(o, "type", falcon_dev_type_str(d->type), false) ||
	    add_str(o, "vendor_id", d->vendor_id, true) ||
	    add_str(o, "device_id", d->device_id, true) ||
	    add_str(o, "serial", d->serial, true) ||
	    add_str(o, "model", d->model, true) ||
	    add_str(o, "manufacturer", d->manufacturer, true) ||
	    add_str(o, "owner", d->owner, true) ||
	    add_str(o, "state", d->state, true) ||
	    add_str(o, "health", d->health, true) ||
	    (d->composition[0] != '\0' &&
	     add_str(o, "composition_state", d->composition, false))) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* ------------------------------------------------------------------ */
/* descriptions kept between inventories                               */
/* ------------------------------------------------------------------ */

void falcon_chassis_keep_descriptions(struct falcon_chassis *ch, int max_age_s)
{
	ch->be.desc_max_age_ms = max_age_s > 0 ? max_age_s * 1000LL : 0;
	if (max_age_s <= 0)
		falcon_be_desc_forget(&ch->be, NULL);
}

void falcon_chassis_forget(struct falcon_chassis *ch, const char *device_id)
{
	falcon_be_desc_forget(&ch->be, device_id);
}

bool falcon_chassis_descriptions_changed(const struct falcon_chassis *ch)
{
	return ch->be.desc_changed;
}

struct json_object *falcon_chassis_descriptions_save(struct falcon_chassis *ch, bool *changed)
{
	struct json_object *o = json_object_new_object(), *arr = json_object_new_array();
	long long now_ms = falcon_now_ms();
	time_t now = time(NULL);
	size_t i;

	if (changed != NULL)
		*changed = ch->be.desc_changed;
	ch->be.desc_changed = false;
	if (o == NULL || arr == NULL || json_object_object_add(o, "descriptions", arr)) {
		json_object_put(arr);
		json_object_put(o);
		return NULL;
	}
	for (i = 0; i < ch->be.ndescs; i++) {
		const struct falcon_be_desc *d = &ch->be.descs[i];
		struct json_object *e = json_object_new_object();

		if (e == NULL || json_object_array_add(arr, e)) {
			json_object_put(e);
			json_object_put(o);
			return NULL;
		}
		json_object_object_add(e, "path", json_object_new_string(d->path));
		json_object_object_add(e, "host", json_object_new_boolean(d->host));
		json_object_object_add(e, "read", json_object_new_int64(
			(int64_t)now - (now_ms - d->read_ms) / 1000));
		if (!d->host)
			json_object_object_add(e, "device", falcon_device_to_json(&d->dev));
	}
	return o;
}

falcon_err_t falcon_chassis_descriptions_inventory(const struct falcon_chassis *ch,
						   struct falcon_inventory *inv)
{
	size_t i, n = 0;

	memset(inv, 0, sizeof(*inv));
	for (i = 0; i < ch->be.ndescs; i++)
		n += !ch->be.descs[i].host;
	if (n == 0)
		return FALCON_OK;
	inv->devs = calloc(n, sizeof(*inv->devs));
	if (inv->devs == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "descriptions: %zu devices", n);
	for (i = 0; i < ch->be.ndescs; i++)
		if (!ch->be.descs[i].host) {
			inv->devs[inv->n] = ch->be.descs[i].dev;
			inv->devs[inv->n++].owner[0] = '\0';
		}
	return FALCON_OK;
}

/* A string member key of o into dst[n]: absent or null = "" when optional. */
static falcon_err_t take_field(struct json_object *o, const char *key, char *dst, size_t n,
			       bool optional, const char *what)
{
	struct json_object *v = NULL;

	dst[0] = '\0';
	if (!json_object_object_get_ex(o, key, &v) || v == NULL) {
		if (optional)
			return FALCON_OK;
		return falcon_err_set(FALCON_ERR_PARSE, "%s.%s: expected a string", what, key);
	}
	if (!json_object_is_type(v, json_type_string) ||
	    (size_t)json_object_get_string_len(v) >= n)
		return falcon_err_set(FALCON_ERR_PARSE, "%s.%s: expected a string of at most "
				      "%zu characters", what, key, n - 1);
	falcon_strlcpy(dst, json_object_get_string(v), n);
	return FALCON_OK;
}

/* An integer member key of o in 0..max (absent or null = 0). */
static falcon_err_t take_int(struct json_object *o, const char *key, int max, int *out,
			     const char *what)
{
	struct json_object *v = NULL;
	int64_t x;

	*out = 0;
	if (!json_object_object_get_ex(o, key, &v) || v == NULL)
		return FALCON_OK;
	x = json_object_get_int64(v);
	if (!json_object_is_type(v, json_type_int) || x < 0 || x > max)
		return falcon_err_set(FALCON_ERR_PARSE, "%s.%s: expected an integer 0-%d",
				      what, key, max);
	*out = (int)x;
	return FALCON_OK;
}

/* The device falcon_device_to_json() wrote (owner ignored) into dev. */
static falcon_err_t device_from_json(struct json_object *o, struct falcon_device *dev,
				     const char *what)
{
	char type[16];
	falcon_err_t rv;

	memset(dev, 0, sizeof(*dev));
	if (!json_object_is_type(o, json_type_object))
		return falcon_err_set(FALCON_ERR_PARSE, "%s: expected an object", what);
	if ((rv = take_field(o, "id", dev->id, sizeof(dev->id), false, what)) ||
	    (rv = take_field(o, "odata_id", dev->odata_id, sizeof(dev->odata_id), false, what)) ||
	    (rv = take_field(o, "chassis", dev->chassis, sizeof(dev->chassis), true, what)) ||
	    (rv = take_int(o, "drawer", 255, &dev->drawer, what)) ||
	    (rv = take_int(o, "slot", 255, &dev->slot, what)) ||
	    (rv = take_field(o, "type", type, sizeof(type), false, what)) ||
	    (rv = take_field(o, "vendor_id", dev->vendor_id, sizeof(dev->vendor_id), true, what)) ||
	    (rv = take_field(o, "device_id", dev->device_id, sizeof(dev->device_id), true, what)) ||
	    (rv = take_field(o, "serial", dev->serial, sizeof(dev->serial), true, what)) ||
	    (rv = take_field(o, "model", dev->model, sizeof(dev->model), true, what)) ||
	    (rv = take_field(o, "manufacturer", dev->manufacturer, sizeof(dev->manufacturer),
			     true, what)) ||
	    (rv = take_field(o, "state", dev->state, sizeof(dev->state), true, what)) ||
	    (rv = take_field(o, "health", dev->health, sizeof(dev->health), true, what)) ||
	    (rv = take_field(o, "composition_state", dev->composition, sizeof(dev->composition),
			     true, what)))
		return rv;
	if (!falcon_be_id_ok(dev->id))
		return falcon_err_set(FALCON_ERR_PARSE, "%s.id: expected an id such as "
				      "drawer1_slot3", what);
	if (falcon_dev_type_from_str(type, &dev->type) != FALCON_OK)
		return falcon_err_set(FALCON_ERR_PARSE, "%s.type: expected GPU, NVMe, NIC or "
				      "other", what);
	return FALCON_OK;
}

/* One entry of "descriptions" into d (path, host, read, device). */
static falcon_err_t desc_from_json(struct json_object *e, struct falcon_be_desc *d,
				   long long now_ms, time_t now, const char *what)
{
	struct json_object *v = NULL;
	char w[FALCON_RF_PATH_LEN + 16];
	int64_t read;
	falcon_err_t rv;

	memset(d, 0, sizeof(*d));
	if (!json_object_is_type(e, json_type_object))
		return falcon_err_set(FALCON_ERR_PARSE, "%s: expected an object", what);
	rv = take_field(e, "path", d->path, sizeof(d->path), false, what);
	if (rv != FALCON_OK)
		return rv;
	if (!falcon_rf_path_ok(d->path))
		return falcon_err_set(FALCON_ERR_PARSE, "%s.path: expected a /redfish/v1 path",
				      what);
	if (json_object_object_get_ex(e, "host", &v) && v != NULL) {
		if (!json_object_is_type(v, json_type_boolean))
			return falcon_err_set(FALCON_ERR_PARSE, "%s.host: expected true or false",
					      what);
		d->host = json_object_get_boolean(v);
	}
	if (!json_object_object_get_ex(e, "read", &v) || !json_object_is_type(v, json_type_int))
		return falcon_err_set(FALCON_ERR_PARSE, "%s.read: expected a UNIX time (s)", what);
	read = json_object_get_int64(v);
	/* a time ahead of ours (clock stepped back) counts as read now */
	d->read_ms = now_ms - (read < (int64_t)now ? ((int64_t)now - read) * 1000LL : 0);
	if (d->host)
		return FALCON_OK;
	if ((size_t)snprintf(w, sizeof(w), "%s.device", what) >= sizeof(w))
		w[sizeof(w) - 1] = '\0';
	if (!json_object_object_get_ex(e, "device", &v))
		return falcon_err_set(FALCON_ERR_PARSE, "%s: expected an object", w);
	return device_from_json(v, &d->dev, w);
}

falcon_err_t falcon_chassis_descriptions_load(struct falcon_chassis *ch,
					      struct json_object *o, const char *what)
{
	struct json_object *arr = NULL;
	struct falcon_be_desc *ds;
	long long now_ms = falcon_now_ms();
	time_t now = time(NULL);
	size_t i, n;
	char w[FALCON_RF_PATH_LEN];
	falcon_err_t rv;

	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "descriptions", &arr) ||
	    !json_object_is_type(arr, json_type_array))
		return falcon_err_set(FALCON_ERR_PARSE, "%s: descriptions: expected an array",
				      what);
	n = json_object_array_length(arr);
	if (n > FALCON_BE_MAX_MEMBERS)
		return falcon_err_set(FALCON_ERR_PARSE, "%s: descriptions: %zu entries, at most "
				      "%d accepted", what, n, FALCON_BE_MAX_MEMBERS);
	ds = calloc(n ? n : 1, sizeof(*ds));
	if (ds == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "%s", what);
	for (i = 0; i < n; i++) {
		snprintf(w, sizeof(w), "%s: descriptions[%zu]", what, i);
		rv = desc_from_json(json_object_array_get_idx(arr, i), &ds[i], now_ms, now, w);
		if (rv != FALCON_OK) {
			free(ds);
			return rv;
		}
	}
	free(ch->be.descs);
	ch->be.descs = ds;
	ch->be.ndescs = n;
	ch->be.desc_changed = false;
	return FALCON_OK;
}
