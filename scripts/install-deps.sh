#!/bin/sh
# scripts/install-deps.sh - install, from Debian packages (Debian 12
# bookworm with Slurm 22.05, Debian 13 trixie with Slurm 24.11: the same
# names on both), what falcon-slurm needs.  Idempotent; run as root.
#   --build   build dependencies only
#   --demo    build + what scripts/quickstart.sh runs: munge, the Slurm
#             daemons and client, MariaDB, python3, curl, openssl, iproute2,
#             dpkg-dev (apt-get source of Slurm for job_submit_falcon)
#   --chroot-lane
#             the Debian 13 lane of scripts/test-all.sh (its chroot):
#             --demo's and what that lane's tests use (tests/lanes: xmllint,
#             promtool, the .deb tools and debootstrap for the packages
#             step), not the host lane's (chromium, clang, sushy,
#             redfishtool, rpm: about half of the default's download)
#   --slurm-from-source
#             the Slurm 26.05 lane: --chroot-lane's without Debian's Slurm
#             (libslurm-dev, the daemons and commands) and the package
#             tools, with what scripts/slurm-build.sh needs to build Slurm
#             from its release tarball (MariaDB's client library, libyaml
#             for resources.yaml, D-Bus for cgroup/v2, hwloc, lz4, PAM,
#             readline)
#   (default) --demo's and what the tests need besides (scripts/test-all.sh):
#             clang for fuzzing (libclang-rt-dev: the default clang's
#             runtime, named the same on both), xmllint (libxml2-utils) for
#             the report test, promtool (Debian 13's package promtool,
#             Debian 12's prometheus) for the alert rules' tests, headless
#             chromium for the status page's DOM and screenshot, sushy and
#             redfishtool (Redfish clients against falcon-sim), jsonschema,
#             inotify-tools, and the package tools (debhelper, lintian, rpm,
#             rpmlint, debootstrap for the chroot lanes)
# FALCON_DPKG_UNSAFE_IO=1 (scripts/chroot-lane.sh sets it in its chroots,
# which can be made again): dpkg without fsync, as sbuild and pbuilder do.
set -eu

build_pkgs="build-essential autoconf automake libtool pkg-config
 libpci-dev pciutils libjson-c-dev libcurl4-openssl-dev libmicrohttpd-dev
 libmunge-dev libslurm-dev libssl-dev check libsystemd-dev"
demo_pkgs="munge slurm-wlm slurmctld slurmd slurmdbd slurm-client mariadb-server
 python3 openssl curl iproute2 util-linux procps psmisc dpkg-dev"
test_pkgs="python3-sushy python3-jsonschema redfishtool inotify-tools clang
 libclang-rt-dev libxml2-utils chromium"
# promtool (the alert rules' tests): a package of its own from Debian 13 on,
# part of prometheus before
if apt-cache show promtool >/dev/null 2>&1; then
	test_pkgs="$test_pkgs promtool"
else
	test_pkgs="$test_pkgs prometheus"
fi

# systemd.pc (the unit directory): systemd-dev from Debian 13 on, systemd before
pkg_pkgs="debhelper dpkg-dev lintian rpm rpmlint debootstrap fakeroot"
if apt-cache show systemd-dev >/dev/null 2>&1; then
	pkg_pkgs="$pkg_pkgs systemd-dev"
else
	pkg_pkgs="$pkg_pkgs systemd"
fi

# what the chroot lanes' tests use beyond --demo (tests/lanes)
lane_pkgs="libxml2-utils"
case " $test_pkgs " in *" promtool "*) lane_pkgs="$lane_pkgs promtool" ;; *) lane_pkgs="$lane_pkgs prometheus" ;; esac

# Slurm's own build dependencies (its configure finds each one), for
# scripts/slurm-build.sh
slurm_build_pkgs="libmariadb-dev libmariadb-dev-compat libyaml-dev libdbus-1-dev
 libhwloc-dev liblz4-dev libpam0g-dev libreadline-dev zlib1g-dev"

case ${1:-} in
--build) pkgs=$build_pkgs ;;
--demo) pkgs="$build_pkgs $demo_pkgs" ;;
--chroot-lane)
	pkgs="$build_pkgs $demo_pkgs $lane_pkgs"
	for p in $pkg_pkgs; do
		case $p in rpm|rpmlint) ;; *) pkgs="$pkgs $p" ;; esac
	done ;;
--slurm-from-source)
	pkgs=""
	for p in $build_pkgs $demo_pkgs $lane_pkgs $slurm_build_pkgs; do
		case $p in libslurm-dev|slurm-wlm|slurmctld|slurmd|slurmdbd|slurm-client) ;;
		*) pkgs="$pkgs $p" ;; esac
	done ;;
'') pkgs="$build_pkgs $demo_pkgs $test_pkgs $pkg_pkgs" ;;
*) echo "install-deps: unknown argument $1 (--build, --demo, --chroot-lane, --slurm-from-source or none)" >&2; exit 2 ;;
esac

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
# (the tests' package build; not for --build or --demo)
orig_tarball() {
	case ${1:-} in ''|--chroot-lane) ;; *) return 0 ;; esac
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
unsafe=""
[ "${FALCON_DPKG_UNSAFE_IO:-}" != 1 ] || unsafe="-o Dpkg::Options::=--force-unsafe-io"
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $unsafe $missing
orig_tarball "${1:-}"
