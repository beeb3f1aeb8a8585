#!/bin/sh
# falcond-slowchassis.sh - defaults that fit real chassis (issue #29): with
# the chassis line the quickstart ships (examples/falcon-demo.conf.in: its
# Timeout=, no ChangeTimeout=, so the built-in default), composes through
# falcon_client (falconctl attach/detach, the lib/api client with its
# 60 s budget) of 4 GPUs complete
#   (a) on a chassis taking 20 s per PATCH (falcon-sim latency rule),
#   (b) on a chassis answering 202 with a task that runs 30 s
#       (falcon-sim faults.tasks, DSP0266 sec. 12.2),
# and (c) a ChangeTimeout= set too short for the chassis fails the compose
# with an error naming the key (FALCON_CHASSIS_TIMEOUT_MARK, which
# falcon-prolog turns into falcon:waiting=chassis_timeout) and a line in
# falcond's log naming the chassis, the key and the time observed.
# Before ChangeTimeout= (Timeout= bounding every request) (a) timed out
# after 5 s and was rolled back, every time.
# Root only (munged).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/falcond-lib.sh"
fd_need
demo=$top_srcdir/examples/falcon-demo.conf.in
FD_CHASSIS_TIMEOUT=$(sed -n '/^#/d; s/.*[ 	]Timeout=\([0-9][0-9]*\).*/\1/p' "$demo")
[ -n "$FD_CHASSIS_TIMEOUT" ] || t_fail "no Timeout= on the chassis line of $demo"
change=$(sed -n '/^#/d; s/.*[ 	]\(ChangeTimeout=[0-9][0-9]*\).*/\1/p' "$demo")
fd_start_munged
fd_start_sim c1
fd_write_conf
[ -z "$change" ] || sed -i "s/^ChassisName=.*/& $change/" "$FALCON_CONF"
grep '^ChassisName' "$FALCON_CONF"
fd_start_falcond

# s_compose JOB - falconctl attach of 4 GPUs on node1 then detach; the
# times in ms in $att_ms and $det_ms.
s_compose() {
	t0=$(date +%s%N)
	"$FALCONCTL" attach --job "$1" --host node1 --gpus 4 --json >"$t_tmp/att-$1.json" \
		2>"$t_tmp/att-$1.err" || { tail -n 5 "$t_tmp/falcond.log" >&2
		t_fail "job $1: falconctl attach: $(cat "$t_tmp/att-$1.err")"; }
	t1=$(date +%s%N)
	"$FALCONCTL" detach --job "$1" 2>"$t_tmp/det-$1.err" ||
		t_fail "job $1: falconctl detach: $(cat "$t_tmp/det-$1.err")"
	t2=$(date +%s%N)
	att_ms=$(( (t1 - t0) / 1000000 )) det_ms=$(( (t2 - t1) / 1000000 ))
	n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["devices"]))' \
		"$t_tmp/att-$1.json")
	[ "$n" = 4 ] || t_fail "job $1: $n devices: $(cat "$t_tmp/att-$1.json")"
	fd_invariants >/dev/null || t_fail "job $1: ledger and chassis disagree"
}

# -- (a) 20 s per PATCH
fd_sim c1 POST /admin/faults '{"rules":[{"action":"latency","ms":20000,"method":"PATCH","path":"/redfish/v1/Fabrics*"}]}' >/dev/null
s_compose 1
[ "$att_ms" -ge 20000 ] || t_fail "the attach took $att_ms ms: the 20 s latency did not apply"
t_ok "20 s per PATCH, Timeout=$FD_CHASSIS_TIMEOUT${change:+ $change}: 4 GPUs attached in $att_ms ms, detached in $det_ms ms"

# -- (b) attach and detach as 30 s tasks
fd_sim c1 POST /admin/faults '{"tasks":{"attach":true,"detach":true,"ms":30000}}' >/dev/null
s_compose 2
[ "$att_ms" -ge 30000 ] || t_fail "the attach took $att_ms ms: no 30 s task"
t_ok "30 s tasks: 4 GPUs attached in $att_ms ms, detached in $det_ms ms"

# -- (c) a ChangeTimeout= too short for the chassis is named
fd_sim c1 POST /admin/faults '{}' >/dev/null
fd_stop_falcond
sed -i 's/^ChassisName=.*/& ChangeTimeout=3/' "$FALCON_CONF"
fd_start_falcond
fd_sim c1 POST /admin/faults '{"rules":[{"action":"latency","ms":8000,"count":1,"method":"PATCH","path":"/redfish/v1/Fabrics*"}]}' >/dev/null
if "$FALCONCTL" attach --job 3 --host node1 --gpus 4 --json >"$t_tmp/att-3.json" \
	2>"$t_tmp/att-3.err"; then
	"$FALCONCTL" detach --job 3 || true
	t_fail "the compose succeeded through a PATCH of 8 s with ChangeTimeout=3"
fi
grep -q 'chassis_timeout: chassis c1: PATCH .*ChangeTimeout=3 s' "$t_tmp/att-3.err" ||
	t_fail "falconctl's error does not name the key: $(cat "$t_tmp/att-3.err")"
line=$(grep 'chassis c1: PATCH .*no answer within ChangeTimeout=3 s .*gave up after [0-9]* ms' \
	"$t_tmp/falcond.log" | head -n 1)
[ -n "$line" ] || t_fail "falcond's log names no key: $(tail -n 5 "$t_tmp/falcond.log")"
fd_sim c1 POST /admin/faults '{}' >/dev/null
[ "$(fd_call GET /v1/status '')" = 200 ] || t_fail "status: $(cat "$t_tmp/out")"
[ "$(fd_json 'len([l for l in j["leases"] if l["job_id"] == 3])')" = 0 ] ||
	t_fail "job 3 has a lease: $(cat "$t_tmp/out")"
t_ok "ChangeTimeout=3 against an 8 s PATCH: refused, named: $line"
