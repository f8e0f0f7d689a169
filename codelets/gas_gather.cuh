// SPDX-License-Identifier: LGPL-2.1-or-later
// The gas scheme's gathers on the GPU (gas_density.cu, gas_forces.cu): a warp per run of 32
// particles of one row of cells, which loads each candidate neighbour once into shared memory
// for all its particles, instead of every thread streaming its own candidates from global
// memory.  The pair physics is gas_math.h's (tide_gas_visit), as on the CPU.
//
// Work: one thread block per row (c0, c1) of the block's box, its warps taking the row's
// particles 32 at a time (consecutive in the cell sort: about two or three cells of the row).
// A warp's gather visits, row of cells by row of cells, the union of the cells its particles'
// own gathers would visit (tide_cell_ring_cells of each lane: the CPU's cells, pruned to each
// particle's ball, then the smallest run of each row holding all the lanes'), in the CPU's
// order: rows c0-major, c1-minor; in a row the block's own particles, then the halos' key
// ranges below and above the box, halo by halo.  Each lane sums the candidates of a tile in
// tile order, so every particle meets its neighbours in the CPU's order (the extra candidates
// of the union lie outside its ball and add nothing): the same sums up to the compiler's
// contractions.  A candidate first passes a float test of its distance (positions relative to
// the warp's first particle, with 0.2 % room), then gas_math.h's exact one.
//
// The lanes of a warp gather together: a lane without work (an empty slot, a particle already
// converged in the density's h iteration) idles while the others sum.
#ifndef TIDE_GAS_GATHER_CUH
#define TIDE_GAS_GATHER_CUH
#include <climits>
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/gas_codelet.h"
}

#define GAS_WARPS 4 /* warps per thread block */

/* A warp's tile of candidates in shared memory: the fields gas_math.h's visits read, laid out
 * as a tide_gas_src (tile_src), and the float positions of the distance test. */
struct gas_tile {
	double x[32], y[32], z[32];
	float vx[32], vy[32], vz[32], m[32], rho[32], h[32], u[32], fgrad[32], bal[32];
	uint8_t type[32];
	tide_gas_jstate js[32]; /* forces: p, c, A of each entry, once per tile */
	float4 q[32]; /* x, y, z relative to the warp's origin; w: h (forces) */
};

__device__ static inline tide_gas_src tile_src(gas_tile &T)
{
	tide_gas_src s = {T.x, T.y, T.z, T.vx, T.vy, T.vz, T.rho, T.h, T.u, T.fgrad, T.bal, T.m,
	                  T.type, NULL, 32};
	return s;
}

/* Candidates src[ja, jb) through the warp's tile: every lane calls it (it synchronises the
 * warp); the lanes with `go` visit them for I (filt2: the float test's squared radius with room,
 * 4 h_i^2 (1 + 0.2 %); the forces widen it to the candidate's own 2 h_j). */
template <int PASS>
__device__ static void gas_tile_pass(const tide_sph_params &P, gas_tile &T, const tide_gas_src &src,
                                     uint32_t ja, uint32_t jb, const double o[3], bool go,
                                     const tide_gas_ival &I, float3 me, float filt2,
                                     tide_gas_sums &S)
{
	const int lane = threadIdx.x & 31;
	tide_gas_src ts = tile_src(T);
	for (uint32_t t0 = ja; t0 < jb; t0 += 32) {
		uint32_t nt = jb - t0 < 32 ? jb - t0 : 32;
		__syncwarp();
		if ((uint32_t)lane < nt) {
			uint32_t j = t0 + lane;
			double x = src.x[j], y = src.y[j], z = src.z[j];
			T.x[lane] = x; T.y[lane] = y; T.z[lane] = z;
			T.vx[lane] = src.vx[j]; T.vy[lane] = src.vy[j]; T.vz[lane] = src.vz[j];
			T.m[lane] = src.m[j];
			T.type[lane] = src.type[j];
			float hj = 0.f;
			if (PASS == TIDE_GAS_PASS_FORCES) {
				float rj = src.rho[j], uj = src.u[j], fj = src.fgrad[j];
				hj = src.h[j];
				T.rho[lane] = rj; T.h[lane] = hj; T.u[lane] = uj;
				T.fgrad[lane] = fj; T.bal[lane] = src.bal[j];
				if (T.type[lane] != TIDE_NBODY) T.js[lane] = tide_gas_jstate_of(&P.gas, rj, uj, fj);
			}
			T.q[lane] = make_float4((float)(x - o[0]), (float)(y - o[1]), (float)(z - o[2]), hj);
		} else {
			T.q[lane] = make_float4(1e18f, 1e18f, 1e18f, 0.f); /* padding: out of every ball */
		}
		__syncwarp();
		if (!go) continue;
		/* first the tile's entries in this lane's ball, as bits at fixed positions (the test
		 * is a few instructions, the visit many: most candidates of the union are out of a
		 * lane's ball), then the visits of those alone, in tile order */
		unsigned near = 0;
		for (uint32_t k0 = 0; k0 < nt; k0 += 8) { /* a short tile's padding groups skipped */
			unsigned bits = 0;
#pragma unroll
			for (int k = 0; k < 8; k++) {
				float4 q = T.q[k0 + k];
				float dx = me.x - q.x, dy = me.y - q.y, dz = me.z - q.z;
				float r2 = dx * dx + dy * dy + dz * dz, lim = filt2;
				if (PASS == TIDE_GAS_PASS_FORCES) lim = fmaxf(lim, 4.008f * q.w * q.w);
				if (r2 < lim) bits |= 1u << k;
			}
			near |= bits << k0;
		}
		while (near) {
			int k = __ffs(near) - 1;
			near &= near - 1;
			if (PASS == TIDE_GAS_PASS_DENSITY) {
				tide_gas_visit(&P, &I, &ts, (uint32_t)k, PASS, &S);
			} else {
				S.ncand++;
				if (T.type[k] != TIDE_NBODY) /* collisionless: no hydrodynamics */
					tide_gas_visit_forces_js(&P, &I, &ts, (uint32_t)k, T.js[k], &S);
			}
		}
	}
}

/* The warp's gather: each lane with `go` sums the pass's terms of its particle I over its ball
 * of `radius` (its own gather's, tide_gas_gather) into S; filt2 as gas_tile_pass.  Every lane
 * of the warp calls it. */
template <int PASS>
__device__ static void gas_warp_gather(const tide_sph_params &P, const tide_block_arg &A,
                                       const uint32_t *start, const tide_gas_src &own,
                                       const tide_gas_halos &H, gas_tile &T, bool go,
                                       const tide_gas_ival &I, float radius, float filt2,
                                       tide_gas_sums &S)
{
	const unsigned full = 0xffffffffu;
	const int lane = threadIdx.x & 31;
	/* the origin of the float test: the first going lane's position */
	int first = __ffs(__ballot_sync(full, go)) - 1;
	if (first < 0) return;
	double o[3] = {__shfl_sync(full, I.x[0], first), __shfl_sync(full, I.x[1], first),
	               __shfl_sync(full, I.x[2], first)};
	float3 me = make_float3((float)(I.x[0] - o[0]), (float)(I.x[1] - o[1]), (float)(I.x[2] - o[2]));
	tide_cell_rows C;
	tide_cell_rows_of(&P, &A, I.x, &C);
	int rings = go ? tide_gas_rings(&P, radius) : 0;
	double r2 = (double)radius * (double)radius;
	/* the rows of the lanes' rings */
	int lo0 = __reduce_min_sync(full, go ? C.k[0] - rings : INT_MAX);
	int hi0 = __reduce_max_sync(full, go ? C.k[0] + rings : INT_MIN);
	int lo1 = __reduce_min_sync(full, go ? C.k[1] - rings : INT_MAX);
	int hi1 = __reduce_max_sync(full, go ? C.k[1] + rings : INT_MIN);
	if (lo0 < 0) lo0 = 0;
	if (lo1 < 0) lo1 = 0;
	if (hi0 > C.nk[0] - 1) hi0 = C.nk[0] - 1;
	if (hi1 > C.nk[1] - 1) hi1 = C.nk[1] - 1;
	for (int c0 = lo0; c0 <= hi0; c0++)
		for (int c1 = lo1; c1 <= hi1; c1++) {
			int a = INT_MAX, b = INT_MIN;
			if (go && !tide_cell_ring_cells(&C, rings, r2, c0, c1, &a, &b)) { a = INT_MAX; b = INT_MIN; }
			a = __reduce_min_sync(full, a);
			b = __reduce_max_sync(full, b);
			if (a > b) continue; /* no lane's ball reaches the row */
			uint32_t ob[2], key[2][2];
			int nkey;
			/* the same for every lane: E and the grid are the block's */
			tide_cell_span(&C, &A, start, c0, c1, a, b, ob, key, &nkey);
			gas_tile_pass<PASS>(P, T, own, ob[0], ob[1], o, go, I, me, filt2, S);
			for (int m = 0; m < nkey; m++) {
				/* lane hh finds halo hh's range, then the warp takes them in turn */
				uint32_t ja = 0, jb = 0;
				if (lane < H.n) {
					const tide_gas_src &s = H.h[lane];
					ja = tide_lower_bound(s.key, s.count, key[m][0]);
					jb = tide_lower_bound(s.key, s.count, key[m][1]);
				}
				for (int hh = 0; hh < H.n; hh++) {
					uint32_t a2 = __shfl_sync(full, ja, hh), b2 = __shfl_sync(full, jb, hh);
					if (a2 < b2) gas_tile_pass<PASS>(P, T, H.h[hh], a2, b2, o, go, I, me, filt2, S);
				}
			}
		}
}

/* The warps' runs of particles: thread block = a row (c0, c1) of the box's cells, [*ra, *rb)
 * its particles (cell starts). */
__device__ static inline void gas_row_range(const tide_block_arg &A, const uint32_t *start,
                                            uint32_t *ra, uint32_t *rb)
{
	uint32_t n2 = (uint32_t)(A.hi2 - A.lo2), row = blockIdx.x;
	*ra = start[row * n2];
	*rb = start[(row + 1) * n2];
}

/* Thread blocks of a launch: the rows of the box. */
static inline unsigned gas_row_blocks(const tide_block_arg &A)
{
	return (unsigned)(A.l1 - A.l0) * (unsigned)(A.hi1 - A.lo1);
}

#endif
