#!/bin/sh
# tests/integration/slurm-node2.sh - two Slurm nodes on one machine: the
# second slurmd ("node2") runs in its own network namespace (ip netns, a
# veth pair) and UTS namespace (hostname node2), sharing the controller,
# slurmdbd and munged.  Jobs land on node2 and across both nodes, and a
# stop leaves no namespace behind.  Skips where namespaces cannot be made.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/slurm-lib.sh"
s_need_slurm
s_need_netns
plugin=$top_builddir/plugin/.libs/spank_falcon.so
spank=""
[ -f "$plugin" ] && spank="--spank $plugin"

# shellcheck disable=SC2086
s_start --node2 node2 $spank
ns=$("$top_srcdir/scripts/cluster.sh" status "$s_state" | sed -n 's/.*netns \(falcon-ns[0-9]*\)).*/\1/p')
[ -n "$ns" ] || t_fail "status names no namespace for node2"
# (sort -u: slurm.conf.in lists the nodes in two partitions, debug and small)
[ "$(sinfo -h -N -o '%N %t' | sort -u | tr '\n' ' ')" = "node2 idle $(hostname -s) idle " ] ||
	t_fail "nodes not both idle: $(sinfo -h -N -o '%N %t' | tr '\n' ' ')"
t_ok "two nodes idle; node2 in $ns"

jid=$(sbatch --parsable -w node2 --gres=falcon_gpu:2 -o "$t_tmp/out.%j" \
	--wrap 'echo "host=$(hostname)"; ip -o -4 addr show | grep -c 10.77.; echo "order=${CUDA_DEVICE_ORDER:-}"')
s_wait_done "$jid"
[ "$(s_job_state "$jid")" = COMPLETED ] || { s_logs; t_fail "job $jid on node2: $(s_job_state "$jid")"; }
grep -qx "host=node2" "$t_tmp/out.$jid" || t_fail "job did not run with hostname node2: $(cat "$t_tmp/out.$jid")"
grep -qx 1 "$t_tmp/out.$jid" || t_fail "job on node2 does not see its veth address"
if [ -n "$spank" ]; then
	grep -qx "order=PCI_BUS_ID" "$t_tmp/out.$jid" || t_fail "spank_falcon did not act on node2"
fi
t_ok "batch job on node2: $(tr '\n' ' ' <"$t_tmp/out.$jid")"

out=$(srun -N2 hostname 2>&1 | sort | tr '\n' ' ') || t_fail "srun -N2: $out"
[ "$out" = "node2 $(hostname -s) " ] || t_fail "srun -N2 ran on: $out"
t_ok "srun -N2 spans both nodes: $out"

"$top_srcdir/scripts/cluster.sh" stop "$s_state" >/dev/null 2>&1 || t_fail "stop failed"
if ip netns list | grep -q "^$ns\b"; then
	t_fail "namespace $ns left after stop"
fi
t_ok "stop removed $ns"
