/*
 * reconcile.c - ledger x chassis x Slurm: leases closed whose devices or
 * job are gone, orphans detached, what a dead falcond left in flight
 * settled; the reconcile thread (reconcile.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef HAVE_SLURM
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include "slurm_compat.h"
#endif

#include "reconcile.h"
#include "confgen.h"
#include "desc.h"
#include "detach.h"
#include "inventory.h"
#include "keep.h"
#include "resv.h"
#include "slurmjob.h"
#include "core/log.h"
#include "core/util.h"

/* running_jobs - ids of jobs Slurm says are alive; -1 when Slurm cannot be asked. */
static int running_jobs(struct falcond_state *st, uint32_t **ids, size_t *n)
{
	*ids = NULL;
	*n = 0;
	if (!st->use_slurm)
		return -1;
#ifdef HAVE_SLURM
	{
		job_info_msg_t *msg = NULL;
		uint32_t i;

		falcond_slurm_init();
		if (slurm_load_jobs(0, &msg, SHOW_ALL) != SLURM_SUCCESS) {
			falcon_warn("reconcile: slurm_load_jobs: %s; job states not checked",
				    slurm_strerror(slurm_get_errno()));
			return -1;
		}
		*ids = calloc(msg->record_count + 1, sizeof(**ids));
		for (i = 0; *ids && i < msg->record_count; i++) {
			uint32_t s = msg->job_array[i].job_state;

			if ((s & JOB_STATE_BASE) == JOB_RUNNING || (s & JOB_STATE_BASE) == JOB_SUSPENDED ||
			    (s & JOB_COMPLETING) || (s & JOB_CONFIGURING))
				(*ids)[(*n)++] = msg->job_array[i].job_id;
		}
		slurm_free_job_info_msg(msg);
		return *ids ? 0 : -1;
	}
#else
	return -1;
#endif
}

/*
 * unusable_nodes - the names of the nodes Slurm has drained, draining,
 * down or failing, ','-joined between commas (",n1,n2,"; a new string,
 * caller frees), into *out: their kept devices (keep.h) go back to the
 * chassis; NULL when nothing is kept or Slurm cannot be asked.
 */
static void unusable_nodes(struct falcond_state *st, char **out)
{
	bool kept = false;
	size_t k;

	*out = NULL;
	pthread_mutex_lock(&st->lock); /* one RPC less a pass when nothing is kept */
	for (k = 0; k < st->ledger->nleases && !kept; k++)
		kept = falcond_lease_kept(&st->ledger->leases[k]);
	pthread_mutex_unlock(&st->lock);
	if (!st->use_slurm || !kept)
		return;
#ifdef HAVE_SLURM
	{
		node_info_msg_t *msg = NULL;
		size_t len = 2, off;
		uint32_t i;

		falcond_slurm_init();
		if (slurm_load_node(0, &msg, SHOW_ALL) != SLURM_SUCCESS) {
			falcon_warn("reconcile: slurm_load_node: %s; drained nodes not checked",
				    slurm_strerror(slurm_get_errno()));
			return;
		}
		for (i = 0; i < msg->record_count; i++)
			len += msg->node_array[i].name ? strlen(msg->node_array[i].name) + 1 : 0;
		if ((*out = malloc(len)) != NULL) {
			strcpy(*out, ",");
			off = 1;
			for (i = 0; i < msg->record_count; i++) {
				const node_info_t *n = &msg->node_array[i];
				uint32_t base = n->node_state & NODE_STATE_BASE;

				if (n->name == NULL ||
				    !((n->node_state & (NODE_STATE_DRAIN | NODE_STATE_FAIL)) ||
				      base == NODE_STATE_DOWN || base == NODE_STATE_UNKNOWN))
					continue;
				off += (size_t)sprintf(*out + off, "%s,", n->name);
			}
		}
		slurm_free_node_info_msg(msg);
	}
#endif
}

/* One reconcile pass: what Slurm said, and the counts. */
struct reconcile_run {
	uint32_t *jobs;              /* running jobs (owned) */
	size_t njobs;
	char *unusable;              /* ",node,...," drained/down (owned), NULL = not checked */
	int slurm_ok;                /* 0: jobs is what Slurm says; -1: not checked */
	long long jobs_ms;           /* falcond_now_ms before jobs was read */
	unsigned long long rolled, closed_gone, closed_job, orphans, errors;
	unsigned long long late, settling; /* late attaches detached; leases left settling */
	unsigned long long since;    /* the chassis' change generation when its read
				      * began (falcond_chassis_gen) */
};

/*
 * kept_verdict - why kept lease l (keep.h) goes back to the chassis, or
 * NULL: its KeepWarm= has passed (the conf now: a reload that lowered it
 * counts), or its node is drained or down (st->lock held).
 */
static const char *kept_verdict(struct reconcile_run *run, const struct falcond_state *st,
				const struct falcon_lease *l)
{
	char pat[FALCON_NAME_LEN + 2];

	if (falcond_keep_deadline(st->conf, l) <= falcond_now_ms())
		return FALCOND_KEEP_RESULT "; released: KeepWarm= passed";
	snprintf(pat, sizeof(pat), ",%s,", l->host);
	if (run->unusable != NULL && strstr(run->unusable, pat) != NULL)
		return FALCOND_KEEP_RESULT "; released: node drained or down";
	return NULL;
}

/*
 * lease_verdict - why lease l of chassis ch must be closed, or NULL: a
 * "closing" one is released, one whose device is not attached to its port
 * in inv any more or whose job Slurm does not run closed (counted in run,
 * logged; st->lock held).  A lease with a device changed since the read
 * began (run->since) is not judged by the read: the next pass will.
 * In-flight leases are reconcile_settle's.
 */
static const char *lease_verdict(struct reconcile_run *run, const struct falcond_state *st,
				 const struct falcond_chassis *ch,
				 const struct falcon_inventory *inv, const struct falcon_lease *l)
{
	const char *cn = ch->cc->name;
	size_t j, k;

	if (strcmp(l->state, "closing") == 0)
		return "released";
	for (j = 0; j < l->ndevs; j++)
		if (falcond_chassis_touched(ch, run->since, l->devs[j].id))
			return NULL;
	for (j = 0; j < l->ndevs; j++) {
		for (k = 0; k < inv->n; k++)
			if (strcmp(inv->devs[k].id, l->devs[j].id) == 0)
				break;
		if (k == inv->n || strcmp(inv->devs[k].owner, l->devs[j].port) != 0) {
			falcon_warn("reconcile: lease %s: %s/%s not attached to %s any more; "
				    "lease closed", l->id, cn, l->devs[j].id, l->devs[j].port);
			run->closed_gone++;
			return "gone from the chassis";
		}
	}
	if (falcond_lease_kept(l))
		return kept_verdict(run, st, l);
	if (run->slurm_ok != 0 || !falcond_job_ended(run->jobs, run->njobs, run->jobs_ms, l))
		return NULL;
	falcon_warn("reconcile: lease %s: job %u is not running; devices reclaimed", l->id,
		    l->job_id);
	run->closed_job++;
	return "job not running";
}

/*
 * reconcile_leases - close the leases of chassis ch that must go (at most
 * 64 a pass), judged under st->lock by lease_verdict, released after it
 * (ch->lock held).
 */
static void reconcile_leases(struct falcond_state *st, struct falcond_chassis *ch,
			     const struct falcon_inventory *inv, struct reconcile_run *run)
{
	char ids[64][FALCON_LEASE_ID_LEN];
	char why[64][64];
	size_t nids = 0, i;

	pthread_mutex_lock(&st->lock);
	for (i = 0; i < st->ledger->nleases && nids < 64; i++) {
		const struct falcon_lease *l = &st->ledger->leases[i];
		const char *reason;

		if (l->ndevs == 0 || strcmp(l->devs[0].chassis, ch->cc->name) != 0 ||
		    falcond_lease_in_flight(l) || falcond_live_has(ch, l->id))
			continue;
		reason = lease_verdict(run, st, ch, inv, l);
		if (reason != NULL && falcond_lease_kept(l)) {
			/* its idle time ends now (the detach follows) */
			ch->idle_gpu_ms += falcond_keep_idle_ms(l, falcond_now_ms());
			st->kept_expired++;
			falcon_info("reconcile: lease %s (kept warm on %s since job %u): %s", l->id,
				    l->host, l->job_id, reason);
		}
		if (reason != NULL) {
			falcon_strlcpy(ids[nids], l->id, sizeof(ids[nids]));
			falcon_strlcpy(why[nids++], reason, sizeof(why[0]));
		}
	}
	pthread_mutex_unlock(&st->lock);
	for (i = 0; i < nids; i++)
		falcond_release_lease(st, ch, ids[i], why[i], NULL);
}

/*
 * settle_one - one look at in-flight lease id (falcond_ledger_settle_look):
 * it becomes "settling"; its devices attached late are detached (or
 * quarantined); settled, it is dropped (ch->lock held; takes st->lock).
 */
static void settle_one(struct falcond_state *st, struct falcond_chassis *ch,
		       const struct falcon_inventory *inv, const char *id,
		       struct reconcile_run *run)
{
	bool late[FALCON_PROTO_MAX_DEVS], settled;
	struct falcon_lease l, *lp;
	size_t j, k;

	pthread_mutex_lock(&st->lock);
	lp = falcond_ledger_lease(st->ledger, id);
	if (lp == NULL || !falcond_lease_in_flight(lp) || falcond_live_has(ch, id)) {
		pthread_mutex_unlock(&st->lock);
		return;
	}
	if (strcmp(lp->state, "composing") == 0)
		falcon_warn("reconcile: lease %s (job %u on %s) was in flight when falcond "
			    "stopped; its devices are held and watched %d s before it is "
			    "rolled back", id, lp->job_id, lp->host, st->conf->settle_time);
	falcon_strlcpy(lp->state, "settling", sizeof(lp->state));
	settled = falcond_ledger_settle_look(st->ledger, lp, inv, falcond_now_ms(),
					     st->conf->settle_time * 1000LL, late);
	l = *lp;
	if (settled)
		falcond_ledger_remove_lease(st->ledger, id);
	pthread_mutex_unlock(&st->lock);
	for (j = 0; j < l.ndevs; j++) {
		if (!late[j])
			continue;
		for (k = 0; k < inv->n && strcmp(inv->devs[k].id, l.devs[j].id) != 0; k++)
			;
		falcon_warn("reconcile: lease %s: %s/%s attached to %s late (by the request "
			    "in flight when falcond stopped); detaching", id, ch->cc->name,
			    l.devs[j].id, inv->devs[k].owner);
		run->late++;
		falcond_detach_or_quarantine(st, ch, inv->devs[k].owner, l.devs[j].id, "settle");
	}
	if (settled) {
		falcon_warn("reconcile: lease %s: settled; rolled back", id);
		run->rolled++;
	} else {
		run->settling++;
	}
}

/* reconcile_settle - settle_one for each in-flight lease of chassis ch (at
 * most 64 a pass; ch->lock held). */
static void reconcile_settle(struct falcond_state *st, struct falcond_chassis *ch,
			     const struct falcon_inventory *inv, struct reconcile_run *run)
{
	char ids[64][FALCON_LEASE_ID_LEN];
	size_t nids = 0, i;

	pthread_mutex_lock(&st->lock);
	for (i = 0; i < st->ledger->nleases && nids < 64; i++) {
		const struct falcon_lease *l = &st->ledger->leases[i];

		/* a live one is this falcond's compose in progress, not a dead one's */
		if (l->ndevs > 0 && strcmp(l->devs[0].chassis, ch->cc->name) == 0 &&
		    falcond_lease_in_flight(l) && !falcond_live_has(ch, l->id))
			falcon_strlcpy(ids[nids++], l->id, sizeof(ids[0]));
	}
	pthread_mutex_unlock(&st->lock);
	for (i = 0; i < nids; i++)
		settle_one(st, ch, inv, ids[i], run);
}

/* taken_back - whether this pass already detached dev (a lease it closed):
 * ch->last, read with inv, has it free since (falcond_port_change) (st->lock held). */
static bool taken_back(const struct falcond_chassis *ch, const char *dev)
{
	size_t i;

	for (i = 0; ch->have_last && i < ch->last.n; i++)
		if (strcmp(ch->last.devs[i].id, dev) == 0)
			return ch->last.devs[i].owner[0] == '\0';
	return false;
}

/* reconcile_orphans - detach the devices of inv attached that no lease
 * names (ch->lock held). */
static void reconcile_orphans(struct falcond_state *st, struct falcond_chassis *ch,
			      const struct falcon_inventory *inv, struct reconcile_run *run)
{
	size_t i;

	for (i = 0; i < inv->n; i++) {
		const struct falcon_device *d = &inv->devs[i];
		bool leased;

		if (d->owner[0] == '\0')
			continue;
		pthread_mutex_lock(&st->lock);
		leased = falcond_ledger_device_lease(st->ledger, ch->cc->name, d->id) != NULL ||
			 taken_back(ch, d->id) || falcond_chassis_touched(ch, run->since, d->id);
		pthread_mutex_unlock(&st->lock);
		if (leased)
			continue;
		falcon_warn("reconcile: %s/%s attached to %s without a lease; detaching",
			    ch->cc->name, d->id, d->owner);
		run->orphans++;
		falcond_detach_or_quarantine(st, ch, d->owner, d->id, "reconcile");
	}
}

/*
 * reconcile_chassis - one chassis: read without ch->lock (a read may take
 * seconds; composes go on meanwhile), then, under ch->lock, its settling
 * leases, its leases and its orphans judged by that read, leaving alone
 * what changed since it began (falcond_chassis_touched); the chassis read
 * again after changes, the ledger committed (takes ch->lock, then
 * st->lock).
 */
static void reconcile_chassis(struct falcond_state *st, struct falcond_chassis *ch,
			      struct reconcile_run *run)
{
	struct falcon_inventory inv = { .devs = NULL };
	unsigned long long detaches;
	falcon_err_t rv;

	pthread_mutex_lock(&st->lock);
	if (ch->down) /* it was away: it may have been serviced */
		falcond_desc_forget(ch, NULL);
	ch->down = false; /* this pass is the reconcile a recovery would kick */
	run->since = ch->gen;
	pthread_mutex_unlock(&st->lock);
	if (falcond_chassis_inventory(st, ch, &inv, true) != FALCON_OK) {
		falcon_error("reconcile: chassis %s: %s", ch->cc->name, falcon_errmsg());
		run->errors++;
		return;
	}
	pthread_mutex_lock(&ch->lock);
	detaches = __atomic_load_n(&ch->detaches, __ATOMIC_RELAXED);
	reconcile_settle(st, ch, &inv, run);
	reconcile_leases(st, ch, &inv, run);
	reconcile_orphans(st, ch, &inv, run);
	detaches = __atomic_load_n(&ch->detaches, __ATOMIC_RELAXED) - detaches;
	pthread_mutex_unlock(&ch->lock);
	/* after changes, read again (the cache too); clear what healed
	 * (resv.h).  Without changes the first read is still true. */
	if (detaches > 0) {
		falcon_inventory_free(&inv);
		/* a detach of this pass that failed set ch->down; its device is
		 * quarantined, the next pass looks again: this read must not
		 * kick one at once (a chassis failing every PATCH would get
		 * passes back to back, without end) */
		pthread_mutex_lock(&st->lock);
		ch->down = false;
		pthread_mutex_unlock(&st->lock);
		run->since = falcond_chassis_gen(st, ch);
		rv = falcond_chassis_inventory(st, ch, &inv, true);
	} else {
		rv = FALCON_OK;
	}
	if (rv == FALCON_OK)
		falcond_resv_heal(st, ch, &inv, run->since);
	falcon_inventory_free(&inv);
	pthread_mutex_lock(&st->lock);
	if (falcond_commit_locked(st) != FALCON_OK)
		run->errors++;
	pthread_mutex_unlock(&st->lock);
}

/* reconcile_report - the counts of run (a new object, caller puts). */
static json_object *reconcile_report(const struct reconcile_run *run)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "rolled_back", json_object_new_int64((int64_t)run->rolled));
	json_object_object_add(o, "closed_gone", json_object_new_int64((int64_t)run->closed_gone));
	json_object_object_add(o, "closed_job_ended",
			       json_object_new_int64((int64_t)run->closed_job));
	json_object_object_add(o, "orphans_detached", json_object_new_int64((int64_t)run->orphans));
	json_object_object_add(o, "late_detached", json_object_new_int64((int64_t)run->late));
	json_object_object_add(o, "settling", json_object_new_int64((int64_t)run->settling));
	json_object_object_add(o, "chassis_unreachable",
			       json_object_new_int64((int64_t)run->errors));
	json_object_object_add(o, "slurm_checked", json_object_new_boolean(run->slurm_ok == 0));
	return o;
}

/* One chassis' pass of a reconcile, on a thread of its own. */
struct chassis_pass {
	struct falcond_state *st;
	struct falcond_chassis *ch;
	struct reconcile_run run;    /* its counts; jobs shared, read only */
};

static void *chassis_pass_main(void *arg)
{
	struct chassis_pass *p = arg;
	bool first = !__atomic_load_n(&p->ch->ready, __ATOMIC_ACQUIRE);
	long long t0 = falcon_now_ms();

	reconcile_chassis(p->st, p->ch, &p->run);
	/* served from now on, also while other chassis are still read */
	__atomic_store_n(&p->ch->ready, true, __ATOMIC_RELEASE);
	/* a takeover's time is each chassis' own first pass (make soak-fleet
	 * reads it from the log): said once, at the start-up pass */
	if (first)
		falcon_info("start-up reconcile: chassis %s served from now on (its pass took %.1f s)",
			    p->ch->cc->name, (double)(falcon_now_ms() - t0) / 1000.0);
	return NULL;
}

/* add_counts - run += p's counts. */
static void add_counts(struct reconcile_run *run, const struct reconcile_run *p)
{
	run->rolled += p->rolled;
	run->closed_gone += p->closed_gone;
	run->closed_job += p->closed_job;
	run->orphans += p->orphans;
	run->errors += p->errors;
	run->late += p->late;
	run->settling += p->settling;
}

falcon_err_t falcond_reconcile(struct falcond_state *st, json_object **report)
{
	struct reconcile_run run = { .jobs = NULL };
	struct chassis_pass *passes;
	pthread_t *tids;
	bool *started;
	size_t c;

	run.jobs_ms = falcond_now_ms();
	run.slurm_ok = running_jobs(st, &run.jobs, &run.njobs);
	unusable_nodes(st, &run.unusable);
	/* the chassis in parallel: each waits on its own reads */
	passes = calloc(st->nchassis ? st->nchassis : 1, sizeof(*passes));
	tids = calloc(st->nchassis ? st->nchassis : 1, sizeof(*tids));
	started = calloc(st->nchassis ? st->nchassis : 1, sizeof(*started));
	for (c = 0; c < st->nchassis; c++) {
		struct chassis_pass *p = passes ? &passes[c] : NULL;

		if (p == NULL || tids == NULL || started == NULL) { /* out of memory: in turn */
			reconcile_chassis(st, &st->ch[c], &run);
			__atomic_store_n(&st->ch[c].ready, true, __ATOMIC_RELEASE);
			continue;
		}
		p->st = st;
		p->ch = &st->ch[c];
		p->run.jobs = run.jobs;
		p->run.njobs = run.njobs;
		p->run.slurm_ok = run.slurm_ok;
		p->run.jobs_ms = run.jobs_ms;
		p->run.unusable = run.unusable;
		started[c] = st->nchassis > 1 &&
			     pthread_create(&tids[c], NULL, chassis_pass_main, p) == 0;
		if (!started[c])
			chassis_pass_main(p);
	}
	for (c = 0; passes && tids && started && c < st->nchassis; c++) {
		if (started[c])
			pthread_join(tids[c], NULL);
		add_counts(&run, &passes[c].run);
	}
	free(passes);
	free(tids);
	free(started);
	free(run.jobs);
	free(run.unusable);
	pthread_mutex_lock(&st->lock);
	st->reconcile_runs++;
	st->rolled_back += run.rolled;
	st->disagree_gone += run.closed_gone;
	st->disagree_job += run.closed_job;
	st->disagree_orphan += run.orphans;
	st->disagree_late += run.late;
	pthread_mutex_unlock(&st->lock);
	/* a periodic pass that found nothing is not worth a line at info */
	falcon_log(run.rolled || run.closed_gone || run.closed_job || run.orphans || run.late ||
		   run.settling || run.errors ? FALCON_LOG_INFO : FALCON_LOG_VERBOSE,
		"reconcile: %llu rolled back, %llu closed (gone), %llu closed (job ended), "
		"%llu orphan device(s) detached, %llu late attach(es) detached, %llu lease(s) "
		"settling, %llu chassis unreachable", run.rolled, run.closed_gone,
		run.closed_job, run.orphans, run.late, run.settling, run.errors);
	falcond_resv_kick(st, run.errors == 0); /* Slurm's view of the quarantine */
	if (report)
		*report = reconcile_report(&run);
	return run.errors ? falcon_err_set(FALCON_ERR_TRANSPORT,
					   "reconcile: %llu chassis unreachable", run.errors)
			  : FALCON_OK;
}

/* wake_at - wait on st->wake until t (falcon_now_ms clock; t < 0: until
 * signalled) (st->lock held). */
static void wake_at(struct falcond_state *st, long long t)
{
	struct timespec ts;
	long long d;

	if (t < 0) {
		pthread_cond_wait(&st->wake, &st->lock);
		return;
	}
	d = t - falcon_now_ms();
	if (d <= 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += (time_t)(d / 1000);
	ts.tv_nsec += (long)(d % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&st->wake, &st->lock, &ts);
}

/* hold_due - the first moment after since (falcon_now_ms clock: the start
 * of the last pass) at which a chassis has been unreachable for
 * UnreachableHold= seconds: a pass must run then, so that the reservation
 * thread holds its free devices (resv.h); -1 = none (st->lock held). */
static long long hold_due(const struct falcond_state *st, long long since)
{
	long long hold = st->conf->unreachable_hold * 1000LL, due = -1;
	size_t c;

	for (c = 0; hold > 0 && c < st->nchassis; c++) {
		long long at = st->ch[c].unreach_ms + hold;

		if (st->ch[c].unreach_ms != 0 && at > since && (due < 0 || at < due))
			due = at;
	}
	return due;
}

void *falcond_reconciler(void *arg)
{
	struct falcond_state *st = arg;
	long long interval = st->conf->reconcile_interval * 1000LL;
	long long next = interval ? falcon_now_ms() + interval : -1;
	long long last_wall = falcond_now_ms(); /* start of the last pass */
	long long last_pass = falcon_now_ms();  /* the same, on falcon_now_ms's clock */
	unsigned gen;

	pthread_mutex_lock(&st->lock);
	while (!st->stopping) {
		/* a settle deadline set since the last pass (one that is past
		 * and still there, its chassis unreachable, waits for the next
		 * periodic pass or kick) */
		long long due = next, settle = falcond_ledger_settle_next(st->ledger);

		if (settle > last_wall) {
			long long at = falcon_now_ms() + (settle - falcond_now_ms());

			due = due < 0 || at < due ? at : due;
		}
		{
			long long at = hold_due(st, last_pass);

			due = at >= 0 && (due < 0 || at < due) ? at : due;
		}
		{	/* the first keep to end (keep.h), on falcon_now_ms's
			 * clock; one past at the last pass (its chassis
			 * unreachable) waits, as a settle deadline does */
			unsigned cg = falcond_conf_hold(&st->confgen); /* a SIGHUP may reload meanwhile */
			long long kept = falcond_keep_next(st->ledger, st->conf, last_wall);

			falcond_conf_release(&st->confgen, cg);

			if (kept > 0) {
				long long at = falcon_now_ms() + (kept - falcond_now_ms()) + 50;

				due = due < 0 || at < due ? at : due;
			}
		}
		if (!st->kick && (due < 0 || falcon_now_ms() < due)) {
			wake_at(st, due);
			continue;
		}
		st->kick = false;
		last_wall = falcond_now_ms();
		last_pass = falcon_now_ms();
		pthread_mutex_unlock(&st->lock);
		gen = falcond_conf_hold(&st->confgen); /* a SIGHUP may reload meanwhile */
		falcond_reconcile(st, NULL);
		falcond_conf_release(&st->confgen, gen);
		pthread_mutex_lock(&st->lock);
		if (interval)
			next = falcon_now_ms() + interval;
	}
	pthread_mutex_unlock(&st->lock);
	return NULL;
}

void falcond_reconciler_stop(struct falcond_state *st)
{
	pthread_mutex_lock(&st->lock);
	st->stopping = true;
	pthread_cond_broadcast(&st->wake);
	pthread_mutex_unlock(&st->lock);
}
