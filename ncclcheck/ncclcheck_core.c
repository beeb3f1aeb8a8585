/*
 * ncclcheck_core.c - the pure-C core of falcon-ncclcheck(1): sweeps,
 * bandwidth formulas, verdict, JSON result, table, command line.
 *
 * Formulas follow nccl-tests doc/PERFORMANCE.md: algbw = S / t (GB/s with
 * GB = 1e9 bytes), all-reduce busbw = algbw * 2(n-1)/n.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/conf.h"
#include "ncclcheck_core.h"
#include "core/util.h"

#define MiB ((size_t)1 << 20)

const char *nc_status_str(nc_status_t s)
{
	switch (s) {
	case NC_STATUS_PASS: return "pass";
	case NC_STATUS_WARN: return "warn";
	case NC_STATUS_FAIL: return "fail";
	case NC_STATUS_SKIPPED: return "skipped";
	case NC_STATUS_ERROR: return "error";
	}
	return "error";
}

int nc_status_exit(nc_status_t s)
{
	switch (s) {
	case NC_STATUS_PASS: return NC_EXIT_PASS;
	case NC_STATUS_WARN: return NC_EXIT_WARN;
	case NC_STATUS_FAIL: return NC_EXIT_FAIL;
	case NC_STATUS_SKIPPED: return NC_EXIT_SKIPPED;
	case NC_STATUS_ERROR: return NC_EXIT_ERROR;
	}
	return NC_EXIT_ERROR;
}

const char *nc_level_str(nc_level_t l)
{
	return l == NC_LEVEL_FULL ? "full" : "quick";
}

falcon_err_t nc_sweep(nc_level_t level, size_t *sizes, size_t max, size_t *n)
{
	static const size_t quick[] = { 1 * MiB, 16 * MiB, 64 * MiB, 256 * MiB };
	size_t k = 0, b;

	if (level == NC_LEVEL_QUICK) {
		if (max < ARRAY_SIZE(quick))
			return falcon_err_set(FALCON_ERR_INVAL, "nc_sweep: room for %zu sizes, need %zu",
					      max, ARRAY_SIZE(quick));
		for (k = 0; k < ARRAY_SIZE(quick); k++)
			sizes[k] = quick[k];
	} else {
		for (b = 8; b <= 1024 * MiB; b *= 2) {
			if (k == max)
				return falcon_err_set(FALCON_ERR_INVAL,
						      "nc_sweep: room for %zu sizes only", max);
			sizes[k++] = b;
		}
	}
	*n = k;
	return FALCON_OK;
}

void nc_iters(size_t bytes, int *warmup, int *iters)
{
	if (bytes >= 256 * MiB) {
		*warmup = 2;
		*iters = 5;
	} else if (bytes >= 64 * MiB) {
		*warmup = 3;
		*iters = 10;
	} else {
		*warmup = 5;
		*iters = 20;
	}
}

double nc_algbw(size_t bytes, double time_us)
{
	if (!(time_us > 0))
		return 0;
	return (double)bytes / (time_us * 1e-6) / 1e9;
}

double nc_busbw_allreduce(double algbw, int nranks)
{
	if (nranks < 2)
		return 0;
	return algbw * 2.0 * (nranks - 1) / nranks;
}

double nc_p2p_gbs(double bytes, double time_us)
{
	if (!(time_us > 0))
		return 0;
	return bytes / (time_us * 1e-6) / 1e9;
}

double nc_hd_gbs(size_t bytes, int copies, double ms)
{
	if (!(ms > 0) || copies <= 0)
		return 0;
	return (double)bytes * copies / 1e9 / (ms / 1e3);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double nc_median(double *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

float nc_input(size_t i, int rank)
{
	return (float)((i % 64) + (size_t)rank + 1);
}

float nc_expected(size_t i, int nranks)
{
	size_t n = (size_t)nranks;

	return (float)(n * ((i % 64) + 1) + n * (n - 1) / 2);
}

void nc_fill(float *buf, size_t count, int rank)
{
	size_t i;

	for (i = 0; i < count; i++)
		buf[i] = nc_input(i, rank);
}

long long nc_count_wrong(const float *buf, size_t count, int nranks)
{
	long long wrong = 0;
	size_t i;

	for (i = 0; i < count; i++)
		if (buf[i] != nc_expected(i, nranks))
			wrong++;
	return wrong;
}

bool nc_budget_allows(double elapsed_s, double budget_s, double last_s,
		      double last_bytes, double next_bytes)
{
	double est = 0;

	if (elapsed_s >= budget_s)
		return false;
	if (last_s > 0) {
		est = last_s;
		if (last_bytes > 0 && next_bytes > last_bytes)
			est = last_s * next_bytes / last_bytes;
	}
	return elapsed_s + est * 1.1 <= budget_s;
}

falcon_err_t nc_parse_gpus(const char *s, int *gpus, int *n)
{
	char *copy = NULL, *tok, *save = NULL, *dash;
	bool seen[NC_MAX_GPUS] = { false };
	long lo, hi, g;
	int k = 0;
	falcon_err_t rv;

	if (strcmp(s, "all") == 0) {
		*n = 0;
		return FALCON_OK;
	}
	if (*s == '\0') {
		rv = falcon_err_set(FALCON_ERR_INVAL, "--gpus: empty list");
		goto fail;
	}
	copy = strdup(s);
	if (copy == NULL) {
		rv = falcon_err_set(FALCON_ERR_NOMEM, "--gpus: out of memory");
		goto fail;
	}
	for (tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		dash = strchr(tok, '-');
		if (dash != NULL)
			*dash = '\0';
		if (falcon_strtol(tok, 10, 0, NC_MAX_GPUS - 1, &lo) != FALCON_OK ||
		    (dash != NULL &&
		     falcon_strtol(dash + 1, 10, 0, NC_MAX_GPUS - 1, &hi) != FALCON_OK)) {
			rv = falcon_err_set(FALCON_ERR_INVAL,
					    "--gpus: '%s%s%s' is not a device index or range in [0, %d]",
					    tok, dash ? "-" : "", dash ? dash + 1 : "",
					    NC_MAX_GPUS - 1);
			goto fail;
		}
		if (dash == NULL)
			hi = lo;
		if (hi < lo) {
			rv = falcon_err_set(FALCON_ERR_INVAL, "--gpus: range %ld-%ld is empty", lo, hi);
			goto fail;
		}
		for (g = lo; g <= hi; g++) {
			if (seen[g]) {
				rv = falcon_err_set(FALCON_ERR_INVAL, "--gpus: device %ld listed twice", g);
				goto fail;
			}
			seen[g] = true;
			gpus[k++] = (int)g;
		}
	}
	if (k == 0) {
		rv = falcon_err_set(FALCON_ERR_INVAL, "--gpus: '%s' names no device", s);
		goto fail;
	}
	*n = k;
	rv = FALCON_OK;
fail:
	free(copy);
	return rv;
}

void nc_usage(FILE *fp, const char *prog)
{
	fprintf(fp,
		"Usage: %s [OPTION]...\n"
		"Check the GPUs of this node with NCCL all-reduce and P2P copies.\n\n"
		"  -g, --gpus LIST        CUDA devices (PCI bus order): 0,1,3 or 0-3 or all (default)\n"
		"  -l, --level quick|full size sweep (default quick)\n"
		"  -b, --min-busbw GB/s   all-reduce busbw floor (overrides MinBusBW)\n"
		"  -t, --budget SECONDS   time budget (default 60)\n"
		"  -j, --json FILE        write the JSON result to FILE (- = stdout)\n"
		"  -T, --topology FILE    topology JSON (falconctl topo --json) for path classes\n"
		"  -c, --config FILE      falcon.conf with the partition's floors\n"
		"  -p, --partition NAME   partition whose floors apply (default\n"
		"                         $SLURM_JOB_PARTITION, else DEFAULT)\n"
		"  -q, --quiet            no table on stdout\n"
		"  -h, --help             this text\n"
		"  -V, --version          version\n\n"
		"Exit status: 0 pass, 1 fail, 2 error, 3 warn, 4 skipped.\n",
		prog);
}

/* Prefix this thread's error detail with what; FALCON_ERR_INVAL.  (The
 * detail is copied first: it lives in the buffer falcon_err_set() writes.) */
static falcon_err_t prefix_err(const char *what)
{
	char detail[512];

	snprintf(detail, sizeof(detail), "%s", falcon_errmsg());
	return falcon_err_set(FALCON_ERR_INVAL, "%s: %s", what, detail);
}

falcon_err_t nc_parse_args(int argc, char **argv, struct nc_opts *o)
{
	static const struct option longopts[] = {
		{ "gpus", required_argument, NULL, 'g' },
		{ "level", required_argument, NULL, 'l' },
		{ "min-busbw", required_argument, NULL, 'b' },
		{ "budget", required_argument, NULL, 't' },
		{ "json", required_argument, NULL, 'j' },
		{ "topology", required_argument, NULL, 'T' },
		{ "config", required_argument, NULL, 'c' },
		{ "partition", required_argument, NULL, 'p' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	falcon_err_t rv = FALCON_OK;
	int c;

	memset(o, 0, sizeof(*o));
	o->level = NC_LEVEL_QUICK;
	o->min_busbw = -1;
	o->budget_s = 60;

	optind = 0;     /* GNU: full re-initialisation, so repeated calls work */
	opterr = 0;
	while (rv == FALCON_OK &&
	       (c = getopt_long(argc, argv, ":g:l:b:t:j:T:c:p:qhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'g':
			rv = nc_parse_gpus(optarg, o->gpus, &o->ngpus);
			break;
		case 'l':
			o->level_set = true;
			if (strcmp(optarg, "quick") == 0)
				o->level = NC_LEVEL_QUICK;
			else if (strcmp(optarg, "full") == 0)
				o->level = NC_LEVEL_FULL;
			else
				rv = falcon_err_set(FALCON_ERR_INVAL,
						    "--level: '%s': expected quick or full", optarg);
			break;
		case 'b':
			if (falcon_strtod(optarg, 0, 1e6, &o->min_busbw) != FALCON_OK)
				rv = prefix_err("--min-busbw");
			break;
		case 't':
			if (falcon_strtod(optarg, 1, 86400, &o->budget_s) != FALCON_OK)
				rv = prefix_err("--budget");
			break;
		case 'j':
			o->json_path = optarg;
			break;
		case 'T':
			o->topology_path = optarg;
			break;
		case 'c':
			o->config_path = optarg;
			break;
		case 'p':
			if (*optarg == '\0')
				rv = falcon_err_set(FALCON_ERR_INVAL, "--partition: empty name");
			o->partition = optarg;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			o->help = true;
			break;
		case 'V':
			o->version = true;
			break;
		case ':':
			rv = falcon_err_set(FALCON_ERR_INVAL, "%s: option needs a value",
					    argv[optind - 1]);
			break;
		default:
			if (optopt != 0)
				rv = falcon_err_set(FALCON_ERR_INVAL, "-%c: unknown option", optopt);
			else
				rv = falcon_err_set(FALCON_ERR_INVAL, "%s: unknown option",
						    argv[optind - 1]);
			break;
		}
	}
	if (rv == FALCON_OK && optind < argc)
		rv = falcon_err_set(FALCON_ERR_INVAL, "'%s': unexpected operand", argv[optind]);
	if (rv == FALCON_OK && o->partition != NULL && o->config_path == NULL)
		rv = falcon_err_set(FALCON_ERR_INVAL, "--partition: needs --config FILE");
	return rv;
}

falcon_err_t nc_bdf_normalize(const char *in, char out[16])
{
	const char *c = strchr(in, ':');
	struct falcon_bdf b;
	long dom;

	/* the domain (1 to 8 hex digits, at most ffff), then BB:DD.F as lib/core reads it */
	if (c == NULL || c - in > 8 || strchr(c + 1, ':') != strrchr(c + 1, ':') ||
	    falcon_strtol_n(in, (size_t)(c - in), 16, 0, 0xffff, &dom) != FALCON_OK ||
	    falcon_bdf_parse(c + 1, &b) != FALCON_OK)
		return falcon_err_set(FALCON_ERR_PARSE, "'%s': expected a PCI BDF (0000:3b:00.0)", in);
	snprintf(out, 16, "%04lx:%02x:%02x.%x", dom, b.bus, b.dev, b.fn);
	return FALCON_OK;
}

/* Index of bdf in topo's "gpus" array, -1 when absent. */
static int topo_gpu_index(json_object *gpus, const char *bdf)
{
	json_object *g, *b;
	char norm[16];
	size_t i;

	for (i = 0; i < json_object_array_length(gpus); i++) {
		g = json_object_array_get_idx(gpus, i);
		if (!json_object_object_get_ex(g, "bdf", &b) ||
		    !json_object_is_type(b, json_type_string))
			continue;
		if (nc_bdf_normalize(json_object_get_string(b), norm) == FALCON_OK &&
		    strcmp(norm, bdf) == 0)
			return (int)i;
	}
	return -1;
}

void nc_topo_class(json_object *topo, const char *bdf_a, const char *bdf_b,
		   char out[NC_CLASS_LEN])
{
	json_object *gpus, *matrix, *row, *cell;
	int ia, ib;

	snprintf(out, NC_CLASS_LEN, "unknown");
	if (topo == NULL || !json_object_object_get_ex(topo, "gpus", &gpus) ||
	    !json_object_object_get_ex(topo, "matrix", &matrix) ||
	    !json_object_is_type(gpus, json_type_array) ||
	    !json_object_is_type(matrix, json_type_array))
		return;
	ia = topo_gpu_index(gpus, bdf_a);
	ib = topo_gpu_index(gpus, bdf_b);
	if (ia < 0 || ib < 0)
		return;
	row = json_object_array_get_idx(matrix, (size_t)ia);
	if (row == NULL || !json_object_is_type(row, json_type_array))
		return;
	cell = json_object_array_get_idx(row, (size_t)ib);
	if (cell == NULL || !json_object_is_type(cell, json_type_string))
		return;
	snprintf(out, NC_CLASS_LEN, "%s", json_object_get_string(cell));
}

falcon_err_t nc_topo_load(const char *path, json_object **out)
{
	json_object *doc = NULL, *v;
	enum json_tokener_error jerr = json_tokener_success;
	char *buf = NULL;
	falcon_err_t rv;

	rv = falcon_read_file(path, 4u << 20, &buf, NULL);
	if (rv != FALCON_OK)
		goto fail;
	doc = json_tokener_parse_verbose(buf, &jerr);
	if (doc == NULL) {
		rv = falcon_err_set(FALCON_ERR_PARSE, "%s: not JSON: %s", path,
				    json_tokener_error_desc(jerr));
		goto fail;
	}
	if (!json_object_object_get_ex(doc, "gpus", &v) || !json_object_is_type(v, json_type_array) ||
	    !json_object_object_get_ex(doc, "matrix", &v) || !json_object_is_type(v, json_type_array)) {
		rv = falcon_err_set(FALCON_ERR_PARSE,
				    "%s: expected a topology object with \"gpus\" and \"matrix\" arrays",
				    path);
		goto fail;
	}
	*out = doc;
	doc = NULL;
	rv = FALCON_OK;
fail:
	json_object_put(doc);
	free(buf);
	return rv;
}

double nc_class_floor(const struct nc_floors *f, const char *cls)
{
	if (strncmp(cls, "F-F", 3) == 0)
		return f->p2p_ff;
	if (strncmp(cls, "F-L", 3) == 0 || strncmp(cls, "L-F", 3) == 0)
		return f->p2p_fl;
	if (strncmp(cls, "L-L", 3) == 0)
		return f->p2p_ll;
	return 0;
}

void nc_result_init(struct nc_result *r, nc_level_t level, double budget_s)
{
	memset(r, 0, sizeof(*r));
	r->status = NC_STATUS_PASS;
	r->level = level;
	r->budget_s = budget_s;
	r->weakest.pair = -1;
	r->weakest.size = -1;
}

/* Append to r->reason, "; "-separated. */
static void reason_add(struct nc_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void reason_add(struct nc_result *r, const char *fmt, ...)
{
	size_t len = strlen(r->reason);
	va_list ap;

	if (len > 0 && len + 2 < sizeof(r->reason)) {
		memcpy(r->reason + len, "; ", 3);
		len += 2;
	}
	if (len + 1 >= sizeof(r->reason))
		return;
	va_start(ap, fmt);
	vsnprintf(r->reason + len, sizeof(r->reason) - len, fmt, ap);
	va_end(ap);
}

/* Raise the status to s when it is worse (pass < warn < fail). */
static void status_raise(nc_status_t *st, nc_status_t s)
{
	if (s == NC_STATUS_FAIL || (s == NC_STATUS_WARN && *st == NC_STATUS_PASS))
		*st = s;
}

/* Judge value against floor; returns the status it earns. */
static nc_status_t judge(double value, double floor)
{
	if (floor <= 0 || value >= floor)
		return NC_STATUS_PASS;
	if (value >= NC_WARN_FRACTION * floor)
		return NC_STATUS_WARN;
	return NC_STATUS_FAIL;
}

void nc_verdict(struct nc_result *r, const struct nc_floors *f)
{
	bool judged = r->status == NC_STATUS_PASS || r->status == NC_STATUS_WARN;
	nc_status_t st = NC_STATUS_PASS, s;
	double best_ratio = INFINITY, ratio, fl, v;
	int nranks = r->ngpus, wrong_size = -1, peak_size = -1;
	long long wrong = 0, w;
	size_t i;

	/* Peaks and correctness over the sweep.  With one rank the in-place
	 * all-reduce moves nothing (NCCL returns at once when sendbuff ==
	 * recvbuff: on an H100 0.3-1.4 us at every size, "algbw" up to
	 * 560 TB/s), so only the out-of-place copy counts there. */
	r->busbw_peak = 0;
	r->algbw_peak = 0;
	for (i = 0; i < r->nar; i++) {
		const struct nc_ar_row *a = &r->ar[i];
		double algbw = nranks < 2 ? a->oop.algbw : fmax(a->oop.algbw, a->ip.algbw);

		v = nranks < 2 ? algbw : fmax(a->oop.busbw, a->ip.busbw);
		if (peak_size < 0 || v > (nranks < 2 ? r->algbw_peak : r->busbw_peak))
			peak_size = (int)i;
		r->busbw_peak = fmax(r->busbw_peak, fmax(a->oop.busbw, a->ip.busbw));
		r->algbw_peak = fmax(r->algbw_peak, algbw);
		w = (a->oop.wrong > 0 ? a->oop.wrong : 0) + (a->ip.wrong > 0 ? a->ip.wrong : 0);
		if (w > 0 && wrong_size < 0)
			wrong_size = (int)i;
		wrong += w;
	}
	r->weakest.size = wrong_size >= 0 ? wrong_size : peak_size;
	r->weakest.size_floor = nranks >= 2 ? f->busbw : 0;

	/* The weakest pair: lowest value/floor, or lowest bandwidth without floors. */
	r->weakest.pair = -1;
	r->weakest.pair_floor = 0;
	for (i = 0; i < r->np2p; i++) {
		fl = nc_class_floor(f, r->p2p[i].cls);
		ratio = fl > 0 ? r->p2p[i].bidir_gbs / fl : 1e6 + r->p2p[i].bidir_gbs;
		if (ratio < best_ratio) {
			best_ratio = ratio;
			r->weakest.pair = (int)i;
			r->weakest.pair_floor = fl;
		}
	}
	if (!judged)
		return;

	r->reason[0] = '\0';
	if (wrong > 0) {
		st = NC_STATUS_FAIL;
		reason_add(r, "%lld wrong elements, first at %zu B", wrong, r->ar[wrong_size].bytes);
	}
	if (f->busbw > 0 && nranks < 2) {
		reason_add(r, "MinBusBW not applicable with one GPU (busbw is 0 by definition)");
	} else if (f->busbw > 0 && peak_size < 0) {
		st = st == NC_STATUS_FAIL ? st : NC_STATUS_WARN;
		reason_add(r, "no all-reduce measured within the budget (MinBusBW %.1f GB/s)",
			   f->busbw);
	} else if (f->busbw > 0) {
		s = judge(r->busbw_peak, f->busbw);
		status_raise(&st, s);
		if (s != NC_STATUS_PASS)
			reason_add(r, "busbw %.2f GB/s at %zu B below MinBusBW %.2f GB/s%s",
				   r->busbw_peak, r->ar[peak_size].bytes, f->busbw,
				   s == NC_STATUS_WARN ? " (within 10 %)" : "");
	}
	for (i = 0; i < r->np2p; i++) {
		const struct nc_p2p_row *p = &r->p2p[i];

		fl = nc_class_floor(f, p->cls);
		s = judge(p->bidir_gbs, fl);
		status_raise(&st, s);
		if (s != NC_STATUS_PASS)
			reason_add(r, "GPU %d-%d (%s) P2P %.2f GB/s below floor %.2f GB/s%s",
				   p->a, p->b, p->cls, p->bidir_gbs, fl,
				   s == NC_STATUS_WARN ? " (within 10 %)" : "");
	}
	if (r->truncated)
		reason_add(r, "stopped early to stay inside the %.0f s budget", r->budget_s);
	if (st == NC_STATUS_PASS && r->reason[0] == '\0') {
		if (peak_size >= 0)
			reason_add(r, "%s %.2f GB/s at %zu B", nranks < 2 ? "algbw" : "busbw",
				   nranks < 2 ? r->algbw_peak : r->busbw_peak,
				   r->ar[peak_size].bytes);
		if (r->weakest.pair >= 0)
			reason_add(r, "weakest pair GPU %d-%d (%s) %.2f GB/s",
				   r->p2p[r->weakest.pair].a, r->p2p[r->weakest.pair].b,
				   r->p2p[r->weakest.pair].cls, r->p2p[r->weakest.pair].bidir_gbs);
		if (r->reason[0] == '\0')
			reason_add(r, "nothing measured");
	}
	r->status = st;
}

/* json-c helpers: add a key; any NULL value marks the whole build failed. */
static void jadd(json_object *o, const char *k, json_object *v, bool *ok)
{
	if (v == NULL || json_object_object_add(o, k, v) != 0) {
		json_object_put(v);
		*ok = false;
	}
}

/* A bandwidth > 0, else JSON null (not measured). */
static void jnum_or_null(json_object *o, const char *k, double v, bool *ok)
{
	if (v > 0)
		jadd(o, k, json_object_new_double(v), ok);
	else if (json_object_object_add(o, k, NULL) != 0)
		*ok = false;
}

static json_object *perf_json(const struct nc_perf *p, bool *ok)
{
	json_object *o = json_object_new_object();

	if (o == NULL) {
		*ok = false;
		return NULL;
	}
	jadd(o, "time_us", json_object_new_double(p->time_us), ok);
	jadd(o, "algbw", json_object_new_double(p->algbw), ok);
	jadd(o, "busbw", json_object_new_double(p->busbw), ok);
	jadd(o, "wrong", json_object_new_int64(p->wrong), ok);
	return o;
}

static json_object *p2p_json(const struct nc_p2p_row *p, bool *ok)
{
	json_object *o = json_object_new_object();

	if (o == NULL) {
		*ok = false;
		return NULL;
	}
	jadd(o, "a", json_object_new_int(p->a), ok);
	jadd(o, "b", json_object_new_int(p->b), ok);
	jadd(o, "class", json_object_new_string(p->cls), ok);
	jadd(o, "bidir_gbs", json_object_new_double(p->bidir_gbs), ok);
	jadd(o, "latency_us", json_object_new_double(p->latency_us), ok);
	jadd(o, "p2p_access", json_object_new_boolean(p->p2p_access), ok);
	return o;
}

falcon_err_t nc_result_json(const struct nc_result *r, json_object **out)
{
	json_object *doc = json_object_new_object(), *arr, *o, *w, *x;
	const struct nc_ar_row *a;
	bool ok = doc != NULL;
	size_t i;
	int g;

	if (!ok)
		return falcon_err_set(FALCON_ERR_NOMEM, "JSON result: out of memory");
	jadd(doc, "status", json_object_new_string(nc_status_str(r->status)), &ok);
	jadd(doc, "reason", json_object_new_string(r->reason), &ok);
	jadd(doc, "level", json_object_new_string(nc_level_str(r->level)), &ok);
	jadd(doc, "nranks", json_object_new_int(r->ngpus), &ok);

	arr = json_object_new_array();
	for (g = 0; arr != NULL && g < r->ngpus; g++) {
		o = json_object_new_object();
		if (o == NULL || json_object_array_add(arr, o) != 0) {
			json_object_put(o);
			ok = false;
			break;
		}
		jadd(o, "index", json_object_new_int(r->gpus[g].index), &ok);
		jadd(o, "bdf", json_object_new_string(r->gpus[g].bdf), &ok);
		jadd(o, "name", json_object_new_string(r->gpus[g].name), &ok);
		/* null: not measured (no pinned host memory, or the budget) */
		jnum_or_null(o, "h2d_gbs", r->gpus[g].h2d_gbs, &ok);
		jnum_or_null(o, "d2h_gbs", r->gpus[g].d2h_gbs, &ok);
	}
	jadd(doc, "gpus", arr, &ok);

	arr = json_object_new_array();
	for (i = 0; arr != NULL && i < r->nar; i++) {
		a = &r->ar[i];
		o = json_object_new_object();
		if (o == NULL || json_object_array_add(arr, o) != 0) {
			json_object_put(o);
			ok = false;
			break;
		}
		jadd(o, "bytes", json_object_new_int64((int64_t)a->bytes), &ok);
		jadd(o, "count", json_object_new_int64((int64_t)a->count), &ok);
		jadd(o, "type", json_object_new_string("float"), &ok);
		jadd(o, "redop", json_object_new_string("sum"), &ok);
		jadd(o, "oop", perf_json(&a->oop, &ok), &ok);
		jadd(o, "ip", perf_json(&a->ip, &ok), &ok);
	}
	jadd(doc, "allreduce", arr, &ok);

	arr = json_object_new_array();
	for (i = 0; arr != NULL && i < r->np2p; i++) {
		o = p2p_json(&r->p2p[i], &ok);
		if (o == NULL || json_object_array_add(arr, o) != 0) {
			json_object_put(o);
			ok = false;
			break;
		}
	}
	jadd(doc, "p2p", arr, &ok);

	w = json_object_new_object();
	if (w != NULL) {
		if (r->weakest.pair >= 0) {
			x = p2p_json(&r->p2p[r->weakest.pair], &ok);
			if (x != NULL)
				jadd(x, "floor_gbs", json_object_new_double(r->weakest.pair_floor), &ok);
			jadd(w, "pair", x, &ok);
		} else {
			json_object_object_add(w, "pair", NULL);
		}
		if (r->weakest.size >= 0) {
			a = &r->ar[r->weakest.size];
			x = json_object_new_object();
			if (x != NULL) {
				jadd(x, "bytes", json_object_new_int64((int64_t)a->bytes), &ok);
				jadd(x, "algbw", json_object_new_double(fmax(a->oop.algbw, a->ip.algbw)), &ok);
				jadd(x, "busbw", json_object_new_double(fmax(a->oop.busbw, a->ip.busbw)), &ok);
				jadd(x, "wrong", json_object_new_int64((a->oop.wrong > 0 ? a->oop.wrong : 0) +
								       (a->ip.wrong > 0 ? a->ip.wrong : 0)), &ok);
				jadd(x, "floor_gbs", json_object_new_double(r->weakest.size_floor), &ok);
			}
			jadd(w, "size", x, &ok);
		} else {
			json_object_object_add(w, "size", NULL);
		}
	}
	jadd(doc, "weakest", w, &ok);
	jadd(doc, "hostdev_bytes", json_object_new_int64((int64_t)r->hostdev_bytes), &ok);
	jadd(doc, "busbw_peak", json_object_new_double(r->busbw_peak), &ok);
	jadd(doc, "algbw_peak", json_object_new_double(r->algbw_peak), &ok);
	jadd(doc, "truncated", json_object_new_boolean(r->truncated), &ok);
	jadd(doc, "elapsed_s", json_object_new_double(r->elapsed_s), &ok);
	jadd(doc, "budget_s", json_object_new_double(r->budget_s), &ok);
	if (!ok) {
		json_object_put(doc);
		return falcon_err_set(FALCON_ERR_NOMEM, "JSON result: out of memory");
	}
	*out = doc;
	return FALCON_OK;
}

/* Schema table: key, json type, "nullable" (json null allowed). */
struct key_spec {
	const char *key;
	json_type type;
	bool nullable;
};

static falcon_err_t check_keys(json_object *o, const char *where,
			       const struct key_spec *spec, size_t n)
{
	json_object *v;
	size_t i;

	if (!json_object_is_type(o, json_type_object))
		return falcon_err_set(FALCON_ERR_PARSE, "%s: expected an object", where);
	for (i = 0; i < n; i++) {
		if (!json_object_object_get_ex(o, spec[i].key, &v))
			return falcon_err_set(FALCON_ERR_PARSE, "%s.%s: missing", where, spec[i].key);
		if (v == NULL && spec[i].nullable)
			continue;
		/* ints are acceptable where a double is expected */
		if (json_object_is_type(v, spec[i].type) ||
		    (spec[i].type == json_type_double && json_object_is_type(v, json_type_int)))
			continue;
		return falcon_err_set(FALCON_ERR_PARSE, "%s.%s: expected %s, got %s", where,
				      spec[i].key, json_type_to_name(spec[i].type),
				      json_type_to_name(json_object_get_type(v)));
	}
	return FALCON_OK;
}

static const struct key_spec top_spec[] = {
	{ "status", json_type_string, false }, { "reason", json_type_string, false },
	{ "level", json_type_string, false }, { "nranks", json_type_int, false },
	{ "gpus", json_type_array, false }, { "allreduce", json_type_array, false },
	{ "p2p", json_type_array, false }, { "weakest", json_type_object, false },
	{ "hostdev_bytes", json_type_int, false }, { "busbw_peak", json_type_double, false },
	{ "algbw_peak", json_type_double, false },
	{ "truncated", json_type_boolean, false }, { "elapsed_s", json_type_double, false },
	{ "budget_s", json_type_double, false },
};
static const struct key_spec gpu_spec[] = {
	{ "index", json_type_int, false }, { "bdf", json_type_string, false },
	{ "name", json_type_string, false }, { "h2d_gbs", json_type_double, true },
	{ "d2h_gbs", json_type_double, true },
};
static const struct key_spec ar_spec[] = {
	{ "bytes", json_type_int, false }, { "count", json_type_int, false },
	{ "type", json_type_string, false }, { "redop", json_type_string, false },
	{ "oop", json_type_object, false }, { "ip", json_type_object, false },
};
static const struct key_spec perf_spec[] = {
	{ "time_us", json_type_double, false }, { "algbw", json_type_double, false },
	{ "busbw", json_type_double, false }, { "wrong", json_type_int, false },
};
static const struct key_spec p2p_spec[] = {
	{ "a", json_type_int, false }, { "b", json_type_int, false },
	{ "class", json_type_string, false }, { "bidir_gbs", json_type_double, false },
	{ "latency_us", json_type_double, false }, { "p2p_access", json_type_boolean, false },
};
static const struct key_spec weakest_spec[] = {
	{ "pair", json_type_object, true }, { "size", json_type_object, true },
};
static const struct key_spec wsize_spec[] = {
	{ "bytes", json_type_int, false }, { "algbw", json_type_double, false },
	{ "busbw", json_type_double, false }, { "wrong", json_type_int, false },
	{ "floor_gbs", json_type_double, false },
};

falcon_err_t nc_json_validate(json_object *doc)
{
	static const char *const statuses[] = { "pass", "warn", "fail", "skipped", "error" };
	json_object *arr, *v, *w;
	char where[64];
	falcon_err_t rv;
	size_t i, k;
	bool known = false;

	rv = check_keys(doc, "result", top_spec, ARRAY_SIZE(top_spec));
	if (rv != FALCON_OK)
		return rv;
	json_object_object_get_ex(doc, "status", &v);
	for (k = 0; k < ARRAY_SIZE(statuses); k++)
		known = known || strcmp(json_object_get_string(v), statuses[k]) == 0;
	if (!known)
		return falcon_err_set(FALCON_ERR_PARSE, "result.status: '%s' is not one of "
				      "pass, warn, fail, skipped, error", json_object_get_string(v));
	json_object_object_get_ex(doc, "gpus", &arr);
	for (i = 0; i < json_object_array_length(arr); i++) {
		snprintf(where, sizeof(where), "gpus[%zu]", i);
		rv = check_keys(json_object_array_get_idx(arr, i), where, gpu_spec, ARRAY_SIZE(gpu_spec));
		if (rv != FALCON_OK)
			return rv;
	}
	json_object_object_get_ex(doc, "allreduce", &arr);
	for (i = 0; i < json_object_array_length(arr); i++) {
		v = json_object_array_get_idx(arr, i);
		snprintf(where, sizeof(where), "allreduce[%zu]", i);
		rv = check_keys(v, where, ar_spec, ARRAY_SIZE(ar_spec));
		if (rv != FALCON_OK)
			return rv;
		json_object_object_get_ex(v, "oop", &w);
		snprintf(where, sizeof(where), "allreduce[%zu].oop", i);
		rv = check_keys(w, where, perf_spec, ARRAY_SIZE(perf_spec));
		if (rv != FALCON_OK)
			return rv;
		json_object_object_get_ex(v, "ip", &w);
		snprintf(where, sizeof(where), "allreduce[%zu].ip", i);
		rv = check_keys(w, where, perf_spec, ARRAY_SIZE(perf_spec));
		if (rv != FALCON_OK)
			return rv;
	}
	json_object_object_get_ex(doc, "p2p", &arr);
	for (i = 0; i < json_object_array_length(arr); i++) {
		snprintf(where, sizeof(where), "p2p[%zu]", i);
		rv = check_keys(json_object_array_get_idx(arr, i), where, p2p_spec, ARRAY_SIZE(p2p_spec));
		if (rv != FALCON_OK)
			return rv;
	}
	json_object_object_get_ex(doc, "weakest", &w);
	rv = check_keys(w, "weakest", weakest_spec, ARRAY_SIZE(weakest_spec));
	if (rv != FALCON_OK)
		return rv;
	json_object_object_get_ex(w, "pair", &v);
	if (v != NULL) {
		rv = check_keys(v, "weakest.pair", p2p_spec, ARRAY_SIZE(p2p_spec));
		if (rv != FALCON_OK)
			return rv;
	}
	json_object_object_get_ex(w, "size", &v);
	if (v != NULL)
		rv = check_keys(v, "weakest.size", wsize_spec, ARRAY_SIZE(wsize_spec));
	return rv;
}

/* nccl-tests prints times with 1 decimal place from 10 ms, 2 below. */
static void fmt_perf(char *buf, size_t n, const struct nc_perf *p)
{
	char wrong[24];

	if (p->wrong < 0)
		snprintf(wrong, sizeof(wrong), "N/A");
	else
		snprintf(wrong, sizeof(wrong), "%lld", p->wrong);
	snprintf(buf, n, "  %7.*f  %6.2f  %6.2f  %6s", p->time_us >= 10000 ? 1 : 2,
		 p->time_us, p->algbw, p->busbw, wrong);
}

/* A bandwidth with 2 decimals, "N/A" when not measured. */
static void fmt_gbs(char *buf, size_t n, double gbs)
{
	if (gbs > 0)
		snprintf(buf, n, "%.2f", gbs);
	else
		snprintf(buf, n, "N/A");
}

void nc_print_table(FILE *fp, const struct nc_result *r)
{
	char oop[64], ip[64], h2d[32], d2h[32];
	double sum = 0;
	size_t i;
	int g;

	fprintf(fp, "# falcon-ncclcheck: level %s, %d rank(s), budget %.0f s\n",
		nc_level_str(r->level), r->ngpus, r->budget_s);
	for (g = 0; g < r->ngpus; g++)
		fprintf(fp, "#  Rank %2d device %2d [%s] %s\n", g, r->gpus[g].index,
			r->gpus[g].bdf, r->gpus[g].name);
	if (r->hostdev_bytes > 0) {
		fprintf(fp, "#\n# Host<->device (pinned cudaMemcpyAsync of %zu B, median of "
			"%d batches of %d)\n", r->hostdev_bytes, NC_HD_BATCHES, NC_HD_COPIES);
		fprintf(fp, "# %6s  %-12s  %7s  %7s\n", "device", "bdf", "H2D", "D2H");
		fprintf(fp, "# %6s  %-12s  %7s  %7s\n", "", "", "(GB/s)", "(GB/s)");
		for (g = 0; g < r->ngpus; g++) {
			fmt_gbs(h2d, sizeof(h2d), r->gpus[g].h2d_gbs);
			fmt_gbs(d2h, sizeof(d2h), r->gpus[g].d2h_gbs);
			fprintf(fp, "  %6d  %-12s  %7s  %7s\n", r->gpus[g].index, r->gpus[g].bdf,
				h2d, d2h);
		}
	}
	if (r->nar > 0) {
		fprintf(fp, "#\n#%62s%s%31s\n", "", "out-of-place", "in-place");
		fprintf(fp, "#%11s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n",
			"size", "count", "type", "redop", "root", "time", "algbw", "busbw",
			"#wrong", "time", "algbw", "busbw", "#wrong");
		fprintf(fp, "#%11s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n",
			"(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "",
			"(us)", "(GB/s)", "(GB/s)", "");
		for (i = 0; i < r->nar; i++) {
			fmt_perf(oop, sizeof(oop), &r->ar[i].oop);
			fmt_perf(ip, sizeof(ip), &r->ar[i].ip);
			fprintf(fp, "%12zu  %12zu  %8s  %6s  %6d%s%s\n", r->ar[i].bytes,
				r->ar[i].count, "float", "sum", -1, oop, ip);
			sum += (r->ar[i].oop.busbw + r->ar[i].ip.busbw) / 2;
		}
		fprintf(fp, "# Avg bus bandwidth    : %g\n", sum / (double)r->nar);
		if (r->ngpus < 2)
			fprintf(fp, "# (one rank: busbw is 0 by definition; see algbw, out-of-place: "
				"the in-place all-reduce moves nothing)\n");
	}
	if (r->np2p > 0) {
		fprintf(fp, "#\n# P2P (bidirectional copy, write latency)\n");
		fprintf(fp, "# %5s  %-16s  %10s  %11s  %10s\n", "pair", "class", "bidir", "latency",
			"p2p_access");
		fprintf(fp, "# %5s  %-16s  %10s  %11s  %10s\n", "", "", "(GB/s)", "(us)", "");
		for (i = 0; i < r->np2p; i++)
			fprintf(fp, "  %2d-%-2d  %-16s  %10.2f  %11.2f  %10s\n", r->p2p[i].a,
				r->p2p[i].b, r->p2p[i].cls, r->p2p[i].bidir_gbs, r->p2p[i].latency_us,
				r->p2p[i].p2p_access ? "yes" : "no");
	}
	fprintf(fp, "# status: %s (%s), %.2f s of %.0f s%s\n", nc_status_str(r->status), r->reason,
		r->elapsed_s, r->budget_s, r->truncated ? ", stopped early by the budget" : "");
}

falcon_err_t nc_floors_load(const char *config_path, const char *partition,
			    double min_busbw, struct nc_floors *f, falcon_check_t *check)
{
	const struct falcon_partition_conf *p;
	struct falcon_conf *conf = NULL;
	falcon_err_t rv;

	memset(f, 0, sizeof(*f));
	*check = FALCON_CHECK_QUICK;
	if (config_path != NULL) {
		rv = falcon_conf_load(config_path, &conf);
		if (rv != FALCON_OK)
			goto fail;
		p = falcon_conf_partition(conf, partition != NULL ? partition : "DEFAULT");
		f->busbw = p->min_busbw;
		f->p2p_ff = p->min_p2p_bw_ff;
		f->p2p_fl = p->min_p2p_bw_fl;
		f->p2p_ll = p->min_p2p_bw_ll;
		*check = p->check;
	}
	if (min_busbw >= 0)
		f->busbw = min_busbw;
	rv = FALCON_OK;
fail:
	falcon_conf_free(conf);
	return rv;
}
