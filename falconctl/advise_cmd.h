/*
 * advise_cmd.h - `falconctl advise` (advise_cmd.c): the topology to ask
 * for per workload, from the site's accounting (report_cmd.c's loader)
 * and what slurmctld and falcond say is free now; the rule is advise.c's.
 * Takes its argv (argv[0] is the subcommand's name) and returns an exit
 * code of exitcode.h.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCONCTL_ADVISE_CMD_H
#define FALCONCTL_ADVISE_CMD_H

int falconctl_advise(int argc, char **argv);

#endif /* FALCONCTL_ADVISE_CMD_H */
