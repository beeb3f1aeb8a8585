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
	slurm_conf_t *ctl = NULL;
	node_info_msg_t *nodes = NULL;
	license_info_msg_t *li = NULL;
	struct falcon_slurm_view v = { 0 };
	const char **name = NULL, **feat = NULL, **gres = NULL;
	long *gpus = NULL, *nvme = NULL;
	size_t n = 0;
	uint32_t i;

	if (done || !st->use_slurm || st->conf == NULL)
		return 0;
	done = true;
	if (slurm_load_ctl_conf(0, &ctl) != SLURM_SUCCESS ||
	    slurm_load_node(0, &nodes, SHOW_ALL) != SLURM_SUCCESS) {
		falcon_warn("slurm.conf not checked against falcon.conf: %s",
			    slurm_strerror(slurm_get_errno()));
		goto out;
	}
	name = calloc(nodes->record_count + 1, sizeof(*name));
	feat = calloc(nodes->record_count + 1, sizeof(*feat));
	gres = calloc(nodes->record_count + 1, sizeof(*gres));
	gpus = calloc(st->conf->nchassis + 1, sizeof(*gpus));
	nvme = calloc(st->conf->nchassis + 1, sizeof(*nvme));
	if (name == NULL || feat == NULL || gres == NULL || gpus == NULL || nvme == NULL)
		goto out;
	for (i = 0; i < nodes->record_count; i++) {
		name[i] = nodes->node_array[i].name ? nodes->node_array[i].name : "";
		feat[i] = nodes->node_array[i].features;
		gres[i] = nodes->node_array[i].gres;
	}
	v.licenses = ctl->licenses;
	v.nnodes = nodes->record_count;
	v.node = name;
	v.features = feat;
	v.gres = gres;
	if (slurm_load_licenses(0, &li, 0) == SLURM_SUCCESS)
		for (i = 0; i < li->num_lic; i++)
			v.hres = v.hres || strcmp(li->lic_array[i].name, FALCON_HRES_GPU) == 0;
	inventory_counts(st, gpus, nvme);
	n = falcon_slurm_check(st->conf, &v, gpus, nvme, log_problem, NULL);
	if (n == 0)
		falcon_info("slurm.conf agrees with falcon.conf (%zu chassis, %zu hosts)",
			    st->conf->nchassis, st->conf->nhosts);
out:
	free(name);
	free(feat);
	free(gres);
	free(gpus);
	free(nvme);
	if (li != NULL)
		slurm_free_license_info_msg(li);
	if (nodes != NULL)
		slurm_free_node_info_msg(nodes);
	if (ctl != NULL)
		slurm_free_ctl_conf(ctl);
	return n;
}

#else /* !HAVE_SLURM */

size_t falcond_slurm_check_once(struct falcond_state *st)
{
	(void)st;
	return 0;
}

#endif
