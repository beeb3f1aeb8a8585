/*
 * report.c - accounting per topology: time parsing, AllocTRES counts, the
 * topology of a job, the aggregations and the writers (see report.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "core/jobtag.h"
#include "advise/report.h"
#include "core/util.h"

/* ------------------------------------------------------------- parsing */

/* num - exactly len digits of s as an int in [lo, hi]; -1 otherwise. */
static int num(const char *s, size_t len, int lo, int hi)
{
	int v = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return len > 0 && v >= lo && v <= hi ? v : -1;
}

/* hms - "HH:MM[:SS]" (whole of s) into tm; false when malformed. */
static bool hms(const char *s, struct tm *tm)
{
	size_t len = strlen(s);

	if ((len != 5 && len != 8) || s[2] != ':' || (len == 8 && s[5] != ':'))
		return false;
	tm->tm_hour = num(s, 2, 0, 23);
	tm->tm_min = num(s + 3, 2, 0, 59);
	tm->tm_sec = len == 8 ? num(s + 6, 2, 0, 60) : 0;
	return tm->tm_hour >= 0 && tm->tm_min >= 0 && tm->tm_sec >= 0;
}

/* unit_secs - seconds per unit word (prefix of its full name); 0 = bad. */
static long unit_secs(const char *u)
{
	static const struct { const char *full; size_t min; long secs; } units[] = {
		{ "seconds", 1, 1 }, { "minutes", 1, 60 }, { "hours", 1, 3600 },
		{ "days", 1, 86400 }, { "weeks", 1, 604800 },
	};
	size_t i, len = strlen(u);

	if (len == 0)
		return 1;
	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (len >= units[i].min && len <= strlen(units[i].full) &&
		    strncmp(u, units[i].full, len) == 0)
			return units[i].secs;
	/* "hour", "day", "week" are prefixes already; "sec"/"min" too */
	return 0;
}

falcon_err_t falcon_time_parse(const char *s, time_t now, time_t *out)
{
	struct tm tm;
	long v;
	time_t t;

	if (s == NULL || *s == '\0')
		goto bad;
	localtime_r(&now, &tm);
	if (strncmp(s, "now", 3) == 0) {
		const char *p = s + 3;
		char digits[24];
		size_t nd = 0;
		long secs;

		if (*p == '\0') {
			*out = now;
			return FALCON_OK;
		}
		if (*p != '+' && *p != '-')
			goto bad;
		while (isdigit((unsigned char)p[1 + nd]) && nd < sizeof(digits) - 1) {
			digits[nd] = p[1 + nd];
			nd++;
		}
		digits[nd] = '\0';
		if (nd == 0 || falcon_strtol(digits, 10, 0, 100000000L, &v) != FALCON_OK ||
		    (secs = unit_secs(p + 1 + nd)) == 0)
			goto bad;
		*out = *p == '+' ? now + (time_t)(v * secs) : now - (time_t)(v * secs);
		return FALCON_OK;
	}
	if (strcmp(s, "today") == 0 || strcmp(s, "midnight") == 0) {
		tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	} else if (strspn(s, "0123456789") == strlen(s)) {
		if (falcon_strtol(s, 10, 0, 253402300799L /* 9999-12-31 */, &v) != FALCON_OK)
			goto bad;
		*out = (time_t)v;
		return FALCON_OK;
	} else if (strlen(s) >= 10 && s[4] == '-' && s[7] == '-') {
		/* YYYY-MM-DD[THH:MM[:SS]] */
		tm.tm_year = num(s, 4, 1970, 9999) - 1900;
		tm.tm_mon = num(s + 5, 2, 1, 12) - 1;
		tm.tm_mday = num(s + 8, 2, 1, 31);
		tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
		if (tm.tm_year < 70 || tm.tm_mon < 0 || tm.tm_mday < 1)
			goto bad;
		if (s[10] != '\0' && (s[10] != 'T' || !hms(s + 11, &tm)))
			goto bad;
	} else if (strlen(s) >= 5 && s[2] == '/') {
		/* MM/DD[/YY][-HH:MM[:SS]] */
		const char *p = s + 5;

		tm.tm_mon = num(s, 2, 1, 12) - 1;
		tm.tm_mday = num(s + 3, 2, 1, 31);
		tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
		if (tm.tm_mon < 0 || tm.tm_mday < 1)
			goto bad;
		if (*p == '/') {
			int yy = num(p + 1, 2, 0, 99);

			if (yy < 0)
				goto bad;
			tm.tm_year = 100 + yy;
			p += 3;
		}
		if (*p != '\0' && (*p != '-' || !hms(p + 1, &tm)))
			goto bad;
	} else {
		goto bad;
	}
	tm.tm_isdst = -1;
	if ((t = mktime(&tm)) == (time_t)-1)
		goto bad;
	*out = t;
	return FALCON_OK;
bad:
	return falcon_err_set(FALCON_ERR_PARSE, "time \"%s\": expected now[{+|-}N[units]], today, "
			      "YYYY-MM-DD[THH:MM[:SS]], MM/DD[/YY][-HH:MM[:SS]] or epoch seconds",
			      s ? s : "(null)");
}

uint64_t falcon_tres_count(const char *tres, uint32_t id)
{
	const char *p = tres;
	long k, c;

	while (p != NULL && *p != '\0') {
		size_t len = strcspn(p, ","), klen = strcspn(p, "=");

		/* another TRES' count is only checked for digits: slurmdbd
		 * writes NO_VAL64 (18446744073709551614) for an energy it did
		 * not gather, past what falcon_strtol_n takes */
		if (klen >= len || len - klen - 1 == 0 || len - klen - 1 > 20 ||
		    strspn(p + klen + 1, "0123456789") < len - klen - 1 ||
		    falcon_strtol_n(p, klen, 10, 0, UINT32_MAX, &k) != FALCON_OK) {
			falcon_err_clear(); /* malformed: 0, as documented */
			return 0;
		}
		if ((uint32_t)k == id) {
			if (falcon_strtol_n(p + klen + 1, len - klen - 1, 10, 0, LONG_MAX, &c) !=
			    FALCON_OK) {
				falcon_err_clear();
				return 0;
			}
			return (uint64_t)c;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

void falcon_rjob_classify(struct falcon_rjob *j, const char *admin_comment)
{
	struct falcon_tag t;
	falcon_err_t rv = FALCON_ERR_NOTFOUND;
	const char *nvme = NULL, *gpu = NULL;

	j->bad_tag = false;
	j->check = FALCON_RCHECK_NONE;
	j->busbw = -1;
	/* only the cheap test first: most jobs of a site are not ours */
	if (admin_comment != NULL && strstr(admin_comment, FALCON_TAG_PREFIX) != NULL) {
		rv = falcon_tag_parse(admin_comment, &t);
		j->bad_tag = rv == FALCON_ERR_PARSE;
	}
	if (rv == FALCON_OK) {
		gpu = t.topo;
		nvme = t.nvme == NULL ? NULL : strcmp(t.nvme, "falcon") == 0 ? "falconNVMe"
									      : "localNVMe";
		j->busbw = t.busbw;
		if (t.check == NULL)
			j->check = FALCON_RCHECK_NONE;
		else if (strcmp(t.check, "pass") == 0)
			j->check = FALCON_RCHECK_PASS;
		else if (strcmp(t.check, "warn") == 0)
			j->check = FALCON_RCHECK_WARN;
		else if (strcmp(t.check, "fail") == 0)
			j->check = FALCON_RCHECK_FAIL;
		else
			j->check = FALCON_RCHECK_OTHER;
	}
	if (gpu == NULL && (rv != FALCON_OK || nvme == NULL || j->gpus > 0 || j->falcon_gpus > 0))
		gpu = j->falcon_gpus > 0 ? (j->gpus > 0 ? "hybridGPUs" : "falconGPUs")
			: j->gpus > 0 ? "localGPUs" : NULL;
	if (gpu != NULL && nvme != NULL)
		snprintf(j->topo, sizeof(j->topo), "%s+%s", gpu, nvme);
	else
		snprintf(j->topo, sizeof(j->topo), "%s", gpu ? gpu : nvme ? nvme : "none");
}

uint32_t falcon_nearest_rank(const uint32_t *v, size_t n, unsigned p)
{
	size_t rank;

	if (n == 0)
		return 0;
	rank = ((size_t)p * n + 99) / 100; /* ceil(p * n / 100) */
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return v[rank - 1];
}

/* --------------------------------------------------------- aggregation */

static const char *group_key(const struct falcon_rjob *j, enum falcon_rby by)
{
	const char *k;

	switch (by) {
	case FALCON_RBY_PARTITION: k = j->partition; break;
	case FALCON_RBY_USER: k = j->user; break;
	default: k = j->topo; break;
	}
	return k ? k : "";
}

struct sortctx {
	const struct falcon_rjob *jobs;
	enum falcon_rby by;
};

/* qsort_r comparators: by key then elapsed */
static int cmp_group(const void *a, const void *b, void *arg)
{
	const struct sortctx *c = arg;
	const struct falcon_rjob *x = &c->jobs[*(const size_t *)a], *y = &c->jobs[*(const size_t *)b];
	int r = strcmp(group_key(x, c->by), group_key(y, c->by));

	if (r != 0)
		return r;
	return x->elapsed < y->elapsed ? -1 : x->elapsed > y->elapsed;
}

static int cmp_rel(const void *a, const void *b, void *arg)
{
	const struct sortctx *c = arg;
	const struct falcon_rjob *x = &c->jobs[*(const size_t *)a], *y = &c->jobs[*(const size_t *)b];
	int r = strcmp(x->workload ? x->workload : "", y->workload ? y->workload : "");

	if (r == 0)
		r = strcmp(x->topo, y->topo);
	if (r != 0)
		return r;
	return x->elapsed < y->elapsed ? -1 : x->elapsed > y->elapsed;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

falcon_err_t falcon_report_groups(const struct falcon_rjob *jobs, size_t n, enum falcon_rby by,
				  struct falcon_rgroup **out, size_t *nout)
{
	struct sortctx ctx = { jobs, by == FALCON_RBY_DEVICE ? FALCON_RBY_TOPOLOGY : by };
	struct falcon_rgroup *g = NULL;
	size_t *idx = NULL, i, a, ng = 0;
	uint32_t *el = NULL;
	double *bw = NULL;
	falcon_err_t rv;

	*out = NULL;
	*nout = 0;
	idx = malloc((n ? n : 1) * sizeof(*idx));
	el = malloc((n ? n : 1) * sizeof(*el));
	bw = malloc((n ? n : 1) * sizeof(*bw));
	g = calloc(n ? n : 1, sizeof(*g));
	if (idx == NULL || el == NULL || bw == NULL || g == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "report: %zu jobs", n);
		goto fail;
	}
	for (i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof(*idx), cmp_group, &ctx);
	for (a = 0; a < n;) {
		const char *key = group_key(&jobs[idx[a]], ctx.by);
		struct falcon_rgroup *x = &g[ng++];
		size_t b, nb = 0;

		falcon_strlcpy(x->key, key, sizeof(x->key));
		for (b = a; b < n && strcmp(group_key(&jobs[idx[b]], ctx.by), key) == 0; b++) {
			const struct falcon_rjob *j = &jobs[idx[b]];

			el[b - a] = j->elapsed; /* ascending: sorted by key, elapsed */
			x->gpuh_falcon += (double)j->falcon_gpus * j->elapsed / 3600.0;
			x->gpuh_local += (double)j->gpus * j->elapsed / 3600.0;
			x->check[j->check]++;
			if (j->busbw >= 0)
				bw[nb++] = j->busbw;
		}
		x->jobs = b - a;
		x->elapsed_median = falcon_nearest_rank(el, x->jobs, 50);
		x->elapsed_p90 = falcon_nearest_rank(el, x->jobs, 90);
		x->busbw_jobs = nb;
		x->busbw_median = -1;
		if (nb > 0) {
			qsort(bw, nb, sizeof(*bw), cmp_double);
			x->busbw_median = bw[(nb * 50 + 99) / 100 - 1];
		}
		a = b;
	}
	*out = g;
	*nout = ng;
	g = NULL;
	rv = FALCON_OK;
fail:
	free(g);
	free(bw);
	free(el);
	free(idx);
	return rv;
}

falcon_err_t falcon_report_relative(const struct falcon_rjob *jobs, size_t n,
				    struct falcon_rrel **out, size_t *nout)
{
	struct sortctx ctx = { jobs, FALCON_RBY_TOPOLOGY };
	struct falcon_rrel *r = NULL;
	size_t *idx = NULL, i, m = 0, a, nr = 0;
	uint32_t *el = NULL;
	falcon_err_t rv;

	*out = NULL;
	*nout = 0;
	idx = malloc((n ? n : 1) * sizeof(*idx));
	el = malloc((n ? n : 1) * sizeof(*el));
	r = calloc(n ? n : 1, sizeof(*r));
	if (idx == NULL || el == NULL || r == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "report: %zu jobs", n);
		goto fail;
	}
	for (i = 0; i < n; i++)
		if (strcmp(jobs[i].topo, "none") != 0 && jobs[i].elapsed > 0)
			idx[m++] = i;
	qsort_r(idx, m, sizeof(*idx), cmp_rel, &ctx);
	for (a = 0; a < m;) {
		const char *wl = jobs[idx[a]].workload ? jobs[idx[a]].workload : "";
		size_t first = nr, b, k;
		const struct falcon_rrel *base = NULL;

		/* one row per topology of this workload */
		for (b = a; b < m;) {
			const struct falcon_rjob *j = &jobs[idx[b]];
			struct falcon_rrel *x;
			size_t c;

			if (strcmp(j->workload ? j->workload : "", wl) != 0)
				break;
			x = &r[nr++];
			falcon_strlcpy(x->workload, wl, sizeof(x->workload));
			falcon_strlcpy(x->topo, j->topo, sizeof(x->topo));
			for (c = b; c < m && strcmp(jobs[idx[c]].topo, j->topo) == 0 &&
				    strcmp(jobs[idx[c]].workload ? jobs[idx[c]].workload : "", wl) == 0;
			     c++)
				el[c - b] = jobs[idx[c]].elapsed;
			x->jobs = c - b;
			x->median = falcon_nearest_rank(el, x->jobs, 50);
			b = c;
		}
		for (k = first; k < nr; k++)
			if (strcmp(r[k].topo, "localGPUs") == 0)
				base = &r[k];
		if (base == NULL)
			for (k = first; k < nr; k++)
				if (base == NULL || r[k].median < base->median)
					base = &r[k];
		for (k = first; k < nr; k++) {
			r[k].rel = base->median > 0 ? (double)r[k].median / base->median : 0;
			falcon_strlcpy(r[k].baseline, base->topo, sizeof(r[k].baseline));
			r[k].fastest = strcmp(base->topo, "localGPUs") != 0;
		}
		a = b;
	}
	*out = r;
	*nout = nr;
	r = NULL;
	rv = FALCON_OK;
fail:
	free(r);
	free(el);
	free(idx);
	return rv;
}

static int cmp_hist(const void *a, const void *b)
{
	const struct falcon_rhist *x = *(const struct falcon_rhist *const *)a;
	const struct falcon_rhist *y = *(const struct falcon_rhist *const *)b;
	int r = strcmp(x->chassis, y->chassis);

	if (r == 0)
		r = strcmp(x->device, y->device);
	if (r == 0)
		r = x->job_id < y->job_id ? -1 : x->job_id > y->job_id;
	return r;
}

static int cmp_jobid(const void *a, const void *b)
{
	const struct falcon_rjob *x = *(const struct falcon_rjob *const *)a;
	const struct falcon_rjob *y = *(const struct falcon_rjob *const *)b;

	return x->job_id < y->job_id ? -1 : x->job_id > y->job_id;
}

falcon_err_t falcon_report_devices(const struct falcon_rhist *h, size_t nh,
				   const struct falcon_rjob *jobs, size_t n,
				   struct falcon_rdev **out, size_t *nout)
{
	const struct falcon_rhist **hp = NULL;
	const struct falcon_rjob **jp = NULL;
	struct falcon_rdev *d = NULL;
	size_t i, nd = 0;
	falcon_err_t rv;

	*out = NULL;
	*nout = 0;
	hp = malloc((nh ? nh : 1) * sizeof(*hp));
	jp = malloc((n ? n : 1) * sizeof(*jp));
	d = calloc(nh ? nh : 1, sizeof(*d));
	if (hp == NULL || jp == NULL || d == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "report: %zu history entries", nh);
		goto fail;
	}
	for (i = 0; i < nh; i++)
		hp[i] = &h[i];
	for (i = 0; i < n; i++)
		jp[i] = &jobs[i];
	qsort(hp, nh, sizeof(*hp), cmp_hist);
	qsort(jp, n, sizeof(*jp), cmp_jobid);
	for (i = 0; i < nh; i++) {
		const struct falcon_rhist *e = hp[i];
		struct falcon_rdev *x = nd > 0 ? &d[nd - 1] : NULL;
		bool fail;

		if (x == NULL || strcmp(x->chassis, e->chassis) != 0 ||
		    strcmp(x->device, e->device) != 0) {
			x = &d[nd++];
			falcon_strlcpy(x->chassis, e->chassis, sizeof(x->chassis));
			falcon_strlcpy(x->device, e->device, sizeof(x->device));
		}
		/* a keep (falcond/keep.h): idle time, not a lease of a job */
		if (strncmp(e->result, "kept warm", 9) == 0) {
			if (e->released > e->attached)
				x->idle_h += (double)(e->released - e->attached) / 3600.0;
			continue;
		}
		x->entries++;
		/* sorted by job id within a device: count the first of a run */
		if (i == 0 || hp[i - 1]->job_id != e->job_id || strcmp(hp[i - 1]->device, e->device) != 0 ||
		    strcmp(hp[i - 1]->chassis, e->chassis) != 0)
			x->jobs++;
		if (e->check[0] != '\0') {
			fail = strcmp(e->check, "fail") == 0;
		} else {
			struct falcon_rjob key = { .job_id = e->job_id };
			const struct falcon_rjob *kp = &key, **hit;

			hit = bsearch(&kp, jp, n, sizeof(*jp), cmp_jobid);
			fail = hit != NULL && (*hit)->check == FALCON_RCHECK_FAIL;
		}
		x->check_fail += fail;
		x->quarantined += strncmp(e->result, "quarantined", 11) == 0;
	}
	*out = d;
	*nout = nd;
	d = NULL;
	rv = FALCON_OK;
fail:
	free(d);
	free(jp);
	free(hp);
	return rv;
}

/* ------------------------------------------------------------- writers */

static const char *const rby_names[] = { "topology", "partition", "user", "device" };
static const char *const rfmt_names[] = { "table", "csv", "json", "svg" };
static const char *const check_names[] = { "none", "pass", "warn", "fail", "other" };

const char *falcon_rby_str(enum falcon_rby by)
{
	return (unsigned)by < ARRAY_SIZE(rby_names) ? rby_names[by] : "?";
}

int falcon_rby_from_str(const char *s)
{
	size_t i;

	for (i = 0; s && i < ARRAY_SIZE(rby_names); i++)
		if (strcmp(s, rby_names[i]) == 0)
			return (int)i;
	return -1;
}

int falcon_rfmt_from_str(const char *s)
{
	size_t i;

	for (i = 0; s && i < ARRAY_SIZE(rfmt_names); i++)
		if (strcmp(s, rfmt_names[i]) == 0)
			return (int)i;
	return -1;
}

/* elapsed_str - sacct's [D-]HH:MM:SS */
static char *elapsed_str(uint32_t s, char *buf, size_t n)
{
	if (s >= 86400)
		snprintf(buf, n, "%u-%02u:%02u:%02u", s / 86400, s % 86400 / 3600, s % 3600 / 60,
			 s % 60);
	else
		snprintf(buf, n, "%02u:%02u:%02u", s / 3600, s % 3600 / 60, s % 60);
	return buf;
}

static char *time_str(time_t t, char *buf, size_t n)
{
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%S", &tm);
	return buf;
}

/* csv_field - RFC 4180: quoted when it holds a comma, quote or line break. */
static void csv_field(FILE *f, const char *s)
{
	if (strpbrk(s, ",\"\r\n") == NULL) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* xml - s with &, <, >, " and ' escaped (XML 1.0 sec 2.4), control
 * characters other than tab/newline dropped (not allowed in XML 1.0). */
static void xml(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			if (c >= 0x20 || c == '\t' || c == '\n')
				fputc(c, f);
		}
	}
}

/* width of the widest key among groups (at least minw) */
static int key_width(const struct falcon_report *r, int minw)
{
	size_t i;
	int w = minw;

	for (i = 0; i < r->ngroups; i++)
		if ((int)strlen(r->groups[i].key) > w)
			w = (int)strlen(r->groups[i].key);
	return w;
}

static void write_table(FILE *f, const struct falcon_report *r)
{
	char a[32], b[32], bw[32];
	const char *head = r->by == FALCON_RBY_PARTITION ? "PARTITION" :
			   r->by == FALCON_RBY_USER ? "USER" : "TOPOLOGY";
	int kw = key_width(r, (int)strlen(head)), ww = 8, tw = 8;
	size_t i;

	fprintf(f, "Jobs %s .. %s: %zu\n\n", time_str(r->start, a, sizeof(a)),
		time_str(r->end, b, sizeof(b)), r->njobs);
	fprintf(f, "%-*s %6s %12s %12s %11s %11s %5s %5s %5s %5s %10s\n", kw, head, "JOBS",
		"GPUH_FALCON", "GPUH_LOCAL", "ELAPSED_MED", "ELAPSED_P90", "PASS", "WARN", "FAIL",
		"OTHER", "BUSBW_MED");
	for (i = 0; i < r->ngroups; i++) {
		const struct falcon_rgroup *g = &r->groups[i];

		if (g->busbw_median >= 0)
			snprintf(bw, sizeof(bw), "%.1f", g->busbw_median);
		else
			snprintf(bw, sizeof(bw), "-");
		fprintf(f, "%-*s %6zu %12.2f %12.2f %11s %11s %5zu %5zu %5zu %5zu %10s\n", kw, g->key,
			g->jobs, g->gpuh_falcon, g->gpuh_local,
			elapsed_str(g->elapsed_median, a, sizeof(a)),
			elapsed_str(g->elapsed_p90, b, sizeof(b)), g->check[FALCON_RCHECK_PASS],
			g->check[FALCON_RCHECK_WARN], g->check[FALCON_RCHECK_FAIL],
			g->check[FALCON_RCHECK_OTHER], bw);
	}
	for (i = 0; i < r->nrel; i++) {
		if ((int)strlen(r->rel[i].workload) > ww)
			ww = (int)strlen(r->rel[i].workload);
		if ((int)strlen(r->rel[i].topo) > tw)
			tw = (int)strlen(r->rel[i].topo);
	}
	fprintf(f, "\nRelative runtime (median elapsed / the workload's localGPUs median; "
		   "* = no localGPUs jobs, relative to the fastest topology)\n");
	fprintf(f, "%-*s %-*s %6s %11s %9s %8s\n", ww, "WORKLOAD", tw, "TOPOLOGY", "JOBS",
		"ELAPSED_MED", "RELATIVE", "CHANGE");
	for (i = 0; i < r->nrel; i++) {
		const struct falcon_rrel *x = &r->rel[i];

		fprintf(f, "%-*s %-*s %6zu %11s %8.3f%s %+7.1f%%\n", ww, x->workload, tw, x->topo,
			x->jobs, elapsed_str(x->median, a, sizeof(a)), x->rel, x->fastest ? "*" : " ",
			(x->rel - 1) * 100);
	}
	if (r->by == FALCON_RBY_DEVICE) {
		fprintf(f, "\nDevices (falcond history)\n");
		if (r->devs_error != NULL)
			fprintf(f, "unavailable: %s\n", r->devs_error);
		else
			fprintf(f, "%-10s %-16s %7s %6s %10s %11s %7s\n", "CHASSIS", "DEVICE", "LEASES",
				"JOBS", "CHECK_FAIL", "QUARANTINED", "IDLE_H");
		for (i = 0; i < r->ndevs; i++)
			fprintf(f, "%-10s %-16s %7zu %6zu %10zu %11zu %7.2f\n", r->devs[i].chassis,
				r->devs[i].device, r->devs[i].entries, r->devs[i].jobs,
				r->devs[i].check_fail, r->devs[i].quarantined, r->devs[i].idle_h);
	}
}

static void write_csv(FILE *f, const struct falcon_report *r)
{
	size_t i;

	fprintf(f, "section,key,topology,jobs,gpu_hours_falcon,gpu_hours_local,elapsed_median_s,"
		   "elapsed_p90_s,check_pass,check_warn,check_fail,check_other,busbw_median_gbs,"
		   "relative,baseline,quarantined\n");
	for (i = 0; i < r->ngroups; i++) {
		const struct falcon_rgroup *g = &r->groups[i];

		fputs(falcon_rby_str(r->by == FALCON_RBY_DEVICE ? FALCON_RBY_TOPOLOGY : r->by), f);
		fputc(',', f);
		csv_field(f, g->key);
		fprintf(f, ",,%zu,%.4f,%.4f,%u,%u,%zu,%zu,%zu,%zu,", g->jobs, g->gpuh_falcon,
			g->gpuh_local, g->elapsed_median, g->elapsed_p90,
			g->check[FALCON_RCHECK_PASS], g->check[FALCON_RCHECK_WARN],
			g->check[FALCON_RCHECK_FAIL], g->check[FALCON_RCHECK_OTHER]);
		if (g->busbw_median >= 0)
			fprintf(f, "%.1f", g->busbw_median);
		fputs(",,,\n", f);
	}
	for (i = 0; i < r->nrel; i++) {
		const struct falcon_rrel *x = &r->rel[i];

		fputs("relative,", f);
		csv_field(f, x->workload);
		fputc(',', f);
		csv_field(f, x->topo);
		fprintf(f, ",%zu,,,%u,,,,,,,%.4f,%s%s,\n", x->jobs, x->median, x->rel, x->baseline,
			x->fastest ? " (fastest)" : "");
	}
	for (i = 0; i < r->ndevs; i++) {
		const struct falcon_rdev *d = &r->devs[i];
		char key[140];

		snprintf(key, sizeof(key), "%s/%s", d->chassis, d->device);
		fputs("device,", f);
		csv_field(f, key);
		fprintf(f, ",,%zu,,,,,,,%zu,,,,,%zu\n", d->jobs, d->check_fail, d->quarantined);
	}
}

static json_object *jdouble(double v, int decimals)
{
	char buf[48];

	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	return json_object_new_double_s(v, buf);
}

static falcon_err_t write_json(FILE *f, const struct falcon_report *r)
{
	json_object *o = json_object_new_object(), *a, *e, *c;
	size_t i, k;
	falcon_err_t rv = FALCON_OK;

	if (o == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "report: json");
	json_object_object_add(o, "start", json_object_new_int64((int64_t)r->start));
	json_object_object_add(o, "end", json_object_new_int64((int64_t)r->end));
	json_object_object_add(o, "by", json_object_new_string(falcon_rby_str(r->by)));
	json_object_object_add(o, "jobs", json_object_new_int64((int64_t)r->njobs));
	a = json_object_new_array();
	for (i = 0; i < r->ngroups; i++) {
		const struct falcon_rgroup *g = &r->groups[i];

		e = json_object_new_object();
		json_object_object_add(e, "key", json_object_new_string(g->key));
		json_object_object_add(e, "jobs", json_object_new_int64((int64_t)g->jobs));
		json_object_object_add(e, "gpu_hours_falcon", jdouble(g->gpuh_falcon, 4));
		json_object_object_add(e, "gpu_hours_local", jdouble(g->gpuh_local, 4));
		json_object_object_add(e, "elapsed_median_s", json_object_new_int64(g->elapsed_median));
		json_object_object_add(e, "elapsed_p90_s", json_object_new_int64(g->elapsed_p90));
		c = json_object_new_object();
		for (k = 0; k < ARRAY_SIZE(check_names); k++)
			json_object_object_add(c, check_names[k],
					       json_object_new_int64((int64_t)g->check[k]));
		json_object_object_add(e, "check", c);
		json_object_object_add(e, "busbw_jobs", json_object_new_int64((int64_t)g->busbw_jobs));
		json_object_object_add(e, "busbw_median_gbs",
				       g->busbw_median >= 0 ? jdouble(g->busbw_median, 1) : NULL);
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "groups", a);
	a = json_object_new_array();
	for (i = 0; i < r->nrel; i++) {
		const struct falcon_rrel *x = &r->rel[i];

		e = json_object_new_object();
		json_object_object_add(e, "workload", json_object_new_string(x->workload));
		json_object_object_add(e, "topology", json_object_new_string(x->topo));
		json_object_object_add(e, "jobs", json_object_new_int64((int64_t)x->jobs));
		json_object_object_add(e, "elapsed_median_s", json_object_new_int64(x->median));
		json_object_object_add(e, "relative", jdouble(x->rel, 4));
		json_object_object_add(e, "change_pct", jdouble((x->rel - 1) * 100, 2));
		json_object_object_add(e, "baseline", json_object_new_string(x->baseline));
		json_object_object_add(e, "baseline_fastest", json_object_new_boolean(x->fastest));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "relative", a);
	if (r->by == FALCON_RBY_DEVICE && r->devs_error == NULL) {
		a = json_object_new_array();
		for (i = 0; i < r->ndevs; i++) {
			const struct falcon_rdev *d = &r->devs[i];

			e = json_object_new_object();
			json_object_object_add(e, "chassis", json_object_new_string(d->chassis));
			json_object_object_add(e, "device", json_object_new_string(d->device));
			json_object_object_add(e, "leases", json_object_new_int64((int64_t)d->entries));
			json_object_object_add(e, "jobs", json_object_new_int64((int64_t)d->jobs));
			json_object_object_add(e, "check_fail",
					       json_object_new_int64((int64_t)d->check_fail));
			json_object_object_add(e, "quarantined",
					       json_object_new_int64((int64_t)d->quarantined));
			json_object_object_add(e, "idle_hours", jdouble(d->idle_h, 4));
			json_object_array_add(a, e);
		}
		json_object_object_add(o, "devices", a);
	} else {
		json_object_object_add(o, "devices", NULL);
	}
	if (r->devs_error != NULL)
		json_object_object_add(o, "devices_error", json_object_new_string(r->devs_error));
	if (fprintf(f, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							      JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
		rv = falcon_err_set(FALCON_ERR_IO, "report: write: %s", strerror(errno));
	json_object_put(o);
	return rv;
}

/* ----------------------------------------------------------------- svg */

/* Colours per topology (stable), from a colour-blind safe palette (Okabe &
 * Ito 2008, "Color Universal Design"). */
static const char *const palette[] = { "#0072B2", "#E69F00", "#009E73", "#CC79A7",
				       "#56B4E9", "#D55E00", "#F0E442", "#999999" };

static const char *topo_colour(const char *topo, const char *const *topos, size_t nt)
{
	size_t i;

	for (i = 0; i < nt; i++)
		if (strcmp(topos[i], topo) == 0)
			return palette[i % ARRAY_SIZE(palette)];
	return palette[ARRAY_SIZE(palette) - 1];
}

/* nice_max - a round axis maximum >= v (1, 2, 2.5, 5 x 10^k) */
static double nice_max(double v)
{
	double p, m;

	if (v <= 0)
		return 1;
	p = pow(10, floor(log10(v)));
	m = v / p;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10) * p;
}

/* nticks - grid intervals for an axis to nice_max(): round steps */
static size_t nticks(double vmax)
{
	double m = vmax / pow(10, floor(log10(vmax)));

	return m > 2.01 ? 5 : 4; /* 2.5, 5, 10: steps of 0.5, 1, 2; 1, 2: 0.25, 0.5 */
}

static void svg_text(FILE *f, double x, double y, const char *anchor, const char *extra,
		     const char *s)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s>", x, y, anchor,
		extra ? extra : "");
	xml(f, s);
	fputs("</text>\n", f);
}

/* The layout: a chart's left edge, width and height, and the share of a
 * group's width left between bars. */
#define SVG_LEFT 90.0
#define SVG_CW 720.0
#define SVG_CH 220.0
#define SVG_BAR_GAP 0.25

/* svg_grid - the horizontal grid of a chart at y0 up to vmax, each line
 * labelled with its value and suffix. */
static void svg_grid(FILE *f, double y0, double vmax, const char *suffix)
{
	size_t k, ticks;
	char buf[160];

	for (k = 0, ticks = nticks(vmax); k <= ticks; k++) {
		double yy = y0 + SVG_CH - SVG_CH * (double)k / (double)ticks;

		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
			SVG_LEFT, yy, SVG_LEFT + SVG_CW, yy);
		snprintf(buf, sizeof(buf), "%g%s", vmax * (double)k / (double)ticks, suffix);
		svg_text(f, SVG_LEFT - 6, yy + 4, "end", NULL, buf);
	}
}

/* svg_ylabel - the vertical axis title of a chart at y0 (label: no markup). */
static void svg_ylabel(FILE *f, double y0, const char *label)
{
	fprintf(f, "<text x=\"30\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 30 %.1f)\">"
		   "%s</text>\n", y0 + SVG_CH / 2, y0 + SVG_CH / 2, label);
}

/* svg_axes - the x and y axis lines of a chart at y0. */
static void svg_axes(FILE *f, double y0)
{
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n",
		SVG_LEFT, y0 + SVG_CH, SVG_LEFT + SVG_CW, y0 + SVG_CH);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n",
		SVG_LEFT, y0, SVG_LEFT, y0 + SVG_CH);
}

/* svg_swatch - one legend entry right of the charts, its box's top at y. */
static void svg_swatch(FILE *f, double y, const char *colour, const char *label)
{
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n",
		SVG_LEFT + SVG_CW + 20, y, colour);
	svg_text(f, SVG_LEFT + SVG_CW + 38, y + 10, "start", NULL, label);
}

/* svg_group_bars - group g's falcon and local bars (width bw each) from x,
 * with their values above them and the key and job count below. */
static void svg_group_bars(FILE *f, const struct falcon_rgroup *g, double x, double bw,
			   double y0, double vmax)
{
	double vals[2] = { g->gpuh_falcon, g->gpuh_local };
	const char *cls[2] = { "falcon", "local" }, *col[2] = { "#0072B2", "#E69F00" };
	char buf[160];
	size_t k;

	for (k = 0; k < 2; k++) {
		double hgt = SVG_CH * vals[k] / vmax;

		fprintf(f, "<rect class=\"bar %s\" data-key=\"", cls[k]);
		xml(f, g->key);
		fprintf(f, "\" data-value=\"%.4f\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			   "height=\"%.1f\" fill=\"%s\"><title>", vals[k], x + bw * (double)k,
			y0 + SVG_CH - hgt, bw, hgt, col[k]);
		xml(f, g->key);
		fprintf(f, ": %.2f %s GPU-hours</title></rect>\n", vals[k], cls[k]);
		snprintf(buf, sizeof(buf), vals[k] >= 100 ? "%.0f" : "%.3g", vals[k]);
		svg_text(f, x + bw * (double)k + bw / 2, y0 + SVG_CH - hgt - 4, "middle",
			 " font-size=\"10\"", buf);
	}
	svg_text(f, x + bw, y0 + SVG_CH + 16, "middle", NULL, g->key);
	snprintf(buf, sizeof(buf), "%zu job%s", g->jobs, g->jobs == 1 ? "" : "s");
	svg_text(f, x + bw, y0 + SVG_CH + 30, "middle", " font-size=\"10\" fill=\"#555\"", buf);
}

/* svg_gpu_hours - chart 1 at y0: GPU-hours per group, falcon and local
 * side by side. */
static void svg_gpu_hours(FILE *f, const struct falcon_report *r, double y0)
{
	double vmax = 0, gw, bw;
	char buf[160];
	size_t i;

	snprintf(buf, sizeof(buf), "GPU-hours per %s",
		 falcon_rby_str(r->by == FALCON_RBY_DEVICE ? FALCON_RBY_TOPOLOGY : r->by));
	svg_text(f, 20, y0 - 12, "start", " font-size=\"13\" font-weight=\"bold\"", buf);
	for (i = 0; i < r->ngroups; i++) {
		if (r->groups[i].gpuh_falcon > vmax)
			vmax = r->groups[i].gpuh_falcon;
		if (r->groups[i].gpuh_local > vmax)
			vmax = r->groups[i].gpuh_local;
	}
	vmax = nice_max(vmax * 1.12); /* room for the labels above the tallest bar */
	fprintf(f, "<g class=\"chart\" id=\"gpu-hours\">\n");
	svg_grid(f, y0, vmax, "");
	svg_ylabel(f, y0, "GPU-hours");
	gw = r->ngroups ? SVG_CW / (double)r->ngroups : SVG_CW;
	bw = gw * (1 - SVG_BAR_GAP) / 2;
	for (i = 0; i < r->ngroups; i++)
		svg_group_bars(f, &r->groups[i], SVG_LEFT + gw * (double)i + gw * SVG_BAR_GAP / 2,
			       bw, y0, vmax);
	svg_axes(f, y0);
	svg_swatch(f, y0, "#0072B2", "Falcon GPUs");
	svg_swatch(f, y0 + 20, "#E69F00", "local GPUs");
	fprintf(f, "</g>\n");
}

/* The topologies of the relative chart, in order of appearance (its legend
 * and colours). */
struct svg_topos {
	const char *name[64];
	size_t n;
};

/* svg_rel_bar - relative row e's bar (left edge bx, width bw) with its
 * value and job count above it. */
static void svg_rel_bar(FILE *f, const struct falcon_rrel *e, double bx, double bw, double y0,
			double vmax, const struct svg_topos *t)
{
	double hgt = SVG_CH * e->rel / vmax;
	char buf[160];

	fprintf(f, "<rect class=\"bar relative\" data-workload=\"");
	xml(f, e->workload);
	fprintf(f, "\" data-topology=\"");
	xml(f, e->topo);
	fprintf(f, "\" data-value=\"%.4f\" data-jobs=\"%zu\" x=\"%.1f\" y=\"%.1f\" "
		   "width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>", e->rel, e->jobs,
		bx, y0 + SVG_CH - hgt, bw, hgt, topo_colour(e->topo, t->name, t->n));
	xml(f, e->workload);
	fputs(" on ", f);
	xml(f, e->topo);
	fprintf(f, ": %.3fx of %s, %zu jobs</title></rect>\n", e->rel, e->baseline, e->jobs);
	snprintf(buf, sizeof(buf), "%.2f%s", e->rel, e->fastest ? "*" : "");
	svg_text(f, bx + bw / 2, y0 + SVG_CH - hgt - 14, "middle", " font-size=\"10\"", buf);
	snprintf(buf, sizeof(buf), "n=%zu", e->jobs);
	svg_text(f, bx + bw / 2, y0 + SVG_CH - hgt - 3, "middle", " font-size=\"9\" fill=\"#555\"",
		 buf);
}

/* svg_relative - chart 2 at y0: relative runtime per workload (nw of them,
 * consecutive rows of r->rel), one bar per topology. */
static void svg_relative(FILE *f, const struct falcon_report *r, double y0,
			 const struct svg_topos *t, size_t nw)
{
	double vmax = 0, gw, bw, x;
	size_t i, j, k;

	svg_text(f, 20, y0 - 12, "start", " font-size=\"13\" font-weight=\"bold\"",
		 "Runtime relative to localGPUs (median elapsed; * = relative to the fastest)");
	for (i = 0; i < r->nrel; i++)
		if (r->rel[i].rel > vmax)
			vmax = r->rel[i].rel;
	vmax = nice_max(vmax < 1 ? 1.12 : vmax * 1.12);
	fprintf(f, "<g class=\"chart\" id=\"relative\">\n");
	svg_grid(f, y0, vmax, "x");
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c00\" "
		   "stroke-dasharray=\"4 3\"/>\n", SVG_LEFT, y0 + SVG_CH - SVG_CH / vmax,
		SVG_LEFT + SVG_CW, y0 + SVG_CH - SVG_CH / vmax);
	svg_ylabel(f, y0, "relative runtime");
	gw = nw ? SVG_CW / (double)nw : SVG_CW;
	for (i = 0, k = 0; i < r->nrel; k++) {
		size_t nb = 0;

		for (j = i; j < r->nrel && strcmp(r->rel[j].workload, r->rel[i].workload) == 0; j++)
			nb++;
		bw = gw * (1 - SVG_BAR_GAP) / (double)nb;
		x = SVG_LEFT + gw * (double)k + gw * SVG_BAR_GAP / 2;
		for (j = i; j < i + nb; j++)
			svg_rel_bar(f, &r->rel[j], x + bw * (double)(j - i), bw, y0, vmax, t);
		svg_text(f, x + gw * (1 - SVG_BAR_GAP) / 2, y0 + SVG_CH + 16, "middle", NULL,
			 r->rel[i].workload);
		i += nb;
	}
	if (r->nrel == 0)
		svg_text(f, SVG_LEFT + SVG_CW / 2, y0 + SVG_CH / 2, "middle", " fill=\"#555\"",
			 "no jobs with GPUs in this window");
	svg_axes(f, y0);
	for (k = 0; k < t->n; k++)
		svg_swatch(f, y0 + 20 * (double)k, topo_colour(t->name[k], t->name, t->n),
			   t->name[k]);
	fprintf(f, "</g>\n");
}

/* write_svg - the header and title, then chart 1 and chart 2. */
static void write_svg(FILE *f, const struct falcon_report *r)
{
	const double height = 60 + SVG_CH + 90 + 40 + SVG_CH + 50;
	struct svg_topos t = { .n = 0 };
	size_t nw = 0, i, k;
	char buf[160], a[32], b[32];

	/* topologies of the relative chart (legend), workloads */
	for (i = 0; i < r->nrel; i++) {
		for (k = 0; k < t.n && strcmp(t.name[k], r->rel[i].topo) != 0; k++)
			;
		if (k == t.n && t.n < ARRAY_SIZE(t.name))
			t.name[t.n++] = r->rel[i].topo;
		if (i == 0 || strcmp(r->rel[i].workload, r->rel[i - 1].workload) != 0)
			nw++;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		   "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
		   "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		   SVG_LEFT + SVG_CW + 180, height, SVG_LEFT + SVG_CW + 180, height);
	snprintf(buf, sizeof(buf), "falcon report %s .. %s, %zu jobs",
		 time_str(r->start, a, sizeof(a)), time_str(r->end, b, sizeof(b)), r->njobs);
	svg_text(f, 20, 24, "start", " font-size=\"15\" font-weight=\"bold\"", buf);
	svg_gpu_hours(f, r, 60);
	svg_relative(f, r, 60 + SVG_CH + 90 + 40, &t, nw);
	fprintf(f, "</svg>\n");
}

falcon_err_t falcon_report_write(FILE *f, const struct falcon_report *r, enum falcon_rfmt fmt)
{
	falcon_err_t rv = FALCON_OK;

	switch (fmt) {
	case FALCON_RFMT_TABLE: write_table(f, r); break;
	case FALCON_RFMT_CSV: write_csv(f, r); break;
	case FALCON_RFMT_JSON: rv = write_json(f, r); break;
	case FALCON_RFMT_SVG: write_svg(f, r); break;
	}
	if (rv == FALCON_OK && (fflush(f) != 0 || ferror(f)))
		rv = falcon_err_set(FALCON_ERR_IO, "report: write: %s", strerror(errno));
	return rv;
}
