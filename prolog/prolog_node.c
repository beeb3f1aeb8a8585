/*
 * prolog_node.c - falcon-prolog as the node prolog (slurm.conf Prolog=,
 * root in slurmd): compose, bring up, verify, check and tag the job's
 * Falcon devices on this node, or roll back (prolog_node.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "fp_common.h"
#include "fp_falcond.h"
#include "fp_slurm.h"
#include "fp_topo.h"
#include "prolog_node.h"
#include "pci/hotplug.h"
#include "pci/topo.h"
#include "core/log.h"
#include "core/util.h"

#define RESERVE_MS FP_RESERVE_MS /* kept back from PrologTimeout for rollback */

/* Everything one node prolog run knows, passed to each step. */
struct node_run {
	const struct falcon_conf *conf;
	struct fp_job job;
	const struct falcon_host_conf *host;
	const struct falcon_partition_conf *part;
	char root[PATH_MAX];
	char dir[PATH_MAX - 256];
	long long deadline;        /* falcon_now_ms() */
	struct falcon_lease lease;
	bool composed;
	struct falcon_topo *bus;   /* the scan the lease was found in (wait_found()) */
	struct fp_topo_result topo;
	falcon_check_t check;
	json_object *check_json;
	char check_status[16];
	double busbw, algbw;
	long long t_wait_us, t_tag_us, t_check_us;
	char stuck[160];           /* rollback: the first device that would not come off */
};

/*
 * remove_devices - take the lease's devices that are on the bus off again.
 * One still there after the wait is quarantined in falcond (as the epilog
 * does: never handed out again until an administrator looks) and named in
 * r->stuck; returns how many would not come off.  Takes the node lock for
 * the remove and its wait: call without it.
 */
static size_t remove_devices(struct node_run *r)
{
	const char *bdfs[FP_MAX_DEVS];
	bool present[FP_MAX_DEVS];
	size_t i, n = 0, stuck = 0;
	/* as the epilog: no other job's rescan brings them back while the
	 * wait watches them go */
	int lock = fp_lock(r->conf);

	for (i = 0; i < r->lease.ndevs; i++)
		if (r->lease.devs[i].bdf[0] != '\0') {
			if (falcon_hp_remove(r->root, r->lease.devs[i].bdf) != FALCON_OK)
				falcon_warn("rollback: %s", falcon_errmsg());
			bdfs[n++] = r->lease.devs[i].bdf;
		}
	if (n > 0 && falcon_hp_wait_gone(r->root, bdfs, n, 5000) != FALCON_OK)
		falcon_warn("rollback: %s", falcon_errmsg());
	for (i = 0; i < r->lease.ndevs; i++)
		present[i] = r->lease.devs[i].bdf[0] != '\0' &&
			     falcon_hp_present(r->root, r->lease.devs[i].bdf);
	fp_unlock(lock);
	for (i = 0; i < r->lease.ndevs; i++) {
		const struct falcon_lease_dev *d = &r->lease.devs[i];
		char why[300];

		if (!present[i])
			continue;
		snprintf(why, sizeof(why), "falcon-prolog job %u: %s still on %s's bus after "
			 "remove at rollback", r->job.id, d->bdf, r->job.node);
		falcon_error("%s; quarantined", why);
		if (fp_quarantine(r->conf, d, why) != FALCON_OK)
			falcon_error("quarantine %s %s: %s", d->chassis, d->id, falcon_errmsg());
		if (stuck++ == 0)
			snprintf(r->stuck, sizeof(r->stuck), "%s (%s) would not come off at rollback",
				 d->bdf, d->id);
	}
	return stuck;
}

/* rollback - remove what appeared, give the lease back, forget the job dir
 * (kept, for the epilog, when a device would not come off: r->stuck). */
static void rollback(struct node_run *r)
{
	if (r->composed) {
		remove_devices(r);
		fp_give_back(r->conf, r->job.id, r->job.node, r->lease.id);
		r->composed = false;
	}
	if (r->dir[0] != '\0' && r->stuck[0] == '\0')
		fp_rmtree(r->dir);
}

/* fail_node - roll back, drain the node with "falcon: ...", exit 1. */
static int fail_node(struct node_run *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int fail_node(struct node_run *r, const char *fmt, ...)
{
	char reason[512];
	va_list ap;
	int w;

	w = snprintf(reason, sizeof(reason), "falcon: job %u: ", r->job.id);
	va_start(ap, fmt);
	vsnprintf(reason + w, sizeof(reason) - (size_t)w, fmt, ap);
	va_end(ap);
	rollback(r);
	if (r->stuck[0] != '\0') {
		w = (int)strlen(reason);
		snprintf(reason + w, sizeof(reason) - (size_t)w, "; %s", r->stuck);
	}
	if (fp_slurm_drain(&r->job, reason) != FALCON_OK)
		falcon_error("%s", falcon_errmsg());
	return 1;
}

/* fail_job - the job's fault, not the node's: roll back, tag, cancel it.
 * Exit 0 only when the cancel went through (the job never runs short).
 * A device that would not come off at rollback is the node's: drained. */
static int fail_job(struct node_run *r, const char *what, const char *detail)
{
	char tag[128];

	falcon_error("job %u: %s: %s", r->job.id, what, detail);
	rollback(r);
	if (r->stuck[0] != '\0')
		return fail_node(r, "%s: %s", what, detail);
	snprintf(tag, sizeof(tag), "falcon:error=%s", what);
	if (fp_slurm_tag(&r->job, tag) != FALCON_OK)
		falcon_warn("%s", falcon_errmsg());
	if (fp_slurm_cancel(&r->job) != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		return fail_node(r, "%s: %s (and the job could not be cancelled)", what, detail);
	}
	return r->job.no_slurm ? 1 : 0;
}

/*
 * fail_requeue - a failure of falcond, the pool or a chassis, not the
 * node's: roll back, tag "falcon:requeued=<why>", requeue the job (or
 * cancel one Slurm will not requeue: fp_slurm_requeue()) and exit 0, the
 * node stays in service.  A device that would not come off at rollback
 * is the node's: drained.
 */
static int fail_requeue(struct node_run *r, falcon_err_t rv, const char *detail)
{
	char tag[128];

	rollback(r);
	if (r->stuck[0] != '\0')
		return fail_node(r, "compose: %s: %s", falcon_strerror(rv), detail);
	snprintf(tag, sizeof(tag), "falcon:requeued=%s", fp_wait_why(rv, detail));
	falcon_warn("job %u: %s: %s", r->job.id, tag, detail);
	if (fp_slurm_tag(&r->job, tag) != FALCON_OK)
		falcon_warn("%s", falcon_errmsg());
	if (fp_slurm_requeue(&r->job, detail) != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		return fail_node(r, "compose: %s: %s (and the job could not be requeued)",
				 falcon_strerror(rv), detail);
	}
	return r->job.no_slurm ? 1 : 0;
}

static falcon_err_t write_state(const struct node_run *r, const char *name, json_object *o)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", r->dir, name);
	return fp_write_json(path, o, r->job.gid);
}

/* make_dir - RunDir/<jobid>, 0750 root:<job gid>. */
static falcon_err_t make_dir(struct node_run *r)
{
	if (mkdir(r->conf->run_dir, 0755) != 0 && errno != EEXIST)
		return falcon_err_set(FALCON_ERR_IO, "%s: %s", r->conf->run_dir, strerror(errno));
	if (fp_job_dir(r->conf, r->job.id, r->dir, sizeof(r->dir)) == NULL)
		return falcon_err_set(FALCON_ERR_INVAL, "RunDir %s: too long", r->conf->run_dir);
	if (mkdir(r->dir, 0750) != 0 && errno != EEXIST)
		return falcon_err_set(FALCON_ERR_IO, "%s: %s", r->dir, strerror(errno));
	if (chmod(r->dir, 0750) != 0 || (geteuid() == 0 && chown(r->dir, 0, r->job.gid) != 0))
		return falcon_err_set(FALCON_ERR_IO, "%s: chmod/chown: %s", r->dir, strerror(errno));
	return FALCON_OK;
}

/* ncclcheck_path - NcclCheck= or the installed one, when executable. */
static const char *ncclcheck_path(const struct falcon_conf *conf)
{
	static char path[PATH_MAX];

	return falcon_conf_ncclcheck(conf, path, sizeof(path)) ? path : NULL;
}

/* run_check - falcon-ncclcheck on the job's GPUs within what is left. */
static void run_check(struct node_run *r)
{
	const char *prog = ncclcheck_path(r->conf);
	char budget[16], topo[PATH_MAX], json[PATH_MAX], log[PATH_MAX];
	long left = fp_left(r->deadline) / 1000, b;
	long long t0 = fp_now_us(), end;
	json_object *x;
	pid_t pid;
	int st = 0;

	if (r->check == FALCON_CHECK_OFF) {
		falcon_strlcpy(r->check_status, "off", sizeof(r->check_status));
		return;
	}
	if (r->topo.cuda_visible[0] == '\0') {
		falcon_strlcpy(r->check_status, "skipped", sizeof(r->check_status));
		falcon_verbose("job %u: check skipped (no NVIDIA GPU)", r->job.id);
		return;
	}
	if (prog == NULL) {
		char path[PATH_MAX];

		/* a configuration error (falcond says it too, falconctl
		 * status shows it), not the job's: said, not fatal */
		falcon_conf_ncclcheck(r->conf, path, sizeof(path));
		falcon_strlcpy(r->check_status, "skipped", sizeof(r->check_status));
		falcon_warn("job %u: check skipped: Check=%s but %s (NcclCheck=) is not installed "
			    "here: install falcon-ncclcheck or set the partition's Check=off",
			    r->job.id, falcon_check_str(r->check), path);
		return;
	}
	b = r->conf->check_budget < left - 5 ? r->conf->check_budget : left - 5;
	if (b < 1) {
		falcon_warn("job %u: no time left for the check", r->job.id);
		falcon_strlcpy(r->check_status, "skipped", sizeof(r->check_status));
		return;
	}
	snprintf(budget, sizeof(budget), "%ld", b);
	snprintf(topo, sizeof(topo), "%s/topology.json", r->dir);
	snprintf(json, sizeof(json), "%s/check.json", r->dir);
	snprintf(log, sizeof(log), "%s/check.log", r->dir);
	if ((pid = fork()) < 0) {
		falcon_warn("fork: %s", strerror(errno));
		falcon_strlcpy(r->check_status, "error", sizeof(r->check_status));
		return;
	}
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);

		if (fd >= 0) {
			/* the job's group reads it, as topology.json (issue 32:
			 * the job's owner could not read its own check.log) */
			if (fchown(fd, (uid_t)-1, r->job.gid) != 0)
				falcon_warn("%s: chown :%u: %s", log, (unsigned)r->job.gid,
					    strerror(errno));
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execl(prog, prog, "--level", falcon_check_str(r->check), "--gpus",
		      r->topo.cuda_visible, "--budget", budget, "--topology", topo, "--json", json,
		      "--config", r->conf->path, "--partition",
		      r->job.partition[0] ? r->job.partition : "DEFAULT", "--quiet", (char *)NULL);
		_exit(127);
	}
	/* ncclcheck abandons a stuck step 5 s after its budget; 10 s more here */
	end = falcon_now_ms() + (b + 10) * 1000;
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		struct timespec ts = { 0, 20000000L };

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			break;
		if (falcon_now_ms() > end) {
			falcon_error("job %u: falcon-ncclcheck past its budget; killed", r->job.id);
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			break;
		}
		nanosleep(&ts, NULL);
	}
	r->t_check_us = fp_now_us() - t0;
	r->check_json = json_object_from_file(json);
	if (r->check_json != NULL && json_object_object_get_ex(r->check_json, "status", &x))
		falcon_strlcpy(r->check_status, json_object_get_string(x), sizeof(r->check_status));
	else
		falcon_strlcpy(r->check_status, "error", sizeof(r->check_status));
	/* bandwidths only from a check that measured (skipped/error did not) */
	if (strcmp(r->check_status, "pass") == 0 || strcmp(r->check_status, "warn") == 0 ||
	    strcmp(r->check_status, "fail") == 0) {
		if (json_object_object_get_ex(r->check_json, "busbw_peak", &x))
			r->busbw = json_object_get_double(x);
		if (json_object_object_get_ex(r->check_json, "algbw_peak", &x))
			r->algbw = json_object_get_double(x);
	}
	falcon_info("job %u: check %s (busbw %.1f GB/s)", r->job.id, r->check_status, r->busbw);
}

/* on_fault - a degraded link or failed check, by the partition's CheckAction. */
static int on_fault(struct node_run *r, const char *what, const struct falcon_lease_dev *dev)
{
	char reason[300];

	snprintf(reason, sizeof(reason), "falcon-prolog job %u: %s", r->job.id, what);
	switch (r->part->check_action) {
	case FALCON_ACTION_DRAIN:
		if (dev != NULL && fp_quarantine(r->conf, dev, reason) != FALCON_OK)
			falcon_error("quarantine %s: %s", dev->id, falcon_errmsg());
		return fail_node(r, "%s", what);
	case FALCON_ACTION_FAIL:
		return fail_job(r, dev ? "link" : "check", what);
	case FALCON_ACTION_WARN:
	default:
		falcon_warn("job %u: %s (CheckAction=warn: the job runs)", r->job.id, what);
		return -1;
	}
}

static const struct falcon_lease_dev *dev_at(const struct node_run *r, const char *bdf_prefix)
{
	size_t i;

	for (i = 0; i < r->lease.ndevs; i++)
		if (r->lease.devs[i].bdf[0] && strncmp(bdf_prefix, r->lease.devs[i].bdf, 12) == 0)
			return &r->lease.devs[i];
	return NULL;
}

/* nvme_dev - the block device of a composed NVMe: /dev/<namespace> from
 * BUSDIR/devices/BDF/nvme/nvmeX/nvmeXnY, else the controller /dev/nvmeX;
 * "" when the kernel shows neither (no driver bound). */
static void nvme_dev(const char *root, const char *bdf, char *buf, size_t n)
{
	char bus[PATH_MAX], path[PATH_MAX + 64];
	struct dirent *de, *ne;
	DIR *d, *nd;

	buf[0] = '\0';
	if (falcon_hp_busdir(root, bus, sizeof(bus)) == NULL)
		return;
	snprintf(path, sizeof(path), "%s/devices/%s/nvme", bus, bdf);
	if ((d = opendir(path)) == NULL)
		return;
	while (buf[0] == '\0' && (de = readdir(d)) != NULL) {
		char sub[PATH_MAX + 64 + 256];

		if (strncmp(de->d_name, "nvme", 4) != 0)
			continue;
		snprintf(buf, n, "/dev/%s", de->d_name);
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		if ((nd = opendir(sub)) == NULL)
			continue;
		while ((ne = readdir(nd)) != NULL)
			if (strncmp(ne->d_name, de->d_name, strlen(de->d_name)) == 0 &&
			    ne->d_name[strlen(de->d_name)] == 'n') {
				snprintf(buf, n, "/dev/%s", ne->d_name);
				break;
			}
		closedir(nd);
	}
	closedir(d);
}

/* add_nvme_nodes - "dev" of each Falcon NVMe in the topology (spank_falcon
 * exports them as FALCON_NVME) and the list as "nvme_devices". */
static void add_nvme_nodes(const struct node_run *r, json_object *o)
{
	json_object *a = json_object_new_array(), *nv, *e, *b;
	char dev[PATH_MAX];
	size_t i;

	if (json_object_object_get_ex(o, "nvme", &nv) && json_object_is_type(nv, json_type_array))
		for (i = 0; i < json_object_array_length(nv); i++) {
			e = json_object_array_get_idx(nv, i);
			if (!json_object_object_get_ex(e, "bdf", &b))
				continue;
			nvme_dev(r->root, json_object_get_string(b), dev, sizeof(dev));
			if (dev[0] == '\0') {
				json_object *loc;

				if (json_object_object_get_ex(e, "location", &loc) &&
				    strcmp(json_object_get_string(loc), "falcon") == 0)
					falcon_warn("job %u: falcon NVMe %s has no block device "
						    "(no nvme driver bound?): FALCON_NVME leaves it out",
						    r->job.id, json_object_get_string(b));
				continue;
			}
			json_object_object_add(e, "dev", json_object_new_string(dev));
			json_object_array_add(a, json_object_new_string(dev));
		}
	json_object_object_add(o, "nvme_devices", a);
}

/*
 * The steps of run().  Each returns -1 to go on, else the program's exit
 * code (after fail_node()/fail_job(r, ) where it failed).
 */

/* prepare - read the job; its host, partition, check level, SysfsRoot and
 * RunDir/<jobid>.  0 (done) for a job without falcon or gpu GRES. */
static int prepare(struct node_run *r)
{
	char root[PATH_MAX];

	if (fp_slurm_job(&r->job) != FALCON_OK)
		return fail_node(r, "reading the job: %s", falcon_errmsg());
	if (r->job.req.falcon_gpus + r->job.req.falcon_nvme + r->job.req.gpus == 0) {
		falcon_verbose("job %u: no falcon or gpu GRES; nothing to do", r->job.id);
		return 0;
	}
	r->host = falcon_conf_host(r->conf, r->job.node);
	if (r->host == NULL && r->job.req.falcon_gpus + r->job.req.falcon_nvme > 0)
		return fail_node(r, "node %s has no HostName= line in %s", r->job.node, r->conf->path);
	r->part = falcon_conf_partition(r->conf, r->job.partition);
	r->check = r->job.opts.check_set ? r->job.opts.check : r->part->check;
	if (falcon_conf_sysfs_root(r->conf, r->job.node, root, sizeof(root)) == NULL)
		return fail_node(r, "SysfsRoot too long");
	falcon_strlcpy(r->root, root, sizeof(r->root));
	if (make_dir(r) != FALCON_OK)
		return fail_node(r, "%s", falcon_errmsg());
	return -1;
}

/* write_lease - lease.json from r->lease (with the BDFs found so far). */
static falcon_err_t write_lease(const struct node_run *r)
{
	json_object *o = fp_lease_json(&r->lease, r->job.node);
	falcon_err_t rv = write_state(r, "lease.json", o);

	json_object_put(o);
	return rv;
}

/* compose - ask falcond for the job's devices (outside the node lock:
 * retries do not hold up other jobs) and record the lease. */
static int compose(struct node_run *r)
{
	bool job_err = false;
	falcon_err_t rv;

	rv = fp_compose(r->conf, &r->job, r->deadline - RESERVE_MS, &r->lease, &job_err);
	if (rv != FALCON_OK) {
		char detail[400];

		snprintf(detail, sizeof(detail), "%s", falcon_errmsg());
		r->composed = true; /* a half-done compose: decompose is harmless */
		if (job_err)
			return fail_job(r, falcon_err_name(rv), detail);
		return fail_requeue(r, rv, detail);
	}
	r->composed = true;
	if (write_lease(r) != FALCON_OK)
		return fail_node(r, "%s", falcon_errmsg());
	return -1;
}

/*
 * wait_found - scan the bus until every lease device is identified in its
 * slot (fp_match_in()), for at most wait_ms: a scan again only when
 * BUSDIR/devices changed since the last scan that came up short
 * (falcon_hp_wait_change(): the wait polls readdir, not libpci).  The scan
 * that found them is kept in r->bus (the topology is built from it: one
 * scan per run).  why (n bytes) gets what is missing.
 */
static falcon_err_t wait_found(struct node_run *r, long wait_ms, char *why, size_t n)
{
	long long end = falcon_now_ms() + wait_ms;
	unsigned long long sig;

	for (;;) {
		struct falcon_topo *t = NULL;
		long left;

		/* the tree as it is before this scan: a change during it
		 * brings the next at once */
		sig = falcon_hp_bus_signature(r->root);
		if (fp_scan(r->root, r->host, &t) != FALCON_OK) {
			/* a config file not written yet while devices are
			 * being added: "not yet", the timeout reports it */
			snprintf(why, n, "%s", falcon_errmsg());
			sig = 0;
		} else if (fp_match_in(t, r->host, &r->lease, why, n) > 0) {
			falcon_topo_free(r->bus);
			r->bus = t;
			return FALCON_OK;
		}
		falcon_topo_free(t);
		left = (long)(end - falcon_now_ms());
		if (left <= 0 ||
		    falcon_hp_wait_change(r->root, &sig, left, "rescan") != FALCON_OK)
			return falcon_err_set(FALCON_ERR_TIMEOUT, "rescan: not done after %ld ms",
					      wait_ms);
	}
}

/* bring_up - under the node lock (*lock, taken here; which functions are
 * whose is decided against the other jobs' records): rescan and wait for
 * the lease's devices, then record their BDFs.  Unlocks on failure. */
static int bring_up(struct node_run *r, int *lock)
{
	char why[512] = "";
	falcon_err_t rv;
	long long t0;
	long wait_ms;

	*lock = fp_lock(r->conf);
	/* records of ended jobs that name our slots would claim their BDFs */
	fp_drop_stale(r->conf, r->job.id, r->job.node, &r->lease);
	t0 = fp_now_us();
	if (falcon_hp_rescan(r->root) != FALCON_OK) {
		fp_unlock(*lock);
		return fail_node(r, "rescan: %s", falcon_errmsg());
	}
	wait_ms = fp_left(r->deadline - RESERVE_MS);
	if (r->conf->rescan_timeout * 1000L < wait_ms)
		wait_ms = r->conf->rescan_timeout * 1000L;
	rv = wait_found(r, wait_ms, why, sizeof(why));
	r->t_wait_us = fp_now_us() - t0;
	/* what was found goes to lease.json before anything else: the
	 * epilog removes the BDFs it names */
	if (write_lease(r) != FALCON_OK && rv == FALCON_OK) {
		fp_unlock(*lock);
		return fail_node(r, "%s", falcon_errmsg());
	}
	if (rv != FALCON_OK) {
		char missing[512], held[300];

		fp_unlock(*lock);
		falcon_strlcpy(missing, why[0] ? why : falcon_errmsg(), sizeof(missing));
		/* the chassis may have lost the composition (restarted, its
		 * zones gone) or stopped answering: not the node's problem */
		if (fp_lease_held(r->conf, r->job.id, r->job.node, r->lease.id, r->deadline - RESERVE_MS,
				  held, sizeof(held)) == 0) {
			char detail[900];

			falcon_warn("job %u: not found in their slots: %s; %s: requeued", r->job.id,
				    missing, held);
			snprintf(detail, sizeof(detail), "not found in their slots (%s): %s", missing,
				 held);
			return fail_requeue(r, FALCON_ERR_CHASSIS, detail);
		}
		falcon_info("job %u: %s", r->job.id, held);
		return fail_node(r, "%s after rescan: not found in its slot: %s", falcon_strerror(rv),
				 missing);
	}
	return -1;
}

/*
 * reset_kept - devices kept warm for another user (the lease's "reset",
 * falcon.conf KeepWarmReset=): the site's program is run on them before
 * the job sees them, as "PROG TYPE:BDF..." (TYPE gpu or nvme), within 60 s
 * or what is left of the budget.  Any other outcome than exit 0 gives
 * them back (the rollback detaches them: a fresh compose next time) and
 * requeues the job: it never gets a device that was not reset.  Runs
 * without the node lock (*lock given back, taken again after).
 */
static int reset_kept(struct node_run *r, int *lock)
{
	const char *prog = r->conf->keep_warm_reset;
	char *argv[FP_MAX_DEVS + 2], args[FP_MAX_DEVS][FALCON_BDF_LEN + 8], detail[300];
	long long end = falcon_now_ms() + 60000, left = r->deadline - RESERVE_MS;
	size_t i, n = 0;
	pid_t pid;
	int st = 0;

	if (!r->lease.reset)
		return -1;
	fp_unlock(*lock); /* the rollback below takes it again */
	*lock = -1;
	if (prog == NULL)
		return fail_requeue(r, FALCON_ERR_POLICY, "devices kept warm for another user "
				    "and no KeepWarmReset= here to reset them");
	argv[n++] = (char *)prog;
	for (i = 0; i < r->lease.ndevs && i < FP_MAX_DEVS; i++) {
		snprintf(args[i], sizeof(args[i]), "%s:%s",
			 r->lease.devs[i].type == FALCON_DEV_NVME ? "nvme" : "gpu", r->lease.devs[i].bdf);
		argv[n++] = args[i];
	}
	argv[n] = NULL;
	end = left < end ? left : end;
	if ((pid = fork()) < 0)
		return fail_requeue(r, FALCON_ERR_IO, "KeepWarmReset=: fork failed");
	if (pid == 0) {
		execv(prog, argv);
		_exit(127);
	}
	for (;;) {
		struct timespec ts = { 0, 20000000L };
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid || (w < 0 && errno != EINTR))
			break;
		if (falcon_now_ms() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			snprintf(detail, sizeof(detail), "KeepWarmReset=%s: killed past its time", prog);
			return fail_requeue(r, FALCON_ERR_TIMEOUT, detail);
		}
		nanosleep(&ts, NULL);
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		snprintf(detail, sizeof(detail), "KeepWarmReset=%s: %s %d on devices kept warm for "
			 "another user", prog, WIFEXITED(st) ? "exit" : "signal",
			 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		return fail_requeue(r, FALCON_ERR_CHASSIS, detail);
	}
	falcon_info("job %u: %zu device(s) kept warm for another user reset by %s", r->job.id,
		    r->lease.ndevs, prog);
	*lock = fp_lock(r->conf);
	return -1;
}

/* read_topology - the job's topology into r->topo (under the node lock). */
static falcon_err_t read_topology(struct node_run *r)
{
	char claimed[FP_MAX_GPUS][FALCON_BDF_LEN];
	size_t nclaimed = fp_claimed(r->conf, r->job.id, r->job.node, claimed, ARRAY_SIZE(claimed));
	long long until = falcon_now_ms() + 2000;
	falcon_err_t rv;

	/* a tree read while another job's rescan rewrites it (falcon-sim
	 * writes files in place) may fail to parse: read again, bounded */
	for (;;) {
		struct timespec ts = { 0, 10000000L };

		/* the scan that found the lease first (none for a job of
		 * local GPUs only: scanned there) */
		rv = fp_build_topology(r->root, r->bus, r->host, r->composed ? &r->lease : NULL,
				       r->job.req.gpus, getenv("SLURM_JOB_GPUS"), claimed, nclaimed,
				       &r->topo);
		if ((rv != FALCON_ERR_PARSE && rv != FALCON_ERR_PCI) || falcon_now_ms() > until ||
		    fp_left(r->deadline - RESERVE_MS) == 0)
			return rv;
		/* read again: a new scan */
		falcon_topo_free(r->bus);
		r->bus = NULL;
		falcon_verbose("job %u: topology: %s; reading again", r->job.id, falcon_errmsg());
		nanosleep(&ts, NULL);
	}
}

/* write_topology - read the topology and write topology.json with the
 * prolog's keys; the node lock (taken when not yet) is given up here. */
static int write_topology(struct node_run *r, int lock)
{
	json_object *o;
	falcon_err_t rv;

	if (lock < 0)
		lock = fp_lock(r->conf);
	if ((rv = read_topology(r)) != FALCON_OK) {
		fp_unlock(lock);
		if (rv == FALCON_ERR_NORESOURCE)
			return fail_job(r, "local", falcon_errmsg());
		return fail_node(r, "topology: %s", falcon_errmsg());
	}
	o = r->topo.topology;
	json_object_object_add(o, "job_id", json_object_new_int64(r->job.id));
	json_object_object_add(o, "node", json_object_new_string(r->job.node));
	json_object_object_add(o, "cuda_visible_devices",
			       json_object_new_string(fp_cuda_visible(&r->topo, r->conf)));
	json_object_object_add(o, "lease", r->composed ? fp_lease_json(&r->lease, r->job.node) : NULL);
	add_nvme_nodes(r, o);
	json_object_object_add(o, "check", NULL);
	rv = write_state(r, "topology.json", o);
	fp_unlock(lock);
	if (rv != FALCON_OK)
		return fail_node(r, "%s", falcon_errmsg());
	falcon_cg_prolog(o, r->job.id); /* close its composed devices to the running jobs (#14) */
	return -1;
}

/* verify - a degraded link, then falcon-ncclcheck (its result into
 * topology.json), each by the partition's CheckAction. */
static int verify(struct node_run *r)
{
	json_object *o = r->topo.topology, *x;
	char what[256];
	int rc;

	if (r->topo.degraded &&
	    (rc = on_fault(r, r->topo.degraded_what, dev_at(r, r->topo.degraded_what))) >= 0)
		return rc;
	run_check(r);
	if (r->check_json != NULL) {
		json_object_object_add(o, "check", json_object_get(r->check_json));
		if (write_state(r, "topology.json", o) != FALCON_OK)
			falcon_warn("%s", falcon_errmsg());
	}
	if (strcmp(r->check_status, "fail") != 0)
		return -1;
	snprintf(what, sizeof(what), "NCCL check failed: %s",
		 r->check_json && json_object_object_get_ex(r->check_json, "reason", &x)
			 ? json_object_get_string(x) : "see check.json");
	return on_fault(r, what, NULL);
}

/* tag_job - the AdminComment tag (and "tag" in topology.json). */
static void tag_job(struct node_run *r)
{
	json_object *o = r->topo.topology;
	struct falcon_tag t;
	char tag[256];
	long long t0;

	memset(&t, 0, sizeof(t));
	t.topo = r->topo.label[0] ? r->topo.label : NULL;
	t.local_gpus = r->topo.local_gpus;
	t.falcon_gpus = r->topo.falcon_gpus;
	t.nvme = strcmp(r->topo.storage, "falconNVMe") == 0 ? "falcon" : NULL;
	t.check = r->check_status[0] ? r->check_status : NULL;
	t.busbw = r->busbw;
	t.algbw = r->algbw;
	t.degraded = r->topo.degraded;
	t.auto_topo = r->job.opts.topology_auto;
	t0 = fp_now_us();
	if (falcon_tag_build(&t, tag, sizeof(tag)) == NULL ||
	    fp_slurm_tag(&r->job, tag) != FALCON_OK)
		falcon_warn("job %u: AdminComment not tagged: %s", r->job.id, falcon_errmsg());
	r->t_tag_us = fp_now_us() - t0;
	json_object_object_add(o, "tag", json_object_new_string(tag));
	if (write_state(r, "topology.json", o) != FALCON_OK)
		falcon_warn("%s", falcon_errmsg());
	falcon_info("job %u: %s on %s: %s", r->job.id, tag, r->job.node, r->dir);
}

/* steps - the prolog's steps in order; the exit code. */
static int steps(struct node_run *r)
{
	int lock = -1, rc;

	if ((rc = prepare(r)) >= 0)
		return rc;
	if (r->job.req.falcon_gpus + r->job.req.falcon_nvme > 0) {
		if ((rc = compose(r)) >= 0 || (rc = bring_up(r, &lock)) >= 0)
			return rc;
		if ((rc = reset_kept(r, &lock)) >= 0)
			return rc;
	}
	if ((rc = write_topology(r, lock)) >= 0 || (rc = verify(r)) >= 0)
		return rc;
	tag_job(r);
	return 0;
}

int fp_node_run(const struct falcon_conf *conf, struct fp_job *job, long long deadline,
		struct fp_node_times *times)
{
	/* a lease, a topology and PATH_MAX names: not on the stack */
	static struct node_run run;
	struct node_run *r = &run;
	int rc;

	memset(r, 0, sizeof(*r));
	r->conf = conf;
	r->job = *job;
	r->deadline = deadline;
	r->busbw = r->algbw = -1;
	rc = steps(r);
	*job = r->job;
	times->wait_us = r->t_wait_us;
	times->tag_us = r->t_tag_us;
	times->check_us = r->t_check_us;
	falcon_topo_free(r->bus);
	json_object_put(r->topo.topology);
	json_object_put(r->check_json);
	return rc;
}
