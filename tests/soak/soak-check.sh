#!/bin/sh
# soak-check.sh - the soak's judges without a cluster: soak-job.py's
# verdict on a job whose BDFs are its lease's slots (ok, its kept lease of an
# earlier run and its settling lease of a
# compose a killed falcond left in flight not counted), one given a slot
# of no lease of its (wrong), one given fewer devices than asked (wrong),
# one whose device is gone by the end (lost); soak-report.py's counts of a
# slot in two jobs at once (verdicts, and falcond's device history), a
# device attached without a lease, a wrong
# mapping, an oversized job accepted (exit 1) and of a clean run (exit 0);
# the lifecycle judge's tags (an NVMe-only job's has no topology) and a job
# whose devices a chassis restart took away (lost, not a wrong mapping);
# the fleet's (make soak-fleet): soak-job.py in map mode (its node's own
# lease of a multi-node job, a hetjob component by SOAK_JOB_ID, another
# job's slot wrong, devices named CHASSIS:ID) and soak-report.py --fleet
# (the same slot id on two chassis is two devices, a kept lease is no
# leak; utilization, waits, the chassis' time, CPU and RSS printed; an
# unleased device on one chassis, a pool_short requeue, a lease left and
# a falcond start that failed each fail it).
# falcon-sim's /admin/state is a file served by python3 -m http.server.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
command -v python3 >/dev/null 2>&1 || t_skip "python3 not installed"
JOB=$top_srcdir/tests/soak/soak-job.py
REPORT=$top_srcdir/tests/soak/soak-report.py

# sim_state DEVICES - the chassis' /admin/state with these devices (JSON).
sim_state() {
	mkdir -p "$t_tmp/www/admin"
	echo "{\"chassis\":\"falcon1\",\"devices\":[$1]}" >"$t_tmp/www/admin/state"
}
dev() { # dev ID HOST BDF - one device attached to HOST at BDF
	echo "{\"id\":\"$1\",\"owner\":\"H1\",\"host\":\"$2\",\"bdf\":\"$3\",\"present\":true,\"staged\":false}"
}
free() { echo "{\"id\":\"$1\",\"owner\":null,\"host\":null,\"bdf\":null,\"present\":false,\"staged\":false}"; }
sim_state "$(dev drawer1_slot1 node1 0000:3d:00.0),$(dev drawer1_slot2 node1 0000:3e:00.0),$(dev drawer2_slot1 node2 0000:3d:00.0),$(free drawer2_slot2)"
cat >"$t_tmp/ledger.json" <<'EOF'
{"version":1,"seq":3,"quarantine":[],"devices":[],"leases":[
 {"id":"l5","job_id":7,"host":"node1","state":"kept","devices":[{"chassis":"c1","id":"drawer2_slot4"}]},
 {"id":"l6","job_id":7,"host":"node1","state":"settling","devices":[{"chassis":"c1","id":"drawer2_slot3"}]},
 {"id":"l7","job_id":7,"host":"node1","devices":[{"chassis":"c1","id":"drawer1_slot1"}]},
 {"id":"l8","job_id":8,"host":"node1","devices":[{"chassis":"c1","id":"drawer2_slot1"}]},
 {"id":"l9","job_id":9,"host":"node1","devices":[{"chassis":"c1","id":"drawer1_slot2"}]}]}
EOF
SPORT=$(free_port)
echo "$SPORT" >"$t_tmp/port"
python3 -m http.server --bind 127.0.0.1 --directory "$t_tmp/www" "$SPORT" \
	>"$t_tmp/http.log" 2>&1 &
http_pid=$!
t_on_exit "kill $http_pid 2>/dev/null || true"
wait_for -p $http_pid 20 "the http server" curl -sf -o /dev/null "http://127.0.0.1:$SPORT/admin/state" ||
	t_fail "http.server did not start: $(cat "$t_tmp/http.log")"
mkdir -p "$t_tmp/v"

# judge JOB BDF GPUS [HOLD] - soak-job.py for job JOB given BDF, asking GPUS
# falcon_gpu; its verdict line in $t_tmp/verdict.
judge() {
	echo "{\"gpus\":[{\"bdf\":\"$2\",\"location\":\"falcon\"},{\"bdf\":\"0000:18:00.0\",\"location\":\"local\"}],\"nvme\":[]}" \
		>"$t_tmp/topo-$1.json"
	env SLURM_JOB_ID="$1" FALCON_TOPOLOGY_FILE="$t_tmp/topo-$1.json" CUDA_VISIBLE_DEVICES=0,1 \
		python3 "$JOB" "$t_tmp/v" "$t_tmp/port" "$t_tmp/ledger.json" node1 "$3" 0 "${4:-0}" \
		>/dev/null || true
	cat "$t_tmp/v/$1.0" >"$t_tmp/verdict"
}

judge 7 0000:3d:00.0 1
grep -q 'result=ok devices=drawer1_slot1 ' "$t_tmp/verdict" || t_fail "job 7: $(cat "$t_tmp/verdict")"
t_ok "BDF of the lease's slot: $(cat "$t_tmp/verdict")"
judge 8 0000:3d:00.0 1
grep -q 'result=wrong .*not a slot of the job.s lease' "$t_tmp/verdict" ||
	t_fail "job 8: $(cat "$t_tmp/verdict")"
t_ok "slot of another lease: $(cat "$t_tmp/verdict")"
judge 9 0000:3e:00.0 2
grep -q 'result=wrong .*asked 2 GPU + 0 NVMe, topology.json has 1 + 0' "$t_tmp/verdict" ||
	t_fail "job 9: $(cat "$t_tmp/verdict")"
t_ok "fewer devices than asked: $(cat "$t_tmp/verdict")"
# the chassis forgets job 7's device while it holds it (3 s): after the
# job's first GET /admin/state (http.server logs each request)
n=$(grep -c 'GET /admin/state' "$t_tmp/http.log")
(wait_for 30 "the job's first request" sh -c \
	"[ \$(grep -c 'GET /admin/state' '$t_tmp/http.log') -gt $n ]" &&
	sim_state "$(free drawer1_slot1)") &
judge 7 0000:3d:00.0 1 3
grep -q 'result=lost' "$t_tmp/verdict" || t_fail "job 7 lost: $(cat "$t_tmp/verdict")"
t_ok "device gone by the end: $(cat "$t_tmp/verdict")"

# -- the report
R=$t_tmp/run
mkdir -p "$R/verdicts"
printf '1 falconGPUs 1 0\n2 falconGPUs 1 0\n3 falconGPUs 1 0\n' >"$R/jobs"
printf '1|COMPLETED\n2|REQUEUED\n2|COMPLETED\n3|COMPLETED\n' >"$R/sacct"
echo 'job=1 restart=0 start=100.0 end=110.0 result=ok devices=drawer1_slot1 detail=""' >"$R/verdicts/1.0"
echo 'job=2 restart=1 start=110.5 end=120.0 result=ok devices=drawer1_slot1 detail=""' >"$R/verdicts/2.1"
echo 'job=3 restart=0 start=100.0 end=105.0 result=ok devices=drawer1_slot2 detail=""' >"$R/verdicts/3.0"
cp "$t_tmp/ledger.json" "$R/ledger.json"
# a leased device attached: falcon-sim's chassis id is not the ChassisName
echo "{\"chassis\":\"falcon1\",\"devices\":[$(dev drawer1_slot1 node1 0000:3d:00.0)]}" >"$R/simstate.json"
python3 "$REPORT" "$R" 60 >"$t_tmp/report" || t_fail "clean run: $(cat "$t_tmp/report")"
grep -q '^soak: completed 3, requeued 1 (jobs 1), failed 0' "$t_tmp/report" &&
	grep -q '^soak: PASS$' "$t_tmp/report" || t_fail "clean run: $(cat "$t_tmp/report")"
grep -q "^soak: requeue reasons (falcon-prolog's AdminComment): none; requeues without one: 1\$" \
	"$t_tmp/report" || t_fail "clean run, no reasons: $(cat "$t_tmp/report")"
t_ok "clean run: PASS, 3 completed, 1 requeue"
# job 2's requeue, as slurmctld logs the AdminComment falcon-prolog set;
# job 99 is not one of the run's
cat >"$R/requeued-why" <<'EOF'
[2026-11-26T16:16:58.743] _update_job: setting admin_comment to falcon:requeued=chassis_slow for JobId=2
[2026-11-26T16:20:36.254] _update_job: setting admin_comment to falcon:requeued=falcond_unreachable for JobId=99
EOF
python3 "$REPORT" "$R" 60 >"$t_tmp/report" || t_fail "clean run: $(cat "$t_tmp/report")"
grep -q "^soak: requeue reasons (falcon-prolog's AdminComment): chassis_slow 1; requeues without one: 0\$" \
	"$t_tmp/report" || t_fail "clean run, reasons: $(cat "$t_tmp/report")"
t_ok "requeue reasons from slurmctld.log: chassis_slow 1"

echo 'job=2 restart=1 start=109.0 end=120.0 result=ok devices=drawer1_slot1 detail=""' >"$R/verdicts/2.1"
echo 'job=3 restart=0 start=100.0 end=105.0 result=wrong devices=drawer1_slot2 detail="x"' >"$R/verdicts/3.0"
echo '4 too-big 9 0' >>"$R/jobs"
sim_state "$(dev drawer2_slot2 node1 0000:3e:00.0)"
cp "$t_tmp/www/admin/state" "$R/simstate.json"
python3 - "$R/ledger.json" <<'EOP'
import json, sys
led = json.load(open(sys.argv[1]))
led["devices"] = [{"chassis": "c1", "device": "drawer1_slot3", "history": [
    {"job_id": 5, "lease": "L-5", "host": "node1", "attached": 1000, "detached": 3000, "result": "released"},
    {"job_id": 6, "lease": "L-6", "host": "node1", "attached": 2000, "detached": 4000, "result": "released"}]}]
json.dump(led, open(sys.argv[1], "w"))
EOP
rc=0
python3 "$REPORT" "$R" 60 >"$t_tmp/report" || rc=$?
[ $rc = 1 ] || t_fail "bad run: exit $rc: $(cat "$t_tmp/report")"
for want in 'devices attached without a lease: 1' 'devices in two jobs: 1' \
	"devices in two leases at once (falcond's history): 1" \
	'drawer1_slot3 in the leases of jobs 5 and 6 at once' 'wrong mappings: 1' 'oversized jobs accepted: 1' 'drawer1_slot1 in jobs 1 and 2 at once' \
	'attached without a lease: drawer2_slot2' 'FAIL'; do
	grep -q "^soak: *$want" "$t_tmp/report" || t_fail "bad run lacks '$want': $(cat "$t_tmp/report")"
done
t_ok "bad run: exit 1, each correctness count 1"

# -- the lifecycle judge (soak-report.py --lifecycle): the tags
L=$t_tmp/life
mkdir -p "$L/verdicts"
printf '11 falconGPUs 2 0\n12 falconGPUs 1 0\n13 hybridGPUs 1 0\n14 falconGPUs 1 0\n15 falconNVMe 0 1\n16 falconGPUs 1 0\n20 falconGPUs 1 0\n' >"$L/jobs"
printf '11|COMPLETED\n12|REQUEUED\n12|COMPLETED\n13|CANCELLED by 0\n14|COMPLETED\n15|COMPLETED\n16|COMPLETED\n20|COMPLETED\n' >"$L/sacct"
# job 15 has NVMe only: its tag has no GPU topology; job 16 was running
# when the chassis restarted (its zones lost): its devices were gone when
# it looked, lost rather than a wrong mapping
cat >"$L/tags" <<'EOF'
11|COMPLETED|falcon:topo=falconGPUs,f=2,check=pass
12|COMPLETED|falcon:topo=falconGPUs,f=1,check=pass
13|CANCELLED by 0|falcon:released
14|COMPLETED|falcon:topo=falconGPUs,f=1,check=skipped
15|COMPLETED|falcon:nvme=falcon,check=skipped
16|COMPLETED|falcon:topo=falconGPUs,f=1,check=skipped
20|COMPLETED|falcon:topo=falconGPUs,f=1,check=skipped
EOF
echo '1700000005 chassis-restart 14 s, running jobs: 16 ' >"$L/chaos.log"
echo 'job=16 restart=0 start=1700000005.2 end=1700000035.0 result=wrong devices=- detail="0000:3e:00.0: no device of the chassis attached to node1 there"' >"$L/verdicts/16.0"
# job 14 was requeued for an error of falcond's without a cause of its own
# (fp_wait_why's "compose"): a true tag when falcond logged one; task 0 of
# array 11 is job 19 to falcond (slurmctld names it "11_0(19)")
cat >"$L/requeued-why" <<'EOF'
[2026-11-27T10:00:00.000] _update_job: setting admin_comment to falcon:requeued=chassis_timeout for JobId=12
[2026-11-27T10:00:00.500] _update_job: setting admin_comment to falcon:requeued=compose for JobId=14
[2026-11-27T10:00:00.700] _update_job: setting admin_comment to falcon:requeued=chassis_busy for JobId=11_0(19)
[2026-11-27T10:00:00.900] _update_job: setting admin_comment to falcon:requeued=chassis_slow for JobId=16
[2026-11-27T10:00:00.950] _update_job: setting admin_comment to falcon:requeued=chassis_slow for JobId=20
EOF
# job 20's run was requeued chassis_slow (its prolog's own request ran out,
# falcond logs nothing then); falcond's refusals of that run's requests
# still queued, once the job ended, are no cause of it (make soak-fleet's
# sixth hour counted 17 such wrong tags)
# job 16's last try: the prolog's own request ran out (an earlier one met a
# chassis that closed the connection): chassis_slow is true
echo 'falcon-prolog: error: job 16: compose on node1: timed out: POST http://127.0.0.1:5/v1/compose: Timeout was reached' \
	>"$L/slurm-prolog-slurmctld.log"
cat >"$L/falcond-compose" <<'EOF'
falcond: warning: compose job 12 on node1 (uid 0, 127.0.0.1:5000): timeout: compose: job 12 on node1: the chassis took longer than its Timeout
falcond: warning: compose job 14 on node1 (uid 0, 127.0.0.1:5002): io: compose: lease L-3 of job 14 was rolled back before it was written
falcond: warning: compose job 19 on node1 (uid 0, 127.0.0.1:5004): precondition: chassis c1: PATCH: stale ETag
falcond: warning: compose job 16 on node1 (uid 0, 127.0.0.1:5006): transport: GET http://127.0.0.1:6/redfish/v1/Fabrics: Empty reply from server
falcond: warning: compose job 20 on node1 (uid 0, 127.0.0.1:5008): notfound: compose: job 20 on node1 ended (its EpilogSlurmctld ran) after this compose was asked (rolled back)
falcond: warning: compose job 20 on node1 (uid 0, 127.0.0.1:5010): notfound: compose: job 20 on node1 ended (Slurm's word, its PrologSlurmctld gone) while this compose ran (rolled back)
EOF
printf '1700000000 requeue 12\n1700000010 cancel-running 13\n' >"$L/life.log"
printf '1700000020 ok job 12 pending with falcon:released\n' >"$L/tags.log"
echo '{"chassis":"falcon1","devices":[]}' >"$L/simstate.json"
echo '{"leases":[],"quarantine":[],"devices":[]}' >"$L/ledger.json"
python3 "$REPORT" --lifecycle "$L" 60 >"$t_tmp/report" || t_fail "clean lifecycle run: $(cat "$t_tmp/report")"
grep -q '^soak: wrong tags: 0$' "$t_tmp/report" && grep -q '^soak: lifecycle actions: cancel-running 1, requeue 1$' "$t_tmp/report" &&
	grep -q '^soak: wrong mappings: 0$' "$t_tmp/report" && grep -q '^soak: verdicts: lost 1$' "$t_tmp/report" &&
	grep -q '^soak: PASS$' "$t_tmp/report" || t_fail "clean lifecycle run: $(cat "$t_tmp/report")"
t_ok "clean lifecycle run: PASS, wrong tags 0 (an NVMe-only job's tag has no topology, requeued=compose for falcond's io error, an array task's cause by its own id, chassis_slow after the prolog's own timeout, falcond's refusals of an ended run's requests no cause), a chassis restart's loss not a wrong mapping"
# each wrong tag: a pending requeued job with its old topology, a cancelled
# job tagged requeued that never was, a completed falcon job without its
# topology, another topology than asked, a cause falcond's errors do not
# bear out; a drain and an admin action count too
printf '1700000030 wrong stale-topology job 12 pending with falcon:topo=falconGPUs,f=1\n' >>"$L/tags.log"
cat >"$L/tags" <<'EOF'
11|COMPLETED|falcon:released
12|COMPLETED|falcon:topo=falconGPUs,f=1,check=pass
13|CANCELLED by 0|falcon:requeued=falcond_unreachable
14|COMPLETED|falcon:topo=hybridGPUs,l=1,f=1
15|COMPLETED|falcon:topo=falconGPUs,f=1
16|COMPLETED|falcon:topo=falconGPUs,f=1,check=skipped
EOF
# job 17's devices were gone with no chassis restart: a wrong mapping
echo '17 falconGPUs 1 0' >>"$L/jobs"
echo '17|COMPLETED' >>"$L/sacct"
echo 'job=17 restart=0 start=1700000050.0 end=1700000080.0 result=wrong devices=- detail="0000:3f:00.0: no device of the chassis attached to node1 there"' >"$L/verdicts/17.0"
echo '[2026-11-27T10:00:01.000] _update_job: setting admin_comment to falcon:requeued=pool_short for JobId=14' \
	>>"$L/requeued-why"
echo 'node1|falcon: job 9: compose: connection failed' >"$L/sinfo-R"
echo '1700000040 resume-node node1' >"$L/admin.log"
rc=0
python3 "$REPORT" --lifecycle "$L" 60 >"$t_tmp/report" || rc=$?
[ $rc = 1 ] || t_fail "bad lifecycle run: exit $rc: $(cat "$t_tmp/report")"
for want in 'wrong tags: 6' 'drained nodes: 1' 'admin actions: 1' 'wrong mappings: 1' \
	"wrong tag: job 15: completed falconNVMe job tagged 'falcon:topo=falconGPUs,f=1'" \
	'wrong tag: stale-topology job 12' "wrong tag: job 13: cancelled, never requeued" \
	"wrong tag: job 11: completed falconGPUs job tagged 'falcon:released'" \
	'wrong tag: job 14: completed falconGPUs job tagged hybridGPUs' \
	"wrong tag: job 14: requeued=pool_short, but falcond's errors for it: io" 'FAIL'; do
	grep -q "^soak: *$want" "$t_tmp/report" || t_fail "bad lifecycle run lacks '$want': $(cat "$t_tmp/report")"
done
t_ok "bad lifecycle run: exit 1, each wrong tag, the drain and the admin action counted"

# -- the fleet (soak-job.py's map mode, soak-report.py --fleet): a job on
# nodeA finds its chassis, sim host and topology.json by its node in the
# map, its devices named CHASSIS:ID; the lease of the same job on another
# node (a multi-node job) is not its; SOAK_JOB_ID names a hetjob
# component's own job
cat >"$t_tmp/ledger.json" <<'EOL'
{"version":1,"seq":3,"quarantine":[],"devices":[],"leases":[
 {"id":"l21","job_id":21,"host":"nodeA","devices":[{"chassis":"c2","id":"drawer1_slot1"}]},
 {"id":"l21b","job_id":21,"host":"nodeB","devices":[{"chassis":"c3","id":"drawer1_slot1"}]},
 {"id":"l22","job_id":22,"host":"nodeA","devices":[{"chassis":"c2","id":"drawer1_slot2"}]}]}
EOL
echo "nodeA c2 http://127.0.0.1:$SPORT node1 $t_tmp/rd-nodeA" >"$t_tmp/map"
sim_state "$(dev drawer1_slot1 node1 0000:3d:00.0),$(dev drawer1_slot2 node1 0000:3e:00.0)"
# fjudge JOB BDF GPUS [ENV...] - soak-job.py in map mode on nodeA for job
# JOB (SLURM_JOB_ID 21) given BDF; its verdict line in $t_tmp/verdict
fjudge() {
	mkdir -p "$t_tmp/rd-nodeA/$1"
	echo "{\"gpus\":[{\"bdf\":\"$2\",\"location\":\"falcon\"}],\"nvme\":[]}" \
		>"$t_tmp/rd-nodeA/$1/topology.json"
	_fj=$1 _fg=$3
	shift 3
	env SLURM_JOB_ID=21 SLURMD_NODENAME=nodeA FALCON_TOPOLOGY_FILE= CUDA_VISIBLE_DEVICES= "$@" \
		python3 "$JOB" "$t_tmp/v" "$t_tmp/map" "$t_tmp/ledger.json" - "$_fg" 0 0 >/dev/null || true
	cat "$t_tmp/v/$_fj.0.nodeA" >"$t_tmp/verdict"
}
# verdict_is PATTERN WHAT - fail naming WHAT unless the verdict matches
# PATTERN (grep); else ok.
verdict_is() {
	grep -q "$1" "$t_tmp/verdict" || t_fail "$2: $(cat "$t_tmp/verdict")"
	t_ok "$2: $(cat "$t_tmp/verdict")"
}
fjudge 21 0000:3d:00.0 1
verdict_is 'result=ok devices=c2:drawer1_slot1 ' "fleet: nodeA's own lease of a two-node job, c2's slot"
fjudge 22 0000:3e:00.0 1 SOAK_JOB_ID=22
verdict_is 'result=ok devices=c2:drawer1_slot2 ' "fleet: a hetjob component by SOAK_JOB_ID"
fjudge 21 0000:3e:00.0 1
verdict_is "result=wrong .*not a slot of the job's lease \['c2:drawer1_slot1'\]" \
	"fleet: another job's slot is wrong"

F=$t_tmp/fleet
mkdir -p "$F/verdicts" "$F/simstate"
printf '31 falconGPUs 1 0\n32 multinode 1 0\n33 hetjob 1 0\n' >"$F/jobs"
printf '31|COMPLETED\n32|COMPLETED\n33+0|COMPLETED\n33+1|COMPLETED\n' >"$F/sacct"
cat >"$F/tags" <<'EOT'
31|COMPLETED|falcon:topo=falconGPUs,f=1,check=skipped
32|COMPLETED|falcon:topo=falconGPUs,f=1,check=skipped
33+0|COMPLETED|falcon:topo=falconGPUs,f=1,check=skipped
33+1|COMPLETED|falcon:topo=falconGPUs,f=1,check=skipped
EOT
# the same slot id on two chassis at once is two devices
echo 'job=31 restart=0 start=1000.0 end=1100.0 result=ok devices=c1:drawer1_slot1 detail=""' >"$F/verdicts/31.0.nodeA"
echo 'job=32 restart=0 start=1010.0 end=1100.0 result=ok devices=c2:drawer1_slot1 detail=""' >"$F/verdicts/32.0.nodeB"
echo 'job=32 restart=0 start=1010.0 end=1100.0 result=ok devices=c3:drawer1_slot1 detail=""' >"$F/verdicts/32.0.nodeC"
# sacct's times are local: the report runs with TZ=UTC here
cat >"$F/times" <<'EOT'
31|1970-01-01T00:16:30|1970-01-01T00:16:35|1970-01-01T00:18:20|COMPLETED|billing=1,gres/falcon_gpu=1,node=1
32|1970-01-01T00:16:30|1970-01-01T00:16:40|1970-01-01T00:18:20|COMPLETED|billing=1,gres/falcon_gpu=2,node=2
EOT
cat >"$F/falcond-leases" <<'EOT'
falcond: lease L-31: job 31 on nodeA: 1 device(s) on c1 (H1) in 2.50 s
falcond: lease L-32: job 32 on nodeB: 1 device(s) on c2 (H2) in 3.00 s
EOT
printf '100 falcond 7 1.0 10240\n100 slurmctld 8 2.0 20480\n160 falcond 7 4.0 11264\n160 slurmctld 8 5.0 20480\n160 load 1.5 2097152\n' >"$F/procs.log"
echo 8 >"$F/pool-gpus"
printf '1000 falcond-kill falcond a (active), restart in 3 s\n1030 falcond-takeover falcond b serves after 30 s\n1100 chassis-pause c2 150 s, running jobs: 31 \n1200 falcond-takeover falcond a serves after 48 s\n' >"$F/chaos.log"
# falcond b's timed log (--log-time) of the takeover after the kill at 1000
cat >"$F/falcond-b.log" <<'EOT'
[1970-01-01T00:16:40.500] falcond: active: holding /x/falcond.lock (state /x/ledger.json, 2 chassis, 1 lease(s))
[1970-01-01T00:16:52.000] falcond: start-up reconcile: chassis c1 served from now on (its pass took 11.5 s)
[1970-01-01T00:17:05.000] falcond: start-up reconcile: chassis c2 served from now on (its pass took 24.5 s)
[1970-01-01T00:17:10.000] falcond: start-up reconcile done
EOT
# c2's drawer1_slot1 is leased (job 32), c1's is attached without a lease
echo "{\"chassis\":\"falcon1\",\"devices\":[$(free drawer1_slot1)]}" >"$F/simstate/c1.json"
echo "{\"chassis\":\"falcon1\",\"devices\":[$(dev drawer1_slot1 node2 0000:3d:00.0)]}" >"$F/simstate/c2.json"
echo '{"leases":[{"id":"K","job_id":32,"host":"nodeB","state":"kept","devices":[{"chassis":"c2","id":"drawer1_slot1"}]}],"quarantine":[],"devices":[]}' >"$F/ledger.json"
TZ=UTC python3 "$REPORT" --fleet "$F" 100 >"$t_tmp/report" || t_fail "clean fleet run: $(cat "$t_tmp/report")"
for want in 'PASS' 'devices in two jobs: 0' 'pool_short requeues: 0' 'wrong tags: 0' \
	'fleet: jobs 2 .*, started 2; GPU utilization 38% (0.1 GPU-h allocated of 8 pool GPUs x 100 s)' 'fleet: wait (submit to start) p50 5.0 s p95 10.0 s' \
	"fleet: time-to-start .* p50 10.0 s p95 20.0 s; Slurm's start to them p50 5.0 s p95 10.0 s; the chassis' own time (falcond's compose of the job) p50 2.5 s p95 3.0 s" \
	'fleet: falcond CPU 3 s in 60 s sampled (5.0% of a core, 180 s an hour), RSS p50 10.0 MiB max 11.0 MiB' \
	'leases left (not kept, no job running): 0' 'devices taken from a running job (lost, no chassis restart): 0' \
	'fleet: falcond takeovers 2, the standby serving after p50 30 s max 48 s; chassis outages: c2 150 s' \
	'fleet: takeover phases (from the SIGKILL): the lock taken p50 0.5 s max 0.5 s; each chassis served again p50 12.0 s p95 25.0 s max 25.0 s (2 chassis passes); the whole start-up pass done p50 30.0 s max 30.0 s'; do
	grep -q "^soak: *$want" "$t_tmp/report" || t_fail "clean fleet run lacks '$want': $(cat "$t_tmp/report")"
done
t_ok "clean fleet run: PASS (one slot id on two chassis, a kept lease), utilization, waits, the chassis' time, CPU and RSS"
echo "{\"chassis\":\"falcon1\",\"devices\":[$(dev drawer1_slot1 node1 0000:3d:00.0)]}" >"$F/simstate/c1.json"
echo '[2026-11-29T07:00:00.000] _update_job: setting admin_comment to falcon:requeued=pool_short for JobId=31' \
	>"$F/requeued-why"
echo '{"leases":[{"id":"K","job_id":32,"host":"nodeB","devices":[{"chassis":"c2","id":"drawer1_slot1"}]},{"id":"R","job_id":35,"host":"nodeC","devices":[]}],"quarantine":[],"devices":[]}' >"$F/ledger.json"
# job 36's devices went while it ran, and no chassis restarted
echo 'job=36 restart=0 start=1010.0 end=1100.0 result=lost devices=c2:drawer1_slot3 detail="0000:3f:00.0: no device of the chassis attached to node2 there"' >"$F/verdicts/36.0.nodeB"
# job 35 (an array task of the run, say) still runs: its lease is no leak
printf '35|RUNNING\n32|COMPLETED\n' >"$F/squeue-ids"
# falcond a started again while the killed one still held its port
echo '[1970-01-01T00:20:00.000] falcond: error: cannot listen on 0.0.0.0:5: http: libmicrohttpd did not start (Address already in use)' >>"$F/falcond.log"
rc=0
TZ=UTC python3 "$REPORT" --fleet "$F" 100 >"$t_tmp/report" || rc=$?
[ $rc = 1 ] || t_fail "bad fleet run: exit $rc: $(cat "$t_tmp/report")"
for want in 'devices attached without a lease: 1' 'attached without a lease: c1:drawer1_slot1' \
	'pool_short requeues: 1' 'leases left (not kept, no job running): 1' 'lease left: K job 32 on nodeB' \
	'devices taken from a running job (lost, no chassis restart): 1' 'taken from running job 36: ' \
	'falcond starts failed: 1' 'falcond start failed: .*Address already in use' 'FAIL'; do
	grep -q "^soak: *$want" "$t_tmp/report" || t_fail "bad fleet run lacks '$want': $(cat "$t_tmp/report")"
done
t_ok "bad fleet run: exit 1, an unleased device on c1, a pool_short requeue, a lease left (not the running job's), devices taken from a running job, a falcond start that failed"
