/*
 * inventory.h - `falconctl inventory` (inventory.c): a chassis' devices and owners
 * (lib/chassis).
 * Each subcommand takes its argv (argv[0] is the subcommand's name) and
 * returns an exit code of exitcode.h.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCONCTL_INVENTORY_H
#define FALCONCTL_INVENTORY_H

int falconctl_inventory(int argc, char **argv);

#endif /* FALCONCTL_INVENTORY_H */
