#!/bin/sh
# scripts/test-all.sh - the README's test command and what .ci/run calls:
# install what the tests need, then build and run every test tier.
#
#   0. scripts/slurm-source.sh: Slurm's source for job_submit_falcon.so
#   1. build/       -Werror build; `make check`: unit tests (check) and the
#                   integration tests (falcon-sim, munged, Slurm) as root
#   2. build-asan/  the same sources with -fsanitize=address,undefined;
#                   the unit tests again
#   3. make distcheck (unit tests from the tarball)
#
# Prints one closing line "test-all: N passed, N failed, N skipped".
# Long fuzz, soak and benchmark runs are `make fuzz`, `make soak`, `make bench`.
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
jobs=$(nproc 2>/dev/null || echo 2)

if [ "$(id -u)" = 0 ]; then
	scripts/install-deps.sh
else
	echo "test-all: not root: skipping package installation" >&2
fi
: "${FALCON_SHARED:=$top/../shared}"
export FALCON_SHARED

./bootstrap >/dev/null 2>&1 || ./bootstrap

sum_pass=0; sum_fail=0; sum_skip=0
tally() { # tally DIR: add the automake harness counts of DIR/test-suite.log
	log=$1/test-suite.log
	[ -f "$log" ] || return 0
	p=$(sed -n 's/^# PASS: *//p' "$log" | head -1)
	f=$(sed -n 's/^# FAIL: *//p' "$log" | head -1)
	e=$(sed -n 's/^# ERROR: *//p' "$log" | head -1)
	s=$(sed -n 's/^# SKIP: *//p' "$log" | head -1)
	sum_pass=$((sum_pass + ${p:-0})); sum_fail=$((sum_fail + ${f:-0} + ${e:-0}))
	sum_skip=$((sum_skip + ${s:-0}))
}

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

status=0
echo "==== test-all: 1/3 -Werror build, unit + integration tests ===="
rm -rf build && mkdir build
(cd build && ../configure --enable-werror ${slurm_src:+--with-slurm-source="$slurm_src"} \
	>configure.out 2>&1 || { cat configure.out; exit 1; }
 tail -20 configure.out
 make -j"$jobs" >make.out 2>&1 || { cat make.out; exit 1; }
 make -j"$jobs" check) || status=1
tally build

echo "==== test-all: 2/3 ASan/UBSan build, unit tests ===="
rm -rf build-asan && mkdir build-asan
(cd build-asan && ../configure --enable-werror --enable-sanitizers \
	--disable-integration-tests >configure.out 2>&1 || { cat configure.out; exit 1; }
 make -j"$jobs" >make.out 2>&1 || { cat make.out; exit 1; }
 ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 make -j"$jobs" check) || status=1
tally build-asan

echo "==== test-all: 3/3 make distcheck ===="
(cd build && make -j"$jobs" distcheck >distcheck.out 2>&1 && tail -5 distcheck.out ||
	{ tail -80 distcheck.out; exit 1; }) || status=1

[ $status = 0 ] || sum_fail=$((sum_fail > 0 ? sum_fail : 1))
echo "test-all: $sum_pass passed, $sum_fail failed, $sum_skip skipped"
exit $status
