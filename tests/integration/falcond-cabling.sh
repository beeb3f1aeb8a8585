#!/bin/sh
# falcond-cabling.sh - falcon.conf says which ports a host is cabled into,
# not which drawer each port reaches: falcond learns that from the chassis.
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
fd_start_sim c1
fd_write_conf "ReconcileInterval=0"
sed -i 's/^HostName=node1 .*/HostName=node1 Chassis=c1 Port=H2,H1 Adapter=0000:d8:00.0,0000:3b:00.0/' \
	"$FALCON_CONF"
grep -q '^HostName=node1 Chassis=c1 Port=H2,H1 ' "$FALCON_CONF" || t_fail "falcon.conf: node1 not rewritten"
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
	t_fail "the refused set was not tried device by device: $(tail -5 "$t_tmp/falcond.log")"
grep -q 'refused a free device of drawer [12]: not cabled' "$t_tmp/falcond.log" ||
	t_fail "the port refused was not learnt as not cabled: $(tail -5 "$t_tmp/falcond.log")"
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
