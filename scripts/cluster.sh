#!/bin/sh
# scripts/cluster.sh - a real single-node Slurm cluster (munged, MariaDB,
# slurmdbd, slurmctld, slurmd; --node2 adds a second node) run as root, whose whole state and
# configuration live under one directory, never /etc.
#
#   cluster.sh start  STATE_DIR [options]   start what is not running (idempotent)
#   cluster.sh stop   STATE_DIR             stop what start started (pid files)
#   cluster.sh status STATE_DIR             one line per daemon; exit 1 if one is down
#   cluster.sh env    STATE_DIR             print SLURM_CONF=<path>
#   cluster.sh restart STATE_DIR DAEMON     stop slurmctld or slurmd (this host's
#                                           node; slurmd:NODE another node's) with
#                                           SIGTERM and start it again on its saved
#                                           state; a drained node stays drained
#                                           (make soak-lifecycle, soak-fleet)
#
# start options (remembered in STATE_DIR/options for the next start):
#   --node NAME          Slurm node name (default: short host name)
#   --cluster NAME       ClusterName (default falcon)
#   --cpus N             CPUs of the node (default 8; config_overrides)
#   --prolog PATH        slurm.conf Prolog=   (default none)
#   --epilog PATH        slurm.conf Epilog=   (default none)
#   --prolog-slurmctld PATH  slurm.conf PrologSlurmctld= (default none:
#                        the node prolog composes); falcon-prolog there
#                        composes before the node prolog runs
#   --epilog-slurmctld PATH  slurm.conf EpilogSlurmctld= (default none);
#                        falcon-epilog --slurmctld there gives back what a
#                        job cancelled in CONFIGURING had composed
#   --prolog-timeout S   PrologEpilogTimeout= (default 120)
#   --license NAME:N     one Licenses= entry per option, or a comma list of them
#                        (default falcon1_gpu:8,falcon1_nvme:1: the per-type pool
#                        licenses of job_submit_falcon(8))
#   --spank PATH         spank_falcon.so to name in plugstack.conf
#   --spank-args "ARGS"  its plugstack arguments (key=value ...)
#   --job-submit DIR     JobSubmitPlugins=falcon, DIR (where
#                        job_submit_falcon.so is) added to Slurm's own
#                        PluginDir; "" = none (default)
#   --falcon-conf PATH   FALCON_CONF in slurmctld's environment (the
#                        falcon.conf job_submit_falcon reads); default: the
#                        caller's FALCON_CONF
#   --examples DIR       where slurm.conf.in & co. are (default ../examples)
#   --gpus N             the node's own GPUs as a "gpu" GRES (Gres=gpu:N
#                        beside falcon_gpu; gpu + falcon_gpu = hybridGPUs),
#                        File= stand-ins STATE_DIR/dev/nvidia0..N-1
#                        (character devices c 195 0..N-1); default 0 = none
#   --node2 NAME         a second slurmd, node NAME, in its own network
#                        namespace (ip netns, a veth pair 10.77.N.1/.2) and
#                        UTS namespace (hostname NAME); "" = none
#   --nodes N            N nodes in all: this host's node and node2..nodeN,
#                        each of those in its own network and UTS namespace
#                        as --node2's (replaces --node2; default 1).
#                        With --node2 or --nodes, this host's node is
#                        reached at 10.77.F.1 (not 127.0.0.1) and the nodes
#                        reach each other through this host, which
#                        forwards IPv4 while they exist (Slurm's message
#                        tree sends from node to node); 64 nodes start here
#                        in about 90 s, 5-6 MiB per slurmd
#   --features SPEC      node features (slurm.conf Features=), SPEC a space
#                        list of NODE=FEAT[,FEAT...] (e.g. the chassis
#                        features of job_submit_falcon(8): "vm=falcon_c1
#                        node2=falcon_c2"); "" = none
#   --gres SPEC          node Gres=, SPEC a space list of NODE=GRES[,GRES...]
#                        (the Gres= of falconctl slurm-conf's NodeName=
#                        lines: "vm=falcon_gpu:4,falcon_nvme:1 node2=...");
#                        a node not named has falcon_gpu:16,falcon_nvme:2
#                        (after --gpus' gpu:N on this host's node); "" =
#                        that for every node (the default).  A gpu:N in
#                        another node's GRES gets File= stand-ins as
#                        --gpus' (make soak-fleet: nodes with local GPUs)
#   --gres-conf FILE     gres.conf copied instead of examples/gres.conf
#                        (falconctl slurm-conf's CountOnly lines); "" = the
#                        example's (--gpus' lines are added to either)
#   --partition NAME     another partition NAME over all nodes, beside
#                        debug and small (ADMIN.md's "gpu"); "" = none
#   --hres FILE          resources.yaml (Slurm 25.11+ HRES; falconctl
#                        slurm-conf writes one) copied beside slurm.conf;
#                        "" = none
#   --preempt MODE       preemption by partition (doc/ADMIN.md, "Preemption"):
#                        PreemptType=preempt/partition_prio, PreemptMode=MODE
#                        (REQUEUE or CANCEL), on Slurm 23.02+
#                        PreemptParameters=reclaim_licenses (a job waiting
#                        for pool licenses preempts; 22.05 has no such
#                        parameter and rejects the key), and the partition
#                        "urgent" (all nodes, PriorityTier=10) whose jobs
#                        preempt the others'; "" = none (the default)
#
# Devices: proctrack/cgroup, task/cgroup and STATE_DIR/etc/cgroup.conf
# (examples/cgroup.conf: cgroup/v1, ConstrainDevices=yes; spank_falcon's
# device isolation) where the host has writable cgroup v1 freezer and
# devices controllers, else proctrack/linuxproc and task/none with a note;
# FALCON_CLUSTER_CGROUP=no forces the latter.
#
# Ports are picked free on 127.0.0.1, below the kernel's ephemeral range
# (free_port, scripts/lib.sh), at the first start and kept in
# STATE_DIR/ports.  Processes are stopped by their pid files only.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
set -eu

prog=cluster.sh
die() { echo "$prog: error: $*" >&2; exit 1; }
say() { echo "$prog: $*" >&2; }

usage() {
	sed -n '2,/^# Copyright/{/^# Copyright/d;s/^# \{0,1\}//p;}' "$0" >&2
	exit 2
}

[ $# -ge 2 ] || usage
cmd=$1; shift
case $1 in
/*) state=$1 ;;
*) state=$(pwd)/$1 ;;
esac
shift

etc=$state/etc
run=$state/run
log=$state/log
munge_dir=$state/munge
db_dir=$state/mysql
slurm_conf=$etc/slurm.conf
bin_dir=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$bin_dir/lib.sh"

# slurm_plugindir - the directory of Slurm's own plugins (PluginDir's
# default), found by one of them.
# slurm_at_least MAJOR MINOR - is the installed slurmctld release at least
# MAJOR.MINOR ("slurmctld -V": "slurm 24.11.5")?
slurm_at_least() {
	v=$(slurmctld -V 2>/dev/null | awk '{print $2}')
	maj=${v%%.*}; rest=${v#*.}; min=${rest%%.*}
	[ -n "$maj" ] && [ "$maj" -gt "$1" ] 2>/dev/null ||
		{ [ "$maj" = "$1" ] && [ "${min#0}" -ge "$2" ]; } 2>/dev/null
}

slurm_plugindir() {
	for d in /usr/lib/*/slurm-wlm /usr/lib64/slurm /usr/lib/slurm /usr/local/lib/slurm; do
		[ -f "$d/select_cons_tres.so" ] && { echo "$d"; return 0; }
	done
	die "Slurm's plugin directory (select_cons_tres.so) not found"
}

daemons="slurmd slurmctld slurmdbd mariadbd munged"
pidfile_of() {
	case $1 in
	munged) echo "$munge_dir/munged.pid" ;;
	mariadbd) echo "$db_dir/mariadbd.pid" ;;
	slurmdbd) echo "$run/slurmdbd.pid" ;;
	slurmctld) echo "$run/slurmctld.pid" ;;
	slurmd) echo "$run/slurmd-$node.pid" ;;
	slurmd:*) echo "$run/slurmd-${1#slurmd:}.pid" ;;
	esac
}

load_saved() {
	[ -f "$state/options" ] && . "$state/options"
	[ -f "$state/ports" ] && . "$state/ports"
	: "${node:=$(hostname -s)}" "${node2:=}" "${NETNS_INDEX:=}" "${nodes:=}" "${features:=}" "${hres:=}"
	: "${gres:=}" "${gres_conf:=}" "${partition:=}"
	extras=$(extra_nodes)
	return 0
}

# extra_nodes - the nodes beside this host's, each in its own namespaces:
# node2..nodeN for --nodes N, else --node2's name (or none).
extra_nodes() {
	if [ -n "$nodes" ] && [ "$nodes" -gt 1 ]; then
		seq -f 'node%g' 2 "$nodes" | tr '\n' ' '
	else
		echo "$node2"
	fi
}

# stop_steps - kill the slurmstepd of this cluster's jobs and the jobs'
# processes once its slurmd is gone (a test that failed with jobs running
# left them behind, "slurmstepd: [1.batch]" and its "sleep 300", for
# hours).  Ours are a slurmstepd or a slurmd (its daemon is stopped by
# now: a child it forked for a step and that had not yet become slurmstepd)
# whose environment has our SLURM_CONF (slurmd passes its own on) or that
# holds a file of our state directory open (its log: slurmstepd's process
# title overwrites the environment /proc shows, as in Slurm 24.11 and
# 26.05), and the processes with our SLURM_CONF that carry SLURM_JOB_ID
# (the jobs).  Again until a pass finds none (10 passes at most).  The
# candidates come from two greps over /proc (the environments that hold our
# SLURM_CONF, the processes named slurmstepd or slurmd), not from a fork per
# process of the machine: under test-all's load, with every other test's
# processes in /proc, a pass of those cost seconds of CPU.
stop_steps() {
	_ss_i=0
	while [ $_ss_i -lt 10 ]; do
		_ss_n=0
		_ss_env=" $(grep -lzxF "SLURM_CONF=$slurm_conf" /proc/[0-9]*/environ 2>/dev/null |
			sed 's|/environ$||' | tr '\n' ' ') "
		_ss_dmn=$(grep -lE '^(slurmstepd|slurmd)' /proc/[0-9]*/comm 2>/dev/null | sed 's|/comm$||')
		for d in $(printf '%s\n' $_ss_env $_ss_dmn | sort -u); do
			case $_ss_env in *" $d "*) _ss_ours=yes ;; *) _ss_ours=no ;; esac
			case $(tr '\0' ' ' <"$d/cmdline" 2>/dev/null) in
			slurmstepd:*|slurmd|slurmd\ *)
				[ $_ss_ours = yes ] ||
					ls -l "$d/fd/" 2>/dev/null | grep -qF -- "-> $state/" || continue ;;
			*)
				[ $_ss_ours = yes ] || continue
				tr '\0' '\n' <"$d/environ" 2>/dev/null | grep -q '^SLURM_JOB_ID=' || continue ;;
			esac
			kill -KILL "${d#/proc/}" 2>/dev/null && _ss_n=$((_ss_n + 1))
		done
		[ $_ss_n -gt 0 ] || break
		_ss_i=$((_ss_i + 1))
		sleep 0.5
	done
}

cmd_stop() {
	load_saved
	for x in $extras; do
		stop_pid slurmd "$(pidfile_of "slurmd:$x")"
		netns_down "$x"
	done
	netns_forward_restore
	for d in $daemons; do
		stop_pid "$d" "$(pidfile_of $d)"
	done
	stop_steps
}

cmd_status() {
	load_saved
	rc=0
	for d in munged mariadbd slurmdbd slurmctld slurmd; do
		f=$(pidfile_of $d)
		if pid_alive "$d" "$f"; then
			echo "$d running (pid $(head -n1 "$f"))"
		else
			echo "$d stopped"; rc=1
		fi
	done
	for x in $extras; do
		if pid_alive slurmd "$(pidfile_of "slurmd:$x")"; then
			echo "slurmd $x running (pid $(head -n1 "$(pidfile_of "slurmd:$x")"), netns $(netns_name "$x"))"
		else
			echo "slurmd $x stopped"; rc=1
		fi
	done
	return $rc
}

# fill TEMPLATE OUT - replace every @VAR@ of TEMPLATE by the value of the
# shell variable t_VAR.
fill() {
	sedscript=$state/.fill.sed
	: >"$sedscript"
	for v in CLUSTER NODE NODE_ADDR NODE_GRES NODE_FEATURES PARTITION_LINE NODE2_LINE CTLD_ADDR CTLD_PORT SLURMD_PORT DBD_PORT DB_PORT DB_PASS \
		PROCTRACK_TYPE TASK_PLUGIN \
		MUNGE_SOCKET STATE_DIR CPUS PROLOG_TIMEOUT PROLOG_LINE \
		EPILOG_LINE PROLOG_SLURMCTLD_LINE LICENSE_TRES LICENSES_LINE SPANK_LINE PLUGINDIR_LINE JOB_SUBMIT_LINE \
		PREEMPT_LINES PREEMPT_PARTITION_LINE; do
		eval "val=\${t_$v}"
		# (several lines: joined by sed's \n)
		esc=$(printf '%s' "$val" | sed -e 's/[\\|&]/\\&/g' | sed -e ':a' -e 'N' -e '$!ba' -e 's/\n/\\n/g')
		printf 's|@%s@|%s|g\n' "$v" "$esc" >>"$sedscript"
	done
	sed -f "$sedscript" "$1" >"$2.tmp"
	if grep -v '^#' "$2.tmp" | grep -q '@[A-Z_]*@'; then
		die "$1: unfilled variable: $(grep -v '^#' "$2.tmp" | grep -o '@[A-Z_]*@' | head -1)"
	fi
	mv "$2.tmp" "$2"
	rm -f "$sedscript"
}

# cgroup_v1_ok - the host has the cgroup v1 controllers that proctrack/cgroup
# (freezer) and task/cgroup's ConstrainDevices (devices) need, mounted
# read-write under /sys/fs/cgroup (cgroup.conf's CgroupMountpoint default),
# and root may make a cgroup there.  Slurm 22.05's cgroup/v2 refuses a
# hybrid host (cgroup v1 controllers beside /sys/fs/cgroup/unified).
cgroup_v1_ok() {
	for c in freezer devices; do
		awk -v m=/sys/fs/cgroup/$c '$5 == m && $4 == "/" && $0 ~ / - cgroup .*[ ,]rw(,|$)/ \
			{ ok = 1 } END { exit !ok }' /proc/self/mountinfo || return 1
	done
	probe=/sys/fs/cgroup/devices/falcon-cluster-probe.$$
	mkdir "$probe" 2>/dev/null || return 1
	rmdir "$probe"
}

# cgroup_clean_node - remove the empty cgroups a previous slurmd of this
# node left (slurm_NODE/uid_*/job_*/step_*..., deepest first): a new job
# of the same id must not inherit the old one's device rules.
cgroup_clean_node() {
	for c in /sys/fs/cgroup/*/slurm_"$1"; do
		[ -d "$c" ] || continue
		find "$c" -mindepth 1 -depth -type d -exec rmdir {} + 2>/dev/null || true
	done
}

# cgroup_setup - ProctrackType/TaskPlugin for slurm.conf and STATE_DIR/etc/
# cgroup.conf (examples/cgroup.conf: cgroup/v1, ConstrainDevices=yes, which
# spank_falcon's device isolation needs) where the host supports it; else
# today's proctrack/linuxproc and task/none, with a note.
cgroup_setup() {
	if [ "${FALCON_CLUSTER_CGROUP:-yes}" != no ] && cgroup_v1_ok; then
		t_PROCTRACK_TYPE=proctrack/cgroup
		t_TASK_PLUGIN=task/cgroup
		cp "$examples/cgroup.conf" "$etc/cgroup.conf"
		chmod 0644 "$etc/cgroup.conf"
		cgroup_clean_node "$node"
		for x in $extras; do cgroup_clean_node "$x"; done
	else
		t_PROCTRACK_TYPE=proctrack/linuxproc
		t_TASK_PLUGIN=task/none
		rm -f "$etc/cgroup.conf"
		say "note: proctrack/linuxproc and task/none, devices not constrained" \
			"(no writable cgroup v1 freezer and devices controllers under" \
			"/sys/fs/cgroup, or FALCON_CLUSTER_CGROUP=no)"
	fi
}

start_munged() {
	f=$(pidfile_of munged)
	pid_alive munged "$f" && return 0
	mkdir -p "$munge_dir"; chmod 0755 "$munge_dir"
	if [ ! -s "$munge_dir/munge.key" ]; then
		(umask 077; dd if=/dev/urandom of="$munge_dir/munge.key" bs=1024 count=1 2>/dev/null)
	fi
	chmod 0600 "$munge_dir/munge.key"
	rm -f "$munge_dir/munge.sock" "$munge_dir/munge.sock.lock"
	munged --socket="$munge_dir/munge.sock" --key-file="$munge_dir/munge.key" \
		--pid-file="$f" --log-file="$munge_dir/munged.log" \
		--seed-file="$munge_dir/munged.seed" ||
		die "munged failed: $(tail -3 "$munge_dir/munged.log" 2>/dev/null)"
	wait_for 10 "munged to answer on $munge_dir/munge.sock" sh -c "munge -S '$munge_dir/munge.sock' -n | unmunge -S '$munge_dir/munge.sock'" ||
		die "munged does not answer on $munge_dir/munge.sock"
	say "munged running"
}

db_sql() { mariadb --no-defaults -S "$db_dir/mysqld.sock" -u root "$@"; }

# The server's temporary files go to the state directory, not /tmp: two
# bootstraps at once (two clusters of concurrent tests) sharing /tmp failed
# "Could not remove temporary table: '/tmp/#sql-temptable-...', error: 2".
# Made with the buffer pool and redo log sizes the server then runs with:
# with the server's defaults the data directory was 114 MB (a 96 MB redo
# log, resized at the first start), 34 MB with them; a test-all run made
# about 50 (132 mariadbd processes in one run, process accounting).
db_install() {
	rm -rf "$db_dir/data" "$db_dir/tmp"
	mkdir -p "$db_dir/data" "$db_dir/tmp"
	mariadb-install-db --no-defaults --user=root --datadir="$db_dir/data" \
		--tmpdir="$db_dir/tmp" --innodb-buffer-pool-size=32M --innodb-log-file-size=16M \
		--auth-root-authentication-method=socket --skip-test-db \
		>>"$log/mariadb-install.log" 2>&1
}

db_install_errors() {
	grep -i -E 'error|fatal|abort' "$log/mariadb-install.log" | tail -n 3 | tr '\n' ' '
}

start_mariadb() {
	f=$(pidfile_of mariadbd)
	if ! pid_alive mariadbd "$f"; then
		if [ ! -d "$db_dir/data/mysql" ]; then
			db_install || {
				# Seen once under load, not reproduced: say why, try again.
				say "mariadb-install-db failed ($(db_install_errors)); retrying once"
				db_install || die "mariadb-install-db failed: $(db_install_errors)"
			}
		fi
		# setsid + nohup: the server outlives this script and its terminal.
		mkdir -p "$db_dir/tmp"
		setsid nohup mariadbd --no-defaults --user=root --datadir="$db_dir/data" \
			--tmpdir="$db_dir/tmp" \
			--socket="$db_dir/mysqld.sock" --pid-file="$f" \
			--port="$DB_PORT" --bind-address=127.0.0.1 --skip-name-resolve \
			--log-error="$log/mariadbd.log" --innodb-buffer-pool-size=32M \
			--innodb-log-file-size=16M --performance-schema=off \
			</dev/null >/dev/null 2>&1 &
		wait_for 60 "mariadbd to answer on $db_dir/mysqld.sock" mariadb-admin --no-defaults -S "$db_dir/mysqld.sock" ping ||
			die "MariaDB did not start, see $log/mariadbd.log"
		say "mariadbd running on 127.0.0.1:$DB_PORT"
	fi
	# The database is made here, not by slurmdbd: on a missing database
	# slurmdbd creates it and connects again with the same MYSQL handle,
	# and libmariadb 3.4.10 (Debian 13's libmariadb3 1:11.8.9) then fails
	# the first query on that handle with 5027 "Number of columns in result
	# (=1) set execeeds maxmimum allowed number of columns (=0)" (slurmdbd:
	# fatal: _check_mysql_concat_is_sane).  A connect that finds the
	# database never takes that path, with any libmariadb.
	db_sql -e "CREATE DATABASE IF NOT EXISTS slurm_acct_db;
		CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY '$DB_PASS';
		CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY '$DB_PASS';
		GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
		GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';" ||
		die "cannot create the slurm database and its user"
}

start_slurmdbd() {
	f=$(pidfile_of slurmdbd)
	if ! pid_alive slurmdbd "$f"; then
		SLURM_CONF=$slurm_conf slurmdbd ||
			die "slurmdbd failed, see $log/slurmdbd.log"
	fi
	wait_for 60 "slurmdbd to answer sacctmgr" env SLURM_CONF="$slurm_conf" sacctmgr -n list cluster ||
		die "slurmdbd does not answer, see $log/slurmdbd.log"
	export SLURM_CONF=$slurm_conf
	if ! sacctmgr -n -P list cluster format=cluster | grep -qx "$cluster"; then
		sacctmgr -i add cluster "$cluster" >/dev/null || die "sacctmgr add cluster failed"
	fi
	if ! sacctmgr -n -P list account format=account | grep -qx falcon; then
		sacctmgr -i add account falcon cluster="$cluster" \
			description="falcon-slurm tests" organization=falcon >/dev/null ||
			die "sacctmgr add account failed"
	fi
	if ! sacctmgr -n -P list assoc cluster="$cluster" user=root account=falcon \
		format=user | grep -qx root; then
		sacctmgr -i add user root account=falcon cluster="$cluster" >/dev/null ||
			die "sacctmgr add user failed"
	fi
	say "slurmdbd running on 127.0.0.1:$DBD_PORT"
}

start_slurmctld() {
	f=$(pidfile_of slurmctld)
	if pid_alive slurmctld "$f"; then
		[ "$conf_changed" = no ] || SLURM_CONF=$slurm_conf scontrol reconfigure ||
			die "scontrol reconfigure failed"
		return 0
	fi
	# FALCON_CONF: the falcon.conf job_submit_falcon reads
	if [ -n "$falcon_conf" ]; then
		FALCON_CONF=$falcon_conf SLURM_CONF=$slurm_conf slurmctld -i ||
			die "slurmctld failed, see $log/slurmctld.log"
	else
		SLURM_CONF=$slurm_conf slurmctld -i || die "slurmctld failed, see $log/slurmctld.log"
	fi
	wait_for 60 "slurmctld to answer scontrol ping" env SLURM_CONF="$slurm_conf" scontrol ping ||
		die "slurmctld does not answer, see $log/slurmctld.log"
	say "slurmctld running on 127.0.0.1:$CTLD_PORT"
}

node_state() { SLURM_CONF=$slurm_conf sinfo -h -n "$node" -o %t 2>/dev/null; }

# node_up - the node is idle or runs jobs (its state in st); a drained or
# down one is resumed (a condition for wait_for).
node_up() {
	st=$(node_state)
	case $st in
	idle|mix|mixed|alloc|allocated) return 0 ;;
	*drain*|down*) SLURM_CONF=$slurm_conf scontrol update nodename="$node" \
		state=resume >/dev/null 2>&1 || true ;;
	esac
	return 1
}

start_slurmd() {
	f=$(pidfile_of slurmd)
	if ! pid_alive slurmd "$f"; then
		SLURM_CONF=$slurm_conf slurmd -N "$node" ||
			die "slurmd failed, see $log/slurmd-$node.log"
	fi
	wait_for 60 "node $node to be idle" node_up ||
		die "node $node is '$st', not idle after 60 s; see $log/slurmd-$node.log"
	say "slurmd running, node $node $st"
}

# The other nodes' networks: node X in namespace falcon-nsN, veth falconNa
# (here, 10.77.N.1) <-> falconNb (there, 10.77.N.2, a host route via .1
# to the first one's address, where slurmctld listens).
# N is picked free at the first start and kept in STATE_DIR/ports
# (NETNS_INDEX for the first, NETNS_INDEX_<node> for the others).
netns_index() {
	if [ "$1" = "$(echo $extras | cut -d' ' -f1)" ]; then
		echo "$NETNS_INDEX"
	else
		eval "echo \${NETNS_INDEX_$(echo "$1" | tr -c 'A-Za-z0-9_\n' _):-}"
	fi
}
netns_name() { echo "falcon-ns$(netns_index "$1")"; }

netns_pick() {
	n=1
	while [ $n -lt 250 ]; do
		if ! ip netns list 2>/dev/null | grep -q "^falcon-ns$n\b" &&
			! ip -o addr show 2>/dev/null | grep -q " 10\.77\.$n\." &&
			! grep -q "^NETNS_INDEX[A-Za-z0-9_]*=$n\$" "$state/ports" 2>/dev/null; then
			echo $n; return 0
		fi
		n=$((n + 1))
	done
	die "no free 10.77.N.0/24 for another node"
}

# netns_route NS I - the namespace's route to 10.77.0.0/16 via its own
# veth peer (this host): slurmctld's address (the first namespace's
# 10.77.F.1, on this host) and the other nodes' 10.77.J.2, which Slurm's
# message tree needs: a slurmd forwards a step's launch and other messages
# to nodes beyond TreeWidth's fan-out, so with 16 nodes on Slurm 22.05 an
# `srun` over all of them failed "Communication connection failure" when
# the nodes reached only slurmctld.  This host forwards between the
# namespaces (netns_forward).  Not a default route: with one, a name
# lookup in the namespace (slurmd and slurmstepd resolve node names) goes
# to resolv.conf's servers through a host that does not forward them and
# waits out the resolver's timeouts, and Slurm 24.11's slurmctld gave up on
# the node (its messages timed out, jobs stayed COMPLETING).
netns_route() {
	ip netns exec "$1" ip route add 10.77.0.0/16 via "10.77.$2.1"
}

# netns_forward - IPv4 forwarding on in this network namespace (the
# nodes' traffic to each other goes through it); when it was off, the
# state directory remembers so, and stop turns it off again once no
# cluster's node namespace is left.  Under tests/isolate.sh this is the
# test's own network namespace; by hand, the machine's.
netns_forward() {
	[ "$(cat /proc/sys/net/ipv4/ip_forward)" = 1 ] && return 0
	echo 1 >/proc/sys/net/ipv4/ip_forward || die "cannot turn on net.ipv4.ip_forward"
	: >"$state/ip_forward.was-off"
}
netns_forward_restore() {
	[ -f "$state/ip_forward.was-off" ] || return 0
	rm -f "$state/ip_forward.was-off"
	ip netns list 2>/dev/null | grep -q '^falcon-ns' ||
		echo 0 >/proc/sys/net/ipv4/ip_forward 2>/dev/null || true
}

netns_up() {
	i=$(netns_index "$1")
	ns=falcon-ns$i
	ip netns list 2>/dev/null | grep -q "^$ns\b" && return 0
	ip netns add "$ns" || die "ip netns add $ns failed"
	ip link add "falcon${i}a" type veth peer name "falcon${i}b" &&
	ip link set "falcon${i}b" netns "$ns" &&
	ip addr add "10.77.$i.1/24" dev "falcon${i}a" &&
	ip link set "falcon${i}a" up &&
	ip netns exec "$ns" ip addr add "10.77.$i.2/24" dev "falcon${i}b" &&
	ip netns exec "$ns" ip link set "falcon${i}b" up &&
	ip netns exec "$ns" ip link set lo up &&
	netns_route "$ns" "$i" ||
		{ netns_down "$1"; die "cannot set up the veth pair of $ns"; }
}

netns_down() {
	i=$(netns_index "$1")
	[ -n "$i" ] || return 0
	ns=falcon-ns$i
	ip netns list 2>/dev/null | grep -q "^$ns\b" || return 0
	ip link del "falcon${i}a" 2>/dev/null || true
	ip netns del "$ns" 2>/dev/null || true
}

extra_idle() {
	[ "$(SLURM_CONF=$slurm_conf sinfo -h -n "$1" -o %t 2>/dev/null)" = idle ]
}

# start_extra NODE - its namespaces and its slurmd (not waited for).
start_extra() {
	f=$(pidfile_of "slurmd:$1")
	netns_up "$1"
	if ! pid_alive slurmd "$f"; then
		mkdir -p "$state/spool/$1"
		# nsenter, not "ip netns exec": that remounts /sys, hiding
		# /sys/fs/cgroup, and slurmd then fails to start.
		nsenter --net="/run/netns/$(netns_name "$1")" unshare --uts sh -c \
			'hostname "$1" && SLURM_CONF="$2" exec slurmd -N "$1"' sh "$1" "$slurm_conf" ||
			die "slurmd $1 failed, see $log/slurmd-$1.log"
	fi
}

# start_extras - every other node's slurmd, then wait for all to be idle.
start_extras() {
	for x in $extras; do start_extra "$x"; done
	for x in $extras; do
		wait_for 60 "node $x to be idle" extra_idle "$x" ||
			die "node $x not idle after 60 s; see $log/slurmd-$x.log"
		say "slurmd $x running in netns $(netns_name "$x"), node $x idle"
	done
}

# features_of NODE - " Features=..." of NODE in --features, or nothing.
features_of() {
	for fs in $features; do
		[ "${fs%%=*}" = "$1" ] && { printf ' Features=%s' "${fs#*=}"; return 0; }
	done
	return 0
}

# gres_of NODE - the node's Gres= value: --gres's for NODE, else
# falcon_gpu:16,falcon_nvme:2 (after --gpus' gpu:N on this host's node).
gres_of() {
	for gs in $gres; do
		[ "${gs%%=*}" = "$1" ] && { printf '%s' "${gs#*=}"; return 0; }
	done
	if [ "$1" = "$node" ] && [ "$gpus" != 0 ]; then
		printf 'gpu:%s,' "$gpus"
	fi
	printf 'falcon_gpu:16,falcon_nvme:2'
}

# gpu_count NODE - N of the "gpu:N" in the node's Gres= (gres_of), or 0.
gpu_count() {
	gres_of "$1" | tr ',' '\n' | sed -n 's/^gpu:\([0-9][0-9]*\)$/\1/p' | grep . || echo 0
}

# gpu_standins - the nodes' own GPUs (--gpus on this host's node, a gpu:N
# in another node's --gres) as gres.conf File= lines.
# Slurm 22.05's gres/gpu drops a gpu line without File= (even with
# Flags=CountOnly), and under ConstrainDevices one whose file is not a
# device ("not a valid character or block device"): character devices
# c 195 N (NVIDIA's major) in the state directory.  Without a driver an
# allowed open() fails ENXIO and a denied one EPERM.  Slurm hands their
# indices to the prolog as SLURM_JOB_GPUS.
gpu_standins() {
	mkdir -p "$state/dev"
	for gn in $node $extras; do
		ng=$(gpu_count "$gn")
		[ "$ng" != 0 ] || continue
		i=0
		while [ $i -lt "$ng" ]; do
			f=$state/dev/nvidia$i
			[ -c "$f" ] || { rm -f "$f"; mknod -m 0666 "$f" c 195 $i; } ||
				die "mknod $f c 195 $i failed"
			i=$((i + 1))
		done
		printf '%s\n' "# cluster.sh --gpus/--gres: $gn's own GPUs (stand-ins c 195 N)" \
			"NodeName=$gn Name=gpu File=$state/dev/nvidia[0-$((ng - 1))]" >>"$etc/gres.conf"
	done
}

cmd_start() {
	[ "$(id -u)" = 0 ] || die "run as root"
	for b in munged munge mariadbd mariadb-install-db slurmdbd slurmctld slurmd sinfo sacctmgr; do
		command -v $b >/dev/null 2>&1 || die "$b not found (scripts/install-deps.sh)"
	done
	mkdir -p "$state"
	chmod 0755 "$state"
	node=""; cluster=""; cpus=""; prolog=""; epilog=""; prolog_timeout=""; prolog_ctld=""; epilog_ctld=""
	licenses=""; spank=""; spank_args=""; examples=""; node2=""; gpus=""; nodes=""; features=""
	hres=""; preempt=""; gres=""; gres_conf=""; partition=""
	job_submit=""; falcon_conf=""
	load_saved
	got_licenses=no
	while [ $# -gt 0 ]; do
		[ $# -ge 2 ] || die "$1: missing value"
		case $1 in
		--node) node=$2 ;;
		--cluster) cluster=$2 ;;
		--cpus) cpus=$2 ;;
		--prolog) prolog=$2 ;;
		--epilog) epilog=$2 ;;
		--prolog-slurmctld) prolog_ctld=$2 ;;
		--epilog-slurmctld) epilog_ctld=$2 ;;
		--prolog-timeout) prolog_timeout=$2 ;;
		--license)
			[ $got_licenses = yes ] || licenses=""
			got_licenses=yes
			printf '%s\n' "$2" | grep -Eqx '[A-Za-z0-9_]+:[0-9]+(,[A-Za-z0-9_]+:[0-9]+)*' ||
				die "--license $2: expected NAME:COUNT[,NAME:COUNT...]"
			licenses="${licenses:+$licenses,}$2" ;;
		--spank) spank=$2 ;;
		--spank-args) spank_args=$2 ;;
		--job-submit) job_submit=$2 ;;
		--falcon-conf) falcon_conf=$2 ;;
		--examples) examples=$2 ;;
		--node2) node2=$2; nodes="" ;;
		--nodes) printf '%s\n' "$2" | grep -Eqx '[1-9][0-9]*' || die "--nodes $2: expected a count >= 1"
			nodes=$2; node2="" ;;
		--features) features=$2 ;;
		--hres) hres=$2 ;;
		--gres) gres=$2 ;;
		--gres-conf) gres_conf=$2 ;;
		--partition) printf '%s\n' "$2" | grep -Eqx '[A-Za-z0-9_]*' ||
			die "--partition $2: expected a partition name"
			partition=$2 ;;
		--preempt) case $2 in ''|REQUEUE|CANCEL) preempt=$2 ;;
			*) die "--preempt $2: expected REQUEUE or CANCEL" ;; esac ;;
		--gpus) printf '%s\n' "$2" | grep -Eqx '[0-9]+' || die "--gpus $2: expected a count"
			gpus=$2 ;;
		*) die "unknown option $1" ;;
		esac
		shift 2
	done
	: "${cluster:=falcon}" "${cpus:=8}" "${prolog_timeout:=120}" "${gpus:=0}"
	: "${licenses:=falcon1_gpu:8,falcon1_nvme:1}" "${examples:=$bin_dir/../examples}"
	for f in slurm.conf.in gres.conf plugstack.conf.in slurmdbd.conf.in cgroup.conf; do
		[ -f "$examples/$f" ] || die "$examples/$f not found (--examples DIR)"
	done
	for f in "$prolog" "$epilog" "$prolog_ctld" "$epilog_ctld" "$spank" "$job_submit" "$falcon_conf" "$hres" \
		"$gres_conf"; do
		[ -z "$f" ] || [ -e "$f" ] || die "$f: no such file"
	done
	{
		for v in node cluster cpus prolog epilog prolog_ctld epilog_ctld prolog_timeout licenses spank \
			spank_args examples node2 gpus job_submit falcon_conf nodes features hres preempt \
			gres gres_conf partition; do
			eval "val=\$$v"
			printf "%s='%s'\n" "$v" "$(printf '%s' "$val" | sed "s/'/'\\\\''/g")"
		done
	} >"$state/options"
	if [ ! -f "$state/ports" ]; then
		{
			echo "CTLD_PORT=$(free_port)"; echo "SLURMD_PORT=$(free_port)"
			echo "DBD_PORT=$(free_port)"; echo "DB_PORT=$(free_port)"
			echo "DB_PASS=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
		} >"$state/ports"
	fi
	. "$state/ports"
	extras=$(extra_nodes)
	for x in $extras; do
		[ -z "$(netns_index "$x")" ] || continue
		command -v ip >/dev/null 2>&1 && command -v unshare >/dev/null 2>&1 &&
			command -v nsenter >/dev/null 2>&1 ||
			die "--node2/--nodes need ip (iproute2), unshare and nsenter (util-linux)"
		if [ -z "${NETNS_INDEX:-}" ]; then
			NETNS_INDEX=$(netns_pick)
			echo "NETNS_INDEX=$NETNS_INDEX" >>"$state/ports"
		else
			echo "NETNS_INDEX_$(echo "$x" | tr -c 'A-Za-z0-9_\n' _)=$(netns_pick)" >>"$state/ports"
		fi
		. "$state/ports"
	done

	mkdir -p "$etc" "$run" "$log" "$state/ctld" "$state/spool/$node"
	t_CLUSTER=$cluster; t_NODE=$node; t_CTLD_PORT=$CTLD_PORT
	t_NODE_GRES=$(gres_of "$node")
	# With a second node in its own namespace, slurmctld is reached on the
	# veth address (it listens on all addresses); else on loopback.
	t_CTLD_ADDR=127.0.0.1
	t_NODE2_LINE="# (none)"
	t_NODE_FEATURES=$(features_of "$node")
	# ... and this host's node by the same address, not loopback: the
	# other nodes send it what Slurm's message tree forwards (a step's
	# launch), and their loopback is their own (an srun over 16 nodes
	# failed "Job credential replayed" on this host's node)
	t_NODE_ADDR=127.0.0.1
	if [ -n "$extras" ]; then
		t_CTLD_ADDR=10.77.$NETNS_INDEX.1
		t_NODE_ADDR=$t_CTLD_ADDR
		t_NODE2_LINE=$(for x in $extras; do
			echo "NodeName=$x NodeAddr=10.77.$(netns_index "$x").2 CPUs=$cpus RealMemory=1024 Gres=$(gres_of "$x")$(features_of "$x") State=UNKNOWN"
		done)
	fi
	t_SLURMD_PORT=$SLURMD_PORT; t_DBD_PORT=$DBD_PORT; t_DB_PORT=$DB_PORT
	t_DB_PASS=$DB_PASS; t_MUNGE_SOCKET=$munge_dir/munge.sock; t_STATE_DIR=$state
	t_CPUS=$cpus; t_PROLOG_TIMEOUT=$prolog_timeout
	t_PROLOG_LINE="#Prolog= (none)"; [ -z "$prolog" ] || t_PROLOG_LINE="Prolog=$prolog"
	t_EPILOG_LINE="#Epilog= (none)"; [ -z "$epilog" ] || t_EPILOG_LINE="Epilog=$epilog"
	t_PROLOG_SLURMCTLD_LINE="#PrologSlurmctld= (none)"
	[ -z "$prolog_ctld" ] || t_PROLOG_SLURMCTLD_LINE="PrologSlurmctld=$prolog_ctld"
	[ -z "$epilog_ctld" ] || t_PROLOG_SLURMCTLD_LINE="$t_PROLOG_SLURMCTLD_LINE
EpilogSlurmctld=$epilog_ctld"
	t_LICENSES_LINE="Licenses=$licenses"
	t_LICENSE_TRES=$(printf '%s' "$licenses" | tr ',' '\n' | sed 's/:.*//; s/^/,license\//' | tr -d '\n')
	t_SPANK_LINE="# (no plugin)"
	t_PLUGINDIR_LINE="#PluginDir= (Slurm's own)"
	t_JOB_SUBMIT_LINE="#JobSubmitPlugins=falcon (cluster.sh --job-submit DIR)"
	if [ -n "$job_submit" ]; then
		[ -f "$job_submit/job_submit_falcon.so" ] ||
			die "--job-submit $job_submit: no job_submit_falcon.so there"
		t_PLUGINDIR_LINE="PluginDir=$(slurm_plugindir):$job_submit"
		t_JOB_SUBMIT_LINE="JobSubmitPlugins=falcon"
	fi
	[ -z "$spank" ] || t_SPANK_LINE="required $spank${spank_args:+ $spank_args}"
	t_PREEMPT_LINES="#PreemptType=preempt/none (cluster.sh --preempt MODE)"
	t_PREEMPT_PARTITION_LINE="#PartitionName=urgent (cluster.sh --preempt MODE)"
	if [ -n "$preempt" ]; then
		t_PREEMPT_LINES="PreemptType=preempt/partition_prio
PreemptMode=$preempt"
		# Slurm 23.02.0rc1 NEWS: "Add new PreemptParameters=reclaim_licenses";
		# 22.05's read_config.c knows no PreemptParameters (fatal)
		if slurm_at_least 23 2; then
			t_PREEMPT_LINES="$t_PREEMPT_LINES
PreemptParameters=reclaim_licenses"
		fi
		t_PREEMPT_PARTITION_LINE="PartitionName=urgent Nodes=ALL PriorityTier=10 MaxTime=INFINITE State=UP"
	fi

	t_PARTITION_LINE="#PartitionName= (cluster.sh --partition NAME)"
	[ -z "$partition" ] ||
		t_PARTITION_LINE="PartitionName=$partition Nodes=ALL MaxTime=INFINITE State=UP"

	cgroup_setup
	old=$(cat "$slurm_conf" "$etc/plugstack.conf" 2>/dev/null || true)
	fill "$examples/slurm.conf.in" "$slurm_conf"
	fill "$examples/plugstack.conf.in" "$etc/plugstack.conf"
	(umask 077; fill "$examples/slurmdbd.conf.in" "$etc/slurmdbd.conf")
	chmod 0600 "$etc/slurmdbd.conf"
	cp "${gres_conf:-$examples/gres.conf}" "$etc/gres.conf"
	if [ -n "$hres" ]; then
		cp "$hres" "$etc/resources.yaml" && chmod 0644 "$etc/resources.yaml"
	else
		rm -f "$etc/resources.yaml"
	fi
	gpu_standins
	chmod 0644 "$slurm_conf" "$etc/plugstack.conf" "$etc/gres.conf"
	conf_changed=no
	[ "$old" = "$(cat "$slurm_conf" "$etc/plugstack.conf")" ] || conf_changed=yes

	start_munged
	start_mariadb
	start_slurmdbd
	[ -z "$extras" ] || netns_forward
	for x in $extras; do netns_up "$x"; done
	start_slurmctld
	start_slurmd
	[ -z "$extras" ] || start_extras
	echo "SLURM_CONF=$slurm_conf" >"$state/env"
	say "cluster $cluster up; SLURM_CONF=$slurm_conf"
}

# cmd_restart DAEMON - slurmctld, slurmd or slurmd:NODE stopped (SIGTERM, as systemd
# does) and started again with the options start saved; unlike start, a
# drained node is not resumed.
cmd_restart() {
	load_saved
	f=$(pidfile_of "$1")
	stop_pid "${1%%:*}" "$f"
	case $1 in
	slurmctld)
		# FALCON_CONF: the falcon.conf job_submit_falcon reads
		if [ -n "$falcon_conf" ]; then
			FALCON_CONF=$falcon_conf SLURM_CONF=$slurm_conf slurmctld -i
		else
			SLURM_CONF=$slurm_conf slurmctld -i
		fi || die "slurmctld failed, see $log/slurmctld.log"
		wait_for 60 "slurmctld to answer scontrol ping" env SLURM_CONF="$slurm_conf" scontrol ping ||
			die "slurmctld does not answer, see $log/slurmctld.log" ;;
	slurmd)
		SLURM_CONF=$slurm_conf slurmd -N "$node" || die "slurmd failed, see $log/slurmd-$node.log"
		wait_for 60 "slurmd of $node" pid_alive slurmd "$f" || die "slurmd did not start" ;;
	slurmd:*)
		start_extra "${1#slurmd:}"
		wait_for 60 "slurmd of ${1#slurmd:}" pid_alive slurmd "$f" || die "slurmd did not start" ;;
	esac
	say "$1 restarted"
}

case $cmd in
start) cmd_start "$@" ;;
restart) [ $# = 1 ] || usage
	case $1 in
	slurmctld|slurmd) cmd_restart "$1" ;;
	slurmd:*) load_saved
		case " $extras " in *" ${1#slurmd:} "*) cmd_restart "$1" ;; *) die "$1: no such node" ;; esac ;;
	*) usage ;;
	esac ;;
stop) [ $# = 0 ] || usage; cmd_stop ;;
status) [ $# = 0 ] || usage; cmd_status ;;
env) [ $# = 0 ] || usage; [ -f "$slurm_conf" ] || die "$slurm_conf not found: not started"
	echo "SLURM_CONF=$slurm_conf" ;;
*) usage ;;
esac
