#!/bin/sh
# slurm-preempt.sh - preemption with composed devices (issue 32), on a real
# single-node cluster with job_submit_falcon (the pool as licenses
# c1_gpu:8,c1_nvme:1), falcon-prolog/epilog, falcond, and cluster.sh
# --preempt REQUEUE: PreemptType=preempt/partition_prio, the partition
# "urgent" (PriorityTier=10) over the same node, and on Slurm 23.02+
# PreemptParameters=reclaim_licenses.  A job of partition debug holds the
# chassis' 8 GPUs; a job of urgent asking for 4 of them preempts it: the
# low job is requeued (not cancelled, not drained), its epilog gives its 8
# GPUs back, the urgent job runs with 4 composed for it; once the urgent
# job ends the low job runs again with 8; while it pends its tag is
# falcon:released (no stale topology), and it never says falcon requeued
# it (preemption is Slurm's, not a falcon cause).  Slurm 22.05 has
# no reclaim_licenses (23.02.0rc1 NEWS) and rejects the key: a job waiting
# for pool licenses there never preempts, and the test is skipped saying so
# (doc/ADMIN.md, "Preemption").
# With PREEMPT_PATCH_MS set (slurm-preempt-slow.sh) the same runs as the
# quickstart runs it (falcon-prolog also as PrologSlurmctld=, the budgets of
# examples/falcon-demo.conf.in) against a chassis taking that long for each
# zone PATCH: the preempted job's epilog detaches its 8 GPUs slowly while
# the urgent job's compose waits for them.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/slurm-lib.sh"
. "$top_srcdir/tests/integration/prolog-lib.sh"
fp_slurm_node
s_need_job_submit
ver=$(slurmctld -V | awk '{print $2}')
case $ver in
2[0-2].*|23.0[01].*)
	t_skip "Slurm $ver has no PreemptParameters=reclaim_licenses (23.02+): a job waiting for pool licenses cannot preempt there" ;;
esac
fp_setup "ReconcileInterval=5"
slow=${PREEMPT_PATCH_MS:-0}
# liveness bounds (not timings): a slow chassis adds a detach and an
# attach to each start
b=0
if [ "$slow" != 0 ]; then
	fp_demo_budgets
	fp_slurmctld_wrapper
	set -- --prolog-slurmctld "$t_tmp/prolog-slurmctld.sh"
	b=$((4 * slow / 1000))
else
	set --
fi
fp_slurm_start --license c1_gpu:8,c1_nvme:1 --job-submit "$plugin_dir" \
	--falcon-conf "$FALCON_CONF" --preempt REQUEUE "$@"
fp_falcond_with_slurm
[ "$slow" = 0 ] || fd_sim c1 POST /admin/faults \
	'{"rules":[{"action":"latency","path":"/redfish/v1/Fabrics*","method":"PATCH","ms":'"$slow"'}]}' >/dev/null
grep -qx "PreemptParameters=reclaim_licenses" "$SLURM_CONF" ||
	t_fail "cluster.sh --preempt wrote no PreemptParameters=reclaim_licenses for Slurm $ver"

present() {
	fd_sim c1 GET /admin/state | python3 -c 'import json,sys
print(sum(1 for d in json.load(sys.stdin)["devices"] if d["present"] and d["type"] == "GPU"))'
}
present_is() { [ "$(present)" = "$1" ]; }
jf() { scontrol show job -o "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
logs() { tail -n 15 "$t_tmp/slurm-prolog.log" "$t_tmp/slurm-epilog.log" "$t_tmp/falcond.log" >&2 2>/dev/null || true; }

# -- the low job holds the chassis' 8 GPUs
jl=$(sbatch --parsable -p debug --requeue --gres=falcon_gpu:8 -o "$t_tmp/low.%j" \
	--wrap 'echo "run ${SLURM_RESTART_COUNT:-0}"; sleep 300') || t_fail "sbatch (low)"
s_wait_state "$jl" RUNNING
wait_for $((60 + b)) "job $jl's 8 GPUs on the bus" present_is 8 || { logs; t_fail "job $jl: $(present) GPUs"; }
[ "$(jf "$jl" Licenses)" = c1_gpu:8 ] || t_fail "job $jl licenses: $(jf "$jl" Licenses)"
t_ok "job $jl (debug) holds c1's 8 GPUs"

# -- the urgent job needs 4 of them: the low job is preempted (requeued)
t0=$(date +%s)
ju=$(sbatch --parsable -p urgent --gres=falcon_gpu:4 -o "$t_tmp/urgent.%j" \
	--wrap 'echo urgent; sleep 15') || t_fail "sbatch (urgent)"
wait_for $((90 + b)) "job $ju to run" s_in_state "$ju" RUNNING COMPLETED ||
	{ logs; s_logs; t_fail "job $ju: $s_st, reason $(squeue -h -j "$ju" -o %r); job $jl: $(s_job_state "$jl")"; }
[ "$(jf "$jl" Restarts)" -ge 1 ] 2>/dev/null ||
	t_fail "job $jl: $(s_job_state "$jl"), Restarts=$(jf "$jl" Restarts): not requeued by the preemption"
case $(s_job_state "$jl") in
PENDING|REQUEUED|REQUEUE_HOLD|REQUEUE_FED) ;;
*) t_fail "job $jl: $(s_job_state "$jl") after its preemption, expected requeued" ;;
esac
wait_for $((60 + b)) "job $ju's 4 GPUs on the bus" present_is 4 || { logs; t_fail "job $ju: $(present) GPUs"; }
admin() { scontrol show job "$1" 2>/dev/null | sed -n 's/^ *AdminComment=//p'; }
case $(admin "$jl") in
*falcon:released*) ;;
*) t_fail "job $jl, preempted and pending: tag '$(admin "$jl")', expected falcon:released" ;;
esac
t_ok "job $ju (urgent) preempted job $jl (requeued, Restarts=$(jf "$jl" Restarts)) and runs with 4 GPUs, $(($(date +%s) - t0)) s after its submit (chassis: ${slow} ms a PATCH)"

# -- the urgent job ends; the low job runs again with 8, no falcon requeue tag
wait_for $((60 + b)) "job $ju to complete" s_in_state "$ju" COMPLETED FAILED CANCELLED NODE_FAIL ||
	t_fail "job $ju: $s_st"
[ "$s_st" = COMPLETED ] || { logs; t_fail "job $ju ended $s_st"; }
grep -qx urgent "$t_tmp/urgent.$ju" || t_fail "job $ju's output: $(cat "$t_tmp/urgent.$ju")"
tu=$(sacct -n -X -P -j "$ju" -o AdminComment)
case $tu in *falcon:topo=falconGPUs*f=4*) ;; *) t_fail "job $ju's tag: '$tu'" ;; esac
case $tu in *requeued=*) t_fail "job $ju was requeued by falcon: '$tu'" ;; esac
# a requeued job waits for its BeginTime (Slurm: requeue time + ~120 s)
wait_for $((200 + b)) "job $jl to run again" s_in_state "$jl" RUNNING ||
	{ logs; t_fail "job $jl: $s_st, reason $(squeue -h -j "$jl" -o %r)"; }
wait_for $((60 + b)) "job $jl's 8 GPUs on the bus again" present_is 8 || { logs; t_fail "job $jl: $(present) GPUs"; }
tl=$(scontrol show job "$jl" | sed -n 's/.*AdminComment=//p')
case $tl in *requeued=*) t_fail "job $jl's tag says falcon requeued it: '$tl'" ;; esac
q=$(sinfo -h -n "$FP_HOST" -o %T)
case $q in *drain*) t_fail "node $FP_HOST: $q" ;; esac
t_ok "job $jl runs again with 8 GPUs; tag '$tl'; node $q"

scancel "$jl"
s_wait_done "$jl"
fp_wait_pool_clean $((60 + b))
t_ok "pool clean"
