/*
 * device.c - device kinds and their words (device.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdbool.h>
#include <string.h>
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

/* id_number - the characters at s up to stop (NULL: the end of s) as 1 to
 * 99 without leading zero into *v. */
static bool id_number(const char *s, const char *stop, long *v)
{
	size_t len = stop != NULL ? (size_t)(stop - s) : strlen(s);

	return len > 0 && s[0] != '0' && falcon_strtol_n(s, len, 10, 1, 99, v) == FALCON_OK;
}

falcon_err_t falcon_slot_id_parse(const char *id, int *drawer, int *slot)
{
	const char *us;
	long d, s;

	if (id == NULL || strncmp(id, "drawer", 6) != 0 || (us = strstr(id, "_slot")) == NULL ||
	    !id_number(id + 6, us, &d) || !id_number(us + 5, NULL, &s))
		return falcon_err_set(FALCON_ERR_INVAL, "device id '%s': expected "
				      "drawer<D>_slot<S>, D and S 1 to 99", id ? id : "(null)");
	*drawer = (int)d;
	*slot = (int)s;
	return FALCON_OK;
}

falcon_err_t falcon_drawer_id_parse(const char *id, int *drawer)
{
	long d;

	if (id == NULL || strncmp(id, "drawer", 6) != 0 || !id_number(id + 6, NULL, &d))
		return falcon_err_set(FALCON_ERR_INVAL, "drawer id '%s': expected drawer<D>, D 1 "
				      "to 99", id ? id : "(null)");
	*drawer = (int)d;
	return FALCON_OK;
}
