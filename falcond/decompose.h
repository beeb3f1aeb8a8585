/*
 * decompose.h - the decompose (decompose.c): a lease or every lease of a job closed,
 * intent written before the detach.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCOND_DECOMPOSE_H
#define FALCOND_DECOMPOSE_H

#include <json-c/json.h>

#include "api/proto.h"
#include "state.h"

/*
 * falcond_decompose - close one lease (r->lease) or every lease of r->job_id on
 * every host (with r->off_node, only those no node prolog asked for, once
 * the job's composes in flight have ended: EpilogSlurmctld's; the job is
 * marked ended first, falcond_job_ended_mark); *closed (may be NULL;
 * caller puts) = {"closed":[ids], "quarantined":N}, set on errors too.  FALCON_ERR_NOTFOUND when there is
 * none, FALCON_ERR_IO when a ledger write failed.  Thread-safe.
 */
falcon_err_t falcond_decompose(struct falcond_state *st, const struct falcon_decompose_req *r,
			       json_object **closed);

#endif /* FALCOND_DECOMPOSE_H */
