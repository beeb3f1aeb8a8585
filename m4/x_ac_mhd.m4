# X_AC_MHD
# --------
# Find GNU libmicrohttpd: pkg-config "libmicrohttpd" first, then a link test
# of MHD_start_daemon() against -lmicrohttpd.  Sets MHD_CFLAGS and MHD_LIBS.
AC_DEFUN([X_AC_MHD], [
  PKG_CHECK_MODULES([MHD], [libmicrohttpd >= 0.9.71], [x_ac_mhd=yes], [
    AC_CHECK_HEADER([microhttpd.h], [
      AC_CHECK_LIB([microhttpd], [MHD_start_daemon],
                   [x_ac_mhd=yes; MHD_LIBS=-lmicrohttpd], [x_ac_mhd=no])],
      [x_ac_mhd=no])])
  AS_IF([test "x$x_ac_mhd" != xyes],
        [AC_MSG_ERROR([libmicrohttpd not found: install libmicrohttpd-dev (>= 0.9.71)])])
  AC_SUBST([MHD_CFLAGS])
  AC_SUBST([MHD_LIBS])
])
