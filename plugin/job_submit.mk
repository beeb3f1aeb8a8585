# plugin/job_submit.mk - job_submit_falcon.so, slurmctld's job_submit/falcon
# plugin (job_submit_falcon(8)): partition policies at submit and the
# chassis pool license, decided in lib/core/submit.c and lib/advise/auto.c
# (their unit tests are registered there); job_submit_falcon.c is the glue
# over the job, job_submit_ctld.c over slurmctld's state.  It includes
# slurmctld's internal headers, so it is built only when configure is given
# --with-slurm-source=DIR (a configured tree of the installed Slurm:
# scripts/slurm-source.sh).
#
# JOB_SUBMIT_CPPFLAGS (m4/x_ac_slurm_source_api.m4): -iquote puts Slurm's
# tree before everything else for "..." includes (its headers' #include
# "config.h" must find Slurm's config.h, not ours) and -I for the
# <src/common/...> includes of Slurm 23.11 on.  JOB_SUBMIT_DEFS: the
# configure results for Slurm's internal API (-D, as Slurm's config.h is
# the one this file sees).

if HAVE_SLURM_SOURCE
jobsubmitdir = $(SLURM_PLUGINDIR)
jobsubmit_LTLIBRARIES = plugin/job_submit_falcon.la
plugin_job_submit_falcon_la_SOURCES = plugin/job_submit_falcon.c \
	plugin/job_submit_ctld.c plugin/job_submit_ctld.h
plugin_job_submit_falcon_la_CPPFLAGS = $(JOB_SUBMIT_CPPFLAGS) $(JOB_SUBMIT_DEFS) \
	-I$(top_srcdir)/lib -I$(top_srcdir)
plugin_job_submit_falcon_la_CFLAGS = $(AM_CFLAGS) $(SLURM_CFLAGS) $(JSON_CFLAGS)
# No -lslurm: info(), xmalloc() and slurmctld's own functions come from
# slurmctld, which loads the module.
# json-c and the advisor: --falcon-topology=auto reads AdviceFile
plugin_job_submit_falcon_la_LIBADD = $(LIBFALCON_ADVISE) $(LIBFALCON_CORE) $(JSON_LIBS)
plugin_job_submit_falcon_la_LDFLAGS = $(PLUGIN_LDFLAGS) -module -avoid-version -shared \
	-Wl,--version-script=$(srcdir)/plugin/job_submit_falcon.map
plugin_job_submit_falcon_la_DEPENDENCIES = $(LIBFALCON_ADVISE) $(LIBFALCON_CORE) \
	$(srcdir)/plugin/job_submit_falcon.map
endif
EXTRA_DIST += plugin/job_submit_falcon.c plugin/job_submit_ctld.c plugin/job_submit_ctld.h \
	plugin/job_submit_falcon.map
dist_man_MANS += doc/job_submit_falcon.8
