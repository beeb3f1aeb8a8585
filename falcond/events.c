/*
 * events.c - falcond's chassis event listeners (events.h).
 *
 * Why the job's AdminComment and not a drain or a requeue: a chassis
 * device failing is not its node's fault (the node's own GPUs, CPUs and
 * its other Falcon devices are fine), so draining the node would take
 * healthy resources from every other job; requeueing would kill work the
 * job may still finish (a Critical GPU often still runs, and the job
 * decides).  The job is told where Slurm shows it to admins and keeps it
 * (sacct -o AdminComment) and the device is kept from the next job.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>

#ifdef HAVE_SLURM
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include "slurm_compat.h"
#endif

#include "events.h"
#include "desc.h"
#include "history.h"
#include "quarantine.h"
#include "core/log.h"
#include "httpd/httpd.h"
#include "core/util.h"

struct listener {
	pthread_t th;
	struct falcond_state *st;
	struct falcond_chassis *ch;
	bool started;
	/* subscription mode: the secret its subscription sends (hex, "" =
	 * none: every POST for this chassis is refused), under ev.lock */
	char secret[2 * FALCOND_EVENTS_SECRET_BYTES + 1];
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stopping;
	size_t n;
	struct listener *l;
	/* the receiver of subscribed events (EventListen=), NULL = none */
	struct falcon_httpd *recv;
	char *url;                    /* EventUrl= (owned) */
} ev = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

static bool stopping(void *ctx)
{
	bool s;

	(void)ctx;
	pthread_mutex_lock(&ev.lock);
	s = ev.stopping;
	pthread_mutex_unlock(&ev.lock);
	return s;
}

/* What the ledger says of a device: the lease holding it, if any. */
struct holder {
	bool leased;
	uint32_t job_id;
	long uid;
	char lease[FALCON_LEASE_ID_LEN];
	char host[FALCON_NAME_LEN];
};

/*
 * note_job - append "falcon-event=CHASSIS/DEVICE:HEALTH" to the job's
 * AdminComment (a token of its own: the job's "falcon:" tag, the first
 * such token, stays what accounting reads), unless already there.
 */
static void note_job(struct falcond_state *st, const struct holder *h, const char *note)
{
	if (!st->use_slurm) {
		falcon_warn("events: job %u not told through Slurm (--no-slurm): %s", h->job_id, note);
		return;
	}
#ifdef HAVE_SLURM
	{
		job_info_msg_t *msg = NULL;
		job_desc_msg_t d;
		const char *old;
		char *merged = NULL;

		if (slurm_load_job(&msg, falcon_slurm_job(h->job_id), SHOW_DETAIL) != SLURM_SUCCESS ||
		    msg->record_count == 0) {
			falcon_warn("events: job %u not told (slurm_load_job: %s): %s", h->job_id,
				    slurm_strerror(slurm_get_errno()), note);
			slurm_free_job_info_msg(msg);
			return;
		}
		old = msg->job_array[0].admin_comment;
		if (old != NULL && strstr(old, note) != NULL) {
			slurm_free_job_info_msg(msg);
			return;
		}
		if (asprintf(&merged, "%s%s%s", old ? old : "", old && old[0] ? "; " : "", note) < 0)
			merged = NULL;
		slurm_free_job_info_msg(msg);
		if (merged == NULL) {
			falcon_error("events: job %u not told: out of memory", h->job_id);
			return;
		}
		slurm_init_job_desc_msg(&d);
		falcon_job_desc_set_job(&d, h->job_id);
		d.admin_comment = merged;
		if (slurm_update_job(&d) != SLURM_SUCCESS)
			falcon_warn("events: job %u not told (slurm_update_job: %s): %s", h->job_id,
				    slurm_strerror(slurm_get_errno()), note);
		else
			falcon_info("events: job %u told in its AdminComment: %s", h->job_id, note);
		free(merged);
	}
#else
	falcon_warn("events: job %u not told (built without Slurm): %s", h->job_id, note);
#endif
}

/*
 * record - the holder of the device, the inventory cache updated (health,
 * or State Absent), and a history entry "event: ..." (attached = released
 * = now, the lease's job when leased) for StateDir/history.jsonl.
 */
static void record(struct falcond_state *st, struct falcond_chassis *ch,
		   const struct falcon_chassis_event *e, const char *what, struct holder *h)
{
	struct falcond_hist he;
	struct falcon_lease *l;
	size_t i;

	memset(h, 0, sizeof(*h));
	memset(&he, 0, sizeof(he));
	pthread_mutex_lock(&st->lock);
	falcond_desc_forget(ch, e->device); /* the next read asks the chassis */
	for (i = 0; ch->have_last && i < ch->last.n; i++) {
		struct falcon_device *d = &ch->last.devs[i];

		if (strcmp(d->id, e->device) != 0)
			continue;
		if (e->kind == FALCON_EVENT_REMOVED)
			falcon_strlcpy(d->state, "Absent", sizeof(d->state));
		else
			falcon_strlcpy(d->health, e->health, sizeof(d->health));
	}
	l = falcond_ledger_device_lease(st->ledger, ch->cc->name, e->device);
	if (l != NULL) {
		h->leased = true;
		h->job_id = l->job_id;
		h->uid = l->uid;
		falcon_strlcpy(h->lease, l->id, sizeof(h->lease));
		falcon_strlcpy(h->host, l->host, sizeof(h->host));
	}
	he.job_id = h->job_id;
	falcon_strlcpy(he.lease, h->lease, sizeof(he.lease));
	falcon_strlcpy(he.host, h->host, sizeof(he.host));
	he.attached_ms = he.detached_ms = falcond_now_ms();
	/* result is 128 bytes: what is cut there (the MessageId comes first) */
	falcon_strlcpy(he.result, "event: ", sizeof(he.result));
	falcon_strlcpy(he.result + 7, what, sizeof(he.result) - 7);
	falcond_history_append(ch->cc->name, e->device, &he, h->leased ? h->uid : -1);
	pthread_mutex_unlock(&st->lock);
}

/* critical - quarantine (keeping an earlier quarantine's reason) and tell the job. */
static void critical(struct falcond_state *st, struct falcond_chassis *ch,
		     const struct falcon_chassis_event *e, const struct holder *h)
{
	struct falcon_device_req r;
	char note[256];
	bool already;

	memset(&r, 0, sizeof(r));
	falcon_strlcpy(r.chassis, ch->cc->name, sizeof(r.chassis));
	falcon_strlcpy(r.device, e->device, sizeof(r.device));
	snprintf(r.reason, sizeof(r.reason), "event %s: %s (event id %s)", e->message_id,
		 e->health, e->event_id);
	pthread_mutex_lock(&st->lock);
	already = falcond_ledger_quarantined(st->ledger, r.chassis, r.device) != NULL;
	pthread_mutex_unlock(&st->lock);
	if (already)
		falcon_info("events: %s/%s Critical; already quarantined", r.chassis, r.device);
	else if (falcond_quarantine(st, &r) != FALCON_OK)
		falcon_error("events: %s/%s Critical but not quarantined: %s", r.chassis, r.device,
			     falcon_errmsg());
	if (!h->leased)
		return;
	snprintf(note, sizeof(note), "falcon-event=%s/%s:%s", r.chassis, r.device, e->health);
	falcon_warn("events: job %u (lease %s, host %s) holds %s/%s, now Critical: the job "
		    "is told, the node is not drained", h->job_id, h->lease, h->host,
		    r.chassis, r.device);
	note_job(st, h, note);
}

static void on_event(void *ctx, const struct falcon_chassis_event *e)
{
	struct listener *li = ctx;
	struct holder h;
	char what[256];

	if (e->kind == FALCON_EVENT_OTHER || e->device[0] == '\0') {
		falcon_verbose("events: chassis %s: event %s %s ignored", li->ch->cc->name,
			       e->event_id, e->message_id);
		return;
	}
	snprintf(what, sizeof(what), "%s%s%s (event id %s)", e->message_id,
		 e->kind == FALCON_EVENT_HEALTH ? " " : "", e->health, e->event_id);
	falcon_info("events: %s/%s: %s", li->ch->cc->name, e->device, what);
	record(li->st, li->ch, e, what, &h);
	if (e->kind == FALCON_EVENT_HEALTH && strcmp(e->health, "Critical") == 0)
		critical(li->st, li->ch, e, &h);
	else if (e->kind == FALCON_EVENT_HEALTH && strcmp(e->health, "OK") == 0) {
		pthread_mutex_lock(&li->st->lock);
		if (falcond_ledger_quarantined(li->st->ledger, li->ch->cc->name, e->device) != NULL)
			falcon_info("events: %s/%s is OK again; it stays quarantined until "
				    "falconctl unquarantine", li->ch->cc->name, e->device);
		pthread_mutex_unlock(&li->st->lock);
	} else if (e->kind == FALCON_EVENT_REMOVED && h.leased) {
		falcon_warn("events: %s/%s left the fabric while job %u (lease %s) holds it",
			    li->ch->cc->name, e->device, h.job_id, h.lease);
	}
}

static void on_open(void *ctx, const char *uri)
{
	struct listener *li = ctx;

	falcon_info("events: chassis %s: listening on %s", li->ch->cc->name, uri);
}

/* pause_s - wait up to secs unless stopping; false when stopping. */
static bool pause_s(int secs)
{
	struct timespec ts;
	bool go_on;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += secs;
	pthread_mutex_lock(&ev.lock);
	while (!ev.stopping)
		if (pthread_cond_timedwait(&ev.cond, &ev.lock, &ts) == ETIMEDOUT)
			break;
	go_on = !ev.stopping;
	pthread_mutex_unlock(&ev.lock);
	return go_on;
}

/*
 * follow_sse - the SSE stream, reopened with backoff until stopping; with
 * Events=auto, a service without a stream (FALCON_ERR_UNSUPPORTED) ends it
 * (false) for a subscription instead.
 */
static bool follow_sse(struct listener *li, bool auto_mode)
{
	struct falcon_chassis_listen l;
	int backoff = 1;

	memset(&l, 0, sizeof(l));
	l.on_event = on_event;
	l.on_open = on_open;
	l.stop = stopping;
	l.ctx = li;
	while (!stopping(NULL)) {
		struct falcon_chassis *c = NULL;
		falcon_err_t rv = falcon_chassis_open(li->ch->cc, &c);
		long long t0 = falcond_now_ms();

		if (rv == FALCON_OK)
			rv = falcon_chassis_listen(c, &l);
		falcon_chassis_close(c);
		if (stopping(NULL))
			break;
		if (auto_mode && rv == FALCON_ERR_UNSUPPORTED) {
			falcon_info("events: chassis %s: %s: subscribing instead (Events=auto)",
				    li->ch->cc->name, falcon_errmsg());
			return false;
		}
		/* a stream that lived a while starts the backoff over */
		if (falcond_now_ms() - t0 > 10000)
			backoff = 1;
		falcon_warn("events: chassis %s: %s; reconnecting in %d s", li->ch->cc->name,
			    rv == FALCON_OK ? "stream ended" : falcon_errmsg(), backoff);
		if (!pause_s(backoff))
			break;
		backoff = backoff * 2 > FALCOND_EVENTS_BACKOFF_MAX_S ? FALCOND_EVENTS_BACKOFF_MAX_S
								       : backoff * 2;
	}
	return true;
}

/* ---- subscriptions (DSP0266 1.20 sec. 13.5.3) ---- */

/* set_secret - a new random secret for li (hex into li->secret, and the
 * Authorization value into auth, n bytes), or "" to refuse everything. */
static falcon_err_t set_secret(struct listener *li, bool clear, char *auth, size_t n)
{
	unsigned char raw[FALCOND_EVENTS_SECRET_BYTES];
	char hex[sizeof(li->secret)];
	size_t i;

	hex[0] = '\0';
	if (!clear) {
		if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
			return falcon_err_set(FALCON_ERR_IO, "events: getrandom: %s", strerror(errno));
		for (i = 0; i < sizeof(raw); i++)
			snprintf(hex + 2 * i, 3, "%02x", raw[i]);
		explicit_bzero(raw, sizeof(raw));
		snprintf(auth, n, "Bearer %s", hex);
	}
	pthread_mutex_lock(&ev.lock);
	falcon_strlcpy(li->secret, hex, sizeof(li->secret));
	pthread_mutex_unlock(&ev.lock);
	explicit_bzero(hex, sizeof(hex));
	return FALCON_OK;
}

/*
 * watch - check every FALCOND_EVENTS_CHECK_S that sub is still there;
 * returns when stopping (true) or when it is gone (false: the chassis
 * restarted or ended it).  A chassis that cannot be reached is logged once
 * and checked again.
 */
static bool watch(struct listener *li, struct falcon_chassis *c, struct falcon_chassis_sub *sub)
{
	bool down = false;

	while (pause_s(FALCOND_EVENTS_CHECK_S)) {
		falcon_err_t rv = falcon_chassis_subscription_check(c, sub);

		if (rv == FALCON_OK) {
			if (down)
				falcon_info("events: chassis %s: reachable again, subscription %s there",
					    li->ch->cc->name, sub->path);
			down = false;
		} else if (rv == FALCON_ERR_NOTFOUND) {
			falcon_warn("events: chassis %s: %s; subscribing again", li->ch->cc->name,
				    falcon_errmsg());
			return false;
		} else if (!down) {
			falcon_warn("events: chassis %s: subscription %s not checked: %s (again every "
				    "%d s)", li->ch->cc->name, sub->path, falcon_errmsg(),
				    FALCOND_EVENTS_CHECK_S);
			down = true;
		}
	}
	return true;
}

/*
 * follow_subscription - subscribe (a new secret and Context each time),
 * watch the subscription, subscribe again when it is gone, and delete it
 * when stopping.  Errors are logged and retried with backoff.
 */
static void follow_subscription(struct listener *li)
{
	struct falcon_chassis *c = NULL;
	struct falcon_chassis_sub sub;
	char auth[16 + sizeof(li->secret)], dest[1024], context[128];
	int backoff = 1;
	unsigned rnd = 0;

	snprintf(dest, sizeof(dest), "%s%s%s", ev.url, FALCOND_EVENTS_PATH, li->ch->cc->name);
	while (!stopping(NULL)) {
		falcon_err_t rv = c != NULL ? FALCON_OK : falcon_chassis_open(li->ch->cc, &c);

		if (rv == FALCON_OK && (rv = set_secret(li, false, auth, sizeof(auth))) == FALCON_OK) {
			if (getrandom(&rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
				rnd = (unsigned)falcond_now_ms();
			snprintf(context, sizeof(context), "falcond %s %08x", li->ch->cc->name, rnd);
			memset(&sub, 0, sizeof(sub));
			sub.destination = dest;
			sub.context = context;
			sub.auth = auth;
			rv = falcon_chassis_subscribe(c, &sub);
		}
		explicit_bzero(auth, sizeof(auth));
		if (rv != FALCON_OK) {
			falcon_warn("events: chassis %s: no subscription: %s; again in %d s",
				    li->ch->cc->name, falcon_errmsg(), backoff);
			falcon_chassis_close(c);
			c = NULL;
			if (!pause_s(backoff))
				break;
			backoff = backoff * 2 > FALCOND_EVENTS_BACKOFF_MAX_S
				  ? FALCOND_EVENTS_BACKOFF_MAX_S : backoff * 2;
			continue;
		}
		backoff = 1;
		falcon_info("events: chassis %s: subscribed as %s (Context '%s'), events to %s",
			    li->ch->cc->name, sub.path, context, dest);
		if (!watch(li, c, &sub))
			continue;
		if (falcon_chassis_unsubscribe(c, &sub) == FALCON_OK)
			falcon_info("events: chassis %s: subscription %s deleted", li->ch->cc->name,
				    sub.path);
		else
			falcon_warn("events: chassis %s: subscription %s not deleted: %s",
				    li->ch->cc->name, sub.path, falcon_errmsg());
	}
	set_secret(li, true, NULL, 0);
	falcon_chassis_close(c);
}

static void *listen_main(void *arg)
{
	struct listener *li = arg;
	falcon_events_t mode = li->ch->cc->events;

	if (mode != FALCON_EVENTS_SUBSCRIPTION && follow_sse(li, mode == FALCON_EVENTS_AUTO))
		return NULL;
	if (ev.recv == NULL) {
		falcon_error("events: chassis %s: events by subscription need EventListen= in "
			     "falcon.conf; its events are not followed", li->ch->cc->name);
		return NULL;
	}
	follow_subscription(li);
	return NULL;
}

/* ---- the receiver: POSTs of the chassis' subscriptions ---- */


/* secret_ok - whether auth is "Bearer <li's secret>" (constant time). */
static bool secret_ok(struct listener *li, const char *auth)
{
	unsigned char diff = 0;
	size_t i, n;
	bool ok;

	pthread_mutex_lock(&ev.lock);
	n = strlen(li->secret);
	ok = n > 0 && auth != NULL && strncmp(auth, "Bearer ", 7) == 0 && strlen(auth + 7) == n;
	for (i = 0; ok && i < n; i++)
		diff |= (unsigned char)(auth[7 + i] ^ li->secret[i]);
	pthread_mutex_unlock(&ev.lock);
	return ok && diff == 0;
}

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(0, (void *)"",
								 MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (r == NULL)
		return MHD_NO;
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* received - a complete POST for chassis `name`: authenticated, then its
 * records handled as SSE events are (on_event); the HTTP status. */
static unsigned received(struct MHD_Connection *c, const char *name,
			 const struct falcon_httpd_req *rq)
{
	const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
	struct listener *li = NULL;
	char peer[64];
	size_t i;

	for (i = 0; i < ev.n; i++)
		if (strcmp(ev.l[i].ch->cc->name, name) == 0)
			li = &ev.l[i];
	falcon_httpd_peer(c, false, peer, sizeof(peer));
	if (li == NULL || !secret_ok(li, auth)) {
		falcon_warn("events: a POST for chassis '%.64s' from %s refused (401): %s", name,
			    peer, li == NULL ? "no such chassis"
			    : auth == NULL ? "no Authorization header" : "not its subscription's secret");
		return 401;
	}
	if (rq->too_big) {
		falcon_warn("events: chassis %s: a POST over %d bytes from %s refused (413)", name,
			    FALCOND_EVENTS_MAX_BODY, peer);
		return 413;
	}
	if (falcon_chassis_events_parse(name, rq->body ? rq->body : "", rq->len, on_event, li) < 0) {
		falcon_warn("events: chassis %s: a POST from %s is not an Event: %s", name, peer,
			    falcon_errmsg());
		return 400;
	}
	return 204;
}

static enum MHD_Result recv_handler(void *cls, struct MHD_Connection *c, const char *url,
				    const char *method, struct falcon_httpd_req *rq)
{
	size_t pl = strlen(FALCOND_EVENTS_PATH);

	(void)cls;
	if (strncmp(url, FALCOND_EVENTS_PATH, pl) != 0 || strchr(url + pl, '/') != NULL)
		return answer(c, 404);
	if (strcmp(method, "POST") != 0)
		return answer(c, 405);
	return answer(c, received(c, url + pl, rq));
}

/* recv_start - the receiver on conf's EventListen (HTTPS with
 * EventCertFile), one thread (libmicrohttpd's internal polling thread:
 * events are handled one at a time, in the order they come). */
static falcon_err_t recv_start(const struct falcon_conf *conf)
{
	struct sockaddr_storage ss;
	struct falcon_httpd_conf k = {
		.name = "events", .addr = (const struct sockaddr *)&ss,
		.threads = FALCON_HTTPD_ONE_THREAD, .idle_s = 30,
		.max_body = FALCOND_EVENTS_MAX_BODY, .mhd_log = FALCON_LOG_VERBOSE,
		.tls_cert_file = conf->event_cert_file, .tls_key_file = conf->event_key_file,
		.handler = recv_handler,
	};
	falcon_err_t rv;

	if ((rv = falcon_httpd_addr("EventListen", conf->event_listen, &ss, NULL)) != FALCON_OK)
		return rv;
	if ((rv = falcon_str_set(&ev.url, conf->event_url)) != FALCON_OK)
		return rv;
	if ((rv = falcon_httpd_start(&k, &ev.recv)) != FALCON_OK)
		return falcon_err_prefix(rv, "events: cannot listen on EventListen=%s",
					 conf->event_listen);
	falcon_info("events: taking subscribed events on %s (%s), chassis POST to %s%sNAME",
		    conf->event_listen, conf->event_cert_file ? "HTTPS" : "HTTP", ev.url,
		    FALCOND_EVENTS_PATH);
	return FALCON_OK;
}

static void recv_stop(void)
{
	falcon_httpd_stop(ev.recv);
	ev.recv = NULL;
	free(ev.url);
	ev.url = NULL;
}

falcon_err_t falcond_events_start(struct falcond_state *st)
{
	size_t i;

	if (ev.l != NULL)
		return falcon_err_set(FALCON_ERR_INVAL, "events: already started");
	ev.stopping = false;
	ev.l = calloc(st->nchassis ? st->nchassis : 1, sizeof(*ev.l));
	if (ev.l == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "events: out of memory");
	ev.n = st->nchassis;
	if (st->conf->event_listen != NULL && recv_start(st->conf) != FALCON_OK) {
		falcon_error("%s: events by subscription are not taken", falcon_errmsg());
		recv_stop();
	}
	for (i = 0; i < ev.n; i++) {
		ev.l[i].st = st;
		ev.l[i].ch = &st->ch[i];
		if (pthread_create(&ev.l[i].th, NULL, listen_main, &ev.l[i]) != 0) {
			falcon_error("events: chassis %s: cannot start a listener thread",
				     st->ch[i].cc->name);
			continue;
		}
		ev.l[i].started = true;
	}
	return FALCON_OK;
}

void falcond_events_stop(void)
{
	size_t i;

	if (ev.l == NULL)
		return;
	pthread_mutex_lock(&ev.lock);
	ev.stopping = true;
	pthread_cond_broadcast(&ev.cond);
	pthread_mutex_unlock(&ev.lock);
	for (i = 0; i < ev.n; i++)
		if (ev.l[i].started)
			pthread_join(ev.l[i].th, NULL);
	recv_stop();
	free(ev.l);
	ev.l = NULL;
	ev.n = 0;
}
