/*
 * job_submit_falcon.c - slurmctld's job_submit/falcon plugin
 * (job_submit_falcon(8)): at submit and on modify, the job's falcon request
 * judged by lib/core/submit.c (partition policies, chassis pool licenses,
 * the chassis pin of a job over several chassis) and, for
 * --falcon-topology=auto, chosen by lib/advise/auto.c.
 *
 * Glue only: the job_desc read into the structs of core/submit.h and
 * advise/auto.h, slurmctld's own state through job_submit_ctld.c (struct
 * falcon_ctld_view), falcon.conf and the AdviceFile kept by
 * core/reload.h; the answer written back (the job's GRES, licenses,
 * constraint, AdminComment, and err_msg).
 *
 * Built against Slurm's source tree (--with-slurm-source): its internal
 * headers (slurmctld.h) are compiled with Slurm's own config.h, so this
 * file's "config.h" is Slurm's (plugin/job_submit.mk puts the tree first
 * with -iquote) and no falcon-slurm config.h macro is used here: what
 * configure decided about Slurm's internal API comes as -D flags
 * (FALCON_HOSTLIST_IS_STRUCT, FALCON_MODIFY_ERR_MSG:
 * m4/x_ac_slurm_source_api.m4).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Slurm's internal headers declare some functions as f(): not ours to fix */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"
#include "src/common/slurm_xlator.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"
#pragma GCC diagnostic pop

#include "job_submit_ctld.h"
#include "advise/auto.h"
#include "core/conf.h"
#include "core/falcon_err.h"
#include "core/log.h"
#include "core/reload.h"
#include "core/submit.h"

const char plugin_name[] = "falcon-slurm partition policies and chassis pool licenses";
const char plugin_type[] = "job_submit/falcon";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* The entry points slurmctld looks up (plugin/job_submit_falcon.map). */
int init(void);
int fini(void);
extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg);
#ifdef FALCON_MODIFY_ERR_MSG
extern int job_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr, uint32_t submit_uid,
		      char **err_msg);
#else
extern int job_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr, uint32_t submit_uid);
#endif

/* falcon.conf and the AdviceFile (for --falcon-topology=auto) as last
 * loaded, reloaded when they change (core/reload.h); under lock. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct falcon_conf_keeper kept;
static struct falcon_advice_keeper advice_kept;

static void log_sink_slurm(falcon_log_level_t level, const char *line, void *arg)
{
	(void)arg;
	if (level == FALCON_LOG_ERROR)
		error("%s", line);
	else if (level <= FALCON_LOG_INFO)
		info("%s", line);
	else
		debug("%s", line);
}

int init(void)
{
	falcon_log_init("job_submit_falcon");
	falcon_log_add_sink(log_sink_slurm, FALCON_LOG_DEBUG, NULL);
	falcon_info("loaded; falcon.conf %s", falcon_conf_path(NULL));
	return SLURM_SUCCESS;
}

int fini(void)
{
	falcon_advice_keeper_free(&advice_kept);
	falcon_conf_keeper_free(&kept);
	return SLURM_SUCCESS;
}

/* A node count of a job_desc: Slurm's "not given" as 0 (max: INFINITE too). */
static uint32_t nodes_given(uint32_t n, bool max)
{
	return n == NO_VAL || (max && n == INFINITE) ? 0 : n;
}

/*
 * judge - falcon_submit_judge() of job under lock with falcon.conf
 * refreshed, its log line written.  *why, *licenses and *features are
 * xmalloc'd (NULL: none, unchanged, unchanged).  Returns SLURM_SUCCESS or
 * the ESLURM code of the refusal.
 */
static int judge(const struct falcon_submit_job *job, char **why, char **licenses,
		 char **features)
{
	static const int rc[] = {
		[FALCON_SUBMIT_ACCEPT] = SLURM_SUCCESS,
		[FALCON_SUBMIT_BAD_GRES] = ESLURM_INVALID_GRES,
		[FALCON_SUBMIT_BAD_LICENSES] = ESLURM_INVALID_LICENSES,
		[FALCON_SUBMIT_BAD_FEATURE] = ESLURM_INVALID_FEATURE,
	};
	struct jsf_memo memo = { 0 };
	struct falcon_ctld_view v = jsf_ctld_view(&memo);
	struct falcon_submit_out out;
	falcon_err_t ferr;

	*why = *licenses = *features = NULL;
	pthread_mutex_lock(&lock);
	falcon_conf_keep(&kept, falcon_conf_path(NULL));
	jsf_memo_pools(&memo, kept.conf);
	ferr = falcon_submit_judge(kept.conf, falcon_conf_kept_broken(&kept), job, &v, &out);
	pthread_mutex_unlock(&lock);
	jsf_memo_free(&memo);
	if (ferr != FALCON_OK) {
		falcon_error("uid %u: %s", job->uid, falcon_errmsg());
		return SLURM_ERROR;
	}
	if (out.note != NULL && out.note_error)
		falcon_error("%s", out.note);
	else if (out.note != NULL)
		falcon_info("%s", out.note);
	*why = out.why ? xstrdup(out.why) : NULL;
	*licenses = out.licenses ? xstrdup(out.licenses) : NULL;
	*features = out.features ? xstrdup(out.features) : NULL;
	falcon_submit_out_free(&out);
	return rc[out.verdict];
}

/*
 * A heterogeneous job's licenses: Slurm calls job_submit for every
 * component in turn, offset 0 first, in the thread of that one RPC, before
 * any is created (src/slurmctld/proc_req.c), and 24.11 refuses licenses on
 * a component other than the leader (falcon_het_licenses()).  So the
 * leader's request is remembered (per thread) and each later component's
 * pool licenses are added to it.
 */
static __thread job_desc_msg_t *het_leader;

/* het_move - of component offset (> 0), the chassis pool licenses in *lic
 * (judge()'s, xmalloc'd) moved to het_leader's.  false (nothing changed)
 * when out of memory, or with the user's refusal in *why (xmalloc'd) for a
 * component asking for HRES (falcon_het_licenses()). */
static bool het_move(uint32_t offset, char **lic, char **why)
{
	char *lead = NULL, *mine = NULL;
	falcon_err_t ferr = FALCON_OK;

	pthread_mutex_lock(&lock);
	if (kept.conf != NULL)
		ferr = falcon_het_licenses(kept.conf, het_leader->licenses, *lic, &lead, &mine);
	if (ferr == FALCON_ERR_INVAL)
		*why = xstrdup(falcon_errmsg());
	pthread_mutex_unlock(&lock);
	if (kept.conf == NULL || ferr != FALCON_OK)
		return kept.conf == NULL;
	falcon_info("hetjob component %u: licenses '%s' go to its leader (Slurm 24.11: only "
		    "it may hold licenses): '%s' -> '%s'", offset, *lic ? *lic : "",
		    het_leader->licenses ? het_leader->licenses : "", lead ? lead : "");
	xfree(het_leader->licenses);
	het_leader->licenses = lead ? xstrdup(lead) : NULL;
	xfree(*lic);
	*lic = xstrdup(mine ? mine : "");
	free(lead);
	free(mine);
	return true;
}

/*
 * auto_topology - --falcon-topology=auto (falcon_auto_gpus()): the job's
 * GPUs rewritten as falcon_auto_choose() decides over the AdviceFile and
 * the first partition's nodes and pools; *msg (xmalloc'd) for sbatch to
 * show: the choice and why, or the refusal of a job asking for no GPU
 * (ESLURM_INVALID_GRES).  A job without auto is left alone (*msg NULL).
 * judge() then applies the policy and the pool licenses to the choice.
 */
static int auto_topology(job_desc_msg_t *job, uint32_t uid, char **msg)
{
	struct falcon_auto_job aj = {
		.uid = uid, .tres_per_node = job->tres_per_node, .comment = job->comment,
		.name = job->name, .admin_comment = job->admin_comment,
	};
	struct jsf_memo memo = { 0 };
	struct falcon_ctld_view v = jsf_ctld_view(&memo);
	struct falcon_ctld_node *nodes = NULL;
	struct falcon_auto_out out = { 0 };
	char *part = NULL, *save = NULL;
	falcon_err_t ferr;
	size_t nn;
	int gpus;

	*msg = NULL;
	gpus = falcon_auto_gpus(job->spank_job_env, job->spank_job_env_size, job->tres_per_node);
	if (gpus == 0)
		return SLURM_SUCCESS; /* judge() refuses a bad option word */
	if (gpus < 0) {
		*msg = xstrdup(FALCON_AUTO_NO_GPU_MSG);
		return ESLURM_INVALID_GRES;
	}
	pthread_mutex_lock(&lock);
	falcon_conf_keep(&kept, falcon_conf_path(NULL));
	if (kept.conf == NULL) {
		pthread_mutex_unlock(&lock);
		return SLURM_SUCCESS; /* judge() says why */
	}
	part = xstrdup(job->partition && job->partition[0] ? job->partition : default_part_name);
	if (part != NULL)
		strtok_r(part, ",", &save); /* the first partition's nodes and policy */
	aj.partition = part;
	aj.gpus = (unsigned)gpus;
	falcon_advice_keep(&advice_kept, kept.conf->advice_file);
	nn = jsf_ctld_nodes(part ? part : "", &nodes);
	jsf_memo_pools(&memo, kept.conf);
	ferr = falcon_auto_choose(kept.conf, &v, &aj, advice_kept.rows, advice_kept.n, nodes, nn,
				  &out);
	jsf_memo_free(&memo);
	jsf_ctld_nodes_free(nodes, nn);
	pthread_mutex_unlock(&lock);
	if (ferr != FALCON_OK) {
		falcon_error("uid %u: auto: %s", uid, falcon_errmsg());
		goto out;
	}
	if (out.note != NULL)
		falcon_info("%s", out.note);
	*msg = out.msg ? xstrdup(out.msg) : NULL;
	if (out.tres_per_node != NULL) {
		xfree(job->tres_per_node);
		job->tres_per_node = xstrdup(out.tres_per_node);
	}
	if (out.admin_comment != NULL) {
		xfree(job->admin_comment);
		job->admin_comment = xstrdup(out.admin_comment);
	}
out:
	falcon_auto_out_free(&out);
	xfree(part);
	return SLURM_SUCCESS;
}

extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
	struct falcon_submit_job job;
	char *why = NULL, *lic = NULL, *feat = NULL;
	int rv;

	if (job_desc->het_job_offset == 0)
		het_leader = job_desc;
	else if (job_desc->het_job_offset == NO_VAL)
		het_leader = NULL;

	rv = auto_topology(job_desc, submit_uid, &why);
	if (rv != SLURM_SUCCESS || why != NULL) {
		/* the refusal, or on success what auto chose (sbatch shows it) */
		if (err_msg != NULL) {
			xfree(*err_msg);
			*err_msg = why;
			why = NULL;
		}
		xfree(why);
		if (rv != SLURM_SUCCESS)
			return rv;
	}

	job = (struct falcon_submit_job){
		.uid = submit_uid, .partitions = job_desc->partition,
		.tres_per_node = job_desc->tres_per_node, .env = job_desc->spank_job_env,
		.nenv = job_desc->spank_job_env_size, .licenses = job_desc->licenses,
		.req_nodes = job_desc->req_nodes, .features = job_desc->features,
		.min_nodes = nodes_given(job_desc->min_nodes, false),
		.max_nodes = nodes_given(job_desc->max_nodes, true),
	};
	rv = judge(&job, &why, &lic, &feat);
	if (rv != SLURM_SUCCESS) {
		if (err_msg != NULL && why != NULL) {
			xfree(*err_msg);
			*err_msg = why;
			why = NULL;
		}
		goto out;
	}
	if (lic != NULL && het_leader != NULL && het_leader != job_desc &&
	    job_desc->het_job_offset != NO_VAL && job_desc->het_job_offset > 0 &&
	    !het_move(job_desc->het_job_offset, &lic, &why)) {
		rv = why != NULL ? ESLURM_INVALID_LICENSES : SLURM_ERROR;
		if (err_msg != NULL && why != NULL) {
			xfree(*err_msg);
			*err_msg = why;
			why = NULL;
		}
		goto out;
	}
	if (lic != NULL) {
		xfree(job_desc->licenses);
		job_desc->licenses = lic[0] ? lic : NULL;
		if (job_desc->licenses != NULL)
			lic = NULL;
	}
	if (feat != NULL) {
		xfree(job_desc->features);
		job_desc->features = feat;
		feat = NULL;
	}
out:
	xfree(why);
	xfree(lic);
	xfree(feat);
	return rv;
}

/*
 * modified_job - what the judge sees of job j updated by d: each
 * field the update sets, else the job's own.  A constraint set to "" clears
 * it (falcond's re-pin asks for a new pick).
 */
static void modified_job(const job_desc_msg_t *d, const job_record_t *j, uint32_t uid,
			 struct falcon_submit_job *job)
{
	/* through j->details: its type is named differently across Slurm releases */
	*job = (struct falcon_submit_job){
		.job_id = j->job_id, .uid = uid,
		.partitions = d->partition ? d->partition : j->partition,
		.tres_per_node = d->tres_per_node ? d->tres_per_node : j->tres_per_node,
		.env = d->spank_job_env ? d->spank_job_env : j->spank_job_env,
		.nenv = d->spank_job_env ? d->spank_job_env_size : j->spank_job_env_size,
		.licenses = d->licenses ? d->licenses : j->licenses,
		.req_nodes = d->req_nodes ? d->req_nodes
			     : j->details ? j->details->req_nodes : NULL,
		.features = d->features ? d->features : j->details ? j->details->features : NULL,
		.min_nodes = nodes_given(d->min_nodes != NO_VAL ? d->min_nodes
					 : j->details ? j->details->min_nodes : NO_VAL, false),
		.max_nodes = nodes_given(d->max_nodes != NO_VAL ? d->max_nodes
					 : j->details ? j->details->max_nodes : NO_VAL, true),
	};
}

/*
 * job_modify - the fields not changed are the job's own.  From Slurm 23.02
 * on the refusal's message is *err_msg (xmalloc'd, slurmctld frees it),
 * which scontrol update shows the user; 22.05 gives job_modify no err_msg:
 * the message goes to slurmctld's log only and the user gets "Invalid
 * generic resource (gres) specification".  An update that sets a chassis
 * pool license against falcon's count is refused
 * (falcon_submit_contradiction()).
 */
#ifdef FALCON_MODIFY_ERR_MSG
extern int job_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr, uint32_t submit_uid,
		      char **err_msg)
#else
extern int job_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr, uint32_t submit_uid)
#endif
{
	struct falcon_submit_job job;
	char *why = NULL, *lic = NULL, *feat = NULL, *contra = NULL;
	int rv;

	/* nothing falcon judges changed: leave the job alone */
	if (job_desc->tres_per_node == NULL && job_desc->partition == NULL &&
	    job_desc->licenses == NULL && job_desc->min_nodes == NO_VAL &&
	    job_desc->max_nodes == NO_VAL && job_desc->spank_job_env == NULL &&
	    job_desc->features == NULL && job_desc->req_nodes == NULL)
		return SLURM_SUCCESS;
	modified_job(job_desc, job_ptr, submit_uid, &job);
	rv = judge(&job, &why, &lic, &feat);
	if (rv == SLURM_SUCCESS && job_desc->licenses != NULL && lic != NULL) {
		pthread_mutex_lock(&lock);
		if (kept.conf != NULL)
			falcon_submit_contradiction(kept.conf, job_desc->licenses, lic,
						    job_ptr->job_id, &contra);
		pthread_mutex_unlock(&lock);
		if (contra != NULL) {
			why = xstrdup(contra);
			free(contra);
			rv = ESLURM_INVALID_LICENSES;
		}
	}
	if (rv != SLURM_SUCCESS) {
		falcon_info("job %u: modify refused: %s", job_ptr->job_id, why ? why : "");
#ifdef FALCON_MODIFY_ERR_MSG
		if (err_msg != NULL && why != NULL) {
			xfree(*err_msg);
			*err_msg = why;
			why = NULL;
		}
#endif
		goto out;
	}
	if (lic != NULL && IS_JOB_PENDING(job_ptr)) {
		xfree(job_desc->licenses);
		job_desc->licenses = lic;
		lic = NULL;
	}
	if (feat != NULL && IS_JOB_PENDING(job_ptr)) {
		xfree(job_desc->features);
		job_desc->features = feat;
		feat = NULL;
	}
out:
	xfree(why);
	xfree(lic);
	xfree(feat);
	return rv;
}
