/*
 * chassis.c - the chassis client API (lib/chassis/chassis.h) over the backend
 * interface (lib/chassis/chassis_backend.h), and the helpers both Redfish backends
 * share: budgeted fetching, collection members, describing a device from
 * the resources that Redfish links to it.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "chassis/chassis.h"
#include "chassis/chassis_backend.h"
#include "core/log.h"
#include "chassis/redfish.h"
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
	rv = be_init(&ch->be, backend, fabric, 0, max_fetches);
	if (rv != FALCON_OK) {
		free(ch);
		return rv;
	}
	ch->be.get = get;
	ch->be.send = send;
	ch->be.ctx = ctx;
	*out = ch;
	return FALCON_OK;
}

falcon_err_t falcon_chassis_open_opts(const struct falcon_chassis_opts *opts,
				      struct falcon_chassis **out)
{
	struct falcon_rf_opts ro = { 0 };
	struct falcon_chassis *ch = NULL;
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
	rv = be_init(&ch->be, opts->backend, opts->fabric, opts->retries, 0);
	if (rv != FALCON_OK)
		goto fail;
	if (opts->timeout_s < 0 || opts->timeout_s > 3600 ||
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
	ro.timeout_ms = opts->timeout_s * 1000;
	ro.connect_timeout_ms = opts->connect_timeout_s * 1000;
	rv = falcon_rf_open(&ro, &ch->rf);
	if (rv != FALCON_OK)
		goto fail;
	ch->be.get = falcon_rf_get;
	ch->be.send = falcon_rf_send;
	ch->be.send_resp = falcon_rf_send_resp;
	ch->be.ctx = ch->rf;
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
	return falcon_chassis_open_opts(&o, out);
}

void falcon_chassis_close(struct falcon_chassis *ch)
{
	if (ch == NULL)
		return;
	falcon_be_zcache_clear(&ch->be);
	falcon_rf_close(ch->rf);
	free(ch);
}

const char *falcon_chassis_backend_name(const struct falcon_chassis *ch)
{
	return ch->be.ops->name;
}

/* ------------------------------------------------------------------ */
/* operations                                                           */
/* ------------------------------------------------------------------ */

static falcon_err_t check_ids(const char *op, const char *port, const char *dev)
{
	if (!falcon_be_id_ok(port))
		return falcon_err_set(FALCON_ERR_INVAL, "%s: host port '%s': expected an id "
				      "such as H1", op, port ? port : "(null)");
	if (!falcon_be_id_ok(dev))
		return falcon_err_set(FALCON_ERR_INVAL, "%s: device '%s': expected an id such "
				      "as drawer1_slot3", op, dev ? dev : "(null)");
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

void falcon_inventory_free(struct falcon_inventory *inv)
{
	if (inv == NULL)
		return;
	free(inv->devs);
	inv->devs = NULL;
	inv->n = 0;
}

falcon_err_t falcon_chassis_attach(struct falcon_chassis *ch, const char *port,
				   const char *device_id)
{
	falcon_err_t rv = check_ids("attach", port, device_id);

	if (rv != FALCON_OK)
		return rv;
	ch->be.budget = ch->be.max_fetches;
	return ch->be.ops->attach(&ch->be, port, device_id);
}

falcon_err_t falcon_chassis_detach(struct falcon_chassis *ch, const char *port,
				   const char *device_id)
{
	falcon_err_t rv = check_ids("detach", port, device_id);

	if (rv != FALCON_OK)
		return rv;
	ch->be.budget = ch->be.max_fetches;
	return ch->be.ops->detach(&ch->be, port, device_id);
}

falcon_err_t falcon_chassis_verify(struct falcon_chassis *ch, const char *port,
				   const char *device_id, bool attached)
{
	falcon_err_t rv = check_ids("verify", port, device_id);

	if (rv != FALCON_OK)
		return rv;
	ch->be.budget = ch->be.max_fetches;
	return ch->be.ops->verify(&ch->be, port, device_id, attached);
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
/* helpers shared by the backends                                       */
/* ------------------------------------------------------------------ */

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

falcon_err_t falcon_be_send(struct falcon_be *be, const char *method, const char *path,
			    struct json_object *body, const char *if_match)
{
	if (be->send == NULL)
		return falcon_err_set(FALCON_ERR_UNSUPPORTED, "%s %s: this client is read-only",
				      method, path);
	if (be->budget <= 0)
		return falcon_err_set(FALCON_ERR_PROTOCOL,
				      "%s %s: more than %ld requests in one operation",
				      method, path, be->max_fetches);
	be->budget--;
	return be->send(be->ctx, method, path, body, if_match);
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

/* "drawer<D>_slot<S>" -> drawer, slot (bounded: D 1-99, S 1-99). */
static void parse_location(struct falcon_device *dev)
{
	char buf[FALCON_NAME_LEN];
	char *us;
	long d, s;

	if (strncmp(dev->id, "drawer", 6) != 0)
		return;
	falcon_strlcpy(buf, dev->id + 6, sizeof(buf));
	us = strstr(buf, "_slot");
	if (us == NULL)
		return;
	*us = '\0';
	if (falcon_strtol(buf, 10, 1, 99, &d) != FALCON_OK ||
	    falcon_strtol(us + 5, 10, 1, 99, &s) != FALCON_OK) {
		falcon_err_clear();
		return;
	}
	dev->drawer = (int)d;
	dev->slot = (int)s;
}

static void take_str(char *dst, size_t n, const char *v)
{
	if (dst[0] == '\0' && v != NULL && v[0] != '\0') {
		size_t i;

		falcon_strlcpy(dst, v, n);
		for (i = 0; dst[i] != '\0'; i++)
			if ((unsigned char)dst[i] < 0x20 || (unsigned char)dst[i] == 0x7f)
				dst[i] = '?';
	}
}

static void take_status(struct falcon_device *dev, struct json_object *obj)
{
	struct json_object *st = falcon_rf_obj(obj, "Status");

	take_str(dev->state, sizeof(dev->state), falcon_rf_str(st, "State"));
	take_str(dev->health, sizeof(dev->health), falcon_rf_str(st, "Health"));
}

/* The chassis id of a path under /redfish/v1/Chassis/<id>[/...]. */
static void take_chassis_from_path(struct falcon_device *dev, const char *path)
{
	static const char pre[] = FALCON_RF_ROOT "/Chassis/";
	char buf[FALCON_NAME_LEN];
	size_t n;

	if (dev->chassis[0] != '\0' || path == NULL ||
	    strncmp(path, pre, sizeof(pre) - 1) != 0)
		return;
	path += sizeof(pre) - 1;
	n = strcspn(path, "/#");
	if (n == 0 || n >= sizeof(buf))
		return;
	memcpy(buf, path, n);
	buf[n] = '\0';
	take_str(dev->chassis, sizeof(dev->chassis), buf);
}

/* Links.Chassis as an object or the first of an array. */
static void take_chassis_link(struct falcon_device *dev, struct json_object *obj)
{
	struct json_object *links = falcon_rf_obj(obj, "Links");
	struct json_object *arr = falcon_rf_arr(links, "Chassis");
	const char *p = falcon_rf_link(links, "Chassis");

	if (p == NULL && arr != NULL && json_object_array_length(arr) > 0)
		p = falcon_rf_str(json_object_array_get_idx(arr, 0), "@odata.id");
	if (p != NULL && falcon_rf_path_ok(p))
		take_chassis_from_path(dev, p);
}

void falcon_be_describe(struct falcon_be *be, struct falcon_device *dev,
			const char *path, struct json_object *obj)
{
	falcon_rf_last_segment(path, dev->id, sizeof(dev->id));
	falcon_strlcpy(dev->odata_id, path, sizeof(dev->odata_id));
	parse_location(dev);
	take_status(dev, obj);
	take_chassis_link(dev, obj);
}

/* "0x10DE" / "10de" -> "10de" when it is a 16-bit hex number. */
static void take_hex16(char *dst, size_t n, const char *v)
{
	long x;

	if (dst[0] != '\0' || v == NULL)
		return;
	if (falcon_strtol(v, 16, 0, 0xffff, &x) != FALCON_OK) {
		falcon_err_clear();
		return;
	}
	snprintf(dst, n, "%04lx", x);
}

static void set_type(struct falcon_device *dev, falcon_dev_type_t t)
{
	if (dev->type == FALCON_DEV_OTHER)
		dev->type = t;
}

void falcon_be_pci_ids(struct falcon_device *dev, struct json_object *obj)
{
	const char *cc = falcon_rf_str(obj, "ClassCode");
	const char *dc = falcon_rf_str(obj, "DeviceClass");
	long code;

	take_hex16(dev->vendor_id, sizeof(dev->vendor_id), falcon_rf_str(obj, "VendorId"));
	take_hex16(dev->device_id, sizeof(dev->device_id), falcon_rf_str(obj, "DeviceId"));
	/* PCI Code and ID Assignment Specification r1.14: base class 02h
	 * network, 03h display (0302h 3D controller: data-centre GPUs),
	 * 0108h non-volatile memory controller (NVMe) */
	if (cc != NULL && falcon_strtol(cc, 16, 0, 0xffffff, &code) == FALCON_OK) {
		if ((code >> 16) == 0x03)
			set_type(dev, FALCON_DEV_GPU);
		else if ((code >> 8) == 0x0108)
			set_type(dev, FALCON_DEV_NVME);
		else if ((code >> 16) == 0x02)
			set_type(dev, FALCON_DEV_NIC);
	} else if (cc != NULL) {
		falcon_err_clear(); /* not a class code: ignored */
	}
	if (dc != NULL && !strcmp(dc, "DisplayController"))
		set_type(dev, FALCON_DEV_GPU);
	else if (dc != NULL && !strcmp(dc, "NetworkController"))
		set_type(dev, FALCON_DEV_NIC);
}

/* The resource's type name: "#Processor.v1_22_0.Processor" -> "Processor". */
static void odata_type(struct json_object *obj, char *buf, size_t n)
{
	const char *t = falcon_rf_str(obj, "@odata.type");
	size_t len;

	buf[0] = '\0';
	if (t == NULL)
		return;
	if (*t == '#')
		t++;
	len = strcspn(t, ".");
	if (len < n) {
		memcpy(buf, t, len);
		buf[len] = '\0';
	}
}

#define ENRICH_MAX_HOPS 3
#define ENRICH_MAX_FETCHES 10

struct enrich {
	int fetches;
	const char *seen[ENRICH_MAX_FETCHES];
	struct json_object *objs[ENRICH_MAX_FETCHES];
};

static falcon_err_t enrich(struct falcon_be *be, struct falcon_device *dev,
			   struct enrich *en, const char *path, int hop);

/* Follow the first path of obj[key] (links: under "Links"), object or array. */
static falcon_err_t follow(struct falcon_be *be, struct falcon_device *dev,
			   struct enrich *en, struct json_object *obj, const char *key,
			   bool links, int hop)
{
	struct json_object *parent = links ? falcon_rf_obj(obj, "Links") : obj;
	struct json_object *arr = falcon_rf_arr(parent, key);
	const char *p = falcon_rf_link(parent, key);

	if (p == NULL && arr != NULL && json_object_array_length(arr) > 0)
		p = falcon_rf_str(json_object_array_get_idx(arr, 0), "@odata.id");
	if (p == NULL || !falcon_rf_path_ok(p))
		return FALCON_OK;
	return enrich(be, dev, en, p, hop + 1);
}

static bool has_string(struct json_object *arr, const char *s)
{
	size_t i, n;

	if (arr == NULL)
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

static falcon_err_t enrich(struct falcon_be *be, struct falcon_device *dev,
			   struct enrich *en, const char *path, int hop)
{
	struct json_object *obj = NULL;
	char type[64];
	int i;
	falcon_err_t rv;

	if (hop > ENRICH_MAX_HOPS || en->fetches >= ENRICH_MAX_FETCHES)
		return FALCON_OK;
	for (i = 0; i < en->fetches; i++)
		if (falcon_rf_path_eq(en->seen[i], path))
			return FALCON_OK;
	rv = falcon_be_get(be, path, &obj, NULL, 0);
	if (rv == FALCON_ERR_NOTFOUND) {
		falcon_debug("%s: linked resource %s absent: skipped", dev->id, path);
		falcon_err_clear();
		return FALCON_OK;
	}
	if (rv != FALCON_OK)
		return rv;
	/* keep obj alive while its strings are in seen[] */
	en->objs[en->fetches] = obj;
	en->seen[en->fetches++] = path;

	take_chassis_from_path(dev, path);
	take_chassis_link(dev, obj);
	odata_type(obj, type, sizeof(type));
	if (falcon_rf_arr(obj, "Members") != NULL) {
		/* a collection (PCIeFunctions, Drives...): its first member */
		struct json_object *m = json_object_array_get_idx(falcon_rf_arr(obj, "Members"), 0);
		const char *p = falcon_rf_str(m, "@odata.id");

		if (p != NULL && falcon_rf_path_ok(p))
			return enrich(be, dev, en, p, hop);
		return FALCON_OK;
	}
	take_status(dev, obj);
	take_str(dev->serial, sizeof(dev->serial), falcon_rf_str(obj, "SerialNumber"));
	take_str(dev->manufacturer, sizeof(dev->manufacturer), falcon_rf_str(obj, "Manufacturer"));
	if (!strcmp(type, "Processor")) {
		const char *pt = falcon_rf_str(obj, "ProcessorType");

		take_str(dev->model, sizeof(dev->model), falcon_rf_str(obj, "Model"));
		if (pt != NULL && !strcmp(pt, "GPU"))
			set_type(dev, FALCON_DEV_GPU);
		rv = follow(be, dev, en, obj, "PCIeFunctions", true, hop);
	} else if (!strcmp(type, "Drive")) {
		const char *proto = falcon_rf_str(obj, "Protocol");

		take_str(dev->model, sizeof(dev->model), falcon_rf_str(obj, "Model"));
		if (proto != NULL && !strcmp(proto, "NVMe"))
			set_type(dev, FALCON_DEV_NVME);
		rv = follow(be, dev, en, obj, "PCIeFunctions", true, hop);
	} else if (!strcmp(type, "Storage")) {
		struct json_object *ctrls = falcon_rf_arr(obj, "StorageControllers");
		struct json_object *c0 = ctrls ? json_object_array_get_idx(ctrls, 0) : NULL;

		if (has_string(falcon_rf_arr(c0, "SupportedControllerProtocols"), "NVMe"))
			set_type(dev, FALCON_DEV_NVME);
		rv = follow(be, dev, en, obj, "Drives", false, hop);
	} else if (!strcmp(type, "PCIeDevice")) {
		take_str(dev->model, sizeof(dev->model), falcon_rf_str(obj, "Model"));
		rv = follow(be, dev, en, obj, "PCIeFunctions", false, hop);
	} else if (!strcmp(type, "PCIeFunction")) {
		falcon_be_pci_ids(dev, obj);
		rv = follow(be, dev, en, obj, "PCIeDevice", true, hop);
	} else if (!strcmp(type, "CXLLogicalDevice")) {
		rv = follow(be, dev, en, obj, "PCIeFunctions", true, hop);
	} else if (!strcmp(type, "NetworkAdapter") || !strcmp(type, "NetworkDeviceFunction") ||
		   !strcmp(type, "EthernetInterface") || !strcmp(type, "NetworkInterface")) {
		take_str(dev->model, sizeof(dev->model), falcon_rf_str(obj, "Model"));
		set_type(dev, FALCON_DEV_NIC);
		rv = FALCON_OK;
	}
	return rv;
}

falcon_err_t falcon_be_enrich(struct falcon_be *be, struct falcon_device *dev,
			      const char *const *paths, size_t n)
{
	struct enrich en = { 0 };
	falcon_err_t rv = FALCON_OK;
	size_t j;
	int i;

	for (j = 0; j < n && rv == FALCON_OK; j++)
		if (paths[j] != NULL)
			rv = enrich(be, dev, &en, paths[j], 0);
	for (i = 0; i < en.fetches; i++)
		json_object_put(en.objs[i]);
	return rv;
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

falcon_err_t falcon_be_fail_with_rollback(falcon_err_t err, const char *first_msg,
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
	char why[1024];

	if (rv != FALCON_ERR_CONFLICT)
		return rv;
	falcon_strlcpy(why, falcon_errmsg(), sizeof(why)); /* errmsg is overwritten */
	return falcon_err_set(FALCON_ERR_CHASSIS, "detach refused: %s", why);
}
