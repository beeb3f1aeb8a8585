#!/bin/sh
# scripts/slurm-build.sh - Slurm built from SchedMD's release tarball and
# installed into /usr/local, for a lane whose Debian has no Slurm of that
# release (the Slurm 26.05 lane of scripts/test-all.sh: Debian's mirror
# serves no source for sid's slurm-wlm 26.05; ../shared/slurm/SOURCE).
#
#   slurm-build.sh [TARBALL]
#
# TARBALL: default $FALCON_SHARED/slurm/slurm-26.05.3.tar.xz.  Unpacked,
# configured and built in CACHE_DIR/slurm-VERSION (CACHE_DIR:
# $FALCON_SLURM_SOURCE_CACHE, else /var/cache/falcon-slurm), installed with
# `make install` into /usr/local (daemons, commands, libslurm with its
# slurm.pc, the plugins in /usr/local/lib/slurm, slurmdbd's MySQL/MariaDB
# plugin; configure --sysconfdir=/etc/slurm), then ldconfig.  A stamp file
# marks a finished one, which later runs reuse when /usr/local/sbin/slurmctld
# is still that release and the stamp names the same configure options.
# Built for tests, not for speed at run time: CFLAGS=-O0 -g0 with
# --disable-debug (no -ggdb3 -O1 added by Slurm's auxdir/x_ac_debug.m4) and
# --disable-static (libtool compiled every library object twice, PIC and
# not): 868 compiles at -O1 -ggdb3 became 434 at -O0, each about 3 times
# quicker (Slurm's own developers build -O0: --disable-optimizations).
# Prints the build tree's path as its only line on stdout (configured:
# `configure --with-slurm-source="$(scripts/slurm-build.sh)"` builds
# job_submit_falcon.so against it, as a job_submit plugin must be
# built against the very release that loads it: src/common/plugin.c);
# progress and the build's time and size go to stderr.  Needs root and
# Slurm's build dependencies (scripts/install-deps.sh --slurm-from-source).
# Exit status 1 with the reason on stderr when it cannot.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
set -eu

prog=slurm-build.sh
say() { echo "$prog: $*" >&2; }
die() { echo "$prog: error: $*" >&2; exit 1; }

case ${1:-} in -h|--help)
	sed -n '2,/^# Copyright/{/^# Copyright/d;s/^# \{0,1\}//p;}' "$0"; exit 0 ;;
esac
top=$(cd "$(dirname "$0")/.." && pwd)
tarball=${1:-${FALCON_SHARED:-$top/../shared}/slurm/slurm-26.05.3.tar.xz}
[ -f "$tarball" ] || die "$tarball not found (Slurm's release tarball; ../shared/slurm/SOURCE)"
[ "$(id -u)" = 0 ] || die "run as root (make install into /usr/local)"
base=$(basename "$tarball")
ver=${base#slurm-}; ver=${ver%.tar.*}
case $ver in [0-9]*.[0-9]*.[0-9]*) ;; *) die "$base: expected slurm-MAJOR.MINOR.MICRO.tar.*" ;; esac
cache=${FALCON_SLURM_SOURCE_CACHE:-/var/cache/falcon-slurm}
dir=$cache/slurm-$ver
stamp=$dir/.falcon-slurm-installed

opts="--prefix=/usr/local --sysconfdir=/etc/slurm --enable-multiple-slurmd --disable-debug --disable-static"
cflags="-O0 -g0"
if [ -f "$stamp" ] && [ "$(/usr/local/sbin/slurmctld -V 2>/dev/null)" = "slurm $ver" ] &&
	[ "$(sed -n 2p "$stamp")" = "$opts CFLAGS=$cflags" ]; then
	say "reusing Slurm $ver built in $dir ($(head -n 1 "$stamp"))"
	echo "$dir"
	exit 0
fi
jobs=$(nproc 2>/dev/null || echo 2)
t0=$(date +%s)
rm -rf "$dir"
mkdir -p "$cache"
say "unpacking $base into $cache"
tar -C "$cache" -xf "$tarball" || die "cannot unpack $tarball"
[ -f "$dir/src/slurmctld/slurmctld.h" ] || die "$dir: not Slurm's source tree"
say "configure $opts CFLAGS=$cflags"
# shellcheck disable=SC2086 # $opts: one word per option
(cd "$dir" && ./configure $opts CFLAGS="$cflags" >configure.log 2>&1) ||
	{ tail -n 30 "$dir/configure.log" >&2; die "Slurm's configure failed ($dir/configure.log)"; }
grep -q '^#define HAVE_MYSQL 1' "$dir/config.h" ||
	die "Slurm's configure found no MySQL/MariaDB client: slurmdbd could not store jobs (scripts/install-deps.sh --slurm-from-source)"
say "make -j$jobs"
(cd "$dir" && make -j"$jobs" >make.log 2>&1) ||
	{ tail -n 30 "$dir/make.log" >&2; die "Slurm's make failed ($dir/make.log)"; }
(cd "$dir" && make install >install.log 2>&1) ||
	{ tail -n 30 "$dir/install.log" >&2; die "Slurm's make install failed ($dir/install.log)"; }
ldconfig
[ "$(/usr/local/sbin/slurmctld -V 2>/dev/null)" = "slurm $ver" ] ||
	die "/usr/local/sbin/slurmctld -V says '$(/usr/local/sbin/slurmctld -V 2>&1)', not slurm $ver"
printf '%s\n%s\n' "$(date -u +%FT%TZ)" "$opts CFLAGS=$cflags" >"$stamp"
say "Slurm $ver built and installed in $(($(date +%s) - t0)) s; tree $(du -sh "$dir" | cut -f1)," \
	"installed $(du -shc /usr/local/sbin /usr/local/bin /usr/local/lib/libslurm* /usr/local/lib/slurm \
	2>/dev/null | tail -n 1 | cut -f1)"
echo "$dir"
