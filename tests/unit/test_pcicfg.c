/*
 * test_pcicfg.c - unit tests of lib/pcicfg: synthesised config space read
 * back by real libpci (linux-sysfs method on a generated tree), parser
 * round trips and error paths, and the capability layout compared with
 * real dumps from fixtures/pci.
 *
 * No public config-space dump of a V100 or A100 exists (searched: pciutils
 * tests, nvidia-bug-report logs on GitHub); the GPU layout is compared with
 * the GTX 1080 Ti dump of sys4028grtr (same NVIDIA capability offsets
 * PM 0x60, MSI 0x68, PCIe 0x78), the switch port layout with the PLX PEX
 * 8796 dump of pciutils' own tests.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <pci/pci.h>
#include <stdint.h>

#include "pci/hotplug.h"
#include "pci/pcicfg.h"
#include "testutil.h"
#include "core/util.h"
#include "../pcihex.h"

static const struct {
	const char *bdf;
	uint16_t vendor, device;
	uint32_t class_code;
	falcon_pcie_type_t type;
	uint8_t max_speed, max_width, cur_speed, cur_width;
	uint8_t pri, sec, sub;
} devs[] = {
	{ "0000:3b:00.0", 0x10de, 0x1db4, FALCON_CLASS_3D, FALCON_PCIE_ENDPOINT, 3, 16, 3, 8, 0, 0, 0 },
	{ "0000:3c:00.0", 0x10de, 0x1db1, FALCON_CLASS_3D, FALCON_PCIE_ENDPOINT, 3, 16, 0, 0, 0, 0, 0 },
	{ "0000:5e:00.0", 0x144d, 0xa808, FALCON_CLASS_NVME, FALCON_PCIE_ENDPOINT, 3, 4, 0, 0, 0, 0, 0 },
	{ "0000:00:02.0", 0x8086, 0x2030, FALCON_CLASS_PCI_BRIDGE, FALCON_PCIE_ROOT_PORT, 3, 16, 0, 0, 0x00, 0x3a, 0x3d },
	{ "0000:3a:00.0", 0x1000, 0xc010, FALCON_CLASS_PCI_BRIDGE, FALCON_PCIE_UPSTREAM, 4, 16, 3, 16, 0x3a, 0x3b, 0x3d },
	{ "0000:3b:08.0", 0x1000, 0xc010, FALCON_CLASS_PCI_BRIDGE, FALCON_PCIE_DOWNSTREAM, 4, 16, 0, 0, 0x3b, 0x3c, 0x3c },
};

static void spec_of(int i, struct falcon_pcicfg_spec *s)
{
	falcon_pcicfg_default_spec(s, devs[i].vendor, devs[i].device, devs[i].class_code,
				   devs[i].type);
	s->max_speed = devs[i].max_speed;
	s->max_width = devs[i].max_width;
	s->cur_speed = devs[i].cur_speed;
	s->cur_width = devs[i].cur_width;
	s->primary_bus = devs[i].pri;
	s->secondary_bus = devs[i].sec;
	s->subordinate_bus = devs[i].sub;
	s->slot = devs[i].type == FALCON_PCIE_DOWNSTREAM;
	s->subsys_vendor = 0x10de;
	s->subsys_device = 0x1212;
}

/* Build, parse back: every field we put in comes out. */
START_TEST(test_roundtrip)
{
	struct falcon_pcicfg_spec s;
	struct falcon_pcicfg_info info;
	uint8_t cfg[FALCON_PCICFG_SIZE];

	spec_of(_i, &s);
	ck_assert_int_eq(falcon_pcicfg_build(&s, cfg), FALCON_OK);
	ck_assert_int_eq(falcon_pcicfg_parse(cfg, sizeof(cfg), &info), FALCON_OK);
	ck_assert_uint_eq(info.vendor_id, devs[_i].vendor);
	ck_assert_uint_eq(info.device_id, devs[_i].device);
	ck_assert_uint_eq(info.class_code, devs[_i].class_code);
	ck_assert_uint_eq(info.port_type, devs[_i].type);
	ck_assert_uint_eq(info.header_type, devs[_i].class_code == FALCON_CLASS_PCI_BRIDGE);
	ck_assert_uint_eq(info.max_speed, devs[_i].max_speed);
	ck_assert_uint_eq(info.max_width, devs[_i].max_width);
	ck_assert_uint_eq(info.cur_speed, devs[_i].cur_speed ? devs[_i].cur_speed : devs[_i].max_speed);
	ck_assert_uint_eq(info.cur_width, devs[_i].cur_width ? devs[_i].cur_width : devs[_i].max_width);
	ck_assert_uint_eq(info.subsys_vendor, 0x10de);
	ck_assert_uint_eq(info.subsys_device, 0x1212);
	ck_assert_uint_eq(info.secondary_bus, devs[_i].sec);
	ck_assert_uint_eq(info.subordinate_bus, devs[_i].sub);
	ck_assert_uint_eq(info.pcie_version, 2);
	/* LnkCap2 Supported Link Speeds Vector: bits 1..max set. */
	ck_assert_uint_eq(info.lnkcap2, (2u << devs[_i].max_speed) - 2);
	ck_assert_int_eq(info.next_ext, 1);
	ck_assert_int_eq(info.ncaps, devs[_i].class_code == FALCON_CLASS_PCI_BRIDGE ? 4 : 3);
}
END_TEST

/* Write the tree, read it with real libpci's linux-sysfs method. */
START_TEST(test_libpci_reads_tree)
{
	const char *tmp = make_tmpdir("pcicfg");
	char path[4096];
	struct pci_access *pacc;
	struct pci_dev *d;
	size_t i;
	int found = 0;

	for (i = 0; i < ARRAY_SIZE(devs); i++) {
		struct falcon_pcicfg_spec s;

		spec_of((int)i, &s);
		ck_assert_int_eq(falcon_pcicfg_write_sysfs(tmp, devs[i].bdf, &s, (int)i % 2),
				 FALCON_OK);
	}
	ck_assert_int_lt(snprintf(path, sizeof(path), "%s/bus/pci", tmp), (int)sizeof(path));
	pacc = pci_alloc();
	pacc->method = PCI_ACCESS_SYS_BUS_PCI;
	pci_set_param(pacc, "sysfs.path", path);
	pci_init(pacc);
	pci_scan_bus(pacc);
	for (d = pacc->devices; d != NULL; d = d->next) {
		char bdf[32];
		struct pci_cap *cap;
		uint32_t lnkcap;
		uint16_t lnksta;

		snprintf(bdf, sizeof(bdf), "%04x:%02x:%02x.%u", d->domain, d->bus, d->dev, d->func);
		for (i = 0; i < ARRAY_SIZE(devs); i++)
			if (!strcmp(bdf, devs[i].bdf))
				break;
		ck_assert_uint_lt(i, ARRAY_SIZE(devs));
		found++;
		pci_fill_info(d, PCI_FILL_IDENT | PCI_FILL_CLASS | PCI_FILL_CAPS |
				 PCI_FILL_NUMA_NODE | PCI_FILL_SUBSYS);
		ck_assert_uint_eq(d->vendor_id, devs[i].vendor);
		ck_assert_uint_eq(d->device_id, devs[i].device);
		ck_assert_uint_eq(d->device_class, devs[i].class_code >> 8);
		ck_assert_int_eq(d->numa_node, (int)i % 2);
		ck_assert_uint_eq(d->subsys_vendor_id, 0x10de);
		ck_assert_uint_eq(d->subsys_id, 0x1212);
		cap = pci_find_cap(d, PCI_CAP_ID_EXP, PCI_CAP_NORMAL);
		ck_assert_ptr_nonnull(cap);
		lnkcap = pci_read_long(d, cap->addr + PCI_EXP_LNKCAP);
		lnksta = pci_read_word(d, cap->addr + PCI_EXP_LNKSTA);
		ck_assert_uint_eq(lnkcap & PCI_EXP_LNKCAP_SPEED, devs[i].max_speed);
		ck_assert_uint_eq((lnkcap & PCI_EXP_LNKCAP_WIDTH) >> 4, devs[i].max_width);
		ck_assert_uint_eq((lnksta & PCI_EXP_LNKSTA_WIDTH) >> 4,
				  devs[i].cur_width ? devs[i].cur_width : devs[i].max_width);
		ck_assert_ptr_nonnull(pci_find_cap(d, PCI_EXT_CAP_ID_AER, PCI_CAP_EXTENDED));
		if (devs[i].class_code == FALCON_CLASS_PCI_BRIDGE) {
			ck_assert_uint_eq(pci_read_byte(d, PCI_SECONDARY_BUS), devs[i].sec);
			ck_assert_uint_eq(pci_read_byte(d, PCI_SUBORDINATE_BUS), devs[i].sub);
		}
	}
	pci_cleanup(pacc);
	ck_assert_int_eq(found, (int)ARRAY_SIZE(devs));
	ck_assert_int_lt(snprintf(path, sizeof(path), "rm -rf '%s'", tmp), (int)sizeof(path));
	ck_assert_int_eq(system(path), 0);
}
END_TEST

/* Capability layout of a synthesised part equals a real part's dump. */
static const struct {
	const char *fixture;
	const char *slot;
	uint32_t class_code;
	falcon_pcie_type_t type;
} layouts[] = {
	{ "pci/sys4028grtr_1080ti_pex8747_hexonly_lspci_xxx.txt", "0000:04:00.0",
	  FALCON_CLASS_VGA, FALCON_PCIE_LEGACY_ENDPOINT },
	{ "pci/pciutils_test_plx_pex8796_xxxx.txt", "0000:07:00.0",
	  FALCON_CLASS_PCI_BRIDGE, FALCON_PCIE_UPSTREAM },
};

START_TEST(test_layout_matches_real_dump)
{
	const char *path = fixture_path(layouts[_i].fixture);
	struct pcihex_dev *v;
	struct falcon_pcicfg_info real, ours;
	struct falcon_pcicfg_spec s;
	uint8_t cfg[FALCON_PCICFG_SIZE];
	size_t n, i;
	int k;

	if (path == NULL)
		return;
	v = pcihex_read(path, &n);
	ck_assert_ptr_nonnull(v);
	for (i = 0; i < n; i++)
		if (!strcmp(v[i].slot, layouts[_i].slot))
			break;
	ck_assert_uint_lt(i, n);
	ck_assert_int_eq(falcon_pcicfg_parse(v[i].cfg, v[i].len, &real), FALCON_OK);
	falcon_pcicfg_default_spec(&s, real.vendor_id, real.device_id, real.class_code,
				   layouts[_i].type);
	s.primary_bus = 1;
	s.secondary_bus = 2;
	s.subordinate_bus = 2;
	ck_assert_int_eq(falcon_pcicfg_build(&s, cfg), FALCON_OK);
	ck_assert_int_eq(falcon_pcicfg_parse(cfg, sizeof(cfg), &ours), FALCON_OK);
	/* The real part may carry more (vendor-specific) capabilities after
	 * the ones we make; ours must be a prefix of its chain. */
	ck_assert_int_ge(real.ncaps, ours.ncaps);
	for (k = 0; k < ours.ncaps; k++) {
		ck_assert_uint_eq(ours.cap_ids[k], real.cap_ids[k]);
		ck_assert_uint_eq(ours.cap_offsets[k], real.cap_offsets[k]);
	}
	ck_assert_int_eq(ours.pcie_offset, real.pcie_offset);
	ck_assert_uint_eq(ours.port_type, real.port_type);
	free(v);
}
END_TEST

static const struct {
	uint8_t max_speed, max_width, cur_speed, cur_width, power;
	uint32_t class_code;
	uint8_t pri, sec, sub;
} bad_specs[] = {
	{ 0, 16, 0, 0, 0, FALCON_CLASS_3D, 0, 0, 0 },
	{ 6, 16, 0, 0, 0, FALCON_CLASS_3D, 0, 0, 0 },
	{ 3, 0, 0, 0, 0, FALCON_CLASS_3D, 0, 0, 0 },
	{ 3, 33, 0, 0, 0, FALCON_CLASS_3D, 0, 0, 0 },
	{ 3, 8, 4, 8, 0, FALCON_CLASS_3D, 0, 0, 0 },
	{ 3, 8, 3, 16, 0, FALCON_CLASS_3D, 0, 0, 0 },
	{ 3, 8, 0, 0, 4, FALCON_CLASS_3D, 0, 0, 0 },
	{ 3, 8, 0, 0, 0, FALCON_CLASS_PCI_BRIDGE, 2, 2, 3 },
	{ 3, 8, 0, 0, 0, FALCON_CLASS_PCI_BRIDGE, 2, 4, 3 },
};

/*
 * A real GPU as a guest sees it (issue 30): `lspci -xxxx` of an H100 80GB
 * HBM3 (10de:2330, SXM5) passed through to a Firecracker VM at
 * 0000:00:06.0, driver 580.159.04; lines of zeros left out.  What lib/pci
 * reads here is what `lspci -vvv` printed on that machine: Express (v2)
 * Endpoint at 0x60, LnkCap and LnkSta 32GT/s x16 (nvidia-smi: PCIe
 * generation 5/5, width 16x/16x), Region 0/2/4 64-bit prefetchable
 * 16M/128G/32M (nvidia-smi: BAR1 131072 MiB), no ACS.  Not the layout of
 * the V100 that falcon_pcicfg_default_bars() models: BARs 0, 2 and 4, all
 * 64-bit, no I/O BAR.
 */
static const char *const h100_xxxx[] = {
	"00: de 10 30 23 06 04 10 00 a1 00 02 03 00 00 00 00",
	"10: 0c 00 00 02 20 10 00 00 0c 00 00 00 00 10 00 00",
	"20: 0c 00 00 00 20 10 00 00 00 00 00 00 de 10 c1 16",
	"30: 00 00 00 00 40 00 00 00 00 00 00 00 ff 01 00 00",
	"40: 01 48 13 00 08 00 00 00 05 60 88 03 00 00 00 00",
	"60: 10 b0 02 00 21 80 00 10 3e 51 00 00 05 79 45 00",
	"70: 00 00 05 11 00 00 00 00 00 00 00 00 00 00 00 00",
	"80: 00 00 00 00 13 08 07 00 46 10 00 00 3e 00 80 01",
	"90: 05 00 5e 00 00 00 00 00 00 00 00 00 00 00 00 00",
	"b0: 11 00 08 80 00 00 b9 00 00 00 ba 00 00 00 00 00",
	"100: 00 00 c0 12 00 00 00 00 ad 31 00 00 00 78 00 78",
	"110: 00 78 00 78 00 78 00 78 00 78 00 78 00 78 00 78",
	"120: 00 78 00 78 00 78 00 78 00 78 00 78 18 00 41 13",
	"130: 00 00 00 00 00 00 81 1b 00 00 00 00 00 00 00 00",
	"140: 24 00 c1 14 00 fc 3f 00 21 0c ff ff 25 00 81 15",
	"150: 01 00 00 80 01 00 00 80 26 00 81 18 00 00 00 00",
	"160: 00 00 00 00 0f 00 00 00 00 00 00 00 00 00 00 00",
	"170: 00 00 00 00 00 00 00 00 80 80 80 80 80 80 80 80",
	"180: 80 80 80 80 80 80 80 80 2a 00 81 1b 01 01 00 00",
	"190: 00 00 00 00 0f 02 00 00 00 00 00 00 00 00 00 00",
	"1a0: 00 00 00 00 00 00 00 00 80 80 80 80 80 80 80 80",
	"1b0: 80 80 80 80 80 80 80 80 01 00 82 24 00 00 00 00",
	"1c0: 00 00 01 00 30 f0 4e 00 00 00 00 00 c1 f1 00 00",
	"1d0: a0 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
	"200: 27 00 81 24 01 00 00 00 38 9c 00 00 38 9c 00 00",
	"210: 38 9c 00 00 38 9c 00 00 38 9c 00 00 38 9c 00 00",
	"220: 38 9c 00 00 38 9c 00 00 38 9c 00 00 38 9c 00 00",
	"230: 38 9c 00 00 38 9c 00 00 38 9c 00 00 38 9c 00 00",
	"240: 38 9c 00 00 38 9c 00 00 00 00 01 25 00 00 00 00",
	"250: 00 00 41 2a 00 00 00 00 00 00 00 00 00 00 00 00",
	"2a0: 00 00 00 00 0b 00 81 2b 01 00 41 01 02 00 01 00",
	"2b0: 00 00 00 00 00 00 00 00 04 00 01 2f 00 00 00 00",
	"2c0: 21 81 07 00 02 00 00 00 00 00 00 00 00 00 00 00",
	"2f0: 03 00 01 00 48 b0 2d dd f1 cb 5d cc 00 00 00 00",
};

/* its sysfs resource file, as read there */
static const char h100_resource[] =
	"0x0000102002000000 0x0000102002ffffff 0x000000000014220c\n"
	"0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
	"0x0000100000000000 0x0000101fffffffff 0x000000000014220c\n"
	"0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
	"0x0000102000000000 0x0000102001ffffff 0x000000000014220c\n"
	"0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
	"0x0000000000000000 0x0000000000000000 0x0000000000000000\n";

START_TEST(test_parse_real_h100)
{
	static const uint8_t ids[] = { 0x01, 0x05, 0x10, 0x11 };  /* PM, MSI, PCIe, MSI-X */
	static const uint8_t offs[] = { 0x40, 0x48, 0x60, 0xb0 };
	static struct pcihex_dev d;
	struct falcon_pcicfg_info in;
	size_t i;

	memset(&d, 0, sizeof(d));
	for (i = 0; i < ARRAY_SIZE(h100_xxxx); i++)
		ck_assert_int_eq(pcihex_line(h100_xxxx[i], &d), 1);
	ck_assert_int_eq(falcon_pcicfg_parse(d.cfg, FALCON_PCICFG_SIZE, &in), FALCON_OK);
	ck_assert_uint_eq(in.vendor_id, 0x10de);
	ck_assert_uint_eq(in.device_id, 0x2330);
	ck_assert_uint_eq(in.class_code, FALCON_CLASS_3D);
	ck_assert_uint_eq(in.revision, 0xa1);
	ck_assert_uint_eq(in.subsys_vendor, 0x10de);
	ck_assert_uint_eq(in.subsys_device, 0x16c1);
	ck_assert_int_eq(in.ncaps, 4);
	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		ck_assert_uint_eq(in.cap_ids[i], ids[i]);
		ck_assert_uint_eq(in.cap_offsets[i], offs[i]);
	}
	ck_assert_int_eq(in.pcie_offset, 0x60);
	ck_assert_uint_eq(in.pcie_version, 2);
	ck_assert_int_eq(in.port_type, FALCON_PCIE_ENDPOINT);
	ck_assert_uint_eq(in.lnkcap, 0x00457905);
	ck_assert_uint_eq(in.max_speed, 5);
	ck_assert_uint_eq(in.max_width, 16);
	ck_assert_uint_eq(in.cur_speed, 5);
	ck_assert_uint_eq(in.cur_width, 16);
	ck_assert(!in.dl_active);     /* an endpoint: LnkCap LLActRep-, lspci DLActive- */
	ck_assert_double_eq(falcon_pcie_speed_gts(in.cur_speed), 32.0);
	ck_assert_int_eq(in.acs_offset, 0);
	ck_assert_uint_eq(in.power_state, 0);
	ck_assert_int_eq(in.bar_type[0], FALCON_BAR_MEM64_PREF);
	ck_assert_uint_eq(in.bar_addr[0], 0x102002000000ull);
	ck_assert_int_eq(in.bar_type[1], FALCON_BAR_NONE);
	ck_assert_int_eq(in.bar_type[2], FALCON_BAR_MEM64_PREF);
	ck_assert_uint_eq(in.bar_addr[2], 0x100000000000ull);
	ck_assert_int_eq(in.bar_type[4], FALCON_BAR_MEM64_PREF);
	ck_assert_uint_eq(in.bar_addr[4], 0x102000000000ull);
	ck_assert_int_eq(in.bar_type[5], FALCON_BAR_NONE);
	ck_assert_int_eq(falcon_hp_unassigned_bar(d.cfg, FALCON_PCICFG_SIZE, h100_resource), -1);
}
END_TEST

START_TEST(test_build_rejects_bad_spec)
{
	struct falcon_pcicfg_spec s;
	uint8_t cfg[FALCON_PCICFG_SIZE];

	falcon_pcicfg_default_spec(&s, 0x10de, 0x1db4, bad_specs[_i].class_code,
				   FALCON_PCIE_ENDPOINT);
	s.max_speed = bad_specs[_i].max_speed;
	s.max_width = bad_specs[_i].max_width;
	s.cur_speed = bad_specs[_i].cur_speed;
	s.cur_width = bad_specs[_i].cur_width;
	s.power_state = bad_specs[_i].power;
	s.primary_bus = bad_specs[_i].pri;
	s.secondary_bus = bad_specs[_i].sec;
	s.subordinate_bus = bad_specs[_i].sub;
	ck_assert_int_eq(falcon_pcicfg_build(&s, cfg), FALCON_ERR_INVAL);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "10de:1db4"));
}
END_TEST

START_TEST(test_write_rejects_bad_bdf)
{
	static const char *bad[] = { "3b:00.0", "0000:3b:00", "0000:3b:20.0",
				     "0000:3b:00.8", "0000:3g:00.0", "0000-3b:00.0", NULL };
	struct falcon_pcicfg_spec s;
	int i;

	falcon_pcicfg_default_spec(&s, 0x10de, 0x1db4, FALCON_CLASS_3D, FALCON_PCIE_ENDPOINT);
	for (i = 0; bad[i] != NULL; i++)
		ck_assert_int_eq(falcon_pcicfg_write_sysfs("/nonexistent", bad[i], &s, 0),
				 FALCON_ERR_INVAL);
	ck_assert_int_eq(falcon_pcicfg_write_sysfs("/proc/falcon-no", "0000:3b:00.0", &s, 0),
			 FALCON_ERR_IO);
}
END_TEST

START_TEST(test_parse_errors)
{
	struct falcon_pcicfg_spec s;
	struct falcon_pcicfg_info info;
	uint8_t cfg[FALCON_PCICFG_SIZE];

	falcon_pcicfg_default_spec(&s, 0x10de, 0x1db4, FALCON_CLASS_3D, FALCON_PCIE_ENDPOINT);
	ck_assert_int_eq(falcon_pcicfg_build(&s, cfg), FALCON_OK);
	/* shorter than the header */
	ck_assert_int_eq(falcon_pcicfg_parse(cfg, 63, &info), FALCON_ERR_PARSE);
	ck_assert_int_eq(falcon_pcicfg_parse(NULL, 0, &info), FALCON_ERR_PARSE);
	/* header promises capabilities at 0x60 but only 64 bytes */
	ck_assert_int_eq(falcon_pcicfg_parse(cfg, 64, &info), FALCON_ERR_PARSE);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "shorter than its header says"));
	/* PCIe capability at 0x78 cut short */
	ck_assert_int_eq(falcon_pcicfg_parse(cfg, 0x80, &info), FALCON_ERR_PARSE);
	/* 256 bytes is fine: no extended space walked */
	ck_assert_int_eq(falcon_pcicfg_parse(cfg, 256, &info), FALCON_OK);
	ck_assert_int_eq(info.next_ext, 0);
	/* loop: MSI points back to PM */
	cfg[0x69] = 0x60;
	ck_assert_int_eq(falcon_pcicfg_parse(cfg, sizeof(cfg), &info), FALCON_ERR_PARSE);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "loops"));
	/* self loop */
	cfg[0x69] = 0x68;
	ck_assert_int_eq(falcon_pcicfg_parse(cfg, sizeof(cfg), &info), FALCON_ERR_PARSE);
	/* pointer into the header */
	cfg[0x69] = 0x10;
	ck_assert_int_eq(falcon_pcicfg_parse(cfg, sizeof(cfg), &info), FALCON_ERR_PARSE);
	cfg[0x69] = 0x78;
	ck_assert_int_eq(falcon_pcicfg_parse(cfg, sizeof(cfg), &info), FALCON_OK);
	/* extended list loop: AER's next points to itself */
	cfg[0x102] = 0x01;
	cfg[0x103] = 0x10;
	ck_assert_int_eq(falcon_pcicfg_parse(cfg, sizeof(cfg), &info), FALCON_ERR_PARSE);
	cfg[0x102] = 0x02;
	cfg[0x103] = 0x00;
	/* no device */
	cfg[0] = cfg[1] = 0xff;
	ck_assert_int_eq(falcon_pcicfg_parse(cfg, sizeof(cfg), &info), FALCON_ERR_PARSE);
}
END_TEST

START_TEST(test_speed_gts)
{
	ck_assert_double_eq(falcon_pcie_speed_gts(1), 2.5);
	ck_assert_double_eq(falcon_pcie_speed_gts(4), 16.0);
	ck_assert_double_eq(falcon_pcie_speed_gts(0), 0.0);
	ck_assert_double_eq(falcon_pcie_speed_gts(15), 0.0);
	ck_assert_str_eq(falcon_pcie_type_str(FALCON_PCIE_UPSTREAM), "Upstream Port");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pcicfg");
	TCase *tc = tcase_create("pcicfg");

	tcase_add_loop_test(tc, test_roundtrip, 0, (int)ARRAY_SIZE(devs));
	tcase_add_test(tc, test_libpci_reads_tree);
	tcase_add_loop_test(tc, test_layout_matches_real_dump, 0, (int)ARRAY_SIZE(layouts));
	tcase_add_loop_test(tc, test_build_rejects_bad_spec, 0, (int)ARRAY_SIZE(bad_specs));
	tcase_add_test(tc, test_write_rejects_bad_bdf);
	tcase_add_test(tc, test_parse_errors);
	tcase_add_test(tc, test_parse_real_h100);
	tcase_add_test(tc, test_speed_gts);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
