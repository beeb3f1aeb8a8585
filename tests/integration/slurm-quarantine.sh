#!/bin/sh
# slurm-quarantine.sh - what Slurm sees of falcond's quarantine and what
# falcond heals by itself (issue 11), on a real single-node cluster with
# Licenses=c1_gpu:8,c1_nvme:1, falcon-prolog/falcon-epilog and falcond
# asking this cluster's slurmctld (ReconcileInterval=2):
#  - falconctl quarantine of a GPU -> reservation falcon-c1-quarantine holds
#    c1_gpu:1; a job asking for the whole pool (-L c1_gpu:8) pends, the node
#    is not drained; falconctl unquarantine -> the reservation is gone and
#    the job runs; a reservation an admin deleted is made again;
#  - a falcon drain for a transient cause ("falcon: ... connection failed")
#    is resumed by reconcile; an admin's drain ("admin: disk") is left;
#  - a job whose prolog ran while falcond was down is requeued, not held,
#    and the node not drained; once falcond is back the job runs (after the
#    BeginTime Slurm gives a requeued job) without an admin.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/slurm-lib.sh"
. "$top_srcdir/tests/integration/prolog-lib.sh"
fp_slurm_node
fp_setup "ReconcileInterval=2"
fp_slurm_start --license c1_gpu:8,c1_nvme:1 --gpus 8
fp_falcond_with_slurm
resv=falcon-c1-quarantine

# q_resv - the reservation's Licenses= ("" when there is none).
q_resv() {
	scontrol show reservation "$resv" 2>/dev/null | tr ' ' '\n' | sed -n 's/^Licenses=//p'
}
q_resv_is() { [ "$(q_resv)" = "$1" ]; }
# q_node - the node's state flags and reason as sinfo -R shows them.
q_drained() {
	case $(sinfo -h -n "$FP_HOST" -o %T) in *drain*|*DRAIN*) return 0 ;; esac
	return 1
}
q_resumed() { ! q_drained; }
q_runs() {
	q_n=$(($(curl -s "http://127.0.0.1:$FD_PORT/metrics" | sed -n 's/^falcond_reconcile_runs_total //p') + 2))
	wait_for 30 "two reconcile passes" sh -c "[ \$(curl -s 'http://127.0.0.1:$FD_PORT/metrics' | sed -n 's/^falcond_reconcile_runs_total //p') -ge $q_n ]" ||
		t_fail "reconcile does not run: $(tail -n 3 "$t_tmp/falcond.log")"
}
q_reason() { squeue -h -j "$1" -o %r; }
q_has_reason() { [ -n "$(q_reason "$1")" ] && [ "$(q_reason "$1")" != None ]; }

q_resv_is "" || t_fail "a reservation before any quarantine: $(scontrol show res)"
dev=$(fd_sim c1 GET /admin/state | python3 -c '
import json, sys
print(sorted(d["id"] for d in json.load(sys.stdin)["devices"] if d.get("type", "GPU") != "NVMe" and not d["id"].startswith("nvme"))[0])')

# -- quarantine: the reservation holds it, a whole-pool job pends
"$FALCONCTL" quarantine c1 "$dev" --reason "admin: test" >/dev/null || t_fail "quarantine $dev"
wait_for 30 "reservation $resv to hold c1_gpu:1" q_resv_is c1_gpu:1 ||
	t_fail "reservation: '$(q_resv)'; $(scontrol show res 2>&1); falcond: $(tail -n 5 "$t_tmp/falcond.log")"
scontrol show reservation "$resv" | grep -q 'Flags=.*ANY_NODES' || t_fail "$(scontrol show res $resv)"
t_ok "$dev quarantined: $(scontrol show reservation "$resv" | tr '\n' ' ' | tr -s ' ')"
jid=$(sbatch --parsable -L c1_gpu:8 --time=2 -o /dev/null --wrap true)
wait_for 60 "job $jid to get a pending reason" q_has_reason "$jid" ||
	t_fail "job $jid: $(scontrol show job "$jid")"
[ "$(s_job_state "$jid")" = PENDING ] || t_fail "job $jid is $(s_job_state "$jid")"
why=$(q_reason "$jid")
q_drained && t_fail "node drained: $(sinfo -R)"
t_ok "job $jid (-L c1_gpu:8) pends: Reason=$why; node $FP_HOST not drained"

# -- an admin deletes the reservation: reconcile makes it again
scontrol delete reservation="$resv" || t_fail "scontrol delete reservation"
wait_for 30 "reservation $resv made again" q_resv_is c1_gpu:1 ||
	t_fail "reservation: '$(q_resv)'; falcond: $(tail -n 5 "$t_tmp/falcond.log")"
[ "$(s_job_state "$jid")" = PENDING ] || t_fail "job $jid is $(s_job_state "$jid")"
t_ok "reservation deleted by hand is made again while $dev stays quarantined"

# -- unquarantine: the reservation goes, the job runs
"$FALCONCTL" unquarantine c1 "$dev" >/dev/null || t_fail "unquarantine $dev"
wait_for 30 "reservation $resv to go" q_resv_is "" || t_fail "reservation: '$(q_resv)'"
s_wait_done "$jid"
[ "$(s_job_state "$jid")" = COMPLETED ] || t_fail "job $jid: $(s_job_state "$jid")"
t_ok "unquarantined: reservation gone, job $jid ran ($(s_job_state "$jid"))"

# -- a falcon transient drain is resumed, an admin's is not
scontrol update nodename="$FP_HOST" state=drain \
	reason="falcon: job 99: compose: connection failed: falcond unreachable" ||
	t_fail "scontrol drain"
wait_for 30 "reconcile to resume $FP_HOST" q_resumed ||
	t_fail "node: $(sinfo -R); falcond: $(tail -n 5 "$t_tmp/falcond.log")"
grep -q "node $FP_HOST resumed" "$t_tmp/falcond.log" || t_fail "falcond log: $(tail -n 5 "$t_tmp/falcond.log")"
scontrol update nodename="$FP_HOST" state=drain reason="admin: disk" || t_fail "scontrol drain"
q_runs
q_drained || t_fail "the admin's drain was undone: $(sinfo -R)"
sinfo -h -R -o '%E' | grep -q '^admin: disk' || t_fail "reason: $(sinfo -R)"
scontrol update nodename="$FP_HOST" state=resume || t_fail "scontrol resume"
t_ok "falcon's transient drain resumed by reconcile; 'admin: disk' left alone"

# -- a prolog that ran while falcond was down: since PrologSlurmctld and
# the failure classification (issue 12) falcon-prolog requeues the job (not
# held) and drains nothing; once falcond is back it runs without an admin.
# (Releasing jobs an older falcon left "launch failed requeued held" is in
# test_falcond_resv: Slurm gives no way to put a job in that state by hand.)
fd_stop_falcond
jid=$(sbatch --parsable -L c1_gpu:1 --gres=falcon_gpu:1 --time=2 -o /dev/null --wrap true)
q_requeued() { scontrol show job "$jid" | grep -q 'AdminComment=.*falcon:requeued='; }
wait_for 120 "job $jid requeued after its prolog found no falcond" q_requeued ||
	t_fail "job $jid: $(scontrol show job "$jid"); $(sinfo -R); $(tail -n 5 "$t_tmp/slurm-prolog.log")"
q_drained && t_fail "the prolog drained the node: $(sinfo -R)"
q_held() { squeue -h -j "$jid" -o %r | grep -qi 'held'; }
q_held && t_fail "job $jid held: $(scontrol show job "$jid")"
t_ok "job $jid requeued, not held ($(q_reason "$jid")); node not drained"
: >"$t_tmp/falcond.log"
FD_NO_SLURM= fd_start_falcond
# Slurm starts a requeued job after its BeginTime, the requeue time plus
# the credential's expiry window (AuthInfo cred_expire, 120 s by default;
# Slurm 22.05 src/slurmctld/job_mgr.c): wait that long and some
q_done() { s_in_state "$jid" COMPLETED FAILED CANCELLED TIMEOUT NODE_FAIL; }
wait_for 300 "job $jid to run after its BeginTime" q_done ||
	t_fail "job $jid: $(scontrol show job "$jid")"
[ "$s_st" = COMPLETED ] || t_fail "job $jid: $s_st; $(tail -n 5 "$t_tmp/slurm-prolog.log")"
t_ok "job $jid ran ($s_st)"
