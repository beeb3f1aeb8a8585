/*
 * fuzz_request.c - libFuzzer target over falcond's request parsing: the
 * first byte picks the parser (compose, decompose, quarantine,
 * unquarantine, lease, Authorization header), the rest is the body.
 * Bad input must give an error, never a crash, leak or hang.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/auth.h"
#include "api/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *body = (const char *)data + 1;
	size_t len = size ? size - 1 : 0;

	if (size == 0)
		return 0;
	switch (data[0] % 6) {
	case 0: {
		struct falcon_compose_req r;

		if (falcon_proto_parse_compose(body, len, &r) == FALCON_OK) {
			json_object *o = falcon_proto_compose_json(&r);
			const char *s = json_object_to_json_string(o);
			struct falcon_compose_req r2;

			/* what we accept we can write back and read again */
			if (falcon_proto_parse_compose(s, strlen(s), &r2) != FALCON_OK ||
			    memcmp(&r, &r2, sizeof(r)) != 0)
				abort();
			json_object_put(o);
		}
		break;
	}
	case 1: {
		struct falcon_decompose_req r;

		falcon_proto_parse_decompose(body, len, &r);
		break;
	}
	case 2:
	case 3: {
		struct falcon_device_req r;

		falcon_proto_parse_device(body, len, data[0] % 6 == 2, &r);
		break;
	}
	case 4: {
		json_tokener *tok = json_tokener_new_ex(16);
		json_object *o = tok ? json_tokener_parse_ex(tok, body, (int)len) : NULL;
		struct falcon_lease l;

		if (o != NULL)
			falcon_proto_lease_from_json(o, &l);
		json_object_put(o);
		if (tok)
			json_tokener_free(tok);
		break;
	}
	default: {
		char *s = malloc(len + 1);

		if (s == NULL)
			return 0;
		memcpy(s, body, len);
		s[len] = '\0';
		falcon_auth_header_cred(s);
		free(s);
		break;
	}
	}
	return 0;
}
