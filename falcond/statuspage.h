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

struct falcon_httpd;

#define FALCOND_STATUSPAGE_PERIOD_S 2   /* seconds between two /events snapshots */
#define FALCOND_STATUSPAGE_CONN_MAX 64u /* connections at once (a thread each) */
#define FALCOND_STATUSPAGE_HISTORY 10   /* device history entries shown */

/*
 * falcond_statuspage_start - listen on ss and serve the page of st (kept,
 * not owned: it must outlive the server) into *out (lib/httpd; stopped and
 * freed by falcon_httpd_stop).  A thread per connection, at most
 * FALCOND_STATUSPAGE_CONN_MAX, a quarter of those per address.  Until
 * st->role.active the page says this falcond is a standby and names the
 * active one; once st->role.stopping the /events streams end (within
 * 0.1 s).  Errors of falcon_httpd_start (FALCON_ERR_IO when it cannot
 * listen).
 */
falcon_err_t falcond_statuspage_start(struct falcond_state *st, const struct sockaddr_storage *ss,
				      struct falcon_httpd **out);

/*
 * falcond_statuspage_html - the whole page (with_head: an HTML document;
 * false: the fragment /events pushes) from status, a falcond_status_json()
 * object (NULL: a standby's page) with, when it has one, a "history" array
 * ([{chassis, device, job_id, host, lease, when: ms since the epoch,
 * event}], newest first), every string escaped.  A new string, caller
 * frees; NULL when out of memory.
 */
char *falcond_statuspage_html(json_object *status, bool with_head);

#endif /* FALCOND_STATUSPAGE_H */
