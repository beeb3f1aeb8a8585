# X_AC_SLURM_SOURCE_API
# ---------------------
# The differences of Slurm's internal API that job_submit_falcon.so sees,
# decided by feature tests against the tree given to --with-slurm-source
# (compiled as the plugin is: the tree's own config.h and headers), never
# by SLURM_VERSION_NUMBER.  The plugin includes Slurm's config.h, not
# falcon-slurm's, so the results go into JOB_SUBMIT_DEFS (-D flags on its
# command line, plugin/job_submit.mk):
#   -DFALCON_HOSTLIST_IS_STRUCT  hostlist_t is the struct itself, used as
#                                hostlist_t * (23.11 on); else the pointer
#   -DFALCON_LICENSE_VALIDATE_HRES license_validate() takes (licenses,
#                                validate_configured, validate_existing, hres,
#                                tres_req_cnt, valid, fuzzy_match): Slurm
#                                25.05+ (HRES); before, without hres and
#                                fuzzy_match
#   -DFALCON_CLUSTER_LICENSE_COPY slurmctld's cluster_license_copy() (a copy
#                                of its licenses, HRES layers among them,
#                                each with its id {lic_id, hres_id}, total
#                                and used, made under the license mutex):
#                                Slurm 26.05 (HRES layers' use is read there)
#   -DFALCON_MODIFY_ERR_MSG      the plugins' job_modify() takes a fourth
#                                argument, char **err_msg (23.02 on), as
#                                slurmctld's job_submit_g_modify() in
#                                src/interfaces/job_submit.h or
#                                job_submit_plugin_modify() in
#                                src/slurmctld/job_submit.h declares it
# JOB_SUBMIT_CPPFLAGS: the tree for "..." includes first (-iquote: its
# headers' "config.h" is Slurm's) and for <src/...> ones (-I: 23.11 on,
# Slurm's own headers include <src/common/...> with angle brackets).
# Run after X_AC_SLURM_SOURCE; does nothing without a tree.
AC_DEFUN([X_AC_SLURM_SOURCE_API], [
  JOB_SUBMIT_DEFS=
  JOB_SUBMIT_CPPFLAGS=
  AS_IF([test -n "$SLURM_SRC_DIR"], [
    JOB_SUBMIT_CPPFLAGS="-iquote $SLURM_SRC_DIR -I$SLURM_SRC_DIR"
    x_ac_ssa_save_CPPFLAGS=$CPPFLAGS
    CPPFLAGS="$JOB_SUBMIT_CPPFLAGS $CPPFLAGS"
    x_ac_ssa_prologue="#include \"$SLURM_SRC_DIR/config.h\"
#include \"slurm/slurm.h\"
#include \"src/common/hostlist.h\"
#include \"src/slurmctld/slurmctld.h\""
    AC_MSG_CHECKING([whether hostlist_t is the struct itself (Slurm source)])
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[$x_ac_ssa_prologue]],
        [[int is_struct[__builtin_types_compatible_p(hostlist_t, struct hostlist) ? 1 : -1];
          (void)is_struct;]])],
      [x_ac_ssa_hl=yes; JOB_SUBMIT_DEFS="$JOB_SUBMIT_DEFS -DFALCON_HOSTLIST_IS_STRUCT=1"],
      [x_ac_ssa_hl=no])
    AC_MSG_RESULT([$x_ac_ssa_hl])
    AC_MSG_CHECKING([whether job_modify takes err_msg (Slurm source)])
    x_ac_ssa_em=no
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[$x_ac_ssa_prologue
#include "src/interfaces/job_submit.h"
extern int job_submit_g_modify(job_desc_msg_t *, job_record_t *, uint32_t, char **);]], [])],
      [x_ac_ssa_em=yes])
    AS_IF([test $x_ac_ssa_em = no],
      [AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[$x_ac_ssa_prologue
#include "src/slurmctld/job_submit.h"
extern int job_submit_plugin_modify(job_desc_msg_t *, job_record_t *, uint32_t, char **);]], [])],
        [x_ac_ssa_em=yes])])
    AS_IF([test $x_ac_ssa_em = yes],
      [JOB_SUBMIT_DEFS="$JOB_SUBMIT_DEFS -DFALCON_MODIFY_ERR_MSG=1"])
    AC_MSG_RESULT([$x_ac_ssa_em])
    AC_MSG_CHECKING([whether license_validate takes hres and fuzzy_match (Slurm source)])
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[$x_ac_ssa_prologue
#include "src/slurmctld/licenses.h"]],
        [[bool v, f; list_t *l = license_validate(NULL, false, false, false, NULL, &v, &f);
          (void)l;]])],
      [x_ac_ssa_lv=yes; JOB_SUBMIT_DEFS="$JOB_SUBMIT_DEFS -DFALCON_LICENSE_VALIDATE_HRES=1"],
      [x_ac_ssa_lv=no])
    AC_MSG_RESULT([$x_ac_ssa_lv])
    AC_MSG_CHECKING([whether slurmctld has cluster_license_copy() and HRES license ids (Slurm source)])
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[$x_ac_ssa_prologue
#include "src/slurmctld/licenses.h"]],
        [[list_t *l = cluster_license_copy(); licenses_t e; e.id.hres_id = 0;
          (void)l; (void)e;]])],
      [x_ac_ssa_clc=yes; JOB_SUBMIT_DEFS="$JOB_SUBMIT_DEFS -DFALCON_CLUSTER_LICENSE_COPY=1"],
      [x_ac_ssa_clc=no])
    AC_MSG_RESULT([$x_ac_ssa_clc])
    CPPFLAGS=$x_ac_ssa_save_CPPFLAGS])
  AC_SUBST([JOB_SUBMIT_DEFS])
  AC_SUBST([JOB_SUBMIT_CPPFLAGS])
])
