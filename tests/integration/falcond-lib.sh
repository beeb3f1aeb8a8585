# falcond-lib.sh - sourced by the falcond integration tests, soak and bench:
# a private munged (own key and socket), falcon-sim chassis on ephemeral
# ports, falcon.conf and falcond; request helpers that sign with munge(1)
# and send with curl(1); the ledger-versus-chassis invariant check.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.

FALCOND=$top_builddir/falcond/falcond
FALCONCTL=$top_builddir/falconctl/falconctl
SIM=${FALCON_SIM:-$top_builddir/sim/falcon-sim}

fd_need() {
	t_need_root
	command -v munged >/dev/null 2>&1 || t_skip "munged not installed"
	command -v munge >/dev/null 2>&1 || t_skip "munge(1) not installed"
	command -v curl >/dev/null 2>&1 || t_skip "curl not installed"
	command -v python3 >/dev/null 2>&1 || t_skip "python3 not installed"
	[ -x "$FALCOND" ] || t_skip "falcond not built"
	[ -x "$SIM" ] || t_skip "falcon-sim not built"
}

# fd_wait_file FILE - wait (bounded, 20 s) for FILE to be non-empty.
fd_wait_file() {
	wait_for 20 "$1 to be written" test -s "$1" || t_fail "timed out waiting for $1"
}

# fd_exited PID - process PID is gone (a condition for wait_for).
fd_exited() { ! kill -0 "$1" 2>/dev/null; }

fd_start_munged() {
	M=$t_tmp/munge
	mkdir -p "$M" && chmod 700 "$M"
	dd if=/dev/urandom of="$M/key" bs=1024 count=1 2>/dev/null
	chmod 600 "$M/key"
	munged --socket="$M/sock" --key-file="$M/key" --pid-file="$M/pid" \
		--log-file="$M/log" --seed-file="$M/seed" --force ||
		t_fail "munged did not start: $(cat "$M/log" 2>/dev/null)"
	fd_wait_file "$M/pid"
	# wait (5 s at most) for munged to write its seed file and go: the
	# directory is removed right after the hooks
	t_on_exit "_mp=\$(cat '$M/pid'); kill \$_mp 2>/dev/null; wait_for 5 \"munged (pid \$_mp) to exit\" fd_exited \$_mp || true"
	# the socket's directory must be reachable for the nobody test
	chmod 755 "$t_tmp" "$M"
	MUNGE_SOCK=$M/sock
}

# fd_start_sim NAME [CONFIG.json] - a chassis on an ephemeral port; sets
# SIM_PORT_<NAME>.  FD_SIM_ARGS: more falcon-sim options.
fd_start_sim() {
	name=$1; cfg=${2:-}
	mkdir -p "$t_tmp/sim-$name/sysfs"
	rm -f "$t_tmp/sim-$name/port"
	"$SIM" --listen 127.0.0.1:0 --sysfs-root "$t_tmp/sim-$name/sysfs" \
		--port-file "$t_tmp/sim-$name/port" -q ${cfg:+--config "$cfg"} ${FD_SIM_ARGS:-} \
		2>>"$t_tmp/sim-$name/log" &
	echo $! > "$t_tmp/sim-$name/pid"
	t_on_exit "kill \$(cat '$t_tmp/sim-$name/pid') 2>/dev/null || true"
	fd_wait_file "$t_tmp/sim-$name/port"
	eval "SIM_PORT_$name=\$(cat '$t_tmp/sim-$name/port')"
}

# fd_sim NAME METHOD PATH [BODY] - a request to a chassis' admin/Redfish API.
fd_sim() {
	eval "p=\$SIM_PORT_$1"
	if [ -n "${4:-}" ]; then
		curl -s -X "$2" -H 'Content-Type: application/json' --data-binary "$4" \
			"http://127.0.0.1:$p$3"
	else
		curl -s -X "$2" "http://127.0.0.1:$p$3"
	fi
}

# fd_count_on [MS] - count chassis c1's GETs and PATCHes from now (a
# falcon-sim latency rule of MS ms, default 0, whose count each request
# takes one from); fd_counted METHOD - how many since.
FD_COUNT_N=100000
fd_count_on() {
	fd_sim c1 POST /admin/faults "{\"rules\":[{\"action\":\"latency\",\"ms\":${1:-0},\"count\":$FD_COUNT_N,\"method\":\"GET\",\"path\":\"/redfish/v1/*\"},{\"action\":\"latency\",\"ms\":${1:-0},\"count\":$FD_COUNT_N,\"method\":\"PATCH\",\"path\":\"/redfish/v1/*\"}]}" >/dev/null
}
fd_counted() {
	fd_sim c1 GET /admin/faults | python3 -c 'import json,sys
r = [x for x in json.load(sys.stdin)["rules"] if x["method"] == sys.argv[2]]
print(int(sys.argv[1]) - (r[0]["count"] if r else 0))' $FD_COUNT_N "$1"
}

# fd_write_conf EXTRA - falcon.conf for chassis c1 (the sim's default
# testbed: node1 on H1 (drawer 1) and H2 (drawer 2), node2 on H3 (drawer 1),
# node3 on H4 (drawer 2)), plus EXTRA lines.
fd_write_conf() {
	FD_PORT=$(free_port)
	mkdir -p "$t_tmp/state" && chmod 700 "$t_tmp/state"
	FALCON_CONF=$t_tmp/falcon.conf
	export FALCON_CONF
	cat > "$FALCON_CONF" <<EOC
StateDir=$t_tmp/state
ListenAddress=127.0.0.1:$FD_PORT
MungeSocket=$MUNGE_SOCK
SlurmUser=root
ChassisName=c1 Url=http://127.0.0.1:$SIM_PORT_c1/ Backend=redfish-fabric Mode=standard Timeout=${FD_CHASSIS_TIMEOUT:-10}
HostName=node1 Chassis=c1 Port=H1,H2 Adapter=0000:3b:00.0,0000:d8:00.0
HostName=node2 Chassis=c1 Port=H3 Adapter=0000:3b:00.0
HostName=node3 Chassis=c1 Port=H4 Adapter=0000:3b:00.0
PartitionName=DEFAULT AllowTopologies=ALL Place=pack
${1:-}
EOC
}

# fd_start_falcond [ARGS] - falcond, --no-slurm unless FD_NO_SLURM is set
# (empty: falcond asks the Slurm of $SLURM_CONF which jobs run);
# --log-time when FD_LOG_TIME is set.
fd_start_falcond() {
	"$FALCOND" -f "$FALCON_CONF" ${FD_NO_SLURM---no-slurm} ${FD_LOG_TIME:+--log-time} "$@" \
		2>>"$t_tmp/falcond.log" &
	FD_PID=$!
	echo $FD_PID > "$t_tmp/falcond.pid"
	if ! wait_for -p $FD_PID 20 "falcond to answer on http://127.0.0.1:$FD_PORT/v1/health" \
		curl -s -o /dev/null "http://127.0.0.1:$FD_PORT/v1/health"; then
		kill -0 $FD_PID 2>/dev/null || t_fail "falcond exited: $(tail -n 5 "$t_tmp/falcond.log")"
		t_fail "falcond did not answer"
	fi
	# it answers while its start-up reconcile runs: wait for the end of it,
	# its health's "ok" (not the absence of "reconciling": a 503 that
	# says neither, before it holds the lock, ended the wait too early and
	# the test's first compose was refused "reconciling", run 7 of
	# 2026-11-29)
	wait_for -p $FD_PID 60 "falcond's start-up reconcile to end" \
		sh -c "curl -s 'http://127.0.0.1:$FD_PORT/v1/health' | grep -q '\"status\":\"ok\"'" ||
		t_fail "falcond still reconciling: $(tail -n 3 "$t_tmp/falcond.log")"
}
t_on_exit "kill \$(cat '$t_tmp/falcond.pid' 2>/dev/null) 2>/dev/null || true"

# fd_setup [EXTRA [ARGS...]] - after fd_need: munged, chassis c1, falcon.conf
# (fd_write_conf EXTRA; FD_CHASSIS_TIMEOUT as there) and falcond
# (fd_start_falcond ARGS); sets MUNGE_SOCK, SIM_PORT_c1, FALCON_CONF,
# FD_PORT and FD_PID.
fd_setup() {
	_fs_extra=${1:-}
	[ $# -gt 0 ] && shift
	fd_start_munged
	fd_start_sim c1
	fd_write_conf "$_fs_extra"
	fd_start_falcond "$@"
}

fd_stop_falcond() {
	kill "${1:--TERM}" $FD_PID 2>/dev/null || true
	wait $FD_PID 2>/dev/null || true
}

# fd_cred METHOD PATH BODY [TTL] [USER] - a credential bound to the request.
fd_cred() {
	sum=$(printf %s "$3" | sha256sum | cut -d' ' -f1)
	if [ -n "${5:-}" ]; then
		runuser -u "$5" -- munge -S "$MUNGE_SOCK" ${4:+-t "$4"} -s "falcon/1 $1 $2 $sum"
	else
		munge -S "$MUNGE_SOCK" ${4:+-t "$4"} -s "falcon/1 $1 $2 $sum"
	fi
}

# fd_send METHOD PATH BODY CRED - prints the HTTP status; the body is in $t_tmp/out.
fd_send() {
	set -- "$1" "$2" "$3" "$4"
	if [ -n "$4" ]; then h="Authorization: Munge $4"; else h="X-No-Auth: 1"; fi
	if [ "$1" = GET ]; then
		curl -s -o "$t_tmp/out" -w '%{http_code}' -H "$h" "http://127.0.0.1:$FD_PORT$2"
	else
		curl -s -o "$t_tmp/out" -w '%{http_code}' -X "$1" -H "$h" \
			-H 'Content-Type: application/json' --data-binary "$3" \
			"http://127.0.0.1:$FD_PORT$2"
	fi
}

# fd_call METHOD PATH BODY [USER] - signed request; prints the status.
fd_call() {
	fd_send "$1" "$2" "$3" "$(fd_cred "$1" "$2" "$3" "" "${4:-}")"
}

# fd_expect STATUS METHOD PATH BODY [USER] - fail unless the status matches.
fd_expect() {
	want=$1; shift
	got=$(fd_call "$@")
	[ "$got" = "$want" ] || t_fail "$1 $2 $3: HTTP $got, expected $want: $(cat "$t_tmp/out")"
}

# fd_json EXPR - evaluate a python expression over the last answer (as j).
fd_json() {
	python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($1)" "$t_tmp/out"
}

# fd_ledger [STATE_DIR] - the ledger as falcond loads it (StateDir/ledger.json,
# then the records of ledger.log after it: ledger.json alone lags), one line
# of JSON on stdout (falcond --dump-ledger; reads only, falcond may run).
fd_ledger() {
	"$FALCOND" --dump-ledger "${1:-$t_tmp/state}"
}

# fd_ledger_flatten - with falcond stopped: the ledger as one snapshot
# (ledger.json; no ledger.log), for a test that edits ledger.json by hand.
fd_ledger_flatten() {
	fd_ledger > "$t_tmp/state/ledger.flat" &&
		mv "$t_tmp/state/ledger.flat" "$t_tmp/state/ledger.json" &&
		rm -f "$t_tmp/state/ledger.log"
}

# fd_ledger_has STRING... - the ledger now holds one of the STRINGs.
fd_ledger_has() {
	_flh=$(fd_ledger) || return 2
	for _p in "$@"; do
		case $_flh in *"$_p"*) return 0 ;; esac
	done
	return 1
}

# fd_ledger_copy DEST - the ledger as it is now (fd_ledger: always a whole
# one); DEST absent when it cannot be read.
fd_ledger_copy() {
	fd_ledger > "$1" 2>/dev/null || rm -f "$1"
}

# fd_invariants [STRICT] - ledger vs chassis: prints the counts; fails on a
# device in two leases, a leased device not attached to its port (when the
# ledger is settled), or a device attached without lease or quarantine.
# falcond may be changing both meanwhile (a reconcile of its own: detach,
# then the quarantine cleared in the file): the chassis is read between two
# reads of the ledger that are the same, so that the pair is one moment
# (falcond's file names every attached device at every moment: a lease is
# written before its attach, dropped after its detach).  At most 50 tries.
fd_invariants() {
	_fi=0
	while :; do
		fd_ledger_copy "$t_tmp/ledger-before.json"
		fd_sim c1 GET /admin/state > "$t_tmp/simstate.json"
		fd_ledger_copy "$t_tmp/ledger-at.json"
		if [ -e "$t_tmp/ledger-at.json" ]; then
			cmp -s "$t_tmp/ledger-before.json" "$t_tmp/ledger-at.json" && break
		else
			[ -e "$t_tmp/ledger-before.json" ] || break
		fi
		_fi=$((_fi + 1))
		[ $_fi -lt 50 ] || { echo "fd_invariants: the ledger changed during each of 50 reads of the chassis" >&2; return 1; }
	done
	python3 - "$t_tmp/ledger-at.json" "$t_tmp/simstate.json" "${1:-}" <<'EOP'
import json, sys, os
lp, sp, acked = sys.argv[1], sys.argv[2], sys.argv[3]
led = json.load(open(lp)) if os.path.exists(lp) else {"leases": [], "quarantine": []}
sim = json.load(open(sp))
owner = {d["id"]: d["owner"] for d in sim["devices"]}
quar = {q["device"] for q in led["quarantine"]}
seen, double, wrong = {}, 0, 0
for l in led["leases"]:
    for d in l["devices"]:
        if d["id"] in seen: double += 1
        seen[d["id"]] = l["id"]
        if l["state"] == "active" and owner.get(d["id"]) != d["port"]: wrong += 1
attached = [i for i, o in owner.items() if o]
leaked = [i for i in attached if i not in seen and i not in quar]
missing = []
if acked and os.path.exists(acked):
    ids = {l["id"] for l in led["leases"]}
    want = [w.split()[0] for w in open(acked) if w.strip()]
    missing = [w for w in want if w not in ids]
print("leases=%d attached=%d quarantined=%d leaked=%d double_assigned=%d "
      "lease_not_attached=%d acked_missing=%d" % (len(led["leases"]), len(attached), len(quar),
      len(leaked), double, wrong, len(missing)))
if leaked or double or wrong or missing:
    print("leaked:", leaked, "missing:", missing, file=sys.stderr); sys.exit(1)
EOP
}

# fd_rand N - a random integer in [0, N) (POSIX sh has no $RANDOM).
fd_rand() {
	echo $(( $(od -An -N2 -tu2 /dev/urandom) % $1 ))
}

# fd_attack PORT IDLE NADDR SECS - start falcond-attack.py: IDLE idle and
# slowloris connections to PORT from 127.0.0.2 .. 127.0.0.(1+NADDR),
# reopened as falcond closes them, until $t_tmp/stop appears (counts in
# $t_tmp/attack); waits SECS at most for all IDLE to be open.  Sets APID;
# the test's exit stops it.
fd_attack() {
	rm -f "$t_tmp/stop" "$t_tmp/attack"
	python3 "$top_srcdir/tests/integration/falcond-attack.py" "$1" "$2" "$t_tmp/stop" \
		"$t_tmp/attack" "$3" 2>"$t_tmp/attack.err" &
	APID=$!
	t_on_exit "touch '$t_tmp/stop'; kill $APID 2>/dev/null || true"
	wait_for -p $APID "$4" "$2 connections from $3 address(es)" \
		sh -c "[ -s '$t_tmp/attack' ] && [ \$(cut -d' ' -f2 '$t_tmp/attack') -ge $2 ]" ||
		t_fail "attack did not open its connections: $(cat "$t_tmp/attack.err")"
}
