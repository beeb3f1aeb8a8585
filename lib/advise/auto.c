/*
 * auto.c - --falcon-topology=auto at submit (see auto.h): the request, the
 * topologies the policy allows, what is free now, the GRES rewritten and
 * what the user and the log are told.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <unistd.h>

#include <json-c/json.h>

#include "advise/auto.h"
#include "core/jobtag.h"
#include "core/log.h"
#include "core/policy.h"
#include "core/util.h"

int falcon_auto_gpus(char *const *env, size_t nenv, const char *tres)
{
	struct falcon_job_opts opts;
	struct falcon_job_req req = { 0, 0, 0 };

	if (falcon_job_opts_parse(env, nenv, &opts) != FALCON_OK || !opts.topology_auto) {
		falcon_err_clear();
		return 0;
	}
	if (falcon_tres_parse(tres, &req) != FALCON_OK || req.gpus + req.falcon_gpus == 0)
		return -1;
	return req.gpus + req.falcon_gpus;
}

/* chassis_add - chassis of conf (its name) into achs[*nc] with its GPU
 * pool now, unless it is there already. */
static void chassis_add(const struct falcon_conf *conf, const struct falcon_ctld_view *v,
			const char *chassis,
			struct falcon_achassis *achs, size_t *nc)
{
	struct falcon_pool_count c;
	size_t k;

	for (k = 0; k < *nc; k++)
		if (strcmp(achs[k].name, chassis) == 0)
			return;
	memset(&achs[*nc], 0, sizeof(achs[*nc]));
	falcon_strlcpy(achs[*nc].name, chassis, sizeof(achs[*nc].name));
	if (falcon_pool_read(conf, v, chassis, FALCON_DEV_GPU, FALCON_POOL_TOTAL | FALCON_POOL_FREE,
			     0, &c) == FALCON_OK) {
		achs[*nc].gpus = c.total > 0 ? (uint32_t)(c.total > UINT32_MAX ? UINT32_MAX : c.total)
					     : 0;
		achs[*nc].gpus_free = c.free > 0 ? (uint32_t)(c.free < (long)achs[*nc].gpus
							      ? c.free : achs[*nc].gpus) : 0;
	}
	(*nc)++;
}

falcon_err_t falcon_auto_avail(const struct falcon_conf *conf, const struct falcon_ctld_view *v,
			       const struct falcon_ctld_node *nodes, size_t n,
			       struct falcon_avail *av, struct falcon_anode **anodes,
			       struct falcon_achassis **achassis)
{
	const struct falcon_host_conf *h;
	size_t i, nc = 0;

	memset(av, 0, sizeof(*av));
	*anodes = calloc(n ? n : 1, sizeof(**anodes));
	*achassis = calloc(conf->nchassis ? conf->nchassis : 1, sizeof(**achassis));
	if (*anodes == NULL || *achassis == NULL) {
		free(*anodes);
		free(*achassis);
		*anodes = NULL;
		*achassis = NULL;
		return falcon_err_set(FALCON_ERR_NOMEM, "%zu nodes", n);
	}
	for (i = 0; i < n; i++) {
		falcon_anode_set(&(*anodes)[i], nodes[i].name, nodes[i].gres, nodes[i].gres_used,
				 nodes[i].up);
		if ((h = falcon_conf_host(conf, nodes[i].name)) != NULL &&
		    falcon_conf_chassis(conf, h->chassis) != NULL && nc < conf->nchassis)
			chassis_add(conf, v, h->chassis, *achassis, &nc);
	}
	av->nodes = *anodes;
	av->nnodes = n;
	av->chassis = *achassis;
	av->nchassis = nc;
	av->chassis_known = true;
	return FALCON_OK;
}

unsigned falcon_auto_allowed(const struct falcon_conf *conf, falcon_policy_known_fn known,
			     const char *partition, unsigned gpus)
{
	static const unsigned cand[] = { FALCON_AUTO_LOCAL, FALCON_AUTO_HYBRID, FALCON_AUTO_FALCON };
	unsigned allowed = 0;
	char tres[64];
	size_t k;

	for (k = 0; k < ARRAY_SIZE(cand); k++) {
		if (cand[k] == FALCON_AUTO_HYBRID && gpus < 2)
			continue;
		if (cand[k] == FALCON_AUTO_LOCAL)
			snprintf(tres, sizeof(tres), "gres/gpu:%u", gpus);
		else if (cand[k] == FALCON_AUTO_HYBRID)
			snprintf(tres, sizeof(tres), "gres/gpu:%u,gres/falcon_gpu:1", gpus - 1);
		else
			snprintf(tres, sizeof(tres), "gres/falcon_gpu:%u", gpus);
		if (falcon_policy_job(conf, known, partition, tres, NULL, 0, NULL) == FALCON_OK)
			allowed |= cand[k];
	}
	falcon_err_clear();
	return allowed;
}

/* is_gpu_entry - is tres entry e (up to its end) a gres gpu or falcon_gpu? */
static bool is_gpu_entry(const char *e, size_t elen)
{
	const char *name;
	size_t len;

	if (elen < 5 || strncmp(e, "gres", 4) != 0 || (e[4] != ':' && e[4] != '/'))
		return false;
	name = e + 5;
	len = strcspn(name, ":=,");
	if ((size_t)(name - e) + len > elen)
		len = elen - (size_t)(name - e);
	return (len == 3 && strncmp(name, "gpu", 3) == 0) ||
	       (len == 10 && strncmp(name, "falcon_gpu", 10) == 0);
}

char *falcon_auto_tres(const char *old, unsigned local, unsigned falcon)
{
	const char *pre = old != NULL && strstr(old, "gres/") != NULL ? "gres/" : "gres:";
	const char *p = old != NULL ? old : "";
	size_t cap = strlen(p) + 80, len = 0;
	char *out = malloc(cap);

	if (out == NULL)
		return NULL;
	out[0] = '\0';
	while (*p != '\0') {
		size_t elen = strcspn(p, ",");

		if (elen > 0 && !is_gpu_entry(p, elen))
			len += (size_t)snprintf(out + len, cap - len, "%s%.*s", len ? "," : "",
						(int)elen, p);
		p += elen + (p[elen] == ',');
	}
	if (local > 0)
		len += (size_t)snprintf(out + len, cap - len, "%s%sgpu:%u", len ? "," : "", pre,
					local);
	if (falcon > 0)
		snprintf(out + len, cap - len, "%s%sfalcon_gpu:%u", len ? "," : "", pre, falcon);
	return out;
}

/* auto_refuse_check - a choice the partition's policy refuses after all
 * (a hybrid split past MaxFalconGPUs) becomes none, with the reason. */
static void auto_refuse_check(const struct falcon_conf *conf, const struct falcon_ctld_view *v,
			      const struct falcon_auto_job *job, struct falcon_auto *a, char **t)
{
	if (*t == NULL ||
	    falcon_policy_job(conf, v->part_known, job->partition, *t, NULL, 0, NULL) == FALCON_OK)
		return;
	snprintf(a->reason, sizeof(a->reason), "its choice %s (%s) is refused: %s", a->topo, *t,
		 falcon_errmsg());
	a->topo[0] = '\0';
	free(*t);
	*t = NULL;
}

/* auto_tell - out's message, note and AdminComment for choice a (GRES t). */
static void auto_tell(const struct falcon_auto_job *job, const struct falcon_auto *a,
		      const char *t, struct falcon_auto_out *out)
{
	char opt[64], tag[64];

	if (a->local > 0 && a->falcon > 0)
		snprintf(opt, sizeof(opt), "--gres=gpu:%u,falcon_gpu:%u", a->local, a->falcon);
	else
		snprintf(opt, sizeof(opt), "--gres=%s:%u", a->local ? "gpu" : "falcon_gpu",
			 a->local ? a->local : a->falcon);
	out->note = falcon_strf("uid %u partition %s: auto: tres_per_node '%s' -> '%s' (%s): %s",
			 job->uid, job->partition ? job->partition : "(default)",
			 job->tres_per_node ? job->tres_per_node : "", t, a->topo, a->reason);
	out->msg = falcon_strf("falcon: --falcon-topology=auto: %s (%s) by %s: %s", a->topo, opt,
			a->history ? "the workload's history" : "what is free now", a->reason);
	snprintf(tag, sizeof(tag), "%s%s", FALCON_TAG_PREFIX "auto=", a->topo);
	if (falcon_tag_merge(job->admin_comment, tag, &out->admin_comment) != FALCON_OK)
		out->admin_comment = NULL;
}

falcon_err_t falcon_auto_choose(const struct falcon_conf *conf, const struct falcon_ctld_view *v,
				const struct falcon_auto_job *job, const struct falcon_rrel *rows,
				size_t nrows, const struct falcon_ctld_node *nodes, size_t nnodes,
				struct falcon_auto_out *out)
{
	const char *wl = job->comment && job->comment[0] ? job->comment
			 : job->name ? job->name : "";
	struct falcon_avail av;
	struct falcon_anode *an = NULL;
	struct falcon_achassis *ac = NULL;
	struct falcon_auto a;
	unsigned allowed;
	char *t = NULL;
	falcon_err_t rv;

	memset(out, 0, sizeof(*out));
	memset(&a, 0, sizeof(a));
	allowed = falcon_auto_allowed(conf, v->part_known, job->partition, job->gpus);
	if ((rv = falcon_auto_avail(conf, v, nodes, nnodes, &av, &an, &ac)) != FALCON_OK)
		return rv;
	if ((rv = falcon_advise_auto(rows, nrows, wl, &av, job->gpus, allowed, &a)) != FALCON_OK)
		goto out;
	if (a.topo[0] != '\0' &&
	    (t = falcon_auto_tres(job->tres_per_node, a.local, a.falcon)) == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "tres_per_node");
		goto out;
	}
	auto_refuse_check(conf, v, job, &a, &t);
	if (t == NULL) {
		out->msg = falcon_strf("falcon: --falcon-topology=auto: %s; the job keeps what it asked "
				"for", a.reason);
		out->note = falcon_strf("uid %u: auto: %s", job->uid, a.reason);
		goto out;
	}
	auto_tell(job, &a, t, out);
	out->tres_per_node = t;
	if (nrows == 0 && out->msg != NULL && conf->advice_file != NULL) {
		/* no history at all: say where it would come from (issue 42:
		 * the quickstart's auto said "no advice from history" beside
		 * falconctl advise's 11 jobs, its AdviceFile never written) */
		char *m = falcon_strf("%s (%s %s: `falconctl advise --save` writes the history auto "
			       "chooses by)", out->msg, access(conf->advice_file, F_OK) == 0
			       ? "no workload in AdviceFile" : "no AdviceFile", conf->advice_file);

		if (m != NULL) {
			free(out->msg);
			out->msg = m;
		}
	}
out:
	free(an);
	free(ac);
	return rv;
}

void falcon_auto_out_free(struct falcon_auto_out *out)
{
	free(out->tres_per_node);
	free(out->admin_comment);
	free(out->msg);
	free(out->note);
	out->tres_per_node = out->admin_comment = out->msg = out->note = NULL;
}

void falcon_advice_keep(struct falcon_advice_keeper *k, const char *path)
{
	struct falcon_rrel *rows = NULL;
	json_object *o;
	size_t n = 0;

	switch (falcon_file_look(&k->file, path)) {
	case FALCON_FILE_SAME:
		return;
	case FALCON_FILE_GONE:
		falcon_info("AdviceFile %s: %s: --falcon-topology=auto decides by what is free "
			    "now (`falconctl advise --save` writes it)", path, strerror(errno));
		/* fall through */
	case FALCON_FILE_STILL_GONE:
		free(k->rows);
		k->rows = NULL;
		k->n = 0;
		return;
	case FALCON_FILE_CHANGED:
		break;
	}
	o = json_object_from_file(path);
	if (o == NULL || falcon_advice_rows(o, &rows, &n) != FALCON_OK) {
		falcon_error("AdviceFile %s: %s; %s", path,
			     o == NULL ? json_util_get_last_err() : falcon_errmsg(),
			     k->rows ? "keeping the history read before" : "no history in use");
		json_object_put(o);
		return;
	}
	json_object_put(o);
	free(k->rows);
	k->rows = rows;
	k->n = n;
	falcon_info("AdviceFile %s: %zu workload/topology rows", path, n);
}

void falcon_advice_keeper_free(struct falcon_advice_keeper *k)
{
	free(k->rows);
	k->rows = NULL;
	k->n = 0;
	k->file.seen = false;
}
