#!/bin/sh
# scripts/quickstart.sh - the README's first command: on a Debian 12 machine,
# as root, install the Debian packages needed, build and install
# falcon-slurm into STATE/prefix, start a single-node Slurm cluster (munged,
# MariaDB, slurmdbd, slurmctld, slurmd, with falcon-prolog as PrologSlurmctld
# and Prolog, falcon-epilog and spank_falcon and job_submit_falcon), falcon-sim (the paper's chassis) and
# falcond, show `sbatch -p small --gres=falcon_gpu:4` refused by the
# partition's falcon.conf policy, run `sbatch --gres=falcon_gpu:4
# examples/train.sh` (job_submit_falcon adds Licenses=falcon1_gpu:4) and show
# what happened.  job_submit_falcon.so needs Slurm's source
# (scripts/slurm-source.sh, cached in /var/cache/falcon-slurm); without
# network the demo goes on without it and says so.
#
#   quickstart.sh          set up (or reuse) everything, run one job
#   quickstart.sh --stop   stop every daemon it started (pid files)
#   quickstart.sh --help   this text
#
# STATE is $FALCON_DEMO_DIR (default /var/tmp/falcon-demo); every config,
# log, pid file and the install prefix live there, nothing in /etc.
# FALCON_DEMO_JOBS: make -j (default: the number of CPUs).
# The last two lines printed are SLURM_CONF=... and FALCON_CONF=...;
# `. STATE/env` sets them (and PATH) for sinfo, sacct, falconctl.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
set -eu

prog=quickstart
cd "$(dirname "$0")/.."
top=$(pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
state=${FALCON_DEMO_DIR:-/var/tmp/falcon-demo}
case $state in /*) ;; *) state=$(pwd)/$state ;; esac
prefix=$state/prefix
build=$state/build
log=$state/log
cluster=$state/cluster
conf=$state/etc/falcon.conf
sim_cred=$state/etc/falcon1.credentials
sim_accounts=$state/etc/falcon1.accounts
tls=$state/etc/tls
slurm_conf=$cluster/etc/slurm.conf
sim_pid=$state/run/falcon-sim.pid
falcond_pid=$state/run/falcond.pid
job_timeout=${FALCON_DEMO_JOB_TIMEOUT:-240}

say() { echo "$prog: $*"; }
# fail STEP LOG - say which step failed and which log to read; exit 1.
fail() {
	echo "$prog: error: $1 failed${2:+; see $2}" >&2
	if [ -n "${2:-}" ] && [ -f "$2" ]; then
		echo "$prog: last lines of $2:" >&2
		tail -n 15 "$2" | sed 's/^/  | /' >&2
	fi
	exit 1
}

usage() {
	sed -n '2,/^# Copyright/{/^# Copyright/d;s/^# \{0,1\}//p;}' "$0"
}

# no_jobs - squeue lists no job (a condition for wait_for).
no_jobs() {
	[ -z "$(SLURM_CONF=$slurm_conf squeue -h -o %i 2>/dev/null)" ]
}

cmd_stop() {
	[ "$(id -u)" = 0 ] || { echo "$prog: run as root" >&2; exit 1; }
	if [ ! -d "$state" ]; then
		say "nothing running ($state does not exist)"
		return 0
	fi
	# Jobs first, so that their epilogs give the devices back.
	if [ -f "$slurm_conf" ] && command -v scancel >/dev/null 2>&1 &&
		SLURM_CONF=$slurm_conf scontrol ping >/dev/null 2>&1; then
		SLURM_CONF=$slurm_conf scancel --quiet --user=root >/dev/null 2>&1 || true
		wait_for 30 "the cancelled jobs to leave the queue" no_jobs || true
	fi
	{
		if [ -d "$cluster" ]; then
			"$top/scripts/cluster.sh" stop "$cluster" 2>&1 | sed "s/^cluster.sh: /$prog: /"
		fi
		stop_pid falcond-backup "$falcond_backup_pid"
		stop_pid falcond "$falcond_pid"
		stop_pid falcon-sim "$sim_pid"
	} >"$state/stop.out"
	if [ -s "$state/stop.out" ]; then
		cat "$state/stop.out"
		say "stopped everything started from $state (its files are kept; rm -rf it to start afresh)"
	else
		say "nothing was running from $state"
	fi
	rm -f "$state/stop.out"
}

# ---- 1. Debian packages ----------------------------------------------------
install_packages() {
	say "step 1/6: Debian packages (scripts/install-deps.sh --demo)"
	scripts/install-deps.sh --demo >"$log/install-deps.log" 2>&1 ||
		fail "installing Debian packages (scripts/install-deps.sh --demo)" "$log/install-deps.log"
	tail -n 1 "$log/install-deps.log" | sed 's/^/  /'
}

# ---- 2. build and install into STATE/prefix (out of tree) ------------------
# bootstrap_if_needed - ./bootstrap when configure is missing or older than
# what it is made from.
bootstrap_if_needed() {
	need_bootstrap=no
	[ -x configure ] || need_bootstrap=yes
	for f in configure.ac Makefile.am m4/*.m4; do
		[ "$need_bootstrap" = yes ] || [ ! "$f" -nt configure ] || need_bootstrap=yes
	done
	if [ $need_bootstrap = yes ]; then
		./bootstrap >"$log/bootstrap.log" 2>&1 || fail "./bootstrap" "$log/bootstrap.log"
	fi
}

# prepare_build_dir - STATE/build, out of tree, configured from this checkout.
prepare_build_dir() {
	if [ -f config.status ]; then
		echo "$prog: error: step 2 cannot build out of tree: $top is configured in tree" \
			"(run 'make distclean' there first)" >&2
		exit 1
	fi
	# A build configured from another checkout would install that checkout's
	# code: start the build over when its source directory is not this one.
	if [ -f "$build/config.status" ] &&
		! grep -qxF -- "srcdir='$top'" "$build/config.status"; then
		say "  $build was configured from another source tree: rebuilding"
		rm -rf "$build"
	fi
	mkdir -p "$build"
}

# find_slurm_source - slurm_src: Slurm's source of the installed version, for
# job_submit_falcon.so (the partition policies at submit and the pool
# license): fetched once into /var/cache/falcon-slurm.  Without it (no
# network) slurm_src is empty: the demo runs without the plugin and says so.
find_slurm_source() {
	slurm_src=""
	if slurm_src=$(scripts/slurm-source.sh 2>"$log/slurm-source.log"); then
		say "  Slurm source for job_submit_falcon.so: $slurm_src"
	else
		slurm_src=""
		echo "$prog: WARNING: could not get Slurm's source ($(tail -n 1 "$log/slurm-source.log"));" \
			"job_submit_falcon.so is NOT built: no partition policy at submit, licenses by hand" >&2
	fi
}

# configure_build - configure STATE/build unless it already is, with the
# same prefix and Slurm source.
configure_build() {
	if [ ! -f "$build/config.status" ] ||
		! grep -qF -- "'--prefix=$prefix'" "$build/config.status" ||
		{ [ -n "$slurm_src" ] &&
			! grep -qF -- "'--with-slurm-source=$slurm_src'" "$build/config.status"; }; then
		# no source (apt-get source failed): no --with-slurm-source at all,
		# which configure would refuse empty
		(cd "$build" && "$top/configure" --prefix="$prefix" \
			--with-slurm-plugindir="$prefix/lib/slurm" \
			${slurm_src:+--with-slurm-source="$slurm_src"}) >"$log/configure.log" 2>&1 ||
			fail "configure" "$log/configure.log"
	fi
}

# make_and_install - make; make install when something was rebuilt since
# the last install.
make_and_install() {
	stamp=$build/.quickstart-installed
	(cd "$build" && make -j"${FALCON_DEMO_JOBS:-$(nproc)}") >"$log/make.log" 2>&1 ||
		fail "make" "$log/make.log"
	if [ ! -f "$stamp" ] || [ ! -x "$prefix/bin/falconctl" ] ||
		[ -n "$(find "$build" -newer "$stamp" -type f ! -name '*.log' ! -name '*.trs' | head -n 1)" ]; then
		(cd "$build" && make install) >"$log/install.log" 2>&1 || fail "make install" "$log/install.log"
		touch "$stamp"
		say "  installed: $("$prefix/bin/falconctl" --version 2>&1 | head -n1)"
	else
		say "  nothing changed: reusing $prefix ($("$prefix/bin/falconctl" --version 2>&1 | head -n1))"
	fi
}

# check_install - every program and plugin the demo runs is installed; sets
# spank and job_submit_opt (cluster.sh --job-submit: "" without Slurm's
# source).
check_install() {
	spank=$prefix/lib/slurm/spank_falcon.so
	job_submit_opt=""
	if [ -n "$slurm_src" ]; then
		[ -f "$prefix/lib/slurm/job_submit_falcon.so" ] ||
			fail "the install: $prefix/lib/slurm/job_submit_falcon.so is missing" "$log/make.log"
		job_submit_opt=$prefix/lib/slurm
	fi
	for f in "$prefix/bin/falcon-sim" "$prefix/sbin/falcond" "$prefix/sbin/falcon-prolog" \
		"$prefix/sbin/falcon-epilog" "$spank"; do
		[ -e "$f" ] || fail "the install: $f is missing (is libslurm-dev installed?)" "$log/configure.log"
	done
}

build_and_install() {
	say "step 2/6: build and install into $prefix"
	bootstrap_if_needed
	prepare_build_dir
	find_slurm_source
	configure_build
	make_and_install
	check_install
}

# ---- 3. configuration (all under STATE) ------------------------------------
# write_config - STATE/ports (picked once, kept), falcon.conf (old_conf: the
# one before) and the prolog/epilog wrappers; exports FALCON_CONF.
write_config() {
	say "step 3/6: configuration in $state/etc"
	if [ ! -f "$state/ports" ]; then
		{ echo "SIM_PORT=$(free_port)"; echo "FALCOND_PORT=$(free_port)"; } >"$state/ports.tmp"
		mv "$state/ports.tmp" "$state/ports"
	fi
	. "$state/ports"
	grep -q '^EVENT_PORT=' "$state/ports" || echo "EVENT_PORT=$(free_port)" >>"$state/ports"
	grep -q '^STATUS_PORT=' "$state/ports" || echo "STATUS_PORT=$(free_port)" >>"$state/ports"
	. "$state/ports"
	# falcon-sim's accounts, like a real chassis': falcond's is an Operator
	# (it changes zones, not accounts), an Administrator's is for the admin;
	# only root can read them, so no other local user can attach or detach
	# through falcon-sim directly. Made once, kept.
	if [ ! -s "$sim_cred" ]; then
		(umask 077; printf 'falcond:%s\n' "$(head -c 18 /dev/urandom | base64 | tr '+/' '-_')" \
			>"$sim_cred.tmp") && mv "$sim_cred.tmp" "$sim_cred"
	fi
	chmod 0600 "$sim_cred"
	if [ ! -s "$sim_accounts" ]; then
		(umask 077; printf 'Administrator admin %s\nOperator falcond %s\n' \
			"$(head -c 18 /dev/urandom | base64 | tr '+/' '-_')" "$(cut -d: -f2- "$sim_cred")" \
			>"$sim_accounts.tmp") && mv "$sim_accounts.tmp" "$sim_accounts"
	fi
	chmod 0600 "$sim_accounts"
	# HTTPS for falcon-sim and falcond's event listener: a local CA and two
	# certificates (scripts/tls-certs.sh, 30 days), made again a day before
	# they expire; never committed.
	if [ ! -s "$tls/sim.pem" ] || ! openssl x509 -checkend 86400 -noout -in "$tls/sim.pem" >/dev/null 2>&1; then
		rm -rf "$tls"
		{ sh "$top/scripts/tls-certs.sh" ca "$tls" &&
		  sh "$top/scripts/tls-certs.sh" server "$tls" sim IP:127.0.0.1 DNS:localhost &&
		  sh "$top/scripts/tls-certs.sh" server "$tls" falcond IP:127.0.0.1 DNS:localhost; } \
			>"$log/tls-certs.log" 2>&1 || fail "making the demo's certificates" "$log/tls-certs.log"
	fi
	host=$(hostname -s)
	# the NCCL check where falcon-ncclcheck was built (configure found
	# CUDA and NCCL); without it a Check=quick would be a configuration
	# error (falcond and falconctl status say so): the demo turns it off
	check=quick
	if [ ! -x "$prefix/bin/falcon-ncclcheck" ]; then
		check=off
		say "no CUDA here: falcon-ncclcheck not built, the demo's partitions have Check=off"
	fi
	mkdir -p "$state/falcond" "$state/run/falcon" "$state/sim/sysfs"
	chmod 0700 "$state/falcond"
	old_conf=$(cat "$conf" 2>/dev/null || true)
	sed -e "s|@STATE@|$state|g" -e "s|@PREFIX@|$prefix|g" -e "s|@HOST@|$host|g" \
		-e "s|@SIM_PORT@|$SIM_PORT|g" -e "s|@FALCOND_PORT@|$FALCOND_PORT|g" \
		-e "s|@SIM_CREDENTIALS@|$sim_cred|g" -e "s|@TLS@|$tls|g" \
		-e "s|@EVENT_PORT@|$EVENT_PORT|g" -e "s|@STATUS_PORT@|$STATUS_PORT|g" \
		-e "s|@CHECK@|$check|g" examples/falcon-demo.conf.in >"$conf.tmp"
	mv "$conf.tmp" "$conf"
	chmod 0644 "$conf"
	# slurmd runs the prolog with an environment of its own: these wrappers
	# name falcon.conf and keep the programs' messages in STATE/log.
	for p in prolog epilog; do
		cat >"$state/etc/falcon-$p.sh.tmp" <<EOS
#!/bin/sh
# Written by scripts/quickstart.sh: the demo's slurm.conf Prolog=/Epilog=.
exec "$prefix/sbin/falcon-$p" -c "$conf" -v 2>>"$log/falcon-$p.log"
EOS
		chmod 0755 "$state/etc/falcon-$p.sh.tmp"
		mv "$state/etc/falcon-$p.sh.tmp" "$state/etc/falcon-$p.sh"
	done
	# PrologSlurmctld: slurmctld composes while the job is CONFIGURING,
	# waiting (ComposeWait=) while falcond or the pool is not ready;
	# EpilogSlurmctld gives back what it composed for a job cancelled
	# while CONFIGURING (no node epilog runs for it)
	for p in prolog epilog; do
		P=$(echo "$p" | sed 's/^./\U&/')
		cat >"$state/etc/falcon-$p-slurmctld.sh.tmp" <<EOS
#!/bin/sh
# Written by scripts/quickstart.sh: the demo's slurm.conf ${P}Slurmctld=.
# slurmctld gives it no SLURM_CONF: libslurm would look in /etc.
SLURM_CONF="$slurm_conf"
export SLURM_CONF
exec "$prefix/sbin/falcon-$p" --slurmctld -c "$conf" -v 2>>"$log/falcon-$p-slurmctld.log"
EOS
		chmod 0755 "$state/etc/falcon-$p-slurmctld.sh.tmp"
		mv "$state/etc/falcon-$p-slurmctld.sh.tmp" "$state/etc/falcon-$p-slurmctld.sh"
	done
	export FALCON_CONF="$conf"
}

# ---- 4. daemons -------------------------------------------------------------
# start_cluster - munged, MariaDB, slurmdbd, slurmctld, slurmd
# (scripts/cluster.sh); exports SLURM_CONF.
start_cluster() {
	"$top/scripts/cluster.sh" start "$cluster" --examples "$top/examples" \
		--prolog "$state/etc/falcon-prolog.sh" --epilog "$state/etc/falcon-epilog.sh" \
		--prolog-slurmctld "$state/etc/falcon-prolog-slurmctld.sh" \
		--epilog-slurmctld "$state/etc/falcon-epilog-slurmctld.sh" \
		--spank "$spank" --spank-args "conf=$conf" --license falcon1_gpu:8,falcon1_nvme:1 \
		--job-submit "$job_submit_opt" --falcon-conf "$conf" \
		>"$log/cluster-start.log" 2>&1 ||
		fail "starting the Slurm cluster (scripts/cluster.sh start $cluster)" "$log/cluster-start.log"
	sed -n 's/^cluster.sh: /  /p' "$log/cluster-start.log"
	export SLURM_CONF="$slurm_conf"
}

# start_sim - falcon-sim on HTTPS with accounts only root reads: restarted
# when its binary was reinstalled since it started, when an older
# quickstart started it without accounts or HTTPS, or when its certificate
# was made again.
start_sim() {
	if pid_alive falcon-sim "$sim_pid" && [ ! "$prefix/bin/falcon-sim" -nt "$sim_pid" ] &&
		[ ! "$tls/sim.pem" -nt "$sim_pid" ] &&
		tr '\0' ' ' <"/proc/$(pid_of "$sim_pid")/cmdline" | grep -q -- --event-ca; then
		say "  falcon-sim already running (pid $(cat "$sim_pid"))"
		return 0
	fi
	stop_pid falcon-sim "$sim_pid" >/dev/null
	rm -f "$state/sim/port"
	setsid nohup "$prefix/bin/falcon-sim" --listen "127.0.0.1:$SIM_PORT" \
		--sysfs-root "$state/sim/sysfs" --config "$top/examples/falcon-sim.json" \
		--accounts "$sim_accounts" --tls-cert "$tls/sim.pem" --tls-key "$tls/sim.key" \
		--event-ca "$tls/ca.pem" \
		--port-file "$state/sim/port" </dev/null >>"$log/falcon-sim.log" 2>&1 &
	echo $! >"$sim_pid"
	# By its pid, not pid_alive: until the child has exec'd setsid, its
	# command line is this script's, and pid_alive said "not running"
	# (seen once: "starting falcon-sim failed" right after the start).
	wait_for -p "$!" 20 "falcon-sim to write its port file $state/sim/port" \
		test -s "$state/sim/port" || fail "starting falcon-sim" "$log/falcon-sim.log"
	say "  falcon-sim running on https://127.0.0.1:$SIM_PORT (chassis falcon1: 2 drawers x 4 V100, 1 NVMe; host trees in $state/sim/sysfs; CA $tls/ca.pem; accounts in $sim_accounts, falcond's (Operator) in $sim_cred, mode 0600)"
}

# start_falcond - falcond: restarted when reinstalled, when falcon.conf
# changed, or when an older quickstart started it with --no-slurm.  It runs
# with the demo's SLURM_CONF (exported by start_cluster), so its reconcile
# (at start, on SIGHUP, `falconctl reconcile`) asks this cluster's slurmctld
# which jobs run and detaches devices left attached for a job that ended.
start_falcond() {
	if pid_alive falcond "$falcond_pid" && [ ! "$prefix/sbin/falcond" -nt "$falcond_pid" ] &&
		[ "$old_conf" = "$(cat "$conf")" ] &&
		! tr '\0' ' ' <"/proc/$(pid_of "$falcond_pid")/cmdline" | grep -q -- --no-slurm; then
		say "  falcond already running (pid $(cat "$falcond_pid"))"
		return 0
	fi
	stop_pid falcond "$falcond_pid" >/dev/null
	SLURM_CONF=$slurm_conf setsid nohup "$prefix/sbin/falcond" -f "$conf" \
		</dev/null >>"$log/falcond.log" 2>&1 &
	echo $! >"$falcond_pid"
	wait_for -p "$!" 20 "falcond to answer on http://127.0.0.1:$FALCOND_PORT/v1/health" \
		curl -s -o /dev/null "http://127.0.0.1:$FALCOND_PORT/v1/health" ||
		fail "starting falcond" "$log/falcond.log"
	say "  falcond running on 127.0.0.1:$FALCOND_PORT (munged socket $cluster/munge/munge.sock)"
	say "  falcond's status page: http://127.0.0.1:$STATUS_PORT/ (read-only; StatusListen=)"
}

# ---- falcond's backup (falcond(8), HIGH AVAILABILITY) ------------------------
# A second falcond on the same StateDir stands by: its port (picked once,
# STATE/ports.backup), its falcon.conf (the demo's with that ListenAddress),
# and FalcondUrl= in the demo's falcon.conf listing both, so falcon-prolog,
# falcon-epilog and falconctl reach whichever holds StateDir/falcond.lock.
falcond_backup_pid=$state/run/falcond-backup.pid
write_backup_config() {
	if [ ! -f "$state/ports.backup" ]; then
		echo "FALCOND_BACKUP_PORT=$(free_port)" >"$state/ports.backup.tmp"
		mv "$state/ports.backup.tmp" "$state/ports.backup"
	fi
	. "$state/ports.backup"
	echo "FalcondUrl=http://127.0.0.1:$FALCOND_PORT,http://127.0.0.1:$FALCOND_BACKUP_PORT" >>"$conf"
	# the status page is the primary's (one StatusListen= address per host:port)
	sed -e "s|^ListenAddress=.*|ListenAddress=127.0.0.1:$FALCOND_BACKUP_PORT|" \
		-e '/^StatusListen=/d' "$conf" >"$state/etc/falcond-backup.conf"
}
# start_falcond_ha - start_falcond (the primary; the backup stopped first
# when the primary restarts, so that the primary takes the lock), then the
# backup, which answers 503 standby until the primary goes.
start_falcond_ha() {
	if [ "$old_conf" != "$(cat "$conf")" ] || ! pid_alive falcond "$falcond_pid" ||
		[ "$prefix/sbin/falcond" -nt "$falcond_backup_pid" ]; then
		stop_pid falcond-backup "$falcond_backup_pid" >/dev/null
	fi
	start_falcond
	if pid_alive falcond-backup "$falcond_backup_pid"; then
		say "  falcond backup already running (pid $(cat "$falcond_backup_pid"))"
		return 0
	fi
	SLURM_CONF=$slurm_conf setsid nohup "$prefix/sbin/falcond" -f "$state/etc/falcond-backup.conf" \
		</dev/null >>"$log/falcond-backup.log" 2>&1 &
	echo $! >"$falcond_backup_pid"
	wait_for -p "$!" 20 "the backup falcond to stand by on 127.0.0.1:$FALCOND_BACKUP_PORT" \
		sh -c "curl -s http://127.0.0.1:$FALCOND_BACKUP_PORT/v1/health | grep -q standby" || {
		# who holds the port, when it was taken (free_port, scripts/lib.sh)
		echo "$prog: listening on 127.0.0.1:$FALCOND_BACKUP_PORT:" \
			"$(ss -Htlnp "sport = :$FALCOND_BACKUP_PORT" 2>&1 | tr -s ' ' | head -n 3)" >&2
		fail "starting the backup falcond" "$log/falcond-backup.log"
	}
	say "  falcond backup standing by on 127.0.0.1:$FALCOND_BACKUP_PORT (same StateDir; FalcondUrl= lists both)"
}

# write_env - STATE/env, for `. STATE/env`.
write_env() {
	cat >"$state/env" <<EOE
SLURM_CONF=$slurm_conf
FALCON_CONF=$conf
PATH=$prefix/bin:$prefix/sbin:\$PATH
MANPATH=$prefix/share/man:\${MANPATH:-}
export SLURM_CONF FALCON_CONF PATH MANPATH
EOE
}

start_daemons() {
	say "step 4/6: daemons"
	start_cluster
	start_sim
	start_falcond_ha
	write_env
}

# ---- 5. the job -------------------------------------------------------------
# show_policy_refusal - sbatch -p small --gres=falcon_gpu:4 is refused, with
# the falcon message.
show_policy_refusal() {
	# partition small: falcon.conf allows it at most 2 falcon_gpu per node
	say "step 5/6: a job the partition policy refuses: sbatch -p small --gres=falcon_gpu:4"
	if jid=$(sbatch --parsable -p small --gres=falcon_gpu:4 -o /dev/null --wrap true \
		2>"$log/sbatch-small.log"); then
		scancel "$jid" 2>/dev/null || true
		fail "the policy of partition small (job $jid was accepted)" "$cluster/log/slurmctld.log"
	fi
	# spank_falcon says it first, in sbatch; job_submit_falcon would say
	# the same in slurmctld
	grep -q 'falcon: partition small' "$log/sbatch-small.log" ||
		fail "the policy of partition small (no falcon message)" "$log/sbatch-small.log"
	sed 's/^/  | /' "$log/sbatch-small.log"
}

job_state() {
	s=$(squeue -h -j "$1" -o %T 2>/dev/null || true)
	[ -n "$s" ] || s=$(sacct -n -X -P -j "$1" -o State 2>/dev/null | head -n1 | cut -d' ' -f1)
	echo "$s"
}
# job_ended JOBID - the job has ended (its state in st; a condition for wait_for).
job_ended() {
	st=$(job_state "$1")
	case $st in
	COMPLETED|FAILED|CANCELLED*|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE) return 0 ;;
	esac
	return 1
}

# run_job - sbatch examples/train.sh (with the pool license by hand when
# job_submit_falcon is not there to add it) and wait until it completed;
# sets jid and out (its output).
run_job() {
	lic_opt=""
	# without job_submit_falcon nobody adds the chassis pool license
	[ -n "$job_submit_opt" ] || lic_opt="-L falcon1_gpu:4"
	say "step 5/6: sbatch --gres=falcon_gpu:4${lic_opt:+ $lic_opt} examples/train.sh"
	# shellcheck disable=SC2086
	jid=$(sbatch --parsable --gres=falcon_gpu:4 $lic_opt -o "$state/jobs/train-%j.out" \
		"$top/examples/train.sh" 2>"$log/sbatch.log") || fail "sbatch" "$log/sbatch.log"
	jid=${jid%%;*}
	out=$state/jobs/train-$jid.out
	say "  job $jid submitted ($(scontrol show job "$jid" | tr ' ' '\n' | grep '^Licenses=' ||
		echo Licenses=none)${job_submit_opt:+, added by job_submit_falcon}); waiting (at most $job_timeout s)"
	if ! wait_for "$job_timeout" "job $jid to end" job_ended "$jid"; then
		reason=$(squeue -h -j "$jid" -o %r 2>/dev/null || true)
		echo "$prog: job $jid still '$st' ($reason) after $job_timeout s; sinfo -R:" >&2
		sinfo -R >&2 || true
		fail "the job" "$log/falcon-prolog.log"
	fi
	[ "$st" = COMPLETED ] || {
		echo "$prog: job $jid ended $st; its output ($out):" >&2
		cat "$out" >&2 2>/dev/null || true
		sinfo -R >&2 || true
		fail "the job" "$log/falcon-prolog.log"
	}
	say "  job $jid $st"
}

# ---- 6. what happened ---------------------------------------------------------
# show_job_output - the job's environment, devices and falconctl topo, from
# its output; keeps its topology.json in STATE/jobs.
show_job_output() {
	echo
	echo "---- job $jid: its environment and topology (from $out)"
	sed -n '/^== falcon job/,/^FALCON_NVME\|^FALCON_TOPOLOGY_FILE/p' "$out"
	sed -n '/^== topology.json$/,/^== end topology.json$/{/^== /d;p;}' "$out" >"$state/jobs/topology-$jid.json"
	echo
	echo "---- job $jid: its devices (topology.json, kept in $state/jobs/topology-$jid.json)"
	python3 - "$state/jobs/topology-$jid.json" <<'EOP' || echo "(no topology.json in the job's output)"
import json, sys
t = json.load(open(sys.argv[1]))
print("topology %s, storage %s, CUDA_VISIBLE_DEVICES=%s" %
      (t.get("topology"), t.get("storage") or "none", t.get("cuda_visible_devices")))
devs = [("GPU%d" % i, d) for i, d in enumerate(t.get("gpus", []))] + \
       [("NVMe%d" % i, d) for i, d in enumerate(t.get("nvme", []))]
for name, d in devs:
    l = d.get("link", {})
    print("  %-6s %s %s:%s %-6s %gGT/s x%d (max %gGT/s x%d)%s" %
          (name, d["bdf"], d["vendor_id"], d["device_id"], d["location"], l.get("speed_gts", 0),
           l.get("width", 0), l.get("max_speed_gts", 0), l.get("max_width", 0),
           " DEGRADED" if l.get("degraded") else ""))
m = t.get("matrix", [])
if m:
    print("  matrix  " + "".join("%-10s" % ("GPU%d" % i) for i in range(len(m))))
    for i, row in enumerate(m):
        print("  %-7s " % ("GPU%d" % i) + "".join("%-10s" % c for c in row))
EOP
	echo
	echo "---- job $jid: falconctl topo of its node, run by the job (all the node's devices)"
	sed -n '/^== falconctl topo$/,/^== end falconctl topo$/{/^== /d;/^Legend:/,$d;p;}' "$out"
	grep '^== no python3\|^== torchrun\|^trained ' "$out" || true
}

# has_tag JOBID - sacct has the job's falcon: AdminComment (a condition for wait_for).
has_tag() {
	sacct -n -X -P -j "$1" -o AdminComment 2>/dev/null | grep -q 'falcon:'
}

# show_sacct - the job's sacct line once its falcon: AdminComment is there;
# sets tag.
show_sacct() {
	echo
	echo "---- sacct -X -j $jid -o JobID,AllocTRES%60,AdminComment%80"
	wait_for 30 "job $jid's falcon: AdminComment in sacct" has_tag "$jid" ||
		fail "reading the job's falcon: AdminComment from sacct" "$cluster/log/slurmdbd.log"
	sacct -X -j "$jid" -o JobID,AllocTRES%60,AdminComment%80
	tag=$(sacct -n -X -P -j "$jid" -o AdminComment | grep -o 'falcon:[^ ]*' | head -n1)
}

# show_check - the falcon-ncclcheck verdict of the tag, explained.
show_check() {
	echo
	echo "---- the check (falcon-ncclcheck)"
	verdict=$(printf '%s\n' "$tag" | sed -n 's/.*check=\([a-z]*\).*/\1/p')
	detail=$(python3 - "$state/jobs/topology-$jid.json" <<'EOP' 2>/dev/null || true
import json, sys
c = json.load(open(sys.argv[1])).get("check")
if isinstance(c, dict):
    print(c.get("reason") or c.get("detail") or c.get("message") or "")
EOP
)
	case $verdict in
	skipped) echo "check: skipped${detail:+ ($detail)} --"
		echo "  falcon-ncclcheck needs real NVIDIA GPUs and CUDA/NCCL; falcon-sim's V100s"
		echo "  exist only on an emulated PCIe bus, so nothing was measured" ;;
	off) echo "check: off (the job's --falcon-check or the partition's Check= said so)" ;;
	pass) echo "check: pass${detail:+ ($detail)}" ;;
	*) echo "check: ${verdict:-unknown}${detail:+ ($detail)}" ;;
	esac
}

# bus_left - how many chassis devices are still on the node's bus (falcon-sim
# puts H1's under bus 0x3d-0x44 and H2's under 0xb1-0xb8).
bus_left() {
	ls "$state/sim/sysfs/node1/bus/pci/devices/" 2>/dev/null |
		grep -cE '^0000:(3[d-f]|4[0-4]|b[1-8]):' || true
}
# devices_back JOBID - falconctl status no longer names the job and no
# chassis device is on the bus (a condition for wait_for).
devices_back() {
	! falconctl status 2>/dev/null |
		awk -v j="$1" '{ for (k = 1; k <= NF; k++) if ($k == j) f = 1 } END { exit !f }' &&
		[ "$(bus_left)" = 0 ]
}

# show_pool - falconctl status once the epilog has given the devices back.
show_pool() {
	echo
	echo "---- falconctl status (after the epilog: the devices are back in the pool)"
	# the epilog runs after the job is COMPLETED: wait (30 s at most) for it
	wait_for 30 "job $jid's epilog to give its devices back" devices_back "$jid" || true
	falconctl status 2>"$log/falconctl.log" || fail "falconctl status" "$log/falconctl.log"
	left=$(bus_left)
	if [ "$left" = 0 ]; then
		echo "devices back in the pool: no chassis device left on $host's PCIe bus"
	else
		echo "$prog: warning: $left chassis device(s) still on $host's bus; see $log/falcon-epilog.log" >&2
	fi
}

show_report() {
	echo
	echo "---- falconctl report --start today (accounting per topology, from slurmdbd)"
	falconctl report --start today 2>"$log/falconctl.log" || fail "falconctl report" "$log/falconctl.log"
	# the history sbatch --falcon-topology=auto chooses by (job_submit_falcon
	# reads falcon.conf's AdviceFile; a site writes it hourly from cron)
	if falconctl advise --save >>"$log/falconctl.log" 2>&1; then
		echo "falconctl advise --save: the jobs' history written for --falcon-topology=auto" \
			"(a site runs it hourly: falconctl(1))"
	else
		echo "$prog: warning: falconctl advise --save failed; see $log/falconctl.log" >&2
	fi
}

# show_next_steps - where the logs are, what to try, how to stop; the last
# two lines are SLURM_CONF=... and FALCON_CONF=...
show_next_steps() {
	echo
	echo "Logs: $log/ (falcon-prolog-slurmctld.log, falcon-prolog.log, falcon-epilog.log, falcon-epilog-slurmctld.log, falcond.log, falcon-sim.log)" \
		"and $cluster/log/ (Slurm)."
	echo "Try:  . $state/env; sinfo; sacct; falconctl status; falconctl topo; falconctl report"
	echo "Stop: $0 --stop"
	echo "SLURM_CONF=$slurm_conf"
	echo "FALCON_CONF=$conf"
}

show_results() {
	say "step 6/6: results"
	show_job_output
	show_sacct
	show_check
	show_pool
	show_report
	show_next_steps
}

main() {
	case ${1:-} in
	--stop) [ $# = 1 ] || { usage >&2; exit 2; }; cmd_stop; exit 0 ;;
	-h|--help) usage; exit 0 ;;
	"") ;;
	*) echo "$prog: unknown argument $1" >&2; usage >&2; exit 2 ;;
	esac
	[ "$(id -u)" = 0 ] || { echo "$prog: run as root (sudo $0)" >&2; exit 1; }
	mkdir -p "$state" "$log" "$state/etc" "$state/run" "$state/jobs"
	chmod 0755 "$state"

	install_packages
	build_and_install
	write_config
	write_backup_config
	start_daemons
	export PATH="$prefix/bin:$prefix/sbin:$PATH"
	cd "$state/jobs"
	if [ -n "$job_submit_opt" ]; then
		show_policy_refusal
	fi
	run_job
	show_results
}

main "$@"
