#!/bin/sh
# pcicfg_lspci.sh - a tree made by lib/pcicfg (through tests/pcigen) read by
# the real lspci with its linux-sysfs method: IDs, class, bus numbers and
# LnkCap/LnkSta exactly as lspci prints them.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"

command -v lspci >/dev/null 2>&1 || t_skip "lspci not installed"
gen="$top_builddir/tests/pcigen"
root="$t_tmp/sys"

"$gen" device "$root" 0000:00:02.0 8086:2030 060400 rp speed=3 width=16 bus=00,3a,3c
"$gen" device "$root" 0000:3a:00.0 1000:c010 060400 usp speed=4 width=16 cur_speed=3 bus=3a,3b,3c
"$gen" device "$root" 0000:3b:00.0 1000:c010 060400 dsp speed=4 width=16 bus=3b,3c,3c slot=1
"$gen" device "$root" 0000:3c:00.0 10de:1db4 030200 ep speed=3 width=16 cur_speed=3 cur_width=8 subsys=10de:1212 numa=1

out=$(lspci -A linux-sysfs -O sysfs.path="$root/bus/pci" -nn -vvv -s 3c:00.0) ||
	t_fail "lspci failed on the generated tree"
echo "$out"
echo "$out" | grep -q '^3c:00.0 3D controller \[0302\]: .*\[10de:1db4\]' || t_fail "IDs/class"
echo "$out" | grep -q 'Subsystem: .*\[10de:1212\]' || t_fail "subsystem"
echo "$out" | grep -q 'NUMA node: 1' || t_fail "numa_node"
echo "$out" | grep -q 'Capabilities: \[78\] Express (v2) Endpoint' || t_fail "PCIe cap"
echo "$out" | grep -q 'LnkCap:.*Speed 8GT/s, Width x16' || t_fail "LnkCap"
echo "$out" | grep -q 'LnkSta:.*Speed 8GT/s.*Width x8 (downgraded)' || t_fail "LnkSta"
echo "$out" | grep -q 'LnkCap2: Supported Link Speeds: 2.5-8GT/s' || t_fail "LnkCap2"
echo "$out" | grep -q 'Capabilities: \[100 v2\] Advanced Error Reporting' || t_fail "AER"

out=$(lspci -A linux-sysfs -O sysfs.path="$root/bus/pci" -nn -vvv -s 3a:00.0)
echo "$out" | grep -q 'Bus: primary=3a, secondary=3b, subordinate=3c' || t_fail "bus numbers"
echo "$out" | grep -q 'Express (v2) Upstream Port' || t_fail "upstream port"
echo "$out" | grep -q 'LnkCap:.*Speed 16GT/s, Width x16' || t_fail "bridge LnkCap"

tree=$(lspci -A linux-sysfs -O sysfs.path="$root/bus/pci" -t)
echo "$tree"
echo "$tree" | grep -q -- '-\[0000:00\]---02.0-\[3a-3c\]----00.0-\[3b-3c\]----00.0-\[3c\]----00.0' || t_fail "tree"
t_ok "lspci reads the generated tree"
