/*
 * fuzz_conf.c - libFuzzer target over the falcon.conf(5) parser.
 *
 * Feeds arbitrary bytes to falcon_conf_parse() and checks that the result
 * is either a complete configuration or FALCON_ERR_CONFIG with a
 * "NAME:LINE: " message.  Run with `make fuzz-conf` (FUZZ_SECONDS=600).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct falcon_conf *c = NULL;
	char *text = malloc(size + 1);
	falcon_err_t rv;

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	/* "fuzz" has no directory: Includes are relative to the cwd */
	rv = falcon_conf_parse("fuzz", text, &c);
	if (rv == FALCON_OK) {
		if (c == NULL || c->state_dir == NULL || c->falcond_url == NULL)
			abort();
		falcon_conf_free(c);
	} else if (c != NULL || (rv == FALCON_ERR_CONFIG &&
				 strncmp(falcon_errmsg(), "fuzz:", 5) != 0 &&
				 strstr(falcon_errmsg(), "Include") == NULL &&
				 strstr(falcon_errmsg(), ".conf") == NULL)) {
		abort();
	}
	free(text);
	return 0;
}
