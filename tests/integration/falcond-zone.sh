#!/bin/sh
# falcond-zone.sh - falcond keeps each zone as it last wrote it and PATCHes
# from that copy with If-Match: a zone changed behind its back (an
# administrator attaching a device directly on the chassis) must make that
# PATCH fail with 412, be read again, and keep the administrator's change.
# Root only (munged).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/falcond-lib.sh"
fd_need
fd_setup
Z=/redfish/v1/Fabrics/PCIe/Zones/H1

# zone_eps - the device endpoints of zone H1, sorted, one line
zone_eps() {
	fd_sim c1 GET $Z | python3 -c 'import json,sys
z = json.load(sys.stdin)
print(" ".join(sorted(e["@odata.id"].rsplit("/", 1)[1] for e in z["Links"]["Endpoints"]
                      if "hostport" not in e["@odata.id"])))'
}

fd_expect 200 POST /v1/compose '{"job_id":50,"host":"node1","gpus":1,"place":"any"}'
dev=$(fd_json 'j["lease"]["devices"][0]["id"]')
[ "$(fd_json 'j["lease"]["devices"][0]["port"]')" = H1 ] || t_fail "not on H1: $(cat "$t_tmp/out")"
[ "$(zone_eps)" = "$dev" ] || t_fail "zone H1: $(zone_eps)"
# an administrator adds another device of the same drawer half to H1
other=drawer1_slot4
[ "$dev" != "$other" ] || other=drawer1_slot3
# admin_patch - read H1, PATCH it with $other added, read it back (a
# condition for wait_for: the PATCH's own answer is not looked at, and
# under load one was lost)
admin_patch() {
	body=$(fd_sim c1 GET $Z | python3 -c 'import json,sys
z = json.load(sys.stdin)
eps = z["Links"]["Endpoints"] + [{"@odata.id": "/redfish/v1/Fabrics/PCIe/Endpoints/'"$other"'"}]
print(json.dumps({"Links": {"Endpoints": eps}}))') || return 1
	fd_sim c1 PATCH $Z "$body" > "$t_tmp/admin-patch.out"
	[ "$(zone_eps)" = "$(printf '%s\n' "$dev" "$other" | sort | tr '\n' ' ' | sed 's/ $//')" ]
}
wait_for 30 "the administrator's PATCH to apply" admin_patch ||
	t_fail "the administrator's PATCH did not apply: $(zone_eps); $(cat "$t_tmp/admin-patch.out")"
# falcond's copy of H1 is stale now: its detach must not drop $other
fd_expect 200 POST /v1/decompose '{"job_id":50}'
[ "$(zone_eps)" = "$other" ] || t_fail "after decompose, zone H1 lists: '$(zone_eps)' (want $other)"
# and its next change starts from the zone as it is
fd_expect 200 POST /v1/compose '{"job_id":51,"host":"node1","gpus":1,"place":"any"}'
dev2=$(fd_json 'j["lease"]["devices"][0]["id"]')
fd_expect 200 POST /v1/decompose '{"job_id":51}'
[ "$(zone_eps)" = "$other" ] || t_fail "after the second lease ($dev2), zone H1 lists: '$(zone_eps)'"
t_ok "a zone changed behind falcond's back: 412, read again, the other change kept"
