/*
 * test_compose.c - unit tests of falcond's compose (falcond/compose.c) and
 * release (detach.c) called directly, without falcond's HTTP front or
 * munge: the state, ledger and chassis clients are falcond's own, the
 * chassis is a real falcon-sim (the built sim/falcon-sim, its default
 * testbed: node1 on H1 and H2, node2 on H3) started for each test, its
 * faults injected through its /admin/faults.  Each step's outcome is read
 * back from the ledger and from the chassis itself:
 *   - a compose attaches its devices to the host's ports and records an
 *     active lease; the same request again answers the same lease;
 *   - the release detaches them all and drops the lease;
 *   - the partition's policy refuses before anything is recorded;
 *   - a caller whose budget has passed gets FALCON_ERR_TIMEOUT, nothing
 *     recorded or sent;
 *   - a chassis that answers the attach with an error: the compose rolls
 *     back (no lease, every device free on the chassis);
 *   - EpilogSlurmctld's decompose (off_node) closes only the leases no
 *     node prolog asked for, after the job's compose in flight has ended;
 *     a compose of the job asked before it and not yet begun gives up;
 *   - a compose short of free devices releases a keep (KeepWarm=) of
 *     another user's only when it holds a device the compose can use: an
 *     older NVMe keep stays when a GPU keep is released for a GPU job.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <curl/curl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"
#include "chassis/chassis.h"
#include "core/conf.h"
#include "core/log.h"
#include "core/util.h"
#include "falcond/compose.h"
#include "falcond/decompose.h"
#include "falcond/detach.h"
#include "falcond/keep.h"
#include "falcond/ledger.h"
#include "falcond/state.h"

static const char *sim_bin = FALCON_TEST_BUILDDIR "/sim/falcon-sim";
static pid_t sim_pid;
static unsigned sim_port;
static const char *dir;
static struct falcon_conf *conf;
static struct falcond_state st;

/* sim_start - falcon-sim on an ephemeral loopback port (its --port-file),
 * a child of the test's process. */
static void sim_start(void)
{
	char sysfs[4200], portf[4200], port[32] = "";
	int i;
	FILE *f;

	snprintf(sysfs, sizeof(sysfs), "%s/sysfs", dir);
	snprintf(portf, sizeof(portf), "%s/port", dir);
	ck_assert_int_eq(mkdir(sysfs, 0700), 0);
	sim_pid = fork();
	ck_assert_int_ge(sim_pid, 0);
	if (sim_pid == 0) {
		/* it ends with the test's process, even one a failed check ended */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		execl(sim_bin, sim_bin, "--listen", "127.0.0.1:0", "--sysfs-root", sysfs,
		      "--port-file", portf, "-q", (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 200 && port[0] == '\0'; i++) { /* 20 s for its port file */
		usleep(100000);
		if ((f = fopen(portf, "r")) != NULL) {
			if (fgets(port, sizeof(port), f) == NULL)
				port[0] = '\0';
			fclose(f);
		}
	}
	ck_assert_msg(port[0] != '\0', "falcon-sim wrote no port file");
	sim_port = (unsigned)strtoul(port, NULL, 10);
}

static void sim_stop(void)
{
	if (sim_pid > 0) {
		kill(sim_pid, SIGTERM);
		waitpid(sim_pid, NULL, 0);
		sim_pid = 0;
	}
}

/* discard - a curl write callback that keeps nothing. */
static size_t discard(char *p, size_t sz, size_t n, void *ctx)
{
	(void)p;
	(void)ctx;
	return sz * n;
}

/* sim_admin - POST body to the sim's admin path; the HTTP status. */
static long sim_admin(const char *path, const char *body)
{
	CURL *c = curl_easy_init();
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	char url[256];
	long code = 0;

	snprintf(url, sizeof(url), "http://127.0.0.1:%u%s", sim_port, path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	ck_assert_int_eq(curl_easy_perform(c), CURLE_OK);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return code;
}

/* owner - the chassis' owner of device id ("" = free), read fresh. */
static void owner(const char *id, char *out, size_t n)
{
	struct falcon_chassis_opts o = { .name = "c1", .backend = FALCON_BACKEND_FABRIC };
	struct falcon_chassis *ch;
	struct falcon_inventory inv = { .devs = NULL };
	char url[128];
	size_t i;

	snprintf(url, sizeof(url), "http://127.0.0.1:%u/", sim_port);
	o.url = url;
	ck_assert_msg(falcon_chassis_open_opts(&o, &ch) == FALCON_OK, "%s", falcon_errmsg());
	ck_assert_msg(falcon_chassis_inventory(ch, &inv) == FALCON_OK, "%s", falcon_errmsg());
	out[0] = '\0';
	for (i = 0; i < inv.n; i++)
		if (strcmp(inv.devs[i].id, id) == 0)
			falcon_strlcpy(out, inv.devs[i].owner, n);
	falcon_inventory_free(&inv);
	falcon_chassis_close(ch);
}

/* attached_total - how many devices the chassis shows given to a port. */
static size_t attached_total(void)
{
	struct falcon_chassis_opts o = { .name = "c1", .backend = FALCON_BACKEND_FABRIC };
	struct falcon_chassis *ch;
	struct falcon_inventory inv = { .devs = NULL };
	char url[128];
	size_t i, n = 0;

	snprintf(url, sizeof(url), "http://127.0.0.1:%u/", sim_port);
	o.url = url;
	ck_assert(falcon_chassis_open_opts(&o, &ch) == FALCON_OK);
	ck_assert(falcon_chassis_inventory(ch, &inv) == FALCON_OK);
	for (i = 0; i < inv.n; i++)
		n += inv.devs[i].owner[0] != '\0';
	falcon_inventory_free(&inv);
	falcon_chassis_close(ch);
	return n;
}

/* setup - a sim, a falcon.conf naming it (the integration tests' testbed,
 * tests/integration/falcond-lib.sh), falcond's state over an empty
 * StateDir, as main.c's become_active makes it */
static void setup(void)
{
	char text[8192], state_dir[4200];

	dir = make_tmpdir("compose");
	sim_start();
	snprintf(state_dir, sizeof(state_dir), "%s/state", dir);
	ck_assert_int_eq(mkdir(state_dir, 0700), 0);
	snprintf(text, sizeof(text),
		 "StateDir=%s\n"
		 "SlurmUser=root\n"
		 "ChassisName=c1 Url=http://127.0.0.1:%u/ Backend=redfish-fabric Mode=standard\n"
		 "HostName=node1 Chassis=c1 Port=H1,H2 Adapter=0000:3b:00.0,0000:d8:00.0\n"
		 "HostName=node2 Chassis=c1 Port=H3 Adapter=0000:3b:00.0\n"
		 "PartitionName=DEFAULT AllowTopologies=ALL Place=pack KeepWarm=120\n"
		 "PartitionName=small MaxFalconGPUs=1\n",
		 state_dir, sim_port);
	ck_assert_msg(falcon_conf_parse("falcon.conf", text, &conf) == FALCON_OK, "%s",
		      falcon_errmsg());
	memset(&st, 0, sizeof(st));
	st.conf = conf;
	ck_assert_msg(falcond_ledger_load(state_dir, &st.ledger) == FALCON_OK, "%s",
		      falcon_errmsg());
	ck_assert_msg(falcond_state_init(&st) == FALCON_OK, "%s", falcon_errmsg());
}

static void teardown(void)
{
	falcond_state_fini(&st);
	falcond_ledger_free(st.ledger);
	falcon_conf_free(conf);
	sim_stop();
}

static struct falcon_compose_req req(uint32_t job, const char *host, int gpus)
{
	struct falcon_compose_req r = { .job_id = job, .gpus = gpus, .uid = 1000 };

	falcon_strlcpy(r.host, host, sizeof(r.host));
	r.deadline_ms = falcon_now_ms() + 60000;
	return r;
}

START_TEST(compose_repeat_release)
{
	struct falcon_compose_req r = req(7, "node1", 2);
	struct falcon_lease l, again;
	char own[64];
	size_t i;

	ck_assert_msg(falcond_compose(&st, &r, &l) == FALCON_OK, "%s", falcon_errmsg());
	ck_assert_str_eq(l.state, "active");
	ck_assert_uint_eq(l.ndevs, 2);
	ck_assert_uint_eq(st.ledger->nleases, 1);
	for (i = 0; i < l.ndevs; i++) {
		owner(l.devs[i].id, own, sizeof(own));
		ck_assert_msg(strcmp(own, l.devs[i].port) == 0, "%s: owner '%s', lease port %s",
			      l.devs[i].id, own, l.devs[i].port);
		ck_assert(strcmp(own, "H1") == 0 || strcmp(own, "H2") == 0);
	}
	/* the same job again (a prolog retried): the same lease, nothing new */
	ck_assert_msg(falcond_compose(&st, &r, &again) == FALCON_OK, "%s", falcon_errmsg());
	ck_assert_str_eq(again.id, l.id);
	ck_assert_uint_eq(st.ledger->nleases, 1);
	ck_assert_uint_eq(attached_total(), 2);
	/* the release takes every device back and drops the lease */
	ck_assert_int_eq(falcond_release_lease(&st, falcond_chassis_of(&st, "c1"), l.id,
					       "released", NULL), 0);
	pthread_mutex_lock(&st.lock);
	ck_assert_int_eq(falcond_commit_locked(&st), FALCON_OK);
	pthread_mutex_unlock(&st.lock);
	ck_assert_ptr_null(falcond_ledger_lease(st.ledger, l.id));
	ck_assert_uint_eq(attached_total(), 0);
}
END_TEST

START_TEST(policy_refused_first)
{
	struct falcon_compose_req r = req(8, "node1", 2);
	struct falcon_lease l;

	falcon_strlcpy(r.partition, "small", sizeof(r.partition));
	ck_assert_int_eq(falcond_compose(&st, &r, &l), FALCON_ERR_POLICY);
	ck_assert_msg(strstr(falcon_errmsg(), "small") != NULL, "%s", falcon_errmsg());
	ck_assert_uint_eq(st.ledger->nleases, 0);
	ck_assert_uint_eq(attached_total(), 0);
	r = req(8, "node9", 1);
	ck_assert_int_eq(falcond_compose(&st, &r, &l), FALCON_ERR_NOTFOUND);
}
END_TEST

START_TEST(budget_passed)
{
	struct falcon_compose_req r = req(9, "node2", 1);
	struct falcon_lease l;

	r.deadline_ms = falcon_now_ms() - 1;
	ck_assert_int_eq(falcond_compose(&st, &r, &l), FALCON_ERR_TIMEOUT);
	ck_assert_msg(strstr(falcon_errmsg(), "nothing sent") != NULL, "%s", falcon_errmsg());
	ck_assert_uint_eq(st.ledger->nleases, 0);
	ck_assert_uint_eq(attached_total(), 0);
}
END_TEST

START_TEST(attach_fails_rolls_back)
{
	struct falcon_compose_req r = req(10, "node1", 2);
	struct falcon_lease l;

	/* every PATCH answered 500 by the chassis */
	ck_assert_int_eq(sim_admin("/admin/faults",
		"{\"rules\":[{\"action\":\"error\",\"method\":\"PATCH\","
		"\"path\":\"/redfish/v1/*\",\"count\":-1}]}"), 200);
	ck_assert_int_ne(falcond_compose(&st, &r, &l), FALCON_OK);
	ck_assert_uint_eq(st.ledger->nleases, 0);
	ck_assert_int_eq(sim_admin("/admin/faults", "{}"), 200);
	ck_assert_uint_eq(attached_total(), 0);
}
END_TEST

/* keep - compose r and keep its lease warm on its host at once, as a
 * decompose with keep does (falcond_keep_begin); the lease id into id */
static void keep(struct falcon_compose_req *r, char *id, size_t n)
{
	struct falcon_lease l;

	ck_assert_msg(falcond_compose(&st, r, &l) == FALCON_OK, "%s", falcon_errmsg());
	falcon_strlcpy(id, l.id, n);
	pthread_mutex_lock(&st.lock);
	ck_assert_int_eq(falcond_keep_begin(st.ledger, falcond_ledger_lease(st.ledger, l.id),
					    falcond_now_ms()), FALCON_OK);
	ck_assert_int_eq(falcond_commit_locked(&st), FALCON_OK);
	pthread_mutex_unlock(&st.lock);
}

START_TEST(evict_only_useful)
{
	struct falcon_compose_req a = req(21, "node1", 0), c = req(22, "node2", 4);
	struct falcon_compose_req b = req(23, "node2", 4);
	char ka[FALCON_LEASE_ID_LEN], kc[FALCON_LEASE_ID_LEN];
	struct falcon_lease l;
	const struct falcon_lease *k;

	/* user 1000's NVMe kept on node1 first (the keep kept longest), then
	 * its 4 GPUs on node2 (drawer1's four: all H3 reaches) */
	a.nvme = 1;
	keep(&a, ka, sizeof(ka));
	usleep(20000);
	keep(&c, kc, sizeof(kc));
	/* user 2000 on node2 asks drawer1's 4 GPUs: only the GPU keep helps */
	b.uid = 2000;
	ck_assert_msg(falcond_compose(&st, &b, &l) == FALCON_OK, "%s", falcon_errmsg());
	ck_assert_uint_eq(l.ndevs, 4);
	ck_assert_ptr_null(falcond_ledger_lease(st.ledger, kc));
	k = falcond_ledger_lease(st.ledger, ka);
	ck_assert_msg(k != NULL && falcond_lease_kept(k),
		      "the NVMe keep %s was released for a GPU job", ka);
}
END_TEST

/* off_node - falcond_decompose by job with off_node (EpilogSlurmctld's):
 * its return, and the closed leases' count into *n */
static falcon_err_t off_node(uint32_t job, int *n)
{
	struct falcon_decompose_req d = { .job_id = job, .off_node = true };
	json_object *o = NULL, *a;
	falcon_err_t rv = falcond_decompose(&st, &d, &o);

	*n = json_object_object_get_ex(o, "closed", &a) ? (int)json_object_array_length(a) : -1;
	json_object_put(o);
	return rv;
}

/* a lease a node prolog asked for is the node epilog's: EpilogSlurmctld's
 * decompose leaves it attached, kept through the ledger on disk; the
 * job's lease on a node whose prolog never ran is closed */
START_TEST(off_node_only_unseen)
{
	struct falcon_compose_req r1 = req(30, "node1", 2), r2 = req(30, "node2", 1);
	struct falcon_lease l1, l2, again;
	struct falcond_ledger *lg;
	char state_dir[4200];
	int n;

	/* PrologSlurmctld composes both nodes' leases (node2's first: its
	 * port H3 reaches drawer1 only, in standard mode while no other
	 * port has it) */
	ck_assert_msg(falcond_compose(&st, &r2, &l2) == FALCON_OK, "%s", falcon_errmsg());
	ck_assert_msg(falcond_compose(&st, &r1, &l1) == FALCON_OK, "%s", falcon_errmsg());
	ck_assert(!l1.on_node && !l2.on_node);
	/* node1's prolog asks for its lease */
	r1.on_node = true;
	ck_assert_msg(falcond_compose(&st, &r1, &again) == FALCON_OK, "%s", falcon_errmsg());
	ck_assert_str_eq(again.id, l1.id);
	ck_assert(again.on_node);
	snprintf(state_dir, sizeof(state_dir), "%s/state", dir);
	ck_assert_msg(falcond_ledger_load(state_dir, &lg) == FALCON_OK, "%s", falcon_errmsg());
	ck_assert_msg(falcond_ledger_lease(lg, l1.id) != NULL &&
		      falcond_ledger_lease(lg, l1.id)->on_node, "on_node not written");
	ck_assert(!falcond_ledger_lease(lg, l2.id)->on_node);
	falcond_ledger_free(lg);
	/* the job ends before node2's prolog ran */
	ck_assert_msg(off_node(30, &n) == FALCON_OK, "%s", falcon_errmsg());
	ck_assert_int_eq(n, 1);
	ck_assert_ptr_null(falcond_ledger_lease(st.ledger, l2.id));
	ck_assert_ptr_nonnull(falcond_ledger_lease(st.ledger, l1.id));
	ck_assert_uint_eq(attached_total(), 2);
	/* asked again (EpilogSlurmctld retried): nothing more */
	ck_assert_int_eq(off_node(30, &n), FALCON_ERR_NOTFOUND);
	ck_assert_uint_eq(attached_total(), 2);
}
END_TEST

/* compose_bg - falcond_compose of the request arg in a thread (a
 * PrologSlurmctld slurmctld killed: nobody reads the answer); its return
 * into bg_rv */
static falcon_err_t bg_rv;
static void *compose_bg(void *arg)
{
	struct falcon_lease l;

	bg_rv = falcond_compose(&st, arg, &l);
	return NULL;
}

/* a job cancelled in CONFIGURING: its compose is still at the chassis
 * (1.5 s per PATCH) when EpilogSlurmctld asks; the decompose waits for
 * it and then closes its lease, leaving nothing attached */
START_TEST(off_node_after_compose_in_flight)
{
	struct falcon_compose_req r = req(31, "node2", 2);
	pthread_t t;
	int n;

	ck_assert_int_eq(sim_admin("/admin/faults",
		"{\"rules\":[{\"action\":\"latency\",\"method\":\"PATCH\","
		"\"path\":\"/redfish/v1/*\",\"ms\":1500}]}"), 200);
	ck_assert_int_eq(pthread_create(&t, NULL, compose_bg, &r), 0);
	/* until the compose holds its devices in flight */
	for (n = 0; n < 100; n++) {
		pthread_mutex_lock(&st.lock);
		if (st.ledger->nleases > 0)
			n = 1000;
		pthread_mutex_unlock(&st.lock);
		if (n < 1000)
			usleep(20000);
	}
	ck_assert_msg(n > 100, "the compose never began");
	ck_assert_msg(off_node(31, &n) == FALCON_OK, "%s", falcon_errmsg());
	ck_assert_int_eq(n, 1);
	pthread_join(t, NULL);
	ck_assert_int_eq(sim_admin("/admin/faults", "{}"), 200);
	ck_assert_uint_eq(st.ledger->nleases, 0);
	ck_assert_uint_eq(attached_total(), 0);
}
END_TEST

/* a cancel in CONFIGURING whose compose was asked but waits for the
 * chassis' lock (another compose's PATCH there) when EpilogSlurmctld asks:
 * nothing is live yet, so the decompose finds nothing; the compose must
 * then give up (make soak-fleet's fifth hour: 10 leases so made were left
 * to the reconcile).  The job's next run (a requeue) asks after the mark
 * and gets its devices. */
START_TEST(off_node_before_compose_live)
{
	struct falcon_compose_req r = req(32, "node1", 2);
	struct falcon_lease l;
	struct falcond_chassis *ch = falcond_chassis_of(&st, "c1");
	pthread_t t;
	int n;

	r.asked_ms = falcon_now_ms();
	pthread_mutex_lock(&ch->lock);
	bg_rv = FALCON_OK;
	/* (whether the thread is at the lock yet or not: it was asked first) */
	ck_assert_int_eq(pthread_create(&t, NULL, compose_bg, &r), 0);
	ck_assert_int_eq(off_node(32, &n), FALCON_ERR_NOTFOUND);
	pthread_mutex_unlock(&ch->lock);
	pthread_join(t, NULL);
	ck_assert_msg(bg_rv == FALCON_ERR_NOTFOUND, "the ended job's compose: %s",
		      falcon_strerror(bg_rv));
	ck_assert_uint_eq(st.ledger->nleases, 0);
	ck_assert_uint_eq(attached_total(), 0);
	/* requeued: its next run asks after the mark (a later millisecond:
	 * one asked in the mark's own is taken as before it) */
	usleep(2000);
	r.asked_ms = falcon_now_ms();
	ck_assert_msg(falcond_compose(&st, &r, &l) == FALCON_OK, "%s", falcon_errmsg());
	ck_assert_uint_eq(attached_total(), 2);
	/* a node prolog's compose is never refused so */
	ck_assert_int_eq(off_node(32, &n), FALCON_OK);
	r.on_node = true;
	r.asked_ms = 1;
	ck_assert_msg(falcond_compose(&st, &r, &l) == FALCON_OK, "%s", falcon_errmsg());
}
END_TEST

/* asked_gone - falcon_compose_req.asker_gone: *asker counts the asks */
static bool asked_gone(void *asker)
{
	(*(int *)asker)++;
	return true;
}

/* a PrologSlurmctld's compose whose asker has gone, Slurm not asked (here:
 * falcond without Slurm): served, the job not marked ended; a node
 * prolog's never asks */
START_TEST(asker_gone_slurm_unknown)
{
	struct falcon_compose_req r = req(33, "node1", 2);
	struct falcon_lease l;
	int asks = 0;

	r.asked_ms = falcon_now_ms();
	r.asker_gone = asked_gone;
	r.asker = &asks;
	ck_assert_msg(falcond_compose(&st, &r, &l) == FALCON_OK, "%s", falcon_errmsg());
	ck_assert_int_eq(asks, 2); /* before it began, after the attach */
	ck_assert_uint_eq(attached_total(), 2);
	ck_assert(!falcond_job_ended_since(&st, 33, 1));
	asks = 0;
	r = req(34, "node1", 1);
	r.asked_ms = falcon_now_ms();
	r.on_node = true;
	r.asker_gone = asked_gone;
	r.asker = &asks;
	ck_assert_msg(falcond_compose(&st, &r, &l) == FALCON_OK, "%s", falcon_errmsg());
	ck_assert_int_eq(asks, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("compose");
	TCase *tc = tcase_create("core");

	if (access(sim_bin, X_OK) != 0) {
		printf("SKIP: %s not built\n", sim_bin);
		return 77;
	}
	falcon_log_init("test_compose");
	falcon_log_add_sink(falcon_log_sink_stderr, FALCON_LOG_WARN, NULL);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, compose_repeat_release);
	tcase_add_test(tc, policy_refused_first);
	tcase_add_test(tc, budget_passed);
	tcase_add_test(tc, attach_fails_rolls_back);
	tcase_add_test(tc, evict_only_useful);
	tcase_add_test(tc, off_node_only_unseen);
	tcase_add_test(tc, off_node_after_compose_in_flight);
	tcase_add_test(tc, off_node_before_compose_live);
	tcase_add_test(tc, asker_gone_slurm_unknown);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
