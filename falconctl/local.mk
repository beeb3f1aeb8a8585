# falconctl/local.mk - falconctl, the admin/user CLI: every part of lib/
# (topo: lib/pci, inventory: lib/chassis, falcond commands: lib/api) and
# libslurmdb for `falconctl report` (accounting per topology) and
# `falconctl advise`, whose pure parts are lib/advise's (report.c,
# advise.c); the cluster test and the bench of the report.

bin_PROGRAMS += falconctl/falconctl
falconctl_falconctl_SOURCES = \
	falconctl/falconctl.c falconctl/exitcode.h \
	falconctl/topo.c falconctl/topo.h \
	falconctl/inventory.c falconctl/inventory.h \
	falconctl/falcond_cmds.c falconctl/falcond_cmds.h \
	falconctl/again.c falconctl/again.h \
	falconctl/report_cmd.c falconctl/report_cmd.h \
	falconctl/advise_cmd.c falconctl/advise_cmd.h \
	falconctl/slurmconf.c falconctl/slurmconf.h
falconctl_falconctl_CFLAGS = $(AM_CFLAGS) $(PCI_CFLAGS) $(JSON_CFLAGS) $(CURL_CFLAGS) \
	$(MUNGE_CFLAGS) $(SLURM_CFLAGS)
falconctl_falconctl_LDADD = $(LIBFALCON_ADVISE) $(LIBFALCON_API) $(LIBFALCON_CHASSIS) \
	$(LIBFALCON_PCI) $(LIBFALCON_CORE) $(JSON_LIBS) $(SLURM_LIBS)
dist_man_MANS += doc/falconctl.1

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
