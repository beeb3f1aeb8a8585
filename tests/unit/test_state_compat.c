/*
 * test_state_compat.c - what a falcond of an earlier release left in its
 * StateDir is read by this one (upgrades keep state, issue 27): the ledger
 * (format "version":1) and history.jsonl in tests/unit/data/state-v1,
 * written by the packaged falcond 0.1.0 (tests/integration/packages.sh,
 * while job 2 held lease L-2 after job 1 had released L-1), copied to a
 * fresh directory, loaded, its history queried.  A change of either format
 * must keep reading these files (or convert them) and bump the version.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "testutil.h"
#include "falcond/ledger.h"
#include "falcond/history.h"
#include "core/util.h"

/* copy - SRCDIR/tests/unit/data/state-v1/NAME into DIR */
static void copy(const char *dir, const char *name)
{
	char src[4200], dst[4200];
	char *buf = NULL;
	size_t n = 0;
	FILE *f;

	snprintf(src, sizeof(src), "%s/tests/unit/data/state-v1/%s", FALCON_TEST_SRCDIR, name);
	snprintf(dst, sizeof(dst), "%s/%s", dir, name);
	ck_assert_msg(falcon_read_file(src, 1 << 20, &buf, &n) == FALCON_OK, "%s", src);
	f = fopen(dst, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(buf, 1, n, f), n);
	fclose(f);
	free(buf);
}

static size_t entries(json_object *o, int64_t job, bool open)
{
	json_object *a, *e, *v;
	size_t i, k = 0;

	ck_assert(json_object_object_get_ex(o, "entries", &a));
	for (i = 0; i < json_object_array_length(a); i++) {
		e = json_object_array_get_idx(a, i);
		ck_assert(json_object_object_get_ex(e, "job_id", &v));
		if (json_object_get_int64(v) != job)
			continue;
		ck_assert(json_object_object_get_ex(e, "released", &v));
		if ((json_object_get_int64(v) == 0) == open)
			k++;
	}
	return k;
}

START_TEST(state_v1_read)
{
	const char *dir = make_tmpdir("state-v1");
	struct falcond_ledger *lg = NULL;
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	const struct falcon_lease *l;
	json_object *o = NULL, *v;

	copy(dir, "ledger.json");
	copy(dir, "history.jsonl");
	ck_assert_int_eq(falcond_ledger_load(dir, &lg), FALCON_OK);
	ck_assert_uint_eq(lg->seq, 2);
	ck_assert_uint_eq(lg->nleases, 1);
	l = &lg->leases[0];
	ck_assert_str_eq(l->id, "L-2");
	ck_assert_uint_eq(l->job_id, 2);
	ck_assert_str_eq(l->host, "node1");
	ck_assert_str_eq(l->state, "active");
	ck_assert_uint_eq(l->ndevs, 2);
	ck_assert_str_eq(l->devs[0].chassis, "falcon1");
	ck_assert_str_eq(l->devs[0].id, "drawer1_slot1");
	ck_assert_str_eq(l->devs[1].id, "drawer1_slot2");
	ck_assert_uint_eq(lg->nquar, 0);

	ck_assert_int_eq(falcond_history_start(dir, lg), FALCON_OK);
	lg->on_release = falcond_history_append;
	ck_assert_int_eq(falcond_history_request(lg, &lock, "0", NULL, 0, true, &o), FALCON_OK);
	ck_assert(json_object_object_get_ex(o, "skipped", &v));
	ck_assert_int_eq(json_object_get_int64(v), 0);
	ck_assert_uint_eq(entries(o, 1, false), 4); /* job 1: 4 GPUs, released */
	ck_assert_uint_eq(entries(o, 2, true), 2);  /* job 2: 2 GPUs, still held */
	json_object_put(o);
	/* and the next release's ledger written back is read again */
	ck_assert_int_eq(falcond_ledger_save(lg), FALCON_OK);
	falcond_history_stop();
	falcond_ledger_free(lg);
	lg = NULL;
	ck_assert_int_eq(falcond_ledger_load(dir, &lg), FALCON_OK);
	ck_assert_uint_eq(lg->nleases, 1);
	ck_assert_str_eq(lg->leases[0].id, "L-2");
	falcond_ledger_free(lg);
	pthread_mutex_destroy(&lock);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("state_compat");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, state_v1_read);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
