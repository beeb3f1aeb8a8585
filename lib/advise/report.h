/*
 * report.h - accounting per topology (falconctl report), without libslurm:
 * sacct-style time parsing, AllocTRES counts, the topology of a job from
 * its AdminComment tag and GRES, the aggregation (per topology, partition,
 * user; relative runtime per workload; per device from falcond's history)
 * and the writers (table, csv, json, svg).  The slurmdbd and falcond calls
 * stay in falconctl/report_cmd.c; the advisor (advise.h) reads the
 * relative runtimes.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_REPORT_H
#define FALCON_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "core/falcon_err.h"

/*
 * falcon_time_parse - a time as sacct's -S/-E take it, in local time, into
 * *out (seconds since the epoch): "now[{+|-}N[s|m|h|d|w]]" (units also
 * spelt sec/seconds, min/minutes, hour(s), day(s), week(s); default
 * seconds), "today" / "midnight" (00:00:00 of today), "YYYY-MM-DD[THH:MM[:SS]]",
 * "MM/DD[/YY][-HH:MM[:SS]]" and a plain epoch number (digits only).  now is
 * the reference for "now" and "today".  FALCON_ERR_PARSE naming s otherwise.
 */
falcon_err_t falcon_time_parse(const char *s, time_t now, time_t *out);

/*
 * falcon_tres_count - the count of TRES id in a slurmdbd tres string
 * ("1=4,2=1000,4=1,1001=4": id=count pairs, as slurmdb_job_rec_t's
 * tres_alloc_str holds them); 0 when absent, NULL or malformed.
 */
uint64_t falcon_tres_count(const char *tres, uint32_t id);

/* A job's falcon check verdict as the report counts it. */
enum falcon_rcheck {
	FALCON_RCHECK_NONE,  /* no tag or no check= in it */
	FALCON_RCHECK_PASS,
	FALCON_RCHECK_WARN,
	FALCON_RCHECK_FAIL,
	FALCON_RCHECK_OTHER, /* skipped, error, off */
};

/* One job as the report needs it. */
struct falcon_rjob {
	uint32_t job_id;
	const char *user;        /* borrowed: the caller keeps these alive */
	const char *partition;
	const char *workload;    /* job name, or its --comment when set */
	char topo[32];           /* falcon_rjob_classify() */
	uint64_t falcon_gpus;    /* AllocTRES gres/falcon_gpu */
	uint64_t gpus;           /* AllocTRES gres/gpu (the node's own) */
	uint32_t elapsed;        /* seconds, as sacct's Elapsed */
	enum falcon_rcheck check;
	double busbw;            /* GB/s from the tag; < 0 = none */
	bool bad_tag;            /* a falcon tag was there but malformed */
};

/*
 * falcon_rjob_classify - j->topo, j->check and j->busbw from the job's
 * AdminComment (NULL allowed) and its GRES counts (j->falcon_gpus,
 * j->gpus, set before).  With a tag: its topo= (localGPUs, hybridGPUs,
 * falconGPUs), "+falconNVMe"/"+localNVMe" appended for nvme=, the storage
 * label alone when the tag has no GPU.  Without a tag (the prolog composes
 * nothing and may tag nothing for a job of local GPUs only) or with a
 * malformed one (j->bad_tag): DESIGN's rule from the GRES, gpu only =
 * localGPUs, gpu + falcon_gpu = hybridGPUs, falcon_gpu only = falconGPUs,
 * neither = "none".  Never fails.
 */
void falcon_rjob_classify(struct falcon_rjob *j, const char *admin_comment);

/*
 * falcon_nearest_rank - the p-th percentile (0 < p <= 100) of v[0..n)
 * sorted ascending by the nearest-rank method: v[ceil(p*n/100) - 1]
 * (Hyndman & Fan 1996, "Sample Quantiles in Statistical Packages", The
 * American Statistician 50(4), definition 1: the inverse of the empirical
 * distribution function).  Median = p 50.  0 when n is 0.
 */
uint32_t falcon_nearest_rank(const uint32_t *v, size_t n, unsigned p);

enum falcon_rby { FALCON_RBY_TOPOLOGY, FALCON_RBY_PARTITION, FALCON_RBY_USER,
		  FALCON_RBY_DEVICE };
enum falcon_rfmt { FALCON_RFMT_TABLE, FALCON_RFMT_CSV, FALCON_RFMT_JSON, FALCON_RFMT_SVG };

/* One group of jobs (a topology, partition or user). */
struct falcon_rgroup {
	char key[64];
	size_t jobs;
	double gpuh_falcon, gpuh_local; /* sum of count x elapsed / 3600 */
	uint32_t elapsed_median, elapsed_p90; /* s, nearest rank */
	size_t check[5];                /* by enum falcon_rcheck */
	size_t busbw_jobs;              /* jobs with a busbw */
	double busbw_median;            /* GB/s nearest rank; < 0 = none */
};

/* Relative runtime of one workload on one topology (Fig. 11 of the paper). */
struct falcon_rrel {
	char workload[128];
	char topo[32];
	size_t jobs;
	uint32_t median;                /* s, nearest rank */
	double rel;                     /* median / the baseline's median */
	char baseline[32];              /* the topology it is relative to */
	bool fastest;                   /* baseline = fastest (no localGPUs jobs) */
};

/* One closed or open device history entry of falcond. */
struct falcon_rhist {
	char chassis[64], device[64], host[64], lease[64];
	char check[32];                 /* "" = none recorded */
	char result[128];
	uint32_t job_id;
	long long attached, released;   /* epoch s; released 0 = still attached */
};

/* Per device: jobs served and check failures. */
struct falcon_rdev {
	char chassis[64], device[64];
	size_t entries;                 /* leases */
	size_t jobs;                    /* distinct jobs */
	size_t check_fail;              /* leases whose job's check failed */
	size_t quarantined;             /* leases that ended in quarantine */
	double idle_h;                  /* hours kept warm on a node with no job
					 * (falcond's KeepWarm=: history results
					 * "kept warm; ..."; not counted in
					 * entries) */
};

/*
 * falcon_report_groups - jobs grouped by topology (also for
 * FALCON_RBY_DEVICE), partition or user, sorted by key; *out (free()) has
 * *nout groups.  jobs is not changed.  FALCON_ERR_NOMEM.
 */
falcon_err_t falcon_report_groups(const struct falcon_rjob *jobs, size_t n, enum falcon_rby by,
				  struct falcon_rgroup **out, size_t *nout);

/*
 * falcon_report_relative - per workload key and topology: the jobs and
 * their median elapsed relative to the median of the workload's localGPUs
 * jobs; a workload without localGPUs jobs is relative to its fastest
 * topology (lowest median; fastest = true).  Jobs with topology "none" or
 * elapsed 0 are left out.  Sorted by workload then topology; *out (free()).
 */
falcon_err_t falcon_report_relative(const struct falcon_rjob *jobs, size_t n,
				    struct falcon_rrel **out, size_t *nout);

/*
 * falcon_report_devices - per chassis device: its history entries, the
 * distinct jobs among them, those whose check failed (the entry's check,
 * else the job's tag among jobs[]) and those closed in quarantine; sorted
 * by chassis then device; *out (free()).
 */
falcon_err_t falcon_report_devices(const struct falcon_rhist *h, size_t nh,
				   const struct falcon_rjob *jobs, size_t n,
				   struct falcon_rdev **out, size_t *nout);

/* A whole report, as the writers take it. */
struct falcon_report {
	time_t start, end;
	enum falcon_rby by;
	size_t njobs;
	const struct falcon_rgroup *groups;
	size_t ngroups;
	const struct falcon_rrel *rel;
	size_t nrel;
	const struct falcon_rdev *devs;  /* by device only */
	size_t ndevs;
	const char *devs_error;          /* why there are none (falcond), NULL */
};

/*
 * falcon_report_write - r to f as fmt (doc/falconctl.1 describes each):
 * table (aligned columns), csv (one header row, a "section" column first),
 * json (one object), svg (bar charts of GPU-hours per group and relative
 * runtime; every text XML-escaped).  FALCON_ERR_IO when a write failed.
 */
falcon_err_t falcon_report_write(FILE *f, const struct falcon_report *r, enum falcon_rfmt fmt);

/* falcon_rby_str / falcon_rfmt_str and their inverses (-1 when unknown). */
const char *falcon_rby_str(enum falcon_rby by);
int falcon_rby_from_str(const char *s);
int falcon_rfmt_from_str(const char *s);

#endif /* FALCON_REPORT_H */
