/*
 * keepslurm.c - the jobs Slurm shows waiting for a keep's devices (see
 * keepslurm.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_SLURM
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include "slurm_compat.h"
#endif

#include "keepslurm.h"
#include "core/jobtag.h"
#include "core/log.h"

#ifdef HAVE_SLURM

/* in_list - whether name is one of the comma-separated list's entries. */
static bool in_list(const char *list, const char *name)
{
	size_t len = strlen(name);
	const char *p = list;

	while (p != NULL && *p != '\0') {
		if (strncmp(p, name, len) == 0 && (p[len] == ',' || p[len] == '\0'))
			return true;
		p = strchr(p, ',');
		p = p != NULL ? p + 1 : NULL;
	}
	return false;
}

/* in_hosts - whether host is in Slurm hostlist expression hosts ("node[2-4]"):
 * 1 yes, 0 no, -1 when hosts is NULL or empty. */
static int in_hosts(const char *hosts, const char *host)
{
	__typeof__(slurm_hostlist_create(NULL)) hl;
	int at;

	if (hosts == NULL || hosts[0] == '\0' || (hl = slurm_hostlist_create(hosts)) == NULL)
		return -1;
	at = slurm_hostlist_find(hl, host);
	slurm_hostlist_destroy(hl);
	return at >= 0;
}

/* eligible - whether job j may take devices on host next (keepslurm.h). */
static bool eligible(const slurm_job_info_t *j, const char *host, bool *configuring)
{
	uint32_t base = j->job_state & JOB_STATE_BASE;

	*configuring = false;
	if (base == JOB_RUNNING && (j->job_state & JOB_CONFIGURING)) {
		*configuring = true;
		return in_hosts(j->nodes, host) == 1;
	}
	if (base != JOB_PENDING || j->priority == 0 || j->state_reason == WAIT_HELD ||
	    j->state_reason == WAIT_HELD_USER || j->state_reason == WAIT_DEP_INVALID)
		return false;
	return in_hosts(j->req_nodes, host) != 0 && in_hosts(j->exc_nodes, host) != 1;
}

falcon_err_t falcond_keep_waiters(struct falcond_state *st, const char *host, const char *part,
				  struct falcond_keep_waiter **out, size_t *n)
{
	job_info_msg_t *jobs = NULL;
	struct falcond_keep_waiter *w;
	uint32_t i;

	*out = NULL;
	*n = 0;
	if (!st->use_slurm)
		return falcon_err_set(FALCON_ERR_INVAL, "keep: falcond does not ask Slurm");
	if (slurm_load_jobs(0, &jobs, SHOW_ALL) != SLURM_SUCCESS)
		return falcon_err_set(FALCON_ERR_IO, "slurm_load_jobs: %s",
				      slurm_strerror(slurm_get_errno()));
	w = calloc(jobs->record_count + 1, sizeof(*w));
	if (w == NULL) {
		slurm_free_job_info_msg(jobs);
		return falcon_err_set(FALCON_ERR_NOMEM, "keep: %u jobs", jobs->record_count);
	}
	for (i = 0; i < jobs->record_count; i++) {
		const slurm_job_info_t *j = &jobs->job_array[i];
		struct falcon_job_req req;
		bool configuring;

		if (!eligible(j, host, &configuring) ||
		    (part != NULL && part[0] != '\0' && !in_list(j->partition, part)) ||
		    falcon_tres_parse(j->tres_per_node, &req) != FALCON_OK ||
		    (req.falcon_gpus <= 0 && req.falcon_nvme <= 0))
			continue;
		w[*n].job_id = j->job_id;
		w[*n].uid = (long)j->user_id;
		w[*n].priority = j->priority;
		w[*n].configuring = configuring;
		w[*n].gpus = req.falcon_gpus;
		w[*n].nvme = req.falcon_nvme;
		(*n)++;
	}
	slurm_free_job_info_msg(jobs);
	if (*n == 0) {
		free(w);
		w = NULL;
	}
	*out = w;
	return FALCON_OK;
}

#else /* !HAVE_SLURM */

falcon_err_t falcond_keep_waiters(struct falcond_state *st, const char *host, const char *part,
				  struct falcond_keep_waiter **out, size_t *n)
{
	(void)st;
	(void)host;
	(void)part;
	*out = NULL;
	*n = 0;
	return falcon_err_set(FALCON_ERR_INVAL, "keep: falcond was built without libslurm");
}

#endif
