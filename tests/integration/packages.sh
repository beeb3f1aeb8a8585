#!/bin/sh
# tests/integration/packages.sh [DEB_DIR] - falcon-slurm's .debs as a site
# installs them: with apt, into a fresh minbase chroot of this machine's
# Debian release (every dependency from Debian), configured in /etc from
# the packaged examples, run with the installed programs and plugins only:
#   1. apt-get install of every package but falcon-ncclcheck, with
#      slurmctld, slurmd and slurm-client
#   2. the main job: sbatch --gres=falcon_gpu:4 COMPLETED, falconGPUs
#   3. an upgrade to packages of a higher version (the same .debs, version
#      +upgrade1) while a job holds a lease: the lease survives falcond's
#      restart on the new binary, the job's epilog releases it
#   4. apt-get remove: /etc/falcon and /var/lib/falcon kept
#   5. apt-get purge: /var/lib/falcon gone
# DEB_DIR: the .debs (default: scripts/packages.sh builds them).  The
# minbase chroot is made once with debootstrap and cached in
# /var/cache/falcon-slurm/<codename>-minbase ($FALCON_PKGTEST_CACHE) with
# apt's downloaded archives beside it (or unpacked from
# $FALCON_PKGTEST_TARBALL, a tarball of such a debootstrap: the chroot
# lanes pass the one their chroot was made from); each run works on a fresh copy in
# /var/tmp, in mount, UTS and (for the daemons) network namespaces of its
# own: no port or /etc of this machine is touched.  Root only: skips (exit
# 77, said) otherwise.  Called by scripts/test-all.sh in each lane.
# FALCON_PKGTEST_KEEP=1 keeps the copy (its path printed) to look into.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
set -eu

prog=packages-test
say() { echo "$prog: $*"; }
die() { echo "$prog: FAIL: $*" >&2; exit 1; }

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

if [ "${1:-}" = --inside ]; then
	# in the private namespaces: mount, run the step's commands, unmount
	root=$2 net=$3; shift 3
	mount --make-rprivate /
	mount -t proc proc "$root/proc"
	mount --rbind /sys "$root/sys"
	mount --rbind /dev "$root/dev"
	mount -t tmpfs -o mode=0755 tmpfs "$root/run"
	mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
	if [ "$net" != host ]; then
		# loopback, and one other IPv4 address: Slurm's getaddrinfo()
		# asks AI_ADDRCONFIG, which finds nothing with loopback alone
		ip link set lo up
		ip link add falcon0 type dummy 2>/dev/null ||
			ip link add falcon0 type veth peer name falcon1
		ip addr add 10.77.254.1/24 dev falcon0
		ip link set falcon0 up
		hostname node1
	fi
	printf '127.0.0.1 localhost\n127.0.1.1 node1\n' >"$root/etc/hosts"
	cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
	rc=0
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive /bin/sh -c "$*" || rc=$?
	# what the step started (daemons) is stopped by the step "stop"
	exit $rc
fi

if [ "$(id -u)" != 0 ]; then
	echo "$prog: SKIP: not root (needs debootstrap, chroot, namespaces)"
	exit 77
fi
t0=$(date +%s)
codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
mirror=${FALCON_DEBIAN_MIRROR:-http://deb.debian.org/debian}
base=${FALCON_PKGTEST_CACHE:-/var/cache/falcon-slurm/$codename-minbase}
archives=$base.archives
debs=${1:-}
if [ -z "$debs" ]; then
	debs=$("$top/scripts/packages.sh" | tail -n 1) || die "scripts/packages.sh failed"
fi
ls "$debs"/falcond_*.deb >/dev/null 2>&1 || die "no falcond_*.deb in $debs"

# the minbase chroot, once
if [ ! -f "$base/.falcon-minbase" ]; then
	rm -rf "$base"
	mkdir -p "$base"
	tarball=${FALCON_PKGTEST_TARBALL:-}
	if [ -n "$tarball" ] && [ -f "$tarball" ]; then
		say "unpacking $tarball (a debootstrap --variant=minbase $codename) into $base"
		tar -C "$base" -xf "$tarball" || die "cannot unpack $tarball"
		got=$(. "$base/etc/os-release" 2>/dev/null && echo "${VERSION_CODENAME:-}") || got=
		[ "$got" = "$codename" ] ||
			{ rm -rf "$base"; die "$tarball is Debian '${got:-?}', not $codename (FALCON_PKGTEST_TARBALL)"; }
	else
		command -v debootstrap >/dev/null 2>&1 || die "debootstrap not installed (scripts/install-deps.sh)"
		say "debootstrap --variant=minbase $codename $base"
		debootstrap --variant=minbase "$codename" "$base" "$mirror" >"$base.log" 2>&1 ||
			{ tail -n 20 "$base.log"; die "debootstrap failed"; }
	fi
	date -u +%FT%TZ >"$base/.falcon-minbase"
fi
mkdir -p "$archives/partial"
work=$(mktemp -d /var/tmp/falcon-pkgtest.XXXXXX)
root=$work/root
cleanup() {
	for p in /proc/[0-9]*; do # whatever still runs in the copy
		[ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && kill -KILL "${p#/proc/}" 2>/dev/null
	done
	[ -n "${FALCON_PKGTEST_KEEP:-}" ] && echo "$prog: kept $work" || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
cp -a "$base" "$root"
mkdir -p "$root/falcon-test/debs" "$root/falcon-test/new"
cp "$debs"/*.deb "$root/falcon-test/debs/"
rm -f "$root"/falcon-test/debs/falcon-ncclcheck_*.deb "$root"/falcon-test/debs/*-dbgsym_*.deb
cp "$here/packages-inside.sh" "$root/falcon-test/inside.sh"
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod +x "$root/usr/sbin/policy-rc.d" "$root/falcon-test/inside.sh"
# apt's downloads kept between runs
mkdir -p "$root/var/cache/apt/archives"
in_chroot() { # in_chroot host|private COMMANDS
	net=$1; shift
	if [ "$net" = host ]; then
		unshare --mount --propagation private sh -c \
			"mount --bind '$archives' '$root/var/cache/apt/archives' && exec '$0' --inside '$root' host \"\$@\"" \
			sh "$*"
	else
		unshare --mount --uts --net --propagation private "$0" --inside "$root" private "$*"
	fi
}

# apt repositories of the packages (as a site has one): repo/ the
# packages, repo-new/ the upgrade's: the same .debs, version V+upgrade1
ver=$(dpkg-deb -f "$root"/falcon-test/debs/falcond_*.deb Version)
for d in "$root"/falcon-test/debs/*.deb; do
	x=$work/x; rm -rf "$x"
	dpkg-deb -R "$d" "$x"
	sed -i "s/$ver/$ver+upgrade1/g" "$x/DEBIAN/control"
	dpkg-deb -b "$x" "$root/falcon-test/new/" >/dev/null
done
rm -rf "$work/x"
for r in debs new; do
	(cd "$root/falcon-test/$r" && dpkg-scanpackages . /dev/null >Packages 2>/dev/null)
done
echo "deb [trusted=yes] file:/falcon-test/debs ./" >"$root/etc/apt/sources.list.d/falcon.list"
echo "deb [trusted=yes] file:/falcon-test/new ./" >"$root/falcon-test/falcon-new.list"
pkgs=$(cd "$root/falcon-test/debs" && ls ./*.deb | sed 's|^\./||; s/_.*//' | tr '\n' ' ')

# 1. install
t1=$(date +%s)
in_chroot host "apt-get update -qq && apt-get install -y -qq --no-install-recommends \
	$pkgs slurmctld slurmd slurm-client munge >/falcon-test/apt.log 2>&1 ||
	{ tail -n 30 /falcon-test/apt.log; exit 1; }" || die "apt-get install of the packages failed"
say "1. installed with apt in $(($(date +%s) - t1)) s: $pkgs"
[ -f "$root/etc/falcon/falcon.conf" ] || die "no /etc/falcon/falcon.conf"
[ -z "$(find "$root/usr/lib" -name '*falcon*.la')" ] || die ".la files installed"

# 2-5 offline, in a network namespace of its own
steps='set -e; s=/falcon-test/inside.sh
	trap "$s stop" EXIT
	$s configure && $s start && $s job
	id=$($s hold | tail -n 1)
	echo "packages-test: job $id holds a lease:"; $s leases | sed "s/^/  /"
	held() { $s leases | awk -v j="$1" '"'"'$1 ~ /^L-[0-9]+$/ && $2 == j { n++ } END { exit !n }'"'"'; }
	held "$id" || { echo "no lease of job $id"; exit 1; }
	# the state a release of today writes (tests/unit/data/state-v1 came from here)
	cp -a /var/lib/falcon /falcon-test/state-held
	cp /falcon-test/falcon-new.list /etc/apt/sources.list.d/
	apt-get update -qq -o Dir::Etc::sourcelist=/falcon-test/falcon-new.list -o Dir::Etc::sourceparts=- \
		-o APT::Get::List-Cleanup=0 >/falcon-test/apt-up.log 2>&1
	apt-get install -y -qq --no-install-recommends $pkgs >>/falcon-test/apt-up.log 2>&1 ||
		{ tail -n 20 /falcon-test/apt-up.log; exit 1; }
	echo "packages-test: 3. upgraded to $(dpkg-query -W -f="\${Version}" falcond)"
	$s restart-falcond
	held "$id" || { echo "the lease of job $id is gone after the upgrade"; exit 1; }
	echo "packages-test: 3. the lease of job $id survived the upgrade"
	$s wait "$id"
	i=0; while held "$id"; do i=$((i+1)); [ $i -lt 60 ] || { echo "job $id: lease not released"; exit 1; }; sleep 1; done
	echo "packages-test: 3. job $id COMPLETED, its epilog released the lease"
	$s stop; trap - EXIT
	apt-get remove -y -qq $pkgs >/falcon-test/apt-rm.log 2>&1
	[ -f /etc/falcon/falcon.conf ] || { echo "apt remove deleted /etc/falcon/falcon.conf"; exit 1; }
	[ -d /var/lib/falcon ] || { echo "apt remove deleted /var/lib/falcon"; exit 1; }
	[ ! -e /usr/sbin/falcond ] || { echo "falcond still installed"; exit 1; }
	echo "packages-test: 4. apt remove: /etc/falcon and /var/lib/falcon kept"
	apt-get purge -y -qq $pkgs >/falcon-test/apt-purge.log 2>&1
	[ ! -e /var/lib/falcon ] || { echo "apt purge left /var/lib/falcon"; exit 1; }
	[ ! -e /etc/falcon/falcon.conf ] || { echo "apt purge left /etc/falcon/falcon.conf"; exit 1; }
	echo "packages-test: 5. apt purge: /var/lib/falcon and the conffiles gone"'
t2=$(date +%s)
in_chroot private "pkgs='$pkgs'; $steps" || die "see above (logs: the chroot's /var/spool/falcon-test/log)"
say "2-5. job, upgrade, remove, purge in $(($(date +%s) - t2)) s"
say "PASS in $(($(date +%s) - t0)) s (Debian $codename)"
