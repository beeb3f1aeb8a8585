#!/bin/sh
# falcond-budget.sh - a compose's budget reaches the chassis client: on a
# chassis whose attaches run as 8 s tasks (DSP0266 sec. 12.2, falcon-sim's
# faults.tasks), a compose whose caller gives it 2 s (X-Falcon-Budget-Ms)
# cancels its task when the budget ends (DELETE on the task monitor: the
# task is Cancelled, nothing attached) and answers within about the budget,
# not after the task's 8 s or the client's 60 s task timeout; no lease is
# left.  Without the budget wired into the client it waits the task out.
# Root only (munged).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/falcond-lib.sh"
fd_need
fd_setup

fd_sim c1 POST /admin/faults '{"tasks":{"attach":true,"detach":true,"ms":8000}}' >/dev/null
b='{"job_id":11,"host":"node2","gpus":1}'
c=$(fd_cred POST /v1/compose "$b")
t0=$(date +%s%N)
code=$(curl -s -m 20 -o "$t_tmp/j11.out" -w '%{http_code}' -X POST -H "Authorization: Munge $c" \
	-H 'X-Falcon-Budget-Ms: 2000' -H 'Content-Type: application/json' --data-binary "$b" \
	"http://127.0.0.1:$FD_PORT/v1/compose") || true
t1=$(date +%s%N)
ms=$(( (t1 - t0) / 1000000 ))
[ "$code" != 200 ] || t_fail "the compose succeeded past its budget: $(cat "$t_tmp/j11.out")"
[ "$ms" -lt 6000 ] || t_fail "the compose answered after $ms ms, its budget 2000 ms (HTTP $code)"
tasks=$(fd_sim c1 GET /redfish/v1/TaskService/Tasks | python3 -c 'import json, sys
print(len(json.load(sys.stdin)["Members"]))')
[ "$tasks" -ge 1 ] || t_fail "no task was made"
states=$(for m in $(fd_sim c1 GET /redfish/v1/TaskService/Tasks | python3 -c 'import json, sys
print(" ".join(x["@odata.id"] for x in json.load(sys.stdin)["Members"]))'); do
	fd_sim c1 GET "$m" | python3 -c 'import json, sys; print(json.load(sys.stdin)["TaskState"])'
done | sort | uniq -c | tr -s ' ' | tr '\n' ';')
case $states in *Cancelled*) ;; *) t_fail "the attach task was not cancelled: $states" ;; esac
sleep 7 # past the task's 8 s: a task not cancelled would have attached by now
[ "$(fd_call GET /v1/status '')" = 200 ] || t_fail "status: $(cat "$t_tmp/out")"
[ "$(fd_json 'len([l for l in j["leases"] if l["job_id"] == 11])')" = 0 ] ||
	t_fail "job 11 has a lease: $(cat "$t_tmp/out")"
attached=$(fd_sim c1 GET /admin/state | python3 -c 'import json, sys
print(len([d for d in json.load(sys.stdin)["devices"] if d["owner"] is not None]))')
[ "$attached" = 0 ] || t_fail "$attached devices attached after the cancelled task"
t_ok "a 2 s budget against an 8 s attach task: answered HTTP $code in $ms ms, task Cancelled, nothing attached, no lease"
