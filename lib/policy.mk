# lib/policy.mk - partition policies (lib/policy.c): the one judge of a
# job's falcon request used by job_submit_falcon, spank_falcon and falcond,
# and the chassis pool license; its unit test.

lib_libfalcon_la_SOURCES += lib/policy.c lib/policy.h

if HAVE_CHECK
check_PROGRAMS += tests/unit/test_policy
TESTS += tests/unit/test_policy
tests_unit_test_policy_SOURCES = tests/unit/test_policy.c tests/unit/testutil.h
tests_unit_test_policy_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_policy_LDADD = $(UNIT_LDADD)
endif
