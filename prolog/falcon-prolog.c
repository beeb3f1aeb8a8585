/*
 * falcon-prolog.c - the Slurm node prolog (slurm.conf Prolog=, runs as
 * root in slurmd): compose the job's Falcon devices through falcond, bring
 * them onto the node's PCIe bus, verify them, write the job's topology,
 * run falcon-ncclcheck and tag the job's AdminComment.  On a failure of
 * the node itself (a device not in its slot, a degraded link with
 * CheckAction=drain, a device stuck on the bus) roll back, drain the node
 * with a "falcon: ..." reason and exit non-zero (Slurm then requeues the
 * job held); on one of falcond, the pool or a chassis roll back, requeue
 * the job (slurm_requeue) and exit 0: the node stays in service.
 * With --slurmctld (slurm.conf PrologSlurmctld=) it only composes, for
 * each node of the job, waiting up to ComposeWait= while falcond or the
 * pool is not ready; the node prolog then finds the lease made (falcond's
 * compose is idempotent per job and host).  See doc/falcon-prolog.8.
 *
 * This file is the program's start: options, falcon.conf, the mode; the
 * modes are prolog_node.c and prolog_slurmctld.c, each with its context.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "fp_common.h"
#include "fp_falcond.h"
#include "fp_slurm.h"
#include "fp_start.h"
#include "fp_topo.h"
#include "prolog_node.h"
#include "prolog_slurmctld.h"
#include "core/log.h"
#include "core/util.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: falcon-prolog [-c FILE] [-j JOBID] [-n NODE] [--slurmctld] [--no-slurm] "
		"[-v]...\n"
		"  Slurm node prolog: compose, hot-add, verify, check and tag the job's\n"
		"  Falcon devices.  JOBID defaults to $SLURM_JOB_ID, NODE to $SLURMD_NODENAME.\n"
		"  --slurmctld (PrologSlurmctld=; implied by SLURM_SCRIPT_CONTEXT=prolog_slurmctld):\n"
		"  compose for every node of $SLURM_JOB_NODELIST, waiting up to ComposeWait=.\n"
		"  --no-slurm (debugging): the job from the environment (FALCON_TRES_PER_NODE,\n"
		"  SLURM_JOB_PARTITION, SLURM_JOB_UID/GID); no AdminComment, drain or cancel.\n");
}

int main(int argc, char **argv)
{
	struct fp_node_times t = { 0, 0, 0 };
	struct fp_times tm;
	struct falcon_conf *conf = NULL;
	long long t_start = fp_now_us();
	struct fp_job job;
	int rc;

	memset(&job, 0, sizeof(job));
	if ((rc = fp_main_start(argc, argv, "falcon-prolog", usage, NULL, &job, &conf)) >= 0)
		return rc;
	rc = job.slurmctld ? fp_slurmctld_run(conf, &job)
			   : fp_node_run(conf, &job, falcon_now_ms() + conf->prolog_timeout * 1000LL,
					 &t);
	tm = fp_times();
	falcon_verbose("job %u: timing total_us=%lld falcond_us=%lld rescan_wait_us=%lld "
		       "scan_us=%lld slurm_us=%lld tag_us=%lld check_us=%lld rc=%d", job.id,
		       fp_now_us() - t_start, tm.falcond_us, t.wait_us, tm.scan_us, tm.slurm_us,
		       t.tag_us, t.check_us, rc);
	falcon_conf_free(conf);
	return rc;
}
