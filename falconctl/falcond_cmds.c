/*
 * falcond_cmds.c - the falconctl subcommands that talk to falcond:
 * status, attach, detach, reconcile, quarantine, unquarantine.  Each request
 * is signed with munge (lib/api/auth.h) by the falcond client (lib/api/falcond_client.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "falcond_cmds.h"
#include "again.h"
#include "exitcode.h"
#include "slurmconf.h"
#include "core/conf.h"
#include "api/falcond_client.h"
#include "core/log.h"
#include "core/util.h"

struct opts {
	const char *config;
	bool json;
	long job;
	const char *host, *lease, *partition, *reason;
	long gpus, nvme, local_gpus, uid;
	bool place_set;
	falcon_place_t place;
};

/* --config of this run (for the status' slurm.conf check) */
static const char *g_config;

static int exit_for(falcon_err_t e)
{
	switch (e) {
	case FALCON_OK: return FALCONCTL_EXIT_OK;
	case FALCON_ERR_AUTH:
	case FALCON_ERR_PERM: return FALCONCTL_EXIT_PERM;
	case FALCON_ERR_TRANSPORT:
	case FALCON_ERR_TIMEOUT:
	case FALCON_ERR_MUNGE: return FALCONCTL_EXIT_UNREACHABLE;
	case FALCON_ERR_CONFIG:
	case FALCON_ERR_INVAL: return FALCONCTL_EXIT_USAGE;
	default: return FALCONCTL_EXIT_FAIL;
	}
}

static void usage(FILE *f, const char *cmd)
{
	fprintf(f, "usage: falconctl %s [--config FILE] [--json] ", cmd);
	if (!strcmp(cmd, "attach"))
		fprintf(f, "--job N --host NODE [--gpus N] [--nvme N] [--place pack|spread|any]\n"
			   "       [--partition P] [--uid N] [--local-gpus N]\n");
	else if (!strcmp(cmd, "detach"))
		fprintf(f, "(--job N | --lease ID)\n");
	else if (!strcmp(cmd, "quarantine"))
		fprintf(f, "CHASSIS DEVICE [--reason TEXT]\n");
	else if (!strcmp(cmd, "unquarantine"))
		fprintf(f, "CHASSIS DEVICE\n");
	else
		fprintf(f, "\n");
}

/* parse_opts - the options shared by every subcommand; -1 on a usage error. */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "config", required_argument, NULL, 'c' }, { "json", no_argument, NULL, 'j' },
		{ "job", required_argument, NULL, 'J' }, { "host", required_argument, NULL, 'H' },
		{ "lease", required_argument, NULL, 'L' }, { "gpus", required_argument, NULL, 'g' },
		{ "nvme", required_argument, NULL, 'n' }, { "place", required_argument, NULL, 'p' },
		{ "partition", required_argument, NULL, 'P' }, { "uid", required_argument, NULL, 'u' },
		{ "local-gpus", required_argument, NULL, 'l' },
		{ "reason", required_argument, NULL, 'r' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->uid = -1;
	g_config = NULL;
	optind = 1;
	while ((c = getopt_long(argc, argv, "c:jh", lo, NULL)) != -1) {
		falcon_err_t rv = FALCON_OK;

		switch (c) {
		case 'c': o->config = g_config = optarg; break;
		case 'j': o->json = true; break;
		case 'J': rv = falcon_strtol(optarg, 10, 1, UINT32_MAX - 1, &o->job); break;
		case 'H': o->host = optarg; break;
		case 'L': o->lease = optarg; break;
		case 'g': rv = falcon_strtol(optarg, 10, 0, 16, &o->gpus); break;
		case 'n': rv = falcon_strtol(optarg, 10, 0, 16, &o->nvme); break;
		case 'l': rv = falcon_strtol(optarg, 10, 0, 64, &o->local_gpus); break;
		case 'u': rv = falcon_strtol(optarg, 10, 0, UINT32_MAX - 1, &o->uid); break;
		case 'p': rv = falcon_place_from_str(optarg, &o->place); o->place_set = true; break;
		case 'P': o->partition = optarg; break;
		case 'r': o->reason = optarg; break;
		case 'h': usage(stdout, argv[0]); exit(FALCONCTL_EXIT_OK);
		default: usage(stderr, argv[0]); return -1;
		}
		if (rv != FALCON_OK) {
			falcon_error("%s: %s", argv[0], falcon_errmsg());
			return -1;
		}
	}
	return 0;
}


/* The command's budget: its requests and their retries end by then
 * (falcon_now_ms(); set by open_client(), FALCONCTL_BUDGET_S from then). */
static long long budget_end;

/* open_client - falcon.conf (--config, FALCON_CONF, default) -> a client. */
static int open_client(const struct opts *o, struct falcon_client **cl)
{
	struct falcon_conf *conf = NULL;
	falcon_err_t rv;

	rv = falcon_conf_load(falcon_conf_path(o->config), &conf);
	if (rv != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		return FALCONCTL_EXIT_USAGE;
	}
	rv = falcon_client_new(conf->falcond_url, conf->munge_socket, FALCONCTL_BUDGET_S, cl);
	falcon_conf_free(conf);
	budget_end = falcon_now_ms() + FALCONCTL_BUDGET_S * 1000LL;
	if (rv != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		return FALCONCTL_EXIT_USAGE;
	}
	return FALCONCTL_EXIT_OK;
}

static int fail(const char *cmd, falcon_err_t rv)
{
	falcon_error("%s: %s", cmd, falcon_errmsg());
	return exit_for(rv);
}

static const char *js(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || v == NULL)
		return "-";
	return json_object_get_string(v);
}

static void print_json(json_object *o)
{
	printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							     JSON_C_TO_STRING_SPACED));
}

static void print_status(json_object *st)
{
	json_object *a, *j_tmp;
	size_t i, j;

	/* the active falcond: the holder record of StateDir/falcond.lock
	 * (falcond(8), HIGH AVAILABILITY) */
	if (json_object_object_get_ex(st, "holder", &a) && a != NULL) {
		time_t since = (time_t)json_object_get_int64(
			json_object_object_get_ex(a, "since", &j_tmp) ? j_tmp : NULL);
		char when[64] = "-";
		struct tm tm;

		if (since > 0 && localtime_r(&since, &tm) != NULL)
			strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
		printf("ACTIVE %s (host %s, pid %s, since %s)\n\n", js(a, "url"), js(a, "host"),
		       js(a, "pid"), when);
	}
	/* falcon.conf errors falcond saw at start or reload (config_errors) */
	if (json_object_object_get_ex(st, "config_errors", &a) && a != NULL &&
	    json_object_array_length(a) > 0) {
		for (i = 0; i < json_object_array_length(a); i++)
			printf("CONFIGURATION ERROR: %s\n",
			       json_object_get_string(json_object_array_get_idx(a, i)));
		printf("\n");
	}
	printf("%-10s %-16s %-5s %-12s %-10s %-10s %s\n", "CHASSIS", "DEVICE", "TYPE", "STATE",
	       "LEASE", "JOB", "HOST");
	if (json_object_object_get_ex(st, "devices", &a))
		for (i = 0; i < json_object_array_length(a); i++) {
			json_object *d = json_object_array_get_idx(a, i);

			printf("%-10s %-16s %-5s %-12s %-10s %-10s %s\n", js(d, "chassis"), js(d, "id"),
			       js(d, "type"), js(d, "state"), js(d, "lease"), js(d, "job_id"),
			       js(d, "host"));
		}
	printf("\n%-10s %-10s %-12s %-10s %s\n", "LEASE", "JOB", "HOST", "STATE", "DEVICES");
	if (json_object_object_get_ex(st, "leases", &a))
		for (i = 0; i < json_object_array_length(a); i++) {
			json_object *l = json_object_array_get_idx(a, i), *d;
			char devs[512] = "";
			size_t off = 0;

			if (json_object_object_get_ex(l, "devices", &d))
				for (j = 0; j < json_object_array_length(d) && off < sizeof(devs); j++)
					off += (size_t)snprintf(devs + off, sizeof(devs) - off, "%s%s/%s",
							j ? "," : "",
							js(json_object_array_get_idx(d, j), "chassis"),
							js(json_object_array_get_idx(d, j), "id"));
			printf("%-10s %-10s %-12s %-10s %s\n", js(l, "id"), js(l, "job_id"), js(l, "host"),
			       js(l, "state"), devs);
		}
	printf("\n%-10s %-16s %-11s %s\n", "CHASSIS", "QUARANTINED", "CLEARS", "REASON");
	if (json_object_object_get_ex(st, "quarantine", &a))
		for (i = 0; i < json_object_array_length(a); i++) {
			json_object *q = json_object_array_get_idx(a, i), *h;
			/* "heals" (falcond/resv.h): reconcile clears it; else an admin */
			bool heals = json_object_object_get_ex(q, "heals", &h) &&
				     json_object_get_boolean(h);

			printf("%-10s %-16s %-11s %s\n", js(q, "chassis"), js(q, "device"),
			       heals ? "by-itself" : "admin", js(q, "reason"));
		}
}

/* print_reconcile - a reconcile's counts, one "name value" line each. */
static void print_reconcile(json_object *rep)
{
	json_object_object_foreach(rep, k, v)
		printf("%-20s %s\n", k, json_object_get_string(v));
}

/* reconcile_now - falcon_client_reconcile() asking for a re-read of the chassis. */
static falcon_err_t reconcile_now(struct falcon_client *cl, json_object **rep)
{
	return falcon_client_reconcile(cl, true, rep);
}

/*
 * ask_and_print - a subcommand with falcond's common options only: one
 * request (call), its answer printed as JSON (--json) or by print.
 * Returns the exit code.
 */
static int ask_and_print(int argc, char **argv,
			 falcon_err_t (*call)(struct falcon_client *cl, json_object **out),
			 void (*print)(json_object *o))
{
	struct falcon_client *cl = NULL;
	json_object *ans = NULL;
	struct opts o;
	falcon_err_t rv;
	int ec;

	if (parse_opts(argc, argv, &o) != 0 || optind != argc)
		return FALCONCTL_EXIT_USAGE;
	if ((ec = open_client(&o, &cl)) != FALCONCTL_EXIT_OK)
		return ec;
	do
		rv = call(cl, &ans);
	while (falconctl_again(cl, rv, argv[0], budget_end));
	falcon_client_free(cl);
	if (rv != FALCON_OK)
		return fail(argv[0], rv);
	if (o.json)
		print_json(ans);
	else
		print(ans);
	json_object_put(ans);
	return FALCONCTL_EXIT_OK;
}

/* print_status_check - the status table, then slurm.conf's disagreements
 * with falcon.conf (falconctl_slurm_disagree). */
static void print_status_check(json_object *st)
{
	print_status(st);
	falconctl_slurm_disagree(g_config, st, stdout);
}

int falconctl_status(int argc, char **argv)
{
	return ask_and_print(argc, argv, falcon_client_status, print_status_check);
}

int falconctl_attach(int argc, char **argv)
{
	struct falcon_compose_req r;
	struct falcon_client *cl = NULL;
	struct falcon_lease l;
	struct opts o;
	falcon_err_t rv;
	size_t i;
	int ec;

	if (parse_opts(argc, argv, &o) != 0 || optind != argc || o.job == 0 || o.host == NULL ||
	    o.gpus + o.nvme == 0) {
		usage(stderr, argv[0]);
		return FALCONCTL_EXIT_USAGE;
	}
	memset(&r, 0, sizeof(r));
	r.job_id = (uint32_t)o.job;
	if (falcon_strlcpy(r.host, o.host, sizeof(r.host)) >= sizeof(r.host) ||
	    (o.partition && falcon_strlcpy(r.partition, o.partition, sizeof(r.partition)) >=
				    sizeof(r.partition))) {
		falcon_error("%s: host or partition name too long", argv[0]);
		return FALCONCTL_EXIT_USAGE;
	}
	r.gpus = (int)o.gpus;
	r.nvme = (int)o.nvme;
	r.local_gpus = (int)o.local_gpus;
	/* an admin attaches to a node, which may rescan them onto its bus: the
	 * lease is the node's (EpilogSlurmctld's decompose off_node leaves it
	 * to the node epilog or falconctl detach) */
	r.on_node = true;
	r.place_set = o.place_set;
	r.place = o.place;
	r.uid = o.uid;
	if ((ec = open_client(&o, &cl)) != FALCONCTL_EXIT_OK)
		return ec;
	do
		rv = falcon_client_compose(cl, &r, &l);
	while (falconctl_again(cl, rv, argv[0], budget_end));
	falcon_client_free(cl);
	if (rv != FALCON_OK)
		return fail(argv[0], rv);
	if (o.json) {
		json_object *j = falcon_proto_lease_json(&l);

		print_json(j);
		json_object_put(j);
	} else {
		printf("lease %s: job %u on %s\n", l.id, l.job_id, l.host);
		for (i = 0; i < l.ndevs; i++)
			printf("  %s/%s %s drawer %d slot %d -> %s\n", l.devs[i].chassis, l.devs[i].id,
			       falcon_dev_type_str(l.devs[i].type), l.devs[i].drawer,
			       l.devs[i].slot, l.devs[i].port);
	}
	return FALCONCTL_EXIT_OK;
}

int falconctl_detach(int argc, char **argv)
{
	struct falcon_client *cl = NULL;
	struct opts o;
	falcon_err_t rv;
	int ec;

	if (parse_opts(argc, argv, &o) != 0 || optind != argc || (o.job == 0) == (o.lease == NULL)) {
		usage(stderr, argv[0]);
		return FALCONCTL_EXIT_USAGE;
	}
	if ((ec = open_client(&o, &cl)) != FALCONCTL_EXIT_OK)
		return ec;
	do
		rv = falcon_client_decompose(cl, (uint32_t)o.job, o.lease);
	while (falconctl_again(cl, rv, argv[0], budget_end));
	falcon_client_free(cl);
	if (rv != FALCON_OK)
		return fail(argv[0], rv);
	if (o.json)
		printf("{\"detached\":true}\n");
	return FALCONCTL_EXIT_OK;
}

int falconctl_reconcile(int argc, char **argv)
{
	return ask_and_print(argc, argv, reconcile_now, print_reconcile);
}

static int quarantine_cmd(int argc, char **argv, bool on)
{
	struct falcon_client *cl = NULL;
	struct opts o;
	falcon_err_t rv;
	int ec;

	if (parse_opts(argc, argv, &o) != 0 || argc - optind != 2 || (!on && o.reason)) {
		usage(stderr, argv[0]);
		return FALCONCTL_EXIT_USAGE;
	}
	if ((ec = open_client(&o, &cl)) != FALCONCTL_EXIT_OK)
		return ec;
	do
		rv = on ? falcon_client_quarantine(cl, argv[optind], argv[optind + 1], o.reason)
			: falcon_client_unquarantine(cl, argv[optind], argv[optind + 1]);
	while (falconctl_again(cl, rv, argv[0], budget_end));
	falcon_client_free(cl);
	if (rv != FALCON_OK)
		return fail(argv[0], rv);
	if (o.json) {
		json_object *j = json_object_new_object();

		json_object_object_add(j, "chassis", json_object_new_string(argv[optind]));
		json_object_object_add(j, "device", json_object_new_string(argv[optind + 1]));
		json_object_object_add(j, "quarantined", json_object_new_boolean(on));
		print_json(j);
		json_object_put(j);
	}
	return FALCONCTL_EXIT_OK;
}

int falconctl_quarantine(int argc, char **argv)
{
	return quarantine_cmd(argc, argv, true);
}

int falconctl_unquarantine(int argc, char **argv)
{
	return quarantine_cmd(argc, argv, false);
}
