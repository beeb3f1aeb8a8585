/*
 * falconctl.c - the admin/user CLI: dispatch to one function per subcommand.
 *
 * Exit codes (doc/falconctl.1): 0 success, 1 operation failed, 2 usage or
 * configuration error, 3 falcond or chassis unreachable, 4 permission denied.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "advise_cmd.h"
#include "exitcode.h"
#include "falcond_cmds.h"
#include "inventory.h"
#include "report_cmd.h"
#include "slurmconf.h"
#include "topo.h"
#include "core/log.h"
#include "core/util.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "topo",         falconctl_topo,         "PCIe topology of this host (libpci)" },
	{ "inventory",    falconctl_inventory,    "devices of a chassis and their owners" },
	{ "status",       falconctl_status,       "pool, leases and quarantine (falcond)" },
	{ "attach",       falconctl_attach,       "compose devices for a job (falcond)" },
	{ "detach",       falconctl_detach,       "decompose a job's or lease's devices (falcond)" },
	{ "reconcile",    falconctl_reconcile,    "reconcile ledger, chassis and Slurm now (falcond)" },
	{ "quarantine",   falconctl_quarantine,   "take a device out of service (falcond)" },
	{ "unquarantine", falconctl_unquarantine, "put a quarantined device back (falcond)" },
	{ "report",       falconctl_report,       "accounting per topology (slurmdbd, falcond)" },
	{ "advise",       falconctl_advise,       "the topology to ask for, per workload (slurmdbd, slurmctld, falcond)" },
	{ "slurm-conf",   falconctl_slurm_conf,   "slurm.conf/gres.conf/resources.yaml lines from falcon.conf" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: falconctl [--version] COMMAND [ARGS...]\n\ncommands:\n");
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-13s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n`falconctl COMMAND --help` for a command's options.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	falcon_log_init("falconctl");
	falcon_log_add_sink(falcon_log_sink_stderr, FALCON_LOG_INFO, NULL);
	if (argc < 2) {
		usage(stderr);
		return FALCONCTL_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return FALCONCTL_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("falconctl %s\n", PACKAGE_VERSION);
		return FALCONCTL_EXIT_OK;
	}
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	falcon_error("unknown command '%s' (try falconctl --help)", argv[1]);
	return FALCONCTL_EXIT_USAGE;
}
