// SPDX-License-Identifier: LGPL-2.1-or-later
// body_force on the GPU (the same per-particle terms as the CPU, include/tide/body_force.h): one
// thread block per floating body, its threads striding over the block's particles with sums in
// double, then a tree reduction in shared memory; thread 0 writes the body's six sums.  (The
// order of the sums differs from the CPU's: the two agree to round-off, not bit for bit.)
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/block_interface.h"
#include "tide/codelets.h"
}
#include "tide/body_force.h"

#define BF_THREADS 256

__global__ static void body_force_kernel(float mass, tide_body_force_arg A, tide_block_view v,
                                         tide_body_sums *out)
{
	__shared__ double S[BF_THREADS][6];
	int j = blockIdx.x;
	double acc[6] = {0, 0, 0, 0, 0, 0};
	for (uint32_t i = threadIdx.x; i < v.count; i += BF_THREADS) {
		double f[6];
		if (tide_body_force_particle(&A, j, mass, &v, i, f))
			for (int q = 0; q < 6; q++) acc[q] += f[q];
	}
	for (int q = 0; q < 6; q++) S[threadIdx.x][q] = acc[q];
	__syncthreads();
	for (int s = BF_THREADS / 2; s > 0; s >>= 1) {
		if ((int)threadIdx.x < s)
			for (int q = 0; q < 6; q++) S[threadIdx.x][q] += S[threadIdx.x + s][q];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		for (int q = 0; q < 6; q++) out->s[j][q] = S[0][q];
}

extern "C" void tide_body_force_cuda(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_body_force_arg A;
	starpu_codelet_unpack_args(cl_arg, &P, &A);
	tide_block_view v = tide_block_view_of(buffers[0]);
	tide_body_sums *out = (tide_body_sums *)STARPU_VARIABLE_GET_PTR(buffers[1]);
	cudaStream_t st = starpu_cuda_get_local_stream();
	/* bodies without a thread block (none in the table) read zero */
	TIDE_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof *out, st));
	if (A.n == 0) return;
	body_force_kernel<<<A.n, BF_THREADS, 0, st>>>(P.mass[TIDE_BOUND], A, v, out);
	TIDE_CUDA_CHECK(cudaGetLastError());
}
