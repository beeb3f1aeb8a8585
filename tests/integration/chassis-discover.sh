#!/bin/sh
# chassis-discover.sh - without --backend, `falconctl inventory --url` reads
# the service root and picks the backend, and says which: DMTF's
# CompositionService-only mockup (public-composability: no Fabrics) gets
# redfish-composition, the CXL mockup (a fabric with Zones) and falcon-sim
# get redfish-fabric; a service root with neither fails naming why.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"

t_need_shared fixtures/redfish/public-cxl-multiswitch
t_need_shared fixtures/redfish/public-composability
mock=$FALCON_SHARED/fixtures/redfish
ctl=$top_builddir/falconctl/falconctl
srv=$top_builddir/tests/fixture-server
[ -x "$srv" ] || t_fail "$srv not built"


# The CompositionService-only mockup: before, "GET .../Fabrics: HTTP 404".
t_fixture_serve "$mock/public-composability"
url=http://127.0.0.1:$port
"$ctl" inventory --url "$url" --json >"$t_tmp/comp.json" 2>"$t_tmp/err" ||
	t_fail "inventory of a CompositionService-only service: $(cat "$t_tmp/err")"
grep -q 'backend redfish-composition (the service root has a CompositionService and no Fabrics)' \
	"$t_tmp/err" || t_fail "no word of the choice: $(cat "$t_tmp/err")"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["chassis"][0]
assert d["backend"] == "redfish-composition" and len(d["devices"]) == 12, d' "$t_tmp/comp.json" ||
	t_fail "composition inventory"
t_ok "public-composability: redfish-composition chosen, 12 blocks"
t_fixture_stop

t_fixture_serve "$mock/public-cxl-multiswitch"
url=http://127.0.0.1:$port
"$ctl" inventory --url "$url" --json >"$t_tmp/cxl.json" 2>"$t_tmp/err" ||
	t_fail "inventory of the CXL mockup: $(cat "$t_tmp/err")"
grep -q 'backend redfish-fabric (fabric /redfish/v1/Fabrics/CXL has Zones)' "$t_tmp/err" ||
	t_fail "no word of the choice: $(cat "$t_tmp/err")"
t_ok "public-cxl-multiswitch: redfish-fabric chosen"
t_fixture_stop

# A service root with neither: a mockup tree of only a root.
mkdir -p "$t_tmp/bare"
printf '{"@odata.id":"/redfish/v1","@odata.type":"#ServiceRoot.v1_16_0.ServiceRoot","Id":"RootService","Name":"Bare","Systems":{"@odata.id":"/redfish/v1/Systems"}}\n' \
	>"$t_tmp/bare/index.json"
t_fixture_serve "$t_tmp/bare"
url=http://127.0.0.1:$port
rc=0
"$ctl" inventory --url "$url" >/dev/null 2>"$t_tmp/err" || rc=$?
[ $rc -eq 1 ] || t_fail "no backend fits: exit $rc, expected 1 ($(cat "$t_tmp/err"))"
grep -q 'neither a fabric with Zones nor a CompositionService' "$t_tmp/err" ||
	t_fail "message: $(cat "$t_tmp/err")"
t_ok "neither: exit 1 ($(cat "$t_tmp/err"))"
t_fixture_stop

# falcon-sim offers both: the fabric wins.
. "$top_srcdir/tests/integration/sim-lib.sh"
sim_start
"$ctl" inventory --url "$SIM_BASE" >"$t_tmp/sim.txt" 2>"$t_tmp/err" || t_fail "sim inventory: $(cat "$t_tmp/err")"
grep -q 'backend redfish-fabric (fabric /redfish/v1/Fabrics/PCIe has Zones)' "$t_tmp/err" ||
	t_fail "sim: $(cat "$t_tmp/err")"
t_ok "falcon-sim: redfish-fabric chosen"
