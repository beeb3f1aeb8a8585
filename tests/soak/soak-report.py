#!/usr/bin/env python3
# soak-report.py - the counts at the end of a soak run (tests/soak/soak.sh).
#
#   soak-report.py [--lifecycle|--fleet] DIR WALL_SECONDS
#
# DIR holds what soak.sh gathered: jobs (one "JOBID KIND GPUS NVME" line per
# submitted job), refused (one line per sbatch refused: "KIND expected|
# unexpected MESSAGE"), verdicts/ (soak-job.py's lines), sacct (sacct -D -X
# -P -o JobID,State of the run's jobs), simstate.json (falcon-sim GET
# /admin/state), ledger.json (falcond --dump-ledger), sinfo-R (sinfo -h -R -o '%N|%E'),
# reservations (scontrol -o show reservation; may be absent), squeue
# (squeue -h -o '%i|%T|%r'), admin.log (one line per action the stand-in
# admin took during the run), chaos.log (one line per kill, restart,
# chassis stop) and requeued-why (slurmctld.log's lines "... setting
# admin_comment to falcon:requeued=REASON for JobId=N": the reason
# falcon-prolog gave each requeue; may be absent).
#
# With --lifecycle (make soak-lifecycle, issue 32) DIR also holds life.log
# (one line per lifecycle action), tags.log (the run-time checks of
# soak.sh: "T wrong|ok WHAT"), tags (sacct -X -P -o JobID,State,AdminComment)
# and falcond-compose (falcond's "warning: compose job N on HOST (...):
# ERRNAME: ..." lines), and these count as failures too: nodes drained at
# the end, admin actions taken, and wrong tags: a job pending after Slurm
# requeued it that still gave its last topology (tags.log), a cancelled job
# tagged falcon:requeued= that was never requeued, a completed falcon job
# without falcon:topo= (or with another topology than it asked for), and
# a falcon:requeued=CAUSE that falcond's own errors for that job do not
# bear out (pool_short: noresource; chassis_timeout and chassis_slow:
# timeout, or no error at all: the prolog's request ran out while falcond
# was still at the chassis; chassis_busy: precondition; chassis_error: chassis; lease_busy:
# conflict; falcond_unreachable and falcond_unavailable: falcond killed by
# the soak or an error transport/server).
#
# With --fleet (make soak-fleet, issue 41: the lifecycle checks too) the
# chassis' states are simstate/CHASSIS.json, one per chassis, and a device
# is named CHASSIS:ID (soak-job.py's map mode; falcond's ledger names its
# chassis); DIR also holds times (sacct -X -P -o JobIDRaw,Submit,Start,
# End,State,AllocTRES), falcond-leases (falcond's "lease L: job N on H: K
# device(s) on C (...) in S s" lines), procs.log (soak.sh's samples "T NAME
# PID CPU_S RSS_KB" and "T load LOAD1 MEM_AVAILABLE_KB"), squeue-ids (squeue
# -h -o '%A|%T': each job's own id and state) and pool-gpus (the
# pool's GPUs), for the figures: jobs, GPU utilization (Slurm's
# allocations: falcon_gpu x (End - Start) over pool x wall), wait
# (Submit to Start) p50/p95, time-to-start (Submit to the job's own first
# moment, its devices on its bus) and the stretch from Slurm's Start to it
# beside falcond's compose time for the job (the chassis' own time: its
# requests at 0-5 s each) p50/p95, and each daemon's CPU and RSS.  These
# count as failures too: pool_short requeues, leases left at the end
# that are neither kept warm nor of a job still running (leaks), and
# devices taken from a running job (a "lost" verdict: right at the
# start, gone by the end) where no chassis restarted under it.
#
# Prints the counts; exits 1 if a correctness count is not zero: devices
# attached without a lease, devices in two jobs at once (overlapping
# start..end of the same slot in verdicts of two jobs, or attached..detached
# in falcond's device history), wrong mappings,
# oversized jobs accepted, jobs that failed their own check.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
import collections
import glob
import json
import os
import re
import sys
import time


def lines(path):
    try:
        with open(path) as f:
            return [x.rstrip("\n") for x in f if x.strip()]
    except OSError:
        return []


def load_json(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None


def verdicts(vdir):
    """{job: [dict per run of the job]} from the verdict files."""
    out = collections.defaultdict(list)
    for name in sorted(os.listdir(vdir)) if os.path.isdir(vdir) else []:
        for ln in lines(os.path.join(vdir, name)):
            head, _, detail = ln.partition(' detail="')
            v = dict(kv.split("=", 1) for kv in head.split())
            v["detail"] = detail.rstrip('"')
            out[int(v["job"])].append(v)
    return out


def overlaps(vs):
    """Pairs of runs of two different jobs that held the same slot at the
    same time: [(slot, job_a, job_b)]."""
    per_dev = collections.defaultdict(list)
    for job, runs in vs.items():
        for v in runs:
            if v["devices"] == "-" or v["result"] == "wrong":
                continue
            for d in v["devices"].split(","):
                per_dev[d].append((float(v["start"]), float(v["end"]), job))
    return [(d, a, b) for d, ivs in per_dev.items() for a, b in overlapping_jobs(ivs)]


def overlapping_jobs(ivs):
    """Pairs (job_a, job_b) of two jobs whose (start, end, job) intervals
    in ivs overlap."""
    pairs = []
    ivs = sorted(ivs)
    for i, (_, e1, j1) in enumerate(ivs):
        for s2, _, j2 in ivs[i + 1:]:
            if s2 >= e1:
                break
            if j1 != j2:
                pairs.append((j1, j2))
    return pairs


def history_overlaps(led):
    """From falcond's own device histories (ledger "devices"): pairs of
    entries of two jobs whose attached..detached overlap, both closed
    ([(device, job_a, job_b)]), and the entries left open (detached 0) that
    are not a current lease's ([(device, job)])."""
    current = {(x["chassis"], x["id"], le.get("job_id")) for le in led.get("leases", [])
               for x in le.get("devices", [])}
    found, open_left = [], []
    for dh in led.get("devices", []):
        ivs = []
        for h in dh.get("history", []):
            if not h.get("detached"):
                if (dh["chassis"], dh["device"], h["job_id"]) not in current:
                    open_left.append((dh["device"], h["job_id"]))
                continue
            ivs.append((h["attached"], h["detached"], h["job_id"]))
        found += [(dh["device"], a, b) for a, b in overlapping_jobs(ivs)]
    return found, open_left


# falcon:requeued=CAUSE (falcon-prolog's fp_wait_why) -> the falcond error
# names (falcon_err_name) that bear it out
CAUSE_ERRS = {
    "pool_short": {"noresource"},
    "chassis_timeout": {"timeout"},
    "chassis_slow": {"timeout"},
    "chassis_busy": {"precondition"},
    "chassis_error": {"chassis"},
    "lease_busy": {"conflict"},
    "falcond_unreachable": {"transport"},
    "falcond_unavailable": {"server"},
    # fp_wait_why's default: any other error of falcond's (an io of a lease
    # rolled back before it was written, ...)
    "compose": {"io", "nomem", "inval", "config", "parse", "notfound", "auth", "perm",
                "protocol", "pci", "degraded", "busy", "policy", "quarantined",
                "unsupported", "slurm", "munge", "check"},
}
# slurmctld.log's "... falcon:requeued=CAUSE for JobId=N", N also as
# "517_1(558)" (an array task) or "926+1(927)" (a hetjob component): the
# cause, the job as submitted, the task's or component's own id
REQUEUED_RE = re.compile(r"falcon:requeued=([A-Za-z0-9_]+).* JobId=([0-9]+)(?:[_+][0-9]+\(([0-9]+)\))?")
# falcond's refusal of a compose whose job's run has ended (compose.c
# compose_alive), on EpilogSlurmctld's word or on Slurm's
ENDED_RE = re.compile(r": notfound: compose: job [0-9]+ on \S+ ended \((its EpilogSlurmctld ran|Slurm's word)")
# the topology a completed job of a kind must have been given
KIND_TOPO = {"falconGPUs": "falconGPUs", "hybridGPUs": "hybridGPUs", "urgent": "falconGPUs",
             "array": "falconGPUs", "multinode": "falconGPUs", "hetjob": "falconGPUs"}
FALCON_KINDS = {"falconGPUs", "hybridGPUs", "urgent", "falconNVMe", "gpu+nvme", "timelimit",
                "array", "multinode", "hetjob"}


def job_of(field):
    """The submitted job of a sacct JobID: an array task's (N_K) and a
    hetjob component's (N+K) is N's; None if not a number."""
    try:
        return int(field.split("_")[0].split("+")[0])
    except ValueError:
        return None


def wrong_tags(d, jobs, requeues, chaos):
    """The --lifecycle tag checks: [(job or None, why)]."""
    bad = []
    for ln in lines(os.path.join(d, "tags.log")):
        f = ln.split(None, 2)
        if len(f) == 3 and f[1] == "wrong":
            bad.append((None, f[2]))
    errs = collections.defaultdict(set)
    for ln in lines(os.path.join(d, "falcond-compose")):
        m = re.search(r"compose job ([0-9]+) on \S+ \([^)]*\): ([a-z_]+): ", ln)
        # falcond refusing a request of a run Slurm has ended (compose.c
        # compose_alive: a request still queued when its prolog gave up
        # and the job was requeued) is no cause of that requeue
        if m and not ENDED_RE.search(ln):
            errs[int(m.group(1))].add(m.group(2))
    # the jobs whose prolog's own request to falcond ran out (the last try
    # of a chassis_slow wait, falcond still at the chassis)
    own_timeout = set()
    for f in glob.glob(os.path.join(d, "slurm-prolog-*.log")):
        for ln in lines(f):
            m = re.search(r"job ([0-9]+): compose on \S+: timed out: POST \S+: Timeout was reached", ln)
            if m:
                own_timeout.add(int(m.group(1)))
    for ln in lines(os.path.join(d, "tags")):
        f = (ln.split("|") + ["", ""])[:3]
        jid = job_of(f[0])
        if jid is None or jid not in jobs or jobs[jid][0] == "too-big":
            continue
        st, tag, kind = f[1].split()[0] if f[1] else "", f[2], jobs[jid][0]
        if st == "CANCELLED" and "falcon:requeued=" in tag and not requeues[jid]:
            bad.append((jid, "cancelled, never requeued, tagged '%s'" % tag))
        if st == "COMPLETED" and kind in FALCON_KINDS and kind != "timelimit":
            m = re.search(r"falcon:topo=([A-Za-z]+)", tag)
            nvme = re.search(r"falcon:(\S*,)?nvme=falcon\b", tag)
            if kind == "falconNVMe":
                # no GPU: the tag has no topo= (Table III's GPU label), its
                # storage only
                if m or not nvme:
                    bad.append((jid, "completed falconNVMe job tagged '%s'" % tag))
            elif not m:
                bad.append((jid, "completed %s job tagged '%s'" % (kind, tag)))
            elif kind in KIND_TOPO and m.group(1) != KIND_TOPO[kind]:
                bad.append((jid, "completed %s job tagged %s" % (kind, m.group(1))))
            elif kind == "gpu+nvme" and not nvme:
                bad.append((jid, "completed gpu+nvme job tagged '%s'" % tag))
    for ln in lines(os.path.join(d, "requeued-why")):
        m = REQUEUED_RE.search(ln)
        if not m or int(m.group(2)) not in jobs:
            continue
        # an array task or a hetjob component ("JobId=517_1(558)",
        # "JobId=926+1(927)"): falcond knows it by its own id, in brackets
        cause, jid, own = m.group(1), int(m.group(2)), int(m.group(3) or m.group(2))
        want = CAUSE_ERRS.get(cause)
        if want is None:
            bad.append((jid, "requeued=%s: not a cause falcon-prolog gives" % cause))
        elif cause in ("chassis_slow", "chassis_timeout") and (not errs[own] or own in own_timeout):
            # the prolog's own request ran out while falcond was still at
            # the chassis (it logs no error then, or was killed), whatever
            # an earlier try met
            pass
        elif not (errs[own] & want) and not (cause.startswith("falcond_") and chaos["falcond-kill"]):
            bad.append((jid, "requeued=%s, but falcond's errors for it%s: %s"
                        % (cause, "" if own == jid else " (job %d)" % own,
                           ", ".join(sorted(errs[own])) or "none")))
    return bad


def pct(a, p):
    """The p-th percentile of the sorted list a (nearest rank); nan if empty."""
    return a[min(len(a) - 1, int(round(p / 100.0 * (len(a) - 1))))] if a else float("nan")


def epoch(s):
    """sacct's local time (2026-11-29T07:01:02) in seconds; None if none."""
    try:
        return time.mktime(time.strptime(s, "%Y-%m-%dT%H:%M:%S"))
    except (ValueError, OverflowError):
        return None


def fleet_figures(d, wall, vs, p):
    """--fleet: jobs, utilization, waits, time-to-start against falcond's
    compose time (the chassis'), daemons' CPU and RSS; printed with p."""
    rows = [(ln.split("|") + [""] * 6)[:6] for ln in lines(os.path.join(d, "times"))]
    pool = float((lines(os.path.join(d, "pool-gpus")) or ["0"])[0] or 0)
    gpu_s, waits, started, submit, start = 0.0, [], 0, {}, {}
    for jid, sub, st, end, state, tres in rows:
        if not jid.isdigit():
            continue
        t_sub, t_st, t_end = epoch(sub), epoch(st), epoch(end)
        m = re.search(r"gres/falcon_gpu=([0-9]+)", tres)
        if t_st and t_end and m:
            gpu_s += int(m.group(1)) * (t_end - t_st)
        if t_sub and t_st:
            started += 1
            waits.append(t_st - t_sub)
            submit[int(jid)], start[int(jid)] = t_sub, t_st
    waits.sort()
    p("soak: fleet: jobs %d (array tasks and hetjob components one each), started %d; "
      "GPU utilization %.0f%% (%.1f GPU-h allocated of %d pool GPUs x %.0f s)"
      % (len(rows), started, 100.0 * gpu_s / (pool * wall) if pool and wall else float("nan"),
         gpu_s / 3600.0, pool, wall))
    p("soak: fleet: wait (submit to start) p50 %.1f s p95 %.1f s" % (pct(waits, 50), pct(waits, 95)))
    chassis_s = collections.defaultdict(float)
    for ln in lines(os.path.join(d, "falcond-leases")):
        m = re.search(r"lease \S+: job ([0-9]+) on \S+: [0-9]+ device\(s\) on \S+ .* in ([0-9.]+) s", ln)
        if m:
            chassis_s[int(m.group(1))] += float(m.group(2))
    tts, stretch, comp, ratio = [], [], [], []
    for j, runs in vs.items():
        first = [float(v["start"]) for v in runs if v.get("restart") == "0"]
        if not first or j not in submit or j not in chassis_s:
            continue
        t0 = min(first)
        tts.append(t0 - submit[j])
        stretch.append(t0 - start[j])
        comp.append(chassis_s[j])
        if chassis_s[j] > 0:
            ratio.append((t0 - start[j]) / chassis_s[j])
    for a in (tts, stretch, comp, ratio):
        a.sort()
    p("soak: fleet: time-to-start (submit to the job's devices on its bus) p50 %.1f s p95 %.1f s; "
      "Slurm's start to them p50 %.1f s p95 %.1f s; the chassis' own time (falcond's compose "
      "of the job) p50 %.1f s p95 %.1f s; start-to-devices over chassis time p50 %.2fx p95 "
      "%.2fx (%d jobs composed at their first start)"
      % (pct(tts, 50), pct(tts, 95), pct(stretch, 50), pct(stretch, 95), pct(comp, 50),
         pct(comp, 95), pct(ratio, 50), pct(ratio, 95), len(tts)))
    cpu, rss, first_t, last_t, load, mem = {}, collections.defaultdict(list), None, None, [], []
    for ln in lines(os.path.join(d, "procs.log")):
        f = ln.split()
        if len(f) == 4 and f[1] == "load":
            load.append(float(f[2]))
            mem.append(int(f[3]))
            continue
        if len(f) != 5:
            continue
        t, name, pid, cs, rk = int(f[0]), f[1], f[2], float(f[3]), int(f[4] or 0)
        first_t = t if first_t is None else first_t
        last_t = t
        c = cpu.setdefault((name, pid), [cs, cs])
        c[1] = cs
        rss[name].append((t, rk))
    span = (last_t - first_t) if first_t is not None and last_t != first_t else 0
    for name in sorted({n for n, _ in cpu}):
        s_cpu = sum(b - a for (n, _), (a, b) in cpu.items() if n == name)
        per_t = collections.defaultdict(int)
        for t, r in rss[name]:
            per_t[t] += r
        r = sorted(per_t.values())
        p("soak: fleet: %s CPU %.0f s in %.0f s sampled (%.1f%% of a core, %.0f s an hour), RSS "
          "p50 %.1f MiB max %.1f MiB" % (name, s_cpu, span, 100.0 * s_cpu / span if span else 0,
                                          3600.0 * s_cpu / span if span else 0,
                                          pct(r, 50) / 1024.0, (r[-1] if r else 0) / 1024.0))
    tk, outs = [], []
    for ln in lines(os.path.join(d, "chaos.log")):
        m = re.search(r" falcond-takeover .* after ([0-9]+) s", ln)
        if m:
            tk.append(int(m.group(1)))
        m = re.search(r" chassis-(pause|restart) (\S+) ([0-9]+) s", ln)
        if m:
            outs.append("%s %s s" % (m.group(2), m.group(3)))
    tk.sort()
    p("soak: fleet: falcond takeovers %d, the standby serving after p50 %.0f s max %.0f s; "
      "chassis outages: %s" % (len(tk), pct(tk, 50), tk[-1] if tk else float("nan"),
                               ", ".join(outs) or "none"))
    takeover_phases(d, p)
    if load:
        p("soak: fleet: load p50 %.1f max %.1f; memory available min %.1f GiB"
          % (pct(sorted(load), 50), max(load), min(mem) / 1048576.0))


def takeover_phases(d, p):
    """Each takeover from falcond's timed logs (--log-time, local time, as
    the report's TZ reads it): from the SIGKILL (chaos.log) to the new
    active one's lock ("active: holding"), to each chassis served again
    ("start-up reconcile: chassis C served from now on", falcond's own
    first pass of C), and to the whole start-up pass ("start-up reconcile
    done": what "serving after" above waits for); p prints a line."""
    kills = []
    for ln in lines(os.path.join(d, "chaos.log")):
        f = ln.split()
        if len(f) > 1 and f[1] == "falcond-kill":
            kills.append(int(f[0]))
    ev = []
    for name in ("falcond.log", "falcond-b.log"):
        for ln in lines(os.path.join(d, name)):
            m = re.match(r"\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.(\d{3})\] falcond: "
                         r"(active: holding|start-up reconcile: chassis (\S+) served from now on"
                         r"|start-up reconcile done)", ln)
            if not m:
                continue
            t = time.mktime(time.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S")) + \
                int(m.group(2)) / 1000.0
            kind = "lock" if m.group(3).startswith("active") else \
                "done" if m.group(3).endswith("done") else "chassis"
            ev.append((t, kind, m.group(4)))
    ev.sort()
    lock, served, done = [], [], []
    for k in kills:
        after = [e for e in ev if e[0] >= k]
        locks = [e for e in after if e[1] == "lock"]
        if not locks or locks[0][0] - k > 900:
            continue
        t_lock = locks[0][0]
        nxt = [e[0] for e in locks[1:]]
        end = nxt[0] if nxt else float("inf")
        lock.append(t_lock - k)
        served.extend(e[0] - k for e in after if e[1] == "chassis" and t_lock <= e[0] < end)
        fin = [e[0] for e in after if e[1] == "done" and t_lock <= e[0] < end]
        if fin:
            done.append(fin[0] - k)
    if not lock:
        p("soak: fleet: takeover phases: none read (falcond's log without --log-time?)")
        return
    lock.sort()
    served.sort()
    done.sort()
    p("soak: fleet: takeover phases (from the SIGKILL): the lock taken p50 %.1f s max %.1f s; "
      "each chassis served again p50 %.1f s p95 %.1f s max %.1f s (%d chassis passes); the "
      "whole start-up pass done p50 %.1f s max %.1f s"
      % (pct(lock, 50), lock[-1], pct(served, 50), pct(served, 95),
         served[-1] if served else float("nan"), len(served), pct(done, 50),
         done[-1] if done else float("nan")))


def main():
    args = sys.argv[1:]
    fleet = bool(args) and args[0] == "--fleet"
    lifecycle = bool(args) and args[0] in ("--lifecycle", "--fleet")
    if lifecycle:
        args = args[1:]
    d, wall = args[0], float(args[1])
    jobs = {}
    for ln in lines(os.path.join(d, "jobs")):
        jid, kind, g, n = ln.split()
        jobs[int(jid)] = (kind, int(g), int(n))
    refused = lines(os.path.join(d, "refused"))
    state = {}           # job -> final state
    requeues = collections.Counter()
    for ln in lines(os.path.join(d, "sacct")):
        f = ln.split("|")
        jid = job_of(f[0])
        if jid is None or jid not in jobs:
            continue
        if f[1].startswith("REQUEUED"):
            requeues[jid] += 1
        state[jid] = f[1].split()[0]
    squeue = {}
    for ln in lines(os.path.join(d, "squeue")):
        jid, st, reason = (ln.split("|") + ["", ""])[:3]
        if jid.isdigit() and int(jid) in jobs:
            squeue[int(jid)] = (st, reason)
            state[int(jid)] = st
    why = collections.Counter()
    for ln in lines(os.path.join(d, "requeued-why")):
        m = REQUEUED_RE.search(ln)
        if m and int(m.group(2)) in jobs:
            why[m.group(1)] += 1
    vs = verdicts(os.path.join(d, "verdicts"))
    # a chassis restart (falcon-sim restarted: a power cycle, its zones
    # lost) takes the running jobs' devices away: a job that finds them
    # gone lost them, its mapping was not wrong (chaos.log names the jobs
    # running at each restart)
    restarted = set()
    for ln in lines(os.path.join(d, "chaos.log")):
        m = re.match(r"\S+ chassis-restart .*running jobs: ([0-9 ]*)$", ln)
        if m:
            restarted.update(int(x) for x in m.group(1).split())
    gone = re.compile(r"^\S+: no device of the chassis attached to \S+ there$|"
                      r"^\S+ \(\S+\): attached but not on the bus$")
    for j, runs in vs.items():
        for v in runs:
            if (v["result"] == "wrong" and j in restarted and v["detail"] and
                    all(gone.match(x) for x in v["detail"].split("; "))):
                v["result"] = "lost"
                v["detail"] = "chassis restarted under it: " + v["detail"]
    results = collections.Counter(v["result"] for runs in vs.values() for v in runs)
    wrong = [(j, v["detail"]) for j, runs in vs.items() for v in runs if v["result"] == "wrong"]
    ovl = overlaps(vs)

    led = load_json(os.path.join(d, "ledger.json")) or {"leases": [], "quarantine": []}
    unleased = []
    if fleet:
        # one state per chassis, simstate/C.json; devices named C:ID
        sdir = os.path.join(d, "simstate")
        names = sorted(os.listdir(sdir)) if os.path.isdir(sdir) else []
        sims = {n[:-5]: load_json(os.path.join(sdir, n)) for n in names if n.endswith(".json")}
        sim = None if not sims or None in sims.values() else sims
        leased = {"%s:%s" % (x["chassis"], x["id"]) for le in led.get("leases", [])
                  for x in le.get("devices", [])}
        for c, st in (sim or {}).items():
            unleased += ["%s:%s" % (c, dev["id"]) for dev in st["devices"]
                         if dev.get("owner") and "%s:%s" % (c, dev["id"]) not in leased]
    else:
        sim = load_json(os.path.join(d, "simstate.json"))
        # by slot id: the soak has one chassis, whose Redfish id (falcon-sim's
        # "chassis", e.g. falcon1) is not its falcon.conf ChassisName (c1)
        leased = {x["id"] for le in led.get("leases", []) for x in le.get("devices", [])}
        if sim is not None:
            for dev in sim["devices"]:
                if dev.get("owner") and dev["id"] not in leased:
                    unleased.append(dev["id"])
    hovl, hopen = history_overlaps(led)
    running = {j for j, (st, _) in squeue.items() if st in ("RUNNING", "COMPLETING")}
    pending = {j: r for j, (st, r) in squeue.items() if st == "PENDING"}
    held = {j: r for j, r in pending.items() if "Held" in r}
    drained = lines(os.path.join(d, "sinfo-R"))
    quarantined = led.get("quarantine", [])
    # Slurm reservations left (a quarantine may become one: issue 11)
    resv = [x for x in lines(os.path.join(d, "reservations")) if x.startswith("ReservationName=")]
    admin = collections.Counter(ln.split()[1] for ln in lines(os.path.join(d, "admin.log")))
    chaos = collections.Counter(ln.split()[1] for ln in lines(os.path.join(d, "chaos.log")))
    oversized = [j for j, (k, _, _) in jobs.items() if k == "too-big"]
    finals = collections.Counter(state.get(j, "UNKNOWN") for j in jobs if j not in oversized)
    failed_check = [j for j in jobs if state.get(j) == "FAILED" and
                    any(v["result"] == "wrong" for v in vs.get(j, []))]

    p = print
    p("soak: wall time %.0f s" % wall)
    p("soak: jobs submitted %d (accepted), refused at submit %d (%d expected: too big, %d not)"
      % (len(jobs), len(refused), sum(1 for r in refused if " expected " in r),
         sum(1 for r in refused if " unexpected " in r)))
    p("soak: final states: %s" % ", ".join("%s %d" % kv for kv in sorted(finals.items())))
    p("soak: completed %d, requeued %d (jobs %d), failed %d, still running %d"
      % (finals["COMPLETED"], sum(requeues.values()), len(requeues),
         sum(n for s, n in finals.items() if s in ("FAILED", "NODE_FAIL", "TIMEOUT",
                                                    "CANCELLED", "BOOT_FAIL", "OUT_OF_MEMORY")),
         len(running)))
    p("soak: requeue reasons (falcon-prolog's AdminComment): %s; requeues without one: %d"
      % (", ".join("%s %d" % kv for kv in sorted(why.items())) or "none",
         max(0, sum(requeues.values()) - sum(why.values()))))
    p("soak: verdicts: %s" % (", ".join("%s %d" % kv for kv in sorted(results.items())) or "none"))
    p("soak: chaos: %s" % (", ".join("%s %d" % kv for kv in sorted(chaos.items())) or "none"))
    p("soak: admin actions taken during the run: %s"
      % (", ".join("%s %d" % kv for kv in sorted(admin.items())) or "none"))
    p("soak: admin actions needed now: drained nodes %d, held jobs %d, quarantined devices %d, "
      "Slurm reservations %d, jobs left pending %d"
      % (len(drained), len(held), len(quarantined), len(resv), len(pending)))
    for ln in drained:
        p("soak:   drained: %s" % ln)
    for q in quarantined:
        p("soak:   quarantined: %s" % json.dumps(q))
    for x in resv:
        p("soak:   reservation: %s" % x[:200])
    for j, r in sorted(pending.items())[:10]:
        p("soak:   pending: job %d (%s)" % (j, r))
    if lifecycle:
        life = collections.Counter(ln.split()[1] for ln in lines(os.path.join(d, "life.log")))
        p("soak: lifecycle actions: %s" % (", ".join("%s %d" % kv for kv in sorted(life.items()))
                                            or "none"))
        tags_wrong = wrong_tags(d, jobs, requeues, chaos)
        p("soak: tags checked: %d final, %d while pending after a requeue"
          % (sum(1 for ln in lines(os.path.join(d, "tags"))
                 if ln.split("|")[0].isdigit() and int(ln.split("|")[0]) in jobs),
             len(lines(os.path.join(d, "tags.log")))))
    bad = {
        "devices attached without a lease": len(unleased),
        "devices in two jobs": len(ovl),
        "devices in two leases at once (falcond's history)": len(hovl),
        "wrong mappings": len(wrong),
        "oversized jobs accepted": len(oversized),
        "jobs failed by their own check": len(failed_check),
    }
    if lifecycle:
        bad["drained nodes"] = len(drained)
        bad["admin actions"] = sum(admin.values())
        bad["wrong tags"] = len(tags_wrong)
    left = []
    if fleet:
        fleet_figures(d, wall, vs, p)
        # a lease at the end neither kept warm nor of a running job: leaked
        live = {int(f[0]) for f in (ln.split("|") for ln in lines(os.path.join(d, "squeue-ids")))
                if f[0].isdigit() and len(f) > 1 and f[1] in ("RUNNING", "COMPLETING", "CONFIGURING")}
        left = [le for le in led.get("leases", []) if le.get("state", "active") != "kept" and
                int(le.get("job_id", -1)) not in live]
        bad["pool_short requeues"] = why["pool_short"]
        # "lost" not explained by a chassis restart (those became lost
        # above only when every problem was a device gone): the devices
        # were taken from a running job
        taken = [(j, v["detail"]) for j, runs in vs.items() for v in runs
                 if v["result"] == "lost" and j not in restarted]
        bad["devices taken from a running job (lost, no chassis restart)"] = len(taken)
        for j, det in taken[:10]:
            p("soak:   taken from running job %d: %s" % (j, det[:300]))
        bad["leases left (not kept, no job running)"] = len(left)
        # a falcond started again that could not serve (no standby from
        # then on: every takeover waits for the killed one's restart)
        failed = [ln for name in ("falcond.log", "falcond-b.log")
                  for ln in lines(os.path.join(d, name)) if "falcond: error: cannot listen" in ln]
        bad["falcond starts failed"] = len(failed)
        for ln in failed[:5]:
            p("soak:   falcond start failed: %s" % ln[:300])
    if sim is None:
        p("soak: chassis state unreadable at the end: devices without a lease not counted")
    for k, v in bad.items():
        p("soak: %s: %d" % (k, v))
    for x in unleased:
        p("soak:   attached without a lease: %s" % x)
    for le in left[:10]:
        p("soak:   lease left: %s job %s on %s (%s)" % (le.get("id"), le.get("job_id"),
                                                   le.get("host"), le.get("state", "active")))
    for dv, a, b in ovl[:20]:
        p("soak:   %s in jobs %d and %d at once" % (dv, a, b))
    for dv, a, b in hovl[:20]:
        p("soak:   %s in the leases of jobs %d and %d at once (falcond's history)" % (dv, a, b))
    p("soak: history entries left open (not a current lease): %d" % len(hopen))
    for dv, j in hopen[:10]:
        p("soak:   %s of job %d never detached in falcond's history" % (dv, j))
    for j, det in wrong[:20]:
        p("soak:   wrong mapping: job %d: %s" % (j, det))
    for j in oversized:
        p("soak:   oversized job %d accepted" % j)
    for j, why in (tags_wrong if lifecycle else [])[:20]:
        p("soak:   wrong tag: %s%s" % ("job %d: " % j if j else "", why))
    ok = not any(bad.values())
    p("soak: %s" % ("PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
