#!/bin/sh
# tests/integration/slurm-cluster.sh - scripts/cluster.sh on the real
# daemons: start (twice: idempotent), status, env, accounting through
# slurmdbd (AdminComment set while a job runs shows in sacct), a license
# pool that makes a job pend, and a clean stop.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/slurm-lib.sh"
s_need_slurm

s_start --license falcon1:16
t_ok "cluster started"

# A second start changes nothing and leaves the same daemons running.
before=$("$top_srcdir/scripts/cluster.sh" status "$s_state")
"$top_srcdir/scripts/cluster.sh" start "$s_state" >/dev/null 2>&1 ||
	t_fail "second start failed"
after=$("$top_srcdir/scripts/cluster.sh" status "$s_state")
[ "$before" = "$after" ] || t_fail "second start restarted daemons: $before / $after"
t_ok "start is idempotent"

[ "$("$top_srcdir/scripts/cluster.sh" env "$s_state")" = "SLURM_CONF=$SLURM_CONF" ] ||
	t_fail "env does not print SLURM_CONF"
grep -q "^SlurmctldPort=" "$SLURM_CONF" || t_fail "no SlurmctldPort in $SLURM_CONF"
sacctmgr -n -P list assoc user=root account=falcon format=user | grep -qx root ||
	t_fail "root has no association in account falcon"
sinfo -h -o '%G' | grep -q 'falcon_gpu:16' || t_fail "node lacks Gres=falcon_gpu:16"
t_ok "status, env, sacctmgr, GRES"

# Accounting: AdminComment set while the job runs reaches sacct through
# slurmdbd (slurmctld sends it with the job's end record).
jid=$(sbatch --parsable --gres=falcon_gpu:4 -L falcon1:4 -o /dev/null --wrap 'sleep 300')
s_wait_state "$jid" RUNNING
tag="falcon:topo=falconGPUs,l=0,f=4,check=pass"
scontrol update job="$jid" AdminComment="$tag" || t_fail "scontrol update AdminComment"
scontrol show job "$jid" | grep -q "AdminComment=$tag" || t_fail "AdminComment not set"

# The pool holds 16: with 4 taken, 13 more pend for Licenses; more than the
# pool ever holds is refused at submit.
jid2=$(sbatch --parsable -L falcon1:13 -o /dev/null --wrap true)
s_wait_state "$jid2" PENDING
i=0
until [ "$(squeue -h -j "$jid2" -o %r)" = Licenses ]; do
	i=$((i + 1))
	[ $i -lt 150 ] || t_fail "job $jid2 pends for '$(squeue -h -j "$jid2" -o %r)', not Licenses"
	sleep 0.2
done
t_ok "license request over the free pool pends (Reason=Licenses)"
if out=$(sbatch -L falcon1:17 --wrap true 2>&1); then
	t_fail "sbatch -L falcon1:17 over a pool of 16 was accepted: $out"
fi
t_ok "license request over the pool refused: $out"

scancel "$jid"
s_wait_done "$jid"
s_wait_done "$jid2"
[ "$(s_job_state "$jid2")" = COMPLETED ] || t_fail "job $jid2 did not run once licenses were free: $(s_job_state "$jid2")"
t_ok "pending job ran once the licenses were back"

i=0
until sacct -n -X -P -j "$jid" -o JobID,AllocTRES,AdminComment | grep -q "$tag"; do
	i=$((i + 1))
	[ $i -lt 150 ] || { sacct -j "$jid" -o JobID,AllocTRES%60,AdminComment%60; s_logs
		t_fail "AdminComment of job $jid not in sacct"; }
	sleep 0.2
done
line=$(sacct -n -X -P -j "$jid" -o JobID,AllocTRES,AdminComment)
case $line in
*gres/falcon_gpu=4*license/falcon1=4*) ;;
*) t_fail "sacct AllocTRES lacks gres/falcon_gpu=4 and license/falcon1=4: $line" ;;
esac
t_ok "sacct -o JobID,AllocTRES,AdminComment: $line"

# Stop: every daemon gone, nothing left running from the state directory,
# not even the slurmstepd of a job still running (a failed test's jobs left
# theirs behind, for hours, before cluster.sh stop killed them)
jrun=$(sbatch --parsable -o /dev/null --wrap 'sleep 300')
s_wait_state "$jrun" RUNNING
"$top_srcdir/scripts/cluster.sh" stop "$s_state" >/dev/null 2>&1 || t_fail "stop failed"
# ours: our SLURM_CONF in its environment, or a file of the state
# directory open (slurmstepd's title overwrites what /proc shows of its
# environment on 24.11 and 26.05); the stepd may come up to seconds late
sleep 3
for p in $(pgrep -f '^slurmstepd:|^sleep 300$'); do
	if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qxF "SLURM_CONF=$SLURM_CONF" ||
		ls -l "/proc/$p/fd/" 2>/dev/null | grep -qF -- "-> $s_state/"; then
		t_fail "process $p ($(tr '\0' ' ' <"/proc/$p/cmdline")) of job $jrun outlived stop"
	fi
done
if "$top_srcdir/scripts/cluster.sh" status "$s_state" | grep -q running; then
	t_fail "daemons still running after stop"
fi
for p in /proc/[0-9]*; do
	if { tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null | grep -q -- "$s_state/"; then
		t_fail "process $(basename "$p") still runs from $s_state"
	fi
done
t_ok "clean stop"
