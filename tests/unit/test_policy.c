/*
 * test_policy.c - lib/core/policy.c table driven: Table III labels of a
 * request, partition policies from a real falcon.conf text (refusals and
 * their messages, the "use partition" advice, DEFAULT), whole jobs (GRES +
 * SPANK environment), the chassis pool of a job's hosts, and the license
 * merge.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/policy.h"
#include "testutil.h"
#include "core/util.h"

static const char conf_text[] =
	"ChassisName=c1 Url=http://127.0.0.1:1/\n"
	"ChassisName=c2 Url=http://127.0.0.1:2/\n"
	"HostName=n1 Chassis=c1 Port=H1 Adapter=0000:3b:00.0\n"
	"HostName=n2 Chassis=c1 Port=H2 Adapter=0000:3b:00.0\n"
	"HostName=m1 Chassis=c2 Port=H1 Adapter=0000:3b:00.0\n"
	"PartitionName=DEFAULT MaxFalconNVMe=1\n"
	"PartitionName=small AllowTopologies=localGPUs,hybridGPUs MaxFalconGPUs=2\n"
	"PartitionName=gpu MaxFalconGPUs=8 AllowTopologies=falconGPUs,hybridGPUs,falconNVMe\n"
	"PartitionName=big\n"
	"PartitionName=local AllowTopologies=localGPUs\n"
	"PartitionName=nogpu AllowTopologies=localNVMe MaxFalconGPUs=0\n";

static struct falcon_conf *load(void)
{
	struct falcon_conf *c = NULL;

	ck_assert_msg(falcon_conf_parse("test.conf", conf_text, &c) == FALCON_OK, "%s",
		      falcon_errmsg());
	return c;
}

static const struct {
	int fg, fn, g;
	unsigned topo;
} topo_cases[] = {
	{ 0, 0, 0, 0 },
	{ 4, 0, 0, FALCON_CONF_TOPO_FALCONGPUS },
	{ 4, 0, 4, FALCON_CONF_TOPO_HYBRIDGPUS },
	{ 0, 0, 4, FALCON_CONF_TOPO_LOCALGPUS },
	{ 0, 1, 0, FALCON_CONF_TOPO_FALCONNVME },
	{ 2, 1, 0, FALCON_CONF_TOPO_FALCONGPUS | FALCON_CONF_TOPO_FALCONNVME },
	{ 0, 1, 2, FALCON_CONF_TOPO_LOCALGPUS | FALCON_CONF_TOPO_FALCONNVME },
};

START_TEST(test_topologies)
{
	struct falcon_job_req r = { topo_cases[_i].fg, topo_cases[_i].fn, topo_cases[_i].g };

	ck_assert_uint_eq(falcon_policy_topologies(&r), topo_cases[_i].topo);
}
END_TEST

/* partition, falcon_gpu, falcon_nvme, gpu -> result, the whole message */
static const struct {
	const char *part;
	int fg, fn, g;
	falcon_err_t rv;
	const char *msg;
} check_cases[] = {
	{ "big", 16, 1, 8, FALCON_OK, NULL },
	{ "small", 0, 0, 0, FALCON_OK, NULL },
	{ "small", 2, 0, 2, FALCON_OK, NULL },
	{ "small", 0, 0, 8, FALCON_OK, NULL },
	{ "small", 4, 0, 0, FALCON_ERR_POLICY,
	  "partition small does not allow falconGPUs (falcon.conf AllowTopologies="
	  "localGPUs,hybridGPUs); add the node's own GPUs (--gres=gpu:N beside falcon_gpu: "
	  "hybridGPUs) or ask for --gres=gpu:N instead of falcon_gpu (localGPUs), or use "
	  "partition gpu" },
	{ "small", 4, 0, 2, FALCON_ERR_POLICY,
	  "partition small allows at most 2 falcon_gpu per node; asked 4 "
	  "(falcon.conf MaxFalconGPUs=2); use partition gpu" },
	{ "gpu", 12, 0, 0, FALCON_ERR_POLICY,
	  "partition gpu allows at most 8 falcon_gpu per node; asked 12 "
	  "(falcon.conf MaxFalconGPUs=8); use partition big" },
	{ "gpu", 0, 0, 2, FALCON_ERR_POLICY,
	  "partition gpu does not allow localGPUs (falcon.conf AllowTopologies=hybridGPUs,"
	  "falconGPUs,falconNVMe); ask for --gres=falcon_gpu:N instead of gpu (falconGPUs) or "
	  "add --gres=falcon_gpu:N (hybridGPUs), or use partition small" },
	{ "local", 2, 0, 2, FALCON_ERR_POLICY,
	  "partition local does not allow hybridGPUs (falcon.conf AllowTopologies=localGPUs); "
	  "drop falcon_gpu (localGPUs), or use partition small" },
	{ "small", 0, 1, 0, FALCON_ERR_POLICY,
	  "partition small does not allow falconNVMe (falcon.conf AllowTopologies="
	  "localGPUs,hybridGPUs); drop --gres=falcon_nvme, or use partition gpu" },
	{ "gpu", 1, 2, 0, FALCON_ERR_POLICY,
	  "partition gpu allows at most 1 falcon_nvme per node; asked 2 "
	  "(falcon.conf MaxFalconNVMe=1)" },
	{ "nogpu", 1, 0, 0, FALCON_ERR_POLICY,
	  "partition nogpu does not allow falconGPUs (falcon.conf AllowTopologies=localNVMe); "
	  "use partition gpu" },
	{ "nogpu", 0, 0, 0, FALCON_OK, NULL },
	/* no line of its own: DEFAULT's policy under the asked name */
	{ "other", 16, 2, 0, FALCON_ERR_POLICY,
	  "partition other allows at most 1 falcon_nvme per node; asked 2 "
	  "(falcon.conf MaxFalconNVMe=1)" },
	{ NULL, 16, 1, 0, FALCON_OK, NULL },
};

START_TEST(test_check)
{
	struct falcon_conf *c = load();
	struct falcon_job_req r = { check_cases[_i].fg, check_cases[_i].fn, check_cases[_i].g };
	char tres[128];
	falcon_err_t rv;

	snprintf(tres, sizeof(tres), "gres:falcon_gpu:%d,gres:falcon_nvme:%d,gres:gpu:%d",
		 r.falcon_gpus, r.falcon_nvme, r.gpus);
	rv = falcon_policy_job(c, NULL, check_cases[_i].part, tres, NULL, 0, &r);
	ck_assert_msg(rv == check_cases[_i].rv, "%s: %s", tres, falcon_errmsg());
	ck_assert_int_eq(r.falcon_gpus, check_cases[_i].fg);
	if (check_cases[_i].msg != NULL) {
		ck_assert_str_eq(falcon_errmsg(), check_cases[_i].msg);
		ck_assert_uint_lt(strlen(falcon_errmsg()), FALCON_POLICY_MSG_LEN);
	}
	falcon_conf_free(c);
}
END_TEST

/* conf NULL (falcond): no advice of another partition; built-in defaults */
START_TEST(test_check_noconf)
{
	struct falcon_conf *c = load();
	struct falcon_job_req r = { 4, 0, 0 };

	ck_assert_int_eq(falcon_policy_check(falcon_conf_partition(c, "small"), NULL, NULL, &r),
			 FALCON_ERR_POLICY);
	ck_assert_ptr_null(strstr(falcon_errmsg(), "use partition"));
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "does not allow falconGPUs"));
	r.falcon_gpus = 16;
	r.falcon_nvme = 16;
	ck_assert_int_eq(falcon_policy_check(falcon_conf_partition(NULL, NULL), NULL, NULL, &r),
			 FALCON_OK);
	falcon_conf_free(c);
}
END_TEST

static bool not_gpu(const char *partition)
{
	return strcmp(partition, "gpu") != 0;
}

/* known: only partitions Slurm has are suggested */
START_TEST(test_check_known)
{
	struct falcon_conf *c = load();

	ck_assert_int_eq(falcon_policy_job(c, not_gpu, "small", "gres:falcon_gpu:4,gres:gpu:1",
					   NULL, 0, NULL), FALCON_ERR_POLICY);
	ck_assert_str_eq(falcon_errmsg(), "partition small allows at most 2 falcon_gpu per node; "
			 "asked 4 (falcon.conf MaxFalconGPUs=2); use partition big");
	falcon_conf_free(c);
}
END_TEST

/* the whole job: GRES and SPANK environment errors name the partition */
static const struct {
	const char *tres;
	const char *env;
	falcon_err_t rv;
	const char *part_of_msg;
} job_cases[] = {
	{ "gres:falcon_gpu:2", "SPANK_FALCON_PLACE=spread", FALCON_OK, NULL },
	{ "gres:falcon_gpu:2", "SPANK_FALCON_PLACE=tight", FALCON_ERR_INVAL,
	  "partition gpu: falcon-place=tight: expected pack, spread or any" },
	{ "gres:falcon_gpu:2", "SPANK_FALCON_CHECK=never", FALCON_ERR_INVAL,
	  "partition gpu: falcon-check=never" },
	{ "gres:falcon_gpu:40", NULL, FALCON_ERR_PARSE, "partition gpu: " },
	{ NULL, "SPANK_FALCON_CHECK=off", FALCON_OK, NULL },
	{ "gres:falcon_gpu:9", "SPANK_FALCON_CHECK=off", FALCON_ERR_POLICY, "asked 9" },
};

START_TEST(test_job)
{
	struct falcon_conf *c = load();
	char *env[2] = { (char *)job_cases[_i].env, NULL };
	falcon_err_t rv = falcon_policy_job(c, NULL, "gpu", job_cases[_i].tres, env, 1, NULL);

	ck_assert_msg(rv == job_cases[_i].rv, "%d: %s", _i, falcon_errmsg());
	if (job_cases[_i].part_of_msg != NULL)
		ck_assert_msg(strstr(falcon_errmsg(), job_cases[_i].part_of_msg) != NULL,
			      "'%s' lacks '%s'", falcon_errmsg(), job_cases[_i].part_of_msg);
	falcon_conf_free(c);
}
END_TEST

static const struct {
	const char *hosts[3];
	size_t n;
	falcon_err_t rv;
	const char *pool;
} pool_cases[] = {
	{ { "n1", "n2" }, 2, FALCON_OK, "c1" },
	{ { "m1" }, 1, FALCON_OK, "c2" },
	{ { "n1", "x9", "n2" }, 3, FALCON_OK, "c1" },
	{ { "n1", "m1" }, 2, FALCON_ERR_INVAL, NULL },
	{ { "x9" }, 1, FALCON_ERR_INVAL, NULL },  /* two chassis, host unknown */
	{ { NULL }, 0, FALCON_ERR_INVAL, NULL },
};

START_TEST(test_pool)
{
	struct falcon_conf *c = load();
	const char *pool = "x";
	falcon_err_t rv = falcon_policy_pool(c, pool_cases[_i].hosts, pool_cases[_i].n, &pool);

	ck_assert_msg(rv == pool_cases[_i].rv, "%d: %s", _i, falcon_errmsg());
	if (pool_cases[_i].pool != NULL)
		ck_assert_str_eq(pool, pool_cases[_i].pool);
	else
		ck_assert_ptr_null(pool);
	falcon_conf_free(c);
}
END_TEST

START_TEST(test_pool_single)
{
	struct falcon_conf *c = NULL;
	const char *pool = NULL;

	ck_assert_int_eq(falcon_conf_parse("one.conf", "ChassisName=falcon1 Url=http://x/\n", &c),
			 FALCON_OK);
	ck_assert_int_eq(falcon_policy_pool(c, NULL, 0, &pool), FALCON_OK);
	ck_assert_str_eq(pool, "falcon1");
	falcon_conf_free(c);
	ck_assert_int_eq(falcon_conf_parse("none.conf", "StateDir=/tmp\n", &c), FALCON_OK);
	ck_assert_int_eq(falcon_policy_pool(c, NULL, 0, &pool), FALCON_ERR_NOTFOUND);
	falcon_conf_free(c);
}
END_TEST

static const struct {
	const char *old;
	int count;
	const char *want;
	bool changed;
} lic_cases[] = {
	{ NULL, 4, "falcon1:4", true },
	{ "", 4, "falcon1:4", true },
	{ "matlab:1", 4, "matlab:1,falcon1:4", true },
	{ "falcon1:4", 4, "falcon1:4", false },
	{ "falcon1:2,falcon1:2", 4, "falcon1:4", false },  /* 22.05 adds them up */
	{ "falcon1:8;matlab", 4, "matlab,falcon1:4", true },
	{ "falcon1,matlab:2", 1, "matlab:2,falcon1:1", false },
	{ "falcon10:3,xfalcon1:1", 2, "falcon10:3,xfalcon1:1,falcon1:2", true },
	{ "falcon1:4", 0, NULL, true },
	{ "matlab:1", 0, "matlab:1", false },
	{ ",,matlab:1;;", 2, "matlab:1,falcon1:2", true },
	{ "falcon1:x", 4, "falcon1:4", true },
};

START_TEST(test_license)
{
	char *out = (char *)"junk";
	bool changed = !lic_cases[_i].changed;

	ck_assert_int_eq(falcon_license_merge(lic_cases[_i].old, "falcon1", lic_cases[_i].count,
					      &out, &changed), FALCON_OK);
	if (lic_cases[_i].want == NULL)
		ck_assert_ptr_null(out);
	else
		ck_assert_str_eq(out, lic_cases[_i].want);
	ck_assert_int_eq(changed, lic_cases[_i].changed);
	free(out);
}
END_TEST

/* falcon_license_count() */
START_TEST(test_license_count)
{
	ck_assert_int_eq(falcon_license_count(NULL, "c1_gpu"), -1);
	ck_assert_int_eq(falcon_license_count("", "c1_gpu"), -1);
	ck_assert_int_eq(falcon_license_count("c1_gpu:4", "c1_gpu"), 4);
	ck_assert_int_eq(falcon_license_count("c1_gpu:0", "c1_gpu"), 0);
	ck_assert_int_eq(falcon_license_count("matlab:1,c1_gpu", "c1_gpu"), 1);
	ck_assert_int_eq(falcon_license_count("c1_gpu:2;c1_gpu:3", "c1_gpu"), 5);
	ck_assert_int_eq(falcon_license_count("c1_gpu_x:2,c11_gpu:3", "c1_gpu"), -1);
	ck_assert_int_eq(falcon_license_count("c1_nvme:1,c1_gpu:2", "c1_nvme"), 1);
	ck_assert_int_eq(falcon_license_count("c1_gpu:2", ""), -1);
}
END_TEST

/* falcon_license_same(): a reservation's Licenses= against what falcond wants */
START_TEST(test_license_same)
{
	ck_assert(falcon_license_same(NULL, ""));
	ck_assert(falcon_license_same("c1_gpu:2,c1_nvme:1", "c1_nvme:1;c1_gpu:2"));
	ck_assert(falcon_license_same("c1_gpu", "c1_gpu:1"));
	ck_assert(!falcon_license_same("c1_gpu:2", "c1_gpu:3"));
	ck_assert(!falcon_license_same("c1_gpu:2", "c1_gpu:2,c1_nvme:1"));
	ck_assert(!falcon_license_same("c1_gpu:2,c1_gpu:2", "c1_gpu:2,c1_nvme:2"));
	/* HRES layers: a host list with ',' inside the parentheses */
	ck_assert(falcon_license_same("falcon_pool_gpu(vm,node2):4,falcon_pool_nvme(vm,node2):1",
				      "falcon_pool_nvme(vm,node2):1;falcon_pool_gpu(vm,node2):4"));
	ck_assert(falcon_license_same("falcon_pool_gpu(n[1-4])", "falcon_pool_gpu(n[1-4]):1"));
	ck_assert(!falcon_license_same("falcon_pool_gpu(vm,node2):4", "falcon_pool_gpu(vm):4"));
	ck_assert(!falcon_license_same("falcon_pool_gpu(vm,node2):4", "falcon_pool_gpu(vm,node2):3"));
	/* 64 entries or more compare as different */
	{
		char many[64 * 8 + 1] = "";
		int i;

		for (i = 0; i < 64; i++)
			snprintf(many + strlen(many), sizeof(many) - strlen(many), "%sl%d", i ? "," : "",
				 i);
		ck_assert(!falcon_license_same(many, many));
	}
}
END_TEST

/* falcon_license_count(): a count that is not a number is named, not read as 0 */
static const struct {
	const char *lic, *detail;
} lic_count_bad[] = {
	{ "c1_gpu:x", "license c1_gpu:x: the count: 'x' is not an integer" },
	{ "c1_gpu:8x,c2_gpu:1", "license c1_gpu:8x: the count: '8x'" },
	{ "matlab:1;c1_gpu:", "license c1_gpu:: the count: ''" },
	{ "c1_gpu:-1", "'-1' is not an integer in [0, 1000000000]" },
	{ "c1_gpu:2,c1_gpu:99999999999", "license c1_gpu:99999999999" },
};

START_TEST(test_license_count_bad)
{
	ck_assert_int_eq(falcon_license_count(lic_count_bad[_i].lic, "c1_gpu"), FALCON_LICENSE_BAD);
	ck_assert_msg(strstr(falcon_errmsg(), lic_count_bad[_i].detail) != NULL, "%s",
		      falcon_errmsg());
	/* another license's count is not read */
	ck_assert_int_eq(falcon_license_count(lic_count_bad[_i].lic, "c9_gpu"), -1);
}
END_TEST

START_TEST(test_license_bad)
{
	char *out = NULL;

	ck_assert_int_eq(falcon_license_merge("a:1", "", 1, &out, NULL), FALCON_ERR_INVAL);
	ck_assert_int_eq(falcon_license_merge("a:1", "f:1", 1, &out, NULL), FALCON_ERR_INVAL);
	ck_assert_int_eq(falcon_license_merge("a:1", "f", -1, &out, NULL), FALCON_ERR_INVAL);
	ck_assert_ptr_null(out);
}
END_TEST

/* falcon_pool_licenses(): per-type licenses of pool falcon1 */
static const struct {
	const char *old;
	int gpus, nvme;
	const char *want;
	bool changed;
} pool_lic_cases[] = {
	{ NULL, 4, 0, "falcon1_gpu:4", true },
	{ NULL, 0, 1, "falcon1_nvme:1", true },
	{ NULL, 4, 1, "falcon1_gpu:4,falcon1_nvme:1", true },
	{ NULL, 0, 0, NULL, false },
	{ "falcon1_gpu:4", 4, 0, "falcon1_gpu:4", false },
	{ "falcon1_nvme:1,falcon1_gpu:4", 4, 1, "falcon1_gpu:4,falcon1_nvme:1", false },
	/* a wrong user -L for the pool is corrected, other licenses kept */
	{ "falcon1_gpu:1,matlab:2", 4, 0, "matlab:2,falcon1_gpu:4", true },
	{ "falcon1_nvme:1", 2, 0, "falcon1_gpu:2", true },
	{ "falcon1:5;matlab", 4, 1, "matlab,falcon1_gpu:4,falcon1_nvme:1", true },
	{ "falcon1:4", 0, 0, NULL, true },
	{ "falcon10_gpu:3,falcon1_gpux:1", 2, 0, "falcon10_gpu:3,falcon1_gpux:1,falcon1_gpu:2",
	  true },
	{ "falcon1_gpu:x", 4, 0, "falcon1_gpu:4", true },
};

START_TEST(test_pool_licenses)
{
	char *out = (char *)"junk";
	bool changed = !pool_lic_cases[_i].changed;

	ck_assert_int_eq(falcon_pool_licenses(pool_lic_cases[_i].old, "falcon1",
					      pool_lic_cases[_i].gpus, pool_lic_cases[_i].nvme,
					      &out, &changed), FALCON_OK);
	if (pool_lic_cases[_i].want == NULL)
		ck_assert_ptr_null(out);
	else
		ck_assert_str_eq(out, pool_lic_cases[_i].want);
	ck_assert_int_eq(changed, pool_lic_cases[_i].changed);
	free(out);
}
END_TEST

START_TEST(test_pool_licenses_bad)
{
	char *out = NULL, name[16];

	ck_assert_int_eq(falcon_pool_licenses("a:1", "", 1, 0, &out, NULL), FALCON_ERR_INVAL);
	ck_assert_int_eq(falcon_pool_licenses("a:1", "f:1", 1, 0, &out, NULL), FALCON_ERR_INVAL);
	ck_assert_int_eq(falcon_pool_licenses("a:1", "f", -1, 0, &out, NULL), FALCON_ERR_INVAL);
	ck_assert_int_eq(falcon_pool_licenses("a:1", "f", 0, -1, &out, NULL), FALCON_ERR_INVAL);
	ck_assert_ptr_null(out);
	ck_assert_int_eq(falcon_license_name("falcon1", FALCON_DEV_GPU, name, sizeof(name)),
			 FALCON_OK);
	ck_assert_str_eq(name, "falcon1_gpu");
	ck_assert_int_eq(falcon_license_name("falcon1", FALCON_DEV_NVME, name, sizeof(name)),
			 FALCON_OK);
	ck_assert_str_eq(name, "falcon1_nvme");
	ck_assert_int_eq(falcon_license_name("falcon1234567", FALCON_DEV_NVME, name, sizeof(name)),
			 FALCON_ERR_INVAL);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "longer than 15 bytes"));
	ck_assert_int_eq(falcon_license_name("a,b", FALCON_DEV_GPU, name, sizeof(name)),
			 FALCON_ERR_INVAL);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("policy");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_topologies, 0, ARRAY_SIZE(topo_cases));
	tcase_add_loop_test(tc, test_check, 0, ARRAY_SIZE(check_cases));
	tcase_add_test(tc, test_check_noconf);
	tcase_add_test(tc, test_check_known);
	tcase_add_loop_test(tc, test_job, 0, ARRAY_SIZE(job_cases));
	tcase_add_loop_test(tc, test_pool, 0, ARRAY_SIZE(pool_cases));
	tcase_add_test(tc, test_pool_single);
	tcase_add_loop_test(tc, test_license, 0, ARRAY_SIZE(lic_cases));
	tcase_add_test(tc, test_license_bad);
	tcase_add_test(tc, test_license_count);
	tcase_add_test(tc, test_license_same);
	tcase_add_loop_test(tc, test_license_count_bad, 0, ARRAY_SIZE(lic_count_bad));
	tcase_add_loop_test(tc, test_pool_licenses, 0, ARRAY_SIZE(pool_lic_cases));
	tcase_add_test(tc, test_pool_licenses_bad);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
