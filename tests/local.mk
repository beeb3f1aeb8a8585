# tests/local.mk - the test harness.
#
# Unit tests (check) are check_PROGRAMS run by automake's parallel harness;
# each prints check's summary line ("100%: Checks: N, Failures: 0, Errors: 0")
# into its .log, and `make check` prints those lines at the end.  Shell tests
# (integration) exit 77 to report themselves skipped when what they need is
# missing (not root, no ../shared fixtures, no munged).

TEST_EXTENSIONS = .sh
# each shell test in namespaces and cgroups of its own (tests/isolate.sh)
SH_LOG_COMPILER = $(SHELL) $(top_srcdir)/tests/isolate.sh $(SHELL)
AM_TESTS_ENVIRONMENT = \
	top_srcdir='$(abs_top_srcdir)'; top_builddir='$(abs_top_builddir)'; \
	FALCON_SHARED="$${FALCON_SHARED:-$(abs_top_srcdir)/../shared}"; \
	CK_DEFAULT_TIMEOUT=60; \
	JOB_SUBMIT_DEFS='$(JOB_SUBMIT_DEFS)'; \
	export top_srcdir top_builddir FALCON_SHARED CK_DEFAULT_TIMEOUT JOB_SUBMIT_DEFS;

UNIT_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(PCI_CFLAGS) $(JSON_CFLAGS) \
	$(CURL_CFLAGS) $(MUNGE_CFLAGS) \
	-DFALCON_TEST_SRCDIR='"$(abs_top_srcdir)"' \
	-DFALCON_TEST_BUILDDIR='"$(abs_top_builddir)"'

EXTRA_DIST += tests/lib.sh tests/isolate.sh

# The Prometheus alert rules shipped (examples/falcon-alerts.yml): promtool's
# checks and rule unit tests, the metric names against a real falcond.
if INTEGRATION_TESTS
TESTS += tests/integration/alerts.sh
endif
EXTRA_DIST += tests/integration/alerts.sh tests/alerts/falcon-alerts-test.yml \
	examples/falcon-alerts.yml

# The shape of the tree (doc/ARCHITECTURE.md) read off the built objects:
# no file cycles, lib parts downwards, lean plugins, short functions.
TESTS += tests/layering.sh
EXTRA_DIST += tests/layering.sh

# The hardening configure asked for (m4/x_ac_hardening.m4) read off the built
# programs and plugins: PIE, RELRO, BIND_NOW (programs only), stack
# protector, _FORTIFY_SOURCE.
TESTS += tests/hardening.sh
EXTRA_DIST += tests/hardening.sh

# scripts/lib.sh's free_port: a port its registry lists is never picked.
TESTS += tests/free-port.sh tests/wait-for.sh
EXTRA_DIST += tests/free-port.sh tests/wait-for.sh

# The registered tests, one a line: scripts/test-all.sh holds them against
# tests/lanes (every test in a lane, none twice).
list-tests:
	@for t in $(TESTS); do echo "$$t"; done
.PHONY: list-tests
EXTRA_DIST += tests/lanes

# After the harness, show check's own summary lines and the totals.
check-local: check-TESTS
	@echo "---- check summaries ----"
	@for f in $(TESTS); do \
	  l=$${f%.sh}.log; test -f "$$l" || continue; \
	  grep -H -E '^[0-9]+%: Checks: ' "$$l" || true; \
	done
