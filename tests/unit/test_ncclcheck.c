/*
 * test_ncclcheck.c - unit tests of falcon-ncclcheck's core (no GPU needed):
 * bandwidth formulas, size sweeps, correctness pattern, budget, verdict
 * against floors, JSON schema, topology classes and argument errors.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <math.h>
#include <unistd.h>

#include "ncclcheck_core.h"
#include "testutil.h"
#include "core/util.h"

#define MiB ((size_t)1 << 20)

/* nccl-tests doc/PERFORMANCE.md: busbw = algbw * 2(n-1)/n. */
static const struct {
	int nranks;
	size_t bytes;
	double time_us;
	double algbw, busbw;
} bw_cases[] = {
	{ 1, 1000000000, 1e6, 1.0, 0.0 },        /* one rank: busbw 0 by definition */
	{ 2, 1000000000, 1e6, 1.0, 1.0 },
	{ 4, 1000000000, 1e6, 1.0, 1.5 },
	{ 8, 1000000000, 1e6, 1.0, 1.75 },
	{ 8, 268435456, 10000, 26.8435456, 46.9762048 },
	{ 4, 8, 20.0, 0.0004, 0.0006 },
	{ 2, 1024, 0.0, 0.0, 0.0 },               /* no time: no bandwidth */
};

START_TEST(test_bandwidth_formulas)
{
	double algbw = nc_algbw(bw_cases[_i].bytes, bw_cases[_i].time_us);

	ck_assert_double_eq_tol(algbw, bw_cases[_i].algbw, 1e-9);
	ck_assert_double_eq_tol(nc_busbw_allreduce(algbw, bw_cases[_i].nranks),
				bw_cases[_i].busbw, 1e-9);
}
END_TEST

START_TEST(test_p2p_gbs)
{
	/* p2pBandwidthLatencyTest: both directions' bytes over the time */
	ck_assert_double_eq_tol(nc_p2p_gbs(2.0 * 64 * MiB * 5, 27425.0), 24.47, 0.01);
	ck_assert_double_eq(nc_p2p_gbs(100, 0), 0);
}
END_TEST

START_TEST(test_hd_gbs)
{
	/* bandwidthTest: memSize * MEMCOPY_ITERATIONS / 1e9 / seconds;
	 * its default 32e6 B x 100 copies in 58.3 ms */
	ck_assert_double_eq_tol(nc_hd_gbs(32000000, 100, 58.3), 54.889, 0.001);
	/* ours: 64 MiB x NC_HD_COPIES in 6.1 ms */
	ck_assert_double_eq_tol(nc_hd_gbs(64 * MiB, 5, 6.1), 55.007, 0.001);
	ck_assert_double_eq(nc_hd_gbs(64 * MiB, 5, 0), 0);
	ck_assert_double_eq(nc_hd_gbs(64 * MiB, 0, 6.1), 0);
}
END_TEST

START_TEST(test_median)
{
	double odd[] = { 55.2, 20.0, 55.0 };     /* one disturbed batch */
	double even[] = { 5, 1, 4, 2 };
	double one[] = { 7 };

	ck_assert_double_eq(nc_median(odd, 3), 55.0);
	ck_assert_double_eq(nc_median(even, 4), 3.0);
	ck_assert_double_eq(nc_median(one, 1), 7);
	ck_assert_double_eq(nc_median(NULL, 0), 0);
}
END_TEST

START_TEST(test_sweep_quick)
{
	static const size_t want[] = { 1 * MiB, 16 * MiB, 64 * MiB, 256 * MiB };
	size_t sizes[NC_MAX_SIZES], n = 0, i;

	ck_assert_int_eq(nc_sweep(NC_LEVEL_QUICK, sizes, NC_MAX_SIZES, &n), FALCON_OK);
	ck_assert_uint_eq(n, ARRAY_SIZE(want));
	for (i = 0; i < n; i++)
		ck_assert_uint_eq(sizes[i], want[i]);
	ck_assert_int_eq(nc_sweep(NC_LEVEL_QUICK, sizes, 3, &n), FALCON_ERR_INVAL);
}
END_TEST

START_TEST(test_sweep_full)
{
	size_t sizes[NC_MAX_SIZES], n = 0, i;

	ck_assert_int_eq(nc_sweep(NC_LEVEL_FULL, sizes, NC_MAX_SIZES, &n), FALCON_OK);
	ck_assert_uint_eq(n, 28);                 /* 2^3 .. 2^30 */
	for (i = 0; i < n; i++)
		ck_assert_uint_eq(sizes[i], (size_t)8 << i);
	ck_assert_uint_eq(sizes[n - 1], 1024 * MiB);
	ck_assert_int_eq(nc_sweep(NC_LEVEL_FULL, sizes, 27, &n), FALCON_ERR_INVAL);
}
END_TEST

START_TEST(test_iters)
{
	int w, it;

	nc_iters(8, &w, &it);
	ck_assert_int_eq(w, 5);
	ck_assert_int_eq(it, 20);
	nc_iters(64 * MiB, &w, &it);
	ck_assert_int_eq(it, 10);
	nc_iters(1024 * MiB, &w, &it);
	ck_assert_int_eq(it, 5);
}
END_TEST

START_TEST(test_correctness_pattern)
{
	float buf[3][200], sum[200];
	size_t i;
	int r, n;

	/* exact for every rank count we allow: the largest sum is below 2^24 */
	ck_assert_float_eq(nc_expected(63, NC_MAX_GPUS),
			   (float)(NC_MAX_GPUS * 64 + NC_MAX_GPUS * (NC_MAX_GPUS - 1) / 2));
	for (n = 1; n <= 3; n++) {
		for (r = 0; r < n; r++)
			nc_fill(buf[r], 200, r);
		for (i = 0; i < 200; i++)
			for (sum[i] = 0, r = 0; r < n; r++)
				sum[i] += buf[r][i];
		ck_assert_int_eq(nc_count_wrong(sum, 200, n), 0);
		ck_assert_int_eq(nc_count_wrong(sum, 200, n + 1), 200);
	}
	sum[7] += 1;
	sum[150] = NAN;
	ck_assert_int_eq(nc_count_wrong(sum, 200, 3), 2);
	ck_assert_float_eq(nc_input(64, 0), 1.0f);
}
END_TEST

START_TEST(test_budget)
{
	ck_assert(nc_budget_allows(0, 60, 0, 0, 1));           /* nothing known yet */
	ck_assert(!nc_budget_allows(60, 60, 0, 0, 1));         /* out of time */
	ck_assert(nc_budget_allows(10, 60, 1, 64, 256));       /* 10 + 4.4 <= 60 */
	ck_assert(!nc_budget_allows(50, 60, 3, 64, 256));      /* 50 + 13.2 > 60 */
	ck_assert(!nc_budget_allows(55, 60, 5, 1, 1));         /* 55 + 5.5 > 60 */
	ck_assert(nc_budget_allows(54, 60, 5, 256, 64));       /* never below last_s */
}
END_TEST

/* A result with 2 ranks, busbw peak 20 at 256 MiB, one F-F and one F-L pair. */
static void sample_result(struct nc_result *r, int ngpus)
{
	static const size_t sizes[] = { 1 * MiB, 256 * MiB };
	static const double busbw[] = { 5.0, 20.0 };
	size_t i;
	int g;

	nc_result_init(r, NC_LEVEL_QUICK, 60);
	r->ngpus = ngpus;
	for (g = 0; g < ngpus; g++) {
		r->gpus[g].index = g;
		snprintf(r->gpus[g].bdf, sizeof(r->gpus[g].bdf), "0000:%02x:00.0", 0x3b + g);
		snprintf(r->gpus[g].name, sizeof(r->gpus[g].name), "Tesla V100-PCIE-32GB");
	}
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct nc_ar_row *a = &r->ar[r->nar++];

		a->bytes = sizes[i];
		a->count = sizes[i] / 4;
		a->oop.busbw = busbw[i];
		a->oop.algbw = ngpus > 1 ? busbw[i] * ngpus / (2.0 * (ngpus - 1)) : busbw[i];
		if (ngpus < 2)
			a->oop.busbw = 0;
		a->oop.time_us = 100;
		a->ip = a->oop;
		a->ip.busbw *= 0.99;
	}
	if (ngpus >= 2) {
		r->p2p[0] = (struct nc_p2p_row){ .a = 0, .b = 1, .cls = "F-F PIX",
						  .bidir_gbs = 24.0, .latency_us = 2.1,
						  .p2p_access = true };
		r->p2p[1] = (struct nc_p2p_row){ .a = 0, .b = 2, .cls = "F-L SYS",
						  .bidir_gbs = 19.0, .latency_us = 2.7,
						  .p2p_access = false };
		r->np2p = 2;
	}
}

static const struct {
	const char *name;
	int ngpus;
	struct nc_floors floors;
	long long wrong;          /* put into the 256 MiB row */
	nc_status_t preset;       /* status set by the glue before */
	nc_status_t want;
	int want_pair;            /* weakest pair index */
	size_t want_size;         /* weakest size bytes */
	const char *reason_has;
} verdict_cases[] = {
	{ "no floors", 2, { 0, 0, 0, 0 }, 0, NC_STATUS_PASS, NC_STATUS_PASS, 1, 256 * MiB,
	  "busbw 20.00 GB/s" },
	{ "busbw above floor", 2, { 19, 0, 0, 0 }, 0, NC_STATUS_PASS, NC_STATUS_PASS, 1,
	  256 * MiB, "weakest pair GPU 0-2" },
	{ "busbw exactly the floor", 2, { 20, 0, 0, 0 }, 0, NC_STATUS_PASS, NC_STATUS_PASS, 1,
	  256 * MiB, "" },
	{ "busbw 5 % under", 2, { 21, 0, 0, 0 }, 0, NC_STATUS_PASS, NC_STATUS_WARN, 1,
	  256 * MiB, "within 10 %" },
	{ "busbw 20 % under", 2, { 25, 0, 0, 0 }, 0, NC_STATUS_PASS, NC_STATUS_FAIL, 1,
	  256 * MiB, "below MinBusBW 25.00" },
	{ "one rank: busbw floor n/a", 1, { 25, 0, 0, 0 }, 0, NC_STATUS_PASS, NC_STATUS_PASS,
	  -1, 256 * MiB, "not applicable" },
	{ "F-F pair under its floor", 2, { 0, 30, 0, 0 }, 0, NC_STATUS_PASS, NC_STATUS_FAIL, 0,
	  256 * MiB, "GPU 0-1 (F-F PIX)" },
	{ "F-L pair within 10 %", 2, { 0, 24, 20, 0 }, 0, NC_STATUS_PASS, NC_STATUS_WARN, 1,
	  256 * MiB, "GPU 0-2 (F-L SYS)" },
	{ "L-L floor, no L-L pair", 2, { 0, 0, 0, 70 }, 0, NC_STATUS_PASS, NC_STATUS_PASS, 1,
	  256 * MiB, "" },
	{ "wrong elements", 2, { 0, 0, 0, 0 }, 3, NC_STATUS_PASS, NC_STATUS_FAIL, 1, 256 * MiB,
	  "6 wrong elements, first at 268435456 B" },
	{ "glue failure kept", 2, { 19, 0, 0, 0 }, 0, NC_STATUS_FAIL, NC_STATUS_FAIL, 1,
	  256 * MiB, "preset" },
	{ "skipped kept", 2, { 19, 0, 0, 0 }, 0, NC_STATUS_SKIPPED, NC_STATUS_SKIPPED, 1,
	  256 * MiB, "preset" },
};

START_TEST(test_verdict)
{
	static struct nc_result r;

	sample_result(&r, verdict_cases[_i].ngpus);
	r.ar[1].oop.wrong = verdict_cases[_i].wrong;
	r.ar[1].ip.wrong = verdict_cases[_i].wrong;
	if (verdict_cases[_i].preset != NC_STATUS_PASS) {
		r.status = verdict_cases[_i].preset;
		snprintf(r.reason, sizeof(r.reason), "preset");
	}
	nc_verdict(&r, &verdict_cases[_i].floors);
	ck_assert_msg(r.status == verdict_cases[_i].want, "%s: status %s, want %s (%s)",
		      verdict_cases[_i].name, nc_status_str(r.status),
		      nc_status_str(verdict_cases[_i].want), r.reason);
	ck_assert_int_eq(r.weakest.pair, verdict_cases[_i].want_pair);
	ck_assert_int_ge(r.weakest.size, 0);
	ck_assert_uint_eq(r.ar[r.weakest.size].bytes, verdict_cases[_i].want_size);
	ck_assert_msg(strstr(r.reason, verdict_cases[_i].reason_has) != NULL,
		      "%s: reason '%s' lacks '%s'", verdict_cases[_i].name, r.reason,
		      verdict_cases[_i].reason_has);
	if (verdict_cases[_i].ngpus >= 2)
		ck_assert_double_eq_tol(r.busbw_peak, 20.0, 1e-9);
}
END_TEST

START_TEST(test_verdict_nothing_measured)
{
	static struct nc_result r;
	struct nc_floors f = { .busbw = 10 };

	nc_result_init(&r, NC_LEVEL_QUICK, 5);
	r.ngpus = 2;
	r.truncated = true;
	nc_verdict(&r, &f);
	ck_assert_int_eq(r.status, NC_STATUS_WARN);
	ck_assert_ptr_nonnull(strstr(r.reason, "no all-reduce measured"));
	ck_assert_ptr_nonnull(strstr(r.reason, "budget"));
	ck_assert_int_eq(r.weakest.size, -1);
	ck_assert_int_eq(r.weakest.pair, -1);
}
END_TEST

/* One rank, as falcon-ncclcheck measured it on an H100 (issue 30): the
 * in-place all-reduce is a no-op in NCCL (about 1 us at 256 MiB, an
 * "algbw" of 193 TB/s) while the out-of-place copy runs at the memory's
 * speed.  The peak, the weakest size and the reason are the out-of-place
 * figures. */
START_TEST(test_verdict_one_rank_inplace)
{
	static struct nc_result r;
	static const struct { size_t bytes; double oop_us, ip_us; } m[] = {
		{ 1 * MiB, 6.64, 0.73 }, { 16 * MiB, 9.28, 1.65 },
		{ 64 * MiB, 47.95, 0.72 }, { 256 * MiB, 180.73, 1.39 },
	};
	struct nc_floors f = { 0 };
	size_t i;

	nc_result_init(&r, NC_LEVEL_QUICK, 60);
	r.ngpus = 1;
	for (i = 0; i < ARRAY_SIZE(m); i++) {
		struct nc_ar_row *a = &r.ar[r.nar++];

		a->bytes = m[i].bytes;
		a->count = m[i].bytes / 4;
		a->oop.time_us = m[i].oop_us;
		a->oop.algbw = nc_algbw(m[i].bytes, m[i].oop_us);
		a->ip.time_us = m[i].ip_us;
		a->ip.algbw = nc_algbw(m[i].bytes, m[i].ip_us);
	}
	nc_verdict(&r, &f);
	ck_assert_int_eq(r.status, NC_STATUS_PASS);
	/* 16 MiB out-of-place: 16777216 B / 9.28 us = 1807.89 GB/s */
	ck_assert_double_eq_tol(r.algbw_peak, nc_algbw(16 * MiB, 9.28), 1e-6);
	ck_assert_uint_eq(r.ar[r.weakest.size].bytes, 16 * MiB);
	ck_assert_msg(strstr(r.reason, "algbw 1807.89 GB/s at 16777216 B") != NULL,
		      "reason '%s'", r.reason);
	/* two ranks: in-place counts as before */
	r.ngpus = 2;
	r.status = NC_STATUS_PASS;
	nc_verdict(&r, &f);
	ck_assert_double_eq_tol(r.algbw_peak, nc_algbw(256 * MiB, 1.39), 1e-6);
}
END_TEST

START_TEST(test_exit_codes)
{
	ck_assert_int_eq(nc_status_exit(NC_STATUS_PASS), 0);
	ck_assert_int_eq(nc_status_exit(NC_STATUS_FAIL), 1);
	ck_assert_int_eq(nc_status_exit(NC_STATUS_ERROR), 2);
	ck_assert_int_eq(nc_status_exit(NC_STATUS_WARN), 3);
	ck_assert_int_eq(nc_status_exit(NC_STATUS_SKIPPED), 4);
	ck_assert_str_eq(nc_status_str(NC_STATUS_SKIPPED), "skipped");
}
END_TEST

/* Type of key k of o (json_type_null when absent or null). */
static json_type type_of(json_object *o, const char *k)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, k, &v))
		return json_type_null;
	return json_object_get_type(v);
}

START_TEST(test_json_roundtrip)
{
	static struct nc_result r;
	struct nc_floors f = { .busbw = 19 };
	json_object *doc = NULL, *back, *ar, *row, *p2p, *w, *x;
	const char *s;

	sample_result(&r, 4);
	r.elapsed_s = 1.5;
	nc_verdict(&r, &f);
	ck_assert_int_eq(nc_result_json(&r, &doc), FALCON_OK);
	ck_assert_int_eq(nc_json_validate(doc), FALCON_OK);
	s = json_object_to_json_string(doc);
	back = json_tokener_parse(s);
	ck_assert_ptr_nonnull(back);
	ck_assert_int_eq(nc_json_validate(back), FALCON_OK);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(back, "status")), "pass");
	ck_assert_str_eq(json_object_get_string(json_object_object_get(back, "level")), "quick");
	ck_assert_int_eq(type_of(back, "busbw_peak"), json_type_double);
	ck_assert_int_eq(type_of(back, "elapsed_s"), json_type_double);
	ck_assert_int_eq(type_of(back, "budget_s"), json_type_double);
	ar = json_object_object_get(back, "allreduce");
	ck_assert_uint_eq(json_object_array_length(ar), 2);
	row = json_object_array_get_idx(ar, 1);
	ck_assert_int_eq(json_object_get_int64(json_object_object_get(row, "bytes")), 268435456);
	ck_assert_int_eq(json_object_get_int64(json_object_object_get(row, "count")), 67108864);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(row, "type")), "float");
	ck_assert_str_eq(json_object_get_string(json_object_object_get(row, "redop")), "sum");
	ck_assert_int_eq(type_of(json_object_object_get(row, "oop"), "busbw"), json_type_double);
	ck_assert_int_eq(type_of(json_object_object_get(row, "ip"), "wrong"), json_type_int);
	p2p = json_object_object_get(back, "p2p");
	ck_assert_uint_eq(json_object_array_length(p2p), 2);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(
		json_object_array_get_idx(p2p, 0), "class")), "F-F PIX");
	ck_assert_int_eq(type_of(json_object_array_get_idx(p2p, 1), "p2p_access"),
			 json_type_boolean);
	w = json_object_object_get(back, "weakest");
	x = json_object_object_get(w, "pair");
	ck_assert_int_eq(json_object_get_int(json_object_object_get(x, "b")), 2);
	x = json_object_object_get(w, "size");
	ck_assert_int_eq(json_object_get_int64(json_object_object_get(x, "bytes")), 268435456);
	ck_assert_double_eq_tol(json_object_get_double(json_object_object_get(x, "floor_gbs")),
				19.0, 1e-9);
	json_object_put(back);
	json_object_put(doc);
}
END_TEST

START_TEST(test_json_skipped_has_nulls)
{
	static struct nc_result r;
	struct nc_floors f = { 0 };
	json_object *doc = NULL, *w, *v;

	nc_result_init(&r, NC_LEVEL_FULL, 30);
	r.status = NC_STATUS_SKIPPED;
	snprintf(r.reason, sizeof(r.reason), "no CUDA device");
	nc_verdict(&r, &f);
	ck_assert_int_eq(nc_result_json(&r, &doc), FALCON_OK);
	ck_assert_int_eq(nc_json_validate(doc), FALCON_OK);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(doc, "status")), "skipped");
	w = json_object_object_get(doc, "weakest");
	ck_assert(json_object_object_get_ex(w, "pair", &v));
	ck_assert_ptr_null(v);
	json_object_put(doc);
}
END_TEST

/* Documents the validator must refuse, and the key it must name. */
static const struct {
	const char *doc;
	const char *names;
} bad_json[] = {
	{ "[]", "expected an object" },
	{ "{\"reason\":\"\"}", "result.status: missing" },
	{ "{\"status\":\"maybe\",\"reason\":\"\",\"level\":\"quick\",\"nranks\":1,\"gpus\":[],"
	  "\"allreduce\":[],\"p2p\":[],\"weakest\":{\"pair\":null,\"size\":null},"
	  "\"hostdev_bytes\":0,\"busbw_peak\":0,\"algbw_peak\":0,\"truncated\":false,\"elapsed_s\":0,"
	  "\"budget_s\":1}", "not one of" },
	{ "{\"status\":\"pass\",\"reason\":\"\",\"level\":\"quick\",\"nranks\":\"1\",\"gpus\":[],"
	  "\"allreduce\":[],\"p2p\":[],\"weakest\":{\"pair\":null,\"size\":null},"
	  "\"hostdev_bytes\":0,\"busbw_peak\":0,\"algbw_peak\":0,\"truncated\":false,\"elapsed_s\":0,"
	  "\"budget_s\":1}", "result.nranks: expected int" },
	{ "{\"status\":\"pass\",\"reason\":\"\",\"level\":\"quick\",\"nranks\":1,\"gpus\":[],"
	  "\"allreduce\":[{\"bytes\":8,\"count\":2,\"type\":\"float\",\"redop\":\"sum\","
	  "\"oop\":{\"time_us\":1,\"algbw\":1,\"busbw\":0,\"wrong\":0},\"ip\":{}}],"
	  "\"p2p\":[],\"weakest\":{\"pair\":null,\"size\":null},"
	  "\"hostdev_bytes\":0,\"busbw_peak\":0,\"algbw_peak\":0,\"truncated\":false,\"elapsed_s\":0,"
	  "\"budget_s\":1}", "allreduce[0].ip.time_us: missing" },
	{ "{\"status\":\"pass\",\"reason\":\"\",\"level\":\"quick\",\"nranks\":2,\"gpus\":[],"
	  "\"allreduce\":[],\"p2p\":[{\"a\":0,\"b\":1,\"class\":\"F-F PIX\",\"bidir_gbs\":1,"
	  "\"latency_us\":2,\"p2p_access\":\"yes\"}],\"weakest\":{\"pair\":null,\"size\":null},"
	  "\"hostdev_bytes\":0,\"busbw_peak\":0,\"algbw_peak\":0,\"truncated\":false,\"elapsed_s\":0,"
	  "\"budget_s\":1}", "p2p[0].p2p_access: expected boolean" },
	{ "{\"status\":\"pass\",\"reason\":\"\",\"level\":\"quick\",\"nranks\":1,\"gpus\":[{"
	  "\"index\":0,\"bdf\":\"0000:06:00.0\",\"name\":\"H100\",\"h2d_gbs\":\"55\","
	  "\"d2h_gbs\":null}],\"allreduce\":[],\"p2p\":[],\"weakest\":{\"pair\":null,\"size\":null},"
	  "\"hostdev_bytes\":0,\"busbw_peak\":0,\"algbw_peak\":0,\"truncated\":false,\"elapsed_s\":0,"
	  "\"budget_s\":1}", "gpus[0].h2d_gbs: expected double" },
	{ "{\"status\":\"pass\",\"reason\":\"\",\"level\":\"quick\",\"nranks\":1,\"gpus\":[{"
	  "\"index\":0,\"bdf\":\"0000:06:00.0\",\"name\":\"H100\",\"h2d_gbs\":55}],"
	  "\"allreduce\":[],\"p2p\":[],\"weakest\":{\"pair\":null,\"size\":null},"
	  "\"hostdev_bytes\":0,\"busbw_peak\":0,\"algbw_peak\":0,\"truncated\":false,\"elapsed_s\":0,"
	  "\"budget_s\":1}", "gpus[0].d2h_gbs: missing" },
};

START_TEST(test_json_validate_rejects)
{
	json_object *doc = json_tokener_parse(bad_json[_i].doc);

	ck_assert_ptr_nonnull(doc);
	ck_assert_int_eq(nc_json_validate(doc), FALCON_ERR_PARSE);
	ck_assert_msg(strstr(falcon_errmsg(), bad_json[_i].names) != NULL, "'%s' lacks '%s'",
		      falcon_errmsg(), bad_json[_i].names);
	json_object_put(doc);
}
END_TEST

static const struct {
	const char *in;
	const char *out;          /* NULL = parse error */
} bdf_cases[] = {
	{ "0000:3b:00.0", "0000:3b:00.0" },
	{ "00000000:3B:00.0", "0000:3b:00.0" },   /* nvidia-smi style */
	{ "0001:AF:1f.7", "0001:af:1f.7" },
	{ "3b:00.0", NULL },
	{ "0000:3b:00.8", NULL },
	{ "0000:3b:20.0", NULL },
	{ "0000:3b:00.0x", NULL },
	{ "", NULL },
	{ " 0000:3b:00.0", NULL },
	{ "0x00:3b:00.0", NULL },
	{ "000000000:3b:00.0", NULL },          /* a domain of 9 digits */
	{ "10000:3b:00.0", NULL },              /* a domain over ffff */
	{ "0000:0000:3b:00.0", NULL },
	{ "0000:3b:00.0:", NULL },
};

START_TEST(test_bdf_normalize)
{
	char out[16];
	falcon_err_t rv = nc_bdf_normalize(bdf_cases[_i].in, out);

	if (bdf_cases[_i].out == NULL) {
		ck_assert_int_eq(rv, FALCON_ERR_PARSE);
	} else {
		ck_assert_int_eq(rv, FALCON_OK);
		ck_assert_str_eq(out, bdf_cases[_i].out);
	}
}
END_TEST

START_TEST(test_topo_class)
{
	static const char doc[] =
		"{\"topology\":\"hybridGPUs\",\"gpus\":["
		"{\"bdf\":\"0000:3b:00.0\"},{\"bdf\":\"0000:5E:00.0\"},{\"bdf\":\"0000:af:00.0\"}],"
		"\"matrix\":[[\"X\",\"F-F PIX\",\"F-L SYS\"],[\"F-F PIX\",\"X\",\"F-L SYS\"],"
		"[\"F-L SYS\",\"F-L SYS\",\"X\"]]}";
	const char *dir = make_tmpdir("ncclcheck");
	json_object *topo = json_tokener_parse(doc), *t = NULL;
	char cls[NC_CLASS_LEN], path[4200];
	struct nc_floors f = { .p2p_ff = 20, .p2p_fl = 15, .p2p_ll = 60 };

	ck_assert_ptr_nonnull(topo);
	nc_topo_class(topo, "0000:3b:00.0", "0000:5e:00.0", cls);
	ck_assert_str_eq(cls, "F-F PIX");
	nc_topo_class(topo, "0000:af:00.0", "0000:3b:00.0", cls);
	ck_assert_str_eq(cls, "F-L SYS");
	nc_topo_class(topo, "0000:3b:00.0", "0000:99:00.0", cls);
	ck_assert_str_eq(cls, "unknown");
	nc_topo_class(NULL, "0000:3b:00.0", "0000:5e:00.0", cls);
	ck_assert_str_eq(cls, "unknown");
	ck_assert_double_eq(nc_class_floor(&f, "F-F PIX"), 20);
	ck_assert_double_eq(nc_class_floor(&f, "F-L SYS"), 15);
	ck_assert_double_eq(nc_class_floor(&f, "L-L NODE"), 60);
	ck_assert_double_eq(nc_class_floor(&f, "unknown"), 0);
	json_object_put(topo);

	snprintf(path, sizeof(path), "%s/topology.json", dir);
	ck_assert_int_eq(falcon_write_file_atomic(path, doc, strlen(doc), 0644), FALCON_OK);
	ck_assert_int_eq(nc_topo_load(path, &t), FALCON_OK);
	json_object_put(t);
	ck_assert_int_eq(falcon_write_file_atomic(path, "{\"gpus\":[]}", 11, 0644), FALCON_OK);
	ck_assert_int_eq(nc_topo_load(path, &t), FALCON_ERR_PARSE);
	ck_assert_int_eq(falcon_write_file_atomic(path, "{\"gpus\":", 8, 0644), FALCON_OK);
	ck_assert_int_eq(nc_topo_load(path, &t), FALCON_ERR_PARSE);
	unlink(path);
	ck_assert_int_eq(nc_topo_load(path, &t), FALCON_ERR_NOTFOUND);
	rmdir(dir);
}
END_TEST

START_TEST(test_args_ok)
{
	char *argv[] = { "falcon-ncclcheck", "--gpus", "0,2-3", "--level", "full",
			 "--min-busbw", "19.5", "--budget", "30", "--json", "out.json",
			 "--topology", "t.json", "-q", NULL };
	char *argv0[] = { "falcon-ncclcheck", NULL };
	struct nc_opts o;

	ck_assert_int_eq(nc_parse_args(ARRAY_SIZE(argv) - 1, argv, &o), FALCON_OK);
	ck_assert_int_eq(o.ngpus, 3);
	ck_assert_int_eq(o.gpus[0], 0);
	ck_assert_int_eq(o.gpus[1], 2);
	ck_assert_int_eq(o.gpus[2], 3);
	ck_assert_int_eq(o.level, NC_LEVEL_FULL);
	ck_assert_double_eq(o.min_busbw, 19.5);
	ck_assert_double_eq(o.budget_s, 30);
	ck_assert_str_eq(o.json_path, "out.json");
	ck_assert_str_eq(o.topology_path, "t.json");
	ck_assert(o.quiet);
	ck_assert(o.level_set);
	/* defaults, and a second parse starts afresh */
	ck_assert_int_eq(nc_parse_args(1, argv0, &o), FALCON_OK);
	ck_assert_int_eq(o.ngpus, 0);
	ck_assert_int_eq(o.level, NC_LEVEL_QUICK);
	ck_assert(!o.level_set);
	ck_assert_double_eq(o.min_busbw, -1);
	ck_assert_double_eq(o.budget_s, 60);
	ck_assert_ptr_null(o.json_path);
}
END_TEST

/* Bad command lines and the message each must give. */
static const struct {
	const char *argv[6];
	const char *msg;
} bad_args[] = {
	{ { "--level", "slow" }, "--level: 'slow': expected quick or full" },
	{ { "--budget", "0" }, "--budget: '0' is not" },
	{ { "--budget", "ten" }, "--budget: 'ten'" },
	{ { "--min-busbw", "-3" }, "--min-busbw: '-3'" },
	{ { "--min-busbw", "nan" }, "--min-busbw" },
	{ { "--gpus", "" }, "--gpus: empty list" },
	{ { "--gpus", "0,0" }, "--gpus: device 0 listed twice" },
	{ { "--gpus", "3-1" }, "--gpus: range 3-1 is empty" },
	{ { "--gpus", "x" }, "--gpus: 'x' is not a device index" },
	{ { "--gpus", "99" }, "--gpus: '99' is not a device index" },
	{ { "--gpus", "," }, "--gpus: ',' names no device" },
	{ { "--frobnicate" }, "--frobnicate: unknown option" },
	{ { "-z" }, "-z: unknown option" },
	{ { "--json" }, "--json: option needs a value" },
	{ { "extra" }, "'extra': unexpected operand" },
	{ { "--partition", "gpu" }, "--partition: needs --config FILE" },
	{ { "--config", "f.conf", "--partition", "" }, "--partition: empty name" },
};

START_TEST(test_args_bad)
{
	char *argv[8] = { "falcon-ncclcheck" };
	struct nc_opts o;
	int argc = 1, k;

	for (k = 0; k < 6 && bad_args[_i].argv[k] != NULL; k++)
		argv[argc++] = (char *)bad_args[_i].argv[k];
	argv[argc] = NULL;
	ck_assert_int_eq(nc_parse_args(argc, argv, &o), FALCON_ERR_INVAL);
	ck_assert_msg(strstr(falcon_errmsg(), bad_args[_i].msg) != NULL,
		      "argv case %d: '%s' lacks '%s'", _i, falcon_errmsg(), bad_args[_i].msg);
}
END_TEST

/* falcon.conf floors: partition, DEFAULT fallback, --min-busbw override. */
static const struct {
	const char *partition;
	double min_busbw;
	struct nc_floors want;
	falcon_check_t check;
} floor_cases[] = {
	{ "gpu", -1, { 10, 20, 15, 60 }, FALCON_CHECK_FULL },
	{ "gpu", 12.5, { 12.5, 20, 15, 60 }, FALCON_CHECK_FULL },
	{ "debug", -1, { 0, 0, 0, 0 }, FALCON_CHECK_OFF },
	{ "nosuch", -1, { 5, 0, 0, 0 }, FALCON_CHECK_QUICK },   /* DEFAULT line */
	{ NULL, -1, { 5, 0, 0, 0 }, FALCON_CHECK_QUICK },
};

static const char floors_conf[] =
	"# test falcon.conf\n"
	"PartitionName=DEFAULT Check=quick MinBusBW=5\n"
	"PartitionName=gpu Check=full MinBusBW=10 MinP2PBW_FF=20 MinP2PBW_FL=15 \\\n"
	"\tMinP2PBW_LL=60\n"
	"PartitionName=debug Check=off MinBusBW=0\n";

START_TEST(test_floors_conf)
{
	const char *dir = make_tmpdir("ncclcheck");
	char path[4200];
	struct nc_floors f;
	falcon_check_t check;

	snprintf(path, sizeof(path), "%s/falcon.conf", dir);
	ck_assert_int_eq(falcon_write_file_atomic(path, floors_conf, strlen(floors_conf), 0644),
			 FALCON_OK);
	ck_assert_int_eq(nc_floors_load(path, floor_cases[_i].partition, floor_cases[_i].min_busbw,
					&f, &check), FALCON_OK);
	ck_assert_double_eq(f.busbw, floor_cases[_i].want.busbw);
	ck_assert_double_eq(f.p2p_ff, floor_cases[_i].want.p2p_ff);
	ck_assert_double_eq(f.p2p_fl, floor_cases[_i].want.p2p_fl);
	ck_assert_double_eq(f.p2p_ll, floor_cases[_i].want.p2p_ll);
	ck_assert_int_eq(check, floor_cases[_i].check);
	unlink(path);
	rmdir(dir);
}
END_TEST

START_TEST(test_floors_errors)
{
	const char *dir = make_tmpdir("ncclcheck");
	static const char bad[] = "PartitionName=gpu MinBusBW=fast\n";
	char path[4200];
	struct nc_floors f;
	falcon_check_t check;

	/* no falcon.conf: only --min-busbw */
	ck_assert_int_eq(nc_floors_load(NULL, NULL, 7, &f, &check), FALCON_OK);
	ck_assert_double_eq(f.busbw, 7);
	ck_assert_double_eq(f.p2p_ff, 0);
	ck_assert_int_eq(check, FALCON_CHECK_QUICK);
	snprintf(path, sizeof(path), "%s/falcon.conf", dir);
	ck_assert_int_eq(nc_floors_load(path, "gpu", -1, &f, &check), FALCON_ERR_NOTFOUND);
	ck_assert_int_eq(falcon_write_file_atomic(path, bad, strlen(bad), 0644), FALCON_OK);
	ck_assert_int_eq(nc_floors_load(path, "gpu", -1, &f, &check), FALCON_ERR_CONFIG);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "falcon.conf:1"));
	unlink(path);
	rmdir(dir);
}
END_TEST

START_TEST(test_table)
{
	static struct nc_result r;
	struct nc_floors f = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(fp);
	sample_result(&r, 2);
	nc_verdict(&r, &f);
	nc_print_table(fp, &r);
	fclose(fp);
	ck_assert_ptr_nonnull(strstr(buf, "out-of-place"));
	ck_assert_ptr_nonnull(strstr(buf, "   268435456      67108864     float     sum"));
	ck_assert_ptr_nonnull(strstr(buf, "F-F PIX"));
	ck_assert_ptr_nonnull(strstr(buf, "# status: pass"));
	free(buf);
}
END_TEST

/* Host<->device figures: JSON numbers per GPU (null when not measured),
 * the table's section, and no effect on the verdict (no floor). */
START_TEST(test_hostdev_result)
{
	static struct nc_result r;
	struct nc_floors f = { 0 };
	json_object *doc = NULL, *gpus, *g, *v;
	char *buf = NULL, reason[NC_REASON_LEN];
	size_t len = 0;
	FILE *fp;

	sample_result(&r, 2);
	nc_verdict(&r, &f);
	snprintf(reason, sizeof(reason), "%s", r.reason);
	/* no measurement: nulls, hostdev_bytes 0, no table section */
	ck_assert_int_eq(nc_result_json(&r, &doc), FALCON_OK);
	ck_assert_int_eq(nc_json_validate(doc), FALCON_OK);
	ck_assert_int_eq(json_object_get_int64(json_object_object_get(doc, "hostdev_bytes")), 0);
	g = json_object_array_get_idx(json_object_object_get(doc, "gpus"), 0);
	ck_assert(json_object_object_get_ex(g, "h2d_gbs", &v));
	ck_assert_ptr_null(v);
	json_object_put(doc);
	doc = NULL;
	fp = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(fp);
	nc_print_table(fp, &r);
	fclose(fp);
	ck_assert_ptr_null(strstr(buf, "Host<->device"));
	free(buf);
	buf = NULL;

	/* GPU 0 measured (an H100 on Gen5 x16), GPU 1 not */
	sample_result(&r, 2);
	r.hostdev_bytes = 64 * MiB;
	r.gpus[0].h2d_gbs = 54.93;
	r.gpus[0].d2h_gbs = 55.12;
	nc_verdict(&r, &f);
	ck_assert_int_eq(r.status, NC_STATUS_PASS);
	ck_assert_str_eq(r.reason, reason);
	ck_assert_int_eq(nc_result_json(&r, &doc), FALCON_OK);
	ck_assert_int_eq(nc_json_validate(doc), FALCON_OK);
	ck_assert_int_eq(json_object_get_int64(json_object_object_get(doc, "hostdev_bytes")),
			 67108864);
	gpus = json_object_object_get(doc, "gpus");
	g = json_object_array_get_idx(gpus, 0);
	ck_assert_int_eq(type_of(g, "h2d_gbs"), json_type_double);
	ck_assert_double_eq_tol(json_object_get_double(json_object_object_get(g, "h2d_gbs")),
				54.93, 1e-9);
	ck_assert_double_eq_tol(json_object_get_double(json_object_object_get(g, "d2h_gbs")),
				55.12, 1e-9);
	g = json_object_array_get_idx(gpus, 1);
	ck_assert(json_object_object_get_ex(g, "d2h_gbs", &v));
	ck_assert_ptr_null(v);
	json_object_put(doc);
	fp = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(fp);
	nc_print_table(fp, &r);
	fclose(fp);
	ck_assert_ptr_nonnull(strstr(buf, "# Host<->device (pinned cudaMemcpyAsync of 67108864 B, "
				     "median of 3 batches of 5)\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\n       0  0000:3b:00.0    54.93    55.12\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\n       1  0000:3c:00.0      N/A      N/A\n"));
	free(buf);
}
END_TEST

static Suite *ncclcheck_suite(void)
{
	Suite *s = suite_create("ncclcheck");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_bandwidth_formulas, 0, (int)ARRAY_SIZE(bw_cases));
	tcase_add_test(tc, test_p2p_gbs);
	tcase_add_test(tc, test_hd_gbs);
	tcase_add_test(tc, test_median);
	tcase_add_test(tc, test_sweep_quick);
	tcase_add_test(tc, test_sweep_full);
	tcase_add_test(tc, test_iters);
	tcase_add_test(tc, test_correctness_pattern);
	tcase_add_test(tc, test_budget);
	tcase_add_loop_test(tc, test_verdict, 0, (int)ARRAY_SIZE(verdict_cases));
	tcase_add_test(tc, test_verdict_nothing_measured);
	tcase_add_test(tc, test_verdict_one_rank_inplace);
	tcase_add_test(tc, test_exit_codes);
	tcase_add_test(tc, test_json_roundtrip);
	tcase_add_test(tc, test_json_skipped_has_nulls);
	tcase_add_loop_test(tc, test_json_validate_rejects, 0, (int)ARRAY_SIZE(bad_json));
	tcase_add_loop_test(tc, test_bdf_normalize, 0, (int)ARRAY_SIZE(bdf_cases));
	tcase_add_test(tc, test_topo_class);
	tcase_add_test(tc, test_args_ok);
	tcase_add_loop_test(tc, test_args_bad, 0, (int)ARRAY_SIZE(bad_args));
	tcase_add_loop_test(tc, test_floors_conf, 0, (int)ARRAY_SIZE(floor_cases));
	tcase_add_test(tc, test_floors_errors);
	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_hostdev_result);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(ncclcheck_suite());
}
