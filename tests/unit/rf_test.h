/*
 * rf_test.h - what the unit tests of lib/chassis share: the Redfish paths
 * and bodies of the small trees they serve, and the in-process
 * libmicrohttpd chassis of rf_test_srv.c (test_rf_http, test_rf_fabric,
 * test_rf_composition).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_RF_TEST_H
#define FALCON_RF_TEST_H

#include <pthread.h>
#include <stdbool.h>

#include "chassis/chassis.h"
#include "core/conf.h"

/* a Redfish error body whose message is msg */
#define RF_ERR(msg) \
	"{\"error\":{\"code\":\"Base.1.8.GeneralError\",\"message\":\"See ExtendedInfo\"," \
	"\"@Message.ExtendedInfo\":[{\"MessageId\":\"Base.1.8.X\",\"Message\":\"" msg "\"}]}}"

#define FABRICS "/redfish/v1/Fabrics"
#define ZONES "/redfish/v1/Fabrics/PCIe/Zones"
#define EPS "/redfish/v1/Fabrics/PCIe/Endpoints"
#define BLOCKS "/redfish/v1/CompositionService/ResourceBlocks"
#define ONE_FABRIC "{\"Members\":[{\"@odata.id\":\"/redfish/v1/Fabrics/PCIe\"}]}"
#define FABRIC "{\"@odata.id\":\"/redfish/v1/Fabrics/PCIe\"}"
#define ZONE_COLL "{\"Members\":[{\"@odata.id\":\"" ZONES "/H1\"}]}"
#define ZONE_H1 "{\"@odata.id\":\"" ZONES "/H1\",\"Links\":{\"Endpoints\":[{\"@odata.id\":\"" \
	EPS "/drawer1_slot1\"}]}}"
#define EP_COLL "{\"Members\":[{\"@odata.id\":\"" EPS "/drawer1_slot1\"}]}"
#define EP_OK "{\"@odata.id\":\"" EPS "/drawer1_slot1\"}"
#define COMP_SVC "{\"ResourceBlocks\":{\"@odata.id\":\"" BLOCKS "\"}}"

/*
 * The server keeps one zone (H1, fabric PCIe) and one resource block
 * (drawer1_slot2, system H1) with real ETag/If-Match semantics, a session
 * service, and knobs that make it misbehave.  S is its state, under
 * S.lock while it runs.
 */
struct MHD_Daemon;
struct srv {
	pthread_mutex_t lock;
	struct MHD_Daemon *d;
	unsigned port;
	bool need_auth;
	int etag;                  /* zone version */
	char eps[8][128];          /* zone endpoints */
	int neps;
	bool block_linked;
	int force_412;             /* answer 412 this many times (another writer) */
	bool conflict;             /* PATCH -> 409 */
	int apply_then_500;        /* PATCH/POST applied, then 500, this many times */
	bool patch_204;            /* answer a PATCH 204 without the zone */
	int patches, posts, deletes_session, logins, zone_gets;
	char last_if_match[128], last_token[128], last_authz[128];
};
extern struct srv S;

/* srv_start - reset S and serve on a free loopback port; srv_stop. */
void srv_start(void);
void srv_stop(void);
/* srv_url - "http://127.0.0.1:PORT" (a static buffer). */
const char *srv_url(void);
/* cred_file - a 0600 credentials file holding text, in a fresh temporary
 * directory (a static buffer); cred_drop removes both (NULL: nothing). */
const char *cred_file(const char *text);
void cred_drop(const char *path);
/* open_chassis - the chassis client on the server (backend b, credentials
 * file cred, dropped once read; basic: HTTP basic auth), or fail the test. */
struct falcon_chassis *open_chassis(falcon_backend_t b, const char *cred, bool basic);

#endif /* FALCON_RF_TEST_H */
