/*
 * place.c - placement of a compose request on one chassis: what it sees
 * (slots), learns (ports not cabled to a drawer) and decides (devices and
 * ports) (place.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "place.h"
#include "core/log.h"
#include "core/util.h"

#define MAX_DRAWERS 8 /* a Falcon 4016 has 2; room for bigger models */
#define ADVANCED_HOSTS_PER_DRAWER 3 /* advanced mode: up to 3 hosts share a drawer */

void falcond_reach_cabling(struct falcond_reach *r, const struct falcon_cable *cables, size_t n)
{
	size_t i;

	if (n > FALCON_CABLES_MAX)
		n = FALCON_CABLES_MAX;
	for (i = 0; i < n; i++)
		r->cables[i] = cables[i];
	r->ncables = n;
	r->known = true;
}

bool falcond_reach_no(const struct falcond_reach *r, const char *port, int drawer)
{
	size_t i;

	if (r != NULL && r->known) {
		for (i = 0; i < r->ncables; i++)
			if (r->cables[i].drawer == drawer && strcmp(r->cables[i].port, port) == 0)
				return false;
		return true;
	}

	for (i = 0; r != NULL && i < r->n; i++)
		if (r->no[i].drawer == drawer && strcmp(r->no[i].port, port) == 0)
			return falcon_now_ms() < r->no[i].until_ms;
	return false;
}

/* reach_learn - remember that port cannot take devices of drawer. */
static void reach_learn(struct falcond_reach *r, const char *chassis, const char *port,
			int drawer)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->no[i].drawer == drawer && strcmp(r->no[i].port, port) == 0)
			break;
	if (i == ARRAY_SIZE(r->no))
		return;
	if (i == r->n) {
		falcon_strlcpy(r->no[i].port, port, sizeof(r->no[0].port));
		r->no[i].drawer = drawer;
		r->n++;
	}
	r->no[i].until_ms = falcon_now_ms() + FALCOND_NOREACH_MS;
	falcon_warn("chassis %s: port %s refused a free device of drawer %d: not cabled; "
		    "not used there for %d min", chassis, port, drawer, FALCOND_NOREACH_MS / 60000);
}

bool falcond_place_refused(struct falcond_reach *r, const char *chassis,
			   const struct falcon_inventory *now, const struct falcon_lease_dev *d)
{
	bool free_now = false;
	size_t k;

	for (k = 0; now != NULL && k < now->n; k++)
		if (strcmp(now->devs[k].id, d->id) == 0)
			free_now = now->devs[k].owner[0] == '\0';
	if (free_now)
		reach_learn(r, chassis, d->port, d->drawer);
	return free_now;
}

const char *falcond_port_for(const struct falcon_host_conf *h, int drawer,
			     const struct falcond_reach *r)
{
	int i, start;

	if (h->nports <= 0)
		return NULL;
	start = (drawer > 0 ? drawer - 1 : 0) % h->nports;
	for (i = 0; i < h->nports; i++) {
		const char *p = h->ports[(start + i) % h->nports];

		if (!falcond_reach_no(r, p, drawer))
			return p;
	}
	return NULL;
}

const char *falcond_host_of_port(const struct falcon_conf *conf, const char *chassis,
				 const char *port)
{
	size_t i;
	int p;

	for (i = 0; i < conf->nhosts; i++) {
		if (strcmp(conf->hosts[i].chassis, chassis) != 0)
			continue;
		for (p = 0; p < conf->hosts[i].nports; p++)
			if (strcmp(conf->hosts[i].ports[p], port) == 0)
				return conf->hosts[i].name;
	}
	return NULL;
}

falcon_err_t falcond_place_slots(struct falcond_ledger *lg, const struct falcon_conf *conf,
				 const char *chassis, const struct falcon_host_conf *h,
				 const struct falcond_reach *r, const struct falcon_inventory *inv,
				 struct falcond_slot **out)
{
	struct falcond_slot *slots = calloc(inv->n ? inv->n : 1, sizeof(*slots));
	size_t i;

	*out = NULL;
	if (slots == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "compose");
	for (i = 0; i < inv->n; i++) {
		const struct falcon_device *d = &inv->devs[i];
		const struct falcon_lease *ol = falcond_ledger_device_lease(lg, chassis, d->id);
		const struct falcon_host_conf *oh;
		struct falcond_slot *s = &slots[i];

		s->dev = d;
		s->quarantined = falcond_ledger_quarantined(lg, chassis, d->id) != NULL;
		if (ol != NULL)
			s->holder = (oh = falcon_conf_host(conf, ol->host)) ? oh->name : "?";
		else if (d->owner[0])
			s->holder = falcond_host_of_port(conf, chassis, d->owner) ?: "(unknown host)";
		s->unreachable = falcond_port_for(h, d->drawer, r) == NULL;
	}
	*out = slots;
	return FALCON_OK;
}

/* reachable - may host take slots[i] under the chassis mode limits? */
static bool reachable(const struct falcond_slot *slots, size_t n, size_t i, const char *host,
		      falcon_mode_t mode)
{
	const struct falcon_device *d = slots[i].dev;
	const char *hosts[FALCON_PROTO_MAX_DEVS];
	size_t nh = 0, j, k;

	for (j = 0; j < n; j++) {
		const struct falcon_device *e = slots[j].dev;

		if (slots[j].holder == NULL || strcmp(slots[j].holder, host) == 0 ||
		    e->drawer != d->drawer)
			continue;
		if (mode == FALCON_MODE_STANDARD) {
			/* one host per drawer half (slots 1-4, 5-8) */
			if ((e->slot - 1) / 4 == (d->slot - 1) / 4)
				return false;
			continue;
		}
		for (k = 0; k < nh; k++)
			if (strcmp(hosts[k], slots[j].holder) == 0)
				break;
		if (k == nh && nh < ARRAY_SIZE(hosts))
			hosts[nh++] = slots[j].holder;
	}
	return mode == FALCON_MODE_STANDARD || nh < ADVANCED_HOSTS_PER_DRAWER;
}

/* why_not - NULL when slots[i] (s) may go to host, else why not in words: a
 * static string, or buf (len bytes) naming the holder when buf is given
 * (the -v log of a refused compose).  The device's type is the caller's. */
static const char *why_not(const struct falcond_slot *s, const struct falcond_slot *slots,
			   size_t n, size_t i, const char *host, falcon_mode_t mode, char *buf,
			   size_t len)
{
	if (s->holder != NULL) {
		if (buf == NULL)
			return "held";
		snprintf(buf, len, "%s %s", s->dev->owner[0] ? "attached (last read) to a port of"
			 : "leased to", s->holder);
		return buf;
	}
	if (s->quarantined)
		return "quarantined";
	if (s->unreachable)
		return "no port of the host reaches its drawer";
	if (s->dev->owner[0] != '\0')
		return "attached to a port falcon.conf does not name";
	if (strcasecmp(s->dev->health, "Critical") == 0)
		return "health Critical";
	if (strcasecmp(s->dev->state, "Absent") == 0)
		return "absent";
	if (s->dev->drawer < 0 || s->dev->drawer > MAX_DRAWERS)
		return "drawer unknown";
	if (!reachable(slots, n, i, host, mode))
		return "its drawer (half) is taken by other hosts (mode limit)";
	return NULL;
}

static int cmp_slot(const void *a, const void *b, const struct falcond_slot *slots)
{
	const struct falcon_device *x = slots[*(const size_t *)a].dev;
	const struct falcon_device *y = slots[*(const size_t *)b].dev;

	if (x->drawer != y->drawer)
		return x->drawer - y->drawer;
	if (x->slot != y->slot)
		return x->slot - y->slot;
	return strcmp(x->id, y->id);
}

/* insertion sort by (drawer, slot, id): n <= 64, no qsort_r portability. */
static void sort_cands(size_t *c, size_t n, const struct falcond_slot *slots)
{
	size_t i, j, t;

	for (i = 1; i < n; i++)
		for (j = i; j > 0 && cmp_slot(&c[j - 1], &c[j], slots) > 0; j--) {
			t = c[j];
			c[j] = c[j - 1];
			c[j - 1] = t;
		}
}

static falcon_err_t pick_type(const struct falcond_slot *slots, size_t n, const char *host,
			      falcon_mode_t mode, falcon_place_t place, falcon_dev_type_t type,
			      int want, int prefer_drawer, size_t *out, int *first_drawer)
{
	size_t cand[64], nc = 0, i, got = 0;
	size_t per[MAX_DRAWERS + 1] = { 0 };
	bool used[64] = { false };
	int d, best = -1, order[MAX_DRAWERS + 1], nd = 0;

	if (want <= 0)
		return FALCON_OK;
	for (i = 0; i < n && nc < ARRAY_SIZE(cand); i++)
		if (slots[i].dev->type == type &&
		    why_not(&slots[i], slots, n, i, host, mode, NULL, 0) == NULL)
			cand[nc++] = i;
	if ((int)nc < want) {
		char buf[160];
		const char *why;

		for (i = 0; i < n; i++)
			if (slots[i].dev->type == type &&
			    (why = why_not(&slots[i], slots, n, i, host, mode, buf,
					   sizeof(buf))) != NULL)
				falcon_verbose("place: %s not usable for %s: %s", slots[i].dev->id,
					       host, why);
		return falcon_err_set(FALCON_ERR_NORESOURCE,
				      "%d %s wanted for host %s, %zu free and reachable (%s mode)",
				      want, falcon_dev_type_str(type), host, nc,
				      mode == FALCON_MODE_STANDARD ? "standard" : "advanced");
	}
	sort_cands(cand, nc, slots);
	for (i = 0; i < nc; i++)
		per[slots[cand[i]].dev->drawer]++;
	/* drawers in the order they are tried */
	if (place == FALCON_PLACE_PACK) {
		/* best fit: the drawer that holds all with the fewest to spare;
		 * a drawer asked for (NVMe beside the GPUs) wins ties */
		for (d = 0; d <= MAX_DRAWERS; d++)
			if ((int)per[d] >= want &&
			    (best < 0 || per[d] < per[best] || (per[d] == per[best] && d == prefer_drawer)))
				best = d;
	}
	if (best >= 0)
		order[nd++] = best;
	/* then the others, most free first (pack overflow and spread) */
	while (nd <= MAX_DRAWERS) {
		int m = -1;

		for (d = 0; d <= MAX_DRAWERS; d++) {
			bool seen = false;
			int k;

			for (k = 0; k < nd; k++)
				seen |= order[k] == d;
			if (!seen && (m < 0 || per[d] > per[m]))
				m = d;
		}
		order[nd++] = m;
	}
	if (place == FALCON_PLACE_ANY) {
		for (i = 0; i < nc && (int)got < want; i++)
			out[got++] = cand[i];
	} else if (place == FALCON_PLACE_PACK) {
		int k;

		for (k = 0; k < nd && (int)got < want; k++)
			for (i = 0; i < nc && (int)got < want; i++)
				if (slots[cand[i]].dev->drawer == order[k])
					out[got++] = cand[i];
	} else {
		/* spread: one per drawer in turn, most free drawer first */
		while ((int)got < want) {
			int k;
			size_t before = got;

			for (k = 0; k < nd && (int)got < want; k++)
				for (i = 0; i < nc; i++)
					if (!used[i] && slots[cand[i]].dev->drawer == order[k]) {
						used[i] = true;
						out[got++] = cand[i];
						break;
					}
			if (got == before)
				break;
		}
	}
	if (first_drawer && got > 0)
		*first_drawer = slots[out[0]].dev->drawer;
	return FALCON_OK;
}

falcon_err_t falcond_place(const struct falcond_slot *slots, size_t n, const char *host,
			   falcon_mode_t mode, falcon_place_t place, int gpus, int nvme,
		      size_t *picks)
{
	falcon_err_t rv;
	int drawer = -1;

	if (gpus < 0 || nvme < 0 || gpus + nvme > FALCON_PROTO_MAX_DEVS)
		return falcon_err_set(FALCON_ERR_INVAL, "placement: %d GPUs + %d NVMe", gpus, nvme);
	rv = pick_type(slots, n, host, mode, place, FALCON_DEV_GPU, gpus, -1, picks, &drawer);
	if (rv == FALCON_OK)
		rv = pick_type(slots, n, host, mode, place, FALCON_DEV_NVME, nvme, drawer,
			       picks + gpus, NULL);
	return rv;
}
