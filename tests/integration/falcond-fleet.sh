#!/bin/sh
# falcond-fleet.sh - what a chassis serving several hosts needs of falcond
# (issue 26), on one falcon-sim chassis:
#   1. a periodic reconcile that waits seconds on the chassis' reads does
#      not hold a compose up: it reads without the chassis lock (a compose
#      uses the inventory the last read left), and judges by that read only
#      what did not change meanwhile;
#   2. a compose whose caller has gone is not carried out later: a compose
#      that waited on its port (behind another's slow PATCH there) past the
#      caller's budget (X-Falcon-Budget-Ms, what the client waits) sends
#      nothing and leaves no lease;
#   3. a compose does not wait on another port's request: two composes on
#      two ports of one chassis, each PATCH 3 s, both end in about 3 s
#      (and one after the other with ParallelPorts=no);
#   4. start-up: the chassis are reconciled in parallel and each serves
#      composes as soon as its own reconcile ends: with a second chassis
#      whose reads take seconds, a compose and a decompose on the first are
#      served (200) while a compose on the second is still answered 503;
#   6. a release that ends while a read of the chassis is under way is kept
#      in the cache that read leaves: the host gets the devices again at
#      once, not after the next read.
# Root only (munged).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/falcond-lib.sh"
fd_need
fd_start_munged
fd_start_sim c1
fd_start_sim c2
# every reconcile reads every device (no kept descriptions): each endpoint
# read is one slow GET below
fd_write_conf "ReconcileInterval=0
InventoryRefresh=0"
fd_start_falcond

ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

# slow_reconcile MS OUT - endpoint reads of c1 take MS each; a reconcile
# that reads every device (reread) started in the background (its pid in
# rpid, its answer in OUT), and 1 s later still reading
slow_reconcile() {
	fd_sim c1 POST /admin/faults "{\"rules\":[{\"action\":\"latency\",\"method\":\"GET\",\"path\":\"/redfish/v1/Fabrics/PCIe/Endpoints*\",\"ms\":$1}]}" >/dev/null
	_rb='{"reread":true}'
	_rc=$(fd_cred POST /v1/reconcile "$_rb")
	curl -s -o "$2" -X POST -H "Authorization: Munge $_rc" \
		-H 'Content-Type: application/json' --data-binary "$_rb" \
		"http://127.0.0.1:$FD_PORT/v1/reconcile" &
	rpid=$!
	# the reconcile is reading (its first endpoint GET is under way)
	sleep 1
	kill -0 $rpid 2>/dev/null || t_fail "the reconcile ended within 1 s: the chassis was not slow"
}

# ---- 1. a reconcile reading a slow chassis does not delay a compose --------
# 500 ms per endpoint read: a reconcile of the 16 devices takes > 8 s
t0=$(date +%s%N)
slow_reconcile 500 "$t_tmp/rec.out"
t1=$(date +%s%N)
fd_expect 200 POST /v1/compose '{"job_id":1,"host":"node1","gpus":2}'
during=$(ms_since $t1)
kill -0 $rpid 2>/dev/null || t_fail "the reconcile ended before the compose did ($during ms): nothing shown"
wait $rpid
rec=$(ms_since $t0)
echo "compose during a reconcile of $rec ms: $during ms"
[ "$during" -lt 3000 ] ||
	t_fail "a compose during a reconcile took $during ms (the reconcile $rec ms): it waited for the reconcile's reads"
fd_json 'j["lease"]["id"]' > "$t_tmp/lease1"
# the reconcile judged by its read (taken before job 1's attach) and must
# not have closed job 1's lease: its devices changed meanwhile
[ "$(fd_call GET /v1/status '')" = 200 ] || t_fail "status: $(cat "$t_tmp/out")"
[ "$(fd_json 'len([l for l in j["leases"] if l["job_id"] == 1 and l["state"] == "active"])')" = 1 ] ||
	t_fail "job 1's lease was closed by a reconcile that read before it: $(cat "$t_tmp/out")"
grep -q "lease $(cat "$t_tmp/lease1"): .*not attached" "$t_tmp/falcond.log" &&
	t_fail "the reconcile judged job 1's lease by a read older than it: $(grep 'not attached' "$t_tmp/falcond.log")"
fd_invariants || t_fail "after the compose during a reconcile"
t_ok "a compose during a ${rec} ms reconcile took ${during} ms; the lease made meanwhile kept"
fd_sim c1 POST /admin/faults '{"rules":[]}' >/dev/null
fd_expect 200 POST /v1/decompose '{"job_id":1}'

# ---- 2. a compose past its caller's budget sends nothing -------------------
# each PATCH takes 3 s: job 2's compose holds node2's port (H3) that long
fd_sim c1 POST /admin/faults '{"rules":[{"action":"latency","method":"PATCH","ms":3000}]}' >/dev/null
b2='{"job_id":2,"host":"node2","gpus":1}'
c2=$(fd_cred POST /v1/compose "$b2")
curl -s -o "$t_tmp/j2.out" -w '%{http_code}' -X POST -H "Authorization: Munge $c2" \
	-H 'Content-Type: application/json' --data-binary "$b2" \
	"http://127.0.0.1:$FD_PORT/v1/compose" > "$t_tmp/j2.code" &
j2=$!
sleep 0.5
# job 3 on the same port; its caller waits 1 s (the client sends its
# timeout as the budget)
b3='{"job_id":3,"host":"node2","gpus":1}'
c3=$(fd_cred POST /v1/compose "$b3")
code3=$(curl -s -m 1 -o "$t_tmp/j3.out" -w '%{http_code}' -X POST -H "Authorization: Munge $c3" \
	-H 'X-Falcon-Budget-Ms: 1000' -H 'Content-Type: application/json' --data-binary "$b3" \
	"http://127.0.0.1:$FD_PORT/v1/compose") || true
wait $j2
[ "$(cat "$t_tmp/j2.code")" = 200 ] || t_fail "job 2: $(cat "$t_tmp/j2.code") $(cat "$t_tmp/j2.out")"
[ "$code3" = 000 ] || t_fail "job 3's caller got an answer ($code3) within its 1 s: nothing shown"
# job 3's compose got the port after job 2's PATCH (3 s), 2 s past its budget
wait_for 10 "job 3's compose to be refused" \
	grep -q "compose: job 3 on node2: the caller's budget passed" "$t_tmp/falcond.log" ||
	t_fail "job 3's compose was not refused for its budget: $(tail -n 3 "$t_tmp/falcond.log")"
[ "$(fd_call GET /v1/status '')" = 200 ] || t_fail "status: $(cat "$t_tmp/out")"
[ "$(fd_json 'len([l for l in j["leases"] if l["job_id"] == 3])')" = 0 ] ||
	t_fail "job 3 got a lease nobody waited for: $(cat "$t_tmp/out")"
[ "$(fd_json 'len([d for d in j["devices"] if d["state"] != "free"])')" = 1 ] ||
	t_fail "devices attached other than job 2's: $(cat "$t_tmp/out")"
fd_invariants || t_fail "after the late compose"
t_ok "a compose 2 s past its caller's 1 s budget: nothing sent, no lease"
fd_expect 200 POST /v1/decompose '{"job_id":2}'

# ---- 3. two ports of one chassis change at once ----------------------------
# PATCHes still 3 s: node2 (H3) and node3 (H4) compose together
compose_bg() { # JOB HOST: in the background, the status code into j$1.code
	b="{\"job_id\":$1,\"host\":\"$2\",\"gpus\":1}"
	c=$(fd_cred POST /v1/compose "$b")
	curl -s -o "$t_tmp/j$1.out" -w '%{http_code}' -X POST -H "Authorization: Munge $c" \
		-H 'Content-Type: application/json' --data-binary "$b" \
		"http://127.0.0.1:$FD_PORT/v1/compose" > "$t_tmp/j$1.code"
}
# one compose on each port first (with falcon-sim's cabling known from its
# zones this needs no learning; it also warms each port's connection)
learn_cabling() {
	for h in node2 node3; do
		fd_expect 200 POST /v1/compose "{\"job_id\":99,\"host\":\"$h\",\"gpus\":1}"
		fd_expect 200 POST /v1/decompose '{"job_id":99}'
	done
}
learn_cabling
t0=$(date +%s%N)
compose_bg 4 node2 & p4=$!
compose_bg 5 node3 & p5=$!
wait $p4 $p5
both=$(ms_since $t0)
for j in 4 5; do
	[ "$(cat "$t_tmp/j$j.code")" = 200 ] || t_fail "job $j: $(cat "$t_tmp/j$j.code") $(cat "$t_tmp/j$j.out"); $(tail -n 12 "$t_tmp/falcond.log")"
done
echo "two composes on two ports, 3 s per PATCH: ${both} ms"
[ "$both" -lt 5500 ] ||
	t_fail "two composes on two ports took $both ms: one waited for the other's PATCH (3 s each)"
fd_invariants || t_fail "after the two composes"
t_ok "composes on two ports of one chassis at once: ${both} ms for two 3 s PATCHes"
fd_expect 200 POST /v1/decompose '{"job_id":4}'
fd_expect 200 POST /v1/decompose '{"job_id":5}'

# ---- 4. ParallelPorts=no: one change at a time on the chassis --------------
fd_stop_falcond
sed -i 's/^\(ChassisName=c1 .*\)$/\1 ParallelPorts=no/' "$FALCON_CONF"
fd_start_falcond
learn_cabling
t0=$(date +%s%N)
compose_bg 6 node2 & p6=$!
compose_bg 7 node3 & p7=$!
wait $p6 $p7
both=$(ms_since $t0)
for j in 6 7; do
	[ "$(cat "$t_tmp/j$j.code")" = 200 ] || t_fail "job $j: $(cat "$t_tmp/j$j.code") $(cat "$t_tmp/j$j.out")"
done
[ "$both" -ge 5500 ] ||
	t_fail "ParallelPorts=no: two composes on two ports took $both ms: sent at once"
fd_invariants || t_fail "after ParallelPorts=no"
t_ok "ParallelPorts=no: two composes one after the other (${both} ms)"
fd_sim c1 POST /admin/faults '{"rules":[]}' >/dev/null
fd_expect 200 POST /v1/decompose '{"job_id":6}'
fd_expect 200 POST /v1/decompose '{"job_id":7}'

# ---- 5. start-up: each chassis served once its own reconcile ends --------
fd_stop_falcond
cat >> "$FALCON_CONF" <<EOC
ChassisName=c2 Url=http://127.0.0.1:$SIM_PORT_c2/ Backend=redfish-fabric Mode=standard
HostName=node4 Chassis=c2 Port=H1 Adapter=0000:3b:00.0
EOC
# c2 reads its endpoints in 1 s each: its start-up reconcile takes > 16 s
fd_sim c2 POST /admin/faults '{"rules":[{"action":"latency","method":"GET","path":"/redfish/v1/Fabrics/PCIe/Endpoints*","ms":1000}]}' >/dev/null
"$FALCOND" -f "$FALCON_CONF" --no-slurm 2>>"$t_tmp/falcond.log" &
FD_PID=$!
echo $FD_PID > "$t_tmp/falcond.pid"
wait_for -p $FD_PID 20 "falcond to listen" \
	curl -s -o /dev/null "http://127.0.0.1:$FD_PORT/v1/health" || t_fail "falcond does not answer"
# c1's reconcile (a few fast reads) ends first: a compose on it is
# served (503 until then)
served=
for i in $(seq 1 20); do
	c=$(fd_call POST /v1/compose '{"job_id":8,"host":"node1","gpus":1}')
	[ "$c" = 200 ] && { served=1; break; }
	[ "$c" = 503 ] || t_fail "compose on c1 during the start-up reconcile: HTTP $c: $(cat "$t_tmp/out")"
	sleep 0.5
done
[ -n "$served" ] || t_fail "a compose on c1 was not served while c2 was still reconciled"
[ "$(fd_send GET /v1/health '' '')" = 200 ] && [ "$(fd_json 'j["status"]')" = reconciling ] ||
	t_fail "the start-up reconcile (c2) ended before c1 was served: nothing shown: $(cat "$t_tmp/out")"
code=$(fd_call POST /v1/compose '{"job_id":9,"host":"node4","gpus":1}')
[ "$code" = 503 ] || t_fail "a compose on c2 during its reconcile: HTTP $code: $(cat "$t_tmp/out")"
fd_expect 200 POST /v1/decompose '{"job_id":8}'
[ "$(fd_send GET /v1/health '' '')" = 200 ] && [ "$(fd_json 'j["status"]')" = reconciling ] ||
	t_fail "the start-up reconcile (c2) ended before c1's decompose: nothing shown"
t_ok "start-up: c1 served (compose, decompose) while c2 (slow reads) is still reconciled; c2 answered 503"
fd_sim c2 POST /admin/faults '{"rules":[]}' >/dev/null

# ---- 6. a read under way keeps a release made meanwhile -------------------
# A read that began before a detach and ended after it shows the device
# still on its port; the cache it leaves (reused for InventoryReuse, 60 s)
# keeps the detach: a compose for every GPU the host reaches, right after,
# finds them all free.  (The trixie lane's fleet test saw "8 GPU wanted
# for host vm, 6 free" 3 s after a release, and requeued the job.)
wait_for -p $FD_PID 60 "c2's start-up reconcile to end" \
	sh -c "! curl -s 'http://127.0.0.1:$FD_PORT/v1/health' | grep -q reconciling" ||
	t_fail "falcond still reconciling: $(tail -n 3 "$t_tmp/falcond.log")"
# each chassis says when it is served (a takeover's time, read from the log
# by make soak-fleet): c1 first, c2 after its slow reads
l1=$(grep -n "start-up reconcile: chassis c1 served from now on (its pass took " "$t_tmp/falcond.log" | tail -n 1 | cut -d: -f1)
l2=$(grep -n "start-up reconcile: chassis c2 served from now on (its pass took " "$t_tmp/falcond.log" | tail -n 1 | cut -d: -f1)
[ -n "$l1" ] && [ -n "$l2" ] && [ "$l1" -lt "$l2" ] ||
	t_fail "each chassis' start-up pass not logged in order (c1 line ${l1:-none}, c2 line ${l2:-none})"
[ "$(fd_call POST /v1/compose '{"job_id":20,"host":"node2","gpus":16}')" = 409 ] ||
	t_fail "16 GPUs for node2: $(cat "$t_tmp/out")"
k=$(sed -n 's/.*16 GPU wanted for host node2, \([0-9]*\) free.*/\1/p' "$t_tmp/out")
[ -n "$k" ] && [ "$k" -gt 0 ] || t_fail "how many GPUs node2 reaches: $(cat "$t_tmp/out")"
fd_expect 200 POST /v1/compose "{\"job_id\":20,\"host\":\"node2\",\"gpus\":$k}"
# 300 ms per endpoint read: the reconcile's read of c1 takes ~5 s
slow_reconcile 300 "$t_tmp/rec6.out"
fd_expect 200 POST /v1/decompose '{"job_id":20}'
kill -0 $rpid 2>/dev/null || t_fail "the reconcile ended before the release did: nothing shown"
wait $rpid
fd_sim c1 POST /admin/faults '{"rules":[]}' >/dev/null
code=$(fd_call POST /v1/compose "{\"job_id\":21,\"host\":\"node2\",\"gpus\":$k}")
[ "$code" = 200 ] ||
	t_fail "$k GPUs for node2 after its $k were released during a read: HTTP $code: $(cat "$t_tmp/out")"
fd_invariants || t_fail "after the release during a read"
t_ok "a release during a slow read of the chassis is kept: node2 gets its $k GPUs again at once"
fd_expect 200 POST /v1/decompose '{"job_id":21}'
