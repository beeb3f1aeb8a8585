# prolog/local.mk - falcon-prolog and falcon-epilog (slurm.conf Prolog=/
# Epilog=), thin glue over lib/pci (hotplug: sysfs rescan/remove, waits,
# holders; topo: the bus), lib/api (falcond), lib/cgroup (falcon-prolog:
# the new devices denied to the running jobs) and lib/core (jobtag:
# tres_per_node, SPANK options, AdminComment tag).

FP_COMMON = prolog/fp_common.c prolog/fp_common.h prolog/fp_falcond.c prolog/fp_falcond.h \
	prolog/fp_topo.c prolog/fp_topo.h prolog/fp_slurm.c prolog/fp_slurm.h \
	prolog/fp_start.c prolog/fp_start.h
FP_CFLAGS = $(AM_CFLAGS) $(JSON_CFLAGS) $(PCI_CFLAGS) $(CURL_CFLAGS) $(MUNGE_CFLAGS) \
	$(SLURM_CFLAGS)
FP_LDADD = $(LIBFALCON_API) $(LIBFALCON_CHASSIS) $(LIBFALCON_PCI) $(LIBFALCON_CORE) \
	$(SLURM_LIBS) $(JSON_LIBS)

if HAVE_SLURM
sbin_PROGRAMS += prolog/falcon-prolog prolog/falcon-epilog
prolog_falcon_prolog_SOURCES = prolog/falcon-prolog.c prolog/prolog_node.c \
	prolog/prolog_node.h prolog/prolog_slurmctld.c prolog/prolog_slurmctld.h $(FP_COMMON)
prolog_falcon_prolog_CFLAGS = $(FP_CFLAGS)
prolog_falcon_prolog_LDADD = $(LIBFALCON_CGROUP) $(FP_LDADD)
prolog_falcon_epilog_SOURCES = prolog/falcon-epilog.c $(FP_COMMON)
prolog_falcon_epilog_CFLAGS = $(FP_CFLAGS)
prolog_falcon_epilog_LDADD = $(FP_LDADD)
endif
# falcon-epilog.8: a .so link to falcon-prolog.8, which describes both
dist_man_MANS += doc/falcon-prolog.8 doc/falcon-epilog.8

if HAVE_CHECK
# lease.json and topology.json's "lease" from falcond's answer, pinned
check_PROGRAMS += tests/unit/test_fp_lease
TESTS += tests/unit/test_fp_lease
tests_unit_test_fp_lease_SOURCES = tests/unit/test_fp_lease.c tests/unit/testutil.h \
	prolog/fp_common.c prolog/fp_common.h prolog/fp_falcond.c prolog/fp_falcond.h
tests_unit_test_fp_lease_CFLAGS = $(UNIT_CFLAGS) -I$(top_srcdir)/prolog
tests_unit_test_fp_lease_LDADD = $(LIBFALCON_API) $(LIBFALCON_CHASSIS) $(LIBFALCON_PCI) \
	$(LIBFALCON_CORE) $(CHECK_LIBS) $(JSON_LIBS)
endif

PROLOG_ITESTS = tests/integration/prolog-direct.sh tests/integration/prolog-slurm.sh \
	tests/integration/prolog-node2.sh tests/integration/prolog-lib.sh \
	tests/integration/prolog-identity.sh tests/integration/prolog-hotplug.sh \
	tests/integration/prolog-uuid.sh
if INTEGRATION_TESTS
if HAVE_SLURM
TESTS += tests/integration/prolog-direct.sh tests/integration/prolog-slurm.sh \
	tests/integration/prolog-node2.sh
# identity by location: an orphan of the same IDs, a stale lease.json (#11)
TESTS += tests/integration/prolog-identity.sh
# GPU identity (UUIDs, minors) and the hot-plug checks (#14)
TESTS += tests/integration/prolog-hotplug.sh tests/integration/prolog-uuid.sh
# one job on two nodes: each node gives back only its own lease; a
# rollback whose remove fails quarantines and drains
TESTS += tests/integration/prolog-multinode.sh tests/integration/prolog-rollback.sh
# failure semantics with PrologSlurmctld: wait, requeue, never drain (#12)
TESTS += tests/integration/prolog-slurmctld.sh
endif
endif
EXTRA_DIST += $(PROLOG_ITESTS) tests/integration/prolog-multinode.sh tests/integration/prolog-rollback.sh \
	tests/integration/prolog-slurmctld.sh \
	tests/bench/prolog tests/bench/compose-wait

bench-prolog: all
	$(SHELL) $(top_srcdir)/tests/bench/prolog
BENCH_TARGETS += bench-prolog
# time to start with a slow chassis: PrologSlurmctld + node prolog (#12)
bench-compose: all
	$(SHELL) $(top_srcdir)/tests/bench/compose-wait
BENCH_TARGETS += bench-compose
