# falconctl/local.mk - falconctl, the admin/user CLI: every part of lib/
# (topo: lib/pci, inventory: lib/chassis, falcond commands: lib/api) and
# libslurmdb for `falconctl report` (accounting per topology: the pure
# part in falconctl/report.c) and `falconctl advise` (the pure part in
# falconctl/advise.c), its unit test, the cluster test and the
# bench.

# The advisor's pure part and the report rows it reads, for
# job_submit_falcon's --falcon-topology=auto (plugin/job_submit.mk): PIC,
# json-c, no libslurm.
noinst_LTLIBRARIES += falconctl/libfalcon_advise.la
falconctl_libfalcon_advise_la_SOURCES = falconctl/advise.c falconctl/advise.h \
	falconctl/report.c falconctl/report.h
falconctl_libfalcon_advise_la_CFLAGS = $(AM_CFLAGS) $(JSON_CFLAGS)
falconctl_libfalcon_advise_la_LIBADD = $(JSON_LIBS)

bin_PROGRAMS += falconctl/falconctl
falconctl_falconctl_SOURCES = \
	falconctl/falconctl.c falconctl/exitcode.h \
	falconctl/topo.c falconctl/topo.h \
	falconctl/inventory.c falconctl/inventory.h \
	falconctl/falcond_cmds.c falconctl/falcond_cmds.h \
	falconctl/again.c falconctl/again.h \
	falconctl/report_cmd.c falconctl/report_cmd.h \
	falconctl/advise_cmd.c falconctl/advise_cmd.h \
	falconctl/slurmconf.c falconctl/slurmconf.h \
	falconctl/report.c falconctl/report.h \
	falconctl/advise.c falconctl/advise.h
falconctl_falconctl_CFLAGS = $(AM_CFLAGS) $(PCI_CFLAGS) $(JSON_CFLAGS) $(CURL_CFLAGS) \
	$(MUNGE_CFLAGS) $(SLURM_CFLAGS)
falconctl_falconctl_LDADD = $(LIBFALCON_API) $(LIBFALCON_CHASSIS) $(LIBFALCON_PCI) \
	$(LIBFALCON_CORE) $(JSON_LIBS) $(SLURM_LIBS)
dist_man_MANS += doc/falconctl.1

if HAVE_CHECK
check_PROGRAMS += tests/unit/test_report
TESTS += tests/unit/test_report
tests_unit_test_report_SOURCES = tests/unit/test_report.c tests/unit/testutil.h \
	falconctl/report.c falconctl/report.h
tests_unit_test_report_CFLAGS = $(UNIT_CFLAGS) $(JSON_CFLAGS)
tests_unit_test_report_LDADD = $(LIBFALCON_CORE) $(CHECK_LIBS) $(JSON_LIBS)
check_PROGRAMS += tests/unit/test_advise
TESTS += tests/unit/test_advise
tests_unit_test_advise_SOURCES = tests/unit/test_advise.c tests/unit/testutil.h \
	falconctl/advise.c falconctl/advise.h falconctl/report.c falconctl/report.h
tests_unit_test_advise_CFLAGS = $(UNIT_CFLAGS) $(JSON_CFLAGS)
tests_unit_test_advise_LDADD = $(LIBFALCON_CORE) $(CHECK_LIBS) $(JSON_LIBS)
endif

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

# Bench (by hand, no cluster): the replay of a job trace, always-local vs
# always-falcon vs --falcon-topology=auto's rule (issue 31).
noinst_PROGRAMS += tests/bench/bench_replay
tests_bench_bench_replay_SOURCES = tests/bench/bench_replay.c
tests_bench_bench_replay_CFLAGS = $(AM_CFLAGS) $(JSON_CFLAGS)
tests_bench_bench_replay_LDADD = falconctl/libfalcon_advise.la $(LIBFALCON_CORE) $(JSON_LIBS) -lm
BENCH_TARGETS += bench-replay
bench-replay: tests/bench/bench_replay
	tests/bench/bench_replay $${BENCH_JOBS:-400} $${BENCH_SEED:-1}
