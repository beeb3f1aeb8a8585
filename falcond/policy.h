/*
 * policy.h - the partition's policy checked again inside falcond, on each
 * compose request (policy.c): defence in depth behind job_submit_falcon,
 * for a request that did not come through it (falconctl attach, a job
 * submitted before falcon.conf changed).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCOND_POLICY_H
#define FALCOND_POLICY_H

#include "api/proto.h"
#include "core/conf.h"
#include "core/falcon_err.h"

/*
 * falcond_policy_check - the partition's policy (falcon.conf AllowTopologies,
 * MaxFalconGPUs, MaxFalconNVMe) against a compose request: FALCON_ERR_POLICY
 * with the rule in the detail, else FALCON_OK.  falcon_policy_check() of
 * lib/core/policy.h judges, so the message is job_submit_falcon's (without its
 * "use partition X" advice); r->partition, when set, names the partition.
 */
falcon_err_t falcond_policy_check(const struct falcon_partition_conf *p,
				  const struct falcon_compose_req *r);

#endif /* FALCOND_POLICY_H */
