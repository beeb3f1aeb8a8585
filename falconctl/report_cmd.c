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
#include "advise/report.h"
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
	struct falconctl_rwin w;
	enum falcon_rfmt fmt;
	enum falcon_rby by;
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

/* progress - one status line on stderr, rewritten in place on a terminal. */
static void progress(const struct falconctl_rwin *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void progress(const struct falconctl_rwin *o, const char *fmt, ...)
{
	bool tty = isatty(STDERR_FILENO);
	va_list ap;

	if (o->progress == 0 || (o->progress < 0 && !tty))
		return;
	fprintf(stderr, tty ? "\r\033[Kfalconctl %s: " : "falconctl %s: ", o->cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc(tty ? ' ' : '\n', stderr);
	fflush(stderr);
}

static void progress_done(const struct falconctl_rwin *o)
{
	if (o->progress != 0 && isatty(STDERR_FILENO))
		fprintf(stderr, "\r\033[K");
}

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
	snprintf(path, sizeof(path), "/v1/history?start=%lld&end=%lld", (long long)o->w.start,
		 (long long)o->w.end);
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

/* cond_free - a job condition load() made (not slurmdb_destroy_job_cond():
 * it xfree()s what calloc() gave). */
static void cond_free(slurmdb_job_cond_t *cond)
{
	if (cond == NULL)
		return;
	if (cond->cluster_list)
		slurm_list_destroy(cond->cluster_list);
	if (cond->partition_list)
		slurm_list_destroy(cond->partition_list);
	if (cond->userid_list)
		slurm_list_destroy(cond->userid_list);
	free(cond);
}

/* fill - the report's record of each slurmdbd job of list into out. */
static int fill(const struct falconctl_rwin *w, list_t *list, uint32_t id_fgpu, uint32_t id_gpu,
		struct falconctl_jobs *out)
{
	list_itr_t *it;
	slurmdb_job_rec_t *rec;
	size_t cap = (size_t)slurm_list_count(list), nbad = 0;

	if ((out->jobs = calloc(cap ? cap : 1, sizeof(*out->jobs))) == NULL) {
		falcon_error("%s: %zu jobs: out of memory", w->cmd, cap);
		return FALCONCTL_EXIT_FAIL;
	}
	it = slurm_list_iterator_create(list);
	while ((rec = slurm_list_next(it)) != NULL && out->n < cap) {
		struct falcon_rjob *j = &out->jobs[out->n++];

		if (out->n % 20000 == 0)
			progress(w, "%zu of %zu jobs", out->n, cap);
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
			falcon_warn("%s: job %u: malformed falcon tag in AdminComment: %s "
				    "(topology from its GRES)", w->cmd, j->job_id, falcon_errmsg());
	}
	slurm_list_iterator_destroy(it);
	if (nbad > 1)
		falcon_warn("%s: %zu jobs with a malformed falcon tag", w->cmd, nbad);
	return FALCONCTL_EXIT_OK;
}

int falconctl_jobs_load(const struct falconctl_rwin *w, struct falconctl_jobs *out)
{
	slurmdb_job_cond_t *cond = NULL;
	void *db = NULL;
	list_t *jobs = NULL;
	uint32_t id_fgpu, id_gpu;
	int rc = FALCONCTL_EXIT_FAIL;

	memset(out, 0, sizeof(*out));
	progress(w, "connecting to slurmdbd");
	slurm_init(NULL);
	errno = 0;
	if ((db = slurmdb_connection_get(NULL)) == NULL) {
		falcon_error("%s: slurmdbd: %s", w->cmd, slurm_strerror(errno));
		rc = FALCONCTL_EXIT_UNREACHABLE;
		goto out;
	}
	tres_ids(db, &id_fgpu, &id_gpu);
	if (id_gpu == 0 || id_fgpu == 0)
		falcon_warn("%s: slurmdbd tracks no %s%s%s TRES: those GPU-hours count as 0 "
			    "(slurm.conf AccountingStorageTRES)", w->cmd,
			    id_fgpu ? "" : "gres/falcon_gpu", !id_fgpu && !id_gpu ? " and no " : "",
			    id_gpu ? "" : "gres/gpu");
	if ((cond = calloc(1, sizeof(*cond))) == NULL)
		goto out;
	cond->usage_start = w->start;
	cond->usage_end = w->end;
	/* as sacct -X: allocations only, times not truncated to the window */
	cond->flags = JOBCOND_FLAG_NO_STEP | JOBCOND_FLAG_NO_TRUNC;
	cond->db_flags = SLURMDB_JOB_FLAG_NOTSET;
	if (slurm_conf.cluster_name != NULL) {
		cond->cluster_list = slurm_list_create(free);
		slurm_list_append(cond->cluster_list, strdup(slurm_conf.cluster_name));
	}
	if (w->partition != NULL)
		cond->partition_list = str_list(w->partition, false);
	if (w->user != NULL && (cond->userid_list = str_list(w->user, true)) == NULL) {
		rc = FALCONCTL_EXIT_USAGE;
		goto out;
	}
	progress(w, "reading jobs from slurmdbd");
	errno = 0;
	if ((jobs = slurmdb_jobs_get(db, cond)) == NULL) {
		falcon_error("%s: slurmdb_jobs_get: %s", w->cmd, slurm_strerror(errno));
		goto out;
	}
	if ((rc = fill(w, jobs, id_fgpu, id_gpu, out)) == FALCONCTL_EXIT_OK) {
		out->list = jobs;
		jobs = NULL;
	}
out:
	if (rc != FALCONCTL_EXIT_OK)
		falconctl_jobs_free(out);
	if (jobs)
		slurm_list_destroy(jobs);
	cond_free(cond);
	if (db)
		slurmdb_connection_close(&db);
	return rc;
}

void falconctl_jobs_free(struct falconctl_jobs *j)
{
	free(j->jobs);
	if (j->list)
		slurm_list_destroy(j->list);
	memset(j, 0, sizeof(*j));
}
#else /* !HAVE_SLURM */
int falconctl_jobs_load(const struct falconctl_rwin *w, struct falconctl_jobs *out)
{
	memset(out, 0, sizeof(*out));
	falcon_error("%s: built without libslurm (slurmdb.h): no accounting to read", w->cmd);
	return FALCONCTL_EXIT_FAIL;
}

void falconctl_jobs_free(struct falconctl_jobs *j)
{
	free(j->jobs);
	memset(j, 0, sizeof(*j));
}
#endif /* HAVE_SLURM */

static int run(const struct ropts *o)
{
	struct falconctl_jobs js;
	struct falcon_rgroup *groups = NULL;
	struct falcon_rrel *rel = NULL;
	struct falcon_rhist *hist = NULL;
	struct falcon_rdev *devs = NULL;
	struct falcon_report rep = { .start = o->w.start, .end = o->w.end, .by = o->by };
	char devs_err[300];
	size_t nh = 0;
	int rc;
	falcon_err_t rv;

	if ((rc = falconctl_jobs_load(&o->w, &js)) != FALCONCTL_EXIT_OK)
		return rc;
	rc = FALCONCTL_EXIT_FAIL;
	progress(&o->w, "aggregating %zu jobs", js.n);
	if ((rv = falcon_report_groups(js.jobs, js.n, o->by, &groups, &rep.ngroups)) != FALCON_OK ||
	    (rv = falcon_report_relative(js.jobs, js.n, &rel, &rep.nrel)) != FALCON_OK) {
		falcon_error("report: %s", falcon_errmsg());
		goto out;
	}
	rep.njobs = js.n;
	rep.groups = groups;
	rep.rel = rel;
	if (o->by == FALCON_RBY_DEVICE) {
		progress(&o->w, "reading falcond's device history");
		rv = history(o, &hist, &nh);
		if (rv == FALCON_OK)
			rv = falcon_report_devices(hist, nh, js.jobs, js.n, &devs, &rep.ndevs);
		if (rv != FALCON_OK) {
			snprintf(devs_err, sizeof(devs_err), "falcond: %s", falcon_errmsg());
			rep.devs_error = devs_err;
			progress_done(&o->w);
			falcon_warn("report: no device history (%s); the rest follows", devs_err);
		}
		rep.devs = devs;
	}
	progress_done(&o->w);
	if ((rv = falcon_report_write(stdout, &rep, o->fmt)) != FALCON_OK) {
		falcon_error("report: %s", falcon_errmsg());
		goto out;
	}
	rc = FALCONCTL_EXIT_OK;
out:
	progress_done(&o->w);
	free(devs);
	free(hist);
	free(rel);
	free(groups);
	falconctl_jobs_free(&js);
	return rc;
}

int falconctl_rwin_parse(struct falconctl_rwin *w, const char *start, const char *end,
			 const char *def_start)
{
	time_t now = time(NULL);

	if (falcon_time_parse(start ? start : def_start, now, &w->start) != FALCON_OK ||
	    falcon_time_parse(end ? end : "now", now, &w->end) != FALCON_OK) {
		falcon_error("%s: %s", w->cmd, falcon_errmsg());
		return FALCONCTL_EXIT_USAGE;
	}
	if (w->end < w->start) {
		falcon_error("%s: --end is before --start", w->cmd);
		return FALCONCTL_EXIT_USAGE;
	}
	return FALCONCTL_EXIT_OK;
}

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
	struct ropts o = { .fmt = FALCON_RFMT_TABLE, .by = FALCON_RBY_TOPOLOGY,
			   .w = { .cmd = "report", .progress = -1 } };
	const char *start = NULL, *end = NULL;
	int c, v;

	optind = 1;
	while ((c = getopt_long(argc, argv, "S:E:r:u:o:b:c:h", lo, NULL)) != -1) {
		switch (c) {
		case 'S': start = optarg; break;
		case 'E': end = optarg; break;
		case 'r': o.w.partition = optarg; break;
		case 'u': o.w.user = optarg; break;
		case 'c': o.config = optarg; break;
		case 'p': o.w.progress = 1; break;
		case 'q': o.w.progress = 0; break;
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
	if ((v = falconctl_rwin_parse(&o.w, start, end, "today")) != FALCONCTL_EXIT_OK)
		return v;
	return run(&o);
}
