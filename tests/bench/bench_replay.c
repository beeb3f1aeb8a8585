/*
 * bench_replay.c - the replay bench of --falcon-topology=auto (issue 31):
 * one job trace replayed three times through the same small cluster model,
 * every job asking for local GPUs (always-local), for chassis GPUs
 * (always-falcon), or decided at submit by falcon_advise_auto(), the very
 * rule job_submit_falcon applies, from the trace's history and what is
 * free at that moment (auto); printed side by side: jobs, mean and p95
 * completion (submit to end), mean wait, GPU-hours, makespan, and each
 * policy's ratio to always-local.
 *
 * The model: NODES nodes of 8 local GPUs and 8 falcon_gpu slots each, one
 * chassis pool of POOL GPUs shared by all of them; a job runs on one node,
 * its runtime its workload's base time x the workload's relative runtime
 * on the topology it got (localGPUs 1.00; the trace's history); jobs are
 * started first come first served with greedy backfill (any queued job
 * that fits starts; no reservation), as Slurm's main scheduler does
 * between backfill passes.  A discrete-event simulation: no Slurm, no
 * clock; the same seed gives the same figures.
 *
 * usage: bench_replay [JOBS [SEED]]   (default 400 jobs, seed 1)
 *        bench_replay --fleet [NODES [CHASSIS [JOBS [SEED]]]]
 *                     the fleet mode (replay_fleet.c; default 1000 nodes,
 *                     128 chassis, 20000 jobs at loads 0.70, 0.85, 0.95)
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise/advise.h"
#include "core/util.h"
#include "replay_fleet.h"

#define NODES 4
#define LOCAL_PER_NODE 8
#define SLOTS_PER_NODE 8
#define POOL 16
#define MAX_JOBS 20000
/* mean interarrival: with the sizes and runtimes below a job asks about
 * 9,000 GPU-seconds of local GPUs, so 300 s offers the 32 local GPUs about
 * 0.94 of what they serve */
#define INTERARRIVAL_S 300.0

/* The workloads: relative runtime on falcon GPUs (local = 1.00), as the
 * paper's Fig. 11 spreads them (bandwidth-bound ones suffer most). */
static const struct wl {
	const char *name;
	double falcon_rel;
	double share;
} wls[] = {
	{ "bert-large", 1.97, 0.3 },
	{ "resnet50", 1.08, 0.4 },
	{ "gpt-small", 1.35, 0.3 },
};

enum policy { P_LOCAL, P_FALCON, P_AUTO, NPOLICY };
static const char *const pname[] = { "always-local", "always-falcon", "auto" };

struct job {
	int wl;
	unsigned gpus;
	double submit, base;       /* s; base = runtime on local GPUs */
	/* per run */
	bool falcon;               /* topology chosen: chassis GPUs */
	bool started, done;
	int node;
	double start, end;
};

struct cluster {
	unsigned local_free[NODES], slots_free[NODES], pool_free;
};

static unsigned long long rng_state;
static double urand(void)
{
	return falcon_replay_urand(&rng_state);
}

static void make_trace(struct job *j, size_t n, unsigned long long seed)
{
	static const unsigned sizes[] = { 1, 2, 4, 8 };
	static const double size_p[] = { 0.2, 0.3, 0.35, 0.15 };
	double t = 0;
	size_t i, k;

	rng_state = seed * 0x9E3779B97F4A7C15ULL + 1;
	for (i = 0; i < n; i++) {
		double u = urand(), acc = 0;

		memset(&j[i], 0, sizeof(j[i]));
		for (k = 0; k < ARRAY_SIZE(wls) - 1 && u > (acc += wls[k].share); k++)
			;
		j[i].wl = (int)k;
		u = urand();
		acc = 0;
		for (k = 0; k < ARRAY_SIZE(sizes) - 1 && u > (acc += size_p[k]); k++)
			;
		j[i].gpus = sizes[k];
		/* runtimes 10 min to 2 h, log-uniform */
		j[i].base = 600.0 * exp(urand() * log(12.0));
		/* arrivals: a busy site, Poisson; the offered load is printed */
		t += -log(1.0 - urand()) * INTERARRIVAL_S;
		j[i].submit = t;
	}
}

static double runtime(const struct job *j)
{
	return j->base * (j->falcon ? wls[j->wl].falcon_rel : 1.0);
}

/* fits - the node job j can start on now (-1 none). */
static int fits(const struct cluster *c, const struct job *j)
{
	int i;

	for (i = 0; i < NODES; i++)
		if (j->falcon ? c->slots_free[i] >= j->gpus && c->pool_free >= j->gpus
			      : c->local_free[i] >= j->gpus)
			return i;
	return -1;
}

static void take(struct cluster *c, const struct job *j, int sign)
{
	if (j->falcon) {
		c->slots_free[j->node] = (unsigned)((int)c->slots_free[j->node] - sign * (int)j->gpus);
		c->pool_free = (unsigned)((int)c->pool_free - sign * (int)j->gpus);
	} else {
		c->local_free[j->node] = (unsigned)((int)c->local_free[j->node] - sign * (int)j->gpus);
	}
}

/* decide - auto's choice for j at its submit: falcon_advise_auto() over the
 * history rows and the cluster as it is. */
static bool decide(const struct cluster *c, const struct job *j, const struct falcon_rrel *rel,
		   size_t nrel)
{
	struct falcon_anode nodes[NODES];
	struct falcon_achassis pool = { "c1", POOL, c->pool_free };
	struct falcon_avail av = { nodes, NODES, &pool, 1, true };
	struct falcon_auto out;
	int i;

	for (i = 0; i < NODES; i++) {
		snprintf(nodes[i].name, sizeof(nodes[i].name), "n%d", i + 1);
		nodes[i].gpus = LOCAL_PER_NODE;
		nodes[i].gpus_free = c->local_free[i];
		nodes[i].falcon_gpus = SLOTS_PER_NODE;
		nodes[i].falcon_gpus_free = c->slots_free[i];
	}
	if (falcon_advise_auto(rel, nrel, wls[j->wl].name, &av, j->gpus,
			       FALCON_AUTO_LOCAL | FALCON_AUTO_FALCON, &out) != FALCON_OK)
		return false;
	return strcmp(out.topo, "falconGPUs") == 0;
}

struct result {
	double mean_completion, p95_completion, mean_wait, gpu_hours, makespan;
	size_t falcon_jobs;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void replay(struct job *j, size_t n, enum policy p, const struct falcon_rrel *rel,
		   size_t nrel, struct result *r)
{
	struct cluster c;
	size_t next = 0, done = 0, i;
	double now = 0, *comp = calloc(n, sizeof(double));
	int k;

	for (k = 0; k < NODES; k++) {
		c.local_free[k] = LOCAL_PER_NODE;
		c.slots_free[k] = SLOTS_PER_NODE;
	}
	c.pool_free = POOL;
	for (i = 0; i < n; i++) {
		j[i].started = j[i].done = false;
		j[i].falcon = p == P_FALCON;
	}
	memset(r, 0, sizeof(*r));
	while (done < n) {
		double t_end = INFINITY, t_arr = next < n ? j[next].submit : INFINITY;
		size_t e = n;

		for (i = 0; i < next; i++)
			if (j[i].started && !j[i].done && j[i].end < t_end) {
				t_end = j[i].end;
				e = i;
			}
		if (t_arr <= t_end) {
			now = t_arr;
			if (p == P_AUTO)
				j[next].falcon = decide(&c, &j[next], rel, nrel);
			next++;
		} else {
			now = t_end;
			j[e].done = true;
			take(&c, &j[e], -1);
			done++;
		}
		/* first come first served, greedy backfill */
		for (i = 0; i < next; i++) {
			if (j[i].started || (k = fits(&c, &j[i])) < 0)
				continue;
			j[i].started = true;
			j[i].node = k;
			j[i].start = now;
			j[i].end = now + runtime(&j[i]);
			take(&c, &j[i], 1);
		}
	}
	for (i = 0; i < n; i++) {
		comp[i] = j[i].end - j[i].submit;
		r->mean_completion += comp[i] / (double)n;
		r->mean_wait += (j[i].start - j[i].submit) / (double)n;
		r->gpu_hours += j[i].gpus * runtime(&j[i]) / 3600.0;
		r->falcon_jobs += j[i].falcon;
		if (j[i].end > r->makespan)
			r->makespan = j[i].end;
	}
	qsort(comp, n, sizeof(double), cmp_double);
	r->p95_completion = comp[(size_t)ceil(0.95 * (double)n) - 1];
	free(comp);
}

/* fleet_main - bench_replay --fleet [NODES [CHASSIS [JOBS [SEED]]]] */
static int fleet_main(int argc, char **argv)
{
	static const double loads[] = { 0.7, 0.85, 0.95 };
	size_t nodes = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000;
	size_t nchassis = argc > 3 ? strtoul(argv[3], NULL, 10) : 128;
	size_t njobs = argc > 4 ? strtoul(argv[4], NULL, 10) : 20000;
	unsigned long long seed = argc > 5 ? strtoull(argv[5], NULL, 10) : 1;

	return falcon_replay_fleet(nodes, nchassis, njobs, loads, ARRAY_SIZE(loads), seed, stdout);
}

/* auto_main - bench_replay [JOBS [SEED]]: the --falcon-topology=auto replay */
static int auto_main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 400;
	unsigned long long seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
	struct falcon_rrel rel[2 * ARRAY_SIZE(wls)];
	struct result r[NPOLICY];
	struct job *j;
	size_t i, nrel = 0;
	double load = 0;
	int p;

	if (n < 1 || n > MAX_JOBS) {
		fprintf(stderr, "bench_replay: JOBS: 1..%d\n", MAX_JOBS);
		return 2;
	}
	/* the history auto reads: 10 jobs of each workload on each topology */
	memset(rel, 0, sizeof(rel));
	for (i = 0; i < ARRAY_SIZE(wls); i++) {
		struct falcon_rrel *l = &rel[nrel++], *f = &rel[nrel++];

		falcon_strlcpy(l->workload, wls[i].name, sizeof(l->workload));
		falcon_strlcpy(l->topo, "localGPUs", sizeof(l->topo));
		falcon_strlcpy(l->baseline, "localGPUs", sizeof(l->baseline));
		l->jobs = 10;
		l->median = 1000;
		l->rel = 1.0;
		*f = *l;
		falcon_strlcpy(f->topo, "falconGPUs", sizeof(f->topo));
		f->median = (uint32_t)(1000 * wls[i].falcon_rel);
		f->rel = wls[i].falcon_rel;
	}
	j = calloc(n, sizeof(*j));
	if (j == NULL)
		return 1;
	make_trace(j, n, seed);
	for (i = 0; i < n; i++)
		load += j[i].gpus * j[i].base;
	load /= (double)NODES * LOCAL_PER_NODE * j[n - 1].submit;
	printf("replay: %zu jobs (seed %llu), %d nodes x %d local GPUs + %d falcon_gpu slots, "
	       "one pool of %d chassis GPUs; offered load %.2f of the local GPUs\n", n, seed,
	       NODES, LOCAL_PER_NODE, SLOTS_PER_NODE, POOL, load);
	printf("%-14s %12s %12s %10s %10s %10s %7s %10s\n", "policy", "completion_s", "p95_s",
	       "wait_s", "gpu_hours", "makespan_h", "falcon", "vs_local");
	for (p = 0; p < NPOLICY; p++) {
		replay(j, n, (enum policy)p, rel, nrel, &r[p]);
		printf("%-14s %12.0f %12.0f %10.0f %10.1f %10.1f %7zu %10.2f\n", pname[p],
		       r[p].mean_completion, r[p].p95_completion, r[p].mean_wait, r[p].gpu_hours,
		       r[p].makespan / 3600.0, r[p].falcon_jobs,
		       r[p].mean_completion / r[P_LOCAL].mean_completion);
	}
	printf("replay: auto mean completion %.2fx always-local, %.2fx always-falcon; GPU-hours "
	       "%.2fx always-local\n", r[P_AUTO].mean_completion / r[P_LOCAL].mean_completion,
	       r[P_AUTO].mean_completion / r[P_FALCON].mean_completion,
	       r[P_AUTO].gpu_hours / r[P_LOCAL].gpu_hours);
	free(j);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--fleet") == 0)
		return fleet_main(argc, argv);
	return auto_main(argc, argv);
}
