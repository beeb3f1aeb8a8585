/*
 * sim_subs.c - falcon-sim's EventService subscriptions: the
 * EventDestination resources (create, read, delete) and the thread that
 * delivers the kept events (sim_events.c) to each by HTTP(S) POST.
 *
 * References: DSP0266 1.20 sec. 13.5.3 "Event subscription" (POST to the
 * Subscriptions collection answers 201 with Location; Destination and
 * Protocol are required; events are POSTed to Destination with the
 * subscription's HttpHeaders; Context is echoed in each Event);
 * EventDestination.v1_13_0 (Destination, Protocol "Redfish", Context,
 * RegistryPrefixes, ResourceTypes, HttpHeaders "shall be null or an empty
 * array in responses", SubscriptionType "RedfishEvent", EventFormatType
 * "Event", DeliveryRetryPolicy); EventService.v1_10_0
 * (DeliveryRetryAttempts, DeliveryRetryIntervalSeconds); Event.v1_7_0
 * (Context).  The privileges (DSP8011 Redfish_1.x PrivilegeRegistry:
 * POST on EventDestinationCollection ConfigureManager or
 * ConfigureComponents; DELETE on an EventDestination ConfigureManager, or
 * ConfigureSelf for its owner) are applied by sim_redfish.c.
 *
 * Under sim_redfish.c and falcon-sim.c; calls neither.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "core/log.h"
#include "core/util.h"
#include "sim_server.h"

#define RF "/redfish/v1"
#define POST_TIMEOUT_MS 5000L

/* str_list - a JSON array of strings into out[max][len]; -1 when o is not
 * such an array (or too long). */
static int str_list(struct json_object *o, char (*out)[32], int max)
{
	size_t i, n;

	if (!json_object_is_type(o, json_type_array) || (n = json_object_array_length(o)) > (size_t)max)
		return -1;
	for (i = 0; i < n; i++) {
		struct json_object *v = json_object_array_get_idx(o, i);

		if (!json_object_is_type(v, json_type_string) ||
		    falcon_strlcpy(out[i], json_object_get_string(v), 32) >= 32)
			return -1;
	}
	return (int)n;
}

/* headers - HttpHeaders {name: value} into s; false when malformed (a name
 * with ':' or a CR/LF anywhere would inject headers). */
static bool headers(struct json_object *o, struct sim_sub *s)
{
	if (!json_object_is_type(o, json_type_object))
		return false;
	json_object_object_foreach(o, k, v) {
		const char *val = json_object_get_string(v);

		if (s->nheaders == SIM_SUB_HEADERS || !json_object_is_type(v, json_type_string) ||
		    k[0] == '\0' || strpbrk(k, ":\r\n ") != NULL || strpbrk(val, "\r\n") != NULL ||
		    falcon_strlcpy(s->hname[s->nheaders], k, sizeof(s->hname[0])) >= sizeof(s->hname[0]) ||
		    falcon_strlcpy(s->hvalue[s->nheaders], val, sizeof(s->hvalue[0])) >= sizeof(s->hvalue[0]))
			return false;
		s->nheaders++;
	}
	return true;
}

/* str_prop - the string property k of body into out (n bytes): 1 when set,
 * 0 when absent, -1 when not a string or too long. */
static int str_prop(struct json_object *body, const char *k, char *out, size_t n)
{
	struct json_object *v;

	if (!json_object_object_get_ex(body, k, &v))
		return 0;
	if (!json_object_is_type(v, json_type_string) ||
	    falcon_strlcpy(out, json_object_get_string(v), n) >= n)
		return -1;
	return 1;
}

/* sub_parse - the body's properties into s; NULL, or the reply's MessageId
 * key with msg (n bytes) saying which property and why. */
static const char *sub_parse(struct json_object *body, struct sim_sub *s, char *msg, size_t n)
{
	static const char *const known[] = { "Destination", "Protocol", "Context",
		"RegistryPrefixes", "ResourceTypes", "HttpHeaders", "EventFormatType",
		"SubscriptionType", "DeliveryRetryPolicy", "Name" };
	char proto[32] = "", fmt[32] = "", type[32] = "", pol[32] = "", name[64];
	struct json_object *v;
	size_t i;
	int rc;

	json_object_object_foreach(body, k, val) {
		(void)val;
		for (i = 0; i < ARRAY_SIZE(known) && strcmp(known[i], k) != 0; i++)
			;
		if (i == ARRAY_SIZE(known)) {
			snprintf(msg, n, "The property %.64s is not in the list of valid properties "
				 "for the resource.", k);
			return "PropertyUnknown";
		}
	}
	if ((rc = str_prop(body, "Destination", s->dest, sizeof(s->dest))) <= 0 ||
	    (strncmp(s->dest, "http://", 7) != 0 && strncmp(s->dest, "https://", 8) != 0) ||
	    strpbrk(s->dest, " \r\n") != NULL) {
		snprintf(msg, n, "Destination: %s.", rc == 0 ? "required"
			 : "expected an http:// or https:// URI of at most 511 characters");
		return rc == 0 ? "PropertyMissing" : "PropertyValueFormatError";
	}
	if ((rc = str_prop(body, "Protocol", proto, sizeof(proto))) <= 0 ||
	    strcmp(proto, "Redfish") != 0) {
		snprintf(msg, n, "Protocol: %s.", rc == 0 ? "required" : "only Redfish is supported");
		return rc == 0 ? "PropertyMissing" : "PropertyValueNotInList";
	}
	if (str_prop(body, "Context", s->context, sizeof(s->context)) < 0 ||
	    str_prop(body, "Name", name, sizeof(name)) < 0) {
		snprintf(msg, n, "Context and Name: expected strings (Context at most 255 characters).");
		return "PropertyValueFormatError";
	}
	if (str_prop(body, "EventFormatType", fmt, sizeof(fmt)) < 0 || (fmt[0] && strcmp(fmt, "Event")) ||
	    str_prop(body, "SubscriptionType", type, sizeof(type)) < 0 ||
	    (type[0] && strcmp(type, "RedfishEvent")) ||
	    str_prop(body, "DeliveryRetryPolicy", pol, sizeof(pol)) < 0 ||
	    (pol[0] && strcmp(pol, "TerminateAfterRetries"))) {
		snprintf(msg, n, "EventFormatType Event, SubscriptionType RedfishEvent and "
			 "DeliveryRetryPolicy TerminateAfterRetries are the only ones supported.");
		return "PropertyValueNotInList";
	}
	if (json_object_object_get_ex(body, "RegistryPrefixes", &v) &&
	    (s->nprefixes = str_list(v, s->prefixes, SIM_SUB_FILTERS)) < 0) {
		snprintf(msg, n, "RegistryPrefixes: expected at most %d strings.", SIM_SUB_FILTERS);
		return "PropertyValueFormatError";
	}
	if (json_object_object_get_ex(body, "ResourceTypes", &v) &&
	    (s->ntypes = str_list(v, s->types, SIM_SUB_FILTERS)) < 0) {
		snprintf(msg, n, "ResourceTypes: expected at most %d strings.", SIM_SUB_FILTERS);
		return "PropertyValueFormatError";
	}
	if (json_object_object_get_ex(body, "HttpHeaders", &v) && !json_object_is_type(v, json_type_null) &&
	    !headers(v, s)) {
		snprintf(msg, n, "HttpHeaders: expected an object of at most %d header names and "
			 "string values without CR or LF.", SIM_SUB_HEADERS);
		return "PropertyValueFormatError";
	}
	return NULL;
}

int sim_sub_create(struct sim_server *srv, const struct sim_caller *who,
		   struct json_object *body, int *status, const char **key, char *msg, size_t n)
{
	struct sim_sub s;
	int i;

	memset(&s, 0, sizeof(s));
	if ((*key = sub_parse(body, &s, msg, n)) != NULL) {
		explicit_bzero(&s, sizeof(s));
		*status = 400;
		return -1;
	}
	for (i = 0; i < SIM_MAX_SUBS && srv->subs[i].used; i++)
		;
	if (i == SIM_MAX_SUBS) {
		explicit_bzero(&s, sizeof(s));
		*status = 507;
		*key = "InsufficientStorage";
		snprintf(msg, n, "At most %d subscriptions.", SIM_MAX_SUBS);
		return -1;
	}
	s.used = true;
	s.gen = ++srv->next_sub;
	snprintf(s.id, sizeof(s.id), "%lu", s.gen);
	if (who->account >= 0)
		falcon_strlcpy(s.owner, srv->accounts[who->account].user, sizeof(s.owner));
	s.after = srv->last_event;
	srv->subs[i] = s;
	explicit_bzero(&s, sizeof(s));
	falcon_info("subscription %s: %s (context '%s', %d prefixes, %d types, %d headers) by %s",
		    srv->subs[i].id, srv->subs[i].dest, srv->subs[i].context,
		    srv->subs[i].nprefixes, srv->subs[i].ntypes, srv->subs[i].nheaders,
		    srv->subs[i].owner[0] ? srv->subs[i].owner : "(anonymous)");
	return i;
}

int sim_sub_find(const struct sim_server *srv, const char *id)
{
	int i;

	for (i = 0; i < SIM_MAX_SUBS; i++)
		if (srv->subs[i].used && strcmp(srv->subs[i].id, id) == 0)
			return i;
	return -1;
}

bool sim_sub_owned(const struct sim_server *srv, int i, const struct sim_caller *who)
{
	return who->account >= 0 && srv->subs[i].owner[0] != '\0' &&
	       strcmp(srv->subs[i].owner, srv->accounts[who->account].user) == 0;
}

static struct json_object *strs(const char (*v)[32], int n)
{
	struct json_object *a = json_object_new_array();
	int i;

	for (i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

struct json_object *sim_sub_json(const struct sim_server *srv, int i)
{
	const struct sim_sub *s = &srv->subs[i];
	struct json_object *o = json_object_new_object(), *st = json_object_new_object();
	char path[96];

	snprintf(path, sizeof(path), RF "/EventService/Subscriptions/%s", s->id);
	json_object_object_add(o, "@odata.id", json_object_new_string(path));
	json_object_object_add(o, "@odata.type",
			       json_object_new_string("#EventDestination.v1_13_0.EventDestination"));
	json_object_object_add(o, "Id", json_object_new_string(s->id));
	json_object_object_add(o, "Name", json_object_new_string("Event Subscription"));
	json_object_object_add(o, "Destination", json_object_new_string(s->dest));
	json_object_object_add(o, "Protocol", json_object_new_string("Redfish"));
	json_object_object_add(o, "Context", json_object_new_string(s->context));
	json_object_object_add(o, "SubscriptionType", json_object_new_string("RedfishEvent"));
	json_object_object_add(o, "EventFormatType", json_object_new_string("Event"));
	json_object_object_add(o, "DeliveryRetryPolicy",
			       json_object_new_string("TerminateAfterRetries"));
	json_object_object_add(o, "RegistryPrefixes", strs(s->prefixes, s->nprefixes));
	json_object_object_add(o, "ResourceTypes", strs(s->types, s->ntypes));
	json_object_object_add(o, "HttpHeaders", NULL);
	json_object_object_add(st, "State", json_object_new_string("Enabled"));
	json_object_object_add(st, "Health", json_object_new_string("OK"));
	json_object_object_add(o, "Status", st);
	(void)srv;
	return o;
}

void sim_sub_delete(struct sim_server *srv, int i)
{
	falcon_info("subscription %s (%s) deleted", srv->subs[i].id, srv->subs[i].dest);
	explicit_bzero(&srv->subs[i], sizeof(srv->subs[i]));
}

struct json_object *sim_subs_json(const struct sim_server *srv)
{
	struct json_object *a = json_object_new_array();
	int i;

	for (i = 0; i < SIM_MAX_SUBS; i++) {
		const struct sim_sub *s = &srv->subs[i];
		struct json_object *o;

		if (!s->used)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "id", json_object_new_string(s->id));
		json_object_object_add(o, "destination", json_object_new_string(s->dest));
		json_object_object_add(o, "context", json_object_new_string(s->context));
		json_object_object_add(o, "owner", json_object_new_string(s->owner));
		json_object_object_add(o, "after", json_object_new_int64((int64_t)s->after));
		json_object_object_add(o, "delivered", json_object_new_int64((int64_t)s->delivered));
		json_object_object_add(o, "failed", json_object_new_int64((int64_t)s->failed));
		json_object_array_add(a, o);
	}
	return a;
}

/* ---- delivery ---- */

/* wants - whether subscription s takes event e (its filters: an empty
 * list takes everything). */
static bool wants(const struct sim_sub *s, const struct sim_event *e)
{
	int i;
	bool ok = s->nprefixes == 0;

	for (i = 0; i < s->nprefixes && !ok; i++)
		ok = strcmp(s->prefixes[i], e->prefix) == 0;
	if (!ok || s->ntypes == 0)
		return ok;
	for (i = 0; i < s->ntypes; i++)
		if (strcmp(s->types[i], e->rtype) == 0)
			return true;
	return false;
}

/* One POST to make, copied out of srv so that it is sent without the lock. */
struct job {
	int idx;
	unsigned long gen, event;
	struct sim_sub sub;           /* a copy (headers wiped after) */
	char *body;                   /* the Event with Context (owned) */
};

/* next_job - the oldest undelivered event some subscription takes, skipping
 * (advancing past) what the filters leave out; false when there is none. */
static bool next_job(struct sim_server *srv, struct job *j)
{
	unsigned long first = srv->last_event >= SIM_MAX_EVENTS
			      ? srv->last_event - SIM_MAX_EVENTS + 1 : 1;
	int i;

	for (i = 0; i < SIM_MAX_SUBS; i++) {
		struct sim_sub *s = &srv->subs[i];

		while (s->used && s->after < srv->last_event) {
			unsigned long want = s->after + 1 < first ? first : s->after + 1;
			const struct sim_event *e = &srv->events[want % SIM_MAX_EVENTS];
			struct json_object *o;

			if (e->id != want || e->text == NULL || !wants(s, e)) {
				s->after = want;
				continue;
			}
			o = json_tokener_parse(e->text);
			if (o == NULL) {
				s->after = want;
				continue;
			}
			if (s->context[0] != '\0')
				json_object_object_add(o, "Context", json_object_new_string(s->context));
			j->body = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
								     JSON_C_TO_STRING_NOSLASHESCAPE));
			json_object_put(o);
			if (j->body == NULL) {
				s->after = want;
				continue;
			}
			j->idx = i;
			j->gen = s->gen;
			j->event = want;
			j->sub = *s;
			return true;
		}
	}
	return false;
}

static size_t discard(char *p, size_t size, size_t n, void *ctx)
{
	(void)p;
	(void)ctx;
	return size * n;
}

/* post - one try: the HTTP status (2xx = delivered), or 0 with why (n bytes). */
static long post(const struct sim_server *srv, const struct job *j, char *why, size_t n)
{
	CURL *c = curl_easy_init();
	struct curl_slist *h = NULL;
	char line[640];
	long status = 0;
	CURLcode cc;
	int i;

	if (c == NULL) {
		snprintf(why, n, "curl_easy_init failed");
		return 0;
	}
	h = curl_slist_append(h, "Content-Type: application/json; charset=utf-8");
	h = curl_slist_append(h, "OData-Version: 4.0");
	for (i = 0; i < j->sub.nheaders; i++) {
		snprintf(line, sizeof(line), "%s: %s", j->sub.hname[i], j->sub.hvalue[i]);
		h = curl_slist_append(h, line);
	}
	explicit_bzero(line, sizeof(line));
	curl_easy_setopt(c, CURLOPT_URL, j->sub.dest);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, j->body);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, POST_TIMEOUT_MS);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 2000L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	if (srv->event_ca != NULL)
		curl_easy_setopt(c, CURLOPT_CAINFO, srv->event_ca);
	if ((cc = curl_easy_perform(c)) != CURLE_OK)
		snprintf(why, n, "%s", curl_easy_strerror(cc));
	else
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (cc == CURLE_OK && (status < 200 || status > 299))
		snprintf(why, n, "HTTP %ld", status);
	curl_slist_free_all(h); /* the header values: curl's copies, not ours to wipe */
	curl_easy_cleanup(c);
	return cc == CURLE_OK ? status : 0;
}

/* pause_locked - wait secs on srv->cond (srv->lock held); false when stopping. */
static bool pause_locked(struct sim_server *srv, int secs)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += secs;
	while (!srv->stopping)
		if (pthread_cond_timedwait(&srv->cond, &srv->lock, &ts) == ETIMEDOUT)
			break;
	return !srv->stopping;
}

/* deliver - j's event to its subscription, retried (srv->lock held on
 * entry and exit, released while POSTing); the subscription ends after the
 * last failed try.  A subscription deleted meanwhile is left alone. */
static void deliver(struct sim_server *srv, struct job *j)
{
	char why[256] = "";
	long status = 0;
	int try;

	for (try = 1; try <= SIM_SUB_RETRIES; try++) {
		pthread_mutex_unlock(&srv->lock);
		status = post(srv, j, why, sizeof(why));
		pthread_mutex_lock(&srv->lock);
		if (!srv->subs[j->idx].used || srv->subs[j->idx].gen != j->gen)
			return;
		if (status >= 200 && status <= 299)
			break;
		falcon_warn("subscription %s: event %lu to %s: %s (try %d of %d)", j->sub.id,
			    j->event, j->sub.dest, why, try, SIM_SUB_RETRIES);
		if (try < SIM_SUB_RETRIES && !pause_locked(srv, SIM_SUB_RETRY_S))
			return;
		if (!srv->subs[j->idx].used || srv->subs[j->idx].gen != j->gen)
			return;
	}
	if (status >= 200 && status <= 299) {
		srv->subs[j->idx].after = j->event;
		srv->subs[j->idx].delivered++;
		falcon_verbose("subscription %s: event %lu delivered to %s (%ld)", j->sub.id,
			       j->event, j->sub.dest, status);
		return;
	}
	srv->subs[j->idx].failed++;
	falcon_warn("subscription %s: %d tries failed: ended (DeliveryRetryPolicy "
		    "TerminateAfterRetries)", j->sub.id, SIM_SUB_RETRIES);
	sim_sub_delete(srv, j->idx);
}

static void *sender_main(void *arg)
{
	struct sim_server *srv = arg;
	struct job j;

	pthread_mutex_lock(&srv->lock);
	while (!srv->stopping) {
		memset(&j, 0, sizeof(j));
		if (!next_job(srv, &j)) {
			pthread_cond_wait(&srv->cond, &srv->lock);
			continue;
		}
		deliver(srv, &j);
		free(j.body);
		explicit_bzero(&j, sizeof(j));
	}
	pthread_mutex_unlock(&srv->lock);
	return NULL;
}

falcon_err_t sim_subs_start(struct sim_server *srv)
{
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return falcon_err_set(FALCON_ERR_IO, "subscriptions: curl_global_init failed");
	if (pthread_create(&srv->sender, NULL, sender_main, srv) != 0)
		return falcon_err_set(FALCON_ERR_NOMEM, "subscriptions: cannot start the sender");
	srv->sender_started = true;
	return FALCON_OK;
}

void sim_subs_stop(struct sim_server *srv)
{
	int i;

	if (srv->sender_started)
		pthread_join(srv->sender, NULL);
	srv->sender_started = false;
	for (i = 0; i < SIM_MAX_SUBS; i++)
		explicit_bzero(&srv->subs[i], sizeof(srv->subs[i]));
}
