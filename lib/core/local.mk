# lib/core/local.mk - libfalcon_core: errors, logging, numbers and files,
# falcon.conf(5) (and its reload), the job tag, the partition policy judge
# and job_submit_falcon's decisions (submit.c).  No library
# beyond libc and libm: everything else in the tree may link it, the SPANK
# and job_submit plugins included.

noinst_LTLIBRARIES += lib/core/libfalcon_core.la
CORE_SRCS = lib/core/falcon_err.c lib/core/log.c lib/core/util.c lib/core/device.c \
	lib/core/conf.c lib/core/conf_lex.c lib/core/jobtag.c lib/core/policy.c lib/core/fleet.c \
	lib/core/submit.c lib/core/reload.c
lib_core_libfalcon_core_la_SOURCES = $(CORE_SRCS) \
	lib/core/falcon_err.h lib/core/log.h lib/core/util.h lib/core/device.h \
	lib/core/conf.h lib/core/conf_lex.h lib/core/jobtag.h lib/core/policy.h lib/core/fleet.h \
	lib/core/submit.h lib/core/reload.h
lib_core_libfalcon_core_la_LIBADD = -lm

if HAVE_CHECK
check_PROGRAMS += tests/unit/test_core tests/unit/test_conf tests/unit/test_policy \
	tests/unit/test_jobtag tests/unit/test_fleet tests/unit/test_submit tests/unit/test_reload
TESTS += tests/unit/test_core tests/unit/test_conf tests/unit/test_policy \
	tests/unit/test_jobtag tests/unit/test_fleet tests/unit/test_submit tests/unit/test_reload
tests_unit_test_core_SOURCES = tests/unit/test_core.c tests/unit/testutil.h
tests_unit_test_core_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_core_LDADD = $(LIBFALCON_CORE) $(CHECK_LIBS)
tests_unit_test_conf_SOURCES = tests/unit/test_conf.c tests/unit/testutil.h
tests_unit_test_conf_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_conf_LDADD = $(LIBFALCON_CORE) $(CHECK_LIBS)
tests_unit_test_policy_SOURCES = tests/unit/test_policy.c tests/unit/testutil.h
tests_unit_test_policy_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_policy_LDADD = $(LIBFALCON_CORE) $(CHECK_LIBS)
tests_unit_test_jobtag_SOURCES = tests/unit/test_jobtag.c tests/unit/testutil.h
tests_unit_test_jobtag_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_jobtag_LDADD = $(LIBFALCON_CORE) $(CHECK_LIBS)
tests_unit_test_fleet_SOURCES = tests/unit/test_fleet.c tests/unit/testutil.h
tests_unit_test_fleet_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_fleet_LDADD = $(LIBFALCON_CORE) $(CHECK_LIBS)
# job_submit_falcon's decisions over a fake slurmctld
tests_unit_test_submit_SOURCES = tests/unit/test_submit.c tests/unit/testutil.h
tests_unit_test_submit_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_submit_LDADD = $(LIBFALCON_CORE) $(CHECK_LIBS)
tests_unit_test_reload_SOURCES = tests/unit/test_reload.c tests/unit/testutil.h
tests_unit_test_reload_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_reload_LDADD = $(LIBFALCON_CORE) $(CHECK_LIBS)
endif

# falcon.conf(5), and falcon(7), the users' page: falcon-slurm-common's
dist_man_MANS += doc/falcon.conf.5 doc/falcon.7
EXTRA_DIST += examples/falcon.conf

# libFuzzer over the falcon.conf parser (by hand: make fuzz-conf
# FUZZ_SECONDS=600).
FUZZ_TARGETS += fuzz-conf
EXTRA_DIST += tests/fuzz/fuzz_conf.c
fuzz-conf:
	$(MKDIR_P) tests/fuzz/corpus-conf
	$(CLANG) $(FUZZ_CFLAGS) $(AM_CPPFLAGS) -o tests/fuzz/fuzz_conf \
		$(top_srcdir)/tests/fuzz/fuzz_conf.c \
		$(addprefix $(top_srcdir)/,$(CORE_SRCS)) -lm
	cp $(top_srcdir)/examples/falcon.conf tests/fuzz/corpus-conf/example.conf
	tests/fuzz/fuzz_conf -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
		tests/fuzz/corpus-conf
CLEANFILES += tests/fuzz/fuzz_conf
