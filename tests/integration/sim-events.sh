#!/bin/sh
# sim-events.sh - falcon-sim's EventService: POST /admin/health changes a
# device's Status in the Redfish tree and sends a DMTF Event (ResourceEvent
# registry) on the ServerSentEventUri, with "id:" lines a client resumes
# from (Last-Event-ID); the stream needs auth like any other resource when
# the sim runs with --credentials, and ends when the sim stops.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/sim-lib.sh"

printf 'admin:s3cret\n' >"$t_tmp/creds"
chmod 600 "$t_tmp/creds"
sim_start --credentials "$t_tmp/creds"
AUTH="-u admin:s3cret"

req GET "$RF/" '' $AUTH
[ "$(jget 'd["EventService"]["@odata.id"]')" = "$RF/EventService" ] || t_fail "root links no EventService"
req GET "$RF/EventService" '' $AUTH
expect 200 "EventService"
[ "$(jget 'd["ServiceEnabled"]')" = True ] || t_fail "EventService not enabled"
SSE=$(jget 'd["ServerSentEventUri"]')
[ "$SSE" = "$RF/EventService/SSE" ] || t_fail "ServerSentEventUri '$SSE'"
req GET "$RF/\$metadata" '' $AUTH
grep -q 'Namespace="EventService.v1_10_0"' "$t_tmp/body" || t_fail "\$metadata lacks EventService"
grep -q 'Namespace="Event.v1_7_0"' "$t_tmp/body" || t_fail "\$metadata lacks Event"

# the stream needs credentials like any other resource
code=$(curl -s -m 5 -o /dev/null -w '%{http_code}' "$SIM_BASE$SSE")
[ "$code" = 401 ] || t_fail "anonymous SSE: HTTP $code, expected 401"
t_ok "SSE without credentials is 401"

# one reader from now on, in the background
curl -sN -m 30 $AUTH -D "$t_tmp/sse.hdr" "$SIM_BASE$SSE" >"$t_tmp/sse1" 2>/dev/null &
CURL1=$!
t_on_exit "kill $CURL1 2>/dev/null || true"
wait_for 10 "the SSE reader's headers" grep -qi '^content-type: text/event-stream' "$t_tmp/sse.hdr" ||
	t_fail "no text/event-stream answer"
t_ok "SSE answers text/event-stream"

req POST /admin/health '{"device":"drawer1_slot2","health":"Critical"}'
expect 200 "inject Critical"
[ "$(jget 'd["event"]')" = 1 ] || t_fail "first event id: $(cat "$t_tmp/body")"
req POST /admin/health '{"device":"drawer1_slot2","health":"Critical"}'
[ "$(jget 'd["event"]')" = null ] || t_fail "no change sent an event"
req POST /admin/health '{"device":"drawer2_slot5","removed":true}'
expect 200 "inject a removal"
req POST /admin/health '{"device":"drawer1_slot8","health":"Critical"}'
expect 400 "an empty slot"
req POST /admin/health '{"device":"drawer1_slot1","health":"Bad"}'
expect 400 "an unknown health"
req POST /admin/health '{"device":"drawer1_slot1"}'
expect 400 "neither health nor removed"
req GET /admin/health
expect 405 "GET /admin/health"

req GET "$RF/Chassis/falcon1/PCIeDevices/drawer1_slot2" '' $AUTH
[ "$(jget 'd["Status"]["Health"]')" = Critical ] || t_fail "PCIeDevice health not Critical"
req GET "$RF/Fabrics/PCIe/Endpoints/drawer1_slot2" '' $AUTH
[ "$(jget 'd["Status"]["Health"]')" = Critical ] || t_fail "Endpoint health not Critical"
req GET "$RF/Fabrics/PCIe/Endpoints/drawer2_slot5" '' $AUTH
[ "$(jget 'd["Status"]["State"]')" = Absent ] || t_fail "removed device not Absent"
t_ok "the Redfish tree shows the health and the removal"

wait_for 10 "two events on the stream" sh -c "grep -c '^data: ' '$t_tmp/sse1' | grep -qx 2" ||
	{ cat "$t_tmp/sse1" >&2; t_fail "events not streamed"; }
python3 - "$t_tmp/sse1" <<'PY' || t_fail "stream content"
import json, sys
evs, ids = [], []
for block in open(sys.argv[1]).read().split("\n\n"):
    data = [l[6:] for l in block.split("\n") if l.startswith("data: ")]
    ids += [l[4:] for l in block.split("\n") if l.startswith("id: ")]
    if data:
        evs.append(json.loads("\n".join(data)))
assert ids == ["1", "2"], ids
e = evs[0]
assert e["@odata.type"].startswith("#Event.v1_"), e
r = e["Events"][0]
assert r["MessageId"] == "ResourceEvent.1.4.ResourceStatusChangedCritical", r
assert r["MessageArgs"] == ["drawer1_slot2", "Critical"], r
assert r["OriginOfCondition"]["@odata.id"].endswith("/PCIeDevices/drawer1_slot2"), r
assert r["Severity"] == "Critical", r
r = evs[1]["Events"][0]
assert r["MessageId"] == "ResourceEvent.1.4.ResourceRemoved", r
assert r["EventType"] == "ResourceRemoved", r
assert r["OriginOfCondition"]["@odata.id"].endswith("/drawer2_slot5"), r
PY
t_ok "Events with ResourceEvent MessageIds and OriginOfCondition, ids 1 and 2"

# the removed device comes back: ResourceCreated, with its own text and EventType
req POST /admin/health '{"device":"drawer2_slot5","removed":false}'
expect 200 "drawer2_slot5 back on the fabric"
curl -sN -m 3 $AUTH -H 'Last-Event-ID: 2' "$SIM_BASE$SSE" >"$t_tmp/sse4" 2>/dev/null || true
python3 - "$t_tmp/sse4" <<'PY' || { cat "$t_tmp/sse4" >&2; t_fail "ResourceCreated event"; }
import json, sys
data = [l[6:] for l in open(sys.argv[1]).read().split("\n") if l.startswith("data: ")]
assert len(data) == 1, data
r = json.loads(data[0])["Events"][0]
assert r["MessageId"] == "ResourceEvent.1.4.ResourceCreated", r
assert r["EventType"] == "ResourceAdded", r
assert r["Message"] == "The resource was created successfully.", r
PY
t_ok "a device coming back is ResourceCreated, EventType ResourceAdded, 'created' text"

# a client that saw event 1 resumes with Last-Event-ID and gets 2 (and 3)
curl -sN -m 3 $AUTH -H 'Last-Event-ID: 1' "$SIM_BASE$SSE" >"$t_tmp/sse2" 2>/dev/null || true
grep -q '^id: 2$' "$t_tmp/sse2" && ! grep -q '^id: 1$' "$t_tmp/sse2" ||
	{ cat "$t_tmp/sse2" >&2; t_fail "Last-Event-ID: 1 did not resume at 2"; }
t_ok "Last-Event-ID resumes"

# a session token works too, and a quiet stream carries keep-alive comments
req POST "$RF/SessionService/Sessions" '{"UserName":"admin","Password":"s3cret"}'
tok=$(sed -n 's/^[Xx]-[Aa]uth-[Tt]oken: *//p' "$t_tmp/hdr" | tr -d '\r')
curl -sN -m 7 -H "X-Auth-Token: $tok" "$SIM_BASE$SSE" >"$t_tmp/sse3" 2>/dev/null || true
grep -q '^: keep-alive' "$t_tmp/sse3" || t_fail "no keep-alive comment in 7 s"
t_ok "session token accepted; keep-alive comments"

# stopping the sim ends the open stream promptly (the reader exits)
t0=$(date +%s)
sim_stop
wait "$CURL1" 2>/dev/null || true
[ $(( $(date +%s) - t0 )) -le 5 ] || t_fail "the SSE stream held the sim's stop"
t_ok "stop ends the stream"
