/*
 * state.h - what every part of falcond shares (state.c): the chassis table
 * (one entry per ChassisName, each with its lock, its last inventory and
 * what placement learnt of it), the state (configuration and its
 * generations, ledger, group commit, the reconcile thread's wake-up, the
 * process' role, metrics) and the ledger's group commit.  One struct
 * falcond_state exists, main()'s, passed to every part that needs it.
 *
 * Locks: changes to one chassis are serialized by its mutex (struct
 * falcond_chassis.lock); st->lock guards the ledger, caches and metrics
 * and is always taken after a chassis lock, never before.
 *
 * Ledger protocol (what makes a crash safe): intent before action.
 *   compose (compose.c):     lease added ("composing": its devices are
 *              held) and committed -> attach -> "active" -> chassis
 *              unlocked -> group commit of the ledger -> answer.
 *   decompose (decompose.c): "closing" committed -> detach -> lease
 *              dropped in memory -> commit -> answer.
 *   A crash leaves in the file what was in flight.  A "composing" lease
 *   found by a reconcile (reconcile.c) was left by a dead falcond (a live
 *   compose holds ch->lock, which reconcile takes): it becomes "settling",
 *   its devices stay held, and every reconcile detaches those the chassis
 *   shows attached (the dead process's PATCH may land late) until
 *   SettleTime passes with none attached; then it is dropped (rolled
 *   back).  The same job's compose on the same host (its prolog's retry)
 *   takes those devices over instead (compose.c, own): the late PATCH
 *   gives them to the port it uses.  A "closing" one is released again.
 *   A device attached that no lease names is detached, a lease whose
 *   devices are gone closed.
 *   Nothing answered is lost, since every answer waits for its commit.  A
 *   detach that fails quarantines the device (committed at once) with the
 *   reason (detach.c).  Reconcile runs at start, every ReconcileInterval,
 *   when a chassis answers again after failing, on SIGHUP and on demand.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCOND_STATE_H
#define FALCOND_STATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "chassis/chassis.h"
#include "core/conf.h"
#include "core/falcon_err.h"
#include "confgen.h"
#include "ledger.h"
#include "place.h"

#define FALCOND_NBUCKETS 12 /* latency histogram buckets: falcond_buckets (status.h) */

struct falcond_hist_metric {
	unsigned long long bucket[FALCOND_NBUCKETS];
	unsigned long long count;
	double sum;
};

#define FALCOND_TOUCHED_MAX 64 /* changes remembered for a reconcile's read */
#define FALCOND_PORTS_MAX 16    /* host ports of one chassis in falcon.conf */
#define FALCOND_LIVE_MAX 256    /* leases being composed or released at once */
/* Jobs ended by EpilogSlurmctld remembered (falcond_job_ended_mark): more
 * than end within one compose's time on any site. */
#define FALCOND_ENDED_MAX 256

/*
 * A host port of a chassis as falcond changes it: its zone (redfish-fabric)
 * or system (redfish-composition) is changed by one request at a time, on
 * a client of its own, so that ports change at once (a chassis keeps an
 * ETag per zone).  The last entry of a chassis' table serves the ports
 * falcon.conf does not name (an orphan on a port no host has).
 */
struct falcond_port {
	char name[FALCON_NAME_LEN];     /* "H1"; "" = the entry for the others */
	pthread_mutex_t lock;           /* one change request at a time */
	struct falcon_chassis *client;  /* NULL until opened (lock) */
};

struct falcond_chassis {
	const struct falcon_chassis_conf *cc;
	/* two clients: changes go through client (ch->lock), reads through
	 * reader (read_lock), so that a read that takes seconds (a periodic
	 * reconcile's) holds no compose up */
	struct falcon_chassis *reader;  /* NULL until opened, keeps the device
					 * descriptions (desc.c) (read_lock) */
	size_t nports;                  /* ports[nports] is the entry for the others */
	struct falcond_port ports[FALCOND_PORTS_MAX + 1];
	/* placement: a compose's choice and its lease in memory, a reconcile's
	 * judgement; no request to the chassis is made under it but a
	 * reconcile's reads and detaches.  Lock order: ch->lock, a port's
	 * lock, read_lock, st->lock. */
	pthread_mutex_t lock;
	pthread_mutex_t read_lock;      /* one read at a time */
	bool ready;                     /* reconciled once since start (atomic):
					 * composes on it are served */
	/* leases being composed or released (st->lock): not judged by a
	 * reconcile; a repeat or decompose of their job waits for them */
	size_t nlive;
	char live[FALCOND_LIVE_MAX][FALCON_LEASE_ID_LEN];
	/* the cache, st->lock: */
	struct falcon_inventory last;   /* last inventory seen (status, metrics, placement) */
	bool have_last;
	/* its devices as StateDir/chassis-<name>.json described them when this
	 * falcond started (desc.c; owners unknown), until a read works: what
	 * resv.c counts for a chassis unreachable since a restart or an HA
	 * takeover (make soak-fleet: a standby that took over during an
	 * outage held nothing in Slurm, and jobs were started on the chassis'
	 * licenses) */
	struct falcon_inventory described;
	bool have_described;
	long long last_ms;              /* when it was read (falcon_now_ms) */
	bool stale;                     /* an error since: read it again before use */
	bool down;                      /* its last read failed, or a change timed out
					 * (may land late): the next read that works
					 * kicks a reconcile */
	long long unreach_ms;           /* falcon_now_ms of the first of the reads
					 * failed in a row, 0 = the last read worked:
					 * past UnreachableHold= its free devices are
					 * held in Slurm (resv.h) */
	/* the changes made, st->lock: a reconcile that read without ch->lock
	 * leaves alone what changed after its read began (falcond_chassis_touched) */
	unsigned long long gen;         /* changes completed so far */
	struct { unsigned long long gen; char dev[FALCON_NAME_LEN]; }
		touched[FALCOND_TOUCHED_MAX]; /* the last ones, a ring by gen */
	struct falcond_reach reach;     /* ports learnt not cabled to a drawer (place.h;
					 * st->lock) */
	/* descriptions to drop before the next read (desc.c; st->lock):
	 * every one, or these devices (a Redfish event named them) */
	bool forget_all;
	size_t nforget;
	unsigned long long detaches;    /* detach requests sent (atomic): a reconcile
					 * that sent none reads the chassis once */
	char forget[8][FALCON_NAME_LEN];
	unsigned long long idle_gpu_ms; /* GPU-ms kept warm (attached, no job) by the
					 * keeps that ended since start (keep.h;
					 * st->lock) */
};

struct falcond_state {
	struct falcon_conf *conf;       /* the current generation (confgen) */
	struct falcond_confgen confgen; /* the generations a SIGHUP swaps (confgen.h) */
	struct falcond_ledger *ledger;
	pthread_mutex_t lock;           /* ledger, caches, metrics */
	pthread_cond_t saved;           /* group commit: a ledger write finished */
	unsigned long long gen;         /* ledger changes committed so far (in memory) */
	unsigned long long saved_gen;   /* ... of which durable */
	unsigned long long failed_gen;  /* a write covering up to this failed */
	bool saving;                    /* a thread is writing the ledger */
	size_t nchassis;
	struct falcond_chassis *ch;
	bool use_slurm;
	uid_t slurm_uid;                /* (uid_t)-1 when SlurmUser is unknown */
	/* falcon.conf's errors falcond can see but not refuse (st->lock):
	 * falcon_conf_check_missing() of this host; "" = none */
	char conf_error[512];
	/* the reconcile thread (falcond_reconciler; st->lock) */
	pthread_cond_t wake;            /* CLOCK_MONOTONIC: kick or stop */
	pthread_cond_t unlive;          /* a lease left a chassis' live set */
	bool kick;                      /* reconcile now (a chassis answers again) */
	bool stopping;
	/* the process' role (__atomic_*): set by main.c (falcond_role_*), read
	 * by the HTTP front (falcond.c) and the status page (statuspage.c) */
	struct {
		bool active;                /* StateDir's lock held, the state loaded:
					     * requests served (a standby answers 503) */
		bool reconciling;           /* the start-up reconcile runs: changes
					     * answered 503 with Retry-After */
		bool stopping;              /* the stop has begun: new composes answered
					     * 503, the status page's streams end */
	} role;
	/* metrics */
	unsigned long long compose_ok, compose_fail, decompose_ok, decompose_fail;
	unsigned long long chassis_errors[FALCON_ERR_MAX];
	unsigned long long auth_fail, perm_fail, reconcile_runs;
	unsigned long long disagree_orphan, disagree_gone, disagree_job, rolled_back;
	unsigned long long disagree_late; /* attaches of a dead falcond caught late */
	unsigned long long quarantined_total;
	unsigned long long kept_total, kept_reused, kept_evicted, kept_expired; /* keep.h */
	unsigned long long kept_declined; /* not kept: no job waiting could use it (issue 41) */
	struct falcond_hist_metric compose_lat, decompose_lat;
	/* jobs EpilogSlurmctld said ended (decompose off_node), newest last
	 * (a ring; st->lock): a compose of such a job asked before the mark
	 * is rolled back (falcond_job_ended_since) */
	struct {
		uint32_t job;
		long long ms;           /* falcon_now_ms() of the mark */
	} ended[FALCOND_ENDED_MAX];
	size_t ended_next;
};

/*
 * falcond_state_init - the locks and the chassis table (clients are opened on
 * first use); st->conf and st->ledger are set by the caller and stay
 * theirs.  FALCON_ERR_NOMEM.  falcond_state_fini closes the clients and frees
 * the table (not conf, not ledger).
 */
falcon_err_t falcond_state_init(struct falcond_state *st);
void falcond_state_fini(struct falcond_state *st);

/*
 * falcond_role_active - this falcond holds StateDir's lock and has loaded
 * its state: requests are served; with reconciling, changes are answered
 * 503 until falcond_role_reconciled().  falcond_role_stopping - the stop
 * has begun (SIGTERM, SIGINT, the lock lost): from now on every new
 * compose is answered 503 with Retry-After (doc/falcond.8, SIGNALS);
 * composes already past that check run to their end; the status page's
 * /events streams end.  Each an atomic store: idempotent, safe from any
 * thread.
 */
void falcond_role_active(struct falcond_state *st, bool reconciling);
void falcond_role_reconciled(struct falcond_state *st);
void falcond_role_stopping(struct falcond_state *st);

/* falcond_chassis_of - the chassis table's entry named name, or NULL. */
struct falcond_chassis *falcond_chassis_of(struct falcond_state *st, const char *name);
/* falcond_count_chassis_error - count e in the chassis error metrics (takes st->lock). */
void falcond_count_chassis_error(struct falcond_state *st, falcon_err_t e);
/* falcond_may_land_late - a change that failed with e may still be carried
 * out by the chassis (it was sent, no answer came): a reconcile must look again. */
bool falcond_may_land_late(falcon_err_t e);
/*
 * falcond_commit_upto_locked - make every ledger change up to generation
 * want durable (st->lock held on entry and on return; dropped while
 * writing).  Group commit: the thread that finds no write in progress
 * writes the ledger as it is (falcond_ledger_write_*: one record appended
 * to StateDir/ledger.log and fdatasynced; now and then a compaction,
 * ledger.h) for everyone who changed it before; the others wait for that
 * write.  FALCON_ERR_IO (logged) when the write
 * covering want failed, FALCON_ERR_NOMEM when it could not be serialised.
 * falcond_commit_locked - a new ledger change (the caller's, made under
 * st->lock) made durable: falcond_commit_upto_locked() of a new generation.
 */
falcon_err_t falcond_commit_upto_locked(struct falcond_state *st, unsigned long long want);
falcon_err_t falcond_commit_locked(struct falcond_state *st);

/*
 * falcond_job_ended_mark - job ended by Slurm's word (EpilogSlurmctld's
 * decompose off_node), now (st->lock held): composes of it asked before
 * now are rolled back when they end; the oldest of FALCOND_ENDED_MAX marks
 * is forgotten (its compose is left to the reconcile, as before).
 * falcond_job_ended_since - whether job was marked ended at or after
 * asked_ms (falcon_now_ms() clock; st->lock held): a compose asked then
 * is for a run of the job that has ended (a requeued job's next run asks
 * after the mark).
 */
void falcond_job_ended_mark(struct falcond_state *st, uint32_t job);
bool falcond_job_ended_since(const struct falcond_state *st, uint32_t job, long long asked_ms);

/*
 * falcond_live_add - lease id is being composed or released on ch: a
 * reconcile leaves it alone (st->lock held).  false when it already was
 * (nothing changed) or the set is full (FALCOND_LIVE_MAX: the caller then
 * goes on, as a falcond before this set did, and logs it).
 * falcond_live_del - no more (st->lock held): the waiters of st->unlive
 * are woken.  falcond_live_has - whether it is (st->lock held).
 */
bool falcond_live_add(struct falcond_chassis *ch, const char *id);
void falcond_live_del(struct falcond_state *st, struct falcond_chassis *ch, const char *id);
bool falcond_live_has(const struct falcond_chassis *ch, const char *id);
/* falcond_live_job - whether a lease of job (on host, NULL: on any host)
 * of ch is live (st->lock held). */
bool falcond_live_job(struct falcond_state *st, const struct falcond_chassis *ch, uint32_t job,
		      const char *host);

/*
 * falcond_live_wait - wait (st->lock held, released while waiting) until
 * no lease of job (on host, NULL: on any host) of ch is live, or until
 * deadline_ms (falcon_now_ms() clock; 0: no deadline).  Returns whether
 * none is left.
 */
bool falcond_live_wait(struct falcond_state *st, struct falcond_chassis *ch, uint32_t job,
		       const char *host, long long deadline_ms);

/* falcond_port_of - the port table's entry of ch for port (the entry for
 * the ports falcon.conf does not name when it names no such port, and for
 * every port with ParallelPorts=no). */
struct falcond_port *falcond_port_of(struct falcond_chassis *ch, const char *port);

/* falcond_chassis_gen - the generation of ch's changes now (takes st->lock):
 * what a read begun now shows, a later one may not. */
unsigned long long falcond_chassis_gen(struct falcond_state *st, struct falcond_chassis *ch);

/*
 * falcond_chassis_touched - whether a change request on dev ended after
 * generation since (st->lock held): a read begun at since may show dev as
 * it was before.  true also when more changes than FALCOND_TOUCHED_MAX
 * ended since (they are not all remembered).
 */
bool falcond_chassis_touched(const struct falcond_chassis *ch, unsigned long long since,
			     const char *dev);

#endif /* FALCOND_STATE_H */
