#!/bin/sh
# tests/integration/slurm-cgroup.sh - device isolation of composed GPUs and
# NVMe (issue 14) in a real cluster with proctrack/cgroup, task/cgroup and
# ConstrainDevices=yes (scripts/cluster.sh on a host with cgroup v1):
#  - job A (--gres=gpu:1,falcon_gpu:2) opens its composed GPUs, its NVMe
#    and its local GPU (ENXIO: allowed, no driver behind the stand-in), not
#    the node's other local GPU (EPERM: Slurm's own constraint);
#  - job B (no GRES), started before A was composed, gets EPERM on A's
#    devices (A's rules reached B's running job cgroup);
#  - job D (no GRES), started after A, and job C (other falcon GPUs) get
#    EPERM on A's devices; C opens its own.
#
# A test prolog stands in for falcon-prolog: it "composes" by mknod of
# character devices c 195 N (and a block device for the NVMe) under the
# scratch directory and writes the topology.json falcon-prolog writes,
# with "dev" of each GPU.  Which minors a job gets, the test says in
# $t_tmp/next before it submits the job.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/slurm-lib.sh"
s_need_slurm
s_need_spank
for c in freezer devices; do
	grep -q " /sys/fs/cgroup/$c rw.* - cgroup " /proc/self/mountinfo ||
		t_skip "no writable cgroup v1 $c controller: cluster.sh cannot constrain devices"
done

run=$t_tmp/run
dev=$t_tmp/dev
mkdir -p "$run" "$dev"
cat >"$t_tmp/prolog" <<PROLOG
#!/bin/sh
# next: "GPU_MINOR... [nvme:MINOR]" for the next job; none = no topology.json
# unless the job has local GPUs.
set -e
j=\$SLURM_JOB_ID
want=\$(cat "$t_tmp/next" 2>/dev/null || true)
rm -f "$t_tmp/next"
[ -n "\$want\$SLURM_JOB_GPUS" ] || exit 0
gpus=""; cuda=""; nvme=""; sep=""
for i in \$(echo "\${SLURM_JOB_GPUS:-}" | tr ',' ' '); do
	gpus="\$gpus\$sep{\"bdf\":\"0000:3b:00.\$i\",\"location\":\"local\",\"dev\":\"$t_tmp/cluster/dev/nvidia\$i\"}"
	cuda="\$cuda\${cuda:+,}\$i"; sep=","
done
for m in \$want; do
	case \$m in
	nvme:*) n=\${m#nvme:}
		mknod -m 0666 "$dev/nvme\${n}n1" b 259 \$n
		nvme="\"$dev/nvme\${n}n1\"" ;;
	*) mknod -m 0666 "$dev/nvidia\$m" c 195 \$m
		gpus="\$gpus\$sep{\"bdf\":\"0000:86:00.\$m\",\"location\":\"falcon\",\"dev\":\"$dev/nvidia\$m\"}"
		cuda="\$cuda\${cuda:+,}\$m"; sep="," ;;
	esac
done
mkdir -p "$run/\$j"
printf '{"job_id":%s,"gpus":[%s],"nvme":[],"nvme_devices":[%s],"cuda_visible_devices":"%s"}\n' \
	"\$j" "\$gpus" "\$nvme" "\$cuda" >"$run/\$j/topology.json.tmp"
mv "$run/\$j/topology.json.tmp" "$run/\$j/topology.json"
PROLOG
cat >"$t_tmp/epilog" <<EPILOG
#!/bin/sh
rm -rf "$run/\$SLURM_JOB_ID"
EPILOG
# open each path read-write: "PATH ENXIO" (allowed: no driver), "PATH EPERM"
# (denied by the devices cgroup) or "PATH OTHER: message".
cat >"$t_tmp/open" <<'OPEN'
#!/bin/sh
for p in "$@"; do
	msg=$( (: <>"$p") 2>&1) && { echo "$p OPENED"; continue; }
	case $msg in
	*"No such device or address"*) echo "$p ENXIO" ;;
	*"Operation not permitted"*) echo "$p EPERM" ;;
	*) echo "$p OTHER: $msg" ;;
	esac
done
OPEN
# job B's batch script: answers each $t_tmp/ask.N with ans.N, from the
# step (and cgroup) B started with.
cat >"$t_tmp/asker" <<ASKER
#!/bin/sh
i=0
while [ \$i -lt 10 ]; do
	if [ -f "$t_tmp/ask.\$i" ]; then
		"$t_tmp/open" \$(cat "$t_tmp/ask.\$i") >"$t_tmp/ans.\$i.tmp"
		mv "$t_tmp/ans.\$i.tmp" "$t_tmp/ans.\$i"
		i=\$((i + 1))
	fi
	sleep 0.2
done
ASKER
chmod 0755 "$t_tmp/prolog" "$t_tmp/epilog" "$t_tmp/open" "$t_tmp/asker"
s_start --gpus 2 --prolog "$t_tmp/prolog" --epilog "$t_tmp/epilog" --spank "$plugin" \
	--spank-args "rundir=$run"
grep -qx "TaskPlugin=task/cgroup" "$SLURM_CONF" ||
	t_fail "cluster.sh did not configure task/cgroup: $(grep -E '^(TaskPlugin|ProctrackType)' "$SLURM_CONF")"
grep -qx "ConstrainDevices=yes" "$(dirname "$SLURM_CONF")/cgroup.conf" ||
	t_fail "no cgroup.conf with ConstrainDevices=yes"
[ -c "$s_state/dev/nvidia0" ] || t_fail "cluster.sh --gpus: $s_state/dev/nvidia0 is not a character device"
t_ok "cluster: proctrack/cgroup, task/cgroup, ConstrainDevices=yes, local GPUs c 195 0-1"

# expect FILE PATH RESULT - the line of PATH in FILE says RESULT.
expect() {
	grep -qx "$2 $3" "$1" || { s_logs; t_fail "$2: expected $3; $1 says: $(cat "$1")"; }
}
# ask_b N PATH... - job B opens the paths from its first step.
ask_b() {
	n=$1; shift
	echo "$*" >"$t_tmp/ask.$n"
	wait_for 60 "job B to answer ask.$n" test -f "$t_tmp/ans.$n" ||
		{ s_logs; t_fail "job B did not answer ask.$n (state $(s_job_state "$jb"))"; }
}

# B: no GRES, running before A's devices exist.
jb=$(sbatch --parsable -o "$t_tmp/out.B" "$t_tmp/asker")
s_wait_state "$jb" RUNNING
ask_b 0 "$s_state/dev/nvidia0"
expect "$t_tmp/ans.0" "$s_state/dev/nvidia0" EPERM
t_ok "job B (no GRES) is denied the node's local GPU nvidia0 by Slurm"

# A: local gpu:1 and falcon GPUs 8, 9 and an NVMe.
echo "8 9 nvme:250" >"$t_tmp/next"
ja=$(sbatch --parsable --gres=gpu:1,falcon_gpu:2 -o "$t_tmp/out.A" \
	--wrap "\"$t_tmp/open\" $dev/nvidia8 $dev/nvidia9 $dev/nvme250n1 $s_state/dev/nvidia0 $s_state/dev/nvidia1; sleep 300")
s_wait_state "$ja" RUNNING
wait_for 60 "job A's output" grep -q nvidia1 "$t_tmp/out.A" ||
	{ s_logs; t_fail "job A wrote nothing: $(cat "$t_tmp/out.A")"; }
local_a=$(sed -n 's/.*"dev":"\([^"]*cluster\/dev\/nvidia[01]\)".*/\1/p' "$run/$ja/topology.json")
[ -n "$local_a" ] || t_fail "job A has no local GPU in $(cat "$run/$ja/topology.json")"
other=$s_state/dev/nvidia0; [ "$local_a" != "$other" ] || other=$s_state/dev/nvidia1
expect "$t_tmp/out.A" "$dev/nvidia8" ENXIO
expect "$t_tmp/out.A" "$dev/nvidia9" ENXIO
expect "$t_tmp/out.A" "$dev/nvme250n1" ENXIO
expect "$t_tmp/out.A" "$local_a" ENXIO
expect "$t_tmp/out.A" "$other" EPERM
t_ok "job A opens its falcon GPUs 195:8-9, its NVMe and its local GPU $(basename "$local_a"); not $(basename "$other")"

# B, running since before A was composed, is denied A's devices.
ask_b 1 "$dev/nvidia8" "$dev/nvidia9" "$dev/nvme250n1"
expect "$t_tmp/ans.1" "$dev/nvidia8" EPERM
expect "$t_tmp/ans.1" "$dev/nvidia9" EPERM
expect "$t_tmp/ans.1" "$dev/nvme250n1" EPERM
t_ok "job B, started before A's devices were composed, gets EPERM on them"

# D: no GRES, started after A.
out=$(srun -n1 "$t_tmp/open" "$dev/nvidia8" "$dev/nvme250n1" 2>&1) || t_fail "srun: $out"
echo "$out" >"$t_tmp/out.D"
expect "$t_tmp/out.D" "$dev/nvidia8" EPERM
expect "$t_tmp/out.D" "$dev/nvme250n1" EPERM
t_ok "job D (no GRES, after A) gets EPERM on A's devices"

# C: its own falcon GPUs 10, 11; A's are closed to it, and C's to B and A.
echo "10 11" >"$t_tmp/next"
out=$(srun -n1 --gres=falcon_gpu:2 "$t_tmp/open" "$dev/nvidia10" "$dev/nvidia11" \
	"$dev/nvidia8" "$dev/nvme250n1" 2>&1) || t_fail "srun: $out"
echo "$out" >"$t_tmp/out.C"
expect "$t_tmp/out.C" "$dev/nvidia10" ENXIO
expect "$t_tmp/out.C" "$dev/nvidia11" ENXIO
expect "$t_tmp/out.C" "$dev/nvidia8" EPERM
expect "$t_tmp/out.C" "$dev/nvme250n1" EPERM
t_ok "job C opens its falcon GPUs and gets EPERM on A's"
ask_b 2 "$dev/nvidia10"
expect "$t_tmp/ans.2" "$dev/nvidia10" EPERM
t_ok "a GPU composed for C while B runs is denied to B"

scancel "$ja" "$jb"
exit 0
