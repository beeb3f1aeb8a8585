/*
 * chassis_types.h - the chassis client's data: a device, the inventory and
 * its cabling, an event record, a listen's and a subscription's settings,
 * and their limits.  The bottom of lib/chassis: it includes no header of
 * the part, and every header of the part (chassis.h, the front end;
 * redfish.h, chassis_backend.h, chassis_common.h, the Redfish code) takes
 * its types from here, none from the front end above it.  The inventory's
 * own two functions are here too (chassis_common.c); the client's
 * functions are declared in chassis.h.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_CHASSIS_TYPES_H
#define FALCON_CHASSIS_TYPES_H

#include <stdbool.h>
#include <stddef.h>

#include "core/conf.h"
#include "core/device.h"
#include "core/falcon_err.h"

struct falcon_device {
	char id[FALCON_NAME_LEN];  /* endpoint / resource block id: "drawer1_slot3" */
	char odata_id[256];        /* its @odata.id */
	char chassis[FALCON_NAME_LEN];
	int drawer;                /* 1-based; 0 = unknown */
	int slot;                  /* 1-based; 0 = unknown */
	falcon_dev_type_t type;
	char vendor_id[8];         /* lowercase hex "10de"; "" = not given */
	char device_id[8];         /* lowercase hex "1db4"; "" = not given */
	char serial[64];
	char model[64];
	char owner[FALCON_NAME_LEN]; /* host port ("H1") / system id, "" = free;
				      * a shared device lists its owners "A,B" */
	char state[32];            /* Redfish Status.State, e.g. "Enabled" */
	char health[16];           /* Redfish Status.Health: "OK", "Warning", "Critical" */
	/* added with the Redfish client */
	char manufacturer[64];     /* Manufacturer, "" = not given */
	char composition[32];      /* CompositionStatus.CompositionState
				    * (redfish-composition), "" otherwise */
};

#define FALCON_CABLES_MAX 32

/* A host port cabled to a drawer's switch: the service's Zone
 * Links.InvolvedSwitches (Zone.v1_6), the switch named "drawer<D>". */
struct falcon_cable {
	char port[FALCON_NAME_LEN];  /* "H1" */
	int drawer;                  /* 1-based */
};

struct falcon_inventory {
	size_t n;
	struct falcon_device *devs; /* owned; free with falcon_inventory_free() */
	/* which drawers each port reaches, as the service says (redfish-fabric,
	 * a zone's InvolvedSwitches); ncables 0 and cabling_known false when
	 * the service does not say */
	bool cabling_known;
	size_t ncables;
	struct falcon_cable cables[FALCON_CABLES_MAX];
};

struct falcon_chassis; /* opaque client handle */

/*
 * FALCON_CHASSIS_TIMEOUT_MARK - in the detail of a FALCON_ERR_TIMEOUT
 * when a request ran out the time its chassis' own key allows (Timeout=
 * for a read, ChangeTimeout= for a change), not the caller's budget: the
 * key is too short for that chassis.  The detail crosses falcond's API as
 * its "error", where a client finds it (falcon-prolog: falcon:waiting=
 * chassis_timeout, fp_wait_why()).
 */
#define FALCON_CHASSIS_TIMEOUT_MARK "chassis_timeout:"

/* the most devices in one falcon_chassis_attach_set() / _detach_set(): a
 * Falcon 4016 has 2 drawers of 8 slots (the paper's Table III); twice that,
 * as many as one lease may hold (FALCON_PROTO_MAX_DEVS) */
#define FALCON_CHASSIS_SET_MAX 32

typedef enum {
	FALCON_EVENT_OTHER = 0, /* a record we do not act on */
	FALCON_EVENT_HEALTH,    /* ResourceStatusChanged{OK,Warning,Critical} */
	FALCON_EVENT_REMOVED,   /* ResourceRemoved: the device left the fabric */
} falcon_event_kind_t;

/*
 * One record of a Redfish Event (schema #Event.v1_x: Events[] of EventType,
 * EventId, MessageId, MessageArgs, Severity, Message, OriginOfCondition;
 * messages of DMTF's ResourceEvent registry, any 1.x version).
 */
struct falcon_chassis_event {
	falcon_event_kind_t kind;
	char chassis[FALCON_NAME_LEN];  /* the client's name */
	char device[FALCON_NAME_LEN];   /* last segment of OriginOfCondition ("drawer1_slot2"),
					 * "" when the record has none */
	char health[16];                /* HEALTH: "OK", "Warning" or "Critical" */
	char message_id[128];           /* "ResourceEvent.1.4.ResourceStatusChangedCritical" */
	char event_id[64];              /* the SSE id (else the Event's Id) */
	char origin[256];               /* OriginOfCondition's @odata.id */
	char message[256];              /* Message, control characters replaced by '?' */
};

/*
 * How falcon_chassis_listen() reports and is stopped.  on_event gets each
 * record (valid during the call); stop (may be NULL) is polled every
 * 100 ms (see falcon_rf_stream_opts) and while connecting, true ends the
 * listen; on_open (may be NULL) is told once the stream answered 200
 * text/event-stream.
 */
struct falcon_chassis_listen {
	void (*on_event)(void *ctx, const struct falcon_chassis_event *ev);
	bool (*stop)(void *ctx);
	void (*on_open)(void *ctx, const char *sse_uri);
	void *ctx;
	int stall_s;         /* no byte (event or keep-alive) this long: the stream is
			      * dead (FALCON_ERR_TIMEOUT); 0 = 60 */
	char last_id[64];    /* in: sent as Last-Event-ID when not ""; out: the last
			      * SSE id received */
};

#define FALCON_CHASSIS_SUB_PATH_LEN 256
/* One event subscription: what it is made with (the caller's strings,
 * which must outlive the calls) and, once made, its URI. */
struct falcon_chassis_sub {
	const char *destination;  /* where the chassis POSTs: http(s)://... */
	const char *context;      /* its Context (echoed in each Event): tells ours
				   * from others' */
	const char *auth;         /* the Authorization header value the chassis
				   * sends with each event (HttpHeaders), NULL = none */
	char path[FALCON_CHASSIS_SUB_PATH_LEN]; /* out: the EventDestination's URI */
};

/* falcon_inventory_free - free inv's devices and zero it; NULL ok. */
void falcon_inventory_free(struct falcon_inventory *inv);

/* falcon_inventory_add - append a copy of dev to inv (which may be zeroed);
 * FALCON_ERR_NOMEM. */
falcon_err_t falcon_inventory_add(struct falcon_inventory *inv,
				  const struct falcon_device *dev);

#endif /* FALCON_CHASSIS_TYPES_H */
