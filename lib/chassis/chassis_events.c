/*
 * chassis_events.c - the chassis' Redfish events for the front end
 * (falcon_chassis_listen in chassis.c): find the EventService's
 * ServerSentEventUri from the service root (DSP0266 1.20 sec. 13.5), read
 * it with a long-lived GET (rf_http.c), split the stream into SSE events
 * and each event's data into Event records (rf_sse.c); or subscribe
 * (DSP0266 1.20 sec. 13.5.3: POST an EventDestination to the
 * EventService's Subscriptions, check it is still there, DELETE it).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <string.h>

#include <json-c/json.h>

#include "chassis/chassis_backend.h"
#include "chassis/redfish.h"
#include "core/log.h"
#include "core/util.h"

#define EVENTS_STALL_S 60 /* default: a stream silent this long is dead */

/*
 * event_service - the EventService of the service root into *es (caller
 * puts): FALCON_ERR_UNSUPPORTED when there is none or it is ServiceEnabled
 * false; its path into link (n bytes).
 */
static falcon_err_t event_service(struct falcon_rf *rf, const char *chassis,
				  struct json_object **es, char *link, size_t n)
{
	struct json_object *root = NULL, *en;
	const char *l;
	falcon_err_t rv;

	*es = NULL;
	if ((rv = falcon_rf_get(rf, FALCON_RF_ROOT, &root, NULL, 0)) != FALCON_OK)
		return rv;
	if ((l = falcon_rf_link(root, "EventService")) == NULL) {
		rv = falcon_err_set(FALCON_ERR_UNSUPPORTED, "chassis %s: no EventService", chassis);
		goto out;
	}
	falcon_strlcpy(link, l, n);
	if ((rv = falcon_rf_get(rf, link, es, NULL, 0)) != FALCON_OK)
		goto out;
	if (json_object_object_get_ex(*es, "ServiceEnabled", &en) &&
	    json_object_is_type(en, json_type_boolean) && !json_object_get_boolean(en)) {
		rv = falcon_err_set(FALCON_ERR_UNSUPPORTED, "chassis %s: %s: ServiceEnabled false",
				    chassis, link);
		json_object_put(*es);
		*es = NULL;
	}
out:
	json_object_put(root);
	return rv;
}

/* sse_uri - the EventService's ServerSentEventUri into uri (n bytes). */
static falcon_err_t sse_uri(struct falcon_rf *rf, const char *chassis, char *uri, size_t n)
{
	struct json_object *es = NULL;
	char link[FALCON_RF_PATH_LEN];
	const char *sse;
	falcon_err_t rv;

	if ((rv = event_service(rf, chassis, &es, link, sizeof(link))) != FALCON_OK)
		return rv;
	sse = falcon_rf_str(es, "ServerSentEventUri");
	if (sse == NULL || !falcon_rf_path_ok(sse)) {
		rv = falcon_err_set(FALCON_ERR_UNSUPPORTED,
				    "chassis %s: %s: no ServerSentEventUri", chassis, link);
	} else {
		falcon_strlcpy(uri, sse, n);
		rv = FALCON_OK;
	}
	json_object_put(es);
	return rv;
}

falcon_err_t falcon_events_offer(struct falcon_rf *rf, const char *chassis, bool *sse,
				 bool *subs)
{
	struct json_object *es = NULL;
	char link[FALCON_RF_PATH_LEN];
	const char *u;
	falcon_err_t rv;

	*sse = *subs = false;
	if ((rv = event_service(rf, chassis, &es, link, sizeof(link))) != FALCON_OK)
		return rv;
	*sse = (u = falcon_rf_str(es, "ServerSentEventUri")) != NULL && falcon_rf_path_ok(u);
	*subs = falcon_rf_link(es, "Subscriptions") != NULL;
	json_object_put(es);
	return FALCON_OK;
}

/* sub_body - the EventDestination to POST (new reference). */
static struct json_object *sub_body(const struct falcon_chassis_sub *s)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();

	json_object_object_add(o, "Destination", json_object_new_string(s->destination));
	json_object_object_add(o, "Protocol", json_object_new_string("Redfish"));
	json_object_object_add(o, "Context", json_object_new_string(s->context));
	json_object_array_add(a, json_object_new_string("ResourceEvent"));
	json_object_object_add(o, "RegistryPrefixes", a);
	if (s->auth != NULL) {
		struct json_object *h = json_object_new_object();

		json_object_object_add(h, "Authorization", json_object_new_string(s->auth));
		json_object_object_add(o, "HttpHeaders", h);
	}
	return o;
}

falcon_err_t falcon_events_subscribe(struct falcon_rf *rf, const char *chassis,
				     struct falcon_chassis_sub *s)
{
	struct json_object *es = NULL, *body;
	struct falcon_rf_resp resp = { 0 };
	char link[FALCON_RF_PATH_LEN], coll[FALCON_RF_PATH_LEN];
	const char *c;
	falcon_err_t rv;

	s->path[0] = '\0';
	if ((rv = event_service(rf, chassis, &es, link, sizeof(link))) != FALCON_OK)
		return rv;
	c = falcon_rf_link(es, "Subscriptions");
	if (c == NULL) {
		json_object_put(es);
		return falcon_err_set(FALCON_ERR_UNSUPPORTED, "chassis %s: %s: no Subscriptions",
				      chassis, link);
	}
	falcon_strlcpy(coll, c, sizeof(coll));
	json_object_put(es);
	body = sub_body(s);
	rv = falcon_rf_request(rf, "POST", coll, body, NULL, &resp);
	json_object_put(body);
	if (rv != FALCON_OK) {
		char why[256];

		falcon_strlcpy(why, falcon_errmsg(), sizeof(why));
		return falcon_err_set(rv, "chassis %s: subscribing at %s: %s", chassis, coll, why);
	}
	if (resp.location[0] != '\0' && falcon_rf_path_ok(resp.location))
		falcon_strlcpy(s->path, resp.location, sizeof(s->path));
	else if ((c = falcon_rf_str(resp.body, "@odata.id")) != NULL && falcon_rf_path_ok(c))
		falcon_strlcpy(s->path, c, sizeof(s->path));
	falcon_rf_resp_free(&resp);
	if (s->path[0] == '\0')
		return falcon_err_set(FALCON_ERR_PROTOCOL, "chassis %s: %s answered the subscription "
				      "without a Location", chassis, coll);
	return FALCON_OK;
}

falcon_err_t falcon_events_sub_check(struct falcon_rf *rf, const char *chassis,
				     const struct falcon_chassis_sub *s)
{
	struct json_object *o = NULL;
	const char *ctx;
	falcon_err_t rv;

	if ((rv = falcon_rf_get(rf, s->path, &o, NULL, 0)) != FALCON_OK)
		return rv == FALCON_ERR_NOTFOUND
		       ? falcon_err_set(rv, "chassis %s: subscription %s is gone", chassis, s->path)
		       : rv;
	ctx = falcon_rf_str(o, "Context");
	if (ctx == NULL || strcmp(ctx, s->context) != 0)
		rv = falcon_err_set(FALCON_ERR_NOTFOUND, "chassis %s: %s is another subscription "
				    "(Context '%s')", chassis, s->path, ctx ? ctx : "");
	json_object_put(o);
	return rv;
}

falcon_err_t falcon_events_unsubscribe(struct falcon_rf *rf, const char *chassis,
				       const struct falcon_chassis_sub *s)
{
	falcon_err_t rv = falcon_rf_send(rf, "DELETE", s->path, NULL, NULL);

	if (rv == FALCON_ERR_NOTFOUND)
		return FALCON_OK;
	if (rv != FALCON_OK) {
		char why[256];

		falcon_strlcpy(why, falcon_errmsg(), sizeof(why));
		return falcon_err_set(rv, "chassis %s: DELETE %s: %s", chassis, s->path, why);
	}
	return FALCON_OK;
}

struct listen_run {
	struct falcon_chassis_listen *l;
	const char *chassis;
	const char *uri;
	struct falcon_sse sse;
};

/* on_event - one SSE event: its data as Event records to l->on_event. */
static void on_event(void *ctx, const char *id, const char *data, size_t len)
{
	struct listen_run *run = ctx;

	falcon_strlcpy(run->l->last_id, id, sizeof(run->l->last_id));
	if (falcon_rf_events_parse(data, len, run->chassis, id, run->l->on_event, run->l->ctx) < 0)
		falcon_warn("chassis %s: event %s skipped: %s", run->chassis, id[0] ? id : "(no id)",
			    falcon_errmsg());
}

static falcon_err_t on_data(void *ctx, const char *buf, size_t n)
{
	struct listen_run *run = ctx;

	return falcon_sse_feed(&run->sse, buf, n, on_event, run);
}

static void on_open(void *ctx)
{
	struct listen_run *run = ctx;

	if (run->l->on_open != NULL)
		run->l->on_open(run->l->ctx, run->uri);
}

static bool stop(void *ctx)
{
	struct listen_run *run = ctx;

	return run->l->stop != NULL && run->l->stop(run->l->ctx);
}

falcon_err_t falcon_events_listen(struct falcon_rf *rf, const char *chassis,
				  struct falcon_chassis_listen *l)
{
	struct falcon_rf_stream_opts o = { 0 };
	struct listen_run run;
	char uri[FALCON_RF_PATH_LEN];
	falcon_err_t rv;

	if ((rv = sse_uri(rf, chassis, uri, sizeof(uri))) != FALCON_OK)
		return rv;
	memset(&run, 0, sizeof(run));
	run.l = l;
	run.chassis = chassis;
	run.uri = uri;
	falcon_sse_init(&run.sse);
	o.on_data = on_data;
	o.on_open = on_open;
	o.stop = stop;
	o.ctx = &run;
	o.last_id = l->last_id;
	o.stall_s = l->stall_s > 0 ? l->stall_s : EVENTS_STALL_S;
	rv = falcon_rf_stream(rf, uri, &o);
	falcon_sse_free(&run.sse);
	return rv;
}
