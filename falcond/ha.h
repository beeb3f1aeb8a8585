/*
 * ha.h - one active falcond among several on one StateDir (the
 * SlurmctldHost primary/backup arrangement of slurm.conf(5)): the holder of
 * a POSIX byte-range lock on StateDir/falcond.lock serves; the others stand
 * by and take over when it goes.  doc/falcond.8, HIGH AVAILABILITY.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCOND_HA_H
#define FALCOND_HA_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "core/falcon_err.h"

#define FALCOND_HA_LOCK_FILE "falcond.lock"
#define FALCOND_HA_POLL_MS 500 /* a standby tries the lock this often */
#define FALCOND_HA_CHECK_S 2   /* the holder checks it still holds it this often */

/*
 * falcond_ha_open - open (create, mode 0644) STATE_DIR/falcond.lock and
 * keep its descriptor for the process; self_url is the URL this falcond
 * serves at (written in the holder record).  FALCON_ERR_IO naming the file
 * when it cannot be opened.
 */
falcon_err_t falcond_ha_open(const char *state_dir, const char *self_url);

/*
 * falcond_ha_try - one try to take the lock: fcntl(F_OFD_SETLK) where the
 * system has it (the lock belongs to this open file description, so no
 * other close() in the process drops it), else fcntl(F_SETLK), a write
 * lock on the whole file.  POSIX locks, not flock(): NFS carries them (NLM
 * for v3, natively in v4), flock() is not reliable there.  On success the
 * holder record {"host","pid","url","since"} (since: s since the epoch)
 * replaces the file's text and true is returned; false while another
 * process holds it (or on an error, logged once).
 */
bool falcond_ha_try(void);

/* falcond_ha_held - whether this process holds the lock. */
bool falcond_ha_held(void);

/*
 * falcond_ha_holder - the holder record read from the lock file (a new
 * object, caller puts; NULL when the file holds none or cannot be read).
 * The record of a holder that died stays until the next holder writes its
 * own: falcond_ha_try() decides, not the record.
 */
json_object *falcond_ha_holder(void);

/*
 * falcond_ha_active_url - the URL of the active falcond from the holder
 * record into buf (n bytes), "unknown" when none.  Returns buf.
 */
const char *falcond_ha_active_url(char *buf, size_t n);

/*
 * falcond_ha_check - for the holder, every FALCOND_HA_CHECK_S: is it still
 * the holder?  False (the reason in falcon_errmsg()) when
 * StateDir/falcond.lock is no longer the file it locked (removed or
 * replaced) or its holder record names another process (host and pid): a
 * lock the NFS server dropped (a lease that expired while the host was
 * cut off) and another falcond took.  The caller stops serving.  True for
 * a standby.
 */
bool falcond_ha_check(void);

/* falcond_ha_close - drop the lock (if held) and close the file. */
void falcond_ha_close(void);

#endif /* FALCOND_HA_H */
