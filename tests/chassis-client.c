/*
 * chassis-client.c - drive the chassis client library from shell tests and
 * the benchmark (not installed).
 *
 *   chassis-client --url URL [--backend B] [--credentials F] [--timeout S]
 *                  [--change-timeout S] [--retries N] [--task-timeout S]
 *                  [-v] COMMAND
 *     attach PORT DEV | detach PORT DEV | verify PORT DEV attached|detached
 *     owner DEV            the device's owner from the inventory ("-" if free)
 *     bench N              N attach+detach round trips (PORT H1, DEV
 *                          drawer1_slot1), then N GETs of the service root;
 *                          prints both rates and their ratio
 *     composes N PORT DEV...  N composes on one client as falcond makes
 *                          them (inventory, attach_set, verify each,
 *                          detach_set); prints "composes N in MS ms"
 *   [--cacert FILE] [--insecure] [--basic-auth] for https chassis
 *
 * Prints "ok" or "error NAME: DETAIL" (NAME from falcon_err_name()) and
 * exits 0 / 1 (2: usage).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chassis/chassis.h"
#include "core/log.h"
#include "chassis/redfish.h"
#include "core/util.h"

static int result(falcon_err_t rv)
{
	if (rv == FALCON_OK) {
		printf("ok\n");
		return 0;
	}
	printf("error %s: %s\n", falcon_err_name(rv), falcon_errmsg());
	return 1;
}

/* N round trips and N service-root GETs; the ratio is the cost of one round
 * trip in plain GETs (each round trip is 6 requests: read, change, read
 * back, twice). */
static int bench(struct falcon_chassis *ch, const struct falcon_chassis_opts *o, long n)
{
	struct falcon_rf_opts ro = { .url = o->url, .credentials_file = o->credentials_file,
				     .timeout_ms = o->timeout_s * 1000 };
	struct falcon_rf *rf = NULL;
	struct falcon_rf_resp resp;
	long long t0, t1, t2, t3;
	double rt, gets;
	long i;
	falcon_err_t rv = FALCON_OK;

	t0 = falcon_now_ms();
	for (i = 0; i < n && rv == FALCON_OK; i++) {
		rv = falcon_chassis_attach(ch, "H1", "drawer1_slot1");
		if (rv == FALCON_OK)
			rv = falcon_chassis_detach(ch, "H1", "drawer1_slot1");
	}
	t1 = falcon_now_ms();
	if (rv != FALCON_OK)
		return result(rv);
	rv = falcon_rf_open(&ro, &rf);
	if (rv != FALCON_OK)
		return result(rv);
	t2 = falcon_now_ms();
	for (i = 0; i < n && rv == FALCON_OK; i++) {
		rv = falcon_rf_request(rf, "GET", FALCON_RF_ROOT, NULL, NULL, &resp);
		falcon_rf_resp_free(&resp);
	}
	t3 = falcon_now_ms();
	falcon_rf_close(rf);
	if (rv != FALCON_OK)
		return result(rv);
	rt = (double)n * 1000.0 / (double)(t1 - t0 > 0 ? t1 - t0 : 1);
	gets = (double)n * 1000.0 / (double)(t3 - t2 > 0 ? t3 - t2 : 1);
	printf("%s: %ld attach+detach round trips in %lld ms: %.1f/s\n",
	       falcon_chassis_backend_name(ch), n, t1 - t0, rt);
	printf("%s: %ld GET %s in %lld ms: %.1f/s\n", falcon_chassis_backend_name(ch), n,
	       FALCON_RF_ROOT, t3 - t2, gets);
	printf("%s: ratio GETs/round trips = %.2f\n", falcon_chassis_backend_name(ch),
	       gets / rt);
	return 0;
}

/* composes - n composes and releases of devs[nd] on port, one client. */
static int composes(struct falcon_chassis *ch, long n, const char *port, const char **devs,
		    size_t nd)
{
	struct falcon_inventory inv;
	long long t0 = falcon_now_ms();
	falcon_err_t rv = FALCON_OK;
	long i;
	size_t k;

	for (i = 0; i < n && rv == FALCON_OK; i++) {
		memset(&inv, 0, sizeof(inv));
		rv = falcon_chassis_inventory(ch, &inv);
		falcon_inventory_free(&inv);
		if (rv == FALCON_OK)
			rv = falcon_chassis_attach_set(ch, port, devs, nd);
		for (k = 0; k < nd && rv == FALCON_OK; k++)
			rv = falcon_chassis_verify(ch, port, devs[k], true);
		if (rv == FALCON_OK)
			rv = falcon_chassis_detach_set(ch, port, devs, nd);
	}
	if (rv != FALCON_OK)
		return result(rv);
	printf("composes %ld in %lld ms\n", n, falcon_now_ms() - t0);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "url", required_argument, NULL, 'u' },
		{ "backend", required_argument, NULL, 'b' },
		{ "credentials", required_argument, NULL, 'C' },
		{ "timeout", required_argument, NULL, 't' },
		{ "change-timeout", required_argument, NULL, 'c' },
		{ "retries", required_argument, NULL, 'r' },
		{ "task-timeout", required_argument, NULL, 'T' },
		{ "cacert", required_argument, NULL, 'A' },
		{ "insecure", no_argument, NULL, 'k' },
		{ "basic-auth", no_argument, NULL, 'B' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct falcon_chassis_opts o = { .backend = FALCON_BACKEND_FABRIC, .timeout_s = 10,
					 .fabric = "/redfish/v1/Fabrics/PCIe" };
	struct falcon_chassis *ch = NULL;
	falcon_log_level_t level = FALCON_LOG_WARN;
	const char *cmd;
	falcon_err_t rv;
	long v;
	int c, rc = 2;

	falcon_log_init("chassis-client");
	while ((c = getopt_long(argc, argv, "v", longopts, NULL)) != -1) {
		switch (c) {
		case 'u': o.url = optarg; break;
		case 'b':
			if (falcon_backend_from_str(optarg, &o.backend) != FALCON_OK) {
				fprintf(stderr, "chassis-client: %s\n", falcon_errmsg());
				return 2;
			}
			break;
		case 'C': o.credentials_file = optarg; break;
		case 't':
			if (falcon_strtol(optarg, 10, 1, 600, &v) != FALCON_OK)
				return 2;
			o.timeout_s = (int)v;
			break;
		case 'c':
			if (falcon_strtol(optarg, 10, 1, 3600, &v) != FALCON_OK)
				return 2;
			o.change_timeout_s = (int)v;
			break;
		case 'r':
			if (falcon_strtol(optarg, 10, -1, 100, &v) != FALCON_OK)
				return 2;
			o.retries = (int)v;
			break;
		case 'T':
			if (falcon_strtol(optarg, 10, 1, 600, &v) != FALCON_OK)
				return 2;
			o.task_timeout_s = (int)v;
			break;
		case 'A': o.ca_file = optarg; break;
		case 'k': o.insecure = true; break;
		case 'B': o.basic_auth = true; break;
		case 'v': level = FALCON_LOG_VERBOSE; break;
		default: return 2;
		}
	}
	falcon_log_add_sink(falcon_log_sink_stderr, level, NULL);
	if (o.url == NULL || optind >= argc) {
		fprintf(stderr, "usage: chassis-client --url URL [--backend B] COMMAND ...\n");
		return 2;
	}
	cmd = argv[optind++];
	rv = falcon_chassis_open_opts(&o, &ch);
	if (rv != FALCON_OK)
		return result(rv);
	if (!strcmp(cmd, "composes") && argc - optind >= 3 &&
	    falcon_strtol(argv[optind], 10, 1, 1000000, &v) == FALCON_OK) {
		rc = composes(ch, v, argv[optind + 1], (const char **)argv + optind + 2,
			      (size_t)(argc - optind - 2));
	} else if (!strcmp(cmd, "attach") && argc - optind == 2) {
		rc = result(falcon_chassis_attach(ch, argv[optind], argv[optind + 1]));
	} else if (!strcmp(cmd, "detach") && argc - optind == 2) {
		rc = result(falcon_chassis_detach(ch, argv[optind], argv[optind + 1]));
	} else if (!strcmp(cmd, "verify") && argc - optind == 3) {
		rc = result(falcon_chassis_verify(ch, argv[optind], argv[optind + 1],
						  !strcmp(argv[optind + 2], "attached")));
	} else if (!strcmp(cmd, "owner") && argc - optind == 1) {
		struct falcon_inventory inv;
		size_t i;

		rv = falcon_chassis_inventory(ch, &inv);
		rc = 1;
		if (rv != FALCON_OK)
			rc = result(rv);
		for (i = 0; rv == FALCON_OK && i < inv.n; i++)
			if (!strcmp(inv.devs[i].id, argv[optind])) {
				printf("%s\n", inv.devs[i].owner[0] ? inv.devs[i].owner : "-");
				rc = 0;
			}
		falcon_inventory_free(&inv);
	} else if (!strcmp(cmd, "bench") && argc - optind == 1 &&
		   falcon_strtol(argv[optind], 10, 1, 1000000, &v) == FALCON_OK) {
		rc = bench(ch, &o, v);
	} else {
		fprintf(stderr, "chassis-client: bad command '%s'\n", cmd);
		rc = 2;
	}
	falcon_chassis_close(ch);
	return rc;
}
