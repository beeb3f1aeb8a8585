#!/bin/sh
# slurm-submit.sh - job_submit_falcon.so in a real single-node cluster
# (scripts/cluster.sh --job-submit; JobSubmitPlugins=falcon, FALCON_CONF in
# slurmctld's environment) with falcon-prolog/epilog, falcond and
# falcon-sim: falcon.conf policies that refuse topologies and counts make
# sbatch fail with the falcon message (nothing composed: no lease, nothing
# attached), a job asking for more devices than the pool's license holds
# is refused with the falcon message, accepted jobs get the per-type pool
# licenses (Licenses=c1_gpu:N,c1_nvme:M) added or corrected and run; a refused `scontrol update`; a broken
# falcon.conf keeps the last good policy.  No spank_falcon here, so every
# refusal is the job_submit plugin's.  Skips (77) when the plugin was not
# built (configure without --with-slurm-source).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/slurm-lib.sh"
. "$top_srcdir/tests/integration/prolog-lib.sh"
fp_slurm_node
s_need_job_submit
fp_setup "PartitionName=small AllowTopologies=localGPUs,hybridGPUs MaxFalconGPUs=2
PartitionName=debug MaxFalconGPUs=12 MaxFalconNVMe=1
AdviceFile=$t_tmp/advice.json"
good_conf=$(cat "$FALCON_CONF")

fp_slurm_start --license c1_gpu:8,c1_nvme:1 --gpus 8 \
	--job-submit "$plugin_dir" --falcon-conf "$FALCON_CONF"
grep -q 'job_submit_falcon: loaded' "$s_state/log/slurmctld.log" ||
	{ s_logs; t_fail "slurmctld did not load job_submit/falcon"; }

# refused ARGS EXPECTED - sbatch ARGS must fail, its stderr holding EXPECTED.
refused() {
	_want=$2
	if sbatch --parsable $1 -o /dev/null --wrap true >"$t_tmp/sb.out" 2>"$t_tmp/sb.err"; then
		t_fail "sbatch $1 was accepted (job $(cat "$t_tmp/sb.out")), expected: $_want"
	fi
	grep -qF -- "$_want" "$t_tmp/sb.err" ||
		t_fail "sbatch $1: stderr lacks '$_want': $(cat "$t_tmp/sb.err")"
	t_ok "sbatch $1 refused: $(grep -F -- "$_want" "$t_tmp/sb.err" | head -1)"
}

# licenses JOB - its Licenses= as scontrol shows it ("(null)" = none).
licenses() { scontrol show job "$1" | tr ' ' '\n' | sed -n 's/^Licenses=//p'; }

refused "-p small --gres=falcon_gpu:4" \
	"falcon: partition small does not allow falconGPUs (falcon.conf AllowTopologies=localGPUs,hybridGPUs); add the node's own GPUs"
refused "-p small --gres=gpu:2,falcon_gpu:4" \
	"falcon: partition small allows at most 2 falcon_gpu per node; asked 4 (falcon.conf MaxFalconGPUs=2); use partition debug"
refused "--gres=falcon_gpu:13" \
	"falcon: partition debug allows at most 12 falcon_gpu per node; asked 13 (falcon.conf MaxFalconGPUs=12)"
# the policy allows 12 per node, the chassis pool (Licenses=c1_gpu:8) has 8
refused "--gres=falcon_gpu:9" "falcon: chassis c1 has 8 GPUs; asked 9 per node x 1 node (falcon_gpu:9)"
refused "-N 2 --gres=falcon_gpu:5" "falcon: chassis c1 has 8 GPUs; asked 5 per node x 2 nodes (falcon_gpu:5)"
refused "--gres=falcon_gpu:1,falcon_nvme:1 -N 2" "falcon: chassis c1 has 1 NVMe; asked 1 per node x 2 nodes (falcon_nvme:1)"
refused "-p small --gres=falcon_nvme:1" \
	"falcon: partition small does not allow falconNVMe"
refused "-p debug,small --gres=falcon_gpu:2" \
	"falcon: partition small does not allow falconGPUs"
refused "--gres=falcon_nvme:2" "asked 2 (falcon.conf MaxFalconNVMe=1)"
[ -z "$(squeue -h -o %i)" ] || t_fail "refused jobs in the queue: $(squeue)"
fp_pool_clean
grep -q "lease [^ ]*: job" "$t_tmp/falcond.log" &&
	t_fail "falcond composed for a refused job: $(grep lease "$t_tmp/falcond.log")"
t_ok "refused jobs: none queued, nothing composed"

# -- accepted: the pool license added (or corrected), the job runs
jid=$(sbatch --parsable -p small --gres=gpu:2,falcon_gpu:2 -o /dev/null --wrap true) ||
	t_fail "hybridGPUs job in small refused"
[ "$(licenses "$jid")" = c1_gpu:2 ] || t_fail "job $jid Licenses=$(licenses "$jid"), expected c1_gpu:2"
s_wait_done "$jid"
[ "$(s_job_state "$jid")" = COMPLETED ] ||
	{ cat "$t_tmp/slurm-prolog.log" >&2; s_logs; t_fail "job $jid: $(s_job_state "$jid")"; }
t_ok "small, gpu:2 + falcon_gpu:2: accepted, Licenses=c1_gpu:2, COMPLETED"

jid=$(sbatch --parsable -H --gres=falcon_gpu:4 -o /dev/null --wrap true) || t_fail "falcon_gpu:4 refused"
[ "$(licenses "$jid")" = c1_gpu:4 ] || t_fail "job $jid Licenses=$(licenses "$jid"), expected c1_gpu:4"
scancel "$jid"
t_ok "falcon_gpu:4: Licenses=c1_gpu:4 only"
jid=$(sbatch --parsable -H --gres=falcon_nvme:1 -o /dev/null --wrap true) || t_fail "falcon_nvme:1 refused"
[ "$(licenses "$jid")" = c1_nvme:1 ] || t_fail "job $jid Licenses=$(licenses "$jid"), expected c1_nvme:1"
scancel "$jid"
t_ok "falcon_nvme:1: Licenses=c1_nvme:1 only"
# a wrong -L for the pool (the old single license, a wrong count) is
# corrected; a license of another name would be kept (none is configured)
jid=$(sbatch --parsable --gres=falcon_gpu:4,falcon_nvme:1 -L c1:1,c1_gpu:1 -o /dev/null --wrap true) ||
	t_fail "falcon_gpu:4,falcon_nvme:1 in debug refused"
[ "$(licenses "$jid")" = c1_gpu:4,c1_nvme:1 ] ||
	t_fail "job $jid Licenses=$(licenses "$jid"), expected c1_gpu:4,c1_nvme:1"
s_wait_done "$jid"
[ "$(s_job_state "$jid")" = COMPLETED ] || { s_logs; t_fail "job $jid: $(s_job_state "$jid")"; }
t_ok "debug, falcon_gpu:4 + falcon_nvme:1 with -L c1:1,c1_gpu:1: Licenses corrected to c1_gpu:4,c1_nvme:1, COMPLETED"

jid=$(sbatch --parsable -p small --gres=gpu:1 -o /dev/null --wrap true) ||
	t_fail "localGPUs job in small refused"
case $(licenses "$jid") in ""|"(null)") ;; *) t_fail "local job got Licenses=$(licenses "$jid")" ;; esac
s_wait_done "$jid"
t_ok "small, gpu:1 (localGPUs): accepted without a license"

# -- scontrol update of a held job: into a partition that refuses it
jid=$(sbatch --parsable -H --gres=falcon_gpu:2 -o /dev/null --wrap true) || t_fail "held job"
[ "$(licenses "$jid")" = c1_gpu:2 ] || t_fail "held job Licenses=$(licenses "$jid")"
if scontrol update jobid="$jid" partition=small 2>"$t_tmp/upd.err"; then
	t_fail "scontrol update partition=small of a falconGPUs job was accepted"
fi
grep -q "job $jid: modify refused: falcon: partition small does not allow falconGPUs" \
	"$s_state/log/slurmctld.log" || { s_logs; t_fail "no modify refusal in slurmctld.log"; }
[ "$(squeue -h -j "$jid" -o %P)" = debug ] || t_fail "job moved: $(squeue -h -j "$jid" -o %P)"
# Slurm 23.02 on: job_modify's err_msg reaches scontrol (configure's
# feature test, JOB_SUBMIT_DEFS from tests/local.mk)
case ${JOB_SUBMIT_DEFS:-} in *FALCON_MODIFY_ERR_MSG*)
	grep -q "partition small does not allow falconGPUs" "$t_tmp/upd.err" ||
		t_fail "job_modify's err_msg not shown by scontrol: $(cat "$t_tmp/upd.err")" ;;
esac
t_ok "scontrol update partition=small refused ($(cat "$t_tmp/upd.err"))"
# a GRES change of the pending job: its license follows
scontrol update jobid="$jid" gres=falcon_gpu:3 2>"$t_tmp/upd.err" ||
	t_fail "scontrol update gres=falcon_gpu:3: $(cat "$t_tmp/upd.err")"
[ "$(licenses "$jid")" = c1_gpu:3 ] || t_fail "after update gres: Licenses=$(licenses "$jid")"
t_ok "scontrol update gres=falcon_gpu:3: Licenses=c1_gpu:3"
# a license update that contradicts the GRES: refused, not silently
# rewritten back (issue 32); one naming other licenses only is kept
if scontrol update jobid="$jid" licenses=c1_gpu:1 2>"$t_tmp/upd.err"; then
	t_fail "scontrol update licenses=c1_gpu:1 of a falcon_gpu:3 job was accepted (Licenses=$(licenses "$jid"))"
fi
grep -q "job $jid: modify refused: falcon: license c1_gpu follows job $jid's falcon GRES and chassis (3, not 1)" \
	"$s_state/log/slurmctld.log" || { s_logs; t_fail "no license refusal in slurmctld.log"; }
case ${JOB_SUBMIT_DEFS:-} in *FALCON_MODIFY_ERR_MSG*)
	grep -q "license c1_gpu follows job $jid's falcon GRES" "$t_tmp/upd.err" ||
		t_fail "job_modify's err_msg not shown by scontrol: $(cat "$t_tmp/upd.err")" ;;
esac
[ "$(licenses "$jid")" = c1_gpu:3 ] || t_fail "after a refused update: Licenses=$(licenses "$jid")"
t_ok "scontrol update licenses=c1_gpu:1 refused ($(cat "$t_tmp/upd.err"))"
scancel "$jid"

# -- a broken falcon.conf: logged with file:line, the last good policy stays
printf '%s\nBogusKey=1\n' "$good_conf" >"$FALCON_CONF.new" && mv "$FALCON_CONF.new" "$FALCON_CONF"
refused "-p small --gres=falcon_gpu:4" "falcon: partition small does not allow falconGPUs"
grep -q "falcon.conf refused: $FALCON_CONF:[0-9]*: .*keeping the configuration loaded before" \
	"$s_state/log/slurmctld.log" || { s_logs; t_fail "broken falcon.conf not logged with file:line"; }
t_ok "broken falcon.conf: logged with file:line, previous policy kept"
# fixed, with small now allowing 4: reloaded on its mtime
printf '%s\n' "$good_conf" | sed 's/^PartitionName=small .*/PartitionName=small MaxFalconGPUs=4/' \
	>"$FALCON_CONF.new" && mv "$FALCON_CONF.new" "$FALCON_CONF"
jid=$(sbatch --parsable -H -p small --gres=falcon_gpu:4 -o /dev/null --wrap true 2>"$t_tmp/sb.err") ||
	t_fail "after the fix small should take falcon_gpu:4: $(cat "$t_tmp/sb.err")"
scancel "$jid"
t_ok "fixed falcon.conf reloaded: small takes falcon_gpu:4 now"
# -- spank_falcon's early check in sbatch (allocator context): a client
# slurm.conf whose plugstack names spank_falcon.so with conf=falcon.conf
spank=$top_builddir/plugin/.libs/spank_falcon.so
[ -f "$spank" ] || t_fail "no $spank: spank_falcon was not built"
if [ -f "$spank" ]; then
	printf 'required %s conf=%s\n' "$spank" "$FALCON_CONF" >"$t_tmp/client-plugstack.conf"
	sed "s|^PlugStackConfig=.*|PlugStackConfig=$t_tmp/client-plugstack.conf|" "$SLURM_CONF" \
		>"$t_tmp/client-slurm.conf"
	printf '%s\n' "$good_conf" >"$FALCON_CONF.new" && mv "$FALCON_CONF.new" "$FALCON_CONF"
	n_ctld=$(grep -c 'refused' "$s_state/log/slurmctld.log" || true)
	want='spank_falcon: partition small allows at most 2 falcon_gpu per node; asked 3'
	if SLURM_CONF=$t_tmp/client-slurm.conf sbatch -p small --gres=gpu:1,falcon_gpu:3 \
		-o /dev/null --wrap true >"$t_tmp/sb.out" 2>"$t_tmp/sb.err"; then
		t_fail "spank_falcon let sbatch -p small --gres=gpu:1,falcon_gpu:3 through"
	fi
	grep -q "$want" "$t_tmp/sb.err" || t_fail "no spank_falcon message: $(cat "$t_tmp/sb.err")"
	# it suggests only partitions Slurm has (falcon.conf also has warnp)
	grep -q "$want.*; use partition debug\$" "$t_tmp/sb.err" ||
		t_fail "spank_falcon's suggestion: $(cat "$t_tmp/sb.err")"
	# #SBATCH lines count too: sbatch has read them when the plugin asks
	printf '#!/bin/sh\n#SBATCH -p small\n#SBATCH --gres=falcon_gpu:3,gpu:1\ntrue\n' >"$t_tmp/job.sh"
	if SLURM_CONF=$t_tmp/client-slurm.conf sbatch -o /dev/null "$t_tmp/job.sh" \
		>"$t_tmp/sb.out" 2>"$t_tmp/sb.err"; then
		t_fail "spank_falcon let a #SBATCH -p small falcon_gpu:3 job through"
	fi
	grep -q "$want" "$t_tmp/sb.err" || t_fail "no spank_falcon message: $(cat "$t_tmp/sb.err")"
	# no -p: judged in Slurm's default partition (debug: at most 12)
	if SLURM_CONF=$t_tmp/client-slurm.conf sbatch --gres=falcon_gpu:13 \
		-o /dev/null --wrap true >"$t_tmp/sb.out" 2>"$t_tmp/sb.err"; then
		t_fail "spank_falcon let sbatch --gres=falcon_gpu:13 (default partition) through"
	fi
	grep -q 'spank_falcon: partition debug allows at most 12 falcon_gpu per node; asked 13' \
		"$t_tmp/sb.err" || t_fail "no spank_falcon message for the default partition: $(cat "$t_tmp/sb.err")"
	said=$(grep spank_falcon "$t_tmp/sb.err" | head -1)
	[ "$(grep -c 'refused' "$s_state/log/slurmctld.log" || true)" = "$n_ctld" ] ||
		t_fail "the job reached slurmctld: spank_falcon did not refuse it first"
	# allowed ones pass through it (and job_submit_falcon adds the license)
	jid=$(SLURM_CONF=$t_tmp/client-slurm.conf sbatch --parsable -H -p small \
		--gres=gpu:1,falcon_gpu:2 -o /dev/null --wrap true 2>"$t_tmp/sb.err") ||
		t_fail "spank_falcon refused an allowed job: $(cat "$t_tmp/sb.err")"
	[ "$(licenses "$jid")" = c1_gpu:2 ] || t_fail "job $jid Licenses=$(licenses "$jid")"
	scancel "$jid"
	t_ok "spank_falcon refused it in sbatch (command line and #SBATCH): $said"
fi

# -- --falcon-topology=auto (issue 31): job_submit_falcon takes the job's
# GPUs as local or chassis GPUs by the workload's history (AdviceFile, as
# `falconctl advise --save` writes it: bert runs 1.5x as long on falcon
# GPUs) and what is free now; sbatch tells the user, the tag records it
fp_advice "$t_tmp/advice.json"
tres() { scontrol show job "$1" | tr ' ' '\n' | sed -n 's/^TresPerNode=//p'; }
# auto_job WANT_TOPO WANT_GRES [SBATCH_ARGS] - a bert job of 4 GPUs with
# auto: what sbatch said, its GRES and licenses, the tag it ran with
auto_job() {
	jid=$(SLURM_CONF=$t_tmp/client-slurm.conf sbatch --parsable -J bert --falcon-topology=auto \
		--gres=falcon_gpu:4 ${3:-} -o /dev/null --wrap 'sleep 1' 2>"$t_tmp/sb.err") ||
		t_fail "sbatch --falcon-topology=auto: $(cat "$t_tmp/sb.err")"
	grep -q "falcon: --falcon-topology=auto: $1 (--gres=$2) by the workload's history" \
		"$t_tmp/sb.err" || t_fail "auto job $jid: sbatch said '$(cat "$t_tmp/sb.err")'"
	tres "$jid" | grep -Eq "^gres[:/]$2\$" || t_fail "auto job $jid: TresPerNode=$(tres "$jid")"
	s_wait_done "$jid"
	[ "$(s_job_state "$jid")" = COMPLETED ] || t_fail "auto job $jid: $(s_job_state "$jid")"
	admin_has "$jid" "falcon:topo=$1,.*auto=1" ||
		t_fail "auto job $jid ran with tag '$(admin "$jid")', want $1 and auto=1"
	t_ok "auto: $1 ($(grep -o 'by the .*' "$t_tmp/sb.err" | cut -c1-120)); tag '$(admin "$jid")'"
}
admin() { scontrol show job "$1" 2>/dev/null | sed -n 's/^ *AdminComment=//p'; }
admin_has() { admin "$1" | grep -q "$2"; }
if [ -f "$spank" ]; then
	# the node's 8 GPUs free: local, the faster.  In partition small,
	# which refuses falconGPUs: spank_falcon's early check must leave the
	# typed falcon_gpu:4 to auto
	auto_job localGPUs gpu:4 "-p small"
	[ "$(licenses "$jid")" = "(null)" ] || t_fail "auto local job $jid Licenses=$(licenses "$jid")"
	# the node's GPUs taken: chassis GPUs, free now, rather than a wait
	blocker=$(sbatch --parsable --gres=gpu:8 -o /dev/null --wrap 'sleep 300') || t_fail "blocker"
	s_wait_state "$blocker" RUNNING
	auto_job falconGPUs falcon_gpu:4
	[ "$(licenses "$jid")" = c1_gpu:4 ] || t_fail "auto falcon job $jid Licenses=$(licenses "$jid")"
	scancel "$blocker"
	s_wait_done "$blocker"
	# auto with no GPU asked: refused, named
	if SLURM_CONF=$t_tmp/client-slurm.conf sbatch --falcon-topology=auto -o /dev/null \
		--wrap true >"$t_tmp/sb.out" 2>"$t_tmp/sb.err"; then
		t_fail "sbatch --falcon-topology=auto without GPUs was accepted"
	fi
	grep -q 'falcon: --falcon-topology=auto chooses where a job.s GPUs come from' "$t_tmp/sb.err" ||
		t_fail "auto without GPUs: $(cat "$t_tmp/sb.err")"
	t_ok "auto without GPUs refused: $(grep falcon "$t_tmp/sb.err" | head -1)"
	# a bad AdviceFile (a member of the wrong type): slurmctld's log names
	# the file and the member, and the history read before stays in use
	cp "$t_tmp/advice.json" "$t_tmp/advice.good"
	printf '{"advice":[{"workload":"bert","topologies":[{"topology":"localGPUs","jobs":"5"}]}]}\n' \
		>"$t_tmp/advice.json.new" && mv "$t_tmp/advice.json.new" "$t_tmp/advice.json"
	jid=$(SLURM_CONF=$t_tmp/client-slurm.conf sbatch --parsable -H -J bert --falcon-topology=auto \
		--gres=falcon_gpu:4 -o /dev/null --wrap true 2>"$t_tmp/sb.err") ||
		t_fail "auto with a bad AdviceFile: $(cat "$t_tmp/sb.err")"
	scancel "$jid"
	grep -q "AdviceFile $t_tmp/advice.json: advice\[0\].topologies\[0\].jobs: expected a number; keeping the history read before" \
		"$s_state/log/slurmctld.log" || t_fail "bad AdviceFile: $(grep AdviceFile "$s_state/log/slurmctld.log")"
	grep -q "localGPUs (--gres=gpu:4) by the workload's history" "$t_tmp/sb.err" ||
		t_fail "auto with a bad AdviceFile lost its history: $(cat "$t_tmp/sb.err")"
	mv "$t_tmp/advice.good" "$t_tmp/advice.json"
	t_ok "bad AdviceFile: named with its member in slurmctld's log, the history before kept"
fi

# -- a running job requeued by Slurm (scontrol requeue; preemption and
# node failures take the same path): its epilog gives the devices back and
# its AdminComment loses the topology it no longer holds (falcon:released)
# until it is composed again (issue 32)
# requeue_untags GRES TOPO - a job of GRES, tagged falcon:topo=TOPO while
# it runs, requeued: falcon:released and no topology while it pends
requeue_untags() {
	jid=$(sbatch --parsable --gres="$1" -o /dev/null --wrap 'sleep 300') || t_fail "sbatch --gres=$1"
	s_wait_state "$jid" RUNNING
	wait_for 60 "job $jid's topology tag" admin_has "$jid" "falcon:topo=$2" ||
		t_fail "job $jid's tag: '$(admin "$jid")'"
	scontrol requeue "$jid" || t_fail "scontrol requeue $jid"
	wait_for 60 "job $jid's tag to say its devices are released" admin_has "$jid" 'falcon:released' ||
		{ tail -n 5 "$t_tmp/slurm-epilog.log" >&2; t_fail "$2 job $jid ($(s_job_state "$jid")) requeued, tag '$(admin "$jid")'"; }
	admin_has "$jid" 'topo=' && t_fail "job $jid pending with a topology: '$(admin "$jid")'"
	t_ok "$2 job $jid requeued by Slurm: $(s_job_state "$jid"), tag '$(admin "$jid")'"
	# Slurm 24.11 shows REQUEUED until the requeue is through, and a
	# scancel before that is lost: cancel it once it pends
	wait_for 60 "job $jid to pend" s_in_state "$jid" PENDING || t_fail "job $jid: $s_st"
	scancel "$jid"
	s_wait_done "$jid"
}
requeue_untags falcon_gpu:2 falconGPUs
# the same for a job of the node's own GPUs only (nothing composed: the
# epilog returned before the tag; make soak-lifecycle found it pending
# with falcon:topo=localGPUs)
requeue_untags gpu:2 localGPUs

p_k=0
until (fp_pool_clean) 2>/dev/null; do
	p_k=$((p_k + 1)); [ $p_k -lt 150 ] || fp_pool_clean
	sleep 0.2
done
t_ok "pool clean"
