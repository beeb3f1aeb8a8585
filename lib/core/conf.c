/*
 * conf.c - falcon.conf(5): the configuration parser shared by every program.
 *
 * conf_lex.c turns the files (Includes followed) into logical lines of
 * words, with the syntax of slurm.conf(5); this file gives the words their
 * meaning.  A word is Key=Value; a line whose first word is ChassisName=,
 * HostName= or PartitionName= defines one object, any other line sets
 * global keys.  Keys are case-insensitive.
 *
 * Everything is strict: an unknown key, a bad value, a key given twice, a
 * duplicate object or a broken cross-reference fails the whole load with
 * FALCON_ERR_CONFIG and "FILE:LINE: KEY: expected ..., got '...'" in
 * falcon_errmsg().
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/conf.h"
#include "core/conf_lex.h"
#include "core/util.h"

#define CONF_MAX_NAME_SHOWN CONF_LEX_SHOWN

/* ---------------------------------------------------------------- */
/* Enum <-> string */

static const char *const place_names[] = { "pack", "spread", "any" };
static const char *const check_names[] = { "quick", "full", "off" };
static const char *const action_names[] = { "drain", "fail", "warn" };
static const char *const backend_names[] = { "redfish-fabric", "redfish-composition" };
static const char *const mode_names[] = { "standard", "advanced" };
/* Table III of the paper, in falcon_topo_label_t bit order. */
static const char *const topo_names[] = {
	"localGPUs", "hybridGPUs", "falconGPUs", "localNVMe", "falconNVMe"
};

static const char *enum_str(const char *const *names, size_t n, unsigned v)
{
	return v < n ? names[v] : "unknown";
}

static int enum_find(const char *const *names, size_t n, const char *s)
{
	size_t i;

	if (s == NULL)
		return -1;
	for (i = 0; i < n; i++)
		if (strcasecmp(names[i], s) == 0)
			return (int)i;
	return -1;
}

const char *falcon_place_str(falcon_place_t p)
{
	return enum_str(place_names, ARRAY_SIZE(place_names), (unsigned)p);
}

falcon_err_t falcon_place_from_str(const char *s, falcon_place_t *out)
{
	int i = enum_find(place_names, ARRAY_SIZE(place_names), s);

	if (i < 0)
		return falcon_err_set(FALCON_ERR_INVAL, "expected pack|spread|any, got '%s'",
				      s ? s : "(null)");
	*out = (falcon_place_t)i;
	return FALCON_OK;
}

const char *falcon_check_str(falcon_check_t c)
{
	return enum_str(check_names, ARRAY_SIZE(check_names), (unsigned)c);
}

falcon_err_t falcon_check_from_str(const char *s, falcon_check_t *out)
{
	int i = enum_find(check_names, ARRAY_SIZE(check_names), s);

	if (i < 0)
		return falcon_err_set(FALCON_ERR_INVAL, "expected quick|full|off, got '%s'",
				      s ? s : "(null)");
	*out = (falcon_check_t)i;
	return FALCON_OK;
}

const char *falcon_action_str(falcon_action_t a)
{
	return enum_str(action_names, ARRAY_SIZE(action_names), (unsigned)a);
}

falcon_err_t falcon_action_from_str(const char *s, falcon_action_t *out)
{
	int i = enum_find(action_names, ARRAY_SIZE(action_names), s);

	if (i < 0)
		return falcon_err_set(FALCON_ERR_INVAL, "expected drain|fail|warn, got '%s'",
				      s ? s : "(null)");
	*out = (falcon_action_t)i;
	return FALCON_OK;
}

const char *falcon_backend_str(falcon_backend_t b)
{
	return enum_str(backend_names, ARRAY_SIZE(backend_names), (unsigned)b);
}

falcon_err_t falcon_backend_from_str(const char *s, falcon_backend_t *out)
{
	int i = enum_find(backend_names, ARRAY_SIZE(backend_names), s);

	if (i < 0)
		return falcon_err_set(FALCON_ERR_INVAL,
				      "expected redfish-fabric|redfish-composition, got '%s'",
				      s ? s : "(null)");
	*out = (falcon_backend_t)i;
	return FALCON_OK;
}

const char *falcon_mode_str(falcon_mode_t m)
{
	return enum_str(mode_names, ARRAY_SIZE(mode_names), (unsigned)m);
}

falcon_err_t falcon_mode_from_str(const char *s, falcon_mode_t *out)
{
	int i = enum_find(mode_names, ARRAY_SIZE(mode_names), s);

	if (i < 0)
		return falcon_err_set(FALCON_ERR_INVAL, "expected standard|advanced, got '%s'",
				      s ? s : "(null)");
	*out = (falcon_mode_t)i;
	return FALCON_OK;
}

const char *falcon_topo_label_str(unsigned label)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(topo_names); i++)
		if (label == (1u << i))
			return topo_names[i];
	return "";
}

falcon_err_t falcon_topo_label_from_str(const char *s, unsigned *out)
{
	int i;

	if (s != NULL && strcasecmp(s, "ALL") == 0) {
		*out = FALCON_TOPO_ALL;
		return FALCON_OK;
	}
	i = enum_find(topo_names, ARRAY_SIZE(topo_names), s);
	if (i < 0)
		return falcon_err_set(FALCON_ERR_INVAL,
				      "expected localGPUs|hybridGPUs|falconGPUs|localNVMe|"
				      "falconNVMe|ALL, got '%s'", s ? s : "(null)");
	*out = 1u << i;
	return FALCON_OK;
}

char *falcon_topo_set_str(unsigned set, char *buf, size_t n)
{
	size_t i, len = 0;

	if (n == 0)
		return NULL;
	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(topo_names); i++) {
		int w;

		if (!(set & (1u << i)))
			continue;
		w = snprintf(buf + len, n - len, "%s%s", len ? "," : "", topo_names[i]);
		if (w < 0 || (size_t)w >= n - len)
			return NULL;
		len += (size_t)w;
	}
	return buf;
}

/* ---------------------------------------------------------------- */
/* Defaults */

static const struct falcon_partition_conf builtin_partition = {
	.name = "DEFAULT",
	.allow_topologies = FALCON_TOPO_ALL,
	.max_falcon_gpus = -1,
	.max_falcon_nvme = -1,
	.place = FALCON_PLACE_PACK,
	.check = FALCON_CHECK_QUICK,
	.check_action = FALCON_ACTION_DRAIN,
	.file = "(built-in)",
	.line = 0,
};

static const struct falcon_chassis_conf builtin_chassis = {
	.backend = FALCON_BACKEND_FABRIC,
	.mode = FALCON_MODE_STANDARD,
	.timeout_s = 10,
};

/* ---------------------------------------------------------------- */
/* Key tables */

enum vtype {
	V_NAME,      /* [A-Za-z0-9._-]{1,63} into char[FALCON_NAME_LEN] */
	V_STR,       /* any non-empty string, heap */
	V_PATH,      /* absolute path, heap */
	V_URL,       /* http:// or https:// URL, heap */
	V_HOSTPORT,  /* host:port, heap */
	V_INT,       /* int in [min, max] */
	V_GBPS,      /* double in [min, max] */
	V_BOOL,      /* yes|no */
	V_BACKEND, V_MODE, V_PLACE, V_CHECK, V_ACTION,
	V_TOPOS,     /* AllowTopologies list */
	V_PORTS,     /* host Port= list */
	V_ADAPTERS,  /* host Adapter= list */
};

struct keydef {
	const char *name;
	enum vtype type;
	size_t off;       /* offset in the target struct */
	long min, max;    /* V_INT, V_GBPS */
};

#define G(f) offsetof(struct falcon_conf, f)
static const struct keydef global_keys[] = {
	{ "StateDir", V_PATH, G(state_dir), 0, 0 },
	{ "ListenAddress", V_HOSTPORT, G(listen_address), 0, 0 },
	{ "FalcondUrl", V_URL, G(falcond_url), 0, 0 },
	{ "SysfsRoot", V_PATH, G(sysfs_root), 0, 0 },
	{ "SlurmUser", V_STR, G(slurm_user), 0, 0 },
	{ "MungeSocket", V_PATH, G(munge_socket), 0, 0 },
	{ "RunDir", V_PATH, G(run_dir), 0, 0 },
	{ "NcclCheck", V_PATH, G(ncclcheck), 0, 0 },
	{ "PrologTimeout", V_INT, G(prolog_timeout), 1, 86400 },
	{ "EpilogTimeout", V_INT, G(epilog_timeout), 1, 86400 },
	{ "RescanTimeout", V_INT, G(rescan_timeout), 1, 3600 },
	{ "CheckBudget", V_INT, G(check_budget), 1, 3600 },
	{ "ChassisRetries", V_INT, G(chassis_retries), 0, 10 },
};
#undef G

#define C(f) offsetof(struct falcon_chassis_conf, f)
static const struct keydef chassis_keys[] = {
	{ "ChassisName", V_NAME, C(name), 0, 0 },
	{ "Url", V_URL, C(url), 0, 0 },
	{ "Backend", V_BACKEND, C(backend), 0, 0 },
	{ "CredentialsFile", V_PATH, C(credentials_file), 0, 0 },
	{ "Mode", V_MODE, C(mode), 0, 0 },
	{ "CAFile", V_PATH, C(ca_file), 0, 0 },
	{ "Insecure", V_BOOL, C(insecure), 0, 0 },
	{ "Timeout", V_INT, C(timeout_s), 1, 600 },
};
#undef C

#define H(f) offsetof(struct falcon_host_conf, f)
static const struct keydef host_keys[] = {
	{ "HostName", V_NAME, H(name), 0, 0 },
	{ "Chassis", V_NAME, H(chassis), 0, 0 },
	{ "Port", V_PORTS, 0, 0, 0 },
	{ "Adapter", V_ADAPTERS, 0, 0, 0 },
};
#undef H

/* A Falcon 4016 has 2 drawers x 8 slots: at most 16 devices of a kind. */
#define P(f) offsetof(struct falcon_partition_conf, f)
static const struct keydef partition_keys[] = {
	{ "PartitionName", V_NAME, P(name), 0, 0 },
	{ "AllowTopologies", V_TOPOS, P(allow_topologies), 0, 0 },
	{ "MaxFalconGPUs", V_INT, P(max_falcon_gpus), 0, 16 },
	{ "MaxFalconNVMe", V_INT, P(max_falcon_nvme), 0, 16 },
	{ "Place", V_PLACE, P(place), 0, 0 },
	{ "Check", V_CHECK, P(check), 0, 0 },
	{ "CheckAction", V_ACTION, P(check_action), 0, 0 },
	{ "MinBusBW", V_GBPS, P(min_busbw), 0, 10000 },
	{ "MinP2PBW_FF", V_GBPS, P(min_p2p_bw_ff), 0, 10000 },
	{ "MinP2PBW_FL", V_GBPS, P(min_p2p_bw_fl), 0, 10000 },
	{ "MinP2PBW_LL", V_GBPS, P(min_p2p_bw_ll), 0, 10000 },
};
#undef P

static const struct keydef *key_find(const struct keydef *t, size_t n, const char *k)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcasecmp(t[i].name, k) == 0)
			return &t[i];
	return NULL;
}

/* ---------------------------------------------------------------- */
/* Parser state */

struct parser {
	struct falcon_conf *conf;
	struct falcon_partition_conf defaults; /* current PartitionName=DEFAULT */
	const char *gfile[ARRAY_SIZE(global_keys)]; /* where each global was set */
	int gline[ARRAY_SIZE(global_keys)];
};

static falcon_err_t expected(const char *file, int line, const char *key,
			     const char *what, const char *val)
{
	char b[CONF_MAX_NAME_SHOWN];

	return conf_err(file, line, "%s: expected %s, got '%s'", key, what,
		       conf_shown(val, b, sizeof(b)));
}

static bool valid_name(const char *s)
{
	size_t n = 0;

	for (; s[n] != '\0'; n++)
		if (!isalnum((unsigned char)s[n]) && s[n] != '.' && s[n] != '_' && s[n] != '-')
			return false;
	return n > 0 && n < FALCON_NAME_LEN;
}

/* Slurm-ish yes|no; true/false and 1/0 are accepted as well. */
static int parse_bool(const char *s)
{
	if (!strcasecmp(s, "yes") || !strcasecmp(s, "true") || !strcmp(s, "1"))
		return 1;
	if (!strcasecmp(s, "no") || !strcasecmp(s, "false") || !strcmp(s, "0"))
		return 0;
	return -1;
}

/*
 * http(s)://authority[/path][?query][#fragment], the authority being
 * host[:port] as RFC 3986 section 3.2: a reg-name (letters, digits and
 * "-._~%"), or an IPv6 literal in brackets; port 1-65535.  No userinfo
 * (a credential in falcon.conf belongs in CredentialsFile=), no spaces or
 * control characters anywhere.  Checked by hand so that lib/core needs no
 * libcurl (the client's own parser rejects anything stranger at use).
 */
static bool valid_url(const char *s)
{
	const char *a, *end, *host_end, *p;
	long port;

	if (strncasecmp(s, "http://", 7) == 0)
		a = s + 7;
	else if (strncasecmp(s, "https://", 8) == 0)
		a = s + 8;
	else
		return false;
	for (p = s; *p != '\0'; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return false;
	end = a + strcspn(a, "/?#");
	if (end == a)
		return false;
	if (*a == '[') {
		const char *rb = memchr(a, ']', (size_t)(end - a));

		if (rb == NULL || rb == a + 1)
			return false;
		for (p = a + 1; p < rb; p++)
			if (!isxdigit((unsigned char)*p) && *p != ':' && *p != '.')
				return false;
		host_end = rb + 1;
	} else {
		for (host_end = a; host_end < end && *host_end != ':'; host_end++)
			if (!isalnum((unsigned char)*host_end) &&
			    strchr("-._~%", *host_end) == NULL)
				return false;
		if (host_end == a)
			return false;
	}
	if (host_end == end)
		return true;
	if (*host_end != ':' || host_end + 1 == end || end - host_end > 6)
		return false;
	{
		char buf[8];

		memcpy(buf, host_end + 1, (size_t)(end - host_end - 1));
		buf[end - host_end - 1] = '\0';
		return falcon_strtol(buf, 10, 1, 65535, &port) == FALCON_OK;
	}
}

/* host:port with port 1-65535; host non-empty, "[v6addr]" for IPv6. */
static bool valid_hostport(const char *s)
{
	const char *colon;
	long port;

	if (s[0] == '[') {
		const char *rb = strchr(s, ']');

		if (rb == NULL || rb == s + 1 || rb[1] != ':')
			return false;
		colon = rb + 1;
	} else {
		colon = strrchr(s, ':');
		if (colon == NULL || colon == s || memchr(s, ':', (size_t)(colon - s)))
			return false;
	}
	return falcon_strtol(colon + 1, 10, 1, 65535, &port) == FALCON_OK;
}

/* One hex field of a PCI address: 1..maxlen hex digits, value <= max. */
/* Split a ',' list in place; empty elements are an error (returns -1). */
static int split_list(char *v, char **items, int max)
{
	int n = 0;
	char *p = v;

	for (;;) {
		char *c = strchr(p, ',');

		if (c != NULL)
			*c = '\0';
		if (*p == '\0' || n >= max)
			return -1;
		items[n++] = p;
		if (c == NULL)
			break;
		p = c + 1;
	}
	return n;
}

static falcon_err_t set_string(char **dst, const char *v)
{
	char *d = strdup(v);

	if (d == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "out of memory");
	free(*dst);
	*dst = d;
	return FALCON_OK;
}

/*
 * Parse one value v of key k into the struct at base (a falcon_conf,
 * falcon_chassis_conf, falcon_host_conf or falcon_partition_conf as the
 * key's table says); file:line for messages.  v may be modified.
 */
static falcon_err_t set_value(const struct keydef *k, void *base, char *v,
			      const char *file, int line)
{
	char *field = (char *)base + k->off;
	char b[CONF_MAX_NAME_SHOWN];
	char *items[FALCON_MAX_PORTS + 1];
	long l;
	double d;
	int i, j, n;

	switch (k->type) {
	case V_NAME:
		if (!valid_name(v))
			return expected(file, line, k->name,
					"a name of 1-63 characters [A-Za-z0-9._-]", v);
		falcon_strlcpy(field, v, FALCON_NAME_LEN);
		return FALCON_OK;
	case V_STR:
		return set_string((char **)field, v);
	case V_PATH:
		if (v[0] != '/')
			return expected(file, line, k->name, "an absolute path", v);
		return set_string((char **)field, v);
	case V_URL:
		if (!valid_url(v))
			return expected(file, line, k->name, "an http:// or https:// URL", v);
		return set_string((char **)field, v);
	case V_HOSTPORT:
		if (!valid_hostport(v))
			return expected(file, line, k->name,
					"HOST:PORT with PORT in [1, 65535]", v);
		return set_string((char **)field, v);
	case V_INT:
		if (falcon_strtol(v, 10, k->min, k->max, &l) != FALCON_OK) {
			char what[64];

			snprintf(what, sizeof(what), "an integer in [%ld, %ld]", k->min, k->max);
			return expected(file, line, k->name, what, v);
		}
		*(int *)field = (int)l;
		return FALCON_OK;
	case V_GBPS:
		if (falcon_strtod(v, (double)k->min, (double)k->max, &d) != FALCON_OK) {
			char what[64];

			snprintf(what, sizeof(what), "a bandwidth in GB/s in [%ld, %ld]",
				 k->min, k->max);
			return expected(file, line, k->name, what, v);
		}
		*(double *)field = d;
		return FALCON_OK;
	case V_BOOL:
		if ((i = parse_bool(v)) < 0)
			return expected(file, line, k->name, "yes|no", v);
		*(bool *)field = i == 1;
		return FALCON_OK;
	case V_BACKEND:
		if (falcon_backend_from_str(v, (falcon_backend_t *)field) != FALCON_OK)
			return expected(file, line, k->name,
					"redfish-fabric|redfish-composition", v);
		return FALCON_OK;
	case V_MODE:
		if (falcon_mode_from_str(v, (falcon_mode_t *)field) != FALCON_OK)
			return expected(file, line, k->name, "standard|advanced", v);
		return FALCON_OK;
	case V_PLACE:
		if (falcon_place_from_str(v, (falcon_place_t *)field) != FALCON_OK)
			return expected(file, line, k->name, "pack|spread|any", v);
		return FALCON_OK;
	case V_CHECK:
		if (falcon_check_from_str(v, (falcon_check_t *)field) != FALCON_OK)
			return expected(file, line, k->name, "quick|full|off", v);
		return FALCON_OK;
	case V_ACTION:
		if (falcon_action_from_str(v, (falcon_action_t *)field) != FALCON_OK)
			return expected(file, line, k->name, "drain|fail|warn", v);
		return FALCON_OK;
	case V_TOPOS: {
		unsigned set = 0, bit;
		char *copy = strdup(v), *p, *c;
		falcon_err_t rv = FALCON_OK;

		if (copy == NULL)
			return falcon_err_set(FALCON_ERR_NOMEM, "out of memory");
		for (p = copy;; p = c + 1) {
			c = strchr(p, ',');
			if (c != NULL)
				*c = '\0';
			if (falcon_topo_label_from_str(p, &bit) != FALCON_OK) {
				rv = conf_err(file, line, "%s: expected a ',' list of localGPUs|"
					     "hybridGPUs|falconGPUs|localNVMe|falconNVMe or ALL, "
					     "got '%s'", k->name, conf_shown(v, b, sizeof(b)));
				break;
			}
			set |= bit;
			if (c == NULL)
				break;
		}
		free(copy);
		if (rv == FALCON_OK)
			*(unsigned *)field = set;
		return rv;
	}
	case V_PORTS: {
		struct falcon_host_conf *h = base;
		char *copy = strdup(v);
		falcon_err_t rv = FALCON_OK;

		if (copy == NULL)
			return falcon_err_set(FALCON_ERR_NOMEM, "out of memory");
		n = split_list(copy, items, FALCON_MAX_PORTS);
		if (n < 0) {
			rv = expected(file, line, k->name,
				      "a ',' list of 1 to 4 host ports H1..H4", v);
			goto ports_out;
		}
		for (i = 0; i < n; i++) {
			if (!((items[i][0] == 'H' || items[i][0] == 'h') &&
			      items[i][1] >= '1' && items[i][1] <= '0' + FALCON_MAX_PORTS &&
			      items[i][2] == '\0')) {
				rv = conf_err(file, line, "%s: expected a host port H1..H4, got '%s'",
					     k->name, conf_shown(items[i], b, sizeof(b)));
				goto ports_out;
			}
			snprintf(h->ports[i], FALCON_NAME_LEN, "H%c", items[i][1]);
			for (j = 0; j < i; j++)
				if (strcmp(h->ports[i], h->ports[j]) == 0) {
					rv = conf_err(file, line, "%s: host port %s listed twice",
						     k->name, h->ports[i]);
					goto ports_out;
				}
		}
		h->nports = n;
ports_out:
		free(copy);
		return rv;
	}
	case V_ADAPTERS: {
		struct falcon_host_conf *h = base;
		char *copy = strdup(v);
		falcon_err_t rv = FALCON_OK;

		if (copy == NULL)
			return falcon_err_set(FALCON_ERR_NOMEM, "out of memory");
		n = split_list(copy, items, FALCON_MAX_PORTS);
		if (n < 0) {
			rv = expected(file, line, k->name,
				      "a ',' list of 1 to 4 PCI addresses", v);
			goto adapters_out;
		}
		for (i = 0; i < n; i++) {
			if (falcon_bdf_normalise(items[i], h->adapters[i]) != FALCON_OK) {
				rv = conf_err(file, line, "%s: expected a PCI address "
					     "[DDDD:]BB:DD.F, got '%s'",
					     k->name, conf_shown(items[i], b, sizeof(b)));
				goto adapters_out;
			}
			for (j = 0; j < i; j++)
				if (strcmp(h->adapters[i], h->adapters[j]) == 0) {
					rv = conf_err(file, line, "%s: %s listed twice",
						     k->name, h->adapters[i]);
					goto adapters_out;
				}
		}
		h->nadapters = n;
adapters_out:
		free(copy);
		return rv;
	}
	}
	return conf_err(file, line, "%s: internal error: bad key type", k->name);
}

/* ---------------------------------------------------------------- */
/* Objects */

static const char *const object_keys[] = { "ChassisName", "HostName", "PartitionName" };

static int object_kind(const char *key)
{
	return enum_find(object_keys, ARRAY_SIZE(object_keys), key);
}

/* Parse toks[1..n) of an object line into obj with the table t. */
static falcon_err_t parse_keys(const struct keydef *t, size_t nt, void *obj,
			       const char *kind, struct conf_tok *toks, size_t n,
			       const char *file, uint32_t *seen)
{
	size_t i;
	falcon_err_t rv;

	for (i = 1; i < n; i++) {
		const struct keydef *k;
		char b[CONF_MAX_NAME_SHOWN];

		if (toks[i].eq == NULL)
			return conf_err(file, toks[i].line, "expected Key=Value, got '%s' (%s line)",
				       conf_shown(toks[i].text, b, sizeof(b)), kind);
		*toks[i].eq = '\0';
		k = key_find(t, nt, toks[i].text);
		if (k == NULL)
			return conf_err(file, toks[i].line, "unknown key '%s' (%s line)",
				       conf_shown(toks[i].text, b, sizeof(b)), kind);
		if (*seen & (1u << (k - t)))
			return conf_err(file, toks[i].line, "%s: given twice on one %s line",
				       k->name, kind);
		*seen |= 1u << (k - t);
		if (toks[i].eq[1] == '\0')
			return conf_err(file, toks[i].line, "%s: empty value", k->name);
		rv = set_value(k, obj, toks[i].eq + 1, file, toks[i].line);
		if (rv != FALCON_OK)
			return rv;
	}
	return FALCON_OK;
}

static falcon_err_t parse_chassis(struct parser *p, struct conf_tok *toks, size_t n,
				  const char *file)
{
	struct falcon_conf *c = p->conf;
	struct falcon_chassis_conf ch = builtin_chassis, *na;
	uint32_t seen = 1;
	falcon_err_t rv;
	size_t i;

	ch.file = file;
	ch.line = toks[0].line;
	rv = set_value(&chassis_keys[0], &ch, toks[0].eq + 1, file, toks[0].line);
	if (rv != FALCON_OK)
		goto fail;
	for (i = 0; i < c->nchassis; i++)
		if (strcmp(c->chassis[i].name, ch.name) == 0) {
			rv = conf_err(file, toks[0].line,
				     "duplicate ChassisName '%s' (first at %s:%d)",
				     ch.name, c->chassis[i].file, c->chassis[i].line);
			goto fail;
		}
	rv = parse_keys(chassis_keys, ARRAY_SIZE(chassis_keys), &ch, "ChassisName",
			toks, n, file, &seen);
	if (rv != FALCON_OK)
		goto fail;
	if (ch.url == NULL) {
		rv = conf_err(file, ch.line, "ChassisName '%s': Url= is required", ch.name);
		goto fail;
	}
	na = realloc(c->chassis, (c->nchassis + 1) * sizeof(*na));
	if (na == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "out of memory");
		goto fail;
	}
	c->chassis = na;
	c->chassis[c->nchassis++] = ch;
	return FALCON_OK;
fail:
	free(ch.url);
	free(ch.credentials_file);
	free(ch.ca_file);
	return rv;
}

static falcon_err_t parse_host(struct parser *p, struct conf_tok *toks, size_t n,
			       const char *file)
{
	struct falcon_conf *c = p->conf;
	struct falcon_host_conf h, *na;
	uint32_t seen = 1;
	falcon_err_t rv;
	size_t i;

	memset(&h, 0, sizeof(h));
	h.file = file;
	h.line = toks[0].line;
	rv = set_value(&host_keys[0], &h, toks[0].eq + 1, file, toks[0].line);
	if (rv != FALCON_OK)
		return rv;
	for (i = 0; i < c->nhosts; i++)
		if (strcmp(c->hosts[i].name, h.name) == 0)
			return conf_err(file, toks[0].line,
				       "duplicate HostName '%s' (first at %s:%d)",
				       h.name, c->hosts[i].file, c->hosts[i].line);
	rv = parse_keys(host_keys, ARRAY_SIZE(host_keys), &h, "HostName",
			toks, n, file, &seen);
	if (rv != FALCON_OK)
		return rv;
	if (h.chassis[0] == '\0')
		return conf_err(file, h.line, "HostName '%s': Chassis= is required", h.name);
	if (h.nports < 1)
		return conf_err(file, h.line, "HostName '%s': Port= is required", h.name);
	if (h.nadapters < 1)
		return conf_err(file, h.line, "HostName '%s': Adapter= is required", h.name);
	na = realloc(c->hosts, (c->nhosts + 1) * sizeof(*na));
	if (na == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "out of memory");
	c->hosts = na;
	c->hosts[c->nhosts++] = h;
	return FALCON_OK;
}

static falcon_err_t parse_partition(struct parser *p, struct conf_tok *toks, size_t n,
				    const char *file)
{
	struct falcon_conf *c = p->conf;
	struct falcon_partition_conf pc = p->defaults, *na;
	uint32_t seen = 1;
	falcon_err_t rv;
	size_t i;
	bool is_default;

	pc.file = file;
	pc.line = toks[0].line;
	rv = set_value(&partition_keys[0], &pc, toks[0].eq + 1, file, toks[0].line);
	if (rv != FALCON_OK)
		return rv;
	is_default = strcasecmp(pc.name, "DEFAULT") == 0;
	if (is_default)
		strcpy(pc.name, "DEFAULT");
	for (i = 0; i < c->npartitions && !is_default; i++)
		if (strcmp(c->partitions[i].name, pc.name) == 0)
			return conf_err(file, toks[0].line,
				       "duplicate PartitionName '%s' (first at %s:%d)",
				       pc.name, c->partitions[i].file, c->partitions[i].line);
	rv = parse_keys(partition_keys, ARRAY_SIZE(partition_keys), &pc, "PartitionName",
			toks, n, file, &seen);
	if (rv != FALCON_OK)
		return rv;
	if (is_default) {
		/* Later DEFAULT lines update the one entry in place, as in slurm.conf. */
		p->defaults = pc;
		for (i = 0; i < c->npartitions; i++)
			if (strcmp(c->partitions[i].name, "DEFAULT") == 0) {
				c->partitions[i] = pc;
				return FALCON_OK;
			}
	}
	na = realloc(c->partitions, (c->npartitions + 1) * sizeof(*na));
	if (na == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "out of memory");
	c->partitions = na;
	c->partitions[c->npartitions++] = pc;
	return FALCON_OK;
}

/* ---------------------------------------------------------------- */
/* Lines */

static falcon_err_t process_line(struct parser *p, struct conf_tok *toks, size_t n,
				 const char *file)
{
	char b[CONF_MAX_NAME_SHOWN];
	falcon_err_t rv;
	size_t i;
	int kind;

	if (toks[0].eq == NULL)
		return conf_err(file, toks[0].line, "expected Key=Value, got '%s'",
			       conf_shown(toks[0].text, b, sizeof(b)));
	*toks[0].eq = '\0';
	kind = object_kind(toks[0].text);
	if (kind >= 0 && toks[0].eq[1] == '\0')
		return conf_err(file, toks[0].line, "%s: empty value", object_keys[kind]);
	switch (kind) {
	case 0:
		return parse_chassis(p, toks, n, file);
	case 1:
		return parse_host(p, toks, n, file);
	case 2:
		return parse_partition(p, toks, n, file);
	default:
		break;
	}
	*toks[0].eq = '=';
	for (i = 0; i < n; i++) {
		const struct keydef *k;
		size_t gi;

		if (toks[i].eq == NULL)
			return conf_err(file, toks[i].line, "expected Key=Value, got '%s'",
				       conf_shown(toks[i].text, b, sizeof(b)));
		*toks[i].eq = '\0';
		if ((kind = object_kind(toks[i].text)) >= 0)
			return conf_err(file, toks[i].line, "%s= must begin its line",
				       object_keys[kind]);
		k = key_find(global_keys, ARRAY_SIZE(global_keys), toks[i].text);
		if (k == NULL)
			return conf_err(file, toks[i].line, "unknown key '%s'",
				       conf_shown(toks[i].text, b, sizeof(b)));
		gi = (size_t)(k - global_keys);
		if (p->gfile[gi] != NULL)
			return conf_err(file, toks[i].line, "%s: set twice (first at %s:%d)",
				       k->name, p->gfile[gi], p->gline[gi]);
		if (toks[i].eq[1] == '\0')
			return conf_err(file, toks[i].line, "%s: empty value", k->name);
		rv = set_value(k, p->conf, toks[i].eq + 1, file, toks[i].line);
		if (rv != FALCON_OK)
			return rv;
		p->gfile[gi] = file;
		p->gline[gi] = toks[i].line;
	}
	return FALCON_OK;
}

/* ---------------------------------------------------------------- */
/* Cross-checks and defaults */

static falcon_err_t validate(struct falcon_conf *c)
{
	size_t i, j;
	int a, b;

	for (i = 0; i < c->nhosts; i++) {
		const struct falcon_host_conf *h = &c->hosts[i];

		if (falcon_conf_chassis(c, h->chassis) == NULL)
			return conf_err(h->file, h->line,
				       "HostName '%s': Chassis '%s' is not defined by a "
				       "ChassisName line", h->name, h->chassis);
		/* One cable per host port: two hosts cannot share a port. */
		for (j = 0; j < i; j++) {
			const struct falcon_host_conf *o = &c->hosts[j];

			if (strcmp(o->chassis, h->chassis) != 0)
				continue;
			for (a = 0; a < h->nports; a++)
				for (b = 0; b < o->nports; b++)
					if (strcmp(h->ports[a], o->ports[b]) == 0)
						return conf_err(h->file, h->line,
							       "HostName '%s': Port %s of chassis "
							       "'%s' is already used by HostName "
							       "'%s' (%s:%d)", h->name, h->ports[a],
							       h->chassis, o->name, o->file, o->line);
		}
	}
	return FALCON_OK;
}

static falcon_err_t set_default(char **field, const char *v)
{
	if (*field != NULL)
		return FALCON_OK;
	return set_string(field, v);
}

static falcon_err_t apply_defaults(struct falcon_conf *c)
{
	falcon_err_t rv;

	if ((rv = set_default(&c->state_dir, "/var/lib/falcon")) != FALCON_OK ||
	    (rv = set_default(&c->listen_address, "127.0.0.1:6830")) != FALCON_OK ||
	    (rv = set_default(&c->sysfs_root, "/sys")) != FALCON_OK ||
	    (rv = set_default(&c->slurm_user, "slurm")) != FALCON_OK ||
	    (rv = set_default(&c->run_dir, "/run/falcon")) != FALCON_OK)
		return rv;
	if (c->falcond_url == NULL &&
	    asprintf(&c->falcond_url, "http://%s", c->listen_address) < 0) {
		c->falcond_url = NULL;
		return falcon_err_set(FALCON_ERR_NOMEM, "out of memory");
	}
	return FALCON_OK;
}

static struct falcon_conf *conf_new(void)
{
	struct falcon_conf *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->prolog_timeout = 300;
	c->epilog_timeout = 120;
	c->rescan_timeout = 30;
	c->check_budget = 60;
	c->chassis_retries = 3;
	return c;
}

/* Run a parse (file from path, or text named name) to a complete conf. */
static falcon_err_t load(const char *path, const char *name, const char *text,
			 struct falcon_conf **out)
{
	struct parser p;
	struct falcon_conf *c = NULL;
	struct conf_lex *lx = NULL;
	struct conf_tok *toks;
	falcon_err_t rv;
	size_t n;

	memset(&p, 0, sizeof(p));
	p.defaults = builtin_partition;
	*out = NULL;
	c = p.conf = conf_new();
	if (c == NULL || (c->path = strdup(path ? path : name)) == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "out of memory");
		goto fail;
	}
	if (text == NULL)
		rv = conf_lex_open_file(path, &lx);
	else
		rv = conf_lex_open_text(name, text, &lx);
	while (rv == FALCON_OK && (rv = conf_lex_next(lx, &toks, &n)) == FALCON_OK && n > 0)
		rv = process_line(&p, toks, n, toks[0].file);
	if (rv != FALCON_OK)
		goto fail;
	conf_lex_take_files(lx, &c->files, &c->nfiles);
	if ((rv = validate(c)) != FALCON_OK || (rv = apply_defaults(c)) != FALCON_OK)
		goto fail;
	*out = c;
	c = NULL;
fail:
	conf_lex_free(lx);
	falcon_conf_free(c);
	return rv;
}

falcon_err_t falcon_conf_load(const char *path, struct falcon_conf **out)
{
	if (path == NULL || out == NULL)
		return falcon_err_set(FALCON_ERR_INVAL, "falcon_conf_load: NULL argument");
	return load(path, NULL, NULL, out);
}

falcon_err_t falcon_conf_parse(const char *name, const char *text,
			       struct falcon_conf **out)
{
	if (name == NULL || text == NULL || out == NULL)
		return falcon_err_set(FALCON_ERR_INVAL, "falcon_conf_parse: NULL argument");
	return load(NULL, name, text, out);
}

void falcon_conf_free(struct falcon_conf *c)
{
	size_t i;

	if (c == NULL)
		return;
	free(c->path);
	free(c->state_dir);
	free(c->listen_address);
	free(c->falcond_url);
	free(c->sysfs_root);
	free(c->slurm_user);
	free(c->munge_socket);
	free(c->run_dir);
	free(c->ncclcheck);
	for (i = 0; i < c->nchassis; i++) {
		free(c->chassis[i].url);
		free(c->chassis[i].credentials_file);
		free(c->chassis[i].ca_file);
	}
	free(c->chassis);
	free(c->hosts);
	free(c->partitions);
	for (i = 0; i < c->nfiles; i++)
		free(c->files[i]);
	free(c->files);
	free(c);
}

/* ---------------------------------------------------------------- */
/* Lookups */

const char *falcon_conf_path(const char *cli)
{
	const char *env;

	if (cli != NULL)
		return cli;
	env = getenv("FALCON_CONF");
	if (env != NULL && *env != '\0')
		return env;
	return FALCON_SYSCONFDIR "/falcon/falcon.conf";
}

const struct falcon_host_conf *falcon_conf_host(const struct falcon_conf *conf,
						const char *name)
{
	size_t i, short_len;
	const char *dot;

	if (conf == NULL || name == NULL)
		return NULL;
	for (i = 0; i < conf->nhosts; i++)
		if (strcmp(conf->hosts[i].name, name) == 0)
			return &conf->hosts[i];
	/* "node1.example.com" matches HostName=node1 */
	dot = strchr(name, '.');
	if (dot == NULL || dot == name)
		return NULL;
	short_len = (size_t)(dot - name);
	for (i = 0; i < conf->nhosts; i++)
		if (strlen(conf->hosts[i].name) == short_len &&
		    strncmp(conf->hosts[i].name, name, short_len) == 0)
			return &conf->hosts[i];
	return NULL;
}

const struct falcon_chassis_conf *falcon_conf_chassis(const struct falcon_conf *conf,
						      const char *name)
{
	size_t i;

	if (conf == NULL || name == NULL)
		return NULL;
	for (i = 0; i < conf->nchassis; i++)
		if (strcmp(conf->chassis[i].name, name) == 0)
			return &conf->chassis[i];
	return NULL;
}

const struct falcon_partition_conf *falcon_conf_partition(const struct falcon_conf *conf,
							  const char *name)
{
	const struct falcon_partition_conf *def = &builtin_partition;
	size_t i;

	if (conf == NULL)
		return def;
	for (i = 0; i < conf->npartitions; i++) {
		if (name != NULL && strcmp(conf->partitions[i].name, name) == 0)
			return &conf->partitions[i];
		if (strcmp(conf->partitions[i].name, "DEFAULT") == 0)
			def = &conf->partitions[i];
	}
	return def;
}

char *falcon_conf_sysfs_root(const struct falcon_conf *conf, const char *host,
			     char *buf, size_t n)
{
	const char *root = conf != NULL && conf->sysfs_root != NULL ? conf->sysfs_root : "/sys";
	char hbuf[256];
	size_t hlen, len = 0;
	const char *s;

	if (buf == NULL || n == 0)
		return NULL;
	if (host == NULL) {
		if (gethostname(hbuf, sizeof(hbuf)) != 0)
			return NULL;
		hbuf[sizeof(hbuf) - 1] = '\0';
		host = hbuf;
	}
	hlen = strcspn(host, ".");
	for (s = root; *s != '\0'; s++) {
		if (s[0] == '%' && s[1] == 'h') {
			if (len + hlen >= n)
				return NULL;
			memcpy(buf + len, host, hlen);
			len += hlen;
			s++;
			continue;
		}
		if (len + 1 >= n)
			return NULL;
		buf[len++] = *s;
	}
	buf[len] = '\0';
	return buf;
}
