# composer/report.mk - falconctl report (accounting per topology): the pure
# part in composer/report.c (used by falconctl only), its unit test, the
# cluster test and the bench.

if HAVE_CHECK
check_PROGRAMS += tests/unit/test_report
TESTS += tests/unit/test_report
tests_unit_test_report_SOURCES = tests/unit/test_report.c tests/unit/testutil.h \
	composer/report.c composer/report.h
tests_unit_test_report_CFLAGS = $(UNIT_CFLAGS) $(JSON_CFLAGS)
tests_unit_test_report_LDADD = $(LIBFALCON_CORE) $(CHECK_LIBS) $(JSON_LIBS)
check_PROGRAMS += tests/unit/test_history
TESTS += tests/unit/test_history
tests_unit_test_history_SOURCES = tests/unit/test_history.c tests/unit/testutil.h \
	composer/falcond.h composer/falcond_ledger.c composer/falcond_history.c \
	composer/falcond_history.h
tests_unit_test_history_CFLAGS = $(UNIT_CFLAGS) $(PTHREAD_CFLAGS)
tests_unit_test_history_LDADD = $(LIBFALCON_API) $(LIBFALCON_CHASSIS) $(LIBFALCON_CORE) \
	$(CHECK_LIBS) $(PTHREAD_LIBS)
endif

composer_falconctl_SOURCES += composer/falconctl_report.c composer/report.c \
	composer/report.h
composer_falconctl_CFLAGS += $(SLURM_CFLAGS)
composer_falconctl_LDADD += $(SLURM_LIBS)

if INTEGRATION_TESTS
TESTS += tests/integration/report.sh
endif
EXTRA_DIST += tests/integration/report.sh

# Bench (by hand, root): report over 100k synthetic slurmdbd jobs vs sacct.
EXTRA_DIST += tests/bench/report
BENCH_TARGETS += bench-report
bench-report: all
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	  $(SHELL) $(srcdir)/tests/bench/report
