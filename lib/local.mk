# lib/local.mk - libfalcon, the convenience library every program links.

noinst_LTLIBRARIES += lib/libfalcon.la
lib_libfalcon_la_SOURCES = \
	lib/falcon_err.c lib/falcon_err.h \
	lib/log.c lib/log.h \
	lib/util.c lib/util.h \
	lib/conf.h lib/chassis.h
lib_libfalcon_la_CFLAGS = $(AM_CFLAGS) $(PCI_CFLAGS) $(JSON_CFLAGS) \
	$(CURL_CFLAGS) $(MUNGE_CFLAGS) $(PTHREAD_CFLAGS)
lib_libfalcon_la_LIBADD = $(PCI_LIBS) $(JSON_LIBS) $(CURL_LIBS) $(MUNGE_LIBS) \
	$(PTHREAD_LIBS) -lm
