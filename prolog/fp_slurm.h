/*
 * fp_slurm.h - falcon-prolog/epilog's calls to libslurm (fp_slurm.c):
 * the job, its AdminComment, drain, requeue, cancel, a host list.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_FP_SLURM_H
#define FALCON_FP_SLURM_H

#include <stddef.h>

#include "core/conf.h"
#include "core/falcon_err.h"
#include "fp_common.h"


/*
 * fp_slurm_job - fill job from slurm_load_job() (tres_per_node, partition,
 * user, group, spank_job_env) or, with job->no_slurm, from the environment
 * (FALCON_TRES_PER_NODE, SLURM_JOB_PARTITION, SLURM_JOB_UID, SLURM_JOB_GID,
 * SPANK_FALCON_*).  A slurmctld it cannot reach (restarting) is asked
 * again every second for up to 30 s.  FALCON_ERR_SLURM / FALCON_ERR_PARSE.
 */
falcon_err_t fp_slurm_job(struct fp_job *job);
/* fp_slurm_tag - merge tag into the job's AdminComment (re-read first:
 * falcon_tag_merge()); a slurmctld it cannot reach, or one that refuses
 * the update for now (Slurm 22.05's ESLURM_JOB_SETTING_DB_INX: the job's
 * slurmdbd record not made yet), is asked again every second for up to
 * 30 s; with job->no_slurm only logged.  FALCON_ERR_SLURM naming the call
 * (slurm_load_job, slurm_update_job), or falcon_tag_merge()'s error. */
falcon_err_t fp_slurm_tag(const struct fp_job *job, const char *tag);
/*
 * fp_slurm_drain - DRAIN the node with reason ("falcon: ...").  A reason
 * the node already has is never overwritten (slurm_load_node_single()
 * first): an administrator's is kept as it is, falcon's own gets
 * "; reason" appended (unless it holds reason already).  With job->no_slurm
 * only logged.  FALCON_ERR_SLURM when slurm_update_node fails (a node
 * whose reason cannot be read is drained with reason, warned).
 */
falcon_err_t fp_slurm_drain(const struct fp_job *job, const char *reason);
/*
 * fp_slurm_requeue - a failure that is not the node's (falcond, the pool,
 * a chassis): slurm_requeue(job, 0), so Slurm runs it again (pending, not
 * held; Slurm 22.05 src/slurmctld/job_mgr.c job_epilog_complete() delays its
 * start by the credential's expiry window + 1 s, 121 s by default).  A
 * job Slurm will not requeue (salloc/srun, --no-requeue) is told why
 * (slurm_notify_job()) and cancelled.  why is logged; FALCON_ERR_SLURM
 * when neither worked.
 */
falcon_err_t fp_slurm_requeue(const struct fp_job *job, const char *why);
/*
 * fp_slurm_untag_requeued - after the epilog gave a job's devices back:
 * when Slurm is requeueing the job (scontrol requeue, preemption, a node
 * failure: PENDING or a JOB_REQUEUE flag while the epilog runs) and its
 * AdminComment still shows the run that ended (falcon:topo=,
 * falcon:composed), tag it falcon:released, so that a pending job never
 * shows a topology it does not hold (issue 32).  A falcon:requeued=WHY
 * (falcon's own requeue) is left as it is.  No-op with job->no_slurm.
 * Asks Slurm (slurm_load_job) unless fp_slurm_job() filled job in
 * (job->state_known): the job's state does not change during its epilog.
 * FALCON_ERR_SLURM (slurm_load_job) or fp_slurm_tag()'s error.
 */
falcon_err_t fp_slurm_untag_requeued(const struct fp_job *job);
/*
 * fp_slurm_notify - msg on the terminal of an interactive job's salloc/srun
 * ("salloc: msg"; slurm_notify_job(), as scontrol notify: slurmctld's
 * srun_user_message() reaches a pending or running job's salloc/srun).
 * Only for job->interactive, and not with job->no_slurm; a failure is
 * logged.
 */
void fp_slurm_notify(const struct fp_job *job, const char *msg);
/* Kept, of an interactive job's bound, for the rollback and the message. */
#define FP_INTERACTIVE_MARGIN_S 10
/*
 * fp_slurm_interactive_wait - how long, in seconds, PrologSlurmctld may
 * wait for an interactive job's devices: as long as Slurm lets it, that is
 * the lesser of PrologEpilogTimeout (slurmctld kills the prolog then) and
 * how long salloc waits for its nodes (Slurm 22.05 salloc.c
 * _wait_nodes_ready(): 5 x (SuspendTimeout + ResumeTimeout), 450 s by
 * default, or 300 s when both are 0), less FP_INTERACTIVE_MARGIN_S; never
 * less than ComposeWait (conf->compose_wait; also the answer when
 * slurm_load_ctl_conf fails, warned).  A batch job waits ComposeWait: it
 * is requeued and tried again, an interactive one is killed.
 */
long fp_slurm_interactive_wait(const struct falcon_conf *conf);
/*
 * fp_slurm_nodes - the node names of a Slurm host list ("n[1-3],x")
 * into nodes (the first cap of them, the others logged; *n how many).  FALCON_ERR_INVAL when empty,
 * FALCON_ERR_PARSE when libslurm cannot read it.
 */
falcon_err_t fp_slurm_nodes(const char *nodelist, char (*nodes)[FALCON_NAME_LEN], size_t cap,
			    size_t *n);
/* fp_slurm_cancel - cancel the job (SIGKILL, whole job), logged; with
 * job->no_slurm only logged.  FALCON_ERR_SLURM when slurm_kill_job fails. */
falcon_err_t fp_slurm_cancel(const struct fp_job *job);

#endif /* FALCON_FP_SLURM_H */
