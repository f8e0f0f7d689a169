// SPDX-License-Identifier: LGPL-2.1-or-later
// gauge_sample on the GPU: the same sums as the CPU half (include/tide/gauge_math.h), one thread
// per sample point, one per particle for the surge front (a max: atomics keep it exact), and a
// fixed partition of the particles for the obstacle forces (TIDE_GAUGE_FORCE_PARTS thread
// blocks, each summed in a fixed order, then the parts in order), so the result does not
// depend on thread scheduling.
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/block_interface.h"
#include "tide/codelets.h"
}
#include "tide/gauge_math.h"

/* Kernel parameters above 4 KiB need CUDA 12.1 and Volta or later (the build targets sm_90). */
struct halo_set {
	tide_block_view h[TIDE_MAX_NEIGHBOURS];
	int n;
};

#define THREADS 128

__global__ static void samples_kernel(tide_sph_params P, tide_block_view v, const uint32_t *cs,
                                      tide_block_arg A, tide_gauge_arg G, double *out)
{
	size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t nsamp = (size_t)G.nline * (size_t)G.nz;
	if (t == 0) out[0] = TIDE_GAUGE_NONE;
	if (t < nsamp) {
		int l = (int)(t / (size_t)G.nz), k = (int)(t % (size_t)G.nz);
		double r[3];
		tide_gauge_sums s;
		tide_gauge_sample_pos(&G, l, k, r);
		tide_gauge_point_sums(&P, &v, cs, &A, r, &s);
		size_t at = tide_gauge_sample_at(&G, l, k);
		out[at] = s.vw_f;
		out[at + 1] = s.vw_b;
	} else if (t < nsamp + (size_t)G.npoint) {
		int p = (int)(t - nsamp);
		tide_gauge_sums s;
		tide_gauge_point_sums(&P, &v, cs, &A, G.point[p], &s);
		tide_gauge_point_out(&G, p, &s, out);
	} else if (t < nsamp + (size_t)G.npoint + 3 * (size_t)G.nobst) {
		out[tide_gauge_obst_at(&G, 0) + (t - nsamp - (size_t)G.npoint)] = 0.0;
	}
}

/* Doubles order like their bit patterns made unsigned this way, so an integer max is a double
 * max (exact, order-independent). */
__device__ static inline unsigned long long ordered(double x)
{
	unsigned long long u = (unsigned long long)__double_as_longlong(x);
	return (u >> 63) ? ~u : (u | 0x8000000000000000ull);
}
__device__ static inline double unordered(unsigned long long u)
{
	return __longlong_as_double((long long)((u >> 63) ? (u & 0x7fffffffffffffffull) : ~u));
}

__global__ static void front_kernel(tide_sph_params P, tide_block_view v, const uint32_t *cs,
                                    tide_block_arg A, halo_set H, tide_gauge_arg G,
                                    unsigned long long *best)
{
	/* from the end: the largest x of a block sorted along the slab axis runs first, so the
	 * front is found early and most threads then stop at the x test */
	uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= v.count) return;
	uint32_t i = v.count - 1 - t;
	if (v.type[i] != TIDE_FLUID) return;
	if (ordered(v.x[i]) <= *(volatile unsigned long long *)best) return; /* cannot move it */
	if (tide_gauge_front_ok(&P, &G, &v, cs, &A, H.h, H.n, i)) atomicMax(best, ordered(v.x[i]));
}

__global__ static void front_init(unsigned long long *best) { *best = ordered(TIDE_GAUGE_NONE); }
__global__ static void front_done(const unsigned long long *best, double *out)
{
	out[0] = unordered(*best);
}

/* Part b of the particles: each thread sums its strided share per obstacle, the thread block
 * adds its threads in a fixed tree; the parts go to the tail of the result. */
__global__ static void force_parts(tide_sph_params P, tide_block_view v, const uint32_t *cs,
                                   tide_block_arg A, halo_set H, tide_gauge_arg G, double *out)
{
	__shared__ double red[THREADS];
	double F[TIDE_GAUGE_MAX_OBST][3];
	for (int m = 0; m < G.nobst; m++) F[m][0] = F[m][1] = F[m][2] = 0.0;
	uint32_t chunk = (v.count + TIDE_GAUGE_FORCE_PARTS - 1) / TIDE_GAUGE_FORCE_PARTS;
	uint32_t i0 = blockIdx.x * chunk, i1 = min(v.count, i0 + chunk);
	for (uint32_t i = i0 + threadIdx.x; i < i1; i += blockDim.x) {
		if (v.type[i] != TIDE_BOUND) continue;
		int m = tide_gauge_obstacle_of(&G, v.id[i], v.x[i], v.y[i], v.z[i]);
		if (m >= 0) tide_gauge_particle_force(&P, &v, cs, &A, H.h, H.n, i, F[m]);
	}
	double *part = out + tide_gauge_len(&G) + (size_t)blockIdx.x * 3 * (size_t)G.nobst;
	for (int m = 0; m < G.nobst; m++)
		for (int d = 0; d < 3; d++) {
			red[threadIdx.x] = F[m][d];
			__syncthreads();
			for (int s = THREADS / 2; s > 0; s >>= 1) {
				if ((int)threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
				__syncthreads();
			}
			if (threadIdx.x == 0) part[3 * m + d] = red[0];
			__syncthreads();
		}
}

__global__ static void force_sum(tide_gauge_arg G, double *out)
{
	int e = threadIdx.x;
	if (e >= 3 * G.nobst) return;
	double s = 0.0;
	for (int b = 0; b < TIDE_GAUGE_FORCE_PARTS; b++)
		s += out[tide_gauge_len(&G) + (size_t)b * 3 * (size_t)G.nobst + e];
	out[tide_gauge_obst_at(&G, 0) + e] = s;
}

extern "C" void tide_gauge_sample_cuda(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_block_arg A;
	int nh;
	tide_gauge_arg G;
	starpu_codelet_unpack_args(cl_arg, &P, &A, &nh, &G, 0);
	STARPU_ASSERT(nh >= 0 && nh <= TIDE_MAX_NEIGHBOURS);
	tide_block_view v = tide_block_view_of(buffers[0]);
	const uint32_t *cs = (const uint32_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
	double *out = (double *)STARPU_VECTOR_GET_PTR(buffers[2]);
	STARPU_ASSERT(STARPU_VECTOR_GET_NX(buffers[2]) >= tide_gauge_block_len(&G));
	halo_set H;
	H.n = nh;
	for (int h = 0; h < nh; h++) H.h[h] = tide_block_view_of(buffers[3 + h]);
	cudaStream_t st = starpu_cuda_get_local_stream();

	size_t nthr = (size_t)G.nline * G.nz + G.npoint + 3 * (size_t)G.nobst;
	samples_kernel<<<tide_blocks_for(nthr > 0 ? nthr : 1, THREADS), THREADS, 0, st>>>(P, v, cs, A,
	                                                                                     G, out);
	TIDE_CUDA_CHECK(cudaGetLastError());
	if (G.front && v.count) {
		/* out[0] holds the max as ordered bits until front_done decodes it */
		unsigned long long *best = (unsigned long long *)out;
		front_init<<<1, 1, 0, st>>>(best);
		front_kernel<<<tide_blocks_for(v.count, THREADS), THREADS, 0, st>>>(P, v, cs, A, H, G, best);
		front_done<<<1, 1, 0, st>>>(best, out);
		TIDE_CUDA_CHECK(cudaGetLastError());
	}
	if (G.nobst) {
		force_parts<<<TIDE_GAUGE_FORCE_PARTS, THREADS, 0, st>>>(P, v, cs, A, H, G, out);
		force_sum<<<1, 3 * TIDE_GAUGE_MAX_OBST, 0, st>>>(G, out);
		TIDE_CUDA_CHECK(cudaGetLastError());
	}
}
