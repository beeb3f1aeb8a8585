#!/bin/sh
# quickstart.sh - scripts/quickstart.sh for real, as the README runs it, with
# FALCON_DEMO_DIR in a scratch directory (so the install prefix is there
# too): it builds and installs the project, starts munged, MariaDB,
# slurmdbd, slurmctld, slurmd, falcon-sim and falcond, runs
# `sbatch --gres=falcon_gpu:4 examples/train.sh`; the test checks the
# refusal of `sbatch -p small --gres=falcon_gpu:4` and the license
# job_submit_falcon adds (when Slurm's source could be fetched), the
# AdminComment tag it prints, its two last lines and STATE/env, that
# falcond's reconcile asks the demo's slurmctld, runs it a
# second time (daemons reused, build reused, a new job), then `--stop`, and
# that no process named by a pid file under the state directory is left.
# The first run starts from a build directory configured from another
# checkout (a regression: it was reused) and must rebuild.
# Root only (77 otherwise); takes a few minutes (a full build).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/slurm-lib.sh"
s_need_slurm
for b in curl python3 autoreconf make cc; do
	command -v $b >/dev/null 2>&1 || t_skip "$b not installed"
done
[ ! -f "$top_srcdir/config.status" ] ||
	t_skip "$top_srcdir is configured in tree: the quickstart builds out of tree"
[ -w "$top_srcdir" ] || t_skip "$top_srcdir is read-only (distcheck)"

qs=$top_srcdir/scripts/quickstart.sh
demo=$t_tmp/demo
chmod 0755 "$t_tmp"
export FALCON_DEMO_DIR="$demo" FALCON_DEMO_JOBS=2
t_on_exit "'$qs' --stop >/dev/null 2>&1 || true"

# run_qs N - run the quickstart; its output in $t_tmp/qs-N.log.
run_qs() {
	"$qs" >"$t_tmp/qs-$1.log" 2>&1 ||
		{ tail -n 40 "$t_tmp/qs-$1.log" >&2; t_fail "quickstart run $1 failed"; }
}

# check_run N - the tag, the last two lines, the env file.
check_run() {
	_l=$t_tmp/qs-$1.log
	grep -q 'falcon:topo=falconGPUs,f=4,check=[a-z]*' "$_l" ||
		{ cat "$_l" >&2; t_fail "run $1: no falcon:topo=falconGPUs,f=4,check=... AdminComment"; }
	grep -q '^FALCON_TOPOLOGY=falconGPUs$' "$_l" || t_fail "run $1: the job's FALCON_TOPOLOGY"
	grep -q '^check: ' "$_l" || t_fail "run $1: no check result"
	# the check runs where falcon-ncclcheck was built, and is off where it
	# was not: never a Check= whose program is missing (issue 38)
	if grep -q '^CONFIGURATION ERROR' "$_l"; then
		t_fail "run $1: falconctl status: $(grep '^CONFIGURATION ERROR' "$_l")"
	fi
	if [ -x "$demo/prefix/bin/falcon-ncclcheck" ]; then
		grep -q 'falcon:topo=falconGPUs,f=4,check=skipped' "$_l" &&
			! grep -q 'check skipped: Check=' "$demo/log/falcon-prolog.log" ||
			t_fail "run $1: falcon-ncclcheck built, the check not run: $(grep -h 'check' "$demo/log/falcon-prolog.log" | tail -n 3)"
	fi
	grep -q 'drawer1_slot1 .* free ' "$_l" || t_fail "run $1: no falconctl status with free devices"
	grep -q '^devices back in the pool' "$_l" || t_fail "run $1: devices not back in the pool"
	# the AdviceFile of --falcon-topology=auto (issue 42: without it auto
	# said "no advice from history" beside falconctl advise's 11 jobs)
	grep -q '^falconctl advise --save: ' "$_l" && [ -s "$demo/falcond/advice.json" ] ||
		t_fail "run $1: no AdviceFile written by falconctl advise --save"
	sed -n '/^---- falconctl report/,/^Logs:/p' "$_l" | grep -q 'falconGPUs' ||
		t_fail "run $1: no falconGPUs row in the quickstart's falconctl report"
	# job_submit_falcon (unless Slurm's source could not be fetched, which
	# the quickstart says loudly): small refuses 4 falcon GPUs, the
	# license is added
	if ! grep -q 'job_submit_falcon.so is NOT built' "$_l"; then
		grep -q 'sbatch: error: [a-z_]*falcon: partition small allows at most 2 falcon_gpu per node; asked 4' "$_l" ||
			t_fail "run $1: no falcon refusal of sbatch -p small --gres=falcon_gpu:4"
		grep -q 'submitted (Licenses=falcon1_gpu:4, added by job_submit_falcon)' "$_l" ||
			t_fail "run $1: Licenses=falcon1_gpu:4 not added"
	fi
	[ "$(tail -n 2 "$_l" | head -n 1)" = "SLURM_CONF=$demo/cluster/etc/slurm.conf" ] ||
		t_fail "run $1: next-to-last line: $(tail -n 2 "$_l" | head -n 1)"
	[ "$(tail -n 1 "$_l")" = "FALCON_CONF=$demo/etc/falcon.conf" ] ||
		t_fail "run $1: last line: $(tail -n 1 "$_l")"
	grep -qx "SLURM_CONF=$demo/cluster/etc/slurm.conf" "$demo/env" &&
		grep -qx "FALCON_CONF=$demo/etc/falcon.conf" "$demo/env" ||
		t_fail "run $1: $demo/env: $(cat "$demo/env")"
	# the env file is enough to use the cluster and falcond
	(unset SLURM_CONF FALCON_CONF; . "$demo/env"; sinfo -h -o %N >/dev/null &&
		falconctl status >/dev/null) || t_fail "run $1: sinfo/falconctl with . $demo/env"
	sed -n 's/.*\(falcon:topo=[^ ]*\).*/\1/p' "$_l" | head -n 1
}

# Regression: a build directory configured from another checkout of the
# project was reused, so the quickstart installed that checkout's code.
# The first run finds one (its config.status names another srcdir, this
# run's prefix and Slurm source, so only the srcdir tells): it must start
# the build over (without the fix it ran make there and failed, no
# Makefile).  Seeded before the first run, so that the rebuild is that
# run's build, not a third one.
mkdir -p "$demo/build"
qs_slurm_src=$("$top_srcdir/scripts/slurm-source.sh" 2>/dev/null) || qs_slurm_src=""
cat >"$demo/build/config.status" <<EOF
#! /bin/sh
ac_cs_config="'--prefix=$demo/prefix' '--with-slurm-plugindir=$demo/prefix/lib/slurm'${qs_slurm_src:+ '--with-slurm-source=$qs_slurm_src'}"
srcdir='$t_tmp/another-checkout'
EOF
run_qs 1
tag=$(check_run 1)
grep -q 'configured from another source tree: rebuilding' "$t_tmp/qs-1.log" ||
	t_fail "first run reused a build configured from another source tree"
t_ok "first run: a build from another checkout redone; AdminComment '$tag', last lines and env file right"
# falcond runs with the demo's SLURM_CONF, not --no-slurm: its reconcile
# asks slurmctld which jobs run
(unset SLURM_CONF FALCON_CONF; . "$demo/env"; falconctl reconcile --json) >"$t_tmp/rec.json" ||
	t_fail "falconctl reconcile: $(cat "$t_tmp/rec.json")"
python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["slurm_checked"] else 1)' \
	"$t_tmp/rec.json" || t_fail "falcond's reconcile did not ask Slurm: $(cat "$t_tmp/rec.json")"
t_ok "falcond's reconcile asks the demo's slurmctld"

# falcon-sim serves HTTPS (the demo's CA) with accounts only root can read
# (a real chassis' only falcond holds): an anonymous attach is refused,
# falcond's account is an Operator (a zone, not an account), the files are
# 0600; falcond follows its events by subscription on its HTTPS listener.
. "$demo/ports"
cred=$demo/etc/falcon1.credentials
ca="--cacert $demo/etc/tls/ca.pem"
sim=https://127.0.0.1:$SIM_PORT
for f in "$cred" "$demo/etc/falcon1.accounts"; do
	[ "$(stat -c '%a %U' "$f")" = "600 root" ] || t_fail "$f: $(stat -c '%a %U' "$f")"
done
grep -q "CredentialsFile=$cred CAFile=$demo/etc/tls/ca.pem" "$demo/etc/falcon.conf" ||
	t_fail "falcon.conf names no CredentialsFile and CAFile"
code=$(curl -s -o /dev/null -w '%{http_code}' $ca -X PATCH -H 'Content-Type: application/json' \
	-d '{"Links":{"Endpoints":[]}}' "$sim/redfish/v1/Fabrics/PCIe/Zones/H1")
[ "$code" = 401 ] || t_fail "an anonymous PATCH of zone H1 got HTTP $code, not 401"
code=$(curl -s -o /dev/null -w '%{http_code}' $ca -u "$(cat "$cred")" \
	"$sim/redfish/v1/Fabrics/PCIe/Zones/H1")
[ "$code" = 200 ] || t_fail "GET of zone H1 with the credentials got HTTP $code"
code=$(curl -s -o /dev/null -w '%{http_code}' $ca -u "$(cat "$cred")" -X POST \
	-H 'Content-Type: application/json' -d '{"UserName":"x","Password":"y","RoleId":"ReadOnly"}' \
	"$sim/redfish/v1/AccountService/Accounts")
[ "$code" = 403 ] || t_fail "falcond's account made an account: HTTP $code"
t_ok "falcon-sim on HTTPS refuses an anonymous attach (401); falcond's account is an Operator (403 on accounts); root's, mode 0600"
grep -q 'events: chassis falcon1: subscribed as' "$demo/log/falcond.log" ||
	t_fail "falcond did not subscribe: $(grep events: "$demo/log/falcond.log" | tail -3)"
curl -s $ca "$sim/admin/state" | python3 -c 'import json, sys
s = json.load(sys.stdin)["subscriptions"]
assert [x["owner"] for x in s] == ["falcond"], s
assert s[0]["destination"].startswith("https://127.0.0.1:"), s' ||
	t_fail "the chassis' subscriptions: $(curl -s $ca "$sim/admin/state")"
t_ok "falcond receives the chassis' events by subscription over HTTPS"

run_qs 2
tag=$(check_run 2)
grep -q 'nothing changed: reusing' "$t_tmp/qs-2.log" || t_fail "second run rebuilt or reinstalled"
grep -q 'falcon-sim already running' "$t_tmp/qs-2.log" &&
	grep -q 'falcond already running' "$t_tmp/qs-2.log" || t_fail "second run restarted a daemon"
grep -q 'job 2 submitted' "$t_tmp/qs-2.log" || t_fail "second run: not a new job 2"
t_ok "second run: build and daemons reused, new job 2 '$tag'"

pids=""
for f in $(find "$demo" -name '*.pid'); do
	pids="$pids $(head -n 1 "$f" | tr -dc 0-9)"
done
[ "$(echo $pids | wc -w)" -ge 7 ] || t_fail "expected >= 7 pid files, got: $pids"
"$qs" --stop >"$t_tmp/qs-stop.log" 2>&1 || { cat "$t_tmp/qs-stop.log" >&2; t_fail "--stop failed"; }
grep -q 'stopped falcond' "$t_tmp/qs-stop.log" && grep -q 'stopped falcon-sim' "$t_tmp/qs-stop.log" &&
	grep -q 'stopped slurmctld' "$t_tmp/qs-stop.log" || t_fail "--stop said: $(cat "$t_tmp/qs-stop.log")"
# running PID - the process exists and is not a zombie not yet reaped by init.
running() {
	[ -r "/proc/$1/status" ] && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null
}
for p in $pids; do
	! running "$p" || t_fail "pid $p ($(tr '\0' ' ' <"/proc/$p/cmdline")) still running after --stop"
done
left=$(find "$demo" -name '*.pid' | head -n 3)
[ -z "$left" ] || t_fail "pid files left after --stop: $left"
t_ok "--stop: all $(echo $pids | wc -w) daemons gone, no pid file left"
