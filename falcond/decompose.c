/*
 * decompose.c - closing leases: intent written, devices detached, the
 * lease dropped and committed before the answer (decompose.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decompose.h"
#include "detach.h"
#include "keep.h"
#include "keepslurm.h"
#include "core/log.h"
#include "core/util.h"

/*
 * decompose_intent - intent before action: lease id is written "closing"
 * before its devices are detached, so that a falcond restarted after a
 * crash releases it (the lease is live: no reconcile releases it
 * meanwhile; takes st->lock).  FALCON_ERR_IO when
 * the write failed: the lease is left as it was and nothing is sent.
 */
static falcon_err_t decompose_intent(struct falcond_state *st, const char *id)
{
	struct falcon_lease *lp;
	char was[sizeof(lp->state)];
	falcon_err_t rv = FALCON_OK;

	pthread_mutex_lock(&st->lock);
	lp = falcond_ledger_lease(st->ledger, id);
	if (lp != NULL && strcmp(lp->state, "active") == 0) {
		falcon_strlcpy(was, lp->state, sizeof(was));
		falcon_strlcpy(lp->state, "closing", sizeof(lp->state));
		rv = falcond_commit_locked(st);
		lp = falcond_ledger_lease(st->ledger, id);
		if (rv != FALCON_OK && lp != NULL)
			falcon_strlcpy(lp->state, was, sizeof(lp->state));
	}
	pthread_mutex_unlock(&st->lock);
	return rv;
}

/*
 * keep_serves_waiter - whether Slurm shows a job waiting on l's host in
 * l's partition that the keep of lease copy l would serve (keep.h
 * falcond_keep_for), its id in *job (0: none, or not asked), and the jobs
 * waiting there that it does not serve ask no more than the chassis has
 * free (on the chassis' last inventory read, falcond_keep_pool; not
 * judged before the first).  Asks Slurm without st->lock, then takes it
 * to skip jobs that hold a lease already.
 * Without Slurm (falcond --no-slurm) every keep serves, as before issue
 * 41; when Slurm does not answer, none does (never hold idle devices
 * blind).  *why gets the reason when false.
 */
static bool keep_serves_waiter(struct falcond_state *st, const struct falcon_lease *l,
			       const char **why, uint32_t *job)
{
	const struct falcond_keep_waiter *for_job;
	const struct falcon_host_conf *h;
	struct falcond_keep_waiter *w = NULL;
	struct falcond_keep_pool pool;
	struct falcond_chassis *ch;
	size_t n = 0;
	bool known;

	*job = 0;
	if (!st->use_slurm)
		return true;
	if (falcond_keep_waiters(st, l->host, l->partition, &w, &n) != FALCON_OK) {
		falcon_warn("lease %s: %s", l->id, falcon_errmsg());
		*why = "Slurm did not say which jobs wait";
		return false;
	}
	pthread_mutex_lock(&st->lock);
	ch = l->ndevs > 0 ? falcond_chassis_of(st, l->devs[0].chassis) : NULL;
	h = falcon_conf_host(st->conf, l->host);
	known = ch != NULL && ch->have_last && h != NULL;
	if (known)
		falcond_keep_pool(st->ledger, l, h, &ch->reach, &ch->last, &pool);
	for_job = falcond_keep_for(st->ledger, l, w, n, st->conf->keep_warm_reset != NULL,
				   known ? &pool : NULL, why);
	if (for_job != NULL)
		*job = for_job->job_id;
	pthread_mutex_unlock(&st->lock);
	free(w);
	return for_job != NULL;
}

/*
 * decompose_keep - lease id kept warm instead of released (keep.h): when
 * falcond_keep_wanted and a job Slurm shows waiting can use it
 * (keep_serves_waiter), its devices stay attached to its host, the lease
 * turns "kept" and the reconcile thread is woken for its deadline; one
 * already kept (a retried epilog) stays so (takes st->lock; the caller
 * commits).  Returns whether it is kept; false leaves it as it was.
 */
static bool decompose_keep(struct falcond_state *st, const char *id,
			   const struct falcon_decompose_req *r)
{
	struct falcon_lease *lp, snap;
	const char *why = NULL;
	bool kept = false, want;
	uint32_t for_job = 0;
	char for_what[48] = "";

	pthread_mutex_lock(&st->lock);
	lp = falcond_ledger_lease(st->ledger, id);
	if (lp != NULL && falcond_lease_kept(lp)) {
		kept = r->keep;
		pthread_mutex_unlock(&st->lock);
		return kept;
	}
	want = lp != NULL && falcond_keep_wanted(st->ledger, st->conf, lp, r);
	if (want)
		snap = *lp;
	pthread_mutex_unlock(&st->lock);
	if (!want)
		return false;
	if (!keep_serves_waiter(st, &snap, &why, &for_job)) {
		pthread_mutex_lock(&st->lock);
		st->kept_declined++;
		pthread_mutex_unlock(&st->lock);
		falcon_info("lease %s: job %u's %zu device(s) not kept warm on %s: %s", id,
			    snap.job_id, snap.ndevs, snap.host, why);
		return false;
	}
	/* the ledger may have changed while Slurm was asked */
	pthread_mutex_lock(&st->lock);
	lp = falcond_ledger_lease(st->ledger, id);
	if (lp != NULL && falcond_keep_wanted(st->ledger, st->conf, lp, r)) {
		if (falcond_keep_begin(st->ledger, lp, falcond_now_ms()) != FALCON_OK)
			falcon_warn("%s", falcon_errmsg());
		kept = true;
		st->kept_total++;
		if (for_job != 0)
			snprintf(for_what, sizeof(for_what), " (job %u waits)", for_job);
		falcon_info("lease %s: job %u's %zu device(s) kept warm on %s for %d s%s", id,
			    lp->job_id, lp->ndevs, lp->host, falcond_keep_seconds(st->conf, lp),
			    for_what);
		pthread_cond_broadcast(&st->wake); /* its deadline */
	}
	pthread_mutex_unlock(&st->lock);
	return kept;
}

/* wait_live - until no lease of r (its lease, or its job's) is live on
 * any chassis (st->lock held, released while waiting). */
static void wait_live(struct falcond_state *st, const struct falcon_decompose_req *r)
{
	size_t c;

	for (c = 0; c < st->nchassis; c++) {
		if (r->lease[0] == '\0') {
			falcond_live_wait(st, &st->ch[c], r->job_id, NULL, 0);
			continue;
		}
		while (falcond_live_has(&st->ch[c], r->lease))
			pthread_cond_wait(&st->unlive, &st->lock);
	}
}

falcon_err_t falcond_decompose(struct falcond_state *st, const struct falcon_decompose_req *r,
			       json_object **closed)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	falcon_err_t rv = FALCON_OK;
	int total_q = 0, n = 0, nkept = 0;

	/* EpilogSlurmctld: the job has ended; a compose of it asked before
	 * now and not yet live (waiting for its chassis' lock) is rolled back
	 * when it ends (compose.c compose_alive) */
	if (r->off_node) {
		pthread_mutex_lock(&st->lock);
		falcond_job_ended_mark(st, r->job_id);
		pthread_mutex_unlock(&st->lock);
	}
	for (;;) {
		char id[FALCON_LEASE_ID_LEN] = "", chname[FALCON_NAME_LEN] = "";
		struct falcon_lease *lp = NULL;
		struct falcond_chassis *ch;
		bool live, kept = false;
		size_t i;

		pthread_mutex_lock(&st->lock);
		/* a compose or release of the job in progress ends first: its
		 * lease is then active (closed here) or gone */
		wait_live(st, r);
		if (r->lease[0])
			lp = n == 0 ? falcond_ledger_lease(st->ledger, r->lease) : NULL;
		else /* a dead falcond's in-flight lease is left to settle */
			for (i = 0; i < st->ledger->nleases && lp == NULL; i++)
				if (st->ledger->leases[i].job_id == r->job_id &&
				    !falcond_lease_in_flight(&st->ledger->leases[i]) &&
				    !falcond_lease_kept(&st->ledger->leases[i]) &&
				    !(r->off_node && st->ledger->leases[i].on_node))
					lp = &st->ledger->leases[i];
		if (lp != NULL) {
			falcon_strlcpy(id, lp->id, sizeof(id));
			if (lp->ndevs > 0)
				falcon_strlcpy(chname, lp->devs[0].chassis, sizeof(chname));
		}
		ch = id[0] ? falcond_chassis_of(st, chname) : NULL;
		live = ch != NULL && falcond_live_add(ch, id);
		pthread_mutex_unlock(&st->lock);
		if (id[0] == '\0')
			break;
		if (ch == NULL) { /* a lease without devices or of a chassis gone */
			pthread_mutex_lock(&st->lock);
			falcond_ledger_remove_lease(st->ledger, id);
			pthread_mutex_unlock(&st->lock);
		} else if ((kept = decompose_keep(st, id, r))) {
			pthread_mutex_lock(&st->lock);
			if (live)
				falcond_live_del(st, ch, id);
			pthread_mutex_unlock(&st->lock);
			nkept++;
		} else {
			char result[256];

			snprintf(result, sizeof(result), "released%s%s%s",
				 r->off_node ? "; its job ended before a node prolog asked for it" : "",
				 r->check[0] ? "; check: " : "", r->check);
			rv = decompose_intent(st, id);
			if (rv == FALCON_OK)
				total_q += falcond_release_lease(st, ch, id, result, NULL);
			pthread_mutex_lock(&st->lock);
			if (live)
				falcond_live_del(st, ch, id);
			pthread_mutex_unlock(&st->lock);
			if (rv != FALCON_OK)
				break;
		}
		/* acknowledge only once it is written */
		pthread_mutex_lock(&st->lock);
		rv = falcond_commit_locked(st);
		pthread_mutex_unlock(&st->lock);
		if (rv != FALCON_OK)
			break;
		json_object_array_add(a, json_object_new_string(id));
		n++;
		if (!kept)
			falcon_info("lease %s: closed%s", id,
				    r->off_node ? " (job ended before any node prolog asked for it: "
						  "EpilogSlurmctld)" : "");
	}
	if (n == 0 && rv == FALCON_OK)
		rv = r->lease[0] ? falcon_err_set(FALCON_ERR_NOTFOUND, "decompose: no lease %s", r->lease)
				 : falcon_err_set(FALCON_ERR_NOTFOUND, "decompose: job %u has no lease%s",
						  r->job_id, r->off_node ? " off its nodes" : "");
	json_object_object_add(o, "closed", a);
	json_object_object_add(o, "quarantined", json_object_new_int(total_q));
	json_object_object_add(o, "kept", json_object_new_int(nkept));
	if (closed)
		*closed = o;
	else
		json_object_put(o);
	return rv;
}
