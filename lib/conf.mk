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
