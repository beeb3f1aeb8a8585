/*
 * slurmjob.c - falcond's libslurm set-up and what it asks Slurm of one job
 * (slurmjob.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <pthread.h>

#ifdef HAVE_SLURM
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include "slurm_compat.h"
#endif

#include "slurmjob.h"
#include "core/log.h"

#ifdef HAVE_SLURM
static pthread_once_t slurm_once = PTHREAD_ONCE_INIT;

static void slurm_init_once(void)
{
	slurm_init(NULL);
}
#endif

void falcond_slurm_init(void)
{
#ifdef HAVE_SLURM
	pthread_once(&slurm_once, slurm_init_once);
#endif
}

int falcond_slurm_job_run_ended(struct falcond_state *st, uint32_t job)
{
	if (!st->use_slurm)
		return -1;
#ifdef HAVE_SLURM
	{
		job_info_msg_t *msg = NULL;
		uint32_t s;

		falcond_slurm_init();
		if (slurm_load_job(&msg, falcon_slurm_job(job), SHOW_ALL) != SLURM_SUCCESS) {
			int e = slurm_get_errno();

			if (e == ESLURM_INVALID_JOB_ID)
				return 1;
			falcon_warn("job %u: slurm_load_job: %s; its state not known", job,
				    slurm_strerror(e));
			return -1;
		}
		if (msg->record_count == 0) {
			slurm_free_job_info_msg(msg);
			return 1;
		}
		s = msg->job_array[0].job_state & JOB_STATE_BASE;
		slurm_free_job_info_msg(msg);
		return s == JOB_RUNNING || s == JOB_SUSPENDED ? 0 : 1;
	}
#else
	(void)job;
	return -1;
#endif
}
