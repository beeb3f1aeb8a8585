/*
 * advise_cmd.c - falconctl advise: the topology to ask for, per workload.
 * Its history is falconctl report's (the jobs of a window from slurmdbd,
 * report_cmd.c's loader, and their relative runtime, report.c); what is
 * free now comes from slurmctld (each node's GRES gpu and falcon_gpu,
 * configured and allocated: slurm_load_node) and falcond (each chassis
 * pool's GPUs: GET /v1/status); the rule is advise.c's.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "advise_cmd.h"
#include "advise/advise.h"
#include "again.h"
#include "exitcode.h"
#include "report_cmd.h"
#include "core/conf.h"
#include "api/falcond_client.h"
#include "core/log.h"
#include "core/util.h"

#ifdef HAVE_SLURM
#include <slurm/slurm.h>
#include "slurm_compat.h"
#endif

struct aopts {
	struct falconctl_rwin w;
	const char *config;
	const char *workload;        /* NULL: every workload of the window */
	long gpus;
	long min_jobs;
	bool json;
	bool save;                   /* --save: the JSON into falcon.conf's AdviceFile */
};

/* What is free now, as read: the arrays falcon_avail borrows. */
struct now {
	struct falcon_anode *nodes;
	size_t nnodes;
	struct falcon_achassis *chassis;
	size_t nchassis;
	bool chassis_known;
	char chassis_error[300];
};

static void usage(FILE *f)
{
	fprintf(f, "usage: falconctl advise [--workload NAME] [--gpus N] [--start T] [--end T]\n"
		   "       [--min-jobs N] [--format table|json] [--save] [--config FILE]\n"
		   "T: as falconctl report's (default: now-30days .. now)\n");
}

#ifdef HAVE_SLURM
/* nodes_now - each Slurm node's GRES gpu and falcon_gpu, configured and free
 * (configured minus allocated; 0 free on a node down, drained or not
 * responding).  An exit code, after saying why. */
static int nodes_now(struct now *nw)
{
	node_info_msg_t *msg = NULL;
	uint32_t i;

	/* SHOW_DETAIL: without it slurmctld leaves gres_used out (all free) */
	if (slurm_load_node(0, &msg, SHOW_ALL | SHOW_DETAIL) != SLURM_SUCCESS) {
		falcon_error("advise: slurm_load_node: %s", slurm_strerror(slurm_get_errno()));
		return FALCONCTL_EXIT_UNREACHABLE;
	}
	if ((nw->nodes = calloc(msg->record_count ? msg->record_count : 1,
				sizeof(*nw->nodes))) == NULL) {
		slurm_free_node_info_msg(msg);
		falcon_error("advise: %u nodes: out of memory", msg->record_count);
		return FALCONCTL_EXIT_FAIL;
	}
	for (i = 0; i < msg->record_count; i++) {
		const node_info_t *nd = &msg->node_array[i];
		struct falcon_anode *a = &nw->nodes[nw->nnodes];
		uint32_t base = nd->node_state & NODE_STATE_BASE;
		bool up = base != NODE_STATE_DOWN && base != NODE_STATE_FUTURE &&
			  base != NODE_STATE_UNKNOWN &&
			  !(nd->node_state & (NODE_STATE_DRAIN | NODE_STATE_NO_RESPOND));

		if (nd->name == NULL)
			continue;
		falcon_anode_set(a, nd->name, nd->gres, nd->gres_used, up);
		nw->nnodes++;
	}
	slurm_free_node_info_msg(msg);
	return FALCONCTL_EXIT_OK;
}
#else
static int nodes_now(struct now *nw)
{
	(void)nw;
	falcon_error("advise: built without libslurm: no node to read");
	return FALCONCTL_EXIT_FAIL;
}
#endif

/* pool_add - one device of falcond's status into its chassis' counts. */
static falcon_err_t pool_add(struct now *nw, json_object *d, size_t *cap)
{
	json_object *v;
	const char *ch, *type, *state;
	struct falcon_achassis *c = NULL;
	size_t i;

	ch = json_object_object_get_ex(d, "chassis", &v) ? json_object_get_string(v) : NULL;
	type = json_object_object_get_ex(d, "type", &v) ? json_object_get_string(v) : NULL;
	state = json_object_object_get_ex(d, "state", &v) ? json_object_get_string(v) : NULL;
	if (ch == NULL || type == NULL || state == NULL)
		return falcon_err_set(FALCON_ERR_PROTOCOL, "a device without chassis, type or state");
	if (strcmp(type, "GPU") != 0)
		return FALCON_OK;
	for (i = 0; i < nw->nchassis && c == NULL; i++)
		if (!strcmp(nw->chassis[i].name, ch))
			c = &nw->chassis[i];
	if (c == NULL) {
		if (nw->nchassis == *cap) {
			size_t ncap = *cap ? 2 * *cap : 4;
			struct falcon_achassis *p = realloc(nw->chassis, ncap * sizeof(*p));

			if (p == NULL)
				return falcon_err_set(FALCON_ERR_NOMEM, "%zu chassis", ncap);
			nw->chassis = p;
			*cap = ncap;
		}
		c = &nw->chassis[nw->nchassis++];
		memset(c, 0, sizeof(*c));
		falcon_strlcpy(c->name, ch, sizeof(c->name));
	}
	c->gpus += strcmp(state, "quarantined") != 0;
	c->gpus_free += strcmp(state, "free") == 0;
	return FALCON_OK;
}

/* pool_now - each chassis pool's GPUs from falcond's GET /v1/status; when
 * falcond does not answer, nw->chassis_known stays false and
 * nw->chassis_error says why (the advice goes on without falcon GPUs). */
static void pool_now(const struct aopts *o, struct now *nw)
{
	struct falcon_conf *conf = NULL;
	struct falcon_client *cl = NULL;
	json_object *st = NULL, *a;
	long long until;
	size_t i, cap = 0;
	falcon_err_t rv;

	if ((rv = falcon_conf_load(falcon_conf_path(o->config), &conf)) != FALCON_OK ||
	    (rv = falcon_client_new(conf->falcond_url, conf->munge_socket, FALCONCTL_BUDGET_S,
				    &cl)) != FALCON_OK)
		goto out;
	until = falcon_now_ms() + FALCONCTL_BUDGET_S * 1000LL;
	do
		rv = falcon_client_status(cl, &st);
	while (falconctl_again(cl, rv, "advise", until));
	if (rv != FALCON_OK)
		goto out;
	if (!json_object_object_get_ex(st, "devices", &a) ||
	    !json_object_is_type(a, json_type_array)) {
		rv = falcon_err_set(FALCON_ERR_PROTOCOL, "GET /v1/status: no \"devices\" array");
		goto out;
	}
	for (i = 0; i < json_object_array_length(a) && rv == FALCON_OK; i++)
		rv = pool_add(nw, json_object_array_get_idx(a, i), &cap);
	nw->chassis_known = rv == FALCON_OK;
out:
	if (rv != FALCON_OK) {
		snprintf(nw->chassis_error, sizeof(nw->chassis_error), "falcond: %s",
			 falcon_errmsg());
		falcon_warn("advise: falcon GPUs unknown (%s); the advice goes on without them",
			    nw->chassis_error);
		nw->nchassis = 0;
	}
	json_object_put(st);
	falcon_client_free(cl);
	falcon_conf_free(conf);
}

/* save - the advices a[0..n) as JSON (falcon_advise_write) into
 * falcon.conf's AdviceFile, replaced whole (written beside it, then
 * renamed: job_submit_falcon never reads half a file), mode 0644.  An exit
 * code, after saying why. */
static int save(const struct aopts *o, const struct falcon_advice *a, size_t n,
		const struct falcon_avail *av, const struct now *nw)
{
	struct falcon_conf *conf = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	falcon_err_t rv;

	if (f == NULL) {
		falcon_error("advise: out of memory");
		return FALCONCTL_EXIT_FAIL;
	}
	rv = falcon_advise_write(f, a, n, (unsigned)o->gpus, av,
				 nw->chassis_known ? NULL : nw->chassis_error, o->w.start, o->w.end,
				 (size_t)o->min_jobs, true);
	if (fclose(f) != 0 && rv == FALCON_OK)
		rv = falcon_err_set(FALCON_ERR_NOMEM, "out of memory");
	if (rv == FALCON_OK)
		rv = falcon_conf_load(falcon_conf_path(o->config), &conf);
	if (rv == FALCON_OK)
		rv = falcon_write_file_atomic(conf->advice_file, buf, len, 0644);
	if (rv == FALCON_OK)
		falcon_info("advise: %zu workload(s) written to %s", n, conf->advice_file);
	else
		falcon_error("advise: --save: %s", falcon_errmsg());
	falcon_conf_free(conf);
	free(buf);
	return rv == FALCON_OK ? FALCONCTL_EXIT_OK : FALCONCTL_EXIT_FAIL;
}

/* advise_all - the advice for o->workload, else for each workload of rel
 * with a GPU job; printed.  An exit code, after saying why. */
static int advise_all(const struct aopts *o, const struct falcon_rrel *rel, size_t nrel,
		      const struct now *nw)
{
	struct falcon_avail av = { nw->nodes, nw->nnodes, nw->chassis, nw->nchassis,
				   nw->chassis_known };
	struct falcon_advice *adv = calloc(nrel ? nrel : 1, sizeof(*adv));
	size_t i, n = 0;
	int rc = FALCONCTL_EXIT_FAIL;
	falcon_err_t rv;

	if (adv == NULL) {
		falcon_error("advise: out of memory");
		return rc;
	}
	if (o->workload != NULL) {
		rv = falcon_advise(rel, nrel, o->workload, &av, (unsigned)o->gpus,
				   (size_t)o->min_jobs, &adv[0]);
		if (rv != FALCON_OK) {
			falcon_error("%s (`falconctl report` shows the workloads of a window)",
				     falcon_errmsg());
			goto out;
		}
		n = 1;
	}
	/* every workload: rel is sorted by workload, one advice each; those
	 * without a GPU job (FALCON_ERR_NOTFOUND) left out */
	for (i = 0; o->workload == NULL && i < nrel; i++) {
		if (i > 0 && !strcmp(rel[i - 1].workload, rel[i].workload))
			continue;
		rv = falcon_advise(rel, nrel, rel[i].workload, &av, (unsigned)o->gpus,
				   (size_t)o->min_jobs, &adv[n]);
		if (rv == FALCON_OK)
			n++;
		else if (rv != FALCON_ERR_NOTFOUND) {
			falcon_error("%s", falcon_errmsg());
			goto out;
		}
	}
	if (o->save) {
		rc = save(o, adv, n, &av, nw);
		goto out;
	}
	if (falcon_advise_write(stdout, adv, n, (unsigned)o->gpus, &av,
				nw->chassis_known ? NULL : nw->chassis_error, o->w.start, o->w.end,
				(size_t)o->min_jobs, o->json) != FALCON_OK) {
		falcon_error("advise: %s", falcon_errmsg());
		goto out;
	}
	rc = FALCONCTL_EXIT_OK;
out:
	free(adv);
	return rc;
}

static int run(const struct aopts *o)
{
	struct falconctl_jobs js;
	struct falcon_rrel *rel = NULL;
	struct now nw;
	size_t nrel = 0;
	int rc;

	memset(&nw, 0, sizeof(nw));
	if ((rc = falconctl_jobs_load(&o->w, &js)) != FALCONCTL_EXIT_OK)
		return rc;
	if (falcon_report_relative(js.jobs, js.n, &rel, &nrel) != FALCON_OK) {
		falcon_error("advise: %s", falcon_errmsg());
		rc = FALCONCTL_EXIT_FAIL;
		goto out;
	}
	if ((rc = nodes_now(&nw)) != FALCONCTL_EXIT_OK)
		goto out;
	pool_now(o, &nw);
	rc = advise_all(o, rel, nrel, &nw);
out:
	free(nw.nodes);
	free(nw.chassis);
	free(rel);
	falconctl_jobs_free(&js);
	return rc;
}

int falconctl_advise(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "workload", required_argument, NULL, 'w' }, { "gpus", required_argument, NULL, 'g' },
		{ "start", required_argument, NULL, 'S' }, { "end", required_argument, NULL, 'E' },
		{ "min-jobs", required_argument, NULL, 'm' },
		{ "format", required_argument, NULL, 'o' }, { "config", required_argument, NULL, 'c' },
		{ "save", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	struct aopts o = { .w = { .cmd = "advise", .progress = 0 }, .gpus = 1,
			   .min_jobs = FALCON_ADVISE_MIN_JOBS };
	const char *start = NULL, *end = NULL;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "w:g:S:E:m:o:c:sh", lo, NULL)) != -1) {
		falcon_err_t rv = FALCON_OK;

		switch (c) {
		case 'w': o.workload = optarg; break;
		case 'g': rv = falcon_strtol(optarg, 10, 1, 64, &o.gpus); break;
		case 'S': start = optarg; break;
		case 'E': end = optarg; break;
		case 'm': rv = falcon_strtol(optarg, 10, 1, 1000000, &o.min_jobs); break;
		case 'c': o.config = optarg; break;
		case 's': o.save = true; break;
		case 'o':
			if (strcmp(optarg, "table") && strcmp(optarg, "json")) {
				falcon_error("advise: --format %s: expected table or json", optarg);
				return FALCONCTL_EXIT_USAGE;
			}
			o.json = !strcmp(optarg, "json");
			break;
		case 'h': usage(stdout); return FALCONCTL_EXIT_OK;
		default: usage(stderr); return FALCONCTL_EXIT_USAGE;
		}
		if (rv != FALCON_OK) {
			falcon_error("advise: --%s: %s", c == 'g' ? "gpus" : "min-jobs",
				     falcon_errmsg());
			return FALCONCTL_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		falcon_error("advise: unexpected argument '%s'", argv[optind]);
		return FALCONCTL_EXIT_USAGE;
	}
	if ((c = falconctl_rwin_parse(&o.w, start, end, "now-30days")) != FALCONCTL_EXIT_OK)
		return c;
	return run(&o);
}
