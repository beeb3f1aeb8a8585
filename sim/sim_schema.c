/*
 * sim_schema.c - the Falcon OEM schema: the properties falcon-sim puts
 * under Oem.Falcon of the Chassis (#Falcon.v1_0_0.Chassis) and of the
 * fabric's Endpoints (#Falcon.v1_0_0.Endpoint), as CSDL (served at
 * SIM_SCHEMA_CSDL, the edmx:Reference of $metadata) and as JSON Schema
 * (SIM_SCHEMA_JSON).  Pure: static text.
 *
 * Conventions: DMTF DSP0266 1.20 sec. 9.8 "OEM extensions" and sec. 8.4
 * (a service's own schemas are referenced from $metadata and may be
 * served by it, under /redfish/v1/Schemas); DSP0274 (CSDL: a versioned
 * namespace Falcon.v1_0_0 beside the unversioned Falcon, ComplexTypes
 * deriving from Resource.OemObject, OData.AdditionalProperties false,
 * OData.Permissions and OData.Description on every property).  The JSON
 * Schema is draft-07 with one definition per type, additionalProperties
 * false, as DMTF's JSON schemas are.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include "sim_server.h"

#define PROP(name, type, desc) \
	"        <Property Name=\"" name "\" Type=\"" type "\">\n" \
	"          <Annotation Term=\"OData.Permissions\" EnumMember=\"OData.Permission/Read\"/>\n" \
	"          <Annotation Term=\"OData.Description\" String=\"" desc "\"/>\n" \
	"        </Property>\n"

static const char csdl[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<edmx:Edmx xmlns:edmx=\"http://docs.oasis-open.org/odata/ns/edmx\" Version=\"4.0\">\n"
	"  <edmx:Reference Uri=\"http://docs.oasis-open.org/odata/odata/v4.0/errata03/csd01/complete/vocabularies/Org.OData.Core.V1.xml\">\n"
	"    <edmx:Include Namespace=\"Org.OData.Core.V1\" Alias=\"OData\"/>\n"
	"  </edmx:Reference>\n"
	"  <edmx:Reference Uri=\"http://redfish.dmtf.org/schemas/v1/Resource_v1.xml\">\n"
	"    <edmx:Include Namespace=\"Resource\"/>\n"
	"  </edmx:Reference>\n"
	"  <edmx:DataServices>\n"
	"    <Schema xmlns=\"http://docs.oasis-open.org/odata/ns/edm\" Namespace=\"Falcon\">\n"
	"      <ComplexType Name=\"Chassis\" BaseType=\"Resource.OemObject\" Abstract=\"true\">\n"
	"        <Annotation Term=\"OData.Description\" String=\"Falcon 4016 properties of the Chassis.\"/>\n"
	"      </ComplexType>\n"
	"      <ComplexType Name=\"Endpoint\" BaseType=\"Resource.OemObject\" Abstract=\"true\">\n"
	"        <Annotation Term=\"OData.Description\" String=\"Falcon 4016 properties of a fabric Endpoint.\"/>\n"
	"      </ComplexType>\n"
	"    </Schema>\n"
	"    <Schema xmlns=\"http://docs.oasis-open.org/odata/ns/edm\" Namespace=\"Falcon.v1_0_0\">\n"
	"      <EnumType Name=\"Mode\">\n"
	"        <Member Name=\"Standard\"/>\n"
	"        <Member Name=\"Advanced\"/>\n"
	"      </EnumType>\n"
	"      <ComplexType Name=\"Drawer\">\n"
	"        <Annotation Term=\"OData.AdditionalProperties\" Bool=\"false\"/>\n"
	"        <Annotation Term=\"OData.Description\" String=\"A drawer of 8 slots and the host ports cabled to it.\"/>\n"
	PROP("Drawer", "Edm.Int64", "The drawer's number, 1 or 2.")
	PROP("HostPorts", "Collection(Edm.String)", "The host ports (H1..H4) cabled to the drawer.")
	"      </ComplexType>\n"
	"      <ComplexType Name=\"Chassis\" BaseType=\"Falcon.Chassis\">\n"
	"        <Annotation Term=\"OData.AdditionalProperties\" Bool=\"false\"/>\n"
	PROP("Mode", "Falcon.v1_0_0.Mode", "The resource mode: a drawer for one or two hosts (Standard) or shared by up to three (Advanced).")
	PROP("Drawers", "Collection(Falcon.v1_0_0.Drawer)", "The drawers and their cabling.")
	"      </ComplexType>\n"
	"      <ComplexType Name=\"Endpoint\" BaseType=\"Falcon.Endpoint\">\n"
	"        <Annotation Term=\"OData.AdditionalProperties\" Bool=\"false\"/>\n"
	PROP("HostPort", "Edm.String", "The host port (H1..H4) of a host endpoint, or the one a device is given to; null when free.")
	PROP("HostName", "Edm.String", "The host cabled to a host port.")
	PROP("Adapter", "Edm.String", "The PCI address of the host's Falcon adapter.")
	PROP("Drawer", "Edm.Int64", "A device's drawer, 1 or 2.")
	PROP("Slot", "Edm.Int64", "A device's slot in its drawer, 1 to 8.")
	PROP("DeviceType", "Edm.String", "A device's kind: GPU, NVMe, NIC or other.")
	PROP("VendorId", "Edm.String", "A device's PCI vendor ID, 4 lowercase hex digits.")
	PROP("DeviceId", "Edm.String", "A device's PCI device ID, 4 lowercase hex digits.")
	PROP("Manufacturer", "Edm.String", "A device's manufacturer.")
	PROP("Model", "Edm.String", "A device's model.")
	PROP("SerialNumber", "Edm.String", "A device's serial number.")
	PROP("LinkSpeedGTs", "Edm.Decimal", "A device's PCIe link speed as trained, GT/s.")
	PROP("LinkWidth", "Edm.Int64", "A device's PCIe link width as trained, lanes.")
	"      </ComplexType>\n"
	"    </Schema>\n"
	"  </edmx:DataServices>\n"
	"</edmx:Edmx>\n";

#define S(desc) "{\"type\": \"string\", \"readonly\": true, \"description\": \"" desc "\"}"
#define SN(desc) "{\"type\": [\"string\", \"null\"], \"readonly\": true, \"description\": \"" desc "\"}"

static const char json[] =
	"{\n"
	"  \"$schema\": \"http://json-schema.org/draft-07/schema#\",\n"
	"  \"title\": \"#Falcon.v1_0_0\",\n"
	"  \"description\": \"The Falcon 4016 OEM properties (Oem.Falcon) of the Chassis and the fabric's Endpoints.\",\n"
	"  \"definitions\": {\n"
	"    \"Drawer\": {\n"
	"      \"type\": \"object\", \"additionalProperties\": false,\n"
	"      \"required\": [\"Drawer\", \"HostPorts\"],\n"
	"      \"properties\": {\n"
	"        \"Drawer\": {\"type\": \"integer\", \"minimum\": 1, \"maximum\": 2, \"readonly\": true},\n"
	"        \"HostPorts\": {\"type\": \"array\", \"readonly\": true, \"maxItems\": 4,\n"
	"                      \"items\": {\"type\": \"string\", \"pattern\": \"^H[1-4]$\"}}\n"
	"      }\n"
	"    },\n"
	"    \"Chassis\": {\n"
	"      \"type\": \"object\", \"additionalProperties\": false,\n"
	"      \"required\": [\"@odata.type\", \"Mode\", \"Drawers\"],\n"
	"      \"properties\": {\n"
	"        \"@odata.type\": {\"const\": \"#Falcon.v1_0_0.Chassis\"},\n"
	"        \"Mode\": {\"enum\": [\"Standard\", \"Advanced\"], \"readonly\": true},\n"
	"        \"Drawers\": {\"type\": \"array\", \"maxItems\": 2, \"readonly\": true,\n"
	"                    \"items\": {\"$ref\": \"#/definitions/Drawer\"}}\n"
	"      }\n"
	"    },\n"
	"    \"Endpoint\": {\n"
	"      \"type\": \"object\", \"additionalProperties\": false,\n"
	"      \"required\": [\"@odata.type\"],\n"
	"      \"properties\": {\n"
	"        \"@odata.type\": {\"const\": \"#Falcon.v1_0_0.Endpoint\"},\n"
	"        \"HostPort\": {\"type\": [\"string\", \"null\"], \"pattern\": \"^H[1-4]$\", \"readonly\": true},\n"
	"        \"HostName\": " S("The host cabled to a host port.") ",\n"
	"        \"Adapter\": {\"type\": \"string\", \"readonly\": true,\n"
	"                    \"pattern\": \"^([0-9a-f]{4,8}:)?[0-9a-f]{2}:[0-9a-f]{2}\\\\.[0-7]$\"},\n"
	"        \"Drawer\": {\"type\": \"integer\", \"minimum\": 1, \"maximum\": 2, \"readonly\": true},\n"
	"        \"Slot\": {\"type\": \"integer\", \"minimum\": 1, \"maximum\": 8, \"readonly\": true},\n"
	"        \"DeviceType\": {\"enum\": [\"GPU\", \"NVMe\", \"NIC\", \"other\"], \"readonly\": true},\n"
	"        \"VendorId\": {\"type\": \"string\", \"pattern\": \"^[0-9a-f]{4}$\", \"readonly\": true},\n"
	"        \"DeviceId\": {\"type\": \"string\", \"pattern\": \"^[0-9a-f]{4}$\", \"readonly\": true},\n"
	"        \"Manufacturer\": " SN("A device's manufacturer.") ",\n"
	"        \"Model\": " SN("A device's model.") ",\n"
	"        \"SerialNumber\": " SN("A device's serial number.") ",\n"
	"        \"LinkSpeedGTs\": {\"type\": \"number\", \"enum\": [2.5, 5, 8, 16, 32], \"readonly\": true},\n"
	"        \"LinkWidth\": {\"type\": \"integer\", \"enum\": [1, 2, 4, 8, 16], \"readonly\": true}\n"
	"      }\n"
	"    }\n"
	"  }\n"
	"}\n";

const char *sim_schema_csdl(void)
{
	return csdl;
}

const char *sim_schema_json(void)
{
	return json;
}
