#!/bin/sh
# scripts/install-deps.sh - install, from Debian packages (Debian 12
# bookworm with Slurm 22.05, Debian 13 trixie with Slurm 24.11: the same
# names on both), what falcon-slurm needs to build, test and run its demo.
# Idempotent; run as root.
#   --build   build dependencies only
#   (default) build + test + demo: munge, Slurm daemons, MariaDB, clang for
#             fuzzing (libclang-rt-dev: the default clang's runtime, named
#             the same on both), xmllint (libxml2-utils) for the report test,
#             promtool (Debian 13's package promtool, Debian 12's prometheus)
#             for the alert rules' tests, headless chromium for the status
#             page's DOM and screenshot
set -eu

build_pkgs="build-essential autoconf automake libtool pkg-config
 libpci-dev pciutils libjson-c-dev libcurl4-openssl-dev libmicrohttpd-dev
 libmunge-dev libslurm-dev libssl-dev check libsystemd-dev"
run_pkgs="munge slurm-wlm slurmctld slurmd slurmdbd slurm-client mariadb-server
 python3 python3-sushy python3-jsonschema redfishtool openssl curl inotify-tools iproute2 util-linux procps psmisc clang
 libclang-rt-dev libxml2-utils chromium"
# promtool (the alert rules' tests): a package of its own from Debian 13 on,
# part of prometheus before
if apt-cache show promtool >/dev/null 2>&1; then
	run_pkgs="$run_pkgs promtool"
else
	run_pkgs="$run_pkgs prometheus"
fi

# systemd.pc (the unit directory): systemd-dev from Debian 13 on, systemd before
pkg_pkgs="debhelper dpkg-dev lintian rpm rpmlint debootstrap fakeroot"
if apt-cache show systemd-dev >/dev/null 2>&1; then
	pkg_pkgs="$pkg_pkgs systemd-dev"
else
	pkg_pkgs="$pkg_pkgs systemd"
fi

pkgs=$build_pkgs
[ "${1:-}" = --build ] || pkgs="$build_pkgs $run_pkgs $pkg_pkgs"

if [ "$(id -u)" != 0 ]; then
	echo "install-deps: run as root (apt-get install)" >&2
	exit 1
fi

missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
# orig_tarball - Slurm's source for an offline package build, cached once
orig_tarball() {
	[ "${1:-}" = --build ] && return 0
	"$(dirname "$0")/slurm-source.sh" --orig >/dev/null 2>&1 ||
		echo "install-deps: WARNING: Slurm's orig tarball not cached (no network?):" \
			"scripts/packages.sh cannot build job_submit_falcon offline" >&2
}
if [ -z "$missing" ]; then
	echo "install-deps: all packages present"
	orig_tarball "${1:-}"
	exit 0
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
# Keep package maintainer scripts from starting daemons: the tests and the
# demo start their own, with their own keys and configs.
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
	chmod +x /usr/sbin/policy-rc.d
	trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
orig_tarball "${1:-}"
