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
TESTS += tests/integration/pcicfg_lspci.sh
endif
EXTRA_DIST += tests/integration/pcicfg_lspci.sh

if HAVE_CHECK
check_PROGRAMS += tests/unit/test_topo
TESTS += tests/unit/test_topo
tests_unit_test_topo_SOURCES = tests/unit/test_topo.c
tests_unit_test_topo_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_topo_LDADD = $(UNIT_LDADD) $(PCI_LIBS) $(JSON_LIBS)
endif
