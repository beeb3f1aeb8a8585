/*
 * ha.c - the StateDir lock that makes one falcond active (see
 * ha.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ha.h"
#include "core/log.h"
#include "core/util.h"

static int ha_fd = -1;
static bool ha_held;
static bool ha_warned;
static char *ha_path;
static char *ha_url;

falcon_err_t falcond_ha_open(const char *state_dir, const char *self_url)
{
	if (asprintf(&ha_path, "%s/" FALCOND_HA_LOCK_FILE, state_dir) < 0) {
		ha_path = NULL;
		return falcon_err_set(FALCON_ERR_NOMEM, "falcond_ha_open");
	}
	ha_url = strdup(self_url);
	if (ha_url == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "falcond_ha_open");
	ha_fd = open(ha_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (ha_fd < 0)
		return falcon_err_set(FALCON_ERR_IO, "%s: %s", ha_path, strerror(errno));
	return FALCON_OK;
}

/* write_holder - the holder record, written over the file's text. */
static void write_holder(void)
{
	char host[256] = "?", rec[1024];
	int n;

	gethostname(host, sizeof(host) - 1);
	n = snprintf(rec, sizeof(rec),
		     "{\"host\":\"%s\",\"pid\":%ld,\"url\":\"%s\",\"since\":%lld}\n", host,
		     (long)getpid(), ha_url, (long long)time(NULL));
	if (n < 0 || (size_t)n >= sizeof(rec) || ftruncate(ha_fd, 0) != 0 ||
	    pwrite(ha_fd, rec, (size_t)n, 0) != n || fsync(ha_fd) != 0)
		falcon_warn("%s: cannot write the holder record: %s", ha_path, strerror(errno));
}

/* same_file - the path still names the file open as ha_fd. */
static bool same_file(void)
{
	struct stat a, b;

	return stat(ha_path, &a) == 0 && fstat(ha_fd, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

bool falcond_ha_try(void)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0 };
	int r;

	if (ha_held)
		return true;
	if (ha_fd < 0)
		return false;
	/* the file was removed or replaced: lock the one the path names now,
	 * as a falcond started now would */
	if (!same_file()) {
		int fd = open(ha_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

		if (fd >= 0) {
			close(ha_fd);
			ha_fd = fd;
		}
	}
#ifdef F_OFD_SETLK
	r = fcntl(ha_fd, F_OFD_SETLK, &fl);
	if (r != 0 && errno == EINVAL) /* a kernel or file system without OFD locks */
#endif
	{
		fl.l_pid = 0;
		r = fcntl(ha_fd, F_SETLK, &fl);
	}
	if (r != 0) {
		if (errno != EAGAIN && errno != EACCES && !ha_warned) {
			falcon_warn("%s: lock: %s; standing by", ha_path, strerror(errno));
			ha_warned = true;
		}
		return false;
	}
	ha_held = true;
	write_holder();
	return true;
}

bool falcond_ha_held(void)
{
	return ha_held;
}

json_object *falcond_ha_holder(void)
{
	char buf[1024];
	ssize_t n;

	if (ha_fd < 0)
		return NULL;
	n = pread(ha_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return json_tokener_parse(buf);
}

const char *falcond_ha_active_url(char *buf, size_t n)
{
	json_object *o = falcond_ha_holder(), *u;

	if (o != NULL && json_object_object_get_ex(o, "url", &u))
		falcon_strlcpy(buf, json_object_get_string(u), n);
	else
		falcon_strlcpy(buf, "unknown", n);
	json_object_put(o);
	return buf;
}

bool falcond_ha_check(void)
{
	char host[256] = "?";
	json_object *o, *v;
	bool mine;

	if (!ha_held)
		return true;
	if (!same_file()) {
		falcon_err_set(FALCON_ERR_IO, "%s was removed or replaced: another falcond may "
			       "hold the new one", ha_path);
		return false;
	}
	gethostname(host, sizeof(host) - 1);
	o = falcond_ha_holder();
	mine = o != NULL && json_object_object_get_ex(o, "pid", &v) &&
	       json_object_get_int64(v) == (int64_t)getpid() &&
	       json_object_object_get_ex(o, "host", &v) &&
	       strcmp(json_object_get_string(v), host) == 0;
	if (!mine)
		falcon_err_set(FALCON_ERR_IO, "%s: the holder record names another falcond: %s",
			       ha_path, o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN)
					  : "(none)");
	json_object_put(o);
	return mine;
}

void falcond_ha_close(void)
{
	if (ha_fd >= 0)
		close(ha_fd);
	ha_fd = -1;
	ha_held = false;
	free(ha_path);
	free(ha_url);
	ha_path = ha_url = NULL;
}
