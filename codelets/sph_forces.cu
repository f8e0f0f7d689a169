// SPDX-License-Identifier: LGPL-2.1-or-later
// sph_forces on the GPU: one thread per particle running the same interaction code as the CPU
// (sph_interact.h); the step reduction is combined per thread block in shared memory and then
// with one atomic per field into the worker's private reduction copy.
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/block_interface.h"
#include "tide/codelets.h"
}
#include "tide/sph_interact.h"

/* Non-negative floats order like their bit patterns, so integer atomics give float min/max. */
__device__ static void atomic_min_pos(float *a, float v)
{
	atomicMin((int *)a, __float_as_int(v));
}
__device__ static void atomic_max_pos(float *a, float v)
{
	atomicMax((int *)a, __float_as_int(v));
}

#define FORCES_THREADS 128

__global__ static void __launch_bounds__(FORCES_THREADS)
forces_kernel(tide_sph_params P, tide_block_arg A, tide_block_view v, const uint32_t *start,
              tide_block_view lo, tide_block_view hi, tide_step_reduce *red)
{
	__shared__ float s_dt, s_vmax, s_rmin, s_rmax;
	__shared__ unsigned s_bad;
	if (threadIdx.x == 0) {
		s_dt = 3.0e38f; s_vmax = 0.f; s_rmin = 3.0e38f; s_rmax = 0.f; s_bad = 0;
	}
	__syncthreads();
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < v.count) {
		tide_acc a = tide_particle_forces(&P, &A, &v, start, &lo, &hi, i);
		v.ax[i] = a.ax;
		v.ay[i] = a.ay;
		v.az[i] = a.az;
		v.drho[i] = a.drho;
		float rho = v.rho[i];
		int fluid = v.type[i] == TIDE_FLUID;
		if (!isfinite(a.ax + a.ay + a.az + a.drho) || !isfinite(rho)) atomicAdd(&s_bad, 1u);
		else atomic_min_pos(&s_dt, tide_particle_dt(&P, &a, rho, fluid));
		if (fluid) {
			float sp = sqrtf(v.vx[i] * v.vx[i] + v.vy[i] * v.vy[i] + v.vz[i] * v.vz[i]);
			if (isfinite(sp)) atomic_max_pos(&s_vmax, sp);
			if (isfinite(rho) && rho > 0.f) {
				atomic_min_pos(&s_rmin, rho);
				atomic_max_pos(&s_rmax, rho);
			}
		}
	}
	__syncthreads();
	if (threadIdx.x == 0) {
		if (blockIdx.x == 0) {
			atomicAdd(&red->count, v.count);
			atomic_max_pos(&red->fill, tide_fill_of(v.count, v.cap, lo.count, lo.cap,
			                                        hi.count, hi.cap));
		}
		atomic_min_pos(&red->dt, s_dt);
		atomic_max_pos(&red->vmax, s_vmax);
		atomic_min_pos(&red->rho_min, s_rmin);
		atomic_max_pos(&red->rho_max, s_rmax);
		if (s_bad) atomicAdd(&red->nbad, s_bad);
	}
}

extern "C" void tide_sph_forces_cuda(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_block_arg A;
	starpu_codelet_unpack_args(cl_arg, &P, &A);
	tide_block_view v = tide_block_view_of(buffers[0]);
	if (v.count == 0) return;
	const uint32_t *start = (const uint32_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
	tide_block_view lo = tide_block_view_of(buffers[2]);
	tide_block_view hi = tide_block_view_of(buffers[3]);
	tide_step_reduce *red = (tide_step_reduce *)STARPU_VARIABLE_GET_PTR(buffers[4]);
	cudaStream_t s = starpu_cuda_get_local_stream();
	/* an empty block still reports its count and fill (zero) through the reduction's init */
	forces_kernel<<<tide_blocks_for(v.count, FORCES_THREADS), FORCES_THREADS, 0, s>>>(
	        P, A, v, start, lo, hi, red);
	TIDE_CUDA_CHECK(cudaGetLastError());
}
