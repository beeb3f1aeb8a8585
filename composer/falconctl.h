/*
 * falconctl.h - subcommands of falconctl, one file each.  Each takes the
 * subcommand's argv (argv[0] is the subcommand name) and returns an exit code.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCONCTL_H
#define FALCONCTL_H

#include <stdbool.h>

#include "core/falcon_err.h"

struct falcon_client;

enum {
	FALCONCTL_EXIT_OK = 0,
	FALCONCTL_EXIT_FAIL = 1,        /* the operation failed */
	FALCONCTL_EXIT_USAGE = 2,       /* bad arguments or configuration */
	FALCONCTL_EXIT_UNREACHABLE = 3, /* falcond or the chassis did not answer */
	FALCONCTL_EXIT_PERM = 4,        /* authentication or permission refused */
};

int falconctl_topo(int argc, char **argv);          /* falconctl_topo.c */
int falconctl_inventory(int argc, char **argv);     /* falconctl_inventory.c */
int falconctl_status(int argc, char **argv);        /* falconctl_falcond.c */
int falconctl_attach(int argc, char **argv);        /* falconctl_falcond.c */
int falconctl_detach(int argc, char **argv);        /* falconctl_falcond.c */
int falconctl_reconcile(int argc, char **argv);     /* falconctl_falcond.c */
int falconctl_quarantine(int argc, char **argv);    /* falconctl_falcond.c */
int falconctl_unquarantine(int argc, char **argv);  /* falconctl_falcond.c */
int falconctl_report(int argc, char **argv);        /* falconctl_report.c */

/* A falconctl command's time for its falcond requests, retries included (s). */
#define FALCONCTL_BUDGET_S 60
/*
 * falconctl_again - falconctl's one retry policy (falconctl_falcond.c),
 * after a request on cl that returned rv: when the answer said when to try
 * again (falcon_client_retry_after(): a 503 with Retry-After, a round of
 * FalcondUrl= without an answer) and that wait ends before deadline
 * (falcon_now_ms()), logs "WHAT: 503, retrying in N s", sleeps it and
 * returns true (send the request again); else false (rv is the answer).
 */
bool falconctl_again(const struct falcon_client *cl, falcon_err_t rv, const char *what,
		     long long deadline);

#endif /* FALCONCTL_H */
