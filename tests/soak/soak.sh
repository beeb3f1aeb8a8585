#!/bin/sh
# soak.sh - jobs through real Slurm under realistic timing and failures
# (`make soak`; issue 11): the cluster of scripts/cluster.sh with
# falcon-prolog/falcon-epilog, spank_falcon and job_submit_falcon, falcond
# and falcon-sim set up as the integration tests do (prolog-lib.sh), then
#   - every Redfish request delayed by a time drawn from SOAK_LATENCY_MS;
#   - falcond SIGKILLed at random times, restarted 0-10 s later;
#   - the chassis stopped a few times mid-job: its Redfish service
#     accepting and never answering (management unreachable, composition
#     kept, the hosts' PCIe untouched) or SIGTERM and a fresh start on the
#     same port (a power cycle: composition lost), back 5-30 s later;
#   - SOAK_JOBS jobs submitted, SOAK_PARALLEL in the queue at once, of mixed
#     sizes: falcon_gpu:1..4, falcon_nvme:1, falcon_gpu + falcon_nvme,
#     gpu + falcon_gpu (hybridGPUs), gpu only, and a few falcon_gpu:9 of 8
#     that job_submit_falcon must refuse at submit;
# each job (soak-job.py) checks from inside that its BDFs are its lease's
# slots as falcon-sim's /admin/state sees them and writes a verdict line.
# A stand-in admin (SOAK_ADMIN=1) resumes drained nodes, releases held jobs
# and unquarantines devices once the chassis is back, and logs each action:
# they are counted, not hidden.  After the last job (or SOAK_TIMEOUT) and
# one ReconcileInterval, soak-report.py prints the counts; the exit status
# is 1 if a correctness count is not zero.
#
# Environment (defaults in brackets):
#   SOAK_JOBS [500]            jobs to submit
#   SOAK_LATENCY_MS [0-5000]   chassis latency per request, LO-HI or N (ms)
#   SOAK_KILL [1]              SIGKILL falcond at random times (0 = never)
#   SOAK_KILL_GAP [30-120]     seconds between two kills
#   SOAK_KILL_MAX [0]          at most this many kills (0 = no limit)
#   SOAK_CHASSIS_STOP [1]      stop the chassis mid-job (0 = never)
#   SOAK_CHASSIS_STOPS [3]     how many times (spread over the submissions,
#                              or over SOAK_TIMEOUT if that comes first)
#   SOAK_CHASSIS_MODE [mixed]  pause, restart or mixed (drawn per stop)
#   SOAK_SEED [the time]       seed of every draw (printed)
#   SOAK_PARALLEL [6]          jobs in the queue at once
#   SOAK_HOLD [2-20]           seconds a job holds its devices
#   SOAK_TIMEOUT [600 + 12 s a job]  global bound: then the report
#   SOAK_RECONCILE [30]        falcon.conf ReconcileInterval
#   SOAK_ADMIN [1]             the stand-in admin acts (0 = only counts)
#   SOAK_ADMIN_AFTER [2 x SOAK_RECONCILE + 10]  on what stayed this long (s)
#   SOAK_ADMIN_HEAL_AFTER [600]  on a quarantine falconctl status says clears by itself (s)
#   SOAK_CONF                  more falcon.conf lines
#   SOAK_PROLOG_SLURMCTLD      1 (default): compose in PrologSlurmctld; 0: in the node prolog
#   SOAK_CLUSTER_OPTS          more scripts/cluster.sh start options
#   SOAK_OUT                   a directory to keep the run's logs and counts in
#   SOAK_LIFECYCLE [0]         1: Slurm's job lifecycle too (`make soak-lifecycle`,
#                              issue 32): every SOAK_LIFE_GAP [5-20] s one of
#                              scancel of a CONFIGURING or RUNNING job, scontrol
#                              requeue, suspend and resume, a slurmd or
#                              slurmctld restart, an srun or an salloc job, a
#                              job past its time limit and, on Slurm 23.02+
#                              (cluster.sh --preempt REQUEUE), an urgent job
#                              that preempts; then drained nodes, admin
#                              actions and wrong tags count as failures too
#                              (soak-report.py --lifecycle)
#   SOAK_DURATION              seconds of submissions (then the queue drains,
#                              SOAK_TIMEOUT [SOAK_DURATION + 900] bounding all)
#   SOAK_CHASSIS_DOWN [5-30]   seconds a chassis stop lasts
#   SOAK_FLEET [0]             1: a fleet (`make soak-fleet`, issue 41):
#                              tests/integration/fleet-lib.sh's SOAK_NODES [64]
#                              nodes on SOAK_CHASSIS [16] chassis (4 host ports
#                              each; the node of each chassis' H1 with 8 local
#                              GPUs), falcond and a standby (FL_STANDBY), each
#                              node's prolog and epilog with its own falcon.conf
#                              (spank_falcon reads this host's: the task
#                              environment of jobs on this host's node only),
#                              KeepWarm=SOAK_KEEPWARM [120]
#                              in partition "warm" (a fifth of the jobs); the
#                              lifecycle on, and these defaults: SOAK_DURATION
#                              3600, SOAK_JOBS unbounded, SOAK_PARALLEL 2 x
#                              nodes, SOAK_HOLD 20-120, SOAK_KILL_GAP 120-300,
#                              SOAK_CHASSIS_MODE pause, SOAK_CHASSIS_DOWN 120-300
#                              (a chassis unreachable for minutes), SOAK_LIFE_GAP
#                              5-15; the jobs also arrays, multi-node jobs
#                              (srun on each node) and hetjobs; the SIGKILL goes
#                              to the active falcond and the standby takes over;
#                              any node's slurmd is restarted; falcond's and
#                              slurmctld's CPU and memory sampled (procs.log);
#                              judged by soak-report.py --fleet
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/slurm-lib.sh"
. "$top_srcdir/tests/integration/prolog-lib.sh"

SOAK_FLEET=${SOAK_FLEET:-0}
if [ "$SOAK_FLEET" = 1 ]; then
	SOAK_NODES=${SOAK_NODES:-64} SOAK_CHASSIS=${SOAK_CHASSIS:-16}
	SOAK_DURATION=${SOAK_DURATION:-3600} SOAK_JOBS=${SOAK_JOBS:-1000000}
	SOAK_PARALLEL=${SOAK_PARALLEL:-$((SOAK_NODES * 2))} SOAK_HOLD=${SOAK_HOLD:-20-120}
	SOAK_KILL_GAP=${SOAK_KILL_GAP:-120-300} SOAK_CHASSIS_MODE=${SOAK_CHASSIS_MODE:-pause}
	SOAK_CHASSIS_DOWN=${SOAK_CHASSIS_DOWN:-120-300} SOAK_LIFECYCLE=1
	SOAK_LIFE_GAP=${SOAK_LIFE_GAP:-5-15}
fi
SOAK_JOBS=${SOAK_JOBS:-500}
SOAK_LATENCY_MS=${SOAK_LATENCY_MS:-0-5000}
SOAK_KILL=${SOAK_KILL:-1}
SOAK_KILL_GAP=${SOAK_KILL_GAP:-30-120}
SOAK_KILL_MAX=${SOAK_KILL_MAX:-0}
SOAK_CHASSIS_STOP=${SOAK_CHASSIS_STOP:-1}
SOAK_CHASSIS_STOPS=${SOAK_CHASSIS_STOPS:-3}
SOAK_CHASSIS_MODE=${SOAK_CHASSIS_MODE:-mixed}
SOAK_SEED=${SOAK_SEED:-$(date +%s)}
SOAK_PARALLEL=${SOAK_PARALLEL:-6}
SOAK_HOLD=${SOAK_HOLD:-2-20}
if [ -n "${SOAK_DURATION:-}" ]; then
	SOAK_TIMEOUT=${SOAK_TIMEOUT:-$((SOAK_DURATION + 900))}
else
	SOAK_TIMEOUT=${SOAK_TIMEOUT:-$((600 + 12 * SOAK_JOBS))}
fi
SOAK_CHASSIS_DOWN=${SOAK_CHASSIS_DOWN:-5-30}
SOAK_RECONCILE=${SOAK_RECONCILE:-30}
SOAK_ADMIN=${SOAK_ADMIN:-1}
SOAK_LIFECYCLE=${SOAK_LIFECYCLE:-0}
SOAK_LIFE_GAP=${SOAK_LIFE_GAP:-5-20}

# soak_range NAME VALUE - LO and HI of "LO-HI" or "N" (integers) in
# NAME_lo/NAME_hi; a clear error otherwise.
soak_range() {
	case $2 in
	*[!0-9-]*|-*|*-|*-*-*|"") t_fail "$1=$2: expected N or LO-HI (integers)" ;;
	*-*) eval "$1_lo=\${2%-*} $1_hi=\${2#*-}" ;;
	*) eval "$1_lo=\$2 $1_hi=\$2" ;;
	esac
	eval "[ \$$1_lo -le \$$1_hi ]" || t_fail "$1=$2: LO above HI"
}
soak_range lat "$SOAK_LATENCY_MS"
soak_range gap "$SOAK_KILL_GAP"
soak_range hold "$SOAK_HOLD"
soak_range life "$SOAK_LIFE_GAP"
soak_range down "$SOAK_CHASSIS_DOWN"
case $SOAK_CHASSIS_MODE in pause|restart|mixed) ;;
*) t_fail "SOAK_CHASSIS_MODE=$SOAK_CHASSIS_MODE: expected pause, restart or mixed" ;; esac

# rnd LO HI - R = an integer drawn from LO..HI.  An LCG on soak_rs
# (Numerical Recipes' constants 1664525, 1013904223 mod 2^32; the high bits),
# so a run is repeated by its SOAK_SEED; each background loop has its own.
soak_rs=$SOAK_SEED
rnd() {
	soak_rs=$(((soak_rs * 1664525 + 1013904223) % 4294967296))
	R=$(($1 + (soak_rs / 65536) % ($2 - $1 + 1)))
}

# a soak stopped by a signal still stops its cluster and daemons
trap 'exit 143' TERM INT HUP
fp_slurm_node
plugin_dir=$top_builddir/plugin/.libs
[ -f "$plugin_dir/spank_falcon.so" ] && [ -f "$plugin_dir/job_submit_falcon.so" ] ||
	t_skip "spank_falcon.so or job_submit_falcon.so not built"
FP_RETRIES=${FP_RETRIES:-3}
[ "$SOAK_FLEET" = 1 ] || fp_setup "ReconcileInterval=$SOAK_RECONCILE
${SOAK_CONF:-}"
# composing in PrologSlurmctld (the README's configuration) unless
# SOAK_PROLOG_SLURMCTLD=0: then the node prolog composes (the fleet
# always composes there: fleet-lib.sh)
ctld_opts=""
if [ "$SOAK_FLEET" = 1 ]; then
	ctld_opts="--prolog-timeout 240"
elif [ "${SOAK_PROLOG_SLURMCTLD:-1}" != 0 ]; then
	fp_slurmctld_wrapper
	ctld_opts="--prolog-slurmctld $t_tmp/prolog-slurmctld.sh --prolog-timeout 240"
fi
# the lifecycle soak preempts where Slurm can for licenses (23.02+)
preempt=no
if [ "$SOAK_LIFECYCLE" = 1 ]; then
	case $(slurmctld -V | awk '{print $2}') in
	2[0-2].*|23.0[01].*) ;;
	*) preempt=yes; ctld_opts="$ctld_opts --preempt REQUEUE" ;;
	esac
fi
S=$t_tmp/soak
mkdir -p "$S/verdicts" "$S/out"
if [ "$SOAK_FLEET" = 1 ]; then
	s_need_netns
	. "$top_srcdir/tests/integration/fleet-lib.sh"
	# shellcheck disable=SC2034 # read by fleet-lib.sh's fl_start
	FL_NODES=$SOAK_NODES FL_CHASSIS=$SOAK_CHASSIS FL_LOCAL_GPUS=8 FL_STANDBY=1
	# shellcheck disable=SC2034 # read by fleet-lib.sh's fl_start
	FL_CONF="ReconcileInterval=$SOAK_RECONCILE
PartitionName=warm KeepWarm=${SOAK_KEEPWARM:-120}
${SOAK_CONF:-}"
	# shellcheck disable=SC2086 # SOAK_CLUSTER_OPTS, ctld_opts: options, split on purpose
	fl_start $ctld_opts --spank "$plugin_dir/spank_falcon.so" \
		--spank-args "conf=$t_tmp/falcon.conf" --partition warm ${SOAK_CLUSTER_OPTS:-}
	soak_chassis_all=$chassis
	# soak-job.py's map of the fleet: NODE CHASSIS SIM_URL SIM_HOST RUNDIR
	# NETNS.  falcon-sim's admin API answers loopback only, and a job runs
	# in its node's network namespace: it reads the chassis' state in this
	# one, named NETNS (a name under /run/netns, as ip-netns(8) keeps them)
	soak_ns=/run/netns/falcon-soak-$$
	mkdir -p /run/netns && : >"$soak_ns" && mount --bind "/proc/$$/ns/net" "$soak_ns" ||
		t_fail "cannot name this network namespace $soak_ns"
	t_on_exit "umount '$soak_ns' 2>/dev/null; rm -f '$soak_ns'"
	while read -r _n _c _p _h; do
		eval "_sp=\$SIM_PORT_$_c"
		echo "$_n $_c http://127.0.0.1:$_sp $_h $t_tmp/run-$_n $soak_ns"
	done <"$fl_cabling" >"$S/fleet-map"
	soak_jargs="$S/verdicts $S/fleet-map $t_tmp/state -"
	# the pool: every chassis GPU the nodes reach (utilization's denominator)
	sed -n 's/.*Licenses=//p' "$SLURM_CONF" | tr ',' '\n' | sed -n 's/^c[0-9]*_gpu://p' |
		awk '{ n += $1 } END { print n }' >"$S/pool-gpus"
else
	# shellcheck disable=SC2086 # SOAK_CLUSTER_OPTS, ctld_opts: options, split on purpose
	fp_slurm_start $ctld_opts --spank "$plugin_dir/spank_falcon.so" --spank-args "conf=$FALCON_CONF" \
		--job-submit "$plugin_dir" --falcon-conf "$FALCON_CONF" \
		--license c1_gpu:8,c1_nvme:1 --gpus 8 ${SOAK_CLUSTER_OPTS:-}
	fp_falcond_with_slurm
	soak_chassis_all=c1
	soak_jargs="$S/verdicts $t_tmp/sim-c1/port $t_tmp/state node1"
	echo 8 >"$S/pool-gpus"
fi
: >"$S/jobs"; : >"$S/refused"; : >"$S/admin.log"; : >"$S/chaos.log"
soak_t0=$(date +%s)
soak_deadline=$((soak_t0 + SOAK_TIMEOUT))
soak_submit_end=$soak_deadline
[ -z "${SOAK_DURATION:-}" ] || soak_submit_end=$((soak_t0 + SOAK_DURATION))
echo "soak: seed $SOAK_SEED, $SOAK_JOBS jobs, latency $SOAK_LATENCY_MS ms, kill $SOAK_KILL," \
	"chassis stops $SOAK_CHASSIS_STOP x $SOAK_CHASSIS_STOPS ($SOAK_CHASSIS_MODE, $SOAK_CHASSIS_DOWN s)," \
	"bound $SOAK_TIMEOUT s${SOAK_DURATION:+, submitting for $SOAK_DURATION s}"
[ "$SOAK_FLEET" = 0 ] ||
	echo "soak: fleet of $SOAK_NODES nodes on $SOAK_CHASSIS chassis ($(cat "$S/pool-gpus") pool GPUs)," \
		"$SOAK_PARALLEL jobs in the queue at once, falcond on $FD_PORT and a standby on $FD_PORT_B"

# soak_log FILE WHAT [DETAIL] - one timestamped line.
soak_log() { echo "$(date +%s) $2 ${3:-}" >>"$S/$1.log"; }
# soak_stopping - the run ends (or ended: its directory is gone).
soak_stopping() { [ -e "$S/stop" ] || [ ! -d "$S" ]; }
# soak_sleep SECONDS - sleep, in 1 s steps, until the run stops.
soak_sleep() {
	_n=$1
	while [ "$_n" -gt 0 ] && ! soak_stopping; do sleep 1; _n=$((_n - 1)); done
}

# soak_latency [CHASSIS...] - the latency rule on the chassis (again after
# a restart or a pause; default: every chassis).
soak_latency() {
	if [ "$lat_hi" -gt "$lat_lo" ]; then
		_b="{\"rules\":[{\"action\":\"latency\",\"ms\":$lat_lo,\"ms_max\":$lat_hi}]}"
	else
		_b="{\"latency_ms\":$lat_lo}"
	fi
	[ $# -gt 0 ] || set -- $soak_chassis_all
	for _c in "$@"; do
		fd_sim "$_c" POST /admin/faults "$_b" | grep -q '"latency' ||
			{ echo "soak: falcon-sim $_c refused $_b" >&2; return 1; }
	done
}

# soak_sim_up [CHASSIS...] - the chassis' falcon-sim are up and answer
# (within 5 s: a paused one accepts and never answers); default: all.
soak_sim_up() {
	[ $# -gt 0 ] || set -- $soak_chassis_all
	for _c in "$@"; do
		eval "_p=\$SIM_PORT_$_c"
		curl -s -m 5 "http://127.0.0.1:$_p/admin/state" 2>/dev/null | grep -q '"devices"' || return 1
	done
}

# soak_sim_start CHASSIS - its falcon-sim again, on the port falcon.conf
# names, with the same host trees (fd_start_sim's command, but its port is
# fixed) and configuration.
soak_sim_start() {
	eval "_p=\$SIM_PORT_$1"
	_cfg=${FP_SIM_CONFIG:-}
	[ "$SOAK_FLEET" = 0 ] || _cfg=$t_tmp/sim.json
	"$SIM" --listen "127.0.0.1:$_p" --sysfs-root "$t_tmp/sim-$1/sysfs" -q \
		${_cfg:+--config "$_cfg"} 2>>"$t_tmp/sim-$1/log" &
	echo $! >"$t_tmp/sim-$1/pid"
	soak_until 60 soak_sim_up "$1" && soak_latency "$1"
}

# soak_falcond_alive - falcond (by its pid file) runs; in the fleet, both.
soak_falcond_alive() {
	kill -0 "$(cat "$t_tmp/falcond.pid" 2>/dev/null)" 2>/dev/null &&
		{ [ "$SOAK_FLEET" = 0 ] || kill -0 "$(cat "$t_tmp/falcond-b.pid" 2>/dev/null)" 2>/dev/null; }
}

# soak_until SECONDS CMD... - run CMD every second until it succeeds or
# SECONDS of wall time have passed (wait_for counts the time it slept, and a step
# here may take seconds of its own); 1 if the time ran out.
soak_until() {
	_end=$(($(date +%s) + $1)); shift
	until "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -lt $_end ] || return 1
		sleep 1
	done
}

# soak_falcond_ready - falcond answers and its start-up reconcile is over
# (in the fleet: one of the two, which is then $soak_active, a or b).
soak_falcond_ready() {
	for _fp in $FD_PORT ${FD_PORT_B:-}; do
		_h=$(curl -s -m 5 "http://127.0.0.1:$_fp/v1/health" 2>/dev/null) || continue
		case $_h in ''|*reconciling*|*standby*) continue ;; esac
		soak_active=a
		[ "$_fp" = "$FD_PORT" ] || soak_active=b
		return 0
	done
	return 1
}

soak_falcond_ready_or_stop() { soak_stopping || soak_falcond_ready; }

# soak_falcond_start - falcond again (prolog-lib's start, asking Slurm; in
# a subshell, so its 60 s bound does not end the loop), then wait (at most
# 900 s, or until the run stops: the start-up reconcile reads the chassis'
# whole inventory, each request delayed) until it is ready; how long it took
# in chaos.log.
soak_falcond_start() {
	_t=$(date +%s)
	(FD_NO_SLURM= fd_start_falcond) >>"$S/chaos.err" 2>&1 || true
	if soak_until 900 soak_falcond_ready_or_stop && soak_falcond_ready; then
		soak_log chaos falcond-ready "after $(($(date +%s) - _t)) s"
	elif ! soak_stopping; then
		soak_log chaos falcond-not-ready "after $(($(date +%s) - _t)) s"
	fi
}

# soak_takeover T0 - (the fleet) wait, at most 900 s, also after the run
# stops (the takeover's time is a figure of the run), for the standby to
# serve after the active one's SIGKILL at T0; how long in chaos.log.
soak_takeover() {
	if soak_until 900 soak_falcond_ready; then
		soak_log chaos falcond-takeover "falcond $soak_active serves after $(($(date +%s) - $1)) s"
	else
		soak_log chaos falcond-no-takeover "after $(($(date +%s) - $1)) s"
	fi
}

# soak_gone PID - wait (at most 30 s) until process PID has exited (gone
# or a zombie: its sockets closed), as systemd waits for a killed main
# process before its Restart= (make soak-fleet's sixth hour started
# falcond a again 0 s after its SIGKILL, while its port was still bound:
# it never served again, and each takeover waited for b's restart).
soak_gone() {
	for _i in $(seq 300); do
		[ -e "/proc/$1" ] || return 0
		case $(cut -d')' -f2 "/proc/$1/stat" 2>/dev/null) in " Z"*|"") return 0 ;; esac
		sleep 0.1
	done
	return 1
}

# soak_killer - SIGKILL falcond every SOAK_KILL_GAP s, restart it 0-10 s
# after it has exited; in the fleet the active one, the standby taking
# over, and the killed one started again stands by.
soak_killer() {
	soak_rs=$((SOAK_SEED + 1)) _k=0
	while ! soak_stopping; do
		rnd "$gap_lo" "$gap_hi"; soak_sleep "$R"
		soak_stopping && break
		if [ "$SOAK_FLEET" = 1 ]; then
			soak_falcond_ready || soak_until 300 soak_falcond_ready_or_stop || true
			soak_stopping && break
			_x=${soak_active:-a}
			_pf=$t_tmp/falcond.pid
			[ "$_x" = a ] || _pf=$t_tmp/falcond-b.pid
			_t=$(date +%s)
			_kp=$(cat "$_pf")
			kill -KILL "$_kp" 2>/dev/null || true
			soak_gone "$_kp" || soak_log chaos falcond-not-gone "pid $_kp 30 s after its SIGKILL"
			rnd 0 10
			soak_log chaos falcond-kill "falcond $_x (active), restart in $R s"
			soak_takeover "$_t" &
			_tp=$!
			sleep "$R"
			fl_falcond "$_x"
			wait $_tp 2>/dev/null || true
			_k=$((_k + 1))
			[ "$SOAK_KILL_MAX" = 0 ] || [ $_k -lt "$SOAK_KILL_MAX" ] || break
			continue
		fi
		_kp=$(cat "$t_tmp/falcond.pid")
		kill -KILL "$_kp" 2>/dev/null || true
		soak_gone "$_kp" || soak_log chaos falcond-not-gone "pid $_kp 30 s after its SIGKILL"
		rnd 0 10
		soak_log chaos falcond-kill "restart in $R s"
		sleep "$R"
		soak_falcond_start
		_k=$((_k + 1))
		[ "$SOAK_KILL_MAX" = 0 ] || [ $_k -lt "$SOAK_KILL_MAX" ] || break
	done
}

# soak_chassis_stop - one chassis outage (a chassis drawn among them),
# mid-job: pause (no answers) or restart (SIGTERM, a fresh falcon-sim),
# SOAK_CHASSIS_DOWN s; $S/outage while it lasts.
soak_chassis_stop() {
	soak_until 120 sh -c 'squeue -h -t R -o %i | grep -q .' || true
	rnd "$down_lo" "$down_hi"; _down=$R
	case $SOAK_CHASSIS_MODE in
	mixed) rnd 0 1; [ "$R" = 0 ] && _mode=pause || _mode=restart ;;
	*) _mode=$SOAK_CHASSIS_MODE ;;
	esac
	# shellcheck disable=SC2086 # the chassis' names, split on purpose
	set -- $soak_chassis_all
	rnd 1 $#
	eval "_c=\${$R}"
	: >"$S/outage"
	_pid=$(cat "$t_tmp/sim-$_c/pid")
	soak_log chaos "chassis-$_mode" "$_c $_down s, running jobs: $(squeue -h -t R -o %i | tr '\n' ' ')"
	if [ $_mode = pause ]; then
		# the Redfish service accepts and never answers; not SIGSTOP,
		# which would also freeze the hosts' PCI bus that falcon-sim
		# plays (a stopped chassis manager does not: an epilog's
		# hot-remove then timed out and drained a healthy node)
		fd_sim "$_c" POST /admin/faults \
			'{"rules":[{"action":"timeout","count":-1,"path":"/redfish/v1/*"}]}' >/dev/null
		sleep "$_down"
		fd_sim "$_c" DELETE /admin/faults >/dev/null
		soak_latency "$_c" || soak_log chaos chassis-latency-failed "$_c"
	else
		kill -TERM "$_pid"
		soak_until 30 fd_exited "$_pid" || kill -KILL "$_pid" || true
		sleep "$_down"
		soak_sim_start "$_c" || soak_log chaos chassis-start-failed "$_c"
	fi
	soak_log chaos chassis-back "$_c"
	rm -f "$S/outage"
}

# soak_chassis - SOAK_CHASSIS_STOPS outages, at evenly spread submissions
# or, when the run is bounded by SOAK_TIMEOUT (or SOAK_DURATION) before its
# jobs are all submitted (a slow chassis), at evenly spread times of that
# bound, whichever comes first.
soak_chassis() {
	soak_rs=$((SOAK_SEED + 2)) _n=1
	while ! soak_stopping && [ $_n -le "$SOAK_CHASSIS_STOPS" ]; do
		if [ "$(wc -l <"$S/jobs")" -ge $((SOAK_JOBS * _n / (SOAK_CHASSIS_STOPS + 1))) ] ||
		   [ "$(date +%s)" -ge $((soak_t0 + (soak_submit_end - soak_t0) * _n / (SOAK_CHASSIS_STOPS + 1))) ]; then
			soak_chassis_stop
			_n=$((_n + 1))
		fi
		sleep 1
	done
}

# soak_admin_due KEY [SECONDS] - whether the condition KEY (a drained node,
# a held job, a quarantined device) has been seen for SECONDS, default
# SOAK_ADMIN_AFTER (default two ReconcileIntervals + 10 s): an admin looks
# at sinfo -R and falconctl status minutes later, not the second the chassis
# is back, and what falcond heals by itself (its next reconcile) is not an
# admin's to do.
# The first sighting is kept in $S/seen/KEY; soak_admin_round forgets
# those not seen in a round.
soak_admin_due() {
	_f=$S/seen/$(printf %s "$1" | tr -c 'A-Za-z0-9_.-' _)
	echo "$_f" >>"$S/seen.round"
	[ -e "$_f" ] || date +%s >"$_f"
	[ $(($(date +%s) - $(cat "$_f"))) -ge "${2:-${SOAK_ADMIN_AFTER:-$((2 * SOAK_RECONCILE + 10))}}" ]
}

# soak_admin_round - what an admin would do once the chassis answers, for
# what stayed (soak_admin_due): resume drained nodes, release held jobs,
# unquarantine devices (one that falconctl status says clears by itself,
# CLEARS by-itself, only after SOAK_ADMIN_HEAL_AFTER [600] s: an admin
# leaves those to falcond's reconcile, which over a chassis answering in
# 0-5 s takes some passes); each is logged in admin.log (counted in the
# report).  With SOAK_ADMIN=0 nothing.
soak_admin_round() {
	[ "$SOAK_ADMIN" = 1 ] && [ ! -e "$S/outage" ] && soak_sim_up && soak_falcond_ready ||
		return 0
	mkdir -p "$S/seen"
	: >"$S/seen.round"
	sinfo -h -N -o '%N|%T|%E' 2>/dev/null | grep -i 'drain' | sort -u |
		while IFS='|' read -r _node _st _why; do
			soak_admin_due "node-$_node" || continue
			soak_log admin resume-node "$_node ($_st: $_why)"
			scontrol update nodename="$_node" state=resume 2>>"$S/admin.err" || true
		done
	squeue -h -t PD -o '%i|%r' 2>/dev/null | grep -i 'held' |
		while IFS='|' read -r _j _why; do
			soak_admin_due "job-$_j" || continue
			soak_log admin release-job "$_j ($_why)"
			scontrol release "$_j" 2>>"$S/admin.err" || true
		done
	"$FALCONCTL" status --json 2>/dev/null | python3 -c 'import json,sys
for q in json.load(sys.stdin).get("quarantine", []):
    print(q["chassis"], q["device"], 1 if q.get("heals") else 0)' 2>/dev/null |
		while read -r _c _d _h; do
			if [ "$_h" = 1 ]; then
				soak_admin_due "dev-$_c-$_d" "${SOAK_ADMIN_HEAL_AFTER:-600}" || continue
			else
				soak_admin_due "dev-$_c-$_d" || continue
			fi
			soak_log admin unquarantine "$_c $_d"
			"$FALCONCTL" unquarantine "$_c" "$_d" >>"$S/admin.err" 2>&1 || true
		done
	# forget the conditions that went away (healed) since the last round
	for _f in "$S"/seen/*; do
		[ -e "$_f" ] || continue
		grep -qxF "$_f" "$S/seen.round" || rm -f "$_f"
	done
}

soak_admin() {
	while ! soak_stopping; do
		soak_admin_round
		soak_sleep 5
	done
}

# soak_fleet_submit - (the fleet) one job of a kind only a fleet has, a
# third of the time: an array of 2-4 tasks, a job over 2-3 nodes (soak-job.py
# on each, by srun) or a hetjob of two components (soak-job.py in each,
# with its component's own job id); 1 (nothing submitted) otherwise.
soak_fleet_submit() {
	[ "$SOAK_FLEET" = 1 ] || return 1
	rnd 0 99
	[ "$R" -lt 33 ] || return 1
	_r=$R
	rnd 1 2; _g=$R
	rnd "$hold_lo" "$hold_hi"; _h=$R
	_job=$top_srcdir/tests/soak/soak-job.py
	if [ $_r -lt 11 ]; then
		rnd 2 4
		_kind=array
		set -- --array=0-$((R - 1)) --gres=falcon_gpu:$_g -t 15 -o "$S/out/%A_%a.out" \
			"$_job" $soak_jargs "$_g" 0 "$_h"
	elif [ $_r -lt 22 ]; then
		rnd 2 3
		_kind=multinode
		set -- -N "$R" --gres=falcon_gpu:$_g -t 15 -o "$S/out/%j.out" \
			--wrap "srun --ntasks-per-node=1 python3 $_job $soak_jargs $_g 0 $_h"
	else
		rnd 1 2; _g1=$R
		_kind=hetjob
		set -- --gres=falcon_gpu:$_g -t 15 -o "$S/out/%j.out" : --gres=falcon_gpu:$_g1 -t 15 \
			--wrap "srun --het-group=0 env SOAK_JOB_ID=\$SLURM_JOB_ID_HET_GROUP_0 python3 $_job $soak_jargs $_g 0 $_h & srun --het-group=1 env SOAK_JOB_ID=\$SLURM_JOB_ID_HET_GROUP_1 python3 $_job $soak_jargs $_g1 0 $_h; wait"
	fi
	if _jid=$(FALCOND=$FALCOND sbatch --parsable "$@" 2>"$S/sbatch.err"); then
		echo "${_jid%%+*} $_kind $_g 0" >>"$S/jobs"
	else
		echo "$_kind unexpected $(head -n1 "$S/sbatch.err")" >>"$S/refused"
	fi
	return 0
}

# soak_submit - one job of a drawn kind; its line in jobs, or refused.  In
# the fleet a fifth of the single-node jobs go to partition "warm"
# (KeepWarm=), and the one too big asks for more than a chassis holds.
soak_submit() {
	soak_fleet_submit && return 0
	rnd 0 99; _r=$R
	rnd 1 4; _g=$R
	_n=0 _gres= _kind=
	_big=9 _part=""
	[ "$SOAK_FLEET" = 0 ] || _big=16
	if [ $_r -lt 45 ]; then _kind=falconGPUs _gres=falcon_gpu:$_g
	elif [ $_r -lt 58 ]; then _kind=falconNVMe _g=0 _n=1 _gres=falcon_nvme:1
	elif [ $_r -lt 68 ]; then
		rnd 1 2; _g=$R; _kind=gpu+nvme _n=1 _gres=falcon_gpu:$_g,falcon_nvme:1
	elif [ $_r -lt 88 ]; then rnd 1 4; _kind=hybridGPUs _gres=gpu:$R,falcon_gpu:$_g
	elif [ $_r -lt 96 ]; then _kind=localGPUs _g=0 _gres=gpu:$_g
	else _kind=too-big _g=$_big _gres=falcon_gpu:$_big
	fi
	[ $_kind = localGPUs ] && { rnd 1 2; _gres=gpu:$R; }
	if [ "$SOAK_FLEET" = 1 ]; then
		rnd 0 4
		[ "$R" != 0 ] || _part=warm
	fi
	rnd "$hold_lo" "$hold_hi"
	# soak-job.py reads the ledger with $FALCOND --dump-ledger (exported)
	# shellcheck disable=SC2086 # soak_jargs: four arguments, split on purpose
	if _jid=$(FALCOND=$FALCOND sbatch --parsable ${_part:+-p $_part} --gres="$_gres" -t 15 \
		-o "$S/out/%j.out" "$top_srcdir/tests/soak/soak-job.py" $soak_jargs \
		"$_g" "$_n" "$R" 2>"$S/sbatch.err"); then
		echo "$_jid $_kind $_g $_n" >>"$S/jobs"
		[ $_kind != too-big ] || scancel "$_jid"
	elif [ $_kind = too-big ] && grep -q 'falcon: ' "$S/sbatch.err"; then
		echo "$_kind expected $(head -n1 "$S/sbatch.err")" >>"$S/refused"
	else
		echo "$_kind unexpected $(head -n1 "$S/sbatch.err")" >>"$S/refused"
	fi
}

# soak_life_pick STATE - P = one of the run's jobs in STATE, drawn ("" if none).
soak_life_pick() {
	_l=$(squeue -h -t "$1" -o %i 2>/dev/null | grep -E '^[0-9]+$' || true)
	P=
	[ -n "$_l" ] || return 0
	rnd 1 "$(echo "$_l" | wc -l)"
	P=$(echo "$_l" | sed -n "${R}p")
}

# soak_tag JOB - its AdminComment now.
soak_tag() { scontrol show job "$1" 2>/dev/null | sed -n 's/^ *AdminComment=//p' | head -n1; }

# soak_stale_check JOB - 20 s after Slurm requeued JOB: while it pends, its
# tag must not still give the topology of its last run (issue 32).
soak_stale_check() {
	sleep 20
	_st=$(squeue -h -j "$1" -o %T 2>/dev/null)
	_t=$(soak_tag "$1")
	case $_st:$_t in
	PENDING:*falcon:topo=*) soak_log tags wrong "stale-topology job $1 pending with '$_t'" ;;
	PENDING:*) soak_log tags ok "job $1 pending with '$_t'" ;;
	esac
}

# soak_interactive KIND N - an srun (KIND srun) or salloc job, in the
# background, named soak-KIND-N (soak-report.py maps the name to its id).
soak_interactive() {
	rnd 1 2; _g=$R
	rnd "$hold_lo" "$hold_hi"
	echo "soak-$1-$2 falconGPUs $_g 0" >>"$S/interactive"
	_cmd="python3 $top_srcdir/tests/soak/soak-job.py $soak_jargs $_g 0 $R"
	if [ "$1" = srun ]; then
		(FALCOND=$FALCOND timeout 900 srun -J "soak-$1-$2" --gres=falcon_gpu:$_g -t 15 \
			$_cmd >"$S/out/$1-$2.out" 2>&1; echo "soak-$1-$2 $?" >>"$S/interactive.rc") &
	else
		(FALCOND=$FALCOND timeout 900 salloc -J "soak-$1-$2" --gres=falcon_gpu:$_g -t 15 \
			srun $_cmd >"$S/out/$1-$2.out" 2>&1; echo "soak-$1-$2 $?" >>"$S/interactive.rc") &
	fi
}

# soak_queue_full - SOAK_PARALLEL jobs or more in the queue: the lifecycle
# submits no srun, salloc or time-limit job then (they would crowd the
# soak's own jobs out).
soak_queue_full() { [ "$(squeue -h -o %i 2>/dev/null | wc -l)" -ge "$SOAK_PARALLEL" ]; }

# soak_lifecycle - what users and admins do to jobs (SOAK_LIFECYCLE=1),
# one action every SOAK_LIFE_GAP s, each in life.log.
soak_lifecycle() {
	soak_rs=$((SOAK_SEED + 4)) _ln=0
	while ! soak_stopping; do
		rnd "$life_lo" "$life_hi"; soak_sleep "$R"
		soak_stopping && break
		_ln=$((_ln + 1))
		rnd 0 99
		if [ "$R" -lt 14 ]; then
			soak_life_pick CONFIGURING
			[ -z "$P" ] || { scancel "$P"; soak_log life cancel-configuring "$P"; }
		elif [ "$R" -lt 26 ]; then
			soak_life_pick RUNNING
			[ -z "$P" ] || { scancel "$P"; soak_log life cancel-running "$P"; }
		elif [ "$R" -lt 40 ]; then
			soak_life_pick RUNNING
			# only a batch job can be requeued
			scontrol show job "$P" 2>/dev/null | grep -q 'BatchFlag=1' || P=
			if [ -n "$P" ] && scontrol requeue "$P" 2>/dev/null; then
				soak_log life requeue "$P"
				soak_stale_check "$P" &
			fi
		elif [ "$R" -lt 52 ]; then
			soak_life_pick RUNNING
			if [ -n "$P" ] && scontrol suspend "$P" 2>/dev/null; then
				soak_log life suspend "$P"
				rnd 3 10; sleep "$R"
				scontrol resume "$P" 2>/dev/null && soak_log life resume "$P"
			fi
		elif [ "$R" -lt 60 ]; then
			# this host's node, or in the fleet any node
			_d=slurmd
			if [ "$SOAK_FLEET" = 1 ]; then
				rnd 1 "$SOAK_NODES"
				[ "$R" = 1 ] || _d=slurmd:node$R
			fi
			"$top_srcdir/scripts/cluster.sh" restart "$s_state" $_d >>"$S/chaos.err" 2>&1 &&
				soak_log life restart-slurmd "$_d"
		elif [ "$R" -lt 65 ]; then
			"$top_srcdir/scripts/cluster.sh" restart "$s_state" slurmctld >>"$S/chaos.err" 2>&1 &&
				soak_log life restart-slurmctld
		elif [ "$R" -lt 87 ] && soak_queue_full; then
			: # no room for another job
		elif [ "$R" -lt 76 ]; then
			soak_interactive srun "$_ln"; soak_log life srun "soak-srun-$_ln"
		elif [ "$R" -lt 87 ]; then
			soak_interactive salloc "$_ln"; soak_log life salloc "soak-salloc-$_ln"
		elif [ "$R" -lt 92 ] && soak_queue_full; then
			:
		elif [ "$R" -lt 92 ]; then
			# held longer than its 1-minute limit: TIMEOUT, the epilog frees
			# shellcheck disable=SC2086 # soak_jargs: four arguments
			if _j=$(FALCOND=$FALCOND sbatch --parsable --gres=falcon_gpu:1 -t 1 -o "$S/out/%j.out" \
				"$top_srcdir/tests/soak/soak-job.py" $soak_jargs 1 0 150 2>>"$S/sbatch.err"); then
				echo "$_j timelimit 1 0" >>"$S/jobs"; soak_log life timelimit "$_j"
			fi
		elif [ $preempt = no ]; then
			soak_queue_full || { soak_interactive srun "$_ln"; soak_log life srun "soak-srun-$_ln"; }
		else
			rnd 5 15
			# shellcheck disable=SC2086 # soak_jargs: four arguments
			if _j=$(FALCOND=$FALCOND sbatch --parsable -p urgent --gres=falcon_gpu:4 -t 15 \
				-o "$S/out/%j.out" "$top_srcdir/tests/soak/soak-job.py" $soak_jargs \
				4 0 "$R" 2>>"$S/sbatch.err"); then
				echo "$_j urgent 4 0" >>"$S/jobs"; soak_log life urgent "$_j"
			fi
		fi
	done
}

# soak_procs - every 30 s, a line per daemon watched: "T NAME PID CPU_S
# RSS_KB" (CPU_S: its user + system time so far) for falcond (a and b in
# the fleet), slurmctld, slurmdbd and the slurmd together (pid 0), in
# procs.log, and "T load LOAD1 MEM_AVAILABLE_KB".
soak_procs() {
	_tck=$(getconf CLK_TCK)
	while ! soak_stopping; do
		_now=$(date +%s)
		for _pf in "$t_tmp/falcond.pid:falcond" "$t_tmp/falcond-b.pid:falcond" \
			"$s_state/run/slurmctld.pid:slurmctld" "$s_state/run/slurmdbd.pid:slurmdbd"; do
			_p=$(head -n1 "${_pf%:*}" 2>/dev/null) || continue
			[ -r "/proc/$_p/stat" ] || continue
			echo "$_now ${_pf##*:} $_p $(awk -v t="$_tck" '{ print ($14 + $15) / t }' "/proc/$_p/stat" 2>/dev/null) $(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$_p/status" 2>/dev/null)"
		done
		_sd=$(cat "$s_state"/run/slurmd-*.pid 2>/dev/null | tr '\n' ' ')
		# shellcheck disable=SC2086,SC2046 # the pids, split on purpose
		[ -z "$_sd" ] || (cd /proc && cat $(printf '%s/stat ' $_sd) 2>/dev/null) |
			awk -v t="$_tck" -v now="$_now" '{ c += $14 + $15; r += $24 * 4 } END { print now, "slurmd", 0, c / t, r }'
		echo "$_now load $(cut -d' ' -f1 /proc/loadavg) $(sed -n 's/^MemAvailable: *\([0-9]*\).*/\1/p' /proc/meminfo)"
		soak_sleep 30
	done >>"$S/procs.log"
}

# -- the run
soak_latency || t_fail "falcon-sim has no per-request latency draw (ms_max)"
soak_procs &
[ "$SOAK_KILL" = 0 ] || soak_killer &
soak_killer_pid=$!
[ "$SOAK_CHASSIS_STOP" = 0 ] || soak_chassis &
soak_chassis_pid=$!
soak_admin &
: >"$S/life.log"; : >"$S/tags.log"; : >"$S/interactive"
soak_life_pid=
[ "$SOAK_LIFECYCLE" = 0 ] || { soak_lifecycle & soak_life_pid=$!; }
t_on_exit "touch '$S/stop'"

soak_rs=$((SOAK_SEED + 3))
i=0
while [ $i -lt "$SOAK_JOBS" ] && [ "$(date +%s)" -lt $soak_submit_end ]; do
	if [ "$(squeue -h -o %i 2>/dev/null | wc -l)" -ge "$SOAK_PARALLEL" ]; then
		sleep 1
		continue
	fi
	soak_submit
	i=$((i + 1))
	[ $((i % 25)) != 0 ] || echo "soak: $i submitted, $(($(date +%s) - soak_t0)) s"
done
echo "soak: all $i submitted, $(($(date +%s) - soak_t0)) s; waiting for the queue"
# the chaos ends with the submissions; the jobs left run in a calm cluster
touch "$S/stop"
soak_until 1000 \
	sh -c "! kill -0 $soak_killer_pid 2>/dev/null && ! kill -0 $soak_chassis_pid 2>/dev/null && ! kill -0 ${soak_life_pid:-0} 2>/dev/null" ||
	echo "soak: a chaos loop did not end" >&2
for c in $soak_chassis_all; do
	soak_sim_up "$c" || soak_sim_start "$c" || echo "soak: falcon-sim $c did not come back" >&2
done
if [ "$SOAK_FLEET" = 1 ]; then
	for x in a b; do
		_pf=$t_tmp/falcond.pid
		[ $x = a ] || _pf=$t_tmp/falcond-b.pid
		kill -0 "$(cat "$_pf")" 2>/dev/null || fl_falcond $x
	done
else
	soak_falcond_alive || soak_falcond_start
fi
soak_until 900 soak_falcond_ready || echo "soak: falcond not ready after 900 s" >&2
rm -f "$S/stop" "$S/outage"
soak_admin &
soak_admin_pid=$!
soak_procs &
while [ -n "$(squeue -h -o %i 2>/dev/null)" ] && [ "$(date +%s)" -lt $soak_deadline ]; do
	sleep 5
done
touch "$S/stop"
wait $soak_admin_pid 2>/dev/null || true
soak_end=$(date +%s)
echo "soak: queue $( [ -n "$(squeue -h -o %i)" ] && echo "not empty at the bound" || echo empty)," \
	"$((soak_end - soak_t0)) s; one ReconcileInterval ($SOAK_RECONCILE s)"
sleep $((SOAK_RECONCILE + 5))

# -- the counts
if [ "$SOAK_FLEET" = 1 ]; then
	mkdir -p "$S/simstate"
	for c in $soak_chassis_all; do fd_sim "$c" GET /admin/state >"$S/simstate/$c.json" || true; done
else
	fd_sim c1 GET /admin/state >"$S/simstate.json" || true
fi
# (again, 30 s at most, when a read fails: jobs may still run at the
# bound, falcond writing its ledger meanwhile)
soak_ledger_read() { fd_ledger_copy "$S/ledger.json" && [ -s "$S/ledger.json" ]; }
soak_until 30 soak_ledger_read || echo "soak: falcond --dump-ledger failed: $(fd_ledger 2>&1 | tail -n 1)" >&2
sinfo -h -R -o '%N|%E' >"$S/sinfo-R" 2>/dev/null || true
scontrol -o show reservation >"$S/reservations" 2>/dev/null || true
squeue -h -o '%i|%T|%r' >"$S/squeue" 2>/dev/null || true
# the same by each job's own id (an array task's, a hetjob component's)
squeue -h -o '%A|%T' >"$S/squeue-ids" 2>/dev/null || true
sacct -D -X -n -P -S "$(date -d "@$soak_t0" +%Y-%m-%dT%H:%M:%S)" -o JobID,State \
	>"$S/sacct" 2>/dev/null || true
# the interactive jobs by name, and every job's final state and tag
if [ -s "$S/interactive" ]; then
	sacct -X -n -P -S "$(date -d "@$soak_t0" +%Y-%m-%dT%H:%M:%S)" -o JobID,JobName 2>/dev/null |
		while IFS='|' read -r _j _name; do
			_k=$(grep "^$_name " "$S/interactive" | cut -d' ' -f2-)
			[ -z "$_k" ] || echo "$_j $_k" >>"$S/jobs"
		done
fi
sacct -X -n -P -S "$(date -d "@$soak_t0" +%Y-%m-%dT%H:%M:%S)" -o JobID,State,AdminComment \
	>"$S/tags" 2>/dev/null || true
# each job's (array task's, hetjob component's) times and GPUs
sacct -X -n -P -S "$(date -d "@$soak_t0" +%Y-%m-%dT%H:%M:%S)" \
	-o JobIDRaw,Submit,Start,End,State,AllocTRES >"$S/times" 2>/dev/null || true
# the causes falcond gave the composes it failed ("compose job N ...: NAME:
# ..."), and each lease it composed with its time ("lease L: job N on H:
# K device(s) on C (...) in S s"); both falcond's in the fleet
cat "$t_tmp/falcond.log" "$t_tmp/falcond-b.log" 2>/dev/null | grep 'warning: compose job ' \
	>"$S/falcond-compose" || true
cat "$t_tmp/falcond.log" "$t_tmp/falcond-b.log" 2>/dev/null |
	grep -E 'lease [^ ]+: job [0-9]+ on [^ ]+: [0-9]+ device\(s\) on ' >"$S/falcond-leases" || true
# why each requeue: falcon-prolog's AdminComment, as slurmctld logged setting it
grep -h 'admin_comment to falcon:requeued=' "$s_state/log/slurmctld.log" \
	>"$S/requeued-why" 2>/dev/null || true
rc=0
life_opt=
[ "$SOAK_LIFECYCLE" = 0 ] || life_opt=--lifecycle
[ "$SOAK_FLEET" = 0 ] || life_opt=--fleet
# falcond's timed logs for the report's takeover phases (the run's files
# are copied to SOAK_OUT only after it)
cp "$t_tmp/falcond.log" "$S/" 2>/dev/null || true
[ ! -f "$t_tmp/falcond-b.log" ] || cp "$t_tmp/falcond-b.log" "$S/"
python3 "$top_srcdir/tests/soak/soak-report.py" $life_opt "$S" $((soak_end - soak_t0)) |
	tee "$S/report" || true
grep -q '^soak: PASS$' "$S/report" || rc=1
if [ -n "${SOAK_OUT:-}" ]; then
	mkdir -p "$SOAK_OUT"
	cp -r "$S/." "$SOAK_OUT/"
	cp "$t_tmp"/falcond*.log "$t_tmp"/slurm-*.log "$SOAK_OUT/" 2>/dev/null || true
	for c in $soak_chassis_all; do cp "$t_tmp/sim-$c/log" "$SOAK_OUT/sim-$c.log" 2>/dev/null || true; done
	cp -r "$s_state/log" "$SOAK_OUT/slurm-log" 2>/dev/null || true
	echo "soak: logs and counts in $SOAK_OUT"
fi
[ $rc = 0 ] || t_fail "correctness counts not zero (report above)"
t_ok "soak: $i jobs, correctness counts zero"
