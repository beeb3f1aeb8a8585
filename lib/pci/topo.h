/*
 * topo.h - the PCIe topology of one host, read with libpci's linux-sysfs
 * method from a sysfs root (default /sys): which GPUs and NVMe drives are
 * local and which sit in a Falcon chassis, how every GPU pair is connected
 * (nvidia-smi class and the paper's L-L/F-L/F-F class), which links
 * trained below what both ends support, and the Table III label.
 *
 * Used by `falconctl topo`, falcon-prolog and falcon-ncclcheck.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_TOPO_H
#define FALCON_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/conf.h"
#include "core/falcon_err.h"
#include "pci/pcicfg.h"
#include "core/util.h"

struct json_object;

/* What a PCI function is, from its class code and header type.  Prefix
 * FALCON_PCI_ (not FALCON_DEV_: that is chassis.h's falcon_dev_type_t, the
 * Redfish view of a slot) so both headers can be included together. */
typedef enum {
	FALCON_PCI_OTHER = 0,
	FALCON_PCI_GPU,       /* class 0x03xx from NVIDIA 10de, AMD 1002 or Intel 8086 */
	FALCON_PCI_NVME,      /* class 0x010802 */
	FALCON_PCI_BRIDGE,    /* type 1 header: root port, switch port, other bridge */
} falcon_dev_kind_t;

typedef enum { FALCON_LOC_LOCAL = 0, FALCON_LOC_FALCON } falcon_loc_t;

/* Path classes as `nvidia-smi topo -m` names them (its legend):
 * PIX at most one PCIe switch/bridge, PXB several bridges without the host
 * bridge, PHB through a host bridge, NODE between host bridges of one NUMA
 * node, SYS across NUMA nodes.  NV# is not visible from PCI. */
typedef enum {
	FALCON_SMI_X = 0,     /* the same device */
	FALCON_SMI_PIX,
	FALCON_SMI_PXB,
	FALCON_SMI_PHB,
	FALCON_SMI_NODE,
	FALCON_SMI_SYS,
} falcon_smi_class_t;

/* Link classes of the paper (Table IV): both local, one Falcon, both Falcon. */
typedef enum { FALCON_PATH_LL = 0, FALCON_PATH_FL, FALCON_PATH_FF } falcon_path_class_t;

/*
 * One link as seen from a device: its LnkSta against the best both ends
 * can do.  Speeds in GT/s (PCIe r4.0 sec 7.5.3.6/7.5.3.8), widths in lanes.
 */
struct falcon_link {
	bool known;           /* the device has a PCI Express capability */
	double speed_gts;     /* LnkSta Current Link Speed */
	int width;            /* LnkSta Negotiated Link Width */
	double max_speed_gts; /* min(device LnkCap, upstream port LnkCap) */
	int max_width;        /* min(device LnkCap, upstream port LnkCap) */
	bool degraded;        /* trained below max (see falcon_link_judge()) */
	bool idle;            /* below max speed only, read as power saving */
};

struct falcon_pci_dev {
	char bdf[FALCON_BDF_LEN];   /* "0000:3b:00.0" */
	unsigned domain, bus, dev, func;
	uint16_t vendor_id, device_id;
	uint32_t class_code;        /* 24 bits */
	falcon_dev_kind_t kind;
	struct falcon_pcicfg_info cfg; /* parsed config space */
	int parent;                 /* index of the bridge above it; -1 on a root bus */
	unsigned root_bus;          /* domain << 8 | bus of the root bus (host bridge) */
	int numa_node;              /* sysfs numa_node, else the nearest ancestor's; -1 */
	falcon_loc_t location;
	int adapter;                /* index in the adapter list above it; -1 = local */
	struct falcon_link link;
	/* The physical slot it sits in: slot_name is the name of the
	 * /sys/bus/pci/slots entry whose address is its domain:bus:device
	 * (libpci PCI_FILL_PHYS_SLOT), "" when none; slot is that name's
	 * leading decimal number, else the Physical Slot Number of the port
	 * above it when that port has Slot Implemented (PCIe Base 4.0 sec
	 * 7.5.3.2 bit 8, 7.5.3.9 SltCap bits 31:19), else -1. */
	char slot_name[16];
	int slot;
	/* Its config space reads all-ones (vendor and device ffff): the
	 * device fell off the bus (link down, hung, surprise-removed).  cfg
	 * is then all zero; IDs and class come from sysfs' cached files. */
	bool all_ones;
};

struct falcon_topo {
	size_t ndevs;
	struct falcon_pci_dev *devs;  /* every function, sorted by BDF */
	size_t ngpus;
	int *gpus;                    /* indices into devs, sorted by BDF */
	size_t nnvme;
	int *nvme;
	unsigned gpu_label;           /* FALCON_CONF_TOPO_{LOCAL,HYBRID,FALCON}GPUS, 0 = no GPU */
	unsigned storage_label;       /* FALCON_CONF_TOPO_LOCALNVME/FALCONNVME, 0 = no NVMe */
	size_t nmissing;              /* configured adapters not found on the bus */
	char missing[FALCON_MAX_PORTS][FALCON_BDF_LEN];
};

/*
 * falcon_topo_scan - enumerate the PCI functions under root with libpci's
 * linux-sysfs method and classify them.
 *
 * root: a directory that plays /sys (libpci gets sysfs.path = ROOT/bus/pci);
 * a directory that itself contains devices/ (a bus/pci directory) is taken
 * as is; NULL means /sys.  adapters: nadapters (at most FALCON_MAX_PORTS)
 * Falcon host adapter BDFs ("0000:5e:00.0" or "5e:00.0"); every GPU/NVMe
 * below one of them is `falcon`, the rest `local`.  An adapter that is not
 * on the bus is listed in (*out)->missing, not an error (the cable may be
 * out).
 *
 * The tree is built from the bridges' secondary/subordinate bus ranges
 * (PCI-to-PCI Bridge 1.2 sec 3.2.5.3/3.2.5.4); links are judged with
 * falcon_link_judge() against the upstream port's LnkCap.
 *
 * On success *out is a new falcon_topo (free with falcon_topo_free()).
 * Errors, with falcon_errmsg() naming the path or BDF: FALCON_ERR_INVAL bad
 * adapter BDF or too many; FALCON_ERR_NOTFOUND root (or its devices/
 * directory) missing; FALCON_ERR_PARSE a devices/ entry that is no BDF, a
 * vendor/device/class file missing or malformed, config space shorter than
 * its header says, a capability list that loops, bridges whose bus ranges
 * overlap; FALCON_ERR_PCI a device without a readable config file or a
 * libpci failure; FALCON_ERR_PERM config space readable only in part (an
 * unprivileged user on a real /sys: run as root); FALCON_ERR_NOMEM.
 * Never exits (libpci's error callback is caught) and never loops.
 */
falcon_err_t falcon_topo_scan(const char *root, const char *const *adapters,
			      size_t nadapters, struct falcon_topo **out);

/*
 * falcon_topo_scan_host - falcon_topo_scan() with the Adapter= list of a
 * falcon.conf HostName line (NULL host: no adapters, everything local).
 */
falcon_err_t falcon_topo_scan_host(const char *root, const struct falcon_host_conf *host,
				   struct falcon_topo **out);

/* falcon_topo_free - free a topology and everything it owns; NULL is fine. */
void falcon_topo_free(struct falcon_topo *topo);

/*
 * falcon_topo_find - the device with this BDF ("0000:3b:00.0" or
 * "3b:00.0", any case), a pointer into topo; NULL when absent or malformed.
 */
const struct falcon_pci_dev *falcon_topo_find(const struct falcon_topo *topo,
					      const char *bdf);

/* falcon_topo_identify() outcomes other than an index. */
#define FALCON_TOPO_SLOT_EMPTY    (-1)  /* nothing in the slot (yet) */
#define FALCON_TOPO_SLOT_MISMATCH (-2)  /* the slot holds something else */

/*
 * falcon_topo_identify - the device in a physical slot: the one function
 * of kind `kind` (and vendor:device, 0 = any) whose slot (see struct
 * falcon_pci_dev: /sys/bus/pci/slots via libpci, else the Physical Slot
 * Number of the port above it) is `slot` and which sits below adapter
 * index `adapter` (into the scan's adapter list; must be >= 0: a host's
 * own slots carry Physical Slot Numbers too, so a slot number means the
 * chassis' slot only below its adapter).  Identity by location only: a
 * function of the same IDs elsewhere on the bus is never taken for it
 * (the DESIGN "Device identity" rule).
 *
 * Returns its index into topo->devs; FALCON_TOPO_SLOT_EMPTY when no
 * function below the adapter is in that slot (not on the bus yet, or the
 * adapter missing); FALCON_TOPO_SLOT_MISMATCH when the slot holds
 * functions but none of that kind and IDs, or more than one.  why (whylen
 * bytes, may be NULL) gets what was found: "slot 2 below 0000:3b:00.0:
 * empty", "slot 2 below 0000:3b:00.0 holds 0000:3e:00.0 8086:0953, expected
 * GPU 10de:1db4" ("expected only one GPU" when several match).  adapter_bdf names the adapter in why (NULL: "adapter
 * N").  Never allocates.
 */
int falcon_topo_identify(const struct falcon_topo *topo, int adapter, const char *adapter_bdf,
			 int slot, falcon_dev_kind_t kind, uint16_t vendor, uint16_t device,
			 char *why, size_t whylen);

/*
 * falcon_topo_pair - path classes between devices a and b (indices into
 * topo->devs).  smi: PIX/PXB with the lowest common bridge, counting each
 * switch (upstream port with its downstream ports) once; PHB when they share
 * only the root bus; NODE different root buses with the same NUMA node
 * (unknown counts as the same); SYS different NUMA nodes.  paper: L-L, F-L
 * or F-F from the two locations.  Either out pointer may be NULL.
 * FALCON_ERR_INVAL for an index out of range.
 */
falcon_err_t falcon_topo_pair(const struct falcon_topo *topo, size_t a, size_t b,
			      falcon_smi_class_t *smi, falcon_path_class_t *paper);

/*
 * falcon_link_judge - fill link->degraded/idle from the device's parsed
 * config (dev), its upstream port's (port, NULL when none or not PCIe) and
 * the device kind.
 *
 * Expected = min(device LnkCap, port LnkCap) for speed and width.  A link
 * below expected in width is degraded.  Below in speed only: a GPU at
 * 2.5 GT/s with full width, or any device not in D0 (PMCSR PowerState,
 * PCI PM 1.2 sec 3.2.4), is idle (GPUs drop to 2.5 GT/s when idle, see
 * fixtures/pci asus_esc8000a: RTX 6000 Ada in D0 at 2.5 GT/s "downgraded"),
 * not degraded; any other speed shortfall (e.g. 8 GT/s in a 16 GT/s slot)
 * is degraded.  A link that is down (width 0) in D0 is degraded.
 */
void falcon_link_judge(const struct falcon_pcicfg_info *dev,
		       const struct falcon_pcicfg_info *port,
		       falcon_dev_kind_t kind, struct falcon_link *link);

/* "PIX" ... "SYS", "X"; "L-L", "F-L", "F-F"; "local"/"falcon". Static. */
const char *falcon_smi_class_str(falcon_smi_class_t c);
const char *falcon_path_class_str(falcon_path_class_t c);
const char *falcon_loc_str(falcon_loc_t l);

/*
 * falcon_topo_to_json - the topology in the schema of doc/falconctl.1
 * (COMMON contract): {"topology", "storage", "gpus", "nvme", "matrix"}.
 * *out is a new json-c object (release with json_object_put()).
 * FALCON_ERR_NOMEM on allocation failure.
 */
falcon_err_t falcon_topo_to_json(const struct falcon_topo *topo, struct json_object **out);

/* falcon_bdf_normalise(): see util.h (included above). */

#endif /* FALCON_TOPO_H */
