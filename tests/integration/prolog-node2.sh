#!/bin/sh
# prolog-node2.sh - two jobs at once sharing one chassis from two Slurm
# nodes: the host (playing falcon-sim's node1, ports H1/H2) and "node2"
# (scripts/cluster.sh --node2: its own network and UTS namespace; the sim's
# node2 on H3), each with falcon-prolog/falcon-epilog; falcond listens on
# all addresses and node2's falcon.conf reaches it over the veth pair.
# Both jobs run with their own devices at the same time, and everything
# is back in the pool at the end.  Skips where namespaces cannot be made.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/slurm-lib.sh"
. "$top_srcdir/tests/integration/prolog-lib.sh"
s_need_slurm
fp_need
s_need_netns
s_need_spank
FP_HOST=$(hostname -s)
case $FP_HOST in node1|node2|node3) t_skip "host name $FP_HOST is a sim host" ;; esac
FP_LISTEN=0.0.0.0
fp_setup

# one Prolog= for both nodes: node2 gets its own falcon.conf (falcond over
# the veth pair, its own sysfs tree)
fp_node2_start --spank "$plugin" --spank-args "conf=$FALCON_CONF"
fp_node2_conf

present() {
	fd_sim c1 GET /admin/state | python3 -c 'import json,sys
print(" ".join(sorted("%s@%s" % (d["id"], d["host"]) for d in json.load(sys.stdin)["devices"] if d["present"])))'
}

# node2 first: drawer 1 through H3 (standard mode gives a drawer half to one
# port), then the host: drawer 2 through H2
j2=$(sbatch --parsable -w node2 --gres=falcon_gpu:2 -o "$t_tmp/out.%j" \
	--wrap 'echo "cvd=$CUDA_VISIBLE_DEVICES topo=$FALCON_TOPOLOGY"; sleep 300')
s_wait_state "$j2" RUNNING
j1=$(sbatch --parsable -w "$FP_HOST" --gres=falcon_gpu:2 -o "$t_tmp/out.%j" \
	--wrap 'echo "cvd=$CUDA_VISIBLE_DEVICES topo=$FALCON_TOPOLOGY"; sleep 300')
s_wait_state "$j1" RUNNING
k=0
until [ "$(present | wc -w)" = 4 ]; do
	k=$((k + 1))
	[ $k -lt 150 ] || { cat "$t_tmp"/slurm-prolog-*.log >&2; t_fail "4 devices expected on the buses: $(present)"; }
	sleep 0.2
done
both=$(present)
case $both in *@node1*@node2*|*@node2*@node1*) ;; *) t_fail "not on both hosts: $both" ;; esac
[ "$(squeue -h -t R -o %i | wc -l)" = 2 ] || t_fail "both jobs should run"
k=0
until grep -q 'topo=falconGPUs' "$t_tmp/out.$j2" 2>/dev/null && grep -q 'topo=falconGPUs' "$t_tmp/out.$j1" 2>/dev/null; do
	k=$((k + 1))
	[ $k -lt 150 ] || t_fail "task env: $(cat "$t_tmp/out.$j1" "$t_tmp/out.$j2")"
	sleep 0.2
done
t_ok "two jobs at once on two hosts of one chassis: $both"
scancel "$j1" "$j2"
s_wait_done "$j1"
s_wait_done "$j2"
k=0
until (fp_pool_clean) 2>/dev/null; do
	k=$((k + 1))
	[ $k -lt 150 ] || { cat "$t_tmp"/slurm-epilog-*.log >&2; fp_pool_clean; }
	sleep 0.2
done
t_ok "both gave their devices back"
