# X_AC_CURL
# ---------
# Find libcurl: pkg-config "libcurl" first, then a link test of
# curl_easy_init() against -lcurl.  Sets CURL_CFLAGS and CURL_LIBS.
AC_DEFUN([X_AC_CURL], [
  PKG_CHECK_MODULES([CURL], [libcurl >= 7.64], [x_ac_curl=yes], [
    AC_CHECK_HEADER([curl/curl.h], [
      AC_CHECK_LIB([curl], [curl_easy_init],
                   [x_ac_curl=yes; CURL_LIBS=-lcurl], [x_ac_curl=no])],
      [x_ac_curl=no])])
  AS_IF([test "x$x_ac_curl" != xyes],
        [AC_MSG_ERROR([libcurl not found: install libcurl4-openssl-dev])])
  AC_SUBST([CURL_CFLAGS])
  AC_SUBST([CURL_LIBS])
])
