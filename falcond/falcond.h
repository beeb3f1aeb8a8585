/*
 * falcond.h - falcond's HTTP front (falcond.c), as main.c starts and stops
 * it.  Routes and answers: doc/falcond.8.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCOND_FALCOND_H
#define FALCOND_FALCOND_H

#include <stdbool.h>
#include <sys/socket.h>

#include "state.h"

struct MHD_Daemon;

/*
 * falcond_http_start - listen on ss and serve st (kept, not owned: it must
 * outlive falcond_http_stop): libmicrohttpd's event loop (an internal
 * polling thread pool, epoll where the library has it, poll otherwise),
 * suspend/resume for the worker threads, the connection limits of
 * doc/falcond.8 (LIMITS; RLIMIT_NOFILE raised to its hard limit).  Until
 * falcond_http_active() every API request is answered 503 standby.  NULL
 * when it cannot listen (errno set).
 */
struct MHD_Daemon *falcond_http_start(struct falcond_state *st, const struct sockaddr_storage *ss);

/* falcond_http_active - this falcond is the active one: requests are
 * served; while reconciling, changes are answered 503 with Retry-After. */
void falcond_http_active(bool reconciling);

/* falcond_http_reconciled - the start-up reconcile ended: changes are served. */
void falcond_http_reconciled(void);

/*
 * falcond_http_stopping - the stop has begun (SIGTERM, SIGINT, the lock
 * lost): from now on every new compose is answered 503 with Retry-After
 * (doc/falcond.8, SIGNALS); composes already past that check run to their
 * end (their budget, the chassis' Timeout=).  Other requests are served
 * as before.  Idempotent; safe from any thread.
 */
void falcond_http_stopping(void);

/* falcond_http_stop - refuse new composes (falcond_http_stopping), wait
 * for the worker threads, then stop d (may be NULL). */
void falcond_http_stop(struct MHD_Daemon *d);

#endif /* FALCOND_FALCOND_H */
