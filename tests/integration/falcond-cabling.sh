#!/bin/sh
# falcond-cabling.sh - falcon.conf says which ports a host is cabled into,
# not which drawer each port reaches: falcond learns that from the chassis.
# A chassis that says it (each zone's Links.InvolvedSwitches, the drawers'
# switches) is taken at its word: the compose goes to the right port at
# once (section 0).  One that does not (falcon-sim --no-switches) is
# learnt from by refusal, as follows.
# node1 is written Port=H2,H1 (H1 reaches drawer 1, H2 drawer 2 on
# falcon-sim's testbed), so a compose first offers the set of a drawer's
# GPUs to the port that does not reach it.  The chassis refuses the set
# (409, nothing attached); falcond tries it device by device to know which
# one and why, takes the port as not cabled to that drawer while the device
# is still free (falcond(8), 10 minutes), places again, and the job gets
# its GPUs on the right port.  The next compose goes there at once.  A set
# refused as a whole must neither fail the job nor be taken for a failed
# device.  Root only (munged).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/falcond-lib.sh"
fd_need
fd_start_munged
# ---- 0. the chassis says which drawer each port reaches -------------------
fd_start_sim c0
FD_SIM_ARGS=--no-switches fd_start_sim c1
fd_write_conf "ReconcileInterval=0"
sed -i "s|^ChassisName=c1 Url=[^ ]*|ChassisName=c1 Url=http://127.0.0.1:$SIM_PORT_c0/|" "$FALCON_CONF"
sed -i 's/^HostName=node1 .*/HostName=node1 Chassis=c1 Port=H2,H1 Adapter=0000:d8:00.0,0000:3b:00.0/' \
	"$FALCON_CONF"
grep -q '^HostName=node1 Chassis=c1 Port=H2,H1 ' "$FALCON_CONF" || t_fail "falcon.conf: node1 not rewritten"
fd_start_falcond -v
fd_sim c0 POST /admin/faults "{\"rules\":[{\"action\":\"latency\",\"ms\":0,\"count\":$FD_COUNT_N,\"method\":\"PATCH\",\"path\":\"/redfish/v1/*\"}]}" >/dev/null
fd_expect 200 POST /v1/compose '{"job_id":1,"host":"node1","gpus":2,"place":"any"}'
sent=$(fd_sim c0 GET /admin/faults | python3 -c 'import json,sys
r = [x for x in json.load(sys.stdin)["rules"] if x["method"] == "PATCH"]
print(int(sys.argv[1]) - (r[0]["count"] if r else 0))' $FD_COUNT_N)
python3 - "$t_tmp/out" <<'EOP' || t_fail "job 1 not on the ports the chassis says: $(cat "$t_tmp/out")"
import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(1 if [d for d in j["lease"]["devices"]
               if d["port"] != "H%d" % int(d["id"].split("_")[0][len("drawer"):])] else 0)
EOP
[ "$sent" = 1 ] || t_fail "job 1 sent $sent PATCHes with the cabling known, expected 1"
grep -q 'not cabled' "$t_tmp/falcond.log" && t_fail "learnt by refusal though the chassis says its cabling"
fd_expect 200 POST /v1/decompose '{"job_id":1}'
fd_stop_falcond
t_ok "the chassis' cabling (InvolvedSwitches): job 1 on the right ports in 1 PATCH"
# ---- the rest: a chassis that does not say it -------------------------------
rm -rf "$t_tmp/state" && mkdir -p "$t_tmp/state" && chmod 700 "$t_tmp/state"
sed -i "s|^ChassisName=c1 Url=[^ ]*|ChassisName=c1 Url=http://127.0.0.1:$SIM_PORT_c1/|" "$FALCON_CONF"
fd_start_falcond -v # "one by one" is a verbose line
# the chassis answers each PATCH in 0.5 s (a set refused, then one device
# refused, is two slow answers before the retry): counted from here
patches_on() { fd_count_on 500; }
patches() { fd_counted PATCH; }

# right_ports - fail unless each device of the last answer's lease is on
# the port that reaches its drawer (drawerD_slotS: drawer 1 on H1, 2 on H2)
right_ports() {
	fd_json '" ".join("%s@%s" % (d["id"], d["port"]) for d in j["lease"]["devices"])' > "$t_tmp/placed"
	python3 - "$t_tmp/out" <<'EOP' || t_fail "$1: $(cat "$t_tmp/placed")"
import json, sys
j = json.load(open(sys.argv[1]))
bad = [d for d in j["lease"]["devices"]
       if d["port"] != "H%d" % int(d["id"].split("_")[0][len("drawer"):])]
sys.exit(1 if bad else 0)
EOP
}

# ---- 1. the first compose learns the cabling from the chassis --------------
patches_on
fd_expect 200 POST /v1/compose '{"job_id":1,"host":"node1","gpus":2,"place":"any"}'
right_ports "job 1's GPUs not on the port that reaches their drawer"
[ "$(fd_json 'len(j["lease"]["devices"])')" = 2 ] || t_fail "job 1: $(cat "$t_tmp/out")"
first=$(patches)
# the set to the wrong port (409), its first device alone (409: learnt),
# the set to the right port
[ "$first" = 3 ] || t_fail "job 1 sent $first PATCHes, expected 3 (the set refused, one device refused, the set on the other port)"
grep -q 'attach drawer[12]_slot[1-8] and the others of c1 to H[12]: .*HTTP 409.*: one by one' "$t_tmp/falcond.log" ||
	t_fail "the refused set was not tried device by device: $(tail -n 5 "$t_tmp/falcond.log")"
grep -q 'refused a free device of drawer [12]: not cabled' "$t_tmp/falcond.log" ||
	t_fail "the port refused was not learnt as not cabled: $(tail -n 5 "$t_tmp/falcond.log")"
[ "$(fd_call GET /v1/status '')" = 200 ] && [ "$(fd_json 'len(j["quarantine"])')" = 0 ] ||
	t_fail "a device quarantined for a port that does not reach it: $(cat "$t_tmp/out")"
fd_invariants || t_fail "after job 1"
t_ok "job 1 on the right port ($(cat "$t_tmp/placed")) after $first PATCHes"

# ---- 2. the next compose of that host goes to the right port at once -------
patches_on
fd_expect 200 POST /v1/compose '{"job_id":2,"host":"node1","gpus":1,"place":"any"}'
right_ports "job 2's GPU not on the port that reaches its drawer"
n=$(patches)
[ "$n" = 1 ] || t_fail "job 2 sent $n PATCHes, expected 1 (the cabling learnt by job 1)"
fd_invariants || t_fail "after job 2"
t_ok "job 2 on the right port ($(cat "$t_tmp/placed")) with 1 PATCH"

# ---- 3. both released, nothing left --------------------------------------
fd_expect 200 POST /v1/decompose '{"job_id":1}'
fd_expect 200 POST /v1/decompose '{"job_id":2}'
left=$(fd_sim c1 GET /admin/state | python3 -c 'import json,sys
print(sum(1 for d in json.load(sys.stdin)["devices"] if d["owner"]))')
[ "$left" = 0 ] || t_fail "$left devices still attached after both releases"
fd_invariants || t_fail "after the releases"
t_ok "released: 0 devices attached"
