/*
 * report_cmd.h - `falconctl report` (report_cmd.c): accounting per topology from
 * slurmdbd and falcond's history, computed by report.c.
 * Each subcommand takes its argv (argv[0] is the subcommand's name) and
 * returns an exit code of exitcode.h.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCONCTL_REPORT_CMD_H
#define FALCONCTL_REPORT_CMD_H

int falconctl_report(int argc, char **argv);

#endif /* FALCONCTL_REPORT_CMD_H */
