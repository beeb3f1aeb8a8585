/*
 * fleet.c - placing a job's falcon devices on the chassis of a fleet: the
 * pick, the chassis pin in a Slurm constraint, and the per-chassis licenses
 * (see fleet.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fleet.h"
#include "core/policy.h"
#include "core/util.h"

/* place_one - rule 1/3: the first chassis with nodes candidate nodes whose
 * pool holds the whole job. */
static bool place_one(const struct falcon_fleet_cand *cand, size_t ncand, uint32_t nodes,
		      int gpus, int nvme, falcon_fleet_fits_fn fits, void *arg, bool ever,
		      struct falcon_fleet_pick *pick)
{
	size_t i;

	for (i = 0; i < ncand; i++) {
		if (cand[i].nhosts < nodes ||
		    !fits(cand[i].chassis, (long)gpus * nodes, (long)nvme * nodes, ever, arg))
			continue;
		pick->n = 1;
		pick->chassis[0] = cand[i].chassis;
		pick->nodes[0] = nodes;
		pick->now = !ever;
		return true;
	}
	return false;
}

/* place_split - rule 2/4: greedy over the chassis in conf order, each
 * taking the most of the remaining nodes its pool and its nodes allow. */
static bool place_split(const struct falcon_fleet_cand *cand, size_t ncand, uint32_t nodes,
			int gpus, int nvme, falcon_fleet_fits_fn fits, void *arg, bool ever,
			struct falcon_fleet_pick *pick)
{
	uint32_t left = nodes, k;
	size_t i;

	pick->n = 0;
	for (i = 0; i < ncand && left > 0 && pick->n < FALCON_FLEET_MAX; i++) {
		k = cand[i].nhosts < left ? cand[i].nhosts : left;
		while (k > 0 && !fits(cand[i].chassis, (long)gpus * k, (long)nvme * k, ever, arg))
			k--;
		if (k == 0)
			continue;
		pick->chassis[pick->n] = cand[i].chassis;
		pick->nodes[pick->n] = k;
		pick->n++;
		left -= k;
	}
	/* in conf order, whatever order the chassis were tried in: one
	 * placement, one constraint string ("[falcon_c1*1&falcon_c2*1]") */
	for (i = 1; i < pick->n; i++)
		for (k = (uint32_t)i; k > 0 && pick->chassis[k - 1] > pick->chassis[k]; k--) {
			size_t c = pick->chassis[k];
			uint32_t m = pick->nodes[k];

			pick->chassis[k] = pick->chassis[k - 1];
			pick->nodes[k] = pick->nodes[k - 1];
			pick->chassis[k - 1] = c;
			pick->nodes[k - 1] = m;
		}
	pick->now = !ever;
	return left == 0;
}

/* by_backlog - cand[0..n) into out, least backlog first, conf order kept
 * among equals (insertion sort: a partition's chassis, a few hundred at
 * most); key[n] is the caller's scratch. */
static void by_backlog(const struct falcon_fleet_cand *cand, size_t n,
		       falcon_fleet_backlog_fn backlog, void *arg, struct falcon_fleet_cand *out,
		       long *key)
{
	struct falcon_fleet_cand c;
	size_t i, j;
	long k;

	for (i = 0; i < n; i++) {
		c = cand[i];
		k = backlog != NULL ? backlog(c.chassis, arg) : 0;
		for (j = i; j > 0 && key[j - 1] > k; j--) {
			key[j] = key[j - 1];
			out[j] = out[j - 1];
		}
		key[j] = k;
		out[j] = c;
	}
}

falcon_err_t falcon_fleet_place(const struct falcon_fleet_cand *cand, size_t ncand,
				uint32_t nodes, int gpus, int nvme, falcon_fleet_fits_fn fits,
				falcon_fleet_backlog_fn backlog, void *arg,
				struct falcon_fleet_pick *pick)
{
	struct falcon_fleet_cand *sorted;
	long *key;
	bool ok;

	memset(pick, 0, sizeof(*pick));
	if (cand == NULL || ncand == 0 || fits == NULL || nodes == 0 || gpus < 0 || nvme < 0)
		return falcon_err_set(FALCON_ERR_INVAL, "fleet placement: %zu chassis, %u nodes, "
				      "%d GPUs, %d NVMe per node", ncand, nodes, gpus, nvme);
	if (place_one(cand, ncand, nodes, gpus, nvme, fits, arg, false, pick) ||
	    (nodes > 1 && place_split(cand, ncand, nodes, gpus, nvme, fits, arg, false, pick)))
		return FALCON_OK;
	/* it pends: where the fewest wait before it */
	sorted = calloc(ncand, sizeof(*sorted));
	key = calloc(ncand, sizeof(*key));
	if (sorted == NULL || key == NULL) {
		free(sorted);
		free(key);
		return falcon_err_set(FALCON_ERR_NOMEM, "fleet placement: %zu chassis", ncand);
	}
	by_backlog(cand, ncand, backlog, arg, sorted, key);
	ok = place_one(sorted, ncand, nodes, gpus, nvme, fits, arg, true, pick) ||
	     (nodes > 1 && place_split(sorted, ncand, nodes, gpus, nvme, fits, arg, true, pick));
	free(sorted);
	free(key);
	if (ok)
		return FALCON_OK;
	memset(pick, 0, sizeof(*pick));
	return falcon_err_set(FALCON_ERR_POLICY, "no chassis of the job's nodes can ever hold "
			      "%d falcon_gpu and %d falcon_nvme per node on %u node%s (the pools' "
			      "Licenses= totals and the nodes cabled to each)", gpus, nvme, nodes,
			      nodes == 1 ? "" : "s");
}

/* chassis_of_term - the conf index of the chassis a constraint term
 * t[0..len) pins ("falcon_C" or "falcon_C*N"), with N in *count (0 when
 * bare); -1 when it is not such a term. */
static long chassis_of_term(const struct falcon_conf *conf, const char *t, size_t len,
			    uint32_t *count)
{
	size_t plen = strlen(FALCON_FLEET_FEATURE_PREFIX), nlen = len, i;
	const char *star = memchr(t, '*', len);
	long v = 0;

	*count = 0;
	if (len <= plen || strncmp(t, FALCON_FLEET_FEATURE_PREFIX, plen) != 0)
		return -1;
	if (star != NULL) {
		nlen = (size_t)(star - t);
		if (falcon_strtol_n(star + 1, (size_t)(t + len - star - 1), 10, 1, UINT32_MAX,
				    &v) != FALCON_OK) {
			falcon_err_clear(); /* not a pin: a feature of its own for Slurm */
			return -1;
		}
	}
	for (i = 0; i < conf->nchassis; i++)
		if (strlen(conf->chassis[i].name) == nlen - plen &&
		    strncmp(conf->chassis[i].name, t + plen, nlen - plen) == 0) {
			*count = (uint32_t)v;
			return (long)i;
		}
	return -1;
}

falcon_err_t falcon_fleet_pin_parse(const struct falcon_conf *conf, const char *features,
				    struct falcon_fleet_pick *pick, char **rest)
{
	const char *s = features ? features : "", *p = s, *e;
	size_t cap = strlen(s) + 1, used = 0, len;
	char *r = NULL;
	bool bracket;
	uint32_t cnt;
	long c;

	memset(pick, 0, sizeof(*pick));
	if (rest != NULL) {
		*rest = NULL;
		if ((r = malloc(cap)) == NULL)
			return falcon_err_set(FALCON_ERR_NOMEM, "constraint of %zu bytes", cap);
		r[0] = '\0';
	}
	/* a split is one bracket of pin terms: "[falcon_a*1&falcon_b*2]" */
	bracket = s[0] == '[';
	if (bracket && (e = strchr(s, ']')) != NULL) {
		const char *q = s + 1;
		struct falcon_fleet_pick tmp = { 0 };
		bool all = true;

		while (q < e && tmp.n < FALCON_FLEET_MAX) {
			const char *amp = memchr(q, '&', (size_t)(e - q));

			len = (size_t)((amp ? amp : e) - q);
			c = chassis_of_term(conf, q, len, &cnt);
			if (c < 0 || cnt == 0) {
				all = false;
				break;
			}
			tmp.chassis[tmp.n] = (size_t)c;
			tmp.nodes[tmp.n++] = cnt;
			q = amp ? amp + 1 : e;
		}
		if (all && tmp.n > 0) {
			*pick = tmp;
			p = e + 1;
			if (*p == '&')
				p++;
		}
	}
	/* else AND-ed single terms: "falcon_c2&ib" */
	while (*p != '\0') {
		e = p + strcspn(p, "&");
		len = (size_t)(e - p);
		c = pick->n == 0 ? chassis_of_term(conf, p, len, &cnt) : -1;
		if (c >= 0 && cnt == 0) {
			pick->chassis[0] = (size_t)c;
			pick->nodes[0] = 0;
			pick->n = 1;
		} else if (r != NULL && len > 0) {
			if (used > 0)
				r[used++] = '&';
			memcpy(r + used, p, len);
			used += len;
			r[used] = '\0';
		}
		p = *e ? e + 1 : e;
	}
	if (r != NULL && used > 0)
		*rest = r;
	else
		free(r);
	return FALCON_OK;
}

falcon_err_t falcon_fleet_constraint(const struct falcon_conf *conf, const char *user,
				     const struct falcon_fleet_pick *pick, char **out)
{
	const char *u = user != NULL ? user : ""; /* never NULL below (UBSan nonnull) */
	bool has_user = u[0] != '\0';
	size_t cap, used = 0, i;
	char *s;

	*out = NULL;
	if (pick->n == 0 || pick->n > FALCON_FLEET_MAX)
		return falcon_err_set(FALCON_ERR_INVAL, "constraint of a pick of %zu chassis", pick->n);
	if (has_user && (pick->n > 1 || strpbrk(u, "|[]()*") != NULL))
		return falcon_err_set(FALCON_ERR_POLICY, "the job's nodes span several chassis and "
				      "its constraint '%s' cannot be combined with a chassis pin; "
				      "name the nodes (-w), a chassis (-C %sNAME) or a partition "
				      "of one chassis", u, FALCON_FLEET_FEATURE_PREFIX);
	cap = strlen(u) + 4 + pick->n * (FALCON_NAME_LEN + 24);
	if ((s = malloc(cap)) == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "constraint of %zu bytes", cap);
	if (pick->n == 1) {
		used = (size_t)snprintf(s, cap, "%s%s", FALCON_FLEET_FEATURE_PREFIX,
					conf->chassis[pick->chassis[0]].name);
	} else {
		s[used++] = '[';
		for (i = 0; i < pick->n; i++)
			used += (size_t)snprintf(s + used, cap - used, "%s%s%s*%u", i ? "&" : "",
						 FALCON_FLEET_FEATURE_PREFIX,
						 conf->chassis[pick->chassis[i]].name, pick->nodes[i]);
		s[used++] = ']';
		s[used] = '\0';
	}
	if (has_user)
		snprintf(s + used, cap - used, "&%s", u);
	*out = s;
	return FALCON_OK;
}

falcon_err_t falcon_fleet_licenses(const struct falcon_conf *conf, const char *old,
				   const struct falcon_fleet_pick *pick, int gpus, int nvme,
				   char **out, bool *changed)
{
	char *cur = NULL, *next = NULL;
	bool any = false, ch;
	falcon_err_t rv = FALCON_OK;
	size_t c, i;
	long nodes;

	*out = NULL;
	if (old != NULL && (cur = strdup(old)) == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "license string");
	for (c = 0; c < conf->nchassis; c++) {
		nodes = 0;
		for (i = 0; i < pick->n; i++)
			if (pick->chassis[i] == c)
				nodes += pick->nodes[i];
		if (nodes * (gpus > nvme ? gpus : nvme) > 1000000) {
			rv = falcon_err_set(FALCON_ERR_INVAL, "license counts too large");
			break;
		}
		ch = false;
		rv = falcon_pool_licenses(cur, conf->chassis[c].name, (int)(nodes * gpus),
					  (int)(nodes * nvme), &next, &ch);
		if (rv != FALCON_OK)
			break;
		free(cur);
		cur = next;
		next = NULL;
		any = any || ch;
	}
	if (rv != FALCON_OK) {
		free(cur);
		return rv;
	}
	*out = cur;
	if (changed != NULL)
		*changed = any;
	return FALCON_OK;
}

/* list_has - does the ','-list s hold word w? */
static bool list_has(const char *s, const char *w)
{
	size_t n = strlen(w);

	while (s != NULL && *s != '\0') {
		size_t len = strcspn(s, ",");

		if (len == n && strncmp(s, w, n) == 0)
			return true;
		s += len;
		if (*s == ',')
			s++;
	}
	return false;
}

/* lic_total - the count of license name in Licenses= s ("a:8,b"; a bare
 * name counts 1); -1 when absent, -2 when its count is not a number of
 * licenses (detail set, naming the entry). */
static long lic_total(const char *s, const char *name)
{
	size_t n = strlen(name);
	long v;

	while (s != NULL && *s != '\0') {
		size_t len = strcspn(s, ",;");

		if (strncmp(s, name, n) == 0 && (len == n || s[n] == ':' || s[n] == '=')) {
			if (len == n)
				return 1;
			if (falcon_strtol_n(s + n + 1, len - n - 1, 10, 0, FALCON_LICENSE_MAX,
					    &v) != FALCON_OK) {
				falcon_err_prefix(FALCON_ERR_INVAL, "Licenses=%.*s: the count", (int)len,
						  s);
				return -2;
			}
			return v;
		}
		s += len;
		if (*s != '\0')
			s++;
	}
	return -1;
}

/* gres_has - whether a node's Gres ("a:8,b:type:2(S:0)") names GRES name. */
static bool gres_has(const char *s, const char *name)
{
	size_t n = strlen(name);

	while (s != NULL && *s != '\0') {
		size_t len = strcspn(s, ",");

		if (strncmp(s, name, n) == 0 && (len == n || s[n] == ':'))
			return true;
		s += len;
		if (*s == ',')
			s++;
	}
	return false;
}

/* gres_entry - the Gres entry at p: its end *e (a ',' outside
 * parentheses, or the end), and, when it is an entry of name
 * ("name[:type]:count[(...)]"), its count's place [*num, *end) after the
 * last ':' outside parentheses ("(null)" is a type), up to its '('.
 * Returns whether it is of name and its count parses (digits, at most
 * 19).  Source of the format: Slurm's node_info_t gres and gres_used. */
static bool gres_entry(const char *p, const char *name, const char **e, const char **num,
		       const char **end)
{
	size_t nlen = strlen(name);
	const char *q, *colon;
	int depth = 0;

	for (q = p; *q && (depth > 0 || *q != ','); q++)
		depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
	*e = q;
	if ((size_t)(*e - p) <= nlen || strncmp(p, name, nlen) != 0 || p[nlen] != ':')
		return false;
	for (q = colon = p, depth = 0; q < *e; q++) {
		depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
		if (depth == 0 && *q == ':')
			colon = q + 1;
	}
	for (q = colon; q < *e && *q != '('; q++)
		;
	*num = colon;
	*end = q;
	if (q == colon || q - colon > 19)
		return false;
	for (q = colon; q < *end; q++)
		if (*q < '0' || *q > '9')
			return false;
	return true;
}

uint64_t falcon_gres_count(const char *gres, const char *name)
{
	uint64_t sum = 0;
	const char *p = gres, *e, *num, *end;

	if (gres == NULL || name == NULL)
		return 0;
	while (*p) {
		if (gres_entry(p, name, &e, &num, &end))
			sum += strtoull(num, NULL, 10);
		p = *e ? e + 1 : e;
	}
	return sum;
}

falcon_err_t falcon_gres_with(const char *s, const char *name, long count, char *out, size_t n)
{
	const char *p = s, *e, *num, *end;
	size_t o = 0, nlen = strlen(name);
	bool seen = false;
	int w;

	if (n == 0)
		return falcon_err_set(FALCON_ERR_INVAL, "Gres %s: no room", name);
	out[0] = '\0';
	if (count < 0)
		return falcon_err_set(FALCON_ERR_INVAL, "Gres %s: count %ld", name, count);
	while (p != NULL && *p) {
		if (gres_entry(p, name, &e, &num, &end)) {
			seen = true;
			w = snprintf(out + o, n - o, "%s%.*s%ld%.*s", o ? "," : "", (int)(num - p), p,
				     count, (int)(e - end), end);
		} else if (strncmp(p, name, nlen) == 0 && (p[nlen] == ':' || p + nlen == e)) {
			out[0] = '\0';
			return falcon_err_set(FALCON_ERR_INVAL, "Gres \"%.*s\": no count of %s",
					      (int)(e - p), p, name);
		} else
			w = snprintf(out + o, n - o, "%s%.*s", o ? "," : "", (int)(e - p), p);
		if (w < 0 || (size_t)w >= n - o) {
			out[0] = '\0';
			return falcon_err_set(FALCON_ERR_INVAL, "Gres with %s:%ld: longer than %zu "
					      "bytes", name, count, n - 1);
		}
		o += (size_t)w;
		p = *e ? e + 1 : e;
	}
	if (!seen) {
		out[0] = '\0';
		return falcon_err_set(FALCON_ERR_INVAL, "Gres \"%s\" has no %s", s ? s : "", name);
	}
	return FALCON_OK;
}

static void problemf(falcon_slurm_problem_fn problem, void *arg, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void problemf(falcon_slurm_problem_fn problem, void *arg, size_t *n, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	(*n)++;
	if (problem != NULL)
		problem(msg, arg);
}

/* check_licenses - the per-chassis licenses of falcon_slurm_check(). */
static void check_licenses(const struct falcon_conf *conf, const struct falcon_slurm_view *v,
			   const long *gpus, const long *nvme, falcon_slurm_problem_fn problem,
			   void *arg, size_t *n)
{
	char name[FALCON_NAME_LEN + 8];
	const long *want;
	long have;
	size_t c;
	int t;

	for (c = 0; c < conf->nchassis; c++) {
		const char *cn = conf->chassis[c].name;

		if (lic_total(v->licenses, cn) != -1)
			problemf(problem, arg, n, "Licenses= has %s, the single license of both types "
				 "of earlier releases: use %s_gpu and %s_nvme", cn, cn, cn);
		for (t = 0; t < 2 && !v->hres; t++) {
			falcon_dev_type_t type = t == 0 ? FALCON_DEV_GPU : FALCON_DEV_NVME;

			want = t == 0 ? gpus : nvme;
			if (falcon_license_name(cn, type, name, sizeof(name)) != FALCON_OK)
				continue;
			have = lic_total(v->licenses, name);
			if (have == -2)
				problemf(problem, arg, n, "%s", falcon_errmsg());
			else if (have < 0 && (want == NULL || want[c] != 0))
				problemf(problem, arg, n, "chassis %s has no license %s in slurm.conf "
					 "Licenses= (falconctl slurm-conf)", cn, name);
			else if (have >= 0 && want != NULL && want[c] >= 0 && have != want[c])
				problemf(problem, arg, n, "Licenses=%s:%ld but chassis %s has %ld %s",
					 name, have, cn, want[c], t == 0 ? "GPUs" : "NVMe");
		}
	}
}

size_t falcon_slurm_check(const struct falcon_conf *conf, const struct falcon_slurm_view *v,
			  const long *gpus, const long *nvme, falcon_slurm_problem_fn problem,
			  void *arg)
{
	char feat[FALCON_NAME_LEN + 16];
	size_t n = 0, h, i, c;

	check_licenses(conf, v, gpus, nvme, problem, arg, &n);
	for (h = 0; h < conf->nhosts; h++) {
		const struct falcon_host_conf *hc = &conf->hosts[h];

		for (i = 0; i < v->nnodes && strcmp(v->node[i], hc->name) != 0; i++)
			;
		if (i == v->nnodes) {
			problemf(problem, arg, &n, "HostName=%s (chassis %s) is not a node of "
				 "slurm.conf", hc->name, hc->chassis);
			continue;
		}
		if (!gres_has(v->gres ? v->gres[i] : NULL, "falcon_gpu"))
			problemf(problem, arg, &n, "node %s has no Gres=falcon_gpu:N", hc->name);
		snprintf(feat, sizeof(feat), "%s%s", FALCON_FLEET_FEATURE_PREFIX, hc->chassis);
		if (conf->nchassis > 1 && !v->hres &&
		    !list_has(v->features ? v->features[i] : NULL, feat))
			problemf(problem, arg, &n, "node %s is cabled to chassis %s (falcon.conf) but "
				 "lacks Features=%s", hc->name, hc->chassis, feat);
	}
	for (i = 0; i < v->nnodes; i++)
		for (c = 0; c < conf->nchassis; c++) {
			const struct falcon_host_conf *hc = falcon_conf_host(conf, v->node[i]);

			snprintf(feat, sizeof(feat), "%s%s", FALCON_FLEET_FEATURE_PREFIX,
				 conf->chassis[c].name);
			if (list_has(v->features ? v->features[i] : NULL, feat) &&
			    (hc == NULL || strcmp(hc->chassis, conf->chassis[c].name) != 0))
				problemf(problem, arg, &n, "node %s has Features=%s but falcon.conf "
					 "cables it to %s", v->node[i], feat,
					 hc ? hc->chassis : "no chassis");
		}
	return n;
}

/* chassis_index - the index in conf->chassis of the chassis named name;
 * conf->nchassis when none is. */
static size_t chassis_index(const struct falcon_conf *conf, const char *name)
{
	size_t c;

	for (c = 0; c < conf->nchassis; c++)
		if (strcmp(conf->chassis[c].name, name) == 0)
			break;
	return c;
}

/* count_str - "8" or "COUNT" (unknown: counted in *unknown). */
static const char *count_str(const long *v, size_t c, char *buf, size_t n, size_t *unknown)
{
	if (v == NULL || v[c] < 0) {
		(*unknown)++;
		return "COUNT";
	}
	snprintf(buf, n, "%ld", v[c]);
	return buf;
}

/* hosts_of - the HostName= list of chassis c (NULL = all), ','-joined. */
static void hosts_of(const struct falcon_conf *conf, const char *chassis, char *buf, size_t n)
{
	size_t h, off = 0;

	buf[0] = '\0';
	for (h = 0; h < conf->nhosts && off < n; h++)
		if (chassis == NULL || strcmp(conf->hosts[h].chassis, chassis) == 0)
			off += (size_t)snprintf(buf + off, n - off, "%s%s", off ? "," : "",
						conf->hosts[h].name);
}

/* write_hres - resources.yaml of falcon_slurm_conf_write(). */
static void write_hres(const struct falcon_conf *conf, const long *gpus, const long *nvme,
		       FILE *f, size_t *unknown)
{
	char hosts[4096], b[32];
	size_t c;
	int t;

	fprintf(f, "# --- resources.yaml (beside slurm.conf; HRES, Slurm 25.11+ MODE_3: a job's\n"
		   "# per-node count is taken from each of its nodes' own chassis)\n---\n");
	for (t = 0; t < 2; t++) {
		fprintf(f, "- resource: %s\n  mode: MODE_3\n  layers:\n",
			t == 0 ? FALCON_HRES_GPU : FALCON_HRES_NVME);
		if (conf->nchassis > 1) {
			hosts_of(conf, NULL, hosts, sizeof(hosts));
			fprintf(f, "    - nodes: [\"%s\"]   # every cabled node (the root)\n"
				   "      count: -1\n", hosts);
		}
		for (c = 0; c < conf->nchassis; c++) {
			hosts_of(conf, conf->chassis[c].name, hosts, sizeof(hosts));
			fprintf(f, "    - nodes: [\"%s\"]   # chassis %s\n      count: %s\n", hosts,
				conf->chassis[c].name,
				count_str(t == 0 ? gpus : nvme, c, b, sizeof(b), unknown));
		}
	}
}

int falcon_hres_layer_chassis(const struct falcon_conf *conf, const char *const *hosts, size_t n)
{
	const struct falcon_host_conf *hc;
	size_t i, k, want = 0, seen = 0;
	int c = -1;

	for (i = 0; i < n; i++) {
		hc = falcon_conf_host(conf, hosts[i]);
		if (hc == NULL)
			return -1;
		if (c < 0) {
			for (k = 0; k < conf->nchassis &&
			     strcmp(conf->chassis[k].name, hc->chassis) != 0; k++)
				;
			if (k == conf->nchassis)
				return -1;
			c = (int)k;
		} else if (strcmp(conf->chassis[c].name, hc->chassis) != 0)
			return -1;
		for (k = 0; k < i && strcmp(hosts[k], hosts[i]) != 0; k++)
			;
		seen += k == i;
	}
	if (c < 0)
		return -1;
	for (i = 0; i < conf->nhosts; i++)
		want += strcmp(conf->hosts[i].chassis, conf->chassis[c].name) == 0;
	return seen == want ? c : -1;
}

falcon_err_t falcon_hres_layer_name(const struct falcon_conf *conf, size_t c,
				    falcon_dev_type_t type, char *buf, size_t n)
{
	char hosts[4096];
	int w;

	if (c >= conf->nchassis || (type != FALCON_DEV_GPU && type != FALCON_DEV_NVME))
		return falcon_err_set(FALCON_ERR_INVAL, "HRES layer of chassis %zu type %d", c,
				      (int)type);
	hosts_of(conf, conf->chassis[c].name, hosts, sizeof(hosts));
	if (hosts[0] == '\0')
		return falcon_err_set(FALCON_ERR_INVAL, "chassis %s: no HostName= cabled to it",
				      conf->chassis[c].name);
	w = snprintf(buf, n, "%s(%s)", type == FALCON_DEV_GPU ? FALCON_HRES_GPU : FALCON_HRES_NVME,
		     hosts);
	if (w < 0 || (size_t)w >= n)
		return falcon_err_set(FALCON_ERR_INVAL, "HRES layer of chassis %s: longer than %zu "
				      "bytes", conf->chassis[c].name, n ? n - 1 : 0);
	return FALCON_OK;
}

bool falcon_slurm_hres_release(int major, int minor)
{
	return major > 25 || (major == 25 && minor >= 11);
}

/* host_reaches - a port of conf->hosts[h] is cabled to drawer (1-based) by dc. */
static bool host_reaches(const struct falcon_conf *conf, size_t h,
			 const struct falcon_drawer_counts *dc, int drawer)
{
	size_t k;
	int p;

	for (k = 0; k < dc->ncables; k++)
		for (p = 0; dc->cables[k].drawer == drawer && p < conf->hosts[h].nports; p++)
			if (strcmp(dc->cables[k].port, conf->hosts[h].ports[p]) == 0)
				return true;
	return false;
}

int falcon_host_share(const struct falcon_conf *conf, size_t h,
		      const struct falcon_drawer_counts *dc, long *gpus, long *nvme)
{
	int d, shared = 0;
	size_t o;

	if (dc == NULL || !dc->known || h >= conf->nhosts)
		return -1;
	*gpus = *nvme = 0;
	for (d = 1; d <= FALCON_DRAWERS_MAX; d++) {
		long n = 0, idx = 0;

		if (!host_reaches(conf, h, dc, d))
			continue;
		for (o = 0; o < conf->nhosts; o++) {
			if (strcmp(conf->hosts[o].chassis, conf->hosts[h].chassis) != 0 ||
			    !host_reaches(conf, o, dc, d))
				continue;
			if (o < h)
				idx++;
			n++;
		}
		*gpus += dc->gpus[d - 1] / n + (idx < dc->gpus[d - 1] % n ? 1 : 0);
		*nvme += dc->nvme[d - 1] / n + (idx < dc->nvme[d - 1] % n ? 1 : 0);
		shared += n > 1;
	}
	return shared;
}

/* share_str - host h's share of one type (which: 0 GPUs, 1 NVMe) when dc
 * knows it, else count_str() of the chassis' count; always written into
 * buf, which it returns. */
static const char *share_str(const struct falcon_conf *conf, size_t h,
			     const struct falcon_drawer_counts *dc, const long *whole, size_t c,
			     int which, char *buf, size_t n, size_t *unknown)
{
	long g, v;

	if (dc == NULL || falcon_host_share(conf, h, &dc[c], &g, &v) < 0) {
		const char *r = count_str(whole, c, buf, n, unknown);

		if (r != buf)
			falcon_strlcpy(buf, r, n);
		return buf;
	}
	snprintf(buf, n, "%ld", which == 0 ? g : v);
	return buf;
}

/* write_shared - a comment per drawer that several hosts share (dc known),
 * and the Mode= advice for a chassis in standard mode with one. */
static void write_shared(const struct falcon_conf *conf, const struct falcon_drawer_counts *dc,
			 FILE *f)
{
	size_t c, h;
	int d;

	for (c = 0; dc != NULL && c < conf->nchassis; c++) {
		bool any = false;

		for (d = 1; dc[c].known && d <= FALCON_DRAWERS_MAX; d++) {
			char names[512] = "";
			size_t n = 0, off = 0;

			for (h = 0; h < conf->nhosts; h++)
				if (strcmp(conf->hosts[h].chassis, conf->chassis[c].name) == 0 &&
				    host_reaches(conf, h, &dc[c], d) && off < sizeof(names)) {
					off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%s",
								n ? "," : "", conf->hosts[h].name);
					n++;
				}
			if (n < 2)
				continue;
			any = true;
			fprintf(f, "# chassis %s: drawer %d (falcon_gpu:%ld,falcon_nvme:%ld) is "
				"shared by %s: each node's Gres= is its share, so that Slurm "
				"never gives them more than the drawer holds\n",
				conf->chassis[c].name, d, dc[c].gpus[d - 1], dc[c].nvme[d - 1], names);
		}
		if (any && conf->chassis[c].mode == FALCON_MODE_STANDARD)
			fprintf(f, "# chassis %s: set Mode=advanced in falcon.conf: in standard mode a "
				"shared drawer's halves go to whichever host attaches first, and a "
				"node may be refused its share (falcon.conf(5) Mode=)\n",
				conf->chassis[c].name);
	}
}

size_t falcon_slurm_conf_write(const struct falcon_conf *conf, const long *gpus,
			       const long *nvme, const struct falcon_drawer_counts *dc, int major,
			       int minor, bool hres, FILE *f)
{
	char b1[32], b2[32];
	size_t unknown = 0, c, h, off;

	fprintf(f, "# falconctl slurm-conf: %zu chassis, %zu hosts of %s, for Slurm %d.%02d, "
		"the pool as %s\n", conf->nchassis, conf->nhosts,
		conf->path ? conf->path : "falcon.conf", major, minor,
		hres ? "HRES (resources.yaml)" : "licenses");
	fprintf(f, "# --- slurm.conf\nGresTypes=falcon_gpu,falcon_nvme\nJobSubmitPlugins=falcon\n");
	if (!hres && conf->nchassis > 0) {
		fprintf(f, "Licenses=");
		for (c = 0, off = 0; c < conf->nchassis; c++)
			fprintf(f, "%s%s_gpu:%s,%s_nvme:%s", c ? "," : "", conf->chassis[c].name,
				count_str(gpus, c, b1, sizeof(b1), &unknown), conf->chassis[c].name,
				count_str(nvme, c, b2, sizeof(b2), &unknown));
		fprintf(f, "\n");
		(void)off;
	}
	write_shared(conf, dc, f);
	fprintf(f, "# each host's NodeName= line gets these (merge them into yours):\n");
	for (h = 0; h < conf->nhosts; h++) {
		if ((c = chassis_index(conf, conf->hosts[h].chassis)) == conf->nchassis)
			continue;
		share_str(conf, h, dc, gpus, c, 0, b1, sizeof(b1), &unknown);
		share_str(conf, h, dc, nvme, c, 1, b2, sizeof(b2), &unknown);
		/* a type of count 0 left out, as Slurm shows the node (its
		 * Gres= drops it); both 0: falcon_gpu:0 */
		if (strcmp(b2, "0") == 0)
			fprintf(f, "NodeName=%s Gres=falcon_gpu:%s", conf->hosts[h].name, b1);
		else if (strcmp(b1, "0") == 0)
			fprintf(f, "NodeName=%s Gres=falcon_nvme:%s", conf->hosts[h].name, b2);
		else
			fprintf(f, "NodeName=%s Gres=falcon_gpu:%s,falcon_nvme:%s",
				conf->hosts[h].name, b1, b2);
		if (conf->nchassis > 1 && !hres)
			fprintf(f, " Features=%s%s", FALCON_FLEET_FEATURE_PREFIX,
				conf->chassis[c].name);
		fprintf(f, "\n");
	}
	fprintf(f, "# --- gres.conf\n");
	for (h = 0; h < conf->nhosts; h++) {
		if ((c = chassis_index(conf, conf->hosts[h].chassis)) == conf->nchassis)
			continue;
		share_str(conf, h, dc, gpus, c, 0, b1, sizeof(b1), &unknown);
		share_str(conf, h, dc, nvme, c, 1, b2, sizeof(b2), &unknown);
		if (strcmp(b1, "0") != 0 || strcmp(b2, "0") == 0)
			fprintf(f, "NodeName=%s Name=falcon_gpu Count=%s Flags=CountOnly\n",
				conf->hosts[h].name, b1);
		if (strcmp(b2, "0") != 0)
			fprintf(f, "NodeName=%s Name=falcon_nvme Count=%s Flags=CountOnly\n",
				conf->hosts[h].name, b2);
	}
	if (hres)
		write_hres(conf, gpus, nvme, f, &unknown);
	return unknown;
}
