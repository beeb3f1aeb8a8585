/*
 * falconctl_topo.c - `falconctl topo` (not built yet).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include "falconctl.h"
#include "lib/log.h"

int falconctl_topo(int argc, char **argv)
{
	falcon_error("topo: not implemented in this build");
	return FALCONCTL_EXIT_FAIL;
}
