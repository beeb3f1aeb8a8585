# X_AC_MUNGE
# ----------
# Find libmunge: pkg-config "munge" first, then a link test of munge_encode()
# against -lmunge.  Sets MUNGE_CFLAGS and MUNGE_LIBS.
AC_DEFUN([X_AC_MUNGE], [
  PKG_CHECK_MODULES([MUNGE], [munge >= 0.5], [x_ac_munge=yes], [
    AC_CHECK_HEADER([munge.h], [
      AC_CHECK_LIB([munge], [munge_encode],
                   [x_ac_munge=yes; MUNGE_LIBS=-lmunge], [x_ac_munge=no])],
      [x_ac_munge=no])])
  AS_IF([test "x$x_ac_munge" != xyes],
        [AC_MSG_ERROR([libmunge not found: install libmunge-dev])])
  AC_SUBST([MUNGE_CFLAGS])
  AC_SUBST([MUNGE_LIBS])
])
