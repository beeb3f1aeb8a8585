/*
 * falcond_cmds.h - the subcommands that ask falcond (falcond_cmds.c, lib/api): status,
 * attach, detach, reconcile, quarantine, unquarantine.
 * Each subcommand takes its argv (argv[0] is the subcommand's name) and
 * returns an exit code of exitcode.h.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCONCTL_FALCOND_CMDS_H
#define FALCONCTL_FALCOND_CMDS_H

int falconctl_status(int argc, char **argv);
int falconctl_attach(int argc, char **argv);
int falconctl_detach(int argc, char **argv);
int falconctl_reconcile(int argc, char **argv);
int falconctl_quarantine(int argc, char **argv);
int falconctl_unquarantine(int argc, char **argv);

#endif /* FALCONCTL_FALCOND_CMDS_H */
