#!/bin/sh
# falcond-faults.sh - compose/decompose cycles (FALCOND_CYCLES, default 50;
# `make soak` runs 1000) with falcon-sim faults injected at every step
# (5xx, dropped connections, timeouts on inventory, attach and detach; a
# device that refuses to detach).  After each cycle: 0 leaked, 0 double
# assigned; every failure ends rolled back or quarantined with a reason.
# First, two fixed scenarios: a reconcile whose own detach fails (503: may
# land late) does not kick the next pass at once; and fd_invariants is not
# fooled by a reconcile that runs between its read of the chassis and its
# read of the ledger (it detaches a quarantined device, then clears its
# quarantine in the file).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/falcond-lib.sh"
fd_need
FD_CHASSIS_TIMEOUT=1
fd_setup
"$FALCONCTL" attach --job 100000 --host node2 --gpus 1 >/dev/null || t_fail "scenario: attach"
fd_sim c1 POST /admin/faults \
	'{"rules":[{"action":"error","method":"PATCH","path":"/redfish/v1/*","count":-1}]}' >/dev/null
"$FALCONCTL" detach --job 100000 >/dev/null 2>&1 || true
q=$(fd_ledger | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["quarantine"]))')
[ "$q" = 1 ] || t_fail "scenario: a detach answered 503 should quarantine the device ($q)"
"$FALCONCTL" reconcile >/dev/null 2>&1 || true
# before the fix every pass kicked the next: some hundred passes a second
sleep 2
passes=$(grep -c 'without a lease; detaching' "$t_tmp/falcond.log")
[ "$passes" -le 2 ] || t_fail "scenario: $passes reconcile passes after one asked, 1 expected (2 if the periodic one fell in)"
fd_sim c1 POST /admin/faults '{}' >/dev/null
# the device is attached and quarantined; a reconcile between the two reads
# detaches it and clears the quarantine (curl wraps fd_sim's)
touch "$t_tmp/between"
curl() {
	command curl "$@" || return
	case "$*" in */admin/state*) ;; *) return 0 ;; esac
	[ -e "$t_tmp/between" ] || return 0
	rm -f "$t_tmp/between"
	"$FALCONCTL" reconcile >/dev/null 2>&1 || true
}
fd_invariants >"$t_tmp/inv" || { cat "$t_tmp/inv"; t_fail "scenario: reconcile between the reads"; }
[ ! -e "$t_tmp/between" ] || t_fail "scenario: the reconcile did not run between the reads"
grep -q 'attached=0 quarantined=0' "$t_tmp/inv" || t_fail "scenario: not healed: $(cat "$t_tmp/inv")"
unset -f curl
# quar - the devices the ledger has quarantined
quar() {
	fd_ledger | python3 -c 'import json,sys; print(" ".join(x["device"] for x in json.load(sys.stdin)["quarantine"]))'
}
cycles=${FALCOND_CYCLES:-50}
ok=0 failed=0 quarantined=0 dfail=0 i=0
while [ $i -lt "$cycles" ]; do
	i=$((i + 1))
	set -- error drop timeout error
	shift $(fd_rand 4); action=$1
	set -- PATCH GET PATCH ""
	shift $(fd_rand 4); method=$1
	skip=$(fd_rand 3)
	rule="{\"action\":\"$action\",\"method\":\"$method\",\"path\":\"/redfish/v1/*\",\"count\":$(($(fd_rand 2) + 1))}"
	refuse=""
	[ $(fd_rand 8) = 0 ] && refuse="\"refuse_detach\":[\"drawer$(($(fd_rand 2) + 1))_slot$(($(fd_rand 4) + 1))\"],"
	# faults land on the compose or on the decompose that follows
	faults="{${refuse}\"rules\":[$rule]}"
	[ $skip = 0 ] && fd_sim c1 POST /admin/faults "$faults" >/dev/null
	set -- node1 node2 node3; shift $((i % 3)); host=$1
	if "$FALCONCTL" attach --job $i --host $host --gpus $((i % 2 + 1)) --json >/dev/null 2>&1; then
		ok=$((ok + 1))
	else
		failed=$((failed + 1))
	fi
	[ $skip = 1 ] && fd_sim c1 POST /admin/faults "$faults" >/dev/null
	"$FALCONCTL" detach --job $i >/dev/null 2>&1 || dfail=$((dfail + 1))
	fd_sim c1 POST /admin/faults '{}' >/dev/null
	fd_invariants >"$t_tmp/inv" || { cat "$t_tmp/inv"; t_fail "cycle $i ($faults)"; }
	# every ten cycles an admin clears the quarantine and reconciles
	if [ $((i % 10)) = 0 ]; then
		for d in $(quar); do
			quarantined=$((quarantined + 1))
			# (a reconcile of falcond's own may clear it meanwhile)
			"$FALCONCTL" unquarantine c1 "$d" >/dev/null 2>&1 ||
				case " $(quar) " in *" $d "*) t_fail "unquarantine $d" ;; esac
		done
		"$FALCONCTL" reconcile >/dev/null 2>&1 || true
		fd_invariants >/dev/null || t_fail "after reconcile at cycle $i"
	fi
done
"$FALCONCTL" reconcile >/dev/null 2>&1 || true
fd_invariants > "$t_tmp/inv" || { cat "$t_tmp/inv"; t_fail "final"; }
leaked=$(sed -n 's/.*leaked=\([0-9]*\).*/\1/p' "$t_tmp/inv")
double=$(sed -n 's/.*double_assigned=\([0-9]*\).*/\1/p' "$t_tmp/inv")
echo "fault test: $cycles cycles, $ok composed, $failed compose failures (rolled back), $dfail decompose errors, $quarantined quarantined devices cleared, $leaked leaked, $double double-assigned"
grep -c 'quarantined' "$t_tmp/falcond.log" >/dev/null || true
exit 0
