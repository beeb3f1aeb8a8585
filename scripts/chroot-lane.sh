#!/bin/sh
# scripts/chroot-lane.sh - run falcon-slurm's tests (or the demo, or a
# shell) in a Debian chroot on a Debian 12 machine: the chroot lanes of
# scripts/test-all.sh.  Suites:
#   trixie    Debian 13 with Debian's Slurm 24.11
#   slurm26   Debian 13 with Slurm 26.05.3 built from SchedMD's release
#             tarball (scripts/slurm-build.sh, in the chroot's /usr/local)
#   sid       Debian sid with Debian's Slurm 26.05 binaries (by hand only:
#             the mirror serves no source for them, so job_submit_falcon
#             cannot be built there; the slurm26 lane covers 26.05)
#   bookworm  a fresh Debian 12, for the README's first command on a machine
#             that has nothing yet (--quickstart)
#
#   chroot-lane.sh [--suite=trixie|slurm26|sid|bookworm] [MODE]
#                             the suite (or FALCON_CHROOT_SUITE; default
#                             trixie), then one of:
#   chroot-lane.sh [--test]   scripts/test-all.sh --inside-lane=SUITE in the
#                             chroot: the lane's steps and tests (tests/lanes)
#                             against its Slurm; its last line is test-all's
#                             closing line
#   chroot-lane.sh --quickstart
#                             the README's demo (scripts/quickstart.sh) in the
#                             chroot, its STATE in the chroot's
#                             /var/tmp/falcon-demo, then stopped
#   chroot-lane.sh --packages scripts/install-deps.sh --chroot-lane, then
#                             scripts/packages.sh: Debian 13 packages in the
#                             chroot's /var/tmp/falcon-packages/trixie
#                             (scripts/packages.sh --trixie copies them out)
#   chroot-lane.sh --shell    an interactive shell in the chroot (the tree in
#                             /src/falcon-slurm)
#   chroot-lane.sh --make     only make (or find) the chroot
#   chroot-lane.sh --help     this text
#
# The chroot is made once with `debootstrap --variant=minbase` (once per
# Debian release: kept as a tarball beside it for the next) from
# Debian's packages ($FALCON_DEBIAN_MIRROR, default
# http://deb.debian.org/debian) into $FALCON_CHROOT_CACHE (default
# /var/cache/falcon-slurm/SUITE, about 2 GB once scripts/install-deps.sh
# has run in it) and reused by later runs (a stamp file marks a finished
# one; remove the directory to start afresh).  Each run copies the working
# tree (without build directories) to /src/falcon-slurm inside,
# $FALCON_SHARED (if set and present) read-only to /src/shared, and the
# release's minbase tarball read-only to /src/minbase.tar
# ($FALCON_PKGTEST_TARBALL: tests/integration/packages.sh's chroot).
#
# Everything runs in a mount namespace of its own (unshare -m): /proc,
# /sys, /dev, a /run tmpfs and the chroot itself bound onto itself (so that
# / is a mount point, which `ip netns exec` needs) are mounted there only,
# never in the machine's namespace, and are gone when the run ends; on exit
# (also on a signal) every process still running inside the chroot is
# stopped, by pid (TERM, then KILL).  One run at a time per chroot (flock
# on DIR.lock).  Needs root, debootstrap (installed with apt-get when
# missing), unshare and flock (util-linux).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
set -eu

prog=chroot-lane
say() { echo "$prog: $*" >&2; }
die() { echo "$prog: error: $*" >&2; exit 1; }

cd "$(dirname "$0")/.."
top=$(pwd)
suite=${FALCON_CHROOT_SUITE:-trixie}
case ${1:-} in --suite=*) suite=${1#--suite=}; shift ;; esac
case $suite in
trixie|sid|bookworm) codename=$suite ;;
slurm26) codename=trixie ;;
*) die "--suite=$suite: trixie, slurm26, sid or bookworm" ;;
esac
root=${FALCON_CHROOT_CACHE:-/var/cache/falcon-slurm/$suite}
mirror=${FALCON_DEBIAN_MIRROR:-http://deb.debian.org/debian}
stamp=$root/.falcon-slurm-debootstrapped

mode=test
case ${1:-} in
''|--test) ;;
--quickstart) mode=quickstart ;;
--packages) mode=packages ;;
--shell) mode=shell ;;
--make) mode=make ;;
--inside) mode=inside ;;
-h|--help) sed -n '2,/^# Copyright/{/^# Copyright/d;s/^# \{0,1\}//p;}' "$0"; exit 0 ;;
*) die "unknown argument $1 (--help)" ;;
esac

# chroot_pids - the processes whose root directory is the chroot.
chroot_pids() {
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && echo "${p#/proc/}"
	done
	return 0
}

# stop_chroot_pids - TERM, then (after 10 s) KILL, each process in the chroot.
stop_chroot_pids() {
	pids=$(chroot_pids)
	[ -n "$pids" ] || return 0
	say "stopping what still runs in the chroot: $(echo $pids)"
	# shellcheck disable=SC2086
	kill -TERM $pids 2>/dev/null || true
	i=0
	while [ $i -lt 50 ] && [ -n "$(chroot_pids)" ]; do sleep 0.2; i=$((i + 1)); done
	pids=$(chroot_pids)
	# shellcheck disable=SC2086
	[ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
}

if [ "$mode" = inside ]; then
	# In the private mount namespace (unshare -m, see below): mount, copy
	# the tree, chroot; unmount on the way out.
	shift
	what=$1
	cleanup() {
		stop_chroot_pids
		for m in tmp/falcon-cluster-tests.lock src/minbase.tar src/shared run dev sys proc; do
			mountpoint -q "$root/$m" && umount -R -l "$root/$m" 2>/dev/null || true
		done
		mountpoint -q "$root" && umount -l "$root" 2>/dev/null || true
	}
	trap cleanup EXIT
	trap 'exit 130' INT TERM HUP
	mount --make-rprivate /
	mount --bind "$root" "$root"
	mount -t proc proc "$root/proc"
	mount --rbind /sys "$root/sys"
	mount --rbind /dev "$root/dev"
	mount -t tmpfs -o mode=0755 tmpfs "$root/run"
	cp /etc/hosts "$root/etc/hosts"
	[ -f /etc/resolv.conf ] && cp /etc/resolv.conf "$root/etc/resolv.conf" || true
	rm -rf "$root/src/falcon-slurm"
	mkdir -p "$root/src/falcon-slurm" "$root/src/shared"
	tar -C "$top" -cf - --exclude=./build --exclude=./build-asan --exclude='./build-[!a]*' \
		--exclude='./falcon-slurm-*' --exclude=./.git . |
		tar -C "$root/src/falcon-slurm" -xf -
	# The test clusters' lock (tests/integration/slurm-lib.sh) is the
	# machine's: a cluster in here and one outside never run at once (both
	# name their node after this host and number jobs from 1, so they would
	# share cgroup job directories).
	touch /tmp/falcon-cluster-tests.lock "$root/tmp/falcon-cluster-tests.lock"
	mount --bind /tmp/falcon-cluster-tests.lock "$root/tmp/falcon-cluster-tests.lock"
	shared=
	if [ -n "${FALCON_SHARED:-}" ] && [ -d "$FALCON_SHARED" ]; then
		mount --bind -o ro "$FALCON_SHARED" "$root/src/shared"
		shared=/src/shared
	fi
	# this release's minbase (the tarball this chroot was made from), for
	# the fresh chroot of tests/integration/packages.sh: the same
	# debootstrap, not made a second time in here
	minbase=$(dirname "$root")/debootstrap-$codename.tar pkgtest_tar=
	if [ -f "$minbase" ]; then
		: >"$root/src/minbase.tar"
		mount --bind -o ro "$minbase" "$root/src/minbase.tar"
		pkgtest_tar=/src/minbase.tar
	fi
	env="PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
 LANG=C.UTF-8 TERM=${TERM:-dumb} FALCON_SHARED=$shared FALCON_TEST_JOBS=${FALCON_TEST_JOBS:-6}
 FALCON_DPKG_UNSAFE_IO=1 FALCON_PKGTEST_TARBALL=$pkgtest_tar"
	rc=0
	case $what in
	test)
		# shellcheck disable=SC2086
		chroot "$root" /usr/bin/env -i $env /bin/sh -c \
			"cd /src/falcon-slurm && exec scripts/test-all.sh --inside-lane=$suite" &
		;;
	quickstart)
		# shellcheck disable=SC2086
		chroot "$root" /usr/bin/env -i $env /bin/sh -c \
			'cd /src/falcon-slurm && scripts/quickstart.sh; rc=$?
			 scripts/quickstart.sh --stop >/dev/null 2>&1; exit $rc' &
		;;
	packages)
		# shellcheck disable=SC2086
		chroot "$root" /usr/bin/env -i $env /bin/sh -c \
			'cd /src/falcon-slurm && scripts/install-deps.sh --chroot-lane >&2 &&
			 scripts/packages.sh --out /var/tmp/falcon-packages' &
		;;
	shell)
		# shellcheck disable=SC2086
		chroot "$root" /usr/bin/env -i $env /bin/bash -c \
			'cd /src/falcon-slurm && exec bash -i' || rc=$?
		exit $rc
		;;
	esac
	# in the background and waited for: a signal then runs the traps at
	# once (sh runs them only after a foreground child has ended)
	wait $! || rc=$?
	exit $rc
fi

[ "$(id -u)" = 0 ] || die "run as root (debootstrap, mounts, chroot)"
command -v unshare >/dev/null 2>&1 || die "unshare not found (util-linux)"
# one run per chroot at a time: each replaces the tree in /src/falcon-slurm
mkdir -p "$(dirname "$root")"
exec 9>"$root.lock"
flock -n 9 || die "another chroot-lane.sh runs on $root ($root.lock)"

# 1. the chroot, once
if [ ! -f "$stamp" ]; then
	command -v debootstrap >/dev/null 2>&1 || {
		say "installing debootstrap"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			debootstrap >&2 || die "cannot install debootstrap"
	}
	[ -z "$(chroot_pids)" ] || die "processes still run in $root: $(chroot_pids | tr '\n' ' ')"
	rm -rf "$root"
	mkdir -p "$root"
	t0=$(date +%s)
	# one debootstrap per Debian release: the chroots of one codename
	# (trixie's two lanes, started together) unpack the first one's
	# minbase, kept as DIR/debootstrap-CODENAME.tar
	minbase=$(dirname "$root")/debootstrap-$codename.tar
	exec 8>"$minbase.lock"
	flock 8
	if [ -f "$minbase" ]; then
		say "unpacking $minbase into $root"
		tar -C "$root" -xf "$minbase" || die "cannot unpack $minbase"
	else
		say "debootstrap --variant=minbase $codename $root $mirror"
		debootstrap --variant=minbase "$codename" "$root" "$mirror" >"$root.debootstrap.log" 2>&1 ||
			{ tail -n 20 "$root.debootstrap.log" >&2; die "debootstrap failed (log: $root.debootstrap.log)"; }
		tar -C "$root" -cf "$minbase.tmp" . && mv "$minbase.tmp" "$minbase" ||
			{ rm -f "$minbase.tmp"; say "warning: cannot keep $minbase"; }
	fi
	flock -u 8
	exec 8>&-
	date -u +%FT%TZ >"$stamp"
	say "chroot made in $(($(date +%s) - t0)) s: $root"
else
	say "reusing the $suite chroot $root (made $(cat "$stamp"))"
fi

# A mirror may serve a snapshot whose Release files have passed their
# Valid-Until (sid's is a week): apt in the chroot accepts them.
mkdir -p "$root/etc/apt/apt.conf.d"
echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/99falcon-snapshot"
[ "$mode" != make ] || exit 0

# 2. the run, in a mount namespace of its own; the namespace goes with its
# last process, and the inside cleanup (umount, stop) runs on any exit.
t0=$(date +%s)
rc=0
if [ "$mode" = shell ]; then
	trap 'stop_chroot_pids' EXIT
	FALCON_CHROOT_CACHE=$root FALCON_CHROOT_SUITE=$suite unshare --mount --propagation private "$0" --inside shell || rc=$?
else
	# unshare execs the inside script: $! is it; a signal is passed on
	FALCON_CHROOT_CACHE=$root FALCON_CHROOT_SUITE=$suite unshare --mount --propagation private "$0" --inside "$mode" &
	inner=$!
	trap 'kill -TERM $inner 2>/dev/null; wait $inner; stop_chroot_pids; exit 130' INT TERM HUP
	trap 'stop_chroot_pids' EXIT
	wait $inner || rc=$?
fi
say "$suite lane ($mode) finished in $(($(date +%s) - t0)) s, exit status $rc"
exit $rc
