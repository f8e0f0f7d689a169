// SPDX-License-Identifier: LGPL-2.1-or-later
// sink_gravity on the GPU: one thread per particle adds the sinks' pull (the time-step limit
// reduced per thread block, then one atomic into the worker's copy of the reduction, as
// sgrav_apply.cu); then one thread block per sink sums the gas's pull on it over the particles
// in double, in a fixed order (strided per thread, then a tree in shared memory).
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/block_interface.h"
#include "tide/codelets.h"
}
#include "tide/sink.h"

#define TPB 256

__global__ static void pull_kernel(tide_sph_params P, tide_sink_set S, tide_block_view v,
                                   tide_step_reduce *red)
{
	__shared__ float s_dt;
	if (threadIdx.x == 0) s_dt = S.dt_max;
	__syncthreads();
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < v.count) atomic_min_pos(&s_dt, tide_sink_gravity_one(&P, &S, &v, i));
	__syncthreads();
	if (threadIdx.x == 0) atomic_min_pos(&red->dt, s_dt);
}

__global__ static void force_kernel(tide_sph_params P, tide_sink_set S, tide_block_view v,
                                    tide_sink_force *F)
{
	__shared__ double sf[3][TPB];
	int s = blockIdx.x;
	double acc[3] = {0, 0, 0};
	for (uint32_t i = threadIdx.x; i < v.count; i += TPB) {
		if (v.type[i] != TIDE_FLUID) continue;
		double f[3];
		tide_sink_force_on(&S, s, &v, i, tide_sink_mass_of(&P, &v, i), f);
		for (int k = 0; k < 3; k++) acc[k] += f[k];
	}
	for (int k = 0; k < 3; k++) sf[k][threadIdx.x] = acc[k];
	__syncthreads();
	for (int w = TPB / 2; w > 0; w /= 2) {
		if ((int)threadIdx.x < w)
			for (int k = 0; k < 3; k++) sf[k][threadIdx.x] += sf[k][threadIdx.x + w];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		for (int k = 0; k < 3; k++) F->f[s][k] = sf[k][0];
}

extern "C" void tide_sink_gravity_cuda(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_sink_set S;
	starpu_codelet_unpack_args(cl_arg, &P, &S, 0);
	tide_block_view v = tide_block_view_of(buffers[0]);
	tide_sink_force *F = (tide_sink_force *)STARPU_VARIABLE_GET_PTR(buffers[1]);
	tide_step_reduce *red = (tide_step_reduce *)STARPU_VARIABLE_GET_PTR(buffers[2]);
	cudaStream_t st = starpu_cuda_get_local_stream();
	TIDE_CUDA_CHECK(cudaMemsetAsync(F, 0, sizeof *F, st));
	unsigned nb = v.count ? tide_blocks_for(v.count, TPB) : 1;
	pull_kernel<<<nb, TPB, 0, st>>>(P, S, v, red);
	if (S.n > 0 && v.count > 0) force_kernel<<<S.n, TPB, 0, st>>>(P, S, v, F);
	TIDE_CUDA_CHECK(cudaGetLastError());
}
