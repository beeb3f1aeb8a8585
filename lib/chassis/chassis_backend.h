/*
 * chassis_backend.h - the backend interface behind lib/chassis/chassis.h (private to
 * libfalcon, its tests and its fuzzer).  The front end (chassis.c) calls a
 * backend only through struct falcon_be_ops; the backends (rf_fabric.c,
 * rf_composition.c) call only the shared layer below them
 * (lib/chassis/chassis_common.h) and lib/chassis/redfish.h.
 *
 * A backend reaches the service only through two callbacks (get, send), so
 * the same parsing runs over HTTP (struct falcon_rf), over a DMTF mockup
 * directory on disk (falcon_rf_dir_get) and over fuzzer input.  Each public
 * operation gets a budget of fetches so that a hostile or looping service
 * cannot make it run unbounded.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_CHASSIS_BACKEND_H
#define FALCON_CHASSIS_BACKEND_H

#include <stdbool.h>

#include "chassis/chassis_types.h"
#include "chassis/redfish.h"

#define FALCON_BE_MAX_FETCHES 20000 /* default GETs per public operation */
#define FALCON_BE_MAX_MEMBERS 4096  /* members of one collection we accept */
#define FALCON_BE_RETRIES 5         /* default re-reads after a 412 */

struct falcon_be;

/*
 * A zone as this client last read or wrote it, with an ETag: the next
 * change PATCHes from it with If-Match instead of reading the zone first; a
 * 412 (someone else changed the zone) drops it and the zone is read again.
 * Only zones with an ETag are kept (without If-Match a stale copy could
 * undo another writer's change).
 */
#define FALCON_BE_ZCACHE 8
struct falcon_be_zone {
	char path[FALCON_RF_PATH_LEN];   /* "" = unused */
	char etag[FALCON_RF_ETAG_LEN];
	struct json_object *obj;         /* the zone (owned) */
	const char **eps;                /* its Links.Endpoints, into obj */
	size_t neps;
};

/*
 * What a device resource says of itself, as last read (redfish-fabric; see
 * falcon_chassis_describe_cache() in chassis.h): the struct falcon_device of
 * an Endpoint and the resources it links to, without owners, which come
 * from the zones and are read every time.  An entry is used instead of
 * the endpoint's GET and those of its PCIeDevice/PCIeFunction/Processor/
 * Drive while younger than be->desc_max_age_ms; older ones are read again,
 * at most FALCON_BE_DESC_REFRESH per inventory, so that the refresh of a
 * whole chassis is spread over many reads instead of stalling one.
 */
#define FALCON_BE_DESC_REFRESH 1
struct falcon_be_desc {
	char path[FALCON_RF_PATH_LEN];   /* the collection member read */
	bool host;                       /* a host port endpoint, not a device */
	long long read_ms;               /* when (falcon_now_ms()) */
	struct falcon_device dev;        /* owner "" */
};

struct falcon_be_ops {
	const char *name; /* "redfish-fabric", "redfish-composition" */
	falcon_err_t (*inventory)(struct falcon_be *be, struct falcon_inventory *inv);
	falcon_err_t (*attach)(struct falcon_be *be, const char *port, const char *dev);
	falcon_err_t (*detach)(struct falcon_be *be, const char *port, const char *dev);
	/* read back: FALCON_OK when dev is (attached) / is not (!attached)
	 * given to port, FALCON_ERR_CHASSIS with what was found otherwise */
	falcon_err_t (*verify)(struct falcon_be *be, const char *port, const char *dev,
			       bool attached);
	/* devs[n] (1 <= n <= FALCON_CHASSIS_SET_MAX) given to port all or
	 * nothing, as falcon_chassis_attach_set() (each backend through
	 * falcon_be_attach_with_rollback(): in one request or one per
	 * device); taken from port, as falcon_chassis_detach_set() (in one
	 * request, or one per device through falcon_be_detach_each()).  Both
	 * required of a backend */
	falcon_err_t (*attach_set)(struct falcon_be *be, const char *port, const char **devs,
				   size_t n);
	falcon_err_t (*detach_set)(struct falcon_be *be, const char *port, const char **devs,
				   size_t n);
	/* the client is closed: free what the backend keeps in be (NULL:
	 * nothing); be->ops may be NULL when opening failed early */
	void (*close)(struct falcon_be *be);
};

extern const struct falcon_be_ops falcon_be_fabric;      /* rf_fabric.c */
extern const struct falcon_be_ops falcon_be_composition; /* rf_composition.c */

struct falcon_be {
	const struct falcon_be_ops *ops;
	falcon_rf_get_fn get;
	falcon_rf_send_fn send;          /* NULL: read-only (a mockup directory) */
	/* a change whose answer is read (NULL: every change is read back
	 * with a GET); set for HTTP clients */
	falcon_rf_send_resp_fn send_resp;
	void *ctx;
	int retries;                     /* re-reads after 412 */
	long budget;                     /* fetches left in this operation */
	long max_fetches;                /* budget given to each operation */
	char chassis[FALCON_NAME_LEN];   /* default falcon_device.chassis */
	/* redfish-fabric: the fabric and its collections; "" = discover */
	char fabric[FALCON_RF_PATH_LEN];
	char zones[FALCON_RF_PATH_LEN];
	char endpoints[FALCON_RF_PATH_LEN];
	/* redfish-composition */
	char blocks[FALCON_RF_PATH_LEN];
	char systems[FALCON_RF_PATH_LEN];
	/* redfish-fabric: the zones as last seen by this client (rf_fabric.c) */
	struct falcon_be_zone zcache[FALCON_BE_ZCACHE];
	/* descriptions of device resources (chassis_common.c falcon_be_desc_*);
	 * desc_max_age_ms 0 = not kept (every inventory reads everything) */
	struct falcon_be_desc *descs;    /* owned */
	size_t ndescs;
	long long desc_max_age_ms;
	int desc_refresh_left;           /* stale entries this inventory may re-read */
	bool desc_changed;               /* an entry added, replaced or dropped */
};

/*
 * falcon_chassis_open_io - a chassis client over explicit callbacks (unit
 * tests: falcon_rf_dir_get over a mockup; the fuzzer: its own input).
 * fabric may be NULL (discover from /redfish/v1/Fabrics).  send may be NULL
 * for read-only use (attach/detach then fail with FALCON_ERR_UNSUPPORTED).
 * max_fetches 0 = FALCON_BE_MAX_FETCHES.  Free with falcon_chassis_close().
 */
falcon_err_t falcon_chassis_open_io(falcon_backend_t backend, falcon_rf_get_fn get,
				    falcon_rf_send_fn send, void *ctx,
				    const char *fabric, long max_fetches,
				    struct falcon_chassis **out);

/*
 * falcon_events_listen - falcon_chassis_listen() over an HTTP client
 * (chassis_events.c): the ServerSentEventUri from the service root's
 * EventService, streamed with falcon_rf_stream(), split with
 * falcon_sse_feed() and parsed with falcon_rf_events_parse().  Errors as
 * falcon_chassis_listen().
 */
falcon_err_t falcon_events_listen(struct falcon_rf *rf, const char *chassis,
				  struct falcon_chassis_listen *l);

/* falcon_events_offer / _subscribe / _sub_check / _unsubscribe - the
 * subscription calls of chassis.h over an HTTP client (chassis_events.c);
 * chassis names the chassis in messages.  Errors as their chassis.h forms. */
falcon_err_t falcon_events_offer(struct falcon_rf *rf, const char *chassis, bool *sse,
				 bool *subs);
falcon_err_t falcon_events_subscribe(struct falcon_rf *rf, const char *chassis,
				     struct falcon_chassis_sub *s);
falcon_err_t falcon_events_sub_check(struct falcon_rf *rf, const char *chassis,
				     const struct falcon_chassis_sub *s);
falcon_err_t falcon_events_unsubscribe(struct falcon_rf *rf, const char *chassis,
				       const struct falcon_chassis_sub *s);

#endif /* FALCON_CHASSIS_BACKEND_H */
