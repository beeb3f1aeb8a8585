#!/bin/sh
# sim-host.sh - falcon-sim's host side (placeholder until lib/pcicfg lands).
. "$top_srcdir/tests/lib.sh"
t_skip "host side not built yet"
