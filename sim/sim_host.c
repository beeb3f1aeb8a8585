/*
 * sim_host.c - the host side of falcon-sim (placeholder until lib/pcicfg
 * lands): staged devices are tracked, no sysfs tree is written yet.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include "log.h"
#include "sim_server.h"

falcon_err_t sim_host_start(struct sim_server *srv)
{
	(void)srv;
	falcon_warn("host side not built yet: no sysfs trees under %s", srv->sysfs_root);
	return FALCON_OK;
}

void sim_host_stop(struct sim_server *srv)
{
	(void)srv;
}

void sim_host_detached(struct sim_server *srv, int p, int d, int s)
{
	(void)srv;
	(void)p;
	(void)d;
	(void)s;
}
