/*
 * fuzz_redfish.c - libFuzzer target over the Redfish response handling of
 * the chassis client: body parsing, the error mapping, and both backends'
 * inventory, attach, detach (one device, and a set of up to three:
 * falcon_chassis_attach_set) and read-back over a fuzzed service.
 *
 * The input is a small service: records "PATH\nBODY" separated by NUL
 * bytes.  GETs of a PATH answer its BODY (through falcon_rf_parse(), as
 * over HTTP), other paths 404; changes are accepted.  The whole input is
 * also tried as one body and as an error body.  Seeds are built from DMTF's
 * mockups by `make fuzz-redfish` (nothing is committed).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "chassis/chassis.h"
#include "chassis/chassis_backend.h"
#include "chassis/redfish.h"

#define MAX_RECORDS 256

struct svc {
	size_t n;
	const char *path[MAX_RECORDS];
	const char *body[MAX_RECORDS];
	size_t len[MAX_RECORDS];
};

static falcon_err_t svc_get(void *ctx, const char *path, struct json_object **out,
			    char *etag, size_t etag_len)
{
	const struct svc *s = ctx;
	size_t i;

	*out = NULL;
	if (etag != NULL && etag_len > 0)
		etag[0] = '\0';
	for (i = 0; i < s->n; i++)
		if (falcon_rf_path_eq(s->path[i], path)) {
			falcon_err_t rv = falcon_rf_parse(s->body[i], s->len[i], path, out);
			const char *e;

			if (rv == FALCON_OK && etag != NULL &&
			    (e = falcon_rf_str(*out, "@odata.etag")) != NULL &&
			    strlen(e) < etag_len)
				strcpy(etag, e);
			return rv;
		}
	return falcon_rf_map_status(404, NULL, 0, "GET", path);
}

static falcon_err_t svc_send(void *ctx, const char *method, const char *path,
			     struct json_object *body, const char *if_match)
{
	(void)ctx;
	(void)body;
	(void)if_match;
	/* every other change is refused, to walk the rollback paths too */
	static unsigned n;

	return (n++ & 1) ? FALCON_OK : falcon_rf_map_status(503, NULL, 0, method, path);
}

static void run(falcon_backend_t b, struct svc *s)
{
	struct falcon_chassis *ch;
	struct falcon_inventory inv;
	const char *set[3];
	size_t i;

	if (falcon_chassis_open_io(b, svc_get, svc_send, s, NULL, 300, &ch) != FALCON_OK)
		return;
	if (falcon_chassis_inventory(ch, &inv) == FALCON_OK) {
		for (i = 0; i < inv.n; i++) {
			struct json_object *o = falcon_device_to_json(&inv.devs[i]);

			json_object_put(o);
		}
		if (inv.n > 0 && inv.devs[0].owner[0] == '\0') {
			falcon_chassis_attach(ch, "H1", inv.devs[0].id);
			falcon_chassis_verify(ch, "H1", inv.devs[0].id, true);
		}
		if (inv.n > 0)
			falcon_chassis_detach(ch, "H1", inv.devs[0].id);
		/* the first (up to) three devices as one set, free or not */
		for (i = 0; i < inv.n && i < 3; i++)
			set[i] = inv.devs[i].id;
		if (i > 0) {
			falcon_chassis_attach_set(ch, "H1", set, i);
			falcon_chassis_detach_set(ch, "H1", set, i);
		}
		falcon_inventory_free(&inv);
	}
	falcon_chassis_attach(ch, "1", "T3");
	falcon_chassis_detach(ch, "H1", "drawer1_slot1");
	falcon_chassis_close(ch);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	struct json_object *obj;
	struct svc s = { 0 };
	char msg[256];
	size_t off = 0;

	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';

	/* the whole input as one body and as an error body */
	if (falcon_rf_parse(buf, size, "fuzz", &obj) == FALCON_OK) {
		falcon_rf_error_message(obj, msg, sizeof(msg));
		json_object_put(obj);
	}
	falcon_rf_map_status(size > 0 ? 400 + data[0] % 120 : 500, buf, size, "GET", "fuzz");

	/* records PATH\nBODY\0... */
	while (off < size && s.n < MAX_RECORDS) {
		char *rec = buf + off, *nl;
		size_t rlen = strlen(rec);

		nl = strchr(rec, '\n');
		if (nl != NULL) {
			*nl = '\0';
			s.path[s.n] = rec;
			s.body[s.n] = nl + 1;
			s.len[s.n] = rlen - (size_t)(nl + 1 - rec);
			s.n++;
		}
		off += rlen + 1;
	}
	run(FALCON_BACKEND_FABRIC, &s);
	run(FALCON_BACKEND_COMPOSITION, &s);
	free(buf);
	return 0;
}
