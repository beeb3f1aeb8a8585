#!/bin/sh
# slurm-batchstart.sh - a node prolog that runs long (falcon-prolog waiting
# for a falcond that restarts: 57 s in the soak) must not get its job
# requeued as NODE_FAIL.  The node prolog runs with the job RUNNING; a node
# registration that comes while it has run longer than slurm.conf's
# BatchStartTimeout finds no batch step and slurmctld requeues the job
# ("Batch JobId=N missing from batch node", Slurm 22.05 job_mgr.c
# _purge_missing_jobs).  examples/slurm.conf.in sets BatchStartTimeout to
# PrologEpilogTimeout.  Here a stand-in prolog sleeps 40 s and `scontrol
# reconfigure` makes slurmd register 30 s into it; the job must COMPLETE.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/slurm-lib.sh"
s_need_slurm

cat >"$t_tmp/prolog" <<PROLOG
#!/bin/sh
touch "$t_tmp/prolog-started"
sleep 40
touch "$t_tmp/prolog-done"
PROLOG
chmod 0755 "$t_tmp/prolog"
s_start --prolog "$t_tmp/prolog" --prolog-timeout 120
bst=$(scontrol show config | sed -n 's/^BatchStartTimeout *= *\([0-9]*\).*/\1/p')
[ "${bst:-0}" -ge 120 ] || t_fail "BatchStartTimeout is ${bst:-unset} s, expected PrologEpilogTimeout (120)"

jid=$(sbatch --parsable -o /dev/null --wrap "true") || t_fail "sbatch failed"
wait_for 60 "the prolog of job $jid to start" test -e "$t_tmp/prolog-started" ||
	{ s_logs; t_fail "the prolog did not start"; }
sleep 30 # BatchStartTimeout's default (10 s) + MessageTimeout's share (10 s) passed
scontrol reconfigure || t_fail "scontrol reconfigure failed"
wait_for 90 "job $jid to end" s_in_state "$jid" COMPLETED FAILED CANCELLED NODE_FAIL ||
	{ s_logs; t_fail "job $jid is '$s_st' after 90 s"; }
[ -e "$t_tmp/prolog-done" ] || t_fail "the prolog did not finish"
if grep -q "JobId=$jid missing from batch node" "$s_state"/log/slurmctld.log; then
	grep "JobId=$jid" "$s_state"/log/slurmctld.log >&2
	t_fail "job $jid was taken for missing during its prolog (state $s_st)"
fi
[ "$s_st" = COMPLETED ] || { s_logs; t_fail "job $jid ended $s_st, expected COMPLETED"; }
t_ok "a 40 s node prolog across a node registration: job $jid COMPLETED"
