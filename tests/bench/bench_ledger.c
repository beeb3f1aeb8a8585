/*
 * bench_ledger.c - the cost of one ledger commit, alone (no HTTP, no
 * chassis): a ledger the shape bench-falcond leaves (64 leases of one GPU,
 * 64 devices with 16 history entries each), and per commit one lease
 * changed in place and one device's history; the commit written the way
 * falcond 0.1 did ("whole": falcond_ledger_text + falcon_write_file_atomic,
 * temp + fsync + rename + fsync of the directory) and the way it does now
 * ("log": falcond_ledger_save, one record appended + fdatasync, with its
 * compactions).  Prints ms and bytes per commit for each, and the ratio.
 *
 * usage: bench_ledger STATE_DIR [COMMITS]   (STATE_DIR: an empty directory)
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "falcond/ledger.h"
#include "core/util.h"

#define LEASES 64
#define HIST 16

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* fill - LEASES leases of one GPU, each device with HIST closed entries. */
static int fill(struct falcond_ledger *lg)
{
	int i, k;

	for (i = 0; i < LEASES; i++) {
		struct falcon_lease l;

		memset(&l, 0, sizeof(l));
		snprintf(l.id, sizeof(l.id), "L-%d", i + 1);
		l.job_id = (uint32_t)(1000 + i);
		snprintf(l.host, sizeof(l.host), "c%d-n%d", i / 16 + 1, i % 4 + 1);
		snprintf(l.state, sizeof(l.state), "active");
		l.ndevs = 1;
		snprintf(l.devs[0].chassis, sizeof(l.devs[0].chassis), "c%d", i / 16 + 1);
		snprintf(l.devs[0].id, sizeof(l.devs[0].id), "drawer%d_slot%d", i % 16 / 8 + 1,
			 i % 8 + 1);
		snprintf(l.devs[0].port, sizeof(l.devs[0].port), "H%d", i % 4 + 1);
		lg->seq = (unsigned long long)i + 1;
		if (falcond_ledger_add_lease(lg, &l) != FALCON_OK)
			return -1;
		for (k = 0; k < HIST; k++) {
			if (falcond_ledger_record_attach(lg, &l, &l.devs[0]) != FALCON_OK)
				return -1;
			falcond_ledger_record_release(lg, l.id, &l.devs[0], "released");
		}
	}
	return falcond_ledger_compact(lg) == FALCON_OK ? 0 : -1;
}

/* run - n commits the "whole" or the "log" way; ms per commit (-1: failed),
 * *bytes written per commit. */
static double run(const char *dir, bool whole, int n, double *bytes)
{
	struct falcond_ledger *lg = NULL;
	double t0, total = 0;
	int i;

	if (falcond_ledger_load(dir, &lg) != FALCON_OK || fill(lg) != 0)
		goto fail;
	t0 = now_s();
	for (i = 0; i < n; i++) {
		struct falcon_lease *l = &lg->leases[i % LEASES];
		size_t before = lg->log_bytes;

		snprintf(l->state, sizeof(l->state), "%s", i % 2 ? "active" : "closing");
		if (falcond_ledger_record_attach(lg, l, &l->devs[0]) != FALCON_OK)
			goto fail;
		if (whole) {
			char *s = falcond_ledger_text(lg);

			if (s == NULL || falcon_write_file_atomic(lg->path, s, strlen(s), 0600) !=
					 FALCON_OK) {
				free(s);
				goto fail;
			}
			total += (double)strlen(s);
			free(s);
		} else {
			if (falcond_ledger_save(lg) != FALCON_OK)
				goto fail;
			total += (double)(lg->log_bytes > before ? lg->log_bytes - before
								 : lg->snap_bytes);
		}
	}
	*bytes = total / n;
	t0 = (now_s() - t0) * 1000 / n;
	falcond_ledger_free(lg);
	return t0;
fail:
	fprintf(stderr, "bench_ledger: %s\n", falcon_errmsg());
	falcond_ledger_free(lg);
	return -1;
}

int main(int argc, char **argv)
{
	double whole, log, wb = 0, lb = 0;
	char path[4096];
	int n = argc > 2 ? atoi(argv[2]) : 1000;

	if (argc < 2 || n <= 0) {
		fprintf(stderr, "usage: bench_ledger STATE_DIR [COMMITS]\n");
		return 2;
	}
	whole = run(argv[1], true, n, &wb);
	snprintf(path, sizeof(path), "%s/" FALCOND_LEDGER_LOG, argv[1]);
	unlink(path);
	snprintf(path, sizeof(path), "%s/" FALCOND_LEDGER_FILE, argv[1]);
	unlink(path);
	log = run(argv[1], false, n, &lb);
	if (whole < 0 || log < 0)
		return 1;
	printf("ledger commit, whole file (write, fsync, rename, fsync dir): %.3f ms, %.0f bytes\n",
	       whole, wb);
	printf("ledger commit, log record (append, fdatasync):                %.3f ms, %.0f bytes\n",
	       log, lb);
	printf("ratio whole / log: %.1f\n", whole / log);
	return 0;
}
