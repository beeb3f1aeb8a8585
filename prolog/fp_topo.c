/*
 * fp_topo.c - the prolog's view of the bus through lib/pci/topo: which
 * function is which lease device, and the job's topology (see fp_topo.h).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp_common.h"
#include "fp_topo.h"
#include "core/log.h"
#include "pci/hotplug.h"
#include "pci/topo.h"
#include "core/util.h"


falcon_err_t fp_scan(const char *root, const struct falcon_host_conf *host,
		     struct falcon_topo **t)
{
	long long t0 = fp_now_us();
	falcon_err_t rv = falcon_topo_scan_host(root, host, t);

	fp_time_add(FP_TIME_SCAN, t0);
	return rv;
}

/* adapter_of - index of the adapter serving port (Port=/Adapter= by position). */
static int adapter_of(const struct falcon_host_conf *host, const char *port)
{
	int i;

	if (host == NULL || host->nadapters == 0)
		return -1;
	for (i = 0; i < host->nports; i++)
		if (strcmp(host->ports[i], port) == 0)
			return i < host->nadapters ? i : 0;
	return 0;
}

static bool in_list(char (*l)[FALCON_BDF_LEN], size_t n, const char *bdf)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(l[i], bdf) == 0)
			return true;
	return false;
}

static falcon_dev_kind_t pci_kind(falcon_dev_type_t t)
{
	return t == FALCON_DEV_GPU ? FALCON_PCI_GPU
	     : t == FALCON_DEV_NVME ? FALCON_PCI_NVME : FALCON_PCI_OTHER;
}

/* hex16 - a PCI ID of falcond's lease ("10de") as a number; 0 (not
 * compared) when not given or not 4 hex digits' worth. */
static uint16_t hex16(const char *s)
{
	long v = 0;

	if (s[0] != '\0' && falcon_strtol(s, 16, 0, 0xffff, &v) != FALCON_OK) {
		falcon_err_clear();
		v = 0;
	}
	return (uint16_t)v;
}

/* identify - d's BDF by location into d->bdf; false with what was found in
 * why (whylen bytes) when it cannot be positively identified. */
static bool identify(const struct falcon_topo *t, const struct falcon_host_conf *host,
		     struct falcon_lease_dev *d, char *why, size_t whylen)
{
	int ad = adapter_of(host, d->port), x;

	d->bdf[0] = '\0';
	if (ad < 0 || ad >= host->nadapters) {
		snprintf(why, whylen, "no Adapter= for port %s in falcon.conf: the chassis' slots "
			 "cannot be told from the host's", d->port);
		return false;
	}
	if (d->phys_slot <= 0) {
		snprintf(why, whylen, "no physical slot number (expected an id drawer<D>_slot<S>)");
		return false;
	}
	x = falcon_topo_identify(t, ad, host->adapters[ad], d->phys_slot, pci_kind(d->type),
				 hex16(d->vendor_id), hex16(d->device_id), why, whylen);
	if (x < 0)
		return false;
	falcon_strlcpy(d->bdf, t->devs[x].bdf, sizeof(d->bdf));
	return true;
}

int fp_match_in(const struct falcon_topo *t, const struct falcon_host_conf *host,
		struct falcon_lease *lease, char *why, size_t whylen)
{
	size_t i, missing = 0;

	why[0] = '\0';
	for (i = 0; i < lease->ndevs; i++) {
		struct falcon_lease_dev *d = &lease->devs[i];
		char what[256];
		size_t l = strlen(why);

		if (identify(t, host, d, what, sizeof(what)))
			continue;
		if (missing++ == 0 || l + 64 < whylen)
			snprintf(why + l, whylen - l, "%s%s (%s %s:%s on %s): %s", l ? "; " : "",
				 d->id, falcon_dev_type_str(d->type),
				 d->vendor_id[0] ? d->vendor_id : "*",
				 d->device_id[0] ? d->device_id : "*", d->port, what);
	}
	if (host != NULL && t->nmissing > 0 && missing > 0) {
		size_t l = strlen(why);

		snprintf(why + l, whylen - l, "; adapter %s not on the bus", t->missing[0]);
	}
	return missing == 0 ? 1 : 0;
}

int fp_match(const char *root, const struct falcon_host_conf *host, struct falcon_lease *lease,
	     char *why, size_t whylen)
{
	struct falcon_topo *t = NULL;
	falcon_err_t rv;
	int r;

	if ((rv = fp_scan(root, host, &t)) != FALCON_OK) {
		snprintf(why, whylen, "%s", falcon_errmsg());
		return -(int)rv;
	}
	r = fp_match_in(t, host, lease, why, whylen);
	falcon_topo_free(t);
	return r;
}

static int find_bdf(const struct falcon_topo *t, const char *bdf)
{
	const struct falcon_pci_dev *x = falcon_topo_find(t, bdf);

	return x == NULL ? -1 : (int)(x - t->devs);
}

static int int_cmp(const void *a, const void *b)
{
	const int *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

/* acs_path - warn (into res->warning, FP_MAX_WARNINGS kept) of every port on
 * the path from device x up to its root port whose ACS Control has P2P
 * Request or Completion Redirect set (PCIe r4.0 sec 7.7.7.3). */
static void acs_path(const struct falcon_topo *t, int x, const struct falcon_lease_dev *d,
		     struct fp_topo_result *res)
{
	int p;

	for (p = t->devs[x].parent; p >= 0; p = t->devs[p].parent) {
		const struct falcon_pcicfg_info *c = &t->devs[p].cfg;
		char w[sizeof(res->warning[0])];

		if (c->acs_offset == 0 || !(c->acs_ctrl & (FALCON_ACS_RR | FALCON_ACS_CR)))
			continue;
		snprintf(w, sizeof(w), "ACS redirect on %s above %s (%s): ACSCtl%s%s, so "
			 "peer-to-peer traffic goes up through the root complex (slower, "
			 "or a hang); NCCL's troubleshooting guide asks for ACS off: "
			 "setpci -s %s ECAP_ACS+0x6.w=0000, or boot with "
			 "pci=disable_acs_redir=%s", t->devs[p].bdf, d->bdf, d->id,
			 (c->acs_ctrl & FALCON_ACS_RR) ? " ReqRedir+" : "",
			 (c->acs_ctrl & FALCON_ACS_CR) ? " CmpltRedir+" : "", t->devs[p].bdf,
			 t->devs[p].bdf);
		falcon_warn("%s", w);
		if (res->nwarnings < FP_MAX_WARNINGS)
			falcon_strlcpy(res->warning[res->nwarnings++], w, sizeof(w));
	}
}

/* hotplug_checks - what a hot-added lease device d (topo index x) must
 * pass before the job starts: it answers config reads (not all-ones),
 * every BAR its config space implements got an address; ACS redirect on
 * its path is only warned of.  FALCON_ERR_PCI with what to do. */
static falcon_err_t hotplug_checks(const char *root, const struct falcon_topo *t, int x,
				   const struct falcon_lease_dev *d, struct fp_topo_result *res)
{
	if (t->devs[x].all_ones)
		return falcon_err_set(FALCON_ERR_PCI, "%s (%s) at %s fell off the bus: its "
				      "config space reads all-ones (vendor ffff); the link "
				      "went down or the device hung (seen after remove and "
				      "rescan): check dmesg for pciehp/AER messages, power-cycle "
				      "the chassis slot or reboot the node, then resume it",
				      d->id, falcon_dev_type_str(d->type), d->bdf);
	if (falcon_hp_check_bars(root, d->bdf) != FALCON_OK) {
		char detail[400];

		falcon_strlcpy(detail, falcon_errmsg(), sizeof(detail));
		return falcon_err_set(FALCON_ERR_PCI, "%s (%s): %s", d->id,
				      falcon_dev_type_str(d->type), detail);
	}
	acs_path(t, x, d, res);
	return FALCON_OK;
}

/* add_identity - each "gpus" entry of o: "minor", "uuid" and "dev" from
 * the nvidia driver's information file (falcon_hp_gpu_ident(), null when
 * it has none); each "nvme" entry: "serial" (null when none).  The job's
 * NVIDIA GPUs' UUIDs, in the order of "gpus" (by BDF), into res->cuda_uuids;
 * the first without one into res->no_uuid. */
static void add_identity(const char *root, json_object *o, struct fp_topo_result *res)
{
	char dev[PATH_MAX + 16], ddir[PATH_MAX], serial[64];
	size_t i, off = 0;
	json_object *a, *e, *b, *v;

	if (falcon_hp_hostdir(root, "dev", ddir, sizeof(ddir)) == NULL)
		ddir[0] = '\0';
	if (json_object_object_get_ex(o, "gpus", &a) && json_object_is_type(a, json_type_array))
		for (i = 0; i < json_object_array_length(a); i++) {
			struct falcon_gpu_ident id;
			bool nv = false;

			e = json_object_array_get_idx(a, i);
			if (!json_object_object_get_ex(e, "bdf", &b))
				continue;
			if (json_object_object_get_ex(e, "vendor_id", &v) &&
			    json_object_get_string(v) != NULL)
				nv = strcmp(json_object_get_string(v), "10de") == 0;
			if (falcon_hp_gpu_ident(root, json_object_get_string(b), &id) != FALCON_OK) {
				if (nv)
					falcon_verbose("%s", falcon_errmsg());
				id.minor = -1;
				id.uuid[0] = '\0';
			}
			snprintf(dev, sizeof(dev), "%s/nvidia%d", ddir, id.minor);
			json_object_object_add(e, "minor", id.minor >= 0 ?
					       json_object_new_int(id.minor) : NULL);
			json_object_object_add(e, "uuid", id.uuid[0] ?
					       json_object_new_string(id.uuid) : NULL);
			json_object_object_add(e, "dev", id.minor >= 0 ?
					       json_object_new_string(dev) : NULL);
			if (!nv && id.minor < 0)
				continue;
			if (id.uuid[0] == '\0' && res->no_uuid[0] == '\0')
				falcon_strlcpy(res->no_uuid, json_object_get_string(b),
					       sizeof(res->no_uuid));
			if (id.uuid[0] != '\0' && off + strlen(id.uuid) + 2 < sizeof(res->cuda_uuids))
				off += (size_t)snprintf(res->cuda_uuids + off,
							sizeof(res->cuda_uuids) - off, "%s%s",
							off ? "," : "", id.uuid);
		}
	if (json_object_object_get_ex(o, "nvme", &a) && json_object_is_type(a, json_type_array))
		for (i = 0; i < json_object_array_length(a); i++) {
			e = json_object_array_get_idx(a, i);
			if (!json_object_object_get_ex(e, "bdf", &b))
				continue;
			json_object_object_add(e, "serial",
					       falcon_hp_nvme_serial(root, json_object_get_string(b),
								     serial, sizeof(serial)) == FALCON_OK
					       ? json_object_new_string(serial) : NULL);
		}
	falcon_err_clear();
}

const char *fp_cuda_visible(const struct fp_topo_result *res, const struct falcon_conf *conf)
{
	if (conf != NULL && conf->cuda_visible == FALCON_CVD_INDEX)
		return res->cuda_visible;
	if (res->no_uuid[0] != '\0') {
		if (res->cuda_visible[0] != '\0')
			falcon_warn("GPU %s has no UUID (nvidia driver's information file): "
				    "CUDA_VISIBLE_DEVICES in the index form %s for all the "
				    "job's GPUs (CUDA hides every entry after one it cannot "
				    "find)", res->no_uuid, res->cuda_visible);
		return res->cuda_visible;
	}
	return res->cuda_uuids[0] != '\0' ? res->cuda_uuids : res->cuda_visible;
}

falcon_err_t fp_build_topology(const char *root, const struct falcon_topo *bus,
			       const struct falcon_host_conf *host,
			       const struct falcon_lease *lease, int want_local,
			       const char *job_gpus, char (*claimed)[FALCON_BDF_LEN],
			       size_t nclaimed, struct fp_topo_result *res)
{
	struct falcon_topo *scanned = NULL, sub;
	const struct falcon_topo *t = bus;
	int gpus[FP_MAX_GPUS], nvme[FP_MAX_DEVS], locals[FP_MAX_GPUS];
	size_t ngpu = 0, nnvme = 0, nloc = 0, i, k;
	json_object *o = NULL, *a;
	falcon_err_t rv;
	size_t off = 0;

	memset(res, 0, sizeof(*res));
	if (t == NULL) {
		if ((rv = fp_scan(root, host, &scanned)) != FALCON_OK)
			goto fail;
		t = scanned;
	}
	/* local NVIDIA-or-other GPUs of the host, by BDF */
	for (i = 0; i < t->ngpus; i++)
		if (t->devs[t->gpus[i]].location == FALCON_LOC_LOCAL && nloc < FP_MAX_GPUS)
			locals[nloc++] = t->gpus[i];
	if (want_local > 0 && job_gpus != NULL && *job_gpus != '\0') {
		/* SLURM_JOB_GPUS: gres/gpu indices, taken as positions among the
		 * host's local GPUs by BDF (gres.conf File=/dev/nvidia[0-N] in PCI order) */
		char *dup = strdup(job_gpus), *save = NULL, *tok;

		for (tok = dup ? strtok_r(dup, ",", &save) : NULL; tok;
		     tok = strtok_r(NULL, ",", &save)) {
			long v;

			if (falcon_strtol(tok, 10, 0, (long)nloc - 1, &v) != FALCON_OK) {
				free(dup);
				rv = falcon_err_set(FALCON_ERR_NORESOURCE,
						    "SLURM_JOB_GPUS=%s: index %s: the node has %zu "
						    "local GPUs", job_gpus, tok, nloc);
				goto fail;
			}
			if (ngpu < FP_MAX_GPUS)
				gpus[ngpu++] = locals[v];
		}
		free(dup);
	} else if (want_local > 0) {
		for (i = 0; i < nloc && (int)ngpu < want_local; i++)
			if (!in_list(claimed, nclaimed, t->devs[locals[i]].bdf))
				gpus[ngpu++] = locals[i];
	}
	if ((int)ngpu < want_local) {
		rv = falcon_err_set(FALCON_ERR_NORESOURCE,
				    "the job asks for %d local GPUs, the node has %zu free of %zu",
				    want_local, ngpu, nloc);
		goto fail;
	}
	res->local_gpus = (int)ngpu;
	for (i = 0; i < ngpu && i < FP_MAX_GPUS; i++)
		falcon_strlcpy(res->local_bdfs[res->nlocal++], t->devs[gpus[i]].bdf, FALCON_BDF_LEN);
	for (i = 0; lease != NULL && i < lease->ndevs; i++) {
		const struct falcon_lease_dev *d = &lease->devs[i];
		int x = find_bdf(t, d->bdf);

		if (x < 0) {
			rv = falcon_err_set(FALCON_ERR_PCI, "%s (%s) at %s: gone from the bus", d->id,
					    falcon_dev_type_str(d->type), d->bdf[0] ? d->bdf : "?");
			goto fail;
		}
		if ((rv = hotplug_checks(root, t, x, d, res)) != FALCON_OK)
			goto fail;
		if (d->type == FALCON_DEV_GPU && ngpu < FP_MAX_GPUS) {
			gpus[ngpu++] = x;
			res->falcon_gpus++;
		} else if (d->type == FALCON_DEV_NVME) {
			nvme[nnvme++] = x;
		}
		if (t->devs[x].link.degraded && !res->degraded) {
			const struct falcon_link *l = &t->devs[x].link;

			res->degraded = true;
			snprintf(res->degraded_what, sizeof(res->degraded_what),
				 "%s (%s) link at %.1f GT/s x%d, expected %.1f GT/s x%d", d->bdf,
				 d->id, l->speed_gts, l->width, l->max_speed_gts, l->max_width);
		}
	}
	qsort(gpus, ngpu, sizeof(gpus[0]), int_cmp);
	qsort(nvme, nnvme, sizeof(nvme[0]), int_cmp);
	sub = *t;
	sub.gpus = gpus;
	sub.ngpus = ngpu;
	sub.nvme = nvme;
	sub.nnvme = nnvme;
	sub.gpu_label = ngpu == 0 ? 0
		: res->falcon_gpus == 0 ? FALCON_CONF_TOPO_LOCALGPUS
		: res->local_gpus == 0 ? FALCON_CONF_TOPO_FALCONGPUS : FALCON_CONF_TOPO_HYBRIDGPUS;
	sub.storage_label = nnvme > 0 ? FALCON_CONF_TOPO_FALCONNVME : 0;
	if ((rv = falcon_topo_to_json(&sub, &o)) != FALCON_OK)
		goto fail;
	falcon_strlcpy(res->label, falcon_conf_topo_label_str(sub.gpu_label), sizeof(res->label));
	falcon_strlcpy(res->storage, falcon_conf_topo_label_str(sub.storage_label),
		       sizeof(res->storage));
	/* CUDA_DEVICE_ORDER=PCI_BUS_ID numbers NVIDIA GPUs by BDF */
	for (i = 0; i < ngpu; i++) {
		int idx = -1, n = 0;

		for (k = 0; k < t->ngpus; k++) {
			if (t->devs[t->gpus[k]].vendor_id != 0x10de)
				continue;
			if (t->gpus[k] == gpus[i])
				idx = n;
			n++;
		}
		if (idx >= 0 && off + 8 < sizeof(res->cuda_visible))
			off += (size_t)snprintf(res->cuda_visible + off, sizeof(res->cuda_visible) - off,
						"%s%d", off ? "," : "", idx);
	}
	a = json_object_new_array();
	for (i = 0; i < res->nlocal; i++)
		json_object_array_add(a, json_object_new_string(res->local_bdfs[i]));
	json_object_object_add(o, "local_bdfs", a);
	add_identity(root, o, res);
	a = json_object_new_array();
	for (i = 0; i < res->nwarnings; i++)
		json_object_array_add(a, json_object_new_string(res->warning[i]));
	json_object_object_add(o, "warnings", a);
	res->topology = o;
	o = NULL;
	rv = FALCON_OK;
fail:
	json_object_put(o);
	falcon_topo_free(scanned);
	return rv;
}

size_t fp_dev_holders(const char *root, const char *proc, uint32_t job,
		      const struct falcon_lease_dev *d, char *held, size_t hn, char *reason,
		      size_t n)
{
	struct falcon_holder *h = NULL;
	char *nodes[8];
	size_t nn = 0, nh = 0, k;

	held[0] = '\0';
	if (falcon_hp_dev_nodes(root, proc, d->bdf, nodes, &nn, ARRAY_SIZE(nodes)) != FALCON_OK ||
	    falcon_hp_holders(proc, nodes, nn, d->type == FALCON_DEV_GPU, &h, &nh) != FALCON_OK)
		falcon_warn("job %u: %s: %s", job, d->bdf, falcon_errmsg());
	for (k = 0; k < nh; k++)
		falcon_warn("job %u: %s (%s) held by pid %d (%s): %s", job, d->bdf, d->id,
			    (int)h[k].pid, h[k].comm, h[k].what);
	if (nh > 0) {
		snprintf(held, hn, "held by pid %d (%s)", (int)h[0].pid, h[0].comm);
		if (reason[0] == '\0')
			snprintf(reason, n, "falcon: job %u: %s (%s) held open by pid %d (%s) at "
				 "teardown: %s; removing a held device blocks in the driver: stop "
				 "it (nvidia-persistenced: nvidia-smi -pm 0 or stop the service; "
				 "dcgm-exporter, nv-hostengine: stop them or exclude the Falcon "
				 "GPUs), check falconctl status, then resume the node",
				 job, d->bdf, d->id, (int)h[0].pid, h[0].comm, h[0].what);
	}
	for (k = 0; k < nn; k++)
		free(nodes[k]);
	free(h);
	falcon_err_clear();
	return nh;
}
