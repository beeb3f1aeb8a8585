# X_AC_NCCL
# ---------
# NCCL's header for falcon-ncclcheck (the program dlopen()s libnccl.so.2 at
# run time, so a node without NCCL reports its check "skipped"), found with
# a compile test of nccl.h.
#   (default)         the CUDA directory X_AC_CUDA found, then /usr
#   --with-nccl=DIR   that directory only; not found there is an error
#   --without-nccl    leave falcon-ncclcheck out
# NCCL_LIBS is "-LDIR/lib64" or "-LDIR/lib", whichever holds libnccl.so
# (NVIDIA's CUDA tarball keeps it in lib/ beside lib64/'s libcudart): the
# directory falcon-ncclcheck tries after the loader's own path.  No -rpath
# (see X_AC_CUDA).  Sets NCCL_CFLAGS, NCCL_LIBS and the conditional
# HAVE_NCCLCHECK (CUDA and NCCL both found).
AC_DEFUN([X_AC_NCCL], [
  AC_ARG_WITH([nccl],
    [AS_HELP_STRING([--with-nccl=DIR], [NCCL prefix (default: the CUDA directory, then /usr)])],
    [AS_IF([test "x$with_nccl" = xyes], [with_nccl=check])], [with_nccl=check])
  x_ac_nccl=no
  AS_CASE([$with_nccl],
    [no], [x_ac_nccl_dirs=],
    [check], [x_ac_nccl_dirs="$CUDA_DIR /usr"],
    [x_ac_nccl_dirs=$with_nccl])
  AS_IF([test "x$x_ac_cuda" != xyes], [x_ac_nccl_dirs=])
  for x_ac_nccl_dir in $x_ac_nccl_dirs; do
    test -f "$x_ac_nccl_dir/include/nccl.h" || continue
    NCCL_CFLAGS="-I$x_ac_nccl_dir/include"
    AS_IF([test "x$x_ac_nccl_dir" = x/usr], [NCCL_CFLAGS=])
    NCCL_LIBS=
    for x_ac_nccl_lib in "$x_ac_nccl_dir/lib64" "$x_ac_nccl_dir/lib"; do
      AS_IF([test -f "$x_ac_nccl_lib/libnccl.so" || test -f "$x_ac_nccl_lib/libnccl.so.2"],
            [NCCL_LIBS="-L$x_ac_nccl_lib"; break])
    done
    x_ac_nccl_save_CPPFLAGS=$CPPFLAGS
    CPPFLAGS="$CPPFLAGS $NCCL_CFLAGS $CUDA_CFLAGS"
    AC_MSG_CHECKING([for nccl.h in $x_ac_nccl_dir])
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <nccl.h>]],
                                       [[ncclComm_t c = 0; int v = NCCL_VERSION_CODE; return c == 0 && v > 0 ? 0 : 1;]])],
                      [x_ac_nccl=yes], [x_ac_nccl=no])
    AC_MSG_RESULT([$x_ac_nccl])
    CPPFLAGS=$x_ac_nccl_save_CPPFLAGS
    AS_IF([test "x$x_ac_nccl" = xyes], [break])
  done
  AS_IF([test "x$x_ac_nccl" != xyes], [
    NCCL_CFLAGS=; NCCL_LIBS=
    AS_CASE([$with_nccl],
      [no|check], [],
      [AS_IF([test "x$x_ac_cuda" = xyes],
        [AC_MSG_ERROR([--with-nccl=$with_nccl: no nccl.h there])])])])
  AC_SUBST([NCCL_CFLAGS])
  AC_SUBST([NCCL_LIBS])
  AM_CONDITIONAL([HAVE_NCCLCHECK], [test "x$x_ac_cuda" = xyes && test "x$x_ac_nccl" = xyes])
])
