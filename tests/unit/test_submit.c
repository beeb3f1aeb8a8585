/*
 * test_submit.c - lib/core/submit.c table driven: what job_submit_falcon
 * decides of a job, over a fake slurmctld (licenses, partitions' nodes and
 * pending claims given by tables): the policy refusals (per partition, a
 * list of partitions, an option word, a broken falcon.conf), the pool
 * licenses added and the asks no pool can hold (9 GPUs of 8, per node x
 * nodes, a missing license), the HRES licenses, the chassis a fleet job is
 * pinned to (free now, then by backlog; a pin kept or refused, a -w list),
 * the pool arithmetic itself, an update contradicting falcon's licenses and
 * a hetjob's licenses moved to its leader.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/submit.h"
#include "core/fleet.h"
#include "core/util.h"
#include "testutil.h"

/* One chassis: slurm-submit.sh's cluster (c1: 8 GPUs, 1 NVMe). */
static const char one_text[] =
	"ChassisName=c1 Url=http://127.0.0.1:1/\n"
	"HostName=n1 Chassis=c1 Port=H1 Adapter=0000:3b:00.0\n"
	"HostName=n2 Chassis=c1 Port=H2 Adapter=0000:3b:00.0\n"
	"PartitionName=DEFAULT MaxFalconNVMe=1\n"
	"PartitionName=debug MaxFalconGPUs=12\n"
	"PartitionName=small AllowTopologies=localGPUs,hybridGPUs MaxFalconGPUs=2\n";

/* Three chassis, a host on each, and c4 whose licenses slurm.conf lacks. */
static const char fleet_text[] =
	"ChassisName=c1 Url=http://127.0.0.1:1/\n"
	"ChassisName=c2 Url=http://127.0.0.1:2/\n"
	"ChassisName=c3 Url=http://127.0.0.1:3/\n"
	"ChassisName=c4 Url=http://127.0.0.1:4/\n"
	"HostName=n1 Chassis=c1 Port=H1 Adapter=0000:3b:00.0\n"
	"HostName=n2 Chassis=c2 Port=H1 Adapter=0000:3b:00.0\n"
	"HostName=n3 Chassis=c3 Port=H1 Adapter=0000:3b:00.0\n"
	"HostName=n4 Chassis=c4 Port=H1 Adapter=0000:3b:00.0\n";

static struct falcon_conf *load(const char *text)
{
	struct falcon_conf *c = NULL;

	ck_assert_msg(falcon_conf_parse("test.conf", text, &c) == FALCON_OK, "%s",
		      falcon_errmsg());
	return c;
}

/* The fake slurmctld: licenses c1..c3 (GPUs 8 each, NVMe 1 each), free
 * and pending GPUs per chassis as the case says; job 7's own claim
 * (own[c]) is part of pending but not counted for job 7. */
struct ctld {
	long free[3], pending[3], own[3];
	bool hres;
};

/* license_of - chassis index (0..2) and type of a license of c1..c3, -1 else. */
static int license_of(const char *lic, bool *nvme)
{
	if (strlen(lic) < 6 || lic[0] != 'c' || lic[1] < '1' || lic[1] > '3' || lic[2] != '_')
		return -1;
	*nvme = strcmp(lic + 3, "nvme") == 0;
	if (!*nvme && strcmp(lic + 3, "gpu") != 0)
		return -1;
	return lic[1] - '1';
}

static long lic_total(const char *lic, void *arg)
{
	const struct ctld *s = arg;
	bool nvme;

	if (strcmp(lic, FALCON_HRES_GPU) == 0)
		return s->hres ? 64 : -1;
	/* the layers falconctl slurm-conf --pool hres writes: c1 of one_text
	 * (n1,n2), c1..c3 of fleet_text (a host each); c4 none */
	if (strncmp(lic, FALCON_HRES_GPU "(", strlen(FALCON_HRES_GPU) + 1) == 0)
		return !s->hres ? -1 : strstr(",(n1,n2),(n1),(n2),(n3),", lic + strlen(FALCON_HRES_GPU))
					   ? 8 : -1;
	if (license_of(lic, &nvme) < 0 || s->hres)  /* an HRES site has no chassis licenses */
		return -1;
	return nvme ? 1 : 8;
}

static long lic_free(const char *lic, void *arg)
{
	const struct ctld *s = arg;
	bool nvme;
	int c = license_of(lic, &nvme);

	/* an HRES layer of fleet_text: "(nK)" is chassis cK's */
	if (s->hres && strncmp(lic, FALCON_HRES_GPU "(n", strlen(FALCON_HRES_GPU) + 2) == 0 &&
	    lic[strlen(FALCON_HRES_GPU) + 2] >= '1' && lic[strlen(FALCON_HRES_GPU) + 2] <= '3' &&
	    strcmp(lic + strlen(FALCON_HRES_GPU) + 3, ")") == 0)
		return s->free[lic[strlen(FALCON_HRES_GPU) + 2] - '1'];
	return c < 0 || s->hres ? 0 : nvme ? 1 : s->free[c];
}

static long lic_pending(const char *lic, uint32_t job_id, void *arg)
{
	const struct ctld *s = arg;
	bool nvme;
	int c = license_of(lic, &nvme);

	if (c < 0 || nvme)
		return 0;
	return s->pending[c] - (job_id == 7 ? s->own[c] : 0);
}

static const char *part_nodes(const char *partition, void *arg)
{
	(void)arg;
	if (strcmp(partition, "fleet") == 0)
		return "n1,n2,n3";
	if (strcmp(partition, "two") == 0)
		return "n1,n2";
	if (strcmp(partition, "debug") == 0 || strcmp(partition, "small") == 0)
		return "n1,n2";
	return NULL;
}

/* hostlist - a comma list (the fake has no ranges). */
static size_t hostlist(const char *expr, char **names, size_t max, void *arg)
{
	char *copy = strdup(expr), *save = NULL, *h;
	size_t n = 0;

	(void)arg;
	for (h = strtok_r(copy, ",", &save); h != NULL && n < max; h = strtok_r(NULL, ",", &save))
		names[n++] = strdup(h);
	free(copy);
	return n;
}

static bool known(const char *partition)
{
	return part_nodes(partition, NULL) != NULL;
}

static struct falcon_ctld_view view(struct ctld *s, const char *dflt)
{
	struct falcon_ctld_view v = {
		.default_partition = dflt,
		.part_known = known,
		.part_nodes = part_nodes,
		.hostlist = hostlist,
		.license_total = lic_total,
		.license_free = lic_free,
		.license_pending = lic_pending,
		.arg = s,
	};
	return v;
}

#define ALL_FREE { 8, 8, 8 }, { 0, 0, 0 }, { 0, 0, 0 }

static const struct {
	bool fleet;                /* fleet_text, else one_text (default partition debug) */
	const char *parts;         /* -p */
	const char *tres;          /* tres_per_node */
	const char *env;           /* one spank_job_env entry; NULL = none */
	const char *old;           /* its licenses */
	const char *req_nodes;     /* -w */
	const char *features;      /* -C */
	uint32_t min, max;         /* -N */
	uint32_t job_id;
	struct ctld ctld;
	enum falcon_submit_verdict verdict;
	const char *want;          /* the licenses (NULL = unchanged), or the refusal's message */
	const char *feat;          /* the new constraint (NULL = unchanged) */
} judge_cases[] = {
	/* nothing falcon: left alone, nothing read */
	{ false, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, { ALL_FREE, false },
	  FALCON_SUBMIT_ACCEPT, NULL, NULL },
	{ false, "small", "gres:gpu:2", NULL, NULL, NULL, NULL, 0, 0, 0, { ALL_FREE, false },
	  FALCON_SUBMIT_ACCEPT, NULL, NULL },
	/* the pool licenses added, counted per node x nodes */
	{ false, NULL, "gres:falcon_gpu:4", NULL, NULL, NULL, NULL, 0, 0, 0, { ALL_FREE, false },
	  FALCON_SUBMIT_ACCEPT, "c1_gpu:4", NULL },
	{ false, "small", "gres:gpu:2,gres:falcon_gpu:2", NULL, NULL, NULL, NULL, 0, 0, 0,
	  { ALL_FREE, false }, FALCON_SUBMIT_ACCEPT, "c1_gpu:2", NULL },
	{ false, NULL, "gres/falcon_nvme:1", NULL, NULL, NULL, NULL, 0, 0, 0, { ALL_FREE, false },
	  FALCON_SUBMIT_ACCEPT, "c1_nvme:1", NULL },
	{ false, NULL, "gres:falcon_gpu:2", NULL, NULL, NULL, NULL, 2, 0, 0, { ALL_FREE, false },
	  FALCON_SUBMIT_ACCEPT, "c1_gpu:4", NULL },
	/* the user's -L of the pool is corrected, earlier bare licenses dropped */
	{ false, NULL, "gres:falcon_gpu:4,gres:falcon_nvme:1", NULL, "c1:1,c1_gpu:1", NULL, NULL,
	  0, 0, 0, { ALL_FREE, false }, FALCON_SUBMIT_ACCEPT, "c1_gpu:4,c1_nvme:1", NULL },
	{ false, NULL, "gres:falcon_gpu:4", NULL, "matlab:2,c1_gpu:4", NULL, NULL, 0, 0, 0,
	  { ALL_FREE, false }, FALCON_SUBMIT_ACCEPT, NULL, NULL },
	/* the 9-of-8 ask, per node x nodes, a range at its most */
	{ false, NULL, "gres:falcon_gpu:9", NULL, NULL, NULL, NULL, 0, 0, 0, { ALL_FREE, false },
	  FALCON_SUBMIT_BAD_LICENSES,
	  "falcon: chassis c1 has 8 GPUs; asked 9 per node x 1 node (falcon_gpu:9)", NULL },
	{ false, NULL, "gres:falcon_gpu:5", NULL, NULL, NULL, NULL, 2, 0, 0, { ALL_FREE, false },
	  FALCON_SUBMIT_BAD_LICENSES,
	  "falcon: chassis c1 has 8 GPUs; asked 5 per node x 2 nodes (falcon_gpu:5)", NULL },
	{ false, NULL, "gres:falcon_gpu:1,gres:falcon_nvme:1", NULL, NULL, NULL, NULL, 2, 0, 0,
	  { ALL_FREE, false }, FALCON_SUBMIT_BAD_LICENSES,
	  "falcon: chassis c1 has 1 NVMe; asked 1 per node x 2 nodes (falcon_nvme:1)", NULL },
	{ false, NULL, "gres:falcon_gpu:3", NULL, NULL, NULL, NULL, 1, 3, 0, { ALL_FREE, false },
	  FALCON_SUBMIT_BAD_LICENSES,
	  "falcon: chassis c1 has 8 GPUs; asked 3 per node x 3 nodes (falcon_gpu:3)", NULL },
	/* a node count is taken at most 1024 */
	{ false, NULL, "gres:falcon_gpu:1", NULL, NULL, NULL, NULL, 5000, 0, 0, { ALL_FREE, false },
	  FALCON_SUBMIT_BAD_LICENSES,
	  "falcon: chassis c1 has 8 GPUs; asked 1 per node x 1024 nodes (falcon_gpu:1)", NULL },
	/* -w hosts falcon.conf does not name: the only chassis' pool */
	{ false, NULL, "gres:falcon_gpu:2", NULL, NULL, "x1,x2", NULL, 0, 0, 0, { ALL_FREE, false },
	  FALCON_SUBMIT_ACCEPT, "c1_gpu:2", NULL },
	/* what is free now does not refuse a single pool: the job pends */
	{ false, NULL, "gres:falcon_gpu:8", NULL, NULL, NULL, NULL, 0, 0, 0,
	  { { 0, 0, 0 }, { 9, 0, 0 }, { 0, 0, 0 }, false }, FALCON_SUBMIT_ACCEPT, "c1_gpu:8",
	  NULL },
	/* the partition policies */
	{ false, "small", "gres:falcon_gpu:4", NULL, NULL, NULL, NULL, 0, 0, 0, { ALL_FREE, false },
	  FALCON_SUBMIT_BAD_GRES, "falcon: partition small does not allow falconGPUs "
	  "(falcon.conf AllowTopologies=localGPUs,hybridGPUs); add the node's own GPUs "
	  "(--gres=gpu:N beside falcon_gpu: hybridGPUs) or ask for --gres=gpu:N instead of "
	  "falcon_gpu (localGPUs), or use partition debug", NULL },
	{ false, "small", "gres:gpu:2,gres:falcon_gpu:4", NULL, NULL, NULL, NULL, 0, 0, 0,
	  { ALL_FREE, false }, FALCON_SUBMIT_BAD_GRES, "falcon: partition small allows at most "
	  "2 falcon_gpu per node; asked 4 (falcon.conf MaxFalconGPUs=2); use partition debug",
	  NULL },
	{ false, NULL, "gres:falcon_gpu:13", NULL, NULL, NULL, NULL, 0, 0, 0, { ALL_FREE, false },
	  FALCON_SUBMIT_BAD_GRES, "falcon: partition debug allows at most 12 falcon_gpu per "
	  "node; asked 13 (falcon.conf MaxFalconGPUs=12)", NULL },
	{ false, NULL, "gres:falcon_nvme:2", NULL, NULL, NULL, NULL, 0, 0, 0, { ALL_FREE, false },
	  FALCON_SUBMIT_BAD_GRES, "falcon: partition debug allows at most 1 falcon_nvme per "
	  "node; asked 2 (falcon.conf MaxFalconNVMe=1)", NULL },
	/* every partition of the list must take it */
	{ false, "debug,small", "gres:falcon_gpu:2", NULL, NULL, NULL, NULL, 0, 0, 0,
	  { ALL_FREE, false }, FALCON_SUBMIT_BAD_GRES, "falcon: partition small does not allow "
	  "falconGPUs (falcon.conf AllowTopologies=localGPUs,hybridGPUs); add the node's own "
	  "GPUs (--gres=gpu:N beside falcon_gpu: hybridGPUs) or ask for --gres=gpu:N instead "
	  "of falcon_gpu (localGPUs), or use partition debug", NULL },
	/* an option word the prolog would fail on */
	{ false, NULL, "gres:falcon_gpu:1", "SPANK_FALCON_PLACE=bogus", NULL, NULL, NULL, 0, 0, 0,
	  { ALL_FREE, false }, FALCON_SUBMIT_BAD_GRES,
	  "falcon: partition debug: falcon-place=bogus: expected pack, spread or any", NULL },
	/* HRES (Slurm 25.11+): per-node counts, the pool licenses removed */
	{ false, NULL, "gres:falcon_gpu:4", NULL, "c1_gpu:4,matlab:1", NULL, NULL, 2, 0, 0,
	  { { 8, 8, 8 }, { 0, 0, 0 }, { 0, 0, 0 }, true }, FALCON_SUBMIT_ACCEPT,
	  "matlab:1,falcon_pool_gpu:4", NULL },
	/* HRES: more per node than the largest layer of the job's chassis holds
	 * (Slurm 26.05 takes it and the job pends for ever) */
	{ false, NULL, "gres:falcon_gpu:9", NULL, NULL, NULL, NULL, 0, 0, 0,
	  { ALL_FREE, true }, FALCON_SUBMIT_BAD_LICENSES,
	  "falcon: the largest chassis of the job's nodes (c1) has 8 GPUs; asked 9 per node "
	  "(falcon_gpu:9)", NULL },
	{ true, "fleet", "gres:falcon_gpu:9", NULL, NULL, NULL, NULL, 0, 0, 0,
	  { ALL_FREE, true }, FALCON_SUBMIT_BAD_LICENSES,
	  "falcon: the largest chassis of the job's nodes (c1) has 8 GPUs; asked 9 per node "
	  "(falcon_gpu:9)", NULL },
	{ true, "fleet", "gres:falcon_gpu:8", NULL, NULL, NULL, NULL, 2, 0, 0,
	  { ALL_FREE, true }, FALCON_SUBMIT_ACCEPT, "falcon_pool_gpu:8", NULL },
	/* ... a layer unknown to falcon (c4's: an admin's own resources.yaml):
	 * left to slurmctld */
	{ true, NULL, "gres:falcon_gpu:9", NULL, NULL, "n4", NULL, 0, 0, 0,
	  { ALL_FREE, true }, FALCON_SUBMIT_ACCEPT, "falcon_pool_gpu:9", NULL },
	/* a fleet: packs onto the first chassis with room now */
	{ true, "fleet", "gres:falcon_gpu:4", NULL, NULL, NULL, NULL, 0, 0, 0, { ALL_FREE, false },
	  FALCON_SUBMIT_ACCEPT, "c1_gpu:4", "falcon_c1" },
	{ true, "fleet", "gres:falcon_gpu:4", NULL, NULL, NULL, NULL, 0, 0, 0,
	  { { 2, 8, 8 }, { 0, 0, 0 }, { 0, 0, 0 }, false }, FALCON_SUBMIT_ACCEPT, "c2_gpu:4",
	  "falcon_c2" },
	/* pending claims count as taken: a burst is spread */
	{ true, "fleet", "gres:falcon_gpu:4", NULL, NULL, NULL, NULL, 0, 0, 0,
	  { { 8, 8, 8 }, { 8, 4, 0 }, { 0, 0, 0 }, false }, FALCON_SUBMIT_ACCEPT, "c2_gpu:4",
	  "falcon_c2" },
	/* ... but not the job's own (job 7 modified) */
	{ true, "fleet", "gres:falcon_gpu:4", NULL, NULL, NULL, NULL, 0, 0, 7,
	  { { 4, 8, 8 }, { 4, 0, 0 }, { 4, 0, 0 }, false }, FALCON_SUBMIT_ACCEPT, "c1_gpu:4",
	  "falcon_c1" },
	/* nothing free anywhere: it waits where the backlog is least */
	{ true, "fleet", "gres:falcon_gpu:4", NULL, NULL, NULL, NULL, 0, 0, 0,
	  { { 0, 0, 0 }, { 6, 2, 4 }, { 0, 0, 0 }, false }, FALCON_SUBMIT_ACCEPT, "c2_gpu:4",
	  "falcon_c2" },
	/* none with 4 free: the most to spare (backlog -3) */
	{ true, "fleet", "gres:falcon_gpu:4", NULL, NULL, NULL, NULL, 0, 0, 0,
	  { { 1, 0, 3 }, { 0, 0, 0 }, { 0, 0, 0 }, false }, FALCON_SUBMIT_ACCEPT, "c3_gpu:4",
	  "falcon_c3" },
	/* split one node per chassis when no chassis has the nodes */
	{ true, "fleet", "gres:falcon_gpu:2", NULL, "matlab:1", NULL, NULL, 2, 0, 0,
	  { ALL_FREE, false }, FALCON_SUBMIT_ACCEPT, "matlab:1,c1_gpu:2,c2_gpu:2",
	  "[falcon_c1*1&falcon_c2*1]" },
	/* the user's constraint kept beside the pin */
	{ true, "fleet", "gres:falcon_gpu:4", NULL, NULL, NULL, "ib", 0, 0, 0, { ALL_FREE, false },
	  FALCON_SUBMIT_ACCEPT, "c1_gpu:4", "falcon_c1&ib" },
	/* a pin already there is kept (falcond's re-pin, or the user's) */
	{ true, "fleet", "gres:falcon_gpu:4", NULL, NULL, NULL, "falcon_c3", 0, 0, 0,
	  { ALL_FREE, false }, FALCON_SUBMIT_ACCEPT, "c3_gpu:4", NULL },
	{ true, "two", "gres:falcon_gpu:4", NULL, NULL, NULL, "falcon_c3", 0, 0, 0,
	  { ALL_FREE, false }, FALCON_SUBMIT_BAD_FEATURE, "falcon: constraint falcon_c3: no node "
	  "of the job's partition is cabled to chassis c3", NULL },
	/* a re-pin moves the licenses */
	{ true, "fleet", "gres:falcon_gpu:4", NULL, "c1_gpu:4", NULL, "falcon_c2", 0, 0, 7,
	  { ALL_FREE, false }, FALCON_SUBMIT_ACCEPT, "c2_gpu:4", NULL },
	/* more than any chassis can ever hold */
	{ true, "fleet", "gres:falcon_gpu:9", NULL, NULL, NULL, NULL, 0, 0, 0, { ALL_FREE, false },
	  FALCON_SUBMIT_BAD_LICENSES, "falcon: no chassis of the job's nodes can ever hold", NULL },
	/* a -w list: its hosts as listed, all of them */
	{ true, "fleet", "gres:falcon_gpu:4", NULL, NULL, "n1,n2", NULL, 2, 0, 0,
	  { ALL_FREE, false }, FALCON_SUBMIT_ACCEPT, "c1_gpu:4,c2_gpu:4", NULL },
	{ true, "fleet", "gres:falcon_gpu:4", NULL, NULL, "n1,n2", NULL, 3, 0, 0,
	  { ALL_FREE, false }, FALCON_SUBMIT_BAD_LICENSES, "falcon: the job's -w list spans "
	  "several chassis and names fewer falcon.conf hosts than its 3 nodes: name them all, "
	  "or none", NULL },
	/* one chassis of the fleet whose license slurm.conf lacks */
	{ true, "fleet", "gres:falcon_gpu:2", NULL, NULL, "n4", NULL, 0, 0, 0, { ALL_FREE, false },
	  FALCON_SUBMIT_BAD_LICENSES, "falcon: chassis c4 has no license c4_gpu in slurm.conf: "
	  "the administrator must add Licenses=c4_gpu:<number of GPUs> (job_submit_falcon(8)); "
	  "asked falcon_gpu:2", NULL },
	/* hosts of no chassis: no license added */
	{ true, "nowhere", "gres:falcon_gpu:2", NULL, NULL, NULL, NULL, 0, 0, 0,
	  { ALL_FREE, false }, FALCON_SUBMIT_ACCEPT, NULL, NULL },
};

START_TEST(test_judge)
{
	struct falcon_conf *c = load(judge_cases[_i].fleet ? fleet_text : one_text);
	struct ctld s = judge_cases[_i].ctld;
	struct falcon_ctld_view v = view(&s, judge_cases[_i].fleet ? "fleet" : "debug");
	char *env[1] = { (char *)judge_cases[_i].env };
	struct falcon_submit_job job = {
		.job_id = judge_cases[_i].job_id, .uid = 1000,
		.partitions = judge_cases[_i].parts, .tres_per_node = judge_cases[_i].tres,
		.env = env, .nenv = judge_cases[_i].env ? 1 : 0, .licenses = judge_cases[_i].old,
		.req_nodes = judge_cases[_i].req_nodes, .features = judge_cases[_i].features,
		.min_nodes = judge_cases[_i].min, .max_nodes = judge_cases[_i].max,
	};
	struct falcon_submit_out out;

	ck_assert_int_eq(falcon_submit_judge(c, NULL, &job, &v, &out), FALCON_OK);
	ck_assert_msg(out.verdict == judge_cases[_i].verdict, "verdict %d, why '%s'", out.verdict,
		      out.why ? out.why : "");
	if (judge_cases[_i].verdict != FALCON_SUBMIT_ACCEPT) {
		ck_assert_ptr_nonnull(out.why);
		ck_assert_msg(strncmp(out.why, judge_cases[_i].want, strlen(judge_cases[_i].want)) == 0,
			      "why '%s'", out.why);
		ck_assert_ptr_null(out.licenses);
		ck_assert_ptr_null(out.features);
	} else {
		ck_assert_ptr_null(out.why);
		if (judge_cases[_i].want == NULL)
			ck_assert_msg(out.licenses == NULL, "licenses '%s'", out.licenses);
		else
			ck_assert_str_eq(out.licenses ? out.licenses : "(unchanged)",
					 judge_cases[_i].want);
		if (judge_cases[_i].feat == NULL)
			ck_assert_msg(out.features == NULL, "features '%s'", out.features);
		else
			ck_assert_str_eq(out.features ? out.features : "(unchanged)",
					 judge_cases[_i].feat);
	}
	falcon_submit_out_free(&out);
	falcon_conf_free(c);
}
END_TEST

/* Without a usable falcon.conf only a falcon job is refused, and only
 * when the file on disk is broken (not when it is missing). */
static const struct {
	const char *tres;
	const char *broken;
	enum falcon_submit_verdict verdict;
} noconf_cases[] = {
	{ NULL, "x.conf:3: bad", FALCON_SUBMIT_ACCEPT },
	{ "gres:gpu:4", "x.conf:3: bad", FALCON_SUBMIT_ACCEPT },
	{ "gres:falcon_gpu:4", "x.conf:3: bad", FALCON_SUBMIT_BAD_GRES },
	{ "gres:falcon_gpu:99", "x.conf:3: bad", FALCON_SUBMIT_BAD_GRES },
	{ "gres:falcon_gpu:4", NULL, FALCON_SUBMIT_ACCEPT },
};

START_TEST(test_noconf)
{
	struct ctld s = { ALL_FREE, false };
	struct falcon_ctld_view v = view(&s, "debug");
	struct falcon_submit_job job = { .tres_per_node = noconf_cases[_i].tres };
	struct falcon_submit_out out;

	ck_assert_int_eq(falcon_submit_judge(NULL, noconf_cases[_i].broken, &job, &v, &out),
			 FALCON_OK);
	ck_assert_int_eq(out.verdict, noconf_cases[_i].verdict);
	if (out.verdict != FALCON_SUBMIT_ACCEPT)
		ck_assert_str_eq(out.why, "falcon: falcon.conf is broken (x.conf:3: bad): jobs "
				 "asking for falcon_gpu/falcon_nvme are refused until the "
				 "administrator fixes it");
	ck_assert_ptr_null(out.licenses);
	falcon_submit_out_free(&out);
}
END_TEST

/* Neither the job nor slurmctld names a partition: DEFAULT's policy. */
START_TEST(test_default_policy)
{
	struct falcon_conf *c = load(one_text);
	struct ctld s = { ALL_FREE, false };
	struct falcon_ctld_view v = view(&s, NULL);
	struct falcon_submit_job job = { .tres_per_node = "gres:falcon_nvme:2" };
	struct falcon_submit_out out;

	ck_assert_int_eq(falcon_submit_judge(c, NULL, &job, &v, &out), FALCON_OK);
	ck_assert_int_eq(out.verdict, FALCON_SUBMIT_BAD_GRES);
	ck_assert_str_eq(out.why, "falcon: partition DEFAULT allows at most 1 falcon_nvme per "
			 "node; asked 2 (falcon.conf MaxFalconNVMe=1)");
	falcon_submit_out_free(&out);
	job.tres_per_node = "gres:falcon_nvme:1";
	ck_assert_int_eq(falcon_submit_judge(c, NULL, &job, &v, &out), FALCON_OK);
	ck_assert_int_eq(out.verdict, FALCON_SUBMIT_ACCEPT);
	ck_assert_str_eq(out.licenses, "c1_nvme:1");
	falcon_submit_out_free(&out);
	falcon_conf_free(c);
}
END_TEST

/* The pool arithmetic: total, free, pending, want, now -> fits. */
static const struct {
	long total, free, pending, want;
	bool now, fits;
} fits_cases[] = {
	{ 8, 8, 0, 8, false, true },
	{ 8, 8, 0, 9, false, false },     /* the 9-of-8 ask */
	{ -1, -1, -1, 1, false, false },  /* no such license */
	{ -1, -1, -1, 0, false, true },   /* nothing asked */
	{ 8, 0, 0, 4, false, true },      /* ever: what is taken does not count */
	{ 8, 4, 0, 4, true, true },
	{ 8, 4, 1, 4, true, false },      /* a pending claim comes first */
	{ 8, 3, 0, 4, true, false },
	{ 8, 8, 4, 4, true, true },
	{ 8, -1, -1, 1, true, false },    /* not read */
};

START_TEST(test_fits)
{
	struct falcon_pool_count c = { fits_cases[_i].total, fits_cases[_i].free,
				       fits_cases[_i].pending };

	ck_assert_int_eq(falcon_pool_fits(&c, fits_cases[_i].want, fits_cases[_i].now),
			 fits_cases[_i].fits);
}
END_TEST

START_TEST(test_pool_read)
{
	struct ctld s = { { 5, 6, 7 }, { 3, 2, 1 }, { 1, 0, 0 }, false };
	struct falcon_ctld_view v = view(&s, NULL);
	struct falcon_pool_count c;

	ck_assert_int_eq(falcon_pool_read(NULL, &v, "c1", FALCON_DEV_GPU, FALCON_POOL_TOTAL, 0, &c),
			 FALCON_OK);
	ck_assert_int_eq(c.total, 8);
	ck_assert_int_eq(c.free, -1);
	ck_assert_int_eq(c.pending, -1);
	ck_assert_int_eq(falcon_pool_read(NULL, &v, "c1", FALCON_DEV_GPU,
					  FALCON_POOL_FREE | FALCON_POOL_PENDING, 7, &c), FALCON_OK);
	ck_assert_int_eq(c.total, -1);
	ck_assert_int_eq(c.free, 5);
	ck_assert_int_eq(c.pending, 2);
	ck_assert_int_eq(falcon_pool_read(NULL, &v, "c3", FALCON_DEV_NVME, FALCON_POOL_TOTAL, 0, &c),
			 FALCON_OK);
	ck_assert_int_eq(c.total, 1);
	ck_assert_int_eq(falcon_pool_read(NULL, &v, "c9", FALCON_DEV_GPU, FALCON_POOL_TOTAL, 0, &c),
			 FALCON_OK);
	ck_assert_int_eq(c.total, -1);
	ck_assert_int_eq(falcon_pool_read(NULL, &v, "a,b", FALCON_DEV_GPU, FALCON_POOL_TOTAL, 0, &c),
			 FALCON_ERR_INVAL);
}
END_TEST

/* scontrol update licenses=...: asked, falcon's own -> refused or not. */
static const struct {
	const char *asked, *ours;
	const char *want; /* the message, NULL = none */
} contra_cases[] = {
	{ "c1_gpu:4", "c1_gpu:4", NULL },
	{ "matlab:1", "c1_gpu:4", NULL },
	{ "c1_gpu:2", "c1_gpu:4", "falcon: license c1_gpu follows job 6's falcon GRES and "
	  "chassis (4, not 2): change its GRES instead (scontrol update job=6 gres=falcon_gpu:N)" },
	{ "c1_nvme:1", "c1_gpu:4", "falcon: license c1_nvme follows job 6's falcon GRES and "
	  "chassis (0, not 1): change its GRES instead (scontrol update job=6 gres=falcon_nvme:N)" },
	{ "c2_gpu:0", "c1_gpu:4", NULL },
};

START_TEST(test_contradiction)
{
	struct falcon_conf *c = load(fleet_text);
	char *why = NULL;

	ck_assert_int_eq(falcon_submit_contradiction(c, contra_cases[_i].asked,
						     contra_cases[_i].ours, 6, &why), FALCON_OK);
	if (contra_cases[_i].want == NULL)
		ck_assert_ptr_null(why);
	else
		ck_assert_str_eq(why, contra_cases[_i].want);
	free(why);
	falcon_conf_free(c);
}
END_TEST

/* A hetjob component's pool licenses go to its leader. */
static const struct {
	const char *leader, *comp;
	const char *want_leader, *want_comp; /* NULL = none left */
} het_cases[] = {
	{ NULL, "c1_gpu:2", "c1_gpu:2", NULL },
	{ "c1_gpu:2", "c2_gpu:4,matlab:1", "c1_gpu:2,c2_gpu:4", "matlab:1" },
	{ "c1_gpu:2,matlab:1", "c1_gpu:3,c1_nvme:1", "matlab:1,c1_gpu:5,c1_nvme:1", NULL },
	{ "matlab:1", "matlab:2", "matlab:1", "matlab:2" },
	{ NULL, NULL, NULL, NULL },
};

START_TEST(test_het)
{
	struct falcon_conf *c = load(fleet_text);
	char *lead = NULL, *comp = NULL;

	ck_assert_int_eq(falcon_het_licenses(c, het_cases[_i].leader, het_cases[_i].comp, &lead,
					     &comp), FALCON_OK);
	if (het_cases[_i].want_leader == NULL)
		ck_assert_ptr_null(lead);
	else
		ck_assert_str_eq(lead, het_cases[_i].want_leader);
	if (het_cases[_i].want_comp == NULL)
		ck_assert_ptr_null(comp);
	else
		ck_assert_str_eq(comp, het_cases[_i].want_comp);
	free(lead);
	free(comp);
	falcon_conf_free(c);
}
END_TEST

/* On an HRES site a later component's falcon devices cannot be counted on
 * its own chassis: refused, the message for the user, nothing returned */
/* With HRES (and conf) the pool is the chassis' layer: its total and
 * free count; without conf the licenses still. */
START_TEST(test_pool_read_hres)
{
	struct falcon_conf *conf = load(fleet_text);
	struct ctld s = { { 5, 6, 7 }, { 3, 2, 1 }, { 1, 0, 0 }, true };
	struct falcon_ctld_view v = view(&s, NULL);
	struct falcon_pool_count c;

	ck_assert_int_eq(falcon_pool_read(conf, &v, "c2", FALCON_DEV_GPU,
					  FALCON_POOL_TOTAL | FALCON_POOL_FREE, 0, &c), FALCON_OK);
	ck_assert_int_eq(c.total, 8);  /* falcon_pool_gpu(n2) */
	ck_assert_int_eq(c.free, 6);
	ck_assert_int_eq(c.pending, -1);
	/* c4 has no layer in slurmctld: -1, as a license it lacks */
	ck_assert_int_eq(falcon_pool_read(conf, &v, "c4", FALCON_DEV_GPU, FALCON_POOL_TOTAL, 0, &c),
			 FALCON_OK);
	ck_assert_int_eq(c.total, -1);
	/* a chassis falcon.conf does not name */
	ck_assert_int_eq(falcon_pool_read(conf, &v, "c9", FALCON_DEV_GPU, FALCON_POOL_TOTAL, 0, &c),
			 FALCON_ERR_INVAL);
	ck_assert_int_eq(c.total, -1);
	/* without conf: the license c2_gpu, which this site lacks */
	ck_assert_int_eq(falcon_pool_read(NULL, &v, "c2", FALCON_DEV_GPU,
					  FALCON_POOL_TOTAL | FALCON_POOL_FREE, 0, &c), FALCON_OK);
	ck_assert_int_eq(c.total, -1);
	ck_assert_int_eq(c.free, 0);
	falcon_conf_free(conf);
}
END_TEST

START_TEST(test_het_hres)
{
	struct falcon_conf *c = load(fleet_text);
	char *lead = (char *)"x", *comp = (char *)"x";

	ck_assert_int_eq(falcon_het_licenses(c, "falcon_pool_gpu:2", "falcon_pool_gpu:1,matlab:1",
					     &lead, &comp), FALCON_ERR_INVAL);
	ck_assert_ptr_null(lead);
	ck_assert_ptr_null(comp);
	ck_assert_msg(strstr(falcon_errmsg(), "falcon: a hetjob component after the first asks "
				 "for falcon_gpu/falcon_nvme, and this site counts them as HRES")
		      != NULL, "%s", falcon_errmsg());
	/* a later component without falcon devices is left alone */
	ck_assert_int_eq(falcon_het_licenses(c, "falcon_pool_gpu:2", "matlab:1", &lead, &comp),
			 FALCON_OK);
	ck_assert_str_eq(lead, "falcon_pool_gpu:2");
	ck_assert_str_eq(comp, "matlab:1");
	free(lead);
	free(comp);
	falcon_conf_free(c);
}
END_TEST

/* The log line says what was decided and for whom. */
START_TEST(test_notes)
{
	struct falcon_conf *c = load(fleet_text);
	struct ctld s = { { 0, 0, 0 }, { 6, 2, 4 }, { 0, 0, 0 }, false };
	struct falcon_ctld_view v = view(&s, "fleet");
	struct falcon_submit_job job = { .uid = 1000, .tres_per_node = "gres:falcon_gpu:4" };
	struct falcon_submit_out out;

	ck_assert_int_eq(falcon_submit_judge(c, NULL, &job, &v, &out), FALCON_OK);
	ck_assert_str_eq(out.note, "uid 1000: 1 node on 1 chassis (pends for licenses): "
			 "licenses '' -> 'c2_gpu:4', constraint '' -> 'falcon_c2'");
	ck_assert(!out.note_error);
	falcon_submit_out_free(&out);
	job.tres_per_node = "gres:falcon_gpu:9";
	ck_assert_int_eq(falcon_submit_judge(c, NULL, &job, &v, &out), FALCON_OK);
	ck_assert_ptr_nonnull(strstr(out.note, "uid 1000: refused: falcon: "));
	falcon_submit_out_free(&out);
	falcon_conf_free(c);
}
END_TEST

/* A partition over 20 chassis (c1..c20, host nK on cK, 8 GPUs each) whose
 * first 17 pools are full: the job goes to c18, the first with room
 * (regression: job_submit read the first 16 chassis of a partition only,
 * and a job of a 64-chassis partition pended on those 16; issue 41). */
#define BIG 20

static int big_chassis(const char *lic)
{
	int k = 0, n = 0;

	if (sscanf(lic, "c%d_gpu%n", &k, &n) != 1 || lic[n] != '\0' || k < 1 || k > BIG)
		return -1;
	return k - 1;
}

static long big_total(const char *lic, void *arg)
{
	(void)arg;
	return big_chassis(lic) < 0 ? -1 : 8;
}

static long big_free(const char *lic, void *arg)
{
	int c = big_chassis(lic);

	(void)arg;
	return c < 0 ? 0 : c < 17 ? 0 : 8;
}

static long big_pending(const char *lic, uint32_t job_id, void *arg)
{
	(void)lic;
	(void)job_id;
	(void)arg;
	return 0;
}

static bool big_known(const char *partition)
{
	return strcmp(partition, "big") == 0;
}

static const char *big_nodes(const char *partition, void *arg)
{
	static char list[BIG * 5];
	size_t k, o = 0;

	(void)arg;
	if (!big_known(partition))
		return NULL;
	for (k = 1, list[0] = '\0'; k <= BIG; k++)
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%sn%zu", k > 1 ? "," : "", k);
	return list;
}

START_TEST(test_big_fleet)
{
	char text[BIG * 128];
	size_t k, o = 0;
	struct falcon_conf *c;
	struct falcon_ctld_view v = {
		.default_partition = "big", .part_known = big_known, .part_nodes = big_nodes,
		.hostlist = hostlist, .license_total = big_total, .license_free = big_free,
		.license_pending = big_pending,
	};
	struct falcon_submit_job job = { .uid = 1000, .tres_per_node = "gres:falcon_gpu:4" };
	struct falcon_submit_out out;

	for (k = 1; k <= BIG; k++)
		o += (size_t)snprintf(text + o, sizeof(text) - o,
				      "ChassisName=c%zu Url=http://127.0.0.1:%zu/\n", k, k);
	for (k = 1; k <= BIG; k++)
		o += (size_t)snprintf(text + o, sizeof(text) - o, "HostName=n%zu Chassis=c%zu "
				      "Port=H1 Adapter=0000:3b:00.0\n", k, k);
	c = load(text);
	ck_assert_int_eq(falcon_submit_judge(c, NULL, &job, &v, &out), FALCON_OK);
	ck_assert_msg(out.verdict == FALCON_SUBMIT_ACCEPT, "why '%s'", out.why ? out.why : "");
	ck_assert_str_eq(out.licenses ? out.licenses : "(unchanged)", "c18_gpu:4");
	ck_assert_str_eq(out.features ? out.features : "(unchanged)", "falcon_c18");
	falcon_submit_out_free(&out);
	/* a -w list over all 20: more chassis than one job may be split over */
	job.req_nodes = big_nodes("big", NULL);
	job.min_nodes = BIG;
	ck_assert_int_eq(falcon_submit_judge(c, NULL, &job, &v, &out), FALCON_OK);
	ck_assert_int_eq(out.verdict, FALCON_SUBMIT_BAD_LICENSES);
	ck_assert_str_eq(out.why, "falcon: the job's -w list spans 20 chassis; a job is split "
			 "over at most 16");
	falcon_submit_out_free(&out);
	falcon_conf_free(c);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("submit");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_judge, 0, ARRAY_SIZE(judge_cases));
	tcase_add_loop_test(tc, test_noconf, 0, ARRAY_SIZE(noconf_cases));
	tcase_add_test(tc, test_default_policy);
	tcase_add_loop_test(tc, test_fits, 0, ARRAY_SIZE(fits_cases));
	tcase_add_test(tc, test_pool_read);
	tcase_add_loop_test(tc, test_contradiction, 0, ARRAY_SIZE(contra_cases));
	tcase_add_loop_test(tc, test_het, 0, ARRAY_SIZE(het_cases));
	tcase_add_test(tc, test_notes);
	tcase_add_test(tc, test_het_hres);
	tcase_add_test(tc, test_pool_read_hres);
	tcase_add_test(tc, test_big_fleet);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
