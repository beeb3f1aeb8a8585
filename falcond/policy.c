/*
 * policy.c - the partition's policy against a compose request (policy.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdio.h>

#include "policy.h"
#include "core/policy.h"

falcon_err_t falcond_policy_check(const struct falcon_partition_conf *p,
				  const struct falcon_compose_req *r)
{
	/* the same judge and message as job_submit_falcon (lib/core/policy.c) */
	struct falcon_job_req req = { .falcon_gpus = r->gpus, .falcon_nvme = r->nvme,
				      .gpus = r->local_gpus };
	struct falcon_partition_conf named = *p;

	if (r->partition[0] != '\0')
		snprintf(named.name, sizeof(named.name), "%s", r->partition);
	return falcon_policy_check(&named, NULL, NULL, &req);
}
