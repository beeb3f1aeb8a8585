/*
 * conf.h - falcon.conf(5): the one configuration parser shared by every
 * program (falcond, falconctl, falcon-prolog/epilog, spank_falcon,
 * falcon-ncclcheck).
 *
 * Slurm-style "Key=Value" lines; a line starting with ChassisName=, HostName=
 * or PartitionName= opens one object whose other keys follow on the same
 * (possibly continued) line.  '#' comments, '\' line continuation,
 * "Include PATH".  Keys are case-insensitive as in slurm.conf.  Every
 * unknown key, bad value or duplicate object is FALCON_ERR_CONFIG with
 * "FILE:LINE: KEY: expected ..." in falcon_errmsg().
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_CONF_H
#define FALCON_CONF_H

#include <stdbool.h>
#include <stddef.h>

#include "core/falcon_err.h"

#define FALCON_MAX_PORTS 4       /* a Falcon 4016 has 4 host ports */
#define FALCON_MAX_URLS 8        /* FalcondUrl= list: primary, backups */
#define FALCON_BDF_LEN 16        /* "0000:3b:00.0" + NUL, padded */
#define FALCON_NAME_LEN 64

/* FALCON_BACKEND_AUTO: the chassis client reads the service root and picks
 * one (lib/chassis/chassis.h, falcon_chassis_open_opts()). */
typedef enum { FALCON_BACKEND_FABRIC = 0, FALCON_BACKEND_COMPOSITION,
	       FALCON_BACKEND_AUTO } falcon_backend_t;
typedef enum { FALCON_MODE_STANDARD = 0, FALCON_MODE_ADVANCED } falcon_mode_t;
/* Events=: how falcond follows a chassis' Redfish events (falcon.conf(5)):
 * auto = its SSE stream when the EventService has a ServerSentEventUri,
 * else a subscription; sse or subscription only. */
typedef enum { FALCON_EVENTS_AUTO = 0, FALCON_EVENTS_SSE,
	       FALCON_EVENTS_SUBSCRIPTION } falcon_events_t;
typedef enum { FALCON_PLACE_PACK = 0, FALCON_PLACE_SPREAD, FALCON_PLACE_ANY } falcon_place_t;
typedef enum { FALCON_CHECK_QUICK = 0, FALCON_CHECK_FULL, FALCON_CHECK_OFF } falcon_check_t;
typedef enum { FALCON_ACTION_DRAIN = 0, FALCON_ACTION_FAIL, FALCON_ACTION_WARN } falcon_action_t;
/* CudaVisibleDevices=: how the prolog names the job's GPUs in
 * CUDA_VISIBLE_DEVICES (falcon.conf(5)). */
typedef enum { FALCON_CVD_UUID = 0, FALCON_CVD_INDEX } falcon_cvd_t;

/* Table III labels of the paper, as bits (AllowTopologies is a set of them). */
typedef enum {
	FALCON_CONF_TOPO_LOCALGPUS  = 1u << 0,
	FALCON_CONF_TOPO_HYBRIDGPUS = 1u << 1,
	FALCON_CONF_TOPO_FALCONGPUS = 1u << 2,
	FALCON_CONF_TOPO_LOCALNVME  = 1u << 3,
	FALCON_CONF_TOPO_FALCONNVME = 1u << 4,
} falcon_conf_topo_t;
#define FALCON_CONF_TOPO_ALL 0x1fu

/* ChassisName= Url= Backend= CredentialsFile= Mode= [CAFile= Insecure= Timeout=
 * ChangeTimeout= ParallelPorts= Events=] */
struct falcon_chassis_conf {
	char name[FALCON_NAME_LEN];
	char *url;                 /* e.g. https://chassis1/ (base; /redfish/v1 added) */
	falcon_backend_t backend;  /* default redfish-fabric */
	char *credentials_file;    /* "user:password" on one line, mode 0600; NULL = anonymous */
	falcon_mode_t mode;        /* default standard */
	char *ca_file;             /* NULL = system CA store */
	bool insecure;             /* Insecure=yes: TLS verification off (warned) */
	int timeout_s;             /* Timeout=: total per read (GET), default 10 */
	int change_timeout_s;      /* ChangeTimeout=: total per change (PATCH, POST,
				    * DELETE, a task followed to its end), default
				    * 120 (issue #29: real chassis take seconds to
				    * tens of seconds per attach) */
	bool parallel_ports;       /* ParallelPorts=: changes to different host ports
				    * (zones) at once, default yes */
	falcon_events_t events;    /* Events=, default auto */
	const char *file;          /* where it was defined (for messages) */
	int line;
};

/* HostName= Chassis= Port=H1[,H2...] Adapter=<BDF>[,<BDF>...] */
struct falcon_host_conf {
	char name[FALCON_NAME_LEN];
	char chassis[FALCON_NAME_LEN];
	int nports;
	char ports[FALCON_MAX_PORTS][FALCON_NAME_LEN];   /* "H1" */
	int nadapters;
	char adapters[FALCON_MAX_PORTS][FALCON_BDF_LEN]; /* "0000:3b:00.0", normalised */
	const char *file;
	int line;
};

/* PartitionName= AllowTopologies= MaxFalconGPUs= MaxFalconNVMe= Place= Check=
 * CheckAction= MinBusBW= MinP2PBW_FF= MinP2PBW_FL= MinP2PBW_LL= KeepWarm= */
struct falcon_partition_conf {
	char name[FALCON_NAME_LEN]; /* "DEFAULT" holds defaults for the others */
	unsigned allow_topologies;  /* falcon_conf_topo_t bits; default FALCON_CONF_TOPO_ALL */
	int max_falcon_gpus;        /* -1 = no limit (default) */
	int max_falcon_nvme;        /* -1 = no limit (default) */
	falcon_place_t place;       /* default pack */
	falcon_check_t check;       /* default quick */
	falcon_action_t check_action; /* default drain */
	double min_busbw;           /* GB/s, 0 = no floor */
	double min_p2p_bw_ff;       /* GB/s bidirectional, 0 = no floor */
	double min_p2p_bw_fl;
	double min_p2p_bw_ll;
	int keep_warm;              /* KeepWarm= seconds a job's devices stay on its
				     * node for the next job there, 0 = off (default) */
	const char *file;
	int line;
};

struct falcon_conf {
	char *path;                 /* the top-level file loaded */
	/* globals */
	char *state_dir;            /* StateDir=, default /var/lib/falcon */
	char *advice_file;          /* AdviceFile=, default <StateDir>/advice.json:
				     * `falconctl advise --output`'s history, which
				     * job_submit_falcon reads for
				     * --falcon-topology=auto */
	char *listen_address;       /* ListenAddress= host:port, default 127.0.0.1:6830 */
	char *status_listen;        /* StatusListen= host:port of falcond's read-only
				     * status page, NULL (default): none */
	char *falcond_url;          /* FalcondUrl=, default http://<ListenAddress>: one URL
				     * or several, ','-joined in the order given
				     * (falcond first, then its backups) */
	char *sysfs_root;           /* SysfsRoot=, default /sys; "%h" = short hostname */
	falcon_cvd_t cuda_visible;  /* CudaVisibleDevices=uuid|index, default uuid */
	char *slurm_user;           /* SlurmUser=, default slurm */
	char *munge_socket;         /* MungeSocket=, NULL = libmunge default */
	char *run_dir;              /* RunDir=, default /run/falcon */
	char *ncclcheck;            /* NcclCheck= path of falcon-ncclcheck, NULL = installed one */
	int prolog_timeout;         /* PrologTimeout= seconds, default 300 */
	int epilog_timeout;         /* EpilogTimeout= seconds, default 120 */
	int rescan_timeout;         /* RescanTimeout= seconds, default 30 */
	int check_budget;           /* CheckBudget= seconds for falcon-ncclcheck, default 60 */
	int chassis_retries;        /* ChassisRetries=, default 3 */
	int compose_wait;           /* ComposeWait= seconds falcon-prolog --slurmctld
				     * waits for falcond and the pool, default 90 */
	int reconcile_interval;     /* ReconcileInterval= seconds between falcond's
				     * reconciles, default 30, 0 = none */
	int settle_time;            /* SettleTime= seconds falcond holds and watches
				     * the devices of a dead falcond's in-flight
				     * compose, default 30 */
	int inventory_refresh;      /* InventoryRefresh= seconds falcond trusts a
				     * device's description read from the chassis
				     * (falcon_chassis_keep_descriptions), default
				     * 3600, 0 = read everything every time */
	char *event_listen;         /* EventListen= host:port where falcond takes
				     * the events its subscriptions POST; NULL =
				     * none (no subscriptions) */
	char *event_url;            /* EventUrl= the base URL chassis POST to,
				     * default http(s)://<EventListen> */
	char *event_cert_file;      /* EventCertFile= PEM certificate: the
				     * listener speaks HTTPS; NULL = HTTP */
	char *event_key_file;       /* EventKeyFile= its PEM key */
	int inventory_reuse;        /* InventoryReuse= seconds placement trusts its
				     * last read of a chassis' zones plus its own
				     * record of its changes, default 60, 0 = read
				     * at every compose */
	char *keep_warm_reset;      /* KeepWarmReset= program falcon-prolog runs on
				     * devices kept warm for another user before
				     * handing them over; NULL (default): kept
				     * devices go to the same user only */
	int unreachable_hold;       /* UnreachableHold= seconds a chassis stays
				     * unreachable before falcond's reservation
				     * also holds its free devices, default 30,
				     * 0 = never */
	/* objects, in file order; arrays owned by the struct */
	size_t nchassis;
	struct falcon_chassis_conf *chassis;
	size_t nhosts;
	struct falcon_host_conf *hosts;
	size_t npartitions;
	struct falcon_partition_conf *partitions;
	/* file names referenced by file/line above; owned here */
	size_t nfiles;
	char **files;
};

/*
 * falcon_conf_load - parse path (and its Includes, relative to the including
 * file's directory, at most 8 deep, loops refused) into a new falcon_conf
 * (*out, free with falcon_conf_free()).  Cross-checks after parsing: every
 * HostName's Chassis= names a ChassisName, Port/Adapter lists hold 1-4
 * entries, no two hosts share a port of one chassis; then the defaults
 * noted above fill the unset globals.  Returns FALCON_ERR_NOTFOUND/IO when
 * path itself cannot be read (the detail names it), FALCON_ERR_CONFIG on
 * any error in it or in a file it includes (including a missing one), with
 * "FILE:LINE: KEY: ..." in falcon_errmsg(); *out is NULL on every error
 * (nothing partial is returned).  Reentrant.
 */
falcon_err_t falcon_conf_load(const char *path, struct falcon_conf **out);

/*
 * falcon_conf_parse - as falcon_conf_load() but from the NUL-terminated
 * text, named name in messages; Include paths are relative to name's
 * directory.  For tests and fuzzing.
 */
falcon_err_t falcon_conf_parse(const char *name, const char *text,
			       struct falcon_conf **out);

/* falcon_conf_free - free a falcon_conf and everything it owns; NULL is fine. */
void falcon_conf_free(struct falcon_conf *conf);

/*
 * falcon_conf_path - the falcon.conf to use: cli (a --config argument) when
 * non-NULL, else $FALCON_CONF when set and non-empty, else the default
 * SYSCONFDIR/falcon/falcon.conf.  Returns a pointer into the argument, the
 * environment or static storage; never NULL.
 */
const char *falcon_conf_path(const char *cli);

/*
 * Lookups: pointers into conf (not to be freed), NULL when absent.  Names
 * compare case-sensitively; falcon_conf_host() also finds HostName=node1
 * for "node1.example.com" (a fully qualified gethostname()).
 */
const struct falcon_host_conf *falcon_conf_host(const struct falcon_conf *conf,
						const char *name);
const struct falcon_chassis_conf *falcon_conf_chassis(const struct falcon_conf *conf,
						      const char *name);
/*
 * falcon_conf_partition - the named partition's policy, else the
 * PartitionName=DEFAULT line, else built-in defaults (static storage).
 * Never NULL.
 */
const struct falcon_partition_conf *falcon_conf_partition(const struct falcon_conf *conf,
							  const char *name);

/*
 * falcon_conf_ncclcheck - the falcon-ncclcheck the prolog runs: NcclCheck=
 * when set, else FALCON_BINDIR/falcon-ncclcheck (the installed one), copied
 * into buf (n bytes).  Returns true when it is executable on this host
 * (access(2) X_OK), false otherwise (buf still holds the path).
 */
bool falcon_conf_ncclcheck(const struct falcon_conf *conf, char *buf, size_t n);

/*
 * falcon_conf_check_missing - the configuration error of host (short name)
 * where a partition's check cannot run: some partition of conf (DEFAULT
 * and so every Slurm partition without a line of its own included) has
 * Check=quick or full while the program falcon_conf_ncclcheck() names is
 * not executable here.  Only a host of a HostName= line runs job prologs;
 * for any other (falcond on a controller without GPUs) there is nothing to
 * say.  Writes the error, naming the partition, the program and what to do,
 * into msg (n bytes) and returns true; false (msg empty) when there is
 * none.
 */
bool falcon_conf_check_missing(const struct falcon_conf *conf, const char *host,
			       char *msg, size_t n);

/*
 * falcon_conf_sysfs_root - SysfsRoot with "%h" replaced by host (short
 * name), written into buf of size n.  Returns buf, or NULL when it does not
 * fit.
 */
char *falcon_conf_sysfs_root(const struct falcon_conf *conf, const char *host,
			     char *buf, size_t n);

/* Enum <-> string; *_from_str return FALCON_ERR_INVAL on an unknown word. */
const char *falcon_place_str(falcon_place_t p);
falcon_err_t falcon_place_from_str(const char *s, falcon_place_t *out);
const char *falcon_check_str(falcon_check_t c);
falcon_err_t falcon_check_from_str(const char *s, falcon_check_t *out);
const char *falcon_action_str(falcon_action_t a);
const char *falcon_cvd_str(falcon_cvd_t c);
falcon_err_t falcon_cvd_from_str(const char *s, falcon_cvd_t *out);
falcon_err_t falcon_action_from_str(const char *s, falcon_action_t *out);
const char *falcon_backend_str(falcon_backend_t b);
falcon_err_t falcon_backend_from_str(const char *s, falcon_backend_t *out);
const char *falcon_mode_str(falcon_mode_t m);
falcon_err_t falcon_mode_from_str(const char *s, falcon_mode_t *out);
const char *falcon_events_str(falcon_events_t e);
falcon_err_t falcon_events_from_str(const char *s, falcon_events_t *out);
/*
 * falcon_conf_topo_label_str - "localGPUs" etc. for one bit (a static
 * string, not to be freed); "" for 0 or several bits.
 */
const char *falcon_conf_topo_label_str(unsigned label);
/*
 * falcon_conf_topo_label_from_str - one label (any case) or "ALL" to its
 * bit(s) in *out.  FALCON_ERR_INVAL (detail: the words expected) for
 * anything else, *out untouched.
 */
falcon_err_t falcon_conf_topo_label_from_str(const char *s, unsigned *out);
/*
 * falcon_conf_topo_set_str - a set of labels as "localGPUs,hybridGPUs"
 * (Table III order) into buf of size n; "" for an empty set.  Returns buf,
 * or NULL when it does not fit (or n is 0).
 */
char *falcon_conf_topo_set_str(unsigned set, char *buf, size_t n);

#endif /* FALCON_CONF_H */
