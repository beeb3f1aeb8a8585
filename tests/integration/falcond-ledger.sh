#!/bin/sh
# falcond-ledger.sh - what falcond answers while, or after, a ledger write
# does not go through: a repeated compose (same job and host) must not get
# the lease before the write that made it is durable; a quarantine or
# unquarantine whose write failed must leave the pool as the file says.
# A commit appends a record to StateDir/ledger.log, which falcond opens at
# each commit (falcon_append_file_sync): writes are held with a FIFO in the
# log's place (opened without O_NONBLOCK, so open() waits for a reader; the
# write then fails: not a regular file) and failed with a directory there
# (open() fails).  The log is moved aside meanwhile and put back after,
# with what falcond wrote in its place appended (records are ordered by
# their gen).  Root only (munged).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/falcond-lib.sh"
fd_need
fd_setup
st=$t_tmp/state

# bg_call N METHOD PATH BODY - a signed request in the background; its
# status goes to $t_tmp/code.N, its body to $t_tmp/out.N, its pid to BG_PID.
bg_call() {
	_c=$(fd_cred "$2" "$3" "$4")
	curl -s -o "$t_tmp/out.$1" -w '%{http_code}' -X "$2" -H "Authorization: Munge $_c" \
		-H 'Content-Type: application/json' --data-binary "$4" \
		"http://127.0.0.1:$FD_PORT$3" > "$t_tmp/code.$1" &
	BG_PID=$!
}

# lease_state JOB - the state of JOB's lease in /v1/status ("" = none).
lease_state() {
	fd_expect 200 GET /v1/status ''
	fd_json "next((l['state'] for l in j['leases'] if l['job_id'] == $1), '')"
}

# --- a repeated compose waits for the write of the lease it is given
fd_expect 200 POST /v1/compose '{"job_id":40,"host":"node1","gpus":1}'
first=$(fd_json 'j["lease"]["id"]')
fd_expect 200 POST /v1/compose '{"job_id":40,"host":"node1","gpus":1}'
[ "$(fd_json 'j["lease"]["id"]')" = "$first" ] || t_fail "a repeated compose got another lease"

fifo=$st/ledger.log
# on a failure, let a held write go on, or falcond cannot stop
t_on_exit "[ -p '$fifo' ] && exec 3<>'$fifo'; [ -p '$fifo' ] && rm -f '$fifo'"
body='{"job_id":41,"host":"node1","gpus":1}'
# the lease is written "composing" before the attach (intent before
# action): let that write through, hold the attach 15 s at the chassis and
# put the FIFO in place for the write that makes the lease active (at a
# load of 15, 2 s were over before the FIFO was there)
fd_sim c1 POST /admin/faults '{"rules":[{"action":"latency","ms":15000,"count":1,"method":"PATCH","path":"/redfish/v1/Fabrics/PCIe/Zones/*"}]}' >/dev/null
bg_call 1 POST /v1/compose "$body"
p1=$BG_PID
intent_written() {
	fd_ledger | python3 -c 'import json,sys
sys.exit(not any(l["job_id"] == 41 and l["state"] == "composing"
                 for l in json.load(sys.stdin)["leases"]))'
}
# log_aside / log_back - the log moved away (for a FIFO or a directory in
# its place) and back, with what falcond wrote meanwhile after it
log_aside() { mv "$st/ledger.log" "$st/ledger.log.saved"; }
log_back() {
	[ -f "$st/ledger.log" ] && cat "$st/ledger.log" >> "$st/ledger.log.saved"
	rm -rf "$st/ledger.log"
	mv "$st/ledger.log.saved" "$st/ledger.log"
}
wait_for 20 "the intent of job 41 to be written" intent_written ||
	t_fail "job 41 was not written ahead of its attach"
log_aside
mkfifo "$fifo"
is_active() { [ "$(lease_state 41)" = active ]; }
wait_for 60 "job 41 to be active in memory" is_active || t_fail "job 41 never became active"
# job 41 is active in memory, its write held: a retry must wait for it
bg_call 2 POST /v1/compose "$body"
p2=$BG_PID
sleep 2
kill -0 $p2 2>/dev/null ||
	t_fail "a repeated compose was answered ($(cat "$t_tmp/code.2"): $(cat "$t_tmp/out.2")) before the lease's ledger write was done"
kill -0 $p1 2>/dev/null || t_fail "the first compose was answered before its write"
# let the write go on: it fails (not a regular file), so the lease is
# rolled back and neither request may be told it has it
exec 3<>"$fifo"
rm -f "$fifo"
wait $p1 $p2
exec 3<&-
log_back
[ "$(cat "$t_tmp/code.1")" = 500 ] || t_fail "first compose: $(cat "$t_tmp/code.1") $(cat "$t_tmp/out.1")"
[ "$(cat "$t_tmp/code.2")" = 500 ] ||
	t_fail "repeated compose after a failed write: $(cat "$t_tmp/code.2") $(cat "$t_tmp/out.2")"
[ -z "$(lease_state 41)" ] || t_fail "job 41 still has a lease after the failed write"
fd_invariants || t_fail "ledger and chassis disagree"
fd_expect 200 POST /v1/compose "$body"
t_ok "a repeated compose waits for the lease's write; a failed write answers neither"

# --- a quarantine / unquarantine whose write fails changes nothing
fd_expect 200 POST /v1/quarantine '{"chassis":"c1","device":"drawer2_slot6","reason":"kept"}'
log_aside
mkdir "$st/ledger.log" && : > "$st/ledger.log/block"
fd_expect 500 POST /v1/quarantine '{"chassis":"c1","device":"drawer2_slot7","reason":"lost"}'
fd_expect 500 POST /v1/quarantine '{"chassis":"c1","device":"drawer2_slot6","reason":"changed"}'
fd_expect 500 POST /v1/unquarantine '{"chassis":"c1","device":"drawer2_slot6"}'
log_back
fd_expect 200 GET /v1/status ''
[ "$(fd_json "sorted((q['device'], q['reason']) for q in j['quarantine'])")" = \
  "[('drawer2_slot6', 'kept')]" ] || t_fail "quarantine after failed writes: $(cat "$t_tmp/out")"
fd_expect 200 POST /v1/unquarantine '{"chassis":"c1","device":"drawer2_slot6"}'
t_ok "failed quarantine/unquarantine writes leave the pool as the ledger says"
