/*
 * sim_server.h - falcon-sim's running state shared by the HTTP side
 * (falcon-sim.c, sim_redfish.c) and the host side (sim_host.c).
 *
 * Layered, no file calls back into its caller: falcon-sim.c (HTTP,
 * admin, main) calls sim_redfish.c and sim_host.c; sim_redfish.c calls
 * sim_host.c (a detach's surprise removal); sim_host.c calls only the
 * pure parts (sim.h), never the HTTP side.
 *
 * One mutex guards everything below it; HTTP handlers (one thread per
 * connection) and the inotify thread take it for each operation.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_SIM_SERVER_H
#define FALCON_SIM_SERVER_H

#include <pthread.h>
#include <stdbool.h>

#include <json-c/json.h>

#include "sim.h"

#define SIM_MAX_SESSIONS 64

struct sim_session {
	char id[24];
	char token[65];
	char user[SIM_NAME_LEN];
};

/*
 * Accounts and the predefined roles (DSP0266 1.20 sec. 13.4 "Authorization":
 * privileges Login, ConfigureComponents, ConfigureManager, ConfigureUsers,
 * ConfigureSelf; roles Administrator (all five), Operator (Login,
 * ConfigureComponents, ConfigureSelf), ReadOnly (Login, ConfigureSelf)).
 */
#define SIM_MAX_ACCOUNTS 16
#define SIM_PASS_LEN 128
enum {
	SIM_PRIV_LOGIN = 1u << 0,
	SIM_PRIV_COMPONENTS = 1u << 1,   /* ConfigureComponents */
	SIM_PRIV_MANAGER = 1u << 2,      /* ConfigureManager */
	SIM_PRIV_USERS = 1u << 3,        /* ConfigureUsers */
	SIM_PRIV_SELF = 1u << 4,         /* ConfigureSelf */
	SIM_PRIV_ALL = 0x1fu,
};
typedef enum { SIM_ROLE_ADMIN = 0, SIM_ROLE_OPERATOR, SIM_ROLE_READONLY, SIM_NROLES } sim_role_t;
struct sim_account {
	bool used;
	char id[16];                  /* URI segment: "1", "2", ... */
	char user[SIM_NAME_LEN];
	char password[SIM_PASS_LEN];
	sim_role_t role;
	bool enabled;
};

/* Who sent a request: an account (index) or anonymous (-1, when the
 * service requires no authentication: every privilege). */
struct sim_caller {
	int account;
	unsigned privs;               /* SIM_PRIV_* of its role */
	char session[24];             /* the session id it came with, "" = basic auth */
};

/*
 * An asynchronous attach or detach (DSP0266 1.20 sec. 12.2, "Asynchronous
 * operations"): accepted with 202 and a task monitor, applied when it is
 * due (checked again against the rules then), or failed on purpose.
 */
#define SIM_MAX_TASKS 32
typedef enum { SIM_TASK_FREE = 0, SIM_TASK_RUNNING, SIM_TASK_COMPLETED,
	       SIM_TASK_EXCEPTION, SIM_TASK_CANCELLED } sim_task_state_t;
struct sim_task {
	sim_task_state_t state;
	unsigned long id;
	char idstr[24];                      /* id as the URI segment */
	long long start_ms, due_ms, end_ms;  /* CLOCK_MONOTONIC ms */
	char start_time[32], end_time[32];   /* ISO 8601, for the Task resource */
	bool zone;                           /* PATCH of a zone, else a block action */
	bool add;                            /* block action: Add, else Remove */
	int p, d, s;
	bool want[SIM_DRAWERS][SIM_SLOTS];   /* zone: the new member set */
	bool fail;                           /* end in Exception (fault) */
	int http_status;                     /* Exception: the failure's HTTP status */
	bool monitor_gone;                   /* DELETEd: its monitor answers 404 */
	char message[256];                   /* the outcome, for Messages */
};

struct sim_host_state;

/*
 * Redfish events (sim_events.c): the last SIM_MAX_EVENTS events, each the
 * JSON text of one Event (#Event.v1_7_0) with its id, served on the
 * EventService's ServerSentEventUri (DSP0266 1.20 sec. 13.5.2) and kept
 * so that a client reconnecting with Last-Event-ID gets what it missed.
 */
#define SIM_MAX_EVENTS 64
#define SIM_SSE_PATH "/redfish/v1/EventService/SSE"
struct sim_event {
	unsigned long id;      /* 1, 2, ...; 0 = unused */
	char *text;            /* the Event's JSON, one line (owned) */
	char prefix[32];       /* its MessageId's registry prefix ("ResourceEvent") */
	char rtype[32];        /* its OriginOfCondition's resource type ("PCIeDevice"),
				* "" when none */
};

/*
 * Event subscriptions (sim_subs.c; DSP0266 1.20 sec. 13.5.3 "Event
 * subscription", EventDestination.v1_13_0): each kept event newer than
 * `after` that passes the filters is POSTed to Destination by the delivery
 * thread, in order, DeliveryRetryAttempts times DeliveryRetryIntervalSeconds
 * apart; one that still fails ends the subscription (DeliveryRetryPolicy
 * TerminateAfterRetries).
 */
#define SIM_MAX_SUBS 16
#define SIM_SUB_FILTERS 8       /* RegistryPrefixes / ResourceTypes entries */
#define SIM_SUB_HEADERS 4       /* HttpHeaders entries */
#define SIM_SUB_RETRIES 3       /* DeliveryRetryAttempts */
#define SIM_SUB_RETRY_S 1       /* DeliveryRetryIntervalSeconds */
struct sim_sub {
	bool used;
	unsigned long gen;            /* its creation number, also its Id */
	char id[16];
	char dest[512];               /* Destination: http:// or https:// URI */
	char context[256];            /* Context, "" = none */
	char owner[SIM_NAME_LEN];     /* the account that created it, "" = anonymous */
	int nprefixes, ntypes, nheaders;
	char prefixes[SIM_SUB_FILTERS][32];
	char types[SIM_SUB_FILTERS][32];
	char hname[SIM_SUB_HEADERS][64];
	char hvalue[SIM_SUB_HEADERS][512]; /* never shown (HttpHeaders is null in
					    * responses); wiped at delete */
	unsigned long after;          /* the last event delivered or filtered out */
	unsigned long delivered, failed; /* counts, for /admin/state */
};

struct sim_server {
	pthread_mutex_t lock;
	pthread_cond_t cond;          /* broadcast on stop and fault changes */
	bool stopping;
	unsigned long fault_gen;      /* bumped whenever the faults are replaced */
	struct sim_config cfg;
	struct sim_state st;
	/* auth (sim_accounts.c): no account = anonymous requests accepted */
	struct sim_account accounts[SIM_MAX_ACCOUNTS];
	unsigned long next_account;
	struct sim_session sessions[SIM_MAX_SESSIONS];
	unsigned long next_session;
	/* connections (falcon-sim.c): accepted, and those that carried a Redfish
	 * request; with TLS each is one full handshake (no session resumption) */
	bool tls;
	unsigned long connections, redfish_connections;
	/* host side */
	char *sysfs_root;
	struct sim_host_state *host;
	/* asynchronous operations (sim_redfish.c) */
	struct sim_task tasks[SIM_MAX_TASKS];
	unsigned long next_task;
	/* device health and presence (POST /admin/health), [drawer-1][slot-1]:
	 * "" = "OK"; removed = gone from the fabric (Status.State Absent) */
	char health[SIM_DRAWERS][SIM_SLOTS][12];
	bool removed[SIM_DRAWERS][SIM_SLOTS];
	/* events (sim_events.c); srv->cond is broadcast on each new one */
	struct sim_event events[SIM_MAX_EVENTS];
	unsigned long last_event;     /* id of the newest, 0 = none yet */
	bool no_sse;                  /* --no-sse: subscriptions only */
	bool no_switches;             /* --no-switches: no Switches, no zone's
				       * InvolvedSwitches (the cabling unsaid) */
	/* subscriptions (sim_subs.c) */
	struct sim_sub subs[SIM_MAX_SUBS];
	unsigned long next_sub;
	char *event_ca;               /* --event-ca: CA file verifying https
				       * destinations, NULL = the system store */
	pthread_t sender;
	bool sender_started;
};

/* A reply built by sim_redfish_*: status, JSON body (owned), extra headers. */
struct sim_reply {
	int status;
	struct json_object *body;     /* NULL = empty body */
	bool etag;                    /* add ETag + @odata.etag (a resource) */
	char allow[64];               /* the Allow header (GET, HEAD and 405) */
	char location[256];
	char token[80];
	const char *text;             /* a body that is not JSON (static), or NULL */
	bool test_event;              /* SubmitTestEvent allowed: the caller sends it */
	const char *ctype;            /* its Content-Type */
};

/*
 * sim_redfish_handle - serve one Redfish request (path without query,
 * method, body of len bytes, the If-Match header or NULL) for who (its
 * privileges checked per resource and method, DSP0266 1.20 sec. 13.4;
 * 403 Base.1.16.InsufficientPrivilege naming the privilege) under srv->lock.
 * Fills *r; never fails (errors are replies).  Caller frees r->body.
 */
void sim_redfish_handle(struct sim_server *srv, const struct sim_caller *who,
			const char *method, const char *path,
			const char *body, size_t len, const char *if_match,
			struct sim_reply *r);

/*
 * sim_reply_error - an error reply with DMTF's error body:
 * {"error": {"code", "message", "@Message.ExtendedInfo": [{MessageId, Message,
 * Severity, Resolution}]}}.  message is printf-style.
 */
void sim_reply_error(struct sim_reply *r, int status, const char *message_id,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * sim_etag_of - the strong ETag ("\"<16 hex>\"", FNV-1a 64 of the
 * resource's JSON without @odata.etag) into buf of size >= 24.
 */
void sim_etag_of(struct json_object *o, char *buf, size_t n);

/*
 * sim_etag_listed - whether a header's list of entity tags (If-Match,
 * If-None-Match: comma/blank separated, "*" for any, "W/" prefixes
 * ignored; RFC 9110 sections 13.1.1-13.1.2) names etag.  list NULL or
 * over 1023 bytes reads as far as it fits; false for NULL.
 */
bool sim_etag_listed(const char *list, const char *etag);

/* sim_state_json - GET /admin/state: who owns what, what each host sees. */
struct json_object *sim_state_json(struct sim_server *srv);

/* ---- sim_events.c: Redfish events (under srv->lock) ---- */

/*
 * sim_events_admin - POST /admin/health with body
 * {"device":"drawer1_slot2","health":"OK"|"Warning"|"Critical"} (a health
 * change: the device's Status.Health in the Redfish tree and, when it
 * changed, a ResourceEvent.1.4.ResourceStatusChanged<Health> event) or
 * {"device":"drawer1_slot2","removed":true} (the device leaves the fabric:
 * Status.State Absent and a ResourceEvent.1.4.ResourceRemoved event).
 * Fills r: 200 with {"device","health","removed","event"} (event: the id
 * of the event sent, null when nothing changed), 400 for a malformed body
 * or an unknown / empty slot.  Caller frees r->body.
 */
void sim_events_admin(struct sim_server *srv, struct json_object *body, struct sim_reply *r);

/*
 * sim_events_next - the SSE text of the oldest kept event newer than
 * after ("id: N\ndata: {json}\n\n", WHATWG HTML "Server-sent events"
 * framing as DSP0266 1.20 sec. 13.5.2 uses it) into a new string (caller
 * frees) and its id into *id; NULL when there is none (or out of memory).
 * An after beyond the newest id (a client of an earlier run) counts as 0.
 */
char *sim_events_next(struct sim_server *srv, unsigned long after, unsigned long *id);

/*
 * sim_events_test - EventService.SubmitTestEvent (EventService.v1_10_0):
 * an Event with the request's MessageId (default
 * "ResourceEvent.1.4.ResourceChanged"), Message, Severity and
 * OriginOfCondition when given, kept and streamed like any other.  Returns
 * its id, 0 when out of memory.
 */
unsigned long sim_events_test(struct sim_server *srv, struct json_object *body);

/* sim_events_free - free the kept events (at stop). */
void sim_events_free(struct sim_server *srv);

/* ---- sim_subs.c: event subscriptions (under srv->lock unless noted) ---- */

/*
 * sim_sub_create - POST EventService/Subscriptions (DSP0266 1.20 sec.
 * 13.5.3.1) by who (its account becomes the owner): body {Destination
 * (http:// or https://, required), Protocol "Redfish" (required), Context,
 * RegistryPrefixes[], ResourceTypes[], HttpHeaders{name: value},
 * EventFormatType "Event", SubscriptionType "RedfishEvent"}.  Returns the
 * new subscription's index; or -1 with *status (400 a missing or bad
 * property, 507 when SIM_MAX_SUBS exist), *key the Base registry's message
 * key ("PropertyMissing", "PropertyValueNotInList",
 * "PropertyValueFormatError", "PropertyUnknown", "InsufficientStorage";
 * static) and msg (n bytes) naming the property and why.  Events kept
 * before it are not sent to it.
 */
int sim_sub_create(struct sim_server *srv, const struct sim_caller *who,
		   struct json_object *body, int *status, const char **key, char *msg, size_t n);

/* sim_sub_find - the index of the used subscription whose Id is id, or -1. */
int sim_sub_find(const struct sim_server *srv, const char *id);

/* sim_sub_owned - whether who created subscription i (ConfigureSelf on it). */
bool sim_sub_owned(const struct sim_server *srv, int i, const struct sim_caller *who);

/* sim_sub_json - subscription i as #EventDestination.v1_13_0 (HttpHeaders
 * null, as the schema requires in responses); new reference. */
struct json_object *sim_sub_json(const struct sim_server *srv, int i);

/* sim_sub_delete - DELETE subscription i: wiped, no event is sent to it
 * afterwards (one being POSTed completes). */
void sim_sub_delete(struct sim_server *srv, int i);

/* sim_subs_json - the subscriptions for /admin/state (id, destination,
 * context, after, delivered, failed; no header values). */
struct json_object *sim_subs_json(const struct sim_server *srv);

/*
 * sim_subs_start - start the delivery thread (takes srv->lock itself; POSTs
 * with libcurl without it: JSON body, Content-Type application/json, the
 * subscription's HttpHeaders, 5 s per try, https verified against
 * srv->event_ca or the system store).  FALCON_ERR_NOMEM/IO when it cannot
 * start.  sim_subs_stop (srv->stopping set and srv->cond broadcast first)
 * joins it; a no-op when not started.
 */
falcon_err_t sim_subs_start(struct sim_server *srv);
void sim_subs_stop(struct sim_server *srv);

/* ---- sim_accounts.c: accounts, roles, privileges (under srv->lock) ---- */

/*
 * sim_accounts_load - read path: lines "ROLE USER PASSWORD" (ROLE one of
 * Administrator, Operator, ReadOnly; the password is the rest of the
 * line; '#' comments and blank lines skipped), or one line "user:password"
 * (an Administrator, the --credentials form) when admin_line.  Adds to
 * srv->accounts.  FALCON_ERR_CONFIG "path:line: ..." on a bad line or more
 * than SIM_MAX_ACCOUNTS, FALCON_ERR_NOTFOUND/IO when unreadable.
 */
falcon_err_t sim_accounts_load(struct sim_server *srv, const char *path, bool admin_line);

/* sim_accounts_any - whether any account exists (authentication required). */
bool sim_accounts_any(const struct sim_server *srv);

/* sim_account_check - the enabled account whose user and password match
 * (constant-time password compare), or -1. */
int sim_account_check(const struct sim_server *srv, const char *user, const char *password);

/* sim_account_find - the account named user (enabled or not), or -1. */
int sim_account_find(const struct sim_server *srv, const char *user);

/* sim_role_privs - the SIM_PRIV_* bits of a role; sim_role_name its RoleId
 * ("Administrator", ...); sim_role_parse the role of a RoleId, -1 if none. */
unsigned sim_role_privs(sim_role_t role);
const char *sim_role_name(sim_role_t role);
int sim_role_parse(const char *id);

/* sim_priv_name - DSP0266's name of one SIM_PRIV_* bit ("ConfigureUsers");
 * "?" for anything else. */
const char *sim_priv_name(unsigned priv);
/* sim_priv_names - the names of the SIM_PRIV_* bits of privs, any one of
 * which grants an operation, as "ConfigureComponents or ConfigureManager"
 * (lowest bit first) into buf (n bytes, always terminated); returns buf. */
const char *sim_priv_names(unsigned privs, char *buf, size_t n);

/* sim_account_json / sim_role_json - a ManagerAccount (#ManagerAccount.v1_12_0)
 * or Role (#Role.v1_3_2) resource; new references, NULL when out of memory. */
struct json_object *sim_account_json(const struct sim_account *a);
struct json_object *sim_role_json(sim_role_t role);

/*
 * sim_account_create - POST AccountService/Accounts {UserName, Password,
 * RoleId[, Enabled]}: the new account's index, or -1 with *status (400 a
 * missing or bad property, 409 the name taken, 507 the table full) and
 * msg (n bytes) saying why.
 */
int sim_account_create(struct sim_server *srv, struct json_object *body, int *status,
		       char *msg, size_t n);

/*
 * sim_account_patch - PATCH an account {Password, RoleId, Enabled}; a
 * caller with only ConfigureSelf may change its own Password and nothing
 * else.  OData annotations ("@odata.id", "@odata.etag"...) are ignored
 * (DSP0266 sec. 7.5.3), so a body of annotations alone changes nothing, as
 * {} does.  0, or -1 with *status (400 bad property, 403 not allowed) and
 * msg.
 */
int sim_account_patch(struct sim_server *srv, int idx, const struct sim_caller *who,
		      struct json_object *body, int *status, char *msg, size_t n);

/* sim_accounts_wipe - zero every password (at stop). */
void sim_accounts_wipe(struct sim_server *srv);

/* ---- sim_odata.c: OData documents (pure) ---- */

/*
 * sim_odata_metadata - the CSDL document served at /redfish/v1/$metadata
 * (DSP0266 1.20 sec. 8.4 "Service metadata", OData CSDL 4.0): an
 * edmx:Reference with edmx:Include for every DMTF namespace falcon-sim's
 * resources use, one for the Falcon OEM schema (SIM_SCHEMA_CSDL, served by
 * falcon-sim: sim_schema.c) and the Service entity container.  Static
 * storage; never NULL.
 */
const char *sim_odata_metadata(void);

/* sim_odata_service_doc - the OData service document (/redfish/v1/odata,
 * DSP0266 sec. 8.5): the service root's top-level resources (new reference). */
struct json_object *sim_odata_service_doc(void);

/*
 * sim_odata_schema_uri - the JSON schema of a resource from its @odata.type
 * ("#Chassis.v1_25_0.Chassis" -> https://redfish.dmtf.org/schemas/v1/
 * Chassis.v1_25_0.json) into buf (n bytes) for the Link rel=describedby
 * header (DSP0266 sec. 8.2.2).  false when odata_type is malformed or buf small.
 */
bool sim_odata_schema_uri(const char *odata_type, char *buf, size_t n);

/* ---- sim_schema.c: the Falcon OEM schema (pure) ---- */

#define SIM_SCHEMA_CSDL "/redfish/v1/Schemas/Falcon_v1.xml"
#define SIM_SCHEMA_JSON "/redfish/v1/Schemas/Falcon.v1_0_0.json"

/*
 * sim_schema_csdl / sim_schema_json - the Falcon OEM schema (namespaces
 * Falcon and Falcon.v1_0_0: the Chassis' and the Endpoints' Oem.Falcon) as
 * CSDL (DSP0266 1.20 sec. 8.4 and 9.8; DSP0274), served at SIM_SCHEMA_CSDL
 * and referenced from $metadata, and as a draft-07 JSON Schema with the
 * same types under definitions, served at SIM_SCHEMA_JSON.  Static
 * storage, never NULL.
 */
const char *sim_schema_csdl(void);
const char *sim_schema_json(void);

/* ---- sim_host.c: the host side (sysfs-shaped trees) ---- */

/*
 * sim_host_start - create srv->sysfs_root/<host>/bus/pci/{devices/,rescan}
 * for every host with its local devices, Falcon adapters and switch ports,
 * and start the inotify thread.  FALCON_ERR_IO / FALCON_ERR_PCI on failure.
 */
falcon_err_t sim_host_start(struct sim_server *srv);
/* sim_host_stop - stop the inotify thread and free; the trees stay. */
void sim_host_stop(struct sim_server *srv);
/* Called under srv->lock after the chassis detached drawer d slot s from port p:
 * surprise removal on the host when the device is still on its bus. */
void sim_host_detached(struct sim_server *srv, int p, int d, int s);

#endif /* FALCON_SIM_SERVER_H */
