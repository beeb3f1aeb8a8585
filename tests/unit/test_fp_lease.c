/*
 * test_fp_lease.c - one device record from falcond's answer to lease.json
 * (prolog/fp_common.c): a lease as falcond sends it, given its host
 * fields (fp_lease_on_host(), a BDF as fp_match() finds it), is written
 * as lease.json and topology.json's "lease" (fp_lease_json()) exactly as
 * before the record was one type (pinned below from a prolog run of
 * prolog-direct.sh's testbed), and reads back (fp_lease_from_json()) to
 * the same document; an older lease.json without "phys_slot" gets it
 * from its id.  And the waiting reason of a compose that timed out
 * (fp_wait_why(), prolog/fp_falcond.c).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <check.h>
#include <string.h>

#include <json-c/json.h>

#include "chassis/chassis.h"
#include "fp_common.h"
#include "fp_falcond.h"
#include "pci/pcicfg.h"
#include "testutil.h"

/* falcond's answer to a compose: two GPUs of drawer 1, an NVMe of drawer 2 */
static const char answer[] =
	"{\"id\":\"L-4\",\"job_id\":104,\"uid\":0,\"host\":\"node1\",\"partition\":\"\","
	"\"place\":\"pack\",\"state\":\"active\",\"created\":1700000000000,\"devices\":["
	"{\"chassis\":\"c1\",\"id\":\"drawer1_slot1\",\"port\":\"H1\",\"drawer\":1,\"slot\":1,"
	"\"type\":\"GPU\",\"vendor_id\":\"10de\",\"device_id\":\"1db4\",\"serial\":\"S1\"},"
	"{\"chassis\":\"c1\",\"id\":\"drawer1_slot2\",\"port\":\"H1\",\"drawer\":1,\"slot\":2,"
	"\"type\":\"GPU\",\"vendor_id\":\"10de\",\"device_id\":\"1db4\",\"serial\":\"S2\"},"
	"{\"chassis\":\"c1\",\"id\":\"drawer2_slot5\",\"port\":\"H2\",\"drawer\":2,\"slot\":5,"
	"\"type\":\"NVMe\",\"vendor_id\":\"8086\",\"device_id\":\"0a54\",\"serial\":\"S3\"}]}";

/* RunDir/104/lease.json as falcon-prolog wrote it for that lease (plain) */
static const char lease_json[] =
	"{\"id\":\"L-4\",\"node\":\"node1\",\"devices\":["
	"{\"chassis\":\"c1\",\"id\":\"drawer1_slot1\",\"port\":\"H1\",\"type\":\"GPU\","
	"\"vendor_id\":\"10de\",\"device_id\":\"1db4\",\"phys_slot\":1,\"bdf\":\"0000:3d:00.0\"},"
	"{\"chassis\":\"c1\",\"id\":\"drawer1_slot2\",\"port\":\"H1\",\"type\":\"GPU\","
	"\"vendor_id\":\"10de\",\"device_id\":\"1db4\",\"phys_slot\":2,\"bdf\":\"0000:3e:00.0\"},"
	"{\"chassis\":\"c1\",\"id\":\"drawer2_slot5\",\"port\":\"H2\",\"type\":\"NVMe\","
	"\"vendor_id\":\"8086\",\"device_id\":\"0a54\",\"phys_slot\":13,\"bdf\":\"0000:b5:00.0\"}]}";

static const char *plain(json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
}

static void answered(struct falcon_lease *l)
{
	json_object *o = json_tokener_parse(answer);

	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(falcon_proto_lease_from_json(o, l), FALCON_OK);
	json_object_put(o);
}

START_TEST(lease_json_pinned)
{
	static const char *bdf[] = { "0000:3d:00.0", "0000:3e:00.0", "0000:b5:00.0" };
	struct falcon_lease l, back;
	json_object *o, *o2;
	size_t i;

	answered(&l);
	strcpy(l.devs[0].bdf, "stale");
	fp_lease_on_host(&l);
	ck_assert_int_eq(l.devs[0].phys_slot, 1);
	ck_assert_int_eq(l.devs[2].phys_slot, 13);
	ck_assert_str_eq(l.devs[0].bdf, "");
	for (i = 0; i < l.ndevs; i++)
		strcpy(l.devs[i].bdf, bdf[i]); /* as fp_match() finds them */
	o = fp_lease_json(&l, "node1");
	ck_assert_str_eq(plain(o), lease_json);
	ck_assert_int_eq(fp_lease_from_json(o, &back), FALCON_OK);
	ck_assert_uint_eq(back.ndevs, 3);
	ck_assert_int_eq(back.uid, -1);
	o2 = fp_lease_json(&back, "node1");
	ck_assert_str_eq(plain(o2), lease_json);
	json_object_put(o2);
	/* topology.json's "lease" is the same form */
	json_object_put(o);
}
END_TEST

/* A NIC (or any kind the bus does not tell apart) is "other"; a device
 * of lease.json without "phys_slot" gets it from its id; empty strings
 * and an unknown slot are null. */
START_TEST(lease_json_kinds_and_older)
{
	struct falcon_lease l;
	json_object *o, *d;

	answered(&l);
	l.devs[1].type = FALCON_DEV_NIC;
	l.devs[1].drawer = 0; /* no slot from drawer/slot: from the id */
	l.devs[2].vendor_id[0] = '\0';
	strcpy(l.devs[2].id, "nvme-x");
	l.devs[2].drawer = 0;
	fp_lease_on_host(&l);
	ck_assert_int_eq(l.devs[1].type, FALCON_DEV_OTHER);
	ck_assert_int_eq(l.devs[1].phys_slot, 2);
	ck_assert_int_eq(l.devs[2].phys_slot, 0);
	o = fp_lease_json(&l, NULL);
	ck_assert(!json_object_object_get_ex(o, "node", NULL));
	d = json_object_array_get_idx(json_object_object_get(o, "devices"), 1);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(d, "type")), "other");
	d = json_object_array_get_idx(json_object_object_get(o, "devices"), 2);
	ck_assert_ptr_null(json_object_object_get(d, "vendor_id"));
	ck_assert_ptr_null(json_object_object_get(d, "phys_slot"));
	ck_assert_ptr_null(json_object_object_get(d, "bdf"));
	/* an older prolog's lease.json: no phys_slot */
	d = json_object_array_get_idx(json_object_object_get(o, "devices"), 0);
	json_object_object_del(d, "phys_slot");
	ck_assert_int_eq(fp_lease_from_json(o, &l), FALCON_OK);
	ck_assert_int_eq(l.devs[0].phys_slot, 1);
	json_object_put(o);
	ck_assert_int_eq(fp_lease_from_json(NULL, &l), FALCON_ERR_PARSE);
}
END_TEST

/* The waiting reason: a chassis key that ran out (falcond's error detail
 * carries FALCON_CHASSIS_TIMEOUT_MARK) is chassis_timeout, any other
 * timeout (the budget) chassis_slow (issue #29). */
/* fp_phys_slot_of: a Falcon slot's id, read bounded (falcon_slot_id_parse) */
START_TEST(phys_slot_of_ids)
{
	ck_assert_int_eq(fp_phys_slot_of("drawer1_slot2"), falcon_pcicfg_phys_slot(1, 2));
	ck_assert_int_eq(fp_phys_slot_of("drawer2_slot8"), falcon_pcicfg_phys_slot(2, 8));
	ck_assert_int_eq(fp_phys_slot_of("drawer1_slot2x"), 0);
	ck_assert_int_eq(fp_phys_slot_of("drawer 1_slot2"), 0);
	ck_assert_int_eq(fp_phys_slot_of("drawer-1_slot2"), 0);
	ck_assert_int_eq(fp_phys_slot_of("drawer99999999999_slot2"), 0);
	ck_assert_int_eq(fp_phys_slot_of("OffloadBlock9"), 0);
	ck_assert_int_eq(fp_phys_slot_of(NULL), 0);
}
END_TEST

START_TEST(wait_why_chassis_timeout)
{
	ck_assert_str_eq(fp_wait_why(FALCON_ERR_TIMEOUT, "falcond: POST /v1/compose: HTTP 504: "
				     "compose: attach ...: " FALCON_CHASSIS_TIMEOUT_MARK " chassis "
				     "falcon1: PATCH https://c/...: no answer within "
				     "ChangeTimeout=5 s (gave up after 5003 ms); raise "
				     "ChangeTimeout="), "chassis_timeout");
	ck_assert_str_eq(fp_wait_why(FALCON_ERR_TIMEOUT, "compose: the caller's budget passed"),
			 "chassis_slow");
	ck_assert_str_eq(fp_wait_why(FALCON_ERR_TIMEOUT, NULL), "chassis_slow");
	ck_assert_str_eq(fp_wait_why(FALCON_ERR_SERVER, FALCON_CHASSIS_TIMEOUT_MARK),
			 "falcond_unavailable");
}
END_TEST

/* The cause of a compose that failed after its retries (issue #32): a
 * chassis timeout falcond reported stays the cause when falcond then
 * cannot be reached or a standby answers 503; of the same rank the later
 * error counts.  The waiting reason is told again at each change. */
START_TEST(cause_ranked)
{
	static const char *tmo = "falcond: POST /v1/compose: HTTP 504: " FALCON_CHASSIS_TIMEOUT_MARK
		" chassis c1: PATCH: no answer within ChangeTimeout=3 s";
	struct fp_cause c = { .err = FALCON_OK };

	ck_assert_int_gt(fp_cause_rank(FALCON_ERR_TIMEOUT), fp_cause_rank(FALCON_ERR_SERVER));
	ck_assert_int_gt(fp_cause_rank(FALCON_ERR_NORESOURCE), fp_cause_rank(FALCON_ERR_TRANSPORT));
	ck_assert_int_eq(fp_cause_rank(FALCON_ERR_SERVER), fp_cause_rank(FALCON_ERR_TRANSPORT));
	ck_assert_int_eq(fp_cause_rank(FALCON_ERR_CHASSIS), fp_cause_rank(FALCON_ERR_PRECONDITION));

	/* a chassis timeout, then a standby's 503, then falcond unreachable */
	ck_assert(fp_cause_note(&c, FALCON_ERR_TIMEOUT, tmo));
	ck_assert_str_eq(c.told, "chassis_timeout");
	ck_assert(fp_cause_note(&c, FALCON_ERR_SERVER, "HTTP 503: standby"));
	ck_assert_str_eq(c.told, "falcond_unavailable");
	ck_assert(!fp_cause_note(&c, FALCON_ERR_SERVER, "HTTP 503: standby"));
	ck_assert(fp_cause_note(&c, FALCON_ERR_TRANSPORT, "connection refused"));
	ck_assert_str_eq(c.told, "falcond_unreachable");
	ck_assert_int_eq(c.err, FALCON_ERR_TIMEOUT);
	ck_assert_str_eq(fp_wait_why(c.err, c.detail), "chassis_timeout");
	/* the chassis again: told again; then the pool short (same rank, later) */
	ck_assert(fp_cause_note(&c, FALCON_ERR_TIMEOUT, tmo));
	ck_assert(fp_cause_note(&c, FALCON_ERR_NORESOURCE, "pool short"));
	ck_assert(fp_cause_note(&c, FALCON_ERR_SERVER, NULL));
	ck_assert_int_eq(c.err, FALCON_ERR_NORESOURCE);
	ck_assert_str_eq(c.detail, "pool short");

	/* falcond's state only: the later of the two */
	memset(&c, 0, sizeof(c));
	ck_assert(fp_cause_note(&c, FALCON_ERR_TRANSPORT, "refused"));
	ck_assert(fp_cause_note(&c, FALCON_ERR_SERVER, "HTTP 503"));
	ck_assert_int_eq(c.err, FALCON_ERR_SERVER);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fp_lease");
	TCase *tc = tcase_create("lease.json");

	tcase_add_test(tc, lease_json_pinned);
	tcase_add_test(tc, lease_json_kinds_and_older);
	tcase_add_test(tc, phys_slot_of_ids);
	suite_add_tcase(s, tc);
	tc = tcase_create("waiting");
	tcase_add_test(tc, wait_why_chassis_timeout);
	tcase_add_test(tc, cause_ranked);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
