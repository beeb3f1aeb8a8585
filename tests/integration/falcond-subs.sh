#!/bin/sh
# falcond-subs.sh - falcond on a chassis without an SSE stream (falcon-sim
# --no-sse) follows its events by subscription (Events=auto): it
# subscribes with an Operator account, takes the POSTed events on its own
# HTTPS listener (EventListen=, EventCertFile=; the chassis verifies it
# with --event-ca), quarantines a leased device that goes Critical; a
# forged POST (no secret, a wrong one, another chassis) is refused with 401
# and logged and changes nothing; after the chassis restarts (its
# subscriptions gone) falcond subscribes again and events flow; after
# falcond stops its subscription is gone.  The listener refuses TLS 1.0
# and 1.1 to a client that offers them and takes 1.2 and 1.3.  Root only
# (munged).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/falcond-lib.sh"
. "$top_srcdir/tests/integration/tls-lib.sh"
fd_need
fd_start_munged
command -v openssl >/dev/null 2>&1 || t_skip "openssl not found (apt-get install openssl)"

C=$t_tmp/certs
sh "$top_srcdir/scripts/tls-certs.sh" ca "$C" >/dev/null || t_fail "making the CA"
sh "$top_srcdir/scripts/tls-certs.sh" server "$C" falcond IP:127.0.0.1 DNS:localhost >/dev/null ||
	t_fail "making falcond's certificate"
printf 'Administrator admin adminpw\nOperator falcond oppw\n' >"$t_tmp/accounts"
printf 'falcond:oppw\n' >"$t_tmp/creds"
chmod 600 "$t_tmp/creds"

EV_PORT=$(free_port)
sub_start_sim() {
	mkdir -p "$t_tmp/sim-c1/sysfs"
	rm -f "$t_tmp/sim-c1/port"
	"$SIM" --listen "127.0.0.1:$EV_PORT" --sysfs-root "$t_tmp/sim-c1/sysfs" \
		--port-file "$t_tmp/sim-c1/port" --accounts "$t_tmp/accounts" --no-sse \
		--event-ca "$C/ca.pem" -v 2>>"$t_tmp/sim-c1/log" &
	echo $! > "$t_tmp/sim-c1/pid"
	fd_wait_file "$t_tmp/sim-c1/port"
	SIM_PORT_c1=$EV_PORT
}
t_on_exit "kill \$(cat '$t_tmp/sim-c1/pid' 2>/dev/null) 2>/dev/null || true"
sub_start_sim
RECV_PORT=$(free_port)
fd_write_conf "EventListen=127.0.0.1:$RECV_PORT
EventCertFile=$C/falcond.pem
EventKeyFile=$C/falcond.key"
sed -i "s|^ChassisName=c1 .*|& CredentialsFile=$t_tmp/creds Events=auto|" "$FALCON_CONF"
RECV=https://127.0.0.1:$RECV_PORT/redfish-events

# sub_state PYEXPR - evaluate PYEXPR over the chassis' subscriptions as `s`
sub_state() {
	curl -s -u admin:adminpw "http://127.0.0.1:$EV_PORT/admin/state" | python3 -c 'import json, sys
s = json.load(sys.stdin)["subscriptions"]
print(eval(sys.argv[1]))' "$1"
}
sub_count() { [ "$(grep -c 'events: chassis c1: subscribed as' "$t_tmp/falcond.log")" -ge "$1" ]; }
sub_health() {
	out=$(fd_sim c1 POST /admin/health "{\"device\":\"$1\",$2}")
	case $out in *'"event"'*) ;; *) t_fail "admin/health $1: $out" ;; esac
}
sub_quarantined() {
	[ "$(fd_call GET /v1/status '')" = 200 ] || return 1
	[ "$(fd_json "any(q['device'] == '$1' and __import__('re').search(r'$2', q['reason']) for q in j['quarantine'])")" = True ]
}

fd_start_falcond
wait_for 20 "falcond to subscribe to c1" sub_count 1 ||
	t_fail "no subscription: $(grep events: "$t_tmp/falcond.log" | tail -5)"
grep -q "events: chassis c1: .*no ServerSentEventUri: subscribing instead (Events=auto)" \
	"$t_tmp/falcond.log" || t_fail "Events=auto did not say why it subscribes"
[ "$(sub_state '[(x["owner"], x["destination"]) for x in s]')" = \
	"[('falcond', '$RECV/c1')]" ] || t_fail "the chassis' subscriptions: $(sub_state s)"
t_ok "no SSE stream: falcond subscribed with its Operator account, events to $RECV/c1"
tls_versions "falcond's event listener" "127.0.0.1:$RECV_PORT" "$C/ca.pem"

"$FALCONCTL" attach --job 5 --host node2 --gpus 2 --json >"$t_tmp/lease5" || t_fail "attach job 5"
dev=$(python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); print(d.get("lease", d)["devices"][0]["id"])' "$t_tmp/lease5")
t0=$(date +%s%N)
sub_health "$dev" '"health":"Critical"'
wait_for 15 "$dev quarantined by the subscribed event" sub_quarantined "$dev" 'ResourceStatusChangedCritical' ||
	t_fail "$dev not quarantined; falcond: $(grep events: "$t_tmp/falcond.log" | tail -3); sim: $(tail -n 3 "$t_tmp/sim-c1/log")"
t1=$(date +%s%N)
grep -q "job 5 not told through Slurm (--no-slurm): falcon-event=c1/$dev:Critical" "$t_tmp/falcond.log" ||
	t_fail "the job's notice is not logged"
t_ok "Critical on leased $dev, by subscription over HTTPS: quarantined in $(( (t1 - t0) / 1000000 )) ms, the job told"

# forged POSTs: without the secret, with a wrong one, for another chassis
forged='{"@odata.type":"#Event.v1_7_0.Event","Id":"99","Name":"forged","Events":[{"EventType":"StatusChange","EventId":"99","MessageId":"ResourceEvent.1.4.ResourceStatusChangedCritical","MessageArgs":["drawer1_slot8","Critical"],"OriginOfCondition":{"@odata.id":"/redfish/v1/Chassis/Falcon4016/PCIeDevices/drawer1_slot8"}}]}'
for h in "X-None: none" "Authorization: Bearer 0123456789abcdef" "Authorization: Basic YWRtaW46YWRtaW5wdw=="; do
	code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$C/ca.pem" -H "$h" \
		-H 'Content-Type: application/json' --data-binary "$forged" "$RECV/c1")
	[ "$code" = 401 ] || t_fail "a forged POST ($h): HTTP $code"
done
code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$C/ca.pem" --data-binary "$forged" "$RECV/c2")
[ "$code" = 401 ] || t_fail "a POST for an unknown chassis: HTTP $code"
[ "$(grep -c "events: a POST for chassis 'c1' from 127.0.0.1 refused (401)" "$t_tmp/falcond.log")" -ge 3 ] ||
	t_fail "the refusals are not logged: $(grep refused "$t_tmp/falcond.log")"
sleep 1
sub_quarantined drawer1_slot8 . && t_fail "a forged event quarantined drawer1_slot8"
t_ok "forged POSTs (no secret, a wrong one, Basic, another chassis): 401, logged, nothing done"

# the chassis restarts: its subscriptions are gone; falcond subscribes again
kill -KILL "$(cat "$t_tmp/sim-c1/pid")"
wait "$(cat "$t_tmp/sim-c1/pid")" 2>/dev/null || true
sub_start_sim
wait_for 45 "falcond to subscribe again" sub_count 2 ||
	t_fail "no new subscription: $(grep events: "$t_tmp/falcond.log" | tail -5)"
grep -q "events: chassis c1: .*is gone; subscribing again" "$t_tmp/falcond.log" ||
	t_fail "the log does not say the subscription was gone"
[ "$(sub_state 'len(s)')" = 1 ] || t_fail "after the restart: $(sub_state s)"
sub_health drawer2_slot2 '"health":"Critical"'
wait_for 15 "drawer2_slot2 quarantined after the restart" sub_quarantined drawer2_slot2 Critical ||
	t_fail "drawer2_slot2 not quarantined after the chassis restart"
t_ok "after the chassis restarted: subscribed again, events flow"

t0=$(date +%s%N)
fd_stop_falcond
t1=$(date +%s%N)
grep -q "events: chassis c1: subscription /redfish/v1/EventService/Subscriptions/.* deleted" \
	"$t_tmp/falcond.log" || t_fail "falcond did not say it deleted its subscription"
[ "$(sub_state 'len(s)')" = 0 ] || t_fail "after falcond stopped: $(sub_state s)"
t_ok "falcond stopped in $(( (t1 - t0) / 1000000 )) ms and its subscription is gone"
