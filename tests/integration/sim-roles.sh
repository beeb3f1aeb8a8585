#!/bin/sh
# sim-roles.sh - falcon-sim's AccountService (Accounts, the predefined
# Roles Administrator / Operator / ReadOnly) and the privilege checks of
# DSP0266 sec. 13.4 per resource and method, over HTTPS: with curl, with
# DMTF's redfishtool (AccountService and Managers commands) and with
# Debian's python3-sushy (the chassis inventory: Links.ComputerSystems and
# ManagedBy, the Manager, the EventService).  A ReadOnly account gets 403
# on a zone PATCH; an Operator (falcond's role) changes zones, not accounts.
# A PATCH of an account holding only OData annotations changes nothing and
# is answered 200 (DMTF's Protocol Validator, REQ_PATCH_ODATA_PROPS).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/sim-lib.sh"

command -v openssl >/dev/null 2>&1 || t_skip "openssl not found (apt-get install openssl)"
C=$t_tmp/certs
sh "$top_srcdir/scripts/tls-certs.sh" ca "$C" || t_fail "making the CA"
sh "$top_srcdir/scripts/tls-certs.sh" server "$C" sim IP:127.0.0.1 DNS:localhost
printf '# ROLE USER PASSWORD\nAdministrator admin adminpw\nOperator falcond oppw\nReadOnly mon ropw\n' \
	>"$t_tmp/accounts"
sim_start --accounts "$t_tmp/accounts" --tls-cert "$C/sim.pem" --tls-key "$C/sim.key"
SIM_BASE=https://127.0.0.1:$SIM_PORT
CA="--cacert $C/ca.pem"
SIM_CURL_OPTS=$CA
ZONE=$RF/Fabrics/PCIe/Zones/H1

req GET "$RF/AccountService/Roles" '' $CA -u mon:ropw
expect 200 "ReadOnly reads the Roles"
[ "$(jget 'sorted(m["@odata.id"].split("/")[-1] for m in d["Members"])')" = \
	'["Administrator", "Operator", "ReadOnly"]' ] || t_fail "roles: $(cat "$t_tmp/body")"
req GET "$RF/AccountService/Roles/Operator" '' $CA -u mon:ropw
[ "$(jget 'd["AssignedPrivileges"]')" = '["Login", "ConfigureComponents", "ConfigureSelf"]' ] ||
	t_fail "Operator's privileges: $(cat "$t_tmp/body")"
req GET "$RF/AccountService/Roles/ReadOnly" '' $CA -u mon:ropw
[ "$(jget 'd["AssignedPrivileges"]')" = '["Login", "ConfigureSelf"]' ] || t_fail "ReadOnly's"
t_ok "the predefined roles and their privileges"

req PATCH "$ZONE" "$(zone_body drawer1_slot1)" $CA -u mon:ropw
expect 403 "ReadOnly: zone PATCH"
[ "$(jget 'd["error"]["code"]')" = Base.1.16.InsufficientPrivilege ] || t_fail "403 code"
jget 'd["error"]["message"]' | grep -q ConfigureComponents || t_fail "403 does not name the privilege"
[ "$(owner drawer1_slot1)" = None ] || t_fail "the refused PATCH changed the zone"
req PATCH "$ZONE" "$(zone_body drawer1_slot1)" $CA -u falcond:oppw
expect 200 "Operator: zone PATCH"
req PATCH "$ZONE" "$(zone_body)" $CA -u falcond:oppw
expect 200 "Operator: zone emptied"
req POST "$RF/AccountService/Accounts" '{"UserName":"x","Password":"y","RoleId":"ReadOnly"}' $CA -u falcond:oppw
expect 403 "Operator: account POST (ConfigureUsers)"
req POST "$RF/EventService/Actions/EventService.SubmitTestEvent" '{}' $CA -u falcond:oppw
expect 403 "Operator: SubmitTestEvent (ConfigureManager)"
req POST "$RF/AccountService/Accounts" '{"UserName":"ops2","Password":"pw2","RoleId":"Operator"}' $CA -u admin:adminpw
expect 201 "Administrator: account POST"
ACC=$(jget 'd["@odata.id"]')
req POST "$RF/AccountService/Accounts" '{"UserName":"ops2","Password":"pw3","RoleId":"Operator"}' $CA -u admin:adminpw
expect 409 "the same name again"
req PATCH "$ZONE" "$(zone_body drawer1_slot2)" $CA -u ops2:pw2
expect 200 "the new Operator changes a zone"
req PATCH "$ZONE" "$(zone_body)" $CA -u ops2:pw2
# ConfigureSelf: the own password, nothing else
req PATCH "$ACC" '{"RoleId":"Administrator"}' $CA -u ops2:pw2
expect 403 "an Operator raising its own role"
req PATCH "$ACC" '{"Password":"pw4"}' $CA -u ops2:pw2
expect 200 "an Operator changing its own password (ConfigureSelf)"
req PATCH "$ACC" "{\"@odata.id\":\"$ACC\"}" $CA -u ops2:pw4
expect 200 "PATCH of its own account with only @odata.id (ConfigureSelf): nothing to change"
[ "$(jget 'd["RoleId"]')" = Operator ] || t_fail "the annotation-only PATCH: $(cat "$t_tmp/body")"
req PATCH "$ACC" "{\"@odata.id\":\"$ACC\",\"@odata.etag\":\"W/\\\"x\\\"\"}" $CA -u admin:adminpw
expect 200 "Administrator: PATCH with only @odata.id and @odata.etag"
req PATCH "$ACC" "{\"@odata.id\":\"$ACC\",\"BogusProp\":1}" $CA -u admin:adminpw
expect 400 "an annotation beside an unknown property"
jget 'd["error"]["message"]' | grep -q BogusProp || t_fail "400 does not name BogusProp"
req GET "$ACC" '' $CA -u ops2:pw4
expect 200 "the new password works"
[ "$(jget 'd["Password"]')" = null ] || t_fail "the password is readable"
req DELETE "$ACC" '' $CA -u admin:adminpw
expect 204 "Administrator: account DELETE"
req GET "$RF" '' $CA -u ops2:pw4
expect 200 "the service root needs no account"
req GET "$RF/Chassis" '' $CA -u ops2:pw4
expect 401 "a deleted account is refused"
# a session carries its account's role
req POST "$RF/SessionService/Sessions" '{"UserName":"mon","Password":"ropw"}' $CA
expect 201 "ReadOnly session"
tok=$(sed -n 's/^[Xx]-[Aa]uth-[Tt]oken: *//p' "$t_tmp/hdr" | tr -d '\r')
sess=$(jget 'd["@odata.id"]')
req PATCH "$ZONE" "$(zone_body drawer1_slot1)" $CA -H "X-Auth-Token: $tok"
expect 403 "ReadOnly session: zone PATCH"
req DELETE "$sess" '' $CA -H "X-Auth-Token: $tok"
expect 204 "ReadOnly deletes its own session (ConfigureSelf)"
t_ok "privileges per resource and method"

# Chassis Links and the Manager
req GET "$RF/Chassis/falcon1" '' $CA -u mon:ropw
[ "$(jget 'd["Links"]["ManagedBy"][0]["@odata.id"]')" = "$RF/Managers/BMC" ] || t_fail "ManagedBy"
[ "$(jget 'len(d["Links"]["ComputerSystems"])')" = 4 ] || t_fail "ComputerSystems"
[ "$(jget 'len(d["Links"]["PCIeDevices"])')" = 9 ] || t_fail "PCIeDevices"
req GET "$RF/Managers/BMC" '' $CA -u mon:ropw
[ "$(jget 'd["Links"]["ManagerForChassis"][0]["@odata.id"]')" = "$RF/Chassis/falcon1" ] ||
	t_fail "ManagerForChassis"
t_ok "Chassis Links (ComputerSystems, PCIeDevices, ManagedBy) and Managers/BMC"

# redfishtool (DMTF's CLI): AccountService and Managers
if command -v redfishtool >/dev/null 2>&1; then
	rft() { redfishtool -r "127.0.0.1:$SIM_PORT" -S Always "$@" >"$t_tmp/rft.out" 2>&1; }
	rft -u admin -p adminpw AccountService Roles || t_fail "redfishtool Roles: $(cat "$t_tmp/rft.out")"
	grep -q '/AccountService/Roles/ReadOnly' "$t_tmp/rft.out" || t_fail "redfishtool Roles output"
	rft -u admin -p adminpw AccountService adduser rft1 rftpw ReadOnly ||
		t_fail "redfishtool adduser: $(cat "$t_tmp/rft.out")"
	rft -u admin -p adminpw AccountService Accounts || t_fail "redfishtool Accounts"
	rft -u rft1 -p rftpw AccountService adduser rft2 pw ReadOnly &&
		t_fail "a ReadOnly account added a user"
	grep -q 403 "$t_tmp/rft.out" || t_fail "redfishtool: no 403: $(cat "$t_tmp/rft.out")"
	rft -u admin -p adminpw AccountService deleteuser rft1 ||
		t_fail "redfishtool deleteuser: $(cat "$t_tmp/rft.out")"
	rft -u mon -p ropw Managers || t_fail "redfishtool Managers: $(cat "$t_tmp/rft.out")"
	grep -q '/redfish/v1/Managers/BMC' "$t_tmp/rft.out" || t_fail "redfishtool Managers output"
	rft -u mon -p ropw Managers -1 || t_fail "redfishtool Managers -1: $(cat "$t_tmp/rft.out")"
	grep -q EnclosureManager "$t_tmp/rft.out" || t_fail "redfishtool Managers -1 output"
	t_ok "redfishtool: AccountService Roles/adduser/Accounts/deleteuser (403 for ReadOnly), Managers"
else
	echo "redfishtool not installed (apt-get install redfishtool): its part skipped"
fi

# python3-sushy: chassis inventory, the manager, the event service
PY=
for p in /usr/bin/python3 python3; do
	if "$p" -c 'import sushy' 2>/dev/null; then PY=$p; break; fi
done
if [ -n "$PY" ]; then
	# requests prefers REQUESTS_CA_BUNDLE over the verify= sushy passes
	env -u REQUESTS_CA_BUNDLE -u CURL_CA_BUNDLE "$PY" - "$SIM_BASE/redfish/v1" "$C/ca.pem" \
		>"$t_tmp/sushy.out" 2>&1 <<'PY' || { cat "$t_tmp/sushy.out" >&2; t_fail "sushy"; }
import sys
import sushy
from sushy import auth
a = auth.SessionAuth('mon', 'ropw')
s = sushy.Sushy(sys.argv[1], auth=a, verify=sys.argv[2])
ch = s.get_chassis(s.get_chassis_collection().members_identities[0])
systems = sorted(x.identity for x in ch.systems)
assert systems == ['H1', 'H2', 'H3', 'H4'], systems
mgrs = ch.managers
assert [m.identity for m in mgrs] == ['BMC'], mgrs
m = s.get_manager(s.get_manager_collection().members_identities[0])
assert [c.identity for c in m.chassis] == ['falcon1'], m.chassis
es = s.get_event_service()
assert es.service_enabled
print('chassis', ch.identity, 'systems', systems, 'manager', m.identity, m.manager_type)
a.close()
PY
	cat "$t_tmp/sushy.out"
	t_ok "sushy: chassis inventory (systems, managers), the Manager, the EventService"
else
	echo "python3-sushy not installed: its part skipped"
fi
