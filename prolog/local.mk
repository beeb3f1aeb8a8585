# prolog/local.mk - falcon-prolog and falcon-epilog (slurm.conf Prolog=/
# Epilog=), thin glue over lib/hotplug (sysfs rescan/remove, waits, holders)
# and lib/jobtag (tres_per_node, SPANK options, AdminComment tag).
#
# The glue is split in translation units by what they include: prolog/fp_falcond.c
# talks to falcond (lib/falcond_client.h, which pulls in lib/chassis.h),
# prolog/fp_topo.c reads the bus (lib/topo.h).

lib_libfalcon_la_SOURCES += lib/hotplug.c lib/hotplug.h lib/jobtag.c lib/jobtag.h

FP_COMMON = prolog/fp.h prolog/fp_common.c prolog/fp_falcond.c prolog/fp_topo.c \
	prolog/fp_slurm.c
FP_CFLAGS = $(AM_CFLAGS) $(JSON_CFLAGS) $(PCI_CFLAGS) $(CURL_CFLAGS) $(MUNGE_CFLAGS) \
	$(SLURM_CFLAGS)
FP_LDADD = lib/libfalcon.la $(SLURM_LIBS) $(JSON_LIBS) $(PCI_LIBS)

if HAVE_SLURM
sbin_PROGRAMS += prolog/falcon-prolog prolog/falcon-epilog
prolog_falcon_prolog_SOURCES = prolog/falcon-prolog.c $(FP_COMMON)
prolog_falcon_prolog_CFLAGS = $(FP_CFLAGS)
prolog_falcon_prolog_LDADD = $(FP_LDADD)
prolog_falcon_epilog_SOURCES = prolog/falcon-epilog.c $(FP_COMMON)
prolog_falcon_epilog_CFLAGS = $(FP_CFLAGS)
prolog_falcon_epilog_LDADD = $(FP_LDADD)
endif
dist_man_MANS += doc/falcon-prolog.8

if HAVE_CHECK
check_PROGRAMS += tests/unit/test_jobtag tests/unit/test_hotplug
TESTS += tests/unit/test_jobtag tests/unit/test_hotplug
tests_unit_test_jobtag_SOURCES = tests/unit/test_jobtag.c
tests_unit_test_jobtag_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_jobtag_LDADD = $(UNIT_LDADD)
tests_unit_test_hotplug_SOURCES = tests/unit/test_hotplug.c
tests_unit_test_hotplug_CFLAGS = $(UNIT_CFLAGS) $(PTHREAD_CFLAGS)
tests_unit_test_hotplug_LDADD = $(UNIT_LDADD) $(PTHREAD_LIBS)
endif

PROLOG_ITESTS = tests/integration/prolog-direct.sh tests/integration/prolog-slurm.sh \
	tests/integration/prolog-node2.sh tests/integration/prolog-lib.sh
if INTEGRATION_TESTS
if HAVE_SLURM
TESTS += tests/integration/prolog-direct.sh tests/integration/prolog-slurm.sh \
	tests/integration/prolog-node2.sh
# one job on two nodes: each node gives back only its own lease; a
# rollback whose remove fails quarantines and drains
TESTS += tests/integration/prolog-multinode.sh tests/integration/prolog-rollback.sh
endif
endif
EXTRA_DIST += $(PROLOG_ITESTS) tests/integration/prolog-multinode.sh tests/integration/prolog-rollback.sh \
	tests/bench/prolog

bench-prolog: all
	$(SHELL) $(top_srcdir)/tests/bench/prolog
BENCH_TARGETS += bench-prolog
