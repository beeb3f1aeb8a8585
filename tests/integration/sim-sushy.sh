#!/bin/sh
# sim-sushy.sh - a real Redfish client reads falcon-sim: python3-sushy
# (OpenStack's client, used by Ironic; Debian's package) logs in with a
# session, reads the service root, the systems (sushy requires Boot), the
# chassis, the fabric and its endpoints, the composition and task services,
# and logs out (the session is gone afterwards).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/sim-lib.sh"

# Debian's python3-sushy lives in the system interpreter's dist-packages.
PY=
for p in /usr/bin/python3 python3; do
	if "$p" -c 'import sushy' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || t_skip "python3-sushy not installed (apt-get install python3-sushy)"

printf 'admin:s3cret\n' >"$t_tmp/creds"
chmod 600 "$t_tmp/creds"
sim_start --credentials "$t_tmp/creds"

"$PY" - "$SIM_BASE/redfish/v1" >"$t_tmp/sushy.out" 2>&1 <<'PY' || { cat "$t_tmp/sushy.out" >&2; t_fail "sushy"; }
import sys
import sushy
from sushy import auth

a = auth.SessionAuth('admin', 's3cret')
s = sushy.Sushy(sys.argv[1], auth=a)
assert s.product == 'Falcon 4016', s.product
assert s.redfish_version.startswith('1.'), s.redfish_version
sess = a.get_session_resource_id()
assert sess and sess.startswith('/redfish/v1/SessionService/Sessions/'), sess
assert sess in s.get_session_service().sessions.members_identities
systems = s.get_system_collection().members_identities
assert len(systems) == 4, systems
for sid in systems:
    sy = s.get_system(sid)
    assert sy.status.state == sushy.STATE_ENABLED, sy.status
    assert sy.boot.enabled == sushy.BOOT_SOURCE_ENABLED_DISABLED, sy.boot.enabled
print('systems', ' '.join(sorted(s.get_system(i).name for i in systems)))
ch = s.get_chassis(s.get_chassis_collection().members_identities[0])
assert ch.model == 'Falcon 4016', ch.model
fab = s.get_fabric(s.get_fabric_collection().members_identities[0])
assert fab.fabric_type == sushy.PROTOCOL_TYPE_PCIe, fab.fabric_type
eps = fab.endpoints.get_members()
roles = sorted(e.connected_entities[0].entity_role.value for e in eps)
assert roles.count('Initiator') == 4 and roles.count('Target') == 9, roles
print('endpoints', len(eps))
assert s.get_composition_service().identity == 'CompositionService'
assert s.get_task_service().service_enabled
a.close()
print('logged out', sess)
PY
cat "$t_tmp/sushy.out"
t_ok "sushy read the service root, systems, chassis, fabric, endpoints"
# The logout DELETEd the session.
[ "$(curl -s -m 20 "$SIM_BASE/admin/state" | python3 -c 'import json,sys; print(json.load(sys.stdin)["sessions"])')" = 0 ] ||
	t_fail "sushy's session is still open after logout"
t_ok "session closed"
