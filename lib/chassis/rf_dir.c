/*
 * rf_dir.c - a falcon_rf_get_fn over a DMTF mockup directory on disk
 * (unit tests, falconctl inventory --mockup, the fixture server).  Declared
 * in lib/chassis/redfish.h.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chassis/redfish.h"
#include "core/util.h"

falcon_err_t falcon_rf_dir_get(void *ctx, const char *path, struct json_object **out,
			       char *etag, size_t etag_len)
{
	const char *dir = ctx;
	char rel[FALCON_RF_PATH_LEN], file[4096];
	char *buf = NULL;
	size_t len = 0, n;
	falcon_err_t rv;

	*out = NULL;
	if (etag != NULL && etag_len > 0)
		etag[0] = '\0';
	if (!falcon_rf_path_ok(path)) {
		rv = falcon_err_set(FALCON_ERR_INVAL, "'%s' is not a resource path", path);
		goto fail;
	}
	falcon_strlcpy(rel, path + strlen(FALCON_RF_ROOT), sizeof(rel));
	rel[strcspn(rel, "#")] = '\0';
	n = strlen(rel);
	while (n > 0 && rel[n - 1] == '/')
		rel[--n] = '\0';
	if ((size_t)snprintf(file, sizeof(file), "%s%s/index.json", dir, rel) >= sizeof(file)) {
		rv = falcon_err_set(FALCON_ERR_INVAL, "%s: mockup path too long", path);
		goto fail;
	}
	rv = falcon_read_file(file, FALCON_RF_MAX_BODY, &buf, &len);
	if (rv == FALCON_ERR_NOTFOUND) {
		rv = falcon_err_set(FALCON_ERR_NOTFOUND, "GET %s: no %s", path, file);
		goto fail;
	}
	if (rv != FALCON_OK)
		goto fail;
	rv = falcon_rf_parse(buf, len, file, out);
	if (rv != FALCON_OK)
		goto fail;
	falcon_rf_body_etag(*out, etag, etag_len);
fail:
	free(buf);
	return rv;
}
