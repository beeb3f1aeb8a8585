# tests/lib.sh - sourced by the shell tests.  Provides skip/fail helpers, a
# scratch directory removed on exit, and scripts/lib.sh's helpers (wait_for,
# free_port, pid files).
set -eu
# The system's programs first (/usr/local before /usr: where the slurm26
# lane installs Slurm): python3 is Debian's, with Debian's python3-sushy and
# python3-jsonschema, not a version manager's shim earlier on PATH (pyenv's
# bash shim cost 1.8 s a call at a load of 8, against 0.15 s: the tests make
# hundreds of calls).
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH
export PATH
# shellcheck source=scripts/lib.sh
. "$top_srcdir/scripts/lib.sh"

t_name=$(basename "$0" .sh)
t_fail() { echo "FAIL: $t_name: $*" >&2; exit 1; }
t_skip() { echo "SKIP: $t_name: $*"; exit 77; }
t_ok()   { echo "ok: $*"; }

# t_need_shared REL - skip unless ../shared/REL exists.
t_need_shared() {
	[ -e "${FALCON_SHARED:-}/$1" ] || t_skip "${FALCON_SHARED:-../shared}/$1 not found"
}

# t_need_root - skip unless running as root.
t_need_root() { [ "$(id -u)" = 0 ] || t_skip "needs root"; }

t_tmp=$(mktemp -d "${TMPDIR:-/tmp}/falcon-$t_name-XXXXXX")
t_cleanup_hooks=""
t_on_exit() { t_cleanup_hooks="$1; $t_cleanup_hooks"; }
trap 'eval "$t_cleanup_hooks"; rm -rf "$t_tmp"' EXIT

# t_free_port - a TCP port free on 127.0.0.1 now: free_port (scripts/lib.sh).
t_free_port() { free_port; }

# t_fixture_serve DIR - tests/fixture-server over a DMTF mockup directory,
# stopped at exit; sets srv_pid and port (10 s for its port file, at once
# if it dies).  t_fixture_stop stops it earlier.
t_fixture_serve() {
	rm -f "$t_tmp/port"
	"$top_builddir/tests/fixture-server" --dir "$1" --port-file "$t_tmp/port" \
		>"$t_tmp/srv.out" 2>"$t_tmp/srv.err" &
	srv_pid=$!
	t_on_exit "kill $srv_pid 2>/dev/null || true"
	wait_for -p "$srv_pid" 10 "fixture-server's port file" test -s "$t_tmp/port" ||
		t_fail "fixture-server did not start: $(cat "$t_tmp/srv.err")"
	port=$(cat "$t_tmp/port")
}
t_fixture_stop() { kill "$srv_pid"; wait "$srv_pid" || true; }
