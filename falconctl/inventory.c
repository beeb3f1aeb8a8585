/*
 * inventory.c - `falconctl inventory`: the devices of a chassis
 * and their owners, asked of the chassis directly (no falcond), as a table
 * or as JSON.  The chassis is named by --url (no falcon.conf needed) or by
 * its ChassisName in falcon.conf (--chassis; every chassis when omitted).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "inventory.h"
#include "exitcode.h"
#include "chassis/chassis.h"
#include "core/conf.h"
#include "core/log.h"
#include "core/util.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: falconctl inventory --url URL [--backend auto|redfish-fabric|redfish-composition]\n"
		"                 [--credentials FILE] [--cacert FILE] [--insecure] [--basic-auth]\n"
		"                 [--fabric PATH] [--timeout SECONDS] [--json]\n"
		"       falconctl inventory [--config FILE] [--chassis NAME] [--json]\n"
		"\n"
		"  --url URL            the chassis' Redfish service (http(s)://host[:port])\n"
		"  --backend B          auto (default: read the service root and say which),\n"
		"                       redfish-fabric (zones) or redfish-composition\n"
		"  --credentials FILE   \"user:password\", mode 0600 (default: anonymous)\n"
		"  --cacert FILE        CA certificate(s) to verify the chassis with\n"
		"  --insecure           do not verify the TLS certificate (warned)\n"
		"  --basic-auth         HTTP basic auth instead of a Redfish session\n"
		"  --fabric PATH        redfish-fabric: the fabric, e.g. /redfish/v1/Fabrics/PCIe\n"
		"                       (default: discovered from /redfish/v1/Fabrics)\n"
		"  --timeout SECONDS    total time per request (default 10)\n"
		"  --config FILE        falcon.conf (default $FALCON_CONF, else the installed one)\n"
		"  --chassis NAME       the ChassisName= to ask (default: every chassis)\n"
		"  --json               JSON instead of a table\n");
}

static int exit_code(falcon_err_t rv)
{
	switch (rv) {
	case FALCON_OK: return FALCONCTL_EXIT_OK;
	case FALCON_ERR_TIMEOUT:
	case FALCON_ERR_TRANSPORT: return FALCONCTL_EXIT_UNREACHABLE;
	case FALCON_ERR_AUTH:
	case FALCON_ERR_PERM: return FALCONCTL_EXIT_PERM;
	case FALCON_ERR_INVAL:
	case FALCON_ERR_CONFIG: return FALCONCTL_EXIT_USAGE;
	default: return FALCONCTL_EXIT_FAIL;
	}
}

static const char *dash(const char *s)
{
	return s != NULL && s[0] != '\0' ? s : "-";
}

#define NCOLS 11

/* The table: columns as wide as their widest cell, "-" for what is not given. */
static void print_table(const struct falcon_inventory *inv)
{
	static const char *const head[NCOLS] = {
		"CHASSIS", "ID", "TYPE", "DRAWER", "SLOT", "VEN:DEV", "OWNER", "STATE",
		"HEALTH", "MODEL", "@ODATA.ID",
	};
	size_t w[NCOLS], i, k;
	int pass;

	for (k = 0; k < NCOLS; k++)
		w[k] = strlen(head[k]);
	for (pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			for (k = 0; k < NCOLS; k++)
				printf("%-*s%s", k + 1 < NCOLS ? (int)w[k] : 0, head[k],
				       k + 1 < NCOLS ? "  " : "\n");
		}
		for (i = 0; i < inv->n; i++) {
			const struct falcon_device *d = &inv->devs[i];
			char ids[20], drawer[12], slot[12];
			const char *cell[NCOLS];

			if (d->vendor_id[0] != '\0' || d->device_id[0] != '\0')
				snprintf(ids, sizeof(ids), "%s:%s", dash(d->vendor_id),
					 dash(d->device_id));
			else
				snprintf(ids, sizeof(ids), "-");
			snprintf(drawer, sizeof(drawer), "%d", d->drawer);
			snprintf(slot, sizeof(slot), "%d", d->slot);
			cell[0] = dash(d->chassis);
			cell[1] = d->id;
			cell[2] = falcon_dev_type_str(d->type);
			cell[3] = d->drawer ? drawer : "-";
			cell[4] = d->slot ? slot : "-";
			cell[5] = ids;
			cell[6] = dash(d->owner);
			cell[7] = dash(d->composition[0] ? d->composition : d->state);
			cell[8] = dash(d->health);
			cell[9] = dash(d->model);
			cell[10] = d->odata_id;
			for (k = 0; k < NCOLS; k++) {
				if (pass == 0 && strlen(cell[k]) > w[k])
					w[k] = strlen(cell[k]);
				else if (pass == 1)
					printf("%-*s%s", k + 1 < NCOLS ? (int)w[k] : 0, cell[k],
					       k + 1 < NCOLS ? "  " : "\n");
			}
		}
	}
}

/* One chassis' entry of the JSON output; NULL on allocation failure. */
static struct json_object *chassis_json(const char *name, const char *url,
					const char *backend,
					const struct falcon_inventory *inv)
{
	struct json_object *o = json_object_new_object();
	struct json_object *arr = json_object_new_array();
	size_t i;

	if (o == NULL || arr == NULL)
		goto fail;
	for (i = 0; i < inv->n; i++) {
		struct json_object *d = falcon_device_to_json(&inv->devs[i]);

		if (d == NULL || json_object_array_add(arr, d) != 0) {
			json_object_put(d);
			goto fail;
		}
	}
	if (json_object_object_add(o, "name", json_object_new_string(name)) != 0 ||
	    json_object_object_add(o, "url", json_object_new_string(url)) != 0 ||
	    json_object_object_add(o, "backend", json_object_new_string(backend)) != 0 ||
	    json_object_object_add(o, "devices", arr) != 0)
		goto fail;
	return o;
fail:
	json_object_put(arr);
	json_object_put(o);
	return NULL;
}

/* Inventory one chassis; add its devices to table or to out (JSON). */
static falcon_err_t one(struct falcon_chassis *ch, const char *name, const char *url,
			struct falcon_inventory *table, struct json_object *out)
{
	struct falcon_inventory inv = { 0 };
	struct json_object *c;
	falcon_err_t rv;

	rv = falcon_chassis_inventory(ch, &inv);
	if (rv != FALCON_OK) {
		falcon_error("inventory of chassis %s: %s", name, falcon_errmsg());
		goto out;
	}
	if (out == NULL) {
		size_t i;

		for (i = 0; i < inv.n && rv == FALCON_OK; i++)
			rv = falcon_inventory_add(table, &inv.devs[i]);
		if (rv != FALCON_OK)
			falcon_error("%s", falcon_errmsg());
		goto out;
	}
	c = chassis_json(name, url, falcon_chassis_backend_name(ch), &inv);
	if (c == NULL || json_object_array_add(out, c) != 0) {
		json_object_put(c);
		rv = falcon_err_set(FALCON_ERR_NOMEM, "JSON output");
		falcon_error("%s", falcon_errmsg());
	}
out:
	falcon_inventory_free(&inv);
	return rv;
}

int falconctl_inventory(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "url", required_argument, NULL, 'u' },
		{ "backend", required_argument, NULL, 'b' },
		{ "credentials", required_argument, NULL, 'C' },
		{ "cacert", required_argument, NULL, 'A' },
		{ "insecure", no_argument, NULL, 'k' },
		{ "basic-auth", no_argument, NULL, 'B' },
		{ "fabric", required_argument, NULL, 'f' },
		{ "timeout", required_argument, NULL, 't' },
		{ "config", required_argument, NULL, 'c' },
		{ "chassis", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct falcon_chassis_opts o = { .backend = FALCON_BACKEND_AUTO };
	const char *config = NULL, *only = NULL;
	bool json = false, url_opts = false;
	struct falcon_conf *conf = NULL;
	struct falcon_chassis *ch = NULL;
	struct json_object *top = NULL, *arr = NULL;
	struct falcon_inventory table = { 0 };
	long v;
	size_t i, asked = 0;
	int c, rc = FALCONCTL_EXIT_USAGE;
	falcon_err_t rv = FALCON_OK, first = FALCON_OK;

	optind = 0; /* glibc: full reinitialisation */
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'u': o.url = optarg; break;
		case 'b':
			if (falcon_backend_from_str(optarg, &o.backend) != FALCON_OK) {
				falcon_error("inventory: --backend: %s", falcon_errmsg());
				goto out;
			}
			url_opts = true;
			break;
		case 'C': o.credentials_file = optarg; url_opts = true; break;
		case 'A': o.ca_file = optarg; url_opts = true; break;
		case 'k': o.insecure = true; url_opts = true; break;
		case 'B': o.basic_auth = true; url_opts = true; break;
		case 'f': o.fabric = optarg; url_opts = true; break;
		case 't':
			if (falcon_strtol(optarg, 10, 1, 600, &v) != FALCON_OK) {
				falcon_error("inventory: --timeout: %s", falcon_errmsg());
				goto out;
			}
			o.timeout_s = (int)v;
			url_opts = true;
			break;
		case 'c': config = optarg; break;
		case 'n': only = optarg; break;
		case 'j': json = true; break;
		case 'h': usage(stdout); rc = FALCONCTL_EXIT_OK; goto out;
		default: usage(stderr); goto out;
		}
	}
	if (optind < argc) {
		falcon_error("inventory: unexpected argument '%s'", argv[optind]);
		usage(stderr);
		goto out;
	}
	if (o.url != NULL && (config != NULL || only != NULL)) {
		falcon_error("inventory: --url and --config/--chassis exclude each other");
		goto out;
	}
	if (o.url == NULL && url_opts) {
		falcon_error("inventory: --backend, --credentials, --cacert, --insecure, "
			     "--basic-auth, --fabric and --timeout go with --url");
		goto out;
	}
	if (json) {
		top = json_object_new_object();
		arr = json_object_new_array();
		if (top == NULL || arr == NULL || json_object_object_add(top, "chassis", arr) != 0) {
			json_object_put(arr);
			falcon_error("inventory: out of memory");
			rc = FALCONCTL_EXIT_FAIL;
			goto out;
		}
	}

	if (o.url != NULL) {
		o.name = NULL;
		rv = falcon_chassis_open_opts(&o, &ch);
		if (rv != FALCON_OK) {
			falcon_error("inventory: %s", falcon_errmsg());
			rc = exit_code(rv);
			goto out;
		}
		rv = one(ch, o.url, o.url, &table, arr);
		rc = exit_code(rv);
		goto print;
	}

	rv = falcon_conf_load(falcon_conf_path(config), &conf);
	if (rv != FALCON_OK) {
		falcon_error("inventory: %s", falcon_errmsg());
		rc = rv == FALCON_ERR_CONFIG ? FALCONCTL_EXIT_USAGE : FALCONCTL_EXIT_FAIL;
		goto out;
	}
	if (only != NULL && falcon_conf_chassis(conf, only) == NULL) {
		falcon_error("inventory: %s: no ChassisName=%s", conf->path, only);
		goto out;
	}
	if (conf->nchassis == 0) {
		falcon_error("inventory: %s defines no ChassisName", conf->path);
		goto out;
	}
	for (i = 0; i < conf->nchassis; i++) {
		const struct falcon_chassis_conf *cc = &conf->chassis[i];

		if (only != NULL && strcmp(cc->name, only) != 0)
			continue;
		asked++;
		rv = falcon_chassis_open(cc, &ch);
		if (rv == FALCON_OK)
			rv = one(ch, cc->name, cc->url, &table, arr);
		else
			falcon_error("inventory: chassis %s: %s", cc->name, falcon_errmsg());
		falcon_chassis_close(ch);
		ch = NULL;
		if (rv != FALCON_OK && first == FALCON_OK)
			first = rv; /* go on with the other chassis */
	}
	rc = exit_code(first);
	falcon_verbose("inventory: %zu chassis asked", asked);
print:
	if (top == NULL && (rc == FALCONCTL_EXIT_OK || table.n > 0))
		print_table(&table);
	if (top != NULL && (rc == FALCONCTL_EXIT_OK || json_object_array_length(arr) > 0))
		printf("%s\n", json_object_to_json_string_ext(top, JSON_C_TO_STRING_PRETTY |
							      JSON_C_TO_STRING_SPACED |
							      JSON_C_TO_STRING_NOSLASHESCAPE));
out:
	falcon_inventory_free(&table);
	json_object_put(top);
	falcon_chassis_close(ch);
	falcon_conf_free(conf);
	return rc;
}
