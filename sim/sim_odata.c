/*
 * sim_odata.c - falcon-sim's OData documents: the CSDL $metadata that
 * names every DMTF schema namespace the service uses, the OData service
 * document (/redfish/v1/odata) and the schema URI of a resource for the
 * Link: rel=describedby header.  Pure: no server state.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "sim_server.h"
#include "core/util.h"

/*
 * Every schema falcon-sim's resources name in @odata.type (sim_redfish.c),
 * with the versioned namespace used ("" for the unversioned collections).
 * The sim-protocol test walks every resource and checks that each
 * @odata.type's namespace is included here, so the two cannot drift apart.
 */
static const struct {
	const char *schema;  /* DMTF CSDL file <schema>_v1.xml */
	const char *version; /* "v1_16_0"; "" = unversioned only */
} schemas[] = {
	{ "ServiceRoot", "v1_16_0" },
	{ "Resource", "v1_19_0" },
	{ "Chassis", "v1_25_0" },
	{ "ChassisCollection", "" },
	{ "PCIeDevice", "v1_14_0" },
	{ "PCIeDeviceCollection", "" },
	{ "PCIeFunction", "v1_5_0" },
	{ "PCIeFunctionCollection", "" },
	{ "Fabric", "v1_3_0" },
	{ "FabricCollection", "" },
	{ "Endpoint", "v1_8_0" },
	{ "EndpointCollection", "" },
	{ "Zone", "v1_6_1" },
	{ "ZoneCollection", "" },
	{ "Switch", "v1_9_0" },
	{ "SwitchCollection", "" },
	{ "CompositionService", "v1_2_0" },
	{ "ResourceBlock", "v1_4_0" },
	{ "ResourceBlockCollection", "" },
	{ "Processor", "v1_18_0" },
	{ "Drive", "v1_17_0" },
	{ "NetworkInterface", "v1_2_0" },
	{ "ComputerSystem", "v1_20_0" },
	{ "ComputerSystemCollection", "" },
	{ "SessionService", "v1_1_8" },
	{ "Session", "v1_6_0" },
	{ "SessionCollection", "" },
	{ "TaskService", "v1_2_1" },
	{ "Task", "v1_7_3" },
	{ "TaskCollection", "" },
	{ "Message", "v1_1_2" },
	{ "EventService", "v1_10_0" },
	{ "Event", "v1_7_0" },
	{ "EventDestination", "v1_15_0" },
	{ "EventDestinationCollection", "" },
	{ "AccountService", "v1_15_0" },
	{ "ManagerAccount", "v1_12_0" },
	{ "ManagerAccountCollection", "" },
	{ "Role", "v1_3_2" },
	{ "RoleCollection", "" },
	{ "Manager", "v1_19_0" },
	{ "ManagerCollection", "" },
};

const char *sim_odata_metadata(void)
{
	static char doc[16384];
	size_t i, n;

	if (doc[0] != '\0')
		return doc;
	n = (size_t)snprintf(doc, sizeof(doc),
			     "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			     "<edmx:Edmx xmlns:edmx=\"http://docs.oasis-open.org/odata/ns/edmx\" Version=\"4.0\">\n"
			     "  <edmx:Reference Uri=\"http://docs.oasis-open.org/odata/odata/v4.0/errata03/csd01/complete/vocabularies/Org.OData.Core.V1.xml\">\n"
			     "    <edmx:Include Namespace=\"Org.OData.Core.V1\" Alias=\"OData\"/>\n"
			     "  </edmx:Reference>\n"
			     /* our Oem objects: the Falcon OEM schema (sim_schema.c) */
			     "  <edmx:Reference Uri=\"" SIM_SCHEMA_CSDL "\">\n"
			     "    <edmx:Include Namespace=\"Falcon\"/>\n"
			     "    <edmx:Include Namespace=\"Falcon.v1_0_0\"/>\n"
			     "  </edmx:Reference>\n");
	for (i = 0; i < ARRAY_SIZE(schemas) && n < sizeof(doc); i++) {
		n += (size_t)snprintf(doc + n, sizeof(doc) - n,
				      "  <edmx:Reference Uri=\"http://redfish.dmtf.org/schemas/v1/%s_v1.xml\">\n"
				      "    <edmx:Include Namespace=\"%s\"/>\n",
				      schemas[i].schema, schemas[i].schema);
		if (n < sizeof(doc) && schemas[i].version[0] != '\0')
			n += (size_t)snprintf(doc + n, sizeof(doc) - n,
					      "    <edmx:Include Namespace=\"%s.%s\"/>\n",
					      schemas[i].schema, schemas[i].version);
		if (n < sizeof(doc))
			n += (size_t)snprintf(doc + n, sizeof(doc) - n, "  </edmx:Reference>\n");
	}
	if (n < sizeof(doc))
		n += (size_t)snprintf(doc + n, sizeof(doc) - n,
				      "  <edmx:DataServices>\n"
				      "    <Schema xmlns=\"http://docs.oasis-open.org/odata/ns/edm\" Namespace=\"Service\">\n"
				      "      <EntityContainer Name=\"Service\" Extends=\"ServiceRoot.v1_16_0.ServiceContainer\"/>\n"
				      "    </Schema>\n"
				      "  </edmx:DataServices>\n"
				      "</edmx:Edmx>\n");
	if (n >= sizeof(doc))
		falcon_strlcpy(doc, "", sizeof(doc)); /* cannot happen: the table is fixed */
	return doc;
}

struct json_object *sim_odata_service_doc(void)
{
	static const char *const top[][2] = {
		{ "Service", "/redfish/v1/" },
		{ "Chassis", "/redfish/v1/Chassis" },
		{ "Fabrics", "/redfish/v1/Fabrics" },
		{ "Systems", "/redfish/v1/Systems" },
		{ "CompositionService", "/redfish/v1/CompositionService" },
		{ "SessionService", "/redfish/v1/SessionService" },
		{ "TaskService", "/redfish/v1/TaskService" },
		{ "EventService", "/redfish/v1/EventService" },
		{ "AccountService", "/redfish/v1/AccountService" },
		{ "Managers", "/redfish/v1/Managers" },
	};
	struct json_object *o = json_object_new_object(), *v = json_object_new_array();
	size_t i;

	json_object_object_add(o, "@odata.context", json_object_new_string("/redfish/v1/$metadata"));
	for (i = 0; i < ARRAY_SIZE(top); i++) {
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "name", json_object_new_string(top[i][0]));
		json_object_object_add(e, "kind", json_object_new_string("Singleton"));
		json_object_object_add(e, "url", json_object_new_string(top[i][1]));
		json_object_array_add(v, e);
	}
	json_object_object_add(o, "value", v);
	return o;
}

bool sim_odata_schema_uri(const char *odata_type, char *buf, size_t n)
{
	const char *dot;
	int len;

	if (odata_type == NULL || odata_type[0] != '#')
		return false;
	odata_type++;
	dot = strrchr(odata_type, '.');
	if (dot == NULL || dot == odata_type)
		return false;
	len = (int)(dot - odata_type);
	return (size_t)snprintf(buf, n, "https://redfish.dmtf.org/schemas/v1/%.*s.json",
				len, odata_type) < n;
}
