/*
 * job_submit_ctld.h - slurmctld's state as job_submit_falcon's decisions
 * (core/submit.h, advise/auto.h) read it, from slurmctld's own tables:
 * the struct falcon_ctld_view over its partitions, hostlists, licenses
 * (license_validate(), license_job_test()) and job list, and the nodes of
 * a partition for --falcon-topology=auto.  Include after Slurm's headers.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_JOB_SUBMIT_CTLD_H
#define FALCON_JOB_SUBMIT_CTLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "advise/auto.h"
#include "core/submit.h"

/*
 * One judge's reads of slurmctld's licenses.  slurmctld does not change
 * under the locks job_submit runs with, so each license's total and free
 * count are read once per judge, and the pending jobs' claims on every
 * chassis pool of falcon.conf are summed in one walk of the job list.
 * Before (issue 41), a job in a partition over C chassis read each pool up
 * to twice (is it free now; its backlog), each read bisecting the total
 * and the free count and walking the whole job list: 2C walks per submit.
 * Zero it before use; jsf_memo_free() after.
 */
struct jsf_memo_lic {
	char name[64];
	long total, free;    /* LONG_MIN: not read yet */
	long pending;        /* pool licenses: their claims, from the one walk */
	bool pool;           /* a chassis pool license (jsf_memo_pools()) */
};
struct jsf_memo {
	size_t nlic, cap;
	struct jsf_memo_lic *lic; /* xmalloc'd */
	bool walked;              /* the claims were summed, for exclude */
	uint32_t exclude;
};

/* jsf_memo_pools - the chassis pool licenses of fc (<C>_gpu, <C>_nvme:
 * falcon_license_name()) into m, for the one walk; before any read. */
void jsf_memo_pools(struct jsf_memo *m, const struct falcon_conf *fc);

/* jsf_memo_free - what m holds (it can be used again, empty). */
void jsf_memo_free(struct jsf_memo *m);

/*
 * jsf_ctld_view - the view of slurmctld: its default partition, its
 * partitions and their Nodes=, Slurm's hostlist expansion, and each
 * license's configured total, what one job could take now (reservations
 * counted) and what pending jobs claim, each count found by bisection (no
 * reader of one license's total or use exists in all of 22.05 to 24.11),
 * remembered in memo (NULL: read at every call) for one judge.
 * Call with slurmctld's job and node read locks held (job_submit's caller
 * holds them), and drop memo before they are let go.
 */
struct falcon_ctld_view jsf_ctld_view(struct jsf_memo *memo);

/*
 * jsf_ctld_nodes - the nodes of partition (node_record_t: name, GRES
 * configured and allocated, up unless down, drained, failing or not
 * responding); none for an unknown partition.  *nodes is xmalloc'd, each
 * gres_used too, the other strings borrowed from slurmctld: free with
 * jsf_ctld_nodes_free() before the node read lock is let go.  Returns the
 * number of nodes.
 */
size_t jsf_ctld_nodes(const char *partition, struct falcon_ctld_node **nodes);

/* jsf_ctld_nodes_free - what jsf_ctld_nodes() returned. */
void jsf_ctld_nodes_free(struct falcon_ctld_node *nodes, size_t n);

#endif /* FALCON_JOB_SUBMIT_CTLD_H */
