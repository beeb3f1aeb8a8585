/*
 * slurmconf.c - falconctl slurm-conf and the slurm.conf check of
 * falconctl status (see slurmconf.h).  The pure parts (what to write, what
 * disagrees) are lib/core/fleet.c; here falcon.conf, falcond and libslurm.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_SLURM
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurm_version.h>
#include "slurm_compat.h"
#endif

#include "slurmconf.h"
#include "exitcode.h"
#include "api/falcond_client.h"
#include "core/conf.h"
#include "core/fleet.h"
#include "core/log.h"
#include "core/util.h"
#ifdef HAVE_SLURM
#include "slurm_view.h"
#endif

/* Where libslurm reads slurm.conf without SLURM_CONF (Debian's Slurm). */
#define FALCON_SLURM_CONF_DEFAULT "/etc/slurm/slurm.conf"

/* counts_of - each chassis' GPUs and NVMe in falcond's status (devices[]). */
static void counts_of(const struct falcon_conf *conf, json_object *status, long *gpus, long *nvme)
{
	json_object *devs, *d, *v;
	size_t c, i;

	for (c = 0; c < conf->nchassis; c++)
		gpus[c] = nvme[c] = status != NULL ? 0 : -1;
	if (status == NULL || !json_object_object_get_ex(status, "devices", &devs))
		return;
	for (i = 0; i < json_object_array_length(devs); i++) {
		const char *ch = NULL, *type = NULL;

		d = json_object_array_get_idx(devs, i);
		if (json_object_object_get_ex(d, "chassis", &v))
			ch = json_object_get_string(v);
		if (json_object_object_get_ex(d, "type", &v))
			type = json_object_get_string(v);
		for (c = 0; ch != NULL && type != NULL && c < conf->nchassis; c++)
			if (strcmp(conf->chassis[c].name, ch) == 0) {
				if (strcmp(type, "GPU") == 0)
					gpus[c]++;
				else if (strcmp(type, "NVMe") == 0)
					nvme[c]++;
			}
	}
}

/* drawers_of - each chassis' devices per drawer and its cabling in
 * falcond's status (devices[].drawer, chassis[].cables); dc[c].known only
 * for a chassis whose service said its cabling. */
static void drawers_of(const struct falcon_conf *conf, json_object *status,
		       struct falcon_drawer_counts *dc)
{
	json_object *arr, *o, *v, *cables;
	size_t c, i, k;

	memset(dc, 0, conf->nchassis * sizeof(*dc));
	if (status == NULL || !json_object_object_get_ex(status, "chassis", &arr))
		return;
	for (i = 0; i < json_object_array_length(arr); i++) {
		o = json_object_array_get_idx(arr, i);
		if (!json_object_object_get_ex(o, "name", &v) ||
		    !json_object_object_get_ex(o, "cables", &cables))
			continue;
		for (c = 0; c < conf->nchassis; c++)
			if (strcmp(conf->chassis[c].name, json_object_get_string(v)) == 0)
				break;
		if (c == conf->nchassis)
			continue;
		for (k = 0; k < json_object_array_length(cables) && k < FALCON_CABLING_MAX; k++) {
			json_object *e = json_object_array_get_idx(cables, k), *p, *d;

			if (!json_object_object_get_ex(e, "port", &p) ||
			    !json_object_object_get_ex(e, "drawer", &d) ||
			    json_object_get_int(d) < 1 || json_object_get_int(d) > FALCON_DRAWERS_MAX)
				continue;
			falcon_strlcpy(dc[c].cables[dc[c].ncables].port, json_object_get_string(p),
				       sizeof(dc[c].cables[0].port));
			dc[c].cables[dc[c].ncables++].drawer = json_object_get_int(d);
		}
		dc[c].known = dc[c].ncables > 0;
	}
	if (!json_object_object_get_ex(status, "devices", &arr))
		return;
	for (i = 0; i < json_object_array_length(arr); i++) {
		const char *ch = NULL, *type = NULL;
		int d = 0;

		o = json_object_array_get_idx(arr, i);
		if (json_object_object_get_ex(o, "chassis", &v))
			ch = json_object_get_string(v);
		if (json_object_object_get_ex(o, "type", &v))
			type = json_object_get_string(v);
		if (json_object_object_get_ex(o, "drawer", &v))
			d = json_object_get_int(v);
		if (ch == NULL || type == NULL || d < 1 || d > FALCON_DRAWERS_MAX)
			continue;
		for (c = 0; c < conf->nchassis; c++)
			if (strcmp(conf->chassis[c].name, ch) == 0) {
				if (strcmp(type, "GPU") == 0)
					dc[c].gpus[d - 1]++;
				else if (strcmp(type, "NVMe") == 0)
					dc[c].nvme[d - 1]++;
			}
	}
}

/* running_release - the Slurm falconctl was built against (slurm_version.h:
 * libslurm's major.minor is the installed Slurm's), else 22.05. */
static void running_release(int *major, int *minor)
{
	*major = 22;
	*minor = 5;
#if defined(HAVE_SLURM) && defined(SLURM_VERSION_NUMBER)
	/* SLURM_VERSION_NUM(a,b,c): a << 16 | b << 8 | c */
	*major = (int)((SLURM_VERSION_NUMBER >> 16) & 0xff);
	*minor = (int)((SLURM_VERSION_NUMBER >> 8) & 0xff);
#endif
}

static void usage(FILE *f)
{
	fprintf(f, "usage: falconctl slurm-conf [--config FILE] [--release MAJOR.MINOR] "
		   "[--pool licenses|hres] [--no-falcond]\n");
}

int falconctl_slurm_conf(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "config", required_argument, NULL, 'c' }, { "release", required_argument, NULL, 'r' },
		{ "no-falcond", no_argument, NULL, 'n' }, { "pool", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config = NULL;
	struct falcon_conf *conf = NULL;
	struct falcon_client *cl = NULL;
	json_object *status = NULL;
	struct falcon_drawer_counts *dc = NULL;
	long *gpus = NULL, *nvme = NULL, maj, min;
	int major, minor, c, ec = FALCONCTL_EXIT_USAGE;
	bool ask = true, hres = false;
	falcon_err_t rv;
	char *dot;

	running_release(&major, &minor);
	optind = 1;
	while ((c = getopt_long(argc, argv, "c:h", lo, NULL)) != -1) {
		switch (c) {
		case 'c': config = optarg; break;
		case 'n': ask = false; break;
		case 'r':
			dot = strchr(optarg, '.');
			if (dot == NULL || (*dot = '\0', falcon_strtol(optarg, 10, 20, 99, &maj)) != FALCON_OK ||
			    falcon_strtol(dot + 1, 10, 0, 12, &min) != FALCON_OK) {
				falcon_error("slurm-conf: --release: expected MAJOR.MINOR (e.g. 26.05)");
				return FALCONCTL_EXIT_USAGE;
			}
			major = (int)maj;
			minor = (int)min;
			break;
		case 'p':
			if (strcmp(optarg, "licenses") != 0 && strcmp(optarg, "hres") != 0) {
				falcon_error("slurm-conf: --pool %s: expected licenses or hres", optarg);
				return FALCONCTL_EXIT_USAGE;
			}
			hres = strcmp(optarg, "hres") == 0;
			break;
		case 'h': usage(stdout); return FALCONCTL_EXIT_OK;
		default: usage(stderr); return FALCONCTL_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return FALCONCTL_EXIT_USAGE;
	}
	if (hres && !falcon_slurm_hres_release(major, minor)) {
		falcon_error("slurm-conf: --pool hres: Slurm %d.%02d has no HRES MODE_3 (25.11 or "
			     "later); its pool is licenses", major, minor);
		return FALCONCTL_EXIT_USAGE;
	}
	if (falcon_conf_load(falcon_conf_path(config), &conf) != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		return FALCONCTL_EXIT_USAGE;
	}
	gpus = calloc(conf->nchassis + 1, sizeof(*gpus));
	nvme = calloc(conf->nchassis + 1, sizeof(*nvme));
	dc = calloc(conf->nchassis + 1, sizeof(*dc));
	if (gpus == NULL || nvme == NULL || dc == NULL)
		goto out;
	if (ask) {
		rv = falcon_client_new(conf->falcond_url, conf->munge_socket, 60, &cl);
		if (rv == FALCON_OK)
			rv = falcon_client_status(cl, &status);
		if (rv != FALCON_OK) {
			falcon_error("slurm-conf: falcond: %s (--no-falcond writes COUNT for the "
				     "device counts)", falcon_errmsg());
			ec = FALCONCTL_EXIT_UNREACHABLE;
			goto out;
		}
	}
	counts_of(conf, status, gpus, nvme);
	drawers_of(conf, status, dc);
	if (falcon_slurm_conf_write(conf, gpus, nvme, dc, major, minor, hres, stdout) > 0)
		printf("# COUNT: the chassis' devices of that type (falconctl inventory)\n");
	ec = FALCONCTL_EXIT_OK;
out:
	falcon_client_free(cl);
	json_object_put(status);
	free(gpus);
	free(nvme);
	free(dc);
	falcon_conf_free(conf);
	return ec;
}

#ifdef HAVE_SLURM
static void print_problem(const char *msg, void *arg)
{
	fprintf(arg, "slurm.conf: %s\n", msg);
}

/* check_running - falcon_slurm_check() over the running slurmctld's view. */
static size_t check_running(const struct falcon_conf *conf, const long *gpus, const long *nvme,
			    FILE *f, bool *asked)
{
	struct falcon_slurm_loaded s;
	const char *conf_path;
	size_t n = 0;

	*asked = false;
	/* libslurm exits (fatal) when it finds no configuration: ask it only
	 * where a slurm.conf is there to read */
	conf_path = getenv("SLURM_CONF");
	if (conf_path == NULL || conf_path[0] == '\0')
		conf_path = FALCON_SLURM_CONF_DEFAULT;
	if (access(conf_path, R_OK) != 0) {
		fprintf(f, "slurm.conf not checked: %s: %s (SLURM_CONF)\n", conf_path,
			strerror(errno));
		return 0;
	}
	slurm_init(NULL);
	if (falcon_slurm_view_load(&s) != 0) {
		fprintf(f, "slurm.conf not checked: slurmctld: %s\n",
			s.ctl == NULL || s.nodes == NULL ? slurm_strerror(slurm_get_errno())
							 : strerror(ENOMEM));
	} else {
		*asked = true;
		n = falcon_slurm_check(conf, &s.v, gpus, nvme, print_problem, f);
	}
	falcon_slurm_view_free(&s);
	return n;
}
#endif

size_t falconctl_slurm_disagree(const char *config_path, json_object *status, FILE *f)
{
	struct falcon_conf *conf = NULL;
	long *gpus = NULL, *nvme = NULL;
	bool asked = false;
	size_t n = 0;

	fprintf(f, "\nSLURM (slurm.conf against falcon.conf; falconctl slurm-conf)\n");
	if (falcon_conf_load(falcon_conf_path(config_path), &conf) != FALCON_OK) {
		fprintf(f, "slurm.conf not checked: %s\n", falcon_errmsg());
		return 0;
	}
	gpus = calloc(conf->nchassis + 1, sizeof(*gpus));
	nvme = calloc(conf->nchassis + 1, sizeof(*nvme));
	if (gpus != NULL && nvme != NULL) {
		counts_of(conf, status, gpus, nvme);
#ifdef HAVE_SLURM
		n = check_running(conf, gpus, nvme, f, &asked);
#else
		fprintf(f, "slurm.conf not checked: falconctl built without libslurm\n");
#endif
		if (asked && n == 0)
			fprintf(f, "slurm.conf agrees with falcon.conf\n");
	}
	free(gpus);
	free(nvme);
	falcon_conf_free(conf);
	return n;
}
