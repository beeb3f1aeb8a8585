/*
 * status.c - what falcond shows of its state: GET /v1/status (the
 * pool as last seen, leases, quarantine) and GET /metrics (Prometheus
 * text), and the latency histograms behind the latter.  It reads the state
 * under st->lock and calls the ledger's lookups; compose.c never calls
 * it (falcond.c does).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "status.h"
#include "keep.h"
#include "resv.h"
#include "core/util.h"

const double falcond_buckets[FALCOND_NBUCKETS] = { 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
						    0.5, 1, 2.5, 5, 10, INFINITY };

void falcond_observe(struct falcond_hist_metric *h, double s)
{
	size_t i;

	for (i = 0; i < FALCOND_NBUCKETS; i++)
		if (s <= falcond_buckets[i])
			h->bucket[i]++;
	h->count++;
	h->sum += s;
}

json_object *falcond_status_json(struct falcond_state *st, uid_t uid, bool all)
{
	json_object *o = json_object_new_object();
	json_object *devs = json_object_new_array();
	json_object *leases = json_object_new_array();
	json_object *quar = json_object_new_array();
	json_object *chs = json_object_new_array();
	json_object *errs;
	size_t c, i;

	pthread_mutex_lock(&st->lock);
	for (c = 0; c < st->nchassis; c++) {
		const struct falcond_chassis *ch = &st->ch[c];
		json_object *cj = json_object_new_object();

		json_object_object_add(cj, "name", json_object_new_string(ch->cc->name));
		json_object_object_add(cj, "reachable", json_object_new_boolean(ch->have_last && !ch->down));
		json_object_object_add(cj, "read_age_ms", ch->have_last ? json_object_new_int64(
			falcon_now_ms() - ch->last_ms) : NULL);
		json_object_object_add(cj, "unreachable_s", ch->unreach_ms ? json_object_new_int64(
			(falcon_now_ms() - ch->unreach_ms) / 1000) : NULL);
		json_object_object_add(cj, "free_held", json_object_new_boolean(
			falcond_unreachable_held(st, ch, falcon_now_ms())));
		/* which drawers each port reaches, as the service said at the
		 * last read (falconctl slurm-conf: each node's share) */
		if (ch->have_last && ch->last.cabling_known) {
			json_object *ca = json_object_new_array();

			for (i = 0; i < ch->last.ncables; i++) {
				json_object *k = json_object_new_object();

				json_object_object_add(k, "port",
						       json_object_new_string(ch->last.cables[i].port));
				json_object_object_add(k, "drawer",
						       json_object_new_int(ch->last.cables[i].drawer));
				json_object_array_add(ca, k);
			}
			json_object_object_add(cj, "cables", ca);
		}
		json_object_array_add(chs, cj);

		for (i = 0; ch->have_last && i < ch->last.n; i++) {
			const struct falcon_device *d = &ch->last.devs[i];
			const struct falcon_lease *l = falcond_ledger_device_lease(st->ledger, ch->cc->name, d->id);
			bool q = falcond_ledger_quarantined(st->ledger, ch->cc->name, d->id) != NULL;
			bool mine = l && (all || (l->uid >= 0 && (uid_t)l->uid == uid));
			json_object *j = json_object_new_object();

			json_object_object_add(j, "chassis", json_object_new_string(ch->cc->name));
			json_object_object_add(j, "id", json_object_new_string(d->id));
			json_object_object_add(j, "drawer", json_object_new_int(d->drawer));
			json_object_object_add(j, "slot", json_object_new_int(d->slot));
			json_object_object_add(j, "type",
					       json_object_new_string(falcon_dev_type_str(d->type)));
			json_object_object_add(j, "model", json_object_new_string(d->model));
			json_object_object_add(j, "health", json_object_new_string(d->health));
			json_object_object_add(j, "state", json_object_new_string(
				q ? "quarantined" : l ? "leased" : d->owner[0] ? "attached" : "free"));
			json_object_object_add(j, "lease", l ? json_object_new_string(l->id) : NULL);
			json_object_object_add(j, "job_id", mine ? json_object_new_int64(l->job_id) : NULL);
			json_object_object_add(j, "host", mine ? json_object_new_string(l->host) : NULL);
			json_object_array_add(devs, j);
		}
	}
	for (i = 0; i < st->ledger->nleases; i++) {
		const struct falcon_lease *l = &st->ledger->leases[i];
		bool mine = all || (l->uid >= 0 && (uid_t)l->uid == uid);
		json_object *j = falcon_proto_lease_json(l);

		if (!mine) {
			json_object_object_add(j, "job_id", NULL);
			json_object_object_add(j, "host", NULL);
			json_object_object_add(j, "uid", NULL);
			json_object_object_add(j, "partition", NULL);
		}
		json_object_array_add(leases, j);
	}
	for (i = 0; i < st->ledger->nquar; i++) {
		const struct falcond_quarantine *q = &st->ledger->quar[i];
		json_object *j = json_object_new_object();

		json_object_object_add(j, "chassis", json_object_new_string(q->chassis));
		json_object_object_add(j, "device", json_object_new_string(q->device));
		json_object_object_add(j, "reason", json_object_new_string(q->reason));
		json_object_object_add(j, "since", json_object_new_int64(q->since_ms));
		json_object_object_add(j, "heals", /* resv.h */
				       json_object_new_boolean(falcond_quarantine_healable(q->reason)));
		json_object_array_add(quar, j);
	}
	errs = json_object_new_array();
	if (st->conf_error[0] != '\0')
		json_object_array_add(errs, json_object_new_string(st->conf_error));
	pthread_mutex_unlock(&st->lock);
	json_object_object_add(o, "config_errors", errs);
	json_object_object_add(o, "chassis", chs);
	json_object_object_add(o, "devices", devs);
	json_object_object_add(o, "leases", leases);
	json_object_object_add(o, "quarantine", quar);
	return o;
}

/* A growing string for the metrics text. */
struct sbuf {
	char *p;
	size_t n, cap;
	bool oom;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int k;

	for (;;) {
		if (b->oom)
			return;
		va_start(ap, fmt);
		k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
		va_end(ap);
		if (k < 0) {
			b->oom = true;
			return;
		}
		if (b->p && b->n + (size_t)k < b->cap) {
			b->n += (size_t)k;
			return;
		}
		b->cap = (b->cap + (size_t)k + 1) * 2;
		char *np = realloc(b->p, b->cap);
		if (np == NULL) {
			b->oom = true;
			return;
		}
		b->p = np;
	}
}

static void sb_hist(struct sbuf *b, const char *name, const char *help,
		    const struct falcond_hist_metric *h)
{
	size_t i;

	sb_printf(b, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
	for (i = 0; i < FALCOND_NBUCKETS; i++) {
		if (isinf(falcond_buckets[i]))
			sb_printf(b, "%s_bucket{le=\"+Inf\"} %llu\n", name, h->bucket[i]);
		else
			sb_printf(b, "%s_bucket{le=\"%g\"} %llu\n", name, falcond_buckets[i], h->bucket[i]);
	}
	sb_printf(b, "%s_sum %.6f\n%s_count %llu\n", name, h->sum, name, h->count);
}

/*
 * metrics_alerting - the gauges examples/falcon-alerts.yml alerts on (the
 * caller holds st->lock): the role, each chassis' reachability, the
 * quarantines an admin must clear, the oldest lease's age.
 */
static void metrics_alerting(struct sbuf *b, struct falcond_state *st)
{
	unsigned long long admin = 0;
	long long oldest = 0, now = falcond_now_ms();
	size_t i;

	sb_printf(b, "# HELP falcond_active 1: this falcond holds StateDir's lock and serves "
		     "(a standby exports 0).\n# TYPE falcond_active gauge\nfalcond_active 1\n");
	sb_printf(b, "# HELP falcond_chassis_up 1: the chassis' last read worked; 0: it failed "
		     "or none has worked yet.\n# TYPE falcond_chassis_up gauge\n");
	for (i = 0; i < st->nchassis; i++)
		sb_printf(b, "falcond_chassis_up{chassis=\"%s\"} %d\n", st->ch[i].cc->name,
			  st->ch[i].have_last && !st->ch[i].down);
	for (i = 0; i < st->ledger->nquar; i++)
		admin += !falcond_quarantine_healable(st->ledger->quar[i].reason);
	sb_printf(b, "# HELP falcond_quarantine_needs_admin Quarantined devices whose reason does "
		     "not heal by itself (falconctl unquarantine).\n"
		     "# TYPE falcond_quarantine_needs_admin gauge\n"
		     "falcond_quarantine_needs_admin %llu\n", admin);
	for (i = 0; i < st->ledger->nleases; i++) {
		long long age = now - st->ledger->leases[i].created_ms;

		if (st->ledger->leases[i].created_ms > 0 && age > oldest)
			oldest = age;
	}
	sb_printf(b, "# HELP falcond_lease_oldest_seconds Age of the oldest lease in the ledger "
		     "(0: none).\n# TYPE falcond_lease_oldest_seconds gauge\n"
		     "falcond_lease_oldest_seconds %.3f\n", (double)oldest / 1000.0);
}

char *falcond_metrics_standby_text(void)
{
	return strdup("# HELP falcond_active 1: this falcond holds StateDir's lock and serves "
		      "(a standby exports 0).\n# TYPE falcond_active gauge\nfalcond_active 0\n");
}

/*
 * metrics_keep - what KeepWarm= costs and gives (keep.h): the GPU-seconds
 * devices spent attached with no job (keeps ended since start plus those
 * running now), the devices kept now, the keeps by outcome (st->lock held).
 */
static void metrics_keep(struct sbuf *b, const struct falcond_state *st)
{
	long long now = falcond_now_ms();
	size_t c, i;

	sb_printf(b, "# HELP falcond_attached_idle_gpu_seconds_total GPU-seconds chassis GPUs "
		      "stayed attached to a node with no job (KeepWarm=).\n"
		      "# TYPE falcond_attached_idle_gpu_seconds_total counter\n");
	for (c = 0; c < st->nchassis; c++) {
		unsigned long long ms = st->ch[c].idle_gpu_ms;

		for (i = 0; i < st->ledger->nleases; i++) {
			const struct falcon_lease *l = &st->ledger->leases[i];

			if (l->ndevs > 0 && strcmp(l->devs[0].chassis, st->ch[c].cc->name) == 0)
				ms += falcond_keep_idle_ms(l, now);
		}
		sb_printf(b, "falcond_attached_idle_gpu_seconds_total{chassis=\"%s\"} %.3f\n",
			  st->ch[c].cc->name, (double)ms / 1000.0);
	}
	sb_printf(b, "# HELP falcond_kept_devices Devices kept warm on a node now (KeepWarm=).\n"
		      "# TYPE falcond_kept_devices gauge\n");
	for (c = 0; c < st->nchassis; c++) {
		size_t n = 0;

		for (i = 0; i < st->ledger->nleases; i++) {
			const struct falcon_lease *l = &st->ledger->leases[i];

			if (falcond_lease_kept(l) && l->ndevs > 0 &&
			    strcmp(l->devs[0].chassis, st->ch[c].cc->name) == 0)
				n += l->ndevs;
		}
		sb_printf(b, "falcond_kept_devices{chassis=\"%s\"} %zu\n", st->ch[c].cc->name, n);
	}
	sb_printf(b, "# HELP falcond_keep_total Leases kept warm, and how their keeps ended.\n"
		      "# TYPE falcond_keep_total counter\n"
		      "falcond_keep_total{result=\"kept\"} %llu\n"
		      "falcond_keep_total{result=\"reused\"} %llu\n"
		      "falcond_keep_total{result=\"released_for_another\"} %llu\n"
		      "falcond_keep_total{result=\"expired\"} %llu\n"
		      "falcond_keep_total{result=\"not_kept\"} %llu\n",
		  st->kept_total, st->kept_reused, st->kept_evicted, st->kept_expired,
		  st->kept_declined);
}

char *falcond_metrics_text(struct falcond_state *st)
{
	static const char *const states[] = { "free", "leased", "attached", "quarantined" };
	unsigned long long by_state[4] = { 0 };
	struct sbuf b = { NULL, 0, 0, false };
	size_t c, i;
	int e;

	pthread_mutex_lock(&st->lock);
	for (c = 0; c < st->nchassis; c++)
		for (i = 0; st->ch[c].have_last && i < st->ch[c].last.n; i++) {
			const struct falcon_device *d = &st->ch[c].last.devs[i];
			const char *cn = st->ch[c].cc->name;

			if (falcond_ledger_quarantined(st->ledger, cn, d->id))
				by_state[3]++;
			else if (falcond_ledger_device_lease(st->ledger, cn, d->id))
				by_state[1]++;
			else if (d->owner[0])
				by_state[2]++;
			else
				by_state[0]++;
		}
	sb_printf(&b, "# HELP falcond_devices Chassis devices by state (last inventory).\n"
		      "# TYPE falcond_devices gauge\n");
	for (i = 0; i < ARRAY_SIZE(states); i++)
		sb_printf(&b, "falcond_devices{state=\"%s\"} %llu\n", states[i], by_state[i]);
	sb_printf(&b, "# HELP falcond_leases Leases in the ledger.\n# TYPE falcond_leases gauge\n"
		      "falcond_leases %zu\n", st->ledger->nleases);
	sb_printf(&b, "# HELP falcond_quarantined_devices Devices in quarantine.\n"
		      "# TYPE falcond_quarantined_devices gauge\nfalcond_quarantined_devices %zu\n",
		  st->ledger->nquar);
	sb_printf(&b, "# HELP falcond_compose_total Compose requests by result.\n"
		      "# TYPE falcond_compose_total counter\n"
		      "falcond_compose_total{result=\"ok\"} %llu\n"
		      "falcond_compose_total{result=\"error\"} %llu\n", st->compose_ok, st->compose_fail);
	sb_printf(&b, "# HELP falcond_decompose_total Decompose requests by result.\n"
		      "# TYPE falcond_decompose_total counter\n"
		      "falcond_decompose_total{result=\"ok\"} %llu\n"
		      "falcond_decompose_total{result=\"error\"} %llu\n",
		  st->decompose_ok, st->decompose_fail);
	sb_hist(&b, "falcond_compose_seconds", "Compose latency.", &st->compose_lat);
	sb_hist(&b, "falcond_decompose_seconds", "Decompose latency.", &st->decompose_lat);
	sb_printf(&b, "# HELP falcond_chassis_errors_total Chassis errors by kind.\n"
		      "# TYPE falcond_chassis_errors_total counter\n");
	for (e = 1; e < FALCON_ERR_MAX; e++)
		if (st->chassis_errors[e])
			sb_printf(&b, "falcond_chassis_errors_total{kind=\"%s\"} %llu\n",
				  falcon_err_name((falcon_err_t)e), st->chassis_errors[e]);
	sb_printf(&b, "# HELP falcond_auth_failures_total Requests refused: 401 and 403.\n"
		      "# TYPE falcond_auth_failures_total counter\n"
		      "falcond_auth_failures_total{status=\"401\"} %llu\n"
		      "falcond_auth_failures_total{status=\"403\"} %llu\n", st->auth_fail, st->perm_fail);
	sb_printf(&b, "# HELP falcond_reconcile_disagreements_total Ledger/chassis/Slurm "
		      "disagreements found by reconcile.\n"
		      "# TYPE falcond_reconcile_disagreements_total counter\n"
		      "falcond_reconcile_disagreements_total{kind=\"orphan_device\"} %llu\n"
		      "falcond_reconcile_disagreements_total{kind=\"device_gone\"} %llu\n"
		      "falcond_reconcile_disagreements_total{kind=\"job_not_running\"} %llu\n"
		      "falcond_reconcile_disagreements_total{kind=\"rolled_back\"} %llu\n"
		      "falcond_reconcile_disagreements_total{kind=\"late_attach\"} %llu\n",
		  st->disagree_orphan, st->disagree_gone, st->disagree_job, st->rolled_back,
		  st->disagree_late);
	metrics_keep(&b, st);
	metrics_alerting(&b, st);
	sb_printf(&b, "# HELP falcond_reconcile_runs_total Reconcile passes.\n"
		      "# TYPE falcond_reconcile_runs_total counter\nfalcond_reconcile_runs_total %llu\n",
		  st->reconcile_runs);
	pthread_mutex_unlock(&st->lock);
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	return b.p;
}
