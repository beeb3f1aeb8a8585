#!/bin/sh
# falcond-api.sh - falcond against falcon-sim with a real munged: compose and
# decompose for several jobs and hosts, placement, conflicts, policy
# refusals, every authentication failure, a plain user (nobody) denied
# compose, status visibility, reconcile of a device attached behind
# falcond's back, metrics, falconctl.  Root only (munged, runuser).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/falcond-lib.sh"
fd_need
fd_setup "PartitionName=small MaxFalconGPUs=1 MaxFalconNVMe=0 AllowTopologies=falconGPUs"

# --- routes and bodies
[ "$(fd_send GET /v1/health '' '')" = 200 ] || t_fail "health"
[ "$(fd_send GET /metrics '' '')" = 200 ] || t_fail "metrics"
grep -q '^falcond_leases 0' "$t_tmp/out" || t_fail "metrics: no falcond_leases"
fd_expect 404 GET /v1/nothing ''
fd_expect 405 GET /v1/compose ''
fd_expect 400 POST /v1/compose '{"job_id":1,"host":"node1","gpus":"two"}'
grep -q gpus "$t_tmp/out" || t_fail "400 does not name the field: $(cat "$t_tmp/out")"
fd_expect 400 POST /v1/compose '{"job_id":1,"host":"node1","gpus":1'
fd_expect 404 POST /v1/compose '{"job_id":1,"host":"nodeX","gpus":1}'
# a key twice (json-c alone would take the last job_id and compose job 2)
fd_expect 400 POST /v1/compose '{"job_id":1,"host":"node1","gpus":1,"job_id":2}'
[ "$(fd_json '"key \"job_id\" given twice" in j["error"]')" = True ] ||
	t_fail "duplicate key: 400 does not name the key: $(cat "$t_tmp/out")"
t_ok "routes and bad bodies, a duplicate key"

# --- authentication failures: all 401
body='{"job_id":9,"host":"node1","gpus":1}'
[ "$(fd_send POST /v1/compose "$body" '')" = 401 ] || t_fail "no header accepted"
[ "$(fd_send POST /v1/compose "$body" 'MUNGE:AwQFAAAforged:')" = 401 ] || t_fail "forged accepted"
c=$(fd_cred POST /v1/compose '{"job_id":9,"host":"node1","gpus":2}')
[ "$(fd_send POST /v1/compose "$body" "$c")" = 401 ] || t_fail "cred for another body accepted"
c=$(fd_cred POST /v1/decompose "$body")
[ "$(fd_send POST /v1/compose "$body" "$c")" = 401 ] || t_fail "cred for another path accepted"
c=$(fd_cred GET /v1/status '' 1)
sleep 3
[ "$(fd_send GET /v1/status '' "$c")" = 401 ] || t_fail "expired cred accepted"
grep -qi expired "$t_tmp/out" || t_fail "expired: $(cat "$t_tmp/out")"
c=$(fd_cred GET /v1/status '')
[ "$(fd_send GET /v1/status '' "$c")" = 200 ] || t_fail "fresh cred refused: $(cat "$t_tmp/out")"
[ "$(fd_send GET /v1/status '' "$c")" = 401 ] || t_fail "replayed cred accepted"
grep -qi replayed "$t_tmp/out" || t_fail "replayed: $(cat "$t_tmp/out")"
grep -q 'uid' "$t_tmp/falcond.log" || t_fail "401s not logged with uid"
t_ok "no header, forged, other body, other path, expired, replayed: 401"

# --- a plain user
fd_expect 403 POST /v1/compose "$body" nobody
fd_expect 403 POST /v1/decompose '{"job_id":9}' nobody
fd_expect 403 POST /v1/quarantine '{"chassis":"c1","device":"drawer1_slot1"}' nobody
t_ok "nobody denied compose/decompose/quarantine: 403"

# --- policy refusals
fd_expect 403 POST /v1/compose '{"job_id":2,"host":"node1","gpus":2,"partition":"small"}'
[ "$(fd_json 'j["code"]')" = policy ] || t_fail "policy: $(cat "$t_tmp/out")"
fd_expect 403 POST /v1/compose '{"job_id":2,"host":"node1","nvme":1,"partition":"small"}'
fd_expect 403 POST /v1/compose '{"job_id":2,"host":"node1","gpus":1,"local_gpus":8,"partition":"small"}'
t_ok "MaxFalconGPUs, MaxFalconNVMe/AllowTopologies, hybridGPUs: 403 policy"

# --- compose: several jobs and hosts, placement
nobody_uid=$(id -u nobody)
fd_expect 200 POST /v1/compose "{\"job_id\":1,\"host\":\"node1\",\"gpus\":2,\"place\":\"pack\",\"uid\":$nobody_uid}"
[ "$(fd_json 'len({d["drawer"] for d in j["lease"]["devices"]})')" = 1 ] || t_fail "pack split drawers"
[ "$(fd_json 'all(d["port"]==("H1" if d["drawer"]==1 else "H2") for d in j["lease"]["devices"])')" = True ] ||
	t_fail "node1 ports: $(cat "$t_tmp/out")"
lease1=$(fd_json 'j["lease"]["id"]')
# the same job and host again: the same lease
fd_expect 200 POST /v1/compose "{\"job_id\":1,\"host\":\"node1\",\"gpus\":2,\"place\":\"pack\",\"uid\":$nobody_uid}"
[ "$(fd_json 'j["lease"]["id"]')" = "$lease1" ] || t_fail "retry got another lease"
fd_expect 200 POST /v1/compose '{"job_id":3,"host":"node3","nvme":1}'
[ "$(fd_json 'j["lease"]["devices"][0]["type"]')" = NVMe ] || t_fail "nvme: $(cat "$t_tmp/out")"
fd_expect 200 POST /v1/compose '{"job_id":4,"host":"node1","gpus":2,"place":"spread"}'
[ "$(fd_json 'sorted(d["drawer"] for d in j["lease"]["devices"])')" = "[1, 2]" ] ||
	t_fail "spread: $(cat "$t_tmp/out")"
# node2 (H3, drawer 1 only): drawer 1's GPU half belongs to node1 in standard mode
fd_expect 409 POST /v1/compose '{"job_id":5,"host":"node2","gpus":1}'
[ "$(fd_json 'j["code"]')" = noresource ] || t_fail "conflict: $(cat "$t_tmp/out")"
fd_expect 409 POST /v1/compose '{"job_id":6,"host":"node1","gpus":8}'
fd_invariants
t_ok "compose: pack, spread, nvme, idempotent retry, conflicts"

# --- status visibility
fd_expect 200 GET /v1/status '' nobody
[ "$(fd_json '[l["job_id"] for l in j["leases"] if l["id"]=="'"$lease1"'"][0]')" = 1 ] ||
	t_fail "owner does not see own job"
[ "$(fd_json 'sum(1 for l in j["leases"] if l["job_id"] is not None)')" = 1 ] ||
	t_fail "nobody sees others' jobs: $(cat "$t_tmp/out")"
"$FALCONCTL" status --json > "$t_tmp/out" || t_fail "falconctl status"
[ "$(fd_json 'sorted(l["job_id"] for l in j["leases"])')" = "[1, 3, 4]" ] ||
	t_fail "falconctl status --json: $(cat "$t_tmp/out")"
[ "$(fd_json 'all(set(l)>={"id","job_id","host","devices","state"} for l in j["leases"]) and "quarantine" in j and len(j["devices"])>0')" = True ] ||
	t_fail "status --json shape"
"$FALCONCTL" status | grep -q "$lease1" || t_fail "falconctl status table"
t_ok "status: users see their own jobs only; falconctl status"

# --- decompose
fd_expect 200 POST /v1/decompose '{"job_id":1}'
fd_expect 404 POST /v1/decompose '{"job_id":1}'
"$FALCONCTL" detach --job 4 || t_fail "falconctl detach"
fd_expect 200 POST /v1/compose '{"job_id":5,"host":"node2","gpus":1}'
[ "$(fd_json 'j["lease"]["devices"][0]["port"]')" = H3 ] || t_fail "node2 port"
# EpilogSlurmctld's decompose (off_node) closes a lease no node prolog
# asked for (job 5's, PrologSlurmctld's kind), not an admin's attach
"$FALCONCTL" attach --job 7 --host node1 --gpus 1 --json > "$t_tmp/out" || t_fail "falconctl attach"
[ "$(fd_json 'j.get("on_node")')" = True ] || t_fail "falconctl attach's lease not the node's: $(cat "$t_tmp/out")"
a7=$(fd_json 'j["id"]')
fd_expect 404 POST /v1/decompose '{"job_id":7,"off_node":true}'
"$FALCONCTL" detach --lease "$a7" || t_fail "falconctl detach --lease"
fd_expect 200 POST /v1/compose '{"job_id":8,"host":"node2","gpus":1}'
fd_expect 200 POST /v1/compose '{"job_id":8,"host":"node1","gpus":1,"on_node":true}'
fd_expect 200 POST /v1/decompose '{"job_id":8,"off_node":true}'
[ "$(fd_json 'len(j["closed"])')" = 1 ] || t_fail "off_node closed: $(cat "$t_tmp/out")"
fd_expect 200 POST /v1/decompose '{"job_id":8}'
fd_expect 200 POST /v1/decompose '{"job_id":5}'
fd_expect 200 POST /v1/decompose '{"job_id":3}'
fd_invariants
t_ok "decompose by job and lease"

# --- quarantine
"$FALCONCTL" quarantine c1 drawer1_slot1 --reason "test" || t_fail "quarantine"
fd_expect 200 POST /v1/compose '{"job_id":8,"host":"node1","gpus":4,"place":"any"}'
[ "$(fd_json '"drawer1_slot1" in [d["id"] for d in j["lease"]["devices"]]')" = False ] ||
	t_fail "quarantined device handed out"
fd_expect 200 POST /v1/decompose '{"job_id":8}'
"$FALCONCTL" unquarantine c1 drawer1_slot1 || t_fail "unquarantine"
t_ok "quarantine"

# --- reconcile: a device attached behind falcond's back is taken back
fd_expect 200 POST /v1/compose '{"job_id":10,"host":"node1","gpus":1}'
"$FALCONCTL" reconcile --json > "$t_tmp/out" || t_fail "reconcile"
[ "$(fd_json 'j["orphans_detached"]')" = 0 ] || t_fail "reconcile found orphans: $(cat "$t_tmp/out")"
fd_stop_falcond
# an orphan: a composing lease left by a "crash"
fd_ledger_flatten || t_fail "falcond --dump-ledger"
python3 - "$t_tmp/state/ledger.json" <<'EOP'
import json, sys
p = sys.argv[1]; l = json.load(open(p))
l["leases"][0]["state"] = "composing"
json.dump(l, open(p, "w"))
EOP
fd_start_falcond
fd_invariants
# written ahead, never answered: its device is detached and the lease
# settles (held SettleTime, then rolled back)
grep -q "1 late attach(es) detached, 1 lease(s) settling" "$t_tmp/falcond.log" ||
	t_fail "start-up reconcile did not settle the composing lease"
t_ok "reconcile at start settles a composing lease"

# an orphan: the chassis shows a device attached that no lease names
fd_expect 200 POST /v1/compose '{"job_id":11,"host":"node3","gpus":1}'
fd_stop_falcond
fd_ledger_flatten || t_fail "falcond --dump-ledger"
python3 - "$t_tmp/state/ledger.json" <<'EOP'
import json, sys
p = sys.argv[1]; l = json.load(open(p))
l["leases"] = []
json.dump(l, open(p, "w"))
EOP
fd_start_falcond --no-reconcile
fd_expect 200 POST /v1/reconcile ''
[ "$(fd_json 'j["orphans_detached"]')" = 1 ] || t_fail "orphan not reclaimed: $(cat "$t_tmp/out")"
fd_invariants
curl -s "http://127.0.0.1:$FD_PORT/metrics" | grep -q 'falcond_reconcile_disagreements_total{kind="orphan_device"} 1' ||
	t_fail "orphan not counted in /metrics"
t_ok "reconcile on demand reclaims a device attached without a lease"
# the prolog's reconcile keeps the descriptions ({"reread": false}); a body
# that is anything else is refused naming what was expected
fd_expect 200 POST /v1/reconcile '{"reread":false}'
[ "$(fd_json 'j["orphans_detached"]')" = 0 ] || t_fail "reread false: $(cat "$t_tmp/out")"
fd_expect 400 POST /v1/reconcile '{"reread":1}'
grep -q 'reread: expected true or false' "$t_tmp/out" || t_fail "reread 1: $(cat "$t_tmp/out")"
fd_expect 400 POST /v1/reconcile '{"rereads":true}'
grep -q 'unknown field \\"rereads\\"' "$t_tmp/out" || t_fail "unknown field: $(cat "$t_tmp/out")"
fd_expect 400 POST /v1/reconcile '[]'
t_ok "reconcile's body: {}, {\"reread\": false}; anything else 400 naming it"

# a corrupted ledger stops falcond with a clear error
fd_stop_falcond
echo '{"version":1,"seq":' > "$t_tmp/state/ledger.json"
"$FALCOND" -f "$FALCON_CONF" --no-slurm 2>"$t_tmp/err" && t_fail "falcond started over a corrupted ledger"
grep -q "corrupted ledger" "$t_tmp/err" || t_fail "corrupted ledger: $(cat "$t_tmp/err")"
t_ok "corrupted ledger refused"
# so is a whole log line that does not parse (file and line named), while a
# torn last line (a crash in the middle of an append) is cut off
echo '{"version":2,"gen":1,"seq":0,"leases":[],"quarantine":[],"devices":[]}' > "$t_tmp/state/ledger.json"
printf '%s\nnot json\n' '{"version":2,"gen":2,"seq":5,"leases":[],"quarantine":[],"devices":[]}' \
	> "$t_tmp/state/ledger.log"
"$FALCOND" -f "$FALCON_CONF" --no-slurm 2>"$t_tmp/err" && t_fail "falcond started over a corrupted log"
grep -q "ledger.log:2: corrupted ledger log record" "$t_tmp/err" ||
	t_fail "corrupted log: $(cat "$t_tmp/err")"
fd_ledger >/dev/null 2>&1 && t_fail "falcond --dump-ledger read a corrupted log"
printf '%s\n{"version":2,"ge' '{"version":2,"gen":2,"seq":5,"leases":[],"quarantine":[],"devices":[]}' \
	> "$t_tmp/state/ledger.log"
[ "$(fd_ledger 2>"$t_tmp/err" | python3 -c 'import json,sys; print(json.load(sys.stdin)["seq"])')" = 5 ] ||
	t_fail "torn log: $(cat "$t_tmp/err")"
grep -q "ledger.log:2: torn last record" "$t_tmp/err" || t_fail "torn log: $(cat "$t_tmp/err")"
t_ok "a corrupted log line refused naming file and line; a torn last line cut off"
exit 0
