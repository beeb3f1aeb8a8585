/*
 * quarantine.h - an administrator's quarantine of a device (quarantine.c).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCOND_QUARANTINE_H
#define FALCOND_QUARANTINE_H

#include "api/proto.h"
#include "state.h"

/*
 * falcond_quarantine / falcond_unquarantine - take a device out of / back into the
 * pool, committed before returning.  FALCON_ERR_NOTFOUND (no such chassis;
 * unquarantine: not quarantined), FALCON_ERR_IO (ledger write: the change
 * is undone in memory too, so that the pool is what the file says).
 */
falcon_err_t falcond_quarantine(struct falcond_state *st, const struct falcon_device_req *r);
falcon_err_t falcond_unquarantine(struct falcond_state *st, const struct falcon_device_req *r);

#endif /* FALCOND_QUARANTINE_H */
