/*
 * slurm_compat.h - one spelling of the libslurm API for falcond,
 * falconctl report and falcon-prolog/epilog across the Slurm releases they
 * build against (22.05 to 24.11 and on).  Header only, no object: which
 * spelling a release has is decided by configure's feature tests
 * (m4/x_ac_slurm_api.m4), never by SLURM_VERSION_NUMBER.
 *
 * Include after "config.h", <slurm/slurm.h> and <slurm/slurm_errno.h>.
 *
 *   list_t, list_itr_t   libslurm's list and its iterator, used as
 *                        list_t * and list_itr_t *.  Slurm 23.11 added the
 *                        typedefs and 24.05 removed List/ListIterator
 *                        (the pointer typedefs of 22.05); here both are
 *                        the same struct xlist / struct listIterator.
 *   slurm_get_errno()    the error of the last failed libslurm call
 *                        (a SLURM_* / ESLURM_* / errno value, for
 *                        slurm_strerror()).  Removed in 24.05, where
 *                        libslurm leaves it in errno.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_SLURM_COMPAT_H
#define FALCON_SLURM_COMPAT_H

#include <errno.h>

#ifndef HAVE_SLURM_LIST_T
typedef struct xlist list_t;
typedef struct listIterator list_itr_t;
#endif

#if defined(HAVE_DECL_SLURM_GET_ERRNO) && !HAVE_DECL_SLURM_GET_ERRNO
#define slurm_get_errno() (errno)
#endif

#endif /* FALCON_SLURM_COMPAT_H */
