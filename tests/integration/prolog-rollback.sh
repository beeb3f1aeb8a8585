#!/bin/sh
# prolog-rollback.sh - a prolog that rolls back (the check fails under
# CheckAction=fail) while one of the job's chassis GPUs will not come off
# the bus: that device is quarantined, the node drained with its BDF in the
# reason, RunDir/JOBID kept for the epilog, and the lease given back.
# (Before the fix the job was cancelled, the node left in service and the
# device left on the bus, neither quarantined nor recorded.)
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/prolog-lib.sh"
fp_need
# falcon-ncclcheck stand-in: makes the first falcon GPU's remove fail (a
# directory where sysfs has the file), then reports a failed check
cat >"$t_tmp/fake-ncclcheck" <<EOS
#!/bin/sh
while [ \$# -gt 0 ]; do
	[ "\$1" = --json ] && json=\$2
	[ "\$1" = --topology ] && topo=\$2
	shift
done
bdf=\$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print([g["bdf"] for g in j["gpus"] if g["location"] == "falcon"][0])' "\$topo")
echo "\$bdf" >"$t_tmp/stuck-bdf"
rm -f "$t_tmp/sim-c1/sysfs/node1/bus/pci/devices/\$bdf/remove"
mkdir "$t_tmp/sim-c1/sysfs/node1/bus/pci/devices/\$bdf/remove"
echo '{"status":"fail","reason":"busbw 9.8 GB/s below 90 % of MinBusBW 20","busbw_peak":9.8,"algbw_peak":6.5}' >"\$json"
exit 1
EOS
chmod 0755 "$t_tmp/fake-ncclcheck"
FP_NCCLCHECK=$t_tmp/fake-ncclcheck
fp_setup

FP_PARTITION=failp fp_prolog 401 "gres/falcon_gpu:2"
[ -s "$t_tmp/stuck-bdf" ] || t_fail "the check did not run: $(cat "$t_tmp/prolog-401.log")"
bdf=$(cat "$t_tmp/stuck-bdf")
[ $FP_RC = 1 ] || t_fail "prolog rc $FP_RC (1 expected): $(cat "$t_tmp/prolog-401.log")"
grep -q "draining node1: falcon: job 401: .*$bdf" "$t_tmp/prolog-401.log" ||
	t_fail "node not drained naming $bdf: $(cat "$t_tmp/prolog-401.log")"
[ "$(fd_call GET /v1/status '')" = 200 ] || t_fail "status: $(cat "$t_tmp/out")"
[ "$(fd_json 'len(j["quarantine"])')" = 1 ] || t_fail "device not quarantined: $(cat "$t_tmp/out")"
[ "$(fd_json 'len(j["leases"])')" = 0 ] || t_fail "lease not given back: $(cat "$t_tmp/out")"
[ -s "$t_tmp/run/401/lease.json" ] || t_fail "RunDir/401 not kept for the epilog"
t_ok "rollback with a device that will not come off: quarantined, node drained"

# the admin clears it (the chassis detached it: surprise removal here)
qd=$(fd_json 'j["quarantine"][0]["device"]')
rm -rf "$SYSFS/node1/bus/pci/devices/$bdf"
fd_expect 200 POST /v1/unquarantine "{\"chassis\":\"c1\",\"device\":\"$qd\"}"
fp_epilog 401
[ $FP_RC = 0 ] || t_fail "epilog after the rollback: rc $FP_RC: $(cat "$t_tmp/epilog-401.log")"
fp_pool_clean
t_ok "epilog after it cleans up"
