#!/bin/sh
# falcond-statuspage.sh - falcond's read-only status page (StatusListen=,
# falcond(8) STATUS PAGE) against falcon-sim: a lease composed and a
# device quarantined with a reason full of HTML's special characters; GET /
# fetched between two GET /v1/status that agree, and every device's state,
# job, user and node on the page (its slot table and its SVG) match
# /v1/status at that moment, the history shows the lease's attaches; the
# reason escaped, never raw; chassis
# reachability and the active role; non-GET methods 405, other paths 404;
# GET /events pushes a snapshot every 2 s; a standby's page says standby
# and names the active falcond; the DOM and a screenshot by
# Debian's headless chromium when it is installed (kept under
# $top_builddir/tests/integration/falcond-statuspage.artefacts); the page
# again after falcond restarts.  Root only (munged).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/falcond-lib.sh"
fd_need
SP_PORT=$(free_port)
fd_setup "StatusListen=127.0.0.1:$SP_PORT"
PAGE=http://127.0.0.1:$SP_PORT
ART=$top_builddir/tests/integration/falcond-statuspage.artefacts
rm -rf "$ART" && mkdir -p "$ART"

fd_expect 200 POST /v1/compose '{"job_id":7,"host":"node1","gpus":2,"uid":65534}'
REASON='admin: <b>fan</b> & "noise" '"'"'x'"'"
fd_expect 200 POST /v1/quarantine "$(python3 -c 'import json,sys; print(json.dumps({"chassis":"c1","device":"drawer2_slot4","reason":sys.argv[1]}))' "$REASON")"

# check_page - GET / between two GET /v1/status that agree (at most 10
# tries), then the page against that status (python below)
check_page() {
	_n=0
	while :; do
		fd_expect 200 GET /v1/status ''
		cp "$t_tmp/out" "$t_tmp/status1.json"
		code=$(curl -s -o "$t_tmp/page.html" -w '%{http_code}' "$PAGE/")
		[ "$code" = 200 ] || t_fail "GET /: HTTP $code"
		fd_expect 200 GET /v1/status ''
		python3 -c 'import json,sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
sys.exit(0 if (a["devices"], a["leases"], a["quarantine"]) == (b["devices"], b["leases"], b["quarantine"]) else 1)' \
			"$t_tmp/status1.json" "$t_tmp/out" && break
		_n=$((_n + 1))
		[ $_n -lt 10 ] || t_fail "/v1/status changed during each of 10 page fetches"
	done
	cp "$t_tmp/page.html" "$ART/page-$1.html"
	cp "$t_tmp/status1.json" "$ART/status-$1.json"
	python3 - "$t_tmp/status1.json" "$t_tmp/page.html" "$REASON" <<'EOP' || t_fail "page ($1) does not match /v1/status"
import json, sys, pwd
from html.parser import HTMLParser
st = json.load(open(sys.argv[1]))
raw = open(sys.argv[2]).read()
reason = sys.argv[3]

class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.svg, self.chassis, self.role = {}, {}, {}, None
        self.text, self.hist, self.cell = [], [], None
    def handle_starttag(self, tag, a):
        a = dict(a)
        if tag == "tr" and a.get("class") == "dev":
            self.rows[(a["data-chassis"], a["data-device"])] = a
        if tag == "g" and a.get("class") == "slot" and a.get("data-device"):
            self.svg[a["data-device"]] = a["data-state"]
        if tag == "section" and a.get("class") == "chassis":
            self.chassis[a["data-chassis"]] = a["data-reachable"]
        if tag == "span" and a.get("id") == "role":
            self.role = a["data-role"]
        if tag == "tr" and a.get("class") == "hist":
            self.hist.append([])
            self.in_hist = True
        if tag == "td" and getattr(self, "in_hist", False):
            self.cell = ""
    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            self.hist[-1].append(self.cell)
            self.cell = None
        if tag == "tr":
            self.in_hist = False
    def handle_data(self, d):
        self.text.append(d)
        if self.cell is not None:
            self.cell += d

p = P()
p.feed(raw)
bad = []
leases = {l["id"]: l for l in st["leases"]}
if p.role != "active":
    bad.append("role %r" % p.role)
for c in st["chassis"]:
    if p.chassis.get(c["name"]) != ("yes" if c["reachable"] else "no"):
        bad.append("chassis %s reachability %r" % (c["name"], p.chassis.get(c["name"])))
if len(p.rows) != len(st["devices"]):
    bad.append("%d rows for %d devices" % (len(p.rows), len(st["devices"])))
n_leased = 0
for d in st["devices"]:
    r = p.rows.get((d["chassis"], d["id"]))
    if r is None:
        bad.append("no row for %s" % d["id"]); continue
    want = d["state"]
    l = leases.get(d["lease"]) if d["lease"] else None
    if want == "leased" and l and l["state"] != "active":
        want = "settling"
    n_leased += want == "leased"
    job = str(d["job_id"]) if d["job_id"] is not None else ""
    host = d["host"] or ""
    user = ""
    if l and l.get("uid") is not None and l["uid"] >= 0:
        try:
            user = pwd.getpwuid(l["uid"]).pw_name
        except KeyError:
            user = str(l["uid"])
    got = (r["data-state"], r["data-job"], r["data-host"], r["data-user"])
    if got != (want, job, host, user):
        bad.append("%s: page %s, status %s" % (d["id"], got, (want, job, host, user)))
    if p.svg.get(d["id"]) != want:
        bad.append("%s: svg %r, status %r" % (d["id"], p.svg.get(d["id"]), want))
if n_leased != 2:
    bad.append("%d leased devices, expected 2" % n_leased)
# the history: each device of the lease attached for job 7 (when, chassis,
# device, job, node, lease, event)
for d in st["devices"]:
    if d["state"] == "leased" and not any(h[2] == d["id"] and h[3] == "7" and h[4] == "node1"
                                          and h[6] == "attached" for h in p.hist):
        bad.append("history: no 'attached' entry of job 7 for %s: %s" % (d["id"], p.hist))
if "<b>fan</b>" in raw:
    bad.append("the reason is not escaped")
if reason not in "".join(p.text):
    bad.append("the reason is not shown as text")
for b in bad:
    print("statuspage:", b, file=sys.stderr)
print("statuspage: %d devices, %d leased, %d drawn, %d history lines, role %s" %
      (len(st["devices"]), n_leased, len(p.svg), len(p.hist), p.role))
sys.exit(1 if bad else 0)
EOP
}
check_page first
t_ok "GET / matches /v1/status: states, jobs, users, nodes, reachability, escaped reason"
grep -q 'data-state="absent"' "$t_tmp/page.html" && t_ok "(slots with no device drawn absent)"

# read-only: every method but GET is 405 (Allow: GET), other paths 404
for m in POST PUT DELETE PATCH; do
	for u in / /events; do
		code=$(curl -s -o /dev/null -w '%{http_code}' -X $m --data-binary x "$PAGE$u")
		[ "$code" = 405 ] || t_fail "$m $u: HTTP $code, expected 405"
	done
done
curl -s -D - -o /dev/null -X POST "$PAGE/" | grep -qi '^Allow: GET' || t_fail "405 without Allow: GET"
code=$(curl -s -o /dev/null -w '%{http_code}' "$PAGE/v1/status")
[ "$code" = 404 ] || t_fail "GET /v1/status on the page's listener: HTTP $code, expected 404"
t_ok "POST, PUT, DELETE, PATCH: 405; other paths 404"

# /events: a snapshot at once, then every 2 s: three of them read as they
# come (30 s at most), each at least 1.5 s after the one before (not a
# flood; a loaded machine may make them later, not sooner)
python3 - "$PAGE/events" "$t_tmp/events.txt" <<'EOP' || t_fail "/events: $(tail -c 300 "$t_tmp/events.txt")"
import sys, time, urllib.request
url, out = sys.argv[1], sys.argv[2]
t0 = time.monotonic()
stamps = []
with urllib.request.urlopen(url, timeout=30) as r, open(out, "w") as f:
    for raw in r:
        line = raw.decode()
        f.write(line)
        if line.startswith("event: snapshot"):
            stamps.append(time.monotonic())
        if len(stamps) == 3 or time.monotonic() - t0 > 30:
            break
gaps = [b - a for a, b in zip(stamps, stamps[1:])]
print("snapshots after %s s" % ", ".join("%.1f" % (s - t0) for s in stamps))
sys.exit(0 if len(stamps) == 3 and all(g >= 1.5 for g in gaps) else 1)
EOP
grep -q '^data: .*data-state="leased"' "$t_tmp/events.txt" || t_fail "/events: no slot in the snapshot"
t_ok "/events: 3 snapshots, 2 s apart"

# a browser's view: the DOM after the scripts ran, and a screenshot
CHROME=$(command -v chromium || command -v chromium-headless-shell || true)
if [ -n "$CHROME" ]; then
	# the flags of a headless run without network, a profile of its own
	# (60 s: under load the first start took over 30)
	set -- --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$t_tmp/chromium-profile"
	timeout 60 "$CHROME" "$@" \
		--dump-dom "$PAGE/" > "$ART/dom.html" 2>"$t_tmp/chromium.log" ||
		t_fail "chromium --dump-dom: $(tail -n 3 "$t_tmp/chromium.log")"
	grep -q 'data-state="leased"' "$ART/dom.html" || t_fail "chromium's DOM has no leased slot"
	grep -q '<svg' "$ART/dom.html" || t_fail "chromium's DOM has no SVG"
	timeout 60 "$CHROME" "$@" --hide-scrollbars \
		--window-size=1400,1000 --screenshot="$ART/statuspage.png" "$PAGE/" \
		2>>"$t_tmp/chromium.log" >/dev/null || t_fail "chromium --screenshot failed"
	[ -s "$ART/statuspage.png" ] || t_fail "no screenshot"
	t_ok "chromium: DOM and screenshot in $ART"
else
	echo "statuspage: chromium not installed: no DOM dump nor screenshot (apt-get install chromium)"
fi

# a standby on the same StateDir: its own page says so and names the active one
PORT_B=$(free_port); SP_PORT_B=$(free_port)
sed -e "s/^ListenAddress=.*/ListenAddress=127.0.0.1:$PORT_B/" \
	-e "s/^StatusListen=.*/StatusListen=127.0.0.1:$SP_PORT_B/" "$FALCON_CONF" > "$t_tmp/falcon-b.conf"
"$FALCOND" -f "$t_tmp/falcon-b.conf" --no-slurm 2>>"$t_tmp/falcond-b.log" &
echo $! > "$t_tmp/falcond-b.pid"
t_on_exit "kill \$(cat '$t_tmp/falcond-b.pid' 2>/dev/null) 2>/dev/null || true"
wait_for 20 "the standby's status page" \
	sh -c "curl -s 'http://127.0.0.1:$SP_PORT_B/' > '$t_tmp/standby.html'; grep -q 'data-role=\"standby\"' '$t_tmp/standby.html'" ||
	t_fail "standby page: $(cat "$t_tmp/standby.html")"
grep -q "http://127.0.0.1:$FD_PORT" "$t_tmp/standby.html" || t_fail "standby page does not name the active falcond"
! grep -q 'class="dev"' "$t_tmp/standby.html" || t_fail "a standby's page shows devices"
kill "$(cat "$t_tmp/falcond-b.pid")"; wait "$(cat "$t_tmp/falcond-b.pid")" 2>/dev/null || true
t_ok "a standby's page: standby, naming http://127.0.0.1:$FD_PORT"

# falcond restarts: the page answers again, from the ledger kept
fd_stop_falcond
code=$(curl -s -o /dev/null -w '%{http_code}' "$PAGE/" || true)
[ "$code" = 000 ] || t_fail "page still answers after falcond stopped: HTTP $code"
fd_start_falcond
check_page restart
t_ok "after a restart the page matches /v1/status again"
