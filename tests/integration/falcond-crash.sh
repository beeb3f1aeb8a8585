#!/bin/sh
# falcond-crash.sh - SIGKILL falcond at random points during compose and
# decompose cycles (FALCOND_CYCLES, default 50; `make soak` runs 500),
# restart it (it reconciles at start) and check after every restart: no
# device attached without a lease, none in two leases, every acknowledged
# lease present.  Prints the counts.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/falcond-lib.sh"
fd_need
fd_setup
cycles=${FALCOND_CYCLES:-50}
acked=$t_tmp/acked      # "LEASE JOB" of acknowledged, not yet released leases
: > "$acked"
hosts="node1 node2 node3"
kills=0 composed=0 released=0 refused=0 i=0
while [ $i -lt "$cycles" ]; do
	i=$((i + 1))
	job=$i
	set -- $hosts; shift $((i % 3)); host=${1:-node1}
	n=$((i % 2 + 1))
	kill_now=$(fd_rand 4)           # one cycle in four kills falcond
	"$FALCONCTL" attach --job $job --host $host --gpus $n --json > "$t_tmp/a.$i" 2>/dev/null &
	cpid=$!
	if [ $kill_now = 0 ]; then
		sleep "0.0$(fd_rand 30)"
		kill -KILL $FD_PID 2>/dev/null; wait $FD_PID 2>/dev/null || true
		kills=$((kills + 1))
	fi
	if wait $cpid; then
		id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$t_tmp/a.$i")
		echo "$id $job" >> "$acked"
		composed=$((composed + 1))
	else
		refused=$((refused + 1))
	fi
	[ $kill_now = 0 ] && { fd_start_falcond; fd_invariants "$acked" >/dev/null || {
		fd_invariants "$acked"; t_fail "cycle $i: invariants broken after restart"; }; }
	# release an acknowledged lease, sometimes killing falcond meanwhile
	if [ -s "$acked" ] && { [ $(fd_rand 3) != 0 ] || [ $(wc -l < "$acked") -ge 3 ]; }; then
		line=$(head -n 1 "$acked"); sed -i 1d "$acked"
		set -- $line
		"$FALCONCTL" detach --job "$2" 2>/dev/null &
		dpid=$!
		if [ $(fd_rand 4) = 0 ]; then
			sleep "0.0$(fd_rand 30)"
			kill -KILL $FD_PID 2>/dev/null; wait $FD_PID 2>/dev/null || true
			kills=$((kills + 1))
			wait $dpid || true
			fd_start_falcond
			# not acknowledged: the lease may or may not be gone; finish it
			"$FALCONCTL" detach --job "$2" 2>/dev/null || true
			fd_invariants "$acked" >/dev/null || { fd_invariants "$acked"; t_fail "cycle $i"; }
		else
			wait $dpid || t_fail "cycle $i: detach of job $2 failed"
		fi
		released=$((released + 1))
	fi
done
# the end: restart once more and check everything
fd_stop_falcond -KILL
fd_start_falcond
echo "crash test: $cycles cycles, $kills SIGKILLs, $composed composes acknowledged, $released released, $refused refused or cut off"
fd_invariants "$acked" || t_fail "final invariants"
exit 0
