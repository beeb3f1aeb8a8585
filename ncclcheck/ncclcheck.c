/*
 * ncclcheck.c - falcon-ncclcheck(1): the NCCL sanity benchmark run by
 * falcon-prolog before a job starts.  CUDA runtime + NCCL glue around
 * ncclcheck/ncclcheck_core.c; no kernels, so no nvcc: buffers are filled and
 * checked on the host.
 *
 * NCCL is loaded with dlopen() so that a node without libnccl reports
 * "skipped" instead of failing to start; the CUDA runtime is linked
 * (configure's CUDA_LIBS) and reports a missing driver itself.
 *
 * The measurement runs in a worker thread; the main thread waits at most the
 * budget (plus NC_GRACE_S for the last step) and, when the worker is stuck in
 * CUDA or NCCL (a hung link), reports what was measured as "fail" and exits.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
/* nccl.h declares a few functions with "()" */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <nccl.h>
#pragma GCC diagnostic pop

#include "core/log.h"
#include "ncclcheck_core.h"
#include "core/util.h"

#ifndef NC_NCCL_LIBS
#define NC_NCCL_LIBS ""         /* configure's NCCL_LIBS: "-L/usr/local/cuda/lib64 ..." */
#endif

#define NC_GRACE_S 5             /* the worker's last step may overrun by this */
#define NC_P2P_BYTES ((size_t)64 << 20)  /* per direction, per copy */
#define NC_P2P_REPEAT 5          /* copies per direction, as in p2pBandwidthLatencyTest */
#define NC_LAT_REPEAT 100        /* 4-byte writes timed for the latency */

/* NCCL entry points, resolved with dlsym(). */
struct nccl_api {
	void *dl;
	ncclResult_t (*GetVersion)(int *);
	ncclResult_t (*CommInitAll)(ncclComm_t *, int, const int *);
	ncclResult_t (*CommDestroy)(ncclComm_t);
	ncclResult_t (*AllReduce)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t,
				  ncclComm_t, cudaStream_t);
	ncclResult_t (*GroupStart)(void);
	ncclResult_t (*GroupEnd)(void);
	const char *(*GetErrorString)(ncclResult_t);
};

struct ctx {
	struct nc_opts opts;
	struct nc_floors floors;
	json_object *topo;
	struct nccl_api nccl;
	int n;                              /* ranks */
	int dev[NC_MAX_GPUS];
	ncclComm_t comm[NC_MAX_GPUS];
	cudaStream_t stream[NC_MAX_GPUS];
	cudaEvent_t ev0[NC_MAX_GPUS], ev1[NC_MAX_GPUS];
	float *send[NC_MAX_GPUS], *recv[NC_MAX_GPUS];
	float *host;                        /* staging, max_bytes */
	bool host_pinned;
	size_t max_bytes;
	long long t0_ms;                    /* program start (falcon_now_ms) */
	/* shared with the main thread */
	pthread_mutex_t lock;
	pthread_cond_t done_cv;
	bool done;
	const char *phase;                  /* what the worker is doing */
	struct nc_result res;
};

static double elapsed_s(const struct ctx *c)
{
	return (double)(falcon_now_ms() - c->t0_ms) / 1000.0;
}

/* in_budget - whether the next measurement fits c's budget
 * (nc_budget_allows: the last one took last_s for last_bytes, the next moves
 * next_bytes); *t = the seconds elapsed so far.  When it does not fit, the
 * result is marked truncated. */
static bool in_budget(struct ctx *c, double last_s, double last_bytes, double next_bytes,
		      double *t)
{
	*t = elapsed_s(c);
	if (nc_budget_allows(*t, c->opts.budget_s, last_s, last_bytes, next_bytes))
		return true;
	pthread_mutex_lock(&c->lock);
	c->res.truncated = true;
	pthread_mutex_unlock(&c->lock);
	return false;
}

static void set_phase(struct ctx *c, const char *phase)
{
	pthread_mutex_lock(&c->lock);
	c->phase = phase;
	pthread_mutex_unlock(&c->lock);
}

/* Record a terminal status with its reason (first one wins). */
static void set_status(struct ctx *c, nc_status_t st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void set_status(struct ctx *c, nc_status_t st, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&c->lock);
	if (c->res.status == NC_STATUS_PASS || c->res.status == NC_STATUS_WARN) {
		c->res.status = st;
		va_start(ap, fmt);
		vsnprintf(c->res.reason, sizeof(c->res.reason), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&c->lock);
}

/* CUDA/NCCL failures after the devices were found mean the GPUs do not work:
 * status fail, naming the call and where. */
#define CUDACHECK(c, call) do {						\
	cudaError_t e_ = (call);					\
	if (e_ != cudaSuccess) {					\
		set_status((c), NC_STATUS_FAIL, "%s: %s (%s:%d)", #call,	\
			   cudaGetErrorString(e_), __FILE__, __LINE__);	\
		goto fail;						\
	}								\
} while (0)
#define NCCLCHECK(c, call) do {						\
	ncclResult_t r_ = (call);					\
	if (r_ != ncclSuccess) {					\
		set_status((c), NC_STATUS_FAIL, "%s: %s (%s:%d)", #call,	\
			   (c)->nccl.GetErrorString(r_), __FILE__, __LINE__); \
		goto fail;						\
	}								\
} while (0)

/* dlopen libnccl.so.2 (the dynamic loader's path, then the -L directory of
 * configure's NCCL_LIBS); 0, or -1 with the dlerror() text in msg. */
static int nccl_load(struct nccl_api *api, char *msg, size_t n)
{
	const char *err, *l = strstr(NC_NCCL_LIBS, "-L");
	char path[4096];
	size_t len;

	api->dl = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
	if (api->dl == NULL && l != NULL) {
		l += 2;
		len = strcspn(l, " \t");
		snprintf(path, sizeof(path), "%.*s/libnccl.so.2", (int)len, l);
		api->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	}
	if (api->dl == NULL) {
		err = dlerror();
		snprintf(msg, n, "%s", err ? err : "libnccl.so.2 not found");
		return -1;
	}
#define SYM(f) do {							\
	*(void **)&api->f = dlsym(api->dl, "nccl" #f);			\
	if (api->f == NULL) {						\
		snprintf(msg, n, "libnccl.so.2 has no nccl" #f);	\
		return -1;						\
	}								\
} while (0)
	SYM(GetVersion);
	SYM(CommInitAll);
	SYM(CommDestroy);
	SYM(AllReduce);
	SYM(GroupStart);
	SYM(GroupEnd);
	SYM(GetErrorString);
#undef SYM
	return 0;
}

/* One all-reduce on every rank, in a group (single process, several GPUs). */
static int allreduce_once(struct ctx *c, size_t count, bool inplace)
{
	int r, rv = -1;

	NCCLCHECK(c, c->nccl.GroupStart());
	for (r = 0; r < c->n; r++)
		NCCLCHECK(c, c->nccl.AllReduce(c->send[r], inplace ? c->send[r] : c->recv[r],
					       count, ncclFloat, ncclSum, c->comm[r], c->stream[r]));
	NCCLCHECK(c, c->nccl.GroupEnd());
	rv = 0;
fail:
	return rv;
}

static int sync_all(struct ctx *c)
{
	int r, rv = -1;

	for (r = 0; r < c->n; r++) {
		CUDACHECK(c, cudaSetDevice(c->dev[r]));
		CUDACHECK(c, cudaStreamSynchronize(c->stream[r]));
	}
	rv = 0;
fail:
	return rv;
}

/* Fill every rank's input, run once, count the wrong result elements. */
static int allreduce_check(struct ctx *c, size_t count, bool inplace, long long *wrong)
{
	size_t bytes = count * sizeof(float);
	int r, rv = -1;

	for (r = 0; r < c->n; r++) {
		nc_fill(c->host, count, r);
		CUDACHECK(c, cudaSetDevice(c->dev[r]));
		CUDACHECK(c, cudaMemcpy(c->send[r], c->host, bytes, cudaMemcpyHostToDevice));
		if (!inplace)
			CUDACHECK(c, cudaMemset(c->recv[r], 0, bytes));
	}
	if (allreduce_once(c, count, inplace) != 0 || sync_all(c) != 0)
		goto fail;
	*wrong = 0;
	for (r = 0; r < c->n; r++) {
		CUDACHECK(c, cudaSetDevice(c->dev[r]));
		CUDACHECK(c, cudaMemcpy(c->host, inplace ? c->send[r] : c->recv[r], bytes,
					cudaMemcpyDeviceToHost));
		*wrong += nc_count_wrong(c->host, count, c->n);
	}
	rv = 0;
fail:
	return rv;
}

/* Warm-up, then timed iterations between CUDA events on every rank's stream;
 * the slowest rank's mean time per operation in microseconds. */
static int allreduce_time(struct ctx *c, size_t count, bool inplace, double *time_us)
{
	int warmup, iters, i, r, rv = -1;
	float ms, worst = 0;

	nc_iters(count * sizeof(float), &warmup, &iters);
	for (i = 0; i < warmup; i++)
		if (allreduce_once(c, count, inplace) != 0)
			goto fail;
	if (sync_all(c) != 0)
		goto fail;
	for (r = 0; r < c->n; r++) {
		CUDACHECK(c, cudaSetDevice(c->dev[r]));
		CUDACHECK(c, cudaEventRecord(c->ev0[r], c->stream[r]));
	}
	for (i = 0; i < iters; i++)
		if (allreduce_once(c, count, inplace) != 0)
			goto fail;
	for (r = 0; r < c->n; r++) {
		CUDACHECK(c, cudaSetDevice(c->dev[r]));
		CUDACHECK(c, cudaEventRecord(c->ev1[r], c->stream[r]));
	}
	for (r = 0; r < c->n; r++) {
		CUDACHECK(c, cudaEventSynchronize(c->ev1[r]));
		CUDACHECK(c, cudaEventElapsedTime(&ms, c->ev0[r], c->ev1[r]));
		if (ms > worst)
			worst = ms;
	}
	*time_us = (double)worst * 1000.0 / iters;
	rv = 0;
fail:
	return rv;
}

static int measure_one(struct ctx *c, size_t count, bool inplace, struct nc_perf *p)
{
	if (allreduce_check(c, count, inplace, &p->wrong) != 0 ||
	    allreduce_time(c, count, inplace, &p->time_us) != 0)
		return -1;
	p->algbw = nc_algbw(count * sizeof(float), p->time_us);
	p->busbw = nc_busbw_allreduce(p->algbw, c->n);
	return 0;
}

static int allreduce_sweep(struct ctx *c)
{
	size_t sizes[NC_MAX_SIZES], nsizes = 0, i;
	double last_s = 0, last_bytes = 0, t;
	struct nc_ar_row row;

	if (nc_sweep(c->opts.level, sizes, NC_MAX_SIZES, &nsizes) != FALCON_OK)
		return -1;
	set_phase(c, "all-reduce");
	for (i = 0; i < nsizes; i++) {
		if (!in_budget(c, last_s, last_bytes, (double)sizes[i], &t))
			break;
		memset(&row, 0, sizeof(row));
		row.bytes = sizes[i];
		row.count = sizes[i] / sizeof(float);
		if (measure_one(c, row.count, false, &row.oop) != 0 ||
		    measure_one(c, row.count, true, &row.ip) != 0)
			return -1;
		pthread_mutex_lock(&c->lock);
		c->res.ar[c->res.nar++] = row;
		pthread_mutex_unlock(&c->lock);
		last_s = elapsed_s(c) - t;
		last_bytes = (double)sizes[i];
	}
	return 0;
}

/* One direction of rank r's host<->device copy bandwidth, the way CUDA
 * samples' bandwidthTest measures it (--memory=pinned): back-to-back
 * cudaMemcpyAsync of pinned host memory on one stream between two CUDA
 * events, bytes * copies / 1e9 / seconds.  After one warm-up copy,
 * NC_HD_BATCHES such batches of NC_HD_COPIES; the median batch, so that one
 * disturbed batch neither lowers the figure (a mean would) nor one lucky
 * batch raises it (a best would). */
static int hd_copy(struct ctx *c, int r, bool h2d, size_t bytes, double *gbs)
{
	double v[NC_HD_BATCHES];
	void *dst = h2d ? (void *)c->send[r] : (void *)c->host;
	const void *src = h2d ? (const void *)c->host : (const void *)c->send[r];
	enum cudaMemcpyKind kind = h2d ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
	int b, k, rv = -1;
	float ms;

	CUDACHECK(c, cudaSetDevice(c->dev[r]));
	CUDACHECK(c, cudaMemcpyAsync(dst, src, bytes, kind, c->stream[r]));
	for (b = 0; b < NC_HD_BATCHES; b++) {
		CUDACHECK(c, cudaEventRecord(c->ev0[r], c->stream[r]));
		for (k = 0; k < NC_HD_COPIES; k++)
			CUDACHECK(c, cudaMemcpyAsync(dst, src, bytes, kind, c->stream[r]));
		CUDACHECK(c, cudaEventRecord(c->ev1[r], c->stream[r]));
		CUDACHECK(c, cudaEventSynchronize(c->ev1[r]));
		CUDACHECK(c, cudaEventElapsedTime(&ms, c->ev0[r], c->ev1[r]));
		v[b] = nc_hd_gbs(bytes, NC_HD_COPIES, (double)ms);
	}
	*gbs = nc_median(v, NC_HD_BATCHES);
	rv = 0;
fail:
	return rv;
}

/* H2D and D2H bandwidth of every GPU, one GPU at a time (each alone on its
 * link, before NCCL's traffic).  Needs the pinned staging buffer: with
 * pageable memory a copy is staged by the driver and says little about the
 * link, so nothing is measured then. */
static int hostdev(struct ctx *c)
{
	size_t bytes = NC_HD_BYTES < c->max_bytes ? NC_HD_BYTES : c->max_bytes;
	double last_s = 0, t, h2d = 0, d2h = 0;
	int r;

	if (!c->host_pinned) {
		falcon_verbose("no pinned host memory: host<->device bandwidth not measured");
		return 0;
	}
	set_phase(c, "host-device copies");
	for (r = 0; r < c->n; r++) {
		if (!in_budget(c, last_s, 1, 1, &t))
			return 0;
		if (hd_copy(c, r, true, bytes, &h2d) != 0 || hd_copy(c, r, false, bytes, &d2h) != 0)
			return -1;
		pthread_mutex_lock(&c->lock);
		c->res.gpus[r].h2d_gbs = h2d;
		c->res.gpus[r].d2h_gbs = d2h;
		c->res.hostdev_bytes = bytes;
		pthread_mutex_unlock(&c->lock);
		last_s = elapsed_s(c) - t;
	}
	return 0;
}

/* Enable peer access from dev to peer; already enabled is fine. */
static int enable_peer(struct ctx *c, int dev, int peer)
{
	cudaError_t e;
	int rv = -1;

	CUDACHECK(c, cudaSetDevice(dev));
	e = cudaDeviceEnablePeerAccess(peer, 0);
	if (e == cudaErrorPeerAccessAlreadyEnabled)
		(void)cudaGetLastError();
	else
		CUDACHECK(c, e);
	rv = 0;
fail:
	return rv;
}

/* Mean time of NC_LAT_REPEAT 4-byte writes from device ra into rb's memory:
 * a memset issued on ra to a peer pointer when P2P access is on (a P2P
 * write), a 4-byte cudaMemcpyPeerAsync otherwise (or when the memset of
 * peer memory is refused). */
static int p2p_latency(struct ctx *c, int ra, int rb, bool access, double *us)
{
	float ms;
	int k, rv = -1;

	CUDACHECK(c, cudaSetDevice(c->dev[ra]));
	if (access && cudaMemsetAsync(c->recv[rb], 0, 4, c->stream[ra]) != cudaSuccess) {
		/* a runtime that refuses a memset of peer memory: staged copies */
		(void)cudaGetLastError();
		access = false;
	}
	CUDACHECK(c, cudaEventRecord(c->ev0[ra], c->stream[ra]));
	for (k = 0; k < NC_LAT_REPEAT; k++) {
		if (access)
			CUDACHECK(c, cudaMemsetAsync(c->recv[rb], k & 0xff, 4, c->stream[ra]));
		else
			CUDACHECK(c, cudaMemcpyPeerAsync(c->recv[rb], c->dev[rb], c->send[ra],
							 c->dev[ra], 4, c->stream[ra]));
	}
	CUDACHECK(c, cudaEventRecord(c->ev1[ra], c->stream[ra]));
	CUDACHECK(c, cudaEventSynchronize(c->ev1[ra]));
	CUDACHECK(c, cudaEventElapsedTime(&ms, c->ev0[ra], c->ev1[ra]));
	*us = (double)ms * 1000.0 / NC_LAT_REPEAT;
	rv = 0;
fail:
	return rv;
}

/* Bidirectional copy bandwidth of one pair: both directions at once, on
 * each device's stream, between events on ra's stream. */
static int p2p_pair(struct ctx *c, int ra, int rb, struct nc_p2p_row *p)
{
	size_t bytes = NC_P2P_BYTES < c->max_bytes ? NC_P2P_BYTES : c->max_bytes;
	int a = c->dev[ra], b = c->dev[rb], can_ab = 0, can_ba = 0, k, pass, rv = -1;
	double lat_ab, lat_ba;
	float ms = 0;

	CUDACHECK(c, cudaDeviceCanAccessPeer(&can_ab, a, b));
	CUDACHECK(c, cudaDeviceCanAccessPeer(&can_ba, b, a));
	p->p2p_access = can_ab && can_ba;
	if (p->p2p_access && (enable_peer(c, a, b) != 0 || enable_peer(c, b, a) != 0))
		goto fail;
	for (pass = 0; pass < 2; pass++) {    /* pass 0 warms up with one copy */
		int reps = pass == 0 ? 1 : NC_P2P_REPEAT;

		CUDACHECK(c, cudaSetDevice(a));
		CUDACHECK(c, cudaEventRecord(c->ev0[ra], c->stream[ra]));
		CUDACHECK(c, cudaSetDevice(b));
		CUDACHECK(c, cudaStreamWaitEvent(c->stream[rb], c->ev0[ra], 0));
		for (k = 0; k < reps; k++) {
			CUDACHECK(c, cudaMemcpyPeerAsync(c->recv[rb], b, c->send[ra], a, bytes,
							 c->stream[ra]));
			CUDACHECK(c, cudaMemcpyPeerAsync(c->recv[ra], a, c->send[rb], b, bytes,
							 c->stream[rb]));
		}
		CUDACHECK(c, cudaEventRecord(c->ev1[rb], c->stream[rb]));
		CUDACHECK(c, cudaSetDevice(a));
		CUDACHECK(c, cudaStreamWaitEvent(c->stream[ra], c->ev1[rb], 0));
		CUDACHECK(c, cudaEventRecord(c->ev1[ra], c->stream[ra]));
		CUDACHECK(c, cudaEventSynchronize(c->ev1[ra]));
		CUDACHECK(c, cudaEventElapsedTime(&ms, c->ev0[ra], c->ev1[ra]));
		if (pass == 1)
			p->bidir_gbs = nc_p2p_gbs(2.0 * (double)bytes * reps, (double)ms * 1000.0);
	}
	if (p2p_latency(c, ra, rb, p->p2p_access, &lat_ab) != 0 ||
	    p2p_latency(c, rb, ra, p->p2p_access, &lat_ba) != 0)
		goto fail;
	p->latency_us = (lat_ab + lat_ba) / 2;
	rv = 0;
fail:
	return rv;
}

static int p2p_matrix(struct ctx *c)
{
	double last_s = 0, t;
	struct nc_p2p_row row;
	int ra, rb;

	set_phase(c, "P2P matrix");
	for (ra = 0; ra < c->n; ra++) {
		for (rb = ra + 1; rb < c->n; rb++) {
			if (!in_budget(c, last_s, 1, 1, &t))
				return 0;
			memset(&row, 0, sizeof(row));
			row.a = c->dev[ra];
			row.b = c->dev[rb];
			nc_topo_class(c->topo, c->res.gpus[ra].bdf, c->res.gpus[rb].bdf, row.cls);
			if (p2p_pair(c, ra, rb, &row) != 0)
				return -1;
			pthread_mutex_lock(&c->lock);
			c->res.p2p[c->res.np2p++] = row;
			pthread_mutex_unlock(&c->lock);
			last_s = elapsed_s(c) - t;
		}
	}
	return 0;
}

static int setup(struct ctx *c)
{
	struct cudaDeviceProp prop;
	char bdf[32];
	int r, rv = -1;

	for (r = 0; r < c->n; r++) {
		struct nc_gpu *g = &c->res.gpus[r];

		g->index = c->dev[r];
		CUDACHECK(c, cudaGetDeviceProperties(&prop, c->dev[r]));
		snprintf(g->name, sizeof(g->name), "%.63s", prop.name);
		CUDACHECK(c, cudaDeviceGetPCIBusId(bdf, sizeof(bdf), c->dev[r]));
		if (nc_bdf_normalize(bdf, g->bdf) != FALCON_OK)
			snprintf(g->bdf, sizeof(g->bdf), "unknown");
		CUDACHECK(c, cudaSetDevice(c->dev[r]));
		CUDACHECK(c, cudaStreamCreateWithFlags(&c->stream[r], cudaStreamNonBlocking));
		CUDACHECK(c, cudaEventCreate(&c->ev0[r]));
		CUDACHECK(c, cudaEventCreate(&c->ev1[r]));
		CUDACHECK(c, cudaMalloc((void **)&c->send[r], c->max_bytes));
		CUDACHECK(c, cudaMalloc((void **)&c->recv[r], c->max_bytes));
	}
	c->res.ngpus = c->n;
	if (cudaMallocHost((void **)&c->host, c->max_bytes) == cudaSuccess) {
		c->host_pinned = true;
	} else {
		(void)cudaGetLastError();
		c->host = malloc(c->max_bytes);
		if (c->host == NULL) {
			set_status(c, NC_STATUS_ERROR, "out of host memory (%zu bytes)", c->max_bytes);
			goto fail;
		}
	}
	set_phase(c, "ncclCommInitAll");
	NCCLCHECK(c, c->nccl.CommInitAll(c->comm, c->n, c->dev));
	rv = 0;
fail:
	return rv;
}

static void teardown(struct ctx *c)
{
	int r;

	for (r = 0; r < c->n; r++) {
		if (c->comm[r] != NULL)
			c->nccl.CommDestroy(c->comm[r]);
		cudaSetDevice(c->dev[r]);
		cudaFree(c->send[r]);
		cudaFree(c->recv[r]);
		if (c->ev0[r] != NULL)
			cudaEventDestroy(c->ev0[r]);
		if (c->ev1[r] != NULL)
			cudaEventDestroy(c->ev1[r]);
		if (c->stream[r] != NULL)
			cudaStreamDestroy(c->stream[r]);
	}
	if (c->host_pinned)
		cudaFreeHost(c->host);
	else
		free(c->host);
	c->host = NULL;
}

static void *worker(void *arg)
{
	struct ctx *c = arg;

	if (setup(c) == 0 && hostdev(c) == 0 && allreduce_sweep(c) == 0)
		(void)p2p_matrix(c);
	set_phase(c, "teardown");
	teardown(c);
	pthread_mutex_lock(&c->lock);
	c->done = true;
	pthread_cond_signal(&c->done_cv);
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* Which devices: probe the runtime and NCCL.  0 to go on, 1 when the result
 * is final (skipped or fail) already. */
static int probe(struct ctx *c)
{
	char msg[512];
	cudaError_t e;
	int count = 0, i, ver = 0;

	set_phase(c, "cudaGetDeviceCount");
	e = cudaGetDeviceCount(&count);
	if (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice || (e == cudaSuccess && count == 0)) {
		if (c->opts.ngpus > 0 && e != cudaErrorInsufficientDriver) {
			set_status(c, NC_STATUS_FAIL, "--gpus names devices but CUDA sees none (%s)",
				   e == cudaSuccess ? "0 devices" : cudaGetErrorString(e));
			return 1;
		}
		set_status(c, NC_STATUS_SKIPPED, "%s on this host (cudaGetDeviceCount: %s)",
			   e == cudaErrorInsufficientDriver ? "no usable CUDA driver" : "no CUDA device",
			   e == cudaSuccess ? "0 devices" : cudaGetErrorString(e));
		return 1;
	}
	if (e != cudaSuccess) {
		set_status(c, NC_STATUS_FAIL, "cudaGetDeviceCount: %s", cudaGetErrorString(e));
		return 1;
	}
	if (c->opts.ngpus == 0) {
		c->n = count < NC_MAX_GPUS ? count : NC_MAX_GPUS;
		for (i = 0; i < c->n; i++)
			c->dev[i] = i;
	} else {
		c->n = c->opts.ngpus;
		for (i = 0; i < c->n; i++) {
			if (c->opts.gpus[i] >= count) {
				set_status(c, NC_STATUS_FAIL, "--gpus: device %d is not visible "
					   "(CUDA sees %d device(s))", c->opts.gpus[i], count);
				return 1;
			}
			c->dev[i] = c->opts.gpus[i];
		}
	}
	if (nccl_load(&c->nccl, msg, sizeof(msg)) != 0) {
		set_status(c, NC_STATUS_SKIPPED, "NCCL not available at run time: %s", msg);
		return 1;
	}
	if (c->nccl.GetVersion(&ver) == ncclSuccess)
		falcon_verbose("NCCL version code %d", ver);
	return 0;
}

/* Run the worker, waiting at most budget + NC_GRACE_S; 0 when it finished,
 * -1 when it is still stuck (the result then is a copy taken under lock). */
static int run_bounded(struct ctx *c)
{
	struct timespec ts;
	pthread_t th;
	double limit = c->opts.budget_s + NC_GRACE_S - elapsed_s(c);
	int rc = 0;

	if (pthread_create(&th, NULL, worker, c) != 0) {
		set_status(c, NC_STATUS_ERROR, "pthread_create: %s", strerror(errno));
		return 0;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	if (limit < 1)
		limit = 1;
	ts.tv_sec += (time_t)limit;
	ts.tv_nsec += (long)((limit - floor(limit)) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&c->lock);
	while (!c->done && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&c->done_cv, &c->lock, &ts);
	if (!c->done) {
		if (c->res.status == NC_STATUS_PASS || c->res.status == NC_STATUS_WARN) {
			c->res.status = NC_STATUS_FAIL;
			snprintf(c->res.reason, sizeof(c->res.reason),
				 "stuck in %s past the %.0f s budget (+%d s grace)", c->phase,
				 c->opts.budget_s, NC_GRACE_S);
		}
		c->res.truncated = true;
		pthread_mutex_unlock(&c->lock);
		return -1;          /* the thread stays stuck; we exit without it */
	}
	pthread_mutex_unlock(&c->lock);
	pthread_join(th, NULL);
	return 0;
}

static int write_json(const struct ctx *c, const struct nc_result *r)
{
	json_object *doc = NULL;
	const char *s;
	int rv = -1;

	if (nc_result_json(r, &doc) != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		goto fail;
	}
	s = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY);
	if (strcmp(c->opts.json_path, "-") == 0) {
		printf("%s\n", s);
	} else if (falcon_write_file_atomic(c->opts.json_path, s, strlen(s), 0644) != FALCON_OK) {
		falcon_error("--json: %s", falcon_errmsg());
		goto fail;
	}
	rv = 0;
fail:
	json_object_put(doc);
	return rv;
}

int main(int argc, char **argv)
{
	static struct ctx c;    /* big (the result holds every pair): not on the stack */
	falcon_check_t check = FALCON_CHECK_QUICK;
	const char *part;
	int stuck = 0, code;
	FILE *table;
	falcon_err_t err;

	c.t0_ms = falcon_now_ms();
	falcon_log_init("falcon-ncclcheck");
	falcon_log_add_sink(falcon_log_sink_stderr, FALCON_LOG_INFO, NULL);
	pthread_mutex_init(&c.lock, NULL);
	pthread_cond_init(&c.done_cv, NULL);
	c.phase = "start";

	err = nc_parse_args(argc, argv, &c.opts);
	if (err != FALCON_OK) {
		falcon_error("%s", falcon_errmsg());
		fprintf(stderr, "Try '%s --help'.\n", argv[0]);
		return NC_EXIT_ERROR;
	}
	if (c.opts.help) {
		nc_usage(stdout, argv[0]);
		return NC_EXIT_PASS;
	}
	if (c.opts.version) {
		printf("falcon-ncclcheck (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION);
		return NC_EXIT_PASS;
	}
	/* --gpus indices and topology.json's cuda_visible_devices count GPUs in
	 * PCI bus order; keep a caller's explicit choice. */
	setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 0);
	nc_result_init(&c.res, c.opts.level, c.opts.budget_s);

	part = c.opts.partition;
	if (part == NULL && c.opts.config_path != NULL)
		part = getenv("SLURM_JOB_PARTITION");
	err = nc_floors_load(c.opts.config_path, part, c.opts.min_busbw, &c.floors, &check);
	if (err == FALCON_OK && c.opts.topology_path != NULL)
		err = nc_topo_load(c.opts.topology_path, &c.topo);
	if (err == FALCON_OK && !c.opts.level_set && c.opts.config_path != NULL) {
		/* no --level: the partition's Check= decides */
		c.opts.level = check == FALCON_CHECK_FULL ? NC_LEVEL_FULL : NC_LEVEL_QUICK;
		c.res.level = c.opts.level;
	}
	if (err != FALCON_OK) {
		set_status(&c, NC_STATUS_ERROR, "%s", falcon_errmsg());
	} else if (!c.opts.level_set && check == FALCON_CHECK_OFF) {
		set_status(&c, NC_STATUS_SKIPPED, "Check=off for partition %s in %s",
			   part ? part : "DEFAULT", c.opts.config_path);
	} else if (probe(&c) == 0) {
		c.max_bytes = c.opts.level == NC_LEVEL_FULL ? (size_t)1 << 30 : (size_t)256 << 20;
		stuck = run_bounded(&c) != 0;
	}

	pthread_mutex_lock(&c.lock);
	{
		static struct nc_result r;  /* a copy: a stuck worker may still hold c.res */

		r = c.res;
		pthread_mutex_unlock(&c.lock);
		r.elapsed_s = elapsed_s(&c);
		nc_verdict(&r, &c.floors);
		if (r.status == NC_STATUS_SKIPPED)
			falcon_info("skipped: %s", r.reason);
		else if (r.status == NC_STATUS_ERROR || r.status == NC_STATUS_FAIL)
			falcon_error("%s: %s", nc_status_str(r.status), r.reason);
		table = c.opts.json_path && strcmp(c.opts.json_path, "-") == 0 ? stderr : stdout;
		if (!c.opts.quiet)
			nc_print_table(table, &r);
		code = nc_status_exit(r.status);
		if (c.opts.json_path != NULL && write_json(&c, &r) != 0)
			code = NC_EXIT_ERROR;
	}
	fflush(stdout);
	fflush(stderr);
	json_object_put(c.topo);
	if (stuck)
		_exit(code);
	if (c.nccl.dl != NULL)
		dlclose(c.nccl.dl);
	return code;
}
