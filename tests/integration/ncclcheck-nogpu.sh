#!/bin/sh
# ncclcheck-nogpu.sh - falcon-ncclcheck on a host without a usable GPU: the
# result is "skipped" (exit 4) with a clear message and a valid JSON result;
# configuration errors are "error" (exit 2).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"

prog=$top_builddir/ncclcheck/falcon-ncclcheck
[ -x "$prog" ] || t_skip "falcon-ncclcheck not built (no CUDA/NCCL at configure)"
if [ -e /dev/nvidia0 ] || nvidia-smi -L >/dev/null 2>&1; then
	t_skip "a GPU is present: this test covers the no-GPU path"
fi
command -v python3 >/dev/null || t_skip "python3 needed to read the JSON"

# json_get FILE KEY - a top-level value of the JSON result
json_get() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}

# 1. no GPU: skipped, exit 4, message on stderr, JSON written
rc=0
"$prog" --level quick --budget 10 --json "$t_tmp/r.json" >"$t_tmp/out" 2>"$t_tmp/err" || rc=$?
cat "$t_tmp/err"
[ "$rc" = 4 ] || t_fail "exit $rc, want 4 (skipped)"
grep -q 'falcon-ncclcheck: skipped: no ' "$t_tmp/err" || t_fail "no 'skipped' message on stderr"
grep -q '^# status: skipped' "$t_tmp/out" || t_fail "no status line in the table"
[ "$(json_get "$t_tmp/r.json" status)" = skipped ] || t_fail "JSON status is not skipped"
[ "$(json_get "$t_tmp/r.json" budget_s)" = 10.0 ] || t_fail "JSON budget_s is not 10"
python3 - "$t_tmp/r.json" <<'PY' || t_fail "JSON result lacks keys of the schema"
import json, sys
d = json.load(open(sys.argv[1]))
for k, t in (("status", str), ("reason", str), ("level", str), ("nranks", int),
             ("gpus", list), ("allreduce", list), ("p2p", list), ("weakest", dict),
             ("hostdev_bytes", int), ("busbw_peak", float), ("algbw_peak", float), ("truncated", bool),
             ("elapsed_s", float), ("budget_s", float)):
    assert isinstance(d[k], t), k
assert d["weakest"] == {"pair": None, "size": None}
PY
t_ok "no GPU: skipped, exit 4"

# 2. --gpus given, still no driver: skipped too (nothing on this host can run CUDA)
rc=0
"$prog" --gpus 0,1 --json - >"$t_tmp/r2.json" 2>/dev/null || rc=$?
[ "$rc" = 4 ] || t_fail "--gpus 0,1: exit $rc, want 4"
[ "$(json_get "$t_tmp/r2.json" status)" = skipped ] || t_fail "--json -: status is not skipped"
t_ok "--gpus without a driver: skipped"

# 3. errors: bad option (exit 2, no JSON), unreadable topology (status error)
rc=0
"$prog" --level slow 2>"$t_tmp/err" || rc=$?
[ "$rc" = 2 ] || t_fail "--level slow: exit $rc, want 2"
grep -q "expected quick or full" "$t_tmp/err" || t_fail "--level slow: no message"
rc=0
"$prog" --topology "$t_tmp/none.json" --json "$t_tmp/r3.json" >/dev/null 2>"$t_tmp/err" || rc=$?
[ "$rc" = 2 ] || t_fail "missing --topology file: exit $rc, want 2"
[ "$(json_get "$t_tmp/r3.json" status)" = error ] || t_fail "missing --topology: status not error"
grep -q "none.json" "$t_tmp/err" || t_fail "missing --topology: message does not name the file"
rc=0
"$prog" --json "$t_tmp/no/such/dir/r.json" >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || t_fail "unwritable --json: exit $rc, want 2"
t_ok "errors: exit 2"

# 4. falcon.conf: a bad file is an error naming FILE:LINE; Check=off skips
printf 'PartitionName=gpu MinBusBW=fast\n' >"$t_tmp/bad.conf"
rc=0
"$prog" --config "$t_tmp/bad.conf" --partition gpu 2>"$t_tmp/err" >/dev/null || rc=$?
[ "$rc" = 2 ] || t_fail "bad falcon.conf: exit $rc, want 2"
grep -q "bad.conf:1" "$t_tmp/err" || t_fail "bad falcon.conf: message does not name bad.conf:1"
printf 'PartitionName=debug Check=off\nPartitionName=gpu Check=full MinBusBW=10\n' >"$t_tmp/ok.conf"
rc=0
SLURM_JOB_PARTITION=debug "$prog" --config "$t_tmp/ok.conf" --json "$t_tmp/r4.json" \
	>/dev/null 2>"$t_tmp/err" || rc=$?
[ "$rc" = 4 ] || t_fail "Check=off: exit $rc, want 4"
grep -q "Check=off for partition debug" "$t_tmp/err" || t_fail "Check=off: no message"
rc=0
"$prog" --config "$t_tmp/ok.conf" --partition gpu --json "$t_tmp/r5.json" >/dev/null 2>&1 || rc=$?
[ "$rc" = 4 ] || t_fail "partition gpu without a GPU: exit $rc, want 4"
[ "$(json_get "$t_tmp/r5.json" level)" = full ] || t_fail "Check=full did not set the level"
t_ok "falcon.conf: errors and Check="
