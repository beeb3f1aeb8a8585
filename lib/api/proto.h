/*
 * proto.h - request and response bodies of the falcond API (JSON, json-c),
 * shared by falcond, falconctl and falcon-prolog.
 *
 *   POST /v1/compose    {"job_id":N,"host":"node1","gpus":N,"nvme":N,
 *                        "place":"pack|spread|any","partition":"p",
 *                        "uid":N,"local_gpus":N}  -> lease
 *   POST /v1/decompose  {"job_id":N} or {"lease":"L-..."}, optional "check":"text"
 *                        -> {"closed":[lease ids],"quarantined":N}
 *   POST /v1/quarantine {"chassis":"c1","device":"drawer1_slot3","reason":"..."}
 *   POST /v1/unquarantine {"chassis":"c1","device":"drawer1_slot3"}
 *   errors              {"error":"detail","code":"<falcon_err_name>"}
 *
 * A lease: {"id","job_id","uid","host","partition","place","state",
 *           "created","devices":[{"chassis","id","port","drawer","slot","type",
 *           "vendor_id","device_id","serial"}]}; times in ms since the epoch.
 *           A device's phys_slot and bdf (the host's) are not sent.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_PROTO_H
#define FALCON_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "core/device.h"
#include "core/conf.h"
#include "core/falcon_err.h"

#define FALCON_PROTO_MAX_BODY (64 * 1024) /* bytes; larger bodies are 413 */
#define FALCON_PROTO_MAX_DEVS 32          /* 2 drawers x 8 slots, twice over */
#define FALCON_LEASE_ID_LEN 48

struct falcon_compose_req {
	uint32_t job_id;            /* Slurm job id, >= 1 */
	char host[FALCON_NAME_LEN]; /* HostName= in falcon.conf */
	int gpus;                   /* falcon GPUs wanted, 0-16 */
	int nvme;                   /* falcon NVMe wanted, 0-16 */
	int local_gpus;             /* the job's own (node) GPUs, for the label */
	bool place_set;             /* place given; else the partition's Place= */
	falcon_place_t place;
	char partition[FALCON_NAME_LEN]; /* "" = DEFAULT */
	long uid;                   /* job owner's uid, -1 = not given */
	bool on_node;               /* asked by the node's own prolog ("on_node":
				     * true), which puts the devices on the node's
				     * bus next; false: PrologSlurmctld's, whose
				     * lease no node may have seen yet */
	/* not in the body: falcond's deadline for this request (falcon_now_ms()
	 * clock), from the caller's header FALCON_PROTO_BUDGET_HEADER; 0 = none */
	long long deadline_ms;
	/* not in the body: when falcond received it (falcon_now_ms()); 0 =
	 * unknown (falcond_job_ended_since is then not asked) */
	long long asked_ms;
	/* not in the body: asker_gone(asker) tells whether the asker has gone
	 * (its connection closed: a PrologSlurmctld slurmctld killed); NULL =
	 * cannot be told */
	bool (*asker_gone)(void *asker);
	void *asker;
};

/*
 * The caller's budget of a request, in ms: how long it waits for the
 * answer (the client's timeout of that request, itself within the
 * prolog's bound).  A header, so that a falcond that does not know it
 * ignores it: falcond starts no compose attempt, and sends no chassis
 * change, once it has passed.
 */
#define FALCON_PROTO_BUDGET_HEADER "X-Falcon-Budget-Ms"

struct falcon_decompose_req {
	uint32_t job_id;                   /* 0 = by lease */
	char lease[FALCON_LEASE_ID_LEN];   /* "" = by job */
	char check[128];                   /* the job's check result for the history, "" = none */
	bool keep;                         /* the epilog allows falcond to keep the devices
					    * on the node for the partition's KeepWarm=
					    * seconds (it removed them from the bus and
					    * none would not come off); false: detach now */
	bool off_node;                     /* with job_id only ("off_node": true): close
					    * only the job's leases no node prolog has
					    * asked for (lease.on_node false), after any
					    * compose of the job in flight has ended:
					    * EpilogSlurmctld's, for a job that ended
					    * before its node prolog ran (cancelled in
					    * CONFIGURING), whose devices never reached a
					    * node's bus.  Never kept. */
};

struct falcon_device_req {
	char chassis[FALCON_NAME_LEN];
	char device[FALCON_NAME_LEN];      /* "drawer1_slot3" */
	char reason[256];                  /* quarantine only; "" allowed */
};

/*
 * One device of a lease: the one record of a device from falcond's answer
 * to the prolog's lease.json and topology.json.  The fields up to serial
 * are falcond's (the wire and the ledger); phys_slot and bdf are the
 * host's, filled by falcon-prolog (prolog/fp_common.h fp_lease_on_host(),
 * fp_match()) and never on falcond's wire: falcon_proto_lease_json() does
 * not write them and falcon_proto_lease_from_json() leaves them 0 and "".
 */
struct falcon_lease_dev {
	char chassis[FALCON_NAME_LEN];
	char id[FALCON_NAME_LEN];          /* "drawer1_slot3" */
	char port[FALCON_NAME_LEN];        /* host port it is attached to ("H1") */
	int drawer, slot;
	falcon_dev_type_t type;
	char vendor_id[8], device_id[8];   /* "10de", "" = not given */
	char serial[64];
	/* the host's, not on falcond's wire */
	int phys_slot;                     /* PCIe Physical Slot Number the host sees
					    * (falcon_pcicfg_phys_slot()), 0 = unknown */
	char bdf[FALCON_BDF_LEN];          /* "0000:3d:00.0", "" = not found on the bus (yet) */
};

struct falcon_lease {
	char id[FALCON_LEASE_ID_LEN];
	uint32_t job_id;
	long uid;                          /* -1 = unknown */
	char host[FALCON_NAME_LEN];
	char partition[FALCON_NAME_LEN];
	falcon_place_t place;
	char state[16];                    /* "composing", "active", "closing", "kept" */
	long long created_ms;
	long long kept_ms;                 /* state "kept": when its job's epilog gave
					    * the devices back to be kept warm (ms since
					    * the epoch); 0 otherwise ("kept" in JSON,
					    * written only when set) */
	bool reset;                        /* (an answer) the devices were kept warm for
					    * another user: falcon-prolog runs
					    * KeepWarmReset= on them first ("reset") */
	bool on_node;                      /* a node prolog has asked for it (compose
					    * with on_node): its devices may be on that
					    * node's bus, so only the node epilog closes
					    * it ("on_node", written only when set) */
	size_t ndevs;
	struct falcon_lease_dev devs[FALCON_PROTO_MAX_DEVS];
};

/*
 * Parsers: body (len bytes, not necessarily NUL-terminated) into *out.
 * Unknown keys, wrong types, out-of-range numbers and missing required
 * fields are FALCON_ERR_PARSE with the field named in the detail
 * ("compose: gpus: expected an integer in [0, 16]"); so are JSON that
 * json-c's JSON_TOKENER_STRICT refuses (comments, trailing commas,
 * anything after the object but white space) and a key given twice in one object ("compose: body: key
 * "job_id" given twice"; RFC 8259 section 4).
 */
falcon_err_t falcon_proto_parse_compose(const char *body, size_t len,
					struct falcon_compose_req *out);
falcon_err_t falcon_proto_parse_decompose(const char *body, size_t len,
					  struct falcon_decompose_req *out);
/* quarantine: reason_allowed true; unquarantine: false (reason is unknown). */
falcon_err_t falcon_proto_parse_device(const char *body, size_t len, bool reason_allowed,
				       struct falcon_device_req *out);

/* Builders: new json objects (caller puts them), never NULL except on ENOMEM. */
json_object *falcon_proto_compose_json(const struct falcon_compose_req *req);
json_object *falcon_proto_lease_json(const struct falcon_lease *l);
json_object *falcon_proto_error_json(falcon_err_t err, const char *detail);

/*
 * falcon_proto_lease_from_json - a lease object (as falcon_proto_lease_json
 * writes it; also the ledger's form) into *out.  FALCON_ERR_PARSE naming
 * the field on anything missing or malformed.
 */
falcon_err_t falcon_proto_lease_from_json(json_object *o, struct falcon_lease *out);

/* falcon_proto_err_from_name - falcon_err_name() inverse; unknown -> PROTOCOL. */
falcon_err_t falcon_proto_err_from_name(const char *name);

/* falcon_proto_http_status - HTTP status for an error code (200 for OK). */
unsigned falcon_proto_http_status(falcon_err_t err);

#endif /* FALCON_PROTO_H */
