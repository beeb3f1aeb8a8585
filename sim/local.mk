# sim/local.mk - falcon-sim, the Falcon 4016 chassis emulator.

bin_PROGRAMS += sim/falcon-sim
sim_falcon_sim_SOURCES = \
	sim/falcon-sim.c sim/sim.h sim/sim_server.h \
	sim/sim_config.c sim/sim_model.c sim/sim_redfish.c sim/sim_host.c sim/sim_odata.c \
	sim/sim_events.c sim/sim_accounts.c sim/sim_subs.c sim/sim_schema.c
sim_falcon_sim_CFLAGS = $(AM_CFLAGS) $(JSON_CFLAGS) $(MHD_CFLAGS) $(PCI_CFLAGS) \
	$(CURL_CFLAGS) $(PTHREAD_CFLAGS)
sim_falcon_sim_LDADD = $(LIBFALCON_HTTPD) $(LIBFALCON_PCI) $(LIBFALCON_CORE) $(JSON_LIBS) \
	$(MHD_LIBS) $(CURL_LIBS) $(PTHREAD_LIBS)
dist_man_MANS += doc/falcon-sim.1
EXTRA_DIST += examples/falcon-sim.json

if HAVE_CHECK
check_PROGRAMS += tests/unit/test_sim
TESTS += tests/unit/test_sim
tests_unit_test_sim_SOURCES = tests/unit/test_sim.c tests/unit/testutil.h \
	sim/sim.h sim/sim_config.c sim/sim_model.c
tests_unit_test_sim_CFLAGS = $(UNIT_CFLAGS) -I$(top_srcdir)/sim
tests_unit_test_sim_LDADD = $(LIBFALCON_PCI) $(LIBFALCON_CORE) $(CHECK_LIBS) $(JSON_LIBS)
endif

SIM_TESTS = \
	tests/integration/sim-redfish.sh \
	tests/integration/sim-composition.sh \
	tests/integration/sim-auth.sh \
	tests/integration/sim-faults.sh \
	tests/integration/sim-host.sh \
	tests/integration/sim-protocol.sh \
	tests/integration/sim-sushy.sh \
	tests/integration/sim-events.sh \
	tests/integration/sim-tls.sh \
	tests/integration/sim-roles.sh \
	tests/integration/sim-subs.sh \
	tests/integration/sim-oem.sh
if INTEGRATION_TESTS
TESTS += $(SIM_TESTS)
endif
EXTRA_DIST += $(SIM_TESTS) tests/integration/sim-lib.sh tests/integration/tls-lib.sh

# libFuzzer over the configuration/fault parsers (by hand: make fuzz-sim-config).
FUZZ_TARGETS += fuzz-sim-config
EXTRA_DIST += tests/fuzz/fuzz_sim_config.c
fuzz-sim-config:
	$(MKDIR_P) tests/fuzz/corpus-sim-config
	$(CLANG) $(FUZZ_CFLAGS) $(AM_CPPFLAGS) -I$(top_srcdir)/sim $(JSON_CFLAGS) \
		-o tests/fuzz/fuzz_sim_config $(top_srcdir)/tests/fuzz/fuzz_sim_config.c \
		$(top_srcdir)/sim/sim_config.c $(top_srcdir)/sim/sim_model.c \
		$(addprefix $(top_srcdir)/,$(CORE_SRCS)) $(JSON_LIBS) -lm
	cp $(top_srcdir)/examples/falcon-sim.json tests/fuzz/corpus-sim-config/example.json
	tests/fuzz/fuzz_sim_config -max_total_time=$(FUZZ_SECONDS) -max_len=16384 \
		tests/fuzz/corpus-sim-config
CLEANFILES += tests/fuzz/fuzz_sim_config
