/*
 * slurm_compat.h - one spelling of the libslurm API for falcond,
 * falconctl report and falcon-prolog/epilog across the Slurm releases they
 * build against (22.05 to 26.05).  Header only, no object: which
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
 *   falcon_slurm_job(id) the job argument of slurm_load_job(),
 *                        slurm_kill_job(), slurm_requeue() and
 *                        slurm_notify_job(): a slurm_step_id_t of the whole
 *                        job (SLURM_STEP_ID_INITIALIZER, job_id = id) where
 *                        they take one (26.05), else the uint32_t id.
 *   falcon_job_desc_set_job(d, id)
 *                        the job a job_desc_msg_t for slurm_update_job()
 *                        names: its job_id, or (26.05) its step_id.job_id.
 *   slurm_free_ctl_conf() frees what slurm_load_ctl_conf() gave (26.05
 *                        renamed it slurm_free_conf()).
 *   falcon_slurm_free_resv_name(p)
 *                        frees slurm_create_reservation()'s answer: a
 *                        malloc'd string to 25.11, an xmalloc'd one from
 *                        26.05.0 on (SchedMD commit "Return xstring from
 *                        slurm_create_reservation()"; libslurm's
 *                        slurm_xfree_ptr(), exported by every release but
 *                        declared in none).  The one difference decided by
 *                        SLURM_VERSION_NUMBER: the type did not change.
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
#include <stdint.h>

#ifndef HAVE_SLURM_LIST_T
typedef struct xlist list_t;
typedef struct listIterator list_itr_t;
#endif

#if defined(HAVE_DECL_SLURM_FREE_CTL_CONF) && !HAVE_DECL_SLURM_FREE_CTL_CONF
#define slurm_free_ctl_conf(c) slurm_free_conf(c)
#endif

#if defined(HAVE_DECL_SLURM_GET_ERRNO) && !HAVE_DECL_SLURM_GET_ERRNO
#define slurm_get_errno() (errno)
#endif

#ifdef HAVE_SLURM_STEP_ID_JOB_API
static inline slurm_step_id_t falcon_slurm_job(uint32_t id)
{
	slurm_step_id_t s = SLURM_STEP_ID_INITIALIZER;

	s.job_id = id;
	return s;
}
#else
#define falcon_slurm_job(id) ((uint32_t)(id))
#endif

#ifdef HAVE_JOB_DESC_MSG_T_JOB_ID
#define falcon_job_desc_set_job(d, id) ((d)->job_id = (uint32_t)(id))
#else
#define falcon_job_desc_set_job(d, id) ((d)->step_id.job_id = (uint32_t)(id))
#endif

#include <slurm/slurm_version.h>
#include <stdlib.h>
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
extern void slurm_xfree_ptr(void *);
#define falcon_slurm_free_resv_name(p) slurm_xfree_ptr(p)
#else
#define falcon_slurm_free_resv_name(p) free(p)
#endif

#endif /* FALCON_SLURM_COMPAT_H */
