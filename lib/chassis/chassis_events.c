/*
 * chassis_events.c - the chassis' Redfish events for the front end
 * (falcon_chassis_listen in chassis.c): find the EventService's
 * ServerSentEventUri from the service root (DSP0266 1.20 sec. 13.5), read
 * it with a long-lived GET (rf_http.c), split the stream into SSE events
 * and each event's data into Event records (rf_sse.c).
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

/* sse_uri - the EventService's ServerSentEventUri into uri (n bytes). */
static falcon_err_t sse_uri(struct falcon_rf *rf, const char *chassis, char *uri, size_t n)
{
	struct json_object *root = NULL, *es = NULL, *en;
	const char *link, *sse;
	falcon_err_t rv;

	if ((rv = falcon_rf_get(rf, FALCON_RF_ROOT, &root, NULL, 0)) != FALCON_OK)
		return rv;
	link = falcon_rf_link(root, "EventService");
	if (link == NULL) {
		rv = falcon_err_set(FALCON_ERR_UNSUPPORTED, "chassis %s: no EventService", chassis);
		goto out;
	}
	if ((rv = falcon_rf_get(rf, link, &es, NULL, 0)) != FALCON_OK)
		goto out;
	sse = falcon_rf_str(es, "ServerSentEventUri");
	if (json_object_object_get_ex(es, "ServiceEnabled", &en) &&
	    json_object_is_type(en, json_type_boolean) && !json_object_get_boolean(en)) {
		rv = falcon_err_set(FALCON_ERR_UNSUPPORTED, "chassis %s: %s: ServiceEnabled false",
				    chassis, link);
	} else if (sse == NULL || !falcon_rf_path_ok(sse)) {
		rv = falcon_err_set(FALCON_ERR_UNSUPPORTED,
				    "chassis %s: %s: no ServerSentEventUri", chassis, link);
	} else {
		falcon_strlcpy(uri, sse, n);
		rv = FALCON_OK;
	}
out:
	json_object_put(es);
	json_object_put(root);
	return rv;
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
