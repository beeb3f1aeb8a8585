#!/bin/sh
# slurm-keepwarm-slow.sh - KeepWarm='s paths under a slow chassis (issue
# 41), on the quickstart's single-node cluster (falcon-prolog as
# PrologSlurmctld= and Prolog=, spank_falcon, job_submit_falcon and the
# pool as licenses, the budgets of examples/falcon-demo.conf.in, KeepWarm= as
# examples/falcon.conf gives its gpu partition), falcon-sim taking 20 s per
# zone PATCH (attach and detach), as make bench-warm's slow case:
#   (a) root's 8 GPUs kept in two leases; another user's job of 4 and a
#       job of root's of 4 start together: one keep is released for the
#       other user (a 20 s detach inside that job's compose), root's job
#       reuses the other with no chassis request; both COMPLETE and
#       neither is requeued by falcon (at these budgets one release and
#       one attach fit the other job's compose: without compose.c's
#       short-budget rule this still passes; that rule is reached where
#       the release waits behind other PATCHes, make bench-warm);
#   (b) a KeepWarmReset= program that exits 1 on devices kept for another
#       user: that job is requeued by falcon (the prolog's log naming the
#       program's exit), the kept
#       devices are detached (its rollback, 20 s) within the prolog's
#       budget, the node is not drained;
#   (c) one that outlives its 60 s: killed, the same;
#   (d) an interactive job (salloc, srun inside it) gets its GPUs through
#       a 20 s PATCH and its srun sees them;
#   (e) the chassis refuses (HTTP 500, once; then 5 s per PATCH) the
#       detach of a keep released for another user's job: that job still
#       runs, nothing is quarantined, the node is not drained.
# Each keep has a job of the same user waiting for it (a "waiter" held
# back by a dependency on a held job), as falcond keeps only then.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/slurm-lib.sh"
. "$top_srcdir/tests/integration/prolog-lib.sh"
fp_slurm_node
s_need_job_submit
s_need_spank
id nobody >/dev/null 2>&1 || t_skip "no user nobody"
keep=$(sed -n '/^[^#]/s/.*KeepWarm=\([0-9][0-9]*\).*/\1/p' "$top_srcdir/examples/falcon.conf" | head -n 1)
[ -n "$keep" ] || t_fail "examples/falcon.conf shows no KeepWarm="
fp_setup "PartitionName=debug KeepWarm=$keep"
# the quickstart's budgets in place of prolog-lib's
fp_demo_budgets
fp_slurmctld_wrapper
fp_slurm_start --prolog-slurmctld "$t_tmp/prolog-slurmctld.sh" --license c1_gpu:8,c1_nvme:1 \
	--spank "$plugin" --spank-args "conf=$FALCON_CONF" --job-submit "$plugin_dir" --falcon-conf "$FALCON_CONF"
fp_falcond_with_slurm
out=$t_tmp/out
mkdir -p "$out" && chmod 1777 "$out"
fd_sim c1 POST /admin/faults \
	'{"rules":[{"action":"latency","path":"/redfish/v1/Fabrics*","method":"PATCH","ms":20000}]}' >/dev/null

metric() { curl -s "http://127.0.0.1:$FD_PORT/metrics" | sed -n "s/^$1 //p"; }
kept() { metric 'falcond_kept_devices{chassis="c1"}'; }
kept_is() { [ "$(kept)" = "$1" ]; }
wait_kept() {
	wait_for 120 "$1 device(s) kept" kept_is "$1" ||
		{ tail -n 20 "$t_tmp/falcond.log" >&2; t_fail "kept: $(kept), $1 expected"; }
}
tag() { scontrol show job "$1" 2>/dev/null | sed -n 's/^ *AdminComment=//p'; }
# k_job USER NAME GRES - a batch job of USER printing its devices; id in $jid
k_job() {
	# shellcheck disable=SC2016 # expanded by the job's shell
	_w='echo "cvd=$CUDA_VISIBLE_DEVICES"; sleep 2'
	if [ "$1" = root ]; then
		jid=$(sbatch --parsable -o "$out/$2.%j" -w "$FP_HOST" --gres="$3" --wrap "$_w")
	else
		jid=$(runuser -u "$1" -- sbatch --parsable -o "$out/$2.%j" -w "$FP_HOST" --gres="$3" --wrap "$_w")
	fi
	[ -n "$jid" ] || t_fail "$2: sbatch as $1"
}
# k_done JOB NAME - COMPLETED, never requeued by falcon, its devices seen
k_done() {
	fp_completed "$1"
	case $(tag "$1") in *requeued*) t_fail "$2: job $1 requeued: $(tag "$1")" ;; esac
	grep -q '^cvd=GPU-' "$out/$2.$1" || t_fail "$2: job $1's output: $(cat "$out/$2.$1")"
}
# k_requeued JOB WHY - falcon requeued JOB (its tag falcon:requeued=, the
# prolog's log line naming WHY); then cancelled
k_requeued() {
	_rq() { case $(tag "$1") in *requeued*) return 0 ;; esac; return 1; }
	wait_for 240 "job $1 to be requeued by falcon" _rq "$1" ||
		{ tail -n 20 "$t_tmp"/slurm-prolog*.log >&2; t_fail "job $1 not requeued: $(tag "$1")"; }
	grep -h "job $1: falcon:requeued=" "$t_tmp"/slurm-prolog*.log | grep -q "$2" ||
		t_fail "job $1: no requeue naming '$2': $(grep -h "job $1" "$t_tmp"/slurm-prolog*.log | tail -n 3)"
	scancel "$1"
	fp_not_drained
}

# the waiter of root's keeps
gate=$(sbatch --parsable -H -o /dev/null --wrap true) || t_fail "sbatch -H (the gate)"
waiter=$(sbatch --parsable -o /dev/null -w "$FP_HOST" --gres=falcon_gpu:1 \
	--dependency=afterany:"$gate" --wrap true) || t_fail "sbatch of the waiter"

# (a) 8 kept in two leases; nobody's job and root's start together
k_job root a1 falcon_gpu:4
a1=$jid
k_job root a2 falcon_gpu:4
k_done "$a1" a1
k_done "$jid" a2
wait_kept 8
t0=$(date +%s)
k_job nobody an falcon_gpu:4
an=$jid
k_job root ar falcon_gpu:4
ar=$jid
k_done "$an" an
k_done "$ar" ar
grep -q "job $ar on $FP_HOST: 4 device(s) kept warm in lease .*, reused; no chassis request" \
	"$t_tmp/falcond.log" || t_fail "(a) root's job $ar did not reuse: $(grep "job $ar" "$t_tmp/falcond.log" | tail -n 3)"
grep -q "kept warm; released for job $an on $FP_HOST" "$t_tmp/falcond.log" ||
	t_fail "(a) no keep released for job $an: $(grep "job $an" "$t_tmp/falcond.log" | tail -n 3)"
fp_not_drained
t_ok "(a) nobody's job $an and root's job $ar COMPLETED in $(($(date +%s) - t0)) s: a keep released for $an (20 s detach), $ar reused the other with no PATCH"

# (b) the reset program fails: the job is requeued, the devices detached.
# Root's 4 kept first: b0's (which reuses what (a) left kept, if anything)
k_job root b0 falcon_gpu:4
k_done "$jid" b0
wait_kept 4
cat >"$t_tmp/reset.sh" <<EOS
#!/bin/sh
echo "\$*" >>"$t_tmp/reset.log"
case \$(cat "$t_tmp/reset.mode") in fail) exit 1 ;; hang) exec sleep 300 ;; esac
EOS
chmod 0755 "$t_tmp/reset.sh"
echo fail >"$t_tmp/reset.mode"
echo "KeepWarmReset=$t_tmp/reset.sh" >>"$FALCON_CONF"
kill -HUP "$FD_PID"
wait_for 30 "falcond to reload" grep -q 'SIGHUP: reloaded' "$t_tmp/falcond.log" || t_fail "(b) no reload"
t0=$(date +%s)
k_job nobody bn falcon_gpu:4
k_requeued "$jid" "KeepWarmReset=$t_tmp/reset.sh: exit 1"
[ -s "$t_tmp/reset.log" ] || t_fail "(b) the reset program never ran"
wait_kept 0
fp_wait_pool_clean 120
t_ok "(b) reset exit 1: nobody's job $jid requeued in $(($(date +%s) - t0)) s: $(tag "$jid"); kept devices detached, node not drained"

# (c) the reset program outlives its 60 s
k_job root c1 falcon_gpu:4
k_done "$jid" c1
wait_kept 4
echo hang >"$t_tmp/reset.mode"
t0=$(date +%s)
k_job nobody cn falcon_gpu:4
k_requeued "$jid" "KeepWarmReset=$t_tmp/reset.sh: killed past its time"
wait_kept 0
fp_wait_pool_clean 120
t_ok "(c) reset past 60 s: nobody's job $jid requeued in $(($(date +%s) - t0)) s: $(tag "$jid"); kept devices detached, node not drained"

# (d) an interactive job at 20 s per PATCH
t0=$(date +%s)
# shellcheck disable=SC2016 # expanded by salloc's shell
timeout 300 salloc -w "$FP_HOST" --gres=falcon_gpu:2 \
	sh -c 'srun -n1 sh -c "echo cvd=\$CUDA_VISIBLE_DEVICES"' >"$out/d.out" 2>&1 ||
	t_fail "(d) salloc: $(cat "$out/d.out")"
grep -q '^cvd=GPU-[^,]*,GPU-' "$out/d.out" || t_fail "(d) srun in the salloc saw: $(cat "$out/d.out")"
fp_not_drained
t_ok "(d) salloc + srun with 2 falcon GPUs at 20 s per PATCH in $(($(date +%s) - t0)) s: $(grep cvd= "$out/d.out")"

# (e) the chassis refuses the detach of a keep released for another
# user's job (one HTTP 500, then 5 s per PATCH: falcond retries the detach
# device by device, 6 of them); the job runs (after a requeue at worst),
# nothing is quarantined, the node is not drained.  KeepWarmReset= taken
# out again: the other user's job cannot reuse, so a keep is released
echo ok >"$t_tmp/reset.mode"
sed -i '/^KeepWarmReset=/d' "$FALCON_CONF"
n=$(grep -c 'SIGHUP: reloaded' "$t_tmp/falcond.log")
kill -HUP "$FD_PID"
reloaded() { [ "$(grep -c 'SIGHUP: reloaded' "$t_tmp/falcond.log")" -gt "$n" ]; }
wait_for 30 "falcond to reload" reloaded || t_fail "(e) no reload"
k_job root e1 falcon_gpu:6
k_done "$jid" e1
wait_kept 6
fd_sim c1 POST /admin/faults \
	'{"rules":[{"action":"error","status":500,"method":"PATCH","path":"/redfish/v1/Fabrics*","count":1},{"action":"latency","path":"/redfish/v1/Fabrics*","method":"PATCH","ms":5000}]}' >/dev/null
t0=$(date +%s)
k_job nobody en falcon_gpu:4
en=$jid
wait_for 600 "job $en to complete" s_in_state "$en" COMPLETED FAILED CANCELLED NODE_FAIL TIMEOUT ||
	{ tail -n 20 "$t_tmp/falcond.log" >&2; t_fail "(e) job $en: '$s_st' after 600 s: $(tag "$en")"; }
[ "$s_st" = COMPLETED ] || t_fail "(e) job $en: $s_st: $(tag "$en")"
grep -q "kept warm; released for job $en on $FP_HOST" "$t_tmp/falcond.log" ||
	t_fail "(e) no keep released for job $en: $(grep "job $en" "$t_tmp/falcond.log" | tail -n 3)"
q=$(metric falcond_quarantined_devices)
[ "${q:-0}" = 0 ] || t_fail "(e) $q device(s) quarantined: $("$FALCONCTL" status 2>&1 | tail -n 5)"
fp_not_drained
t_ok "(e) a keep's detach refused once (HTTP 500): job $en COMPLETED in $(($(date +%s) - t0)) s, $(tag "$en"); nothing quarantined, node not drained"

# done: the waiter, the gate; what is kept goes with KeepWarm=1
scancel "$waiter"
scancel "$gate"
fd_sim c1 POST /admin/faults '{}' >/dev/null
sed -i "s/KeepWarm=$keep/KeepWarm=1/" "$FALCON_CONF"
kill -HUP "$FD_PID"
fp_wait_pool_clean 120
