/*
 * slurmcheck.c - slurm.conf against falcon.conf, once at start (see
 * slurmcheck.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_SLURM
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include "slurm_compat.h"
#endif

#include "slurmcheck.h"
#include "core/fleet.h"
#ifdef HAVE_SLURM
#include "slurm_view.h"
#endif
#include "core/log.h"

#ifdef HAVE_SLURM

static void log_problem(const char *msg, void *arg)
{
	(void)arg;
	falcon_warn("slurm.conf disagrees with falcon.conf: %s", msg);
}

/* inventory_counts - each chassis' GPUs and NVMe in its last read (-1: not read). */
static void inventory_counts(struct falcond_state *st, long *gpus, long *nvme)
{
	size_t c, i, k;

	for (c = 0; c < st->conf->nchassis; c++)
		gpus[c] = nvme[c] = -1;
	pthread_mutex_lock(&st->lock);
	for (k = 0; k < st->nchassis; k++) {
		const struct falcond_chassis *ch = &st->ch[k];

		for (c = 0; c < st->conf->nchassis; c++)
			if (strcmp(st->conf->chassis[c].name, ch->cc->name) == 0)
				break;
		if (c == st->conf->nchassis || !ch->have_last)
			continue;
		gpus[c] = nvme[c] = 0;
		for (i = 0; i < ch->last.n; i++) {
			if (ch->last.devs[i].type == FALCON_DEV_GPU)
				gpus[c]++;
			else if (ch->last.devs[i].type == FALCON_DEV_NVME)
				nvme[c]++;
		}
	}
	pthread_mutex_unlock(&st->lock);
}

size_t falcond_slurm_check_once(struct falcond_state *st)
{
	static bool done;
	struct falcon_slurm_loaded s;
	long *gpus = NULL, *nvme = NULL;
	size_t n = 0;

	if (done || !st->use_slurm || st->conf == NULL)
		return 0;
	done = true;
	if (falcon_slurm_view_load(&s) != 0) {
		falcon_warn("slurm.conf not checked against falcon.conf: %s",
			    s.ctl == NULL || s.nodes == NULL ? slurm_strerror(slurm_get_errno())
							     : "out of memory");
		goto out;
	}
	gpus = calloc(st->conf->nchassis + 1, sizeof(*gpus));
	nvme = calloc(st->conf->nchassis + 1, sizeof(*nvme));
	if (gpus == NULL || nvme == NULL)
		goto out;
	inventory_counts(st, gpus, nvme);
	n = falcon_slurm_check(st->conf, &s.v, gpus, nvme, log_problem, NULL);
	if (n == 0)
		falcon_info("slurm.conf agrees with falcon.conf (%zu chassis, %zu hosts)",
			    st->conf->nchassis, st->conf->nhosts);
out:
	free(gpus);
	free(nvme);
	falcon_slurm_view_free(&s);
	return n;
}

#else /* !HAVE_SLURM */

size_t falcond_slurm_check_once(struct falcond_state *st)
{
	(void)st;
	return 0;
}

#endif
