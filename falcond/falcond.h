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

struct falcond_http;

/*
 * falcond_http_start - listen on ss and serve st (kept, not owned: it must
 * outlive falcond_http_stop) into *out: lib/httpd's thread pool (epoll
 * where libmicrohttpd has it, poll otherwise), suspend/resume for the
 * worker threads, the connection limits and request deadlines of
 * doc/falcond.8 (LIMITS; RLIMIT_NOFILE raised to its hard limit).  Until
 * st->role.active (falcond_role_active, state.h) every API request is
 * answered 503 standby; while st->role.reconciling, changes are answered
 * 503 with Retry-After; once st->role.stopping, every new compose is (the
 * ones already past that check run to their end).  Errors of
 * falcon_httpd_start (FALCON_ERR_IO when it cannot listen, detail set).
 */
falcon_err_t falcond_http_start(struct falcond_state *st, const struct sockaddr_storage *ss,
				struct falcond_http **out);

/* falcond_http_stop - refuse new composes (falcond_role_stopping), wait
 * for the worker threads, then stop and free fh (NULL: nothing). */
void falcond_http_stop(struct falcond_http *fh);

#endif /* FALCOND_FALCOND_H */
