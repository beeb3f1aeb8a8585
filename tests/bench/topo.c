/*
 * topo.c (tests/bench/topo) - discovery time of a 16-GPU host with 4
 * switches: our discovery (this program's --scan mode, a process linking
 * only lib/pcicfg, lib/pci/topo and libpci/json-c: falcon_topo_scan() plus the
 * JSON on stdout) against `lspci -A linux-sysfs -O sysfs.path=ROOT -t` on
 * the same generated tree, both run as processes in this run, interleaved,
 * REPS times each; prints the medians and their ratio (goal <= 1.0).
 * For information also `falconctl topo --json` (whose start-up loads every
 * library falconctl links: libcurl, munge, ...) and falcon_topo_scan()
 * timed in-process.
 *
 *   tests/bench/topo PCIGEN FALCONCTL [REPS]
 *   tests/bench/topo --scan ROOT
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pci/topo.h"
#include "core/util.h"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Run argv with stdout/stderr to /dev/null; wall time in us, -1 on failure. */
static double run(char *const argv[])
{
	double t0 = now_us();
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		dup2(fd, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return -1;
	return now_us() - t0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* --scan ROOT: one discovery, the JSON to stdout */
static int scan_once(const char *root)
{
	struct falcon_topo *t = NULL;
	json_object *j = NULL;
	int rv = 1;

	if (falcon_topo_scan(root, NULL, 0, &t) != FALCON_OK ||
	    falcon_topo_to_json(t, &j) != FALCON_OK) {
		fprintf(stderr, "bench-topo: %s\n", falcon_errmsg());
		goto out;
	}
	puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
	rv = 0;
out:
	json_object_put(j);
	falcon_topo_free(t);
	return rv;
}

int main(int argc, char **argv)
{
	char root[] = "/tmp/falcon-bench-topo-XXXXXX";
	char opt[128], cmd[512];
	double *ours = NULL, *lspci = NULL, *inproc = NULL, *ctl = NULL;
	struct falcon_topo *t = NULL;
	long reps = 51;
	int i, rv = 1;

	if (argc == 3 && !strcmp(argv[1], "--scan"))
		return scan_once(argv[2]);
	if (argc < 3 || (argc > 3 && falcon_strtol(argv[3], 10, 1, 100000, &reps) != FALCON_OK)) {
		fprintf(stderr, "usage: %s PCIGEN FALCONCTL [REPS]\n", argv[0]);
		return 2;
	}
	if (mkdtemp(root) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(opt, sizeof(opt), "sysfs.path=%s/bus/pci", root);
	ours = calloc((size_t)reps, sizeof(double));
	lspci = calloc((size_t)reps, sizeof(double));
	inproc = calloc((size_t)reps, sizeof(double));
	ctl = calloc((size_t)reps, sizeof(double));
	if (ours == NULL || lspci == NULL || inproc == NULL || ctl == NULL)
		goto out;
	{
		char *gen[] = { argv[1], "bench", root, NULL };
		char *a[] = { argv[0], "--scan", root, NULL };
		char *b[] = { "lspci", "-A", "linux-sysfs", "-O", opt, "-t", NULL };
		char *c[] = { argv[2], "topo", "--sysfs-root", root, "--config", "/dev/null",
			      "--host", "bench", "--json", NULL };

		if (run(gen) < 0) {
			fprintf(stderr, "bench-topo: %s bench %s failed\n", argv[1], root);
			goto out;
		}
		/* warm the page cache, check all three work and what we find */
		if (run(a) < 0 || run(b) < 0 || run(c) < 0 ||
		    falcon_topo_scan(root, NULL, 0, &t) != FALCON_OK || t->ngpus != 16) {
			fprintf(stderr, "bench-topo: warm-up failed (%s)\n", falcon_errmsg());
			goto out;
		}
		printf("bench-topo: tree %s: %zu functions, %zu GPUs behind 4 switches\n",
		       root, t->ndevs, t->ngpus);
		falcon_topo_free(t);
		t = NULL;
		for (i = 0; i < reps; i++) {
			double t0;

			ours[i] = run(a);
			lspci[i] = run(b);
			ctl[i] = run(c);
			t0 = now_us();
			if (falcon_topo_scan(root, NULL, 0, &t) != FALCON_OK)
				goto out;
			inproc[i] = now_us() - t0;
			falcon_topo_free(t);
			t = NULL;
			if (ours[i] < 0 || lspci[i] < 0 || ctl[i] < 0)
				goto out;
		}
	}
	{
		double mo = median(ours, (int)reps), ml = median(lspci, (int)reps);
		double mi = median(inproc, (int)reps), mc = median(ctl, (int)reps);

		printf("bench-topo: %ld runs each, medians: discovery process %.0f us, "
		       "lspci -t %.0f us\n", reps, mo, ml);
		printf("bench-topo: for information: falconctl topo --json %.0f us "
		       "(ratio %.2f), falcon_topo_scan() in-process %.0f us\n", mc, mc / ml, mi);
		printf("bench-topo: ratio discovery/lspci = %.2f (goal <= 1.0)\n", mo / ml);
	}
	rv = 0;
out:
	falcon_topo_free(t);
	free(ours);
	free(lspci);
	free(inproc);
	free(ctl);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "bench-topo: cannot remove %s\n", root);
	return rv;
}
