#!/bin/sh
# sim-protocol.sh - falcon-sim speaks the Redfish protocol as DMTF's
# Protocol Validator checks it: $metadata and the OData service document
# (served without authentication, and $metadata naming every schema
# namespace the resources use), Allow and Link (rel=describedby) on GET and
# HEAD, 412 for an unsupported OData-Version, POST to Sessions/Members,
# 304 for a matching If-None-Match, PartLocation.ServiceLabel, @odata.type
# on Oem objects.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/sim-lib.sh"

printf 'admin:s3cret\n' >"$t_tmp/creds"
chmod 600 "$t_tmp/creds"
sim_start --credentials "$t_tmp/creds"
AUTH="-u admin:s3cret"

# Served without authentication (DSP0266 sec. 13.3.1).
for p in /redfish /redfish/v1/ '/redfish/v1/$metadata' /redfish/v1/odata; do
	req GET "$p"
	expect 200 "GET $p without credentials"
done
req GET "$RF/Chassis"
expect 401 "GET Chassis without credentials"
req GET "$RF/\$metadata"
grep -qi '^Content-Type: application/xml' "$t_tmp/hdr" || t_fail "\$metadata is not XML"
cp "$t_tmp/body" "$t_tmp/metadata.xml"
python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$t_tmp/metadata.xml" ||
	t_fail "\$metadata is not well-formed XML"
req GET "$RF/odata"
[ "$(jget 'd["@odata.context"]')" = '/redfish/v1/$metadata' ] || t_fail "odata: @odata.context"
[ "$(jget '[v["url"] for v in d["value"] if v["name"] == "Service"][0]')" = /redfish/v1/ ] ||
	t_fail "odata: the Service singleton"
t_ok "service document"

# Walk every resource from the service root: each @odata.type (Oem objects
# included) has its namespace in $metadata; each GET carries Allow and a Link
# to the schema of its @odata.type.
python3 - "$SIM_BASE" "$t_tmp/metadata.xml" <<'PY' || t_fail "resource walk"
import base64, json, re, sys, urllib.request, xml.etree.ElementTree as E
base, meta = sys.argv[1], sys.argv[2]
ns = set()
for el in E.parse(meta).iter():
    if el.tag.endswith('}Include') or el.tag.endswith('}Schema'):
        ns.add(el.get('Namespace'))
hdr = {'Authorization': 'Basic ' + base64.b64encode(b'admin:s3cret').decode()}
seen, todo, types, bad = set(), ['/redfish/v1/'], 0, []
def links(o):
    if isinstance(o, dict):
        for k, v in o.items():
            if k == '@odata.id' and isinstance(v, str):
                yield v
            else:
                yield from links(v)
    elif isinstance(o, list):
        for v in o:
            yield from links(v)
def otypes(o, where):
    if isinstance(o, dict):
        for k, v in o.items():
            if k == '@odata.type':
                yield where, v
            else:
                yield from otypes(v, where + '/' + k)
    elif isinstance(o, list):
        for v in o:
            yield from otypes(v, where)
while todo:
    p = todo.pop()
    if p in seen or '/Actions/' in p:
        continue
    seen.add(p)
    r = urllib.request.urlopen(urllib.request.Request(base + p, headers=hdr))
    body = json.load(r)
    allow = r.headers.get('Allow') or ''
    if 'GET' not in allow:
        bad.append('%s: Allow %r' % (p, allow))
    t = body.get('@odata.type')
    if t:
        want = '<https://redfish.dmtf.org/schemas/v1/%s.json>; rel=describedby' % t[1:].rsplit('.', 1)[0]
        if r.headers.get('Link') != want:
            bad.append('%s: Link %r, expected %r' % (p, r.headers.get('Link'), want))
    elif p != '/redfish/v1/odata':
        bad.append('%s: no @odata.type' % p)
    for where, t in otypes(body, p):
        types += 1
        m = re.match(r'^#([A-Za-z]+(\.v\d+_\d+_\d+)?)\.[A-Za-z]+$', t)
        if not m or m.group(1) not in ns:
            bad.append('%s: @odata.type %s not in $metadata' % (where, t))
    oem = body.get('Oem', {}).get('Falcon') if isinstance(body.get('Oem'), dict) else None
    if oem is not None and '@odata.type' not in oem:
        bad.append('%s: Oem.Falcon without @odata.type' % p)
    for l in links(body):
        todo.append(l.split('#')[0])
if bad:
    print('\n'.join(bad), file=sys.stderr)
    sys.exit(1)
print('walked %d resources, %d @odata.type values' % (len(seen), types))
PY
t_ok "every @odata.type in \$metadata; Allow and Link on every GET"

req HEAD "$RF/Fabrics/PCIe/Zones/H1" "" $AUTH -I
expect 200 "HEAD zone"
grep -qi '^Allow: GET, HEAD, PATCH' "$t_tmp/hdr" || t_fail "HEAD without Allow"
grep -qi '^Link: <https://redfish.dmtf.org/schemas/v1/Zone.v1_6_1.json>; rel=describedby' "$t_tmp/hdr" ||
	t_fail "HEAD without Link"

# OData-Version: 4.0 is fine, anything else 412 (DSP0266 sec. 8.1.1).
req GET "$RF/" "" -H 'OData-Version: 4.0'
expect 200 "OData-Version 4.0"
req GET "$RF/" "" -H 'OData-Version: 4.1'
expect 412 "OData-Version 4.1"

# Sessions: on the collection and on Members, without other credentials.
req POST "$RF/SessionService/Sessions/Members" '{"UserName":"admin","Password":"s3cret"}'
expect 201 "POST Sessions/Members"
TOKEN=$(sed -n 's/^[Xx]-[Aa]uth-[Tt]oken: *//p' "$t_tmp/hdr" | tr -d '\r')
LOC=$(sed -n 's/^[Ll]ocation: *//p' "$t_tmp/hdr" | tr -d '\r')
[ -n "$TOKEN" ] && [ -n "$LOC" ] || t_fail "no token or Location"
req POST "$RF/SessionService/Sessions/Members" '{"UserName":"admin","Password":"wrong"}'
expect 401 "Members with a wrong password"
req GET "$RF/SessionService/Sessions/Members" "" -H "X-Auth-Token: $TOKEN"
expect 405 "GET Sessions/Members"
req DELETE "$LOC" "" -H "X-Auth-Token: $TOKEN"
expect 204 "logout"

# If-None-Match: 304 for the current ETag, 200 for another.
req GET "$RF/Chassis/falcon1" "" $AUTH
E=$(etag)
rm -f "$t_tmp/body"
req GET "$RF/Chassis/falcon1" "" $AUTH -H "If-None-Match: $E"
expect 304 "If-None-Match with the current ETag"
[ ! -s "$t_tmp/body" ] || t_fail "304 with a body"
req GET "$RF/Chassis/falcon1" "" $AUTH -H 'If-None-Match: "0000000000000000"'
expect 200 "If-None-Match with another ETag"

# Schema points found by DMTF's Service Validator.
req GET "$RF/Chassis/falcon1/PCIeDevices/drawer1_slot3" "" $AUTH
[ "$(jget 'd["Slot"]["Location"]["PartLocation"]["ServiceLabel"]')" = "Drawer 1 Slot 3" ] ||
	t_fail "Slot.Location.PartLocation.ServiceLabel"
[ "$(jget '"ServiceLabel" in d["Slot"]["Location"]')" = False ] || t_fail "Location.ServiceLabel is not in the schema"
req GET "$RF/Systems/H1" "" $AUTH
[ "$(jget 'd["Boot"]["BootSourceOverrideEnabled"]')" = Disabled ] || t_fail "ComputerSystem Boot"
t_ok "PartLocation, Boot"
