/*
 * fp_slurm.c - falcon-prolog/epilog's libslurm calls: read the job, tag its
 * AdminComment, drain the node, cancel the job (see fp.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include "slurm_compat.h"

#include "fp.h"
#include "core/log.h"
#include "core/util.h"

long long fp_slurm_us;

static void init_once(void)
{
	static bool done;

	if (!done) {
		slurm_init(NULL);
		done = true;
	}
}

static falcon_err_t serr(const char *what, uint32_t job)
{
	return falcon_err_set(FALCON_ERR_SLURM, "%s (job %u): %s", what, job,
			      slurm_strerror(slurm_get_errno()));
}

/* env_id - a numeric environment variable, def when unset or bad. */
static long env_id(const char *name, long def)
{
	const char *v = getenv(name);
	long x;

	return v && falcon_strtol(v, 10, 0, UINT32_MAX, &x) == FALCON_OK ? x : def;
}

static falcon_err_t env_opts(struct fp_job *job)
{
	extern char **environ;
	size_t n = 0;

	while (environ[n] != NULL)
		n++;
	return falcon_job_opts_parse(environ, n, &job->opts);
}

static falcon_err_t job_from_env(struct fp_job *job)
{
	const char *v;
	falcon_err_t rv;

	if ((rv = falcon_tres_parse(getenv("FALCON_TRES_PER_NODE"), &job->req)) != FALCON_OK)
		return rv;
	v = getenv("SLURM_JOB_PARTITION");
	falcon_strlcpy(job->partition, v ? v : "", sizeof(job->partition));
	job->uid = (uid_t)env_id("SLURM_JOB_UID", 0);
	job->gid = (gid_t)env_id("SLURM_JOB_GID", 0);
	return env_opts(job);
}

falcon_err_t fp_slurm_job(struct fp_job *job)
{
	job_info_msg_t *msg = NULL;
	slurm_job_info_t *ji;
	falcon_err_t rv;
	long long t0 = fp_now_us();

	if (job->no_slurm)
		return job_from_env(job);
	init_once();
	if (slurm_load_job(&msg, job->id, SHOW_DETAIL) != SLURM_SUCCESS) {
		rv = serr("slurm_load_job", job->id);
		goto fail;
	}
	if (msg->record_count < 1) {
		rv = falcon_err_set(FALCON_ERR_SLURM, "slurm_load_job: job %u not found", job->id);
		goto fail;
	}
	ji = &msg->job_array[0];
	if ((rv = falcon_tres_parse(ji->tres_per_node, &job->req)) != FALCON_OK)
		goto fail;
	falcon_strlcpy(job->partition, ji->partition ? ji->partition : "",
		       sizeof(job->partition));
	job->uid = ji->user_id;
	job->gid = ji->group_id;
	/* job_info has no spank_job_env in 22.05: slurmd hands the job's SPANK
	 * environment (SPANK_FALCON_*) to the prolog as its own environment */
	if (env_opts(job) != FALCON_OK) {
		/* sbatch refuses bad values; one that slipped through is ignored */
		falcon_warn("job %u: %s; using the partition's defaults", job->id, falcon_errmsg());
		memset(&job->opts, 0, sizeof(job->opts));
	}
	rv = FALCON_OK;
fail:
	slurm_free_job_info_msg(msg);
	fp_slurm_us += fp_now_us() - t0;
	return rv;
}

falcon_err_t fp_slurm_tag(const struct fp_job *job, const char *tag)
{
	job_info_msg_t *msg = NULL;
	job_desc_msg_t d;
	char *merged = NULL;
	falcon_err_t rv;
	long long t0 = fp_now_us();

	if (job->no_slurm) {
		falcon_info("job %u: AdminComment tag (not set: --no-slurm): %s", job->id, tag);
		return FALCON_OK;
	}
	init_once();
	if (slurm_load_job(&msg, job->id, SHOW_DETAIL) != SLURM_SUCCESS) {
		rv = serr("slurm_load_job", job->id);
		goto fail;
	}
	if ((rv = falcon_tag_merge(msg->record_count ? msg->job_array[0].admin_comment : NULL,
				   tag, &merged)) != FALCON_OK)
		goto fail;
	slurm_init_job_desc_msg(&d);
	d.job_id = job->id;
	d.admin_comment = merged;
	if (slurm_update_job(&d) != SLURM_SUCCESS) {
		rv = serr("slurm_update_job admin_comment", job->id);
		goto fail;
	}
	rv = FALCON_OK;
fail:
	free(merged);
	slurm_free_job_info_msg(msg);
	fp_slurm_us += fp_now_us() - t0;
	return rv;
}

falcon_err_t fp_slurm_drain(const struct fp_job *job, const char *reason)
{
	update_node_msg_t m;
	char node[FALCON_NAME_LEN], why[1024];

	falcon_strlcpy(node, job->node, sizeof(node));
	falcon_strlcpy(why, reason, sizeof(why));
	falcon_error("draining %s: %s", node, why);
	if (job->no_slurm)
		return FALCON_OK;
	init_once();
	slurm_init_update_node_msg(&m);
	m.node_names = node;
	m.node_state = NODE_STATE_DRAIN;
	m.reason = why;
	m.reason_uid = getuid();
	if (slurm_update_node(&m) != SLURM_SUCCESS)
		return falcon_err_set(FALCON_ERR_SLURM, "slurm_update_node %s DRAIN: %s", node,
				      slurm_strerror(slurm_get_errno()));
	return FALCON_OK;
}

falcon_err_t fp_slurm_cancel(const struct fp_job *job)
{
	falcon_error("cancelling job %u", job->id);
	if (job->no_slurm)
		return FALCON_OK;
	init_once();
	if (slurm_kill_job(job->id, SIGKILL, KILL_FULL_JOB) != SLURM_SUCCESS)
		return serr("slurm_kill_job", job->id);
	return FALCON_OK;
}
