/*
 * advise.h - the topology advisor (falconctl advise), without libslurm:
 * a workload's relative runtime per topology (report.c's rows, Fig. 11
 * of the paper) and what is free now (local GPUs per node, falcon GPUs
 * per chassis pool) give the topology to ask for, its sbatch option and
 * the reason.  Linked by falconctl (`falconctl advise`: its slurmdbd,
 * slurmctld and falcond calls stay in falconctl/advise_cmd.c) and by
 * job_submit_falcon.so (--falcon-topology=auto: auto.h).
 *
 * The rule (doc/falconctl.1, command advise), for N GPUs:
 *  - a topology is trusted when the workload has at least min_jobs jobs
 *    of it in the window; the others are shown, never picked;
 *  - each trusted topology is free now (wait 0), busy (the capacity is
 *    there but taken: wait unknown), never (no node or pool can give N
 *    GPUs that way) or unknown (falcond did not answer);
 *  - expected completion = wait + the topology's median elapsed: among the
 *    free ones the lowest median wins; when none is free, the busy or
 *    unknown one with the lowest median (its wait is not known, and said
 *    so); ties go to localGPUs, then hybridGPUs, then falconGPUs (fewer
 *    chassis devices composed).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_ADVISE_H
#define FALCON_ADVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "core/falcon_err.h"
#include "core/fleet.h"
#include "advise/report.h"

/* Trusted history: a topology with fewer jobs is not picked. */
#define FALCON_ADVISE_MIN_JOBS 3

/* One Slurm node now (slurm_load_node: gres minus gres_used). */
struct falcon_anode {
	char name[64];
	uint32_t gpus, gpus_free;               /* GRES gpu: the node's own GPUs */
	uint32_t falcon_gpus, falcon_gpus_free; /* GRES falcon_gpu: its slots for composed GPUs */
};

/* One chassis pool now (falcond's GET /v1/status: devices of type GPU). */
struct falcon_achassis {
	char name[64];
	uint32_t gpus;      /* GPUs not quarantined */
	uint32_t gpus_free; /* state "free" */
};

/* What is free now; the arrays are borrowed. */
struct falcon_avail {
	const struct falcon_anode *nodes;
	size_t nnodes;
	const struct falcon_achassis *chassis;
	size_t nchassis;
	bool chassis_known; /* false: falcond did not answer (falcon GPUs unknown) */
};

/* A topology's state now, for N GPUs. */
enum falcon_anow {
	FALCON_ANOW_FREE,    /* can start now: wait 0 */
	FALCON_ANOW_BUSY,    /* there, but taken: wait unknown */
	FALCON_ANOW_NEVER,   /* no node or pool can give N GPUs that way */
	FALCON_ANOW_UNKNOWN, /* falcond did not answer */
};

/* One topology of the workload: its history and its state now. */
struct falcon_atopo {
	char topo[32];        /* localGPUs, hybridGPUs, falconGPUs */
	size_t jobs;
	uint32_t median;      /* s, nearest rank */
	double rel;           /* median / the baseline's median */
	bool trusted;         /* jobs >= min_jobs */
	enum falcon_anow now;
	char option[64];      /* sbatch option for N GPUs ("" when never) */
	unsigned local, falcon; /* the local and falcon GPUs option asks for (hybrid) */
	char where[160];      /* the state in words ("local GPUs free on 3 nodes") */
};

/* The advice for one workload. */
struct falcon_advice {
	char workload[128];
	unsigned gpus;
	char baseline[32];             /* what rel is relative to */
	struct falcon_atopo topo[3];   /* those with history, in the order above */
	size_t ntopo;
	int pick;                      /* index into topo; -1 = no advice */
	char reason[512];
};

/*
 * falcon_advise - the advice for workload (a key of rel[]'s rows, as
 * falcon_report_relative() makes them) and gpus GPUs (1..64) from av,
 * into *out (filled whole, the caller's).  Only the GPU topologies
 * count (rows such as "falconGPUs+falconNVMe" or "falconNVMe" are left
 * out).  min_jobs 0 means FALCON_ADVISE_MIN_JOBS.  FALCON_ERR_NOTFOUND
 * when the workload has no GPU job in rel[]; FALCON_ERR_INVAL for a NULL
 * argument or gpus out of range.  Too little history is FALCON_OK with
 * out->pick -1 and the reason.
 */
falcon_err_t falcon_advise(const struct falcon_rrel *rel, size_t nrel, const char *workload,
			   const struct falcon_avail *av, unsigned gpus, size_t min_jobs,
			   struct falcon_advice *out);

/*
 * falcon_advise_line - a's one line into buf (size n, always terminated;
 * cut when short): "WL: T R (J jobs), ...: ask for OPTION (T); REASON" or
 * "WL: ...: no advice; REASON".  Returns buf.
 */
char *falcon_advise_line(const struct falcon_advice *a, char *buf, size_t n);

/*
 * falcon_advise_write - the advices a[0..n) for gpus GPUs to f, one line
 * each (json false) or one JSON object (doc/falconctl.1, advise: gpus,
 * min_jobs (0: FALCON_ADVISE_MIN_JOBS), the window start..end (epoch s),
 * the availability av and an "advice" array).  chassis_error (NULL
 * allowed) says why av has no chassis.  FALCON_ERR_IO when a write failed.
 */
falcon_err_t falcon_advise_write(FILE *f, const struct falcon_advice *a, size_t n, unsigned gpus,
				 const struct falcon_avail *av, const char *chassis_error,
				 time_t start, time_t end, size_t min_jobs, bool json);

/*
 * falcon_anode_set - *a for node name (cut to its 63 bytes) from its GRES
 * configured (gres) and allocated (gres_used), as slurm_load_node and
 * slurmctld's node_record_t give them: gpus and falcon_gpus are the counts
 * of GRES gpu and falcon_gpu (falcon_gres_count()); each is free less what
 * is allocated (never below 0), and nothing is free on a node that is not
 * up (down, drained, failing, not responding: the caller's reading).
 */
void falcon_anode_set(struct falcon_anode *a, const char *name, const char *gres,
		      const char *gres_used, bool up);

/* The topologies --falcon-topology=auto may choose (a partition's
 * AllowTopologies), as a mask. */
#define FALCON_AUTO_LOCAL 1u
#define FALCON_AUTO_HYBRID 2u
#define FALCON_AUTO_FALCON 4u

/* What --falcon-topology=auto chose for a job. */
struct falcon_auto {
	char topo[32];          /* localGPUs, hybridGPUs, falconGPUs; "" = none */
	unsigned local, falcon; /* its GPUs as local (gres gpu) and falcon (falcon_gpu) */
	bool history;           /* by the workload's history (else by what is free) */
	char reason[600];
};

/*
 * falcon_advise_auto - the topology for a job of workload asking for gpus
 * GPUs (1..64) with --falcon-topology=auto, among the allowed ones (a
 * FALCON_AUTO_* mask): falcon_advise()'s pick over rel[]'s rows of the
 * allowed topologies when it makes one (the same rule as `falconctl
 * advise`); otherwise, with no or too little history, by what av says is
 * free now: local GPUs free on a node, else falcon GPUs free in a pool and
 * falcon_gpu slots on a node, else whichever of the two the partition can
 * ever give, local first (Table III's baseline, nothing composed).  No
 * choice (out->topo "") when no allowed topology can ever give gpus GPUs.
 * *out is filled whole.  FALCON_ERR_INVAL for a NULL argument or gpus out
 * of range; never another error.
 */
falcon_err_t falcon_advise_auto(const struct falcon_rrel *rel, size_t nrel, const char *workload,
				const struct falcon_avail *av, unsigned gpus, unsigned allowed,
				struct falcon_auto *out);

/*
 * falcon_advice_rows - the history rows (one per workload and topology:
 * workload, topology, jobs, elapsed_median_s, relative, the workload's
 * baseline) of a `falconctl advise --format json` document o, as
 * falcon_report_relative() made them; *rows malloc'd (free()), *n rows.
 * FALCON_ERR_PARSE naming the member (advice[i].topologies[k].jobs...)
 * that is missing or of the wrong type; FALCON_ERR_NOMEM.  On error *rows
 * is NULL and *n 0.
 */
falcon_err_t falcon_advice_rows(json_object *o, struct falcon_rrel **rows, size_t *n);

/* falcon_anow_str - "free", "busy", "never", "unknown". */
const char *falcon_anow_str(enum falcon_anow s);

#endif /* FALCON_ADVISE_H */
