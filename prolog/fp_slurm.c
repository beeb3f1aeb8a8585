/*
 * fp_slurm.c - falcon-prolog/epilog's libslurm calls: read the job, tag its
 * AdminComment, drain the node, cancel the job (see fp_slurm.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include "slurm_compat.h"

#include "fp_common.h"
#include "fp_slurm.h"
#include "core/log.h"
#include "core/util.h"


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

/* How long load_job() waits for a slurmctld it cannot reach (a restart,
 * a failover): the prolog's budget (PrologTimeout=, 60 s by default) has
 * room for it, and a node drained for a controller's restart is drained
 * for nothing (make soak-fleet: a healthy node drained at each restart). */
#define FP_SLURMCTLD_WAIT_S 30

/* The end of the process' one budget for waiting on Slurm (fp_now_us()
 * time; 0 = no wait yet): FP_SLURMCTLD_WAIT_S from the first wait, shared
 * by every read and tag after it.  One budget per call was paid per call:
 * PrologSlurmctld's two tags with slurmdbd stopped took 70 s of the
 * PrologEpilogTimeout= (prolog-slurmctld.sh (f), Slurm 22.05). */
static long long g_wait_end_us;

/* may_wait - whether the budget has time left for another try (starts it
 * at the first call). */
static bool may_wait(void)
{
	long long now = fp_now_us();

	if (g_wait_end_us == 0)
		g_wait_end_us = now + FP_SLURMCTLD_WAIT_S * 1000000LL;
	return now < g_wait_end_us;
}

/* ctld_unreachable - the last Slurm call failed reaching slurmctld. */
static bool ctld_unreachable(void)
{
	int e = slurm_get_errno();

	return e == SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR ||
	       e == SLURMCTLD_COMMUNICATIONS_SEND_ERROR ||
	       e == SLURMCTLD_COMMUNICATIONS_RECEIVE_ERROR ||
	       e == SLURMCTLD_COMMUNICATIONS_SHUTDOWN_ERROR ||
	       e == SLURM_COMMUNICATIONS_CONNECTION_ERROR;
}

/* update_refused_for_now - the last update was refused until slurmdbd
 * answers for the job's record (ESLURM_JOB_SETTING_DB_INX, Slurm 22.05
 * job_mgr.c; releases without it do not refuse). */
static bool update_refused_for_now(void)
{
#if defined(HAVE_DECL_ESLURM_JOB_SETTING_DB_INX) && HAVE_DECL_ESLURM_JOB_SETTING_DB_INX
	return slurm_get_errno() == ESLURM_JOB_SETTING_DB_INX;
#else
	return false;
#endif
}

/* load_job - slurm_load_job() of job with show_flags, again every second
 * while slurmctld cannot be reached and the process' budget (may_wait())
 * lasts; its result (slurm_get_errno() set on failure). */
static int load_job(job_info_msg_t **msg, uint32_t job, uint16_t flags)
{
	bool said = false;

	for (;;) {
		if (slurm_load_job(msg, falcon_slurm_job(job), flags) == SLURM_SUCCESS)
			return SLURM_SUCCESS;
		if (!ctld_unreachable() || !may_wait())
			return SLURM_ERROR;
		if (!said)
			falcon_warn("job %u: slurm_load_job: %s; trying again for up to %lld s "
				    "(the prolog's %d s for Slurm)", job,
				    slurm_strerror(slurm_get_errno()),
				    (g_wait_end_us - fp_now_us()) / 1000000 + 1, FP_SLURMCTLD_WAIT_S);
		said = true;
		sleep(1);
	}
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

/* requeue_state - whether Slurm is requeueing ji's job, and whether its
 * AdminComment shows a run's topology (fp_slurm_untag_requeued()). */
static void requeue_state(const slurm_job_info_t *ji, bool *requeued, bool *topo)
{
	/* Slurm 22.05 job_mgr.c _job_requeue_op(): a requeued job is PENDING
	 * with JOB_REQUEUE (and COMPLETING) while its epilog runs */
	*requeued = (ji->job_state & (JOB_REQUEUE | JOB_REQUEUE_HOLD | JOB_REQUEUE_FED)) != 0 ||
		    (ji->job_state & JOB_STATE_BASE) == JOB_PENDING;
	*topo = ji->admin_comment != NULL && (strstr(ji->admin_comment, "falcon:topo=") != NULL ||
					      strstr(ji->admin_comment, "falcon:composed") != NULL);
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
	if (load_job(&msg, job->id, SHOW_DETAIL) != SLURM_SUCCESS) {
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
	/* Slurm 22.05 job_mgr.c _job_requeue_op(): no requeue for a job with
	 * batch_flag 0 (salloc, srun) or requeue 0 (--no-requeue) */
	job->interactive = ji->batch_flag == 0;
	job->no_requeue = ji->batch_flag == 0 || ji->requeue == 0;
	requeue_state(ji, &job->requeued, &job->topo_tagged);
	job->state_known = true;
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
	fp_time_add(FP_TIME_SLURM, t0);
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
	/* read, merge and write again while the write is refused for now:
	 * slurmctld restarting, or "Job update not available right now, the
	 * DB index is being set" (Slurm's ESLURM_JOB_SETTING_DB_INX: the job's
	 * record in slurmdbd not made yet, job_mgr.c update_job_str(); make
	 * soak-fleet left 3 jobs untagged so); within the process' one
	 * budget (may_wait()) */
	for (;;) {
		if (load_job(&msg, job->id, SHOW_DETAIL) != SLURM_SUCCESS) {
			rv = serr("slurm_load_job", job->id);
			goto fail;
		}
		if ((rv = falcon_tag_merge(msg->record_count ? msg->job_array[0].admin_comment :
					   NULL, tag, &merged)) != FALCON_OK)
			goto fail;
		slurm_init_job_desc_msg(&d);
		falcon_job_desc_set_job(&d, job->id);
		d.admin_comment = merged;
		if (slurm_update_job(&d) == SLURM_SUCCESS)
			break;
		if (!ctld_unreachable() && !update_refused_for_now()) {
			rv = serr("slurm_update_job admin_comment", job->id);
			goto fail;
		}
		if (!may_wait()) {
			rv = falcon_err_set(FALCON_ERR_SLURM, "slurm_update_job admin_comment "
					    "(job %u): %s; not asked again: the prolog's %d s of "
					    "waiting for Slurm are spent", job->id,
					    slurm_strerror(slurm_get_errno()), FP_SLURMCTLD_WAIT_S);
			goto fail;
		}
		falcon_warn("job %u: slurm_update_job admin_comment: %s; trying again", job->id,
			    slurm_strerror(slurm_get_errno()));
		free(merged);
		merged = NULL;
		slurm_free_job_info_msg(msg);
		msg = NULL;
		sleep(1);
	}
	rv = FALCON_OK;
fail:
	free(merged);
	slurm_free_job_info_msg(msg);
	fp_time_add(FP_TIME_SLURM, t0);
	return rv;
}

/* drain_reason - the reason to set: reason, or the node's own when it has
 * one (an administrator's is kept as it is; falcon's gets "; reason"
 * appended unless already there).  why: n bytes. */
static void drain_reason(const char *node, const char *reason, char *why, size_t n)
{
	node_info_msg_t *msg = NULL;
	const char *old = NULL;

	falcon_strlcpy(why, reason, n);
	if (slurm_load_node_single(&msg, (char *)node, SHOW_ALL) != SLURM_SUCCESS) {
		falcon_warn("slurm_load_node_single %s: %s (its reason may be overwritten)", node,
			    slurm_strerror(slurm_get_errno()));
		return;
	}
	if (msg != NULL && msg->record_count > 0)
		old = msg->node_array[0].reason;
	if (old != NULL && *old != '\0') {
		if (strncmp(old, "falcon:", 7) != 0 || strstr(old, reason) != NULL) {
			falcon_warn("%s already has the reason '%s': kept", node, old);
			falcon_strlcpy(why, old, n);
		} else {
			snprintf(why, n, "%s; %s", old, reason);
		}
	}
	slurm_free_node_info_msg(msg);
}

falcon_err_t fp_slurm_drain(const struct fp_job *job, const char *reason)
{
	update_node_msg_t m;
	char node[FALCON_NAME_LEN], why[1024];

	falcon_strlcpy(node, job->node, sizeof(node));
	falcon_error("draining %s: %s", node, reason);
	if (job->no_slurm)
		return FALCON_OK;
	init_once();
	drain_reason(node, reason, why, sizeof(why));
	slurm_init_update_node_msg(&m);
	m.node_names = node;
	m.node_state = NODE_STATE_DRAIN;
	m.reason = why;
#ifdef HAVE_UPDATE_NODE_MSG_T_REASON_UID
	m.reason_uid = getuid(); /* 26.05 has no such field: slurmctld takes the caller's */
#endif
	if (slurm_update_node(&m) != SLURM_SUCCESS)
		return falcon_err_set(FALCON_ERR_SLURM, "slurm_update_node %s DRAIN: %s", node,
				      slurm_strerror(slurm_get_errno()));
	return FALCON_OK;
}

falcon_err_t fp_slurm_untag_requeued(const struct fp_job *job)
{
	job_info_msg_t *msg = NULL;
	slurm_job_info_t *ji;
	bool requeued = false, topo = false;

	if (job->no_slurm)
		return FALCON_OK;
	if (job->state_known) {
		requeued = job->requeued;
		topo = job->topo_tagged;
	} else {
		init_once();
		if (load_job(&msg, job->id, 0) != SLURM_SUCCESS)
			return serr("slurm_load_job", job->id);
		if (msg->record_count > 0) {
			ji = &msg->job_array[0];
			requeue_state(ji, &requeued, &topo);
		}
		slurm_free_job_info_msg(msg);
	}
	if (!requeued || !topo)
		return FALCON_OK;
	falcon_info("job %u: requeued by Slurm: its falcon:topo= tag replaced by falcon:released "
		    "until it is composed again", job->id);
	return fp_slurm_tag(job, "falcon:released");
}

/* notify - msg to job's terminal (slurm_notify_job); a failure is logged. */
static void notify(const struct fp_job *job, const char *msg)
{
	init_once();
	if (slurm_notify_job(falcon_slurm_job(job->id), (char *)msg) != SLURM_SUCCESS)
		falcon_warn("slurm_notify_job %u: %s", job->id, slurm_strerror(slurm_get_errno()));
}

void fp_slurm_notify(const struct fp_job *job, const char *msg)
{
	if (job->no_slurm || !job->interactive)
		return;
	notify(job, msg);
}

long fp_slurm_interactive_wait(const struct falcon_conf *conf)
{
	slurm_conf_t *sc = NULL;
	long pet, ready, w;

	init_once();
	if (slurm_load_ctl_conf((time_t)0, &sc) != SLURM_SUCCESS || sc == NULL) {
		falcon_warn("slurm_load_ctl_conf: %s; an interactive job waits ComposeWait=%d s",
			    slurm_strerror(slurm_get_errno()), conf->compose_wait);
		return conf->compose_wait;
	}
	/* PrologEpilogTimeout (26.05: PrologTimeout) unset: NO_VAL16, "no limit" */
#ifdef HAVE_SLURM_CONF_T_PROLOG_EPILOG_TIMEOUT
	pet = sc->prolog_epilog_timeout;
#else
	pet = sc->prolog_timeout;
#endif
	pet = pet == NO_VAL16 || pet == 0 ? LONG_MAX : pet;
	/* salloc.c _wait_nodes_ready(): (SuspendTimeout + ResumeTimeout) x 5,
	 * or 300 s when both are 0; srun waits at least as long */
	ready = sc->suspend_timeout || sc->resume_timeout ?
		5L * ((long)sc->suspend_timeout + (long)sc->resume_timeout) : 300;
	slurm_free_ctl_conf(sc);
	w = (pet < ready ? pet : ready) - FP_INTERACTIVE_MARGIN_S;
	return w > conf->compose_wait ? w : conf->compose_wait;
}

falcon_err_t fp_slurm_requeue(const struct fp_job *job, const char *why)
{
	char msg[512];

	falcon_error("requeueing job %u (not a problem of node %s): %s", job->id, job->node, why);
	if (job->no_slurm)
		return FALCON_OK;
	init_once();
	if (slurm_requeue(falcon_slurm_job(job->id), 0) == SLURM_SUCCESS)
		return FALCON_OK;
	falcon_warn("slurm_requeue job %u: %s; cancelling it", job->id,
		    slurm_strerror(slurm_get_errno()));
	/* salloc/srun: tell the user why before the cancel */
	snprintf(msg, sizeof(msg), "falcon: job %u cancelled, its devices could not be "
		 "composed (not a node problem; submit again): %s", job->id, why);
	notify(job, msg);
	return fp_slurm_cancel(job);
}

falcon_err_t fp_slurm_nodes(const char *nodelist, char (*nodes)[FALCON_NAME_LEN], size_t cap,
			    size_t *n)
{
	/* hostlist_t is a pointer in 22.05, the struct (used as hostlist_t *)
	 * from 23.11 on: the type slurm_hostlist_create() returns fits both */
	__typeof__(slurm_hostlist_create(NULL)) hl;
	size_t dropped = 0;
	char *h;

	*n = 0;
	if (nodelist == NULL || *nodelist == '\0')
		return falcon_err_set(FALCON_ERR_INVAL, "SLURM_JOB_NODELIST: unset or empty");
	/* no slurm_init(): the host list functions need no slurm.conf (and
	 * --no-slurm has none) */
	if ((hl = slurm_hostlist_create(nodelist)) == NULL)
		return falcon_err_set(FALCON_ERR_PARSE, "SLURM_JOB_NODELIST '%s': not a host list",
				      nodelist);
	while ((h = slurm_hostlist_shift(hl)) != NULL) {
		if (*n < cap)
			falcon_strlcpy(nodes[(*n)++], h, FALCON_NAME_LEN);
		else
			dropped++;
		free(h);
	}
	slurm_hostlist_destroy(hl);
	if (dropped > 0)
		falcon_warn("SLURM_JOB_NODELIST: %zu node(s) past the first %zu left out", dropped,
			    cap);
	return FALCON_OK;
}

falcon_err_t fp_slurm_cancel(const struct fp_job *job)
{
	falcon_error("cancelling job %u", job->id);
	if (job->no_slurm)
		return FALCON_OK;
	init_once();
	if (slurm_kill_job(falcon_slurm_job(job->id), SIGKILL, KILL_FULL_JOB) != SLURM_SUCCESS)
		return serr("slurm_kill_job", job->id);
	return FALCON_OK;
}
