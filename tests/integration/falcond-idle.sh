#!/bin/sh
# falcond-idle.sh - falcond under 2,000 idle connections and a slowloris
# (headers sent a byte at a time) from another source address (127.0.0.2,
# so the per-address limit is what protects: falcond(8), LIMITS):
# /v1/health and authenticated composes through falcon_client (falconctl
# attach/detach) from 127.0.0.1 are still served; p50/p99 latencies with
# and without the attack are printed.  Then a compose that waits on a slow
# chassis (6 s a request) does not hold up /v1/health, and is answered
# although it takes longer than the 10 s after which falcond closes an idle
# connection (its connection is suspended, not idle).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/falcond-lib.sh"
fd_need
python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.2", 0))' 2>/dev/null ||
	t_skip "cannot bind 127.0.0.2"
FD_CHASSIS_TIMEOUT=30 fd_setup
IDLE=${FALCOND_IDLE_CONNS:-2000}
ROUNDS=${FALCOND_IDLE_ROUNDS:-15}

# measure LABEL FILE - ROUNDS rounds of: GET /v1/health (a new connection
# each), falconctl attach and detach; every request bounded by 20 s.
# Prints "LABEL: health p50 .. p99 .. ms, compose p50 .. p99 .. ms"; FILE
# gets "HEALTH_P99 COMPOSE_P99" (ms).
measure() {
	python3 - "$1" "$FD_PORT" "$FALCONCTL" "$ROUNDS" "$2" <<'EOP' || t_fail "$1: a request was not served"
import http.client, subprocess, sys, time
label, port, ctl, rounds = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
def pct(v, p):
    v = sorted(v); return v[min(len(v) - 1, int(round(p / 100.0 * (len(v) - 1))))]
health, compose = [], []
for i in range(rounds):
    for _ in range(4):
        t = time.monotonic()
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        c.request("GET", "/v1/health"); r = c.getresponse(); r.read(); c.close()
        if r.status != 200:
            sys.exit("%s: /v1/health: HTTP %d" % (label, r.status))
        health.append((time.monotonic() - t) * 1000)
    t = time.monotonic()
    a = subprocess.run([ctl, "attach", "--job", str(100 + i), "--host", "node1", "--gpus", "1"],
                       capture_output=True, timeout=60)
    compose.append((time.monotonic() - t) * 1000)
    if a.returncode != 0:
        sys.exit("%s: attach: %s" % (label, a.stderr.decode()))
    d = subprocess.run([ctl, "detach", "--job", str(100 + i)], capture_output=True, timeout=60)
    if d.returncode != 0:
        sys.exit("%s: detach: %s" % (label, d.stderr.decode()))
print("%s: health p50 %.1f p99 %.1f ms, compose p50 %.1f p99 %.1f ms (%d health, %d composes)"
      % (label, pct(health, 50), pct(health, 99), pct(compose, 50), pct(compose, 99),
         len(health), len(compose)))
open(sys.argv[5], "w").write("%.3f %.3f\n" % (pct(health, 99), pct(compose, 99)))
EOP
}

measure "no attack" "$t_tmp/p99.base" > "$t_tmp/base"; cat "$t_tmp/base"

# the attack (falcond-attack.py): IDLE connections, reopened as falcond
# closes them, a tenth of them slowloris, until $t_tmp/stop appears
# attack NADDR - the attack from 127.0.0.2 .. 127.0.0.(1+NADDR), measured
attack() {
	fd_attack "$FD_PORT" "$IDLE" "$1" 60
	sleep 2
	served=$(ss -Htn state established "( sport = :$FD_PORT )" 2>/dev/null | wc -l)
	measure "$IDLE idle + slowloris from $1 address(es)" "$t_tmp/p99.$1" > "$t_tmp/attacked"
	cat "$t_tmp/attacked"
	read -r held opened refused closed < "$t_tmp/attack"
	echo "attack from $1 address(es): $opened connections opened ($closed seen closed by falcond); falcond held $served connections when the measure began"
	touch "$t_tmp/stop"
	wait $APID 2>/dev/null || true
	# the ratio of the p99s to those without the attack (make bench-falcond-idle:
	# goal within 2x; printed, not asserted: the machine's load decides it)
	python3 -c 'import sys
b = [float(x) for x in open(sys.argv[1]).read().split()]
a = [float(x) for x in open(sys.argv[2]).read().split()]
print("p99 under the attack from %s address(es) / without: health %.2fx, compose %.2fx (goal within 2x)"
      % (sys.argv[3], a[0] / b[0], a[1] / b[1]))' "$t_tmp/p99.base" "$t_tmp/p99.$1" "$1"
}
t_on_exit "touch '$t_tmp/stop'"
# one address: beyond 64 incomplete connections of one address falcond
# closes the oldest (falcond(8), LIMITS)
attack 1
# 32 addresses, under 64 each: the event loop holds them all
attack 32
t_ok "health and composes served under $IDLE idle connections"

# a slow chassis: a compose in flight for seconds; health answers meanwhile
fd_sim c1 POST /admin/faults '{"latency_ms":6000}' >/dev/null
ts=$(date +%s)
"$FALCONCTL" attach --job 900 --host node2 --gpus 1 > "$t_tmp/slow" 2>&1 &
SPID=$!
wait_for 30 "the slow compose to be in flight" \
	fd_ledger_has '"composing"' || t_fail "no compose in flight"
python3 - "$FD_PORT" <<'EOP' || t_fail "/v1/health held up by a slow compose"
import http.client, sys, time
t = time.monotonic()
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=20)
c.request("GET", "/v1/health"); r = c.getresponse(); r.read()
if r.status != 200: sys.exit("HTTP %d" % r.status)
print("health during a compose on a 6 s chassis: %.1f ms" % ((time.monotonic() - t) * 1000))
EOP
kill -0 $SPID 2>/dev/null && t_ok "health answered while the compose still ran"
wait $SPID || t_fail "slow compose: $(cat "$t_tmp/slow")"
echo "the slow compose answered after $(( $(date +%s) - ts )) s"
fd_sim c1 DELETE /admin/faults >/dev/null
"$FALCONCTL" detach --job 900 >/dev/null 2>&1 || t_fail "detach job 900"
exit 0
