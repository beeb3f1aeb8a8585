#!/bin/sh
# slurm-preempt-slow.sh - slurm-preempt.sh against a slow chassis (issue
# 41): 20 s per zone PATCH, as make bench-warm's slow case, with the
# quickstart's PrologSlurmctld= and budgets.  The preempted job's epilog
# detaches its 8 GPUs through 20 s PATCHes while the urgent job's compose
# waits for them: the urgent job runs and COMPLETES, falcon requeues
# neither job, the node is never drained, and the preempted job runs again
# with 8.  Skipped on Slurm 22.05, as slurm-preempt.sh.
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
PREEMPT_PATCH_MS=20000
. "$top_srcdir/tests/integration/slurm-preempt.sh"
