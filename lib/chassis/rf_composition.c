/*
 * rf_composition.c - the redfish-composition backend (DMTF
 * CompositionService).  Devices are ResourceBlocks under
 * /redfish/v1/CompositionService/ResourceBlocks; a host port names an
 * existing ("expandable") ComputerSystem /redfish/v1/Systems/<port> that is
 * grown with ComputerSystem.AddResourceBlock and shrunk with
 * ComputerSystem.RemoveResourceBlock.  After each change the block's
 * Links.ComputerSystems and CompositionStatus.CompositionState are read back.
 *
 * Reference: DMTF Redfish Composability White Paper (DSP2050) 1.3.0,
 * sec "Expandable resources"; ResourceBlock v1_4 (CompositionStatus,
 * CompositionState enum: Composing, ComposedAndAvailable, Composed, Unused,
 * Failed, Unavailable); ComputerSystem v1_16 actions AddResourceBlock and
 * RemoveResourceBlock (parameter ResourceBlock).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "chassis/chassis_backend.h"
#include "chassis/chassis_common.h"
#include "core/log.h"
#include "core/util.h"

#define COMP_ROOT FALCON_RF_ROOT "/CompositionService"
#define COMP_POLLS 10            /* reads of a block that is still Composing */
#define COMP_POLL_NS 100000000L  /* 100 ms between them */

static void default_paths(struct falcon_be *be)
{
	if (be->blocks[0] == '\0')
		falcon_strlcpy(be->blocks, COMP_ROOT "/ResourceBlocks", sizeof(be->blocks));
	if (be->systems[0] == '\0')
		falcon_strlcpy(be->systems, FALCON_RF_ROOT "/Systems", sizeof(be->systems));
}

/* The first member path of obj[key] (an array of {"@odata.id"}), or NULL. */
static const char *first_ref(struct json_object *obj, const char *key)
{
	struct json_object *arr = falcon_rf_arr(obj, key);
	const char *p;

	if (arr == NULL || json_object_array_length(arr) == 0)
		return NULL;
	p = falcon_rf_str(json_object_array_get_idx(arr, 0), "@odata.id");
	return falcon_rf_path_ok(p) ? p : NULL;
}

static falcon_err_t block_device(struct falcon_be *be, const char *path,
				 struct json_object *blk, struct falcon_device *dev)
{
	struct json_object *types = falcon_rf_arr(blk, "ResourceBlockType");
	const char **sys = NULL;
	const char *links[5];
	char seg[FALCON_NAME_LEN];
	size_t i, n;
	falcon_err_t rv;

	memset(dev, 0, sizeof(*dev));
	dev->type = FALCON_DEV_OTHER;
	falcon_be_describe(be, dev, path, blk);
	falcon_strlcpy(dev->composition,
		       falcon_rf_str(falcon_rf_obj(blk, "CompositionStatus"),
				     "CompositionState") ?: "", sizeof(dev->composition));
	rv = falcon_be_link_list(blk, "ComputerSystems", true, path, &sys, &n);
	if (rv != FALCON_OK)
		return rv;
	for (i = 0; i < n; i++)
		falcon_be_add_owner(dev, falcon_rf_last_segment(sys[i], seg, sizeof(seg)));
	free(sys);
	if (dev->chassis[0] == '\0')
		falcon_strlcpy(dev->chassis, be->chassis, sizeof(dev->chassis));
	/* a compute block is a host, not a device for one */
	if (!falcon_rf_has_string(types, "Compute") &&
	    !falcon_rf_has_string(types, "ComputerSystem")) {
		links[0] = first_ref(blk, "Processors");
		links[1] = first_ref(blk, "Drives");
		links[2] = first_ref(blk, "Storage");
		links[3] = first_ref(blk, "EthernetInterfaces");
		links[4] = first_ref(blk, "NetworkInterfaces");
		rv = falcon_be_enrich(be, dev, links, ARRAY_SIZE(links));
		if (rv != FALCON_OK)
			return rv;
		if (dev->type == FALCON_DEV_OTHER && falcon_rf_has_string(types, "Network"))
			dev->type = FALCON_DEV_NIC;
	}
	if (dev->model[0] == '\0')
		falcon_strlcpy(dev->model, falcon_rf_str(blk, "Name") ?: "", sizeof(dev->model));
	return FALCON_OK;
}

static falcon_err_t comp_inventory(struct falcon_be *be, struct falcon_inventory *inv)
{
	struct json_object *svc = NULL, *coll = NULL, *blk = NULL;
	const char **m = NULL;
	const char *p;
	size_t n, i;
	struct falcon_device dev;
	falcon_err_t rv;

	rv = falcon_be_get(be, COMP_ROOT, &svc, NULL, 0);
	if (rv != FALCON_OK)
		goto fail;
	p = falcon_rf_link(svc, "ResourceBlocks");
	if (p != NULL && strchr(p, '#') == NULL)
		falcon_strlcpy(be->blocks, p, sizeof(be->blocks));
	default_paths(be);
	rv = falcon_be_get_collection(be, be->blocks, &coll, &m, &n);
	if (rv != FALCON_OK)
		goto fail;
	for (i = 0; i < n; i++) {
		const char *id;

		rv = falcon_be_get_member(be, m[i], &blk, &id);
		if (rv != FALCON_OK)
			goto fail;
		rv = block_device(be, id, blk, &dev);
		if (rv != FALCON_OK)
			goto fail;
		rv = falcon_inventory_add(inv, &dev);
		if (rv != FALCON_OK)
			goto fail;
		json_object_put(blk);
		blk = NULL;
	}
	rv = FALCON_OK;
fail:
	json_object_put(blk);
	free(m);
	json_object_put(coll);
	json_object_put(svc);
	return rv;
}

struct block_state {
	bool linked;          /* Links.ComputerSystems holds the system */
	size_t nsys;          /* systems it is composed into */
	bool sharing;         /* CompositionStatus.SharingCapable */
	char state[32];       /* CompositionState, "" if none */
	char others[FALCON_NAME_LEN]; /* the other systems, comma-separated */
};

static falcon_err_t block_read(struct falcon_be *be, const char *bpath, const char *spath,
			       struct block_state *bs)
{
	struct json_object *blk = NULL, *cs, *sc;
	const char **sys = NULL;
	char seg[FALCON_NAME_LEN];
	size_t i;
	falcon_err_t rv;

	memset(bs, 0, sizeof(*bs));
	rv = falcon_be_get(be, bpath, &blk, NULL, 0);
	if (rv == FALCON_ERR_NOTFOUND) {
		rv = falcon_err_prefix(rv, "no resource block %s", bpath);
		goto fail;
	}
	if (rv != FALCON_OK)
		goto fail;
	rv = falcon_be_link_list(blk, "ComputerSystems", true, bpath, &sys, &bs->nsys);
	if (rv != FALCON_OK)
		goto fail;
	for (i = 0; i < bs->nsys; i++) {
		if (falcon_rf_path_eq(sys[i], spath)) {
			bs->linked = true;
		} else {
			struct falcon_device tmp = { .owner = "" };

			falcon_strlcpy(tmp.owner, bs->others, sizeof(tmp.owner));
			falcon_be_add_owner(&tmp, falcon_rf_last_segment(sys[i], seg, sizeof(seg)));
			falcon_strlcpy(bs->others, tmp.owner, sizeof(bs->others));
		}
	}
	cs = falcon_rf_obj(blk, "CompositionStatus");
	falcon_strlcpy(bs->state, falcon_rf_str(cs, "CompositionState") ?: "",
		       sizeof(bs->state));
	if (cs != NULL && json_object_object_get_ex(cs, "SharingCapable", &sc) &&
	    json_object_is_type(sc, json_type_boolean))
		bs->sharing = json_object_get_boolean(sc);
	rv = FALCON_OK;
fail:
	free(sys);
	json_object_put(blk);
	return rv;
}

static falcon_err_t paths_of(struct falcon_be *be, const char *port, const char *dev,
			     char *bpath, char *spath)
{
	default_paths(be);
	if ((size_t)snprintf(bpath, FALCON_RF_PATH_LEN, "%s/%s", be->blocks, dev) >=
	    FALCON_RF_PATH_LEN ||
	    (size_t)snprintf(spath, FALCON_RF_PATH_LEN, "%s/%s", be->systems, port) >=
	    FALCON_RF_PATH_LEN)
		return falcon_err_set(FALCON_ERR_INVAL, "block or system path too long");
	return FALCON_OK;
}

static bool composed(const char *state)
{
	/* a service that does not report CompositionState is judged by its links */
	return state[0] == '\0' || !strcmp(state, "Composed") ||
	       !strcmp(state, "ComposedAndAvailable");
}

static falcon_err_t comp_verify(struct falcon_be *be, const char *port, const char *dev,
				bool attached)
{
	char bpath[FALCON_RF_PATH_LEN], spath[FALCON_RF_PATH_LEN];
	struct block_state bs;
	int poll;
	falcon_err_t rv;

	rv = paths_of(be, port, dev, bpath, spath);
	if (rv != FALCON_OK)
		return rv;
	for (poll = 0; ; poll++) {
		rv = block_read(be, bpath, spath, &bs);
		if (rv != FALCON_OK)
			return rv;
		if (strcmp(bs.state, "Composing") != 0 || poll + 1 >= COMP_POLLS)
			break;
		/* an asynchronous composition: look again, bounded */
		nanosleep(&(struct timespec){ .tv_sec = 0, .tv_nsec = COMP_POLL_NS }, NULL);
	}
	if (attached && !(bs.linked && composed(bs.state)))
		return falcon_err_set(FALCON_ERR_CHASSIS,
				      "read-back: block %s is %s into %s (CompositionState "
				      "%s)", bpath, bs.linked ? "linked" : "not composed", spath,
				      bs.state[0] ? bs.state : "not given");
	if (!attached && bs.linked)
		return falcon_err_set(FALCON_ERR_CHASSIS,
				      "read-back: block %s is still composed into %s "
				      "(CompositionState %s)", bpath, spath,
				      bs.state[0] ? bs.state : "not given");
	return FALCON_OK;
}

/* POST the system's AddResourceBlock / RemoveResourceBlock action. */
static falcon_err_t post_action(struct falcon_be *be, const char *spath, const char *bpath,
				bool add)
{
	char target[FALCON_RF_PATH_LEN];
	struct json_object *body = json_object_new_object();
	struct json_object *ref = json_object_new_object();
	falcon_err_t rv;

	if ((size_t)snprintf(target, sizeof(target), "%s/Actions/ComputerSystem.%s", spath,
			     add ? "AddResourceBlock" : "RemoveResourceBlock") >= sizeof(target)) {
		rv = falcon_err_set(FALCON_ERR_INVAL, "%s: action path too long", spath);
		goto fail;
	}
	if (body == NULL || ref == NULL ||
	    json_object_object_add(ref, "@odata.id", json_object_new_string(bpath)) != 0) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "POST %s: building the body", target);
		goto fail;
	}
	if (json_object_object_add(body, "ResourceBlock", ref) != 0) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "POST %s: building the body", target);
		goto fail;
	}
	ref = NULL;
	rv = falcon_be_send(be, "POST", target, body, NULL);
fail:
	json_object_put(ref);
	json_object_put(body);
	return rv;
}

/* Add or remove; *changed: the action was accepted. */
static falcon_err_t change(struct falcon_be *be, const char *port, const char *dev,
			   bool add, bool *changed)
{
	char bpath[FALCON_RF_PATH_LEN], spath[FALCON_RF_PATH_LEN];
	struct block_state bs;
	falcon_err_t rv;

	*changed = false;
	rv = paths_of(be, port, dev, bpath, spath);
	if (rv != FALCON_OK)
		return rv;
	rv = block_read(be, bpath, spath, &bs);
	if (rv != FALCON_OK)
		return rv;
	if (bs.linked == add) {
		falcon_verbose("block %s already %s %s", bpath, add ? "composed into" :
			       "not in", spath);
		return comp_verify(be, port, dev, add);
	}
	if (add && bs.others[0] != '\0' && !bs.sharing)
		return falcon_err_set(FALCON_ERR_CONFLICT,
				      "block %s is composed into %s and cannot be shared",
				      bpath, bs.others);
	rv = post_action(be, spath, bpath, add);
	if (rv != FALCON_OK)
		return rv;
	*changed = true;
	return comp_verify(be, port, dev, add);
}

/* An action that may have taken effect is undone: an error always means
 * "not composed". */
static falcon_err_t comp_attach(struct falcon_be *be, const char *port, const char *dev)
{
	static const struct falcon_be_change how = { .one = change };

	return falcon_be_attach_with_rollback(be, port, &dev, 1, &how,
					      "removed from the system again",
					      "the block is not in the system");
}

/* A set: one action per block, each block first read back free of the
 * system (one someone else composed into it is not taken over); a
 * failure takes away again the blocks this call composed. */
static falcon_err_t comp_attach_set(struct falcon_be *be, const char *port, const char **devs,
				    size_t n)
{
	static const struct falcon_be_change how = { .one = change, .fresh = true };

	return falcon_be_attach_with_rollback(be, port, devs, n, &how,
					      "removed from the system again",
					      "the blocks are not in the system");
}

static falcon_err_t comp_detach(struct falcon_be *be, const char *port, const char *dev)
{
	return falcon_be_detach(be, port, dev, change);
}

/* A set: one action per block, each tried (falcon_be_detach_each). */
static falcon_err_t comp_detach_set(struct falcon_be *be, const char *port, const char **devs,
				    size_t n)
{
	return falcon_be_detach_each(be, port, devs, n, change);
}

const struct falcon_be_ops falcon_be_composition = {
	.name = "redfish-composition",
	.inventory = comp_inventory,
	.attach = comp_attach,
	.detach = comp_detach,
	.verify = comp_verify,
	.attach_set = comp_attach_set,
	.detach_set = comp_detach_set,
};
