#!/bin/sh
# falcond-signals.sh - falcond and its signals: SIGTERM stops it promptly
# with an open event stream and an idle keep-alive client (guard 3 s, the
# figure is printed).  Root only (munged).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/falcond-lib.sh"
fd_need
fd_start_munged
fd_start_sim c1
fd_write_conf
fd_start_falcond

# --- SIGTERM: stops within the guard, event listener and all
wait_for 10 "the event stream to open" grep -q "events: chassis c1: listening on" "$t_tmp/falcond.log" ||
	t_fail "event stream not opened: $(tail -3 "$t_tmp/falcond.log")"
fd_expect 200 POST /v1/compose '{"job_id":1,"host":"node1","gpus":1}'
# an idle client: a connection open, half a request sent
python3 -c "
import socket, sys, time
s = socket.create_connection(('127.0.0.1', int(sys.argv[1])))
s.sendall(b'GET /v1/health HTTP/1.1\\r\\nHost: x\\r\\n')
time.sleep(30)" "$FD_PORT" &
idle=$!
t_on_exit "kill $idle 2>/dev/null || true"
sleep 0.5
# a watchdog kills it past the guard; wait returns at the exit itself
( sleep 3; kill -KILL $FD_PID 2>/dev/null ) &
dog=$!
t0=$(date +%s%N)
kill -TERM $FD_PID
wait $FD_PID
st=$?
t1=$(date +%s%N)
kill $dog 2>/dev/null || true
[ $st = 0 ] || t_fail "falcond not stopped by SIGTERM within 3 s (exit status $st)"
echo "falcond stopped $(( (t1 - t0) / 1000000 )) ms after SIGTERM"
grep -q "stopping" "$t_tmp/falcond.log" || t_fail "no stop logged"
t_ok "SIGTERM: stopped in $(( (t1 - t0) / 1000000 )) ms (guard 3 s)"
exit 0
