#!/bin/sh
# falcond-ha.sh - two falcond on one StateDir (falcond(8), HIGH
# AVAILABILITY): the first holds StateDir/falcond.lock, the second answers
# 503 standby naming it; falconctl given both URLs (FalcondUrl= list) is
# served; SIGKILL of the active falcond while composes are in flight (the
# chassis answers each request after 200 ms): the backup takes over
# (the figure printed), every compose is either answered or rolled back,
# no device is attached without a lease (falcon-sim /admin/state against
# the ledger), and the clients go on with the backup; the first falcond,
# started again, stands by; a holder whose holder record comes to name
# another falcond (its lock lost) stops, and the standby takes over.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/falcond-lib.sh"
fd_need
fd_start_munged
fd_start_sim c1
FD_PORT_B=$(free_port)
fd_write_conf "SettleTime=2"
FD_PORT_A=$FD_PORT
echo "FalcondUrl=http://127.0.0.1:$FD_PORT_A,http://127.0.0.1:$FD_PORT_B" >> "$FALCON_CONF"
CONF_B=$t_tmp/falcon-b.conf
sed "s/^ListenAddress=.*/ListenAddress=127.0.0.1:$FD_PORT_B/" "$FALCON_CONF" > "$CONF_B"

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# code PORT PATH - the HTTP status of an unauthenticated GET; body in $t_tmp/out
code() { curl -s -m 5 -o "$t_tmp/out" -w '%{http_code}' "http://127.0.0.1:$1$2"; }

# start_b - the second falcond on the same StateDir
start_b() {
	"$FALCOND" -f "$CONF_B" --no-slurm 2>>"$t_tmp/falcond-b.log" &
	PID_B=$!
	echo $PID_B > "$t_tmp/falcond-b.pid"
}
t_on_exit "kill \$(cat '$t_tmp/falcond-b.pid' 2>/dev/null) 2>/dev/null || true"

fd_start_falcond
PID_A=$FD_PID
start_b
wait_for -p $PID_B 20 "the backup to answer" sh -c "[ \"\$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$FD_PORT_B/v1/health)\" = 503 ]" ||
	t_fail "backup falcond: no 503 on /v1/health: $(tail -n 3 "$t_tmp/falcond-b.log")"
code $FD_PORT_B /v1/health >/dev/null
[ "$(fd_json 'j["error"]')" = "standby, active is http://127.0.0.1:$FD_PORT_A" ] ||
	t_fail "standby answer does not name the active falcond: $(cat "$t_tmp/out")"
grep -q '"standby":true' "$t_tmp/out" || t_fail "standby answer without standby:true: $(cat "$t_tmp/out")"
curl -s -D - -o /dev/null "http://127.0.0.1:$FD_PORT_B/v1/status" | grep -qi '^Retry-After: 1' ||
	t_fail "standby answer without Retry-After"
t_ok "backup stands by: 503, Retry-After, active is http://127.0.0.1:$FD_PORT_A"
"$FALCONCTL" status > "$t_tmp/status" 2>&1 || t_fail "falconctl status: $(cat "$t_tmp/status")"
grep -q "^ACTIVE http://127.0.0.1:$FD_PORT_A (host .*, pid $PID_A, since " "$t_tmp/status" ||
	t_fail "falconctl status does not show the holder: $(head -3 "$t_tmp/status")"
t_ok "falconctl status: $(head -1 "$t_tmp/status")"

# composes in flight: each attach waits 200 ms per chassis request
fd_sim c1 POST /admin/faults '{"latency_ms":200}' >/dev/null
jobs_in_flight="1 2 3"
for j in $jobs_in_flight; do
	set -- node1 node2 node3; shift $((j - 1))
	"$FALCONCTL" attach --job $j --host $1 --gpus 1 --json > "$t_tmp/a.$j" 2>"$t_tmp/a.$j.err" &
	echo $! > "$t_tmp/a.$j.pid"
done
wait_for 20 "a compose in flight (composing in the ledger)" \
	fd_ledger_has '"composing"' || t_fail "no compose in flight"
t0=$(now_ms)
kill -KILL $PID_A
wait $PID_A 2>/dev/null || true
wait_for -p $PID_B 30 "the backup to take over" sh -c "[ \"\$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$FD_PORT_B/v1/health)\" = 200 ]" ||
	t_fail "backup did not take over: $(tail -n 5 "$t_tmp/falcond-b.log")"
t1=$(now_ms)
wait_for -p $PID_B 60 "the backup's start-up reconcile" \
	sh -c "! curl -s http://127.0.0.1:$FD_PORT_B/v1/health | grep -q reconciling" ||
	t_fail "backup still reconciling"
t2=$(now_ms)
echo "takeover: backup active $((t1 - t0)) ms after SIGKILL, serving changes after $((t2 - t0)) ms"
[ $((t1 - t0)) -lt 10000 ] || t_fail "takeover took $((t1 - t0)) ms (want within seconds)"

# every compose answered (a lease) or refused (none left behind)
acked=$t_tmp/acked; : > "$acked"
ok=0 failed=0
for j in $jobs_in_flight; do
	if wait "$(cat "$t_tmp/a.$j.pid")"; then
		python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"], sys.argv[2])' \
			"$t_tmp/a.$j" $j >> "$acked"
		ok=$((ok + 1))
	else
		failed=$((failed + 1))
		echo "attach job $j: $(cat "$t_tmp/a.$j.err")"
	fi
done
fd_sim c1 DELETE /admin/faults >/dev/null
# leases the dead falcond left composing are settled (SettleTime=2)
# settled - no lease in the ledger is composing, closing or settling
settled() { fd_ledger_has '"composing"' '"closing"' '"settling"'; [ $? = 1 ]; }
wait_for 60 "no lease left composing or closing" settled ||
	t_fail "leases still in flight: $(fd_ledger | head -c 600)"
inv=$(fd_invariants "$acked") || { echo "$inv"; t_fail "ledger vs chassis after the takeover"; }
echo "composes in flight at the kill: $ok answered, $failed refused; $inv"
for j in $jobs_in_flight; do
	grep -q " $j\$" "$acked" && continue
	fd_ledger | python3 -c 'import json,sys
l=json.load(sys.stdin)
sys.exit(1 if any(x["job_id"]==int(sys.argv[1]) for x in l["leases"]) else 0)' \
		$j || t_fail "job $j refused yet has a lease"
done
t_ok "every compose in flight completed or was rolled back, none leaked"

# the clients, given both URLs, go on with the backup: the jobs end, a new one
for j in $jobs_in_flight; do
	grep -q " $j\$" "$acked" || continue
	"$FALCONCTL" detach --job $j > "$t_tmp/d.$j" 2>&1 || t_fail "detach job $j: $(cat "$t_tmp/d.$j")"
done
"$FALCONCTL" attach --job 10 --host node3 --gpus 1 --json > "$t_tmp/a.10" 2>&1 ||
	t_fail "attach after the takeover: $(cat "$t_tmp/a.10")"
"$FALCONCTL" status > "$t_tmp/status" 2>&1 || t_fail "falconctl status: $(cat "$t_tmp/status")"
grep -q "^ACTIVE http://127.0.0.1:$FD_PORT_B (host .*, pid $PID_B, " "$t_tmp/status" ||
	t_fail "falconctl status after the takeover: $(head -1 "$t_tmp/status")"
t_ok "clients with both URLs served by the backup: $(head -1 "$t_tmp/status")"

# the first one back: it stands by, naming the backup
fd_start_falcond_standby() {
	"$FALCOND" -f "$FALCON_CONF" --no-slurm 2>>"$t_tmp/falcond.log" &
	FD_PID=$!
	echo $FD_PID > "$t_tmp/falcond.pid"
}
fd_start_falcond_standby
wait_for -p $FD_PID 20 "the old primary to stand by" \
	sh -c "curl -s http://127.0.0.1:$FD_PORT_A/v1/health | grep -q 'standby, active is http:.*:$FD_PORT_B'" ||
	t_fail "old primary does not stand by: $(tail -n 3 "$t_tmp/falcond.log")"
t_ok "the old primary, started again, stands by"
# the holder's lock taken by another (as when an NFS server drops the lock
# of a host cut off longer than its lease and a backup takes it): the
# holder record names someone else, the active falcond stops serving
printf '{"host":"elsewhere","pid":1,"url":"http://elsewhere:6830","since":1}\n' \
	> "$t_tmp/state/falcond.lock"
wait_for 30 "the backup (pid $PID_B) to stop" fd_exited $PID_B ||
	t_fail "falcond whose holder record names another kept running"
grep -q 'the holder record names another falcond.*stopping' "$t_tmp/falcond-b.log" ||
	t_fail "no reason logged: $(tail -n 3 "$t_tmp/falcond-b.log")"
wait_for -p $FD_PID 30 "the first falcond to take over again" \
	sh -c "[ \"\$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$FD_PORT_A/v1/health)\" = 200 ]" ||
	t_fail "first falcond did not take over: $(tail -n 3 "$t_tmp/falcond.log")"
t_ok "a holder whose record names another falcond stops; the standby takes over"
"$FALCONCTL" detach --job 10 > "$t_tmp/d.10" 2>&1 || t_fail "detach job 10: $(cat "$t_tmp/d.10")"
inv=$(fd_invariants) || { echo "$inv"; t_fail "ledger vs chassis at the end"; }
echo "end: $inv"
case $inv in *"attached=0 "*) ;; *) t_fail "devices left attached: $inv" ;; esac
exit 0
