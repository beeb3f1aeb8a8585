/*
 * balance.h - the re-pin of pending jobs between the chassis of a fleet
 * (job_submit_falcon(8), SEVERAL CHASSIS; issue 26).  job_submit_falcon
 * pins a job whose partition spans chassis to one of them at submit
 * (constraint falcon_<C>, licenses <C>_gpu/<C>_nvme), the first whose free
 * pool holds it, else the first that ever can; such a job then pends with
 * Reason=Licenses until that chassis has room, although another may have
 * room first.  falcond_balance_run(), called from the reservation thread
 * (resv.c) after each reconcile, clears the pin of such a job when another
 * chassis of falcon.conf has the job's devices free: slurmctld then calls
 * job_submit_falcon's job_modify, which picks again over what is free now.
 *
 * Calls libslurm only; above nothing of falcond's but the state's conf.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCOND_BALANCE_H
#define FALCOND_BALANCE_H

#include <stddef.h>

#include "state.h"

/* Seconds before the same job's pin is cleared again (a loop guard: the
 * plugin may pick the same chassis when the other has no node of the
 * job's partition). */
#define FALCOND_BALANCE_RETRY_S 120

/*
 * falcond_balance_run - one pass over Slurm's pending jobs (slurm_load_jobs,
 * slurm_load_licenses: Slurm 22.05+): a job pending for licenses (Reason
 * WAIT_LICENSES) whose constraint pins one chassis C of st->conf
 * ("falcon_C", as job_submit_falcon writes it), and whose licenses of C
 * another chassis D has free now (total - in use - reserved - what the other
 * pending jobs ask of D, per type: as job_submit_falcon counts), gets
 * its pin cleared by slurm_update_job (features = the user's own part, or
 * ""); each such update is logged.  Nothing with fewer than two chassis, or
 * without Slurm (st->use_slurm false).  Jobs split over several chassis are
 * left alone.  Returns the number of jobs updated.  Thread: the reservation
 * thread's; reads st->conf only.
 */
size_t falcond_balance_run(struct falcond_state *st);

#endif /* FALCOND_BALANCE_H */
