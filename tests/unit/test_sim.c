/*
 * test_sim.c - unit tests of falcon-sim's pure logic: configuration
 * parsing (every error names its field), the mode rules (standard: one
 * port per drawer or two with 4 slots each; advanced: up to three ports),
 * one zone per device, detach refusal, and request fault matching.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "sim.h"
#include "testutil.h"

static falcon_err_t parse(const char *text, struct sim_config *cfg)
{
	struct json_object *o = json_tokener_parse(text);
	falcon_err_t rv;

	ck_assert_msg(o != NULL, "test JSON does not parse: %s", text);
	rv = sim_config_from_json(o, "t.json", cfg);
	json_object_put(o);
	return rv;
}

#define PORTS2 "\"host_ports\":[{\"id\":\"H1\",\"host\":\"a\",\"adapter\":\"0000:3b:00.0\",\"bus_range\":[60,70]}," \
	"{\"id\":\"H2\",\"host\":\"b\",\"adapter\":\"3b:00.0\",\"bus_range\":[\"0x3c\",\"0x45\"]}]"
#define GPU "{\"slot\":1,\"type\":\"GPU\",\"vendor_id\":\"10de\",\"device_id\":\"1db6\"}"

static const struct {
	const char *json;
	const char *want; /* substring of the error detail; NULL = valid */
} config_cases[] = {
	{ "{}", NULL },
	{ "{\"chassis\":\"f1\",\"mode\":\"advanced\"," PORTS2 ",\"drawers\":[{\"id\":1,\"host_ports\":[\"H1\",\"H2\"],\"slots\":[" GPU "]}]}", NULL },
	{ "[]", "(top level): expected an object" },
	{ "{\"colour\":1}", "(top level).colour: unknown field" },
	{ "{\"mode\":\"turbo\"}", "mode: expected \"standard\" or \"advanced\"" },
	{ "{\"chassis\":\"a/b\"}", "chassis: expected a name without '/'" },
	{ "{\"host_ports\":[{\"id\":\"H5\",\"host\":\"a\"}]}", "host_ports[0].id: expected \"H1\"..\"H4\"" },
	{ "{\"host_ports\":[{\"id\":\"H1\",\"host\":\"a\",\"adapter\":\"zz\",\"bus_range\":[60,70]}]}",
	  "host_ports[0].adapter: expected a PCI address" },
	{ "{\"host_ports\":[{\"id\":\"H1\",\"host\":\"a\",\"adapter\":\"0000:3b:00.0\",\"bus_range\":[60,62]}]}",
	  "host_ports[0].bus_range: expected [first, last]" },
	{ "{\"host_ports\":[{\"id\":\"H1\",\"host\":\"a\",\"adapter\":\"0000:3b:00.0\",\"bus_range\":[60,70],\"speed\":1}]}",
	  "host_ports[0].speed: unknown field" },
	{ "{" PORTS2 ",\"drawers\":[{\"id\":3}]}", "drawers[0].id: expected an integer in [1, 2]" },
	{ "{" PORTS2 ",\"drawers\":[{\"id\":1,\"slots\":[{\"slot\":9,\"type\":\"GPU\",\"vendor_id\":\"10de\",\"device_id\":\"1db6\"}]}]}",
	  "drawers[0].slots[0].slot: expected an integer in [1, 8]" },
	{ "{" PORTS2 ",\"drawers\":[{\"id\":1,\"slots\":[{\"slot\":1,\"type\":\"FPGA\",\"vendor_id\":\"10de\",\"device_id\":\"1db6\"}]}]}",
	  "drawers[0].slots[0].type: expected \"GPU\", \"NVMe\" or \"NIC\"" },
	{ "{" PORTS2 ",\"drawers\":[{\"id\":1,\"slots\":[{\"slot\":2,\"type\":\"NIC\",\"vendor_id\":\"15b3\",\"device_id\":\"101b\"}]}]}",
	  NULL },
	/* the words are case-sensitive, and "other" (device.h's fourth) is no slot device */
	{ "{" PORTS2 ",\"drawers\":[{\"id\":1,\"slots\":[{\"slot\":1,\"type\":\"gpu\",\"vendor_id\":\"10de\",\"device_id\":\"1db6\"}]}]}",
	  "drawers[0].slots[0].type: expected \"GPU\", \"NVMe\" or \"NIC\"" },
	{ "{" PORTS2 ",\"drawers\":[{\"id\":1,\"slots\":[{\"slot\":1,\"type\":\"other\",\"vendor_id\":\"10de\",\"device_id\":\"1db6\"}]}]}",
	  "drawers[0].slots[0].type: expected \"GPU\", \"NVMe\" or \"NIC\"" },
	{ "{" PORTS2 ",\"drawers\":[{\"id\":1,\"slots\":[{\"slot\":1,\"type\":\"GPU\",\"vendor_id\":\"nvidia\",\"device_id\":\"1db6\"}]}]}",
	  "drawers[0].slots[0].vendor_id: expected a hex id" },
	{ "{" PORTS2 ",\"drawers\":[{\"id\":1,\"slots\":[{\"slot\":1,\"type\":\"GPU\",\"vendor_id\":\"10de\",\"device_id\":\"1db6\",\"link\":{\"speed_gts\":7,\"width\":16}}]}]}",
	  "drawers[0].slots[0].link.speed_gts: expected 2.5, 5, 8, 16 or 32" },
	{ "{" PORTS2 ",\"drawers\":[{\"id\":1,\"slots\":[{\"slot\":1,\"type\":\"GPU\",\"vendor_id\":\"10de\",\"device_id\":\"1db6\",\"max_link\":{\"speed_gts\":8,\"width\":8},\"link\":{\"speed_gts\":16,\"width\":8}}]}]}",
	  "drawers[0].slots[0].link: trains above max_link" },
	{ "{" PORTS2 ",\"drawers\":[{\"id\":1,\"slots\":[" GPU "," GPU "]}]}",
	  "drawers[0].slots[1].slot: slot 1 defined twice" },
	{ "{" PORTS2 ",\"drawers\":[{\"id\":1,\"host_ports\":[\"H3\"]}]}",
	  "H3 is not cabled to a host" },
	{ "{" PORTS2 ",\"drawers\":[{\"id\":1,\"host_ports\":[\"H1\"]},{\"id\":2,\"host_ports\":[\"H1\"]}]}",
	  "H1 is cabled to drawer 1 already" },
	{ "{\"host_ports\":[{\"id\":\"H1\",\"host\":\"a\",\"adapter\":\"0000:3b:00.0\",\"bus_range\":[60,70]},"
	  "{\"id\":\"H2\",\"host\":\"a\",\"adapter\":\"0000:40:00.0\",\"bus_range\":[65,75]}]}",
	  "H1 and H2 of host a overlap in bus numbers" },
	{ "{" PORTS2 ",\"hosts\":[{\"name\":\"zz\"}]}", "hosts[0].name: \"zz\" is not the host of any host port" },
	{ "{" PORTS2 ",\"hosts\":[{\"name\":\"a\",\"local_devices\":[{\"bdf\":\"0000:3d:00.0\",\"type\":\"GPU\",\"vendor_id\":\"10de\",\"device_id\":\"1db1\"}]}]}",
	  "lies in H1's bus range" },
	{ "{\"faults\":{\"rules\":[{\"action\":\"explode\"}]}}", "faults.rules[0].action: expected" },
	{ "{\"faults\":{\"rules\":[{\"action\":\"error\",\"status\":404}]}}", "faults.rules[0].status: expected an integer in [500, 599]" },
	{ "{\"faults\":{\"no_appear\":[\"drawer3_slot1\"]}}", "faults.no_appear[0]: expected \"drawer<D>_slot<S>\"" },
	{ "{\"faults\":{\"unassigned_bar\":[\"slot1\"]}}", "faults.unassigned_bar[0]: expected \"drawer<D>_slot<S>\"" },
	{ "{\"faults\":{\"acs_redirect\":\"drawer1_slot1\"}}", "faults.acs_redirect" },
	{ "{\"faults\":{\"fell_off\":[1]}}", "faults.fell_off[0]" },
	{ "{\"surprise_removal\":\"maybe\"}", "surprise_removal: expected" },
	/* a port without a host is not cabled: nothing else is needed */
	{ "{\"host_ports\":[{\"id\":\"H4\",\"host\":null}]}", NULL },
	{ "{\"host_ports\":[{\"id\":\"H1\",\"host\":\"a\",\"adapter\":\"0000:3b:00.0\",\"bus_range\":[60,70],\"link\":{\"speed_gts\":16,\"width\":3}}]}",
	  "host_ports[0].link.width: expected 1, 2, 4, 8, 12, 16 or 32" },
	{ "{\"host_ports\":[{\"id\":\"H1\",\"host\":\"a\"},{\"id\":\"H1\",\"host\":null}]}",
	  "host_ports[0].adapter: expected a PCI address" },
	{ "{\"host_ports\":[{\"id\":\"H1\",\"host\":null},{\"id\":\"H1\",\"host\":null}]}",
	  "host_ports[1].id: H1 defined twice" },
	{ "{\"host_ports\":[{\"id\":\"H1\",\"host\":\"../x\"}]}", "host_ports[0].host: expected a host name" },
	{ "{\"faults\":{\"rules\":[{\"action\":\"latency\"}]}}", "faults.rules[0].ms: required for a latency rule" },
	{ "{\"faults\":{\"degraded_links\":{\"gpu1\":{\"speed_gts\":8,\"width\":8}}}}",
	  "faults.degraded_links.gpu1: expected a key" },
	{ "{\"faults\":{\"tasks\":{\"attach\":1}}}", "faults.tasks.attach: expected true or false" },
	{ "{\"faults\":{\"tasks\":{\"ms\":-1}}}", "faults.tasks.ms: expected" },
	{ "{\"faults\":{\"tasks\":{\"later\":true}}}", "faults.tasks.later: unknown field" },
	{ "{\"faults\":{\"tasks\":[]}}", "faults.tasks: expected an object" },
	{ "{\"faults\":{\"tasks\":{\"attach\":true,\"ms\":0}}}", NULL },
};

START_TEST(test_config_errors)
{
	struct sim_config cfg;
	falcon_err_t rv = parse(config_cases[_i].json, &cfg);

	if (config_cases[_i].want == NULL) {
		ck_assert_msg(rv == FALCON_OK, "%s: %s", config_cases[_i].json, falcon_errmsg());
		return;
	}
	ck_assert_int_eq(rv, FALCON_ERR_CONFIG);
	ck_assert_msg(strncmp(falcon_errmsg(), "t.json: ", 8) == 0, "no file prefix: %s",
		      falcon_errmsg());
	ck_assert_msg(strstr(falcon_errmsg(), config_cases[_i].want) != NULL,
		      "case %d: '%s' does not contain '%s'", _i, falcon_errmsg(),
		      config_cases[_i].want);
}
END_TEST

START_TEST(test_config_load_bad_json)
{
	const char *dir = make_tmpdir("simcfg");
	char path[4200];
	struct sim_config cfg;
	FILE *f;

	snprintf(path, sizeof(path), "%s/c.json", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("{\"chassis\": \"f1\",", f);
	fclose(f);
	ck_assert_int_eq(sim_config_load(path, &cfg), FALCON_ERR_CONFIG);
	ck_assert_msg(strstr(falcon_errmsg(), "not valid JSON") != NULL, "%s", falcon_errmsg());
	unlink(path);
	ck_assert_int_eq(sim_config_load(path, &cfg), FALCON_ERR_NOTFOUND);
	rmdir(dir);
}
END_TEST

START_TEST(test_default_is_testbed)
{
	struct sim_config cfg;
	int s, gpus = 0, nvme = 0, d;

	sim_config_default(&cfg);
	for (d = 0; d < SIM_DRAWERS; d++)
		for (s = 0; s < SIM_SLOTS; s++) {
			gpus += cfg.drawer[d].slot[s].populated &&
				cfg.drawer[d].slot[s].type == FALCON_DEV_GPU;
			nvme += cfg.drawer[d].slot[s].populated &&
				cfg.drawer[d].slot[s].type == FALCON_DEV_NVME;
		}
	ck_assert_int_eq(gpus, 8);
	ck_assert_int_eq(nvme, 1);
	ck_assert(!cfg.drawer[0].slot[4].populated); /* drawer 1 slot 5: empty */
	ck_assert(cfg.drawer[1].slot[4].populated);
	ck_assert_int_eq(cfg.drawer[1].slot[4].type, FALCON_DEV_NVME);
	ck_assert(cfg.hosts[0].local[0].populated);
	ck_assert_str_eq(cfg.port[0].host, "node1");
	ck_assert_str_eq(cfg.port[1].host, "node1");
	ck_assert_uint_eq(cfg.hosts[0].nlocal, 9);
	ck_assert_uint_eq(cfg.drawer[0].slot[0].device_id, 0x1db4);
}
END_TEST

/* Mode rules: owners of drawer 1's slots before, then one attach. */
static const struct {
	sim_mode_t mode;
	int owner[SIM_SLOTS];   /* 1-based port, 0 = free */
	int port, slot;         /* the attach: port 1-4, slot 1-8 (drawer 1) */
	falcon_err_t want;
} mode_cases[] = {
	/* standard, one host port takes all eight */
	{ SIM_MODE_STANDARD, { 1, 1, 1, 1, 1, 1, 1, 0 }, 1, 8, FALCON_OK },
	/* standard, second port in the free half */
	{ SIM_MODE_STANDARD, { 1, 1, 0, 0, 0, 0, 0, 0 }, 2, 5, FALCON_OK },
	/* standard, second port in the first port's half */
	{ SIM_MODE_STANDARD, { 1, 0, 0, 0, 0, 0, 0, 0 }, 2, 2, FALCON_ERR_POLICY },
	/* standard, first port spans both halves: no room for a second */
	{ SIM_MODE_STANDARD, { 1, 0, 0, 0, 1, 0, 0, 0 }, 2, 3, FALCON_ERR_POLICY },
	/* standard, split drawer: first port may not cross into the other half */
	{ SIM_MODE_STANDARD, { 1, 0, 0, 0, 2, 0, 0, 0 }, 1, 6, FALCON_ERR_POLICY },
	{ SIM_MODE_STANDARD, { 1, 0, 0, 0, 2, 0, 0, 0 }, 2, 8, FALCON_OK },
	/* standard, a third port never */
	{ SIM_MODE_STANDARD, { 1, 0, 0, 0, 2, 0, 0, 0 }, 3, 3, FALCON_ERR_POLICY },
	/* one zone at a time */
	{ SIM_MODE_STANDARD, { 1, 0, 0, 0, 0, 0, 0, 0 }, 2, 1, FALCON_ERR_CONFLICT },
	{ SIM_MODE_ADVANCED, { 1, 0, 0, 0, 0, 0, 0, 0 }, 2, 1, FALCON_ERR_CONFLICT },
	/* attaching one's own device again is fine */
	{ SIM_MODE_STANDARD, { 1, 0, 0, 0, 0, 0, 0, 0 }, 1, 1, FALCON_OK },
	/* advanced: any split among three ports */
	{ SIM_MODE_ADVANCED, { 1, 2, 1, 0, 0, 0, 0, 0 }, 3, 4, FALCON_OK },
	{ SIM_MODE_ADVANCED, { 1, 2, 3, 0, 0, 0, 0, 0 }, 1, 8, FALCON_OK },
	/* advanced: not a fourth */
	{ SIM_MODE_ADVANCED, { 1, 2, 3, 0, 0, 0, 0, 0 }, 4, 8, FALCON_ERR_POLICY },
	/* H4 is not cabled to drawer 1 in the standard fixture */
	{ SIM_MODE_STANDARD, { 0, 0, 0, 0, 0, 0, 0, 0 }, 4, 1, FALCON_ERR_POLICY },
};

static void mode_fixture(sim_mode_t mode, struct sim_config *cfg)
{
	int p, s;

	sim_config_default(cfg);
	cfg->mode = mode;
	cfg->drawer[0].nports = mode == SIM_MODE_ADVANCED ? 4 : 3;
	for (p = 0; p < cfg->drawer[0].nports; p++)
		cfg->drawer[0].ports[p] = p;
	cfg->drawer[1].nports = 0;
	for (s = 0; s < SIM_SLOTS; s++)
		cfg->drawer[0].slot[s] = cfg->drawer[1].slot[0];
}

START_TEST(test_mode_rules)
{
	struct sim_config cfg;
	struct sim_state st;
	int s;
	falcon_err_t rv;

	mode_fixture(mode_cases[_i].mode, &cfg);
	sim_state_init(&st);
	for (s = 0; s < SIM_SLOTS; s++)
		st.slot[0][s].owner = mode_cases[_i].owner[s] - 1;
	rv = sim_check_attach(&cfg, &st, mode_cases[_i].port - 1, 1, mode_cases[_i].slot);
	ck_assert_msg(rv == mode_cases[_i].want, "case %d: got %s (%s), want %s", _i,
		      falcon_err_name(rv), rv ? falcon_errmsg() : "",
		      falcon_err_name(mode_cases[_i].want));
}
END_TEST

START_TEST(test_attach_empty_slot)
{
	struct sim_config cfg;
	struct sim_state st;

	sim_config_default(&cfg);
	sim_state_init(&st);
	ck_assert_int_eq(sim_check_attach(&cfg, &st, 0, 1, 8), FALCON_ERR_NOTFOUND);
}
END_TEST

START_TEST(test_detach_rules)
{
	struct sim_config cfg;
	struct sim_state st;

	sim_config_default(&cfg);
	sim_state_init(&st);
	ck_assert_int_eq(sim_check_detach(&cfg, &st, 0, 1, 1), FALCON_OK); /* idempotent */
	st.slot[0][0].owner = 0;
	ck_assert_int_eq(sim_check_detach(&cfg, &st, 2, 1, 1), FALCON_ERR_CONFLICT);
	ck_assert_int_eq(sim_check_detach(&cfg, &st, 0, 1, 1), FALCON_OK);
	cfg.faults.refuse_detach[0][0] = true;
	ck_assert_int_eq(sim_check_detach(&cfg, &st, 0, 1, 1), FALCON_ERR_CHASSIS);
	cfg.faults.refuse_detach[0][0] = false;
	cfg.surprise = SIM_SURPRISE_REFUSE;
	st.slot[0][0].present = true;
	ck_assert_int_eq(sim_check_detach(&cfg, &st, 0, 1, 1), FALCON_ERR_CHASSIS);
	cfg.surprise = SIM_SURPRISE_REMOVE;
	ck_assert_int_eq(sim_check_detach(&cfg, &st, 0, 1, 1), FALCON_OK);
}
END_TEST

START_TEST(test_fault_rules)
{
	struct sim_faults f;
	struct sim_fault_rule r;
	struct json_object *o = json_tokener_parse(
		"{\"latency_ms\":5,\"rules\":["
		"{\"action\":\"error\",\"method\":\"PATCH\",\"path\":\"/redfish/v1/Fabrics/*\",\"count\":2,\"status\":500},"
		"{\"action\":\"drop\",\"path\":\"/redfish/v1\"}],"
		"\"degraded_links\":{\"drawer1_slot2\":{\"speed_gts\":8,\"width\":8}},"
		"\"no_appear\":[\"drawer2_slot3\"],\"refuse_detach\":[\"drawer1_slot4\"],"
		"\"unassigned_bar\":[\"drawer1_slot1\"],\"acs_redirect\":[\"drawer2_slot2\"],"
		"\"fell_off\":[\"drawer1_slot3\"]}");
	struct json_object *back;

	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(sim_faults_from_json(o, &f), FALCON_OK);
	ck_assert_int_eq(f.latency_ms, 5);
	ck_assert(f.degraded[0][1]);
	ck_assert_int_eq(f.degraded_link[0][1].width, 8);
	ck_assert(f.no_appear[1][2]);
	ck_assert(f.refuse_detach[0][3]);
	ck_assert(f.unassigned_bar[0][0] && !f.unassigned_bar[0][1]);
	ck_assert(f.acs_redirect[1][1] && !f.acs_redirect[0][1]);
	ck_assert(f.fell_off[0][2] && !f.fell_off[0][0]);
	ck_assert(!sim_fault_match(&f, "GET", "/redfish/v1/Fabrics/PCIe", &r));
	ck_assert(sim_fault_match(&f, "PATCH", "/redfish/v1/Fabrics/PCIe/Zones/H1", &r));
	ck_assert_int_eq(r.status, 500);
	ck_assert(sim_fault_match(&f, "patch", "/redfish/v1/Fabrics/PCIe/Zones/H1", &r));
	/* count spent */
	ck_assert(!sim_fault_match(&f, "PATCH", "/redfish/v1/Fabrics/PCIe/Zones/H1", &r));
	ck_assert(sim_fault_match(&f, "GET", "/redfish/v1", &r));
	ck_assert_int_eq(r.action, SIM_FAULT_DROP);
	/* round trip through JSON */
	back = sim_faults_to_json(&f);
	ck_assert_int_eq(sim_faults_from_json(back, &f), FALCON_OK);
	ck_assert(f.no_appear[1][2]);
	ck_assert(f.unassigned_bar[0][0] && f.acs_redirect[1][1] && f.fell_off[0][2]);
	ck_assert_int_eq(f.rules[0].count, 0);
	json_object_put(back);
	json_object_put(o);
}
END_TEST

START_TEST(test_ids)
{
	int d, s;

	ck_assert(sim_parse_dev_id("drawer2_slot8", &d, &s));
	ck_assert_int_eq(d, 2);
	ck_assert_int_eq(s, 8);
	ck_assert(!sim_parse_dev_id("drawer2_slot9", &d, &s));
	ck_assert(!sim_parse_dev_id("drawer2_slot1x", &d, &s));
	ck_assert(!sim_parse_dev_id("drawer0_slot1", &d, &s));
	ck_assert_int_eq(sim_parse_port("H4"), 3);
	ck_assert_int_eq(sim_parse_port("H5"), -1);
	ck_assert_int_eq(sim_parse_port("H12"), -1);
	/* one spelling per slot: no leading zero, sign or blank (falcon_slot_id_parse) */
	ck_assert(!sim_parse_dev_id("drawer01_slot1", &d, &s));
	ck_assert(!sim_parse_dev_id("drawer 1_slot1", &d, &s));
	ck_assert(!sim_parse_dev_id("drawer+1_slot1", &d, &s));
	ck_assert(!sim_parse_dev_id("drawer3_slot1", &d, &s));
	{
		int a = -1, b = -1;

		ck_assert(sim_parse_hostport("hostport2_H2", &a, &b));
		ck_assert(a == 2 && b == 2);
		ck_assert(sim_parse_hostport("hostport7_H1", &a, &b)); /* checked by the caller */
		ck_assert(a == 7 && b == 1);
		ck_assert(!sim_parse_hostport("hostport12_H1", &a, &b));
		ck_assert(!sim_parse_hostport("hostport1_H", &a, &b));
		ck_assert(!sim_parse_hostport("hostport1-H1", &a, &b));
		ck_assert(!sim_parse_hostport("hostport-_H1", &a, &b));
		ck_assert(!sim_parse_hostport(NULL, &a, &b));
		ck_assert(a == 7 && b == 1);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sim");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_config_errors, 0, (int)(sizeof(config_cases) / sizeof(config_cases[0])));
	tcase_add_test(tc, test_config_load_bad_json);
	tcase_add_test(tc, test_default_is_testbed);
	tcase_add_loop_test(tc, test_mode_rules, 0, (int)(sizeof(mode_cases) / sizeof(mode_cases[0])));
	tcase_add_test(tc, test_attach_empty_slot);
	tcase_add_test(tc, test_detach_rules);
	tcase_add_test(tc, test_fault_rules);
	tcase_add_test(tc, test_ids);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
