#!/bin/sh
# tests/free-port.sh - scripts/lib.sh's free_port, which picks the ports the
# quickstart and scripts/cluster.sh keep for their daemons before any of
# them binds (two picks on one port: the second daemon fails "Address
# already in use"):
#   1. a port listed in $FALCON_PORT_REGISTRY is never picked: with every
#      port of free_port's range listed but one, it prints that one or says
#      "no free port", never another (without the registry: any port);
#   2. 40 picks from an empty registry: 40 different ports, each within the
#      range, each listed in the registry;
#   3. a registry that cannot be written (a directory): still a free port.
# Needs python3 (as free_port does).  Slurm-free: the host lane only.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
: "${top_srcdir:=.}"
. "$top_srcdir/tests/lib.sh"
command -v python3 >/dev/null || t_skip "no python3"

lo=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range)
first=$((lo - 1000)); [ $first -lt 20000 ] || first=20000
reg=$t_tmp/registry

# 1. all listed but one
keep=$((first + 123))
seq $first $((lo - 1)) | grep -vx "$keep" >"$reg"
n_picked=0
for i in 1 2 3 4 5 6 7 8 9 10; do
	p=$(FALCON_PORT_REGISTRY=$reg free_port 2>"$t_tmp/err") || {
		grep -q 'no free port' "$t_tmp/err" || t_fail "1: free_port failed otherwise: $(cat "$t_tmp/err")"
		seq $first $((lo - 1)) | grep -vx "$keep" >"$reg"
		continue
	}
	[ "$p" = "$keep" ] || t_fail "1: picked $p, listed in the registry (only $keep was not)"
	n_picked=$((n_picked + 1))
	seq $first $((lo - 1)) | grep -vx "$keep" >"$reg"
done
t_ok "1: every port of $first..$((lo - 1)) listed but $keep: 10 calls, $n_picked picked $keep, the others found no free port"

# 2. 40 picks
: >"$reg"
for i in $(seq 40); do
	FALCON_PORT_REGISTRY=$reg free_port >>"$t_tmp/picked" || t_fail "2: pick $i failed"
done
[ "$(sort -u "$t_tmp/picked" | wc -l)" = 40 ] || t_fail "2: a port picked twice: $(sort "$t_tmp/picked" | uniq -d | tr '\n' ' ')"
awk -v a=$first -v b=$lo '$1 < a || $1 >= b { bad = bad " " $1 } END { if (bad) { print bad; exit 1 } }' \
	"$t_tmp/picked" >"$t_tmp/out" || t_fail "2: outside $first..$((lo - 1)):$(cat "$t_tmp/out")"
[ "$(sort -n "$reg")" = "$(sort -n "$t_tmp/picked")" ] || t_fail "2: the registry does not list exactly the picks"
t_ok "2: 40 picks, 40 different ports in $first..$((lo - 1)), all listed"

# 3. an unwritable registry
mkdir "$t_tmp/dir"
p=$(FALCON_PORT_REGISTRY=$t_tmp/dir free_port) || t_fail "3: no port with a registry that cannot be opened"
[ "$p" -ge $first ] && [ "$p" -lt "$lo" ] || t_fail "3: $p outside $first..$((lo - 1))"
t_ok "3: a registry that cannot be opened: port $p, tested free only"
exit 0
