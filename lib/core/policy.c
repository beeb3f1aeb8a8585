/*
 * policy.c - partition policy of falcon.conf against a job's per-node
 * request, and the chassis pool license (see policy.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/policy.h"
#include "core/util.h"

unsigned falcon_policy_topologies(const struct falcon_job_req *req)
{
	unsigned t = 0;

	if (req->falcon_gpus > 0)
		t |= req->gpus > 0 ? FALCON_CONF_TOPO_HYBRIDGPUS : FALCON_CONF_TOPO_FALCONGPUS;
	else if (req->gpus > 0)
		t |= FALCON_CONF_TOPO_LOCALGPUS;
	if (req->falcon_nvme > 0)
		t |= FALCON_CONF_TOPO_FALCONNVME;
	return t;
}

/* The first rule of p that req breaks: 0 = none, else its number 1-4. */
enum { RULE_OK = 0, R_GPU_TOPO, R_GPU_MAX, R_NVME_TOPO, R_NVME_MAX };

static int broken_rule(const struct falcon_partition_conf *p, const struct falcon_job_req *req)
{
	unsigned t = falcon_policy_topologies(req);
	unsigned gpu = t & (FALCON_CONF_TOPO_LOCALGPUS | FALCON_CONF_TOPO_HYBRIDGPUS |
			    FALCON_CONF_TOPO_FALCONGPUS);

	if (gpu != 0 && !(p->allow_topologies & gpu))
		return R_GPU_TOPO;
	if (p->max_falcon_gpus >= 0 && req->falcon_gpus > p->max_falcon_gpus)
		return R_GPU_MAX;
	if ((t & FALCON_CONF_TOPO_FALCONNVME) &&
	    !(p->allow_topologies & FALCON_CONF_TOPO_FALCONNVME))
		return R_NVME_TOPO;
	if (p->max_falcon_nvme >= 0 && req->falcon_nvme > p->max_falcon_nvme)
		return R_NVME_MAX;
	return RULE_OK;
}

/* other_partition - the first named partition of conf, not p, that takes req. */
static const char *other_partition(const struct falcon_conf *conf,
				   falcon_policy_known_fn known,
				   const struct falcon_partition_conf *p,
				   const struct falcon_job_req *req)
{
	size_t i;

	if (conf == NULL)
		return NULL;
	for (i = 0; i < conf->npartitions; i++) {
		const struct falcon_partition_conf *q = &conf->partitions[i];

		if (strcasecmp(q->name, "DEFAULT") == 0 || strcmp(q->name, p->name) == 0)
			continue;
		if (broken_rule(q, req) == RULE_OK && (known == NULL || known(q->name)))
			return q->name;
	}
	return NULL;
}

/* The alternatives to a refused GPU label that p allows, as advice. */
static void gpu_advice(unsigned refused, unsigned allow, char *buf, size_t n)
{
	const char *alt[3];
	size_t k = 0, i, off = 0;

	if (refused == FALCON_CONF_TOPO_FALCONGPUS) {
		if (allow & FALCON_CONF_TOPO_HYBRIDGPUS)
			alt[k++] = "add the node's own GPUs (--gres=gpu:N beside falcon_gpu: hybridGPUs)";
		if (allow & FALCON_CONF_TOPO_LOCALGPUS)
			alt[k++] = "ask for --gres=gpu:N instead of falcon_gpu (localGPUs)";
	} else if (refused == FALCON_CONF_TOPO_HYBRIDGPUS) {
		if (allow & FALCON_CONF_TOPO_FALCONGPUS)
			alt[k++] = "drop --gres=gpu (falconGPUs)";
		if (allow & FALCON_CONF_TOPO_LOCALGPUS)
			alt[k++] = "drop falcon_gpu (localGPUs)";
	} else {
		if (allow & FALCON_CONF_TOPO_FALCONGPUS)
			alt[k++] = "ask for --gres=falcon_gpu:N instead of gpu (falconGPUs)";
		if (allow & FALCON_CONF_TOPO_HYBRIDGPUS)
			alt[k++] = "add --gres=falcon_gpu:N (hybridGPUs)";
	}
	buf[0] = '\0';
	for (i = 0; i < k; i++) {
		int w = snprintf(buf + off, n - off, "%s%s", i ? " or " : "", alt[i]);

		if (w < 0 || (size_t)w >= n - off)
			break;
		off += (size_t)w;
	}
}

falcon_err_t falcon_policy_check(const struct falcon_partition_conf *p,
				 const struct falcon_conf *conf, falcon_policy_known_fn known,
				 const struct falcon_job_req *req)
{
	char allow[128], advice[200], other[FALCON_NAME_LEN + 32];
	const char *alt;
	unsigned gpu;
	int rule = broken_rule(p, req);

	if (rule == RULE_OK)
		return FALCON_OK;
	if (falcon_conf_topo_set_str(p->allow_topologies, allow, sizeof(allow)) == NULL ||
	    allow[0] == '\0')
		snprintf(allow, sizeof(allow), "none");
	alt = other_partition(conf, known, p, req);
	other[0] = '\0';
	if (alt != NULL)
		snprintf(other, sizeof(other), "use partition %s", alt);
	switch (rule) {
	case R_GPU_TOPO:
		gpu = falcon_policy_topologies(req) & ~(unsigned)FALCON_CONF_TOPO_FALCONNVME;
		gpu_advice(gpu, p->allow_topologies, advice, sizeof(advice));
		return falcon_err_set(FALCON_ERR_POLICY,
				      "partition %s does not allow %s (falcon.conf AllowTopologies=%s)"
				      "%s%s%s%s",
				      p->name, falcon_conf_topo_label_str(gpu), allow,
				      advice[0] || other[0] ? "; " : "", advice,
				      advice[0] && other[0] ? ", or " : "", other);
	case R_GPU_MAX:
		return falcon_err_set(FALCON_ERR_POLICY,
				      "partition %s allows at most %d falcon_gpu per node; asked %d "
				      "(falcon.conf MaxFalconGPUs=%d)%s%s",
				      p->name, p->max_falcon_gpus, req->falcon_gpus,
				      p->max_falcon_gpus, other[0] ? "; " : "", other);
	case R_NVME_TOPO:
		return falcon_err_set(FALCON_ERR_POLICY,
				      "partition %s does not allow falconNVMe (falcon.conf "
				      "AllowTopologies=%s); drop --gres=falcon_nvme%s%s",
				      p->name, allow, other[0] ? ", or " : "", other);
	default:
		return falcon_err_set(FALCON_ERR_POLICY,
				      "partition %s allows at most %d falcon_nvme per node; asked %d "
				      "(falcon.conf MaxFalconNVMe=%d)%s%s",
				      p->name, p->max_falcon_nvme, req->falcon_nvme,
				      p->max_falcon_nvme, other[0] ? "; " : "", other);
	}
}

falcon_err_t falcon_policy_job(const struct falcon_conf *conf, falcon_policy_known_fn known,
			       const char *partition, const char *tres, char *const *env, size_t n,
			       struct falcon_job_req *req)
{
	struct falcon_job_req r;
	struct falcon_job_opts o;
	struct falcon_partition_conf named;
	const char *pname = partition != NULL && partition[0] != '\0' ? partition : NULL;
	char why[FALCON_POLICY_MSG_LEN];
	falcon_err_t rv;

	rv = falcon_tres_parse(tres, &r);
	if (req != NULL)
		*req = r;
	if (rv == FALCON_OK)
		rv = falcon_job_opts_parse(env, n, &o);
	if (rv != FALCON_OK) {
		/* falcon_errmsg() is the buffer falcon_err_set() writes: copy */
		snprintf(why, sizeof(why), "%s", falcon_errmsg());
		rv = falcon_err_set(rv, "partition %s: %s", pname ? pname : "DEFAULT", why);
		goto fail;
	}
	/* a partition without a line of its own gets DEFAULT's policy (or
	 * the built-in one) under its own name, for the message */
	named = *falcon_conf_partition(conf, pname);
	if (pname != NULL)
		snprintf(named.name, sizeof(named.name), "%s", pname);
	rv = falcon_policy_check(&named, conf, known, &r);
fail:
	return rv;
}

falcon_err_t falcon_policy_pool(const struct falcon_conf *conf, const char *const *hosts,
				size_t n, const char **out)
{
	const char *found = NULL;
	size_t i;

	*out = NULL;
	for (i = 0; i < n; i++) {
		const struct falcon_host_conf *h = hosts[i] ? falcon_conf_host(conf, hosts[i]) : NULL;

		if (h == NULL)
			continue;
		if (found != NULL && strcmp(found, h->chassis) != 0)
			return falcon_err_set(FALCON_ERR_INVAL,
					      "the job's nodes span chassis %s and %s (host %s)",
					      found, h->chassis, h->name);
		found = h->chassis;
	}
	if (found == NULL) {
		if (conf->nchassis == 1) {
			found = conf->chassis[0].name;
		} else if (conf->nchassis == 0) {
			return falcon_err_set(FALCON_ERR_NOTFOUND, "falcon.conf defines no ChassisName");
		} else {
			return falcon_err_set(FALCON_ERR_INVAL,
					      "falcon.conf defines %zu chassis and none of the "
					      "job's nodes is a HostName= of one",
					      conf->nchassis);
		}
	}
	*out = found;
	return FALCON_OK;
}

/* entry_name_is - does the license entry s[0..len) name pool? */
static bool entry_name_is(const char *s, size_t len, const char *pool)
{
	size_t nl = strcspn(s, ":");

	if (nl > len)
		nl = len;
	return nl == strlen(pool) && strncmp(s, pool, nl) == 0;
}

/* entry_count - the count of entry s[0..len): 1 without ':', -1 if bad. */
static long entry_count(const char *s, size_t len)
{
	char num[24];
	const char *c = memchr(s, ':', len);
	long v;

	if (c == NULL)
		return 1;
	if ((size_t)(s + len - c - 1) >= sizeof(num))
		return -1;
	memcpy(num, c + 1, (size_t)(s + len - c - 1));
	num[s + len - c - 1] = '\0';
	if (falcon_strtol(num, 10, 0, 1L << 30, &v) != FALCON_OK)
		return -1;
	return v;
}

/* A license entry to set: name (NULL = unused) and its new count. */
struct lic_set {
	const char *name;
	int count;
};

/*
 * merge_many - old with every entry named drop[i] (ndrop names) or set[i].name
 * removed and each set[i] of count > 0 appended as "name:count", in order.
 * *changed: the result differs from old as Slurm counts it (the names of
 * drop not in set must have been absent, each set[i] had count).
 */
static falcon_err_t merge_many(const char *old, const char *const *drop, size_t ndrop,
			       const struct lic_set *set, size_t nset, char **out, bool *changed)
{
	char *buf;
	size_t cap, off = 0, i;
	long had[4] = { 0, 0, 0, 0 };
	bool dropped = false;
	const char *s = old;
	int w;

	*out = NULL;
	cap = (old ? strlen(old) : 0) + 2;
	for (i = 0; i < nset; i++)
		cap += strlen(set[i].name) + 24;
	buf = malloc(cap);
	if (buf == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "license string of %zu bytes", cap);
	buf[0] = '\0';
	while (s != NULL && *s != '\0') {
		size_t len = strcspn(s, ",;");
		bool keep = len > 0;

		for (i = 0; keep && i < nset; i++)
			if (entry_name_is(s, len, set[i].name)) {
				long c = entry_count(s, len);

				had[i] = c < 0 || had[i] < 0 ? -1 : had[i] + c;
				keep = false;
			}
		for (i = 0; keep && i < ndrop; i++)
			if (entry_name_is(s, len, drop[i]))
				keep = false, dropped = true;
		if (keep) {
			w = snprintf(buf + off, cap - off, "%s%.*s", off ? "," : "", (int)len, s);
			off += (size_t)w;
		}
		s += len;
		if (*s != '\0')
			s++;
	}
	if (changed != NULL)
		*changed = dropped;
	for (i = 0; i < nset; i++) {
		if (set[i].count > 0) {
			w = snprintf(buf + off, cap - off, "%s%s:%d", off ? "," : "", set[i].name,
				     set[i].count);
			off += (size_t)w;
		}
		if (changed != NULL && had[i] != set[i].count)
			*changed = true;
	}
	if (off == 0) {
		free(buf);
		buf = NULL;
	}
	*out = buf;
	return FALCON_OK;
}

falcon_err_t falcon_license_merge(const char *old, const char *pool, int count, char **out,
				  bool *changed)
{
	struct lic_set set = { pool, count };

	*out = NULL;
	if (pool == NULL || pool[0] == '\0' || count < 0 || strpbrk(pool, ",;:") != NULL)
		return falcon_err_set(FALCON_ERR_INVAL, "license pool '%s' count %d: expected a "
				      "name without ',;:' and a count >= 0", pool ? pool : "", count);
	return merge_many(old, NULL, 0, &set, 1, out, changed);
}

long falcon_license_count(const char *lic, const char *name)
{
	size_t n = name != NULL ? strlen(name) : 0, len;
	const char *p = lic;
	long sum = -1, v;

	while (n > 0 && p != NULL && *p != '\0') {
		len = strcspn(p, ",;");
		if (strncmp(p, name, n) == 0 && (p[n] == ':' || p[n] == ',' || p[n] == ';' ||
						 p[n] == '\0')) {
			v = 1;
			if (p[n] == ':' && falcon_strtol_n(p + n + 1, len - n - 1, 10, 0,
							  FALCON_LICENSE_MAX, &v) != FALCON_OK) {
				falcon_err_prefix(FALCON_ERR_INVAL, "license %.*s: the count",
						  (int)len, p);
				return FALCON_LICENSE_BAD;
			}
			sum = (sum < 0 ? 0 : sum) + v;
		}
		p += len;
		if (*p != '\0')
			p++;
	}
	return sum;
}

/* lic_entry - the next entry of license string *p (',' and ';' outside
 * parentheses separate) into tok (n bytes), ":1" added when it has no count
 * after its last ')'; *p moves past it.  0 at the end, -1 when it does not
 * fit, else 1. */
static int lic_entry(const char **p, char *tok, size_t n)
{
	const char *s = *p, *b, *rp;
	int depth = 0, w;
	size_t len;

	while (*s == ',' || *s == ';')
		s++;
	if (*s == '\0')
		return 0;
	for (b = s; *s != '\0' && (depth > 0 || (*s != ',' && *s != ';')); s++)
		depth += (*s == '(') - (*s == ')');
	*p = s;
	len = (size_t)(s - b);
	for (rp = b + len; rp > b && rp[-1] != ')'; rp--)
		;
	w = snprintf(tok, n, "%.*s%s", (int)len, b,
		     memchr(rp, ':', (size_t)(b + len - rp)) ? "" : ":1");
	return w < 0 || (size_t)w >= n ? -1 : 1;
}

bool falcon_license_same(const char *a, const char *b)
{
	char (*ta)[256] = NULL, (*tb)[256] = NULL;
	bool used[FALCON_LICENSE_SAME_MAX], same = false;
	size_t na = 0, nb = 0, i, k;
	const char *p;
	int r = 1;

	ta = calloc(FALCON_LICENSE_SAME_MAX, sizeof(*ta));
	tb = calloc(FALCON_LICENSE_SAME_MAX, sizeof(*tb));
	if (ta == NULL || tb == NULL)
		goto out;
	for (p = a ? a : ""; na < FALCON_LICENSE_SAME_MAX &&
	     (r = lic_entry(&p, ta[na], sizeof(ta[na]))) > 0; na++)
		;
	if (r != 0)
		goto out; /* too many, or one too long */
	for (p = b ? b : ""; nb < FALCON_LICENSE_SAME_MAX &&
	     (r = lic_entry(&p, tb[nb], sizeof(tb[nb]))) > 0; nb++)
		;
	if (r != 0 || na != nb)
		goto out;
	memset(used, 0, sizeof(used));
	for (i = 0; i < na; i++) {
		for (k = 0; k < nb && (used[k] || strcmp(ta[i], tb[k]) != 0); k++)
			;
		if (k == nb)
			goto out;
		used[k] = true;
	}
	same = true;
out:
	free(ta);
	free(tb);
	return same;
}

falcon_err_t falcon_license_name(const char *pool, falcon_dev_type_t type, char *buf, size_t n)
{
	const char *suffix = type == FALCON_DEV_GPU ? "_gpu" : type == FALCON_DEV_NVME ? "_nvme" : NULL;
	int w;

	if (pool == NULL || pool[0] == '\0' || strpbrk(pool, ",;:") != NULL || suffix == NULL)
		return falcon_err_set(FALCON_ERR_INVAL, "license of pool '%s' type %d: expected a "
				      "ChassisName without ',;:' and type GPU or NVMe",
				      pool ? pool : "", (int)type);
	w = snprintf(buf, n, "%s%s", pool, suffix);
	if (w < 0 || (size_t)w >= n)
		return falcon_err_set(FALCON_ERR_INVAL, "license name %s%s: longer than %zu bytes",
				      pool, suffix, n ? n - 1 : 0);
	return FALCON_OK;
}

falcon_err_t falcon_pool_licenses(const char *old, const char *pool, int gpus, int nvme,
				  char **out, bool *changed)
{
	char gname[FALCON_NAME_LEN + 8], nname[FALCON_NAME_LEN + 8];
	struct lic_set set[2];
	const char *drop[1];
	falcon_err_t rv;

	*out = NULL;
	if (gpus < 0 || nvme < 0)
		return falcon_err_set(FALCON_ERR_INVAL, "licenses of pool %s: counts %d GPU, %d NVMe:"
				      " expected >= 0", pool ? pool : "", gpus, nvme);
	rv = falcon_license_name(pool, FALCON_DEV_GPU, gname, sizeof(gname));
	if (rv == FALCON_OK)
		rv = falcon_license_name(pool, FALCON_DEV_NVME, nname, sizeof(nname));
	if (rv != FALCON_OK)
		return rv;
	set[0].name = gname;
	set[0].count = gpus;
	set[1].name = nname;
	set[1].count = nvme;
	drop[0] = pool; /* the one license of both types before per-type pools */
	return merge_many(old, drop, 1, set, 2, out, changed);
}
