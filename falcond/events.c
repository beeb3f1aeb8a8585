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
#include "core/util.h"

struct listener {
	pthread_t th;
	struct falcond_state *st;
	struct falcond_chassis *ch;
	bool started;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stopping;
	size_t n;
	struct listener *l;
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

static void *listen_main(void *arg)
{
	struct listener *li = arg;
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
	return NULL;
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
	free(ev.l);
	ev.l = NULL;
	ev.n = 0;
}
