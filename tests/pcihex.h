/*
 * pcihex.h - read the config-space hex of `lspci -x/-xxx/-xxxx` output
 * (lines "00: b5 10 96 87 ..." up to "ff0: ...") for tests/pcigen and the
 * unit tests.  Test code only.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_PCIHEX_H
#define FALCON_PCIHEX_H

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One device of a dump: its slot ("04:00.0" or "0000:04:00.0") as lspci
 * printed it, and its config bytes (len = highest offset seen + 16). */
struct pcihex_dev {
	char slot[32];
	uint8_t cfg[4096];
	size_t len;
};

/*
 * pcihex_line - if line is "OFF: xx xx ... (16 bytes)" store them in d
 * and return 1; 0 for any other line.
 */
static inline int pcihex_line(const char *line, struct pcihex_dev *d)
{
	unsigned off, b[16];
	int n, i;
	char c;

	if (!isxdigit((unsigned char)line[0]))
		return 0;
	n = sscanf(line, "%x%c %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x",
		   &off, &c, &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &b[6], &b[7],
		   &b[8], &b[9], &b[10], &b[11], &b[12], &b[13], &b[14], &b[15]);
	if (n != 18 || c != ':' || off % 16 != 0 || off > 4080)
		return 0;
	for (i = 0; i < 16; i++) {
		if (b[i] > 0xff)
			return 0;
		d->cfg[off + i] = (uint8_t)b[i];
	}
	if (off + 16 > d->len)
		d->len = off + 16;
	return 1;
}

/*
 * pcihex_slot - if line starts a device ("04:00.0 VGA ..." or
 * "0000:04:00.0 ..."), copy its slot into slot (size n) and return 1.
 */
static inline int pcihex_slot(const char *line, char *slot, size_t n)
{
	unsigned a, b, c, d;
	char tail;
	int k = 0;

	if (sscanf(line, "%4x:%2x:%2x.%1u%c%n", &a, &b, &c, &d, &tail, &k) == 5 &&
	    line[4] == ':' && tail == ' ') {
		snprintf(slot, n, "%04x:%02x:%02x.%u", a, b, c, d);
		return 1;
	}
	if (sscanf(line, "%2x:%2x.%1u%c", &b, &c, &d, &tail) == 4 && line[2] == ':' &&
	    line[5] == '.' && tail == ' ') {
		snprintf(slot, n, "0000:%02x:%02x.%u", b, c, d);
		return 1;
	}
	return 0;
}

/*
 * pcihex_read - all devices with hex of the dump at path, in file order, a
 * slot seen twice (a file holding two dumps of the same device) kept once.
 * Returns a malloc'ed array (*n entries) or NULL when the file cannot be
 * read.
 */
static inline struct pcihex_dev *pcihex_read(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	struct pcihex_dev *v = NULL, *cur = NULL;
	char line[512], slot[32] = "";
	size_t i, cnt = 0;

	*n = 0;
	if (f == NULL)
		return NULL;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (pcihex_slot(line, slot, sizeof(slot))) {
			cur = NULL;
			continue;
		}
		if (slot[0] == '\0')
			continue;
		if (cur == NULL) {
			struct pcihex_dev tmp;

			memset(&tmp, 0, sizeof(tmp));
			if (!pcihex_line(line, &tmp))
				continue;
			for (i = 0; i < cnt; i++)
				if (!strcmp(v[i].slot, slot))
					break;
			if (i < cnt) {          /* repeated dump: ignore its lines */
				slot[0] = '\0';
				continue;
			}
			v = realloc(v, (cnt + 1) * sizeof(*v));
			if (v == NULL)
				break;
			cur = &v[cnt++];
			*cur = tmp;
			snprintf(cur->slot, sizeof(cur->slot), "%s", slot);
			continue;
		}
		pcihex_line(line, cur);
	}
	fclose(f);
	*n = cnt;
	return v;
}

#endif /* FALCON_PCIHEX_H */
