/*
 * bench_falcond.c - falcond throughput: authenticated compose+decompose
 * pairs per second with N concurrent clients (one falcond client and one
 * thread each), p50/p99 pair latency, next to the raw rate of
 * munge_encode+munge_decode pairs with the same number of threads against
 * the same munged, in the same run; prints the ratio (the floor falcond's
 * authentication puts under it is the munge rate).
 *
 * usage: bench_falcond URL MUNGE_SOCKET SECONDS CLIENTS HOST[,HOST...]
 *        bench_falcond --cycles N --gpus G URL MUNGE_SOCKET CLIENTS HOST[,HOST...]
 *
 * With --cycles, no munge run: each client (one host each, in turn) does N
 * compose(G GPUs)+release cycles; printed: cycles/min, the compose's and
 * the cycle's median and p95 (s), one line "cycles: ..." for the script.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <munge.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/falcond_client.h"
#include "core/util.h"

#define MAX_CLIENTS 256
#define MAX_HOSTS 64
#define MAX_SAMPLES 200000

static const char *url, *sock;
static long seconds, nclients;
static char *hosts[MAX_HOSTS];
static int nhosts;
static long long deadline_ms;
static long cycles, gpus = 1; /* --cycles N: N cycles per client, no time limit */
static double *csamples;      /* compose latencies, ms (--cycles) */
static atomic_long csample_n;
static atomic_long done_ops, failed_ops, sample_n;
static double *samples; /* pair latencies, ms */

static void *munge_worker(void *arg)
{
	munge_ctx_t ctx = munge_ctx_create();
	const char payload[] = "falcon/1 POST /v1/compose "
			       "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

	munge_ctx_set(ctx, MUNGE_OPT_SOCKET, sock);
	while (falcon_now_ms() < deadline_ms) {
		char *cred = NULL;
		void *out = NULL;
		int len = 0;

		if (munge_encode(&cred, ctx, payload, (int)sizeof(payload) - 1) != EMUNGE_SUCCESS ||
		    munge_decode(cred, ctx, &out, &len, NULL, NULL) != EMUNGE_SUCCESS)
			atomic_fetch_add(&failed_ops, 1);
		else
			atomic_fetch_add(&done_ops, 1);
		free(cred);
		free(out);
	}
	munge_ctx_destroy(ctx);
	return NULL;
}

static void *falcond_worker(void *arg)
{
	long id = (long)arg;
	struct falcon_client *cl = NULL;
	struct falcon_compose_req r;
	uint32_t job = (uint32_t)(1000000 + id * 100000);

	if (falcon_client_new(url, sock, 30, &cl) != FALCON_OK)
		return NULL;
	memset(&r, 0, sizeof(r));
	r.gpus = (int)gpus;
	r.uid = -1;
	falcon_strlcpy(r.host, hosts[id % nhosts], sizeof(r.host));
	for (long c = 0; cycles ? c < cycles : falcon_now_ms() < deadline_ms; c++) {
		struct falcon_lease l;
		long long t0 = falcon_now_ms();
		long k;

		r.job_id = ++job;
		if (falcon_client_compose(cl, &r, &l) != FALCON_OK) {
			if (atomic_fetch_add(&failed_ops, 1) < 5) /* the first few, to see why */
				fprintf(stderr, "compose job %u on %s: %s\n", r.job_id, r.host,
					falcon_errmsg());
			continue;
		}
		k = atomic_fetch_add(&csample_n, 1);
		if (csamples != NULL && k < MAX_SAMPLES) /* --cycles only */
			csamples[k] = (double)(falcon_now_ms() - t0);
		if (falcon_client_decompose(cl, r.job_id, NULL) != FALCON_OK) {
			atomic_fetch_add(&failed_ops, 1);
			continue;
		}
		atomic_fetch_add(&done_ops, 1);
		k = atomic_fetch_add(&sample_n, 1);
		if (k < MAX_SAMPLES)
			samples[k] = (double)(falcon_now_ms() - t0);
	}
	falcon_client_free(cl);
	return NULL;
}

static double run(void *(*fn)(void *), long *ok, long *fail)
{
	pthread_t th[MAX_CLIENTS];
	long long t0;
	long i;

	atomic_store(&done_ops, 0);
	atomic_store(&failed_ops, 0);
	t0 = falcon_now_ms();
	deadline_ms = t0 + seconds * 1000;
	for (i = 0; i < nclients; i++)
		pthread_create(&th[i], NULL, fn, (void *)i);
	for (i = 0; i < nclients; i++)
		pthread_join(th[i], NULL);
	*ok = atomic_load(&done_ops);
	*fail = atomic_load(&failed_ops);
	return (double)*ok / ((double)(falcon_now_ms() - t0) / 1000.0);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* pct - the p-th percentile (0-100) of v[n], sorted here; 0 when n is 0. */
static double pct(double *v, long n, int p)
{
	long i;

	if (n <= 0)
		return 0;
	qsort(v, (size_t)n, sizeof(*v), cmp);
	i = (n * p) / 100;
	return v[i < n ? i : n - 1];
}

/* cycle_mode - --cycles: N compose+release cycles per client; returns the
 * exit code. */
static int cycle_mode(void)
{
	long ok, fail, n, cn;
	long long t0 = falcon_now_ms();
	double secs, per_min;

	csamples = calloc(MAX_SAMPLES, sizeof(*csamples));
	if (csamples == NULL)
		return 2;
	run(falcond_worker, &ok, &fail);
	secs = (double)(falcon_now_ms() - t0) / 1000.0;
	per_min = secs > 0 ? ok / secs * 60.0 : 0;
	n = atomic_load(&sample_n);
	cn = atomic_load(&csample_n);
	n = n > MAX_SAMPLES ? MAX_SAMPLES : n;
	cn = cn > MAX_SAMPLES ? MAX_SAMPLES : cn;
	printf("cycles: clients %ld cycles %ld failed %ld in %.1f s: %.1f cycles/min; "
	       "compose p50 %.2f s p95 %.2f s; cycle p50 %.2f s p95 %.2f s\n",
	       nclients, ok, fail, secs, per_min, pct(csamples, cn, 50) / 1000,
	       pct(csamples, cn, 95) / 1000, pct(samples, n, 50) / 1000, pct(samples, n, 95) / 1000);
	free(csamples);
	return ok > 0 && fail == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	double munge_rate, pair_rate, p50 = 0, p99 = 0;
	long mok, mfail, fok, ffail, n;
	char *h, *save = NULL;

	if (argc == 9 && strcmp(argv[1], "--cycles") == 0 && strcmp(argv[3], "--gpus") == 0) {
		if (falcon_strtol(argv[2], 10, 1, 100000, &cycles) != FALCON_OK ||
		    falcon_strtol(argv[4], 10, 1, 16, &gpus) != FALCON_OK ||
		    falcon_strtol(argv[7], 10, 1, MAX_CLIENTS, &nclients) != FALCON_OK)
			return 2;
		url = argv[5];
		sock = argv[6];
		for (h = strtok_r(argv[8], ",", &save); h && nhosts < MAX_HOSTS;
		     h = strtok_r(NULL, ",", &save))
			hosts[nhosts++] = h;
		samples = calloc(MAX_SAMPLES, sizeof(*samples));
		if (nhosts == 0 || samples == NULL)
			return 2;
		n = cycle_mode();
		free(samples);
		return (int)n;
	}
	if (argc != 6 || falcon_strtol(argv[3], 10, 1, 3600, &seconds) != FALCON_OK ||
	    falcon_strtol(argv[4], 10, 1, MAX_CLIENTS, &nclients) != FALCON_OK) {
		fprintf(stderr, "usage: bench_falcond URL MUNGE_SOCKET SECONDS CLIENTS HOST[,HOST...]\n");
		return 2;
	}
	url = argv[1];
	sock = argv[2];
	for (h = strtok_r(argv[5], ",", &save); h && nhosts < MAX_HOSTS; h = strtok_r(NULL, ",", &save))
		hosts[nhosts++] = h;
	samples = calloc(MAX_SAMPLES, sizeof(*samples));
	if (nhosts == 0 || samples == NULL)
		return 2;
	munge_rate = run(munge_worker, &mok, &mfail);
	printf("munge_encode+munge_decode: %ld pairs in %lds with %ld threads: %.0f pairs/s (%ld failed)\n",
	       mok, seconds, nclients, munge_rate, mfail);
	pair_rate = run(falcond_worker, &fok, &ffail);
	n = atomic_load(&sample_n);
	if (n > MAX_SAMPLES)
		n = MAX_SAMPLES;
	if (n > 0) {
		qsort(samples, (size_t)n, sizeof(*samples), cmp);
		p50 = samples[n / 2];
		p99 = samples[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1];
	}
	printf("falcond compose+decompose: %ld pairs in %lds with %ld clients: %.1f pairs/s "
	       "(%ld refused/failed), p50 %.1f ms, p99 %.1f ms\n",
	       fok, seconds, nclients, pair_rate, ffail, p50, p99);
	printf("ratio falcond pairs / munge pairs: %.3f\n", munge_rate > 0 ? pair_rate / munge_rate : 0);
	free(samples);
	return fok > 0 ? 0 : 1;
}
