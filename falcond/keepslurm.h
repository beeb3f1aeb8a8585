/*
 * keepslurm.h - the jobs Slurm shows waiting for a keep's devices (issue
 * 41: KeepWarm= keeps a lease only where a job waits that can use it;
 * keep.h falcond_keep_for() judges, this asks Slurm).
 *
 * Calls libslurm only; reads nothing of falcond's state but use_slurm.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCOND_KEEPSLURM_H
#define FALCOND_KEEPSLURM_H

#include <stddef.h>

#include "keep.h"
#include "state.h"

/*
 * falcond_keep_waiters - the jobs of slurmctld (one slurm_load_jobs,
 * Slurm 22.05+) that may take devices on host in partition part (NULL or
 * "" = any) next, into *out (malloc'd, the caller frees; NULL when *n is
 * 0): each job asking falcon_gpu or falcon_nvme per node (its
 * tres_per_node, falcon_tres_parse()) in a partition list naming part,
 * that is
 *   - pending and eligible: not held (priority 0, Reason JobHeldUser or
 *     JobHeldAdmin), its dependency not invalid (DependencyNeverSatisfied),
 *     host in its --nodelist when it has one and not in its --exclude; or
 *   - configuring (PrologSlurmctld composing) with host among its nodes.
 * Does not take st->lock.  Returns FALCON_ERR_IO when Slurm does not
 * answer (slurm_load_jobs' error in falcon_errmsg()), FALCON_ERR_NOMEM,
 * FALCON_ERR_INVAL without Slurm (st->use_slurm false, or built without
 * libslurm); *out is NULL and *n 0 on every error.
 */
falcon_err_t falcond_keep_waiters(struct falcond_state *st, const char *host, const char *part,
				  struct falcond_keep_waiter **out, size_t *n);

#endif /* FALCOND_KEEPSLURM_H */
