/*
 * test_falcond_resv.c - which quarantines heal by themselves and which
 * drains are falcon's transient ones (falcond_resv.h), and reconcile's
 * auto-clear (falcond_resv_heal) against an inventory: only a healable
 * quarantine of a device the chassis shows free, OK and unleased clears.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <string.h>

#include "testutil.h"
#include "falcond/resv.h"
#include "core/util.h"

static const struct { const char *reason; bool heals; } hcases[] = {
	{ "detach from H1 failed during released: detach refused: HTTP 409", true },
	{ "detach from H2 failed during reconcile: connection failed", true },
	{ "falcon-prolog job 12: 0000:3d:00.0 still on node1's bus after remove at rollback", true },
	{ "falcon-epilog job 12: 0000:3d:00.0 still on node1's bus after remove: held by pid 7", true },
	{ "event ResourceEvent.1.4.ResourceStatusChangedCritical: Critical (event id 3)", false },
	{ "falcon-prolog job 12: link 0000:3d:00.0 degraded: x8 of x16", false },
	{ "falcon-prolog job 12: check failed: busbw 2.0 GB/s", false },
	{ "by an administrator", false },
	{ "admin: fan noise", false },
	{ "detach from", false },
	{ "", false },
	{ NULL, false },
};

START_TEST(healable)
{
	ck_assert_msg(falcond_quarantine_healable(hcases[_i].reason) == hcases[_i].heals,
		      "'%s'", hcases[_i].reason ? hcases[_i].reason : "(null)");
}
END_TEST

static const struct { const char *reason; bool transient; } dcases[] = {
	{ "falcon: job 5: compose: connection failed: http://127.0.0.1:6820/v1/compose", true },
	{ "falcon: job 5: compose: timed out: no answer in 30 s", true },
	{ "falcon: job 5: decompose: chassis c1 unreachable", true },
	{ "falcon: job 5: 0000:3d:00.0 (drawer1_slot1) would not come off", false },
	{ "falcon: job 5: link degraded", false },
	{ "admin: disk", false },
	{ "admin: falcon: connection failed", false }, /* not falcon's: does not start "falcon:" */
	{ "Prolog error", false },
	{ NULL, false },
};

START_TEST(transient_drain)
{
	ck_assert_msg(falcond_transient_drain(dcases[_i].reason) == dcases[_i].transient,
		      "'%s'", dcases[_i].reason ? dcases[_i].reason : "(null)");
}
END_TEST

START_TEST(heal)
{
	struct falcon_chassis_conf cc;
	struct falcond_chassis ch;
	struct falcond_state st;
	struct falcond_ledger lg;
	struct falcon_device devs[5];
	struct falcon_inventory inv = { .n = 5, .devs = devs };
	struct falcon_lease l;
	size_t i;

	memset(&cc, 0, sizeof(cc));
	memset(&ch, 0, sizeof(ch));
	memset(&st, 0, sizeof(st));
	memset(&lg, 0, sizeof(lg));
	memset(devs, 0, sizeof(devs));
	memset(&l, 0, sizeof(l));
	falcon_strlcpy(cc.name, "c1", sizeof(cc.name));
	ch.cc = &cc;
	st.ledger = &lg;
	pthread_mutex_init(&st.lock, NULL);
	for (i = 0; i < 5; i++) {
		snprintf(devs[i].id, sizeof(devs[i].id), "drawer1_slot%zu", i + 1);
		falcon_strlcpy(devs[i].health, "OK", sizeof(devs[i].health));
	}
	/* slot1: healable, free, OK -> cleared; slot2: healable, still on H1;
	 * slot3: healable, Critical; slot4: an admin's; slot5: healable but leased */
	falcon_strlcpy(devs[1].owner, "H1", sizeof(devs[1].owner));
	falcon_strlcpy(devs[2].health, "Critical", sizeof(devs[2].health));
	for (i = 0; i < 5; i++)
		ck_assert_int_eq(falcond_ledger_quarantine(&lg, "c1", devs[i].id,
			i == 3 ? "admin: fan" : "detach from H1 failed during released: x"), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_quarantine(&lg, "c2", "drawer1_slot1",
						   "detach from H1 failed during released: x"), FALCON_OK);
	falcon_strlcpy(l.id, "L-1", sizeof(l.id));
	l.ndevs = 1;
	falcon_strlcpy(l.devs[0].chassis, "c1", sizeof(l.devs[0].chassis));
	falcon_strlcpy(l.devs[0].id, "drawer1_slot5", sizeof(l.devs[0].id));
	ck_assert_int_eq(falcond_ledger_add_lease(&lg, &l), FALCON_OK);

	ck_assert_uint_eq(falcond_resv_heal(&st, &ch, &inv, 0), 1);
	ck_assert_ptr_null(falcond_ledger_quarantined(&lg, "c1", "drawer1_slot1"));
	for (i = 1; i < 5; i++)
		ck_assert_ptr_nonnull(falcond_ledger_quarantined(&lg, "c1", devs[i].id));
	ck_assert_ptr_nonnull(falcond_ledger_quarantined(&lg, "c2", "drawer1_slot1"));
	/* the device comes off: cleared at the next pass */
	devs[1].owner[0] = '\0';
	ck_assert_uint_eq(falcond_resv_heal(&st, &ch, &inv, 0), 1);
	ck_assert_uint_eq(lg.nquar, 4);
	free(lg.quar);
	free(lg.leases);
	pthread_mutex_destroy(&st.lock);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("falcond_resv");
	TCase *tc = tcase_create("resv");

	tcase_add_loop_test(tc, healable, 0, (int)ARRAY_SIZE(hcases));
	tcase_add_loop_test(tc, transient_drain, 0, (int)ARRAY_SIZE(dcases));
	tcase_add_test(tc, heal);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
