/*
 * pcicfg.c - synthesise, write and parse PCI configuration space.
 *
 * See pcicfg.h for the references (PCI 3.0, PCI-to-PCI Bridge 1.2, PCI PM
 * 1.2, PCIe r4.0) and the layout chosen.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "pci/pcicfg.h"
#include "core/util.h"

/* Capability IDs, PCI Code and ID Assignment r1.11 sec 2 and 3. */
#define CAP_ID_PM    0x01
#define CAP_ID_MSI   0x05
#define CAP_ID_SSVID 0x0d
#define CAP_ID_EXP   0x10
#define ECAP_ID_AER  0x0001
#define ECAP_ID_ACS  0x000d
#define OFF_ACS      0x148      /* where the synthesised ACS capability sits */
#define OFF_BAR0     0x10       /* PCI 3.0 sec 6.2.5.1 */

/* Type 0/1 header offsets, PCI 3.0 sec 6.1 and PCI-to-PCI Bridge 1.2 sec 3.2. */
#define OFF_VENDOR      0x00
#define OFF_DEVICE      0x02
#define OFF_COMMAND     0x04
#define OFF_STATUS      0x06
#define OFF_REVISION    0x08
#define OFF_CLASS       0x09    /* prog-if, sub-class, base class */
#define OFF_CACHE_LINE  0x0c
#define OFF_HEADER_TYPE 0x0e
#define OFF_PRIMARY_BUS 0x18
#define OFF_SECONDARY   0x19
#define OFF_SUBORDINATE 0x1a
#define OFF_SUBSYS_VEN  0x2c
#define OFF_SUBSYS_DEV  0x2e
#define OFF_CAP_PTR     0x34
#define OFF_INT_PIN     0x3d
#define STATUS_CAP_LIST 0x0010  /* PCI 3.0 sec 6.2.3, Status bit 4 */

/* PCI Express capability register offsets, PCIe r4.0 sec 7.5.3. */
#define EXP_FLAGS   0x02    /* PCI Express Capabilities Register, 7.5.3.2 */
#define EXP_DEVCAP  0x04    /* 7.5.3.3 */
#define EXP_DEVCTL  0x08
#define EXP_LNKCAP  0x0c    /* 7.5.3.6 */
#define EXP_LNKCTL  0x10    /* 7.5.3.7 */
#define EXP_LNKSTA  0x12    /* 7.5.3.8 */
#define EXP_SLTCAP  0x14    /* 7.5.3.9 */
#define EXP_DEVCAP2 0x24    /* 7.5.3.15 */
#define EXP_LNKCAP2 0x2c    /* 7.5.3.18 */
#define EXP_LNKCTL2 0x30    /* 7.5.3.19 */
#define EXP_SIZE_V2 0x3c
#define EXP_SIZE_V1 0x14    /* up to and including LnkSta (sec 7.8 of PCIe 1.1) */

static void put16(uint8_t *cfg, size_t off, uint16_t v)
{
	cfg[off] = v & 0xff;
	cfg[off + 1] = v >> 8;
}

static void put32(uint8_t *cfg, size_t off, uint32_t v)
{
	put16(cfg, off, v & 0xffff);
	put16(cfg, off + 2, v >> 16);
}

static uint16_t get16(const uint8_t *cfg, size_t off)
{
	return (uint16_t)(cfg[off] | (cfg[off + 1] << 8));
}

static uint32_t get32(const uint8_t *cfg, size_t off)
{
	return (uint32_t)get16(cfg, off) | ((uint32_t)get16(cfg, off + 2) << 16);
}

double falcon_pcie_speed_gts(unsigned code)
{
	static const double gts[] = { 0.0, 2.5, 5.0, 8.0, 16.0, 32.0, 64.0 };

	return code < ARRAY_SIZE(gts) ? gts[code] : 0.0;
}

const char *falcon_pcie_type_str(falcon_pcie_type_t t)
{
	switch (t) {
	case FALCON_PCIE_ENDPOINT:        return "Endpoint";
	case FALCON_PCIE_LEGACY_ENDPOINT: return "Legacy Endpoint";
	case FALCON_PCIE_RC_INTEGRATED:   return "Root Complex Integrated Endpoint";
	case FALCON_PCIE_ROOT_PORT:       return "Root Port";
	case FALCON_PCIE_UPSTREAM:        return "Upstream Port";
	case FALCON_PCIE_DOWNSTREAM:      return "Downstream Port";
	case FALCON_PCIE_PCIE_TO_PCI:     return "PCI-Express to PCI/PCI-X Bridge";
	case FALCON_PCIE_PCI_TO_PCIE:     return "PCI/PCI-X to PCI-Express Bridge";
	}
	return "Unknown";
}

void falcon_pcicfg_default_spec(struct falcon_pcicfg_spec *spec, uint16_t vendor_id,
				uint16_t device_id, uint32_t class_code,
				falcon_pcie_type_t port_type)
{
	memset(spec, 0, sizeof(*spec));
	spec->vendor_id = vendor_id;
	spec->device_id = device_id;
	spec->class_code = class_code & 0xffffff;
	spec->revision = 0xa1;
	spec->subsys_vendor = vendor_id;
	spec->subsys_device = device_id;
	spec->port_type = port_type;
	spec->max_speed = 3;
	spec->max_width = 16;
}

static bool is_bridge_class(uint32_t class_code)
{
	return (class_code >> 8) == (FALCON_CLASS_PCI_BRIDGE >> 8);
}

static void set_bar(struct falcon_pcicfg_spec *s, int i, falcon_bar_type_t t, uint64_t base,
		    uint64_t size)
{
	s->bar[i].type = t;
	s->bar[i].base = base;
	s->bar[i].size = size;
}

void falcon_pcicfg_default_bars(struct falcon_pcicfg_spec *s, unsigned bus)
{
	/* 32-bit memory below 4 GiB, one 16 MiB-aligned window per bus (mod
	 * 128); 64-bit prefetchable memory one 64 GiB window per bus above
	 * 32 TiB; I/O 128 bytes per bus. */
	uint64_t m32 = 0x80000000ull | ((uint64_t)(bus & 0x7f) << 24);
	uint64_t m64 = 0x200000000000ull | ((uint64_t)(bus & 0xff) << 36);

	memset(s->bar, 0, sizeof(s->bar));
	if (is_bridge_class(s->class_code))
		return;
	if ((s->class_code >> 16) == 0x03 && s->vendor_id == 0x10de) {
		set_bar(s, 0, FALCON_BAR_MEM32, m32, 16ull << 20);
		set_bar(s, 1, FALCON_BAR_MEM64_PREF, m64, 16ull << 30);
		set_bar(s, 3, FALCON_BAR_MEM64_PREF, m64 + (16ull << 30), 32ull << 20);
		set_bar(s, 5, FALCON_BAR_IO, 0x1000u + ((bus & 0xdf) << 7), 128);
	} else if ((s->class_code >> 16) == 0x03) {
		set_bar(s, 0, FALCON_BAR_MEM32, m32, 16ull << 20);
		set_bar(s, 1, FALCON_BAR_MEM64_PREF, m64, 256ull << 20);
	} else if (s->class_code == FALCON_CLASS_NVME) {
		set_bar(s, 0, FALCON_BAR_MEM64, m32, 16ull << 10);
	} else {
		set_bar(s, 0, FALCON_BAR_MEM32, m32, 1ull << 20);
	}
}

/* The low bits of a BAR register by type, PCI 3.0 sec 6.2.5.1: bit 0 I/O;
 * memory bits 2:1 type (00 32-bit, 10 64-bit), bit 3 prefetchable. */
static uint32_t bar_bits(falcon_bar_type_t t)
{
	switch (t) {
	case FALCON_BAR_MEM64:      return 0x4;
	case FALCON_BAR_MEM64_PREF: return 0xc;
	case FALCON_BAR_IO:         return 0x1;
	default:                    return 0x0;
	}
}

/* Linux's struct resource flags of a BAR as /sys/bus/pci/devices/BDF/
 * resource shows them (include/linux/ioport.h: IORESOURCE_IO 0x100,
 * IORESOURCE_MEM 0x200, IORESOURCE_PREFETCH 0x2000, IORESOURCE_SIZEALIGN
 * 0x40000, IORESOURCE_MEM_64 0x100000; drivers/pci/probe.c decode_bar()
 * keeps the register's low bits). */
static uint64_t bar_resource_flags(falcon_bar_type_t t)
{
	switch (t) {
	case FALCON_BAR_MEM32:      return 0x40200;
	case FALCON_BAR_MEM64:      return 0x140204;
	case FALCON_BAR_MEM64_PREF: return 0x14220c;
	case FALCON_BAR_IO:         return 0x40101;
	default:                    return 0;
	}
}

static void put_bars(uint8_t *cfg, const struct falcon_pcicfg_spec *s)
{
	int i;

	for (i = 0; i < FALCON_PCI_BARS; i++) {
		const struct falcon_pcicfg_bar *b = &s->bar[i];
		uint64_t a = (s->bars_unassigned & (1u << i)) ? 0 : b->base;

		if (b->type == FALCON_BAR_NONE || b->size == 0)
			continue;
		put32(cfg, OFF_BAR0 + 4 * (size_t)i, (uint32_t)(a & ~0xfull) | bar_bits(b->type));
		if ((b->type == FALCON_BAR_MEM64 || b->type == FALCON_BAR_MEM64_PREF) &&
		    i + 1 < FALCON_PCI_BARS)
			put32(cfg, OFF_BAR0 + 4 * (size_t)(i + 1), (uint32_t)(a >> 32));
	}
}

static falcon_err_t check_spec(const struct falcon_pcicfg_spec *s)
{
	uint8_t cs = s->cur_speed ? s->cur_speed : s->max_speed;
	uint8_t cw = s->cur_width ? s->cur_width : s->max_width;

	if (s->max_speed < 1 || s->max_speed > 5)
		return falcon_err_set(FALCON_ERR_INVAL, "pcicfg %04x:%04x: max_speed %u: "
				      "expected a LnkCap speed code 1..5", s->vendor_id,
				      s->device_id, s->max_speed);
	if (s->max_width < 1 || s->max_width > 32)
		return falcon_err_set(FALCON_ERR_INVAL, "pcicfg %04x:%04x: max_width %u: "
				      "expected 1..32 lanes", s->vendor_id, s->device_id,
				      s->max_width);
	if (cs > s->max_speed || cw > s->max_width)
		return falcon_err_set(FALCON_ERR_INVAL, "pcicfg %04x:%04x: LnkSta speed %u "
				      "width %u above LnkCap speed %u width %u", s->vendor_id,
				      s->device_id, cs, cw, s->max_speed, s->max_width);
	if (s->power_state > 3)
		return falcon_err_set(FALCON_ERR_INVAL, "pcicfg %04x:%04x: power_state %u: "
				      "expected 0..3 (D0..D3hot)", s->vendor_id, s->device_id,
				      s->power_state);
	if (is_bridge_class(s->class_code) &&
	    (s->secondary_bus <= s->primary_bus || s->subordinate_bus < s->secondary_bus))
		return falcon_err_set(FALCON_ERR_INVAL, "pcicfg %04x:%04x: bus numbers "
				      "primary %02x secondary %02x subordinate %02x: expected "
				      "primary < secondary <= subordinate", s->vendor_id,
				      s->device_id, s->primary_bus, s->secondary_bus,
				      s->subordinate_bus);
	return FALCON_OK;
}

/* PM capability, PCI PM 1.2 sec 3.2: PMC version 3 (bits 2:0 = 011),
 * PME from D0 and D3hot; PMCSR PowerState bits 1:0, No_Soft_Reset bit 3. */
static void put_pm(uint8_t *cfg, size_t off, uint8_t next, uint8_t state)
{
	cfg[off] = CAP_ID_PM;
	cfg[off + 1] = next;
	put16(cfg, off + 2, 0x0003 | (1u << 11) | (1u << 14));
	put16(cfg, off + 4, (uint16_t)(state & 3) | 0x0008);
}

/* MSI capability, PCI 3.0 sec 6.8.1: 64-bit address capable (Message
 * Control bit 7), one vector; mask bits (bit 8) when masked is set. */
static void put_msi(uint8_t *cfg, size_t off, uint8_t next, bool masked)
{
	cfg[off] = CAP_ID_MSI;
	cfg[off + 1] = next;
	put16(cfg, off + 2, (uint16_t)((1u << 7) | (masked ? (1u << 8) : 0)));
}

/* Supported Link Speeds Vector up to max, PCIe r4.0 sec 7.5.3.18: bit 1 =
 * 2.5 GT/s ... bit 5 = 32 GT/s; a part supports every lower speed. */
static uint32_t speeds_vector(uint8_t max)
{
	uint32_t v = 0;
	unsigned i;

	for (i = 1; i <= max; i++)
		v |= 1u << i;
	return v;
}

static void put_pcie(uint8_t *cfg, size_t off, uint8_t next,
		     const struct falcon_pcicfg_spec *s)
{
	uint8_t cs = s->cur_speed ? s->cur_speed : s->max_speed;
	uint8_t cw = s->cur_width ? s->cur_width : s->max_width;
	bool port = s->port_type == FALCON_PCIE_ROOT_PORT ||
		    s->port_type == FALCON_PCIE_DOWNSTREAM;
	uint32_t lnkcap;
	uint16_t lnksta;

	cfg[off] = CAP_ID_EXP;
	cfg[off + 1] = next;
	/* 7.5.3.2: version 2 (bits 3:0), Device/Port Type (7:4), Slot
	 * Implemented (8) for root and downstream ports with a slot. */
	put16(cfg, off + EXP_FLAGS, (uint16_t)(0x2 | ((s->port_type & 0xf) << 4) |
					       (port && s->slot ? (1u << 8) : 0)));
	/* 7.5.3.3: Max_Payload_Size Supported 256 bytes (001), Extended Tag
	 * (bit 5), Role-Based Error Reporting (bit 15). */
	put32(cfg, off + EXP_DEVCAP, 0x1 | (1u << 5) | (1u << 15));
	/* 7.5.3.4: MPS 256 (bits 7:5 = 001), MRRS 512 (bits 14:12 = 010). */
	put16(cfg, off + EXP_DEVCTL, (1u << 5) | (2u << 12));
	/* 7.5.3.6: Max Link Speed 3:0, Maximum Link Width 9:4, ASPM L1 (11:10
	 * = 10), L1 exit latency 4-8 us (17:15 = 011), Data Link Layer Link
	 * Active Reporting (20) and Link Bandwidth Notification (21) on ports,
	 * ASPM Optionality Compliance (22), Port Number 31:24. */
	lnkcap = (uint32_t)s->max_speed | ((uint32_t)s->max_width << 4) | (2u << 10) |
		 (3u << 15) | (1u << 22) | ((uint32_t)s->port_number << 24);
	if (port)
		lnkcap |= (1u << 20) | (1u << 21);
	put32(cfg, off + EXP_LNKCAP, lnkcap);
	/* 7.5.3.7: Common Clock Configuration (bit 6). */
	put16(cfg, off + EXP_LNKCTL, 1u << 6);
	/* 7.5.3.8: Current Link Speed 3:0, Negotiated Link Width 9:4, Slot
	 * Clock Configuration (12), Data Link Layer Link Active (13, only
	 * meaningful on ports that report it). */
	if (s->link_down)
		lnksta = 1u << 12;
	else
		lnksta = (uint16_t)(cs | (cw << 4) | (1u << 12) | (port ? (1u << 13) : 0));
	put16(cfg, off + EXP_LNKSTA, lnksta);
	/* 7.5.3.9: Slot Capabilities: Physical Slot Number 31:19, Hot-Plug
	 * Surprise (5) and Hot-Plug Capable (6) as Falcon drawers are. */
	if (port && s->slot)
		put32(cfg, off + EXP_SLTCAP, ((uint32_t)(s->slot_number & 0x1fff) << 19) |
					     (1u << 5) | (1u << 6));
	/* 7.5.3.15: Completion Timeout Ranges A/B, LTR Mechanism (11). */
	put32(cfg, off + EXP_DEVCAP2, 0x3 | (1u << 11));
	/* 7.5.3.18 and 7.5.3.19: Supported Link Speeds Vector, Target Link
	 * Speed = max. */
	put32(cfg, off + EXP_LNKCAP2, speeds_vector(s->max_speed));
	put16(cfg, off + EXP_LNKCTL2, s->max_speed);
}

falcon_err_t falcon_pcicfg_build(const struct falcon_pcicfg_spec *s,
				 uint8_t cfg[FALCON_PCICFG_SIZE])
{
	falcon_err_t rv;
	bool bridge = is_bridge_class(s->class_code);
	bool gpu = (s->class_code >> 16) == 0x03;
	/* Where the PM, MSI and PCIe capabilities sit, as the parts this
	 * models put them. */
	static const struct cap_at { uint8_t pm, msi, exp; } layouts[] = {
		{ 0x40, 0x48, 0x68 },   /* a bridge (switch port) */
		{ 0x60, 0x68, 0x78 },   /* a GPU */
		{ 0x40, 0x50, 0x70 },   /* any other endpoint */
	};
	const struct cap_at *at = &layouts[bridge ? 0 : gpu ? 1 : 2];

	rv = check_spec(s);
	if (rv != FALCON_OK)
		goto fail;
	memset(cfg, 0, FALCON_PCICFG_SIZE);
	put16(cfg, OFF_VENDOR, s->vendor_id);
	put16(cfg, OFF_DEVICE, s->device_id);
	/* Command: Memory Space (1), Bus Master (2), INTx Disable (10). */
	put16(cfg, OFF_COMMAND, (1u << 1) | (1u << 2) | (1u << 10));
	put16(cfg, OFF_STATUS, STATUS_CAP_LIST);
	cfg[OFF_REVISION] = s->revision;
	cfg[OFF_CLASS] = s->class_code & 0xff;
	cfg[OFF_CLASS + 1] = (s->class_code >> 8) & 0xff;
	cfg[OFF_CLASS + 2] = (s->class_code >> 16) & 0xff;
	cfg[OFF_CACHE_LINE] = 0x10;   /* 64 bytes, in dwords */
	cfg[OFF_HEADER_TYPE] = (uint8_t)((bridge ? 1 : 0) | (s->multifunction ? 0x80 : 0));
	cfg[OFF_INT_PIN] = 1;         /* INTA# */
	if (bridge) {
		cfg[OFF_PRIMARY_BUS] = s->primary_bus;
		cfg[OFF_SECONDARY] = s->secondary_bus;
		cfg[OFF_SUBORDINATE] = s->subordinate_bus;
		/* I/O base > limit and memory base > limit: windows closed
		 * (PCI-to-PCI Bridge 1.2 sec 3.2.5.6, 3.2.5.8). */
		cfg[0x1c] = 0xf0;
		put16(cfg, 0x20, 0xfff0);
		put16(cfg, 0x24, 0xfff1);
		put_pcie(cfg, at->exp, 0xa4, s);
		/* Subsystem ID and Subsystem Vendor ID capability of a bridge,
		 * PCI-to-PCI Bridge 1.2 sec 3.2.5.13 / PCI 3.0 appx H. */
		cfg[0xa4] = CAP_ID_SSVID;
		cfg[0xa5] = 0;
		put16(cfg, 0xa8, s->subsys_vendor);
		put16(cfg, 0xaa, s->subsys_device);
	} else {
		put16(cfg, OFF_SUBSYS_VEN, s->subsys_vendor);
		put16(cfg, OFF_SUBSYS_DEV, s->subsys_device);
		put_pcie(cfg, at->exp, 0, s);
		put_bars(cfg, s);
	}
	put_pm(cfg, at->pm, at->msi, s->power_state);
	put_msi(cfg, at->msi, at->exp, bridge);  /* masked on a bridge */
	cfg[OFF_CAP_PTR] = at->pm;
	/* Extended space: Advanced Error Reporting, version 2, next 0 (end of
	 * the list) or the ACS capability, PCIe r4.0 sec 7.6.3 and 7.8.4. */
	put32(cfg, 0x100, ECAP_ID_AER | (2u << 16) | ((s->acs ? OFF_ACS : 0u) << 20));
	if (s->acs) {
		/* ACS Extended Capability, version 1, the end of the list;
		 * Capability at +4, Control at +6 (PCIe r4.0 sec 7.7.7). */
		put32(cfg, OFF_ACS, ECAP_ID_ACS | (1u << 16));
		put16(cfg, OFF_ACS + 4, s->acs_cap);
		put16(cfg, OFF_ACS + 6, s->acs_ctrl);
	}
	rv = FALCON_OK;
fail:
	return rv;
}

/* A BDF as sysfs spells it: "dddd:bb:dd.f", or "ddddd:bb:dd.f" for a VMD
 * domain (see falcon_bdf_normalise); upper-case hex is accepted. */
static falcon_err_t check_bdf(const char *bdf)
{
	char norm[FALCON_BDF_LEN];

	if (bdf == NULL || falcon_bdf_normalise(bdf, norm) != FALCON_OK ||
	    strcasecmp(norm, bdf) != 0)
		return falcon_err_set(FALCON_ERR_INVAL, "BDF '%s': expected DDDD:BB:DD.F",
				      bdf ? bdf : "(null)");
	return FALCON_OK;
}

static falcon_err_t mkdir_p(const char *path)
{
	char buf[4096];
	size_t i, n = falcon_strlcpy(buf, path, sizeof(buf));

	if (n >= sizeof(buf))
		return falcon_err_set(FALCON_ERR_INVAL, "path too long: %s", path);
	for (i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, 0755) != 0 && errno != EEXIST)
			return falcon_err_set(FALCON_ERR_IO, "mkdir %s: %s", buf,
					      strerror(errno));
		buf[i] = path[i];
	}
	return FALCON_OK;
}

static falcon_err_t put_file(const char *dir, const char *name, const void *data,
			     size_t len)
{
	char path[4096];
	FILE *f;
	falcon_err_t rv = FALCON_OK;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return falcon_err_set(FALCON_ERR_INVAL, "path too long: %s/%s", dir, name);
	f = fopen(path, "w");
	if (f == NULL)
		return falcon_err_set(FALCON_ERR_IO, "%s: %s", path, strerror(errno));
	if (len > 0 && fwrite(data, 1, len, f) != len)
		rv = falcon_err_set(FALCON_ERR_IO, "%s: %s", path, strerror(errno));
	if (fclose(f) != 0 && rv == FALCON_OK)
		rv = falcon_err_set(FALCON_ERR_IO, "%s: %s", path, strerror(errno));
	return rv;
}

static falcon_err_t put_text(const char *dir, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static falcon_err_t put_text(const char *dir, const char *name, const char *fmt, ...)
{
	char buf[32];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return put_file(dir, name, buf, (size_t)n);
}

/* write_dir - the device directory from config bytes; the resource file
 * from spec's BARs (NULL: zero lines, sizes unknown). */
static falcon_err_t write_dir(const char *root, const char *bdf, const uint8_t *cfg,
			      size_t len, int numa_node, const struct falcon_pcicfg_spec *spec)
{
	char dir[4096], buf[64];
	falcon_err_t rv;
	uint32_t class_code;
	bool bridge;
	size_t i;
	int n;

	rv = check_bdf(bdf);
	if (rv != FALCON_OK)
		goto fail;
	if (len < FALCON_PCICFG_HEADER || len > FALCON_PCICFG_SIZE) {
		rv = falcon_err_set(FALCON_ERR_INVAL, "%s: config of %zu bytes: expected "
				    "64..4096", bdf, len);
		goto fail;
	}
	if ((size_t)snprintf(dir, sizeof(dir), "%s/bus/pci/devices/%s", root, bdf) >=
	    sizeof(dir)) {
		rv = falcon_err_set(FALCON_ERR_INVAL, "path too long: %s", root);
		goto fail;
	}
	rv = mkdir_p(dir);
	if (rv != FALCON_OK)
		goto fail;
	class_code = cfg[OFF_CLASS] | (cfg[OFF_CLASS + 1] << 8) |
		     ((uint32_t)cfg[OFF_CLASS + 2] << 16);
	bridge = (cfg[OFF_HEADER_TYPE] & 0x7f) == 1;
	/* Formats of drivers/pci/pci-sysfs.c: "0x%04x\n" for IDs, "0x%06x\n"
	 * for the class, "0x%02x\n" for the revision. */
	if (spec != NULL && spec->all_ones) {
		uint8_t ones[FALCON_PCICFG_SIZE];

		memset(ones, 0xff, sizeof(ones));
		rv = put_file(dir, "config", ones, len);
	} else {
		rv = put_file(dir, "config", cfg, len);
	}
	if (rv != FALCON_OK ||
	    (rv = put_text(dir, "vendor", "0x%04x\n", get16(cfg, OFF_VENDOR))) != FALCON_OK ||
	    (rv = put_text(dir, "device", "0x%04x\n", get16(cfg, OFF_DEVICE))) != FALCON_OK ||
	    (rv = put_text(dir, "class", "0x%06x\n", class_code)) != FALCON_OK ||
	    (rv = put_text(dir, "revision", "0x%02x\n", cfg[OFF_REVISION])) != FALCON_OK ||
	    (rv = put_text(dir, "irq", "%u\n", 0)) != FALCON_OK ||
	    (rv = put_text(dir, "enable", "%u\n", 1)) != FALCON_OK)
		goto fail;
	{
		struct falcon_pcicfg_info info;
		uint16_t sv = 0, sd = 0;

		/* Subsystem IDs: header for type 0, SSVID capability for
		 * bridges (what the kernel reports, 0x0000 when absent). */
		if (!bridge) {
			sv = get16(cfg, OFF_SUBSYS_VEN);
			sd = get16(cfg, OFF_SUBSYS_DEV);
		} else if (falcon_pcicfg_parse(cfg, len, &info) == FALCON_OK) {
			sv = info.subsys_vendor;
			sd = info.subsys_device;
		}
		if ((rv = put_text(dir, "subsystem_vendor", "0x%04x\n", sv)) != FALCON_OK ||
		    (rv = put_text(dir, "subsystem_device", "0x%04x\n", sd)) != FALCON_OK)
			goto fail;
	}
	n = snprintf(buf, sizeof(buf), "%d\n", numa_node < 0 ? -1 : numa_node);
	rv = put_file(dir, "numa_node", buf, (size_t)n);
	if (rv != FALCON_OK)
		goto fail;
	{
		/* resource: start end flags per BAR (6), ROM, and 6 bridge
		 * windows on bridges, "0x%016llx 0x%016llx 0x%016llx\n". */
		char res[13 * 60];
		size_t off = 0;
		size_t lines = bridge ? 13 : 7;

		/* an unassigned BAR: start, end and flags 0, as Linux's
		 * drivers/pci/setup-bus.c reset_resource() leaves a resource
		 * it could not assign */
		for (i = 0; i < lines; i++) {
			const struct falcon_pcicfg_bar *b = spec != NULL && !bridge &&
				i < FALCON_PCI_BARS ? &spec->bar[i] : NULL;
			unsigned long long st = 0, en = 0, fl = 0;

			if (b != NULL && b->type != FALCON_BAR_NONE && b->size != 0 &&
			    !(spec->bars_unassigned & (1u << i))) {
				st = b->base;
				en = b->base + b->size - 1;
				fl = bar_resource_flags(b->type);
			}
			off += (size_t)snprintf(res + off, sizeof(res) - off,
						"0x%016llx 0x%016llx 0x%016llx\n", st, en, fl);
		}
		rv = put_file(dir, "resource", res, off);
		if (rv != FALCON_OK)
			goto fail;
	}
	rv = FALCON_OK;
fail:
	return rv;
}

falcon_err_t falcon_pcicfg_write_sysfs(const char *root, const char *bdf,
				       const struct falcon_pcicfg_spec *spec, int numa_node)
{
	uint8_t cfg[FALCON_PCICFG_SIZE];
	falcon_err_t rv;

	rv = check_bdf(bdf);
	if (rv != FALCON_OK)
		return rv;
	rv = falcon_pcicfg_build(spec, cfg);
	if (rv != FALCON_OK)
		return rv;
	return write_dir(root, bdf, cfg, sizeof(cfg), numa_node, spec);
}

falcon_err_t falcon_pcicfg_write_raw(const char *root, const char *bdf,
				     const uint8_t *cfg, size_t len, int numa_node)
{
	return write_dir(root, bdf, cfg, len, numa_node, NULL);
}

falcon_err_t falcon_pcicfg_write_slot(const char *root, const char *name, unsigned domain,
				      unsigned bus)
{
	char dir[4096];
	falcon_err_t rv;

	if (name == NULL || *name == '\0' || strchr(name, '/') != NULL || domain > 0xffff ||
	    bus > 0xff)
		return falcon_err_set(FALCON_ERR_INVAL, "slot '%s' at %x:%x: expected a name "
				      "without '/', domain <= ffff, bus <= ff", name ? name : "",
				      domain, bus);
	if ((size_t)snprintf(dir, sizeof(dir), "%s/bus/pci/slots/%s", root, name) >= sizeof(dir))
		return falcon_err_set(FALCON_ERR_INVAL, "path too long: %s", root);
	if ((rv = mkdir_p(dir)) != FALCON_OK)
		return rv;
	/* drivers/pci/slot.c address_read_file(): "%04x:%02x:%02x\n" */
	return put_text(dir, "address", "%04x:%02x:%02x\n", domain, bus, 0u);
}

void falcon_pcicfg_remove_slot(const char *root, const char *name)
{
	char path[4096];

	if ((size_t)snprintf(path, sizeof(path), "%s/bus/pci/slots/%s/address", root, name) <
	    sizeof(path)) {
		unlink(path);
		*strrchr(path, '/') = '\0';
		rmdir(path);
	}
}

int falcon_pcicfg_phys_slot(int drawer, int slot)
{
	if (drawer < 1 || drawer > 2 || slot < 1 || slot > 8)
		return -1;
	return (drawer - 1) * 8 + slot;
}

/* parse_bars - the six BAR registers of a type 0 header (PCI 3.0 sec
 * 6.2.5.1): bit 0 set = I/O (address bits 31:2); else memory, bits 2:1 = 10
 * a 64-bit BAR whose upper half is the next register, bit 3 prefetchable. */
static void parse_bars(const uint8_t *cfg, struct falcon_pcicfg_info *info)
{
	int i;

	for (i = 0; i < FALCON_PCI_BARS; i++) {
		uint32_t r = get32(cfg, OFF_BAR0 + 4 * (size_t)i);

		if (r == 0)
			continue;
		if (r & 1) {
			info->bar_type[i] = FALCON_BAR_IO;
			info->bar_addr[i] = r & ~0x3u;
		} else if (((r >> 1) & 3) == 2 && i + 1 < FALCON_PCI_BARS) {
			info->bar_type[i] = (r & 8) ? FALCON_BAR_MEM64_PREF : FALCON_BAR_MEM64;
			info->bar_addr[i] = (r & ~0xfull) |
				((uint64_t)get32(cfg, OFF_BAR0 + 4 * (size_t)(i + 1)) << 32);
			i++;
		} else {
			info->bar_type[i] = FALCON_BAR_MEM32;
			info->bar_addr[i] = r & ~0xfu;
		}
	}
}

falcon_err_t falcon_pcicfg_parse(const uint8_t *cfg, size_t len,
				 struct falcon_pcicfg_info *info)
{
	uint8_t seen[256 / 8];
	uint16_t eseen[FALCON_PCICFG_SIZE / 4 / 16];
	falcon_err_t rv;
	size_t ptr;
	int steps;

	memset(info, 0, sizeof(*info));
	memset(seen, 0, sizeof(seen));
	if (cfg == NULL || len < FALCON_PCICFG_HEADER) {
		rv = falcon_err_set(FALCON_ERR_PARSE, "config space of %zu bytes: expected at "
				    "least the %d-byte header", cfg ? len : 0,
				    FALCON_PCICFG_HEADER);
		goto fail;
	}
	info->vendor_id = get16(cfg, OFF_VENDOR);
	info->device_id = get16(cfg, OFF_DEVICE);
	if (info->vendor_id == 0xffff) {
		rv = falcon_err_set(FALCON_ERR_PARSE, "config space: vendor ffff (no device "
				    "answered)");
		goto fail;
	}
	info->revision = cfg[OFF_REVISION];
	info->class_code = cfg[OFF_CLASS] | (cfg[OFF_CLASS + 1] << 8) |
			   ((uint32_t)cfg[OFF_CLASS + 2] << 16);
	info->header_type = cfg[OFF_HEADER_TYPE] & 0x7f;
	info->multifunction = (cfg[OFF_HEADER_TYPE] & 0x80) != 0;
	if (info->header_type == 0) {
		info->subsys_vendor = get16(cfg, OFF_SUBSYS_VEN);
		info->subsys_device = get16(cfg, OFF_SUBSYS_DEV);
		parse_bars(cfg, info);
	} else if (info->header_type == 1) {
		info->primary_bus = cfg[OFF_PRIMARY_BUS];
		info->secondary_bus = cfg[OFF_SECONDARY];
		info->subordinate_bus = cfg[OFF_SUBORDINATE];
	}
	/* Capability list, PCI 3.0 sec 6.7: present when Status bit 4 is set;
	 * CardBus (type 2) keeps its pointer at 0x14. */
	ptr = 0;
	if (get16(cfg, OFF_STATUS) & STATUS_CAP_LIST)
		ptr = cfg[info->header_type == 2 ? 0x14 : OFF_CAP_PTR] & 0xfc;
	for (steps = 0; ptr != 0; steps++) {
		uint8_t id;

		if (ptr < FALCON_PCICFG_HEADER) {
			rv = falcon_err_set(FALCON_ERR_PARSE, "config space: capability pointer "
					    "0x%02zx points into the header", ptr);
			goto fail;
		}
		if (ptr + 2 > len) {
			rv = falcon_err_set(FALCON_ERR_PARSE, "config space of %zu bytes is "
					    "shorter than its header says: capability at 0x%02zx",
					    len, ptr);
			goto fail;
		}
		if (steps >= (int)ARRAY_SIZE(info->cap_ids) || (seen[ptr / 8] & (1u << (ptr % 8)))) {
			rv = falcon_err_set(FALCON_ERR_PARSE, "config space: capability list "
					    "loops at 0x%02zx", ptr);
			goto fail;
		}
		seen[ptr / 8] |= (uint8_t)(1u << (ptr % 8));
		id = cfg[ptr];
		info->cap_ids[info->ncaps] = id;
		info->cap_offsets[info->ncaps] = (uint8_t)ptr;
		info->ncaps++;
		if (id == CAP_ID_PM && info->pm_offset == 0 && ptr + 6 <= len) {
			info->pm_offset = (int)ptr;
			info->power_state = get16(cfg, ptr + 4) & 3;
		} else if (id == CAP_ID_SSVID && info->header_type == 1 && ptr + 8 <= len) {
			info->subsys_vendor = get16(cfg, ptr + 4);
			info->subsys_device = get16(cfg, ptr + 6);
		} else if (id == CAP_ID_EXP && info->pcie_offset == 0) {
			uint16_t flags;

			if (ptr + EXP_SIZE_V1 > len) {
				rv = falcon_err_set(FALCON_ERR_PARSE, "config space of %zu bytes "
						    "cuts the PCI Express capability at 0x%02zx "
						    "short", len, ptr);
				goto fail;
			}
			flags = get16(cfg, ptr + EXP_FLAGS);
			info->pcie_offset = (int)ptr;
			info->pcie_version = flags & 0xf;
			info->port_type = (falcon_pcie_type_t)((flags >> 4) & 0xf);
			info->slot = (flags & (1u << 8)) != 0;
			/* 7.5.3.9: Physical Slot Number, SltCap bits 31:19 */
			if (info->slot && ptr + EXP_SLTCAP + 4 <= len)
				info->slot_number = (uint16_t)(get32(cfg, ptr + EXP_SLTCAP) >> 19);
			info->lnkcap = get32(cfg, ptr + EXP_LNKCAP);
			info->lnksta = get16(cfg, ptr + EXP_LNKSTA);
			if (info->pcie_version >= 2 && ptr + EXP_LNKCAP2 + 4 <= len)
				info->lnkcap2 = get32(cfg, ptr + EXP_LNKCAP2);
			info->max_speed = info->lnkcap & 0xf;
			info->max_width = (info->lnkcap >> 4) & 0x3f;
			info->cur_speed = info->lnksta & 0xf;
			info->cur_width = (info->lnksta >> 4) & 0x3f;
			info->dl_active = (info->lnksta & (1u << 13)) != 0;
		}
		ptr = cfg[ptr + 1] & 0xfc;
	}
	/* Extended capabilities, PCIe r4.0 sec 7.6.3: header at 0x100, next
	 * offset bits 31:20 (dword aligned, 0 ends the list); a header of 0 or
	 * all ones means none. */
	if (len >= FALCON_PCICFG_SIZE && info->pcie_offset != 0) {
		memset(eseen, 0, sizeof(eseen));
		ptr = 0x100;
		while (ptr != 0) {
			uint32_t hdr;
			size_t slot = ptr / 4;

			if (ptr < 0x100 || ptr + 4 > len) {
				rv = falcon_err_set(FALCON_ERR_PARSE, "config space: extended "
						    "capability pointer 0x%03zx outside 0x100..0x%zx",
						    ptr, len - 4);
				goto fail;
			}
			if (eseen[slot / 16] & (1u << (slot % 16))) {
				rv = falcon_err_set(FALCON_ERR_PARSE, "config space: extended "
						    "capability list loops at 0x%03zx", ptr);
				goto fail;
			}
			eseen[slot / 16] |= (uint16_t)(1u << (slot % 16));
			hdr = get32(cfg, ptr);
			if (hdr == 0 || hdr == 0xffffffffu)
				break;
			if ((hdr & 0xffff) == ECAP_ID_ACS && info->acs_offset == 0 &&
			    ptr + 8 <= len) {
				info->acs_offset = (int)ptr;
				info->acs_cap = get16(cfg, ptr + 4);
				info->acs_ctrl = get16(cfg, ptr + 6);
			}
			info->next_ext++;
			ptr = (hdr >> 20) & 0xffc;
		}
	}
	rv = FALCON_OK;
fail:
	return rv;
}
