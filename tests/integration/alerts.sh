#!/bin/sh
# alerts.sh - examples/falcon-alerts.yml: promtool check rules (syntax,
# PromQL), promtool test rules tests/alerts/falcon-alerts-test.yml (each
# alert: a case that fires, one that must not); then, as root with munged,
# every falcond_* metric the rules name is exported by a real falcond's
# GET /metrics (against falcon-sim), and a standby falcond on the same
# StateDir exports falcond_active 0.  Skips (77) without promtool
# (Debian 13's package promtool, Debian 12's prometheus).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/falcond-lib.sh"
command -v promtool >/dev/null 2>&1 ||
	t_skip "promtool not installed (Debian 13: package promtool, Debian 12: prometheus; scripts/install-deps.sh)"
RULES=$top_srcdir/examples/falcon-alerts.yml

promtool check rules "$RULES" || t_fail "promtool check rules $RULES"
promtool test rules "$top_srcdir/tests/alerts/falcon-alerts-test.yml" ||
	t_fail "promtool test rules tests/alerts/falcon-alerts-test.yml"
t_ok "rules checked, unit tests pass"

# the names the rules use, as falcond writes them
names=$(grep -o 'falcond_[a-z_]*' "$RULES" | sort -u)
[ -n "$names" ] || t_fail "no falcond_* metric in $RULES"
if [ "$(id -u)" != 0 ] || ! command -v munged >/dev/null 2>&1 || ! command -v munge >/dev/null 2>&1 ||
	! command -v curl >/dev/null 2>&1 || [ ! -x "$FALCOND" ] || [ ! -x "$SIM" ]; then
	echo "alerts: not checked against falcond's /metrics (needs root, munged, curl and the build)"
	exit 0
fi
fd_setup
[ "$(fd_send GET /metrics '' '')" = 200 ] || t_fail "GET /metrics: $(cat "$t_tmp/out")"
for n in $names; do
	grep -q "^$n[{ ]" "$t_tmp/out" || t_fail "falcond exports no $n (used by $RULES)"
done
grep -q '^falcond_active 1$' "$t_tmp/out" || t_fail "active falcond: no falcond_active 1"
grep -q '^falcond_chassis_up{chassis="c1"} 1$' "$t_tmp/out" || t_fail "c1 not up: $(grep chassis_up "$t_tmp/out")"
t_ok "falcond exports every metric the rules use: $(echo $names)"

# a standby on the same StateDir: falcond_active 0 (FalconNoActiveFalcond
# counts the pair)
PORT_B=$(free_port)
sed "s/^ListenAddress=.*/ListenAddress=127.0.0.1:$PORT_B/" "$FALCON_CONF" > "$t_tmp/falcon-b.conf"
"$FALCOND" -f "$t_tmp/falcon-b.conf" --no-slurm 2>>"$t_tmp/falcond-b.log" &
echo $! > "$t_tmp/falcond-b.pid"
t_on_exit "kill \$(cat '$t_tmp/falcond-b.pid' 2>/dev/null) 2>/dev/null || true"
wait_for 20 "the standby to answer /metrics" \
	sh -c "curl -s 'http://127.0.0.1:$PORT_B/metrics' | grep -q '^falcond_active 0$'" ||
	t_fail "standby: no falcond_active 0: $(curl -s "http://127.0.0.1:$PORT_B/metrics")"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT_B/v1/health")
[ "$code" = 503 ] || t_fail "standby: /v1/health HTTP $code, expected 503"
t_ok "a standby exports falcond_active 0 (and still answers the API 503)"
