# X_AC_CHECK
# ----------
# Find the check unit-test framework: pkg-config "check" first, then a link
# test of srunner_create() against -lcheck.  Sets CHECK_CFLAGS, CHECK_LIBS and
# the conditional HAVE_CHECK; without it `make check` runs only the shell
# tests and configure says so.
AC_DEFUN([X_AC_CHECK], [
  PKG_CHECK_MODULES([CHECK], [check >= 0.9.8], [x_ac_check=yes], [
    AC_CHECK_HEADER([check.h], [
      AC_CHECK_LIB([check], [srunner_create],
                   [x_ac_check=yes; CHECK_LIBS="-lcheck -lsubunit -lm -lrt -lpthread"],
                   [x_ac_check=no], [-lsubunit -lm -lrt -lpthread])],
      [x_ac_check=no])])
  AC_SUBST([CHECK_CFLAGS])
  AC_SUBST([CHECK_LIBS])
  AM_CONDITIONAL([HAVE_CHECK], [test "x$x_ac_check" = xyes])
])
