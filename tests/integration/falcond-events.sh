#!/bin/sh
# falcond-events.sh - falcond follows the chassis' Redfish events (the
# EventService's SSE stream, with the chassis' credentials): a Critical
# health change injected on a leased device quarantines it with the event as
# reason, records it in StateDir/history.jsonl and tells the job (with
# --no-slurm: the log says it could not tell Slurm); a new compose does not
# get it; a device that goes OK again stays quarantined; a device that
# leaves the fabric is not handed out; the listener reconnects after the
# chassis is killed and restarted on the same port; SIGTERM stops falcond
# promptly with a stream open.  Root only (munged).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/falcond-lib.sh"
fd_need
fd_start_munged

# the chassis on a fixed port (a restart must come back there), with credentials
printf 'admin:s3cret\n' >"$t_tmp/creds"
chmod 600 "$t_tmp/creds"
EV_PORT=$(free_port)
ev_start_sim() {
	mkdir -p "$t_tmp/sim-c1/sysfs"
	rm -f "$t_tmp/sim-c1/port"
	"$SIM" --listen "127.0.0.1:$EV_PORT" --sysfs-root "$t_tmp/sim-c1/sysfs" \
		--port-file "$t_tmp/sim-c1/port" --credentials "$t_tmp/creds" -v \
		2>>"$t_tmp/sim-c1/log" &
	echo $! > "$t_tmp/sim-c1/pid"
	fd_wait_file "$t_tmp/sim-c1/port"
	SIM_PORT_c1=$EV_PORT
}
t_on_exit "kill \$(cat '$t_tmp/sim-c1/pid' 2>/dev/null) 2>/dev/null || true"
ev_start_sim
fd_write_conf
sed -i "s|^ChassisName=c1 .*|& CredentialsFile=$t_tmp/creds|" "$FALCON_CONF"
hist=$t_tmp/state/history.jsonl

# ev_health DEVICE JSON-FRAGMENT - POST /admin/health on the chassis
ev_health() {
	out=$(fd_sim c1 POST /admin/health "{\"device\":\"$1\",$2}")
	case $out in *'"event"'*) ;; *) t_fail "admin/health $1: $out" ;; esac
}
# ev_quarantined DEVICE PATTERN - GET /v1/status shows DEVICE quarantined
# with a reason matching PATTERN (a python regex)
ev_quarantined() {
	[ "$(fd_call GET /v1/status '')" = 200 ] || return 1
	[ "$(fd_json "any(q['device'] == '$1' and __import__('re').search(r'$2', q['reason']) for q in j['quarantine'])")" = True ]
}
# ev_listening N - falcond's log says it listened N times or more
ev_listening() {
	[ "$(grep -c 'events: chassis c1: listening on /redfish/v1/EventService/SSE' "$t_tmp/falcond.log")" -ge "$1" ]
}

fd_start_falcond
wait_for 20 "falcond to listen to c1's events" ev_listening 1 ||
	t_fail "no listener: $(tail -n 5 "$t_tmp/falcond.log")"
t_ok "falcond listens on c1's ServerSentEventUri with its credentials"

"$FALCONCTL" attach --job 5 --host node2 --gpus 2 --json >"$t_tmp/lease5" || t_fail "attach job 5"
dev=$(python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); print(d.get("lease", d)["devices"][0]["id"])' "$t_tmp/lease5")
[ -n "$dev" ] || t_fail "no device in $(cat "$t_tmp/lease5")"

t0=$(date +%s%N)
ev_health "$dev" '"health":"Critical"'
wait_for 10 "$dev quarantined by the event" ev_quarantined "$dev" 'ResourceEvent\.1\.4\.ResourceStatusChangedCritical' ||
	t_fail "$dev not quarantined: $(cat "$t_tmp/out"); log: $(tail -n 5 "$t_tmp/falcond.log")"
t1=$(date +%s%N)
t_ok "Critical on leased $dev: quarantined with the event as reason in $(( (t1 - t0) / 1000000 )) ms"

wait_for 10 "the event in history.jsonl" grep -q "\"device\":\"$dev\".*event: ResourceEvent.1.4.ResourceStatusChangedCritical Critical" "$hist" ||
	t_fail "history.jsonl: $(cat "$hist" 2>/dev/null)"
grep "event: ResourceEvent.1.4.ResourceStatusChangedCritical" "$hist" | grep -q '"job_id":5' ||
	t_fail "the history entry does not name job 5: $(cat "$hist")"
t_ok "history.jsonl records the event with job 5"

grep -q "job 5 not told through Slurm (--no-slurm): falcon-event=c1/$dev:Critical" "$t_tmp/falcond.log" ||
	t_fail "no job notice in the log: $(grep events: "$t_tmp/falcond.log")"
grep -q "holds c1/$dev, now Critical: the job is told, the node is not drained" "$t_tmp/falcond.log" ||
	t_fail "no warning naming the job"
t_ok "the job's notice is logged (no Slurm to tell)"

"$FALCONCTL" detach --job 5 >/dev/null || t_fail "detach job 5"
"$FALCONCTL" attach --job 6 --host node2 --gpus 3 --json >"$t_tmp/lease6" || t_fail "attach job 6"
grep -q "\"$dev\"" "$t_tmp/lease6" && t_fail "job 6 got quarantined $dev: $(cat "$t_tmp/lease6")"
"$FALCONCTL" detach --job 6 >/dev/null || t_fail "detach job 6"
t_ok "a new compose does not get $dev"

# OK again: recorded, still quarantined
ev_health "$dev" '"health":"OK"'
wait_for 10 "the OK event in history.jsonl" grep -q "\"device\":\"$dev\".*ResourceStatusChangedOK" "$hist" ||
	t_fail "OK not recorded"
grep -q "c1/$dev is OK again; it stays quarantined until falconctl unquarantine" "$t_tmp/falcond.log" ||
	t_fail "no 'stays quarantined' log"
ev_quarantined "$dev" 'ResourceStatusChangedCritical' || t_fail "$dev left quarantine on OK"
t_ok "OK again: $dev stays quarantined"

# a device leaves the fabric: not handed out (node3 on H4 has drawer 2's 4 GPUs)
ev_health drawer2_slot1 '"removed":true'
wait_for 10 "the removal in history.jsonl" grep -q '"device":"drawer2_slot1".*ResourceRemoved' "$hist" ||
	t_fail "removal not recorded: $(cat "$hist")"
[ "$(fd_call POST /v1/compose '{"job_id":7,"host":"node3","gpus":4}')" = 409 ] ||
	t_fail "4 GPUs composed on node3 with one removed: $(cat "$t_tmp/out")"
"$FALCONCTL" attach --job 7 --host node3 --gpus 3 --json >"$t_tmp/lease7" || t_fail "attach job 7"
grep -q '"drawer2_slot1"' "$t_tmp/lease7" && t_fail "job 7 got the removed device"
"$FALCONCTL" detach --job 7 >/dev/null || t_fail "detach job 7"
t_ok "a removed device is not handed out"

# the chassis dies and comes back on the same port: the listener reconnects
kill -KILL "$(cat "$t_tmp/sim-c1/pid")"
wait "$(cat "$t_tmp/sim-c1/pid")" 2>/dev/null || true
wait_for 10 "falcond to see the stream drop" grep -q 'events: chassis c1: .*reconnecting in' "$t_tmp/falcond.log" ||
	t_fail "no reconnect message"
ev_start_sim
wait_for 40 "falcond to listen again" ev_listening 2 ||
	t_fail "no reconnect: $(grep events: "$t_tmp/falcond.log" | tail -5)"
ev_health drawer2_slot2 '"health":"Critical"'
wait_for 10 "drawer2_slot2 quarantined after the restart" ev_quarantined drawer2_slot2 'Critical' ||
	t_fail "drawer2_slot2 not quarantined after the chassis restart"
t_ok "the listener reconnected after the chassis restart"

# SIGTERM with a stream open: falcond exits promptly
t0=$(date +%s%N)
fd_stop_falcond
t1=$(date +%s%N)
[ $(( (t1 - t0) / 1000000 )) -lt 3000 ] || t_fail "falcond took $(( (t1 - t0) / 1000000 )) ms to stop"
t_ok "falcond stopped in $(( (t1 - t0) / 1000000 )) ms with a stream open"
