/*
 * desc.c - the chassis device descriptions falcond keeps between
 * inventories and across restarts (desc.h).
 *
 * Why: a Falcon 4016 inventory over Redfish is ~50 GETs (each Endpoint and
 * the PCIeDevice, PCIeFunctions and Processor/Drive it links to), of which
 * only the six of the zones change when falcond composes.  With a chassis
 * management controller answering in seconds, reading everything made
 * every compose and every reconcile wait minutes, and a restarted falcond
 * answered 503 for four minutes while its start-up reconcile walked the
 * tree (measured under the soak's 0-5 s per request: 238-264 s).  What a
 * device says of itself is therefore kept (lib/chassis) for
 * InventoryRefresh seconds and written to StateDir/chassis-<name>.json,
 * which a restarted falcond (or the standby taking over) reads back.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "desc.h"
#include "core/log.h"
#include "core/util.h"

#define DESC_FILE_MAX (4 << 20) /* bytes; ~600 per device */

/* The file of chassis ch (malloc'd, NULL when out of memory). */
static char *desc_path(const struct falcond_state *st, const struct falcond_chassis *ch)
{
	char *p;

	if (asprintf(&p, "%s/chassis-%s.json", st->conf->state_dir, ch->cc->name) < 0)
		return NULL;
	return p;
}

void falcond_desc_open(struct falcond_state *st, struct falcond_chassis *ch)
{
	struct json_tokener *tok = NULL;
	struct json_object *o = NULL;
	char *path = desc_path(st, ch), *buf = NULL;
	size_t len = 0;
	falcon_err_t rv;

	falcon_chassis_keep_descriptions(ch->reader, st->conf->inventory_refresh);
	if (st->conf->inventory_refresh <= 0 || path == NULL)
		goto out;
	rv = falcon_read_file(path, DESC_FILE_MAX, &buf, &len);
	if (rv == FALCON_ERR_NOTFOUND) {
		falcon_err_clear();
		goto out;
	}
	if (rv != FALCON_OK) {
		falcon_warn("%s; reading every device of chassis %s", falcon_errmsg(),
			    ch->cc->name);
		goto out;
	}
	tok = json_tokener_new();
	o = tok ? json_tokener_parse_ex(tok, buf, (int)len) : NULL;
	if (o == NULL || json_tokener_get_error(tok) != json_tokener_success) {
		falcon_warn("%s: not JSON (%s at byte %zu); reading every device of chassis %s",
			    path, tok ? json_tokener_error_desc(json_tokener_get_error(tok)) :
			    "no memory", tok ? json_tokener_get_parse_end(tok) : 0, ch->cc->name);
		goto out;
	}
	if (falcon_chassis_descriptions_load(ch->reader, o, path) != FALCON_OK)
		falcon_warn("%s; reading every device of chassis %s", falcon_errmsg(),
			    ch->cc->name);
	else {
		struct falcon_inventory inv;

		falcon_info("chassis %s: %zu device description(s) from %s",
			    ch->cc->name, json_object_array_length(
				    json_object_object_get(o, "descriptions")), path);
		if (falcon_chassis_descriptions_inventory(ch->reader, &inv) == FALCON_OK) {
			pthread_mutex_lock(&st->lock);
			if (!ch->have_last) {
				falcon_inventory_free(&ch->described);
				ch->described = inv;
				ch->have_described = inv.n > 0;
				inv.devs = NULL;
			}
			pthread_mutex_unlock(&st->lock);
			falcon_inventory_free(&inv);
		}
	}
out:
	json_object_put(o);
	if (tok != NULL)
		json_tokener_free(tok);
	free(buf);
	free(path);
}

void falcond_desc_forget(struct falcond_chassis *ch, const char *dev_id)
{
	size_t i;

	if (dev_id == NULL || ch->nforget == sizeof(ch->forget) / sizeof(ch->forget[0])) {
		ch->forget_all = true;
		return;
	}
	for (i = 0; i < ch->nforget; i++)
		if (!strcmp(ch->forget[i], dev_id))
			return;
	falcon_strlcpy(ch->forget[ch->nforget++], dev_id, sizeof(ch->forget[0]));
}

void falcond_desc_before_read(struct falcond_state *st, struct falcond_chassis *ch)
{
	size_t i;

	if (ch->reader == NULL)
		return;
	pthread_mutex_lock(&st->lock);
	if (ch->down)
		ch->forget_all = true;
	if (ch->forget_all)
		falcon_chassis_forget(ch->reader, NULL);
	for (i = 0; !ch->forget_all && i < ch->nforget; i++)
		falcon_chassis_forget(ch->reader, ch->forget[i]);
	ch->forget_all = false;
	ch->nforget = 0;
	pthread_mutex_unlock(&st->lock);
}

void falcond_desc_after_read(struct falcond_state *st, struct falcond_chassis *ch)
{
	struct json_object *o;
	char *path;
	const char *s;

	/* every inventory ends here: build the JSON only when it changed */
	if (ch->reader == NULL || st->conf->inventory_refresh <= 0 ||
	    !falcon_chassis_descriptions_changed(ch->reader))
		return;
	o = falcon_chassis_descriptions_save(ch->reader, NULL);
	if (o == NULL) {
		falcon_warn("chassis %s: descriptions not written: out of memory", ch->cc->name);
		return;
	}
	path = desc_path(st, ch);
	s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	if (path == NULL || s == NULL)
		falcon_warn("chassis %s: descriptions not written: out of memory", ch->cc->name);
	else if (falcon_write_file_atomic(path, s, strlen(s), 0644) != FALCON_OK)
		falcon_warn("%s; read again after a restart", falcon_errmsg());
	free(path);
	json_object_put(o);
}
