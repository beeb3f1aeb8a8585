/*
 * place.h - placement (place.c): what falcond sees of a chassis for a
 * compose (slots and who holds them), what it learns from the chassis'
 * refusals (ports not cabled to a drawer) and what it decides (the
 * devices, their ports), and the partition policy checked again inside
 * falcond.  Pure: no lock, no chassis request; the caller guards what it
 * passes.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCOND_PLACE_H
#define FALCOND_PLACE_H

#include <stdbool.h>
#include <stddef.h>

#include "chassis/chassis.h"
#include "core/conf.h"
#include "api/proto.h"
#include "ledger.h"

/* One chassis device as placement sees it. */
struct falcond_slot {
	const struct falcon_device *dev;
	const char *holder;          /* host holding it (lease or chassis), NULL = free */
	bool quarantined;
	bool unreachable;            /* no port of the host is cabled to its drawer */
};

/*
 * falcond_place - choose r->gpus GPUs and r->nvme NVMe devices for host among
 * slots[0..n), free, not quarantined, not Critical nor Absent, within the chassis mode
 * limits (standard: a drawer half, slots 1-4 or 5-8, belongs to one host;
 * advanced: at most 3 hosts share a drawer — the Falcon 4016 modes as the
 * paper describes them), by place (pack: one drawer switch first, best fit;
 * spread: round-robin over drawers; any: first free by drawer/slot).
 * picks[] gets indices into slots (r->gpus GPUs first, then NVMe).
 * FALCON_ERR_NORESOURCE with the counts in the detail when they do not fit.
 */
falcon_err_t falcond_place(const struct falcond_slot *slots, size_t n, const char *host,
			   falcon_mode_t mode, falcon_place_t place, int gpus, int nvme,
		      size_t *picks);

/*
 * What placement learns: (port, drawer) pairs a chassis refused as not
 * cabled, each held FALCOND_NOREACH_MS and then probed again.  One per
 * chassis, guarded by the chassis' lock (struct falcond_chassis).
 */
#define FALCOND_NOREACH_MS (10 * 60 * 1000) /* ms a learnt "not cabled" holds */
#define FALCOND_NOREACH_MAX 32

struct falcond_reach {
	size_t n;
	struct {
		char port[FALCON_NAME_LEN];
		int drawer;
		long long until_ms;  /* falcon_now_ms() clock */
	} no[FALCOND_NOREACH_MAX];
	/* the cabling as the service says it (a zone's InvolvedSwitches,
	 * falcon_inventory.cables): when known, a port reaches exactly the
	 * drawers listed for it, nothing is learnt by refusal */
	bool known;
	size_t ncables;
	struct falcon_cable cables[FALCON_CABLES_MAX];
};

/* falcond_reach_cabling - the service's cabling (cables[n], from an
 * inventory whose cabling_known was set) into r. */
void falcond_reach_cabling(struct falcond_reach *r, const struct falcon_cable *cables, size_t n);

/* falcond_reach_no - does port not reach drawer: the service's cabling
 * when known (a port it does not list reaches nothing), else learnt by a
 * refusal and not yet forgotten?  r may be NULL (nothing known). */
bool falcond_reach_no(const struct falcond_reach *r, const char *port, int drawer);

/*
 * falcond_place_refused - the chassis named chassis refused to attach
 * device d to its port (d->port): not cabled, the mode, or someone took
 * it.  Placement keeps to the mode rules the chassis applies
 * (falcond_place), so when d is still free in now (the chassis read after
 * the refusal) the port is not cabled to d's drawer: learnt into r for
 * FALCOND_NOREACH_MS (logged).  Returns whether it was learnt.
 */
bool falcond_place_refused(struct falcond_reach *r, const char *chassis,
			   const struct falcon_inventory *now, const struct falcon_lease_dev *d);

/*
 * falcond_port_for - the host port to use for a device in drawer: the host's
 * ports tried from index (drawer-1) mod nports on, skipping those r has
 * learnt not to reach that drawer (r may be NULL).  NULL when none is left.
 */
const char *falcond_port_for(const struct falcon_host_conf *h, int drawer,
			     const struct falcond_reach *r);

/* falcond_host_of_port - the HostName of conf cabled to port of chassis, or NULL. */
const char *falcond_host_of_port(const struct falcon_conf *conf, const char *chassis,
				 const char *port);

/*
 * falcond_place_slots - what placement sees of chassis for host h: one
 * slot per device of inv (the slots point into inv), who holds each (a
 * lease's host in lg, or the host cabled to the port the chassis has it
 * on), quarantined in lg, reachable from h given r.  *out is a new array
 * of inv->n (caller frees).  The caller guards lg.  FALCON_ERR_NOMEM.
 */
falcon_err_t falcond_place_slots(struct falcond_ledger *lg, const struct falcon_conf *conf,
				 const char *chassis, const struct falcon_host_conf *h,
				 const struct falcond_reach *r, const struct falcon_inventory *inv,
				 struct falcond_slot **out);

#endif /* FALCOND_PLACE_H */
