/*
 * falcon-prolog.c - the Slurm node prolog (slurm.conf Prolog=, runs as
 * root in slurmd): compose the job's Falcon devices through falcond, bring
 * them onto the node's PCIe bus, verify them, write the job's topology,
 * run falcon-ncclcheck and tag the job's AdminComment.  On a failure of
 * the node itself (a device not in its slot, a degraded link with
 * CheckAction=drain, a device stuck on the bus) roll back, drain the node
 * with a "falcon: ..." reason and exit non-zero (Slurm then requeues the
 * job held); on one of falcond, the pool or a chassis roll back, requeue
 * the job (slurm_requeue) and exit 0: the node stays in service.
 * With --slurmctld (slurm.conf PrologSlurmctld=) it only composes, for
 * each node of the job, waiting up to ComposeWait= while falcond or the
 * pool is not ready; the node prolog then finds the lease made (falcond's
 * compose is idempotent per job and host).  See doc/falcon-prolog.8.
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

#include "fp_common.h"
#include "fp_falcond.h"
#include "fp_slurm.h"
#include "fp_start.h"
#include "fp_topo.h"
#include "cgroup/cgroup.h"
#include "pci/hotplug.h"
#include "core/log.h"
#include "core/util.h"

#define RESERVE_MS 5000 /* kept back from PrologTimeout for rollback */

/* Everything one run knows; one static struct as the SPANK plugins do. */
static struct {
	struct falcon_conf *conf;
	struct fp_job job;
	const struct falcon_host_conf *host;
	const struct falcon_partition_conf *part;
	char root[PATH_MAX];
	char dir[PATH_MAX - 256];
	long long deadline;        /* falcon_now_ms() */
	struct fp_lease lease;
	bool composed;
	struct fp_topo_result topo;
	falcon_check_t check;
	json_object *check_json;
	char check_status[16];
	double busbw, algbw;
	long long t_wait_us, t_tag_us, t_check_us;
	char stuck[160];           /* rollback: the first device that would not come off */
} g = { .busbw = -1, .algbw = -1 };

static void usage(FILE *f)
{
	fprintf(f, "usage: falcon-prolog [-c FILE] [-j JOBID] [-n NODE] [--slurmctld] [--no-slurm] "
		"[-v]...\n"
		"  Slurm node prolog: compose, hot-add, verify, check and tag the job's\n"
		"  Falcon devices.  JOBID defaults to $SLURM_JOB_ID, NODE to $SLURMD_NODENAME.\n"
		"  --slurmctld (PrologSlurmctld=; implied by SLURM_SCRIPT_CONTEXT=prolog_slurmctld):\n"
		"  compose for every node of $SLURM_JOB_NODELIST, waiting up to ComposeWait=.\n"
		"  --no-slurm (debugging): the job from the environment (FALCON_TRES_PER_NODE,\n"
		"  SLURM_JOB_PARTITION, SLURM_JOB_UID/GID); no AdminComment, drain or cancel.\n");
}

/*
 * remove_devices - take the lease's devices that are on the bus off again.
 * One still there after the wait is quarantined in falcond (as the epilog
 * does: never handed out again until an administrator looks) and named in
 * g.stuck; returns how many would not come off.  Takes the node lock for
 * the remove and its wait: call without it.
 */
static size_t remove_devices(void)
{
	const char *bdfs[FP_MAX_DEVS];
	bool present[FP_MAX_DEVS];
	size_t i, n = 0, stuck = 0;
	/* as the epilog: no other job's rescan brings them back while the
	 * wait watches them go */
	int lock = fp_lock(g.conf);

	for (i = 0; i < g.lease.n; i++)
		if (g.lease.devs[i].bdf[0] != '\0') {
			if (falcon_hp_remove(g.root, g.lease.devs[i].bdf) != FALCON_OK)
				falcon_warn("rollback: %s", falcon_errmsg());
			bdfs[n++] = g.lease.devs[i].bdf;
		}
	if (n > 0 && falcon_hp_wait_gone(g.root, bdfs, n, 5000) != FALCON_OK)
		falcon_warn("rollback: %s", falcon_errmsg());
	for (i = 0; i < g.lease.n; i++)
		present[i] = g.lease.devs[i].bdf[0] != '\0' &&
			     falcon_hp_present(g.root, g.lease.devs[i].bdf);
	fp_unlock(lock);
	for (i = 0; i < g.lease.n; i++) {
		const struct fp_dev *d = &g.lease.devs[i];
		char why[300];

		if (!present[i])
			continue;
		snprintf(why, sizeof(why), "falcon-prolog job %u: %s still on %s's bus after "
			 "remove at rollback", g.job.id, d->bdf, g.job.node);
		falcon_error("%s; quarantined", why);
		if (fp_quarantine(g.conf, d, why) != FALCON_OK)
			falcon_error("quarantine %s %s: %s", d->chassis, d->id, falcon_errmsg());
		if (stuck++ == 0)
			snprintf(g.stuck, sizeof(g.stuck), "%s (%s) would not come off at rollback",
				 d->bdf, d->id);
	}
	return stuck;
}

/* rollback - remove what appeared, give the lease back, forget the job dir
 * (kept, for the epilog, when a device would not come off: g.stuck). */
static void rollback(void)
{
	if (g.composed) {
		remove_devices();
		/* falcond gets the reserve even when the prolog's own time ran out */
		if (fp_decompose(g.conf, g.job.id, g.job.node, g.lease.id,
				 falcon_now_ms() + RESERVE_MS, "rolled back", NULL) != FALCON_OK)
			falcon_error("rollback: decompose job %u: %s (falcond's reconcile will "
				     "reclaim the lease)", g.job.id, falcon_errmsg());
		g.composed = false;
	}
	if (g.dir[0] != '\0' && g.stuck[0] == '\0')
		fp_rmtree(g.dir);
}

/* fail_node - roll back, drain the node with "falcon: ...", exit 1. */
static int fail_node(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail_node(const char *fmt, ...)
{
	char reason[512];
	va_list ap;
	int w;

	w = snprintf(reason, sizeof(reason), "falcon: job %u: ", g.job.id);
	va_start(ap, fmt);
	vsnprintf(reason + w, sizeof(reason) - (size_t)w, fmt, ap);
	va_end(ap);
	rollback();
	if (g.stuck[0] != '\0') {
		w = (int)strlen(reason);
		snprintf(reason + w, sizeof(reason) - (size_t)w, "; %s", g.stuck);
	}
	if (fp_slurm_drain(&g.job, reason) != FALCON_OK)
		falcon_error("%s", falcon_errmsg());
	return 1;
}

/* fail_job - the job's fault, not the node's: roll back, tag, cancel it.
 * Exit 0 only when the cancel went through (the job never runs short).
 * A device that would not come off at rollback is the node's: drained. */
static int fail_job(const char *what, const char *detail)
{
	char tag[128];

	falcon_error("job %u: %s: %s", g.job.id, what, detail);
	rollback();
	if (g.stuck[0] != '\0')
		return fail_node("%s: %s", what, detail);
	snprintf(tag, sizeof(tag), "falcon:error=%s", what);
	if (fp_slurm_tag(&g.job, tag) != FALCON_OK)
		falcon_warn("%s", falcon_errmsg());
	if (fp_slurm_cancel(&g.job) != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		return fail_node("%s: %s (and the job could not be cancelled)", what, detail);
	}
	return g.job.no_slurm ? 1 : 0;
}

/*
 * fail_requeue - a failure of falcond, the pool or a chassis, not the
 * node's: roll back, tag "falcon:requeued=<why>", requeue the job (or
 * cancel one Slurm will not requeue: fp_slurm_requeue()) and exit 0, the
 * node stays in service.  A device that would not come off at rollback
 * is the node's: drained.
 */
static int fail_requeue(falcon_err_t rv, const char *detail)
{
	char tag[128];

	rollback();
	if (g.stuck[0] != '\0')
		return fail_node("compose: %s: %s", falcon_strerror(rv), detail);
	snprintf(tag, sizeof(tag), "falcon:requeued=%s", fp_wait_why(rv));
	if (fp_slurm_tag(&g.job, tag) != FALCON_OK)
		falcon_warn("%s", falcon_errmsg());
	if (fp_slurm_requeue(&g.job, detail) != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		return fail_node("compose: %s: %s (and the job could not be requeued)",
				 falcon_strerror(rv), detail);
	}
	return g.job.no_slurm ? 1 : 0;
}

/* dir_signature - FNV-1a 64 over the names under BUSDIR/devices, each
 * device directory's mtime and its config file's size. */
static unsigned long long dir_signature(void)
{
	unsigned long long h = 0xcbf29ce484222325ULL;
	char bus[PATH_MAX], path[PATH_MAX + 300];
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (falcon_hp_busdir(g.root, bus, sizeof(bus)) == NULL)
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

static int match_cond(void *p)
{
	static bool have_sig;
	static unsigned long long last_sig;
	unsigned long long sig;
	char *why = p;
	int r;

	/* scan again only when devices/ changed since the last scan that
	 * came up short: the wait polls readdir, not libpci */
	sig = dir_signature();
	if (have_sig && sig == last_sig)
		return 0;
	r = fp_match(g.root, g.host, &g.lease, why, 512);
	/* only a clean read that came up short is worth remembering: a parse
	 * error means files are still being written */
	last_sig = sig;
	have_sig = r == 0;
	/* a scan error while devices are being added (a config file not
	 * written yet) is "not yet": the timeout reports it in why */
	return r < 0 ? 0 : r;
}

static falcon_err_t write_state(const char *name, json_object *o)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", g.dir, name);
	return fp_write_json(path, o, g.job.gid);
}

/* make_dir - RunDir/<jobid>, 0750 root:<job gid>. */
static falcon_err_t make_dir(void)
{
	if (mkdir(g.conf->run_dir, 0755) != 0 && errno != EEXIST)
		return falcon_err_set(FALCON_ERR_IO, "%s: %s", g.conf->run_dir, strerror(errno));
	if (fp_job_dir(g.conf, g.job.id, g.dir, sizeof(g.dir)) == NULL)
		return falcon_err_set(FALCON_ERR_INVAL, "RunDir %s: too long", g.conf->run_dir);
	if (mkdir(g.dir, 0750) != 0 && errno != EEXIST)
		return falcon_err_set(FALCON_ERR_IO, "%s: %s", g.dir, strerror(errno));
	if (chmod(g.dir, 0750) != 0 || (geteuid() == 0 && chown(g.dir, 0, g.job.gid) != 0))
		return falcon_err_set(FALCON_ERR_IO, "%s: chmod/chown: %s", g.dir, strerror(errno));
	return FALCON_OK;
}

/* ncclcheck_path - NcclCheck= or the installed one, when executable. */
static const char *ncclcheck_path(void)
{
	static char path[PATH_MAX];

	if (g.conf->ncclcheck != NULL)
		falcon_strlcpy(path, g.conf->ncclcheck, sizeof(path));
	else
		snprintf(path, sizeof(path), "%s/falcon-ncclcheck", FALCON_BINDIR);
	return access(path, X_OK) == 0 ? path : NULL;
}

/* run_check - falcon-ncclcheck on the job's GPUs within what is left. */
static void run_check(void)
{
	const char *prog = ncclcheck_path();
	char budget[16], topo[PATH_MAX], json[PATH_MAX], log[PATH_MAX];
	long left = fp_left(g.deadline) / 1000, b;
	long long t0 = fp_now_us(), end;
	json_object *x;
	pid_t pid;
	int st = 0;

	if (g.check == FALCON_CHECK_OFF) {
		falcon_strlcpy(g.check_status, "off", sizeof(g.check_status));
		return;
	}
	if (prog == NULL || g.topo.cuda_visible[0] == '\0') {
		falcon_strlcpy(g.check_status, "skipped", sizeof(g.check_status));
		falcon_verbose("job %u: check skipped (%s)", g.job.id,
			       prog ? "no NVIDIA GPU" : "falcon-ncclcheck not installed");
		return;
	}
	b = g.conf->check_budget < left - 5 ? g.conf->check_budget : left - 5;
	if (b < 1) {
		falcon_warn("job %u: no time left for the check", g.job.id);
		falcon_strlcpy(g.check_status, "skipped", sizeof(g.check_status));
		return;
	}
	snprintf(budget, sizeof(budget), "%ld", b);
	snprintf(topo, sizeof(topo), "%s/topology.json", g.dir);
	snprintf(json, sizeof(json), "%s/check.json", g.dir);
	snprintf(log, sizeof(log), "%s/check.log", g.dir);
	if ((pid = fork()) < 0) {
		falcon_warn("fork: %s", strerror(errno));
		falcon_strlcpy(g.check_status, "error", sizeof(g.check_status));
		return;
	}
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execl(prog, prog, "--level", falcon_check_str(g.check), "--gpus",
		      g.topo.cuda_visible, "--budget", budget, "--topology", topo, "--json", json,
		      "--config", g.conf->path, "--partition",
		      g.job.partition[0] ? g.job.partition : "DEFAULT", "--quiet", (char *)NULL);
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
			falcon_error("job %u: falcon-ncclcheck past its budget; killed", g.job.id);
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			break;
		}
		nanosleep(&ts, NULL);
	}
	g.t_check_us = fp_now_us() - t0;
	g.check_json = json_object_from_file(json);
	if (g.check_json != NULL && json_object_object_get_ex(g.check_json, "status", &x))
		falcon_strlcpy(g.check_status, json_object_get_string(x), sizeof(g.check_status));
	else
		falcon_strlcpy(g.check_status, "error", sizeof(g.check_status));
	/* bandwidths only from a check that measured (skipped/error did not) */
	if (strcmp(g.check_status, "pass") == 0 || strcmp(g.check_status, "warn") == 0 ||
	    strcmp(g.check_status, "fail") == 0) {
		if (json_object_object_get_ex(g.check_json, "busbw_peak", &x))
			g.busbw = json_object_get_double(x);
		if (json_object_object_get_ex(g.check_json, "algbw_peak", &x))
			g.algbw = json_object_get_double(x);
	}
	falcon_info("job %u: check %s (busbw %.1f GB/s)", g.job.id, g.check_status, g.busbw);
}

/* on_fault - a degraded link or failed check, by the partition's CheckAction. */
static int on_fault(const char *what, const struct fp_dev *dev)
{
	char reason[300];

	snprintf(reason, sizeof(reason), "falcon-prolog job %u: %s", g.job.id, what);
	switch (g.part->check_action) {
	case FALCON_ACTION_DRAIN:
		if (dev != NULL && fp_quarantine(g.conf, dev, reason) != FALCON_OK)
			falcon_error("quarantine %s: %s", dev->id, falcon_errmsg());
		return fail_node("%s", what);
	case FALCON_ACTION_FAIL:
		return fail_job(dev ? "link" : "check", what);
	case FALCON_ACTION_WARN:
	default:
		falcon_warn("job %u: %s (CheckAction=warn: the job runs)", g.job.id, what);
		return -1;
	}
}

static const struct fp_dev *dev_at(const char *bdf_prefix)
{
	size_t i;

	for (i = 0; i < g.lease.n; i++)
		if (g.lease.devs[i].bdf[0] && strncmp(bdf_prefix, g.lease.devs[i].bdf, 12) == 0)
			return &g.lease.devs[i];
	return NULL;
}

/* nvme_dev - the block device of a composed NVMe: /dev/<namespace> from
 * BUSDIR/devices/BDF/nvme/nvmeX/nvmeXnY, else the controller /dev/nvmeX;
 * "" when the kernel shows neither (no driver bound). */
static void nvme_dev(const char *bdf, char *buf, size_t n)
{
	char bus[PATH_MAX], path[PATH_MAX + 64];
	struct dirent *de, *ne;
	DIR *d, *nd;

	buf[0] = '\0';
	if (falcon_hp_busdir(g.root, bus, sizeof(bus)) == NULL)
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
static void add_nvme_nodes(json_object *o)
{
	json_object *a = json_object_new_array(), *nv, *e, *b;
	char dev[PATH_MAX];
	size_t i;

	if (json_object_object_get_ex(o, "nvme", &nv) && json_object_is_type(nv, json_type_array))
		for (i = 0; i < json_object_array_length(nv); i++) {
			e = json_object_array_get_idx(nv, i);
			if (!json_object_object_get_ex(e, "bdf", &b))
				continue;
			nvme_dev(json_object_get_string(b), dev, sizeof(dev));
			if (dev[0] == '\0') {
				json_object *loc;

				if (json_object_object_get_ex(e, "location", &loc) &&
				    strcmp(json_object_get_string(loc), "falcon") == 0)
					falcon_warn("job %u: falcon NVMe %s has no block device "
						    "(no nvme driver bound?): FALCON_NVME leaves it out",
						    g.job.id, json_object_get_string(b));
				continue;
			}
			json_object_object_add(e, "dev", json_object_new_string(dev));
			json_object_array_add(a, json_object_new_string(dev));
		}
	json_object_object_add(o, "nvme_devices", a);
}

/*
 * The steps of run().  Each returns -1 to go on, else the program's exit
 * code (after fail_node()/fail_job() where it failed).
 */

/* prepare - read the job; its host, partition, check level, SysfsRoot and
 * RunDir/<jobid>.  0 (done) for a job without falcon or gpu GRES. */
static int prepare(void)
{
	char root[PATH_MAX];

	if (fp_slurm_job(&g.job) != FALCON_OK)
		return fail_node("reading the job: %s", falcon_errmsg());
	if (g.job.req.falcon_gpus + g.job.req.falcon_nvme + g.job.req.gpus == 0) {
		falcon_verbose("job %u: no falcon or gpu GRES; nothing to do", g.job.id);
		return 0;
	}
	g.host = falcon_conf_host(g.conf, g.job.node);
	if (g.host == NULL && g.job.req.falcon_gpus + g.job.req.falcon_nvme > 0)
		return fail_node("node %s has no HostName= line in %s", g.job.node, g.conf->path);
	g.part = falcon_conf_partition(g.conf, g.job.partition);
	g.check = g.job.opts.check_set ? g.job.opts.check : g.part->check;
	if (falcon_conf_sysfs_root(g.conf, g.job.node, root, sizeof(root)) == NULL)
		return fail_node("SysfsRoot too long");
	falcon_strlcpy(g.root, root, sizeof(g.root));
	if (make_dir() != FALCON_OK)
		return fail_node("%s", falcon_errmsg());
	return -1;
}

/* write_lease - lease.json from g.lease (with the BDFs found so far). */
static falcon_err_t write_lease(void)
{
	json_object *o = fp_lease_json(&g.lease, g.job.node);
	falcon_err_t rv = write_state("lease.json", o);

	json_object_put(o);
	return rv;
}

/* compose - ask falcond for the job's devices (outside the node lock:
 * retries do not hold up other jobs) and record the lease. */
static int compose(void)
{
	bool job_err = false;
	falcon_err_t rv;

	rv = fp_compose(g.conf, &g.job, g.deadline - RESERVE_MS, &g.lease, &job_err);
	if (rv != FALCON_OK) {
		char detail[400];

		snprintf(detail, sizeof(detail), "%s", falcon_errmsg());
		g.composed = true; /* a half-done compose: decompose is harmless */
		if (job_err)
			return fail_job(falcon_err_name(rv), detail);
		return fail_requeue(rv, detail);
	}
	g.composed = true;
	if (write_lease() != FALCON_OK)
		return fail_node("%s", falcon_errmsg());
	return -1;
}

/* bring_up - under the node lock (*lock, taken here; which functions are
 * whose is decided against the other jobs' records): rescan and wait for
 * the lease's devices, then record their BDFs.  Unlocks on failure. */
static int bring_up(int *lock)
{
	char why[512] = "";
	falcon_err_t rv;
	long long t0;
	long wait_ms;

	*lock = fp_lock(g.conf);
	/* records of ended jobs that name our slots would claim their BDFs */
	fp_drop_stale(g.conf, g.job.id, g.job.node, &g.lease);
	t0 = fp_now_us();
	if (falcon_hp_rescan(g.root) != FALCON_OK) {
		fp_unlock(*lock);
		return fail_node("rescan: %s", falcon_errmsg());
	}
	wait_ms = fp_left(g.deadline - RESERVE_MS);
	if (g.conf->rescan_timeout * 1000L < wait_ms)
		wait_ms = g.conf->rescan_timeout * 1000L;
	rv = falcon_hp_wait(match_cond, why, wait_ms, "rescan");
	g.t_wait_us = fp_now_us() - t0;
	/* what was found goes to lease.json before anything else: the
	 * epilog removes the BDFs it names */
	if (write_lease() != FALCON_OK && rv == FALCON_OK) {
		fp_unlock(*lock);
		return fail_node("%s", falcon_errmsg());
	}
	if (rv != FALCON_OK) {
		char missing[512], held[300];

		fp_unlock(*lock);
		falcon_strlcpy(missing, why[0] ? why : falcon_errmsg(), sizeof(missing));
		/* the chassis may have lost the composition (restarted, its
		 * zones gone) or stopped answering: not the node's problem */
		if (fp_lease_held(g.conf, g.job.id, g.job.node, g.lease.id, g.deadline - RESERVE_MS,
				  held, sizeof(held)) == 0) {
			char detail[900];

			falcon_warn("job %u: not found in their slots: %s; %s: requeued", g.job.id,
				    missing, held);
			snprintf(detail, sizeof(detail), "not found in their slots (%s): %s", missing,
				 held);
			return fail_requeue(FALCON_ERR_CHASSIS, detail);
		}
		falcon_info("job %u: %s", g.job.id, held);
		return fail_node("%s after rescan: not found in its slot: %s", falcon_strerror(rv),
				 missing);
	}
	return -1;
}

/* read_topology - the job's topology into g.topo (under the node lock). */
static falcon_err_t read_topology(void)
{
	char claimed[FP_MAX_GPUS][FALCON_BDF_LEN];
	size_t nclaimed = fp_claimed(g.conf, g.job.id, g.job.node, claimed, ARRAY_SIZE(claimed));
	long long until = falcon_now_ms() + 2000;
	falcon_err_t rv;

	/* a tree read while another job's rescan rewrites it (falcon-sim
	 * writes files in place) may fail to parse: read again, bounded */
	for (;;) {
		struct timespec ts = { 0, 10000000L };

		rv = fp_build_topology(g.root, g.host, g.composed ? &g.lease : NULL, g.job.req.gpus,
				       getenv("SLURM_JOB_GPUS"), claimed, nclaimed, &g.topo);
		if ((rv != FALCON_ERR_PARSE && rv != FALCON_ERR_PCI) || falcon_now_ms() > until ||
		    fp_left(g.deadline - RESERVE_MS) == 0)
			return rv;
		falcon_verbose("job %u: topology: %s; reading again", g.job.id, falcon_errmsg());
		nanosleep(&ts, NULL);
	}
}

/* write_topology - read the topology and write topology.json with the
 * prolog's keys; the node lock (taken when not yet) is given up here. */
static int write_topology(int lock)
{
	json_object *o;
	falcon_err_t rv;

	if (lock < 0)
		lock = fp_lock(g.conf);
	if ((rv = read_topology()) != FALCON_OK) {
		fp_unlock(lock);
		if (rv == FALCON_ERR_NORESOURCE)
			return fail_job("local", falcon_errmsg());
		return fail_node("topology: %s", falcon_errmsg());
	}
	o = g.topo.topology;
	json_object_object_add(o, "job_id", json_object_new_int64(g.job.id));
	json_object_object_add(o, "node", json_object_new_string(g.job.node));
	json_object_object_add(o, "cuda_visible_devices",
			       json_object_new_string(fp_cuda_visible(&g.topo, g.conf)));
	json_object_object_add(o, "lease", g.composed ? fp_lease_json(&g.lease, g.job.node) : NULL);
	add_nvme_nodes(o);
	json_object_object_add(o, "check", NULL);
	rv = write_state("topology.json", o);
	fp_unlock(lock);
	if (rv != FALCON_OK)
		return fail_node("%s", falcon_errmsg());
	falcon_cg_prolog(o, g.job.id); /* close its composed devices to the running jobs (#14) */
	return -1;
}

/* verify - a degraded link, then falcon-ncclcheck (its result into
 * topology.json), each by the partition's CheckAction. */
static int verify(void)
{
	json_object *o = g.topo.topology, *x;
	char what[256];
	int r;

	if (g.topo.degraded && (r = on_fault(g.topo.degraded_what, dev_at(g.topo.degraded_what))) >= 0)
		return r;
	run_check();
	if (g.check_json != NULL) {
		json_object_object_add(o, "check", json_object_get(g.check_json));
		if (write_state("topology.json", o) != FALCON_OK)
			falcon_warn("%s", falcon_errmsg());
	}
	if (strcmp(g.check_status, "fail") != 0)
		return -1;
	snprintf(what, sizeof(what), "NCCL check failed: %s",
		 g.check_json && json_object_object_get_ex(g.check_json, "reason", &x)
			 ? json_object_get_string(x) : "see check.json");
	return on_fault(what, NULL);
}

/* tag_job - the AdminComment tag (and "tag" in topology.json). */
static void tag_job(void)
{
	json_object *o = g.topo.topology;
	struct falcon_tag t;
	char tag[256];
	long long t0;

	memset(&t, 0, sizeof(t));
	t.topo = g.topo.label[0] ? g.topo.label : NULL;
	t.local_gpus = g.topo.local_gpus;
	t.falcon_gpus = g.topo.falcon_gpus;
	t.nvme = strcmp(g.topo.storage, "falconNVMe") == 0 ? "falcon" : NULL;
	t.check = g.check_status[0] ? g.check_status : NULL;
	t.busbw = g.busbw;
	t.algbw = g.algbw;
	t.degraded = g.topo.degraded;
	t0 = fp_now_us();
	if (falcon_tag_build(&t, tag, sizeof(tag)) == NULL ||
	    fp_slurm_tag(&g.job, tag) != FALCON_OK)
		falcon_warn("job %u: AdminComment not tagged: %s", g.job.id, falcon_errmsg());
	g.t_tag_us = fp_now_us() - t0;
	json_object_object_add(o, "tag", json_object_new_string(tag));
	if (write_state("topology.json", o) != FALCON_OK)
		falcon_warn("%s", falcon_errmsg());
	falcon_info("job %u: %s on %s: %s", g.job.id, tag, g.job.node, g.dir);
}

/*
 * The PrologSlurmctld mode (--slurmctld).  Slurm 22.05: the job is
 * CONFIGURING while PrologSlurmctld runs and the node prolog
 * (PrologFlags=Alloc) and batch script start only after it
 * (src/slurmctld/job_scheduler.c prolog_slurmctld(), job_config_fini());
 * a non-zero exit or PrologEpilogTimeout requeues the job, not held, and
 * drains nothing; a job that cannot be requeued is killed
 * (src/slurmctld/prep_slurmctld.c prep_prolog_slurmctld_callback()).
 */
#define FP_MAX_NODES 256 /* nodes composed here; the node prolog composes for the others */

static struct {
	char nodes[FP_MAX_NODES][FALCON_NAME_LEN]; /* SLURM_JOB_NODELIST, expanded */
	bool composed[FP_MAX_NODES];               /* asked falcond: roll back on give-up */
	char lease[FP_MAX_NODES][48];              /* its lease id, "" = look it up */
	size_t n;
} ctld;

/* ctld_waiting - fp_wait_fn: "falcon:waiting=<why>" in the AdminComment. */
static void ctld_waiting(falcon_err_t why, const char *detail, void *arg)
{
	char tag[64];

	(void)arg;
	snprintf(tag, sizeof(tag), "falcon:waiting=%s", fp_wait_why(why));
	falcon_info("job %u: %s (%s)", g.job.id, tag, detail);
	if (fp_slurm_tag(&g.job, tag) != FALCON_OK)
		falcon_warn("job %u: AdminComment not tagged: %s", g.job.id, falcon_errmsg());
}

/* ctld_rollback - give back every lease made so far (and any a timed-out
 * request may have made meanwhile: looked up by job and node). */
static void ctld_rollback(void)
{
	size_t i;

	for (i = 0; i < ctld.n; i++) {
		if (!ctld.composed[i])
			continue;
		if (fp_decompose(g.conf, g.job.id, ctld.nodes[i], ctld.lease[i],
				 falcon_now_ms() + RESERVE_MS, "rolled back", NULL) != FALCON_OK)
			falcon_error("rollback: decompose job %u on %s: %s (falcond's reconcile "
				     "will reclaim the lease)", g.job.id, ctld.nodes[i], falcon_errmsg());
	}
}

/* ctld_compose - compose on every node of the job with a HostName= line,
 * waiting until g.deadline; the exit code for Slurm. */
static int ctld_compose(void)
{
	struct fp_lease lease;
	char detail[400], tag[128];
	bool job_err = false;
	falcon_err_t rv;
	size_t i;

	/* what a user sees (scontrol show job: AdminComment) while it waits */
	if (fp_slurm_tag(&g.job, "falcon:waiting=compose") != FALCON_OK)
		falcon_warn("job %u: AdminComment not tagged: %s", g.job.id, falcon_errmsg());
	for (i = 0; i < ctld.n; i++) {
		if (falcon_conf_host(g.conf, ctld.nodes[i]) == NULL)
			continue;
		falcon_strlcpy(g.job.node, ctld.nodes[i], sizeof(g.job.node));
		ctld.composed[i] = true; /* a half-done compose: decompose is harmless */
		rv = fp_compose_wait(g.conf, &g.job, g.deadline, &lease, &job_err, ctld_waiting, NULL);
		if (rv == FALCON_OK) {
			falcon_strlcpy(ctld.lease[i], lease.id, sizeof(ctld.lease[i]));
			falcon_info("job %u: lease %s on %s (%zu device(s))", g.job.id, lease.id,
				    ctld.nodes[i], lease.n);
			continue;
		}
		snprintf(detail, sizeof(detail), "%s", falcon_errmsg());
		falcon_error("job %u: compose on %s: %s: %s", g.job.id, ctld.nodes[i],
			     falcon_strerror(rv), detail);
		ctld_rollback();
		if (job_err) {
			/* the job's own fault: a requeue would fail the same way */
			snprintf(tag, sizeof(tag), "falcon:error=%s", falcon_err_name(rv));
			if (fp_slurm_tag(&g.job, tag) != FALCON_OK)
				falcon_warn("%s", falcon_errmsg());
			if (fp_slurm_cancel(&g.job) != FALCON_OK)
				falcon_error("%s", falcon_errmsg());
			return 0;
		}
		snprintf(tag, sizeof(tag), "falcon:requeued=%s", fp_wait_why(rv));
		if (fp_slurm_tag(&g.job, tag) != FALCON_OK)
			falcon_warn("%s", falcon_errmsg());
		falcon_error("job %u: no devices (ComposeWait=%d s, %ld s of it left); Slurm "
			     "requeues the job", g.job.id, g.conf->compose_wait,
			     fp_left(g.deadline) / 1000);
		return 1;
	}
	if (fp_slurm_tag(&g.job, "falcon:composed") != FALCON_OK)
		falcon_warn("job %u: AdminComment not tagged: %s", g.job.id, falcon_errmsg());
	return 0;
}

/* run_slurmctld - PrologSlurmctld: the job, its nodes, the compose. */
static int run_slurmctld(void)
{
	if (fp_slurm_job(&g.job) != FALCON_OK) {
		falcon_error("job %u: reading the job: %s", g.job.id, falcon_errmsg());
		return 1;
	}
	if (g.job.req.falcon_gpus + g.job.req.falcon_nvme == 0) {
		falcon_verbose("job %u: no falcon GRES; nothing to compose", g.job.id);
		return 0;
	}
	if (fp_slurm_nodes(getenv("SLURM_JOB_NODELIST"), ctld.nodes, FP_MAX_NODES, &ctld.n) !=
	    FALCON_OK) {
		falcon_error("job %u: %s", g.job.id, falcon_errmsg());
		return 1;
	}
	g.deadline = falcon_now_ms() + g.conf->compose_wait * 1000LL;
	return ctld_compose();
}

/* run - the prolog's steps in order; the exit code. */
static int run(void)
{
	int lock = -1, r;

	if ((r = prepare()) >= 0)
		return r;
	if (g.job.req.falcon_gpus + g.job.req.falcon_nvme > 0) {
		if ((r = compose()) >= 0 || (r = bring_up(&lock)) >= 0)
			return r;
	}
	if ((r = write_topology(lock)) >= 0 || (r = verify()) >= 0)
		return r;
	tag_job();
	return 0;
}

int main(int argc, char **argv)
{
	long long t_start = fp_now_us();
	int rc;

	if ((rc = fp_main_start(argc, argv, "falcon-prolog", usage, NULL, &g.job, &g.conf)) >= 0)
		return rc;
	g.deadline = falcon_now_ms() + g.conf->prolog_timeout * 1000LL;
	rc = g.job.slurmctld ? run_slurmctld() : run();
	falcon_verbose("job %u: timing total_us=%lld falcond_us=%lld rescan_wait_us=%lld "
		       "scan_us=%lld slurm_us=%lld tag_us=%lld check_us=%lld rc=%d", g.job.id,
		       fp_now_us() - t_start, fp_falcond_us, g.t_wait_us, fp_scan_us, fp_slurm_us,
		       g.t_tag_us, g.t_check_us, rc);
	json_object_put(g.topo.topology);
	json_object_put(g.check_json);
	falcon_conf_free(g.conf);
	return rc;
}
