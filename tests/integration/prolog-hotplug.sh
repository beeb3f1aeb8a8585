#!/bin/sh
# prolog-hotplug.sh - issue #14 on a real single-node cluster
# (scripts/cluster.sh, falcon-prolog/falcon-epilog as Prolog=/Epilog=,
# spank_falcon, falcond, falcon-sim; the node plays the sim's node1):
#  1. GPU identity: a --gres=falcon_gpu:2 job's CUDA_VISIBLE_DEVICES is its
#     two GPUs' UUIDs in PCI order, as the (emulated) nvidia driver's
#     /proc/driver/nvidia/gpus/BDF/information gives them; topology.json has
#     "minor", "uuid" and "dev" for each GPU (the hot-added GPUs get the
#     lowest minors free after node1's 8 local GPUs: 8 and 9, free again
#     after the epilog).
#  2. ACS redirect on the drawer switch's downstream ports: the job runs,
#     with a warning naming the port in topology.json and the prolog's log.
#  3. BAR1 left unassigned: the node is drained with a reason naming the BAR
#     and pci=hpmmioprefsize=.
#  4. a device whose config space reads all-ones: drained, "fell off the bus".
#  5. a process holding the GPU's /dev/nvidiaN at teardown: the epilog
#     drains the node naming the pid and its comm.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/slurm-lib.sh"
. "$top_srcdir/tests/integration/prolog-lib.sh"
fp_slurm_node
s_need_spank
fp_setup
fp_spank_start
fp_falcond_with_slurm

N1=$SYSFS/node1
GPU_SLOTS='["drawer1_slot1","drawer1_slot2","drawer1_slot3","drawer1_slot4",
	"drawer2_slot1","drawer2_slot2","drawer2_slot3","drawer2_slot4"]'

# p_job N [sleep] - submit a falcon_gpu:N job that saves its environment and
# topology.json ($t_tmp/env-JOB, topo-JOB.json) and then sleeps; prints its id.
p_job() {
	sbatch --parsable --gres=falcon_gpu:"$1" -L falcon1:"$1" -o /dev/null \
		--wrap "env > '$t_tmp/env-'\$SLURM_JOB_ID; cp \"\$FALCON_TOPOLOGY_FILE\" \
			'$t_tmp/tmp-'\$SLURM_JOB_ID && mv '$t_tmp/tmp-'\$SLURM_JOB_ID \
			'$t_tmp/topo-'\$SLURM_JOB_ID.json; sleep ${2:-0}"
}

# p_drained JOB TEXT - wait (bounded) for the node's reason to name JOB and
# hold TEXT; prints the reason.
p_drained() {
	_k=0
	until sinfo -h -R -o '%E' | grep -q "^falcon: job $1: .*$2"; do
		_k=$((_k + 1))
		[ $_k -lt 300 ] || { tail -n 20 "$t_tmp/slurm-prolog.log" "$t_tmp/slurm-epilog.log" >&2
			squeue -h -j "$1" -o '%i %T %r %N' >&2; s_logs
			t_fail "node not drained with '$2' after 60 s (job $1 $(s_job_state "$1")):" \
				"$(sinfo -h -R -o '%E')"; }
		sleep 0.2
	done
	sinfo -h -R -o '%E' | head -1
}

# p_resume [JOB] - after a drain: faults off, JOB (requeued by the failed
# prolog) cancelled, the pool clean, the node back.
p_resume() {
	fd_sim c1 POST /admin/faults '{}' >/dev/null
	if [ -n "${1:-}" ]; then
		s_wait_state "$1" PENDING
		scancel "$1"
	fi
	fp_wait_pool_clean 30
	scontrol update nodename="$FP_HOST" state=resume
}

# -- 1. identity
# (checked while the job runs: the epilog takes the GPUs off the bus)
jid=$(p_job 2 300)
s_wait_state "$jid" RUNNING
fd_wait_file "$t_tmp/topo-$jid.json"
cvd=$(sed -n 's/^CUDA_VISIBLE_DEVICES=//p' "$t_tmp/env-$jid")
python3 - "$t_tmp/topo-$jid.json" "$N1" "$cvd" <<'EOP' || t_fail "identity: $(cat "$t_tmp/topo-$jid.json")"
import json, os, stat, sys
topo, root, cvd = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
gpus = topo["gpus"]
bdfs = [g["bdf"] for g in gpus]
assert len(gpus) == 2 and bdfs == sorted(bdfs), bdfs
want = []
for g in gpus:
    info = open(os.path.join(root, "proc/driver/nvidia/gpus", g["bdf"], "information")).read()
    kv = {l.split(":", 1)[0]: l.split(":", 1)[1].strip() for l in info.splitlines() if ":" in l}
    assert g["uuid"] == kv["GPU UUID"] and g["uuid"].startswith("GPU-"), (g, kv)
    assert g["minor"] == int(kv["Device Minor"]), (g, kv)
    assert g["dev"] == os.path.join(root, "dev", "nvidia%d" % g["minor"]), g
    st = os.stat(g["dev"])
    if os.geteuid() == 0:
        assert stat.S_ISCHR(st.st_mode) and os.major(st.st_rdev) == 195 \
            and os.minor(st.st_rdev) == g["minor"], g
    want.append(g["uuid"])
assert sorted(g["minor"] for g in gpus) == [8, 9], [g["minor"] for g in gpus]
assert cvd == ",".join(want), (cvd, want)
assert topo["cuda_visible_devices"] == cvd
EOP
scancel "$jid"
s_wait_done "$jid"
fp_wait_pool_clean 30
for b in $(python3 -c 'import json,sys; print(" ".join(g["bdf"] for g in json.load(open(sys.argv[1]))["gpus"]))' \
	"$t_tmp/topo-$jid.json"); do
	[ ! -e "$N1/proc/driver/nvidia/gpus/$b" ] || t_fail "$b still known to the driver after the epilog"
done
# the nodes stay, as on a real host (no driver removes /dev/nvidiaN)
[ -e "$N1/dev/nvidia8" ] && [ -e "$N1/dev/nvidia7" ] || t_fail "nodes after the epilog: $(ls "$N1/dev")"
t_ok "CUDA_VISIBLE_DEVICES=$cvd (UUIDs in PCI order), minors 8 and 9 freed at the epilog"

# -- 2. ACS redirect on the path: a warning, the job runs
fd_sim c1 POST /admin/faults "{\"acs_redirect\": $GPU_SLOTS}" >/dev/null
jid=$(p_job 1)
s_wait_done "$jid"
[ "$(s_job_state "$jid")" = COMPLETED ] ||
	{ tail -n 20 "$t_tmp/slurm-prolog.log" >&2; t_fail "ACS: job $jid: $(s_job_state "$jid")"; }
w=$(python3 -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["warnings"]))' \
	"$t_tmp/topo-$jid.json")
case $w in
*"ACS redirect on 0000:"*"ReqRedir+ CmpltRedir+"*"NCCL"*) ;;
*) t_fail "ACS: warnings in topology.json: '$w'" ;;
esac
grep -q "ACS redirect on 0000:" "$t_tmp/slurm-prolog.log" || t_fail "ACS: no warning in the prolog's log"
[ -z "$(sinfo -h -R -o '%E')" ] || t_fail "ACS drained the node: $(sinfo -h -R -o '%E')"
fd_sim c1 POST /admin/faults '{}' >/dev/null
fp_wait_pool_clean 30
t_ok "ACS: $(echo "$w" | head -1 | cut -c1-90)..."

# -- 3. BAR1 unassigned: drained, the reason names the BAR and what to do
fd_sim c1 POST /admin/faults "{\"unassigned_bar\": $GPU_SLOTS}" >/dev/null
jid=$(p_job 1)
r=$(p_drained "$jid" "BAR1 (64-bit prefetchable memory) left unassigned")
case $r in *"2 MiB of prefetchable MMIO"*"pci=hpmmioprefsize="*) ;; *) t_fail "BAR reason: $r" ;; esac
p_resume "$jid"
t_ok "unassigned BAR: $r"

# -- 4. fell off the bus
fd_sim c1 POST /admin/faults "{\"fell_off\": $GPU_SLOTS}" >/dev/null
jid=$(p_job 1)
r=$(p_drained "$jid" "fell off the bus: its config space reads all-ones")
p_resume "$jid"
t_ok "all-ones: $r"

# -- 5. a holder of /dev/nvidiaN at teardown.  No nvidia driver here: the
# node (char 195,N) cannot be opened, so the holder keeps an O_PATH
# descriptor on it, which /proc/PID/fd shows as a real one.
jid=$(p_job 1 300)
s_wait_state "$jid" RUNNING
fd_wait_file "$t_tmp/topo-$jid.json"
dev=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["gpus"][0]["dev"])' \
	"$t_tmp/topo-$jid.json")
python3 -c 'import os, sys, time
fd = os.open(sys.argv[1], os.O_PATH)
open(sys.argv[2], "w").write("ok")
time.sleep(600)' "$dev" "$t_tmp/held" &
holder=$!
fd_wait_file "$t_tmp/held"
scancel "$jid"
r=$(p_drained "$jid" "held open by pid $holder (python3) at teardown: $dev")
kill "$holder"
wait "$holder" 2>/dev/null || :
p_resume
t_ok "holder: $r"
