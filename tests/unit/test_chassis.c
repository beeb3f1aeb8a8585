/*
 * test_chassis.c - unit tests of lib/chassis' front end and what the two
 * backends share (chassis.c, chassis_common.c, chassis_describe.c,
 * rf_dir.c): inventories of DMTF's own mockups read from disk (skipped
 * without ../shared); resource trees served from memory, malformed or
 * unbounded (errors, never crashes); descriptions kept between
 * inventories; the backends' shared results, send_resp and
 * attach-with-rollback.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <unistd.h>

#include <json-c/json.h>

#include "chassis/chassis.h"
#include "chassis/chassis_backend.h"
#include "chassis/chassis_common.h"
#include "chassis/redfish.h"
#include "core/log.h"
#include "core/util.h"
#include "testutil.h"
#include "rf_test.h"

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
	/* before any read: the described devices, host port left out, no owner */
	{
		struct falcon_inventory inv;

		ck_assert_int_eq(falcon_chassis_descriptions_inventory(ch2, &inv), FALCON_OK);
		ck_assert_uint_eq(inv.n, 2);
		for (size_t i = 0; i < inv.n; i++) {
			ck_assert_str_eq(inv.devs[i].owner, "");
			ck_assert(inv.devs[i].id[0] != '\0');
			ck_assert_int_eq(inv.devs[i].type, FALCON_DEV_GPU);
		}
		ck_assert(!inv.cabling_known);
		falcon_inventory_free(&inv);
	}
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
	static const struct falcon_be_change how = { .one = fake_change };
	struct falcon_be be = { .max_fetches = 100, .budget = 10 };
	const char *dev = "drawer1_slot3";
	falcon_err_t rv;

	memset(&fake, 0, sizeof(fake));
	fake.rv[0] = rollback_cases[_i].rv;
	fake.msg[0] = "attach failed";
	fake.changed[0] = true;
	fake.rv[1] = rollback_cases[_i].rb;
	fake.msg[1] = "rollback failed";
	fake.changed[1] = rollback_cases[_i].rb_changed;
	falcon_err_clear();
	rv = falcon_be_attach_with_rollback(&be, "H1", &dev, 1, &how, "taken away again",
					    "was not there");
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

/* A scripted per-device change of a set: device k of "d0".."d3" answers
 * set_rv[k] to an attach (changed unless definite), every detach OK; a
 * device read back as given already (set_taken) is refused by verify. */
static struct {
	falcon_err_t set_rv[4];
	int taken;                 /* index read back as given already, -1 none */
	char log[256];             /* "+d0 -d0 ..." in call order, "?dN" a verify */
} sc;

static falcon_err_t set_change(struct falcon_be *be, const char *port, const char *dev,
			       bool add, bool *changed)
{
	int k = dev[1] - '0';
	size_t l = strlen(sc.log);

	(void)be;
	(void)port;
	snprintf(sc.log + l, sizeof(sc.log) - l, "%s%c%s", l ? " " : "", add ? '+' : '-', dev);
	*changed = !add || !falcon_be_err_definite(sc.set_rv[k]);
	if (add && sc.set_rv[k] != FALCON_OK)
		return falcon_err_set(sc.set_rv[k], "%s failed", dev);
	return FALCON_OK;
}

static falcon_err_t set_verify(struct falcon_be *be, const char *port, const char *dev,
			       bool attached)
{
	size_t l = strlen(sc.log);

	(void)be;
	(void)port;
	(void)attached;
	snprintf(sc.log + l, sizeof(sc.log) - l, "%s?%s", l ? " " : "", dev);
	return sc.taken == dev[1] - '0' ? falcon_err_set(FALCON_ERR_CHASSIS, "given") : FALCON_OK;
}

static const struct {
	falcon_err_t rv[4];
	int taken;
	falcon_err_t want;
	const char *log;
} set_cases[] = {
	{ { FALCON_OK, FALCON_OK, FALCON_OK, FALCON_OK }, -1, FALCON_OK,
	  "?d0 +d0 ?d1 +d1 ?d2 +d2 ?d3 +d3" },
	/* a definite refusal: only what came before is taken away */
	{ { FALCON_OK, FALCON_OK, FALCON_ERR_CONFLICT, FALCON_OK }, -1, FALCON_ERR_CONFLICT,
	  "?d0 +d0 ?d1 +d1 ?d2 +d2 -d1 -d0" },
	/* no definite answer: the device in flight too, last first */
	{ { FALCON_OK, FALCON_ERR_TIMEOUT, FALCON_OK, FALCON_OK }, -1, FALCON_ERR_TIMEOUT,
	  "?d0 +d0 ?d1 +d1 -d1 -d0" },
	/* one given already by someone else: refused, never taken away */
	{ { FALCON_OK, FALCON_OK, FALCON_OK, FALCON_OK }, 1, FALCON_ERR_CONFLICT,
	  "?d0 +d0 ?d1 -d0" },
	/* the first refused: nothing was changed, nothing is sent back */
	{ { FALCON_ERR_NOTFOUND, FALCON_OK, FALCON_OK, FALCON_OK }, -1, FALCON_ERR_NOTFOUND,
	  "?d0 +d0" },
};

/* falcon_be_attach_with_rollback of a set, one request per device (the
 * redfish-composition backend): all or nothing, and a device someone else
 * holds is never taken over nor taken away. */
START_TEST(test_be_attach_set_rollback)
{
	static const struct falcon_be_ops ops = { .name = "scripted", .verify = set_verify };
	static const struct falcon_be_change how = { .one = set_change, .fresh = true };
	struct falcon_be be = { .ops = &ops, .max_fetches = 100, .budget = 10 };
	const char *devs[4] = { "d0", "d1", "d2", "d3" };

	memset(&sc, 0, sizeof(sc));
	memcpy(sc.set_rv, set_cases[_i].rv, sizeof(sc.set_rv));
	sc.taken = set_cases[_i].taken;
	ck_assert_int_eq(falcon_be_attach_with_rollback(&be, "H1", devs, 4, &how, "undone",
							"absent"), set_cases[_i].want);
	ck_assert_str_eq(sc.log, set_cases[_i].log);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("chassis");
	TCase *tc;

	falcon_log_init("test_chassis");
	falcon_log_add_sink(falcon_log_sink_stderr, FALCON_LOG_WARN, NULL);

	tc = tcase_create("mockups");
	tcase_add_test(tc, test_mockup_cxl_multiswitch);
	tcase_add_test(tc, test_mockup_cxl_explicit_fabric);
	tcase_add_test(tc, test_mockup_readonly_attach);
	tcase_add_test(tc, test_mockup_composability);
	tcase_add_test(tc, test_mockup_compose_action);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_test(tc, test_be_shared_results);
	tcase_add_test(tc, test_be_send_resp);
	tcase_add_loop_test(tc, test_be_attach_rollback, 0, ARRAY_SIZE(rollback_cases));
	tcase_add_loop_test(tc, test_be_attach_set_rollback, 0, ARRAY_SIZE(set_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("malformed");
	tcase_add_loop_test(tc, test_tree_table, 0, ARRAY_SIZE(tree_cases));
	tcase_add_test(tc, test_desc_kept);
	tcase_add_test(tc, test_desc_save_load);
	tcase_add_loop_test(tc, test_desc_load_bad, 0, ARRAY_SIZE(desc_bad));
	tcase_add_test(tc, test_tree_unbounded);
	tcase_add_test(tc, test_too_many_members);
	suite_add_tcase(s, tc);

	return run_suite(s);
}
