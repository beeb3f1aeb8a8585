# tests/integration/sim-lib.sh - sourced by the sim-*.sh tests after
# tests/lib.sh: start falcon-sim on an ephemeral loopback port (the port
# comes back through --port-file, so there is no race), stop it on exit,
# and small curl/JSON helpers.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.

SIM=$top_builddir/sim/falcon-sim
[ -x "$SIM" ] || t_skip "$SIM not built"
command -v curl >/dev/null 2>&1 || t_skip "curl not found"
command -v python3 >/dev/null 2>&1 || t_skip "python3 not found"

SIM_PID=
SIM_ROOT=$t_tmp/sysfs
t_on_exit sim_stop

# sim_start [falcon-sim options...] - start it and wait for its port file
# (one still running is stopped first: never two, never one left behind).
sim_start() {
	sim_stop || t_fail "the previous falcon-sim did not stop cleanly"
	mkdir -p "$SIM_ROOT"
	rm -f "$t_tmp/port"
	"$SIM" --listen 127.0.0.1:0 --sysfs-root "$SIM_ROOT" --port-file "$t_tmp/port" \
		-v "$@" >>"$t_tmp/sim.log" 2>&1 &
	SIM_PID=$!
	if ! wait_for -p "$SIM_PID" 60 "falcon-sim to write $t_tmp/port" test -s "$t_tmp/port"; then
		if ! kill -0 "$SIM_PID" 2>/dev/null; then
			cat "$t_tmp/sim.log" >&2
			SIM_PID=
			t_fail "falcon-sim exited during start-up"
		fi
		t_fail "falcon-sim wrote no port file"
	fi
	SIM_PORT=$(cat "$t_tmp/port")
	SIM_BASE=http://127.0.0.1:$SIM_PORT
	RF=/redfish/v1
}

# sim_stop - SIGTERM and wait; fails the test when it does not exit 0.
sim_stop() {
	[ -n "$SIM_PID" ] || return 0
	kill -TERM "$SIM_PID" 2>/dev/null || true
	_rc=0
	wait "$SIM_PID" || _rc=$?
	SIM_PID=
	if [ "$_rc" != 0 ]; then
		echo "falcon-sim exited $_rc on SIGTERM; its log:" >&2
		cat "$t_tmp/sim.log" >&2
		return 1
	fi
}

# req METHOD PATH [BODY [curl args...]] - sets STATUS; body in $t_tmp/body,
# headers in $t_tmp/hdr.
req() {
	_m=$1 _p=$2
	shift 2
	_b=
	if [ $# -gt 0 ]; then _b=$1; shift; fi
	if [ -n "$_b" ]; then
		set -- "$@" -H 'Content-Type: application/json' --data-binary "$_b"
	fi
	STATUS=$(curl -s -m 20 -o "$t_tmp/body" -D "$t_tmp/hdr" -w '%{http_code}' \
		-X "$_m" "$@" "$SIM_BASE$_p") || STATUS=000
}

# expect CODE WHAT - the last req answered CODE.
expect() {
	if [ "$STATUS" != "$1" ]; then
		cat "$t_tmp/body" >&2 || true
		t_fail "$2: HTTP $STATUS, expected $1"
	fi
	t_ok "$2 ($1)"
}

# etag - the ETag header of the last reply.
etag() { sed -n 's/^[Ee][Tt][Aa][Gg]: *//p' "$t_tmp/hdr" | tr -d '\r'; }

# jget PYEXPR - evaluate PYEXPR over the last body as `d`, print the result.
jget() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
v = eval(sys.argv[2])
print(json.dumps(v) if isinstance(v, (dict, list)) or v is None else v)' "$t_tmp/body" "$1"
}

# zone_body ID... - a PATCH body setting a zone's endpoints to these ids.
zone_body() {
	_s='{"Links":{"Endpoints":['
	_sep=
	for _e in "$@"; do
		_s="$_s$_sep{\"@odata.id\":\"/redfish/v1/Fabrics/PCIe/Endpoints/$_e\"}"
		_sep=,
	done
	echo "$_s]}}"
}

# block_body ID - an Add/RemoveResourceBlock body.
block_body() {
	echo "{\"ResourceBlock\":{\"@odata.id\":\"/redfish/v1/CompositionService/ResourceBlocks/$1\"}}"
}

# owner ID - the owner port of a device per /admin/state ("None" when free);
# $SIM_CURL_OPTS (e.g. --cacert CA) for an HTTPS sim.
owner() {
	# shellcheck disable=SC2086
	curl -s -m 20 ${SIM_CURL_OPTS:-} "$SIM_BASE/admin/state" | python3 -c 'import json, sys
d = json.load(sys.stdin)
print([x["owner"] for x in d["devices"] if x["id"] == sys.argv[1]][0])' "$1"
}
