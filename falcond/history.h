/*
 * history.h - falcond's durable device history: every lease entry
 * that closes (a device given back, rolled back or quarantined) is appended
 * as one JSON line to StateDir/history.jsonl by a writer thread (write +
 * fdatasync, batched), so the decompose path only formats a line and the
 * compose path does nothing more.  The ledger keeps its last FALCOND_HIST_MAX
 * entries per device; at start the entries it holds and the file lacks (a
 * crash between the ledger commit and the line's fdatasync) are appended.
 * The file is rotated to history.jsonl.1 past FALCOND_HISTORY_ROTATE bytes (one
 * old file kept).  GET /v1/history reads both (doc/falcond.8).
 *
 * Above the ledger: it reads the ledger (given as arguments) and the ledger
 * never calls it; falcond.c registers falcond_history_append() as the
 * ledger's on_release sink.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCOND_HISTORY_H
#define FALCOND_HISTORY_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

#include <json-c/json.h>

#include "ledger.h"

#define FALCOND_HISTORY_FILE "history.jsonl"
#define FALCOND_HISTORY_ROTATE (64u * 1024 * 1024) /* bytes per file; 2 files kept */
#define FALCOND_HISTORY_TAIL (8u * 1024 * 1024)     /* bytes read back at start */

/*
 * falcond_history_start - open (create, mode 0600) STATE_DIR/history.jsonl for
 * appending, append the closed entries of lg's history that are not in its
 * last FALCOND_HISTORY_TAIL bytes (nor in history.jsonl.1's), and start the
 * writer thread.  lg is read only now (the caller's, unchanged; no lock:
 * before any request).  FALCON_ERR_IO / _NOMEM; FALCON_ERR_INVAL when
 * already started.  Until it is called falcond_history_append() does
 * nothing.
 */
falcon_err_t falcond_history_start(const char *state_dir, const struct falcond_ledger *lg);

/*
 * falcond_history_stop - write what is queued (fdatasync), stop the writer
 * thread, close the file.  A no-op when not started.
 */
void falcond_history_stop(void);

/*
 * falcond_history_append - queue closed entry e of device chassis/device
 * (uid: the lease's owner, -1 unknown) for the file; a
 * falcond_release_sink (ledger.h).  Never waits for I/O: the caller holds
 * falcond's state lock.  Lost only on out of memory (logged); the ledger
 * still holds the entry then.
 */
void falcond_history_append(const char *chassis, const char *device, const struct falcond_hist *e,
			    long uid);

/*
 * falcond_history_flush - wait until everything queued before the call is
 * written and fdatasync'd; FALCON_ERR_IO when that write failed.
 */
falcon_err_t falcond_history_flush(void);

/*
 * falcond_history_query - the entries overlapping [start, end] (epoch seconds:
 * attached <= end and (still attached or released >= start)), oldest file
 * first, then the entries still open in the ledger lg (read under lg_lock,
 * the lock that guards it: falcond's state lock): *out = {"start":,
 * "end":, "entries":[{chassis, device, job_id, host, lease, attached,
 * released (0 = still attached), result, check}]} (a new object, caller
 * puts).  all = false keeps only the entries of leases owned by uid.
 * Lines that do not parse are skipped (counted in "skipped").
 * FALCON_ERR_IO when a file cannot be read, FALCON_ERR_NOMEM.
 */
falcon_err_t falcond_history_query(struct falcond_ledger *lg, pthread_mutex_t *lg_lock,
				   long long start, long long end, uid_t uid, bool all,
				   json_object **out);

/*
 * falcond_history_request - GET /v1/history?start=S&end=E: S and E epoch seconds
 * as decimal strings (NULL: start 0, end now); falcond_history_query() for the
 * rest.  FALCON_ERR_PARSE naming the parameter when one is not an integer
 * in [0, 253402300799] or end < start.
 */
falcon_err_t falcond_history_request(struct falcond_ledger *lg, pthread_mutex_t *lg_lock,
				     const char *start, const char *end, uid_t uid, bool all,
				     json_object **out);

#endif /* FALCOND_HISTORY_H */
