# X_AC_SLURM_SOURCE
# -----------------
# --with-slurm-source=DIR: a configured Slurm source tree of the same version
# as libslurm, needed by what links Slurm internals (job_submit_falcon.so).
# Sets SLURM_SRC_DIR and the conditional HAVE_SLURM_SOURCE.
AC_DEFUN([X_AC_SLURM_SOURCE], [
  AC_ARG_WITH([slurm-source],
    [AS_HELP_STRING([--with-slurm-source=DIR],
                    [configured Slurm source tree, for job_submit_falcon])],
    [AS_IF([test ! -f "$withval/src/slurmctld/slurmctld.h"],
           [AC_MSG_ERROR([--with-slurm-source=$withval: no src/slurmctld/slurmctld.h there])])
     SLURM_SRC_DIR=$withval], [SLURM_SRC_DIR=])
  AC_SUBST([SLURM_SRC_DIR])
  AM_CONDITIONAL([HAVE_SLURM_SOURCE], [test -n "$SLURM_SRC_DIR"])
])
