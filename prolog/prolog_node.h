/*
 * prolog_node.h - falcon-prolog's node prolog mode (prolog_node.c).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_PROLOG_NODE_H
#define FALCON_PROLOG_NODE_H

#include "core/conf.h"
#include "fp_common.h"

/* Where a node prolog run spent its time (microseconds; bench breakdown). */
struct fp_node_times {
	long long wait_us;   /* rescan until the lease was found */
	long long tag_us;    /* the AdminComment tag */
	long long check_us;  /* falcon-ncclcheck */
};

/*
 * fp_node_run - the node prolog for job on job->node: read the job
 * (fp_slurm_job(), into *job), compose (fp_compose()), hot-add and find
 * the devices in their slots, write RunDir/<job>/lease.json and
 * topology.json, deny the new devices to the running jobs' cgroups,
 * verify links and run falcon-ncclcheck by the partition's CheckAction,
 * tag the AdminComment.  Every failure rolls back the node's state with
 * one function (hot-remove what appeared, fp_give_back() the lease), then
 * drains the node (its fault: returns 1), or requeues / cancels the job
 * (falcond's, the pool's, a chassis' or the job's: returns 0, 1 with
 * --no-slurm).  deadline: falcon_now_ms() at which PrologTimeout ends.
 * *times gets the timing breakdown.  conf is the caller's.
 */
int fp_node_run(const struct falcon_conf *conf, struct fp_job *job, long long deadline,
		struct fp_node_times *times);

#endif /* FALCON_PROLOG_NODE_H */
