/*
 * auto.h - sbatch --falcon-topology=auto as job_submit_falcon(8) applies it,
 * without Slurm: the job's N GPUs (gres gpu + falcon_gpu per node) taken as
 * the topology falcon_advise_auto() (advise.h) chooses among those the
 * partition's falcon.conf policy allows, from the AdviceFile's history of
 * the job's workload and what slurmctld has free now (its nodes' GRES not
 * allocated, its chassis pool licenses a job could take); the GRES
 * rewritten, the user told the choice and why, the AdminComment marked
 * falcon:auto=TOPOLOGY (until the prolog's tag, which keeps auto=1).
 * falcon_submit_judge() (core/submit.h) then applies the policy and the
 * pool licenses to what was chosen.
 *
 * Pure functions (no Slurm, no I/O, no logging; strings returned are
 * malloc'd: free()), except the AdviceFile's keeper, which reads the file
 * and logs through core/log.h's sinks.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_AUTO_H
#define FALCON_AUTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "advise/advise.h"
#include "core/conf.h"
#include "core/falcon_err.h"
#include "core/reload.h"
#include "core/submit.h"

/* What a job asking for auto without a GPU is told (ESLURM_INVALID_GRES). */
#define FALCON_AUTO_NO_GPU_MSG                                                          \
	"falcon: --falcon-topology=auto chooses where a job's GPUs come from: ask for " \
	"them with --gres=gpu:N (or falcon_gpu:N)"

/*
 * falcon_auto_gpus - does a job ask for --falcon-topology=auto (env[0..nenv):
 * its spank_job_env, read by falcon_job_opts_parse()), and for how many GPUs
 * per node (gpu + falcon_gpu of its tres_per_node, falcon_tres_parse())?
 * 0 when it does not ask for auto (a bad option word included:
 * falcon_submit_judge() refuses that); -1 when it asks for auto and for no
 * GPU, or its GRES do not parse (to be refused with FALCON_AUTO_NO_GPU_MSG);
 * else the number of GPUs (at most 2 x FALCON_TRES_MAX).
 */
int falcon_auto_gpus(char *const *env, size_t nenv, const char *tres);

/* One Slurm node of the job's partition as slurmctld holds it
 * (node_record_t); strings borrowed. */
struct falcon_ctld_node {
	const char *name;
	const char *gres;       /* configured, as node_record_t gres ("gpu:8,falcon_gpu:16") */
	const char *gres_used;  /* allocated, as gres_get_node_used() ("gpu:(null):2(IDX:0-1)") */
	bool up;                /* not down, drained, failing nor not responding */
};

/*
 * falcon_auto_avail - what is free now for a job of the partition whose
 * nodes are nodes[0..n), as `falconctl advise` reads it from
 * slurm_load_node and falcond: each node (falcon_anode_set()), and each
 * chassis of conf cabled to one of them, in the order first met, with its
 * GPU pool's total and what a job could take now (falcon_pool_read()
 * through v; a pool without a license counts 0).  av->chassis_known is
 * true.  The arrays *anodes and *achassis (malloc'd, free()) are what av
 * points to.  FALCON_ERR_NOMEM (both NULL then).
 */
falcon_err_t falcon_auto_avail(const struct falcon_conf *conf, const struct falcon_ctld_view *v,
			       const struct falcon_ctld_node *nodes, size_t n,
			       struct falcon_avail *av, struct falcon_anode **anodes,
			       struct falcon_achassis **achassis);

/*
 * falcon_auto_allowed - the topologies (FALCON_AUTO_* mask) partition
 * (NULL = DEFAULT's policy) of conf allows a job of gpus GPUs per node:
 * localGPUs as gres/gpu:N, hybridGPUs (gpus >= 2) as its most local split
 * gpu:N-1 + falcon_gpu:1 (the one the fewest limits refuse), falconGPUs as
 * falcon_gpu:N, each judged by falcon_policy_job() (known: as there).
 * Clears the falcon error it leaves.
 */
unsigned falcon_auto_allowed(const struct falcon_conf *conf, falcon_policy_known_fn known,
			     const char *partition, unsigned gpus);

/*
 * falcon_auto_tres - old (a tres_per_node; NULL = none) with its gpu and
 * falcon_gpu entries (spelt "gres:" or "gres/", any type) replaced by
 * "gpu:local" and "falcon_gpu:falcon" (each left out when 0) in old's
 * spelling ("gres/" when old has one, else Slurm 22.05's "gres:"); the
 * other entries kept in order.  A new string (free(); "" when nothing is
 * left), NULL when out of memory.
 */
char *falcon_auto_tres(const char *old, unsigned local, unsigned falcon);

/* A job asking for auto, as job_submit_falcon reads it; strings borrowed. */
struct falcon_auto_job {
	uint32_t uid;               /* for the log line */
	const char *partition;      /* its first partition, else the default; NULL = DEFAULT */
	const char *tres_per_node;
	const char *comment;        /* --comment: the workload when set */
	const char *name;           /* -J: the workload otherwise */
	const char *admin_comment;  /* its AdminComment now; NULL = none */
	unsigned gpus;              /* falcon_auto_gpus() (> 0) */
};

struct falcon_auto_out {
	char *tres_per_node;  /* the new per-node GRES; NULL = the job keeps what it asked */
	char *admin_comment;  /* with falcon:auto=TOPOLOGY; NULL = unchanged */
	char *msg;            /* for the user (sbatch prints it): the choice, or why none */
	char *note;           /* the line for slurmctld's log */
};

/*
 * falcon_auto_choose - the choice for job: falcon_advise_auto() over the
 * history rows[0..nrows) (the AdviceFile: falcon_advice_rows()), what is
 * free now (falcon_auto_avail() of nodes[0..nnodes), the job's partition's
 * nodes, and v) and falcon_auto_allowed(); a choice the partition's policy
 * refuses (a hybrid split past MaxFalconGPUs) is none.  With a choice,
 * out->tres_per_node is falcon_auto_tres() of it and out->msg says
 * "falcon: --falcon-topology=auto: T (--gres=...) by the workload's
 * history|what is free now: REASON"; without, out->msg says why and that
 * the job keeps what it asked for.  *out is filled whole (the caller's;
 * falcon_auto_out_free()).  FALCON_ERR_NOMEM, FALCON_ERR_INVAL (gpus out of
 * falcon_advise_auto()'s range).
 */
falcon_err_t falcon_auto_choose(const struct falcon_conf *conf, const struct falcon_ctld_view *v,
				const struct falcon_auto_job *job, const struct falcon_rrel *rows,
				size_t nrows, const struct falcon_ctld_node *nodes, size_t nnodes,
				struct falcon_auto_out *out);

/* falcon_auto_out_free - the strings of *out freed and set to NULL. */
void falcon_auto_out_free(struct falcon_auto_out *out);

/* The AdviceFile (falcon.conf(5)) a long-lived process keeps: the history
 * `falconctl advise --save` wrote. */
struct falcon_advice_keeper {
	struct falcon_file_seen file;
	struct falcon_rrel *rows;  /* malloc'd; NULL = none */
	size_t n;
};

/*
 * falcon_advice_keep - k->rows reread from path (falcon_advice_rows()) when
 * the file changed (falcon_file_look()).  A file that does not parse keeps
 * the rows read before (error logged once per change); a missing one
 * leaves none (info logged once: auto then decides by what is free now).
 */
void falcon_advice_keep(struct falcon_advice_keeper *k, const char *path);

/* falcon_advice_keeper_free - the rows freed, k forgotten. */
void falcon_advice_keeper_free(struct falcon_advice_keeper *k);

#endif /* FALCON_AUTO_H */
