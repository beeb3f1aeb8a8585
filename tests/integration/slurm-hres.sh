#!/bin/sh
# slurm-hres.sh - Slurm 25.11+ only (skips before): the resources.yaml that
# `falconctl slurm-conf` writes (HRES MODE_3: falcon_pool_gpu, a layer per
# chassis) makes slurmctld place jobs by chassis: two nodes, the host's on
# chassis c1, "node2" (its own namespaces) on c2, 4 GPUs each.  With c1
# full a job of the partition starts on node2; a two-node job waits while
# c1 is full and then runs, each node counted on its own chassis.  With
# job_submit_falcon built, it is the plugin that adds falcon_pool_gpu:N;
# without, the test asks for it itself.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/slurm-lib.sh"
. "$top_srcdir/tests/integration/prolog-lib.sh"
s_need_slurm
# the installed Slurm (slurmctld -V needs no slurm.conf; sinfo does from 26.05)
ver=$(slurmctld -V 2>/dev/null | sed -n 's/^slurm[^0-9]*\([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
set -- $ver
[ -n "${1:-}" ] && { [ "$1" -gt 25 ] || { [ "$1" = 25 ] && [ "$2" -ge 11 ]; }; } ||
	t_skip "Slurm $(slurmctld -V 2>&1): HRES MODE_3 needs 25.11 or later"
s_need_netns
host=$(hostname -s)
plugin_dir=$top_builddir/plugin/.libs
FALCON_CONF=$t_tmp/falcon.conf
export FALCON_CONF
cat >"$FALCON_CONF" <<EOC
StateDir=$t_tmp/state
ChassisName=c1 Url=http://127.0.0.1:1/
ChassisName=c2 Url=http://127.0.0.1:2/
HostName=$host Chassis=c1 Port=H1 Adapter=0000:3b:00.0
HostName=node2 Chassis=c2 Port=H1 Adapter=0000:3b:00.0
EOC
"$top_builddir/falconctl/falconctl" slurm-conf --pool hres --no-falcond >"$t_tmp/slurm-conf.out" ||
	t_fail "falconctl slurm-conf: $(cat "$t_tmp/slurm-conf.out")"
# its resources.yaml, the counts filled: 4 GPUs and 1 NVMe per chassis
python3 - "$t_tmp/slurm-conf.out" >"$t_tmp/resources.yaml" <<'EOP' || t_fail "no resources.yaml in: $(cat "$t_tmp/slurm-conf.out")"
import sys
lines = open(sys.argv[1]).read().split("\n")
i = [k for k, l in enumerate(lines) if l.startswith("# --- resources.yaml")][0]
res = None
for l in lines[i:]:
    if l.startswith("# COUNT"):
        break
    if l.startswith("- resource: "):
        res = l.split()[-1]
    print(l.replace("COUNT", "4" if res == "falcon_pool_gpu" else "1"))
EOP
js=""
[ -f "$plugin_dir/job_submit_falcon.so" ] && js="--job-submit $plugin_dir --falcon-conf $FALCON_CONF"
# shellcheck disable=SC2086
s_start --node2 node2 --hres "$t_tmp/resources.yaml" $js
scontrol show lic >"$t_tmp/lic" 2>&1
grep -q "LicenseName=falcon_pool_gpu" "$t_tmp/lic" || { s_logs; t_fail "no HRES in slurmctld: $(cat "$t_tmp/lic")"; }
t_ok "slurmctld loaded the resources.yaml falconctl slurm-conf wrote"

L() { [ -n "$js" ] || echo "-L falcon_pool_gpu:$1"; }
jf() { scontrol show job -o "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# shellcheck disable=SC2046
ja=$(sbatch --parsable -w "$host" --gres=falcon_gpu:4 $(L 4) -o /dev/null --wrap 'sleep 300')
s_wait_state "$ja" RUNNING
case $(jf "$ja" Licenses) in *falcon_pool_gpu:4*) ;; *) t_fail "job $ja licenses: $(jf "$ja" Licenses)" ;; esac
# shellcheck disable=SC2046
jb=$(sbatch --parsable --gres=falcon_gpu:2 $(L 2) -o /dev/null --wrap 'sleep 300')
s_wait_state "$jb" RUNNING
[ "$(jf "$jb" NodeList)" = node2 ] || t_fail "job $jb on $(jf "$jb" NodeList), c1 is full"
t_ok "c1 full: job $jb runs on node2 (licenses $(jf "$jb" Licenses))"
# shellcheck disable=SC2046
jc=$(sbatch --parsable -N 2 --gres=falcon_gpu:1 $(L 1) -o /dev/null --wrap 'sleep 1')
sleep 4
[ "$(s_job_state "$jc")" = PENDING ] || t_fail "job $jc: $(s_job_state "$jc") while c1 is full"
t_ok "job $jc (-N 2) waits while c1 is full ($(squeue -h -j "$jc" -o %r))"
scancel "$ja"
s_wait_done "$ja"
wait_for 60 "job $jc to complete" s_in_state "$jc" COMPLETED FAILED CANCELLED ||
	{ s_logs; t_fail "job $jc: $s_st"; }
[ "$s_st" = COMPLETED ] || t_fail "job $jc: $s_st"
t_ok "job $jc ran on both nodes once c1 freed"
scancel "$jb"
