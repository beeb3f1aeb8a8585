/*
 * statuspage.h - falcond's read-only status page (statuspage.c): a second
 * libmicrohttpd daemon on falcon.conf's StatusListen= that answers GET /
 * (HTML: each chassis drawn as drawers and slots in inline SVG, a table of
 * every slot, the latest device history entries) and GET /events (Server-Sent Events, a fresh snapshot every
 * FALCOND_STATUSPAGE_PERIOD_S seconds), both built from
 * falcond_status_json() (status.h).  Every other method is 405, every other
 * path 404.  No credential is asked for or shown: bind it where only
 * operators reach it (it names every lease's job, user and node).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCOND_STATUSPAGE_H
#define FALCOND_STATUSPAGE_H

#include <stdbool.h>
#include <sys/socket.h>

#include <json-c/json.h>

#include "state.h"

struct MHD_Daemon;

#define FALCOND_STATUSPAGE_PERIOD_S 2   /* seconds between two /events snapshots */
#define FALCOND_STATUSPAGE_CONN_MAX 64u /* connections at once (a thread each) */
#define FALCOND_STATUSPAGE_HISTORY 10   /* device history entries shown */

/*
 * falcond_statuspage_start - listen on ss and serve the page of st (kept,
 * not owned: it must outlive falcond_statuspage_stop).  A thread per
 * connection, at most FALCOND_STATUSPAGE_CONN_MAX.  Until
 * falcond_statuspage_active() the page says this falcond is a standby and
 * names the active one.  NULL when it cannot listen (errno set).
 */
struct MHD_Daemon *falcond_statuspage_start(struct falcond_state *st,
					    const struct sockaddr_storage *ss);

/* falcond_statuspage_active - this falcond holds StateDir's lock and has
 * loaded its state: the page shows the chassis and leases. */
void falcond_statuspage_active(void);

/*
 * falcond_statuspage_html - the whole page (with_head: an HTML document;
 * false: the fragment /events pushes) from status, a falcond_status_json()
 * object (NULL: a standby's page) with, when it has one, a "history" array
 * ([{chassis, device, job_id, host, lease, when: ms since the epoch,
 * event}], newest first), every string escaped.  A new string, caller
 * frees; NULL when out of memory.
 */
char *falcond_statuspage_html(json_object *status, bool with_head);

/* falcond_statuspage_stop - end the /events streams (within 0.1 s), then
 * stop d (may be NULL). */
void falcond_statuspage_stop(struct MHD_Daemon *d);

#endif /* FALCOND_STATUSPAGE_H */
