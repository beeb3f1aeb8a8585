# lib/conf.mk - falcon.conf(5): the parser, its unit test, its man page and
# the example file.

lib_libfalcon_la_SOURCES += lib/conf.c

if HAVE_CHECK
check_PROGRAMS += tests/unit/test_conf
TESTS += tests/unit/test_conf
tests_unit_test_conf_SOURCES = tests/unit/test_conf.c tests/unit/testutil.h
tests_unit_test_conf_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_conf_LDADD = $(UNIT_LDADD)
endif

dist_man_MANS += doc/falcon.conf.5
EXTRA_DIST += examples/falcon.conf

# libFuzzer over the parser (by hand: make fuzz-conf FUZZ_SECONDS=600).
FUZZ_TARGETS += fuzz-conf
EXTRA_DIST += tests/fuzz/fuzz_conf.c
fuzz-conf:
	$(MKDIR_P) tests/fuzz/corpus-conf
	$(CLANG) $(FUZZ_CFLAGS) $(AM_CPPFLAGS) $(CURL_CFLAGS) -o tests/fuzz/fuzz_conf \
		$(top_srcdir)/tests/fuzz/fuzz_conf.c $(top_srcdir)/lib/conf.c \
		$(top_srcdir)/lib/util.c $(top_srcdir)/lib/falcon_err.c $(CURL_LIBS)
	cp $(top_srcdir)/examples/falcon.conf tests/fuzz/corpus-conf/example.conf
	tests/fuzz/fuzz_conf -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
		tests/fuzz/corpus-conf
CLEANFILES += tests/fuzz/fuzz_conf
