/*
 * falconctl_falcond.c - the falconctl subcommands that talk to falcond
 * (not built yet).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include "falconctl.h"
#include "lib/log.h"

static int not_yet(const char *what)
{
	falcon_error("%s: falcond is not part of this build yet", what);
	return FALCONCTL_EXIT_FAIL;
}

int falconctl_status(int argc, char **argv) { return not_yet(argv[0]); }
int falconctl_attach(int argc, char **argv) { return not_yet(argv[0]); }
int falconctl_detach(int argc, char **argv) { return not_yet(argv[0]); }
int falconctl_reconcile(int argc, char **argv) { return not_yet(argv[0]); }
int falconctl_quarantine(int argc, char **argv) { return not_yet(argv[0]); }
int falconctl_unquarantine(int argc, char **argv) { return not_yet(argv[0]); }
