/*
 * hotplug.h - PCI hot-plug from the host's side, through sysfs: rescan the
 * bus, remove a device, wait (bounded) for devices to appear or go, and
 * find the processes that hold a device open.
 *
 * Kernel interface: Documentation/ABI/testing/sysfs-bus-pci (/sys/bus/pci/
 * rescan, /sys/bus/pci/devices/.../remove: write "1").  Every function takes
 * a sysfs root (the SysfsRoot contract: a directory that plays /sys, or a
 * bus/pci directory that itself holds devices/; NULL = /sys), so that the
 * prolog runs the same code on a real host and against falcon-sim's host
 * tree, and a proc root (NULL = /proc) so that holder detection is tested
 * against a generated one.  A BDF is read as falcon_bdf_normalise() reads
 * it (DDDD:BB:DD.F or BB:DD.F, hex in either case) and used in sysfs's
 * lower-case spelling; anything else is FALCON_ERR_INVAL.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_HOTPLUG_H
#define FALCON_HOTPLUG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/falcon_err.h"

/*
 * falcon_hp_busdir - the bus/pci directory of root into buf (n bytes):
 * root itself when it holds devices/, else root/bus/pci; "/sys/bus/pci"
 * for NULL.  Returns buf, NULL when it does not fit.
 */
char *falcon_hp_busdir(const char *root, char *buf, size_t n);

/*
 * falcon_hp_rescan - write "1" to BUSDIR/rescan.  FALCON_ERR_PCI naming the
 * file and strerror when it cannot be opened or written (on a real host
 * the write returns when the kernel finished enumerating; falcon-sim makes
 * the devices appear asynchronously, hence falcon_hp_wait()).
 */
falcon_err_t falcon_hp_rescan(const char *root);

/*
 * falcon_hp_remove - write "1" to BUSDIR/devices/BDF/remove.  FALCON_OK
 * when the device is not there (already gone: idempotent), FALCON_ERR_PCI
 * naming the file and strerror when the write fails, FALCON_ERR_INVAL for a
 * malformed BDF.  On a real host the write blocks until the driver let go
 * (unbind hangs while a process holds /dev/nvidiaN): find holders first.
 */
falcon_err_t falcon_hp_remove(const char *root, const char *bdf);

/* falcon_hp_present - BUSDIR/devices/BDF exists (as a link or directory). */
bool falcon_hp_present(const char *root, const char *bdf);

/*
 * falcon_hp_wait - call cond(ctx) until it returns > 0 (done: FALCON_OK),
 * < 0 (its error code is returned as is; cond sets the detail), or
 * timeout_ms ran out (FALCON_ERR_TIMEOUT with what in the detail).
 * Polls at 1 ms, doubling to 10 ms (CLOCK_MONOTONIC; a rescan on a real
 * host completes in the write, falcon-sim in about a millisecond).  cond
 * runs at least once, even with timeout_ms 0.
 */
falcon_err_t falcon_hp_wait(int (*cond)(void *ctx), void *ctx, long timeout_ms,
			    const char *what);

/*
 * falcon_hp_wait_gone - wait (bounded) until none of the n BDFs is under
 * devices/.  FALCON_ERR_TIMEOUT names the first still there.
 */
falcon_err_t falcon_hp_wait_gone(const char *root, const char *const *bdfs, size_t n,
				 long timeout_ms);

/*
 * falcon_hp_dev_nodes - the /dev nodes through which processes hold the
 * PCI function bdf, appended to paths (array of *npaths, capacity cap;
 * strings owned by the caller: free() each):
 *   - NVIDIA GPU: /dev/nvidia<minor>, minor from PROC/driver/nvidia/gpus/
 *     BDF/information ("Device Minor:"), the nvidia driver's file;
 *   - NVMe: /dev/<name> for each BUSDIR/devices/BDF/nvme/<name> controller
 *     (its namespaces and partitions are matched by prefix, see below).
 * A device without driver files adds nothing (not an error).
 * FALCON_ERR_NOMEM, FALCON_ERR_INVAL when cap is exceeded.
 */
falcon_err_t falcon_hp_dev_nodes(const char *root, const char *proc, const char *bdf,
				 char **paths, size_t *npaths, size_t cap);

/* One process holding a device. */
struct falcon_holder {
	pid_t pid;
	char comm[32];     /* PROC/PID/comm */
	char what[128];    /* the /dev node it holds, or "daemon" for a known one */
};

/* Daemons known to hold every GPU (matched against comm, 15 chars). */
extern const char *const falcon_hp_gpu_daemons[];

/*
 * falcon_hp_holders - scan PROC (NULL = /proc) for processes with an open
 * file descriptor whose link (PROC/PID/fd/N) is one of paths[0..npaths) or
 * one of them followed by a non-digit (so /dev/nvme0 catches /dev/nvme0n1p2
 * but /dev/nvidia1 not /dev/nvidia10); with gpu_daemons, also every process
 * whose comm names one of falcon_hp_gpu_daemons.  Each process once, in pid
 * order, into *out (malloc'd array of *nout; free()); processes that vanish
 * or cannot be read are skipped.  FALCON_ERR_IO when PROC cannot be read,
 * FALCON_ERR_NOMEM.
 */
falcon_err_t falcon_hp_holders(const char *proc, char *const *paths, size_t npaths,
			       bool gpu_daemons, struct falcon_holder **out, size_t *nout);

#endif /* FALCON_HOTPLUG_H */
