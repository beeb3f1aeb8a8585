# X_AC_HARDENING
# --------------
# --enable-hardening (the default; --disable-hardening turns it off): the
# hardening flags a distribution gives its packages (Debian's
# dpkg-buildflags hardening=+all, Fedora's redhat-hardened-cc1), for a
# source install too, each only where the compiler and linker take it:
#   HARDEN_CFLAGS        -D_FORTIFY_SOURCE=3 (2 where the compiler or the C
#                        library has no level 3: GCC 12 and glibc 2.34 are
#                        needed), only when CFLAGS optimise (-O1 or more:
#                        glibc's checks need it) and not with
#                        --enable-sanitizers (ASan does those checks);
#                        -fstack-protector-strong; -fPIE
#   HARDEN_LDFLAGS       -Wl,-z,relro (programs and plugins)
#   HARDEN_PROG_LDFLAGS  -pie -Wl,-z,now (programs only: a Slurm plugin
#                        uses symbols of the process that loads it, and
#                        Debian and SchedMD build plugins without bindnow)
# A flag the user's CPPFLAGS, CFLAGS or LDFLAGS already set (a package
# build's) is not added again: -D_FORTIFY_SOURCE set there at another
# level stays as it is (two levels would be a redefinition).  libtool
# compiles the objects of shared plugins with -fPIC after these flags,
# which wins over -fPIE.  Each flag is tried with -Werror, so a compiler
# that only warns about it goes without.
AC_DEFUN([X_AC_HARDENING], [
  AC_ARG_ENABLE([hardening],
    [AS_HELP_STRING([--disable-hardening],
                    [no _FORTIFY_SOURCE, stack protector, PIE, RELRO and BIND_NOW of our own])],
    [], [enable_hardening=yes])
  HARDEN_CFLAGS=
  HARDEN_LDFLAGS=
  HARDEN_PROG_LDFLAGS=
  AS_IF([test "x$enable_hardening" != xno], [
    x_ac_harden_user="$CPPFLAGS $CFLAGS"
    # _FORTIFY_SOURCE: unless set, with sanitizers or without -O
    AS_CASE([" $x_ac_harden_user "],
      [*_FORTIFY_SOURCE*], [x_ac_harden_fortify="no (set in CPPFLAGS or CFLAGS)"],
      [AS_IF([test "x$enable_sanitizers" = xyes],
             [x_ac_harden_fortify="no (--enable-sanitizers)"],
             [x_ac_harden_fortify=check])])
    AS_IF([test "x$x_ac_harden_fortify" = xcheck], [
      x_ac_harden_fortify="no (CFLAGS do not optimise, or no C library support)"
      for x_ac_lvl in 3 2; do
        _X_AC_HARDEN_TRY_CC([-D_FORTIFY_SOURCE=$x_ac_lvl], [
#include <string.h>
#ifndef __OPTIMIZE__
#error _FORTIFY_SOURCE needs -O
#endif
#if $x_ac_lvl == 3 && !(defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 34) \
      && defined(__has_builtin) && __has_builtin(__builtin_dynamic_object_size))
#error no _FORTIFY_SOURCE=3 here
#endif
], [x_ac_harden_fortify=$x_ac_lvl])
        AS_CASE([$x_ac_harden_fortify], [no*], [], [break])
      done
      AS_CASE([$x_ac_harden_fortify], [no*], [],
              [HARDEN_CFLAGS="-D_FORTIFY_SOURCE=$x_ac_harden_fortify"])])
    AS_CASE([" $x_ac_harden_user "],
      [*" -fstack-protector-strong "*|*" -fstack-protector-all "*], [],
      [_X_AC_HARDEN_TRY_CC([-fstack-protector-strong], [],
                           [HARDEN_CFLAGS="$HARDEN_CFLAGS -fstack-protector-strong"])])
    _X_AC_HARDEN_TRY_LD([-fPIE], [-pie], [HARDEN_CFLAGS="$HARDEN_CFLAGS -fPIE"
                                          HARDEN_PROG_LDFLAGS="-pie"])
    AS_CASE([" $LDFLAGS "],
      [*"-z,relro"*|*"-z relro"*], [],
      [_X_AC_HARDEN_TRY_LD([], [-Wl,-z,relro], [HARDEN_LDFLAGS="-Wl,-z,relro"])])
    AS_CASE([" $LDFLAGS "],
      [*"-z,now"*|*"-z now"*], [],
      [_X_AC_HARDEN_TRY_LD([], [-Wl,-z,now],
                           [HARDEN_PROG_LDFLAGS="$HARDEN_PROG_LDFLAGS -Wl,-z,now"])])
    HARDEN_CFLAGS=${HARDEN_CFLAGS# }
    HARDEN_PROG_LDFLAGS=${HARDEN_PROG_LDFLAGS# }
  ])
  AC_MSG_CHECKING([for hardening flags])
  AC_MSG_RESULT([${HARDEN_CFLAGS:-none}; ${HARDEN_LDFLAGS:-none}; programs ${HARDEN_PROG_LDFLAGS:-none}])
  AC_SUBST([HARDEN_CFLAGS])
  AC_SUBST([HARDEN_LDFLAGS])
  AC_SUBST([HARDEN_PROG_LDFLAGS])
])

# _X_AC_HARDEN_TRY_CC(FLAGS, PROLOGUE, ACTION-IF-TAKEN)
# A program with PROLOGUE compiles with CFLAGS FLAGS -Werror.
AC_DEFUN([_X_AC_HARDEN_TRY_CC], [
  x_ac_harden_save=$CFLAGS
  CFLAGS="$CFLAGS $1 -Werror"
  AC_MSG_CHECKING([whether $CC accepts $1])
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([$2], [[char b[8]; return b[0];]])],
                    [AC_MSG_RESULT([yes]); CFLAGS=$x_ac_harden_save; $3],
                    [AC_MSG_RESULT([no]); CFLAGS=$x_ac_harden_save])
])

# _X_AC_HARDEN_TRY_LD(CFLAGS, LDFLAGS, ACTION-IF-TAKEN)
# A program links with CFLAGS and LDFLAGS added, -Werror.
AC_DEFUN([_X_AC_HARDEN_TRY_LD], [
  x_ac_harden_save_c=$CFLAGS
  x_ac_harden_save_l=$LDFLAGS
  CFLAGS="$CFLAGS $1 -Werror"
  LDFLAGS="$LDFLAGS $2"
  AC_MSG_CHECKING([whether $CC links with $1 $2])
  AC_LINK_IFELSE([AC_LANG_PROGRAM([], [[return 0;]])],
                 [AC_MSG_RESULT([yes]); CFLAGS=$x_ac_harden_save_c; LDFLAGS=$x_ac_harden_save_l; $3],
                 [AC_MSG_RESULT([no]); CFLAGS=$x_ac_harden_save_c; LDFLAGS=$x_ac_harden_save_l])
])
