/*
 * again.h - falconctl's one retry policy (again.c): every falcond request
 * of a command within the command's budget.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCONCTL_AGAIN_H
#define FALCONCTL_AGAIN_H

#include <stdbool.h>

#include "core/falcon_err.h"

struct falcon_client;

/* A falconctl command's time for its falcond requests, retries included (s). */
#define FALCONCTL_BUDGET_S 60

/*
 * falconctl_again - falconctl's one retry policy, after a request on cl
 * that returned rv: when the answer said when to try again
 * (falcon_client_retry_after(): a 503 with Retry-After, a round of
 * FalcondUrl= without an answer) and that wait ends before deadline
 * (falcon_now_ms(), ms), logs "WHAT: 503, retrying in N s", sleeps it and
 * returns true (send the request again); else false (rv is the answer).
 */
bool falconctl_again(const struct falcon_client *cl, falcon_err_t rv, const char *what,
		     long long deadline);

#endif /* FALCONCTL_AGAIN_H */
