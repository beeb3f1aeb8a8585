#!/bin/sh
# falcond-stop.sh - a stopping falcond composes nothing new (issue 32):
# composes arrive every 0.3 s on a slow chassis (1 s a request, so
# composes are in flight) and falcond is sent SIGTERM among them.  Every
# compose sent after the signal is answered 503 with Retry-After; every
# lease falcond logs after its "signal 15: stopping" line is one whose
# request came before the signal (in flight: it finishes or rolls back);
# and the chassis' zones hold exactly the devices of the ledger's leases,
# none for a job sent after the signal.  Before the fix falcond logged the
# stop line and then composed the composes that kept arriving.  Root only
# (munged).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/falcond-lib.sh"
fd_need
FD_CHASSIS_TIMEOUT=30 fd_setup
fd_sim c1 POST /admin/faults '{"latency_ms":1000}' >/dev/null

hosts="node1 node2 node3"
# compose JOB HOST - POST /v1/compose in the background; $t_tmp/sent gets
# "JOB SENT_NS", $t_tmp/res.JOB "HTTP_CODE RETRY_AFTER" when answered.
compose() {
	b="{\"job_id\":$1,\"host\":\"$2\",\"gpus\":1}"
	c=$(fd_cred POST /v1/compose "$b")
	echo "$1 $(date +%s%N)" >> "$t_tmp/sent"
	(code=$(curl -s -m 90 -D "$t_tmp/hdr.$1" -o "$t_tmp/out.$1" -w '%{http_code}' -X POST \
		-H "Authorization: Munge $c" -H 'Content-Type: application/json' \
		--data-binary "$b" "http://127.0.0.1:$FD_PORT/v1/compose") || true
	 ra=$(tr -d '\r' < "$t_tmp/hdr.$1" 2>/dev/null | sed -n 's/^[Rr]etry-[Aa]fter: //p')
	 echo "${code:-000} ${ra:--}" > "$t_tmp/res.$1") &
}

: > "$t_tmp/sent"
j=700
# 1 s of composes before the signal, 2.4 s after it
for i in 1 2 3 4; do
	set -- $hosts; shift $((j % 3)); compose $j "$1"; j=$((j + 1)); sleep 0.3
done
kill -0 $FD_PID || t_fail "falcond exited early"
term_ns=$(date +%s%N)
kill -TERM $FD_PID
# the signal taken by falcond's main thread (its stop line), not a fixed
# 0.1 s: under load a compose sent 0.1 s after the kill came before it
wait_for 10 "falcond's stop line" grep -q 'signal 15: stopping' "$t_tmp/falcond.log" ||
	t_fail "falcond did not log its stop"
first_after=$j
for i in 1 2 3 4 5 6 7 8; do
	set -- $hosts; shift $((j % 3)); compose $j "$1"; j=$((j + 1)); sleep 0.3
done
last=$((j - 1))
wait_for 120 "falcond to stop" fd_exited $FD_PID || t_fail "falcond did not stop in 120 s"
wait_for 100 "every compose to be answered" \
	sh -c "[ \$(ls '$t_tmp'/res.* 2>/dev/null | wc -l) -ge $((last - 699)) ]" ||
	t_fail "a compose was not answered"
grep -n 'stopping' "$t_tmp/falcond.log" | head -n 1

python3 - "$t_tmp" "$term_ns" "$first_after" "$last" <<'EOP' || t_fail "a compose was served after SIGTERM"
import json, re, sys
tmp, term, first_after, last = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
sent = dict((int(a), int(b)) for a, b in (l.split() for l in open(tmp + "/sent")))
res = {}
for j in range(700, last + 1):
    code, ra = open("%s/res.%d" % (tmp, j)).read().split()
    res[j] = (code, ra)
bad = []
# after the signal: 503 with Retry-After while falcond drains, or no
# connection at all once it has gone (000: under load the late ones are
# sent after its exit); never served, and the 503 seen at least once
for j in range(first_after, last + 1):
    code, ra = res[j]
    if not ((code == "503" and ra != "-") or code == "000"):
        bad.append("job %d sent %.2f s after SIGTERM: HTTP %s, Retry-After %s"
                   % (j, (sent[j] - term) / 1e9, code, ra))
if not any(res[j][0] == "503" for j in range(first_after, last + 1)):
    bad.append("no compose sent after SIGTERM was answered 503")
log = open(tmp + "/falcond.log").read().splitlines()
stop = [i for i, l in enumerate(log) if re.search(r"signal 15: stopping", l)]
if not stop:
    bad.append("no stop line in falcond's log")
else:
    for l in log[stop[0] + 1:]:
        m = re.search(r"lease \S+: job (\d+) on", l)
        if m and int(m.group(1)) >= first_after:
            bad.append("after the stop line: " + l.strip())
print("composes before SIGTERM: %s; after: %s" % (
    " ".join("%d:%s" % (j, res[j][0]) for j in range(700, first_after)),
    " ".join("%d:%s/%s" % (j, res[j][0], res[j][1]) for j in range(first_after, last + 1))))
if bad:
    print("\n".join(bad), file=sys.stderr); sys.exit(1)
EOP
t_ok "every compose sent after SIGTERM answered 503 with Retry-After (or refused once falcond was gone); no lease after the stop line"

# the chassis holds the ledger's devices, none of a job sent after the signal
fd_invariants || t_fail "ledger vs chassis after the stop"
fd_sim c1 GET /admin/state > "$t_tmp/simstate.json"
python3 - "$t_tmp/ledger-at.json" "$t_tmp/simstate.json" "$first_after" <<'EOP' || t_fail "a device attached for a compose sent after SIGTERM"
import json, os, sys
led = json.load(open(sys.argv[1])) if os.path.exists(sys.argv[1]) else {"leases": []}
sim = json.load(open(sys.argv[2]))
attached = sorted(d["id"] for d in sim["devices"] if d["owner"])
late = [l for l in led["leases"] if l["job_id"] >= int(sys.argv[3])]
print("attached on the chassis: %d device(s); leases: %s" % (len(attached),
      " ".join("job %d (%s)" % (l["job_id"], l["state"]) for l in led["leases"]) or "none"))
if late: sys.exit("leases of jobs sent after SIGTERM: %s" % [l["job_id"] for l in late])
EOP
t_ok "the chassis' zones hold only the leases of composes sent before SIGTERM"
exit 0
