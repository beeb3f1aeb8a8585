/*
 * chassis_describe.c - describing a device from the Redfish resources a
 * backend found it by (an Endpoint, a ResourceBlock) and those they link
 * to: id, drawer and slot, status, chassis, PCI ids and class, serial,
 * model.  Part of the layer below both backends; declared in
 * lib/chassis/chassis_common.h.  Calls only chassis_common.c's budgeted
 * GET, lib/chassis/redfish.h and lib/core.
 *
 * Reference: DMTF Redfish Resource and Schema Guide (DSP2046) 2023.3:
 * Processor, Drive, Storage, PCIeDevice, PCIeFunction, NetworkAdapter,
 * CXLLogicalDevice; PCI Code and ID Assignment Specification r1.14 (class
 * codes).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "chassis/chassis_common.h"
#include "core/log.h"
#include "core/util.h"

/* "drawer<D>_slot<S>" -> drawer, slot (falcon_slot_id_parse); another id
 * leaves them unknown (0). */
static void parse_location(struct falcon_device *dev)
{
	if (falcon_slot_id_parse(dev->id, &dev->drawer, &dev->slot) != FALCON_OK)
		falcon_err_clear();
}

static void take_str(char *dst, size_t n, const char *v)
{
	if (dst[0] == '\0' && v != NULL && v[0] != '\0') {
		size_t i;

		falcon_strlcpy(dst, v, n);
		for (i = 0; dst[i] != '\0'; i++)
			if ((unsigned char)dst[i] < 0x20 || (unsigned char)dst[i] == 0x7f)
				dst[i] = '?';
	}
}

static void take_status(struct falcon_device *dev, struct json_object *obj)
{
	struct json_object *st = falcon_rf_obj(obj, "Status");

	take_str(dev->state, sizeof(dev->state), falcon_rf_str(st, "State"));
	take_str(dev->health, sizeof(dev->health), falcon_rf_str(st, "Health"));
}

/* The chassis id of a path under /redfish/v1/Chassis/<id>[/...]. */
static void take_chassis_from_path(struct falcon_device *dev, const char *path)
{
	static const char pre[] = FALCON_RF_ROOT "/Chassis/";
	char buf[FALCON_NAME_LEN];
	size_t n;

	if (dev->chassis[0] != '\0' || path == NULL ||
	    strncmp(path, pre, sizeof(pre) - 1) != 0)
		return;
	path += sizeof(pre) - 1;
	n = strcspn(path, "/#");
	if (n == 0 || n >= sizeof(buf))
		return;
	memcpy(buf, path, n);
	buf[n] = '\0';
	take_str(dev->chassis, sizeof(dev->chassis), buf);
}

/* Links.Chassis as an object or the first of an array. */
static void take_chassis_link(struct falcon_device *dev, struct json_object *obj)
{
	struct json_object *links = falcon_rf_obj(obj, "Links");
	struct json_object *arr = falcon_rf_arr(links, "Chassis");
	const char *p = falcon_rf_link(links, "Chassis");

	if (p == NULL && arr != NULL && json_object_array_length(arr) > 0)
		p = falcon_rf_str(json_object_array_get_idx(arr, 0), "@odata.id");
	if (p != NULL && falcon_rf_path_ok(p))
		take_chassis_from_path(dev, p);
}

void falcon_be_describe(struct falcon_be *be, struct falcon_device *dev,
			const char *path, struct json_object *obj)
{
	falcon_rf_last_segment(path, dev->id, sizeof(dev->id));
	falcon_strlcpy(dev->odata_id, path, sizeof(dev->odata_id));
	parse_location(dev);
	take_status(dev, obj);
	take_chassis_link(dev, obj);
}

/* "0x10DE" / "10de" -> "10de" when it is a 16-bit hex number. */
static void take_hex16(char *dst, size_t n, const char *v)
{
	long x;

	if (dst[0] != '\0' || v == NULL)
		return;
	if (falcon_strtol(v, 16, 0, 0xffff, &x) != FALCON_OK) {
		falcon_err_clear();
		return;
	}
	snprintf(dst, n, "%04lx", x);
}

static void set_type(struct falcon_device *dev, falcon_dev_type_t t)
{
	if (dev->type == FALCON_DEV_OTHER)
		dev->type = t;
}

void falcon_be_pci_ids(struct falcon_device *dev, struct json_object *obj)
{
	const char *cc = falcon_rf_str(obj, "ClassCode");
	const char *dc = falcon_rf_str(obj, "DeviceClass");
	long code;

	take_hex16(dev->vendor_id, sizeof(dev->vendor_id), falcon_rf_str(obj, "VendorId"));
	take_hex16(dev->device_id, sizeof(dev->device_id), falcon_rf_str(obj, "DeviceId"));
	/* PCI Code and ID Assignment Specification r1.14: base class 02h
	 * network, 03h display (0302h 3D controller: data-centre GPUs),
	 * 0108h non-volatile memory controller (NVMe) */
	if (cc != NULL && falcon_strtol(cc, 16, 0, 0xffffff, &code) == FALCON_OK) {
		if ((code >> 16) == 0x03)
			set_type(dev, FALCON_DEV_GPU);
		else if ((code >> 8) == 0x0108)
			set_type(dev, FALCON_DEV_NVME);
		else if ((code >> 16) == 0x02)
			set_type(dev, FALCON_DEV_NIC);
	} else if (cc != NULL) {
		falcon_err_clear(); /* not a class code: ignored */
	}
	if (dc != NULL && !strcmp(dc, "DisplayController"))
		set_type(dev, FALCON_DEV_GPU);
	else if (dc != NULL && !strcmp(dc, "NetworkController"))
		set_type(dev, FALCON_DEV_NIC);
}

/* The resource's type name: "#Processor.v1_22_0.Processor" -> "Processor". */
static void odata_type(struct json_object *obj, char *buf, size_t n)
{
	const char *t = falcon_rf_str(obj, "@odata.type");
	size_t len;

	buf[0] = '\0';
	if (t == NULL)
		return;
	if (*t == '#')
		t++;
	len = strcspn(t, ".");
	if (len < n) {
		memcpy(buf, t, len);
		buf[len] = '\0';
	}
}

#define ENRICH_MAX_HOPS 3
#define ENRICH_MAX_FETCHES 10

struct enrich {
	int fetches;
	const char *seen[ENRICH_MAX_FETCHES];
	struct json_object *objs[ENRICH_MAX_FETCHES];
};

static falcon_err_t enrich(struct falcon_be *be, struct falcon_device *dev,
			   struct enrich *en, const char *path, int hop);

/* Follow the first path of obj[key] (links: under "Links"), object or array. */
static falcon_err_t follow(struct falcon_be *be, struct falcon_device *dev,
			   struct enrich *en, struct json_object *obj, const char *key,
			   bool links, int hop)
{
	struct json_object *parent = links ? falcon_rf_obj(obj, "Links") : obj;
	struct json_object *arr = falcon_rf_arr(parent, key);
	const char *p = falcon_rf_link(parent, key);

	if (p == NULL && arr != NULL && json_object_array_length(arr) > 0)
		p = falcon_rf_str(json_object_array_get_idx(arr, 0), "@odata.id");
	if (p == NULL || !falcon_rf_path_ok(p))
		return FALCON_OK;
	return enrich(be, dev, en, p, hop + 1);
}

static falcon_err_t enrich(struct falcon_be *be, struct falcon_device *dev,
			   struct enrich *en, const char *path, int hop)
{
	struct json_object *obj = NULL;
	char type[64];
	int i;
	falcon_err_t rv;

	if (hop > ENRICH_MAX_HOPS || en->fetches >= ENRICH_MAX_FETCHES)
		return FALCON_OK;
	for (i = 0; i < en->fetches; i++)
		if (falcon_rf_path_eq(en->seen[i], path))
			return FALCON_OK;
	rv = falcon_be_get(be, path, &obj, NULL, 0);
	if (rv == FALCON_ERR_NOTFOUND) {
		falcon_debug("%s: linked resource %s absent: skipped", dev->id, path);
		falcon_err_clear();
		return FALCON_OK;
	}
	if (rv != FALCON_OK)
		return rv;
	/* keep obj alive while its strings are in seen[] */
	en->objs[en->fetches] = obj;
	en->seen[en->fetches++] = path;

	take_chassis_from_path(dev, path);
	take_chassis_link(dev, obj);
	odata_type(obj, type, sizeof(type));
	if (falcon_rf_arr(obj, "Members") != NULL) {
		/* a collection (PCIeFunctions, Drives...): its first member */
		struct json_object *m = json_object_array_get_idx(falcon_rf_arr(obj, "Members"), 0);
		const char *p = falcon_rf_str(m, "@odata.id");

		if (p != NULL && falcon_rf_path_ok(p))
			return enrich(be, dev, en, p, hop);
		return FALCON_OK;
	}
	take_status(dev, obj);
	take_str(dev->serial, sizeof(dev->serial), falcon_rf_str(obj, "SerialNumber"));
	take_str(dev->manufacturer, sizeof(dev->manufacturer), falcon_rf_str(obj, "Manufacturer"));
	if (!strcmp(type, "Processor") || !strcmp(type, "Drive")) {
		/* a GPU is a Processor of ProcessorType GPU, an NVMe a Drive of
		 * Protocol NVMe; both lead on to their PCIe functions */
		bool proc = !strcmp(type, "Processor");
		const char *kind = falcon_rf_str(obj, proc ? "ProcessorType" : "Protocol");

		take_str(dev->model, sizeof(dev->model), falcon_rf_str(obj, "Model"));
		if (kind != NULL && !strcmp(kind, proc ? "GPU" : "NVMe"))
			set_type(dev, proc ? FALCON_DEV_GPU : FALCON_DEV_NVME);
		rv = follow(be, dev, en, obj, "PCIeFunctions", true, hop);
	} else if (!strcmp(type, "Storage")) {
		struct json_object *ctrls = falcon_rf_arr(obj, "StorageControllers");
		struct json_object *c0 = ctrls ? json_object_array_get_idx(ctrls, 0) : NULL;

		if (falcon_rf_has_string(falcon_rf_arr(c0, "SupportedControllerProtocols"), "NVMe"))
			set_type(dev, FALCON_DEV_NVME);
		rv = follow(be, dev, en, obj, "Drives", false, hop);
	} else if (!strcmp(type, "PCIeDevice")) {
		take_str(dev->model, sizeof(dev->model), falcon_rf_str(obj, "Model"));
		rv = follow(be, dev, en, obj, "PCIeFunctions", false, hop);
	} else if (!strcmp(type, "PCIeFunction")) {
		falcon_be_pci_ids(dev, obj);
		rv = follow(be, dev, en, obj, "PCIeDevice", true, hop);
	} else if (!strcmp(type, "CXLLogicalDevice")) {
		rv = follow(be, dev, en, obj, "PCIeFunctions", true, hop);
	} else if (!strcmp(type, "NetworkAdapter") || !strcmp(type, "NetworkDeviceFunction") ||
		   !strcmp(type, "EthernetInterface") || !strcmp(type, "NetworkInterface")) {
		take_str(dev->model, sizeof(dev->model), falcon_rf_str(obj, "Model"));
		set_type(dev, FALCON_DEV_NIC);
		rv = FALCON_OK;
	}
	return rv;
}

falcon_err_t falcon_be_enrich(struct falcon_be *be, struct falcon_device *dev,
			      const char *const *paths, size_t n)
{
	struct enrich en = { 0 };
	falcon_err_t rv = FALCON_OK;
	size_t j;
	int i;

	for (j = 0; j < n && rv == FALCON_OK; j++)
		if (paths[j] != NULL)
			rv = enrich(be, dev, &en, paths[j], 0);
	for (i = 0; i < en.fetches; i++)
		json_object_put(en.objs[i]);
	return rv;
}
