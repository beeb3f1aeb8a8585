/*
 * slurmjob.h - falcond's libslurm set-up and what it asks Slurm of one
 * job.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCOND_SLURMJOB_H
#define FALCOND_SLURMJOB_H

#include <stdint.h>

#include "state.h"

/*
 * falcond_slurm_init - slurm_init(NULL) once per process, before the first
 * libslurm call of any thread: libslurm reads slurm.conf ($SLURM_CONF)
 * then, and since Slurm 23.11.1 a call without slurm_init() is fatal.
 * Nothing without libslurm.  Thread-safe.
 */
void falcond_slurm_init(void);

/*
 * falcond_slurm_job_run_ended - whether Slurm says job's run has ended,
 * its state read now (slurm_load_job): 1 when it is neither RUNNING nor
 * SUSPENDED (CONFIGURING is a RUNNING job's flag; a COMPLETING job counts
 * as ended, unlike the reconcile's job states: asked only of a compose no
 * node has seen; a requeued job, PENDING, too: that run has ended) or
 * Slurm no longer knows it (ESLURM_INVALID_JOB_ID); 0 when it runs; -1
 * when Slurm cannot be asked (logged) or falcond runs without Slurm
 * (st->use_slurm false).  An RPC to slurmctld (seconds when it is busy):
 * call it without st->lock.  Thread-safe.
 */
int falcond_slurm_job_run_ended(struct falcond_state *st, uint32_t job);

#endif /* FALCOND_SLURMJOB_H */
