/*
 * sim_redfish.c - falcon-sim's Redfish resources: service root, Chassis
 * with PCIeDevices, the PCIe fabric (Endpoints, Zones: H3 Platform's model),
 * the CompositionService subset (ResourceBlocks, ResourceZones, expandable
 * Systems with AddResourceBlock/RemoveResourceBlock) and SessionService.
 *
 * Shapes follow DMTF's public mockups (public-cxl-multiswitch for Fabrics,
 * public-composability / public-compose-action for CompositionService) so
 * a client that parses the mockups parses falcon-sim too.  ETags are
 * content hashes: a resource's ETag changes exactly when its JSON does.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#include "core/log.h"
#include "sim_server.h"
#include "core/util.h"

#define RF "/redfish/v1"
#define MSG_BASE "Base.1.16."
#define SIM_MANAGER "BMC"      /* the chassis' management controller */

/* ---- JSON helpers ---- */

static struct json_object *jlink(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static struct json_object *jlink(const char *fmt, ...)
{
	struct json_object *o = json_object_new_object();
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_object_object_add(o, "@odata.id", json_object_new_string(buf));
	return o;
}

static void jadd_str(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v));
}

static void jadd_fmt(struct json_object *o, const char *k, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void jadd_fmt(struct json_object *o, const char *k, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_object_object_add(o, k, json_object_new_string(buf));
}

static struct json_object *resource(const char *type, const char *id, const char *name,
				    const char *odata_id)
{
	struct json_object *o = json_object_new_object();

	jadd_str(o, "@odata.id", odata_id);
	jadd_str(o, "@odata.type", type);
	if (id != NULL)
		jadd_str(o, "Id", id);
	jadd_str(o, "Name", name);
	return o;
}

static struct json_object *status_ok(const char *state)
{
	struct json_object *o = json_object_new_object();

	jadd_str(o, "State", state);
	jadd_str(o, "Health", "OK");
	return o;
}

/* A chassis device's Status: state, or Absent once it left the fabric, and
 * the health POST /admin/health set (sim_events.c; "" = OK). */
static struct json_object *dev_status(const struct sim_server *srv, int d, int s,
				      const char *state)
{
	struct json_object *o = json_object_new_object();
	const char *h = srv->health[d - 1][s - 1];

	jadd_str(o, "State", srv->removed[d - 1][s - 1] ? "Absent" : state);
	jadd_str(o, "Health", h[0] ? h : "OK");
	return o;
}

/* A collection whose members are the paths in the array `members` (taken). */
static struct json_object *collection(const char *type, const char *name,
				      const char *odata_id, struct json_object *members)
{
	struct json_object *o = resource(type, NULL, name, odata_id);

	json_object_object_add(o, "Members@odata.count",
			       json_object_new_int((int)json_object_array_length(members)));
	json_object_object_add(o, "Members", members);
	return o;
}

void sim_etag_of(struct json_object *o, char *buf, size_t n)
{
	/* FNV-1a 64 (Fowler/Noll/Vo, IETF draft-eastlake-fnv) of the JSON text. */
	unsigned long long h = 14695981039346656037ULL;
	const unsigned char *p;

	json_object_object_del(o, "@odata.etag");
	p = (const unsigned char *)json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	for (; *p != '\0'; p++) {
		h ^= *p;
		h *= 1099511628211ULL;
	}
	snprintf(buf, n, "\"%016llx\"", h);
}

void sim_reply_error(struct sim_reply *r, int status, const char *message_id,
		     const char *fmt, ...)
{
	struct json_object *o, *err, *info, *msg;
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	json_object_put(r->body);
	o = json_object_new_object();
	err = json_object_new_object();
	info = json_object_new_array();
	msg = json_object_new_object();
	jadd_str(msg, "@odata.type", "#Message.v1_1_2.Message");
	jadd_str(msg, "MessageId", message_id);
	jadd_str(msg, "Message", text);
	jadd_str(msg, "Severity", status >= 500 ? "Critical" : "Warning");
	jadd_str(msg, "MessageSeverity", status >= 500 ? "Critical" : "Warning");
	jadd_str(msg, "Resolution", status == 412 ? "Re-read the resource and retry with its current ETag."
		 : status == 409 ? "Resolve the conflict and resubmit the request."
		 : status >= 500 ? "Retry the operation; contact the administrator if it persists."
		 : "Correct the request and resubmit it.");
	json_object_array_add(info, msg);
	jadd_str(err, "code", message_id);
	jadd_str(err, "message", text);
	json_object_object_add(err, "@Message.ExtendedInfo", info);
	json_object_object_add(o, "error", err);
	r->body = o;
	r->status = status;
	r->etag = false;
	if (status >= 400)
		falcon_verbose("reply %d %s: %s", status, message_id, text);
}

/* Map a falcon_err_t from the model rules to an HTTP error reply. */
static void reply_rule_error(struct sim_reply *r, falcon_err_t e)
{
	const char *m = falcon_errmsg();

	switch (e) {
	case FALCON_ERR_CONFLICT:
		sim_reply_error(r, 409, MSG_BASE "ResourceInUse", "%s", m);
		break;
	case FALCON_ERR_POLICY:
		sim_reply_error(r, 409, "Falcon.1.0.ModeLimit", "%s", m);
		break;
	case FALCON_ERR_CHASSIS:
		sim_reply_error(r, 409, "Falcon.1.0.DetachRefused", "%s", m);
		break;
	case FALCON_ERR_NOTFOUND:
		sim_reply_error(r, 400, MSG_BASE "ResourceMissingAtURI", "%s", m);
		break;
	default:
		sim_reply_error(r, 400, MSG_BASE "PropertyValueError", "%s", m);
		break;
	}
}

static const char *gen_of(double gts)
{
	if (gts >= 32.0)
		return "Gen5";
	if (gts >= 16.0)
		return "Gen4";
	if (gts >= 8.0)
		return "Gen3";
	if (gts >= 5.0)
		return "Gen2";
	return "Gen1";
}

static bool populated(const struct sim_config *cfg, int d, int s)
{
	return cfg->drawer[d - 1].slot[s - 1].populated;
}

static bool port_cabled(const struct sim_config *cfg, int p)
{
	return cfg->port[p].host[0] != '\0';
}

/* ---- the resources ---- */

static struct json_object *service_root(struct sim_server *srv)
{
	struct json_object *o = resource("#ServiceRoot.v1_16_0.ServiceRoot", "RootService",
					 "Falcon 4016 Root Service", RF "/");
	struct json_object *links = json_object_new_object();

	jadd_str(o, "RedfishVersion", "1.17.0");
	jadd_str(o, "Vendor", "H3 Platform (falcon-sim)");
	jadd_str(o, "Product", "Falcon 4016");
	jadd_str(o, "UUID", "f41c0401-6000-4000-8000-000000004016");
	json_object_object_add(o, "Chassis", jlink(RF "/Chassis"));
	json_object_object_add(o, "Fabrics", jlink(RF "/Fabrics"));
	json_object_object_add(o, "Systems", jlink(RF "/Systems"));
	json_object_object_add(o, "CompositionService", jlink(RF "/CompositionService"));
	json_object_object_add(o, "SessionService", jlink(RF "/SessionService"));
	json_object_object_add(o, "AccountService", jlink(RF "/AccountService"));
	json_object_object_add(o, "Managers", jlink(RF "/Managers"));
	/* ServiceRoot.v1_16_0: the TaskService link is named Tasks */
	json_object_object_add(o, "Tasks", jlink(RF "/TaskService"));
	json_object_object_add(o, "EventService", jlink(RF "/EventService"));
	json_object_object_add(links, "Sessions", jlink(RF "/SessionService/Sessions"));
	json_object_object_add(o, "Links", links);
	(void)srv;
	return o;
}

/*
 * The Chassis' Links (Chassis.v1_25_0): ComputerSystems (the expandable
 * systems, one per cabled host port), PCIeDevices (deprecated in favour of
 * the PCIeDevices collection, kept for clients that read Links), ManagedBy
 * and ManagersInChassis (the chassis' management controller, Managers/BMC).
 */
static struct json_object *chassis_links(struct sim_server *srv)
{
	struct json_object *l = json_object_new_object(), *a;
	int p, d, s;

	a = json_object_new_array();
	for (p = 0; p < SIM_PORTS; p++)
		if (port_cabled(&srv->cfg, p))
			json_object_array_add(a, jlink(RF "/Systems/H%d", p + 1));
	json_object_object_add(l, "ComputerSystems", a);
	a = json_object_new_array();
	for (d = 1; d <= SIM_DRAWERS; d++)
		for (s = 1; s <= SIM_SLOTS; s++)
			if (populated(&srv->cfg, d, s))
				json_object_array_add(a, jlink(RF "/Chassis/%s/PCIeDevices/drawer%d_slot%d",
							       srv->cfg.chassis, d, s));
	json_object_object_add(l, "PCIeDevices", a);
	a = json_object_new_array();
	json_object_array_add(a, jlink(RF "/Managers/" SIM_MANAGER));
	json_object_object_add(l, "ManagedBy", a);
	a = json_object_new_array();
	json_object_array_add(a, jlink(RF "/Managers/" SIM_MANAGER));
	json_object_object_add(l, "ManagersInChassis", a);
	return l;
}

/*
 * The chassis' management controller (Manager.v1_19_0, ManagerType
 * EnclosureManager): what manages the chassis and the expandable systems.
 */
static struct json_object *manager(struct sim_server *srv)
{
	struct json_object *o = resource("#Manager.v1_19_0.Manager", SIM_MANAGER,
					 "Falcon 4016 management controller",
					 RF "/Managers/" SIM_MANAGER);
	struct json_object *links = json_object_new_object(), *a;
	int p;

	jadd_str(o, "ManagerType", "EnclosureManager");
	jadd_str(o, "Manufacturer", "H3 Platform");
	jadd_str(o, "Model", "Falcon 4016 management controller");
	jadd_str(o, "FirmwareVersion", "falcon-sim " PACKAGE_VERSION);
	jadd_str(o, "UUID", "f41c0401-6000-4000-8000-00000000b3c0");
	jadd_str(o, "PowerState", "On");
	json_object_object_add(o, "Status", status_ok("Enabled"));
	a = json_object_new_array();
	json_object_array_add(a, jlink(RF "/Chassis/%s", srv->cfg.chassis));
	json_object_object_add(links, "ManagerForChassis", a);
	a = json_object_new_array();
	for (p = 0; p < SIM_PORTS; p++)
		if (port_cabled(&srv->cfg, p))
			json_object_array_add(a, jlink(RF "/Systems/H%d", p + 1));
	json_object_object_add(links, "ManagerForServers", a);
	json_object_object_add(links, "ManagerInChassis", jlink(RF "/Chassis/%s", srv->cfg.chassis));
	json_object_object_add(o, "Links", links);
	return o;
}

static struct json_object *account_service(struct sim_server *srv)
{
	struct json_object *o = resource("#AccountService.v1_15_0.AccountService", "AccountService",
					 "Account Service", RF "/AccountService");

	json_object_object_add(o, "ServiceEnabled", json_object_new_boolean(true));
	json_object_object_add(o, "Status", status_ok("Enabled"));
	json_object_object_add(o, "MinPasswordLength", json_object_new_int(1));
	json_object_object_add(o, "MaxPasswordLength", json_object_new_int(SIM_PASS_LEN - 1));
	json_object_object_add(o, "AuthFailureLoggingThreshold", json_object_new_int(0));
	json_object_object_add(o, "AccountLockoutThreshold", json_object_new_int(0));
	jadd_str(o, "LocalAccountAuth", sim_accounts_any(srv) ? "Enabled" : "Disabled");
	json_object_object_add(o, "Accounts", jlink(RF "/AccountService/Accounts"));
	json_object_object_add(o, "Roles", jlink(RF "/AccountService/Roles"));
	return o;
}

static struct json_object *chassis(struct sim_server *srv)
{
	const struct sim_config *cfg = &srv->cfg;
	char path[256];
	struct json_object *o, *oem, *fal, *drawers;
	int d;

	snprintf(path, sizeof(path), RF "/Chassis/%s", cfg->chassis);
	o = resource("#Chassis.v1_25_0.Chassis", cfg->chassis, cfg->chassis, path);
	jadd_str(o, "ChassisType", "Enclosure");
	jadd_str(o, "Manufacturer", "H3 Platform");
	jadd_str(o, "Model", "Falcon 4016");
	json_object_object_add(o, "Status", status_ok("Enabled"));
	json_object_object_add(o, "PCIeDevices", jlink("%s/PCIeDevices", path));
	json_object_object_add(o, "Links", chassis_links(srv));
	oem = json_object_new_object();
	fal = json_object_new_object();
	jadd_str(fal, "@odata.type", "#Falcon.v1_0_0.Chassis");
	jadd_str(fal, "Mode", cfg->mode == SIM_MODE_ADVANCED ? "Advanced" : "Standard");
	drawers = json_object_new_array();
	for (d = 0; d < SIM_DRAWERS; d++) {
		struct json_object *dr = json_object_new_object();

		json_object_object_add(dr, "Drawer", json_object_new_int(d + 1));
		json_object_object_add(dr, "HostPorts", sim_drawer_ports_json(cfg, d));
		json_object_array_add(drawers, dr);
	}
	json_object_object_add(fal, "Drawers", drawers);
	json_object_object_add(oem, "Falcon", fal);
	json_object_object_add(o, "Oem", oem);
	return o;
}

static void add_pci_ids(struct json_object *o, const struct sim_device *dev)
{
	jadd_fmt(o, "VendorId", "0x%04x", dev->vendor_id);
	jadd_fmt(o, "DeviceId", "0x%04x", dev->device_id);
	jadd_fmt(o, "SubsystemVendorId", "0x%04x", dev->subsys_vendor_id);
	jadd_fmt(o, "SubsystemId", "0x%04x", dev->subsys_device_id);
	jadd_fmt(o, "ClassCode", "0x%06x", dev->class_code);
}

static struct json_object *pcie_device(struct sim_server *srv, int d, int s)
{
	const struct sim_config *cfg = &srv->cfg;
	const struct sim_device *dev = &cfg->drawer[d - 1].slot[s - 1];
	struct sim_link l = sim_trained_link(cfg, d, s);
	struct json_object *o, *ifc, *slot, *loc, *part, *links;
	char path[256], id[48];

	snprintf(id, sizeof(id), "drawer%d_slot%d", d, s);
	snprintf(path, sizeof(path), RF "/Chassis/%s/PCIeDevices/%s", cfg->chassis, id);
	o = resource("#PCIeDevice.v1_14_0.PCIeDevice", id, dev->model[0] ? dev->model : id, path);
	jadd_str(o, "Manufacturer", dev->manufacturer);
	jadd_str(o, "Model", dev->model);
	jadd_str(o, "SerialNumber", dev->serial);
	jadd_str(o, "DeviceType", "SingleFunction");
	json_object_object_add(o, "Status", dev_status(srv, d, s, "Enabled"));
	ifc = json_object_new_object();
	jadd_str(ifc, "PCIeType", gen_of(l.speed_gts));
	jadd_str(ifc, "MaxPCIeType", gen_of(dev->max_link.speed_gts));
	json_object_object_add(ifc, "LanesInUse", json_object_new_int(l.width));
	json_object_object_add(ifc, "MaxLanes", json_object_new_int(dev->max_link.width));
	json_object_object_add(o, "PCIeInterface", ifc);
	slot = json_object_new_object();
	loc = json_object_new_object();
	part = json_object_new_object();
	jadd_str(slot, "SlotType", "FullLength");
	/* Resource.Location: the label is PartLocation.ServiceLabel */
	jadd_fmt(part, "ServiceLabel", "Drawer %d Slot %d", d, s);
	jadd_str(part, "LocationType", "Slot");
	json_object_object_add(part, "LocationOrdinalValue", json_object_new_int(s));
	json_object_object_add(loc, "PartLocation", part);
	json_object_object_add(slot, "Location", loc);
	json_object_object_add(o, "Slot", slot);
	json_object_object_add(o, "PCIeFunctions", jlink("%s/PCIeFunctions", path));
	links = json_object_new_object();
	{
		struct json_object *ch = json_object_new_array();

		json_object_array_add(ch, jlink(RF "/Chassis/%s", cfg->chassis));
		json_object_object_add(links, "Chassis", ch);
	}
	json_object_object_add(o, "Links", links);
	return o;
}

/* How Redfish names a device of type t: its PCIeFunction's DeviceClass
 * and its Endpoint's EntityType. */
static const char *device_class(falcon_dev_type_t t)
{
	return t == FALCON_DEV_GPU ? "DisplayController" :
	       t == FALCON_DEV_NVME ? "MassStorageController" : "NetworkController";
}

static const char *entity_type(falcon_dev_type_t t)
{
	return t == FALCON_DEV_GPU ? "Processor" :
	       t == FALCON_DEV_NVME ? "Drive" : "NetworkController";
}

static struct json_object *pcie_function(struct sim_server *srv, int d, int s)
{
	const struct sim_config *cfg = &srv->cfg;
	const struct sim_device *dev = &cfg->drawer[d - 1].slot[s - 1];
	struct json_object *o, *links;
	char path[512], dpath[256];

	snprintf(dpath, sizeof(dpath), RF "/Chassis/%s/PCIeDevices/drawer%d_slot%d",
		 cfg->chassis, d, s);
	snprintf(path, sizeof(path), "%s/PCIeFunctions/1", dpath);
	o = resource("#PCIeFunction.v1_5_0.PCIeFunction", "1", "PCIe Function", path);
	json_object_object_add(o, "FunctionId", json_object_new_int(0));
	jadd_str(o, "FunctionType", "Physical");
	jadd_str(o, "DeviceClass", device_class(dev->type));
	add_pci_ids(o, dev);
	jadd_fmt(o, "RevisionId", "0x%02x", dev->revision);
	json_object_object_add(o, "Status", status_ok("Enabled"));
	links = json_object_new_object();
	json_object_object_add(links, "PCIeDevice", jlink("%s", dpath));
	json_object_object_add(o, "Links", links);
	return o;
}

static struct json_object *fabric(const struct sim_server *srv)
{
	struct json_object *o = resource("#Fabric.v1_3_0.Fabric", "PCIe", "PCIe Fabric",
					 RF "/Fabrics/PCIe");

	jadd_str(o, "FabricType", "PCIe");
	json_object_object_add(o, "Status", status_ok("Enabled"));
	json_object_object_add(o, "Endpoints", jlink(RF "/Fabrics/PCIe/Endpoints"));
	json_object_object_add(o, "Zones", jlink(RF "/Fabrics/PCIe/Zones"));
	if (!srv->no_switches)
		json_object_object_add(o, "Switches", jlink(RF "/Fabrics/PCIe/Switches"));
	return o;
}

static struct json_object *hostport_endpoint(struct sim_server *srv, int p)
{
	const struct sim_port *port = &srv->cfg.port[p];
	struct json_object *o, *ents, *ent, *links, *zones, *oem, *fal;
	char path[256], id[48];

	snprintf(id, sizeof(id), "hostport%d_H%d", p + 1, p + 1);
	snprintf(path, sizeof(path), RF "/Fabrics/PCIe/Endpoints/%s", id);
	o = resource("#Endpoint.v1_8_0.Endpoint", id, "Host port endpoint", path);
	jadd_fmt(o, "Description", "Host port H%d (%s)", p + 1, port->host);
	jadd_str(o, "EndpointProtocol", "PCIe");
	ents = json_object_new_array();
	ent = json_object_new_object();
	jadd_str(ent, "EntityType", "RootComplex");
	jadd_str(ent, "EntityRole", "Initiator");
	json_object_object_add(ent, "EntityLink", jlink(RF "/Systems/H%d", p + 1));
	json_object_array_add(ents, ent);
	json_object_object_add(o, "ConnectedEntities", ents);
	json_object_object_add(o, "Status", status_ok("Enabled"));
	links = json_object_new_object();
	zones = json_object_new_array();
	json_object_array_add(zones, jlink(RF "/Fabrics/PCIe/Zones/H%d", p + 1));
	json_object_object_add(links, "Zones", zones);
	json_object_object_add(o, "Links", links);
	oem = json_object_new_object();
	fal = json_object_new_object();
	jadd_str(fal, "@odata.type", "#Falcon.v1_0_0.Endpoint");
	jadd_fmt(fal, "HostPort", "H%d", p + 1);
	jadd_str(fal, "HostName", port->host);
	jadd_str(fal, "Adapter", port->adapter);
	json_object_object_add(oem, "Falcon", fal);
	json_object_object_add(o, "Oem", oem);
	return o;
}

static struct json_object *device_endpoint(struct sim_server *srv, int d, int s)
{
	const struct sim_config *cfg = &srv->cfg;
	const struct sim_device *dev = &cfg->drawer[d - 1].slot[s - 1];
	const struct sim_slot_state *ss = &srv->st.slot[d - 1][s - 1];
	struct sim_link l = sim_trained_link(cfg, d, s);
	struct json_object *o, *ents, *ent, *pci, *links, *zones, *oem, *fal;
	char path[256], id[48];

	snprintf(id, sizeof(id), "drawer%d_slot%d", d, s);
	snprintf(path, sizeof(path), RF "/Fabrics/PCIe/Endpoints/%s", id);
	o = resource("#Endpoint.v1_8_0.Endpoint", id, dev->model[0] ? dev->model : id, path);
	jadd_fmt(o, "Description", "%s in drawer %d slot %d", falcon_dev_type_str(dev->type), d, s);
	jadd_str(o, "EndpointProtocol", "PCIe");
	ents = json_object_new_array();
	ent = json_object_new_object();
	jadd_str(ent, "EntityType", entity_type(dev->type));
	jadd_str(ent, "EntityRole", "Target");
	pci = json_object_new_object();
	add_pci_ids(pci, dev);
	json_object_object_add(pci, "FunctionNumber", json_object_new_int(0));
	json_object_object_add(ent, "EntityPciId", pci);
	json_object_object_add(ent, "EntityLink",
			       jlink(RF "/Chassis/%s/PCIeDevices/%s/PCIeFunctions/1",
				     cfg->chassis, id));
	json_object_array_add(ents, ent);
	json_object_object_add(o, "ConnectedEntities", ents);
	json_object_object_add(o, "Status", dev_status(srv, d, s,
						       ss->owner >= 0 ? "Enabled" : "StandbyOffline"));
	links = json_object_new_object();
	zones = json_object_new_array();
	if (ss->owner >= 0)
		json_object_array_add(zones, jlink(RF "/Fabrics/PCIe/Zones/H%d", ss->owner + 1));
	json_object_object_add(links, "Zones", zones);
	json_object_object_add(o, "Links", links);
	oem = json_object_new_object();
	fal = json_object_new_object();
	jadd_str(fal, "@odata.type", "#Falcon.v1_0_0.Endpoint");
	json_object_object_add(fal, "Drawer", json_object_new_int(d));
	json_object_object_add(fal, "Slot", json_object_new_int(s));
	jadd_str(fal, "DeviceType", falcon_dev_type_str(dev->type));
	jadd_fmt(fal, "VendorId", "%04x", dev->vendor_id);
	jadd_fmt(fal, "DeviceId", "%04x", dev->device_id);
	jadd_str(fal, "Manufacturer", dev->manufacturer);
	jadd_str(fal, "Model", dev->model);
	jadd_str(fal, "SerialNumber", dev->serial);
	if (ss->owner >= 0)
		jadd_fmt(fal, "HostPort", "H%d", ss->owner + 1);
	else
		json_object_object_add(fal, "HostPort", NULL);
	json_object_object_add(fal, "LinkSpeedGTs", json_object_new_double(l.speed_gts));
	json_object_object_add(fal, "LinkWidth", json_object_new_int(l.width));
	json_object_object_add(oem, "Falcon", fal);
	json_object_object_add(o, "Oem", oem);
	return o;
}

/* cabled - host port p (0-based) is cabled to drawer d (1-based). */
static bool cabled(const struct sim_config *cfg, int p, int d)
{
	int i;

	for (i = 0; i < cfg->drawer[d - 1].nports; i++)
		if (cfg->drawer[d - 1].ports[i] == p)
			return true;
	return false;
}

/* port_switches - Links.InvolvedSwitches of host port p's zone: the
 * drawers' switches it is cabled to (Zone.v1_6: "the switches in this
 * zone"), which is how a client learns the cabling from the service. */
static struct json_object *port_switches(const struct sim_config *cfg, int p)
{
	struct json_object *a = json_object_new_array();
	int d;

	for (d = 1; d <= SIM_DRAWERS; d++)
		if (cabled(cfg, p, d))
			json_object_array_add(a, jlink(RF "/Fabrics/PCIe/Switches/drawer%d", d));
	return a;
}

/* switches - the drawers' switches collection. */
static struct json_object *switches(void)
{
	struct json_object *m = json_object_new_array();
	int d;

	for (d = 1; d <= SIM_DRAWERS; d++)
		json_object_array_add(m, jlink(RF "/Fabrics/PCIe/Switches/drawer%d", d));
	return collection("#SwitchCollection.SwitchCollection", "PCIe Switch Collection",
			  RF "/Fabrics/PCIe/Switches", m);
}

/* pcie_switch - drawer d's PCIe switch (1-based), with the host ports
 * cabled to it as its upstream ports' endpoints. */
static struct json_object *pcie_switch(struct sim_server *srv, int d)
{
	struct json_object *o, *links, *eps;
	char path[256], id[16];
	int p;

	snprintf(id, sizeof(id), "drawer%d", d);
	snprintf(path, sizeof(path), RF "/Fabrics/PCIe/Switches/%s", id);
	o = resource("#Switch.v1_9_0.Switch", id, "Drawer switch", path);
	jadd_fmt(o, "Description", "The PCIe switch of drawer %d", d);
	jadd_str(o, "SwitchType", "PCIe");
	json_object_object_add(o, "Status", status_ok("Enabled"));
	links = json_object_new_object();
	eps = json_object_new_array();
	for (p = 0; p < SIM_PORTS; p++)
		if (port_cabled(&srv->cfg, p) && cabled(&srv->cfg, p, d))
			json_object_array_add(eps, jlink(RF "/Fabrics/PCIe/Endpoints/hostport%d_H%d",
							 p + 1, p + 1));
	json_object_object_add(links, "Endpoints", eps);
	json_object_object_add(o, "Links", links);
	return o;
}

static struct json_object *zone(struct sim_server *srv, int p)
{
	struct json_object *o, *links, *eps;
	char path[256], id[16];
	int d, s;

	snprintf(id, sizeof(id), "H%d", p + 1);
	snprintf(path, sizeof(path), RF "/Fabrics/PCIe/Zones/%s", id);
	o = resource("#Zone.v1_6_1.Zone", id, "Host port zone", path);
	jadd_fmt(o, "Description", "Devices given to host port H%d (%s)", p + 1,
		 srv->cfg.port[p].host);
	jadd_str(o, "ZoneType", "ZoneOfEndpoints");
	json_object_object_add(o, "Status", status_ok("Enabled"));
	links = json_object_new_object();
	eps = json_object_new_array();
	json_object_array_add(eps, jlink(RF "/Fabrics/PCIe/Endpoints/hostport%d_H%d", p + 1, p + 1));
	for (d = 1; d <= SIM_DRAWERS; d++)
		for (s = 1; s <= SIM_SLOTS; s++)
			if (srv->st.slot[d - 1][s - 1].owner == p)
				json_object_array_add(eps, jlink(RF "/Fabrics/PCIe/Endpoints/drawer%d_slot%d", d, s));
	json_object_object_add(links, "Endpoints", eps);
	if (!srv->no_switches)
		json_object_object_add(links, "InvolvedSwitches", port_switches(&srv->cfg, p));
	json_object_object_add(o, "Links", links);
	return o;
}

static struct json_object *composition_service(void)
{
	struct json_object *o = resource("#CompositionService.v1_2_0.CompositionService",
					 "CompositionService", "Composition Service",
					 RF "/CompositionService");

	json_object_object_add(o, "Status", status_ok("Enabled"));
	json_object_object_add(o, "ServiceEnabled", json_object_new_boolean(true));
	json_object_object_add(o, "AllowOverprovisioning", json_object_new_boolean(false));
	json_object_object_add(o, "ResourceBlocks", jlink(RF "/CompositionService/ResourceBlocks"));
	json_object_object_add(o, "ResourceZones", jlink(RF "/CompositionService/ResourceZones"));
	return o;
}

static const char *block_member(falcon_dev_type_t t, const char **kind)
{
	switch (t) {
	case FALCON_DEV_GPU: *kind = "Processors"; return "GPU";
	case FALCON_DEV_NVME: *kind = "Drives"; return "NVMe";
	default: *kind = "NetworkInterfaces"; return "NIC";
	}
}

static bool port_may_see(const struct sim_config *cfg, int p, int d)
{
	int i;

	for (i = 0; i < cfg->drawer[d - 1].nports; i++)
		if (cfg->drawer[d - 1].ports[i] == p)
			return true;
	return false;
}

static struct json_object *resource_block(struct sim_server *srv, int d, int s)
{
	const struct sim_config *cfg = &srv->cfg;
	const struct sim_device *dev = &cfg->drawer[d - 1].slot[s - 1];
	const struct sim_slot_state *ss = &srv->st.slot[d - 1][s - 1];
	struct json_object *o, *types, *cs, *arr, *links, *systems, *ch, *zones;
	char path[256], id[48];
	const char *kind, *member;
	int i;

	snprintf(id, sizeof(id), "drawer%d_slot%d", d, s);
	snprintf(path, sizeof(path), RF "/CompositionService/ResourceBlocks/%s", id);
	o = resource("#ResourceBlock.v1_4_0.ResourceBlock", id, dev->model[0] ? dev->model : id, path);
	types = json_object_new_array();
	json_object_array_add(types, json_object_new_string(dev->type == FALCON_DEV_GPU ? "Processor"
							    : dev->type == FALCON_DEV_NVME ? "Storage"
							    : "Network"));
	json_object_object_add(o, "ResourceBlockType", types);
	json_object_object_add(o, "Status", status_ok("Enabled"));
	cs = json_object_new_object();
	json_object_object_add(cs, "Reserved", json_object_new_boolean(false));
	jadd_str(cs, "CompositionState", ss->owner >= 0 ? "Composed" : "Unused");
	json_object_object_add(cs, "SharingCapable", json_object_new_boolean(false));
	json_object_object_add(cs, "MaxCompositions", json_object_new_int(1));
	json_object_object_add(cs, "NumberOfCompositions", json_object_new_int(ss->owner >= 0 ? 1 : 0));
	json_object_object_add(o, "CompositionStatus", cs);
	member = block_member(dev->type, &kind);
	arr = json_object_new_array();
	json_object_array_add(arr, jlink("%s/%s/%s", path, kind, member));
	json_object_object_add(o, kind, arr);
	links = json_object_new_object();
	systems = json_object_new_array();
	if (ss->owner >= 0)
		json_object_array_add(systems, jlink(RF "/Systems/H%d", ss->owner + 1));
	json_object_object_add(links, "ComputerSystems", systems);
	ch = json_object_new_array();
	json_object_array_add(ch, jlink(RF "/Chassis/%s", cfg->chassis));
	json_object_object_add(links, "Chassis", ch);
	zones = json_object_new_array();
	for (i = 0; i < SIM_PORTS; i++)
		if (port_cabled(cfg, i) && port_may_see(cfg, i, d))
			json_object_array_add(zones, jlink(RF "/CompositionService/ResourceZones/H%d", i + 1));
	json_object_object_add(links, "Zones", zones);
	json_object_object_add(o, "Links", links);
	return o;
}

static struct json_object *block_member_res(struct sim_server *srv, int d, int s)
{
	const struct sim_config *cfg = &srv->cfg;
	const struct sim_device *dev = &cfg->drawer[d - 1].slot[s - 1];
	struct json_object *o, *links;
	const char *kind, *member;
	char path[256];

	member = block_member(dev->type, &kind);
	snprintf(path, sizeof(path), RF "/CompositionService/ResourceBlocks/drawer%d_slot%d/%s/%s",
		 d, s, kind, member);
	if (dev->type == FALCON_DEV_GPU) {
		o = resource("#Processor.v1_18_0.Processor", member, "Processor", path);
		jadd_str(o, "ProcessorType", "GPU");
	} else if (dev->type == FALCON_DEV_NVME) {
		o = resource("#Drive.v1_17_0.Drive", member, "NVMe Drive", path);
		jadd_str(o, "Protocol", "NVMe");
		jadd_str(o, "MediaType", "SSD");
	} else {
		o = resource("#NetworkInterface.v1_2_0.NetworkInterface", member, "Network Interface", path);
	}
	json_object_object_add(o, "Status", status_ok("Enabled"));
	jadd_str(o, "Manufacturer", dev->manufacturer);
	jadd_str(o, "Model", dev->model);
	jadd_str(o, "SerialNumber", dev->serial);
	links = json_object_new_object();
	json_object_object_add(links, "Chassis", jlink(RF "/Chassis/%s", cfg->chassis));
	{
		struct json_object *fns = json_object_new_array();

		json_object_array_add(fns, jlink(RF "/Chassis/%s/PCIeDevices/drawer%d_slot%d/PCIeFunctions/1",
						 cfg->chassis, d, s));
		json_object_object_add(links, "PCIeFunctions", fns);
	}
	json_object_object_add(o, "Links", links);
	return o;
}

static struct json_object *resource_zone(struct sim_server *srv, int p)
{
	struct json_object *o, *links, *blocks;
	char path[256], id[16];
	int d, s;

	snprintf(id, sizeof(id), "H%d", p + 1);
	snprintf(path, sizeof(path), RF "/CompositionService/ResourceZones/%s", id);
	o = resource("#Zone.v1_6_1.Zone", id, "Resource zone", path);
	jadd_fmt(o, "Description", "Resource blocks host port H%d is cabled to", p + 1);
	jadd_str(o, "ZoneType", "ZoneOfResourceBlocks");
	json_object_object_add(o, "Status", status_ok("Enabled"));
	links = json_object_new_object();
	blocks = json_object_new_array();
	for (d = 1; d <= SIM_DRAWERS; d++)
		for (s = 1; s <= SIM_SLOTS; s++)
			if (port_may_see(&srv->cfg, p, d) && populated(&srv->cfg, d, s))
				json_object_array_add(blocks,
						      jlink(RF "/CompositionService/ResourceBlocks/drawer%d_slot%d", d, s));
	json_object_object_add(links, "ResourceBlocks", blocks);
	json_object_object_add(o, "Links", links);
	return o;
}

static struct json_object *system_res(struct sim_server *srv, int p)
{
	struct json_object *o, *comp, *uc, *boot, *act, *a, *links, *blocks;
	char path[256], id[16];
	int d, s;

	snprintf(id, sizeof(id), "H%d", p + 1);
	snprintf(path, sizeof(path), RF "/Systems/%s", id);
	o = resource("#ComputerSystem.v1_20_0.ComputerSystem", id, srv->cfg.port[p].host, path);
	jadd_str(o, "SystemType", "Physical");
	jadd_str(o, "HostName", srv->cfg.port[p].host);
	json_object_object_add(o, "Status", status_ok("Enabled"));
	comp = json_object_new_object();
	uc = json_object_new_array();
	json_object_array_add(uc, json_object_new_string("ExpandableSystem"));
	json_object_object_add(comp, "UseCases", uc);
	json_object_object_add(o, "Composition", comp);
	/* No boot control here, but clients such as sushy require Boot
	 * (DMTF's own mockup systems carry it): no override. */
	boot = json_object_new_object();
	jadd_str(boot, "BootSourceOverrideEnabled", "Disabled");
	jadd_str(boot, "BootSourceOverrideTarget", "None");
	jadd_str(boot, "BootSourceOverrideMode", "UEFI");
	json_object_object_add(o, "Boot", boot);
	act = json_object_new_object();
	a = json_object_new_object();
	jadd_fmt(a, "target", "%s/Actions/ComputerSystem.AddResourceBlock", path);
	json_object_object_add(act, "#ComputerSystem.AddResourceBlock", a);
	a = json_object_new_object();
	jadd_fmt(a, "target", "%s/Actions/ComputerSystem.RemoveResourceBlock", path);
	json_object_object_add(act, "#ComputerSystem.RemoveResourceBlock", a);
	json_object_object_add(o, "Actions", act);
	links = json_object_new_object();
	blocks = json_object_new_array();
	for (d = 1; d <= SIM_DRAWERS; d++)
		for (s = 1; s <= SIM_SLOTS; s++)
			if (srv->st.slot[d - 1][s - 1].owner == p)
				json_object_array_add(blocks,
						      jlink(RF "/CompositionService/ResourceBlocks/drawer%d_slot%d", d, s));
	json_object_object_add(links, "ResourceBlocks", blocks);
	json_object_object_add(o, "Links", links);
	return o;
}

static struct json_object *session_res(const struct sim_session *se)
{
	char path[256];
	struct json_object *o;

	snprintf(path, sizeof(path), RF "/SessionService/Sessions/%s", se->id);
	o = resource("#Session.v1_6_0.Session", se->id, "User Session", path);
	jadd_str(o, "UserName", se->user);
	return o;
}

/* ---- tasks (DSP0266 1.20 sec. 12.2; Task.v1_7_3, TaskService.v1_2_1) ---- */

static const char *task_id_str(const struct sim_task *t)
{
	return t->idstr;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void iso_now(char *buf, size_t n)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%S+00:00", &tm);
}

static const char *task_state_str(sim_task_state_t st)
{
	switch (st) {
	case SIM_TASK_RUNNING: return "Running";
	case SIM_TASK_COMPLETED: return "Completed";
	case SIM_TASK_CANCELLED: return "Cancelled";
	default: return "Exception";
	}
}

static struct json_object *task_res(const struct sim_task *t)
{
	struct json_object *o, *msgs, *m;
	char path[128];
	long long pct;

	snprintf(path, sizeof(path), RF "/TaskService/Tasks/%s", t->idstr);
	o = resource("#Task.v1_7_3.Task", t->idstr, t->zone ? "Zone change" : t->add
		     ? "Add resource block" : "Remove resource block", path);
	jadd_str(o, "TaskState", task_state_str(t->state));
	jadd_str(o, "TaskStatus", t->state == SIM_TASK_EXCEPTION ? "Critical"
		 : t->state == SIM_TASK_CANCELLED ? "Warning" : "OK");
	jadd_str(o, "StartTime", t->start_time);
	if (t->state != SIM_TASK_RUNNING)
		jadd_str(o, "EndTime", t->end_time);
	pct = t->state != SIM_TASK_RUNNING ? 100 : t->due_ms <= t->start_ms ? 0
	      : 100 * (now_ms() - t->start_ms) / (t->due_ms - t->start_ms);
	json_object_object_add(o, "PercentComplete", json_object_new_int((int)(pct > 99 &&
		t->state == SIM_TASK_RUNNING ? 99 : pct)));
	jadd_fmt(o, "TaskMonitor", RF "/TaskService/TaskMonitors/%s", t->idstr);
	msgs = json_object_new_array();
	if (t->state != SIM_TASK_RUNNING) {
		m = json_object_new_object();
		jadd_str(m, "MessageId", t->state == SIM_TASK_COMPLETED ? MSG_BASE "Success"
			 : t->state == SIM_TASK_CANCELLED ? "TaskEvent.1.0.TaskCancelled"
			 : "Falcon.1.0.TaskFailed");
		jadd_str(m, "Message", t->message);
		jadd_str(m, "MessageSeverity", t->state == SIM_TASK_COMPLETED ? "OK"
			 : t->state == SIM_TASK_CANCELLED ? "Warning" : "Critical");
		json_object_array_add(msgs, m);
	}
	json_object_object_add(o, "Messages", msgs);
	return o;
}

static struct json_object *task_service(void)
{
	struct json_object *o = resource("#TaskService.v1_2_1.TaskService", "TaskService",
					 "Task Service", RF "/TaskService");

	json_object_object_add(o, "ServiceEnabled", json_object_new_boolean(true));
	jadd_str(o, "CompletedTaskOverWritePolicy", "Oldest");
	json_object_object_add(o, "LifeCycleEventOnTaskStateChange", json_object_new_boolean(false));
	json_object_object_add(o, "Status", status_ok("Enabled"));
	json_object_object_add(o, "Tasks", jlink(RF "/TaskService/Tasks"));
	return o;
}

/* ---- routing ---- */

enum kind {
	K_NONE = 0, K_REDFISH, K_ROOT, K_CHASSIS_COLL, K_CHASSIS, K_PCIEDEV_COLL, K_PCIEDEV,
	K_PCIEFN_COLL, K_PCIEFN, K_FABRIC_COLL, K_FABRIC, K_EP_COLL, K_EP_HOST, K_EP_DEV,
	K_ZONE_COLL, K_ZONE, K_COMP, K_RB_COLL, K_RB, K_RB_MEMBER, K_RZ_COLL, K_RZ,
	K_SYS_COLL, K_SYS, K_SYS_ADD, K_SYS_REMOVE, K_SS, K_SESS_COLL, K_SESS,
	K_METADATA, K_ODATA, K_TS, K_TASK_COLL, K_TASK, K_TASK_MON, K_EVS,
	K_AS, K_ACC_COLL, K_ACC, K_ROLE_COLL, K_ROLE, K_MGR_COLL, K_MGR, K_EVS_TEST, K_SUB_COLL, K_SUB, K_SCHEMA_XML, K_SCHEMA_JSON,
	K_SW_COLL, K_SW,
};

struct route {
	enum kind k;
	int p, d, s;      /* port index, drawer, slot */
	int sess;         /* session index */
	int task;         /* task index */
	int acc;          /* account index */
	int role;         /* sim_role_t */
	int sub;          /* subscription index */
};

/*
 * The EventService (#EventService.v1_10_0, DSP0266 1.20 sec. 13.5): SSE on
 * ServerSentEventUri (falcon-sim.c serves it; left out with --no-sse) and
 * subscriptions (sim_subs.c: Subscriptions, the delivery retry settings,
 * the filters a subscription may use).
 */
static struct json_object *event_service(const struct sim_server *srv)
{
	struct json_object *o = resource("#EventService.v1_10_0.EventService", "EventService",
					 "Event Service", RF "/EventService");
	struct json_object *pfx = json_object_new_array(), *act, *a;

	json_object_object_add(o, "ServiceEnabled", json_object_new_boolean(true));
	json_object_object_add(o, "Status", status_ok("Enabled"));
	if (!srv->no_sse)
		jadd_str(o, "ServerSentEventUri", SIM_SSE_PATH);
	json_object_object_add(o, "Subscriptions", jlink(RF "/EventService/Subscriptions"));
	json_object_object_add(o, "DeliveryRetryAttempts", json_object_new_int(SIM_SUB_RETRIES));
	json_object_object_add(o, "DeliveryRetryIntervalSeconds",
			       json_object_new_int(SIM_SUB_RETRY_S));
	a = json_object_new_array();
	json_object_array_add(a, json_object_new_string("Event"));
	json_object_object_add(o, "EventFormatTypes", a);
	a = json_object_new_array();
	json_object_array_add(a, json_object_new_string("PCIeDevice"));
	json_object_array_add(a, json_object_new_string("Chassis"));
	json_object_object_add(o, "ResourceTypes", a);
	json_object_array_add(pfx, json_object_new_string("ResourceEvent"));
	json_object_object_add(o, "RegistryPrefixes", pfx);
	/* EventService.v1_0_0 requires Actions: SubmitTestEvent (falcon-sim.c
	 * sends the event: sim_events_test) */
	act = json_object_new_object();
	a = json_object_new_object();
	jadd_str(a, "target", RF "/EventService/Actions/EventService.SubmitTestEvent");
	json_object_object_add(act, "#EventService.SubmitTestEvent", a);
	json_object_object_add(o, "Actions", act);
	return o;
}

/* Match path against a pattern with %p (H<n>), %h (hostport<n>_H<n>),
 * %D (drawer<D>_slot<S>), %c (chassis name), %S (session id), %T (task id),
 * %A (account id), %R (role id), %E (subscription id) segments. */
static bool match(struct sim_server *srv, const char *path, const char *pat, struct route *r)
{
	char pb[512], tb[512];
	char *ps, *ts, *psv = NULL, *tsv = NULL;

	if (falcon_strlcpy(pb, pat, sizeof(pb)) >= sizeof(pb) ||
	    falcon_strlcpy(tb, path, sizeof(tb)) >= sizeof(tb))
		return false;
	ps = strtok_r(pb, "/", &psv);
	ts = strtok_r(tb, "/", &tsv);
	while (ps != NULL && ts != NULL) {
		if (strcmp(ps, "%p") == 0) {
			r->p = sim_parse_port(ts);
			if (r->p < 0 || !port_cabled(&srv->cfg, r->p))
				return false;
		} else if (strcmp(ps, "%h") == 0) {
			int a, b;

			if (!sim_parse_hostport(ts, &a, &b) || a != b || a < 1 || a > SIM_PORTS ||
			    !port_cabled(&srv->cfg, a - 1))
				return false;
			r->p = a - 1;
		} else if (strcmp(ps, "%W") == 0) {
			if (falcon_drawer_id_parse(ts, &r->d) != FALCON_OK) {
				falcon_err_clear();
				return false;
			}
			if (r->d > SIM_DRAWERS)
				return false;
		} else if (strcmp(ps, "%D") == 0) {
			if (!sim_parse_dev_id(ts, &r->d, &r->s) || !populated(&srv->cfg, r->d, r->s))
				return false;
		} else if (strcmp(ps, "%c") == 0) {
			if (strcmp(ts, srv->cfg.chassis) != 0)
				return false;
		} else if (strcmp(ps, "%S") == 0) {
			int i;

			for (i = 0; i < SIM_MAX_SESSIONS; i++)
				if (srv->sessions[i].id[0] != '\0' && strcmp(srv->sessions[i].id, ts) == 0)
					break;
			if (i == SIM_MAX_SESSIONS)
				return false;
			r->sess = i;
		} else if (strcmp(ps, "%T") == 0) {
			int i;

			for (i = 0; i < SIM_MAX_TASKS; i++)
				if (srv->tasks[i].state != SIM_TASK_FREE &&
				    strcmp(ts, task_id_str(&srv->tasks[i])) == 0)
					break;
			if (i == SIM_MAX_TASKS)
				return false;
			r->task = i;
		} else if (strcmp(ps, "%A") == 0) {
			int i;

			for (i = 0; i < SIM_MAX_ACCOUNTS; i++)
				if (srv->accounts[i].used && strcmp(srv->accounts[i].id, ts) == 0)
					break;
			if (i == SIM_MAX_ACCOUNTS)
				return false;
			r->acc = i;
		} else if (strcmp(ps, "%E") == 0) {
			if ((r->sub = sim_sub_find(srv, ts)) < 0)
				return false;
		} else if (strcmp(ps, "%R") == 0) {
			if ((r->role = sim_role_parse(ts)) < 0)
				return false;
		} else if (strcmp(ps, ts) != 0) {
			return false;
		}
		ps = strtok_r(NULL, "/", &psv);
		ts = strtok_r(NULL, "/", &tsv);
	}
	return ps == NULL && ts == NULL;
}

/*
 * The routes: a pattern, the methods it allows, and the privilege its
 * methods other than GET and HEAD need (GET and HEAD need Login; the
 * exceptions are in required_priv()), after DSP8011's Redfish_1.x
 * PrivilegeRegistry: components (zones, systems' actions, task monitors)
 * ConfigureComponents, accounts ConfigureUsers, sessions ConfigureManager.
 */
#define P_COMP SIM_PRIV_COMPONENTS
#define P_USERS SIM_PRIV_USERS
#define P_MGR SIM_PRIV_MANAGER
static const struct {
	enum kind k;
	const char *pat;
	const char *allow;
	unsigned priv;
} routes[] = {
	{ K_REDFISH, "/redfish", "GET, HEAD", 0 },
	{ K_ROOT, RF, "GET, HEAD", 0 },
	{ K_CHASSIS_COLL, RF "/Chassis", "GET, HEAD", 0 },
	{ K_CHASSIS, RF "/Chassis/%c", "GET, HEAD", 0 },
	{ K_PCIEDEV_COLL, RF "/Chassis/%c/PCIeDevices", "GET, HEAD", 0 },
	{ K_PCIEDEV, RF "/Chassis/%c/PCIeDevices/%D", "GET, HEAD", 0 },
	{ K_PCIEFN_COLL, RF "/Chassis/%c/PCIeDevices/%D/PCIeFunctions", "GET, HEAD", 0 },
	{ K_PCIEFN, RF "/Chassis/%c/PCIeDevices/%D/PCIeFunctions/1", "GET, HEAD", 0 },
	{ K_FABRIC_COLL, RF "/Fabrics", "GET, HEAD", 0 },
	{ K_FABRIC, RF "/Fabrics/PCIe", "GET, HEAD", 0 },
	{ K_EP_COLL, RF "/Fabrics/PCIe/Endpoints", "GET, HEAD", 0 },
	{ K_EP_HOST, RF "/Fabrics/PCIe/Endpoints/%h", "GET, HEAD", 0 },
	{ K_EP_DEV, RF "/Fabrics/PCIe/Endpoints/%D", "GET, HEAD", 0 },
	{ K_ZONE_COLL, RF "/Fabrics/PCIe/Zones", "GET, HEAD", 0 },
	{ K_SW_COLL, RF "/Fabrics/PCIe/Switches", "GET, HEAD", 0 },
	{ K_SW, RF "/Fabrics/PCIe/Switches/%W", "GET, HEAD", 0 },
	{ K_ZONE, RF "/Fabrics/PCIe/Zones/%p", "GET, HEAD, PATCH", P_COMP },
	{ K_COMP, RF "/CompositionService", "GET, HEAD", 0 },
	{ K_RB_COLL, RF "/CompositionService/ResourceBlocks", "GET, HEAD", 0 },
	{ K_RB, RF "/CompositionService/ResourceBlocks/%D", "GET, HEAD", 0 },
	{ K_RB_MEMBER, RF "/CompositionService/ResourceBlocks/%D/Processors/GPU", "GET, HEAD", 0 },
	{ K_RB_MEMBER, RF "/CompositionService/ResourceBlocks/%D/Drives/NVMe", "GET, HEAD", 0 },
	{ K_RB_MEMBER, RF "/CompositionService/ResourceBlocks/%D/NetworkInterfaces/NIC", "GET, HEAD", 0 },
	{ K_RZ_COLL, RF "/CompositionService/ResourceZones", "GET, HEAD", 0 },
	{ K_RZ, RF "/CompositionService/ResourceZones/%p", "GET, HEAD", 0 },
	{ K_SYS_COLL, RF "/Systems", "GET, HEAD", 0 },
	{ K_SYS, RF "/Systems/%p", "GET, HEAD", 0 },
	{ K_SYS_ADD, RF "/Systems/%p/Actions/ComputerSystem.AddResourceBlock", "POST", P_COMP },
	{ K_SYS_REMOVE, RF "/Systems/%p/Actions/ComputerSystem.RemoveResourceBlock", "POST",
	  P_COMP },
	{ K_SS, RF "/SessionService", "GET, HEAD", 0 },
	{ K_SESS_COLL, RF "/SessionService/Sessions", "GET, HEAD, POST", 0 },
	/* DSP0266 sec. 13.3.4: a session may also be created on Members */
	{ K_SESS_COLL, RF "/SessionService/Sessions/Members", "POST", 0 },
	{ K_SESS, RF "/SessionService/Sessions/%S", "GET, HEAD, DELETE", P_MGR },
	{ K_METADATA, RF "/$metadata", "GET, HEAD", 0 },
	{ K_SCHEMA_XML, SIM_SCHEMA_CSDL, "GET, HEAD", 0 },
	{ K_SCHEMA_JSON, SIM_SCHEMA_JSON, "GET, HEAD", 0 },
	{ K_ODATA, RF "/odata", "GET, HEAD", 0 },
	{ K_TS, RF "/TaskService", "GET, HEAD", 0 },
	{ K_TASK_COLL, RF "/TaskService/Tasks", "GET, HEAD", 0 },
	{ K_TASK, RF "/TaskService/Tasks/%T", "GET, HEAD", 0 },
	{ K_TASK_MON, RF "/TaskService/TaskMonitors/%T", "GET, HEAD, DELETE", P_COMP },
	{ K_EVS, RF "/EventService", "GET, HEAD", 0 },
	{ K_EVS_TEST, RF "/EventService/Actions/EventService.SubmitTestEvent", "POST", P_MGR },
	/* DSP8011: POST ConfigureManager or ConfigureComponents; DELETE
	 * ConfigureManager, or ConfigureSelf for its owner (required_priv) */
	{ K_SUB_COLL, RF "/EventService/Subscriptions", "GET, HEAD, POST", P_MGR | P_COMP },
	{ K_SUB, RF "/EventService/Subscriptions/%E", "GET, HEAD, DELETE", P_MGR },
	{ K_AS, RF "/AccountService", "GET, HEAD", 0 },
	{ K_ACC_COLL, RF "/AccountService/Accounts", "GET, HEAD, POST", P_USERS },
	{ K_ACC, RF "/AccountService/Accounts/%A", "GET, HEAD, PATCH, DELETE", P_USERS },
	{ K_ROLE_COLL, RF "/AccountService/Roles", "GET, HEAD", 0 },
	{ K_ROLE, RF "/AccountService/Roles/%R", "GET, HEAD", 0 },
	{ K_MGR_COLL, RF "/Managers", "GET, HEAD", 0 },
	{ K_MGR, RF "/Managers/" SIM_MANAGER, "GET, HEAD", 0 },
};

/* render_accounts - the AccountService's and the Managers' resources. */
static struct json_object *render_accounts(struct sim_server *srv, const struct route *r)
{
	struct json_object *m;
	int i;

	switch (r->k) {
	case K_AS: return account_service(srv);
	case K_ACC_COLL:
		m = json_object_new_array();
		for (i = 0; i < SIM_MAX_ACCOUNTS; i++)
			if (srv->accounts[i].used)
				json_object_array_add(m, jlink(RF "/AccountService/Accounts/%s",
							       srv->accounts[i].id));
		return collection("#ManagerAccountCollection.ManagerAccountCollection",
				  "Accounts Collection", RF "/AccountService/Accounts", m);
	case K_ACC: return sim_account_json(&srv->accounts[r->acc]);
	case K_ROLE_COLL:
		m = json_object_new_array();
		for (i = 0; i < SIM_NROLES; i++)
			json_object_array_add(m, jlink(RF "/AccountService/Roles/%s",
						       sim_role_name((sim_role_t)i)));
		return collection("#RoleCollection.RoleCollection", "Roles Collection",
				  RF "/AccountService/Roles", m);
	case K_ROLE: return sim_role_json((sim_role_t)r->role);
	case K_MGR_COLL:
		m = json_object_new_array();
		json_object_array_add(m, jlink(RF "/Managers/" SIM_MANAGER));
		return collection("#ManagerCollection.ManagerCollection", "Manager Collection",
				  RF "/Managers", m);
	case K_MGR: return manager(srv);
	default: return NULL;
	}
}

/* The GET representation of a routed resource (new reference). */
static struct json_object *render(struct sim_server *srv, const struct route *r)
{
	const struct sim_config *cfg = &srv->cfg;
	struct json_object *m;
	int d, s, p, i;

	switch (r->k) {
	case K_REDFISH: {
		struct json_object *o = json_object_new_object();

		jadd_str(o, "v1", RF "/");
		return o;
	}
	case K_ROOT: return service_root(srv);
	case K_CHASSIS_COLL:
		m = json_object_new_array();
		json_object_array_add(m, jlink(RF "/Chassis/%s", cfg->chassis));
		return collection("#ChassisCollection.ChassisCollection", "Chassis Collection",
				  RF "/Chassis", m);
	case K_CHASSIS: return chassis(srv);
	case K_PCIEDEV_COLL: {
		char path[256];

		m = json_object_new_array();
		for (d = 1; d <= SIM_DRAWERS; d++)
			for (s = 1; s <= SIM_SLOTS; s++)
				if (populated(cfg, d, s))
					json_object_array_add(m, jlink(RF "/Chassis/%s/PCIeDevices/drawer%d_slot%d",
								       cfg->chassis, d, s));
		snprintf(path, sizeof(path), RF "/Chassis/%s/PCIeDevices", cfg->chassis);
		return collection("#PCIeDeviceCollection.PCIeDeviceCollection",
				  "PCIe Device Collection", path, m);
	}
	case K_PCIEDEV: return pcie_device(srv, r->d, r->s);
	case K_PCIEFN_COLL: {
		char path[256];

		snprintf(path, sizeof(path), RF "/Chassis/%s/PCIeDevices/drawer%d_slot%d/PCIeFunctions",
			 cfg->chassis, r->d, r->s);
		m = json_object_new_array();
		json_object_array_add(m, jlink("%s/1", path));
		return collection("#PCIeFunctionCollection.PCIeFunctionCollection",
				  "PCIe Function Collection", path, m);
	}
	case K_PCIEFN: return pcie_function(srv, r->d, r->s);
	case K_FABRIC_COLL:
		m = json_object_new_array();
		json_object_array_add(m, jlink(RF "/Fabrics/PCIe"));
		return collection("#FabricCollection.FabricCollection", "Fabric Collection",
				  RF "/Fabrics", m);
	case K_FABRIC: return fabric(srv);
	case K_EP_COLL:
		m = json_object_new_array();
		for (p = 0; p < SIM_PORTS; p++)
			if (port_cabled(cfg, p))
				json_object_array_add(m, jlink(RF "/Fabrics/PCIe/Endpoints/hostport%d_H%d",
							       p + 1, p + 1));
		for (d = 1; d <= SIM_DRAWERS; d++)
			for (s = 1; s <= SIM_SLOTS; s++)
				if (populated(cfg, d, s))
					json_object_array_add(m, jlink(RF "/Fabrics/PCIe/Endpoints/drawer%d_slot%d",
								       d, s));
		return collection("#EndpointCollection.EndpointCollection",
				  "PCIe Endpoint Collection", RF "/Fabrics/PCIe/Endpoints", m);
	case K_EP_HOST: return hostport_endpoint(srv, r->p);
	case K_EP_DEV: return device_endpoint(srv, r->d, r->s);
	case K_ZONE_COLL:
		m = json_object_new_array();
		for (p = 0; p < SIM_PORTS; p++)
			if (port_cabled(cfg, p))
				json_object_array_add(m, jlink(RF "/Fabrics/PCIe/Zones/H%d", p + 1));
		return collection("#ZoneCollection.ZoneCollection", "PCIe Zone Collection",
				  RF "/Fabrics/PCIe/Zones", m);
	case K_ZONE: return zone(srv, r->p);
	case K_SW_COLL: return switches();
	case K_SW: return pcie_switch(srv, r->d);
	case K_COMP: return composition_service();
	case K_RB_COLL:
		m = json_object_new_array();
		for (d = 1; d <= SIM_DRAWERS; d++)
			for (s = 1; s <= SIM_SLOTS; s++)
				if (populated(cfg, d, s))
					json_object_array_add(m, jlink(RF "/CompositionService/ResourceBlocks/drawer%d_slot%d",
								       d, s));
		return collection("#ResourceBlockCollection.ResourceBlockCollection",
				  "Resource Block Collection", RF "/CompositionService/ResourceBlocks", m);
	case K_RB: return resource_block(srv, r->d, r->s);
	case K_RB_MEMBER: return block_member_res(srv, r->d, r->s);
	case K_RZ_COLL:
		m = json_object_new_array();
		for (p = 0; p < SIM_PORTS; p++)
			if (port_cabled(cfg, p))
				json_object_array_add(m, jlink(RF "/CompositionService/ResourceZones/H%d", p + 1));
		return collection("#ZoneCollection.ZoneCollection", "Resource Zone Collection",
				  RF "/CompositionService/ResourceZones", m);
	case K_RZ: return resource_zone(srv, r->p);
	case K_SYS_COLL:
		m = json_object_new_array();
		for (p = 0; p < SIM_PORTS; p++)
			if (port_cabled(cfg, p))
				json_object_array_add(m, jlink(RF "/Systems/H%d", p + 1));
		return collection("#ComputerSystemCollection.ComputerSystemCollection",
				  "Computer System Collection", RF "/Systems", m);
	case K_SYS: return system_res(srv, r->p);
	case K_SS: {
		struct json_object *o = resource("#SessionService.v1_1_8.SessionService", "SessionService",
						 "Session Service", RF "/SessionService");

		json_object_object_add(o, "ServiceEnabled", json_object_new_boolean(true));
		json_object_object_add(o, "SessionTimeout", json_object_new_int(1800));
		json_object_object_add(o, "Sessions", jlink(RF "/SessionService/Sessions"));
		return o;
	}
	case K_SESS_COLL:
		m = json_object_new_array();
		for (i = 0; i < SIM_MAX_SESSIONS; i++)
			if (srv->sessions[i].id[0] != '\0')
				json_object_array_add(m, jlink(RF "/SessionService/Sessions/%s",
							       srv->sessions[i].id));
		return collection("#SessionCollection.SessionCollection", "Session Collection",
				  RF "/SessionService/Sessions", m);
	case K_SESS: return session_res(&srv->sessions[r->sess]);
	case K_ODATA: return sim_odata_service_doc();
	case K_TS: return task_service();
	case K_TASK_COLL:
		m = json_object_new_array();
		for (i = 0; i < SIM_MAX_TASKS; i++)
			if (srv->tasks[i].state != SIM_TASK_FREE)
				json_object_array_add(m, jlink(RF "/TaskService/Tasks/%s",
							       srv->tasks[i].idstr));
		return collection("#TaskCollection.TaskCollection", "Task Collection",
				  RF "/TaskService/Tasks", m);
	case K_TASK: return task_res(&srv->tasks[r->task]);
	case K_EVS: return event_service(srv);
	case K_SUB_COLL:
		m = json_object_new_array();
		for (i = 0; i < SIM_MAX_SUBS; i++)
			if (srv->subs[i].used)
				json_object_array_add(m, jlink(RF "/EventService/Subscriptions/%s",
							       srv->subs[i].id));
		return collection("#EventDestinationCollection.EventDestinationCollection",
				  "Event Subscriptions", RF "/EventService/Subscriptions", m);
	case K_SUB: return sim_sub_json(srv, r->sub);
	case K_AS: case K_ACC_COLL: case K_ACC: case K_ROLE_COLL: case K_ROLE: case K_MGR_COLL:
	case K_MGR:
		return render_accounts(srv, r);
	default: return NULL;
	}
}

bool sim_etag_listed(const char *list, const char *etag)
{
	char buf[1024];
	char *tok, *sv = NULL;

	if (list == NULL)
		return false;
	falcon_strlcpy(buf, list, sizeof(buf));
	for (tok = strtok_r(buf, ", \t", &sv); tok != NULL; tok = strtok_r(NULL, ", \t", &sv)) {
		if (strncmp(tok, "W/", 2) == 0)
			tok += 2;
		if (strcmp(tok, "*") == 0 || strcmp(tok, etag) == 0)
			return true;
	}
	return false;
}

/* Does the If-Match header admit etag?  No header admits any. */
static bool if_match_ok(const char *if_match, const char *etag)
{
	return if_match == NULL || sim_etag_listed(if_match, etag);
}

/* Parse body as one JSON object; NULL with a 400 reply on failure. */
static struct json_object *parse_body(const char *body, size_t len, struct sim_reply *r)
{
	struct json_tokener *tok;
	struct json_object *o;

	if (len == 0) {
		sim_reply_error(r, 400, MSG_BASE "MalformedJSON", "The request body is empty.");
		return NULL;
	}
	tok = json_tokener_new_ex(64);
	if (tok == NULL) {
		sim_reply_error(r, 500, MSG_BASE "InternalError", "out of memory");
		return NULL;
	}
	o = json_tokener_parse_ex(tok, body, (int)len);
	if (o == NULL || json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) != len || !json_object_is_type(o, json_type_object)) {
		enum json_tokener_error je = json_tokener_get_error(tok);

		sim_reply_error(r, 400, MSG_BASE "MalformedJSON",
				"The request body is not a valid JSON object: %s at byte %zu.",
				o != NULL && je == json_tokener_success
				? (json_object_is_type(o, json_type_object) ? "trailing data" : "not an object")
				: je == json_tokener_continue ? "unexpected end" : json_tokener_error_desc(je),
				json_tokener_get_parse_end(tok));
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	return o;
}

/* "@odata.id" of a link object, or NULL. */
static const char *link_id(struct json_object *l)
{
	struct json_object *v;

	if (!json_object_is_type(l, json_type_object) ||
	    !json_object_object_get_ex(l, "@odata.id", &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* Device id at the end of prefix/<id> (an optional trailing '/'); false if not. */
static bool id_after(const char *uri, const char *prefix, char *out, size_t n)
{
	size_t pl = strlen(prefix), l;

	if (strncmp(uri, prefix, pl) != 0)
		return false;
	if (falcon_strlcpy(out, uri + pl, n) >= n)
		return false;
	l = strlen(out);
	if (l > 0 && out[l - 1] == '/')
		out[l - 1] = '\0';
	return out[0] != '\0' && strchr(out, '/') == NULL;
}

static void do_attach(struct sim_server *srv, int p, int d, int s)
{
	struct sim_slot_state *ss = &srv->st.slot[d - 1][s - 1];

	if (ss->owner == p)
		return;
	ss->owner = p;
	ss->staged = true;
	falcon_info("attach: drawer%d_slot%d -> H%d (%s); staged until the host rescans",
		    d, s, p + 1, srv->cfg.port[p].host);
}

static void do_detach(struct sim_server *srv, int p, int d, int s)
{
	struct sim_slot_state *ss = &srv->st.slot[d - 1][s - 1];

	if (ss->owner != p)
		return;
	sim_host_detached(srv, p, d, s);
	ss->owner = -1;
	ss->staged = false;
	falcon_info("detach: drawer%d_slot%d from H%d (%s)", d, s, p + 1, srv->cfg.port[p].host);
}

/* The body of a zone PATCH {"Links": {"Endpoints": [...]}} as the new
 * member set want; false with a 400 reply when it is not one. */
static bool zone_want(struct sim_server *srv, int p, struct json_object *body,
		      bool want[SIM_DRAWERS][SIM_SLOTS], struct sim_reply *r)
{
	struct json_object *links, *eps;
	char id[64];
	size_t i;
	int d, s;

	json_object_object_foreach(body, key, val) {
		(void)val;
		if (strcmp(key, "Links") != 0 && strncmp(key, "@odata.", 7) != 0) {
			sim_reply_error(r, 400, MSG_BASE "PropertyUnknown",
					"The property %s is not a writable property of a Zone (only Links.Endpoints).",
					key);
			return false;
		}
	}
	if (!json_object_object_get_ex(body, "Links", &links) ||
	    !json_object_is_type(links, json_type_object) ||
	    !json_object_object_get_ex(links, "Endpoints", &eps) ||
	    !json_object_is_type(eps, json_type_array)) {
		sim_reply_error(r, 400, MSG_BASE "PropertyValueTypeError",
				"Links.Endpoints must be an array of {\"@odata.id\": ...} links.");
		return false;
	}
	for (i = 0; i < json_object_array_length(eps); i++) {
		const char *uri = link_id(json_object_array_get_idx(eps, i));
		int a, b;

		if (uri == NULL) {
			sim_reply_error(r, 400, MSG_BASE "PropertyValueTypeError",
					"Links.Endpoints[%zu] is not a link with an @odata.id string.", i);
			return false;
		}
		if (!id_after(uri, RF "/Fabrics/PCIe/Endpoints/", id, sizeof(id))) {
			sim_reply_error(r, 400, MSG_BASE "ResourceMissingAtURI",
					"The resource at the URI %s is not an endpoint of this fabric.", uri);
			return false;
		}
		if (sim_parse_hostport(id, &a, &b)) {
			if (a != p + 1 || b != p + 1) {
				sim_reply_error(r, 400, MSG_BASE "PropertyValueNotInList",
						"The host port endpoint %s belongs to zone H%d, not H%d.", id, a, p + 1);
				return false;
			}
			continue;
		}
		if (!sim_parse_dev_id(id, &d, &s) || !populated(&srv->cfg, d, s)) {
			sim_reply_error(r, 400, MSG_BASE "ResourceMissingAtURI",
					"The resource at the URI %s does not exist (empty slot or unknown endpoint).",
					uri);
			return false;
		}
		want[d - 1][s - 1] = true;
	}
	return true;
}

/*
 * Check the member set want of zone p against the rules (every change
 * before any is applied) and, when apply, apply it.  false with the
 * rule's error reply when refused.
 */
static bool zone_apply(struct sim_server *srv, int p, bool want[SIM_DRAWERS][SIM_SLOTS],
		       bool apply, struct sim_reply *r)
{
	struct sim_state trial;
	falcon_err_t e;
	int d, s;

	trial = srv->st;
	for (d = 1; d <= SIM_DRAWERS; d++)
		for (s = 1; s <= SIM_SLOTS; s++)
			if (!want[d - 1][s - 1] && trial.slot[d - 1][s - 1].owner == p) {
				if ((e = sim_check_detach(&srv->cfg, &trial, p, d, s)) != FALCON_OK) {
					reply_rule_error(r, e);
					return false;
				}
				trial.slot[d - 1][s - 1].owner = -1;
			}
	for (d = 1; d <= SIM_DRAWERS; d++)
		for (s = 1; s <= SIM_SLOTS; s++)
			if (want[d - 1][s - 1] && trial.slot[d - 1][s - 1].owner != p) {
				if ((e = sim_check_attach(&srv->cfg, &trial, p, d, s)) != FALCON_OK) {
					reply_rule_error(r, e);
					return false;
				}
				trial.slot[d - 1][s - 1].owner = p;
			}
	if (!apply)
		return true;
	for (d = 1; d <= SIM_DRAWERS; d++)
		for (s = 1; s <= SIM_SLOTS; s++) {
			if (!want[d - 1][s - 1] && srv->st.slot[d - 1][s - 1].owner == p)
				do_detach(srv, p, d, s);
			else if (want[d - 1][s - 1])
				do_attach(srv, p, d, s);
		}
	return true;
}

/*
 * task_start - accept an attach or detach as task proto (its operation
 * fields set): 202 Accepted, Location the task monitor, the Task as body.
 * The oldest finished task makes room; 503 when all are running.
 */
static void task_start(struct sim_server *srv, const struct sim_task *proto, struct sim_reply *r)
{
	struct sim_task *t = NULL;
	size_t i;

	for (i = 0; i < SIM_MAX_TASKS; i++)
		if (srv->tasks[i].state == SIM_TASK_FREE) {
			t = &srv->tasks[i];
			break;
		}
	for (i = 0; t == NULL && i < SIM_MAX_TASKS; i++)
		if (srv->tasks[i].state != SIM_TASK_RUNNING &&
		    (t == NULL || srv->tasks[i].id < t->id))
			t = &srv->tasks[i];
	if (t == NULL) {
		sim_reply_error(r, 503, MSG_BASE "ServiceTemporarilyUnavailable",
				"All %d task slots are running; retry later.", SIM_MAX_TASKS);
		return;
	}
	*t = *proto;
	t->id = ++srv->next_task;
	snprintf(t->idstr, sizeof(t->idstr), "%lu", t->id);
	t->state = SIM_TASK_RUNNING;
	t->start_ms = now_ms();
	t->due_ms = t->start_ms + srv->cfg.faults.task_ms;
	t->fail = srv->cfg.faults.task_fail;
	iso_now(t->start_time, sizeof(t->start_time));
	r->status = 202;
	r->body = task_res(t);
	snprintf(r->location, sizeof(r->location), RF "/TaskService/TaskMonitors/%s", t->idstr);
	falcon_info("task %s: %s accepted, due in %ld ms%s", t->idstr, t->zone ? "zone change"
		    : t->add ? "AddResourceBlock" : "RemoveResourceBlock",
		    srv->cfg.faults.task_ms, t->fail ? " (will fail: fault)" : "");
}

/* task_finish - run a due task: apply its change (checked against the
 * rules again) or fail it as the fault asks. */
static void task_finish(struct sim_server *srv, struct sim_task *t)
{
	struct sim_reply tmp;
	falcon_err_t e;

	memset(&tmp, 0, sizeof(tmp));
	if (t->fail) {
		t->state = SIM_TASK_EXCEPTION;
		t->http_status = 500;
		snprintf(t->message, sizeof(t->message),
			 "Injected fault: the chassis failed the %s of task %s.",
			 t->zone ? "zone change" : t->add ? "attach" : "detach", t->idstr);
	} else if (t->zone) {
		if (zone_apply(srv, t->p, t->want, true, &tmp)) {
			t->state = SIM_TASK_COMPLETED;
			snprintf(t->message, sizeof(t->message), "Zone H%d changed.", t->p + 1);
		}
	} else {
		e = t->add ? sim_check_attach(&srv->cfg, &srv->st, t->p, t->d, t->s)
			   : sim_check_detach(&srv->cfg, &srv->st, t->p, t->d, t->s);
		if (e != FALCON_OK) {
			reply_rule_error(&tmp, e);
		} else {
			if (t->add)
				do_attach(srv, t->p, t->d, t->s);
			else
				do_detach(srv, t->p, t->d, t->s);
			t->state = SIM_TASK_COMPLETED;
			snprintf(t->message, sizeof(t->message), "drawer%d_slot%d %s H%d.", t->d, t->s,
				 t->add ? "attached to" : "detached from", t->p + 1);
		}
	}
	if (tmp.body != NULL) { /* refused when it ran: the rule's message */
		struct json_object *err, *msg;

		t->state = SIM_TASK_EXCEPTION;
		t->http_status = tmp.status;
		if (json_object_object_get_ex(tmp.body, "error", &err) &&
		    json_object_object_get_ex(err, "message", &msg))
			falcon_strlcpy(t->message, json_object_get_string(msg), sizeof(t->message));
		json_object_put(tmp.body);
	}
	t->end_ms = now_ms();
	iso_now(t->end_time, sizeof(t->end_time));
	falcon_info("task %s: %s: %s", t->idstr, task_state_str(t->state), t->message);
}

/* tasks_tick - finish every task that is due (called on each request). */
static void tasks_tick(struct sim_server *srv)
{
	long long now = now_ms();
	size_t i;

	for (i = 0; i < SIM_MAX_TASKS; i++)
		if (srv->tasks[i].state == SIM_TASK_RUNNING && srv->tasks[i].due_ms <= now)
			task_finish(srv, &srv->tasks[i]);
}

/*
 * GET on a task monitor (DSP0266 1.20 sec. 12.2): 202 with the Task while
 * it runs; when it is done the operation's own answer (a zone PATCH: 200
 * with the zone; an action: 204); when it failed, the failure's own HTTP
 * status (the rule's 409/400 when the chassis refused it as it ran, 500
 * for an injected fault) with a Redfish error body carrying its message,
 * so that a client going by the status code sees the failure.  A
 * cancelled task's monitor is gone (404).
 */
/*
 * DELETE on a task monitor (DSP0266 1.20 sec. 12.2.2): a running task is
 * cancelled (TaskState Cancelled, nothing applied) and its monitor goes;
 * a finished task's monitor goes.  204 either way.
 */
static void task_cancel(struct sim_task *t, struct sim_reply *r)
{
	if (t->state == SIM_TASK_RUNNING) {
		t->state = SIM_TASK_CANCELLED;
		snprintf(t->message, sizeof(t->message), "Task %lu was cancelled by the client.",
			 t->id);
		iso_now(t->end_time, sizeof(t->end_time));
		falcon_info("task %s: cancelled (DELETE on its monitor)", t->idstr);
	}
	t->monitor_gone = true;
	r->status = 204;
}

static void task_monitor(struct sim_server *srv, struct sim_task *t, struct sim_reply *r)
{
	if (t->monitor_gone) {
		sim_reply_error(r, 404, MSG_BASE "ResourceNotFound",
				"The task monitor of task %s was deleted (TaskState %s).", t->idstr,
				task_state_str(t->state));
	} else if (t->state == SIM_TASK_RUNNING) {
		r->status = 202;
		r->body = task_res(t);
		snprintf(r->location, sizeof(r->location), RF "/TaskService/TaskMonitors/%s", t->idstr);
	} else if (t->state == SIM_TASK_EXCEPTION) {
		sim_reply_error(r, t->http_status ? t->http_status : 500,
				t->http_status == 409 ? MSG_BASE "ResourceInUse" : MSG_BASE "GeneralError",
				"Task %s failed: %s", t->idstr, t->message);
	} else if (t->zone) {
		r->status = 200;
		r->body = zone(srv, t->p);
		r->etag = true;
	} else {
		r->status = 204;
	}
}

/* PATCH Zones/H<n> {"Links": {"Endpoints": [...]}}: the new member set. */
static void patch_zone(struct sim_server *srv, int p, struct json_object *body,
		       struct sim_reply *r)
{
	bool want[SIM_DRAWERS][SIM_SLOTS] = { { false } };
	bool adds = false, removes = false;
	int d, s;

	if (!zone_want(srv, p, body, want, r) || !zone_apply(srv, p, want, false, r))
		return;
	for (d = 1; d <= SIM_DRAWERS; d++)
		for (s = 1; s <= SIM_SLOTS; s++) {
			int owner = srv->st.slot[d - 1][s - 1].owner;

			adds |= want[d - 1][s - 1] && owner != p;
			removes |= !want[d - 1][s - 1] && owner == p;
		}
	if ((adds && srv->cfg.faults.task_attach) || (removes && srv->cfg.faults.task_detach)) {
		struct sim_task t = { .zone = true, .p = p };

		memcpy(t.want, want, sizeof(t.want));
		task_start(srv, &t, r);
		return;
	}
	zone_apply(srv, p, want, true, r);
	r->status = 200;
	r->body = zone(srv, p);
	r->etag = true;
}

/* POST Systems/H<n>/Actions/ComputerSystem.{Add,Remove}ResourceBlock. */
static void block_action(struct sim_server *srv, int p, bool add, struct json_object *body,
			 struct sim_reply *r)
{
	struct json_object *v, *cur;
	const char *uri;
	char id[64], etag[32];
	falcon_err_t e;
	int d, s;

	json_object_object_foreach(body, key, val) {
		(void)val;
		if (strcmp(key, "ResourceBlock") != 0 && strcmp(key, "ResourceBlockETag") != 0 &&
		    strcmp(key, "ComputerSystemETag") != 0) {
			sim_reply_error(r, 400, MSG_BASE "ActionParameterUnknown",
					"The action parameter %s is not supported.", key);
			return;
		}
	}
	if (!json_object_object_get_ex(body, "ResourceBlock", &v) || (uri = link_id(v)) == NULL) {
		sim_reply_error(r, 400, MSG_BASE "ActionParameterMissing",
				"The action requires the parameter ResourceBlock, a link {\"@odata.id\": ...}.");
		return;
	}
	if (!id_after(uri, RF "/CompositionService/ResourceBlocks/", id, sizeof(id)) ||
	    !sim_parse_dev_id(id, &d, &s) || !populated(&srv->cfg, d, s)) {
		sim_reply_error(r, 400, MSG_BASE "ResourceMissingAtURI",
				"The resource at the URI %s is not a resource block of this chassis.", uri);
		return;
	}
	if (json_object_object_get_ex(body, "ResourceBlockETag", &v)) {
		struct route rb = { .k = K_RB, .d = d, .s = s };

		cur = render(srv, &rb);
		sim_etag_of(cur, etag, sizeof(etag));
		json_object_put(cur);
		if (!json_object_is_type(v, json_type_string) ||
		    !if_match_ok(json_object_get_string(v), etag)) {
			sim_reply_error(r, 412, MSG_BASE "PreconditionFailed",
					"ResourceBlockETag does not match the current ETag %s of %s.", etag, id);
			return;
		}
	}
	if (json_object_object_get_ex(body, "ComputerSystemETag", &v)) {
		struct route sy = { .k = K_SYS, .p = p };

		cur = render(srv, &sy);
		sim_etag_of(cur, etag, sizeof(etag));
		json_object_put(cur);
		if (!json_object_is_type(v, json_type_string) ||
		    !if_match_ok(json_object_get_string(v), etag)) {
			sim_reply_error(r, 412, MSG_BASE "PreconditionFailed",
					"ComputerSystemETag does not match the current ETag %s of H%d.", etag, p + 1);
			return;
		}
	}
	e = add ? sim_check_attach(&srv->cfg, &srv->st, p, d, s)
		: sim_check_detach(&srv->cfg, &srv->st, p, d, s);
	if (e != FALCON_OK) {
		reply_rule_error(r, e);
		return;
	}
	if (add ? srv->cfg.faults.task_attach : srv->cfg.faults.task_detach) {
		struct sim_task t = { .add = add, .p = p, .d = d, .s = s };

		task_start(srv, &t, r);
		return;
	}
	if (add)
		do_attach(srv, p, d, s);
	else
		do_detach(srv, p, d, s);
	r->status = 204;
}

static void new_session(struct sim_server *srv, struct json_object *body, struct sim_reply *r)
{
	struct json_object *u, *pw;
	unsigned char rnd[32];
	struct sim_session *se = NULL;
	size_t i;

	if (!json_object_object_get_ex(body, "UserName", &u) || !json_object_is_type(u, json_type_string) ||
	    !json_object_object_get_ex(body, "Password", &pw) || !json_object_is_type(pw, json_type_string)) {
		sim_reply_error(r, 400, MSG_BASE "PropertyMissing",
				"A session needs the string properties UserName and Password.");
		return;
	}
	if (sim_accounts_any(srv) &&
	    sim_account_check(srv, json_object_get_string(u), json_object_get_string(pw)) < 0) {
		sim_reply_error(r, 401, MSG_BASE "ResourceAtUriUnauthorized",
				"Invalid user name or password.");
		return;
	}
	for (i = 0; i < SIM_MAX_SESSIONS; i++)
		if (srv->sessions[i].id[0] == '\0') {
			se = &srv->sessions[i];
			break;
		}
	if (se == NULL) { /* full: the oldest session goes */
		unsigned long oldest = ~0UL;

		for (i = 0; i < SIM_MAX_SESSIONS; i++) {
			long n = 0; /* ids are ours: "%lu" of next_session */

			if (falcon_strtol(srv->sessions[i].id, 10, 0, LONG_MAX, &n) != FALCON_OK)
				falcon_err_clear();
			if ((unsigned long)n < oldest) {
				oldest = n;
				se = &srv->sessions[i];
			}
		}
	}
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		sim_reply_error(r, 500, MSG_BASE "InternalError", "no randomness for a session token");
		return;
	}
	memset(se, 0, sizeof(*se));
	snprintf(se->id, sizeof(se->id), "%lu", ++srv->next_session);
	for (i = 0; i < sizeof(rnd); i++)
		snprintf(se->token + 2 * i, 3, "%02x", rnd[i]);
	falcon_strlcpy(se->user, json_object_get_string(u), sizeof(se->user));
	r->status = 201;
	r->body = session_res(se);
	r->etag = true;
	snprintf(r->location, sizeof(r->location), RF "/SessionService/Sessions/%s", se->id);
	falcon_strlcpy(r->token, se->token, sizeof(r->token));
	falcon_verbose("session %s opened for %s", se->id, se->user);
}

/*
 * required_priv - the privilege `method` on the routed resource needs
 * (DSP8011 Redfish_1.x PrivilegeRegistry, OperationMap and its
 * overrides): none for the unauthenticated resources (DSP0266 sec.
 * 13.3.1) and session login; Login for GET and HEAD; ConfigureSelf for
 * DELETE of one's own session, PATCH of one's own account (the
 * Password only: sim_account_patch) and DELETE of one's own event
 * subscription, else the route's privilege.
 */
static unsigned required_priv(const struct sim_server *srv, const struct sim_caller *who,
			      const struct route *rt, unsigned route_priv, const char *method,
			      bool get)
{
	if (rt->k == K_REDFISH || rt->k == K_ROOT || rt->k == K_METADATA || rt->k == K_ODATA ||
	    rt->k == K_SCHEMA_XML || rt->k == K_SCHEMA_JSON ||
	    (rt->k == K_SESS_COLL && !get))
		return 0;
	if (get)
		return SIM_PRIV_LOGIN;
	if (rt->k == K_SESS && who->session[0] != '\0' &&
	    strcmp(srv->sessions[rt->sess].id, who->session) == 0)
		return SIM_PRIV_SELF;
	if (rt->k == K_ACC && strcmp(method, "PATCH") == 0 && who->account == rt->acc)
		return SIM_PRIV_SELF;
	if (rt->k == K_SUB && sim_sub_owned(srv, rt->sub, who))
		return SIM_PRIV_SELF;
	return route_priv;
}

/* account_write - POST Accounts, PATCH or DELETE an account. */
static void account_write(struct sim_server *srv, const struct sim_caller *who,
			  const char *method, const struct route *rt, struct json_object *req,
			  struct sim_reply *r)
{
	char msg[256];
	int status = 500, i;

	if (strcmp(method, "DELETE") == 0) {
		if (rt->acc == who->account) {
			sim_reply_error(r, 409, MSG_BASE "ResourceInUse",
					"An account cannot delete itself.");
			return;
		}
		falcon_info("account %s deleted", srv->accounts[rt->acc].user);
		explicit_bzero(&srv->accounts[rt->acc], sizeof(srv->accounts[rt->acc]));
		r->status = 204;
		return;
	}
	if (rt->k == K_ACC_COLL) {
		if ((i = sim_account_create(srv, req, &status, msg, sizeof(msg))) < 0) {
			sim_reply_error(r, status, status == 409 ? MSG_BASE "ResourceAlreadyExists"
					: status == 400 ? MSG_BASE "PropertyValueError"
					: MSG_BASE "InsufficientStorage", "%s", msg);
			return;
		}
		r->status = 201;
		r->body = sim_account_json(&srv->accounts[i]);
		r->etag = true;
		snprintf(r->location, sizeof(r->location), RF "/AccountService/Accounts/%s",
			 srv->accounts[i].id);
		return;
	}
	if (sim_account_patch(srv, rt->acc, who, req, &status, msg, sizeof(msg)) != 0) {
		sim_reply_error(r, status, status == 403 ? MSG_BASE "InsufficientPrivilege"
				: MSG_BASE "PropertyValueError", "%s", msg);
		return;
	}
	r->status = 200;
	r->body = sim_account_json(&srv->accounts[rt->acc]);
	r->etag = true;
}

/* sub_create - POST Subscriptions: 201 with the EventDestination and its
 * Location, or sim_sub_create()'s error as a Redfish error reply. */
static void sub_create(struct sim_server *srv, const struct sim_caller *who,
		       struct json_object *req, struct sim_reply *r)
{
	const char *key = NULL;
	char msg[256], id[64];
	int status = 500, i;

	if ((i = sim_sub_create(srv, who, req, &status, &key, msg, sizeof(msg))) < 0) {
		snprintf(id, sizeof(id), MSG_BASE "%s", key);
		sim_reply_error(r, status, id, "%s", msg);
		return;
	}
	r->status = 201;
	r->body = sim_sub_json(srv, i);
	r->etag = true;
	snprintf(r->location, sizeof(r->location), RF "/EventService/Subscriptions/%s",
		 srv->subs[i].id);
}

/* refuse_priv - 403 naming need's privileges unless who holds one of them;
 * true when refused. */
static bool refuse_priv(const struct sim_caller *who, unsigned need, const char *method,
			const char *path, struct sim_reply *r)
{
	char names[128];

	if (need == 0 || (who->privs & need) != 0)
		return false;
	sim_priv_names(need, names, sizeof(names));
	sim_reply_error(r, 403, MSG_BASE "InsufficientPrivilege",
			"There are insufficient privileges for the account or credentials "
			"associated with the current session to perform the requested operation "
			"(%s %s needs %s).", method, path, names);
	falcon_verbose("%s %s refused: needs %s", method, path, names);
	return true;
}

void sim_redfish_handle(struct sim_server *srv, const struct sim_caller *who,
			const char *method, const char *path,
			const char *body, size_t len, const char *if_match,
			struct sim_reply *r)
{
	char norm[512];
	struct route rt;
	struct json_object *req = NULL, *cur = NULL;
	char etag[32];
	size_t i, n;
	bool get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;

	memset(r, 0, sizeof(*r));
	if (falcon_strlcpy(norm, path, sizeof(norm)) >= sizeof(norm)) {
		sim_reply_error(r, 404, MSG_BASE "ResourceNotFound", "The URI is too long.");
		return;
	}
	n = strlen(norm);
	while (n > 1 && norm[n - 1] == '/')
		norm[--n] = '\0';
	tasks_tick(srv);
	memset(&rt, 0, sizeof(rt));
	for (i = 0; i < ARRAY_SIZE(routes); i++) {
		memset(&rt, 0, sizeof(rt));
		if (match(srv, norm, routes[i].pat, &rt)) {
			rt.k = routes[i].k;
			break;
		}
	}
	if (i < ARRAY_SIZE(routes) && srv->no_switches && (rt.k == K_SW_COLL || rt.k == K_SW))
		i = ARRAY_SIZE(routes); /* --no-switches: the service does not have them */
	if (i == ARRAY_SIZE(routes)) {
		sim_reply_error(r, 404, MSG_BASE "ResourceNotFound",
				"The requested resource of type unknown at %s was not found.", path);
		return;
	}
	if (!(get ? strstr(routes[i].allow, "GET") != NULL : strstr(routes[i].allow, method) != NULL)) {
		sim_reply_error(r, 405, MSG_BASE "OperationNotAllowed",
				"The %s method is not allowed on %s (allowed: %s).", method, norm,
				routes[i].allow);
		falcon_strlcpy(r->allow, routes[i].allow, sizeof(r->allow));
		return;
	}
	if (refuse_priv(who, required_priv(srv, who, &rt, routes[i].priv, method, get), method,
			norm, r))
		return;
	if (get) {
		/* DSP0266 sec. 8.2.2: GET and HEAD answers carry Allow */
		falcon_strlcpy(r->allow, routes[i].allow, sizeof(r->allow));
		if (rt.k == K_METADATA || rt.k == K_SCHEMA_XML || rt.k == K_SCHEMA_JSON) {
			r->status = 200;
			r->text = rt.k == K_METADATA ? sim_odata_metadata()
				  : rt.k == K_SCHEMA_XML ? sim_schema_csdl() : sim_schema_json();
			r->ctype = rt.k == K_SCHEMA_JSON ? "application/json" : "application/xml";
			return;
		}
		if (rt.k == K_TASK_MON) {
			task_monitor(srv, &srv->tasks[rt.task], r);
			return;
		}
		r->status = 200;
		r->body = render(srv, &rt);
		r->etag = rt.k != K_REDFISH && rt.k != K_ODATA;
		return;
	}
	if (strcmp(method, "DELETE") == 0) {
		if (rt.k == K_TASK_MON) {
			task_cancel(&srv->tasks[rt.task], r);
		} else if (rt.k == K_ACC) {
			account_write(srv, who, method, &rt, NULL, r);
		} else if (rt.k == K_SUB) {
			sim_sub_delete(srv, rt.sub);
			r->status = 204;
		} else { /* K_SESS */
			falcon_verbose("session %s closed", srv->sessions[rt.sess].id);
			memset(&srv->sessions[rt.sess], 0, sizeof(srv->sessions[rt.sess]));
			r->status = 204;
		}
		return;
	}
	/* PATCH or POST: check If-Match against the target resource first. */
	if (if_match != NULL && rt.k != K_SESS_COLL && rt.k != K_ACC_COLL && rt.k != K_SUB_COLL) {
		struct route target = rt;

		if (rt.k == K_SYS_ADD || rt.k == K_SYS_REMOVE)
			target.k = K_SYS;
		cur = render(srv, &target);
		sim_etag_of(cur, etag, sizeof(etag));
		json_object_put(cur);
		if (!if_match_ok(if_match, etag)) {
			sim_reply_error(r, 412, MSG_BASE "PreconditionFailed",
					"The ETag supplied (If-Match: %s) does not match the current ETag %s of %s.",
					if_match, etag, norm);
			return;
		}
	}
	if ((req = parse_body(body, len, r)) == NULL)
		return;
	switch (rt.k) {
	case K_ZONE:
		patch_zone(srv, rt.p, req, r);
		break;
	case K_SYS_ADD:
	case K_SYS_REMOVE:
		block_action(srv, rt.p, rt.k == K_SYS_ADD, req, r);
		break;
	case K_SESS_COLL:
		new_session(srv, req, r);
		break;
	case K_ACC_COLL:
	case K_ACC:
		account_write(srv, who, method, &rt, req, r);
		break;
	case K_SUB_COLL:
		sub_create(srv, who, req, r);
		break;
	case K_EVS_TEST: /* allowed: falcon-sim.c sends it (sim_events_test) */
		r->test_event = true;
		r->status = 204;
		break;
	default:
		sim_reply_error(r, 405, MSG_BASE "OperationNotAllowed", "not allowed");
		break;
	}
	json_object_put(req);
}

/* ---- admin ---- */

struct json_object *sim_state_json(struct sim_server *srv)
{
	const struct sim_config *cfg = &srv->cfg;
	struct json_object *o = json_object_new_object(), *ports = json_object_new_array();
	struct json_object *devs = json_object_new_array();
	int p, d, s, i, nsess = 0;

	tasks_tick(srv);
	jadd_str(o, "chassis", cfg->chassis);
	jadd_str(o, "mode", sim_mode_str(cfg->mode));
	jadd_str(o, "surprise_removal", cfg->surprise == SIM_SURPRISE_STALE ? "stale"
		 : cfg->surprise == SIM_SURPRISE_REFUSE ? "refuse" : "remove");
	for (p = 0; p < SIM_PORTS; p++) {
		struct json_object *po = json_object_new_object();

		jadd_fmt(po, "id", "H%d", p + 1);
		if (port_cabled(cfg, p)) {
			jadd_str(po, "host", cfg->port[p].host);
			jadd_str(po, "adapter", cfg->port[p].adapter);
		} else {
			json_object_object_add(po, "host", NULL);
		}
		json_object_array_add(ports, po);
	}
	json_object_object_add(o, "host_ports", ports);
	for (d = 1; d <= SIM_DRAWERS; d++)
		for (s = 1; s <= SIM_SLOTS; s++) {
			const struct sim_slot_state *ss = &srv->st.slot[d - 1][s - 1];
			struct json_object *dv;
			char bdf[SIM_BDF_LEN];

			if (!populated(cfg, d, s))
				continue;
			dv = json_object_new_object();
			jadd_fmt(dv, "id", "drawer%d_slot%d", d, s);
			jadd_str(dv, "type", falcon_dev_type_str(cfg->drawer[d - 1].slot[s - 1].type));
			if (ss->owner >= 0) {
				jadd_fmt(dv, "owner", "H%d", ss->owner + 1);
				jadd_str(dv, "host", cfg->port[ss->owner].host);
				sim_slot_bdf(cfg, ss->owner, d, s, bdf, sizeof(bdf));
				jadd_str(dv, "bdf", bdf);
			} else {
				json_object_object_add(dv, "owner", NULL);
				json_object_object_add(dv, "host", NULL);
				json_object_object_add(dv, "bdf", NULL);
			}
			json_object_object_add(dv, "staged", json_object_new_boolean(ss->staged));
			json_object_object_add(dv, "present", json_object_new_boolean(ss->present));
			json_object_object_add(dv, "stale", json_object_new_boolean(ss->stale));
			json_object_array_add(devs, dv);
		}
	json_object_object_add(o, "devices", devs);
	for (i = 0; i < SIM_MAX_SESSIONS; i++)
		if (srv->sessions[i].id[0] != '\0')
			nsess++;
	json_object_object_add(o, "sessions", json_object_new_int(nsess));
	json_object_object_add(o, "anonymous", json_object_new_boolean(!sim_accounts_any(srv)));
	json_object_object_add(o, "tls", json_object_new_boolean(srv->tls));
	json_object_object_add(o, "connections", json_object_new_int64((int64_t)srv->connections));
	json_object_object_add(o, "redfish_connections",
			       json_object_new_int64((int64_t)srv->redfish_connections));
	json_object_object_add(o, "subscriptions", sim_subs_json(srv));
	return o;
}
