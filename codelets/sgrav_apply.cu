// SPDX-License-Identifier: LGPL-2.1-or-later
// sgrav_apply on the GPU: one thread per particle, the block's offset read on the device (it
// was written there by sgrav_gather); the time-step limit is reduced per thread block in shared
// memory, then with one atomic into the worker's private copy of the reduction, as in
// sph_forces.cu.
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/block_interface.h"
#include "tide/codelets.h"
}
#include "tide/sph_gravity_math.h"

#define TPB 256

__global__ static void apply_kernel(tide_sph_params P, tide_block_view v, const bh_acc *g,
                                    const uint32_t *offs, int b, tide_step_reduce *red)
{
	__shared__ float s_dt;
	__shared__ unsigned s_bad;
	if (threadIdx.x == 0) {
		s_dt = 3.0e38f;
		s_bad = 0;
	}
	__syncthreads();
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < v.count) {
		int bad;
		float dt = tide_sgrav_add(&P, &v, i, &g[offs[b] + i], &bad);
		if (bad) atomicAdd(&s_bad, 1u);
		else atomic_min_pos(&s_dt, dt);
	}
	__syncthreads();
	if (threadIdx.x == 0) {
		atomic_min_pos(&red->dt, s_dt);
		if (s_bad) atomicAdd(&red->nbad, s_bad);
	}
}

extern "C" void tide_sgrav_apply_cuda(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	int b;
	starpu_codelet_unpack_args(cl_arg, &P, &b, 0);
	tide_block_view v = tide_block_view_of(buffers[0]);
	if (v.count == 0) return;
	const bh_acc *g = (const bh_acc *)STARPU_VECTOR_GET_PTR(buffers[1]);
	const uint32_t *offs = (const uint32_t *)STARPU_VECTOR_GET_PTR(buffers[2]);
	tide_step_reduce *red = (tide_step_reduce *)STARPU_VARIABLE_GET_PTR(buffers[3]);
	apply_kernel<<<tide_blocks_for(v.count, TPB), TPB, 0, starpu_cuda_get_local_stream()>>>(
	        P, v, g, offs, b, red);
	TIDE_CUDA_CHECK(cudaGetLastError());
}
