#!/bin/sh
# tests/isolate.sh - how the harness runs a shell test (SH_LOG_COMPILER):
# in namespaces and cgroups of its own, so that any number of integration
# tests, each with its own Slurm cluster, run at once without seeing each
# other (issue 38).
#
#   isolate.sh SHELL TEST.sh [ARGS...]
#
# As root, where unshare(1) can make them, the test runs in
# - a network namespace: its own loopback (127.0.0.1 up) and 192.0.2.1 on
#   a veth pair of its own (TEST-NET-1, RFC 5737: getaddrinfo() with
#   AI_ADDRCONFIG needs an address beside loopback), so the ports it picks
#   never meet another test's, and nothing outside is reachable;
# - a UTS and an IPC namespace (same host name, its own hostname(1) calls);
# - a mount namespace with a tmpfs on /run/netns: the named namespaces of
#   scripts/cluster.sh --node2/--nodes (falcon-nsN) are the test's own;
# - a cgroup of its own, falcon-test.NAME.PID, in every cgroup v1 hierarchy
#   mounted under /sys/fs/cgroup (cpuset's cpus and mems copied from the
#   parent), bound over the hierarchy's mount point in a cgroup namespace
#   rooted there: Slurm's slurm_NODE/uid_U/job_J cgroups of two clusters
#   (both name their node after this host and number jobs from 1) are
#   two directories, and /proc/PID/cgroup agrees with the mounts.
# When the test has ended, what still runs in its cgroups (a daemon it did
# not stop) is named, killed, and the test fails with exit status 99 (an
# automake hard error), after 30 s for processes that are stopping (at a
# load of 15, three lanes at once, a daemon told to stop can take seconds
# to go).  The CPU the test used (cgroup v1 cpuacct.usage) is printed as
# "isolate.sh: NAME used S s of CPU", and the cgroups are removed.
# The test sees FALCON_TEST_ISOLATED=1.  FALCON_TEST_ISOLATE=no, not root,
# or no unshare: the test runs as it is (tests/integration/slurm-lib.sh
# then runs one cluster at a time).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
set -u

if [ "${1:-}" = --inside ]; then
	# in the new namespaces: MOUNTPOINT=CGROUPDIR ... -- then the command
	shift
	while [ "$1" != -- ]; do
		mount --bind "${1#*=}" "${1%%=*}" || exit 99
		shift
	done
	shift
	# loopback, and an IPv4 address beside it: getaddrinfo() with
	# AI_ADDRCONFIG (Slurm's, for the address a daemon listens on) finds
	# nothing where loopback is the only interface
	ip link set lo up &&
		ip link add iso0 type veth peer name iso1 &&
		ip addr add 192.0.2.1/32 dev iso0 &&
		ip link set iso0 up && ip link set iso1 up || exit 99
	mkdir -p /run/netns && mount -t tmpfs -o mode=0755 tmpfs /run/netns || exit 99
	FALCON_TEST_ISOLATED=1
	export FALCON_TEST_ISOLATED
	exec "$@"
fi

[ $# -ge 2 ] || { echo "usage: isolate.sh SHELL TEST.sh [ARGS...]" >&2; exit 99; }
if [ "$(id -u)" != 0 ] || [ "${FALCON_TEST_ISOLATE:-yes}" = no ] ||
	! command -v unshare >/dev/null 2>&1 || ! command -v ip >/dev/null 2>&1; then
	exec "$@"
fi
name=$(basename "$2" .sh)
cg=falcon-test.$name.$$

# hier - "MOUNTPOINT OURCGROUP" of each cgroup v1 hierarchy: where this
# process is in it now (/proc/self/cgroup, relative to the mount's root).
hier() {
	awk '
	FNR == NR { split($0, f, ":"); n = split(f[2], c, ",")
		for (i = 1; i <= n; i++) where[c[i]] = f[3]; next }
	{ for (i = 1; $i != "-"; i++) ; }
	$(i + 1) == "cgroup" {
		n = split($(i + 3), o, ",")
		for (k = 1; k <= n; k++) if (o[k] in where) {
			rel = where[o[k]]
			if ($4 != "/" && index(rel, $4) == 1) rel = substr(rel, length($4) + 1)
			print $5, (rel == "/" ? "" : rel); break }
	}' /proc/self/cgroup /proc/self/mountinfo
}

# stale - the cgroups of earlier runs whose runner was killed (make
# interrupted): their processes killed, the directories removed
stale() {
	for _sd in "$1"/falcon-test.*.*; do
		[ -d "$_sd" ] || continue
		! kill -0 "${_sd##*.}" 2>/dev/null || continue
		# shellcheck disable=SC2046
		kill -KILL $(find "$_sd" -name cgroup.procs -exec cat {} +) 2>/dev/null
		sleep 0.2
		find "$_sd" -depth -type d -exec rmdir {} + 2>/dev/null
	done
}

made="" binds=""
hier >"${TMPDIR:-/tmp}/$cg.hier"
while read -r mp rel; do
	d=$mp$rel/$cg
	stale "$mp$rel"
	mkdir "$d" || { echo "isolate.sh: cannot make cgroup $d" >&2; exit 99; }
	made="$made $mp$rel"
	binds="$binds $mp=$d"
	if [ -f "$mp$rel/cpuset.cpus" ]; then
		cat "$mp$rel/cpuset.cpus" >"$d/cpuset.cpus" &&
			cat "$mp$rel/cpuset.mems" >"$d/cpuset.mems" || exit 99
	fi
	echo $$ >"$d/cgroup.procs" || { echo "isolate.sh: cannot enter $d" >&2; exit 99; }
done <"${TMPDIR:-/tmp}/$cg.hier"
rm -f "${TMPDIR:-/tmp}/$cg.hier"

# the test in a child, this shell back in the parents' cgroups
# shellcheck disable=SC2086
unshare --net --uts --ipc --mount --cgroup --propagation private \
	/bin/sh "$0" --inside $binds -- "$@" &
child=$!
for p in $made; do echo $$ >"$p/cgroup.procs"; done
trap 'kill -TERM $child 2>/dev/null' INT TERM HUP
rc=0
wait $child || rc=$?
trap - INT TERM HUP

# left - the pids still in the test's cgroups (any hierarchy)
left() {
	for p in $made; do
		find "$p/$cg" -name cgroup.procs -exec cat {} + 2>/dev/null
	done | sort -un | tr '\n' ' '
}
i=0
while [ -n "$(left)" ] && [ $i -lt 150 ]; do sleep 0.2; i=$((i + 1)); done
pids=$(left)
if [ -n "$pids" ]; then
	echo "FAIL: $name: processes left running when the test ended:" >&2
	for p in $pids; do
		printf '  %s %s\n' "$p" "$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" >&2
	done
	# shellcheck disable=SC2086
	kill -KILL $pids 2>/dev/null
	i=0
	while [ -n "$(left)" ] && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
	rc=99
fi
# the CPU the test and all it started used (cpuacct counts a cgroup's
# children, and what has exited, to the end): test-all.sh's table of the
# costliest tests reads this line from the test's log
for p in $made; do
	[ -f "$p/$cg/cpuacct.usage" ] || continue
	awk -v n="$name" '{ printf "isolate.sh: %s used %.1f s of CPU\n", n, $1 / 1e9 }' \
		"$p/$cg/cpuacct.usage"
	break
done
for p in $made; do
	find "$p/$cg" -depth -type d -exec rmdir {} + 2>/dev/null ||
		echo "isolate.sh: could not remove $p/$cg" >&2
done
exit $rc
