# lib/chassis/local.mk - libfalcon_chassis: the chassis client (Redfish
# over libcurl + json-c), listed bottom-up: the Redfish JSON helpers, the
# mockup-directory reader, the HTTP client; the layer both backends share;
# the two backends; the front end.  Depends on lib/core only.
# Also its unit tests, the mockup fixture server, integration tests against
# DMTF's mockups and falcon-sim, the fuzzer and the benchmark.

noinst_LTLIBRARIES += lib/chassis/libfalcon_chassis.la
CHASSIS_SRCS = lib/chassis/rf_json.c lib/chassis/rf_sse.c lib/chassis/rf_dir.c lib/chassis/rf_http.c \
	lib/chassis/chassis_common.c lib/chassis/chassis_describe.c lib/chassis/chassis_events.c \
	lib/chassis/rf_fabric.c lib/chassis/rf_composition.c lib/chassis/chassis.c
lib_chassis_libfalcon_chassis_la_SOURCES = $(CHASSIS_SRCS) \
	lib/chassis/redfish.h lib/chassis/chassis.h lib/chassis/chassis_types.h lib/chassis/chassis_backend.h \
	lib/chassis/chassis_common.h
lib_chassis_libfalcon_chassis_la_CFLAGS = $(AM_CFLAGS) $(JSON_CFLAGS) $(CURL_CFLAGS)
lib_chassis_libfalcon_chassis_la_LIBADD = $(JSON_LIBS) $(CURL_LIBS)

# falconctl inventory is documented in doc/falconctl.1 (falconctl/local.mk).

# A static HTTP server for DMTF mockup directories (libmicrohttpd).
check_PROGRAMS += tests/fixture-server
tests_fixture_server_SOURCES = tests/fixture-server.c
tests_fixture_server_CFLAGS = $(AM_CFLAGS) $(JSON_CFLAGS) $(MHD_CFLAGS) $(PTHREAD_CFLAGS)
tests_fixture_server_LDADD = $(LIBFALCON_CHASSIS) $(LIBFALCON_CORE) $(MHD_LIBS) \
	$(PTHREAD_LIBS)

EXTRA_DIST += tests/integration/chassis-mockup.sh tests/integration/chassis-discover.sh \
	tests/integration/chassis-tasks.sh
if INTEGRATION_TESTS
TESTS += tests/integration/chassis-mockup.sh tests/integration/chassis-discover.sh \
	tests/integration/chassis-tasks.sh
endif

if HAVE_CHECK
# One test per file group; those that speak HTTP share the in-process
# chassis of tests/unit/rf_test_srv.c, all share tests/unit/rf_test.h.
CHASSIS_UNIT = tests/unit/test_rf_json tests/unit/test_chassis_events \
	tests/unit/test_chassis tests/unit/test_rf_http tests/unit/test_rf_fabric \
	tests/unit/test_rf_composition
check_PROGRAMS += $(CHASSIS_UNIT)
TESTS += $(CHASSIS_UNIT)
CHASSIS_UNIT_HDRS = tests/unit/rf_test.h tests/unit/testutil.h
CHASSIS_UNIT_LDADD = $(LIBFALCON_CHASSIS) $(LIBFALCON_CORE) $(CHECK_LIBS)
CHASSIS_SRV_LDADD = $(CHASSIS_UNIT_LDADD) $(MHD_LIBS) $(PTHREAD_LIBS)
CHASSIS_SRV_CFLAGS = $(UNIT_CFLAGS) $(MHD_CFLAGS) $(PTHREAD_CFLAGS)
tests_unit_test_rf_json_SOURCES = tests/unit/test_rf_json.c $(CHASSIS_UNIT_HDRS)
tests_unit_test_rf_json_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_rf_json_LDADD = $(CHASSIS_UNIT_LDADD)
tests_unit_test_chassis_events_SOURCES = tests/unit/test_chassis_events.c $(CHASSIS_UNIT_HDRS)
tests_unit_test_chassis_events_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_chassis_events_LDADD = $(CHASSIS_UNIT_LDADD)
tests_unit_test_chassis_SOURCES = tests/unit/test_chassis.c $(CHASSIS_UNIT_HDRS)
tests_unit_test_chassis_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_chassis_LDADD = $(CHASSIS_UNIT_LDADD)
tests_unit_test_rf_http_SOURCES = tests/unit/test_rf_http.c tests/unit/rf_test_srv.c \
	$(CHASSIS_UNIT_HDRS)
tests_unit_test_rf_http_CFLAGS = $(CHASSIS_SRV_CFLAGS)
tests_unit_test_rf_http_LDADD = $(CHASSIS_SRV_LDADD)
tests_unit_test_rf_fabric_SOURCES = tests/unit/test_rf_fabric.c tests/unit/rf_test_srv.c \
	$(CHASSIS_UNIT_HDRS)
tests_unit_test_rf_fabric_CFLAGS = $(CHASSIS_SRV_CFLAGS)
tests_unit_test_rf_fabric_LDADD = $(CHASSIS_SRV_LDADD)
tests_unit_test_rf_composition_SOURCES = tests/unit/test_rf_composition.c \
	tests/unit/rf_test_srv.c $(CHASSIS_UNIT_HDRS)
tests_unit_test_rf_composition_CFLAGS = $(CHASSIS_SRV_CFLAGS)
tests_unit_test_rf_composition_LDADD = $(CHASSIS_SRV_LDADD)
endif

# Drives the client from shell tests and the benchmark.
check_PROGRAMS += tests/chassis-client
tests_chassis_client_SOURCES = tests/chassis-client.c
tests_chassis_client_CFLAGS = $(AM_CFLAGS) $(JSON_CFLAGS)
tests_chassis_client_LDADD = $(LIBFALCON_CHASSIS) $(LIBFALCON_CORE)

EXTRA_DIST += tests/integration/chassis-sim.sh
if INTEGRATION_TESTS
TESTS += tests/integration/chassis-sim.sh
endif

# libFuzzer over the Redfish response handling (by hand:
# make fuzz-redfish FUZZ_SECONDS=600); seeds from DMTF's mockups.
FUZZ_TARGETS += fuzz-redfish
EXTRA_DIST += tests/fuzz/fuzz_redfish.c tests/fuzz/redfish-seeds.sh
fuzz-redfish:
	$(MKDIR_P) tests/fuzz/corpus-redfish
	$(CLANG) $(FUZZ_CFLAGS) $(AM_CPPFLAGS) $(JSON_CFLAGS) $(CURL_CFLAGS) \
		-o tests/fuzz/fuzz_redfish $(top_srcdir)/tests/fuzz/fuzz_redfish.c \
		$(addprefix $(top_srcdir)/,$(CHASSIS_SRCS) $(CORE_SRCS)) \
		$(JSON_LIBS) $(CURL_LIBS) -lpthread -lm
	FALCON_SHARED="$${FALCON_SHARED:-$(abs_top_srcdir)/../shared}" \
		$(SHELL) $(top_srcdir)/tests/fuzz/redfish-seeds.sh tests/fuzz/corpus-redfish
	tests/fuzz/fuzz_redfish -max_total_time=$(FUZZ_SECONDS) -max_len=131072 \
		-timeout=10 tests/fuzz/corpus-redfish
CLEANFILES += tests/fuzz/fuzz_redfish

# Round trips through the client against falcon-sim vs plain GETs (by hand:
# make bench-sim [BENCH_N=2000]).
BENCH_TARGETS += bench-sim
EXTRA_DIST += tests/bench/sim
bench-sim: sim/falcon-sim tests/chassis-client
	top_builddir=$(abs_top_builddir) $(SHELL) $(top_srcdir)/tests/bench/sim

# TLS handshakes per compose over HTTPS, a kept client vs a new one per
# compose (by hand: make bench-sim-tls [BENCH_N=20]).
BENCH_TARGETS += bench-sim-tls
EXTRA_DIST += tests/bench/sim-tls
bench-sim-tls: sim/falcon-sim tests/chassis-client
	top_builddir=$(abs_top_builddir) top_srcdir=$(abs_top_srcdir) \
		$(SHELL) $(top_srcdir)/tests/bench/sim-tls
