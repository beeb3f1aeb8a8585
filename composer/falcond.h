/*
 * falcond.h - internals of falcond, the composer daemon: the ledger
 * (falcond_ledger.c), placement and policy (falcond_place.c), the decisions
 * against the chassis (falcond_core.c) and the HTTP front (falcond.c).
 * Status and metrics: falcond_status.h; the history file: falcond_history.h.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCOND_H
#define FALCOND_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <json-c/json.h>

#include "chassis/chassis.h"
#include "core/conf.h"
#include "api/proto.h"

/* ---------------------------------------------------------------- ledger */

#define FALCOND_HIST_MAX 16 /* history entries kept per device (oldest dropped) */
#define FALCOND_LEDGER_FILE "ledger.json"
#define FALCOND_LEDGER_MAX (64u * 1024 * 1024) /* bytes; a bigger file is refused */

struct falcond_quarantine {
	char chassis[FALCON_NAME_LEN];
	char device[FALCON_NAME_LEN];
	char reason[256];
	long long since_ms;          /* ms since the epoch */
};

struct falcond_hist {
	uint32_t job_id;
	char lease[FALCON_LEASE_ID_LEN];
	char host[FALCON_NAME_LEN];
	long long attached_ms;       /* ms since the epoch */
	long long detached_ms;       /* 0 = still attached */
	char result[128];            /* "released", "rolled back", "quarantined: ..." */
};

struct falcond_devhist {
	char chassis[FALCON_NAME_LEN];
	char device[FALCON_NAME_LEN];
	size_t n;
	struct falcond_hist h[FALCOND_HIST_MAX]; /* oldest first */
	char *text;                              /* this entry's JSON as last written
						  * (owned), NULL after a change: see
						  * falcond_ledger_text */
};

/*
 * falcond_release_sink - told of each history entry the ledger closes
 * (falcond_ledger_record_release): device chassis/device, the entry as
 * closed (valid during the call only), uid of the lease's owner (-1 when
 * unknown).  Called under whatever lock guards the ledger: it must not
 * wait for I/O nor call the ledger.  falcond.c registers the history
 * writer's falcond_history_append() (falcond_history.h), which sits above
 * the ledger; the ledger itself knows no writer.
 */
typedef void falcond_release_sink(const char *chassis, const char *device,
				  const struct falcond_hist *e, long uid);

/* The settle deadline of an in-flight lease of a dead falcond (memory only). */
struct falcond_settle {
	char lease[FALCON_LEASE_ID_LEN];
	long long until_ms;          /* falcond_now_ms() clock */
};

struct falcond_ledger {
	char *path;                  /* StateDir/ledger.json, owned */
	unsigned long long seq;      /* last lease number handed out */
	size_t nleases;
	struct falcon_lease *leases; /* owned array */
	size_t nquar;
	struct falcond_quarantine *quar;
	size_t nhist;
	struct falcond_devhist *hist;
	falcond_release_sink *on_release; /* NULL: closed entries go nowhere else */
	size_t nsettle;              /* not in the file: see falcond_ledger_settle_look */
	struct falcond_settle *settle; /* owned */
};

/*
 * falcond_ledger_load - read STATE_DIR/ledger.json into a new ledger (*out, free
 * with falcond_ledger_free()).  A missing file is an empty ledger; an unreadable,
 * malformed or inconsistent one (a device in two leases) is
 * FALCON_ERR_PARSE naming the file and what is wrong: falcond then refuses
 * to start rather than forget leases.  A seq below a lease id "L-N" found
 * in it is raised to N with a warning (ids are never handed out twice).
 */
falcon_err_t falcond_ledger_load(const char *state_dir, struct falcond_ledger **out);
void falcond_ledger_free(struct falcond_ledger *lg);
/*
 * falcond_ledger_save - write the whole ledger with falcon_write_file_atomic()
 * (temp + fsync + rename + fsync of the directory, mode 0600): after it
 * returns FALCON_OK a crash keeps it.  FALCON_ERR_IO otherwise.
 */
falcon_err_t falcond_ledger_save(struct falcond_ledger *lg);
/* falcond_ledger_json / falcond_ledger_from_json - the file's form (new object / parse). */
json_object *falcond_ledger_json(const struct falcond_ledger *lg);
/*
 * falcond_ledger_text - the file's text: the same bytes as falcond_ledger_json()
 * printed with JSON_C_TO_STRING_PLAIN, made from each device history's
 * text kept since its last change (the history is most of the file and a
 * commit changes a few devices of it).  A new string (caller frees), NULL
 * when out of memory.
 */
char *falcond_ledger_text(struct falcond_ledger *lg);
falcon_err_t falcond_ledger_from_json(json_object *o, struct falcond_ledger *lg);

/* Lookups: pointers into the ledger, valid until it changes; NULL = none. */
struct falcon_lease *falcond_ledger_lease(struct falcond_ledger *lg, const char *id);
struct falcon_lease *falcond_ledger_job_host(struct falcond_ledger *lg, uint32_t job,
					     const char *host);
struct falcon_lease *falcond_ledger_device_lease(struct falcond_ledger *lg, const char *chassis,
						 const char *device);
struct falcond_quarantine *falcond_ledger_quarantined(struct falcond_ledger *lg,
						      const char *chassis, const char *device);
/* falcond_ledger_add_lease - append a copy; FALCON_ERR_CONFLICT if a device is leased. */
falcon_err_t falcond_ledger_add_lease(struct falcond_ledger *lg, const struct falcon_lease *l);
/* falcond_ledger_remove_lease - drop lease id and its settle deadline (no-op
 * when absent). */
void falcond_ledger_remove_lease(struct falcond_ledger *lg, const char *id);
/* falcond_ledger_quarantine - add (or update the reason of) a quarantine entry. */
falcon_err_t falcond_ledger_quarantine(struct falcond_ledger *lg, const char *chassis,
				       const char *device, const char *reason);
/* falcond_ledger_unquarantine - FALCON_ERR_NOTFOUND when not quarantined. */
falcon_err_t falcond_ledger_unquarantine(struct falcond_ledger *lg, const char *chassis,
					 const char *device);
/*
 * falcond_ledger_record_attach - a device's history: a new entry for
 * device d of lease l (attached now), when the lease becomes active; the
 * oldest entry is dropped past FALCOND_HIST_MAX.  FALCON_ERR_NOMEM.
 * falcond_ledger_record_release - the lease's entry of device d still
 * open is closed (detached now) with result ("released", "rolled back",
 * ...) and handed to lg->on_release; a no-op when there is none.
 */
falcon_err_t falcond_ledger_record_attach(struct falcond_ledger *lg, const struct falcon_lease *l,
					  const struct falcon_lease_dev *d);
void falcond_ledger_record_release(struct falcond_ledger *lg, const char *lease,
				   const struct falcon_lease_dev *d, const char *result);
/*
 * falcond_ledger_settle_look - one look at a lease l that a dead falcond
 * left in flight (state "composing" or "settling": written ahead, never
 * answered) against inv, the chassis inventory read at now_ms (ms,
 * falcond_now_ms clock).  late[j] (caller's array of l->ndevs) is set when
 * device j is attached to a port in inv and not quarantined: a request of
 * the dead process that the chassis carried out late, to be detached.  The
 * lease's deadline (kept in lg, not in the file) is now_ms + settle_ms at
 * the first look and again at every look that finds a late attach (the
 * zone is not stable yet).  Returns true when the lease is settled: the
 * deadline has passed and this look found nothing attached; it can be
 * dropped (rolled back).  When the deadline cannot be kept (out of
 * memory) the lease settles at the first look that finds nothing attached.
 * falcond_ledger_settle_next - the earliest deadline (ms), 0 when none.
 */
bool falcond_ledger_settle_look(struct falcond_ledger *lg, const struct falcon_lease *l,
				const struct falcon_inventory *inv, long long now_ms,
				long long settle_ms, bool *late);
long long falcond_ledger_settle_next(const struct falcond_ledger *lg);
/* falcond_now_ms - wall clock in ms since the epoch (ledger times). */
long long falcond_now_ms(void);

/* ------------------------------------------------------------- placement */

/* One chassis device as placement sees it. */
struct falcond_slot {
	const struct falcon_device *dev;
	const char *holder;          /* host holding it (lease or chassis), NULL = free */
	bool quarantined;
	bool unreachable;            /* no port of the host is cabled to its drawer */
};

/*
 * falcond_policy_check - the partition's policy (falcon.conf AllowTopologies,
 * MaxFalconGPUs, MaxFalconNVMe) against a compose request: FALCON_ERR_POLICY
 * with the rule in the detail, else FALCON_OK.  falcon_policy_check() of
 * lib/core/policy.h judges, so the message is job_submit_falcon's (without its
 * "use partition X" advice); r->partition, when set, names the partition.
 */
falcon_err_t falcond_policy_check(const struct falcon_partition_conf *p,
				  const struct falcon_compose_req *r);

/*
 * falcond_place - choose r->gpus GPUs and r->nvme NVMe devices for host among
 * slots[0..n), free, not quarantined, not Critical nor Absent, within the chassis mode
 * limits (standard: a drawer half, slots 1-4 or 5-8, belongs to one host;
 * advanced: at most 3 hosts share a drawer — the Falcon 4016 modes as the
 * paper describes them), by place (pack: one drawer switch first, best fit;
 * spread: round-robin over drawers; any: first free by drawer/slot).
 * picks[] gets indices into slots (r->gpus GPUs first, then NVMe).
 * FALCON_ERR_NORESOURCE with the counts in the detail when they do not fit.
 */
falcon_err_t falcond_place(const struct falcond_slot *slots, size_t n, const char *host,
			   falcon_mode_t mode, falcon_place_t place, int gpus, int nvme,
		      size_t *picks);

/*
 * falcond_port_for - the host port to use for a device in drawer: the host's
 * ports tried from index (drawer-1) mod nports on, skipping those for which
 * noreach(ctx, port, drawer) is true (a port learnt not to be cabled to that
 * drawer; noreach may be NULL).  NULL when none is left.
 */
const char *falcond_port_for(const struct falcon_host_conf *h, int drawer,
			     bool (*noreach)(void *ctx, const char *port, int drawer), void *ctx);

/* ------------------------------------------------------------------ core */

#define FALCOND_NBUCKETS 12 /* latency histogram buckets: falcond_buckets (falcond_status.h) */
#define FALCOND_NOREACH_MS (10 * 60 * 1000) /* how long a learnt "not cabled" holds */

struct falcond_hist_metric {
	unsigned long long bucket[FALCOND_NBUCKETS];
	unsigned long long count;
	double sum;
};

struct falcond_chassis {
	const struct falcon_chassis_conf *cc;
	struct falcon_chassis *client;  /* NULL until opened */
	pthread_mutex_t lock;           /* serializes changes to this chassis */
	struct falcon_inventory last;   /* last inventory seen (status, metrics, placement) */
	bool have_last;
	long long last_ms;              /* when it was read (falcon_now_ms) */
	bool stale;                     /* an error since: read it again before use */
	bool down;                      /* its last read failed, or a change timed out
					 * (may land late): the next read that works
					 * kicks a reconcile (ch->lock) */
	/* (port, drawer) pairs the chassis refused as not cabled (learnt,
	 * forgotten after FALCOND_NOREACH_MS to re-probe; ch->lock) */
	size_t nnoreach;
	struct { char port[FALCON_NAME_LEN]; int drawer; long long until_ms; } noreach[32];
	/* descriptions to drop before the next read (falcond_desc.c; st->lock):
	 * every one, or these devices (a Redfish event named them) */
	bool forget_all;
	size_t nforget;
	unsigned long long detaches;    /* detach requests sent (ch->lock): a reconcile
					 * that sent none reads the chassis once */
	char forget[8][FALCON_NAME_LEN];
};

struct falcond_state {
	struct falcon_conf *conf;
	struct falcond_ledger *ledger;
	pthread_mutex_t lock;           /* ledger, caches, metrics */
	pthread_cond_t saved;           /* group commit: a ledger write finished */
	unsigned long long gen;         /* ledger changes committed so far (in memory) */
	unsigned long long saved_gen;   /* ... of which durable */
	unsigned long long failed_gen;  /* a write covering up to this failed */
	bool saving;                    /* a thread is writing the ledger */
	size_t nchassis;
	struct falcond_chassis *ch;
	bool use_slurm;
	uid_t slurm_uid;                /* (uid_t)-1 when SlurmUser is unknown */
	/* the reconcile thread (falcond_reconciler; st->lock) */
	pthread_cond_t wake;            /* CLOCK_MONOTONIC: kick or stop */
	bool kick;                      /* reconcile now (a chassis answers again) */
	bool stopping;
	/* metrics */
	unsigned long long compose_ok, compose_fail, decompose_ok, decompose_fail;
	unsigned long long chassis_errors[FALCON_ERR_MAX];
	unsigned long long auth_fail, perm_fail, reconcile_runs;
	unsigned long long disagree_orphan, disagree_gone, disagree_job, rolled_back;
	unsigned long long disagree_late; /* attaches of a dead falcond caught late */
	unsigned long long quarantined_total;
	struct falcond_hist_metric compose_lat, decompose_lat;
};

/*
 * falcond_state_init - the locks and the chassis table (clients are opened on
 * first use); st->conf and st->ledger are set by the caller and stay
 * theirs.  FALCON_ERR_NOMEM.  falcond_state_fini closes the clients and frees
 * the table (not conf, not ledger).
 */
falcon_err_t falcond_state_init(struct falcond_state *st);
void falcond_state_fini(struct falcond_state *st);
/*
 * falcond_compose - the whole compose (see doc/falcond.8): policy, placement,
 * attach, ledger commit; *out = a copy of the lease (caller's storage),
 * answered only once the ledger write covering it is done.  Errors:
 * FALCON_ERR_NOTFOUND (host not in falcon.conf), _POLICY, _NORESOURCE,
 * _CONFLICT (the job already has another lease on the host), a chassis
 * error, or FALCON_ERR_IO (ledger write); on any of them after the lease
 * was recorded the attach is rolled back.  Thread-safe.
 */
falcon_err_t falcond_compose(struct falcond_state *st, const struct falcon_compose_req *r,
			     struct falcon_lease *out);
/*
 * falcond_decompose - close one lease (r->lease) or every lease of r->job_id on
 * every host; *closed (may be NULL; caller puts) = {"closed":[ids],
 * "quarantined":N}, set on errors too.  FALCON_ERR_NOTFOUND when there is
 * none, FALCON_ERR_IO when a ledger write failed.  Thread-safe.
 */
falcon_err_t falcond_decompose(struct falcond_state *st, const struct falcon_decompose_req *r,
			       json_object **closed);
/*
 * falcond_reconcile - ledger vs chassis vs Slurm (doc/falcond.8, RECONCILE);
 * *report (may be NULL; caller puts) = the counts.  FALCON_ERR_TRANSPORT when a chassis could not be
 * read (the others are still reconciled).  Thread-safe.
 */
falcon_err_t falcond_reconcile(struct falcond_state *st, json_object **report);
/*
 * falcond_reconciler - the body of falcond's reconcile thread; arg is the
 * struct falcond_state.  Runs falcond_reconcile() every ReconcileInterval
 * seconds (falcon.conf; none when 0), at the settle deadline of a lease a
 * dead falcond left in flight (falcond_ledger_settle_next), and at once when
 * a chassis that failed answers again (st->kick).  Sleeps on st->wake in
 * between; returns NULL once falcond_reconciler_stop() was called (after
 * the pass in progress, if any, ends).
 */
void *falcond_reconciler(void *arg);
/*
 * falcond_conf_hold - a reference on the current configuration (st->conf):
 * while it is held, st->conf may be read and what it points to stays
 * valid, whatever SIGHUP reloads meanwhile.  Returns its generation number,
 * for falcond_conf_release(), which drops the reference (an old
 * configuration is freed by the last release that may read it).  Both
 * take a mutex for a few instructions; falcond.c.
 */
unsigned falcond_conf_hold(void);
void falcond_conf_release(unsigned gen);
/*
 * falcond_conf_pin - first (the start-up conf, owned from now on) becomes
 * *cur and generation 0; it is freed only by falcond_conf_free_all(): the
 * chassis table points into it.  falcond_conf_publish - n (owned from now
 * on) becomes *cur (an atomic store); the previous one is freed when the
 * last reference that may read it is released.  Both false when out of
 * memory (nothing changed, n still the caller's).  falcond_conf_free_all -
 * at exit, once no reader is left: every generation.  falcond_conf.c.
 */
bool falcond_conf_pin(struct falcon_conf **cur, struct falcon_conf *first);
bool falcond_conf_publish(struct falcon_conf **cur, struct falcon_conf *n);
void falcond_conf_free_all(void);
/* falcond_reconciler_stop - tell the reconcile thread to return (join it). */
void falcond_reconciler_stop(struct falcond_state *st);

/*
 * Device descriptions kept between inventories (falcond_desc.c; see
 * falcon_chassis_keep_descriptions() in lib/chassis/chassis.h and
 * InventoryRefresh in falcon.conf(5)), kept across restarts in
 * StateDir/chassis-<name>.json.
 *
 * falcond_desc_open - ch's client was just opened (ch->lock held): keep
 * descriptions for InventoryRefresh seconds and take those of the file (a
 * file that cannot be read or parsed is logged with its reason and
 * ignored: every device is then read).
 */
void falcond_desc_open(struct falcond_state *st, struct falcond_chassis *ch);

/* falcond_desc_forget - have the next read of ch read device dev_id (NULL:
 * every device) in full (st->lock held). */
void falcond_desc_forget(struct falcond_chassis *ch, const char *dev_id);

/* falcond_desc_before_read - apply what falcond_desc_forget() asked, and
 * forget everything when ch is down (it may have been serviced) (ch->lock
 * held; takes st->lock). */
void falcond_desc_before_read(struct falcond_state *st, struct falcond_chassis *ch);

/* falcond_desc_after_read - write the file again when a description
 * changed (ch->lock held; a failed write is logged, nothing else). */
void falcond_desc_after_read(struct falcond_state *st, struct falcond_chassis *ch);
/*
 * falcond_quarantine / falcond_unquarantine - take a device out of / back into the
 * pool, committed before returning.  FALCON_ERR_NOTFOUND (no such chassis;
 * unquarantine: not quarantined), FALCON_ERR_IO (ledger write: the change
 * is undone in memory too, so that the pool is what the file says).
 */
falcon_err_t falcond_quarantine(struct falcond_state *st, const struct falcon_device_req *r);
falcon_err_t falcond_unquarantine(struct falcond_state *st, const struct falcon_device_req *r);

#endif /* FALCOND_H */
