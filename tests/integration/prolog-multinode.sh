#!/bin/sh
# prolog-multinode.sh - one job on two nodes (node1 and node2 of falcon-sim,
# each with its own RunDir, as two slurmd would have): the epilog of one
# node, and a prolog that fails and rolls back on one node, give back only
# that node's lease; the other node's devices stay composed until its own
# epilog.  (Before the fix both closed every lease of the job.)
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/prolog-lib.sh"
fp_need
fp_setup
# node2's own RunDir (each node has its own /run)
sed "s|^RunDir=.*|RunDir=$t_tmp/run2|" "$FALCON_CONF" >"$t_tmp/falcon-node2.conf"
mkdir -p "$t_tmp/run2"

# leases_of JOB - "host:state" of the job's leases in the ledger, sorted
leases_of() {
	fd_ledger_copy "$t_tmp/ledger.now"
	python3 - "$t_tmp/ledger.now" "$1" <<'EOP'
import json, sys
led = json.load(open(sys.argv[1]))
print(" ".join(sorted("%s:%s" % (l["host"], l["state"]) for l in led["leases"]
                      if l["job_id"] == int(sys.argv[2]))))
EOP
}

# -- the epilog of node2 leaves node1's lease alone
fp_prolog 301 "gres/falcon_gpu:2" node2 FALCON_CONF="$t_tmp/falcon-node2.conf"
[ $FP_RC = 0 ] || t_fail "node2 prolog: rc $FP_RC: $(cat "$t_tmp/prolog-301.log")"
fp_prolog 301 "gres/falcon_gpu:2" node1
[ $FP_RC = 0 ] || t_fail "node1 prolog: rc $FP_RC: $(cat "$t_tmp/prolog-301.log")"
[ "$(leases_of 301)" = "node1:active node2:active" ] || t_fail "two leases expected: $(leases_of 301)"
fp_epilog 301 node2 FALCON_CONF="$t_tmp/falcon-node2.conf"
[ $FP_RC = 0 ] || t_fail "node2 epilog: rc $FP_RC: $(cat "$t_tmp/epilog-301.log")"
[ "$(leases_of 301)" = "node1:active" ] ||
	t_fail "node2's epilog closed node1's lease: $(leases_of 301): $(cat "$t_tmp/epilog-301.log")"
ls "$SYSFS/node1/bus/pci/devices/" | grep -qE '^0000:(3[d-f]|4[0-4]|b[1-8]):' ||
	t_fail "node1's devices left its bus"
fp_epilog 301 node1
[ $FP_RC = 0 ] || t_fail "node1 epilog: rc $FP_RC: $(cat "$t_tmp/epilog-301.log")"
fp_pool_clean
t_ok "epilog per node"

# -- a prolog that fails and rolls back on node2 (standard mode: node1's
# drawer half leaves node2 no GPU) leaves node1's lease alone too
fp_prolog 302 "gres/falcon_gpu:2" node1
[ $FP_RC = 0 ] || t_fail "node1 prolog: rc $FP_RC: $(cat "$t_tmp/prolog-302.log")"
fp_prolog 302 "gres/falcon_gpu:2" node2 FALCON_CONF="$t_tmp/falcon-node2.conf"
[ $FP_RC != 0 ] || t_fail "node2 prolog did not fail: $(cat "$t_tmp/prolog-302.log")"
[ "$(leases_of 302)" = "node1:active" ] ||
	t_fail "node2's rollback closed node1's lease: $(leases_of 302): $(cat "$t_tmp/prolog-302.log")"
fp_epilog 302 node1
[ $FP_RC = 0 ] || t_fail "node1 epilog: rc $FP_RC: $(cat "$t_tmp/epilog-302.log")"
fp_pool_clean
t_ok "rollback per node"
