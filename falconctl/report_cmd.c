/*
 * report_cmd.c - falconctl report: accounting per topology.  Jobs come
 * from slurmdbd through libslurmdb (slurmdb_jobs_get, as sacct reads them),
 * the topology from the falcon tag of their AdminComment (lib/core/jobtag.h),
 * the device history from falcond (GET /v1/history); the aggregation and
 * the output formats are report.c.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "report_cmd.h"
#include "again.h"
#include "exitcode.h"
#include "core/conf.h"
#include "api/falcond_client.h"
#include "core/log.h"
#include "report.h"
#include "core/util.h"

#ifdef HAVE_SLURM
#include <slurm/slurm.h>
#include <slurm/slurmdb.h>
#include "slurm_compat.h"

/* libslurm's loaded slurm.conf (slurm_init); the type is public in slurm.h,
 * the variable is exported by libslurm but declared only in its own
 * read_config.h. */
extern slurm_conf_t slurm_conf;
#endif

struct ropts {
	const char *config;
	time_t start, end;
	const char *partition, *user;
	enum falcon_rfmt fmt;
	enum falcon_rby by;
	int progress;                /* -1 = when stderr is a terminal */
};

static void usage(FILE *f)
{
	fprintf(f, "usage: falconctl report [--start T] [--end T] [--partition P[,P...]]\n"
		   "       [--user U[,U...]] [--format table|csv|json|svg]\n"
		   "       [--by topology|partition|user|device] [--progress|--no-progress]\n"
		   "       [--config FILE]\n"
		   "T: now[{+|-}N[s|m|h|d|w]], today, YYYY-MM-DD[THH:MM[:SS]],\n"
		   "   MM/DD[/YY][-HH:MM[:SS]] or epoch seconds (default: today .. now, as sacct)\n");
}

#ifdef HAVE_SLURM
/* progress - one status line on stderr, rewritten in place on a terminal. */
static void progress(const struct ropts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void progress(const struct ropts *o, const char *fmt, ...)
{
	bool tty = isatty(STDERR_FILENO);
	va_list ap;

	if (o->progress == 0 || (o->progress < 0 && !tty))
		return;
	fprintf(stderr, tty ? "\r\033[Kfalconctl report: " : "falconctl report: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc(tty ? ' ' : '\n', stderr);
	fflush(stderr);
}

static void progress_done(const struct ropts *o)
{
	if (o->progress != 0 && isatty(STDERR_FILENO))
		fprintf(stderr, "\r\033[K");
}
#endif /* HAVE_SLURM: run() alone reports progress */

/*
 * history - falcond's device history overlapping [start, end] into *out
 * (*n entries, free()).  Errors as falcon_client_call(); FALCON_ERR_PROTOCOL
 * for an answer without "entries".
 */
static falcon_err_t history(const struct ropts *o, struct falcon_rhist **out, size_t *n)
{
	struct falcon_conf *conf = NULL;
	struct falcon_client *cl = NULL;
	struct falcon_rhist *h = NULL;
	json_object *resp = NULL, *a, *e, *v;
	char path[128];
	size_t i, len;
	long long until;
	falcon_err_t rv;

	*out = NULL;
	*n = 0;
	if ((rv = falcon_conf_load(falcon_conf_path(o->config), &conf)) != FALCON_OK)
		goto fail;
	if ((rv = falcon_client_new(conf->falcond_url, conf->munge_socket, 30, &cl)) != FALCON_OK)
		goto fail;
	until = falcon_now_ms() + 30000;
	snprintf(path, sizeof(path), "/v1/history?start=%lld&end=%lld", (long long)o->start,
		 (long long)o->end);
	do
		rv = falcon_client_call(cl, "GET", path, NULL, NULL, &resp);
	while (falconctl_again(cl, rv, "report", until));
	if (rv != FALCON_OK)
		goto fail;
	if (!json_object_object_get_ex(resp, "entries", &a) ||
	    !json_object_is_type(a, json_type_array)) {
		rv = falcon_err_set(FALCON_ERR_PROTOCOL, "GET %s: no \"entries\" array", path);
		goto fail;
	}
	len = json_object_array_length(a);
	if ((h = calloc(len ? len : 1, sizeof(*h))) == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "history: %zu entries", len);
		goto fail;
	}
	for (i = 0; i < len; i++) {
		e = json_object_array_get_idx(a, i);
#define STR(k, dst) \
	if (json_object_object_get_ex(e, k, &v) && json_object_is_type(v, json_type_string)) \
		falcon_strlcpy(dst, json_object_get_string(v), sizeof(dst))
		STR("chassis", h[i].chassis);
		STR("device", h[i].device);
		STR("host", h[i].host);
		STR("lease", h[i].lease);
		STR("check", h[i].check);
		STR("result", h[i].result);
#undef STR
		if (json_object_object_get_ex(e, "job_id", &v))
			h[i].job_id = (uint32_t)json_object_get_int64(v);
		if (json_object_object_get_ex(e, "attached", &v))
			h[i].attached = json_object_get_int64(v);
		if (json_object_object_get_ex(e, "released", &v))
			h[i].released = json_object_get_int64(v);
	}
	*out = h;
	*n = len;
	h = NULL;
	rv = FALCON_OK;
fail:
	free(h);
	json_object_put(resp);
	falcon_client_free(cl);
	falcon_conf_free(conf);
	return rv;
}

#ifdef HAVE_SLURM
/* str_list - the comma separated items of s appended to a new list. */
static list_t *str_list(const char *s, bool users)
{
	list_t *l = slurm_list_create(free);
	char *copy = strdup(s), *tok, *save = NULL;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *item = NULL;

		if (users && strspn(tok, "0123456789") != strlen(tok)) {
			struct passwd *pw = getpwnam(tok);

			if (pw == NULL) {
				falcon_error("report: --user %s: no such user", tok);
				slurm_list_destroy(l);
				l = NULL;
				break;
			}
			if (asprintf(&item, "%u", (unsigned)pw->pw_uid) < 0)
				item = NULL;
		} else {
			item = strdup(tok);
		}
		if (item != NULL)
			slurm_list_append(l, item);
	}
	free(copy);
	return l;
}

/* tres_ids - the slurmdbd ids of gres/falcon_gpu and gres/gpu (0 = not tracked). */
static void tres_ids(void *db, uint32_t *falcon_gpu, uint32_t *gpu)
{
	slurmdb_tres_cond_t cond;
	list_t *l;
	list_itr_t *it;
	slurmdb_tres_rec_t *t;

	*falcon_gpu = *gpu = 0;
	memset(&cond, 0, sizeof(cond));
	cond.with_deleted = 1;
	if ((l = slurmdb_tres_get(db, &cond)) == NULL)
		return;
	it = slurm_list_iterator_create(l);
	while ((t = slurm_list_next(it)) != NULL) {
		if (t->type == NULL || t->name == NULL || strcmp(t->type, "gres") != 0)
			continue;
		if (strcmp(t->name, "falcon_gpu") == 0)
			*falcon_gpu = t->id;
		else if (strcmp(t->name, "gpu") == 0)
			*gpu = t->id;
	}
	slurm_list_iterator_destroy(it);
	slurm_list_destroy(l);
}

/* uid_name - a user name for uid (a small cache; "uid N" when unknown). */
static const char *uid_name(uint32_t uid)
{
	static struct { uint32_t uid; char name[64]; } cache[64];
	static size_t n, next;
	struct passwd *pw;
	size_t i;

	for (i = 0; i < n; i++)
		if (cache[i].uid == uid)
			return cache[i].name;
	i = n < ARRAY_SIZE(cache) ? n++ : next++ % ARRAY_SIZE(cache);
	cache[i].uid = uid;
	if ((pw = getpwuid(uid)) != NULL)
		falcon_strlcpy(cache[i].name, pw->pw_name, sizeof(cache[i].name));
	else
		snprintf(cache[i].name, sizeof(cache[i].name), "%u", uid);
	return cache[i].name;
}

static int run(const struct ropts *o)
{
	slurmdb_job_cond_t *cond = NULL;
	void *db = NULL;
	list_t *jobs = NULL;
	list_itr_t *it = NULL;
	slurmdb_job_rec_t *rec;
	struct falcon_rjob *rj = NULL;
	struct falcon_rgroup *groups = NULL;
	struct falcon_rrel *rel = NULL;
	struct falcon_rhist *hist = NULL;
	struct falcon_rdev *devs = NULL;
	struct falcon_report rep = { .start = o->start, .end = o->end, .by = o->by };
	char devs_err[300];
	size_t n = 0, cap, nbad = 0, nh = 0;
	uint32_t id_fgpu, id_gpu;
	int rc = FALCONCTL_EXIT_FAIL;
	falcon_err_t rv;

	progress(o, "connecting to slurmdbd");
	slurm_init(NULL);
	errno = 0;
	if ((db = slurmdb_connection_get(NULL)) == NULL) {
		falcon_error("report: slurmdbd: %s", slurm_strerror(errno));
		rc = FALCONCTL_EXIT_UNREACHABLE;
		goto out;
	}
	tres_ids(db, &id_fgpu, &id_gpu);
	if (id_gpu == 0 || id_fgpu == 0)
		falcon_warn("report: slurmdbd tracks no %s%s%s TRES: those GPU-hours count as 0 "
			    "(slurm.conf AccountingStorageTRES)", id_fgpu ? "" : "gres/falcon_gpu",
			    !id_fgpu && !id_gpu ? " and no " : "", id_gpu ? "" : "gres/gpu");
	cond = calloc(1, sizeof(*cond));
	if (cond == NULL)
		goto out;
	cond->usage_start = o->start;
	cond->usage_end = o->end;
	/* as sacct -X: allocations only, times not truncated to the window */
	cond->flags = JOBCOND_FLAG_NO_STEP | JOBCOND_FLAG_NO_TRUNC;
	cond->db_flags = SLURMDB_JOB_FLAG_NOTSET;
	if (slurm_conf.cluster_name != NULL) {
		cond->cluster_list = slurm_list_create(free);
		slurm_list_append(cond->cluster_list, strdup(slurm_conf.cluster_name));
	}
	if (o->partition != NULL)
		cond->partition_list = str_list(o->partition, false);
	if (o->user != NULL && (cond->userid_list = str_list(o->user, true)) == NULL) {
		rc = FALCONCTL_EXIT_USAGE;
		goto out;
	}
	progress(o, "reading jobs from slurmdbd");
	errno = 0;
	if ((jobs = slurmdb_jobs_get(db, cond)) == NULL) {
		falcon_error("report: slurmdb_jobs_get: %s", slurm_strerror(errno));
		goto out;
	}
	cap = (size_t)slurm_list_count(jobs);
	if ((rj = calloc(cap ? cap : 1, sizeof(*rj))) == NULL) {
		falcon_error("report: %zu jobs: out of memory", cap);
		goto out;
	}
	it = slurm_list_iterator_create(jobs);
	while ((rec = slurm_list_next(it)) != NULL && n < cap) {
		struct falcon_rjob *j = &rj[n++];

		if (n % 20000 == 0)
			progress(o, "%zu of %zu jobs", n, cap);
		j->job_id = rec->jobid;
		j->user = rec->user ? rec->user : uid_name(rec->uid);
		j->partition = rec->partition;
		/* --comment is kept (AccountingStoreFlags=job_comment) in derived_es */
		j->workload = rec->derived_es && rec->derived_es[0] ? rec->derived_es : rec->jobname;
		j->elapsed = rec->elapsed;
		j->falcon_gpus = id_fgpu ? falcon_tres_count(rec->tres_alloc_str, id_fgpu) : 0;
		j->gpus = id_gpu ? falcon_tres_count(rec->tres_alloc_str, id_gpu) : 0;
		falcon_rjob_classify(j, rec->admin_comment);
		if (j->bad_tag && nbad++ == 0)
			falcon_warn("report: job %u: malformed falcon tag in AdminComment: %s "
				    "(topology from its GRES)", j->job_id, falcon_errmsg());
	}
	if (nbad > 1)
		falcon_warn("report: %zu jobs with a malformed falcon tag", nbad);
	progress(o, "aggregating %zu jobs", n);
	if ((rv = falcon_report_groups(rj, n, o->by, &groups, &rep.ngroups)) != FALCON_OK ||
	    (rv = falcon_report_relative(rj, n, &rel, &rep.nrel)) != FALCON_OK) {
		falcon_error("report: %s", falcon_errmsg());
		goto out;
	}
	rep.njobs = n;
	rep.groups = groups;
	rep.rel = rel;
	if (o->by == FALCON_RBY_DEVICE) {
		progress(o, "reading falcond's device history");
		rv = history(o, &hist, &nh);
		if (rv == FALCON_OK)
			rv = falcon_report_devices(hist, nh, rj, n, &devs, &rep.ndevs);
		if (rv != FALCON_OK) {
			snprintf(devs_err, sizeof(devs_err), "falcond: %s", falcon_errmsg());
			rep.devs_error = devs_err;
			progress_done(o);
			falcon_warn("report: no device history (%s); the rest follows", devs_err);
		}
		rep.devs = devs;
	}
	progress_done(o);
	if ((rv = falcon_report_write(stdout, &rep, o->fmt)) != FALCON_OK) {
		falcon_error("report: %s", falcon_errmsg());
		goto out;
	}
	rc = FALCONCTL_EXIT_OK;
out:
	progress_done(o);
	free(devs);
	free(hist);
	free(rel);
	free(groups);
	free(rj);
	if (it)
		slurm_list_iterator_destroy(it);
	if (jobs)
		slurm_list_destroy(jobs);
	if (cond) {
		/* not slurmdb_destroy_job_cond(): it xfree()s what calloc() gave */
		if (cond->cluster_list)
			slurm_list_destroy(cond->cluster_list);
		if (cond->partition_list)
			slurm_list_destroy(cond->partition_list);
		if (cond->userid_list)
			slurm_list_destroy(cond->userid_list);
		free(cond);
	}
	if (db)
		slurmdb_connection_close(&db);
	return rc;
}
#endif /* HAVE_SLURM */

int falconctl_report(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "start", required_argument, NULL, 'S' }, { "end", required_argument, NULL, 'E' },
		{ "partition", required_argument, NULL, 'r' },
		{ "user", required_argument, NULL, 'u' }, { "format", required_argument, NULL, 'o' },
		{ "by", required_argument, NULL, 'b' }, { "progress", no_argument, NULL, 'p' },
		{ "no-progress", no_argument, NULL, 'q' }, { "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	struct ropts o = { .fmt = FALCON_RFMT_TABLE, .by = FALCON_RBY_TOPOLOGY, .progress = -1 };
	const char *start = NULL, *end = NULL;
	time_t now = time(NULL);
	int c, v;

	optind = 1;
	while ((c = getopt_long(argc, argv, "S:E:r:u:o:b:c:h", lo, NULL)) != -1) {
		switch (c) {
		case 'S': start = optarg; break;
		case 'E': end = optarg; break;
		case 'r': o.partition = optarg; break;
		case 'u': o.user = optarg; break;
		case 'c': o.config = optarg; break;
		case 'p': o.progress = 1; break;
		case 'q': o.progress = 0; break;
		case 'o':
			if ((v = falcon_rfmt_from_str(optarg)) < 0) {
				falcon_error("report: --format %s: expected table, csv, json or svg",
					     optarg);
				return FALCONCTL_EXIT_USAGE;
			}
			o.fmt = (enum falcon_rfmt)v;
			break;
		case 'b':
			if ((v = falcon_rby_from_str(optarg)) < 0) {
				falcon_error("report: --by %s: expected topology, partition, user or "
					     "device", optarg);
				return FALCONCTL_EXIT_USAGE;
			}
			o.by = (enum falcon_rby)v;
			break;
		case 'h': usage(stdout); return FALCONCTL_EXIT_OK;
		default: usage(stderr); return FALCONCTL_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		falcon_error("report: unexpected argument '%s'", argv[optind]);
		return FALCONCTL_EXIT_USAGE;
	}
	/* sacct's window: 00:00:00 of today .. now */
	if (falcon_time_parse(start ? start : "today", now, &o.start) != FALCON_OK ||
	    falcon_time_parse(end ? end : "now", now, &o.end) != FALCON_OK) {
		falcon_error("report: %s", falcon_errmsg());
		return FALCONCTL_EXIT_USAGE;
	}
	if (o.end < o.start) {
		falcon_error("report: --end is before --start");
		return FALCONCTL_EXIT_USAGE;
	}
#ifdef HAVE_SLURM
	return run(&o);
#else
	(void)history;
	falcon_error("report: built without libslurm (slurmdb.h): no accounting to read");
	return FALCONCTL_EXIT_FAIL;
#endif
}
