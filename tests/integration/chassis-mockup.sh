#!/bin/sh
# chassis-mockup.sh - `falconctl inventory --url` against DMTF's own Redfish
# mockups (public-cxl-multiswitch, public-composability,
# public-compose-action) served over HTTP on loopback by
# tests/fixture-server: the client parses them as they are.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"

t_need_shared fixtures/redfish/public-cxl-multiswitch
t_need_shared fixtures/redfish/public-composability
t_need_shared fixtures/redfish/public-compose-action
mock=$FALCON_SHARED/fixtures/redfish
ctl=$top_builddir/falconctl/falconctl
srv=$top_builddir/tests/fixture-server
[ -x "$srv" ] || t_fail "$srv not built"


# jcheck FILE PYTHON-EXPR: assert the expression over d (the parsed JSON) and
# devs (id -> device of the first chassis)
jcheck() {
	python3 - "$1" "$2" <<'EOF' || t_fail "JSON check failed: $2"
import json, sys
d = json.load(open(sys.argv[1]))
devs = {x["id"]: x for x in d["chassis"][0]["devices"]}
ok = eval(sys.argv[2])
if not ok:
    print("false:", sys.argv[2], file=sys.stderr)
    print(json.dumps(d, indent=1)[:4000], file=sys.stderr)
sys.exit(0 if ok else 1)
EOF
}

# ---- public-cxl-multiswitch: Fabrics/CXL, zones, endpoints ----
t_fixture_serve "$mock/public-cxl-multiswitch"
url=http://127.0.0.1:$port
"$ctl" inventory --url "$url" --backend redfish-fabric --json >"$t_tmp/cxl.json" ||
	t_fail "inventory of public-cxl-multiswitch failed"
jcheck "$t_tmp/cxl.json" 'd["chassis"][0]["backend"] == "redfish-fabric"'
jcheck "$t_tmp/cxl.json" 'sorted(devs) == ["T1", "T2", "T3", "T4", "T5"]'
jcheck "$t_tmp/cxl.json" 'devs["T2"]["type"] == "GPU" and devs["T2"]["owner"] == "2"'
jcheck "$t_tmp/cxl.json" 'devs["T2"]["odata_id"] == "/redfish/v1/Fabrics/CXL/Endpoints/T2"'
jcheck "$t_tmp/cxl.json" 'devs["T2"]["vendor_id"] == "abcd" and devs["T2"]["device_id"] == "abcd"'
jcheck "$t_tmp/cxl.json" 'devs["T2"]["chassis"] == "PooledCXLType2" and devs["T2"]["health"] == "OK"'
jcheck "$t_tmp/cxl.json" 'devs["T1"]["type"] == "other" and devs["T1"]["owner"] == "1"'
jcheck "$t_tmp/cxl.json" 'devs["T3"]["owner"] is None and devs["T5"]["owner"] == "3"'
t_ok "public-cxl-multiswitch: 5 devices, T2 a GPU in zone 2"

"$ctl" inventory --url "$url/redfish/v1/" --fabric /redfish/v1/Fabrics/CXL >"$t_tmp/cxl.txt" ||
	t_fail "table inventory with --fabric failed"
grep -E '^PooledCXLType2 +T2 +GPU +- +- +abcd:abcd +2 +Enabled +OK .*/redfish/v1/Fabrics/CXL/Endpoints/T2$' \
	"$t_tmp/cxl.txt" >/dev/null || { cat "$t_tmp/cxl.txt"; t_fail "table row of T2"; }
[ "$(wc -l <"$t_tmp/cxl.txt")" -eq 6 ] || t_fail "expected a header and 5 rows"
t_ok "table with an explicit fabric path"

# a fabric that does not exist: NOTFOUND, exit 1, the URL in the message
rc=0
"$ctl" inventory --url "$url" --fabric /redfish/v1/Fabrics/PCIe \
	>/dev/null 2>"$t_tmp/err" || rc=$?
[ $rc -eq 1 ] || t_fail "missing fabric: exit $rc, expected 1"
grep -q 'Fabrics/PCIe/Zones' "$t_tmp/err" || t_fail "missing fabric: $(cat "$t_tmp/err")"
t_ok "missing fabric: exit 1 ($(cat "$t_tmp/err"))"
t_fixture_stop

# ---- public-composability: ResourceBlocks incl. the GPU block OffloadBlock9 ----
t_fixture_serve "$mock/public-composability"
url=http://127.0.0.1:$port
"$ctl" inventory --url "$url" --backend redfish-composition --json >"$t_tmp/comp.json" ||
	t_fail "inventory of public-composability failed"
jcheck "$t_tmp/comp.json" 'len(devs) == 12'
jcheck "$t_tmp/comp.json" 'devs["OffloadBlock9"]["type"] == "GPU" and devs["OffloadBlock9"]["owner"] is None'
jcheck "$t_tmp/comp.json" 'devs["OffloadBlock9"]["composition_state"] == "Unused"'
jcheck "$t_tmp/comp.json" 'devs["OffloadBlock9"]["odata_id"] == "/redfish/v1/CompositionService/ResourceBlocks/OffloadBlock9"'
jcheck "$t_tmp/comp.json" 'devs["OffloadBlock9"]["model"] == "Contoso Workstation VID2000"'
jcheck "$t_tmp/comp.json" 'devs["DriveBlock3"]["type"] == "NVMe" and devs["DriveBlock3"]["owner"] == "ComposedSystem,ComposedSystem2"'
jcheck "$t_tmp/comp.json" 'devs["NetworkBlock8"]["type"] == "NIC" and devs["NetworkBlock8"]["owner"] == "ComposedSystem2"'
jcheck "$t_tmp/comp.json" 'devs["ComputeBlock1"]["type"] == "other"'
t_ok "public-composability: OffloadBlock9 is a free GPU"

# the fabric backend on a service without Fabrics: exit 1
rc=0
"$ctl" inventory --url "$url" --backend redfish-fabric >/dev/null 2>"$t_tmp/err" || rc=$?
[ $rc -eq 1 ] || t_fail "fabric backend on a composition service: exit $rc"
t_ok "fabric backend without Fabrics: exit 1"
t_fixture_stop

# ---- public-compose-action: NVMe appliances, a collection listing a block twice ----
t_fixture_serve "$mock/public-compose-action"
url=http://127.0.0.1:$port
"$ctl" inventory --url "$url" --backend redfish-composition --json >"$t_tmp/act.json" ||
	t_fail "inventory of public-compose-action failed"
jcheck "$t_tmp/act.json" 'len(d["chassis"][0]["devices"]) == len(devs) == 13'
jcheck "$t_tmp/act.json" 'devs["NVMe-TargetsAppliance-1"]["type"] == "NVMe"'
jcheck "$t_tmp/act.json" 'devs["NVMe-TargetsAppliance-1"]["owner"] == "BladeServer-1"'
jcheck "$t_tmp/act.json" 'devs["NVMe-TargetsAppliance-1"]["serial"] == "67N0A0FHFL5E"'
jcheck "$t_tmp/act.json" 'devs["NVMe-TargetsAppliance-2"]["owner"] is None'
t_ok "public-compose-action: 13 blocks, NVMe-TargetsAppliance-1 composed into BladeServer-1"

# credentials that others can read: refused before any request (exit 4)
printf 'admin:secret\n' >"$t_tmp/cred"
chmod 644 "$t_tmp/cred"
rc=0
"$ctl" inventory --url "$url" --credentials "$t_tmp/cred" >/dev/null 2>"$t_tmp/err" || rc=$?
[ $rc -eq 4 ] || t_fail "credentials mode 0644: exit $rc, expected 4"
grep -q "mode 0644" "$t_tmp/err" || t_fail "credentials message: $(cat "$t_tmp/err")"
t_ok "credentials readable by others: exit 4"
t_fixture_stop

# nobody listening: exit 3 (unreachable)
port=$(t_free_port)
rc=0
"$ctl" inventory --url "http://127.0.0.1:$port" >/dev/null 2>"$t_tmp/err" || rc=$?
[ $rc -eq 3 ] || t_fail "closed port: exit $rc, expected 3 ($(cat "$t_tmp/err"))"
t_ok "closed port: exit 3"

# usage errors: exit 2
rc=0
"$ctl" inventory --url "$url" --chassis x >/dev/null 2>&1 || rc=$?
[ $rc -eq 2 ] || t_fail "--url with --chassis: exit $rc"
rc=0
"$ctl" inventory --url "$url" --backend zones >/dev/null 2>&1 || rc=$?
[ $rc -eq 2 ] || t_fail "bad --backend: exit $rc"
t_ok "usage errors: exit 2"
