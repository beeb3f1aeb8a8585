#!/bin/sh
# chassis-sim.sh - the chassis client (lib/chassis/chassis.h, through
# tests/chassis-client) against falcon-sim on an ephemeral loopback port,
# with both backends: attach/detach with read-back, idempotence, conflicts
# (409), mode limits, stale ETags (412, re-read and retried, no lost
# update between concurrent writers), and every injected fault that reaches
# the client (5xx, timeouts, dropped connections, latency, a refused
# detach): the client returns the right error and leaves nothing
# half-attached.  falcon-sim's /admin/state is the referee.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/sim-lib.sh"

CLIENT=$top_builddir/tests/chassis-client
[ -x "$CLIENT" ] || t_fail "$CLIENT not built"

sim_start

# cl ARGS... - run the client with the current backend; output in $out
cl() {
	out=$("$CLIENT" --url "$SIM_BASE" --backend "$backend" --timeout 3 "$@" 2>"$t_tmp/cl.err") || true
}
# ok WHAT: the last client call printed ok
ok() {
	[ "$out" = ok ] || t_fail "$backend: $1: $out $(cat "$t_tmp/cl.err")"
	t_ok "$backend: $1"
}
# err NAME WHAT [TEXT]: the last call failed with falcon_err_name NAME (and TEXT)
err() {
	case $out in
	"error $1:"*) ;;
	*) t_fail "$backend: $2: '$out', expected error $1" ;;
	esac
	if [ -n "${3:-}" ]; then
		case $out in *"$3"*) ;; *) t_fail "$backend: $2: '$3' not in '$out'" ;; esac
	fi
	t_ok "$backend: $2 -> $out"
}
# own DEV PORT: /admin/state says DEV belongs to PORT (None = free)
own() {
	o=$(owner "$1")
	[ "$o" = "$2" ] || t_fail "$backend: $1 owned by $o, expected $2"
}
faults() {
	req POST /admin/faults "$1"
	expect 200 "faults $1"
}
clear_faults() {
	req DELETE /admin/faults
	[ "$STATUS" = 204 ] || t_fail "clearing faults: HTTP $STATUS"
}

for backend in redfish-fabric redfish-composition; do
	if [ $backend = redfish-fabric ]; then
		change_rule='"method":"PATCH","path":"/redfish/v1/Fabrics/PCIe/Zones/*"'
		read_rule='"method":"GET","path":"/redfish/v1/Fabrics/PCIe/Zones/*"'
	else
		change_rule='"method":"POST","path":"/redfish/v1/Systems/*"'
		read_rule='"method":"GET","path":"/redfish/v1/CompositionService/ResourceBlocks/*"'
	fi

	# ---- attach, detach, read-back, idempotence ----
	cl attach H1 drawer1_slot1; ok "attach drawer1_slot1 to H1"
	own drawer1_slot1 H1
	cl verify H1 drawer1_slot1 attached; ok "read back: attached"
	cl owner drawer1_slot1
	[ "$out" = H1 ] || t_fail "$backend: inventory owner '$out'"
	cl attach H1 drawer1_slot1; ok "attach again (idempotent)"
	cl detach H1 drawer1_slot1; ok "detach"
	own drawer1_slot1 None
	cl verify H1 drawer1_slot1 detached; ok "read back: detached"
	cl detach H1 drawer1_slot1; ok "detach again (idempotent)"
	cl attach H2 drawer2_slot5; ok "attach the NVMe drawer2_slot5 to H2"
	cl owner drawer2_slot5
	[ "$out" = H2 ] || t_fail "$backend: inventory owner of the NVMe '$out'"
	cl detach H2 drawer2_slot5; ok "detach the NVMe"

	# ---- conflicts: one zone at a time; mode limits ----
	cl attach H1 drawer1_slot1; ok "attach for the conflict"
	cl attach H3 drawer1_slot1; err conflict "the same device to H3"
	own drawer1_slot1 H1
	cl attach H2 drawer1_slot2; err conflict "a drawer-1 device to H2 (not cabled)"
	own drawer1_slot2 None
	cl detach H3 drawer1_slot1; ok "detach from a port that does not hold it"
	own drawer1_slot1 H1
	cl detach H1 drawer1_slot1; ok "detach after the conflict"
	cl attach H1 drawer9_slot1; err notfound "a device that does not exist"
	cl attach H9 drawer1_slot1; err notfound "a port that does not exist"

	# ---- faults on the change: the right error, nothing half-attached ----
	faults "{\"rules\":[{\"action\":\"error\",\"status\":503,\"count\":1,$change_rule}]}"
	cl attach H1 drawer1_slot1; err server "503 on the change"
	own drawer1_slot1 None
	faults "{\"rules\":[{\"action\":\"error\",\"status\":500,\"count\":1,$read_rule}]}"
	cl attach H1 drawer1_slot1; err server "500 on the read"
	own drawer1_slot1 None
	faults "{\"rules\":[{\"action\":\"timeout\",\"count\":1,$change_rule}]}"
	if [ $backend = redfish-fabric ]; then
		# the shipped ChangeTimeout=120 s, as a site has it
		cl attach H1 drawer1_slot1
		err timeout "change accepted, never answered" "ChangeTimeout=120 s"
	else
		# the setting itself: ChangeTimeout=5 is what the client waits
		# (the shipped 120 s is the fabric's run above: not twice)
		cl --change-timeout 5 attach H1 drawer1_slot1
		err timeout "change accepted, never answered, ChangeTimeout=5" "ChangeTimeout=5 s"
	fi
	own drawer1_slot1 None
	clear_faults
	if [ $backend = redfish-fabric ]; then
		# (an action's answer is an empty 204: nothing to cut in half)
		faults "{\"rules\":[{\"action\":\"drop\",\"count\":1,$change_rule}]}"
		cl attach H1 drawer1_slot1; err transport "connection dropped mid-answer of the change"
		own drawer1_slot1 None
	fi
	faults "{\"rules\":[{\"action\":\"drop\",\"count\":1,$read_rule}]}"
	cl attach H1 drawer1_slot1; err transport "connection dropped mid-answer of the read"
	own drawer1_slot1 None
	faults "{\"rules\":[{\"action\":\"timeout\",\"count\":1,$read_rule}]}"
	cl attach H1 drawer1_slot1; err timeout "read never answered"
	own drawer1_slot1 None
	clear_faults
	faults '{"latency_ms":200}'
	cl attach H1 drawer1_slot1; ok "attach with 200 ms latency per request"
	own drawer1_slot1 H1
	faults '{"latency_ms":5000}'
	cl detach H1 drawer1_slot1; err timeout "detach slower than the client's 3 s"
	clear_faults
	cl verify H1 drawer1_slot1 attached; ok "a timed-out detach that never ran leaves it attached"
	cl detach H1 drawer1_slot1; ok "detach once the latency is gone"

	# ---- a detach the chassis refuses ----
	cl attach H1 drawer1_slot3; ok "attach drawer1_slot3"
	faults '{"refuse_detach":["drawer1_slot3"]}'
	cl detach H1 drawer1_slot3; err chassis "refused detach" "detach refused"
	own drawer1_slot3 H1
	cl verify H1 drawer1_slot3 attached; ok "still attached after the refusal"
	clear_faults
	cl detach H1 drawer1_slot3; ok "detach once allowed"
	own drawer1_slot3 None
done

# ---- falconctl inventory --url against the emulator, both backends ----
backend=redfish-fabric
cl attach H1 drawer1_slot2; ok "attach for the inventory"
for backend in redfish-fabric redfish-composition; do
	"$top_builddir/falconctl/falconctl" inventory --url "$SIM_BASE" --backend $backend \
		--json >"$t_tmp/inv.json" || t_fail "$backend: falconctl inventory failed"
	python3 - "$t_tmp/inv.json" $backend <<'PY' || t_fail "$backend: inventory: $(cat "$t_tmp/inv.json")"
import json, sys
d = json.load(open(sys.argv[1]))
devs = {x["id"]: x for x in d["chassis"][0]["devices"]}
g, n = devs["drawer1_slot2"], devs["drawer2_slot5"]
assert len(devs) == 9, sorted(devs)
assert (g["type"], g["drawer"], g["slot"], g["owner"]) == ("GPU", 1, 2, "H1"), g
assert (n["type"], n["drawer"], n["slot"], n["owner"]) == ("NVMe", 2, 5, None), n
assert g["model"] == "Tesla V100-PCIE-16GB", g
if sys.argv[2] == "redfish-fabric":
    assert (g["vendor_id"], g["device_id"]) == ("10de", "1db4"), g
    assert (n["vendor_id"], n["device_id"]) == ("8086", "0a54"), n
    assert g["odata_id"] == "/redfish/v1/Fabrics/PCIe/Endpoints/drawer1_slot2", g
else:
    assert g["composition_state"] == "Composed", g
    assert g["odata_id"] == "/redfish/v1/CompositionService/ResourceBlocks/drawer1_slot2", g
PY
	t_ok "$backend: falconctl inventory: 9 devices, drawer1_slot2 a GPU owned by H1"
done
backend=redfish-fabric
cl detach H1 drawer1_slot2; ok "detach after the inventory"

# ---- stale ETag: a writer whose PATCH lands after another's re-reads ----
backend=redfish-fabric
# hold the first PATCH of the zone for 5 s; meanwhile another writer
# changes the zone, so the held PATCH's If-Match is stale when it lands.
# (On a very loaded machine the second writer may be the one that is late:
# then its own PATCH is the stale one.  Either way one writer gets a 412,
# re-reads and retries, and neither update is lost.)
faults '{"rules":[{"action":"latency","ms":5000,"count":1,"method":"PATCH","path":"/redfish/v1/Fabrics/PCIe/Zones/H1"}]}'
"$CLIENT" --url "$SIM_BASE" --backend $backend --timeout 20 -v attach H1 drawer1_slot1 \
	>"$t_tmp/a.out" 2>"$t_tmp/a.err" &
a_pid=$!
i=0
while :; do
	req GET /admin/faults
	[ "$(jget 'd["rules"][0]["count"] if d["rules"] else 0')" = 0 ] && break
	i=$((i + 1))
	[ $i -lt 400 ] || t_fail "the held PATCH never arrived"
	sleep 0.05
done
"$CLIENT" --url "$SIM_BASE" --backend $backend --timeout 20 -v attach H1 drawer1_slot2 \
	>"$t_tmp/b.out" 2>"$t_tmp/b.err" || true
wait $a_pid || true
[ "$(cat "$t_tmp/a.out")" = ok ] || t_fail "held writer: $(cat "$t_tmp/a.out" "$t_tmp/a.err")"
[ "$(cat "$t_tmp/b.out")" = ok ] || t_fail "second writer: $(cat "$t_tmp/b.out" "$t_tmp/b.err")"
if grep -q "stale ETag (412)" "$t_tmp/a.err"; then
	who="the held writer"
elif grep -q "stale ETag (412)" "$t_tmp/b.err"; then
	who="the second writer (the machine is loaded)"
else
	t_fail "no 412 retry: $(cat "$t_tmp/a.err" "$t_tmp/b.err")"
fi
own drawer1_slot1 H1
own drawer1_slot2 H1
t_ok "412 for $who, re-read, retried: both devices in H1"
clear_faults
cl detach H1 drawer1_slot1; ok "clean up"
cl detach H1 drawer1_slot2; ok "clean up"

# ---- four concurrent writers on one zone: nobody loses an update ----
faults '{"latency_ms":100}'
pids=
for s in 1 2 3 4; do
	"$CLIENT" --url "$SIM_BASE" --backend $backend --timeout 10 -v attach H1 drawer1_slot$s \
		>"$t_tmp/w$s.out" 2>"$t_tmp/w$s.err" &
	pids="$pids $!"
done
for p in $pids; do wait "$p" || true; done
for s in 1 2 3 4; do
	[ "$(cat "$t_tmp/w$s.out")" = ok ] || t_fail "writer $s: $(cat "$t_tmp/w$s.out" "$t_tmp/w$s.err")"
	own drawer1_slot$s H1
done
n412=$(cat "$t_tmp"/w?.err | grep -c "stale ETag (412)" || true)
t_ok "4 concurrent writers: all 4 devices in H1 ($n412 re-reads after 412)"
clear_faults
for s in 1 2 3 4; do cl detach H1 drawer1_slot$s; ok "clean up $s"; done

# ---- credentials: sessions and basic auth against an emulator that wants them ----
sim_stop
printf 'admin:falcon\n' >"$t_tmp/cred"
chmod 600 "$t_tmp/cred"
sim_start --credentials "$t_tmp/cred"
cl attach H1 drawer1_slot1; err auth "anonymous client, credentials required"
for backend in redfish-fabric redfish-composition; do
	out=$("$CLIENT" --url "$SIM_BASE" --backend $backend --credentials "$t_tmp/cred" \
		attach H1 drawer1_slot1 2>&1) || true
	ok "attach with a Redfish session"
	out=$("$CLIENT" --url "$SIM_BASE" --backend $backend --credentials "$t_tmp/cred" \
		detach H1 drawer1_slot1 2>&1) || true
	ok "detach with a Redfish session"
done
printf 'admin:wrong\n' >"$t_tmp/bad"
chmod 600 "$t_tmp/bad"
backend=redfish-fabric
out=$("$CLIENT" --url "$SIM_BASE" --credentials "$t_tmp/bad" attach H1 drawer1_slot1 2>&1) || true
err auth "wrong password"
