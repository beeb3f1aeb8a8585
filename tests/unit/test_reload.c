/*
 * test_reload.c - lib/core/reload.c: a file seen, changed, gone and back
 * (falcon_file_look), and falcon.conf kept by a long-lived process
 * (falcon_conf_keep): loaded, reloaded on change only, the last good one
 * kept when the file breaks or goes, and why it is refused.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/reload.h"
#include "core/util.h"
#include "testutil.h"

static char dir[] = "/tmp/test_reload.XXXXXX";
static char path[4200];

static void put(const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/falcon.conf", dir);
}

static void teardown(void)
{
	unlink(path);
	rmdir(dir);
	strcpy(dir, "/tmp/test_reload.XXXXXX");
}

/* Each step: what the file becomes (NULL = removed, "" = left as is),
 * then what falcon_file_look() says. */
static const struct {
	const char *text;
	enum falcon_file_change want;
} look_steps[] = {
	{ NULL, FALCON_FILE_GONE },
	{ "", FALCON_FILE_STILL_GONE },
	{ "a\n", FALCON_FILE_CHANGED },
	{ "", FALCON_FILE_SAME },
	{ "ab\n", FALCON_FILE_CHANGED },  /* the size changed */
	{ NULL, FALCON_FILE_GONE },
	{ "a\n", FALCON_FILE_CHANGED },
};

START_TEST(test_look)
{
	struct falcon_file_seen f = { 0 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(look_steps); i++) {
		if (look_steps[i].text == NULL)
			unlink(path);
		else if (look_steps[i].text[0] != '\0')
			put(look_steps[i].text);
		ck_assert_msg(falcon_file_look(&f, path) == look_steps[i].want, "step %zu", i);
		if (look_steps[i].want == FALCON_FILE_GONE)
			ck_assert_int_eq(errno, ENOENT);
	}
	/* another path is new */
	ck_assert_int_eq(falcon_file_look(&f, "/nonexistent/falcon.conf"), FALCON_FILE_GONE);
}
END_TEST

static const char good1[] = "ChassisName=c1 Url=http://127.0.0.1:1/\n";
static const char good2[] = "ChassisName=c1 Url=http://127.0.0.1:1/\n"
			    "ChassisName=c2 Url=http://127.0.0.1:2/\n";
static const char bad[] = "ChassisName=c1 Url=http://127.0.0.1:1/\nNoSuchKey=1\n";

/* Each step: the file (NULL = removed, "" = as is), then how many chassis
 * the kept falcon.conf has (-1 = none kept) and whether it is broken. */
static const struct {
	const char *text;
	int nchassis;
	bool broken;
} keep_steps[] = {
	{ NULL, -1, false },   /* missing: nothing enforced, nothing refused */
	{ bad, -1, true },     /* broken, nothing before: falcon jobs refused */
	{ good1, 1, false },
	{ "", 1, false },
	{ bad, 1, true },      /* the last good one kept */
	{ good2, 2, false },
	{ NULL, 2, false },    /* gone: the last good one kept */
};

START_TEST(test_keep)
{
	struct falcon_conf_keeper k = { 0 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keep_steps); i++) {
		if (keep_steps[i].text == NULL)
			unlink(path);
		else if (keep_steps[i].text[0] != '\0')
			put(keep_steps[i].text);
		falcon_conf_keep(&k, path);
		if (keep_steps[i].nchassis < 0)
			ck_assert_msg(k.conf == NULL, "step %zu", i);
		else
			ck_assert_msg(k.conf != NULL && (int)k.conf->nchassis ==
				      keep_steps[i].nchassis, "step %zu", i);
		ck_assert_msg((falcon_conf_kept_broken(&k) != NULL) == keep_steps[i].broken,
			      "step %zu: %s", i, k.broken);
		if (keep_steps[i].broken)
			ck_assert_ptr_nonnull(strstr(falcon_conf_kept_broken(&k), "NoSuchKey"));
	}
	falcon_conf_keeper_free(&k);
	ck_assert_ptr_null(k.conf);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("reload");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_look);
	tcase_add_test(tc, test_keep);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
