/*
 * ledger.h - falcond's ledger (ledger.c): leases, quarantines and the
 * per-device history of StateDir/ledger.json, and the pure questions asked
 * of a lease.  The bottom of falcond: it includes nothing of falcond's.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCOND_LEDGER_H
#define FALCOND_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "chassis/chassis.h"
#include "core/conf.h"
#include "api/proto.h"

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
 * writer's falcond_history_append() (history.h), which sits above
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

/*
 * falcond_lease_in_flight - l is in flight ("composing" or "settling"): a
 * lease a dead falcond left, to be settled, unless this falcond is
 * composing it (its chassis' live set, state.h).
 */
bool falcond_lease_in_flight(const struct falcon_lease *l);
/* falcond_lease_port_first - l->devs[i] is the first device of l on its port. */
bool falcond_lease_port_first(const struct falcon_lease *l, size_t i);
/*
 * falcond_lease_port_set - the ids of l's devices on port into ids (the
 * caller's array of FALCON_CHASSIS_SET_MAX; pointers into l), only those
 * with sent[i] set unless sent is NULL.  Returns how many.
 */
size_t falcond_lease_port_set(const struct falcon_lease *l, const char *port, const bool *sent,
			      const char **ids);

#endif /* FALCOND_LEDGER_H */
