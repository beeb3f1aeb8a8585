#!/bin/sh
# falcond-reload.sh - SIGHUP (falcon.conf reloaded) 30 times while clients
# compose and decompose (one), ask status (two) and health (one) without
# pause: every request is served, every replaced falcon.conf is freed once
# no request reads it
# (falcond -v logs each), and SIGTERM ends falcond with status 0.  With a
# build configured --enable-sanitizers, ASan/UBSan/LeakSanitizer report
# into falcond's log, which must hold no report.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/falcond-lib.sh"
fd_need
fd_setup "PartitionName=p1 MaxFalconGPUs=4" -v
RELOADS=30
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export ASAN_OPTIONS

# client N - requests until $t_tmp/stop; failures counted in $t_tmp/fail.N
client() {
	: > "$t_tmp/fail.$1"
	i=0
	while [ ! -e "$t_tmp/stop" ]; do
		i=$((i + 1)); job=$(($1 * 1000 + i))
		case $1 in
		1) "$FALCONCTL" attach --job $job --host node$1 --gpus 1 >/dev/null 2>>"$t_tmp/fail.$1" &&
			"$FALCONCTL" detach --job $job >/dev/null 2>>"$t_tmp/fail.$1" ||
			echo "job $job" >> "$t_tmp/fail.$1" ;;
		2|3) "$FALCONCTL" status >/dev/null 2>>"$t_tmp/fail.$1" || echo status >> "$t_tmp/fail.$1" ;;
		*) curl -sf -m 20 -o /dev/null "http://127.0.0.1:$FD_PORT/v1/health" ||
			echo health >> "$t_tmp/fail.$1" ;;
		esac
	done
	echo $i > "$t_tmp/count.$1"
}
for n in 1 2 3 4; do client $n & eval "C$n=\$!"; done
t_on_exit "touch '$t_tmp/stop'"

cp "$FALCON_CONF" "$t_tmp/conf.a"
sed 's/MaxFalconGPUs=4/MaxFalconGPUs=3/' "$t_tmp/conf.a" > "$t_tmp/conf.b"
r=0
while [ $r -lt $RELOADS ]; do
	r=$((r + 1))
	# replaced whole (rename): the clients read it meanwhile
	if [ $((r % 2)) = 1 ]; then cp "$t_tmp/conf.b" "$t_tmp/conf.new"; else cp "$t_tmp/conf.a" "$t_tmp/conf.new"; fi
	mv "$t_tmp/conf.new" "$FALCON_CONF"
	kill -HUP $FD_PID
	wait_for -p $FD_PID 60 "reload $r" \
		sh -c "[ \$(grep -c 'SIGHUP: reloaded' '$t_tmp/falcond.log') -ge $r ]" ||
		t_fail "reload $r not logged: $(tail -n 3 "$t_tmp/falcond.log")"
done
touch "$t_tmp/stop"
wait $C1 $C2 $C3 $C4
total=0
for n in 1 2 3 4; do
	[ -s "$t_tmp/fail.$n" ] && t_fail "client $n: $(head -3 "$t_tmp/fail.$n")"
	total=$((total + $(cat "$t_tmp/count.$n")))
done
echo "$RELOADS reloads under $total requests of 4 clients: all served"
# a last request releases what the others held
curl -sf -o /dev/null "http://127.0.0.1:$FD_PORT/v1/health" || t_fail "health"
freed=$(grep -c 'falcon.conf generation [0-9]* freed' "$t_tmp/falcond.log" || true)
echo "replaced falcon.conf freed while running: $freed of $((RELOADS - 1))"
[ "$freed" = $((RELOADS - 1)) ] || t_fail "$freed of $((RELOADS - 1)) old falcon.conf freed"
kill -TERM $FD_PID
rc=0; wait $FD_PID || rc=$?
if grep -E 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$t_tmp/falcond.log"; then
	t_fail "sanitizer report in falcond's log"
fi
[ $rc = 0 ] || t_fail "falcond exited with $rc after SIGTERM: $(tail -n 5 "$t_tmp/falcond.log")"
t_ok "SIGHUP under concurrent requests: served, old confs freed, clean exit"
exit 0
