/*
 * topo.c - `falconctl topo`: this host's PCIe topology (libpci):
 * GPUs and NVMe drives, local or Falcon, their links, the GPU path matrix
 * (paper class + nvidia-smi class) and the Table III label.
 *
 *   falconctl topo [--sysfs-root DIR] [--config FILE] [--host NAME]
 *                  [--adapter BDF]... [--json]
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <getopt.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "topo.h"
#include "exitcode.h"
#include "core/conf.h"
#include "core/log.h"
#include "pci/topo.h"
#include "core/util.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: falconctl topo [--sysfs-root DIR] [--config FILE] [--host NAME]\n"
		"                      [--adapter BDF]... [--json]\n"
		"  --sysfs-root DIR  directory playing /sys (default: SysfsRoot of\n"
		"                    falcon.conf, else /sys)\n"
		"  --config FILE     falcon.conf (default $FALCON_CONF, else the installed one)\n"
		"  --host NAME       the HostName= line to use (default: short hostname)\n"
		"  --adapter BDF     Falcon host adapter (repeatable; replaces Adapter=)\n"
		"  --json            one JSON object (see falconctl(1))\n");
}

static void short_hostname(char *buf, size_t n)
{
	if (gethostname(buf, n) != 0)
		falcon_strlcpy(buf, "localhost", n);
	buf[n - 1] = '\0';
	buf[strcspn(buf, ".")] = '\0';
}

static void print_link(const struct falcon_link *l)
{
	if (!l->known) {
		printf("n/a (no PCI Express capability)");
		return;
	}
	printf("%gGT/s x%d (max %gGT/s x%d)%s", l->speed_gts, l->width, l->max_speed_gts,
	       l->max_width, l->degraded ? " DEGRADED" : l->idle ? " idle" : "");
}

static void print_table(const struct falcon_topo *t)
{
	size_t i, j;
	int degraded = 0;

	if (t->ngpus > 0) {
		printf("%-6s", "");
		for (j = 0; j < t->ngpus; j++)
			printf(" GPU%-6zu", j);
		printf(" %-13s %-3s %s\n", "BDF", "Loc", "Link");
	}
	for (i = 0; i < t->ngpus; i++) {
		const struct falcon_pci_dev *g = &t->devs[t->gpus[i]];

		printf("GPU%-3zu", i);
		for (j = 0; j < t->ngpus; j++) {
			falcon_smi_class_t smi;
			falcon_path_class_t paper;
			char cell[16];

			falcon_topo_pair(t, (size_t)t->gpus[i], (size_t)t->gpus[j], &smi, &paper);
			if (i == j)
				snprintf(cell, sizeof(cell), " X");
			else
				snprintf(cell, sizeof(cell), "%s %s", falcon_path_class_str(paper),
					 falcon_smi_class_str(smi));
			printf(" %-9s", cell);
		}
		printf(" %-13s %-3s ", g->bdf, g->location == FALCON_LOC_FALCON ? "F" : "L");
		print_link(&g->link);
		printf("\n");
		degraded += g->link.degraded;
	}
	for (i = 0; i < t->nnvme; i++) {
		const struct falcon_pci_dev *d = &t->devs[t->nvme[i]];

		printf("NVMe%-2zu %s %s %04x:%04x ", i, d->bdf,
		       d->location == FALCON_LOC_FALCON ? "F" : "L", d->vendor_id, d->device_id);
		print_link(&d->link);
		printf("\n");
		degraded += d->link.degraded;
	}
	printf("\nTopology: %s  Storage: %s  GPUs: %zu  NVMe: %zu  Degraded links: %d\n",
	       t->gpu_label ? falcon_conf_topo_label_str(t->gpu_label) : "none",
	       t->storage_label ? falcon_conf_topo_label_str(t->storage_label) : "none",
	       t->ngpus, t->nnvme, degraded);
	printf("\nLegend:\n"
	       "  X    = Self\n"
	       "  L-L  = both GPUs local; F-L = one in the Falcon chassis; F-F = both\n"
	       "  SYS  = PCIe plus the SMP interconnect between NUMA nodes\n"
	       "  NODE = PCIe plus the interconnect between host bridges of a NUMA node\n"
	       "  PHB  = PCIe through a host bridge\n"
	       "  PXB  = several PCIe switches/bridges, no host bridge\n"
	       "  PIX  = at most one PCIe switch/bridge\n"
	       "  (NVLink is not visible from PCI: L-L pairs show their PCIe path)\n"
	       "  Loc L = local, F = Falcon; Link = LnkSta (max = min of both ends' LnkCap);\n"
	       "  idle = a GPU at 2.5GT/s or a device out of D0 (power saving, not a fault)\n");
}

int falconctl_topo(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sysfs-root", required_argument, NULL, 'r' },
		{ "config", required_argument, NULL, 'c' },
		{ "host", required_argument, NULL, 'H' },
		{ "adapter", required_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sysfs_root = NULL, *config = NULL, *host = NULL;
	const char *adapters[FALCON_MAX_PORTS];
	size_t nadapters = 0, i;
	bool json = false;
	char hostbuf[FALCON_NAME_LEN], rootbuf[4096];
	struct falcon_conf *conf = NULL;
	struct falcon_topo *topo = NULL;
	json_object *jo = NULL;
	const char *path;
	struct stat st;
	falcon_err_t err;
	int c, rv = FALCONCTL_EXIT_FAIL;

	optind = 1;
	while ((c = getopt_long(argc, argv, "r:c:H:a:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'r': sysfs_root = optarg; break;
		case 'c': config = optarg; break;
		case 'H': host = optarg; break;
		case 'a':
			if (nadapters >= FALCON_MAX_PORTS) {
				falcon_error("topo: at most %d --adapter", FALCON_MAX_PORTS);
				rv = FALCONCTL_EXIT_USAGE;
				goto out;
			}
			adapters[nadapters++] = optarg;
			break;
		case 'j': json = true; break;
		case 'h': usage(stdout); rv = FALCONCTL_EXIT_OK; goto out;
		default: usage(stderr); rv = FALCONCTL_EXIT_USAGE; goto out;
		}
	}
	if (optind < argc) {
		falcon_error("topo: unexpected argument '%s'", argv[optind]);
		rv = FALCONCTL_EXIT_USAGE;
		goto out;
	}
	if (host == NULL) {
		short_hostname(hostbuf, sizeof(hostbuf));
		host = hostbuf;
	}
	/* falcon.conf: required when named, optional otherwise */
	path = falcon_conf_path(config);
	if (config != NULL || stat(path, &st) == 0) {
		err = falcon_conf_load(path, &conf);
		if (err != FALCON_OK) {
			falcon_error("topo: %s", falcon_errmsg());
			rv = FALCONCTL_EXIT_USAGE;
			goto out;
		}
	}
	if (conf != NULL && nadapters == 0) {
		const struct falcon_host_conf *h = falcon_conf_host(conf, host);

		if (h != NULL) {
			for (i = 0; i < (size_t)h->nadapters && i < FALCON_MAX_PORTS; i++)
				adapters[nadapters++] = h->adapters[i];
		} else {
			falcon_warn("topo: no HostName=%s in %s: every device counts as local",
				    host, path);
		}
	}
	if (sysfs_root == NULL && conf != NULL && conf->sysfs_root != NULL) {
		sysfs_root = falcon_conf_sysfs_root(conf, host, rootbuf, sizeof(rootbuf));
		if (sysfs_root == NULL) {
			falcon_error("topo: SysfsRoot of %s too long", path);
			rv = FALCONCTL_EXIT_USAGE;
			goto out;
		}
	}
	err = falcon_topo_scan(sysfs_root, adapters, nadapters, &topo);
	if (err != FALCON_OK) {
		falcon_error("topo: %s: %s", falcon_strerror(err), falcon_errmsg());
		rv = err == FALCON_ERR_INVAL ? FALCONCTL_EXIT_USAGE :
		     err == FALCON_ERR_PERM ? FALCONCTL_EXIT_PERM : FALCONCTL_EXIT_FAIL;
		goto out;
	}
	for (i = 0; i < topo->nmissing; i++)
		falcon_warn("topo: Falcon host adapter %s is not on the PCI bus", topo->missing[i]);
	if (json) {
		err = falcon_topo_to_json(topo, &jo);
		if (err != FALCON_OK) {
			falcon_error("topo: %s", falcon_errmsg());
			goto out;
		}
		printf("%s\n", json_object_to_json_string_ext(jo, JSON_C_TO_STRING_PRETTY |
							      JSON_C_TO_STRING_NOSLASHESCAPE));
	} else {
		print_table(topo);
	}
	rv = FALCONCTL_EXIT_OK;
out:
	json_object_put(jo);
	falcon_topo_free(topo);
	falcon_conf_free(conf);
	return rv;
}
