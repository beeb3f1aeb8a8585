# lib/api/local.mk - libfalcon_api: falcond's request API: munge request
# binding (auth), request/response bodies (proto), the client
# (falcond_client, libcurl, set up by itself).  Depends on lib/core only.
# Also its unit test and the fuzzer.

noinst_LTLIBRARIES += lib/api/libfalcon_api.la
API_SRCS = lib/api/auth.c lib/api/proto.c lib/api/falcond_client.c
lib_api_libfalcon_api_la_SOURCES = $(API_SRCS) \
	lib/api/auth.h lib/api/proto.h lib/api/falcond_client.h
lib_api_libfalcon_api_la_CFLAGS = $(AM_CFLAGS) $(JSON_CFLAGS) $(CURL_CFLAGS) \
	$(MUNGE_CFLAGS) $(CRYPTO_CFLAGS)
lib_api_libfalcon_api_la_LIBADD = $(JSON_LIBS) $(CURL_LIBS) $(MUNGE_LIBS) $(CRYPTO_LIBS)

if HAVE_CHECK
check_PROGRAMS += tests/unit/test_proto
TESTS += tests/unit/test_proto
tests_unit_test_proto_SOURCES = tests/unit/test_proto.c tests/unit/testutil.h
tests_unit_test_proto_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_proto_LDADD = $(LIBFALCON_API) $(LIBFALCON_CORE) $(CHECK_LIBS)
endif

# libFuzzer over request parsing (make fuzz-falcond; FUZZ_SECONDS, default 600).
FUZZ_TARGETS += fuzz-falcond
EXTRA_DIST += tests/fuzz/fuzz_request.c tests/fuzz/seeds-request
fuzz-falcond: config.h
	@mkdir -p tests/fuzz/corpus-request
	$(CLANG) $(FUZZ_CFLAGS) $(AM_CPPFLAGS) $(JSON_CFLAGS) $(CRYPTO_CFLAGS) -o tests/fuzz/fuzz_request \
	  $(srcdir)/tests/fuzz/fuzz_request.c $(srcdir)/lib/api/proto.c $(srcdir)/lib/api/auth.c \
	  $(addprefix $(srcdir)/,$(CORE_SRCS)) $(JSON_LIBS) $(CRYPTO_LIBS) $(MUNGE_LIBS) -lm
	tests/fuzz/fuzz_request -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	  tests/fuzz/corpus-request $(srcdir)/tests/fuzz/seeds-request
CLEANFILES += tests/fuzz/fuzz_request
