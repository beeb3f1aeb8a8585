#!/bin/sh
# scripts/slurm-source.sh - Slurm's source tree of the INSTALLED Slurm
# (Debian's slurm-wlm source package of the version dpkg has), unpacked and
# configured just enough to compile a slurmctld plugin against it
# (job_submit_falcon.so needs slurmctld's internal headers; a plugin built
# against another version's structs would corrupt slurmctld's memory).
#
#   slurm-source.sh [CACHE_DIR]
#   slurm-source.sh --orig [CACHE_DIR]
#
# --orig: the upstream tarball alone (Debian's slurm-wlm_<version>.orig.tar.*
# of the installed version), kept as CACHE_DIR/<its name> and its path
# printed: the orig-slurm component of the falcon-slurm source package
# (scripts/packages.sh, debian/README.source); fetched like the fallback
# below (apt-helper, checked against the Sources index's SHA256).
#
# Prints the tree's path as its only line on stdout (for
# `configure --with-slurm-source="$(scripts/slurm-source.sh)"`); progress
# goes to stderr.  The tree is CACHE_DIR/slurm-wlm-<debian version>
# (CACHE_DIR: $FALCON_SLURM_SOURCE_CACHE, else /var/cache/falcon-slurm) and is
# reused by later runs (a stamp file marks a finished one).  Fetching needs
# root, network access to the Debian mirror and dpkg-dev; when the
# sources.list has no deb-src entry, a separate
# /etc/apt/sources.list.d/falcon-slurm-src.sources (Types: deb-src, the
# URIs/Suites/Components of the deb entries of debian.sources) is added and
# `apt-get update` run (from a one-line /etc/apt/sources.list, as
# debootstrap writes, a falcon-slurm-src.list of its deb lines as deb-src);
# nothing else of the apt configuration is changed.
# When `apt-get source` fails on a file (Debian 13's mirror here answers 404
# for the .dsc and .debian.tar.xz of 24.11.5-4+deb13u1) the upstream
# .orig.tar.gz alone is fetched with apt-helper, which checks it against the
# SHA256 of the Sources index apt verified (Release signature), and used
# without Debian's patches (which change packaging and docs, not the structs
# slurmctld.h declares); the tree's falcon-source file says which it is.
# Exit status 1 with the reason on stderr when it cannot.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
set -eu

prog=slurm-source.sh
say() { echo "$prog: $*" >&2; }
die() { echo "$prog: error: $*" >&2; exit 1; }

case ${1:-} in -h|--help)
	sed -n '2,/^# Copyright/{/^# Copyright/d;s/^# \{0,1\}//p;}' "$0"; exit 0 ;;
esac
orig_only=no
[ "${1:-}" != --orig ] || { orig_only=yes; shift; }
cache=${1:-${FALCON_SLURM_SOURCE_CACHE:-/var/cache/falcon-slurm}}

ver=$(dpkg-query -W -f='${source:Version}' libslurm-dev 2>/dev/null) ||
	die "libslurm-dev is not installed (scripts/install-deps.sh)"
[ -n "$ver" ] || die "dpkg-query gave no version of libslurm-dev"
src=$(dpkg-query -W -f='${source:Package}' libslurm-dev)
dir=$cache/$src-$ver
stamp=$dir/.falcon-slurm-configured

if [ $orig_only = yes ]; then
	uver=${ver#*:}; uver=${uver%-*}
	for f in "$cache/${src}_$uver.orig.tar."*; do
		[ -f "$f" ] || continue
		say "reusing $f"
		echo "$f"
		exit 0
	done
fi

if [ $orig_only = no ] && [ -f "$stamp" ] && [ -f "$dir/src/slurmctld/slurmctld.h" ] && [ -f "$dir/config.h" ]; then
	say "reusing $dir"
	echo "$dir"
	exit 0
fi

[ "$(id -u)" = 0 ] || die "not root: cannot fetch $src $ver (run as root, or give configure --with-slurm-source=DIR)"
command -v dpkg-source >/dev/null 2>&1 || {
	say "installing dpkg-dev (dpkg-source)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends dpkg-dev >&2 ||
		die "cannot install dpkg-dev"
}

# A deb-src entry: one-line sources.list or deb822 .sources files.
has_src() {
	grep -Eqs '^[[:space:]]*deb-src[[:space:]]' /etc/apt/sources.list \
		/etc/apt/sources.list.d/*.list && return 0
	grep -Eqs '^Types:.*deb-src' /etc/apt/sources.list.d/*.sources
}
fetch() { # fetch DIR - apt-get source into DIR
	(cd "$1" && apt-get source -qq -o APT::Sandbox::User=root "$src=$ver") >&2 &&
		echo "apt-get source $src=$ver" >"$1/falcon-source"
}
# fetch_orig DIR - the .orig.tar.gz alone, checked against the SHA256 apt
# has for it (apt-get source --print-uris: from the signed Sources index)
fetch_orig() {
	line=$(apt-get source --print-uris -qq "$src=$ver" 2>/dev/null |
		grep "^'[^']*\.orig\.tar\.[a-z0-9]*' " | head -n 1)
	[ -n "$line" ] || { say "no .orig tarball of $src $ver in apt's Sources index"; return 1; }
	uri=$(echo "$line" | cut -d"'" -f2)
	set -- $(echo "$line" | cut -d"'" -f3-)
	name=$1; sum=$3
	case $sum in SHA256:*) ;; *) say "no SHA256 for $name in the Sources index"; return 1 ;; esac
	say "fetching $name alone ($sum, from the Sources index)"
	/usr/lib/apt/apt-helper download-file "$uri" "$tmp/$name" "$sum" >&2 || return 1
	[ "${keep:-no}" = no ] || return 0
	tar -xf "$tmp/$name" -C "$tmp" || return 1
	rm -f "$tmp/$name"
	echo "$name (upstream only, no Debian patches: apt-get source failed; $sum)" >"$tmp/falcon-source"
}

add_src() { # a deb-src entry derived from the deb ones, then apt-get update
	if ! has_src; then
		main=/etc/apt/sources.list.d/debian.sources
		if [ -f "$main" ]; then
			say "adding /etc/apt/sources.list.d/falcon-slurm-src.sources (deb-src of $main)"
			sed -n -e 's/^Types:.*/Types: deb-src/' -e '/^#/d' -e p "$main" \
				>/etc/apt/sources.list.d/falcon-slurm-src.sources
		elif grep -Eqs '^[[:space:]]*deb[[:space:]]' /etc/apt/sources.list; then
			say "adding /etc/apt/sources.list.d/falcon-slurm-src.list (deb-src of /etc/apt/sources.list)"
			sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' /etc/apt/sources.list \
				>/etc/apt/sources.list.d/falcon-slurm-src.list
		else
			die "no deb-src entry and no deb entry to derive one from"
		fi
	fi
	say "apt-get update"
	apt-get update -qq >&2 || die "apt-get update failed (no network?)"
}

mkdir -p "$cache"
tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ $orig_only = yes ]; then
	[ "$(id -u)" = 0 ] || die "not root: cannot fetch the $src $ver orig tarball"
	has_src || add_src
	apt-get source --print-uris -qq "$src=$ver" >/dev/null 2>&1 || { apt-get update -qq >&2 || true; }
	keep=yes fetch_orig "$tmp" || die "cannot fetch the $src $ver orig tarball (no network?)"
	f=$(ls "$tmp"/*.orig.tar.*)
	mv "$f" "$cache/"
	say "kept $cache/${f##*/}"
	echo "$cache/${f##*/}"
	exit 0
fi
t0=$(date +%s)
if ! has_src || ! fetch "$tmp"; then
	add_src
	rm -rf "$tmp"/*
	if ! fetch "$tmp"; then
		rm -rf "$tmp"/*
		fetch_orig "$tmp" ||
			die "apt-get source $src=$ver failed (no network, or the mirror no longer has $ver)"
	fi
fi
t1=$(date +%s)
up=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -n 1)
[ -n "$up" ] && [ -f "$up/src/slurmctld/slurmctld.h" ] || die "apt-get source gave no Slurm tree in $tmp"
say "fetched $src $ver in $((t1 - t0)) s; configuring (headers only)"
# Only config.h and the generated headers are needed: no build, and the
# optional parts left to their defaults (the structs slurmctld.h declares do
# not depend on them; HAVE_FRONT_END is off as in Debian's build).
(cd "$up" && ./configure --prefix=/usr --sysconfdir=/etc/slurm \
	>"$tmp/configure.log" 2>&1) ||
	{ tail -n 20 "$tmp/configure.log" >&2; die "Slurm's configure failed"; }
t2=$(date +%s)
mv "$tmp/configure.log" "$up/falcon-configure.log"
mv "$tmp/falcon-source" "$up/falcon-source"
rm -rf "$dir"
mv "$up" "$dir"
date -u +%FT%TZ >"$stamp"
say "configured in $((t2 - t1)) s: $dir"
echo "$dir"
