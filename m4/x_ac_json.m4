# X_AC_JSON
# ---------
# Find json-c: pkg-config "json-c" first, then a link test of
# json_tokener_parse_ex() against -ljson-c.  Sets JSON_CFLAGS and JSON_LIBS.
AC_DEFUN([X_AC_JSON], [
  PKG_CHECK_MODULES([JSON], [json-c >= 0.13], [x_ac_json=yes], [
    AC_CHECK_HEADER([json-c/json.h], [
      AC_CHECK_LIB([json-c], [json_tokener_parse_ex],
                   [x_ac_json=yes; JSON_LIBS=-ljson-c], [x_ac_json=no])],
      [x_ac_json=no])])
  AS_IF([test "x$x_ac_json" != xyes],
        [AC_MSG_ERROR([json-c not found: install libjson-c-dev (>= 0.13)])])
  AC_SUBST([JSON_CFLAGS])
  AC_SUBST([JSON_LIBS])
])
