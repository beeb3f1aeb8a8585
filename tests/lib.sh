# tests/lib.sh - sourced by the shell tests.  Provides skip/fail helpers, a
# scratch directory removed on exit, and scripts/lib.sh's helpers (wait_for,
# free_port, pid files).
set -eu
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
