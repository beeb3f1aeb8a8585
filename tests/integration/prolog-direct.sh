#!/bin/sh
# prolog-direct.sh - falcon-prolog and falcon-epilog run as slurmd runs them
# (root, SLURM_JOB_ID, SLURMD_NODENAME) with the --no-slurm debugging switch
# (the job's GRES from FALCON_TRES_PER_NODE; drain and AdminComment logged),
# against real munged, falcond and falcon-sim whose node1 tree is the
# SysfsRoot: falconGPUs, hybridGPUs, localGPUs, falconNVMe, two jobs at
# once, a degraded link under each CheckAction, the chassis down at prolog,
# an epilog whose remove fails, falcond down for a job without falcon GRES,
# a chassis timeout then falcond gone (requeued for the chassis, #32);
# the pool is clean after each.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/prolog-lib.sh"
fp_need
# falcon-ncclcheck stand-in (no GPU here): answers what $t_tmp/check-mode
# says (pass, fail), else "skipped" as on a host without CUDA; records its
# arguments
cat >"$t_tmp/fake-ncclcheck" <<EOS
#!/bin/sh
echo "\$*" >"$t_tmp/check-args"
mode=\$(cat "$t_tmp/check-mode" 2>/dev/null || echo skipped)
while [ \$# -gt 0 ]; do [ "\$1" = --json ] && json=\$2; shift; done
case \$mode in
pass) echo '{"status":"pass","reason":"ok","busbw_peak":19.64,"algbw_peak":13.1}' >"\$json"; exit 0 ;;
fail) echo '{"status":"fail","reason":"busbw 9.8 GB/s below 90 % of MinBusBW 20","busbw_peak":9.8,"algbw_peak":6.5}' >"\$json"; exit 1 ;;
*) echo '{"status":"skipped","reason":"no CUDA driver","busbw_peak":0,"algbw_peak":0}' >"\$json"; exit 4 ;;
esac
EOS
chmod 0755 "$t_tmp/fake-ncclcheck"
FP_NCCLCHECK=$t_tmp/fake-ncclcheck
# the index form of CUDA_VISIBLE_DEVICES (its PCI-order numbering is what
# these cases check; prolog-hotplug.sh checks the UUID form, the default)
fp_setup "CudaVisibleDevices=index"

# -- falconGPUs: four chassis GPUs appear, verified, described, given back
fp_prolog 101 "gres/falcon_gpu:4"
[ $FP_RC = 0 ] || t_fail "falconGPUs prolog: rc $FP_RC: $(cat "$t_tmp/prolog-101.log")"
[ "$(fp_topo 101 'j["topology"]')" = falconGPUs ] || t_fail "label: $(fp_topo 101 'j["topology"]')"
[ "$(fp_topo 101 'len([g for g in j["gpus"] if g["location"] == "falcon"])')" = 4 ] ||
	t_fail "4 falcon GPUs expected"
[ "$(fp_topo 101 'j["job_id"]')" = 101 ] || t_fail "job_id"
# node1's NVIDIA GPUs by BDF: local 18-1b (0-3), drawer 1 via H1 3d-40 (4-7),
# drawer 2 via H2 b1-b4, local 86-89: pack takes one drawer
cvd=$(fp_topo 101 'j["cuda_visible_devices"]')
case $cvd in 4,5,6,7|8,9,10,11) ;; *) t_fail "cuda_visible_devices $cvd" ;; esac
[ "$(fp_topo 101 'j["matrix"][0][1]')" = "F-F PIX" ] || t_fail "matrix: $(fp_topo 101 'j["matrix"]')"
[ "$(fp_topo 101 'len(j["lease"]["devices"])')" = 4 ] || t_fail "lease in topology.json"
grep -q 'falcon:topo=falconGPUs,f=4,check=skipped' "$t_tmp/prolog-101.log" ||
	t_fail "tag: $(grep -i tag "$t_tmp/prolog-101.log")"
[ "$(stat -c %a "$t_tmp/run/101")" = 750 ] || t_fail "job dir mode"
[ "$(stat -c %a "$t_tmp/run/101/topology.json")" = 640 ] || t_fail "topology.json mode"
t_ok "falconGPUs prolog"
fp_epilog 101
[ $FP_RC = 0 ] || t_fail "epilog: rc $FP_RC: $(cat "$t_tmp/epilog-101.log")"
[ ! -e "$t_tmp/run/101" ] || t_fail "RunDir/101 left"
fp_pool_clean
t_ok "falconGPUs epilog: devices off the bus and back in the pool"

# -- hybridGPUs: 4 local + 4 chassis GPUs
fp_prolog 102 "gres:gpu:4,gres:falcon_gpu:4"
[ $FP_RC = 0 ] || t_fail "hybrid prolog: rc $FP_RC: $(cat "$t_tmp/prolog-102.log")"
[ "$(fp_topo 102 'j["topology"]')" = hybridGPUs ] || t_fail "label hybridGPUs"
[ "$(fp_topo 102 'len(j["gpus"])')" = 8 ] || t_fail "8 GPUs"
[ "$(fp_topo 102 'len(j["cuda_visible_devices"].split(","))')" = 8 ] || t_fail "8 indices"
[ "$(fp_topo 102 'sorted(set(c.split()[0] for r in j["matrix"] for c in r) - {"X"})')" = \
  "['F-F', 'F-L', 'L-L']" ] || t_fail "classes: $(fp_topo 102 'j["matrix"]')"
grep -q 'falcon:topo=hybridGPUs,l=4,f=4,' "$t_tmp/prolog-102.log" || t_fail "hybrid tag"
fp_epilog 102
[ $FP_RC = 0 ] || t_fail "hybrid epilog: $(cat "$t_tmp/epilog-102.log")"
fp_pool_clean
t_ok "hybridGPUs"

# -- localGPUs: nothing composed, still described and tagged
fp_prolog 103 "gres/gpu:2"
[ $FP_RC = 0 ] || t_fail "local prolog: $(cat "$t_tmp/prolog-103.log")"
[ "$(fp_topo 103 'j["topology"]')" = localGPUs ] || t_fail "label localGPUs"
[ "$(fp_topo 103 'j["cuda_visible_devices"]')" = "0,1" ] || t_fail "local cvd"
[ "$(fp_topo 103 'j["lease"]')" = None ] || t_fail "a lease for localGPUs"
grep -q 'falcon:topo=localGPUs,l=2' "$t_tmp/prolog-103.log" || t_fail "local tag"
# SLURM_JOB_GPUS (gres.conf with File=) picks the local GPUs
# local GPUs 18-1b and 86-89 with nothing composed: positions 6,7 are 88,89, CUDA 6,7
fp_prolog 104 "gres/gpu:2" node1 SLURM_JOB_GPUS=6,7
[ "$(fp_topo 104 'j["cuda_visible_devices"]')" = "6,7" ] || t_fail "SLURM_JOB_GPUS cvd"
fp_epilog 103; [ $FP_RC = 0 ] || t_fail "local epilog"
fp_epilog 104; [ $FP_RC = 0 ] || t_fail "local epilog 104"
fp_pool_clean
t_ok "localGPUs"

# -- a job without any GPU or falcon GRES: nothing at all
fp_prolog 105 "cpu=4"
[ $FP_RC = 0 ] && [ ! -e "$t_tmp/run/105" ] || t_fail "plain job"
t_ok "job without falcon GRES"

# -- falconNVMe
fp_prolog 106 "gres/falcon_nvme:1"
[ $FP_RC = 0 ] || t_fail "nvme prolog: $(cat "$t_tmp/prolog-106.log")"
[ "$(fp_topo 106 'j["storage"]')" = falconNVMe ] || t_fail "storage label"
[ "$(fp_topo 106 'j["nvme"][0]["location"]')" = falcon ] || t_fail "nvme location"
grep -q 'falcon:nvme=falcon' "$t_tmp/prolog-106.log" || t_fail "nvme tag"
fp_epilog 106; [ $FP_RC = 0 ] || t_fail "nvme epilog: $(cat "$t_tmp/epilog-106.log")"
fp_pool_clean
t_ok "falconNVMe"

# -- two jobs at once on node1: disjoint devices
fp_prolog 107 "gres/falcon_gpu:2" & p1=$!
FP_RC=0; fp_prolog 108 "gres/falcon_gpu:2"; rc2=$FP_RC
wait $p1 || true
[ -s "$t_tmp/run/107/topology.json" ] && [ $rc2 = 0 ] ||
	t_fail "two jobs: $(cat "$t_tmp/prolog-107.log" "$t_tmp/prolog-108.log")"
b1=$(fp_topo 107 '",".join(g["bdf"] for g in j["gpus"])')
b2=$(fp_topo 108 '",".join(g["bdf"] for g in j["gpus"])')
[ "$(echo "$b1,$b2" | tr , '\n' | sort -u | wc -l)" = 4 ] || t_fail "shared devices: $b1 / $b2"
fp_epilog 107; [ $FP_RC = 0 ] || t_fail "epilog 107"
fp_epilog 108; [ $FP_RC = 0 ] || t_fail "epilog 108"
fp_pool_clean
t_ok "two jobs at once: $b1 / $b2"

# -- other jobs' prologs rescanning while an epilog takes its devices off:
# until the decompose detaches them they are still in the host's zone, and
# a rescan enumerates them again (as Linux does); the prologs rescan under
# the node lock (RunDir/.lock), so the epilog's remove and its wait hold it
# too (the soak drained the node "would not come off" when a falcond
# restart had many prologs rescanning at once)
# p_rescans_start / p_rescans_stop - rescans one after another, each under
# the node lock (RunDir/.lock) as a prolog's.
p_rescans_start() {
	rm -f "$t_tmp/rescan-stop"
	(while [ ! -e "$t_tmp/rescan-stop" ]; do
		flock "$t_tmp/run/.lock" sh -c "echo 1 > '$SYSFS/node1/bus/pci/rescan'"
	done) & p_rescans=$!
	sleep 0.5
}
p_rescans_stop() { touch "$t_tmp/rescan-stop"; wait $p_rescans || true; }
fp_prolog 130 "gres/falcon_gpu:2"
[ $FP_RC = 0 ] || t_fail "prolog 130: $(cat "$t_tmp/prolog-130.log")"
p_rescans_start
fp_epilog 130
p_rescans_stop
[ $FP_RC = 0 ] || t_fail "epilog 130 among rescans: rc $FP_RC: $(cat "$t_tmp/epilog-130.log")"
# a rescan between the lock's release and the detach may have brought a
# device back: the detach takes it off again (pciehp's surprise removal)
fp_wait_pool_clean 30
t_ok "an epilog among other prologs' rescans: its devices came off, node not drained"
# the same for a prolog's rollback (a degraded link under CheckAction=drain):
# only the degraded device is quarantined, none "would not come off"
fd_sim c1 POST /admin/faults '{"degraded_links":{"drawer1_slot1":{"speed_gts":8,"width":8}}}' >/dev/null
p_rescans_start
fp_prolog 131 "gres/falcon_gpu:2"
p_rescans_stop
[ $FP_RC = 1 ] || t_fail "prolog 131 among rescans: rc $FP_RC: $(cat "$t_tmp/prolog-131.log")"
! grep -q "would not come off" "$t_tmp/prolog-131.log" ||
	t_fail "rollback among rescans: $(grep -i 'come off\|still on' "$t_tmp/prolog-131.log")"
[ "$(fd_call GET /v1/status '')" = 200 ] && [ "$(fd_json 'len(j["quarantine"])')" = 1 ] ||
	t_fail "quarantine after the rollback: $(cat "$t_tmp/out")"
qd=$(fd_json 'j["quarantine"][0]["device"]')
fd_expect 200 POST /v1/unquarantine "{\"chassis\":\"c1\",\"device\":\"$qd\"}"
fd_sim c1 POST /admin/faults '{}' >/dev/null
fp_wait_pool_clean 30
t_ok "a prolog's rollback among rescans: its devices came off, $qd alone quarantined"

# -- a device that never appears in its slot (falcon-sim's no_appear): the
# prolog asks falcond to reconcile.  When the chassis lost the composition
# meanwhile (a chassis restart loses its zones: here drawer1_slot1 taken out
# of zone H1 behind falcond's back while the prolog waits), falcond's
# reconcile closes the lease and the job is requeued, the node not drained
# (the soak drained it) ...  (the prolog waits RescanTimeout=10 s for the
# device: with 3 s, under load, the zone changed after the prolog had given
# up)
fd_sim c1 POST /admin/faults '{"no_appear":["drawer1_slot1"]}' >/dev/null
(k=0
until fd_sim c1 GET /admin/state | python3 -c 'import json,sys
s = json.load(sys.stdin)
sys.exit(0 if [d for d in s["devices"] if d["id"] == "drawer1_slot1" and d["owner"]] else 1)' ||
	[ $k -ge 200 ]; do
	k=$((k + 1)); sleep 0.05
done
fd_sim c1 GET /redfish/v1/Fabrics/PCIe/Zones/H1 | python3 -c 'import json,sys
z = json.load(sys.stdin)
print(json.dumps({"Links": {"Endpoints": [e for e in z["Links"]["Endpoints"] if "drawer1_slot1" not in e["@odata.id"]]}}))' \
	>"$t_tmp/zone-h1.json"
fd_sim c1 PATCH /redfish/v1/Fabrics/PCIe/Zones/H1 "$(cat "$t_tmp/zone-h1.json")" >"$t_tmp/zone-patch.out") &
lost=$!
FP_RESCAN_TIMEOUT=10 fp_prolog 133 "gres/falcon_gpu:1"
wait $lost
grep -q "drawer1_slot1" "$t_tmp/zone-h1.json" && t_fail "zone H1 not changed: $(cat "$t_tmp/zone-patch.out")"
! grep -q "draining" "$t_tmp/prolog-133.log" && grep -q "requeueing job 133 .*closed lease" "$t_tmp/prolog-133.log" ||
	t_fail "composition lost mid-prolog: rc $FP_RC: $(cat "$t_tmp/prolog-133.log") $(cat "$t_tmp/zone-patch.out")"
fp_wait_pool_clean 30
# ... so is it when the chassis' management stops answering (SIGSTOP) while
# the prolog waits: the reconcile gets no answer (falcond: 502) ...
simpid=$(cat "$t_tmp/sim-c1/pid")
(k=0
until fd_sim c1 GET /admin/state | python3 -c 'import json,sys
s = json.load(sys.stdin)
sys.exit(0 if [d for d in s["devices"] if d["id"] == "drawer1_slot1" and d["owner"]] else 1)' ||
	[ $k -ge 200 ]; do
	k=$((k + 1)); sleep 0.05
done
kill -STOP "$simpid") &
paused=$!
FP_RESCAN_TIMEOUT=10 fp_prolog 134 "gres/falcon_gpu:1"
wait $paused
kill -CONT "$simpid"
! grep -q "draining" "$t_tmp/prolog-134.log" && grep -q "requeueing job 134 .*a chassis did not answer" "$t_tmp/prolog-134.log" ||
	t_fail "chassis paused mid-prolog: rc $FP_RC: $(cat "$t_tmp/prolog-134.log")"
fp_wait_pool_clean 60
# ... while the chassis still gives the host the device, the node is at
# fault: drained
FP_RESCAN_TIMEOUT=2 fp_prolog 132 "gres/falcon_gpu:1"
[ $FP_RC = 1 ] && grep -q "draining node1: falcon: job 132: timed out after rescan: not found in its slot: drawer1_slot1" \
	"$t_tmp/prolog-132.log" && grep -q "the chassis holds lease" "$t_tmp/prolog-132.log" ||
	t_fail "device never appearing: rc $FP_RC: $(cat "$t_tmp/prolog-132.log")"
fd_sim c1 POST /admin/faults '{}' >/dev/null
fp_wait_pool_clean 30
t_ok "a device missing from its slot: drained while the chassis holds it, requeued once the chassis lost it or stopped answering"

# -- a degraded link: warn runs the job and tags it, drain fails and quarantines
fd_sim c1 POST /admin/faults '{"degraded_links":{"drawer1_slot1":{"speed_gts":8,"width":8},"drawer2_slot1":{"speed_gts":8,"width":8}}}' >/dev/null
FP_PARTITION=warnp fp_prolog 109 "gres/falcon_gpu:1"
[ $FP_RC = 0 ] || t_fail "warn prolog: $(cat "$t_tmp/prolog-109.log")"
grep -q 'link=degraded' "$t_tmp/prolog-109.log" || t_fail "no link=degraded tag"
fp_epilog 109; [ $FP_RC = 0 ] || t_fail "epilog 109"
fp_pool_clean
FP_PARTITION= fp_prolog 110 "gres/falcon_gpu:1"
[ $FP_RC = 1 ] || t_fail "degraded link with CheckAction=drain: rc $FP_RC"
grep -q 'draining node1: falcon: job 110: .*link at 8.0 GT/s x8' "$t_tmp/prolog-110.log" ||
	t_fail "drain reason: $(grep -i drain "$t_tmp/prolog-110.log")"
[ ! -e "$t_tmp/run/110" ] || t_fail "RunDir/110 left after a failed prolog"
[ "$(fd_call GET /v1/status '')" = 200 ] && [ "$(fd_json 'len(j["quarantine"])')" = 1 ] ||
	t_fail "no quarantine: $(cat "$t_tmp/out")"
qd=$(fd_json 'j["quarantine"][0]["device"]')
fd_expect 200 POST /v1/unquarantine "{\"chassis\":\"c1\",\"device\":\"$qd\"}"
fd_sim c1 POST /admin/faults '{}' >/dev/null
fp_pool_clean
t_ok "degraded link: warn tags, drain quarantines $qd and fails"

# -- falcon-ncclcheck: its JSON merged, busbw in the tag, a fail drains;
# its log readable by the job's group as topology.json is (issue 32)
echo pass >"$t_tmp/check-mode"
fp_prolog 115 "gres/falcon_gpu:2" node1 SLURM_JOB_GID=4242
[ $FP_RC = 0 ] || t_fail "check pass: $(cat "$t_tmp/prolog-115.log")"
[ "$(stat -c %g "$t_tmp/run/115/check.log")" = 4242 ] ||
	t_fail "check.log: group $(stat -c %g "$t_tmp/run/115/check.log"), the job's is 4242"
grep -q 'falcon:topo=falconGPUs,f=2,check=pass,busbw=19.6' "$t_tmp/prolog-115.log" ||
	t_fail "check tag: $(grep -i tag "$t_tmp/prolog-115.log")"
[ "$(fp_topo 115 'j["check"]["status"]')" = pass ] || t_fail "check not merged"
cvd=$(fp_topo 115 'j["cuda_visible_devices"]')
grep -q -- "--level quick --gpus $cvd --budget [0-9]* --topology $t_tmp/run/115/topology.json --json $t_tmp/run/115/check.json" \
	"$t_tmp/check-args" || t_fail "ncclcheck arguments: $(cat "$t_tmp/check-args")"
fp_epilog 115; [ $FP_RC = 0 ] || t_fail "epilog 115"
fp_pool_clean
echo fail >"$t_tmp/check-mode"
fp_prolog 116 "gres/falcon_gpu:2" node1 SPANK_FALCON_CHECK=full
[ $FP_RC = 1 ] || t_fail "check fail with CheckAction=drain: rc $FP_RC"
grep -q -- "--level full" "$t_tmp/check-args" || t_fail "SPANK_FALCON_CHECK=full not used"
grep -q 'draining node1: falcon: job 116: NCCL check failed: busbw 9.8' "$t_tmp/prolog-116.log" ||
	t_fail "check drain reason: $(grep -i drain "$t_tmp/prolog-116.log")"
fp_pool_clean
FP_PARTITION=warnp fp_prolog 117 "gres/falcon_gpu:2"
[ $FP_RC = 0 ] || t_fail "check fail with CheckAction=warn"
grep -q 'check=fail,busbw=9.8' "$t_tmp/prolog-117.log" || t_fail "warn tag"
fp_epilog 117; [ $FP_RC = 0 ] || t_fail "epilog 117"
fp_prolog 118 "gres/falcon_gpu:2" node1 SPANK_FALCON_CHECK=off
grep -q 'check=off' "$t_tmp/prolog-118.log" || t_fail "check=off"
fp_epilog 118; [ $FP_RC = 0 ] || t_fail "epilog 118"
rm -f "$t_tmp/check-mode"
fp_pool_clean
t_ok "falcon-ncclcheck: pass tagged with busbw, fail drains (drain) or tags (warn), off skips"

# -- the chassis down at prolog: retries, then requeued (not the node's
# problem: never drained), nothing leaked
fd_sim c1 POST /admin/faults '{"rules":[{"action":"error","status":503,"path":"/redfish/v1/Fabrics*","method":"PATCH"}]}' >/dev/null
fp_prolog 111 "gres/falcon_gpu:4"
[ $FP_RC = 1 ] || t_fail "chassis down: rc $FP_RC"
grep -q 'compose (try 1 of 3)' "$t_tmp/prolog-111.log" || t_fail "no retry: $(cat "$t_tmp/prolog-111.log")"
grep -q 'requeueing job 111 (not a problem of node node1)' "$t_tmp/prolog-111.log" ||
	t_fail "requeue: $(cat "$t_tmp/prolog-111.log")"
grep -q 'draining' "$t_tmp/prolog-111.log" && t_fail "drained: $(cat "$t_tmp/prolog-111.log")"
[ ! -e "$t_tmp/run/111" ] || t_fail "RunDir/111 left"
fd_sim c1 POST /admin/faults '{}' >/dev/null
fp_pool_clean
t_ok "chassis down: requeued, not drained, rolled back"

# -- an epilog whose remove fails: node drained, device quarantined
fp_prolog 112 "gres/falcon_gpu:2"
[ $FP_RC = 0 ] || t_fail "prolog 112: $(cat "$t_tmp/prolog-112.log")"
bdf=$(fp_topo 112 'j["gpus"][0]["bdf"]')
rm -f "$SYSFS/node1/bus/pci/devices/$bdf/remove"
mkdir "$SYSFS/node1/bus/pci/devices/$bdf/remove"
FP_RESCAN_TIMEOUT=1 fp_epilog 112
[ $FP_RC = 1 ] || t_fail "stuck device: epilog rc $FP_RC: $(cat "$t_tmp/epilog-112.log")"
grep -q "draining node1: falcon: job 112: $bdf" "$t_tmp/epilog-112.log" ||
	t_fail "drain reason: $(cat "$t_tmp/epilog-112.log")"
[ "$(fd_call GET /v1/status '')" = 200 ] && [ "$(fd_json 'len(j["quarantine"])')" = 1 ] ||
	t_fail "device not quarantined: $(cat "$t_tmp/out")"
qd=$(fd_json 'j["quarantine"][0]["device"]')
# the admin clears it: the chassis detached it (surprise removal on the host)
rm -rf "$SYSFS/node1/bus/pci/devices/$bdf"
fd_expect 200 POST /v1/unquarantine "{\"chassis\":\"c1\",\"device\":\"$qd\"}"
rm -rf "$t_tmp/run/112"
fp_pool_clean
t_ok "epilog with a stuck device: drained, $qd quarantined"

# -- the epilog without the prolog's record (RunDir lost) still gives back
fp_prolog 113 "gres/falcon_gpu:2"
[ $FP_RC = 0 ] || t_fail "prolog 113"
rm -rf "$t_tmp/run/113"
fp_epilog 113
[ $FP_RC = 0 ] || t_fail "epilog 113 without lease.json: $(cat "$t_tmp/epilog-113.log")"
fp_pool_clean
t_ok "epilog without RunDir: lease found in falcond, devices removed"

# -- falcond down: jobs without falcon GRES run and end as usual
fd_stop_falcond
fp_prolog 114 "gres/gpu:1"
[ $FP_RC = 0 ] || t_fail "local job with falcond down: $(cat "$t_tmp/prolog-114.log")"
fp_epilog 114 node1 FALCON_TRES_PER_NODE=gres/gpu:1
[ $FP_RC = 0 ] && [ ! -e "$t_tmp/run/114" ] ||
	t_fail "epilog of a local job with falcond down: $(cat "$t_tmp/epilog-114.log")"
t_ok "falcond down: a job without falcon GRES is not held up"

# -- the cause of a requeue (#32): falcond reports a chassis timeout
# (ChangeTimeout=2 against 6 s PATCHes), then is stopped for the other
# tries: requeued=chassis_timeout, not the last try's falcond_unreachable
sed -i 's/^ChassisName=.*/& ChangeTimeout=2/' "$FALCON_CONF"
fd_start_falcond
fd_sim c1 POST /admin/faults '{"rules":[{"action":"latency","ms":6000,"method":"PATCH","path":"/redfish/v1/Fabrics*"}]}' >/dev/null
(wait_for 30 "the first compose to fail" grep -q 'compose (try 1 of 3)' "$t_tmp/prolog-122.log" &&
	fd_stop_falcond) &
stopper=$!
fp_prolog 122 "gres/falcon_gpu:2"
wait $stopper || t_fail "falcond not stopped after the first try: $(cat "$t_tmp/prolog-122.log")"
[ $FP_RC = 1 ] || t_fail "chassis timeout, falcond gone: rc $FP_RC: $(cat "$t_tmp/prolog-122.log")"
grep -q 'compose (try 3 of 3): connection failed' "$t_tmp/prolog-122.log" ||
	t_fail "the last try did not find falcond gone: $(cat "$t_tmp/prolog-122.log")"
grep -q 'AdminComment tag (not set: --no-slurm): falcon:requeued=chassis_timeout$' \
	"$t_tmp/prolog-122.log" || t_fail "requeue tag: $(grep -i 'tag\|requeu' "$t_tmp/prolog-122.log")"
fd_sim c1 POST /admin/faults '{}' >/dev/null
sed -i 's/ ChangeTimeout=2$//' "$FALCON_CONF"
# the rollback could not reach falcond: its start-up reconcile gives back
fd_start_falcond
fp_wait_pool_clean 30
t_ok "a chassis timeout, then falcond unreachable: requeued=chassis_timeout"

# -- the shared start (fp_main_start): usage errors exit 2 and do nothing;
# a falcon.conf that does not load exits 1 (the node would be drained)
for args in "--bogus" "--proc /proc" "extra-arg"; do
	rc=0; SLURM_JOB_ID=120 "$PROLOG" -c "$FALCON_CONF" --no-slurm $args \
		>"$t_tmp/usage.out" 2>&1 || rc=$?
	[ $rc = 2 ] && grep -q '^usage: falcon-prolog' "$t_tmp/usage.out" ||
		t_fail "falcon-prolog $args: rc $rc: $(cat "$t_tmp/usage.out")"
done
rc=0; env -u SLURM_JOB_ID "$EPILOG" -c "$FALCON_CONF" --no-slurm >"$t_tmp/usage.out" 2>&1 || rc=$?
[ $rc = 2 ] && grep -q 'no job: set SLURM_JOB_ID or give --job' "$t_tmp/usage.out" ||
	t_fail "falcon-epilog without a job: rc $rc: $(cat "$t_tmp/usage.out")"
printf 'BogusKey=1\n' >"$t_tmp/bad.conf"
rc=0; "$EPILOG" -c "$t_tmp/bad.conf" -j 121 -n node1 --no-slurm >"$t_tmp/usage.out" 2>&1 || rc=$?
[ $rc = 1 ] && grep -q "draining node1: falcon: falcon.conf: .*bad.conf:1: unknown key 'BogusKey'" "$t_tmp/usage.out" ||
	t_fail "falcon-epilog with a broken falcon.conf: rc $rc: $(cat "$t_tmp/usage.out")"
[ "$("$EPILOG" --version)" = "falcon-epilog $(sed -n 's/^PACKAGE_VERSION = //p' "$top_builddir/Makefile")" ] ||
	t_fail "falcon-epilog --version: $("$EPILOG" --version)"
t_ok "usage errors exit 2, a broken falcon.conf exits 1, --version says the version"
