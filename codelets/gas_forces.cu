// SPDX-License-Identifier: LGPL-2.1-or-later
// gas_forces on the GPU: the reach map with one thread per particle, then the forces with a
// warp per 32 particles of a row of cells gathering together (gas_gather.cuh), the same pair
// terms as the CPU half (gas_forces.c says what it does); each thread folds its share of the
// step reduction into the worker's copy with atomics.
#include "gas_gather.cuh"

/* The reach map (gas_math.h): one thread per particle of one source (the block or a halo)
 * stamps. */
__global__ static void reach_stamp_kernel(tide_sph_params P, tide_block_arg A, tide_gas_src s, float *M)
{
	uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j >= s.count || s.type[j] == TIDE_NBODY) return;   /* collisionless: no support */
	double x[3] = {s.x[j], s.y[j], s.z[j]};
	tide_gas_reach_stamp(&P, &A, x, s.h[j], M);
}

__global__ static void __launch_bounds__(32 * GAS_WARPS)
gas_forces_kernel(tide_sph_params P, tide_block_arg A, tide_block_view v, const uint32_t *start,
                  const __grid_constant__ tide_gas_halos H, tide_step_reduce *red, const float *M)
{
	__shared__ gas_tile Ts[GAS_WARPS];
	gas_tile &T = Ts[threadIdx.x >> 5];
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	uint32_t ra, rb;
	gas_row_range(A, start, &ra, &rb);
	tide_gas_src own = tide_gas_src_of(&v);
	for (uint32_t i0 = ra + 32u * (uint32_t)warp; i0 < rb; i0 += 32u * GAS_WARPS) {
		uint32_t i = i0 + (uint32_t)lane;
		bool valid = i < rb && v.type[i] != TIDE_BOUND;
		bool go = valid && v.type[i] != TIDE_NBODY; /* collisionless: the body force alone */
		/* an empty slot stands at the run's first particle */
		tide_gas_ival I = go ? tide_gas_forces_ival(&P, &v, i) : tide_gas_ival_of(&v, i < rb ? i : i0);
		tide_gas_sums S;
		tide_gas_forces_zero(&I, &S);
		float reach = go ? tide_gas_reach_of(&P, &A, M, &I) : 0.f;
		gas_warp_gather<TIDE_GAS_PASS_FORCES>(P, A, start, own, H, T, go, I, 2.f * reach,
		                                      4.008f * I.h * I.h, S);
		if (!valid) continue;
		float dt = go ? tide_gas_forces_finish(&P, &v, i, &I, &S) : tide_gas_nbody_force(&P, &v, i);
		tide_step_reduce r;
		tide_step_reduce_init(&r);
		tide_gas_reduce_particle(&v, i, dt, &r);
		if (r.nbad) atomicAdd(&red->nbad, r.nbad);
		else atomic_min_pos(&red->dt, r.dt);
		atomic_max_pos(&red->vmax, r.vmax);
		atomic_max_pos(&red->hmax, r.hmax);
		if (r.rho_max > 0.f) {
			atomic_min_pos(&red->rho_min, r.rho_min);
			atomic_max_pos(&red->rho_max, r.rho_max);
		}
	}
}

extern "C" void tide_gas_forces_cuda(void *buffers[], void *cl_arg)
{
	tide_gas_task t;
	tide_gas_task_of(buffers, cl_arg, 4, &t);
	/* an empty block still reports its count and fill (zero) through the reduction's init */
	if (t.v.count == 0) return;
	tide_step_reduce *red = (tide_step_reduce *)STARPU_VARIABLE_GET_PTR(buffers[2]);
	cudaStream_t s = starpu_cuda_get_local_stream();
	tide_count_fill_kernel<<<1, 1, 0, s>>>(t.v.count, t.fill, red);
	float *M = (float *)STARPU_VECTOR_GET_PTR(buffers[3]);
	TIDE_CUDA_CHECK(cudaMemsetAsync(M, 0, sizeof(float) * STARPU_VECTOR_GET_NX(buffers[3]), s));
	tide_gas_src own = tide_gas_src_of(&t.v);
	for (int h = -1; h < t.H.n; h++) {
		const tide_gas_src &src = h < 0 ? own : t.H.h[h];
		if (src.count)
			reach_stamp_kernel<<<tide_blocks_for(src.count, 128), 128, 0, s>>>(t.P, t.A, src, M);
	}
	gas_forces_kernel<<<gas_row_blocks(t.A), 32 * GAS_WARPS, 0, s>>>(t.P, t.A, t.v, t.start, t.H, red, M);
	TIDE_CUDA_CHECK(cudaGetLastError());
}
