/*
 * sim.h - falcon-sim, the Falcon 4016 chassis emulator: configuration,
 * chassis state and the rules the real chassis enforces.
 *
 * The pure parts (configuration parsing and validation, mode rules, fault
 * rules, where a slot's device sits on a host's bus) live in sim_config.c
 * and sim_model.c and are unit tested; the HTTP server (falcon-sim.c,
 * sim_redfish.c) and the host side (sim_host.c) sit on top of them.
 *
 * Naming (lib/chassis/chassis.h): host ports "H1".."H4", devices "drawer<D>_slot<S>".
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_SIM_H
#define FALCON_SIM_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "core/device.h"
#include "core/falcon_err.h"

#define SIM_DRAWERS 2          /* Falcon 4016: 2 drawers ... */
#define SIM_SLOTS 8            /* ... of 8 PCIe Gen4 slots */
#define SIM_PORTS 4            /* 4 host ports H1..H4 */
#define SIM_MAX_LOCAL 32       /* local devices per host */
#define SIM_MAX_RULES 32       /* request fault rules */
#define SIM_NAME_LEN 64
#define SIM_BDF_LEN 16

typedef enum { SIM_MODE_STANDARD = 0, SIM_MODE_ADVANCED } sim_mode_t;
/* What the host sees when the chassis detaches a device still on its bus. */
typedef enum {
	SIM_SURPRISE_REMOVE = 0, /* pciehp: the device vanishes from sysfs */
	SIM_SURPRISE_STALE,      /* no hot-plug: it stays, config space reads all-ones */
	SIM_SURPRISE_REFUSE,     /* the chassis refuses the detach (409) */
} sim_surprise_t;

/* A PCIe link: speed in GT/s (2.5, 5, 8, 16) and width in lanes. */
struct sim_link {
	double speed_gts;
	int width;
};

/* One device: in a chassis slot or local to a host. */
struct sim_device {
	bool populated;              /* false: an empty slot, the rest unused (local: true) */
	falcon_dev_type_t type;      /* GPU, NVMe or NIC (what the configuration can say) */
	unsigned vendor_id, device_id;
	unsigned subsys_vendor_id, subsys_device_id;
	unsigned class_code;         /* 24-bit class/subclass/prog-if */
	unsigned revision;
	char model[SIM_NAME_LEN];
	char serial[SIM_NAME_LEN];
	char manufacturer[SIM_NAME_LEN];
	struct sim_link max_link;    /* LnkCap */
	struct sim_link link;        /* LnkSta as trained */
	char bdf[SIM_BDF_LEN];       /* local devices only: "0000:18:00.0" */
};

struct sim_port {
	char host[SIM_NAME_LEN];     /* "" = not cabled to a host */
	char adapter[SIM_BDF_LEN];   /* BDF of the Falcon adapter (switch upstream port) */
	unsigned domain, bus;        /* of the adapter */
	unsigned bus_first, bus_last;/* secondary..subordinate of the adapter */
	struct sim_link link;        /* the host link (cable) as trained */
};

struct sim_drawer {
	int nports;
	int ports[SIM_PORTS];        /* 0-based indices of the host ports cabled to it */
	struct sim_device slot[SIM_SLOTS];
};

struct sim_host {
	char name[SIM_NAME_LEN];
	size_t nlocal;
	struct sim_device local[SIM_MAX_LOCAL];
};

typedef enum {
	SIM_FAULT_ERROR = 0,  /* answer with status (5xx) and a Redfish error */
	SIM_FAULT_TIMEOUT,    /* accept and never answer */
	SIM_FAULT_DROP,       /* send part of the answer, then close */
	SIM_FAULT_LATENCY,    /* delay by ms */
} sim_fault_action_t;

struct sim_fault_rule {
	sim_fault_action_t action;
	char method[16];       /* "" = any */
	char path[256];        /* "" = any; a trailing '*' matches a prefix */
	long count;            /* requests left to hit; -1 = forever */
	int status;            /* SIM_FAULT_ERROR: 500..599 */
	long ms;               /* SIM_FAULT_LATENCY */
	long ms_max;           /* SIM_FAULT_LATENCY: > ms = a draw from ms..ms_max */
};

struct sim_faults {
	long latency_ms;                      /* added to every Redfish request */
	size_t nrules;
	struct sim_fault_rule rules[SIM_MAX_RULES];
	/* device faults, indexed [drawer-1][slot-1] */
	bool degraded[SIM_DRAWERS][SIM_SLOTS];
	struct sim_link degraded_link[SIM_DRAWERS][SIM_SLOTS];
	bool no_appear[SIM_DRAWERS][SIM_SLOTS];
	bool refuse_detach[SIM_DRAWERS][SIM_SLOTS];
	/* host-side hot-plug faults, seen at the rescan that brings the device
	 * onto a host's bus: BAR1 left unassigned (resource line zeros);
	 * ACS P2P Request/Completion Redirect set on the slot's downstream
	 * port; config space reading all-ones (fell off the bus) */
	bool unassigned_bar[SIM_DRAWERS][SIM_SLOTS];
	bool acs_redirect[SIM_DRAWERS][SIM_SLOTS];
	bool fell_off[SIM_DRAWERS][SIM_SLOTS];
	/* asynchronous operations (DSP0266 sec. 12.2): attach / detach answered
	 * 202 Accepted with a task monitor; the task runs task_ms and then
	 * completes, or ends in TaskState Exception when task_fail */
	bool task_attach, task_detach, task_fail;
	long task_ms;
};

struct sim_config {
	char chassis[SIM_NAME_LEN];
	sim_mode_t mode;
	sim_surprise_t surprise;
	struct sim_port port[SIM_PORTS];
	struct sim_drawer drawer[SIM_DRAWERS];
	size_t nhosts;
	struct sim_host hosts[SIM_PORTS];
	struct sim_faults faults;
};

/* Chassis state: who owns what, and what the hosts see. */
struct sim_slot_state {
	int owner;         /* 0-based port index, -1 = unused */
	bool staged;       /* attached, waiting for the host's rescan */
	bool present;      /* on the owner host's bus (sysfs dir exists) */
	bool stale;        /* detached while present: config space reads all-ones */
	int stale_port;    /* where the stale dir lives */
};

struct sim_state {
	struct sim_slot_state slot[SIM_DRAWERS][SIM_SLOTS];
};

/* ---- sim_config.c ---- */

/*
 * sim_config_default - fill cfg with the paper's testbed: standard mode,
 * drawer 1 and 2 with 4 Tesla V100-PCIE-16GB each (slots 1-4), an Intel
 * SSDPEDKX040T7 NVMe in drawer 2 slot 5; host node1 on H1 (drawer 1) and H2
 * (drawer 2) with 8 local V100 SXM2 GPUs and a local NVMe; node2 on H3
 * (drawer 1) and node3 on H4 (drawer 2) without local devices.
 */
void sim_config_default(struct sim_config *cfg);

/*
 * sim_config_from_json - parse a configuration object into cfg (defaults
 * for what is left out are those of an empty chassis, not the testbed).
 * FALCON_ERR_CONFIG with "<where>: <field>: expected ..." on any unknown
 * key, wrong type or bad value; `where` (a file name) prefixes the detail.
 */
falcon_err_t sim_config_from_json(struct json_object *root, const char *where,
				  struct sim_config *cfg);

/*
 * sim_config_load - read path (at most 1 MiB) and parse it as above.
 * FALCON_ERR_NOTFOUND/IO when unreadable, FALCON_ERR_CONFIG on bad JSON
 * (with json-c's message and the offset) or bad content.
 */
falcon_err_t sim_config_load(const char *path, struct sim_config *cfg);

/*
 * sim_faults_from_json - parse a fault description (the "faults" object of
 * the config, or the body of POST /admin/faults) into f, replacing it.
 * FALCON_ERR_INVAL naming the field on error; f is untouched then.
 */
falcon_err_t sim_faults_from_json(struct json_object *obj, struct sim_faults *f);

/* sim_faults_to_json - the fault state as JSON (new reference). */
struct json_object *sim_faults_to_json(const struct sim_faults *f);

/*
 * sim_drawer_ports_json - the host ports cabled to drawer d (0-based) as
 * ["H1", ...]: a new reference the caller owns, NULL when out of memory.
 */
struct json_object *sim_drawer_ports_json(const struct sim_config *cfg, int d);

/* Parse "drawer<D>_slot<S>" into 1-based d and s; false when malformed. */
bool sim_parse_dev_id(const char *id, int *d, int *s);
/* Parse "H<n>" (1-4) into a 0-based port index; -1 when malformed. */
int sim_parse_port(const char *id);
/* Parse a host port endpoint's id "hostport<A>_H<B>" (A and B one digit
 * each, not checked against the ports) into a and b; false when malformed. */
bool sim_parse_hostport(const char *id, int *a, int *b);

const char *sim_mode_str(sim_mode_t m);

/* ---- sim_model.c ---- */

/* sim_state_init - every slot unused, nothing staged or present. */
void sim_state_init(struct sim_state *st);

/*
 * sim_check_attach - may port p (0-based) take drawer d slot s (1-based)?
 * FALCON_OK when allowed or already its own; FALCON_ERR_NOTFOUND for an
 * empty slot; FALCON_ERR_CONFLICT when another port owns it (one zone at a
 * time); FALCON_ERR_POLICY when the port is not cabled to the drawer or the
 * mode forbids it.  Mode rules (paper sec. III, Falcon 4016 modes):
 * standard - a drawer's devices belong to one host port, or to two with 4
 * slots each (slots 1-4 / 5-8); advanced - up to three host ports share a
 * drawer's devices in any split.  The detail says which rule refused.
 */
falcon_err_t sim_check_attach(const struct sim_config *cfg, const struct sim_state *st,
			      int p, int d, int s);

/*
 * sim_check_detach - may port p give back drawer d slot s?  FALCON_OK when
 * it owns it (or nobody does: detach is idempotent); FALCON_ERR_CONFLICT
 * when another port owns it; FALCON_ERR_CHASSIS when the refuse_detach
 * fault is set or the surprise policy is "refuse" and the device is still
 * on the host's bus.
 */
falcon_err_t sim_check_detach(const struct sim_config *cfg, const struct sim_state *st,
			      int p, int d, int s);

/*
 * sim_fault_match - the first rule matching method and path whose count is
 * not spent; decrements its count.  Returns a copy in *out and true, or
 * false when none matches.  A latency rule with ms_max > ms gets, in the
 * copy, an ms drawn uniformly from ms..ms_max (random(3)) per request.
 */
bool sim_fault_match(struct sim_faults *f, const char *method, const char *path,
		     struct sim_fault_rule *out);

/* sim_trained_link - a slot's link as trained (config, or the degraded fault). */
struct sim_link sim_trained_link(const struct sim_config *cfg, int d, int s);

/*
 * sim_slot_bdf - the BDF drawer d slot s (1-based) gets on the host of
 * port p (0-based): "DDDD:BB:00.0", BB = the port's bus_first + s (the
 * drawer switch's downstream port of slot s is device s-1 on bus_first;
 * its secondary bus, bus_first + s, holds the device).  Into buf of n >=
 * SIM_BDF_LEN bytes (truncated, never overrun, when shorter).
 */
void sim_slot_bdf(const struct sim_config *cfg, int p, int d, int s, char *buf, size_t n);

#endif /* FALCON_SIM_H */
