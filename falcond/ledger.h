/*
 * ledger.h - falcond's ledger (ledger.c): leases, quarantines and the
 * per-device history of StateDir/ledger.json (the snapshot) and
 * StateDir/ledger.log (the records appended since), and the pure questions
 * asked of a lease.  The bottom of falcond: it includes nothing of falcond's.
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
#define FALCOND_LEDGER_LOG "ledger.log"
#define FALCOND_LEDGER_MAX (64u * 1024 * 1024) /* bytes; a bigger file is refused */
/* the log is compacted (a snapshot, then an empty log) once it holds this
 * many bytes and 4 times the snapshot's, or half of FALCOND_LEDGER_MAX */
#define FALCOND_LOG_COMPACT (4u * 1024 * 1024)

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
	bool logged;                             /* as it is now in the snapshot or a
						  * record; false after a change: the
						  * next record carries it */
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

/* A lease's JSON as a log record last printed it, reused while the lease
 * is byte for byte the same up to devs[l.ndevs] (memory only). */
struct falcond_lease_text {
	struct falcon_lease l;
	char *text;                  /* owned */
};

/* The settle deadline of an in-flight lease of a dead falcond (memory only). */
struct falcond_settle {
	char lease[FALCON_LEASE_ID_LEN];
	long long until_ms;          /* falcond_now_ms() clock */
};

struct falcond_ledger {
	char *path;                  /* StateDir/ledger.json, owned */
	char *log_path;              /* StateDir/ledger.log, owned */
	unsigned long long gen;      /* the last write's generation (snapshot or
				      * record; counted on across restarts) */
	size_t log_bytes;            /* the log's length (whole records) */
	size_t snap_bytes;           /* the snapshot's length */
	bool log_ok;                 /* false: the next write is a snapshot and an
				      * empty log (the log's tail is torn or a write
				      * failed, or the snapshot is an old version) */
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
	size_t nltext;               /* the leases' texts of the last record */
	struct falcond_lease_text *ltext; /* owned */
};

/*
 * falcond_ledger_load - read STATE_DIR/ledger.json (the snapshot), then
 * replay STATE_DIR/ledger.log: each of its records whose "gen" is above
 * the snapshot's replaces the head (seq, leases, quarantine) and the
 * device histories it carries; the others are already in the snapshot (a
 * crash between a compaction's snapshot and its new log).  Reads only:
 * the state directory is not changed.  Into a new ledger (*out, free with
 * falcond_ledger_free()).  Missing files are an empty ledger.  A last line
 * without its newline (a crash in the middle of an append) is cut off
 * with a warning (the next write is then a compaction).  An unreadable,
 * malformed or inconsistent snapshot (a device in two leases), or a
 * complete log line that does not parse, is FALCON_ERR_PARSE naming the
 * file (and the log's line number) and what is wrong: falcond then refuses
 * to start rather than forget leases.  A file that cannot be read (or a
 * log that is not a regular file) is FALCON_ERR_IO.  A seq below a lease
 * id "L-N" found in it is raised to N with a warning (ids are never handed
 * out twice).  The log is read before the snapshot, so that a read beside
 * a live falcond that compacts meanwhile (falcond --dump-ledger) loses no
 * commit made before it began.
 */
falcon_err_t falcond_ledger_load(const char *state_dir, struct falcond_ledger **out);
void falcond_ledger_free(struct falcond_ledger *lg);

/*
 * A ledger write in three steps, so that the I/O runs without the lock
 * that guards the ledger (state.c's group commit): prepare (lock held)
 * takes what the write carries, do (no lock: it reads only lg->path and
 * lg->log_path, which never change) writes it, done (lock held) accounts
 * for it and frees w's text.
 */
struct falcond_ledger_write {
	char *text;                  /* owned until done */
	size_t len;                  /* bytes of text */
	bool snapshot;               /* the whole ledger to ledger.json, then an
				      * empty ledger.log; else one log record */
	bool log_fresh;              /* (snapshot) the empty log is in place */
	unsigned long long gen;      /* the write's generation */
};
/*
 * falcond_ledger_write_prepare - the next write of lg into *w: one log
 * record (a line of JSON: "gen", the head -- seq, leases, quarantine --
 * and the device histories changed since the last write), or, when the log
 * is due for compaction (FALCOND_LOG_COMPACT) or not usable (!log_ok), the
 * whole ledger as a snapshot.  The changed histories are marked logged.
 * FALCON_ERR_NOMEM (w->text NULL, nothing marked).
 */
falcon_err_t falcond_ledger_write_prepare(struct falcond_ledger *lg,
					  struct falcond_ledger_write *w);
/*
 * falcond_ledger_write_do - write w: a record is appended to the log and
 * fdatasynced (falcon_append_file_sync: one write, one sync); a snapshot
 * is written with falcon_write_file_atomic() (temp + fsync + rename + fsync
 * of the directory, mode 0600), then the log is replaced by an empty one
 * the same way (w->log_fresh; a failure there is only a warning: the
 * snapshot holds everything and its gen makes the old records void).  A
 * log path that is not a regular file (a directory, a FIFO) fails either
 * kind before anything is written.  After FALCON_OK a crash keeps w.
 * FALCON_ERR_IO otherwise (detail set).
 */
falcon_err_t falcond_ledger_write_do(const struct falcond_ledger *lg,
				     struct falcond_ledger_write *w);
/*
 * falcond_ledger_write_done - account for w's outcome rv (the log's and
 * snapshot's lengths); after a failure the next write is a snapshot (what
 * w carried, and the histories it marked logged, are written again).
 * Frees w->text.
 */
void falcond_ledger_write_done(struct falcond_ledger *lg, struct falcond_ledger_write *w,
			       falcon_err_t rv);
/*
 * falcond_ledger_save - the three steps at once (one thread, no lock):
 * after it returns FALCON_OK a crash keeps lg.  FALCON_ERR_IO or
 * FALCON_ERR_NOMEM otherwise.  falcond_ledger_compact - the same, as a
 * snapshot and an empty log whatever the log's length.
 */
falcon_err_t falcond_ledger_save(struct falcond_ledger *lg);
falcon_err_t falcond_ledger_compact(struct falcond_ledger *lg);
/*
 * falcond_ledger_json / falcond_ledger_from_json - the snapshot's form (a
 * new object, the caller puts it / parsed into lg, which may be a log
 * record: a head and some device histories; FALCON_ERR_PARSE naming the
 * field, FALCON_ERR_NOMEM).
 */
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
 * falcond_job_ended - whether lease l's job has ended by Slurm's list of
 * the jobs alive (jobs, n), read at jobs_ms (falcond_now_ms before the
 * read): not when the list has it, nor when l was made at or after
 * jobs_ms (a compose, or a keep's reuse, for a job the list may predate:
 * the next pass judges it).
 */
bool falcond_job_ended(const uint32_t *jobs, size_t n, long long jobs_ms,
		       const struct falcon_lease *l);

/*
 * falcond_lease_in_flight - l is in flight ("composing" or "settling"): a
 * lease a dead falcond left, to be settled, unless this falcond is
 * composing it (its chassis' live set, state.h).
 */
bool falcond_lease_in_flight(const struct falcon_lease *l);
/*
 * falcond_lease_kept - l is kept warm (state "kept", KeepWarm=): its job
 * ended, its devices stay attached to its host for the next job there
 * (keep.h); it is no job's lease any more.
 */
bool falcond_lease_kept(const struct falcon_lease *l);
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
