/*
 * test_report.c - falconctl report's pure parts: sacct time forms, AllocTRES
 * counts, a job's topology, nearest-rank percentiles, the groups, relative
 * runtime, devices and the writers (csv/json parsed back, svg checked by
 * libxml2's xmllint when installed).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "advise/report.h"
#include "testutil.h"
#include "core/util.h"

static time_t mk(int y, int mo, int d, int h, int mi, int s)
{
	struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h,
			 .tm_min = mi, .tm_sec = s, .tm_isdst = -1 };

	return mktime(&tm);
}

static const struct {
	const char *s;
	falcon_err_t rv;
	int y, mo, d, h, mi, sec; /* y 0: relative to now (sec = offset) */
} time_cases[] = {
	{ "2026-03-04", FALCON_OK, 2026, 3, 4, 0, 0, 0 },
	{ "2026-03-04T05:06", FALCON_OK, 2026, 3, 4, 5, 6, 0 },
	{ "2026-03-04T05:06:07", FALCON_OK, 2026, 3, 4, 5, 6, 7 },
	{ "03/04/26", FALCON_OK, 2026, 3, 4, 0, 0, 0 },
	{ "03/04/26-05:06:07", FALCON_OK, 2026, 3, 4, 5, 6, 7 },
	{ "now", FALCON_OK, 0, 0, 0, 0, 0, 0 },
	{ "now-1hour", FALCON_OK, 0, 0, 0, 0, 0, -3600 },
	{ "now-2days", FALCON_OK, 0, 0, 0, 0, 0, -2 * 86400 },
	{ "now+30", FALCON_OK, 0, 0, 0, 0, 0, 30 },
	{ "now-3m", FALCON_OK, 0, 0, 0, 0, 0, -180 },
	{ "now-1w", FALCON_OK, 0, 0, 0, 0, 0, -604800 },
	{ "1700000000", FALCON_OK, -1, 0, 0, 0, 0, 0 },
	{ "", FALCON_ERR_PARSE, 0, 0, 0, 0, 0, 0 },
	{ "yesterday", FALCON_ERR_PARSE, 0, 0, 0, 0, 0, 0 },
	{ "2026-13-01", FALCON_ERR_PARSE, 0, 0, 0, 0, 0, 0 },
	{ "2026-03-04T25:00", FALCON_ERR_PARSE, 0, 0, 0, 0, 0, 0 },
	{ "2026-03-04 05:06", FALCON_ERR_PARSE, 0, 0, 0, 0, 0, 0 },
	{ "2026-03-04T05", FALCON_ERR_PARSE, 0, 0, 0, 0, 0, 0 },
	{ "now-", FALCON_ERR_PARSE, 0, 0, 0, 0, 0, 0 },
	{ "now-1fortnight", FALCON_ERR_PARSE, 0, 0, 0, 0, 0, 0 },
	{ "now*2", FALCON_ERR_PARSE, 0, 0, 0, 0, 0, 0 },
	{ "99999999999999999999", FALCON_ERR_PARSE, 0, 0, 0, 0, 0, 0 },
	{ "13/01", FALCON_ERR_PARSE, 0, 0, 0, 0, 0, 0 },
};

START_TEST(test_time)
{
	const time_t now = mk(2026, 11, 22, 12, 0, 0);
	time_t t = 0;
	falcon_err_t rv = falcon_time_parse(time_cases[_i].s, now, &t);

	ck_assert_msg(rv == time_cases[_i].rv, "%s: %s", time_cases[_i].s, falcon_errmsg());
	if (rv != FALCON_OK)
		return;
	if (time_cases[_i].y > 0)
		ck_assert_int_eq(t, mk(time_cases[_i].y, time_cases[_i].mo, time_cases[_i].d,
				       time_cases[_i].h, time_cases[_i].mi, time_cases[_i].sec));
	else if (time_cases[_i].y == 0)
		ck_assert_int_eq(t, now + time_cases[_i].sec);
	else
		ck_assert_int_eq(t, 1700000000);
}
END_TEST

START_TEST(test_today)
{
	const time_t now = mk(2026, 11, 22, 12, 34, 56);
	time_t t;

	ck_assert_int_eq(falcon_time_parse("today", now, &t), FALCON_OK);
	ck_assert_int_eq(t, mk(2026, 11, 22, 0, 0, 0));
	ck_assert_int_eq(falcon_time_parse("midnight", now, &t), FALCON_OK);
	ck_assert_int_eq(t, mk(2026, 11, 22, 0, 0, 0));
}
END_TEST

START_TEST(test_tres)
{
	ck_assert_uint_eq(falcon_tres_count("1=4,2=1000,4=1,1001=4,1002=8", 1001), 4);
	ck_assert_uint_eq(falcon_tres_count("1=4,2=1000,4=1,1001=4,1002=8", 1002), 8);
	ck_assert_uint_eq(falcon_tres_count("1=4,2=1000", 1001), 0);
	ck_assert_uint_eq(falcon_tres_count("10012=4", 1001), 0);
	ck_assert_uint_eq(falcon_tres_count(NULL, 1), 0);
	ck_assert_uint_eq(falcon_tres_count("", 1), 0);
	ck_assert_uint_eq(falcon_tres_count("1=x,1001=4", 1001), 0);
	ck_assert_uint_eq(falcon_tres_count("1=2,,1001=4", 1001), 0);
	/* each number bounded, digits only (falcon_strtol_n) */
	ck_assert_uint_eq(falcon_tres_count("1001=4x", 1001), 0);
	ck_assert_uint_eq(falcon_tres_count("1001=+4", 1001), 0);
	ck_assert_uint_eq(falcon_tres_count("1001= 4", 1001), 0);
	ck_assert_uint_eq(falcon_tres_count("1001=99999999999999999999", 1001), 0);
	ck_assert_uint_eq(falcon_tres_count("1=2,1001=", 1001), 0);
	ck_assert_uint_eq(falcon_tres_count("1=2,1001=4,", 1001), 4);
	/* slurmdbd's NO_VAL64 for an energy not gathered (22.05's AllocTRES) */
	ck_assert_uint_eq(falcon_tres_count("1=2,2=2000,3=18446744073709551614,4=1,1001=4",
					    1001), 4);
}
END_TEST

static const struct {
	const char *comment;
	int falcon_gpus, gpus;
	const char *topo;
	enum falcon_rcheck check;
	bool bad;
} classify_cases[] = {
	{ "falcon:topo=hybridGPUs,l=4,f=4,check=pass,busbw=19.6", 4, 4, "hybridGPUs",
	  FALCON_RCHECK_PASS, false },
	{ "x; falcon:topo=falconGPUs,f=4,nvme=falcon,check=fail", 4, 0,
	  "falconGPUs+falconNVMe", FALCON_RCHECK_FAIL, false },
	{ "falcon:nvme=falcon,check=off", 0, 0, "falconNVMe", FALCON_RCHECK_OTHER, false },
	{ "falcon:topo=localGPUs,l=2,check=warn", 0, 2, "localGPUs", FALCON_RCHECK_WARN, false },
	{ NULL, 0, 2, "localGPUs", FALCON_RCHECK_NONE, false },
	{ "ticket 9", 0, 8, "localGPUs", FALCON_RCHECK_NONE, false },
	{ NULL, 4, 0, "falconGPUs", FALCON_RCHECK_NONE, false },
	{ NULL, 4, 4, "hybridGPUs", FALCON_RCHECK_NONE, false },
	{ NULL, 0, 0, "none", FALCON_RCHECK_NONE, false },
	{ "falcon:topo=oddGPUs", 0, 2, "localGPUs", FALCON_RCHECK_NONE, true },
	{ "falcon:nvme=local", 0, 2, "localGPUs+localNVMe", FALCON_RCHECK_NONE, false },
};

START_TEST(test_classify)
{
	struct falcon_rjob j = { .falcon_gpus = (uint64_t)classify_cases[_i].falcon_gpus,
				 .gpus = (uint64_t)classify_cases[_i].gpus };

	falcon_rjob_classify(&j, classify_cases[_i].comment);
	ck_assert_str_eq(j.topo, classify_cases[_i].topo);
	ck_assert_int_eq(j.check, classify_cases[_i].check);
	ck_assert(j.bad_tag == classify_cases[_i].bad);
}
END_TEST

START_TEST(test_rank)
{
	const uint32_t v[] = { 15, 20, 35, 40, 50 }; /* the Wikipedia "Percentile" example */
	const uint32_t w[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };

	ck_assert_uint_eq(falcon_nearest_rank(v, 5, 5), 15);
	ck_assert_uint_eq(falcon_nearest_rank(v, 5, 30), 20);
	ck_assert_uint_eq(falcon_nearest_rank(v, 5, 40), 20);
	ck_assert_uint_eq(falcon_nearest_rank(v, 5, 50), 35);
	ck_assert_uint_eq(falcon_nearest_rank(v, 5, 100), 50);
	ck_assert_uint_eq(falcon_nearest_rank(w, 10, 50), 5);
	ck_assert_uint_eq(falcon_nearest_rank(w, 10, 90), 9);
	ck_assert_uint_eq(falcon_nearest_rank(w, 1, 90), 1);
	ck_assert_uint_eq(falcon_nearest_rank(w, 0, 50), 0);
}
END_TEST

/* A small site: resnet and bert on three topologies, vgg without localGPUs. */
static struct falcon_rjob *sample(size_t *n)
{
	static const struct {
		const char *wl, *user, *part, *comment;
		int fg, g;
		uint32_t el;
	} s[] = {
		{ "resnet", "ann", "gpu", "falcon:topo=localGPUs,l=4,check=pass,busbw=60.0", 0, 4, 1000 },
		{ "resnet", "ann", "gpu", "falcon:topo=localGPUs,l=4,check=pass,busbw=70.0", 0, 4, 1200 },
		{ "resnet", "bob", "gpu", NULL, 0, 4, 1100 },
		{ "resnet", "bob", "gpu", "falcon:topo=falconGPUs,f=4,check=pass,busbw=20.0", 4, 0, 1050 },
		{ "resnet", "bob", "gpu", "falcon:topo=falconGPUs,f=4,check=fail,busbw=2.0", 4, 0, 1300 },
		{ "bert", "ann", "big", "falcon:topo=localGPUs,l=4,check=pass", 0, 4, 3600 },
		{ "bert", "ann", "big", "falcon:topo=falconGPUs,f=4,check=warn", 4, 0, 7200 },
		{ "bert", "ann", "big", "falcon:topo=hybridGPUs,l=2,f=2,check=pass", 2, 2, 5400 },
		{ "vgg<&>\"", "bob", "big", "falcon:topo=falconGPUs,f=2,check=pass", 2, 0, 400 },
		{ "vgg<&>\"", "bob", "big", "falcon:topo=hybridGPUs,l=1,f=1,check=pass", 1, 1, 500 },
		{ "cpu-only", "bob", "gpu", NULL, 0, 0, 60 },
	};
	struct falcon_rjob *j = calloc(ARRAY_SIZE(s), sizeof(*j));
	size_t i;

	for (i = 0; i < ARRAY_SIZE(s); i++) {
		j[i].job_id = (uint32_t)(100 + i);
		j[i].workload = s[i].wl;
		j[i].user = s[i].user;
		j[i].partition = s[i].part;
		j[i].falcon_gpus = (uint64_t)s[i].fg;
		j[i].gpus = (uint64_t)s[i].g;
		j[i].elapsed = s[i].el;
		falcon_rjob_classify(&j[i], s[i].comment);
	}
	*n = ARRAY_SIZE(s);
	return j;
}

static const struct falcon_rgroup *group(const struct falcon_rgroup *g, size_t n, const char *k)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(g[i].key, k) == 0)
			return &g[i];
	ck_abort_msg("no group %s", k);
	return NULL;
}

START_TEST(test_groups)
{
	size_t n, ng;
	struct falcon_rjob *j = sample(&n);
	struct falcon_rgroup *g;
	const struct falcon_rgroup *x;

	ck_assert_int_eq(falcon_report_groups(j, n, FALCON_RBY_TOPOLOGY, &g, &ng), FALCON_OK);
	ck_assert_uint_eq(ng, 4); /* falconGPUs hybridGPUs localGPUs none */
	x = group(g, ng, "localGPUs");
	ck_assert_uint_eq(x->jobs, 4);
	ck_assert_double_eq_tol(x->gpuh_local, 4.0 * (1000 + 1200 + 1100 + 3600) / 3600, 1e-9);
	ck_assert_double_eq_tol(x->gpuh_falcon, 0, 1e-9);
	ck_assert_uint_eq(x->elapsed_median, 1100); /* 1000 1100 1200 3600: rank 2 */
	ck_assert_uint_eq(x->elapsed_p90, 3600);
	ck_assert_uint_eq(x->check[FALCON_RCHECK_PASS], 3);
	ck_assert_uint_eq(x->check[FALCON_RCHECK_NONE], 1);
	ck_assert_uint_eq(x->busbw_jobs, 2);
	ck_assert_double_eq_tol(x->busbw_median, 60.0, 1e-9);
	x = group(g, ng, "falconGPUs");
	ck_assert_uint_eq(x->jobs, 4);
	ck_assert_double_eq_tol(x->gpuh_falcon, (4.0 * (1050 + 1300 + 7200) + 2.0 * 400) / 3600,
				1e-9);
	ck_assert_uint_eq(x->check[FALCON_RCHECK_FAIL], 1);
	ck_assert_uint_eq(x->check[FALCON_RCHECK_WARN], 1);
	x = group(g, ng, "none");
	ck_assert_uint_eq(x->jobs, 1);
	free(g);
	ck_assert_int_eq(falcon_report_groups(j, n, FALCON_RBY_USER, &g, &ng), FALCON_OK);
	ck_assert_uint_eq(ng, 2);
	ck_assert_uint_eq(group(g, ng, "bob")->jobs, 6);
	free(g);
	ck_assert_int_eq(falcon_report_groups(j, n, FALCON_RBY_PARTITION, &g, &ng), FALCON_OK);
	ck_assert_uint_eq(group(g, ng, "big")->jobs, 5);
	free(g);
	ck_assert_int_eq(falcon_report_groups(j, 0, FALCON_RBY_PARTITION, &g, &ng), FALCON_OK);
	ck_assert_uint_eq(ng, 0);
	free(g);
	free(j);
}
END_TEST

static const struct falcon_rrel *rel(const struct falcon_rrel *r, size_t n, const char *w,
				     const char *t)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(r[i].workload, w) == 0 && strcmp(r[i].topo, t) == 0)
			return &r[i];
	ck_abort_msg("no %s/%s", w, t);
	return NULL;
}

START_TEST(test_relative)
{
	size_t n, nr;
	struct falcon_rjob *j = sample(&n);
	struct falcon_rrel *r;
	const struct falcon_rrel *x;

	ck_assert_int_eq(falcon_report_relative(j, n, &r, &nr), FALCON_OK);
	ck_assert_uint_eq(nr, 3 + 2 + 2); /* bert 3, resnet 2, vgg 2; cpu-only left out */
	x = rel(r, nr, "bert", "falconGPUs");
	ck_assert_double_eq_tol(x->rel, 2.0, 1e-9);
	ck_assert_str_eq(x->baseline, "localGPUs");
	ck_assert(!x->fastest);
	x = rel(r, nr, "bert", "hybridGPUs");
	ck_assert_double_eq_tol(x->rel, 1.5, 1e-9);
	x = rel(r, nr, "resnet", "localGPUs");
	ck_assert_uint_eq(x->jobs, 3);
	ck_assert_uint_eq(x->median, 1100);
	ck_assert_double_eq_tol(x->rel, 1.0, 1e-9);
	x = rel(r, nr, "resnet", "falconGPUs");
	ck_assert_uint_eq(x->median, 1050);
	ck_assert_double_eq_tol(x->rel, 1050.0 / 1100, 1e-9);
	x = rel(r, nr, "vgg<&>\"", "hybridGPUs");
	ck_assert(x->fastest);
	ck_assert_str_eq(x->baseline, "falconGPUs");
	ck_assert_double_eq_tol(x->rel, 1.25, 1e-9);
	free(r);
	free(j);
}
END_TEST

START_TEST(test_devices)
{
	size_t n, nd;
	struct falcon_rjob *j = sample(&n);
	struct falcon_rhist h[] = {
		{ "c1", "drawer1_slot1", "n1", "L1", "", "released", 103, 1, 2 },
		{ "c1", "drawer1_slot1", "n1", "L2", "", "quarantined", 104, 3, 4 },
		{ "c1", "drawer1_slot1", "n2", "L3", "", "released; kept warm", 104, 5, 6 },
		/* kept warm 1 h, then reused: idle, no lease of a job */
		{ "c1", "drawer1_slot1", "n2", "L3", "", "kept warm; reused by job 105", 104, 6, 3606 },
		{ "c1", "drawer1_slot2", "n1", "L4", "fail", "released; check: fail", 103, 1, 2 },
		{ "c0", "drawer2_slot8", "n1", "L5", "", "released", 999, 1, 0 },
	};
	struct falcon_rdev *d;

	ck_assert_int_eq(falcon_report_devices(h, ARRAY_SIZE(h), j, n, &d, &nd), FALCON_OK);
	ck_assert_uint_eq(nd, 3);
	ck_assert_str_eq(d[0].chassis, "c0");
	ck_assert_uint_eq(d[0].check_fail, 0);
	ck_assert_str_eq(d[1].device, "drawer1_slot1");
	ck_assert_uint_eq(d[1].entries, 3);
	ck_assert_uint_eq(d[1].jobs, 2);
	ck_assert_uint_eq(d[1].check_fail, 2); /* job 104's tag says fail */
	ck_assert_uint_eq(d[1].quarantined, 1);
	ck_assert_double_eq_tol(d[1].idle_h, 1.0, 1e-9);
	ck_assert_uint_eq(d[2].check_fail, 1);
	ck_assert_double_eq_tol(d[2].idle_h, 0.0, 1e-9);
	free(d);
	free(j);
}
END_TEST

/* write r as fmt into a temporary file; returns its text (free()). */
static char *render(const struct falcon_report *r, enum falcon_rfmt fmt, const char *path)
{
	FILE *f = fopen(path, "w");
	char *text = NULL;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(falcon_report_write(f, r, fmt), FALCON_OK);
	fclose(f);
	ck_assert_int_eq(falcon_read_file(path, 1 << 20, &text, NULL), FALCON_OK);
	return text;
}

START_TEST(test_write)
{
	size_t n, ng, nr, i, lines = 0;
	struct falcon_rjob *j = sample(&n);
	struct falcon_rgroup *g;
	struct falcon_rrel *r;
	struct falcon_report rep = { .start = 1700000000, .end = 1700086400, .njobs = n };
	const char *dir = make_tmpdir("report");
	char path[4200], cmd[4300], *t;
	const char *p;
	json_object *o, *a;

	ck_assert_int_eq(falcon_report_groups(j, n, FALCON_RBY_TOPOLOGY, &g, &ng), FALCON_OK);
	ck_assert_int_eq(falcon_report_relative(j, n, &r, &nr), FALCON_OK);
	rep.groups = g;
	rep.ngroups = ng;
	rep.rel = r;
	rep.nrel = nr;
	snprintf(path, sizeof(path), "%s/out", dir);

	t = render(&rep, FALCON_RFMT_JSON, path);
	o = json_tokener_parse(t);
	ck_assert_ptr_nonnull(o);
	ck_assert(json_object_object_get_ex(o, "groups", &a));
	ck_assert_uint_eq(json_object_array_length(a), ng);
	ck_assert(json_object_object_get_ex(o, "relative", &a));
	ck_assert_uint_eq(json_object_array_length(a), nr);
	json_object_put(o);
	free(t);

	t = render(&rep, FALCON_RFMT_CSV, path);
	ck_assert(strncmp(t, "section,key,topology,jobs,", 26) == 0);
	for (i = 0; t[i]; i++)
		lines += t[i] == '\n';
	ck_assert_uint_eq(lines, 1 + ng + nr);
	ck_assert_ptr_nonnull(strstr(t, "\nrelative,\"vgg<&>\"\"\",hybridGPUs,1,"));
	free(t);

	t = render(&rep, FALCON_RFMT_TABLE, path);
	ck_assert_ptr_nonnull(strstr(t, "TOPOLOGY"));
	ck_assert_ptr_nonnull(strstr(t, "bert"));
	free(t);

	t = render(&rep, FALCON_RFMT_SVG, path);
	ck_assert_ptr_nonnull(strstr(t, "vgg&lt;&amp;&gt;&quot;"));
	ck_assert_ptr_null(strstr(t, "vgg<"));
	/* one falcon and one local bar per group, one bar per relative row */
	lines = 0;
	for (p = t; (p = strstr(p, "class=\"bar ")) != NULL; p++)
		lines++;
	ck_assert_uint_eq(lines, 2 * ng + nr);
	free(t);
	if (access("/usr/bin/xmllint", X_OK) == 0) {
		snprintf(cmd, sizeof(cmd), "/usr/bin/xmllint --noout '%s'", path);
		ck_assert_int_eq(system(cmd), 0);
	}
	free(g);
	free(r);
	free(j);
}
END_TEST

START_TEST(test_names)
{
	ck_assert_int_eq(falcon_rby_from_str("device"), FALCON_RBY_DEVICE);
	ck_assert_int_eq(falcon_rby_from_str("nodes"), -1);
	ck_assert_int_eq(falcon_rfmt_from_str("svg"), FALCON_RFMT_SVG);
	ck_assert_int_eq(falcon_rfmt_from_str("xml"), -1);
	ck_assert_int_eq(falcon_rfmt_from_str(NULL), -1);
	ck_assert_str_eq(falcon_rby_str(FALCON_RBY_USER), "user");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_time, 0, ARRAY_SIZE(time_cases));
	tcase_add_test(tc, test_today);
	tcase_add_test(tc, test_tres);
	tcase_add_loop_test(tc, test_classify, 0, ARRAY_SIZE(classify_cases));
	tcase_add_test(tc, test_rank);
	tcase_add_test(tc, test_groups);
	tcase_add_test(tc, test_relative);
	tcase_add_test(tc, test_devices);
	tcase_add_test(tc, test_write);
	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
