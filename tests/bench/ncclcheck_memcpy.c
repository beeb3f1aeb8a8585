/*
 * ncclcheck_memcpy.c - the baseline of tests/bench/ncclcheck: plain
 * cudaMemcpyAsync device-to-device bandwidth on one GPU at the given sizes,
 * timed like falcon-ncclcheck times an all-reduce (warm-up, then timed
 * iterations between CUDA events; GB/s = bytes / time, 1e9 bytes/s, the
 * nccl-tests algbw convention).  Usage: ncclcheck_memcpy DEVICE BYTES...
 * Prints "bytes time_us gbs" lines.  Exit 77 when no CUDA device.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#define CK(call) do {							\
	cudaError_t e_ = (call);					\
	if (e_ != cudaSuccess) {					\
		fprintf(stderr, "ncclcheck_memcpy: %s: %s (%s:%d)\n", #call, \
			cudaGetErrorString(e_), __FILE__, __LINE__);	\
		return 1;						\
	}								\
} while (0)

int main(int argc, char **argv)
{
	size_t bytes, max = 0;
	cudaEvent_t e0, e1;
	cudaStream_t s;
	void *src, *dst;
	int dev, n, i, k, warmup, iters;
	float ms;

	if (argc < 3) {
		fprintf(stderr, "usage: %s DEVICE BYTES...\n", argv[0]);
		return 2;
	}
	dev = atoi(argv[1]);
	if (cudaGetDeviceCount(&n) != cudaSuccess || n <= dev) {
		fprintf(stderr, "ncclcheck_memcpy: no CUDA device %d\n", dev);
		return 77;
	}
	for (i = 2; i < argc; i++) {
		bytes = strtoull(argv[i], NULL, 10);
		if (bytes > max)
			max = bytes;
	}
	CK(cudaSetDevice(dev));
	CK(cudaMalloc(&src, max));
	CK(cudaMalloc(&dst, max));
	CK(cudaMemset(src, 1, max));
	CK(cudaStreamCreate(&s));
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	for (i = 2; i < argc; i++) {
		bytes = strtoull(argv[i], NULL, 10);
		/* the iteration counts of falcon-ncclcheck (nc_iters) */
		warmup = bytes >= (256u << 20) ? 2 : bytes >= (64u << 20) ? 3 : 5;
		iters = bytes >= (256u << 20) ? 5 : bytes >= (64u << 20) ? 10 : 20;
		for (k = 0; k < warmup; k++)
			CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s));
		CK(cudaEventRecord(e0, s));
		for (k = 0; k < iters; k++)
			CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s));
		CK(cudaEventRecord(e1, s));
		CK(cudaEventSynchronize(e1));
		CK(cudaEventElapsedTime(&ms, e0, e1));
		printf("%zu %.2f %.2f\n", bytes, ms * 1000.0 / iters,
		       (double)bytes / (ms * 1e-3 / iters) / 1e9);
	}
	cudaFree(src);
	cudaFree(dst);
	return 0;
}
