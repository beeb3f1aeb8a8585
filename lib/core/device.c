/*
 * device.c - device kinds and their words (device.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <strings.h>

#include "core/device.h"
#include "core/util.h"

static const char *const dev_types[] = {
	[FALCON_DEV_GPU] = "GPU", [FALCON_DEV_NVME] = "NVMe",
	[FALCON_DEV_NIC] = "NIC", [FALCON_DEV_OTHER] = "other",
};

const char *falcon_dev_type_str(falcon_dev_type_t t)
{
	if ((unsigned)t >= ARRAY_SIZE(dev_types))
		return "other";
	return dev_types[t];
}

falcon_err_t falcon_dev_type_from_str(const char *s, falcon_dev_type_t *out)
{
	size_t i;

	for (i = 0; s != NULL && i < ARRAY_SIZE(dev_types); i++)
		if (strcasecmp(s, dev_types[i]) == 0) {
			*out = (falcon_dev_type_t)i;
			return FALCON_OK;
		}
	return falcon_err_set(FALCON_ERR_PARSE, "device type '%s': expected GPU, NVMe, NIC or other",
			      s ? s : "(null)");
}
