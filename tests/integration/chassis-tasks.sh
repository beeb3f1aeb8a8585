#!/bin/sh
# chassis-tasks.sh - asynchronous attach and detach (DSP0266 sec. 12.2):
# falcon-sim answers them 202 Accepted with a TaskService task monitor
# (faults.tasks, set through /admin/faults and through --config), and the
# chassis client follows the monitor to the end with both backends: the
# change is applied only when the task completes, a task that ends in
# TaskState Exception is an error carrying the task's message (nothing
# changed), and a task that outlives the client's task timeout is a TIMEOUT
# naming the monitor.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/sim-lib.sh"

CLIENT=$top_builddir/tests/chassis-client
[ -x "$CLIENT" ] || t_fail "$CLIENT not built"

# Tasks from the configuration file: the sim answers 202 from the start.
"$SIM" --dump-config >"$t_tmp/cfg.json"
python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))
c["faults"] = {"tasks": {"attach": True, "detach": True, "ms": 6000}}
json.dump(c, open(sys.argv[1], "w"))' "$t_tmp/cfg.json"
sim_start --config "$t_tmp/cfg.json"
# mon_done - the task monitor $MON no longer answers 202 (its answer in
# STATUS and the body file); owner_is DEVICE OWNER
mon_done() { req GET "$MON"; [ "$STATUS" != 202 ]; }
owner_is() { [ "$(owner "$1")" = "$2" ]; }

req PATCH "$RF/Fabrics/PCIe/Zones/H3" "$(zone_body drawer1_slot1)"
expect 202 "zone PATCH accepted as a task"
MON=$(sed -n 's/^[Ll]ocation: *//p' "$t_tmp/hdr" | tr -d '\r')
case $MON in /redfish/v1/TaskService/TaskMonitors/*) ;; *) t_fail "Location '$MON'" ;; esac
[ "$(jget 'd["TaskState"]')" = Running ] || t_fail "202 body is not a running Task"
o=$(owner drawer1_slot1); [ "$o" = None ] || t_fail "applied before the task ran ($o)"
req GET "$MON"
expect 202 "monitor while running"
wait_for 30 "the task to end" mon_done || t_fail "the task's monitor still answers $STATUS"
expect 200 "monitor when done: the zone"
[ "$(jget 'd["@odata.type"]')" = "#Zone.v1_6_1.Zone" ] || t_fail "monitor's final answer is not the zone"
[ "$(owner drawer1_slot1)" = H3 ] || t_fail "not applied after the task"
TASK=${MON##*/}
req GET "$RF/TaskService/Tasks/$TASK"
[ "$(jget 'd["TaskState"]')" = Completed ] || t_fail "task not Completed"
req PATCH "$RF/Fabrics/PCIe/Zones/H3" "$(zone_body)"
expect 202 "detach accepted as a task"
wait_for 30 "the detach task to apply" owner_is drawer1_slot1 None ||
	t_fail "detach task not applied"
req GET "$RF/TaskService/Tasks"
[ "$(jget 'd["Members@odata.count"]')" = 2 ] || t_fail "two tasks listed"
[ "$(owner drawer1_slot1)" = None ] || t_fail "detach task not applied"
t_ok "sim: 202, monitor, applied when done"

cl() {
	out=$("$CLIENT" --url "$SIM_BASE" --backend "$backend" --timeout 3 "$@" 2>"$t_tmp/cl.err") || true
}
for backend in redfish-fabric redfish-composition; do
	req POST /admin/faults '{"tasks":{"attach":true,"detach":true,"ms":300}}'
	expect 200 "tasks on"
	cl -v attach H1 drawer1_slot2
	[ "$out" = ok ] || t_fail "$backend: attach: $out $(cat "$t_tmp/cl.err")"
	grep -q 'task monitor /redfish/v1/TaskService/TaskMonitors/' "$t_tmp/cl.err" ||
		t_fail "$backend: the client did not follow a task: $(cat "$t_tmp/cl.err")"
	[ "$(owner drawer1_slot2)" = H1 ] || t_fail "$backend: not attached"
	cl verify H1 drawer1_slot2 attached
	[ "$out" = ok ] || t_fail "$backend: verify: $out"
	cl detach H1 drawer1_slot2
	[ "$out" = ok ] || t_fail "$backend: detach: $out $(cat "$t_tmp/cl.err")"
	[ "$(owner drawer1_slot2)" = None ] || t_fail "$backend: not detached"
	t_ok "$backend: attach and detach through task monitors"

	req POST /admin/faults '{"tasks":{"attach":true,"ms":100,"fail":true}}'
	expect 200 "failing tasks"
	cl attach H1 drawer1_slot3
	case $out in
	"error server:"*"task monitor"*"HTTP 500"*"Injected fault: the chassis failed"*) ;;
	*) t_fail "$backend: failed task: '$out'" ;;
	esac
	[ "$(owner drawer1_slot3)" = None ] || t_fail "$backend: a failed task changed the owner"
	t_ok "$backend: failed task -> $out"

	req POST /admin/faults '{"tasks":{"attach":true,"ms":600000}}'
	expect 200 "endless tasks"
	cl --task-timeout 1 attach H1 drawer1_slot4
	case $out in
	"error timeout:"*"task monitor /redfish/v1/TaskService/TaskMonitors/"*"still running after 1000 ms (TaskState Running)"*) ;;
	*) t_fail "$backend: endless task: '$out'" ;;
	esac
	t_ok "$backend: endless task -> $out"
	# the client cancelled it when its budget ended (DELETE on the monitor)
	req GET "$RF/TaskService/Tasks"
	last=$(jget 'd["Members"][-1]["@odata.id"]')
	req GET "$last"
	[ "$(jget 'd["TaskState"]')" = Cancelled ] || t_fail "$backend: the client left its task running"
	[ "$(owner drawer1_slot4)" = None ] || t_fail "$backend: a cancelled task changed the owner"
	t_ok "$backend: the client cancelled its task at the end of its budget"
	req DELETE /admin/faults
done

# A failed task's monitor answers the failure's status with its message.
req POST /admin/faults '{"tasks":{"attach":true,"ms":100,"fail":true}}'
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body drawer1_slot3)"
expect 202 "attach accepted as a task"
MON=$(sed -n 's/^[Ll]ocation: *//p' "$t_tmp/hdr" | tr -d '\r')
wait_for 30 "the failing task to end" mon_done || t_fail "the task's monitor still answers $STATUS"
expect 500 "monitor of a task failed by an injected fault"
jget 'd["error"]["@Message.ExtendedInfo"][0]["Message"]' | grep -q 'Injected fault' ||
	t_fail "no failure message in the monitor's error"
# refused as it ran (another host took the device meanwhile): the rule's 409
req POST /admin/faults '{"tasks":{"attach":true,"ms":5000}}'
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body drawer1_slot4)"
expect 202 "attach to H1 accepted as a task"
MON=$(sed -n 's/^[Ll]ocation: *//p' "$t_tmp/hdr" | tr -d '\r')
req POST /admin/faults '{}'
req PATCH "$RF/Fabrics/PCIe/Zones/H3" "$(zone_body drawer1_slot4)"
expect 200 "H3 takes drawer1_slot4 at once"
wait_for 30 "the refused task to end" mon_done || t_fail "the task's monitor still answers $STATUS"
expect 409 "monitor of a task the chassis refused as it ran"
t_ok "failed tasks: the monitor answers 500 / 409 with the message, not 200"
req PATCH "$RF/Fabrics/PCIe/Zones/H3" "$(zone_body)"
expect 200 "H3 gives drawer1_slot4 back"

# DELETE on a running task's monitor cancels it: nothing applied, monitor gone.
req POST /admin/faults '{"tasks":{"attach":true,"ms":3000}}'
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body drawer1_slot2)"
expect 202 "attach accepted as a task"
t_patch=$(date +%s)
MON=$(sed -n 's/^[Ll]ocation: *//p' "$t_tmp/hdr" | tr -d '\r')
req DELETE "$MON"
expect 204 "DELETE on the running task's monitor"
# a negative: nothing applied once the task's 3 s are over
while [ $(($(date +%s) - t_patch)) -le 4 ]; do sleep 0.2; done
[ "$(owner drawer1_slot2)" = None ] || t_fail "a cancelled task was applied"
req GET "$MON"
expect 404 "the cancelled task's monitor is gone"
req GET "$RF/TaskService/Tasks/${MON##*/}"
[ "$(jget 'd["TaskState"]')" = Cancelled ] || t_fail "task not Cancelled"
t_ok "DELETE cancels a running task"
req DELETE /admin/faults
