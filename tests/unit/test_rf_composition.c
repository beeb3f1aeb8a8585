/*
 * test_rf_composition.c - unit tests of lib/chassis/rf_composition.c
 * against the in-process server of rf_test_srv.c: a resource block
 * composed into and out of a system.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <json-c/json.h>

#include "chassis/chassis.h"
#include "chassis/redfish.h"
#include "core/log.h"
#include "core/util.h"
#include "testutil.h"
#include "rf_test.h"

START_TEST(test_http_composition)
{
	struct falcon_chassis *ch;

	srv_start();
	ch = open_chassis(FALCON_BACKEND_COMPOSITION, NULL, false);
	ck_assert_msg(falcon_chassis_attach(ch, "H1", "drawer1_slot2") == FALCON_OK, "%s",
		      falcon_errmsg());
	ck_assert(S.block_linked);
	ck_assert_int_eq(S.posts, 1);
	ck_assert_int_eq(falcon_chassis_attach(ch, "H1", "drawer1_slot2"), FALCON_OK);
	ck_assert_int_eq(S.posts, 1);
	ck_assert_int_eq(falcon_chassis_verify(ch, "H1", "drawer1_slot2", true), FALCON_OK);
	ck_assert_int_eq(falcon_chassis_detach(ch, "H1", "drawer1_slot2"), FALCON_OK);
	ck_assert(!S.block_linked);
	ck_assert_int_eq(S.posts, 2);
	ck_assert_int_eq(falcon_chassis_attach(ch, "H1", "drawer9_slot9"), FALCON_ERR_NOTFOUND);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "no resource block"));
	/* composed by a lost answer: rolled back, the error kept */
	S.apply_then_500 = 1;
	ck_assert_int_eq(falcon_chassis_attach(ch, "H1", "drawer1_slot2"), FALCON_ERR_SERVER);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "Lost the answer."));
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "removed from the system again"));
	ck_assert(!S.block_linked);
	/* a set's detach: one action per block, each tried whatever the
	 * others did (falcon_be_detach_each): the unknown block's error is
	 * returned, the known one is taken back all the same */
	ck_assert_int_eq(falcon_chassis_attach(ch, "H1", "drawer1_slot2"), FALCON_OK);
	ck_assert(S.block_linked);
	{
		const char *set[] = { "drawer9_slot9", "drawer1_slot2" };

		ck_assert_int_ne(falcon_chassis_detach_set(ch, "H1", set, 2), FALCON_OK);
		ck_assert_msg(strstr(falcon_errmsg(), "drawer9_slot9") != NULL, "%s",
			      falcon_errmsg());
		ck_assert(!S.block_linked);
		ck_assert_int_eq(falcon_chassis_detach_set(ch, "H1", &set[1], 1), FALCON_OK);
	}
	falcon_chassis_close(ch);
	srv_stop();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rf_composition");
	TCase *tc;

	falcon_log_init("test_rf_composition");
	falcon_log_add_sink(falcon_log_sink_stderr, FALCON_LOG_WARN, NULL);

	tc = tcase_create("http");
	tcase_add_test(tc, test_http_composition);
	suite_add_tcase(s, tc);

	return run_suite(s);
}
