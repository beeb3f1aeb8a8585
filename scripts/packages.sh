#!/bin/sh
# scripts/packages.sh - build falcon-slurm's packages from this tree, with
# no network once scripts/install-deps.sh has run (it installs the build
# dependencies and caches Slurm's orig tarball).
#
#   packages.sh [--out DIR]             .debs (and the source package) for
#                                       this machine's Debian release
#   packages.sh --trixie [--out DIR]    the same for Debian 13, built in the
#                                       chroot of scripts/chroot-lane.sh
#   packages.sh --rpm [--out DIR]       RPMs from packaging/falcon-slurm.spec
#                                       with rpmbuild
#
# FALCON_DIST_TARBALL: the upstream tarball (`make dist` of this tree) to
# build from, instead of making one (scripts/test-all.sh passes its lane's
# build's: the same sources, and no second bootstrap and configure).
#
# The packages go to DIR/<codename> (DIR/rpm for --rpm); DIR defaults to
# $FALCON_PACKAGES_DIR or /var/tmp/falcon-packages.  The last line printed
# is that folder.  Decisions (package split, Slurm dependencies, the
# Slurm source as a second orig tarball, falcond's unit): debian/README.source.
#
# Steps (.debs): a copy of the tree (no .git, no build folders);
# ./bootstrap, configure, `make dist`: the orig tarball (or
# FALCON_DIST_TARBALL); Slurm's source of
# the installed libslurm-dev (scripts/slurm-source.sh --orig, cached in
# /var/cache/falcon-slurm) as the orig-slurm component; a changelog entry
# VERSION+debNN (so that a Debian 13 build is newer than a Debian 12 one);
# dpkg-buildpackage (the pkg.falcon-slurm.nocuda profile when CUDA and
# NCCL are not installed); lintian, which must report no error and no
# warning (FALCON_LINTIAN=binary: on the .debs only).  DEB_BUILD_OPTIONS
# passes through (nocheck skips the unit tests).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
set -eu

prog=packages.sh
t0=$(date +%s)
# say MSG - MSG with the seconds since this script started (each step timed)
say() { echo "$prog: [$(($(date +%s) - t0)) s] $*" >&2; }
die() { echo "$prog: error: $*" >&2; exit 1; }

cd "$(dirname "$0")/.."
top=$(pwd)
mode=deb
out=${FALCON_PACKAGES_DIR:-/var/tmp/falcon-packages}
while [ $# -gt 0 ]; do
	case $1 in
	--rpm) mode=rpm ;;
	--trixie) mode=trixie ;;
	--out) out=$2; shift ;;
	--out=*) out=${1#--out=} ;;
	-h|--help) sed -n '2,/^# Copyright/{/^# Copyright/d;s/^# \{0,1\}//p;}' "$0"; exit 0 ;;
	*) die "unknown argument $1 (--help)" ;;
	esac
	shift
done
case $out in /*) ;; *) out=$top/$out ;; esac
jobs=$(nproc 2>/dev/null || echo 2)
[ "$jobs" -le 2 ] || jobs=2

# Debian 13 packages: this script in the trixie chroot, the result copied out
if [ $mode = trixie ]; then
	[ "$(id -u)" = 0 ] || die "--trixie needs root (scripts/chroot-lane.sh)"
	root=${FALCON_CHROOT_CACHE:-/var/cache/falcon-slurm/trixie}
	scripts/chroot-lane.sh --packages >&2 || die "the build in the trixie chroot failed"
	rm -rf "$out/trixie"
	mkdir -p "$out"
	cp -a "$root/var/tmp/falcon-packages/trixie" "$out/trixie"
	say "Debian 13 packages in $(($(date +%s) - t0)) s"
	echo "$out/trixie"
	exit 0
fi

work=$(mktemp -d "${TMPDIR:-/var/tmp}/falcon-packages.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/dist"
if [ -n "${FALCON_DIST_TARBALL:-}" ]; then
	case $FALCON_DIST_TARBALL in
	*/falcon-slurm-*.tar.gz) [ -f "$FALCON_DIST_TARBALL" ] ||
		die "FALCON_DIST_TARBALL=$FALCON_DIST_TARBALL: no such file" ;;
	*) die "FALCON_DIST_TARBALL=$FALCON_DIST_TARBALL: expected a falcon-slurm-VERSION.tar.gz of make dist" ;;
	esac
	say "the upstream tarball: $FALCON_DIST_TARBALL"
	cp "$FALCON_DIST_TARBALL" "$work/dist/"
else
	# the tree as a clean clone has it
	mkdir "$work/tree"
	say "a copy of the tree, ./bootstrap"
	tar -C "$top" -cf - --exclude=./.git --exclude=./build --exclude=./build-asan --exclude='./build-[!a]*' \
		--exclude='./falcon-slurm-*' --exclude=./autom4te.cache . | tar -C "$work/tree" -xf -
	(cd "$work/tree" && ./bootstrap >"$work/bootstrap.log" 2>&1) ||
		{ cat "$work/bootstrap.log" >&2; die "./bootstrap failed"; }
	say "make dist (the upstream tarball)"
	(cd "$work/dist" && "$work/tree/configure" --disable-werror >configure.log 2>&1 &&
		make -j"$jobs" dist >dist.log 2>&1) ||
		{ tail -n 30 "$work/dist/configure.log" "$work/dist/dist.log" >&2; die "make dist failed"; }
fi
tarball=$(ls "$work"/dist/falcon-slurm-*.tar.gz)
upver=$(basename "$tarball" .tar.gz); upver=${upver#falcon-slurm-}

if [ $mode = rpm ]; then
	command -v rpmbuild >/dev/null 2>&1 || die "rpmbuild not found (scripts/install-deps.sh)"
	slurm_orig=$(scripts/slurm-source.sh --orig) || die "no Slurm orig tarball (scripts/install-deps.sh)"
	sver=$(dpkg-query -W -f='${Version}' libslurm-dev 2>/dev/null) ||
		die "libslurm-dev is not installed"
	sup=${sver#*:}; sup=${sup%-*}
	mkdir -p "$work/rpm/SOURCES" "$work/rpm/SPECS"
	cp "$tarball" "$work/rpm/SOURCES/"
	cp "$slurm_orig" "$work/rpm/SOURCES/slurm-$sup.tar.${slurm_orig##*.tar.}"
	cp debian/falcon-conf-template.sh debian/plugstack-falcon.conf "$work/rpm/SOURCES/"
	sed "s/^Version:.*/Version:        $upver/" packaging/falcon-slurm.spec >"$work/rpm/SPECS/falcon-slurm.spec"
	say "rpmbuild (Slurm $sup; --nodeps: on Debian the build dependencies are Debian packages, not RPMs)"
	# On Debian: libslurm from Debian's packages, its plugin directory,
	# Slurm's source from the cached orig tarball (a RHEL build takes
	# them from slurm-devel and the spec's defaults)
	rpmbuild -ba --nodeps --define "_topdir $work/rpm" \
		--define "slurm_version $sup" \
		--define "slurm_source_ext ${slurm_orig##*.tar.}" \
		--define "slurm_plugindir $(dpkg -L slurm-wlm-basic-plugins 2>/dev/null | sed -n 's|/auth_munge\.so$||p' | head -n 1)" \
		--define "_smp_mflags -j$jobs" --define "debug_package %{nil}" \
		"$work/rpm/SPECS/falcon-slurm.spec" >"$work/rpmbuild.log" 2>&1 ||
		{ tail -n 40 "$work/rpmbuild.log" >&2; die "rpmbuild failed (log above)"; }
	rm -rf "$out/rpm"
	mkdir -p "$out/rpm"
	find "$work/rpm/RPMS" "$work/rpm/SRPMS" -name '*.rpm' -exec cp {} "$out/rpm/" \;
	if command -v rpmlint >/dev/null 2>&1; then
		say "rpmlint"
		rpmlint -r packaging/falcon-slurm.rpmlintrc "$out"/rpm/*.rpm >"$out/rpm/rpmlint.log" 2>&1 || true
		sed 's/^/  /' "$out/rpm/rpmlint.log" | tail -n 30 >&2
	fi
	ls -l "$out/rpm" | sed 's/^/  /' >&2
	say "RPMs in $(($(date +%s) - t0)) s"
	echo "$out/rpm"
	exit 0
fi

# .debs
for t in dpkg-buildpackage dh lintian; do
	command -v $t >/dev/null 2>&1 || die "$t not found (scripts/install-deps.sh)"
done
codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
debver=$(. /etc/os-release && echo "${VERSION_ID%%.*}")
slurm_orig=$(scripts/slurm-source.sh --orig) ||
	die "no Slurm orig tarball: run scripts/install-deps.sh (it caches it) once with network"
src=$work/src
mkdir "$src"
cp "$tarball" "$src/falcon-slurm_$upver.orig.tar.gz"
cp "$slurm_orig" "$src/falcon-slurm_$upver.orig-slurm.tar.${slurm_orig##*.tar.}"
tar -C "$src" -xf "$tarball"
pkgdir=$src/falcon-slurm-$upver
mkdir "$pkgdir/slurm"
tar -C "$pkgdir/slurm" --strip-components=1 -xf "$slurm_orig"
cp -a debian "$pkgdir/debian"
# this release's entry: VERSION+debNN (Debian 13's build newer than 12's)
ver=$(cd "$pkgdir" && dpkg-parsechangelog -SVersion)
{
	printf 'falcon-slurm (%s+deb%s) %s; urgency=medium\n\n' "$ver" "$debver" "$codename"
	printf '  * Built for Debian %s (%s) by scripts/packages.sh.\n\n' "$debver" "$codename"
	printf ' -- falcon-slurm developers <dev@falcon-slurm.invalid>  %s\n\n' "$(date -R)"
	cat debian/changelog
} >"$pkgdir/debian/changelog"
profiles=
if ! { [ -f /usr/include/cuda_runtime_api.h ] && [ -f /usr/include/nccl.h ]; }; then
	profiles=pkg.falcon-slurm.nocuda
	say "no CUDA runtime and NCCL headers in /usr/include: profile $profiles (no falcon-ncclcheck package)"
fi
(cd "$pkgdir" && dpkg-checkbuilddeps ${profiles:+-P$profiles}) ||
	die "build dependencies missing: run scripts/install-deps.sh"
say "dpkg-buildpackage ${profiles:+-P$profiles} (Slurm $(dpkg-query -W -f='${Version}' libslurm-dev))"
(cd "$pkgdir" && dpkg-buildpackage -us -uc -sa -j"$jobs" ${profiles:+-P$profiles} \
	>"$work/build.log" 2>&1) || { tail -n 60 "$work/build.log" >&2; die "dpkg-buildpackage failed"; }
# what debian/rules said of its own choices (FALCON_SLURM_CONFIGURED)
sed -n 's/^\(debian\/rules: \)/  \1/p' "$work/build.log" >&2
changes=$(ls "$src"/falcon-slurm_*.changes)
# FALCON_LINTIAN=binary: the .debs only, not the source package, whose
# check unpacks Slurm's source (the orig-slurm component) and takes 26 of
# lintian's 30 s (2026-11-29); test-all's host lane sets it, as the trixie
# lane checks the same source package with Debian 13's newer lintian
if [ "${FALCON_LINTIAN:-all}" = binary ]; then
	say "lintian (the binary packages: FALCON_LINTIAN=binary)"
	# shellcheck disable=SC2046
	lintian --info --display-info --show-overrides $(ls "$src"/*.deb) >"$src/lintian.log" 2>&1 || true
else
	say "lintian"
	lintian --info --display-info --show-overrides "$changes" >"$src/lintian.log" 2>&1 || true
fi
rm -rf "${out:?}/$codename"
mkdir -p "$out/$codename"
for f in $(sed -n '/^Files:/,/^[A-Z]/{s/^ [0-9a-f]\{32\} [0-9]* [^ ]* [^ ]* //p}' "$changes") \
	"$(basename "$changes")" lintian.log; do
	cp "$src/$f" "$out/$codename/"
done
cp "$work/build.log" "$out/$codename/build.log"
e=$(grep -c '^E: ' "$src/lintian.log" || true)
w=$(grep -c '^W: ' "$src/lintian.log" || true)
i=$(grep -c '^[IP]: ' "$src/lintian.log" || true)
o=$(grep -c '^O: ' "$src/lintian.log" || true)
say "lintian: $e errors, $w warnings, $i info, $o overridden ($out/$codename/lintian.log)"
grep '^[EW]: ' "$src/lintian.log" | sed 's/^/  /' >&2 || true
(cd "$out/$codename" && ls -l ./*.deb) | awk '{ printf "  %8d  %s\n", $5, $NF }' >&2
say "Debian $debver packages in $(($(date +%s) - t0)) s"
[ "$e" = 0 ] && [ "$w" = 0 ] || die "lintian: $e errors, $w warnings"
echo "$out/$codename"
