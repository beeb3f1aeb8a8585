#!/bin/sh
# sim-redfish.sh - falcon-sim's fabric model (H3's zones and endpoints):
# resources and their ETags, attach/detach by PATCHing a zone's
# Links.Endpoints, one zone per device (409), the standard and advanced
# mode limits, stale If-Match (412), 404, 405 and 400.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/sim-lib.sh"

sim_start
grep -q 'accepting anonymous requests' "$t_tmp/sim.log" || t_fail "no anonymous warning at start-up"

# Every resource carries an ETag header equal to its @odata.etag.
for p in / /Chassis /Chassis/falcon1 /Chassis/falcon1/PCIeDevices \
	/Chassis/falcon1/PCIeDevices/drawer1_slot1 \
	/Chassis/falcon1/PCIeDevices/drawer1_slot1/PCIeFunctions/1 \
	/Fabrics /Fabrics/PCIe /Fabrics/PCIe/Endpoints /Fabrics/PCIe/Endpoints/hostport1_H1 \
	/Fabrics/PCIe/Endpoints/drawer2_slot5 /Fabrics/PCIe/Zones /Fabrics/PCIe/Zones/H1 \
	/CompositionService /CompositionService/ResourceBlocks \
	/CompositionService/ResourceBlocks/drawer1_slot1 \
	/CompositionService/ResourceBlocks/drawer1_slot1/Processors/GPU \
	/CompositionService/ResourceBlocks/drawer2_slot5/Drives/NVMe \
	/CompositionService/ResourceZones /CompositionService/ResourceZones/H1 \
	/Systems /Systems/H1 /SessionService /SessionService/Sessions; do
	req GET "$RF$p"
	[ "$STATUS" = 200 ] || t_fail "GET $RF$p: $STATUS"
	[ -n "$(etag)" ] || t_fail "GET $RF$p: no ETag header"
	[ "$(jget 'd["@odata.etag"]')" = "$(etag)" ] || t_fail "GET $RF$p: @odata.etag != ETag"
	[ "$(jget 'd["@odata.id"]')" != None ] || t_fail "GET $RF$p: no @odata.id"
done
t_ok "ETag and @odata.etag on every resource"

req GET "$RF/Fabrics/PCIe/Endpoints"
[ "$(jget 'd["Members@odata.count"]')" = 13 ] || t_fail "13 endpoints expected (4 host ports, 9 devices)"
req GET "$RF/Fabrics/PCIe/Endpoints/drawer1_slot1"
[ "$(jget 'd["ConnectedEntities"][0]["EntityPciId"]["DeviceId"]')" = 0x1db4 ] || t_fail "device id"
[ "$(jget 'd["Oem"]["Falcon"]["Model"]')" = "Tesla V100-PCIE-16GB" ] || t_fail "model"
req GET "$RF/Fabrics/PCIe/Endpoints/drawer2_slot5"
[ "$(jget 'd["ConnectedEntities"][0]["EntityType"]')" = Drive ] || t_fail "NVMe endpoint is a Drive"

# Errors: 404, 405 (with Allow), 400.
req GET "$RF/Fabrics/PCIe/Endpoints/drawer1_slot8"
expect 404 "empty slot has no endpoint"
[ "$(jget 'd["error"]["@Message.ExtendedInfo"][0]["MessageId"]')" = Base.1.16.ResourceNotFound ] ||
	t_fail "404 error body"
req GET "$RF/Nothing/Here"
expect 404 "unknown resource"
req DELETE "$RF/Fabrics/PCIe/Zones/H1"
expect 405 "DELETE on a zone"
grep -qi '^Allow: GET, HEAD, PATCH' "$t_tmp/hdr" || t_fail "405 without Allow"
req PATCH "$RF/Chassis/falcon1" '{"Name":"x"}'
expect 405 "PATCH on the chassis"
req PATCH "$RF/Fabrics/PCIe/Zones/H1" '{"Links": {"Endpoints": ['
expect 400 "truncated JSON"
[ "$(jget 'd["error"]["code"]')" = Base.1.16.MalformedJSON ] || t_fail "MalformedJSON"
req PATCH "$RF/Fabrics/PCIe/Zones/H1" '{"Links": {"Endpoints": "drawer1_slot1"}}'
expect 400 "wrong type"
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body hostport1_H1 drawer1_slot8)"
expect 400 "empty slot"
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body hostport2_H2)"
expect 400 "another zone's host port"

# Hostile bodies and URLs: errors, never a crash.
python3 -c 'print("{\"Links\":" + "[" * 100000 + "]" * 100000 + "}")' >"$t_tmp/deep.json"
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "" -H 'Content-Type: application/json' --data-binary "@$t_tmp/deep.json"
expect 400 "100000 levels of nesting"
python3 -c 'print("{\"Links\": \"" + "x" * 2000000 + "\"}")' >"$t_tmp/big.json"
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "" -H 'Content-Type: application/json' --data-binary "@$t_tmp/big.json"
expect 413 "2 MB body"
req GET "$RF/$(python3 -c 'print("a/" * 400)')"
expect 404 "very long URL"
req GET "$RF/Fabrics/PCIe/Endpoints/drawer1_slot1%00x"
expect 404 "NUL in the URL"
req PATCH "$RF/Fabrics/PCIe/Zones/H1" '{"Links":{"Endpoints":[{"@odata.id":5}]}}'
expect 400 "@odata.id of the wrong type"
req PATCH "$RF/Fabrics/PCIe/Zones/H1" '{"Links":{"Endpoints":[]}} trailing'
expect 400 "trailing data"

# Attach with If-Match; the ETag changes; the old one is stale (412).
req GET "$RF/Fabrics/PCIe/Zones/H1"
e1=$(etag)
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body hostport1_H1 drawer1_slot1 drawer1_slot2)" -H "If-Match: $e1"
expect 200 "attach drawer1_slot1+2 to H1"
e2=$(etag)
[ "$e1" != "$e2" ] || t_fail "zone ETag unchanged after PATCH"
[ "$(jget 'len(d["Links"]["Endpoints"])')" = 3 ] || t_fail "zone members"
[ "$(owner drawer1_slot1)" = H1 ] || t_fail "owner after attach"
req GET "$RF/Fabrics/PCIe/Endpoints/drawer1_slot1"
[ "$(jget 'd["Links"]["Zones"][0]["@odata.id"]')" = "$RF/Fabrics/PCIe/Zones/H1" ] || t_fail "endpoint zone link"
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body hostport1_H1)" -H "If-Match: $e1"
expect 412 "stale If-Match"
[ "$(jget 'd["error"]["@Message.ExtendedInfo"][0]["MessageId"]')" = Base.1.16.PreconditionFailed ] ||
	t_fail "412 error body"
[ "$(owner drawer1_slot1)" = H1 ] || t_fail "a 412 changed the zone"
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body hostport1_H1 drawer1_slot1 drawer1_slot2)" -H 'If-Match: W/"0000000000000000", *'
expect 200 "If-Match: * matches"

# One zone at a time: H3 (cabled to drawer 1 too) cannot take H1's device.
req PATCH "$RF/Fabrics/PCIe/Zones/H3" "$(zone_body hostport3_H3 drawer1_slot1)"
expect 409 "device in another zone"
[ "$(jget 'd["error"]["@Message.ExtendedInfo"][0]["MessageId"]')" = Base.1.16.ResourceInUse ] ||
	t_fail "409 MessageId"
jget 'd["error"]["message"]' | grep -q 'zone H1' || t_fail "409 message names the owner"
# Standard mode: H1 owns slots 1-2 (first half), so H3 gets no slot of that half.
req PATCH "$RF/Fabrics/PCIe/Zones/H3" "$(zone_body hostport3_H3 drawer1_slot3)"
expect 409 "standard mode: second port in the first port's half"
[ "$(jget 'd["error"]["code"]')" = Falcon.1.0.ModeLimit ] || t_fail "mode limit code"
# H4 is cabled to drawer 2 only.
req PATCH "$RF/Fabrics/PCIe/Zones/H4" "$(zone_body drawer1_slot3)"
expect 409 "port not cabled to the drawer"
# A failing PATCH changes nothing (all or nothing).
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body hostport1_H1 drawer1_slot3 drawer2_slot1)"
expect 409 "H1 is not cabled to drawer 2"
[ "$(owner drawer1_slot3)" = None ] || t_fail "partial PATCH applied"
[ "$(owner drawer1_slot1)" = H1 ] || t_fail "partial PATCH detached"

# Detach (PATCH without the device); detaching again is a no-op.
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body hostport1_H1)"
expect 200 "detach all from H1"
[ "$(owner drawer1_slot1)" = None ] || t_fail "owner after detach"
req PATCH "$RF/Fabrics/PCIe/Zones/H1" '{"Links":{"Endpoints":[]}}'
expect 200 "detach again (host port endpoint stays)"
[ "$(jget 'd["Links"]["Endpoints"][0]["@odata.id"]')" = "$RF/Fabrics/PCIe/Endpoints/hostport1_H1" ] ||
	t_fail "host port left its zone"
req PATCH "$RF/Fabrics/PCIe/Zones/H3" "$(zone_body hostport3_H3 drawer1_slot3)"
expect 200 "H3 takes slot 3 once the drawer is free"
sim_stop

# Mode limits on a fully populated drawer: standard with two ports, and
# advanced with three.
gpu() { echo "{\"slot\":$1,\"type\":\"GPU\",\"vendor_id\":\"10de\",\"device_id\":\"1db6\",\"model\":\"Tesla V100-PCIE-32GB\"}"; }
slots="$(gpu 1),$(gpu 2),$(gpu 3),$(gpu 4),$(gpu 5),$(gpu 6),$(gpu 7),$(gpu 8)"
ports='[{"id":"H1","host":"a","adapter":"0000:3b:00.0","bus_range":["0x3c","0x44"]},
	{"id":"H2","host":"b","adapter":"0000:3b:00.0","bus_range":["0x3c","0x44"]},
	{"id":"H3","host":"c","adapter":"0000:3b:00.0","bus_range":["0x3c","0x44"]}]'
cat >"$t_tmp/std.json" <<JSON
{"chassis":"f2","mode":"standard","host_ports":$ports,
 "drawers":[{"id":1,"host_ports":["H1","H2"],"slots":[$slots]}]}
JSON
sim_start --config "$t_tmp/std.json"
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body drawer1_slot1 drawer1_slot2 drawer1_slot3 drawer1_slot4 drawer1_slot5)"
expect 200 "standard: one port takes five slots"
req PATCH "$RF/Fabrics/PCIe/Zones/H2" "$(zone_body drawer1_slot8)"
expect 409 "standard: no second port while the first spans both halves"
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body drawer1_slot1 drawer1_slot2 drawer1_slot3 drawer1_slot4)"
expect 200 "standard: first port back to slots 1-4"
req PATCH "$RF/Fabrics/PCIe/Zones/H2" "$(zone_body drawer1_slot5 drawer1_slot6 drawer1_slot7 drawer1_slot8)"
expect 200 "standard: second port takes slots 5-8"
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body drawer1_slot1 drawer1_slot2 drawer1_slot3 drawer1_slot4 drawer1_slot5)"
expect 409 "standard: 4 slots each when split"
sim_stop

sed 's/"standard"/"advanced"/; s/"H1","H2"\]/"H1","H2","H3"]/' "$t_tmp/std.json" >"$t_tmp/adv.json"
sim_start --config "$t_tmp/adv.json"
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body drawer1_slot1 drawer1_slot6)"
expect 200 "advanced: any split"
req PATCH "$RF/Fabrics/PCIe/Zones/H2" "$(zone_body drawer1_slot2 drawer1_slot5)"
expect 200 "advanced: second port"
req PATCH "$RF/Fabrics/PCIe/Zones/H3" "$(zone_body drawer1_slot3 drawer1_slot4 drawer1_slot7 drawer1_slot8)"
expect 200 "advanced: three ports share the drawer"
req PATCH "$RF/Fabrics/PCIe/Zones/H3" "$(zone_body drawer1_slot1)"
expect 409 "advanced: still one zone per device"
sim_stop

# A fourth port on one drawer is a configuration error in advanced mode,
# a third in standard mode.
sed 's/"H1","H2","H3"\]/"H1","H2","H3","H4"]/' "$t_tmp/adv.json" >"$t_tmp/adv4.json"
if "$SIM" --dump-config --config "$t_tmp/adv4.json" >/dev/null 2>"$t_tmp/err"; then
	t_fail "four ports on a drawer accepted"
fi
sed 's/"H1","H2"\]/"H1","H2","H3"]/' "$t_tmp/std.json" >"$t_tmp/std3.json"
"$SIM" --dump-config --config "$t_tmp/std3.json" >/dev/null 2>"$t_tmp/err" &&
	t_fail "three ports on a standard drawer accepted"
grep -q 'drawer 1: host_ports: standard mode cables at most 2' "$t_tmp/err" || t_fail "$(cat "$t_tmp/err")"
t_ok "mode limits in the configuration"

# Listening beyond loopback needs --allow-remote.
"$SIM" --listen 0.0.0.0:0 --sysfs-root "$t_tmp/x" >/dev/null 2>"$t_tmp/err" &&
	t_fail "non-loopback listen accepted"
grep -q 'not a loopback address' "$t_tmp/err" || t_fail "$(cat "$t_tmp/err")"
t_ok "non-loopback listen refused"

# The shipped example is the built-in default, and parses back to itself.
"$SIM" --dump-config >"$t_tmp/default.json"
"$SIM" --dump-config --config "$top_srcdir/examples/falcon-sim.json" >"$t_tmp/example.json" ||
	t_fail "examples/falcon-sim.json does not load"
cmp -s "$t_tmp/default.json" "$t_tmp/example.json" ||
	t_fail "examples/falcon-sim.json differs from the built-in default"
t_ok "examples/falcon-sim.json is the default configuration"

# --allow-remote: Redfish on a non-loopback address, the admin API still
# loopback-only (403 to others).  Skipped when the host has no such address.
addr=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -E '^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$' | grep -v '^127\.' | head -n 1 || true)
if [ -n "$addr" ]; then
	rm -f "$t_tmp/port2"
	"$SIM" --listen "$addr:0" --allow-remote --sysfs-root "$t_tmp/remote" \
		--port-file "$t_tmp/port2" >"$t_tmp/remote.log" 2>&1 &
	rpid=$!
	t_on_exit "kill $rpid 2>/dev/null || true"
	_n=0
	while [ ! -s "$t_tmp/port2" ]; do
		kill -0 "$rpid" 2>/dev/null || t_fail "falcon-sim on $addr exited: $(cat "$t_tmp/remote.log")"
		_n=$((_n + 1)); [ $_n -lt 600 ] || t_fail "no port file"; sleep 0.1
	done
	rbase=http://$addr:$(cat "$t_tmp/port2")
	[ "$(curl -s -m 20 -o /dev/null -w '%{http_code}' "$rbase/redfish/v1/")" = 200 ] || t_fail "remote Redfish"
	[ "$(curl -s -m 20 -o /dev/null -w '%{http_code}' "$rbase/admin/state")" = 403 ] || t_fail "admin API answered a non-loopback client"
	kill -TERM "$rpid"
	wait "$rpid" || t_fail "falcon-sim on $addr did not exit cleanly"
	t_ok "--allow-remote: Redfish served, admin API refused (403) off loopback"
fi
