/*
 * chassis_common.h - the layer below both Redfish backends and the front
 * end (private to libfalcon, its tests and its fuzzer).  The backends
 * (rf_fabric.c, rf_composition.c) and the front end (chassis.c) call these;
 * they call only lib/chassis/redfish.h and lib/core, never up.
 *
 *   - chassis_common.c: budgeted requests, collection members and link
 *     lists, ids, owners, the inventory array (falcon_inventory_add/free of
 *     lib/chassis/chassis.h), the outcome of a change;
 *   - chassis_describe.c: describing a device from the resources that
 *     Redfish links to it.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_CHASSIS_COMMON_H
#define FALCON_CHASSIS_COMMON_H

#include <stdbool.h>
#include <stddef.h>

#include "chassis/chassis_types.h"
#include "chassis/chassis_backend.h"
#include "chassis/redfish.h"

/* ---- requests and collections (chassis_common.c) ---- */

/*
 * falcon_be_get - one budgeted GET (see falcon_rf_get_fn): one fetch of
 * be->budget; FALCON_ERR_PROTOCOL when the budget is spent (the service's
 * resources do not end).  *out is the caller's (json_object_put()).
 */
falcon_err_t falcon_be_get(struct falcon_be *be, const char *path,
			   struct json_object **out, char *etag, size_t etag_len);

/* falcon_be_send - one budgeted change (see falcon_rf_send_fn);
 * FALCON_ERR_UNSUPPORTED when be is read-only (no send callback). */
falcon_err_t falcon_be_send(struct falcon_be *be, const char *method, const char *path,
			    struct json_object *body, const char *if_match);

/*
 * falcon_be_send_resp - one budgeted change whose answer is kept (see
 * falcon_rf_send_resp_fn): *out gets the answer's body (NULL when none;
 * the caller's), etag (may be NULL) its ETag.  When be has no send_resp
 * callback (a client that reads back with a GET) the change is sent as
 * falcon_be_send() and *out is NULL.
 */
falcon_err_t falcon_be_send_resp(struct falcon_be *be, const char *method, const char *path,
				 struct json_object *body, const char *if_match,
				 struct json_object **out, char *etag, size_t etag_len);

/*
 * falcon_be_get_member - one budgeted GET of the resource at path (a
 * collection member) and its @odata.id: *id points into *out (the
 * caller's).  FALCON_ERR_PROTOCOL naming path when it has no valid
 * @odata.id; on any error *out and *id are NULL.
 */
falcon_err_t falcon_be_get_member(struct falcon_be *be, const char *path,
				  struct json_object **out, const char **id);

/*
 * falcon_be_members - the @odata.id paths of collection obj's Members
 * (validated: an array of objects with a path each, at most
 * FALCON_BE_MAX_MEMBERS; a path listed twice is returned once).  *paths is
 * a heap array of pointers into obj (free() only the array), *n their
 * count.  FALCON_ERR_PROTOCOL naming `what` when malformed.
 */
falcon_err_t falcon_be_members(struct json_object *obj, const char *what,
			       const char ***paths, size_t *n);

/*
 * falcon_be_get_collection - one budgeted GET of the collection at path
 * into *coll (the caller's) and its members' paths as falcon_be_members()
 * (naming path): *paths points into *coll (free() only the array).  On
 * error *coll, *paths are NULL and *n is 0.
 */
falcon_err_t falcon_be_get_collection(struct falcon_be *be, const char *path,
				      struct json_object **coll, const char ***paths,
				      size_t *n);

/*
 * falcon_be_link_list - the paths of obj[key] (an array of {"@odata.id"}),
 * or of obj["Links"][key] when links is true, as falcon_be_members().  An
 * absent key gives n = 0; a wrong type is FALCON_ERR_PROTOCOL.
 */
falcon_err_t falcon_be_link_list(struct json_object *obj, const char *key, bool links,
				 const char *what, const char ***paths, size_t *n);

/* falcon_be_id_ok - a port/device id usable in a path: [A-Za-z0-9_.-]{1,63}. */
bool falcon_be_id_ok(const char *id);

/* falcon_be_add_owner - append owner (a port/system id) to dev->owner,
 * comma-separated; silently keeps what fits. */
void falcon_be_add_owner(struct falcon_device *dev, const char *owner);

/* ---- the outcome of a change (chassis_common.c) ---- */

/*
 * falcon_be_change_fn - a backend's change of one device: give dev to port
 * (add) or take it away (!add), then read it back.  *changed: the service
 * accepted a change request (a failure after that may have taken effect).
 * Errors as falcon_chassis_attach() / falcon_chassis_detach().
 */
typedef falcon_err_t (*falcon_be_change_fn)(struct falcon_be *be, const char *port,
					    const char *dev, bool add, bool *changed);

/*
 * falcon_be_set_change_fn - a backend's change of devs[n] in one request,
 * as falcon_be_change_fn: all given to port (add) or all taken away.
 */
typedef falcon_err_t (*falcon_be_set_change_fn)(struct falcon_be *be, const char *port,
						const char **devs, size_t n, bool add,
						bool *changed);

/* How a backend changes several devices: in one request (set), or one
 * request per device (one; with fresh, each is first read back free of
 * the port: one someone else already gave it is FALCON_ERR_CONFLICT, not
 * taken over). */
struct falcon_be_change {
	falcon_be_set_change_fn set;
	falcon_be_change_fn one;
	bool fresh;
};

/*
 * falcon_be_attach_with_rollback - the one all-or-nothing attach of
 * lib/chassis: devs[n] (1 <= n <= FALCON_CHASSIS_SET_MAX) given to port
 * as how says.  When that fails, whatever this call may have attached is
 * taken away again on a fresh budget (the rollback), so that an error
 * always means "none of them attached by this call": a failed request with
 * no definite answer (not falcon_be_err_definite(): a timeout, a dropped
 * connection, a failed read-back) may have taken effect and is undone with
 * the devices accepted before it; a definite refusal undoes only those.
 * The detail is then the attach's with "; rolled back: UNDONE" (the
 * rollback took a device away) or "; rolled back: ABSENT" (nothing was
 * there), or "; rollback failed, state unknown: ..." with the rollback's
 * detail.  Returns FALCON_OK or the attach's error.
 */
falcon_err_t falcon_be_attach_with_rollback(struct falcon_be *be, const char *port,
					    const char **devs, size_t n,
					    const struct falcon_be_change *how,
					    const char *undone, const char *absent);

/* falcon_be_detach - detach dev from port with change(!add); the result as
 * falcon_be_detach_result(). */
falcon_err_t falcon_be_detach(struct falcon_be *be, const char *port, const char *dev,
			      falcon_be_change_fn change);

/*
 * falcon_be_detach_each - a set's detach for a backend that takes devices
 * back one request each (redfish-composition: one RemoveResourceBlock
 * action per block): falcon_be_detach() of every one of devs[n], each on a
 * fresh fetch budget and each tried whatever the others did, so that one
 * stuck device does not keep the rest attached.  Returns FALCON_OK, or the
 * first error with its detail (the later ones are lost: the caller
 * detaches one by one to learn which failed, falcond's detach.c).
 */
falcon_err_t falcon_be_detach_each(struct falcon_be *be, const char *port, const char **devs,
				   size_t n, falcon_be_change_fn change);

/*
 * falcon_be_err_definite - true for the errors after which the chassis is
 * known not to have applied a change (4xx-class answers: INVAL, NOTFOUND,
 * CONFLICT, AUTH, PERM, UNSUPPORTED, PRECONDITION); any other failure of an
 * attach may have taken effect and is rolled back.
 */
bool falcon_be_err_definite(falcon_err_t rv);

/*
 * falcon_be_detach_result - the result of a detach given the change's rv:
 * FALCON_ERR_CONFLICT becomes FALCON_ERR_CHASSIS "detach refused: <detail>"
 * (taking a device away conflicts with nothing: the chassis refused, e.g. the
 * host still uses it); anything else is returned unchanged.
 */
falcon_err_t falcon_be_detach_result(falcon_err_t rv);

/* ---- descriptions kept between inventories (struct falcon_be_desc) ---- */

/*
 * falcon_be_desc_use - the kept description of the collection member at
 * path, or NULL when it must be read: none kept, keeping is off, or it is
 * older than be->desc_max_age_ms and this inventory may still re-read one
 * (be->desc_refresh_left, taken).  The pointer is valid until the next
 * falcon_be_desc_put/_prune/_forget.
 */
const struct falcon_be_desc *falcon_be_desc_use(struct falcon_be *be, const char *path);

/*
 * falcon_be_desc_put - keep dev (its owners dropped) or, with host true, the
 * fact that path is a host port, as read now; replaces an entry of the
 * same path.  Nothing when keeping is off.  FALCON_ERR_NOMEM (the entry is
 * then simply not kept: the next inventory reads it again).
 */
falcon_err_t falcon_be_desc_put(struct falcon_be *be, const char *path, bool host,
				const struct falcon_device *dev);

/* falcon_be_desc_prune - drop the entries whose path is not one of
 * paths[0..n) (the resource left the collection). */
void falcon_be_desc_prune(struct falcon_be *be, const char *const *paths, size_t n);

/* falcon_be_desc_forget - drop the entries of device id dev_id (an
 * endpoint's last path segment), or all of them with dev_id NULL. */
void falcon_be_desc_forget(struct falcon_be *be, const char *dev_id);

/* ---- describing a device (chassis_describe.c) ---- */

/*
 * falcon_be_describe - fill dev's id (last path segment), odata_id, drawer
 * and slot ("drawer<D>_slot<S>"), state and health (obj's Status), chassis
 * (from a /redfish/v1/Chassis/<id> path or Links.Chassis) from the
 * resource obj at path.
 */
void falcon_be_describe(struct falcon_be *be, struct falcon_device *dev,
			const char *path, struct json_object *obj);

/*
 * falcon_be_enrich - follow each of paths[0..n) (a Processor, Drive,
 * Storage, PCIeDevice, PCIeFunction, NetworkAdapter, CXLLogicalDevice or a
 * collection of them; NULL entries skipped), at most 3 hops and 10 fetches
 * per device, each resource once, and fill what dev lacks: type (GPU:
 * ProcessorType GPU or PCI class 03h; NVMe: Protocol NVMe or PCI class
 * 0108h; NIC: network resources or PCI class 02h), vendor/device id,
 * serial, model, manufacturer, chassis, state, health.  A linked resource
 * that is absent (404) is skipped; other errors are returned.
 */
falcon_err_t falcon_be_enrich(struct falcon_be *be, struct falcon_device *dev,
			      const char *const *paths, size_t n);

/* falcon_be_pci_ids - take VendorId/DeviceId/ClassCode of obj (a
 * PCIeFunction or an Endpoint's PciId) into dev. */
void falcon_be_pci_ids(struct falcon_device *dev, struct json_object *obj);

#endif /* FALCON_CHASSIS_COMMON_H */
