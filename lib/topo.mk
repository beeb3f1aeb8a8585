# lib/topo.mk - PCIe topology: config-space synthesis/parsing (lib/pcicfg),
# the libpci scan (lib/topo), `falconctl topo`, the test-tree generator,
# tests, fuzz and bench targets.

lib_libfalcon_la_SOURCES += lib/pcicfg.c lib/pcicfg.h lib/topo.c lib/topo.h

# tests/pcigen: sysfs trees for tests and the benchmark (see its header).
check_PROGRAMS += tests/pcigen
tests_pcigen_SOURCES = tests/pcigen.c tests/pcihex.h
tests_pcigen_LDADD = lib/libfalcon.la

if HAVE_CHECK
check_PROGRAMS += tests/unit/test_pcicfg
TESTS += tests/unit/test_pcicfg
tests_unit_test_pcicfg_SOURCES = tests/unit/test_pcicfg.c tests/pcihex.h
tests_unit_test_pcicfg_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_pcicfg_LDADD = $(UNIT_LDADD) $(PCI_LIBS)
endif

if INTEGRATION_TESTS
TESTS += tests/integration/pcicfg_lspci.sh tests/integration/falconctl_topo.sh
endif
EXTRA_DIST += tests/integration/pcicfg_lspci.sh tests/integration/falconctl_topo.sh

if HAVE_CHECK
check_PROGRAMS += tests/unit/test_topo
TESTS += tests/unit/test_topo
tests_unit_test_topo_SOURCES = tests/unit/test_topo.c
tests_unit_test_topo_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_topo_LDADD = $(UNIT_LDADD) $(PCI_LIBS) $(JSON_LIBS)
endif

# libFuzzer over the config-space parser and the link judgement (by hand:
# make fuzz-topo FUZZ_SECONDS=600).  Seeds: config spaces of the paper's
# host made by tests/pcigen.
FUZZ_TARGETS += fuzz-topo
EXTRA_DIST += tests/fuzz/fuzz_config_space.c
fuzz-topo: tests/pcigen$(EXEEXT)
	$(MKDIR_P) tests/fuzz/corpus-topo
	$(CLANG) $(FUZZ_CFLAGS) $(AM_CPPFLAGS) $(PCI_CFLAGS) $(JSON_CFLAGS) \
		-o tests/fuzz/fuzz_config_space \
		$(top_srcdir)/tests/fuzz/fuzz_config_space.c $(top_srcdir)/lib/pcicfg.c \
		$(top_srcdir)/lib/topo.c $(top_srcdir)/lib/hotplug.c $(top_srcdir)/lib/util.c \
		$(top_srcdir)/lib/falcon_err.c $(PCI_LIBS) $(JSON_LIBS)
	rm -rf tests/fuzz/seed-topo && tests/pcigen paper tests/fuzz/seed-topo
	for d in tests/fuzz/seed-topo/bus/pci/devices/*; do \
	  cp "$$d/config" "tests/fuzz/corpus-topo/seed-$$(basename $$d | tr : _)"; done
	rm -rf tests/fuzz/seed-topo
	tests/fuzz/fuzz_config_space -max_total_time=$(FUZZ_SECONDS) -max_len=8192 \
		tests/fuzz/corpus-topo
CLEANFILES += tests/fuzz/fuzz_config_space


# Benchmark (by hand: make bench-topo): see tests/bench/topo.c.
check_PROGRAMS += tests/bench/topo
# linked with only what discovery needs (not libfalcon.la and its libcurl,
# munge, ...), so that its start-up compares with lspci's
tests_bench_topo_SOURCES = tests/bench/topo.c lib/pcicfg.c lib/topo.c lib/hotplug.c \
	lib/util.c lib/falcon_err.c
tests_bench_topo_CFLAGS = $(AM_CFLAGS) $(PCI_CFLAGS) $(JSON_CFLAGS)
tests_bench_topo_LDADD = $(PCI_LIBS) $(JSON_LIBS) -lm
BENCH_TARGETS += bench-topo
bench-topo: tests/bench/topo$(EXEEXT) tests/pcigen$(EXEEXT) composer/falconctl$(EXEEXT)
	tests/bench/topo tests/pcigen composer/falconctl 51
