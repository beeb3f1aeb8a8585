#!/bin/sh
# fleet-lib.sh - the fleet of slurm-fleet8.sh, `make bench-fleet` and `make
# soak-fleet`: FL_NODES Slurm nodes (default 8; scripts/cluster.sh --nodes
# N: this host's node and node2..nodeN, each of those in its own network
# and UTS namespace) cabled to FL_CHASSIS chassis (default 4 falcon-sim),
# FL_NODES / FL_CHASSIS hosts each, every node on one host port:
#   - 1 or 2 hosts a chassis (the default: 2): the sim's drawer 1 through
#     H1 and drawer 2 through H2, each host owning its drawer (4 GPUs, the
#     second host also the NVMe), licenses of 4 GPUs and 1 NVMe a chassis;
#   - 3 or 4 hosts a chassis (a row cabled as a site cables a Falcon 4016
#     of 4 host ports): H1 and H3 share drawer 1 (8 GPUs), H2 and H4
#     drawer 2 (7 GPUs and the NVMe), Mode=advanced, each node's Gres= its
#     share (falcon_gpu:4; H4's node falcon_gpu:3 and the NVMe), so that
#     Slurm never gives two nodes more than their drawer holds, and the
#     licenses the chassis' count (15 GPUs, 1 NVMe).  Standard mode is not
#     used there: its halves (slots 1-4 / 5-8, one host each) go to the
#     host that attaches first, and a host whose earlier devices sit in
#     one half may take the other's too, which no node Gres= can express;
#   - FL_LOCAL_GPUS=N (default 0): the node on each chassis' H1 (the sim's
#     node1, whose tree has the paper's 8 local V100 SXM2) also has a
#     "gpu" GRES of N (cluster.sh --gpus and --gres), for hybridGPUs and
#     localGPUs jobs;
# one partition over all of them, node features falcon_<chassis> and
# per-chassis licenses (job_submit_falcon(8), SEVERAL CHASSIS; FL_POOL=hres:
# HRES layers instead, Slurm 25.11+, 2 hosts a chassis only), falcond over
# the chassis (asking slurmctld, as a site runs it), falcon-prolog as
# PrologSlurmctld and falcon-prolog/epilog on every node, each node with a
# falcon.conf of its own (its sim tree, its RunDir, falcond over its veth).
# FL_CONF: more falcon.conf lines.  FL_STANDBY=1: a second falcond on the
# same StateDir standing by (falcond(8) HIGH AVAILABILITY; its falcon.conf
# $t_tmp/falcon-b.conf, listening on FD_PORT_B, log falcond-b.log, pid
# file falcond-b.pid), FalcondUrl= naming both.  Source after
# slurm-lib.sh and prolog-lib.sh.
#
#   fl_start [s_start options...]
#               start it all; sets nodes, chassis, FD_PORT, FALCON_CONF,
#               fl_cabling ($t_tmp/cabling: one line "NODE CHASSIS PORT
#               SIM_HOST" per node); the prolog's log of node N:
#               $t_tmp/slurm-prolog-N.log
#   fl_falcond a|b
#               (FL_STANDBY=1) that falcond started again, asking Slurm,
#               not waited for: the other one active, it stands by
#
# (The body is not indented: it holds here-documents and inline Python.)
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.

fl_start() {
FL_NODES=${FL_NODES:-8} FL_CHASSIS=${FL_CHASSIS:-4}
# falcond's log lines timed (--log-time): the fleet's logs are files, and
# a takeover or a start-up pass is read from them
FD_LOG_TIME=1
fl_per=$((FL_NODES / FL_CHASSIS))
[ $((fl_per * FL_CHASSIS)) = "$FL_NODES" ] && [ $fl_per -ge 1 ] && [ $fl_per -le 4 ] ||
	t_fail "FL_NODES=$FL_NODES FL_CHASSIS=$FL_CHASSIS: 1 to 4 nodes a chassis (its host ports H1-H4), the same on each"
fd_start_munged
# the sim's host ports renamed to hosts of their own (node1..node4); with
# 3 or 4 hosts a chassis, every slot of both drawers filled (drawer 2's
# slot 5 stays the NVMe) and the chassis in advanced mode
"$SIM" --dump-config | python3 -c 'import copy,json,sys
c = json.load(sys.stdin)
for p in c["host_ports"]:
    p["host"] = {"H1": "node1", "H2": "node2", "H3": "node3", "H4": "node4"}[p["id"]]
if int(sys.argv[1]) > 2:
    c["mode"] = "advanced"
    for d in c["drawers"]:
        gpu = [s for s in d["slots"] if s["type"] == "GPU"][0]
        have = {s["slot"] for s in d["slots"]}
        for k in range(1, 9):
            if k not in have:
                s = copy.deepcopy(gpu)
                s["slot"] = k
                s["serial"] = "03231180%02d%03d" % (d["id"], k)
                d["slots"].append(s)
        d["slots"].sort(key=lambda s: s["slot"])
json.dump(c, sys.stdout)' $fl_per >"$t_tmp/sim.json"
nodes="$FP_HOST"
k=2
while [ $k -le "$FL_NODES" ]; do nodes="$nodes node$k"; k=$((k + 1)); done
chassis=$(seq -f 'c%g' 1 "$FL_CHASSIS" | tr '\n' ' ')
for c in $chassis; do fd_start_sim "$c" "$t_tmp/sim.json"; done
FD_PORT=$(free_port)
FD_PORT_B=
[ "${FL_STANDBY:-0}" = 0 ] || FD_PORT_B=$(free_port)
mkdir -p "$t_tmp/state" && chmod 700 "$t_tmp/state"
FALCON_CONF=$t_tmp/falcon.conf
export FALCON_CONF
mode=standard; [ $fl_per -le 2 ] || mode=advanced
fl_cabling=$t_tmp/cabling
: >"$fl_cabling"
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
		echo "ChassisName=$c Url=http://127.0.0.1:$p/ Backend=redfish-fabric Mode=$mode Timeout=10"
	done
	k=0
	for n in $nodes; do
		c=c$((k / fl_per + 1)) p=H$((k % fl_per + 1))
		a=0000:3b:00.0; [ $p != H2 ] || a=0000:af:00.0
		echo "HostName=$n Chassis=$c Port=$p Adapter=$a"
		echo "$n $c $p node${p#H}" >>"$fl_cabling"
		k=$((k + 1))
	done
	[ -z "${FL_CONF:-}" ] || printf '%s\n' "$FL_CONF"
	[ -z "$FD_PORT_B" ] || echo "FalcondUrl=http://127.0.0.1:$FD_PORT,http://127.0.0.1:$FD_PORT_B"
} >"$FALCON_CONF"
[ -z "$FD_PORT_B" ] ||
	sed "s/^ListenAddress=.*/ListenAddress=0.0.0.0:$FD_PORT_B/" "$FALCON_CONF" >"$t_tmp/falcon-b.conf"
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
# features, licenses, and (3 or 4 hosts a chassis) each node's Gres=
# (and its gres.conf CountOnly lines, as falconctl slurm-conf writes them)
feats=""; lic=""; gres=""
: >"$t_tmp/gres.conf"
while read -r n c p h; do
	feats="$feats $n=falcon_$c"
	g=
	if [ $fl_per -gt 2 ]; then
		case $p in
		H4) g=falcon_gpu:3,falcon_nvme:1
		    echo "NodeName=$n Name=falcon_nvme Count=1 Flags=CountOnly" >>"$t_tmp/gres.conf" ;;
		*) g=falcon_gpu:4 ;;
		esac
		echo "NodeName=$n Name=falcon_gpu Count=${g#falcon_gpu:} Flags=CountOnly" |
			sed 's/,falcon_nvme:1//' >>"$t_tmp/gres.conf"
	fi
	if [ "${FL_LOCAL_GPUS:-0}" != 0 ] && [ $p = H1 ]; then
		g=gpu:$FL_LOCAL_GPUS,${g:-falcon_gpu:16,falcon_nvme:2}
	fi
	[ -z "$g" ] || gres="$gres $n=$g"
done <"$fl_cabling"
for c in $chassis; do
	if [ $fl_per -le 2 ]; then
		lic="${lic:+$lic,}${c}_gpu:4,${c}_nvme:1"
	else
		lic="${lic:+$lic,}${c}_gpu:15,${c}_nvme:1"
	fi
done
# PrologSlurmctld composes while the job is CONFIGURING, as the quickstart
# and examples/ set it up (a short pool waits there up to ComposeWait
# instead of requeueing from the node prolog)
fp_slurmctld_wrapper
# FL_POOL=hres: the pool as HRES (Slurm 25.11+), the resources.yaml
# `falconctl slurm-conf --pool hres` writes from falcond's counts, in place
# of the licenses and features
fl_opts="--license $lic"
set -- "$@" --features "$feats"
[ -z "$gres" ] || set -- "$@" --gres "$gres"
[ ! -s "$t_tmp/gres.conf" ] || set -- "$@" --gres-conf "$t_tmp/gres.conf"
[ "${FL_LOCAL_GPUS:-0}" = 0 ] || set -- "$@" --gpus "$FL_LOCAL_GPUS"
if [ "${FL_POOL:-licenses}" = hres ]; then
	# each GPU layer of the licenses' count above (4 a chassis, not the
	# sim's 8): the same pool either way
	s_hres_yaml "$t_tmp/resources.yaml"
	sed -i '/resource: falcon_pool_gpu/,/resource: falcon_pool_nvme/s/^      count: 8$/      count: 4/' \
		"$t_tmp/resources.yaml"
	[ "$(grep -c '^      count: 4$' "$t_tmp/resources.yaml")" = 4 ] ||
		t_fail "resources.yaml without falcond's counts: $(cat "$t_tmp/resources.yaml.out")"
	fl_opts="--hres $t_tmp/resources.yaml"
	set -- "$@" --features ""
fi
t0=$(date +%s)
# shellcheck disable=SC2086 # fl_opts: an option and its value
s_start --nodes "$FL_NODES" --prolog "$t_tmp/prolog.sh" --epilog "$t_tmp/epilog.sh" \
	--prolog-slurmctld "$t_tmp/prolog-slurmctld.sh" \
	--epilog-slurmctld "$t_tmp/epilog-slurmctld.sh" $fl_opts "$@" \
	--job-submit "$plugin_dir" --falcon-conf "$FALCON_CONF"
[ "$(sinfo -h -N -o '%N %t' | sort -u | grep -c ' idle$')" = "$FL_NODES" ] ||
	t_fail "$FL_NODES idle nodes expected: $(sinfo -h -N -o '%N %t' | sort -u | tr '\n' ' ')"
t_ok "$FL_NODES nodes idle in $(($(date +%s) - t0)) s, $FL_CHASSIS chassis"
# falcond asking this cluster's slurmctld, as a site runs it (its reconcile
# and its re-pin of jobs pending on a full chassis need it)
fp_falcond_with_slurm
grep -Eq '^\[[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}\] falcond: active: ' \
	"$t_tmp/falcond.log" || t_fail "falcond --log-time: $(head -n 2 "$t_tmp/falcond.log")"
if [ -n "$FD_PORT_B" ]; then
	t_on_exit "kill \$(cat '$t_tmp/falcond-b.pid' 2>/dev/null) 2>/dev/null || true"
	fl_falcond b
	wait_for 30 "the second falcond to stand by" sh -c \
		"curl -s 'http://127.0.0.1:$FD_PORT_B/v1/health' | grep -q '\"standby\":true'" ||
		t_fail "falcond b does not stand by: $(tail -n 3 "$t_tmp/falcond-b.log")"
fi

# each node its own falcon.conf: its sim tree, its RunDir, falcond over its
# veth (both, with a standby)
"$top_srcdir/scripts/cluster.sh" status "$s_state" >"$t_tmp/status"
while read -r n c p h; do
	mkdir -p "$t_tmp/run-$n"
	[ "$n" != "$FP_HOST" ] || continue
	ns=$(sed -n "s/^slurmd $n running .*netns falcon-ns\([0-9]*\)).*/\1/p" "$t_tmp/status")
	[ -n "$ns" ] || t_fail "no namespace for $n: $(cat "$t_tmp/status")"
	sed -e "s|^SysfsRoot=.*|SysfsRoot=$t_tmp/sim-$c/sysfs/$h|" \
		-e "s|^RunDir=.*|RunDir=$t_tmp/run-$n|" -e '/^FalcondUrl=/d' "$FALCON_CONF" \
		>"$t_tmp/falcon-$n.conf"
	echo "FalcondUrl=http://10.77.$ns.1:$FD_PORT${FD_PORT_B:+,http://10.77.$ns.1:$FD_PORT_B}" \
		>>"$t_tmp/falcon-$n.conf"
done <"$fl_cabling"
}

# fl_falcond a|b - falcond a (falcon.conf, falcond.log, falcond.pid) or b
# (falcon-b.conf, falcond-b.log, falcond-b.pid) started, asking Slurm;
# not waited for.
fl_falcond() {
	if [ "$1" = a ]; then
		set -- "$FALCON_CONF" falcond
	else
		set -- "$t_tmp/falcon-b.conf" falcond-b
	fi
	"$FALCOND" -f "$1" ${FD_LOG_TIME:+--log-time} 2>>"$t_tmp/$2.log" &
	echo $! >"$t_tmp/$2.pid"
}
