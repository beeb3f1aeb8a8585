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
ctl=$top_builddir/composer/falconctl
srv=$top_builddir/tests/fixture-server
[ -x "$srv" ] || t_fail "$srv not built"

serve() {
	rm -f "$t_tmp/port"
	"$srv" --dir "$1" --port-file "$t_tmp/port" >"$t_tmp/srv.out" 2>"$t_tmp/srv.err" &
	srv_pid=$!
	t_on_exit "kill $srv_pid 2>/dev/null || true"
	i=0
	while [ ! -s "$t_tmp/port" ]; do
		i=$((i + 1))
		[ $i -le 100 ] || t_fail "fixture-server did not start: $(cat "$t_tmp/srv.err")"
		sleep 0.1
	done
	url=http://127.0.0.1:$(cat "$t_tmp/port")
}
stop() { kill "$srv_pid"; wait "$srv_pid" || true; }

# The CompositionService-only mockup: before, "GET .../Fabrics: HTTP 404".
serve "$mock/public-composability"
"$ctl" inventory --url "$url" --json >"$t_tmp/comp.json" 2>"$t_tmp/err" ||
	t_fail "inventory of a CompositionService-only service: $(cat "$t_tmp/err")"
grep -q 'backend redfish-composition (the service root has a CompositionService and no Fabrics)' \
	"$t_tmp/err" || t_fail "no word of the choice: $(cat "$t_tmp/err")"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["chassis"][0]
assert d["backend"] == "redfish-composition" and len(d["devices"]) == 12, d' "$t_tmp/comp.json" ||
	t_fail "composition inventory"
t_ok "public-composability: redfish-composition chosen, 12 blocks"
stop

serve "$mock/public-cxl-multiswitch"
"$ctl" inventory --url "$url" --json >"$t_tmp/cxl.json" 2>"$t_tmp/err" ||
	t_fail "inventory of the CXL mockup: $(cat "$t_tmp/err")"
grep -q 'backend redfish-fabric (fabric /redfish/v1/Fabrics/CXL has Zones)' "$t_tmp/err" ||
	t_fail "no word of the choice: $(cat "$t_tmp/err")"
t_ok "public-cxl-multiswitch: redfish-fabric chosen"
stop

# A service root with neither: a mockup tree of only a root.
mkdir -p "$t_tmp/bare"
printf '{"@odata.id":"/redfish/v1","@odata.type":"#ServiceRoot.v1_16_0.ServiceRoot","Id":"RootService","Name":"Bare","Systems":{"@odata.id":"/redfish/v1/Systems"}}\n' \
	>"$t_tmp/bare/index.json"
serve "$t_tmp/bare"
rc=0
"$ctl" inventory --url "$url" >/dev/null 2>"$t_tmp/err" || rc=$?
[ $rc -eq 1 ] || t_fail "no backend fits: exit $rc, expected 1 ($(cat "$t_tmp/err"))"
grep -q 'neither a fabric with Zones nor a CompositionService' "$t_tmp/err" ||
	t_fail "message: $(cat "$t_tmp/err")"
t_ok "neither: exit 1 ($(cat "$t_tmp/err"))"
stop

# falcon-sim offers both: the fabric wins.
. "$top_srcdir/tests/integration/sim-lib.sh"
sim_start
"$ctl" inventory --url "$SIM_BASE" >"$t_tmp/sim.txt" 2>"$t_tmp/err" || t_fail "sim inventory: $(cat "$t_tmp/err")"
grep -q 'backend redfish-fabric (fabric /redfish/v1/Fabrics/PCIe has Zones)' "$t_tmp/err" ||
	t_fail "sim: $(cat "$t_tmp/err")"
t_ok "falcon-sim: redfish-fabric chosen"
