/*
 * testutil.h - small helpers shared by the check unit tests.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_TESTUTIL_H
#define FALCON_TESTUTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Where ../shared lives: $FALCON_SHARED, else SRCDIR/../shared.  Tests that
 * read fixtures call fixture_path() and, when it returns NULL, report the
 * case skipped on stdout (check has no "skipped" state) and return early.
 */
static inline const char *shared_dir(void)
{
	static char buf[4096];
	const char *env = getenv("FALCON_SHARED");

	if (env != NULL && *env != '\0')
		snprintf(buf, sizeof(buf), "%s", env);
	else
		snprintf(buf, sizeof(buf), "%s/../shared", FALCON_TEST_SRCDIR);
	return buf;
}

/* fixture_path - SHARED/rel in a static buffer, or NULL when it is absent. */
static inline const char *fixture_path(const char *rel)
{
	static char buf[4096];
	struct stat st;

	if (snprintf(buf, sizeof(buf), "%s/fixtures/%s", shared_dir(), rel) >=
	    (int)sizeof(buf) || stat(buf, &st) != 0) {
		printf("SKIP: fixture %s not found (../shared absent)\n", buf);
		return NULL;
	}
	return buf;
}

/* The directories make_tmpdir() made in this process, removed at its exit
 * (check runs each test in a child that exits: its own are removed then). */
#define TMPDIRS_MAX 32
static char tmpdirs[TMPDIRS_MAX][4096];
static pid_t tmpdir_pid[TMPDIRS_MAX]; /* the process that made it removes it */
static int ntmpdirs;

static inline int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *f)
{
	(void)sb;
	(void)f;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

static inline void rm_tmpdirs(void)
{
	while (ntmpdirs > 0)
		if (tmpdir_pid[--ntmpdirs] == getpid())
			nftw(tmpdirs[ntmpdirs], rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* make_tmpdir - a fresh directory under $TMPDIR, removed with what it
 * holds when the process exits; static buffer. */
static inline const char *make_tmpdir(const char *tag)
{
	static char buf[4096];
	const char *t = getenv("TMPDIR");

	snprintf(buf, sizeof(buf), "%s/falcon-%s-XXXXXX", t ? t : "/tmp", tag);
	ck_assert_ptr_nonnull(mkdtemp(buf));
	if (ntmpdirs < TMPDIRS_MAX) {
		if (ntmpdirs == 0)
			atexit(rm_tmpdirs);
		tmpdir_pid[ntmpdirs] = getpid();
		snprintf(tmpdirs[ntmpdirs++], sizeof(tmpdirs[0]), "%s", buf);
	}
	return buf;
}

/* run_suite - run with check's normal output; exit status for automake. */
static inline int run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif /* FALCON_TESTUTIL_H */
