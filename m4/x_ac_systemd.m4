# X_AC_SYSTEMD
# ------------
# --with-libsystemd (default: when pkg-config finds libsystemd): falcond
# tells systemd with sd_notify(3) when it is ready (Type=notify units:
# READY=1 after the start-up reconcile, or on standing by).  Without it
# falcond runs as before and its unit uses Type=simple.
# --with-systemdsystemunitdir=DIR (default no): where `make install` puts
# falcond.service (the packages give /lib/systemd/system or
# /usr/lib/systemd/system); not installed by default, as before.
# Sets SYSTEMD_CFLAGS, SYSTEMD_LIBS, HAVE_LIBSYSTEMD (config.h), the
# substitution FALCOND_SERVICE_TYPE (notify|simple) and the conditional
# HAVE_SYSTEMDUNITDIR with systemdsystemunitdir.
AC_DEFUN([X_AC_SYSTEMD], [
  AC_ARG_WITH([libsystemd],
    [AS_HELP_STRING([--with-libsystemd], [sd_notify readiness in falcond (default: if found)])],
    [], [with_libsystemd=check])
  x_ac_systemd=no
  AS_IF([test "x$with_libsystemd" != xno],
    [PKG_CHECK_MODULES([SYSTEMD], [libsystemd], [x_ac_systemd=yes],
      [AS_IF([test "x$with_libsystemd" = xyes],
             [AC_MSG_ERROR([--with-libsystemd: libsystemd not found (libsystemd-dev)])])])])
  AS_IF([test "x$x_ac_systemd" = xyes],
    [AC_DEFINE([HAVE_LIBSYSTEMD], [1], [sd_notify() from libsystemd])
     FALCOND_SERVICE_TYPE=notify], [SYSTEMD_CFLAGS=; SYSTEMD_LIBS=; FALCOND_SERVICE_TYPE=simple])
  AC_SUBST([SYSTEMD_CFLAGS])
  AC_SUBST([SYSTEMD_LIBS])
  AC_SUBST([FALCOND_SERVICE_TYPE])
  AC_ARG_WITH([systemdsystemunitdir],
    [AS_HELP_STRING([--with-systemdsystemunitdir=DIR],
                    [install falcond.service there (default: not installed)])],
    [], [with_systemdsystemunitdir=no])
  AS_IF([test "x$with_systemdsystemunitdir" = xyes],
        [with_systemdsystemunitdir=`$PKG_CONFIG --variable=systemdsystemunitdir systemd`])
  AS_IF([test "x$with_systemdsystemunitdir" != xno],
        [AC_SUBST([systemdsystemunitdir], [$with_systemdsystemunitdir])])
  AM_CONDITIONAL([HAVE_SYSTEMDUNITDIR],
                 [test -n "$with_systemdsystemunitdir" && test "x$with_systemdsystemunitdir" != xno])
])
