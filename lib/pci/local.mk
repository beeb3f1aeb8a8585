# lib/pci/local.mk - libfalcon_pci: PCIe config space (pcicfg), the libpci
# scan and path classification (topo), sysfs hot-plug (hotplug).  Needs
# libpci and json-c (topology.json); depends on lib/core only.  Also the
# test-tree generator, `falconctl topo`'s tests, the fuzzer and the bench.

noinst_LTLIBRARIES += lib/pci/libfalcon_pci.la
PCI_SRCS = lib/pci/pcicfg.c lib/pci/topo.c lib/pci/hotplug.c
lib_pci_libfalcon_pci_la_SOURCES = $(PCI_SRCS) \
	lib/pci/pcicfg.h lib/pci/topo.h lib/pci/hotplug.h
lib_pci_libfalcon_pci_la_CFLAGS = $(AM_CFLAGS) $(PCI_CFLAGS) $(JSON_CFLAGS)
lib_pci_libfalcon_pci_la_LIBADD = $(PCI_LIBS) $(JSON_LIBS)

# tests/pcigen: sysfs trees for tests and the benchmark (see its header).
check_PROGRAMS += tests/pcigen
tests_pcigen_SOURCES = tests/pcigen.c tests/pcihex.h
tests_pcigen_LDADD = $(LIBFALCON_PCI) $(LIBFALCON_CORE)

if HAVE_CHECK
check_PROGRAMS += tests/unit/test_pcicfg tests/unit/test_topo tests/unit/test_hotplug
TESTS += tests/unit/test_pcicfg tests/unit/test_topo tests/unit/test_hotplug
tests_unit_test_pcicfg_SOURCES = tests/unit/test_pcicfg.c tests/pcihex.h
tests_unit_test_pcicfg_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_pcicfg_LDADD = $(LIBFALCON_PCI) $(LIBFALCON_CORE) $(CHECK_LIBS)
tests_unit_test_topo_SOURCES = tests/unit/test_topo.c
tests_unit_test_topo_CFLAGS = $(UNIT_CFLAGS) $(JSON_CFLAGS)
tests_unit_test_topo_LDADD = $(LIBFALCON_PCI) $(LIBFALCON_CORE) $(CHECK_LIBS)
tests_unit_test_hotplug_SOURCES = tests/unit/test_hotplug.c tests/pcihex.h
tests_unit_test_hotplug_CFLAGS = $(UNIT_CFLAGS) $(PTHREAD_CFLAGS)
tests_unit_test_hotplug_LDADD = $(LIBFALCON_PCI) $(LIBFALCON_CORE) $(CHECK_LIBS) \
	$(PTHREAD_LIBS)
endif

if INTEGRATION_TESTS
TESTS += tests/integration/pcicfg_lspci.sh tests/integration/falconctl_topo.sh
endif
EXTRA_DIST += tests/integration/pcicfg_lspci.sh tests/integration/falconctl_topo.sh

# libFuzzer over the config-space parser and the link judgement (by hand:
# make fuzz-topo FUZZ_SECONDS=600).  Seeds: config spaces of the paper's
# host made by tests/pcigen.
FUZZ_TARGETS += fuzz-topo
EXTRA_DIST += tests/fuzz/fuzz_config_space.c
fuzz-topo: tests/pcigen$(EXEEXT)
	$(MKDIR_P) tests/fuzz/corpus-topo
	$(CLANG) $(FUZZ_CFLAGS) $(AM_CPPFLAGS) $(PCI_CFLAGS) $(JSON_CFLAGS) \
		-o tests/fuzz/fuzz_config_space \
		$(top_srcdir)/tests/fuzz/fuzz_config_space.c \
		$(addprefix $(top_srcdir)/,$(PCI_SRCS) $(CORE_SRCS)) \
		$(PCI_LIBS) $(JSON_LIBS) -lm
	rm -rf tests/fuzz/seed-topo && tests/pcigen paper tests/fuzz/seed-topo
	for d in tests/fuzz/seed-topo/bus/pci/devices/*; do \
	  cp "$$d/config" "tests/fuzz/corpus-topo/seed-$$(basename $$d | tr : _)"; done
	rm -rf tests/fuzz/seed-topo
	tests/fuzz/fuzz_config_space -max_total_time=$(FUZZ_SECONDS) -max_len=8192 \
		tests/fuzz/corpus-topo
CLEANFILES += tests/fuzz/fuzz_config_space

# Benchmark (by hand: make bench-topo): see tests/bench/topo.c.  Linked
# with lib/pci and lib/core only, as falcon-prolog's discovery is, so that
# its start-up compares with lspci's.
check_PROGRAMS += tests/bench/topo
tests_bench_topo_SOURCES = tests/bench/topo.c
tests_bench_topo_CFLAGS = $(AM_CFLAGS) $(PCI_CFLAGS) $(JSON_CFLAGS)
tests_bench_topo_LDADD = $(LIBFALCON_PCI) $(LIBFALCON_CORE)
BENCH_TARGETS += bench-topo
bench-topo: tests/bench/topo$(EXEEXT) tests/pcigen$(EXEEXT) falconctl/falconctl$(EXEEXT)
	tests/bench/topo tests/pcigen falconctl/falconctl 51
