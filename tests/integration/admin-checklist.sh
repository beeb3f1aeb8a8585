#!/bin/sh
# admin-checklist.sh - doc/ADMIN.md's "The checklist" (issue 42), followed
# literally on the 8-node test cluster: the test runs the commands that
# ADMIN.md itself holds, not copies of them.  Each block it runs is marked
# in ADMIN.md by an HTML comment on the line before its fence,
# "<!-- checklist-test: NAME -->" (invisible once rendered); a marker that
# is missing, or not followed by a fenced block, fails the test naming it.
# ADMIN_MD=FILE runs another copy of the document (to see the test fail on
# a broken command).
#
# The cluster: the checklist's own, one controller (this host: falcond,
# slurmctld, PrologSlurmctld) and 8 nodes (scripts/cluster.sh --nodes 8:
# this host's node and node2..node8, each of those in its own network and
# UTS namespace), cabled to 2 chassis of 4 host ports each (2 falcon-sim,
# H1..H4 each cabled to a host of its own, every host adapter at
# 0000:3b:00.0 as falcon.conf says, each host with 8 local GPUs),
# falcon-prolog/epilog on every node, PrologSlurmctld, spank_falcon,
# job_submit_falcon, falcond asking slurmctld.
#
# How it maps to ADMIN.md's steps:
#   1-3  (Slurm, packages, install per role): the build tree and
#        scripts/cluster.sh stand in for them; nothing of them runs here.
#   4    marker "falcon.conf": the block is the cluster's falcon.conf, the
#        same file for every host, with only these substitutions:
#        - ListenAddress= -> 0.0.0.0:PORT: falcond on this host on a free
#          port; the test's helpers ask it on 127.0.0.1, the nodes on
#          their veth's far end;
#        - FalcondUrl= -> http://127.0.0.1:PORT while the cluster is not
#          up (step 6's slurm-conf runs on ctl), then
#          http://10.77.N.1:PORT, the address of this host that every
#          node's namespace routes to (cluster.sh), before falcond is
#          started again asking slurmctld;
#        - SlurmUser=slurm -> root: cluster.sh runs slurmctld as root;
#        - StateDir= -> the test's scratch directory;
#        - ChassisName= Url= -> the two falcon-sim's http://127.0.0.1:PORT/,
#          and CAFile=/CredentialsFile= dropped: the sims serve plain HTTP
#          with no accounts;
#        - HostName=n1 -> this host's short name, n2..n8 -> node2..node8:
#          cluster.sh names its nodes so (slurmctld and slurmdbd run under
#          this host's own name); the same names in step 8's loop;
#        - added, for a test host: MungeSocket= (the test's munged),
#          RunDir= and SysfsRoot=DIR/%h (falcon-sim's host trees, one per
#          node name) in the scratch directory (one RunDir for the 8 nodes,
#          which share this host's file system: spank_falcon's one conf=
#          finds each job's topology.json there), NcclCheck= a path that does
#          not exist (no GPU here: the check says skipped, as step 8
#          allows).
#        Every other line (HostName= Chassis/Port/Adapter, PartitionName=
#        with Place=pack, Check=quick, CheckAction=drain) stays as written.
#        Every host reads it through FALCON_CONF, not /etc/falcon.
#   5    falcond started as the falcond tests start it (no systemd); the
#        first check-box: `falconctl status` begins "ACTIVE http://" and
#        shows every device free.
#   6    marker "slurm-conf-sample": `falconctl slurm-conf` on that
#        falcon.conf must print lines of the sample's shape (names and
#        order; the counts are the sims'), and they go into the cluster:
#        Licenses= (cluster.sh --license), each node's Gres= and Features=
#        (--gres, --features), the gres.conf CountOnly lines
#        (--gres-conf), JobSubmitPlugins=falcon (--job-submit), GresTypes
#        (cluster.sh's slurm.conf must name each); and step 6's slurm.conf
#        list: Prolog=/Epilog=/PrologSlurmctld= falcon-prolog,
#        PrologEpilogTimeout=BatchStartTimeout=320, partition gpu,
#        spank_falcon in plugstack.conf; its last check-box, once
#        slurmctld runs: `falconctl status | tail -n 3` ends "slurm.conf
#        agrees with falcon.conf".
#   7    marker "step7": the block, on each node, inside the node's
#        namespaces (this host's node: here); each says "falcond
#        reachable", and `falconctl topo` shows the node's 8 own GPUs
#        (L) and no warning.
#   8    marker "step8": the block as user nobody (runuser), in a directory
#        of its own; then step 8's check-boxes: every job COMPLETED with
#        AdminComment falcon:topo=falconGPUs,f=1,check=..., each output
#        file "<node> falconGPUs GPU-..." and the topology.json with a
#        chassis GPU "location": "falcon" (the block's sacct line, run
#        again once they ended, shows the 8 COMPLETED with their tag), and
#        `falconctl status` shows every device free.
#   9-10 advice: nothing to run.
# Skips (77) when not root, or Slurm, the namespaces, job_submit_falcon.so
# or spank_falcon.so are missing.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/slurm-lib.sh"
. "$top_srcdir/tests/integration/prolog-lib.sh"
fp_slurm_node
s_need_job_submit
s_need_netns
s_need_spank
id nobody >/dev/null 2>&1 || t_skip "no user nobody"
case $FP_HOST in n[1-8]|node[1-8]) t_skip "host name $FP_HOST is one of the cluster's node names" ;; esac

ADMIN_MD=${ADMIN_MD:-$top_srcdir/doc/ADMIN.md}
[ -f "$ADMIN_MD" ] || t_fail "$ADMIN_MD not found"

# doc_block NAME - the fenced block right after the line
# "<!-- checklist-test: NAME -->" of ADMIN_MD, into $t_tmp/doc-NAME.
doc_block() {
	awk -v m="<!-- checklist-test: $1 -->" '
		inb && /^[ \t]*```/ { done = 1; exit }
		inb { print; next }
		want && /^[ \t]*```/ { inb = 1; next }
		want { exit }
		$0 == m { want = 1 }
		END { exit !done }' "$ADMIN_MD" >"$t_tmp/doc-$1" && return 0
	grep -qxF "<!-- checklist-test: $1 -->" "$ADMIN_MD" ||
		t_fail "$ADMIN_MD: no marker <!-- checklist-test: $1 --> (the block this test runs)"
	t_fail "$ADMIN_MD: no fenced block right after the marker <!-- checklist-test: $1 -->"
}
for b in falcon.conf slurm-conf-sample step7 step8; do doc_block "$b"; done
t_ok "ADMIN.md's marked blocks: falcon.conf ($(wc -l <"$t_tmp/doc-falcon.conf") lines), slurm-conf-sample, step7, step8"

# the cluster's node names for the checklist's n1..n8 (one sed program,
# applied to falcon.conf and to step 8's loop)
names="s/\\bn1\\b/$FP_HOST/g; s/\\bn\\([2-8]\\)\\b/node\\1/g"
nodes="$FP_HOST node2 node3 node4 node5 node6 node7 node8"
PATH=$top_builddir/falconctl:$PATH
export PATH

# -- the chassis: 2 falcon-sim in advanced mode (falcon.conf's Mode=),
# H1..H4 each cabled to a node of its own, every adapter at 0000:3b:00.0
# (falcon.conf's Adapter=), each node with the sim's 8 local GPUs
fd_start_munged
set -- $nodes
for c in c1 c2; do
	"$SIM" --dump-config | python3 -c 'import json, sys
c = json.load(sys.stdin)
hosts = sys.argv[1:5]
local = c["hosts"][0]["local_devices"]
for p, h in zip(c["host_ports"], hosts):
    p["host"] = h
    p["adapter"] = "0000:3b:00.0"
    p["bus_range"] = ["0x3c", "0x44"]
c["hosts"] = [{"name": h, "local_devices": local} for h in hosts]
c["mode"] = "advanced"
json.dump(c, sys.stdout)' "$1" "$2" "$3" "$4" >"$t_tmp/sim-$c.json" ||
		t_fail "falcon-sim's configuration for $c"
	fd_start_sim "$c" "$t_tmp/sim-$c.json"
	mkdir -p "$t_tmp/sysfs"
	for h in $1 $2 $3 $4; do ln -s "$t_tmp/sim-$c/sysfs/$h" "$t_tmp/sysfs/$h"; done
	shift 4
done

# -- step 4: falcon.conf, from ADMIN.md's block
FD_PORT=$(free_port)
mkdir -p "$t_tmp/state" "$t_tmp/run" && chmod 700 "$t_tmp/state"
FALCON_CONF=$t_tmp/falcon.conf
export FALCON_CONF
sed -e "s|^ListenAddress=.*|ListenAddress=0.0.0.0:$FD_PORT|" \
	-e "s|^FalcondUrl=.*|FalcondUrl=http://127.0.0.1:$FD_PORT|" \
	-e "s|^SlurmUser=slurm\$|SlurmUser=root|" \
	-e "s|^StateDir=.*|StateDir=$t_tmp/state|" \
	-e "s|^\\(ChassisName=c1 .*\\)Url=[^ ]*|\\1Url=http://127.0.0.1:$SIM_PORT_c1/|" \
	-e "s|^\\(ChassisName=c2 .*\\)Url=[^ ]*|\\1Url=http://127.0.0.1:$SIM_PORT_c2/|" \
	-e "s| *CAFile=[^ ]*||; s| *CredentialsFile=[^ ]*||" \
	-e "/^HostName=/{$names;}" \
	"$t_tmp/doc-falcon.conf" >"$FALCON_CONF"
cat >>"$FALCON_CONF" <<EOC
# admin-checklist.sh: a test host's
MungeSocket=$MUNGE_SOCK
RunDir=$t_tmp/run
SysfsRoot=$t_tmp/sysfs/%h
NcclCheck=/nonexistent/falcon-ncclcheck
EOC
# what the substitutions must have left: the block's other lines as written
for k in ListenAddress FalcondUrl StateDir; do
	grep -q "^$k=.*$t_tmp\|^$k=.*:$FD_PORT" "$FALCON_CONF" ||
		t_fail "step 4: ADMIN.md's falcon.conf has no $k= line to set: $(cat "$FALCON_CONF")"
done
[ "$(grep -c '^ChassisName=c[12] .*Url=http://127.0.0.1:' "$FALCON_CONF")" = 2 ] ||
	t_fail "step 4: ADMIN.md's falcon.conf has not chassis c1 and c2 with Url=: $(grep Chassis "$FALCON_CONF")"
fd_start_falcond
falconctl status >"$t_tmp/status-start.out" 2>&1 || t_fail "step 5: falconctl status: $(cat "$t_tmp/status-start.out")"
case $(head -n 1 "$t_tmp/status-start.out") in
"ACTIVE http://"*) ;;
*) t_fail "step 5: falconctl status does not begin with 'ACTIVE http://...': $(cat "$t_tmp/status-start.out")" ;;
esac
falconctl status --json | python3 -c 'import json, sys
d = json.load(sys.stdin)["devices"]
sys.exit(0 if len(d) == 18 and all(x.get("state") == "free" for x in d) else 1)' ||
	t_fail "step 5: falconctl status does not list the 2 x 9 devices free: $(cat "$t_tmp/status-start.out")"
t_ok "step 4-5: falcond up on ADMIN.md's falcon.conf, 2 chassis, $(grep -c '^HostName=' "$FALCON_CONF") hosts; $(head -n 1 "$t_tmp/status-start.out" | cut -d' ' -f1-2), 18 devices free"

# -- step 6: falconctl slurm-conf, against the sample's shape
falconctl slurm-conf >"$t_tmp/slurm-conf.out" 2>"$t_tmp/slurm-conf.err" ||
	t_fail "step 6: falconctl slurm-conf: $(cat "$t_tmp/slurm-conf.err")"
# shape: the node names as the cluster's, counts as N, falcon.conf's path
# and the Slurm release as words
shape() {
	sed -e "$names" -e 's/:[0-9][0-9]*/:N/g; s/Count=[0-9][0-9]*/Count=N/g' \
		-e 's/ of [^ ]*, for Slurm [0-9][0-9.]*/ of FILE, for Slurm R/' "$@"
}
sed '/^\$ /d' "$t_tmp/doc-slurm-conf-sample" | shape >"$t_tmp/sample.shape"
shape "$t_tmp/slurm-conf.out" >"$t_tmp/out.shape"
# the output is the sample line for line, where the sample's "..." stands
# for any number of lines
python3 - "$t_tmp/sample.shape" "$t_tmp/out.shape" <<'EOP' ||
import sys
want = open(sys.argv[1]).read().splitlines()
got = open(sys.argv[2]).read().splitlines()
memo = {}
def match(i, j):
    if (i, j) not in memo:
        if i == len(want):
            memo[i, j] = j == len(got)
        elif want[i] == "...":
            memo[i, j] = any(match(i + 1, k) for k in range(j, len(got) + 1))
        else:
            memo[i, j] = j < len(got) and got[j] == want[i] and match(i + 1, j + 1)
    return memo[i, j]
sys.exit(0 if match(0, 0) else 1)
EOP
	t_fail "step 6: falconctl slurm-conf's lines do not have the shape of ADMIN.md's sample (slurm-conf-sample): $(tr '\n' '|' <"$t_tmp/sample.shape"); it printed: $(tr '\n' '|' <"$t_tmp/slurm-conf.out")"
# every node of falcon.conf has its NodeName= line in both parts
for n in $nodes; do
	[ "$(grep -c "^NodeName=$n " "$t_tmp/slurm-conf.out")" -ge 2 ] ||
		t_fail "step 6: no NodeName=$n lines: $(cat "$t_tmp/slurm-conf.out")"
done
lic=$(sed -n 's/^Licenses=//p' "$t_tmp/slurm-conf.out")
gres=$(sed -n '/^# --- slurm.conf/,/^# --- /s/^NodeName=\([^ ]*\) Gres=\([^ ]*\).*/\1=\2/p' "$t_tmp/slurm-conf.out" | tr '\n' ' ')
feats=$(sed -n '/^# --- slurm.conf/,/^# --- /s/^NodeName=\([^ ]*\) .*Features=\([^ ]*\).*/\1=\2/p' "$t_tmp/slurm-conf.out" | tr '\n' ' ')
sed -n '/^# --- gres.conf/,/^# --- /{/^NodeName=/p;}' "$t_tmp/slurm-conf.out" >"$t_tmp/gres.conf"
grep -qx 'JobSubmitPlugins=falcon' "$t_tmp/slurm-conf.out" || t_fail "step 6: no JobSubmitPlugins=falcon"
t_ok "step 6: falconctl slurm-conf has the sample's shape: $(grep '^Licenses=' "$t_tmp/slurm-conf.out")"

# slurm.conf and gres.conf with those lines, and step 6's list
fp_slurmctld_wrapper
fp_slurm_start --nodes 8 --prolog-slurmctld "$t_tmp/prolog-slurmctld.sh" --prolog-timeout 320 \
	--license "$lic" --gres "$gres" --features "$feats" --gres-conf "$t_tmp/gres.conf" \
	--job-submit "$plugin_dir" --falcon-conf "$FALCON_CONF" --partition gpu \
	--spank "$plugin" --spank-args "conf=$FALCON_CONF"
for g in $(sed -n 's/^GresTypes=//p' "$t_tmp/slurm-conf.out" | tr ',' ' '); do
	grep "^GresTypes=" "$SLURM_CONF" | tr '=,' '  ' | grep -qw "$g" ||
		t_fail "step 6: the cluster's slurm.conf lacks GresTypes $g: $(grep '^GresTypes=' "$SLURM_CONF")"
done
[ "$(sinfo -h -N -p gpu -o '%N %t' | sort -u | grep -c ' idle$')" = 8 ] ||
	t_fail "8 idle nodes expected in partition gpu: $(sinfo -h -N -o '%N %t %G' | sort -u | tr '\n' ' ')"
for n in $nodes; do
	want=$(sed -n "s/^NodeName=$n Gres=\\([^ ]*\\).*/\\1/p" "$t_tmp/slurm-conf.out" | head -n 1)
	scontrol show node "$n" | grep -q "Gres=$want\$\|Gres=$want " ||
		t_fail "node $n: Gres $(scontrol show node "$n" | grep -o 'Gres=[^ ]*'), slurm-conf says $want"
done
t_ok "step 6: 8 nodes idle with slurm-conf's Licenses, Gres, Features and gres.conf"

# falcond where the nodes reach it, asking slurmctld
ns0=$(sed -n 's/^NETNS_INDEX=//p' "$s_state/ports")
[ -n "$ns0" ] || t_fail "no namespace index in $s_state/ports"
sed -i "s|^FalcondUrl=.*|FalcondUrl=http://10.77.$ns0.1:$FD_PORT|" "$FALCON_CONF"
fp_falcond_with_slurm

# step 6's last check-box, now that slurmctld runs
falconctl status >"$t_tmp/status-before.out" 2>&1 || t_fail "falconctl status: $(cat "$t_tmp/status-before.out")"
tail -n 3 "$t_tmp/status-before.out" | grep -qx 'slurm.conf agrees with falcon.conf' ||
	t_fail "step 6: falconctl status | tail -n 3 does not end 'slurm.conf agrees with falcon.conf': $(tail -n 3 "$t_tmp/status-before.out")"
t_ok "step 6: falconctl status: slurm.conf agrees with falcon.conf"

# -- step 7: the block on each node, inside its namespaces
"$top_srcdir/scripts/cluster.sh" status "$s_state" >"$t_tmp/status"
for n in $nodes; do
	if [ "$n" = "$FP_HOST" ]; then
		sh -c "$(cat "$t_tmp/doc-step7")" >"$t_tmp/step7-$n.out" 2>&1 ||
			t_fail "step 7 on $n: $(cat "$t_tmp/step7-$n.out")"
	else
		pid=$(sed -n "s/^slurmd $n running (pid \\([0-9]*\\),.*/\\1/p" "$t_tmp/status")
		[ -n "$pid" ] || t_fail "no slurmd of $n: $(cat "$t_tmp/status")"
		nsenter -t "$pid" --net --uts sh -c "$(cat "$t_tmp/doc-step7")" >"$t_tmp/step7-$n.out" 2>&1 ||
			t_fail "step 7 on $n: $(cat "$t_tmp/step7-$n.out")"
	fi
	grep -qx 'falcond reachable' "$t_tmp/step7-$n.out" ||
		t_fail "step 7 on $n: falcond not reachable: $(cat "$t_tmp/step7-$n.out")"
	! grep -qi 'warn' "$t_tmp/step7-$n.out" ||
		t_fail "step 7 on $n: a warning: $(cat "$t_tmp/step7-$n.out")"
	# the node's own 8 GPUs (falcon-sim's), local, and no chassis device
	[ "$(grep -c '^GPU[0-9].* L  ' "$t_tmp/step7-$n.out")" = 8 ] &&
		grep -q 'Topology: localGPUs .* GPUs: 8 ' "$t_tmp/step7-$n.out" ||
		t_fail "step 7 on $n: falconctl topo does not show the node's 8 GPUs as L: $(cat "$t_tmp/step7-$n.out")"
done
t_ok "step 7 on every node: falcond reachable; falconctl topo: 8 GPUs L, no warning ($(grep '^Topology:' "$t_tmp/step7-node8.out"))"

# -- step 8: the smoke test as a user, in a directory of its own
smoke=$t_tmp/smoke
mkdir -p "$smoke" && chmod 1777 "$smoke"
sed -e "$names" "$t_tmp/doc-step8" >"$t_tmp/step8.sh"
cmp -s "$t_tmp/doc-step8" "$t_tmp/step8.sh" &&
	t_fail "step 8: no node name n1..n8 to replace in ADMIN.md's block: $(cat "$t_tmp/doc-step8")"
(cd "$smoke" && runuser -u nobody -- sh -c "$(cat "$t_tmp/step8.sh")") >"$t_tmp/step8.out" 2>&1 ||
	t_fail "step 8: ADMIN.md's block failed: $(cat "$t_tmp/step8.out")"
jobs=$(sed -n 's/^Submitted batch job \([0-9][0-9]*\)$/\1/p' "$t_tmp/step8.out")
[ "$(echo $jobs | wc -w)" = 8 ] ||
	t_fail "step 8: 8 jobs expected from ADMIN.md's block, submitted: $(echo $jobs); it said: $(cat "$t_tmp/step8.out")"
t_ok "step 8: ADMIN.md's block submitted 8 jobs as nobody: $(echo $jobs)"
fp_completed $jobs
# the job's AdminComment: slurmctld's until it forgets the job, then sacct's
admin_comment() {
	ac=$(scontrol show job "$1" 2>/dev/null | sed -n 's/^ *AdminComment=//p')
	[ -n "$ac" ] || ac=$(sacct -n -X -P -j "$1" -o AdminComment 2>/dev/null)
	[ -n "$ac" ]
}
ran=""
for j in $jobs; do
	n=$(sacct -n -X -P -j "$j" -o NodeList)
	ran="$ran $n"
	wait_for 30 "job $j's AdminComment" admin_comment "$j" || true
	case $ac in
	falcon:topo=falconGPUs,f=1,check=*) ;;
	*) t_fail "step 8: job $j on $n: AdminComment '$ac', not falcon:topo=falconGPUs,f=1,check=..." ;;
	esac
	o=$smoke/smoke-$n-$j.out
	[ -f "$o" ] || t_fail "step 8: job $j on $n: no $o: $(ls "$smoke")"
	case $(head -n 1 "$o") in
	"$n falconGPUs GPU-"*) ;;
	*) t_fail "step 8: job $j: $o reads '$(head -n 1 "$o")', not '$n falconGPUs GPU-...'" ;;
	esac
	sed 1d "$o" | python3 -c 'import json, sys
def walk(x):
    if isinstance(x, dict):
        if x.get("location") == "falcon" and x.get("type", "GPU") in ("GPU", "gpu"):
            return True
        return any(walk(v) for v in x.values())
    if isinstance(x, list):
        return any(walk(v) for v in x)
    return False
sys.exit(0 if walk(json.load(sys.stdin)) else 1)' ||
		t_fail "step 8: job $j: $o has no topology.json with a chassis GPU \"location\": \"falcon\": $(cat "$o")"
done
[ "$(echo $ran | tr ' ' '\n' | sort)" = "$(echo $nodes | tr ' ' '\n' | sort)" ] ||
	t_fail "step 8: the jobs ran on$ran, not one on each of $nodes"
t_ok "step 8: every job COMPLETED, AdminComment falcon:topo=falconGPUs,f=1,check=..., output '<node> falconGPUs GPU-...' and the topology.json of a falcon GPU (e.g. $ac)"

# the block's own sacct, again now that the jobs ended: 8 lines COMPLETED
# with the tag
sacct_line=$(grep '^sacct ' "$t_tmp/step8.sh") || t_fail "step 8: ADMIN.md's block has no sacct line"
sacct_done() {
	(cd "$smoke" && runuser -u nobody -- sh -c "$sacct_line") >"$t_tmp/sacct.out" 2>&1 &&
		[ "$(grep -c ' COMPLETED  *falcon:topo=falconGPUs,f=1,check=' "$t_tmp/sacct.out")" = 8 ]
}
wait_for 60 "sacct to show the 8 jobs COMPLETED" sacct_done ||
	t_fail "step 8: ADMIN.md's '$sacct_line' as nobody: $(cat "$t_tmp/sacct.out")"
cat "$t_tmp/sacct.out"
t_ok "step 8: ADMIN.md's sacct line shows the 8 jobs COMPLETED with their AdminComment"

# every device free again once the epilogs ran
all_free() {
	falconctl status --json >"$t_tmp/status.json" 2>/dev/null &&
		python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
sys.exit(0 if s["devices"] and all(d.get("state") == "free" for d in s["devices"]) and not s["leases"] else 1)' "$t_tmp/status.json"
}
wait_for 120 "every device free" all_free ||
	t_fail "step 8: falconctl status after the jobs: $(falconctl status 2>&1)"
falconctl status >"$t_tmp/status-after.out" 2>&1
ndev=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["devices"]))' "$t_tmp/status.json")
t_ok "step 8: falconctl status shows all $ndev devices free again"
