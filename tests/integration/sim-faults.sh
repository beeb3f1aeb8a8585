#!/bin/sh
# sim-faults.sh - falcon-sim's fault injection, from the configuration and
# at run time over the loopback admin API: latency, timeouts (accepted,
# never answered), 5xx on the next N requests or on a matching
# method/path, dropped connections mid-response, a degraded link and a
# detach the chassis refuses.  (A device that never appears after rescan
# is in sim-host.sh.)  No timing is asserted: a delayed or hung request is
# one that does not finish within curl's -m while the server holds it.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/sim-lib.sh"

# Faults from the configuration file.
cat >"$t_tmp/cfg.json" <<'JSON'
{"host_ports":[{"id":"H1","host":"a","adapter":"0000:3b:00.0","bus_range":["0x3c","0x44"]}],
 "drawers":[{"id":1,"host_ports":["H1"],"slots":[
   {"slot":1,"type":"GPU","vendor_id":"10de","device_id":"1db6","model":"Tesla V100-PCIE-32GB"},
   {"slot":2,"type":"GPU","vendor_id":"10de","device_id":"1db6","model":"Tesla V100-PCIE-32GB"}]}],
 "faults":{"rules":[{"action":"error","method":"GET","path":"/redfish/v1/Systems","count":1,"status":502}]}}
JSON
sim_start --config "$t_tmp/cfg.json"
req GET /admin/faults
expect 200 "read faults"
[ "$(jget 'd["rules"][0]["status"]')" = 502 ] || t_fail "config fault not loaded"
req GET "$RF/Systems"
expect 502 "configured 5xx"
req GET "$RF/Systems"
expect 200 "configured 5xx spent after count=1"

# 5xx on the next N requests.
req POST /admin/faults '{"rules":[{"action":"error","count":2,"status":503}]}'
expect 200 "set faults"
req GET "$RF/"
expect 503 "next request 1"
[ "$(jget 'd["error"]["@Message.ExtendedInfo"][0]["MessageId"]')" = Base.1.16.ServiceTemporarilyUnavailable ] ||
	t_fail "503 body"
req GET "$RF/Chassis"
expect 503 "next request 2"
req GET "$RF/Chassis"
expect 200 "third request answered"
req GET /admin/faults
[ "$(jget 'd["rules"][0]["count"]')" = 0 ] || t_fail "count not spent"

# 5xx on a matching method and path only.
req POST /admin/faults '{"rules":[{"action":"error","method":"PATCH","path":"/redfish/v1/Fabrics/PCIe/Zones/*","status":500}]}'
expect 200 "set PATCH fault"
req GET "$RF/Fabrics/PCIe/Zones/H1"
expect 200 "GET unaffected"
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body drawer1_slot1)"
expect 500 "PATCH hit"
[ "$(owner drawer1_slot1)" = None ] || t_fail "a failed PATCH attached"
req DELETE /admin/faults
expect 204 "clear faults"

# Timeout: accepted, never answered (curl gives up: exit 28).
req POST /admin/faults '{"rules":[{"action":"timeout","path":"/redfish/v1/Chassis","count":1}]}'
rc=0
curl -s -m 1 -o /dev/null "$SIM_BASE$RF/Chassis" || rc=$?
[ "$rc" = 28 ] || t_fail "timeout fault: curl exit $rc, expected 28"
t_ok "timeout: accepted and never answered"
req GET "$RF/Chassis"
expect 200 "answered after the timeout rule is spent"
# A request hung by a timeout rule is released (closed, no answer) when the
# faults are cleared.
req POST /admin/faults '{"rules":[{"action":"timeout","path":"/redfish/v1/Systems"}]}'
( r=0; curl -s -m 60 -o /dev/null "$SIM_BASE$RF/Systems" || r=$?; echo $r >"$t_tmp/hung.rc" ) &
hung=$!
_n=0
until grep -q 'Systems accepted and never answered' "$t_tmp/sim.log"; do
	_n=$((_n + 1)); [ $_n -lt 400 ] || t_fail "hung request never arrived"; sleep 0.05
done
req DELETE /admin/faults
expect 204 "clear faults"
wait "$hung" || true
[ "$(cat "$t_tmp/hung.rc")" = 52 ] || t_fail "released request: curl exit $(cat "$t_tmp/hung.rc"), expected 52 (empty reply)"
t_ok "hung request released by DELETE /admin/faults"

# Latency: a 3 s delay does not finish within curl's 0.5 s; others are not delayed.
req POST /admin/faults '{"latency_ms":3000}'
rc=0
curl -s -m 0.5 -o /dev/null "$SIM_BASE$RF/" || rc=$?
[ "$rc" = 28 ] || t_fail "latency: curl exit $rc, expected 28"
req GET /admin/state
expect 200 "admin requests are not delayed"
req POST /admin/faults '{"rules":[{"action":"latency","path":"/redfish/v1/Systems","ms":3000}]}'
req GET "$RF/Chassis"
expect 200 "per-path latency leaves other paths alone"
rc=0
curl -s -m 0.5 -o /dev/null "$SIM_BASE$RF/Systems" || rc=$?
[ "$rc" = 28 ] || t_fail "per-path latency: curl exit $rc, expected 28"
t_ok "latency"

# A latency drawn per request from ms..ms_max: of 12 requests delayed by
# 0..2000 ms, some finish within curl's 1 s and some do not (all alike has
# odds of 2 in 4096).
req POST /admin/faults '{"rules":[{"action":"latency","path":"/redfish/v1/Systems","ms":0,"ms_max":2000}]}'
expect 200 "latency rule with ms_max"
req GET /admin/faults
grep -q '"ms_max": *2000' "$t_tmp/body" || t_fail "ms_max not in GET /admin/faults: $(cat "$t_tmp/body")"
fast=0 slow=0
for _i in 1 2 3 4 5 6 7 8 9 10 11 12; do
	rc=0
	curl -s -m 1 -o /dev/null "$SIM_BASE$RF/Systems" || rc=$?
	case $rc in 0) fast=$((fast + 1)) ;; 28) slow=$((slow + 1)) ;; *) t_fail "drawn latency: curl exit $rc" ;; esac
done
[ $fast -gt 0 ] && [ $slow -gt 0 ] || t_fail "drawn latency: $fast of 12 within 1 s, $slow not"
req POST /admin/faults '{"rules":[{"action":"latency","ms":500,"ms_max":100}]}'
expect 400 "ms_max below ms refused"
grep -q 'rules\[0\].ms_max: expected an integer in \[500, 3600000\]' "$t_tmp/body" ||
	t_fail "ms_max error: $(cat "$t_tmp/body")"
req POST /admin/faults '{"rules":[{"action":"error","ms_max":100}]}'
expect 400 "ms_max on an error rule refused"
t_ok "latency drawn per request: $fast of 12 within 1 s, $slow later"

# Dropped connection mid-response: curl sees a short body.
req POST /admin/faults '{"rules":[{"action":"drop","path":"/redfish/v1/Fabrics/PCIe/Endpoints","count":1}]}'
rc=0
curl -s -m 10 -o "$t_tmp/partial" "$SIM_BASE$RF/Fabrics/PCIe/Endpoints" || rc=$?
[ "$rc" = 18 ] || t_fail "drop: curl exit $rc, expected 18 (partial file)"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$t_tmp/partial" 2>/dev/null &&
	t_fail "dropped body is complete JSON"
t_ok "dropped connection"
req GET "$RF/Fabrics/PCIe/Endpoints"
expect 200 "next request whole"

# A degraded link shows in the Redfish view (the host side in sim-host.sh).
req POST /admin/faults '{"degraded_links":{"drawer1_slot2":{"speed_gts":8,"width":8}}}'
expect 200 "set degraded link"
req GET "$RF/Chassis/falcon1/PCIeDevices/drawer1_slot2"
[ "$(jget 'd["PCIeInterface"]["LanesInUse"]')" = 8 ] || t_fail "LanesInUse"
[ "$(jget 'd["PCIeInterface"]["PCIeType"]')" = Gen3 ] || t_fail "PCIeType"

# A detach the chassis refuses: 409, the device stays attached.
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body drawer1_slot1 drawer1_slot2)"
expect 200 "attach two"
req POST /admin/faults '{"refuse_detach":["drawer1_slot2"]}'
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body drawer1_slot1)"
expect 409 "detach refused (zone)"
[ "$(jget 'd["error"]["code"]')" = Falcon.1.0.DetachRefused ] || t_fail "DetachRefused code"
[ "$(owner drawer1_slot2)" = H1 ] || t_fail "refused detach detached"
req POST "$RF/Systems/H1/Actions/ComputerSystem.RemoveResourceBlock" "$(block_body drawer1_slot2)"
expect 409 "detach refused (composition)"
req DELETE /admin/faults
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body)"
expect 200 "detach once the fault is cleared"

# Bad fault descriptions are 400s naming the field.
req POST /admin/faults '{"rules":[{"action":"error","status":200}]}'
expect 400 "bad status"
jget 'd["error"]["message"]' | grep -q 'rules\[0\].status' || t_fail "field not named"
req POST /admin/faults '{"rules":'
expect 400 "truncated JSON"
req PUT /admin/state
expect 405 "PUT on state"
