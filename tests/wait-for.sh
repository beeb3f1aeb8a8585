#!/bin/sh
# tests/wait-for.sh - scripts/lib.sh's wait_for, which every test and
# scripts/cluster.sh and the quickstart wait with:
#   1. a condition that never holds: wait_for returns 1 and says "gave up
#      waiting for WHAT after N s", and only once it has slept N s (tries
#      every 0.2 s for the first 2 s, then every 0.5 s: 12 to 25 tries
#      for 6 s, where 0.2 s for all of it would be 30);
#   2. a condition that comes true meanwhile (a file made 3 s later, after
#      the back-off began): wait_for returns 0, and the variables the
#      condition sets are seen after it;
#   3. -p PID of a process that has ended: returns 1 at once ("process PID
#      ended"), not after the bound;
#   4. a try that itself takes longer than the bound (a loaded machine):
#      still at least one more try, not a give-up counted in wall time.
# Slurm-free: the host lane only.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
: "${top_srcdir:=.}"
. "$top_srcdir/tests/lib.sh"

# count_try - a condition that never holds and counts its tries
tries=0
count_try() { tries=$((tries + 1)); return 1; }

# 1. never
t0=$(date +%s)
if wait_for 6 "the never-made thing" count_try 2>"$t_tmp/err"; then
	t_fail "1: wait_for returned 0 for a condition that never holds"
fi
t1=$(date +%s)
grep -q 'gave up waiting for the never-made thing after 6 s' "$t_tmp/err" ||
	t_fail "1: wait_for's message: $(cat "$t_tmp/err")"
[ $((t1 - t0)) -ge 6 ] || t_fail "1: gave up after $((t1 - t0)) s, before its 6 s"
[ "$tries" -ge 12 ] && [ "$tries" -le 25 ] ||
	t_fail "1: $tries tries in 6 s (12 to 25 expected: every 0.2 s for 2 s, then every 0.5 s; 30 at 0.2 s throughout)"
t_ok "1: gave up after $((t1 - t0)) s and $tries tries, with the message"

# 2. comes true after 3 s
rm -f "$t_tmp/flag"
(sleep 3; : >"$t_tmp/flag") &
seen=""
made() { [ -e "$t_tmp/flag" ] && seen=yes; }
wait_for 20 "the flag file" made || t_fail "2: wait_for gave up on a file made after 3 s"
[ "$seen" = yes ] || t_fail "2: the condition's variable is not seen after wait_for"
wait
t_ok "2: a file made after 3 s is seen, the condition's variable too"

# 3. -p of an ended process
sh -c 'exit 0' &
gone=$!
wait $gone
t0=$(date +%s)
if wait_for -p "$gone" 30 "the ended process's work" false 2>"$t_tmp/err"; then
	t_fail "3: wait_for -p returned 0"
fi
grep -q "process $gone ended" "$t_tmp/err" || t_fail "3: wait_for -p's message: $(cat "$t_tmp/err")"
[ $(($(date +%s) - t0)) -lt 30 ] || t_fail "3: wait_for -p waited out its bound for an ended process"
t_ok "3: -p of an ended process gives up at once"

# 4. a try slower than the bound: the bound is the time slept
tries=0
slow_try() { tries=$((tries + 1)); sleep 2; return 1; }
wait_for 1 "a slow condition" slow_try 2>/dev/null && t_fail "4: wait_for returned 0"
[ "$tries" -ge 2 ] || t_fail "4: $tries try of 2 s with a bound of 1 s: the bound is not the wall time"
t_ok "4: a 2 s try under a 1 s bound is tried $tries times"
