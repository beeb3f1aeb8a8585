# X_AC_CUDA
# ---------
# The CUDA runtime for falcon-ncclcheck, found by a link test of
# cudaGetDeviceCount() (cuda_runtime_api.h, libcudart).
#   (default)         look where CUDA installs itself: /usr/local/cuda (the
#                     toolkit's own installer and NVIDIA's packages), then
#                     /usr (Debian's nvidia-cuda-toolkit), as Slurm's
#                     x_ac_nvml.m4 looks for NVML; none found: falcon-ncclcheck
#                     is left out with a notice and everything else builds
#   --with-cuda=DIR   that directory only; not found there is an error
#   --without-cuda    leave falcon-ncclcheck out
# The library is DIR/lib64 or DIR/lib, else the compiler's own path (/usr:
# the multiarch directory).  No -rpath: the program finds libcudart through
# the loader's path (ld.so.conf.d, as CUDA's own packages and installer set
# up), so a package carries no RUNPATH to a build machine's directory.
# Sets CUDA_CFLAGS, CUDA_LIBS, CUDA_DIR (where it was found) and
# x_ac_cuda=yes|no.
AC_DEFUN([X_AC_CUDA], [
  AC_ARG_WITH([cuda],
    [AS_HELP_STRING([--with-cuda=DIR],
      [CUDA toolkit (default: /usr/local/cuda, then /usr, where found)])],
    [AS_IF([test "x$with_cuda" = xyes], [with_cuda=check])], [with_cuda=check])
  x_ac_cuda=no
  CUDA_DIR=
  AS_CASE([$with_cuda],
    [no], [x_ac_cuda_dirs=],
    [check], [x_ac_cuda_dirs="/usr/local/cuda /usr"],
    [x_ac_cuda_dirs=$with_cuda])
  for x_ac_cuda_dir in $x_ac_cuda_dirs; do
    test -f "$x_ac_cuda_dir/include/cuda_runtime_api.h" || continue
    CUDA_CFLAGS="-I$x_ac_cuda_dir/include"
    AS_IF([test "x$x_ac_cuda_dir" = x/usr], [CUDA_CFLAGS=])
    CUDA_LIBS="-lcudart"
    for x_ac_cuda_lib in "$x_ac_cuda_dir/lib64" "$x_ac_cuda_dir/lib"; do
      AS_IF([test -f "$x_ac_cuda_lib/libcudart.so"],
            [CUDA_LIBS="-L$x_ac_cuda_lib -lcudart"; break])
    done
    x_ac_cuda_save_CPPFLAGS=$CPPFLAGS; x_ac_cuda_save_LIBS=$LIBS
    CPPFLAGS="$CPPFLAGS $CUDA_CFLAGS"; LIBS="$CUDA_LIBS $LIBS"
    AC_MSG_CHECKING([for cudaGetDeviceCount in $x_ac_cuda_dir])
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <cuda_runtime_api.h>]],
                                    [[int n; return (int)cudaGetDeviceCount(&n);]])],
                   [x_ac_cuda=yes], [x_ac_cuda=no])
    AC_MSG_RESULT([$x_ac_cuda])
    CPPFLAGS=$x_ac_cuda_save_CPPFLAGS; LIBS=$x_ac_cuda_save_LIBS
    AS_IF([test "x$x_ac_cuda" = xyes], [CUDA_DIR=$x_ac_cuda_dir; break])
  done
  AS_IF([test "x$x_ac_cuda" != xyes], [
    CUDA_CFLAGS=; CUDA_LIBS=
    AS_CASE([$with_cuda],
      [no|check], [],
      [AC_MSG_ERROR([--with-cuda=$with_cuda: no CUDA runtime there (cuda_runtime_api.h and libcudart)])])])
  AC_SUBST([CUDA_CFLAGS])
  AC_SUBST([CUDA_LIBS])
  AC_SUBST([CUDA_DIR])
])
