#!/bin/sh
# fleet-lib.sh - the fleet of slurm-fleet8.sh and `make bench-fleet`: 8
# Slurm nodes (scripts/cluster.sh --nodes 8: this host's node and
# node2..node8, each of those in its own network and UTS namespace) cabled
# to 4 chassis (4 falcon-sim, 2 nodes each: the sim's drawer 1 through H1
# and drawer 2 through H2), one partition over all of them, node features
# falcon_<chassis> and per-chassis licenses (job_submit_falcon(8), SEVERAL
# CHASSIS; FL_POOL=hres: HRES layers instead, Slurm 25.11+), falcond over the 4 chassis (asking slurmctld, as a site runs
# it), falcon-prolog as PrologSlurmctld
# and falcon-prolog/epilog on every node, each node with a falcon.conf of its own (its sim tree, its RunDir,
# falcond over its veth).  Source after slurm-lib.sh and prolog-lib.sh.
#
#   fl_start    start it all; sets nodes, chassis, FD_PORT, FALCON_CONF
#               (the prolog's log of node N: $t_tmp/slurm-prolog-N.log)
#
# (The body is not indented: it holds here-documents and inline Python.)
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.

fl_start() {
fd_start_munged
# each chassis: its H2 (drawer 2) cabled to a host of its own ("node2")
"$SIM" --dump-config | python3 -c 'import json,sys
c = json.load(sys.stdin)
for p in c["host_ports"]:
    p["host"] = {"H1": "node1", "H2": "node2", "H3": "node3", "H4": "node4"}[p["id"]]
json.dump(c, sys.stdout)' >"$t_tmp/sim.json"
nodes="$FP_HOST node2 node3 node4 node5 node6 node7 node8"
chassis="c1 c2 c3 c4"
for c in $chassis; do fd_start_sim "$c" "$t_tmp/sim.json"; done
FD_PORT=$(free_port)
mkdir -p "$t_tmp/state" && chmod 700 "$t_tmp/state"
FALCON_CONF=$t_tmp/falcon.conf
export FALCON_CONF
{
	cat <<EOC
StateDir=$t_tmp/state
RunDir=$t_tmp/run-$FP_HOST
SysfsRoot=$t_tmp/sim-c1/sysfs/node1
ListenAddress=0.0.0.0:$FD_PORT
MungeSocket=$MUNGE_SOCK
SlurmUser=root
PrologTimeout=60
RescanTimeout=10
ChassisRetries=2
NcclCheck=/nonexistent/falcon-ncclcheck
PartitionName=DEFAULT Place=pack Check=quick CheckAction=drain
EOC
	for c in $chassis; do
		eval "p=\$SIM_PORT_$c"
		echo "ChassisName=$c Url=http://127.0.0.1:$p/ Backend=redfish-fabric Mode=standard Timeout=10"
	done
	set -- $nodes
	for c in $chassis; do
		echo "HostName=$1 Chassis=$c Port=H1 Adapter=0000:3b:00.0"
		echo "HostName=$2 Chassis=$c Port=H2 Adapter=0000:af:00.0"
		shift 2
	done
} >"$FALCON_CONF"
fd_start_falcond

for p in prolog epilog; do
	cat >"$t_tmp/$p.sh" <<EOS
#!/bin/sh
c="$t_tmp/falcon-\$SLURMD_NODENAME.conf"
[ -f "\$c" ] || c="$FALCON_CONF"
exec "$top_builddir/prolog/falcon-$p" -c "\$c" -v 2>>"$t_tmp/slurm-$p-\$SLURMD_NODENAME.log"
EOS
	chmod 0755 "$t_tmp/$p.sh"
done
feats=""; lic=""
set -- $nodes
for c in $chassis; do
	feats="$feats $1=falcon_$c $2=falcon_$c"
	lic="${lic:+$lic,}${c}_gpu:4,${c}_nvme:1"
	shift 2
done
# PrologSlurmctld composes while the job is CONFIGURING, as the quickstart
# and examples/ set it up (a short pool waits there up to ComposeWait
# instead of requeueing from the node prolog)
fp_slurmctld_wrapper
# FL_POOL=hres: the pool as HRES (Slurm 25.11+), the resources.yaml
# `falconctl slurm-conf --pool hres` writes from falcond's counts, in place
# of the licenses and features
set -- --license "$lic" --features "$feats"
if [ "${FL_POOL:-licenses}" = hres ]; then
	# each GPU layer of the licenses' count above (4 a chassis, not the
	# sim's 8): the same pool either way
	s_hres_yaml "$t_tmp/resources.yaml"
	sed -i '/resource: falcon_pool_gpu/,/resource: falcon_pool_nvme/s/^      count: 8$/      count: 4/' \
		"$t_tmp/resources.yaml"
	[ "$(grep -c '^      count: 4$' "$t_tmp/resources.yaml")" = 4 ] ||
		t_fail "resources.yaml without falcond's counts: $(cat "$t_tmp/resources.yaml.out")"
	set -- --hres "$t_tmp/resources.yaml"
fi
t0=$(date +%s)
s_start --nodes 8 --prolog "$t_tmp/prolog.sh" --epilog "$t_tmp/epilog.sh" \
	--prolog-slurmctld "$t_tmp/prolog-slurmctld.sh" "$@" \
	--job-submit "$plugin_dir" --falcon-conf "$FALCON_CONF"
[ "$(sinfo -h -N -o '%N %t' | sort -u | grep -c ' idle$')" = 8 ] ||
	t_fail "8 idle nodes expected: $(sinfo -h -N -o '%N %t' | sort -u | tr '\n' ' ')"
t_ok "8 nodes idle in $(($(date +%s) - t0)) s, 4 chassis"
# falcond asking this cluster's slurmctld, as a site runs it (its reconcile
# and its re-pin of jobs pending on a full chassis need it)
fp_falcond_with_slurm

# each node its own falcon.conf: its sim tree, its RunDir, falcond over its veth
"$top_srcdir/scripts/cluster.sh" status "$s_state" >"$t_tmp/status"
set -- $nodes
i=0
for c in $chassis; do
	for n in $1 $2; do
		sim_host=node$((i % 2 + 1))
		i=$((i + 1))
		mkdir -p "$t_tmp/run-$n"
		if [ "$n" = "$FP_HOST" ]; then
			continue
		fi
		ns=$(sed -n "s/^slurmd $n running .*netns falcon-ns\([0-9]*\)).*/\1/p" "$t_tmp/status")
		[ -n "$ns" ] || t_fail "no namespace for $n: $(cat "$t_tmp/status")"
		sed -e "s|^SysfsRoot=.*|SysfsRoot=$t_tmp/sim-$c/sysfs/$sim_host|" \
			-e "s|^RunDir=.*|RunDir=$t_tmp/run-$n|" "$FALCON_CONF" >"$t_tmp/falcon-$n.conf"
		echo "FalcondUrl=http://10.77.$ns.1:$FD_PORT" >>"$t_tmp/falcon-$n.conf"
	done
	shift 2
done
}
