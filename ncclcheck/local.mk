# ncclcheck/local.mk - falcon-ncclcheck, the embedded NCCL sanity benchmark.
#
# The core (ncclcheck/ncclcheck_core.c: sweeps, formulas, verdict, JSON, table,
# command line) is a convenience library built always, so its unit tests run
# in CI without CUDA; the program (CUDA runtime + NCCL glue) is built only
# when configure found both (HAVE_NCCLCHECK).

noinst_LTLIBRARIES += ncclcheck/libncclcheck.la
ncclcheck_libncclcheck_la_SOURCES = ncclcheck/ncclcheck_core.c ncclcheck/ncclcheck_core.h
ncclcheck_libncclcheck_la_CFLAGS = $(AM_CFLAGS) $(JSON_CFLAGS)
ncclcheck_libncclcheck_la_LIBADD = $(JSON_LIBS) -lm

# NCCL is dlopen()ed at run time (a node without it reports "skipped"); the
# -L directory of configure's NCCL_LIBS is the fallback after the loader's own
# path.

if HAVE_NCCLCHECK
bin_PROGRAMS += ncclcheck/falcon-ncclcheck
ncclcheck_falcon_ncclcheck_SOURCES = ncclcheck/ncclcheck.c
ncclcheck_falcon_ncclcheck_CFLAGS = $(AM_CFLAGS) $(JSON_CFLAGS) $(CUDA_CFLAGS) \
	$(NCCL_CFLAGS) $(PTHREAD_CFLAGS) \
	-DNC_NCCL_LIBS='"$(NCCL_LIBS)"'
ncclcheck_falcon_ncclcheck_LDADD = ncclcheck/libncclcheck.la $(LIBFALCON_CORE) $(CUDA_LIBS) \
	$(PTHREAD_LIBS) -ldl -lm
endif
dist_man_MANS += doc/falcon-ncclcheck.1

if HAVE_CHECK
check_PROGRAMS += tests/unit/test_ncclcheck
TESTS += tests/unit/test_ncclcheck
tests_unit_test_ncclcheck_SOURCES = tests/unit/test_ncclcheck.c
tests_unit_test_ncclcheck_CFLAGS = $(UNIT_CFLAGS) -I$(top_srcdir)/ncclcheck
tests_unit_test_ncclcheck_LDADD = ncclcheck/libncclcheck.la $(LIBFALCON_CORE) $(CHECK_LIBS)
endif

if INTEGRATION_TESTS
TESTS += tests/integration/ncclcheck-nogpu.sh
endif
EXTRA_DIST += tests/integration/ncclcheck-nogpu.sh

# Bench: on a GPU machine, the quick check next to plain cudaMemcpy D2H
# bandwidth at the same sizes (tests/bench/ncclcheck_memcpy.c, compiled by
# the script against CUDA); prints "skipped: no GPU" elsewhere.
EXTRA_DIST += tests/bench/ncclcheck tests/bench/ncclcheck_memcpy.c
bench-ncclcheck: all
	CC='$(CC)' CUDA_CFLAGS='$(CUDA_CFLAGS)' CUDA_LIBS='$(CUDA_LIBS)' \
	  $(SHELL) $(top_srcdir)/tests/bench/ncclcheck $(top_builddir) $(top_srcdir)
BENCH_TARGETS += bench-ncclcheck
.PHONY: bench-ncclcheck
