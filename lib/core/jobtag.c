/*
 * jobtag.c - tres_per_node GRES counts, the falcon SPANK options of a job
 * and the AdminComment tag (see jobtag.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/jobtag.h"
#include "core/util.h"

/* tres_entry - one tres_per_node entry s (len bytes) into *out (added). */
static falcon_err_t tres_entry(const char *s, size_t len, struct falcon_job_req *out)
{
	char e[256], *name, *cnt, *p;
	long v = 1;
	int *slot = NULL;

	if (len == 0)
		return FALCON_OK;
	if (len >= sizeof(e))
		return falcon_err_set(FALCON_ERR_PARSE, "tres_per_node: entry \"%.40s...\" too long",
				      s);
	memcpy(e, s, len);
	e[len] = '\0';
	if (strncmp(e, "gres:", 5) == 0 || strncmp(e, "gres/", 5) == 0)
		name = e + 5;
	else
		return FALCON_OK; /* cpu=, mem=, license/... : not ours */
	/* NAME[:TYPE][:COUNT] or NAME[:TYPE]=COUNT */
	cnt = NULL;
	if ((p = strchr(name, '=')) != NULL) {
		*p = '\0';
		cnt = p + 1;
	}
	if ((p = strchr(name, ':')) != NULL) {
		*p = '\0';
		if (cnt == NULL) {
			char *last = strrchr(p + 1, ':');

			/* NAME:COUNT, NAME:TYPE:COUNT, NAME:TYPE */
			if (last != NULL)
				cnt = last + 1;
			else if (!isalpha((unsigned char)p[1]))
				cnt = p + 1;
		}
	}
	if (strcmp(name, "falcon_gpu") == 0)
		slot = &out->falcon_gpus;
	else if (strcmp(name, "falcon_nvme") == 0)
		slot = &out->falcon_nvme;
	else if (strcmp(name, "gpu") == 0)
		slot = &out->gpus;
	else
		return FALCON_OK;
	if (cnt != NULL && falcon_strtol(cnt, 10, 0, FALCON_TRES_MAX, &v) != FALCON_OK)
		return falcon_err_set(FALCON_ERR_PARSE,
				      "tres_per_node: \"%.*s\": expected a count in [0, %d]",
				      (int)len, s, FALCON_TRES_MAX);
	if (*slot + v > FALCON_TRES_MAX)
		return falcon_err_set(FALCON_ERR_PARSE,
				      "tres_per_node: gres %s adds up to more than %d", name,
				      FALCON_TRES_MAX);
	*slot += (int)v;
	return FALCON_OK;
}

falcon_err_t falcon_tres_parse(const char *tres, struct falcon_job_req *out)
{
	falcon_err_t rv = FALCON_OK;
	const char *s = tres;

	memset(out, 0, sizeof(*out));
	if (tres == NULL)
		return FALCON_OK;
	while (*s != '\0') {
		size_t len = strcspn(s, ",;");

		size_t skip = 0;

		while (skip < len && (s[skip] == ' ' || s[skip] == '\t'))
			skip++;
		while (len > skip && (s[len - 1] == ' ' || s[len - 1] == '\t'))
			len--;
		if ((rv = tres_entry(s + skip, len - skip, out)) != FALCON_OK)
			goto fail;
		s += strcspn(s, ",;");
		if (*s != '\0')
			s++;
	}
	return FALCON_OK;
fail:
	memset(out, 0, sizeof(*out));
	return rv;
}

/* env_value - the value of NAME in env, NULL when absent. */
static const char *env_value(char *const *env, size_t n, const char *name)
{
	size_t i, len = strlen(name);

	if (env == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		if (env[i] != NULL && strncmp(env[i], name, len) == 0 && env[i][len] == '=')
			return env[i] + len + 1;
	return NULL;
}

/* An option's value: SPANK_FALCON_<NAME> (the prolog's environment) or,
 * without it, FALCON_<NAME> (the job control name as slurmctld holds it,
 * job_submit's view); NULL when neither is set or it is empty. */
static const char *opt_value(char *const *env, size_t n, const char *name)
{
	char key[64];
	const char *v;

	snprintf(key, sizeof(key), "SPANK_FALCON_%s", name);
	v = env_value(env, n, key);
	if (v == NULL)
		v = env_value(env, n, key + strlen("SPANK_"));
	return v != NULL && *v != '\0' ? v : NULL;
}

falcon_err_t falcon_job_opts_parse(char *const *env, size_t n, struct falcon_job_opts *out)
{
	const char *v;

	memset(out, 0, sizeof(*out));
	if ((v = opt_value(env, n, "PLACE")) != NULL) {
		if (falcon_place_from_str(v, &out->place) != FALCON_OK)
			return falcon_err_set(FALCON_ERR_INVAL,
					      "falcon-place=%s: expected pack, spread or any", v);
		out->place_set = true;
	}
	if ((v = opt_value(env, n, "CHECK")) != NULL) {
		if (falcon_check_from_str(v, &out->check) != FALCON_OK)
			return falcon_err_set(FALCON_ERR_INVAL,
					      "falcon-check=%s: expected quick, full or off", v);
		out->check_set = true;
	}
	if ((v = opt_value(env, n, "TOPOLOGY")) != NULL) {
		if (strcasecmp(v, "auto") != 0)
			return falcon_err_set(FALCON_ERR_INVAL,
					      "falcon-topology=%s: expected auto", v);
		out->topology_auto = true;
	}
	return FALCON_OK;
}

/* add - append printf output at *off of buf (n); false when it did not fit. */
static bool add(char *buf, size_t n, size_t *off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static bool add(char *buf, size_t n, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (*off >= n)
		return false;
	va_start(ap, fmt);
	w = vsnprintf(buf + *off, n - *off, fmt, ap);
	va_end(ap);
	if (w < 0 || (size_t)w >= n - *off)
		return false;
	*off += (size_t)w;
	return true;
}

/* clean - a tag value holds no blank, ';', ',' or '='. */
static bool clean(const char *v)
{
	return v != NULL && *v != '\0' && strpbrk(v, " \t\n;,=") == NULL;
}

char *falcon_tag_build(const struct falcon_tag *t, char *buf, size_t n)
{
	size_t off = 0;
	const char *sep = "";
	bool ok;

	if (buf == NULL || n == 0)
		return NULL;
	ok = add(buf, n, &off, "%s", FALCON_TAG_PREFIX);
	if (ok && clean(t->topo)) {
		ok = add(buf, n, &off, "topo=%s", t->topo);
		sep = ",";
	}
	if (ok && t->local_gpus > 0) {
		ok = add(buf, n, &off, "%sl=%d", sep, t->local_gpus);
		sep = ",";
	}
	if (ok && t->falcon_gpus > 0) {
		ok = add(buf, n, &off, "%sf=%d", sep, t->falcon_gpus);
		sep = ",";
	}
	if (ok && clean(t->nvme)) {
		ok = add(buf, n, &off, "%snvme=%s", sep, t->nvme);
		sep = ",";
	}
	if (ok && clean(t->check)) {
		ok = add(buf, n, &off, "%scheck=%s", sep, t->check);
		sep = ",";
	}
	if (ok && t->local_gpus + t->falcon_gpus == 1 && t->algbw >= 0) {
		ok = add(buf, n, &off, "%salgbw=%.1f", sep, t->algbw);
		sep = ",";
	} else if (ok && t->local_gpus + t->falcon_gpus != 1 && t->busbw >= 0) {
		ok = add(buf, n, &off, "%sbusbw=%.1f", sep, t->busbw);
		sep = ",";
	}
	if (ok && t->degraded) {
		ok = add(buf, n, &off, "%slink=degraded", sep);
		sep = ",";
	}
	if (ok && t->auto_topo)
		ok = add(buf, n, &off, "%sauto=1", sep);
	return ok ? buf : NULL;
}

static bool is_sep(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == ';';
}

/* next_tag - offset of the next "falcon:" token at or after from; -1 = none. */
static long next_tag(const char *s, size_t from)
{
	size_t i, plen = strlen(FALCON_TAG_PREFIX);

	for (i = from; s[i] != '\0'; i++)
		if ((i == 0 || is_sep(s[i - 1])) && strncmp(s + i, FALCON_TAG_PREFIX, plen) == 0)
			return (long)i;
	return -1;
}

static size_t token_len(const char *s)
{
	size_t i = 0;

	while (s[i] != '\0' && !is_sep(s[i]))
		i++;
	return i;
}

falcon_err_t falcon_tag_merge(const char *old, const char *tag, char **out)
{
	falcon_err_t rv;
	size_t olen, tlen, cap, off = 0, pos = 0;
	char *res = NULL;
	long at;
	bool blank = true, replaced = false;

	*out = NULL;
	if (tag == NULL || strncmp(tag, FALCON_TAG_PREFIX, strlen(FALCON_TAG_PREFIX)) != 0 ||
	    tag[token_len(tag)] != '\0') {
		rv = falcon_err_set(FALCON_ERR_INVAL, "tag \"%s\": expected falcon:... without "
				    "blanks or ';'", tag ? tag : "(null)");
		goto fail;
	}
	if (old == NULL)
		old = "";
	olen = strlen(old);
	tlen = strlen(tag);
	cap = olen + tlen + 3;
	if ((res = malloc(cap)) == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "tag merge: %zu bytes", cap);
		goto fail;
	}
	while ((at = next_tag(old, pos)) >= 0) {
		size_t a = (size_t)at, l = token_len(old + a);

		memcpy(res + off, old + pos, a - pos);
		off += a - pos;
		if (!replaced) {
			memcpy(res + off, tag, tlen);
			off += tlen;
			replaced = true;
			pos = a + l;
		} else {
			/* drop the extra token and one separator run before it */
			while (off > 0 && is_sep(res[off - 1]))
				off--;
			pos = a + l;
		}
	}
	memcpy(res + off, old + pos, olen - pos);
	off += olen - pos;
	res[off] = '\0';
	if (!replaced) {
		size_t i;

		for (i = 0; i < off; i++)
			if (!is_sep(res[i]))
				blank = false;
		if (blank) {
			off = 0;
		} else {
			while (off > 0 && is_sep(res[off - 1]))
				off--;
			memcpy(res + off, "; ", 2);
			off += 2;
		}
		memcpy(res + off, tag, tlen);
		off += tlen;
		res[off] = '\0';
	}
	*out = res;
	res = NULL;
	rv = FALCON_OK;
fail:
	free(res);
	return rv;
}

char *falcon_tag_find(const char *comment, char *buf, size_t n)
{
	long at;
	size_t l;

	if (comment == NULL || buf == NULL || (at = next_tag(comment, 0)) < 0)
		return NULL;
	l = token_len(comment + at);
	if (l >= n)
		return NULL;
	memcpy(buf, comment + at, l);
	buf[l] = '\0';
	return buf;
}

/* vocab - the static spelling of v (len bytes) among words[], NULL if none. */
static const char *vocab(const char *v, size_t len, const char *const *words)
{
	for (; *words != NULL; words++)
		if (strlen(*words) == len && memcmp(*words, v, len) == 0)
			return *words;
	return NULL;
}

falcon_err_t falcon_tag_parse(const char *comment, struct falcon_tag *out)
{
	static const char *const topos[] = { "localGPUs", "hybridGPUs", "falconGPUs", NULL };
	static const char *const nvmes[] = { "falcon", "local", NULL };
	static const char *const checks[] = { "pass", "warn", "fail", "skipped", "error", "off",
					      NULL };
	const char *p, *end;
	int blen = 0;
	long at;

	memset(out, 0, sizeof(*out));
	out->busbw = -1;
	out->algbw = -1;
	if (comment == NULL || (at = next_tag(comment, 0)) < 0)
		return falcon_err_set(FALCON_ERR_NOTFOUND, "AdminComment: no falcon: tag");
	p = comment + at + strlen(FALCON_TAG_PREFIX);
	end = comment + at + token_len(comment + at);
	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *kend = comma ? comma : end, *eq = memchr(p, '=', (size_t)(kend - p));
		size_t klen = eq ? (size_t)(eq - p) : (size_t)(kend - p);
		size_t vlen = eq ? (size_t)(kend - eq - 1) : 0;
		const char *v = eq ? eq + 1 : kend;
		char num[32] = "";  /* the value as a string, "" when too long for a number */

		blen = (int)(kend - p);
		if (vlen < sizeof(num)) {
			memcpy(num, v, vlen);
			num[vlen] = '\0';
		}
#define KEY(k) (klen == sizeof(k) - 1 && memcmp(p, k, klen) == 0)
		if (KEY("topo") || KEY("nvme") || KEY("check")) {
			const char *w = vocab(v, vlen, KEY("topo") ? topos : KEY("nvme") ? nvmes
										  : checks);

			if (w == NULL)
				goto bad;
			if (KEY("topo"))
				out->topo = w;
			else if (KEY("nvme"))
				out->nvme = w;
			else
				out->check = w;
		} else if (KEY("l") || KEY("f")) {
			long n;

			if (falcon_strtol(num, 10, 0, FALCON_TRES_MAX, &n) != FALCON_OK)
				goto bad;
			*(KEY("l") ? &out->local_gpus : &out->falcon_gpus) = (int)n;
		} else if (KEY("busbw") || KEY("algbw")) {
			double d;

			if (falcon_strtod(num, 0, 1e6, &d) != FALCON_OK)
				goto bad;
			*(KEY("busbw") ? &out->busbw : &out->algbw) = d;
		} else if (KEY("link")) {
			out->degraded = vlen == 8 && memcmp(v, "degraded", 8) == 0;
		} else if (KEY("auto")) {
			out->auto_topo = vlen == 1 && *v == '1';
		}
#undef KEY
		p = comma ? comma + 1 : end;
	}
	return FALCON_OK;
bad:
	memset(out, 0, sizeof(*out));
	out->busbw = -1;
	out->algbw = -1;
	return falcon_err_set(FALCON_ERR_PARSE, "AdminComment tag: \"%.*s\": unexpected value",
			      blen > 64 ? 64 : blen, p);
}
