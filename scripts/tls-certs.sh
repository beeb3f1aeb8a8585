#!/bin/sh
# scripts/tls-certs.sh - make a local certificate authority and certificates
# signed by it with openssl, at setup time (never committed): the
# quickstart's HTTPS for falcon-sim and falcond's event listener, and the
# tests' good, mismatched, self-signed and expired certificates.
#   tls-certs.sh ca DIR                      DIR/ca.pem, DIR/ca.key (0600)
#   tls-certs.sh server DIR NAME SAN...      DIR/NAME.pem + NAME.key, signed
#                                            by DIR/ca (SAN: DNS:x or IP:y)
#   tls-certs.sh expired DIR NAME SAN...     the same, valid 2020-01-01..02
#   tls-certs.sh self DIR NAME SAN...        self-signed, no CA
# Keys are P-256 EC, mode 0600; certificates last 30 days.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
set -eu
umask 077
what=${1:?usage: tls-certs.sh ca|server|expired|self DIR [NAME SAN...]}
dir=${2:?DIR}
mkdir -p "$dir"
command -v openssl >/dev/null 2>&1 || { echo "tls-certs: openssl not found (apt-get install openssl)" >&2; exit 1; }

key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }

if [ "$what" = ca ]; then
	key "$dir/ca.key"
	openssl req -x509 -new -key "$dir/ca.key" -out "$dir/ca.pem" -days 30 \
		-subj "/CN=falcon-slurm local CA" \
		-addext "basicConstraints=critical,CA:TRUE" \
		-addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
	chmod 644 "$dir/ca.pem"
	exit 0
fi
name=${3:?NAME}
shift 3
[ $# -gt 0 ] || { echo "tls-certs: no subjectAltName given" >&2; exit 1; }
san=$(printf '%s,' "$@")
san=${san%,}
cn=${1#*:}
key "$dir/$name.key"
cat >"$dir/$name.ext" <<EXT
basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth,clientAuth
subjectAltName=$san
EXT
case $what in
self)
	openssl req -x509 -new -key "$dir/$name.key" -out "$dir/$name.pem" -days 30 \
		-subj "/CN=$cn" -addext "subjectAltName=$san" 2>/dev/null ;;
server)
	openssl req -new -key "$dir/$name.key" -out "$dir/$name.csr" -subj "/CN=$cn" 2>/dev/null
	openssl x509 -req -in "$dir/$name.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" \
		-CAcreateserial -out "$dir/$name.pem" -days 30 -extfile "$dir/$name.ext" 2>/dev/null ;;
expired)
	# openssl ca takes explicit dates (x509 -req cannot backdate on OpenSSL 3.0)
	openssl req -new -key "$dir/$name.key" -out "$dir/$name.csr" -subj "/CN=$cn" 2>/dev/null
	mkdir -p "$dir/ca-db"
	: >"$dir/ca-db/index.txt"
	[ -s "$dir/ca-db/serial" ] || echo 1000 >"$dir/ca-db/serial"
	cat >"$dir/ca-db/ca.cnf" <<CNF
[ ca ]
default_ca = local
[ local ]
database = $dir/ca-db/index.txt
serial = $dir/ca-db/serial
new_certs_dir = $dir/ca-db
default_md = sha256
policy = any
unique_subject = no
[ any ]
commonName = supplied
CNF
	openssl ca -batch -config "$dir/ca-db/ca.cnf" -cert "$dir/ca.pem" -keyfile "$dir/ca.key" \
		-startdate 20200101000000Z -enddate 20200102000000Z -extfile "$dir/$name.ext" \
		-in "$dir/$name.csr" -out "$dir/$name.pem" -notext 2>/dev/null ;;
*)
	echo "tls-certs: unknown '$what' (ca, server, expired, self)" >&2
	exit 1 ;;
esac
rm -f "$dir/$name.csr" "$dir/$name.ext"
chmod 644 "$dir/$name.pem"
