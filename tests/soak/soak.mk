# tests/soak/soak.mk - included by Makefile.am: `make soak` runs
# tests/soak/soak.sh (SOAK_JOBS=500 jobs through a real cluster, chassis
# latency, falcond kills, chassis stops; its environment is read from the
# make command line or the environment, e.g. `make soak SOAK_JOBS=40`),
# keeping its logs and counts in soak-out/; `make soak-lifecycle` the same
# with Slurm's job lifecycle (SOAK_LIFECYCLE=1, 200 jobs by default: scancel,
# requeue, suspend, restarts, srun/salloc, time limits, preemption on
# 23.02+), in soak-lifecycle-out/; `make soak-fleet` the lifecycle soak on
# a fleet for an hour (SOAK_FLEET=1: tests/integration/fleet-lib.sh's
# SOAK_NODES=64 nodes on SOAK_CHASSIS=16 chassis, falcond and a standby,
# KeepWarm= in one partition, arrays, multi-node jobs and hetjobs, the
# active falcond SIGKILLed, a chassis unreachable for minutes, any node's
# slurmd and slurmctld restarted; SOAK_DURATION=3600 s of submissions),
# run in namespaces of its own (tests/isolate.sh, as make check runs a
# test: no other cluster's lock to wait for), in soak-fleet-out/.  Not part
# of `make check`.

EXTRA_DIST += tests/soak/soak.sh tests/soak/soak-job.py tests/soak/soak-report.py \
	tests/soak/soak-check.sh

# The soak's judges (soak-job.py, soak-report.py) on made-up chassis states,
# ledgers and verdicts: no cluster, a few seconds.
if INTEGRATION_TESTS
TESTS += tests/soak/soak-check.sh
endif

SOAK_TARGETS += soak-slurm
soak-slurm: all
	rm -rf soak-out
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	  SOAK_OUT='$(abs_top_builddir)/soak-out' $(SHELL) $(srcdir)/tests/soak/soak.sh

SOAK_TARGETS += soak-lifecycle
soak-lifecycle: all
	rm -rf soak-lifecycle-out
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	  SOAK_LIFECYCLE=1 SOAK_JOBS=$${SOAK_JOBS:-200} \
	  SOAK_OUT='$(abs_top_builddir)/soak-lifecycle-out' $(SHELL) $(srcdir)/tests/soak/soak.sh

SOAK_TARGETS += soak-fleet
soak-fleet: all
	rm -rf soak-fleet-out
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	  SOAK_FLEET=1 SOAK_OUT='$(abs_top_builddir)/soak-fleet-out' \
	  $(SHELL) $(srcdir)/tests/isolate.sh $(SHELL) $(srcdir)/tests/soak/soak.sh
