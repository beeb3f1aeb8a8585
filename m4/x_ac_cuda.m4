# X_AC_CUDA
# ---------
# --with-cuda=DIR: the CUDA runtime, found by a link test of
# cudaGetDeviceCount() against DIR/lib64/libcudart.so (or DIR/lib).  Opt-in
# (default no): a build does not change with whatever /usr/local/cuda the
# build machine has (packages, issue 27); without it falcon-ncclcheck is
# left out.  No -rpath: the program finds libcudart through the loader's
# path (ld.so.conf.d, as CUDA's own packages set up), so a package carries
# no RUNPATH to a build machine's directory.  Sets CUDA_CFLAGS, CUDA_LIBS
# and x_ac_cuda=yes|no.
AC_DEFUN([X_AC_CUDA], [
  AC_ARG_WITH([cuda],
    [AS_HELP_STRING([--with-cuda=DIR], [CUDA toolkit, e.g. /usr/local/cuda (default: none)])],
    [AS_IF([test "x$with_cuda" = xyes], [with_cuda=/usr/local/cuda])], [with_cuda=no])
  x_ac_cuda=no
  AS_IF([test "x$with_cuda" != xno], [
    AS_IF([test ! -d "$with_cuda"],
          [AC_MSG_NOTICE([--with-cuda=$with_cuda: not a directory])], [
      CUDA_CFLAGS="-I$with_cuda/include"
      x_ac_cuda_lib=$with_cuda/lib64
      AS_IF([test ! -d "$x_ac_cuda_lib"], [x_ac_cuda_lib=$with_cuda/lib])
      CUDA_LIBS="-L$x_ac_cuda_lib -lcudart"
      x_ac_cuda_save_CPPFLAGS=$CPPFLAGS; x_ac_cuda_save_LIBS=$LIBS
      CPPFLAGS="$CPPFLAGS $CUDA_CFLAGS"; LIBS="$CUDA_LIBS $LIBS"
      AC_MSG_CHECKING([for cudaGetDeviceCount in $with_cuda])
      AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <cuda_runtime_api.h>]],
                                      [[int n; return (int)cudaGetDeviceCount(&n);]])],
                     [x_ac_cuda=yes], [x_ac_cuda=no])
      AC_MSG_RESULT([$x_ac_cuda])
      CPPFLAGS=$x_ac_cuda_save_CPPFLAGS; LIBS=$x_ac_cuda_save_LIBS])])
  AS_IF([test "x$x_ac_cuda" != xyes], [CUDA_CFLAGS=; CUDA_LIBS=])
  AC_SUBST([CUDA_CFLAGS])
  AC_SUBST([CUDA_LIBS])
])
