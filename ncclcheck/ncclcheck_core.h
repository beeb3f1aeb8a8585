/*
 * ncclcheck_core.h - the pure-C core of falcon-ncclcheck(1): size sweeps,
 * nccl-tests' bandwidth formulas, the result model, the verdict against the
 * partition's floors, the JSON result, the human table and the command line.
 * No CUDA here: ncclcheck/ncclcheck.c is the CUDA runtime + NCCL glue, and the
 * unit tests link this file alone.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_NCCLCHECK_CORE_H
#define FALCON_NCCLCHECK_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <json-c/json.h>

#include "core/conf.h"
#include "core/falcon_err.h"

#define NC_MAX_GPUS 32          /* 16 Falcon slots + local GPUs, with room */
#define NC_MAX_PAIRS (NC_MAX_GPUS * (NC_MAX_GPUS - 1) / 2)
#define NC_MAX_SIZES 32         /* full sweep: 8 B .. 1 GiB = 28 sizes */
#define NC_CLASS_LEN 32         /* "F-F PIX", "unknown" */
#define NC_REASON_LEN 512

/* Host<->device copies (nc_hd_gbs()): per GPU and direction, one warm-up
 * copy, then NC_HD_BATCHES batches of NC_HD_COPIES back-to-back pinned
 * cudaMemcpyAsync of NC_HD_BYTES; the median batch is reported. */
#define NC_HD_BYTES ((size_t)64 << 20)
#define NC_HD_BATCHES 3
#define NC_HD_COPIES 5

/* Warn band: a value at or above NC_WARN_FRACTION * floor but below the
 * floor is a warning; below it, a failure (see doc/falcon-ncclcheck.1). */
#define NC_WARN_FRACTION 0.90

/* Exit codes (doc/falcon-ncclcheck.1, EXIT STATUS). */
enum {
	NC_EXIT_PASS = 0,
	NC_EXIT_FAIL = 1,
	NC_EXIT_ERROR = 2,
	NC_EXIT_WARN = 3,
	NC_EXIT_SKIPPED = 4,
};

typedef enum { NC_LEVEL_QUICK = 0, NC_LEVEL_FULL } nc_level_t;

typedef enum {
	NC_STATUS_PASS = 0,
	NC_STATUS_WARN,
	NC_STATUS_FAIL,
	NC_STATUS_SKIPPED,
	NC_STATUS_ERROR,
} nc_status_t;

/* Parsed command line.  Strings point into argv (not owned). */
struct nc_opts {
	int ngpus;                  /* 0 = all visible devices */
	int gpus[NC_MAX_GPUS];      /* CUDA device indices (PCI_BUS_ID order) */
	nc_level_t level;           /* --level, default quick */
	bool level_set;             /* --level given (else the partition's Check=) */
	double min_busbw;           /* --min-busbw GB/s; < 0 = not given */
	double budget_s;            /* --budget seconds, default 60 */
	const char *json_path;      /* --json FILE, "-" = stdout; NULL = none */
	const char *topology_path;  /* --topology FILE; NULL = classes "unknown" */
	const char *config_path;    /* --config FILE; NULL = no falcon.conf */
	const char *partition;      /* --partition NAME; NULL = none given */
	bool quiet;                 /* --quiet: no table on stdout */
	bool help;                  /* --help given */
	bool version;               /* --version given */
};

/* Floors in GB/s; 0 = no floor. */
struct nc_floors {
	double busbw;               /* all-reduce busbw peak (MinBusBW) */
	double p2p_ff;              /* bidirectional P2P, per paper class */
	double p2p_fl;
	double p2p_ll;
};

/* One direction of an all-reduce measurement (nccl-tests' columns). */
struct nc_perf {
	double time_us;             /* mean time of one operation, microseconds */
	double algbw;               /* GB/s (1e9 bytes/s) */
	double busbw;               /* GB/s */
	long long wrong;            /* wrong elements; -1 = not measured */
};

struct nc_ar_row {
	size_t bytes;               /* per rank buffer size */
	size_t count;               /* float elements */
	struct nc_perf oop;         /* out-of-place */
	struct nc_perf ip;          /* in-place */
};

struct nc_p2p_row {
	int a, b;                   /* CUDA device indices, a < b */
	char cls[NC_CLASS_LEN];     /* "F-F PIX" or "unknown" */
	double bidir_gbs;           /* both directions together, GB/s */
	double latency_us;          /* mean P2P write latency, microseconds */
	bool p2p_access;            /* cudaDeviceCanAccessPeer both ways */
};

struct nc_gpu {
	int index;                  /* CUDA device index */
	char bdf[16];               /* "0000:3b:00.0" (lower case) */
	char name[64];              /* cudaDeviceProp.name */
	double h2d_gbs;             /* host-to-device copy, GB/s; 0 = not measured */
	double d2h_gbs;             /* device-to-host copy, GB/s; 0 = not measured */
};

/* The weakest point found by nc_verdict(). */
struct nc_weakest {
	int pair;                   /* index into p2p[], -1 = none */
	double pair_floor;          /* GB/s, 0 = none */
	int size;                   /* index into ar[], -1 = none */
	double size_floor;          /* GB/s, 0 = none */
};

struct nc_result {
	nc_status_t status;
	char reason[NC_REASON_LEN];
	nc_level_t level;
	int ngpus;
	struct nc_gpu gpus[NC_MAX_GPUS];
	size_t nar;
	struct nc_ar_row ar[NC_MAX_SIZES];
	size_t np2p;
	struct nc_p2p_row p2p[NC_MAX_PAIRS];
	struct nc_weakest weakest;
	size_t hostdev_bytes;       /* size of the host<->device copies; 0 = none */
	double busbw_peak;          /* best busbw over the sweep, GB/s */
	double algbw_peak;          /* best algbw over the sweep, GB/s (one rank:
				     * out-of-place only, see nc_verdict()) */
	bool truncated;             /* stopped early to stay inside the budget */
	double elapsed_s;
	double budget_s;
};

/* nc_status_str - "pass", "warn", ...; static. */
const char *nc_status_str(nc_status_t s);

/* nc_status_exit - the documented exit code of a status (NC_EXIT_*). */
int nc_status_exit(nc_status_t s);

/* nc_level_str - "quick" / "full"; static. */
const char *nc_level_str(nc_level_t l);

/*
 * nc_sweep - the all-reduce message sizes (bytes per rank) of a level into
 * sizes[max]; *n gets their number.  quick: 1, 16, 64, 256 MiB; full: 8 B to
 * 1 GiB by factor 2 (nccl-tests' -b 8 -e 1G -f 2).  FALCON_ERR_INVAL when max
 * is too small.
 */
falcon_err_t nc_sweep(nc_level_t level, size_t *sizes, size_t max, size_t *n);

/*
 * nc_iters - warm-up and timed iterations for a size: nccl-tests' defaults
 * (-w 5 -n 20), fewer for the largest sizes so that a quick check stays near
 * one second: 10 timed from 64 MiB, 5 from 256 MiB.
 */
void nc_iters(size_t bytes, int *warmup, int *iters);

/*
 * nc_algbw - algorithm bandwidth in GB/s: bytes / time, with time in
 * microseconds and GB = 1e9 bytes (nccl-tests doc/PERFORMANCE.md).  0 when
 * time_us <= 0.
 */
double nc_algbw(size_t bytes, double time_us);

/*
 * nc_busbw_allreduce - all-reduce bus bandwidth in GB/s: algbw * 2(n-1)/n
 * (nccl-tests doc/PERFORMANCE.md, "AllReduce").  0 for one rank.
 */
double nc_busbw_allreduce(double algbw, int nranks);

/*
 * nc_p2p_gbs - GB/s of bytes moved in time_us microseconds; for a
 * bidirectional copy pass the bytes of both directions (as CUDA samples'
 * p2pBandwidthLatencyTest does).
 */
double nc_p2p_gbs(double bytes, double time_us);

/*
 * nc_hd_gbs - GB/s of copies back-to-back copies of bytes each in ms
 * milliseconds (one pair of CUDA events around them): the formula of CUDA
 * samples' bandwidthTest, bytes * iterations / 1e9 / seconds.  0 when
 * ms <= 0.
 */
double nc_hd_gbs(size_t bytes, int copies, double ms);

/*
 * nc_median - the median of v[0..n) (the mean of the middle two for an even
 * n); sorts v.  0 for n == 0.
 */
double nc_median(double *v, size_t n);

/*
 * Correctness: rank r's input element i is (i % 64) + r + 1, a small integer,
 * so the float sum over n ranks, n * ((i % 64) + 1) + n(n-1)/2, is exact
 * (below 2^24 for every n <= NC_MAX_GPUS).
 */
float nc_input(size_t i, int rank);
/* nc_expected - the all-reduce sum of element i over nranks ranks of
 * nc_input(): nranks * ((i % 64) + 1) + nranks(nranks-1)/2, exact. */
float nc_expected(size_t i, int nranks);
/* nc_fill - buf[0..count) = nc_input(i, rank). */
void nc_fill(float *buf, size_t count, int rank);
/* nc_count_wrong - elements of buf[0..count) != nc_expected(i, nranks). */
long long nc_count_wrong(const float *buf, size_t count, int nranks);

/*
 * nc_budget_allows - whether a next step fits in the budget: the next
 * step's time is estimated from the last one scaled by the size ratio (at
 * least last_s), plus a 10 % margin.  All times in seconds; last_s <= 0 means
 * no estimate yet (allowed while elapsed < budget).
 */
bool nc_budget_allows(double elapsed_s, double budget_s, double last_s,
		      double last_bytes, double next_bytes);

/*
 * nc_parse_gpus - "0,1,3" or "0-3" or "all" into gpus[NC_MAX_GPUS] / *n (0
 * for "all").  Indices in [0, NC_MAX_GPUS), no duplicates.
 * FALCON_ERR_INVAL with the offending item in the detail.
 */
falcon_err_t nc_parse_gpus(const char *s, int *gpus, int *n);

/*
 * nc_parse_args - parse argv (getopt_long; safe to call repeatedly) into
 * *o (its strings point into argv: not owned).  Defaults: all GPUs,
 * quick, no --min-busbw (-1), budget 60 s.
 * FALCON_ERR_INVAL with a message for the user ("--budget: ..."), for
 * unknown options, missing values, extra operands, --partition without
 * --config.
 */
falcon_err_t nc_parse_args(int argc, char **argv, struct nc_opts *o);

/* nc_usage - the usage text to fp, prog as the program's name. */
void nc_usage(FILE *fp, const char *prog);

/*
 * nc_bdf_normalize - "00000000:3B:00.0" or "0000:3b:00.0" (as
 * cudaDeviceGetPCIBusId or nvidia-smi write it) into "0000:3b:00.0" in
 * out[16].  FALCON_ERR_PARSE when it is not a BDF.
 */
falcon_err_t nc_bdf_normalize(const char *in, char out[16]);

/*
 * nc_topo_class - the path class of the GPUs bdf_a and bdf_b in a topology
 * document (falconctl topo --json; COMMON schema: "gpus"[i]."bdf" and
 * "matrix"[i][j] = "F-F PIX"), written into out[NC_CLASS_LEN]; "unknown"
 * when topo (borrowed) is NULL or either BDF is not in it.
 */
void nc_topo_class(json_object *topo, const char *bdf_a, const char *bdf_b,
		   char out[NC_CLASS_LEN]);

/*
 * nc_topo_load - read and parse a topology JSON file (at most 4 MiB) into
 * *out (caller json_object_put()s it).  FALCON_ERR_NOTFOUND/IO/PARSE with the
 * path in the detail; a document without "gpus"/"matrix" arrays is PARSE.
 */
falcon_err_t nc_topo_load(const char *path, json_object **out);

/*
 * nc_class_floor - the floor for a pair class from its paper class prefix
 * ("F-F", "F-L", "L-L"); 0 for "unknown" or others.
 */
double nc_class_floor(const struct nc_floors *f, const char *cls);

/*
 * nc_floors_load - floors from the policy of partition (NULL = "DEFAULT";
 * falcon_conf_partition() falls back to DEFAULT and built-in defaults) in
 * falcon.conf (MinBusBW, MinP2PBW_FF/FL/LL) and its Check= into *check,
 * when config_path is non-NULL (else no floors, quick); then min_busbw >= 0
 * (the --min-busbw option) overrides MinBusBW.  Floors in GB/s, 0 = none.
 * Errors of falcon_conf_load()
 * (FALCON_ERR_NOTFOUND/IO/CONFIG, "FILE:LINE: KEY: ...") are passed on.
 */
falcon_err_t nc_floors_load(const char *config_path, const char *partition,
			    double min_busbw, struct nc_floors *f, falcon_check_t *check);

/* nc_result_init - an empty result (status pass, weakest none). */
void nc_result_init(struct nc_result *r, nc_level_t level, double budget_s);

/*
 * nc_verdict - compute busbw_peak/algbw_peak, weakest and, unless the
 * status is already fail/error/skipped (set by the glue for a runtime
 * failure), the status and reason:
 *   any wrong element                           -> fail
 *   value < NC_WARN_FRACTION * floor            -> fail
 *   NC_WARN_FRACTION * floor <= value < floor   -> warn
 *   a floor that nothing was measured against   -> warn
 *   otherwise                                   -> pass
 * value: busbw_peak for MinBusBW (not applicable with one rank: busbw is 0
 * by definition), bidir_gbs of each pair for its class floor.  With one
 * rank algbw_peak and the peak size are those of the out-of-place
 * all-reduce only: an in-place one on one rank is a no-op in NCCL (its
 * time is the launch, its algbw meaningless).
 */
void nc_verdict(struct nc_result *r, const struct nc_floors *f);

/*
 * nc_result_json - the JSON result (schema in doc/falcon-ncclcheck.1) as a
 * new json_object (*out, caller puts).  FALCON_ERR_NOMEM.
 */
falcon_err_t nc_result_json(const struct nc_result *r, json_object **out);

/*
 * nc_json_validate - check a JSON result against the schema: every key
 * present with its type.  FALCON_ERR_PARSE naming the first bad key.
 */
falcon_err_t nc_json_validate(json_object *doc);

/* nc_print_table - the nccl-tests-like tables of r to fp. */
void nc_print_table(FILE *fp, const struct nc_result *r);

#endif /* FALCON_NCCLCHECK_CORE_H */
