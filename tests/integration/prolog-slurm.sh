#!/bin/sh
# prolog-slurm.sh - falcon-prolog and falcon-epilog as slurm.conf Prolog=/
# Epilog= of a real single-node cluster (scripts/cluster.sh; the node plays
# falcon-sim's node1),
# with spank_falcon.so, falcond and falcon-sim (SysfsRoot = the sim's node1
# tree): falconGPUs and falconNVMe jobs with their environment and
# AdminComment in sacct, srun steps and sbatch inside a falcon job, a
# job cancelled while running, the chassis down at
# prolog (job requeued, node not drained, nothing leaked), an
# epilog whose remove fails (node drained, device quarantined), devices left
# attached for a job that ended (falcond's reconcile asks slurmctld and
# detaches them, a running job's stay); the pool is
# clean after each.  The node has a gpu:8 GRES (cluster.sh --gpus 8, File=
# stand-ins: the sim node1's eight local V100s), so gpu + falcon_gpu jobs
# are hybridGPUs and gpu-only jobs localGPUs.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/slurm-lib.sh"
. "$top_srcdir/tests/integration/prolog-lib.sh"
fp_slurm_node
s_need_spank
fp_setup
fp_spank_start --gpus 8
fp_falcond_with_slurm

# p_sacct JOB - wait for the job's AdminComment to reach sacct; prints it.
p_sacct() {
	_k=0
	until sacct -n -X -P -j "$1" -o AdminComment | grep -q 'falcon:'; do
		_k=$((_k + 1))
		[ $_k -lt 150 ] || { s_logs; t_fail "no falcon tag of job $1 in sacct"; }
		sleep 0.2
	done
	sacct -n -X -P -j "$1" -o AdminComment
}

# -- falconGPUs: the job sees its four GPUs
jid=$(sbatch --parsable --gres=falcon_gpu:4 -L falcon1:4 -o "$t_tmp/job-%j.out" \
	--wrap 'env | grep -E "^(CUDA_|FALCON_)" | sort')
s_wait_done "$jid"
[ "$(s_job_state "$jid")" = COMPLETED ] ||
	{ cat "$t_tmp/slurm-prolog.log" >&2; s_logs; t_fail "job $jid: $(s_job_state "$jid")"; }
grep -q '^FALCON_TOPOLOGY=falconGPUs$' "$t_tmp/job-$jid.out" ||
	t_fail "task env: $(cat "$t_tmp/job-$jid.out")"
grep -q '^CUDA_DEVICE_ORDER=PCI_BUS_ID$' "$t_tmp/job-$jid.out" || t_fail "CUDA_DEVICE_ORDER"
[ "$(sed -n 's/^CUDA_VISIBLE_DEVICES=//p' "$t_tmp/job-$jid.out" | tr , '\n' | wc -l)" = 4 ] ||
	t_fail "CUDA_VISIBLE_DEVICES: $(cat "$t_tmp/job-$jid.out")"
tag=$(p_sacct "$jid")
case $tag in *falcon:topo=falconGPUs,f=4,check=skipped*) ;; *) t_fail "AdminComment: $tag" ;; esac
fp_wait_pool_clean 30
t_ok "falconGPUs job: env, sacct AdminComment '$tag', devices back"

# -- Check=quick (DEFAULT) with NcclCheck= naming no program on this node:
# a configuration error falcond reports at start and falconctl status
# shows, and the prolog warns (issue 38: every job said only "skipped")
want="partition DEFAULT has Check=quick but /nonexistent/falcon-ncclcheck (NcclCheck=) is not installed on host $FP_HOST"
grep -q "start: $FALCON_CONF: configuration error: $want" "$t_tmp/falcond.log" ||
	t_fail "falcond did not report the missing check program: $(grep -i 'error' "$t_tmp/falcond.log" | head -n 3)"
"$FALCONCTL" status >"$t_tmp/status.out" 2>&1 || t_fail "falconctl status: $(cat "$t_tmp/status.out")"
grep -q "^CONFIGURATION ERROR: $want" "$t_tmp/status.out" ||
	t_fail "falconctl status does not show it: $(head -n 5 "$t_tmp/status.out")"
grep -q "job $jid: check skipped: Check=quick but /nonexistent/falcon-ncclcheck (NcclCheck=) is not installed here" \
	"$t_tmp/slurm-prolog.log" || t_fail "the prolog did not warn: $(grep "job $jid" "$t_tmp/slurm-prolog.log" | tail -n 3)"
t_ok "missing check program: falcond, falconctl status and the prolog say so"

# -- srun and sbatch inside a falcon job (issue 42: every srun in the batch
# script of a falconGPUs job failed, "FALCON_TOPOLOGY=falconGPUs: expected
# auto"): each step's tasks see the job's GPUs and label; a job submitted
# from inside gets its own devices, or none and no inherited label
cat >"$t_tmp/inner.sh" <<'EOS'
#!/bin/sh
echo "batch cvd=$CUDA_VISIBLE_DEVICES topo=$FALCON_TOPOLOGY"
srun -n1 sh -c 'echo "step1 cvd=$CUDA_VISIBLE_DEVICES topo=$FALCON_TOPOLOGY"' ||
	echo "srun -n1 failed"
srun -n2 sh -c 'echo "step2.$SLURM_PROCID cvd=$CUDA_VISIBLE_DEVICES topo=$FALCON_TOPOLOGY"' ||
	echo "srun -n2 failed"
sbatch --parsable --gres=falcon_gpu:1 -L falcon1:1 -o "$T/chain-%j.out" \
	--wrap 'echo "chained cvd=$CUDA_VISIBLE_DEVICES topo=$FALCON_TOPOLOGY"' >"$T/chain-falcon.id" ||
	echo "sbatch falcon_gpu:1 failed"
sbatch --parsable -o "$T/chain-%j.out" \
	--wrap 'echo "plain topo=${FALCON_TOPOLOGY-unset} file=${FALCON_TOPOLOGY_FILE-unset}"' \
	>"$T/chain-plain.id" || echo "sbatch without GRES failed"
EOS
jid=$(sbatch --parsable -n2 --gres=falcon_gpu:2 -L falcon1:2 --export=ALL,T="$t_tmp" \
	-o "$t_tmp/job-%j.out" "$t_tmp/inner.sh")
s_wait_done "$jid"
out=$(cat "$t_tmp/job-$jid.out")
[ "$(s_job_state "$jid")" = COMPLETED ] || { s_logs; t_fail "job $jid: $(s_job_state "$jid"): $out"; }
cvd=$(sed -n 's/^batch cvd=\([^ ]*\) topo=falconGPUs$/\1/p' "$t_tmp/job-$jid.out")
[ "$(printf '%s' "$cvd" | tr , '\n' | grep -c .)" = 2 ] || t_fail "batch step of job $jid: $out"
for step in step1 step2.0 step2.1; do
	grep -qx "$step cvd=$cvd topo=falconGPUs" "$t_tmp/job-$jid.out" ||
		t_fail "srun inside falcon job $jid: no '$step cvd=$cvd topo=falconGPUs' in: $out"
done
c1=$(cat "$t_tmp/chain-falcon.id" 2>/dev/null) && c2=$(cat "$t_tmp/chain-plain.id" 2>/dev/null) ||
	t_fail "sbatch inside falcon job $jid: $out"
s_wait_done "$c1"
s_wait_done "$c2"
grep -Eqx 'chained cvd=[^,]+ topo=falconGPUs' "$t_tmp/chain-$c1.out" ||
	t_fail "job $c1 submitted from job $jid: $(cat "$t_tmp/chain-$c1.out")"
grep -qx 'plain topo=unset file=unset' "$t_tmp/chain-$c2.out" ||
	t_fail "job $c2 without GRES submitted from job $jid: $(cat "$t_tmp/chain-$c2.out")"
fp_wait_pool_clean 30
t_ok "srun -n1, srun -n2 and sbatch inside falcon job $jid: steps see cvd=$cvd falconGPUs; chained jobs their own"

# -- hybridGPUs: four of the node's own GPUs and four from the chassis
jid=$(sbatch --parsable --gres=gpu:4,falcon_gpu:4 -L falcon1:4 -o "$t_tmp/job-%j.out" \
	--wrap 'env | grep -E "^(CUDA_|FALCON_)" | sort')
s_wait_done "$jid"
[ "$(s_job_state "$jid")" = COMPLETED ] ||
	{ cat "$t_tmp/slurm-prolog.log" >&2; s_logs; t_fail "job $jid: $(s_job_state "$jid")"; }
grep -q '^FALCON_TOPOLOGY=hybridGPUs$' "$t_tmp/job-$jid.out" ||
	t_fail "hybrid task env: $(cat "$t_tmp/job-$jid.out")"
[ "$(sed -n 's/^CUDA_VISIBLE_DEVICES=//p' "$t_tmp/job-$jid.out" | tr , '\n' | sort -u | wc -l)" = 8 ] ||
	t_fail "hybrid CUDA_VISIBLE_DEVICES: $(cat "$t_tmp/job-$jid.out")"
tag=$(p_sacct "$jid")
case $tag in *falcon:topo=hybridGPUs,l=4,f=4,*) ;; *) t_fail "hybrid AdminComment: $tag" ;; esac
fp_wait_pool_clean 30
t_ok "hybridGPUs job: 8 CUDA devices, sacct AdminComment '$tag', devices back"

# -- localGPUs: the node's own GPUs only; nothing composed, still tagged
jid=$(sbatch --parsable --gres=gpu:2 -o "$t_tmp/job-%j.out" \
	--wrap 'env | grep -E "^(CUDA_|FALCON_)" | sort; cat "$FALCON_TOPOLOGY_FILE"; echo')
s_wait_done "$jid"
[ "$(s_job_state "$jid")" = COMPLETED ] ||
	{ cat "$t_tmp/slurm-prolog.log" >&2; s_logs; t_fail "job $jid: $(s_job_state "$jid")"; }
grep -q '^FALCON_TOPOLOGY=localGPUs$' "$t_tmp/job-$jid.out" ||
	t_fail "local task env: $(cat "$t_tmp/job-$jid.out")"
[ "$(sed -n 's/^CUDA_VISIBLE_DEVICES=//p' "$t_tmp/job-$jid.out" | tr , '\n' | wc -l)" = 2 ] ||
	t_fail "local CUDA_VISIBLE_DEVICES: $(cat "$t_tmp/job-$jid.out")"
sed -n '/^{/,$p' "$t_tmp/job-$jid.out" | python3 -c '
import json, sys
j = json.load(sys.stdin)
sys.exit(0 if len(j["gpus"]) == 2 and all(g["location"] == "local" for g in j["gpus"]) else 1)' ||
	t_fail "localGPUs topology.json: $(cat "$t_tmp/job-$jid.out")"
grep -q "lease [^ ]*: job $jid on " "$t_tmp/falcond.log" &&
	t_fail "falcond composed for the localGPUs job $jid: $(grep "job $jid" "$t_tmp/falcond.log")"
tag=$(p_sacct "$jid")
case $tag in *falcon:topo=localGPUs,l=2,check=*) ;; *) t_fail "local AdminComment: $tag" ;; esac
fp_wait_pool_clean 30
t_ok "localGPUs job: nothing composed, sacct AdminComment '$tag'"

# -- falconNVMe; --falcon-check=off reaches the prolog through spank_falcon
jid=$(sbatch --parsable --gres=falcon_nvme:1 --falcon-place=any --falcon-check=off \
	-o /dev/null --wrap 'sleep 1')
s_wait_done "$jid"
tag=$(p_sacct "$jid")
case $tag in *falcon:nvme=falcon,check=off*) ;; *) t_fail "NVMe AdminComment: $tag" ;; esac
fp_wait_pool_clean 30
t_ok "falconNVMe job: '$tag'"

# -- a job cancelled while running gives its devices back
# RUNNING is reached at allocation, while the prolog (PrologFlags=Alloc) may
# still be composing: wait for the batch script itself, which starts only
# after the prolog has put the devices on the bus.
jid=$(sbatch --parsable --gres=falcon_gpu:2 -o /dev/null \
	--wrap "echo started > '$t_tmp/cancel-started'; sleep 300")
s_wait_state "$jid" RUNNING
fd_wait_file "$t_tmp/cancel-started"
[ "$(fd_sim c1 GET /admin/state | python3 -c 'import json,sys; print(sum(1 for d in json.load(sys.stdin)["devices"] if d["present"]))')" = 2 ] ||
	t_fail "2 devices expected on the bus while running"
scancel "$jid"
s_wait_done "$jid"
fp_wait_pool_clean 30
t_ok "cancelled job: devices back in the pool"

# -- the chassis down at prolog (no PrologSlurmctld here: the node prolog
# composes): not the node's problem, so the job is requeued (pending, not
# held), the node never drained (#12)
fd_sim c1 POST /admin/faults '{"rules":[{"action":"error","status":503,"path":"/redfish/v1/Fabrics*","method":"PATCH"}]}' >/dev/null
jid=$(sbatch --parsable --gres=falcon_gpu:4 -o /dev/null --wrap true)
p_requeued() {
	scontrol show job "$jid" | grep -q 'AdminComment=.*falcon:requeued=' &&
		[ "$(squeue -h -j "$jid" -o %T)" = PENDING ]
}
wait_for 120 "job $jid to be requeued" p_requeued ||
	{ tail "$t_tmp/slurm-prolog.log" >&2; s_logs; t_fail "job $jid: $(scontrol show job "$jid")"; }
[ -z "$(sinfo -h -R -o '%E')" ] || t_fail "node drained: $(sinfo -R)"
reason=$(squeue -h -j "$jid" -o %r)
ac=$(scontrol show job "$jid" | sed -n 's/^ *AdminComment=//p')
# the chassis answered 503, falcond did not: the tag names the chassis
# (it read falcond_unavailable)
case $ac in *falcon:requeued=chassis_error*) ;; *)
	t_fail "chassis answering 503: job $jid tagged '$ac', want falcon:requeued=chassis_error" ;; esac
t_ok "chassis down: job $jid PENDING ($reason, AdminComment '$ac'), node not drained"
fd_sim c1 POST /admin/faults '{}' >/dev/null
scancel "$jid"
fp_wait_pool_clean 30
t_ok "chassis down: nothing leaked"

# -- an epilog whose remove fails: node drained, device quarantined
jid=$(sbatch --parsable --gres=falcon_gpu:1 -o /dev/null \
	--wrap "echo started > '$t_tmp/stuck-started'; sleep 300")
s_wait_state "$jid" RUNNING
fd_wait_file "$t_tmp/stuck-started"
bdf=$(fp_topo "$jid" 'j["gpus"][0]["bdf"]')
rm -f "$SYSFS/node1/bus/pci/devices/$bdf/remove"
mkdir "$SYSFS/node1/bus/pci/devices/$bdf/remove"
# requeued, not cancelled: the epilog's drain path must also take the
# job's topology tag off while it pends (0cdebc0; make soak-lifecycle saw
# one keep falcon:topo=)
scontrol requeue "$jid" || t_fail "scontrol requeue $jid"
k=0
until sinfo -h -R -o '%E' | grep -q "^falcon: job $jid: $bdf"; do
	k=$((k + 1))
	[ $k -lt 300 ] || { tail "$t_tmp/slurm-epilog.log" >&2; t_fail "not drained: $(sinfo -R)"; }
	sleep 0.2
done
[ "$(fd_call GET /v1/status '')" = 200 ] && [ "$(fd_json 'len(j["quarantine"])')" = 1 ] ||
	t_fail "device not quarantined: $(cat "$t_tmp/out")"
qd=$(fd_json 'j["quarantine"][0]["device"]')
wait_for 30 "job $jid to pend" sh -c "squeue -h -j $jid -o %T | grep -qx PENDING" ||
	t_fail "job $jid after its requeue: $(squeue -h -j "$jid" -o %T)"
tag=$(scontrol show job "$jid" | sed -n "s/^ *AdminComment=//p" | sed 's/ *$//')
[ "$tag" = falcon:released ] ||
	t_fail "requeued job $jid pends on a drained node with AdminComment '$tag' (want falcon:released)"
scancel "$jid"
t_ok "stuck device: '$(sinfo -h -R -o '%E' | head -1)', $qd quarantined, the requeued job's tag '$tag'"
rm -rf "$SYSFS/node1/bus/pci/devices/$bdf" "$t_tmp/run/$jid"
fd_expect 200 POST /v1/unquarantine "{\"chassis\":\"c1\",\"device\":\"$qd\"}"
scontrol update nodename="$FP_HOST" state=resume
fp_wait_pool_clean 30
t_ok "stuck device cleared by the admin"

# -- reconcile against slurmctld: devices attached for a job Slurm says has
# ended (no epilog will give them back) are detached; a running job keeps its
# own.
done_jid=$jid
jid=$(sbatch --parsable --gres=falcon_gpu:2 -o /dev/null \
	--wrap "echo started > '$t_tmp/reconcile-started'; sleep 300")
s_wait_state "$jid" RUNNING
fd_wait_file "$t_tmp/reconcile-started"
"$FALCONCTL" attach --job "$done_jid" --host "$FP_HOST" --gpus 2 >"$t_tmp/attach.out" ||
	t_fail "falconctl attach for ended job $done_jid: $(tail -n 3 "$t_tmp/falcond.log")"
[ "$(fd_sim c1 GET /admin/state | python3 -c 'import json,sys; print(sum(1 for d in json.load(sys.stdin)["devices"] if d["owner"]))')" = 4 ] ||
	t_fail "4 devices expected attached before reconcile"
"$FALCONCTL" reconcile --json >"$t_tmp/out" || t_fail "falconctl reconcile: $(cat "$t_tmp/out")"
[ "$(fd_json 'j["slurm_checked"]')" = True ] ||
	t_fail "reconcile did not ask Slurm: $(cat "$t_tmp/out"; tail -n 5 "$t_tmp/falcond.log")"
# falcond's own periodic reconcile (ReconcileInterval, as shipped) may have
# come first under load: then this one finds nothing, and the log says so
case $(fd_json 'j["closed_job_ended"]') in
1) ;;
0) grep -q "job $done_jid is not running; devices reclaimed" "$t_tmp/falcond.log" ||
	t_fail "reconcile closed nothing, nor had falcond before: $(cat "$t_tmp/out")" ;;
*) t_fail "reconcile: $(cat "$t_tmp/out")" ;;
esac
fd_sim c1 GET /admin/state >"$t_tmp/simstate.json"
[ "$(python3 -c 'import json,sys; print(sum(1 for d in json.load(open(sys.argv[1]))["devices"] if d["owner"]))' "$t_tmp/simstate.json")" = 2 ] ||
	t_fail "the running job $jid should keep its 2 devices: $(cat "$t_tmp/simstate.json")"
grep -q "job $done_jid is not running; devices reclaimed" "$t_tmp/falcond.log" ||
	t_fail "falcond log: $(tail -n 5 "$t_tmp/falcond.log")"
scancel "$jid"
s_wait_done "$jid"
fp_wait_pool_clean 30
t_ok "reconcile with slurmctld: job $done_jid's leftover devices detached, running job $jid kept its own"
