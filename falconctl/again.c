/*
 * again.c - falconctl's one retry policy for its falcond requests
 * (again.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <unistd.h>

#include "again.h"
#include "api/falcond_client.h"
#include "core/log.h"
#include "core/util.h"

bool falconctl_again(const struct falcon_client *cl, falcon_err_t rv, const char *what,
		     long long deadline)
{
	long ra = rv == FALCON_OK ? -1 : falcon_client_retry_after(cl);

	if (ra < 0 || falcon_now_ms() + ra * 1000 >= deadline)
		return false;
	falcon_info("%s: %s, retrying in %ld s", what,
		    rv == FALCON_ERR_SERVER ? "503" : "no answer", ra);
	sleep((unsigned)ra);
	return true;
}
