#!/bin/sh
# slurm-hres.sh - HRES as the chassis pool (Slurm 25.11+ only; skips
# before): two nodes, the host's on chassis c1 and "node2" (its own network
# and UTS namespace) on c2, each a falcon-sim of 8 GPUs and 1 NVMe, one
# falcond, falcon-prolog/epilog on both, job_submit_falcon, and the
# resources.yaml `falconctl slurm-conf --pool hres` writes from falcond's
# counts (HRES MODE_3: falcon_pool_gpu, a layer per chassis) in place of
# per-chassis licenses and features:
#  - the main job (`sbatch --gres=falcon_gpu:4`) completes tagged
#    falconGPUs, charged falcon_pool_gpu:4;
#  - --falcon-topology=auto with the host's own 8 GPUs taken takes c1's
#    GPUs, free in its layer now (job_submit_falcon reads a layer's use);
#  - 9 GPUs per node, more than any chassis has, is refused at submit
#    (Slurm takes it: the root layer's count is -1, and the job would pend
#    for ever);
#  - with c1 full a job of the partition starts on node2 with c2's GPUs,
#    no requeue; a two-node job waits, then runs with each node's GPUs from
#    its own chassis;
#  - a hetjob whose later component asks for chassis GPUs is refused with
#    the reason; with them in its first component it runs;
#  - a chassis that stops answering has its free GPUs held past
#    UnreachableHold by falcond's reservation of its layer
#    (falcon_pool_gpu(node2):8), its NVMe logged as what Slurm cannot hold
#    (its reservations take one MODE_3 layer in all), the reservation gone
#    once it answers (before, falcond asked for licenses c2_gpu the site
#    does not have, and failed at every reconcile).  Slurm 26.05.3's main
#    scheduler does not subtract reserved MODE_3 counts
#    (src/slurmctld/licenses.c _foreach_hres_pre_select: total - used), so
#    falcond also sets node2's Gres falcon_gpu/falcon_nvme to 0: a job for
#    node2's chassis GPUs is refused at submit, one released during the
#    hold is held by Slurm (BadConstraints) and released by falcond after,
#    a job without chassis devices still runs on node2 (before, a job for
#    node2 started and its prolog found c2 unreachable);
#  - falconctl report counts the jobs per topology from their tags;
#  - the pool full, an urgent job for node2 (PreemptParameters=
#    reclaim_licenses): Slurm 26.05.3 does not preempt for HRES (why: the
#    comment there), so it waits, nothing is taken from the running job,
#    and it runs on node2 once the pool frees.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/slurm-lib.sh"
. "$top_srcdir/tests/integration/prolog-lib.sh"
fp_slurm_node
s_need_job_submit
s_hres_release || t_skip "Slurm $(slurmctld -V 2>&1): HRES MODE_3 needs 25.11 or later"
s_need_netns

fp_two_chassis

# -- resources.yaml as falconctl slurm-conf --pool hres writes it, the
# counts from falcond's inventory
s_hres_yaml "$t_tmp/resources.yaml"
[ "$(grep -c '^      count: 8$' "$t_tmp/resources.yaml")" = 2 ] ||
	t_fail "resources.yaml without falcond's counts: $(cat "$t_tmp/resources.yaml.out")"

# the workload history --falcon-topology=auto reads (fp_advice)
fp_advice "$t_tmp/advice.json"
echo "AdviceFile=$t_tmp/advice.json" >>"$FALCON_CONF"
# the host's node has 8 GPUs of its own (--gpus), for auto
fp_node2_start --hres "$t_tmp/resources.yaml" --job-submit "$plugin_dir" \
	--falcon-conf "$FALCON_CONF" --preempt REQUEUE --gpus 8
fp_node2_conf "s|^SysfsRoot=.*|SysfsRoot=$t_tmp/sim-c2/sysfs/node1|" \
	"s|^RunDir=.*|RunDir=$t_tmp/run2|"
fp_falcond_with_slurm
scontrol show lic -o >"$t_tmp/lic"
grep -q "^LicenseName=falcon_pool_gpu Total=8 .*Nodes=node2 " "$t_tmp/lic" ||
	{ s_logs; t_fail "no layer of c2 in slurmctld: $(cat "$t_tmp/lic")"; }
wait_for 30 "falcond's slurm.conf check" grep -q \
	"slurm.conf agrees with falcon.conf (2 chassis, 2 hosts)" "$t_tmp/falcond.log" ||
	t_fail "falcond: $(grep slurm.conf "$t_tmp/falcond.log")"
t_ok "slurmctld loaded the resources.yaml falconctl slurm-conf wrote (a layer of 8 GPUs per chassis); falcond agrees"

jf() { scontrol show job -o "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# -- the main job
t_start=$(date -d "@$(($(date +%s) - 1))" +%Y-%m-%dT%H:%M:%S)
jm=$(sbatch --parsable -w "$FP_HOST" --gres=falcon_gpu:4 -o /dev/null --wrap 'sleep 1')
fp_completed "$jm"
[ "$s_st" = COMPLETED ] || { fp_logs; t_fail "job $jm: $s_st"; }
case $(jf "$jm" AdminComment) in
falcon:topo=falconGPUs,f=4,*) ;;
*) t_fail "job $jm: AdminComment '$(jf "$jm" AdminComment)'" ;;
esac
[ "$(jf "$jm" Licenses)" = falcon_pool_gpu:4 ] || t_fail "job $jm: Licenses=$(jf "$jm" Licenses)"
fp_on_buses 0 0 "job $jm's GPUs left"
la=$(jf "$jm" LicensesAlloc)
[ -z "$la" ] || lalloc=", LicensesAlloc=$la"
t_ok "main job $jm: COMPLETED, $(jf "$jm" AdminComment), Licenses=falcon_pool_gpu:4${lalloc:-}"

# -- --falcon-topology=auto: the host's own GPUs taken, auto reads what
# c1's layer has free (falcon_pool_gpu(HOST): its total less what jobs
# use) and takes chassis GPUs now rather than wait (before, it read the
# license c1_gpu the site does not have: no chassis GPU free, so it waited
# for the node's own)
spank=$top_builddir/plugin/.libs/spank_falcon.so
[ -f "$spank" ] || t_fail "no $spank: spank_falcon was not built"
printf 'required %s conf=%s\n' "$spank" "$FALCON_CONF" >"$t_tmp/client-plugstack.conf"
sed "s|^PlugStackConfig=.*|PlugStackConfig=$t_tmp/client-plugstack.conf|" "$SLURM_CONF" \
	>"$t_tmp/client-slurm.conf"
jo=$(sbatch --parsable -w "$FP_HOST" --gres=gpu:8 -o /dev/null --wrap 'sleep 300') || t_fail "sbatch gpu:8"
s_wait_state "$jo" RUNNING
jt=$(SLURM_CONF=$t_tmp/client-slurm.conf sbatch --parsable -w "$FP_HOST" -J bert \
	--falcon-topology=auto --gres=falcon_gpu:4 -o /dev/null --wrap 'sleep 1' 2>"$t_tmp/auto.err") ||
	t_fail "sbatch --falcon-topology=auto: $(cat "$t_tmp/auto.err")"
grep -q "falcon: --falcon-topology=auto: falconGPUs (--gres=falcon_gpu:4) by the workload's history" \
	"$t_tmp/auto.err" || t_fail "auto job $jt: sbatch said '$(cat "$t_tmp/auto.err")'"
fp_completed "$jt"
case $(jf "$jt" AdminComment) in
falcon:topo=falconGPUs,f=4,*auto=1*) ;;
*) t_fail "auto job $jt: AdminComment '$(jf "$jt" AdminComment)'" ;;
esac
[ "$(jf "$jt" Licenses)" = falcon_pool_gpu:4 ] || t_fail "auto job $jt: Licenses=$(jf "$jt" Licenses)"
scancel "$jo"
s_wait_done "$jo"
fp_on_buses 0 0 "auto job $jt's GPUs left"
t_ok "auto on HRES: the node's own GPUs taken, job $jt took c1's ($(grep -o 'by the .*' "$t_tmp/auto.err" | cut -c1-100)); $(jf "$jt" AdminComment)"

# -- 9 of 8: refused at submit
if sbatch --gres=falcon_gpu:9 -o /dev/null --wrap true >"$t_tmp/nine.out" 2>&1; then
	t_fail "sbatch --gres=falcon_gpu:9 accepted: $(cat "$t_tmp/nine.out")"
fi
grep -q "falcon: the largest chassis of the job's nodes (c1) has 8 GPUs; asked 9 per node" "$t_tmp/nine.out" ||
	t_fail "sbatch --gres=falcon_gpu:9: $(cat "$t_tmp/nine.out")"
t_ok "9 GPUs per node refused at submit: $(sed -n 's/.*\(falcon: the largest.*\)/\1/p' "$t_tmp/nine.out")"

# -- c1 full: a job of the partition starts on node2, no requeue
ja=$(sbatch --parsable -w "$FP_HOST" --gres=falcon_gpu:8 -o /dev/null --wrap 'sleep 300')
s_wait_state "$ja" RUNNING
fp_on_buses 8 - "job $ja"
jb=$(sbatch --parsable --gres=falcon_gpu:2 -o /dev/null --wrap 'sleep 300')
s_wait_state "$jb" RUNNING
[ "$(jf "$jb" NodeList)" = node2 ] || t_fail "job $jb on $(jf "$jb" NodeList), not node2"
fp_on_buses - 2 "job $jb"
sleep 2
[ "$(s_job_state "$jb")" = RUNNING ] && [ "$(jf "$jb" Restarts)" = 0 ] ||
	{ fp_logs; t_fail "job $jb: $(s_job_state "$jb"), Restarts=$(jf "$jb" Restarts)"; }
t_ok "c1 full: job $jb started on node2 with c2's 2 GPUs, Restarts=0"

# -- two nodes, 2 GPUs each: waits while c1 is full, then each node's own
jc=$(sbatch --parsable -N 2 --gres=falcon_gpu:2 -o /dev/null --wrap 'sleep 2')
# (Slurm 26.05 gives an HRES wait the reason Resources, not Licenses)
pend_reason() { r=$(squeue -h -j "$1" -o %r); [ "$r" = Resources ] || [ "$r" = Licenses ]; }
wait_for 30 "job $jc's pending reason" pend_reason "$jc" ||
	t_fail "job $jc: $(s_job_state "$jc"), reason $r"
[ "$(s_job_state "$jc")" = PENDING ] || t_fail "job $jc: $(s_job_state "$jc") while c1 is full"
t_ok "job $jc (-N 2) pends for the pool while c1 is full (reason $r)"
scancel "$ja" "$jb"
wait_for 120 "job $jc to complete" s_in_state "$jc" COMPLETED FAILED CANCELLED NODE_FAIL ||
	{ fp_logs; t_fail "job $jc: $s_st"; }
[ "$s_st" = COMPLETED ] || { fp_logs; t_fail "job $jc: $s_st"; }
python3 - "$t_tmp/state/history.jsonl" "$jc" <<'EOP' || { fp_logs; t_fail "job $jc's leases"; }
import json, sys
seen = {}
for line in open(sys.argv[1]):
    h = json.loads(line)
    if h.get("job_id") == int(sys.argv[2]):
        seen.setdefault(h.get("chassis"), set()).add(h.get("device"))
sys.exit(0 if sorted(seen) == ["c1", "c2"] and all(len(v) == 2 for v in seen.values()) else 1)
EOP
s_wait_done "$ja"
s_wait_done "$jb"
fp_on_buses 0 0 "devices left"
t_ok "job $jc ran on both nodes, 2 GPUs from each node's own chassis; nothing left"

# -- a hetjob: a later component asking for chassis GPUs is refused with
# the reason (Slurm counts HRES on the first component's nodes only); the
# first component's GPUs are counted and composed from its node's chassis
cat >"$t_tmp/het.sh" <<EOH
#!/bin/sh
#SBATCH -w $FP_HOST --gres=falcon_gpu:2 -o /dev/null
#SBATCH hetjob
#SBATCH -w node2 --gres=falcon_gpu:1 -o /dev/null
sleep 15
EOH
if sbatch "$t_tmp/het.sh" >"$t_tmp/het.out" 2>&1; then
	t_fail "hetjob with falcon_gpu in its second component accepted: $(cat "$t_tmp/het.out")"
fi
grep -q "falcon: a hetjob component after the first asks for falcon_gpu/falcon_nvme, and this site counts them as HRES" \
	"$t_tmp/het.out" || t_fail "hetjob: $(cat "$t_tmp/het.out")"
sed -i 's/^#SBATCH -w node2 --gres=falcon_gpu:1 /#SBATCH -w node2 /' "$t_tmp/het.sh"
jk=$(sbatch --parsable "$t_tmp/het.sh" 2>"$t_tmp/het.err") || t_fail "hetjob: $(cat "$t_tmp/het.err")"
jk=${jk%%+*}
het_running() { [ "$(squeue -h -j "$jk" -o %T | sort -u)" = RUNNING ] && [ "$(squeue -h -j "$jk" | wc -l)" = 2 ]; }
wait_for 60 "hetjob $jk's components to run" het_running ||
	{ fp_logs; t_fail "hetjob $jk: $(squeue -h -j "$jk" -o '%i %T %r' | paste -sd' ')"; }
fp_on_buses 2 0 "hetjob $jk"
tag=$(scontrol show job -o "$jk" | grep "^JobId=$jk " | tr ' ' '\n' | sed -n 's/^AdminComment=//p')
case $tag in falcon:topo=falconGPUs,f=2,*) ;; *) t_fail "hetjob $jk: tag '$tag'" ;; esac
het_gone() { [ -z "$(squeue -h -j "$jk" 2>/dev/null)" ]; }
wait_for 120 "hetjob $jk to end" het_gone || { fp_logs; t_fail "hetjob $jk: $(squeue -h -j "$jk" -o '%i %T %r')"; }
st=$(sacct -n -X -P -j "$jk" -o JobID,State | sort | paste -sd' ')
[ "$st" = "${jk}+0|COMPLETED ${jk}+1|COMPLETED" ] || { fp_logs; t_fail "hetjob $jk: $st"; }
fp_on_buses 0 0 "hetjob's devices left"
t_ok "hetjob: falcon_gpu in a later component refused with the reason; with them in the first only, it ran tagged falconGPUs, nothing left"

# -- c2 stops answering: past UnreachableHold (default 30 s) falcond's
# reservation holds its layer's free GPUs, and node2's Gres falcon_gpu and
# falcon_nvme go to 0: Slurm 26.05.3's scheduler does not subtract the
# reservation, a GRES count it does.  A job held by its user before, then
# released during the hold, is held by Slurm as BadConstraints (only
# node2 could run it); falcond releases it once c2 answers, and it runs.
resv_lic() { scontrol show reservation "$1" 2>/dev/null | tr ' ' '\n' | sed -n 's/^Licenses=//p' | tr ';' ','; }
held() { [ "$(resv_lic falcon-c2-quarantine)" = "falcon_pool_gpu(node2):8" ]; }
node_gres() { scontrol show node -o "$1" | tr ' ' '\n' | sed -n 's/^Gres=//p'; }
g0=$(node_gres node2)
case $g0 in *falcon_gpu:[1-9]*) ;; *) t_fail "node2: Gres=$g0 before the hold" ;; esac
jw=$(sbatch --parsable -H -w node2 --gres=falcon_gpu:2 -o /dev/null --wrap 'sleep 1') ||
	t_fail "sbatch -H -w node2"
fd_sim c2 POST /admin/faults '{"rules":[{"action":"timeout","count":-1,"path":"/redfish/v1/*"}]}' >/dev/null
wait_for 120 "falcond to hold c2's free GPUs" held ||
	{ tail -20 "$t_tmp/falcond.log" >&2; t_fail "reservation falcon-c2-quarantine: '$(resv_lic falcon-c2-quarantine)'"; }
# c2's free NVMe is not held: one layer in all (falcond logs it)
wait_for 30 "falcond to say what Slurm cannot hold" grep -q \
	"reservations: not held in Slurm: NVMe of falcon-c2-quarantine:1 (Slurm's reservations take one HRES MODE_3 layer" \
	"$t_tmp/falcond.log" || t_fail "falcond: $(grep 'reservation' "$t_tmp/falcond.log" | tail -3)"
gres_held() { [ "$(node_gres node2)" = "$(echo "$g0" | sed 's/falcon_gpu:[0-9]*/falcon_gpu:0/;s/falcon_nvme:[0-9]*/falcon_nvme:0/')" ]; }
wait_for 30 "node2's Gres held" gres_held ||
	{ tail -20 "$t_tmp/falcond.log" >&2; t_fail "node2: Gres=$(node_gres node2) while c2 is held"; }
grep -q "node node2: Gres=.*falcon_gpu:0.* while chassis c2 is unreachable" "$t_tmp/falcond.log" ||
	t_fail "falcond did not log node2's hold: $(grep node2 "$t_tmp/falcond.log" | tail -3)"
t_ok "c2 unreachable: falcond's reservation holds its layer, Licenses=$(resv_lic falcon-c2-quarantine); node2 Gres=$(node_gres node2) (was $g0)"
# a job that needs only node2 does not start there: refused at submit
if sbatch -w node2 --gres=falcon_gpu:2 -o /dev/null --wrap true >"$t_tmp/hold.out" 2>&1; then
	t_fail "sbatch -w node2 --gres=falcon_gpu:2 accepted during the hold: $(cat "$t_tmp/hold.out")"
fi
grep -q "Requested node configuration is not available" "$t_tmp/hold.out" ||
	t_fail "sbatch -w node2 during the hold: $(cat "$t_tmp/hold.out")"
scontrol release "$jw"
bad() { [ "$(squeue -h -j "$jw" -o %r)" = BadConstraints ]; }
wait_for 60 "job $jw held as BadConstraints" bad ||
	{ fp_logs; t_fail "job $jw: $(s_job_state "$jw"), reason $(squeue -h -j "$jw" -o %r)"; }
# node2 is not drained: a job without chassis devices runs there
jn=$(sbatch --parsable -w node2 -o /dev/null --wrap true)
fp_completed "$jn"
[ "$s_st" = COMPLETED ] || { fp_logs; t_fail "job $jn (no chassis devices) on node2: $s_st"; }
case $(sinfo -h -n node2 -o %T) in drain*) t_fail "node2 drained: $(sinfo -h -n node2 -o '%T %E')" ;; esac
t_ok "during the hold: a job for node2's chassis GPUs refused at submit ($(grep -o 'Requested node configuration is not available' "$t_tmp/hold.out")), job $jw held by Slurm as BadConstraints; job $jn without them ran on node2"
fd_sim c2 DELETE /admin/faults >/dev/null
wait_for 60 "the hold to go" sh -c "! scontrol show reservation falcon-c2-quarantine >/dev/null 2>&1" ||
	t_fail "reservation falcon-c2-quarantine still holds '$(resv_lic falcon-c2-quarantine)'"
grep -q "reservation falcon-c2-quarantine deleted" "$t_tmp/falcond.log" ||
	t_fail "falcond did not log the end of the hold"
gres_back() { [ "$(node_gres node2)" = "$g0" ]; }
wait_for 30 "node2's Gres back" gres_back || t_fail "node2: Gres=$(node_gres node2), not $g0"
fp_completed "$jw"
[ "$s_st" = COMPLETED ] || { fp_logs; t_fail "job $jw after the hold: $s_st"; }
grep -q "job $jw released: held as BadConstraints during an unreachable hold" "$t_tmp/falcond.log" ||
	t_fail "falcond did not release job $jw: $(grep "job $jw" "$t_tmp/falcond.log")"
[ "$(jf "$jw" NodeList)" = node2 ] || t_fail "job $jw ran on $(jf "$jw" NodeList)"
fp_on_buses 0 0 "job $jw's GPUs left"
t_ok "c2 answers: the reservation is gone, node2 Gres=$g0 again, job $jw released by falcond and COMPLETED on node2"

# -- preemption with the pool full: a two-node job holds both chassis' 8
# GPUs; an urgent job for node2 asking 4 requeues it
all_free() { "$FALCONCTL" status --json 2>/dev/null | python3 -c 'import json,sys
d = json.load(sys.stdin)["devices"]
sys.exit(0 if d and all(x["state"] == "free" for x in d if x["type"] == "GPU") else 1)'; }
wait_for 60 "every GPU of both chassis free in falcond's view" all_free ||
	t_fail "not every GPU free: $("$FALCONCTL" status 2>&1 | tail -20)"
jl=$(sbatch --parsable -p debug -N 2 --requeue --gres=falcon_gpu:8 -o /dev/null --wrap 'sleep 300') ||
	t_fail "sbatch (low, -N 2)"
s_wait_state "$jl" RUNNING
fp_on_buses 8 8 "job $jl"
ju=$(sbatch --parsable -p urgent -w node2 --gres=falcon_gpu:4 -o /dev/null --wrap 'sleep 10') ||
	t_fail "sbatch (urgent)"
# Slurm 26.05.3 does not preempt for HRES: reclaim_licenses' list skips
# HRES entries (src/slurmctld/licenses.c _foreach_license_job_test returns
# at hres_id), and select/cons_tres _run_now() counts a MODE_3 layer once,
# total - used, before its preemption passes (licenses.c
# _foreach_hres_pre_select), never adding a preemptee's share back.  What
# holds: the urgent job waits, nothing is taken from the running job, and
# it runs once the pool frees.  (A tripwire: should Slurm start preempting
# for HRES, this fails and doc/ADMIN.md's "Preemption" must say so.)
sleep 15
[ "$(s_job_state "$ju")" = PENDING ] && [ "$(s_job_state "$jl")" = RUNNING ] &&
	[ "$(jf "$jl" Restarts)" = 0 ] ||
	t_fail "job $ju: $(s_job_state "$ju"), job $jl: $(s_job_state "$jl") Restarts=$(jf "$jl" Restarts): Slurm preempted for HRES (update doc/ADMIN.md, Preemption)"
fp_on_buses 8 8 "job $jl while $ju waits"
t_ok "urgent job $ju waits ($(squeue -h -j "$ju" -o %r)): Slurm 26.05.3 does not preempt for HRES; job $jl keeps its 16 GPUs"
scancel "$jl"
wait_for 90 "job $ju to complete" s_in_state "$ju" COMPLETED FAILED CANCELLED NODE_FAIL || t_fail "job $ju: $s_st"
[ "$s_st" = COMPLETED ] && [ "$(jf "$ju" NodeList)" = node2 ] ||
	{ fp_logs; t_fail "job $ju ended $s_st on $(jf "$ju" NodeList)"; }
s_wait_done "$jl"
fp_on_buses 0 0 "devices left"
[ -z "$(sinfo -h -R)" ] || t_fail "drained: $(sinfo -h -R)"
t_ok "nothing left, no node drained"

# -- the accounting report per topology reads the jobs' tags, not the pool
"$FALCONCTL" report --start "$t_start" --end "$(date -d '+1 min' +%Y-%m-%dT%H:%M:%S)" --by topology \
	--format json >"$t_tmp/report.json" 2>"$t_tmp/report.err" ||
	t_fail "falconctl report: $(cat "$t_tmp/report.err")"
python3 - "$t_tmp/report.json" <<'EOP' || t_fail "falconctl report: $(cat "$t_tmp/report.json")"
import json, sys
g = {x["key"]: x for x in json.load(open(sys.argv[1]))["groups"]}
sys.exit(0 if g.get("falconGPUs", {}).get("jobs", 0) >= 6 else 1)
EOP
t_ok "falconctl report --by topology: $(python3 -c 'import json,sys; print(", ".join("%s %d jobs" % (x["key"], x["jobs"]) for x in json.load(open(sys.argv[1]))["groups"]))' "$t_tmp/report.json")"
