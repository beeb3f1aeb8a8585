/*
 * test_history.c - falcond's durable device history without the daemon:
 * entries closed through the ledger (falcond_ledger_record_release, its
 * on_release sink set to falcond_history_append as falcond.c does) reach
 * history.jsonl once flushed, the query's window and per-uid filter, open
 * entries from the ledger, lines lost in a crash appended again from the
 * ledger at open (and only those), lines that do not parse skipped, errors.
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

static struct falcon_lease lease(int n, long uid)
{
	struct falcon_lease l;

	memset(&l, 0, sizeof(l));
	snprintf(l.id, sizeof(l.id), "L-%d", n);
	l.job_id = (uint32_t)(100 + n);
	l.uid = uid;
	snprintf(l.host, sizeof(l.host), "n1");
	snprintf(l.state, sizeof(l.state), "active");
	l.ndevs = 1;
	snprintf(l.devs[0].chassis, sizeof(l.devs[0].chassis), "c1");
	snprintf(l.devs[0].id, sizeof(l.devs[0].id), "drawer1_slot%d", n % 2 + 1);
	snprintf(l.devs[0].port, sizeof(l.devs[0].port), "H1");
	return l;
}

/* one lease opened and closed through the ledger, as falcond does */
static void cycle(struct falcond_ledger *lg, int n, long uid)
{
	struct falcon_lease l = lease(n, uid);

	ck_assert_int_eq(falcond_ledger_add_lease(lg, &l), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_record_attach(lg, &l, &l.devs[0]), FALCON_OK);
	/* falcon-epilog sends its AdminComment tag as the check text */
	falcond_ledger_record_release(lg, l.id, &l.devs[0],
				      n == 3 ? "released; check: fail"
			     : n == 4 ? "released; check: falcon:topo=falconGPUs,f=1,check=warn,algbw=9.5"
				      : "released");
	falcond_ledger_remove_lease(lg, l.id);
}

static size_t lines(const char *path)
{
	char *buf = NULL;
	size_t n = 0, i;

	if (falcon_read_file(path, 1 << 24, &buf, NULL) != FALCON_OK)
		return 0;
	for (i = 0; buf[i]; i++)
		n += buf[i] == '\n';
	free(buf);
	return n;
}

static size_t count(json_object *o, const char *key, int64_t want)
{
	json_object *a, *v;
	size_t i, n = 0;

	ck_assert(json_object_object_get_ex(o, "entries", &a));
	for (i = 0; i < json_object_array_length(a); i++)
		if (key == NULL || (json_object_object_get_ex(json_object_array_get_idx(a, i), key, &v) &&
				    json_object_get_int64(v) == want))
			n++;
	return n;
}

static size_t count_str(json_object *o, const char *key, const char *want)
{
	json_object *a, *v;
	size_t i, n = 0;

	ck_assert(json_object_object_get_ex(o, "entries", &a));
	for (i = 0; i < json_object_array_length(a); i++)
		if (json_object_object_get_ex(json_object_array_get_idx(a, i), key, &v) &&
		    strcmp(json_object_get_string(v), want) == 0)
			n++;
	return n;
}

START_TEST(history_write_query_recover)
{
	const char *dir = make_tmpdir("history");
	char path[4200];
	struct falcond_ledger *lg = NULL;
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* falcond's state lock */
	struct falcon_lease open_l = lease(99, 7);
	json_object *o = NULL, *v;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "%s/" FALCOND_HISTORY_FILE, dir);
	ck_assert_int_eq(falcond_ledger_load(dir, &lg), FALCON_OK);
	ck_assert_int_eq(falcond_history_start(dir, lg), FALCON_OK);
	lg->on_release = falcond_history_append; /* as falcond.c wires them */
	ck_assert_int_eq(falcond_history_start(dir, lg), FALCON_ERR_INVAL);
	for (i = 1; i <= 40; i++) /* 20 per device: more than FALCOND_HIST_MAX */
		cycle(lg, i, i == 5 ? 7 : 0);
	ck_assert_int_eq(falcond_history_flush(), FALCON_OK);
	ck_assert_uint_eq(lines(path), 40);

	ck_assert_int_eq(falcond_ledger_add_lease(lg, &open_l), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_record_attach(lg, &open_l, &open_l.devs[0]), FALCON_OK);
	ck_assert_int_eq(falcond_history_request(lg, &lock, "0", NULL, 0, true, &o), FALCON_OK);
	ck_assert_uint_eq(count(o, NULL, 0), 41);
	ck_assert_uint_eq(count(o, "released", 0), 1); /* the open one */
	/* the verdict, from a plain word or from the tag's check= */
	ck_assert_uint_eq(count_str(o, "check", "fail"), 1);
	ck_assert_uint_eq(count_str(o, "check", "warn"), 1);
	json_object_put(o);
	/* uid 7: its closed lease 5 and its open lease 99 only */
	ck_assert_int_eq(falcond_history_request(lg, &lock, NULL, NULL, 7, false, &o), FALCON_OK);
	ck_assert_uint_eq(count(o, NULL, 0), 2);
	ck_assert_uint_eq(count(o, "job_id", 105), 1);
	json_object_put(o);
	/* a window before everything */
	ck_assert_int_eq(falcond_history_request(lg, &lock, "0", "1000", 0, true, &o), FALCON_OK);
	ck_assert_uint_eq(count(o, NULL, 0), 0);
	json_object_put(o);
	ck_assert_int_eq(falcond_history_request(lg, &lock, "x", NULL, 0, true, &o), FALCON_ERR_PARSE);
	ck_assert_int_eq(falcond_history_request(lg, &lock, "5", "4", 0, true, &o), FALCON_ERR_PARSE);
	falcond_history_stop();

	/* a crash lost the last 3 lines; a garbage line sits in the file */
	{
		char *buf = NULL, *p;
		int k;

		ck_assert_int_eq(falcon_read_file(path, 1 << 24, &buf, NULL), FALCON_OK);
		for (k = 0, p = buf; k < 37; k++)
			p = strchr(p, '\n') + 1;
		*p = '\0';
		f = fopen(path, "w");
		fprintf(f, "%snot json\n", buf);
		fclose(f);
		free(buf);
	}
	ck_assert_int_eq(falcond_history_start(dir, lg), FALCON_OK);
	ck_assert_int_eq(falcond_history_flush(), FALCON_OK);
	ck_assert_uint_eq(lines(path), 37 + 1 + 3);
	ck_assert_int_eq(falcond_history_request(lg, &lock, NULL, NULL, 0, true, &o), FALCON_OK);
	ck_assert_uint_eq(count(o, NULL, 0), 41);
	ck_assert(json_object_object_get_ex(o, "skipped", &v));
	ck_assert_int_eq(json_object_get_int64(v), 1);
	json_object_put(o);
	falcond_history_stop();
	/* opened again: nothing more to recover */
	ck_assert_int_eq(falcond_history_start(dir, lg), FALCON_OK);
	ck_assert_int_eq(falcond_history_flush(), FALCON_OK);
	ck_assert_uint_eq(lines(path), 41);
	falcond_history_stop();
	falcond_history_stop(); /* a no-op */
	pthread_mutex_destroy(&lock);
	falcond_ledger_free(lg);
}
END_TEST

START_TEST(history_errors)
{
	/* closing entries while not open does nothing */
	struct falcond_hist e = { .job_id = 1 };

	falcond_history_append("c1", "drawer1_slot1", &e, 0);
	ck_assert_int_eq(falcond_history_flush(), FALCON_OK);
	ck_assert_int_eq(falcond_history_start("/nonexistent/dir", NULL), FALCON_ERR_IO);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "/nonexistent/dir"));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("history");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, history_write_query_recover);
	tcase_add_test(tc, history_errors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
