# lib/httpd/local.mk - libfalcon_httpd: the one libmicrohttpd server of the
# tree (httpd.h): falcond's API, its event receiver and status page, and
# falcon-sim each describe theirs and get the limits, the deadlines of
# incomplete requests, the per-address caps, the request body and TLS 1.2
# or later from here.  Depends on lib/core only (and libmicrohttpd).

noinst_LTLIBRARIES += lib/httpd/libfalcon_httpd.la
HTTPD_SRCS = lib/httpd/httpd.c
lib_httpd_libfalcon_httpd_la_SOURCES = $(HTTPD_SRCS) lib/httpd/httpd.h
lib_httpd_libfalcon_httpd_la_CFLAGS = $(AM_CFLAGS) $(MHD_CFLAGS) $(PTHREAD_CFLAGS)
lib_httpd_libfalcon_httpd_la_LIBADD = $(MHD_LIBS) $(PTHREAD_LIBS)

if HAVE_CHECK
check_PROGRAMS += tests/unit/test_httpd
TESTS += tests/unit/test_httpd
tests_unit_test_httpd_SOURCES = tests/unit/test_httpd.c tests/unit/testutil.h
tests_unit_test_httpd_CFLAGS = $(UNIT_CFLAGS) $(MHD_CFLAGS)
tests_unit_test_httpd_LDADD = $(LIBFALCON_HTTPD) $(LIBFALCON_CORE) $(CHECK_LIBS)
endif
