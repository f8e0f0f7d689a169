// SPDX-License-Identifier: LGPL-2.1-or-later
// sph_forces on the GPU: one thread per particle running the same interaction code as the CPU
// (sph_interact.h); the step reduction is combined per thread block in shared memory and then
// with one atomic per field into the worker's private reduction copy.
#include <stdlib.h>
#include <string.h>
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

/* ---- cell-tiled kernel: one thread block per cell ------------------------------------------
 * The threads of a block are the particles of one cell; for each of the 9 rows of neighbour
 * cells they load the row's particles once into shared memory, as float positions relative to
 * the cell's corner (the double subtraction and conversion are done once per particle and tile,
 * not once per pair) together with each neighbour's pressure term and sound speed, and every
 * thread then runs the shared pair physics (tide_pair) against the tile. */
#define TILE 64

struct tile {
	float x[TILE], y[TILE], z[TILE], vx[TILE], vy[TILE], vz[TILE], rho[TILE], pr[TILE], c[TILE];
	uint32_t t[TILE];
};

/* Range [a, b) of the row of cells (lc, c1, c2lo..c2hi) in the block or its halos. */
__device__ static const tide_block_view *row_range(const tide_sph_params &P,
                                                   const tide_block_arg &A,
                                                   const tide_block_view *own,
                                                   const uint32_t *start,
                                                   const tide_block_view *lo,
                                                   const tide_block_view *hi, int lc,
                                                   uint32_t kfirst, uint32_t klast, uint32_t *a,
                                                   uint32_t *b)
{
	if (lc >= A.l0 && lc < A.l1) {
		uint32_t base = (uint32_t)A.l0 * P.grid.plane;
		*a = start[kfirst - base];
		*b = start[klast + 1 - base];
		return own;
	}
	const tide_block_view *h = lc < A.l0 ? lo : hi;
	*a = tide_lower_bound(h->key, h->count, kfirst);
	*b = tide_lower_bound(h->key, h->count, klast + 1);
	return h;
}

__global__ static void __launch_bounds__(TILE)
forces_cell_kernel(tide_sph_params P, tide_block_arg A, tide_block_view v, const uint32_t *start,
                   tide_block_view lo, tide_block_view hi, tide_step_reduce *red)
{
	__shared__ tile T;
	__shared__ float s_dt, s_vmax, s_rmin, s_rmax;
	__shared__ unsigned s_bad;
	uint32_t cell = blockIdx.x;
	uint32_t ca = start[cell], cb = start[cell + 1];
	if (ca == cb) return; /* the whole block leaves together */
	if (threadIdx.x == 0) {
		s_dt = 3.0e38f; s_vmax = 0.f; s_rmin = 3.0e38f; s_rmax = 0.f; s_bad = 0;
	}
	const tide_grid &g = P.grid;
	int a0 = g.axis[0], a1 = g.axis[1], a2 = g.axis[2];
	int n0 = g.n[a0], n1 = g.n[a1], n2 = g.n[a2];
	uint32_t key = (uint32_t)A.l0 * g.plane + cell;
	int c[3];
	c[a0] = (int)(key / g.plane);
	c[a1] = (int)((key % g.plane) / (uint32_t)n2);
	c[a2] = (int)(key % (uint32_t)n2);
	double o[3];
	for (int d = 0; d < 3; d++) o[d] = g.origin[d] + (double)c[d] * (double)g.cell;
	int c2lo = c[a2] > 0 ? c[a2] - 1 : 0, c2hi = c[a2] < n2 - 1 ? c[a2] + 1 : n2 - 1;

	for (uint32_t i0 = ca; i0 < cb; i0 += TILE) {
		uint32_t i = i0 + threadIdx.x;
		int active = i < cb;
		tide_pi pi;
		float xi = 0.f, yi = 0.f, zi = 0.f;
		tide_acc acc = {0.f, 0.f, 0.f, 0.f, 0.f};
		if (active) {
			pi.x = v.x[i]; pi.y = v.y[i]; pi.z = v.z[i];
			xi = (float)(pi.x - o[0]); yi = (float)(pi.y - o[1]); zi = (float)(pi.z - o[2]);
			pi.vx = v.vx[i]; pi.vy = v.vy[i]; pi.vz = v.vz[i];
			pi.rho = v.rho[i];
			pi.p_over_rho2 = tide_p_over_rho2(&P, pi.rho);
			pi.c = tide_sound(&P, pi.rho);
			pi.fluid = v.type[i] == TIDE_FLUID;
		} else {
			pi.fluid = 0;
		}
		for (int lc = c[a0] - 1; lc <= c[a0] + 1; lc++) {
			if (lc < 0 || lc >= n0) continue;
			for (int c1 = c[a1] - 1; c1 <= c[a1] + 1; c1++) {
				if (c1 < 0 || c1 >= n1) continue;
				uint32_t row = ((uint32_t)lc * (uint32_t)n1 + (uint32_t)c1) * (uint32_t)n2;
				uint32_t ja, jb;
				const tide_block_view *src = row_range(P, A, &v, start, &lo, &hi, lc,
				                                       row + (uint32_t)c2lo,
				                                       row + (uint32_t)c2hi, &ja, &jb);
				for (uint32_t t0 = ja; t0 < jb; t0 += TILE) {
					uint32_t nt = jb - t0 < TILE ? jb - t0 : TILE;
					__syncthreads();
					if (threadIdx.x < nt) {
						uint32_t j = t0 + threadIdx.x, k = threadIdx.x;
						float rj = src->rho[j];
						T.x[k] = (float)(src->x[j] - o[0]);
						T.y[k] = (float)(src->y[j] - o[1]);
						T.z[k] = (float)(src->z[j] - o[2]);
						T.vx[k] = src->vx[j]; T.vy[k] = src->vy[j]; T.vz[k] = src->vz[j];
						T.rho[k] = rj;
						T.pr[k] = tide_p_over_rho2(&P, rj);
						T.c[k] = tide_sound(&P, rj);
						T.t[k] = src->type[j];
					}
					__syncthreads();
					if (!active) continue;
					for (uint32_t k = 0; k < nt; k++) {
						uint32_t tj = T.t[k];
						if (!pi.fluid && tj == TIDE_BOUND) continue;
						float dx = xi - T.x[k], dy = yi - T.y[k], dz = zi - T.z[k];
						float r2 = dx * dx + dy * dy + dz * dz;
						if (r2 >= P.h2x4 || r2 < 1e-18f) continue;
						tide_pair(&P, &pi, dx, dy, dz, r2, T.vx[k], T.vy[k], T.vz[k],
						          T.rho[k], tj, T.pr[k], T.c[k], &acc);
					}
				}
			}
		}
		if (active) {
			if (pi.fluid) {
				acc.ax += P.g[0]; acc.ay += P.g[1]; acc.az += P.g[2];
			} else {
				acc.ax = acc.ay = acc.az = 0.f;
			}
			v.ax[i] = acc.ax; v.ay[i] = acc.ay; v.az[i] = acc.az; v.drho[i] = acc.drho;
			float rho = pi.rho;
			if (!isfinite(acc.ax + acc.ay + acc.az + acc.drho) || !isfinite(rho))
				atomicAdd(&s_bad, 1u);
			else
				atomic_min_pos(&s_dt, tide_particle_dt(&P, &acc, rho, pi.fluid));
			if (pi.fluid) {
				float sp = sqrtf(pi.vx * pi.vx + pi.vy * pi.vy + pi.vz * pi.vz);
				if (isfinite(sp)) atomic_max_pos(&s_vmax, sp);
				if (isfinite(rho) && rho > 0.f) {
					atomic_min_pos(&s_rmin, rho);
					atomic_max_pos(&s_rmax, rho);
				}
			}
		}
	}
	__syncthreads();
	if (threadIdx.x == 0) {
		atomic_min_pos(&red->dt, s_dt);
		atomic_max_pos(&red->vmax, s_vmax);
		atomic_min_pos(&red->rho_min, s_rmin);
		atomic_max_pos(&red->rho_max, s_rmax);
		if (s_bad) atomicAdd(&red->nbad, s_bad);
	}
}

/* Count and fill of the block (the per-particle kernel folds them into its first block). */
__global__ static void count_kernel(tide_block_view v, tide_block_view lo, tide_block_view hi,
                                    tide_step_reduce *red)
{
	atomicAdd(&red->count, v.count);
	atomic_max_pos(&red->fill, tide_fill_of(v.count, v.cap, lo.count, lo.cap, hi.count, hi.cap));
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
	/* TIDE_FORCES_KERNEL=particle selects the thread-per-particle kernel (for comparison) */
	static int per_particle = -1;
	if (per_particle < 0) {
		const char *k = getenv("TIDE_FORCES_KERNEL");
		per_particle = k && !strcmp(k, "particle");
	}
	if (per_particle) {
		forces_kernel<<<tide_blocks_for(v.count, FORCES_THREADS), FORCES_THREADS, 0, s>>>(
		        P, A, v, start, lo, hi, red);
	} else {
		uint32_t ncell = (uint32_t)STARPU_VECTOR_GET_NX(buffers[1]) - 1;
		count_kernel<<<1, 1, 0, s>>>(v, lo, hi, red);
		forces_cell_kernel<<<ncell, TILE, 0, s>>>(P, A, v, start, lo, hi, red);
	}
	TIDE_CUDA_CHECK(cudaGetLastError());
}
