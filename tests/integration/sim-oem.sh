#!/bin/sh
# sim-oem.sh - the Falcon OEM schema: $metadata references it
# (edmx:Reference to /redfish/v1/Schemas/Falcon_v1.xml, Falcon and
# Falcon.v1_0_0), falcon-sim serves it there and as JSON Schema, both
# without authentication like $metadata; with python3-jsonschema the JSON
# Schema is a valid draft-07 schema and every Oem.Falcon falcon-sim serves
# (the Chassis, every host port and device Endpoint, a device attached and
# free) validates against it; an unknown property does not; the CSDL
# declares the same properties as the JSON Schema.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/sim-lib.sh"
python3 -c 'import jsonschema' 2>/dev/null ||
	t_skip "python3-jsonschema not installed (apt-get install python3-jsonschema)"

printf 'admin:s3cret\n' >"$t_tmp/creds"
chmod 600 "$t_tmp/creds"
sim_start --credentials "$t_tmp/creds"

req GET "$RF/\$metadata"
expect 200 "\$metadata without authentication"
cp "$t_tmp/body" "$t_tmp/metadata.xml"
req GET "$RF/Schemas/Falcon_v1.xml"
expect 200 "the CSDL without authentication"
cp "$t_tmp/body" "$t_tmp/Falcon_v1.xml"
req GET "$RF/Schemas/Falcon.v1_0_0.json"
expect 200 "the JSON Schema without authentication"
cp "$t_tmp/body" "$t_tmp/Falcon.json"
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body drawer1_slot1)" -u admin:s3cret
expect 200 "drawer1_slot1 given to H1"

python3 - "$t_tmp" "$SIM_BASE" <<'PY' || t_fail "the OEM schema"
import json, sys, urllib.request, base64, xml.etree.ElementTree as ET
import jsonschema
tmp, base = sys.argv[1], sys.argv[2]
E = "{http://docs.oasis-open.org/odata/ns/edmx}"
S = "{http://docs.oasis-open.org/odata/ns/edm}"
md = ET.parse(tmp + "/metadata.xml").getroot()
refs = {r.get("Uri"): [i.get("Namespace") for i in r.findall(E + "Include")]
        for r in md.findall(E + "Reference")}
assert refs.get("/redfish/v1/Schemas/Falcon_v1.xml") == ["Falcon", "Falcon.v1_0_0"], refs
assert not any(s.get("Namespace", "").startswith("Falcon") for s in md.iter(S + "Schema")), \
    "Falcon still inline in $metadata"
csdl = ET.parse(tmp + "/Falcon_v1.xml").getroot()
ns = {s.get("Namespace"): s for s in csdl.iter(S + "Schema")}
assert set(ns) == {"Falcon", "Falcon.v1_0_0"}, ns
ctypes = {c.get("Name"): c for c in ns["Falcon.v1_0_0"].findall(S + "ComplexType")}
schema = json.load(open(tmp + "/Falcon.json"))
jsonschema.Draft7Validator.check_schema(schema)
for t in ("Chassis", "Endpoint", "Drawer"):
    csdl_props = {p.get("Name") for p in ctypes[t].findall(S + "Property")}
    json_props = set(schema["definitions"][t]["properties"]) - {"@odata.type"}
    assert csdl_props == json_props, (t, csdl_props ^ json_props)
    for p in ctypes[t].findall(S + "Property"):
        terms = {a.get("Term") for a in p.findall(S + "Annotation")}
        assert {"OData.Permissions", "OData.Description"} <= terms, (t, p.get("Name"))
def get(path):
    rq = urllib.request.Request(base + path)
    rq.add_header("Authorization", "Basic " + base64.b64encode(b"admin:s3cret").decode())
    return json.load(urllib.request.urlopen(rq))
def check(kind, obj):
    v = jsonschema.Draft7Validator(dict(schema, **{"$ref": "#/definitions/" + kind}))
    errs = [e.message for e in v.iter_errors(obj)]
    assert not errs, (kind, obj, errs)
    return 1
chassis = get("/redfish/v1/Chassis")["Members"][0]["@odata.id"]
n = check("Chassis", get(chassis)["Oem"]["Falcon"])
eps = get("/redfish/v1/Fabrics/PCIe/Endpoints")["Members"]
seen = set()
for m in eps:
    f = get(m["@odata.id"])["Oem"]["Falcon"]
    n += check("Endpoint", f)
    seen |= set(f)
assert seen == set(schema["definitions"]["Endpoint"]["properties"]), \
    set(schema["definitions"]["Endpoint"]["properties"]) ^ seen
bad = dict(get(chassis)["Oem"]["Falcon"], Bogus=1)
v = jsonschema.Draft7Validator(dict(schema, **{"$ref": "#/definitions/Chassis"}))
assert list(v.iter_errors(bad)), "an unknown property validated"
print("validated", n, "Oem.Falcon objects")
PY
t_ok "python3-jsonschema: the served Oem.Falcon objects validate; CSDL and JSON Schema agree; an unknown property fails"
