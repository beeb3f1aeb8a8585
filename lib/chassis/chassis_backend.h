/*
 * chassis_backend.h - the backend interface behind lib/chassis/chassis.h (private to
 * libfalcon, its tests and its fuzzer).
 *
 * A backend reaches the service only through two callbacks (get, send), so
 * the same parsing runs over HTTP (struct falcon_rf), over a DMTF mockup
 * directory on disk (falcon_rf_dir_get) and over fuzzer input.  Each public
 * operation gets a budget of fetches so that a hostile or looping service
 * cannot make it run unbounded.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_CHASSIS_BACKEND_H
#define FALCON_CHASSIS_BACKEND_H

#include <stdbool.h>

#include "chassis/chassis.h"
#include "chassis/redfish.h"

#define FALCON_BE_MAX_FETCHES 20000 /* default GETs per public operation */
#define FALCON_BE_MAX_MEMBERS 4096  /* members of one collection we accept */
#define FALCON_BE_RETRIES 5         /* default re-reads after a 412 */

struct falcon_be;

/*
 * A zone as this client last read or wrote it, with an ETag: the next
 * change PATCHes from it with If-Match instead of reading the zone first; a
 * 412 (someone else changed the zone) drops it and the zone is read again.
 * Only zones with an ETag are kept (without If-Match a stale copy could
 * undo another writer's change).
 */
#define FALCON_BE_ZCACHE 8
struct falcon_be_zone {
	char path[FALCON_RF_PATH_LEN];   /* "" = unused */
	char etag[FALCON_RF_ETAG_LEN];
	struct json_object *obj;         /* the zone (owned) */
	const char **eps;                /* its Links.Endpoints, into obj */
	size_t neps;
};

/* falcon_be_zcache_clear - forget every cached zone (frees them). */
void falcon_be_zcache_clear(struct falcon_be *be);

struct falcon_be_ops {
	const char *name; /* "redfish-fabric", "redfish-composition" */
	falcon_err_t (*inventory)(struct falcon_be *be, struct falcon_inventory *inv);
	falcon_err_t (*attach)(struct falcon_be *be, const char *port, const char *dev);
	falcon_err_t (*detach)(struct falcon_be *be, const char *port, const char *dev);
	/* read back: FALCON_OK when dev is (attached) / is not (!attached)
	 * given to port, FALCON_ERR_CHASSIS with what was found otherwise */
	falcon_err_t (*verify)(struct falcon_be *be, const char *port, const char *dev,
			       bool attached);
};

extern const struct falcon_be_ops falcon_be_fabric;      /* rf_fabric.c */
extern const struct falcon_be_ops falcon_be_composition; /* rf_composition.c */

struct falcon_be {
	const struct falcon_be_ops *ops;
	falcon_rf_get_fn get;
	falcon_rf_send_fn send;          /* NULL: read-only (a mockup directory) */
	/* a change whose answer is read (NULL: every change is read back
	 * with a GET); set for HTTP clients */
	falcon_rf_send_resp_fn send_resp;
	void *ctx;
	int retries;                     /* re-reads after 412 */
	long budget;                     /* fetches left in this operation */
	long max_fetches;                /* budget given to each operation */
	char chassis[FALCON_NAME_LEN];   /* default falcon_device.chassis */
	/* redfish-fabric: the fabric and its collections; "" = discover */
	char fabric[FALCON_RF_PATH_LEN];
	char zones[FALCON_RF_PATH_LEN];
	char endpoints[FALCON_RF_PATH_LEN];
	/* redfish-composition */
	char blocks[FALCON_RF_PATH_LEN];
	char systems[FALCON_RF_PATH_LEN];
	/* redfish-fabric: the zones as last seen by this client (rf_fabric.c) */
	struct falcon_be_zone zcache[FALCON_BE_ZCACHE];
};

/*
 * falcon_chassis_open_io - a chassis client over explicit callbacks (unit
 * tests: falcon_rf_dir_get over a mockup; the fuzzer: its own input).
 * fabric may be NULL (discover from /redfish/v1/Fabrics).  send may be NULL
 * for read-only use (attach/detach then fail with FALCON_ERR_UNSUPPORTED).
 * max_fetches 0 = FALCON_BE_MAX_FETCHES.  Free with falcon_chassis_close().
 */
falcon_err_t falcon_chassis_open_io(falcon_backend_t backend, falcon_rf_get_fn get,
				    falcon_rf_send_fn send, void *ctx,
				    const char *fabric, long max_fetches,
				    struct falcon_chassis **out);

/* ---- helpers shared by the backends (chassis.c) ---- */

/* be_get - one budgeted GET (see falcon_rf_get_fn). */
falcon_err_t falcon_be_get(struct falcon_be *be, const char *path,
			   struct json_object **out, char *etag, size_t etag_len);

/* be_send - one change; FALCON_ERR_UNSUPPORTED when read-only. */
falcon_err_t falcon_be_send(struct falcon_be *be, const char *method, const char *path,
			    struct json_object *body, const char *if_match);

/*
 * falcon_be_members - the @odata.id paths of collection obj's Members
 * (validated: an array of objects with a path each, at most
 * FALCON_BE_MAX_MEMBERS; a path listed twice is returned once).  *paths is a heap array of pointers into obj
 * (free() only the array), *n their count.  FALCON_ERR_PROTOCOL naming
 * `what` when malformed.
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

/* falcon_be_add_owner - append owner (a port/system id) to dev->owner,
 * comma-separated; silently keeps what fits. */
void falcon_be_add_owner(struct falcon_device *dev, const char *owner);

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

#endif /* FALCON_CHASSIS_BACKEND_H */
