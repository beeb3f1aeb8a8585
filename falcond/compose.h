/*
 * compose.h - the compose (compose.c): policy, placement, the attach of each port's
 * set, the lease made durable before it is answered; a failure rolls back
 * through falcond_release_lease() (detach.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCOND_COMPOSE_H
#define FALCOND_COMPOSE_H

#include "api/proto.h"
#include "state.h"

/*
 * falcond_compose - the whole compose (see doc/falcond.8): policy, placement,
 * attach, ledger commit; *out = a copy of the lease (caller's storage),
 * answered only once the ledger write covering it is done.  Errors:
 * FALCON_ERR_NOTFOUND (host not in falcon.conf), _POLICY, _NORESOURCE,
 * _CONFLICT (the job already has another lease on the host), a chassis
 * error, or FALCON_ERR_IO (ledger write); on any of them after the lease
 * was recorded the attach is rolled back.  Thread-safe.
 */
falcon_err_t falcond_compose(struct falcond_state *st, const struct falcon_compose_req *r,
			     struct falcon_lease *out);

#endif /* FALCOND_COMPOSE_H */
