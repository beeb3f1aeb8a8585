/*
 * replay_fleet.h - bench_replay's fleet mode (replay_fleet.c, issue 41).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_REPLAY_FLEET_H
#define FALCON_REPLAY_FLEET_H

#include <stddef.h>
#include <stdio.h>

/* One placement's figures over one trace. */
struct falcon_replay_fleet_result {
	double utilization;          /* GPU-seconds of the jobs / (fleet GPUs x makespan), 0..1 */
	double wait_p50, wait_p95;   /* s, submit to start */
	double makespan;             /* s, first submit (t = 0) to the last end */
	size_t place_refused;        /* jobs the licenses alone would have started when
				      * falcond's placement had no room for them */
	double size_p50[5];          /* s, wait p50 of the jobs asking 1, 2, 4, 8 and 16
				      * GPUs in all (FALCON_REPLAY_SIZES); -1 when none */
};

/* the job sizes (GPUs in all) size_p50 is given for */
#define FALCON_REPLAY_SIZES { 1, 2, 4, 8, 16 }

/*
 * falcon_replay_fleet - replay a seeded trace of njobs falcon_gpu jobs at
 * each offered load loads[0..nloads) (a fraction of the fleet's GPUs)
 * through nchassis chassis cabled to nodes nodes, placed per chassis, by
 * job_submit_falcon's falcon_fleet_place(), and in one ideal pool; print
 * a table and each load's ratios to out.  Returns 0, 2 for bad arguments
 * (said on stderr), -1 on a placement error or out of memory.
 */
int falcon_replay_fleet(size_t nodes, size_t nchassis, size_t njobs, const double *loads,
			size_t nloads, unsigned long long seed, FILE *out);

/* falcon_replay_urand - the next of *state's uniform draws in [0, 1):
 * xorshift64* (Vigna, "An experimental exploration of Marsaglia's xorshift
 * generators, scrambled", 2016), so that a seed gives the same trace on
 * every machine; *state must not be 0. */
double falcon_replay_urand(unsigned long long *state);

#endif /* FALCON_REPLAY_FLEET_H */
