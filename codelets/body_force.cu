// SPDX-License-Identifier: LGPL-2.1-or-later
// body_force on the GPU (the same per-particle terms as the CPU, include/tide/body_force.h): a
// grid of thread blocks per floating body strides over the block's particles (a body's particles
// are scattered through the cell-sorted block, so every particle's id is looked at), each thread
// block sums its threads in shared memory into a partial in stream-ordered scratch memory, and a
// second kernel adds a body's partials in a fixed order: deterministic, and the particles are
// read by the whole GPU (one thread block per body took 22 ms at 12.9 M particles).  (The order
// of the sums differs from the CPU's: the two agree to round-off, not bit for bit.)
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/block_interface.h"
#include "tide/codelets.h"
}
#include "tide/body_force.h"

#define BF_THREADS 256
#define BF_PARTIALS 1024 /* thread blocks per body at most (4 per SM of an H200 and then some) */

/* The six sums of this thread block's threads in shared memory, reduced in a fixed tree. */
__device__ static void bf_block_sum(double (*S)[6], double acc[6], double *dst)
{
	for (int q = 0; q < 6; q++) S[threadIdx.x][q] = acc[q];
	__syncthreads();
	for (int s = BF_THREADS / 2; s > 0; s >>= 1) {
		if ((int)threadIdx.x < s)
			for (int q = 0; q < 6; q++) S[threadIdx.x][q] += S[threadIdx.x + s][q];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		for (int q = 0; q < 6; q++) dst[q] = S[0][q];
}

/* Body blockIdx.y, particles i = blockIdx.x * BF_THREADS + threadIdx.x + k gridDim.x BF_THREADS:
 * its thread block's partial into part[(body * gridDim.x + blockIdx.x) * 6 ..]. */
__global__ static void body_force_partial(float mass, tide_body_force_arg A, tide_block_view v,
                                          double *part)
{
	__shared__ double S[BF_THREADS][6];
	int j = blockIdx.y;
	double acc[6] = {0, 0, 0, 0, 0, 0};
	for (uint32_t i = blockIdx.x * BF_THREADS + threadIdx.x; i < v.count;
	     i += gridDim.x * BF_THREADS) {
		double f[6];
		if (tide_body_force_particle(&A, j, mass, &v, i, f))
			for (int q = 0; q < 6; q++) acc[q] += f[q];
	}
	bf_block_sum(S, acc, part + ((size_t)j * gridDim.x + blockIdx.x) * 6);
}

/* Body blockIdx.x: its np partials added in a fixed order into out. */
__global__ static void body_force_total(const double *part, int np, tide_body_sums *out)
{
	__shared__ double S[BF_THREADS][6];
	int j = blockIdx.x;
	double acc[6] = {0, 0, 0, 0, 0, 0};
	for (int b = threadIdx.x; b < np; b += BF_THREADS)
		for (int q = 0; q < 6; q++) acc[q] += part[((size_t)j * np + b) * 6 + q];
	bf_block_sum(S, acc, out->s[j]);
}

extern "C" void tide_body_force_cuda(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_body_force_arg A;
	starpu_codelet_unpack_args(cl_arg, &P, &A, 0);
	tide_block_view v = tide_block_view_of(buffers[0]);
	tide_body_sums *out = (tide_body_sums *)STARPU_VARIABLE_GET_PTR(buffers[1]);
	cudaStream_t st = starpu_cuda_get_local_stream();
	/* bodies without a thread block (none in the table) read zero */
	TIDE_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof *out, st));
	if (A.n == 0) return;
	int np = (int)((v.count + BF_THREADS - 1) / BF_THREADS);
	if (np > BF_PARTIALS) np = BF_PARTIALS;
	if (np < 1) np = 1;
	double *part = NULL;
	TIDE_CUDA_CHECK(cudaMallocAsync((void **)&part, sizeof(double) * 6 * (size_t)np * (size_t)A.n, st));
	body_force_partial<<<dim3((unsigned)np, (unsigned)A.n), BF_THREADS, 0, st>>>(P.mass[TIDE_BOUND], A, v, part);
	TIDE_CUDA_CHECK(cudaGetLastError());
	body_force_total<<<A.n, BF_THREADS, 0, st>>>(part, np, out);
	TIDE_CUDA_CHECK(cudaGetLastError());
	TIDE_CUDA_CHECK(cudaFreeAsync(part, st));
}
