/*
 * state.c - the chassis table, the state's locks and the ledger's group
 * commit (state.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "state.h"
#include "core/log.h"
#include "core/util.h"

/* ports_init - ch's port table: the ports of the HostName lines cabled to
 * it, once each, in falcon.conf's order, then the entry for the others. */
static void ports_init(const struct falcon_conf *conf, struct falcond_chassis *ch)
{
	size_t i, k;
	int p;

	for (i = 0; i < conf->nhosts; i++) {
		if (strcmp(conf->hosts[i].chassis, ch->cc->name) != 0)
			continue;
		for (p = 0; p < conf->hosts[i].nports; p++) {
			for (k = 0; k < ch->nports; k++)
				if (strcmp(ch->ports[k].name, conf->hosts[i].ports[p]) == 0)
					break;
			if (k < ch->nports || ch->nports == FALCOND_PORTS_MAX)
				continue;
			falcon_strlcpy(ch->ports[ch->nports++].name, conf->hosts[i].ports[p],
				       sizeof(ch->ports[0].name));
		}
	}
	for (k = 0; k <= ch->nports; k++)
		pthread_mutex_init(&ch->ports[k].lock, NULL);
}

falcon_err_t falcond_state_init(struct falcond_state *st)
{
	size_t i;

	pthread_condattr_t ca;

	pthread_mutex_init(&st->lock, NULL);
	pthread_cond_init(&st->saved, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&st->wake, &ca);
	pthread_condattr_destroy(&ca);
	st->nchassis = st->conf->nchassis;
	pthread_cond_init(&st->unlive, NULL);
	st->ch = calloc(st->nchassis ? st->nchassis : 1, sizeof(*st->ch));
	if (st->ch == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "falcond: chassis table");
	for (i = 0; i < st->nchassis; i++) {
		st->ch[i].cc = &st->conf->chassis[i];
		pthread_mutex_init(&st->ch[i].lock, NULL);
		pthread_mutex_init(&st->ch[i].read_lock, NULL);
		ports_init(st->conf, &st->ch[i]);
	}
	return FALCON_OK;
}

void falcond_state_fini(struct falcond_state *st)
{
	size_t i, k;

	for (i = 0; i < st->nchassis; i++) {
		for (k = 0; k <= st->ch[i].nports; k++) {
			falcon_chassis_close(st->ch[i].ports[k].client);
			pthread_mutex_destroy(&st->ch[i].ports[k].lock);
		}
		falcon_chassis_close(st->ch[i].reader);
		if (st->ch[i].have_last)
			falcon_inventory_free(&st->ch[i].last);
		falcon_inventory_free(&st->ch[i].described);
		pthread_mutex_destroy(&st->ch[i].lock);
		pthread_mutex_destroy(&st->ch[i].read_lock);
	}
	free(st->ch);
	st->ch = NULL;
	pthread_cond_destroy(&st->saved);
	pthread_cond_destroy(&st->wake);
	pthread_cond_destroy(&st->unlive);
	pthread_mutex_destroy(&st->lock);
}

void falcond_role_active(struct falcond_state *st, bool reconciling)
{
	__atomic_store_n(&st->role.reconciling, reconciling, __ATOMIC_RELEASE);
	__atomic_store_n(&st->role.active, true, __ATOMIC_RELEASE);
}

void falcond_role_reconciled(struct falcond_state *st)
{
	__atomic_store_n(&st->role.reconciling, false, __ATOMIC_RELEASE);
}

void falcond_role_stopping(struct falcond_state *st)
{
	__atomic_store_n(&st->role.stopping, true, __ATOMIC_RELEASE);
}

struct falcond_chassis *falcond_chassis_of(struct falcond_state *st, const char *name)
{
	size_t i;

	for (i = 0; i < st->nchassis; i++)
		if (strcmp(st->ch[i].cc->name, name) == 0)
			return &st->ch[i];
	return NULL;
}

void falcond_count_chassis_error(struct falcond_state *st, falcon_err_t e)
{
	pthread_mutex_lock(&st->lock);
	if (e > 0 && e < FALCON_ERR_MAX)
		st->chassis_errors[e]++;
	pthread_mutex_unlock(&st->lock);
}

/* falcond_may_land_late - a change that failed with e may still be carried out by
 * the chassis (it was sent, no answer came): a reconcile must look again. */
bool falcond_may_land_late(falcon_err_t e)
{
	return e == FALCON_ERR_TIMEOUT || e == FALCON_ERR_TRANSPORT || e == FALCON_ERR_SERVER;
}

/*
 * falcond_commit_upto_locked - make every ledger change up to generation want
 * durable (st->lock held on entry and on return; dropped while writing).
 * Group commit: the thread that finds no write in progress writes the
 * ledger as it is (one record appended to the log and fdatasynced, or now
 * and then a compaction: ledger.h) for everyone who changed it before; the
 * others wait for that write.  FALCON_ERR_IO (logged) when the write
 * covering want failed.
 */
falcon_err_t falcond_commit_upto_locked(struct falcond_state *st, unsigned long long want)
{
	falcon_err_t rv = FALCON_OK;

	while (st->saved_gen < want) {
		if (st->saving) {
			pthread_cond_wait(&st->saved, &st->lock);
			if (!st->saving && st->saved_gen < want && st->failed_gen >= want)
				return falcon_err_set(FALCON_ERR_IO, "ledger %s: write failed",
						      st->ledger->log_path);
			continue;
		}
		{
			unsigned long long target = st->gen;
			struct falcond_ledger_write w;

			rv = falcond_ledger_write_prepare(st->ledger, &w);
			st->saving = true;
			pthread_mutex_unlock(&st->lock);
			if (rv == FALCON_OK)
				rv = falcond_ledger_write_do(st->ledger, &w);
			if (rv != FALCON_OK)
				falcon_error("ledger: %s", falcon_errmsg());
			pthread_mutex_lock(&st->lock);
			falcond_ledger_write_done(st->ledger, &w, rv);
			st->saving = false;
			if (rv == FALCON_OK)
				st->saved_gen = target;
			else
				st->failed_gen = target;
			pthread_cond_broadcast(&st->saved);
			if (rv != FALCON_OK)
				return rv;
		}
	}
	return FALCON_OK;
}

/* falcond_commit_locked - a new ledger change (the caller's, made under st->lock)
 * made durable: falcond_commit_upto_locked() of a new generation. */
falcon_err_t falcond_commit_locked(struct falcond_state *st)
{
	return falcond_commit_upto_locked(st, ++st->gen);
}

unsigned long long falcond_chassis_gen(struct falcond_state *st, struct falcond_chassis *ch)
{
	unsigned long long g;

	pthread_mutex_lock(&st->lock);
	g = ch->gen;
	pthread_mutex_unlock(&st->lock);
	return g;
}

bool falcond_chassis_touched(const struct falcond_chassis *ch, unsigned long long since,
			     const char *dev)
{
	unsigned long long g;

	if (ch->gen - since >= FALCOND_TOUCHED_MAX)
		return ch->gen != since; /* more than the ring holds: assume so */
	for (g = since + 1; g <= ch->gen; g++)
		if (strcmp(ch->touched[g % FALCOND_TOUCHED_MAX].dev, dev) == 0)
			return true;
	return false;
}

bool falcond_live_has(const struct falcond_chassis *ch, const char *id)
{
	size_t i;

	for (i = 0; i < ch->nlive; i++)
		if (strcmp(ch->live[i], id) == 0)
			return true;
	return false;
}

bool falcond_live_add(struct falcond_chassis *ch, const char *id)
{
	if (falcond_live_has(ch, id))
		return false;
	if (ch->nlive == FALCOND_LIVE_MAX) {
		falcon_warn("chassis %s: %d leases in progress at once: lease %s not marked",
			    ch->cc->name, FALCOND_LIVE_MAX, id);
		return false;
	}
	falcon_strlcpy(ch->live[ch->nlive++], id, sizeof(ch->live[0]));
	return true;
}

void falcond_live_del(struct falcond_state *st, struct falcond_chassis *ch, const char *id)
{
	size_t i;

	for (i = 0; i < ch->nlive; i++)
		if (strcmp(ch->live[i], id) == 0) {
			memmove(ch->live[i], ch->live[i + 1],
				(ch->nlive - i - 1) * sizeof(ch->live[0]));
			ch->nlive--;
			pthread_cond_broadcast(&st->unlive);
			return;
		}
}

bool falcond_live_job(struct falcond_state *st, const struct falcond_chassis *ch, uint32_t job,
		      const char *host)
{
	size_t i;

	for (i = 0; i < ch->nlive; i++) {
		const struct falcon_lease *l = falcond_ledger_lease(st->ledger, ch->live[i]);

		if (l != NULL && l->job_id == job && (host == NULL || strcmp(l->host, host) == 0))
			return true;
	}
	return false;
}

bool falcond_live_wait(struct falcond_state *st, struct falcond_chassis *ch, uint32_t job,
		       const char *host, long long deadline_ms)
{
	while (falcond_live_job(st, ch, job, host)) {
		struct timespec ts;
		long long left = deadline_ms ? deadline_ms - falcon_now_ms() : 1000;

		if (left <= 0)
			return false;
		/* st->unlive is on the realtime clock: wake at least once a second */
		clock_gettime(CLOCK_REALTIME, &ts);
		left = left > 1000 ? 1000 : left;
		ts.tv_sec += left / 1000;
		ts.tv_nsec += (left % 1000) * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&st->unlive, &st->lock, &ts);
	}
	return true;
}

struct falcond_port *falcond_port_of(struct falcond_chassis *ch, const char *port)
{
	size_t k;

	if (!ch->cc->parallel_ports) /* one change at a time on the chassis */
		return &ch->ports[ch->nports];
	for (k = 0; k < ch->nports; k++)
		if (strcmp(ch->ports[k].name, port) == 0)
			return &ch->ports[k];
	return &ch->ports[ch->nports];
}

void falcond_job_ended_mark(struct falcond_state *st, uint32_t job)
{
	st->ended[st->ended_next % FALCOND_ENDED_MAX].job = job;
	st->ended[st->ended_next % FALCOND_ENDED_MAX].ms = falcon_now_ms();
	st->ended_next++;
}

bool falcond_job_ended_since(const struct falcond_state *st, uint32_t job, long long asked_ms)
{
	size_t i;

	for (i = 0; i < FALCOND_ENDED_MAX && i < st->ended_next; i++)
		if (st->ended[i].job == job && st->ended[i].ms >= asked_ms)
			return true;
	return false;
}
