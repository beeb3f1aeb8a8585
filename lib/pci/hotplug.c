/*
 * hotplug.c - sysfs rescan/remove, bounded waits and holder detection
 * (see hotplug.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pci/hotplug.h"
#include "core/util.h"

const char *const falcon_hp_gpu_daemons[] = {
	"nvidia-persistenced", "dcgm-exporter", "nv-hostengine", "nvidia-smi", NULL,
};

char *falcon_hp_busdir(const char *root, char *buf, size_t n)
{
	char probe[PATH_MAX];
	struct stat st;
	int w;

	if (root == NULL || *root == '\0')
		root = "/sys";
	w = snprintf(probe, sizeof(probe), "%s/devices", root);
	if (w > 0 && (size_t)w < sizeof(probe) && stat(probe, &st) == 0 && S_ISDIR(st.st_mode) &&
	    snprintf(probe, sizeof(probe), "%s/bus", root) > 0 && stat(probe, &st) != 0)
		w = snprintf(buf, n, "%s", root);
	else
		w = snprintf(buf, n, "%s/bus/pci", root);
	return w < 0 || (size_t)w >= n ? NULL : buf;
}

/* write_one - write "1" to path; FALCON_ERR_PCI with strerror on failure. */
static falcon_err_t write_one(const char *path)
{
	falcon_err_t rv;
	int fd, e;
	ssize_t w;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		rv = falcon_err_set(FALCON_ERR_PCI, "%s: %s", path, strerror(errno));
		goto fail;
	}
	w = write(fd, "1", 1);
	e = errno;
	if (close(fd) != 0 && w == 1) {
		rv = falcon_err_set(FALCON_ERR_PCI, "%s: close: %s", path, strerror(errno));
		goto fail;
	}
	if (w != 1) {
		rv = falcon_err_set(FALCON_ERR_PCI, "%s: write \"1\": %s", path,
				    w < 0 ? strerror(e) : "short write");
		goto fail;
	}
	rv = FALCON_OK;
fail:
	return rv;
}

falcon_err_t falcon_hp_rescan(const char *root)
{
	char bus[PATH_MAX], path[PATH_MAX];

	if (falcon_hp_busdir(root, bus, sizeof(bus)) == NULL ||
	    (size_t)snprintf(path, sizeof(path), "%s/rescan", bus) >= sizeof(path))
		return falcon_err_set(FALCON_ERR_INVAL, "sysfs root %s: path too long", root);
	return write_one(path);
}

/* canon - bdf in sysfs's spelling (falcon_bdf_normalise: lower-case hex,
 * domain added; nothing else, so no '/' or ".." can sneak into a path). */
static falcon_err_t canon(const char *bdf, char out[FALCON_BDF_LEN])
{
	if (falcon_bdf_normalise(bdf, out) != FALCON_OK)
		return falcon_err_set(FALCON_ERR_INVAL, "BDF \"%s\": expected DDDD:BB:DD.F",
				      bdf ? bdf : "(null)");
	return FALCON_OK;
}

/* dev_path - BUSDIR/devices/BDF[/leaf] into buf (PATH_MAX). */
static falcon_err_t dev_path(const char *root, const char *bdf, const char *leaf, char *buf)
{
	char bus[PATH_MAX], norm[FALCON_BDF_LEN];
	falcon_err_t rv;
	int w;

	if ((rv = canon(bdf, norm)) != FALCON_OK)
		return rv;
	if (falcon_hp_busdir(root, bus, sizeof(bus)) == NULL)
		return falcon_err_set(FALCON_ERR_INVAL, "sysfs root %s: path too long", root);
	w = snprintf(buf, PATH_MAX, "%s/devices/%s%s%s", bus, norm, leaf ? "/" : "",
		     leaf ? leaf : "");
	if (w < 0 || w >= PATH_MAX)
		return falcon_err_set(FALCON_ERR_INVAL, "sysfs root %s: path too long", root);
	return FALCON_OK;
}

falcon_err_t falcon_hp_remove(const char *root, const char *bdf)
{
	char path[PATH_MAX];
	falcon_err_t rv;

	if ((rv = dev_path(root, bdf, NULL, path)) != FALCON_OK)
		return rv;
	if (access(path, F_OK) != 0)
		return FALCON_OK;
	if ((rv = dev_path(root, bdf, "remove", path)) != FALCON_OK)
		return rv;
	return write_one(path);
}

bool falcon_hp_present(const char *root, const char *bdf)
{
	char path[PATH_MAX];

	return dev_path(root, bdf, NULL, path) == FALCON_OK && access(path, F_OK) == 0;
}

falcon_err_t falcon_hp_wait(int (*cond)(void *ctx), void *ctx, long timeout_ms,
			    const char *what)
{
	long long end = falcon_now_ms();
	long step_us = 1000;

	/* a huge timeout_ms (LONG_MAX: "no limit") must not overflow end */
	if (timeout_ms > 0)
		end = timeout_ms > LLONG_MAX - end ? LLONG_MAX : end + timeout_ms;

	for (;;) {
		int r = cond(ctx);
		long long now;
		struct timespec ts;

		if (r > 0)
			return FALCON_OK;
		if (r < 0)
			return (falcon_err_t)-r;
		now = falcon_now_ms();
		if (now >= end)
			return falcon_err_set(FALCON_ERR_TIMEOUT, "%s: not done after %ld ms",
					      what ? what : "wait", timeout_ms);
		if (step_us / 1000 > end - now)
			step_us = (long)(end - now) * 1000;
		ts.tv_sec = step_us / 1000000;
		ts.tv_nsec = (step_us % 1000000) * 1000;
		nanosleep(&ts, NULL);
		if (step_us < 10000)
			step_us = step_us * 2 > 10000 ? 10000 : step_us * 2;
	}
}

unsigned long long falcon_hp_bus_signature(const char *root)
{
	unsigned long long h = 0xcbf29ce484222325ULL;
	char bus[PATH_MAX], path[PATH_MAX + 300];
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (falcon_hp_busdir(root, bus, sizeof(bus)) == NULL)
		return 0;
	snprintf(path, sizeof(path), "%s/devices", bus);
	if ((d = opendir(path)) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		const char *c;

		for (c = de->d_name; *c; c++)
			h = (h ^ (unsigned char)*c) * 0x100000001b3ULL;
		snprintf(path, sizeof(path), "%s/devices/%s", bus, de->d_name);
		if (de->d_name[0] != '.' && stat(path, &st) == 0)
			h = (h ^ (unsigned long long)st.st_mtim.tv_nsec ^
			     ((unsigned long long)st.st_mtim.tv_sec << 30)) * 0x100000001b3ULL;
		snprintf(path, sizeof(path), "%s/devices/%s/config", bus, de->d_name);
		if (de->d_name[0] != '.' && stat(path, &st) == 0)
			h = (h ^ (unsigned long long)st.st_size) * 0x100000001b3ULL;
	}
	closedir(d);
	return h;
}

struct change_ctx {
	const char *root;
	unsigned long long *sig;
	bool looked;   /* the first call only counts: a step is slept before each look */
};

static int change_cond(void *p)
{
	struct change_ctx *c = p;
	unsigned long long s;

	if (!c->looked) {
		c->looked = true;
		return 0;
	}
	s = falcon_hp_bus_signature(c->root);
	if (*c->sig != 0 && s == *c->sig)
		return 0;
	*c->sig = s;
	return 1;
}

falcon_err_t falcon_hp_wait_change(const char *root, unsigned long long *sig, long timeout_ms,
				   const char *what)
{
	struct change_ctx c = { .root = root, .sig = sig, .looked = false };
	falcon_err_t rv = falcon_hp_wait(change_cond, &c, timeout_ms, what);

	if (rv == FALCON_ERR_TIMEOUT)
		rv = falcon_err_set(FALCON_ERR_TIMEOUT, "%s: not changed after %ld ms",
				    what ? what : "wait", timeout_ms);
	return rv;
}

struct gone_ctx {
	const char *root;
	const char *const *bdfs;
	size_t n;
	const char *left;
};

static int gone_cond(void *p)
{
	struct gone_ctx *g = p;
	size_t i;

	for (i = 0; i < g->n; i++)
		if (falcon_hp_present(g->root, g->bdfs[i])) {
			g->left = g->bdfs[i];
			return 0;
		}
	return 1;
}

falcon_err_t falcon_hp_wait_gone(const char *root, const char *const *bdfs, size_t n,
				 long timeout_ms)
{
	struct gone_ctx g = { .root = root, .bdfs = bdfs, .n = n, .left = NULL };
	falcon_err_t rv = falcon_hp_wait(gone_cond, &g, timeout_ms, "remove");

	if (rv == FALCON_ERR_TIMEOUT)
		rv = falcon_err_set(FALCON_ERR_TIMEOUT, "%s still on the bus %ld ms after remove",
				    g.left ? g.left : "?", timeout_ms);
	return rv;
}

/* push - append a copy of s to paths. */
static falcon_err_t push(char **paths, size_t *npaths, size_t cap, const char *s)
{
	if (*npaths >= cap)
		return falcon_err_set(FALCON_ERR_INVAL, "device nodes: more than %zu", cap);
	if ((paths[*npaths] = strdup(s)) == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "device nodes");
	(*npaths)++;
	return FALCON_OK;
}

falcon_err_t falcon_hp_dev_nodes(const char *root, const char *proc, const char *bdf,
				 char **paths, size_t *npaths, size_t cap)
{
	char path[PATH_MAX], node[PATH_MAX + 300], norm[FALCON_BDF_LEN], *info = NULL;
	char pdir[PATH_MAX - 64], ddir[PATH_MAX - 64];
	struct falcon_gpu_ident id;
	falcon_err_t rv;
	DIR *d = NULL;
	struct dirent *de;
	int w;

	if ((rv = canon(bdf, norm)) != FALCON_OK ||
	    (rv = dev_path(root, norm, "nvme", path)) != FALCON_OK)
		goto fail;
	if (falcon_hp_hostdir(root, "proc", pdir, sizeof(pdir)) == NULL ||
	    falcon_hp_hostdir(root, "dev", ddir, sizeof(ddir)) == NULL) {
		rv = falcon_err_set(FALCON_ERR_INVAL, "sysfs root %s: path too long", root);
		goto fail;
	}
	if ((d = opendir(path)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (strncmp(de->d_name, "nvme", 4) != 0)
				continue;
			snprintf(node, sizeof(node), "%s/%s", ddir, de->d_name);
			if ((rv = push(paths, npaths, cap, node)) != FALCON_OK)
				goto fail;
		}
	}
	w = snprintf(path, sizeof(path), "%s/driver/nvidia/gpus/%s/information",
		     proc ? proc : pdir, norm);
	if (w > 0 && (size_t)w < sizeof(path) &&
	    falcon_read_file(path, 64 * 1024, &info, NULL) == FALCON_OK &&
	    falcon_hp_parse_nvidia_info(info, &id) == FALCON_OK) {
		snprintf(node, sizeof(node), "%s/nvidia%d", ddir, id.minor);
		if ((rv = push(paths, npaths, cap, node)) != FALCON_OK)
			goto fail;
	}
	falcon_err_clear();
	rv = FALCON_OK;
fail:
	if (d != NULL)
		closedir(d);
	free(info);
	return rv;
}

/* link_matches - link is one of paths, or one followed by a non-digit. */
static const char *link_matches(const char *link, char *const *paths, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		size_t l = strlen(paths[i]);

		if (strncmp(link, paths[i], l) == 0 &&
		    (link[l] == '\0' || !isdigit((unsigned char)link[l])))
			return paths[i];
	}
	return NULL;
}

static int pid_cmp(const void *a, const void *b)
{
	const struct falcon_holder *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* read_comm - PROC/PID/comm without its newline into buf; "?" when unreadable. */
static void read_comm(const char *proc, const char *pid, char *buf, size_t n)
{
	char path[PATH_MAX], *s = NULL;

	snprintf(path, sizeof(path), "%s/%s/comm", proc, pid);
	if (falcon_read_file(path, 4096, &s, NULL) == FALCON_OK) {
		s[strcspn(s, "\n")] = '\0';
		falcon_strlcpy(buf, s, n);
	} else {
		falcon_strlcpy(buf, "?", n);
	}
	free(s);
}

falcon_err_t falcon_hp_holders(const char *proc, char *const *paths, size_t npaths,
			       bool gpu_daemons, struct falcon_holder **out, size_t *nout)
{
	struct falcon_holder *v = NULL, *nv;
	size_t n = 0, cap = 0;
	falcon_err_t rv;
	DIR *pd = NULL, *fdd = NULL;
	struct dirent *de, *fe;

	*out = NULL;
	*nout = 0;
	if (proc == NULL)
		proc = "/proc";
	if ((pd = opendir(proc)) == NULL) {
		rv = falcon_err_set(FALCON_ERR_IO, "%s: %s", proc, strerror(errno));
		goto fail;
	}
	while ((de = readdir(pd)) != NULL) {
		char path[PATH_MAX], comm[32], what[128] = "";
		long pid;
		size_t k;

		if (falcon_strtol(de->d_name, 10, 1, INT_MAX, &pid) != FALCON_OK)
			continue;
		read_comm(proc, de->d_name, comm, sizeof(comm));
		if (gpu_daemons)
			for (k = 0; falcon_hp_gpu_daemons[k] != NULL; k++)
				if (strncmp(comm, falcon_hp_gpu_daemons[k], 15) == 0 && comm[0] != '\0')
					snprintf(what, sizeof(what), "daemon %s",
						 falcon_hp_gpu_daemons[k]);
		if (what[0] == '\0' && npaths > 0) {
			snprintf(path, sizeof(path), "%s/%s/fd", proc, de->d_name);
			if ((fdd = opendir(path)) != NULL) {
				while (what[0] == '\0' && (fe = readdir(fdd)) != NULL) {
					char fp[PATH_MAX], link[PATH_MAX];
					const char *m;
					ssize_t l;

					if (fe->d_name[0] == '.')
						continue;
					if ((size_t)snprintf(fp, sizeof(fp), "%s/%s", path,
							     fe->d_name) >= sizeof(fp))
						continue;
					l = readlink(fp, link, sizeof(link) - 1);
					if (l <= 0)
						continue;
					link[l] = '\0';
					if ((m = link_matches(link, paths, npaths)) != NULL)
						falcon_strlcpy(what, link, sizeof(what));
				}
				closedir(fdd);
				fdd = NULL;
			}
		}
		if (what[0] == '\0')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			if ((nv = realloc(v, cap * sizeof(*v))) == NULL) {
				rv = falcon_err_set(FALCON_ERR_NOMEM, "holders");
				goto fail;
			}
			v = nv;
		}
		v[n].pid = (pid_t)pid;
		falcon_strlcpy(v[n].comm, comm, sizeof(v[n].comm));
		falcon_strlcpy(v[n].what, what, sizeof(v[n].what));
		n++;
	}
	if (n > 0)
		qsort(v, n, sizeof(*v), pid_cmp);
	*out = v;
	*nout = n;
	v = NULL;
	rv = FALCON_OK;
fail:
	if (pd != NULL)
		closedir(pd);
	free(v);
	return rv;
}

char *falcon_hp_hostdir(const char *root, const char *which, char *buf, size_t n)
{
	int w;

	if (root == NULL || *root == '\0' || strcmp(root, "/sys") == 0 ||
	    strcmp(root, "/sys/") == 0)
		w = snprintf(buf, n, "/%s", which);
	else
		w = snprintf(buf, n, "%s/%s", root, which);
	return w < 0 || (size_t)w >= n ? NULL : buf;
}

/* uuid_ok - "GPU-" then 32 hex digits grouped 8-4-4-4-12, as nvidia-smi -L
 * prints a GPU's UUID. */
static bool uuid_ok(const char *u, size_t len)
{
	static const size_t group[] = { 8, 4, 4, 4, 12 };
	size_t g, k, at = 4;

	if (len != 4 + 32 + 4 || strncmp(u, "GPU-", 4) != 0)
		return false;
	for (g = 0; g < ARRAY_SIZE(group); g++) {
		for (k = 0; k < group[g]; k++)
			if (!isxdigit((unsigned char)u[at++]))
				return false;
		if (g + 1 < ARRAY_SIZE(group) && u[at++] != '-')
			return false;
	}
	return true;
}

falcon_err_t falcon_hp_parse_nvidia_info(const char *text, struct falcon_gpu_ident *id)
{
	const char *line = text;
	int lineno = 0;
	bool have_minor = false;

	id->minor = -1;
	id->uuid[0] = '\0';
	id->bdf[0] = '\0';
	while (line != NULL && *line != '\0') {
		const char *end = strchr(line, '\n'), *v, *colon;
		size_t len = end ? (size_t)(end - line) : strlen(line), vlen, klen;
		char val[64];

		lineno++;
		colon = memchr(line, ':', len);
		if (colon != NULL) {
			klen = (size_t)(colon - line);
			v = colon + 1;
			v += strspn(v, " \t");
			vlen = len - (size_t)(v - line);
			while (vlen > 0 && (v[vlen - 1] == ' ' || v[vlen - 1] == '\t' ||
					    v[vlen - 1] == '\r'))
				vlen--;
			if (vlen >= sizeof(val))
				vlen = sizeof(val) - 1;
			memcpy(val, v, vlen);
			val[vlen] = '\0';
			if (klen == 12 && strncmp(line, "Device Minor", 12) == 0) {
				long m;

				if (vlen == 0 || strspn(val, "0123456789") != vlen ||
				    falcon_strtol(val, 10, 0, 255, &m) != FALCON_OK)
					return falcon_err_set(FALCON_ERR_PARSE, "line %d: \"Device "
							      "Minor: %s\": expected 0..255",
							      lineno, val);
				id->minor = (int)m;
				have_minor = true;
			} else if (klen == 8 && strncmp(line, "GPU UUID", 8) == 0) {
				if (uuid_ok(val, vlen))
					falcon_strlcpy(id->uuid, val, sizeof(id->uuid));
			} else if (klen == 12 && strncmp(line, "Bus Location", 12) == 0) {
				if (falcon_bdf_normalise(val, id->bdf) != FALCON_OK)
					id->bdf[0] = '\0';
			}
		}
		line = end ? end + 1 : NULL;
	}
	if (!have_minor)
		return falcon_err_set(FALCON_ERR_PARSE, "no \"Device Minor:\" line in %d line(s)",
				      lineno);
	return FALCON_OK;
}

falcon_err_t falcon_hp_gpu_ident(const char *root, const char *bdf, struct falcon_gpu_ident *id)
{
	char norm[FALCON_BDF_LEN], proc[PATH_MAX], path[PATH_MAX + 64], *text = NULL;
	falcon_err_t rv;
	struct stat st;

	id->minor = -1;
	id->uuid[0] = id->bdf[0] = '\0';
	if ((rv = canon(bdf, norm)) != FALCON_OK)
		return rv;
	if (falcon_hp_hostdir(root, "proc", proc, sizeof(proc)) == NULL)
		return falcon_err_set(FALCON_ERR_INVAL, "sysfs root %s: path too long", root);
	snprintf(path, sizeof(path), "%s/driver/nvidia/gpus/%s/information", proc, norm);
	if (stat(path, &st) != 0)
		return falcon_err_set(FALCON_ERR_NOTFOUND, "%s: %s", path, strerror(errno));
	if ((rv = falcon_read_file(path, 64 * 1024, &text, NULL)) != FALCON_OK)
		return rv;
	if ((rv = falcon_hp_parse_nvidia_info(text, id)) != FALCON_OK) {
		char detail[256];

		falcon_strlcpy(detail, falcon_errmsg(), sizeof(detail));
		rv = falcon_err_set(rv, "%s: %s", path, detail);
	}
	free(text);
	return rv;
}

falcon_err_t falcon_hp_nvme_serial(const char *root, const char *bdf, char *buf, size_t n)
{
	char path[PATH_MAX], file[PATH_MAX + 300], *text = NULL;
	falcon_err_t rv;
	struct dirent *de;
	DIR *d;

	buf[0] = '\0';
	if ((rv = dev_path(root, bdf, "nvme", path)) != FALCON_OK)
		return rv;
	if ((d = opendir(path)) == NULL)
		return falcon_err_set(FALCON_ERR_NOTFOUND, "%s: %s", path, strerror(errno));
	while (buf[0] == '\0' && (de = readdir(d)) != NULL) {
		size_t len;

		if (strncmp(de->d_name, "nvme", 4) != 0)
			continue;
		snprintf(file, sizeof(file), "%s/%s/serial", path, de->d_name);
		if (falcon_read_file(file, 4096, &text, &len) != FALCON_OK)
			continue;
		while (len > 0 && isspace((unsigned char)text[len - 1]))
			text[--len] = '\0';
		falcon_strlcpy(buf, text + strspn(text, " "), n);
		free(text);
		text = NULL;
	}
	closedir(d);
	falcon_err_clear();
	return buf[0] ? FALCON_OK
		      : falcon_err_set(FALCON_ERR_NOTFOUND, "%s: no controller serial", path);
}

const char *falcon_bar_type_str(falcon_bar_type_t t)
{
	switch (t) {
	case FALCON_BAR_MEM32:      return "32-bit memory";
	case FALCON_BAR_MEM64:      return "64-bit memory";
	case FALCON_BAR_MEM64_PREF: return "64-bit prefetchable memory";
	case FALCON_BAR_IO:         return "I/O";
	default:                    return "none";
	}
}

/* resource_start - the start address of one line of a sysfs resource file
 * ("0x00000000fb000000 0x00000000fbffffff 0x0000000000040200": start, end,
 * flags, each a 0x-prefixed hex number, pci-sysfs.c resource_show()) into
 * *start; false (detail set) when the line is not three such numbers. */
static bool resource_start(const char *line, size_t len, long *start)
{
	char buf[128], *tok, *save = NULL;
	long v[3];
	int n = 0;

	if (len >= sizeof(buf)) {
		falcon_err_set(FALCON_ERR_PARSE, "resource line of %zu bytes", len);
		return false;
	}
	memcpy(buf, line, len);
	buf[len] = '\0';
	for (tok = strtok_r(buf, " \t", &save); tok != NULL; tok = strtok_r(NULL, " \t", &save))
		if (n == 3 || falcon_strtol(tok, 16, 0, LONG_MAX, &v[n++]) != FALCON_OK)
			return false;
	*start = v[0];
	return n == 3;
}

int falcon_hp_unassigned_bar(const uint8_t *cfg, size_t len, const char *resource)
{
	long start[FALCON_PCI_BARS] = { 0 };
	struct falcon_pcicfg_info info;
	const char *p = resource;
	int i, nlines = 0;

	if (falcon_pcicfg_parse(cfg, len, &info) != FALCON_OK || info.header_type != 0)
		return -1;
	while (p != NULL && *p != '\0' && nlines < FALCON_PCI_BARS) {
		size_t ll = strcspn(p, "\n");

		if (!resource_start(p, ll, &start[nlines++])) {
			falcon_err_clear();
			return -2;
		}
		p = p[ll] == '\n' ? p + ll + 1 : NULL;
	}
	for (i = 0; i < FALCON_PCI_BARS; i++)
		if (info.bar_type[i] != FALCON_BAR_NONE && (i >= nlines || start[i] == 0))
			return i;
	return -1;
}

/*
 * The files of a device that has just appeared may come after its
 * directory: Linux's device_add() makes the kobject's directory, then its
 * attribute groups, and sends the KOBJ_ADD uevent last; falcon-sim writes
 * them one by one.  A reader that found the directory waits up to
 * HP_ATTR_WAIT_MS for config (a whole header) and resource (its last
 * line complete) before judging (prolog-hotplug.sh saw a BAR left
 * unassigned pass, its resource file read before it was written).
 */
#define HP_ATTR_WAIT_MS 1000
#define HP_ATTR_STEP_MS 20

/* read_attrs - config (*cfg, *len) and resource (*res) of bdf, NUL-ended,
 * caller frees; waited for as above while the directory is there.  false
 * when they could not be read whole (nothing to judge). */
static bool read_attrs(const char *root, const char *bdf, char **cfg, size_t *len, char **res)
{
	char path[PATH_MAX];
	long long end = falcon_now_ms() + HP_ATTR_WAIT_MS;
	size_t rlen = 0;

	for (;;) {
		*cfg = *res = NULL;
		*len = 0;
		if (dev_path(root, bdf, "config", path) == FALCON_OK &&
		    falcon_read_file(path, FALCON_PCICFG_SIZE, cfg, len) == FALCON_OK &&
		    *len >= FALCON_PCICFG_HEADER &&
		    dev_path(root, bdf, "resource", path) == FALCON_OK &&
		    falcon_read_file(path, 64 * 1024, res, &rlen) == FALCON_OK && rlen > 0 &&
		    (*res)[rlen - 1] == '\n')
			return true;
		free(*cfg);
		free(*res);
		*cfg = *res = NULL;
		if (!falcon_hp_present(root, bdf) || falcon_now_ms() >= end)
			return false;
		{
			struct timespec ts = { 0, HP_ATTR_STEP_MS * 1000000L };

			nanosleep(&ts, NULL);
		}
	}
}

falcon_err_t falcon_hp_check_bars(const char *root, const char *bdf)
{
	char *cfg = NULL, *res = NULL;
	struct falcon_pcicfg_info info;
	size_t len = 0;
	falcon_err_t rv = FALCON_OK;
	int b;

	if (!read_attrs(root, bdf, &cfg, &len, &res))
		goto done;
	b = falcon_hp_unassigned_bar((const uint8_t *)cfg, len, res);
	if (b == -2) {
		rv = falcon_err_set(FALCON_ERR_PCI, "%s's resource: expected lines of three "
				    "hex numbers (start end flags)", bdf);
	} else if (b >= 0 && falcon_pcicfg_parse((const uint8_t *)cfg, len, &info) == FALCON_OK) {
		rv = falcon_err_set(FALCON_ERR_PCI, "%s BAR%d (%s) left unassigned: the bridge "
				    "above has no room for it (hot-plug bridges reserve only "
				    "2 MiB of prefetchable MMIO by default): boot with "
				    "pci=hpmmioprefsize= large enough for the device's BARs "
				    "(or pci=realloc), or raise the firmware's hot-plug "
				    "resource padding for the Falcon adapter", bdf, b,
				    falcon_bar_type_str(info.bar_type[b]));
	}
done:
	if (rv == FALCON_OK)
		falcon_err_clear();
	free(cfg);
	free(res);
	return rv;
}
