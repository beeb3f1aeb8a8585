# shellcheck shell=sh
# scripts/lib.sh - shell helpers shared by scripts/quickstart.sh,
# scripts/cluster.sh and the tests (tests/lib.sh sources it): bounded waits,
# free ports, pid files.  Sourced; POSIX sh.  Messages start with "$prog: "
# (the caller's name; default: the script's file name); stop_pid also needs
# the caller's say MESSAGE.  sh has no local variables: the functions' own
# start with _l.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.

# wait_for [-p PID] SECONDS WHAT CMD... - run CMD (its output discarded)
# until it succeeds: return 0.  Between two tries it sleeps 0.2 s for the
# first 2 s, then 0.5 s; it gives up when it has slept SECONDS (a whole
# number) in all.  Most waits here are for Slurm (a job's state: each try an
# squeue, a munge credential and an RPC to slurmctld), and polling at 0.2 s
# for all of a 60 s wait was the largest CPU cost of the tests after the
# builds (about 17,000 Slurm client calls in a test-all run, 2026-11-29):
# the event is seen at most 0.5 s late, with 2.5x fewer tries.  The bound is
# the time slept, not the wall time: a try that itself takes seconds (a
# loaded machine) does not eat the waited thing's time.  Otherwise say on
# stderr what was awaited ("$prog: gave up waiting for WHAT ...") and return
# 1; the caller says what that means.  With -p, give up as soon as process
# PID (the one that was to bring CMD about, e.g. a daemon started with &)
# has ended.  CMD may be a shell function: it runs in this shell, so the
# variables it sets are seen after.
wait_for() {
	_lwf_pid=
	if [ "$1" = -p ]; then
		_lwf_pid=$2; shift 2
	fi
	_lwf_secs=$1 _lwf_what=$2
	shift 2
	_lwf_ds=0 # tenths of a second slept
	until "$@" >/dev/null 2>&1; do
		if [ -n "$_lwf_pid" ] && ! kill -0 "$_lwf_pid" 2>/dev/null; then
			echo "${prog:-${0##*/}}: gave up waiting for $_lwf_what: process $_lwf_pid ended" >&2
			return 1
		fi
		if [ $_lwf_ds -ge $((_lwf_secs * 10)) ]; then
			echo "${prog:-${0##*/}}: gave up waiting for $_lwf_what after $_lwf_secs s" >&2
			return 1
		fi
		if [ $_lwf_ds -lt 20 ]; then
			sleep 0.2; _lwf_ds=$((_lwf_ds + 2))
		else
			sleep 0.5; _lwf_ds=$((_lwf_ds + 5))
		fi
	done
}

# free_port - a TCP port free on 127.0.0.1 now, picked at random below the
# kernel's ephemeral range (/proc/sys/net/ipv4/ip_local_port_range).  Not
# from that range: the kernel hands its ports out as the local end of any
# outgoing connection, so a port from there that a script keeps (the demo's
# and the cluster's ports are kept across runs in their state directories)
# can be taken meanwhile, and the daemon cannot bind it when restarted.
# A port free now is not a port kept: the quickstart picks falcond's ports,
# then cluster.sh its own, before any of those daemons binds, so two picks
# could fall on one port and the daemon that starts second fails "Address
# already in use" (one way to a failure seen once, the quickstart's backup
# falcond unable to bind its port; what held it was not recorded).  Every pick
# is written to $FALCON_PORT_REGISTRY (default /tmp/falcon-free-ports,
# under flock) and no port listed there is picked again; the list starts
# over past 4000 ports (of the ~12,700 in the range).  Where the list
# cannot be written (another user's), the pick is only tested free.
free_port() {
	FALCON_PORT_REGISTRY=${FALCON_PORT_REGISTRY:-/tmp/falcon-free-ports} python3 -c '
import fcntl, os, random, socket
lo = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
try:
    reg = open(os.environ["FALCON_PORT_REGISTRY"], "a+")
    fcntl.flock(reg, fcntl.LOCK_EX)
    reg.seek(0)
    taken = {int(x) for x in reg.read().split() if x.isdigit()}
except OSError:
    reg, taken = None, set()
for _ in range(400):
    p = random.randrange(min(20000, lo - 1000), lo)
    if p in taken:
        continue
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p))
    except OSError:
        continue
    finally:
        s.close()
    if reg:
        if len(taken) >= 4000:
            reg.truncate(0)
        reg.write("%d\n" % p)
        reg.close()
    print(p)
    break
else:
    raise SystemExit("no free port below %d" % lo)'
}

# pid_of PIDFILE - the pid its first line names (digits only; may be empty).
pid_of() {
	head -n1 "$1" 2>/dev/null | tr -dc 0-9
}

# pid_alive NAME PIDFILE - true when PIDFILE names a live process whose
# command line contains NAME (so a recycled pid is not taken for ours).
pid_alive() {
	[ -s "$2" ] || return 1
	_lpa_pid=$(pid_of "$2")
	[ -n "$_lpa_pid" ] && [ -r "/proc/$_lpa_pid/cmdline" ] || return 1
	tr '\0' ' ' <"/proc/$_lpa_pid/cmdline" | grep -q -- "$1"
}

# pid_gone NAME PIDFILE - not pid_alive (a condition for wait_for).
pid_gone() {
	! pid_alive "$1" "$2"
}

# stop_pid NAME PIDFILE - TERM, wait up to 20 s, then KILL; removes PIDFILE
# and says "stopped NAME (pid P)" when something was running.
stop_pid() {
	if ! pid_alive "$1" "$2"; then
		rm -f "$2"
		return 0
	fi
	_lsp_pid=$(pid_of "$2")
	kill -TERM "$_lsp_pid" 2>/dev/null || true
	if ! wait_for 20 "$1 (pid $_lsp_pid) to stop" pid_gone "$1" "$2"; then
		say "$1 (pid $_lsp_pid) did not stop in 20 s: killing it"
		kill -KILL "$_lsp_pid" 2>/dev/null || true
		sleep 0.2
	fi
	rm -f "$2"
	say "stopped $1 (pid $_lsp_pid)"
}
