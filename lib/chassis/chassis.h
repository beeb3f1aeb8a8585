/*
 * chassis.h - the chassis client: one backend interface, two Redfish
 * implementations (redfish-fabric: zones and endpoints, H3 Platform's model;
 * redfish-composition: DMTF CompositionService with ResourceBlocks).
 *
 * Naming shared with falcon-sim (sim/):
 *   - a host port is "H1".."H4"; with redfish-fabric its zone is
 *     /redfish/v1/Fabrics/PCIe/Zones/H<n> and its endpoint
 *     /redfish/v1/Fabrics/PCIe/Endpoints/hostport<n>_H<n>;
 *   - a device in drawer D (1-2), slot S (1-8) is endpoint / resource block
 *     "drawer<D>_slot<S>";
 *   - with redfish-composition, a host port names the expandable
 *     ComputerSystem /redfish/v1/Systems/<port>.
 *
 * The fabric path is configurable (struct falcon_chassis_opts.fabric): our
 * chassis uses /redfish/v1/Fabrics/PCIe, DMTF's CXL mockup Fabrics/CXL; when
 * not given it is discovered from the /redfish/v1/Fabrics members (the only
 * one, else the one named PCIe, else the first).  Zones and Endpoints are
 * the fabric's collections; a zone's id (last path segment) is its port.
 *
 * A client is not thread-safe: one per thread.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_CHASSIS_H
#define FALCON_CHASSIS_H

#include <stdbool.h>
#include <stddef.h>

#include "chassis/chassis_types.h"
#include "core/conf.h"
#include "core/device.h"
#include "core/falcon_err.h"

/*
 * Explicit options of a client (falconctl inventory --url needs no
 * falcon.conf).  Zero/NULL fields take the defaults noted.
 */
struct falcon_chassis_opts {
	const char *name;             /* for messages and falcon_device.chassis
				       * when the service names none; NULL = url */
	const char *url;              /* http(s)://host[:port]; required */
	falcon_backend_t backend;     /* FALCON_BACKEND_AUTO: read the service
				       * root (see falcon_chassis_open_opts()) */
	const char *credentials_file; /* NULL = anonymous */
	const char *ca_file;          /* NULL = system CA store */
	bool insecure;                /* TLS verification off (warned) */
	bool basic_auth;              /* basic auth instead of a Redfish session */
	int timeout_s;                /* total per read (GET); 0 = 10 */
	int change_timeout_s;         /* total per change (PATCH, POST, DELETE)
				       * and its task; 0 = 120
				       * (FALCON_RF_CHANGE_TIMEOUT_MS) */
	int connect_timeout_s;        /* 0 = 5 */
	const char *fabric;           /* redfish-fabric: the fabric's path,
				       * NULL = discover from /redfish/v1/Fabrics */
	int retries;                  /* re-reads after a 412; 0 = 5, -1 = none */
	int task_timeout_s;           /* an attach/detach answered 202: how long
				       * its task monitor is followed; 0 =
				       * change_timeout_s */
};

/*
 * falcon_chassis_open_opts - a client from explicit options; errors as
 * falcon_chassis_open().  *out is freed with falcon_chassis_close().
 * With backend FALCON_BACKEND_AUTO and no fabric path it reads the service
 * root (DSP0266 1.20 sec. 7) and chooses: a Fabrics member with a Zones
 * collection is redfish-fabric, else a CompositionService is
 * redfish-composition (logged at info level with the reason; a given
 * fabric path means redfish-fabric).  FALCON_ERR_UNSUPPORTED when the root
 * offers neither; errors of the root GET as falcon_chassis_inventory().
 */
falcon_err_t falcon_chassis_open_opts(const struct falcon_chassis_opts *opts,
				      struct falcon_chassis **out);

/*
 * falcon_chassis_open - a client for one ChassisName line.  Reads the
 * credentials file (must be a regular file not readable by group/other:
 * FALCON_ERR_PERM otherwise), sets up libcurl with connect/total timeouts
 * and TLS verification (CAFile or the system store; Insecure=yes logs a
 * warning).  Opens a Redfish session when credentials are given.  *out is
 * freed with falcon_chassis_close().
 */
falcon_err_t falcon_chassis_open(const struct falcon_chassis_conf *cc,
				 struct falcon_chassis **out);

/* falcon_chassis_close - DELETE the Redfish session if any and free; NULL ok. */
void falcon_chassis_close(struct falcon_chassis *ch);

/*
 * falcon_chassis_inventory - every device of the chassis with its owner.
 * Fills *inv (caller frees with falcon_inventory_free()).
 */
falcon_err_t falcon_chassis_inventory(struct falcon_chassis *ch,
				      struct falcon_inventory *inv);

/*
 * falcon_chassis_attach / _detach - give device_id to host port `port` /
 * take it back, then read back and verify.  redfish-fabric PATCHes the
 * zone's Links.Endpoints with If-Match and retries on 412 (re-reading the
 * zone); redfish-composition posts AddResourceBlock/RemoveResourceBlock and
 * reads CompositionStatus back.  Errors: FALCON_ERR_CONFLICT (device in
 * another zone), FALCON_ERR_NOTFOUND, FALCON_ERR_TIMEOUT, FALCON_ERR_SERVER,
 * FALCON_ERR_TRANSPORT, FALCON_ERR_CHASSIS (refused), with the Redfish
 * ExtendedInfo message in falcon_errmsg().  Detaching a device that is not
 * attached to port is FALCON_OK (idempotent).
 */
falcon_err_t falcon_chassis_attach(struct falcon_chassis *ch, const char *port,
				   const char *device_id);
falcon_err_t falcon_chassis_detach(struct falcon_chassis *ch, const char *port,
				   const char *device_id);

/*
 * falcon_chassis_attach_set / _detach_set - falcon_chassis_attach() /
 * _detach() of devs[n] (1 <= n <= FALCON_CHASSIS_SET_MAX, else
 * FALCON_ERR_INVAL) to / from one host port, in one request where the
 * backend can: redfish-fabric sends one zone PATCH whose Links.Endpoints
 * adds (removes) all of them, with If-Match, and reads every one back from
 * its answer; redfish-composition does one action per device.  A chassis
 * answering in seconds per request makes a 4-GPU job's compose and
 * release each one request instead of four.  Errors as
 * falcon_chassis_attach(); the message names the first device found not
 * as wanted.  Unlike falcon_chassis_attach(), attach_set is for devices
 * the caller believes free: one already given to port (by an administrator,
 * another tool, a late request of a dead falcond) is FALCON_ERR_CONFLICT
 * and nothing is sent, so that a device is never taken over from whoever
 * attached it.  An attach_set error means none of devs[] was attached by
 * this call (what may have been applied is taken away again); after a
 * detach_set error some may still be attached: detach each
 * (falcon_chassis_detach) to know which.  A set with a refused device is
 * refused whole.
 */
falcon_err_t falcon_chassis_attach_set(struct falcon_chassis *ch, const char *port,
				       const char **devs, size_t n);
falcon_err_t falcon_chassis_detach_set(struct falcon_chassis *ch, const char *port,
				       const char **devs, size_t n);

/*
 * falcon_chassis_verify - read back whether device_id is given to port
 * (attached true) or not (false): FALCON_OK when it is as expected,
 * FALCON_ERR_CHASSIS with what was found otherwise, transport errors as
 * falcon_chassis_attach().
 */
falcon_err_t falcon_chassis_verify(struct falcon_chassis *ch, const char *port,
				   const char *device_id, bool attached);

/*
 * Descriptions kept between inventories (redfish-fabric).  A Falcon
 * chassis' inventory is ~50 GETs, of which only the zones (who owns what)
 * change when devices are composed: the rest (each Endpoint and its
 * PCIeDevice, PCIeFunctions, Processor or Drive: type, IDs, slot, serial,
 * model, state, health) stays until the hardware or its health changes.
 * With descriptions kept, an inventory reads the Zones collection, each
 * zone and the Endpoints collection, and reads an endpoint in full only
 * when it is new, was forgotten (falcon_chassis_forget(): after an outage,
 * on a Redfish event naming it), or its description is older than
 * max_age_s, at most one such per inventory.  A resource that left the
 * Endpoints collection is dropped.  Not thread-safe (the client is not).
 * The redfish-composition backend reads every resource block anyway (its
 * ownership is in the block) and keeps nothing.
 */

/* falcon_chassis_keep_descriptions - keep descriptions up to max_age_s
 * seconds (0 = keep none: every inventory reads everything, the default). */
void falcon_chassis_keep_descriptions(struct falcon_chassis *ch, int max_age_s);

/* falcon_chassis_forget - drop the kept description of device device_id
 * ("drawer1_slot3"), or every one with device_id NULL. */
void falcon_chassis_forget(struct falcon_chassis *ch, const char *device_id);

/*
 * falcon_chassis_descriptions_save - the kept descriptions as JSON, to be
 * written where a restarted process finds them (new reference, NULL on
 * allocation failure): {"descriptions":[{"path", "host" (a host port, no
 * device), "read" (UNIX time, s), "device" (falcon_device_to_json(), owner
 * null)}]}.  *changed (may be NULL) tells whether anything was added,
 * replaced or dropped since the last call; the flag is cleared.
 */
struct json_object *falcon_chassis_descriptions_save(struct falcon_chassis *ch, bool *changed);

/* falcon_chassis_descriptions_changed - whether a description was added,
 * replaced or dropped since the last falcon_chassis_descriptions_save()
 * (cheap: a flag; check it before building the JSON). */
bool falcon_chassis_descriptions_changed(const struct falcon_chassis *ch);

/*
 * falcon_chassis_descriptions_load - take the descriptions of o (as
 * _save() wrote them), their ages kept (one read longer ago than the
 * client's max_age_s is read again as usual).  what names the source in
 * errors.  FALCON_ERR_PARSE naming the field and what was expected
 * ("FILE: descriptions[2].device.slot: expected an integer 0-255"), with
 * nothing taken; FALCON_ERR_NOMEM.
 */
falcon_err_t falcon_chassis_descriptions_load(struct falcon_chassis *ch,
					      struct json_object *o, const char *what);

/*
 * falcon_chassis_descriptions_inventory - the devices of the kept
 * descriptions (host ports left out) as an inventory, owners "" (a
 * description says nothing of who owns a device) and no cabling: what a
 * process that has not read the chassis yet knows of it, e.g. from a
 * description file loaded at its start.  Fills *inv (zeroed first; the
 * caller frees with falcon_inventory_free()); FALCON_OK with inv->n 0 when
 * none is kept; FALCON_ERR_NOMEM with *inv empty.
 */
falcon_err_t falcon_chassis_descriptions_inventory(const struct falcon_chassis *ch,
						   struct falcon_inventory *inv);

/*
 * falcon_chassis_set_deadline - the caller's budget for the requests that
 * follow: a CLOCK_MONOTONIC time in ms (falcon_now_ms()'s clock) after
 * which an attach or detach answered 202 is no longer followed: its task is
 * cancelled (DELETE on its task monitor, DSP0266 1.20 sec. 12.2.2) and the
 * call is FALCON_ERR_TIMEOUT naming the monitor (falcon_rf_set_deadline()).
 * 0 = none (the client's task timeout alone).  Stays until changed; a
 * no-op for clients opened over callbacks.  Never fails.
 */
void falcon_chassis_set_deadline(struct falcon_chassis *ch, long long deadline_ms);

/* falcon_chassis_backend_name - "redfish-fabric" / "redfish-composition". */
const char *falcon_chassis_backend_name(const struct falcon_chassis *ch);

/* ---- events (chassis_events.c over rf_http.c and rf_sse.c) ---- */

/*
 * falcon_chassis_listen - follow the chassis' Redfish events until the
 * stream ends or l->stop says so: the EventService from the service root,
 * its ServerSentEventUri (DSP0266 1.20 sec. 13.5.2 Server-Sent Events) read
 * with a long-lived GET (the client's credentials: session token or basic
 * auth; no total timeout, l->stall_s of silence ends it), each SSE event's
 * data parsed as an Event and handed to l->on_event record by record (a
 * malformed one is logged and skipped).  Blocks; runs in the caller's
 * thread, so the client must be that thread's own (not thread-safe).
 * Returns FALCON_OK when stopped; FALCON_ERR_UNSUPPORTED when the service
 * has no EventService, it is not enabled or has no ServerSentEventUri;
 * FALCON_ERR_TRANSPORT when the service closed the stream or the
 * connection failed; FALCON_ERR_TIMEOUT after l->stall_s of silence; HTTP
 * errors as falcon_chassis_inventory(); FALCON_ERR_PROTOCOL when the answer
 * is not text/event-stream.  Not for clients opened over callbacks
 * (FALCON_ERR_UNSUPPORTED).
 */
falcon_err_t falcon_chassis_listen(struct falcon_chassis *ch, struct falcon_chassis_listen *l);

/* ---- event subscriptions (chassis_events.c; DSP0266 1.20 sec. 13.5.3) ---- */

/*
 * falcon_chassis_events_offer - what the chassis' EventService offers:
 * *sse whether it names a ServerSentEventUri, *subs whether it has a
 * Subscriptions collection (EventService.v1_x).  FALCON_ERR_UNSUPPORTED
 * when the service root has no EventService or it is ServiceEnabled false
 * or the client was opened over callbacks; HTTP and transport errors as
 * falcon_chassis_inventory().
 */
falcon_err_t falcon_chassis_events_offer(struct falcon_chassis *ch, bool *sse, bool *subs);

/*
 * falcon_chassis_subscribe - POST the EventService's Subscriptions
 * {Destination, Protocol "Redfish", Context, RegistryPrefixes
 * ["ResourceEvent"], HttpHeaders {"Authorization": auth}} (DSP0266 1.20
 * sec. 13.5.3.1: 201 with Location) and keep the new subscription's URI in
 * s->path.  The account needs ConfigureComponents or ConfigureManager
 * (DSP8011: an Operator may).  FALCON_ERR_UNSUPPORTED when the service has
 * no Subscriptions collection; FALCON_ERR_PROTOCOL when the 201 carries
 * no usable Location; HTTP errors as falcon_chassis_inventory() (403 is
 * FALCON_ERR_AUTH).  The message names the chassis.
 */
falcon_err_t falcon_chassis_subscribe(struct falcon_chassis *ch, struct falcon_chassis_sub *s);

/*
 * falcon_chassis_subscription_check - GET s->path: FALCON_OK when it is
 * there with s->context; FALCON_ERR_NOTFOUND when it answers 404 (the
 * chassis restarted, or ended it: DeliveryRetryPolicy) or holds another
 * Context (someone else's subscription got the URI); other errors as
 * falcon_chassis_inventory() (the chassis unreachable: try again later).
 */
falcon_err_t falcon_chassis_subscription_check(struct falcon_chassis *ch,
					       const struct falcon_chassis_sub *s);

/* falcon_chassis_unsubscribe - DELETE s->path; one already gone (404) is
 * FALCON_OK; other errors as falcon_chassis_inventory(). */
falcon_err_t falcon_chassis_unsubscribe(struct falcon_chassis *ch,
					const struct falcon_chassis_sub *s);

/*
 * falcon_chassis_events_parse - the body of a POSTed event (an Event,
 * #Event.v1_x, as SSE data carries it) record by record to fn (event_id:
 * the Event's Id; chassis copied in).  Pure, thread-safe.  Returns the
 * number of records, -1 with FALCON_ERR_PARSE when data is not an Event.
 */
int falcon_chassis_events_parse(const char *chassis, const char *data, size_t len,
				void (*fn)(void *ctx, const struct falcon_chassis_event *ev),
				void *ctx);

struct json_object;
/*
 * falcon_device_to_json - one device as a JSON object (new reference, NULL
 * on allocation failure): id, odata_id, chassis, drawer, slot, type,
 * vendor_id, device_id, serial, model, manufacturer, owner (null when
 * free), state, health, composition_state (composition backend only).
 */
struct json_object *falcon_device_to_json(const struct falcon_device *d);

#endif /* FALCON_CHASSIS_H */
