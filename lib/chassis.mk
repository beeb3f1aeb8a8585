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
