/*
 * events.h - falcond's chassis event listeners: one thread per
 * chassis follows its Redfish EventService's SSE stream
 * (falcon_chassis_listen, lib/chassis) and acts on what it says
 * (doc/falcond.8, EVENTS):
 *   - a device whose health goes Critical (ResourceEvent
 *     ResourceStatusChangedCritical) is quarantined with the event as
 *     reason (falcond_quarantine), recorded in the device history
 *     (StateDir/history.jsonl), and the job holding it is told: a
 *     "falcon-event=..." note appended to its AdminComment
 *     (slurm_update_job) and a log line; the node is not drained;
 *   - a device that leaves the fabric (ResourceRemoved) is marked Absent in
 *     the inventory cache (placement skips it) and recorded;
 *   - Warning and OK are recorded; a quarantined device stays so until an
 *     admin clears it (falconctl unquarantine).
 * A dropped stream is reopened with backoff (1 s doubling to 30 s).
 *
 * Where the chassis has no SSE stream (Events=auto) or falcon.conf says
 * Events=subscription, the listener thread subscribes instead (DSP0266
 * 1.20 sec. 13.5.3; falcon_chassis_subscribe: Destination
 * EventUrl/redfish-events/NAME, a Context of its own, a random secret of
 * FALCOND_EVENTS_SECRET_BYTES sent back by the chassis as "Authorization:
 * Bearer <hex>" through HttpHeaders), checks every FALCOND_EVENTS_CHECK_S
 * that the subscription is still there (a 404 or another Context: the
 * chassis restarted; it subscribes again with a new secret) and deletes it
 * when stopping.  One receiver (lib/httpd on EventListen=, HTTPS with
 * EventCertFile=, TLS 1.2 or later; apart from falcond.c's API) takes the
 * POSTs, one at a time on one thread: one without
 * the current secret of the chassis its path names is answered 401 and
 * logged; the rest is handled as the SSE events are.
 * Above quarantine.c, desc.c and history.c; called by main.c only.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCOND_EVENTS_H
#define FALCOND_EVENTS_H

#include "state.h"

#define FALCOND_EVENTS_BACKOFF_MAX_S 30 /* longest wait before reconnecting */
#define FALCOND_EVENTS_CHECK_S 10       /* a subscription is checked this often */
#define FALCOND_EVENTS_SECRET_BYTES 32  /* random bytes of a subscription's secret */
#define FALCOND_EVENTS_PATH "/redfish-events/" /* + chassis name: the Destination */
#define FALCOND_EVENTS_MAX_BODY (1 << 20)      /* bytes of one POSTed event */

/*
 * falcond_events_start - a listener thread per chassis of st (st stays the
 * caller's and must outlive falcond_events_stop()), and the receiver when
 * st->conf has EventListen= (a receiver that will not start is logged and
 * its chassis' subscriptions are not made).  Each thread opens its own
 * chassis client (a client is not thread-safe) with the chassis'
 * credentials.  FALCON_ERR_NOMEM, FALCON_ERR_INVAL when already started.
 */
falcon_err_t falcond_events_start(struct falcond_state *st);

/*
 * falcond_events_stop - stop and join every listener: a stream in progress
 * ends within about a second (libcurl's progress callback polls the stop
 * flag), a wait before reconnecting at once; a subscription is deleted
 * (one request, the chassis' Timeout= at most), then the receiver stops.
 * A no-op when not started.
 */
void falcond_events_stop(void);

#endif /* FALCOND_EVENTS_H */
