// SPDX-License-Identifier: LGPL-2.1-or-later
// gas_density on the GPU: one thread per particle, the same gather and h iteration as the CPU
// half (gas_density.c says what it does).
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/gas_codelet.h"
}

__global__ static void gas_density_kernel(tide_sph_params P, tide_block_arg A, tide_block_view v,
                                          const uint32_t *start, tide_gas_halos H)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= v.count || v.type[i] != TIDE_FLUID) return;
	tide_gas_src own = tide_gas_src_of(&v);
	tide_gas_density_particle(&P, &A, &v, i, &own, start, H.h, H.n);
}

extern "C" void tide_gas_density_cuda(void *buffers[], void *cl_arg)
{
	tide_gas_task t;
	tide_gas_task_of(buffers, cl_arg, 2, &t);
	if (t.v.count == 0) return;
	gas_density_kernel<<<tide_blocks_for(t.v.count, 128), 128, 0, starpu_cuda_get_local_stream()>>>(
	        t.P, t.A, t.v, t.start, t.H);
	TIDE_CUDA_CHECK(cudaGetLastError());
}
