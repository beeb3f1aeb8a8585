/*
 * report_cmd.h - `falconctl report` (report_cmd.c): accounting per topology from
 * slurmdbd and falcond's history, computed by report.c; and its loader of
 * a window's jobs from slurmdbd, which `falconctl advise` shares.
 * Each subcommand takes its argv (argv[0] is the subcommand's name) and
 * returns an exit code of exitcode.h.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCONCTL_REPORT_CMD_H
#define FALCONCTL_REPORT_CMD_H

#include <stddef.h>
#include <time.h>

#include "advise/report.h"

int falconctl_report(int argc, char **argv);

/* Which jobs to read: a window and sacct's filters. */
struct falconctl_rwin {
	const char *cmd;              /* "report", "advise": the messages' speaker */
	time_t start, end;            /* epoch s, as sacct -S/-E */
	const char *partition, *user; /* comma separated lists; NULL = all */
	int progress;                 /* 1 on, 0 off, -1 when stderr is a terminal */
};

/* A window's jobs as report.c takes them. */
struct falconctl_jobs {
	struct falcon_rjob *jobs;     /* n records; their strings point into list */
	size_t n;
	void *list;                   /* libslurmdb's list of slurmdb_job_rec_t, owned */
};

/*
 * falconctl_rwin_parse - w->start, w->end from the --start/--end values
 * (NULL: def_start, "now"; forms of falcon_time_parse()).  Returns
 * FALCONCTL_EXIT_OK, or FALCONCTL_EXIT_USAGE after saying why (a bad time,
 * an end before the start).
 */
int falconctl_rwin_parse(struct falconctl_rwin *w, const char *start, const char *end,
			 const char *def_start);

/*
 * falconctl_jobs_load - the allocations of w's window from slurmdbd, as
 * `sacct -X` reads them (this cluster, times not truncated), each
 * classified (falcon_rjob_classify) into *out, the caller's to release
 * with falconctl_jobs_free() (also after a failure: *out is then empty).
 * Returns an exit code of exitcode.h after saying why: UNREACHABLE when
 * slurmdbd does not answer, USAGE for an unknown --user, FAIL otherwise
 * (and always when built without libslurm).
 */
int falconctl_jobs_load(const struct falconctl_rwin *w, struct falconctl_jobs *out);

/* falconctl_jobs_free - what falconctl_jobs_load() gave; j is emptied. */
void falconctl_jobs_free(struct falconctl_jobs *j);

#endif /* FALCONCTL_REPORT_CMD_H */
