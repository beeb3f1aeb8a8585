#!/bin/sh
# sim-tls.sh - falcon-sim over HTTPS (libmicrohttpd with GnuTLS) with
# certificates from a local CA (scripts/tls-certs.sh, made here), and the
# chassis client's TLS checks against it: the CA named by CAFile= (here
# --cacert) verifies; a certificate for another name is refused with a
# message naming both names; a self-signed one is refused unless
# Insecure=yes (then every new connection is logged as unverified); an
# expired one is refused.  A client keeps its TLS connection across the
# requests of a compose: falcon-sim counts the connections that carried
# Redfish requests (one TLS handshake each).  TLS 1.0 and 1.1 are refused
# to a client that offers them, 1.2 and 1.3 taken (openssl s_client).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/sim-lib.sh"
. "$top_srcdir/tests/integration/tls-lib.sh"

CLIENT=$top_builddir/tests/chassis-client
[ -x "$CLIENT" ] || t_fail "$CLIENT not built"
command -v openssl >/dev/null 2>&1 || t_skip "openssl not found (apt-get install openssl)"
C=$t_tmp/certs
sh "$top_srcdir/scripts/tls-certs.sh" ca "$C" || t_fail "making the CA"
sh "$top_srcdir/scripts/tls-certs.sh" server "$C" good IP:127.0.0.1 DNS:localhost
sh "$top_srcdir/scripts/tls-certs.sh" server "$C" other DNS:other.example
sh "$top_srcdir/scripts/tls-certs.sh" self "$C" selfie IP:127.0.0.1
sh "$top_srcdir/scripts/tls-certs.sh" expired "$C" old IP:127.0.0.1
printf 'Administrator admin adminpw\nOperator falcond oppw\n' >"$t_tmp/accounts"
printf 'falcond:oppw\n' >"$t_tmp/creds"
chmod 600 "$t_tmp/accounts" "$t_tmp/creds"

# tls_start NAME - the sim with certificate NAME; SIM_BASE is https.
tls_start() {
	sim_start --accounts "$t_tmp/accounts" --tls-cert "$C/$1.pem" --tls-key "$C/$1.key"
	SIM_BASE=https://127.0.0.1:$SIM_PORT
}
cl() {
	out=$("$CLIENT" --url "$SIM_BASE" --credentials "$t_tmp/creds" --timeout 5 "$@" \
		2>"$t_tmp/cl.err") || true
}
state() { curl -s -m 20 --cacert "$C/ca.pem" "$SIM_BASE/admin/state"; }

tls_start good
curl -s -m 20 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$SIM_PORT/redfish/v1" >"$t_tmp/plain" || true
[ "$(cat "$t_tmp/plain")" != 200 ] || t_fail "plain http answered on the HTTPS port"
req GET /redfish/v1 '' --cacert "$C/ca.pem"
expect 200 "service root over HTTPS, verified with the local CA"
[ "$(state | python3 -c 'import json,sys; print(json.load(sys.stdin)["tls"])')" = True ] ||
	t_fail "/admin/state does not say tls"
tls_versions falcon-sim "127.0.0.1:$SIM_PORT" "$C/ca.pem"
cl --cacert "$C/ca.pem" attach H1 drawer1_slot1
[ "$out" = ok ] || t_fail "client with CAFile: $out $(cat "$t_tmp/cl.err")"
t_ok "chassis client verified the certificate with CAFile and attached"
cl attach H1 drawer1_slot2
case $out in "error transport:"*"TLS"*) ;; *) t_fail "no CAFile, system store: '$out'" ;; esac
t_ok "without CAFile the local CA is unknown: $out"

# handshakes per compose: one client, 5 composes of 4 GPUs
before=$(state | python3 -c 'import json,sys; print(json.load(sys.stdin)["redfish_connections"])')
cl --cacert "$C/ca.pem" composes 5 H2 drawer2_slot1 drawer2_slot2 drawer2_slot3 drawer2_slot4
case $out in "composes 5 in"*) ;; *) t_fail "composes: $out $(cat "$t_tmp/cl.err")" ;; esac
after=$(state | python3 -c 'import json,sys; print(json.load(sys.stdin)["redfish_connections"])')
n=$((after - before))
[ "$n" -le 1 ] || t_fail "5 composes on one client made $n TLS connections (want 1: kept alive)"
t_ok "5 composes on one client: $n TLS handshake(s) (connection kept)"
sim_stop

tls_start other
cl --cacert "$C/ca.pem" attach H1 drawer1_slot1
case $out in
"error transport:"*"other.example"*"127.0.0.1"*) ;;
*) t_fail "hostname mismatch: '$out'" ;;
esac
t_ok "a certificate for another host is refused, naming both: $out"
sim_stop

tls_start selfie
cl --cacert "$C/ca.pem" attach H1 drawer1_slot1
case $out in "error transport:"*"self"*"signed"*"Insecure=yes"*) ;; *) t_fail "self-signed: '$out'" ;; esac
t_ok "a self-signed certificate is refused: $out"
cl --insecure composes 2 H1 drawer1_slot3
[ "${out%% in*}" = "composes 2" ] || t_fail "Insecure=yes: $out $(cat "$t_tmp/cl.err")"
grep -q 'NOT verified' "$t_tmp/cl.err" || t_fail "Insecure=yes: no warning: $(cat "$t_tmp/cl.err")"
t_ok "Insecure=yes accepts it and logs each new connection ($(grep -c 'NOT verified' "$t_tmp/cl.err") warning(s))"
sim_stop

tls_start old
cl --cacert "$C/ca.pem" attach H1 drawer1_slot1
case $out in "error transport:"*"expired"*) ;; *) t_fail "expired: '$out'" ;; esac
t_ok "an expired certificate is refused: $out"
