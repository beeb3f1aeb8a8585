#!/bin/sh
# prolog-identity.sh - issue #11 on a real single-node cluster
# (scripts/cluster.sh, falcon-prolog/falcon-epilog as Prolog=/Epilog=,
# spank_falcon, falcond, falcon-sim; the node plays the sim's node1):
# a lease device is found on the bus by where it is (the Physical Slot
# Number of its drawer switch port, /sys/bus/pci/slots), never by
# vendor:device.
#  1. an orphan: drawer1_slot1 attached to zone H1 behind falcond's back and
#     rescanned onto the node's bus (the same V100 as every drawer slot); a
#     --gres=falcon_gpu:1 job is leased drawer1_slot2 and must be given
#     slot2's BDF (what falcon-sim's /admin/state says the slot got), not the
#     orphan's; its epilog must leave the orphan on the bus, also when the
#     job's lease.json names the orphan's BDF.
#  2. a leftover RunDir/<job>/lease.json of an ended job naming the slot the
#     next job is leased: the next job runs (the record is removed), where
#     the record's BDF claim once made the prolog time out.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/slurm-lib.sh"
. "$top_srcdir/tests/integration/prolog-lib.sh"
fp_slurm_node
s_need_spank
# the orphan stays on the bus on purpose: falcond's periodic reconcile,
# which detaches a device attached without a lease, runs only at start here
# (under load a pass fell inside the test and took the orphan away)
fp_setup "ReconcileInterval=0"
fp_spank_start
fp_falcond_with_slurm

Z=/redfish/v1/Fabrics/PCIe/Zones/H1
DEVS=$SYSFS/node1/bus/pci/devices

# p_run JOB_ARGS... - submit a falcon_gpu:1 job that saves its topology and
# the chassis' view while it runs; waits for it; prints the job id.
p_run() {
	_j=$(sbatch --parsable --gres=falcon_gpu:1 -L falcon1:1 -o "$t_tmp/job-%j.out" \
		--wrap "cat \"\$FALCON_TOPOLOGY_FILE\" > '$t_tmp/topo-'\$SLURM_JOB_ID.json;
			curl -s http://127.0.0.1:$SIM_PORT_c1/admin/state > '$t_tmp/state-'\$SLURM_JOB_ID.json;
			env | grep ^CUDA_VISIBLE_DEVICES=")
	s_wait_done "$_j"
	[ "$(s_job_state "$_j")" = COMPLETED ] || {
		tail -n 20 "$t_tmp/slurm-prolog.log" >&2
		t_fail "job $_j: $(s_job_state "$_j"): $(sinfo -h -R -o '%E')"
	}
	echo "$_j"
}

# p_zone_set EXTRA - zone H1's endpoints: its host port, plus EXTRA (a
# device id, or none), PATCHed with the zone's ETag as an admin would.
p_zone_set() {
	_b=$(fd_sim c1 GET $Z | python3 -c 'import json,sys
z = json.load(sys.stdin)
eps = [e for e in z["Links"]["Endpoints"] if "drawer" not in e["@odata.id"]]
if sys.argv[1]:
    eps.append({"@odata.id": "/redfish/v1/Fabrics/PCIe/Endpoints/" + sys.argv[1]})
print(json.dumps({"Links": {"Endpoints": eps}}))' "${1:-}")
	fd_sim c1 PATCH $Z "$_b" >"$t_tmp/patch.out"
}

# p_state_bdf FILE DEV - the BDF falcon-sim's /admin/state (FILE) gives DEV.
p_state_bdf() {
	python3 -c 'import json,sys
s = json.load(open(sys.argv[1]))
print([d for d in s["devices"] if d["id"] == sys.argv[2]][0]["bdf"] or "")' "$1" "$2"
}

# -- 1. an orphan of the same vendor:device on the bus
p_zone_set drawer1_slot1
echo 1 > "$SYSFS/node1/bus/pci/rescan"
fd_sim c1 GET /admin/state >"$t_tmp/orphan.json"
orphan=$(p_state_bdf "$t_tmp/orphan.json" drawer1_slot1)
[ -n "$orphan" ] || t_fail "drawer1_slot1 not attached: $(cat "$t_tmp/patch.out")"
fd_wait_file "$DEVS/$orphan/config"
# falcond's last read (reused, InventoryReuse) says drawer1_slot1 is free:
# the attach finds it in the zone and is refused (never taken over),
# falcond reads again and leases the next slot, as in the issue
jid=$(p_run)
dev=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["lease"]["devices"][0]["id"])' \
	"$t_tmp/topo-$jid.json")
[ "$dev" != drawer1_slot1 ] || t_fail "falcond leased the orphan's slot"
want=$(p_state_bdf "$t_tmp/state-$jid.json" "$dev")
got=$(python3 -c 'import json,sys
j = json.load(open(sys.argv[1]))
print(",".join([d["bdf"] for d in j["lease"]["devices"]] + [g["bdf"] for g in j["gpus"]]))' \
	"$t_tmp/topo-$jid.json")
[ "$got" = "$want,$want" ] ||
	t_fail "job $jid leased $dev (at $want on the chassis) was given $got (orphan at $orphan)"
grep -q '^CUDA_VISIBLE_DEVICES=.' "$t_tmp/job-$jid.out" ||
	t_fail "job $jid: $(cat "$t_tmp/job-$jid.out")"
t_ok "orphan drawer1_slot1 at $orphan: job $jid leased $dev got its own $want"
# what the prolog read: the slot as pciehp shows it
[ "$(cat "$SYSFS/node1/bus/pci/slots/1/address")" = "${orphan%.0}" ] ||
	t_fail "slots/1/address: $(cat "$SYSFS/node1/bus/pci/slots/1/address" 2>&1)"
# its epilog took its own device off and left the orphan
k=0
while [ -e "$DEVS/$want" ]; do
	k=$((k + 1))
	[ $k -lt 150 ] || t_fail "job $jid's $want still on the bus after its epilog"
	sleep 0.2
done
[ -e "$DEVS/$orphan/config" ] ||
	t_fail "job $jid's epilog removed the orphan $orphan: $(tail -n 5 "$t_tmp/slurm-epilog.log")"
[ ! -e "$t_tmp/run/$jid" ] || t_fail "RunDir/$jid left: $(tail -n 5 "$t_tmp/slurm-epilog.log")"
t_ok "job $jid's epilog removed $want only; the orphan $orphan stays"
# -- an epilog whose lease.json names the orphan's BDF (as a prolog that
# matched by IDs wrote it) removes what its slot holds, not the orphan
jid=$(sbatch --parsable --gres=falcon_gpu:1 -L falcon1:1 -o /dev/null \
	--wrap "echo started > '$t_tmp/edit-started'; sleep 300")
s_wait_state "$jid" RUNNING
fd_wait_file "$t_tmp/edit-started"
own=$(fp_topo "$jid" 'j["lease"]["devices"][0]["bdf"]')
[ "$own" != "$orphan" ] || t_fail "job $jid was given the orphan $orphan"
sed -i "s/\"$own\"/\"$orphan\"/" "$t_tmp/run/$jid/lease.json"
grep -q "$orphan" "$t_tmp/run/$jid/lease.json" || t_fail "lease.json not edited"
scancel "$jid"
s_wait_done "$jid"
k=0
while [ -e "$t_tmp/run/$jid" ]; do
	k=$((k + 1))
	[ $k -lt 150 ] || t_fail "job $jid's epilog did not finish: $(tail -n 5 "$t_tmp/slurm-epilog.log")"
	sleep 0.2
done
[ -e "$DEVS/$orphan/config" ] ||
	t_fail "job $jid's epilog removed the orphan $orphan named in its lease.json"
[ ! -e "$DEVS/$own" ] || t_fail "job $jid's epilog left its own $own on the bus"
grep -q "job $jid: .*lease.json has $orphan, its slot [0-9]* holds $own; $orphan stays" \
	"$t_tmp/slurm-epilog.log" || t_fail "epilog log: $(tail -n 5 "$t_tmp/slurm-epilog.log")"
t_ok "job $jid's lease.json naming the orphan: its epilog removed its own $own, not $orphan"
# the admin takes the orphan back
echo 1 > "$DEVS/$orphan/remove"
p_zone_set ""
k=0
until (fp_pool_clean) 2>/dev/null; do
	k=$((k + 1))
	[ $k -lt 150 ] || fp_pool_clean
	sleep 0.2
done

# -- 2. a leftover lease.json of an ended job naming the slot the next job gets
# (pack placement on a clean pool leases drawer1_slot1 first, once falcond's
# inventory no longer shows the orphan's owner: the admin who took it back
# by hand has falcond read the chassis, as the periodic reconcile would)
"$FALCONCTL" reconcile >/dev/null || t_fail "falconctl reconcile"
mkdir -p "$t_tmp/run/999999"
cat >"$t_tmp/run/999999/lease.json" <<EOJ
{ "id": "old-lease", "node": "$FP_HOST", "devices": [ { "chassis": "c1",
  "id": "drawer1_slot1", "port": "H1", "type": "GPU", "vendor_id": "10de",
  "device_id": "1db4", "bdf": "$orphan" } ] }
EOJ
jid=$(p_run)
dev=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["lease"]["devices"][0]["id"])' \
	"$t_tmp/topo-$jid.json")
[ "$dev" = drawer1_slot1 ] || t_fail "job $jid was leased $dev, not drawer1_slot1"
[ ! -e "$t_tmp/run/999999" ] || t_fail "the stale RunDir/999999 is still there"
grep -q "run/999999/lease.json names drawer1_slot1, which falcond leased to job $jid" \
	"$t_tmp/slurm-prolog.log" || t_fail "prolog log: $(tail -n 5 "$t_tmp/slurm-prolog.log")"
k=0
until (fp_pool_clean) 2>/dev/null; do
	k=$((k + 1))
	[ $k -lt 150 ] || fp_pool_clean
	sleep 0.2
done
t_ok "a stale lease.json naming drawer1_slot1: job $jid ran, the record removed"
