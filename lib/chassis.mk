# lib/chassis.mk - the chassis client (Redfish over libcurl + json-c), its
# unit tests, the mockup fixture server, integration tests against DMTF's
# mockups and falcon-sim, the fuzzer and the benchmark.

lib_libfalcon_la_SOURCES += \
	lib/redfish.c lib/redfish.h \
	lib/chassis.c lib/chassis_backend.h \
	lib/rf_fabric.c lib/rf_composition.c

# falconctl inventory is documented in doc/falconctl.1 (composer/local.mk).

# A static HTTP server for DMTF mockup directories (libmicrohttpd).
check_PROGRAMS += tests/fixture-server
tests_fixture_server_SOURCES = tests/fixture-server.c
tests_fixture_server_CFLAGS = $(AM_CFLAGS) $(MHD_CFLAGS) $(PTHREAD_CFLAGS)
tests_fixture_server_LDADD = lib/libfalcon.la $(MHD_LIBS) $(PTHREAD_LIBS)

EXTRA_DIST += tests/integration/chassis-mockup.sh
if INTEGRATION_TESTS
TESTS += tests/integration/chassis-mockup.sh
endif

if HAVE_CHECK
check_PROGRAMS += tests/unit/test_redfish
TESTS += tests/unit/test_redfish
tests_unit_test_redfish_SOURCES = tests/unit/test_redfish.c tests/unit/testutil.h
tests_unit_test_redfish_CFLAGS = $(UNIT_CFLAGS) $(MHD_CFLAGS) $(PTHREAD_CFLAGS)
tests_unit_test_redfish_LDADD = $(UNIT_LDADD) $(MHD_LIBS) $(PTHREAD_LIBS)
endif

# Drives the client from shell tests and the benchmark.
check_PROGRAMS += tests/chassis-client
tests_chassis_client_SOURCES = tests/chassis-client.c
tests_chassis_client_LDADD = lib/libfalcon.la

EXTRA_DIST += tests/integration/chassis-sim.sh
if INTEGRATION_TESTS
TESTS += tests/integration/chassis-sim.sh
endif
