#!/bin/sh
# slurm-interactive.sh - interactive jobs (salloc, srun) with falcon-prolog
# as PrologSlurmctld (issue 32), on a real single-node cluster with the
# quickstart's bounds: ComposeWait 90 s (falcon.conf's default, as
# examples/falcon.conf), PrologEpilogTimeout 120 s (cluster.sh's default,
# as the quickstart), Slurm's default SuspendTimeout/ResumeTimeout.
# falcond is stopped; an salloc asking 6 of the chassis' 8 GPUs and an srun
# asking 4 wait CONFIGURING, each told on its terminal why ("falcon: job N
# waits for its devices: falcond_unreachable"); falcond comes back after
# 100 s, past ComposeWait (a batch job would have been requeued, and an
# interactive one, which Slurm cannot requeue, was killed there):
#  - one of them gets its GPUs and runs;
#  - the other finds the pool short and, at its bound (PrologEpilogTimeout
#    less 10 s = 110 s), is killed, its terminal reading falcon's reason
#    ("falcon: job N cancelled: ... pool_short ..."), its tag
#    falcon:cancelled=pool_short, never falcon:requeued=;
#  - the node is never drained and the pool ends clean.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/slurm-lib.sh"
. "$top_srcdir/tests/integration/prolog-lib.sh"
fp_slurm_node
fp_setup
grep -q "^ComposeWait" "$FALCON_CONF" && t_fail "falcon.conf sets ComposeWait: the test is of the default"
fp_slurmctld_wrapper
fp_slurm_start --prolog-slurmctld "$t_tmp/prolog-slurmctld.sh"
fp_falcond_with_slurm
pet=$(scontrol show config | sed -n 's/^PrologEpilogTimeout *= *\([0-9]*\).*/\1/p')
[ "$pet" = 120 ] || t_fail "PrologEpilogTimeout is '$pet', the quickstart's is 120"

fd_stop_falcond
t0=$(date +%s)
salloc --gres=falcon_gpu:6 sh -c 'echo "got $SLURM_JOB_ID"; sleep 200' \
	>"$t_tmp/salloc.out" 2>"$t_tmp/salloc.err" &
salloc_pid=$!
sleep 2
srun --gres=falcon_gpu:4 sh -c 'echo "got $SLURM_JOB_ID"; sleep 200' \
	>"$t_tmp/srun.out" 2>"$t_tmp/srun.err" &
srun_pid=$!
t_on_exit "kill $salloc_pid $srun_pid 2>/dev/null || true"

# told_waiting FILE - the client's stderr has falcon's waiting reason
told_waiting() { grep -q "falcon: job [0-9]* waits for its devices: falcond_unreachable" "$1"; }
wait_for 60 "salloc to be told why it waits" told_waiting "$t_tmp/salloc.err" ||
	{ tail -n 5 "$t_tmp/slurm-prolog-slurmctld.log" >&2; t_fail "salloc's stderr: $(cat "$t_tmp/salloc.err")"; }
wait_for 60 "srun to be told why it waits" told_waiting "$t_tmp/srun.err" ||
	t_fail "srun's stderr: $(cat "$t_tmp/srun.err")"
grep -q "interactive (salloc/srun): waits up to 110 s" "$t_tmp/slurm-prolog-slurmctld.log" ||
	t_fail "the prolog's bound: $(grep -i 'waits up to' "$t_tmp/slurm-prolog-slurmctld.log")"
t_ok "falcond down: salloc and srun wait, told so: $(grep -h 'falcon:' "$t_tmp/salloc.err" | head -1)"

# falcond back after 100 s: past ComposeWait
sleep $((100 - ($(date +%s) - t0)))
fp_not_drained
FD_NO_SLURM= fd_start_falcond
has_got() { grep -q '^got ' "$t_tmp/$1.out"; }
ran_one() { has_got salloc || has_got srun; }
wait_for 60 "salloc or srun to run" ran_one ||
	{ tail -n 20 "$t_tmp/slurm-prolog-slurmctld.log" >&2; cat "$t_tmp"/*.err >&2; t_fail "neither ran"; }
if has_got salloc; then won=salloc; lost=srun; lost_pid=$srun_pid; else won=srun; lost=salloc; lost_pid=$salloc_pid; fi
jw=$(sed -n 's/^got //p' "$t_tmp/$won.out")
t_ok "falcond back at $(($(date +%s) - t0)) s: $won (job $jw) got its GPUs and runs"

# the other: pool short until its bound, then killed with falcon's reason
wait_for 60 "$lost to end" sh -c "! kill -0 $lost_pid" ||
	t_fail "$lost still runs at $(($(date +%s) - t0)) s: $(cat "$t_tmp/$lost.err")"
grep -q "falcon: job [0-9]* cancelled: no devices within 110 s: pool_short" "$t_tmp/$lost.err" ||
	{ tail -n 20 "$t_tmp/slurm-prolog-slurmctld.log" >&2; t_fail "$lost's stderr: $(cat "$t_tmp/$lost.err")"; }
jl=$(sed -n 's/.*falcon: job \([0-9]*\) cancelled.*/\1/p' "$t_tmp/$lost.err" | head -1)
! has_got "$lost" || t_fail "$lost ran: $(cat "$t_tmp/$lost.out")"
wait_for 30 "job $jl's tag" sh -c "sacct -n -X -P -j $jl -o AdminComment | grep -q 'falcon:cancelled=pool_short'" ||
	t_fail "job $jl's tag: '$(sacct -n -X -P -j "$jl" -o AdminComment)'"
sacct -n -X -P -j "$jl" -o AdminComment | grep -q 'requeued=' &&
	t_fail "job $jl's tag says requeued: $(sacct -n -X -P -j "$jl" -o AdminComment)"
fp_not_drained
t_ok "$lost (job $jl) killed at its bound, told: $(grep -h 'cancelled' "$t_tmp/$lost.err" | head -1 | cut -c1-160)"

scancel "$jw"
s_wait_done "$jw"
fp_wait_pool_clean 60
fp_not_drained
t_ok "pool clean, node never drained"
