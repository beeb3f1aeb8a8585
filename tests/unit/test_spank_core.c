/*
 * test_spank_core.c - unit tests of spank_falcon's Slurm-free core:
 * option words, plugstack arguments, RunDir from falcon.conf, and the task
 * environment read from topology.json files written here.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spank_core.h"
#include "testutil.h"
#include "core/util.h"

/* ---- option words ------------------------------------------------------ */

static const struct {
	enum fsp_opt opt;
	const char *value;
	const char *canon;      /* NULL = rejected */
} word_cases[] = {
	{ FSP_OPT_PLACE, "pack", "pack" },
	{ FSP_OPT_PLACE, "spread", "spread" },
	{ FSP_OPT_PLACE, "ANY", "any" },
	{ FSP_OPT_PLACE, "bogus", NULL },
	{ FSP_OPT_PLACE, "", NULL },
	{ FSP_OPT_PLACE, "pack ", NULL },
	{ FSP_OPT_PLACE, "quick", NULL },
	{ FSP_OPT_CHECK, "quick", "quick" },
	{ FSP_OPT_CHECK, "Full", "full" },
	{ FSP_OPT_CHECK, "off", "off" },
	{ FSP_OPT_CHECK, "pack", NULL },
	{ FSP_OPT_CHECK, NULL, NULL },
};

START_TEST(test_option_words)
{
	char out[FSP_WORD_LEN] = "";
	falcon_err_t rv = fsp_option_check(word_cases[_i].opt, "--x",
					   word_cases[_i].value, out);

	if (word_cases[_i].canon == NULL) {
		ck_assert_int_eq(rv, FALCON_ERR_INVAL);
		/* The message names where the value came from and the choices. */
		ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "--x="));
		ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "expected "));
		ck_assert_ptr_nonnull(strstr(falcon_errmsg(),
					     word_cases[_i].opt == FSP_OPT_PLACE ?
					     "pack, spread or any" : "quick, full or off"));
	} else {
		ck_assert_int_eq(rv, FALCON_OK);
		ck_assert_str_eq(out, word_cases[_i].canon);
	}
}
END_TEST

START_TEST(test_option_names)
{
	ck_assert_str_eq(fsp_option_name(FSP_OPT_PLACE), "falcon-place");
	ck_assert_str_eq(fsp_option_env(FSP_OPT_PLACE), "FALCON_PLACE");
	ck_assert_str_eq(fsp_option_words(FSP_OPT_CHECK), "quick|full|off");
	ck_assert_str_eq(fsp_option_env(FSP_OPT_CHECK), "FALCON_CHECK");
	ck_assert_str_eq(fsp_option_ctl(FSP_OPT_PLACE), "FALCON_PLACE");
	/* the request is not the label every task of a falcon job gets
	 * (issue 42: srun inside a falconGPUs job read it and failed) */
	ck_assert_str_eq(fsp_option_env(FSP_OPT_TOPOLOGY), "FALCON_TOPOLOGY_REQUEST");
	ck_assert_str_eq(fsp_option_ctl(FSP_OPT_TOPOLOGY), "FALCON_TOPOLOGY");
}
END_TEST

/* ---- plugstack arguments ----------------------------------------------- */

static const struct {
	const char *args[4];
	falcon_err_t rv;
	const char *conf, *rundir, *place, *check; /* expected on success */
	const char *msg;                           /* expected in the error */
} cfg_cases[] = {
	{ { NULL }, FALCON_OK, NULL, NULL, "", "", NULL },
	{ { "conf=/etc/falcon/falcon.conf", "place=spread", "check=off", NULL },
	  FALCON_OK, "/etc/falcon/falcon.conf", NULL, "spread", "off", NULL },
	{ { "rundir=/tmp/r", "place=pack", "place=any", NULL },
	  FALCON_OK, NULL, "/tmp/r", "any", "", NULL },
	{ { "colour=blue", NULL }, FALCON_ERR_CONFIG, NULL, NULL, NULL, NULL,
	  "unknown key 'colour'" },
	{ { "conf", NULL }, FALCON_ERR_CONFIG, NULL, NULL, NULL, NULL, "expected key=value" },
	{ { "=x", NULL }, FALCON_ERR_CONFIG, NULL, NULL, NULL, NULL, "expected key=value" },
	{ { "conf=", NULL }, FALCON_ERR_CONFIG, NULL, NULL, NULL, NULL, "empty value" },
	{ { "conf=relative.conf", NULL }, FALCON_ERR_CONFIG, NULL, NULL, NULL, NULL,
	  "absolute path" },
	{ { "rundir=run", NULL }, FALCON_ERR_CONFIG, NULL, NULL, NULL, NULL, "absolute path" },
	{ { "place=near", NULL }, FALCON_ERR_CONFIG, NULL, NULL, NULL, NULL,
	  "plugstack place=near: expected pack, spread or any" },
	{ { "check=always", NULL }, FALCON_ERR_CONFIG, NULL, NULL, NULL, NULL,
	  "plugstack check=always: expected quick, full or off" },
	{ { "conf=/a", "confx=/b", NULL }, FALCON_ERR_CONFIG, NULL, NULL, NULL, NULL,
	  "unknown key 'confx'" },
};

static void check_str_or_null(const char *got, const char *want)
{
	if (want == NULL)
		ck_assert_ptr_null(got);
	else
		ck_assert_str_eq(got, want);
}

START_TEST(test_config_parse)
{
	struct fsp_config cfg;
	char *av[4];
	int ac = 0;
	falcon_err_t rv;

	memset(&cfg, 0, sizeof(cfg));
	while (ac < 4 && cfg_cases[_i].args[ac] != NULL) {
		av[ac] = (char *)cfg_cases[_i].args[ac];
		ac++;
	}
	rv = fsp_config_parse(ac, av, &cfg);
	ck_assert_int_eq(rv, cfg_cases[_i].rv);
	if (rv == FALCON_OK) {
		check_str_or_null(cfg.conf, cfg_cases[_i].conf);
		check_str_or_null(cfg.rundir, cfg_cases[_i].rundir);
		ck_assert_str_eq(cfg.place, cfg_cases[_i].place);
		ck_assert_str_eq(cfg.check, cfg_cases[_i].check);
	} else {
		ck_assert_msg(strstr(falcon_errmsg(), cfg_cases[_i].msg) != NULL,
			      "message '%s' lacks '%s'", falcon_errmsg(), cfg_cases[_i].msg);
		ck_assert_ptr_null(cfg.conf);
		ck_assert_ptr_null(cfg.rundir);
	}
	fsp_config_free(&cfg);
}
END_TEST

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(text, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_config_rundir)
{
	struct fsp_config cfg;
	char conf[4096], bad[4096];
	char *av[1];
	char dir[1024];

	falcon_strlcpy(dir, make_tmpdir("spank-rundir"), sizeof(dir));

	/* Default: no conf=, no rundir=. */
	memset(&cfg, 0, sizeof(cfg));
	ck_assert_int_eq(fsp_config_parse(0, av, &cfg), FALCON_OK);
	ck_assert_int_eq(fsp_config_rundir(&cfg), FALCON_OK);
	ck_assert_str_eq(cfg.rundir, "/run/falcon");
	fsp_config_free(&cfg);

	/* RunDir= of a real falcon.conf. */
	snprintf(conf, sizeof(conf), "%s/falcon.conf", dir);
	write_text(conf, "# test\nRunDir=/var/tmp/falcon-run\n");
	cfg.conf = strdup(conf);
	ck_assert_int_eq(fsp_config_rundir(&cfg), FALCON_OK);
	ck_assert_str_eq(cfg.rundir, "/var/tmp/falcon-run");
	fsp_config_free(&cfg);

	/* rundir= wins over the file. */
	cfg.conf = strdup(conf);
	cfg.rundir = strdup("/x");
	ck_assert_int_eq(fsp_config_rundir(&cfg), FALCON_OK);
	ck_assert_str_eq(cfg.rundir, "/x");
	fsp_config_free(&cfg);

	/* A broken falcon.conf is an error with its file:line. */
	snprintf(bad, sizeof(bad), "%s/bad.conf", dir);
	write_text(bad, "RunDirectory=/x\n");
	cfg.conf = strdup(bad);
	ck_assert_int_eq(fsp_config_rundir(&cfg), FALCON_ERR_CONFIG);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "bad.conf:1"));
	fsp_config_free(&cfg);

	/* A missing one is NOTFOUND. */
	cfg.conf = strdup("/nonexistent/falcon.conf");
	ck_assert_int_eq(fsp_config_rundir(&cfg), FALCON_ERR_NOTFOUND);
	fsp_config_free(&cfg);
	unlink(conf);
	unlink(bad);
	rmdir(dir);
}
END_TEST

/* ---- topology.json -> task environment ---------------------------------- */

static const struct {
	const char *json;       /* NULL = no file */
	falcon_err_t rv;
	const char *cvd, *topo, *nvme;
} topo_cases[] = {
	{ NULL, FALCON_ERR_NOTFOUND, NULL, NULL, NULL },
	{ "{\"topology\":\"hybridGPUs\",\"storage\":\"falconNVMe\","
	  "\"gpus\":[{\"bdf\":\"0000:3b:00.0\",\"location\":\"local\"}],"
	  "\"nvme\":[{\"bdf\":\"0000:5e:00.0\",\"location\":\"falcon\",\"dev\":\"/dev/nvme1n1\"},"
	  "{\"bdf\":\"0000:01:00.0\",\"location\":\"local\",\"dev\":\"/dev/nvme0n1\"}],"
	  "\"job_id\":42,\"cuda_visible_devices\":\"0,1,2,3\"}",
	  FALCON_OK, "0,1,2,3", "hybridGPUs", "/dev/nvme1n1" },
	{ "{\"topology\":\"falconGPUs\",\"storage\":null,\"nvme\":[],"
	  "\"cuda_visible_devices\":\"4\"}", FALCON_OK, "4", "falconGPUs", NULL },
	{ "{\"topology\":null,\"nvme\":[{\"location\":\"falcon\",\"dev\":\"/dev/nvme1n1\"},"
	  "{\"location\":\"falcon\",\"dev\":\"/dev/nvme2n1\"}]}",
	  FALCON_OK, NULL, NULL, "/dev/nvme1n1,/dev/nvme2n1" },
	{ "{\"cuda_visible_devices\":\"\"}", FALCON_OK, "", NULL, NULL },
	{ "{}", FALCON_OK, NULL, NULL, NULL },
	{ "", FALCON_ERR_PARSE, NULL, NULL, NULL },
	{ "{\"topology\":", FALCON_ERR_PARSE, NULL, NULL, NULL },
	{ "{} {}", FALCON_ERR_PARSE, NULL, NULL, NULL },
	{ "[1,2]", FALCON_ERR_PARSE, NULL, NULL, NULL },
	{ "{\"cuda_visible_devices\":\"0,,1\"}", FALCON_ERR_PARSE, NULL, NULL, NULL },
	{ "{\"cuda_visible_devices\":\"0,1,\"}", FALCON_ERR_PARSE, NULL, NULL, NULL },
	{ "{\"cuda_visible_devices\":\"0,1023\"}", FALCON_OK, "0,1023", NULL, NULL },
	{ "{\"cuda_visible_devices\":\"0,1024\"}", FALCON_ERR_PARSE, NULL, NULL, NULL },
	{ "{\"cuda_visible_devices\":\"0;rm -rf /\"}", FALCON_ERR_PARSE, NULL, NULL, NULL },
	{ "{\"cuda_visible_devices\":\"99999\"}", FALCON_ERR_PARSE, NULL, NULL, NULL },
	{ "{\"cuda_visible_devices\":[0,1]}", FALCON_ERR_PARSE, NULL, NULL, NULL },
	/* UUIDs (CudaVisibleDevices=uuid, the default) */
	{ "{\"cuda_visible_devices\":\"GPU-9b191d6b-8809-64f4-ac11-4a756490763b,"
	  "GPU-1b7fc716-cc46-85e8-e04b-31dff6fea237\"}", FALCON_OK,
	  "GPU-9b191d6b-8809-64f4-ac11-4a756490763b,GPU-1b7fc716-cc46-85e8-e04b-31dff6fea237",
	  NULL, NULL },
	{ "{\"cuda_visible_devices\":\"GPU-9b191d6b-8809-64f4-ac11-4a756490763\"}",
	  FALCON_ERR_PARSE, NULL, NULL, NULL },
	{ "{\"cuda_visible_devices\":\"GPU-9b191d6b-8809-64f4-ac11-4a756490763;\"}",
	  FALCON_ERR_PARSE, NULL, NULL, NULL },
	/* a GPU named twice: the CUDA runtime refuses the whole list
	 * (cudaErrorInvalidDevice, no GPU; a UUID twice, H100, issue 30) */
	{ "{\"cuda_visible_devices\":\"GPU-89390d28-ed67-0d1a-c88c-b595c1247bd2,"
	  "GPU-89390d28-ed67-0d1a-c88c-b595c1247bd2\"}", FALCON_ERR_PARSE, NULL, NULL, NULL },
	{ "{\"cuda_visible_devices\":\"GPU-89390d28-ed67-0d1a-c88c-b595c1247bd2,"
	  "GPU-1b7fc716-cc46-85e8-e04b-31dff6fea237,"
	  "GPU-89390D28-ED67-0D1A-C88C-B595C1247BD2\"}", FALCON_ERR_PARSE, NULL, NULL, NULL },
	{ "{\"cuda_visible_devices\":\"0,1,0\"}", FALCON_ERR_PARSE, NULL, NULL, NULL },
	{ "{\"cuda_visible_devices\":\"2,02\"}", FALCON_ERR_PARSE, NULL, NULL, NULL },
	{ "{\"cuda_visible_devices\":\"1,10,0\"}", FALCON_OK, "1,10,0", NULL, NULL },
	{ "{\"topology\":\"quantumGPUs\"}", FALCON_ERR_PARSE, NULL, NULL, NULL },
	{ "{\"topology\":\"ALL\"}", FALCON_ERR_PARSE, NULL, NULL, NULL },
	{ "{\"nvme\":{}}", FALCON_ERR_PARSE, NULL, NULL, NULL },
	{ "{\"nvme\":[3]}", FALCON_ERR_PARSE, NULL, NULL, NULL },
	/* regression: a falcon NVMe without a driver bound has no "dev"; it
	 * used to fail every task of a falconNVMe job */
	{ "{\"nvme\":[{\"location\":\"falcon\"}]}", FALCON_OK, NULL, NULL, NULL },
	{ "{\"nvme\":[{\"location\":\"falcon\"},"
	  "{\"location\":\"falcon\",\"dev\":\"/dev/nvme2n1\"}]}",
	  FALCON_OK, NULL, NULL, "/dev/nvme2n1" },
	{ "{\"nvme\":[{\"location\":\"falcon\",\"dev\":7}]}", FALCON_ERR_PARSE, NULL, NULL, NULL },
	{ "{\"nvme\":[{\"location\":\"falcon\",\"dev\":\"nvme1n1\"}]}",
	  FALCON_ERR_PARSE, NULL, NULL, NULL },
};

START_TEST(test_task_env)
{
	struct fsp_task_env env;
	char jobdir[4096], file[4200];
	char dir[1024];

	falcon_strlcpy(dir, make_tmpdir("spank-topo"), sizeof(dir));
	falcon_err_t rv;

	snprintf(jobdir, sizeof(jobdir), "%s/1234", dir);
	snprintf(file, sizeof(file), "%s/topology.json", jobdir);
	ck_assert_int_eq(mkdir(jobdir, 0755), 0);
	if (topo_cases[_i].json != NULL)
		write_text(file, topo_cases[_i].json);
	memset(&env, 0, sizeof(env));
	rv = fsp_task_env_load(dir, 1234, &env);
	ck_assert_msg(rv == topo_cases[_i].rv, "rv %d, want %d (%s)", rv,
		      topo_cases[_i].rv, falcon_errmsg());
	if (rv == FALCON_OK) {
		ck_assert_str_eq(env.topology_file, file);
		check_str_or_null(env.cuda_visible_devices, topo_cases[_i].cvd);
		check_str_or_null(env.topology, topo_cases[_i].topo);
		check_str_or_null(env.nvme, topo_cases[_i].nvme);
	} else {
		/* Errors name the file; nothing is left to free. */
		ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "topology.json"));
		ck_assert_ptr_null(env.topology_file);
		ck_assert_ptr_null(env.cuda_visible_devices);
	}
	fsp_task_env_free(&env);
	unlink(file);
	rmdir(jobdir);
	rmdir(dir);
}
END_TEST

START_TEST(test_task_env_too_big)
{
	struct fsp_task_env env;
	char jobdir[4096], file[4200];
	char dir[1024];

	falcon_strlcpy(dir, make_tmpdir("spank-big"), sizeof(dir));
	size_t n = 2 * 1024 * 1024;
	char *big = malloc(n + 1);

	ck_assert_ptr_nonnull(big);
	memset(big, ' ', n);
	big[0] = '{';
	big[n - 1] = '}';
	big[n] = '\0';
	snprintf(jobdir, sizeof(jobdir), "%s/7", dir);
	snprintf(file, sizeof(file), "%s/topology.json", jobdir);
	ck_assert_int_eq(mkdir(jobdir, 0755), 0);
	write_text(file, big);
	memset(&env, 0, sizeof(env));
	ck_assert_int_eq(fsp_task_env_load(dir, 7, &env), FALCON_ERR_PARSE);
	fsp_task_env_free(&env);
	free(big);
	unlink(file);
	rmdir(jobdir);
	rmdir(dir);
}
END_TEST

static Suite *spank_core_suite(void)
{
	Suite *s = suite_create("spank_core");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_option_words, 0, ARRAY_SIZE(word_cases));
	tcase_add_test(tc, test_option_names);
	tcase_add_loop_test(tc, test_config_parse, 0, ARRAY_SIZE(cfg_cases));
	tcase_add_test(tc, test_config_rundir);
	tcase_add_loop_test(tc, test_task_env, 0, ARRAY_SIZE(topo_cases));
	tcase_add_test(tc, test_task_env_too_big);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(spank_core_suite());
}
