/*
 * fp_start.c - the start of a falcon-prolog/epilog run: options, the job
 * id and node, falcon.conf (drained through fp_slurm.c when it does not
 * load).  Above fp_common.c and fp_slurm.c, called only by the programs'
 * main() (see fp_start.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fp_common.h"
#include "fp_slurm.h"
#include "fp_start.h"
#include "core/log.h"
#include "core/util.h"

int fp_start(const char *jobs, const char *node, const char *cfg, struct fp_job *job,
	     struct falcon_conf **conf)
{
	long id;

	*conf = NULL;
	if (jobs == NULL || falcon_strtol(jobs, 10, 1, UINT32_MAX, &id) != FALCON_OK) {
		falcon_error("no job: set SLURM_JOB_ID or give --job (%s)",
			     jobs ? falcon_errmsg() : "unset");
		return 2;
	}
	job->id = (uint32_t)id;
	if (node == NULL) {
		char h[256] = "";

		gethostname(h, sizeof(h) - 1);
		h[strcspn(h, ".")] = '\0';
		falcon_strlcpy(job->node, h, sizeof(job->node));
	} else {
		falcon_strlcpy(job->node, node, sizeof(job->node));
	}
	if (falcon_conf_load(falcon_conf_path(cfg), conf) != FALCON_OK) {
		char reason[512];

		snprintf(reason, sizeof(reason), "falcon: falcon.conf: %s", falcon_errmsg());
		if (job->slurmctld)
			falcon_error("%s", reason);
		else
			fp_slurm_drain(job, reason);
		*conf = NULL;
		return 1;
	}
	return 0;
}

int fp_main_start(int argc, char **argv, const char *prog, void (*usage)(FILE *f),
		  const char **proc, struct fp_job *job, struct falcon_conf **conf)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' }, { "job", required_argument, NULL, 'j' },
		{ "node", required_argument, NULL, 'n' }, { "proc", required_argument, NULL, 'P' },
		{ "no-slurm", no_argument, NULL, 'S' }, { "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, 'V' },
		{ "slurmctld", no_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 },
	};
	const char *ctx, *cfg = NULL, *jobs = getenv("SLURM_JOB_ID"), *node = getenv("SLURMD_NODENAME");
	falcon_log_level_t level = FALCON_LOG_INFO;
	int c;

	*conf = NULL;
	falcon_log_init(prog);
	while ((c = getopt_long(argc, argv, "c:j:n:vhV", opts, NULL)) != -1) {
		switch (c) {
		case 'c': cfg = optarg; break;
		case 'j': jobs = optarg; break;
		case 'n': node = optarg; break;
		case 'S': job->no_slurm = true; break;
		case 'C': job->slurmctld = true; break;
		case 'v': level = level < FALCON_LOG_DEBUG ? level + 1 : level; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("%s %s\n", prog, PACKAGE_VERSION); return 0;
		case 'P':
			if (proc == NULL) { /* falcon-prolog has no --proc */
				usage(stderr);
				return 2;
			}
			*proc = optarg;
			break;
		default: usage(stderr); return 2;
		}
	}
	/* Slurm 20.11+ sets it for PrologSlurmctld= and EpilogSlurmctld=
	 * (src/slurmctld/job_scheduler.c); proc != NULL: falcon-epilog */
	ctx = getenv("SLURM_SCRIPT_CONTEXT");
	if (ctx != NULL && strcmp(ctx, proc == NULL ? "prolog_slurmctld" : "epilog_slurmctld") == 0)
		job->slurmctld = true;
	falcon_log_add_sink(falcon_log_sink_stderr, level, NULL);
	falcon_log_add_sink(falcon_log_sink_syslog, FALCON_LOG_INFO, NULL);
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	c = fp_start(jobs, node, cfg, job, conf);
	return c != 0 ? c : -1;
}
