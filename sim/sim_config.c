/*
 * sim_config.c - falcon-sim's JSON configuration (json-c): parsing with
 * strict field checks, the built-in default (the paper's testbed), and the
 * fault description shared by the config and POST /admin/faults.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "pci/topo.h"
#include "core/util.h"

#define CFG_MAX_BYTES (1024 * 1024)

/* ---- small helpers ---- */

const char *sim_mode_str(sim_mode_t m)
{
	return m == SIM_MODE_ADVANCED ? "advanced" : "standard";
}

bool sim_parse_dev_id(const char *id, int *d, int *s)
{
	int dd, ss;

	if (falcon_slot_id_parse(id, &dd, &ss) != FALCON_OK) {
		falcon_err_clear();
		return false;
	}
	if (dd > SIM_DRAWERS || ss > SIM_SLOTS)
		return false;
	*d = dd;
	*s = ss;
	return true;
}

bool sim_parse_hostport(const char *id, int *a, int *b)
{
	long x, y;

	if (id == NULL || strncmp(id, "hostport", 8) != 0 || strlen(id) != 12 ||
	    strncmp(id + 9, "_H", 2) != 0 || falcon_strtol_n(id + 8, 1, 10, 0, 9, &x) != FALCON_OK ||
	    falcon_strtol_n(id + 11, 1, 10, 0, 9, &y) != FALCON_OK) {
		falcon_err_clear();
		return false;
	}
	*a = (int)x;
	*b = (int)y;
	return true;
}

int sim_parse_port(const char *id)
{
	if (id == NULL || id[0] != 'H' || id[1] < '1' || id[1] > '0' + SIM_PORTS ||
	    id[2] != '\0')
		return -1;
	return id[1] - '1';
}

/* Unknown keys are errors: every object lists what it accepts. */
static falcon_err_t check_keys(struct json_object *obj, const char *field,
			       const char *const *allowed)
{
	size_t i;

	json_object_object_foreach(obj, key, val) {
		(void)val;
		for (i = 0; allowed[i] != NULL; i++)
			if (strcmp(key, allowed[i]) == 0)
				break;
		if (allowed[i] == NULL)
			return falcon_err_set(FALCON_ERR_INVAL, "%s.%s: unknown field",
					      field, key);
	}
	return FALCON_OK;
}

static falcon_err_t want_type(struct json_object *v, json_type t, const char *field,
			      const char *what)
{
	if (v == NULL || !json_object_is_type(v, t))
		return falcon_err_set(FALCON_ERR_INVAL, "%s: expected %s", field, what);
	return FALCON_OK;
}

static falcon_err_t get_str(struct json_object *v, const char *field, char *buf,
			    size_t n)
{
	falcon_err_t rv = want_type(v, json_type_string, field, "a string");

	if (rv != FALCON_OK)
		return rv;
	if (falcon_strlcpy(buf, json_object_get_string(v), n) >= n)
		return falcon_err_set(FALCON_ERR_INVAL, "%s: expected at most %zu characters",
				      field, n - 1);
	return FALCON_OK;
}

/* An integer: a JSON integer, or a string parsed by falcon_strtol (base 0). */
static falcon_err_t get_long(struct json_object *v, const char *field, long min,
			     long max, long *out)
{
	long x;

	if (v != NULL && json_object_is_type(v, json_type_int)) {
		int64_t i = json_object_get_int64(v);

		if (i < min || i > max)
			return falcon_err_set(FALCON_ERR_INVAL, "%s: expected an integer in [%ld, %ld]",
					      field, min, max);
		*out = (long)i;
		return FALCON_OK;
	}
	if (v != NULL && json_object_is_type(v, json_type_string)) {
		if (falcon_strtol(json_object_get_string(v), 0, min, max, &x) != FALCON_OK)
			return falcon_err_set(FALCON_ERR_INVAL, "%s: expected an integer in [%ld, %ld], got '%s'",
					      field, min, max, json_object_get_string(v));
		*out = x;
		return FALCON_OK;
	}
	return falcon_err_set(FALCON_ERR_INVAL, "%s: expected an integer in [%ld, %ld]",
			      field, min, max);
}

/* A PCI id: a string of hex digits ("10de", "0x10de") in [0, max]. */
static falcon_err_t get_hex(struct json_object *v, const char *field, long max,
			    unsigned *out)
{
	long x;

	if (v == NULL || !json_object_is_type(v, json_type_string) ||
	    falcon_strtol(json_object_get_string(v), 16, 0, max, &x) != FALCON_OK)
		return falcon_err_set(FALCON_ERR_INVAL, "%s: expected a hex id in [0, 0x%lx] like \"10de\"",
				      field, max);
	*out = (unsigned)x;
	return FALCON_OK;
}

/* "0000:3b:00.0" or "3b:00.0" (domain 0), normalised into buf. */
static falcon_err_t get_bdf(struct json_object *v, const char *field, char *buf,
			    unsigned *domain, unsigned *bus)
{
	char norm[FALCON_BDF_LEN];
	struct falcon_bdf b;

	/* lib/core's BDF reader: DDDD:BB:DD.F or BB:DD.F, hex */
	if (v == NULL || !json_object_is_type(v, json_type_string) ||
	    falcon_bdf_parse(json_object_get_string(v), &b) != FALCON_OK ||
	    falcon_bdf_normalise(json_object_get_string(v), norm) != FALCON_OK)
		return falcon_err_set(FALCON_ERR_INVAL,
				      "%s: expected a PCI address like \"0000:3b:00.0\"", field);
	falcon_strlcpy(buf, norm, SIM_BDF_LEN);
	if (domain != NULL)
		*domain = b.domain;
	if (bus != NULL)
		*bus = b.bus;
	return FALCON_OK;
}

static falcon_err_t get_link(struct json_object *v, const char *field,
			     struct sim_link *out)
{
	static const char *const keys[] = { "speed_gts", "width", NULL };
	static const double speeds[] = { 2.5, 5.0, 8.0, 16.0, 32.0 };
	struct json_object *x;
	char f[256];
	falcon_err_t rv;
	double sp = 0;
	long w = 0;
	size_t i;

	if ((rv = want_type(v, json_type_object, field, "an object")) != FALCON_OK ||
	    (rv = check_keys(v, field, keys)) != FALCON_OK)
		return rv;
	snprintf(f, sizeof(f), "%s.speed_gts", field);
	if (!json_object_object_get_ex(v, "speed_gts", &x) ||
	    !(json_object_is_type(x, json_type_double) || json_object_is_type(x, json_type_int)))
		return falcon_err_set(FALCON_ERR_INVAL, "%s: expected 2.5, 5, 8, 16 or 32", f);
	sp = json_object_get_double(x);
	for (i = 0; i < ARRAY_SIZE(speeds); i++)
		if (sp == speeds[i])
			break;
	if (i == ARRAY_SIZE(speeds))
		return falcon_err_set(FALCON_ERR_INVAL, "%s: expected 2.5, 5, 8, 16 or 32", f);
	snprintf(f, sizeof(f), "%s.width", field);
	if (!json_object_object_get_ex(v, "width", &x) ||
	    get_long(x, f, 1, 32, &w) != FALCON_OK ||
	    (w != 1 && w != 2 && w != 4 && w != 8 && w != 12 && w != 16 && w != 32))
		return falcon_err_set(FALCON_ERR_INVAL, "%s: expected 1, 2, 4, 8, 12, 16 or 32", f);
	out->speed_gts = sp;
	out->width = (int)w;
	return FALCON_OK;
}

/* ---- devices ---- */

static void device_defaults(struct sim_device *dev)
{
	switch (dev->type) {
	case FALCON_DEV_GPU:
		dev->class_code = 0x030200; /* display: 3D controller (NVIDIA datacenter GPUs) */
		dev->max_link = (struct sim_link){ 16.0, 16 };
		break;
	case FALCON_DEV_NVME:
		dev->class_code = 0x010802; /* mass storage: NVM Express */
		dev->max_link = (struct sim_link){ 16.0, 4 };
		break;
	case FALCON_DEV_NIC:
		dev->class_code = 0x020000; /* network: Ethernet */
		dev->max_link = (struct sim_link){ 16.0, 16 };
		break;
	default:
		break;
	}
}

static const char *vendor_name(unsigned vendor)
{
	switch (vendor) {
	case 0x10de: return "NVIDIA Corporation";
	case 0x8086: return "Intel Corporation";
	case 0x15b3: return "Mellanox Technologies";
	case 0x144d: return "Samsung Electronics Co Ltd";
	case 0x1000: return "Broadcom / LSI";
	default: return "";
	}
}

/*
 * parse_dev_type - a device's "type": exactly "GPU", "NVMe" or "NIC"
 * (device.h's words, case-sensitive as falcon-sim has always read them;
 * "other" is no device falcon-sim emulates).
 */
static falcon_err_t parse_dev_type(struct json_object *v, const char *f, falcon_dev_type_t *out)
{
	static const falcon_dev_type_t kinds[] = { FALCON_DEV_GPU, FALCON_DEV_NVME, FALCON_DEV_NIC };
	char type[16];
	falcon_err_t rv;
	size_t i;

	if ((rv = get_str(v, f, type, sizeof(type))) != FALCON_OK)
		return rv;
	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		if (strcmp(type, falcon_dev_type_str(kinds[i])) == 0) {
			*out = kinds[i];
			return FALCON_OK;
		}
	return falcon_err_set(FALCON_ERR_INVAL, "%s: expected \"GPU\", \"NVMe\" or \"NIC\"", f);
}

static falcon_err_t parse_device(struct json_object *o, const char *field, bool local,
				 struct sim_device *dev)
{
	static const char *const slot_keys[] = {
		"slot", "type", "vendor_id", "device_id", "subsystem_vendor_id",
		"subsystem_device_id", "class", "revision", "model", "serial",
		"manufacturer", "link", "max_link", NULL };
	static const char *const local_keys[] = {
		"bdf", "type", "vendor_id", "device_id", "subsystem_vendor_id",
		"subsystem_device_id", "class", "revision", "model", "serial",
		"manufacturer", "link", "max_link", NULL };
	struct json_object *v;
	char f[256];
	falcon_err_t rv;
	bool have_link = false, have_max = false, have_class = false;

	memset(dev, 0, sizeof(*dev));
	if ((rv = want_type(o, json_type_object, field, "an object")) != FALCON_OK ||
	    (rv = check_keys(o, field, local ? local_keys : slot_keys)) != FALCON_OK)
		return rv;
	snprintf(f, sizeof(f), "%s.type", field);
	json_object_object_get_ex(o, "type", &v);
	if ((rv = parse_dev_type(v, f, &dev->type)) != FALCON_OK)
		return rv;
	dev->populated = true;
	device_defaults(dev);

	snprintf(f, sizeof(f), "%s.vendor_id", field);
	json_object_object_get_ex(o, "vendor_id", &v);
	if ((rv = get_hex(v, f, 0xfffe, &dev->vendor_id)) != FALCON_OK)
		return rv;
	snprintf(f, sizeof(f), "%s.device_id", field);
	json_object_object_get_ex(o, "device_id", &v);
	if ((rv = get_hex(v, f, 0xffff, &dev->device_id)) != FALCON_OK)
		return rv;
	dev->subsys_vendor_id = dev->vendor_id;
	if (json_object_object_get_ex(o, "subsystem_vendor_id", &v)) {
		snprintf(f, sizeof(f), "%s.subsystem_vendor_id", field);
		if ((rv = get_hex(v, f, 0xffff, &dev->subsys_vendor_id)) != FALCON_OK)
			return rv;
	}
	if (json_object_object_get_ex(o, "subsystem_device_id", &v)) {
		snprintf(f, sizeof(f), "%s.subsystem_device_id", field);
		if ((rv = get_hex(v, f, 0xffff, &dev->subsys_device_id)) != FALCON_OK)
			return rv;
	}
	if (json_object_object_get_ex(o, "class", &v)) {
		snprintf(f, sizeof(f), "%s.class", field);
		if ((rv = get_hex(v, f, 0xffffff, &dev->class_code)) != FALCON_OK)
			return rv;
		have_class = true;
	}
	(void)have_class;
	if (json_object_object_get_ex(o, "revision", &v)) {
		snprintf(f, sizeof(f), "%s.revision", field);
		if ((rv = get_hex(v, f, 0xff, &dev->revision)) != FALCON_OK)
			return rv;
	}
	if (json_object_object_get_ex(o, "model", &v)) {
		snprintf(f, sizeof(f), "%s.model", field);
		if ((rv = get_str(v, f, dev->model, sizeof(dev->model))) != FALCON_OK)
			return rv;
	}
	if (json_object_object_get_ex(o, "serial", &v)) {
		snprintf(f, sizeof(f), "%s.serial", field);
		if ((rv = get_str(v, f, dev->serial, sizeof(dev->serial))) != FALCON_OK)
			return rv;
	}
	falcon_strlcpy(dev->manufacturer, vendor_name(dev->vendor_id), sizeof(dev->manufacturer));
	if (json_object_object_get_ex(o, "manufacturer", &v)) {
		snprintf(f, sizeof(f), "%s.manufacturer", field);
		if ((rv = get_str(v, f, dev->manufacturer, sizeof(dev->manufacturer))) != FALCON_OK)
			return rv;
	}
	if (json_object_object_get_ex(o, "max_link", &v)) {
		snprintf(f, sizeof(f), "%s.max_link", field);
		if ((rv = get_link(v, f, &dev->max_link)) != FALCON_OK)
			return rv;
		have_max = true;
	}
	if (json_object_object_get_ex(o, "link", &v)) {
		snprintf(f, sizeof(f), "%s.link", field);
		if ((rv = get_link(v, f, &dev->link)) != FALCON_OK)
			return rv;
		have_link = true;
	}
	if (!have_link)
		dev->link = dev->max_link;
	else if (!have_max)
		dev->max_link = dev->link;
	if (dev->link.speed_gts > dev->max_link.speed_gts || dev->link.width > dev->max_link.width)
		return falcon_err_set(FALCON_ERR_INVAL, "%s.link: trains above max_link (%g GT/s x%d)",
				      field, dev->max_link.speed_gts, dev->max_link.width);
	if (local) {
		snprintf(f, sizeof(f), "%s.bdf", field);
		json_object_object_get_ex(o, "bdf", &v);
		if ((rv = get_bdf(v, f, dev->bdf, NULL, NULL)) != FALCON_OK)
			return rv;
	}
	return FALCON_OK;
}

/* ---- top level ---- */

static falcon_err_t parse_port(struct json_object *o, const char *field,
			       struct sim_config *cfg, bool *seen)
{
	static const char *const keys[] = { "id", "host", "adapter", "bus_range", "link", NULL };
	struct json_object *v;
	struct sim_port *port;
	char f[256], id[8];
	falcon_err_t rv;
	long first, last;
	int p;

	if ((rv = want_type(o, json_type_object, field, "an object")) != FALCON_OK ||
	    (rv = check_keys(o, field, keys)) != FALCON_OK)
		return rv;
	snprintf(f, sizeof(f), "%s.id", field);
	json_object_object_get_ex(o, "id", &v);
	if ((rv = get_str(v, f, id, sizeof(id))) != FALCON_OK)
		return falcon_err_set(FALCON_ERR_INVAL, "%s: expected \"H1\"..\"H4\"", f);
	if ((p = sim_parse_port(id)) < 0)
		return falcon_err_set(FALCON_ERR_INVAL, "%s: expected \"H1\"..\"H4\", got \"%s\"", f, id);
	if (seen[p])
		return falcon_err_set(FALCON_ERR_INVAL, "%s: %s defined twice", f, id);
	seen[p] = true;
	port = &cfg->port[p];
	memset(port, 0, sizeof(*port));
	port->link = (struct sim_link){ 16.0, 16 };
	snprintf(f, sizeof(f), "%s.host", field);
	if (json_object_object_get_ex(o, "host", &v) && v != NULL) {
		if ((rv = get_str(v, f, port->host, sizeof(port->host))) != FALCON_OK)
			return rv;
		if (port->host[0] == '\0' || strchr(port->host, '/') != NULL ||
		    strcmp(port->host, ".") == 0 || strcmp(port->host, "..") == 0)
			return falcon_err_set(FALCON_ERR_INVAL, "%s: expected a host name (no '/')", f);
	}
	if (port->host[0] == '\0')
		return FALCON_OK; /* not cabled */
	snprintf(f, sizeof(f), "%s.adapter", field);
	json_object_object_get_ex(o, "adapter", &v);
	if ((rv = get_bdf(v, f, port->adapter, &port->domain, &port->bus)) != FALCON_OK)
		return rv;
	snprintf(f, sizeof(f), "%s.bus_range", field);
	if (!json_object_object_get_ex(o, "bus_range", &v) ||
	    !json_object_is_type(v, json_type_array) || json_object_array_length(v) != 2 ||
	    get_long(json_object_array_get_idx(v, 0), f, 1, 255, &first) != FALCON_OK ||
	    get_long(json_object_array_get_idx(v, 1), f, 1, 255, &last) != FALCON_OK)
		return falcon_err_set(FALCON_ERR_INVAL, "%s: expected [first, last] bus numbers", f);
	/* The adapter's switch: bus first holds the 8 downstream ports, each
	 * with its own secondary bus first+1..first+8. */
	if (first <= (long)port->bus || last < first + SIM_SLOTS)
		return falcon_err_set(FALCON_ERR_INVAL, "%s: expected [first, last] with adapter bus 0x%02x < first and last >= first + %d",
				      f, port->bus, SIM_SLOTS);
	port->bus_first = (unsigned)first;
	port->bus_last = (unsigned)last;
	if (json_object_object_get_ex(o, "link", &v)) {
		snprintf(f, sizeof(f), "%s.link", field);
		if ((rv = get_link(v, f, &port->link)) != FALCON_OK)
			return rv;
	}
	return FALCON_OK;
}

static falcon_err_t parse_drawer(struct json_object *o, const char *field,
				 struct sim_config *cfg, bool *seen)
{
	static const char *const keys[] = { "id", "host_ports", "slots", NULL };
	struct json_object *v, *e, *sv;
	struct sim_drawer *dr;
	bool slot_seen[SIM_SLOTS] = { false };
	char f[256], id[8];
	falcon_err_t rv;
	long d, s;
	size_t i, j;

	if ((rv = want_type(o, json_type_object, field, "an object")) != FALCON_OK ||
	    (rv = check_keys(o, field, keys)) != FALCON_OK)
		return rv;
	snprintf(f, sizeof(f), "%s.id", field);
	json_object_object_get_ex(o, "id", &v);
	if ((rv = get_long(v, f, 1, SIM_DRAWERS, &d)) != FALCON_OK)
		return rv;
	if (seen[d - 1])
		return falcon_err_set(FALCON_ERR_INVAL, "%s: drawer %ld defined twice", f, d);
	seen[d - 1] = true;
	dr = &cfg->drawer[d - 1];
	memset(dr, 0, sizeof(*dr));
	snprintf(f, sizeof(f), "%s.host_ports", field);
	if (json_object_object_get_ex(o, "host_ports", &v)) {
		if ((rv = want_type(v, json_type_array, f, "an array of \"H<n>\"")) != FALCON_OK)
			return rv;
		for (i = 0; i < json_object_array_length(v); i++) {
			int p;

			snprintf(f, sizeof(f), "%s.host_ports[%zu]", field, i);
			if ((rv = get_str(json_object_array_get_idx(v, i), f, id, sizeof(id))) != FALCON_OK ||
			    (p = sim_parse_port(id)) < 0)
				return falcon_err_set(FALCON_ERR_INVAL, "%s: expected \"H1\"..\"H4\"", f);
			for (j = 0; j < (size_t)dr->nports; j++)
				if (dr->ports[j] == p)
					return falcon_err_set(FALCON_ERR_INVAL, "%s: %s listed twice", f, id);
			dr->ports[dr->nports++] = p;
		}
	}
	snprintf(f, sizeof(f), "%s.slots", field);
	if (json_object_object_get_ex(o, "slots", &v)) {
		if ((rv = want_type(v, json_type_array, f, "an array of devices")) != FALCON_OK)
			return rv;
		for (i = 0; i < json_object_array_length(v); i++) {
			struct sim_device dev;

			e = json_object_array_get_idx(v, i);
			snprintf(f, sizeof(f), "%s.slots[%zu]", field, i);
			if ((rv = parse_device(e, f, false, &dev)) != FALCON_OK)
				return rv;
			snprintf(f, sizeof(f), "%s.slots[%zu].slot", field, i);
			json_object_object_get_ex(e, "slot", &sv);
			if ((rv = get_long(sv, f, 1, SIM_SLOTS, &s)) != FALCON_OK)
				return rv;
			if (slot_seen[s - 1])
				return falcon_err_set(FALCON_ERR_INVAL, "%s: slot %ld defined twice", f, s);
			slot_seen[s - 1] = true;
			dr->slot[s - 1] = dev;
		}
	}
	return FALCON_OK;
}

static falcon_err_t parse_host(struct json_object *o, const char *field,
			       struct sim_config *cfg, bool *seen)
{
	static const char *const keys[] = { "name", "local_devices", NULL };
	struct json_object *v;
	struct sim_host *h;
	char f[256], name[SIM_NAME_LEN];
	falcon_err_t rv;

	(void)seen; /* hosts are told apart by name */
	size_t i, j;

	if ((rv = want_type(o, json_type_object, field, "an object")) != FALCON_OK ||
	    (rv = check_keys(o, field, keys)) != FALCON_OK)
		return rv;
	snprintf(f, sizeof(f), "%s.name", field);
	json_object_object_get_ex(o, "name", &v);
	if ((rv = get_str(v, f, name, sizeof(name))) != FALCON_OK)
		return rv;
	for (i = 0; i < cfg->nhosts; i++)
		if (strcmp(cfg->hosts[i].name, name) == 0)
			break;
	if (i == cfg->nhosts)
		return falcon_err_set(FALCON_ERR_INVAL, "%s: \"%s\" is not the host of any host port",
				      f, name);
	h = &cfg->hosts[i];
	if (h->nlocal != 0)
		return falcon_err_set(FALCON_ERR_INVAL, "%s: \"%s\" defined twice", f, name);
	snprintf(f, sizeof(f), "%s.local_devices", field);
	if (!json_object_object_get_ex(o, "local_devices", &v))
		return FALCON_OK;
	if ((rv = want_type(v, json_type_array, f, "an array of devices")) != FALCON_OK)
		return rv;
	if (json_object_array_length(v) > SIM_MAX_LOCAL)
		return falcon_err_set(FALCON_ERR_INVAL, "%s: at most %d devices", f, SIM_MAX_LOCAL);
	for (i = 0; i < json_object_array_length(v); i++) {
		snprintf(f, sizeof(f), "%s.local_devices[%zu]", field, i);
		if ((rv = parse_device(json_object_array_get_idx(v, i), f, true,
				       &h->local[h->nlocal])) != FALCON_OK)
			return rv;
		for (j = 0; j < h->nlocal; j++)
			if (strcmp(h->local[j].bdf, h->local[h->nlocal].bdf) == 0)
				return falcon_err_set(FALCON_ERR_INVAL, "%s.bdf: %s used twice", f,
						      h->local[j].bdf);
		h->nlocal++;
	}
	return FALCON_OK;
}

/* Every host named by a port gets one sim_host entry, in port order. */
static void collect_hosts(struct sim_config *cfg)
{
	size_t i;
	int p;

	cfg->nhosts = 0;
	for (p = 0; p < SIM_PORTS; p++) {
		if (cfg->port[p].host[0] == '\0')
			continue;
		for (i = 0; i < cfg->nhosts; i++)
			if (strcmp(cfg->hosts[i].name, cfg->port[p].host) == 0)
				break;
		if (i == cfg->nhosts) {
			memset(&cfg->hosts[i], 0, sizeof(cfg->hosts[i]));
			falcon_strlcpy(cfg->hosts[i].name, cfg->port[p].host, SIM_NAME_LEN);
			cfg->nhosts++;
		}
	}
}

/* Cross-checks: cabling, bus ranges of one host's ports, local BDFs. */
static falcon_err_t validate(const struct sim_config *cfg)
{
	int d, i, p, q;
	size_t h, k;

	for (d = 0; d < SIM_DRAWERS; d++) {
		const struct sim_drawer *dr = &cfg->drawer[d];

		if (cfg->mode == SIM_MODE_STANDARD && dr->nports > 2)
			return falcon_err_set(FALCON_ERR_INVAL,
					      "drawer %d: host_ports: standard mode cables at most 2 host ports to a drawer",
					      d + 1);
		if (dr->nports > 3)
			return falcon_err_set(FALCON_ERR_INVAL,
					      "drawer %d: host_ports: advanced mode shares a drawer among at most 3 host ports",
					      d + 1);
		for (i = 0; i < dr->nports; i++) {
			p = dr->ports[i];
			if (cfg->port[p].host[0] == '\0')
				return falcon_err_set(FALCON_ERR_INVAL,
						      "drawer %d: host_ports: H%d is not cabled to a host (host_ports[].host)",
						      d + 1, p + 1);
			for (q = 0; q < d; q++) {
				int j;

				for (j = 0; j < cfg->drawer[q].nports; j++)
					if (cfg->drawer[q].ports[j] == p)
						return falcon_err_set(FALCON_ERR_INVAL,
								      "drawer %d: host_ports: H%d is cabled to drawer %d already",
								      d + 1, p + 1, q + 1);
			}
		}
	}
	/* Ports of the same host need disjoint buses. */
	for (p = 0; p < SIM_PORTS; p++)
		for (q = p + 1; q < SIM_PORTS; q++) {
			const struct sim_port *a = &cfg->port[p], *b = &cfg->port[q];

			if (a->host[0] == '\0' || strcmp(a->host, b->host) != 0 ||
			    a->domain != b->domain)
				continue;
			if (!(a->bus_last < b->bus || b->bus_last < a->bus))
				return falcon_err_set(FALCON_ERR_INVAL,
						      "host_ports: H%d and H%d of host %s overlap in bus numbers",
						      p + 1, q + 1, a->host);
		}
	for (h = 0; h < cfg->nhosts; h++)
		for (k = 0; k < cfg->hosts[h].nlocal; k++) {
			struct falcon_bdf lb;

			if (falcon_bdf_parse(cfg->hosts[h].local[k].bdf, &lb) != FALCON_OK) {
				falcon_err_clear();
				continue;
			}
			for (p = 0; p < SIM_PORTS; p++) {
				const struct sim_port *a = &cfg->port[p];

				if (strcmp(a->host, cfg->hosts[h].name) == 0 && a->domain == lb.domain &&
				    lb.bus >= a->bus && lb.bus <= a->bus_last)
					return falcon_err_set(FALCON_ERR_INVAL,
							      "hosts[%zu].local_devices[%zu].bdf: %s lies in H%d's bus range",
							      h, k, cfg->hosts[h].local[k].bdf, p + 1);
			}
		}
	return FALCON_OK;
}

static void faults_clear(struct sim_faults *f)
{
	memset(f, 0, sizeof(*f));
}

/*
 * parse_list - root's array KEY (when present, at most max members; toomany
 * the message beyond), each member parsed by fn as "KEY[i]" with seen.
 */
static falcon_err_t parse_list(struct json_object *root, const char *key, size_t max,
			       const char *toomany, struct sim_config *c, bool *seen,
			       falcon_err_t (*fn)(struct json_object *, const char *,
						  struct sim_config *, bool *))
{
	struct json_object *v;
	char f[64];
	falcon_err_t rv;
	size_t i;

	if (!json_object_object_get_ex(root, key, &v))
		return FALCON_OK;
	if ((rv = want_type(v, json_type_array, key, "an array")) != FALCON_OK)
		return rv;
	if (json_object_array_length(v) > max)
		return falcon_err_set(FALCON_ERR_INVAL, "%s: %s", key, toomany);
	for (i = 0; i < json_object_array_length(v); i++) {
		snprintf(f, sizeof(f), "%s[%zu]", key, i);
		if ((rv = fn(json_object_array_get_idx(v, i), f, c, seen)) != FALCON_OK)
			return rv;
	}
	return FALCON_OK;
}

falcon_err_t sim_config_from_json(struct json_object *root, const char *where,
				  struct sim_config *cfg)
{
	static const char *const keys[] = {
		"chassis", "mode", "surprise_removal", "host_ports", "drawers", "hosts",
		"faults", NULL };
	struct json_object *v;
	struct sim_config *c = NULL;
	bool seen_port[SIM_PORTS] = { false }, seen_drawer[SIM_DRAWERS] = { false };
	char word[16];
	falcon_err_t rv;

	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "%s: out of memory", where);
		goto fail;
	}
	falcon_strlcpy(c->chassis, "falcon1", sizeof(c->chassis));
	if ((rv = want_type(root, json_type_object, "(top level)", "an object")) != FALCON_OK ||
	    (rv = check_keys(root, "(top level)", keys)) != FALCON_OK)
		goto bad;
	if (json_object_object_get_ex(root, "chassis", &v)) {
		if ((rv = get_str(v, "chassis", c->chassis, sizeof(c->chassis))) != FALCON_OK)
			goto bad;
		if (c->chassis[0] == '\0' || strchr(c->chassis, '/') != NULL) {
			rv = falcon_err_set(FALCON_ERR_INVAL, "chassis: expected a name without '/'");
			goto bad;
		}
	}
	if (json_object_object_get_ex(root, "mode", &v)) {
		if (get_str(v, "mode", word, sizeof(word)) != FALCON_OK ||
		    (strcmp(word, "standard") != 0 && strcmp(word, "advanced") != 0)) {
			rv = falcon_err_set(FALCON_ERR_INVAL, "mode: expected \"standard\" or \"advanced\"");
			goto bad;
		}
		c->mode = strcmp(word, "advanced") == 0 ? SIM_MODE_ADVANCED : SIM_MODE_STANDARD;
	}
	if (json_object_object_get_ex(root, "surprise_removal", &v)) {
		if (get_str(v, "surprise_removal", word, sizeof(word)) != FALCON_OK)
			word[0] = '\0';
		if (strcmp(word, "remove") == 0)
			c->surprise = SIM_SURPRISE_REMOVE;
		else if (strcmp(word, "stale") == 0)
			c->surprise = SIM_SURPRISE_STALE;
		else if (strcmp(word, "refuse") == 0)
			c->surprise = SIM_SURPRISE_REFUSE;
		else {
			rv = falcon_err_set(FALCON_ERR_INVAL,
					    "surprise_removal: expected \"remove\", \"stale\" or \"refuse\"");
			goto bad;
		}
	}
	if ((rv = parse_list(root, "host_ports", SIM_PORTS, "a Falcon 4016 has 4 host ports", c,
			     seen_port, parse_port)) != FALCON_OK)
		goto bad;
	collect_hosts(c);
	if ((rv = parse_list(root, "drawers", SIM_DRAWERS, "a Falcon 4016 has 2 drawers", c,
			     seen_drawer, parse_drawer)) != FALCON_OK ||
	    (rv = parse_list(root, "hosts", SIZE_MAX, "", c, NULL, parse_host)) != FALCON_OK)
		goto bad;
	if (json_object_object_get_ex(root, "faults", &v)) {
		if ((rv = sim_faults_from_json(v, &c->faults)) != FALCON_OK) {
			char msg[1024];

			falcon_strlcpy(msg, falcon_errmsg(), sizeof(msg));
			rv = falcon_err_set(FALCON_ERR_INVAL, "faults.%s", msg);
			goto bad;
		}
	}
	if ((rv = validate(c)) != FALCON_OK)
		goto bad;
	*cfg = *c;
	rv = FALCON_OK;
	goto fail;
bad:
	rv = falcon_err_prefix(FALCON_ERR_CONFIG, "%s", where);
fail:
	free(c);
	return rv;
}

falcon_err_t sim_config_load(const char *path, struct sim_config *cfg)
{
	struct json_tokener *tok = NULL;
	struct json_object *root = NULL;
	char *buf = NULL;
	size_t len = 0;
	falcon_err_t rv;

	if ((rv = falcon_read_file(path, CFG_MAX_BYTES, &buf, &len)) != FALCON_OK)
		goto fail;
	tok = json_tokener_new();
	if (tok == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "%s: out of memory", path);
		goto fail;
	}
	root = json_tokener_parse_ex(tok, buf, (int)len);
	if (root == NULL || json_tokener_get_error(tok) != json_tokener_success ||
	    tok->char_offset != (int)len) {
		enum json_tokener_error je = json_tokener_get_error(tok);

		rv = falcon_err_set(FALCON_ERR_CONFIG, "%s: byte %d: not valid JSON (%s)", path,
				    (int)json_tokener_get_parse_end(tok),
				    je == json_tokener_continue ? "unexpected end of file"
				    : je == json_tokener_success ? "trailing data"
				    : json_tokener_error_desc(je));
		goto fail;
	}
	rv = sim_config_from_json(root, path, cfg);
fail:
	json_object_put(root);
	if (tok != NULL)
		json_tokener_free(tok);
	free(buf);
	return rv;
}

/* ---- faults ---- */

static falcon_err_t parse_dev_list(struct json_object *v, const char *field,
				   bool out[SIM_DRAWERS][SIM_SLOTS])
{
	char f[128];
	size_t i;
	int d, s;

	if (want_type(v, json_type_array, field, "an array of \"drawer<D>_slot<S>\"") != FALCON_OK)
		return FALCON_ERR_INVAL;
	for (i = 0; i < json_object_array_length(v); i++) {
		struct json_object *e = json_object_array_get_idx(v, i);

		snprintf(f, sizeof(f), "%s[%zu]", field, i);
		if (!json_object_is_type(e, json_type_string) ||
		    !sim_parse_dev_id(json_object_get_string(e), &d, &s))
			return falcon_err_set(FALCON_ERR_INVAL, "%s: expected \"drawer<D>_slot<S>\"", f);
		out[d - 1][s - 1] = true;
	}
	return FALCON_OK;
}

static falcon_err_t parse_rule(struct json_object *o, const char *field,
			       struct sim_fault_rule *r)
{
	static const char *const keys[] = { "action", "method", "path", "count", "status", "ms", "ms_max",
					    NULL };
	struct json_object *v;
	char f[256], word[16];
	falcon_err_t rv;

	memset(r, 0, sizeof(*r));
	r->count = -1;
	r->status = 503;
	if ((rv = want_type(o, json_type_object, field, "an object")) != FALCON_OK ||
	    (rv = check_keys(o, field, keys)) != FALCON_OK)
		return rv;
	snprintf(f, sizeof(f), "%s.action", field);
	json_object_object_get_ex(o, "action", &v);
	if (get_str(v, f, word, sizeof(word)) != FALCON_OK)
		word[0] = '\0';
	if (strcmp(word, "error") == 0)
		r->action = SIM_FAULT_ERROR;
	else if (strcmp(word, "timeout") == 0)
		r->action = SIM_FAULT_TIMEOUT;
	else if (strcmp(word, "drop") == 0)
		r->action = SIM_FAULT_DROP;
	else if (strcmp(word, "latency") == 0)
		r->action = SIM_FAULT_LATENCY;
	else
		return falcon_err_set(FALCON_ERR_INVAL,
				      "%s: expected \"error\", \"timeout\", \"drop\" or \"latency\"", f);
	if (json_object_object_get_ex(o, "method", &v)) {
		snprintf(f, sizeof(f), "%s.method", field);
		if ((rv = get_str(v, f, r->method, sizeof(r->method))) != FALCON_OK)
			return rv;
	}
	if (json_object_object_get_ex(o, "path", &v)) {
		snprintf(f, sizeof(f), "%s.path", field);
		if ((rv = get_str(v, f, r->path, sizeof(r->path))) != FALCON_OK)
			return rv;
	}
	if (json_object_object_get_ex(o, "count", &v)) {
		snprintf(f, sizeof(f), "%s.count", field);
		if ((rv = get_long(v, f, -1, 1000000, &r->count)) != FALCON_OK)
			return rv;
	}
	if (json_object_object_get_ex(o, "status", &v)) {
		long st;

		snprintf(f, sizeof(f), "%s.status", field);
		if ((rv = get_long(v, f, 500, 599, &st)) != FALCON_OK)
			return rv;
		r->status = (int)st;
	}
	if (json_object_object_get_ex(o, "ms", &v)) {
		snprintf(f, sizeof(f), "%s.ms", field);
		if ((rv = get_long(v, f, 0, 3600000, &r->ms)) != FALCON_OK)
			return rv;
	} else if (r->action == SIM_FAULT_LATENCY) {
		return falcon_err_set(FALCON_ERR_INVAL, "%s.ms: required for a latency rule", field);
	}
	if (json_object_object_get_ex(o, "ms_max", &v)) {
		snprintf(f, sizeof(f), "%s.ms_max", field);
		if (r->action != SIM_FAULT_LATENCY)
			return falcon_err_set(FALCON_ERR_INVAL, "%s: only for a latency rule", f);
		if ((rv = get_long(v, f, r->ms, 3600000, &r->ms_max)) != FALCON_OK)
			return rv;
	}
	return FALCON_OK;
}

/* "tasks": {"attach": bool, "detach": bool, "ms": 0..3600000, "fail": bool}. */
static falcon_err_t parse_tasks(struct json_object *o, struct sim_faults *f)
{
	static const char *const keys[] = { "attach", "detach", "ms", "fail", NULL };
	static const char *const flags[] = { "attach", "detach", "fail" };
	bool *dst[] = { &f->task_attach, &f->task_detach, &f->task_fail };
	struct json_object *v;
	char fld[32];
	falcon_err_t rv;
	size_t i;

	if ((rv = want_type(o, json_type_object, "tasks",
			    "an object {attach, detach, ms, fail}")) != FALCON_OK ||
	    (rv = check_keys(o, "tasks", keys)) != FALCON_OK)
		return rv;
	f->task_ms = 200;
	for (i = 0; i < ARRAY_SIZE(flags); i++)
		if (json_object_object_get_ex(o, flags[i], &v)) {
			snprintf(fld, sizeof(fld), "tasks.%s", flags[i]);
			if ((rv = want_type(v, json_type_boolean, fld, "true or false")) != FALCON_OK)
				return rv;
			*dst[i] = json_object_get_boolean(v);
		}
	if (json_object_object_get_ex(o, "ms", &v) &&
	    (rv = get_long(v, "tasks.ms", 0, 3600000, &f->task_ms)) != FALCON_OK)
		return rv;
	return FALCON_OK;
}

falcon_err_t sim_faults_from_json(struct json_object *obj, struct sim_faults *out)
{
	static const char *const keys[] = {
		"latency_ms", "rules", "degraded_links", "no_appear", "refuse_detach", "tasks",
		"unassigned_bar", "acs_redirect", "fell_off", NULL };
	struct json_object *v;
	struct sim_faults *f = NULL;
	char fld[128];
	falcon_err_t rv;
	size_t i;
	int d, s;

	f = calloc(1, sizeof(*f));
	if (f == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "faults: out of memory");
		goto fail;
	}
	faults_clear(f);
	if ((rv = want_type(obj, json_type_object, "faults", "an object")) != FALCON_OK ||
	    (rv = check_keys(obj, "faults", keys)) != FALCON_OK)
		goto fail;
	if (json_object_object_get_ex(obj, "latency_ms", &v) &&
	    (rv = get_long(v, "latency_ms", 0, 3600000, &f->latency_ms)) != FALCON_OK)
		goto fail;
	if (json_object_object_get_ex(obj, "rules", &v)) {
		if ((rv = want_type(v, json_type_array, "rules", "an array")) != FALCON_OK)
			goto fail;
		if (json_object_array_length(v) > SIM_MAX_RULES) {
			rv = falcon_err_set(FALCON_ERR_INVAL, "rules: at most %d", SIM_MAX_RULES);
			goto fail;
		}
		for (i = 0; i < json_object_array_length(v); i++) {
			snprintf(fld, sizeof(fld), "rules[%zu]", i);
			if ((rv = parse_rule(json_object_array_get_idx(v, i), fld,
					     &f->rules[f->nrules])) != FALCON_OK)
				goto fail;
			f->nrules++;
		}
	}
	if (json_object_object_get_ex(obj, "degraded_links", &v)) {
		if ((rv = want_type(v, json_type_object, "degraded_links",
				    "an object {\"drawer<D>_slot<S>\": {speed_gts, width}}")) != FALCON_OK)
			goto fail;
		json_object_object_foreach(v, key, val) {
			snprintf(fld, sizeof(fld), "degraded_links.%s", key);
			if (!sim_parse_dev_id(key, &d, &s)) {
				rv = falcon_err_set(FALCON_ERR_INVAL, "%s: expected a key \"drawer<D>_slot<S>\"", fld);
				goto fail;
			}
			if ((rv = get_link(val, fld, &f->degraded_link[d - 1][s - 1])) != FALCON_OK)
				goto fail;
			f->degraded[d - 1][s - 1] = true;
		}
	}
	if (json_object_object_get_ex(obj, "no_appear", &v) &&
	    (rv = parse_dev_list(v, "no_appear", f->no_appear)) != FALCON_OK)
		goto fail;
	if (json_object_object_get_ex(obj, "refuse_detach", &v) &&
	    (rv = parse_dev_list(v, "refuse_detach", f->refuse_detach)) != FALCON_OK)
		goto fail;
	if (json_object_object_get_ex(obj, "tasks", &v) &&
	    (rv = parse_tasks(v, f)) != FALCON_OK)
		goto fail;
	if (json_object_object_get_ex(obj, "unassigned_bar", &v) &&
	    (rv = parse_dev_list(v, "unassigned_bar", f->unassigned_bar)) != FALCON_OK)
		goto fail;
	if (json_object_object_get_ex(obj, "acs_redirect", &v) &&
	    (rv = parse_dev_list(v, "acs_redirect", f->acs_redirect)) != FALCON_OK)
		goto fail;
	if (json_object_object_get_ex(obj, "fell_off", &v) &&
	    (rv = parse_dev_list(v, "fell_off", f->fell_off)) != FALCON_OK)
		goto fail;
	*out = *f;
	rv = FALCON_OK;
fail:
	free(f);
	return rv;
}

static const char *action_str(sim_fault_action_t a)
{
	switch (a) {
	case SIM_FAULT_ERROR: return "error";
	case SIM_FAULT_TIMEOUT: return "timeout";
	case SIM_FAULT_DROP: return "drop";
	default: return "latency";
	}
}

struct json_object *sim_drawer_ports_json(const struct sim_config *cfg, int d)
{
	struct json_object *hp = json_object_new_array();
	int p;

	for (p = 0; hp != NULL && p < cfg->drawer[d].nports; p++) {
		char id[16];

		snprintf(id, sizeof(id), "H%d", cfg->drawer[d].ports[p] + 1);
		json_object_array_add(hp, json_object_new_string(id));
	}
	return hp;
}

struct json_object *sim_faults_to_json(const struct sim_faults *f)
{
	struct json_object *o = json_object_new_object();
	struct json_object *rules = json_object_new_array();
	struct json_object *deg = json_object_new_object();
	struct json_object *na = json_object_new_array();
	struct json_object *rd = json_object_new_array();
	struct json_object *ub = json_object_new_array();
	struct json_object *acs = json_object_new_array();
	struct json_object *fo = json_object_new_array();
	char id[32];
	size_t i;
	int d, s;

	json_object_object_add(o, "latency_ms", json_object_new_int64(f->latency_ms));
	for (i = 0; i < f->nrules; i++) {
		const struct sim_fault_rule *r = &f->rules[i];
		struct json_object *ro = json_object_new_object();

		json_object_object_add(ro, "action", json_object_new_string(action_str(r->action)));
		if (r->method[0] != '\0')
			json_object_object_add(ro, "method", json_object_new_string(r->method));
		if (r->path[0] != '\0')
			json_object_object_add(ro, "path", json_object_new_string(r->path));
		json_object_object_add(ro, "count", json_object_new_int64(r->count));
		if (r->action == SIM_FAULT_ERROR)
			json_object_object_add(ro, "status", json_object_new_int(r->status));
		if (r->action == SIM_FAULT_LATENCY || r->ms != 0)
			json_object_object_add(ro, "ms", json_object_new_int64(r->ms));
		if (r->ms_max > r->ms)
			json_object_object_add(ro, "ms_max", json_object_new_int64(r->ms_max));
		json_object_array_add(rules, ro);
	}
	for (d = 0; d < SIM_DRAWERS; d++)
		for (s = 0; s < SIM_SLOTS; s++) {
			snprintf(id, sizeof(id), "drawer%d_slot%d", d + 1, s + 1);
			if (f->degraded[d][s]) {
				struct json_object *l = json_object_new_object();

				json_object_object_add(l, "speed_gts",
						       json_object_new_double(f->degraded_link[d][s].speed_gts));
				json_object_object_add(l, "width",
						       json_object_new_int(f->degraded_link[d][s].width));
				json_object_object_add(deg, id, l);
			}
			if (f->no_appear[d][s])
				json_object_array_add(na, json_object_new_string(id));
			if (f->refuse_detach[d][s])
				json_object_array_add(rd, json_object_new_string(id));
			if (f->unassigned_bar[d][s])
				json_object_array_add(ub, json_object_new_string(id));
			if (f->acs_redirect[d][s])
				json_object_array_add(acs, json_object_new_string(id));
			if (f->fell_off[d][s])
				json_object_array_add(fo, json_object_new_string(id));
		}
	json_object_object_add(o, "rules", rules);
	json_object_object_add(o, "degraded_links", deg);
	json_object_object_add(o, "no_appear", na);
	json_object_object_add(o, "refuse_detach", rd);
	json_object_object_add(o, "unassigned_bar", ub);
	json_object_object_add(o, "acs_redirect", acs);
	json_object_object_add(o, "fell_off", fo);
	if (f->task_attach || f->task_detach || f->task_fail) {
		struct json_object *t = json_object_new_object();

		json_object_object_add(t, "attach", json_object_new_boolean(f->task_attach));
		json_object_object_add(t, "detach", json_object_new_boolean(f->task_detach));
		json_object_object_add(t, "ms", json_object_new_int64(f->task_ms));
		json_object_object_add(t, "fail", json_object_new_boolean(f->task_fail));
		json_object_object_add(o, "tasks", t);
	}
	return o;
}

/* ---- the paper's testbed ---- */

static void v100_pcie(struct sim_device *dev, int n)
{
	memset(dev, 0, sizeof(*dev));
	dev->populated = true;
	dev->type = FALCON_DEV_GPU;
	dev->vendor_id = 0x10de;
	dev->device_id = 0x1db4;          /* GV100GL [Tesla V100 PCIe 16GB] (pci.ids) */
	dev->subsys_vendor_id = 0x10de;
	dev->subsys_device_id = 0x1214;
	dev->class_code = 0x030200;
	dev->revision = 0xa1;
	falcon_strlcpy(dev->model, "Tesla V100-PCIE-16GB", sizeof(dev->model));
	falcon_strlcpy(dev->manufacturer, "NVIDIA Corporation", sizeof(dev->manufacturer));
	snprintf(dev->serial, sizeof(dev->serial), "03231180%05d", n);
	/* V100 is a PCIe 3.0 x16 device: it trains at 8 GT/s in a Gen4 slot. */
	dev->max_link = (struct sim_link){ 8.0, 16 };
	dev->link = dev->max_link;
}

void sim_config_default(struct sim_config *cfg)
{
	static const unsigned local_gpu_bus[] = { 0x18, 0x19, 0x1a, 0x1b, 0x86, 0x87, 0x88, 0x89 };
	struct sim_host *h;
	size_t i;
	int s;

	memset(cfg, 0, sizeof(*cfg));
	falcon_strlcpy(cfg->chassis, "falcon1", sizeof(cfg->chassis));
	cfg->mode = SIM_MODE_STANDARD;
	cfg->surprise = SIM_SURPRISE_REMOVE;
	for (i = 0; i < SIM_PORTS; i++) {
		struct sim_port *p = &cfg->port[i];
		static const char *const hosts[] = { "node1", "node1", "node2", "node3" };
		unsigned bus = i == 1 ? 0xaf : 0x3b;

		falcon_strlcpy(p->host, hosts[i], sizeof(p->host));
		p->domain = 0;
		p->bus = bus;
		p->bus_first = bus + 1;
		p->bus_last = bus + 1 + SIM_SLOTS;
		snprintf(p->adapter, sizeof(p->adapter), "0000:%02x:00.0", bus);
		p->link = (struct sim_link){ 16.0, 16 };
	}
	/* The host uses both drawers through H1 and H2 (paper Fig. 6). */
	cfg->drawer[0].nports = 2;
	cfg->drawer[0].ports[0] = 0;
	cfg->drawer[0].ports[1] = 2;
	cfg->drawer[1].nports = 2;
	cfg->drawer[1].ports[0] = 1;
	cfg->drawer[1].ports[1] = 3;
	for (s = 0; s < 4; s++) {
		v100_pcie(&cfg->drawer[0].slot[s], s + 1);
		v100_pcie(&cfg->drawer[1].slot[s], s + 5);
	}
	{
		struct sim_device *nv = &cfg->drawer[1].slot[4];

		nv->populated = true;
		nv->type = FALCON_DEV_NVME;
		nv->vendor_id = 0x8086;
		nv->device_id = 0x0a54;   /* NVMe DC SSD [3DNAND, Cliffdale] (P4500/P4510) */
		nv->subsys_vendor_id = 0x8086;
		nv->subsys_device_id = 0x4802;
		nv->class_code = 0x010802;
		falcon_strlcpy(nv->model, "SSDPEDKX040T7", sizeof(nv->model));
		falcon_strlcpy(nv->manufacturer, "Intel Corporation", sizeof(nv->manufacturer));
		falcon_strlcpy(nv->serial, "PHLF8015004S4P0DGN", sizeof(nv->serial));
		nv->max_link = (struct sim_link){ 8.0, 4 };
		nv->link = nv->max_link;
	}
	collect_hosts(cfg);
	h = &cfg->hosts[0]; /* node1: 8 local V100 SXM2 + 1 local NVMe */
	for (i = 0; i < ARRAY_SIZE(local_gpu_bus); i++) {
		struct sim_device *dev = &h->local[h->nlocal++];

		dev->populated = true;
		dev->type = FALCON_DEV_GPU;
		dev->vendor_id = 0x10de;
		dev->device_id = 0x1db1; /* GV100GL [Tesla V100 SXM2 16GB] (pci.ids) */
		dev->subsys_vendor_id = 0x10de;
		dev->subsys_device_id = 0x1212;
		dev->class_code = 0x030200;
		dev->revision = 0xa1;
		falcon_strlcpy(dev->model, "Tesla V100-SXM2-16GB", sizeof(dev->model));
		falcon_strlcpy(dev->manufacturer, "NVIDIA Corporation", sizeof(dev->manufacturer));
		snprintf(dev->serial, sizeof(dev->serial), "03231170%05zu", i + 1);
		dev->max_link = (struct sim_link){ 8.0, 16 };
		dev->link = dev->max_link;
		snprintf(dev->bdf, sizeof(dev->bdf), "0000:%02x:00.0", local_gpu_bus[i]);
	}
	{
		struct sim_device *dev = &h->local[h->nlocal++];

		*dev = cfg->drawer[1].slot[4];
		falcon_strlcpy(dev->serial, "PHLF8015004T4P0DGN", sizeof(dev->serial));
		falcon_strlcpy(dev->bdf, "0000:5e:00.0", sizeof(dev->bdf));
	}
}
