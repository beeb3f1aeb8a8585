# X_AC_NCCL
# ---------
# --with-nccl=DIR (default: the CUDA directory): NCCL, found by a link test of
# ncclCommInitAll() against DIR/lib64/libnccl.so (or DIR/lib).  Needs CUDA.
# No -rpath (see X_AC_CUDA).  Sets NCCL_CFLAGS, NCCL_LIBS and the conditional
# HAVE_NCCLCHECK (CUDA and NCCL both found).
AC_DEFUN([X_AC_NCCL], [
  AC_ARG_WITH([nccl],
    [AS_HELP_STRING([--with-nccl=DIR], [NCCL prefix (default: the CUDA directory)])],
    [], [with_nccl=$with_cuda])
  x_ac_nccl=no
  AS_IF([test "x$with_nccl" != xno && test "x$x_ac_cuda" = xyes], [
    x_ac_nccl_lib=$with_nccl/lib64
    AS_IF([test ! -d "$x_ac_nccl_lib"], [x_ac_nccl_lib=$with_nccl/lib])
    NCCL_CFLAGS="-I$with_nccl/include"
    NCCL_LIBS="-L$x_ac_nccl_lib -lnccl"
    x_ac_nccl_save_CPPFLAGS=$CPPFLAGS; x_ac_nccl_save_LIBS=$LIBS
    CPPFLAGS="$CPPFLAGS $NCCL_CFLAGS $CUDA_CFLAGS"; LIBS="$NCCL_LIBS $CUDA_LIBS $LIBS"
    AC_MSG_CHECKING([for ncclCommInitAll in $with_nccl])
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <nccl.h>]],
                                    [[ncclComm_t c; int d = 0; return (int)ncclCommInitAll(&c, 1, &d);]])],
                   [x_ac_nccl=yes], [x_ac_nccl=no])
    AC_MSG_RESULT([$x_ac_nccl])
    CPPFLAGS=$x_ac_nccl_save_CPPFLAGS; LIBS=$x_ac_nccl_save_LIBS])
  AS_IF([test "x$x_ac_nccl" != xyes], [NCCL_CFLAGS=; NCCL_LIBS=])
  AC_SUBST([NCCL_CFLAGS])
  AC_SUBST([NCCL_LIBS])
  AM_CONDITIONAL([HAVE_NCCLCHECK], [test "x$x_ac_cuda" = xyes && test "x$x_ac_nccl" = xyes])
])
