#!/bin/sh
# slurm-keepwarm.sh - KeepWarm= (issue #29) on a real two-node cluster: the
# host (falcon-sim's node1, ports H1/H2: both drawers) and "node2"
# (scripts/cluster.sh --node2, port H3: drawer 1 only), falcon-prolog and
# falcon-epilog on both, job_submit_falcon adding the pool's licenses,
# falcond asking this cluster's slurmctld:
#   (a) a job's devices stay attached to its node when it ends, and the
#       next job of the same user there that asks for no more gets them
#       with no chassis request (falcon-sim counts no PATCH), its own
#       CUDA_VISIBLE_DEVICES and tag as after a fresh compose; a job
#       asking for what two keeps hold together takes both, no PATCH;
#   (b) a job on node2 whose drawer is all kept on the host starts at
#       once, not requeued: the keeps give way (never starve a node);
#   (c) falcond SIGKILLed while it keeps devices: after its restart they
#       are still kept, and reused;
#   (d) another user's job is not given them without KeepWarmReset=, its
#       own are not kept while a job of another user waits that would have
#       to release them (node2's GPUs all in them), and
#       with it is, after the site's reset program ran on each;
#   (e) a node drained, and a reload lowering KeepWarm=, give back what is
#       kept: the pool is clean;
#   (f) a job's devices are kept only where Slurm shows a job waiting that
#       can use them (issue 41): with none waiting, and with only another
#       user's job waiting (no KeepWarmReset=), they are released at its end;
#   (g) nor when falcond cannot ask slurmctld.
# Each keep of (a)-(e) has a job waiting for it, as a site's pipeline or
# array has: a "waiter" of the same user (and node, and partition) held
# back by a dependency on a held "gate" job, cancelled when done with.
# With KW_POOL=hres (slurm-keepwarm-hres.sh, Slurm 25.11+) the same with
# the pool counted as HRES.
# Skips where namespaces cannot be made.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/slurm-lib.sh"
. "$top_srcdir/tests/integration/prolog-lib.sh"
s_need_slurm
fp_need
s_need_netns
s_need_job_submit
s_need_spank
id nobody >/dev/null 2>&1 || t_skip "no user nobody"
FP_HOST=$(hostname -s)
case $FP_HOST in node1|node2|node3) t_skip "host name $FP_HOST is a sim host" ;; esac
FP_LISTEN=0.0.0.0
# KeepWarm= as examples/falcon.conf shows it
keep=$(sed -n '/^[^#]/s/.*KeepWarm=\([0-9][0-9]*\).*/\1/p' "$top_srcdir/examples/falcon.conf" | head -n 1)
[ -n "$keep" ] || t_fail "examples/falcon.conf shows no KeepWarm="
fp_setup "PartitionName=debug KeepWarm=$keep
PartitionName=small KeepWarm=$keep"

# the pool as licenses that job_submit_falcon adds, as a site runs it: a
# kept device is free for Slurm.  KW_POOL=hres (slurm-keepwarm-hres.sh):
# the pool as HRES, the resources.yaml falconctl slurm-conf --pool hres
# writes (node3, cabled in falcon.conf, is no Slurm node here)
if [ "${KW_POOL:-licenses}" = hres ]; then
	s_hres_release || t_skip "Slurm $(slurmctld -V 2>&1): HRES MODE_3 needs 25.11 or later"
	s_hres_yaml "$t_tmp/resources.yaml"
	sed -i 's/,node3"/"/; s/"node3,/"/' "$t_tmp/resources.yaml"
	set -- --hres "$t_tmp/resources.yaml"
	pool_lic=falcon_pool_gpu
else
	set -- --license c1_gpu:8,c1_nvme:1
	pool_lic=c1_gpu
fi
fp_node2_start --spank "$plugin" --spank-args "conf=$FALCON_CONF" \
	"$@" --job-submit "$plugin_dir" --falcon-conf "$FALCON_CONF"
fp_node2_conf
fp_falcond_with_slurm
out=$t_tmp/out
mkdir -p "$out" && chmod 1777 "$out"

metric() {
	curl -s "http://127.0.0.1:$FD_PORT/metrics" | sed -n "s/^$1 //p"
}
kept() { metric 'falcond_kept_devices{chassis="c1"}'; }
# k_job NAME [sbatch options...] - a job that prints its devices; its id in $jid
k_job() {
	_n=$1
	shift
	jid=$(sbatch --parsable -o "$out/$_n.%j" "$@" \
		--wrap 'echo "cvd=$CUDA_VISIBLE_DEVICES topo=$FALCON_TOPOLOGY"') ||
		t_fail "$_n: sbatch failed"
}
# k_done JOB NAME - COMPLETED, never requeued by falcon, its output
k_done() {
	fp_completed "$1"
	case $(scontrol show job "$1" | sed -n 's/^ *AdminComment=//p') in
	*requeued*) t_fail "$2: job $1 was requeued: $(scontrol show job "$1" | grep AdminComment)" ;;
	esac
	cat "$out/$2.$1"
}
kept_is() { [ "$(kept)" = "$1" ]; }
wait_kept() {
	wait_for 60 "$1 device(s) kept" kept_is "$1" ||
		{ tail -n 20 "$t_tmp/falcond.log" "$t_tmp"/slurm-epilog-*.log >&2; t_fail "kept: $(kept), $1 expected"; }
}
# the gate: a held job with nothing to run; the waiters depend on it
gate=$(sbatch --parsable -H -o /dev/null --wrap true) || t_fail "sbatch -H (the gate)"
# k_waiter NODE [USER] - a job of USER (default root) of falcon_gpu:1 on
# NODE waiting in Slurm (Dependency, on the gate) for as long as a step
# needs one; its id in $wid
k_waiter() {
	if [ "${2:-root}" = root ]; then
		wid=$(sbatch --parsable -o /dev/null -w "$1" --gres=falcon_gpu:1 \
			--dependency=afterany:"$gate" --wrap true)
	else
		wid=$(runuser -u "$2" -- sbatch --parsable -o /dev/null -w "$1" --gres=falcon_gpu:1 \
			--dependency=afterany:"$gate" --wrap true)
	fi
	[ -n "$wid" ] || t_fail "sbatch of a waiter on $1 as ${2:-root}"
}
not_kept() { metric 'falcond_keep_total{result="not_kept"}'; }

# (f) nobody waits: the job's devices go back to the chassis at its end
k_job f1 -w "$FP_HOST" --gres=falcon_gpu:2
f1=$jid
k_done "$jid" f1 >/dev/null
fp_wait_pool_clean 60
grep -q "lease .*: job $jid's 2 device(s) not kept warm on $FP_HOST: no job waits" "$t_tmp/falcond.log" ||
	t_fail "(f) job $jid: $(grep "job $jid" "$t_tmp/falcond.log" | tail -n 3)"
[ "$(kept)" = 0 ] && [ "$(not_kept)" = 1 ] || t_fail "(f) kept $(kept), not_kept $(not_kept)"
# only another user's job waits on the host: root's are not kept for it
k_waiter "$FP_HOST" nobody
w_nobody=$wid
k_job f2 -w "$FP_HOST" --gres=falcon_gpu:2
k_done "$jid" f2 >/dev/null
fp_wait_pool_clean 60
grep -q "job $jid's 2 device(s) not kept warm on $FP_HOST: no job of its user waits" \
	"$t_tmp/falcond.log" || t_fail "(f) job $jid: $(grep "job $jid" "$t_tmp/falcond.log" | tail -n 3)"
scancel "$w_nobody"
t_ok "(f) jobs $f1 and $jid: not kept with no job waiting, nor for another user's waiting job $w_nobody"
# the waiters of (a)-(e): root's on the host and on node2
k_waiter "$FP_HOST"
w_host=$wid
k_waiter node2
w_node2=$wid

# (g) falcond cannot reach slurmctld (its slurm.conf naming a port where
# none listens): root's job waits, yet nothing is kept (never hold idle
# devices blind); then falcond as before
fd_stop_falcond
sed 's/^SlurmctldPort=.*/SlurmctldPort=1/' "$SLURM_CONF" >"$t_tmp/unreachable.conf"
SLURM_CONF=$t_tmp/unreachable.conf FD_NO_SLURM= fd_start_falcond
k_job g1 -w "$FP_HOST" --gres=falcon_gpu:2
k_done "$jid" g1 >/dev/null
fp_wait_pool_clean 60
grep -q "job $jid's 2 device(s) not kept warm on $FP_HOST: Slurm did not say which jobs wait" \
	"$t_tmp/falcond.log" || t_fail "(g) job $jid: $(grep "job $jid\|slurm_load_jobs" "$t_tmp/falcond.log" | tail -n 3)"
t_ok "(g) slurmctld unreachable for falcond: job $jid's devices not kept though job $w_host waits"
fp_falcond_with_slurm

# no_patch NAME GRES - a job of GRES on the host, served from what is kept:
# COMPLETED with no zone PATCH sent to the chassis; its id in $jid, its
# output line in $line
no_patch() {
	fd_count_on 0
	k_job "$1" -w "$FP_HOST" --gres="$2"
	line=$(k_done "$jid" "$1")
	_np=$(fd_counted PATCH)
	fd_sim c1 POST /admin/faults '{}' >/dev/null
	[ "$_np" = 0 ] || t_fail "(a) job $jid ($2) sent $_np PATCH(es) to the chassis"
}

# (a) the host's job of all 8 GPUs ends: all 8 kept on the host
k_job a1 -w "$FP_HOST" --gres=falcon_gpu:8
k_done "$jid" a1 >/dev/null
wait_kept 8
grep -q "kept warm on $FP_HOST for $keep s" "$t_tmp/falcond.log" ||
	t_fail "falcond did not say it kept them: $(tail -n 5 "$t_tmp/falcond.log")"
# the same user's next job of 4: no chassis PATCH at all
no_patch a2 falcon_gpu:4
a2=$jid
grep -q "job $a2 on $FP_HOST: 4 device(s) kept warm in lease" "$t_tmp/falcond.log" ||
	t_fail "(a) falcond did not reuse: $(grep "job $a2" "$t_tmp/falcond.log" | tail -n 3)"
case $line in "cvd=GPU-"*,*,*,*" topo=falconGPUs") ;; *) t_fail "(a) job $a2's environment: $line" ;; esac
tag=$(scontrol show job "$a2" | sed -n 's/^ *AdminComment=//p')
case $tag in *falcon:topo=falconGPUs,f=4*) ;; *) t_fail "(a) job $a2's tag: $tag" ;; esac
[ "$(metric 'falcond_keep_total{result="reused"}')" = 1 ] || t_fail "(a) reused count: $(metric 'falcond_keep_total{result="reused"}')"
wait_kept 8
t_ok "(a) 8 GPUs kept on $FP_HOST; job $a2 (same user) reused 4 with no chassis PATCH: $line; $tag"
# 8 again: 4 in each of two keeps, taken together, still no PATCH
no_patch a3 falcon_gpu:8
grep -q "job $jid on $FP_HOST: 8 of 8 device(s) kept warm on the host, reused" "$t_tmp/falcond.log" ||
	t_fail "(a) job $jid: $(grep "job $jid" "$t_tmp/falcond.log" | tail -n 3)"
wait_kept 8
t_ok "(a) job $jid of 8 took both keeps with no PATCH: $line"

# (b) node2 reaches drawer 1 only, and all of it is kept on the host
k_job b1 -w node2 --gres=falcon_gpu:2
line=$(k_done "$jid" b1)
scontrol show job "$jid" | grep -q "Licenses=$pool_lic:2" ||
	t_fail "(b) job $jid holds no pool license: $(scontrol show job "$jid" | grep -o 'Licenses=[^ ]*')"
case $line in "cvd=GPU-"*,*" topo=falconGPUs") ;; *) t_fail "(b) job $jid on node2: $line" ;; esac
ev=$(metric 'falcond_keep_total{result="released_for_another"}')
[ "${ev:-0}" -ge 1 ] || t_fail "(b) no keep released for node2's job"
t_ok "(b) node2's job $jid ran at once with drawer 1 kept on the host: $ev keep(s) gave way; $line"
wait_kept 2

# (c) falcond killed while it keeps devices
fd_stop_falcond -KILL
FD_NO_SLURM= fd_start_falcond
[ "$(kept)" = 2 ] || t_fail "(c) kept after the restart: $(kept), 2 before"
k_job c1 -w node2 --gres=falcon_gpu:2
line=$(k_done "$jid" c1)
grep -q "job $jid on node2: 2 device(s) kept warm in lease" "$t_tmp/falcond.log" ||
	t_fail "(c) job $jid not served from the keep after the restart"
t_ok "(c) falcond SIGKILLed with 2 devices kept: kept after its restart, job $jid reused them: $line"
wait_kept 2

# (d) another user's job of 4 on node2: root's 2 kept there give way, it
# is composed afresh (no KeepWarmReset=); a job of nobody's waits there
# too, so that nobody's 4 are kept.  Root's waiter on node2 is cancelled
# meanwhile: with it waiting, nobody's keep is not made (node2 reaches 4
# GPUs, all in it: root's job, started, would release it in its compose;
# keep.h falcond_keep_for), and it waits again once the keep is made
k_waiter node2 nobody
w_node2n=$wid
# first with root's waiter there: nobody's 4 are given back at the end
d0=$(runuser -u nobody -- sbatch --parsable -o "$out/d0.%j" -w node2 --gres=falcon_gpu:4 \
	--wrap 'echo "cvd=$CUDA_VISIBLE_DEVICES topo=$FALCON_TOPOLOGY"') || t_fail "(d) sbatch as nobody"
k_done "$d0" d0 >/dev/null
wait_for 30 "job $d0's keep to be judged" grep -q "job $d0's 4 device(s) not kept warm on node2: jobs waiting that it does not serve ask more than the chassis has free" \
	"$t_tmp/falcond.log" || t_fail "(d) job $d0: $(grep "job $d0" "$t_tmp/falcond.log" | tail -n 3)"
wait_kept 0
scancel "$w_node2"
d1=$(runuser -u nobody -- sbatch --parsable -o "$out/d1.%j" -w node2 --gres=falcon_gpu:4 \
	--wrap 'echo "cvd=$CUDA_VISIBLE_DEVICES topo=$FALCON_TOPOLOGY"') || t_fail "(d) sbatch as nobody"
k_done "$d1" d1 >/dev/null
grep -q "job $d1 on node2: .* kept warm in lease" "$t_tmp/falcond.log" &&
	t_fail "(d) job $d1 of another user was given kept devices without KeepWarmReset="
wait_kept 4
k_waiter node2
w_node2=$wid
cat >"$t_tmp/reset.sh" <<EOS
#!/bin/sh
echo "\$*" >>"$t_tmp/reset.log"
EOS
chmod 0755 "$t_tmp/reset.sh"
echo "KeepWarmReset=$t_tmp/reset.sh" >>"$FALCON_CONF"
fp_node2_conf
kill -HUP "$FD_PID"
wait_for 30 "falcond to reload" grep -q 'SIGHUP: reloaded' "$t_tmp/falcond.log" || t_fail "(d) no reload"
k_job d2 -w node2 --gres=falcon_gpu:2
d2=$jid
line=$(k_done "$d2" d2)
grep -q "job $d2 on node2: 2 device(s) kept warm in lease .*reused by another user" "$t_tmp/falcond.log" ||
	t_fail "(d) job $d2 not given nobody's kept devices with KeepWarmReset= set"
[ "$(wc -w <"$t_tmp/reset.log")" = 2 ] && grep -q '^gpu:0000:[0-9a-f:.]* gpu:0000:' "$t_tmp/reset.log" ||
	t_fail "(d) the reset program's arguments: $(cat "$t_tmp/reset.log" 2>/dev/null)"
t_ok "(d) nobody's job $d1 composed afresh; with KeepWarmReset= root's job $d2 got nobody's kept GPUs after '$(cat "$t_tmp/reset.log")': $line"
wait_kept 4

# (e) a keep on the host too; node2 drained: its keeps go at the next
# reconcile, the host's stays; a reload lowering KeepWarm= ends that one
k_job e1 -w "$FP_HOST" --gres=falcon_gpu:2
k_done "$jid" e1 >/dev/null
wait_kept 6
hosts_kept() {
	fd_ledger_copy "$t_tmp/ledger.tmp"
	python3 -c 'import json,sys
print(" ".join(sorted(l["host"] for l in json.load(open(sys.argv[1]))["leases"] if l["state"] == "kept")))' \
		"$t_tmp/ledger.tmp"
}
node2_free() { case $(hosts_kept) in *node2*) return 1 ;; esac; }
scontrol update nodename=node2 state=drain reason=keepwarm-test
"$FALCONCTL" reconcile >/dev/null || t_fail "(e) falconctl reconcile"
wait_for 30 "node2's keeps to go" node2_free || t_fail "(e) node2 drained, still kept: $(hosts_kept)"
scontrol update nodename=node2 state=resume
[ "$(hosts_kept)" = "$FP_HOST" ] || t_fail "(e) kept after node2's drain: '$(hosts_kept)'"
grep -q 'kept warm; released: node drained' "$t_tmp/falcond.log" || t_fail "(e) no drain release logged"
sed -i "s/KeepWarm=$keep/KeepWarm=1/" "$FALCON_CONF"
kill -HUP "$FD_PID"
fp_wait_pool_clean 60
# the waiters, then the gate (cancelled first, the waiters would start)
scancel "$w_host" "$w_node2" "$w_node2n"
scancel "$gate"
t_ok "(e) node2 drained: its keeps released, the host's kept; KeepWarm=1 reloaded: pool clean; idle GPU-s $(metric 'falcond_attached_idle_gpu_seconds_total{chassis="c1"}')"
