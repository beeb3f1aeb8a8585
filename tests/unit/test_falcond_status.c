/*
 * test_falcond_status.c - the gauges falcond exports for the alert rules
 * (examples/falcon-alerts.yml): falcond_active (1 from the active falcond,
 * 0 from a standby), falcond_chassis_up per chassis, the quarantines an
 * admin must clear, the oldest lease's age; and the states /v1/status
 * gives the devices (falcond_status_json); the status page drawn from
 * such an object (falcond_statuspage_html): states (settling, absent),
 * holders, reachability, every string escaped, a standby's page.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <string.h>

#include "testutil.h"
#include "falcond/status.h"
#include "falcond/statuspage.h"
#include "core/util.h"

struct fix {
	struct falcon_conf conf;
	struct falcon_chassis_conf cc[2];
	struct falcond_chassis ch[2];
	struct falcond_state st;
	struct falcond_ledger lg;
	struct falcon_device devs[4];
	struct falcon_lease l;
};

/* c1 read (4 devices: slot1 leased 100 s ago, slot2 an admin's quarantine,
 * slot3 a healable one, slot4 attached to H2 with no lease); c2 down, its
 * reads failing for 60 s (UnreachableHold=30: its free devices held). */
static void fix_init(struct fix *f)
{
	size_t i;

	memset(f, 0, sizeof(*f));
	falcon_strlcpy(f->cc[0].name, "c1", sizeof(f->cc[0].name));
	falcon_strlcpy(f->cc[1].name, "c2", sizeof(f->cc[1].name));
	for (i = 0; i < 2; i++)
		f->ch[i].cc = &f->cc[i];
	f->ch[0].have_last = true;
	f->ch[0].last.n = 4;
	f->ch[0].last.devs = f->devs;
	f->ch[1].down = true;
	f->ch[1].unreach_ms = falcon_now_ms() - 60000;
	f->conf.unreachable_hold = 30;
	f->st.conf = &f->conf;
	for (i = 0; i < 4; i++) {
		snprintf(f->devs[i].id, sizeof(f->devs[i].id), "drawer1_slot%zu", i + 1);
		f->devs[i].drawer = 1;
		f->devs[i].slot = (int)i + 1;
		falcon_strlcpy(f->devs[i].health, "OK", sizeof(f->devs[i].health));
	}
	falcon_strlcpy(f->devs[0].owner, "H1", sizeof(f->devs[0].owner));
	falcon_strlcpy(f->devs[3].owner, "H2", sizeof(f->devs[3].owner));
	f->st.ledger = &f->lg;
	f->st.nchassis = 2;
	f->st.ch = f->ch;
	pthread_mutex_init(&f->st.lock, NULL);
	ck_assert_int_eq(falcond_ledger_quarantine(&f->lg, "c1", "drawer1_slot2", "admin: fan"),
			 FALCON_OK);
	ck_assert_int_eq(falcond_ledger_quarantine(&f->lg, "c1", "drawer1_slot3",
			 "detach from H1 failed during released: x"), FALCON_OK);
	falcon_strlcpy(f->l.id, "L-1", sizeof(f->l.id));
	falcon_strlcpy(f->l.state, "active", sizeof(f->l.state));
	falcon_strlcpy(f->l.host, "node1", sizeof(f->l.host));
	f->l.job_id = 42;
	f->l.uid = 1000;
	f->l.created_ms = falcond_now_ms() - 100000;
	f->l.ndevs = 1;
	falcon_strlcpy(f->l.devs[0].chassis, "c1", sizeof(f->l.devs[0].chassis));
	falcon_strlcpy(f->l.devs[0].id, "drawer1_slot1", sizeof(f->l.devs[0].id));
	ck_assert_int_eq(falcond_ledger_add_lease(&f->lg, &f->l), FALCON_OK);
}

static void fix_fini(struct fix *f)
{
	free(f->lg.quar);
	free(f->lg.leases);
	pthread_mutex_destroy(&f->st.lock);
}

START_TEST(gauges)
{
	struct fix f;
	char *t;
	const char *p;
	double age;

	fix_init(&f);
	t = falcond_metrics_text(&f.st);
	ck_assert_ptr_nonnull(t);
	ck_assert_ptr_nonnull(strstr(t, "\nfalcond_active 1\n"));
	ck_assert_ptr_nonnull(strstr(t, "\nfalcond_chassis_up{chassis=\"c1\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(t, "\nfalcond_chassis_up{chassis=\"c2\"} 0\n"));
	ck_assert_ptr_nonnull(strstr(t, "\nfalcond_quarantine_needs_admin 1\n"));
	ck_assert_ptr_nonnull(strstr(t, "\nfalcond_quarantined_devices 2\n"));
	ck_assert_ptr_nonnull(strstr(t, "\nfalcond_devices{state=\"attached\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(t, "\nfalcond_devices{state=\"leased\"} 1\n"));
	p = strstr(t, "\nfalcond_lease_oldest_seconds ");
	ck_assert_ptr_nonnull(p);
	age = strtod(p + strlen("\nfalcond_lease_oldest_seconds "), NULL);
	ck_assert_msg(age >= 100.0 && age < 160.0, "age %f", age);
	free(t);
	/* the lease gone: 0 */
	falcond_ledger_remove_lease(&f.lg, "L-1");
	t = falcond_metrics_text(&f.st);
	ck_assert_ptr_nonnull(strstr(t, "\nfalcond_lease_oldest_seconds 0.000\n"));
	free(t);
	fix_fini(&f);
}
END_TEST

START_TEST(standby)
{
	char *t = falcond_metrics_standby_text();

	ck_assert_ptr_nonnull(t);
	ck_assert_ptr_nonnull(strstr(t, "# TYPE falcond_active gauge\nfalcond_active 0\n"));
	ck_assert_ptr_null(strstr(t, "\nfalcond_active 1\n"));
	free(t);
}
END_TEST

/* the device states /v1/status gives (the status page draws them) */
START_TEST(states)
{
	static const char *const want[] = { "leased", "quarantined", "quarantined", "attached" };
	struct fix f;
	json_object *o, *devs, *d;
	size_t i;

	fix_init(&f);
	o = falcond_status_json(&f.st, 0, true);
	ck_assert(json_object_object_get_ex(o, "devices", &devs));
	ck_assert_uint_eq(json_object_array_length(devs), 4);
	for (i = 0; i < 4; i++) {
		d = json_object_array_get_idx(devs, i);
		ck_assert_str_eq(json_object_get_string(json_object_object_get(d, "state")), want[i]);
	}
	d = json_object_array_get_idx(devs, 0);
	ck_assert_int_eq(json_object_get_int(json_object_object_get(d, "job_id")), 42);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(d, "host")), "node1");
	/* each chassis' reachability: c1 read, c2 down and never read */
	ck_assert(json_object_object_get_ex(o, "chassis", &devs));
	ck_assert_uint_eq(json_object_array_length(devs), 2);
	d = json_object_array_get_idx(devs, 0);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(d, "name")), "c1");
	ck_assert(json_object_get_boolean(json_object_object_get(d, "reachable")));
	ck_assert_ptr_nonnull(json_object_object_get(d, "read_age_ms"));
	ck_assert_ptr_null(json_object_object_get(d, "unreachable_s"));
	ck_assert(!json_object_get_boolean(json_object_object_get(d, "free_held")));
	d = json_object_array_get_idx(devs, 1);
	ck_assert(!json_object_get_boolean(json_object_object_get(d, "reachable")));
	ck_assert_ptr_null(json_object_object_get(d, "read_age_ms"));
	/* unreachable 60 s, past UnreachableHold=30 */
	ck_assert_int_ge(json_object_get_int(json_object_object_get(d, "unreachable_s")), 59);
	ck_assert(json_object_get_boolean(json_object_object_get(d, "free_held")));
	json_object_put(o);
	/* under the hold: not held yet */
	fix_fini(&f);
	fix_init(&f);
	f.conf.unreachable_hold = 120;
	o = falcond_status_json(&f.st, 0, true);
	ck_assert(json_object_object_get_ex(o, "chassis", &devs));
	ck_assert(!json_object_get_boolean(json_object_object_get(json_object_array_get_idx(devs, 1),
								  "free_held")));
	json_object_put(o);
	fix_fini(&f);
}
END_TEST

/* a /v1/status object as the page reads it */
static const char page_status[] =
	"{\"chassis\":[{\"name\":\"c1\",\"reachable\":true,\"read_age_ms\":5},"
	"{\"name\":\"c<2>\",\"reachable\":false,\"read_age_ms\":null,\"free_held\":true}],"
	"\"devices\":["
	"{\"chassis\":\"c1\",\"id\":\"d1s1\",\"drawer\":1,\"slot\":1,\"type\":\"GPU\","
	"\"model\":\"V100\",\"health\":\"OK\",\"state\":\"leased\",\"lease\":\"L-1\","
	"\"job_id\":7,\"host\":\"node1\"},"
	"{\"chassis\":\"c1\",\"id\":\"d1s3\",\"drawer\":1,\"slot\":3,\"type\":\"NVMe\","
	"\"model\":\"<img src=x onerror=alert(1)>\",\"health\":\"OK\",\"state\":\"quarantined\","
	"\"lease\":null,\"job_id\":null,\"host\":null},"
	"{\"chassis\":\"c1\",\"id\":\"d2s1\",\"drawer\":2,\"slot\":1,\"type\":\"GPU\","
	"\"model\":\"V100\",\"health\":\"OK\",\"state\":\"leased\",\"lease\":\"L-2\","
	"\"job_id\":8,\"host\":\"node\\\"2\"},"
	"{\"chassis\":\"c1\",\"id\":\"d2s4\",\"drawer\":2,\"slot\":4,\"type\":\"GPU\","
	"\"model\":\"V100\",\"health\":\"OK\",\"state\":\"leased\",\"lease\":\"L-3\","
	"\"job_id\":9,\"host\":\"node1\"}],"
	"\"leases\":[{\"id\":\"L-1\",\"job_id\":7,\"uid\":0,\"host\":\"node1\",\"state\":\"settling\"},"
	"{\"id\":\"L-2\",\"job_id\":8,\"uid\":0,\"host\":\"node\\\"2\",\"state\":\"active\"},"
	"{\"id\":\"L-3\",\"job_id\":9,\"uid\":0,\"host\":\"node1\",\"state\":\"kept\"}],"
	"\"quarantine\":[{\"chassis\":\"c1\",\"device\":\"d1s3\",\"reason\":\"admin: <script>x</script> & 'y'\"}],"
	"\"history\":[{\"chassis\":\"c1\",\"device\":\"d1s1\",\"job_id\":7,\"host\":\"node1\","
	"\"lease\":\"L-1\",\"when\":1700000000000,\"event\":\"attached\"},"
	"{\"chassis\":\"c1\",\"device\":\"d1s3\",\"job_id\":5,\"host\":\"node1\","
	"\"lease\":\"L-0\",\"when\":1699999999000,\"event\":\"quarantined: <i>\"}]}";

START_TEST(page)
{
	json_object *o = json_tokener_parse(page_status);
	char *h, *frag;

	ck_assert_ptr_nonnull(o);
	h = falcond_statuspage_html(o, true);
	ck_assert_ptr_nonnull(h);
	ck_assert_ptr_nonnull(strstr(h, "<!DOCTYPE html>"));
	ck_assert_ptr_nonnull(strstr(h, "data-role=\"active\""));
	/* an in-flight lease's device is settling, an active one's leased */
	ck_assert_ptr_nonnull(strstr(h, "<tr class=\"dev\" data-chassis=\"c1\" data-device=\"d1s1\" "
					"data-state=\"settling\" data-job=\"7\" data-user=\"root\" "
					"data-host=\"node1\">"));
	ck_assert_ptr_nonnull(strstr(h, "data-device=\"d2s1\" data-state=\"leased\" data-job=\"8\" "
					"data-user=\"root\" data-host=\"node&quot;2\">"));
	/* a lease kept warm (KeepWarm=): its device is kept */
	ck_assert_ptr_nonnull(strstr(h, "data-device=\"d2s4\" data-state=\"kept\" data-job=\"9\""));
	/* drawer 1 slot 2 has no device; drawer 2's slots 2 and 3 neither */
	ck_assert_ptr_nonnull(strstr(h, "<title>empty slot: absent</title>"));
	ck_assert_ptr_nonnull(strstr(h, "data-chassis=\"c&lt;2&gt;\" data-reachable=\"no\""));
	ck_assert_ptr_nonnull(strstr(h, "data-chassis=\"c1\" data-reachable=\"yes\""));
	/* a chassis whose free devices falcond holds in Slurm says so; c1 not */
	frag = strstr(h, "its free devices held in Slurm (UnreachableHold)");
	ck_assert_ptr_nonnull(frag);
	ck_assert_ptr_null(strstr(frag + strlen("its free devices held"), "held in Slurm"));
	ck_assert(frag > strstr(h, "data-chassis=\"c&lt;2&gt;\""));
	/* nothing of the strings reaches the page raw */
	ck_assert_ptr_nonnull(strstr(h, "admin: &lt;script&gt;x&lt;/script&gt; &amp; &#39;y&#39;"));
	ck_assert_ptr_null(strstr(h, "<script>x"));
	ck_assert_ptr_null(strstr(h, "<img"));
	ck_assert_ptr_nonnull(strstr(h, "&lt;img src=x onerror=alert(1)&gt;"));
	/* the history, newest first, its times in UTC */
	ck_assert_ptr_nonnull(strstr(h, "<tr class=\"hist\"><td>2023-11-14 22:13:20</td><td>c1</td>"
					"<td>d1s1</td><td>7</td><td>node1</td><td>L-1</td>"
					"<td>attached</td></tr><tr class=\"hist\"><td>2023-11-14 22:13:19</td>"));
	ck_assert_ptr_nonnull(strstr(h, "<td>quarantined: &lt;i&gt;</td>"));
	/* the /events fragment: the same body, no document around it */
	frag = falcond_statuspage_html(o, false);
	ck_assert_ptr_nonnull(frag);
	ck_assert_ptr_null(strstr(frag, "<!DOCTYPE"));
	ck_assert_ptr_nonnull(strstr(frag, "data-state=\"settling\""));
	free(frag);
	free(h);
	json_object_put(o);
	/* a device with fields missing: drawn, not dereferenced */
	o = json_tokener_parse("{\"chassis\":[{\"name\":\"c1\",\"reachable\":true},{}],"
			       "\"devices\":[{\"id\":\"x\"},{\"chassis\":\"c1\",\"drawer\":1,"
			       "\"slot\":2}],\"leases\":[],\"quarantine\":[]}");
	ck_assert_ptr_nonnull(o);
	h = falcond_statuspage_html(o, true);
	ck_assert_ptr_nonnull(h);
	ck_assert_ptr_nonnull(strstr(h, "data-device=\"x\" data-state=\"unknown\""));
	free(h);
	json_object_put(o);
	/* a standby: no state, its role */
	h = falcond_statuspage_html(NULL, true);
	ck_assert_ptr_nonnull(strstr(h, "data-role=\"standby\""));
	ck_assert_ptr_null(strstr(h, "class=\"dev\""));
	free(h);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("falcond_status");
	TCase *tc = tcase_create("status");

	tcase_add_test(tc, gauges);
	tcase_add_test(tc, standby);
	tcase_add_test(tc, states);
	tcase_add_test(tc, page);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
