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

#include <stddef.h>

#include "advise/auto.h"
#include "core/submit.h"

/*
 * jsf_ctld_view - the view of slurmctld: its default partition, its
 * partitions and their Nodes=, Slurm's hostlist expansion, and each
 * license's configured total, what one job could take now (reservations
 * counted) and what pending jobs claim, each count found by bisection (no
 * reader of one license's total or use exists in all of 22.05 to 24.11).
 * Call with slurmctld's job and node read locks held (job_submit's caller
 * holds them).
 */
struct falcon_ctld_view jsf_ctld_view(void);

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
