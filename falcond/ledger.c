/*
 * ledger.c - falcond's crash-safe ledger: leases, quarantine and
 * per-device history, kept as a snapshot, StateDir/ledger.json (json-c),
 * and a log, StateDir/ledger.log: one line of JSON appended and
 * fdatasynced per commit before anything is acknowledged (the head and the
 * device histories changed since the last line), compacted into a new
 * snapshot now and then.  Generations order the two: a record whose gen
 * is not above the snapshot's is in it already.
 * The bottom of falcond: it calls nothing of falcond's; a closed history
 * entry goes to the sink registered in lg->on_release (the history writer).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "ledger.h"
#include "core/log.h"
#include "core/util.h"

/* 2: "gen" and ledger.log; 1 (falcond 0.1.0): the snapshot alone.  A
 * falcond that knows only 1 refuses a 2 rather than miss the log. */
#define LEDGER_VERSION 2
#define LEDGER_VERSION_MIN 1

long long falcond_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool falcond_job_ended(const uint32_t *jobs, size_t n, long long jobs_ms,
		       const struct falcon_lease *l)
{
	size_t j;

	/* made after the list was read (a reuse of a kept lease takes no
	 * chassis request, so no device of it is touched after the read
	 * began: make soak-fleet saw running jobs' kept devices reclaimed) */
	if (l->created_ms >= jobs_ms)
		return false;
	for (j = 0; j < n; j++)
		if (jobs[j] == l->job_id)
			return false;
	return true;
}

void falcond_ledger_free(struct falcond_ledger *lg)
{
	size_t i;

	if (lg == NULL)
		return;
	free(lg->path);
	free(lg->log_path);
	free(lg->leases);
	free(lg->quar);
	for (i = 0; i < lg->nhist; i++)
		free(lg->hist[i].text);
	free(lg->hist);
	free(lg->settle);
	for (i = 0; i < lg->nltext; i++)
		free(lg->ltext[i].text);
	free(lg->ltext);
	free(lg);
}

struct falcon_lease *falcond_ledger_lease(struct falcond_ledger *lg, const char *id)
{
	size_t i;

	for (i = 0; i < lg->nleases; i++)
		if (strcmp(lg->leases[i].id, id) == 0)
			return &lg->leases[i];
	return NULL;
}

struct falcon_lease *falcond_ledger_device_lease(struct falcond_ledger *lg, const char *chassis,
						 const char *device)
{
	size_t i, j;

	for (i = 0; i < lg->nleases; i++)
		for (j = 0; j < lg->leases[i].ndevs; j++)
			if (strcmp(lg->leases[i].devs[j].id, device) == 0 &&
			    strcmp(lg->leases[i].devs[j].chassis, chassis) == 0)
				return &lg->leases[i];
	return NULL;
}

struct falcond_quarantine *falcond_ledger_quarantined(struct falcond_ledger *lg,
						      const char *chassis, const char *device)
{
	size_t i;

	for (i = 0; i < lg->nquar; i++)
		if (strcmp(lg->quar[i].device, device) == 0 &&
		    strcmp(lg->quar[i].chassis, chassis) == 0)
			return &lg->quar[i];
	return NULL;
}

falcon_err_t falcond_ledger_add_lease(struct falcond_ledger *lg, const struct falcon_lease *l)
{
	struct falcon_lease *nl;
	size_t j;

	if (falcond_ledger_lease(lg, l->id) != NULL)
		return falcon_err_set(FALCON_ERR_CONFLICT, "lease %s: already in the ledger", l->id);
	for (j = 0; j < l->ndevs; j++) {
		const struct falcon_lease *o = falcond_ledger_device_lease(lg, l->devs[j].chassis,
									   l->devs[j].id);
		if (o != NULL)
			return falcon_err_set(FALCON_ERR_CONFLICT, "device %s/%s: already in lease %s",
					      l->devs[j].chassis, l->devs[j].id, o->id);
	}
	nl = realloc(lg->leases, (lg->nleases + 1) * sizeof(*nl));
	if (nl == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "ledger: add lease");
	lg->leases = nl;
	lg->leases[lg->nleases++] = *l;
	return FALCON_OK;
}

void falcond_ledger_remove_lease(struct falcond_ledger *lg, const char *id)
{
	struct falcon_lease *l = falcond_ledger_lease(lg, id);
	size_t i;

	if (l == NULL)
		return;
	i = (size_t)(l - lg->leases);
	memmove(&lg->leases[i], &lg->leases[i + 1], (lg->nleases - i - 1) * sizeof(*l));
	lg->nleases--;
	for (i = 0; i < lg->nsettle; i++)
		if (strcmp(lg->settle[i].lease, id) == 0) {
			lg->settle[i] = lg->settle[--lg->nsettle];
			break;
		}
}

/* settle_of - the settle deadline entry of lease id, created (until 0)
 * when absent; NULL when out of memory. */
static struct falcond_settle *settle_of(struct falcond_ledger *lg, const char *id)
{
	struct falcond_settle *s;
	size_t i;

	for (i = 0; i < lg->nsettle; i++)
		if (strcmp(lg->settle[i].lease, id) == 0)
			return &lg->settle[i];
	s = realloc(lg->settle, (lg->nsettle + 1) * sizeof(*s));
	if (s == NULL)
		return NULL;
	lg->settle = s;
	s = &lg->settle[lg->nsettle++];
	falcon_strlcpy(s->lease, id, sizeof(s->lease));
	s->until_ms = 0;
	return s;
}

bool falcond_ledger_settle_look(struct falcond_ledger *lg, const struct falcon_lease *l,
				const struct falcon_inventory *inv, long long now_ms,
				long long settle_ms, bool *late)
{
	struct falcond_settle *s = settle_of(lg, l->id);
	bool any = false;
	size_t j, k;

	for (j = 0; j < l->ndevs; j++) {
		late[j] = false;
		for (k = 0; k < inv->n; k++)
			if (strcmp(inv->devs[k].id, l->devs[j].id) == 0)
				late[j] = inv->devs[k].owner[0] != '\0';
		if (late[j] && falcond_ledger_quarantined(lg, l->devs[j].chassis, l->devs[j].id))
			late[j] = false;
		any |= late[j];
	}
	if (s == NULL)
		return !any;
	if (s->until_ms == 0 || any)
		s->until_ms = now_ms + settle_ms;
	return !any && now_ms >= s->until_ms;
}

long long falcond_ledger_settle_next(const struct falcond_ledger *lg)
{
	long long next = 0;
	size_t i;

	for (i = 0; i < lg->nsettle; i++)
		if (next == 0 || lg->settle[i].until_ms < next)
			next = lg->settle[i].until_ms;
	return next;
}

falcon_err_t falcond_ledger_quarantine(struct falcond_ledger *lg, const char *chassis,
				       const char *device, const char *reason)
{
	struct falcond_quarantine *q = falcond_ledger_quarantined(lg, chassis, device);

	if (q == NULL) {
		q = realloc(lg->quar, (lg->nquar + 1) * sizeof(*q));
		if (q == NULL)
			return falcon_err_set(FALCON_ERR_NOMEM, "ledger: quarantine");
		lg->quar = q;
		q = &lg->quar[lg->nquar++];
		memset(q, 0, sizeof(*q));
		falcon_strlcpy(q->chassis, chassis, sizeof(q->chassis));
		falcon_strlcpy(q->device, device, sizeof(q->device));
		q->since_ms = falcond_now_ms();
	}
	falcon_strlcpy(q->reason, reason ? reason : "", sizeof(q->reason));
	return FALCON_OK;
}

falcon_err_t falcond_ledger_unquarantine(struct falcond_ledger *lg, const char *chassis,
					 const char *device)
{
	struct falcond_quarantine *q = falcond_ledger_quarantined(lg, chassis, device);
	size_t i;

	if (q == NULL)
		return falcon_err_set(FALCON_ERR_NOTFOUND, "device %s/%s is not quarantined",
				      chassis, device);
	i = (size_t)(q - lg->quar);
	memmove(&lg->quar[i], &lg->quar[i + 1], (lg->nquar - i - 1) * sizeof(*q));
	lg->nquar--;
	return FALCON_OK;
}

static struct falcond_devhist *hist_of(struct falcond_ledger *lg, const char *chassis,
				       const char *device, bool create)
{
	struct falcond_devhist *h;
	size_t i;

	for (i = 0; i < lg->nhist; i++)
		if (strcmp(lg->hist[i].device, device) == 0 &&
		    strcmp(lg->hist[i].chassis, chassis) == 0)
			return &lg->hist[i];
	if (!create)
		return NULL;
	h = realloc(lg->hist, (lg->nhist + 1) * sizeof(*h));
	if (h == NULL)
		return NULL;
	lg->hist = h;
	h = &lg->hist[lg->nhist++];
	memset(h, 0, sizeof(*h));
	falcon_strlcpy(h->chassis, chassis, sizeof(h->chassis));
	falcon_strlcpy(h->device, device, sizeof(h->device));
	return h;
}

falcon_err_t falcond_ledger_record_attach(struct falcond_ledger *lg, const struct falcon_lease *l,
					  const struct falcon_lease_dev *d)
{
	struct falcond_devhist *h = hist_of(lg, d->chassis, d->id, true);
	struct falcond_hist *e;

	if (h == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "ledger: history");
	if (h->n == FALCOND_HIST_MAX) {
		memmove(&h->h[0], &h->h[1], (FALCOND_HIST_MAX - 1) * sizeof(h->h[0]));
		h->n--;
	}
	free(h->text);
	h->text = NULL;
	h->logged = false;
	e = &h->h[h->n++];
	memset(e, 0, sizeof(*e));
	e->job_id = l->job_id;
	falcon_strlcpy(e->lease, l->id, sizeof(e->lease));
	falcon_strlcpy(e->host, l->host, sizeof(e->host));
	e->attached_ms = falcond_now_ms();
	return FALCON_OK;
}

void falcond_ledger_record_release(struct falcond_ledger *lg, const char *lease,
				   const struct falcon_lease_dev *d, const char *result)
{
	struct falcond_devhist *h = hist_of(lg, d->chassis, d->id, false);
	size_t i;

	for (i = h ? h->n : 0; i-- > 0;)
		if (strcmp(h->h[i].lease, lease) == 0 && h->h[i].detached_ms == 0) {
			const struct falcon_lease *l = falcond_ledger_lease(lg, lease);

			h->h[i].detached_ms = falcond_now_ms();
			falcon_strlcpy(h->h[i].result, result, sizeof(h->h[i].result));
			if (lg->on_release != NULL)
				lg->on_release(h->chassis, h->device, &h->h[i], l ? l->uid : -1);
			free(h->text);
			h->text = NULL;
			h->logged = false;
			return;
		}
}

/* devhist_json - one "devices" entry of the file (a new object). */
static json_object *devhist_json(const struct falcond_devhist *dh)
{
	json_object *e = json_object_new_object(), *ea = json_object_new_array();
	size_t j;

	json_object_object_add(e, "chassis", json_object_new_string(dh->chassis));
	json_object_object_add(e, "device", json_object_new_string(dh->device));
	for (j = 0; j < dh->n; j++) {
		const struct falcond_hist *x = &dh->h[j];
		json_object *y = json_object_new_object();

		json_object_object_add(y, "job_id", json_object_new_int64(x->job_id));
		json_object_object_add(y, "lease", json_object_new_string(x->lease));
		json_object_object_add(y, "host", json_object_new_string(x->host));
		json_object_object_add(y, "attached", json_object_new_int64(x->attached_ms));
		json_object_object_add(y, "detached", json_object_new_int64(x->detached_ms));
		json_object_object_add(y, "result", json_object_new_string(x->result));
		json_object_array_add(ea, y);
	}
	json_object_object_add(e, "history", ea);
	return e;
}

/* quarantine_json - the file's "quarantine" array (a new object). */
static json_object *quarantine_json(const struct falcond_ledger *lg)
{
	json_object *q = json_object_new_array();
	size_t i;

	for (i = 0; i < lg->nquar; i++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "chassis", json_object_new_string(lg->quar[i].chassis));
		json_object_object_add(e, "device", json_object_new_string(lg->quar[i].device));
		json_object_object_add(e, "reason", json_object_new_string(lg->quar[i].reason));
		json_object_object_add(e, "since", json_object_new_int64(lg->quar[i].since_ms));
		json_object_array_add(q, e);
	}
	return q;
}

/* ledger_head - the file's object without the device histories ("devices"
 * last, empty). */
static json_object *ledger_head(const struct falcond_ledger *lg)
{
	json_object *o = json_object_new_object();
	json_object *a = json_object_new_array();
	size_t i;

	json_object_object_add(o, "version", json_object_new_int(LEDGER_VERSION));
	json_object_object_add(o, "gen", json_object_new_int64((int64_t)lg->gen));
	json_object_object_add(o, "seq", json_object_new_int64((int64_t)lg->seq));
	for (i = 0; i < lg->nleases; i++)
		json_object_array_add(a, falcon_proto_lease_json(&lg->leases[i]));
	json_object_object_add(o, "leases", a);
	json_object_object_add(o, "quarantine", quarantine_json(lg));
	json_object_object_add(o, "devices", json_object_new_array());
	return o;
}

json_object *falcond_ledger_json(const struct falcond_ledger *lg)
{
	json_object *o = ledger_head(lg), *h;
	size_t i;

	if (o == NULL || !json_object_object_get_ex(o, "devices", &h))
		return o;
	for (i = 0; i < lg->nhist; i++)
		json_object_array_add(h, devhist_json(&lg->hist[i]));
	return o;
}

char *falcond_ledger_text(struct falcond_ledger *lg)
{
	static const char tail[] = "\"devices\":[]}";
	json_object *o = ledger_head(lg);
	const char *head = o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN) : NULL;
	size_t hlen = head ? strlen(head) : 0, len, i;
	char *text = NULL, *p;

	/* head ends with "devices":[]}: the histories go between the brackets */
	if (head == NULL || hlen < sizeof(tail) - 1 ||
	    strcmp(head + hlen - (sizeof(tail) - 1), tail) != 0)
		goto fail;
	len = hlen + 1;
	for (i = 0; i < lg->nhist; i++) {
		struct falcond_devhist *dh = &lg->hist[i];

		if (dh->text == NULL) {
			json_object *e = devhist_json(dh);
			const char *t = e ? json_object_to_json_string_ext(e, JSON_C_TO_STRING_PLAIN)
					  : NULL;

			dh->text = t ? strdup(t) : NULL;
			json_object_put(e);
			if (dh->text == NULL)
				goto fail;
		}
		len += strlen(dh->text) + 1;
	}
	text = malloc(len);
	if (text == NULL)
		goto fail;
	p = text;
	memcpy(p, head, hlen - 2); /* up to and with '[' */
	p += hlen - 2;
	for (i = 0; i < lg->nhist; i++) {
		size_t n = strlen(lg->hist[i].text);

		if (i > 0)
			*p++ = ',';
		memcpy(p, lg->hist[i].text, n);
		p += n;
	}
	memcpy(p, "]}", 3);
fail:
	json_object_put(o);
	return text;
}

/* Field getters for the ledger file: a missing or mistyped field names itself. */
static falcon_err_t jstr(json_object *o, const char *ctx, const char *key, char *out, size_t n)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string) ||
	    (size_t)json_object_get_string_len(v) >= n)
		return falcon_err_set(FALCON_ERR_PARSE, "%s.%s: expected a string of < %zu bytes",
				      ctx, key, n);
	memcpy(out, json_object_get_string(v), (size_t)json_object_get_string_len(v) + 1);
	return FALCON_OK;
}

static falcon_err_t jint(json_object *o, const char *ctx, const char *key, long long min,
			 long long max, long long *out)
{
	json_object *v;
	int64_t x;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		return falcon_err_set(FALCON_ERR_PARSE, "%s.%s: expected an integer", ctx, key);
	errno = 0;
	x = json_object_get_int64(v);
	if (errno != 0 || x < min || x > max)
		return falcon_err_set(FALCON_ERR_PARSE, "%s.%s: %lld not in [%lld, %lld]",
				      ctx, key, (long long)x, min, max);
	*out = x;
	return FALCON_OK;
}

static falcon_err_t jarr(json_object *o, const char *ctx, const char *key, json_object **out)
{
	if (!json_object_object_get_ex(o, key, out) || !json_object_is_type(*out, json_type_array))
		return falcon_err_set(FALCON_ERR_PARSE, "%s.%s: expected an array", ctx, key);
	return FALCON_OK;
}

/* lease_num - N of a lease id "L-N" as falcond_compose makes them, else 0. */
static unsigned long long lease_num(const char *id)
{
	long n;

	if (strncmp(id, "L-", 2) != 0 || falcon_strtol(id + 2, 10, 0, LONG_MAX, &n) != FALCON_OK)
		return 0;
	return (unsigned long long)n;
}

/*
 * check_seq - ledger.seq is the last lease number handed out, so no lease
 * id "L-N" in the ledger (leases, device history) may have N > seq: a new
 * lease would reuse an id.  Such a file was edited or restored by hand;
 * repaired to the highest N found, with a warning (refusing to start would
 * take composition away from the whole cluster over a counter that can be
 * set right without losing anything).
 */
static void check_seq(struct falcond_ledger *lg)
{
	unsigned long long max = lg->seq, n;
	size_t i, j;

	for (i = 0; i < lg->nleases; i++)
		if ((n = lease_num(lg->leases[i].id)) > max)
			max = n;
	for (i = 0; i < lg->nhist; i++)
		for (j = 0; j < lg->hist[i].n; j++)
			if ((n = lease_num(lg->hist[i].h[j].lease)) > max)
				max = n;
	if (max == lg->seq)
		return;
	falcon_warn("ledger.seq is %llu but the ledger names lease L-%llu: new lease ids "
		    "continue after L-%llu", lg->seq, max, max);
	lg->seq = max;
}

falcon_err_t falcond_ledger_from_json(json_object *o, struct falcond_ledger *lg)
{
	json_object *a;
	falcon_err_t rv;
	long long x;
	size_t i, j, n;
	char ctx[64];
	char detail[1024];

	if (!json_object_is_type(o, json_type_object))
		return falcon_err_set(FALCON_ERR_PARSE, "ledger: expected a JSON object");
	if ((rv = jint(o, "ledger", "version", LEDGER_VERSION_MIN, LEDGER_VERSION, &x)) != FALCON_OK)
		return rv;
	if (x < LEDGER_VERSION)
		lg->log_ok = false; /* written again as a snapshot of this version */
	else if ((rv = jint(o, "ledger", "gen", 0, LLONG_MAX, &x)) != FALCON_OK)
		return rv;
	else
		lg->gen = (unsigned long long)x;
	if ((rv = jint(o, "ledger", "seq", 0, LLONG_MAX, &x)) != FALCON_OK)
		return rv;
	lg->seq = (unsigned long long)x;
	if ((rv = jarr(o, "ledger", "leases", &a)) != FALCON_OK)
		return rv;
	n = json_object_array_length(a);
	for (i = 0; i < n; i++) {
		struct falcon_lease l;

		rv = falcon_proto_lease_from_json(json_object_array_get_idx(a, i), &l);
		if (rv == FALCON_OK)
			rv = falcond_ledger_add_lease(lg, &l);
		if (rv != FALCON_OK) {
			snprintf(detail, sizeof(detail), "%s", falcon_errmsg());
			return falcon_err_set(FALCON_ERR_PARSE, "ledger.leases[%zu]: %s", i, detail);
		}
	}
	if ((rv = jarr(o, "ledger", "quarantine", &a)) != FALCON_OK)
		return rv;
	n = json_object_array_length(a);
	for (i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(a, i);
		struct falcond_quarantine q;

		snprintf(ctx, sizeof(ctx), "ledger.quarantine[%zu]", i);
		if ((rv = jstr(e, ctx, "chassis", q.chassis, sizeof(q.chassis))) != FALCON_OK ||
		    (rv = jstr(e, ctx, "device", q.device, sizeof(q.device))) != FALCON_OK ||
		    (rv = jstr(e, ctx, "reason", q.reason, sizeof(q.reason))) != FALCON_OK ||
		    (rv = jint(e, ctx, "since", 0, LLONG_MAX, &x)) != FALCON_OK)
			return rv;
		if ((rv = falcond_ledger_quarantine(lg, q.chassis, q.device, q.reason)) != FALCON_OK)
			return rv;
		lg->quar[lg->nquar - 1].since_ms = x;
	}
	if ((rv = jarr(o, "ledger", "devices", &a)) != FALCON_OK)
		return rv;
	n = json_object_array_length(a);
	for (i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(a, i), *ea;
		char ch[FALCON_NAME_LEN], dev[FALCON_NAME_LEN];
		struct falcond_devhist *h;

		snprintf(ctx, sizeof(ctx), "ledger.devices[%zu]", i);
		if ((rv = jstr(e, ctx, "chassis", ch, sizeof(ch))) != FALCON_OK ||
		    (rv = jstr(e, ctx, "device", dev, sizeof(dev))) != FALCON_OK ||
		    (rv = jarr(e, ctx, "history", &ea)) != FALCON_OK)
			return rv;
		/* a second entry would append past FALCOND_HIST_MAX */
		if (hist_of(lg, ch, dev, false) != NULL)
			return falcon_err_set(FALCON_ERR_PARSE, "%s: %s/%s listed twice", ctx, ch, dev);
		h = hist_of(lg, ch, dev, true);
		if (h == NULL)
			return falcon_err_set(FALCON_ERR_NOMEM, "ledger: history");
		h->logged = true; /* it is in the file it came from */
		for (j = 0; j < json_object_array_length(ea) && j < FALCOND_HIST_MAX; j++) {
			json_object *y = json_object_array_get_idx(ea, j);
			struct falcond_hist *hx = &h->h[h->n];

			snprintf(ctx, sizeof(ctx), "ledger.devices[%zu].history[%zu]", i, j);
			if ((rv = jint(y, ctx, "job_id", 0, UINT32_MAX, &x)) != FALCON_OK)
				return rv;
			hx->job_id = (uint32_t)x;
			if ((rv = jstr(y, ctx, "lease", hx->lease, sizeof(hx->lease))) != FALCON_OK ||
			    (rv = jstr(y, ctx, "host", hx->host, sizeof(hx->host))) != FALCON_OK ||
			    (rv = jstr(y, ctx, "result", hx->result, sizeof(hx->result))) != FALCON_OK ||
			    (rv = jint(y, ctx, "attached", 0, LLONG_MAX, &hx->attached_ms)) != FALCON_OK ||
			    (rv = jint(y, ctx, "detached", 0, LLONG_MAX, &hx->detached_ms)) != FALCON_OK)
				return rv;
			h->n++;
		}
	}
	check_seq(lg);
	return FALCON_OK;
}

/* parse_text - buf[len] as one JSON value (*o, caller puts); what is wrong
 * into why[n] (json-c's words and the byte) when it is not. */
static bool parse_text(const char *buf, size_t len, json_object **o, char *why, size_t n)
{
	json_tokener *tok = json_tokener_new();
	size_t end;
	bool ok;

	*o = tok ? json_tokener_parse_ex(tok, buf, (int)len) : NULL;
	ok = *o != NULL && json_tokener_get_error(tok) == json_tokener_success;
	/* white space may follow (a file edited by hand ends with a newline) */
	for (end = ok ? json_tokener_get_parse_end(tok) : len; end < len; end++)
		if (strchr(" \t\r\n", buf[end]) == NULL || buf[end] == '\0')
			ok = false;
	if (!ok)
		snprintf(why, n, "%s at byte %zu of %zu",
			 tok == NULL ? "no memory"
			 : json_tokener_get_error(tok) != json_tokener_success
				 ? json_tokener_error_desc(json_tokener_get_error(tok))
				 : *o == NULL ? "incomplete JSON" : "text after the JSON value",
			 tok ? json_tokener_get_parse_end(tok) : 0, len);
	if (!ok) {
		json_object_put(*o);
		*o = NULL;
	}
	if (tok)
		json_tokener_free(tok);
	return ok;
}

/* ledger_take - record r's head replaces lg's, r's device histories
 * replace lg's of the same devices (r is left without leases and
 * quarantine).  FALCON_ERR_NOMEM. */
static falcon_err_t ledger_take(struct falcond_ledger *lg, struct falcond_ledger *r)
{
	size_t i;

	free(lg->leases);
	lg->leases = r->leases;
	lg->nleases = r->nleases;
	r->leases = NULL;
	r->nleases = 0;
	free(lg->quar);
	lg->quar = r->quar;
	lg->nquar = r->nquar;
	r->quar = NULL;
	r->nquar = 0;
	lg->seq = r->seq;
	lg->gen = r->gen;
	for (i = 0; i < r->nhist; i++) {
		struct falcond_devhist *h = hist_of(lg, r->hist[i].chassis, r->hist[i].device, true);

		if (h == NULL)
			return falcon_err_set(FALCON_ERR_NOMEM, "ledger: history");
		free(h->text);
		h->text = NULL;
		h->n = r->hist[i].n;
		memcpy(h->h, r->hist[i].h, sizeof(h->h));
		h->logged = true;
	}
	return FALCON_OK;
}

/* log_apply - one complete log line (line[len], NUL-terminated): replayed
 * into lg when its gen is above lg's, skipped otherwise (already in the
 * snapshot).  FALCON_ERR_PARSE with what is wrong (no file name),
 * FALCON_ERR_NOMEM. */
static falcon_err_t log_apply(struct falcond_ledger *lg, const char *line, size_t len)
{
	struct falcond_ledger *r = NULL;
	json_object *o = NULL;
	falcon_err_t rv;
	char why[256];
	long long gen;

	if (!parse_text(line, len, &o, why, sizeof(why)))
		return falcon_err_set(FALCON_ERR_PARSE, "%s", why);
	if (!json_object_is_type(o, json_type_object)) {
		rv = falcon_err_set(FALCON_ERR_PARSE, "expected a JSON object");
		goto out;
	}
	if ((rv = jint(o, "record", "gen", 1, LLONG_MAX, &gen)) != FALCON_OK)
		goto out;
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "ledger: record");
		goto out;
	}
	/* parsed even when skipped: a record that does not parse is not
	 * passed over in silence */
	if ((rv = falcond_ledger_from_json(o, r)) != FALCON_OK)
		goto out;
	if ((unsigned long long)gen > lg->gen)
		rv = ledger_take(lg, r);
out:
	falcond_ledger_free(r);
	json_object_put(o);
	return rv;
}

/* log_read - the log's text into *buf (*len bytes; NULL when there is
 * no log: an empty one), before the snapshot is read (falcond_ledger_load).
 * FALCON_ERR_IO, FALCON_ERR_NOMEM. */
static falcon_err_t log_read(struct falcond_ledger *lg, char **buf, size_t *len)
{
	struct stat sb;
	falcon_err_t rv;

	*buf = NULL;
	*len = 0;
	/* a FIFO would block the read (and release a held writer) */
	if (stat(lg->log_path, &sb) == 0 && !S_ISREG(sb.st_mode))
		return falcon_err_set(FALCON_ERR_IO, "%s: not a regular file", lg->log_path);
	rv = falcon_read_file(lg->log_path, FALCOND_LEDGER_MAX, buf, len);
	return rv == FALCON_ERR_NOTFOUND ? FALCON_OK : rv;
}

/* log_replay - the records of the log's text buf (len bytes, changed in
 * place; NULL: none) replayed into lg (lg->log_bytes: its whole lines'
 * length; a torn last line cut off with a warning, lg->log_ok cleared).
 * FALCON_ERR_PARSE naming the file and line, FALCON_ERR_NOMEM. */
static falcon_err_t log_replay(struct falcond_ledger *lg, char *buf, size_t len)
{
	char *p, *nl, detail[1024];
	size_t line = 1;
	falcon_err_t rv = FALCON_OK;

	if (buf == NULL)
		return FALCON_OK;
	for (p = buf; p < buf + len; p = nl + 1, line++) {
		nl = memchr(p, '\n', (size_t)(buf + len - p));
		if (nl == NULL) {
			falcon_warn("%s:%zu: torn last record (%zu bytes without a newline: a "
				    "write that a crash cut short, never acknowledged) ignored",
				    lg->log_path, line, (size_t)(buf + len - p));
			lg->log_ok = false;
			break;
		}
		*nl = '\0';
		rv = log_apply(lg, p, (size_t)(nl - p));
		if (rv != FALCON_OK) {
			snprintf(detail, sizeof(detail), "%s", falcon_errmsg());
			rv = falcon_err_set(rv == FALCON_ERR_NOMEM ? rv : FALCON_ERR_PARSE,
					    "%s:%zu: corrupted ledger log record: %s; falcond will "
					    "not start over it: inspect it, restore a copy or move "
					    "it away", lg->log_path, line, detail);
			break;
		}
	}
	lg->log_bytes = (size_t)(p - buf);
	return rv;
}

falcon_err_t falcond_ledger_load(const char *state_dir, struct falcond_ledger **out)
{
	struct falcond_ledger *lg = calloc(1, sizeof(*lg));
	json_object *o = NULL;
	char *buf = NULL, *log = NULL;
	size_t len = 0, loglen = 0;
	falcon_err_t rv;
	char why[256];

	if (lg == NULL || asprintf(&lg->path, "%s/" FALCOND_LEDGER_FILE, state_dir) < 0 ||
	    asprintf(&lg->log_path, "%s/" FALCOND_LEDGER_LOG, state_dir) < 0) {
		if (lg) {
			free(lg->path);
			lg->path = lg->log_path = NULL;
		}
		rv = falcon_err_set(FALCON_ERR_NOMEM, "ledger");
		goto fail;
	}
	lg->log_ok = true;
	/* the log first: a live falcond (falcond --dump-ledger) may compact
	 * between the two reads, and the old snapshot read together with the
	 * new, empty log lost every commit between the two snapshots (make
	 * soak-fleet's job checks: "lease holds 0 devices" for running jobs).
	 * Read in this order, a snapshot written meanwhile holds every record
	 * of the log read before it (their gens are not above its own) */
	if ((rv = log_read(lg, &log, &loglen)) != FALCON_OK)
		goto fail;
	rv = falcon_read_file(lg->path, FALCOND_LEDGER_MAX, &buf, &len);
	if (rv == FALCON_ERR_NOTFOUND)
		goto log;
	if (rv != FALCON_OK)
		goto fail;
	lg->snap_bytes = len;
	if (!parse_text(buf, len, &o, why, sizeof(why))) {
		rv = falcon_err_set(FALCON_ERR_PARSE,
				    "%s: corrupted ledger (%s); falcond will not "
				    "start over it: inspect it, restore a copy or move it away",
				    lg->path, why);
		goto fail;
	}
	rv = falcond_ledger_from_json(o, lg);
	if (rv != FALCON_OK) {
		char detail[1024];

		snprintf(detail, sizeof(detail), "%s", falcon_errmsg());
		rv = falcon_err_set(FALCON_ERR_PARSE, "%s: corrupted ledger: %s", lg->path, detail);
		goto fail;
	}
log:
	if ((rv = log_replay(lg, log, loglen)) != FALCON_OK)
		goto fail;
	check_seq(lg);
	*out = lg;
	lg = NULL;
	rv = FALCON_OK;
fail:
	json_object_put(o);
	free(buf);
	free(log);
	falcond_ledger_free(lg);
	return rv;
}

/* lease_bytes - the bytes of l that hold it (up to devs[ndevs]). */
static size_t lease_bytes(const struct falcon_lease *l)
{
	size_t n = l->ndevs < FALCON_PROTO_MAX_DEVS ? l->ndevs : FALCON_PROTO_MAX_DEVS;

	return offsetof(struct falcon_lease, devs) + n * sizeof(l->devs[0]);
}

/* lease_text - the JSON of lease i of lg: the text kept from the last
 * record when the lease is the same (moved out of lg->ltext), else a new
 * one; c->l set to the lease.  false when out of memory. */
static bool lease_text(struct falcond_ledger *lg, size_t i, struct falcond_lease_text *c)
{
	const struct falcon_lease *l = &lg->leases[i];
	size_t n = lease_bytes(l), k;
	json_object *j;
	const char *t;

	/* from the same place on: leases keep their order */
	for (k = 0; k < lg->nltext; k++) {
		struct falcond_lease_text *o = &lg->ltext[(i + k) % lg->nltext];

		if (o->text != NULL && strcmp(o->l.id, l->id) == 0) {
			if (o->l.ndevs == l->ndevs && memcmp(&o->l, l, n) == 0) {
				c->text = o->text;
				o->text = NULL;
			}
			break;
		}
	}
	if (c->text == NULL) {
		j = falcon_proto_lease_json(l);
		t = j ? json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN) : NULL;
		c->text = t ? strdup(t) : NULL;
		json_object_put(j);
		if (c->text == NULL)
			return false;
	}
	memcpy(&c->l, l, n);
	return true;
}

/* record_text - a log record of lg as it is (its gen set): the head and
 * the histories not logged, one line; a new string (*len bytes), NULL
 * when out of memory.  The leases' texts are kept for the next record
 * (lg->ltext): a commit changes a few leases of many. */
static char *record_text(struct falcond_ledger *lg, size_t *len)
{
	struct falcond_lease_text *nc = calloc(lg->nleases ? lg->nleases : 1, sizeof(*nc));
	json_object *q = quarantine_json(lg), *d = json_object_new_array();
	const char *qs, *ds;
	char *text = NULL, *p;
	size_t i, total = 0;

	if (nc == NULL || q == NULL || d == NULL)
		goto out;
	for (i = 0; i < lg->nleases; i++) {
		if (!lease_text(lg, i, &nc[i]))
			goto out;
		total += strlen(nc[i].text) + 1;
	}
	for (i = 0; i < lg->nhist; i++)
		if (!lg->hist[i].logged)
			json_object_array_add(d, devhist_json(&lg->hist[i]));
	qs = json_object_to_json_string_ext(q, JSON_C_TO_STRING_PLAIN);
	ds = json_object_to_json_string_ext(d, JSON_C_TO_STRING_PLAIN);
	if (qs == NULL || ds == NULL)
		goto out;
	total += strlen(qs) + strlen(ds) + 160;
	text = malloc(total);
	if (text == NULL)
		goto out;
	p = text + snprintf(text, total, "{\"version\":%d,\"gen\":%llu,\"seq\":%llu,\"leases\":[",
			    LEDGER_VERSION, lg->gen, lg->seq);
	for (i = 0; i < lg->nleases; i++)
		p += sprintf(p, "%s%s", i ? "," : "", nc[i].text);
	p += sprintf(p, "],\"quarantine\":%s,\"devices\":%s}\n", qs, ds);
	*len = (size_t)(p - text);
	/* the texts of this record replace those of the last */
	for (i = 0; i < lg->nltext; i++)
		free(lg->ltext[i].text);
	free(lg->ltext);
	lg->ltext = nc;
	lg->nltext = lg->nleases;
	nc = NULL;
out:
	for (i = 0; nc != NULL && i < lg->nleases; i++)
		free(nc[i].text);
	free(nc);
	json_object_put(q);
	json_object_put(d);
	return text;
}

falcon_err_t falcond_ledger_write_prepare(struct falcond_ledger *lg,
					  struct falcond_ledger_write *w)
{
	size_t i;

	memset(w, 0, sizeof(*w));
	w->snapshot = !lg->log_ok || lg->log_bytes >= FALCOND_LEDGER_MAX / 2 ||
		      (lg->log_bytes >= FALCOND_LOG_COMPACT && lg->log_bytes / 4 >= lg->snap_bytes);
	w->gen = ++lg->gen;
	if (w->snapshot) {
		w->text = falcond_ledger_text(lg);
		w->len = w->text ? strlen(w->text) : 0;
	} else {
		w->text = record_text(lg, &w->len);
	}
	if (w->text == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "ledger: serialise");
	for (i = 0; i < lg->nhist; i++)
		lg->hist[i].logged = true;
	return FALCON_OK;
}

falcon_err_t falcond_ledger_write_do(const struct falcond_ledger *lg,
				     struct falcond_ledger_write *w)
{
	struct stat sb;
	falcon_err_t rv;

	if (!w->snapshot)
		return falcon_append_file_sync(lg->log_path, w->text, w->len, 0600);
	/* a log that could not be replaced after the snapshot fails the write
	 * before it: a failed commit leaves the files as they were */
	if (stat(lg->log_path, &sb) == 0 && !S_ISREG(sb.st_mode))
		return falcon_err_set(FALCON_ERR_IO, "%s: not a regular file", lg->log_path);
	rv = falcon_write_file_atomic(lg->path, w->text, w->len, 0600);
	if (rv != FALCON_OK)
		return rv;
	/* the snapshot holds everything: the log's records are void (their
	 * gens are not above its own), whether the empty log lands or not */
	w->log_fresh = falcon_write_file_atomic(lg->log_path, "", 0, 0600) == FALCON_OK;
	if (!w->log_fresh)
		falcon_warn("ledger: compaction: %s (the snapshot %s is written; the next "
			    "write tries again)", falcon_errmsg(), lg->path);
	return FALCON_OK;
}

void falcond_ledger_write_done(struct falcond_ledger *lg, struct falcond_ledger_write *w,
			       falcon_err_t rv)
{
	if (rv != FALCON_OK) {
		lg->log_ok = false;
	} else if (!w->snapshot) {
		lg->log_bytes += w->len;
	} else {
		lg->snap_bytes = w->len;
		lg->log_ok = w->log_fresh;
		if (w->log_fresh)
			lg->log_bytes = 0;
	}
	free(w->text);
	w->text = NULL;
}

falcon_err_t falcond_ledger_save(struct falcond_ledger *lg)
{
	struct falcond_ledger_write w;
	falcon_err_t rv;

	rv = falcond_ledger_write_prepare(lg, &w);
	if (rv == FALCON_OK)
		rv = falcond_ledger_write_do(lg, &w);
	falcond_ledger_write_done(lg, &w, rv);
	return rv;
}

falcon_err_t falcond_ledger_compact(struct falcond_ledger *lg)
{
	lg->log_ok = false;
	return falcond_ledger_save(lg);
}

bool falcond_lease_kept(const struct falcon_lease *l)
{
	return strcmp(l->state, "kept") == 0;
}

/* falcond_lease_in_flight - a lease in state "composing" or "settling";
 * a dead falcond's unless it is live (state.h, falcond_live_has). */
bool falcond_lease_in_flight(const struct falcon_lease *l)
{
	return strcmp(l->state, "composing") == 0 || strcmp(l->state, "settling") == 0;
}

/* a lease's devices on one port fit one set */
_Static_assert(FALCON_CHASSIS_SET_MAX >= FALCON_PROTO_MAX_DEVS, "FALCON_CHASSIS_SET_MAX");

/* falcond_lease_port_first - devs[i] is the first device of l on its port. */
bool falcond_lease_port_first(const struct falcon_lease *l, size_t i)
{
	size_t k;

	for (k = 0; k < i; k++)
		if (strcmp(l->devs[k].port, l->devs[i].port) == 0)
			return false;
	return true;
}

/* falcond_lease_port_set - the ids of l's devices on port into ids (as many as l has),
 * only those with sent[i] set unless sent is NULL; returns how many. */
size_t falcond_lease_port_set(const struct falcon_lease *l, const char *port, const bool *sent,
		       const char **ids)
{
	size_t i, n = 0;

	for (i = 0; i < l->ndevs && n < FALCON_CHASSIS_SET_MAX; i++)
		if (strcmp(l->devs[i].port, port) == 0 && (sent == NULL || sent[i]))
			ids[n++] = l->devs[i].id;
	return n;
}
