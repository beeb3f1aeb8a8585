/*
 * replay_fleet.c - bench_replay's fleet mode (issue 41): one seeded trace
 * of falcon_gpu jobs replayed through a fleet of Falcon 4016 chassis three
 * times, the jobs placed
 *   per-chassis  as a site with a partition per chassis does: each job sent
 *                to the next partition in turn (a user cannot know which
 *                has free GPUs; tests/bench/fleet's "before" run);
 *   fleet        as job_submit_falcon does with one partition over every
 *                cabled node: falcon_fleet_place() (lib/core/fleet.c), the
 *                very function the plugin calls, pins the job at submit to
 *                a chassis whose free pool holds it, else splits it, else
 *                pins it where the backlog is least;
 *   fleet-aware  a what-if, not the product: the same, with "free now"
 *                also asking falcond's placement (as if the licenses
 *                counted only GPUs a new host can get: falcond holding the
 *                free ones in drawer halves other hosts own, as it holds a
 *                quarantined device); what that change would be worth;
 *   ideal        one pool of every chassis GPU reachable from every node:
 *                no cabling, no drawer limits (the bound no placement
 *                beats);
 * and printed side by side: utilization, wait p50/p95 and makespan, and the
 * fleet's ratios to the other two.
 *
 * The model: CHASSIS chassis of 2 drawers x 8 GPU slots (16 GPUs) and 4
 * host ports; a row cables min(4, NODES / CHASSIS) nodes to each chassis,
 * one port each (1,000 nodes and 128 chassis: 512 cabled; the others have
 * local GPUs only and take no falcon_gpu job).  A job asks NODES_J nodes of
 * one chassis part, each with G falcon_gpu.  It starts when its chassis
 * licenses (<C>_gpu, as Slurm counts them) are free and falcond's placement
 * finds G GPUs for each of its nodes: falcond_place() (falcond/place.c,
 * falcond's own code) in the shipped ChassisMode=standard (a drawer half
 * belongs to one host) and Placement=pack.  "place_refused" counts the jobs
 * that the licenses alone would have started at least once while placement
 * had no room for them (free GPUs in drawer halves other hosts hold): in
 * production Slurm starts such a job, falcond answers NORESOURCE, and
 * falcon-prolog waits up to ComposeWait and then requeues it (pool_short);
 * here it waits in the queue instead, for a release on its chassis.
 * Scheduling: first come first served with greedy backfill, as
 * Slurm's main scheduler between backfill passes (bench_replay.c).
 * falcond's re-pin of pending jobs (falcond/balance.c, run after each
 * reconcile) is not modelled: its rule is a pass over libslurm's job and
 * license lists, not callable without Slurm; the fleet figures are without
 * it, so its waits are an upper bound.
 *
 * A discrete-event simulation: no Slurm, no clock; the same seed gives the
 * same figures on every machine.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fleet.h"
#include "core/log.h"
#include "core/submit.h"
#include "core/util.h"
#include "falcond/place.h"
#include "replay_fleet.h"

#define FL_PORTS 4                   /* host ports of a Falcon 4016 */
#define FL_DRAWERS 2
#define FL_SLOTS 8                   /* GPU slots per drawer */
#define FL_GPUS (FL_DRAWERS * FL_SLOTS)
#define FL_MAX_CHASSIS 1024
#define FL_MAX_JOB_GPUS (FL_PORTS * FL_GPUS)

enum fl_policy { FL_PART, FL_FLEET, FL_AWARE, FL_IDEAL, FL_NPOLICY };
static const char *const fl_name[] = { "per-chassis", "fleet", "fleet-aware", "ideal" };

struct fl_job {
	unsigned nodes, gpus;        /* nodes, falcon_gpu per node */
	double submit, run;          /* s */
	/* per replay */
	struct falcon_fleet_pick pick;
	bool started, refused;
	double start, end;
	unsigned long tried;         /* event count of its last failed try */
	size_t nheld;
	struct { size_t chassis, slot; } held[FL_MAX_JOB_GPUS];
};

struct fl_chassis {
	struct falcon_device dev[FL_GPUS];
	struct falcond_slot slot[FL_GPUS];
	char host[FL_PORTS][16];
	long lic_free;               /* its <C>_gpu licenses free */
	long claims;                 /* GPUs the jobs pinned here and pending ask */
	unsigned long changed;       /* event count of its last release */
};

struct fl_fleet {
	size_t nchassis;
	unsigned hpc;                /* cabled hosts per chassis */
	struct fl_chassis *c;
	long pool_free;              /* ideal: every GPU in one pool */
	unsigned long events;
	/* fleet-aware: the job being placed (fl_fits asks placement too) */
	struct fl_job *placing;
};

static unsigned long long fl_rng;
static double fl_urand(void)
{
	return falcon_replay_urand(&fl_rng);
}

static unsigned fl_draw(const unsigned *v, const double *p, size_t n)
{
	double u = fl_urand(), acc = 0;
	size_t k;

	for (k = 0; k < n - 1 && u > (acc += p[k]); k++)
		;
	return v[k];
}

/* fl_trace - n jobs offering load of the fleet's GPUs: sizes 1, 2, 4, 8
 * GPUs per node, 1, 2 or 4 nodes (at most hpc, and at most a chassis' 16
 * GPUs in all), runtimes 10 min to 2 h log-uniform, Poisson arrivals. */
static void fl_trace(struct fl_job *j, size_t n, unsigned hpc, size_t nchassis, double load,
		     unsigned long long seed)
{
	static const unsigned gpus[] = { 1, 2, 4, 8 }, nodes[] = { 1, 2, 4 };
	static const double gpus_p[] = { 0.2, 0.3, 0.35, 0.15 }, nodes_p[] = { 0.75, 0.2, 0.05 };
	double work = 0, t = 0, mean;
	size_t i;

	fl_rng = seed * 0x9E3779B97F4A7C15ULL + 7;
	for (i = 0; i < n; i++) {
		memset(&j[i], 0, sizeof(j[i]));
		j[i].gpus = fl_draw(gpus, gpus_p, ARRAY_SIZE(gpus));
		j[i].nodes = fl_draw(nodes, nodes_p, ARRAY_SIZE(nodes));
		if (j[i].nodes > hpc)
			j[i].nodes = hpc;
		/* what job_submit refuses (more than a chassis has) is not sent */
		while (j[i].nodes * j[i].gpus > FL_GPUS)
			j[i].nodes /= 2;
		j[i].run = 600.0 * exp(fl_urand() * log(12.0));
		work += (double)(j[i].nodes * j[i].gpus) * j[i].run;
	}
	/* mean interarrival for the offered load: work per job over the GPUs
	 * times the load */
	mean = work / (double)n / ((double)nchassis * FL_GPUS * load);
	for (i = 0; i < n; i++) {
		t += -log(1.0 - fl_urand()) * mean;
		j[i].submit = t;
	}
}

static void fl_reset(struct fl_fleet *f)
{
	size_t c, i;

	for (c = 0; c < f->nchassis; c++) {
		struct fl_chassis *ch = &f->c[c];

		memset(ch, 0, sizeof(*ch));
		for (i = 0; i < FL_GPUS; i++) {
			struct falcon_device *d = &ch->dev[i];

			d->drawer = (int)(i / FL_SLOTS) + 1;
			d->slot = (int)(i % FL_SLOTS) + 1;
			d->type = FALCON_DEV_GPU;
			snprintf(d->id, sizeof(d->id), "drawer%d_slot%d", d->drawer, d->slot);
			falcon_strlcpy(d->state, "Enabled", sizeof(d->state));
			falcon_strlcpy(d->health, "OK", sizeof(d->health));
			ch->slot[i].dev = d;
		}
		for (i = 0; i < f->hpc; i++)
			snprintf(ch->host[i], sizeof(ch->host[i]), "n%zu", c * f->hpc + i + 1);
		ch->lic_free = FL_GPUS;
	}
	f->pool_free = (long)f->nchassis * FL_GPUS;
	f->events = 0;
}

static bool fl_place_part(struct fl_fleet *f, struct fl_job *j, size_t c, unsigned k,
			  unsigned g);
static void fl_unhold(struct fl_fleet *f, struct fl_job *j);

/* the callbacks of falcon_fleet_place(): licenses as slurmctld counts them;
 * fleet-aware (f->placing set) also asks whether falcond could place them
 * now, as if the licenses counted placeable GPUs */
static bool fl_fits(size_t chassis, long gpus, long nvme, bool ever, void *arg)
{
	struct fl_fleet *f = arg;
	struct falcon_pool_count g = { FL_GPUS, f->c[chassis].lic_free, f->c[chassis].claims };
	struct fl_job *j = f->placing;
	bool ok;

	/* job_submit_falcon's own test (lib/core/submit.c fleet_fits) */
	if (nvme != 0 || !falcon_pool_fits(&g, gpus, !ever))
		return false;
	if (ever || j == NULL)
		return true;
	ok = fl_place_part(f, j, chassis, (unsigned)(gpus / (long)j->gpus), j->gpus);
	fl_unhold(f, j);
	return ok;
}

static long fl_backlog(size_t chassis, void *arg)
{
	const struct fl_fleet *f = arg;

	return f->c[chassis].claims - f->c[chassis].lic_free;
}

/* fl_pin - where the job waits under policy p (ideal: nowhere) */
static int fl_pin(struct fl_fleet *f, struct fl_job *j, size_t idx, enum fl_policy p)
{
	static struct falcon_fleet_cand cand[FL_MAX_CHASSIS];
	size_t c;

	memset(&j->pick, 0, sizeof(j->pick));
	if (p == FL_PART) {
		j->pick.n = 1;
		j->pick.chassis[0] = idx % f->nchassis;
		j->pick.nodes[0] = j->nodes;
	} else if (p == FL_FLEET || p == FL_AWARE) {
		for (c = 0; c < f->nchassis; c++) {
			cand[c].chassis = c;
			cand[c].nhosts = f->hpc;
		}
		f->placing = p == FL_AWARE ? j : NULL;
		j->nheld = 0;
		if (falcon_fleet_place(cand, f->nchassis, j->nodes, (int)j->gpus, 0, fl_fits,
				       fl_backlog, f, &j->pick) != FALCON_OK)
			return -1;
		f->placing = NULL;
	}
	for (c = 0; c < j->pick.n; c++)
		f->c[j->pick.chassis[c]].claims += (long)(j->pick.nodes[c] * j->gpus);
	return 0;
}

static void fl_unhold(struct fl_fleet *f, struct fl_job *j)
{
	while (j->nheld > 0) {
		j->nheld--;
		f->c[j->held[j->nheld].chassis].slot[j->held[j->nheld].slot].holder = NULL;
	}
}

/* fl_place_part - k nodes of chassis c with g GPUs each, by falcond_place()
 * host after host; the slots taken are recorded in j->held */
static bool fl_place_part(struct fl_fleet *f, struct fl_job *j, size_t c, unsigned k, unsigned g)
{
	struct fl_chassis *ch = &f->c[c];
	size_t picks[FALCON_PROTO_MAX_DEVS], i;
	unsigned h, got = 0;

	for (h = 0; h < f->hpc && got < k; h++) {
		if (falcond_place(ch->slot, FL_GPUS, ch->host[h], FALCON_MODE_STANDARD,
				  FALCON_PLACE_PACK, (int)g, 0, picks) != FALCON_OK)
			continue;
		for (i = 0; i < g; i++) {
			ch->slot[picks[i]].holder = ch->host[h];
			j->held[j->nheld].chassis = c;
			j->held[j->nheld++].slot = picks[i];
		}
		got++;
	}
	return got == k;
}

/* fl_try - start j now if it fits; false leaves nothing taken */
static bool fl_try(struct fl_fleet *f, struct fl_job *j, enum fl_policy p)
{
	long want = (long)(j->nodes * j->gpus);
	size_t i;

	if (p == FL_IDEAL) {
		if (f->pool_free < want)
			return false;
		f->pool_free -= want;
		return true;
	}
	for (i = 0; i < j->pick.n; i++)
		if (f->c[j->pick.chassis[i]].lic_free < (long)(j->pick.nodes[i] * j->gpus))
			return false;
	j->nheld = 0;
	for (i = 0; i < j->pick.n; i++)
		if (!fl_place_part(f, j, j->pick.chassis[i], j->pick.nodes[i], j->gpus)) {
			fl_unhold(f, j);
			j->refused = true;
			return false;
		}
	for (i = 0; i < j->pick.n; i++) {
		struct fl_chassis *ch = &f->c[j->pick.chassis[i]];
		long part = (long)(j->pick.nodes[i] * j->gpus);

		ch->lic_free -= part;
		ch->claims -= part;
	}
	return true;
}

static void fl_release(struct fl_fleet *f, struct fl_job *j, enum fl_policy p)
{
	size_t i;

	if (p == FL_IDEAL) {
		f->pool_free += (long)(j->nodes * j->gpus);
		f->c[0].changed = f->events;
		return;
	}
	fl_unhold(f, j);
	for (i = 0; i < j->pick.n; i++) {
		f->c[j->pick.chassis[i]].lic_free += (long)(j->pick.nodes[i] * j->gpus);
		f->c[j->pick.chassis[i]].changed = f->events;
	}
}

/* fl_stale - has nothing j waits on been released since its last try? */
static bool fl_stale(const struct fl_fleet *f, const struct fl_job *j, enum fl_policy p)
{
	size_t i;

	if (j->tried == 0)
		return false;
	if (p == FL_IDEAL)
		return f->c[0].changed < j->tried;
	for (i = 0; i < j->pick.n; i++)
		if (f->c[j->pick.chassis[i]].changed >= j->tried)
			return false;
	return true;
}

static int fl_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* a min-heap of running jobs by end time */
static void fl_heap_push(struct fl_job **h, size_t *n, struct fl_job *j)
{
	size_t i = (*n)++;

	while (i > 0 && h[(i - 1) / 2]->end > j->end) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = j;
}

static struct fl_job *fl_heap_pop(struct fl_job **h, size_t *n)
{
	struct fl_job *top = h[0], *last = h[--*n];
	size_t i = 0, k;

	while ((k = 2 * i + 1) < *n) {
		if (k + 1 < *n && h[k + 1]->end < h[k]->end)
			k++;
		if (last->end <= h[k]->end)
			break;
		h[i] = h[k];
		i = k;
	}
	if (*n > 0)
		h[i] = last;
	return top;
}

static int fl_replay(struct fl_fleet *f, struct fl_job *j, size_t n, enum fl_policy p,
		     struct falcon_replay_fleet_result *r)
{
	static const unsigned sizes[] = FALCON_REPLAY_SIZES;
	struct fl_job **pend = calloc(n, sizeof(*pend)), **run = calloc(n, sizeof(*run));
	double *wait = calloc(n, sizeof(double)), now = 0, busy = 0;
	size_t next = 0, npend = 0, nrun = 0, i, k;
	int rc = -1;

	if (pend == NULL || run == NULL || wait == NULL)
		goto out;
	fl_reset(f);
	memset(r, 0, sizeof(*r));
	for (i = 0; i < n; i++) {
		j[i].started = j[i].refused = false;
		j[i].tried = 0;
		j[i].nheld = 0;
	}
	while (next < n || npend > 0 || nrun > 0) {
		double t_arr = next < n ? j[next].submit : INFINITY;
		double t_end = nrun > 0 ? run[0]->end : INFINITY;

		f->events++;
		if (next == n && nrun == 0) {
			fprintf(stderr, "bench_replay: fleet: %zu jobs can never start\n", npend);
			goto out;
		}
		if (t_arr <= t_end) {
			now = t_arr;
			if (fl_pin(f, &j[next], next, p) != 0) {
				fprintf(stderr, "bench_replay: fleet: job %zu (%u x %u GPUs): %s\n",
					next, j[next].nodes, j[next].gpus, falcon_errmsg());
				goto out;
			}
			pend[npend++] = &j[next++];
		} else {
			struct fl_job *e = fl_heap_pop(run, &nrun);

			now = t_end;
			fl_release(f, e, p);
		}
		/* first come first served, greedy backfill */
		for (i = 0, k = 0; i < npend; i++) {
			struct fl_job *q = pend[i];

			if (!fl_stale(f, q, p) && fl_try(f, q, p)) {
				q->started = true;
				q->start = now;
				q->end = now + q->run;
				fl_heap_push(run, &nrun, q);
				continue;
			}
			q->tried = f->events;
			pend[k++] = q;
		}
		npend = k;
	}
	for (i = 0; i < n; i++) {
		busy += (double)(j[i].nodes * j[i].gpus) * j[i].run;
		if (j[i].end > r->makespan)
			r->makespan = j[i].end;
		r->place_refused += j[i].refused;
	}
	/* by size: who waits (a placement may trade the small jobs' median
	 * for the large ones' starvation) */
	for (k = 0; k < ARRAY_SIZE(sizes); k++) {
		size_t m = 0;

		for (i = 0; i < n; i++)
			if (j[i].nodes * j[i].gpus == sizes[k])
				wait[m++] = j[i].start - j[i].submit;
		qsort(wait, m, sizeof(double), fl_cmp_double);
		r->size_p50[k] = m > 0 ? wait[(m - 1) / 2] : -1;
	}
	for (i = 0; i < n; i++)
		wait[i] = j[i].start - j[i].submit;
	qsort(wait, n, sizeof(double), fl_cmp_double);
	r->wait_p50 = wait[(n - 1) / 2];
	r->wait_p95 = wait[(size_t)ceil(0.95 * (double)n) - 1];
	r->utilization = busy / ((double)f->nchassis * FL_GPUS * r->makespan);
	rc = 0;
out:
	free(pend);
	free(run);
	free(wait);
	return rc;
}

/* fl_ratio - a / b as "1.23x" into buf ("-" when b is 0 and a is not:
 * no ratio to a zero wait) */
static const char *fl_ratio(char *buf, size_t len, double a, double b)
{
	if (b > 0)
		snprintf(buf, len, "%.2fx", a / b);
	else
		snprintf(buf, len, "%s", a > 0 ? "-" : "1.00x");
	return buf;
}

static void fl_ratios(FILE *out, const char *what, const struct falcon_replay_fleet_result *a,
		      const struct falcon_replay_fleet_result *b)
{
	char u[16], w50[16], w95[16], m[16];

	fprintf(out, " %s: utilization %s, wait p50 %s, p95 %s, makespan %s", what,
		fl_ratio(u, sizeof(u), a->utilization, b->utilization),
		fl_ratio(w50, sizeof(w50), a->wait_p50, b->wait_p50),
		fl_ratio(w95, sizeof(w95), a->wait_p95, b->wait_p95),
		fl_ratio(m, sizeof(m), a->makespan, b->makespan));
}

int falcon_replay_fleet(size_t nodes, size_t nchassis, size_t njobs, const double *loads,
			size_t nloads, unsigned long long seed, FILE *out)
{
	struct falcon_replay_fleet_result r[FL_NPOLICY];
	struct fl_fleet f = { 0 };
	struct fl_job *j = NULL;
	size_t l;
	int p, rc = -1;

	if (nchassis < 1 || nchassis > FL_MAX_CHASSIS || nodes < nchassis || njobs < 1) {
		fprintf(stderr, "bench_replay: --fleet: NODES >= CHASSIS, CHASSIS 1..%d, JOBS >= 1\n",
			FL_MAX_CHASSIS);
		return 2;
	}
	f.nchassis = nchassis;
	f.hpc = (unsigned)(nodes / nchassis < FL_PORTS ? nodes / nchassis : FL_PORTS);
	f.c = calloc(nchassis, sizeof(*f.c));
	j = calloc(njobs, sizeof(*j));
	if (f.c == NULL || j == NULL)
		goto out;
	fprintf(out, "replay fleet: %zu nodes, %zu chassis of %d GPUs (2 drawers x 8), %u nodes "
		"cabled to each (%zu cabled, %zu with local GPUs only); %zu jobs a load "
		"(seed %llu); ChassisMode=standard, Placement=pack\n", nodes, nchassis, FL_GPUS,
		f.hpc, f.hpc * nchassis, nodes - f.hpc * nchassis, njobs, seed);
	fprintf(out, "%-6s %-12s %8s %11s %11s %11s %13s\n", "load", "placement", "util_%",
		"wait_p50_s", "wait_p95_s", "makespan_h", "place_refused");
	for (l = 0; l < nloads; l++) {
		fl_trace(j, njobs, f.hpc, nchassis, loads[l], seed);
		for (p = 0; p < FL_NPOLICY; p++) {
			if (fl_replay(&f, j, njobs, (enum fl_policy)p, &r[p]) != 0)
				goto out;
			fprintf(out, "%-6.2f %-12s %8.1f %11.0f %11.0f %11.1f %13zu\n", loads[l],
				fl_name[p], 100.0 * r[p].utilization, r[p].wait_p50, r[p].wait_p95,
				r[p].makespan / 3600.0, r[p].place_refused);
		}
		fprintf(out, "replay fleet: load %.2f:", loads[l]);
		fl_ratios(out, "fleet / per-chassis", &r[FL_FLEET], &r[FL_PART]);
		fputc(';', out);
		fl_ratios(out, "fleet / ideal", &r[FL_FLEET], &r[FL_IDEAL]);
		fputc(';', out);
		fl_ratios(out, "fleet-aware / per-chassis", &r[FL_AWARE], &r[FL_PART]);
		fputc('\n', out);
		for (p = 0; p < FL_NPOLICY; p++) {
			static const unsigned sizes[] = FALCON_REPLAY_SIZES;
			size_t k;

			fprintf(out, "replay fleet: load %.2f: %s: wait p50 by GPUs a job asks:",
				loads[l], fl_name[p]);
			for (k = 0; k < ARRAY_SIZE(sizes); k++)
				if (r[p].size_p50[k] >= 0)
					fprintf(out, " %u: %.0f s%s", sizes[k], r[p].size_p50[k],
						k + 1 < ARRAY_SIZE(sizes) ? "," : "");
			fputc('\n', out);
		}
	}
	rc = 0;
out:
	free(f.c);
	free(j);
	return rc;
}

double falcon_replay_urand(unsigned long long *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return (double)((*state * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}
