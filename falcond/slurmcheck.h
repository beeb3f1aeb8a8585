/*
 * slurmcheck.h - falcond's check at start that slurm.conf agrees with
 * falcon.conf (issue 26): the per-chassis licenses and their counts, the
 * nodes, their falcon_gpu GRES and chassis features (lib/core/fleet.h
 * falcon_slurm_check()); each disagreement logged once.
 *
 * Calls libslurm and reads the state's conf and inventories.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCOND_SLURMCHECK_H
#define FALCOND_SLURMCHECK_H

#include <stddef.h>

#include "state.h"

/*
 * falcond_slurm_check_once - on its first call only (later calls return
 * 0): slurmctld's Licenses= and nodes (slurm_load_ctl_conf,
 * slurm_load_node, slurm_load_licenses; Slurm 22.05+) against st->conf
 * and each chassis' GPU/NVMe count in its last inventory (under st->lock;
 * a chassis not read yet counts as unknown), each disagreement logged as a
 * warning "slurm.conf disagrees with falcon.conf: ...", or one info line
 * when they agree.  Nothing without Slurm (st->use_slurm false).  Returns
 * the number of disagreements.  Called from the reservation thread
 * (resv.c), after the start-up reconcile has read the chassis.
 */
size_t falcond_slurm_check_once(struct falcond_state *st);

#endif /* FALCOND_SLURMCHECK_H */
