/*
 * balance.c - the re-pin of pending jobs between chassis (see balance.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef HAVE_SLURM
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include "slurm_compat.h"
#endif

#include "balance.h"
#include "core/fleet.h"
#include "core/log.h"
#include "core/policy.h"

#ifdef HAVE_SLURM

/* lic_count - the count of license name in a job's license string, 0
 * when absent (falcon_license_count()). */
static long lic_count(const char *lic, const char *name)
{
	long n = falcon_license_count(lic, name);

	return n < 0 ? 0 : n;
}

/* lic_free - what is free now of Slurm's license name: total - in use -
 * reserved (Slurm 22.05 slurm_license_info_t); -1 when unknown. */
static long lic_free(const license_info_msg_t *li, const char *name)
{
	uint32_t i;

	for (i = 0; li != NULL && i < li->num_lic; i++)
		if (strcmp(li->lic_array[i].name, name) == 0)
			return (long)li->lic_array[i].total - (long)li->lic_array[i].in_use -
			       (long)li->lic_array[i].reserved;
	return -1;
}

/* claims - what the pending jobs other than job ask of license name: what
 * job_submit_falcon counts as taken when it picks (its pending_claims()). */
static long claims(const job_info_msg_t *jobs, uint32_t job, const char *name)
{
	long sum = 0;
	uint32_t i;

	for (i = 0; i < jobs->record_count; i++)
		if ((jobs->job_array[i].job_state & JOB_STATE_BASE) == JOB_PENDING &&
		    jobs->job_array[i].job_id != job)
			sum += lic_count(jobs->job_array[i].licenses, name);
	return sum;
}

/* other_has_room - another chassis than c has gpus and nvme free now, less
 * the other pending jobs' claims (as job_submit_falcon will count them). */
static bool other_has_room(const struct falcon_conf *conf, const license_info_msg_t *li,
			   const job_info_msg_t *jobs, uint32_t job, size_t c, long gpus,
			   long nvme, size_t *other)
{
	char g[FALCON_NAME_LEN + 8], n[FALCON_NAME_LEN + 8];
	size_t d;

	for (d = 0; d < conf->nchassis; d++) {
		if (d == c || falcon_license_name(conf->chassis[d].name, FALCON_DEV_GPU, g,
						  sizeof(g)) != FALCON_OK ||
		    falcon_license_name(conf->chassis[d].name, FALCON_DEV_NVME, n,
					sizeof(n)) != FALCON_OK)
			continue;
		if ((gpus == 0 || lic_free(li, g) - claims(jobs, job, g) >= gpus) &&
		    (nvme == 0 || lic_free(li, n) - claims(jobs, job, n) >= nvme)) {
			*other = d;
			return true;
		}
	}
	return false;
}

/* The jobs whose pin was cleared lately (FALCOND_BALANCE_RETRY_S). */
static struct {
	uint32_t job;
	time_t when;
} g_tried[64];

static bool tried_lately(uint32_t job, time_t now)
{
	size_t i, old = 0;

	for (i = 0; i < sizeof(g_tried) / sizeof(g_tried[0]); i++) {
		if (g_tried[i].job == job) {
			if (now - g_tried[i].when < FALCOND_BALANCE_RETRY_S)
				return true;
			g_tried[i].when = now;
			return false;
		}
		if (g_tried[i].when < g_tried[old].when)
			old = i;
	}
	g_tried[old].job = job;
	g_tried[old].when = now;
	return false;
}

/* repin - clear job j's chassis pin (keeping the user's constraint). */
static bool repin(const struct falcon_conf *conf, const slurm_job_info_t *j, size_t from,
		  size_t to)
{
	struct falcon_fleet_pick pick;
	job_desc_msg_t d;
	char *rest = NULL, empty[1] = "";
	bool ok;

	if (falcon_fleet_pin_parse(conf, j->features, &pick, &rest) != FALCON_OK)
		return false;
	slurm_init_job_desc_msg(&d);
	falcon_job_desc_set_job(&d, j->job_id);
	d.features = rest != NULL ? rest : empty;
	ok = slurm_update_job(&d) == SLURM_SUCCESS;
	if (ok)
		falcon_info("job %u: pending for licenses of chassis %s while %s has its devices "
			    "free: chassis pin cleared, job_submit_falcon picks again", j->job_id,
			    conf->chassis[from].name, conf->chassis[to].name);
	else
		falcon_warn("job %u: clearing its chassis pin: %s", j->job_id,
			    slurm_strerror(slurm_get_errno()));
	free(rest);
	return ok;
}

size_t falcond_balance_run(struct falcond_state *st)
{
	const struct falcon_conf *conf = st->conf;
	license_info_msg_t *li = NULL;
	job_info_msg_t *jobs = NULL;
	char g[FALCON_NAME_LEN + 8], n[FALCON_NAME_LEN + 8];
	struct falcon_fleet_pick pick;
	time_t now = time(NULL);
	size_t done = 0, c, other;
	uint32_t i;

	if (!st->use_slurm || conf == NULL || conf->nchassis < 2)
		return 0;
	if (slurm_load_licenses(0, &li, 0) != SLURM_SUCCESS) {
		falcon_warn("re-pin: slurm_load_licenses: %s", slurm_strerror(slurm_get_errno()));
		return 0;
	}
	if (slurm_load_jobs(0, &jobs, SHOW_ALL) != SLURM_SUCCESS) {
		falcon_warn("re-pin: slurm_load_jobs: %s", slurm_strerror(slurm_get_errno()));
		slurm_free_license_info_msg(li);
		return 0;
	}
	for (i = 0; i < jobs->record_count; i++) {
		const slurm_job_info_t *j = &jobs->job_array[i];

		if ((j->job_state & JOB_STATE_BASE) != JOB_PENDING ||
		    j->state_reason != WAIT_LICENSES || j->features == NULL ||
		    falcon_fleet_pin_parse(conf, j->features, &pick, NULL) != FALCON_OK ||
		    pick.n != 1 || pick.nodes[0] != 0)
			continue;
		c = pick.chassis[0];
		if (falcon_license_name(conf->chassis[c].name, FALCON_DEV_GPU, g, sizeof(g)) !=
			    FALCON_OK ||
		    falcon_license_name(conf->chassis[c].name, FALCON_DEV_NVME, n, sizeof(n)) !=
			    FALCON_OK)
			continue;
		if (!other_has_room(conf, li, jobs, j->job_id, c, lic_count(j->licenses, g),
				    lic_count(j->licenses, n), &other) ||
		    tried_lately(j->job_id, now))
			continue;
		if (repin(conf, j, c, other))
			done++;
	}
	slurm_free_job_info_msg(jobs);
	slurm_free_license_info_msg(li);
	return done;
}

#else /* !HAVE_SLURM */

size_t falcond_balance_run(struct falcond_state *st)
{
	(void)st;
	return 0;
}

#endif
