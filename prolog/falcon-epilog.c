/*
 * falcon-epilog.c - the Slurm node epilog (slurm.conf Epilog=, root in
 * slurmd): say who still holds the job's Falcon devices, remove them from
 * the node's PCIe bus, give the lease back through falcond, confirm they
 * are gone, remove RunDir/<jobid>.  A device that does not come off is
 * quarantined in falcond, the node drained with a "falcon: ..." reason
 * (never over a reason it has: fp_slurm_drain()), and the epilog exits
 * non-zero.  falcond unreachable or failing at decompose is not the
 * node's problem: the devices are off the bus, the lease is left to
 * falcond's reconcile (it asks slurmctld and closes the leases of ended
 * jobs), exit 0.  With --slurmctld (slurm.conf EpilogSlurmctld=) it
 * gives back only the job's leases no node prolog asked for (run_ctld).
 * See doc/falcon-prolog.8.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fp_common.h"
#include "fp_falcond.h"
#include "fp_slurm.h"
#include "fp_start.h"
#include "fp_topo.h"
#include "pci/hotplug.h"
#include "core/log.h"
#include "core/util.h"

/* Everything one epilog run knows, passed to each step. */
struct epilog_run {
	struct falcon_conf *conf;
	struct fp_job job;
	char root[PATH_MAX];       /* the node's SysfsRoot */
	char dir[PATH_MAX - 256];  /* RunDir/<jobid> */
	const char *proc;          /* --proc DIR, NULL = /proc */
	long long deadline;        /* falcon_now_ms() at which EpilogTimeout ends, less 2 s */
	struct falcon_lease lease; /* lease.json's, else falcond's (fp_lease_of()) */
	long long t_remove_us;     /* remove and its wait (bench breakdown) */
};

static void usage(FILE *f)
{
	fprintf(f, "usage: falcon-epilog [-c FILE] [-j JOBID] [-n NODE] [--proc DIR] [--no-slurm] "
		"[--slurmctld] [-v]...\n"
		"  Slurm node epilog: take the job's Falcon devices off the node and give\n"
		"  them back.  --no-slurm (debugging): log the drain instead of doing it.\n"
		"  --slurmctld (EpilogSlurmctld=; implied by SLURM_SCRIPT_CONTEXT=epilog_slurmctld):\n"
		"  give back the job's leases no node prolog asked for.\n");
}

/* may_have_lease - false only when the job surely asked for no falcon GRES
 * (slurm_load_job; with --no-slurm, FALCON_TRES_PER_NODE when set).  What
 * Slurm said of its requeue is kept in r->job for the untag (one
 * slurm_load_job per epilog). */
static bool may_have_lease(struct epilog_run *r)
{
	struct fp_job j = r->job;

	if (j.no_slurm && getenv("FALCON_TRES_PER_NODE") == NULL)
		return true;
	if (fp_slurm_job(&j) != FALCON_OK) {
		falcon_warn("job %u: %s; asking falcond", r->job.id, falcon_errmsg());
		return true;
	}
	r->job.state_known = j.state_known;
	r->job.requeued = j.requeued;
	r->job.topo_tagged = j.topo_tagged;
	return j.req.falcon_gpus + j.req.falcon_nvme > 0;
}

/*
 * identify - which functions on the bus are the lease's now, by location
 * (fp_match(): the device in its slot below its port's adapter), whatever
 * lease.json recorded: only those are removed.  A recorded BDF its slot
 * does not confirm (another device there, or the slot empty) is left on
 * the bus and logged: it may be another job's device or an orphan.  Called
 * under the node lock.
 */
static void identify(struct epilog_run *r, const struct falcon_host_conf *host)
{
	char rec[FP_MAX_DEVS][FALCON_BDF_LEN], why[1024];
	size_t i;
	int m;

	for (i = 0; i < r->lease.ndevs; i++)
		falcon_strlcpy(rec[i], r->lease.devs[i].bdf, FALCON_BDF_LEN);
	m = host != NULL ? fp_match(r->root, host, &r->lease, why, sizeof(why)) : -1;
	if (m < 0) {
		falcon_error("job %u: %s; removing nothing from the bus", r->job.id,
			     host != NULL ? why : "no HostName= line");
		for (i = 0; i < r->lease.ndevs; i++)
			r->lease.devs[i].bdf[0] = '\0';
	} else if (m == 0) {
		falcon_info("job %u: not identified on the bus (left there): %s", r->job.id, why);
	}
	for (i = 0; i < r->lease.ndevs; i++) {
		const struct falcon_lease_dev *d = &r->lease.devs[i];

		if (rec[i][0] != '\0' && strcmp(rec[i], d->bdf) != 0)
			falcon_warn("job %u: %s: lease.json has %s, its slot %d holds %s; %s stays "
				    "on the bus", r->job.id, d->id, rec[i], d->phys_slot,
				    d->bdf[0] ? d->bdf : "nothing of it", rec[i]);
	}
}

static int run(struct epilog_run *r)
{
	char path[PATH_MAX], root[PATH_MAX], reason[512] = "", held[FP_MAX_DEVS][96];
	char check[128] = "";
	const char *bdfs[FP_MAX_DEVS];
	const struct falcon_host_conf *host;
	json_object *o;
	falcon_err_t rv;
	size_t i, n = 0, stuck = 0;
	bool present[FP_MAX_DEVS], keep, any;
	int q = 0, lock;
	long long t0;

	host = falcon_conf_host(r->conf, r->job.node);
	if (falcon_conf_sysfs_root(r->conf, r->job.node, root, sizeof(root)) == NULL) {
		snprintf(reason, sizeof(reason), "falcon: SysfsRoot too long");
		goto drain;
	}
	falcon_strlcpy(r->root, root, sizeof(r->root));
	fp_job_dir(r->conf, r->job.id, r->dir, sizeof(r->dir));
	snprintf(path, sizeof(path), "%s/lease.json", r->dir);
	o = json_object_from_file(path);
	if (o != NULL) {
		rv = fp_lease_from_json(o, &r->lease);
		json_object_put(o);
		if (rv != FALCON_OK)
			falcon_warn("%s: %s", path, falcon_errmsg());
	} else if (!may_have_lease(r)) {
		/* most jobs: no falcon GRES, nothing composed, falcond not asked;
		 * one the prolog gave a topology (local GPUs: topology.json)
		 * loses its tag when Slurm requeues it (make soak-lifecycle: a
		 * localGPUs job pending after scontrol requeue kept it) */
		snprintf(path, sizeof(path), "%s/topology.json", r->dir);
		if (access(path, F_OK) == 0 && fp_slurm_untag_requeued(&r->job) != FALCON_OK)
			falcon_warn("job %u: %s", r->job.id, falcon_errmsg());
		fp_rmtree(r->dir);
		return 0;
	} else if (host != NULL &&
		   fp_lease_of(r->conf, r->job.id, r->job.node, &r->lease) == FALCON_OK) {
		/* no record here (prolog killed, node rebooted): identify() finds them */
	} else if (host == NULL) {
		falcon_verbose("job %u: node %s has no HostName= line; nothing to do", r->job.id,
			       r->job.node);
		return 0;
	}
	/* the node lock from identify() until the devices are gone: they stay
	 * in the host's zone until the decompose below, and another job's
	 * prolog rescanning (under the same lock) would enumerate them again
	 * while the wait watches them go.  Given back before the decompose
	 * (the chassis may take seconds); a rescan after that brings a device
	 * back until the detach takes it off (pciehp's surprise removal). */
	lock = fp_lock(r->conf);
	identify(r, host);
	t0 = fp_now_us();
	for (i = 0; i < r->lease.ndevs; i++) {
		struct falcon_lease_dev *d = &r->lease.devs[i];

		held[i][0] = '\0';
		if (d->bdf[0] == '\0' || !falcon_hp_present(r->root, d->bdf))
			continue;
		fp_dev_holders(r->root, r->proc, r->job.id, d, held[i], sizeof(held[i]), reason,
			       sizeof(reason));
		/* the nvidia driver's remove waits for the last close: a held
		 * device stays on the bus and is quarantined below */
		if (held[i][0] != '\0')
			continue;
		if (falcon_hp_remove(r->root, d->bdf) != FALCON_OK)
			falcon_error("job %u: %s", r->job.id, falcon_errmsg());
		bdfs[n++] = d->bdf;
	}
	if (n > 0 && falcon_hp_wait_gone(r->root, bdfs, n,
					 r->conf->rescan_timeout * 1000L < fp_left(r->deadline)
						 ? r->conf->rescan_timeout * 1000L
						 : fp_left(r->deadline)) != FALCON_OK)
		falcon_error("job %u: %s", r->job.id, falcon_errmsg());
	r->t_remove_us = fp_now_us() - t0;
	for (i = 0; i < r->lease.ndevs; i++)
		present[i] = r->lease.devs[i].bdf[0] != '\0' &&
			     falcon_hp_present(r->root, r->lease.devs[i].bdf);
	fp_unlock(lock);
	for (i = 0; i < r->lease.ndevs; i++) {
		struct falcon_lease_dev *d = &r->lease.devs[i];
		char why[300];

		if (!present[i])
			continue;
		snprintf(why, sizeof(why), "falcon-epilog job %u: %s still on %s's bus after remove%s%.95s",
			 r->job.id, d->bdf, r->job.node, held[i][0] ? ": " : "", held[i]);
		if (fp_quarantine(r->conf, d, why) != FALCON_OK)
			falcon_error("quarantine %s %s: %s", d->chassis, d->id, falcon_errmsg());
		/* a holder's reason (fp_dev_holders) says more: kept */
		if (stuck++ == 0 && reason[0] == '\0')
			snprintf(reason, sizeof(reason), "falcon: job %u: %s (%s) would not come off%s%.95s",
				 r->job.id, d->bdf, d->id, held[i][0] ? ", " : "", held[i]);
	}
	/* the prolog's tag (check verdict, busbw) goes into the devices' history */
	snprintf(path, sizeof(path), "%s/topology.json", r->dir);
	if ((o = json_object_from_file(path)) != NULL) {
		json_object *t;

		if (json_object_object_get_ex(o, "tag", &t) && json_object_get_string(t) != NULL)
			falcon_strlcpy(check, json_object_get_string(t), sizeof(check));
		json_object_put(o);
	}
	falcon_err_clear();
	/* every device off the bus and none held: falcond may keep them warm
	 * on the host, by the KeepWarm= of the partition its lease names (its
	 * other conditions: falcond/keep.h); asked only where falcon.conf sets
	 * KeepWarm= somewhere, so that a falcond older than it is never sent
	 * the field */
	keep = stuck == 0 && reason[0] == '\0';
	for (i = 0, any = false; keep && i < r->conf->npartitions; i++)
		any = any || r->conf->partitions[i].keep_warm > 0;
	keep = keep && any;
	if ((rv = fp_decompose(r->conf, r->job.id, r->job.node, r->lease.id, r->deadline,
			       check[0] ? check : NULL, keep, &q)) != FALCON_OK)
		/* falcond's or the chassis' problem, not the node's */
		falcon_error("job %u: decompose: %s: %s; the lease is left to falcond's "
			     "reconcile", r->job.id, falcon_strerror(rv), falcon_errmsg());
	if (q > 0)
		falcon_warn("job %u: %d device(s) quarantined at decompose (the chassis did not "
			    "detach them; falconctl status)", r->job.id, q);
	if (reason[0] != '\0')
		goto drain;
	fp_rmtree(r->dir);
	falcon_info("job %u: %zu device(s) given back", r->job.id, r->lease.ndevs);
	if (fp_slurm_untag_requeued(&r->job) != FALCON_OK)
		falcon_warn("job %u: %s", r->job.id, falcon_errmsg());
	return 0;
drain:
	if (fp_slurm_drain(&r->job, reason) != FALCON_OK)
		falcon_error("%s", falcon_errmsg());
	/* the job goes back to the queue all the same (make soak-lifecycle:
	 * one requeued while its devices would not come off kept its tag) */
	if (fp_slurm_untag_requeued(&r->job) != FALCON_OK)
		falcon_warn("job %u: %s", r->job.id, falcon_errmsg());
	return 1;
}

/*
 * run_ctld - EpilogSlurmctld (--slurmctld): Slurm runs it at every job's
 * end on slurmctld's host, cancels in CONFIGURING included, for which
 * slurmctld SIGKILLs PrologSlurmctld and no node epilog runs (Slurm
 * 22.05 src/slurmctld/job_scheduler.c).  falcond is asked to close the
 * job's leases no node prolog asked for (fp_decompose_off_node: a compose
 * the killed PrologSlurmctld left in flight first ends): their devices
 * never reached a node's bus, and the next job on that node would wait
 * for them until the reconcile.  Leases a node prolog asked for are the
 * node epilogs'.  Always 0: a failure is logged and the lease left to
 * falcond's reconcile (a non-zero exit here helps no one).
 */
static int run_ctld(struct epilog_run *r)
{
	int closed = 0, q = 0;

	if (!may_have_lease(r))
		return 0;
	if (fp_decompose_off_node(r->conf, r->job.id, r->deadline, &closed, &q) != FALCON_OK) {
		falcon_error("job %u: decompose off its nodes: %s; left to falcond's reconcile",
			     r->job.id, falcon_errmsg());
		return 0;
	}
	if (closed > 0)
		falcon_info("job %u: ended before a node prolog asked for its devices: %d "
			    "lease(s) given back", r->job.id, closed);
	if (q > 0)
		falcon_warn("job %u: %d device(s) quarantined at decompose (the chassis did not "
			    "detach them; falconctl status)", r->job.id, q);
	return 0;
}

int main(int argc, char **argv)
{
	/* a lease and PATH_MAX names: not on the stack */
	static struct epilog_run the_run;
	struct epilog_run *r = &the_run;
	long long t_start = fp_now_us();
	int rc;

	if ((rc = fp_main_start(argc, argv, "falcon-epilog", usage, &r->proc, &r->job,
				&r->conf)) >= 0)
		return rc;
	r->deadline = falcon_now_ms() + r->conf->epilog_timeout * 1000LL - 2000;
	rc = r->job.slurmctld ? run_ctld(r) : run(r);
	falcon_verbose("job %u: timing total_us=%lld falcond_us=%lld remove_us=%lld rc=%d",
		       r->job.id, fp_now_us() - t_start, fp_times().falcond_us, r->t_remove_us, rc);
	falcon_conf_free(r->conf);
	return rc;
}
