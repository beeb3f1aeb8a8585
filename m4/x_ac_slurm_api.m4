# X_AC_SLURM_API
# --------------
# The differences of libslurm's public API (slurm/slurm.h) between the
# Slurm releases falcon-slurm builds against (22.05 to 26.05), each
# decided by a feature test against the headers found by X_AC_SLURM (never
# by SLURM_VERSION_NUMBER).  lib/slurm_compat.h turns the results into one
# spelling for the code:
#   HAVE_SLURM_LIST_T                 the list_t / list_itr_t typedefs
#                                     (23.11 on; 24.05 drops List and
#                                     ListIterator)
#   HAVE_DECL_SLURM_GET_ERRNO         slurm_get_errno() (gone in 24.05:
#                                     libslurm sets errno itself)
#   HAVE_SLURM_STEP_ID_JOB_API        slurm_load_job(), slurm_kill_job(),
#                                     slurm_requeue(), slurm_notify_job()
#                                     take a slurm_step_id_t, not a
#                                     uint32_t job id (26.05; the uint32_t
#                                     forms only with SLURM_BACKWARD_COMPAT)
#   HAVE_DECL_SLURM_FREE_CTL_CONF     slurm_free_ctl_conf() (26.05:
#                                     slurm_free_conf())
#   HAVE_JOB_DESC_MSG_T_JOB_ID        job_desc_msg_t names the job to update
#                                     by job_id (26.05: step_id.job_id)
#   HAVE_UPDATE_NODE_MSG_T_REASON_UID update_node_msg_t has reason_uid (gone
#                                     in 26.05: slurmctld takes the caller's)
#   HAVE_SLURM_CONF_T_PROLOG_EPILOG_TIMEOUT slurm_conf_t has
#                                     prolog_epilog_timeout (26.05: split
#                                     into prolog_timeout, epilog_timeout)
#   HAVE_SLURM_LICENSE_INFO_T_NODES   slurm_license_info_t has nodes: an
#                                     HRES layer's nodes (25.05 on; each
#                                     layer a record of its own)
#   HAVE_DECL_ESLURM_JOB_SETTING_DB_INX slurmctld may refuse a job update
#                                     while slurmdbd has not answered for
#                                     the job's record (22.05; gone by
#                                     24.11, which does not refuse)
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
    AC_CHECK_DECLS([slurm_get_errno, slurm_free_ctl_conf, ESLURM_JOB_SETTING_DB_INX], [], [],
      [[#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>]])
    AC_CACHE_CHECK([whether slurm_load_job takes a slurm_step_id_t], [x_ac_cv_slurm_step_id_job],
      [AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <slurm/slurm.h>]],
          [[slurm_step_id_t s = SLURM_STEP_ID_INITIALIZER; job_info_msg_t *m = NULL;
            return slurm_load_job(&m, s, 0);]])],
        [x_ac_cv_slurm_step_id_job=yes], [x_ac_cv_slurm_step_id_job=no])])
    AS_IF([test "x$x_ac_cv_slurm_step_id_job" = xyes],
      [AC_DEFINE([HAVE_SLURM_STEP_ID_JOB_API], [1],
                 [Define to 1 if slurm_load_job and slurm_kill_job take a slurm_step_id_t.])])
    AC_CHECK_MEMBERS([job_desc_msg_t.job_id, update_node_msg_t.reason_uid,
                      slurm_conf_t.prolog_epilog_timeout,
                      slurm_license_info_t.nodes], [], [],
      [[#include <slurm/slurm.h>]])
    CPPFLAGS=$x_ac_slurm_api_save_CPPFLAGS])
])
