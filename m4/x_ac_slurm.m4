# X_AC_SLURM
# ----------
# Find libslurm and its headers (slurm/slurm.h, slurm/spank.h): pkg-config
# "slurm" first (Debian ships no .pc file), then a link test of
# slurm_load_jobs() against -lslurm (one signature from 22.05 to 26.05;
# slurm_load_job()'s changed in 26.05).  --with-slurm=DIR names a prefix.
# Sets SLURM_CFLAGS, SLURM_LIBS, SLURM_PLUGINDIR and the conditional
# HAVE_SLURM; without libslurm the Slurm glue (spank_falcon, falcon-prolog)
# is left out and configure says so.
AC_DEFUN([X_AC_SLURM], [
  AC_ARG_WITH([slurm],
    [AS_HELP_STRING([--with-slurm=DIR], [prefix where Slurm is installed])],
    [AS_IF([test ! -d "$withval"],
           [AC_MSG_ERROR([--with-slurm=$withval: not a directory])])
     SLURM_CFLAGS="-I$withval/include"; SLURM_LIBS="-L$withval/lib -lslurm"],
    [with_slurm=check])
  x_ac_slurm=no
  AS_IF([test "x$with_slurm" = xno], [], [
    AS_IF([test -z "$SLURM_LIBS"],
      [PKG_CHECK_MODULES([SLURM], [slurm], [x_ac_slurm=yes], [SLURM_LIBS=-lslurm])])
    AS_IF([test "x$x_ac_slurm" != xyes], [
      x_ac_slurm_save_CPPFLAGS=$CPPFLAGS; x_ac_slurm_save_LIBS=$LIBS
      CPPFLAGS="$CPPFLAGS $SLURM_CFLAGS"; LIBS="$SLURM_LIBS $LIBS"
      AC_MSG_CHECKING([for slurm_load_jobs in libslurm])
      AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <slurm/slurm.h>
#include <slurm/spank.h>]], [[job_info_msg_t *m = NULL; return slurm_load_jobs(0, &m, 0);]])],
        [x_ac_slurm=yes], [x_ac_slurm=no])
      AC_MSG_RESULT([$x_ac_slurm])
      CPPFLAGS=$x_ac_slurm_save_CPPFLAGS; LIBS=$x_ac_slurm_save_LIBS])
    AS_IF([test "x$x_ac_slurm" != xyes && test "x$with_slurm" != xcheck],
          [AC_MSG_ERROR([libslurm not found under --with-slurm=$with_slurm])])])
  AS_IF([test "x$x_ac_slurm" != xyes], [SLURM_CFLAGS=; SLURM_LIBS=])
  AC_ARG_WITH([slurm-plugindir],
    [AS_HELP_STRING([--with-slurm-plugindir=DIR],
                    [where spank_falcon.so goes (default LIBDIR/slurm)])],
    [SLURM_PLUGINDIR=$withval], [SLURM_PLUGINDIR='${libdir}/slurm'])
  AC_SUBST([SLURM_CFLAGS])
  AC_SUBST([SLURM_LIBS])
  AC_SUBST([SLURM_PLUGINDIR])
  AM_CONDITIONAL([HAVE_SLURM], [test "x$x_ac_slurm" = xyes])
  AS_IF([test "x$x_ac_slurm" = xyes], [AC_DEFINE([HAVE_SLURM], [1], [libslurm found])])
])
