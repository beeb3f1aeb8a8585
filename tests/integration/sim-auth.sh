#!/bin/sh
# sim-auth.sh - falcon-sim with --credentials: the service root is open,
# everything else needs basic auth or a Redfish session (POST
# SessionService/Sessions gives X-Auth-Token and Location; DELETE ends it).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/sim-lib.sh"

printf 'admin:s3cret\n' >"$t_tmp/creds"
chmod 600 "$t_tmp/creds"
sim_start --credentials "$t_tmp/creds"
grep -q 'accepting anonymous' "$t_tmp/sim.log" && t_fail "anonymous with --credentials"

req GET "$RF/"
expect 200 "service root needs no auth"
req GET "$RF/Fabrics/PCIe/Zones"
expect 401 "no credentials"
grep -qi '^WWW-Authenticate: Basic' "$t_tmp/hdr" || t_fail "401 without WWW-Authenticate"
[ "$(jget 'd["error"]["@Message.ExtendedInfo"][0]["MessageId"]')" = Base.1.16.NoValidSession ] || t_fail "401 body"
req GET "$RF/Fabrics/PCIe/Zones" '' -u admin:wrong
expect 401 "wrong password"
req GET "$RF/Fabrics/PCIe/Zones" '' -u admin:s3cret
expect 200 "basic auth"
req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body drawer1_slot1)"
expect 401 "PATCH without credentials"
[ "$(owner drawer1_slot1)" = None ] || t_fail "unauthenticated PATCH applied"

req POST "$RF/SessionService/Sessions" '{"UserName":"admin","Password":"bad"}'
expect 401 "session with a bad password"
req POST "$RF/SessionService/Sessions" '{"UserName":"admin"}'
expect 400 "session without a password"
req POST "$RF/SessionService/Sessions" '{"UserName":"admin","Password":"s3cret"}'
expect 201 "session created"
tok=$(sed -n 's/^[Xx]-[Aa]uth-[Tt]oken: *//p' "$t_tmp/hdr" | tr -d '\r')
loc=$(sed -n 's/^[Ll]ocation: *//p' "$t_tmp/hdr" | tr -d '\r')
[ -n "$tok" ] || t_fail "no X-Auth-Token"
case $loc in $RF/SessionService/Sessions/*) ;; *) t_fail "Location: '$loc'" ;; esac
[ "$(jget 'd["@odata.id"]')" = "$loc" ] || t_fail "session @odata.id != Location"

req PATCH "$RF/Fabrics/PCIe/Zones/H1" "$(zone_body drawer1_slot1)" -H "X-Auth-Token: $tok"
expect 200 "PATCH with a session token"
req GET "$RF/SessionService/Sessions" '' -H "X-Auth-Token: $tok"
expect 200 "list sessions"
[ "$(jget 'd["Members@odata.count"]')" = 1 ] || t_fail "one session"
req GET "$RF/Fabrics/PCIe/Zones" '' -H "X-Auth-Token: nope"
expect 401 "bad token"
req DELETE "$loc" '' -H "X-Auth-Token: $tok"
expect 204 "session deleted"
req GET "$RF/Fabrics/PCIe/Zones" '' -H "X-Auth-Token: $tok"
expect 401 "token of a deleted session"
req DELETE "$loc" '' -u admin:s3cret
expect 404 "session already gone"
sim_stop

# A credentials file that is not "user:password" is refused at start.
echo 'nocolon' >"$t_tmp/bad"
"$SIM" --listen 127.0.0.1:0 --sysfs-root "$SIM_ROOT" --credentials "$t_tmp/bad" 2>"$t_tmp/err" &&
	t_fail "bad credentials file accepted"
grep -q 'expected one line "user:password"' "$t_tmp/err" || t_fail "$(cat "$t_tmp/err")"
t_ok "bad credentials file refused"
