/*
 * test_rf_fabric.c - unit tests of lib/chassis/rf_fabric.c against the
 * in-process server of rf_test_srv.c: the zone kept between changes,
 * ETag/If-Match and 412 re-reads, 409, rollback, and the one-PATCH zone
 * set (with the composition backend's attach set beside it).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <json-c/json.h>

#include "chassis/chassis.h"
#include "chassis/chassis_common.h"
#include "chassis/redfish.h"
#include "core/log.h"
#include "core/util.h"
#include "testutil.h"
#include "rf_test.h"

/*
 * The zone kept between changes: a change is one PATCH with If-Match on the
 * ETag of the zone as this client last saw it, read back from the PATCH's
 * answer; a zone changed behind its back (412) is read again and the other
 * writer's endpoint kept; a 204 answer is read back with a GET.
 */
START_TEST(test_http_zone_kept)
{
	struct falcon_chassis *ch;

	srv_start();
	ch = open_chassis(FALCON_BACKEND_FABRIC, NULL, false);
	ck_assert_int_eq(falcon_chassis_attach(ch, "H1", "drawer1_slot1"), FALCON_OK);
	ck_assert_int_eq(S.zone_gets, 1); /* the first read; the read-back is the answer */
	ck_assert_int_eq(S.patches, 1);
	ck_assert_int_eq(falcon_chassis_detach(ch, "H1", "drawer1_slot1"), FALCON_OK);
	ck_assert_int_eq(falcon_chassis_attach(ch, "H1", "drawer1_slot2"), FALCON_OK);
	ck_assert_int_eq(S.zone_gets, 1); /* no GET at all */
	ck_assert_int_eq(S.patches, 3);
	ck_assert_str_eq(S.last_if_match, "\"3\"");
	/* an administrator adds drawer1_slot3 behind this client's back */
	pthread_mutex_lock(&S.lock);
	snprintf(S.eps[S.neps++], sizeof(S.eps[0]), EPS "/drawer1_slot3");
	S.etag++;
	pthread_mutex_unlock(&S.lock);
	ck_assert_msg(falcon_chassis_detach(ch, "H1", "drawer1_slot2") == FALCON_OK, "%s",
		      falcon_errmsg());
	ck_assert_int_eq(S.patches, 5);   /* 412 on the kept zone, then from a read */
	ck_assert_int_eq(S.zone_gets, 2);
	ck_assert_int_eq(S.neps, 2);      /* the administrator's change is kept */
	ck_assert_str_eq(S.eps[0], EPS "/hostport1_H1");
	ck_assert_str_eq(S.eps[1], EPS "/drawer1_slot3");
	/* a service that answers 204: read back with a GET */
	S.patch_204 = true;
	ck_assert_int_eq(falcon_chassis_attach(ch, "H1", "drawer1_slot1"), FALCON_OK);
	ck_assert_int_eq(S.patches, 6);
	ck_assert_int_eq(S.zone_gets, 3);
	ck_assert_int_eq(falcon_chassis_detach(ch, "H1", "drawer1_slot1"), FALCON_OK);
	ck_assert_int_eq(S.patches, 7);
	ck_assert_int_eq(S.zone_gets, 4);
	ck_assert_int_eq(S.neps, 2);
	falcon_chassis_close(ch);
	srv_stop();
}
END_TEST

START_TEST(test_http_etag_retry)
{
	struct falcon_chassis *ch;

	srv_start();
	ch = open_chassis(FALCON_BACKEND_FABRIC, NULL, false);
	S.force_412 = 2; /* two other writers in a row */
	ck_assert_msg(falcon_chassis_attach(ch, "H1", "drawer1_slot1") == FALCON_OK, "%s",
		      falcon_errmsg());
	ck_assert_int_eq(S.patches, 3);
	ck_assert_str_eq(S.last_if_match, "\"3\""); /* the ETag re-read after the 412s */
	ck_assert_int_eq(S.neps, 2);                /* the host port was kept */
	ck_assert_str_eq(S.eps[0], EPS "/hostport1_H1");
	ck_assert_str_eq(S.eps[1], EPS "/drawer1_slot1");
	/* again: idempotent, no PATCH */
	ck_assert_int_eq(falcon_chassis_attach(ch, "H1", "drawer1_slot1"), FALCON_OK);
	ck_assert_int_eq(S.patches, 3);
	ck_assert_int_eq(falcon_chassis_detach(ch, "H1", "drawer1_slot1"), FALCON_OK);
	ck_assert_int_eq(S.neps, 1);
	ck_assert_int_eq(falcon_chassis_detach(ch, "H1", "drawer1_slot1"), FALCON_OK);
	ck_assert_int_eq(S.patches, 4);
	/* writers that never stop: bounded, then PRECONDITION (the first
	 * PATCH goes from the zone this client kept: its 412 is not a retry) */
	S.force_412 = 1000;
	ck_assert_int_eq(falcon_chassis_attach(ch, "H1", "drawer1_slot1"),
			 FALCON_ERR_PRECONDITION);
	ck_assert_int_eq(S.patches, 4 + 1 + 1 + FALCON_BE_RETRIES);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "The ETag is stale."));
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "gave up after 5 re-reads"));
	ck_assert_int_eq(S.neps, 1);
	falcon_chassis_close(ch);
	srv_stop();
}
END_TEST

START_TEST(test_http_conflict)
{
	struct falcon_chassis *ch;

	srv_start();
	ch = open_chassis(FALCON_BACKEND_FABRIC, NULL, false);
	S.conflict = true;
	ck_assert_int_eq(falcon_chassis_attach(ch, "H1", "drawer1_slot1"), FALCON_ERR_CONFLICT);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "drawer1_slot1 is in zone H2."));
	ck_assert_ptr_null(strstr(falcon_errmsg(), "rolled back"));
	ck_assert_int_eq(S.neps, 1);
	falcon_chassis_close(ch);
	srv_stop();
}
END_TEST

START_TEST(test_http_rollback)
{
	struct falcon_chassis *ch;

	srv_start();
	ch = open_chassis(FALCON_BACKEND_FABRIC, NULL, false);
	/* the PATCH is applied but its answer is a 500: the client cannot know,
	 * takes the device out again and reports the error */
	S.apply_then_500 = 1;
	ck_assert_int_eq(falcon_chassis_attach(ch, "H1", "drawer1_slot1"), FALCON_ERR_SERVER);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "Lost the answer."));
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "rolled back: removed from the zone again"));
	ck_assert_int_eq(S.neps, 1);
	ck_assert_int_eq(S.patches, 2);
	/* the rollback fails too: said so */
	S.apply_then_500 = 2;
	ck_assert_int_eq(falcon_chassis_attach(ch, "H1", "drawer1_slot1"), FALCON_ERR_SERVER);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "rollback failed, state unknown"));
	ck_assert_int_eq(falcon_chassis_verify(ch, "H1", "drawer1_slot1", false), FALCON_OK);
	/* a refused change is not rolled back: nothing to undo */
	S.conflict = true;
	ck_assert_int_eq(falcon_chassis_attach(ch, "H1", "drawer1_slot1"), FALCON_ERR_CONFLICT);
	ck_assert_int_eq(S.patches, 5);
	falcon_chassis_close(ch);
	srv_stop();
}
END_TEST

/*
 * A set of devices in one zone PATCH (falcon_chassis_attach_set): a 4-GPU
 * compose and its release are one request each, not four; all or nothing
 * when the answer is lost; refused whole; bad sets refused before any
 * request.  Composition (one action per block): the generic loop, which
 * takes back what it attached when a later device fails.
 */
START_TEST(test_http_zone_set)
{
	const char *four[] = { "drawer1_slot1", "drawer1_slot2", "drawer1_slot3", "drawer1_slot4" };
	const char *two[] = { "drawer1_slot2", "drawer9_slot9" };
	const char *bad[] = { "drawer1_slot1", "../H2" };
	const char *many[FALCON_CHASSIS_SET_MAX + 1];
	struct falcon_chassis *ch;
	size_t i;

	for (i = 0; i < FALCON_CHASSIS_SET_MAX + 1; i++)
		many[i] = "drawer1_slot1";
	srv_start();
	ch = open_chassis(FALCON_BACKEND_FABRIC, NULL, false);
	ck_assert_msg(falcon_chassis_attach_set(ch, "H1", four, 4) == FALCON_OK, "%s",
		      falcon_errmsg());
	ck_assert_int_eq(S.patches, 1);
	ck_assert_int_eq(S.zone_gets, 1); /* the first read; the read-back is the answer */
	ck_assert_int_eq(S.neps, 5);
	ck_assert_str_eq(S.eps[0], EPS "/hostport1_H1");
	ck_assert_str_eq(S.eps[4], EPS "/drawer1_slot4");
	/* again: they are in the zone already, as if someone else had given
	 * them: refused, nothing sent */
	ck_assert_int_eq(falcon_chassis_attach_set(ch, "H1", four, 4), FALCON_ERR_CONFLICT);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "drawer1_slot1 is already in zone"));
	ck_assert_int_eq(S.patches, 1);
	ck_assert_int_eq(falcon_chassis_verify(ch, "H1", "drawer1_slot3", true), FALCON_OK);
	ck_assert_int_eq(falcon_chassis_detach_set(ch, "H1", four, 4), FALCON_OK);
	ck_assert_int_eq(S.patches, 2);
	ck_assert_int_eq(S.neps, 1);
	/* a device named twice is sent once */
	{
		const char *dup[] = { "drawer1_slot1", "drawer1_slot2", "drawer1_slot1" };

		ck_assert_int_eq(falcon_chassis_attach_set(ch, "H1", dup, 3), FALCON_OK);
	}
	ck_assert_int_eq(S.neps, 3);
	ck_assert_int_eq(falcon_chassis_detach_set(ch, "H1", four, 4), FALCON_OK);
	ck_assert_int_eq(S.neps, 1);
	/* an administrator gives drawer1_slot3 to H1 behind this client's
	 * back: the PATCH from the kept zone gets 412, the zone read shows
	 * drawer1_slot3: the set is refused, drawer1_slot3 left as it is */
	pthread_mutex_lock(&S.lock);
	snprintf(S.eps[S.neps++], sizeof(S.eps[0]), EPS "/drawer1_slot3");
	S.etag++;
	pthread_mutex_unlock(&S.lock);
	ck_assert_int_eq(falcon_chassis_attach_set(ch, "H1", four, 4), FALCON_ERR_CONFLICT);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "drawer1_slot3 is already in zone"));
	ck_assert_int_eq(S.neps, 2);
	ck_assert_int_eq(falcon_chassis_detach(ch, "H1", "drawer1_slot3"), FALCON_OK);
	ck_assert_int_eq(S.neps, 1);
	/* bad sets: refused before any request */
	i = (size_t)S.patches;
	ck_assert_int_eq(falcon_chassis_attach_set(ch, "H1", four, 0), FALCON_ERR_INVAL);
	ck_assert_int_eq(falcon_chassis_attach_set(ch, "H1", many, FALCON_CHASSIS_SET_MAX + 1),
			 FALCON_ERR_INVAL);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "expected 1 to 32"));
	ck_assert_int_eq(falcon_chassis_detach_set(ch, "H1", bad, 2), FALCON_ERR_INVAL);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "device '../H2'"));
	ck_assert_int_eq(S.patches, (int)i);
	/* the answer lost after the PATCH was applied: all taken out again */
	S.apply_then_500 = 1;
	ck_assert_int_eq(falcon_chassis_attach_set(ch, "H1", four, 4), FALCON_ERR_SERVER);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "rolled back: removed from the zone again"));
	ck_assert_int_eq(S.neps, 1);
	ck_assert_int_eq(S.patches, (int)i + 2);
	/* refused whole: nothing attached, nothing to undo */
	S.conflict = true;
	ck_assert_int_eq(falcon_chassis_attach_set(ch, "H1", four, 4), FALCON_ERR_CONFLICT);
	ck_assert_int_eq(S.neps, 1);
	ck_assert_int_eq(S.patches, (int)i + 3);
	S.conflict = false;
	falcon_chassis_close(ch);

	/* redfish-composition: one action per device; drawer9_slot9 is no
	 * block: drawer1_slot2, attached first, is taken back */
	ch = open_chassis(FALCON_BACKEND_COMPOSITION, NULL, false);
	ck_assert_int_eq(falcon_chassis_attach_set(ch, "H1", two, 2), FALCON_ERR_NOTFOUND);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "no resource block"));
	ck_assert(!S.block_linked);
	ck_assert_int_eq(S.posts, 2);
	ck_assert_int_eq(falcon_chassis_attach_set(ch, "H1", two, 1), FALCON_OK);
	ck_assert(S.block_linked);
	ck_assert_int_eq(S.posts, 3);
	/* composed already (as if by someone else): refused before any action,
	 * and left composed (a rollback would take it from its owner) */
	ck_assert_int_eq(falcon_chassis_attach_set(ch, "H1", two, 1), FALCON_ERR_CONFLICT);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "drawer1_slot2 is already given to H1"));
	ck_assert_int_eq(S.posts, 3);
	ck_assert(S.block_linked);
	ck_assert_int_eq(falcon_chassis_detach_set(ch, "H1", two, 1), FALCON_OK);
	ck_assert(!S.block_linked);
	falcon_chassis_close(ch);
	srv_stop();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rf_fabric");
	TCase *tc;

	falcon_log_init("test_rf_fabric");
	falcon_log_add_sink(falcon_log_sink_stderr, FALCON_LOG_WARN, NULL);

	tc = tcase_create("http");
	tcase_add_test(tc, test_http_zone_kept);
	tcase_add_test(tc, test_http_etag_retry);
	tcase_add_test(tc, test_http_conflict);
	tcase_add_test(tc, test_http_rollback);
	tcase_add_test(tc, test_http_zone_set);
	suite_add_tcase(s, tc);

	return run_suite(s);
}
