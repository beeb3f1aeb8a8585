# falcond/local.mk - falcond (the composer daemon), its unit tests (the
# ledger and placement, the history writer, the Slurm side of the
# quarantine), integration tests and benches.  The API it serves (munge
# binding, bodies, the client) is lib/api.

# The compose and the release with what they stand on (compose, detach;
# inventory, desc; keep, policy, place; state, ledger, history; resv,
# balance, slurmcheck): falcond, and test_compose which calls them directly.
FALCOND_COMPOSE_SRCS = \
	falcond/compose.c falcond/compose.h falcond/detach.c falcond/detach.h \
	falcond/inventory.c falcond/inventory.h falcond/desc.c falcond/desc.h \
	falcond/keep.c falcond/keep.h falcond/policy.c falcond/policy.h \
	falcond/place.c falcond/place.h falcond/state.c falcond/state.h \
	falcond/ledger.c falcond/ledger.h falcond/history.c falcond/history.h \
	falcond/resv.c falcond/resv.h falcond/balance.c falcond/balance.h \
	falcond/slurmcheck.c falcond/slurmcheck.h falcond/slurmjob.c falcond/slurmjob.h

if HAVE_CHECK
check_PROGRAMS += tests/unit/test_falcond
TESTS += tests/unit/test_falcond
tests_unit_test_falcond_SOURCES = tests/unit/test_falcond.c tests/unit/testutil.h \
	falcond/ledger.c falcond/ledger.h falcond/place.c falcond/place.h \
	falcond/policy.c falcond/policy.h falcond/keep.c falcond/keep.h
tests_unit_test_falcond_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_falcond_LDADD = $(LIBFALCON_API) $(LIBFALCON_CHASSIS) $(LIBFALCON_CORE) \
	$(CHECK_LIBS)

# the compose and the release called directly, against a real falcon-sim
check_PROGRAMS += tests/unit/test_compose
TESTS += tests/unit/test_compose
tests_unit_test_compose_SOURCES = tests/unit/test_compose.c tests/unit/testutil.h \
	$(FALCOND_COMPOSE_SRCS) falcond/decompose.c falcond/decompose.h \
	falcond/keepslurm.c falcond/keepslurm.h
tests_unit_test_compose_CFLAGS = $(UNIT_CFLAGS) $(CURL_CFLAGS) $(SLURM_CFLAGS) $(PTHREAD_CFLAGS)
tests_unit_test_compose_LDADD = $(LIBFALCON_API) $(LIBFALCON_CHASSIS) $(LIBFALCON_CORE) \
	$(JSON_LIBS) $(CURL_LIBS) $(SLURM_LIBS) $(PTHREAD_LIBS) $(CHECK_LIBS)

check_PROGRAMS += tests/unit/test_falcond_resv
TESTS += tests/unit/test_falcond_resv
tests_unit_test_falcond_resv_SOURCES = tests/unit/test_falcond_resv.c tests/unit/testutil.h \
	falcond/state.c falcond/state.h falcond/resv.c falcond/resv.h falcond/balance.c falcond/balance.h \
	falcond/slurmcheck.c falcond/slurmcheck.h falcond/ledger.c falcond/ledger.h \
	falcond/place.c falcond/place.h falcond/history.c falcond/history.h
tests_unit_test_falcond_resv_CFLAGS = $(UNIT_CFLAGS) $(SLURM_CFLAGS) $(PTHREAD_CFLAGS)
tests_unit_test_falcond_resv_LDADD = $(LIBFALCON_API) $(LIBFALCON_CHASSIS) $(LIBFALCON_CORE) \
	$(JSON_LIBS) $(SLURM_LIBS) $(PTHREAD_LIBS) $(CHECK_LIBS)

# the gauges the alert rules use (examples/falcon-alerts.yml), the states
# /v1/status gives, the status page drawn from them (statuspage.c)
check_PROGRAMS += tests/unit/test_falcond_status
TESTS += tests/unit/test_falcond_status
tests_unit_test_falcond_status_SOURCES = tests/unit/test_falcond_status.c tests/unit/testutil.h \
	falcond/statuspage.c falcond/statuspage.h falcond/ha.c falcond/ha.h \
	falcond/confgen.c falcond/confgen.h \
	falcond/status.c falcond/status.h falcond/state.c falcond/state.h falcond/keep.c falcond/keep.h \
	falcond/resv.c falcond/resv.h falcond/balance.c falcond/balance.h \
	falcond/slurmcheck.c falcond/slurmcheck.h falcond/ledger.c falcond/ledger.h \
	falcond/place.c falcond/place.h falcond/history.c falcond/history.h
tests_unit_test_falcond_status_CFLAGS = $(UNIT_CFLAGS) $(MHD_CFLAGS) $(SLURM_CFLAGS) \
	$(PTHREAD_CFLAGS)
tests_unit_test_falcond_status_LDADD = $(LIBFALCON_HTTPD) $(LIBFALCON_API) $(LIBFALCON_CHASSIS) \
	$(LIBFALCON_CORE) $(JSON_LIBS) $(MHD_LIBS) $(SLURM_LIBS) $(PTHREAD_LIBS) $(CHECK_LIBS) -lm

check_PROGRAMS += tests/unit/test_history
TESTS += tests/unit/test_history
tests_unit_test_history_SOURCES = tests/unit/test_history.c tests/unit/testutil.h \
	falcond/ledger.c falcond/ledger.h falcond/history.c falcond/history.h
tests_unit_test_history_CFLAGS = $(UNIT_CFLAGS) $(PTHREAD_CFLAGS)
tests_unit_test_history_LDADD = $(LIBFALCON_API) $(LIBFALCON_CHASSIS) $(LIBFALCON_CORE) \
	$(CHECK_LIBS) $(PTHREAD_LIBS)
# upgrades keep state: the ledger and history a packaged falcond 0.1.0 wrote
check_PROGRAMS += tests/unit/test_state_compat
TESTS += tests/unit/test_state_compat
tests_unit_test_state_compat_SOURCES = tests/unit/test_state_compat.c tests/unit/testutil.h \
	falcond/ledger.c falcond/ledger.h falcond/history.c falcond/history.h
tests_unit_test_state_compat_CFLAGS = $(UNIT_CFLAGS) $(PTHREAD_CFLAGS)
tests_unit_test_state_compat_LDADD = $(LIBFALCON_API) $(LIBFALCON_CHASSIS) $(LIBFALCON_CORE) \
	$(CHECK_LIBS) $(PTHREAD_LIBS)
endif

# From the top down (doc/ARCHITECTURE.md): main, the HTTP front, the status
# page, events; decompose, reconcile, quarantine, status; the compose and
# what it stands on (FALCOND_COMPOSE_SRCS); confgen, ha.
sbin_PROGRAMS += falcond/falcond
falcond_falcond_SOURCES = falcond/main.c \
	falcond/falcond.c falcond/falcond.h falcond/events.c falcond/events.h \
	falcond/decompose.c falcond/decompose.h falcond/keepslurm.c falcond/keepslurm.h \
	falcond/reconcile.c falcond/reconcile.h falcond/quarantine.c falcond/quarantine.h \
	falcond/status.c falcond/status.h falcond/statuspage.c falcond/statuspage.h \
	$(FALCOND_COMPOSE_SRCS) falcond/confgen.c falcond/confgen.h \
	falcond/ha.c falcond/ha.h
falcond_falcond_CFLAGS = $(AM_CFLAGS) $(JSON_CFLAGS) $(MHD_CFLAGS) $(MUNGE_CFLAGS) \
	$(SLURM_CFLAGS) $(PTHREAD_CFLAGS) $(SYSTEMD_CFLAGS)
falcond_falcond_LDADD = $(LIBFALCON_HTTPD) $(LIBFALCON_API) $(LIBFALCON_CHASSIS) $(LIBFALCON_CORE) \
	$(JSON_LIBS) $(MHD_LIBS) $(SLURM_LIBS) $(PTHREAD_LIBS) $(SYSTEMD_LIBS) -lm

FALCOND_ITESTS = tests/integration/falcond-api.sh tests/integration/falcond-crash.sh \
	tests/integration/falcond-faults.sh tests/integration/falcond-history.sh \
	tests/integration/falcond-ledger.sh tests/integration/falcond-zone.sh \
	tests/integration/falcond-events.sh tests/integration/falcond-settle.sh \
	tests/integration/falcond-subs.sh tests/integration/falcond-budget.sh \
	tests/integration/falcond-signals.sh tests/integration/falcond-ha.sh \
	tests/integration/falcond-idle.sh tests/integration/falcond-reload.sh \
	tests/integration/prolog-idle.sh tests/integration/falcond-heal.sh \
	tests/integration/falcond-desc.sh tests/integration/falcond-cabling.sh \
	tests/integration/falcond-fleet.sh tests/integration/falcond-starve.sh \
	tests/integration/falcond-stop.sh tests/integration/falcond-statuspage.sh \
	tests/integration/falcond-slowchassis.sh
if INTEGRATION_TESTS
TESTS += $(FALCOND_ITESTS)
endif
EXTRA_DIST += $(FALCOND_ITESTS) tests/integration/falcond-lib.sh \
	tests/integration/falcond-attack.py
# falcond-statuspage.sh keeps the page, /v1/status, chromium's DOM and
# screenshot here for a person to look at
clean-local:
	rm -rf tests/integration/falcond-statuspage.artefacts

dist_man_MANS += doc/falcond.8
EXTRA_DIST += examples/falcond.service.in \
	tests/unit/data/state-v1/ledger.json tests/unit/data/state-v1/history.jsonl
BUILT_SOURCES += examples/falcond.service
CLEANFILES += examples/falcond.service
examples/falcond.service: $(srcdir)/examples/falcond.service.in Makefile
	$(AM_V_GEN)mkdir -p examples && sed -e 's|@sbindir[@]|$(sbindir)|g' \
	  -e 's|@sysconfdir[@]|$(sysconfdir)|g' \
	  -e 's|@FALCOND_SERVICE_TYPE[@]|$(FALCOND_SERVICE_TYPE)|g' \
	  $(srcdir)/examples/falcond.service.in > $@
# configure --with-systemdsystemunitdir=DIR: the unit installed (packages)
if HAVE_SYSTEMDUNITDIR
systemdsystemunit_DATA = examples/falcond.service
endif

# Soak (by hand): 500 crash cycles, 1000 fault cycles.
SOAK_TARGETS += soak-falcond
soak-falcond: all
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' FALCOND_CYCLES=500 \
	  $(SHELL) $(srcdir)/tests/integration/falcond-crash.sh
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' FALCOND_CYCLES=1000 \
	  $(SHELL) $(srcdir)/tests/integration/falcond-faults.sh

# Bench (by hand): 64 clients, compose+decompose pairs/s vs munge pairs/s.
noinst_PROGRAMS += tests/bench/bench_falcond
tests_bench_bench_falcond_SOURCES = tests/bench/bench_falcond.c
tests_bench_bench_falcond_CFLAGS = $(AM_CFLAGS) $(JSON_CFLAGS) $(MUNGE_CFLAGS) $(PTHREAD_CFLAGS)
tests_bench_bench_falcond_LDADD = $(LIBFALCON_API) $(LIBFALCON_CHASSIS) $(LIBFALCON_CORE) \
	$(JSON_LIBS) $(PTHREAD_LIBS)
EXTRA_DIST += tests/bench/falcond
# Bench (by hand): p50/p99 of /v1/health and compose (falcon_client) with
# and without 2,000 idle + slowloris connections from other addresses, the
# ratio printed; then falconctl status and compose, quiet vs 2,000
# header-trickling connections from the clients' own address (issue 32),
# the ratio printed.
BENCH_TARGETS += bench-falcond-idle
bench-falcond-idle: falcond/falcond falconctl/falconctl sim/falcon-sim
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	  FALCOND_IDLE_ROUNDS=$${BENCH_ROUNDS:-100} \
	  $(SHELL) $(srcdir)/tests/integration/falcond-idle.sh
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	  FALCOND_STARVE_ROUNDS=$${BENCH_ROUNDS:-20} \
	  $(SHELL) $(srcdir)/tests/integration/falcond-starve.sh
# Bench (by hand): a restart's start-up reconcile and a compose under a slow
# chassis, device descriptions kept vs every device read; the ratios printed.
BENCH_TARGETS += bench-falcond-restart
bench-falcond-restart: falcond/falcond falconctl/falconctl sim/falcon-sim
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	  $(SHELL) $(srcdir)/tests/bench/falcond-restart
EXTRA_DIST += tests/bench/falcond-restart
# Bench (by hand): falcond over 1, 4, 16 chassis (BENCH_CHASSIS) at 1 s per
# request: start-up cold and warm, a reconcile pass, falconctl status, RSS;
# each against one chassis' (issue 41's cost table).
BENCH_TARGETS += bench-falcond-fleet-start
bench-falcond-fleet-start: falcond/falcond falconctl/falconctl sim/falcon-sim
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	  $(SHELL) $(srcdir)/tests/bench/falcond-fleet-start
EXTRA_DIST += tests/bench/falcond-fleet-start
# Bench (by hand): a 1-GPU and a 4-GPU job's compose + release under a slow
# chassis, placement reading at every compose vs InventoryReuse; requests,
# seconds and ratios printed.
BENCH_TARGETS += bench-falcond-compose
bench-falcond-compose: falcond/falcond falconctl/falconctl sim/falcon-sim
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	  $(SHELL) $(srcdir)/tests/bench/falcond-compose
EXTRA_DIST += tests/bench/falcond-compose
# Bench (by hand): 16 clients x compose(2 GPUs)+release cycles over 4
# chassis x 4 hosts at 1 s and 0-3 s per request, beside one cycle alone.
BENCH_TARGETS += bench-falcond-cycles
bench-falcond-cycles: tests/bench/bench_falcond falcond/falcond sim/falcon-sim
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	  $(SHELL) $(srcdir)/tests/bench/falcond-cycles
EXTRA_DIST += tests/bench/falcond-cycles
# Bench (by hand): one ledger commit alone, the whole file rewritten vs a
# log record appended (ms and bytes per commit), in a fresh directory.
noinst_PROGRAMS += tests/bench/bench_ledger
tests_bench_bench_ledger_SOURCES = tests/bench/bench_ledger.c falcond/ledger.c falcond/ledger.h
tests_bench_bench_ledger_CFLAGS = $(AM_CFLAGS) $(JSON_CFLAGS)
tests_bench_bench_ledger_LDADD = $(LIBFALCON_API) $(LIBFALCON_CHASSIS) $(LIBFALCON_CORE) \
	$(JSON_LIBS)
BENCH_TARGETS += bench-ledger
bench-ledger: tests/bench/bench_ledger
	d=$$(mktemp -d) && tests/bench/bench_ledger "$$d" $${BENCH_COMMITS:-1000}; \
	  rc=$$?; rm -rf "$$d"; exit $$rc
BENCH_TARGETS += bench-falcond
bench-falcond: tests/bench/bench_falcond
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	  $(SHELL) $(srcdir)/tests/bench/falcond
