#!/bin/sh
# scripts/test-all.sh - the README's test command and what .ci/run calls:
# install what the tests need, then build and run every test, in three
# lanes at once: this machine's Debian (12, Slurm 22.05), a Debian 13
# chroot with Debian's Slurm 24.11 (trixie), and a Debian 13 chroot with
# Slurm 26.05.3 built from SchedMD's release tarball (slurm26;
# $FALCON_SHARED/slurm/slurm-26.05.3.tar.xz, scripts/slurm-build.sh).
# scripts/chroot-lane.sh makes the chroots and caches them in
# /var/cache/falcon-slurm/trixie and .../slurm26 (Slurm's build in the
# latter's /var/cache/falcon-slurm/slurm-26.05.3, installed in its
# /usr/local).
#
#   test-all.sh [--lane=all|LANE[,LANE...]] [--jobs=N]
#                   (or FALCON_LANE, FALCON_TEST_JOBS); LANE: host, trixie
#                   or slurm26; default all (the three)
#   test-all.sh --list
#                   which test runs in which lane and why (tests/lanes),
#                   and which steps each lane runs
#
# Each lane runs these steps, each timed:
#   deps       scripts/install-deps.sh (the chroot lanes: in the chroot,
#              what their tests use: trixie --chroot-lane, slurm26
#              --slurm-from-source)
#   source     (at nice -5) the lane's Slurm source, for job_submit_falcon.so:
#              scripts/slurm-source.sh (Debian's, of the installed Slurm),
#              slurm26: scripts/slurm-build.sh (built and installed once);
#              without it the plugin is not built and its tests skip,
#              said loudly
#   build      build/: -Werror build of everything, unit tests included
#   check      make check of the lane's tests (tests/lanes), N at once
#              (--jobs; default 6 for one lane alone, measured fastest on a
#              2-core machine; with the three lanes at once 4 on the host
#              and 3 in each chroot: 18 clusters at once on 2 cores made
#              timing-bound tests fail in CI);
#              each shell test in namespaces and cgroups of its own
#              (tests/isolate.sh)
#   distcheck  (host) build-dist/: make distcheck, its build the ASan and
#              UBSan one (-fsanitize=address,undefined, -Werror): the
#              tarball builds, installs and uninstalls, and its unit tests
#              pass under the sanitizers (one build for both checks: a
#              separate ASan build of the tree cost a fourth build of the
#              host lane, run 7 of 2026-11-28)
#   packages   (host, trixie) tests/integration/packages.sh: the lane's
#              .debs installed with apt into a fresh minbase chroot, the
#              main job, an upgrade under a lease, remove, purge (slurm26
#              has none: the packages depend on Debian's Slurm packages,
#              and Debian has no 26.05 that the lane could install)
# distcheck and packages run beside check and beside each other, as soon
# as the build is done, at nice 10 (their output is printed when check
# ends): none of them uses build/ or a port, cgroup or namespace of check's
# tests, and check's tests mostly wait on Slurm's timers (run 4 of
# 2026-11-28: the CPU was half idle over the run, and the host lane's last
# 920 s were these three steps alone); at nice 10 they take the CPU the
# tests leave, not the tests' own.
# The chroot lanes start as soon as debootstrap is installed and run beside
# the host lane (scripts/chroot-lane.sh --suite=LANE; their lines prefixed
# "LANE| "): the tests wait on daemons far more than they compute.
# Root only for everything but the unit tests: otherwise skipped, and said.
#
# Ends with a table (per lane: each step's time, the 15 slowest tests, the
# 10 costliest in CPU, the total; the machine's CPU use over the run), then
# the last 40 lines of each failed test's log (every lane's) and the failed
# tests' names, and one closing line "test-all: N passed, N failed, N
# skipped", the sum of the lanes: CI shows only the end of the output.  Long fuzz, soak and benchmark runs are
# `make fuzz`, `make soak`, `make bench`.
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
lane=${FALCON_LANE:-all}
jobs=${FALCON_TEST_JOBS:-}
inside=""
list=no
for a in "$@"; do
	case $a in
	--lane=*) lane=${a#--lane=} ;;
	--jobs=*) jobs=${a#--jobs=} ;;
	--inside-lane=*) inside=${a#--inside-lane=} ;; # chroot-lane.sh --test
	--list) list=yes ;;
	-h|--help) sed -n '2,/^set -eu/{/^set -eu/d;s/^# \{0,1\}//p;}' "$0"; exit 0 ;;
	*) echo "test-all: unknown argument $a (--help)" >&2; exit 2 ;;
	esac
done
chroot_lanes="trixie slurm26"
# lanes - the lanes asked for, each once, host first
lanes=""
for l in $(echo "$lane" | tr ',' ' '); do
	case $l in
	all) l="host $chroot_lanes" ;;
	host|trixie|slurm26) ;;
	*) echo "test-all: --lane=$lane: all, or a comma-separated list of host, trixie and slurm26" >&2; exit 2 ;;
	esac
	lanes="$lanes $l"
done
lanes=$(for l in host $chroot_lanes; do case " $lanes " in *" $l "*) echo "$l" ;; esac; done | tr '\n' ' ')
[ -n "$lanes" ] || { echo "test-all: --lane=$lane names no lane" >&2; exit 2; }
nlanes=$(echo $lanes | wc -w)
case $jobs in '') ;; [1-9]|[1-9][0-9]) ;; *) echo "test-all: --jobs=$jobs: a number 1-99" >&2; exit 2 ;; esac
# the chroot lanes' share when all run at once (see check above)
chroot_jobs=${jobs:-3}
if [ -z "$jobs" ]; then
	if [ "$nlanes" -gt 1 ] && [ -z "$inside" ]; then jobs=4; else jobs=6; fi
fi
# the system's programs first, as in the chroot lanes (tests/lib.sh: a
# python3 shim of a version manager costs ~1 s a call under load)
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH
export PATH
: "${FALCON_SHARED:=$top/../shared}" # every lane (chroot-lane.sh binds it)
export FALCON_SHARED

# manifest - "LANES TEST WHY" for each test of tests/lanes, in its order
manifest() {
	awk '/^#/ || /^[ \t]*$/ { next }
	/^\[/ { l = substr($1, 2, length($1) - 2); why = $0; sub(/^\[[a-z0-9,]+\] */, "", why); next }
	{ print l, $1, why }' tests/lanes
}
# lane_tests LANE - the tests LANE runs, in order
lane_tests() {
	manifest | awk -v lane="$1" '$1 == "all" || index("," $1 ",", "," lane ",") { print $2 }'
}
# steps_of LANE - the steps LANE runs
steps_of() {
	case $1 in
	host) echo "deps source build check distcheck packages" ;;
	slurm26) echo "deps source build check" ;;
	*) echo "deps source build check packages" ;;
	esac
}

if [ $list = yes ]; then
	host_name=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-host}") || host_name=host
	printf '%-44s %-20s %s\n' TEST LANES WHY
	manifest | while read -r l t why; do
		case $l in all) l="host,trixie,slurm26" ;; esac
		printf '%-44s %-20s %s\n' "$t" "$l" "$why"
	done
	echo
	for l in host $chroot_lanes; do
		case $l in
		host) d="this machine, $host_name, Debian's Slurm" ;;
		trixie) d="Debian 13 chroot, Debian's Slurm 24.11" ;;
		slurm26) d="Debian 13 chroot, Slurm 26.05.3 built from its release tarball" ;;
		esac
		echo "$l lane ($d): $(lane_tests $l | wc -l) tests; steps: $(steps_of $l)"
	done
	exit 0
fi

# cpu_busy [SINCE] - "T" the machine's busy CPU jiffies (/proc/stat, all
# but idle and iowait) and total; with SINCE (an earlier T), the share busy
# since then, as "P% of N cores, S CPU-s" (/proc/stat counts in USER_HZ,
# 100 a second on Linux)
cpu_busy() {
	awk -v since="${1:-}" -v n="$(nproc 2>/dev/null || echo 1)" '$1 == "cpu" {
		tot = 0; for (i = 2; i <= NF; i++) tot += $i; busy = tot - $5 - $6
		if (since == "") { print busy ":" tot; exit }
		split(since, a, ":")
		printf "%.0f%% of %d cores, %.0f CPU-s\n", (tot > a[2]) ? 100 * (busy - a[1]) / (tot - a[2]) : 0, n,
			(busy - a[1]) / 100; exit }' /proc/stat
}
cpu0=$(cpu_busy)
sum_pass=0; sum_fail=0; sum_skip=0
status=0
failed=""
t_start=$(date +%s)
work=$(mktemp -d "${TMPDIR:-/tmp}/falcon-test-all-XXXXXX")
trap 'rm -rf "$work"' EXIT
times=$work/times   # "test-all-time LANE step|test NAME SECONDS RESULT"
failed_logs=$work/failed-logs
: >"$times"; : >"$failed_logs"
me=${inside:-host}

# step NAME CMD... - run CMD as step NAME of this lane, timed and recorded;
# its exit status is returned.  (Not its CPU: a shell's times builtin
# would count any child reaped meanwhile, and dash reaps finished
# background lanes and steps during a foreground step.  The tests' CPU is
# their cgroups', tests/isolate.sh; the run's, /proc/stat's.)
step() {
	_sn=$1; shift
	echo "==== test-all: $me lane: $_sn ===="
	_st0=$(date +%s); _src=0
	"$@" || _src=$?
	echo "test-all-time $me step $_sn $(($(date +%s) - _st0)) $_src" >>"$times"
	echo "test-all: $me lane: $_sn: exit status $_src in $(($(date +%s) - _st0)) s"
	return $_src
}

# chroot_lane SUITE - scripts/chroot-lane.sh --suite=SUITE --test, its
# lines prefixed "SUITE| " and kept in $work/SUITE.out (with its closing
# line and time records, read by chroot_lane_end)
chroot_lane() {
	_cs=$1
	echo "==== test-all: $_cs lane (Debian $_cs chroot, scripts/chroot-lane.sh --suite=$_cs) ===="
	echo "test-all-time $_cs start $(date +%s)" >"$work/$_cs.out"
	if [ "$(id -u)" != 0 ]; then
		echo "test-all: not root: the $_cs lane is SKIPPED (needs debootstrap, chroot)" >&2
		echo "$_cs| test-all: 0 passed, 0 failed, 1 skipped" >>"$work/$_cs.out"
		return 0
	fi
	_cj=$jobs; [ "$nlanes" = 1 ] || _cj=$chroot_jobs
	FALCON_TEST_JOBS=$_cj scripts/chroot-lane.sh --suite="$_cs" --test 2>&1 |
		sed -u "s/^/$_cs| /" | tee -a "$work/$_cs.out" || true
	echo "test-all-time $_cs end $(date +%s)" >>"$work/$_cs.out"
}

# chroot_lane_end SUITE - add the lane's closing line to ours, its time
# records to the table's
chroot_lane_end() {
	_cs=$1 _out=$work/$1.out
	_t0=$(sed -n "s/^test-all-time $_cs start //p" "$_out")
	_t1=$(sed -n "s/^test-all-time $_cs end //p" "$_out")
	sed -n "s/^$_cs| \(test-all-time $_cs .*\)/\1/p" "$_out" >>"$times"
	_line=$(sed -n "s/^$_cs| \(test-all: [0-9]* passed, [0-9]* failed, [0-9]* skipped\)\$/\1/p" \
		"$_out" | tail -n 1)
	_tf=$(sed -n "s/^$_cs| test-all: failed in the $_cs lane://p" "$_out" | tail -n 1)
	[ -z "$_tf" ] || failed="$failed $_cs:{$_tf }"
	# the lane's failed tests' log tails, said again at the very end
	[ -z "$_tf" ] || sed -n "/^$_cs| ---- .* (last 40 lines) ----\$/,/^$_cs| test-all: failed in the $_cs lane:/p" \
		"$_out" | sed '$d' >>"$failed_logs"
	if [ -z "$_line" ]; then
		echo "test-all: the $_cs lane gave no closing line: counted as failed" >&2
		sum_fail=$((sum_fail + 1)); status=1; failed="$failed $_cs:{no closing line}"
	else
		set -- $_line
		sum_pass=$((sum_pass + $2)); sum_fail=$((sum_fail + $4)); sum_skip=$((sum_skip + $6))
		[ "$4" = 0 ] || status=1
	fi
	# the lane's own time, from its start to its end (not to the host
	# lane's, which this waited for)
	echo "test-all-time $_cs total $((${_t1:-$(date +%s)} - ${_t0:-$t_start})) -" >>"$times"
}

# tally DIR [TESTS]: add the automake harness counts of DIR/test-suite.log,
# and the time and result of each of TESTS (a test's .log is made when it
# starts, its .trs when it ends)
tally() {
	tally_log "$1/test-suite.log" "${2:-}"
}
# tally_log LOG [TESTS]: the same from the harness's LOG (its summary's
# "# PASS:" lines; the failed tests' logs beside it)
tally_log() {
	log=$1
	[ -f "$log" ] || return 0
	set -- "$(dirname "$log")" "${2:-}"
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
	[ -z "${2:-}" ] || for t in $2; do
		b=$1/${t%.sh}
		[ -f "$b.trs" ] || continue
		t0=$(stat -c %W "$b.log" 2>/dev/null || echo 0)
		t1=$(stat -c %Y "$b.trs")
		secs=$((t1 - t0)); [ "$t0" != 0 ] || secs="?"
		cpu=$(sed -n 's/^isolate\.sh: .* used \([0-9.]*\) s of CPU$/\1/p' "$b.log" | tail -n 1)
		echo "test-all-time $me test $t $secs $(sed -n 's/^:test-result: //p' "$b.trs" | head -1) ${cpu:--}" >>"$times"
	done
}

# The steps (run_lane runs them in this tree)
do_deps() {
	if [ "$(id -u)" = 0 ]; then
		case $me in
		slurm26) scripts/install-deps.sh --slurm-from-source ;;
		host) scripts/install-deps.sh ;;
		*) scripts/install-deps.sh --chroot-lane ;;
		esac
	else
		echo "test-all: not root: skipping package installation" >&2
	fi
}
slurm_src=""
do_source() {
	_ss=scripts/slurm-source.sh
	[ "$me" != slurm26 ] || _ss=scripts/slurm-build.sh
	# ahead of the other lanes' work: each lane's build waits for it, and
	# from an empty cache it is the longest step of the slurm26 lane (run 6
	# of 2026-11-28: Slurm's configure 8 min and half its make in 14 min at
	# the three lanes' load, against 1.5 and 5 min alone)
	if [ "$(id -u)" = 0 ] && slurm_src=$(nice -n -5 $_ss); then
		echo "test-all: Slurm source: $slurm_src"
	else
		slurm_src=""
		echo "test-all: WARNING: no Slurm source tree ($_ss failed or not root):" \
			"job_submit_falcon.so is NOT built and its tests are skipped" >&2
	fi
}
do_build() {
	./bootstrap >/dev/null 2>&1 || ./bootstrap
	rm -rf build && mkdir build
	(cd build && ../configure --enable-werror ${slurm_src:+--with-slurm-source="$slurm_src"} \
		>configure.out 2>&1 || { cat configure.out; exit 1; }
	 sed -n '/^falcon-slurm .* configured:/,$p' configure.out
	 make -j"$(nproc 2>/dev/null || echo 2)" >make.out 2>&1 || { cat make.out; exit 1; }
	 make -j"$(nproc 2>/dev/null || echo 2)" check TESTS= >make-check.out 2>&1 ||
		{ tail -n 40 make-check.out; exit 1; })
}
# the manifest against the harness's TESTS: every test in a lane
check_manifest() {
	make -s -C build list-tests | sort >"$work/registered"
	manifest | awk '{ print $2 }' | sort >"$work/listed"
	if ! cmp -s "$work/registered" "$work/listed"; then
		echo "test-all: tests/lanes and the harness's TESTS differ (< registered only, > tests/lanes only):" >&2
		diff "$work/registered" "$work/listed" | grep '^[<>]' >&2
		return 1
	fi
	[ "$(manifest | awk '{ print $2 }' | sort | uniq -d)" = "" ] ||
		{ echo "test-all: tests/lanes names a test twice" >&2; return 1; }
}
do_check() {
	check_manifest || return 1
	_tests=$(lane_tests "$me" | tr '\n' ' ')
	echo "test-all: $me lane: $(echo $_tests | wc -w) tests, $jobs at once"
	_rc=0
	(cd build && make -j"$jobs" check TESTS="$_tests") || _rc=$?
	tally build "$_tests"
	# a test that ends leaves nothing running (issue 32): tests/isolate.sh
	# fails a test whose cgroups still hold processes; what still runs from
	# this build beside them is named, stopped and counted as a failure
	# (only processes under our own root: another lane's chroot has a tree
	# at the same path)
	myroot=$(readlink /proc/self/root)
	left=$(pgrep -a -f "$top/build/" 2>/dev/null | while read -r pid cmd; do
		[ "$(readlink "/proc/$pid/root" 2>/dev/null)" = "$myroot" ] && echo "$pid $cmd"
	done || true)
	if [ -n "$left" ]; then
		echo "test-all: processes the tests left running:"; echo "$left"
		echo "$left" | awk '{print $1}' | xargs -r kill 2>/dev/null || true
		failed="$failed left-running"; sum_fail=$((sum_fail + 1)); _rc=1
	fi
	return $_rc
}
# (in build-dist/, not build/: check's tests run in build/ meanwhile, and
# what runs from build/ after them is stopped as left running).  The
# harness's summary is read from make's output: distcheck removes its
# build tree, test-suite.log with it, when it passes.
do_distcheck() {
	_rc=0
	rm -rf build-dist && mkdir build-dist
	(cd build-dist && ../configure --disable-integration-tests >configure.out 2>&1 ||
		{ cat configure.out; exit 1; }
	 ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	 make -j"$(nproc 2>/dev/null || echo 2)" distcheck \
		DISTCHECK_CONFIGURE_FLAGS="--enable-werror --enable-sanitizers" >distcheck.out 2>&1 &&
		tail -5 distcheck.out || { tail -80 distcheck.out; exit 1; }) || _rc=$?
	_sl=$(ls build-dist/falcon-slurm-*/_build/sub/test-suite.log 2>/dev/null | head -n 1)
	tally_log "${_sl:-build-dist/distcheck.out}"
	return $_rc
}
# The package build skips its unit tests (DEB_BUILD_OPTIONS=nocheck): this
# lane's check step ran them on the same sources with the same compiler and
# libraries, and (host lane) distcheck from the same tarball; what the
# packages step adds is the build by debhelper, lintian, and the install,
# upgrade, remove and purge of the packages on a fresh system.  Its Slurm
# headers are the source step's (FALCON_SLURM_CONFIGURED, debian/rules:
# the same release configured the same way on this machine, not configured
# a second time); its upstream tarball is `make dist` of this lane's build/
# (FALCON_DIST_TARBALL, scripts/packages.sh).
do_packages() {
	_prc=0
	# the upstream tarball from this lane's build/ (configured already:
	# no copy, bootstrap and configure of the tree a second time; make
	# dist writes only its distdir and the tarball, beside check's tests)
	# (a lane whose build failed: packages.sh makes its own)
	rm -f build/falcon-slurm-*.tar.gz
	_dist=
	if [ -f build/Makefile ] && make -C build dist >build/dist.out 2>&1; then
		_dist=$(ls "$top"/build/falcon-slurm-*.tar.gz)
	else
		echo "test-all: make dist in build/ failed: packages.sh makes its own tarball"
		[ ! -f build/dist.out ] || tail -n 20 build/dist.out
	fi
	# the source package is linted once, by the trixie lane's newer
	# lintian when that lane runs too (the same sources; on the host it
	# cost 26 of lintian's 30 s)
	_lint=all
	case "$me $lanes " in "host "*" trixie "*) _lint=binary ;; esac
	FALCON_LINTIAN=$_lint FALCON_DIST_TARBALL=$_dist \
	DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:+$DEB_BUILD_OPTIONS }nocheck" \
	FALCON_SLURM_CONFIGURED=$slurm_src tests/integration/packages.sh || _prc=$?
	case $_prc in
	0) sum_pass=$((sum_pass + 1)) ;;
	77) sum_skip=$((sum_skip + 1)) ;;
	*) sum_fail=$((sum_fail + 1)); failed="$failed packages"; return 1 ;;
	esac
}

# later_steps all|packages - the lane's steps after check (distcheck only
# when the build passed), in a subshell beside check: their
# counts and failures go to $work/later.counts and $work/later.failed,
# added to this lane's by later_end
later_steps() {
	sum_pass=0; sum_fail=0; sum_skip=0; status=0; failed=""
	# batch work: it yields the CPU to the tests, whose bounds are waits
	# (this subshell's pid is the parent of a child shell)
	renice -n 10 -p "$(sh -c 'echo $PPID')" >/dev/null 2>&1 || true
	_dc=""
	if [ "$1" = all ] && [ "$me" = host ]; then
		# beside packages, not before it: the two share nothing
		# (build-dist/ here, packages.sh a copy in /var/tmp), and one
		# after the other left a core idle at the end (run 9: distcheck
		# ended at 3,003 s, packages alone after it until 3,453 s)
		(sum_pass=0; sum_fail=0; sum_skip=0; failed=""; _st=0
		 step distcheck do_distcheck || { _st=1; failed="$failed distcheck"; }
		 echo "$sum_pass $sum_fail $sum_skip $_st" >"$work/distcheck.counts"
		 echo "$failed" >"$work/distcheck.failed") >"$work/distcheck.out" 2>&1 &
		_dc=$!
	fi
	case " $(steps_of "$me") " in *" packages "*) step packages do_packages || status=1 ;; esac
	if [ -n "$_dc" ]; then
		wait "$_dc" || true
		cat "$work/distcheck.out"
		_c="0 1 0 1"
		[ -s "$work/distcheck.counts" ] || failed="$failed distcheck"
		[ ! -s "$work/distcheck.counts" ] || { _c=$(cat "$work/distcheck.counts"); failed="$failed$(cat "$work/distcheck.failed")"; }
		set -- $_c
		sum_pass=$((sum_pass + $1)); sum_fail=$((sum_fail + $2)); sum_skip=$((sum_skip + $3))
		[ "$4" = 0 ] || status=1
	fi
	echo "$sum_pass $sum_fail $sum_skip $status" >"$work/later.counts"
	echo "$failed" >"$work/later.failed"
}
# later_end PID - wait for later_steps' subshell PID, print its output and
# add its counts (a subshell that wrote none failed)
later_end() {
	wait "$1" || true
	cat "$work/later.out"
	_lc="0 1 0 1"; _lf=" later-steps"
	if [ -s "$work/later.counts" ]; then
		_lc=$(cat "$work/later.counts"); _lf=$(cat "$work/later.failed")
	fi
	set -- $_lc
	sum_pass=$((sum_pass + $1)); sum_fail=$((sum_fail + $2)); sum_skip=$((sum_skip + $3))
	[ "$4" = 0 ] || status=1
	failed="$failed$_lf"
}

# run_lane - this lane's steps here
run_lane() {
	host_name=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-host}") || host_name=host
	echo "==== test-all: $me lane ($host_name) ===="
	if [ -n "$inside" ]; then
		step deps do_deps || status=1
	fi
	step source do_source || true
	if step build do_build; then
		(later_steps all) >"$work/later.out" 2>&1 &
		_later=$!
		_ls=$(steps_of "$me" | sed 's/.* check *//')
		[ -z "$_ls" ] || echo "test-all: $me lane: beside check: $_ls (printed when check ends)"
		step check do_check || status=1
		later_end $_later
	else
		status=1; failed="$failed build"
		(later_steps packages) >"$work/later.out" 2>&1 &
		later_end $!
	fi
}

# table - the times of $times: per lane, each step, the slowest tests, the total
table() {
	echo "==== test-all: times (s) ===="
	for l in $(awk '$1 == "test-all-time" { print $2 }' "$times" | awk '!seen[$0]++'); do
		awk -v l="$l" '$1 == "test-all-time" && $2 == l && $3 == "step" { s = s sprintf("%s %s s%s, ", $4, $5, $6 == "0" ? "" : " (exit " $6 ")") }
			$1 == "test-all-time" && $2 == l && $3 == "total" { t = $4 }
			$1 == "test-all-time" && $2 == l && $3 == "test" && $7 != "-" && $7 != "" { c += $7; n++ }
			END { sub(/, $/, "", s); printf "%s lane: %s; total %s s; its tests used %.0f CPU-s (%d counted)\n", l, s, t, c, n }' "$times"
		echo "  its 15 slowest tests (wall s, result, CPU-s):"
		awk -v l="$l" '$1 == "test-all-time" && $2 == l && $3 == "test" && $5 != "?" { printf "  %6d  %-5s %6s  %s\n", $5, $6, $7, $4 }' "$times" |
			sort -rn | head -n 15
		echo "  its 10 costliest tests in CPU (CPU-s, wall s):"
		awk -v l="$l" '$1 == "test-all-time" && $2 == l && $3 == "test" && $7 != "-" && $7 != "" { printf "  %6.1f  %6s  %s\n", $7, $5, $4 }' "$times" |
			sort -rn | head -n 10
	done
	# the machine's CPU over the run (/proc/stat: all but idle and iowait)
	echo "all lanes: $(($(date +%s) - t_start)) s; the CPU was busy $(cpu_busy "$cpu0")"
}

if [ -n "$inside" ]; then
	# a chroot lane's inside (scripts/chroot-lane.sh --test): this lane's
	# steps, its time records and closing line for the outer test-all
	run_lane
	echo "test-all-time $me total $(($(date +%s) - t_start)) -" >>"$times"
	cat "$times"
	[ $status = 0 ] || sum_fail=$((sum_fail > 0 ? sum_fail : 1))
	[ -z "$failed" ] || { cat "$failed_logs"; echo "test-all: failed in the $me lane:$failed"; }
	echo "test-all: $sum_pass passed, $sum_fail failed, $sum_skip skipped"
	exit $status
fi

# deps first (the chroot lanes' debootstrap comes from them; a chroot
# lane without the host's installs it itself), then the chroot lanes
# beside the host's
case " $lanes " in *" host "*) step deps do_deps || status=1 ;; esac
pids=""
for l in $lanes; do
	[ "$l" = host ] && continue
	chroot_lane "$l" &
	pids="$pids $!"
done
case " $lanes " in
*" host "*)
	run_lane
	echo "test-all-time host total $(($(date +%s) - t_start)) -" >>"$times"
	[ -z "$pids" ] || echo "test-all: host lane done; waiting for the lanes $(echo $lanes | sed 's/host *//')"
	;;
esac
for p in $pids; do wait "$p" || true; done
for l in $lanes; do [ "$l" = host ] || chroot_lane_end "$l"; done
[ $status = 0 ] || sum_fail=$((sum_fail > 0 ? sum_fail : 1))
# the table, then what failed: CI keeps only the end of what we print
table
if [ -n "$failed" ]; then
	cat "$failed_logs"
	echo "test-all: failed:$failed"
fi
echo "test-all: $sum_pass passed, $sum_fail failed, $sum_skip skipped"
exit $status
