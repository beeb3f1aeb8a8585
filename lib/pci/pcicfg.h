/*
 * pcicfg.h - PCI configuration space: synthesise one from IDs and the specs,
 * write it as a sysfs-shaped device directory, and parse one from bytes.
 *
 * The synthesiser is product code: falcon-sim uses it to make a hot-added
 * chassis device appear under <root>/bus/pci/devices/<BDF>/, and the tests
 * use it to hand-build whole hosts that real libpci and lspci then read.
 * The parser is the one place that interprets config-space bytes (header,
 * capability chain, PCI Express capability); lib/pci/topo.c and the fuzz target
 * call it.
 *
 * References: PCI Local Bus Specification 3.0 (PCI 3.0) sec 6.1 (type 0
 * header), sec 6.7 and 6.8 (capability list, MSI); PCI-to-PCI Bridge
 * Architecture 1.2 sec 3.2 (type 1 header); PCI Bus Power Management 1.2
 * sec 3.2 (PM capability); PCI Express Base Specification r4.0 (PCIe r4.0)
 * sec 7.5.3 (PCI Express capability), sec 7.6 (extended capabilities).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_PCICFG_H
#define FALCON_PCICFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/falcon_err.h"

#define FALCON_PCICFG_SIZE 4096     /* PCIe extended config space, PCIe r4.0 sec 7.2.2 */
#define FALCON_PCICFG_LEGACY 256    /* conventional config space, PCI 3.0 sec 6.1 */
#define FALCON_PCICFG_HEADER 64     /* the predefined header, PCI 3.0 sec 6.1 */

/* Class codes (24 bits: base class, sub-class, prog-if), PCI Code and ID
 * Assignment Specification r1.11 sec 1. */
#define FALCON_CLASS_VGA         0x030000u
#define FALCON_CLASS_3D          0x030200u
#define FALCON_CLASS_NVME        0x010802u
#define FALCON_CLASS_HOST_BRIDGE 0x060000u
#define FALCON_CLASS_PCI_BRIDGE  0x060400u

/* Device/Port Type of the PCI Express Capabilities register,
 * PCIe r4.0 sec 7.5.3.2 bits 7:4. */
typedef enum {
	FALCON_PCIE_ENDPOINT        = 0x0,
	FALCON_PCIE_LEGACY_ENDPOINT = 0x1,
	FALCON_PCIE_RC_INTEGRATED   = 0x9,
	FALCON_PCIE_ROOT_PORT       = 0x4,
	FALCON_PCIE_UPSTREAM        = 0x5,  /* switch upstream port */
	FALCON_PCIE_DOWNSTREAM      = 0x6,  /* switch downstream port */
	FALCON_PCIE_PCIE_TO_PCI     = 0x7,
	FALCON_PCIE_PCI_TO_PCIE     = 0x8,
} falcon_pcie_type_t;

/* BARs of a type 0 header (PCI 3.0 sec 6.2.5.1). */
#define FALCON_PCI_BARS 6
typedef enum {
	FALCON_BAR_NONE = 0,
	FALCON_BAR_MEM32,           /* 32-bit memory, not prefetchable */
	FALCON_BAR_MEM64,           /* 64-bit memory, not prefetchable */
	FALCON_BAR_MEM64_PREF,      /* 64-bit memory, prefetchable */
	FALCON_BAR_IO,              /* I/O space */
} falcon_bar_type_t;

struct falcon_pcicfg_bar {
	falcon_bar_type_t type;
	uint64_t base;              /* bus address the BAR is assigned */
	uint64_t size;              /* bytes, a power of two; 0 = no BAR */
};

/* ACS Capability/Control bits, PCIe r4.0 sec 7.7.7.2-7.7.7.3. */
#define FALCON_ACS_SV 0x0001        /* Source Validation */
#define FALCON_ACS_TB 0x0002        /* Translation Blocking */
#define FALCON_ACS_RR 0x0004        /* P2P Request Redirect */
#define FALCON_ACS_CR 0x0008        /* P2P Completion Redirect */
#define FALCON_ACS_UF 0x0010        /* Upstream Forwarding */
#define FALCON_ACS_EC 0x0020        /* P2P Egress Control */
#define FALCON_ACS_DT 0x0040        /* Direct Translated P2P */

/*
 * What to synthesise.  Link speeds are the PCIe encoding used by LnkCap,
 * LnkSta and LnkCtl2 (PCIe r4.0 sec 7.5.3.6/7.5.3.8: 1 = 2.5 GT/s, 2 = 5,
 * 3 = 8, 4 = 16, 5 = 32); widths are lanes (1..32).
 */
struct falcon_pcicfg_spec {
	uint16_t vendor_id;
	uint16_t device_id;
	uint32_t class_code;        /* e.g. FALCON_CLASS_3D; 0x0604xx makes a type 1 header */
	uint8_t revision;
	uint16_t subsys_vendor;     /* type 0: header 0x2c; type 1: SSVID capability */
	uint16_t subsys_device;
	bool multifunction;         /* header type bit 7 */
	falcon_pcie_type_t port_type;
	/* type 1 only: bus numbers, PCI-to-PCI Bridge 1.2 sec 3.2.5.2-3.2.5.4 */
	uint8_t primary_bus;
	uint8_t secondary_bus;
	uint8_t subordinate_bus;
	bool slot;                  /* root/downstream port: Slot Implemented + SltCap */
	uint16_t slot_number;       /* physical slot number in SltCap bits 31:19 */
	/* link */
	uint8_t port_number;        /* LnkCap bits 31:24 */
	uint8_t max_speed;          /* LnkCap Max Link Speed, 1..5 */
	uint8_t max_width;          /* LnkCap Maximum Link Width */
	uint8_t cur_speed;          /* LnkSta Current Link Speed; 0 = max_speed */
	uint8_t cur_width;          /* LnkSta Negotiated Link Width; 0 = max_width */
	bool link_down;             /* DL_Active clear, LnkSta speed/width 0 */
	uint8_t power_state;        /* PMCSR PowerState: 0 = D0 .. 3 = D3hot */
	/* type 0 only: the Base Address Registers (PCI 3.0 sec 6.2.5.1); a
	 * 64-bit BAR takes its index and the next; base must be aligned to
	 * size (a power of two).  See falcon_pcicfg_default_bars(). */
	struct falcon_pcicfg_bar bar[FALCON_PCI_BARS];
	uint8_t bars_unassigned;    /* bit i: BAR i left unassigned (address 0 in
				     * config, its resource line zeros) */
	/* ACS extended capability (PCIe r4.0 sec 7.7.7) on a root or
	 * downstream port: ACS Capability and ACS Control registers */
	bool acs;
	uint16_t acs_cap, acs_ctrl;
	/* falcon_pcicfg_write_sysfs(): the config file reads all-ones (a
	 * device that stopped answering) while the ID files keep what the
	 * kernel read at enumeration */
	bool all_ones;
};

/*
 * falcon_pcicfg_default_spec - fill *spec with a plausible device of the
 * given IDs, class and port type: Gen3 x16 link trained at full speed, D0,
 * subsystem = vendor/device, revision 0xa1.  The caller then adjusts fields
 * (bus numbers for bridges, link speeds).  Never fails.
 */
void falcon_pcicfg_default_spec(struct falcon_pcicfg_spec *spec, uint16_t vendor_id,
				uint16_t device_id, uint32_t class_code,
				falcon_pcie_type_t port_type);

/*
 * falcon_pcicfg_default_bars - give spec the BARs of its kind of device,
 * assigned at addresses made up from bus (plausible, not a real
 * allocation: only their alignment is checked by anyone): an NVIDIA GPU
 * as `lspci -vv` shows a Tesla V100 and the GTX 1080 Ti of fixtures/pci
 * sys4028grtr: BAR0 16 MiB 32-bit memory, BAR1 (16 GiB) and BAR3 (32 MiB)
 * 64-bit prefetchable memory, BAR5 128 bytes of I/O; another GPU BAR0
 * 16 MiB and BAR1 256 MiB 64-bit prefetchable; an NVMe controller BAR0
 * 16 KiB 64-bit memory (NVMe 1.4 sec 3.1.1: MLBAR/MUBAR); any other
 * endpoint BAR0 1 MiB 32-bit memory; a bridge none.  Never fails.
 */
void falcon_pcicfg_default_bars(struct falcon_pcicfg_spec *spec, unsigned bus);

/*
 * falcon_pcicfg_build - synthesise the FALCON_PCICFG_SIZE bytes of config
 * space of spec into cfg (caller's buffer).
 *
 * Layout (mirrors real parts so that tools see the familiar offsets):
 * type 0 GPU (class 03xx): PM @0x60 -> MSI @0x68 -> PCIe @0x78 (as NVIDIA
 * GPUs, see fixtures/pci sys4028grtr dump); type 0 other: PM @0x40 -> MSI
 * @0x50 -> PCIe @0x70 (as Samsung NVMe); type 1: PM @0x40 -> MSI @0x48 ->
 * PCIe @0x68 -> SSVID @0xa4 (as PLX/Broadcom switch ports, fixtures/pci
 * pex8796).  Extended space: AER @0x100, the chain terminated (next 0).
 * Status.Capabilities List (PCI 3.0 sec 6.2.3) is set.
 *
 * Returns FALCON_ERR_INVAL (detail names the field) for a speed outside
 * 1..5, a width outside 1..32, a current speed/width above the maximum, a
 * power state above 3, or bus numbers with secondary <= primary or
 * subordinate < secondary on a bridge.
 */
falcon_err_t falcon_pcicfg_build(const struct falcon_pcicfg_spec *spec,
				 uint8_t cfg[FALCON_PCICFG_SIZE]);

/*
 * falcon_pcicfg_write_sysfs - create ROOT/bus/pci/devices/BDF/ (ROOT plays
 * /sys; parents are created) holding what libpci's linux-sysfs method and
 * lspci read, in the kernel's formats (Documentation/ABI/testing/
 * sysfs-bus-pci; drivers/pci/pci-sysfs.c): config (4096 bytes), vendor
 * "0x10de\n", device, class "0x030200\n", subsystem_vendor,
 * subsystem_device, revision "0xa1\n", irq "0\n", numa_node ("-1\n" when
 * numa_node < 0), resource ("0x%016llx 0x%016llx 0x%016llx\n" start, end,
 * flags per BAR, then the ROM: 7 lines, 13 on a bridge, as pci-sysfs.c
 * resource_show(); a BAR of spec->bar at its base with Linux's
 * IORESOURCE_* flags, a line of zeros for an unassigned or absent one),
 * enable "1\n".
 * bdf must be "DDDD:BB:DD.F" (lower-case hex).  A device directory that
 * already exists is rewritten.  Real kernels make devices/BDF a symlink
 * into devices/pci0000:00/...; libpci only needs a directory, so this
 * writes a plain directory.
 *
 * Returns FALCON_ERR_INVAL for a malformed bdf or a bad spec (see
 * falcon_pcicfg_build), FALCON_ERR_IO (path, strerror) when a file cannot
 * be written.
 */
falcon_err_t falcon_pcicfg_write_sysfs(const char *root, const char *bdf,
				       const struct falcon_pcicfg_spec *spec, int numa_node);

/*
 * falcon_pcicfg_write_slot - create ROOT/bus/pci/slots/NAME/address holding
 * "DDDD:BB:DD\n" (domain:bus:device of the slot's device: the secondary bus
 * of the port that carries the slot, device 0 for PCIe), as Linux's
 * drivers/pci/slot.c address_read_file() writes it and libpci's sysfs
 * method (PCI_FILL_PHYS_SLOT, sysfs_fill_slots()) reads it.  name is the
 * slot's name, which pciehp makes the decimal Physical Slot Number (Linux
 * appends "-N" to a name already taken).  An existing slot directory is
 * rewritten.
 *
 * Returns FALCON_ERR_INVAL for an empty name or one with '/' or a
 * domain/bus out of range (domain > 0xffff, bus > 0xff); FALCON_ERR_IO
 * (path, strerror) when a directory or the file cannot be written.
 */
falcon_err_t falcon_pcicfg_write_slot(const char *root, const char *name, unsigned domain,
				      unsigned bus);

/*
 * falcon_pcicfg_remove_slot - remove ROOT/bus/pci/slots/NAME (the slot goes
 * away with its port, as pci_destroy_slot() does); absent is fine.
 */
void falcon_pcicfg_remove_slot(const char *root, const char *name);

/*
 * falcon_pcicfg_phys_slot - the PCIe Physical Slot Number (Slot
 * Capabilities bits 31:19, PCIe Base 4.0 sec 7.5.3.9) of a Falcon 4016
 * drawer slot as the host sees it on the drawer switch's downstream port:
 * (drawer - 1) * 8 + slot, so drawer 1 is slots 1-8 and drawer 2 slots
 * 9-16, one number per slot of the chassis.  This numbering is this
 * project's (falcon-sim's, documented in falcon-sim(1) and
 * falcon-prolog(8)); H3 Platform does not publish the real chassis'
 * numbering, so a site whose chassis numbers otherwise must check it with
 * `lspci -vv` (SltCap "Slot #") before trusting the prolog's matching.
 * drawer 1..2, slot 1..8 (1-based); returns -1 for anything else.
 */
int falcon_pcicfg_phys_slot(int drawer, int slot);

/*
 * falcon_pcicfg_write_raw - like falcon_pcicfg_write_sysfs() but from
 * config bytes already made (len bytes, e.g. a real dump of 64, 256 or
 * 4096 bytes): config gets exactly those bytes, the ID files are derived
 * from the header.  len must be >= FALCON_PCICFG_HEADER.  Errors as above.
 */
falcon_err_t falcon_pcicfg_write_raw(const char *root, const char *bdf,
				     const uint8_t *cfg, size_t len, int numa_node);

/* What falcon_pcicfg_parse() finds in config bytes. */
struct falcon_pcicfg_info {
	uint16_t vendor_id;
	uint16_t device_id;
	uint32_t class_code;        /* 24 bits */
	uint8_t revision;
	uint8_t header_type;        /* 0 or 1 (bit 7 masked off), 2 = CardBus */
	bool multifunction;
	uint16_t subsys_vendor;     /* 0 when absent */
	uint16_t subsys_device;
	uint8_t primary_bus;        /* type 1 only */
	uint8_t secondary_bus;
	uint8_t subordinate_bus;
	int ncaps;                  /* conventional capabilities found */
	uint8_t cap_ids[48];        /* in chain order, ncaps of them */
	uint8_t cap_offsets[48];
	int pm_offset;              /* 0 = no PM capability */
	uint8_t power_state;        /* PMCSR 1:0; 0 (D0) without PM */
	int pcie_offset;            /* 0 = not PCI Express */
	uint8_t pcie_version;       /* capability version, 1 or 2 */
	falcon_pcie_type_t port_type;
	bool slot;                  /* Slot Implemented (7.5.3.2 bit 8) */
	uint16_t slot_number;       /* SltCap Physical Slot Number (7.5.3.9 bits
				     * 31:19) when slot, else 0 */
	uint32_t lnkcap;            /* raw registers, 0 when absent */
	uint16_t lnksta;
	uint32_t lnkcap2;           /* 0 for a version 1 capability or a short buffer */
	uint8_t max_speed;          /* LnkCap 3:0 */
	uint8_t max_width;          /* LnkCap 9:4 */
	uint8_t cur_speed;          /* LnkSta 3:0 */
	uint8_t cur_width;          /* LnkSta 9:4 */
	bool dl_active;             /* LnkSta bit 13 */
	int next_ext;               /* ext. capabilities found (0 when len < 4096) */
	int acs_offset;             /* ACS extended capability, 0 = none */
	uint16_t acs_cap, acs_ctrl; /* its Capability and Control registers */
	/* type 0: what each BAR register says (PCI 3.0 sec 6.2.5.1): the
	 * type from its low bits, the address without them; the upper half
	 * of a 64-bit BAR is FALCON_BAR_NONE.  A register of 0 is NONE. */
	falcon_bar_type_t bar_type[FALCON_PCI_BARS];
	uint64_t bar_addr[FALCON_PCI_BARS];
};

/*
 * falcon_pcicfg_parse - interpret len bytes of config space (at least the
 * 64-byte header; 256 or 4096 normally) into *info.
 *
 * Walks the capability list from the pointer at 0x34 (PCI 3.0 sec 6.7;
 * low two bits of each pointer reserved and masked) and the extended
 * capability list from 0x100 when len >= 4096 (PCIe r4.0 sec 7.6.3).
 * Every structure read must lie inside len.
 *
 * Returns FALCON_OK, or FALCON_ERR_PARSE with a detail naming the offset
 * for: len < 64; a capability pointer into the header (< 0x40) or past
 * len ("config shorter than its header says"); a capability list that
 * loops or exceeds 48 entries; an extended list that loops; a PCI Express
 * capability cut short.  Vendor 0xffff (no device) is FALCON_ERR_PARSE.
 * Pure function: no allocation, no I/O, never reads outside cfg[0..len).
 */
falcon_err_t falcon_pcicfg_parse(const uint8_t *cfg, size_t len,
				 struct falcon_pcicfg_info *info);

/*
 * falcon_pcie_speed_gts - GT/s of a link speed code (1..5 -> 2.5, 5.0, 8.0,
 * 16.0, 32.0; PCIe r4.0 sec 7.5.3.18 Supported Link Speeds Vector, and 6 ->
 * 64.0 for PCIe 6.0); 0.0 for any other code.
 */
double falcon_pcie_speed_gts(unsigned code);

/* falcon_pcie_type_str - "Root Port", "Upstream Port", ... ("Unknown"). */
const char *falcon_pcie_type_str(falcon_pcie_type_t t);

#endif /* FALCON_PCICFG_H */
