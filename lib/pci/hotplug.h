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

#include <stdint.h>

#include "core/falcon_err.h"
#include "core/util.h"
#include "pci/pcicfg.h"

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
 * falcon_hp_bus_signature - a hash (FNV-1a 64) of the names under
 * BUSDIR/devices (falcon_hp_busdir() of root), each device directory's
 * mtime and its config file's size: it changes when a function comes or
 * goes or its config space is written.  0 when the directory cannot be
 * read.  No libpci scan: a readdir and a stat per device.
 */
unsigned long long falcon_hp_bus_signature(const char *root);

/*
 * falcon_hp_wait_change - wait until falcon_hp_bus_signature(root) is not
 * *sig (*sig 0: any counts), polling as falcon_hp_wait() does (a step of
 * 1 ms doubling to 10 ms, slept before each look).  FALCON_OK with *sig
 * updated; FALCON_ERR_TIMEOUT (detail "what: not changed after N ms")
 * when timeout_ms (>= 0) ran out.  What the change means is the caller's:
 * it scans and decides (no callback).
 */
falcon_err_t falcon_hp_wait_change(const char *root, unsigned long long *sig, long timeout_ms,
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
 *   - NVIDIA GPU: DEV/nvidia<minor>, minor from PROC/driver/nvidia/gpus/
 *     BDF/information ("Device Minor:", falcon_hp_parse_nvidia_info()),
 *     the nvidia driver's file; DEV is falcon_hp_hostdir(root, "dev"),
 *     PROC the proc argument or, when NULL, falcon_hp_hostdir(root, "proc");
 *   - NVMe: DEV/<name> for each BUSDIR/devices/BDF/nvme/<name> controller
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

/*
 * falcon_hp_hostdir - where the host's /proc or /dev (which: "proc" or
 * "dev") is for a sysfs root, into buf (n bytes): "/proc" and "/dev" for
 * NULL, "" and "/sys" (a real host); ROOT/proc and ROOT/dev for any other
 * root (falcon-sim writes its emulation of the nvidia driver's /proc files
 * and the /dev/nvidiaN nodes there, falcon-sim(1)).  NULL when it does not
 * fit.
 */
char *falcon_hp_hostdir(const char *root, const char *which, char *buf, size_t n);

/* What the nvidia driver says of one GPU. */
struct falcon_gpu_ident {
	int minor;            /* "Device Minor:" (/dev/nvidia<minor>), -1 = unknown */
	char uuid[48];        /* "GPU UUID:", "GPU-8-4-4-4-12 hex"; "" = none */
	char bdf[FALCON_BDF_LEN]; /* "Bus Location:", "" = none */
};

/*
 * falcon_hp_parse_nvidia_info - parse the text of the nvidia driver's
 * /proc/driver/nvidia/gpus/BDF/information into *id.  The format is the
 * driver's (NVIDIA open-gpu-kernel-modules kernel-open/nvidia/nv-procfs.c
 * nv_procfs_read_gpu_info(): one "Key: \t value" line each, "GPU UUID:"
 * left out when the driver has none, "Device Minor: \t %u").  Lines are
 * matched by their key, in any order; others are ignored.  A UUID that is
 * not "GPU-" and 32 hex digits in 8-4-4-4-12 groups is left out (uuid "")
 * so that it never reaches CUDA_VISIBLE_DEVICES.  FALCON_ERR_PARSE naming
 * the line when "Device Minor:" is missing or not 0..255.  Pure.
 */
falcon_err_t falcon_hp_parse_nvidia_info(const char *text, struct falcon_gpu_ident *id);

/*
 * falcon_hp_gpu_ident - read and parse PROCDIR/driver/nvidia/gpus/BDF/
 * information (PROCDIR: falcon_hp_hostdir(root, "proc")).  FALCON_ERR_NOTFOUND
 * when the file is not there (no nvidia driver bound, or not an NVIDIA
 * GPU), FALCON_ERR_PARSE (path and line) when it does not parse,
 * FALCON_ERR_INVAL for a malformed BDF.
 */
falcon_err_t falcon_hp_gpu_ident(const char *root, const char *bdf, struct falcon_gpu_ident *id);

/*
 * falcon_hp_nvme_serial - the serial number of the NVMe controller of the
 * PCI function bdf: BUSDIR/devices/BDF/nvme/nvme<N>/serial (Linux
 * drivers/nvme/host: the 20-byte Identify Controller SN field, space
 * padded) with the padding cut, into buf (n bytes).  FALCON_ERR_NOTFOUND
 * when there is none (no controller or an empty serial).
 */
falcon_err_t falcon_hp_nvme_serial(const char *root, const char *bdf, char *buf, size_t n);

/*
 * falcon_hp_unassigned_bar - the first BAR that config space (cfg, len
 * bytes, a type 0 header) says is implemented (its register not 0: an
 * address or the type bits of an I/O, 64-bit or prefetchable BAR) while
 * the sysfs resource text (pci-sysfs.c resource_show(): "start end flags"
 * in hex per line, line i = BAR i) gives it no address: start 0 (a line of
 * zeros, as Linux leaves a BAR it could not fit in the bridge windows, or
 * start 0 with a size).  Returns its index 0..5, -1 when none; -2 when the
 * resource text is malformed (a line that is not three hex numbers).
 * A 32-bit BAR that was never assigned reads 0 and is not seen: the large
 * BARs that a hot-plug window misses are 64-bit.  Pure.
 */
int falcon_hp_unassigned_bar(const uint8_t *cfg, size_t len, const char *resource);

/* falcon_bar_type_str - "32-bit memory", "64-bit prefetchable memory", ... */
const char *falcon_bar_type_str(falcon_bar_type_t t);

/*
 * falcon_hp_check_bars - read BUSDIR/devices/BDF/config and resource and
 * apply falcon_hp_unassigned_bar().  While the device's directory is
 * there but its config or resource file is not yet whole, waits up to 1 s
 * (sleeps; Linux creates a new device's attributes after its directory).
 * FALCON_OK when every implemented BAR has an address (or the files are
 * still missing: nothing to judge);
 * FALCON_ERR_PCI when one has none, the detail naming the BDF, the BAR
 * and its type and what to do: hot-plug bridges reserve only 2 MiB of
 * prefetchable memory by default (Linux Documentation/admin-guide/
 * kernel-parameters.txt, pci=hpmmioprefsize=), so boot with a larger
 * pci=hpmmioprefsize= (or pci=realloc) or raise the firmware's hot-plug
 * resource padding for the Falcon adapter's ports.
 */
falcon_err_t falcon_hp_check_bars(const char *root, const char *bdf);

#endif /* FALCON_HOTPLUG_H */
