/*
 * sim_host.c - the host side of falcon-sim: for each host cabled to a host
 * port, a sysfs-shaped tree ROOT/<host>/bus/pci/{devices/,rescan} that
 * libpci's linux-sysfs method reads exactly as it reads /sys.
 *
 * At start a host's tree holds its local devices and, per host port, the
 * Falcon adapter (the drawer switch's upstream port, at the configured
 * BDF) with the switch's 8 downstream ports (slot S at device S-1 of bus
 * `first`, secondary bus first+S), each carrying its slot: Slot
 * Implemented with the Physical Slot Number falcon_pcicfg_phys_slot() in
 * SltCap, and ROOT/<host>/bus/pci/slots/<N>/address naming the bus below
 * it, as pciehp shows a slot in /sys/bus/pci/slots.  Config spaces come
 * from lib/pcicfg.
 * An attached device is staged by the Redfish side; a write of "1" to
 * rescan (seen with inotify, IN_CLOSE_WRITE) makes staged devices appear
 * behind their slot's downstream port with the trained link; a write of
 * "1" to devices/<BDF>/remove removes that device (a bridge: with what lies
 * below it); a later rescan brings back whatever is still attached, as
 * Linux does.  The rescan and remove files are recreated empty after each
 * write so they stay writable.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/log.h"
#include "pci/pcicfg.h"
#include "sim_server.h"
#include "core/util.h"

/* Broadcom PEX88096 (PCIe Gen4 switch of the Falcon 4016 drawers), pci.ids 1000:c010. */
#define SWITCH_VENDOR 0x1000
#define SWITCH_DEVICE 0xc010
#define MAX_WATCH 1024
/* Minors the sim hands out per host (the driver's own limit is higher:
 * NV_MINOR_DEVICE_NUMBER_REGULAR_MAX in kernel-open/nvidia). */
#define SIM_MAX_MINOR 64
#define NVIDIA_MAJOR 195        /* /dev/nvidiaN: char major 195 (devices.txt) */

struct watch {
	int wd;
	int host;               /* index into cfg.hosts */
	char bdf[SIM_BDF_LEN];  /* "" = the bus/pci directory (rescan) */
};

struct sim_host_state {
	int ifd;
	int stop_pipe[2];
	pthread_t thread;
	bool thread_started;
	int nwatch;
	struct watch watch[MAX_WATCH];
	bool local_removed[SIM_PORTS][SIM_MAX_LOCAL];
	bool adapter_removed[SIM_PORTS];
	bool dsp_removed[SIM_PORTS][SIM_SLOTS];
	/* the nvidia driver's minors and the nvme driver's controller
	 * instances of each host: the BDF holding each, "" = free */
	char minor_bdf[SIM_PORTS][SIM_MAX_MINOR][SIM_BDF_LEN];
	char nvme_bdf[SIM_PORTS][SIM_MAX_MINOR][SIM_BDF_LEN];
	bool mknod_warned;
};

/* PCIe link speed code of LnkCap/LnkSta (PCIe r4.0 sec 7.5.3.6): 1 = 2.5 GT/s .. 5 = 32. */
static uint8_t speed_code(double gts)
{
	if (gts >= 32.0)
		return 5;
	if (gts >= 16.0)
		return 4;
	if (gts >= 8.0)
		return 3;
	if (gts >= 5.0)
		return 2;
	return 1;
}

/* NUMA node of a bus on the emulated two-socket host: buses below 0x80 on node 0. */
static int numa_of(unsigned bus)
{
	return bus < 0x80 ? 0 : 1;
}

/* bus_of - the bus of a configured BDF (checked at load: sim_config.c). */
static unsigned bus_of(const char *bdf)
{
	struct falcon_bdf b = { 0, 0, 0, 0 };

	if (falcon_bdf_parse(bdf, &b) != FALCON_OK)
		falcon_err_clear();
	return b.bus;
}

static int host_index(const struct sim_config *cfg, const char *name)
{
	size_t i;

	for (i = 0; i < cfg->nhosts; i++)
		if (strcmp(cfg->hosts[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* The drawer (1-based) port p is cabled to, 0 = none. */
static int port_drawer(const struct sim_config *cfg, int p)
{
	int d, i;

	for (d = 0; d < SIM_DRAWERS; d++)
		for (i = 0; i < cfg->drawer[d].nports; i++)
			if (cfg->drawer[d].ports[i] == p)
				return d + 1;
	return 0;
}

static void host_root(const struct sim_server *srv, int h, char *buf, size_t n)
{
	snprintf(buf, n, "%s/%s", srv->sysfs_root, srv->cfg.hosts[h].name);
}

static void dsp_bdf(const struct sim_port *port, int s, char *buf, size_t n)
{
	snprintf(buf, n, "%04x:%02x:%02x.0", port->domain, port->bus_first, s - 1);
}

static void add_watch(struct sim_server *srv, int h, const char *bdf, const char *dir)
{
	struct sim_host_state *hs = srv->host;
	int wd, i;

	wd = inotify_add_watch(hs->ifd, dir, IN_CLOSE_WRITE);
	if (wd < 0) {
		falcon_warn("inotify_add_watch %s: %s", dir, strerror(errno));
		return;
	}
	for (i = 0; i < hs->nwatch; i++)
		if (hs->watch[i].wd == wd)
			break;
	if (i == hs->nwatch) {
		if (hs->nwatch == MAX_WATCH) {
			falcon_warn("too many watched directories; %s not watched", dir);
			inotify_rm_watch(hs->ifd, wd);
			return;
		}
		hs->nwatch++;
	}
	hs->watch[i].wd = wd;
	hs->watch[i].host = h;
	falcon_strlcpy(hs->watch[i].bdf, bdf, sizeof(hs->watch[i].bdf));
}

/* An empty write-only trigger file (rescan, remove), as in sysfs (mode 0200). */
static int make_trigger(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0200);

	if (fd < 0) {
		falcon_warn("%s: %s", path, strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

static falcon_err_t mkdirs(const char *path);

/* FNV-1a 64 of s from basis (the FNV reference's algorithm). */
static unsigned long long fnv1a(const char *s, unsigned long long basis)
{
	unsigned long long h = basis;

	for (; *s != '\0'; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return h;
}

/* gpu_uuid - a stable "GPU-8-4-4-4-12" UUID for the device known by key
 * (the chassis slot and serial, or the host and BDF of a local GPU): two
 * FNV-1a 64 hashes, so one GPU keeps its UUID across attaches as a real
 * one does (burnt in), and two GPUs differ. */
static void gpu_uuid(const char *key, char *buf, size_t n)
{
	unsigned long long a = fnv1a(key, 0xcbf29ce484222325ull);
	unsigned long long b = fnv1a(key, 0x84222325cbf29ce4ull);

	snprintf(buf, n, "GPU-%08llx-%04llx-%04llx-%04llx-%012llx", a >> 32, (a >> 16) & 0xffff,
		 a & 0xffff, b >> 48, b & 0xffffffffffffull);
}

/* node_file - ROOT/<host>/dev/NAME: char device (major, minor) when the sim
 * runs as root, else (or when mknod is refused) an empty regular file. */
static void node_file(struct sim_server *srv, const char *path, unsigned major, unsigned minor)
{
	int fd;

	unlink(path);
	if (geteuid() == 0 && mknod(path, S_IFCHR | 0666, makedev(major, minor)) == 0)
		return;
	if (geteuid() == 0 && !srv->host->mknod_warned) {
		srv->host->mknod_warned = true;
		falcon_warn("mknod %s: %s; regular files stand for the device nodes", path,
			    strerror(errno));
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd >= 0)
		close(fd);
}

/* take_slot - the lowest free entry of tab (SIM_MAX_MINOR) for bdf (its
 * own when it has one), as the nvidia driver's nv_linux_assign_minor_locked()
 * (find_first_zero_bit) and the nvme driver's ida_alloc() do; -1 when full. */
static int take_slot(char (*tab)[SIM_BDF_LEN], const char *bdf)
{
	int i, free_at = -1;

	for (i = 0; i < SIM_MAX_MINOR; i++) {
		if (strcmp(tab[i], bdf) == 0)
			return i;
		if (tab[i][0] == '\0' && free_at < 0)
			free_at = i;
	}
	if (free_at >= 0)
		falcon_strlcpy(tab[free_at], bdf, SIM_BDF_LEN);
	return free_at;
}

/* nv_probe - what the nvidia driver makes for a GPU it binds: the lowest
 * free minor, PROC/driver/nvidia/gpus/BDF/information in the driver's
 * format (nv-procfs.c nv_procfs_read_gpu_info()) and /dev/nvidia<minor>. */
static void nv_probe(struct sim_server *srv, int h, const char *bdf, const char *model,
		     const char *key)
{
	char root[PATH_MAX], dir[PATH_MAX + 96], path[PATH_MAX + 160], uuid[48], text[1024];
	int m = take_slot(srv->host->minor_bdf[h], bdf), n;

	if (m < 0) {
		falcon_warn("host %s: no free nvidia minor for %s", srv->cfg.hosts[h].name, bdf);
		return;
	}
	host_root(srv, h, root, sizeof(root));
	gpu_uuid(key, uuid, sizeof(uuid));
	snprintf(dir, sizeof(dir), "%s/proc/driver/nvidia/gpus/%s", root, bdf);
	if (mkdirs(dir) != FALCON_OK)
		return;
	n = snprintf(text, sizeof(text),
		     "Model: \t\t %s\nIRQ:   \t\t 0\nGPU UUID: \t %s\n"
		     "Video BIOS: \t ??.??.??.??.??\nBus Type: \t PCIe\nDMA Size: \t 47 bits\n"
		     "DMA Mask: \t 0x7fffffffffff\nBus Location: \t %s\nDevice Minor: \t %d\n"
		     "GPU Excluded:\t No\n", model[0] ? model : "NVIDIA GPU", uuid, bdf, m);
	snprintf(path, sizeof(path), "%s/information", dir);
	/* atomic: a prolog reading it never sees half a file */
	if (falcon_write_file_atomic(path, text, (size_t)n, 0444) != FALCON_OK)
		falcon_warn("%s", falcon_errmsg());
	snprintf(dir, sizeof(dir), "%s/dev", root);
	if (mkdirs(dir) != FALCON_OK)
		return;
	snprintf(path, sizeof(path), "%s/dev/nvidia%d", root, m);
	node_file(srv, path, NVIDIA_MAJOR, (unsigned)m);
	falcon_verbose("host %s: %s is /dev/nvidia%d (%s)", srv->cfg.hosts[h].name, bdf, m, uuid);
}

/* nvme_probe - the nvme driver's controller of an NVMe function:
 * devices/BDF/nvme/nvme<N>/serial (the 20-byte SN, space padded). */
static void nvme_probe(struct sim_server *srv, int h, const char *bdf, const char *serial)
{
	char root[PATH_MAX], dir[PATH_MAX + 96], path[PATH_MAX + 160], text[32];
	int k = take_slot(srv->host->nvme_bdf[h], bdf), n;

	if (k < 0)
		return;
	host_root(srv, h, root, sizeof(root));
	snprintf(dir, sizeof(dir), "%s/bus/pci/devices/%s/nvme/nvme%d", root, bdf, k);
	if (mkdirs(dir) != FALCON_OK)
		return;
	n = snprintf(text, sizeof(text), "%-20.20s\n", serial);
	snprintf(path, sizeof(path), "%s/serial", dir);
	if (falcon_write_file_atomic(path, text, (size_t)n, 0444) != FALCON_OK)
		falcon_warn("%s", falcon_errmsg());
}

/* drv_release - the drivers let go of bdf at remove: its minor and its
 * controller instance are free again, its /proc entry gone.  /dev/nvidiaN
 * stays: the nvidia driver makes no device nodes (nvidia-modprobe or udev
 * did) and none is removed with the GPU (measured with driver 580 on an
 * H100, issue 30: after the sysfs remove /dev/nvidia0 was still there,
 * 195,0); the next GPU to take the minor finds it. */
static void drv_release(struct sim_server *srv, int h, const char *bdf)
{
	char root[PATH_MAX], path[PATH_MAX + 160];
	int i;

	host_root(srv, h, root, sizeof(root));
	for (i = 0; i < SIM_MAX_MINOR; i++) {
		if (strcmp(srv->host->minor_bdf[h][i], bdf) == 0) {
			srv->host->minor_bdf[h][i][0] = '\0';
			snprintf(path, sizeof(path), "%s/proc/driver/nvidia/gpus/%s/information",
				 root, bdf);
			unlink(path);
			snprintf(path, sizeof(path), "%s/proc/driver/nvidia/gpus/%s", root, bdf);
			rmdir(path);
		}
		if (strcmp(srv->host->nvme_bdf[h][i], bdf) == 0)
			srv->host->nvme_bdf[h][i][0] = '\0';
	}
}

/* Write one function's directory, its remove file, and watch it; dev (NULL
 * for a switch port) gets its driver's files, known by key. */
static falcon_err_t write_fn(struct sim_server *srv, int h, const char *bdf,
			     const struct falcon_pcicfg_spec *spec, int numa,
			     const struct sim_device *dev, const char *key)
{
	char root[PATH_MAX], dir[PATH_MAX + 64], path[PATH_MAX + 96];
	falcon_err_t rv;

	host_root(srv, h, root, sizeof(root));
	/* the drivers' files first: by the time the device's config can be
	 * read (what a prolog waits for) its driver has bound, as the nvidia
	 * driver's probe runs within the kernel's rescan */
	if (dev != NULL && dev->vendor_id == 0x10de && (dev->class_code >> 16) == 0x03)
		nv_probe(srv, h, bdf, dev->model, key);
	else if (dev != NULL && dev->class_code == FALCON_CLASS_NVME)
		nvme_probe(srv, h, bdf, dev->serial);
	if ((rv = falcon_pcicfg_write_sysfs(root, bdf, spec, numa)) != FALCON_OK)
		return rv;
	snprintf(dir, sizeof(dir), "%s/bus/pci/devices/%s", root, bdf);
	snprintf(path, sizeof(path), "%s/remove", dir);
	make_trigger(path);
	add_watch(srv, h, bdf, dir);
	return FALCON_OK;
}

static int rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	if (remove(path) != 0 && errno != ENOENT)
		falcon_warn("remove %s: %s", path, strerror(errno));
	return 0;
}

static void rm_tree(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == 0)
		nftw(path, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static void rm_fn(struct sim_server *srv, int h, const char *bdf)
{
	char root[PATH_MAX], dir[PATH_MAX + 64];

	drv_release(srv, h, bdf);
	host_root(srv, h, root, sizeof(root));
	snprintf(dir, sizeof(dir), "%s/bus/pci/devices/%s", root, bdf);
	rm_tree(dir);
}

static void device_spec(const struct sim_device *dev, struct sim_link trained,
			const char *bdf, struct falcon_pcicfg_spec *spec)
{
	falcon_pcicfg_default_spec(spec, (uint16_t)dev->vendor_id, (uint16_t)dev->device_id,
				   dev->class_code, FALCON_PCIE_ENDPOINT);
	spec->revision = (uint8_t)dev->revision;
	spec->subsys_vendor = (uint16_t)dev->subsys_vendor_id;
	spec->subsys_device = (uint16_t)dev->subsys_device_id;
	spec->max_speed = speed_code(dev->max_link.speed_gts);
	spec->max_width = (uint8_t)dev->max_link.width;
	spec->cur_speed = speed_code(trained.speed_gts);
	spec->cur_width = (uint8_t)trained.width;
	falcon_pcicfg_default_bars(spec, bus_of(bdf));
}

static falcon_err_t write_adapter(struct sim_server *srv, int p)
{
	const struct sim_port *port = &srv->cfg.port[p];
	struct falcon_pcicfg_spec spec;

	falcon_pcicfg_default_spec(&spec, SWITCH_VENDOR, SWITCH_DEVICE, FALCON_CLASS_PCI_BRIDGE,
				   FALCON_PCIE_UPSTREAM);
	spec.revision = 0xb0;
	spec.primary_bus = (uint8_t)port->bus;
	spec.secondary_bus = (uint8_t)port->bus_first;
	spec.subordinate_bus = (uint8_t)port->bus_last;
	spec.max_speed = 4;       /* PCIe Gen4 x16 host link (CDFP cable) */
	spec.max_width = 16;
	spec.cur_speed = speed_code(port->link.speed_gts);
	spec.cur_width = (uint8_t)port->link.width;
	return write_fn(srv, host_index(&srv->cfg, port->host), port->adapter, &spec,
			numa_of(port->bus), NULL, NULL);
}

/*
 * The /sys/bus/pci/slots name of drawer d slot s behind port p: its
 * Physical Slot Number (falcon_pcicfg_phys_slot()), with "-N" when an
 * earlier port of the same host is cabled to the same drawer, as Linux
 * names a duplicate (drivers/pci/slot.c make_slot_name()).
 */
static void slot_name(const struct sim_config *cfg, int p, int d, int s, char *buf, size_t n)
{
	int q, dup = 0;

	for (q = 0; q < p; q++)
		if (port_drawer(cfg, q) == d && strcmp(cfg->port[q].host, cfg->port[p].host) == 0)
			dup++;
	if (dup > 0)
		snprintf(buf, n, "%d-%d", falcon_pcicfg_phys_slot(d, s), dup);
	else
		snprintf(buf, n, "%d", falcon_pcicfg_phys_slot(d, s));
}

/* Downstream port of slot s on port p: link up when its device is on the
 * bus; its slot (SltCap and slots/<N>/address) names the chassis slot. */
static falcon_err_t write_dsp(struct sim_server *srv, int p, int d, int s)
{
	const struct sim_port *port = &srv->cfg.port[p];
	const struct sim_slot_state *ss = &srv->st.slot[d - 1][s - 1];
	struct falcon_pcicfg_spec spec;
	char bdf[SIM_BDF_LEN], root[PATH_MAX], name[24];
	int h = host_index(&srv->cfg, port->host);
	falcon_err_t rv;

	dsp_bdf(port, s, bdf, sizeof(bdf));
	falcon_pcicfg_default_spec(&spec, SWITCH_VENDOR, SWITCH_DEVICE, FALCON_CLASS_PCI_BRIDGE,
				   FALCON_PCIE_DOWNSTREAM);
	spec.revision = 0xb0;
	spec.primary_bus = (uint8_t)port->bus_first;
	spec.secondary_bus = (uint8_t)(port->bus_first + s);
	spec.subordinate_bus = (uint8_t)(port->bus_first + s);
	spec.slot = true;
	spec.slot_number = (uint16_t)falcon_pcicfg_phys_slot(d, s);
	spec.port_number = (uint8_t)s;
	spec.max_speed = 4;
	spec.max_width = 16;
	if (ss->present && ss->owner == p) {
		struct sim_link l = sim_trained_link(&srv->cfg, d, s);

		spec.cur_speed = speed_code(l.speed_gts);
		spec.cur_width = (uint8_t)l.width;
	} else {
		spec.link_down = true;
	}
	/* ACS (PCIe r4.0 sec 7.7.7) as a PEX88096 downstream port has it;
	 * Control all clear unless the acs_redirect fault asks for what
	 * Linux's pci_enable_acs() sets with an IOMMU on */
	spec.acs = true;
	spec.acs_cap = FALCON_ACS_SV | FALCON_ACS_TB | FALCON_ACS_RR | FALCON_ACS_CR |
		       FALCON_ACS_UF;
	if (srv->cfg.faults.acs_redirect[d - 1][s - 1])
		spec.acs_ctrl = FALCON_ACS_SV | FALCON_ACS_RR | FALCON_ACS_CR | FALCON_ACS_UF;
	if ((rv = write_fn(srv, h, bdf, &spec, numa_of(port->bus), NULL, NULL)) != FALCON_OK)
		return rv;
	host_root(srv, h, root, sizeof(root));
	slot_name(&srv->cfg, p, d, s, name, sizeof(name));
	return falcon_pcicfg_write_slot(root, name, port->domain, port->bus_first + (unsigned)s);
}

static falcon_err_t write_slot_dev(struct sim_server *srv, int p, int d, int s)
{
	const struct sim_port *port = &srv->cfg.port[p];
	const struct sim_device *dev = &srv->cfg.drawer[d - 1].slot[s - 1];
	struct falcon_pcicfg_spec spec;
	char bdf[SIM_BDF_LEN], key[SIM_NAME_LEN * 3];
	int h = host_index(&srv->cfg, port->host);
	falcon_err_t rv;

	sim_slot_bdf(&srv->cfg, p, d, s, bdf, sizeof(bdf));
	device_spec(dev, sim_trained_link(&srv->cfg, d, s), bdf, &spec);
	if (srv->cfg.faults.unassigned_bar[d - 1][s - 1])
		spec.bars_unassigned = 1u << 1;  /* BAR1, the large prefetchable one */
	snprintf(key, sizeof(key), "%s/drawer%d_slot%d/%s", srv->cfg.chassis, d, s, dev->serial);
	/* fell_off: the device stops answering: config reads all-ones */
	spec.all_ones = srv->cfg.faults.fell_off[d - 1][s - 1];
	if ((rv = write_fn(srv, h, bdf, &spec, numa_of(port->bus), dev, key)) != FALCON_OK)
		return rv;
	if (spec.all_ones)
		falcon_info("drawer%d_slot%d at %s fell off the bus (injected fault)", d, s, bdf);
	return FALCON_OK;
}

/* Rescan host h: restore removed functions, bring staged devices onto the bus. */
static void do_rescan(struct sim_server *srv, int h)
{
	struct sim_host_state *hs = srv->host;
	const struct sim_config *cfg = &srv->cfg;
	const struct sim_host *host = &cfg->hosts[h];
	size_t k;
	int p, d, s, appeared = 0;

	for (k = 0; k < host->nlocal; k++)
		if (hs->local_removed[h][k]) {
			struct falcon_pcicfg_spec spec;

			char key[SIM_NAME_LEN * 3];

			device_spec(&host->local[k], host->local[k].link, host->local[k].bdf, &spec);
			snprintf(key, sizeof(key), "%s/%s/%s", host->name, host->local[k].bdf,
				 host->local[k].serial);
			if (write_fn(srv, h, host->local[k].bdf, &spec,
				     numa_of(bus_of(host->local[k].bdf)),
				     &host->local[k], key) == FALCON_OK)
				hs->local_removed[h][k] = false;
		}
	for (p = 0; p < SIM_PORTS; p++) {
		if (strcmp(cfg->port[p].host, host->name) != 0)
			continue;
		if (hs->adapter_removed[p] && write_adapter(srv, p) == FALCON_OK)
			hs->adapter_removed[p] = false;
		if ((d = port_drawer(cfg, p)) == 0)
			continue;
		for (s = 1; s <= SIM_SLOTS; s++) {
			struct sim_slot_state *ss = &srv->st.slot[d - 1][s - 1];
			bool dsp_dirty = hs->dsp_removed[p][s - 1];

			if (ss->owner == p && !ss->present) {
				if (cfg->faults.no_appear[d - 1][s - 1]) {
					falcon_info("rescan %s: drawer%d_slot%d never appears (injected fault)",
						    host->name, d, s);
				} else {
					char bdf[SIM_BDF_LEN];

					/* the port above (link up, its ACS) is written
					 * before the device below it appears, as a
					 * kernel enumerates them: a reader that sees
					 * the device never reads the port's old config */
					ss->present = true;
					if (write_dsp(srv, p, d, s) != FALCON_OK ||
					    write_slot_dev(srv, p, d, s) != FALCON_OK) {
						ss->present = false;
						falcon_error("rescan %s: drawer%d_slot%d: %s", host->name,
							     d, s, falcon_errmsg());
						write_dsp(srv, p, d, s); /* link down again */
						continue;
					}
					hs->dsp_removed[p][s - 1] = false;
					dsp_dirty = false;
					ss->staged = false;
					if (ss->stale && ss->stale_port == p)
						ss->stale = false;
					appeared++;
					sim_slot_bdf(cfg, p, d, s, bdf, sizeof(bdf));
					falcon_info("rescan %s: drawer%d_slot%d appears at %s", host->name, d, s, bdf);
				}
			}
			if (dsp_dirty && write_dsp(srv, p, d, s) == FALCON_OK)
				hs->dsp_removed[p][s - 1] = false;
		}
	}
	falcon_verbose("rescan %s: %d device(s) appeared", host->name, appeared);
}

/* Remove the function at bdf on host h (and, for a bridge, what lies below). */
static void do_remove(struct sim_server *srv, int h, const char *bdf)
{
	struct sim_host_state *hs = srv->host;
	const struct sim_config *cfg = &srv->cfg;
	const struct sim_host *host = &cfg->hosts[h];
	struct falcon_bdf rb;
	unsigned dom, bus, dev, fn;
	size_t k;
	int p, d, s;

	for (k = 0; k < host->nlocal; k++)
		if (strcmp(host->local[k].bdf, bdf) == 0) {
			rm_fn(srv, h, bdf);
			hs->local_removed[h][k] = true;
			falcon_info("remove %s: local device %s", host->name, bdf);
			return;
		}
	if (falcon_bdf_parse(bdf, &rb) != FALCON_OK) {
		falcon_err_clear(); /* not a PCI address: nothing of ours */
		return;
	}
	dom = rb.domain;
	bus = rb.bus;
	dev = rb.dev;
	fn = rb.fn;
	for (p = 0; p < SIM_PORTS; p++) {
		const struct sim_port *port = &cfg->port[p];
		bool all;

		if (strcmp(port->host, host->name) != 0 || port->domain != dom)
			continue;
		d = port_drawer(cfg, p);
		all = strcmp(port->adapter, bdf) == 0;
		for (s = 1; d > 0 && s <= SIM_SLOTS; s++) {
			struct sim_slot_state *ss = &srv->st.slot[d - 1][s - 1];
			bool dsp = all || (bus == port->bus_first && dev == (unsigned)s - 1 && fn == 0);
			bool below = dsp || (bus == port->bus_first + (unsigned)s && dev == 0 && fn == 0);
			char b[SIM_BDF_LEN];

			if (below && ss->stale && ss->stale_port == p) {
				sim_slot_bdf(cfg, p, d, s, b, sizeof(b));
				rm_fn(srv, h, b);
				ss->stale = false;
				falcon_info("remove %s: stale drawer%d_slot%d at %s gone", host->name, d, s, b);
			}
			if (below && ss->owner == p && ss->present) {
				sim_slot_bdf(cfg, p, d, s, b, sizeof(b));
				rm_fn(srv, h, b);
				ss->present = false;
				falcon_info("remove %s: drawer%d_slot%d at %s removed (still attached in the chassis)",
					    host->name, d, s, b);
				if (!dsp)
					write_dsp(srv, p, d, s); /* link down */
			}
			if (dsp) {
				char root[PATH_MAX], name[24];

				dsp_bdf(port, s, b, sizeof(b));
				rm_fn(srv, h, b);
				host_root(srv, h, root, sizeof(root));
				slot_name(cfg, p, d, s, name, sizeof(name));
				falcon_pcicfg_remove_slot(root, name);
				hs->dsp_removed[p][s - 1] = true;
			}
		}
		if (all) {
			rm_fn(srv, h, bdf);
			hs->adapter_removed[p] = true;
			falcon_info("remove %s: Falcon adapter %s and its switch removed", host->name, bdf);
		}
	}
}

void sim_host_detached(struct sim_server *srv, int p, int d, int s)
{
	struct sim_slot_state *ss = &srv->st.slot[d - 1][s - 1];
	int h = host_index(&srv->cfg, srv->cfg.port[p].host);
	char bdf[SIM_BDF_LEN];

	if (srv->host == NULL || h < 0 || !ss->present)
		return;
	sim_slot_bdf(&srv->cfg, p, d, s, bdf, sizeof(bdf));
	ss->present = false;
	if (srv->cfg.surprise == SIM_SURPRISE_STALE) {
		char root[PATH_MAX], path[PATH_MAX + 96];
		unsigned char ones[FALCON_PCICFG_SIZE];
		int fd;

		/* No hot-plug on the host: the device stays, its config reads all-ones. */
		host_root(srv, h, root, sizeof(root));
		snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/config", root, bdf);
		memset(ones, 0xff, sizeof(ones));
		fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (fd >= 0) {
			if (write(fd, ones, sizeof(ones)) != (ssize_t)sizeof(ones))
				falcon_warn("%s: %s", path, strerror(errno));
			close(fd);
		}
		ss->stale = true;
		ss->stale_port = p;
		falcon_warn("surprise removal: drawer%d_slot%d detached while on %s's bus at %s; it stays with config space all-ones until removed",
			    d, s, srv->cfg.port[p].host, bdf);
	} else {
		rm_fn(srv, h, bdf);
		falcon_warn("surprise removal: drawer%d_slot%d detached while on %s's bus at %s; pciehp removed it",
			    d, s, srv->cfg.port[p].host, bdf);
	}
	write_dsp(srv, p, d, s);
}

/* Read a trigger file: was "1" written?  Then recreate it empty. */
static bool triggered(const char *path)
{
	char buf[16] = "";
	ssize_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (n <= 0)
		return false;
	buf[n] = '\0';
	make_trigger(path);
	return buf[strspn(buf, " \t")] == '1';
}

static void handle_event(struct sim_server *srv, const struct inotify_event *ev)
{
	struct sim_host_state *hs = srv->host;
	char root[PATH_MAX], path[PATH_MAX + 128];
	struct watch w;
	int i;

	for (i = 0; i < hs->nwatch; i++)
		if (hs->watch[i].wd == ev->wd)
			break;
	if (i == hs->nwatch)
		return;
	if (ev->mask & IN_IGNORED) { /* the directory went away */
		hs->watch[i] = hs->watch[--hs->nwatch];
		return;
	}
	if (ev->len == 0)
		return;
	w = hs->watch[i];
	host_root(srv, w.host, root, sizeof(root));
	if (w.bdf[0] == '\0' && strcmp(ev->name, "rescan") == 0) {
		snprintf(path, sizeof(path), "%s/bus/pci/rescan", root);
		if (triggered(path))
			do_rescan(srv, w.host);
	} else if (w.bdf[0] != '\0' && strcmp(ev->name, "remove") == 0) {
		snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/remove", root, w.bdf);
		if (triggered(path))
			do_remove(srv, w.host, w.bdf);
	}
}

static void *watch_thread(void *arg)
{
	struct sim_server *srv = arg;
	struct sim_host_state *hs = srv->host;
	char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));

	for (;;) {
		struct pollfd pf[2] = { { hs->ifd, POLLIN, 0 }, { hs->stop_pipe[0], POLLIN, 0 } };
		ssize_t n;
		char *p;

		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			falcon_error("poll: %s", strerror(errno));
			break;
		}
		if (pf[1].revents != 0)
			break;
		n = read(hs->ifd, buf, sizeof(buf));
		if (n <= 0)
			continue;
		pthread_mutex_lock(&srv->lock);
		for (p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)(void *)p;

			handle_event(srv, ev);
			p += sizeof(*ev) + ev->len;
		}
		pthread_mutex_unlock(&srv->lock);
	}
	return NULL;
}

static falcon_err_t mkdirs(const char *path)
{
	char buf[PATH_MAX];
	char *p;

	if (falcon_strlcpy(buf, path, sizeof(buf)) >= sizeof(buf))
		return falcon_err_set(FALCON_ERR_INVAL, "%s: path too long", path);
	for (p = buf + 1; *p != '\0'; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(buf, 0755) != 0 && errno != EEXIST)
				return falcon_err_set(FALCON_ERR_IO, "mkdir %s: %s", buf, strerror(errno));
			*p = '/';
		}
	if (mkdir(buf, 0755) != 0 && errno != EEXIST)
		return falcon_err_set(FALCON_ERR_IO, "mkdir %s: %s", buf, strerror(errno));
	return FALCON_OK;
}

/* clear_drivers - a previous run's /proc/driver/nvidia/gpus entries and
 * /dev/nvidiaN nodes under root: minors are handed out afresh. */
static void clear_drivers(const char *root)
{
	char path[PATH_MAX + 300];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/proc/driver/nvidia/gpus", root);
	rm_tree(path);
	snprintf(path, sizeof(path), "%s/dev", root);
	if ((d = opendir(path)) == NULL)
		return;
	while ((de = readdir(d)) != NULL)
		if (strncmp(de->d_name, "nvidia", 6) == 0 && de->d_name[6] != '\0' &&
		    strspn(de->d_name + 6, "0123456789") == strlen(de->d_name + 6)) {
			snprintf(path, sizeof(path), "%s/dev/%s", root, de->d_name);
			unlink(path);
		}
	closedir(d);
}

falcon_err_t sim_host_start(struct sim_server *srv)
{
	struct sim_config *cfg = &srv->cfg;
	struct sim_host_state *hs;
	char root[PATH_MAX], dir[PATH_MAX + 64];
	falcon_err_t rv;
	size_t h, k;
	int p, d, s;

	hs = calloc(1, sizeof(*hs));
	if (hs == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "out of memory");
	hs->stop_pipe[0] = hs->stop_pipe[1] = -1;
	srv->host = hs;
	hs->ifd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (hs->ifd < 0) {
		rv = falcon_err_set(FALCON_ERR_IO, "inotify_init1: %s", strerror(errno));
		goto fail;
	}
	if (pipe2(hs->stop_pipe, O_CLOEXEC) != 0) {
		rv = falcon_err_set(FALCON_ERR_IO, "pipe2: %s", strerror(errno));
		goto fail;
	}
	for (h = 0; h < cfg->nhosts; h++) {
		host_root(srv, (int)h, root, sizeof(root));
		snprintf(dir, sizeof(dir), "%s/bus/pci", root);
		rm_tree(dir);
		clear_drivers(root);
		snprintf(dir, sizeof(dir), "%s/bus/pci/devices", root);
		if ((rv = mkdirs(dir)) != FALCON_OK)
			goto fail;
		snprintf(dir, sizeof(dir), "%s/bus/pci/rescan", root);
		if (make_trigger(dir) != 0) {
			rv = falcon_err_set(FALCON_ERR_IO, "%s: %s", dir, strerror(errno));
			goto fail;
		}
		snprintf(dir, sizeof(dir), "%s/bus/pci", root);
		add_watch(srv, (int)h, "", dir);
		for (k = 0; k < cfg->hosts[h].nlocal; k++) {
			const struct sim_device *dev = &cfg->hosts[h].local[k];
			struct falcon_pcicfg_spec spec;
			char key[SIM_NAME_LEN * 3];

			device_spec(dev, dev->link, dev->bdf, &spec);
			snprintf(key, sizeof(key), "%s/%s/%s", cfg->hosts[h].name, dev->bdf, dev->serial);
			if ((rv = write_fn(srv, (int)h, dev->bdf, &spec,
					   numa_of(bus_of(dev->bdf)),
					   dev, key)) != FALCON_OK)
				goto fail;
		}
	}
	for (p = 0; p < SIM_PORTS; p++) {
		if (cfg->port[p].host[0] == '\0')
			continue;
		if ((rv = write_adapter(srv, p)) != FALCON_OK)
			goto fail;
		if ((d = port_drawer(cfg, p)) == 0)
			continue;
		for (s = 1; s <= SIM_SLOTS; s++)
			if ((rv = write_dsp(srv, p, d, s)) != FALCON_OK)
				goto fail;
	}
	if (pthread_create(&hs->thread, NULL, watch_thread, srv) != 0) {
		rv = falcon_err_set(FALCON_ERR_IO, "cannot start the inotify thread");
		goto fail;
	}
	hs->thread_started = true;
	for (h = 0; h < cfg->nhosts; h++)
		falcon_info("host %s: PCIe tree at %s/%s/bus/pci (%zu local device(s))",
			    cfg->hosts[h].name, srv->sysfs_root, cfg->hosts[h].name,
			    cfg->hosts[h].nlocal);
	return FALCON_OK;
fail:
	sim_host_stop(srv);
	return rv;
}

void sim_host_stop(struct sim_server *srv)
{
	struct sim_host_state *hs = srv->host;

	if (hs == NULL)
		return;
	if (hs->thread_started) {
		if (write(hs->stop_pipe[1], "x", 1) != 1)
			falcon_warn("stop pipe: %s", strerror(errno));
		pthread_join(hs->thread, NULL);
	}
	if (hs->stop_pipe[0] >= 0)
		close(hs->stop_pipe[0]);
	if (hs->stop_pipe[1] >= 0)
		close(hs->stop_pipe[1]);
	if (hs->ifd >= 0)
		close(hs->ifd);
	free(hs);
	srv->host = NULL;
}
