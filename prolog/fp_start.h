/*
 * fp_start.h - the start both programs share (fp_start.c): options,
 * log sinks, the job id and falcon.conf.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_FP_START_H
#define FALCON_FP_START_H

#include <stdio.h>

#include "core/conf.h"
#include "fp_common.h"


/*
 * fp_start - what a prolog/epilog run is for: job->id from jobs
 * ($SLURM_JOB_ID or --job, 1..UINT32_MAX), job->node from node (NULL = the
 * short host name), *conf from falcon.conf at cfg (NULL = the default
 * path; caller frees with falcon_conf_free()).  Returns 0; 2 when the job
 * id is missing or bad (logged); 1 when falcon.conf does not load (logged,
 * the node drained with "falcon: falcon.conf: <detail>" unless
 * job->slurmctld: no node of its own there; *conf NULL).
 */
int fp_start(const char *jobs, const char *node, const char *cfg, struct fp_job *job,
	     struct falcon_conf **conf);
/*
 * fp_main_start - the start both programs share: falcon_log_init(prog),
 * the options -c/--config, -j/--job, -n/--node, --no-slurm (job->no_slurm),
 * -v/--verbose (repeatable), -h/--help, -V/--version, --slurmctld
 * (job->slurmctld, also set by SLURM_SCRIPT_CONTEXT=prolog_slurmctld for
 * falcon-prolog and =epilog_slurmctld for falcon-epilog, which Slurm
 * 22.05+ src/plugins/prep/script/prep_script_slurmctld.c _build_env()
 * gives PrologSlurmctld and EpilogSlurmctld), and --proc DIR when
 * proc is non-NULL (*proc gets it, else left as it is); the stderr and
 * syslog sinks; then fp_start() with $SLURM_JOB_ID / $SLURMD_NODENAME as
 * defaults.  usage(f) prints the program's usage.  Returns -1 when the
 * program should go on (*conf loaded, caller frees it), else its exit
 * code: 0 after --help/--version, 2 on a usage error, fp_start()'s.
 */
int fp_main_start(int argc, char **argv, const char *prog, void (*usage)(FILE *f),
		  const char **proc, struct fp_job *job, struct falcon_conf **conf);

#endif /* FALCON_FP_START_H */
