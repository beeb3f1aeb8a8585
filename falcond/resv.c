/*
 * resv.c - the quarantine as Slurm sees it (a licenses-only
 * reservation per chassis) and healing without an administrator: see
 * resv.h.
 *
 * Slurm 22.05 src/slurmctld/reservation.c create_resv(): a reservation
 * without nodes needs the flag ANY_NODES and at least one license (else
 * ESLURM_RESERVATION_INVALID), Users=, Accounts= or Groups= (else
 * ESLURM_RESERVATION_EMPTY), and licenses that slurm.conf Licenses= names
 * with no more reserved, overlapping reservations included, than
 * configured (else ESLURM_INVALID_LICENSES).  Duration INFINITE ends it a
 * year after its start (YEAR_SECONDS); reconcile recreates it after that.
 * An update with licenses "" would leave it without anything to hold, so
 * an empty quarantine deletes it.  The fields used here (name, licenses,
 * users, flags, start_time, duration) are the same in Slurm 24.11's
 * resv_desc_msg_t.
 *
 * With HRES (Slurm 25.11+, resources.yaml as falconctl slurm-conf --pool
 * hres writes it) the chassis' devices are counted by its layers of
 * falcon_pool_gpu and falcon_pool_nvme, and the reservation holds
 * "falcon_pool_gpu(NODES):N", NODES the layer's node string as
 * slurm_load_licenses() lists it (Slurm 26.05 src/slurmctld/reservation.c
 * _license_validate2() -> licenses.c license_validate(..., hres = true, ...)
 * finds the layer by that string).  Slurm 26.05.3's main scheduler counts
 * a MODE_3 layer as total - used, not - reserved (licenses.c
 * _foreach_hres_pre_select()), so there the reservation shows the hold but
 * does not keep jobs off: the unreachable hold also sets the chassis'
 * nodes' falcon_gpu/falcon_nvme counts to 0 (node_hold()); a quarantine
 * has no such stand-in (falcond(8), QUARANTINE).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef HAVE_SLURM
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include "slurm_compat.h"
#endif

#include "resv.h"
#include "balance.h"
#include "slurmcheck.h"
#include "history.h"
#include "core/fleet.h"
#include "core/log.h"
#include "core/policy.h"
#include "core/util.h"

bool falcond_quarantine_healable(const char *reason)
{
	if (reason == NULL)
		return false;
	if (strncmp(reason, "detach from ", 12) == 0 && strstr(reason, " failed during ") != NULL)
		return true;
	if ((strncmp(reason, "falcon-prolog job ", 18) == 0 ||
	     strncmp(reason, "falcon-epilog job ", 18) == 0) &&
	    strstr(reason, " still on ") != NULL && strstr(reason, "'s bus after remove") != NULL)
		return true;
	return false;
}

bool falcond_transient_drain(const char *reason)
{
	static const char *const causes[] = {
		"connection failed", "timed out", "unreachable", "falcond is reconciling",
	};
	size_t i;

	if (reason == NULL || strncmp(reason, "falcon:", 7) != 0)
		return false;
	for (i = 0; i < sizeof(causes) / sizeof(causes[0]); i++)
		if (strstr(reason, causes[i]) != NULL)
			return true;
	return false;
}

/* inv_dev - device id of inv, NULL when absent. */
static const struct falcon_device *inv_dev(const struct falcon_inventory *inv, const char *id)
{
	size_t i;

	for (i = 0; i < inv->n; i++)
		if (strcmp(inv->devs[i].id, id) == 0)
			return &inv->devs[i];
	return NULL;
}

size_t falcond_resv_heal(struct falcond_state *st, const struct falcond_chassis *ch,
			 const struct falcon_inventory *inv, unsigned long long since)
{
	size_t i = 0, n = 0;

	pthread_mutex_lock(&st->lock);
	while (i < st->ledger->nquar) {
		struct falcond_quarantine q = st->ledger->quar[i];
		const struct falcon_device *d;
		struct falcond_hist he;

		d = strcmp(q.chassis, ch->cc->name) == 0 ? inv_dev(inv, q.device) : NULL;
		if (d == NULL || !falcond_quarantine_healable(q.reason) || d->owner[0] != '\0' ||
		    strcmp(d->health, "OK") != 0 ||
		    falcond_ledger_device_lease(st->ledger, q.chassis, q.device) != NULL ||
		    falcond_chassis_touched(ch, since, q.device) ||
		    falcond_ledger_unquarantine(st->ledger, q.chassis, q.device) != FALCON_OK) {
			i++;
			continue;
		}
		falcon_info("reconcile: %s/%s detached and healthy: quarantine cleared (was: %s)",
			    q.chassis, q.device, q.reason);
		memset(&he, 0, sizeof(he));
		he.attached_ms = q.since_ms;
		he.detached_ms = falcond_now_ms();
		snprintf(he.result, sizeof(he.result), "auto-cleared: %.110s", q.reason);
		falcond_history_append(q.chassis, q.device, &he, -1);
		n++;
	}
	pthread_mutex_unlock(&st->lock);
	return n;
}

bool falcond_unreachable_held(const struct falcond_state *st, const struct falcond_chassis *ch,
			      long long now_ms)
{
	return st->conf->unreachable_hold > 0 && ch->unreach_ms != 0 &&
	       now_ms - ch->unreach_ms >= st->conf->unreachable_hold * 1000LL;
}

#ifdef HAVE_SLURM

/* an HRES layer "falcon_pool_nvme(NODES)": NODES a host list of a
 * chassis' hosts (4 host ports on a Falcon 4016) */
#define FALCON_RESV_POOL_LEN 512

/* What one pass of the reservation thread wants of Slurm, per chassis. */
struct resv_want {
	char name[FALCON_NAME_LEN + 32];     /* falcon-<chassis>-quarantine */
	/* what counts the chassis' GPUs and NVMe in Slurm: its licenses
	 * "c1_gpu", "c1_nvme", or its HRES layers "falcon_pool_gpu(NODES)";
	 * "" = none (an HRES site without the chassis' layer) */
	char pool[2][FALCON_RESV_POOL_LEN];
	int cnt[2];                          /* GPUs and NVMe to hold */
	char licenses[2 * FALCON_RESV_POOL_LEN + 32]; /* "c1_gpu:1,c1_nvme:2", "" = none */
	bool known;                          /* its inventory was read: types known */
	bool held;                           /* unreachable past UnreachableHold= */
	long total[2];                       /* GPUs and NVMe of its last inventory */
};

/* An HRES site's node hold: a node cabled to a chassis held unreachable
 * gets Gres falcon_gpu:0,falcon_nvme:0 (see node_hold()); what it had
 * before is put back when the chassis answers.  Memory only: a falcond
 * started during a hold restores a node's counts from its chassis'
 * inventory instead. */
#define FALCOND_HOLD_MAX 256
#define FALCOND_GRES_LEN 512
/* a node hold has ended since the last release_jobs() pass */
static bool g_released_hold;
static struct falcond_node_hold {
	char node[FALCON_NAME_LEN];
	char before[FALCOND_GRES_LEN];       /* its Gres before the hold */
	char held[FALCOND_GRES_LEN];         /* the Gres falcond set */
} g_hold[FALCOND_HOLD_MAX];
static size_t g_nhold;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cond = PTHREAD_COND_INITIALIZER;
static bool g_dirty, g_chassis_ok, g_tried;
/* held jobs released so far (loop guard: FALCOND_RELEASE_MAX each) */
static struct { uint32_t job; int n; } g_released[64];

/* resv_warn - a failure, at warning the first time in a row it is seen
 * (reconcile retries every ReconcileInterval: the same failure again is
 * logged with -v only); resv_ok forgets it. */
static char g_last_fail[512];

static void resv_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void resv_warn(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	falcon_log(strcmp(msg, g_last_fail) ? FALCON_LOG_WARN : FALCON_LOG_VERBOSE, "%s", msg);
	falcon_strlcpy(g_last_fail, msg, sizeof(g_last_fail));
}

static void resv_ok(void)
{
	g_last_fail[0] = '\0';
}

/* want_of - what chassis c's reservation must hold, w->cnt (st->lock
 * held): its quarantined devices, and its free ones while it is held
 * unreachable.  A chassis this falcond has not read yet (unreachable since
 * its start: a restart or an HA takeover during an outage) is counted from
 * its description file (state.h described), a device free there when no
 * lease holds it; without either, nothing is known and its reservation is
 * left as it is. */
static void want_of(struct falcond_state *st, size_t c, struct resv_want *w)
{
	const struct falcond_chassis *ch = &st->ch[c];
	const struct falcon_inventory *inv = ch->have_last ? &ch->last :
					     ch->have_described ? &ch->described : NULL;
	int ngpu = 0, nnvme = 0;
	size_t i, k;

	snprintf(w->name, sizeof(w->name), FALCOND_RESV_FMT, ch->cc->name);
	w->licenses[0] = '\0';
	w->known = inv != NULL;
	w->held = falcond_unreachable_held(st, ch, falcon_now_ms());
	for (k = 0; w->known && k < inv->n; k++) {
		const struct falcon_device *d = &inv->devs[k];
		bool quar = false, free_dev;

		for (i = 0; i < st->ledger->nquar && !quar; i++)
			quar = strcmp(st->ledger->quar[i].chassis, ch->cc->name) == 0 &&
			       strcmp(st->ledger->quar[i].device, d->id) == 0;
		/* held: quarantined, or free on a chassis unreachable too long
		 * (its last inventory: what is not attached to a port; its
		 * description: what no lease holds) */
		free_dev = ch->have_last ? d->owner[0] == '\0' :
			   falcond_ledger_device_lease(st->ledger, ch->cc->name, d->id) == NULL;
		if (!quar && !(w->held && free_dev))
			continue;
		ngpu += d->type == FALCON_DEV_GPU;
		nnvme += d->type == FALCON_DEV_NVME;
	}
	w->total[0] = w->total[1] = 0;
	for (k = 0; w->known && k < inv->n; k++) {
		w->total[0] += inv->devs[k].type == FALCON_DEV_GPU;
		w->total[1] += inv->devs[k].type == FALCON_DEV_NVME;
	}
	w->cnt[0] = ngpu;
	w->cnt[1] = nnvme;
}

/* want_licenses - w->licenses from its pools and counts. */
static void want_licenses(struct resv_want *w)
{
	int k;

	w->licenses[0] = '\0';
	for (k = 0; k < 2; k++) {
		size_t l = strlen(w->licenses);

		if (w->cnt[k] == 0)
			continue;
		if (w->pool[k][0] == '\0') {
			resv_warn("reservation %s: %d %s to hold, but slurmctld's HRES %s has no "
				  "layer of exactly the chassis' nodes (resources.yaml: falconctl "
				  "slurm-conf --pool hres): Slurm does not see them held", w->name,
				  w->cnt[k], k == 0 ? "GPUs" : "NVMe",
				  k == 0 ? FALCON_HRES_GPU : FALCON_HRES_NVME);
			continue;
		}
		snprintf(w->licenses + l, sizeof(w->licenses) - l, "%s%s:%d", l ? "," : "",
			 w->pool[k], w->cnt[k]);
	}
}

/*
 * one_layer - with HRES, what Slurm 26.05 can hold: one MODE_3 layer entry
 * in all the reservations that overlap in time (src/slurmctld/licenses.c
 * license_validate(): "Only one HRes Mode 3 can be used per job", run by
 * reservation.c _license_validate2() on the licenses of every overlapping
 * reservation merged; falcond's last until they are deleted).  The chassis
 * whose reservation already holds something keeps it (no flapping), else
 * the first in falcon.conf order; its GPUs (else its NVMe) are held, the
 * rest is logged as not seen by Slurm (a warning when that changes).
 * have[c]: chassis c's reservation in Slurm, NULL = none.
 */
static void one_layer(struct resv_want *w, const reserve_info_t *const *have, size_t n)
{
	static char last[512];
	char note[512] = "";
	size_t c, slot = n;

	for (c = 0; c < n && slot == n; c++)
		if (w[c].known && w[c].cnt[0] + w[c].cnt[1] > 0 && have[c] != NULL &&
		    have[c]->licenses != NULL && have[c]->licenses[0] != '\0')
			slot = c;
	for (c = 0; c < n && slot == n; c++)
		if (w[c].known && w[c].cnt[0] + w[c].cnt[1] > 0)
			slot = c;
	for (c = 0; c < n; c++) {
		int k;

		for (k = 0; k < 2; k++) {
			size_t l = strlen(note);

			if (w[c].cnt[k] == 0 || (c == slot && (k == 0 || w[c].cnt[0] == 0)))
				continue;
			snprintf(note + l, sizeof(note) - l, "%s%s of %s:%d", l ? ", " : "",
				 k == 0 ? "GPUs" : "NVMe", w[c].name, w[c].cnt[k]);
			w[c].cnt[k] = 0;
		}
	}
	if (note[0] == '\0') {
		last[0] = '\0';
		return;
	}
	falcon_log(strcmp(note, last) ? FALCON_LOG_WARN : FALCON_LOG_VERBOSE,
		   "reservations: not held in Slurm: %s (Slurm's reservations take one HRES "
		   "MODE_3 layer in all; %s holds it; licenses have no such limit)", note,
		   slot < n ? w[slot].name : "none");
	falcon_strlcpy(last, note, sizeof(last));
}

/* pool_names - w[c].pool for every chassis (st->lock held): its licenses
 * "<chassis>_gpu" and "<chassis>_nvme" (falcon_license_name()), or, where
 * slurmctld has the HRES resource FALCON_HRES_GPU (Slurm 25.11+ with
 * resources.yaml; li its licenses, HRES layers among them), the chassis'
 * layers "falcon_pool_gpu(NODES)" with NODES as slurmctld lists the layer:
 * a reservation names an HRES layer by its node string (Slurm 26.05
 * src/slurmctld/licenses.c license_validate() -> _license_find_rec_by_nodes()
 * compares it as a string).  A chassis without its layer keeps "".
 * Returns whether slurmctld has the HRES. */
static bool pool_names(struct falcond_state *st, const license_info_msg_t *li,
		       struct resv_want *w)
{
	bool hres = false;
	size_t c;
	uint32_t i;
	int k;

	for (i = 0; li != NULL && i < li->num_lic; i++)
		hres = hres || (li->lic_array[i].name &&
				strcmp(li->lic_array[i].name, FALCON_HRES_GPU) == 0);
	for (c = 0; c < st->nchassis; c++)
		for (k = 0; k < 2; k++)
			if (hres || falcon_license_name(st->ch[c].cc->name, k == 0 ? FALCON_DEV_GPU :
							FALCON_DEV_NVME, w[c].pool[k],
							sizeof(w[c].pool[k])) != FALCON_OK)
				w[c].pool[k][0] = '\0';
#ifdef HAVE_SLURM_LICENSE_INFO_T_NODES
	for (i = 0; hres && i < li->num_lic; i++) {
		const slurm_license_info_t *l = &li->lic_array[i];
		char *hosts[64], *h;
		__typeof__(slurm_hostlist_create(NULL)) hl;
		size_t n = 0, j;
		int at;

		k = l->name == NULL ? -1 : strcmp(l->name, FALCON_HRES_GPU) == 0 ? 0 :
		    strcmp(l->name, FALCON_HRES_NVME) == 0 ? 1 : -1;
		if (k < 0 || l->nodes == NULL || (hl = slurm_hostlist_create(l->nodes)) == NULL)
			continue;
		while ((h = slurm_hostlist_shift(hl)) != NULL) {
			if (n < sizeof(hosts) / sizeof(hosts[0]))
				hosts[n++] = h;
			else
				free(h);
		}
		slurm_hostlist_destroy(hl);
		at = falcon_hres_layer_chassis(st->conf, (const char *const *)hosts, n);
		for (j = 0; j < n; j++)
			free(hosts[j]);
		for (c = 0; at >= 0 && c < st->nchassis; c++)
			if (strcmp(st->ch[c].cc->name, st->conf->chassis[at].name) == 0 &&
			    snprintf(w[c].pool[k], sizeof(w[c].pool[k]), "%s(%s)", l->name,
				     l->nodes) >= (int)sizeof(w[c].pool[k]))
				w[c].pool[k][0] = '\0';
	}
#endif
	return hres;
}

/* resv_apply - make reservation w what it must be, given what Slurm has
 * (have: its record, NULL = none). */
static void resv_apply(const struct resv_want *w, const reserve_info_t *have)
{
	resv_desc_msg_t d;

	if (w->licenses[0] == '\0') {
		reservation_name_msg_t m;

		if (have == NULL)
			return;
		m.name = (char *)w->name;
		if (slurm_delete_reservation(&m) != SLURM_SUCCESS)
			resv_warn("reservation %s: delete: %s; retried at the next reconcile",
				  w->name, slurm_strerror(slurm_get_errno()));
		else {
			falcon_info("reservation %s deleted: no device quarantined or held", w->name);
			resv_ok();
		}
		return;
	}
	if (have != NULL && falcon_license_same(w->licenses, have->licenses))
		return;
	slurm_init_resv_desc_msg(&d);
	d.name = (char *)w->name;
	d.licenses = (char *)w->licenses;
	if (have != NULL) {
		if (slurm_update_reservation(&d) != SLURM_SUCCESS)
			resv_warn("reservation %s: update Licenses=%s: %s; retried at the next "
				  "reconcile", w->name, w->licenses, slurm_strerror(slurm_get_errno()));
		else {
			falcon_info("reservation %s now holds %s%s", w->name, w->licenses,
				    w->held ? " (the chassis is unreachable: its free devices too)" : "");
			resv_ok();
		}
		return;
	}
	d.users = (char *)"root";
	d.flags = RESERVE_FLAG_ANY_NODES;
	d.start_time = time(NULL);
	d.duration = INFINITE;
	{
		char *made = slurm_create_reservation(&d);

		if (made == NULL)
			resv_warn("reservation %s: create Licenses=%s: %s (slurm.conf Licenses= "
				  "or resources.yaml must name them); retried at the next reconcile",
				  w->name, w->licenses, slurm_strerror(slurm_get_errno()));
		else {
			falcon_info("reservation %s created: holds %s%s", w->name, w->licenses,
				    w->held ? " (the chassis is unreachable: its free devices too)" : "");
			resv_ok();
		}
		falcon_slurm_free_resv_name(made);
	}
}

/* gres_set - node's Gres to gres (slurm_update_node); false with a warning. */
static bool gres_set(const char *node, const char *gres, const char *why)
{
	update_node_msg_t m;

	slurm_init_update_node_msg(&m);
	m.node_names = (char *)node;
	m.gres = (char *)gres;
	if (slurm_update_node(&m) == SLURM_SUCCESS)
		return true;
	resv_warn("node %s: Gres=%s (%s): %s; retried at the next reconcile", node, gres, why,
		  slurm_strerror(slurm_get_errno()));
	return false;
}

/* gres_zero - gres with falcon_gpu and falcon_nvme (where it has them)
 * at count 0, into out (FALCOND_GRES_LEN bytes); false when it has no
 * falcon_gpu or does not fit. */
static bool gres_zero(const char *gres, char *out)
{
	char tmp[FALCOND_GRES_LEN];

	if (falcon_gres_with(gres, "falcon_gpu", 0, tmp, sizeof(tmp)) != FALCON_OK)
		return false;
	if (falcon_gres_with(tmp, "falcon_nvme", 0, out, FALCOND_GRES_LEN) != FALCON_OK)
		falcon_strlcpy(out, tmp, FALCOND_GRES_LEN); /* no falcon_nvme */
	return true;
}

/*
 * node_hold - with HRES, what keeps Slurm from starting chassis jobs on the
 * nodes of a chassis held unreachable (w[c].held): their Gres falcon_gpu
 * and falcon_nvme set to 0 (slurm_update_node).  Slurm 26.05.3's main
 * scheduler does not subtract an HRES reservation (see the top of this
 * file); a GRES count it does honour: src/slurmctld/node_mgr.c
 * _update_node_gres() -> src/interfaces/gres.c _node_reconfig() takes a
 * new count of a GRES without File= (gres.conf Flags=CountOnly, as
 * falconctl slurm-conf writes), running jobs keep what they were given
 * (gres_cnt_alloc), and a slurmd registering more than that is cut to it
 * (_node_config_validate()).  Jobs not asking for the chassis' devices
 * still run there: the node is not drained.  Once the chassis answers the
 * node's Gres from before the hold is put back, unless something else
 * changed it since (an admin; a slurmctld restart or reconfigure, which
 * reads slurm.conf again, is re-held at the next pass while the chassis
 * stays unreachable).  A node falcond finds at falcon_gpu:0 and
 * falcon_nvme:0 with its chassis answering and no hold of its own (falcond
 * restarted, or the standby took over, during a hold) gets its chassis'
 * counts, as falconctl slurm-conf writes them, with a warning.
 */
static void node_hold(struct falcond_state *st, const struct resv_want *w, size_t n)
{
	node_info_msg_t *nodes = NULL;
	size_t h, c, k;
	uint32_t i;

	if (slurm_load_node(0, &nodes, SHOW_ALL) != SLURM_SUCCESS) {
		resv_warn("unreachable hold: slurm_load_node: %s; retried at the next reconcile",
			  slurm_strerror(slurm_get_errno()));
		return;
	}
	for (h = 0; h < st->conf->nhosts; h++) {
		const char *host = st->conf->hosts[h].name, *gres = NULL;
		char want[FALCOND_GRES_LEN];
		struct falcond_node_hold *hd = NULL;

		for (c = 0; c < n; c++)
			if (strcmp(st->ch[c].cc->name, st->conf->hosts[h].chassis) == 0)
				break;
		for (i = 0; i < nodes->record_count; i++)
			if (nodes->node_array[i].name && strcmp(nodes->node_array[i].name, host) == 0)
				gres = nodes->node_array[i].gres;
		if (c == n || gres == NULL)
			continue;
		for (k = 0; k < g_nhold && hd == NULL; k++)
			if (strcmp(g_hold[k].node, host) == 0)
				hd = &g_hold[k];
		if (w[c].held) {
			if (falcon_gres_count(gres, "falcon_gpu") == 0 &&
			    falcon_gres_count(gres, "falcon_nvme") == 0)
				continue;  /* held already (or nothing to hold) */
			if (!gres_zero(gres, want))
				continue;
			if (hd == NULL && g_nhold == FALCOND_HOLD_MAX) {
				resv_warn("node %s: not held (more than %d nodes held)", host,
					  FALCOND_HOLD_MAX);
				continue;
			}
			if (hd == NULL)
				hd = &g_hold[g_nhold++];
			falcon_strlcpy(hd->node, host, sizeof(hd->node));
			falcon_strlcpy(hd->before, gres, sizeof(hd->before));
			falcon_strlcpy(hd->held, want, sizeof(hd->held));
			if (gres_set(host, want, "the unreachable hold"))
				falcon_info("node %s: Gres=%s while chassis %s is unreachable (was %s): "
					    "Slurm starts no job asking for its devices there",
					    host, want, st->conf->hosts[h].chassis, gres);
			continue;
		}
		if (hd != NULL) {
			if (strcmp(gres, hd->held) != 0)
				falcon_verbose("node %s: Gres=%s, not falcond's hold %s: left as it is",
					       host, gres, hd->held);
			else if (!gres_set(host, hd->before, "the end of the unreachable hold"))
				continue;  /* kept: retried */
			else {
				falcon_info("node %s: Gres=%s again: its chassis answers", host,
					    hd->before);
				g_released_hold = true;
			}
			*hd = g_hold[--g_nhold];
			continue;
		}
		if (w[c].known && w[c].total[0] > 0 && falcon_gres_count(gres, "falcon_gpu") == 0 &&
		    falcon_gres_count(gres, "falcon_nvme") == 0) {
			char tmp[FALCOND_GRES_LEN];

			if (falcon_gres_with(gres, "falcon_gpu", w[c].total[0], tmp,
					     sizeof(tmp)) != FALCON_OK)
				continue;
			if (falcon_gres_with(tmp, "falcon_nvme", w[c].total[1], want,
					     sizeof(want)) != FALCON_OK)
				falcon_strlcpy(want, tmp, sizeof(want));
			if (!gres_set(host, want, "the end of an earlier falcond's unreachable hold"))
				continue;
			g_released_hold = true;
			falcon_warn("node %s: Gres=%s (was %s, as an unreachable hold leaves it; its "
				    "chassis answers): the counts of chassis %s, as falconctl "
				    "slurm-conf writes them", host, want, gres,
				    st->conf->hosts[h].chassis);
		}
	}
	slurm_free_node_info_msg(nodes);
}

/* resv_sync - one pass over the chassis' reservations. */
static void resv_sync(struct falcond_state *st)
{
	reserve_info_msg_t *msg = NULL;
	license_info_msg_t *li = NULL;
	const reserve_info_t **have;
	struct resv_want *w;
	size_t c, n = st->nchassis;
	uint32_t i;
	bool hres;
	int pass;

	w = calloc(n ? n : 1, sizeof(*w));
	have = calloc(n ? n : 1, sizeof(*have));
	if (w == NULL || have == NULL) {
		free(w);
		free(have);
		return;
	}
	if (slurm_load_licenses(0, &li, 0) != SLURM_SUCCESS) {
		resv_warn("reservations: slurm_load_licenses: %s; retried at the next reconcile",
			  slurm_strerror(slurm_get_errno()));
		free(w);
		free(have);
		return;
	}
	pthread_mutex_lock(&st->lock);
	hres = pool_names(st, li, w);
	for (c = 0; c < n; c++)
		want_of(st, c, &w[c]);
	pthread_mutex_unlock(&st->lock);
	slurm_free_license_info_msg(li);
	if (slurm_load_reservations(0, &msg) != SLURM_SUCCESS) {
		resv_warn("reservations: slurm_load_reservations: %s; retried at the next reconcile",
			  slurm_strerror(slurm_get_errno()));
		free(w);
		free(have);
		return;
	}
	for (c = 0; c < n; c++)
		for (i = 0; i < msg->record_count; i++)
			if (msg->reservation_array[i].name &&
			    strcmp(msg->reservation_array[i].name, w[c].name) == 0)
				have[c] = &msg->reservation_array[i];
	if (hres)
		one_layer(w, have, n);
	/* deletions first: with HRES the one layer Slurm holds may move */
	for (pass = 0; pass < 2; pass++)
		for (c = 0; c < n; c++) {
			if (!w[c].known)
				continue;
			want_licenses(&w[c]);
			if ((w[c].licenses[0] == '\0') == (pass == 0))
				resv_apply(&w[c], have[c]);
		}
	slurm_free_reservation_info_msg(msg);
	if (hres)
		node_hold(st, w, n);
	free(w);
	free(have);
}

/* falcon_host - node is a HostName= of falcon.conf. */
static bool falcon_host(const struct falcond_state *st, const char *node)
{
	size_t i;

	for (i = 0; node && i < st->conf->nhosts; i++)
		if (strcmp(st->conf->hosts[i].name, node) == 0)
			return true;
	return false;
}

/* resume_drains - resume the falcon.conf nodes drained by falcon for a
 * transient cause, set by root or SlurmUser (node_info_t reason_uid). */
static void resume_drains(struct falcond_state *st)
{
	node_info_msg_t *nodes = NULL;
	uint32_t i;

	if (slurm_load_node(0, &nodes, SHOW_ALL) != SLURM_SUCCESS) {
		falcon_warn("drains: slurm_load_node: %s", slurm_strerror(slurm_get_errno()));
		return;
	}
	for (i = 0; i < nodes->record_count; i++) {
		node_info_t *nd = &nodes->node_array[i];
		update_node_msg_t m;

		if (nd->name == NULL || !(nd->node_state & NODE_STATE_DRAIN) ||
		    !falcon_host(st, nd->name) || !falcond_transient_drain(nd->reason) ||
		    (nd->reason_uid != 0 && nd->reason_uid != (uint32_t)NO_VAL &&
		     (st->slurm_uid == (uid_t)-1 || nd->reason_uid != (uint32_t)st->slurm_uid)))
			continue;
		slurm_init_update_node_msg(&m);
		m.node_names = nd->name;
		m.node_state = NODE_RESUME;
		if (slurm_update_node(&m) != SLURM_SUCCESS)
			falcon_warn("node %s: resume: %s", nd->name, slurm_strerror(slurm_get_errno()));
		else
			falcon_info("node %s resumed: its drain '%s' was falcon's for a cause "
				    "gone now (every chassis answers)", nd->name, nd->reason);
	}
	slurm_free_node_info_msg(nodes);
}

/* falcon_job_licenses - the job's licenses name a pool license of
 * falcon.conf, or an HRES resource of the pool (Slurm 25.11+). */
static bool falcon_job_licenses(const struct falcond_state *st, const char *lic)
{
	char name[FALCON_NAME_LEN + 8];
	size_t c;

	if (lic && (falcon_license_count(lic, FALCON_HRES_GPU) > 0 ||
		    falcon_license_count(lic, FALCON_HRES_NVME) > 0))
		return true;
	for (c = 0; lic && c < st->conf->nchassis; c++)
		if ((falcon_license_name(st->conf->chassis[c].name, FALCON_DEV_GPU, name,
					 sizeof(name)) == FALCON_OK && strstr(lic, name)) ||
		    (falcon_license_name(st->conf->chassis[c].name, FALCON_DEV_NVME, name,
					 sizeof(name)) == FALCON_OK && strstr(lic, name)))
			return true;
	return false;
}

/* release_ok - count one release of job; false past FALCOND_RELEASE_MAX. */
static bool release_ok(uint32_t job)
{
	size_t i, free_i = sizeof(g_released) / sizeof(g_released[0]);

	for (i = 0; i < sizeof(g_released) / sizeof(g_released[0]); i++) {
		if (g_released[i].job == job)
			return ++g_released[i].n <= FALCOND_RELEASE_MAX;
		if (g_released[i].job == 0 && free_i == sizeof(g_released) / sizeof(g_released[0]))
			free_i = i;
	}
	if (free_i == sizeof(g_released) / sizeof(g_released[0]))
		free_i = job % free_i; /* full: reuse a slot */
	g_released[free_i].job = job;
	g_released[free_i].n = 1;
	return true;
}

/* release_jobs - release the jobs Slurm held after a failed launch
 * ("launch failed requeued held", Slurm 22.05 src/slurmctld/job_mgr.c
 * _job_requeue_op) that use a falcon pool license: falcon's prolog is
 * what failed for them; and, after an HRES site's unreachable hold
 * (node_hold(): g_released_hold), the HRES jobs held as BadConstraints
 * (priority 0): Slurm 26.05.3 src/slurmctld/job_scheduler.c schedule()
 * holds a job of one partition that no node could ever run
 * (ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE), as one asking only for the
 * held nodes is while their falcon_gpu count is 0. */
static void release_jobs(struct falcond_state *st)
{
	job_info_msg_t *msg = NULL;
	uint32_t i;

	if (slurm_load_jobs(0, &msg, SHOW_ALL) != SLURM_SUCCESS) {
		falcon_warn("held jobs: slurm_load_jobs: %s", slurm_strerror(slurm_get_errno()));
		return;
	}
	for (i = 0; i < msg->record_count; i++) {
		const slurm_job_info_t *j = &msg->job_array[i];
		job_desc_msg_t d;

		bool launch = j->state_desc != NULL &&
			      strcmp(j->state_desc, "launch failed requeued held") == 0;
		/* an unreachable hold on an HRES site (node_hold()) leaves a
		 * job that only the held nodes can run held as BadConstraints */
		bool hold = g_released_hold && j->state_reason == FAIL_BAD_CONSTRAINTS &&
			    j->licenses != NULL && (falcon_license_count(j->licenses, FALCON_HRES_GPU) > 0 ||
						    falcon_license_count(j->licenses, FALCON_HRES_NVME) > 0);

		if ((j->job_state & JOB_STATE_BASE) != JOB_PENDING || j->priority != 0 ||
		    !(launch || hold) || !falcon_job_licenses(st, j->licenses))
			continue;
		if (!release_ok(j->job_id)) {
			falcon_verbose("job %u: held again after %d releases; left to the admin",
				       j->job_id, FALCOND_RELEASE_MAX);
			continue;
		}
		/* scontrol release: priority INFINITE (Slurm 22.05
		 * src/scontrol/update_job.c scontrol_hold) */
		slurm_init_job_desc_msg(&d);
		falcon_job_desc_set_job(&d, j->job_id);
		d.priority = INFINITE;
		if (slurm_update_job(&d) != SLURM_SUCCESS)
			falcon_warn("job %u: release: %s", j->job_id, slurm_strerror(slurm_get_errno()));
		else
			falcon_info("job %u released: held %s, every chassis answers now", j->job_id,
				    launch ? "after a falcon prolog failure" :
				    "as BadConstraints during an unreachable hold");
	}
	slurm_free_job_info_msg(msg);
}

/* resv_thread - a pass per kick, over the state st (arg). */
static void *resv_thread(void *arg)
{
	struct falcond_state *st = arg;

	pthread_mutex_lock(&g_lock);
	for (;;) {
		bool heal;

		while (!g_dirty)
			pthread_cond_wait(&g_cond, &g_lock);
		g_dirty = false;
		heal = g_chassis_ok;
		g_chassis_ok = false;
		pthread_mutex_unlock(&g_lock);
		resv_sync(st);
		falcond_slurm_check_once(st);
		falcond_balance_run(st);
		if (heal) {
			resume_drains(st);
			release_jobs(st);
			g_released_hold = false;
		}
		pthread_mutex_lock(&g_lock);
	}
	return NULL;
}

/* resv_start - libslurm's set-up and the thread over st, once (the first
 * kick; g_lock held). */
static void resv_start(struct falcond_state *st)
{
	pthread_t t;

	g_tried = true;
	slurm_init(NULL);
	if (pthread_create(&t, NULL, resv_thread, st) == 0)
		pthread_detach(t);
	else
		falcon_error("cannot start the reservation thread: Slurm does not see the quarantine");
}

void falcond_resv_kick(struct falcond_state *st, bool all_chassis_ok)
{
	if (!st->use_slurm)
		return;
	pthread_mutex_lock(&g_lock);
	if (!g_tried)
		resv_start(st);
	g_dirty = true;
	g_chassis_ok |= all_chassis_ok;
	pthread_cond_signal(&g_cond);
	pthread_mutex_unlock(&g_lock);
}

#else /* !HAVE_SLURM */

void falcond_resv_kick(struct falcond_state *st, bool all_chassis_ok)
{
	(void)st;
	(void)all_chassis_ok;
}

#endif
