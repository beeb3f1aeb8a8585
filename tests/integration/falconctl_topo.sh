#!/bin/sh
# falconctl_topo.sh - `falconctl topo` on the paper's host made by
# tests/pcigen: the table, --json, the adapter from a falcon.conf HostName
# line, and the exit codes of bad input.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"

ctl="$top_builddir/falconctl/falconctl"
gen="$top_builddir/tests/pcigen"
root="$t_tmp/sys"
"$gen" paper "$root"

# table: 16 GPUs, the degraded one marked, the label
out=$("$ctl" topo --sysfs-root "$root" --adapter 5e:00.0 --host h1 --config /dev/null 2>&1) ||
	t_fail "topo failed: $out"
echo "$out"
echo "$out" | grep -q '^GPU9 .* 0000:6b:00.0  F   8GT/s x8 (max 8GT/s x16) DEGRADED' ||
	t_fail "degraded link not marked"
echo "$out" | grep -q '^GPU0    X        L-L PIX   L-L PHB' || t_fail "matrix row GPU0"
echo "$out" | grep -q 'Topology: hybridGPUs  Storage: falconNVMe  GPUs: 16  NVMe: 2  Degraded links: 1' ||
	t_fail "labels"

# the adapter from falcon.conf's HostName line
cat > "$t_tmp/falcon.conf" <<CONF
SysfsRoot=$t_tmp/%h
ChassisName=falcon1 Url=https://falcon1.example.com/
HostName=sys Chassis=falcon1 Port=H1 Adapter=0000:5e:00.0
CONF
out=$("$ctl" topo --config "$t_tmp/falcon.conf" --host sys --json) || t_fail "topo --json"
echo "$out" | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["topology"] == "hybridGPUs", j["topology"]
assert j["storage"] == "falconNVMe"
assert len(j["gpus"]) == 16 and len(j["nvme"]) == 2
g = [x for x in j["gpus"] if x["bdf"] == "0000:6b:00.0"][0]
assert g == {"bdf": "0000:6b:00.0", "vendor_id": "10de", "device_id": "1db4",
             "location": "falcon", "link": {"speed_gts": 8.0, "width": 8,
             "max_speed_gts": 8.0, "max_width": 16, "degraded": True}}, g
assert j["matrix"][0][1] == "L-L PIX" and j["matrix"][4][8] == "F-F PXB"
assert set(j) == {"topology", "storage", "gpus", "nvme", "matrix"}
' || t_fail "JSON schema"

# a host without a HostName line: everything local, with a warning
out=$("$ctl" topo --config "$t_tmp/falcon.conf" --host other --sysfs-root "$root" 2>&1) ||
	t_fail "topo for an unknown host"
echo "$out" | grep -q 'no HostName=other' || t_fail "no warning for a missing HostName"
echo "$out" | grep -q 'Topology: localGPUs' || t_fail "unknown host not all local"

# bad input: clear message, non-zero exit
rc=0; out=$("$ctl" topo --sysfs-root "$t_tmp/nonexistent" --config /dev/null 2>&1) || rc=$?
[ "$rc" = 1 ] || t_fail "missing root: exit $rc"
echo "$out" | grep -q "falconctl: error: topo: not found: sysfs root $t_tmp/nonexistent" ||
	t_fail "missing root message: $out"
rc=0; "$ctl" topo --sysfs-root "$root" --adapter 5e:00 --config /dev/null 2>/dev/null || rc=$?
[ "$rc" = 2 ] || t_fail "bad adapter: exit $rc"
rc=0; "$ctl" topo --bogus 2>/dev/null || rc=$?
[ "$rc" = 2 ] || t_fail "bad option: exit $rc"
printf '\140' | dd of="$root/bus/pci/devices/0000:64:00.0/config" bs=1 seek=105 conv=notrunc 2>/dev/null
rc=0; out=$("$ctl" topo --sysfs-root "$root" --config /dev/null 2>&1) || rc=$?
[ "$rc" = 1 ] || t_fail "looping capability list: exit $rc"
echo "$out" | grep -q '0000:64:00.0/config' || t_fail "loop message: $out"
t_ok "falconctl topo"
