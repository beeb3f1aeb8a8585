/*
 * test_proto.c - falcond API bodies (proto.c) and munge request binding
 * (auth.c): a table of bad bodies, each refused naming its field; the
 * payload changes with method, path and every body byte.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <string.h>

#include "testutil.h"
#include "api/auth.h"
#include "core/conf.h"
#include "api/falcond_client.h"
#include "api/proto.h"
#include "core/util.h"

struct bad {
	const char *body;
	const char *field; /* must appear in the detail */
};

static const struct bad bad_compose[] = {
	{ "", "empty" },
	{ "[]", "object" },
	{ "{", "truncated" },
	{ "{\"job_id\":1,\"host\":\"n1\",\"gpus\":1} x", "offset 34" },
	{ "{\"host\":\"n1\",\"gpus\":1}", "job_id" },
	{ "{\"job_id\":1,\"gpus\":1}", "host" },
	{ "{\"job_id\":0,\"host\":\"n1\",\"gpus\":1}", "job_id" },
	{ "{\"job_id\":-5,\"host\":\"n1\",\"gpus\":1}", "job_id" },
	{ "{\"job_id\":\"7\",\"host\":\"n1\",\"gpus\":1}", "job_id" },
	{ "{\"job_id\":1.5,\"host\":\"n1\",\"gpus\":1}", "job_id" },
	{ "{\"job_id\":99999999999,\"host\":\"n1\",\"gpus\":1}", "job_id" },
	{ "{\"job_id\":1,\"host\":\"\",\"gpus\":1}", "host" },
	{ "{\"job_id\":1,\"host\":\"n 1\",\"gpus\":1}", "host" },
	{ "{\"job_id\":1,\"host\":\"../etc\\/x\",\"gpus\":1}", "host" },
	{ "{\"job_id\":1,\"host\":7,\"gpus\":1}", "host" },
	{ "{\"job_id\":1,\"host\":\"n1\",\"gpus\":17}", "gpus" },
	{ "{\"job_id\":1,\"host\":\"n1\",\"gpus\":-1}", "gpus" },
	{ "{\"job_id\":1,\"host\":\"n1\",\"gpus\":true}", "gpus" },
	{ "{\"job_id\":1,\"host\":\"n1\",\"gpus\":0}", "at least one" },
	{ "{\"job_id\":1,\"host\":\"n1\",\"nvme\":99}", "nvme" },
	{ "{\"job_id\":1,\"host\":\"n1\",\"gpus\":1,\"place\":\"near\"}", "place" },
	{ "{\"job_id\":1,\"host\":\"n1\",\"gpus\":1,\"place\":3}", "place" },
	{ "{\"job_id\":1,\"host\":\"n1\",\"gpus\":1,\"partition\":null}", "partition" },
	{ "{\"job_id\":1,\"host\":\"n1\",\"gpus\":1,\"uid\":-2}", "uid" },
	{ "{\"job_id\":1,\"host\":\"n1\",\"gpus\":1,\"color\":\"red\"}", "color" },
	{ "{\"job_id\":1,\"host\":\"n\\u0000x\",\"gpus\":1}", "host" },
	{ "{\"a\":{\"b\":{\"c\":{\"d\":{\"e\":{\"f\":{\"g\":{\"h\":{\"i\":1}}}}}}}}}", "body" },
	/* a key twice: json-c alone keeps the last value and would accept these */
	{ "{\"job_id\":1,\"host\":\"n1\",\"gpus\":1,\"job\\u005fid\":2}", "key \"job_id\" given twice" },
	{ "{\"job_id\":1,\"host\":\"n1\",\"gpus\":1,\"x\":{\"a\":1,\"a\":2}}", "key \"a\" given twice" },
	/* strict JSON (json-c JSON_TOKENER_STRICT) */
	{ "{\"job_id\":1,\"host\":\"n1\",\"gpus\":1,}", "body" },
	{ "{\"job_id\":1,\"host\":\"n1\",/* c */\"gpus\":1}", "body" },
	{ "{'job_id':1,\"host\":\"n1\",\"gpus\":1,\"job_id\":2}", "key \"job_id\" given twice" },
	{ "{\"x\":{\"'\":1},\"job_id\":1,\"host\":\"n1\",\"gpus\":1,\"job_id\":2}", "key \"job_id\" given twice" },
	{ "{\"job_id\":1,\"host\":\"n1\",\"gpus\":1,\"job_id\":2}", "key \"job_id\" given twice" },
	{ "{\"job_id\":1,\"host\":\"n1\",\"gpus\":2,\"gpus\":2}", "key \"gpus\" given twice" },
	{ "{\"job_id\":1,\"host\":\"n1\",\"gpus\":2,\"on_node\":1}", "on_node: expected true or false" },
	{ "{\"job_id\":1,\"host\":\"n1\",\"gpus\":2,\"on_node\":\"yes\"}", "on_node" },
};

START_TEST(compose_bad)
{
	const struct bad *b = &bad_compose[_i];
	struct falcon_compose_req r;
	falcon_err_t rv = falcon_proto_parse_compose(b->body, strlen(b->body), &r);

	ck_assert_int_eq(rv, FALCON_ERR_PARSE);
	ck_assert_msg(strstr(falcon_errmsg(), b->field) != NULL, "body %s: detail '%s' lacks '%s'",
		      b->body, falcon_errmsg(), b->field);
}
END_TEST

START_TEST(compose_good)
{
	const char *body = " {\"job_id\":42,\"host\":\"node-1\",\"gpus\":4,\"nvme\":1,"
			   "\"place\":\"spread\",\"partition\":\"gpu\",\"uid\":1000,\"on_node\":true} \n";
	struct falcon_compose_req r, r2;
	json_object *o;
	const char *js;

	ck_assert_int_eq(falcon_proto_parse_compose(body, strlen(body), &r), FALCON_OK);
	ck_assert_uint_eq(r.job_id, 42);
	ck_assert_str_eq(r.host, "node-1");
	ck_assert_int_eq(r.gpus, 4);
	ck_assert_int_eq(r.nvme, 1);
	ck_assert(r.place_set);
	ck_assert_int_eq(r.place, FALCON_PLACE_SPREAD);
	ck_assert_str_eq(r.partition, "gpu");
	ck_assert_int_eq(r.uid, 1000);
	ck_assert(r.on_node);
	/* builder -> parser round trip */
	o = falcon_proto_compose_json(&r);
	js = json_object_to_json_string(o);
	ck_assert_int_eq(falcon_proto_parse_compose(js, strlen(js), &r2), FALCON_OK);
	ck_assert_mem_eq(&r, &r2, sizeof(r));
	json_object_put(o);
	/* not NUL-terminated: only len bytes count */
	ck_assert_int_eq(falcon_proto_parse_compose("{\"job_id\":1,\"host\":\"a\",\"gpus\":1}}}", 32, &r),
			 FALCON_OK);
}
END_TEST

static const struct bad bad_decompose[] = {
	{ "{}", "exactly one" },
	{ "{\"job_id\":1,\"lease\":\"L-1\"}", "exactly one" },
	{ "{\"lease\":\"\"}", "lease" },
	{ "{\"lease\":[1]}", "lease" },
	{ "{\"job\":1}", "job" },
	{ "null", "body" },
	{ "{\"job_id\":1,\"check\":5}", "check" },
	{ "{\"job_id\":1,\"check\":\"a\\tb\"}", "check" },
	{ "{\"job_id\":1,\"job_id\":1}", "key \"job_id\" given twice" },
	{ "{\"job_id\":1,\"off_node\":0}", "off_node: expected true or false" },
	{ "{\"lease\":\"L-1\",\"off_node\":true}", "off_node: expected with job_id" },
	{ "{\"job_id\":1,\"keep\":true,\"off_node\":true}", "without lease and keep" },
	{ "{\"job_id\":1,\"keep\":1}", "keep: expected true or false" },
};

/* EpilogSlurmctld's form: by job, off_node; the node epilog's: by lease */
START_TEST(decompose_off_node)
{
	const char *b = "{\"job_id\":9,\"off_node\":true}";
	struct falcon_decompose_req r;

	ck_assert_int_eq(falcon_proto_parse_decompose(b, strlen(b), &r), FALCON_OK);
	ck_assert_uint_eq(r.job_id, 9);
	ck_assert(r.off_node);
	ck_assert(!r.keep);
	b = "{\"lease\":\"L-9-1\",\"keep\":true}";
	ck_assert_int_eq(falcon_proto_parse_decompose(b, strlen(b), &r), FALCON_OK);
	ck_assert(!r.off_node);
	ck_assert(r.keep);
}
END_TEST

START_TEST(decompose_bad)
{
	const struct bad *b = &bad_decompose[_i];
	struct falcon_decompose_req r;

	ck_assert_int_eq(falcon_proto_parse_decompose(b->body, strlen(b->body), &r),
			 FALCON_ERR_PARSE);
	ck_assert_msg(strstr(falcon_errmsg(), b->field) != NULL, "%s: '%s'", b->body,
		      falcon_errmsg());
}
END_TEST

static const struct bad bad_device[] = {
	{ "{\"device\":\"drawer1_slot1\"}", "chassis" },
	{ "{\"chassis\":\"c1\"}", "device" },
	{ "{\"chassis\":\"c1\",\"device\":\"d\",\"reason\":\"a\\nb\"}", "reason" },
	{ "{\"chassis\":\"c1\",\"device\":\"d\",\"why\":\"x\"}", "why" },
	{ "{\"chassis\":\"c1\",\"device\":\"d\",\"device\":\"e\"}", "key \"device\" given twice" },
};

START_TEST(device_bad)
{
	const struct bad *b = &bad_device[_i];
	struct falcon_device_req r;

	ck_assert_int_eq(falcon_proto_parse_device(b->body, strlen(b->body), true, &r),
			 FALCON_ERR_PARSE);
	ck_assert_msg(strstr(falcon_errmsg(), b->field) != NULL, "%s: '%s'", b->body,
		      falcon_errmsg());
}
END_TEST

START_TEST(device_unquarantine_no_reason)
{
	const char *b = "{\"chassis\":\"c1\",\"device\":\"drawer1_slot2\",\"reason\":\"x\"}";
	struct falcon_device_req r;

	ck_assert_int_eq(falcon_proto_parse_device(b, strlen(b), false, &r), FALCON_ERR_PARSE);
	ck_assert_int_eq(falcon_proto_parse_device(b, strlen(b), true, &r), FALCON_OK);
	ck_assert_str_eq(r.device, "drawer1_slot2");
	ck_assert_str_eq(r.reason, "x");
}
END_TEST

START_TEST(lease_round_trip)
{
	struct falcon_lease l = { .job_id = 7, .uid = 1001, .place = FALCON_PLACE_PACK,
				  .created_ms = 1234567, .ndevs = 2 }, l2;
	json_object *o;

	strcpy(l.id, "L-7-1");
	strcpy(l.host, "n1");
	strcpy(l.state, "active");
	strcpy(l.devs[0].chassis, "c1");
	strcpy(l.devs[0].id, "drawer1_slot3");
	strcpy(l.devs[0].port, "H1");
	l.devs[0].drawer = 1;
	l.devs[0].slot = 3;
	strcpy(l.devs[0].vendor_id, "10de");
	strcpy(l.devs[0].serial, "SN 1");
	strcpy(l.devs[1].chassis, "c1");
	strcpy(l.devs[1].id, "drawer2_slot8");
	strcpy(l.devs[1].port, "H2");
	l.devs[1].type = FALCON_DEV_NVME;
	o = falcon_proto_lease_json(&l);
	ck_assert_int_eq(falcon_proto_lease_from_json(o, &l2), FALCON_OK);
	ck_assert_mem_eq(&l, &l2, sizeof(l));
	ck_assert(!json_object_object_get_ex(o, "on_node", NULL)); /* written only when set */
	json_object_put(o);
	/* a node prolog asked for it: kept through the ledger */
	l.on_node = true;
	o = falcon_proto_lease_json(&l);
	ck_assert_int_eq(falcon_proto_lease_from_json(o, &l2), FALCON_OK);
	ck_assert(l2.on_node);
	ck_assert_mem_eq(&l, &l2, sizeof(l));
	/* a field missing is named */
	json_object_object_del(json_object_array_get_idx(
		json_object_object_get(o, "devices"), 1), "port");
	ck_assert_int_eq(falcon_proto_lease_from_json(o, &l2), FALCON_ERR_PARSE);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "port"));
	json_object_put(o);
}
END_TEST

/* A lease of exactly FALCON_PROTO_MAX_DEVS devices fits; one more is refused
 * before anything is written past devs[] (the array is that long). */
START_TEST(lease_devices_bound)
{
	struct falcon_lease l = { .job_id = 7, .ndevs = FALCON_PROTO_MAX_DEVS }, l2;
	json_object *o, *a;
	size_t i;

	strcpy(l.id, "L-7");
	strcpy(l.host, "n1");
	strcpy(l.state, "active");
	for (i = 0; i < FALCON_PROTO_MAX_DEVS; i++) {
		strcpy(l.devs[i].chassis, "c1");
		snprintf(l.devs[i].id, sizeof(l.devs[i].id), "drawer%zu_slot%zu", i / 8 + 1, i % 8 + 1);
		strcpy(l.devs[i].port, "H1");
	}
	o = falcon_proto_lease_json(&l);
	ck_assert_int_eq(falcon_proto_lease_from_json(o, &l2), FALCON_OK);
	ck_assert_uint_eq(l2.ndevs, FALCON_PROTO_MAX_DEVS);
	a = json_object_object_get(o, "devices");
	json_object_array_add(a, json_object_get(json_object_array_get_idx(a, 0)));
	ck_assert_int_eq(falcon_proto_lease_from_json(o, &l2), FALCON_ERR_PARSE);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "devices"));
	json_object_put(o);
}
END_TEST

/* A device's host fields (phys_slot, bdf: falcon-prolog's) are never on
 * falcond's wire, and the ledger's lease as falcond wrote it before the
 * fields existed still parses, with them 0 and "". */
START_TEST(lease_host_fields_not_sent)
{
	static const char ledger[] =
		"{\"id\":\"L-4\",\"job_id\":104,\"uid\":1001,\"host\":\"node1\","
		"\"partition\":\"\",\"place\":\"pack\",\"state\":\"active\","
		"\"created\":1700000000000,\"devices\":[{\"chassis\":\"c1\","
		"\"id\":\"drawer2_slot5\",\"port\":\"H2\",\"drawer\":2,\"slot\":5,"
		"\"type\":\"NVMe\",\"vendor_id\":\"8086\",\"device_id\":\"0a54\","
		"\"serial\":\"SN5\"}]}";
	struct falcon_lease l;
	json_object *o, *d;

	o = json_tokener_parse(ledger);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(falcon_proto_lease_from_json(o, &l), FALCON_OK);
	json_object_put(o);
	ck_assert_uint_eq(l.ndevs, 1);
	ck_assert_int_eq(l.devs[0].phys_slot, 0);
	ck_assert_str_eq(l.devs[0].bdf, "");
	ck_assert_int_eq(l.devs[0].type, FALCON_DEV_NVME);
	l.devs[0].phys_slot = 13;
	strcpy(l.devs[0].bdf, "0000:b5:00.0");
	o = falcon_proto_lease_json(&l);
	ck_assert_str_eq(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), ledger);
	d = json_object_array_get_idx(json_object_object_get(o, "devices"), 0);
	ck_assert(!json_object_object_get_ex(d, "bdf", NULL));
	ck_assert(!json_object_object_get_ex(d, "phys_slot", NULL));
	json_object_put(o);
}
END_TEST

START_TEST(sha256_vector)
{
	char h[FALCON_SHA256_HEX_LEN];

	/* FIPS 180-2 appendix B.1 */
	ck_assert_int_eq(falcon_sha256_hex("abc", 3, h), FALCON_OK);
	ck_assert_str_eq(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	ck_assert_int_eq(falcon_sha256_hex(NULL, 0, h), FALCON_OK);
	ck_assert_str_eq(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}
END_TEST

START_TEST(payload_binding)
{
	const char body[] = "{\"job_id\":1,\"host\":\"n1\",\"gpus\":1}";
	char *p0 = NULL, *p;
	size_t i;

	ck_assert_int_eq(falcon_auth_payload("POST", "/v1/compose", body, strlen(body), &p0),
			 FALCON_OK);
	ck_assert(strncmp(p0, "falcon/1 POST /v1/compose ", 26) == 0);
	ck_assert_uint_eq(strlen(p0), 26 + 64);
	/* another method, path, or any flipped body byte changes the payload */
	ck_assert_int_eq(falcon_auth_payload("GET", "/v1/compose", body, strlen(body), &p), FALCON_OK);
	ck_assert_str_ne(p, p0);
	free(p);
	ck_assert_int_eq(falcon_auth_payload("POST", "/v1/decompose", body, strlen(body), &p), FALCON_OK);
	ck_assert_str_ne(p, p0);
	free(p);
	for (i = 0; i < strlen(body); i++) {
		char b2[sizeof(body)];

		memcpy(b2, body, sizeof(body));
		b2[i] ^= 1;
		ck_assert_int_eq(falcon_auth_payload("POST", "/v1/compose", b2, strlen(body), &p),
				 FALCON_OK);
		ck_assert_str_ne(p, p0);
		free(p);
	}
	ck_assert_int_eq(falcon_auth_payload("POST", "/v1/compose", body, strlen(body) - 1, &p),
			 FALCON_OK);
	ck_assert_str_ne(p, p0);
	free(p);
	/* a blank in the path would make the payload ambiguous */
	ck_assert_int_eq(falcon_auth_payload("POST", "/v1/compose x", body, 3, &p), FALCON_ERR_INVAL);
	ck_assert_int_eq(falcon_auth_payload("", "/v1/compose", body, 3, &p), FALCON_ERR_INVAL);
	free(p0);
}
END_TEST

START_TEST(header_cred)
{
	ck_assert_str_eq(falcon_auth_header_cred("Munge MUNGE:abc:"), "MUNGE:abc:");
	ck_assert_str_eq(falcon_auth_header_cred("  munge\t MUNGE:x:"), "MUNGE:x:");
	ck_assert_ptr_null(falcon_auth_header_cred(NULL));
	ck_assert_ptr_null(falcon_auth_header_cred("Bearer abc"));
	ck_assert_ptr_null(falcon_auth_header_cred("MungeMUNGE:abc:"));
	ck_assert_ptr_null(falcon_auth_header_cred("Munge   "));
}
END_TEST

START_TEST(verify_refuses_without_cred)
{
	uid_t u = 0;

	ck_assert_int_eq(falcon_auth_verify(NULL, NULL, "GET", "/v1/status", "", 0, &u, NULL),
			 FALCON_ERR_AUTH);
	ck_assert_uint_eq(u, (uid_t)-1);
}
END_TEST

START_TEST(err_names)
{
	int e;

	for (e = 0; e < FALCON_ERR_MAX; e++)
		ck_assert_int_eq(falcon_proto_err_from_name(falcon_err_name((falcon_err_t)e)), e);
	ck_assert_int_eq(falcon_proto_err_from_name("nonsense"), FALCON_ERR_PROTOCOL);
	ck_assert_uint_eq(falcon_proto_http_status(FALCON_ERR_AUTH), 401);
	ck_assert_uint_eq(falcon_proto_http_status(FALCON_ERR_PERM), 403);
	ck_assert_uint_eq(falcon_proto_http_status(FALCON_ERR_PARSE), 400);
}
END_TEST

/* The protocol's place words are falcon.conf's Place= words (proto.c reads
 * and writes them with conf.c's falcon_place_str/_from_str): each value is
 * written as its word in a compose request and a lease and read back, any
 * case is read, and an unknown word is a PARSE error naming the field. */
START_TEST(place_words)
{
	static const struct {
		const char *word;
		falcon_place_t place;
	} words[] = {
		{ "pack", FALCON_PLACE_PACK }, { "spread", FALCON_PLACE_SPREAD },
		{ "any", FALCON_PLACE_ANY }, { "PACK", FALCON_PLACE_PACK },
		{ "Spread", FALCON_PLACE_SPREAD },
	};
	struct falcon_compose_req r;
	struct falcon_lease l = { .job_id = 7 }, l2;
	char body[128];
	json_object *o;
	size_t i;

	strcpy(l.id, "L-7");
	strcpy(l.host, "n1");
	strcpy(l.state, "active");
	for (i = 0; i < ARRAY_SIZE(words); i++) {
		snprintf(body, sizeof(body),
			 "{\"job_id\":1,\"host\":\"n1\",\"gpus\":1,\"place\":\"%s\"}",
			 words[i].word);
		ck_assert_int_eq(falcon_proto_parse_compose(body, strlen(body), &r), FALCON_OK);
		ck_assert(r.place_set);
		ck_assert_int_eq(r.place, words[i].place);
		/* written back as the lower-case word (the first three rows) */
		o = falcon_proto_compose_json(&r);
		ck_assert_str_eq(json_object_get_string(json_object_object_get(o, "place")),
				 words[r.place].word);
		json_object_put(o);
		l.place = words[i].place;
		o = falcon_proto_lease_json(&l);
		ck_assert_str_eq(json_object_get_string(json_object_object_get(o, "place")),
				 words[l.place].word);
		json_object_object_add(o, "place", json_object_new_string(words[i].word));
		memset(&l2, 0, sizeof(l2));
		ck_assert_int_eq(falcon_proto_lease_from_json(o, &l2), FALCON_OK);
		ck_assert_int_eq(l2.place, words[i].place);
		/* an unknown word */
		json_object_object_add(o, "place", json_object_new_string("packed"));
		ck_assert_int_eq(falcon_proto_lease_from_json(o, &l2), FALCON_ERR_PARSE);
		ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "place"));
		json_object_put(o);
	}
	snprintf(body, sizeof(body), "{\"job_id\":1,\"host\":\"n1\",\"gpus\":1,"
		 "\"place\":\"packed\"}");
	ck_assert_int_eq(falcon_proto_parse_compose(body, strlen(body), &r), FALCON_ERR_PARSE);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "place"));
}
END_TEST

/* "kept" goes with state "kept" only; a closing lease that still has it
 * (a kept lease given back, as falcond wrote it before 2026-11-29) loads
 * without it. */
START_TEST(lease_kept_state)
{
	const char *base = "{\"id\":\"L-1\",\"job_id\":1,\"uid\":0,\"host\":\"n1\",\"partition\":\"\","
			   "\"place\":\"pack\",\"created\":1000,\"devices\":[],\"state\":";
	static const struct {
		const char *state;
		falcon_err_t rv;
		long long kept;
	} cases[] = {
		{ "\"kept\",\"kept\":2000}", FALCON_OK, 2000 },
		{ "\"closing\",\"kept\":2000}", FALCON_OK, 0 },
		{ "\"active\",\"kept\":2000}", FALCON_ERR_PARSE, 0 },
		{ "\"kept\"}", FALCON_ERR_PARSE, 0 },
	};
	char body[512];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct falcon_lease l;
		json_object *o;

		snprintf(body, sizeof(body), "%s%s", base, cases[i].state);
		o = json_tokener_parse(body);
		ck_assert_ptr_nonnull(o);
		memset(&l, 0, sizeof(l));
		ck_assert_msg(falcon_proto_lease_from_json(o, &l) == cases[i].rv, "%s: %s", body,
			      falcon_errmsg());
		if (cases[i].rv == FALCON_OK)
			ck_assert_int_eq(l.kept_ms, cases[i].kept);
		json_object_put(o);
	}
}
END_TEST

/* How falcon_client_call reads falcond's answer (no munged needed). */
static const struct {
	long code;
	const char *body;
	falcon_err_t rv;
} answers[] = {
	{ 200, "{\"lease\":{}}", FALCON_OK },
	{ 200, "[1]", FALCON_ERR_PROTOCOL },
	{ 200, NULL, FALCON_ERR_PROTOCOL },
	{ 502, "<html>bad gateway</html>", FALCON_ERR_PROTOCOL },
	{ 409, "{\"error\":\"no free GPU\",\"code\":\"noresource\"}", FALCON_ERR_NORESOURCE },
	{ 500, "{\"error\":\"x\",\"code\":\"nonsense\"}", FALCON_ERR_PROTOCOL },
	{ 500, "{\"error\":\"x\"}", FALCON_ERR_PROTOCOL },
	/* a failed answer that names "ok" once read as success */
	{ 500, "{\"error\":\"x\",\"code\":\"ok\"}", FALCON_ERR_PROTOCOL },
	{ 404, "{\"code\":\"ok\"}", FALCON_ERR_PROTOCOL },
};

START_TEST(client_answer)
{
	json_object *resp = NULL;
	falcon_err_t rv;

	rv = falcon_client_answer("POST", "/v1/decompose", answers[_i].code, answers[_i].body,
				  &resp);
	ck_assert_int_eq(rv, answers[_i].rv);
	if (rv == FALCON_OK) {
		ck_assert_ptr_nonnull(resp);
		json_object_put(resp);
	} else {
		ck_assert_ptr_null(resp);
		ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "/v1/decompose"));
	}
}
END_TEST

/* falcon_client_new: a FalcondUrl= list (',' or blanks) in order; a bad
 * element named; the URL in use is the first until one answers. */
START_TEST(client_url_list)
{
	struct falcon_client *cl = NULL;

	ck_assert_int_eq(falcon_client_new("http://ctl1:6830/, http://ctl2:6830", NULL, 5, &cl),
			 FALCON_OK);
	ck_assert_str_eq(falcon_client_url(cl), "http://ctl1:6830");
	falcon_client_free(cl);
	cl = NULL;
	ck_assert_int_eq(falcon_client_new("http://ctl1:6830,ctl2:6830", NULL, 5, &cl),
			 FALCON_ERR_INVAL);
	ck_assert_ptr_null(cl);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "'ctl2:6830'"));
	ck_assert_int_eq(falcon_client_new(" , ", NULL, 5, &cl), FALCON_ERR_INVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("proto");
	TCase *tc = tcase_create("parse");

	tcase_add_loop_test(tc, compose_bad, 0, (int)ARRAY_SIZE(bad_compose));
	tcase_add_test(tc, compose_good);
	tcase_add_loop_test(tc, decompose_bad, 0, (int)ARRAY_SIZE(bad_decompose));
	tcase_add_test(tc, decompose_off_node);
	tcase_add_loop_test(tc, device_bad, 0, (int)ARRAY_SIZE(bad_device));
	tcase_add_test(tc, device_unquarantine_no_reason);
	tcase_add_test(tc, lease_round_trip);
	tcase_add_test(tc, lease_kept_state);
	tcase_add_test(tc, lease_devices_bound);
	tcase_add_test(tc, lease_host_fields_not_sent);
	tcase_add_test(tc, err_names);
	tcase_add_test(tc, place_words);
	tcase_add_test(tc, client_url_list);
	tcase_add_loop_test(tc, client_answer, 0, (int)ARRAY_SIZE(answers));
	suite_add_tcase(s, tc);
	tc = tcase_create("auth");
	tcase_add_test(tc, sha256_vector);
	tcase_add_test(tc, payload_binding);
	tcase_add_test(tc, header_cred);
	tcase_add_test(tc, verify_refuses_without_cred);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
