/*
 * prolog_slurmctld.h - falcon-prolog's PrologSlurmctld mode
 * (prolog_slurmctld.c).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_PROLOG_SLURMCTLD_H
#define FALCON_PROLOG_SLURMCTLD_H

#include "core/conf.h"
#include "fp_common.h"

/*
 * fp_slurmctld_run - PrologSlurmctld: read job (fp_slurm_job()), expand
 * $SLURM_JOB_NODELIST and compose on each of its nodes with a HostName=
 * line (fp_compose_wait()), waiting up to ComposeWait= from now while
 * falcond or the pool is not ready; every lease made is given back when
 * one node's fails.  The job's AdminComment says falcon:waiting=...,
 * falcon:composed, falcon:requeued=... or falcon:error=....  Returns the
 * exit code for Slurm: 0 (composed, nothing to do, or the job's own error:
 * cancelled), 1 (requeue: Slurm requeues the job, drains nothing).
 * conf and job are the caller's.
 */
int fp_slurmctld_run(const struct falcon_conf *conf, struct fp_job *job);

#endif /* FALCON_PROLOG_SLURMCTLD_H */
