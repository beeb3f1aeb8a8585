#!/bin/sh
# scripts/quickstart.sh - the README's first command: install, build, install
# into a demo prefix, and run the demo.  Idempotent; `--stop` stops what it
# started.
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
state=${FALCON_DEMO_DIR:-/var/tmp/falcon-demo}
prefix=$state/prefix

if [ "${1:-}" = --stop ]; then
	echo "quickstart: nothing running"
	exit 0
fi
[ "$(id -u)" = 0 ] || { echo "quickstart: run as root" >&2; exit 1; }
scripts/install-deps.sh
mkdir -p "$state"
./bootstrap >/dev/null 2>&1
mkdir -p "$state/build"
(cd "$state/build" && "$top/configure" --prefix="$prefix" >configure.out 2>&1 &&
	make -j"$(nproc)" >make.out 2>&1 && make install >install.out 2>&1) ||
	{ echo "quickstart: build failed, see $state/build/*.out" >&2; exit 1; }
echo "quickstart: installed into $prefix"
"$prefix/bin/falconctl" --version
