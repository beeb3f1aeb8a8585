/*
 * sim_model.c - the rules the Falcon 4016 enforces: one zone per device,
 * cabling, standard/advanced mode limits; request fault matching; a slot's
 * trained link and its BDF on a host.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

void sim_state_init(struct sim_state *st)
{
	int d, s;

	memset(st, 0, sizeof(*st));
	for (d = 0; d < SIM_DRAWERS; d++)
		for (s = 0; s < SIM_SLOTS; s++) {
			st->slot[d][s].owner = -1;
			st->slot[d][s].stale_port = -1;
		}
}

static bool cabled(const struct sim_config *cfg, int p, int d)
{
	int i;

	for (i = 0; i < cfg->drawer[d].nports; i++)
		if (cfg->drawer[d].ports[i] == p)
			return true;
	return false;
}

/* Half of a drawer a slot lies in (standard mode with two ports): 0 = 1-4. */
static int half(int s0)
{
	return s0 < SIM_SLOTS / 2 ? 0 : 1;
}

falcon_err_t sim_check_attach(const struct sim_config *cfg, const struct sim_state *st,
			      int p, int d, int s)
{
	int owners[SIM_PORTS], nowners = 0, i, k, p_half = -1;
	int halves[SIM_PORTS];

	if (p < 0 || p >= SIM_PORTS || d < 1 || d > SIM_DRAWERS || s < 1 || s > SIM_SLOTS)
		return falcon_err_set(FALCON_ERR_INVAL, "no such port or slot");
	if (!cfg->drawer[d - 1].slot[s - 1].populated)
		return falcon_err_set(FALCON_ERR_NOTFOUND, "drawer %d slot %d is empty", d, s);
	i = st->slot[d - 1][s - 1].owner;
	if (i == p)
		return FALCON_OK;
	if (i >= 0)
		return falcon_err_set(FALCON_ERR_CONFLICT,
				      "drawer%d_slot%d is in zone H%d: a device is in one zone at a time; detach it from H%d first",
				      d, s, i + 1, i + 1);
	if (cfg->port[p].host[0] == '\0' || !cabled(cfg, p, d - 1))
		return falcon_err_set(FALCON_ERR_POLICY,
				      "host port H%d is not cabled to drawer %d", p + 1, d);
	/* The owners of the drawer's slots after this attach, each with the
	 * half of the drawer its slots lie in (-2 = both halves). */
	for (k = 0; k < SIM_SLOTS; k++) {
		int o = k == s - 1 ? p : st->slot[d - 1][k].owner;

		if (o < 0)
			continue;
		for (i = 0; i < nowners; i++)
			if (owners[i] == o)
				break;
		if (i == nowners) {
			owners[nowners] = o;
			halves[nowners] = half(k);
			nowners++;
		} else if (halves[i] != half(k)) {
			halves[i] = -2;
		}
		if (o == p)
			p_half = i;
	}
	if (cfg->mode == SIM_MODE_ADVANCED) {
		if (nowners > 3)
			return falcon_err_set(FALCON_ERR_POLICY,
					      "advanced mode: at most three host ports share drawer %d", d);
		return FALCON_OK;
	}
	if (nowners <= 1)
		return FALCON_OK;
	if (nowners > 2)
		return falcon_err_set(FALCON_ERR_POLICY,
				      "standard mode: drawer %d belongs to one host port, or two with 4 slots each",
				      d);
	/* Two owners: each keeps to its own half (slots 1-4 / 5-8). */
	if (halves[0] == -2 || halves[1] == -2 || halves[0] == halves[1])
		return falcon_err_set(FALCON_ERR_POLICY,
				      "standard mode: drawer %d is split between H%d and H%d, slots 1-4 / 5-8; slot %d is in H%d's half",
				      d, owners[0] + 1, owners[1] + 1, s,
				      owners[p_half == 0 ? 1 : 0] + 1);
	return FALCON_OK;
}

falcon_err_t sim_check_detach(const struct sim_config *cfg, const struct sim_state *st,
			      int p, int d, int s)
{
	const struct sim_slot_state *ss;

	if (p < 0 || p >= SIM_PORTS || d < 1 || d > SIM_DRAWERS || s < 1 || s > SIM_SLOTS)
		return falcon_err_set(FALCON_ERR_INVAL, "no such port or slot");
	ss = &st->slot[d - 1][s - 1];
	if (ss->owner < 0)
		return FALCON_OK;
	if (ss->owner != p)
		return falcon_err_set(FALCON_ERR_CONFLICT, "drawer%d_slot%d is in zone H%d, not H%d",
				      d, s, ss->owner + 1, p + 1);
	if (cfg->faults.refuse_detach[d - 1][s - 1])
		return falcon_err_set(FALCON_ERR_CHASSIS,
				      "the chassis refused to detach drawer%d_slot%d (injected fault)", d, s);
	if (ss->present && cfg->surprise == SIM_SURPRISE_REFUSE)
		return falcon_err_set(FALCON_ERR_CHASSIS,
				      "drawer%d_slot%d is still on %s's PCIe bus: remove it on the host first",
				      d, s, cfg->port[p].host);
	return FALCON_OK;
}

static bool path_match(const char *pat, const char *path)
{
	size_t n = strlen(pat);

	if (n == 0)
		return true;
	if (pat[n - 1] == '*')
		return strncmp(pat, path, n - 1) == 0;
	return strcmp(pat, path) == 0;
}

bool sim_fault_match(struct sim_faults *f, const char *method, const char *path,
		     struct sim_fault_rule *out)
{
	size_t i;

	for (i = 0; i < f->nrules; i++) {
		struct sim_fault_rule *r = &f->rules[i];

		if (r->count == 0)
			continue;
		if (r->method[0] != '\0' && strcasecmp(r->method, method) != 0)
			continue;
		if (!path_match(r->path, path))
			continue;
		if (r->count > 0)
			r->count--;
		*out = *r;
		if (r->action == SIM_FAULT_LATENCY && r->ms_max > r->ms)
			out->ms = r->ms + random() % (r->ms_max - r->ms + 1);
		return true;
	}
	return false;
}

struct sim_link sim_trained_link(const struct sim_config *cfg, int d, int s)
{
	if (cfg->faults.degraded[d - 1][s - 1])
		return cfg->faults.degraded_link[d - 1][s - 1];
	return cfg->drawer[d - 1].slot[s - 1].link;
}

void sim_slot_bdf(const struct sim_config *cfg, int p, int d, int s, char *buf, size_t n)
{
	const struct sim_port *port = &cfg->port[p];

	(void)d;
	/* switch bus = bus_first, downstream port for slot s = device s-1 on it,
	 * its secondary bus = bus_first + s holds the device. */
	snprintf(buf, n, "%04x:%02x:00.0", port->domain, port->bus_first + s);
}
