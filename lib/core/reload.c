/*
 * reload.c - files kept loaded and reloaded when they change (see reload.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "core/reload.h"

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

enum falcon_file_change falcon_file_look(struct falcon_file_seen *f, const char *path)
{
	struct stat st;
	int err;

	if (strcmp(path, f->path) != 0) {
		snprintf(f->path, sizeof(f->path), "%s", path);
		f->seen = false;
	}
	if (stat(path, &st) != 0) {
		err = errno;
		if (f->seen && f->st.st_ino == 0)
			return FALCON_FILE_STILL_GONE;
		memset(&f->st, 0, sizeof(f->st));
		f->seen = true;
		errno = err;
		return FALCON_FILE_GONE;
	}
	if (f->seen && same_file(&st, &f->st))
		return FALCON_FILE_SAME;
	f->st = st;
	f->seen = true;
	return FALCON_FILE_CHANGED;
}

void falcon_conf_keep(struct falcon_conf_keeper *k, const char *path)
{
	struct falcon_conf *c = NULL;

	switch (falcon_file_look(&k->file, path)) {
	case FALCON_FILE_SAME:
	case FALCON_FILE_STILL_GONE:
		return;
	case FALCON_FILE_GONE:
		snprintf(k->broken, sizeof(k->broken), "%s: %s", path, strerror(errno));
		falcon_error("%s; %s", k->broken,
			     k->conf ? "keeping the configuration loaded before"
				     : "no partition policy is enforced and no license added");
		return;
	case FALCON_FILE_CHANGED:
		break;
	}
	if (falcon_conf_load(path, &c) != FALCON_OK) {
		snprintf(k->broken, sizeof(k->broken), "%s", falcon_errmsg());
		falcon_error("falcon.conf refused: %s; %s", k->broken,
			     k->conf ? "keeping the configuration loaded before"
				     : "jobs asking for falcon_gpu/falcon_nvme are refused until it is fixed");
		return;
	}
	falcon_conf_free(k->conf);
	k->conf = c;
	k->broken[0] = '\0';
	falcon_info("loaded %s: %zu partition policies, %zu chassis", path, c->npartitions,
		    c->nchassis);
}

const char *falcon_conf_kept_broken(const struct falcon_conf_keeper *k)
{
	return k->broken[0] != '\0' && k->file.st.st_ino != 0 ? k->broken : NULL;
}

void falcon_conf_keeper_free(struct falcon_conf_keeper *k)
{
	falcon_conf_free(k->conf);
	k->conf = NULL;
	k->file.seen = false;
}
