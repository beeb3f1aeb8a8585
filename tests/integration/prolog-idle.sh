#!/bin/sh
# prolog-idle.sh - falcon-prolog and falcon-epilog (as slurmd runs them,
# --no-slurm) for a falconGPUs job, 20 times without and 20 times under
# 2,000 idle + slowloris connections to falcond from 32 other addresses
# (falcond-attack.py): every prolog and epilog succeeds; p50/p99 of the
# prolog with and without, and their ratio, are printed (goal within 2x;
# printed, not asserted).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/prolog-lib.sh"
fp_need
python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.33", 0))' 2>/dev/null ||
	t_skip "cannot bind 127.0.0.2-33"
fp_setup
ROUNDS=${PROLOG_IDLE_ROUNDS:-20}
IDLE=${FALCOND_IDLE_CONNS:-2000}

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# jobs FIRST FILE - ROUNDS prolog+epilog pairs from job FIRST on; each
# prolog's ms in FILE
jobs() {
	: > "$2"
	j=$1
	while [ $j -lt $(($1 + ROUNDS)) ]; do
		t0=$(now_ms)
		fp_prolog $j "gres/falcon_gpu:2"
		t1=$(now_ms)
		[ $FP_RC = 0 ] || t_fail "prolog job $j: rc $FP_RC: $(tail -n 3 "$t_tmp/prolog-$j.log")"
		echo $((t1 - t0)) >> "$2"
		fp_epilog $j
		[ $FP_RC = 0 ] || t_fail "epilog job $j: rc $FP_RC: $(tail -n 3 "$t_tmp/epilog-$j.log")"
		j=$((j + 1))
	done
}

pct() {
	python3 -c 'import sys
v = sorted(float(x) for x in open(sys.argv[1]))
p = lambda q: v[min(len(v) - 1, int(round(q / 100.0 * (len(v) - 1))))]
print("%.0f %.0f" % (p(50), p(99)))' "$1"
}

jobs 1000 "$t_tmp/base"
set -- $(pct "$t_tmp/base"); b50=$1 b99=$2
echo "prolog without attack: p50 $b50 ms, p99 $b99 ms ($ROUNDS jobs)"

fd_attack "$FD_PORT" "$IDLE" 32 60
held=$(ss -Htn state established "( sport = :$FD_PORT )" 2>/dev/null | wc -l)
jobs 2000 "$t_tmp/attacked"
set -- $(pct "$t_tmp/attacked"); a50=$1 a99=$2
echo "prolog under $IDLE idle + slowloris connections ($held held by falcond): p50 $a50 ms, p99 $a99 ms ($ROUNDS jobs)"
touch "$t_tmp/stop"
wait $APID 2>/dev/null || true
python3 -c 'import sys; print("prolog p99 ratio under the attack / without: %.2fx (goal within 2x)" % (float(sys.argv[2]) / float(sys.argv[1])))' "$b99" "$a99"
fp_pool_clean
t_ok "every prolog and epilog served under $IDLE idle connections"
exit 0
