// SPDX-License-Identifier: LGPL-2.1-or-later
// gas_density on the GPU: a warp per 32 particles of a row of cells, gathering together
// (gas_gather.cuh), the h iteration of the CPU half (gas_math.h's tide_gas_h_start / _next /
// _finish) run by each lane: a round of the warp is one gather at every unconverged lane's trial
// h, and the warp goes on while any lane has not converged (gas_density.c says what it does).
#include <climits>
#include "gas_gather.cuh"

__global__ static void __launch_bounds__(32 * GAS_WARPS)
gas_density_kernel(tide_sph_params P, tide_block_arg A, tide_block_view v, const uint32_t *start,
                   const __grid_constant__ tide_gas_halos H)
{
	__shared__ gas_tile Ts[GAS_WARPS];
	gas_tile &T = Ts[threadIdx.x >> 5];
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	uint32_t ra, rb;
	gas_row_range(A, start, &ra, &rb);
	tide_gas_src own = tide_gas_src_of(&v);
	for (uint32_t i0 = ra + 32u * (uint32_t)warp; i0 < rb; i0 += 32u * GAS_WARPS) {
		uint32_t i = i0 + (uint32_t)lane;
		bool go = i < rb && v.type[i] == TIDE_FLUID;
		tide_gas_ival I;
		tide_gas_hiter It;
		tide_gas_sums S;
		uint32_t k = i < rb ? i : i0; /* an empty slot stands at the run's first particle */
		I = tide_gas_ival_of(&v, k);
		if (go) tide_gas_h_start(&P, &v, i, &It);
		while (__any_sync(0xffffffffu, go)) {
			I.h = go ? It.h : 0.f;
			tide_gas_sums_zero(&S);
			gas_warp_gather<TIDE_GAS_PASS_DENSITY>(P, A, start, own, H, T, go, I, 2.f * I.h,
			                                       4.008f * I.h * I.h, S);
			if (go && tide_gas_h_next(&P, &It, &S)) {
				tide_gas_h_finish(&P, &v, i, &It, &S);
				go = false;
			}
		}
	}
}

extern "C" void tide_gas_density_cuda(void *buffers[], void *cl_arg)
{
	tide_gas_task t;
	tide_gas_task_of(buffers, cl_arg, 2, &t);
	if (t.v.count == 0) return;
	gas_density_kernel<<<gas_row_blocks(t.A), 32 * GAS_WARPS, 0, starpu_cuda_get_local_stream()>>>(
	        t.P, t.A, t.v, t.start, t.H);
	TIDE_CUDA_CHECK(cudaGetLastError());
}
