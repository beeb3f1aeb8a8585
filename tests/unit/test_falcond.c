/*
 * test_falcond.c - falcond's ledger (round trip, crash safety of the write
 * under SIGKILL, corrupted ledgers refused with a clear error; the log:
 * append and replay, a torn last line, a corrupt line, compaction and a
 * crash in its middle, a failed append),
 * placement/policy (a table of pack/spread/any, mode limits, refusals) and
 * the keep-warm questions (keep.h: when a lease is kept, which kept lease
 * serves a compose, the split, the deadline under a reload, a kept lease
 * through the ledger file).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"
#include "falcond/policy.h"
#include "falcond/ledger.h"
#include "falcond/keep.h"
#include "falcond/place.h"
#include "core/log.h"
#include "core/util.h"

/* ------------------------------------------------------------ ledger */

static struct falcon_lease mk_lease(unsigned long long n, const char *host, int ndevs)
{
	struct falcon_lease l;
	int i;

	memset(&l, 0, sizeof(l));
	snprintf(l.id, sizeof(l.id), "L-%llu", n);
	l.job_id = (uint32_t)(1000 + n);
	l.uid = 1000;
	snprintf(l.host, sizeof(l.host), "%s", host);
	snprintf(l.state, sizeof(l.state), "active");
	l.place = FALCON_PLACE_SPREAD;
	l.created_ms = 1700000000000LL + (long long)n;
	l.ndevs = (size_t)ndevs;
	for (i = 0; i < ndevs; i++) {
		snprintf(l.devs[i].chassis, sizeof(l.devs[i].chassis), "c1");
		snprintf(l.devs[i].id, sizeof(l.devs[i].id), "drawer%d_slot%llu", i + 1, n % 8 + 1);
		snprintf(l.devs[i].port, sizeof(l.devs[i].port), "H%d", i + 1);
		l.devs[i].drawer = i + 1;
		l.devs[i].slot = (int)(n % 8 + 1);
	}
	return l;
}

START_TEST(ledger_round_trip)
{
	const char *dir = make_tmpdir("ledger");
	struct falcond_ledger *lg = NULL, *lg2 = NULL;
	struct falcon_lease l1 = mk_lease(1, "n1", 2), l2 = mk_lease(2, "n2", 1);
	json_object *ja, *jb;
	char *a, *b;

	ck_assert_int_eq(falcond_ledger_load(dir, &lg), FALCON_OK); /* missing = empty */
	ck_assert_uint_eq(lg->nleases, 0);
	lg->seq = 2;
	ck_assert_int_eq(falcond_ledger_add_lease(lg, &l1), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_add_lease(lg, &l2), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_add_lease(lg, &l2), FALCON_ERR_CONFLICT);
	l2.id[2] = '9'; /* another id, same device */
	ck_assert_int_eq(falcond_ledger_add_lease(lg, &l2), FALCON_ERR_CONFLICT);
	ck_assert_int_eq(falcond_ledger_record_attach(lg, &l1, &l1.devs[0]), FALCON_OK);
	falcond_ledger_record_release(lg, l1.id, &l1.devs[0], "released");
	ck_assert_int_eq(falcond_ledger_record_attach(lg, &l1, &l1.devs[1]), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_quarantine(lg, "c1", "drawer2_slot7", "detach failed: \"x\""),
			 FALCON_OK);
	ck_assert_int_eq(falcond_ledger_save(lg), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_load(dir, &lg2), FALCON_OK);
	ja = falcond_ledger_json(lg);
	jb = falcond_ledger_json(lg2);
	a = strdup(json_object_to_json_string(ja));
	b = strdup(json_object_to_json_string(jb));
	json_object_put(ja);
	json_object_put(jb);
	ck_assert_str_eq(a, b);
	ck_assert_uint_eq(lg2->seq, 2);
	ck_assert_ptr_nonnull(falcond_ledger_device_lease(lg2, "c1", "drawer2_slot2"));
	ck_assert_ptr_nonnull(falcond_ledger_quarantined(lg2, "c1", "drawer2_slot7"));
	ck_assert_int_eq(falcond_ledger_unquarantine(lg2, "c1", "drawer2_slot7"), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_unquarantine(lg2, "c1", "drawer2_slot7"), FALCON_ERR_NOTFOUND);
	falcond_ledger_remove_lease(lg2, "L-1");
	ck_assert_ptr_null(falcond_ledger_lease(lg2, "L-1"));
	ck_assert_ptr_nonnull(falcond_ledger_lease(lg2, "L-2"));
	ck_assert_uint_eq(lg2->hist[0].h[0].detached_ms > 0, 1);
	ck_assert_str_eq(lg2->hist[0].h[0].result, "released");
	free(a);
	free(b);
	falcond_ledger_free(lg);
	falcond_ledger_free(lg2);
}
END_TEST

/*
 * A child saves ever larger ledgers (seq = number of leases) as fast as it
 * can; the parent SIGKILLs it at a random point, then loads: the ledger
 * must parse and be one the child wrote whole (nleases == seq).
 */
START_TEST(ledger_crash_safe)
{
	const char *dir = make_tmpdir("crash");
	int round;

	srand((unsigned)getpid());
	for (round = 0; round < 40; round++) {
		struct falcond_ledger *lg = NULL;
		pid_t pid = fork();
		int status;

		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			struct falcond_ledger *w = NULL;
			unsigned long long n;

			if (falcond_ledger_load(dir, &w) != FALCON_OK)
				_exit(3);
			for (n = w->seq + 1;; n++) {
				struct falcon_lease l = mk_lease(n, "n1", 0);

				if (falcond_ledger_add_lease(w, &l) != FALCON_OK)
					_exit(4);
				w->seq = n;
				if (falcond_ledger_save(w) != FALCON_OK)
					_exit(5);
			}
		}
		usleep((useconds_t)(1000 + rand() % 20000));
		kill(pid, SIGKILL);
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_msg(WIFSIGNALED(status), "writer exited %d", WEXITSTATUS(status));
		ck_assert_msg(falcond_ledger_load(dir, &lg) == FALCON_OK, "round %d: %s", round,
			      falcon_errmsg());
		ck_assert_uint_eq(lg->nleases, lg->seq);
		falcond_ledger_free(lg);
	}
}
END_TEST

struct corrupt {
	const char *text;
	const char *detail; /* must appear in the error */
};

static const struct corrupt corrupted[] = {
	{ "{\"version\":1,\"seq\":3,\"leases\":[", "corrupted ledger" },
	{ "", "corrupted ledger" },
	{ "[1,2]", "expected a JSON object" },
	{ "{\"version\":3,\"gen\":1,\"seq\":0,\"leases\":[],\"quarantine\":[],\"devices\":[]}",
	  "version" },
	{ "{\"version\":2,\"seq\":0,\"leases\":[],\"quarantine\":[],\"devices\":[]}", "gen" },
	{ "{\"version\":1,\"seq\":\"x\",\"leases\":[],\"quarantine\":[],\"devices\":[]}", "seq" },
	{ "{\"version\":1,\"seq\":0,\"leases\":{},\"quarantine\":[],\"devices\":[]}", "leases" },
	{ "{\"version\":1,\"seq\":0,\"leases\":[{\"id\":\"L-1\"}],\"quarantine\":[],\"devices\":[]}",
	  "leases[0]" },
	{ "{\"version\":1,\"seq\":0,\"leases\":[],\"quarantine\":[{\"chassis\":\"c1\"}],"
	  "\"devices\":[]}", "quarantine[0].device" },
	{ "{\"version\":1,\"seq\":0,\"leases\":[],\"quarantine\":[],\"devices\":[{\"chassis\":"
	  "\"c1\",\"device\":\"d\",\"history\":[{\"job_id\":-1}]}]}", "job_id" },
};

START_TEST(ledger_corrupted)
{
	const char *dir = make_tmpdir("corrupt");
	const struct corrupt *c = &corrupted[_i];
	struct falcond_ledger *lg = NULL;
	char path[4200];

	snprintf(path, sizeof(path), "%s/" FALCOND_LEDGER_FILE, dir);
	ck_assert_int_eq(falcon_write_file_atomic(path, c->text, strlen(c->text), 0600), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_load(dir, &lg), FALCON_ERR_PARSE);
	ck_assert_ptr_null(lg);
	ck_assert_msg(strstr(falcon_errmsg(), c->detail) != NULL, "'%s' lacks '%s'",
		      falcon_errmsg(), c->detail);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), path));
}
END_TEST

START_TEST(ledger_two_leases_one_device)
{
	const char *dir = make_tmpdir("dup");
	struct falcond_ledger *lg = NULL;
	struct falcon_lease l1 = mk_lease(1, "n1", 1), l2 = mk_lease(9, "n2", 1);
	json_object *o, *a;
	const char *s;
	char path[4200];

	o = json_object_new_object();
	a = json_object_new_array();
	json_object_object_add(o, "version", json_object_new_int(1));
	json_object_object_add(o, "seq", json_object_new_int(9));
	json_object_array_add(a, falcon_proto_lease_json(&l1));
	json_object_array_add(a, falcon_proto_lease_json(&l2)); /* same drawer1_slot2 */
	json_object_object_add(o, "leases", a);
	json_object_object_add(o, "quarantine", json_object_new_array());
	json_object_object_add(o, "devices", json_object_new_array());
	s = json_object_to_json_string(o);
	snprintf(path, sizeof(path), "%s/" FALCOND_LEDGER_FILE, dir);
	ck_assert_int_eq(falcon_write_file_atomic(path, s, strlen(s), 0600), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_load(dir, &lg), FALCON_ERR_PARSE);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "already in lease L-1"));
	json_object_put(o);
}
END_TEST

/* falcond_ledger_text (kept history texts) gives the bytes of falcond_ledger_json,
 * after each kind of change, including one made after a text was kept. */
static void same_text(struct falcond_ledger *lg)
{
	json_object *o = falcond_ledger_json(lg);
	char *t = falcond_ledger_text(lg);

	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(t, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	free(t);
	json_object_put(o);
}

START_TEST(ledger_text_kept)
{
	struct falcond_ledger *lg = calloc(1, sizeof(*lg));
	struct falcon_lease l1 = mk_lease(1, "n1", 2), l2 = mk_lease(2, "n2", 1);
	json_object *o;

	ck_assert_ptr_nonnull(lg);
	same_text(lg); /* empty */
	lg->seq = 2;
	ck_assert_int_eq(falcond_ledger_add_lease(lg, &l1), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_record_attach(lg, &l1, &l1.devs[0]), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_record_attach(lg, &l1, &l1.devs[1]), FALCON_OK);
	same_text(lg);
	ck_assert_int_eq(falcond_ledger_add_lease(lg, &l2), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_record_attach(lg, &l2, &l2.devs[0]), FALCON_OK);
	same_text(lg);
	falcond_ledger_record_release(lg, l1.id, &l1.devs[1], "released; check: \"ok\"");
	falcond_ledger_remove_lease(lg, l1.id);
	same_text(lg);
	ck_assert_int_eq(falcond_ledger_quarantine(lg, "c1", "drawer2_slot8", "detach failed"), FALCON_OK);
	same_text(lg);
	/* and it reads back */
	o = falcond_ledger_json(lg);
	{
		struct falcond_ledger *back = calloc(1, sizeof(*back));
		char *t = falcond_ledger_text(lg);
		json_object *p = json_tokener_parse(t);

		ck_assert_ptr_nonnull(p);
		ck_assert_int_eq(falcond_ledger_from_json(p, back), FALCON_OK);
		ck_assert_uint_eq(back->nhist, lg->nhist);
		json_object_put(p);
		free(t);
		falcond_ledger_free(back);
	}
	json_object_put(o);
	falcond_ledger_free(lg);
}
END_TEST

/* ledger.seq below a lease id in the file (a ledger edited or restored by
 * hand): raised so that the next lease id is new.  {seq in the file, lease
 * id, history lease id, seq expected after load} */
static const struct {
	long long seq;
	const char *lease, *hist;
	unsigned long long want;
} seqcases[] = {
	{ 3, "L-7", NULL, 7 },      /* a lease above seq */
	{ 3, "L-2", "L-12", 12 },   /* only the history names a higher id */
	{ 9, "L-7", "L-8", 9 },     /* consistent: kept */
	{ 0, "job-5", NULL, 0 },    /* not an id falcond makes: ignored */
};

START_TEST(ledger_seq_below_ids)
{
	const char *dir = make_tmpdir("seq");
	struct falcond_ledger *lg = NULL;
	struct falcon_lease l = mk_lease(1, "n1", 1);
	json_object *o, *a, *devs;
	const char *s;
	char path[4200];

	snprintf(l.id, sizeof(l.id), "%s", seqcases[_i].lease);
	o = json_object_new_object();
	a = json_object_new_array();
	devs = json_object_new_array();
	json_object_object_add(o, "version", json_object_new_int(1));
	json_object_object_add(o, "seq", json_object_new_int64(seqcases[_i].seq));
	json_object_array_add(a, falcon_proto_lease_json(&l));
	json_object_object_add(o, "leases", a);
	json_object_object_add(o, "quarantine", json_object_new_array());
	if (seqcases[_i].hist != NULL) {
		json_object *e = json_object_new_object(), *h = json_object_new_array();
		json_object *y = json_object_new_object();

		json_object_object_add(e, "chassis", json_object_new_string("c1"));
		json_object_object_add(e, "device", json_object_new_string("drawer2_slot8"));
		json_object_object_add(y, "job_id", json_object_new_int(1));
		json_object_object_add(y, "lease", json_object_new_string(seqcases[_i].hist));
		json_object_object_add(y, "host", json_object_new_string("n1"));
		json_object_object_add(y, "attached", json_object_new_int(1));
		json_object_object_add(y, "detached", json_object_new_int(2));
		json_object_object_add(y, "result", json_object_new_string("released"));
		json_object_array_add(h, y);
		json_object_object_add(e, "history", h);
		json_object_array_add(devs, e);
	}
	json_object_object_add(o, "devices", devs);
	s = json_object_to_json_string(o);
	snprintf(path, sizeof(path), "%s/" FALCOND_LEDGER_FILE, dir);
	ck_assert_int_eq(falcon_write_file_atomic(path, s, strlen(s), 0600), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_load(dir, &lg), FALCON_OK);
	ck_assert_uint_eq(lg->seq, seqcases[_i].want);
	falcond_ledger_free(lg);
	json_object_put(o);
}
END_TEST

/* A dead falcond's in-flight lease: held until SettleTime passes with none of
 * its devices attached; a late attach (or one seen at the first look) moves
 * the deadline; a quarantined device does not keep it; removing the lease
 * forgets its deadline. */
START_TEST(ledger_settle)
{
	struct falcond_ledger lg;
	struct falcon_lease l = mk_lease(5, "n1", 2); /* drawer1_slot6 on H1, drawer2_slot6 on H2 */
	struct falcon_device devs[2];
	struct falcon_inventory inv = { .n = 2, .devs = devs };
	bool late[2];

	memset(&lg, 0, sizeof(lg));
	memset(devs, 0, sizeof(devs));
	snprintf(devs[0].id, sizeof(devs[0].id), "%s", l.devs[0].id);
	snprintf(devs[1].id, sizeof(devs[1].id), "%s", l.devs[1].id);
	snprintf(l.state, sizeof(l.state), "composing");
	ck_assert_int_eq(falcond_ledger_add_lease(&lg, &l), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_settle_next(&lg), 0);
	/* first look, nothing attached: not settled before the deadline */
	ck_assert(!falcond_ledger_settle_look(&lg, &l, &inv, 1000, 500, late));
	ck_assert(!late[0] && !late[1]);
	ck_assert_int_eq(falcond_ledger_settle_next(&lg), 1500);
	ck_assert(!falcond_ledger_settle_look(&lg, &l, &inv, 1499, 500, late));
	/* the dead process's attach lands late: caught, the deadline moves */
	snprintf(devs[1].owner, sizeof(devs[1].owner), "H2");
	ck_assert(!falcond_ledger_settle_look(&lg, &l, &inv, 1400, 500, late));
	ck_assert(!late[0] && late[1]);
	ck_assert_int_eq(falcond_ledger_settle_next(&lg), 1900);
	/* detached; stable past the new deadline: settled */
	devs[1].owner[0] = '\0';
	ck_assert(!falcond_ledger_settle_look(&lg, &l, &inv, 1800, 500, late));
	ck_assert(falcond_ledger_settle_look(&lg, &l, &inv, 1900, 500, late));
	/* a quarantined device still attached does not hold it */
	snprintf(devs[0].owner, sizeof(devs[0].owner), "H1");
	ck_assert(!falcond_ledger_settle_look(&lg, &l, &inv, 2000, 500, late));
	ck_assert(late[0]);
	ck_assert_int_eq(falcond_ledger_quarantine(&lg, "c1", l.devs[0].id, "detach failed"),
			 FALCON_OK);
	ck_assert(falcond_ledger_settle_look(&lg, &l, &inv, 2500, 500, late));
	ck_assert(!late[0]);
	falcond_ledger_remove_lease(&lg, l.id);
	ck_assert_uint_eq(lg.nsettle, 0);
	ck_assert_int_eq(falcond_ledger_settle_next(&lg), 0);
	free(lg.leases);
	free(lg.quar);
	free(lg.settle);
}
END_TEST

/* A device listed twice in "devices", each with FALCOND_HIST_MAX entries: the
 * second used to be appended past the end of the device's history. */
START_TEST(ledger_device_twice)
{
	const char *dir = make_tmpdir("hist2");
	struct falcond_ledger *lg = NULL;
	json_object *o, *devs;
	const char *s;
	char path[4200];
	int k, j;

	o = json_object_new_object();
	devs = json_object_new_array();
	json_object_object_add(o, "version", json_object_new_int(1));
	json_object_object_add(o, "seq", json_object_new_int(0));
	json_object_object_add(o, "leases", json_object_new_array());
	json_object_object_add(o, "quarantine", json_object_new_array());
	for (k = 0; k < 2; k++) {
		json_object *e = json_object_new_object(), *h = json_object_new_array();

		json_object_object_add(e, "chassis", json_object_new_string("c1"));
		json_object_object_add(e, "device", json_object_new_string("drawer1_slot1"));
		for (j = 0; j < FALCOND_HIST_MAX; j++) {
			json_object *y = json_object_new_object();

			json_object_object_add(y, "job_id", json_object_new_int(j + 1));
			json_object_object_add(y, "lease", json_object_new_string("L-1"));
			json_object_object_add(y, "host", json_object_new_string("n1"));
			json_object_object_add(y, "attached", json_object_new_int(1));
			json_object_object_add(y, "detached", json_object_new_int(2));
			json_object_object_add(y, "result", json_object_new_string("released"));
			json_object_array_add(h, y);
		}
		json_object_object_add(e, "history", h);
		json_object_array_add(devs, e);
	}
	json_object_object_add(o, "devices", devs);
	s = json_object_to_json_string(o);
	snprintf(path, sizeof(path), "%s/" FALCOND_LEDGER_FILE, dir);
	ck_assert_int_eq(falcon_write_file_atomic(path, s, strlen(s), 0600), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_load(dir, &lg), FALCON_ERR_PARSE);
	ck_assert_ptr_null(lg);
	ck_assert_msg(strstr(falcon_errmsg(), "devices[1]: c1/drawer1_slot1 listed twice") != NULL,
		      "%s", falcon_errmsg());
	json_object_put(o);
}
END_TEST

/* --------------------------------------------------------- placement */

/* drawer 1: 8 GPUs; drawer 2: slots 1-6 GPUs, 7-8 NVMe */
static struct falcon_device inv[16];
static struct falcond_slot slots[16];

static void reset_pool(void)
{
	int i;

	memset(inv, 0, sizeof(inv));
	memset(slots, 0, sizeof(slots));
	for (i = 0; i < 16; i++) {
		inv[i].drawer = i / 8 + 1;
		inv[i].slot = i % 8 + 1;
		inv[i].type = (i >= 14) ? FALCON_DEV_NVME : FALCON_DEV_GPU;
		snprintf(inv[i].id, sizeof(inv[i].id), "drawer%d_slot%d", inv[i].drawer, inv[i].slot);
		snprintf(inv[i].health, sizeof(inv[i].health), "OK");
		slots[i].dev = &inv[i];
	}
}

#define D1(s) ((s) - 1)
#define D2(s) (8 + (s) - 1)

struct pcase {
	const char *name;
	falcon_mode_t mode;
	falcon_place_t place;
	int gpus, nvme;
	const char *held[16];        /* holder host per index, NULL = free */
	bool quar[16];
	bool critical[16];
	falcon_err_t want;
	int expect[8];               /* expected indices in order, -1 ends */
};

static const struct pcase pcases[] = {
	{ "pack best fit", FALCON_MODE_ADVANCED, FALCON_PLACE_PACK, 4, 0, { 0 }, { 0 }, { 0 },
	  FALCON_OK, { D2(1), D2(2), D2(3), D2(4), -1 } },
	{ "pack 8 only drawer1", FALCON_MODE_ADVANCED, FALCON_PLACE_PACK, 8, 0, { 0 }, { 0 }, { 0 },
	  FALCON_OK, { D1(1), D1(2), D1(3), D1(4), D1(5), D1(6), D1(7), D1(8) } },
	{ "pack overflow", FALCON_MODE_ADVANCED, FALCON_PLACE_PACK, 8, 0,
	  { [D1(1)] = "x" }, { 0 }, { 0 }, FALCON_OK,
	  { D1(2), D1(3), D1(4), D1(5), D1(6), D1(7), D1(8), D2(1) } },
	{ "spread", FALCON_MODE_ADVANCED, FALCON_PLACE_SPREAD, 4, 0, { 0 }, { 0 }, { 0 },
	  FALCON_OK, { D1(1), D2(1), D1(2), D2(2), -1 } },
	{ "any", FALCON_MODE_ADVANCED, FALCON_PLACE_ANY, 3, 0, { 0 }, { 0 }, { 0 },
	  FALCON_OK, { D1(1), D1(2), D1(3), -1 } },
	{ "any skips quarantine and Critical", FALCON_MODE_ADVANCED, FALCON_PLACE_ANY, 2, 0,
	  { 0 }, { [D1(1)] = true }, { [D1(2)] = true }, FALCON_OK, { D1(3), D1(4), -1 } },
	{ "standard: half held by another host", FALCON_MODE_STANDARD, FALCON_PLACE_ANY, 4, 0,
	  { [D1(2)] = "other" }, { 0 }, { 0 }, FALCON_OK, { D1(5), D1(6), D1(7), D1(8), -1 } },
	{ "standard: own devices do not block", FALCON_MODE_STANDARD, FALCON_PLACE_ANY, 2, 0,
	  { [D1(1)] = "me" }, { 0 }, { 0 }, FALCON_OK, { D1(2), D1(3), -1 } },
	{ "advanced: 3 hosts in drawer1", FALCON_MODE_ADVANCED, FALCON_PLACE_ANY, 2, 0,
	  { [D1(1)] = "a", [D1(2)] = "b", [D1(3)] = "c" }, { 0 }, { 0 }, FALCON_OK,
	  { D2(1), D2(2), -1 } },
	{ "advanced: 2 hosts leave room", FALCON_MODE_ADVANCED, FALCON_PLACE_ANY, 1, 0,
	  { [D1(1)] = "a", [D1(2)] = "b" }, { 0 }, { 0 }, FALCON_OK, { D1(3), -1 } },
	{ "standard: both halves taken", FALCON_MODE_STANDARD, FALCON_PLACE_ANY, 7, 0,
	  { [D1(1)] = "a", [D1(5)] = "b" }, { 0 }, { 0 }, FALCON_ERR_NORESOURCE, { -1 } },
	{ "too many", FALCON_MODE_ADVANCED, FALCON_PLACE_PACK, 15, 0, { 0 }, { 0 }, { 0 },
	  FALCON_ERR_NORESOURCE, { -1 } },
	{ "nvme beside the gpus", FALCON_MODE_ADVANCED, FALCON_PLACE_PACK, 2, 1, { 0 }, { 0 },
	  { 0 }, FALCON_OK, { D2(1), D2(2), D2(7), -1 } },
	{ "nvme only", FALCON_MODE_ADVANCED, FALCON_PLACE_ANY, 0, 2, { 0 }, { 0 }, { 0 },
	  FALCON_OK, { D2(7), D2(8), -1 } },
	{ "unreachable drawer skipped", FALCON_MODE_ADVANCED, FALCON_PLACE_PACK, 2, 0, { 0 },
	  { 0 }, { 0 }, FALCON_OK, { D1(1), D1(2), -1 } },
	{ "nvme too many", FALCON_MODE_ADVANCED, FALCON_PLACE_ANY, 0, 3, { 0 }, { 0 }, { 0 },
	  FALCON_ERR_NORESOURCE, { -1 } },
};

#define UNREACH_CASE 14 /* "unreachable drawer skipped": drawer 2 not cabled */

START_TEST(placement)
{
	const struct pcase *c = &pcases[_i];
	size_t picks[FALCON_PROTO_MAX_DEVS];
	falcon_err_t rv;
	int i;

	reset_pool();
	for (i = 0; i < 16; i++) {
		slots[i].holder = c->held[i];
		slots[i].quarantined = c->quar[i];
		slots[i].unreachable = _i == UNREACH_CASE && inv[i].drawer == 2;
		if (c->critical[i])
			snprintf(inv[i].health, sizeof(inv[i].health), "Critical");
	}
	rv = falcond_place(slots, 16, "me", c->mode, c->place, c->gpus, c->nvme, picks);
	ck_assert_msg(rv == c->want, "%s: got %s (%s)", c->name, falcon_err_name(rv),
		      falcon_errmsg());
	if (rv != FALCON_OK)
		return;
	for (i = 0; i < c->gpus + c->nvme; i++)
		ck_assert_msg((int)picks[i] == c->expect[i], "%s: pick %d is %s, expected %s",
			      c->name, i, inv[picks[i]].id,
			      c->expect[i] >= 0 ? inv[c->expect[i]].id : "none");
}
END_TEST

/* a device that left the fabric (a ResourceRemoved event: State Absent) is
 * never placed */
START_TEST(placement_absent)
{
	size_t picks[4];

	reset_pool();
	snprintf(inv[D1(1)].state, sizeof(inv[0].state), "Absent");
	ck_assert_int_eq(falcond_place(slots, 16, "me", FALCON_MODE_ADVANCED, FALCON_PLACE_ANY, 1, 0,
				       picks), FALCON_OK);
	ck_assert_uint_eq(picks[0], D1(2));
}
END_TEST

START_TEST(placement_owner_on_chassis)
{
	size_t picks[4];

	reset_pool();
	snprintf(inv[D1(1)].owner, sizeof(inv[0].owner), "H3"); /* chassis says attached */
	ck_assert_int_eq(falcond_place(slots, 16, "me", FALCON_MODE_ADVANCED, FALCON_PLACE_ANY, 1, 0,
				       picks), FALCON_OK);
	ck_assert_uint_eq(picks[0], D1(2));
}
END_TEST

/* a refused compose says at -v why each device is not a candidate (the
 * trixie lane's "8 GPU wanted, 6 free" could not be explained without) */
static char placelog[4096];

static void place_sink(falcon_log_level_t level, const char *line, void *ctx)
{
	(void)level;
	(void)ctx;
	if (strstr(line, "place: ") != NULL &&
	    strlen(placelog) + strlen(line) + 2 < sizeof(placelog)) {
		strcat(placelog, line);
		strcat(placelog, "\n");
	}
}

START_TEST(placement_refused_says_why)
{
	size_t picks[8];

	reset_pool();
	placelog[0] = '\0';
	falcon_log_init("test");
	ck_assert_int_eq(falcon_log_add_sink(place_sink, FALCON_LOG_VERBOSE, NULL), 0);
	slots[D1(1)].holder = "a";
	slots[D1(5)].holder = "b";
	slots[D2(1)].quarantined = true;
	ck_assert_int_eq(falcond_place(slots, 16, "me", FALCON_MODE_STANDARD, FALCON_PLACE_ANY, 7, 0,
				       picks), FALCON_ERR_NORESOURCE);
	ck_assert_msg(strstr(placelog, "place: ") != NULL, "no place lines: %s", placelog);
	ck_assert_msg(strstr(placelog, "not usable for me: leased to a") != NULL, "%s", placelog);
	ck_assert_msg(strstr(placelog, "not usable for me: quarantined") != NULL, "%s", placelog);
	ck_assert_msg(strstr(placelog, "not usable for me: its drawer (half) is taken by other "
				       "hosts (mode limit)") != NULL, "%s", placelog);
	falcon_log_init("test");
}
END_TEST

struct polcase {
	unsigned allow;
	int max_gpus, max_nvme;
	int gpus, nvme, local;
	falcon_err_t want;
	const char *detail;
};

static const struct polcase polcases[] = {
	{ FALCON_CONF_TOPO_ALL, -1, -1, 16, 16, 0, FALCON_OK, NULL },
	{ FALCON_CONF_TOPO_ALL, 4, -1, 5, 0, 0, FALCON_ERR_POLICY, "MaxFalconGPUs=4" },
	{ FALCON_CONF_TOPO_ALL, 4, -1, 4, 0, 0, FALCON_OK, NULL },
	{ FALCON_CONF_TOPO_ALL, -1, 0, 1, 1, 0, FALCON_ERR_POLICY, "MaxFalconNVMe=0" },
	{ FALCON_CONF_TOPO_LOCALGPUS | FALCON_CONF_TOPO_HYBRIDGPUS, -1, -1, 2, 0, 0, FALCON_ERR_POLICY,
	  "falconGPUs" },
	{ FALCON_CONF_TOPO_LOCALGPUS | FALCON_CONF_TOPO_HYBRIDGPUS, -1, -1, 2, 0, 4, FALCON_OK, NULL },
	{ FALCON_CONF_TOPO_FALCONGPUS, -1, -1, 2, 0, 4, FALCON_ERR_POLICY, "hybridGPUs" },
	{ FALCON_CONF_TOPO_FALCONGPUS, -1, -1, 2, 1, 0, FALCON_ERR_POLICY, "falconNVMe" },
	{ FALCON_CONF_TOPO_FALCONNVME, -1, -1, 0, 1, 0, FALCON_OK, NULL },
};

START_TEST(policy)
{
	const struct polcase *c = &polcases[_i];
	struct falcon_partition_conf p = { .allow_topologies = c->allow,
					   .max_falcon_gpus = c->max_gpus,
					   .max_falcon_nvme = c->max_nvme };
	struct falcon_compose_req r = { .job_id = 1, .gpus = c->gpus, .nvme = c->nvme,
					.local_gpus = c->local };
	falcon_err_t rv;

	snprintf(p.name, sizeof(p.name), "gpu");
	rv = falcond_policy_check(&p, &r);
	ck_assert_int_eq(rv, c->want);
	if (c->detail)
		ck_assert_msg(strstr(falcon_errmsg(), c->detail) != NULL, "'%s' lacks '%s'",
			      falcon_errmsg(), c->detail);
}
END_TEST

/* learnt - r with port learnt not to reach drawer, through the refusal of
 * a device of that drawer that the chassis still shows free. */
static void learnt(struct falcond_reach *r, const char *port, int drawer)
{
	struct falcon_device d = { .drawer = drawer };
	struct falcon_inventory now = { .n = 1, .devs = &d };
	struct falcon_lease_dev ld = { .drawer = drawer };

	snprintf(d.id, sizeof(d.id), "drawer%d_slot1", drawer);
	snprintf(ld.id, sizeof(ld.id), "%s", d.id);
	snprintf(ld.port, sizeof(ld.port), "%s", port);
	ck_assert(falcond_place_refused(r, "c1", &now, &ld));
}

START_TEST(port_by_drawer)
{
	struct falcon_host_conf h = { .nports = 2 };
	struct falcond_reach no_h2_drawer2 = { 0 }, no_h1 = { 0 };

	snprintf(h.ports[0], sizeof(h.ports[0]), "H1");
	snprintf(h.ports[1], sizeof(h.ports[1]), "H2");
	learnt(&no_h2_drawer2, "H2", 2);
	learnt(&no_h1, "H1", 1);
	learnt(&no_h1, "H1", 2);
	ck_assert_str_eq(falcond_port_for(&h, 1, NULL), "H1");
	ck_assert_str_eq(falcond_port_for(&h, 2, NULL), "H2");
	ck_assert_str_eq(falcond_port_for(&h, 2, &no_h2_drawer2), "H1");
	ck_assert_str_eq(falcond_port_for(&h, 1, &no_h2_drawer2), "H1");
	h.nports = 1;
	ck_assert_str_eq(falcond_port_for(&h, 2, NULL), "H1");
	ck_assert_ptr_null(falcond_port_for(&h, 2, &no_h1));
}
END_TEST

/* The service's cabling (a zone's InvolvedSwitches) once known is the
 * whole truth: a port reaches exactly the drawers listed for it, and what
 * was learnt by refusal no longer counts. */
START_TEST(reach_known)
{
	static const struct falcon_cable cables[] = { { "H1", 1 }, { "H2", 2 }, { "H3", 1 } };
	struct falcon_host_conf h = { .nports = 2 };
	struct falcond_reach r = { 0 };

	snprintf(h.ports[0], sizeof(h.ports[0]), "H2");
	snprintf(h.ports[1], sizeof(h.ports[1]), "H1");
	learnt(&r, "H1", 2);
	falcond_reach_cabling(&r, cables, ARRAY_SIZE(cables));
	ck_assert(!falcond_reach_no(&r, "H1", 1));
	ck_assert(falcond_reach_no(&r, "H1", 2));
	ck_assert(!falcond_reach_no(&r, "H2", 2));
	ck_assert(falcond_reach_no(&r, "H2", 1));
	ck_assert(falcond_reach_no(&r, "H4", 1)); /* a port it does not list: none */
	/* Port=H2,H1: drawer 1 would start at H2; the cabling says H1 */
	ck_assert_str_eq(falcond_port_for(&h, 1, &r), "H1");
	ck_assert_str_eq(falcond_port_for(&h, 2, &r), "H2");
	h.nports = 1;
	ck_assert_ptr_null(falcond_port_for(&h, 1, &r)); /* H2 alone: not drawer 1 */
}
END_TEST

/* A refusal teaches "not cabled" only while the device is still free (a
 * device someone took is no news about the cabling); learnt twice is one
 * entry; it expires after FALCOND_NOREACH_MS. */
static const struct {
	const char *owner;  /* the device's owner in the read after the refusal */
	bool in_read;       /* the device is in that read at all */
	bool learnt;
} refusals[] = {
	{ "", true, true },
	{ "H2", true, false },
	{ "", false, false },
};

START_TEST(place_refused)
{
	struct falcond_reach r = { 0 };
	struct falcon_device d = { .drawer = 2 };
	struct falcon_inventory now = { .n = refusals[_i].in_read ? 1 : 0, .devs = &d };
	struct falcon_lease_dev ld = { .drawer = 2 };

	snprintf(d.id, sizeof(d.id), "drawer2_slot3");
	snprintf(d.owner, sizeof(d.owner), "%s", refusals[_i].owner);
	snprintf(ld.id, sizeof(ld.id), "drawer2_slot3");
	snprintf(ld.port, sizeof(ld.port), "H1");
	ck_assert_int_eq(falcond_place_refused(&r, "c1", &now, &ld), refusals[_i].learnt);
	ck_assert_int_eq(falcond_reach_no(&r, "H1", 2), refusals[_i].learnt);
	ck_assert(!falcond_reach_no(&r, "H1", 1));
	ck_assert(!falcond_reach_no(&r, "H2", 2));
	falcond_place_refused(&r, "c1", &now, &ld);
	ck_assert_uint_eq(r.n, refusals[_i].learnt ? 1 : 0);
	if (r.n) {
		r.no[0].until_ms = falcon_now_ms() - 1; /* held FALCOND_NOREACH_MS, then probed */
		ck_assert(!falcond_reach_no(&r, "H1", 2));
	}
}
END_TEST

/* What placement sees: each device's holder (its lease's host, else the
 * host cabled to the port the chassis has it on, else "(unknown host)"),
 * quarantine, and whether the host can reach it. */
START_TEST(place_slots)
{
	struct falcond_ledger lg = { 0 };
	struct falcon_conf conf = { 0 };
	struct falcon_host_conf hosts[2] = { { .nports = 1 }, { .nports = 1 } };
	struct falcon_lease l = mk_lease(1, "n2", 1); /* drawer1_slot2 on H1 */
	struct falcon_device devs[4] = { { .drawer = 1 }, { .drawer = 1 }, { .drawer = 2 },
					 { .drawer = 2 } };
	struct falcon_inventory seen = { .n = 4, .devs = devs };
	struct falcond_quarantine q = { 0 };
	struct falcond_reach r = { 0 };
	struct falcond_slot *got = NULL;
	static const struct {
		const char *holder;
		bool quarantined, unreachable;
	} want[4] = {
		{ NULL, false, false },          /* free */
		{ "n2", false, false },          /* leased to n2 */
		{ "n2", false, true },           /* on n2's port H2, no lease; drawer 2 not cabled */
		{ "(unknown host)", true, true },/* on a port no host has; quarantined */
	};
	size_t i;

	snprintf(hosts[0].name, sizeof(hosts[0].name), "n1");
	snprintf(hosts[1].name, sizeof(hosts[1].name), "n2");
	snprintf(hosts[0].chassis, sizeof(hosts[0].chassis), "c1");
	snprintf(hosts[1].chassis, sizeof(hosts[1].chassis), "c1");
	snprintf(hosts[0].ports[0], sizeof(hosts[0].ports[0]), "H1");
	snprintf(hosts[1].ports[0], sizeof(hosts[1].ports[0]), "H2");
	conf.hosts = hosts;
	conf.nhosts = 2;
	for (i = 0; i < 4; i++)
		snprintf(devs[i].id, sizeof(devs[i].id), "drawer%d_slot%zu", devs[i].drawer, i + 1);
	snprintf(devs[2].owner, sizeof(devs[2].owner), "H2");
	snprintf(devs[3].owner, sizeof(devs[3].owner), "H9");
	snprintf(l.devs[0].id, sizeof(l.devs[0].id), "drawer1_slot2");
	lg.leases = &l;
	lg.nleases = 1;
	snprintf(q.chassis, sizeof(q.chassis), "c1");
	snprintf(q.device, sizeof(q.device), "drawer2_slot4");
	lg.quar = &q;
	lg.nquar = 1;
	learnt(&r, "H1", 2);
	ck_assert_int_eq(falcond_place_slots(&lg, &conf, "c1", &hosts[0], &r, &seen, &got),
			 FALCON_OK);
	for (i = 0; i < 4; i++) {
		ck_assert_ptr_eq(got[i].dev, &devs[i]);
		if (want[i].holder == NULL)
			ck_assert_ptr_null(got[i].holder);
		else
			ck_assert_str_eq(got[i].holder, want[i].holder);
		ck_assert_int_eq(got[i].quarantined, want[i].quarantined);
		ck_assert_int_eq(got[i].unreachable, want[i].unreachable);
	}
	free(got);
}
END_TEST

/* ------------------------------------------------------------ ledger log */

/* ledger_str - lg in the snapshot's form (a new string). */
static char *ledger_str(const struct falcond_ledger *lg)
{
	json_object *o = falcond_ledger_json(lg);
	char *s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));

	json_object_put(o);
	return s;
}

/* same_as_loaded - lg equals what falcond_ledger_load(dir) reads. */
static void same_as_loaded(const char *dir, const struct falcond_ledger *lg)
{
	struct falcond_ledger *back = NULL;
	char *a, *b;

	ck_assert_msg(falcond_ledger_load(dir, &back) == FALCON_OK, "%s", falcon_errmsg());
	a = ledger_str(lg);
	b = ledger_str(back);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	falcond_ledger_free(back);
}

/* file_text - the whole file dir/name (a new string; "" when absent). */
static char *file_text(const char *dir, const char *name)
{
	char path[4200], *buf = NULL;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (falcon_read_file(path, FALCOND_LEDGER_MAX, &buf, NULL) != FALCON_OK)
		return strdup("");
	return buf;
}

static void put_file(const char *dir, const char *name, const char *text)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ck_assert_int_eq(falcon_write_file_atomic(path, text, strlen(text), 0600), FALCON_OK);
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* a ledger of three saves: L-1 (2 devices) and L-2, a release, a quarantine */
static struct falcond_ledger *three_saves(const char *dir)
{
	struct falcond_ledger *lg = NULL;
	struct falcon_lease l1 = mk_lease(1, "n1", 2), l2 = mk_lease(2, "n2", 1);

	ck_assert_int_eq(falcond_ledger_load(dir, &lg), FALCON_OK);
	lg->seq = 2;
	ck_assert_int_eq(falcond_ledger_add_lease(lg, &l1), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_record_attach(lg, &l1, &l1.devs[0]), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_record_attach(lg, &l1, &l1.devs[1]), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_save(lg), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_add_lease(lg, &l2), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_record_attach(lg, &l2, &l2.devs[0]), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_save(lg), FALCON_OK);
	falcond_ledger_record_release(lg, l1.id, &l1.devs[1], "released");
	falcond_ledger_remove_lease(lg, l1.id);
	ck_assert_int_eq(falcond_ledger_quarantine(lg, "c1", "drawer1_slot2", "detach failed"),
			 FALCON_OK);
	/* changed in place: the text kept from the last line is not reused */
	snprintf(falcond_ledger_lease(lg, l2.id)->state, sizeof(l2.state), "closing");
	ck_assert_int_eq(falcond_ledger_save(lg), FALCON_OK);
	return lg;
}

/*
 * A commit appends one line to ledger.log (the snapshot is not written)
 * that carries the head and only the device histories changed since the
 * last line; loading replays them to the ledger as it was.
 */
START_TEST(log_append_replay)
{
	const char *dir = make_tmpdir("log");
	struct falcond_ledger *lg = three_saves(dir);
	char *log = file_text(dir, FALCOND_LEDGER_LOG), *snap = file_text(dir, FALCOND_LEDGER_FILE);
	char *third = strchr(strchr(log, '\n') + 1, '\n') + 1;
	json_object *o = json_tokener_parse(third), *d;

	ck_assert_str_eq(snap, "");
	ck_assert_uint_eq(count_lines(log), 3);
	ck_assert_uint_eq(lg->log_bytes, strlen(log));
	/* the third line: the released device only, the whole head */
	ck_assert_ptr_nonnull(o);
	ck_assert(json_object_object_get_ex(o, "devices", &d));
	ck_assert_uint_eq(json_object_array_length(d), 1);
	ck_assert_int_eq(json_object_get_int64(json_object_object_get(o, "gen")), 3);
	ck_assert_ptr_nonnull(strstr(third, "\"state\":\"closing\""));
	ck_assert(json_object_object_get_ex(o, "quarantine", &d));
	ck_assert_uint_eq(json_object_array_length(d), 1);
	same_as_loaded(dir, lg);
	json_object_put(o);
	free(log);
	free(snap);
	falcond_ledger_free(lg);
}
END_TEST

/*
 * A crash in the middle of an append leaves a last line without its
 * newline: it is cut off (the commit was never acknowledged), and the next
 * write is a compaction that leaves it behind.
 */
START_TEST(log_torn_tail)
{
	const char *dir = make_tmpdir("torn");
	struct falcond_ledger *lg = three_saves(dir), *back = NULL;
	char *log = file_text(dir, FALCOND_LEDGER_LOG), *torn, *after;

	ck_assert_int_ge(asprintf(&torn, "%s{\"version\":2,\"gen\":4,\"seq\":9,\"lea", log), 0);
	put_file(dir, FALCOND_LEDGER_LOG, torn);
	same_as_loaded(dir, lg);
	ck_assert_int_eq(falcond_ledger_load(dir, &back), FALCON_OK);
	ck_assert(!back->log_ok);
	ck_assert_uint_eq(back->log_bytes, strlen(log));
	ck_assert_int_eq(falcond_ledger_save(back), FALCON_OK); /* a compaction */
	after = file_text(dir, FALCOND_LEDGER_LOG);
	ck_assert_str_eq(after, "");
	same_as_loaded(dir, back); /* lg's state at the next gen */
	free(after);
	free(torn);
	free(log);
	falcond_ledger_free(back);
	falcond_ledger_free(lg);
}
END_TEST

/* A whole line that does not parse is an error that names the file and
 * the line: falcond refuses to start rather than drop what follows. */
static const char *const bad_lines[] = {
	"not json",
	"{\"gen\":2}",
	"[1]",
	"{\"version\":2,\"gen\":2,\"seq\":1,\"leases\":[],\"quarantine\":[],\"devices\":[]} x",
};

START_TEST(log_corrupt_line)
{
	const char *dir = make_tmpdir("badline");
	struct falcond_ledger *lg = three_saves(dir), *back = NULL;
	char *log = file_text(dir, FALCOND_LEDGER_LOG), *bad, *nl = strchr(log, '\n');
	char want[4300];

	*nl = '\0';
	ck_assert_int_ge(asprintf(&bad, "%s\n%s\n%s", log, bad_lines[_i], nl + 1), 0);
	put_file(dir, FALCOND_LEDGER_LOG, bad);
	ck_assert_int_eq(falcond_ledger_load(dir, &back), FALCON_ERR_PARSE);
	ck_assert_ptr_null(back);
	snprintf(want, sizeof(want), "%s/" FALCOND_LEDGER_LOG ":2: corrupted ledger log", dir);
	ck_assert_msg(strstr(falcon_errmsg(), want) != NULL, "'%s' lacks '%s'", falcon_errmsg(),
		      want);
	free(bad);
	free(log);
	falcond_ledger_free(lg);
}
END_TEST

/*
 * Compaction: the snapshot (with its gen), then an empty log.  A crash
 * between the two leaves the old log beside the new snapshot: its records
 * are not above the snapshot's gen and are skipped, and records appended
 * after it are replayed.
 */
START_TEST(log_compaction)
{
	const char *dir = make_tmpdir("compact");
	struct falcond_ledger *lg = three_saves(dir);
	char *old = file_text(dir, FALCOND_LEDGER_LOG), *log, *snap;
	struct falcon_lease l3 = mk_lease(3, "n3", 1);

	ck_assert_int_eq(falcond_ledger_compact(lg), FALCON_OK);
	log = file_text(dir, FALCOND_LEDGER_LOG);
	snap = file_text(dir, FALCOND_LEDGER_FILE);
	ck_assert_str_eq(log, "");
	ck_assert_ptr_nonnull(strstr(snap, "\"gen\":4"));
	ck_assert_uint_eq(lg->log_bytes, 0);
	ck_assert(lg->log_ok);
	same_as_loaded(dir, lg);
	/* the crash: the old log is still there */
	put_file(dir, FALCOND_LEDGER_LOG, old);
	same_as_loaded(dir, lg);
	/* what is appended after it replays */
	lg->log_bytes = strlen(old);
	lg->seq = 3;
	ck_assert_int_eq(falcond_ledger_add_lease(lg, &l3), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_save(lg), FALCON_OK);
	free(log);
	log = file_text(dir, FALCOND_LEDGER_LOG);
	ck_assert_uint_eq(count_lines(log), 4);
	same_as_loaded(dir, lg);
	/* a log past FALCOND_LOG_COMPACT (and 4x the snapshot) is compacted */
	lg->log_bytes = FALCOND_LOG_COMPACT;
	falcond_ledger_remove_lease(lg, l3.id);
	ck_assert_int_eq(falcond_ledger_save(lg), FALCON_OK);
	free(log);
	log = file_text(dir, FALCOND_LEDGER_LOG);
	ck_assert_str_eq(log, "");
	same_as_loaded(dir, lg);
	free(log);
	free(snap);
	free(old);
	falcond_ledger_free(lg);
}
END_TEST

/* the writer of log_read_while_compacting: commits (seq up by one each),
 * every third a compaction, until told to stop; the last seq committed */
static struct {
	const char *dir;
	unsigned long long committed;
	int stop;
} rw;

static void *rw_writer(void *arg)
{
	struct falcond_ledger *lg = NULL;
	unsigned long long n = 0;

	(void)arg;
	if (falcond_ledger_load(rw.dir, &lg) != FALCON_OK)
		return NULL;
	/* a fleet's worth of leases: a read takes as long as a real one */
	for (n = 1; n <= 400; n++) {
		struct falcon_lease l = mk_lease(n, "n1", 1);

		snprintf(l.devs[0].chassis, sizeof(l.devs[0].chassis), "c%llu", n);
		if (falcond_ledger_add_lease(lg, &l) != FALCON_OK)
			return NULL;
	}
	lg->seq = 400;
	n = 0;
	while (!__atomic_load_n(&rw.stop, __ATOMIC_ACQUIRE)) {
		lg->seq++;
		if ((++n % 3 == 0 ? falcond_ledger_compact(lg) : falcond_ledger_save(lg)) != FALCON_OK)
			break;
		__atomic_store_n(&rw.committed, lg->seq, __ATOMIC_RELEASE);
	}
	falcond_ledger_free(lg);
	return NULL;
}

/*
 * A reader beside a live falcond (falcond --dump-ledger) sees every commit
 * made before it began, while compactions replace the snapshot and empty
 * the log: before falcond_ledger_load read a replaced snapshot again, the
 * old snapshot with the new, empty log lost the commits between the two
 * (make soak-fleet's job checks: "lease holds 0 devices" for running
 * jobs).  A race, so many reads for 10 s at most: without the fix (the
 * snapshot read before the log) one of them failed in 7 of 7 runs on 2
 * cores; with it in none.
 */
START_TEST(log_read_while_compacting)
{
	struct falcond_ledger *back;
	unsigned long long before;
	pthread_t t;
	int i, stale = 0;
	long long end;

	rw.dir = make_tmpdir("rw");
	rw.committed = 0;
	rw.stop = 0;
	ck_assert_int_eq(pthread_create(&t, NULL, rw_writer, NULL), 0);
	/* its first commit (400 leases) first: a busy machine may start the
	 * writer late (make distcheck) */
	end = falcon_now_ms() + 30000;
	while (__atomic_load_n(&rw.committed, __ATOMIC_ACQUIRE) == 0 && falcon_now_ms() < end)
		usleep(10000);
	end = falcon_now_ms() + 10000;
	for (i = 0; i < 10000 && !stale && falcon_now_ms() < end; i++) {
		before = __atomic_load_n(&rw.committed, __ATOMIC_ACQUIRE);
		back = NULL;
		ck_assert_msg(falcond_ledger_load(rw.dir, &back) == FALCON_OK, "%s",
			      falcon_errmsg());
		stale = back->seq < before;
		if (stale)
			fprintf(stderr, "read %d: seq %llu, %llu committed before the read\n", i,
				(unsigned long long)back->seq, before);
		falcond_ledger_free(back);
	}
	__atomic_store_n(&rw.stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	ck_assert_msg(!stale, "a read lost commits made before it began");
	ck_assert_uint_gt(__atomic_load_n(&rw.committed, __ATOMIC_ACQUIRE), 3);
}
END_TEST

/* A failed append (the log is a directory) fails the commit and changes
 * nothing on disk; the next write is a snapshot. */
START_TEST(log_write_fails)
{
	const char *dir = make_tmpdir("logfail");
	struct falcond_ledger *lg = three_saves(dir), *before = NULL;
	char path[4200], saved[4300];

	ck_assert_int_eq(falcond_ledger_load(dir, &before), FALCON_OK);
	snprintf(path, sizeof(path), "%s/" FALCOND_LEDGER_LOG, dir);
	snprintf(saved, sizeof(saved), "%s.saved", path);
	ck_assert_int_eq(rename(path, saved), 0);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_eq(falcond_ledger_unquarantine(lg, "c1", "drawer1_slot2"), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_save(lg), FALCON_ERR_IO);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), path));
	ck_assert(!lg->log_ok);
	ck_assert_int_eq(rmdir(path), 0);
	ck_assert_int_eq(rename(saved, path), 0);
	same_as_loaded(dir, before);
	ck_assert_int_eq(falcond_ledger_save(lg), FALCON_OK); /* a snapshot */
	ck_assert(lg->log_ok);
	same_as_loaded(dir, lg);
	falcond_ledger_free(before);
	falcond_ledger_free(lg);
}
END_TEST

/* ------------------------------------------------------------ keep warm */

/* keep_conf - a falcon.conf with KeepWarm=gpu_keep on partition gpu
 * (other: off), KeepWarmReset= when reset; *c (free with falcon_conf_free). */
static void keep_conf(struct falcon_conf **c, int gpu_keep, bool reset)
{
	char text[600];

	snprintf(text, sizeof(text),
		 "%sChassisName=c1 Url=http://127.0.0.1:1/\n"
		 "HostName=n1 Chassis=c1 Port=H1,H2 Adapter=0000:3b:00.0,0000:af:00.0\n"
		 "PartitionName=gpu KeepWarm=%d\nPartitionName=other\n",
		 reset ? "KeepWarmReset=/usr/sbin/falcon-keepwarm-reset\n" : "", gpu_keep);
	ck_assert_int_eq(falcon_conf_parse("keep.conf", text, c), FALCON_OK);
}

/* kept_lease - lease n on host, uid, partition gpu, ngpu GPUs and nnvme NVMe. */
static struct falcon_lease kept_lease(unsigned long long n, const char *host, long uid, int ngpu,
				      int nnvme)
{
	struct falcon_lease l = mk_lease(n, host, ngpu + nnvme);
	size_t i;

	l.uid = uid;
	snprintf(l.partition, sizeof(l.partition), "gpu");
	for (i = 0; i < l.ndevs; i++) {
		l.devs[i].type = (int)i < ngpu ? FALCON_DEV_GPU : FALCON_DEV_NVME;
		snprintf(l.devs[i].id, sizeof(l.devs[i].id), "drawer1_slot%llu", n * 8 + i + 1);
	}
	return l;
}

/* keep_for: the waiting job a keep would serve, in the order Slurm serves
 * them (issue 41: keep only where a waiting job can use it) */
START_TEST(keep_for)
{
	struct falcond_ledger *lg = NULL;
	struct falcon_lease l = kept_lease(1, "n1", 1000, 2, 0), nv = kept_lease(2, "n1", 1000, 0, 1);
	struct falcon_lease held = kept_lease(3, "n1", 1000, 2, 0);
	struct falcond_keep_waiter w[] = {
		{ .job_id = 30, .uid = 1000, .priority = 100, .gpus = 2 },
		{ .job_id = 20, .uid = 2000, .priority = 100, .gpus = 4 },
		{ .job_id = 40, .uid = 1000, .priority = 90, .gpus = 1 },
	};
	const char *why = NULL;

	ck_assert_int_eq(falcond_ledger_load(make_tmpdir("keepf"), &lg), FALCON_OK);
	/* none waits: not kept, and said why */
	ck_assert_ptr_null(falcond_keep_for(lg, &l, w, 0, false, NULL, &why));
	ck_assert_ptr_nonnull(strstr(why, "no job waits"));
	/* another user's job alone: not for it without KeepWarmReset= */
	ck_assert_ptr_null(falcond_keep_for(lg, &l, &w[1], 1, false, NULL, &why));
	ck_assert_ptr_nonnull(strstr(why, "no job of its user"));
	ck_assert_uint_eq(falcond_keep_for(lg, &l, &w[1], 1, true, NULL, &why)->job_id, 20);
	ck_assert_ptr_null(why);
	/* another user's job ahead in line does not stop the keep: the same
	 * user's job 30 (same priority, submitted after) uses it */
	ck_assert_uint_eq(falcond_keep_for(lg, &l, w, 3, false, NULL, NULL)->job_id, 30);
	/* any user with KeepWarmReset=: Slurm's order, the lower id first */
	ck_assert_uint_eq(falcond_keep_for(lg, &l, w, 3, true, NULL, NULL)->job_id, 20);
	/* a higher priority first */
	w[0].priority = 200;
	ck_assert_uint_eq(falcond_keep_for(lg, &l, w, 3, true, NULL, NULL)->job_id, 30);
	/* a configuring job (PrologSlurmctld composing) before any pending */
	w[2].configuring = true;
	ck_assert_uint_eq(falcond_keep_for(lg, &l, w, 3, false, NULL, NULL)->job_id, 40);
	/* ... unless it holds a lease already: composed, it waits no more */
	held.job_id = 40;
	ck_assert_int_eq(falcond_ledger_add_lease(lg, &held), FALCON_OK);
	ck_assert_uint_eq(falcond_keep_for(lg, &l, w, 3, false, NULL, NULL)->job_id, 30);
	/* a job of more GPUs than kept still uses them (the rest attached) */
	w[0].gpus = 8;
	ck_assert(falcond_keep_useful(&l, &w[0], false, NULL));
	/* a kept NVMe serves a job asking an NVMe, not one asking GPUs only */
	ck_assert_ptr_null(falcond_keep_for(lg, &nv, w, 1, false, NULL, &why));
	ck_assert_ptr_nonnull(strstr(why, "of the kind kept"));
	w[0].nvme = 1;
	ck_assert(falcond_keep_useful(&nv, &w[0], false, NULL));
	/* an unknown uid is nobody's */
	w[0].uid = -1;
	ck_assert(!falcond_keep_useful(&l, &w[0], false, NULL));
	falcond_ledger_free(lg);
}
END_TEST

/* keep_for_release: a keep is not kept when the waiting jobs it does not
 * serve ask more than the chassis has free: Slurm may start any of them,
 * whose compose would release the keep within its budget (make
 * bench-warm's mixed trace at 20 s per PATCH: another user's job released
 * root's keep behind other PATCHes on the port, 31.8 s, and was told to
 * try again: p95 time-to-start 52.4 s against 40.1 s off) */
START_TEST(keep_for_release)
{
	struct falcond_ledger *lg = NULL;
	struct falcon_lease l = kept_lease(1, "n1", 0, 4, 0), held = kept_lease(3, "n1", 0, 2, 0);
	struct falcond_keep_waiter w[] = { /* the trace's jobs as root's 13 and 14 end */
		{ .job_id = 15, .uid = 0, .priority = 100, .gpus = 2 },
		{ .job_id = 16, .uid = 65534, .priority = 99, .gpus = 2 },
		{ .job_id = 17, .uid = 0, .priority = 98, .nvme = 1 },
		{ .job_id = 18, .uid = 0, .priority = 97, .gpus = 8 },
		{ .job_id = 20, .uid = 65534, .priority = 95, .gpus = 4 },
	};
	struct falcond_keep_pool pool = { .free_gpus = 0, .free_nvme = 1 };
	const char *why = NULL;

	ck_assert_int_eq(falcond_ledger_load(make_tmpdir("keepr"), &lg), FALCON_OK);
	/* no GPU free: another user's 16 and 20 ask 6 */
	ck_assert_ptr_null(falcond_keep_for(lg, &l, w, 5, false, &pool, &why));
	ck_assert_ptr_nonnull(strstr(why, "would release it"));
	/* the pool not known (no inventory read yet): not judged, kept */
	ck_assert_uint_eq(falcond_keep_for(lg, &l, w, 5, false, NULL, NULL)->job_id, 15);
	/* 4 free (another keep being released) are not 6 */
	pool.free_gpus = 4;
	ck_assert_ptr_null(falcond_keep_for(lg, &l, w, 5, false, &pool, NULL));
	/* 6 are: kept for 15, the first of root's */
	pool.free_gpus = 6;
	ck_assert_uint_eq(falcond_keep_for(lg, &l, w, 5, false, &pool, &why)->job_id, 15);
	ck_assert_ptr_null(why);
	/* a job composed already waits no more: 16 holds a lease, 20's 4 fit */
	pool.free_gpus = 4;
	held.job_id = 16;
	ck_assert_int_eq(falcond_ledger_add_lease(lg, &held), FALCON_OK);
	ck_assert_uint_eq(falcond_keep_for(lg, &l, w, 5, false, &pool, NULL)->job_id, 15);
	/* the keep serves the other user's jobs too (KeepWarmReset=): nothing
	 * it does not serve waits */
	pool.free_gpus = 0;
	ck_assert_uint_eq(falcond_keep_for(lg, &l, w, 5, true, &pool, NULL)->job_id, 15);
	/* another user's job asking a kind the keep does not hold: its
	 * shortage releases another keep, not this one */
	w[4].gpus = 0;
	w[4].nvme = 1;
	pool.free_nvme = 0;
	ck_assert_uint_eq(falcond_keep_for(lg, &l, w, 5, false, &pool, NULL)->job_id, 15);
	/* ... one holding an NVMe is released for it */
	l.devs[3].type = FALCON_DEV_NVME;
	ck_assert_ptr_null(falcond_keep_for(lg, &l, w, 5, false, &pool, NULL));
	falcond_ledger_free(lg);
}
END_TEST

/* keep_pool: what a compose on the keep's host finds free: free or being
 * released, reachable, usable; kept ones not */
START_TEST(keep_pool)
{
	struct falcond_ledger *lg = NULL;
	struct falcon_lease l = kept_lease(1, "n1", 0, 1, 0), other = kept_lease(2, "n1", 0, 1, 0);
	struct falcon_lease closing = kept_lease(3, "n2", 0, 1, 0);
	struct falcon_host_conf h = { .name = "n1", .chassis = "c1", .nports = 1, .ports = { "H1" } };
	struct falcond_reach r = { .known = true, .ncables = 1, .cables = { { "H1", 1 } } };
	struct falcon_device devs[9];
	struct falcon_inventory seen = { .n = 9, .devs = devs };
	struct falcond_keep_pool pool;
	size_t i;

	ck_assert_int_eq(falcond_ledger_load(make_tmpdir("keepp"), &lg), FALCON_OK);
	memset(devs, 0, sizeof(devs));
	for (i = 0; i < 9; i++) {
		snprintf(devs[i].id, sizeof(devs[i].id), "free%zu", i);
		devs[i].drawer = 1;
		devs[i].type = FALCON_DEV_GPU;
		snprintf(devs[i].health, sizeof(devs[i].health), "OK");
		snprintf(devs[i].state, sizeof(devs[i].state), "Enabled");
	}
	snprintf(devs[1].id, sizeof(devs[1].id), "%s", l.devs[0].id);         /* the keep */
	snprintf(devs[1].owner, sizeof(devs[1].owner), "H1");
	snprintf(devs[2].id, sizeof(devs[2].id), "%s", other.devs[0].id);     /* another keep */
	snprintf(devs[2].owner, sizeof(devs[2].owner), "H1");
	snprintf(devs[3].id, sizeof(devs[3].id), "%s", closing.devs[0].id);   /* being released */
	snprintf(devs[3].owner, sizeof(devs[3].owner), "H3");
	snprintf(devs[4].owner, sizeof(devs[4].owner), "H3");                 /* no lease's */
	snprintf(devs[5].health, sizeof(devs[5].health), "Critical");
	snprintf(devs[6].state, sizeof(devs[6].state), "Absent");
	devs[7].drawer = 2;                                                   /* not cabled */
	devs[8].type = FALCON_DEV_NVME;
	snprintf(l.state, sizeof(l.state), "active");
	snprintf(closing.state, sizeof(closing.state), "closing");
	snprintf(other.state, sizeof(other.state), "kept");
	ck_assert_int_eq(falcond_ledger_add_lease(lg, &l), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_add_lease(lg, &other), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_add_lease(lg, &closing), FALCON_OK);
	falcond_keep_pool(lg, &l, &h, &r, &seen, &pool);
	ck_assert_int_eq(pool.free_gpus, 2); /* free0, the one being released */
	ck_assert_int_eq(pool.free_nvme, 1);
	/* quarantined: not free */
	ck_assert_int_eq(falcond_ledger_quarantine(lg, "c1", "free0", "test"), FALCON_OK);
	falcond_keep_pool(lg, &l, &h, &r, &seen, &pool);
	ck_assert_int_eq(pool.free_gpus, 1);
	/* the cabling not known: drawer 2 is reachable */
	falcond_keep_pool(lg, &l, &h, NULL, &seen, &pool);
	ck_assert_int_eq(pool.free_gpus, 2);
	falcond_ledger_free(lg);
}
END_TEST

START_TEST(keep_wanted)
{
	struct falcon_conf *c = NULL;
	struct falcond_ledger *lg = NULL;
	struct falcon_lease l = kept_lease(1, "n1", 1000, 2, 0), other = l;
	struct falcon_decompose_req r = { .keep = true };

	keep_conf(&c, 600, false);
	ck_assert_int_eq(falcond_ledger_load(make_tmpdir("keepw"), &lg), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_add_lease(lg, &l), FALCON_OK);
	ck_assert(falcond_keep_wanted(lg, c, &l, &r));
	/* the epilog did not ask (a device held, a stuck one) */
	r.keep = false;
	ck_assert(!falcond_keep_wanted(lg, c, &l, &r));
	r.keep = true;
	/* a failed, warned or broken check goes back to the chassis */
	snprintf(r.check, sizeof(r.check), "falcon:topo=falconGPUs,f=2,check=fail,busbw=3.1");
	ck_assert(!falcond_keep_wanted(lg, c, &l, &r));
	snprintf(r.check, sizeof(r.check), "falcon:topo=falconGPUs,f=2,check=warn");
	ck_assert(!falcond_keep_wanted(lg, c, &l, &r));
	snprintf(r.check, sizeof(r.check), "falcon:topo=falconGPUs,f=2,check=error");
	ck_assert(!falcond_keep_wanted(lg, c, &l, &r));
	snprintf(r.check, sizeof(r.check), "falcon:topo=falconGPUs,f=2,check=pass,busbw=20.1");
	ck_assert(falcond_keep_wanted(lg, c, &l, &r));
	/* a partition without KeepWarm= */
	snprintf(other.partition, sizeof(other.partition), "other");
	ck_assert(!falcond_keep_wanted(lg, c, &other, &r));
	/* a quarantined device */
	ck_assert_int_eq(falcond_ledger_quarantine(lg, "c1", l.devs[1].id, "test"), FALCON_OK);
	ck_assert(!falcond_keep_wanted(lg, c, &l, &r));
	falcond_ledger_free(lg);
	falcon_conf_free(c);
}
END_TEST

START_TEST(keep_find_take)
{
	struct falcon_conf *c = NULL;
	struct falcond_ledger *lg = NULL;
	struct falcon_lease a = kept_lease(1, "n1", 1000, 4, 1), b = kept_lease(2, "n1", 2000, 2, 0);
	struct falcon_lease out, *k;
	struct falcon_compose_req r = { .job_id = 77, .gpus = 2, .uid = 1000 };
	unsigned long long idle = 0;
	long long t0 = 1800000000000LL;

	keep_conf(&c, 600, false);
	snprintf(r.host, sizeof(r.host), "n1");
	snprintf(r.partition, sizeof(r.partition), "gpu");
	ck_assert_int_eq(falcond_ledger_load(make_tmpdir("keepf"), &lg), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_add_lease(lg, &a), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_add_lease(lg, &b), FALCON_OK);
	/* active leases are no keep */
	ck_assert_ptr_null(falcond_keep_find(lg, c, &r, "n1", true, t0));
	ck_assert_int_eq(falcond_keep_begin(lg, falcond_ledger_lease(lg, "L-2"), t0 - 2000),
			 FALCON_OK);
	ck_assert_int_eq(falcond_keep_begin(lg, falcond_ledger_lease(lg, "L-1"), t0 - 1000),
			 FALCON_OK);
	ck_assert_int_eq(falcond_keep_deadline(c, falcond_ledger_lease(lg, "L-1")), t0 + 599000);
	ck_assert_int_eq(falcond_keep_next(lg, c, 0), t0 + 598000);
	ck_assert_int_eq(falcond_keep_next(lg, c, t0 + 598000), t0 + 599000);
	/* the same user's, though another user's is older */
	k = falcond_keep_find(lg, c, &r, "n1", true, t0);
	ck_assert_ptr_nonnull(k);
	ck_assert_str_eq(k->id, "L-1");
	/* not on another host, not more than it holds, not past the deadline */
	ck_assert_ptr_null(falcond_keep_find(lg, c, &r, "n2", true, t0));
	r.gpus = 5;
	ck_assert_ptr_null(falcond_keep_find(lg, c, &r, "n1", true, t0));
	r.gpus = 2;
	ck_assert_ptr_null(falcond_keep_find(lg, c, &r, "n1", true, t0 + 600000));
	/* another user: only with a reset, and then the oldest */
	r.uid = 3000;
	ck_assert_ptr_null(falcond_keep_find(lg, c, &r, "n1", false, t0));
	k = falcond_keep_find(lg, c, &r, "n1", true, t0);
	ck_assert_str_eq(k->id, "L-2");
	/* 2 GPUs and the NVMe of L-1: a new lease, L-1 keeps 2 GPUs */
	r.uid = 1000;
	r.nvme = 1;
	k = falcond_keep_find(lg, c, &r, "n1", false, t0);
	ck_assert_int_eq(falcond_keep_take(lg, k, &r, t0, &out, &idle), FALCON_OK);
	ck_assert_str_eq(out.id, "L-3");
	ck_assert_str_eq(out.state, "active");
	ck_assert_int_eq(out.job_id, 77);
	ck_assert_int_eq(out.ndevs, 3);
	ck_assert(!out.reset);
	ck_assert_int_eq(out.kept_ms, 0);
	ck_assert_uint_eq(idle, 2 * 1000); /* 2 GPUs kept 1 s */
	k = falcond_ledger_lease(lg, "L-1");
	ck_assert_int_eq(k->ndevs, 2);
	ck_assert(falcond_lease_kept(k));
	ck_assert_uint_eq(falcond_keep_idle_ms(k, t0), 2 * 1000);
	/* another user's (with reset): all of L-2, which goes */
	r.uid = 1000;
	r.nvme = 0;
	r.job_id = 78;
	k = falcond_ledger_lease(lg, "L-2");
	ck_assert_int_eq(falcond_keep_take(lg, k, &r, t0, &out, &idle), FALCON_OK);
	ck_assert(out.reset);
	ck_assert_ptr_null(falcond_ledger_lease(lg, "L-2"));
	/* too few: nothing changes */
	r.gpus = 3;
	k = falcond_ledger_lease(lg, "L-1");
	ck_assert_int_eq(falcond_keep_take(lg, k, &r, t0, &out, &idle), FALCON_ERR_NORESOURCE);
	ck_assert_int_eq(falcond_ledger_lease(lg, "L-1")->ndevs, 2);
	/* the history: a's job closed as kept, its kept entries closed by the reuse */
	ck_assert_int_eq(lg->nleases, 3);
	/* one device at a time (a compose placing the rest around it) */
	r.uid = 1000;
	ck_assert(falcond_keep_serves(c, falcond_ledger_lease(lg, "L-1"), &r, "n1", false, t0));
	ck_assert(!falcond_keep_serves(c, falcond_ledger_lease(lg, "L-1"), &r, "n2", false, t0));
	ck_assert(!falcond_keep_serves(c, falcond_ledger_lease(lg, "L-3"), &r, "n1", true, t0));
	k = falcond_ledger_lease(lg, "L-1");
	{
		char d0[FALCON_NAME_LEN], d1[FALCON_NAME_LEN];

		snprintf(d0, sizeof(d0), "%s", k->devs[0].id);
		snprintf(d1, sizeof(d1), "%s", k->devs[1].id);
		ck_assert_int_eq(falcond_keep_give(lg, "c1", d0, 79, t0 + 1000, &idle), FALCON_OK);
		ck_assert_uint_eq(idle, 2000);
		ck_assert_int_eq(falcond_ledger_lease(lg, "L-1")->ndevs, 1);
		/* an active lease's device is no keep's */
		ck_assert_int_eq(falcond_keep_give(lg, "c1", out.devs[0].id, 79, t0, &idle),
				 FALCON_ERR_CONFLICT);
		ck_assert_int_eq(falcond_keep_give(lg, "c1", d1, 79, t0, &idle), FALCON_OK);
		ck_assert_ptr_null(falcond_ledger_lease(lg, "L-1")); /* empty: gone */
	}
	falcond_ledger_free(lg);
	falcon_conf_free(c);
}
END_TEST

/* Slurm's list of the jobs alive, read at t: a lease of a job not in it
 * has ended, unless the lease was made at or after t (a keep reused for a
 * job that started after the read: its devices were reclaimed from under
 * it, make soak-fleet). */
START_TEST(job_ended_by_list)
{
	const uint32_t alive[] = { 7, 9 };
	const long long t = 1000000;
	struct falcon_lease l;

	memset(&l, 0, sizeof(l));
	l.job_id = 7;
	l.created_ms = t - 5000;
	ck_assert(!falcond_job_ended(alive, ARRAY_SIZE(alive), t, &l));
	l.job_id = 8;
	ck_assert(falcond_job_ended(alive, ARRAY_SIZE(alive), t, &l));
	ck_assert(falcond_job_ended(NULL, 0, t, &l));
	l.created_ms = t;
	ck_assert(!falcond_job_ended(alive, ARRAY_SIZE(alive), t, &l));
	l.created_ms = t + 30000;
	ck_assert(!falcond_job_ended(NULL, 0, t, &l));
}
END_TEST

START_TEST(keep_reload_and_file)
{
	struct falcon_conf *c = NULL, *lower = NULL;
	struct falcond_ledger *lg = NULL, *back = NULL;
	struct falcon_lease a = kept_lease(1, "n1", 1000, 2, 0);
	const char *dir = make_tmpdir("keepfile");
	long long t0 = 1800000000000LL;

	keep_conf(&c, 600, false);
	keep_conf(&lower, 5, false);
	ck_assert_int_eq(falcond_ledger_load(dir, &lg), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_add_lease(lg, &a), FALCON_OK);
	ck_assert_int_eq(falcond_keep_begin(lg, falcond_ledger_lease(lg, "L-1"), t0), FALCON_OK);
	/* a reload to KeepWarm=5 ends it 5 s after it began */
	ck_assert_int_eq(falcond_keep_deadline(c, falcond_ledger_lease(lg, "L-1")), t0 + 600000);
	ck_assert_int_eq(falcond_keep_deadline(lower, falcond_ledger_lease(lg, "L-1")), t0 + 5000);
	/* through the file and back (a restart keeps the keep) */
	ck_assert_int_eq(falcond_ledger_save(lg), FALCON_OK);
	ck_assert_int_eq(falcond_ledger_load(dir, &back), FALCON_OK);
	ck_assert_int_eq(back->nleases, 1);
	ck_assert(falcond_lease_kept(&back->leases[0]));
	ck_assert_int_eq(back->leases[0].kept_ms, t0);
	falcond_ledger_free(back);
	falcond_ledger_free(lg);
	falcon_conf_free(lower);
	falcon_conf_free(c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("falcond");
	TCase *tc = tcase_create("ledger");

	tcase_add_test(tc, ledger_round_trip);
	tcase_add_test(tc, ledger_crash_safe);
	tcase_add_loop_test(tc, ledger_corrupted, 0, (int)ARRAY_SIZE(corrupted));
	tcase_add_test(tc, ledger_two_leases_one_device);
	tcase_add_test(tc, ledger_device_twice);
	tcase_add_loop_test(tc, ledger_seq_below_ids, 0, (int)ARRAY_SIZE(seqcases));
	tcase_add_test(tc, ledger_text_kept);
	tcase_add_test(tc, ledger_settle);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	tc = tcase_create("ledger log");
	tcase_add_test(tc, log_append_replay);
	tcase_add_test(tc, log_torn_tail);
	tcase_add_loop_test(tc, log_corrupt_line, 0, (int)ARRAY_SIZE(bad_lines));
	tcase_add_test(tc, log_compaction);
	tcase_add_test(tc, log_read_while_compacting);
	tcase_add_test(tc, log_write_fails);
	suite_add_tcase(s, tc);
	tc = tcase_create("placement");
	tcase_add_loop_test(tc, placement, 0, (int)ARRAY_SIZE(pcases));
	tcase_add_test(tc, placement_owner_on_chassis);
	tcase_add_test(tc, placement_refused_says_why);
	tcase_add_test(tc, placement_absent);
	tcase_add_loop_test(tc, policy, 0, (int)ARRAY_SIZE(polcases));
	tcase_add_test(tc, port_by_drawer);
	tcase_add_loop_test(tc, place_refused, 0, (int)ARRAY_SIZE(refusals));
	tcase_add_test(tc, place_slots);
	tcase_add_test(tc, reach_known);
	suite_add_tcase(s, tc);
	tc = tcase_create("keep warm");
	tcase_add_test(tc, keep_wanted);
	tcase_add_test(tc, keep_for);
	tcase_add_test(tc, keep_for_release);
	tcase_add_test(tc, keep_pool);
	tcase_add_test(tc, keep_find_take);
	tcase_add_test(tc, keep_reload_and_file);
	tcase_add_test(tc, job_ended_by_list);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
