/*
 * reload.h - files a long-lived process keeps loaded and reloads when they
 * change on disk (job_submit_falcon.so in slurmctld: falcon.conf here, the
 * AdviceFile in advise/auto.h), without a signal: each use stats the file
 * and reloads it when its inode, device, size or modification time
 * changed.  A file that no longer loads leaves the last good one in use.
 *
 * Logs through core/log.h's sinks, once per change of the file.  Not
 * thread-safe: the caller holds its lock.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_RELOAD_H
#define FALCON_RELOAD_H

#include <stdbool.h>
#include <sys/stat.h>

#include "core/conf.h"
#include "core/policy.h"

/* A file as it was last seen. */
struct falcon_file_seen {
	char path[4096];
	struct stat st;  /* st_ino 0: it was missing */
	bool seen;       /* st is valid */
};

/* What falcon_file_look() found. */
enum falcon_file_change {
	FALCON_FILE_SAME,       /* as seen before: nothing to do */
	FALCON_FILE_CHANGED,    /* new, or changed: load it */
	FALCON_FILE_GONE,       /* missing, and it was not before: say so once */
	FALCON_FILE_STILL_GONE, /* missing as before */
};

/*
 * falcon_file_look - path (a new path forgets what was seen of the old)
 * against what f saw of it last, f updated.  FALCON_FILE_GONE leaves the
 * stat(2) errno in errno.
 */
enum falcon_file_change falcon_file_look(struct falcon_file_seen *f, const char *path);

/* The falcon.conf a long-lived process keeps. */
struct falcon_conf_keeper {
	struct falcon_conf *conf;           /* the last good one; NULL = none yet */
	struct falcon_file_seen file;
	char broken[FALCON_POLICY_MSG_LEN]; /* "" or why the file on disk is not in use */
};

/*
 * falcon_conf_keep - k->conf reloaded from path (falcon_conf_load(); its
 * Included files are not watched) when the file changed.  A file that is
 * missing or does not load keeps k->conf as it was, and k->broken says why
 * ("PATH: No such file or directory", or the parser's "FILE:LINE: ...");
 * logged (error) once per change, as is each load (info).
 */
void falcon_conf_keep(struct falcon_conf_keeper *k, const char *path);

/*
 * falcon_conf_kept_broken - why the falcon.conf on disk is refused: k->broken
 * when the file is there and does not load, NULL when it loaded or is
 * missing (job_submit_falcon(8): a missing file enforces nothing, a broken
 * one refuses jobs asking for falcon devices until it is fixed).
 */
const char *falcon_conf_kept_broken(const struct falcon_conf_keeper *k);

/* falcon_conf_keeper_free - k->conf freed, k forgotten (the next
 * falcon_conf_keep() loads again). */
void falcon_conf_keeper_free(struct falcon_conf_keeper *k);

#endif /* FALCON_RELOAD_H */
