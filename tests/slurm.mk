# tests/slurm.mk - the Slurm tier: scripts/cluster.sh starts a real
# cluster (munged, MariaDB, slurmdbd, slurmctld, slurmd; slurm-node2.sh adds a
# second slurmd in its own network and UTS namespace) under a
# scratch directory; the tests skip (77) when not root or Slurm is absent.

if INTEGRATION_TESTS
TESTS += tests/integration/slurm-cluster.sh tests/integration/slurm-spank.sh \
	tests/integration/slurm-node2.sh tests/integration/slurm-submit.sh
# falcond's event listener tells a running job (AdminComment), no drain
TESTS += tests/integration/slurm-events.sh
# quarantine as a reservation; auto-resume and release (issue 11)
TESTS += tests/integration/slurm-quarantine.sh
# task/cgroup + ConstrainDevices: composed GPUs/NVMe closed to other jobs (#14)
TESTS += tests/integration/slurm-cgroup.sh
# falcond HA takeover, idle connections, broken SIGHUP under real jobs (#12)
TESTS += tests/integration/slurm-falcond-ha.sh
# a long node prolog across a node registration: no NODE_FAIL (#11's soak)
TESTS += tests/integration/slurm-batchstart.sh
# a partition over two chassis: placement by chassis, two-node jobs (#26)
TESTS += tests/integration/slurm-fleet.sh
# 8 nodes, 4 chassis, one partition over all (#26)
TESTS += tests/integration/slurm-fleet8.sh
# Slurm 25.11+: HRES MODE_3 from falconctl slurm-conf (#26)
TESTS += tests/integration/slurm-hres.sh
# defaults that fit real chassis: 20 s per PATCH, 30 s tasks (#29)
TESTS += tests/integration/slurm-slowchassis.sh
# preemption by partition with composed devices; Slurm 23.02+ (#32)
TESTS += tests/integration/slurm-preempt.sh
# the same at 20 s per chassis PATCH, the quickstart's budgets (#41)
TESTS += tests/integration/slurm-preempt-slow.sh
# salloc/srun wait as long as Slurm lets them and read falcon's reason (#32)
TESTS += tests/integration/slurm-interactive.sh
# KeepWarm=: reuse on the node, give way to another node, restart, reset (#29)
TESTS += tests/integration/slurm-keepwarm.sh
# the same with the pool as HRES; Slurm 25.11+ (#40)
TESTS += tests/integration/slurm-keepwarm-hres.sh
# KeepWarm='s paths at 20 s per chassis PATCH: a keep released while another
# is reused, KeepWarmReset= failing and past its time, salloc/srun (#41)
TESTS += tests/integration/slurm-keepwarm-slow.sh
# doc/ADMIN.md's checklist, its own commands, on 8 nodes and 2 chassis (#42)
TESTS += tests/integration/admin-checklist.sh
endif
EXTRA_DIST += tests/integration/slurm-lib.sh \
	tests/integration/slurm-cluster.sh tests/integration/slurm-spank.sh \
	tests/integration/slurm-node2.sh \
	tests/integration/slurm-submit.sh tests/integration/slurm-events.sh \
	tests/integration/slurm-quarantine.sh \
	tests/integration/slurm-cgroup.sh \
	tests/integration/slurm-falcond-ha.sh tests/integration/slurm-batchstart.sh \
	tests/integration/slurm-fleet.sh tests/integration/slurm-fleet8.sh \
	tests/integration/slurm-hres.sh tests/integration/slurm-slowchassis.sh \
	tests/integration/slurm-preempt.sh tests/integration/slurm-preempt-slow.sh \
	tests/integration/slurm-interactive.sh \
	tests/integration/slurm-keepwarm.sh tests/integration/slurm-keepwarm-hres.sh \
	tests/integration/slurm-keepwarm-slow.sh tests/integration/admin-checklist.sh
EXTRA_DIST += tests/integration/fleet-lib.sh tests/bench/fleet tests/bench/warm \
	tests/bench/submit
# Bench (by hand, root, about 30 min at the default 300 jobs): the fleet of
# 8 nodes and 4 chassis at 0-3 s per request, a chassis stopped 60 s, a
# partition per chassis vs one chassis-aware partition (issue 26).
BENCH_TARGETS += bench-fleet
bench-fleet: all
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	  $(SHELL) $(srcdir)/tests/bench/fleet
.PHONY: bench-fleet
# Bench (by hand, root, a few minutes): job_submit_falcon's time per submit
# at 4, 16 and 64 chassis (SUBMIT_CHASSIS), a busy queue pending, and
# slurmctld's main and backfill scheduling cycle with that queue eligible (issue 41)
BENCH_TARGETS += bench-submit
bench-submit: all
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	  $(SHELL) $(srcdir)/tests/bench/submit
.PHONY: bench-submit
# Bench (by hand, root, about 35 min): KeepWarm= off vs on, a 20-task array
# and a mixed trace at 5 and 20 s per PATCH (issue 29)
BENCH_TARGETS += bench-warm
bench-warm: all
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	  $(SHELL) $(srcdir)/tests/bench/warm
.PHONY: bench-warm
