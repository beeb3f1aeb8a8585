#!/bin/sh
# slurm-slowchassis.sh - defaults that fit real chassis (issue #29), on a
# real single-node cluster set up as scripts/quickstart.sh sets it up:
# falcon-prolog as PrologSlurmctld= and Prolog=, falcon-epilog as Epilog=,
# cluster.sh's PrologEpilogTimeout (the quickstart passes none), and the
# budgets of examples/falcon-demo.conf.in taken from that file (its
# PrologTimeout=, EpilogTimeout=, RescanTimeout=, CheckBudget=,
# ChassisRetries=, ComposeWait= if set, and its chassis line's Timeout= and
# ChangeTimeout= if set), unchanged:
#   (a) `sbatch --gres=falcon_gpu:4` COMPLETES with falcon-sim taking 20 s
#       per zone PATCH (attach and detach), the node never drained;
#   (b) the same with the attach and the detach answered 202 and run as
#       30 s tasks (DSP0266 sec. 12.2).
# Before ChangeTimeout= (the chassis' Timeout=5 bounding every request) (a)
# never started: each PATCH timed out and was rolled back, the job stayed
# CONFIGURING (falcon:waiting=compose) and was requeued every two minutes.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/slurm-lib.sh"
. "$top_srcdir/tests/integration/prolog-lib.sh"
fp_slurm_node
fp_setup
fp_demo_budgets
fp_slurmctld_wrapper
fp_slurm_start --prolog-slurmctld "$t_tmp/prolog-slurmctld.sh"
echo "slurm.conf: $(grep -E '^(PrologEpilogTimeout|BatchStartTimeout)=' "$SLURM_CONF" | tr '\n' ' ')"
fp_falcond_with_slurm

p_admin() { scontrol show job "$1" 2>/dev/null | sed -n 's/^ *AdminComment=//p'; }

# p_job CASE FAULTS - one job of 4 falcon GPUs with the sim's faults FAULTS;
# its states and AdminComment over time in $t_tmp/states-CASE.
p_job() {
	fd_sim c1 POST /admin/faults "$2" >/dev/null
	st_file=$t_tmp/states-$1
	t0=$(date +%s)
	jid=$(sbatch --parsable --gres=falcon_gpu:4 -o "$t_tmp/job-%j.out" --wrap 'echo ran')
	: >"$st_file"
	wait_for 400 "job $jid to end" p_watch ||
		{ s_logs; t_fail "$1: job $jid: $(tail -n 3 "$st_file")"; }
	fd_sim c1 POST /admin/faults '{}' >/dev/null
	grep -q '^drained' "$st_file" && t_fail "$1: node drained while the chassis was slow"
	grep -q '^requeued' "$st_file" && { tail -n 5 "$t_tmp/slurm-prolog-slurmctld.log" >&2
		t_fail "$1: job $jid requeued: $(grep -v '^requeued' "$st_file" | tail -n 2)"; }
	fp_completed "$jid"
	fp_not_drained
	grep -q '^ran$' "$t_tmp/job-$jid.out" || t_fail "$1: job $jid output: $(cat "$t_tmp/job-$jid.out")"
	cf=$(awk '$2 == "CONFIGURING" { if (!a) a = $1; b = $1 } END { print a "-" b }' "$st_file")
	run=$(awk '$2 == "RUNNING" { if (!a) a = $1; b = $1 } END { print a "-" b }' "$st_file")
	t_ok "$1: job $jid (4 x falcon_gpu) CONFIGURING ${cf} s after submit, RUNNING ${run} s, COMPLETED by $(tail -n 1 "$st_file" | cut -d' ' -f1) s; tags seen: $(grep -o 'falcon:[a-z]*=[a-zA-Z_]*\|falcon:composed' "$st_file" | sort -u | tr '\n' ' ')"
	fp_wait_pool_clean 120
}
p_watch() {
	_s=$(s_job_state "$jid")
	echo "$(($(date +%s) - t0)) $_s $(p_admin "$jid")" >>"$st_file"
	case $(sinfo -h -n "$FP_HOST" -o %T) in *drain*|*DRAIN*) echo drained >>"$st_file" ;; esac
	case $_s in COMPLETED|FAILED|CANCELLED|NODE_FAIL|TIMEOUT) return 0 ;; esac
	case $_s in PENDING) grep -q ' RUNNING\| CONFIGURING' "$st_file" &&
		{ echo "requeued" >>"$st_file"; return 0; } ;; esac
	return 1
}
p_job "20 s per PATCH" \
	'{"rules":[{"action":"latency","path":"/redfish/v1/Fabrics*","method":"PATCH","ms":20000}]}'
p_job "30 s tasks" '{"tasks":{"attach":true,"detach":true,"ms":30000}}'
