#!/bin/sh
# slurm-fleet8.sh - a fleet: 8 Slurm nodes (scripts/cluster.sh --nodes 8:
# this host's node and node2..node8, each of those in its own network and
# UTS namespace) cabled to 4 chassis (4 falcon-sim, 2 nodes each: the
# sim's drawer 1 through H1 and drawer 2 through H2), one partition over
# all of them, job_submit_falcon, falcond and falcon-prolog/epilog on every
# node.  8 jobs of 2 GPUs at once all run without a requeue, each
# chassis giving exactly what its licenses count (4 GPUs), and a ninth
# waits for licenses.  Skips where namespaces cannot be made or the plugin
# is not built.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/slurm-lib.sh"
. "$top_srcdir/tests/integration/prolog-lib.sh"
fp_slurm_node
s_need_job_submit
s_need_netns

. "$top_srcdir/tests/integration/fleet-lib.sh"
fl_start

present() {
	fd_sim "$1" GET /admin/state | python3 -c 'import json,sys
print(sum(1 for d in json.load(sys.stdin)["devices"] if d["present"] and d["type"] == "GPU"))'
}
jf() { scontrol show job -o "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# -- 8 jobs of 2 GPUs: 16 GPUs, what the 4 pools hold (4 each)
jobs=""
for k in 1 2 3 4 5 6 7 8; do
	jobs="$jobs $(sbatch --parsable --gres=falcon_gpu:2 -o /dev/null --wrap 'sleep 120')"
done
for j in $jobs; do s_wait_state "$j" RUNNING; done
for c in $chassis; do
	k=0
	until [ "$(present "$c")" = 4 ]; do
		k=$((k + 1))
		[ $k -lt 300 ] || { tail -n 5 "$t_tmp"/slurm-prolog-*.log >&2; t_fail "chassis $c: $(present "$c") GPUs on a bus, 4 expected"; }
		sleep 0.2
	done
done
sleep 2
for j in $jobs; do
	[ "$(s_job_state "$j")" = RUNNING ] && [ "$(jf "$j" Restarts)" = 0 ] ||
		t_fail "job $j: $(s_job_state "$j"), Restarts=$(jf "$j" Restarts)"
done
per=$(for j in $jobs; do jf "$j" Licenses; done | sort | uniq -c | awk '{print $2 "x" $1}' | tr '\n' ' ')
[ "$per" = "c1_gpu:2x2 c2_gpu:2x2 c3_gpu:2x2 c4_gpu:2x2 " ] || t_fail "licenses per job: $per"
t_ok "8 jobs x 2 GPUs running on 4 chassis, 4 GPUs each, no requeue ($per)"

j9=$(sbatch --parsable --gres=falcon_gpu:2 -o /dev/null --wrap 'sleep 1')
# its reason is None until slurmctld's scheduler first looks at it (3 s
# were not always enough with three lanes at once: "PENDING (None)")
j9_looked_at() { r9=$(squeue -h -j "$j9" -o %r 2>/dev/null); [ -n "$r9" ] && [ "$r9" != None ]; }
wait_for 30 "slurmctld's first look at job $j9" j9_looked_at || true
[ "$(s_job_state "$j9")" = PENDING ] && [ "$r9" = Licenses ] ||
	t_fail "job $j9: $(s_job_state "$j9") ($(squeue -h -j "$j9" -o %r))"
t_ok "a ninth job waits for licenses"

# shellcheck disable=SC2086
scancel $jobs "$j9"
for j in $jobs; do s_wait_done "$j"; done
for c in $chassis; do
	k=0
	until [ "$(present "$c")" = 0 ]; do
		k=$((k + 1)); [ $k -lt 300 ] || t_fail "chassis $c: devices left"; sleep 0.2
	done
done
t_ok "every chassis' pool back"
