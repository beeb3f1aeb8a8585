#!/usr/bin/env python3
# soak-job.py - the batch script of every soak job (tests/soak/soak.sh):
# from inside the job, check that the PCIe devices it was given are its
# lease's slots, hold them a while, check again, and write one verdict line.
#
#   soak-job.py VERDICT_DIR SIM_PORT_FILE LEDGER SIM_HOST GPUS NVME SECONDS
#
# GPUS/NVME: the falcon_gpu/falcon_nvme counts the job asked for.  The
# devices are read from the job's topology.json ($FALCON_TOPOLOGY_FILE, set
# by spank_falcon), the lease from falcond's ledger (LEDGER: the StateDir,
# read as root with `$FALCOND --dump-ledger` -- falcond need not be up: it
# merges ledger.json and ledger.log -- or a file of that JSON), and which device
# sits in which slot attached to which host from falcon-sim's GET
# /admin/state (the chassis' own view: doc/falcon-sim.1).  A device of the
# job matches when the chassis has it attached to SIM_HOST (the sim's name
# of this node), at the job's BDF, and the job's lease holds that slot.
#
# With SIM_HOST "-" (make soak-fleet: many nodes, many chassis) SIM_PORT_FILE
# is a map of the fleet instead, one line per Slurm node
#   NODE CHASSIS SIM_URL SIM_HOST RUNDIR NETNS
# and the job looks up its own node ($SLURMD_NODENAME: the batch script's
# node, or each node of an srun over a multi-node job): that node's
# chassis (its admin API at SIM_URL, read in the network namespace NETNS
# with nsenter(1): falcon-sim answers loopback clients only, and the node
# has a namespace of its own) and sim host, its lease (the ledger's leases of the job on that
# host), its topology.json in RUNDIR (FALCON_TOPOLOGY_FILE and
# CUDA_VISIBLE_DEVICES count only when spank_falcon set them from there:
# the fleet's nodes share one plugstack.conf, and so one RunDir for
# spank_falcon); devices are named CHASSIS:ID and the verdict file is
# <job>.<restart count>.<node>.  $SOAK_JOB_ID, when set, is the job
# (a hetjob's step carries the leader's SLURM_JOB_ID on every component's
# node: the batch script passes each component's own id).
#
# The verdict, VERDICT_DIR/<job>.<restart count>:
#   job=J restart=R start=T0 end=T1 result=ok|wrong|lost|unverified
#   devices=drawer1_slot2,... detail="..."
# T0/T1 (seconds since the epoch, float) bound the time the job held the
# devices; "wrong": a device not the lease's, not attached to this host or
# at another BDF, or a count other than asked; "lost": right at the start,
# gone by the end (the chassis restarted under the job); "unverified": the
# chassis or the ledger could not be read.  Exit status 0 unless "wrong".
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
import json
import os
import subprocess
import sys
import time
import urllib.request


def sim_state(port_file, deadline, netns=None):
    """falcon-sim's /admin/state (its port in port_file, or its URL, read
    in the network namespace netns when given), retried (the chassis may
    be down) until deadline; None if it never answered."""
    err = None
    while True:
        try:
            if netns:
                out = subprocess.run(["nsenter", "--net=" + netns, "curl", "-sSf", "-m", "10",
                                      port_file + "/admin/state"], capture_output=True,
                                     timeout=30)
                if out.returncode == 0:
                    return json.loads(out.stdout), None
                err = out.stderr.decode(errors="replace").strip()
            else:
                if port_file.startswith("http://"):
                    url = port_file
                else:
                    url = "http://127.0.0.1:%s" % open(port_file).read().strip()
                with urllib.request.urlopen(url + "/admin/state", timeout=10) as r:
                    return json.load(r), None
        except (OSError, ValueError, subprocess.SubprocessError) as e:
            err = str(e)
        if time.time() >= deadline:
            return None, err
        time.sleep(1)


def lease_of(ledger, job, host=None):
    """The ids of the devices of the job's lease in falcond's ledger (on
    host, named CHASSIS:ID, when host is given).  A
    lease of the job that is not its allocation is left out: "settling" (a
    compose a killed falcond left in flight, held until it is rolled back,
    falcond.8 RECONCILE; the job's retry got another lease), "composing",
    "closing" and "kept" (its devices kept warm after a run of the job
    ended, keep.h: a requeued job's next run has a lease of its own; make
    soak-fleet judged such a job "lease holds 6 devices")."""
    try:
        if os.path.isdir(ledger):
            out = subprocess.run([os.environ.get("FALCOND", "falcond"), "--dump-ledger",
                                  ledger], capture_output=True, check=True, timeout=30)
            led = json.loads(out.stdout)
        else:
            led = json.load(open(ledger))
    except (OSError, ValueError, subprocess.SubprocessError) as e:
        return None, "ledger %s: %s" % (ledger, e)
    ids = set()
    for lease in led.get("leases", []):
        if lease.get("state", "active") in ("settling", "composing", "closing", "kept"):
            continue
        if int(lease.get("job_id", -1)) != job:
            continue
        if host is None:
            ids.update(d["id"] for d in lease.get("devices", []))
        elif lease.get("host") == host:
            ids.update("%s:%s" % (d["chassis"], d["id"]) for d in lease.get("devices", []))
    return ids, None


def falcon_bdfs(topo):
    """The BDFs of the chassis devices in topology.json (gpus and nvme
    whose location is not "local")."""
    out = []
    for key in ("gpus", "nvme"):
        for d in topo.get(key) or []:
            if d.get("location") != "local":
                out.append(d["bdf"])
    return out


def check(state, host, bdfs, lease, prefix=""):
    """Map the job's BDFs to chassis slots (ids prefix + the chassis' id);
    returns (ids, problems)."""
    by_bdf = {}
    for d in state["devices"]:
        if d.get("host") == host and d.get("bdf"):
            by_bdf[d["bdf"].lower()] = d
    ids, problems = [], []
    for b in bdfs:
        d = by_bdf.get(b.lower())
        if d is None:
            problems.append("%s: no device of the chassis attached to %s there" % (b, host))
            continue
        did = prefix + d["id"]
        ids.append(did)
        if not d.get("present"):
            problems.append("%s (%s): attached but not on the bus" % (b, did))
        if lease is not None and did not in lease:
            problems.append("%s (%s): not a slot of the job's lease %s" % (b, did, sorted(lease)))
    return ids, problems


def main():
    vdir, port_file, ledger, host = sys.argv[1:5]
    want_gpu, want_nvme, hold = int(sys.argv[5]), int(sys.argv[6]), float(sys.argv[7])
    job = int(os.environ.get("SOAK_JOB_ID") or os.environ.get("SLURM_JOB_ID", "0"))
    restart = os.environ.get("SLURM_RESTART_COUNT", "0")
    t0 = time.time()
    result, detail, ids = "ok", [], []
    topo_file = os.environ.get("FALCON_TOPOLOGY_FILE", "")
    node, prefix, lease_host, vname = None, "", None, "%d.%s" % (job, restart)
    spank, netns = True, None
    if host == "-":
        node = os.environ.get("SLURMD_NODENAME", "")
        row = [ln.split() for ln in open(port_file) if ln.split()[:1] == [node]]
        if not row:
            result = "wrong"
            detail.append("node %r not in the fleet's map %s" % (node, port_file))
            row = [[node, "?", "/nonexistent", "?", "/nonexistent", "-"]]
        _, chassis, port_file, host, rundir, netns = (row[0] + ["-"])[:6]  # port_file: the URL
        netns = None if netns == "-" else netns
        prefix, lease_host, vname = chassis + ":", node, "%s.%s" % (vname, node)
        mine = os.path.join(rundir, str(job), "topology.json")
        if topo_file != mine:
            topo_file, spank = mine, False
    try:
        topo = json.load(open(topo_file))
    except (OSError, ValueError) as e:
        topo = None
        if want_gpu or want_nvme:
            result = "wrong"
            detail.append("topology.json (%r): %s" % (topo_file, e))
    if topo is not None:
        bdfs = falcon_bdfs(topo)
        ngpu = sum(1 for d in topo.get("gpus") or [] if d.get("location") != "local")
        nnvme = len(bdfs) - ngpu
        if (ngpu, nnvme) != (want_gpu, want_nvme):
            result = "wrong"
            detail.append("asked %d GPU + %d NVMe, topology.json has %d + %d"
                          % (want_gpu, want_nvme, ngpu, nnvme))
        cvd = os.environ.get("CUDA_VISIBLE_DEVICES", "")
        if spank and ngpu and len([x for x in cvd.split(",") if x]) < ngpu:
            result = "wrong"
            detail.append("CUDA_VISIBLE_DEVICES=%r for %d chassis GPUs" % (cvd, ngpu))
        lease, lerr = lease_of(ledger, job, lease_host)
        state, serr = sim_state(port_file, t0 + 60, netns)
        if lerr or state is None:
            if result == "ok":
                result = "unverified"
            detail.append(lerr or "chassis: %s" % serr)
        else:
            if len(lease) != want_gpu + want_nvme:
                result = "wrong"
                detail.append("lease holds %d devices: %s" % (len(lease), sorted(lease)))
            ids, problems = check(state, host, bdfs, lease, prefix)
            if problems:
                result = "wrong"
                detail.extend(problems)
        time.sleep(hold)
        if bdfs and result == "ok":
            state, serr = sim_state(port_file, time.time() + 60, netns)
            if state is not None:
                ids2, problems = check(state, host, bdfs, None, prefix)
                if problems or sorted(ids2) != sorted(ids):
                    result = "lost"
                    detail.extend(problems or ["slots now %s" % ids2])
    else:
        time.sleep(hold)
    t1 = time.time()
    line = 'job=%d restart=%s start=%.3f end=%.3f result=%s devices=%s detail="%s"\n' % (
        job, restart, t0, t1, result, ",".join(ids) or "-",
        "; ".join(detail).replace('"', "'"))
    with open(os.path.join(vdir, vname), "w") as f:
        f.write(line)
    sys.stdout.write(line)
    return 1 if result == "wrong" else 0


if __name__ == "__main__":
    sys.exit(main())
