#!/bin/sh
# prolog-slurmctld.sh - failure semantics that fit Slurm (#12), on a real
# single-node cluster with falcon-prolog as PrologSlurmctld= (--slurmctld)
# and Prolog=, falcon-epilog as Epilog= (the node plays falcon-sim's node1):
#   (a) falcond stopped 30 s while jobs are submitted: they wait CONFIGURING
#       with "falcon:waiting=falcond_unreachable" in their AdminComment, no
#       node is drained, and they COMPLETE once falcond is back, no admin
#       action;
#   (b) a chassis answering each PATCH in 20 s: the job waits CONFIGURING
#       ("falcon:waiting=compose" visible), COMPLETES, the node is never
#       drained (the job's states over time are logged for the README);
#   (c) the epilog with falcond down: the devices come off the bus, the node
#       is IDLE, the lease is reclaimed by falcond's reconcile once back;
#   (d) an administrator's drain reason is not overwritten by the epilog's;
#   (e) slurmctld restarting as a node prolog asks it for the job: the
#       prolog asks again, the job COMPLETES, the node is not drained;
#   (f) slurmdbd not answering as a job starts, the chassis at 20 s per
#       PATCH: slurmctld refuses the AdminComment tag for now ("the DB
#       index is being set"); the prolog asks again and the tag is set;
#       PrologSlurmctld's retries share one budget;
#   (g) a job cancelled in CONFIGURING while the chassis answers each
#       PATCH in 20 s: EpilogSlurmctld= (falcon-epilog --slurmctld) gives
#       its lease back, the next job on those GPUs COMPLETES; (g2) the
#       same with EpilogSlurmctld killed as slurmctld itself may kill it:
#       falcond rolls the compose back on Slurm's word.
# No timing is asserted: every wait is bounded and generous.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/slurm-lib.sh"
. "$top_srcdir/tests/integration/prolog-lib.sh"
fp_slurm_node
fp_setup
# the quickstart's budgets (falcon.conf) and PrologEpilogTimeout= (120 s,
# cluster.sh's default): a chassis at 20 s per PATCH, slurmdbd or
# slurmctld away must fit them as shipped
fp_demo_budgets
fp_slurmctld_wrapper
fp_slurm_start --prolog-slurmctld "$t_tmp/prolog-slurmctld.sh"
grep -q "^PrologSlurmctld=$t_tmp/prolog-slurmctld.sh" "$SLURM_CONF" ||
	t_fail "slurm.conf: $(grep -i prolog "$SLURM_CONF")"
fp_falcond_with_slurm

# p_admin JOB - the job's AdminComment.
p_admin() { scontrol show job "$1" 2>/dev/null | sed -n 's/^ *AdminComment=//p'; }
p_admin_has() { p_admin "$1" | grep -q "$2"; }

# -- (a) falcond stopped 30 s while jobs are submitted
fd_stop_falcond
j1=$(sbatch --parsable --gres=falcon_gpu:2 -o "$t_tmp/job-%j.out" --wrap 'echo ran')
j2=$(sbatch --parsable --gres=falcon_gpu:2 -o "$t_tmp/job-%j.out" --wrap 'echo ran')
wait_for 60 "job $j1 to say it waits for falcond" p_admin_has "$j1" \
	'falcon:waiting=falcond_unreachable' ||
	{ tail "$t_tmp/slurm-prolog-slurmctld.log" >&2; t_fail "AdminComment '$(p_admin "$j1")'"; }
st=$(squeue -h -j "$j1" -o %T)
[ "$st" = CONFIGURING ] || t_fail "job $j1 $st while falcond is down, CONFIGURING expected"
t_ok "falcond down: job $j1 $st, AdminComment '$(p_admin "$j1")', squeue: $(squeue -h -o '%i %T' | tr '\n' ' ')"
sleep 30
fp_not_drained
FD_NO_SLURM= fd_start_falcond
fp_completed "$j1" "$j2"
fp_not_drained
grep -q '^ran$' "$t_tmp/job-$j1.out" || t_fail "job $j1 output: $(cat "$t_tmp/job-$j1.out")"
fp_wait_pool_clean
t_ok "falcond back: jobs $j1 $j2 COMPLETED, node $FP_HOST never drained, pool clean"

# -- (b) a chassis answering each PATCH in 20 s (and, with
# FALCON_MEASURE_60=1, in 30 s: a 60 s compose, for the README's figures)
# p_slow MS - one job of 2 GPUs with every PATCH taking MS ms; its states
# and AdminComment over time in $t_tmp/states-MS.
p_slow() {
	fd_sim c1 POST /admin/faults "{\"rules\":[{\"action\":\"latency\",\"path\":\"/redfish/v1/Fabrics*\",\"method\":\"PATCH\",\"ms\":$1}]}" >/dev/null
	st_file=$t_tmp/states-$1
	t0=$(date +%s)
	jid=$(sbatch --parsable --gres=falcon_gpu:2 -o "$t_tmp/job-%j.out" --wrap 'echo ran')
	: >"$st_file"
	wait_for 400 "job $jid to end" p_watch ||
		{ s_logs; t_fail "job $jid: $(tail -n 3 "$st_file")"; }
	fd_sim c1 POST /admin/faults '{}' >/dev/null
	grep -q '^drained' "$st_file" && t_fail "node drained while the chassis was slow"
	grep -q 'CONFIGURING.*falcon:waiting=compose' "$st_file" ||
		t_fail "waiting reason never visible: $(cat "$st_file")"
	fp_completed "$jid"
	fp_not_drained
	# the figures for the README: when CF began and ended, RUNNING seen
	cf=$(awk '$2 == "CONFIGURING" { if (!a) a = $1; b = $1 } END { print a "-" b }' "$st_file")
	run=$(awk '$2 == "RUNNING" { if (!a) a = $1; b = $1 } END { print a "-" b }' "$st_file")
	t_ok "slow chassis ($1 ms per PATCH): job $jid CONFIGURING ${cf} s after submit, RUNNING ${run} s, COMPLETED by $(tail -n 1 "$st_file" | cut -d' ' -f1) s, node never drained; $(grep -c 'requeue\|[Tt]imeout\|BatchStart' "$s_state/log/slurmctld.log") requeue/timeout lines in slurmctld.log"
	fp_wait_pool_clean
}
p_watch() {
	_s=$(s_job_state "$jid")
	echo "$(($(date +%s) - t0)) $_s $(p_admin "$jid")" >>"$st_file"
	case $(sinfo -h -n "$FP_HOST" -o %T) in *drain*|*DRAIN*) echo drained >>"$st_file" ;; esac
	case $_s in COMPLETED|FAILED|CANCELLED|NODE_FAIL|TIMEOUT) return 0 ;; esac
	return 1
}
p_slow 20000
[ -z "${FALCON_MEASURE_60:-}" ] || p_slow 30000

# -- (c) the epilog with falcond down
jid=$(sbatch --parsable --gres=falcon_gpu:2 -o /dev/null \
	--wrap "echo started > '$t_tmp/c-started'; sleep 300")
wait_for 120 "job $jid's script to start" test -s "$t_tmp/c-started" ||
	{ s_logs; t_fail "job $jid: $(s_job_state "$jid")"; }
fd_stop_falcond
scancel "$jid"
wait_for 120 "job $jid to end" s_in_state "$jid" CANCELLED COMPLETED FAILED ||
	t_fail "job $jid: $s_st"
p_idle() { sinfo -h -n "$FP_HOST" -o %T | grep -qx idle; }
# idle (twice, under a three-lane load, sinfo said "mixed" for 120 s after
# the epilog had ended: what holds the node is printed then, and the wait
# goes on to 300 s; the node must still become idle)
if ! wait_for 120 "node $FP_HOST to be idle" p_idle; then
	tail -n 20 "$t_tmp/slurm-epilog.log" >&2; squeue -a -t all >&2
	scontrol show node "$FP_HOST" >&2; s_logs
	wait_for 180 "node $FP_HOST to be idle" p_idle ||
		t_fail "node: $(sinfo -h -n "$FP_HOST" -o %T) $(sinfo -h -R)"
fi
fp_not_drained
grep -q "decompose: .*left to falcond's reconcile" "$t_tmp/slurm-epilog.log" ||
	t_fail "epilog log: $(tail -n 5 "$t_tmp/slurm-epilog.log")"
if ls "$SYSFS/node1/bus/pci/devices/" | grep -qE '^0000:(3[d-f]|4[0-4]|b[1-8]):'; then
	t_fail "devices left on the bus: $(ls "$SYSFS/node1/bus/pci/devices/")"
fi
fd_ledger | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["leases"] else 1)' ||
	t_fail "no lease left for reconcile to reclaim"
t_ok "epilog with falcond down: node $FP_HOST idle, devices off the bus, lease left"
FD_NO_SLURM= fd_start_falcond
"$FALCONCTL" reconcile --json >"$t_tmp/out" || t_fail "falconctl reconcile: $(cat "$t_tmp/out")"
fp_wait_pool_clean
t_ok "falcond back: job $jid's lease reclaimed by reconcile"

# -- (d) an administrator's drain reason is kept
jid=$(sbatch --parsable --gres=falcon_gpu:1 -o /dev/null \
	--wrap "echo started > '$t_tmp/d-started'; sleep 300")
wait_for 120 "job $jid's script to start" test -s "$t_tmp/d-started" ||
	{ s_logs; t_fail "job $jid: $(s_job_state "$jid")"; }
scontrol update nodename="$FP_HOST" state=drain reason="admin: DIMM test"
bdf=$(fp_topo "$jid" 'j["gpus"][0]["bdf"]')
rm -f "$SYSFS/node1/bus/pci/devices/$bdf/remove"
mkdir "$SYSFS/node1/bus/pci/devices/$bdf/remove"
scancel "$jid"
wait_for 120 "the epilog to find $bdf stuck" grep -q "already has the reason 'admin: DIMM test'" \
	"$t_tmp/slurm-epilog.log" || t_fail "epilog log: $(tail -n 5 "$t_tmp/slurm-epilog.log")"
reason=$(sinfo -h -R -n "$FP_HOST" -o %E)
[ "$reason" = "admin: DIMM test" ] || t_fail "drain reason now '$reason'"
t_ok "a stuck device at epilog kept the admin's reason '$reason'"
wait_for 60 "job $jid to end" s_in_state "$jid" CANCELLED COMPLETED FAILED || true
rm -rf "$SYSFS/node1/bus/pci/devices/$bdf" "$t_tmp/run/$jid"
[ "$(fd_call GET /v1/status '')" = 200 ] || t_fail "GET /v1/status: $(cat "$t_tmp/out")"
# (a reconcile of falcond's own clears a device that came off meanwhile:
# 404 "not quarantined" then, as long as it is gone from the list)
for qd in $(fd_json '" ".join(q["device"] for q in j["quarantine"])'); do
	code=$(fd_call POST /v1/unquarantine "{\"chassis\":\"c1\",\"device\":\"$qd\"}")
	[ "$code" = 200 ] || { [ "$code" = 404 ] && grep -q 'is not quarantined' "$t_tmp/out"; } ||
		t_fail "POST /v1/unquarantine $qd: HTTP $code: $(cat "$t_tmp/out")"
done
[ "$(fd_call GET /v1/status '')" = 200 ] && [ "$(fd_json 'len(j["quarantine"])')" = 0 ] ||
	t_fail "quarantine left: $(cat "$t_tmp/out")"
scontrol update nodename="$FP_HOST" state=resume
fp_wait_pool_clean
t_ok "cleared by the admin"

# -- (e) slurmctld down 20 s just as a node prolog asks it for the job (a
# controller's restart on a busy host, a failover): longer than libslurm
# tries to connect (about 10 s), so the prolog asks again, 30 s at most,
# rather than draining a healthy node (make soak-fleet drained one at each
# slurmctld restart: "falcon: job N: reading the job: slurm_load_job ...
# Unable to contact slurm controller"); the job COMPLETES
cp "$t_tmp/prolog.sh" "$t_tmp/prolog.sh.orig"
cat >"$t_tmp/prolog.sh" <<EOS
#!/bin/sh
p=\$(cat "$s_state/run/slurmctld.pid")
kill -TERM "\$p"
while kill -0 "\$p" 2>/dev/null; do sleep 0.2; done
# (in a session of its own: slurmd kills what the prolog leaves behind)
setsid sh -c 'sleep 20; "$top_srcdir/scripts/cluster.sh" restart "$s_state" slurmctld' \
	</dev/null >>"$t_tmp/ctld-restart.log" 2>&1 &
exec "$top_builddir/prolog/falcon-prolog" -c "$FALCON_CONF" -v 2>>"$t_tmp/slurm-prolog.log"
EOS
jid=$(sbatch --parsable --gres=falcon_gpu:1 -o "$t_tmp/job-%j.out" --wrap 'echo ran')
# Slurm 22.05's libslurm gives up connecting after about 10 s, and the
# prolog asks again; 26.05's waits the 20 s itself (its slurm_us shows it)
asked() {
	grep -Eq "job $jid: (slurm_load_job: .*trying again|timing .* rc=0)" "$t_tmp/slurm-prolog.log"
}
wait_for 120 "job $jid's prolog to ask slurmctld again or to end" asked ||
	{ tail -n 5 "$t_tmp/slurm-prolog.log" "$t_tmp/ctld-restart.log" >&2; t_fail "the prolog neither asked again nor ended"; }
how="it asked again"
grep -q "job $jid: slurm_load_job: .*trying again" "$t_tmp/slurm-prolog.log" ||
	how="libslurm waited for it ($(sed -n "s/.*job $jid: timing .*\(slurm_us=[0-9]*\).*/\1/p" "$t_tmp/slurm-prolog.log" | tail -n 1))"
cp "$t_tmp/prolog.sh.orig" "$t_tmp/prolog.sh"
wait_for 90 "slurmctld back" scontrol ping ||
	t_fail "slurmctld did not come back: $(tail -n 3 "$t_tmp/ctld-restart.log")"
fp_completed "$jid"
fp_not_drained
t_ok "slurmctld restarted under job $jid's node prolog: $how, COMPLETED, $FP_HOST not drained"

# -- (g) a job cancelled in CONFIGURING while its compose is at the chassis
# (20 s per PATCH): slurmctld SIGKILLs PrologSlurmctld and runs no node
# epilog; EpilogSlurmctld (falcon-epilog --slurmctld) gives the lease back
# once the compose has ended, not falcond's reconcile (make soak-fleet
# requeued the next job on such a node pool_short, the lease reclaimed by
# the reconcile 34-97 s after the cancel).  The next job, asking the same
# 8 GPUs, COMPLETES.
# (g2) the same with EpilogSlurmctld SIGKILLed as it starts, as slurmctld
# itself does at times: the job's scripts are flushed (slurmscriptd
# FLUSH_JOB) just before EpilogSlurmctld is asked for, each in a thread
# of slurmscriptd's own (Slurm 22.05 to 26.05; CI's host lane saw it
# once).  falcond learns it from the PrologSlurmctld's closed connection
# and Slurm's word that the job ended: the compose rolls back.
grep -q "^EpilogSlurmctld=$t_tmp/epilog-slurmctld.sh" "$SLURM_CONF" ||
	t_fail "slurm.conf: $(grep -i slurmctld "$SLURM_CONF")"
# p_leased JOB - the ledger holds a lease of JOB (1: none, 2: unread)
p_leased() {
	_pl=$(fd_ledger) || return 2
	printf '%s' "$_pl" | python3 -c 'import json,sys
try: leases = json.load(sys.stdin)["leases"]
except Exception: sys.exit(2)
sys.exit(0 if any(l["job_id"] == int(sys.argv[1]) for l in leases) else 1)' "$1"
}
p_unleased() { p_leased "$1"; [ $? = 1 ]; }
# p_cancel_configuring WHAT - one job of 8 GPUs cancelled with its compose
# at the chassis, its lease gone by one of the ways EpilogSlurmctld's word
# or Slurm's gives it back, the next job of 8 COMPLETED; WHAT names the
# case in the messages.
p_cancel_configuring() {
	fd_sim c1 POST /admin/faults '{"rules":[{"action":"latency","path":"/redfish/v1/Fabrics*","method":"PATCH","ms":20000}]}' >/dev/null
	ja=$(sbatch --parsable --gres=falcon_gpu:8 -o /dev/null --wrap 'echo ran')
	wait_for 90 "job $ja's compose to reach the chassis" p_leased "$ja" ||
		{ tail -n 5 "$t_tmp/slurm-prolog-slurmctld.log" >&2; t_fail "$1: no lease of job $ja"; }
	scancel "$ja"
	t0=$(date +%s)
	fd_sim c1 POST /admin/faults '{}' >/dev/null
	jb=$(sbatch --parsable --gres=falcon_gpu:8 -o "$t_tmp/job-%j.out" --wrap 'echo ran')
	wait_for 150 "job $ja's lease to be given back" p_unleased "$ja" ||
		{ tail -n 5 "$t_tmp/slurm-epilog-slurmctld.log" >&2; t_fail "$1: job $ja's lease still there"; }
	gone=$(($(date +%s) - t0))
	# given back by EpilogSlurmctld's decompose; or, the job marked ended
	# by it first, by the compose's own rollback as it ended; or that
	# rollback on Slurm's word, its PrologSlurmctld gone
	how=
	grep -q "job $ja: ended before a node prolog asked for its devices: 1 lease(s) given back" \
		"$t_tmp/slurm-epilog-slurmctld.log" && how="EpilogSlurmctld's decompose closed it"
	grep -q "compose: job $ja on $FP_HOST ended (its EpilogSlurmctld ran) after this compose was asked); rolled back" \
		"$t_tmp/falcond.log" && how="the compose, the job marked ended by EpilogSlurmctld, rolled it back"
	grep -q "compose: job $ja on $FP_HOST ended (Slurm's word, its PrologSlurmctld gone) while this compose ran); rolled back" \
		"$t_tmp/falcond.log" && how="the compose, its PrologSlurmctld gone and Slurm saying the job ended, rolled it back"
	[ -n "$how" ] ||
		{ grep -h "job $ja\b\|JobId=$ja " "$t_tmp/slurm-epilog-slurmctld.log" "$t_tmp/falcond.log" \
			"$s_state/log/slurmctld.log" >&2
		  t_fail "$1: job $ja's lease not given back on EpilogSlurmctld's or Slurm's word"; }
	! grep -q "reconcile: lease .*: job $ja is not running" "$t_tmp/falcond.log" ||
		t_fail "$1: job $ja's lease reclaimed by the reconcile"
	fp_completed "$jb"
	fp_not_drained
	fp_wait_pool_clean
	t_ok "$1: job $ja cancelled in CONFIGURING with its compose at the chassis: its lease gone ${gone} s after the cancel ($how); job $jb on the same 8 GPUs COMPLETED"
}
p_cancel_configuring "(g)"
touch "$t_tmp/epilog-slurmctld.killed"
p_cancel_configuring "(g2) EpilogSlurmctld killed"
rm -f "$t_tmp/epilog-slurmctld.killed"
case $how in *"PrologSlurmctld gone"*) ;;
*) t_fail "(g2): the lease given back by another way than the one without EpilogSlurmctld: $how" ;;
esac

# -- (f) slurmdbd not answering (SIGSTOP) as a job starts: slurmctld has
# asked it for the job's record and refuses updates meanwhile ("Job update
# not available right now, the DB index is being set":
# ESLURM_JOB_SETTING_DB_INX); the prolog's AdminComment tag asks again and
# is set once slurmdbd answers (make soak-fleet left 3 jobs untagged so)
if ! grep -q '^#define HAVE_DECL_ESLURM_JOB_SETTING_DB_INX 1' "$top_builddir/config.h"; then
	t_ok "(f) not run: this Slurm ($(slurmctld -V)) has no ESLURM_JOB_SETTING_DB_INX, it does not refuse a job's update while slurmdbd is away"
	exit 0
fi
dbd=$(cat "$s_state/run/slurmdbd.pid")
# and the chassis at 20 s per PATCH: the prolog's Slurm waits and the
# compose share PrologEpilogTimeout
fd_sim c1 POST /admin/faults '{"rules":[{"action":"latency","path":"/redfish/v1/Fabrics*","method":"PATCH","ms":20000}]}' >/dev/null
jid=$(sbatch --parsable --begin=now+15 --gres=falcon_gpu:1 -o "$t_tmp/job-%j.out" --wrap 'echo ran')
kill -STOP "$dbd"
t_on_exit "kill -CONT $dbd 2>/dev/null || true"
dbinx() { scontrol update jobid="$jid" comment=probe 2>&1 | grep -q 'DB index'; }
wait_for 60 "slurmctld to refuse job $jid's updates while slurmdbd is stopped" dbinx ||
	{ kill -CONT "$dbd"; t_fail "(f): no 'DB index is being set' refusal with slurmdbd stopped"; }
# the node prolog's tag refused (asked again, or given up: without the
# fix); PrologSlurmctld's own tag is refused first, each try taking
# seconds, so the node prolog starts a minute or more later
wait_for 300 "job $jid's node prolog to be refused its tag" \
	grep -Eq "job $jid: (slurm_update_job admin_comment: .*DB index.*trying again|AdminComment not tagged)" \
	"$t_tmp/slurm-prolog.log" ||
	{ kill -CONT "$dbd"; grep -h "job $jid\b" "$t_tmp/slurm-prolog-slurmctld.log" "$t_tmp/slurm-prolog.log" >&2
	  t_fail "(f): the node prolog's tag was not refused"; }
kill -CONT "$dbd"
fp_completed "$jid"
fd_sim c1 POST /admin/faults '{}' >/dev/null
tag=$(sacct -n -X -P -j "$jid" -o AdminComment 2>/dev/null)
case $tag in *falcon:topo=*) ;; *) t_fail "(f): job $jid's tag '$tag', falcon:topo= expected" ;; esac
fp_not_drained
# PrologSlurmctld's waits for Slurm share one budget: once a tag has used
# it up, its next tag is not asked again (one budget per call took 70 s
# of PrologEpilogTimeout= with two tags)
awk -v j="job $jid:" 'index($0, j) && /AdminComment not tagged/ { spent = 1; next }
	index($0, j) && spent && /admin_comment: .*trying again/ { again++ }
	END { exit !(spent && !again) }' "$t_tmp/slurm-prolog-slurmctld.log" ||
	{ grep -h "job $jid\b" "$t_tmp/slurm-prolog-slurmctld.log" >&2
	  t_fail "(f): PrologSlurmctld asked Slurm again after its budget was spent (or never spent it)"; }
t_ok "slurmdbd stopped and the chassis at 20 s per PATCH as job $jid started: its tag was refused, asked again, set ('$tag'); PrologSlurmctld's retries within one budget ($(grep -o "job $jid: timing.*slurm_us=[0-9]*" "$t_tmp/slurm-prolog-slurmctld.log" | grep -o 'slurm_us=[0-9]*' | tail -1))"
