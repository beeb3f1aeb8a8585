#!/bin/sh
# falcond-signals.sh - falcond and its signals: SIGHUP reloads falcon.conf
# (a broken file is logged with FILE:LINE and the running one kept, a good
# one takes effect, a restart-only change is refused); SIGTERM stops it
# promptly with an open event stream and an idle client (guard 3 s, the
# figure is printed); with a slow chassis falcond answers at once after its
# start while it reconciles: health says "reconciling", a compose is 503
# with Retry-After and falconctl's retry gets through.  Root only (munged).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/falcond-lib.sh"
fd_need
fd_setup "PartitionName=small MaxFalconGPUs=2"

# hup_logged N PATTERN - wait for the Nth "SIGHUP: reconcile" and PATTERN in the log.
hup_logged() {
	wait_for 10 "SIGHUP number $1 to be handled" \
		sh -c "[ \$(grep -c 'SIGHUP: reconcile' '$t_tmp/falcond.log') -ge $1 ]" ||
		t_fail "SIGHUP $1 not handled: $(tail -n 3 "$t_tmp/falcond.log")"
	grep -q "$2" "$t_tmp/falcond.log" || t_fail "SIGHUP $1: no '$2' in the log: $(tail -n 3 "$t_tmp/falcond.log")"
}

# --- SIGHUP: a broken falcon.conf is logged and the running one kept
fd_expect 200 POST /v1/compose '{"job_id":2,"host":"node1","gpus":2,"partition":"small"}'
fd_expect 200 POST /v1/decompose '{"job_id":2}'
cp "$FALCON_CONF" "$t_tmp/good.conf"
echo "Bogus=1" >> "$FALCON_CONF"
bad_line=$(wc -l < "$FALCON_CONF")
kill -HUP $FD_PID
hup_logged 1 "SIGHUP: $FALCON_CONF:$bad_line: .*Bogus.*keeping the configuration"
fd_expect 200 POST /v1/compose '{"job_id":3,"host":"node1","gpus":2,"partition":"small"}'
fd_expect 200 POST /v1/decompose '{"job_id":3}'
t_ok "SIGHUP with a broken falcon.conf: FILE:LINE logged, still composing"

# --- SIGHUP: a good file takes effect (MaxFalconGPUs 2 -> 1)
sed 's/^PartitionName=small MaxFalconGPUs=2$/PartitionName=small MaxFalconGPUs=1/' \
	"$t_tmp/good.conf" > "$FALCON_CONF"
kill -HUP $FD_PID
hup_logged 2 "SIGHUP: reloaded $FALCON_CONF"
fd_expect 403 POST /v1/compose '{"job_id":4,"host":"node1","gpus":2,"partition":"small"}'
fd_expect 200 POST /v1/compose '{"job_id":4,"host":"node1","gpus":1,"partition":"small"}'
t_ok "SIGHUP with a good falcon.conf: the new MaxFalconGPUs applies"

# --- SIGHUP: a restart-only change (SlurmUser) is refused as a whole
sed 's/^SlurmUser=root$/SlurmUser=nobody/' "$t_tmp/good.conf" > "$FALCON_CONF"
kill -HUP $FD_PID
hup_logged 3 "SlurmUser changed, which needs a restart"
fd_expect 403 POST /v1/compose '{"job_id":5,"host":"node1","gpus":2,"partition":"small"}'
t_ok "SIGHUP with a restart-only change: logged, nothing reloaded"

# --- SIGTERM: stops within the watchdog's 10 s (an idle client does not
# hold it; at once when unloaded), event listener and all
wait_for 10 "the event stream to open" grep -q "events: chassis c1: listening on" "$t_tmp/falcond.log" ||
	t_fail "event stream not opened: $(tail -n 3 "$t_tmp/falcond.log")"
fd_expect 200 POST /v1/compose '{"job_id":1,"host":"node1","gpus":1}'
# an idle client: a connection open, half a request sent
python3 -c "
import socket, sys, time
s = socket.create_connection(('127.0.0.1', int(sys.argv[1])))
s.sendall(b'GET /v1/health HTTP/1.1\\r\\nHost: x\\r\\n')
time.sleep(30)" "$FD_PORT" &
idle=$!
t_on_exit "kill $idle 2>/dev/null || true"
wait_for 10 "the idle client to connect" sh -c \
	"ss -Htn state established '( dport = :$FD_PORT )' | grep -q ."
# a watchdog kills it past 10 s; wait returns at the exit itself
( sleep 10; kill -KILL $FD_PID 2>/dev/null ) &
dog=$!
t0=$(date +%s%N)
kill -TERM $FD_PID
wait $FD_PID
st=$?
t1=$(date +%s%N)
kill $dog 2>/dev/null || true
[ $st = 0 ] || t_fail "falcond not stopped by SIGTERM within 10 s (exit status $st)"
echo "falcond stopped $(( (t1 - t0) / 1000000 )) ms after SIGTERM"
grep -q "stopping" "$t_tmp/falcond.log" || t_fail "no stop logged"
t_ok "SIGTERM: stopped in $(( (t1 - t0) / 1000000 )) ms (watchdog 10 s)"

# --- start with a slow chassis (2 s per GET: a reconcile of many seconds,
# a window a machine at a load of 15 did not miss with 400 ms): answers
# during it
fd_sim c1 POST /admin/faults '{"rules":[{"action":"latency","method":"GET","ms":2000}]}' >/dev/null
t0=$(date +%s%N)
"$FALCOND" -f "$FALCON_CONF" --no-slurm 2>>"$t_tmp/falcond.log" &
FD_PID=$!
echo $FD_PID > "$t_tmp/falcond.pid"
wait_for -p $FD_PID 10 "falcond to listen" \
	curl -s -o /dev/null "http://127.0.0.1:$FD_PORT/v1/health" || t_fail "falcond does not answer"
t1=$(date +%s%N)
[ "$(fd_send GET /v1/health '' '')" = 200 ] || t_fail "health during the reconcile"
[ "$(fd_json 'j["status"]')" = reconciling ] || t_fail "health: $(cat "$t_tmp/out")"
echo "health answered $(( (t1 - t0) / 1000000 )) ms after start, while reconciling"
body='{"job_id":7,"host":"node1","gpus":1}'
c=$(fd_cred POST /v1/compose "$body")
code=$(curl -s -D "$t_tmp/hdr" -o "$t_tmp/out" -w '%{http_code}' -X POST \
	-H "Authorization: Munge $c" --data-binary "$body" "http://127.0.0.1:$FD_PORT/v1/compose")
[ "$code" = 503 ] || t_fail "compose during the reconcile: HTTP $code: $(cat "$t_tmp/out")"
grep -qi '^Retry-After: 1' "$t_tmp/hdr" || t_fail "503 without Retry-After: $(cat "$t_tmp/hdr")"
fd_expect 200 GET /v1/status ''
[ "$(fd_json 'j["reconciling"]')" = True ] || t_fail "status does not say reconciling"
"$FALCONCTL" attach --job 7 --host node1 --gpus 1 --json > "$t_tmp/out" 2>"$t_tmp/ctl.err" ||
	t_fail "falconctl attach after the reconcile: $(cat "$t_tmp/ctl.err")"
grep -q "503, retrying" "$t_tmp/ctl.err" || t_fail "falconctl did not meet a 503: $(cat "$t_tmp/ctl.err")"
t2=$(date +%s%N)
echo "falconctl attach done $(( (t2 - t0) / 1000000 )) ms after start"
grep -q "start-up reconcile done" "$t_tmp/falcond.log" || t_fail "reconcile end not logged"
fd_sim c1 DELETE /admin/faults >/dev/null
t_ok "slow chassis: health at once, compose 503 + Retry-After while reconciling, falconctl retried"
exit 0
