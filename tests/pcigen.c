/*
 * pcigen.c - build sysfs-shaped PCI trees for tests and benchmarks.
 *
 *   pcigen device ROOT BDF VENDOR:DEVICE CLASS TYPE [KEY=VALUE...]
 *       one device made by lib/pcicfg; CLASS hex (030200), TYPE one of
 *       ep legacy rp usp dsp; keys: speed width cur_speed cur_width
 *       (LnkCap/LnkSta codes and lanes), bus=PRI,SEC,SUB, numa, power (D0..3),
 *       slot, port, subsys=VVVV:DDDD, down=1 (link down)
 *   pcigen paper ROOT [--no-local-gpus] [--no-falcon-gpus] [--no-local-nvme]
 *       [--no-falcon-nvme]
 *       the paper's host (see paper_host() below); Falcon adapter 0000:5e:00.0
 *   pcigen bench ROOT
 *       16 GPUs behind 4 switches (tests/bench/topo)
 *   pcigen hex ROOT FILE [--rp BDF=SEC-SUB]... [--numa N]
 *       every device with a hex dump (lspci -x/-xxx/-xxxx) in FILE, config =
 *       those bytes; --rp adds a root port made by lib/pcicfg where the dump
 *       lacks one (its link copied from the first device below it)
 *   pcigen text ROOT FILE [--numa BUS-BUS=N]...
 *       a tree rebuilt from text: `lspci -tv` (the bus tree), `lspci` /
 *       `lspci -vvv` device lines (class), LnkCap/LnkSta, "NUMA node:",
 *       PM "Status: Dx" lines; config spaces made by lib/pcicfg.  For
 *       fixtures without hex (IDs from names where lspci printed no -nn).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pci/pcicfg.h"
#include "pcihex.h"
#include "core/util.h"

static int usage(void)
{
	fprintf(stderr, "usage: pcigen device ROOT BDF VENDOR:DEVICE CLASS TYPE [KEY=VALUE...]\n"
		"       pcigen paper ROOT [--no-local-gpus] [--no-falcon-gpus] "
		"[--no-local-nvme] [--no-falcon-nvme]\n"
		"       pcigen bench ROOT\n"
		"       pcigen hex ROOT FILE [--rp BDF=SEC-SUB]... [--numa N]\n"
		"       pcigen text ROOT FILE [--numa BUS-BUS=N]...\n");
	return 2;
}

static int num(const char *s, int base, long min, long max, long *out)
{
	if (falcon_strtol(s, base, min, max, out) != FALCON_OK) {
		fprintf(stderr, "pcigen: %s\n", falcon_errmsg());
		return -1;
	}
	return 0;
}

static int parse_type(const char *s, falcon_pcie_type_t *t)
{
	static const struct { const char *name; falcon_pcie_type_t t; } types[] = {
		{ "ep", FALCON_PCIE_ENDPOINT }, { "legacy", FALCON_PCIE_LEGACY_ENDPOINT },
		{ "rp", FALCON_PCIE_ROOT_PORT }, { "usp", FALCON_PCIE_UPSTREAM },
		{ "dsp", FALCON_PCIE_DOWNSTREAM },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(types); i++)
		if (!strcmp(s, types[i].name)) {
			*t = types[i].t;
			return 0;
		}
	fprintf(stderr, "pcigen: type '%s': expected ep, legacy, rp, usp or dsp\n", s);
	return -1;
}

static int cmd_device(int argc, char **argv)
{
	struct falcon_pcicfg_spec s;
	falcon_pcie_type_t type;
	long v, d, cls, numa = -1;
	char *colon;
	int i;

	if (argc < 6)
		return usage();
	colon = strchr(argv[3], ':');
	if (colon == NULL)
		return usage();
	*colon = '\0';
	if (num(argv[3], 16, 0, 0xffff, &v) || num(colon + 1, 16, 0, 0xffff, &d) ||
	    num(argv[4], 16, 0, 0xffffff, &cls) || parse_type(argv[5], &type))
		return 2;
	falcon_pcicfg_default_spec(&s, (uint16_t)v, (uint16_t)d, (uint32_t)cls, type);
	for (i = 6; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		long x, y, z;

		if (eq == NULL)
			return usage();
		*eq++ = '\0';
		if (!strcmp(argv[i], "speed") && !num(eq, 10, 1, 5, &x))
			s.max_speed = (uint8_t)x;
		else if (!strcmp(argv[i], "width") && !num(eq, 10, 1, 32, &x))
			s.max_width = (uint8_t)x;
		else if (!strcmp(argv[i], "cur_speed") && !num(eq, 10, 1, 5, &x))
			s.cur_speed = (uint8_t)x;
		else if (!strcmp(argv[i], "cur_width") && !num(eq, 10, 1, 32, &x))
			s.cur_width = (uint8_t)x;
		else if (!strcmp(argv[i], "numa") && !num(eq, 10, -1, 255, &x))
			numa = x;
		else if (!strcmp(argv[i], "power") && !num(eq, 10, 0, 3, &x))
			s.power_state = (uint8_t)x;
		else if (!strcmp(argv[i], "slot") && !num(eq, 10, 0, 8191, &x)) {
			s.slot = true;
			s.slot_number = (uint16_t)x;
		} else if (!strcmp(argv[i], "port") && !num(eq, 10, 0, 255, &x))
			s.port_number = (uint8_t)x;
		else if (!strcmp(argv[i], "down") && !num(eq, 10, 0, 1, &x))
			s.link_down = x != 0;
		else if (!strcmp(argv[i], "bus") &&
			 sscanf(eq, "%lx,%lx,%lx", &x, &y, &z) == 3 && x >= 0 && x < 256 &&
			 y >= 0 && y < 256 && z >= 0 && z < 256) {
			s.primary_bus = (uint8_t)x;
			s.secondary_bus = (uint8_t)y;
			s.subordinate_bus = (uint8_t)z;
		} else if (!strcmp(argv[i], "subsys") &&
			   sscanf(eq, "%lx:%lx", &x, &y) == 2 && x >= 0 && x <= 0xffff &&
			   y >= 0 && y <= 0xffff) {
			s.subsys_vendor = (uint16_t)x;
			s.subsys_device = (uint16_t)y;
		} else {
			fprintf(stderr, "pcigen: bad option %s=%s\n", argv[i], eq);
			return 2;
		}
	}
	if (falcon_pcicfg_write_sysfs(argv[1], argv[2], &s, (int)numa) != FALCON_OK) {
		fprintf(stderr, "pcigen: %s\n", falcon_errmsg());
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* hand-built hosts */

struct gen {
	const char *root;
	int rv;
};

/* one device; cur_speed/cur_width 0 = trained at max */
static void add(struct gen *g, const char *bdf, uint16_t vendor, uint16_t device,
		uint32_t cls, falcon_pcie_type_t type, int speed, int width, int cur_speed,
		int cur_width, int pri, int sec, int sub, int numa)
{
	struct falcon_pcicfg_spec s;

	if (g->rv != 0)
		return;
	falcon_pcicfg_default_spec(&s, vendor, device, cls, type);
	s.max_speed = (uint8_t)speed;
	s.max_width = (uint8_t)width;
	s.cur_speed = (uint8_t)cur_speed;
	s.cur_width = (uint8_t)cur_width;
	s.primary_bus = (uint8_t)pri;
	s.secondary_bus = (uint8_t)sec;
	s.subordinate_bus = (uint8_t)sub;
	s.slot = type == FALCON_PCIE_DOWNSTREAM;
	if (falcon_pcicfg_write_sysfs(g->root, bdf, &s, numa) != FALCON_OK) {
		fprintf(stderr, "pcigen: %s: %s\n", bdf, falcon_errmsg());
		g->rv = 1;
	}
}

#define BRIDGE FALCON_CLASS_PCI_BRIDGE
#define RP FALCON_PCIE_ROOT_PORT
#define USP FALCON_PCIE_UPSTREAM
#define DSP FALCON_PCIE_DOWNSTREAM
#define EP FALCON_PCIE_ENDPOINT
#define BDF(buf, bus, dev) snprintf(buf, sizeof(buf), "0000:%02x:%02x.0", (unsigned char)(bus), (unsigned char)(dev))

/* A root port at rbus:rdev.0 with a switch (upstream port on sec, its
 * downstream ports on sec+1) and n endpoints of vendor:device, one per
 * downstream port.  Buses sec .. sec+1+n. */
static void switch_with(struct gen *g, int rbus, int rdev, int sec, uint16_t sw_vendor,
			uint16_t sw_device, int n, uint16_t vendor, uint16_t device,
			uint32_t cls, int speed, int width, int numa)
{
	char b[16];
	int i, sub = sec + 1 + n;

	BDF(b, rbus, rdev);
	add(g, b, 0x8086, 0x2030, BRIDGE, RP, 4, 16, 0, 0, rbus, sec, sub, numa);
	BDF(b, sec, 0);
	add(g, b, sw_vendor, sw_device, BRIDGE, USP, 4, 16, 0, 0, sec, sec + 1, sub, numa);
	for (i = 0; i < n; i++) {
		BDF(b, sec + 1, i);
		add(g, b, sw_vendor, sw_device, BRIDGE, DSP, 4, 16, 0, 0, sec + 1, sec + 2 + i,
		    sec + 2 + i, numa);
		BDF(b, sec + 2 + i, 0);
		add(g, b, vendor, device, cls, EP, speed, width, 0, 0, 0, 0, 0, numa);
	}
}

/*
 * The paper's host (Table III testbed, see doc/falconctl.1 FILES):
 *   NUMA 0, root bus 00: host bridge; root port 00:03.0 -> local NVMe 01:00.0
 *   NUMA 0, root bus 17: root ports 17:00.0 and 17:02.0, each -> a PLX switch
 *     with 2 V100 SXM2 (10de:1db1): GPUs 1a, 1b and 1f, 20
 *   NUMA 0, root bus 5d: root port 5d:00.0 -> Falcon host adapter 5e:00.0
 *     (Broadcom PEX88096 1000:c010 upstream port) -> downstream ports 5f:00.0
 *     (drawer 1) and 5f:01.0 (drawer 2) -> per-drawer switches 60:00.0 and
 *     68:00.0 -> 4 V100 PCIe (10de:1db4) each (62-65, 6a-6d) and a Falcon
 *     NVMe 6e:00.0; GPU 6b:00.0 trained at 8 GT/s x8 in a 16 GT/s x16 slot
 *   NUMA 1, root buses 85 and ae: one switch each with 2 V100 SXM2 (88, 89,
 *     b1, b2)
 */
static int paper_host(const char *root, bool local_gpus, bool falcon_gpus,
		      bool local_nvme, bool falcon_nvme)
{
	struct gen g = { root, 0 };
	char b[16];
	int i;

	add(&g, "0000:00:00.0", 0x8086, 0x2020, FALCON_CLASS_HOST_BRIDGE,
	    FALCON_PCIE_RC_INTEGRATED, 3, 1, 0, 0, 0, 0, 0, 0);
	if (local_nvme) {
		add(&g, "0000:00:03.0", 0x8086, 0x2032, BRIDGE, RP, 3, 4, 0, 0, 0, 1, 1, 0);
		add(&g, "0000:01:00.0", 0x144d, 0xa808, FALCON_CLASS_NVME, EP, 3, 4, 0, 0,
		    0, 0, 0, 0);
	}
	if (local_gpus) {
		switch_with(&g, 0x17, 0x00, 0x18, 0x10b5, 0x9797, 2, 0x10de, 0x1db1,
			    FALCON_CLASS_3D, 3, 16, 0);
		switch_with(&g, 0x17, 0x02, 0x1d, 0x10b5, 0x9797, 2, 0x10de, 0x1db1,
			    FALCON_CLASS_3D, 3, 16, 0);
		switch_with(&g, 0x85, 0x00, 0x86, 0x10b5, 0x9797, 2, 0x10de, 0x1db1,
			    FALCON_CLASS_3D, 3, 16, 1);
		switch_with(&g, 0xae, 0x00, 0xaf, 0x10b5, 0x9797, 2, 0x10de, 0x1db1,
			    FALCON_CLASS_3D, 3, 16, 1);
	}
	/* Falcon: adapter and the two drawers' switches are always cabled */
	add(&g, "0000:5d:00.0", 0x8086, 0x2030, BRIDGE, RP, 4, 16, 0, 0, 0x5d, 0x5e, 0x6f, 0);
	add(&g, "0000:5e:00.0", 0x1000, 0xc010, BRIDGE, USP, 4, 16, 0, 0, 0x5e, 0x5f, 0x6f, 0);
	add(&g, "0000:5f:00.0", 0x1000, 0xc010, BRIDGE, DSP, 4, 16, 0, 0, 0x5f, 0x60, 0x67, 0);
	add(&g, "0000:5f:01.0", 0x1000, 0xc010, BRIDGE, DSP, 4, 16, 0, 0, 0x5f, 0x68, 0x6f, 0);
	add(&g, "0000:60:00.0", 0x1000, 0xc010, BRIDGE, USP, 4, 16, 0, 0, 0x60, 0x61, 0x67, 0);
	add(&g, "0000:68:00.0", 0x1000, 0xc010, BRIDGE, USP, 4, 16, 0, 0, 0x68, 0x69, 0x6f, 0);
	for (i = 0; i < 4; i++) {
		BDF(b, 0x61, i);
		add(&g, b, 0x1000, 0xc010, BRIDGE, DSP, 4, 16, 0, 0, 0x61, 0x62 + i, 0x62 + i, 0);
		BDF(b, 0x69, i);
		add(&g, b, 0x1000, 0xc010, BRIDGE, DSP, 4, 16, 0, 0, 0x69, 0x6a + i, 0x6a + i, 0);
		if (!falcon_gpus)
			continue;
		BDF(b, 0x62 + i, 0);
		add(&g, b, 0x10de, 0x1db4, FALCON_CLASS_3D, EP, 3, 16, 0, 0, 0, 0, 0, 0);
		BDF(b, 0x6a + i, 0);
		/* 6b:00.0 trained at Gen3 x8 */
		add(&g, b, 0x10de, 0x1db4, FALCON_CLASS_3D, EP, 3, 16, 0, i == 1 ? 8 : 0,
		    0, 0, 0, 0);
	}
	add(&g, "0000:69:04.0", 0x1000, 0xc010, BRIDGE, DSP, 4, 16, 0, 0, 0x69, 0x6e, 0x6e, 0);
	if (falcon_nvme)
		add(&g, "0000:6e:00.0", 0x144d, 0xa824, FALCON_CLASS_NVME, EP, 4, 4, 0, 0,
		    0, 0, 0, 0);
	return g.rv;
}

static int cmd_paper(int argc, char **argv)
{
	bool lg = true, fg = true, ln = true, fn = true;
	int i;

	if (argc < 2)
		return usage();
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--no-local-gpus"))
			lg = false;
		else if (!strcmp(argv[i], "--no-falcon-gpus"))
			fg = false;
		else if (!strcmp(argv[i], "--no-local-nvme"))
			ln = false;
		else if (!strcmp(argv[i], "--no-falcon-nvme"))
			fn = false;
		else
			return usage();
	}
	return paper_host(argv[1], lg, fg, ln, fn);
}

/* 16 GPUs behind 4 switches on 4 root buses, 2 NUMA nodes. */
static int cmd_bench(int argc, char **argv)
{
	struct gen g;
	int k;

	if (argc != 2)
		return usage();
	g.root = argv[1];
	g.rv = 0;
	add(&g, "0000:00:00.0", 0x8086, 0x2020, FALCON_CLASS_HOST_BRIDGE,
	    FALCON_PCIE_RC_INTEGRATED, 3, 1, 0, 0, 0, 0, 0, 0);
	for (k = 0; k < 4; k++)
		switch_with(&g, 0x20 + 0x40 * k, 0x01, 0x21 + 0x40 * k, 0x1000, 0xc010, 4,
			    0x10de, 0x20b5, FALCON_CLASS_3D, 4, 16, k / 2);
	return g.rv;
}

/* ------------------------------------------------------------------ */
/* from hex dumps */

static int cmd_hex(int argc, char **argv)
{
	struct pcihex_dev *v;
	size_t n, i;
	long numa = -1;
	int k, rv = 0;

	if (argc < 3)
		return usage();
	v = pcihex_read(argv[2], &n);
	if (v == NULL || n == 0) {
		fprintf(stderr, "pcigen: %s: no hex dump found\n", argv[2]);
		free(v);
		return 1;
	}
	for (k = 3; k < argc; k++)
		if (!strcmp(argv[k], "--numa") && k + 1 < argc) {
			if (num(argv[++k], 10, -1, 255, &numa))
				rv = 2;
		}
	for (i = 0; i < n && rv == 0; i++)
		if (falcon_pcicfg_write_raw(argv[1], v[i].slot, v[i].cfg, v[i].len,
					    (int)numa) != FALCON_OK) {
			fprintf(stderr, "pcigen: %s: %s\n", v[i].slot, falcon_errmsg());
			rv = 1;
		}
	for (k = 3; k < argc && rv == 0; k++) {
		struct falcon_pcicfg_spec s;
		unsigned dom, bus, dev, fn, sec, sub;
		char bdf[16];

		if (!strcmp(argv[k], "--numa")) {
			k++;
			continue;
		}
		if (strcmp(argv[k], "--rp") != 0 || k + 1 >= argc ||
		    sscanf(argv[k + 1], "%4x:%2x:%2x.%1u=%2x-%2x", &dom, &bus, &dev, &fn,
			   &sec, &sub) != 6) {
			fprintf(stderr, "pcigen: hex: expected --rp DDDD:BB:DD.F=SEC-SUB\n");
			rv = 2;
			break;
		}
		k++;
		snprintf(bdf, sizeof(bdf), "%04x:%02x:%02x.%u", dom, bus, dev, fn);
		falcon_pcicfg_default_spec(&s, 0x8086, 0x6f04, FALCON_CLASS_PCI_BRIDGE,
					   FALCON_PCIE_ROOT_PORT);
		s.primary_bus = (uint8_t)bus;
		s.secondary_bus = (uint8_t)sec;
		s.subordinate_bus = (uint8_t)sub;
		/* link of the first dumped device on the secondary bus */
		for (i = 0; i < n; i++) {
			struct falcon_pcicfg_info info;
			unsigned b2;

			if (sscanf(v[i].slot, "%*4x:%2x", &b2) == 1 && b2 == sec &&
			    falcon_pcicfg_parse(v[i].cfg, v[i].len, &info) == FALCON_OK &&
			    info.max_speed >= 1 && info.max_speed <= 5 && info.max_width >= 1) {
				s.max_speed = info.max_speed;
				s.max_width = info.max_width;
				break;
			}
		}
		if (falcon_pcicfg_write_sysfs(argv[1], bdf, &s, (int)numa) != FALCON_OK) {
			fprintf(stderr, "pcigen: %s: %s\n", bdf, falcon_errmsg());
			rv = 1;
		}
	}
	free(v);
	return rv;
}

/* ------------------------------------------------------------------ */
/* from lspci text (tree, device lines, LnkCap/LnkSta) */

struct tnode {
	char bdf[16];
	unsigned domain, bus;
	bool bridge;
	unsigned sec, sub;
	int parent;              /* index of the bridge above, -1 on a root bus */
	char name[160];
	char cls[64];            /* lspci class name, "" when unknown */
	int prog_if;             /* -1 unknown */
	int max_speed, max_width, cur_speed, cur_width; /* 0 unknown */
	int type;                /* pcie port type from "Express (v2) ...", -1 */
	int numa, power;
};

struct tlist {
	struct tnode *v;
	size_t n;
};

static struct tnode *tfind(struct tlist *l, const char *bdf, bool create)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].bdf, bdf))
			return &l->v[i];
	if (!create)
		return NULL;
	l->v = realloc(l->v, (l->n + 1) * sizeof(*l->v));
	if (l->v == NULL) {
		perror("pcigen");
		exit(1);
	}
	memset(&l->v[l->n], 0, sizeof(l->v[l->n]));
	snprintf(l->v[l->n].bdf, sizeof(l->v[l->n].bdf), "%s", bdf);
	l->v[l->n].parent = -1;
	l->v[l->n].prog_if = -1;
	l->v[l->n].type = -1;
	l->v[l->n].numa = -1;
	return &l->v[l->n++];
}

static int speed_code(const char *s)
{
	double gts = atof(s);
	int c;

	for (c = 1; c <= 5; c++)
		if (falcon_pcie_speed_gts((unsigned)c) == gts)
			return c;
	return 0;
}

/* Device and attribute lines (lspci, lspci -vvv). */
static void text_attrs(FILE *f, struct tlist *l)
{
	char line[1024], slot[32];
	struct tnode *cur = NULL;
	const char *p;

	while (fgets(line, sizeof(line), f) != NULL) {
		if (pcihex_slot(line, slot, sizeof(slot))) {
			const char *sp = strchr(line, ' ') + 1, *colon = strstr(sp, ": ");

			cur = tfind(l, slot, true);
			if (colon != NULL && (size_t)(colon - sp) < sizeof(cur->cls)) {
				snprintf(cur->cls, sizeof(cur->cls), "%.*s", (int)(colon - sp), sp);
				if (cur->name[0] == '\0')
					snprintf(cur->name, sizeof(cur->name), "%s", colon + 2);
			}
			if ((p = strstr(line, "(prog-if ")) != NULL)
				cur->prog_if = (int)strtol(p + 9, NULL, 16);
			continue;
		}
		if (cur == NULL || (line[0] != ' ' && line[0] != '\t'))
			continue;
		if ((p = strstr(line, "LnkCap:")) != NULL && cur->max_speed == 0) {
			const char *sp = strstr(p, "Speed "), *w = strstr(p, "Width x");

			if (sp != NULL && w != NULL) {
				cur->max_speed = speed_code(sp + 6);
				cur->max_width = atoi(w + 7);
			}
		} else if ((p = strstr(line, "LnkSta:")) != NULL && cur->cur_speed == 0) {
			const char *sp = strstr(p, "Speed "), *w = strstr(p, "Width x");

			if (sp != NULL && w != NULL) {
				cur->cur_speed = speed_code(sp + 6);
				cur->cur_width = atoi(w + 7);
			}
		} else if ((p = strstr(line, "NUMA node: ")) != NULL) {
			cur->numa = atoi(p + 11);
		} else if ((p = strstr(line, "Status: D")) != NULL) {
			cur->power = p[9] >= '0' && p[9] <= '3' ? p[9] - '0' : 0;
		} else if ((p = strstr(line, "] Express ")) != NULL) {
			if (strstr(p, "Root Port"))
				cur->type = FALCON_PCIE_ROOT_PORT;
			else if (strstr(p, "Upstream Port"))
				cur->type = FALCON_PCIE_UPSTREAM;
			else if (strstr(p, "Downstream Port"))
				cur->type = FALCON_PCIE_DOWNSTREAM;
			else if (strstr(p, "Legacy Endpoint"))
				cur->type = FALCON_PCIE_LEGACY_ENDPOINT;
			else if (strstr(p, "Endpoint"))
				cur->type = FALCON_PCIE_ENDPOINT;
		}
	}
}

/* The bus tree of `lspci -t[v]`: a stack of levels, each the column of
 * its children's "DD.F" tokens and the bus they sit on. */
static void text_tree(FILE *f, struct tlist *l)
{
	struct { int col; unsigned domain, bus; int owner; } st[64];
	char line[1024];
	int depth = 0;

	while (fgets(line, sizeof(line), f) != NULL) {
		const char *q = line;
		int x;

		while (*q == ' ')
			q++;
		if (*q != '-' && *q != '+' && *q != '|' && *q != '\\')
			continue;
		for (x = 0; line[x] != '\0' && line[x] != '\n'; x++) {
			unsigned dom, bus, dev, fn, sec, sub;
			int k = 0;
			char c1, c2;

			if (line[x] == '[' && sscanf(line + x, "[%4x:%2x]%n", &dom, &bus, &k) == 2 &&
			    k == 9) {
				depth = 0;
				st[depth].col = -1;
				st[depth].domain = dom;
				st[depth].bus = bus;
				st[depth].owner = -1;
				depth++;
				x += k - 1;
				continue;
			}
			if (line[x] != '-' || depth == 0 ||
			    sscanf(line + x + 1, "%2x.%1u%c", &dev, &fn, &c1) != 3 ||
			    line[x + 3] != '.' || (c1 != '-' && c1 != ' ' && c1 != '\n'))
				continue;
			{
				int col = x + 1;
				struct tnode *nd;
				char bdf[16];

				while (depth > 1 && st[depth - 1].col >= 0 && st[depth - 1].col > col)
					depth--;
				if (st[depth - 1].col < 0)
					st[depth - 1].col = col;
				snprintf(bdf, sizeof(bdf), "%04x:%02x:%02x.%u", st[depth - 1].domain,
					 st[depth - 1].bus, dev, fn);
				nd = tfind(l, bdf, true);
				nd->domain = st[depth - 1].domain;
				nd->bus = st[depth - 1].bus;
				nd->parent = st[depth - 1].owner;
				x = col + 4;
				k = 0;
				if (sscanf(line + x, "-[%2x-%2x]%c%n", &sec, &sub, &c2, &k) == 3 &&
				    c2 == '-') {
					nd->bridge = true;
				} else if (sscanf(line + x, "-[%2x]%c%n", &sec, &c2, &k) == 2 &&
					   c2 == '-') {
					nd->bridge = true;
					sub = sec;
				}
				if (nd->bridge && depth < 64) {
					nd->sec = sec;
					nd->sub = sub;
					st[depth].col = -1;
					st[depth].domain = nd->domain;
					st[depth].bus = sec;
					st[depth].owner = (int)(nd - l->v);
					depth++;
					x += k - 2;
				} else if (line[x] == ' ' && line[x + 1] == ' ' && nd->name[0] == '\0') {
					snprintf(nd->name, sizeof(nd->name), "%s", line + x + 2);
					nd->name[strcspn(nd->name, "\n")] = '\0';
				}
				x--;
			}
		}
		/* a bridge's children start on its own line: close empty ones */
		while (depth > 1 && st[depth - 1].col < 0)
			depth--;
	}
}

static uint32_t class_of(const struct tnode *t)
{
	static const struct { const char *name; uint32_t cls; } names[] = {
		{ "Host bridge", 0x060000 }, { "PCI bridge", 0x060400 },
		{ "ISA bridge", 0x060100 }, { "VGA compatible controller", 0x030000 },
		{ "3D controller", 0x030200 }, { "Display controller", 0x038000 },
		{ "Audio device", 0x040300 }, { "Non-Volatile memory controller", 0x010802 },
		{ "Ethernet controller", 0x020000 }, { "Infiniband controller", 0x020700 },
		{ "SATA controller", 0x010601 }, { "RAID bus controller", 0x010400 },
		{ "USB controller", 0x0c0330 }, { "SMBus", 0x0c0500 }, { "IOMMU", 0x080600 },
		{ "System peripheral", 0x088000 }, { "Encryption controller", 0x108000 },
	};
	const char *br;
	size_t i;

	if (t->bridge)
		return FALCON_CLASS_PCI_BRIDGE;
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(t->cls, names[i].name))
			return names[i].cls | (t->prog_if > 0 ? (uint32_t)t->prog_if : 0);
	/* "Class 0604" or "Generic system peripheral [0807]" */
	if (!strncmp(t->cls, "Class ", 6))
		return (uint32_t)strtoul(t->cls + 6, NULL, 16) << 8;
	if ((br = strrchr(t->cls, '[')) != NULL)
		return (uint32_t)strtoul(br + 1, NULL, 16) << 8;
	/* tree only: guess from the name */
	if (strstr(t->name, "NVMe"))
		return FALCON_CLASS_NVME;
	if (strstr(t->name, "Audio"))
		return 0x040300;
	if (!strncmp(t->name, "NVIDIA", 6) &&
	    (strstr(t->name, "[H100") || strstr(t->name, "RTX") || strstr(t->name, "GeForce") ||
	     strstr(t->name, "Tesla")))
		return FALCON_CLASS_3D;
	return 0xff0000;
}

static void ids_of(const struct tnode *t, uint16_t *vendor, uint16_t *device)
{
	static const struct { const char *prefix; uint16_t id; } vendors[] = {
		{ "NVIDIA", 0x10de }, { "Advanced Micro Devices, Inc. [AMD/ATI]", 0x1002 },
		{ "Advanced Micro Devices", 0x1022 }, { "Intel", 0x8086 },
		{ "Mellanox", 0x15b3 }, { "Samsung", 0x144d }, { "Micron", 0x1344 },
		{ "Broadcom", 0x1000 }, { "PLX", 0x10b5 }, { "ASPEED", 0x1a03 },
		{ "Lenovo", 0x17aa }, { "HighPoint", 0x1103 },
	};
	static const struct { const char *part; uint16_t id; } devices[] = {
		{ "[H100 SXM5 80GB]", 0x2330 }, { "[RTX 6000 Ada Generation]", 0x26b1 },
		{ "ConnectX-7 PCIe Bridge", 0x1021 }, { "[ConnectX-7]", 0x1021 },
	};
	const char *b = strrchr(t->name, '[');
	unsigned v, d;
	size_t i;

	*vendor = 0;
	*device = 0;
	if (b != NULL && sscanf(b, "[%4x:%4x]", &v, &d) == 2) {
		*vendor = (uint16_t)v;
		*device = (uint16_t)d;
		return;
	}
	for (i = 0; i < ARRAY_SIZE(vendors); i++)
		if (!strncmp(t->name, vendors[i].prefix, strlen(vendors[i].prefix))) {
			*vendor = vendors[i].id;
			break;
		}
	for (i = 0; i < ARRAY_SIZE(devices); i++)
		if (strstr(t->name, devices[i].part) != NULL) {
			*device = devices[i].id;
			break;
		}
	/* "Device 14ab" */
	if (*device == 0 && (b = strstr(t->name, "Device ")) != NULL)
		*device = (uint16_t)strtoul(b + 7, NULL, 16);
}

static int cmd_text(int argc, char **argv)
{
	struct tlist l = { NULL, 0 };
	struct { unsigned lo, hi; int node; } numa[16];
	size_t nnuma = 0, i;
	FILE *f;
	int k, rv = 0;

	if (argc < 3)
		return usage();
	for (k = 3; k < argc; k++) {
		unsigned lo, hi;
		int node;

		if (strcmp(argv[k], "--numa") != 0 || k + 1 >= argc || nnuma >= 16 ||
		    sscanf(argv[k + 1], "%2x-%2x=%d", &lo, &hi, &node) != 3)
			return usage();
		numa[nnuma].lo = lo;
		numa[nnuma].hi = hi;
		numa[nnuma++].node = node;
		k++;
	}
	f = fopen(argv[2], "r");
	if (f == NULL) {
		perror(argv[2]);
		return 1;
	}
	text_tree(f, &l);
	rewind(f);
	{
		/* attribute lines only for devices of the tree */
		struct tlist attrs = { NULL, 0 };

		text_attrs(f, &attrs);
		for (i = 0; i < attrs.n; i++) {
			struct tnode *t = tfind(&l, attrs.v[i].bdf, false);
			struct tnode *a = &attrs.v[i];

			if (t == NULL)
				continue;
			memcpy(t->cls, a->cls, sizeof(t->cls));
			if (a->name[0] != '\0')
				memcpy(t->name, a->name, sizeof(t->name));
			t->prog_if = a->prog_if;
			t->max_speed = a->max_speed;
			t->max_width = a->max_width;
			t->cur_speed = a->cur_speed;
			t->cur_width = a->cur_width;
			t->type = a->type;
			t->numa = a->numa;
			t->power = a->power;
		}
		free(attrs.v);
	}
	fclose(f);
	if (l.n == 0) {
		fprintf(stderr, "pcigen: %s: no lspci -t tree found\n", argv[2]);
		return 1;
	}
	/* an endpoint without LnkCap gets its slot's (the port above it) */
	for (i = 0; i < l.n; i++) {
		struct tnode *t = &l.v[i];

		if (!t->bridge && t->max_speed == 0 && t->parent >= 0 &&
		    l.v[t->parent].max_speed > 0) {
			t->max_speed = l.v[t->parent].max_speed;
			t->max_width = l.v[t->parent].max_width;
		}
	}
	for (i = 0; i < l.n && rv == 0; i++) {
		struct tnode *t = &l.v[i];
		struct falcon_pcicfg_spec s;
		uint16_t vendor, device;
		falcon_pcie_type_t type;
		int root, node = t->numa;
		size_t j;

		ids_of(t, &vendor, &device);
		/* port type: from -vvv, else by position in the tree */
		if (t->type >= 0)
			type = (falcon_pcie_type_t)t->type;
		else if (!t->bridge)
			type = FALCON_PCIE_ENDPOINT;
		else if (t->parent < 0)
			type = FALCON_PCIE_ROOT_PORT;
		else {
			/* walk: root port -> upstream -> downstream -> upstream ... */
			int depth = 0, p = t->parent;

			while (p >= 0) {
				depth++;
				p = l.v[p].parent;
			}
			type = depth % 2 == 1 ? FALCON_PCIE_UPSTREAM : FALCON_PCIE_DOWNSTREAM;
		}
		falcon_pcicfg_default_spec(&s, vendor, device, class_of(t), type);
		if (t->bridge) {
			s.primary_bus = (uint8_t)t->bus;
			s.secondary_bus = (uint8_t)t->sec;
			s.subordinate_bus = (uint8_t)t->sub;
		}
		/* link: own LnkCap, else the first child's that has one */
		if (t->max_speed == 0)
			for (j = 0; j < l.n; j++)
				if (l.v[j].parent == (int)i && l.v[j].max_speed > 0) {
					t->max_speed = l.v[j].max_speed;
					t->max_width = l.v[j].max_width;
					break;
				}
		if (t->max_speed > 0 && t->max_width > 0) {
			s.max_speed = (uint8_t)t->max_speed;
			s.max_width = (uint8_t)t->max_width;
		}
		if (t->cur_speed > 0 && t->cur_speed <= s.max_speed)
			s.cur_speed = (uint8_t)t->cur_speed;
		if (t->cur_width > 0 && t->cur_width <= s.max_width)
			s.cur_width = (uint8_t)t->cur_width;
		s.power_state = (uint8_t)t->power;
		/* NUMA: own, else by root bus */
		root = (int)i;
		while (l.v[root].parent >= 0)
			root = l.v[root].parent;
		for (j = 0; node < 0 && j < nnuma; j++)
			if (l.v[root].bus >= numa[j].lo && l.v[root].bus <= numa[j].hi)
				node = numa[j].node;
		if (falcon_pcicfg_write_sysfs(argv[1], t->bdf, &s, node) != FALCON_OK) {
			fprintf(stderr, "pcigen: %s: %s\n", t->bdf, falcon_errmsg());
			rv = 1;
		}
	}
	free(l.v);
	return rv;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "device"))
		return cmd_device(argc - 1, argv + 1);
	if (!strcmp(argv[1], "paper"))
		return cmd_paper(argc - 1, argv + 1);
	if (!strcmp(argv[1], "bench"))
		return cmd_bench(argc - 1, argv + 1);
	if (!strcmp(argv[1], "hex"))
		return cmd_hex(argc - 1, argv + 1);
	if (!strcmp(argv[1], "text"))
		return cmd_text(argc - 1, argv + 1);
	return usage();
}
