# tests/soak/soak.mk - included by Makefile.am: `make soak` runs
# tests/soak/soak.sh (SOAK_JOBS=500 jobs through a real cluster, chassis
# latency, falcond kills, chassis stops; its environment is read from the
# make command line or the environment, e.g. `make soak SOAK_JOBS=40`),
# keeping its logs and counts in soak-out/; `make soak-lifecycle` the same
# with Slurm's job lifecycle (SOAK_LIFECYCLE=1, 200 jobs by default: scancel,
# requeue, suspend, restarts, srun/salloc, time limits, preemption on
# 23.02+), in soak-lifecycle-out/.  Not part of `make check`.

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
