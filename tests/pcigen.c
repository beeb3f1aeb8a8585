/*
 * pcigen.c - build sysfs-shaped PCI trees for tests and benchmarks.
 *
 *   pcigen device ROOT BDF VENDOR:DEVICE CLASS TYPE [KEY=VALUE...]
 *       one device made by lib/pcicfg; CLASS hex (030200), TYPE one of
 *       ep legacy rp usp dsp; keys: speed width cur_speed cur_width
 *       (LnkCap/LnkSta codes and lanes), bus=PRI,SEC,SUB, numa, power (D0..3),
 *       slot, port, subsys=VVVV:DDDD, down=1 (link down)
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcicfg.h"
#include "util.h"

static int usage(void)
{
	fprintf(stderr, "usage: pcigen device ROOT BDF VENDOR:DEVICE CLASS TYPE [KEY=VALUE...]\n");
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

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "device"))
		return cmd_device(argc - 1, argv + 1);
	return usage();
}
