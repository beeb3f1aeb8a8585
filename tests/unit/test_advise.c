/*
 * test_advise.c - falconctl advise's pure part: the rule of advise.h over
 * relative-runtime rows (from falcon_report_relative, as the command gets
 * them) and an availability now; node GRES strings; the JSON writer.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "advise/advise.h"
#include "testutil.h"
#include "core/util.h"

/* rows - the relative-runtime rows of jobs: n jobs of wl on topo, each of
 * elapsed s, through falcon_report_relative() as falconctl advise does. */
struct spec { const char *wl, *topo; size_t n; uint32_t s; };

static struct falcon_rrel *rows(const struct spec *sp, size_t nsp, size_t *nrel)
{
	struct falcon_rjob j[64];
	struct falcon_rrel *rel = NULL;
	size_t i, k, n = 0;

	memset(j, 0, sizeof(j));
	for (i = 0; i < nsp; i++)
		for (k = 0; k < sp[i].n; k++, n++) {
			ck_assert_uint_lt(n, ARRAY_SIZE(j));
			j[n].job_id = (uint32_t)n + 1;
			j[n].workload = sp[i].wl;
			falcon_strlcpy(j[n].topo, sp[i].topo, sizeof(j[n].topo));
			/* elapsed s, s+1, s-1, ...: the median stays s */
			j[n].elapsed = sp[i].s + (k % 2 ? 1 : 0) - (k && k % 2 == 0 ? 1 : 0);
		}
	ck_assert_int_eq(falcon_report_relative(j, n, &rel, nrel), FALCON_OK);
	return rel;
}

static const struct spec bert[] = {
	{ "bert-large", "localGPUs", 5, 100 },
	{ "bert-large", "falconGPUs", 7, 197 },
	{ "bert-large", "falconGPUs+falconNVMe", 4, 150 },
	{ "resnet", "localGPUs", 3, 50 },
};

/* three nodes of 8 local GPUs and 8 falcon_gpu slots, one chassis of 8 */
static struct falcon_anode nodes[3] = {
	{ "n1", 8, 8, 8, 8 }, { "n2", 8, 8, 8, 8 }, { "n3", 8, 8, 8, 8 },
};
static struct falcon_achassis pool[1] = { { "falcon1", 8, 8 } };

static void reset(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(nodes); i++) {
		nodes[i].gpus_free = nodes[i].gpus;
		nodes[i].falcon_gpus_free = nodes[i].falcon_gpus;
	}
	pool[0].gpus_free = pool[0].gpus;
}

static const struct falcon_avail avail = { nodes, 3, pool, 1, true };

START_TEST(test_local_free)
{
	struct falcon_advice a;
	struct falcon_rrel *rel;
	char line[1024];
	size_t n;

	reset();
	rel = rows(bert, ARRAY_SIZE(bert), &n);
	ck_assert_int_eq(falcon_advise(rel, n, "bert-large", &avail, 4, 0, &a), FALCON_OK);
	ck_assert_int_eq(a.ntopo, 2); /* +falconNVMe left out */
	ck_assert_int_eq(a.pick, 0);
	ck_assert_str_eq(a.topo[0].topo, "localGPUs");
	ck_assert_str_eq(a.topo[0].option, "--gres=gpu:4");
	ck_assert_str_eq(a.topo[1].option, "--gres=falcon_gpu:4");
	ck_assert_int_eq(a.topo[1].now, FALCON_ANOW_FREE);
	ck_assert_str_eq(falcon_advise_line(&a, line, sizeof(line)),
			 "bert-large: localGPUs 1.00 (5 jobs), falconGPUs 1.97 (7 jobs): "
			 "ask for --gres=gpu:4 (localGPUs); local GPUs free on 3 nodes");
	/* two nodes busy: still local, on the one left */
	nodes[0].gpus_free = nodes[1].gpus_free = 2;
	ck_assert_int_eq(falcon_advise(rel, n, "bert-large", &avail, 4, 0, &a), FALCON_OK);
	ck_assert_int_eq(a.pick, 0);
	ck_assert_str_eq(a.reason, "local GPUs free on 1 node");
	free(rel);
}
END_TEST

START_TEST(test_local_busy_falcon_free)
{
	struct falcon_advice a;
	struct falcon_rrel *rel;
	size_t n;

	reset();
	nodes[0].gpus_free = nodes[1].gpus_free = nodes[2].gpus_free = 3;
	rel = rows(bert, ARRAY_SIZE(bert), &n);
	ck_assert_int_eq(falcon_advise(rel, n, "bert-large", &avail, 4, 0, &a), FALCON_OK);
	ck_assert_int_eq(a.pick, 1);
	ck_assert_str_eq(a.topo[1].topo, "falconGPUs");
	ck_assert_str_eq(a.topo[1].option, "--gres=falcon_gpu:4");
	ck_assert_int_eq(a.topo[0].now, FALCON_ANOW_BUSY);
	ck_assert_str_eq(a.reason, "falcon GPUs free in falcon1 (8); localGPUs is faster but "
				   "local GPUs busy (no node has 4 free); falconGPUs takes 1.97x "
				   "localGPUs's time");
	/* the pool busy too: the faster one, its wait unknown */
	pool[0].gpus_free = 2;
	ck_assert_int_eq(falcon_advise(rel, n, "bert-large", &avail, 4, 0, &a), FALCON_OK);
	ck_assert_int_eq(a.pick, 0);
	ck_assert_int_eq(a.topo[1].now, FALCON_ANOW_BUSY);
	ck_assert_ptr_nonnull(strstr(a.reason, "nothing is free now, wait unknown"));
	/* falcond did not answer: falcon unknown, never picked as free */
	{
		struct falcon_avail nof = { nodes, 3, NULL, 0, false };

		ck_assert_int_eq(falcon_advise(rel, n, "bert-large", &nof, 4, 0, &a), FALCON_OK);
		ck_assert_int_eq(a.topo[1].now, FALCON_ANOW_UNKNOWN);
		ck_assert_int_eq(a.pick, 0);
	}
	/* more than a chassis holds: never */
	nodes[0].gpus = nodes[0].falcon_gpus = 16;
	ck_assert_int_eq(falcon_advise(rel, n, "bert-large", &avail, 12, 0, &a), FALCON_OK);
	ck_assert_int_eq(a.topo[1].now, FALCON_ANOW_NEVER);
	ck_assert_str_eq(a.topo[1].option, "");
	ck_assert_str_eq(a.topo[1].where, "no chassis has 12 GPUs");
	nodes[0].gpus = nodes[0].falcon_gpus = 8;
	/* local history only, more GPUs than a node has: no advice, and why */
	ck_assert_int_eq(falcon_advise(rel, n, "resnet", &avail, 12, 0, &a), FALCON_OK);
	ck_assert_int_eq(a.pick, -1);
	ck_assert_str_eq(a.reason, "no topology with history can give 12 GPUs: no node has 12 "
				   "local GPUs");
	free(rel);
}
END_TEST

START_TEST(test_history)
{
	static const struct spec few[] = {
		{ "w", "localGPUs", 2, 100 }, { "w", "falconGPUs", 1, 120 },
	};
	static const struct spec some[] = {
		{ "w", "localGPUs", 2, 100 }, { "w", "falconGPUs", 4, 120 },
	};
	struct falcon_advice a;
	struct falcon_rrel *rel;
	char line[1024];
	size_t n;

	reset();
	rel = rows(few, ARRAY_SIZE(few), &n);
	ck_assert_int_eq(falcon_advise(rel, n, "w", &avail, 2, 0, &a), FALCON_OK);
	ck_assert_int_eq(a.pick, -1);
	ck_assert_str_eq(falcon_advise_line(&a, line, sizeof(line)),
			 "w: localGPUs 1.00 (2 jobs, untrusted), falconGPUs 1.20 (1 job, untrusted): "
			 "no advice; too little history: localGPUs 2 jobs, falconGPUs 1 job "
			 "(fewer than 3 each)");
	/* --min-jobs 1 trusts them */
	ck_assert_int_eq(falcon_advise(rel, n, "w", &avail, 2, 1, &a), FALCON_OK);
	ck_assert_int_eq(a.pick, 0);
	free(rel);
	/* the faster one untrusted: the trusted one, and said so */
	rel = rows(some, ARRAY_SIZE(some), &n);
	ck_assert_int_eq(falcon_advise(rel, n, "w", &avail, 2, 0, &a), FALCON_OK);
	ck_assert_int_eq(a.pick, 1);
	ck_assert_str_eq(a.reason, "falcon GPUs free in falcon1 (8); too little history "
				   "(untrusted): localGPUs 2 jobs");
	free(rel);
}
END_TEST

START_TEST(test_unknown)
{
	static const struct spec nv[] = { { "io", "falconNVMe", 5, 10 } };
	struct falcon_advice a;
	struct falcon_rrel *rel;
	size_t n;

	reset();
	rel = rows(bert, ARRAY_SIZE(bert), &n);
	ck_assert_int_eq(falcon_advise(rel, n, "gpt", &avail, 1, 0, &a), FALCON_ERR_NOTFOUND);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "gpt"));
	ck_assert_int_eq(falcon_advise(rel, n, "bert-large", &avail, 0, 0, &a), FALCON_ERR_INVAL);
	ck_assert_int_eq(falcon_advise(rel, n, "bert-large", &avail, 65, 0, &a), FALCON_ERR_INVAL);
	free(rel);
	/* NVMe only: no GPU topology to advise */
	rel = rows(nv, ARRAY_SIZE(nv), &n);
	ck_assert_int_eq(falcon_advise(rel, n, "io", &avail, 1, 0, &a), FALCON_ERR_NOTFOUND);
	free(rel);
	ck_assert_int_eq(falcon_advise(NULL, 0, "io", &avail, 1, 0, &a), FALCON_ERR_NOTFOUND);
}
END_TEST

START_TEST(test_hybrid)
{
	static const struct spec h[] = {
		{ "h", "localGPUs", 3, 100 }, { "h", "hybridGPUs", 3, 110 },
		{ "h", "falconGPUs", 3, 130 },
	};
	struct falcon_advice a;
	struct falcon_rrel *rel;
	size_t n;

	reset();
	nodes[0].gpus_free = 0;
	nodes[1].gpus_free = 1;
	nodes[2].gpus_free = 3;
	rel = rows(h, ARRAY_SIZE(h), &n);
	ck_assert_int_eq(falcon_advise(rel, n, "h", &avail, 4, 0, &a), FALCON_OK);
	ck_assert_int_eq(a.pick, 1);
	ck_assert_str_eq(a.topo[1].option, "--gres=gpu:3,falcon_gpu:1");
	ck_assert_str_eq(a.topo[1].where, "3 local + 1 falcon GPUs free on n3");
	/* one GPU cannot be hybrid */
	ck_assert_int_eq(falcon_advise(rel, n, "h", &avail, 1, 0, &a), FALCON_OK);
	ck_assert_int_eq(a.topo[1].now, FALCON_ANOW_NEVER);
	ck_assert_int_eq(a.pick, 0);
	free(rel);
}
END_TEST

static const struct { const char *gres, *name; uint64_t n; } gres_cases[] = {
	{ "gpu:4", "gpu", 4 },
	{ "gpu:8,falcon_gpu:8", "falcon_gpu", 8 },
	{ "gpu:8,falcon_gpu:8", "gpu", 8 },
	{ "falcon_gpu:8", "gpu", 0 },
	{ "gpu:a100:2(S:0-1),gpu:v100:2(S:0,1)", "gpu", 4 },
	{ "gpu:(null):1(IDX:0),falcon_gpu:0", "gpu", 1 },
	{ "gpu:a100:0(IDX:N/A)", "gpu", 0 },
	{ "gpu:x", "gpu", 0 },
	{ "gpu", "gpu", 0 },
	{ "(null)", "gpu", 0 },
	{ "", "gpu", 0 },
	{ NULL, "gpu", 0 },
};

START_TEST(test_gres)
{
	ck_assert_uint_eq(falcon_gres_count(gres_cases[_i].gres, gres_cases[_i].name),
			  gres_cases[_i].n);
}
END_TEST

START_TEST(test_write_json)
{
	struct falcon_advice a[2];
	struct falcon_rrel *rel;
	struct falcon_avail nof = { nodes, 3, NULL, 0, false };
	json_object *o, *v, *e;
	char *buf = NULL;
	size_t n, len = 0;
	FILE *f;

	reset();
	rel = rows(bert, ARRAY_SIZE(bert), &n);
	ck_assert_int_eq(falcon_advise(rel, n, "bert-large", &nof, 2, 0, &a[0]), FALCON_OK);
	ck_assert_int_eq(falcon_advise(rel, n, "resnet", &nof, 2, 0, &a[1]), FALCON_OK);
	ck_assert_ptr_nonnull(f = open_memstream(&buf, &len));
	ck_assert_int_eq(falcon_advise_write(f, a, 2, 2, &nof, "falcond: down", 10, 20, 0, true),
			 FALCON_OK);
	fclose(f);
	ck_assert_ptr_nonnull(o = json_tokener_parse(buf));
	ck_assert(json_object_object_get_ex(o, "gpus", &v) && json_object_get_int(v) == 2);
	ck_assert(json_object_object_get_ex(o, "min_jobs", &v) && json_object_get_int(v) == 3);
	ck_assert(json_object_object_get_ex(o, "availability", &v));
	ck_assert(json_object_object_get_ex(v, "chassis", &e) && e == NULL);
	ck_assert(json_object_object_get_ex(v, "nodes", &e) && json_object_array_length(e) == 3);
	ck_assert(json_object_object_get_ex(o, "advice", &v) && json_object_array_length(v) == 2);
	e = json_object_array_get_idx(v, 0);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(e, "topology")), "localGPUs");
	ck_assert_str_eq(json_object_get_string(json_object_object_get(e, "sbatch")), "--gres=gpu:2");
	e = json_object_array_get_idx(json_object_object_get(e, "topologies"), 1);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(e, "now")), "unknown");
	ck_assert(json_object_get_double(json_object_object_get(e, "relative")) > 1.96);
	json_object_put(o);
	free(buf);
	free(rel);
}
END_TEST

/* --falcon-topology=auto: the history's pick among the allowed
 * topologies, else what is free now, local first */
START_TEST(test_auto)
{
	const unsigned all = FALCON_AUTO_LOCAL | FALCON_AUTO_HYBRID | FALCON_AUTO_FALCON;
	struct falcon_rrel *rel;
	struct falcon_auto o;
	size_t n, i;

	reset();
	rel = rows(bert, ARRAY_SIZE(bert), &n);
	/* history: local 1.00, falcon 1.97; all free: local */
	ck_assert_int_eq(falcon_advise_auto(rel, n, "bert-large", &avail, 4, all, &o), FALCON_OK);
	ck_assert_str_eq(o.topo, "localGPUs");
	ck_assert(o.history && o.local == 4 && o.falcon == 0);
	ck_assert_ptr_nonnull(strstr(o.reason, "bert-large: localGPUs 1.00"));
	/* the partition allows falcon GPUs only */
	ck_assert_int_eq(falcon_advise_auto(rel, n, "bert-large", &avail, 4, FALCON_AUTO_FALCON,
					    &o), FALCON_OK);
	ck_assert_str_eq(o.topo, "falconGPUs");
	ck_assert(o.history && o.local == 0 && o.falcon == 4);
	/* local GPUs taken on every node: falcon, free now, wins */
	for (i = 0; i < ARRAY_SIZE(nodes); i++)
		nodes[i].gpus_free = 2;
	ck_assert_int_eq(falcon_advise_auto(rel, n, "bert-large", &avail, 4, all, &o), FALCON_OK);
	ck_assert_str_eq(o.topo, "falconGPUs");
	ck_assert(o.history && o.falcon == 4);
	/* no history of the workload: what is free now (falcon), then local */
	ck_assert_int_eq(falcon_advise_auto(rel, n, "new-model", &avail, 4, all, &o), FALCON_OK);
	ck_assert_str_eq(o.topo, "falconGPUs");
	ck_assert(!o.history);
	ck_assert_ptr_nonnull(strstr(o.reason, "new-model: no advice from history"));
	reset();
	ck_assert_int_eq(falcon_advise_auto(rel, n, "new-model", &avail, 4, all, &o), FALCON_OK);
	ck_assert_str_eq(o.topo, "localGPUs");
	ck_assert_ptr_nonnull(strstr(o.reason, "local GPUs free on 3 nodes"));
	/* nothing free, local allowed: local (its wait) */
	for (i = 0; i < ARRAY_SIZE(nodes); i++)
		nodes[i].gpus_free = 0;
	pool[0].gpus_free = 0;
	ck_assert_int_eq(falcon_advise_auto(NULL, 0, "new-model", &avail, 4, FALCON_AUTO_LOCAL |
					    FALCON_AUTO_FALCON, &o), FALCON_OK);
	ck_assert_str_eq(o.topo, "localGPUs");
	ck_assert_ptr_nonnull(strstr(o.reason, "nothing is free now"));
	/* 9 GPUs: no node has 9 local GPUs nor a chassis 9 */
	ck_assert_int_eq(falcon_advise_auto(rel, n, "new-model", &avail, 9, all, &o), FALCON_OK);
	ck_assert_str_eq(o.topo, "");
	ck_assert_ptr_nonnull(strstr(o.reason, "no allowed topology can give 9 GPUs"));
	ck_assert_int_eq(falcon_advise_auto(rel, n, "x", &avail, 0, all, &o), FALCON_ERR_INVAL);
	free(rel);
}
END_TEST

/* the rows job_submit_falcon reads back from `falconctl advise --save` */
START_TEST(test_advice_rows)
{
	struct falcon_advice a[2];
	struct falcon_rrel *rel, *back;
	struct falcon_auto o1, o2;
	json_object *o;
	char *buf = NULL;
	size_t n, nb, len = 0;
	FILE *f;

	reset();
	rel = rows(bert, ARRAY_SIZE(bert), &n);
	ck_assert_int_eq(falcon_advise(rel, n, "bert-large", &avail, 4, 0, &a[0]), FALCON_OK);
	ck_assert_int_eq(falcon_advise(rel, n, "resnet", &avail, 4, 0, &a[1]), FALCON_OK);
	ck_assert_ptr_nonnull(f = open_memstream(&buf, &len));
	ck_assert_int_eq(falcon_advise_write(f, a, 2, 4, &avail, NULL, 10, 20, 0, true), FALCON_OK);
	fclose(f);
	ck_assert_ptr_nonnull(o = json_tokener_parse(buf));
	ck_assert_int_eq(falcon_advice_rows(o, &back, &nb), FALCON_OK);
	json_object_put(o);
	ck_assert_uint_eq(nb, 3);
	ck_assert_str_eq(back[0].workload, "bert-large");
	ck_assert_str_eq(back[0].topo, "localGPUs");
	ck_assert_uint_eq(back[0].jobs, 5);
	ck_assert_uint_eq(back[0].median, 100);
	ck_assert_str_eq(back[1].topo, "falconGPUs");
	ck_assert(back[1].rel > 1.96 && back[1].rel < 1.98);
	ck_assert_str_eq(back[2].workload, "resnet");
	/* the same choice from the rows read back */
	pool[0].gpus_free = 8;
	nodes[0].gpus_free = nodes[1].gpus_free = nodes[2].gpus_free = 0;
	ck_assert_int_eq(falcon_advise_auto(rel, n, "bert-large", &avail, 4, 7, &o1), FALCON_OK);
	ck_assert_int_eq(falcon_advise_auto(back, nb, "bert-large", &avail, 4, 7, &o2), FALCON_OK);
	ck_assert_str_eq(o1.topo, o2.topo);
	ck_assert_str_eq(o1.reason, o2.reason);
	free(back);
	/* bad documents: the member named */
	o = json_tokener_parse("{\"gpus\":4}");
	ck_assert_int_eq(falcon_advice_rows(o, &back, &nb), FALCON_ERR_PARSE);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "advice: expected an array"));
	ck_assert_ptr_null(back);
	json_object_put(o);
	o = json_tokener_parse("{\"advice\":[{\"workload\":\"w\",\"topologies\":"
			       "[{\"topology\":\"localGPUs\",\"jobs\":\"5\"}]}]}");
	ck_assert_int_eq(falcon_advice_rows(o, &back, &nb), FALCON_ERR_PARSE);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "advice[0].topologies[0].jobs: expected a number"));
	json_object_put(o);
	free(buf);
	free(rel);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("advise");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_local_free);
	tcase_add_test(tc, test_local_busy_falcon_free);
	tcase_add_test(tc, test_history);
	tcase_add_test(tc, test_unknown);
	tcase_add_test(tc, test_hybrid);
	tcase_add_loop_test(tc, test_gres, 0, ARRAY_SIZE(gres_cases));
	tcase_add_test(tc, test_write_json);
	tcase_add_test(tc, test_auto);
	tcase_add_test(tc, test_advice_rows);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
