#!/bin/sh
# falcond-starve.sh - issue 32: an unprivileged user (nobody) on the
# clients' own address (127.0.0.1, where falconctl and the prolog's
# falcon_client come from) opens 2,000 connections that send their headers
# one byte a second, reopened as falcond closes them.  root's `falconctl
# status` and a compose through falcon_client (falconctl attach, as the
# prolog composes) must stay within 2x of their time without the attack
# (a floor of 1 s): falcond closes a connection without a complete request
# after a few seconds and, at its per-address cap, drops the oldest such
# connection instead of refusing the new one (falcond(8), LIMITS).  Before
# that fix libmicrohttpd's per-address limit (64) refused root's
# connections: status took 40 s.  FALCOND_STARVE_CONNS (2000) and
# FALCOND_STARVE_ROUNDS (5) change the attack and the rounds measured;
# make bench-falcond-idle runs it with more rounds.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/falcond-lib.sh"
fd_need
id nobody >/dev/null 2>&1 || t_skip "no user nobody"
CONNS=${FALCOND_STARVE_CONNS:-2000}
ROUNDS=${FALCOND_STARVE_ROUNDS:-5}
fd_setup

# measure LABEL FILE - ROUNDS rounds of falconctl status, attach (a compose
# of 1 GPU) and detach, each bounded by 60 s; prints the medians, FILE gets
# "STATUS COMPOSE" (median seconds).
measure() {
	python3 - "$1" "$FALCONCTL" "$ROUNDS" "$2" <<'EOP' || t_fail "$1: a request failed"
import subprocess, sys, time
label, ctl, rounds, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
def run(args):
    t = time.monotonic()
    try:
        r = subprocess.run([ctl] + args, capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        return 60.0, False, "timed out after 60 s"
    return time.monotonic() - t, r.returncode == 0, r.stderr.decode().strip()
status, compose, bad = [], [], []
for i in range(rounds):
    s, ok, err = run(["status"]); status.append(s)
    if not ok: bad.append("status: " + err)
    s, ok, err = run(["attach", "--job", str(500 + i), "--host", "node1", "--gpus", "1"])
    compose.append(s)
    if not ok: bad.append("attach: " + err)
    s, ok, err = run(["detach", "--job", str(500 + i)])
    if not ok: bad.append("detach: " + err)
med = lambda v: sorted(v)[len(v) // 2]
print("%s: falconctl status median %.3f s (max %.3f), compose median %.3f s (max %.3f), "
      "%d rounds" % (label, med(status), max(status), med(compose), max(compose), rounds))
open(out, "w").write("%.3f %.3f\n" % (med(status), med(compose)))
if bad: sys.exit("; ".join(bad[:3]))
EOP
}

measure "quiet" "$t_tmp/quiet"

# the request deadline alone: one connection that sends a header byte
# every 0.5 s (libmicrohttpd's idle timeout, 10 s from the last byte,
# never ends it) is closed by falcond within its request deadline (5 s)
python3 - "$FD_PORT" <<'EOP' || t_fail "a connection trickling its headers was kept past the request deadline"
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
head = b"GET /v1/health HTTP/1.1\r\nHost: x\r\n" + b"X-a: b\r\n" * 100
t0 = time.monotonic()
for b in head:
    try:
        s.send(bytes([b]))
        s.settimeout(0.5)
        if s.recv(1) == b"":
            break
    except socket.timeout:
        pass
    except OSError:
        break
    if time.monotonic() - t0 > 15:
        sys.exit("still open after 15 s of a byte every 0.5 s")
took = time.monotonic() - t0
print("a connection trickling its headers was closed after %.1f s" % took)
if took > 8:
    sys.exit("closed after %.1f s, the deadline is 5 s" % took)
EOP

# the attack, as nobody, from 127.0.0.1; its own descriptor limit raised
# (falcond's is its own: it raises its soft limit to the hard one)
mkdir -p "$t_tmp/atk" && chown nobody "$t_tmp/atk"
ulimit -n $((CONNS + 300)) 2>/dev/null || ulimit -n "$(ulimit -Hn)"
[ "$(ulimit -n)" = unlimited ] || [ "$(ulimit -n)" -ge $((CONNS + 100)) ] ||
	t_skip "descriptor limit $(ulimit -n) is below $CONNS connections"
runuser -u nobody -- python3 "$top_srcdir/tests/integration/falcond-attack.py" "$FD_PORT" \
	"$CONNS" "$t_tmp/atk/stop" "$t_tmp/atk/report" 0 1 2>"$t_tmp/atk/err" &
APID=$!
t_on_exit "touch '$t_tmp/atk/stop'; kill $APID 2>/dev/null || true"
wait_for -p $APID 60 "$CONNS slow connections from 127.0.0.1" \
	sh -c "[ -s '$t_tmp/atk/report' ] && [ \$(cut -d' ' -f2 '$t_tmp/atk/report') -ge $CONNS ]" ||
	t_fail "the attack did not open its connections: $(cat "$t_tmp/atk/err")"
sleep 3
held=$(ss -Htn state established "( dport = :$FD_PORT )" 2>/dev/null | wc -l)
measure "$CONNS slow connections from 127.0.0.1 (uid nobody)" "$t_tmp/flood"
read -r open opened refused closed < "$t_tmp/atk/report"
echo "attack: $opened connections opened, $closed seen closed by falcond, $refused refused; $held established to falcond when the measure began"
touch "$t_tmp/atk/stop"
wait $APID 2>/dev/null || true
grep 'connection(s) without a complete request dropped' "$t_tmp/falcond.log" | tail -n 1

python3 - "$t_tmp/quiet" "$t_tmp/flood" <<'EOP' || t_fail "falcond's authenticated callers starved by a user's slow connections"
import sys
q = [float(x) for x in open(sys.argv[1]).read().split()]
f = [float(x) for x in open(sys.argv[2]).read().split()]
bad = []
for name, a, b in (("falconctl status", q[0], f[0]), ("compose", q[1], f[1])):
    limit = max(2 * a, 1.0)
    print("%s: %.3f s quiet, %.3f s flooded: %.2fx (limit %.3f s: 2x quiet, floor 1 s)"
          % (name, a, b, b / a if a > 0 else 0, limit))
    if b > limit: bad.append(name)
if bad: sys.exit("over the limit: " + ", ".join(bad))
EOP
t_ok "status and compose within 2x of quiet under $CONNS slow connections from the clients' address"
fd_invariants >/dev/null || t_fail "ledger vs chassis after the attack"
exit 0
