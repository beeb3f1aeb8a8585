/*
 * test_auto.c - lib/advise/auto.c table driven: --falcon-topology=auto as
 * job_submit_falcon applies it, over a fake slurmctld (a partition's nodes
 * with their GRES configured and allocated, the chassis pool licenses):
 * who asks for it and for how many GPUs, the topologies a partition
 * allows, what is free now (the advisor's inputs), the GRES rewritten, the
 * choice and what the user and the AdminComment are told; and the
 * AdviceFile kept across changes.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "advise/auto.h"
#include "core/util.h"
#include "testutil.h"

/* slurm-submit.sh's partitions: debug takes every topology, small no
 * falconGPUs and at most 2 falcon_gpu, local only localGPUs. */
static const char conf_text[] =
	"ChassisName=c1 Url=http://127.0.0.1:1/\n"
	"ChassisName=c2 Url=http://127.0.0.1:2/\n"
	"HostName=n1 Chassis=c1 Port=H1 Adapter=0000:3b:00.0\n"
	"HostName=n2 Chassis=c2 Port=H1 Adapter=0000:3b:00.0\n"
	"PartitionName=debug MaxFalconGPUs=12\n"
	"PartitionName=small AllowTopologies=localGPUs,hybridGPUs MaxFalconGPUs=2\n"
	"PartitionName=local AllowTopologies=localGPUs\n";

static struct falcon_conf *load(void)
{
	struct falcon_conf *c = NULL;

	ck_assert_msg(falcon_conf_parse("test.conf", conf_text, &c) == FALCON_OK, "%s",
		      falcon_errmsg());
	return c;
}

/* The fake pools: c1_gpu and c2_gpu of 8, free as given. */
static long pool_free[2];

static int chassis_of(const char *lic)
{
	return strcmp(lic, "c1_gpu") == 0 ? 0 : strcmp(lic, "c2_gpu") == 0 ? 1 : -1;
}

static long lic_total(const char *lic, void *arg)
{
	(void)arg;
	return chassis_of(lic) < 0 ? -1 : 8;
}

static long lic_free(const char *lic, void *arg)
{
	(void)arg;
	return chassis_of(lic) < 0 ? 0 : pool_free[chassis_of(lic)];
}

static long lic_pending(const char *lic, uint32_t job_id, void *arg)
{
	(void)lic;
	(void)job_id;
	(void)arg;
	return 0;
}

static bool known(const char *partition)
{
	return strcmp(partition, "debug") == 0 || strcmp(partition, "small") == 0 ||
	       strcmp(partition, "local") == 0;
}

static const struct falcon_ctld_view view = {
	.default_partition = "debug",
	.part_known = known,
	.license_total = lic_total,
	.license_free = lic_free,
	.license_pending = lic_pending,
};

static const struct {
	const char *env;
	const char *tres;
	int gpus;
} gpus_cases[] = {
	{ NULL, "gres:falcon_gpu:4", 0 },                       /* not asked */
	{ "SPANK_FALCON_TOPOLOGY=auto", "gres:falcon_gpu:4", 4 },
	{ "FALCON_TOPOLOGY=auto", "gres/gpu:2,gres/falcon_gpu:2", 4 }, /* as slurmctld holds it */
	{ "FALCON_TOPOLOGY_REQUEST=auto", "gres:falcon_gpu:4", 0 }, /* the user's, not the job's */
	{ "SPANK_FALCON_TOPOLOGY=auto", NULL, -1 },              /* no GPU */
	{ "SPANK_FALCON_TOPOLOGY=auto", "gres:falcon_nvme:1", -1 },
	{ "SPANK_FALCON_TOPOLOGY=auto", "gres:falcon_gpu:99", -1 }, /* does not parse */
	{ "SPANK_FALCON_TOPOLOGY=bogus", "gres:falcon_gpu:4", 0 }, /* the judge refuses it */
};

START_TEST(test_gpus)
{
	char *env[1] = { (char *)gpus_cases[_i].env };

	ck_assert_int_eq(falcon_auto_gpus(env, gpus_cases[_i].env ? 1 : 0, gpus_cases[_i].tres),
			 gpus_cases[_i].gpus);
}
END_TEST

static const struct {
	const char *partition;
	unsigned gpus;
	unsigned allowed;
} allowed_cases[] = {
	{ "debug", 4, FALCON_AUTO_LOCAL | FALCON_AUTO_HYBRID | FALCON_AUTO_FALCON },
	{ NULL, 4, FALCON_AUTO_LOCAL | FALCON_AUTO_HYBRID | FALCON_AUTO_FALCON },
	{ "debug", 1, FALCON_AUTO_LOCAL | FALCON_AUTO_FALCON },  /* no hybrid of one GPU */
	{ "debug", 13, FALCON_AUTO_LOCAL | FALCON_AUTO_HYBRID }, /* MaxFalconGPUs=12 */
	{ "small", 4, FALCON_AUTO_LOCAL | FALCON_AUTO_HYBRID },
	{ "local", 4, FALCON_AUTO_LOCAL },
};

START_TEST(test_allowed)
{
	struct falcon_conf *c = load();

	ck_assert_uint_eq(falcon_auto_allowed(c, known, allowed_cases[_i].partition,
					      allowed_cases[_i].gpus), allowed_cases[_i].allowed);
	falcon_conf_free(c);
}
END_TEST

static const struct {
	const char *old;
	unsigned local, falcon;
	const char *want;
} tres_cases[] = {
	{ "gres:falcon_gpu:4", 4, 0, "gres:gpu:4" },
	{ "gres/falcon_gpu:4", 0, 4, "gres/falcon_gpu:4" },
	{ "cpu=2,gres/gpu:a100:2,gres/falcon_nvme:1,gres/falcon_gpu:2", 3, 1,
	  "cpu=2,gres/falcon_nvme:1,gres/gpu:3,gres/falcon_gpu:1" },
	{ "gres:gpus:1,gres:falcon_gpux:1", 1, 0, "gres:gpus:1,gres:falcon_gpux:1,gres:gpu:1" },
	{ NULL, 2, 0, "gres:gpu:2" },
	{ ",gres:falcon_gpu=4,,", 0, 4, "gres:falcon_gpu:4" },
};

START_TEST(test_tres)
{
	char *t = falcon_auto_tres(tres_cases[_i].old, tres_cases[_i].local, tres_cases[_i].falcon);

	ck_assert_str_eq(t, tres_cases[_i].want);
	free(t);
}
END_TEST

/* What is free now: nodes n1 (c1) and n2 (c2) and one of no chassis. */
START_TEST(test_avail)
{
	struct falcon_conf *c = load();
	const struct falcon_ctld_node nodes[] = {
		{ "n2", "gpu:8,falcon_gpu:16", "gpu:(null):3(IDX:0-2),falcon_gpu:4", true },
		{ "x1", "gpu:4", NULL, true },
		{ "n1", "gpu:8,falcon_gpu:16", NULL, false }, /* down: nothing free */
	};
	struct falcon_avail av;
	struct falcon_anode *an;
	struct falcon_achassis *ac;

	pool_free[0] = 5;
	pool_free[1] = 2;
	ck_assert_int_eq(falcon_auto_avail(c, &view, nodes, 3, &av, &an, &ac), FALCON_OK);
	ck_assert_int_eq(av.nnodes, 3);
	ck_assert_str_eq(av.nodes[0].name, "n2");
	ck_assert_uint_eq(av.nodes[0].gpus, 8);
	ck_assert_uint_eq(av.nodes[0].gpus_free, 5);
	ck_assert_uint_eq(av.nodes[0].falcon_gpus_free, 12);
	ck_assert_uint_eq(av.nodes[1].gpus_free, 4);
	ck_assert_uint_eq(av.nodes[2].gpus, 8);
	ck_assert_uint_eq(av.nodes[2].gpus_free, 0);
	ck_assert_uint_eq(av.nodes[2].falcon_gpus_free, 0);
	ck_assert(av.chassis_known);
	ck_assert_int_eq(av.nchassis, 2); /* in the order first met */
	ck_assert_str_eq(av.chassis[0].name, "c2");
	ck_assert_uint_eq(av.chassis[0].gpus, 8);
	ck_assert_uint_eq(av.chassis[0].gpus_free, 2);
	ck_assert_str_eq(av.chassis[1].name, "c1");
	ck_assert_uint_eq(av.chassis[1].gpus_free, 5);
	free(an);
	free(ac);
	falcon_conf_free(c);
}
END_TEST

/* bert's history (slurm-submit.sh's AdviceFile): 1.5x as long on falcon
 * GPUs; hybrid's rows for the split refused by small's MaxFalconGPUs=2. */
static const struct falcon_rrel rows[] = {
	{ "bert", "localGPUs", 5, 100, 1.0, "localGPUs", false },
	{ "bert", "falconGPUs", 6, 150, 1.5, "localGPUs", false },
	{ "gpt", "hybridGPUs", 5, 50, 0.5, "localGPUs", false },
	{ "gpt", "localGPUs", 5, 100, 1.0, "localGPUs", false },
};

static const struct {
	const char *partition;
	const char *name;        /* -J (the workload) */
	const char *used;        /* n1's allocated GRES */
	long pool;               /* c1's GPUs free */
	const char *admin;       /* its AdminComment */
	const char *tres;        /* the new GRES, NULL = unchanged */
	const char *msg;         /* the start of what the user is told */
	const char *comment;     /* the new AdminComment, NULL = unchanged */
} choose_cases[] = {
	/* local GPUs free: local, the faster, by history; even where
	 * falconGPUs are refused */
	{ "small", "bert", NULL, 8, NULL, "gres:gpu:4",
	  "falcon: --falcon-topology=auto: localGPUs (--gres=gpu:4) by the workload's history",
	  "falcon:auto=localGPUs" },
	/* the node's GPUs taken: chassis GPUs free now rather than a wait */
	{ "debug", "bert", "gpu:8", 8, "site=1", "gres:falcon_gpu:4",
	  "falcon: --falcon-topology=auto: falconGPUs (--gres=falcon_gpu:4) by the workload's "
	  "history", "site=1; falcon:auto=falconGPUs" },
	/* no history: what is free now, local first */
	{ "debug", "new", NULL, 8, NULL, "gres:gpu:4",
	  "falcon: --falcon-topology=auto: localGPUs (--gres=gpu:4) by what is free now", NULL },
	{ "debug", "new", "gpu:8", 8, NULL, "gres:falcon_gpu:4",
	  "falcon: --falcon-topology=auto: falconGPUs (--gres=falcon_gpu:4) by what is free now",
	  NULL },
	/* nothing free: local, which can ever give them, with a wait */
	{ "debug", "new", "gpu:8", 0, NULL, "gres:gpu:4",
	  "falcon: --falcon-topology=auto: localGPUs (--gres=gpu:4) by what is free now", NULL },
	/* hybrid by history, its split past small's MaxFalconGPUs=2 */
	{ "small", "gpt", "gpu:7", 8, NULL, NULL,
	  "falcon: --falcon-topology=auto: its choice hybridGPUs (gres:gpu:1,gres:falcon_gpu:3) "
	  "is refused: partition small allows at most 2 falcon_gpu per node", NULL },
	/* the partition allows none that can give them (no falcon allowed,
	 * the node's 8 local GPUs are too few for 12) */
	{ "local", "new", NULL, 8, NULL, NULL, "falcon: --falcon-topology=auto: ", NULL },
};

START_TEST(test_choose)
{
	struct falcon_conf *c = load();
	const struct falcon_ctld_node nodes[] = {
		{ "n1", "gpu:8,falcon_gpu:16", choose_cases[_i].used, true },
	};
	struct falcon_auto_job job = {
		.uid = 1000, .partition = choose_cases[_i].partition,
		.tres_per_node = "gres:falcon_gpu:4", .name = choose_cases[_i].name,
		.admin_comment = choose_cases[_i].admin, .gpus = 4,
	};
	struct falcon_auto_out out;

	if (strcmp(choose_cases[_i].partition, "local") == 0) {
		job.gpus = 12;
		job.tres_per_node = "gres:falcon_gpu:12";
	}
	pool_free[0] = choose_cases[_i].pool;
	pool_free[1] = 0;
	ck_assert_int_eq(falcon_auto_choose(c, &view, &job, rows, ARRAY_SIZE(rows), nodes, 1, &out),
			 FALCON_OK);
	ck_assert_ptr_nonnull(out.msg);
	ck_assert_msg(strncmp(out.msg, choose_cases[_i].msg, strlen(choose_cases[_i].msg)) == 0,
		      "msg '%s'", out.msg);
	ck_assert_ptr_nonnull(out.note);
	if (choose_cases[_i].tres == NULL) {
		ck_assert_msg(out.tres_per_node == NULL, "tres '%s'", out.tres_per_node);
		ck_assert_ptr_nonnull(strstr(out.msg, "; the job keeps what it asked for"));
		ck_assert_ptr_null(out.admin_comment);
	} else {
		ck_assert_str_eq(out.tres_per_node, choose_cases[_i].tres);
		ck_assert_str_eq(out.admin_comment, choose_cases[_i].comment
				 ? choose_cases[_i].comment : strstr(out.msg, "localGPUs (")
				 ? "falcon:auto=localGPUs" : "falcon:auto=falconGPUs");
	}
	falcon_auto_out_free(&out);
	falcon_conf_free(c);
}
END_TEST

/* The workload is the job's --comment when it has one, not its name. */
START_TEST(test_choose_comment)
{
	struct falcon_conf *c = load();
	const struct falcon_ctld_node nodes[] = { { "n1", "gpu:8,falcon_gpu:16", "gpu:7", true } };
	struct falcon_auto_job job = { .partition = "small", .tres_per_node = "gres:falcon_gpu:4",
				       .comment = "gpt", .name = "ignored", .gpus = 4 };
	struct falcon_auto_out out;

	pool_free[0] = 8;
	ck_assert_int_eq(falcon_auto_choose(c, &view, &job, rows, ARRAY_SIZE(rows), nodes, 1, &out),
			 FALCON_OK);
	ck_assert_ptr_nonnull(strstr(out.msg, "its choice hybridGPUs (gres:gpu:1,gres:falcon_gpu:3) "
				     "is refused: partition small allows at most 2 falcon_gpu"));
	falcon_auto_out_free(&out);
	falcon_conf_free(c);
}
END_TEST

/* No history at all (no rows): the user is told where it comes from, the
 * AdviceFile named (issue 42); with rows, not. */
START_TEST(test_choose_no_advice_file)
{
	struct falcon_conf *c = load();
	const struct falcon_ctld_node nodes[] = { { "n1", "gpu:8,falcon_gpu:16", NULL, true } };
	struct falcon_auto_job job = { .partition = "debug", .tres_per_node = "gres:falcon_gpu:4",
				       .name = "bert", .gpus = 4 };
	struct falcon_auto_out out;
	char want[512];

	pool_free[0] = 8;
	ck_assert_int_eq(falcon_auto_choose(c, &view, &job, NULL, 0, nodes, 1, &out), FALCON_OK);
	snprintf(want, sizeof(want), "(no AdviceFile %s: `falconctl advise --save` writes the "
		 "history auto chooses by)", c->advice_file);
	ck_assert_msg(strstr(out.msg, "by what is free now") != NULL &&
		      strstr(out.msg, want) != NULL, "msg '%s'", out.msg);
	falcon_auto_out_free(&out);
	ck_assert_int_eq(falcon_auto_choose(c, &view, &job, rows, ARRAY_SIZE(rows), nodes, 1, &out),
			 FALCON_OK);
	ck_assert_ptr_null(strstr(out.msg, "AdviceFile"));
	falcon_auto_out_free(&out);
	falcon_conf_free(c);
}
END_TEST

/* The AdviceFile: read, kept when broken, none when gone. */
START_TEST(test_advice_keep)
{
	char dir[] = "/tmp/test_auto.XXXXXX", path[64];
	struct falcon_advice_keeper k = { 0 };
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/advice.json", dir);
	falcon_advice_keep(&k, path);
	ck_assert_int_eq(k.n, 0);
	f = fopen(path, "w");
	fputs("{ \"advice\": [ { \"workload\": \"bert\", \"baseline\": \"localGPUs\", "
	      "\"topologies\": [ { \"topology\": \"localGPUs\", \"jobs\": 5, "
	      "\"elapsed_median_s\": 100, \"relative\": 1.0 } ] } ] }\n", f);
	fclose(f);
	falcon_advice_keep(&k, path);
	ck_assert_int_eq(k.n, 1);
	ck_assert_str_eq(k.rows[0].workload, "bert");
	f = fopen(path, "w");
	fputs("{ \"advice\": [ { \"workload\": 3 } ] }\n", f);
	fclose(f);
	falcon_advice_keep(&k, path);
	ck_assert_int_eq(k.n, 1); /* the history read before */
	unlink(path);
	falcon_advice_keep(&k, path);
	ck_assert_int_eq(k.n, 0);
	ck_assert_ptr_null(k.rows);
	rmdir(dir);
	falcon_advice_keeper_free(&k);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("auto");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_gpus, 0, ARRAY_SIZE(gpus_cases));
	tcase_add_loop_test(tc, test_allowed, 0, ARRAY_SIZE(allowed_cases));
	tcase_add_loop_test(tc, test_tres, 0, ARRAY_SIZE(tres_cases));
	tcase_add_test(tc, test_avail);
	tcase_add_loop_test(tc, test_choose, 0, ARRAY_SIZE(choose_cases));
	tcase_add_test(tc, test_choose_comment);
	tcase_add_test(tc, test_choose_no_advice_file);
	tcase_add_test(tc, test_advice_keep);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
