#!/bin/sh
# falcond-history.sh - falcond's durable device history and GET /v1/history:
# 20 leases on one device (more than the ledger's 16 per device) all come
# back, one line each in StateDir/history.jsonl; the time window; a plain
# user sees only the entries of their own leases; an open lease shows with
# released 0; lines lost in a crash (SIGKILL, then the file's tail cut) are
# appended again from the ledger at start, without duplicates; bad
# parameters are 400.  Root only (munged, runuser).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/falcond-lib.sh"
fd_need
fd_setup
hist=$t_tmp/state/history.jsonl

# h_get QUERY [USER] - GET /v1/history?QUERY, signed (the credential binds
# the path without its query); prints the status, the answer in $t_tmp/out.
h_get() {
	fd_send GET "/v1/history?$1" '' "$(fd_cred GET /v1/history '' '' "${2:-}")"
}
# h_count PYEXPR - entries of the last answer for which PYEXPR (over e) holds.
h_count() {
	fd_json "sum(1 for e in j['entries'] if $1)"
}

nobody_uid=$(id -u nobody)
t0=$(date +%s)
j=1
while [ $j -le 20 ]; do
	uid=0; [ $j = 7 ] && uid=$nobody_uid
	"$FALCONCTL" attach --job $j --host node2 --gpus 1 --uid $uid --json >/dev/null ||
		t_fail "attach job $j"
	"$FALCONCTL" detach --job $j >/dev/null || t_fail "detach job $j"
	j=$((j + 1))
done
"$FALCONCTL" attach --job 21 --host node2 --gpus 1 --json >/dev/null || t_fail "attach job 21"
t1=$(date +%s)

[ "$(h_get "start=$t0&end=$t1")" = 200 ] || t_fail "history: $(cat "$t_tmp/out")"
[ "$(h_count 'e["job_id"] <= 20 and e["released"] >= e["attached"] > 0')" = 20 ] ||
	t_fail "20 closed entries expected: $(cat "$t_tmp/out")"
[ "$(h_count 'e["device"] == "drawer1_slot1"')" -ge 17 ] ||
	t_fail "more than FD_HIST_MAX entries of one device expected: $(cat "$t_tmp/out")"
[ "$(h_count 'e["job_id"] == 21 and e["released"] == 0')" = 1 ] ||
	t_fail "the open lease of job 21: $(cat "$t_tmp/out")"
[ "$(fd_json 'sorted(j["entries"][0].keys())')" = \
  "['attached', 'chassis', 'check', 'device', 'host', 'job_id', 'lease', 'released', 'result']" ] ||
	t_fail "entry fields: $(fd_json 'j["entries"][0]')"
[ "$(wc -l < "$hist")" = 20 ] || t_fail "history.jsonl: $(wc -l < "$hist") lines, not 20"
[ "$(stat -c %a "$hist")" = 600 ] || t_fail "history.jsonl mode $(stat -c %a "$hist")"
t_ok "21 leases on node2: 20 closed + 1 open in GET /v1/history, 20 lines in history.jsonl"

[ "$(h_get "start=$((t1 + 100))&end=$((t1 + 200))")" = 200 ] || t_fail "future window"
[ "$(h_count 'e["job_id"] <= 20')" = 0 ] || t_fail "future window: $(cat "$t_tmp/out")"
[ "$(h_count 'e["job_id"] == 21')" = 1 ] || t_fail "an open lease overlaps any later window"
[ "$(h_get "start=0&end=$((t0 - 100))")" = 200 ] || t_fail "past window"
[ "$(fd_json 'len(j["entries"])')" = 0 ] || t_fail "past window: $(cat "$t_tmp/out")"
[ "$(h_get "start=abc")" = 400 ] || t_fail "start=abc: not 400"
[ "$(h_get "start=5&end=4")" = 400 ] || t_fail "end < start: not 400"
[ "$(fd_send GET /v1/history '' '')" = 401 ] || t_fail "unsigned history read not 401"
t_ok "window filter, 400 on bad parameters, 401 without a credential"

[ "$(h_get "start=$t0&end=$t1" nobody)" = 200 ] || t_fail "nobody: $(cat "$t_tmp/out")"
[ "$(fd_json '[e["job_id"] for e in j["entries"]]')" = "[7]" ] ||
	t_fail "nobody sees more than their lease: $(cat "$t_tmp/out")"
t_ok "a plain user sees only the entries of their own leases"

# a crash after the ledger commit, before the lines were durable: cut the
# last 3 lines; the ledger's last entries bring them back once
fd_stop_falcond -KILL
head -n 17 "$hist" > "$hist.cut" && mv "$hist.cut" "$hist"
fd_start_falcond
k=0
until [ "$(wc -l < "$hist")" -ge 20 ]; do
	k=$((k + 1)); [ $k -lt 100 ] || t_fail "lines not recovered: $(wc -l < "$hist")"
	sleep 0.1
done
[ "$(wc -l < "$hist")" = 20 ] || t_fail "recovery duplicated lines: $(wc -l < "$hist")"
[ "$(python3 -c 'import json,sys; print(len({json.loads(l)["lease"] for l in open(sys.argv[1])}))' "$hist")" = 20 ] ||
	t_fail "recovered lines are not the 20 leases"
grep -q "history: 3 entries of the ledger" "$t_tmp/falcond.log" || t_fail "recovery not logged"
"$FALCONCTL" detach --job 21 >/dev/null || t_fail "detach job 21"
t_ok "3 lines lost in a crash appended again from the ledger at start, no duplicates"
exit 0
