# X_AC_SLURM_API
# --------------
# The differences of libslurm's public API (slurm/slurm.h) between the
# Slurm releases falcon-slurm builds against (22.05 to 24.11 and on), each
# decided by a feature test against the headers found by X_AC_SLURM (never
# by SLURM_VERSION_NUMBER).  lib/slurm_compat.h turns the results into one
# spelling for the code:
#   HAVE_SLURM_LIST_T                 the list_t / list_itr_t typedefs
#                                     (23.11 on; 24.05 drops List and
#                                     ListIterator)
#   HAVE_DECL_SLURM_GET_ERRNO         slurm_get_errno() (gone in 24.05:
#                                     libslurm sets errno itself)
# Run after X_AC_SLURM; does nothing without libslurm.
AC_DEFUN([X_AC_SLURM_API], [
  AS_IF([test "x$x_ac_slurm" = xyes], [
    x_ac_slurm_api_save_CPPFLAGS=$CPPFLAGS
    CPPFLAGS="$CPPFLAGS $SLURM_CFLAGS"
    dnl not AC_CHECK_TYPES: its sizeof() test fails on incomplete types
    AC_CACHE_CHECK([for list_t and list_itr_t in slurm/slurm.h], [x_ac_cv_slurm_list_t],
      [AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <slurm/slurm.h>]],
          [[list_t *l = NULL; list_itr_t *i = NULL; (void)l; (void)i;]])],
        [x_ac_cv_slurm_list_t=yes], [x_ac_cv_slurm_list_t=no])])
    AS_IF([test "x$x_ac_cv_slurm_list_t" = xyes],
      [AC_DEFINE([HAVE_SLURM_LIST_T], [1],
                 [Define to 1 if slurm/slurm.h has the list_t and list_itr_t typedefs.])])
    AC_CHECK_DECLS([slurm_get_errno], [], [], [[#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>]])
    CPPFLAGS=$x_ac_slurm_api_save_CPPFLAGS])
])
