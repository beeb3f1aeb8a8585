/*
 * conf.c - falcon.conf(5): the configuration parser shared by every program.
 *
 * conf_lex.c turns the files (Includes followed) into logical lines of
 * words, with the syntax of slurm.conf(5); this file gives the words their
 * meaning.  A word is Key=Value; a line whose first word is ChassisName=,
 * HostName= or PartitionName= defines one object, any other line sets
 * global keys.  Keys are case-insensitive.  Each kind of line has a table
 * of its keys ({key, value type, offset in its struct}, in the spirit of
 * Slurm's s_p_options_t in src/common/parse_config.h), and each value type
 * one reader that checks it and stores it at that offset.
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

/* ---------------------------------------------------------------- */
/* Words: the one table of an enum's words, in enum order */

struct words {
	const char *const *word;
	unsigned n;
};

static const char *words_str(const struct words *w, unsigned v)
{
	return v < w->n ? w->word[v] : "unknown";
}

static int words_find(const struct words *w, const char *s)
{
	unsigned i;

	if (s == NULL)
		return -1;
	for (i = 0; i < w->n; i++)
		if (strcasecmp(w->word[i], s) == 0)
			return (int)i;
	return -1;
}

/* The words as "a|b|c" into buf of size n (cut short if it does not fit). */
static const char *words_list(const struct words *w, char *buf, size_t n)
{
	size_t len = 0;
	unsigned i;

	buf[0] = '\0';
	for (i = 0; i < w->n && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? "|" : "", w->word[i]);
	return buf;
}

/* One word of w (any case) to its index; FALCON_ERR_INVAL "expected a|b|c". */
static falcon_err_t words_from_str(const struct words *w, const char *s, unsigned *out)
{
	char list[128];
	int i = words_find(w, s);

	if (i < 0)
		return falcon_err_set(FALCON_ERR_INVAL, "expected %s, got '%s'",
				      words_list(w, list, sizeof(list)), s ? s : "(null)");
	*out = (unsigned)i;
	return FALCON_OK;
}

/*
 * CONF_WORDS(name, type, words...) - the words of an enum type (in its
 * order) as name_words, and the public falcon_<name>_str() and
 * falcon_<name>_from_str() of conf.h over them.  The enum is stored as an
 * unsigned by the V_ENUM reader below, hence the size check.
 */
#define CONF_WORDS(name, type, ...)                                             \
	_Static_assert(sizeof(type) == sizeof(unsigned), #type " is not unsigned-sized"); \
	static const char *const name##_word[] = { __VA_ARGS__ };               \
	static const struct words name##_words = { name##_word, ARRAY_SIZE(name##_word) }; \
	const char *falcon_##name##_str(type v)                                  \
	{                                                                        \
		return words_str(&name##_words, (unsigned)v);                    \
	}                                                                        \
	falcon_err_t falcon_##name##_from_str(const char *s, type *out)          \
	{                                                                        \
		unsigned i;                                                      \
		falcon_err_t rv = words_from_str(&name##_words, s, &i);          \
									 \
		if (rv == FALCON_OK)                                             \
			*out = (type)i;                                          \
		return rv;                                                       \
	}

CONF_WORDS(place, falcon_place_t, "pack", "spread", "any")
CONF_WORDS(check, falcon_check_t, "quick", "full", "off")
CONF_WORDS(action, falcon_action_t, "drain", "fail", "warn")
CONF_WORDS(backend, falcon_backend_t, "redfish-fabric", "redfish-composition", "auto")
CONF_WORDS(mode, falcon_mode_t, "standard", "advanced")
CONF_WORDS(events, falcon_events_t, "auto", "sse", "subscription")
CONF_WORDS(cvd, falcon_cvd_t, "uuid", "index")

/* Table III of the paper, in falcon_conf_topo_t bit order. */
static const char *const topo_word[] = {
	"localGPUs", "hybridGPUs", "falconGPUs", "localNVMe", "falconNVMe"
};
static const struct words topo_words = { topo_word, ARRAY_SIZE(topo_word) };
#define TOPO_ALL_WORD "ALL"   /* the word for all of them */

const char *falcon_conf_topo_label_str(unsigned label)
{
	unsigned i;

	for (i = 0; i < topo_words.n; i++)
		if (label == (1u << i))
			return topo_words.word[i];
	return "";
}

falcon_err_t falcon_conf_topo_label_from_str(const char *s, unsigned *out)
{
	char list[128];
	int i;

	if (s != NULL && strcasecmp(s, TOPO_ALL_WORD) == 0) {
		*out = FALCON_CONF_TOPO_ALL;
		return FALCON_OK;
	}
	i = words_find(&topo_words, s);
	if (i < 0)
		return falcon_err_set(FALCON_ERR_INVAL, "expected %s|" TOPO_ALL_WORD ", got '%s'",
				      words_list(&topo_words, list, sizeof(list)),
				      s ? s : "(null)");
	*out = 1u << i;
	return FALCON_OK;
}

char *falcon_conf_topo_set_str(unsigned set, char *buf, size_t n)
{
	size_t len = 0;
	unsigned i;

	if (n == 0)
		return NULL;
	buf[0] = '\0';
	for (i = 0; i < topo_words.n; i++) {
		int w;

		if (!(set & (1u << i)))
			continue;
		w = snprintf(buf + len, n - len, "%s%s", len ? "," : "", topo_words.word[i]);
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
	.allow_topologies = FALCON_CONF_TOPO_ALL,
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
	.change_timeout_s = 120, /* FALCON_RF_CHANGE_TIMEOUT_MS (lib/chassis/redfish.h) */
	.parallel_ports = true,
};

/* ---------------------------------------------------------------- */
/* Value checks */

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

static bool valid_path(const char *s)
{
	return s[0] == '/';
}

/* Host port H1..H4 (any case) to "H1".."H4" in out[FALCON_NAME_LEN]. */
static bool norm_port(const char *in, char *out)
{
	if (!((in[0] == 'H' || in[0] == 'h') && in[1] >= '1' &&
	      in[1] <= '0' + FALCON_MAX_PORTS && in[2] == '\0'))
		return false;
	snprintf(out, FALCON_NAME_LEN, "H%c", in[1]);
	return true;
}

/* PCI address to its normal form in out[FALCON_BDF_LEN]. */
static bool norm_bdf(const char *in, char *out)
{
	return falcon_bdf_normalise(in, out) == FALCON_OK;
}

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

/* ---------------------------------------------------------------- */
/* Value types: one reader each, storing at the key's offset */

enum vtype {
	V_NAME,      /* [A-Za-z0-9._-]{1,63} into char[FALCON_NAME_LEN] */
	V_STR,       /* any non-empty string, heap */
	V_PATH,      /* absolute path, heap */
	V_URL,       /* http:// or https:// URL, heap */
	V_URLS,      /* ',' or blank separated list of V_URL, heap, kept ','-joined */
	V_HOSTPORT,  /* host:port, heap */
	V_INT,       /* int in [min, max] */
	V_GBPS,      /* double in [min, max] */
	V_BOOL,      /* yes|no into bool */
	V_ENUM,      /* one of the key's words into its (unsigned-sized) enum */
	V_TOPOS,     /* AllowTopologies list into unsigned */
	V_PORTS,     /* 1-4 host ports into char[4][FALCON_NAME_LEN], count int */
	V_ADAPTERS,  /* 1-4 PCI addresses into char[4][FALCON_BDF_LEN], count int */
};

/* One key of a line: the table row of a config object. */
struct keydef {
	const char *name;
	enum vtype type;
	size_t off;                 /* the value's offset in its struct */
	long min, max;              /* V_INT, V_GBPS: the range */
	const struct words *words;  /* V_ENUM: the words */
	size_t count_off;           /* V_PORTS, V_ADAPTERS: offset of the int count */
	bool required;              /* an object line must give it */
};

struct vtypedef;
typedef falcon_err_t read_fn(const struct keydef *k, const struct vtypedef *vt,
			     void *obj, const struct conf_tok *t);

/* What a value type checks and what its messages say it expects. */
struct vtypedef {
	read_fn *read;
	bool (*ok)(const char *v);               /* V_NAME, V_STR...: NULL = any */
	bool (*norm)(const char *in, char *out); /* lists: check and normalise one */
	const char *what;          /* "expected WHAT, got ..." */
	const char *item_what;     /* lists: the same for one element */
	const char *dup;           /* lists: "KEY: DUP<element> listed twice" */
	size_t elem;               /* lists: size of one element */
};

static void *at(void *obj, size_t off)
{
	return (char *)obj + off;
}

/* "KEY: expected WHAT, got 'V'" at t. */
static falcon_err_t expected(const struct conf_tok *t, const char *key, const char *what,
			     const char *v)
{
	char b[CONF_LEX_SHOWN];

	return conf_err(t->file, t->line, "%s: expected %s, got '%s'", key, what,
			conf_shown(v, b, sizeof(b)));
}

static falcon_err_t read_name(const struct keydef *k, const struct vtypedef *vt,
			      void *obj, const struct conf_tok *t)
{
	if (!vt->ok(t->eq + 1))
		return expected(t, k->name, vt->what, t->eq + 1);
	falcon_strlcpy(at(obj, k->off), t->eq + 1, FALCON_NAME_LEN);
	return FALCON_OK;
}

static falcon_err_t read_str(const struct keydef *k, const struct vtypedef *vt,
			     void *obj, const struct conf_tok *t)
{
	if (vt->ok != NULL && !vt->ok(t->eq + 1))
		return expected(t, k->name, vt->what, t->eq + 1);
	return falcon_str_set(at(obj, k->off), t->eq + 1);
}

static falcon_err_t range_error(const struct keydef *k, const struct vtypedef *vt,
				const struct conf_tok *t)
{
	char what[64];

	snprintf(what, sizeof(what), "%s in [%ld, %ld]", vt->what, k->min, k->max);
	return expected(t, k->name, what, t->eq + 1);
}

static falcon_err_t read_int(const struct keydef *k, const struct vtypedef *vt,
			     void *obj, const struct conf_tok *t)
{
	long l;

	if (falcon_strtol(t->eq + 1, 10, k->min, k->max, &l) != FALCON_OK)
		return range_error(k, vt, t);
	*(int *)at(obj, k->off) = (int)l;
	return FALCON_OK;
}

static falcon_err_t read_gbps(const struct keydef *k, const struct vtypedef *vt,
			      void *obj, const struct conf_tok *t)
{
	double d;

	if (falcon_strtod(t->eq + 1, (double)k->min, (double)k->max, &d) != FALCON_OK)
		return range_error(k, vt, t);
	*(double *)at(obj, k->off) = d;
	return FALCON_OK;
}

static falcon_err_t read_bool(const struct keydef *k, const struct vtypedef *vt,
			      void *obj, const struct conf_tok *t)
{
	int b = parse_bool(t->eq + 1);

	if (b < 0)
		return expected(t, k->name, vt->what, t->eq + 1);
	*(bool *)at(obj, k->off) = b == 1;
	return FALCON_OK;
}

static falcon_err_t read_enum(const struct keydef *k, const struct vtypedef *vt,
			      void *obj, const struct conf_tok *t)
{
	int i = words_find(k->words, t->eq + 1);
	char list[128];

	(void)vt;
	if (i < 0)
		return expected(t, k->name, words_list(k->words, list, sizeof(list)), t->eq + 1);
	*(unsigned *)at(obj, k->off) = (unsigned)i;
	return FALCON_OK;
}

static falcon_err_t read_topos(const struct keydef *k, const struct vtypedef *vt,
			       void *obj, const struct conf_tok *t)
{
	unsigned set = 0, bit;
	char *copy = strdup(t->eq + 1), *p, *c;
	char list[128], what[160];
	falcon_err_t rv = FALCON_OK;

	(void)vt;
	if (copy == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "out of memory");
	for (p = copy;; p = c + 1) {
		c = strchr(p, ',');
		if (c != NULL)
			*c = '\0';
		if (falcon_conf_topo_label_from_str(p, &bit) != FALCON_OK) {
			snprintf(what, sizeof(what), "a ',' list of %s or " TOPO_ALL_WORD,
				 words_list(&topo_words, list, sizeof(list)));
			rv = expected(t, k->name, what, t->eq + 1);
			break;
		}
		set |= bit;
		if (c == NULL)
			break;
	}
	free(copy);
	if (rv == FALCON_OK)
		*(unsigned *)at(obj, k->off) = set;
	return rv;
}

/*
 * read_urls - a list of URLs separated by ',' or blanks (blanks need the
 * value "double-quoted", conf_lex.h), each checked by vt->ok; stored
 * ','-joined (falcon_client_new() splits it again).  An empty element, a
 * bad one or a list of more than FALCON_MAX_URLS is an error naming it.
 */
static falcon_err_t read_urls(const struct keydef *k, const struct vtypedef *vt,
			      void *obj, const struct conf_tok *t)
{
	char *copy = strdup(t->eq + 1), *joined = NULL, *p, *save = NULL;
	falcon_err_t rv = FALCON_OK;
	size_t len = 0, n = 0;

	if (copy == NULL || (joined = calloc(1, strlen(t->eq + 1) + 1)) == NULL) {
		free(copy);
		return falcon_err_set(FALCON_ERR_NOMEM, "out of memory");
	}
	for (p = strtok_r(copy, ", \t", &save); p != NULL; p = strtok_r(NULL, ", \t", &save)) {
		if (!vt->ok(p)) {
			rv = expected(t, k->name, vt->item_what, p);
			break;
		}
		if (++n > FALCON_MAX_URLS) {
			rv = conf_err(t->file, t->line, "%s: more than %d URLs", k->name,
				      FALCON_MAX_URLS);
			break;
		}
		len += (size_t)sprintf(joined + len, "%s%s", len ? "," : "", p);
	}
	if (rv == FALCON_OK && n == 0)
		rv = expected(t, k->name, vt->what, t->eq + 1);
	if (rv == FALCON_OK)
		rv = falcon_str_set(at(obj, k->off), joined);
	free(copy);
	free(joined);
	return rv;
}

/* A ',' list of 1 to FALCON_MAX_PORTS distinct elements, each vt->norm()ed. */
static falcon_err_t read_list(const struct keydef *k, const struct vtypedef *vt,
			      void *obj, const struct conf_tok *t)
{
	char *items[FALCON_MAX_PORTS + 1], *copy = strdup(t->eq + 1), *out = at(obj, k->off);
	falcon_err_t rv = FALCON_OK;
	int i, j, n;

	if (copy == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "out of memory");
	n = split_list(copy, items, FALCON_MAX_PORTS);
	if (n < 0)
		rv = expected(t, k->name, vt->what, t->eq + 1);
	for (i = 0; rv == FALCON_OK && i < n; i++) {
		char *item = out + (size_t)i * vt->elem;

		if (!vt->norm(items[i], item)) {
			rv = expected(t, k->name, vt->item_what, items[i]);
			break;
		}
		for (j = 0; j < i; j++)
			if (strcmp(item, out + (size_t)j * vt->elem) == 0) {
				rv = conf_err(t->file, t->line, "%s: %s%s listed twice",
					      k->name, vt->dup, item);
				break;
			}
	}
	if (rv == FALCON_OK)
		*(int *)at(obj, k->count_off) = n;
	free(copy);
	return rv;
}

static const struct vtypedef vtypes[] = {
	[V_NAME] = { .read = read_name, .ok = valid_name,
		     .what = "a name of 1-63 characters [A-Za-z0-9._-]" },
	[V_STR] = { .read = read_str },
	[V_PATH] = { .read = read_str, .ok = valid_path, .what = "an absolute path" },
	[V_URL] = { .read = read_str, .ok = valid_url, .what = "an http:// or https:// URL" },
	[V_URLS] = { .read = read_urls, .ok = valid_url,
		     .what = "a ',' or blank separated list of http:// or https:// URLs",
		     .item_what = "an http:// or https:// URL" },
	[V_HOSTPORT] = { .read = read_str, .ok = valid_hostport,
			 .what = "HOST:PORT with PORT in [1, 65535]" },
	[V_INT] = { .read = read_int, .what = "an integer" },
	[V_GBPS] = { .read = read_gbps, .what = "a bandwidth in GB/s" },
	[V_BOOL] = { .read = read_bool, .what = "yes|no" },
	[V_ENUM] = { .read = read_enum },
	[V_TOPOS] = { .read = read_topos },
	[V_PORTS] = { .read = read_list, .norm = norm_port,
		      .what = "a ',' list of 1 to 4 host ports H1..H4",
		      .item_what = "a host port H1..H4", .dup = "host port ",
		      .elem = FALCON_NAME_LEN },
	[V_ADAPTERS] = { .read = read_list, .norm = norm_bdf,
			 .what = "a ',' list of 1 to 4 PCI addresses",
			 .item_what = "a PCI address [DDDD:]BB:DD.F", .dup = "",
			 .elem = FALCON_BDF_LEN },
};

/* Read t's value (after its '=', which may be modified) into obj for k. */
static falcon_err_t set_value(const struct keydef *k, void *obj, const struct conf_tok *t)
{
	const struct vtypedef *vt = &vtypes[k->type];

	return vt->read(k, vt, obj, t);
}

/* ---------------------------------------------------------------- */
/* Key tables, one per kind of line */

#define G(f) .off = offsetof(struct falcon_conf, f)
static const struct keydef global_keys[] = {
	{ .name = "StateDir", .type = V_PATH, G(state_dir) },
	{ .name = "AdviceFile", .type = V_PATH, G(advice_file) },
	{ .name = "ListenAddress", .type = V_HOSTPORT, G(listen_address) },
	{ .name = "StatusListen", .type = V_HOSTPORT, G(status_listen) },
	{ .name = "FalcondUrl", .type = V_URLS, G(falcond_url) },
	{ .name = "SysfsRoot", .type = V_PATH, G(sysfs_root) },
	{ .name = "CudaVisibleDevices", .type = V_ENUM, G(cuda_visible), .words = &cvd_words },
	{ .name = "SlurmUser", .type = V_STR, G(slurm_user) },
	{ .name = "MungeSocket", .type = V_PATH, G(munge_socket) },
	{ .name = "RunDir", .type = V_PATH, G(run_dir) },
	{ .name = "NcclCheck", .type = V_PATH, G(ncclcheck) },
	{ .name = "PrologTimeout", .type = V_INT, G(prolog_timeout), .min = 1, .max = 86400 },
	{ .name = "EpilogTimeout", .type = V_INT, G(epilog_timeout), .min = 1, .max = 86400 },
	{ .name = "RescanTimeout", .type = V_INT, G(rescan_timeout), .min = 1, .max = 3600 },
	{ .name = "CheckBudget", .type = V_INT, G(check_budget), .min = 1, .max = 3600 },
	{ .name = "ChassisRetries", .type = V_INT, G(chassis_retries), .min = 0, .max = 10 },
	{ .name = "ComposeWait", .type = V_INT, G(compose_wait), .min = 1, .max = 86400 },
	{ .name = "ReconcileInterval", .type = V_INT, G(reconcile_interval), .min = 0,
	  .max = 86400 },
	{ .name = "SettleTime", .type = V_INT, G(settle_time), .min = 1, .max = 3600 },
	{ .name = "InventoryRefresh", .type = V_INT, G(inventory_refresh), .min = 0,
	  .max = 604800 },
	{ .name = "InventoryReuse", .type = V_INT, G(inventory_reuse), .min = 0, .max = 3600 },
	{ .name = "UnreachableHold", .type = V_INT, G(unreachable_hold), .min = 0, .max = 86400 },
	{ .name = "KeepWarmReset", .type = V_PATH, G(keep_warm_reset) },
	{ .name = "EventListen", .type = V_HOSTPORT, G(event_listen) },
	{ .name = "EventUrl", .type = V_URL, G(event_url) },
	{ .name = "EventCertFile", .type = V_PATH, G(event_cert_file) },
	{ .name = "EventKeyFile", .type = V_PATH, G(event_key_file) },
};
#undef G

/* keys[0] of an object's table is its first key, naming it. */
#define C(f) .off = offsetof(struct falcon_chassis_conf, f)
static const struct keydef chassis_keys[] = {
	{ .name = "ChassisName", .type = V_NAME, C(name) },
	{ .name = "Url", .type = V_URL, C(url), .required = true },
	{ .name = "Backend", .type = V_ENUM, C(backend), .words = &backend_words },
	{ .name = "CredentialsFile", .type = V_PATH, C(credentials_file) },
	{ .name = "Mode", .type = V_ENUM, C(mode), .words = &mode_words },
	{ .name = "CAFile", .type = V_PATH, C(ca_file) },
	{ .name = "Insecure", .type = V_BOOL, C(insecure) },
	{ .name = "Timeout", .type = V_INT, C(timeout_s), .min = 1, .max = 600 },
	{ .name = "ChangeTimeout", .type = V_INT, C(change_timeout_s), .min = 1, .max = 3600 },
	{ .name = "ParallelPorts", .type = V_BOOL, C(parallel_ports) },
	{ .name = "Events", .type = V_ENUM, C(events), .words = &events_words },
};
#undef C

#define H(f) offsetof(struct falcon_host_conf, f)
static const struct keydef host_keys[] = {
	{ .name = "HostName", .type = V_NAME, .off = H(name) },
	{ .name = "Chassis", .type = V_NAME, .off = H(chassis), .required = true },
	{ .name = "Port", .type = V_PORTS, .off = H(ports), .count_off = H(nports),
	  .required = true },
	{ .name = "Adapter", .type = V_ADAPTERS, .off = H(adapters),
	  .count_off = H(nadapters), .required = true },
};
#undef H

/* A Falcon 4016 has 2 drawers x 8 slots: at most 16 devices of a kind. */
#define P(f) .off = offsetof(struct falcon_partition_conf, f)
static const struct keydef partition_keys[] = {
	{ .name = "PartitionName", .type = V_NAME, P(name) },
	{ .name = "AllowTopologies", .type = V_TOPOS, P(allow_topologies) },
	{ .name = "MaxFalconGPUs", .type = V_INT, P(max_falcon_gpus), .min = 0, .max = 16 },
	{ .name = "MaxFalconNVMe", .type = V_INT, P(max_falcon_nvme), .min = 0, .max = 16 },
	{ .name = "Place", .type = V_ENUM, P(place), .words = &place_words },
	{ .name = "Check", .type = V_ENUM, P(check), .words = &check_words },
	{ .name = "CheckAction", .type = V_ENUM, P(check_action), .words = &action_words },
	{ .name = "MinBusBW", .type = V_GBPS, P(min_busbw), .min = 0, .max = 10000 },
	{ .name = "MinP2PBW_FF", .type = V_GBPS, P(min_p2p_bw_ff), .min = 0, .max = 10000 },
	{ .name = "MinP2PBW_FL", .type = V_GBPS, P(min_p2p_bw_fl), .min = 0, .max = 10000 },
	{ .name = "MinP2PBW_LL", .type = V_GBPS, P(min_p2p_bw_ll), .min = 0, .max = 10000 },
	{ .name = "KeepWarm", .type = V_INT, P(keep_warm), .min = 0, .max = 86400 },
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
/* Objects */

struct parser {
	struct falcon_conf *conf;
	struct falcon_partition_conf defaults; /* current PartitionName=DEFAULT */
	const char *gfile[ARRAY_SIZE(global_keys)]; /* where each global was set */
	int gline[ARRAY_SIZE(global_keys)];
};

/* A kind of object line: its table and what adds one to the conf. */
struct objdef {
	const char *key;            /* its first key, e.g. "ChassisName" */
	const struct keydef *keys;  /* keys[0] is key */
	size_t nkeys;
	falcon_err_t (*parse)(struct parser *p, const struct objdef *od,
			      struct conf_tok *toks, size_t n);
};

static falcon_err_t duplicate(const struct conf_tok *t, const char *kind, const char *name,
			      const char *file, int line)
{
	return conf_err(t->file, t->line, "duplicate %s '%s' (first at %s:%d)",
			kind, name, file, line);
}

/*
 * Read toks[1..n) of an object line (its name, toks[0], already read into
 * obj) with od's table; then check its required keys.
 */
static falcon_err_t parse_keys(const struct objdef *od, void *obj, struct conf_tok *toks,
			       size_t n)
{
	uint32_t seen = 1;
	falcon_err_t rv;
	size_t i;

	for (i = 1; i < n; i++) {
		const struct conf_tok *t = &toks[i];
		const struct keydef *k;
		char b[CONF_LEX_SHOWN];

		if (t->eq == NULL)
			return conf_err(t->file, t->line, "expected Key=Value, got '%s' (%s line)",
					conf_shown(t->text, b, sizeof(b)), od->key);
		*t->eq = '\0';
		k = key_find(od->keys, od->nkeys, t->text);
		if (k == NULL)
			return conf_err(t->file, t->line, "unknown key '%s' (%s line)",
					conf_shown(t->text, b, sizeof(b)), od->key);
		if (seen & (1u << (k - od->keys)))
			return conf_err(t->file, t->line, "%s: given twice on one %s line",
					k->name, od->key);
		seen |= 1u << (k - od->keys);
		if (t->eq[1] == '\0')
			return conf_err(t->file, t->line, "%s: empty value", k->name);
		if ((rv = set_value(k, obj, t)) != FALCON_OK)
			return rv;
	}
	for (i = 1; i < od->nkeys; i++)
		if (od->keys[i].required && !(seen & (1u << i)))
			return conf_err(toks[0].file, toks[0].line, "%s '%s': %s= is required",
					od->key, (const char *)at(obj, od->keys[0].off),
					od->keys[i].name);
	return FALCON_OK;
}

/*
 * append - item (size bytes) after the *n elements of the array whose
 * pointer is at arrp (realloc'd; *n counts it).  FALCON_ERR_NOMEM, array
 * untouched, when there is no memory.  APPEND(arr, n, item) for a typed
 * array.
 */
static falcon_err_t append(void *arrp, size_t *n, size_t size, const void *item)
{
	void *arr, *na;

	memcpy(&arr, arrp, sizeof(arr));
	na = realloc(arr, (*n + 1) * size);
	if (na == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "out of memory");
	memcpy((char *)na + *n * size, item, size);
	memcpy(arrp, &na, sizeof(na));
	(*n)++;
	return FALCON_OK;
}
#define APPEND(arr, n, item) append(&(arr), &(n), sizeof(*(arr)), &(item))

static falcon_err_t parse_chassis(struct parser *p, const struct objdef *od,
				  struct conf_tok *toks, size_t n)
{
	struct falcon_conf *c = p->conf;
	struct falcon_chassis_conf ch = builtin_chassis;
	falcon_err_t rv;
	size_t i;

	ch.file = toks[0].file;
	ch.line = toks[0].line;
	rv = set_value(&od->keys[0], &ch, &toks[0]);
	for (i = 0; rv == FALCON_OK && i < c->nchassis; i++)
		if (strcmp(c->chassis[i].name, ch.name) == 0)
			rv = duplicate(&toks[0], od->key, ch.name, c->chassis[i].file,
				       c->chassis[i].line);
	if (rv == FALCON_OK)
		rv = parse_keys(od, &ch, toks, n);
	if (rv == FALCON_OK && (rv = APPEND(c->chassis, c->nchassis, ch)) == FALCON_OK)
		return FALCON_OK;
	free(ch.url);
	free(ch.credentials_file);
	free(ch.ca_file);
	return rv;
}

static falcon_err_t parse_host(struct parser *p, const struct objdef *od,
			       struct conf_tok *toks, size_t n)
{
	struct falcon_conf *c = p->conf;
	struct falcon_host_conf h;
	falcon_err_t rv;
	size_t i;

	memset(&h, 0, sizeof(h));
	h.file = toks[0].file;
	h.line = toks[0].line;
	if ((rv = set_value(&od->keys[0], &h, &toks[0])) != FALCON_OK)
		return rv;
	for (i = 0; i < c->nhosts; i++)
		if (strcmp(c->hosts[i].name, h.name) == 0)
			return duplicate(&toks[0], od->key, h.name, c->hosts[i].file,
					 c->hosts[i].line);
	if ((rv = parse_keys(od, &h, toks, n)) != FALCON_OK)
		return rv;
	return APPEND(c->hosts, c->nhosts, h);
}

static falcon_err_t parse_partition(struct parser *p, const struct objdef *od,
				    struct conf_tok *toks, size_t n)
{
	struct falcon_conf *c = p->conf;
	struct falcon_partition_conf pc = p->defaults;
	falcon_err_t rv;
	size_t i;
	bool is_default;

	pc.file = toks[0].file;
	pc.line = toks[0].line;
	if ((rv = set_value(&od->keys[0], &pc, &toks[0])) != FALCON_OK)
		return rv;
	is_default = strcasecmp(pc.name, "DEFAULT") == 0;
	if (is_default)
		strcpy(pc.name, "DEFAULT");
	for (i = 0; i < c->npartitions && !is_default; i++)
		if (strcmp(c->partitions[i].name, pc.name) == 0)
			return duplicate(&toks[0], od->key, pc.name, c->partitions[i].file,
					 c->partitions[i].line);
	if ((rv = parse_keys(od, &pc, toks, n)) != FALCON_OK)
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
	return APPEND(c->partitions, c->npartitions, pc);
}

static const struct objdef objects[] = {
	{ "ChassisName", chassis_keys, ARRAY_SIZE(chassis_keys), parse_chassis },
	{ "HostName", host_keys, ARRAY_SIZE(host_keys), parse_host },
	{ "PartitionName", partition_keys, ARRAY_SIZE(partition_keys), parse_partition },
};

static const struct objdef *object_find(const char *key)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(objects); i++)
		if (strcasecmp(objects[i].key, key) == 0)
			return &objects[i];
	return NULL;
}

/* ---------------------------------------------------------------- */
/* Lines */

/* A line of global keys, each set at most once in all the files. */
static falcon_err_t parse_globals(struct parser *p, struct conf_tok *toks, size_t n)
{
	char b[CONF_LEX_SHOWN];
	falcon_err_t rv;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct conf_tok *t = &toks[i];
		const struct objdef *od;
		const struct keydef *k;
		size_t gi;

		if (t->eq == NULL)
			return conf_err(t->file, t->line, "expected Key=Value, got '%s'",
					conf_shown(t->text, b, sizeof(b)));
		*t->eq = '\0';
		if ((od = object_find(t->text)) != NULL)
			return conf_err(t->file, t->line, "%s= must begin its line", od->key);
		k = key_find(global_keys, ARRAY_SIZE(global_keys), t->text);
		if (k == NULL)
			return conf_err(t->file, t->line, "unknown key '%s'",
					conf_shown(t->text, b, sizeof(b)));
		gi = (size_t)(k - global_keys);
		if (p->gfile[gi] != NULL)
			return conf_err(t->file, t->line, "%s: set twice (first at %s:%d)",
					k->name, p->gfile[gi], p->gline[gi]);
		if (t->eq[1] == '\0')
			return conf_err(t->file, t->line, "%s: empty value", k->name);
		if ((rv = set_value(k, p->conf, t)) != FALCON_OK)
			return rv;
		p->gfile[gi] = t->file;
		p->gline[gi] = t->line;
	}
	return FALCON_OK;
}

/* One logical line (n >= 1 words, Includes already followed by the lexer). */
static falcon_err_t process_line(struct parser *p, struct conf_tok *toks, size_t n)
{
	char b[CONF_LEX_SHOWN];
	const struct objdef *od;

	if (toks[0].eq == NULL)
		return conf_err(toks[0].file, toks[0].line, "expected Key=Value, got '%s'",
				conf_shown(toks[0].text, b, sizeof(b)));
	*toks[0].eq = '\0';
	od = object_find(toks[0].text);
	if (od == NULL) {
		*toks[0].eq = '=';
		return parse_globals(p, toks, n);
	}
	if (toks[0].eq[1] == '\0')
		return conf_err(toks[0].file, toks[0].line, "%s: empty value", od->key);
	return od->parse(p, od, toks, n);
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
	/* the event listener: a certificate needs its key, and where chassis
	 * are to POST must be known (a wildcard address is no destination) */
	if ((c->event_cert_file == NULL) != (c->event_key_file == NULL))
		return falcon_err_set(FALCON_ERR_CONFIG, "%s: EventCertFile= and EventKeyFile= "
				      "go together", c->path ? c->path : "falcon.conf");
	if (c->event_listen == NULL && (c->event_url != NULL || c->event_cert_file != NULL))
		return falcon_err_set(FALCON_ERR_CONFIG, "%s: EventUrl= and EventCertFile= need "
				      "EventListen=", c->path ? c->path : "falcon.conf");
	if (c->event_listen != NULL && c->event_url == NULL &&
	    (strncmp(c->event_listen, "0.0.0.0:", 8) == 0 || strncmp(c->event_listen, "[::]:", 5) == 0 ||
	     strncmp(c->event_listen, ":::", 3) == 0))
		return falcon_err_set(FALCON_ERR_CONFIG, "%s: EventListen=%s listens on every "
				      "address: set EventUrl= to the URL chassis reach falcond by",
				      c->path ? c->path : "falcon.conf", c->event_listen);
	return FALCON_OK;
}

static falcon_err_t set_default(char **field, const char *v)
{
	if (*field != NULL)
		return FALCON_OK;
	return falcon_str_set(field, v);
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
	if (c->advice_file == NULL &&
	    asprintf(&c->advice_file, "%s/advice.json", c->state_dir) < 0) {
		c->advice_file = NULL;
		return falcon_err_set(FALCON_ERR_NOMEM, "out of memory");
	}
	if (c->falcond_url == NULL &&
	    asprintf(&c->falcond_url, "http://%s", c->listen_address) < 0) {
		c->falcond_url = NULL;
		return falcon_err_set(FALCON_ERR_NOMEM, "out of memory");
	}
	if (c->event_listen != NULL && c->event_url == NULL &&
	    asprintf(&c->event_url, "%s://%s", c->event_cert_file ? "https" : "http",
		     c->event_listen) < 0) {
		c->event_url = NULL;
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
	c->compose_wait = 90;
	c->reconcile_interval = 30;
	c->settle_time = 30;
	c->inventory_refresh = 3600;
	c->inventory_reuse = 60;
	c->unreachable_hold = 30;
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
		rv = process_line(&p, toks, n);
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
	free(c->advice_file);
	free(c->keep_warm_reset);
	free(c->listen_address);
	free(c->status_listen);
	free(c->falcond_url);
	free(c->sysfs_root);
	free(c->slurm_user);
	free(c->munge_socket);
	free(c->run_dir);
	free(c->ncclcheck);
	free(c->event_listen);
	free(c->event_url);
	free(c->event_cert_file);
	free(c->event_key_file);
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

bool falcon_conf_ncclcheck(const struct falcon_conf *conf, char *buf, size_t n)
{
	if (conf != NULL && conf->ncclcheck != NULL)
		snprintf(buf, n, "%s", conf->ncclcheck);
	else
		snprintf(buf, n, "%s/falcon-ncclcheck", FALCON_BINDIR);
	return access(buf, X_OK) == 0;
}

bool falcon_conf_check_missing(const struct falcon_conf *conf, const char *host,
			       char *msg, size_t n)
{
	const struct falcon_partition_conf *p = NULL, *def;
	char prog[4096];
	size_t i;

	msg[0] = '\0';
	if (conf == NULL || host == NULL || falcon_conf_host(conf, host) == NULL ||
	    falcon_conf_ncclcheck(conf, prog, sizeof(prog)))
		return false;
	def = falcon_conf_partition(conf, NULL);
	if (def->check != FALCON_CHECK_OFF)
		p = def;
	for (i = 0; p == NULL && i < conf->npartitions; i++)
		if (conf->partitions[i].check != FALCON_CHECK_OFF)
			p = &conf->partitions[i];
	if (p == NULL)
		return false;
	snprintf(msg, n, "partition %s has Check=%s but %s (NcclCheck=) is not installed on "
		 "host %s: every job's check there is skipped; install falcon-ncclcheck there or "
		 "set Check=off", p->name[0] ? p->name : "DEFAULT", falcon_check_str(p->check),
		 prog, host);
	return true;
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
