/*
 * test_fleet.c - lib/core/fleet.c table driven: where a job goes among the
 * chassis of a fleet (free pools given by a table), the chassis pin in a
 * constraint both ways, and the per-chassis licenses of a pick.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fleet.h"
#include "core/policy.h"
#include "core/util.h"
#include "testutil.h"

static const char conf_text[] =
	"ChassisName=c1 Url=http://127.0.0.1:1/\n"
	"ChassisName=c2 Url=http://127.0.0.1:2/\n"
	"ChassisName=c3 Url=http://127.0.0.1:3/\n"
	"HostName=n1 Chassis=c1 Port=H1 Adapter=0000:3b:00.0\n"
	"HostName=n2 Chassis=c2 Port=H1 Adapter=0000:3b:00.0\n"
	"HostName=n3 Chassis=c3 Port=H1 Adapter=0000:3b:00.0\n";

static struct falcon_conf *load(void)
{
	struct falcon_conf *c = NULL;

	ck_assert_msg(falcon_conf_parse("test.conf", conf_text, &c) == FALCON_OK, "%s",
		      falcon_errmsg());
	return c;
}

/* free and total GPUs per chassis (NVMe: 1 free, 1 total each) */
struct pools {
	long free[3], total[3];
	long backlog[3];
};

static long backlog(size_t c, void *arg)
{
	const struct pools *p = arg;

	return p->backlog[c];
}

static bool fits(size_t c, long gpus, long nvme, bool ever, void *arg)
{
	const struct pools *p = arg;

	return gpus <= (ever ? p->total[c] : p->free[c]) && nvme <= 1;
}

static const struct {
	long free[3];
	uint32_t hosts[3];    /* candidate nodes per chassis */
	uint32_t nodes;
	int gpus;
	const char *want;     /* "c2:1 c3:1 now" or NULL = refused */
	long backlog[3];      /* falcon_fleet_backlog_fn's answer per chassis */
} place_cases[] = {
	{ { 8, 8, 8 }, { 1, 1, 1 }, 1, 4, "c1:1 now", { 0, 0, 0 } },       /* packs onto the first */
	{ { 0, 8, 8 }, { 1, 1, 1 }, 1, 4, "c2:1 now", { 0, 0, 0 } },       /* first chassis full */
	{ { 2, 1, 8 }, { 1, 1, 1 }, 1, 4, "c3:1 now", { 0, 0, 0 } },
	{ { 0, 0, 0 }, { 1, 1, 1 }, 1, 4, "c1:1 later", { 0, 0, 0 } },     /* equal backlogs: the first that can */
	{ { 8, 8, 8 }, { 1, 1, 1 }, 2, 2, "c1:1 c2:1 now", { 0, 0, 0 } },  /* one node per chassis */
	{ { 8, 0, 8 }, { 1, 1, 1 }, 2, 2, "c1:1 c3:1 now", { 0, 0, 0 } },
	{ { 8, 8, 8 }, { 2, 1, 1 }, 2, 2, "c1:2 now", { 0, 0, 0 } },
	{ { 3, 8, 8 }, { 2, 1, 1 }, 2, 2, "c1:1 c2:1 now", { 0, 0, 0 } },  /* c1 has the nodes, not the GPUs */
	{ { 0, 0, 0 }, { 1, 1, 1 }, 3, 8, "c1:1 c2:1 c3:1 later", { 0, 0, 0 } },
	{ { 8, 8, 8 }, { 1, 1, 1 }, 4, 1, NULL, { 0, 0, 0 } },             /* 4 nodes, 3 cabled */
	{ { 8, 8, 8 }, { 1, 1, 1 }, 1, 9, NULL, { 0, 0, 0 } },             /* more than a chassis has */
	/* nothing free: the job waits where the backlog is least */
	{ { 0, 0, 0 }, { 1, 1, 1 }, 1, 4, "c2:1 later", { 6, 2, 4 } },
	{ { 0, 0, 0 }, { 1, 1, 1 }, 1, 4, "c2:1 later", { 3, 1, 1 } }, /* equals: conf order */
	{ { 0, 0, 0 }, { 1, 1, 1 }, 2, 8, "c2:1 c3:1 later", { 5, -1, 3 } },
	{ { 0, 0, 0 }, { 1, 1, 1 }, 2, 8, "c1:1 c3:1 later", { 2, 5, -3 } }, /* said in conf order */
	{ { 0, 0, 0 }, { 2, 1, 1 }, 2, 2, "c1:2 later", { 5, 0, 0 } }, /* one chassis first */
	{ { 4, 0, 0 }, { 1, 1, 1 }, 1, 4, "c1:1 now", { 9, 0, 0 } },   /* free now wins */
};

START_TEST(test_place)
{
	struct pools p = { { 0 }, { 8, 8, 8 }, { 0 } };
	struct falcon_fleet_cand cand[3];
	struct falcon_fleet_pick pick;
	char got[128] = "";
	size_t i, n = 0;
	falcon_err_t rv;

	memcpy(p.free, place_cases[_i].free, sizeof(p.free));
	memcpy(p.backlog, place_cases[_i].backlog, sizeof(p.backlog));
	for (i = 0; i < 3; i++) {
		cand[i].chassis = i;
		cand[i].nhosts = place_cases[_i].hosts[i];
	}
	rv = falcon_fleet_place(cand, 3, place_cases[_i].nodes, place_cases[_i].gpus, 0, fits,
				backlog, &p, &pick);
	if (place_cases[_i].want == NULL) {
		ck_assert_int_eq(rv, FALCON_ERR_POLICY);
		ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "can ever hold"));
		return;
	}
	ck_assert_msg(rv == FALCON_OK, "%s", falcon_errmsg());
	for (i = 0; i < pick.n; i++)
		n += (size_t)snprintf(got + n, sizeof(got) - n, "c%zu:%u ", pick.chassis[i] + 1,
				      pick.nodes[i]);
	snprintf(got + n, sizeof(got) - n, "%s", pick.now ? "now" : "later");
	ck_assert_str_eq(got, place_cases[_i].want);
}
END_TEST

/* More chassis than a job may be split over (a partition of 64 chassis):
 * every one is a candidate, free now first, then the least backlog
 * (regression: falcon_fleet_place refused more than 16 candidates). */
static bool fits_many(size_t c, long gpus, long nvme, bool ever, void *arg)
{
	(void)arg;
	(void)nvme;
	return gpus <= (ever || c == 40 ? 8 : 0);
}

static long backlog_many(size_t c, void *arg)
{
	(void)arg;
	return c == 50 ? -1 : 3;
}

START_TEST(test_place_many)
{
	struct falcon_fleet_cand cand[64];
	struct falcon_fleet_pick pick;
	size_t i;

	for (i = 0; i < 64; i++) {
		cand[i].chassis = i;
		cand[i].nhosts = 4;
	}
	ck_assert_msg(falcon_fleet_place(cand, 64, 1, 4, 0, fits_many, backlog_many, NULL,
					 &pick) == FALCON_OK, "%s", falcon_errmsg());
	ck_assert(pick.n == 1 && pick.chassis[0] == 40 && pick.nodes[0] == 1 && pick.now);
	/* nothing free anywhere (8 GPUs on each of 2 nodes): the least backlog */
	ck_assert_msg(falcon_fleet_place(cand, 64, 2, 8, 0, fits_many, backlog_many, NULL,
					 &pick) == FALCON_OK, "%s", falcon_errmsg());
	ck_assert(pick.n == 2 && pick.chassis[0] == 0 && pick.chassis[1] == 50 && !pick.now);
}
END_TEST

static const struct {
	const char *features;
	const char *pin;      /* "c2:0" etc. */
	const char *rest;     /* NULL = none */
} pin_cases[] = {
	{ NULL, "", NULL },
	{ "ib", "", "ib" },
	{ "falcon_c2", "c2:0", NULL },
	{ "falcon_c2&ib&big", "c2:0", "ib&big" },
	{ "ib&falcon_c3", "c3:0", "ib" },
	{ "[falcon_c1*1&falcon_c3*2]", "c1:1 c3:2", NULL },
	{ "falcon_c9", "", "falcon_c9" },                 /* not a chassis of falcon.conf */
	{ "[falcon_c1*1&ib*1]", "", "[falcon_c1*1&ib*1]" }, /* not ours: left alone */
	/* a count that is not a node count: not a pin, left for Slurm as it is */
	{ "falcon_c2*x", "", "falcon_c2*x" },
	{ "falcon_c2*0", "", "falcon_c2*0" },
	{ "falcon_c2*+1", "", "falcon_c2*+1" },
	{ "falcon_c2*99999999999", "", "falcon_c2*99999999999" },
};

START_TEST(test_pin)
{
	struct falcon_conf *c = load();
	struct falcon_fleet_pick pick;
	char got[128] = "", *rest = NULL;
	size_t i, n = 0;

	ck_assert_int_eq(falcon_fleet_pin_parse(c, pin_cases[_i].features, &pick, &rest),
			 FALCON_OK);
	for (i = 0; i < pick.n; i++)
		n += (size_t)snprintf(got + n, sizeof(got) - n, "%sc%zu:%u", i ? " " : "",
				      pick.chassis[i] + 1, pick.nodes[i]);
	ck_assert_str_eq(got, pin_cases[_i].pin);
	if (pin_cases[_i].rest == NULL)
		ck_assert_ptr_null(rest);
	else
		ck_assert_str_eq(rest, pin_cases[_i].rest);
	free(rest);
	falcon_conf_free(c);
}
END_TEST

START_TEST(test_constraint_licenses)
{
	struct falcon_conf *c = load();
	struct falcon_fleet_pick one = { 1, { 1 }, { 1 }, true };
	struct falcon_fleet_pick two = { 2, { 0, 2 }, { 1, 2 }, true };
	struct falcon_fleet_pick back;
	char *s = NULL;
	bool changed = false;

	ck_assert_int_eq(falcon_fleet_constraint(c, NULL, &one, &s), FALCON_OK);
	ck_assert_str_eq(s, "falcon_c2");
	free(s);
	ck_assert_int_eq(falcon_fleet_constraint(c, "ib", &one, &s), FALCON_OK);
	ck_assert_str_eq(s, "falcon_c2&ib");
	free(s);
	ck_assert_int_eq(falcon_fleet_constraint(c, NULL, &two, &s), FALCON_OK);
	ck_assert_str_eq(s, "[falcon_c1*1&falcon_c3*2]");
	/* what it writes, it reads back */
	ck_assert_int_eq(falcon_fleet_pin_parse(c, s, &back, NULL), FALCON_OK);
	ck_assert_int_eq(back.n, 2);
	ck_assert_int_eq(back.nodes[1], 2);
	free(s);
	ck_assert_int_eq(falcon_fleet_constraint(c, "ib", &two, &s), FALCON_ERR_POLICY);
	ck_assert_int_eq(falcon_fleet_constraint(c, "a|b", &one, &s), FALCON_ERR_POLICY);

	/* a re-pin from c1 to c2 moves the licenses; the user's others stay */
	ck_assert_int_eq(falcon_fleet_licenses(c, "matlab:1,c1_gpu:4,c1_nvme:1", &one, 4, 0, &s,
					       &changed), FALCON_OK);
	ck_assert_str_eq(s, "matlab:1,c2_gpu:4");
	ck_assert(changed);
	free(s);
	ck_assert_int_eq(falcon_fleet_licenses(c, NULL, &two, 2, 1, &s, NULL), FALCON_OK);
	ck_assert_str_eq(s, "c1_gpu:2,c1_nvme:1,c3_gpu:4,c3_nvme:2");
	free(s);
	falcon_conf_free(c);
}
END_TEST


static void collect(const char *msg, void *arg)
{
	char *buf = arg;

	strncat(buf, msg, 4095 - strlen(buf));
	strncat(buf, "\n", 4095 - strlen(buf));
}

START_TEST(test_slurm_check)
{
	struct falcon_conf *c = load();
	const char *node[] = { "n1", "n2", "n3", "x" };
	const char *feat[] = { "falcon_c1,ib", "falcon_c1", NULL, "falcon_c3" };
	const char *gres[] = { "falcon_gpu:8,falcon_nvme:1", "falcon_gpu:8", "gpu:tesla:2", NULL };
	struct falcon_slurm_view v = { "c1_gpu:8,c1_nvme:1,c2_gpu:4,c2_nvme:1,c3",
				       4, node, feat, gres, false };
	long gpus[3] = { 8, 8, -1 }, nvme[3] = { 1, 1, 0 };
	char buf[4096] = "";
	size_t n;

	n = falcon_slurm_check(c, &v, gpus, nvme, collect, buf);
	ck_assert_msg(strstr(buf, "Licenses=c2_gpu:4 but chassis c2 has 8 GPUs") != NULL, "%s", buf);
	ck_assert_msg(strstr(buf, "Licenses= has c3, the single license") != NULL, "%s", buf);
	ck_assert_msg(strstr(buf, "chassis c3 has no license c3_gpu") != NULL, "%s", buf);
	ck_assert_msg(strstr(buf, "no license c3_nvme") == NULL, "%s", buf); /* c3 has no NVMe */
	ck_assert_msg(strstr(buf, "node n2 is cabled to chassis c2 (falcon.conf) but lacks "
				  "Features=falcon_c2") != NULL, "%s", buf);
	ck_assert_msg(strstr(buf, "node n2 has Features=falcon_c1 but falcon.conf cables it to c2")
		      != NULL, "%s", buf);
	ck_assert_msg(strstr(buf, "node n3 has no Gres=falcon_gpu") != NULL, "%s", buf);
	ck_assert_msg(strstr(buf, "node x has Features=falcon_c3 but falcon.conf cables it to no "
				  "chassis") != NULL, "%s", buf);
	ck_assert_int_eq(n, 8);

	/* what slurm-conf writes passes the check */
	{
		const char *f2[] = { "falcon_c1", "falcon_c2", "falcon_c3" };
		const char *g2[] = { "falcon_gpu:8", "falcon_gpu:8", "falcon_gpu:8" };
		struct falcon_slurm_view ok = { "c1_gpu:8,c1_nvme:1,c2_gpu:8,c2_nvme:1,c3_gpu:8",
						3, node, f2, g2, false };
		long g[3] = { 8, 8, 8 };

		ck_assert_int_eq(falcon_slurm_check(c, &ok, g, nvme, NULL, NULL), 0);
	}
	/* a Licenses= count that is not a number is named, not read as 0 */
	{
		const char *f2[] = { "falcon_c1", "falcon_c2", "falcon_c3" };
		const char *g2[] = { "falcon_gpu:8", "falcon_gpu:8", "falcon_gpu:8" };
		struct falcon_slurm_view bad = { "c1_gpu:8x,c1_nvme:1,c2_gpu:8,c2_nvme:1,c3_gpu:8",
						 3, node, f2, g2, false };
		long g[3] = { 8, 8, 8 };

		buf[0] = '\0';
		ck_assert_int_eq(falcon_slurm_check(c, &bad, g, nvme, collect, buf), 1);
		ck_assert_msg(strstr(buf, "Licenses=c1_gpu:8x: the count: '8x' is not an integer")
			      != NULL, "%s", buf);
	}
	falcon_conf_free(c);
}
END_TEST

/* falcon_hres_layer_chassis(): the chassis whose hosts a layer lists, exactly */
START_TEST(test_hres_layer)
{
	static const char text[] =
		"ChassisName=c1 Url=http://127.0.0.1:1/\n"
		"ChassisName=c2 Url=http://127.0.0.1:2/\n"
		"HostName=a1 Chassis=c1 Port=H1 Adapter=0000:3b:00.0\n"
		"HostName=a2 Chassis=c1 Port=H2 Adapter=0000:3b:00.0\n"
		"HostName=b1 Chassis=c2 Port=H1 Adapter=0000:3b:00.0\n";
	struct falcon_conf *c = NULL;
	const char *c1[] = { "a2", "a1" }, *c1twice[] = { "a1", "a2", "a1" };
	const char *part[] = { "a1" }, *root[] = { "a1", "a2", "b1" };
	const char *c2[] = { "b1" }, *stranger[] = { "b1", "x9" };

	ck_assert_msg(falcon_conf_parse("t.conf", text, &c) == FALCON_OK, "%s", falcon_errmsg());
	ck_assert_int_eq(falcon_hres_layer_chassis(c, c1, 2), 0);
	ck_assert_int_eq(falcon_hres_layer_chassis(c, c1twice, 3), 0);
	ck_assert_int_eq(falcon_hres_layer_chassis(c, c2, 1), 1);
	ck_assert_int_eq(falcon_hres_layer_chassis(c, part, 1), -1);  /* a1 without a2 */
	ck_assert_int_eq(falcon_hres_layer_chassis(c, root, 3), -1);  /* the root layer */
	ck_assert_int_eq(falcon_hres_layer_chassis(c, stranger, 2), -1);
	ck_assert_int_eq(falcon_hres_layer_chassis(c, NULL, 0), -1);
	falcon_conf_free(c);
}
END_TEST

START_TEST(test_gres_with)
{
	char out[128];

	/* falcon_gres_count: test_advise's test_gres */
	ck_assert_int_eq(falcon_gres_with("gpu:8,falcon_gpu:8,falcon_nvme:1", "falcon_gpu", 0,
					  out, sizeof(out)), FALCON_OK);
	ck_assert_str_eq(out, "gpu:8,falcon_gpu:0,falcon_nvme:1");
	/* typed, with sockets whose list has a comma; a longer name untouched */
	ck_assert_int_eq(falcon_gres_with("falcon_gpu:a:4(S:0,1),falcon_gpux:2,falcon_gpu:b:2",
					  "falcon_gpu", 0, out, sizeof(out)), FALCON_OK);
	ck_assert_str_eq(out, "falcon_gpu:a:0(S:0,1),falcon_gpux:2,falcon_gpu:b:0");
	ck_assert_int_eq(falcon_gres_with("gpu:(null):1(IDX:0),falcon_gpu:(null):8(IDX:0-7)",
					  "falcon_gpu", 0, out, sizeof(out)), FALCON_OK);
	ck_assert_str_eq(out, "gpu:(null):1(IDX:0),falcon_gpu:(null):0(IDX:0-7)");
	ck_assert_int_eq(falcon_gres_with("falcon_gpu:0,falcon_nvme:0", "falcon_nvme", 12,
					  out, sizeof(out)), FALCON_OK);
	ck_assert_str_eq(out, "falcon_gpu:0,falcon_nvme:12");
	/* errors leave out empty */
	ck_assert_int_eq(falcon_gres_with("gpu:8", "falcon_gpu", 0, out, sizeof(out)),
			 FALCON_ERR_INVAL);
	ck_assert_str_eq(out, "");
	ck_assert_int_eq(falcon_gres_with("falcon_gpu:a", "falcon_gpu", 0, out, sizeof(out)),
			 FALCON_ERR_INVAL);
	ck_assert_int_eq(falcon_gres_with("falcon_gpu:8", "falcon_gpu", -1, out, sizeof(out)),
			 FALCON_ERR_INVAL);
	ck_assert_int_eq(falcon_gres_with("gpu:8,falcon_gpu:8", "falcon_gpu", 10, out, 12),
			 FALCON_ERR_INVAL);
	ck_assert_str_eq(out, "");
}
END_TEST

START_TEST(test_slurm_conf_write)
{
	struct falcon_conf *c = load();
	long gpus[3] = { 8, 4, -1 }, nvme[3] = { 1, 0, 0 };
	char *text = NULL;
	size_t len = 0, unknown;
	FILE *f = open_memstream(&text, &len);

	unknown = falcon_slurm_conf_write(c, gpus, nvme, NULL, 22, 5, false, f);
	fclose(f);
	ck_assert_int_eq(unknown, 3); /* c3's GPUs: Licenses=, Gres=, gres.conf */
	ck_assert_msg(strstr(text, "Licenses=c1_gpu:8,c1_nvme:1,c2_gpu:4,c2_nvme:0,"
				   "c3_gpu:COUNT,c3_nvme:0\n") != NULL, "%s", text);
	/* a type of count 0 is left out, as Slurm shows the node */
	ck_assert_msg(strstr(text, "NodeName=n2 Gres=falcon_gpu:4 Features=falcon_c2\n")
		      != NULL && strstr(text, "NodeName=n2 Name=falcon_nvme") == NULL, "%s", text);
	ck_assert_msg(strstr(text, "NodeName=n1 Name=falcon_gpu Count=8 Flags=CountOnly\n") != NULL,
		      "%s", text);
	ck_assert_msg(strstr(text, "resources.yaml") == NULL, "%s", text);
	free(text);

	/* 26.05 with the default pool: licenses, as on 22.05 (the release only
	 * named), no resources.yaml */
	f = open_memstream(&text, &len);
	falcon_slurm_conf_write(c, gpus, nvme, NULL, 26, 5, false, f);
	fclose(f);
	ck_assert_msg(strstr(text, "for Slurm 26.05, the pool as licenses\n") != NULL &&
		      strstr(text, "Licenses=c1_gpu:8,c1_nvme:1,") != NULL &&
		      strstr(text, " Features=falcon_c2\n") != NULL &&
		      strstr(text, "resources.yaml") == NULL, "%s", text);
	free(text);

	f = open_memstream(&text, &len);
	falcon_slurm_conf_write(c, gpus, nvme, NULL, 26, 5, true, f);
	fclose(f);
	ck_assert_msg(strstr(text, "Licenses=") == NULL && strstr(text, "Features=") == NULL, "%s",
		      text);
	ck_assert_msg(strstr(text, "- resource: falcon_pool_gpu\n  mode: MODE_3\n  layers:\n"
				   "    - nodes: [\"n1,n2,n3\"]   # every cabled node (the root)\n"
				   "      count: -1\n    - nodes: [\"n1\"]   # chassis c1\n"
				   "      count: 8\n") != NULL, "%s", text);
	free(text);
	falcon_conf_free(c);
	ck_assert(!falcon_slurm_hres_release(25, 5));
	ck_assert(falcon_slurm_hres_release(25, 11));
	ck_assert(falcon_slurm_hres_release(26, 5));
}
END_TEST

/* A row of 4 hosts on a Falcon 4016 (H1 and H3 on drawer 1, H2 and H4 on
 * drawer 2, as fleet-lib.sh cables make soak-fleet's): each node's Gres=
 * is its share of its drawer; a host on both drawers (two ports) counts
 * both; a chassis whose cabling is unknown keeps the whole count. */
/* cable - dc's next link: port to drawer */
static void cable(struct falcon_drawer_counts *dc, const char *port, int drawer)
{
	strcpy(dc->cables[dc->ncables].port, port);
	dc->cables[dc->ncables++].drawer = drawer;
}

START_TEST(test_slurm_conf_shares)
{
	static const char row[] =
		"ChassisName=c1 Url=http://127.0.0.1:1/ Mode=standard\n"
		"ChassisName=c2 Url=http://127.0.0.1:2/ Mode=advanced\n"
		"HostName=a1 Chassis=c1 Port=H1 Adapter=0000:3b:00.0\n"
		"HostName=a2 Chassis=c1 Port=H2 Adapter=0000:3b:00.0\n"
		"HostName=a3 Chassis=c1 Port=H3 Adapter=0000:3b:00.0\n"
		"HostName=a4 Chassis=c1 Port=H4 Adapter=0000:3b:00.0\n"
		"HostName=b1 Chassis=c2 Port=H1,H2 Adapter=0000:3b:00.0,0000:d8:00.0\n";
	struct falcon_drawer_counts dc[2];
	struct falcon_conf *c = NULL;
	long gpus[2] = { 15, 16 }, nvme[2] = { 1, 0 }, g = -7, v = -7;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	ck_assert_msg(falcon_conf_parse("row.conf", row, &c) == FALCON_OK, "%s", falcon_errmsg());
	memset(dc, 0, sizeof(dc));
	dc[0].known = true;
	dc[0].gpus[0] = 8;
	dc[0].gpus[1] = 7;
	dc[0].nvme[1] = 1;
	cable(&dc[0], "H1", 1);
	cable(&dc[0], "H2", 2);
	cable(&dc[0], "H3", 1);
	cable(&dc[0], "H4", 2);
	ck_assert_int_eq(falcon_host_share(c, 0, &dc[0], &g, &v), 1);
	ck_assert(g == 4 && v == 0);
	ck_assert_int_eq(falcon_host_share(c, 1, &dc[0], &g, &v), 1);
	ck_assert(g == 4 && v == 1); /* the first on drawer 2: the remainder */
	ck_assert_int_eq(falcon_host_share(c, 3, &dc[0], &g, &v), 1);
	ck_assert(g == 3 && v == 0);
	/* every share of a drawer adds up to it */
	ck_assert_int_eq(falcon_host_share(c, 2, &dc[0], &g, &v), 1);
	ck_assert_int_eq(g, 4);
	/* unknown cabling: untouched, -1 */
	g = v = -7;
	ck_assert_int_eq(falcon_host_share(c, 4, &dc[1], &g, &v), -1);
	ck_assert(g == -7 && v == -7);
	/* c2's one host on both drawers: all of it, nothing shared */
	dc[1].known = true;
	dc[1].gpus[0] = dc[1].gpus[1] = 8;
	cable(&dc[1], "H1", 1);
	cable(&dc[1], "H2", 2);
	ck_assert_int_eq(falcon_host_share(c, 4, &dc[1], &g, &v), 0);
	ck_assert(g == 16 && v == 0);

	f = open_memstream(&text, &len);
	falcon_slurm_conf_write(c, gpus, nvme, dc, 22, 5, false, f);
	fclose(f);
	ck_assert_msg(strstr(text, "Licenses=c1_gpu:15,c1_nvme:1,c2_gpu:16,c2_nvme:0\n") != NULL,
		      "%s", text);
	ck_assert_msg(strstr(text, "NodeName=a1 Gres=falcon_gpu:4 Features=falcon_c1\n")
		      != NULL && strstr(text, "NodeName=a2 Gres=falcon_gpu:4,falcon_nvme:1 ") != NULL &&
		      strstr(text, "NodeName=a4 Gres=falcon_gpu:3 ") != NULL &&
		      strstr(text, "NodeName=b1 Gres=falcon_gpu:16 ") != NULL, "%s", text);
	ck_assert_msg(strstr(text, "NodeName=a4 Name=falcon_gpu Count=3 Flags=CountOnly\n") != NULL,
		      "%s", text);
	ck_assert_msg(strstr(text, "# chassis c1: drawer 1 (falcon_gpu:8,falcon_nvme:0) is shared "
				   "by a1,a3:") != NULL &&
		      strstr(text, "drawer 2 (falcon_gpu:7,falcon_nvme:1) is shared by a2,a4:") != NULL,
		      "%s", text);
	/* c1 is in standard mode: told to use advanced; c2 shares nothing */
	ck_assert_msg(strstr(text, "# chassis c1: set Mode=advanced") != NULL &&
		      strstr(text, "# chassis c2:") == NULL, "%s", text);
	free(text);
	falcon_conf_free(c);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fleet");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_place, 0, ARRAY_SIZE(place_cases));
	tcase_add_test(tc, test_place_many);
	tcase_add_loop_test(tc, test_pin, 0, ARRAY_SIZE(pin_cases));
	tcase_add_test(tc, test_constraint_licenses);
	tcase_add_test(tc, test_slurm_check);
	tcase_add_test(tc, test_slurm_conf_write);
	tcase_add_test(tc, test_slurm_conf_shares);
	tcase_add_test(tc, test_hres_layer);
	tcase_add_test(tc, test_gres_with);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
