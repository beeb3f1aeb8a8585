/*
 * slurm_view.h - what the running slurmctld says of the cluster (its
 * Licenses=, each node's name, features and Gres, whether the HRES
 * resource is defined), loaded once for falcon_slurm_check() (core/fleet.h)
 * by falcond at start and by `falconctl status`.  Header only, as
 * slurm_compat.h: both programs link libslurm, lib/ does not.
 *
 * Include after "config.h", <slurm/slurm.h>, <slurm/slurm_errno.h>,
 * "slurm_compat.h" and "core/fleet.h", where HAVE_SLURM.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_SLURM_VIEW_H
#define FALCON_SLURM_VIEW_H

#include <stdlib.h>
#include <string.h>

/* What falcon_slurm_view_load() filled: v points into the rest. */
struct falcon_slurm_loaded {
	struct falcon_slurm_view v;
	slurm_conf_t *ctl;
	node_info_msg_t *nodes;
	license_info_msg_t *li;
	const char **name, **feat, **gres; /* v's arrays, owned */
};

/*
 * falcon_slurm_view_free - what falcon_slurm_view_load() allocated (s
 * itself is the caller's); a zeroed s is fine.
 */
static inline void falcon_slurm_view_free(struct falcon_slurm_loaded *s)
{
	free(s->name);
	free(s->feat);
	free(s->gres);
	if (s->li != NULL)
		slurm_free_license_info_msg(s->li);
	if (s->nodes != NULL)
		slurm_free_node_info_msg(s->nodes);
	if (s->ctl != NULL)
		slurm_free_ctl_conf(s->ctl);
	memset(s, 0, sizeof(*s));
}

/*
 * falcon_slurm_view_load - fill s (the caller's, zeroed here) from the
 * running slurmctld: slurm_load_ctl_conf(), slurm_load_node(SHOW_ALL) and
 * slurm_load_licenses() (HRES, Slurm 25.11+: slurmctld lists its
 * resources as licenses, so FALCON_HRES_GPU among them means the HRES
 * set-up is in place).  libslurm must be initialised (slurm_init).
 * Returns 0, or -1 when slurmctld did not answer (slurm_get_errno() says
 * why; s holds nothing) or memory ran out (errno ENOMEM).  Free with
 * falcon_slurm_view_free() either way.
 */
static inline int falcon_slurm_view_load(struct falcon_slurm_loaded *s)
{
	uint32_t i, n;

	memset(s, 0, sizeof(*s));
	if (slurm_load_ctl_conf(0, &s->ctl) != SLURM_SUCCESS ||
	    slurm_load_node(0, &s->nodes, SHOW_ALL) != SLURM_SUCCESS)
		return -1;
	n = s->nodes->record_count;
	s->name = calloc(n + 1, sizeof(*s->name));
	s->feat = calloc(n + 1, sizeof(*s->feat));
	s->gres = calloc(n + 1, sizeof(*s->gres));
	if (s->name == NULL || s->feat == NULL || s->gres == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		s->name[i] = s->nodes->node_array[i].name ? s->nodes->node_array[i].name : "";
		s->feat[i] = s->nodes->node_array[i].features;
		s->gres[i] = s->nodes->node_array[i].gres;
	}
	s->v.licenses = s->ctl->licenses;
	s->v.nnodes = n;
	s->v.node = s->name;
	s->v.features = s->feat;
	s->v.gres = s->gres;
	if (slurm_load_licenses(0, &s->li, 0) == SLURM_SUCCESS)
		for (i = 0; i < s->li->num_lic; i++)
			s->v.hres = s->v.hres ||
				    strcmp(s->li->lic_array[i].name, FALCON_HRES_GPU) == 0;
	return 0;
}

#endif /* FALCON_SLURM_VIEW_H */
