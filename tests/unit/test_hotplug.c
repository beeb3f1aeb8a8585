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
#include <unistd.h>

#include "pci/hotplug.h"
#include "pci/pcicfg.h"
#include "testutil.h"
#include "core/util.h"

/* paths below are built from a temporary directory of known short length */
#pragma GCC diagnostic ignored "-Wformat-truncation"

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
	put(path, "Model: \t Tesla V100-PCIE-16GB\nIRQ:   88\nGPU UUID: GPU-x\n"
	    "Video BIOS: \t 88.00.41.00.01\nBus Type: \t PCIe\nDMA Size: \t 47 bits\n"
	    "DMA Mask: \t 0x7fffffffffff\nBus Location: \t 0000:62:00.0\nDevice Minor: \t 3\n");
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
	char *paths[4] = { NULL };
	size_t n = 0, i;

	ck_assert_int_eq(falcon_hp_dev_nodes(root, proc, "0000:62:00.0", paths, &n, 4),
			 FALCON_OK);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(paths[0], "/dev/nvidia3");
	/* an NVMe controller */
	mkdirs(root, "bus/pci/devices/0000:62:00.0/nvme/nvme4");
	ck_assert_int_eq(falcon_hp_dev_nodes(root, proc, "0000:62:00.0", paths, &n, 4),
			 FALCON_OK);
	ck_assert_int_eq(n, 3);
	ck_assert_str_eq(paths[1], "/dev/nvme4");
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

static Suite *suite(void)
{
	Suite *s = suite_create("hotplug");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_busdir);
	tcase_add_test(tc, test_rescan_remove);
	tcase_add_test(tc, test_wait_appear);
	tcase_add_test(tc, test_wait_bounds);
	tcase_add_test(tc, test_holders);
	tcase_add_test(tc, test_dev_nodes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
