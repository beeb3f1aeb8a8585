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

#include <json-c/json.h>

#include "chassis/chassis.h"
#include "chassis/chassis_backend.h"
#include "chassis/chassis_common.h"
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
	if (ch->be.ops != NULL && ch->be.ops->close != NULL)
		ch->be.ops->close(&ch->be);
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
