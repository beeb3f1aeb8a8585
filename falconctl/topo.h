/*
 * topo.h - `falconctl topo` (topo.c): the PCIe topology of this host (lib/pci).
 * Each subcommand takes its argv (argv[0] is the subcommand's name) and
 * returns an exit code of exitcode.h.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCONCTL_TOPO_H
#define FALCONCTL_TOPO_H

int falconctl_topo(int argc, char **argv);

#endif /* FALCONCTL_TOPO_H */
