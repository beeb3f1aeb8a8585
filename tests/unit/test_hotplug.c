/*
 * test_hotplug.c - lib/pci/hotplug against generated trees: a sysfs root made
 * by lib/pcicfg (rescan/remove files, devices that appear from another
 * thread the way falcon-sim makes them appear), and a proc root with
 * fd links and comm files for holder detection.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pci/hotplug.h"
#include "pci/pcicfg.h"
#include "pci/topo.h"
#include "testutil.h"
#include "../pcihex.h"
#include "core/util.h"

/* paths below are built from a temporary directory of known short length */
#pragma GCC diagnostic ignored "-Wformat-truncation"

/*
 * The nvidia driver's /proc/driver/nvidia/gpus/BDF/information, line by
 * line in the format strings of NVIDIA open-gpu-kernel-modules
 * kernel-open/nvidia/nv-procfs.c nv_procfs_read_gpu_info() (values of a
 * Tesla V100-PCIE-16GB; "GPU Firmware:" is printed only by drivers that
 * have GSP firmware).  Built from the driver's source; NV_INFO_H100 below
 * is a real file.
 */
#define NV_INFO_UUID "GPU-5a3c4f2e-9b1d-3e7a-8c6f-0d2e4b6a8c1e"
#define NV_INFO(minor) \
	"Model: \t\t Tesla V100-PCIE-16GB\n" \
	"IRQ:   \t\t 88\n" \
	"GPU UUID: \t " NV_INFO_UUID "\n" \
	"Video BIOS: \t 88.00.41.00.01\n" \
	"Bus Type: \t PCIe\n" \
	"DMA Size: \t 47 bits\n" \
	"DMA Mask: \t 0x7fffffffffff\n" \
	"Bus Location: \t 0000:62:00.0\n" \
	"Device Minor: \t " minor "\n" \
	"GPU Firmware: \t 535.129.03\n" \
	"GPU Excluded:\t No\n"

/* A real file, byte for byte: /proc/driver/nvidia/gpus/0000:00:06.0/
 * information of an H100 80GB HBM3 (SXM5, passed through to a Firecracker
 * VM) under the open kernel module 580.159.04 (issue 30).  Besides the
 * values, it has the "GPU Firmware:" line of a GSP driver. */
#define NV_INFO_H100_UUID "GPU-89390d28-ed67-0d1a-c88c-b595c1247bd2"
#define NV_INFO_H100 \
	"Model: \t\t NVIDIA H100 80GB HBM3\n" \
	"IRQ:   \t\t 41\n" \
	"GPU UUID: \t " NV_INFO_H100_UUID "\n" \
	"Video BIOS: \t 96.00.da.00.0c\n" \
	"Bus Type: \t PCIe\n" \
	"DMA Size: \t 52 bits\n" \
	"DMA Mask: \t 0xfffffffffffff\n" \
	"Bus Location: \t 0000:00:06.0\n" \
	"Device Minor: \t 0\n" \
	"GPU Firmware: \t 580.159.04\n" \
	"GPU Excluded:\t No\n"

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
}

/* mkdirs - mkdir -p A/B */
static void mkdirs(const char *a, const char *b)
{
	char path[4096], *p;

	snprintf(path, sizeof(path), "%s/%s", a, b);
	for (p = path + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	mkdir(path, 0755);
}

static void gpu(const char *root, const char *bdf)
{
	struct falcon_pcicfg_spec s;
	char path[4096];

	falcon_pcicfg_default_spec(&s, 0x10de, 0x1db4, FALCON_CLASS_3D, FALCON_PCIE_ENDPOINT);
	ck_assert_int_eq(falcon_pcicfg_write_sysfs(root, bdf, &s, 0), FALCON_OK);
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/remove", root, bdf);
	put(path, "");
}

/* a sysfs root: ROOT/bus/pci/{rescan,devices/} and one GPU */
static const char *tree(void)
{
	static char root[4096];
	char path[4096];

	snprintf(root, sizeof(root), "%s", make_tmpdir("hotplug"));
	mkdirs(root, "bus/pci/devices");
	snprintf(path, sizeof(path), "%s/bus/pci/rescan", root);
	put(path, "");
	gpu(root, "0000:62:00.0");
	return root;
}

START_TEST(test_busdir)
{
	const char *root = tree();
	char buf[4096], bus[4096];

	snprintf(bus, sizeof(bus), "%s/bus/pci", root);
	ck_assert_str_eq(falcon_hp_busdir(root, buf, sizeof(buf)), bus);
	/* a bus/pci directory given as the root is taken as is */
	ck_assert_str_eq(falcon_hp_busdir(bus, buf, sizeof(buf)), bus);
	ck_assert_str_eq(falcon_hp_busdir(NULL, buf, sizeof(buf)), "/sys/bus/pci");
	ck_assert_ptr_null(falcon_hp_busdir(root, buf, 8));
	ck_assert(falcon_hp_present(root, "0000:62:00.0"));
	ck_assert(falcon_hp_present(bus, "0000:62:00.0"));
	ck_assert(!falcon_hp_present(root, "0000:63:00.0"));
	ck_assert(!falcon_hp_present(root, "../../../etc"));
}
END_TEST

START_TEST(test_rescan_remove)
{
	const char *root = tree();
	char path[4096], *s = NULL;

	ck_assert_int_eq(falcon_hp_rescan(root), FALCON_OK);
	snprintf(path, sizeof(path), "%s/bus/pci/rescan", root);
	ck_assert_int_eq(falcon_read_file(path, 16, &s, NULL), FALCON_OK);
	ck_assert_str_eq(s, "1");
	free(s);
	ck_assert_int_eq(falcon_hp_remove(root, "0000:62:00.0"), FALCON_OK);
	snprintf(path, sizeof(path), "%s/bus/pci/devices/0000:62:00.0/remove", root);
	ck_assert_int_eq(falcon_read_file(path, 16, &s, NULL), FALCON_OK);
	ck_assert_str_eq(s, "1");
	free(s);
	/* a device that is not there is removed already */
	ck_assert_int_eq(falcon_hp_remove(root, "0000:99:00.0"), FALCON_OK);
	ck_assert_int_eq(falcon_hp_remove(root, "0000:99:00"), FALCON_ERR_INVAL);
	ck_assert_int_eq(falcon_hp_remove(root, "0000:62/../.0"), FALCON_ERR_INVAL);
	ck_assert_int_eq(falcon_hp_remove(root, "0000:62:00.8"), FALCON_ERR_INVAL);
	/* an upper-case BDF once missed sysfs's lower-case name and was taken
	 * for "removed already": the device stayed on the bus */
	mkdirs(root, "bus/pci/devices/0000:3b:00.0");
	snprintf(path, sizeof(path), "%s/bus/pci/devices/0000:3b:00.0/remove", root);
	put(path, "");
	ck_assert(falcon_hp_present(root, "0000:3B:00.0"));
	ck_assert(falcon_hp_present(root, "3b:00.0"));
	ck_assert_int_eq(falcon_hp_remove(root, "0000:3B:00.0"), FALCON_OK);
	ck_assert_int_eq(falcon_read_file(path, 16, &s, NULL), FALCON_OK);
	ck_assert_str_eq(s, "1");
	free(s);
	snprintf(path, sizeof(path), "%s/bus/pci/devices/0000:62:00.0/remove", root);
	/* a remove file that cannot be written (a directory here) fails */
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	ck_assert_int_eq(falcon_hp_remove(root, "0000:62:00.0"), FALCON_ERR_PCI);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "remove"));
	/* no rescan file: an error naming it */
	ck_assert_int_eq(falcon_hp_rescan("/nonexistent-falcon-root"), FALCON_ERR_PCI);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "/nonexistent-falcon-root/bus/pci/rescan"));
}
END_TEST

struct appear {
	const char *root;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int polls;
	bool made;
};

static void *appear_thread(void *p)
{
	struct appear *a = p;

	pthread_mutex_lock(&a->lock);
	while (a->polls < 3)
		pthread_cond_wait(&a->cond, &a->lock);
	gpu(a->root, "0000:63:00.0");
	a->made = true;
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

/* the condition: 0000:63:00.0 present; counts polls so the thread knows */
static int appear_cond(void *p)
{
	struct appear *a = p;
	bool there;

	pthread_mutex_lock(&a->lock);
	a->polls++;
	pthread_cond_signal(&a->cond);
	pthread_mutex_unlock(&a->lock);
	there = falcon_hp_present(a->root, "0000:63:00.0");
	return there ? 1 : 0;
}

START_TEST(test_wait_appear)
{
	struct appear a = { .root = tree(), .lock = PTHREAD_MUTEX_INITIALIZER,
			    .cond = PTHREAD_COND_INITIALIZER };
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, appear_thread, &a), 0);
	/* generous bound: the device appears after the third poll */
	ck_assert_int_eq(falcon_hp_wait(appear_cond, &a, 60000, "appear"), FALCON_OK);
	pthread_join(t, NULL);
	ck_assert(a.made);
	ck_assert_int_ge(a.polls, 3);
}
END_TEST

/* the bus signature: data, not a callback; changes when a device comes
 * or goes, and falcon_hp_wait_change() returns on it or times out */
START_TEST(test_bus_signature)
{
	const char *root = tree();
	unsigned long long s0 = falcon_hp_bus_signature(root), s1, sig;
	char path[4096];

	ck_assert(s0 != 0);
	ck_assert(falcon_hp_bus_signature(root) == s0);
	ck_assert(falcon_hp_bus_signature("/nonexistent-falcon-root") == 0);
	sig = s0;
	ck_assert_int_eq(falcon_hp_wait_change(root, &sig, 20, "same"), FALCON_ERR_TIMEOUT);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "same: not changed after 20 ms"));
	ck_assert(sig == s0);
	ck_assert_int_eq(falcon_hp_wait_change(root, &sig, 0, "zero"), FALCON_ERR_TIMEOUT);
	gpu(root, "0000:63:00.0");
	s1 = falcon_hp_bus_signature(root);
	ck_assert(s1 != s0);
	ck_assert_int_eq(falcon_hp_wait_change(root, &sig, 60000, "appear"), FALCON_OK);
	ck_assert(sig == s1);
	/* 0: any signature is a change */
	sig = 0;
	ck_assert_int_eq(falcon_hp_wait_change(root, &sig, 60000, "any"), FALCON_OK);
	ck_assert(sig == s1);
	snprintf(path, sizeof(path), "%s/bus/pci/devices/0000:63:00.0/config", root);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert(falcon_hp_bus_signature(root) != s1);
}
END_TEST

static int never(void *p)
{
	(*(int *)p)++;
	return 0;
}

/* done on the third call */
static int third(void *p)
{
	return ++(*(int *)p) >= 3;
}

static int fails(void *p)
{
	(void)p;
	return -(int)FALCON_ERR_PARSE;
}

START_TEST(test_wait_bounds)
{
	const char *root = tree();
	const char *bdfs[] = { "0000:62:00.0" };
	const char *none[] = { "0000:70:00.0" };
	int calls = 0;

	ck_assert_int_eq(falcon_hp_wait(never, &calls, 0, "zero"), FALCON_ERR_TIMEOUT);
	ck_assert_int_eq(calls, 1);
	ck_assert_int_eq(falcon_hp_wait(never, &calls, 20, "twenty"), FALCON_ERR_TIMEOUT);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "twenty"));
	ck_assert_int_eq(falcon_hp_wait(fails, NULL, 1000, "x"), FALCON_ERR_PARSE);
	/* no overflow of the deadline (UB that the sanitizer build traps) */
	calls = 0;
	ck_assert_int_eq(falcon_hp_wait(third, &calls, LONG_MAX, "long"), FALCON_OK);
	ck_assert_int_eq(calls, 3);
	ck_assert_int_eq(falcon_hp_wait_gone(root, bdfs, 1, 10), FALCON_ERR_TIMEOUT);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "0000:62:00.0 still on the bus"));
	ck_assert_int_eq(falcon_hp_wait_gone(root, none, 1, 0), FALCON_OK);
	ck_assert_int_eq(falcon_hp_wait_gone(root, NULL, 0, 0), FALCON_OK);
}
END_TEST

/* proc root: pid 100 holds /dev/nvidia3, 200 /dev/nvme0n1p2, 300 /dev/nvidia30,
 * 400 is nvidia-persistenced, 500 /dev/nvidia-uvm only, 600 has no fd dir */
static const char *proc_tree(void)
{
	static char proc[4096];
	static const struct { const char *pid, *comm, *fd[3]; } ps[] = {
		{ "100", "python3\n", { "/dev/null", "/dev/nvidia3", "pipe:[1]" } },
		{ "200", "dd\n", { "/dev/nvme0n1p2", NULL, NULL } },
		{ "300", "other\n", { "/dev/nvidia30", "/dev/nvme01", NULL } },
		{ "400", "nvidia-persiste\n", { NULL, NULL, NULL } },
		{ "500", "uvm\n", { "/dev/nvidia-uvm", "/dev/nvidiactl", NULL } },
		{ "600", "nofd\n", { NULL, NULL, NULL } },
	};
	char path[4096];
	size_t i, k;

	snprintf(proc, sizeof(proc), "%s", make_tmpdir("proc"));
	for (i = 0; i < ARRAY_SIZE(ps); i++) {
		snprintf(path, sizeof(path), "%s/%s", proc, ps[i].pid);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/%s/comm", proc, ps[i].pid);
		put(path, ps[i].comm);
		if (strcmp(ps[i].pid, "600") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/fd", ps[i].pid);
		mkdirs(proc, path);
		for (k = 0; k < 3; k++) {
			if (ps[i].fd[k] == NULL)
				continue;
			snprintf(path, sizeof(path), "%s/%s/fd/%zu", proc, ps[i].pid, k);
			ck_assert_int_eq(symlink(ps[i].fd[k], path), 0);
		}
	}
	mkdirs(proc, "self");
	mkdirs(proc, "driver/nvidia/gpus/0000:62:00.0");
	snprintf(path, sizeof(path), "%s/driver/nvidia/gpus/0000:62:00.0/information", proc);
	put(path, NV_INFO("3"));
	return proc;
}

START_TEST(test_holders)
{
	const char *proc = proc_tree();
	char *paths[] = { "/dev/nvidia3", "/dev/nvme0" };
	struct falcon_holder *h = NULL;
	size_t n = 0;

	ck_assert_int_eq(falcon_hp_holders(proc, paths, 2, true, &h, &n), FALCON_OK);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(h[0].pid, 100);
	ck_assert_str_eq(h[0].comm, "python3");
	ck_assert_str_eq(h[0].what, "/dev/nvidia3");
	ck_assert_int_eq(h[1].pid, 200);
	ck_assert_str_eq(h[1].what, "/dev/nvme0n1p2");
	ck_assert_int_eq(h[2].pid, 400);
	ck_assert_str_eq(h[2].what, "daemon nvidia-persistenced");
	free(h);
	/* without GPU daemons and only the NVMe */
	ck_assert_int_eq(falcon_hp_holders(proc, paths + 1, 1, false, &h, &n), FALCON_OK);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(h[0].pid, 200);
	free(h);
	ck_assert_int_eq(falcon_hp_holders(proc, NULL, 0, false, &h, &n), FALCON_OK);
	ck_assert_int_eq(n, 0);
	ck_assert_ptr_null(h);
	ck_assert_int_eq(falcon_hp_holders("/nonexistent-proc", paths, 2, true, &h, &n),
			 FALCON_ERR_IO);
}
END_TEST

START_TEST(test_dev_nodes)
{
	const char *root = tree();
	const char *proc = proc_tree();
	char *paths[4] = { NULL }, want[4096];
	size_t n = 0, i;

	ck_assert_int_eq(falcon_hp_dev_nodes(root, proc, "0000:62:00.0", paths, &n, 4),
			 FALCON_OK);
	ck_assert_int_eq(n, 1);
	/* the node under the root's dev/ (falcon-sim), /dev on a real host */
	snprintf(want, sizeof(want), "%s/dev/nvidia3", root);
	ck_assert_str_eq(paths[0], want);
	/* an NVMe controller */
	mkdirs(root, "bus/pci/devices/0000:62:00.0/nvme/nvme4");
	ck_assert_int_eq(falcon_hp_dev_nodes(root, proc, "0000:62:00.0", paths, &n, 4),
			 FALCON_OK);
	ck_assert_int_eq(n, 3);
	snprintf(want, sizeof(want), "%s/dev/nvme4", root);
	ck_assert_str_eq(paths[1], want);
	ck_assert_int_eq(falcon_hp_dev_nodes(root, proc, "0000:62:00.0", paths, &n, 4),
			 FALCON_ERR_INVAL);
	/* nothing known about a device: nothing added, not an error */
	ck_assert_int_eq(falcon_hp_dev_nodes(root, proc, "0000:70:00.0", paths, &n, 4),
			 FALCON_OK);
	ck_assert_int_eq(falcon_hp_dev_nodes(root, proc, "bad", paths, &n, 4),
			 FALCON_ERR_INVAL);
	for (i = 0; i < n; i++)
		free(paths[i]);
}
END_TEST

START_TEST(test_nvidia_info)
{
	struct falcon_gpu_ident id;

	ck_assert_int_eq(falcon_hp_parse_nvidia_info(NV_INFO("3"), &id), FALCON_OK);
	ck_assert_int_eq(id.minor, 3);
	ck_assert_str_eq(id.uuid, NV_INFO_UUID);
	ck_assert_str_eq(id.bdf, "0000:62:00.0");
	ck_assert_int_eq(falcon_hp_parse_nvidia_info(NV_INFO("255"), &id), FALCON_OK);
	ck_assert_int_eq(id.minor, 255);
	/* the real file (driver 580, H100) */
	ck_assert_int_eq(falcon_hp_parse_nvidia_info(NV_INFO_H100, &id), FALCON_OK);
	ck_assert_int_eq(id.minor, 0);
	ck_assert_str_eq(id.uuid, NV_INFO_H100_UUID);
	ck_assert_str_eq(id.bdf, "0000:00:06.0");
	/* a driver without a UUID for the GPU leaves the line out */
	ck_assert_int_eq(falcon_hp_parse_nvidia_info("Model: \t\t X\nDevice Minor: \t 0\n",
						     &id), FALCON_OK);
	ck_assert_int_eq(id.minor, 0);
	ck_assert_str_eq(id.uuid, "");
	/* a UUID that is not GPU-8-4-4-4-12 never reaches CUDA_VISIBLE_DEVICES */
	ck_assert_int_eq(falcon_hp_parse_nvidia_info("GPU UUID: \t GPU-x\nDevice Minor: \t 1\n",
						     &id), FALCON_OK);
	ck_assert_str_eq(id.uuid, "");
	ck_assert_int_eq(falcon_hp_parse_nvidia_info("GPU UUID: \t GPU-5a3c4f2e-9b1d-3e7a-8c6f"
						     "-0d2e4b6a8c1eff\nDevice Minor: \t 1\n",
						     &id), FALCON_OK);
	ck_assert_str_eq(id.uuid, "");
	/* the minor is required and 0..255 */
	ck_assert_int_eq(falcon_hp_parse_nvidia_info("Model: \t\t X\n", &id), FALCON_ERR_PARSE);
	ck_assert_int_eq(falcon_hp_parse_nvidia_info(NV_INFO("256"), &id), FALCON_ERR_PARSE);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "line 9"));
	ck_assert_int_eq(falcon_hp_parse_nvidia_info(NV_INFO("-1"), &id), FALCON_ERR_PARSE);
	ck_assert_int_eq(falcon_hp_parse_nvidia_info(NV_INFO(""), &id), FALCON_ERR_PARSE);
	ck_assert_int_eq(falcon_hp_parse_nvidia_info("", &id), FALCON_ERR_PARSE);
}
END_TEST

/* falcon_hp_gpu_ident reads ROOT/proc/... (falcon-sim) for a root other than /sys. */
START_TEST(test_gpu_ident_file)
{
	const char *root = tree();
	struct falcon_gpu_ident id;
	char path[4096];

	ck_assert_int_eq(falcon_hp_gpu_ident(root, "0000:62:00.0", &id), FALCON_ERR_NOTFOUND);
	mkdirs(root, "proc/driver/nvidia/gpus/0000:62:00.0");
	snprintf(path, sizeof(path), "%s/proc/driver/nvidia/gpus/0000:62:00.0/information", root);
	put(path, NV_INFO("7"));
	ck_assert_int_eq(falcon_hp_gpu_ident(root, "62:00.0", &id), FALCON_OK);
	ck_assert_int_eq(id.minor, 7);
	ck_assert_str_eq(id.uuid, NV_INFO_UUID);
	put(path, "Device Minor: \t x\n");
	ck_assert_int_eq(falcon_hp_gpu_ident(root, "62:00.0", &id), FALCON_ERR_PARSE);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "information: line 1"));
	ck_assert_int_eq(falcon_hp_gpu_ident(root, "bad", &id), FALCON_ERR_INVAL);
	ck_assert_str_eq(falcon_hp_hostdir(NULL, "dev", path, sizeof(path)), "/dev");
	ck_assert_str_eq(falcon_hp_hostdir("/sys", "proc", path, sizeof(path)), "/proc");
	ck_assert_str_eq(falcon_hp_hostdir("/x/node1", "dev", path, sizeof(path)),
			 "/x/node1/dev");
}
END_TEST

START_TEST(test_nvme_serial)
{
	const char *root = tree();
	char path[4096], sn[64];

	ck_assert_int_eq(falcon_hp_nvme_serial(root, "0000:62:00.0", sn, sizeof(sn)),
			 FALCON_ERR_NOTFOUND);
	mkdirs(root, "bus/pci/devices/0000:62:00.0/nvme/nvme2");
	snprintf(path, sizeof(path), "%s/bus/pci/devices/0000:62:00.0/nvme/nvme2/serial", root);
	/* the Identify Controller SN field: 20 bytes, space padded */
	put(path, "PHLF8024003K4P0DGN  \n");
	ck_assert_int_eq(falcon_hp_nvme_serial(root, "0000:62:00.0", sn, sizeof(sn)), FALCON_OK);
	ck_assert_str_eq(sn, "PHLF8024003K4P0DGN");
	put(path, "                    \n");
	ck_assert_int_eq(falcon_hp_nvme_serial(root, "0000:62:00.0", sn, sizeof(sn)),
			 FALCON_ERR_NOTFOUND);
}
END_TEST

/* The GTX 1080 Ti of fixtures/pci sys4028grtr (a real dump): BAR0 32-bit,
 * BAR1 and BAR3 64-bit prefetchable, BAR5 I/O, as lspci -vv reads them. */
static const uint8_t *fixture_gpu(size_t *len, struct pcihex_dev **keep)
{
	const char *path = fixture_path("pci/sys4028grtr_1080ti_pex8747_hexonly_lspci_xxx.txt");
	struct pcihex_dev *v;
	size_t n, i;

	if (path == NULL)
		return NULL;
	v = pcihex_read(path, &n);
	ck_assert_ptr_nonnull(v);
	for (i = 0; i < n; i++)
		if (!strcmp(v[i].slot, "0000:04:00.0"))
			break;
	ck_assert_uint_lt(i, n);
	*keep = v;
	*len = v[i].len;
	return v[i].cfg;
}

START_TEST(test_bars_fixture)
{
	struct pcihex_dev *keep = NULL;
	struct falcon_pcicfg_info info, ours;
	struct falcon_pcicfg_spec s;
	uint8_t cfg[FALCON_PCICFG_SIZE];
	size_t len = 0;
	const uint8_t *c = fixture_gpu(&len, &keep);
	int i;

	if (c == NULL)
		return;
	ck_assert_int_eq(falcon_pcicfg_parse(c, len, &info), FALCON_OK);
	ck_assert_int_eq(info.bar_type[0], FALCON_BAR_MEM32);
	ck_assert_uint_eq(info.bar_addr[0], 0xf8000000u);
	ck_assert_int_eq(info.bar_type[1], FALCON_BAR_MEM64_PREF);
	ck_assert_uint_eq(info.bar_addr[1], 0x27fe0000000ull);
	ck_assert_int_eq(info.bar_type[2], FALCON_BAR_NONE);
	ck_assert_int_eq(info.bar_type[3], FALCON_BAR_MEM64_PREF);
	ck_assert_int_eq(info.bar_type[5], FALCON_BAR_IO);
	ck_assert_uint_eq(info.bar_addr[5], 0xc000u);
	/* every BAR with an address in sysfs' resource: nothing to say */
	ck_assert_int_eq(falcon_hp_unassigned_bar(c, len,
		"0x00000000f8000000 0x00000000f8ffffff 0x0000000000040200\n"
		"0x0000027fe0000000 0x0000027fefffffff 0x000000000014220c\n"
		"0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
		"0x0000027ff0000000 0x0000027ff1ffffff 0x000000000014220c\n"
		"0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
		"0x000000000000c000 0x000000000000c07f 0x0000000000040101\n"
		"0x0000000000000000 0x0000000000000000 0x0000000000000000\n"), -1);
	/* BAR1 not fitted in the hot-plug window: a line of zeros */
	ck_assert_int_eq(falcon_hp_unassigned_bar(c, len,
		"0x00000000f8000000 0x00000000f8ffffff 0x0000000000040200\n"
		"0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
		"0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
		"0x0000027ff0000000 0x0000027ff1ffffff 0x000000000014220c\n"
		"0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
		"0x000000000000c000 0x000000000000c07f 0x0000000000040101\n"), 1);
	/* start 0 with a size (IORESOURCE_UNSET) */
	ck_assert_int_eq(falcon_hp_unassigned_bar(c, len,
		"0x00000000f8000000 0x00000000f8ffffff 0x0000000000040200\n"
		"0x0000027fe0000000 0x0000027fefffffff 0x000000000014220c\n"
		"0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
		"0x0000000000000000 0x0000000001ffffff 0x000000002014220c\n"), 3);
	ck_assert_int_eq(falcon_hp_unassigned_bar(c, len, "0x0 0x0\n"), -2);
	ck_assert_int_eq(falcon_hp_unassigned_bar(c, len, "bogus\n"), -2);
	/* each field a bounded hex number: no fourth, no trailing garbage */
	ck_assert_int_eq(falcon_hp_unassigned_bar(c, len, "0xf8000000 0xf8ffffff 0x40200 0x1\n"), -2);
	ck_assert_int_eq(falcon_hp_unassigned_bar(c, len, "0xf8000000 0xf8ffffffg 0x40200\n"), -2);
	ck_assert_int_eq(falcon_hp_unassigned_bar(c, len, "0x10000000000000000 0x0 0x0\n"), -2);
	ck_assert_int_eq(falcon_hp_unassigned_bar(c, len, "-0x1 0x0 0x0\n"), -2);
	ck_assert_int_eq(falcon_hp_unassigned_bar(c, len, "\n0x0 0x0 0x0\n"), -2);
	/* falcon-sim's NVIDIA GPU has the BAR types of the real part */
	falcon_pcicfg_default_spec(&s, 0x10de, 0x1db4, FALCON_CLASS_3D, FALCON_PCIE_ENDPOINT);
	falcon_pcicfg_default_bars(&s, 0x62);
	ck_assert_int_eq(falcon_pcicfg_build(&s, cfg), FALCON_OK);
	ck_assert_int_eq(falcon_pcicfg_parse(cfg, sizeof(cfg), &ours), FALCON_OK);
	for (i = 0; i < FALCON_PCI_BARS; i++)
		ck_assert_int_eq(ours.bar_type[i], info.bar_type[i]);
	free(keep);
}
END_TEST

/* The sysfs files falcon-sim writes, read back by falcon_hp_check_bars(). */
START_TEST(test_check_bars)
{
	const char *root = tree();
	struct falcon_pcicfg_spec s;

	falcon_pcicfg_default_spec(&s, 0x10de, 0x1db4, FALCON_CLASS_3D, FALCON_PCIE_ENDPOINT);
	falcon_pcicfg_default_bars(&s, 0x63);
	ck_assert_int_eq(falcon_pcicfg_write_sysfs(root, "0000:63:00.0", &s, 0), FALCON_OK);
	ck_assert_int_eq(falcon_hp_check_bars(root, "0000:63:00.0"), FALCON_OK);
	s.bars_unassigned = 1u << 1;
	ck_assert_int_eq(falcon_pcicfg_write_sysfs(root, "0000:63:00.0", &s, 0), FALCON_OK);
	ck_assert_int_eq(falcon_hp_check_bars(root, "0000:63:00.0"), FALCON_ERR_PCI);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "0000:63:00.0 BAR1 (64-bit prefetchable "
				     "memory) left unassigned"));
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "2 MiB of prefetchable MMIO"));
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "pci=hpmmioprefsize="));
	/* the resource file written after the directory and config (as
	 * device_add() and falcon-sim do): waited for, then judged (it was
	 * read as missing and the unassigned BAR passed) */
	{
		char res[4200], later[4300];
		pid_t pid;
		int st;

		ck_assert_int_eq(falcon_pcicfg_write_sysfs(root, "0000:63:00.0", &s, 0), FALCON_OK);
		snprintf(res, sizeof(res), "%s/bus/pci/devices/0000:63:00.0/resource", root);
		snprintf(later, sizeof(later), "%s.later", res);
		ck_assert_int_eq(rename(res, later), 0);
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			struct timespec ts = { 0, 200000000L };

			nanosleep(&ts, NULL);
			_exit(rename(later, res) == 0 ? 0 : 1);
		}
		ck_assert_int_eq(falcon_hp_check_bars(root, "0000:63:00.0"), FALCON_ERR_PCI);
		ck_assert_int_eq(waitpid(pid, &st, 0), pid);
		ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	/* a device without files to judge (another kind of tree) passes */
	ck_assert_int_eq(falcon_hp_check_bars(root, "0000:70:00.0"), FALCON_OK);
}
END_TEST

/* ACS of a real root port (fixtures/pci pciutils laptop, Sunrise Point-LP
 * 00:1c.0: ACSCap SrcValid+ TransBlk+ ReqRedir+ CmpltRedir+, ACSCtl all
 * off), then with ReqRedir and CmpltRedir turned on in a copy. */
START_TEST(test_acs_fixture)
{
	const char *path = fixture_path("pci/pciutils_test_laptop_mx150_tb3_xxxx.txt");
	struct falcon_pcicfg_info info;
	struct pcihex_dev *v;
	size_t n, i;

	if (path == NULL)
		return;
	v = pcihex_read(path, &n);
	ck_assert_ptr_nonnull(v);
	for (i = 0; i < n; i++)
		if (!strcmp(v[i].slot, "0000:00:1c.0"))
			break;
	ck_assert_uint_lt(i, n);
	ck_assert_int_eq(falcon_pcicfg_parse(v[i].cfg, v[i].len, &info), FALCON_OK);
	ck_assert_int_ne(info.acs_offset, 0);
	ck_assert_uint_eq(info.acs_cap, FALCON_ACS_SV | FALCON_ACS_TB | FALCON_ACS_RR |
			  FALCON_ACS_CR);
	ck_assert_uint_eq(info.acs_ctrl, 0);
	v[i].cfg[info.acs_offset + 6] = FALCON_ACS_RR | FALCON_ACS_CR;
	ck_assert_int_eq(falcon_pcicfg_parse(v[i].cfg, v[i].len, &info), FALCON_OK);
	ck_assert_uint_eq(info.acs_ctrl, FALCON_ACS_RR | FALCON_ACS_CR);
	free(v);
}
END_TEST

/* A device whose config space reads all-ones stays in the scan, marked. */
START_TEST(test_all_ones)
{
	const char *root = tree();
	struct falcon_topo *t = NULL;
	const struct falcon_pci_dev *d;
	uint8_t ones[FALCON_PCICFG_SIZE];
	char path[4096];
	FILE *f;

	gpu(root, "0000:63:00.0");
	snprintf(path, sizeof(path), "%s/bus/pci/devices/0000:63:00.0/config", root);
	memset(ones, 0xff, sizeof(ones));
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(ones, 1, sizeof(ones), f), sizeof(ones));
	fclose(f);
	/* falcon-sim's fell_off: written all-ones, the ID files as enumerated */
	{
		struct falcon_pcicfg_spec sp;

		falcon_pcicfg_default_spec(&sp, 0x10de, 0x1db4, FALCON_CLASS_3D,
					   FALCON_PCIE_ENDPOINT);
		sp.all_ones = true;
		ck_assert_int_eq(falcon_pcicfg_write_sysfs(root, "0000:64:00.0", &sp, 0),
				 FALCON_OK);
	}
	ck_assert_int_eq(falcon_topo_scan(root, NULL, 0, &t), FALCON_OK);
	d = falcon_topo_find(t, "0000:63:00.0");
	ck_assert_ptr_nonnull(d);
	ck_assert(d->all_ones);
	ck_assert_int_eq(d->kind, FALCON_PCI_GPU);
	d = falcon_topo_find(t, "0000:64:00.0");
	ck_assert_ptr_nonnull(d);
	ck_assert(d->all_ones);
	ck_assert_uint_eq(d->vendor_id, 0x10de);
	ck_assert_int_eq(d->kind, FALCON_PCI_GPU);
	ck_assert(!falcon_topo_find(t, "0000:62:00.0")->all_ones);
	falcon_topo_free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("hotplug");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_nvidia_info);
	tcase_add_test(tc, test_gpu_ident_file);
	tcase_add_test(tc, test_nvme_serial);
	tcase_add_test(tc, test_bars_fixture);
	tcase_add_test(tc, test_check_bars);
	tcase_add_test(tc, test_acs_fixture);
	tcase_add_test(tc, test_all_ones);

	tcase_add_test(tc, test_busdir);
	tcase_add_test(tc, test_rescan_remove);
	tcase_add_test(tc, test_wait_appear);
	tcase_add_test(tc, test_wait_bounds);
	tcase_add_test(tc, test_bus_signature);
	tcase_add_test(tc, test_holders);
	tcase_add_test(tc, test_dev_nodes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
