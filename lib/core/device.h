/*
 * device.h - the kind of a chassis device, one idea for the whole tree:
 * the chassis client (an Endpoint's or ResourceBlock's type), falcond's
 * leases and ledger, falcon-prolog's matching and falcon-sim's slots.
 *
 * The words are those of the request protocol, the ledger and falcon-sim's
 * configuration: "GPU", "NVMe", "NIC", "other" (read case-insensitively).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_DEVICE_H
#define FALCON_DEVICE_H

#include "core/falcon_err.h"

typedef enum {
	FALCON_DEV_GPU = 0,
	FALCON_DEV_NVME,
	FALCON_DEV_NIC,
	FALCON_DEV_OTHER,
} falcon_dev_type_t;

/*
 * falcon_dev_type_str - "GPU", "NVMe", "NIC" or "other" (any value out of
 * the enum reads "other").  Static storage, never NULL.
 */
const char *falcon_dev_type_str(falcon_dev_type_t t);

/*
 * falcon_dev_type_from_str - the inverse, case-insensitive.  FALCON_OK and
 * *out set; FALCON_ERR_PARSE ("device type 'X': expected GPU, NVMe, NIC or
 * other") for NULL or any other word, *out untouched.
 */
falcon_err_t falcon_dev_type_from_str(const char *s, falcon_dev_type_t *out);

/*
 * falcon_slot_id_parse - a chassis slot's id "drawer<D>_slot<S>" (the
 * Falcon 4016's spelling: H3's management service and falcon-sim) into
 * *drawer and *slot, each 1 to 99 written without leading zero (one
 * spelling per slot).  FALCON_ERR_INVAL ("device id 'X': expected
 * drawer<D>_slot<S>, D and S 1 to 99") otherwise, NULL included;
 * *drawer and *slot are untouched then.  falcon_drawer_id_parse - the same
 * of a drawer's switch id "drawer<D>".
 */
falcon_err_t falcon_slot_id_parse(const char *id, int *drawer, int *slot);
falcon_err_t falcon_drawer_id_parse(const char *id, int *drawer);

#endif /* FALCON_DEVICE_H */
