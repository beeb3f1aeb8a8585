#!/bin/sh
# sim-subs.sh - falcon-sim's EventService subscriptions (DSP0266 1.20 sec.
# 13.5.3) over HTTPS with accounts: the Subscriptions link, create (201,
# Location; Destination and Protocol required), list, read (HttpHeaders
# null), delete; events POSTed to an HTTPS listener (verified with
# --event-ca) and to an HTTP one, with the subscription's HttpHeaders and
# Context; RegistryPrefixes / ResourceTypes filters; the privileges
# (ReadOnly may not subscribe: the 403 names ConfigureComponents and
# ConfigureManager, either of which would do; an Operator may and deletes
# only its own);
# --no-sse leaves ServerSentEventUri out; python3-sushy's event service
# lists, creates and deletes a subscription.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/sim-lib.sh"

command -v openssl >/dev/null 2>&1 || t_skip "openssl not found (apt-get install openssl)"
C=$t_tmp/certs
sh "$top_srcdir/scripts/tls-certs.sh" ca "$C" || t_fail "making the CA"
sh "$top_srcdir/scripts/tls-certs.sh" server "$C" sim IP:127.0.0.1 DNS:localhost
sh "$top_srcdir/scripts/tls-certs.sh" server "$C" rcv IP:127.0.0.1 DNS:localhost

# A listener: every POST as one JSON line {path, headers, body} in $1.log;
# answers 204 (or 500 when the path ends in /fail).  $2: https with rcv.pem.
receiver() {
	python3 - "$1" "$2" "$C" >"$1.out" 2>&1 <<'PY' &
import http.server, json, ssl, sys
log, tls, certs = sys.argv[1], sys.argv[2] == "https", sys.argv[3]
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n).decode()
        with open(log + ".log", "a") as f:
            f.write(json.dumps({"path": self.path, "headers": dict(self.headers),
                                "body": json.loads(body)}) + "\n")
        self.send_response(500 if self.path.endswith("/fail") else 204)
        self.end_headers()
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
if tls:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(certs + "/rcv.pem", certs + "/rcv.key")
    s.socket = ctx.wrap_socket(s.socket, server_side=True)
open(log + ".port.tmp", "w").write(str(s.server_address[1]))
import os
os.rename(log + ".port.tmp", log + ".port")
s.serve_forever()
PY
	eval "RCV_PID_$3=\$!"
	wait_for 20 "receiver $1" test -s "$1.port" || t_fail "receiver $1 did not start"
}
receiver "$t_tmp/tls" https A
receiver "$t_tmp/plain" http B
t_on_exit 'kill $RCV_PID_A $RCV_PID_B 2>/dev/null || true'
TLS_URL=https://localhost:$(cat "$t_tmp/tls.port")/events
PLAIN_URL=http://127.0.0.1:$(cat "$t_tmp/plain.port")/events

printf 'Administrator admin adminpw\nOperator falcond oppw\nOperator other otpw\nReadOnly mon ropw\n' \
	>"$t_tmp/accounts"
sim_start --accounts "$t_tmp/accounts" --tls-cert "$C/sim.pem" --tls-key "$C/sim.key" \
	--event-ca "$C/ca.pem" --no-sse
SIM_BASE=https://127.0.0.1:$SIM_PORT
CA="--cacert $C/ca.pem"
SUBS=$RF/EventService/Subscriptions

req GET "$RF/EventService" '' $CA -u mon:ropw
expect 200 "EventService"
[ "$(jget 'd["Subscriptions"]["@odata.id"]')" = "$SUBS" ] || t_fail "no Subscriptions link"
[ "$(jget '"ServerSentEventUri" in d')" = False ] || t_fail "--no-sse still names an SSE URI"
req GET "$RF/EventService/SSE" '' $CA -u mon:ropw
expect 404 "--no-sse: the SSE stream"

req POST "$SUBS" "{\"Destination\":\"$TLS_URL\",\"Protocol\":\"Redfish\"}" $CA -u mon:ropw
expect 403 "ReadOnly: subscribe"
jget 'd["error"]["message"]' | grep -q 'needs ConfigureComponents or ConfigureManager' ||
	t_fail "the 403 does not name the two privileges that allow it: $(cat "$t_tmp/body")"
req POST "$SUBS" '{"Protocol":"Redfish"}' $CA -u falcond:oppw
expect 400 "no Destination"
[ "$(jget 'd["error"]["code"]')" = Base.1.16.PropertyMissing ] || t_fail "400 code"
req POST "$SUBS" "{\"Destination\":\"$TLS_URL\",\"Protocol\":\"SNMPv2c\"}" $CA -u falcond:oppw
expect 400 "Protocol SNMPv2c"
req POST "$SUBS" "{\"Destination\":\"ftp://x/\",\"Protocol\":\"Redfish\"}" $CA -u falcond:oppw
expect 400 "an ftp:// Destination"
req POST "$SUBS" "{\"Destination\":\"$TLS_URL\",\"Protocol\":\"Redfish\",\"HttpHeaders\":{\"X-A\":\"a\\r\\nX-B: b\"}}" \
	$CA -u falcond:oppw
expect 400 "a header value with CR LF"

req POST "$SUBS" "{\"Destination\":\"$TLS_URL\",\"Protocol\":\"Redfish\",\"Context\":\"falcond-1\",
	\"RegistryPrefixes\":[\"ResourceEvent\"],\"ResourceTypes\":[\"PCIeDevice\"],
	\"HttpHeaders\":{\"Authorization\":\"Bearer s3cret-1\"}}" $CA -u falcond:oppw
expect 201 "Operator: subscribe (HTTPS destination)"
S1=$(sed -n 's/^[Ll]ocation: *//p' "$t_tmp/hdr" | tr -d '\r')
[ "$S1" = "$(jget 'd["@odata.id"]')" ] || t_fail "Location $S1 is not the new resource"
[ "$(jget 'd["HttpHeaders"]')" = null ] || t_fail "HttpHeaders shown: $(cat "$t_tmp/body")"
grep -q s3cret "$t_tmp/body" && t_fail "the secret is in the answer"
[ "$(jget 'd["Context"]')" = falcond-1 ] || t_fail "Context"
req POST "$SUBS" "{\"Destination\":\"$PLAIN_URL\",\"Protocol\":\"Redfish\",\"Context\":\"base-only\",
	\"RegistryPrefixes\":[\"Base\"]}" $CA -u admin:adminpw
expect 201 "Administrator: subscribe (HTTP destination, Base only)"
S2=$(jget 'd["@odata.id"]')
req POST "$SUBS" "{\"Destination\":\"$PLAIN_URL/all\",\"Protocol\":\"Redfish\",\"Context\":\"all\"}" \
	$CA -u other:otpw
expect 201 "another Operator: subscribe to everything"
S3=$(jget 'd["@odata.id"]')
req GET "$SUBS" '' $CA -u mon:ropw
expect 200 "the Subscriptions collection"
[ "$(jget 'd["Members@odata.count"]')" = 3 ] || t_fail "members: $(cat "$t_tmp/body")"
req GET "$S1" '' $CA -u mon:ropw
expect 200 "one subscription"
[ "$(jget 'd["@odata.type"]')" = "#EventDestination.v1_13_0.EventDestination" ] || t_fail type

# a device turns Critical: the PCIeDevice event goes to S1 (HTTPS, its
# header) and S3, not to S2 (Base only)
curl -s -m 10 $CA -o /dev/null -X POST -d '{"device":"drawer1_slot2","health":"Critical"}' \
	"$SIM_BASE/admin/health"
wait_for 20 "the event at the HTTPS listener" grep -q Critical "$t_tmp/tls.log" ||
	{ cat "$t_tmp/sim.log" >&2; t_fail "no event delivered over HTTPS"; }
python3 - "$t_tmp/tls.log" <<'PY' || t_fail "the delivered event"
import json, sys
e = [json.loads(l) for l in open(sys.argv[1])]
assert len(e) == 1, e
h, b = e[0]["headers"], e[0]["body"]
assert h["Authorization"] == "Bearer s3cret-1", h
assert h["Content-Type"].startswith("application/json"), h
assert b["Context"] == "falcond-1", b
r = b["Events"][0]
assert r["MessageId"] == "ResourceEvent.1.4.ResourceStatusChangedCritical", r
assert r["OriginOfCondition"]["@odata.id"].endswith("/PCIeDevices/drawer1_slot2"), r
PY
t_ok "a Critical device: delivered over HTTPS with its HttpHeaders and Context"
wait_for 20 "the event at S3" grep -q '"/events/all"' "$t_tmp/plain.log" || t_fail "S3 got nothing"
# a test event (ResourceEvent, no origin): S3 takes it, S1's ResourceTypes do not
req POST "$RF/EventService/Actions/EventService.SubmitTestEvent" '{"Message":"ping"}' $CA -u admin:adminpw
expect 204 "SubmitTestEvent"
wait_for 20 "the test event at S3" grep -q ping "$t_tmp/plain.log" || t_fail "S3: no test event"
sleep 1
[ "$(wc -l <"$t_tmp/tls.log")" = 1 ] || t_fail "S1 got an event its ResourceTypes filter out"
grep -q '"base-only"' "$t_tmp/plain.log" && t_fail "S2 (Base only) got a ResourceEvent"
t_ok "RegistryPrefixes and ResourceTypes filter"

req DELETE "$S1" '' $CA -u other:otpw
expect 403 "an Operator deleting another's subscription"
req DELETE "$S1" '' $CA -u falcond:oppw
expect 204 "the owner deletes its subscription"
req GET "$S1" '' $CA -u falcond:oppw
expect 404 "a deleted subscription"
req DELETE "$S2" '' $CA -u admin:adminpw
expect 204 "ConfigureManager deletes any"
curl -s -m 10 $CA -o /dev/null -X POST -d '{"device":"drawer1_slot2","health":"OK"}' \
	"$SIM_BASE/admin/health"
wait_for 20 "the OK event at S3" grep -q '"OK"' "$t_tmp/plain.log" || t_fail "S3 missed OK"
[ "$(wc -l <"$t_tmp/tls.log")" = 1 ] || t_fail "a deleted subscription still gets events"
t_ok "deleted: nothing more is sent"

# a destination that keeps failing ends its subscription (TerminateAfterRetries)
req POST "$SUBS" "{\"Destination\":\"$PLAIN_URL/fail\",\"Protocol\":\"Redfish\"}" $CA -u admin:adminpw
expect 201 "a subscription to a failing destination"
S4=$(jget 'd["@odata.id"]')
curl -s -m 10 $CA -o /dev/null -X POST -d '{"device":"drawer1_slot3","health":"Warning"}' \
	"$SIM_BASE/admin/health"
wait_for 30 "the failing subscription to end" sh -c \
	"[ \"\$(curl -s -o /dev/null -w '%{http_code}' $CA -u admin:adminpw $SIM_BASE$S4)\" = 404 ]" ||
	t_fail "a subscription whose deliveries fail stays"
[ "$(grep -c '"/events/fail"' "$t_tmp/plain.log")" = 3 ] || t_fail "not 3 tries"
t_ok "3 failed tries end a subscription"
req DELETE "$S3" '' $CA -u other:otpw
expect 204 "S3 deleted by its owner"

# python3-sushy's event service (Debian's package): list, create, delete
PY=
for p in /usr/bin/python3 python3; do
	if "$p" -c 'import sushy' 2>/dev/null; then PY=$p; break; fi
done
if [ -z "$PY" ]; then
	echo "python3-sushy not installed: its event service part skipped"
else
	# requests prefers REQUESTS_CA_BUNDLE over the verify= sushy passes
	env -u REQUESTS_CA_BUNDLE -u CURL_CA_BUNDLE "$PY" - "$SIM_BASE/redfish/v1" "$C/ca.pem" "$PLAIN_URL/sushy" >"$t_tmp/sushy.out" 2>&1 <<'PY' ||
import sys
import sushy
from sushy import auth
s = sushy.Sushy(sys.argv[1], auth=auth.SessionAuth('falcond', 'oppw'), verify=sys.argv[2])
es = s.get_event_service()
assert es.service_enabled, es
subs = es.subscriptions
assert len(subs.members_identities) == 0, subs.members_identities
d = subs.create({"Destination": sys.argv[3], "Protocol": "Redfish", "Context": "sushy"})
subs.refresh()
assert len(subs.members_identities) == 1, subs.members_identities
assert d.destination == sys.argv[3] and d.context == "sushy", (d.destination, d.context)
d.delete()
subs.refresh()
assert len(subs.members_identities) == 0, subs.members_identities
print("ok")
PY
	{ cat "$t_tmp/sushy.out" >&2; t_fail "sushy's event service"; }
	t_ok "python3-sushy: create, read, list and delete a subscription"
fi
sim_stop || t_fail "falcon-sim did not stop cleanly"

