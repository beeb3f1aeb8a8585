/*
 * test_redfish.c - unit tests of the chassis client (lib/chassis/redfish.c,
 * lib/chassis/chassis.c, lib/chassis/rf_fabric.c, lib/chassis/rf_composition.c):
 *   - inventories of DMTF's own mockups read from disk (skipped without
 *     ../shared);
 *   - the HTTP status + Redfish body -> falcon_err_t table;
 *   - malformed bodies and resource trees (errors, never crashes);
 *   - the credentials file rules;
 *   - the HTTP client against a small in-process libmicrohttpd server:
 *     sessions, basic auth, ETag/If-Match, 412 re-reads, 409, rollback,
 *     timeouts, refused connections, oversized bodies.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <json-c/json.h>
#include <microhttpd.h>

#include "chassis/chassis.h"
#include "chassis/chassis_backend.h"
#include "chassis/chassis_common.h"
#include "core/log.h"
#include "chassis/redfish.h"
#include "testutil.h"
#include "core/util.h"

/* ------------------------------------------------------------------ */
/* DMTF mockups from disk                                               */
/* ------------------------------------------------------------------ */

static const struct falcon_device *find(const struct falcon_inventory *inv, const char *id)
{
	size_t i;

	for (i = 0; i < inv->n; i++)
		if (!strcmp(inv->devs[i].id, id))
			return &inv->devs[i];
	return NULL;
}

static bool mockup_inventory(const char *name, falcon_backend_t b, const char *fabric,
			     struct falcon_inventory *inv)
{
	char rel[256];
	const char *dir;
	struct falcon_chassis *ch = NULL;
	falcon_err_t rv;

	snprintf(rel, sizeof(rel), "redfish/%s", name);
	dir = fixture_path(rel);
	if (dir == NULL)
		return false;
	ck_assert_int_eq(falcon_chassis_open_io(b, falcon_rf_dir_get, NULL, (void *)dir, fabric,
						0, &ch), FALCON_OK);
	rv = falcon_chassis_inventory(ch, inv);
	ck_assert_msg(rv == FALCON_OK, "%s: %s", name, falcon_errmsg());
	falcon_chassis_close(ch);
	return true;
}

START_TEST(test_mockup_cxl_multiswitch)
{
	struct falcon_inventory inv;
	const struct falcon_device *d;

	if (!mockup_inventory("public-cxl-multiswitch", FALCON_BACKEND_FABRIC, NULL, &inv))
		return;
	/* 7 endpoints; I1, I2, I5 are host initiators, T1-T5 are devices */
	ck_assert_uint_eq(inv.n, 5);
	ck_assert_ptr_null(find(&inv, "I1"));
	d = find(&inv, "T2"); /* the pooled CXL type 2 device with a GPU */
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(d->type, FALCON_DEV_GPU);
	ck_assert_str_eq(d->owner, "2");
	ck_assert_str_eq(d->odata_id, "/redfish/v1/Fabrics/CXL/Endpoints/T2");
	ck_assert_str_eq(d->chassis, "PooledCXLType2");
	ck_assert_str_eq(d->vendor_id, "abcd");
	ck_assert_str_eq(d->device_id, "abcd");
	ck_assert_str_eq(d->state, "Enabled");
	ck_assert_str_eq(d->health, "OK");
	ck_assert_int_eq(d->drawer, 0);
	d = find(&inv, "T1"); /* an FPGA: not a GPU */
	ck_assert_int_eq(d->type, FALCON_DEV_OTHER);
	ck_assert_str_eq(d->owner, "1");
	/* T3/T4 point at zone 3 but zone 3 lists only I5 and T5: the zone is
	 * what attach changes, so it decides */
	ck_assert_str_eq(find(&inv, "T3")->owner, "");
	ck_assert_str_eq(find(&inv, "T5")->owner, "3");
	ck_assert_str_eq(find(&inv, "T5")->chassis, "PooledCXLType3-2");
	falcon_inventory_free(&inv);
}
END_TEST

START_TEST(test_mockup_cxl_explicit_fabric)
{
	struct falcon_inventory inv;
	const char *dir = fixture_path("redfish/public-cxl-multiswitch");
	struct falcon_chassis *ch;

	if (!mockup_inventory("public-cxl-multiswitch", FALCON_BACKEND_FABRIC,
			      "/redfish/v1/Fabrics/CXL/", &inv))
		return;
	ck_assert_uint_eq(inv.n, 5);
	falcon_inventory_free(&inv);
	/* our chassis' path does not exist in the mockup */
	ck_assert_int_eq(falcon_chassis_open_io(FALCON_BACKEND_FABRIC, falcon_rf_dir_get, NULL,
						(void *)dir, "/redfish/v1/Fabrics/PCIe", 0, &ch),
			 FALCON_OK);
	ck_assert_int_eq(falcon_chassis_inventory(ch, &inv), FALCON_ERR_NOTFOUND);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "/redfish/v1/Fabrics/PCIe/Zones"));
	ck_assert_uint_eq(inv.n, 0);
	/* a read-only client cannot attach */
	ck_assert_int_eq(falcon_chassis_attach(ch, "1", "T3"), FALCON_ERR_NOTFOUND);
	falcon_chassis_close(ch);
	/* bad fabric paths are refused when opening */
	ck_assert_int_eq(falcon_chassis_open_io(FALCON_BACKEND_FABRIC, falcon_rf_dir_get, NULL,
						(void *)dir, "Fabrics/PCIe", 0, &ch),
			 FALCON_ERR_INVAL);
}
END_TEST

START_TEST(test_mockup_readonly_attach)
{
	const char *dir = fixture_path("redfish/public-cxl-multiswitch");
	struct falcon_chassis *ch;

	if (dir == NULL)
		return;
	ck_assert_int_eq(falcon_chassis_open_io(FALCON_BACKEND_FABRIC, falcon_rf_dir_get, NULL,
						(void *)dir, NULL, 0, &ch), FALCON_OK);
	/* already in zone 1: nothing to change, read back OK */
	ck_assert_int_eq(falcon_chassis_attach(ch, "1", "T1"), FALCON_OK);
	ck_assert_int_eq(falcon_chassis_verify(ch, "1", "T1", true), FALCON_OK);
	ck_assert_int_eq(falcon_chassis_verify(ch, "2", "T1", false), FALCON_OK);
	ck_assert_int_eq(falcon_chassis_verify(ch, "2", "T1", true), FALCON_ERR_CHASSIS);
	/* a change needs a writable client */
	ck_assert_int_eq(falcon_chassis_attach(ch, "1", "T3"), FALCON_ERR_UNSUPPORTED);
	ck_assert_int_eq(falcon_chassis_detach(ch, "2", "T3"), FALCON_OK); /* not there */
	ck_assert_int_eq(falcon_chassis_attach(ch, "9", "T3"), FALCON_ERR_NOTFOUND);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "no zone for host port 9"));
	ck_assert_int_eq(falcon_chassis_attach(ch, "../1", "T3"), FALCON_ERR_INVAL);
	ck_assert_int_eq(falcon_chassis_attach(ch, "1", "T3/x"), FALCON_ERR_INVAL);
	falcon_chassis_close(ch);
}
END_TEST

START_TEST(test_mockup_composability)
{
	struct falcon_inventory inv;
	const struct falcon_device *d;

	if (!mockup_inventory("public-composability", FALCON_BACKEND_COMPOSITION, NULL, &inv))
		return;
	ck_assert_uint_eq(inv.n, 12);
	d = find(&inv, "OffloadBlock9");
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(d->type, FALCON_DEV_GPU);
	ck_assert_str_eq(d->owner, "");
	ck_assert_str_eq(d->composition, "Unused");
	ck_assert_str_eq(d->model, "Contoso Workstation VID2000");
	ck_assert_str_eq(d->manufacturer, "Contoso Graphics");
	ck_assert_str_eq(d->chassis, "ComposableModule6");
	ck_assert_str_eq(d->odata_id, "/redfish/v1/CompositionService/ResourceBlocks/OffloadBlock9");
	d = find(&inv, "DriveBlock3"); /* shared by two systems */
	ck_assert_int_eq(d->type, FALCON_DEV_NVME);
	ck_assert_str_eq(d->owner, "ComposedSystem,ComposedSystem2");
	ck_assert_str_eq(d->composition, "ComposedAndAvailable");
	d = find(&inv, "NetworkBlock8");
	ck_assert_int_eq(d->type, FALCON_DEV_NIC);
	ck_assert_str_eq(d->owner, "ComposedSystem2");
	ck_assert_int_eq(find(&inv, "ComputeBlock1")->type, FALCON_DEV_OTHER);
	ck_assert_str_eq(find(&inv, "DriveBlock10")->owner, "SystemAfterAddResourceAction");
	falcon_inventory_free(&inv);
}
END_TEST

START_TEST(test_mockup_compose_action)
{
	struct falcon_inventory inv;
	const struct falcon_device *d;
	size_t i, sas3 = 0;

	if (!mockup_inventory("public-compose-action", FALCON_BACKEND_COMPOSITION, NULL, &inv))
		return;
	/* 14 members, SASSled-3 listed twice: one device */
	ck_assert_uint_eq(inv.n, 13);
	for (i = 0; i < inv.n; i++)
		sas3 += !strcmp(inv.devs[i].id, "SASSled-3");
	ck_assert_uint_eq(sas3, 1);
	d = find(&inv, "NVMe-TargetsAppliance-1");
	ck_assert_int_eq(d->type, FALCON_DEV_NVME);
	ck_assert_str_eq(d->owner, "BladeServer-1");
	ck_assert_str_eq(d->serial, "67N0A0FHFL5E");
	ck_assert_str_eq(d->model, "AL14SEB030NY");
	ck_assert_str_eq(find(&inv, "NVMe-TargetsAppliance-2")->owner, "");
	/* the block whose Id (26021) differs from its path keeps its path id */
	ck_assert_ptr_nonnull(find(&inv, "SASSled-1"));
	ck_assert_int_eq(find(&inv, "SASSled-1")->type, FALCON_DEV_OTHER); /* SAS */
	falcon_inventory_free(&inv);
}
END_TEST

/* ------------------------------------------------------------------ */
/* HTTP status + Redfish body -> error                                  */
/* ------------------------------------------------------------------ */

#define RF_ERR(msg) \
	"{\"error\":{\"code\":\"Base.1.8.GeneralError\",\"message\":\"See ExtendedInfo\"," \
	"\"@Message.ExtendedInfo\":[{\"MessageId\":\"Base.1.8.X\",\"Message\":\"" msg "\"}]}}"

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

/* A fetcher over an in-memory tree: NULL-terminated {path, body} pairs. */
struct memfile {
	const char *path;
	const char *body;
};

static falcon_err_t mem_get(void *ctx, const char *path, struct json_object **out,
			    char *etag, size_t etag_len)
{
	const struct memfile *f;

	*out = NULL;
	if (etag != NULL && etag_len > 0)
		etag[0] = '\0';
	for (f = ctx; f->path != NULL; f++)
		if (falcon_rf_path_eq(f->path, path))
			return falcon_rf_parse(f->body, strlen(f->body), path, out);
	return falcon_err_set(FALCON_ERR_NOTFOUND, "GET %s: 404", path);
}

#define FABRICS "/redfish/v1/Fabrics"
#define ZONES "/redfish/v1/Fabrics/PCIe/Zones"
#define EPS "/redfish/v1/Fabrics/PCIe/Endpoints"
#define BLOCKS "/redfish/v1/CompositionService/ResourceBlocks"
#define ONE_FABRIC "{\"Members\":[{\"@odata.id\":\"/redfish/v1/Fabrics/PCIe\"}]}"
#define FABRIC "{\"@odata.id\":\"/redfish/v1/Fabrics/PCIe\"}"
#define ZONE_COLL "{\"Members\":[{\"@odata.id\":\"" ZONES "/H1\"}]}"
#define ZONE_H1 "{\"@odata.id\":\"" ZONES "/H1\",\"Links\":{\"Endpoints\":[{\"@odata.id\":\"" \
	EPS "/drawer1_slot1\"}]}}"
#define EP_COLL "{\"Members\":[{\"@odata.id\":\"" EPS "/drawer1_slot1\"}]}"
#define EP_OK "{\"@odata.id\":\"" EPS "/drawer1_slot1\"}"
#define COMP_SVC "{\"ResourceBlocks\":{\"@odata.id\":\"" BLOCKS "\"}}"

static const struct {
	falcon_backend_t backend;
	struct memfile files[8];
	falcon_err_t err;
	const char *msg;
} tree_cases[] = {
	/* the well-formed tree, as a baseline */
	{ FALCON_BACKEND_FABRIC, { { FABRICS, ONE_FABRIC }, { "/redfish/v1/Fabrics/PCIe", FABRIC },
	  { ZONES, ZONE_COLL }, { ZONES "/H1", ZONE_H1 }, { EPS, EP_COLL },
	  { EPS "/drawer1_slot1", EP_OK } }, FALCON_OK, NULL },
	{ FALCON_BACKEND_FABRIC, { { FABRICS, "{\"Members\":\"PCIe\"}" } }, FALCON_ERR_PROTOCOL,
	  "Members: expected an array" },
	{ FALCON_BACKEND_FABRIC, { { FABRICS, "{\"Members\":[]}" } }, FALCON_ERR_NOTFOUND,
	  "no fabric" },
	{ FALCON_BACKEND_FABRIC, { { FABRICS, "{\"Members\":[{}]}" } }, FALCON_ERR_PROTOCOL,
	  "no @odata.id" },
	{ FALCON_BACKEND_FABRIC, { { FABRICS, "{\"Members\":[7]}" } }, FALCON_ERR_PROTOCOL,
	  "expected an object" },
	{ FALCON_BACKEND_FABRIC, { { FABRICS, "{\"Members\":[{\"@odata.id\":5}]}" } },
	  FALCON_ERR_PROTOCOL, "no @odata.id string" },
	{ FALCON_BACKEND_FABRIC,
	  { { FABRICS, "{\"Members\":[{\"@odata.id\":\"http://evil/redfish/v1/x\"}]}" } },
	  FALCON_ERR_PROTOCOL, "not a path under /redfish/v1" },
	{ FALCON_BACKEND_FABRIC,
	  { { FABRICS, "{\"Members\":[{\"@odata.id\":\"/redfish/v1/../../etc\"}]}" } },
	  FALCON_ERR_PROTOCOL, "not a path under /redfish/v1" },
	{ FALCON_BACKEND_FABRIC, { { FABRICS, "{\"Members\":[{\"@odata.id\":\"/redfish" } },
	  FALCON_ERR_PARSE, "truncated" },
	/* a zone without @odata.id, with Links.Endpoints of the wrong type */
	{ FALCON_BACKEND_FABRIC, { { FABRICS, ONE_FABRIC }, { "/redfish/v1/Fabrics/PCIe", FABRIC },
	  { ZONES, ZONE_COLL }, { ZONES "/H1", "{\"Links\":{}}" } }, FALCON_ERR_PROTOCOL,
	  ZONES "/H1: no @odata.id" },
	{ FALCON_BACKEND_FABRIC, { { FABRICS, ONE_FABRIC }, { "/redfish/v1/Fabrics/PCIe", FABRIC },
	  { ZONES, ZONE_COLL }, { ZONES "/H1", "{\"@odata.id\":\"" ZONES "/H1\",\"Links\":"
	  "{\"Endpoints\":{\"@odata.id\":\"x\"}}}" } }, FALCON_ERR_PROTOCOL,
	  "Links.Endpoints: expected an array" },
	{ FALCON_BACKEND_FABRIC, { { FABRICS, ONE_FABRIC }, { "/redfish/v1/Fabrics/PCIe", FABRIC },
	  { ZONES, ZONE_COLL }, { ZONES "/H1", "{\"@odata.id\":\"" ZONES "/H1\",\"Links\":[]}" } },
	  FALCON_ERR_PROTOCOL, "Links: expected an object" },
	/* an endpoint listed but absent, truncated, without @odata.id */
	{ FALCON_BACKEND_FABRIC, { { FABRICS, ONE_FABRIC }, { "/redfish/v1/Fabrics/PCIe", FABRIC },
	  { ZONES, ZONE_COLL }, { ZONES "/H1", ZONE_H1 }, { EPS, EP_COLL } },
	  FALCON_ERR_NOTFOUND, EPS "/drawer1_slot1" },
	{ FALCON_BACKEND_FABRIC, { { FABRICS, ONE_FABRIC }, { "/redfish/v1/Fabrics/PCIe", FABRIC },
	  { ZONES, ZONE_COLL }, { ZONES "/H1", ZONE_H1 }, { EPS, EP_COLL },
	  { EPS "/drawer1_slot1", "{\"@odata.id\":\"" EPS } }, FALCON_ERR_PARSE, "truncated" },
	{ FALCON_BACKEND_FABRIC, { { FABRICS, ONE_FABRIC }, { "/redfish/v1/Fabrics/PCIe", FABRIC },
	  { ZONES, ZONE_COLL }, { ZONES "/H1", ZONE_H1 }, { EPS, EP_COLL },
	  { EPS "/drawer1_slot1", "{\"Id\":\"drawer1_slot1\"}" } }, FALCON_ERR_PROTOCOL,
	  "no @odata.id" },
	/* wrong types where only details are read: ignored, not fatal */
	{ FALCON_BACKEND_FABRIC, { { FABRICS, ONE_FABRIC }, { "/redfish/v1/Fabrics/PCIe", FABRIC },
	  { ZONES, ZONE_COLL }, { ZONES "/H1", ZONE_H1 }, { EPS, EP_COLL },
	  { EPS "/drawer1_slot1", "{\"@odata.id\":\"" EPS "/drawer1_slot1\",\"Status\":7,"
	  "\"ConnectedEntities\":{},\"PciId\":[1],\"Links\":{\"Chassis\":5}}" } },
	  FALCON_OK, NULL },
	/* an entity that links to itself: followed once */
	{ FALCON_BACKEND_FABRIC, { { FABRICS, ONE_FABRIC }, { "/redfish/v1/Fabrics/PCIe", FABRIC },
	  { ZONES, ZONE_COLL }, { ZONES "/H1", ZONE_H1 }, { EPS, EP_COLL },
	  { EPS "/drawer1_slot1", "{\"@odata.id\":\"" EPS "/drawer1_slot1\",\"@odata.type\":"
	  "\"#PCIeFunction.v1.PCIeFunction\",\"ConnectedEntities\":[{\"EntityLink\":"
	  "{\"@odata.id\":\"" EPS "/drawer1_slot1\"}}],\"Links\":{\"PCIeDevice\":{\"@odata.id\":"
	  "\"" EPS "/drawer1_slot1\"}}}" } }, FALCON_OK, NULL },
	/* composition: no service, blocks of the wrong shape */
	{ FALCON_BACKEND_COMPOSITION, { { "/redfish/v1/x", "{}" } }, FALCON_ERR_NOTFOUND,
	  "CompositionService" },
	{ FALCON_BACKEND_COMPOSITION, { { "/redfish/v1/CompositionService", COMP_SVC },
	  { BLOCKS, "{\"Members\":[{\"@odata.id\":\"" BLOCKS "/b1\"}]}" },
	  { BLOCKS "/b1", "{\"@odata.id\":\"" BLOCKS "/b1\",\"Links\":{\"ComputerSystems\":"
	  "\"H1\"}}" } }, FALCON_ERR_PROTOCOL, "Links.ComputerSystems: expected an array" },
	{ FALCON_BACKEND_COMPOSITION, { { "/redfish/v1/CompositionService", COMP_SVC },
	  { BLOCKS, "{\"Members\":[{\"@odata.id\":\"" BLOCKS "/b1\"}]}" },
	  { BLOCKS "/b1", "{\"@odata.id\":\"" BLOCKS "/b1\",\"Links\":{\"ComputerSystems\":"
	  "[{\"@odata.id\":null}]}}" } }, FALCON_ERR_PROTOCOL, "no @odata.id string" },
	{ FALCON_BACKEND_COMPOSITION, { { "/redfish/v1/CompositionService", COMP_SVC },
	  { BLOCKS, "{\"Members\":[{\"@odata.id\":\"" BLOCKS "/b1\"}]}" },
	  { BLOCKS "/b1", "{\"@odata.id\":\"" BLOCKS "/b1\",\"ResourceBlockType\":\"GPU\","
	  "\"CompositionStatus\":[],\"Processors\":{\"a\":1}}" } }, FALCON_OK, NULL },
	{ FALCON_BACKEND_COMPOSITION, { { "/redfish/v1/CompositionService", COMP_SVC },
	  { BLOCKS, "{\"Members\":[{\"@odata.id\":\"" BLOCKS "/b1\"}]}" },
	  { BLOCKS "/b1", "{\"Id\":\"b1\"}" } }, FALCON_ERR_PROTOCOL, BLOCKS "/b1: no @odata.id" },
};

START_TEST(test_tree_table)
{
	struct falcon_chassis *ch;
	struct falcon_inventory inv;
	falcon_err_t rv;

	ck_assert_int_eq(falcon_chassis_open_io(tree_cases[_i].backend, mem_get, NULL,
						(void *)tree_cases[_i].files, NULL, 0, &ch),
			 FALCON_OK);
	rv = falcon_chassis_inventory(ch, &inv);
	ck_assert_msg(rv == tree_cases[_i].err, "case %d: %s (%s)", _i, falcon_err_name(rv),
		      falcon_errmsg());
	if (tree_cases[_i].msg != NULL)
		ck_assert_msg(strstr(falcon_errmsg(), tree_cases[_i].msg) != NULL,
			      "case %d: '%s' not in '%s'", _i, tree_cases[_i].msg, falcon_errmsg());
	if (rv == FALCON_OK)
		ck_assert_uint_eq(inv.n, 1);
	else
		ck_assert_uint_eq(inv.n, 0);
	falcon_inventory_free(&inv);
	falcon_chassis_close(ch);
}
END_TEST

/* ---- descriptions kept between inventories (falcon_chassis_keep_descriptions) ---- */

/* mem_get over a tree that changes (zones, collections), counting GETs. */
struct desc_tree {
	struct memfile files[12];
	int gets;
};

static falcon_err_t count_get(void *ctx, const char *path, struct json_object **out,
			      char *etag, size_t etag_len)
{
	struct desc_tree *t = ctx;

	t->gets++;
	return mem_get(t->files, path, out, etag, etag_len);
}

#define PROCS "/redfish/v1/Chassis/falcon1/Processors"
#define D_EP(n, proc) "{\"@odata.id\":\"" EPS "/drawer1_slot" n "\",\"ConnectedEntities\":" \
	"[{\"EntityType\":\"Processor\",\"EntityLink\":{\"@odata.id\":\"" PROCS "/" proc "\"}}]}"
#define D_PROC(proc, health) "{\"@odata.id\":\"" PROCS "/" proc "\",\"@odata.type\":" \
	"\"#Processor.v1_18_0.Processor\",\"ProcessorType\":\"GPU\",\"Model\":\"V100\"," \
	"\"Status\":{\"State\":\"Enabled\",\"Health\":\"" health "\"}}"
#define D_ZONE(port, eps) "{\"@odata.id\":\"" ZONES "/" port "\",\"Links\":{\"Endpoints\":[" \
	eps "]}}"
#define D_REF(n) "{\"@odata.id\":\"" EPS "/drawer1_slot" n "\"}"
#define D_HOST "{\"@odata.id\":\"" EPS "/hostport1_H1\",\"ConnectedEntities\":" \
	"[{\"EntityRole\":\"Initiator\"}]}"

static void desc_tree_init(struct desc_tree *t)
{
	const struct memfile f[] = {
		{ FABRICS, ONE_FABRIC }, { "/redfish/v1/Fabrics/PCIe", FABRIC },
		{ ZONES, "{\"Members\":[{\"@odata.id\":\"" ZONES "/H1\"},{\"@odata.id\":\""
			 ZONES "/H2\"}]}" },
		{ ZONES "/H1", D_ZONE("H1", D_REF("1")) }, { ZONES "/H2", D_ZONE("H2", "") },
		{ EPS, "{\"Members\":[{\"@odata.id\":\"" EPS "/hostport1_H1\"}," D_REF("1") ","
		       D_REF("2") "]}" },
		{ EPS "/hostport1_H1", D_HOST },
		{ EPS "/drawer1_slot1", D_EP("1", "gpu1") }, { EPS "/drawer1_slot2", D_EP("2", "gpu2") },
		{ PROCS "/gpu1", D_PROC("gpu1", "OK") }, { PROCS "/gpu2", D_PROC("gpu2", "OK") },
		{ NULL, NULL } };

	memset(t, 0, sizeof(*t));
	memcpy(t->files, f, sizeof(f));
}

/* One inventory: its GETs, and dev slot<n>'s owner and health. */
static int desc_read(struct falcon_chassis *ch, struct desc_tree *t, size_t want_n,
		     const char *owner1, const char *health2)
{
	struct falcon_inventory inv;
	int before = t->gets;
	size_t i;

	ck_assert_msg(falcon_chassis_inventory(ch, &inv) == FALCON_OK, "%s", falcon_errmsg());
	ck_assert_uint_eq(inv.n, want_n);
	for (i = 0; i < inv.n; i++) {
		ck_assert_int_eq(inv.devs[i].type, FALCON_DEV_GPU);
		if (!strcmp(inv.devs[i].id, "drawer1_slot1"))
			ck_assert_str_eq(inv.devs[i].owner, owner1);
		if (!strcmp(inv.devs[i].id, "drawer1_slot2"))
			ck_assert_str_eq(inv.devs[i].health, health2);
	}
	falcon_inventory_free(&inv);
	return t->gets - before;
}

START_TEST(test_desc_kept)
{
	struct desc_tree t;
	struct falcon_chassis *ch;
	int full;

	desc_tree_init(&t);
	ck_assert_int_eq(falcon_chassis_open_io(FALCON_BACKEND_FABRIC, count_get, NULL, &t, NULL,
						0, &ch), FALCON_OK);
	/* not kept (the default): every inventory reads every resource */
	full = desc_read(ch, &t, 2, "H1", "OK");
	ck_assert_int_eq(desc_read(ch, &t, 2, "H1", "OK"), full - 2); /* discovered once */
	full -= 2;
	falcon_chassis_keep_descriptions(ch, 3600);
	ck_assert_int_eq(desc_read(ch, &t, 2, "H1", "OK"), full);
	/* kept: the Zones collection, its 2 zones and the Endpoints collection */
	ck_assert_int_eq(desc_read(ch, &t, 2, "H1", "OK"), 4);
	/* ownership is still read every time */
	t.files[3].body = D_ZONE("H1", "");
	t.files[4].body = D_ZONE("H2", D_REF("1"));
	ck_assert_int_eq(desc_read(ch, &t, 2, "H2", "OK"), 4);
	/* a description kept is not read again ... */
	t.files[10].body = D_PROC("gpu2", "Critical");
	ck_assert_int_eq(desc_read(ch, &t, 2, "H2", "OK"), 4);
	/* ... until forgotten (a Redfish event named it): it alone is read */
	falcon_chassis_forget(ch, "drawer1_slot2");
	ck_assert_int_eq(desc_read(ch, &t, 2, "H2", "Critical"), 4 + 2);
	/* a device that left the Endpoints collection is dropped */
	t.files[5].body = "{\"Members\":[" D_REF("1") "]}";
	ck_assert_int_eq(desc_read(ch, &t, 1, "H2", ""), 4);
	/* and read in full when it is back */
	t.files[5].body = "{\"Members\":[" D_REF("1") "," D_REF("2") "]}";
	ck_assert_int_eq(desc_read(ch, &t, 2, "H2", "Critical"), 4 + 2);
	/* forget all: everything is read again, as after an outage */
	falcon_chassis_forget(ch, NULL);
	ck_assert_int_eq(desc_read(ch, &t, 1 + 1, "H2", "Critical"), 4 + 2 * 2);
	/* keeping off again: full reads; nothing kept */
	falcon_chassis_keep_descriptions(ch, 0);
	ck_assert_int_eq(desc_read(ch, &t, 2, "H2", "Critical"), full - 1); /* no host port */
	falcon_chassis_close(ch);
}
END_TEST

/* Saved, loaded into a new client (a restarted falcond): no device read;
 * old descriptions are refreshed one per inventory. */
START_TEST(test_desc_save_load)
{
	struct desc_tree t;
	struct falcon_chassis *ch, *ch2;
	struct json_object *o, *e;
	bool changed;

	desc_tree_init(&t);
	ck_assert_int_eq(falcon_chassis_open_io(FALCON_BACKEND_FABRIC, count_get, NULL, &t, NULL,
						0, &ch), FALCON_OK);
	falcon_chassis_keep_descriptions(ch, 3600);
	desc_read(ch, &t, 2, "H1", "OK");
	ck_assert(falcon_chassis_descriptions_changed(ch));
	o = falcon_chassis_descriptions_save(ch, &changed);
	ck_assert(changed);
	ck_assert(!falcon_chassis_descriptions_changed(ch));
	/* a read that finds nothing new changes nothing */
	desc_read(ch, &t, 2, "H1", "OK");
	ck_assert(!falcon_chassis_descriptions_changed(ch));
	json_object_put(falcon_chassis_descriptions_save(ch, &changed));
	ck_assert(!changed);
	ck_assert_uint_eq(json_object_array_length(json_object_object_get(o, "descriptions")), 3);

	ck_assert_int_eq(falcon_chassis_open_io(FALCON_BACKEND_FABRIC, count_get, NULL, &t, NULL,
						0, &ch2), FALCON_OK);
	falcon_chassis_keep_descriptions(ch2, 3600);
	ck_assert_int_eq(falcon_chassis_descriptions_load(ch2, o, "f.json"), FALCON_OK);
	/* 2 GETs to discover the fabric, then the 4 of ownership */
	ck_assert_int_eq(desc_read(ch2, &t, 2, "H1", "OK"), 2 + 4);
	falcon_chassis_close(ch2);

	/* descriptions read 2 hours ago, trusted 1 hour: one refreshed per read */
	e = json_object_object_get(o, "descriptions");
	for (size_t i = 0; i < json_object_array_length(e); i++)
		json_object_object_add(json_object_array_get_idx(e, i), "read",
				       json_object_new_int64((int64_t)time(NULL) - 7200));
	ck_assert_int_eq(falcon_chassis_open_io(FALCON_BACKEND_FABRIC, count_get, NULL, &t, NULL,
						0, &ch2), FALCON_OK);
	falcon_chassis_keep_descriptions(ch2, 3600);
	ck_assert_int_eq(falcon_chassis_descriptions_load(ch2, o, "f.json"), FALCON_OK);
	ck_assert_int_eq(desc_read(ch2, &t, 2, "H1", "OK"), 2 + 4 + 1); /* the host port */
	ck_assert_int_eq(desc_read(ch2, &t, 2, "H1", "OK"), 4 + 2);
	ck_assert_int_eq(desc_read(ch2, &t, 2, "H1", "OK"), 4 + 2);
	ck_assert_int_eq(desc_read(ch2, &t, 2, "H1", "OK"), 4);
	falcon_chassis_close(ch2);
	json_object_put(o);
	falcon_chassis_close(ch);
}
END_TEST

/* A file that is not what _save() wrote: the field named, nothing taken. */
static const struct { const char *json; const char *msg; } desc_bad[] = {
	{ "[]", "f.json: descriptions: expected an array" },
	{ "{\"descriptions\":{}}", "f.json: descriptions: expected an array" },
	{ "{\"descriptions\":[7]}", "f.json: descriptions[0]: expected an object" },
	{ "{\"descriptions\":[{\"read\":1}]}", "descriptions[0].path: expected a string" },
	{ "{\"descriptions\":[{\"path\":\"/etc/passwd\",\"read\":1}]}",
	  "descriptions[0].path: expected a /redfish/v1 path" },
	{ "{\"descriptions\":[{\"path\":\"" EPS "/x\",\"host\":1,\"read\":1}]}",
	  "descriptions[0].host: expected true or false" },
	{ "{\"descriptions\":[{\"path\":\"" EPS "/x\",\"host\":true}]}",
	  "descriptions[0].read: expected a UNIX time (s)" },
	{ "{\"descriptions\":[{\"path\":\"" EPS "/x\",\"read\":1}]}",
	  "descriptions[0].device: expected an object" },
	{ "{\"descriptions\":[{\"path\":\"" EPS "/x\",\"read\":1,\"device\":{\"id\":\"x\","
	  "\"odata_id\":\"" EPS "/x\",\"type\":\"GPU\",\"slot\":\"2\"}}]}",
	  "descriptions[0].device.slot: expected an integer 0-255" },
	{ "{\"descriptions\":[{\"path\":\"" EPS "/x\",\"read\":1,\"device\":{\"id\":\"x\","
	  "\"odata_id\":\"" EPS "/x\",\"type\":\"FPGA\"}}]}",
	  "descriptions[0].device.type: expected GPU, NVMe, NIC or other" },
	{ "{\"descriptions\":[{\"path\":\"" EPS "/x\",\"read\":1,\"device\":{\"id\":\"../x\","
	  "\"odata_id\":\"" EPS "/x\",\"type\":\"GPU\"}}]}",
	  "descriptions[0].device.id: expected an id" },
};

START_TEST(test_desc_load_bad)
{
	struct desc_tree t;
	struct falcon_chassis *ch;
	struct json_object *o = json_tokener_parse(desc_bad[_i].json);

	desc_tree_init(&t);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(falcon_chassis_open_io(FALCON_BACKEND_FABRIC, count_get, NULL, &t, NULL,
						0, &ch), FALCON_OK);
	falcon_chassis_keep_descriptions(ch, 3600);
	ck_assert_int_eq(falcon_chassis_descriptions_load(ch, o, "f.json"), FALCON_ERR_PARSE);
	ck_assert_msg(strstr(falcon_errmsg(), desc_bad[_i].msg) != NULL, "'%s' not in '%s'",
		      desc_bad[_i].msg, falcon_errmsg());
	/* nothing taken: the first inventory reads everything */
	ck_assert_int_eq(desc_read(ch, &t, 2, "H1", "OK"), 2 + 4 + 3 + 2 * 1);
	json_object_put(o);
	falcon_chassis_close(ch);
}
END_TEST

/* A service whose collections are large and whose resources link on and
 * on: every operation stays within its budget of requests. */
static falcon_err_t loop_get(void *ctx, const char *path, struct json_object **out,
			     char *etag, size_t etag_len)
{
	char body[16384];
	size_t len;
	int i;

	(void)ctx;
	if (etag != NULL)
		etag[0] = '\0';
	if (strlen(path) > 200)
		return falcon_err_set(FALCON_ERR_NOTFOUND, "%s", path);
	len = (size_t)snprintf(body, sizeof(body), "{\"@odata.id\":\"%s\",\"Members\":[", path);
	for (i = 0; i < 100; i++)
		len += (size_t)snprintf(body + len, sizeof(body) - len,
					"%s{\"@odata.id\":\"%s/m%d\"}", i ? "," : "", path, i);
	snprintf(body + len, sizeof(body) - len,
		 "],\"Processors\":[{\"@odata.id\":\"%s/p\"}]}", path);
	return falcon_rf_parse(body, strlen(body), path, out);
}

START_TEST(test_tree_unbounded)
{
	struct falcon_chassis *ch;
	struct falcon_inventory inv;
	falcon_err_t rv;

	ck_assert_int_eq(falcon_chassis_open_io(FALCON_BACKEND_COMPOSITION, loop_get, NULL,
						NULL, NULL, 50, &ch), FALCON_OK);
	rv = falcon_chassis_inventory(ch, &inv);
	ck_assert_msg(rv == FALCON_ERR_PROTOCOL, "%s", falcon_errmsg());
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "more than 50 requests"));
	falcon_chassis_close(ch);
}
END_TEST

START_TEST(test_too_many_members)
{
	static const char head[] = "{\"Members\":[";
	size_t n = FALCON_BE_MAX_MEMBERS + 1, i, len = 0;
	char *body = malloc(n * 64 + 64);
	struct json_object *obj;
	const char **paths;
	size_t np;

	ck_assert_ptr_nonnull(body);
	len += (size_t)sprintf(body, "%s", head);
	for (i = 0; i < n; i++)
		len += (size_t)sprintf(body + len, "%s{\"@odata.id\":\"/redfish/v1/S/%zu\"}",
				       i ? "," : "", i);
	len += (size_t)sprintf(body + len, "]}");
	ck_assert_int_eq(falcon_rf_parse(body, len, "big", &obj), FALCON_OK);
	ck_assert_int_eq(falcon_be_members(obj, "big", &paths, &np), FALCON_ERR_PROTOCOL);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "4097 members"));
	json_object_put(obj);
	free(body);
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

/* ------------------------------------------------------------------ */
/* credentials                                                          */
/* ------------------------------------------------------------------ */

static const struct {
	unsigned mode;
	const char *text;   /* NULL: make a directory */
	falcon_err_t err;
	const char *user, *pass, *msg;
} cred_cases[] = {
	{ 0600, "admin:secret\n", FALCON_OK, "admin", "secret", NULL },
	{ 0400, "admin:pa:ss:wd", FALCON_OK, "admin", "pa:ss:wd", NULL },
	{ 0600, "root:x\r\nignored\n", FALCON_OK, "root", "x", NULL },
	{ 0640, "admin:secret\n", FALCON_ERR_PERM, NULL, NULL, "mode 0640" },
	{ 0604, "admin:secret\n", FALCON_ERR_PERM, NULL, NULL, "mode 0604" },
	{ 0620, "admin:secret\n", FALCON_ERR_PERM, NULL, NULL, "mode 0620" },
	{ 0600, "", FALCON_ERR_CONFIG, NULL, NULL, "user:password" },
	{ 0600, "admin\n", FALCON_ERR_CONFIG, NULL, NULL, "user:password" },
	{ 0600, ":secret\n", FALCON_ERR_CONFIG, NULL, NULL, "user:password" },
	{ 0700, NULL, FALCON_ERR_PERM, NULL, NULL, "not a regular file" },
};

START_TEST(test_credentials)
{
	const char *dir = make_tmpdir("cred");
	char path[4200], user[64], pass[64];
	falcon_err_t rv;
	int fd;

	snprintf(path, sizeof(path), "%s/cred", dir);
	if (cred_cases[_i].text == NULL) {
		ck_assert_int_eq(mkdir(path, cred_cases[_i].mode), 0);
	} else {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(write(fd, cred_cases[_i].text, strlen(cred_cases[_i].text)),
				 (ssize_t)strlen(cred_cases[_i].text));
		close(fd);
		ck_assert_int_eq(chmod(path, cred_cases[_i].mode), 0);
	}
	rv = falcon_rf_read_credentials(path, user, sizeof(user), pass, sizeof(pass));
	ck_assert_msg(rv == cred_cases[_i].err, "case %d: %s (%s)", _i, falcon_err_name(rv),
		      falcon_errmsg());
	if (rv == FALCON_OK) {
		ck_assert_str_eq(user, cred_cases[_i].user);
		ck_assert_str_eq(pass, cred_cases[_i].pass);
	} else {
		ck_assert_ptr_nonnull(strstr(falcon_errmsg(), path));
		ck_assert_msg(strstr(falcon_errmsg(), cred_cases[_i].msg) != NULL, "%s",
			      falcon_errmsg());
	}
	if (cred_cases[_i].text == NULL)
		rmdir(path);
	else
		unlink(path);
	snprintf(path, sizeof(path), "%s/absent", dir);
	ck_assert_int_eq(falcon_rf_read_credentials(path, user, sizeof(user), pass,
						    sizeof(pass)), FALCON_ERR_NOTFOUND);
	rmdir(dir);
}
END_TEST

/* ------------------------------------------------------------------ */
/* the HTTP client against an in-process libmicrohttpd server           */
/* ------------------------------------------------------------------ */

/*
 * The server keeps one zone (H1, fabric PCIe) and one resource block
 * (drawer1_slot2, system H1) with real ETag/If-Match semantics, a session
 * service, and knobs that make it misbehave.
 */
static struct srv {
	pthread_mutex_t lock;
	struct MHD_Daemon *d;
	unsigned port;
	bool need_auth;
	int etag;                  /* zone version */
	char eps[8][128];          /* zone endpoints */
	int neps;
	bool block_linked;
	int force_412;             /* answer 412 this many times (another writer) */
	bool conflict;             /* PATCH -> 409 */
	int apply_then_500;        /* PATCH/POST applied, then 500, this many times */
	bool patch_204;            /* answer a PATCH 204 without the zone */
	int patches, posts, deletes_session, logins, zone_gets;
	char last_if_match[128], last_token[128], last_authz[128];
} S = { .lock = PTHREAD_MUTEX_INITIALIZER };

struct upload {
	char buf[8192];
	size_t len;
};

static enum MHD_Result srv_reply(struct MHD_Connection *c, unsigned status, const char *body,
				 const char *etag, const char *token, const char *location)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), (void *)body,
								 MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;

	if (etag != NULL)
		MHD_add_response_header(r, "ETag", etag);
	if (token != NULL)
		MHD_add_response_header(r, "X-Auth-Token", token);
	if (location != NULL)
		MHD_add_response_header(r, "Location", location);
	MHD_add_response_header(r, "Content-Type", "application/json");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static void zone_body(char *buf, size_t n)
{
	size_t len;
	int i;

	len = (size_t)snprintf(buf, n, "{\"@odata.id\":\"" ZONES "/H1\",\"@odata.etag\":"
			       "\"\\\"%d\\\"\",\"Links\":{\"Endpoints\":[", S.etag);
	for (i = 0; i < S.neps; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s{\"@odata.id\":\"%s\"}",
					i ? "," : "", S.eps[i]);
	snprintf(buf + len, n - len, "]}}");
}

static void block_body(char *buf, size_t n)
{
	snprintf(buf, n, "{\"@odata.id\":\"" BLOCKS "/drawer1_slot2\",\"CompositionStatus\":"
		 "{\"CompositionState\":\"%s\",\"SharingCapable\":false},\"Links\":"
		 "{\"ComputerSystems\":[%s]}}", S.block_linked ? "Composed" : "Unused",
		 S.block_linked ? "{\"@odata.id\":\"/redfish/v1/Systems/H1\"}" : "");
}

static enum MHD_Result srv_handle(struct MHD_Connection *c, const char *url,
				  const char *method, struct upload *up)
{
	char body[4096], etag[32];
	const char *v;

	if (!strcmp(method, "POST") && !strcmp(url, "/redfish/v1/SessionService/Sessions")) {
		S.logins++;
		if (strstr(up->buf, "\"UserName\":\"admin\"") == NULL ||
		    strstr(up->buf, "\"Password\":\"secret\"") == NULL)
			return srv_reply(c, 401, RF_ERR("Invalid user name or password."), NULL,
					 NULL, NULL);
		return srv_reply(c, 201, "{\"@odata.id\":\"/redfish/v1/SessionService/Sessions/1\"}",
				 NULL, "tok123", "/redfish/v1/SessionService/Sessions/1");
	}
	v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Auth-Token");
	falcon_strlcpy(S.last_token, v ? v : "", sizeof(S.last_token));
	v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
	falcon_strlcpy(S.last_authz, v ? v : "", sizeof(S.last_authz));
	if (S.need_auth && strcmp(S.last_token, "tok123") != 0 &&
	    strcmp(S.last_authz, "Basic YWRtaW46c2VjcmV0") != 0)
		return srv_reply(c, 401, RF_ERR("No valid session."), NULL, NULL, NULL);
	if (!strcmp(method, "DELETE") && !strcmp(url, "/redfish/v1/SessionService/Sessions/1")) {
		S.deletes_session++;
		return srv_reply(c, 204, "", NULL, NULL, NULL);
	}
	if (!strncmp(url, "/redfish/v1/status/", 19)) {
		long st = strtol(url + 19, NULL, 10);

		return srv_reply(c, (unsigned)st, RF_ERR("Status as asked."), NULL, NULL, NULL);
	}
	if (!strcmp(url, "/redfish/v1/big")) {
		size_t n = FALCON_RF_MAX_BODY + 100;
		char *big = malloc(n + 1);
		struct MHD_Response *r;
		enum MHD_Result ret;

		memset(big, ' ', n);
		big[0] = '{', big[n - 1] = '}';
		r = MHD_create_response_from_buffer(n, big, MHD_RESPMEM_MUST_FREE);
		ret = MHD_queue_response(c, 200, r);
		MHD_destroy_response(r);
		return ret;
	}
	if (!strcmp(url, "/redfish/v1/notjson"))
		return srv_reply(c, 200, "<html>hello</html>", NULL, NULL, NULL);
	snprintf(etag, sizeof(etag), "\"%d\"", S.etag);
	if (!strcmp(url, ZONES "/H1") && !strcmp(method, "GET")) {
		S.zone_gets++;
		zone_body(body, sizeof(body));
		return srv_reply(c, 200, body, etag, NULL, NULL);
	}
	if (!strcmp(url, ZONES "/H1") && !strcmp(method, "PATCH")) {
		struct json_object *req, *arr;
		size_t i;

		S.patches++;
		v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "If-Match");
		falcon_strlcpy(S.last_if_match, v ? v : "", sizeof(S.last_if_match));
		if (S.force_412 > 0) {
			S.force_412--;
			S.etag++; /* another writer got there first */
			return srv_reply(c, 412, RF_ERR("The ETag is stale."), NULL, NULL, NULL);
		}
		if (v == NULL || strcmp(v, etag) != 0)
			return srv_reply(c, 412, RF_ERR("If-Match does not match."), NULL, NULL,
					 NULL);
		if (S.conflict)
			return srv_reply(c, 409, RF_ERR("drawer1_slot1 is in zone H2."), NULL,
					 NULL, NULL);
		if (falcon_rf_parse(up->buf, up->len, "PATCH", &req) != FALCON_OK)
			return srv_reply(c, 400, RF_ERR("Malformed JSON."), NULL, NULL, NULL);
		arr = falcon_rf_arr(falcon_rf_obj(req, "Links"), "Endpoints");
		S.neps = 0;
		for (i = 0; arr != NULL && i < json_object_array_length(arr) && i < 8; i++)
			falcon_strlcpy(S.eps[S.neps++],
				       falcon_rf_str(json_object_array_get_idx(arr, i),
						     "@odata.id") ?: "?", sizeof(S.eps[0]));
		json_object_put(req);
		S.etag++;
		if (S.apply_then_500 > 0 && S.apply_then_500--)
			return srv_reply(c, 500, RF_ERR("Lost the answer."), NULL, NULL, NULL);
		if (S.patch_204)
			return srv_reply(c, 204, "", NULL, NULL, NULL);
		zone_body(body, sizeof(body));
		snprintf(etag, sizeof(etag), "\"%d\"", S.etag);
		return srv_reply(c, 200, body, etag, NULL, NULL);
	}
	if (!strcmp(url, BLOCKS "/drawer1_slot2") && !strcmp(method, "GET")) {
		block_body(body, sizeof(body));
		return srv_reply(c, 200, body, NULL, NULL, NULL);
	}
	if (!strcmp(method, "POST") &&
	    (!strcmp(url, "/redfish/v1/Systems/H1/Actions/ComputerSystem.AddResourceBlock") ||
	     !strcmp(url, "/redfish/v1/Systems/H1/Actions/ComputerSystem.RemoveResourceBlock"))) {
		S.posts++;
		if (strstr(up->buf, "{\"ResourceBlock\":{\"@odata.id\":\"" BLOCKS
			   "/drawer1_slot2\"}}") == NULL)
			return srv_reply(c, 400, RF_ERR("Bad ResourceBlock."), NULL, NULL, NULL);
		S.block_linked = strstr(url, "AddResourceBlock") != NULL;
		if (S.apply_then_500 > 0 && S.apply_then_500--)
			return srv_reply(c, 500, RF_ERR("Lost the answer."), NULL, NULL, NULL);
		return srv_reply(c, 204, "", NULL, NULL, NULL);
	}
	return srv_reply(c, 404, RF_ERR("The resource at the URI was not found."), NULL, NULL,
			 NULL);
}

static enum MHD_Result srv_cb(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *data,
			      size_t *data_size, void **state)
{
	struct upload *up = *state;
	enum MHD_Result ret;

	if (up == NULL) {
		up = calloc(1, sizeof(*up));
		*state = up;
		return up ? MHD_YES : MHD_NO;
	}
	if (*data_size > 0) {
		size_t n = *data_size < sizeof(up->buf) - 1 - up->len ? *data_size :
			   sizeof(up->buf) - 1 - up->len;

		memcpy(up->buf + up->len, data, n);
		up->len += n;
		up->buf[up->len] = '\0';
		*data_size = 0;
		return MHD_YES;
	}
	pthread_mutex_lock(&S.lock);
	ret = srv_handle(c, url, method, up);
	pthread_mutex_unlock(&S.lock);
	return ret;
}

static void srv_done(void *cls, struct MHD_Connection *c, void **state,
		     enum MHD_RequestTerminationCode code)
{
	free(*state);
	*state = NULL;
}

static void srv_start(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	const union MHD_DaemonInfo *info;

	pthread_mutex_lock(&S.lock);
	S.etag = 1;
	S.neps = 1;
	snprintf(S.eps[0], sizeof(S.eps[0]), EPS "/hostport1_H1");
	S.block_linked = false;
	S.need_auth = false;
	S.force_412 = 0;
	S.conflict = false;
	S.apply_then_500 = 0;
	S.patch_204 = false;
	S.patches = S.posts = S.deletes_session = S.logins = S.zone_gets = 0;
	pthread_mutex_unlock(&S.lock);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	S.d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, srv_cb, NULL,
			       MHD_OPTION_SOCK_ADDR, &sin, MHD_OPTION_NOTIFY_COMPLETED,
			       srv_done, NULL, MHD_OPTION_END);
	ck_assert_ptr_nonnull(S.d);
	info = MHD_get_daemon_info(S.d, MHD_DAEMON_INFO_BIND_PORT);
	ck_assert_ptr_nonnull(info);
	S.port = info->port;
	signal(SIGPIPE, SIG_IGN);
}

static void srv_stop(void)
{
	MHD_stop_daemon(S.d);
	S.d = NULL;
}

static const char *srv_url(void)
{
	static char url[64];

	snprintf(url, sizeof(url), "http://127.0.0.1:%u", S.port);
	return url;
}

static const char *cred_file(const char *text)
{
	static char path[4200];
	const char *dir = make_tmpdir("http");
	int fd;

	snprintf(path, sizeof(path), "%s/cred", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

/* cred_drop - remove a file made by cred_file() and its directory. */
static void cred_drop(const char *path)
{
	char dir[4200];

	if (path == NULL)
		return;
	falcon_strlcpy(dir, path, sizeof(dir));
	unlink(path);
	*strrchr(dir, '/') = '\0';
	rmdir(dir);
}

static struct falcon_chassis *open_chassis(falcon_backend_t b, const char *cred, bool basic)
{
	struct falcon_chassis_opts o = {
		.url = srv_url(), .backend = b, .credentials_file = cred, .basic_auth = basic,
		.fabric = "/redfish/v1/Fabrics/PCIe", .timeout_s = 10,
	};
	struct falcon_chassis *ch = NULL;
	falcon_err_t rv = falcon_chassis_open_opts(&o, &ch);

	ck_assert_msg(rv == FALCON_OK, "%s", falcon_errmsg());
	cred_drop(cred); /* read when opening */
	return ch;
}

START_TEST(test_http_session)
{
	struct falcon_chassis *ch;
	const char *cred = cred_file("admin:secret\n");

	srv_start();
	S.need_auth = true;
	ch = open_chassis(FALCON_BACKEND_FABRIC, cred, false);
	ck_assert_int_eq(S.logins, 1);
	ck_assert_int_eq(falcon_chassis_attach(ch, "H1", "drawer1_slot1"), FALCON_OK);
	ck_assert_str_eq(S.last_token, "tok123");
	ck_assert_str_eq(S.last_authz, "");
	falcon_chassis_close(ch);
	ck_assert_int_eq(S.deletes_session, 1);
	srv_stop();
}
END_TEST

START_TEST(test_http_session_refused)
{
	struct falcon_chassis_opts o = { .backend = FALCON_BACKEND_FABRIC };
	struct falcon_chassis *ch = NULL;

	srv_start();
	S.need_auth = true;
	o.url = srv_url();
	o.credentials_file = cred_file("admin:wrong\n");
	ck_assert_int_eq(falcon_chassis_open_opts(&o, &ch), FALCON_ERR_AUTH);
	cred_drop(o.credentials_file);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "Invalid user name or password."));
	ck_assert_ptr_null(ch);
	/* anonymous against a service that wants auth: 401 on the first request */
	o.credentials_file = NULL;
	ck_assert_int_eq(falcon_chassis_open_opts(&o, &ch), FALCON_OK);
	ck_assert_int_eq(falcon_chassis_attach(ch, "H1", "drawer1_slot1"), FALCON_ERR_AUTH);
	falcon_chassis_close(ch);
	srv_stop();
}
END_TEST

START_TEST(test_http_basic_auth)
{
	struct falcon_chassis *ch;

	srv_start();
	S.need_auth = true;
	ch = open_chassis(FALCON_BACKEND_FABRIC, cred_file("admin:secret"), true);
	ck_assert_int_eq(S.logins, 0);
	ck_assert_int_eq(falcon_chassis_verify(ch, "H1", "drawer1_slot1", false), FALCON_OK);
	ck_assert_str_eq(S.last_authz, "Basic YWRtaW46c2VjcmV0");
	ck_assert_str_eq(S.last_token, "");
	falcon_chassis_close(ch);
	ck_assert_int_eq(S.deletes_session, 0);
	srv_stop();
}
END_TEST

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
	falcon_chassis_close(ch);
	srv_stop();
}
END_TEST

static const long http_statuses[] = { 400, 401, 403, 404, 405, 409, 412, 500, 503 };

START_TEST(test_http_status)
{
	struct falcon_rf_opts o = { 0 };
	struct falcon_rf *rf;
	struct falcon_rf_resp resp;
	char path[64];
	falcon_err_t rv, want;

	srv_start();
	o.url = srv_url();
	ck_assert_int_eq(falcon_rf_open(&o, &rf), FALCON_OK);
	snprintf(path, sizeof(path), "/redfish/v1/status/%ld", http_statuses[_i]);
	rv = falcon_rf_request(rf, "GET", path, NULL, NULL, &resp);
	want = falcon_rf_map_status(http_statuses[_i], NULL, 0, "GET", "x");
	ck_assert_int_eq(rv, want);
	rv = falcon_rf_request(rf, "GET", path, NULL, NULL, &resp);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "Status as asked."));
	ck_assert_ptr_null(resp.body);
	falcon_rf_close(rf);
	srv_stop();
}
END_TEST

START_TEST(test_http_bodies)
{
	struct falcon_rf_opts o = { 0 };
	struct falcon_rf *rf;
	struct json_object *obj;
	char etag[FALCON_RF_ETAG_LEN];

	srv_start();
	o.url = srv_url();
	ck_assert_int_eq(falcon_rf_open(&o, &rf), FALCON_OK);
	ck_assert_int_eq(falcon_rf_get(rf, ZONES "/H1", &obj, etag, sizeof(etag)), FALCON_OK);
	ck_assert_str_eq(etag, "\"1\"");
	json_object_put(obj);
	ck_assert_int_eq(falcon_rf_get(rf, "/redfish/v1/big", &obj, NULL, 0), FALCON_ERR_PROTOCOL);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "larger than"));
	ck_assert_int_eq(falcon_rf_get(rf, "/redfish/v1/notjson", &obj, NULL, 0), FALCON_ERR_PARSE);
	ck_assert_ptr_null(obj);
	/* the method prefixed to the parser's own detail, which is kept whole
	 * (it was once formatted into the buffer it was read from) */
	ck_assert_msg(strncmp(falcon_errmsg(), "GET http://", 11) == 0 &&
		      strstr(falcon_errmsg(), "/redfish/v1/notjson: malformed JSON") != NULL,
		      "detail: %s", falcon_errmsg());
	ck_assert_int_eq(falcon_rf_get(rf, "/etc/passwd", &obj, NULL, 0), FALCON_ERR_INVAL);
	falcon_rf_close(rf);
	srv_stop();
}
END_TEST

static int insecure_warnings;

static void capture(falcon_log_level_t level, const char *line, void *ctx)
{
	if (level == FALCON_LOG_WARN && strstr(line, "verification is OFF") != NULL)
		insecure_warnings++;
}

START_TEST(test_http_insecure_warns)
{
	struct falcon_rf_opts o = { 0 };
	struct falcon_rf *rf;
	struct json_object *obj;

	srv_start();
	o.url = srv_url();
	ck_assert_int_eq(falcon_log_add_sink(capture, FALCON_LOG_WARN, NULL), 0);
	ck_assert_int_eq(falcon_rf_open(&o, &rf), FALCON_OK);
	ck_assert_int_eq(insecure_warnings, 0);
	falcon_rf_close(rf);
	o.insecure = true;
	ck_assert_int_eq(falcon_rf_open(&o, &rf), FALCON_OK);
	ck_assert_int_eq(insecure_warnings, 1);
	ck_assert_int_eq(falcon_rf_get(rf, ZONES "/H1", &obj, NULL, 0), FALCON_OK);
	json_object_put(obj);
	falcon_rf_close(rf);
	srv_stop();
}
END_TEST

START_TEST(test_http_transport)
{
	struct falcon_rf_opts o = { .connect_timeout_ms = 2000, .timeout_ms = 300 };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t slen = sizeof(sin);
	struct falcon_rf *rf;
	struct json_object *obj;
	char url[64];
	int s;

	/* a listener that never accepts: the connection opens, no answer comes */
	s = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(s, 0);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(s, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ck_assert_int_eq(listen(s, 4), 0);
	ck_assert_int_eq(getsockname(s, (struct sockaddr *)&sin, &slen), 0);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u", ntohs(sin.sin_port));
	o.url = url;
	ck_assert_int_eq(falcon_rf_open(&o, &rf), FALCON_OK);
	ck_assert_int_eq(falcon_rf_get(rf, "/redfish/v1", &obj, NULL, 0), FALCON_ERR_TIMEOUT);
	falcon_rf_close(rf);
	/* nobody listening: refused */
	close(s);
	ck_assert_int_eq(falcon_rf_open(&o, &rf), FALCON_OK);
	ck_assert_int_eq(falcon_rf_get(rf, "/redfish/v1", &obj, NULL, 0), FALCON_ERR_TRANSPORT);
	falcon_rf_close(rf);
	/* TLS verification on by default: TLS to a plain HTTP server fails */
	srv_start();
	snprintf(url, sizeof(url), "https://127.0.0.1:%u", S.port);
	o.timeout_ms = 5000;
	ck_assert_int_eq(falcon_rf_open(&o, &rf), FALCON_OK);
	ck_assert_int_eq(falcon_rf_get(rf, "/redfish/v1", &obj, NULL, 0), FALCON_ERR_TRANSPORT);
	falcon_rf_close(rf);
	srv_stop();
	/* bad URLs */
	o.url = "ftp://x";
	ck_assert_int_eq(falcon_rf_open(&o, &rf), FALCON_ERR_INVAL);
	o.url = "http://";
	ck_assert_int_eq(falcon_rf_open(&o, &rf), FALCON_ERR_INVAL);
	o.url = "http://a b";
	ck_assert_int_eq(falcon_rf_open(&o, &rf), FALCON_ERR_INVAL);
}
END_TEST

/* The two backends share these: which errors skip the rollback of an
 * attach, and what a refused detach becomes. */
START_TEST(test_be_shared_results)
{
	ck_assert(falcon_be_err_definite(FALCON_ERR_CONFLICT));
	ck_assert(falcon_be_err_definite(FALCON_ERR_PRECONDITION));
	ck_assert(!falcon_be_err_definite(FALCON_ERR_CHASSIS));
	ck_assert(!falcon_be_err_definite(FALCON_ERR_TIMEOUT));
	ck_assert(!falcon_be_err_definite(FALCON_OK));

	falcon_err_set(FALCON_ERR_CONFLICT, "HTTP 409 on drawer1_slot3");
	ck_assert_int_eq(falcon_be_detach_result(FALCON_ERR_CONFLICT), FALCON_ERR_CHASSIS);
	ck_assert_str_eq(falcon_errmsg(), "detach refused: HTTP 409 on drawer1_slot3");
	ck_assert_int_eq(falcon_be_detach_result(FALCON_OK), FALCON_OK);
	ck_assert_int_eq(falcon_be_detach_result(FALCON_ERR_NOTFOUND), FALCON_ERR_NOTFOUND);
}
END_TEST

/* Changes sent through falcon_be_send / falcon_be_send_resp: counted. */
static int sends, send_resps;

static falcon_err_t count_send(void *ctx, const char *method, const char *path,
			       struct json_object *body, const char *if_match)
{
	(void)ctx, (void)method, (void)path, (void)body, (void)if_match;
	sends++;
	return FALCON_OK;
}

static falcon_err_t count_send_resp(void *ctx, const char *method, const char *path,
				    struct json_object *body, const char *if_match,
				    struct json_object **out, char *etag, size_t etag_len)
{
	(void)ctx, (void)method, (void)path, (void)body, (void)if_match;
	send_resps++;
	*out = json_object_new_object();
	falcon_strlcpy(etag, "W/\"2\"", etag_len);
	return FALCON_OK;
}

/* falcon_be_send_resp: the answer when the client keeps one, else a plain
 * send; both spend the budget; a read-only client refuses. */
START_TEST(test_be_send_resp)
{
	struct falcon_be be = { .max_fetches = 2, .budget = 2 };
	struct json_object *out = (struct json_object *)&be;
	char etag[FALCON_RF_ETAG_LEN] = "stale";

	ck_assert_int_eq(falcon_be_send_resp(&be, "PATCH", ZONES "/H1", NULL, NULL, &out, etag,
					     sizeof(etag)), FALCON_ERR_UNSUPPORTED);
	ck_assert_ptr_null(out);
	ck_assert_str_eq(etag, "");
	be.send = count_send;
	sends = send_resps = 0;
	ck_assert_int_eq(falcon_be_send_resp(&be, "PATCH", ZONES "/H1", NULL, NULL, &out, etag,
					     sizeof(etag)), FALCON_OK);
	ck_assert_ptr_null(out);
	ck_assert_int_eq(sends, 1);
	be.send_resp = count_send_resp;
	ck_assert_int_eq(falcon_be_send_resp(&be, "PATCH", ZONES "/H1", NULL, NULL, &out, etag,
					     sizeof(etag)), FALCON_OK);
	ck_assert_ptr_nonnull(out);
	ck_assert_str_eq(etag, "W/\"2\"");
	ck_assert_int_eq(send_resps, 1);
	json_object_put(out);
	ck_assert_int_eq(be.budget, 0);
	ck_assert_int_eq(falcon_be_send_resp(&be, "PATCH", ZONES "/H1", NULL, NULL, &out, etag,
					     sizeof(etag)), FALCON_ERR_PROTOCOL);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "more than 2 requests"));
	ck_assert_int_eq(sends + send_resps, 2);
}
END_TEST

/* A scripted falcon_be_change_fn: call i returns script[i] with changed[i]. */
static struct {
	int calls;
	bool add[2];
	long budget[2];
	falcon_err_t rv[2];
	bool changed[2];
	const char *msg[2];
} fake;

static falcon_err_t fake_change(struct falcon_be *be, const char *port, const char *dev,
				bool add, bool *changed)
{
	int i = fake.calls++;

	ck_assert_int_lt(i, 2);
	ck_assert_str_eq(port, "H1");
	ck_assert_str_eq(dev, "drawer1_slot3");
	fake.add[i] = add;
	fake.budget[i] = be->budget;
	be->budget -= 3;
	*changed = fake.changed[i];
	if (fake.rv[i] != FALCON_OK)
		return falcon_err_set(fake.rv[i], "%s", fake.msg[i]);
	return FALCON_OK;
}

static const struct {
	falcon_err_t rv, rb;       /* the attach's and the rollback's results */
	bool rb_changed;
	int calls;                 /* 1: no rollback */
	const char *msg;           /* the detail afterwards */
} rollback_cases[] = {
	{ FALCON_OK, FALCON_OK, false, 1, NULL },
	{ FALCON_ERR_CONFLICT, FALCON_OK, false, 1, "attach failed" },
	{ FALCON_ERR_NOTFOUND, FALCON_OK, false, 1, "attach failed" },
	{ FALCON_ERR_TIMEOUT, FALCON_OK, true, 2,
	  "attach failed; rolled back: taken away again" },
	{ FALCON_ERR_CHASSIS, FALCON_OK, false, 2, "attach failed; rolled back: was not there" },
	{ FALCON_ERR_TRANSPORT, FALCON_ERR_TIMEOUT, false, 2,
	  "attach failed; rollback failed, state unknown: rollback failed" },
};

/* falcon_be_attach_with_rollback: which errors are rolled back, on a fresh
 * budget, and what the detail says; falcon_be_detach: a refusal. */
START_TEST(test_be_attach_rollback)
{
	struct falcon_be be = { .max_fetches = 100, .budget = 10 };
	falcon_err_t rv;

	memset(&fake, 0, sizeof(fake));
	fake.rv[0] = rollback_cases[_i].rv;
	fake.msg[0] = "attach failed";
	fake.changed[0] = true;
	fake.rv[1] = rollback_cases[_i].rb;
	fake.msg[1] = "rollback failed";
	fake.changed[1] = rollback_cases[_i].rb_changed;
	falcon_err_clear();
	rv = falcon_be_attach_with_rollback(&be, "H1", "drawer1_slot3", fake_change,
					    "taken away again", "was not there");
	ck_assert_int_eq(rv, rollback_cases[_i].rv);
	ck_assert_int_eq(fake.calls, rollback_cases[_i].calls);
	ck_assert(fake.add[0]);
	ck_assert_int_eq(fake.budget[0], 10);
	if (fake.calls == 2) {
		ck_assert(!fake.add[1]);
		ck_assert_int_eq(fake.budget[1], 100); /* a fresh budget */
	}
	if (rollback_cases[_i].msg != NULL)
		ck_assert_str_eq(falcon_errmsg(), rollback_cases[_i].msg);

	memset(&fake, 0, sizeof(fake));
	fake.rv[0] = FALCON_ERR_CONFLICT;
	fake.msg[0] = "HTTP 409";
	ck_assert_int_eq(falcon_be_detach(&be, "H1", "drawer1_slot3", fake_change),
			 FALCON_ERR_CHASSIS);
	ck_assert(!fake.add[0]);
	ck_assert_str_eq(falcon_errmsg(), "detach refused: HTTP 409");
}
END_TEST

/* ------------------------------------------------------------------ */
/* Server-Sent Events and Redfish Events (rf_sse.c)                     */
/* ------------------------------------------------------------------ */

struct sse_got {
	int n;
	char id[8][64];
	char data[8][512];
};

static void sse_collect(void *ctx, const char *id, const char *data, size_t len)
{
	struct sse_got *g = ctx;

	ck_assert_int_lt(g->n, 8);
	ck_assert_uint_eq(strlen(data), len);
	falcon_strlcpy(g->id[g->n], id, sizeof(g->id[0]));
	falcon_strlcpy(g->data[g->n], data, sizeof(g->data[0]));
	g->n++;
}

/* feed text in chunks of `chunk` bytes (1 = byte by byte) */
static void sse_run(const char *text, size_t chunk, struct sse_got *g)
{
	struct falcon_sse p;
	size_t off, len = strlen(text);

	memset(g, 0, sizeof(*g));
	falcon_sse_init(&p);
	for (off = 0; off < len; off += chunk)
		ck_assert_int_eq(falcon_sse_feed(&p, text + off, len - off < chunk ? len - off : chunk,
						 sse_collect, g), FALCON_OK);
	falcon_sse_free(&p);
}

static const char sse_text[] =
	": keep-alive\n\n"                       /* a comment alone: no event */
	"id: 7\ndata: {\"a\":1}\n\n"              /* LF */
	"id: 8\r\ndata: line1\r\ndata:line2\r\n\r\n" /* CRLF, no space after ':' */
	"id: 9\rdata: x\r\r"                      /* CR alone */
	"event: ignored\nretry: 5\n: note\ndata\n\n" /* "data" without ':' = "" */
	"id: 10\n\n"                              /* an id without data: no event */
	"data: after\n\n"                         /* keeps the last id */
	"data: unterminated\n";                   /* no empty line yet */

START_TEST(test_sse_chunks)
{
	static const size_t chunks[] = { 1, 2, 3, 5, 7, 16, 4096 };
	struct sse_got g;
	size_t i;

	/* every split of the stream, CRLFs cut between their CR and LF too */
	for (i = 0; i < ARRAY_SIZE(chunks); i++) {
		sse_run(sse_text, chunks[i], &g);
		ck_assert_int_eq(g.n, 5);
		ck_assert_str_eq(g.id[0], "7");
		ck_assert_str_eq(g.data[0], "{\"a\":1}");
		ck_assert_str_eq(g.id[1], "8");
		ck_assert_str_eq(g.data[1], "line1\nline2");
		ck_assert_str_eq(g.id[2], "9");
		ck_assert_str_eq(g.data[2], "x");
		ck_assert_str_eq(g.id[3], "9");
		ck_assert_str_eq(g.data[3], "");
		ck_assert_str_eq(g.id[4], "10");
		ck_assert_str_eq(g.data[4], "after");
	}
}
END_TEST

START_TEST(test_sse_too_long)
{
	struct falcon_sse p;
	struct sse_got g;
	size_t n = FALCON_SSE_MAX_LINE + 16;
	char *big = malloc(n);

	ck_assert_ptr_nonnull(big);
	memset(&g, 0, sizeof(g));
	memcpy(big, "data: ", 6);
	memset(big + 6, 'x', n - 6);
	falcon_sse_init(&p);
	ck_assert_int_eq(falcon_sse_feed(&p, big, n, sse_collect, &g), FALCON_ERR_PROTOCOL);
	falcon_sse_free(&p);
	free(big);
	ck_assert_int_eq(g.n, 0);
}
END_TEST

struct ev_got {
	int n;
	struct falcon_chassis_event ev[4];
};

static void ev_collect(void *ctx, const struct falcon_chassis_event *ev)
{
	struct ev_got *g = ctx;

	ck_assert_int_lt(g->n, 4);
	g->ev[g->n++] = *ev;
}

START_TEST(test_events_parse)
{
	static const char ev[] =
		"{\"@odata.type\":\"#Event.v1_7_0.Event\",\"Id\":\"3\",\"Events\":["
		"{\"EventType\":\"StatusChange\",\"MessageId\":\"ResourceEvent.1.4.ResourceStatusChangedCritical\","
		"\"Message\":\"The health of resource 'drawer1_slot2' has changed to Critical.\\n\","
		"\"OriginOfCondition\":{\"@odata.id\":\"/redfish/v1/Chassis/falcon1/PCIeDevices/drawer1_slot2\"}},"
		"{\"MessageId\":\"ResourceEvent.1.0.ResourceRemoved\","
		"\"OriginOfCondition\":{\"@odata.id\":\"/redfish/v1/Fabrics/PCIe/Endpoints/drawer2_slot5/\"}},"
		"{\"MessageId\":\"ResourceEvent.1.4.ResourceStatusChangedOK\","
		"\"OriginOfCondition\":{\"@odata.id\":\"/redfish/v1/Chassis/falcon1/PCIeDevices/drawer1_slot1\"}},"
		"{\"MessageId\":\"Base.1.16.Success\",\"OriginOfCondition\":\"not a link\"}]}";
	struct ev_got g;

	memset(&g, 0, sizeof(g));
	ck_assert_int_eq(falcon_rf_events_parse(ev, strlen(ev), "c1", "", ev_collect, &g), 4);
	ck_assert_int_eq(g.n, 4);
	ck_assert_int_eq(g.ev[0].kind, FALCON_EVENT_HEALTH);
	ck_assert_str_eq(g.ev[0].health, "Critical");
	ck_assert_str_eq(g.ev[0].device, "drawer1_slot2");
	ck_assert_str_eq(g.ev[0].chassis, "c1");
	ck_assert_str_eq(g.ev[0].event_id, "3"); /* no SSE id: the Event's Id */
	ck_assert_str_eq(g.ev[0].message,
			 "The health of resource 'drawer1_slot2' has changed to Critical.?");
	ck_assert_int_eq(g.ev[1].kind, FALCON_EVENT_REMOVED);
	ck_assert_str_eq(g.ev[1].device, "drawer2_slot5");
	ck_assert_int_eq(g.ev[2].kind, FALCON_EVENT_HEALTH);
	ck_assert_str_eq(g.ev[2].health, "OK");
	ck_assert_int_eq(g.ev[3].kind, FALCON_EVENT_OTHER);
	ck_assert_str_eq(g.ev[3].device, "");
	/* an SSE id wins over the Event's Id */
	memset(&g, 0, sizeof(g));
	ck_assert_int_eq(falcon_rf_events_parse(ev, strlen(ev), "c1", "41", ev_collect, &g), 4);
	ck_assert_str_eq(g.ev[0].event_id, "41");
}
END_TEST

START_TEST(test_events_malformed)
{
	static const char *const bad[] = {
		"", "not json", "{\"Events\":{}}", "[1]", "{\"Id\":\"1\"}",
		"{\"Events\":[{\"MessageId\":\"ResourceEvent.1.4.ResourceStatusChangedCritical\"}", /* cut */
	};
	struct ev_got g;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		memset(&g, 0, sizeof(g));
		ck_assert_int_eq(falcon_rf_events_parse(bad[i], strlen(bad[i]), "c1", "1",
							ev_collect, &g), -1);
		ck_assert_int_eq(g.n, 0);
	}
	/* a record of unknown shape is OTHER, never a health change */
	{
		static const char odd[] = "{\"Events\":[7,{\"MessageId\":\"ResourceEvent.1.4.ResourceStatusChangedBogus\"},"
					  "{\"MessageId\":\"ResourceEvent\"}]}";

		memset(&g, 0, sizeof(g));
		ck_assert_int_eq(falcon_rf_events_parse(odd, strlen(odd), "c1", "1", ev_collect, &g), 3);
		ck_assert_int_eq(g.ev[0].kind, FALCON_EVENT_OTHER);
		ck_assert_int_eq(g.ev[1].kind, FALCON_EVENT_OTHER);
		ck_assert_int_eq(g.ev[2].kind, FALCON_EVENT_OTHER);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("redfish");
	TCase *tc;

	falcon_log_init("test_redfish");
	falcon_log_add_sink(falcon_log_sink_stderr, FALCON_LOG_WARN, NULL);

	tc = tcase_create("mockups");
	tcase_add_test(tc, test_mockup_cxl_multiswitch);
	tcase_add_test(tc, test_mockup_cxl_explicit_fabric);
	tcase_add_test(tc, test_mockup_readonly_attach);
	tcase_add_test(tc, test_mockup_composability);
	tcase_add_test(tc, test_mockup_compose_action);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_loop_test(tc, test_map_status, 0, ARRAY_SIZE(map_cases));
	tcase_add_test(tc, test_be_shared_results);
	tcase_add_loop_test(tc, test_be_attach_rollback, 0, ARRAY_SIZE(rollback_cases));
	tcase_add_test(tc, test_be_send_resp);
	tcase_add_loop_test(tc, test_task_outcome, 0, ARRAY_SIZE(task_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("malformed");
	tcase_add_loop_test(tc, test_parse_table, 0, ARRAY_SIZE(parse_cases));
	tcase_add_test(tc, test_parse_deep_nesting);
	tcase_add_loop_test(tc, test_tree_table, 0, ARRAY_SIZE(tree_cases));
	tcase_add_test(tc, test_desc_kept);
	tcase_add_test(tc, test_desc_save_load);
	tcase_add_loop_test(tc, test_desc_load_bad, 0, ARRAY_SIZE(desc_bad));
	tcase_add_test(tc, test_tree_unbounded);
	tcase_add_test(tc, test_too_many_members);
	tcase_add_loop_test(tc, test_path_ok, 0, ARRAY_SIZE(path_cases));
	tcase_add_test(tc, test_has_string);
	tcase_add_test(tc, test_body_etag);
	suite_add_tcase(s, tc);

	tc = tcase_create("events");
	tcase_add_test(tc, test_sse_chunks);
	tcase_add_test(tc, test_sse_too_long);
	tcase_add_test(tc, test_events_parse);
	tcase_add_test(tc, test_events_malformed);
	suite_add_tcase(s, tc);

	tc = tcase_create("credentials");
	tcase_add_loop_test(tc, test_credentials, 0, ARRAY_SIZE(cred_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("http");
	tcase_add_test(tc, test_http_session);
	tcase_add_test(tc, test_http_session_refused);
	tcase_add_test(tc, test_http_basic_auth);
	tcase_add_test(tc, test_http_etag_retry);
	tcase_add_test(tc, test_http_zone_kept);
	tcase_add_test(tc, test_http_conflict);
	tcase_add_test(tc, test_http_rollback);
	tcase_add_test(tc, test_http_zone_set);
	tcase_add_test(tc, test_http_composition);
	tcase_add_loop_test(tc, test_http_status, 0, ARRAY_SIZE(http_statuses));
	tcase_add_test(tc, test_http_bodies);
	tcase_add_test(tc, test_http_insecure_warns);
	tcase_add_test(tc, test_http_transport);
	suite_add_tcase(s, tc);

	return run_suite(s);
}
