/*
 * fp_common.c - RunDir handling, the node lock, lease.json, clocks (see
 * fp_common.h).  The bottom layer of the prolog glue: calls no other fp_*.c.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fp_common.h"
#include "core/device.h"
#include "core/log.h"
#include "core/util.h"
#include "pci/pcicfg.h"

long fp_left(long long deadline)
{
	long long l = deadline - falcon_now_ms();

	return l > 0 ? (long)l : 0;
}

long long fp_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* the process' one timing record (fp_times; the programs are single-threaded) */
static struct fp_times times;

void fp_time_add(enum fp_clock clock, long long t0_us)
{
	long long d = fp_now_us() - t0_us;

	switch (clock) {
	case FP_TIME_FALCOND: times.falcond_us += d; break;
	case FP_TIME_SLURM: times.slurm_us += d; break;
	case FP_TIME_SCAN: times.scan_us += d; break;
	}
}

struct fp_times fp_times(void)
{
	return times;
}

char *fp_job_dir(const struct falcon_conf *conf, uint32_t job, char *buf, size_t n)
{
	int w = snprintf(buf, n, "%s/%u", conf->run_dir, job);

	return w < 0 || (size_t)w >= n ? NULL : buf;
}

falcon_dev_type_t fp_dev_kind(falcon_dev_type_t t)
{
	return t == FALCON_DEV_GPU || t == FALCON_DEV_NVME ? t : FALCON_DEV_OTHER;
}

int fp_phys_slot_of(const char *id)
{
	int d, sl, v;

	if (falcon_slot_id_parse(id, &d, &sl) != FALCON_OK) {
		falcon_err_clear(); /* not a Falcon slot's id: no slot number */
		return 0;
	}
	v = falcon_pcicfg_phys_slot(d, sl);
	return v > 0 ? v : 0;
}

void fp_lease_on_host(struct falcon_lease *l)
{
	size_t i;

	for (i = 0; i < l->ndevs; i++) {
		struct falcon_lease_dev *d = &l->devs[i];

		d->type = fp_dev_kind(d->type);
		d->phys_slot = falcon_pcicfg_phys_slot(d->drawer, d->slot);
		if (d->phys_slot < 0)
			d->phys_slot = fp_phys_slot_of(d->id);
		d->bdf[0] = '\0';
	}
}

static void add_bdf(char (*bdfs)[FALCON_BDF_LEN], size_t cap, size_t *n, const char *s)
{
	if (s != NULL && *s != '\0' && *n < cap)
		falcon_strlcpy(bdfs[(*n)++], s, FALCON_BDF_LEN);
}

/* other_node - o names a node and it is not node. */
static bool other_node(json_object *o, const char *node)
{
	json_object *x;

	return json_object_object_get_ex(o, "node", &x) && json_object_get_string(x) != NULL &&
	       strcmp(json_object_get_string(x), node) != 0;
}

/*
 * each_other_job - fn(dir, arg) for RunDir/<job> of every other job (an
 * entry named by a job id, not self; a path that does not fit is passed
 * over); returns the sum of what fn returned.  The error detail is
 * cleared after (unreadable records are not this run's failure).
 */
static size_t each_other_job(const struct falcon_conf *conf, uint32_t self,
			     size_t (*fn)(const char *dir, void *arg), void *arg)
{
	DIR *d = opendir(conf->run_dir);
	struct dirent *de;
	size_t n = 0;
	long id;

	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		char dir[PATH_MAX - 32];

		if (falcon_strtol(de->d_name, 10, 1, UINT32_MAX, &id) != FALCON_OK ||
		    (uint32_t)id == self ||
		    (size_t)snprintf(dir, sizeof(dir), "%s/%s", conf->run_dir, de->d_name) >=
			    sizeof(dir))
			continue;
		n += fn(dir, arg);
	}
	closedir(d);
	falcon_err_clear();
	return n;
}

/* The BDFs being gathered by fp_claimed(). */
struct claimed {
	const char *node;
	char (*bdfs)[FALCON_BDF_LEN];
	size_t cap, n;
};

/* claimed_in - one other job's BDFs (dir: its RunDir entry) into c. */
static size_t claimed_in(const char *dir, void *arg)
{
	struct claimed *c = arg;
	char path[PATH_MAX];
	json_object *o, *a, *x;
	size_t i;

	snprintf(path, sizeof(path), "%s/lease.json", dir);
	if ((o = json_object_from_file(path)) != NULL) {
		if (!other_node(o, c->node) && json_object_object_get_ex(o, "devices", &a) &&
		    json_object_is_type(a, json_type_array))
			for (i = 0; i < json_object_array_length(a); i++)
				if (json_object_object_get_ex(json_object_array_get_idx(a, i),
							      "bdf", &x))
					add_bdf(c->bdfs, c->cap, &c->n, json_object_get_string(x));
		json_object_put(o);
	}
	snprintf(path, sizeof(path), "%s/topology.json", dir);
	if ((o = json_object_from_file(path)) != NULL) {
		if (!other_node(o, c->node) && json_object_object_get_ex(o, "local_bdfs", &a) &&
		    json_object_is_type(a, json_type_array))
			for (i = 0; i < json_object_array_length(a); i++)
				add_bdf(c->bdfs, c->cap, &c->n,
					json_object_get_string(json_object_array_get_idx(a, i)));
		json_object_put(o);
	}
	return 0;
}

size_t fp_claimed(const struct falcon_conf *conf, uint32_t self, const char *node,
		  char (*bdfs)[FALCON_BDF_LEN], size_t cap)
{
	struct claimed c = { .node = node, .bdfs = bdfs, .cap = cap, .n = 0 };

	each_other_job(conf, self, claimed_in, &c);
	return c.n;
}

/* names_ours - lease.json o lists a device (chassis, id) of lease. */
static const char *names_ours(json_object *o, const struct falcon_lease *lease)
{
	json_object *a, *x, *c, *id;
	size_t i, k;

	if (!json_object_object_get_ex(o, "devices", &a) || !json_object_is_type(a, json_type_array))
		return NULL;
	for (i = 0; i < json_object_array_length(a); i++) {
		x = json_object_array_get_idx(a, i);
		if (!json_object_object_get_ex(x, "id", &id) || json_object_get_string(id) == NULL)
			continue;
		if (!json_object_object_get_ex(x, "chassis", &c))
			c = NULL;
		for (k = 0; k < lease->ndevs; k++)
			if (strcmp(lease->devs[k].id, json_object_get_string(id)) == 0 &&
			    strcmp(lease->devs[k].chassis,
				   c && json_object_get_string(c) ? json_object_get_string(c) : "") == 0)
				return lease->devs[k].id;
	}
	return NULL;
}

/* The run of fp_drop_stale(). */
struct stale {
	uint32_t self;
	const char *node;
	const struct falcon_lease *lease;
};

/* drop_if_stale - remove dir, another job's RunDir entry, when its
 * lease.json names a device of st->lease; 1 when removed. */
static size_t drop_if_stale(const char *dir, void *arg)
{
	const struct stale *st = arg;
	char path[PATH_MAX];
	const char *dev;
	json_object *o;

	snprintf(path, sizeof(path), "%s/lease.json", dir);
	if ((o = json_object_from_file(path)) == NULL)
		return 0;
	dev = other_node(o, st->node) ? NULL : names_ours(o, st->lease);
	if (dev != NULL) {
		falcon_warn("job %u: %s names %s, which falcond leased to job %u: the record "
			    "of an ended job; removing %s", st->self, path, dev, st->self, dir);
		fp_rmtree(dir);
	}
	json_object_put(o);
	return dev != NULL;
}

size_t fp_drop_stale(const struct falcon_conf *conf, uint32_t self, const char *node,
		     const struct falcon_lease *lease)
{
	struct stale st = { .self = self, .node = node, .lease = lease };

	return each_other_job(conf, self, drop_if_stale, &st);
}

int fp_lock(const struct falcon_conf *conf)
{
	char path[PATH_MAX];
	int fd;

	if (mkdir(conf->run_dir, 0755) != 0 && errno != EEXIST) {
		falcon_warn("%s: %s; running without the node lock", conf->run_dir, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/.lock", conf->run_dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		falcon_warn("%s: %s; running without the node lock", path, strerror(errno));
		return -1;
	}
	while (flock(fd, LOCK_EX) != 0)
		if (errno != EINTR) {
			falcon_warn("%s: flock: %s", path, strerror(errno));
			break;
		}
	return fd;
}

void fp_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

static void jstr(json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, v && *v ? json_object_new_string(v) : NULL);
}

json_object *fp_lease_json(const struct falcon_lease *l, const char *node)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	size_t i;

	jstr(o, "id", l->id);
	if (node != NULL)
		jstr(o, "node", node);
	if (o == NULL || a == NULL) {
		json_object_put(o);
		json_object_put(a);
		return NULL;
	}
	for (i = 0; i < l->ndevs; i++) {
		const struct falcon_lease_dev *d = &l->devs[i];
		json_object *x = json_object_new_object();

		jstr(x, "chassis", d->chassis);
		jstr(x, "id", d->id);
		jstr(x, "port", d->port);
		jstr(x, "type", falcon_dev_type_str(d->type));
		jstr(x, "vendor_id", d->vendor_id);
		jstr(x, "device_id", d->device_id);
		json_object_object_add(x, "phys_slot", d->phys_slot > 0
				       ? json_object_new_int(d->phys_slot) : NULL);
		jstr(x, "bdf", d->bdf);
		json_object_array_add(a, x);
	}
	json_object_object_add(o, "devices", a);
	return o;
}

static void gstr(json_object *o, const char *k, char *buf, size_t n)
{
	json_object *x;

	buf[0] = '\0';
	if (json_object_object_get_ex(o, k, &x) && json_object_is_type(x, json_type_string))
		falcon_strlcpy(buf, json_object_get_string(x), n);
}

/* kind_of - a lease.json "type" word, case-insensitive: "GPU", "NVMe", any
 * other word (or none) other, as fp_dev_kind() folds the kinds. */
static falcon_dev_type_t kind_of(const char *w)
{
	if (strcasecmp(w, falcon_dev_type_str(FALCON_DEV_GPU)) == 0)
		return FALCON_DEV_GPU;
	if (strcasecmp(w, falcon_dev_type_str(FALCON_DEV_NVME)) == 0)
		return FALCON_DEV_NVME;
	return FALCON_DEV_OTHER;
}

falcon_err_t fp_lease_from_json(json_object *o, struct falcon_lease *l)
{
	json_object *a;
	size_t i;
	char t[16];

	memset(l, 0, sizeof(*l));
	l->uid = -1;
	if (o == NULL || !json_object_object_get_ex(o, "devices", &a) ||
	    !json_object_is_type(a, json_type_array))
		return falcon_err_set(FALCON_ERR_PARSE, "lease.json: devices: expected an array");
	gstr(o, "id", l->id, sizeof(l->id));
	for (i = 0; i < json_object_array_length(a) && l->ndevs < FP_MAX_DEVS; i++) {
		json_object *x = json_object_array_get_idx(a, i), *ps;
		struct falcon_lease_dev *d = &l->devs[l->ndevs++];

		gstr(x, "chassis", d->chassis, sizeof(d->chassis));
		gstr(x, "id", d->id, sizeof(d->id));
		gstr(x, "port", d->port, sizeof(d->port));
		gstr(x, "vendor_id", d->vendor_id, sizeof(d->vendor_id));
		gstr(x, "device_id", d->device_id, sizeof(d->device_id));
		gstr(x, "bdf", d->bdf, sizeof(d->bdf));
		d->phys_slot = json_object_object_get_ex(x, "phys_slot", &ps) &&
			       json_object_is_type(ps, json_type_int) &&
			       json_object_get_int(ps) > 0 && json_object_get_int(ps) <= 0x1fff
			       ? json_object_get_int(ps) : fp_phys_slot_of(d->id);
		gstr(x, "type", t, sizeof(t));
		d->type = kind_of(t);
	}
	return FALCON_OK;
}

falcon_err_t fp_write_json(const char *path, json_object *o, gid_t gid)
{
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						       JSON_C_TO_STRING_NOSLASHESCAPE);
	falcon_err_t rv;

	if (s == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "%s: serialising", path);
	if ((rv = falcon_write_file_atomic(path, s, strlen(s), 0640)) != FALCON_OK)
		return rv;
	if (geteuid() == 0 && chown(path, 0, gid) != 0)
		return falcon_err_set(FALCON_ERR_IO, "%s: chown root:%u: %s", path, (unsigned)gid,
				      strerror(errno));
	return FALCON_OK;
}

void fp_rmtree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[PATH_MAX];

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unlink(path) != 0)
			falcon_warn("%s: %s", path, strerror(errno));
	}
	closedir(d);
	if (rmdir(dir) != 0 && errno != ENOENT)
		falcon_warn("%s: %s", dir, strerror(errno));
}
