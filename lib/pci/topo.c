/*
 * topo.c - PCIe topology of a host with libpci (linux-sysfs method).
 *
 * The sysfs tree is checked before libpci sees it (entry names, the ID
 * files libpci's sysfs_scan() opens unconditionally), because libpci's
 * error callback must not return: a bad tree would otherwise end the
 * process.  The callback installed here longjmp()s back as a last resort.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <pci/pci.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pci/hotplug.h"
#include "pci/topo.h"
#include "core/util.h"

#define PATH_LEN 4096

/* ------------------------------------------------------------------ */
/* names */

const char *falcon_smi_class_str(falcon_smi_class_t c)
{
	static const char *const names[] = { "X", "PIX", "PXB", "PHB", "NODE", "SYS" };

	return (unsigned)c < ARRAY_SIZE(names) ? names[c] : "?";
}

const char *falcon_path_class_str(falcon_path_class_t c)
{
	static const char *const names[] = { "L-L", "F-L", "F-F" };

	return (unsigned)c < ARRAY_SIZE(names) ? names[c] : "?";
}

const char *falcon_loc_str(falcon_loc_t l)
{
	return l == FALCON_LOC_FALCON ? "falcon" : "local";
}

/* Table III labels (the same words as falcon_conf_topo_label_str() of conf.c,
 * kept here so that the topology needs no configuration code). */
static const char *label_str(unsigned label)
{
	switch (label) {
	case FALCON_CONF_TOPO_LOCALGPUS:  return "localGPUs";
	case FALCON_CONF_TOPO_HYBRIDGPUS: return "hybridGPUs";
	case FALCON_CONF_TOPO_FALCONGPUS: return "falconGPUs";
	case FALCON_CONF_TOPO_LOCALNVME:  return "localNVMe";
	case FALCON_CONF_TOPO_FALCONNVME: return "falconNVMe";
	}
	return NULL;
}


/* ------------------------------------------------------------------ */
/* link judgement */

void falcon_link_judge(const struct falcon_pcicfg_info *dev,
		       const struct falcon_pcicfg_info *port,
		       falcon_dev_kind_t kind, struct falcon_link *link)
{
	unsigned cap_s, cap_w;
	bool low_power;

	memset(link, 0, sizeof(*link));
	if (dev == NULL || dev->pcie_offset == 0)
		return;
	link->known = true;
	cap_s = dev->max_speed;
	cap_w = dev->max_width;
	if (port != NULL && port->pcie_offset != 0) {
		if (port->max_speed != 0 && port->max_speed < cap_s)
			cap_s = port->max_speed;
		if (port->max_width != 0 && port->max_width < cap_w)
			cap_w = port->max_width;
	}
	link->speed_gts = falcon_pcie_speed_gts(dev->cur_speed);
	link->width = dev->cur_width;
	link->max_speed_gts = falcon_pcie_speed_gts(cap_s);
	link->max_width = (int)cap_w;
	/* PMCSR PowerState other than D0, PCI PM 1.2 sec 3.2.4 */
	low_power = dev->pm_offset != 0 && dev->power_state != 0;
	if (dev->cur_width == 0 || dev->cur_speed == 0) {
		/* link down (or not reported) */
		link->degraded = !low_power;
		link->idle = low_power;
	} else if (dev->cur_width < cap_w) {
		link->degraded = !low_power;
		link->idle = low_power;
	} else if (dev->cur_speed < cap_s) {
		if (low_power || (kind == FALCON_PCI_GPU && dev->cur_speed == 1))
			link->idle = true;
		else
			link->degraded = true;
	}
}

/* ------------------------------------------------------------------ */
/* libpci with a callback that never returns into libpci */

static __thread jmp_buf *pci_jmp;
static __thread char pci_errbuf[512];

static void pci_error_cb(char *msg, ...)
	__attribute__((format(printf, 1, 2), noreturn));

static void pci_error_cb(char *msg, ...)
{
	va_list ap;

	va_start(ap, msg);
	vsnprintf(pci_errbuf, sizeof(pci_errbuf), msg, ap);
	va_end(ap);
	if (pci_jmp != NULL)
		longjmp(*pci_jmp, 1);
	abort();
}

static void pci_quiet_cb(char *msg, ...)
	__attribute__((format(printf, 1, 2)));

static void pci_quiet_cb(char *msg, ...)
{
	(void)msg;
}

/* ------------------------------------------------------------------ */
/* sysfs checks */

static falcon_err_t read_id_file(const char *dir, const char *name, long max, long *out)
{
	char path[PATH_LEN];
	char *buf = NULL;
	size_t len = 0;
	falcon_err_t rv;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path)) {
		rv = falcon_err_set(FALCON_ERR_INVAL, "path too long: %s/%s", dir, name);
		goto fail;
	}
	rv = falcon_read_file(path, 64, &buf, &len);
	if (rv != FALCON_OK) {
		rv = falcon_err_prefix(FALCON_ERR_PARSE, "%s", path);
		goto fail;
	}
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	if (falcon_strtol(buf, 0, 0, max, out) != FALCON_OK) {
		rv = falcon_err_set(FALCON_ERR_PARSE, "%s: '%s' is not a hex number "
				    "(0x...) up to 0x%lx", path, buf, max);
		goto fail;
	}
	rv = FALCON_OK;
fail:
	free(buf);
	return rv;
}

/* Check the entries of PATH/devices: each a BDF directory with readable
 * vendor, device and class (what libpci's sysfs_scan() insists on) and a
 * readable config file; count them. */
static falcon_err_t check_tree(const char *path, size_t *count)
{
	char dirname[PATH_LEN], devdir[PATH_LEN], bdf[FALCON_BDF_LEN];
	DIR *dir = NULL;
	struct dirent *e;
	falcon_err_t rv;
	long v;
	size_t n = 0;

	if ((size_t)snprintf(dirname, sizeof(dirname), "%s/devices", path) >= sizeof(dirname)) {
		rv = falcon_err_set(FALCON_ERR_INVAL, "path too long: %s", path);
		goto fail;
	}
	dir = opendir(dirname);
	if (dir == NULL) {
		rv = falcon_err_set(errno == ENOENT ? FALCON_ERR_NOTFOUND : FALCON_ERR_IO,
				    "%s: %s", dirname, strerror(errno));
		goto fail;
	}
	while ((e = readdir(dir)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		/* the kernel's spelling: 4 hex digits of domain, 5 for a
		 * VMD domain (0x10000 and up) */
		if (falcon_bdf_normalise(e->d_name, bdf) != FALCON_OK ||
		    strcmp(bdf, e->d_name) != 0) {
			rv = falcon_err_set(FALCON_ERR_PARSE, "%s/%s: expected a device named "
					    "DDDD:BB:DD.F", dirname, e->d_name);
			goto fail;
		}
		if ((size_t)snprintf(devdir, sizeof(devdir), "%s/%s", dirname, e->d_name) >=
		    sizeof(devdir)) {
			rv = falcon_err_set(FALCON_ERR_INVAL, "path too long: %s", dirname);
			goto fail;
		}
		if ((rv = read_id_file(devdir, "vendor", 0xffff, &v)) != FALCON_OK ||
		    (rv = read_id_file(devdir, "device", 0xffff, &v)) != FALCON_OK ||
		    (rv = read_id_file(devdir, "class", 0xffffff, &v)) != FALCON_OK)
			goto fail;
		n++;
	}
	*count = n;
	rv = FALCON_OK;
fail:
	if (dir != NULL)
		closedir(dir);
	return rv;
}

/* Read the config space of d (its sysfs file's size, at most 4096 bytes)
 * through libpci and parse it into info. */
static falcon_err_t read_config(struct pci_dev *d, const char *path, const char *bdf,
				struct falcon_pcicfg_info *info, bool *all_ones)
{
	char cfgpath[PATH_LEN];
	uint8_t buf[FALCON_PCICFG_SIZE];
	struct stat st;
	falcon_err_t rv;
	size_t len;

	if ((size_t)snprintf(cfgpath, sizeof(cfgpath), "%s/devices/%s/config", path, bdf) >=
	    sizeof(cfgpath)) {
		rv = falcon_err_set(FALCON_ERR_INVAL, "path too long: %s", path);
		goto fail;
	}
	errno = 0;
	if (stat(cfgpath, &st) != 0 || !S_ISREG(st.st_mode) || access(cfgpath, R_OK) != 0) {
		rv = falcon_err_set(FALCON_ERR_PCI, "%s: no readable config space (%s)",
				    cfgpath, errno ? strerror(errno) : "not a file");
		goto fail;
	}
	len = st.st_size > FALCON_PCICFG_SIZE ? FALCON_PCICFG_SIZE : (size_t)st.st_size;
	memset(buf, 0, sizeof(buf));
	if (len > 0 && !pci_read_block(d, 0, buf, (int)len)) {
		if (len > FALCON_PCICFG_HEADER && pci_read_block(d, 0, buf, FALCON_PCICFG_HEADER))
			rv = falcon_err_set(FALCON_ERR_PERM, "%s: only part of the %zu bytes "
					    "of config space are readable (unprivileged "
					    "user on a real sysfs: run as root)", cfgpath, len);
		else
			rv = falcon_err_set(FALCON_ERR_PCI, "%s: cannot read %zu bytes",
					    cfgpath, len);
		goto fail;
	}
	*all_ones = false;
	if (len >= 4 && buf[0] == 0xff && buf[1] == 0xff && buf[2] == 0xff && buf[3] == 0xff) {
		/* nothing answers at this BDF any more: kept, marked, judged
		 * by the caller (a device elsewhere on the bus must not stop
		 * every job) */
		memset(info, 0, sizeof(*info));
		*all_ones = true;
		rv = FALCON_OK;
		goto fail;
	}
	rv = falcon_pcicfg_parse(buf, len, info);
	if (rv != FALCON_OK) {
		rv = falcon_err_prefix(rv, "%s", cfgpath);
		goto fail;
	}
	rv = FALCON_OK;
fail:
	return rv;
}

static int cmp_dev(const void *pa, const void *pb)
{
	const struct falcon_pci_dev *a = pa, *b = pb;

	if (a->domain != b->domain)
		return a->domain < b->domain ? -1 : 1;
	if (a->bus != b->bus)
		return a->bus < b->bus ? -1 : 1;
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	return a->func < b->func ? -1 : a->func > b->func;
}

/* Enumerate with libpci into t->devs (room for max entries). */
static falcon_err_t libpci_read(const char *path, struct falcon_topo *t, size_t max)
{
	struct pci_access *volatile pacc = NULL;
	jmp_buf jb;
	struct pci_dev *d;
	falcon_err_t rv;

	if (setjmp(jb) != 0) {
		pci_jmp = NULL;
		rv = falcon_err_set(FALCON_ERR_PCI, "libpci (sysfs.path %s): %s", path,
				    pci_errbuf);
		goto fail;
	}
	pci_jmp = &jb;
	pacc = pci_alloc();
	pacc->error = pci_error_cb;
	pacc->warning = pci_quiet_cb;
	pacc->debug = pci_quiet_cb;
	pacc->method = PCI_ACCESS_SYS_BUS_PCI;
	pci_set_param(pacc, "sysfs.path", (char *)path);
	pci_init(pacc);
	pci_scan_bus(pacc);
	for (d = pacc->devices; d != NULL; d = d->next) {
		struct falcon_pci_dev *x;

		if (t->ndevs >= max) {
			rv = falcon_err_set(FALCON_ERR_PCI, "%s/devices changed during the "
					    "scan (more than %zu devices)", path, max);
			goto fail;
		}
		x = &t->devs[t->ndevs];
		memset(x, 0, sizeof(*x));
		pci_fill_info(d, PCI_FILL_IDENT | PCI_FILL_CLASS | PCI_FILL_NUMA_NODE |
				 PCI_FILL_PHYS_SLOT);
		x->domain = (unsigned)d->domain;
		x->bus = d->bus;
		x->dev = d->dev;
		x->func = d->func;
		snprintf(x->bdf, sizeof(x->bdf), "%04x:%02x:%02x.%u", x->domain & 0xfffff,
			 x->bus & 0xff, x->dev & 0x1f, x->func & 7);
		x->vendor_id = d->vendor_id;
		x->device_id = d->device_id;
		x->numa_node = d->numa_node;
		rv = read_config(d, path, x->bdf, &x->cfg, &x->all_ones);
		if (rv != FALCON_OK)
			goto fail;
		/* class from sysfs (kernel fix-ups), prog-if from config */
		x->class_code = ((uint32_t)d->device_class << 8) | (x->cfg.class_code & 0xff);
		x->parent = -1;
		x->adapter = -1;
		x->slot = -1;
		if (d->phy_slot != NULL) {
			long n;

			falcon_strlcpy(x->slot_name, d->phy_slot, sizeof(x->slot_name));
			/* Linux names a duplicate "N-M" (drivers/pci/slot.c
			 * make_slot_name); a name that is not a slot number (a
			 * platform's own) leaves the slot unknown */
			if (falcon_strtol_n(d->phy_slot, strcspn(d->phy_slot, "-"), 10, 0, 0x1fff,
					    &n) == FALCON_OK)
				x->slot = (int)n;
			else
				falcon_err_clear();
		}
		t->ndevs++;
	}
	rv = FALCON_OK;
fail:
	pci_jmp = NULL;
	if (pacc != NULL)
		pci_cleanup(pacc);
	return rv;
}

static bool is_bridge(const struct falcon_pci_dev *x)
{
	return x->cfg.header_type == 1 &&
	       !(x->cfg.secondary_bus == 0 && x->cfg.subordinate_bus == 0);
}

/* Check bridge bus ranges and link every device to the bridge above it. */
static falcon_err_t build_tree(struct falcon_topo *t)
{
	falcon_err_t rv;
	size_t i, j;

	for (i = 0; i < t->ndevs; i++) {
		const struct falcon_pci_dev *a = &t->devs[i];

		if (!is_bridge(a))
			continue;
		if (a->cfg.secondary_bus <= a->bus ||
		    a->cfg.subordinate_bus < a->cfg.secondary_bus) {
			rv = falcon_err_set(FALCON_ERR_PARSE, "bridge %s: bus range [%02x-%02x] "
					    "not above its own bus %02x", a->bdf,
					    a->cfg.secondary_bus, a->cfg.subordinate_bus, a->bus);
			goto fail;
		}
		for (j = i + 1; j < t->ndevs; j++) {
			const struct falcon_pci_dev *b = &t->devs[j], *in, *out;

			if (!is_bridge(b) || b->domain != a->domain ||
			    b->cfg.secondary_bus > a->cfg.subordinate_bus ||
			    a->cfg.secondary_bus > b->cfg.subordinate_bus)
				continue;
			/* intersecting: one must hold the other, strictly */
			if (a->cfg.secondary_bus <= b->cfg.secondary_bus &&
			    b->cfg.subordinate_bus <= a->cfg.subordinate_bus) {
				out = a;
				in = b;
			} else {
				out = b;
				in = a;
			}
			if (!(out->cfg.secondary_bus <= in->bus &&
			      in->bus <= out->cfg.subordinate_bus &&
			      out->cfg.secondary_bus <= in->cfg.secondary_bus &&
			      in->cfg.subordinate_bus <= out->cfg.subordinate_bus)) {
				rv = falcon_err_set(FALCON_ERR_PARSE, "bridges %s [%02x-%02x] and "
						    "%s [%02x-%02x] have overlapping bus ranges",
						    a->bdf, a->cfg.secondary_bus,
						    a->cfg.subordinate_bus, b->bdf,
						    b->cfg.secondary_bus, b->cfg.subordinate_bus);
				goto fail;
			}
		}
	}
	/* parent: the innermost bridge whose range holds the device's bus */
	for (i = 0; i < t->ndevs; i++) {
		struct falcon_pci_dev *x = &t->devs[i];
		unsigned best = 0x100;

		for (j = 0; j < t->ndevs; j++) {
			const struct falcon_pci_dev *b = &t->devs[j];
			unsigned span;

			if (j == i || !is_bridge(b) || b->domain != x->domain ||
			    x->bus < b->cfg.secondary_bus || x->bus > b->cfg.subordinate_bus)
				continue;
			span = (unsigned)(b->cfg.subordinate_bus - b->cfg.secondary_bus);
			if (span < best) {
				best = span;
				x->parent = (int)j;
			}
		}
	}
	/* root bus and NUMA node; chains are finite because every parent's
	 * range strictly holds its child's bus, but bound the walk anyway */
	for (i = 0; i < t->ndevs; i++) {
		struct falcon_pci_dev *x = &t->devs[i];
		int p = (int)i;
		size_t steps = 0;

		while (t->devs[p].parent >= 0 && steps++ < t->ndevs) {
			p = t->devs[p].parent;
			if (x->numa_node < 0)
				x->numa_node = t->devs[p].numa_node;
		}
		x->root_bus = (t->devs[p].domain << 8) | t->devs[p].bus;
	}
	rv = FALCON_OK;
fail:
	return rv;
}

static falcon_dev_kind_t kind_of(const struct falcon_pci_dev *x)
{
	if ((x->class_code >> 16) == 0x03 &&
	    (x->vendor_id == 0x10de || x->vendor_id == 0x1002 || x->vendor_id == 0x8086))
		return FALCON_PCI_GPU;
	if (x->class_code == FALCON_CLASS_NVME)
		return FALCON_PCI_NVME;
	if (x->cfg.header_type == 1)
		return FALCON_PCI_BRIDGE;
	return FALCON_PCI_OTHER;
}

static falcon_err_t classify(struct falcon_topo *t, const char adapters[][FALCON_BDF_LEN],
			     size_t nadapters)
{
	int aidx[FALCON_MAX_PORTS];
	falcon_err_t rv;
	bool anyl = false, anyf = false, nvl = false, nvf = false;
	size_t i, k;

	for (k = 0; k < nadapters; k++) {
		aidx[k] = -1;
		for (i = 0; i < t->ndevs; i++)
			if (!strcmp(t->devs[i].bdf, adapters[k]))
				aidx[k] = (int)i;
		if (aidx[k] < 0)
			falcon_strlcpy(t->missing[t->nmissing++], adapters[k], FALCON_BDF_LEN);
	}
	t->gpus = calloc(t->ndevs + 1, sizeof(int));
	t->nvme = calloc(t->ndevs + 1, sizeof(int));
	if (t->gpus == NULL || t->nvme == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "topology of %zu devices", t->ndevs);
		goto fail;
	}
	for (i = 0; i < t->ndevs; i++) {
		struct falcon_pci_dev *x = &t->devs[i];
		const struct falcon_pcicfg_info *port = NULL;
		int p = x->parent;
		size_t steps = 0;

		x->kind = kind_of(x);
		while (p >= 0 && steps++ < t->ndevs && x->adapter < 0) {
			for (k = 0; k < nadapters; k++)
				if (aidx[k] == p)
					x->adapter = (int)k;
			p = t->devs[p].parent;
		}
		x->location = x->adapter >= 0 ? FALCON_LOC_FALCON : FALCON_LOC_LOCAL;
		if (x->parent >= 0)
			port = &t->devs[x->parent].cfg;
		/* no slots/ entry: the slot of the port above, from its config */
		if (x->slot < 0 && port != NULL && port->slot && port->pcie_offset != 0 &&
		    (port->port_type == FALCON_PCIE_ROOT_PORT ||
		     port->port_type == FALCON_PCIE_DOWNSTREAM))
			x->slot = port->slot_number;
		falcon_link_judge(&x->cfg, port, x->kind, &x->link);
		if (x->kind == FALCON_PCI_GPU) {
			t->gpus[t->ngpus++] = (int)i;
			if (x->location == FALCON_LOC_FALCON)
				anyf = true;
			else
				anyl = true;
		} else if (x->kind == FALCON_PCI_NVME) {
			t->nvme[t->nnvme++] = (int)i;
			if (x->location == FALCON_LOC_FALCON)
				nvf = true;
			else
				nvl = true;
		}
	}
	/* Table III: localGPUs / hybridGPUs / falconGPUs; storage falconNVMe
	 * when a Falcon NVMe is there, else localNVMe */
	t->gpu_label = anyl && anyf ? FALCON_CONF_TOPO_HYBRIDGPUS :
		       anyf ? FALCON_CONF_TOPO_FALCONGPUS :
		       anyl ? FALCON_CONF_TOPO_LOCALGPUS : 0;
	t->storage_label = nvf ? FALCON_CONF_TOPO_FALCONNVME :
			   nvl ? FALCON_CONF_TOPO_LOCALNVME : 0;
	rv = FALCON_OK;
fail:
	return rv;
}

falcon_err_t falcon_topo_scan(const char *root, const char *const *adapters,
			      size_t nadapters, struct falcon_topo **out)
{
	char path[PATH_LEN];
	char norm[FALCON_MAX_PORTS][FALCON_BDF_LEN];
	struct falcon_topo *t = NULL;
	struct stat st;
	falcon_err_t rv;
	size_t n = 0, k;

	*out = NULL;
	if (root == NULL || *root == '\0')
		root = "/sys";
	if (nadapters > FALCON_MAX_PORTS) {
		rv = falcon_err_set(FALCON_ERR_INVAL, "%zu adapters: at most %d",
				    nadapters, FALCON_MAX_PORTS);
		goto fail;
	}
	for (k = 0; k < nadapters; k++) {
		rv = falcon_bdf_normalise(adapters[k], norm[k]);
		if (rv != FALCON_OK) {
			rv = falcon_err_prefix(rv, "adapter");
			goto fail;
		}
	}
	errno = 0;
	if (stat(root, &st) != 0 || !S_ISDIR(st.st_mode)) {
		rv = falcon_err_set(FALCON_ERR_NOTFOUND, "sysfs root %s: %s", root,
				    errno ? strerror(errno) : "not a directory");
		goto fail;
	}
	/* ROOT plays /sys; a ROOT that holds devices/ but no bus/ is a bus/pci
	 * itself (a real /sys has devices/ too) */
	if (falcon_hp_busdir(root, path, sizeof(path) - 64) == NULL) {
		rv = falcon_err_set(FALCON_ERR_INVAL, "sysfs root too long: %s", root);
		goto fail;
	}
	errno = 0;
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
		rv = falcon_err_set(FALCON_ERR_NOTFOUND, "sysfs root %s: no bus/pci directory "
				    "(%s)", root, errno ? strerror(errno) : "not a directory");
		goto fail;
	}
	rv = check_tree(path, &n);
	if (rv != FALCON_OK)
		goto fail;
	t = calloc(1, sizeof(*t));
	if (t == NULL || (t->devs = calloc(n + 1, sizeof(*t->devs))) == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "topology of %zu devices", n);
		goto fail;
	}
	rv = libpci_read(path, t, n);
	if (rv != FALCON_OK)
		goto fail;
	qsort(t->devs, t->ndevs, sizeof(*t->devs), cmp_dev);
	rv = build_tree(t);
	if (rv != FALCON_OK)
		goto fail;
	rv = classify(t, (const char (*)[FALCON_BDF_LEN])norm, nadapters);
	if (rv != FALCON_OK)
		goto fail;
	*out = t;
	t = NULL;
	rv = FALCON_OK;
fail:
	falcon_topo_free(t);
	return rv;
}

falcon_err_t falcon_topo_scan_host(const char *root, const struct falcon_host_conf *host,
				   struct falcon_topo **out)
{
	const char *list[FALCON_MAX_PORTS];
	size_t n = 0;

	if (host != NULL)
		for (n = 0; n < (size_t)host->nadapters && n < FALCON_MAX_PORTS; n++)
			list[n] = host->adapters[n];
	return falcon_topo_scan(root, list, n, out);
}

void falcon_topo_free(struct falcon_topo *topo)
{
	if (topo == NULL)
		return;
	free(topo->devs);
	free(topo->gpus);
	free(topo->nvme);
	free(topo);
}

const struct falcon_pci_dev *falcon_topo_find(const struct falcon_topo *topo,
					      const char *bdf)
{
	char norm[FALCON_BDF_LEN];
	size_t i;

	if (topo == NULL || falcon_bdf_normalise(bdf, norm) != FALCON_OK)
		return NULL;
	for (i = 0; i < topo->ndevs; i++)
		if (!strcmp(topo->devs[i].bdf, norm))
			return &topo->devs[i];
	return NULL;
}

/* The unit a bridge counts as on a path: a switch downstream port counts
 * as its switch (the upstream port above it). */
static int path_unit(const struct falcon_topo *t, int b)
{
	const struct falcon_pci_dev *x = &t->devs[b];

	if (x->cfg.pcie_offset != 0 && x->cfg.port_type == FALCON_PCIE_DOWNSTREAM &&
	    x->parent >= 0 && t->devs[x->parent].cfg.pcie_offset != 0 &&
	    t->devs[x->parent].cfg.port_type == FALCON_PCIE_UPSTREAM)
		return x->parent;
	return b;
}

falcon_err_t falcon_topo_pair(const struct falcon_topo *topo, size_t a, size_t b,
			      falcon_smi_class_t *smi, falcon_path_class_t *paper)
{
	const struct falcon_pci_dev *da, *db;
	falcon_smi_class_t s;
	int common = -1, p, q, units[2 * 256], nunits = 0, u, k;
	size_t steps;

	if (topo == NULL || a >= topo->ndevs || b >= topo->ndevs)
		return falcon_err_set(FALCON_ERR_INVAL, "device index %zu/%zu out of range",
				      a, b);
	da = &topo->devs[a];
	db = &topo->devs[b];
	if (paper != NULL)
		*paper = da->location == FALCON_LOC_FALCON ?
			 (db->location == FALCON_LOC_FALCON ? FALCON_PATH_FF : FALCON_PATH_FL) :
			 (db->location == FALCON_LOC_FALCON ? FALCON_PATH_FL : FALCON_PATH_LL);
	if (a == b) {
		s = FALCON_SMI_X;
		goto done;
	}
	/* lowest common bridge */
	for (p = da->parent, steps = 0; p >= 0 && common < 0 && steps < topo->ndevs;
	     p = topo->devs[p].parent, steps++)
		for (q = db->parent, k = 0; q >= 0 && (size_t)k < topo->ndevs;
		     q = topo->devs[q].parent, k++)
			if (q == p) {
				common = p;
				break;
			}
	if (common < 0) {
		if (da->root_bus == db->root_bus)
			s = FALCON_SMI_PHB;
		else if (da->numa_node < 0 || db->numa_node < 0 ||
			 da->numa_node == db->numa_node)
			s = FALCON_SMI_NODE;
		else
			s = FALCON_SMI_SYS;
		goto done;
	}
	/* distinct switches/bridges on the path a -> common -> b */
	for (k = 0; k < 2; k++) {
		for (p = (k == 0 ? da : db)->parent, steps = 0;
		     p >= 0 && steps < topo->ndevs && nunits < (int)ARRAY_SIZE(units);
		     p = topo->devs[p].parent, steps++) {
			int m;

			u = path_unit(topo, p);
			for (m = 0; m < nunits && units[m] != u; m++)
				;
			if (m == nunits)
				units[nunits++] = u;
			if (p == common)
				break;
		}
	}
	s = nunits <= 1 ? FALCON_SMI_PIX : FALCON_SMI_PXB;
done:
	if (smi != NULL)
		*smi = s;
	return FALCON_OK;
}

static const char *kind_word(falcon_dev_kind_t k)
{
	switch (k) {
	case FALCON_PCI_GPU:    return "GPU";
	case FALCON_PCI_NVME:   return "NVMe";
	case FALCON_PCI_BRIDGE: return "bridge";
	default:                return "other device";
	}
}

int falcon_topo_identify(const struct falcon_topo *topo, int adapter, const char *adapter_bdf,
			 int slot, falcon_dev_kind_t kind, uint16_t vendor, uint16_t device,
			 char *why, size_t whylen)
{
	char where[64], found[160] = "";
	size_t i, in_slot = 0, off = 0;
	int hit = -1, nhit = 0;

	if (adapter_bdf != NULL)
		snprintf(where, sizeof(where), "slot %d below %s", slot, adapter_bdf);
	else
		snprintf(where, sizeof(where), "slot %d below adapter %d", slot, adapter);
	for (i = 0; adapter >= 0 && slot >= 0 && i < topo->ndevs; i++) {
		const struct falcon_pci_dev *x = &topo->devs[i];

		if (x->adapter != adapter || x->slot != slot)
			continue;
		in_slot++;
		if (off + 24 < sizeof(found))
			off += (size_t)snprintf(found + off, sizeof(found) - off, "%s%s %04x:%04x",
						off ? ", " : "", x->bdf, x->vendor_id,
						x->device_id);
		if (x->kind != kind || (vendor != 0 && x->vendor_id != vendor) ||
		    (device != 0 && x->device_id != device))
			continue;
		if (nhit++ == 0)
			hit = (int)i;
	}
	if (nhit == 1)
		return hit;
	if (why != NULL && whylen > 0) {
		char ids[16] = "";

		if (vendor != 0 || device != 0)
			snprintf(ids, sizeof(ids), " %04x:%04x", vendor, device);
		if (in_slot == 0)
			snprintf(why, whylen, "%s: empty", where);
		else
			snprintf(why, whylen, "%s holds %s, expected %s%s%s", where, found,
				 nhit > 1 ? "only one " : "", kind_word(kind), ids);
	}
	return in_slot == 0 ? FALCON_TOPO_SLOT_EMPTY : FALCON_TOPO_SLOT_MISMATCH;
}

/* ------------------------------------------------------------------ */
/* JSON */

static json_object *dev_json(const struct falcon_pci_dev *x)
{
	json_object *o = json_object_new_object(), *l = json_object_new_object();
	char id[8];

	if (o == NULL || l == NULL) {
		json_object_put(o);
		json_object_put(l);
		return NULL;
	}
	json_object_object_add(o, "bdf", json_object_new_string(x->bdf));
	snprintf(id, sizeof(id), "%04x", x->vendor_id);
	json_object_object_add(o, "vendor_id", json_object_new_string(id));
	snprintf(id, sizeof(id), "%04x", x->device_id);
	json_object_object_add(o, "device_id", json_object_new_string(id));
	json_object_object_add(o, "location", json_object_new_string(falcon_loc_str(x->location)));
	json_object_object_add(l, "speed_gts", json_object_new_double(x->link.speed_gts));
	json_object_object_add(l, "width", json_object_new_int(x->link.width));
	json_object_object_add(l, "max_speed_gts", json_object_new_double(x->link.max_speed_gts));
	json_object_object_add(l, "max_width", json_object_new_int(x->link.max_width));
	json_object_object_add(l, "degraded", json_object_new_boolean(x->link.degraded));
	json_object_object_add(o, "link", l);
	return o;
}

falcon_err_t falcon_topo_to_json(const struct falcon_topo *topo, json_object **out)
{
	json_object *root = NULL, *gpus, *nvme, *matrix;
	const char *s;
	falcon_err_t rv;
	size_t i, j;

	*out = NULL;
	root = json_object_new_object();
	if (root == NULL)
		goto nomem;
	s = label_str(topo->gpu_label);
	json_object_object_add(root, "topology", s ? json_object_new_string(s) : NULL);
	s = label_str(topo->storage_label);
	json_object_object_add(root, "storage", s ? json_object_new_string(s) : NULL);
	gpus = json_object_new_array();
	nvme = json_object_new_array();
	matrix = json_object_new_array();
	json_object_object_add(root, "gpus", gpus);
	json_object_object_add(root, "nvme", nvme);
	json_object_object_add(root, "matrix", matrix);
	if (gpus == NULL || nvme == NULL || matrix == NULL)
		goto nomem;
	for (i = 0; i < topo->ngpus; i++) {
		json_object *o = dev_json(&topo->devs[topo->gpus[i]]);

		if (o == NULL || json_object_array_add(gpus, o) != 0)
			goto nomem;
	}
	for (i = 0; i < topo->nnvme; i++) {
		json_object *o = dev_json(&topo->devs[topo->nvme[i]]);

		if (o == NULL || json_object_array_add(nvme, o) != 0)
			goto nomem;
	}
	for (i = 0; i < topo->ngpus; i++) {
		json_object *row = json_object_new_array();

		if (row == NULL || json_object_array_add(matrix, row) != 0)
			goto nomem;
		for (j = 0; j < topo->ngpus; j++) {
			falcon_smi_class_t smi;
			falcon_path_class_t paper;
			char cell[16];

			falcon_topo_pair(topo, (size_t)topo->gpus[i], (size_t)topo->gpus[j],
					 &smi, &paper);
			if (i == j)
				snprintf(cell, sizeof(cell), "X");
			else
				snprintf(cell, sizeof(cell), "%s %s", falcon_path_class_str(paper),
					 falcon_smi_class_str(smi));
			if (json_object_array_add(row, json_object_new_string(cell)) != 0)
				goto nomem;
		}
	}
	*out = root;
	root = NULL;
	rv = FALCON_OK;
	goto done;
nomem:
	rv = falcon_err_set(FALCON_ERR_NOMEM, "topology JSON");
done:
	json_object_put(root);
	return rv;
}
