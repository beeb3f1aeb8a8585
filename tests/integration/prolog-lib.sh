# prolog-lib.sh - sourced by the prolog-*.sh tests and tests/bench/prolog
# after tests/lib.sh: a private munged, falcon-sim (the paper's testbed:
# node1 with 8 local V100 SXM2 on H1 and H2, drawer 1 and 2 with 4 V100
# PCIe each, an NVMe in drawer 2) whose host trees are the SysfsRoot, and
# falcond; helpers to run falcon-prolog/falcon-epilog for a job.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.

. "$top_srcdir/tests/integration/falcond-lib.sh"

PROLOG=$top_builddir/prolog/falcon-prolog
EPILOG=$top_builddir/prolog/falcon-epilog

fp_need() {
	fd_need
	[ -x "$PROLOG" ] && [ -x "$EPILOG" ] || t_skip "falcon-prolog not built (no libslurm)"
}

# fp_setup [EXTRA falcon.conf lines] - munged, falcon-sim, falcon.conf, falcond.
# FP_HOST names the Slurm node that plays the sim's node1 (default node1;
# its SysfsRoot is then the sim's node1 tree); FP_LISTEN is falcond's
# listening address (default 127.0.0.1).
fp_setup() {
	FP_HOST=${FP_HOST:-node1}
	fd_start_munged
	fd_start_sim c1 ${FP_SIM_CONFIG:-}
	FD_PORT=$(free_port)
	mkdir -p "$t_tmp/state" "$t_tmp/run" && chmod 700 "$t_tmp/state"
	FALCON_CONF=$t_tmp/falcon.conf
	export FALCON_CONF
	SYSFS=$t_tmp/sim-c1/sysfs
	cat > "$FALCON_CONF" <<EOC
StateDir=$t_tmp/state
RunDir=$t_tmp/run
SysfsRoot=$([ "$FP_HOST" = node1 ] && echo "$SYSFS/%h" || echo "$SYSFS/node1")
ListenAddress=${FP_LISTEN:-127.0.0.1}:$FD_PORT
MungeSocket=$MUNGE_SOCK
SlurmUser=root
PrologTimeout=60
RescanTimeout=${FP_RESCAN_TIMEOUT:-10}
ChassisRetries=${FP_RETRIES:-2}
NcclCheck=${FP_NCCLCHECK:-/nonexistent/falcon-ncclcheck}
ChassisName=c1 Url=http://127.0.0.1:$SIM_PORT_c1/ Backend=redfish-fabric Mode=standard Timeout=5
HostName=$FP_HOST Chassis=c1 Port=H1,H2 Adapter=0000:3b:00.0,0000:af:00.0
HostName=node2 Chassis=c1 Port=H3 Adapter=0000:3b:00.0
HostName=node3 Chassis=c1 Port=H4 Adapter=0000:3b:00.0
PartitionName=DEFAULT Place=pack Check=quick CheckAction=drain
PartitionName=warnp CheckAction=warn
PartitionName=failp CheckAction=fail
${1:-}
EOC
	fd_start_falcond
}

# fp_slurm_node - the checks of a test that runs jobs on a real cluster
# whose node plays the sim's node1: Slurm, the prolog, the host's name
# (cluster.sh's slurmdbd runs only under the host's own name); sets FP_HOST.
fp_slurm_node() {
	s_need_slurm
	fp_need
	FP_HOST=$(hostname -s)
	case $FP_HOST in node2|node3) t_skip "host name $FP_HOST is a sim host" ;; esac
}

# fp_slurm_start [s_start options...] - after fp_setup: the cluster with
# falcon-prolog/falcon-epilog as Prolog=/Epilog= (wrapped, since slurmd
# gives them an environment of its own: the wrappers name falcon.conf and
# keep their messages in $t_tmp/slurm-prolog.log and slurm-epilog.log).
fp_slurm_start() {
	for _p in prolog epilog; do
		cat >"$t_tmp/$_p.sh" <<EOS
#!/bin/sh
exec "$top_builddir/prolog/falcon-$_p" -c "$FALCON_CONF" -v 2>>"$t_tmp/slurm-$_p.log"
EOS
		chmod 0755 "$t_tmp/$_p.sh"
	done
	# PrologSlurmctld= asked for (fp_slurmctld_wrapper): its pair too
	case " $* " in
	*" --prolog-slurmctld "*) set -- "$@" --epilog-slurmctld "$t_tmp/epilog-slurmctld.sh" ;;
	esac
	s_start --prolog "$t_tmp/prolog.sh" --epilog "$t_tmp/epilog.sh" "$@"
}

# fp_spank_start [s_start options...] - after s_need_spank and fp_setup:
# fp_slurm_start with spank_falcon ($plugin, conf=$FALCON_CONF) in
# plugstack.conf and the license falcon1:16.
fp_spank_start() {
	fp_slurm_start --spank "$plugin" --spank-args "conf=$FALCON_CONF" --license falcon1:16 "$@"
}

# fp_node2_start [s_start options...] - after fp_setup (or a falcon.conf
# and falcond of the test's own): the cluster with a second node "node2"
# (cluster.sh --node2) and one Prolog=/Epilog= wrapper for both nodes, node2's
# falcon-prolog/falcon-epilog reading FP_CONF2 ($t_tmp/falcon-node2.conf,
# made by fp_node2_conf) and logging to $t_tmp/slurm-{prolog,epilog}-NODE.log.
# Sets FP_NS, node2's namespace index.
fp_node2_start() {
	FP_CONF2=$t_tmp/falcon-node2.conf
	for _p in prolog epilog; do
		cat >"$t_tmp/$_p.sh" <<EOS
#!/bin/sh
c="$FALCON_CONF"
[ "\$SLURMD_NODENAME" = node2 ] && c="$FP_CONF2"
exec "$top_builddir/prolog/falcon-$_p" -c "\$c" -v 2>>"$t_tmp/slurm-$_p-\$SLURMD_NODENAME.log"
EOS
		chmod 0755 "$t_tmp/$_p.sh"
	done
	s_start --node2 node2 --prolog "$t_tmp/prolog.sh" --epilog "$t_tmp/epilog.sh" "$@"
	FP_NS=$("$top_srcdir/scripts/cluster.sh" status "$s_state" |
		sed -n 's/.*netns falcon-ns\([0-9]*\)).*/\1/p')
	[ -n "$FP_NS" ] || t_fail "no namespace index for node2"
}

# fp_node2_conf [SED-EXPR...] - FP_CONF2 from FALCON_CONF (now) through the
# sed expressions given, default node2's own sysfs tree (SysfsRoot=
# $SYSFS/%h), with falcond reached over the veth pair (FalcondUrl=).
fp_node2_conf() {
	[ $# -gt 0 ] || set -- "s|^SysfsRoot=.*|SysfsRoot=$SYSFS/%h|"
	_fnc=""
	for _e in "$@"; do
		_fnc="$_fnc -e '$_e'"
	done
	eval "sed $_fnc" '"$FALCON_CONF"' >"$FP_CONF2" || t_fail "$FP_CONF2"
	echo "FalcondUrl=http://10.77.$FP_NS.1:$FD_PORT" >>"$FP_CONF2"
}

# fp_demo_budgets - FALCON_CONF's budgets replaced by those the quickstart
# runs with, taken from examples/falcon-demo.conf.in unchanged: its
# PrologTimeout=, EpilogTimeout=, RescanTimeout=, CheckBudget=,
# ChassisRetries=, ComposeWait= if set, and its chassis line's Timeout=
# and ChangeTimeout= if set (a test that needs a longer bound than these
# has found a bug in them).  Call before falcond starts.
fp_demo_budgets() {
	_demo=$top_srcdir/examples/falcon-demo.conf.in
	_keys='PrologTimeout|EpilogTimeout|RescanTimeout|CheckBudget|ChassisRetries|ComposeWait'
	grep -Ev "^($_keys)=" "$FALCON_CONF" >"$FALCON_CONF.new"
	grep -E "^($_keys)=" "$_demo" >>"$FALCON_CONF.new"
	_ct=$(sed -n '/^#/d; s/.*[ 	]\(Timeout=[0-9][0-9]*\).*/\1/p' "$_demo")
	_cct=$(sed -n '/^#/d; s/.*[ 	]\(ChangeTimeout=[0-9][0-9]*\).*/\1/p' "$_demo")
	[ -n "$_ct" ] || t_fail "no Timeout= on the chassis line of $_demo"
	sed -i "s/^\(ChassisName=.*\) Timeout=[0-9]*\$/\1 $_ct${_cct:+ $_cct}/" "$FALCON_CONF.new"
	mv "$FALCON_CONF.new" "$FALCON_CONF"
	echo "falcon.conf budgets: $(grep -E "^($_keys)=" "$FALCON_CONF" | tr '\n' ' ')$(sed -n 's/^ChassisName=.* \(Timeout=.*\)/\1/p' "$FALCON_CONF")"
}

# fp_falcond_with_slurm - falcond again, now asking this cluster's
# slurmctld (reconcile's slurm_load_jobs, the events' AdminComment), as
# the quickstart runs it; its log starts empty.
fp_falcond_with_slurm() {
	fd_stop_falcond
	: >"$t_tmp/falcond.log"
	FD_NO_SLURM= fd_start_falcond
}

# fp_prolog JOB TRES [NODE] [extra env...] - run falcon-prolog --no-slurm;
# its exit status in FP_RC, stderr in $t_tmp/prolog-JOB.log.
fp_prolog() {
	_j=$1 _t=$2 _n=${3:-node1}
	shift 2; [ $# -gt 0 ] && shift
	FP_RC=0
	env FALCON_TRES_PER_NODE="$_t" SLURM_JOB_ID="$_j" SLURMD_NODENAME="$_n" \
		SLURM_JOB_PARTITION="${FP_PARTITION:-}" "$@" \
		"$PROLOG" --no-slurm -v 2>"$t_tmp/prolog-$_j.log" || FP_RC=$?
}

# fp_epilog JOB [NODE] [extra env...] - run falcon-epilog --no-slurm; FP_RC,
# $t_tmp/epilog-JOB.log.
fp_epilog() {
	_j=$1 _n=${2:-node1}
	shift; [ $# -gt 0 ] && shift
	FP_RC=0
	env SLURM_JOB_ID="$_j" SLURMD_NODENAME="$_n" "$@" \
		"$EPILOG" --no-slurm -v 2>"$t_tmp/epilog-$_j.log" || FP_RC=$?
}

# fp_topo JOB EXPR - a python expression over the job's topology.json (as j).
fp_topo() {
	python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" \
		"$t_tmp/run/$1/topology.json"
}

# fp_pool_clean - no lease, nothing attached, no quarantine, no Falcon
# device left on any host's bus.
fp_pool_clean() {
	fd_invariants >/dev/null || t_fail "ledger and chassis disagree"
	fd_sim c1 GET /admin/state > "$t_tmp/simstate.json"
	fd_ledger_copy "$t_tmp/ledger.now"
	python3 - "$t_tmp/simstate.json" "$t_tmp/ledger.now" <<'EOP' || t_fail "pool not clean"
import json, sys, os
s = json.load(open(sys.argv[1]))
busy = [d["id"] for d in s["devices"] if d["owner"] or d["present"] or d["staged"]]
led = json.load(open(sys.argv[2])) if os.path.exists(sys.argv[2]) else {"leases": [], "quarantine": []}
if busy or led["leases"] or led["quarantine"]:
    print("busy:", busy, "leases:", led["leases"], "quarantine:", led["quarantine"], file=sys.stderr)
    sys.exit(1)
EOP
	for h in node1 node2 node3; do
		if ls "$SYSFS/$h/bus/pci/devices/" 2>/dev/null | grep -qE '^0000:(3[d-f]|4[0-4]|b[1-8]):'; then
			t_fail "a Falcon device left on $h's bus: $(ls "$SYSFS/$h/bus/pci/devices/")"
		fi
	done
}

# fp_wait_pool_clean [SECS] - wait (SECS, default 60, at most) for the
# epilogs to give everything back (fp_pool_clean, tried in a subshell: it
# fails the test); then fails with the epilog log's tail.
fp_pool_clean_try() { (fp_pool_clean) 2>/dev/null; }
fp_wait_pool_clean() {
	wait_for "${1:-60}" "the pool to be clean" fp_pool_clean_try ||
		{ tail -n 20 "$t_tmp/slurm-epilog.log" >&2; fp_pool_clean; }
}

# fp_slurmctld_wrapper - $t_tmp/prolog-slurmctld.sh, falcon-prolog
# --slurmctld for slurm.conf PrologSlurmctld=, and its pair
# $t_tmp/epilog-slurmctld.sh, falcon-epilog --slurmctld for
# EpilogSlurmctld= (slurmctld gives them no SLURM_CONF: the wrappers name
# it; messages in $t_tmp/slurm-{prolog,epilog}-slurmctld.log).  While a
# file $t_tmp/{prolog,epilog}-slurmctld.killed exists, that wrapper
# SIGKILLs itself as it starts.  Before fp_slurm_start, which then names
# both in slurm.conf, as the quickstart and examples/ do.
fp_slurmctld_wrapper() {
	for _p in prolog epilog; do
		cat >"$t_tmp/$_p-slurmctld.sh" <<EOS
#!/bin/sh
# \$t_tmp/$_p-slurmctld.killed: SIGKILLed as it starts, as slurmctld's
# flush of a cancelled job's scripts may kill EpilogSlurmctld
[ ! -e "$t_tmp/$_p-slurmctld.killed" ] || kill -KILL \$\$
SLURM_CONF=\$(sed -n 's/^SLURM_CONF=//p' "$s_state/env")
export SLURM_CONF
exec "$top_builddir/prolog/falcon-$_p" --slurmctld -c "$FALCON_CONF" -v 2>>"$t_tmp/slurm-$_p-slurmctld.log"
EOS
		chmod 0755 "$t_tmp/$_p-slurmctld.sh"
	done
}

# fp_not_drained - fail unless node FP_HOST is neither draining nor has a
# reason (sinfo -R).
fp_not_drained() {
	case $(sinfo -h -n "$FP_HOST" -o %T) in
	*drain*|*DRAIN*) s_logs; t_fail "node drained: $(sinfo -h -R)" ;;
	esac
	[ -z "$(sinfo -h -R -n "$FP_HOST" -o %E)" ] || t_fail "node has a reason: $(sinfo -h -R)"
}

# fp_completed JOB... - wait (240 s at most each) for the jobs to end; fail
# unless each is COMPLETED.
fp_completed() {
	for _j in "$@"; do
		wait_for 240 "job $_j to complete" s_in_state "$_j" COMPLETED FAILED CANCELLED \
			NODE_FAIL TIMEOUT || { s_logs; t_fail "job $_j: '$s_st' after 240 s"; }
		[ "$s_st" = COMPLETED ] || {
			tail -n 20 "$t_tmp/slurm-prolog-slurmctld.log" "$t_tmp/slurm-prolog.log" >&2 || true
			t_fail "job $_j: $s_st"; }
	done
}

# fp_two_chassis - the set-up of slurm-fleet.sh and slurm-hres.sh: munged,
# two falcon-sim (c1, c2), falcon.conf ($FALCON_CONF, exported) cabling
# this host's node ($FP_HOST) to c1 and "node2" to c2, each node as its
# sim's node1 (ports H1, H2), RunDir $t_tmp/run (node2's is $t_tmp/run2,
# by fp_node2_conf), ReconcileInterval=5, and falcond (not asking Slurm
# yet: fp_falcond_with_slurm once the cluster runs).  Sets FD_PORT.
fp_two_chassis() {
	fd_start_munged
	fd_start_sim c1
	fd_start_sim c2
	FD_PORT=$(free_port)
	mkdir -p "$t_tmp/state" "$t_tmp/run" "$t_tmp/run2" && chmod 700 "$t_tmp/state"
	FALCON_CONF=$t_tmp/falcon.conf
	export FALCON_CONF
	cat >"$FALCON_CONF" <<EOC
StateDir=$t_tmp/state
RunDir=$t_tmp/run
SysfsRoot=$t_tmp/sim-c1/sysfs/node1
ListenAddress=0.0.0.0:$FD_PORT
MungeSocket=$MUNGE_SOCK
SlurmUser=root
PrologTimeout=60
RescanTimeout=10
ChassisRetries=2
NcclCheck=/nonexistent/falcon-ncclcheck
ChassisName=c1 Url=http://127.0.0.1:$SIM_PORT_c1/ Backend=redfish-fabric Mode=standard Timeout=5
ChassisName=c2 Url=http://127.0.0.1:$SIM_PORT_c2/ Backend=redfish-fabric Mode=standard Timeout=5
HostName=$FP_HOST Chassis=c1 Port=H1,H2 Adapter=0000:3b:00.0,0000:af:00.0
HostName=node2 Chassis=c2 Port=H1,H2 Adapter=0000:3b:00.0,0000:af:00.0
ReconcileInterval=5
PartitionName=DEFAULT Place=pack Check=quick CheckAction=drain
EOC
	fd_start_falcond
}

# fp_advice FILE - the workload history --falcon-topology=auto reads
# (AdviceFile, as `falconctl advise --save` writes it): bert runs 1.5x as
# long on chassis GPUs as on a node's own.
fp_advice() {
	cat >"$1" <<'EOA'
{ "gpus": 4, "min_jobs": 3, "advice": [ { "workload": "bert", "baseline": "localGPUs",
  "topologies": [
    { "topology": "localGPUs", "jobs": 5, "elapsed_median_s": 100, "relative": 1.0 },
    { "topology": "falconGPUs", "jobs": 6, "elapsed_median_s": 150, "relative": 1.5 } ] } ] }
EOA
}

# fp_present C - the GPUs of chassis C on a host's bus (falcon-sim's state).
fp_present() {
	fd_sim "$1" GET /admin/state | python3 -c 'import json,sys
print(sum(1 for d in json.load(sys.stdin)["devices"] if d["present"] and d["type"] == "GPU"))'
}

# fp_logs - the prologs' and falcond's last lines, for a failure.
fp_logs() { tail -n 20 "$t_tmp"/slurm-prolog-*.log "$t_tmp/falcond.log" >&2 2>/dev/null || true; }

# fp_on_buses N1 N2 WHAT - wait (60 s) until c1's GPUs on a host's bus are
# N1 and c2's N2 ("-": either), else fail naming WHAT with the logs.
fp_on_buses() {
	_ob_k=0
	until { [ "$1" = - ] || [ "$(fp_present c1)" = "$1" ]; } &&
	      { [ "$2" = - ] || [ "$(fp_present c2)" = "$2" ]; }; do
		_ob_k=$((_ob_k + 1))
		[ $_ob_k -lt 300 ] || { fp_logs; tail -20 "$t_tmp"/slurm-epilog-*.log >&2 2>/dev/null
			t_fail "$3: $(fp_present c1) of c1's, $(fp_present c2) of c2's GPUs on the buses"; }
		sleep 0.2
	done
}
