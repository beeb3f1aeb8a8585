#!/bin/sh
# slurm-events.sh - falcond's chassis event listener on a real single-node
# cluster (scripts/cluster.sh; the node plays falcon-sim's node1) with
# falcon-prolog/falcon-epilog as Prolog=/Epilog= and falcond asking this
# cluster's slurmctld: a running falcon_gpu:2 job, one of its devices goes
# Critical (falcon-sim's POST /admin/health, streamed as a Redfish event);
# the job's AdminComment gets falcon-event=c1/DEVICE:Critical beside the
# prolog's falcon:topo= tag, the node is not drained, the device is
# quarantined with the event as reason; the job is cancelled, its epilog
# gives the lease back (the device stays quarantined, the other is free);
# a new falcon_gpu:2 job does not get the quarantined device.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/slurm-lib.sh"
. "$top_srcdir/tests/integration/prolog-lib.sh"
fp_slurm_node
s_need_spank
fp_setup
fp_spank_start --gpus 8
# falcond again, now with this cluster's slurmctld to tell the jobs
fp_falcond_with_slurm
ev_listening() {
	grep -q 'events: chassis c1: listening on /redfish/v1/EventService/SSE' "$t_tmp/falcond.log"
}
wait_for 20 "falcond to listen to c1's events" ev_listening ||
	t_fail "no listener: $(tail -n 5 "$t_tmp/falcond.log")"

# ev_owned - the chassis devices attached to a host port (falcon-sim's
# /admin/state; one job runs at a time here), one per line, sorted.
ev_owned() {
	fd_sim c1 GET /admin/state | python3 -c '
import json, sys
for d in sorted(x["id"] for x in json.load(sys.stdin)["devices"] if x["owner"]):
    print(d)'
}
# ev_admin JOB - the job's AdminComment as slurmctld has it now.
ev_admin() {
	scontrol show job "$1" | sed -n 's/^ *AdminComment=//p'
}
ev_has_note() {
	case $(ev_admin "$1") in *"$2"*) return 0 ;; esac
	return 1
}
# ev_status EXPR - falconctl status --json, a python expression over it (j).
ev_status() {
	"$FALCONCTL" status --json >"$t_tmp/status.json" || t_fail "falconctl status"
	python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($1)" "$t_tmp/status.json"
}
ev_no_lease() { [ "$(ev_status 'len(j["leases"])')" = 0 ]; }

# -- a running job with two chassis GPUs
jid=$(sbatch --parsable --gres=falcon_gpu:2 --time=2 -o /dev/null \
	--wrap "echo started > '$t_tmp/job1-started'; sleep 60")
s_wait_state "$jid" RUNNING
fd_wait_file "$t_tmp/job1-started"
wait_for 20 "the prolog's tag on job $jid" ev_has_note "$jid" 'falcon:topo=' ||
	t_fail "no falcon:topo= tag: $(ev_admin "$jid")"
ev_owned >"$t_tmp/owned1"
[ "$(wc -l <"$t_tmp/owned1")" = 2 ] || t_fail "job $jid holds: $(cat "$t_tmp/owned1")"
dev=$(sed -n 1p "$t_tmp/owned1")
other=$(sed -n 2p "$t_tmp/owned1")
[ "$(ev_status "sorted(d if isinstance(d, str) else d['id'] for l in j['leases'] if l['job_id'] == $jid for d in l['devices'])")" = "['$dev', '$other']" ] ||
	t_fail "falcond's lease of job $jid: $(cat "$t_tmp/status.json")"
t_ok "job $jid runs on $dev and $other, AdminComment '$(ev_admin "$jid")'"

# -- Critical on one of them
fd_sim c1 POST /admin/health "{\"device\":\"$dev\",\"health\":\"Critical\"}" >"$t_tmp/health.out"
grep -q '"event"' "$t_tmp/health.out" || t_fail "admin/health: $(cat "$t_tmp/health.out")"
note="falcon-event=c1/$dev:Critical"
wait_for 20 "$note in job $jid's AdminComment" ev_has_note "$jid" "$note" ||
	t_fail "AdminComment '$(ev_admin "$jid")'; falcond: $(grep events: "$t_tmp/falcond.log" | tail -5)"
ac=$(ev_admin "$jid")
case $ac in *falcon:topo=falconGPUs,f=2,*) ;; *) t_fail "the prolog's tag lost: '$ac'" ;; esac
[ "$(printf %s "$ac" | grep -o 'falcon-event=' | wc -l)" = 1 ] || t_fail "AdminComment '$ac'"
grep -q "events: job $jid told in its AdminComment: $note" "$t_tmp/falcond.log" ||
	t_fail "falcond log: $(grep events: "$t_tmp/falcond.log" | tail -5)"
t_ok "job $jid told: AdminComment '$ac'"

[ "$(s_job_state "$jid")" = RUNNING ] || t_fail "job $jid: $(s_job_state "$jid")"
sinfo -h -R -o '%E' | grep -q 'falcon' && t_fail "node drained: $(sinfo -R)"
case $(sinfo -h -n "$FP_HOST" -o %T) in *drain*|*DRAIN*) t_fail "node state $(sinfo -h -n "$FP_HOST" -o %T)" ;; esac
t_ok "job $jid still runs, node $FP_HOST not drained ($(sinfo -h -n "$FP_HOST" -o %T))"

[ "$(ev_status "[q['reason'] for q in j['quarantine'] if q['device'] == '$dev']")" != '[]' ] ||
	t_fail "$dev not quarantined: $(cat "$t_tmp/status.json")"
reason=$(ev_status "[q['reason'] for q in j['quarantine'] if q['device'] == '$dev'][0]")
case $reason in *ResourceEvent.1.4.ResourceStatusChangedCritical*Critical*) ;;
*) t_fail "quarantine reason '$reason'" ;; esac
"$FALCONCTL" status >"$t_tmp/status.txt" || t_fail "falconctl status"
grep "$dev" "$t_tmp/status.txt" | grep -q quarantined || t_fail "falconctl status: $(cat "$t_tmp/status.txt")"
grep "\"device\":\"$dev\"" "$t_tmp/state/history.jsonl" | grep 'event: ResourceEvent' |
	grep -q "\"job_id\":$jid" || t_fail "history.jsonl: $(cat "$t_tmp/state/history.jsonl")"
t_ok "$dev quarantined ('$reason'), in the history with job $jid"

# -- the job ends: its epilog gives the lease back, the device stays out
scancel "$jid"
s_wait_done "$jid"
wait_for 30 "job $jid's lease to be given back" ev_no_lease ||
	{ tail -n 20 "$t_tmp/slurm-epilog.log" >&2; t_fail "leases: $(cat "$t_tmp/status.json")"; }
[ "$(ev_status "[q['device'] for q in j['quarantine']]")" = "['$dev']" ] ||
	t_fail "quarantine after the epilog: $(cat "$t_tmp/status.json")"
fd_sim c1 GET /admin/state >"$t_tmp/simstate.json"
python3 - "$t_tmp/simstate.json" "$other" <<'EOP' || t_fail "$other not free: $(cat "$t_tmp/simstate.json")"
import json, sys
d = [x for x in json.load(open(sys.argv[1]))["devices"] if x["id"] == sys.argv[2]][0]
sys.exit(1 if d["owner"] or d["present"] or d["staged"] else 0)
EOP
[ "$(ev_status "[d['state'] for d in j['devices'] if d['id'] == '$other'][0]")" = free ] ||
	t_fail "$other: $(cat "$t_tmp/status.json")"
sinfo -h -R -o '%E' | grep -q 'falcon' && t_fail "node drained after the epilog: $(sinfo -R)"
ev_sacct() {
	sacct -n -X -P -j "$jid" -o AdminComment >"$t_tmp/sacct.out" &&
		grep -q "$note" "$t_tmp/sacct.out"
}
wait_for 30 "$note in sacct" ev_sacct || t_fail "sacct AdminComment: $(cat "$t_tmp/sacct.out")"
grep -q 'falcon:topo=falconGPUs,f=2,' "$t_tmp/sacct.out" || t_fail "sacct AdminComment: $(cat "$t_tmp/sacct.out")"
t_ok "job $jid ended: lease given back, $other free, $dev still quarantined, node not drained, sacct '$(cat "$t_tmp/sacct.out")'"

# -- a new job does not get the quarantined device
jid2=$(sbatch --parsable --gres=falcon_gpu:2 --time=2 -o /dev/null \
	--wrap "echo started > '$t_tmp/job2-started'; sleep 60")
s_wait_state "$jid2" RUNNING
fd_wait_file "$t_tmp/job2-started"
ev_owned >"$t_tmp/owned2"
[ "$(wc -l <"$t_tmp/owned2")" = 2 ] || t_fail "job $jid2 holds: $(cat "$t_tmp/owned2")"
grep -qx "$dev" "$t_tmp/owned2" && t_fail "job $jid2 got quarantined $dev: $(cat "$t_tmp/owned2")"
case $(ev_admin "$jid2") in *falcon-event=*) t_fail "job $jid2: $(ev_admin "$jid2")" ;; esac
scancel "$jid2"
s_wait_done "$jid2"
wait_for 30 "job $jid2's lease to be given back" ev_no_lease ||
	t_fail "leases: $(cat "$t_tmp/status.json")"
t_ok "job $jid2 got $(tr '\n' ' ' <"$t_tmp/owned2")- not $dev"
