// SPDX-License-Identifier: LGPL-2.1-or-later
// sph_forces on the GPU: one thread block per cell of the block's box, the same pair physics as
// the CPU (tide_pair of sph_interact.h); the step reduction is combined per thread block in
// shared memory and then with one atomic per field into the worker's private reduction copy.
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/block_interface.h"
#include "tide/codelets.h"
}
#include "tide/sph_interact.h"

/* ---- cell-tiled kernel: one thread block per cell ------------------------------------------
 * The threads of a block are the particles of one cell; for each of the 9 rows of neighbour
 * cells they load the row's particles once into shared memory, as float positions relative to
 * the cell's corner (the double subtraction and conversion are done once per particle and tile,
 * not once per pair) together with each neighbour's pressure term and sound speed, and every
 * thread then runs the shared pair physics (tide_pair) against the tile.  The part of a row
 * inside the block's box comes from the cell-start table; the rest (rows on the box's edge)
 * from the neighbours' halos, sorted by global key, by binary search. */
#define TILE 64
struct tile {
	float x[TILE], y[TILE], z[TILE], vx[TILE], vy[TILE], vz[TILE], rho[TILE], pr[TILE], c[TILE];
	uint32_t t[TILE];
};

/* What the kernel reads of a block or a halo. */
struct hview {
	const double *x, *y, *z;
	const float *vx, *vy, *vz, *rho;
	const uint32_t *type, *key;
	uint32_t count;
};
struct halos {
	hview h[TIDE_MAX_NEIGHBOURS];
	int n;
};
__host__ __device__ static hview hview_of(const tide_block_view &v)
{
	return hview{v.x, v.y, v.z, v.vx, v.vy, v.vz, v.rho, v.type, v.key, v.count};
}

/* Per-thread state of the particle a thread works on. */
struct ithread {
	tide_pi pi;
	float xi, yi, zi;
	tide_acc acc;
	int active;
};

/* Pairs of every thread's particle with src[ja, jb), a tile at a time (all threads call it with
 * the same range: it synchronises). */
__device__ static void tile_pass(const tide_sph_params &P, tile &T, const hview &src, uint32_t ja,
                                 uint32_t jb, const double o[3], ithread &t)
{
	for (uint32_t t0 = ja; t0 < jb; t0 += TILE) {
		uint32_t nt = jb - t0 < TILE ? jb - t0 : TILE;
		__syncthreads();
		if (threadIdx.x < nt) {
			uint32_t j = t0 + threadIdx.x, k = threadIdx.x;
			float rj = src.rho[j];
			T.x[k] = (float)(src.x[j] - o[0]);
			T.y[k] = (float)(src.y[j] - o[1]);
			T.z[k] = (float)(src.z[j] - o[2]);
			T.vx[k] = src.vx[j]; T.vy[k] = src.vy[j]; T.vz[k] = src.vz[j];
			T.rho[k] = rj;
			T.pr[k] = tide_p_over_rho2(&P, rj);
			T.c[k] = tide_sound(&P, rj);
			T.t[k] = src.type[j];
		}
		__syncthreads();
		if (!t.active) continue;
		for (uint32_t k = 0; k < nt; k++) {
			uint32_t tj = T.t[k];
			if (!t.pi.fluid && tj == TIDE_BOUND) continue;
			float dx = t.xi - T.x[k], dy = t.yi - T.y[k], dz = t.zi - T.z[k];
			float r2 = dx * dx + dy * dy + dz * dz;
			if (r2 >= P.h2x4 || r2 < 1e-18f) continue;
			tide_pair(&P, &t.pi, dx, dy, dz, r2, T.vx[k], T.vy[k], T.vz[k], T.rho[k], tj,
			          T.pr[k], T.c[k], &t.acc);
		}
	}
}

__global__ static void __launch_bounds__(TILE)
forces_cell_kernel(tide_sph_params P, tide_block_arg A, tide_block_view v, const uint32_t *start,
                   halos H, tide_step_reduce *red)
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
	int n0 = g.n[g.axis[0]], n1 = g.n[g.axis[1]], n2 = g.n[g.axis[2]];
	int k[3];
	tide_key_cell(&g, tide_box_key(&g, &A, cell), k);
	double o[3];
	for (int j = 0; j < 3; j++) o[g.axis[j]] = g.origin[g.axis[j]] + (double)k[j] * (double)g.cell;
	int c2lo = k[2] > 0 ? k[2] - 1 : 0, c2hi = k[2] < n2 - 1 ? k[2] + 1 : n2 - 1;
	/* the part of a row inside the box */
	int o2lo = c2lo > A.lo2 ? c2lo : A.lo2, o2hi = c2hi < A.hi2 - 1 ? c2hi : A.hi2 - 1;
	hview own = hview_of(v);
	for (uint32_t i0 = ca; i0 < cb; i0 += TILE) {
		uint32_t i = i0 + threadIdx.x;
		ithread t;
		t.active = i < cb;
		t.xi = t.yi = t.zi = 0.f;
		t.acc = tide_acc{0.f, 0.f, 0.f, 0.f, 0.f};
		if (t.active) {
			t.pi.x = v.x[i]; t.pi.y = v.y[i]; t.pi.z = v.z[i];
			t.xi = (float)(t.pi.x - o[0]); t.yi = (float)(t.pi.y - o[1]);
			t.zi = (float)(t.pi.z - o[2]);
			t.pi.vx = v.vx[i]; t.pi.vy = v.vy[i]; t.pi.vz = v.vz[i];
			t.pi.rho = v.rho[i];
			t.pi.p_over_rho2 = tide_p_over_rho2(&P, t.pi.rho);
			t.pi.c = tide_sound(&P, t.pi.rho);
			t.pi.fluid = v.type[i] == TIDE_FLUID;
		} else {
			t.pi.fluid = 0;
		}
		for (int lc = k[0] - 1; lc <= k[0] + 1; lc++) {
			if (lc < 0 || lc >= n0) continue;
			for (int c1 = k[1] - 1; c1 <= k[1] + 1; c1++) {
				if (c1 < 0 || c1 >= n1) continue;
				int inbox = lc >= A.l0 && lc < A.l1 && c1 >= A.lo1 && c1 < A.hi1;
				if (inbox) {
					int ka[3] = {lc, c1, o2lo}, kb[3] = {lc, c1, o2hi};
					tile_pass(P, T, own, start[tide_box_index(&A, ka)],
					          start[tide_box_index(&A, kb) + 1], o, t);
				}
				if (inbox && o2lo == c2lo && o2hi == c2hi) continue;
				uint32_t row = ((uint32_t)lc * (uint32_t)n1 + (uint32_t)c1) * (uint32_t)n2;
				for (int h = 0; h < H.n; h++) {
					const hview &src = H.h[h];
					uint32_t ja = tide_lower_bound(src.key, src.count, row + (uint32_t)c2lo);
					uint32_t jb = tide_lower_bound(src.key, src.count, row + (uint32_t)c2hi + 1);
					tile_pass(P, T, src, ja, jb, o, t);
				}
			}
		}
		if (t.active) {
			tide_acc &acc = t.acc;
			if (t.pi.fluid) {
				acc.ax += P.g[0]; acc.ay += P.g[1]; acc.az += P.g[2];
			} else {
				acc.ax = acc.ay = acc.az = 0.f;
			}
			v.ax[i] = acc.ax; v.ay[i] = acc.ay; v.az[i] = acc.az; v.drho[i] = acc.drho;
			float rho = t.pi.rho;
			if (!isfinite(acc.ax + acc.ay + acc.az + acc.drho) || !isfinite(rho))
				atomicAdd(&s_bad, 1u);
			else
				atomic_min_pos(&s_dt, tide_particle_dt(&P, &acc, rho, t.pi.fluid));
			if (t.pi.fluid) {
				float sp = sqrtf(t.pi.vx * t.pi.vx + t.pi.vy * t.pi.vy + t.pi.vz * t.pi.vz);
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

/* Count and fill of the block (the fill of its halos is known on the host). */
__global__ static void count_kernel(uint32_t count, float fill, tide_step_reduce *red)
{
	atomicAdd(&red->count, count);
	atomic_max_pos(&red->fill, fill);
}

/* Buffers: block, cell starts, step reduction, then the nh halos. */
extern "C" void tide_sph_forces_cuda(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_block_arg A;
	int nh;
	starpu_codelet_unpack_args(cl_arg, &P, &A, &nh);
	STARPU_ASSERT(nh >= 0 && nh <= TIDE_MAX_NEIGHBOURS);
	tide_block_view v = tide_block_view_of(buffers[0]);
	/* an empty block still reports its count and fill (zero) through the reduction's init */
	if (v.count == 0) return;
	const uint32_t *start = (const uint32_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
	tide_step_reduce *red = (tide_step_reduce *)STARPU_VARIABLE_GET_PTR(buffers[2]);
	halos H;
	H.n = nh;
	float fill = tide_fill_of(v.count, v.cap, 0, 0, 0, 0);
	for (int h = 0; h < nh; h++) {
		tide_block_view hv = tide_block_view_of(buffers[3 + h]);
		H.h[h] = hview_of(hv);
		float f = tide_fill_of(hv.count, hv.cap, 0, 0, 0, 0);
		if (f > fill) fill = f;
	}
	cudaStream_t s = starpu_cuda_get_local_stream();
	uint32_t ncell = (uint32_t)STARPU_VECTOR_GET_NX(buffers[1]) - 1;
	count_kernel<<<1, 1, 0, s>>>(v.count, fill, red);
	forces_cell_kernel<<<ncell, TILE, 0, s>>>(P, A, v, start, H, red);
	TIDE_CUDA_CHECK(cudaGetLastError());
}
