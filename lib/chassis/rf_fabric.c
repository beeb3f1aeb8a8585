/*
 * rf_fabric.c - the redfish-fabric backend (H3 Platform's model): a zone per
 * host port under <fabric>/Zones/<port>, devices and host ports are
 * Endpoints under <fabric>/Endpoints.  A device is given to a host by
 * PATCHing the zone's Links.Endpoints with the device's endpoint added, with
 * If-Match on the zone's ETag; a 412 (someone else changed the zone) makes
 * us re-read the zone and try again, a bounded number of times, so that two
 * writers never lose each other's change.  Every change is read back: from
 * the PATCH's answer when the service returns the zone (200), else with a
 * GET (204).  The zone as last seen (with its ETag) is kept per client
 * (struct falcon_be_zone), so that the next change of the same zone is one
 * PATCH with If-Match on it: a 412 means another writer (an administrator,
 * another tool) changed the zone, which is then read again.
 *
 * Reference: DMTF Redfish Resource and Schema Guide (DSP2046) 2023.3,
 * Fabric, Zone (ZoneOfEndpoints, Links.Endpoints), Endpoint
 * (ConnectedEntities with EntityRole Initiator/Target, PciId); DSP0266
 * sec 9.3.4 (If-Match, 412 Precondition Failed).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "chassis/chassis_backend.h"
#include "chassis/chassis_common.h"
#include "core/log.h"
#include "core/util.h"

/* Fill be->fabric/zones/endpoints: configured, else discovered. */
static falcon_err_t discover(struct falcon_be *be)
{
	static const char fabrics[] = FALCON_RF_ROOT "/Fabrics";
	struct json_object *obj = NULL;
	const char **m = NULL;
	const char *pick, *z, *e;
	char seg[FALCON_NAME_LEN];
	size_t n, i;
	falcon_err_t rv;

	if (be->zones[0] != '\0' && be->endpoints[0] != '\0')
		return FALCON_OK;
	if (be->fabric[0] == '\0') {
		rv = falcon_be_get_collection(be, fabrics, &obj, &m, &n);
		if (rv != FALCON_OK)
			goto fail;
		if (n == 0) {
			rv = falcon_err_set(FALCON_ERR_NOTFOUND, "%s: the service has no fabric",
					    fabrics);
			goto fail;
		}
		pick = m[0];
		for (i = 0; n > 1 && i < n; i++)
			if (!strcmp(falcon_rf_last_segment(m[i], seg, sizeof(seg)), "PCIe"))
				pick = m[i];
		if (strlen(pick) + sizeof("/Endpoints") > sizeof(be->fabric)) {
			rv = falcon_err_set(FALCON_ERR_PROTOCOL, "%s: fabric path too long", fabrics);
			goto fail;
		}
		falcon_strlcpy(be->fabric, pick, sizeof(be->fabric));
		be->fabric[strcspn(be->fabric, "#")] = '\0';
		free(m);
		m = NULL;
		json_object_put(obj);
		obj = NULL;
		falcon_verbose("using fabric %s (of %zu)", be->fabric, n);
	}
	rv = falcon_be_get(be, be->fabric, &obj, NULL, 0);
	if (rv != FALCON_OK)
		goto fail;
	z = falcon_rf_link(obj, "Zones");
	e = falcon_rf_link(obj, "Endpoints");
	if (z != NULL && strchr(z, '#') == NULL)
		falcon_strlcpy(be->zones, z, sizeof(be->zones));
	else if ((size_t)snprintf(be->zones, sizeof(be->zones), "%s/Zones", be->fabric) >=
		 sizeof(be->zones))
		be->zones[0] = '\0';
	if (e != NULL && strchr(e, '#') == NULL)
		falcon_strlcpy(be->endpoints, e, sizeof(be->endpoints));
	else if ((size_t)snprintf(be->endpoints, sizeof(be->endpoints), "%s/Endpoints",
				  be->fabric) >= sizeof(be->endpoints))
		be->endpoints[0] = '\0';
	if (be->zones[0] == '\0' || be->endpoints[0] == '\0') {
		rv = falcon_err_set(FALCON_ERR_PROTOCOL, "%s: fabric path too long", be->fabric);
		goto fail;
	}
	rv = FALCON_OK;
fail:
	free(m);
	json_object_put(obj);
	return rv;
}

static bool list_has(const char **paths, size_t n, const char *p)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (falcon_rf_path_eq(paths[i], p))
			return true;
	return false;
}

/* An endpoint of a host (a host port): an Initiator entity, or H3's name. */
static bool is_host_endpoint(struct json_object *ep, const char *id)
{
	struct json_object *ents = falcon_rf_arr(ep, "ConnectedEntities");
	size_t i, n = ents ? json_object_array_length(ents) : 0;

	if (strncmp(id, "hostport", 8) == 0)
		return true;
	for (i = 0; i < n; i++) {
		const char *role = falcon_rf_str(json_object_array_get_idx(ents, i), "EntityRole");

		if (role != NULL && !strcmp(role, "Initiator"))
			return true;
	}
	return false;
}

struct zone {
	char id[FALCON_NAME_LEN];
	struct json_object *obj;
	const char **eps;
	size_t neps;
};

static void zones_free(struct zone *zs, size_t n)
{
	size_t i;

	for (i = 0; zs != NULL && i < n; i++) {
		free(zs[i].eps);
		json_object_put(zs[i].obj);
	}
	free(zs);
}

static void zone_keep(struct falcon_be *be, const char *zpath, struct json_object *zone,
		      const char *etag);

/* Describe one device endpoint ep (at path) into dev: everything but its
 * owners (zone_owners). */
static falcon_err_t endpoint_device(struct falcon_be *be, const char *path,
				    struct json_object *ep, struct falcon_device *dev)
{
	struct json_object *ents = falcon_rf_arr(ep, "ConnectedEntities");
	const char *links[8];
	size_t i, n, nl = 0;

	memset(dev, 0, sizeof(*dev));
	dev->type = FALCON_DEV_OTHER;
	falcon_be_describe(be, dev, path, ep);
	falcon_be_pci_ids(dev, falcon_rf_obj(ep, "PciId"));
	n = ents ? json_object_array_length(ents) : 0;
	for (i = 0; i < n; i++) {
		struct json_object *ent = json_object_array_get_idx(ents, i);
		const char *et = falcon_rf_str(ent, "EntityType");
		const char *l = falcon_rf_link(ent, "EntityLink");

		falcon_be_pci_ids(dev, falcon_rf_obj(ent, "EntityPciId"));
		if (et != NULL && !strcmp(et, "NetworkController") && dev->type == FALCON_DEV_OTHER)
			dev->type = FALCON_DEV_NIC;
		if (et != NULL && !strcmp(et, "DisplayController") && dev->type == FALCON_DEV_OTHER)
			dev->type = FALCON_DEV_GPU;
		if (l != NULL && nl < ARRAY_SIZE(links))
			links[nl++] = l;
	}
	if (dev->chassis[0] == '\0')
		falcon_strlcpy(dev->chassis, be->chassis, sizeof(dev->chassis));
	return falcon_be_enrich(be, dev, links, nl);
}

/* The zones whose Links.Endpoints list dev's endpoint are its owners. */
static void zone_owners(struct falcon_device *dev, const struct zone *zs, size_t nz)
{
	size_t i;

	dev->owner[0] = '\0';
	for (i = 0; i < nz; i++)
		if (list_has(zs[i].eps, zs[i].neps, dev->odata_id))
			falcon_be_add_owner(dev, zs[i].id);
}

/*
 * One member of the Endpoints collection at path: its description kept
 * from an earlier read (falcon_be_desc_use), else read now (the endpoint
 * and what it links to) and kept.  *dev is filled and *is_dev set when it
 * is a device (not a host port).
 */
static falcon_err_t endpoint_read(struct falcon_be *be, const char *path,
				  struct falcon_device *dev, bool *is_dev)
{
	const struct falcon_be_desc *kept = falcon_be_desc_use(be, path);
	struct json_object *ep = NULL;
	const char *id;
	char seg[FALCON_NAME_LEN];
	falcon_err_t rv;

	*is_dev = false;
	if (kept != NULL) {
		*is_dev = !kept->host;
		if (*is_dev)
			*dev = kept->dev;
		return FALCON_OK;
	}
	rv = falcon_be_get_member(be, path, &ep, &id);
	if (rv != FALCON_OK)
		return rv;
	if (is_host_endpoint(ep, falcon_rf_last_segment(id, seg, sizeof(seg)))) {
		rv = FALCON_OK;
	} else {
		rv = endpoint_device(be, id, ep, dev);
		*is_dev = rv == FALCON_OK;
	}
	/* out of memory to keep it: read again next time */
	if (rv == FALCON_OK && falcon_be_desc_put(be, path, !*is_dev, dev) != FALCON_OK)
		falcon_err_clear();
	json_object_put(ep);
	return rv;
}

/*
 * zone_cables - the drawers port's zone says it reaches: its
 * Links.InvolvedSwitches (Zone.v1_6: "the switches in this zone"), each
 * switch named "drawer<D>" as the devices are "drawer<D>_slot<S>"
 * (chassis.h).  A zone that lists none says nothing (cabling_known stays
 * as it is); one that does makes the cabling known.
 */
static void zone_cables(struct json_object *zone, const char *port, const char *what,
			struct falcon_inventory *inv)
{
	const char **sw = NULL;
	size_t nsw = 0, k;

	if (falcon_be_link_list(zone, "InvolvedSwitches", true, what, &sw, &nsw) != FALCON_OK) {
		falcon_err_clear(); /* the cabling stays unknown: learnt by refusal */
		return;
	}
	for (k = 0; k < nsw && inv->ncables < FALCON_CABLES_MAX; k++) {
		char id[FALCON_NAME_LEN];
		int d;

		falcon_rf_last_segment(sw[k], id, sizeof(id));
		if (falcon_drawer_id_parse(id, &d) != FALCON_OK) {
			falcon_err_clear(); /* not a drawer's switch */
			continue;
		}
		falcon_strlcpy(inv->cables[inv->ncables].port, port,
			       sizeof(inv->cables[0].port));
		inv->cables[inv->ncables++].drawer = d;
		inv->cabling_known = true;
	}
	free(sw);
}

static falcon_err_t fabric_inventory(struct falcon_be *be, struct falcon_inventory *inv)
{
	struct json_object *zc = NULL, *ec = NULL;
	struct zone *zs = NULL;
	const char **zm = NULL, **em = NULL;
	size_t nz = 0, ne = 0, i;
	struct falcon_device dev;
	falcon_err_t rv;

	rv = discover(be);
	if (rv != FALCON_OK)
		goto fail;
	/* zones first: they say who owns what */
	rv = falcon_be_get_collection(be, be->zones, &zc, &zm, &nz);
	if (rv != FALCON_OK)
		goto fail;
	zs = calloc(nz ? nz : 1, sizeof(*zs));
	if (zs == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "%s", be->zones);
		goto fail;
	}
	for (i = 0; i < nz; i++) {
		const char *id;
		char etag[FALCON_RF_ETAG_LEN];

		rv = falcon_be_get(be, zm[i], &zs[i].obj, etag, sizeof(etag));
		if (rv != FALCON_OK)
			goto fail;
		id = falcon_rf_odata_id(zs[i].obj, zm[i]);
		if (id == NULL) {
			rv = FALCON_ERR_PROTOCOL;
			goto fail;
		}
		falcon_rf_last_segment(id, zs[i].id, sizeof(zs[i].id));
		rv = falcon_be_link_list(zs[i].obj, "Endpoints", true, zm[i], &zs[i].eps,
					 &zs[i].neps);
		if (rv != FALCON_OK)
			goto fail;
		/* the next change of this zone PATCHes from this read (If-Match) */
		zone_keep(be, zm[i], zs[i].obj, etag);
		zone_cables(zs[i].obj, zs[i].id, zm[i], inv);
	}
	rv = falcon_be_get_collection(be, be->endpoints, &ec, &em, &ne);
	if (rv != FALCON_OK)
		goto fail;
	be->desc_refresh_left = FALCON_BE_DESC_REFRESH;
	for (i = 0; i < ne; i++) {
		bool is_dev;

		rv = endpoint_read(be, em[i], &dev, &is_dev);
		if (rv != FALCON_OK)
			goto fail;
		if (!is_dev)
			continue;
		zone_owners(&dev, zs, nz);
		rv = falcon_inventory_add(inv, &dev);
		if (rv != FALCON_OK)
			goto fail;
	}
	falcon_be_desc_prune(be, em, ne);
	rv = FALCON_OK;
fail:
	free(em);
	json_object_put(ec);
	zones_free(zs, nz);
	free(zm);
	json_object_put(zc);
	return rv;
}

/* The paths of port's zone and dev's endpoint. */
static falcon_err_t paths_of(struct falcon_be *be, const char *port, const char *dev,
			     char *zpath, char *dpath)
{
	falcon_err_t rv = discover(be);

	if (rv != FALCON_OK)
		return rv;
	if ((size_t)snprintf(zpath, FALCON_RF_PATH_LEN, "%s/%s", be->zones, port) >=
	    FALCON_RF_PATH_LEN ||
	    (size_t)snprintf(dpath, FALCON_RF_PATH_LEN, "%s/%s", be->endpoints, dev) >=
	    FALCON_RF_PATH_LEN)
		return falcon_err_set(FALCON_ERR_INVAL, "zone or endpoint path too long");
	return FALCON_OK;
}

/* dpaths_of - zpath (port's zone) and the endpoint path of each of devs[n]
 * (n <= FALCON_CHASSIS_SET_MAX) into dpaths. */
static falcon_err_t dpaths_of(struct falcon_be *be, const char *port, const char **devs,
			      size_t n, char *zpath, char dpaths[][FALCON_RF_PATH_LEN])
{
	falcon_err_t rv = FALCON_OK;
	size_t i;

	if (n == 0 || n > FALCON_CHASSIS_SET_MAX)
		return falcon_err_set(FALCON_ERR_INVAL, "%zu devices in one change: expected 1 to %d",
				      n, FALCON_CHASSIS_SET_MAX);
	for (i = 0; i < n && rv == FALCON_OK; i++)
		rv = paths_of(be, port, devs[i], zpath, dpaths[i]);
	return rv;
}

/* set_differs - some dpaths[i]'s membership in eps is not want. */
static bool set_differs(const char **eps, size_t neps, char dpaths[][FALCON_RF_PATH_LEN],
			size_t n, bool want)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (list_has(eps, neps, dpaths[i]) != want)
			return true;
	return false;
}

/* already_in - FALCON_ERR_CONFLICT: dpath is in zone zpath before an
 * attach set that believed it free. */
static falcon_err_t already_in(const char *zpath, const char *dpath)
{
	return falcon_err_set(FALCON_ERR_CONFLICT, "%s is already in zone %s: given to this "
			      "host by someone else, not taken over", dpath, zpath);
}

/* set_first_differing - the first dpaths[i] whose membership is not want (or dpaths[0]). */
static const char *set_first_differing(const char **eps, size_t neps,
				       char dpaths[][FALCON_RF_PATH_LEN], size_t n, bool want)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (list_has(eps, neps, dpaths[i]) != want)
			return dpaths[i];
	return dpaths[0];
}

/* ---- the zone cache (struct falcon_be_zone) ---- */

static void zone_forget(struct falcon_be_zone *z)
{
	free(z->eps);
	json_object_put(z->obj);
	memset(z, 0, sizeof(*z));
}

/* The client is closed: forget every cached zone (frees them). */
static void fabric_close(struct falcon_be *be)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(be->zcache); i++)
		zone_forget(&be->zcache[i]);
}

static struct falcon_be_zone *zone_cached(struct falcon_be *be, const char *zpath)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(be->zcache); i++)
		if (be->zcache[i].path[0] != '\0' && strcmp(be->zcache[i].path, zpath) == 0)
			return &be->zcache[i];
	return NULL;
}

static void zone_uncache(struct falcon_be *be, const char *zpath)
{
	struct falcon_be_zone *z = zone_cached(be, zpath);

	if (z != NULL)
		zone_forget(z);
}

/*
 * zone_keep - remember zone (a new reference is taken) as zpath's state
 * with etag; a zone without an ETag, or whose endpoint list does not parse,
 * is forgotten instead.
 */
static void zone_keep(struct falcon_be *be, const char *zpath, struct json_object *zone,
		      const char *etag)
{
	struct falcon_be_zone *z = zone_cached(be, zpath);
	size_t i;

	if (z == NULL)
		for (i = 0; i < ARRAY_SIZE(be->zcache) && z == NULL; i++)
			if (be->zcache[i].path[0] == '\0')
				z = &be->zcache[i];
	if (z == NULL)
		z = &be->zcache[0]; /* more zones than slots: reuse one */
	zone_forget(z);
	if (etag == NULL || etag[0] == '\0' || strlen(zpath) >= sizeof(z->path) ||
	    strlen(etag) >= sizeof(z->etag))
		return;
	if (falcon_be_link_list(zone, "Endpoints", true, zpath, &z->eps, &z->neps) != FALCON_OK) {
		memset(z, 0, sizeof(*z));
		return;
	}
	z->obj = json_object_get(zone);
	falcon_strlcpy(z->path, zpath, sizeof(z->path));
	falcon_strlcpy(z->etag, etag, sizeof(z->etag));
}

/* GET the zone: its object, ETag and endpoint list (pointers into *zone). */
static falcon_err_t zone_read(struct falcon_be *be, const char *port, const char *zpath,
			      struct json_object **zone, char *etag, const char ***eps,
			      size_t *n)
{
	falcon_err_t rv;

	*eps = NULL;
	*n = 0;
	rv = falcon_be_get(be, zpath, zone, etag, FALCON_RF_ETAG_LEN);
	if (rv == FALCON_ERR_NOTFOUND)
		return falcon_err_prefix(rv, "no zone for host port %s", port);
	if (rv != FALCON_OK)
		return rv;
	rv = falcon_be_link_list(*zone, "Endpoints", true, zpath, eps, n);
	if (rv != FALCON_OK) {
		json_object_put(*zone);
		*zone = NULL;
		zone_uncache(be, zpath);
		return rv;
	}
	zone_keep(be, zpath, *zone, etag);
	return rv;
}

/* in_set - p is one of dpaths[n]. */
static bool in_set(const char *p, char dpaths[][FALCON_RF_PATH_LEN], size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (falcon_rf_path_eq(p, dpaths[i]))
			return true;
	return false;
}

/*
 * PATCH zpath with Links.Endpoints = eps plus (add) / minus (!add) every
 * one of dpaths[nd], in one request.  *answer gets the zone the service
 * answered with (NULL when it sent none, or when be has no send_resp),
 * new_etag its ETag.
 */
static falcon_err_t zone_patch(struct falcon_be *be, const char *zpath, const char **eps,
			       size_t n, char dpaths[][FALCON_RF_PATH_LEN], size_t nd, bool add,
			       const char *etag, struct json_object **answer, char *new_etag)
{
	struct json_object *body = json_object_new_object();
	struct json_object *links = json_object_new_object();
	struct json_object *arr = json_object_new_array();
	falcon_err_t rv;
	size_t i;
	bool ok = body != NULL && links != NULL && arr != NULL;

	for (i = 0; ok && i < n + (add ? nd : 0); i++) {
		const char *p = i < n ? eps[i] : dpaths[i - n];
		struct json_object *ref;

		if (i < n && !add && in_set(p, dpaths, nd))
			continue; /* removed */
		if (i >= n && (list_has(eps, n, p) || in_set(p, dpaths, i - n)))
			continue; /* added, but already there */
		ref = json_object_new_object();
		ok = ref != NULL &&
		     json_object_object_add(ref, "@odata.id", json_object_new_string(p)) == 0 &&
		     json_object_array_add(arr, ref) == 0;
		if (!ok)
			json_object_put(ref);
	}
	if (ok && json_object_object_add(links, "Endpoints", arr) == 0) {
		arr = NULL;
		ok = json_object_object_add(body, "Links", links) == 0;
		if (ok)
			links = NULL;
	} else {
		ok = false;
	}
	if (!ok) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "PATCH %s: building the body", zpath);
		goto fail;
	}
	if (etag[0] == '\0')
		falcon_debug("PATCH %s: the zone has no ETag: sent without If-Match", zpath);
	rv = falcon_be_send_resp(be, "PATCH", zpath, body, etag[0] != '\0' ? etag : NULL,
				 answer, new_etag, FALCON_RF_ETAG_LEN);
fail:
	json_object_put(arr);
	json_object_put(links);
	json_object_put(body);
	return rv;
}

/* verify_set - read port's zone (zpath): FALCON_OK when each of dpaths[n]
 * is listed (attached) / is not (!attached), FALCON_ERR_CHASSIS naming the
 * first that is not. */
static falcon_err_t verify_set(struct falcon_be *be, const char *port, const char *zpath,
			       char dpaths[][FALCON_RF_PATH_LEN], size_t nd, bool attached)
{
	char etag[FALCON_RF_ETAG_LEN];
	struct json_object *zone = NULL;
	const char **eps = NULL;
	size_t n;
	falcon_err_t rv;

	rv = zone_read(be, port, zpath, &zone, etag, &eps, &n);
	if (rv != FALCON_OK)
		return rv;
	if (set_differs(eps, n, dpaths, nd, attached))
		rv = falcon_err_set(FALCON_ERR_CHASSIS, "read-back: zone %s %s %s", zpath,
				    attached ? "does not list" : "still lists",
				    set_first_differing(eps, n, dpaths, nd, attached));
	free(eps);
	json_object_put(zone);
	return rv;
}

static falcon_err_t fabric_verify(struct falcon_be *be, const char *port, const char *dev,
				  bool attached)
{
	char zpath[FALCON_RF_PATH_LEN], dpath[1][FALCON_RF_PATH_LEN];
	falcon_err_t rv;

	rv = paths_of(be, port, dev, zpath, dpath[0]);
	return rv != FALCON_OK ? rv : verify_set(be, port, zpath, dpath, 1, attached);
}

/*
 * readback_answer - the read-back from a PATCH's answer: FALCON_OK when it
 * is the zone and lists (add) / does not list every one of dpaths[nd],
 * FALCON_ERR_CHASSIS when it says otherwise, FALCON_ERR_NOTFOUND when the
 * answer is no zone (then read the zone).  The zone is kept as zpath's
 * state (with new_etag).
 */
static falcon_err_t readback_answer(struct falcon_be *be, const char *zpath,
				    char dpaths[][FALCON_RF_PATH_LEN], size_t nd, bool add,
				    struct json_object *answer, const char *new_etag)
{
	const char **eps = NULL;
	const char *id;
	size_t n;
	falcon_err_t rv;

	id = answer != NULL ? falcon_rf_str(answer, "@odata.id") : NULL;
	if (id == NULL || !falcon_rf_path_eq(id, zpath) ||
	    falcon_rf_obj(answer, "Links") == NULL ||
	    falcon_be_link_list(answer, "Endpoints", true, zpath, &eps, &n) != FALCON_OK) {
		zone_uncache(be, zpath);
		return FALCON_ERR_NOTFOUND;
	}
	if (set_differs(eps, n, dpaths, nd, add)) {
		zone_uncache(be, zpath);
		rv = falcon_err_set(FALCON_ERR_CHASSIS, "read-back: zone %s %s %s (PATCH answer)",
				    zpath, add ? "does not list" : "still lists",
				    set_first_differing(eps, n, dpaths, nd, add));
	} else {
		zone_keep(be, zpath, answer, new_etag);
		rv = FALCON_OK;
	}
	free(eps);
	return rv;
}

/*
 * change_set - add (add) or remove every one of devs[nd] in port's zone with
 * one PATCH with If-Match, re-reading on 412 at most be->retries times,
 * then read back.  *changed: a PATCH was accepted.  The zone is taken from
 * the cache when this client has it with an ETag (a 412 then only drops
 * the stale copy: it does not count as a retry).  Nothing is sent when the
 * zone, read, is already as wanted.  With fresh (add only), a device the
 * zone already lists, as read or as kept, is FALCON_ERR_CONFLICT and
 * nothing is sent: the caller believed them all free, and one that someone
 * else gave this host is never taken over.
 */
static falcon_err_t change_set(struct falcon_be *be, const char *port, const char **devs,
			       size_t nd, bool add, bool fresh, bool *changed)
{
	char zpath[FALCON_RF_PATH_LEN], dpaths[FALCON_CHASSIS_SET_MAX][FALCON_RF_PATH_LEN];
	char etag[FALCON_RF_ETAG_LEN], new_etag[FALCON_RF_ETAG_LEN];
	struct json_object *zone = NULL, *answer = NULL;
	struct falcon_be_zone *z;
	const char **eps = NULL;
	size_t n;
	int attempt;
	bool cached;
	falcon_err_t rv;

	*changed = false;
	rv = dpaths_of(be, port, devs, nd, zpath, dpaths);
	if (rv != FALCON_OK)
		return rv;
	for (attempt = 0; ; attempt++) {
		z = be->send_resp != NULL ? zone_cached(be, zpath) : NULL;
		cached = z != NULL && set_differs(z->eps, z->neps, dpaths, nd, add);
		if (cached && fresh && set_differs(z->eps, z->neps, dpaths, nd, false))
			return already_in(zpath, set_first_differing(z->eps, z->neps, dpaths,
								     nd, false));
		if (cached) {
			/* our copy says a change is needed: PATCH from it; a copy
			 * that says "nothing to do" is not trusted (read again) */
			falcon_strlcpy(etag, z->etag, sizeof(etag));
			rv = zone_patch(be, zpath, z->eps, z->neps, dpaths, nd, add, etag, &answer,
					new_etag);
			*changed = rv == FALCON_OK;
		} else {
			rv = zone_read(be, port, zpath, &zone, etag, &eps, &n);
			if (rv != FALCON_OK) {
				zone_uncache(be, zpath);
				return rv;
			}
			if (fresh && set_differs(eps, n, dpaths, nd, false)) {
				rv = already_in(zpath, set_first_differing(eps, n, dpaths, nd, false));
				free(eps);
				json_object_put(zone);
				return rv;
			}
			if (!set_differs(eps, n, dpaths, nd, add)) {
				falcon_verbose("%s: %s%s already %s zone %s", __func__, devs[0],
					       nd > 1 ? " and the others" : "", add ? "in" : "not in",
					       zpath);
				rv = FALCON_OK;
			} else {
				rv = zone_patch(be, zpath, eps, n, dpaths, nd, add, etag, &answer,
						new_etag);
				*changed = rv == FALCON_OK;
			}
			free(eps);
			eps = NULL;
			json_object_put(zone);
			zone = NULL;
		}
		if (rv != FALCON_OK)
			zone_uncache(be, zpath);
		if (rv != FALCON_ERR_PRECONDITION)
			break;
		if (cached) {
			falcon_verbose("PATCH %s: the zone changed since this client saw it (412): "
				       "reading it", zpath);
			attempt--;
			continue;
		}
		if (attempt >= be->retries)
			break;
		falcon_verbose("PATCH %s: stale ETag (412): re-reading the zone (retry %d of %d)",
			       zpath, attempt + 1, be->retries);
	}
	if (rv == FALCON_ERR_PRECONDITION) {
		char why[512];

		falcon_strlcpy(why, falcon_errmsg(), sizeof(why));
		return falcon_err_set(rv, "%s (gave up after %d re-reads)", why, be->retries);
	}
	if (rv != FALCON_OK)
		return rv;
	if (*changed) {
		rv = readback_answer(be, zpath, dpaths, nd, add, answer, new_etag);
		json_object_put(answer);
		if (rv != FALCON_ERR_NOTFOUND)
			return rv;
	}
	return verify_set(be, port, zpath, dpaths, nd, add);
}

/* change - change_set() of one device (a falcon_be_change_fn). */
static falcon_err_t change(struct falcon_be *be, const char *port, const char *dev,
			   bool add, bool *changed)
{
	return change_set(be, port, &dev, 1, add, false, changed);
}

/*
 * change_set(), and when an attach is refused before any PATCH was
 * accepted (FALCON_ERR_CHASSIS): a zone link to an endpoint that does not
 * exist is a 400, so tell an unknown device (FALCON_ERR_NOTFOUND, naming
 * the first such) apart from other refusals.  fresh as change_set().
 */
static falcon_err_t change_or_unknown_x(struct falcon_be *be, const char *port,
					const char **devs, size_t nd, bool add, bool fresh,
					bool *changed)
{
	char zpath[FALCON_RF_PATH_LEN], dpath[FALCON_RF_PATH_LEN];
	char first[1024];
	falcon_err_t rv = change_set(be, port, devs, nd, add, fresh, changed);
	size_t i;

	if (!add || rv != FALCON_ERR_CHASSIS || *changed)
		return rv;
	falcon_strlcpy(first, falcon_errmsg(), sizeof(first));
	for (i = 0; i < nd; i++) {
		struct json_object *ep = NULL;
		falcon_err_t e = paths_of(be, port, devs[i], zpath, dpath);

		if (e == FALCON_OK)
			e = falcon_be_get(be, dpath, &ep, NULL, 0);
		json_object_put(ep);
		if (e == FALCON_ERR_NOTFOUND)
			return falcon_err_set(FALCON_ERR_NOTFOUND, "no device endpoint %s: %s",
					      dpath, first);
		if (e != FALCON_OK)
			break; /* cannot tell: the refusal as it came */
	}
	return falcon_err_set(rv, "%s", first);
}

/* the change of a single attach: a device already in the zone is attached */
static falcon_err_t change_or_unknown(struct falcon_be *be, const char *port,
				      const char **devs, size_t nd, bool add, bool *changed)
{
	return change_or_unknown_x(be, port, devs, nd, add, false, changed);
}

/* the change of an attach set (a falcon_be_set_change_fn): devices already
 * in the zone refused (fresh); its rollback (!add) as any detach */
static falcon_err_t change_attach_set(struct falcon_be *be, const char *port,
				      const char **devs, size_t nd, bool add, bool *changed)
{
	return change_or_unknown_x(be, port, devs, nd, add, add, changed);
}

/* A PATCH that may have been applied (a timeout, a dropped connection, a
 * failed read-back) is undone: an error always means "not attached". */
static falcon_err_t fabric_attach(struct falcon_be *be, const char *port, const char *dev)
{
	static const struct falcon_be_change how = { .set = change_or_unknown };

	return falcon_be_attach_with_rollback(be, port, &dev, 1, &how,
					      "removed from the zone again",
					      "the device is not in the zone");
}

static falcon_err_t fabric_detach(struct falcon_be *be, const char *port, const char *dev)
{
	return falcon_be_detach(be, port, dev, change);
}

/* The set in one zone PATCH; an error means none of them is attached. */
static falcon_err_t fabric_attach_set(struct falcon_be *be, const char *port,
				      const char **devs, size_t n)
{
	static const struct falcon_be_change how = { .set = change_attach_set };

	return falcon_be_attach_with_rollback(be, port, devs, n, &how,
					      "removed from the zone again",
					      "the devices are not in the zone");
}

static falcon_err_t fabric_detach_set(struct falcon_be *be, const char *port,
				      const char **devs, size_t n)
{
	bool changed;

	return falcon_be_detach_result(change_set(be, port, devs, n, false, false, &changed));
}

const struct falcon_be_ops falcon_be_fabric = {
	.name = "redfish-fabric",
	.inventory = fabric_inventory,
	.attach = fabric_attach,
	.detach = fabric_detach,
	.verify = fabric_verify,
	.attach_set = fabric_attach_set,
	.detach_set = fabric_detach_set,
	.close = fabric_close,
};
