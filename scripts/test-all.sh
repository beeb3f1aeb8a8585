#!/bin/sh
# scripts/test-all.sh - the README's test command and what .ci/run calls:
# install what the tests need, then build and run every test tier, in two
# lanes: this machine's Debian (12, Slurm 22.05) and a Debian 13 chroot
# (Slurm 24.11) that scripts/chroot-lane.sh makes and caches; a third, a
# Debian sid chroot (Slurm 26.05), with --lane=sid.
#
#   test-all.sh [--lane=all|host|trixie|sid]   (or FALCON_LANE=...; default
#   all: host and trixie)
#
# The host lane, in this tree:
#   0. scripts/slurm-source.sh: Slurm's source for job_submit_falcon.so
#   1. build/       -Werror build; `make check`: unit tests (check) and the
#                   integration tests (falcon-sim, munged, Slurm) as root
#   2. build-asan/  the same sources with -fsanitize=address,undefined;
#                   the unit tests again
#   3. make distcheck (unit tests from the tarball)
#   4. tests/integration/packages.sh: scripts/packages.sh's .debs installed
#                   with apt into a fresh minbase chroot of this Debian
#                   (cached in /var/cache/falcon-slurm/<codename>-minbase),
#                   the main job, an upgrade under a lease, remove, purge
#                   (root only: skipped otherwise, and said)
# The trixie and sid lanes: scripts/chroot-lane.sh --suite=SUITE, which
# runs the host lane of a copy of this tree in the chroot (root only:
# skipped otherwise, and said).
#
# Prints one closing line "test-all: N passed, N failed, N skipped", the
# sum of the lanes run.
# Long fuzz, soak and benchmark runs are `make fuzz`, `make soak`, `make bench`.
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
jobs=$(nproc 2>/dev/null || echo 2)
lane=${FALCON_LANE:-all}
for a in "$@"; do
	case $a in
	--lane=*) lane=${a#--lane=} ;;
	-h|--help) sed -n '2,/^set -eu/{/^set -eu/d;s/^# \{0,1\}//p;}' "$0"; exit 0 ;;
	*) echo "test-all: unknown argument $a (--help)" >&2; exit 2 ;;
	esac
done
case $lane in all|host|trixie|sid) ;; *) echo "test-all: --lane=$lane: all, host, trixie or sid" >&2; exit 2 ;; esac
sum_pass=0; sum_fail=0; sum_skip=0
status=0
t_start=$(date +%s)
: "${FALCON_SHARED:=$top/../shared}" # both lanes (chroot-lane.sh binds it)
export FALCON_SHARED
host_name=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-host}") || host_name=host

# chroot_lane SUITE: the chroot's test-all; its closing line adds to ours.
chroot_lane() {
	cs=$1
	echo "==== test-all: $cs lane (Debian $cs chroot, scripts/chroot-lane.sh --suite=$cs) ===="
	if [ "$(id -u)" != 0 ]; then
		echo "test-all: not root: the $cs lane is SKIPPED (needs debootstrap, chroot)" >&2
		sum_skip=$((sum_skip + 1))
		return 0
	fi
	t0=$(date +%s)
	out=$(mktemp)
	# its lines prefixed, so that ours stays the only closing line
	scripts/chroot-lane.sh --suite="$cs" --test 2>&1 | sed -u "s/^/$cs| /" | tee "$out" || true
	line=$(sed -n "s/^$cs| \(test-all: [0-9]* passed, [0-9]* failed, [0-9]* skipped\)\$/\1/p" \
		"$out" | tail -n 1)
	tfailed=$(sed -n "s/^$cs| test-all: failed in the host lane ([a-z]*)://p" "$out" | tail -n 1)
	rm -f "$out"
	[ -z "$tfailed" ] || echo "test-all: failed in the $cs lane:$tfailed"
	if [ -z "$line" ]; then
		echo "test-all: the $cs lane gave no closing line: counted as failed" >&2
		sum_fail=$((sum_fail + 1)); status=1
	else
		set -- $line
		sum_pass=$((sum_pass + $2)); sum_fail=$((sum_fail + $4)); sum_skip=$((sum_skip + $6))
		[ "$4" = 0 ] || status=1
	fi
	echo "test-all: $cs lane: ${line#test-all: } in $(($(date +%s) - t0)) s"
}

if [ "$lane" = trixie ] || [ "$lane" = sid ]; then
	chroot_lane "$lane"
	[ $status = 0 ] || sum_fail=$((sum_fail > 0 ? sum_fail : 1))
	echo "test-all: $sum_pass passed, $sum_fail failed, $sum_skip skipped"
	exit $status
fi
echo "==== test-all: host lane ($host_name) ===="

if [ "$(id -u)" = 0 ]; then
	scripts/install-deps.sh
else
	echo "test-all: not root: skipping package installation" >&2
fi
./bootstrap >/dev/null 2>&1 || ./bootstrap

tally() { # tally DIR: add the automake harness counts of DIR/test-suite.log
	log=$1/test-suite.log
	[ -f "$log" ] || return 0
	p=$(sed -n 's/^# PASS: *//p' "$log" | head -1)
	f=$(sed -n 's/^# FAIL: *//p' "$log" | head -1)
	e=$(sed -n 's/^# ERROR: *//p' "$log" | head -1)
	s=$(sed -n 's/^# SKIP: *//p' "$log" | head -1)
	sum_pass=$((sum_pass + ${p:-0})); sum_fail=$((sum_fail + ${f:-0} + ${e:-0}))
	sum_skip=$((sum_skip + ${s:-0}))
	# the failed tests by name, and the tail of each one's log: CI keeps
	# only the end of what we print, so they are said again at the end
	# (the section headers "FAIL: NAME" alone on their line: a test's own
	# "FAIL: name: why" lines are copied into the log too)
	for t in $(sed -n 's/^\(FAIL\|ERROR\): \([^ ]*\)$/\2/p' "$log" | sort -u); do
		failed="$failed $1/$t"
		# the header names the log without its extension (tests/x.log);
		# a log that is not there must not end this script (set -e)
		l=$1/$t.log
		{ echo "---- $l (last 40 lines) ----"; tail -n 40 "$l" 2>&1 || true
		} >>"$failed_logs"
	done
}
failed=""
failed_logs=$(mktemp)
trap 'rm -f "$failed_logs"' EXIT

# Slurm's source of the installed version (cached in /var/cache/falcon-slurm)
# for job_submit_falcon.so; without it the build goes on without the plugin.
slurm_src=""
if [ "$(id -u)" = 0 ] && slurm_src=$(scripts/slurm-source.sh); then
	echo "test-all: Slurm source: $slurm_src"
else
	slurm_src=""
	echo "test-all: WARNING: no Slurm source tree (scripts/slurm-source.sh failed or not root):" \
		"job_submit_falcon.so is NOT built and tests/integration/slurm-submit.sh is skipped" >&2
fi

echo "==== test-all: 1/4 -Werror build, unit + integration tests ===="
rm -rf build && mkdir build
(cd build && ../configure --enable-werror ${slurm_src:+--with-slurm-source="$slurm_src"} \
	>configure.out 2>&1 || { cat configure.out; exit 1; }
 tail -20 configure.out
 make -j"$jobs" >make.out 2>&1 || { cat make.out; exit 1; }
 make -j"$jobs" check) || status=1
tally build
# a test that ends leaves nothing running (issue 32: a falcon-sim of
# sim-host.sh outlived the run): what still runs from this build is
# named, stopped and counted as a failure
# (only processes under our own root: another lane's chroot has a tree at
# the same path)
myroot=$(readlink /proc/self/root)
left=$(pgrep -a -f "$top/build/" 2>/dev/null | while read -r pid cmd; do
	[ "$(readlink "/proc/$pid/root" 2>/dev/null)" = "$myroot" ] && echo "$pid $cmd"
done || true)
if [ -n "$left" ]; then
	echo "test-all: processes the tests left running:"; echo "$left"
	echo "$left" | awk '{print $1}' | xargs -r kill 2>/dev/null || true
	failed="$failed left-running"; sum_fail=$((sum_fail + 1)); status=1
fi

echo "==== test-all: 2/4 ASan/UBSan build, unit tests ===="
rm -rf build-asan && mkdir build-asan
(cd build-asan && ../configure --enable-werror --enable-sanitizers \
	--disable-integration-tests >configure.out 2>&1 || { cat configure.out; exit 1; }
 make -j"$jobs" >make.out 2>&1 || { cat make.out; exit 1; }
 ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 make -j"$jobs" check) || status=1
tally build-asan

echo "==== test-all: 3/4 make distcheck ===="
(cd build && make -j"$jobs" distcheck >distcheck.out 2>&1 && tail -5 distcheck.out ||
	{ tail -80 distcheck.out; exit 1; }) || { status=1; failed="$failed distcheck"; }

echo "==== test-all: 4/4 packages: the .debs installed, run, upgraded, removed in a clean chroot ===="
t0=$(date +%s)
prc=0
tests/integration/packages.sh || prc=$?
case $prc in
0) sum_pass=$((sum_pass + 1)) ;;
77) sum_skip=$((sum_skip + 1)) ;;
*) sum_fail=$((sum_fail + 1)); status=1; failed="$failed packages" ;;
esac
echo "test-all: packages: exit status $prc in $(($(date +%s) - t0)) s"

[ $status = 0 ] || sum_fail=$((sum_fail > 0 ? sum_fail : 1))
if [ -n "$failed" ]; then
	cat "$failed_logs"
	echo "test-all: failed in the host lane ($host_name):$failed"
fi
echo "test-all: host lane ($host_name): $sum_pass passed, $sum_fail failed, $sum_skip skipped" \
	"in $(($(date +%s) - t_start)) s"
# the sid lane (Slurm 26.05) runs with --lane=sid only: the mirror's sid
# lacks the slurm-wlm source it lists, so job_submit_falcon and the HRES
# tests cannot be built there (README, issue 26)
[ "$lane" = host ] || chroot_lane trixie
[ $status = 0 ] || sum_fail=$((sum_fail > 0 ? sum_fail : 1))
echo "test-all: $sum_pass passed, $sum_fail failed, $sum_skip skipped"
exit $status
