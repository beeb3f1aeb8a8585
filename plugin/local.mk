# plugin/local.mk - spank_falcon.so, the SPANK plugin (spank_falcon(8)), and
# the unit test of its Slurm-free core.  The cgroup rules it applies are
# lib/cgroup's (lib/cgroup/local.mk).

if HAVE_SLURM
slurmplugindir = $(SLURM_PLUGINDIR)
slurmplugin_LTLIBRARIES = plugin/spank_falcon.la
plugin_spank_falcon_la_SOURCES = plugin/spank_falcon.c \
	plugin/spank_core.c plugin/spank_core.h
plugin_spank_falcon_la_CFLAGS = $(AM_CFLAGS) $(SLURM_CFLAGS) $(JSON_CFLAGS)
# No -lslurm: slurm_info() and spank_*() come from the process that loads
# the module (srun, sbatch, slurmstepd).
plugin_spank_falcon_la_LIBADD = $(LIBFALCON_CGROUP) $(LIBFALCON_CORE) $(JSON_LIBS)
plugin_spank_falcon_la_LDFLAGS = $(PLUGIN_LDFLAGS) -module -avoid-version -shared \
	-Wl,--version-script=$(srcdir)/plugin/spank_falcon.map
plugin_spank_falcon_la_DEPENDENCIES = $(LIBFALCON_CGROUP) $(LIBFALCON_CORE) $(srcdir)/plugin/spank_falcon.map
endif
EXTRA_DIST += plugin/spank_falcon.map

if HAVE_CHECK
check_PROGRAMS += tests/unit/test_spank_core
TESTS += tests/unit/test_spank_core
tests_unit_test_spank_core_SOURCES = tests/unit/test_spank_core.c \
	tests/unit/testutil.h plugin/spank_core.c plugin/spank_core.h
tests_unit_test_spank_core_CFLAGS = $(UNIT_CFLAGS) -I$(top_srcdir)/plugin
tests_unit_test_spank_core_LDADD = $(LIBFALCON_CORE) $(CHECK_LIBS) $(JSON_LIBS)
endif

dist_man_MANS += doc/spank_falcon.8
EXTRA_DIST += examples/slurm.conf.in examples/gres.conf examples/cgroup.conf \
	examples/plugstack.conf.in examples/slurmdbd.conf.in
