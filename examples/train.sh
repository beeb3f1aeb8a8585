#!/bin/sh
#SBATCH --job-name=falcon-train
#SBATCH --time=00:10:00
#
# train.sh - an example deep-learning training job for falcon-slurm:
#
#   sbatch --gres=falcon_gpu:4 examples/train.sh
#
# The prolog has put four chassis GPUs on this node's PCIe bus before the
# script starts; spank_falcon has set CUDA_VISIBLE_DEVICES to them (in PCI
# bus order, CUDA_DEVICE_ORDER=PCI_BUS_ID), FALCON_TOPOLOGY to the paper's
# Table III label and FALCON_TOPOLOGY_FILE to the job's topology.json.
# The script prints all that, then launches one training process per GPU
# with torchrun when python3 and PyTorch are there; else it says so and
# sleeps a few seconds, so the devices stay composed long enough to see
# them (`falconctl status`).  TRAIN_SCRIPT names the training program
# (default: a tiny synthetic DDP loop written below).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.

echo "== falcon job ${SLURM_JOB_ID:-?} on $(hostname -s)"
echo "FALCON_TOPOLOGY=${FALCON_TOPOLOGY:-}"
echo "CUDA_DEVICE_ORDER=${CUDA_DEVICE_ORDER:-}"
echo "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-}"
echo "FALCON_TOPOLOGY_FILE=${FALCON_TOPOLOGY_FILE:-}"
[ -z "${FALCON_NVME:-}" ] || echo "FALCON_NVME=$FALCON_NVME"

# The job's topology, as the prolog wrote it (kept in the job's output:
# the file goes away with the job).
if [ -n "${FALCON_TOPOLOGY_FILE:-}" ] && [ -r "$FALCON_TOPOLOGY_FILE" ]; then
	echo "== topology.json"
	cat "$FALCON_TOPOLOGY_FILE"
	echo
	echo "== end topology.json"
fi

# The node's PCIe view, as falconctl sees it (falcon.conf from $FALCON_CONF).
if command -v falconctl >/dev/null 2>&1; then
	echo "== falconctl topo"
	falconctl topo || echo "(falconctl topo failed: exit $?)"
	echo "== end falconctl topo"
else
	echo "(falconctl not in PATH: no topology printed)"
fi

# One process per GPU of the job.
ngpus=$(printf '%s' "${CUDA_VISIBLE_DEVICES:-}" | tr ',' '\n' | grep -c .)
[ "$ngpus" -gt 0 ] || ngpus=1
if command -v python3 >/dev/null 2>&1 && python3 -c 'import torch' 2>/dev/null &&
	command -v torchrun >/dev/null 2>&1; then
	script=${TRAIN_SCRIPT:-}
	if [ -z "$script" ]; then
		script=$(mktemp "${TMPDIR:-/tmp}/falcon-train.XXXXXX.py")
		trap 'rm -f "$script"' EXIT
		cat >"$script" <<'EOP'
# A synthetic data-parallel loop: a linear model, random data, NCCL when
# the GPUs are real, gloo on CPU otherwise.
import os, torch, torch.distributed as dist
cuda = torch.cuda.is_available()
dist.init_process_group("nccl" if cuda else "gloo")
rank = dist.get_rank()
dev = torch.device("cuda", int(os.environ["LOCAL_RANK"])) if cuda else torch.device("cpu")
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(1024, 1024).to(dev))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(20):
    x = torch.randn(64, 1024, device=dev)
    loss = model(x).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
if rank == 0:
    print("trained 20 steps on %d %s processes, loss %.4f" % (dist.get_world_size(), "GPU" if cuda else "CPU", loss.item()))
dist.destroy_process_group()
EOP
	fi
	echo "== torchrun --nproc_per_node=$ngpus $script"
	torchrun --standalone --nproc_per_node="$ngpus" "$script"
else
	echo "== no python3 with PyTorch here: would run torchrun --nproc_per_node=$ngpus train.py"
	sleep "${TRAIN_SLEEP:-5}"
fi
echo "== done"
