/*
 * fuzz_config_space.c - libFuzzer over the config-space parser
 * (falcon_pcicfg_parse: header, capability chain, PCI Express capability,
 * extended capability chain) and the link judgement built on it.
 *
 * The input is one config space (any length up to 8192 bytes); when it
 * is longer than 4096 bytes the rest is a second one, parsed as the
 * upstream port of the first.  Run: make fuzz-topo (FUZZ_SECONDS=600).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pci/pcicfg.h"
#include "pci/topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct falcon_pcicfg_info dev, port;
	struct falcon_link link;
	size_t n1 = size > FALCON_PCICFG_SIZE ? FALCON_PCICFG_SIZE : size;
	uint8_t *copy;
	int k;

	/* an exact-size heap copy so that ASan sees any read past the end */
	copy = malloc(n1 ? n1 : 1);
	if (copy == NULL)
		return 0;
	memcpy(copy, data, n1);
	if (falcon_pcicfg_parse(copy, n1, &dev) == FALCON_OK) {
		/* invariants of a successful parse */
		if (dev.ncaps < 0 || dev.ncaps > 48)
			__builtin_trap();
		for (k = 0; k < dev.ncaps; k++)
			if (dev.cap_offsets[k] < FALCON_PCICFG_HEADER ||
			    (size_t)dev.cap_offsets[k] + 2 > n1)
				__builtin_trap();
		if (dev.pcie_offset != 0 && (size_t)dev.pcie_offset + 0x14 > n1)
			__builtin_trap();
		if (size > FALCON_PCICFG_SIZE &&
		    falcon_pcicfg_parse(data + FALCON_PCICFG_SIZE, size - FALCON_PCICFG_SIZE,
					&port) == FALCON_OK)
			falcon_link_judge(&dev, &port, FALCON_PCI_GPU, &link);
		else
			falcon_link_judge(&dev, NULL, FALCON_PCI_NVME, &link);
		if (link.degraded && link.idle)
			__builtin_trap();
	}
	free(copy);
	return 0;
}
