/*
 * slurmconf.h - falconctl slurm-conf: the Slurm side of falcon.conf for the
 * running Slurm release (slurm.conf Licenses=, node Gres=/Features=,
 * gres.conf, or from Slurm 25.11 on, when asked, resources.yaml), with the chassis'
 * device counts as falcond sees them; and the disagreements of the running
 * slurm.conf with falcon.conf that `falconctl status` prints.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCONCTL_SLURMCONF_H
#define FALCONCTL_SLURMCONF_H

#include <json-c/json.h>
#include <stdio.h>

/*
 * falconctl_slurm_conf - `falconctl slurm-conf [--config FILE]
 * [--release MAJOR.MINOR] [--pool licenses|hres] [--no-falcond]`:
 * falcon.conf(5) loaded, each
 * chassis' GPU and NVMe count from falcond's GET /v1/status (unless
 * --no-falcond: then COUNT placeholders), written by
 * falcon_slurm_conf_write() (lib/core/fleet.h) for --release, default the
 * Slurm falconctl was built against (slurm_version.h SLURM_VERSION_NUMBER;
 * 22.05 when built without Slurm), the pool as licenses (default, every
 * release) or HRES (--pool hres: 25.11 or later, else exit 2).  Exit codes as falconctl(1): 0, 2 usage or falcon.conf,
 * 3 falcond unreachable.
 */
int falconctl_slurm_conf(int argc, char **argv);

/*
 * falconctl_slurm_disagree - the running Slurm's configuration
 * (slurm_load_ctl_conf Licenses=, slurm_load_node names, features, Gres;
 * Slurm 22.05+) checked by falcon_slurm_check() against falcon.conf at
 * config_path (NULL = FALCON_CONF or the default) and the device counts of
 * status (falcond's GET /v1/status; NULL = unknown): each disagreement one
 * line "slurm.conf: ..." on f, under a "SLURM" header; one line saying so
 * when Slurm cannot be asked (no readable $SLURM_CONF or
 * /etc/slurm/slurm.conf: libslurm would exit; slurmctld not answering).  Returns the number of disagreements.
 */
size_t falconctl_slurm_disagree(const char *config_path, json_object *status, FILE *f);

#endif /* FALCONCTL_SLURMCONF_H */
