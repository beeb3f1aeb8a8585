/*
 * falconctl_inventory.c - `falconctl inventory` (not built yet).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include "falconctl.h"
#include "lib/log.h"

int falconctl_inventory(int argc, char **argv)
{
	falcon_error("inventory: not implemented in this build");
	return FALCONCTL_EXIT_FAIL;
}
