#!/bin/sh
# slurm-keepwarm-hres.sh - slurm-keepwarm.sh with the chassis pool counted
# as HRES (KW_POOL=hres: resources.yaml from falconctl slurm-conf --pool
# hres, no licenses): a kept device is free for Slurm's layer as it is for
# a license, and each keep-warm path holds.  Slurm 25.11+ (skips before).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
KW_POOL=hres
. "$top_srcdir/tests/integration/slurm-keepwarm.sh"
