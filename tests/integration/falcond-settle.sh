#!/bin/sh
# falcond-settle.sh - intent before action (issue #11): falcond SIGKILLed
# while its attach PATCH is held 5 s by the chassis, restarted at once; the
# dead process's PATCH lands after the restarted falcond's start-up
# reconcile, and falcond detaches it by itself (the compose was written
# ahead as "composing" and settles; the periodic reconcile catches the late
# attach).  Then a device attached behind falcond's back (a PATCH straight
# to the chassis) is reclaimed by the periodic reconcile, and an attach
# held by the chassis while the live falcond composes is never taken for an
# orphan.  Last, the prolog's retry of a compose that a killed falcond left
# in flight takes over its devices instead of finding the pool short (make
# soak-fleet: pool_short requeues after falcond kills).  No admin command
# is sent; the waits are bounded liveness waits, not timings.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/falcond-lib.sh"
fd_need
# reconcile every 2 s; hold a dead falcond's in-flight devices 10 s
fd_setup "${FD_SETTLE_CONF-ReconcileInterval=2
SettleTime=10}"
Z=/redfish/v1/Fabrics/PCIe/Zones

# rule_left - the count left of the fault rule (0: it matched; a spent
# rule may be dropped from the list)
rule_left() {
	fd_sim c1 GET /admin/faults | python3 -c 'import json,sys
r = json.load(sys.stdin)["rules"]
print(r[0]["count"] if r else 0)'
}
rule_spent() { [ "$(rule_left)" = 0 ]; }
# owner DEV - the port DEV is attached to per the chassis ("" = free)
owner() {
	fd_sim c1 GET /admin/state | python3 -c 'import json,sys
print([d["owner"] or "" for d in json.load(sys.stdin)["devices"] if d["id"] == sys.argv[1]][0])' "$1"
}
is_free() { [ -z "$(owner "$1")" ]; }
# settled - no device attached without a lease (fd_invariants passes)
settled() { fd_invariants >/dev/null; }

# kill_in_patch MS JOB HOST GPUS - a compose of JOB on HOST whose attach
# PATCH the chassis holds MS ms; falcond SIGKILLed while it is held (no
# answer reaches the client), then started again
kill_in_patch() {
	fd_sim c1 POST /admin/faults '{"rules":[{"action":"latency","ms":'"$1"',"count":1,"method":"PATCH","path":"/redfish/v1/Fabrics/PCIe/Zones/*"}]}' >/dev/null
	"$FALCONCTL" attach --job "$2" --host "$3" --gpus "$4" --place any --json > "$t_tmp/a$2" 2>&1 &
	cpid=$!
	# the chassis holds the PATCH once the rule has matched it
	wait_for 20 "job $2's attach PATCH to reach the chassis" rule_spent ||
		t_fail "falcond sent no PATCH: $(tail -n 3 "$t_tmp/falcond.log")"
	fd_stop_falcond -KILL
	wait $cpid 2>/dev/null &&
		t_fail "the compose was acknowledged by a killed falcond: $(cat "$t_tmp/a$2")"
	fd_start_falcond
}

# ---- 1. the dead process's PATCH lands after the restart ----------------
# (held 15 s: at a load of 15 the kill came after a 5 s hold had ended)
kill_in_patch 15000 1 node1 1
# the held PATCH (drawer1_slot1 to H1: place any) lands 15 s after the
# chassis took it, which was before the kill: after the start-up reconcile,
# which catches it when it comes
wait_for 60 "the held PATCH to land and be caught" grep -Eq \
	'drawer1_slot1 (attached to H1 late|attached to H1 without a lease)' "$t_tmp/falcond.log" ||
	t_fail "the late attach was not caught: $(tail -n 5 "$t_tmp/falcond.log")"
wait_for 30 "no device attached without a lease" settled || {
	fd_invariants; fd_sim c1 GET /admin/state; tail -n 20 "$t_tmp/falcond.log"
	t_fail "the late PATCH of the killed falcond left a device attached without a lease"; }
wait_for 30 "drawer1_slot1 free" is_free drawer1_slot1 ||
	t_fail "drawer1_slot1 still attached to $(owner drawer1_slot1)"
# the intent settles: rolled back once SettleTime passed with nothing attached
no_lease() { fd_ledger | python3 -c 'import json,sys; sys.exit(len(json.load(sys.stdin)["leases"]) != 0)'; }
wait_for 60 "lease L-1 to settle" no_lease || t_fail "lease L-1 not settled: $(fd_ledger)"
grep -q 'lease L-1: settled; rolled back' "$t_tmp/falcond.log" || t_fail "the settle is not logged"
t_ok "late PATCH of a killed falcond detached without an admin"

# ---- 2. an orphan attached behind falcond's back ------------------------
body=$(fd_sim c1 GET $Z/H3 | python3 -c 'import json,sys
z = json.load(sys.stdin)
eps = z["Links"]["Endpoints"] + [{"@odata.id": "/redfish/v1/Fabrics/PCIe/Endpoints/drawer1_slot2"}]
print(json.dumps({"Links": {"Endpoints": eps}}))')
fd_sim c1 PATCH $Z/H3 "$body" >/dev/null
[ "$(owner drawer1_slot2)" = H3 ] || t_fail "the direct PATCH did not attach drawer1_slot2"
wait_for 30 "the orphan drawer1_slot2 to be reclaimed" is_free drawer1_slot2 ||
	t_fail "orphan drawer1_slot2 still on $(owner drawer1_slot2)"
grep -q 'drawer1_slot2 attached to H3 without a lease' "$t_tmp/falcond.log" ||
	t_fail "the reclaim is not logged"
t_ok "orphan reclaimed by the periodic reconcile"

# ---- 3. a live compose held by the chassis is not an orphan -------------
fd_sim c1 POST /admin/faults '{"rules":[{"action":"latency","ms":3000,"count":1,"method":"PATCH","path":"/redfish/v1/Fabrics/PCIe/Zones/*"}]}' >/dev/null
fd_expect 200 POST /v1/compose '{"job_id":3,"host":"node3","gpus":1,"place":"any"}'
dev=$(fd_json 'j["lease"]["devices"][0]["id"]')
id=$(fd_json 'j["lease"]["id"]')
# two more reconcile passes (falcond_reconcile_runs_total), not a guess
# at their interval: the lease and its device stay
runs() { curl -s -m 10 "http://127.0.0.1:$FD_PORT/metrics" | sed -n 's/^falcond_reconcile_runs_total //p'; }
r0=$(runs)
wait_for 60 "two reconcile passes" sh -c "[ \$(curl -s -m 10 http://127.0.0.1:$FD_PORT/metrics |
	sed -n 's/^falcond_reconcile_runs_total //p') -ge $((r0 + 2)) ]" ||
	t_fail "falcond ran no two reconcile passes in 60 s (from $r0)"
[ "$(owner "$dev")" = H4 ] || t_fail "the device of live lease $id was taken: $(owner "$dev")"
fd_expect 200 GET /v1/status ''
[ "$(fd_json '[l["state"] for l in j["leases"] if l["id"] == "'"$id"'"]')" = "['active']" ] ||
	t_fail "lease $id: $(cat "$t_tmp/out")"
fd_expect 200 POST /v1/decompose '{"job_id":3}'
fd_invariants >/dev/null || { fd_invariants; t_fail "final invariants"; }
t_ok "a held attach of the live falcond is kept"

# ---- 4. the same job's retry after a kill takes over its devices --------
# node3 (H4) reaches drawer2's four GPUs and no others: job 4 asks all of
# them, falcond is killed while the chassis holds the PATCH, and the
# prolog's retry (the same job on the same host) comes at once.  Before the
# fix the dead compose's settling lease held the four for SettleTime= and
# the retry was refused "noresource" (a pool_short requeue in Slurm).
kill_in_patch 8000 4 node3 4
fd_expect 200 POST /v1/compose '{"job_id":4,"host":"node3","gpus":4,"place":"any"}'
id=$(fd_json 'j["lease"]["id"]')
devs=$(fd_json '" ".join(sorted(d["id"] for d in j["lease"]["devices"]))')
grep -q "job 4 on node3: 4 device(s) of its compose that a dead falcond left in flight taken over" \
	"$t_tmp/falcond.log" || t_fail "no take-over logged: $(tail -n 5 "$t_tmp/falcond.log")"
# the dead PATCH lands meanwhile (8 s after the chassis took it): it gave
# the same devices to the same port; two reconcile passes later the lease
# is active and its devices are on H4, none detached as a late attach
r0=$(runs)
wait_for 60 "two reconcile passes" sh -c "[ \$(curl -s -m 10 http://127.0.0.1:$FD_PORT/metrics |
	sed -n 's/^falcond_reconcile_runs_total //p') -ge $((r0 + 2)) ]" ||
	t_fail "falcond ran no two reconcile passes in 60 s (from $r0)"
for d in $devs; do
	[ "$(owner "$d")" = H4 ] || t_fail "$d of lease $id is on '$(owner "$d")', not H4"
done
fd_expect 200 GET /v1/status ''
[ "$(fd_json '[l["state"] for l in j["leases"] if l["id"] == "'"$id"'"]')" = "['active']" ] ||
	t_fail "lease $id: $(cat "$t_tmp/out")"
fd_expect 200 POST /v1/decompose '{"job_id":4}'
wait_for 30 "no device attached without a lease" settled || {
	fd_invariants; t_fail "job 4's devices left attached after its decompose"; }
t_ok "job 4's retry after a kill took over its own in-flight devices ($devs)"
exit 0
