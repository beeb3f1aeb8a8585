# tests/integration/slurm-lib.sh - sourced by the slurm-*.sh tests after
# tests/lib.sh: a real single-node cluster (scripts/cluster.sh) in the
# test's scratch directory, stopped when the test exits, and bounded waits
# on job states.

# Under tests/isolate.sh (the harness's runner, FALCON_TEST_ISOLATED=1) each
# test has its own network, mount and cgroup namespaces, and clusters run at
# once.  Without it (not root, FALCON_TEST_ISOLATE=no) two clusters would
# share this host's cgroups (both name their node after it and number jobs
# from 1): the tests that source this file then run one after another even
# under `make -j check`.  The test re-executes itself under flock(1); -o
# keeps the lock in flock's own process so no daemon the test starts
# inherits it.
if [ -z "${FALCON_TEST_ISOLATED:-}" ] && [ -z "${FALCON_CLUSTER_LOCK_HELD:-}" ] &&
	command -v flock >/dev/null 2>&1; then
	FALCON_CLUSTER_LOCK_HELD=1
	export FALCON_CLUSTER_LOCK_HELD
	trap - EXIT
	rm -rf "$t_tmp"
	exec flock -o -w 1800 "${TMPDIR:-/tmp}/falcon-cluster-tests.lock" \
		"${BASH:-/bin/sh}" "$0" "$@"
fi

# s_need_slurm - skip unless root and the Slurm, munge and MariaDB binaries
# are installed.
s_need_slurm() {
	t_need_root
	for b in munged munge mariadbd mariadb-install-db slurmdbd slurmctld slurmd \
		sbatch salloc srun squeue scontrol sacct sacctmgr; do
		command -v "$b" >/dev/null 2>&1 || t_skip "$b not installed"
	done
}

# s_need_job_submit - skip unless job_submit_falcon.so is built (configure
# --with-slurm-source); sets plugin_dir, its directory (cluster.sh
# --job-submit DIR).
s_need_job_submit() {
	plugin_dir=$top_builddir/plugin/.libs
	[ -f "$plugin_dir/job_submit_falcon.so" ] ||
		t_skip "job_submit_falcon.so not built (configure --with-slurm-source=\"\$(scripts/slurm-source.sh)\")"
}

# s_hres_release - whether the installed Slurm has HRES MODE_3 (25.11 on;
# slurmctld -V needs no slurm.conf, sinfo does from 26.05).
s_hres_release() {
	set -- $(slurmctld -V 2>/dev/null | sed -n 's/^slurm[^0-9]*\([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
	[ -n "${1:-}" ] && { [ "$1" -gt 25 ] || { [ "$1" = 25 ] && [ "$2" -ge 11 ]; }; }
}

# s_hres_yaml FILE - the resources.yaml `falconctl slurm-conf --pool hres`
# writes from falcond's counts (falcond running), into FILE; its whole
# output in FILE.out.
s_hres_yaml() {
	"$FALCONCTL" slurm-conf --pool hres >"$1.out" ||
		t_fail "falconctl slurm-conf --pool hres: $(cat "$1.out")"
	sed -n '/^# --- resources.yaml/,$p' "$1.out" >"$1"
	grep -q '^Licenses=' "$1.out" &&
		t_fail "slurm-conf --pool hres wrote licenses: $(grep '^Licenses=' "$1.out")"
	! grep -q COUNT "$1" || t_fail "resources.yaml without falcond's counts: $(cat "$1.out")"
}

# s_need_spank - skip unless spank_falcon.so is built (configure found
# libslurm); sets plugin, its path (cluster.sh --spank PATH).
s_need_spank() {
	plugin=$top_builddir/plugin/.libs/spank_falcon.so
	[ -f "$plugin" ] || t_skip "spank_falcon.so not built (configure found no libslurm)"
}

# s_need_netns - skip unless the extra nodes of cluster.sh --node2/--nodes
# can be made here: ip, unshare, nsenter, and a network namespace.
s_need_netns() {
	for b in ip unshare nsenter; do
		command -v $b >/dev/null 2>&1 || t_skip "$b not installed"
	done
	ip netns add "falcon-probe-$$" 2>/dev/null || t_skip "cannot create a network namespace here"
	ip netns del "falcon-probe-$$"
}

# s_start [cluster.sh start options] - start the cluster in $t_tmp/cluster,
# export SLURM_CONF, and stop it (by pid files) when the test exits.
s_state=$t_tmp/cluster
s_start() {
	t_on_exit "s_stop"
	# munged wants every directory above its socket searchable by all.
	chmod 0755 "$t_tmp"
	"$top_srcdir/scripts/cluster.sh" start "$s_state" \
		--examples "$top_srcdir/examples" "$@" >"$t_tmp/cluster-start.log" 2>&1 ||
		{ cat "$t_tmp/cluster-start.log" >&2; t_fail "cluster.sh start failed"; }
	SLURM_CONF=$(sed -n 's/^SLURM_CONF=//p' "$s_state/env")
	export SLURM_CONF
	# Jobs write their output here; run commands from a directory all see.
	cd "$t_tmp"
}

s_stop() {
	if [ -n "${SLURM_CONF:-}" ]; then
		scancel --quiet --user=root >/dev/null 2>&1 || true
	fi
	"$top_srcdir/scripts/cluster.sh" stop "$s_state" >/dev/null 2>&1 || true
	cd /
}

# s_logs - the daemons' logs, for a failure.
s_logs() {
	for s_f in "$s_state"/log/slurm*.log; do
		echo "---- $s_f"; tail -n 20 "$s_f"
	done >&2
}

# s_job_state JOBID - its state as squeue/sacct say (PENDING, RUNNING, ...).
s_job_state() {
	s_js=$(squeue -h -j "$1" -o %T 2>/dev/null || true)
	[ -n "$s_js" ] ||
		s_js=$(sacct -n -X -P -j "$1" -o State 2>/dev/null | head -n1 | cut -d' ' -f1)
	echo "$s_js"
}

# s_in_state JOBID STATE... - the job is in one of the states (its state in
# s_st; a condition for wait_for).
s_in_state() {
	s_st=$(s_job_state "$1"); shift
	for s_want in "$@"; do
		[ "$s_st" = "$s_want" ] && return 0
	done
	return 1
}

# s_wait_state JOBID STATE... - wait (60 s at most) until the job is in one
# of the states; fails the test otherwise.
s_wait_state() {
	s_jid=$1; shift
	wait_for 60 "job $s_jid to be $*" s_in_state "$s_jid" "$@" ||
		{ s_logs; t_fail "job $s_jid is '$s_st', not $* after 60 s"; }
}

# s_wait_done JOBID - wait until the job left the queue (60 s at most).
s_wait_done() {
	s_wait_state "$1" COMPLETED FAILED CANCELLED TIMEOUT NODE_FAIL OUT_OF_MEMORY
}
