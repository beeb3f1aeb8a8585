# tests/integration/tls-lib.sh - sourced by the tests of an HTTPS server
# of ours after tests/lib.sh (sim-tls.sh: falcon-sim; falcond-subs.sh:
# falcond's event listener): which TLS versions it takes.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.

# tls_versions NAME HOST:PORT CAFILE - openssl s_client offers one TLS
# version at a time: 1.0 and 1.1 (at @SECLEVEL=0, else OpenSSL 3 would not
# offer them at all) must be refused after the client sent its hello (not
# left unsent: "no protocols available"), 1.2 and 1.3 must be taken
# (lib/httpd's FALCON_HTTPD_TLS_PRIORITIES).
tls_versions() {
	for v in tls1 tls1_1 tls1_2 tls1_3; do
		cipher=
		case $v in tls1 | tls1_1) cipher="-cipher DEFAULT:@SECLEVEL=0" ;; esac
		# shellcheck disable=SC2086
		rc=0
		timeout 30 openssl s_client -connect "$2" -CAfile "$3" -"$v" $cipher \
			</dev/null >"$t_tmp/tls-$v.out" 2>&1 || rc=$?
		case $v in
		tls1 | tls1_1)
			[ "$rc" != 0 ] || t_fail "$1 took -$v: $(grep -m1 '^New,' "$t_tmp/tls-$v.out")"
			! grep -q 'no protocols available' "$t_tmp/tls-$v.out" ||
				t_fail "this openssl would not offer -$v: $(head -n 3 "$t_tmp/tls-$v.out")"
			grep -Eq 'handshake has read [0-9]+ bytes and written [1-9]' \
				"$t_tmp/tls-$v.out" || t_fail "-$v: no hello sent: $(head -n 5 "$t_tmp/tls-$v.out")"
			;;
		*)
			want=TLSv1.${v#tls1_}
			grep -q "^New, $want," "$t_tmp/tls-$v.out" ||
				t_fail "$1 refused -$v (rc $rc): $(tail -n 5 "$t_tmp/tls-$v.out")"
			;;
		esac
	done
	t_ok "$1: TLS 1.0 and 1.1 refused (offered at SECLEVEL=0), TLS 1.2 and 1.3 taken"
}
