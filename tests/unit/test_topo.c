/*
 * test_topo.c - unit tests of lib/pci/topo on sysfs trees read by real libpci:
 * the paper's host built by tests/pcigen (lib/pcicfg), trees rebuilt from
 * the real dumps in fixtures/pci, and every bad input.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <json-c/json.h>
#include <unistd.h>

#include "chassis/chassis.h" /* with topo.h: the two device enums must not clash */
#include "testutil.h"
#include "pci/topo.h"
#include "core/util.h"

#define PAPER_ADAPTER "0000:5e:00.0"

/* snprintf that must fit */
#define FMT(buf, ...) \
	ck_assert_int_lt(snprintf(buf, sizeof(buf), __VA_ARGS__), (int)sizeof(buf))

/* Trees made by this test, removed by the teardown. */
static char made[16][4096];
static int nmade;

static void remove_trees(void)
{
	char cmd[8192];
	int i;

	for (i = 0; i < nmade; i++) {
		FMT(cmd, "rm -rf '%s'", made[i]);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", made[i]);
	}
	nmade = 0;
}

static const char *tmpdir(const char *tag)
{
	const char *d = make_tmpdir(tag);

	if (nmade < 16)
		snprintf(made[nmade++], sizeof(made[0]), "%s", d);
	return d;
}

/* Run tests/pcigen with args (a shell word list) making a tree under a new
 * directory; returns the directory (static buffer). */
static const char *gen(const char *tag, const char *args)
{
	static char dir[4096];
	char cmd[8192];

	FMT(dir, "%s", tmpdir(tag));
	FMT(cmd, "'%s/tests/pcigen' %s", FALCON_TEST_BUILDDIR, args);
	{
		/* args use %R for the tree's root */
		char *r = strstr(cmd, "%R");
		char tmp[8192];

		ck_assert_ptr_nonnull(r);
		*r = '\0';
		FMT(tmp, "%s'%s'%s", cmd, dir, r + 2);
		ck_assert_int_eq(system(tmp), 0);
	}
	return dir;
}

static struct falcon_topo *scan(const char *root, const char *adapter)
{
	struct falcon_topo *t = NULL;
	const char *list[1] = { adapter };
	falcon_err_t rv = falcon_topo_scan(root, list, adapter ? 1 : 0, &t);

	if (rv != FALCON_OK)
		ck_abort_msg("scan %s: %s", root, falcon_errmsg());
	return t;
}

static size_t idx(const struct falcon_topo *t, const char *bdf)
{
	const struct falcon_pci_dev *d = falcon_topo_find(t, bdf);

	ck_assert_msg(d != NULL, "%s not found", bdf);
	return (size_t)(d - t->devs);
}

/* ---- the paper's host ---- */

static const struct {
	const char *a, *b;
	falcon_path_class_t paper;
	falcon_smi_class_t smi;
} pairs[] = {
	{ "1a:00.0", "1b:00.0", FALCON_PATH_LL, FALCON_SMI_PIX },  /* same switch */
	{ "1a:00.0", "1f:00.0", FALCON_PATH_LL, FALCON_SMI_PHB },  /* 2 root ports, 1 host bridge */
	{ "88:00.0", "b1:00.0", FALCON_PATH_LL, FALCON_SMI_NODE }, /* 2 host bridges, NUMA 1 */
	{ "1a:00.0", "88:00.0", FALCON_PATH_LL, FALCON_SMI_SYS },  /* NUMA 0 - NUMA 1 */
	{ "1a:00.0", "62:00.0", FALCON_PATH_FL, FALCON_SMI_NODE },
	{ "88:00.0", "62:00.0", FALCON_PATH_FL, FALCON_SMI_SYS },
	{ "62:00.0", "65:00.0", FALCON_PATH_FF, FALCON_SMI_PIX },  /* one drawer switch */
	{ "62:00.0", "6a:00.0", FALCON_PATH_FF, FALCON_SMI_PXB },  /* drawers via the adapter */
	{ "6d:00.0", "6b:00.0", FALCON_PATH_FF, FALCON_SMI_PIX },
	{ "1a:00.0", "1a:00.0", FALCON_PATH_LL, FALCON_SMI_X },
};

START_TEST(test_paper_pairs)
{
	struct falcon_topo *t = scan(gen("topo", "paper %R"), PAPER_ADAPTER);
	falcon_smi_class_t smi;
	falcon_path_class_t paper;

	ck_assert_int_eq(falcon_topo_pair(t, idx(t, pairs[_i].a), idx(t, pairs[_i].b), &smi,
					  &paper), FALCON_OK);
	ck_assert_str_eq(falcon_path_class_str(paper), falcon_path_class_str(pairs[_i].paper));
	ck_assert_str_eq(falcon_smi_class_str(smi), falcon_smi_class_str(pairs[_i].smi));
	/* symmetric */
	ck_assert_int_eq(falcon_topo_pair(t, idx(t, pairs[_i].b), idx(t, pairs[_i].a), &smi,
					  &paper), FALCON_OK);
	ck_assert_str_eq(falcon_smi_class_str(smi), falcon_smi_class_str(pairs[_i].smi));
	falcon_topo_free(t);
}
END_TEST

START_TEST(test_paper_classification)
{
	struct falcon_topo *t = scan(gen("topo", "paper %R"), PAPER_ADAPTER);
	const struct falcon_pci_dev *d;
	size_t i, nf = 0;

	ck_assert_uint_eq(t->ngpus, 16);
	ck_assert_uint_eq(t->nnvme, 2);
	ck_assert_uint_eq(t->nmissing, 0);
	for (i = 0; i < t->ngpus; i++) {
		d = &t->devs[t->gpus[i]];
		ck_assert_int_eq(d->kind, FALCON_PCI_GPU);
		nf += d->location == FALCON_LOC_FALCON;
		/* local SXM2 10de:1db1, Falcon PCIe 10de:1db4 */
		ck_assert_uint_eq(d->device_id, d->location == FALCON_LOC_FALCON ? 0x1db4 : 0x1db1);
		if (i > 0)
			ck_assert_str_lt(t->devs[t->gpus[i - 1]].bdf, d->bdf);
	}
	ck_assert_uint_eq(nf, 8);
	ck_assert_int_eq(falcon_topo_find(t, "0000:01:00.0")->location, FALCON_LOC_LOCAL);
	ck_assert_int_eq(falcon_topo_find(t, "6e:00.0")->location, FALCON_LOC_FALCON);
	ck_assert_int_eq(falcon_topo_find(t, "6E:00.0")->kind, FALCON_PCI_NVME);
	ck_assert_int_eq(falcon_topo_find(t, PAPER_ADAPTER)->kind, FALCON_PCI_BRIDGE);
	ck_assert_int_eq(falcon_topo_find(t, PAPER_ADAPTER)->location, FALCON_LOC_LOCAL);
	ck_assert_int_eq(falcon_topo_find(t, "62:00.0")->adapter, 0);
	ck_assert_int_eq(falcon_topo_find(t, "62:00.0")->numa_node, 0);
	ck_assert_ptr_null(falcon_topo_find(t, "0000:ff:00.0"));
	ck_assert_ptr_null(falcon_topo_find(t, "junk"));
	ck_assert_uint_eq(t->gpu_label, FALCON_CONF_TOPO_HYBRIDGPUS);
	ck_assert_uint_eq(t->storage_label, FALCON_CONF_TOPO_FALCONNVME);
	falcon_topo_free(t);
}
END_TEST

/* 6b:00.0 trained at 8 GT/s x8 in a 16 GT/s x16 slot (V100: 8 GT/s x16). */
START_TEST(test_paper_degraded_link)
{
	struct falcon_topo *t = scan(gen("topo", "paper %R"), PAPER_ADAPTER);
	const struct falcon_pci_dev *d = falcon_topo_find(t, "0000:6b:00.0");
	size_t i;
	int n = 0;

	ck_assert(d->link.known);
	ck_assert(d->link.degraded);
	ck_assert(!d->link.idle);
	ck_assert_double_eq(d->link.speed_gts, 8.0);
	ck_assert_int_eq(d->link.width, 8);
	ck_assert_double_eq(d->link.max_speed_gts, 8.0);
	ck_assert_int_eq(d->link.max_width, 16);
	for (i = 0; i < t->ngpus; i++)
		n += t->devs[t->gpus[i]].link.degraded;
	ck_assert_int_eq(n, 1);
	d = falcon_topo_find(t, "0000:6e:00.0");
	ck_assert(!d->link.degraded);
	ck_assert_double_eq(d->link.max_speed_gts, 16.0);
	ck_assert_int_eq(d->link.max_width, 4);
	falcon_topo_free(t);
}
END_TEST

START_TEST(test_paper_json)
{
	struct falcon_topo *t = scan(gen("topo", "paper %R"), PAPER_ADAPTER);
	json_object *j = NULL, *v, *g, *l, *m;
	static const char *const gkeys[] = { "bdf", "vendor_id", "device_id", "location", "link" };
	static const char *const lkeys[] = { "speed_gts", "width", "max_speed_gts", "max_width",
					     "degraded" };
	size_t i;

	ck_assert_int_eq(falcon_topo_to_json(t, &j), FALCON_OK);
	ck_assert(json_object_object_get_ex(j, "topology", &v));
	ck_assert_str_eq(json_object_get_string(v), "hybridGPUs");
	ck_assert(json_object_object_get_ex(j, "storage", &v));
	ck_assert_str_eq(json_object_get_string(v), "falconNVMe");
	ck_assert_int_eq(json_object_object_length(j), 5);
	ck_assert(json_object_object_get_ex(j, "gpus", &v));
	ck_assert_uint_eq(json_object_array_length(v), 16);
	g = json_object_array_get_idx(v, 9);
	ck_assert_int_eq(json_object_object_length(g), (int)ARRAY_SIZE(gkeys));
	for (i = 0; i < ARRAY_SIZE(gkeys); i++)
		ck_assert(json_object_object_get_ex(g, gkeys[i], NULL));
	ck_assert_str_eq(json_object_get_string(json_object_object_get(g, "bdf")), "0000:6b:00.0");
	ck_assert_str_eq(json_object_get_string(json_object_object_get(g, "vendor_id")), "10de");
	ck_assert_str_eq(json_object_get_string(json_object_object_get(g, "device_id")), "1db4");
	ck_assert_str_eq(json_object_get_string(json_object_object_get(g, "location")), "falcon");
	l = json_object_object_get(g, "link");
	ck_assert_int_eq(json_object_object_length(l), (int)ARRAY_SIZE(lkeys));
	for (i = 0; i < ARRAY_SIZE(lkeys); i++)
		ck_assert(json_object_object_get_ex(l, lkeys[i], NULL));
	ck_assert(json_object_get_boolean(json_object_object_get(l, "degraded")));
	ck_assert_double_eq(json_object_get_double(json_object_object_get(l, "speed_gts")), 8.0);
	ck_assert_int_eq(json_object_get_int(json_object_object_get(l, "max_width")), 16);
	ck_assert(json_object_object_get_ex(j, "nvme", &v));
	ck_assert_uint_eq(json_object_array_length(v), 2);
	ck_assert(json_object_object_get_ex(j, "matrix", &m));
	ck_assert_uint_eq(json_object_array_length(m), 16);
	v = json_object_array_get_idx(m, 0);
	ck_assert_uint_eq(json_object_array_length(v), 16);
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(v, 0)), "X");
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(v, 1)), "L-L PIX");
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(v, 4)), "F-L NODE");
	v = json_object_array_get_idx(m, 4);
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(v, 5)), "F-F PIX");
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(v, 8)), "F-F PXB");
	/* the text is valid JSON again */
	ck_assert_ptr_nonnull(strstr(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN),
				 "\"speed_gts\":8.0"));
	json_object_put(j);
	falcon_topo_free(t);
}
END_TEST

/* Table III labels for the variants of the host. */
#define LG FALCON_CONF_TOPO_LOCALGPUS
#define HG FALCON_CONF_TOPO_HYBRIDGPUS
#define FG FALCON_CONF_TOPO_FALCONGPUS
#define LN FALCON_CONF_TOPO_LOCALNVME
#define FN FALCON_CONF_TOPO_FALCONNVME
static const struct {
	const char *args;
	const char *adapter;
	unsigned gpu, storage;
} labels[] = {
	{ "paper %R", PAPER_ADAPTER, HG, FN },
	{ "paper %R --no-falcon-gpus", PAPER_ADAPTER, LG, FN },
	{ "paper %R --no-local-gpus", PAPER_ADAPTER, FG, FN },
	{ "paper %R --no-falcon-nvme", PAPER_ADAPTER, HG, LN },
	{ "paper %R --no-local-gpus --no-local-nvme", PAPER_ADAPTER, FG, FN },
	{ "paper %R --no-falcon-nvme --no-local-nvme", PAPER_ADAPTER, HG, 0 },
	{ "paper %R --no-local-gpus --no-falcon-gpus", PAPER_ADAPTER, 0, FN },
	/* no adapter configured: everything is local */
	{ "paper %R", NULL, LG, LN },
};
#undef LG
#undef HG
#undef FG
#undef LN
#undef FN

START_TEST(test_labels)
{
	struct falcon_topo *t = scan(gen("topo", labels[_i].args), labels[_i].adapter);
	json_object *j = NULL, *v;

	ck_assert_uint_eq(t->gpu_label, labels[_i].gpu);
	ck_assert_uint_eq(t->storage_label, labels[_i].storage);
	ck_assert_int_eq(falcon_topo_to_json(t, &j), FALCON_OK);
	ck_assert(json_object_object_get_ex(j, "topology", &v));
	if (labels[_i].gpu == 0)
		ck_assert_ptr_null(v);
	else
		ck_assert_str_eq(json_object_get_string(v),
				 falcon_conf_topo_label_str(labels[_i].gpu));
	ck_assert(json_object_object_get_ex(j, "storage", &v));
	if (labels[_i].storage == 0)
		ck_assert_ptr_null(v);
	else
		ck_assert_str_eq(json_object_get_string(v),
				 falcon_conf_topo_label_str(labels[_i].storage));
	json_object_put(j);
	falcon_topo_free(t);
}
END_TEST

/* ---- the link rule ---- */

static const struct {
	uint8_t cap_s, cap_w, sta_s, sta_w, port_s, port_w, power;
	falcon_dev_kind_t kind;
	bool degraded, idle;
	double max_gts;
	int max_w;
} links[] = {
	{ 3, 16, 3, 16, 4, 16, 0, FALCON_PCI_GPU, false, false, 8.0, 16 },  /* V100 in Gen4 slot */
	{ 4, 16, 3, 16, 4, 16, 0, FALCON_PCI_GPU, true, false, 16.0, 16 },  /* Gen3 in Gen4 */
	{ 4, 16, 3, 8, 4, 16, 0, FALCON_PCI_GPU, true, false, 16.0, 16 },   /* Gen3 x8 */
	{ 4, 16, 1, 16, 4, 16, 0, FALCON_PCI_GPU, false, true, 16.0, 16 },  /* idle GPU */
	{ 4, 16, 1, 8, 4, 16, 0, FALCON_PCI_GPU, true, false, 16.0, 16 },   /* idle speed, lost lanes */
	{ 4, 4, 1, 4, 4, 4, 0, FALCON_PCI_NVME, true, false, 16.0, 4 },     /* NVMe at Gen1: fault */
	{ 4, 4, 1, 4, 4, 4, 3, FALCON_PCI_NVME, false, true, 16.0, 4 },     /* ... but in D3hot */
	{ 4, 16, 4, 8, 4, 8, 0, FALCON_PCI_GPU, false, false, 16.0, 8 },    /* x16 card, x8 slot */
	{ 4, 16, 3, 16, 3, 16, 0, FALCON_PCI_GPU, false, false, 8.0, 16 },  /* Gen3 port */
	{ 4, 16, 0, 0, 4, 16, 0, FALCON_PCI_GPU, true, false, 16.0, 16 },   /* link down */
	{ 4, 16, 2, 16, 0, 0, 0, FALCON_PCI_GPU, true, false, 16.0, 16 },   /* no port known */
	{ 4, 2, 4, 1, 4, 2, 0, FALCON_PCI_NVME, true, false, 16.0, 2 },     /* x2 NVMe at x1 */
};

START_TEST(test_link_judge)
{
	struct falcon_pcicfg_info dev, port;
	struct falcon_link l;

	memset(&dev, 0, sizeof(dev));
	memset(&port, 0, sizeof(port));
	dev.pcie_offset = 0x78;
	dev.max_speed = links[_i].cap_s;
	dev.max_width = links[_i].cap_w;
	dev.cur_speed = links[_i].sta_s;
	dev.cur_width = links[_i].sta_w;
	dev.pm_offset = 0x60;
	dev.power_state = links[_i].power;
	port.pcie_offset = 0x68;
	port.max_speed = links[_i].port_s;
	port.max_width = links[_i].port_w;
	falcon_link_judge(&dev, links[_i].port_s ? &port : NULL, links[_i].kind, &l);
	ck_assert(l.known);
	ck_assert_int_eq(l.degraded, links[_i].degraded);
	ck_assert_int_eq(l.idle, links[_i].idle);
	ck_assert_double_eq(l.max_speed_gts, links[_i].max_gts);
	ck_assert_int_eq(l.max_width, links[_i].max_w);
	dev.pcie_offset = 0;
	falcon_link_judge(&dev, NULL, FALCON_PCI_GPU, &l);
	ck_assert(!l.known && !l.degraded);
}
END_TEST

/* ---- trees from the real dumps ---- */

/* Supermicro SYS-4028GR-TR: 4 GTX 1080 Ti behind 2 PLX PEX 8747 switches,
 * from the hex dumps; the root ports (not dumped) as `lspci -t` shows them:
 * 00:02.0-[02-05] and 00:03.0-[06-09]. */
START_TEST(test_fixture_sys4028grtr)
{
	const char *f = fixture_path("pci/sys4028grtr_1080ti_pex8747_hexonly_lspci_xxx.txt");
	char args[4096];
	struct falcon_topo *t;
	falcon_smi_class_t smi;
	size_t i;

	if (f == NULL)
		return;
	FMT(args, "hex %%R '%s' --rp 0000:00:02.0=02-05 "
		 "--rp 0000:00:03.0=06-09 --numa 0", f);
	t = scan(gen("topo", args), NULL);
	ck_assert_uint_eq(t->ngpus, 4);      /* the .1 audio functions are no GPUs */
	ck_assert_uint_eq(t->nnvme, 0);
	ck_assert_uint_eq(t->gpu_label, FALCON_CONF_TOPO_LOCALGPUS);
	for (i = 0; i < t->ngpus; i++) {
		ck_assert_uint_eq(t->devs[t->gpus[i]].vendor_id, 0x10de);
		ck_assert_uint_eq(t->devs[t->gpus[i]].device_id, 0x1b06);
		ck_assert_int_eq(t->devs[t->gpus[i]].location, FALCON_LOC_LOCAL);
	}
	ck_assert_str_eq(t->devs[t->gpus[0]].bdf, "0000:04:00.0");
	falcon_topo_pair(t, idx(t, "04:00.0"), idx(t, "05:00.0"), &smi, NULL);
	ck_assert_int_eq(smi, FALCON_SMI_PIX);
	falcon_topo_pair(t, idx(t, "04:00.0"), idx(t, "09:00.0"), &smi, NULL);
	ck_assert_int_eq(smi, FALCON_SMI_PHB);
	/* the switch ports as the dumps say */
	ck_assert_int_eq(falcon_topo_find(t, "02:00.0")->cfg.port_type, FALCON_PCIE_UPSTREAM);
	ck_assert_int_eq(falcon_topo_find(t, "03:08.0")->cfg.port_type, FALCON_PCIE_DOWNSTREAM);
	/* links in the dumps: 04 at 8 GT/s x16; 05 at 5 GT/s (speed only, not
	 * 2.5: counted degraded); 08 and 09 at 2.5 GT/s (idle) */
	ck_assert(!falcon_topo_find(t, "04:00.0")->link.degraded);
	ck_assert(falcon_topo_find(t, "05:00.0")->link.degraded);
	ck_assert(falcon_topo_find(t, "08:00.0")->link.idle);
	ck_assert(!falcon_topo_find(t, "09:00.0")->link.degraded);
	falcon_topo_free(t);
}
END_TEST

/* Lenovo SD665-N V3: 4 H100 each behind the switch inside a ConnectX-7:
 * a switch is not a Falcon chassis, everything is local. */
START_TEST(test_fixture_lenovo_cx7)
{
	const char *f = fixture_path("pci/lenovo_sd665nv3_4xh100_behind_cx7_switch_lspci_tree_lnkcap.txt");
	char args[4096];
	struct falcon_topo *t;
	const struct falcon_pci_dev *g;
	falcon_smi_class_t smi;
	size_t i;

	if (f == NULL)
		return;
	/* sockets: root buses 00-60 NUMA 0, 80-e0 NUMA 1 (2x EPYC Genoa) */
	FMT(args, "text %%R '%s' --numa 00-7f=0 --numa 80-ff=1", f);
	t = scan(gen("topo", args), "0000:d0:00.0");
	ck_assert_uint_eq(t->nmissing, 1);
	ck_assert_str_eq(t->missing[0], "0000:d0:00.0");
	ck_assert_uint_eq(t->ngpus, 4);
	ck_assert_uint_eq(t->nnvme, 2);
	ck_assert_uint_eq(t->gpu_label, FALCON_CONF_TOPO_LOCALGPUS);
	ck_assert_uint_eq(t->storage_label, FALCON_CONF_TOPO_LOCALNVME);
	for (i = 0; i < t->ngpus; i++) {
		g = &t->devs[t->gpus[i]];
		ck_assert_int_eq(g->location, FALCON_LOC_LOCAL);
		/* behind the CX7's downstream port, below its upstream port */
		ck_assert_int_ge(g->parent, 0);
		ck_assert_int_eq(t->devs[g->parent].cfg.port_type, FALCON_PCIE_DOWNSTREAM);
		ck_assert_double_eq(g->link.max_speed_gts, 32.0);
		ck_assert(!g->link.degraded);
	}
	falcon_topo_pair(t, idx(t, "06:00.0"), idx(t, "26:00.0"), &smi, NULL);
	ck_assert_int_eq(smi, FALCON_SMI_NODE);
	falcon_topo_pair(t, idx(t, "06:00.0"), idx(t, "a6:00.0"), &smi, NULL);
	ck_assert_int_eq(smi, FALCON_SMI_SYS);
	/* the same tree with the CX7 switch's upstream port named as a Falcon
	 * adapter would make its GPU Falcon: the rule is the configuration */
	falcon_topo_free(t);
	t = scan(gen("topo", args), "0000:04:00.0");
	ck_assert_int_eq(falcon_topo_find(t, "06:00.0")->location, FALCON_LOC_FALCON);
	ck_assert_uint_eq(t->gpu_label, FALCON_CONF_TOPO_HYBRIDGPUS);
	falcon_topo_free(t);
}
END_TEST

/* The nvidia-smi classes of the GPU block of an `nvidia-smi topo -m` in f:
 * rows "GPUn  X  NODE  SYS ..." (cells split on blanks/tabs). */
static int smi_table(const char *f, char cells[8][8][8])
{
	FILE *fp = fopen(f, "r");
	char line[1024];
	int rows = 0;

	ck_assert_ptr_nonnull(fp);
	while (fgets(line, sizeof(line), fp) != NULL && rows < 8) {
		char *tok, *save = NULL;
		int n = 0;

		if (strncmp(line, "GPU", 3) != 0 || line[3] != '0' + rows)
			continue;
		strtok_r(line, " \t\n", &save);
		while (n < 8 && (tok = strtok_r(NULL, " \t\n", &save)) != NULL &&
		       strncmp(tok, "NIC", 3) != 0)
			snprintf(cells[rows][n++], 8, "%s", tok);
		rows++;
	}
	fclose(fp);
	return rows;
}

/* ASUS ESC8000A-E12: 4 RTX 6000 Ada on CPU root ports, idle at 2.5 GT/s
 * in D0 ("downgraded" in lspci); the matrix equals the machine's own
 * nvidia-smi topo -m. */
START_TEST(test_fixture_asus_idle)
{
	const char *f = fixture_path("pci/asus_esc8000a_e12_4xrtx6000ada_tree_vvv_topo.txt");
	char args[4096], cells[8][8][8];
	struct falcon_topo *t;
	size_t i, j;
	int rows;

	if (f == NULL)
		return;
	FMT(args, "text %%R '%s'", f);
	t = scan(gen("topo", args), NULL);
	ck_assert_uint_eq(t->ngpus, 4);
	ck_assert_uint_eq(t->gpu_label, FALCON_CONF_TOPO_LOCALGPUS);
	ck_assert_uint_eq(t->storage_label, FALCON_CONF_TOPO_LOCALNVME);
	for (i = 0; i < t->ngpus; i++) {
		const struct falcon_pci_dev *g = &t->devs[t->gpus[i]];

		ck_assert_double_eq(g->link.speed_gts, 2.5);
		ck_assert_double_eq(g->link.max_speed_gts, 16.0);
		ck_assert_int_eq(g->cfg.power_state, 0);
		ck_assert(g->link.idle);
		ck_assert(!g->link.degraded);
	}
	rows = smi_table(f, cells);
	ck_assert_int_eq(rows, 4);
	for (i = 0; i < t->ngpus; i++)
		for (j = 0; j < t->ngpus; j++) {
			falcon_smi_class_t smi;

			falcon_topo_pair(t, (size_t)t->gpus[i], (size_t)t->gpus[j], &smi, NULL);
			ck_assert_str_eq(falcon_smi_class_str(smi), cells[i][j]);
		}
	falcon_topo_free(t);
}
END_TEST

/* ---- bad input ---- */

static char *cfgpath(const char *root, const char *bdf)
{
	static char buf[4096];

	FMT(buf, "%s/bus/pci/devices/%s/config", root, bdf);
	return buf;
}

static void truncate_file(const char *path, off_t len)
{
	ck_assert_int_eq(truncate(path, len), 0);
}

static void poke(const char *path, long off, uint8_t v)
{
	FILE *f = fopen(path, "r+");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, off, SEEK_SET), 0);
	ck_assert_int_eq(fputc(v, f), v);
	fclose(f);
}

static void put(const char *root, const char *rel, const char *text)
{
	char path[4096];
	FILE *f;

	FMT(path, "%s/bus/pci/devices/%s", root, rel);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void expect_error(const char *root, falcon_err_t want, const char *needle)
{
	struct falcon_topo *t = (struct falcon_topo *)1;
	falcon_err_t rv = falcon_topo_scan(root, NULL, 0, &t);

	ck_assert_msg(rv == want, "%s: got %s (%s), want %s", root, falcon_err_name(rv),
		      falcon_errmsg(), falcon_err_name(want));
	ck_assert_ptr_null(t);
	ck_assert_msg(strstr(falcon_errmsg(), needle) != NULL, "'%s' lacks '%s'",
		      falcon_errmsg(), needle);
}

START_TEST(test_err_root_missing)
{
	const char *tmp = tmpdir("topo");
	char path[4096];

	FMT(path, "%s/nonexistent", tmp);
	expect_error(path, FALCON_ERR_NOTFOUND, "nonexistent");
	/* a directory without bus/pci */
	expect_error(tmp, FALCON_ERR_NOTFOUND, "bus/pci");
	/* a file */
	FMT(path, "%s/file", tmp);
	fclose(fopen(path, "w"));
	expect_error(path, FALCON_ERR_NOTFOUND, "not a directory");
}
END_TEST

START_TEST(test_err_config_missing)
{
	const char *root = gen("topo", "paper %R --no-local-gpus");

	ck_assert_int_eq(unlink(cfgpath(root, "0000:62:00.0")), 0);
	expect_error(root, FALCON_ERR_PCI, "0000:62:00.0/config");
}
END_TEST

START_TEST(test_err_config_short)
{
	const char *root = gen("topo", "paper %R --no-local-gpus");

	/* 64 bytes: the header's capability pointer 0x60 lies beyond */
	truncate_file(cfgpath(root, "0000:62:00.0"), 64);
	expect_error(root, FALCON_ERR_PARSE, "shorter than its header says");
	/* not even the header */
	truncate_file(cfgpath(root, "0000:62:00.0"), 20);
	expect_error(root, FALCON_ERR_PARSE, "0000:62:00.0/config");
	/* the PCIe capability at 0x78 cut short */
	root = gen("topo", "paper %R --no-local-gpus");
	truncate_file(cfgpath(root, "0000:63:00.0"), 0x80);
	expect_error(root, FALCON_ERR_PARSE, "PCI Express capability");
}
END_TEST

START_TEST(test_err_cap_loop)
{
	const char *root = gen("topo", "paper %R --no-local-gpus");

	/* GPU: PM 0x60 -> MSI 0x68 -> PCIe 0x78; MSI's next back to PM */
	poke(cfgpath(root, "0000:64:00.0"), 0x69, 0x60);
	expect_error(root, FALCON_ERR_PARSE, "loops");
	/* extended list: AER at 0x100 pointing at itself */
	root = gen("topo", "paper %R --no-local-gpus");
	poke(cfgpath(root, "0000:64:00.0"), 0x103, 0x10);
	expect_error(root, FALCON_ERR_PARSE, "extended capability list loops");
}
END_TEST

START_TEST(test_err_overlap)
{
	char cmd[8192];
	const char *root = gen("topo", "device %R 0000:00:01.0 8086:2030 060400 rp bus=00,10,20");

	FMT(cmd, "'%s/tests/pcigen' device '%s' 0000:00:02.0 8086:2030 "
		 "060400 rp bus=00,18,28", FALCON_TEST_BUILDDIR, root);
	ck_assert_int_eq(system(cmd), 0);
	expect_error(root, FALCON_ERR_PARSE, "overlapping bus ranges");
}
END_TEST

START_TEST(test_err_same_secondary)
{
	char cmd[8192];
	const char *root = gen("topo", "device %R 0000:00:01.0 8086:2030 060400 rp bus=00,10,10");

	FMT(cmd, "'%s/tests/pcigen' device '%s' 0000:00:02.0 8086:2030 "
		 "060400 rp bus=00,10,10", FALCON_TEST_BUILDDIR, root);
	ck_assert_int_eq(system(cmd), 0);
	expect_error(root, FALCON_ERR_PARSE, "overlapping bus ranges");
}
END_TEST

START_TEST(test_err_bridge_below_itself)
{
	const char *root = gen("topo", "device %R 0000:20:01.0 8086:2030 060400 rp bus=20,21,22");

	/* secondary bus 0x10 below the bridge's own bus 0x20 */
	poke(cfgpath(root, "0000:20:01.0"), 0x19, 0x10);
	expect_error(root, FALCON_ERR_PARSE, "not above its own bus");
}
END_TEST

START_TEST(test_err_bad_sysfs_files)
{
	const char *root = gen("topo", "paper %R --no-local-gpus");
	char path[4096];

	put(root, "0000:62:00.0/vendor", "nvidia\n");
	expect_error(root, FALCON_ERR_PARSE, "0000:62:00.0/vendor");
	put(root, "0000:62:00.0/vendor", "0x10de\n");
	FMT(path, "%s/bus/pci/devices/0000:62:00.0/class", root);
	ck_assert_int_eq(unlink(path), 0);
	expect_error(root, FALCON_ERR_PARSE, "0000:62:00.0/class");
	root = gen("topo", "paper %R --no-local-gpus");
	FMT(path, "%s/bus/pci/devices/not-a-bdf", root);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	expect_error(root, FALCON_ERR_PARSE, "not-a-bdf");
}
END_TEST

START_TEST(test_err_adapters)
{
	const char *root = gen("topo", "paper %R");
	const char *bad[] = { "5e:00" };
	const char *many[] = { "5e:00.0", "5e:00.0", "5e:00.0", "5e:00.0", "5e:00.0" };
	struct falcon_topo *t = NULL;
	char bus_pci[4096];

	ck_assert_int_eq(falcon_topo_scan(root, bad, 1, &t), FALCON_ERR_INVAL);
	ck_assert_ptr_nonnull(strstr(falcon_errmsg(), "5e:00"));
	ck_assert_int_eq(falcon_topo_scan(root, many, 5, &t), FALCON_ERR_INVAL);
	ck_assert_ptr_null(t);
	/* a bus/pci directory given directly is accepted */
	FMT(bus_pci, "%s/bus/pci", root);
	ck_assert_int_eq(falcon_topo_scan(bus_pci, many, 1, &t), FALCON_OK);
	ck_assert_uint_eq(t->gpu_label, FALCON_CONF_TOPO_HYBRIDGPUS);
	ck_assert_int_eq(falcon_topo_pair(t, 0, t->ndevs, NULL, NULL), FALCON_ERR_INVAL);
	falcon_topo_free(t);
	t = NULL;
	/* a real /sys has devices/ too (system, virtual, pci0000:00...) next
	 * to bus/: it is still a /sys, not a bus/pci (once "/sys/devices/
	 * software: expected a device named DDDD:BB:DD.F" on every real host) */
	FMT(bus_pci, "%s/devices", root);
	ck_assert_int_eq(mkdir(bus_pci, 0755), 0);
	FMT(bus_pci, "%s/devices/system", root);
	ck_assert_int_eq(mkdir(bus_pci, 0755), 0);
	ck_assert_int_eq(falcon_topo_scan(root, many, 1, &t), FALCON_OK);
	ck_assert_uint_eq(t->gpu_label, FALCON_CONF_TOPO_HYBRIDGPUS);
	falcon_topo_free(t);
	falcon_topo_free(NULL);
}
END_TEST

/* Regression: a host with Intel VMD has devices in domain 10000 and up,
 * whose sysfs names have 5 domain digits; the scan refused the whole host. */
START_TEST(test_vmd_domain)
{
	const char *root = gen("topo", "paper %R");
	char cmd[8192];
	struct falcon_topo *t;
	const struct falcon_pci_dev *d;

	FMT(cmd, "'%s/tests/pcigen' device '%s' 10000:00:02.0 8086:2030 060400 rp "
		 "bus=00,01,01 && '%s/tests/pcigen' device '%s' 10000:01:00.0 144d:a80a "
		 "010802 ep", FALCON_TEST_BUILDDIR, root, FALCON_TEST_BUILDDIR, root);
	ck_assert_int_eq(system(cmd), 0);
	t = scan(root, PAPER_ADAPTER);
	ck_assert_uint_eq(t->ngpus, 16);
	ck_assert_uint_eq(t->nnvme, 3);
	d = falcon_topo_find(t, "10000:01:00.0");
	ck_assert_ptr_nonnull(d);
	ck_assert_str_eq(d->bdf, "10000:01:00.0");
	ck_assert_int_eq(d->kind, FALCON_PCI_NVME);
	ck_assert_int_eq(d->location, FALCON_LOC_LOCAL);
	/* domain 0's 01:00.0 (the paper host's local NVMe) is another device */
	ck_assert_ptr_ne(falcon_topo_find(t, "0000:01:00.0"), d);
	ck_assert_str_eq(falcon_topo_find(t, "0000:01:00.0")->bdf, "0000:01:00.0");
	falcon_topo_free(t);
}
END_TEST

/*
 * Identity by location (issue #11): a Falcon drawer behind adapter
 * 3b:00.0, slots 1-3 on downstream ports 3c:00.0-3c:02.0 (Physical Slot
 * Numbers 1-3, as falcon-sim numbers drawer 1); an orphan V100 in slot 1,
 * the leased V100 (same 10de:1db4) in slot 2, slot 3 empty; a local V100
 * in the host's own slot 2 (root port 00:03.0).  The slot's own function
 * is found; an empty slot or one holding something else is refused, never
 * answered with the orphan or the local GPU of the same IDs.
 */
static const char *slot_tree(void)
{
	const char *root = tmpdir("slot");
	static const char *const devs[] = {
		"0000:00:03.0 8086:2030 060400 rp bus=00,01,01 slot=2",
		"0000:01:00.0 10de:1db4 030200 ep",
		"0000:3a:00.0 8086:2030 060400 rp bus=3a,3b,44",
		"0000:3b:00.0 1000:c010 060400 usp bus=3b,3c,44",
		"0000:3c:00.0 1000:c010 060400 dsp bus=3c,3d,3d slot=1",
		"0000:3c:01.0 1000:c010 060400 dsp bus=3c,3e,3e slot=2",
		"0000:3c:02.0 1000:c010 060400 dsp bus=3c,3f,3f slot=3 down=1",
		"0000:3d:00.0 10de:1db4 030200 ep",
		"0000:3e:00.0 10de:1db4 030200 ep",
	};
	char cmd[8192];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(devs); i++) {
		FMT(cmd, "'%s/tests/pcigen' device '%s' %s", FALCON_TEST_BUILDDIR, root, devs[i]);
		ck_assert_int_eq(system(cmd), 0);
	}
	return root;
}

START_TEST(test_identify_by_slot)
{
	const char *root = slot_tree();
	struct falcon_topo *t = scan(root, "0000:3b:00.0");
	char why[256];
	int x;

	/* the slot numbers come from the ports' SltCap (no slots/ here) */
	ck_assert_int_eq(falcon_topo_find(t, "3d:00.0")->slot, 1);
	ck_assert_int_eq(falcon_topo_find(t, "3e:00.0")->slot, 2);
	ck_assert_int_eq(falcon_topo_find(t, "01:00.0")->slot, 2);
	ck_assert_int_eq(falcon_topo_find(t, "3c:00.0")->slot, -1);
	ck_assert_str_eq(falcon_topo_find(t, "3e:00.0")->slot_name, "");
	/* the leased slot 2 gets its own BDF, not the orphan's in slot 1
	 * (3d:00.0, first by BDF) nor the host's own slot 2 (01:00.0) */
	x = falcon_topo_identify(t, 0, "0000:3b:00.0", 2, FALCON_PCI_GPU, 0x10de, 0x1db4, why,
				 sizeof(why));
	ck_assert_int_ge(x, 0);
	ck_assert_str_eq(t->devs[x].bdf, "0000:3e:00.0");
	x = falcon_topo_identify(t, 0, NULL, 1, FALCON_PCI_GPU, 0, 0, why, sizeof(why));
	ck_assert_int_ge(x, 0);
	ck_assert_str_eq(t->devs[x].bdf, "0000:3d:00.0");
	/* an empty slot is refused, not guessed (two unclaimed V100s are there) */
	x = falcon_topo_identify(t, 0, "0000:3b:00.0", 3, FALCON_PCI_GPU, 0x10de, 0x1db4, why,
				 sizeof(why));
	ck_assert_int_eq(x, FALCON_TOPO_SLOT_EMPTY);
	ck_assert_str_eq(why, "slot 3 below 0000:3b:00.0: empty");
	/* a slot holding another kind or other IDs is refused and says what is there */
	x = falcon_topo_identify(t, 0, "0000:3b:00.0", 2, FALCON_PCI_NVME, 0, 0, why, sizeof(why));
	ck_assert_int_eq(x, FALCON_TOPO_SLOT_MISMATCH);
	ck_assert_msg(strstr(why, "slot 2 below 0000:3b:00.0 holds 0000:3e:00.0 10de:1db4, "
				  "expected NVMe") != NULL, "%s", why);
	x = falcon_topo_identify(t, 0, NULL, 2, FALCON_PCI_GPU, 0x10de, 0x1eb8, why, sizeof(why));
	ck_assert_int_eq(x, FALCON_TOPO_SLOT_MISMATCH);
	ck_assert_msg(strstr(why, "slot 2 below adapter 0 holds 0000:3e:00.0 10de:1db4, "
				  "expected GPU 10de:1eb8") != NULL, "%s", why);
	/* no adapter (a local slot number means nothing): refused */
	ck_assert_int_eq(falcon_topo_identify(t, -1, NULL, 2, FALCON_PCI_GPU, 0, 0, why,
					      sizeof(why)), FALCON_TOPO_SLOT_EMPTY);
	falcon_topo_free(t);
}
END_TEST

/* /sys/bus/pci/slots (libpci PCI_FILL_PHYS_SLOT) names the slot when there;
 * Linux's "N-M" duplicate names keep their number. */
START_TEST(test_identify_sysfs_slots)
{
	const char *root = slot_tree();
	struct falcon_topo *t;
	char why[256];
	int x;

	ck_assert_int_eq(falcon_pcicfg_write_slot(root, "9", 0, 0x3e), FALCON_OK);
	ck_assert_int_eq(falcon_pcicfg_write_slot(root, "1-1", 0, 0x3d), FALCON_OK);
	ck_assert_int_eq(falcon_pcicfg_write_slot(root, "a/b", 0, 0x3d), FALCON_ERR_INVAL);
	ck_assert_int_eq(falcon_pcicfg_write_slot(root, "1", 0, 0x100), FALCON_ERR_INVAL);
	t = scan(root, "0000:3b:00.0");
	ck_assert_str_eq(falcon_topo_find(t, "3e:00.0")->slot_name, "9");
	ck_assert_int_eq(falcon_topo_find(t, "3e:00.0")->slot, 9);
	ck_assert_str_eq(falcon_topo_find(t, "3d:00.0")->slot_name, "1-1");
	ck_assert_int_eq(falcon_topo_find(t, "3d:00.0")->slot, 1);
	x = falcon_topo_identify(t, 0, NULL, 9, FALCON_PCI_GPU, 0x10de, 0x1db4, why, sizeof(why));
	ck_assert_int_ge(x, 0);
	ck_assert_str_eq(t->devs[x].bdf, "0000:3e:00.0");
	ck_assert_int_eq(falcon_topo_identify(t, 0, NULL, 2, FALCON_PCI_GPU, 0, 0, why,
					      sizeof(why)), FALCON_TOPO_SLOT_EMPTY);
	falcon_topo_free(t);
	falcon_pcicfg_remove_slot(root, "9");
	t = scan(root, "0000:3b:00.0");
	ck_assert_int_eq(falcon_topo_find(t, "3e:00.0")->slot, 2);
	falcon_topo_free(t);
	ck_assert_int_eq(falcon_pcicfg_phys_slot(1, 1), 1);
	ck_assert_int_eq(falcon_pcicfg_phys_slot(2, 8), 16);
	ck_assert_int_eq(falcon_pcicfg_phys_slot(3, 1), -1);
	ck_assert_int_eq(falcon_pcicfg_phys_slot(1, 0), -1);
}
END_TEST

START_TEST(test_bdf_normalise)
{
	char out[FALCON_BDF_LEN];

	ck_assert_int_eq(falcon_bdf_normalise("3B:00.0", out), FALCON_OK);
	ck_assert_str_eq(out, "0000:3b:00.0");
	ck_assert_int_eq(falcon_bdf_normalise("0001:c3:1f.7", out), FALCON_OK);
	ck_assert_str_eq(out, "0001:c3:1f.7");
	ck_assert_int_eq(falcon_bdf_normalise("0000:3b:20.0", out), FALCON_ERR_INVAL);
	ck_assert_int_eq(falcon_bdf_normalise("0000:3b:00.8", out), FALCON_ERR_INVAL);
	ck_assert_int_eq(falcon_bdf_normalise(" 3b:00.0", out), FALCON_ERR_INVAL);
	ck_assert_int_eq(falcon_bdf_normalise("3b:00.0 ", out), FALCON_ERR_INVAL);
	ck_assert_int_eq(falcon_bdf_normalise("0000-3b:00.0", out), FALCON_ERR_INVAL);
	ck_assert_int_eq(falcon_bdf_normalise(NULL, out), FALCON_ERR_INVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("topo");
	TCase *tc = tcase_create("paper");
	TCase *tf = tcase_create("fixtures");
	TCase *te = tcase_create("errors");

	tcase_add_checked_fixture(tc, NULL, remove_trees);
	tcase_add_checked_fixture(tf, NULL, remove_trees);
	tcase_add_checked_fixture(te, NULL, remove_trees);
	tcase_add_loop_test(tc, test_paper_pairs, 0, (int)ARRAY_SIZE(pairs));
	tcase_add_test(tc, test_paper_classification);
	tcase_add_test(tc, test_paper_degraded_link);
	tcase_add_test(tc, test_paper_json);
	tcase_add_loop_test(tc, test_labels, 0, (int)ARRAY_SIZE(labels));
	tcase_add_loop_test(tc, test_link_judge, 0, (int)ARRAY_SIZE(links));
	tcase_add_test(tc, test_bdf_normalise);
	tcase_add_test(tc, test_vmd_domain);
	tcase_add_test(tc, test_identify_by_slot);
	tcase_add_test(tc, test_identify_sysfs_slots);
	suite_add_tcase(s, tc);
	tcase_add_test(tf, test_fixture_sys4028grtr);
	tcase_add_test(tf, test_fixture_lenovo_cx7);
	tcase_add_test(tf, test_fixture_asus_idle);
	suite_add_tcase(s, tf);
	tcase_add_test(te, test_err_root_missing);
	tcase_add_test(te, test_err_config_missing);
	tcase_add_test(te, test_err_config_short);
	tcase_add_test(te, test_err_cap_loop);
	tcase_add_test(te, test_err_overlap);
	tcase_add_test(te, test_err_same_secondary);
	tcase_add_test(te, test_err_bridge_below_itself);
	tcase_add_test(te, test_err_bad_sysfs_files);
	tcase_add_test(te, test_err_adapters);
	suite_add_tcase(s, te);
	return run_suite(s);
}
