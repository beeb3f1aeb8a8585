# scripts/daemon-lib.sh - pid-file helpers shared by scripts/cluster.sh and
# scripts/quickstart.sh (sourced; the caller defines say MESSAGE).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.

# pid_alive NAME PIDFILE - true when PIDFILE names a live process whose
# command line contains NAME (so a recycled pid is not taken for ours).
pid_alive() {
	[ -s "$2" ] || return 1
	p=$(head -n1 "$2" 2>/dev/null | tr -dc 0-9)
	[ -n "$p" ] && [ -r "/proc/$p/cmdline" ] || return 1
	tr '\0' ' ' <"/proc/$p/cmdline" | grep -q -- "$1"
}

# stop_pid NAME PIDFILE - TERM, wait up to 20 s, then KILL; removes PIDFILE
# and says "stopped NAME (pid P)" when something was running.
stop_pid() {
	if ! pid_alive "$1" "$2"; then
		rm -f "$2"
		return 0
	fi
	p=$(head -n1 "$2" 2>/dev/null | tr -dc 0-9)
	kill -TERM "$p" 2>/dev/null || true
	i=0
	while pid_alive "$1" "$2" && [ $i -lt 200 ]; do
		sleep 0.1; i=$((i + 1))
	done
	if pid_alive "$1" "$2"; then
		say "$1 (pid $p) did not stop in 20 s: killing it"
		kill -KILL "$p" 2>/dev/null || true
		sleep 0.2
	fi
	rm -f "$2"
	say "stopped $1 (pid $p)"
}
