#!/bin/sh
# slurm-falcond-ha.sh - falcond's high availability, idle-connection
# limits and SIGHUP reload under real Slurm jobs (#12): a single-node
# cluster with falcon-prolog as PrologSlurmctld= (--slurmctld) and Prolog=,
# falcon-epilog as Epilog=, spank_falcon; falcon-sim answers each PATCH
# (attach) in 3 s so composes are in flight; two falcond on one StateDir,
# falcon.conf's FalcondUrl= naming both (doc/falcond.8 HIGH AVAILABILITY):
#   (1) three jobs submitted, the active falcond SIGKILLed while a compose
#       is in flight: the backup takes over (seconds printed), every job
#       COMPLETES, no node drained, no job held or requeued; after the
#       jobs and one reconcile nothing is attached and no lease is left;
#       the killed falcond, started again, stands by;
#   (2) 2,000 idle + slowloris connections to the active falcond from
#       127.0.0.2-33 (falcond-attack.py): a falcon_gpu:1 job COMPLETES, the
#       node is not drained (submit-to-COMPLETED printed with and without);
#   (3) a bad line in the active falcond's falcon.conf and SIGHUP: FILE:LINE
#       logged, the last good configuration kept, a job after it COMPLETES,
#       no drain; the file restored.
# No timing is asserted: every wait is bounded and generous.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/slurm-lib.sh"
. "$top_srcdir/tests/integration/prolog-lib.sh"
fp_slurm_node
python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.33", 0))' 2>/dev/null ||
	t_skip "cannot bind 127.0.0.2-33"
fp_setup
# the quickstart's budgets and PrologEpilogTimeout= (120 s, cluster.sh's
# default): a takeover under a chassis at 3 s per PATCH must fit them
fp_demo_budgets
FD_PORT_A=$FD_PORT
FD_PORT_B=$(free_port)
URL_A=http://127.0.0.1:$FD_PORT_A URL_B=http://127.0.0.1:$FD_PORT_B
echo "FalcondUrl=$URL_A,$URL_B" >>"$FALCON_CONF"
# the backup's own falcon.conf: the same but its ListenAddress
CONF_B=$t_tmp/falcon-b.conf
sed "s/^ListenAddress=.*/ListenAddress=127.0.0.1:$FD_PORT_B/" "$FALCON_CONF" >"$CONF_B"
fp_slurmctld_wrapper
fp_slurm_start --prolog-slurmctld "$t_tmp/prolog-slurmctld.sh"
grep -q "^PrologSlurmctld=$t_tmp/prolog-slurmctld.sh" "$SLURM_CONF" ||
	t_fail "slurm.conf: $(grep -i prolog "$SLURM_CONF")"
fp_falcond_with_slurm
PID_A=$FD_PID

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# health PORT - the HTTP status of GET /v1/health; body in $t_tmp/health
health() {
	rm -f "$t_tmp/health"
	curl -s -m 5 -o "$t_tmp/health" -w '%{http_code}' "http://127.0.0.1:$1/v1/health" || true
}
is_active() { [ "$(health "$1")" = 200 ] && ! grep -q reconciling "$t_tmp/health"; }
# is_standby PORT URL - the falcond at PORT stands by, naming URL active
is_standby() {
	[ "$(health "$1")" = 503 ] && python3 -c 'import json,sys
j = json.load(open(sys.argv[1]))
sys.exit(0 if j.get("standby") and j.get("active") == sys.argv[2] else 1)' "$t_tmp/health" "$2"
}
# start_falcond CONF LOG PIDFILE - a falcond asking this cluster's Slurm
start_falcond() {
	"$FALCOND" -f "$1" 2>>"$2" &
	echo $! >"$3"
}
t_on_exit "kill \$(cat '$t_tmp/falcond-b.pid' 2>/dev/null) 2>/dev/null || true"
start_falcond "$CONF_B" "$t_tmp/falcond-b.log" "$t_tmp/falcond-b.pid"
PID_B=$(cat "$t_tmp/falcond-b.pid")
wait_for -p $PID_B 30 "the backup to stand by" is_standby $FD_PORT_B "$URL_A" ||
	t_fail "backup falcond: $(cat "$t_tmp/health" 2>/dev/null); $(tail -n 3 "$t_tmp/falcond-b.log")"
t_ok "two falcond on $t_tmp/state: active $URL_A (pid $PID_A), standby $URL_B (pid $PID_B)"

submit() { sbatch --parsable --gres=falcon_gpu:$1 -o "$t_tmp/job-%j.out" --wrap 'echo ran'; }

# after_jobs JOB... - the jobs ran (output), none is left in the queue
# (held or requeued), none restarted
after_jobs() {
	for _j in "$@"; do
		grep -q '^ran$' "$t_tmp/job-$_j.out" || t_fail "job $_j output: $(cat "$t_tmp/job-$_j.out")"
		_r=$(scontrol show job "$_j" 2>/dev/null | sed -n 's/.*Restarts=\([0-9]*\).*/\1/p')
		[ "${_r:-0}" = 0 ] || t_fail "job $_j restarted $_r times"
	done
	[ -z "$(squeue -h -o '%i %T %r')" ] || t_fail "jobs left in the queue: $(squeue -h -o '%i %T %r')"
}

# -- (1) SIGKILL of the active falcond while composes are in flight
fd_sim c1 POST /admin/faults '{"rules":[{"action":"latency","path":"/redfish/v1/Fabrics*","method":"PATCH","ms":3000}]}' >/dev/null
j1=$(submit 1); j2=$(submit 2); j3=$(submit 1)
wait_for 120 "a compose in flight (composing in the ledger)" \
	fd_ledger_has '"composing"' ||
	{ tail -n 5 "$t_tmp/slurm-prolog-slurmctld.log" >&2; t_fail "no compose in flight"; }
inflight=$(fd_ledger | grep -o '"composing"' | wc -l)
t0=$(now_ms)
kill -KILL $PID_A
wait $PID_A 2>/dev/null || true
wait_for -p $PID_B 60 "the backup to answer /v1/health 200" \
	sh -c "[ \"\$(curl -s -m 5 -o /dev/null -w '%{http_code}' $URL_B/v1/health)\" = 200 ]" ||
	t_fail "backup did not take over: $(tail -n 5 "$t_tmp/falcond-b.log")"
t1=$(now_ms)
echo "takeover: $inflight compose(s) in flight at the SIGKILL; backup answered /v1/health 200 after $(( (t1 - t0) / 1000 )).$(( (t1 - t0) % 1000 / 100 )) s"
FD_PORT=$FD_PORT_B FD_PID=$PID_B
fp_completed "$j1" "$j2" "$j3"
fd_sim c1 POST /admin/faults '{}' >/dev/null
fp_not_drained
after_jobs "$j1" "$j2" "$j3"
t_ok "jobs $j1 $j2 $j3 COMPLETED through the takeover; node $FP_HOST not drained, no job held"
moved=$(cat "$t_tmp/slurm-prolog-slurmctld.log" "$t_tmp/slurm-prolog.log" \
	"$t_tmp/slurm-epilog.log" 2>/dev/null | grep -c "; trying $URL_B" || true)
echo "requests of falcon-prolog/epilog that moved on to $URL_B: $moved"
# the epilogs have decomposed; one reconcile; then nothing attached, no lease
# settled - no lease in the ledger is composing, closing or settling
settled() { fd_ledger_has '"composing"' '"closing"' '"settling"'; [ $? = 1 ]; }
wait_for 60 "no lease left composing or closing" settled ||
	t_fail "leases in flight: $(fd_ledger | head -c 600)"
"$FALCONCTL" reconcile --json >"$t_tmp/rec" 2>&1 || t_fail "falconctl reconcile: $(cat "$t_tmp/rec")"
fd_expect 200 GET /v1/status ''
leases=$(fd_json 'len(j["leases"])')
attached=$(fd_sim c1 GET /admin/state | python3 -c 'import json,sys; print(sum(1 for d in json.load(sys.stdin)["devices"] if d["owner"]))')
[ "$leases" = 0 ] && [ "$attached" = 0 ] ||
	t_fail "after the jobs and a reconcile: $leases lease(s) on $URL_B, $attached device(s) attached"
fp_pool_clean
t_ok "after the jobs and a reconcile: 0 leases ($URL_B /v1/status), 0 devices attached (falcon-sim)"
start_falcond "$FALCON_CONF" "$t_tmp/falcond.log" "$t_tmp/falcond.pid"
PID_A=$(cat "$t_tmp/falcond.pid")
wait_for -p $PID_A 30 "the killed falcond, started again, to stand by" is_standby $FD_PORT_A "$URL_B" ||
	t_fail "old active does not stand by: $(cat "$t_tmp/health" 2>/dev/null); $(tail -n 3 "$t_tmp/falcond.log")"
"$FALCONCTL" status >"$t_tmp/status" 2>&1 || t_fail "falconctl status: $(cat "$t_tmp/status")"
t_ok "the killed falcond stands by: $(cat "$t_tmp/health" 2>/dev/null); falconctl status: $(head -1 "$t_tmp/status")"

# -- (2) 2,000 idle connections held open to the active falcond
# timed_job GRES - submit a job, wait for COMPLETED; its seconds in $secs
timed_job() {
	_t0=$(now_ms)
	_j=$(submit "$1")
	fp_completed "$_j"
	_t1=$(now_ms)
	secs=$(( (_t1 - _t0) / 1000 )).$(( (_t1 - _t0) % 1000 / 100 ))
	after_jobs "$_j"
	jid=$_j
}
timed_job 1
base=$secs
fp_not_drained
IDLE=${FALCOND_IDLE_CONNS:-2000}
fd_attack "$FD_PORT_B" "$IDLE" 32 120
held=$(ss -Htn state established "( sport = :$FD_PORT_B )" 2>/dev/null | wc -l)
timed_job 1
attacked=$secs
fp_not_drained
is_active $FD_PORT_B || t_fail "the active falcond under the attack: $(cat "$t_tmp/health" 2>/dev/null)"
touch "$t_tmp/stop"
wait $APID 2>/dev/null || true
echo "falcon_gpu:1 job, submit to COMPLETED: ${base} s without, ${attacked} s under $IDLE idle + slowloris connections ($held held by falcond; attack: $(cat "$t_tmp/attack") open/opened/refused/closed)"
fp_pool_clean
t_ok "job $jid COMPLETED under $IDLE idle connections to $URL_B; node not drained"

# -- (3) a broken falcon.conf and SIGHUP to the active falcond
cp "$CONF_B" "$t_tmp/good-b.conf"
echo "Bogus=1" >>"$CONF_B"
bad_line=$(wc -l <"$CONF_B")
kill -HUP $PID_B
wait_for -p $PID_B 30 "the broken file to be logged" \
	grep -q "SIGHUP: $CONF_B:$bad_line: .*Bogus.*keeping the configuration" "$t_tmp/falcond-b.log" ||
	t_fail "no FILE:LINE in the log: $(tail -n 3 "$t_tmp/falcond-b.log")"
t_ok "SIGHUP: $(grep "SIGHUP: $CONF_B:$bad_line" "$t_tmp/falcond-b.log" | tail -1)"
timed_job 2
fp_not_drained
kill -0 $PID_B 2>/dev/null ||
	t_fail "the active falcond (pid $PID_B) exited after the broken reload: $(tail -n 3 "$t_tmp/falcond-b.log")"
is_active $FD_PORT_B ||
	t_fail "the active falcond after the broken reload: $(cat "$t_tmp/health" 2>/dev/null)"
fp_pool_clean
t_ok "job $jid (falcon_gpu:2) COMPLETED after the broken reload (${secs} s); node not drained"
cp "$t_tmp/good-b.conf" "$CONF_B"
kill -HUP $PID_B
wait_for -p $PID_B 30 "the restored file to be reloaded" \
	grep -q "SIGHUP: reloaded $CONF_B" "$t_tmp/falcond-b.log" ||
	t_fail "restored falcon.conf not reloaded: $(tail -n 3 "$t_tmp/falcond-b.log")"
is_standby $FD_PORT_A "$URL_B" || t_fail "the standby: $(cat "$t_tmp/health" 2>/dev/null)"
t_ok "falcon.conf restored and reloaded; $URL_A still stands by"
exit 0
