/*
 * test_core.c - unit tests of lib/core: falcon_err, log and util.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include "core/device.h"
#include "core/falcon_err.h"
#include "core/log.h"
#include "testutil.h"
#include "core/util.h"

START_TEST(test_strerror_covers_every_code)
{
	int e;

	for (e = 0; e < FALCON_ERR_MAX; e++) {
		ck_assert_ptr_nonnull(falcon_strerror(e));
		ck_assert_str_ne(falcon_strerror(e), "unknown error");
		ck_assert_str_ne(falcon_err_name(e), "unknown");
	}
	ck_assert_str_eq(falcon_strerror(FALCON_ERR_MAX), "unknown error");
	ck_assert_str_eq(falcon_strerror((falcon_err_t)-1), "unknown error");
}
END_TEST

START_TEST(test_errmsg_detail)
{
	falcon_err_clear();
	ck_assert_int_eq(falcon_err_set(FALCON_ERR_CONFIG, "%s:%d: bad", "f.conf", 3),
			 FALCON_ERR_CONFIG);
	ck_assert_str_eq(falcon_errmsg(), "f.conf:3: bad");
	falcon_err_set(FALCON_ERR_TIMEOUT, NULL);
	ck_assert_str_eq(falcon_errmsg(), "timed out");
}
END_TEST

/* falcon_err_prefix: what the caller was doing before the detail below it
 * (or the code's text when there was none), the new code; truncated at
 * the detail's size. */
START_TEST(test_errmsg_prefix)
{
	char big[2000];

	falcon_err_set(FALCON_ERR_NOTFOUND, "GET /z: 404");
	ck_assert_int_eq(falcon_err_prefix(FALCON_ERR_CHASSIS, "zone %s", "H1"),
			 FALCON_ERR_CHASSIS);
	ck_assert_str_eq(falcon_errmsg(), "zone H1: GET /z: 404");
	falcon_err_set(FALCON_ERR_TIMEOUT, NULL);
	falcon_err_prefix(FALCON_ERR_CHASSIS, "attach");
	ck_assert_str_eq(falcon_errmsg(), "attach: timed out");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	falcon_err_set(FALCON_ERR_IO, "%s", big);
	falcon_err_prefix(FALCON_ERR_IO, "p");
	ck_assert_uint_eq(strlen(falcon_errmsg()), 1023);
	ck_assert(strncmp(falcon_errmsg(), "p: xxx", 6) == 0);
	falcon_err_prefix(FALCON_ERR_IO, "%s", big);
	ck_assert_uint_eq(strlen(falcon_errmsg()), 1023);
}
END_TEST

static const struct {
	const char *in;
	int base;
	long min, max;
	falcon_err_t rv;
	long want;
} strtol_cases[] = {
	{ "0", 10, 0, 8, FALCON_OK, 0 },
	{ "8", 10, 0, 8, FALCON_OK, 8 },
	{ "9", 10, 0, 8, FALCON_ERR_INVAL, 0 },
	{ "-1", 10, 0, 8, FALCON_ERR_INVAL, 0 },
	{ "12x", 10, 0, 100, FALCON_ERR_INVAL, 0 },
	{ "", 10, 0, 100, FALCON_ERR_INVAL, 0 },
	{ " 1", 10, 0, 100, FALCON_ERR_INVAL, 0 },
	{ "0x10", 0, 0, 100, FALCON_OK, 16 },
	{ "3b", 16, 0, 255, FALCON_OK, 0x3b },
	{ "99999999999999999999999", 10, 0, 100, FALCON_ERR_INVAL, 0 },
};

START_TEST(test_strtol_table)
{
	long v = -12345;
	falcon_err_t rv = falcon_strtol(strtol_cases[_i].in, strtol_cases[_i].base,
					strtol_cases[_i].min, strtol_cases[_i].max, &v);

	ck_assert_int_eq(rv, strtol_cases[_i].rv);
	if (rv == FALCON_OK)
		ck_assert_int_eq(v, strtol_cases[_i].want);
	else
		ck_assert_int_eq(v, -12345);
}
END_TEST

/* the one BDF reader (conf Adapters, topo, hotplug) */
static const struct {
	const char *in, *want; /* want NULL: FALCON_ERR_INVAL */
} bdf_cases[] = {
	{ "0000:3b:00.0", "0000:3b:00.0" },
	{ "3B:00.0", "0000:3b:00.0" },
	{ "0001:C3:1F.7", "0001:c3:1f.7" },
	{ "10000:01:00.0", "10000:01:00.0" },  /* VMD domain */
	{ "3b:0.1", "0000:3b:00.1" },
	{ "0000:3b:20.0", NULL },               /* device > 1f */
	{ "0000:3b:00.8", NULL },               /* function > 7 */
	{ "100000:3b:00.0", NULL },
	{ "0000:3b:00", NULL },
	{ " 3b:00.0", NULL },
	{ "3b:00.0 ", NULL },
	{ "0000:62/../.0", NULL },
	{ "0000-3b:00.0", NULL },
	{ "3b00.0", NULL },
	{ "", NULL },
	{ NULL, NULL },
};

START_TEST(test_bdf_table)
{
	char out[FALCON_BDF_LEN] = "untouched";
	falcon_err_t rv = falcon_bdf_normalise(bdf_cases[_i].in, out);

	if (bdf_cases[_i].want != NULL) {
		ck_assert_msg(rv == FALCON_OK, "%s: %s", bdf_cases[_i].in, falcon_errmsg());
		ck_assert_str_eq(out, bdf_cases[_i].want);
	} else {
		ck_assert_int_eq(rv, FALCON_ERR_INVAL);
		ck_assert_str_eq(out, "untouched");
	}
}
END_TEST

/* falcon_strtol_n: a token inside a longer string */
static const struct {
	const char *in;
	size_t len;
	int base;
	long max;
	falcon_err_t rv;
	long want;
	const char *detail;   /* in falcon_errmsg() on error */
} strtol_n_cases[] = {
	{ "8,c2_gpu:4", 1, 10, 100, FALCON_OK, 8, NULL },
	{ "12(S:0)", 2, 10, 100, FALCON_OK, 12, NULL },
	{ "fa00 0x1", 4, 16, 0xffff, FALCON_OK, 0xfa00, NULL },
	{ "8x,b", 2, 10, 100, FALCON_ERR_INVAL, 0, "'8x' is not an integer in [0, 100]" },
	{ "-1", 2, 10, 100, FALCON_ERR_INVAL, 0, "'-1'" },
	{ "+1", 2, 10, 100, FALCON_ERR_INVAL, 0, "'+1'" },
	{ " 1", 2, 10, 100, FALCON_ERR_INVAL, 0, "' 1'" },
	{ "0x10", 4, 16, 100, FALCON_ERR_INVAL, 0, "'0x10'" },
	{ "101", 3, 10, 100, FALCON_ERR_INVAL, 0, "'101' is not an integer in [0, 100]" },
	{ "", 0, 10, 100, FALCON_ERR_INVAL, 0, "''" },
	{ "123456789012345678901234", 24, 10, 100, FALCON_ERR_INVAL, 0, "'1234567890" },
};

START_TEST(test_strtol_n_table)
{
	long v = -12345;
	falcon_err_t rv = falcon_strtol_n(strtol_n_cases[_i].in, strtol_n_cases[_i].len,
					  strtol_n_cases[_i].base, 0, strtol_n_cases[_i].max, &v);

	ck_assert_int_eq(rv, strtol_n_cases[_i].rv);
	if (rv == FALCON_OK) {
		ck_assert_int_eq(v, strtol_n_cases[_i].want);
	} else {
		ck_assert_int_eq(v, -12345);
		ck_assert_msg(strstr(falcon_errmsg(), strtol_n_cases[_i].detail) != NULL, "%s",
			      falcon_errmsg());
	}
}
END_TEST

START_TEST(test_bdf_parse)
{
	struct falcon_bdf b = { 9, 9, 9, 9 };

	ck_assert_int_eq(falcon_bdf_parse("0001:c3:1f.7", &b), FALCON_OK);
	ck_assert(b.domain == 1 && b.bus == 0xc3 && b.dev == 0x1f && b.fn == 7);
	ck_assert_int_eq(falcon_bdf_parse("3b:00.1", &b), FALCON_OK);
	ck_assert(b.domain == 0 && b.bus == 0x3b && b.dev == 0 && b.fn == 1);
	b.bus = 77;
	ck_assert_int_eq(falcon_bdf_parse("0000:3b:20.0", &b), FALCON_ERR_INVAL);
	ck_assert_uint_eq(b.bus, 77);
	ck_assert(strstr(falcon_errmsg(), "BDF '0000:3b:20.0'") != NULL);
}
END_TEST

/* falcon_slot_id_parse / falcon_drawer_id_parse: the Falcon 4016's ids */
static const struct {
	const char *id;
	int drawer, slot;     /* 0: refused */
} slot_id_cases[] = {
	{ "drawer1_slot1", 1, 1 },
	{ "drawer2_slot8", 2, 8 },
	{ "drawer12_slot99", 12, 99 },
	{ "drawer01_slot1", 0, 0 },   /* one spelling per slot */
	{ "drawer1_slot0", 0, 0 },
	{ "drawer1_slot100", 0, 0 },
	{ "drawer_slot1", 0, 0 },
	{ "drawer1_slot", 0, 0 },
	{ "drawer1_slot1x", 0, 0 },
	{ "drawer-1_slot1", 0, 0 },
	{ "drawer 1_slot1", 0, 0 },
	{ "OffloadBlock9", 0, 0 },
	{ NULL, 0, 0 },
};

START_TEST(test_slot_id_table)
{
	int d = -1, sl = -1;
	falcon_err_t rv = falcon_slot_id_parse(slot_id_cases[_i].id, &d, &sl);

	if (slot_id_cases[_i].drawer != 0) {
		ck_assert_msg(rv == FALCON_OK, "%s: %s", slot_id_cases[_i].id, falcon_errmsg());
		ck_assert_int_eq(d, slot_id_cases[_i].drawer);
		ck_assert_int_eq(sl, slot_id_cases[_i].slot);
	} else {
		ck_assert_int_eq(rv, FALCON_ERR_INVAL);
		ck_assert(d == -1 && sl == -1);
		ck_assert_msg(strstr(falcon_errmsg(), "device id '") != NULL, "%s", falcon_errmsg());
	}
}
END_TEST

START_TEST(test_drawer_id)
{
	int d = -1;

	ck_assert_int_eq(falcon_drawer_id_parse("drawer2", &d), FALCON_OK);
	ck_assert_int_eq(d, 2);
	ck_assert_int_eq(falcon_drawer_id_parse("drawer2_slot1", &d), FALCON_ERR_INVAL);
	ck_assert_int_eq(falcon_drawer_id_parse("drawer0", &d), FALCON_ERR_INVAL);
	ck_assert_int_eq(falcon_drawer_id_parse("switch1", &d), FALCON_ERR_INVAL);
	ck_assert_int_eq(d, 2);
	ck_assert(strstr(falcon_errmsg(), "drawer id 'switch1'") != NULL);
}
END_TEST

START_TEST(test_strtod)
{
	double d;

	ck_assert_int_eq(falcon_strtod("19.6", 0, 1000, &d), FALCON_OK);
	ck_assert_double_eq_tol(d, 19.6, 1e-9);
	ck_assert_int_eq(falcon_strtod("nan", 0, 1000, &d), FALCON_ERR_INVAL);
	ck_assert_int_eq(falcon_strtod("inf", 0, 1e300, &d), FALCON_ERR_INVAL);
	ck_assert_int_eq(falcon_strtod("-1", 0, 1000, &d), FALCON_ERR_INVAL);
	ck_assert_int_eq(falcon_strtod("1GB", 0, 1000, &d), FALCON_ERR_INVAL);
}
END_TEST

START_TEST(test_strlcpy_truncates)
{
	char b[4];

	ck_assert_uint_eq(falcon_strlcpy(b, "abcdef", sizeof(b)), 6);
	ck_assert_str_eq(b, "abc");
}
END_TEST

START_TEST(test_file_roundtrip_and_limits)
{
	char path[4200], *buf = NULL;
	size_t len = 0;

	snprintf(path, sizeof(path), "%s/f", make_tmpdir("core"));
	ck_assert_int_eq(falcon_write_file_atomic(path, "hello", 5, 0600), FALCON_OK);
	ck_assert_int_eq(falcon_read_file(path, 100, &buf, &len), FALCON_OK);
	ck_assert_str_eq(buf, "hello");
	ck_assert_uint_eq(len, 5);
	free(buf);
	buf = NULL;
	ck_assert_int_eq(falcon_read_file(path, 4, &buf, &len), FALCON_ERR_PARSE);
	ck_assert_ptr_null(buf);
	/* exactly max bytes is fine; SIZE_MAX ("no limit") once read nothing */
	ck_assert_int_eq(falcon_read_file(path, 5, &buf, &len), FALCON_OK);
	ck_assert_str_eq(buf, "hello");
	free(buf);
	buf = NULL;
	ck_assert_int_eq(falcon_read_file(path, SIZE_MAX, &buf, &len), FALCON_OK);
	ck_assert_str_eq(buf, "hello");
	ck_assert_uint_eq(len, 5);
	free(buf);
	buf = NULL;
	ck_assert_int_eq(falcon_read_file("/nonexistent/x", 4, &buf, &len),
			 FALCON_ERR_NOTFOUND);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "/nonexistent/x"));
	/* A directory that does not exist: the error names the path. */
	ck_assert_int_eq(falcon_write_file_atomic("/nonexistent/dir/f", "x", 1, 0600),
			 FALCON_ERR_IO);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "/nonexistent/dir/f"));
}
END_TEST

/* falcon_append_file_sync: created when absent, appended after; a path that
 * is not a regular file (a directory) is FALCON_ERR_IO naming it. */
START_TEST(test_file_append)
{
	char path[4200], *buf = NULL;
	const char *dir = make_tmpdir("append");

	snprintf(path, sizeof(path), "%s/log", dir);
	ck_assert_int_eq(falcon_append_file_sync(path, "a\n", 2, 0600), FALCON_OK);
	ck_assert_int_eq(falcon_append_file_sync(path, "bc\n", 3, 0600), FALCON_OK);
	ck_assert_int_eq(falcon_read_file(path, 100, &buf, NULL), FALCON_OK);
	ck_assert_str_eq(buf, "a\nbc\n");
	free(buf);
	ck_assert_int_eq(falcon_append_file_sync(dir, "x", 1, 0600), FALCON_ERR_IO);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), dir));
	ck_assert_int_eq(falcon_fsync_dir_of(path), FALCON_OK);
	ck_assert_int_eq(falcon_fsync_dir_of("/nonexistent/dir/f"), FALCON_ERR_IO);
}
END_TEST

static char last_line[256];
static int sink_calls;

static void capture_sink(falcon_log_level_t level, const char *line, void *ctx)
{
	(void)level;
	(void)ctx;
	snprintf(last_line, sizeof(last_line), "%s", line);
	sink_calls++;
}

START_TEST(test_log_prefix_and_levels)
{
	falcon_log_init("/usr/sbin/falcond");
	ck_assert_int_eq(falcon_log_add_sink(capture_sink, FALCON_LOG_INFO, NULL), 0);
	sink_calls = 0;
	falcon_info("compose job %d", 42);
	ck_assert_str_eq(last_line, "falcond: compose job 42");
	falcon_debug("hidden");
	ck_assert_int_eq(sink_calls, 1);
	ck_assert_str_eq(falcon_log_progname(), "falcond");
}
END_TEST

/* falcon_buf_append: a body in pieces, kept NUL-terminated, within max;
 * past max it is too big and stays so (nothing more is kept). */
START_TEST(test_buf_append)
{
	char *buf = NULL;
	size_t len = 0;
	bool too_big = false;

	ck_assert_int_eq(falcon_buf_append(&buf, &len, &too_big, "{\"a\"", 4, 8), FALCON_OK);
	ck_assert_int_eq(falcon_buf_append(&buf, &len, &too_big, ":1}", 3, 8), FALCON_OK);
	ck_assert(!too_big);
	ck_assert_uint_eq(len, 7);
	ck_assert_str_eq(buf, "{\"a\":1}");
	ck_assert_int_eq(falcon_buf_append(&buf, &len, &too_big, "xy", 2, 8), FALCON_OK);
	ck_assert(too_big);
	ck_assert_uint_eq(len, 7);
	ck_assert_int_eq(falcon_buf_append(&buf, &len, &too_big, "", 0, 8), FALCON_OK);
	ck_assert(too_big); /* stays too big */
	ck_assert_str_eq(buf, "{\"a\":1}");
	free(buf);
	buf = NULL;
	len = 0;
	too_big = false;
	ck_assert_int_eq(falcon_buf_append(&buf, &len, &too_big, "abc", 3, (size_t)-1), FALCON_OK);
	ck_assert_int_eq(falcon_buf_append(&buf, &len, &too_big, "d", (size_t)-2, (size_t)-1),
			 FALCON_OK);
	ck_assert(too_big); /* no overflow of len + n */
	free(buf);
}
END_TEST

static Suite *core_suite(void)
{
	Suite *s = suite_create("core");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_strerror_covers_every_code);
	tcase_add_test(tc, test_errmsg_detail);
	tcase_add_test(tc, test_errmsg_prefix);
	tcase_add_loop_test(tc, test_strtol_table, 0, ARRAY_SIZE(strtol_cases));
	tcase_add_loop_test(tc, test_strtol_n_table, 0, ARRAY_SIZE(strtol_n_cases));
	tcase_add_test(tc, test_bdf_parse);
	tcase_add_loop_test(tc, test_slot_id_table, 0, ARRAY_SIZE(slot_id_cases));
	tcase_add_test(tc, test_drawer_id);
	tcase_add_test(tc, test_strtod);
	tcase_add_loop_test(tc, test_bdf_table, 0, ARRAY_SIZE(bdf_cases));
	tcase_add_test(tc, test_strlcpy_truncates);
	tcase_add_test(tc, test_buf_append);
	tcase_add_test(tc, test_file_roundtrip_and_limits);
	tcase_add_test(tc, test_file_append);
	tcase_add_test(tc, test_log_prefix_and_levels);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(core_suite());
}
