#!/bin/sh
# falcond-heal.sh - quarantines that heal without an administrator (issue
# 11): a device that refuses to detach (falcon-sim refuse_detach) at
# decompose is quarantined with "detach from PORT failed during ...";
# once the chassis lets it go, reconcile (ReconcileInterval=2) detaches it
# and, the chassis showing it free and healthy, clears the quarantine,
# with an "auto-cleared: ..." entry in history.jsonl.  An administrator's
# quarantine (falconctl quarantine) and a Critical device stay quarantined
# across the same reconciles until falconctl unquarantine; falconctl status
# says which clears by itself (CLEARS by-itself / admin).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/falcond-lib.sh"
fd_need
fd_setup "ReconcileInterval=2"
hist=$t_tmp/state/history.jsonl

# h_quar - the quarantined device ids of the ledger, sorted, space-separated.
h_quar() {
	fd_ledger | python3 -c 'import json,sys; print(" ".join(sorted(q["device"] for q in json.load(sys.stdin)["quarantine"])))'
}
h_quar_is() { [ "$(h_quar)" = "$1" ]; }
# h_runs - reconcile passes so far (GET /metrics).
h_runs() {
	curl -s "http://127.0.0.1:$FD_PORT/metrics" | sed -n 's/^falcond_reconcile_runs_total //p'
}
# h_two_passes - wait until two more reconciles ran (what must stay, stays).
h_two_passes() {
	h_n=$(($(h_runs) + 2))
	wait_for 30 "two reconcile passes" sh -c "[ \$(curl -s 'http://127.0.0.1:$FD_PORT/metrics' | sed -n 's/^falcond_reconcile_runs_total //p') -ge $h_n ]" ||
		t_fail "reconcile does not run: $(tail -n 3 "$t_tmp/falcond.log")"
}

# -- a lease whose device will not come off
"$FALCONCTL" attach --job 7 --host node1 --gpus 1 --json >"$t_tmp/attach.json" ||
	t_fail "attach: $(cat "$t_tmp/attach.json")"
dev=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["devices"][0]; print(d if isinstance(d, str) else d["id"])' "$t_tmp/attach.json") ||
	t_fail "attach answer: $(cat "$t_tmp/attach.json")"
fd_sim c1 POST /admin/faults "{\"refuse_detach\":[\"$dev\"]}" >/dev/null
"$FALCONCTL" detach --job 7 >"$t_tmp/detach.out" 2>&1 || true
h_quar_is "$dev" || t_fail "quarantine after a refused detach: '$(h_quar)'; $(cat "$t_tmp/detach.out")"
reason=$(fd_ledger | python3 -c 'import json,sys; print(json.load(sys.stdin)["quarantine"][0]["reason"])')
case $reason in "detach from "*" failed during "*) ;; *) t_fail "reason '$reason'" ;; esac
t_ok "$dev quarantined: '$reason'"

# -- an administrator's quarantine beside it (another device, free)
other=$(fd_sim c1 GET /admin/state | python3 -c '
import json, sys
print(sorted(d["id"] for d in json.load(sys.stdin)["devices"] if not d["owner"] and d["id"] != sys.argv[1])[0])' "$dev")
"$FALCONCTL" quarantine c1 "$other" --reason "admin: fan noise" >/dev/null ||
	t_fail "falconctl quarantine $other"
# still refused: two reconciles leave both
h_two_passes
h_quar_is "$(printf '%s\n%s\n' "$dev" "$other" | sort | tr '\n' ' ' | sed 's/ $//')" ||
	t_fail "while the chassis refuses: '$(h_quar)'"
"$FALCONCTL" status >"$t_tmp/status.txt" || t_fail "falconctl status"
grep -q "^CHASSIS *QUARANTINED *CLEARS *REASON" "$t_tmp/status.txt" || t_fail "$(cat "$t_tmp/status.txt")"
grep "^c1 *$dev *by-itself *detach from " "$t_tmp/status.txt" >/dev/null &&
	grep "^c1 *$other *admin *admin: fan noise" "$t_tmp/status.txt" >/dev/null ||
	t_fail "falconctl status: $(sed -n '/QUARANTINED/,$p' "$t_tmp/status.txt")"
t_ok "while the chassis refuses the detach, both stay quarantined; falconctl status: $(grep -c 'by-itself' "$t_tmp/status.txt") by-itself, $(grep -c ' admin ' "$t_tmp/status.txt") admin"

# -- the chassis lets go: reconcile detaches it and clears the quarantine
fd_sim c1 POST /admin/faults '{}' >/dev/null
wait_for 30 "reconcile to clear $dev" h_quar_is "$other" ||
	t_fail "quarantine '$(h_quar)'; falcond: $(tail -n 5 "$t_tmp/falcond.log")"
grep -q "reconcile: c1/$dev detached and healthy: quarantine cleared" "$t_tmp/falcond.log" ||
	t_fail "falcond log: $(grep reconcile "$t_tmp/falcond.log" | tail -5)"
h_hist() { grep "\"device\":\"$dev\"" "$hist" 2>/dev/null | grep -q '"auto-cleared: detach from '; }
wait_for 10 "the auto-clear in history.jsonl" h_hist || t_fail "history: $(cat "$hist")"
fd_sim c1 GET /admin/state | python3 -c '
import json, sys
d = [x for x in json.load(sys.stdin)["devices"] if x["id"] == sys.argv[1]][0]
sys.exit(1 if d["owner"] else 0)' "$dev" || t_fail "$dev still attached"
t_ok "$dev detached by reconcile, quarantine cleared, history: $(grep "\"device\":\"$dev\"" "$hist" | grep -o '"auto-cleared:[^"]*"')"

# -- a Critical device stays, as the admin's does
fd_sim c1 POST /admin/health "{\"device\":\"$dev\",\"health\":\"Critical\"}" >/dev/null
"$FALCONCTL" quarantine c1 "$dev" --reason "event ResourceEvent.1.4.ResourceStatusChangedCritical: Critical" >/dev/null ||
	t_fail "quarantine $dev"
fd_sim c1 POST /admin/health "{\"device\":\"$dev\",\"health\":\"OK\"}" >/dev/null
h_two_passes
h_quar_is "$(printf '%s\n%s\n' "$dev" "$other" | sort | tr '\n' ' ' | sed 's/ $//')" ||
	t_fail "after reconciles: '$(h_quar)'"
"$FALCONCTL" unquarantine c1 "$other" >/dev/null || t_fail "unquarantine $other"
"$FALCONCTL" unquarantine c1 "$dev" >/dev/null || t_fail "unquarantine $dev"
h_quar_is "" || t_fail "after unquarantine: '$(h_quar)'"
t_ok "an admin's and a Critical event's quarantine stay until falconctl unquarantine"
