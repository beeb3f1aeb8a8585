# lib/advise/local.mk - libfalcon_advise: accounting per topology (report.c:
# the pure part of `falconctl report`), the topology advisor (advise.c:
# that of `falconctl advise`) and --falcon-topology=auto at submit (auto.c),
# which falconctl and job_submit_falcon.so both link.  libc, libm and json-c; depends on
# lib/core only; what needs libslurmdb stays in falconctl/.

noinst_LTLIBRARIES += lib/advise/libfalcon_advise.la
ADVISE_SRCS = lib/advise/report.c lib/advise/advise.c lib/advise/auto.c
lib_advise_libfalcon_advise_la_SOURCES = $(ADVISE_SRCS) \
	lib/advise/report.h lib/advise/advise.h lib/advise/auto.h
lib_advise_libfalcon_advise_la_CFLAGS = $(AM_CFLAGS) $(JSON_CFLAGS)
lib_advise_libfalcon_advise_la_LIBADD = $(JSON_LIBS) -lm

if HAVE_CHECK
check_PROGRAMS += tests/unit/test_report tests/unit/test_advise tests/unit/test_auto
TESTS += tests/unit/test_report tests/unit/test_advise tests/unit/test_auto
tests_unit_test_report_SOURCES = tests/unit/test_report.c tests/unit/testutil.h
tests_unit_test_report_CFLAGS = $(UNIT_CFLAGS) $(JSON_CFLAGS)
tests_unit_test_report_LDADD = $(LIBFALCON_ADVISE) $(LIBFALCON_CORE) $(CHECK_LIBS) $(JSON_LIBS)
tests_unit_test_advise_SOURCES = tests/unit/test_advise.c tests/unit/testutil.h
tests_unit_test_advise_CFLAGS = $(UNIT_CFLAGS) $(JSON_CFLAGS)
tests_unit_test_advise_LDADD = $(LIBFALCON_ADVISE) $(LIBFALCON_CORE) $(CHECK_LIBS) $(JSON_LIBS)
# --falcon-topology=auto at submit over a fake slurmctld, the AdviceFile kept
tests_unit_test_auto_SOURCES = tests/unit/test_auto.c tests/unit/testutil.h
tests_unit_test_auto_CFLAGS = $(UNIT_CFLAGS) $(JSON_CFLAGS)
tests_unit_test_auto_LDADD = $(LIBFALCON_ADVISE) $(LIBFALCON_CORE) $(CHECK_LIBS) $(JSON_LIBS)
endif

# Bench (by hand, no cluster): the replay of a job trace, always-local vs
# always-falcon vs --falcon-topology=auto's rule (issue 31); and its fleet
# mode (issue 41): a fleet's jobs placed per chassis, by job_submit's
# falcon_fleet_place() with falcond's falcond_place(), and in one ideal
# pool, at 8 nodes / 4 chassis (make bench-fleet's shape) and 1,000 nodes /
# 128 chassis.
noinst_PROGRAMS += tests/bench/bench_replay
tests_bench_bench_replay_SOURCES = tests/bench/bench_replay.c tests/bench/replay_fleet.c \
	tests/bench/replay_fleet.h falcond/place.c falcond/place.h falcond/ledger.c \
	falcond/ledger.h
tests_bench_bench_replay_CFLAGS = $(AM_CFLAGS) $(JSON_CFLAGS)
tests_bench_bench_replay_LDADD = $(LIBFALCON_ADVISE) $(LIBFALCON_API) $(LIBFALCON_CHASSIS) \
	$(LIBFALCON_CORE) $(JSON_LIBS) -lm
BENCH_TARGETS += bench-replay
bench-replay: tests/bench/bench_replay
	tests/bench/bench_replay $${BENCH_JOBS:-400} $${BENCH_SEED:-1}
	tests/bench/bench_replay --fleet 8 4 $${BENCH_FLEET_JOBS:-20000} $${BENCH_SEED:-1}
	tests/bench/bench_replay --fleet 64 16 $${BENCH_FLEET_JOBS:-20000} $${BENCH_SEED:-1}
	tests/bench/bench_replay --fleet 1000 128 $${BENCH_FLEET_JOBS:-20000} $${BENCH_SEED:-1}
