#!/bin/sh
# slurm-fleet.sh - one partition over two chassis (job_submit_falcon(8),
# SEVERAL CHASSIS): the host's node on chassis c1, "node2" (its own network
# and UTS namespace) on chassis c2, each a falcon-sim, one falcond, the
# chassis features (Features=falcon_c1, falcon_c2) and per-chassis
# licenses in slurm.conf, job_submit_falcon and falcon-prolog/epilog on
# both nodes.  With c1 full (a job holds all its GPUs), a job of the
# partition starts on node2 with c2's GPUs, with no requeue; a two-node
# job pends for licenses meanwhile (it is never started on a full
# chassis), then runs with each node's GPUs from its own chassis, counted
# on each.  A chassis that stops answering has its free devices held in
# Slurm after UnreachableHold (falcond's reservation), so a job for its
# node pends until it answers again.  A hetjob gets each component's
# devices from its own node's chassis; on Slurm 23.02+ an urgent job
# preempts a two-node job holding both chassis.  Skips where namespaces
# cannot be made or the plugin is not built.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/slurm-lib.sh"
. "$top_srcdir/tests/integration/prolog-lib.sh"
fp_slurm_node
s_need_job_submit
s_need_netns

fp_two_chassis

fp_node2_start --license c1_gpu:8,c1_nvme:1,c2_gpu:8,c2_nvme:1 \
	--features "$FP_HOST=falcon_c1 node2=falcon_c2" \
	--job-submit "$plugin_dir" --falcon-conf "$FALCON_CONF" --preempt REQUEUE
fp_node2_conf "s|^SysfsRoot=.*|SysfsRoot=$t_tmp/sim-c2/sysfs/node1|" \
	"s|^RunDir=.*|RunDir=$t_tmp/run2|"
# falcond asking this cluster's slurmctld: its re-pin of pending jobs
fp_falcond_with_slurm

# -- slurm.conf as falconctl slurm-conf writes it; falcond and falconctl
# status find that it agrees, and say where a falcon.conf disagrees
"$FALCONCTL" slurm-conf >"$t_tmp/slurm-conf.out" || t_fail "falconctl slurm-conf failed"
grep -qx "Licenses=c1_gpu:8,c1_nvme:1,c2_gpu:8,c2_nvme:1" "$t_tmp/slurm-conf.out" &&
	grep -qx "NodeName=node2 Gres=falcon_gpu:8,falcon_nvme:1 Features=falcon_c2" "$t_tmp/slurm-conf.out" ||
	t_fail "falconctl slurm-conf: $(cat "$t_tmp/slurm-conf.out")"
wait_for 30 "falcond's slurm.conf check" grep -q \
	"slurm.conf agrees with falcon.conf (2 chassis, 2 hosts)" "$t_tmp/falcond.log" ||
	t_fail "falcond: $(grep slurm.conf "$t_tmp/falcond.log")"
"$FALCONCTL" status >"$t_tmp/status.out" 2>&1 || t_fail "falconctl status: $(cat "$t_tmp/status.out")"
grep -qx "slurm.conf agrees with falcon.conf" "$t_tmp/status.out" ||
	t_fail "falconctl status: $(tail -5 "$t_tmp/status.out")"
sed 's/^HostName=node2 Chassis=c2 Port=H1,H2 Adapter=0000:3b:00.0,0000:af:00.0/HostName=node2 Chassis=c1 Port=H3 Adapter=0000:3b:00.0/' \
	"$FALCON_CONF" >"$t_tmp/moved.conf"
"$FALCONCTL" status --config "$t_tmp/moved.conf" >"$t_tmp/status.out" 2>&1 || true
grep -q "slurm.conf: node node2 has Features=falcon_c2 but falcon.conf cables it to c1" "$t_tmp/status.out" ||
	t_fail "falconctl status with node2 moved: $(tail -5 "$t_tmp/status.out")"
t_ok "falconctl slurm-conf wrote this slurm.conf; falcond and falconctl status check it"

jf() { scontrol show job -o "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# -- c1 full: a job holds its 8 GPUs
ja=$(sbatch --parsable -w "$FP_HOST" --gres=falcon_gpu:8 -o /dev/null --wrap 'sleep 300')
s_wait_state "$ja" RUNNING
fp_on_buses 8 - "job $ja"
[ "$(jf "$ja" Licenses)" = c1_gpu:8 ] || t_fail "job $ja licenses: $(jf "$ja" Licenses)"
t_ok "job $ja holds c1's 8 GPUs (Licenses=c1_gpu:8)"

# -- a job of the partition: node2, c2's GPUs, no requeue
jb=$(sbatch --parsable --gres=falcon_gpu:2 -o "$t_tmp/out.%j" \
	--wrap 'echo "host=$(hostname)"; sleep 300')
s_wait_state "$jb" RUNNING
[ "$(jf "$jb" NodeList)" = node2 ] || t_fail "job $jb on $(jf "$jb" NodeList), not node2"
[ "$(jf "$jb" Licenses)" = c2_gpu:2 ] || t_fail "job $jb licenses: $(jf "$jb" Licenses)"
[ "$(jf "$jb" Features)" = falcon_c2 ] || t_fail "job $jb constraint: $(jf "$jb" Features)"
fp_on_buses - 2 "job $jb"
sleep 2
[ "$(s_job_state "$jb")" = RUNNING ] && [ "$(jf "$jb" Restarts)" = 0 ] ||
	{ fp_logs; t_fail "job $jb: $(s_job_state "$jb"), Restarts=$(jf "$jb" Restarts)"; }
t_ok "c1 full: job $jb started on node2 with c2's 2 GPUs, Restarts=0"

# -- two nodes, 2 GPUs each: c1 has none free, so it waits for licenses
jc=$(sbatch --parsable -N 2 --gres=falcon_gpu:2 -o /dev/null --wrap 'sleep 2')
sleep 3
[ "$(s_job_state "$jc")" = PENDING ] || t_fail "job $jc: $(s_job_state "$jc"), expected PENDING"
lic=$(jf "$jc" Licenses); feat=$(jf "$jc" Features)
[ "$lic" = "c1_gpu:2,c2_gpu:2" ] || t_fail "job $jc licenses: $lic"
[ "$feat" = "[falcon_c1*1&falcon_c2*1]" ] || t_fail "job $jc constraint: $feat"
# the reason is None until the scheduler has looked at the job (Slurm
# 24.11 in CI's trixie lane took more than 3 s)
pend_reason() { r=$(squeue -h -j "$1" -o %r); [ "$r" = "$2" ]; }
wait_for 30 "job $jc's pending reason" pend_reason "$jc" Licenses ||
	t_fail "job $jc pends for $r"
[ "$(s_job_state "$jc")" = PENDING ] || t_fail "job $jc: $(s_job_state "$jc"), expected PENDING"
t_ok "job $jc (-N 2) pends for licenses: $lic, $feat"

# -- both chassis full; a one-node job is pinned to c1 (both backlogs are
# job jc's 2 GPUs: the first in falcon.conf order) and pends; the next is
# pinned to c2, whose backlog is now the shorter (falcon_fleet_place's
# backlog: before it, every such job went to c1); once c2 frees, falcond
# clears jd's pin and job_submit_falcon picks c2: it starts before c1 frees
je=$(sbatch --parsable -w node2 --gres=falcon_gpu:6 -o /dev/null --wrap 'sleep 300')
s_wait_state "$je" RUNNING
jd=$(sbatch --parsable --gres=falcon_gpu:2 -o /dev/null --wrap 'sleep 300')
sleep 2
[ "$(s_job_state "$jd")" = PENDING ] && [ "$(jf "$jd" Features)" = falcon_c1 ] ||
	t_fail "job $jd: $(s_job_state "$jd"), constraint $(jf "$jd" Features)"
jg=$(sbatch --parsable --gres=falcon_gpu:2 -o /dev/null --wrap 'sleep 300')
sleep 1
[ "$(s_job_state "$jg")" = PENDING ] && [ "$(jf "$jg" Features)" = falcon_c2 ] &&
	[ "$(jf "$jg" Licenses)" = c2_gpu:2 ] || {
	grep -h "job_submit_falcon" "$s_state/log/slurmctld.log" | tail -5 >&2
	t_fail "job $jg: $(s_job_state "$jg"), constraint $(jf "$jg" Features), not pinned to c2 by backlog"; }
scancel "$jb" "$je"
s_wait_done "$jb"
s_wait_done "$je"
wait_for 60 "job $jd to run" s_in_state "$jd" RUNNING ||
	{ tail -5 "$t_tmp/falcond.log" >&2; t_fail "job $jd: $s_st, constraint $(jf "$jd" Features)"; }
[ "$(jf "$jd" NodeList)" = node2 ] && [ "$(jf "$jd" Licenses)" = c2_gpu:2 ] || {
	grep -h "job_submit_falcon\|JobId=$ja \|JobId=$jd " "$s_state/log/slurmctld.log" | tail -20 >&2
	grep "re-pin\|pin cleared" "$t_tmp/falcond.log" >&2
	t_fail "job $jd: on $(jf "$jd" NodeList), licenses $(jf "$jd" Licenses)"; }
grep -q "job $jd: pending for licenses of chassis c1 while c2" "$t_tmp/falcond.log" ||
	t_fail "falcond did not log the re-pin of job $jd"
[ "$(s_job_state "$jc")" = PENDING ] || t_fail "job $jc: $(s_job_state "$jc") while c1 is full"
wait_for 60 "job $jg to run" s_in_state "$jg" RUNNING || t_fail "job $jg: $s_st"
[ "$(jf "$jg" NodeList)" = node2 ] || t_fail "job $jg on $(jf "$jg" NodeList)"
t_ok "job $jd re-pinned by falcond from c1 (full) to c2 once c2 freed: runs on node2; job $jg, pinned to c2 by backlog, too"

scancel "$ja" "$jd" "$jg"
s_wait_done "$ja"
s_wait_done "$jd"
s_wait_done "$jg"
wait_for 120 "job $jc to complete" s_in_state "$jc" COMPLETED FAILED CANCELLED NODE_FAIL ||
	{ fp_logs; t_fail "job $jc: $s_st"; }
[ "$s_st" = COMPLETED ] || { fp_logs; t_fail "job $jc: $s_st"; }
[ "$(sacct -n -X -P -j "$jc" -o NodeList)" = "$FP_HOST,node2" ] ||
	[ "$(sacct -n -X -P -j "$jc" -o NodeList)" = "node2,$FP_HOST" ] ||
	t_fail "job $jc ran on $(sacct -n -X -P -j "$jc" -o NodeList)"

fp_on_buses 0 0 "devices left"
t_ok "everything back in both pools"
python3 - "$t_tmp/state/history.jsonl" "$jc" <<'EOP' || { fp_logs; t_fail "job $jc's leases"; }
import json, sys
seen = {}
for line in open(sys.argv[1]):
    h = json.loads(line)
    if h.get("job_id") == int(sys.argv[2]):
        seen.setdefault(h.get("chassis"), set()).add(h.get("device"))
ok = sorted(seen) == ["c1", "c2"] and all(len(v) == 2 for v in seen.values())
print("job leases per chassis:", {k: sorted(v) for k, v in seen.items()}, file=sys.stderr)
sys.exit(0 if ok else 1)
EOP
t_ok "job $jc ran on both nodes, 2 GPUs from each node's own chassis (history.jsonl)"

# -- c2 stops answering (its Redfish service accepts and never answers):
# past UnreachableHold (default 30 s) falcond's reservation holds c2's free
# devices, so a job for node2 pends instead of being started on a node
# whose chassis cannot serve it; once c2 answers, the hold goes and the
# job runs there
# (Slurm 26.05's scontrol joins a reservation's licenses with ';', earlier
# releases with ',': read as ',')
resv_lic() { scontrol show reservation "$1" 2>/dev/null | tr ' ' '\n' | sed -n 's/^Licenses=//p' | tr ';' ','; }
held() { case ",$(resv_lic falcon-c2-quarantine)," in *,c2_gpu:8,*) return 0 ;; esac; return 1; }
fd_sim c2 POST /admin/faults '{"rules":[{"action":"timeout","count":-1,"path":"/redfish/v1/*"}]}' >/dev/null
t_stop=$(date +%s)
wait_for 120 "falcond to hold c2's free devices" held ||
	{ tail -20 "$t_tmp/falcond.log" >&2; t_fail "reservation falcon-c2-quarantine: '$(resv_lic falcon-c2-quarantine)'"; }
grep -q "reservation falcon-c2-quarantine .*holds .*c2_gpu:8.* (the chassis is unreachable: its free devices too)" \
	"$t_tmp/falcond.log" || t_fail "falcond did not log the hold"
"$FALCONCTL" status --json >"$t_tmp/status.json" 2>&1 || true
python3 -c 'import json,sys
c = {x["name"]: x for x in json.load(sys.stdin)["chassis"]}
sys.exit(0 if c["c2"]["free_held"] and not c["c1"]["free_held"] and c["c2"]["unreachable_s"] >= 30 else 1)' \
	<"$t_tmp/status.json" || t_fail "falconctl status --json: $(head -c 400 "$t_tmp/status.json")"
t_ok "c2 unreachable: held after $(($(date +%s) - t_stop)) s (Licenses=$(resv_lic falcon-c2-quarantine))"
jh=$(sbatch --parsable -w node2 --gres=falcon_gpu:2 -o /dev/null --wrap 'sleep 1')
sleep 5
[ "$(s_job_state "$jh")" = PENDING ] ||
	{ fp_logs; t_fail "job $jh: $(s_job_state "$jh") on node2 while c2 is unreachable, expected PENDING"; }
t_ok "job $jh for node2 pends while c2 is unreachable ($(squeue -h -j "$jh" -o %r))"
# a falcond that starts while c2 does not answer (a restart, a standby's
# takeover during the outage) has never read c2: it holds c2's free
# devices from its description file (StateDir/chassis-c2.json) and the
# ledger.  The reservation is deleted first, as when the falcond killed
# had not made it yet (make soak-fleet: a takeover during c8's outage
# held nothing, and jobs started on c8's licenses were requeued pool_short)
# ($jh held meanwhile: Slurm would start it on the free licenses)
scontrol hold "$jh" || t_fail "scontrol hold $jh failed"
fd_stop_falcond -KILL
scontrol delete reservation=falcon-c2-quarantine || t_fail "scontrol delete reservation failed"
FD_NO_SLURM= fd_start_falcond
t_restart=$(date +%s)
wait_for 120 "the new falcond to hold c2's free devices" held ||
	{ tail -20 "$t_tmp/falcond.log" >&2; t_fail "after a restart during the outage: reservation falcon-c2-quarantine: '$(resv_lic falcon-c2-quarantine)'"; }
scontrol release "$jh" || t_fail "scontrol release $jh failed"
# released, the scheduler looks at it again: it must pend for the licenses
wait_for 30 "job $jh's pending reason after its release" pend_reason "$jh" Licenses ||
	{ fp_logs; t_fail "job $jh: $(s_job_state "$jh") ($(squeue -h -j "$jh" -o %r)) after its release, Licenses expected"; }
[ "$(s_job_state "$jh")" = PENDING ] ||
	{ fp_logs; t_fail "job $jh: $(s_job_state "$jh") on node2 while c2 is unreachable, expected PENDING"; }
t_ok "a falcond started during c2's outage holds its free devices after $(($(date +%s) - t_restart)) s (from its description file)"
fd_sim c2 DELETE /admin/faults >/dev/null
wait_for 60 "the hold to go" sh -c "! scontrol show reservation falcon-c2-quarantine >/dev/null 2>&1" ||
	t_fail "reservation falcon-c2-quarantine still holds '$(resv_lic falcon-c2-quarantine)'"
grep -q "chassis c2 answers again after [0-9]* s: its free devices are no longer held" "$t_tmp/falcond.log" ||
	t_fail "falcond did not log the end of the hold"
wait_for 120 "job $jh to complete" s_in_state "$jh" COMPLETED FAILED CANCELLED NODE_FAIL ||
	{ fp_logs; t_fail "job $jh: $s_st"; }
[ "$s_st" = COMPLETED ] && [ "$(jf "$jh" Restarts)" = 0 ] ||
	{ fp_logs; t_fail "job $jh: $s_st, Restarts=$(jf "$jh" Restarts)"; }
fp_on_buses - 0 "c2's devices left"
t_ok "c2 answers: the hold is gone, job $jh ran on node2 with c2's GPUs (Restarts=0), nothing left"

# -- a heterogeneous job, one component per chassis' node: each component
# is its own job to job_submit_falcon and the prologs (its own pin, lease
# and tag; its licenses on the leader), and each gets its GPUs from its
# node's chassis
cat >"$t_tmp/het.sh" <<'EOH'
#!/bin/sh
#SBATCH -w NODE1 --gres=falcon_gpu:2 -o /dev/null
#SBATCH hetjob
#SBATCH -w node2 --gres=falcon_gpu:1 -o /dev/null
sleep 20
EOH
sed -i "s/NODE1/$FP_HOST/" "$t_tmp/het.sh"
jk=$(sbatch --parsable "$t_tmp/het.sh" 2>"$t_tmp/het.err") ||
	{ grep -h "job_submit_falcon" "$s_state/log/slurmctld.log" | tail -3 >&2
	  t_fail "sbatch of a hetjob: $(cat "$t_tmp/het.err")"; }
jk=${jk%%+*}
jk1=$((jk + 1))
# squeue and scontrol show every component for the leader's id: one
# record per component (HetJobId, HetJobOffset), by its own JobId
hf() { scontrol show job -o "$jk" | grep "^JobId=$1 " | tr ' ' '\n' | sed -n "s/^$2=//p"; }
het_running() { [ "$(squeue -h -j "$jk" -o %T | sort -u)" = RUNNING ] && [ "$(squeue -h -j "$jk" | wc -l)" = 2 ]; }
wait_for 60 "hetjob $jk's components to run" het_running ||
	{ fp_logs; t_fail "hetjob $jk: $(squeue -h -j "$jk" -o '%i %T %r' | paste -sd' ')"; }
[ "$(hf "$jk1" HetJobId)" = "$jk" ] && [ "$(hf "$jk1" HetJobOffset)" = 1 ] ||
	t_fail "hetjob $jk: component 1 is not job $jk1: $(scontrol show job -o "$jk" | cut -c1-200)"
fp_on_buses 2 1 "hetjob $jk"
# Slurm 24.11 takes licenses on the leader only ("license request allowed
# only on leader job"): the leader counts both components' pools
case $(hf "$jk1" Licenses) in ""|"(null)") l1=none ;; *) l1=$(hf "$jk1" Licenses) ;; esac
[ "$(hf "$jk" Licenses)" = c1_gpu:2,c2_gpu:1 ] && [ "$l1" = none ] ||
	{ grep -h "job_submit_falcon" "$s_state/log/slurmctld.log" | tail -4 >&2; scontrol show job -o "$jk" >&2
	  t_fail "hetjob $jk licenses: $(hf "$jk" Licenses) / $(hf "$jk1" Licenses)"; }
for j in "$jk" "$jk1"; do
	case "$(hf "$j" AdminComment)" in falcon:topo=falconGPUs,*) ;; *) t_fail "hetjob component $j: tag '$(hf "$j" AdminComment)'" ;; esac
done
het_gone() { [ -z "$(squeue -h -j "$jk" 2>/dev/null)" ]; }
wait_for 120 "hetjob $jk to end" het_gone || { fp_logs; t_fail "hetjob $jk: $(squeue -h -j "$jk" -o '%i %T')"; }
st=$(sacct -n -X -P -j "$jk" -o JobID,State | sort | paste -sd' ')
[ "$st" = "${jk}+0|COMPLETED ${jk}+1|COMPLETED" ] || { fp_logs; t_fail "hetjob $jk: $st"; }
fp_on_buses 0 0 "hetjob's devices left"
t_ok "hetjob $jk: component $jk on $FP_HOST with 2 of c1's GPUs, $jk1 on node2 with 1 of c2's (licenses on the leader), each tagged; completed, nothing left"

# -- preemption across the fleet (Slurm 23.02+: PreemptParameters=
# reclaim_licenses; 22.05 cannot preempt for licenses, slurm-preempt.sh):
# a two-node job holds both chassis' 8 GPUs; an urgent job for node2
# asking 4 preempts it: it is requeued, its epilogs on both nodes give
# every GPU back to its own chassis, the urgent job runs with 4 of c2's
ver=$(slurmctld -V | awk '{print $2}')
case $ver in
2[0-2].*|23.0[01].*) echo "# Slurm $ver: no multi-node preemption for licenses (23.02+)" ;;
*)
# both pools whole in falcond's view first (the case needs all 16 GPUs).
# The trixie lane's two-node job once found "8 GPU wanted for host vm,
# 6 free" here: a periodic reconcile's read, begun before the hetjob's
# release, put its GPUs back on vm's port in falcond's cache
# (falcond-fleet.sh section 6 tests that fix)
all_free() { "$FALCONCTL" status --json 2>/dev/null | python3 -c 'import json,sys
d = json.load(sys.stdin)["devices"]
sys.exit(0 if d and all(x["state"] == "free" for x in d if x["type"] == "GPU") else 1)'; }
wait_for 60 "every GPU of both chassis free in falcond's view" all_free ||
	t_fail "not every GPU free: $("$FALCONCTL" status 2>&1 | tail -20)"
jl=$(sbatch --parsable -p debug -N 2 --requeue --gres=falcon_gpu:8 -o /dev/null --wrap 'sleep 300') ||
	t_fail "sbatch (low, -N 2)"
s_wait_state "$jl" RUNNING
fp_on_buses 8 8 "job $jl"
[ "$(jf "$jl" Licenses)" = "c1_gpu:8,c2_gpu:8" ] || t_fail "job $jl licenses: $(jf "$jl" Licenses)"
ju=$(sbatch --parsable -p urgent -w node2 --gres=falcon_gpu:4 -o /dev/null --wrap 'sleep 10') ||
	t_fail "sbatch (urgent)"
wait_for 90 "job $ju to run" s_in_state "$ju" RUNNING COMPLETED ||
	{ fp_logs; t_fail "job $ju: $s_st, reason $(squeue -h -j "$ju" -o %r); job $jl: $(s_job_state "$jl")"; }
[ "$(jf "$jl" Restarts)" -ge 1 ] 2>/dev/null ||
	t_fail "job $jl: $(s_job_state "$jl"), Restarts=$(jf "$jl" Restarts): not requeued by the preemption"
[ "$(jf "$ju" Licenses)" = c2_gpu:4 ] && [ "$(jf "$ju" NodeList)" = node2 ] ||
	t_fail "job $ju: licenses $(jf "$ju" Licenses) on $(jf "$ju" NodeList)"
fp_on_buses 0 4 "after the preemption"
case $(jf "$jl" AdminComment) in
*falcon:released*) ;;
*) t_fail "job $jl, preempted: tag '$(jf "$jl" AdminComment)', expected falcon:released" ;;
esac
t_ok "job $ju (urgent, node2) preempted two-node job $jl (Restarts=$(jf "$jl" Restarts)): c1's 8 GPUs back, 4 of c2's on node2"
scancel "$jl"
wait_for 60 "job $ju to complete" s_in_state "$ju" COMPLETED FAILED CANCELLED NODE_FAIL || t_fail "job $ju: $s_st"
[ "$s_st" = COMPLETED ] || { fp_logs; t_fail "job $ju ended $s_st"; }
s_wait_done "$jl"
fp_on_buses 0 0 "devices left after the preemption"
[ -z "$(sinfo -h -R)" ] || t_fail "drained: $(sinfo -h -R)"
t_ok "nothing left, no node drained"
;;
esac
