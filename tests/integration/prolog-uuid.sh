#!/bin/sh
# prolog-uuid.sh - GPU and NVMe identity in topology.json, falcon-prolog run
# as slurmd runs it with --no-slurm against falcon-sim's node1 tree
# (CudaVisibleDevices= left at its default, uuid):
#  1. local GPUs picked by SLURM_JOB_GPUS: cuda_visible_devices is their
#     UUIDs in PCI order, as the nvidia driver's information files say;
#  2. one of them without a "GPU UUID:" line: the index form for all of
#     them ("6,7"), with a warning (CUDA hides every entry after one it
#     cannot match);
#  3. a falconNVMe job: the NVMe's entry has its controller's serial.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/prolog-lib.sh"
fp_need
fp_setup
GPUS=$SYSFS/node1/proc/driver/nvidia/gpus

# uuid_of BDF - the UUID in the GPU's information file.
uuid_of() {
	[ -f "$GPUS/$1/information" ] || t_fail "no $GPUS/$1/information"
	sed -n 's/^GPU UUID:[[:space:]]*//p' "$GPUS/$1/information"
}

# -- 1. local GPUs 6 and 7 (0000:88:00.0, 0000:89:00.0 by BDF)
fp_prolog 201 "gres/gpu:2" node1 SLURM_JOB_GPUS=6,7
[ $FP_RC = 0 ] || t_fail "prolog: $(cat "$t_tmp/prolog-201.log")"
bdfs=$(fp_topo 201 '" ".join(g["bdf"] for g in j["gpus"])')
[ "$bdfs" = "0000:88:00.0 0000:89:00.0" ] || t_fail "job GPUs: $bdfs"
u1=$(uuid_of 0000:88:00.0)
u2=$(uuid_of 0000:89:00.0)
want="$u1,$u2"
cvd=$(fp_topo 201 'j["cuda_visible_devices"]')
[ "$cvd" = "$want" ] && case $cvd in GPU-*,GPU-*) true ;; *) false ;; esac ||
	t_fail "cuda_visible_devices '$cvd', expected '$want'"
[ "$(fp_topo 201 '[g["minor"] for g in j["gpus"]]')" = "[6, 7]" ] || t_fail "minors"
fp_epilog 201
[ $FP_RC = 0 ] || t_fail "epilog: $(cat "$t_tmp/epilog-201.log")"
t_ok "local GPUs by UUID: $cvd"

# -- 2. a GPU without a UUID: the index form for the whole list
sed -i '/^GPU UUID:/d' "$GPUS/0000:88:00.0/information"
fp_prolog 202 "gres/gpu:2" node1 SLURM_JOB_GPUS=6,7
[ $FP_RC = 0 ] || t_fail "prolog: $(cat "$t_tmp/prolog-202.log")"
[ "$(fp_topo 202 'j["cuda_visible_devices"]')" = 6,7 ] ||
	t_fail "no UUID: cuda_visible_devices $(fp_topo 202 'j["cuda_visible_devices"]')"
[ "$(fp_topo 202 'j["gpus"][0]["uuid"]')" = None ] || t_fail "a uuid for 0000:88:00.0"
grep -q "GPU 0000:88:00.0 has no UUID .*index form 6,7" "$t_tmp/prolog-202.log" ||
	t_fail "no warning: $(cat "$t_tmp/prolog-202.log")"
fp_epilog 202
[ $FP_RC = 0 ] || t_fail "epilog: $(cat "$t_tmp/epilog-202.log")"
t_ok "a GPU without a UUID: index form 6,7 and a warning"

# -- 3. the NVMe's serial
fp_prolog 203 "gres/falcon_nvme:1"
[ $FP_RC = 0 ] || t_fail "prolog: $(cat "$t_tmp/prolog-203.log")"
bdf=$(fp_topo 203 'j["nvme"][0]["bdf"]')
want=$(sed 's/[[:space:]]*$//' "$SYSFS/node1/bus/pci/devices/$bdf/nvme/"nvme*/serial)
sn=$(fp_topo 203 'j["nvme"][0]["serial"]')
[ -n "$want" ] && [ "$sn" = "$want" ] || t_fail "NVMe serial '$sn', expected '$want'"
fp_epilog 203
[ $FP_RC = 0 ] || t_fail "epilog: $(cat "$t_tmp/epilog-203.log")"
fp_pool_clean
t_ok "falconNVMe $bdf: serial $sn"
