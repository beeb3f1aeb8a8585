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

#include "chassis/chassis.h"
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
 * falcon_be_members - the @odata.id paths of collection obj's Members
 * (validated: an array of objects with a path each, at most
 * FALCON_BE_MAX_MEMBERS; a path listed twice is returned once).  *paths is
 * a heap array of pointers into obj (free() only the array), *n their
 * count.  FALCON_ERR_PROTOCOL naming `what` when malformed.
 */
falcon_err_t falcon_be_members(struct json_object *obj, const char *what,
			       const char ***paths, size_t *n);

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
 * falcon_be_fail_with_rollback - after a failed change that was rolled back
 * (rb is the rollback's result, rb_what what it did): set the detail to
 * first_msg plus "; rolled back: RB_WHAT" or "; rollback failed: ..." and
 * return err.
 */
falcon_err_t falcon_be_fail_with_rollback(falcon_err_t err, const char *first_msg,
					  falcon_err_t rb, const char *rb_what);

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
