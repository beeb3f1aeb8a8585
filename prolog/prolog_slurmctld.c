/*
 * prolog_slurmctld.c - falcon-prolog as PrologSlurmctld (--slurmctld): the
 * job's leases, one per node of the job with a HostName= line, made before
 * any node prolog runs, waiting up to ComposeWait= (prolog_slurmctld.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp_common.h"
#include "fp_falcond.h"
#include "fp_slurm.h"
#include "prolog_slurmctld.h"
#include "core/log.h"
#include "core/util.h"

/*
 * The PrologSlurmctld mode (--slurmctld).  Slurm 22.05: the job is
 * CONFIGURING while PrologSlurmctld runs and the node prolog
 * (PrologFlags=Alloc) and batch script start only after it
 * (src/slurmctld/job_scheduler.c prolog_slurmctld(), job_config_fini());
 * a non-zero exit or PrologEpilogTimeout requeues the job, not held, and
 * drains nothing; a job that cannot be requeued is killed
 * (src/slurmctld/prep_slurmc->c prep_prolog_slurmctld_callback()).
 */
#define FP_MAX_NODES 256 /* nodes composed here; the node prolog composes for the others */

/* What one PrologSlurmctld run knows, passed to each step. */
struct ctld_run {
	const struct falcon_conf *conf;
	struct fp_job *job;
	long long deadline;                        /* falcon_now_ms(): now + wait_s */
	long wait_s;                               /* ComposeWait=, or longer for an
						    * interactive job */
	char nodes[FP_MAX_NODES][FALCON_NAME_LEN]; /* SLURM_JOB_NODELIST, expanded */
	bool composed[FP_MAX_NODES];               /* asked falcond: roll back on give-up */
	char lease[FP_MAX_NODES][48];              /* its lease id, "" = look it up */
	size_t n;
};

/* ctld_waiting - fp_wait_fn: "falcon:waiting=<why>" in the AdminComment,
 * and on an interactive job's terminal (salloc/srun). */
static void ctld_waiting(falcon_err_t why, const char *detail, void *arg)
{
	const struct fp_job *job = arg;
	char tag[64], msg[512];

	snprintf(tag, sizeof(tag), "falcon:waiting=%s", fp_wait_why(why, detail));
	falcon_info("job %u: %s (%s)", job->id, tag, detail);
	if (fp_slurm_tag(job, tag) != FALCON_OK)
		falcon_warn("job %u: AdminComment not tagged: %s", job->id, falcon_errmsg());
	snprintf(msg, sizeof(msg), "falcon: job %u waits for its devices: %s (%s)", job->id,
		 fp_wait_why(why, detail), detail);
	fp_slurm_notify(job, msg);
}

/* ctld_rollback - give back every lease made so far (and any a timed-out
 * request may have made meanwhile: looked up by job and node). */
static void ctld_rollback(const struct ctld_run *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		if (!c->composed[i])
			continue;
		fp_give_back(c->conf, c->job->id, c->nodes[i], c->lease[i]);
	}
}

/* ctld_compose - compose on every node of the job with a HostName= line,
 * waiting until c->deadline; the exit code for Slurm. */
static int ctld_compose(struct ctld_run *c)
{
	struct falcon_lease lease;
	char detail[400], tag[128], msg[700];
	bool job_err = false;
	falcon_err_t rv;
	size_t i;

	/* what a user sees (scontrol show job: AdminComment) while it waits */
	if (fp_slurm_tag(c->job, "falcon:waiting=compose") != FALCON_OK)
		falcon_warn("job %u: AdminComment not tagged: %s", c->job->id, falcon_errmsg());
	for (i = 0; i < c->n; i++) {
		if (falcon_conf_host(c->conf, c->nodes[i]) == NULL)
			continue;
		falcon_strlcpy(c->job->node, c->nodes[i], sizeof(c->job->node));
		c->composed[i] = true; /* a half-done compose: decompose is harmless */
		rv = fp_compose_wait(c->conf, c->job, c->deadline, &lease, &job_err, ctld_waiting, c->job);
		if (rv == FALCON_OK) {
			falcon_strlcpy(c->lease[i], lease.id, sizeof(c->lease[i]));
			falcon_info("job %u: lease %s on %s (%zu device(s))", c->job->id, lease.id,
				    c->nodes[i], lease.ndevs);
			continue;
		}
		snprintf(detail, sizeof(detail), "%s", falcon_errmsg());
		falcon_error("job %u: compose on %s: %s: %s", c->job->id, c->nodes[i],
			     falcon_strerror(rv), detail);
		ctld_rollback(c);
		if (job_err) {
			/* the job's own fault: a requeue would fail the same way */
			snprintf(tag, sizeof(tag), "falcon:error=%s", falcon_err_name(rv));
			if (fp_slurm_tag(c->job, tag) != FALCON_OK)
				falcon_warn("%s", falcon_errmsg());
			if (fp_slurm_cancel(c->job) != FALCON_OK)
				falcon_error("%s", falcon_errmsg());
			return 0;
		}
		if (c->job->no_requeue) {
			/* Slurm kills, not requeues, a job it cannot requeue
			 * (prep_slurmctld.c): the tag says so, and salloc/srun
			 * read falcon's reason before Slurm's "PrologSlurmctld
			 * failed, job killed" */
			snprintf(tag, sizeof(tag), "falcon:cancelled=%s", fp_wait_why(rv, detail));
			snprintf(msg, sizeof(msg), "falcon: job %u cancelled: no devices within "
				 "%ld s: %s (%s); not a node problem: try again, or submit it "
				 "with sbatch (requeued and tried again)", c->job->id, c->wait_s,
				 fp_wait_why(rv, detail), detail);
			fp_slurm_notify(c->job, msg);
		} else {
			snprintf(tag, sizeof(tag), "falcon:requeued=%s", fp_wait_why(rv, detail));
		}
		if (fp_slurm_tag(c->job, tag) != FALCON_OK)
			falcon_warn("%s", falcon_errmsg());
		falcon_error("job %u: %s: no devices (waited up to %ld s, %ld s of it left); Slurm "
			     "%s the job", c->job->id, tag, c->wait_s, fp_left(c->deadline) / 1000,
			     c->job->no_requeue ? "kills" : "requeues");
		return 1;
	}
	if (fp_slurm_tag(c->job, "falcon:composed") != FALCON_OK)
		falcon_warn("job %u: AdminComment not tagged: %s", c->job->id, falcon_errmsg());
	return 0;
}

int fp_slurmctld_run(const struct falcon_conf *conf, struct fp_job *job)
{
	static struct ctld_run run; /* FP_MAX_NODES names: not on the stack */
	struct ctld_run *c = &run;

	memset(c, 0, sizeof(*c));
	c->conf = conf;
	c->job = job;
	if (fp_slurm_job(c->job) != FALCON_OK) {
		falcon_error("job %u: reading the job: %s", c->job->id, falcon_errmsg());
		return 1;
	}
	if (c->job->req.falcon_gpus + c->job->req.falcon_nvme == 0) {
		falcon_verbose("job %u: no falcon GRES; nothing to compose", c->job->id);
		return 0;
	}
	if (fp_slurm_nodes(getenv("SLURM_JOB_NODELIST"), c->nodes, FP_MAX_NODES, &c->n) !=
	    FALCON_OK) {
		falcon_error("job %u: %s", c->job->id, falcon_errmsg());
		return 1;
	}
	/* a batch job is requeued and tried again; an interactive one is
	 * killed: it waits as long as Slurm lets it (issue 32) */
	c->wait_s = c->job->interactive ? fp_slurm_interactive_wait(c->conf) : c->conf->compose_wait;
	if (c->job->interactive)
		falcon_info("job %u: interactive (salloc/srun): waits up to %ld s for its devices "
			    "(ComposeWait=%d s is for batch jobs)", c->job->id, c->wait_s,
			    c->conf->compose_wait);
	c->deadline = falcon_now_ms() + c->wait_s * 1000LL;
	return ctld_compose(c);
}
