#!/bin/sh
# falcond-desc.sh - a restarted falcond does not walk the whole chassis
# again (issue #11): the device descriptions it read (falcon.conf
# InventoryRefresh) are kept in StateDir/chassis-<name>.json, so its
# start-up reconcile and its composes read only the zones and the Endpoints
# collection.  Before, a restart read every Endpoint and the PCIeDevice,
# PCIeFunctions and Processor/Drive behind it (~50 GETs on falcon-sim's
# testbed): with a management controller answering in 0-5 s that was 4 min
# of 503s.  A file that is not what falcond wrote is named in the log and
# ignored; `falconctl reconcile` and the first read after the chassis
# failed to answer (paused here) read everything again.  A reconcile that
# closes a lease does not detach its devices a second time as orphans.  The
# GETs are counted by a falcon-sim rule whose count each GET takes one from
# (no timings).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/falcond-lib.sh"
fd_need
FD_CHASSIS_TIMEOUT=3 # a paused chassis (section 5) fails in 3 s, not 10
fd_setup "ReconcileInterval=0"
DESC=$t_tmp/state/chassis-c1.json
count_on() { fd_count_on; }
gets() { fd_counted GET; }
patches() { fd_counted PATCH; }
ndesc() { python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["descriptions"]))' "$DESC"; }
restart() {
	fd_stop_falcond -KILL
	count_on
	fd_start_falcond
}

# ---- 1. the first start reads everything and keeps it ---------------------
[ -s "$DESC" ] || t_fail "$DESC not written: $(tail -n 3 "$t_tmp/falcond.log")"
[ "$(ndesc)" -eq 13 ] || t_fail "$DESC: $(ndesc) descriptions, expected the 9 devices and 4 host ports"
count_on
"$FALCONCTL" reconcile >/dev/null || t_fail "falconctl reconcile failed"
full=$(gets)
[ "$full" -ge 40 ] || t_fail "falconctl reconcile read $full resources, expected every one (>= 40)"
t_ok "a full read: $full GETs, $(ndesc) descriptions kept"

# ---- 2. a restart reads the zones, not every device -----------------------
restart
n=$(gets)
[ "$n" -le 12 ] || t_fail "the restarted falcond's start-up reconcile read $n resources, expected <= 12 (zones and collections; a full read is $full)"
grep -q 'chassis c1: 13 device description(s) from' "$t_tmp/falcond.log" ||
	t_fail "the descriptions were not taken from $DESC: $(tail -n 3 "$t_tmp/falcond.log")"
t_ok "restart: $n GETs instead of $full"
# the reconcile a prolog asks for when a device is missing from its slot
# ({"reread": false}, falcon-prolog(8)) reads as much, not everything
count_on
[ "$(fd_call POST /v1/reconcile '{"reread":false}')" = 200 ] || t_fail "reread false: $(cat "$t_tmp/out")"
n=$(gets)
[ "$n" -le 12 ] || t_fail "a {\"reread\": false} reconcile read $n resources, expected <= 12 (a full read is $full)"
t_ok "a prolog's reconcile: $n GETs"

# ---- 2b. one PATCH per zone: a compose and its release ---------------------
# node1 is cabled to H1 (drawer 1) and H2 (drawer 2): 6 GPUs are 4 of
# drawer 1 and 2 of drawer 2, one zone PATCH each (was one per device: 6),
# and as many to take them back.  With a chassis answering in seconds per
# request that is the difference between 12 s and 36 s of its time.
count_on
"$FALCONCTL" attach --job 5 --host node1 --gpus 6 --place any --json > "$t_tmp/a5" ||
	t_fail "compose of 6 GPUs failed: $(cat "$t_tmp/a5")"
n=$(patches)
ports=$(python3 -c 'import json,sys; print(len({d["port"] for d in json.load(open(sys.argv[1]))["devices"]}))' "$t_tmp/a5")
[ "$ports" = 2 ] || t_fail "the 6 GPUs expected on 2 ports (H1, H2): $(cat "$t_tmp/a5")"
[ "$n" = 2 ] || t_fail "a compose of 6 GPUs on 2 zones sent $n PATCHes, expected 2 (one per zone)"
fd_invariants || t_fail "after the compose of 6"
count_on
"$FALCONCTL" detach --job 5 > "$t_tmp/d5" || t_fail "release of job 5: $(cat "$t_tmp/d5")"
n2=$(patches)
[ "$n2" = 2 ] || t_fail "the release of 6 GPUs on 2 zones sent $n2 PATCHes, expected 2"
fd_invariants || t_fail "after the release of 6"
t_ok "6 GPUs on 2 zones: $n PATCHes to compose, $n2 to release"
# the release's PATCH of H1 answered 503, on a chassis answering in 0.5 s:
# its 4 devices are taken back one by one, none quarantined (without the
# fallback all 4 would be)
"$FALCONCTL" attach --job 6 --host node1 --gpus 6 --place any >/dev/null || t_fail "compose of job 6"
fd_sim c1 POST /admin/faults '{"rules":[{"action":"error","status":503,"method":"PATCH","path":"/redfish/v1/Fabrics/PCIe/Zones/H1","count":1},{"action":"latency","ms":500,"path":"/redfish/v1/*"}]}' >/dev/null
"$FALCONCTL" detach --job 6 > "$t_tmp/d6" || t_fail "release of job 6: $(cat "$t_tmp/d6")"
grep -q "detach of 4 devices from H1 during released: .*; one by one" "$t_tmp/falcond.log" ||
	t_fail "the failed release PATCH is not logged: $(tail -n 3 "$t_tmp/falcond.log")"
fd_sim c1 DELETE /admin/faults >/dev/null
[ "$(fd_call GET /v1/status '')" = 200 ] && [ "$(fd_json 'len(j["quarantine"])')" = 0 ] ||
	t_fail "devices quarantined after a failed release PATCH: $(cat "$t_tmp/out")"
fd_invariants || t_fail "after the failed release PATCH"
t_ok "a release PATCH answered 503: devices taken back one by one, none quarantined"
# (the 503 made the next read a full one, as after any failure: done here,
# so that section 3 counts a compose's reads only)
"$FALCONCTL" reconcile >/dev/null || t_fail "falconctl reconcile"

# ---- 3. a device given behind falcond's back is never leased ---------------
# drawer1_slot4 attached to H3 (node2) behind falcond's back: a compose
# for node2 (drawer 1) must not take it, although falcond's last read
# (reused: InventoryReuse, default 60 s) says it is free: the zone PATCH
# gets 412, the zone read lists it, the attach set is refused and falcond
# reads everything again
Z=/redfish/v1/Fabrics/PCIe/Zones
body=$(fd_sim c1 GET $Z/H3 | python3 -c 'import json,sys
z = json.load(sys.stdin)
eps = z["Links"]["Endpoints"] + [{"@odata.id": "/redfish/v1/Fabrics/PCIe/Endpoints/drawer1_slot4"}]
print(json.dumps({"Links": {"Endpoints": eps}}))')
fd_sim c1 PATCH $Z/H3 "$body" >/dev/null
count_on
"$FALCONCTL" attach --job 7 --host node2 --gpus 3 --place any --json > "$t_tmp/a7" ||
	t_fail "compose failed: $(cat "$t_tmp/a7")"
n=$(gets)
grep -q drawer1_slot4 "$t_tmp/a7" && t_fail "drawer1_slot4, attached to H3 by someone else, was leased: $(cat "$t_tmp/a7")"
# at most the Zones collection, 4 zones, the Endpoints collection; the
# PATCH goes out with If-Match on the zone as the last read saw it
[ "$n" -le 6 ] || t_fail "a compose of 3 GPUs read $n resources, expected <= 6"
"$FALCONCTL" attach --job 8 --host node2 --gpus 1 --place any --json > "$t_tmp/a8" 2>&1 &&
	t_fail "a 4th GPU of drawer 1 was leased: $(cat "$t_tmp/a8")"
"$FALCONCTL" reconcile >/dev/null || t_fail "falconctl reconcile failed"
fd_invariants || t_fail "after reconcile"
grep -q "drawer1_slot4 is already in zone" "$t_tmp/falcond.log" ||
	t_fail "the 4th GPU was not refused as given by someone else: $(grep -i slot4 "$t_tmp/falcond.log" | tail -3)"
t_ok "compose: $n GETs; a device given behind falcond's back not leased"

# ---- 4. a lease closed by a reconcile is not counted again as orphans ----
# (one read per pass: the devices its closing detached still show attached
# in it).  Job 7's lease loses drawer1_slot1 behind falcond's back: the
# reconcile closes it ("gone") and detaches the other two.
slot1_gone=$(fd_sim c1 GET $Z/H3 | python3 -c 'import json,sys
z = json.load(sys.stdin)
eps = [e for e in z["Links"]["Endpoints"] if not e["@odata.id"].endswith("/drawer1_slot1")]
print(json.dumps({"Links": {"Endpoints": eps}}))')
grep -q drawer1_slot1 "$t_tmp/a7" || t_fail "job 7 was expected to hold drawer1_slot1: $(cat "$t_tmp/a7")"
fd_sim c1 PATCH $Z/H3 "$slot1_gone" >/dev/null
"$FALCONCTL" reconcile --json > "$t_tmp/out" || t_fail "falconctl reconcile: $(cat "$t_tmp/out")"
[ "$(fd_json 'j["closed_gone"]')" = 1 ] || t_fail "job 7's lease not closed: $(cat "$t_tmp/out")"
[ "$(fd_json 'j["orphans_detached"]')" = 0 ] ||
	t_fail "the devices of the lease just closed were detached again as orphans: $(cat "$t_tmp/out"; grep 'without a lease' "$t_tmp/falcond.log")"
fd_invariants || t_fail "after the lease was closed"
t_ok "a closed lease's devices detached once, not counted as orphans"

# ---- 5. after an outage every device is read again ------------------------
# (it may have been serviced).  The chassis' management is paused (SIGSTOP:
# connections accepted, never answered) while a compose reads it; the
# compose after it is back reads every device, the next one at most the
# zones.
fd_invariants >/dev/null || t_fail "before the outage"
simpid=$(cat "$t_tmp/sim-c1/pid")
kill -STOP "$simpid"
"$FALCONCTL" attach --job 9 --host node3 --gpus 1 --place any > "$t_tmp/a9" 2>&1 &&
	{ kill -CONT "$simpid"; t_fail "a compose succeeded against a paused chassis: $(cat "$t_tmp/a9")"; }
kill -CONT "$simpid"
count_on
"$FALCONCTL" attach --job 9 --host node3 --gpus 1 --place any > "$t_tmp/a9" 2>&1 ||
	t_fail "compose after the outage failed: $(cat "$t_tmp/a9")"
n=$(gets)
[ "$n" -ge 40 ] || t_fail "the first compose after the outage read $n resources, expected every device (>= 40)"
count_on
"$FALCONCTL" attach --job 10 --host node3 --gpus 1 --place any > "$t_tmp/a10" 2>&1 ||
	t_fail "compose failed: $(cat "$t_tmp/a10")"
n2=$(gets)
[ "$n2" -le 6 ] || t_fail "the second compose after the outage read $n2 resources, expected 6"
fd_invariants || t_fail "after the outage"
t_ok "outage: $n GETs for the first compose after it, then $n2"

# ---- 6. a file falcond did not write is named and ignored ------------------
fd_stop_falcond -KILL
printf '{"descriptions":[{"path":"/etc/passwd","read":1}]}' > "$DESC"
count_on
fd_start_falcond
grep -q "chassis-c1.json: descriptions\[0\].path: expected a /redfish/v1 path; reading every device of chassis c1" "$t_tmp/falcond.log" ||
	t_fail "the bad file is not named: $(grep -i descri "$t_tmp/falcond.log" | tail -3)"
n=$(gets)
[ "$n" -ge 40 ] || t_fail "after a bad $DESC falcond read $n resources, expected every one"
[ "$(ndesc)" -eq 13 ] || t_fail "$DESC not written again"
printf '{"descr' > "$DESC"
restart
grep -q "chassis-c1.json: not JSON" "$t_tmp/falcond.log" || t_fail "a truncated file is not named"
fd_invariants || t_fail "at the end"
t_ok "bad files named and replaced"
