# lib/cgroup/local.mk - libfalcon_cgroup: the device deny rules of issue 14
# for Slurm's job cgroups (cgroup v1 devices.deny, cgroup v2 BPF), read
# from the jobs' topology.json.  Linked by spank_falcon.so (its own job's
# rules) and falcon-prolog (the new devices denied to the running jobs).
# libc and json-c only; depends on lib/core only.

noinst_LTLIBRARIES += lib/cgroup/libfalcon_cgroup.la
CGROUP_SRCS = lib/cgroup/cgroup.c
lib_cgroup_libfalcon_cgroup_la_SOURCES = $(CGROUP_SRCS) lib/cgroup/cgroup.h
lib_cgroup_libfalcon_cgroup_la_CFLAGS = $(AM_CFLAGS) $(JSON_CFLAGS)
lib_cgroup_libfalcon_cgroup_la_LIBADD = $(JSON_LIBS)

if HAVE_CHECK
# the rules against topology.json files and a fake devices hierarchy
# written by the test
check_PROGRAMS += tests/unit/test_cgroup
TESTS += tests/unit/test_cgroup
tests_unit_test_cgroup_SOURCES = tests/unit/test_cgroup.c tests/unit/testutil.h
tests_unit_test_cgroup_CFLAGS = $(UNIT_CFLAGS) $(JSON_CFLAGS)
tests_unit_test_cgroup_LDADD = $(LIBFALCON_CGROUP) $(LIBFALCON_CORE) $(CHECK_LIBS) $(JSON_LIBS)
endif
