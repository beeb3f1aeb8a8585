/*
 * test_rf_json.c - unit tests of lib/chassis/rf_json.c: the HTTP status +
 * Redfish body -> falcon_err_t table, Task outcomes, malformed bodies
 * (errors, never crashes), deep nesting, string arrays, ETags in bodies
 * and the path rules.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <json-c/json.h>

#include "chassis/redfish.h"
#include "core/log.h"
#include "core/util.h"
#include "testutil.h"
#include "rf_test.h"

/* ------------------------------------------------------------------ */
/* HTTP status + Redfish body -> error                                  */
/* ------------------------------------------------------------------ */


static const struct {
	long status;
	const char *body;
	falcon_err_t err;
	const char *msg; /* substring of falcon_errmsg() */
} map_cases[] = {
	{ 200, NULL, FALCON_OK, NULL },
	{ 204, "", FALCON_OK, NULL },
	{ 404, RF_ERR("The resource drawer3_slot1 was not found."), FALCON_ERR_NOTFOUND,
	  "HTTP 404: The resource drawer3_slot1 was not found." },
	{ 409, RF_ERR("drawer1_slot3 is in zone H2."), FALCON_ERR_CONFLICT,
	  "drawer1_slot3 is in zone H2." },
	{ 412, "{\"error\":{\"code\":\"Base.1.8.PreconditionFailed\","
	       "\"message\":\"ETag mismatch\"}}", FALCON_ERR_PRECONDITION, "ETag mismatch" },
	{ 401, RF_ERR("No valid session."), FALCON_ERR_AUTH, "No valid session." },
	{ 403, RF_ERR("Insufficient privilege."), FALCON_ERR_PERM, "Insufficient privilege." },
	{ 500, RF_ERR("Internal error."), FALCON_ERR_SERVER, "HTTP 500: Internal error." },
	{ 503, "<html>busy</html>", FALCON_ERR_SERVER, "body: \"<html>busy</html>\"" },
	{ 502, NULL, FALCON_ERR_SERVER, "HTTP 502: empty body" },
	{ 400, RF_ERR("The detach was refused."), FALCON_ERR_CHASSIS, "The detach was refused." },
	{ 405, NULL, FALCON_ERR_UNSUPPORTED, "HTTP 405" },
	{ 501, NULL, FALCON_ERR_UNSUPPORTED, "HTTP 501" },
	{ 408, NULL, FALCON_ERR_TIMEOUT, "HTTP 408" },
	{ 429, NULL, FALCON_ERR_SERVER, "HTTP 429" },
	{ 301, NULL, FALCON_ERR_PROTOCOL, "HTTP 301" },
	{ 100, NULL, FALCON_ERR_PROTOCOL, "HTTP 100" },
	/* ExtendedInfo empty: error.message */
	{ 409, "{\"error\":{\"message\":\"in use\",\"@Message.ExtendedInfo\":[]}}",
	  FALCON_ERR_CONFLICT, "HTTP 409: in use" },
	/* ExtendedInfo[0].Message of the wrong type: error.message */
	{ 409, "{\"error\":{\"message\":\"in use\",\"@Message.ExtendedInfo\":[{\"Message\":7}]}}",
	  FALCON_ERR_CONFLICT, "HTTP 409: in use" },
	/* error of the wrong type, truncated JSON, an array: the body excerpt */
	{ 500, "{\"error\":\"boom\"}", FALCON_ERR_SERVER, "no Redfish error message" },
	{ 500, "{\"error\":{\"message\":", FALCON_ERR_SERVER, "no Redfish error message" },
	{ 404, "[1,2,3]", FALCON_ERR_NOTFOUND, "body: \"[1,2,3]\"" },
	/* control characters never reach the log */
	{ 409, "{\"error\":{\"message\":\"a\\nb\\u001bc\"}}", FALCON_ERR_CONFLICT, "a?b?c" },
};

START_TEST(test_map_status)
{
	const char *body = map_cases[_i].body;
	falcon_err_t rv;

	falcon_err_clear();
	rv = falcon_rf_map_status(map_cases[_i].status, body, body ? strlen(body) : 0,
				  "PATCH", "http://c/redfish/v1/Fabrics/PCIe/Zones/H1");
	ck_assert_msg(rv == map_cases[_i].err, "status %ld: %s, want %s", map_cases[_i].status,
		      falcon_err_name(rv), falcon_err_name(map_cases[_i].err));
	if (map_cases[_i].msg != NULL) {
		ck_assert_msg(strstr(falcon_errmsg(), map_cases[_i].msg) != NULL,
			      "'%s' not in '%s'", map_cases[_i].msg, falcon_errmsg());
		ck_assert_ptr_nonnull(strstr(falcon_errmsg(),
					     "PATCH http://c/redfish/v1/Fabrics/PCIe/Zones/H1"));
	}
}
END_TEST

/* ------------------------------------------------------------------ */
/* malformed bodies                                                     */
/* ------------------------------------------------------------------ */

static const struct {
	const char *body;
	size_t len; /* 0 = strlen */
	falcon_err_t err;
	const char *msg;
} parse_cases[] = {
	{ "{}", 0, FALCON_OK, NULL },
	{ " {\"a\":[1,{\"b\":null}]}\r\n ", 0, FALCON_OK, NULL },
	{ "", 0, FALCON_ERR_PARSE, "empty body" },
	{ "{", 0, FALCON_ERR_PARSE, "truncated" },
	{ "{\"Members\":[{\"@odata.id\":\"/redfish/v1/Sy", 0, FALCON_ERR_PARSE, "truncated" },
	{ "{} x", 0, FALCON_ERR_PARSE, NULL },
	{ "{}{}", 0, FALCON_ERR_PARSE, NULL },
	{ "{}\n\n]", 0, FALCON_ERR_PARSE, NULL },
	{ "{}\0{}", 5, FALCON_ERR_PARSE, "NUL byte" },
	{ "[1,2]", 0, FALCON_ERR_PARSE, "expected a JSON object, got array" },
	{ "\"str\"", 0, FALCON_ERR_PARSE, "got string" },
	{ "42", 0, FALCON_ERR_PARSE, NULL },
	{ "true ", 0, FALCON_ERR_PARSE, "got boolean" },
	{ "null", 0, FALCON_ERR_PARSE, NULL },
	{ "{\"a\" 1}", 0, FALCON_ERR_PARSE, "malformed JSON" },
	{ "{\"a\":1,}", 0, FALCON_ERR_PARSE, "malformed JSON" },
	{ "{\"a\":tru}", 0, FALCON_ERR_PARSE, "malformed JSON" },
	{ "<html></html>", 0, FALCON_ERR_PARSE, "malformed JSON" },
};

/* falcon_rf_task_outcome over task monitor answers (DSP0266 sec. 12.2). */
static const struct {
	const char *body;
	falcon_err_t rv;
	bool done;
	const char *msg;
} task_cases[] = {
	{ "{\"@odata.type\":\"#Zone.v1_6_1.Zone\"}", FALCON_OK, true, NULL },
	{ "{\"@odata.type\":\"#Task.v1_7_3.Task\",\"TaskState\":\"Running\"}", FALCON_OK, false, NULL },
	{ "{\"@odata.type\":\"#Task.v1_7_3.Task\",\"TaskState\":\"Pending\"}", FALCON_OK, false, NULL },
	{ "{\"@odata.type\":\"#Task.v1_7_3.Task\",\"TaskState\":\"Completed\"}", FALCON_OK, true, NULL },
	{ "{\"@odata.type\":\"#Task.v1_7_3.Task\",\"Id\":\"7\",\"TaskState\":\"Exception\","
	  "\"Messages\":[{\"Message\":\"slot\\nfault\"}]}", FALCON_ERR_CHASSIS, true,
	  "M: task 7 ended in TaskState Exception: slot?fault" },
	{ "{\"@odata.type\":\"#Task.v1_7_3.Task\",\"TaskState\":\"Killed\"}", FALCON_ERR_CHASSIS, true,
	  "task ? ended in TaskState Killed: no message" },
	{ "{\"@odata.type\":\"#Task.v1_7_3.Task\",\"TaskState\":\"Cancelled\",\"Messages\":5}",
	  FALCON_ERR_CHASSIS, true, "TaskState Cancelled" },
	{ "{\"@odata.type\":\"#Task.v1_7_3.Task\",\"TaskState\":3}", FALCON_ERR_PROTOCOL, true,
	  "M: a Task without TaskState" },
};

START_TEST(test_task_outcome)
{
	struct json_object *o = json_tokener_parse(task_cases[_i].body);
	bool done = !task_cases[_i].done;
	falcon_err_t rv;

	ck_assert_ptr_nonnull(o);
	rv = falcon_rf_task_outcome(o, "M", &done);
	ck_assert_int_eq(rv, task_cases[_i].rv);
	ck_assert(done == task_cases[_i].done);
	if (task_cases[_i].msg != NULL)
		ck_assert_msg(strstr(falcon_errmsg(), task_cases[_i].msg) != NULL,
			      "case %d: '%s' lacks '%s'", _i, falcon_errmsg(), task_cases[_i].msg);
	json_object_put(o);
}
END_TEST

START_TEST(test_parse_table)
{
	struct json_object *obj = (void *)1;
	size_t len = parse_cases[_i].len ? parse_cases[_i].len : strlen(parse_cases[_i].body);
	falcon_err_t rv;

	rv = falcon_rf_parse(parse_cases[_i].body, len, "case", &obj);
	ck_assert_msg(rv == parse_cases[_i].err, "case %d: %s (%s)", _i, falcon_err_name(rv),
		      falcon_errmsg());
	if (rv == FALCON_OK) {
		ck_assert(json_object_is_type(obj, json_type_object));
		json_object_put(obj);
	} else {
		ck_assert_ptr_null(obj);
		if (parse_cases[_i].msg != NULL)
			ck_assert_msg(strstr(falcon_errmsg(), parse_cases[_i].msg) != NULL,
				      "'%s' not in '%s'", parse_cases[_i].msg, falcon_errmsg());
	}
}
END_TEST

/* 10 MB of nesting: json-c's depth limit stops it, no recursion blows up */
START_TEST(test_parse_deep_nesting)
{
	const size_t n = 10u << 20;
	char *buf = malloc(n);
	struct json_object *obj;
	size_t i;

	ck_assert_ptr_nonnull(buf);
	buf[0] = '{';
	memcpy(buf + 1, "\"a\":", 4);
	for (i = 5; i < n; i++)
		buf[i] = '[';
	ck_assert_int_eq(falcon_rf_parse(buf, n, "deep", &obj), FALCON_ERR_PARSE);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "nesting too deep"));
	/* objects in objects too */
	for (i = 0; i + 5 <= n; i += 5)
		memcpy(buf + i, "{\"a\":", 5);
	ck_assert_int_eq(falcon_rf_parse(buf, i, "deep", &obj), FALCON_ERR_PARSE);
	/* just under the limit is fine */
	for (i = 0; i < FALCON_RF_MAX_DEPTH - 1; i++)
		buf[i] = '[';
	buf[0] = '{';
	buf[1] = '"', buf[2] = 'a', buf[3] = '"', buf[4] = ':';
	{
		size_t open = FALCON_RF_MAX_DEPTH - 1 - 5, k = FALCON_RF_MAX_DEPTH - 1;

		for (i = 0; i < open; i++)
			buf[k++] = ']';
		buf[k++] = '}';
		ck_assert_int_eq(falcon_rf_parse(buf, k, "ok", &obj), FALCON_OK);
		json_object_put(obj);
	}
	free(buf);
}
END_TEST
/* falcon_rf_has_string: strings only, exact, NULL and non-arrays are empty. */
START_TEST(test_has_string)
{
	static const char body[] = "{\"A\":[1,null,\"NVMe\",{\"x\":\"SAS\"},\"nvme\"],"
				   "\"S\":\"SAS\",\"E\":[]}";
	struct json_object *obj;

	ck_assert_int_eq(falcon_rf_parse(body, strlen(body), "has", &obj), FALCON_OK);
	ck_assert(falcon_rf_has_string(falcon_rf_arr(obj, "A"), "NVMe"));
	ck_assert(falcon_rf_has_string(falcon_rf_arr(obj, "A"), "nvme"));
	ck_assert(!falcon_rf_has_string(falcon_rf_arr(obj, "A"), "SAS"));
	ck_assert(!falcon_rf_has_string(falcon_rf_arr(obj, "A"), "NVM"));
	ck_assert(!falcon_rf_has_string(falcon_rf_arr(obj, "E"), "NVMe"));
	ck_assert(!falcon_rf_has_string(falcon_rf_arr(obj, "absent"), "NVMe"));
	ck_assert(!falcon_rf_has_string(NULL, "NVMe"));
	ck_assert(!falcon_rf_has_string(obj, "SAS")); /* an object, not an array */
	json_object_put(obj);
}
END_TEST

/* falcon_rf_body_etag: a printable @odata.etag that fits, else "". */
START_TEST(test_body_etag)
{
	static const char *const bodies[] = {
		"{\"@odata.etag\":\"W/\\\"1\\\"\"}", "{\"@odata.etag\":\"a\\u0001b\"}",
		"{\"@odata.etag\":\"0123456789\"}", "{\"@odata.etag\":7}", "{}",
	};
	static const char *const want[] = { "W/\"1\"", "", "", "", "" };
	char etag[8];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bodies); i++) {
		struct json_object *obj;

		ck_assert_int_eq(falcon_rf_parse(bodies[i], strlen(bodies[i]), "etag", &obj),
				 FALCON_OK);
		memcpy(etag, "stale", 6);
		falcon_rf_body_etag(obj, etag, sizeof(etag));
		ck_assert_msg(!strcmp(etag, want[i]), "%s: got '%s'", bodies[i], etag);
		falcon_rf_body_etag(obj, NULL, sizeof(etag)); /* nothing to fill */
		json_object_put(obj);
	}
}
END_TEST

static const struct {
	const char *path;
	bool ok;
} path_cases[] = {
	{ "/redfish/v1", true },
	{ "/redfish/v1/", true },
	{ "/redfish/v1/Fabrics/PCIe/Zones/H1", true },
	{ "/redfish/v1/Storage/1#/StorageControllers/0", true },
	{ "/redfish/v10", false },
	{ "/redfish/v1/../x", false },
	{ "/redfish/v1//x", false },
	{ "/redfish/v1/a b", false },
	{ "/redfish/v1/a?b", false },
	{ "/redfish/v1/a\"b", false },
	{ "http://x/redfish/v1", false },
	{ "redfish/v1", false },
	{ "", false },
};

START_TEST(test_path_ok)
{
	ck_assert_msg(falcon_rf_path_ok(path_cases[_i].path) == path_cases[_i].ok, "%s",
		      path_cases[_i].path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rf_json");
	TCase *tc;

	falcon_log_init("test_rf_json");
	falcon_log_add_sink(falcon_log_sink_stderr, FALCON_LOG_WARN, NULL);

	tc = tcase_create("errors");
	tcase_add_loop_test(tc, test_map_status, 0, ARRAY_SIZE(map_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("malformed");
	tcase_add_loop_test(tc, test_task_outcome, 0, ARRAY_SIZE(task_cases));
	tcase_add_loop_test(tc, test_parse_table, 0, ARRAY_SIZE(parse_cases));
	tcase_add_test(tc, test_parse_deep_nesting);
	tcase_add_test(tc, test_has_string);
	tcase_add_test(tc, test_body_etag);
	tcase_add_loop_test(tc, test_path_ok, 0, ARRAY_SIZE(path_cases));
	suite_add_tcase(s, tc);

	return run_suite(s);
}
