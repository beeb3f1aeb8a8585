/*
 * sim_events.c - falcon-sim's Redfish events: a device's health changes or
 * it leaves the fabric (POST /admin/health), the Redfish tree shows it
 * (Status.Health / Status.State, rendered by sim_redfish.c from srv), and
 * an Event goes to every client of the EventService's ServerSentEventUri.
 *
 * Formats: DMTF DSP0266 1.20 sec. 13.5 "Eventing" (13.5.2 Server-Sent
 * Events: one Event resource per SSE event, its Id as the SSE id so that a
 * client can resume with Last-Event-ID); the Event schema #Event.v1_7_0
 * (Events[] of EventType, EventId, EventTimestamp, Severity,
 * MessageSeverity, Message, MessageId, MessageArgs, OriginOfCondition);
 * messages of DMTF's ResourceEvent registry 1.4 (ResourceStatusChangedOK,
 * ResourceStatusChangedWarning, ResourceStatusChangedCritical:
 * "The health of resource '%1' has changed to %2."; ResourceRemoved:
 * "The resource was removed successfully."; ResourceCreated: "The
 * resource was created successfully.", EventType ResourceAdded).
 *
 * Everything here runs under srv->lock; it calls only the pure parts
 * (sim.h), never the HTTP side.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/log.h"
#include "core/util.h"
#include "sim_server.h"

#define MSG_RE "ResourceEvent.1.4."

static void iso_now(char *buf, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/*
 * One Event (#Event.v1_7_0) with one record: key is the ResourceEvent
 * message key, health its second argument (NULL for ResourceRemoved and
 * ResourceCreated, told apart by key).
 */
static struct json_object *event_json(const struct sim_server *srv, unsigned long id,
				      int d, int s, const char *key, const char *health)
{
	struct json_object *o = json_object_new_object(), *evs = json_object_new_array();
	struct json_object *e = json_object_new_object(), *args = json_object_new_array();
	struct json_object *origin = json_object_new_object();
	char buf[320], dev[32], ts[32];
	const char *sev = health == NULL ? "OK" : health;
	bool created = strcmp(key, "ResourceCreated") == 0;

	snprintf(dev, sizeof(dev), "drawer%d_slot%d", d, s);
	iso_now(ts, sizeof(ts));
	snprintf(buf, sizeof(buf), "%lu", id);
	json_object_object_add(o, "@odata.type", json_object_new_string("#Event.v1_7_0.Event"));
	json_object_object_add(o, "Id", json_object_new_string(buf));
	json_object_object_add(o, "Name", json_object_new_string("Falcon 4016 event"));
	json_object_object_add(e, "EventType", json_object_new_string(
		health != NULL ? "StatusChange" : created ? "ResourceAdded" : "ResourceRemoved"));
	json_object_object_add(e, "EventId", json_object_new_string(buf));
	json_object_object_add(e, "EventTimestamp", json_object_new_string(ts));
	json_object_object_add(e, "Severity", json_object_new_string(sev));
	json_object_object_add(e, "MessageSeverity", json_object_new_string(sev));
	snprintf(buf, sizeof(buf), MSG_RE "%s", key);
	json_object_object_add(e, "MessageId", json_object_new_string(buf));
	if (health != NULL) {
		snprintf(buf, sizeof(buf), "The health of resource '%s' has changed to %s.", dev, health);
		json_object_array_add(args, json_object_new_string(dev));
		json_object_array_add(args, json_object_new_string(health));
	} else {
		snprintf(buf, sizeof(buf), "The resource was %s successfully.",
			 created ? "created" : "removed");
	}
	json_object_object_add(e, "Message", json_object_new_string(buf));
	json_object_object_add(e, "MessageArgs", args);
	snprintf(buf, sizeof(buf), "/redfish/v1/Chassis/%s/PCIeDevices/%s", srv->cfg.chassis, dev);
	json_object_object_add(origin, "@odata.id", json_object_new_string(buf));
	json_object_object_add(e, "OriginOfCondition", origin);
	json_object_array_add(evs, e);
	json_object_object_add(o, "Events", evs);
	return o;
}

/*
 * classify - the first record's registry prefix (MessageId up to its first
 * '.') and the resource type of its OriginOfCondition (a member of a
 * PCIeDevices collection is a PCIeDevice, the Chassis a Chassis, else ""),
 * what subscriptions filter on (RegistryPrefixes, ResourceTypes).
 */
static void classify(struct json_object *o, struct sim_event *slot)
{
	struct json_object *evs, *e, *v, *origin;
	const char *oid;

	slot->prefix[0] = slot->rtype[0] = '\0';
	if (!json_object_object_get_ex(o, "Events", &evs) ||
	    (e = json_object_array_get_idx(evs, 0)) == NULL)
		return;
	if (json_object_object_get_ex(e, "MessageId", &v))
		snprintf(slot->prefix, sizeof(slot->prefix), "%.*s",
			 (int)strcspn(json_object_get_string(v), "."), json_object_get_string(v));
	if (!json_object_object_get_ex(e, "OriginOfCondition", &origin) ||
	    !json_object_object_get_ex(origin, "@odata.id", &v) ||
	    (oid = json_object_get_string(v)) == NULL)
		return;
	if (strstr(oid, "/PCIeDevices/") != NULL)
		falcon_strlcpy(slot->rtype, "PCIeDevice", sizeof(slot->rtype));
	else if (strncmp(oid, "/redfish/v1/Chassis/", 20) == 0)
		falcon_strlcpy(slot->rtype, "Chassis", sizeof(slot->rtype));
}

/* keep - the Event o (taken) kept as event id; id, 0 when out of memory. */
static unsigned long keep(struct sim_server *srv, unsigned long id, struct json_object *o)
{
	struct sim_event *slot = &srv->events[id % SIM_MAX_EVENTS];
	char *text = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							   JSON_C_TO_STRING_NOSLASHESCAPE));

	classify(o, slot);
	json_object_put(o);
	if (text == NULL) {
		falcon_error("event %lu: out of memory", id);
		return 0;
	}
	free(slot->text);
	slot->text = text;
	slot->id = id;
	srv->last_event = id;
	pthread_cond_broadcast(&srv->cond);
	return id;
}

unsigned long sim_events_test(struct sim_server *srv, struct json_object *body)
{
	unsigned long id = srv->last_event + 1;
	struct json_object *o = json_object_new_object(), *evs = json_object_new_array();
	struct json_object *e = json_object_new_object(), *v;
	char buf[32], ts[32];
	static const char *const keys[] = { "MessageId", "Message", "Severity", "MessageSeverity" };
	size_t i;

	snprintf(buf, sizeof(buf), "%lu", id);
	iso_now(ts, sizeof(ts));
	json_object_object_add(o, "@odata.type", json_object_new_string("#Event.v1_7_0.Event"));
	json_object_object_add(o, "Id", json_object_new_string(buf));
	json_object_object_add(o, "Name", json_object_new_string("Falcon 4016 test event"));
	json_object_object_add(e, "EventId", json_object_new_string(buf));
	json_object_object_add(e, "EventTimestamp", json_object_new_string(ts));
	json_object_object_add(e, "MessageId", json_object_new_string(MSG_RE "ResourceChanged"));
	json_object_object_add(e, "Message", json_object_new_string(
		"One or more resource properties have changed."));
	json_object_object_add(e, "Severity", json_object_new_string("OK"));
	json_object_object_add(e, "MessageSeverity", json_object_new_string("OK"));
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		if (json_object_object_get_ex(body, keys[i], &v) &&
		    json_object_is_type(v, json_type_string))
			json_object_object_add(e, keys[i], json_object_get(v));
	if (json_object_object_get_ex(body, "OriginOfCondition", &v) &&
	    json_object_is_type(v, json_type_string)) {
		struct json_object *origin = json_object_new_object();

		json_object_object_add(origin, "@odata.id", json_object_get(v));
		json_object_object_add(e, "OriginOfCondition", origin);
	}
	json_object_array_add(evs, e);
	json_object_object_add(o, "Events", evs);
	falcon_info("event %lu: test event (SubmitTestEvent)", id);
	return keep(srv, id, o);
}

/* emit - keep the event (dropping the oldest) and wake the SSE streams;
 * returns its id, 0 when out of memory (logged). */
static unsigned long emit(struct sim_server *srv, int d, int s, const char *key,
			  const char *health)
{
	unsigned long id = keep(srv, srv->last_event + 1,
				event_json(srv, srv->last_event + 1, d, s, key, health));

	if (id == 0)
		return 0;
	falcon_info("event %lu: %s drawer%d_slot%d%s%s", id, key, d, s,
		    health ? " " : "", health ? health : "");
	return id;
}

static bool health_ok(const char *h)
{
	return strcmp(h, "OK") == 0 || strcmp(h, "Warning") == 0 || strcmp(h, "Critical") == 0;
}

void sim_events_admin(struct sim_server *srv, struct json_object *body, struct sim_reply *r)
{
	struct json_object *v;
	const char *dev = NULL, *health = NULL;
	char key[64], *cur;
	bool removed = false, has_removed = false;
	unsigned long id = 0;
	int d, s;

	if (json_object_object_get_ex(body, "device", &v) && json_object_is_type(v, json_type_string))
		dev = json_object_get_string(v);
	if (json_object_object_get_ex(body, "health", &v) && json_object_is_type(v, json_type_string))
		health = json_object_get_string(v);
	if (json_object_object_get_ex(body, "removed", &v)) {
		if (!json_object_is_type(v, json_type_boolean)) {
			sim_reply_error(r, 400, "Base.1.16.PropertyValueTypeError",
					"removed: expected true or false.");
			return;
		}
		has_removed = true;
		removed = json_object_get_boolean(v);
	}
	if (dev == NULL || !sim_parse_dev_id(dev, &d, &s) ||
	    !srv->cfg.drawer[d - 1].slot[s - 1].populated) {
		sim_reply_error(r, 400, "Base.1.16.PropertyValueNotInList",
				"device: expected a populated slot such as drawer1_slot2.");
		return;
	}
	if ((health == NULL) == !has_removed || (health != NULL && !health_ok(health))) {
		sim_reply_error(r, 400, "Base.1.16.PropertyValueNotInList",
				"expected one of health (OK, Warning, Critical) or removed (true/false).");
		return;
	}
	cur = srv->health[d - 1][s - 1];
	if (health != NULL && strcmp(cur[0] ? cur : "OK", health) != 0) {
		falcon_strlcpy(cur, health, sizeof(srv->health[0][0]));
		snprintf(key, sizeof(key), "ResourceStatusChanged%s", health);
		id = emit(srv, d, s, key, health);
	} else if (has_removed && removed != srv->removed[d - 1][s - 1]) {
		srv->removed[d - 1][s - 1] = removed;
		/* a device that comes back is a new resource (ResourceCreated) */
		id = emit(srv, d, s, removed ? "ResourceRemoved" : "ResourceCreated", NULL);
	}
	r->status = 200;
	r->body = json_object_new_object();
	json_object_object_add(r->body, "device", json_object_new_string(dev));
	json_object_object_add(r->body, "health", json_object_new_string(cur[0] ? cur : "OK"));
	json_object_object_add(r->body, "removed",
			       json_object_new_boolean(srv->removed[d - 1][s - 1]));
	json_object_object_add(r->body, "event", id ? json_object_new_int64((int64_t)id) : NULL);
}

char *sim_events_next(struct sim_server *srv, unsigned long after, unsigned long *id)
{
	unsigned long first = srv->last_event >= SIM_MAX_EVENTS
			      ? srv->last_event - SIM_MAX_EVENTS + 1 : 1;
	unsigned long want;
	const struct sim_event *e;
	char *out = NULL;

	if (after > srv->last_event)
		after = 0;
	want = after + 1 < first ? first : after + 1;
	if (want > srv->last_event)
		return NULL;
	e = &srv->events[want % SIM_MAX_EVENTS];
	if (e->id != want || e->text == NULL)
		return NULL;
	if (asprintf(&out, "id: %lu\ndata: %s\n\n", want, e->text) < 0)
		return NULL;
	*id = want;
	return out;
}

void sim_events_free(struct sim_server *srv)
{
	size_t i;

	for (i = 0; i < SIM_MAX_EVENTS; i++) {
		free(srv->events[i].text);
		srv->events[i].text = NULL;
	}
}
