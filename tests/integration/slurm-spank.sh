#!/bin/sh
# tests/integration/slurm-spank.sh - spank_falcon.so in a real cluster:
# option validation in sbatch (bad values fail with a clear message, from
# the option and from FALCON_PLACE), --falcon-check accepted by sbatch,
# salloc and srun, what the prolog sees (SPANK_FALCON_*), and the tasks'
# environment with and without a topology.json.
#
# Until falcon-prolog exists, a test prolog stands in for it: it records its
# environment and, when asked, writes the topology.json the real prolog
# writes (the project's topology contract).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/slurm-lib.sh"
s_need_slurm
s_need_spank

run=$t_tmp/run
mkdir -p "$run"
cat >"$t_tmp/prolog" <<PROLOG
#!/bin/sh
env | sort >"$t_tmp/prolog-env.\$SLURM_JOB_ID"
if [ -f "$t_tmp/want-topology" ]; then
	mkdir -p "$run/\$SLURM_JOB_ID"
	cat >"$run/\$SLURM_JOB_ID/topology.json" <<JSON
{"topology":"hybridGPUs","storage":"falconNVMe",
 "gpus":[{"bdf":"0000:3b:00.0","vendor_id":"10de","device_id":"1db4","location":"local"},
         {"bdf":"0000:86:00.0","vendor_id":"10de","device_id":"1db4","location":"falcon"}],
 "nvme":[{"bdf":"0000:87:00.0","vendor_id":"144d","device_id":"a824","location":"falcon",
          "dev":"/dev/nvme1n1"}],
 "matrix":[["X","F-L SYS"],["F-L SYS","X"]],
 "job_id":\$SLURM_JOB_ID,"cuda_visible_devices":"0,1"}
JSON
fi
exit 0
PROLOG
chmod 0755 "$t_tmp/prolog"
s_start --prolog "$t_tmp/prolog" --spank "$plugin" --spank-args "rundir=$run place=spread"

# Bad values: sbatch fails and says which option and what it accepts.
if out=$(sbatch --falcon-place=bogus --wrap true 2>&1); then
	t_fail "sbatch --falcon-place=bogus was accepted: $out"
fi
echo "$out" | grep -q -- "--falcon-place=bogus: expected pack, spread or any" ||
	t_fail "unclear message: $out"
t_ok "sbatch --falcon-place=bogus: $(echo "$out" | head -n1)"
if out=$(FALCON_CHECK=sometimes sbatch --wrap true 2>&1); then
	t_fail "FALCON_CHECK=sometimes was accepted: $out"
fi
echo "$out" | grep -q "FALCON_CHECK=sometimes: expected quick, full or off" ||
	t_fail "unclear message: $out"
t_ok "FALCON_CHECK=sometimes: $(echo "$out" | head -n1)"
if out=$(srun --falcon-check=bogus true 2>&1); then
	t_fail "srun --falcon-check=bogus was accepted: $out"
fi
t_ok "srun --falcon-check=bogus refused"
sbatch --help | grep -q -- "--falcon-place=pack|spread|any" || t_fail "not in sbatch --help"
sbatch --help | grep -A1 -- "--falcon-check" | grep -q "\[falcon\]" ||
	t_fail "help text does not start with [falcon]"

# --falcon-check=full accepted by all three; the prolog sees the options.
jid=$(sbatch --parsable --falcon-check=full --gres=falcon_gpu:4 -o "$t_tmp/out.%j" \
	--wrap 'env | grep -E "^(CUDA|FALCON)_" | sort')
s_wait_done "$jid"
[ "$(s_job_state "$jid")" = COMPLETED ] || { s_logs; t_fail "job $jid: $(s_job_state "$jid")"; }
grep -qx "CUDA_DEVICE_ORDER=PCI_BUS_ID" "$t_tmp/out.$jid" ||
	t_fail "task lacks CUDA_DEVICE_ORDER: $(cat "$t_tmp/out.$jid")"
if grep -q -E "^(CUDA_VISIBLE_DEVICES|FALCON_TOPOLOGY)" "$t_tmp/out.$jid"; then
	t_fail "a job without topology.json got falcon devices: $(cat "$t_tmp/out.$jid")"
fi
grep -qx "SPANK_FALCON_CHECK=full" "$t_tmp/prolog-env.$jid" ||
	t_fail "prolog lacks SPANK_FALCON_CHECK=full"
grep -qx "SPANK_FALCON_PLACE=spread" "$t_tmp/prolog-env.$jid" ||
	t_fail "prolog lacks the plugstack default SPANK_FALCON_PLACE=spread"
t_ok "sbatch --falcon-check=full --gres=falcon_gpu:4: CUDA_DEVICE_ORDER only; prolog sees SPANK_FALCON_CHECK=full SPANK_FALCON_PLACE=spread"

out=$(salloc --falcon-check=full --falcon-place=pack sh -c 'echo "job=$SLURM_JOB_ID"' 2>&1) ||
	t_fail "salloc --falcon-check=full: $out"
ajid=$(echo "$out" | sed -n 's/^job=//p')
[ -n "$ajid" ] || t_fail "salloc ran no command: $out"
i=0
until [ -f "$t_tmp/prolog-env.$ajid" ]; do
	i=$((i + 1)); [ $i -lt 150 ] || t_fail "no prolog ran for salloc job $ajid"; sleep 0.2
done
grep -qx "SPANK_FALCON_PLACE=pack" "$t_tmp/prolog-env.$ajid" ||
	t_fail "salloc's prolog lacks SPANK_FALCON_PLACE=pack"
t_ok "salloc --falcon-check=full --falcon-place=pack"

out=$(srun --falcon-check=full --gres=falcon_gpu:1 sh -c 'echo "order=$CUDA_DEVICE_ORDER"' 2>&1) ||
	t_fail "srun --falcon-check=full: $out"
echo "$out" | grep -qx "order=PCI_BUS_ID" || t_fail "srun task lacks CUDA_DEVICE_ORDER: $out"
t_ok "srun --falcon-check=full"

# With a topology.json the tasks get the job's GPUs, label, file and NVMe.
: >"$t_tmp/want-topology"
jid=$(FALCON_PLACE=any sbatch --parsable --gres=falcon_gpu:1 --gres=falcon_nvme:1 \
	-o "$t_tmp/out.%j" --wrap 'env | grep -E "^(CUDA|FALCON)_" | sort')
s_wait_done "$jid"
[ "$(s_job_state "$jid")" = COMPLETED ] || { s_logs; t_fail "job $jid: $(s_job_state "$jid")"; }
for want in CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=0,1 \
	FALCON_TOPOLOGY=hybridGPUs "FALCON_TOPOLOGY_FILE=$run/$jid/topology.json" \
	FALCON_NVME=/dev/nvme1n1; do
	grep -qx "$want" "$t_tmp/out.$jid" || t_fail "task lacks $want: $(cat "$t_tmp/out.$jid")"
done
grep -qx "SPANK_FALCON_PLACE=any" "$t_tmp/prolog-env.$jid" ||
	t_fail "FALCON_PLACE=any did not reach the prolog"
t_ok "task env from topology.json: $(tr '\n' ' ' <"$t_tmp/out.$jid")"

# A topology.json that breaks the contract fails the step, never runs it
# with the wrong GPUs.
jid=$(sbatch --parsable -H -o "$t_tmp/out.%j" --wrap 'echo ran')
mkdir -p "$run/$jid"
rm -f "$t_tmp/want-topology"
echo '{"cuda_visible_devices":"0;1"}' >"$run/$jid/topology.json"
scontrol release "$jid"
s_wait_done "$jid"
if grep -q ran "$t_tmp/out.$jid" 2>/dev/null; then
	t_fail "job $jid ran with a bad topology.json"
fi
grep -q 'spank_falcon: job [0-9]*: .*cuda_visible_devices' "$s_state"/log/slurmd-*.log ||
	{ s_logs; t_fail "no spank_falcon error in slurmd's log"; }
t_ok "bad topology.json: job $jid $(s_job_state "$jid"), reason in slurmd's log"

# srun inside a batch job (local context in an existing allocation): no job
# control environment to set, and nothing fails.
jid=$(sbatch --parsable --falcon-place=pack -o "$t_tmp/out.%j" \
	--wrap 'srun --falcon-check=off sh -c "echo inner=\$CUDA_DEVICE_ORDER"')
s_wait_done "$jid"
grep -qx "inner=PCI_BUS_ID" "$t_tmp/out.$jid" ||
	{ s_logs; t_fail "srun inside sbatch: $(cat "$t_tmp/out.$jid")"; }
t_ok "srun --falcon-check=off inside a batch job"

# Strict plugstack arguments: an unknown key stops sbatch with a message.
mkdir -p "$t_tmp/badconf"
sed "s|^PlugStackConfig=.*|PlugStackConfig=$t_tmp/badconf/plugstack.conf|" "$SLURM_CONF" \
	>"$t_tmp/badconf/slurm.conf"
echo "required $plugin rundir=$run colour=blue" >"$t_tmp/badconf/plugstack.conf"
if out=$(SLURM_CONF=$t_tmp/badconf/slurm.conf sbatch --wrap true 2>&1); then
	t_fail "sbatch ran with an unknown plugstack key: $out"
fi
echo "$out" | grep -q "unknown key 'colour'" || t_fail "unclear message: $out"
t_ok "unknown plugstack key: $(echo "$out" | head -n1)"
