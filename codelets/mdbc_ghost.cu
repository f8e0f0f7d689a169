// SPDX-License-Identifier: LGPL-2.1-or-later
// mdbc_ghost on the GPU (the same interpolation as the CPU, include/tide/mdbc.h), a warp per
// ghost node: each warp takes a window of 32 particles of the cell-sorted block, finds its
// boundary particles with one ballot (a window of fluid alone leaves at once), and for each of
// them in turn its 32 lanes stride through the candidates together — coalesced loads, and
// every lane busy, where one thread per boundary particle kept most lanes of a mixed window
// idle while their neighbours each walked ~1700 candidates alone.  The GPU block is not split
// into fluid and walls as the CPU's copy is: a byte per cell says which cells hold fluid, and
// rows without any are skipped (a dry ghost then costs its row set-up alone).  Float sums,
// combined by a butterfly of shuffles; lane 0 solves the small system and writes.
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/block_interface.h"
#include "tide/codelets.h"
}
#include "tide/mdbc.h"

struct mdbc_halos {
	tide_mdbc_src h[TIDE_MAX_NEIGHBOURS];
};

#define FULL_MASK 0xffffffffu
#define MDBC_THREADS 128
/* Blocks per SM the register budget must allow (occupancy is what limits this kernel: its
 * warps wait on loads): 8 (64 registers, 32 bytes spilled) for the density alone, 5 with the
 * velocity sums, whose 29 accumulators spill heavily below ~100 registers. */
#define MDBC_MIN_BLOCKS(VEL) ((VEL) ? 5 : 8)

/* flags[c] = 1 for every local cell c of the block that holds a fluid particle (plain byte
 * stores: the threads of one cell all write the same value). */
__global__ static void fluid_cells_kernel(const uint32_t *start, uint32_t ncell,
                                          const uint8_t *type, uint32_t n, uint8_t *flags)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n || type[i] != TIDE_FLUID) return;
	flags[tide_sorted_cell(start, ncell, i)] = 1;
}

template <int VEL>
__global__ static void __launch_bounds__(MDBC_THREADS, MDBC_MIN_BLOCKS(VEL)) mdbc_ghost_kernel(tide_sph_params P, tide_block_arg A, tide_block_view v,
                                         const uint32_t *start, const uint8_t *flags,
                                         mdbc_halos H, int nh, tide_motion_ids M)
{
	constexpr int NS = VEL ? TIDE_MDBC_NS : TIDE_MDBC_NS_RHO;
	__shared__ uint32_t rows_s[MDBC_THREADS / 32][2][9];
	/* per warp, the sums of its window's wet ghosts, lane = the particle's place in the window */
	__shared__ float S_s[MDBC_THREADS / 32][NS][32];
	const uint32_t w = threadIdx.x >> 5;
	unsigned pending = 0u;
	const uint32_t lane = threadIdx.x & 31u;
	const uint32_t i0 = (blockIdx.x * blockDim.x + threadIdx.x) & ~31u;
	if (i0 >= v.count) return; /* the whole warp: i0 is the warp's */
	const uint32_t i = i0 + lane;
	unsigned todo = __ballot_sync(FULL_MASK, i < v.count && v.type[i] != TIDE_FLUID);
	const tide_mdbc_src own = tide_mdbc_src_of(&v);
	const tide_mdbc_k K = tide_mdbc_consts(&P);
	while (todo) {
		const uint32_t b = i0 + (uint32_t)(__ffs(todo) - 1);
		todo &= todo - 1u;
		const float nb[3] = {v.TIDE_BN_X[b], v.TIDE_BN_Y[b], v.TIDE_BN_Z[b]};
		float vw[3];
		tide_mdbc_wall_velocity(&v, b, &M, vw);
		if (!tide_mdbc_has_ghost(&P, nb)) { /* no ghost: the wall's own velocity */
			if (VEL && lane == 0) { v.vx[b] = vw[0]; v.vy[b] = vw[1]; v.vz[b] = vw[2]; }
			continue;
		}
		const double g[3] = {v.x[b] + 2.0 * (double)nb[0], v.y[b] + 2.0 * (double)nb[1],
		                     v.z[b] + 2.0 * (double)nb[2]};
		tide_cell_rows C;
		tide_cell_rows_of(&P, &A, g, &C);
		/* one look at the ghost's 27 cells' fluid bytes (lane c: cell c = row c / 3): a dry
		 * ghost leaves before any row is set up (most of a tank's walls are dry), and a wet one
		 * sets up only the rows with a wet cell or a halo's cell */
		unsigned wetm = 0x7ffffffu, farm = 0u;
		if (flags) {
			bool wet = false, far = false;
			if (lane < 27) {
				int kk[3] = {C.k[0] - 1 + (int)lane / 9, C.k[1] - 1 + (int)lane / 3 % 3,
				             C.k[2] - 1 + (int)lane % 3};
				bool in_grid = kk[0] >= 0 && kk[1] >= 0 && kk[2] >= 0 && kk[0] < C.nk[0] &&
				               kk[1] < C.nk[1] && kk[2] < C.nk[2];
				if (in_grid && tide_box_contains(&A, kk)) wet = flags[tide_box_index(&A, kk)] != 0;
				else far = in_grid; /* a halo's cell: no byte for it, the row's halo part */
			}
			wetm = __ballot_sync(FULL_MASK, wet);
			farm = __ballot_sync(FULL_MASK, far);
			if (!(wetm | farm)) {
				if (VEL && lane == 0) { v.vx[b] = vw[0]; v.vy[b] = vw[1]; v.vz[b] = vw[2]; }
				continue;
			}
		}
		float S[TIDE_MDBC_NS];
#pragma unroll
		for (int q = 0; q < TIDE_MDBC_NS; q++) S[q] = 0.f;
		/* lanes 0..8 set up the 9 rows at once (their cell-start loads overlap instead of
		 * following each other); the own part of a row without a wet cell is dropped (the wall
		 * side of a wet ghost) */
		uint32_t oa = 0, ob = 0, key[2][2];
		int nkey = 0;
		if (lane < 9 && ((wetm | farm) >> (3 * lane) & 7u)) {
			uint32_t o[2];
			tide_cell_row(&C, &A, start, (int)lane, o, key, &nkey);
			oa = o[0];
			ob = (wetm >> (3 * lane) & 7u) ? o[1] : o[0];
		}
		/* the own rows' candidates as one list, which the 32 lanes stride through together:
		 * an inclusive prefix of the rows' lengths, then each candidate's row by compares */
		uint32_t pre = ob - oa;
#pragma unroll
		for (int d = 1; d < 16; d <<= 1) {
			uint32_t t = __shfl_up_sync(FULL_MASK, pre, d);
			if (lane >= (uint32_t)d) pre += t;
		}
		/* row r: list positions below E[r], candidate j = t + J[r] (per warp, in shared
		 * memory: 18 registers fewer, occupancy being register-bound) */
		uint32_t *E = rows_s[w][0], *J = rows_s[w][1];
		if (lane < 9) {
			E[lane] = pre;
			J[lane] = oa - (pre - (ob - oa));
		}
		__syncwarp();
		/* the rows that reach into halos: row by row (rare: block faces), before the own rows
		 * so that the cell set-up C is dead during their scan (registers bound the occupancy) */
		unsigned hrows = __ballot_sync(FULL_MASK, lane < 9 && nkey > 0);
		while (hrows) {
			const int row = __ffs(hrows) - 1;
			hrows &= hrows - 1u;
			uint32_t o[2], hk[2][2];
			int nk;
			tide_cell_row(&C, &A, start, row, o, hk, &nk);
			/* each lane binary-searches one end of one halo's range at once (lane 2h + e:
			 * halo h, e = 0 the first key, 1 past the last) */
			for (int m = 0; m < nk; m++)
				for (int t0 = 0; t0 < 2 * nh; t0 += 32) {
					int t = t0 + (int)lane;
					uint32_t mine = 0;
					if (t < 2 * nh) {
						const tide_mdbc_src *s = &H.h[t >> 1];
						mine = tide_lower_bound(s->key, s->count, hk[m][t & 1]);
					}
					int nt = 2 * nh - t0 < 32 ? 2 * nh - t0 : 32;
					for (int u = 0; u < nt; u += 2) {
						uint32_t ja = __shfl_sync(FULL_MASK, mine, u);
						uint32_t jb = __shfl_sync(FULL_MASK, mine, u + 1);
						const tide_mdbc_src *s = &H.h[(t0 + u) >> 1];
						for (uint32_t j = ja + lane; j < jb; j += 32u)
							tide_mdbc_add(&K, s, j, g, VEL, S);
					}
				}
		}
		/* two candidates per lane and pass, every load issued before any is used (the type
		 * no longer gates the position loads): the scan is bound by load latency */
		const uint32_t total = E[8];
		int r = 0;
		for (uint32_t t = lane; t < total; t += 64u) {
			while (t >= E[r]) r++;
			const uint32_t j1 = t + J[r], t2 = t + 32u;
			int r2 = r;
			if (t2 < total)
				while (t2 >= E[r2]) r2++;
			const uint32_t j2 = t2 < total ? t2 + J[r2] : j1;
			const uint32_t ty1 = own.type[j1], ty2 = own.type[j2];
			const double x1 = own.x[j1], y1 = own.y[j1], z1 = own.z[j1];
			const double x2 = own.x[j2], y2 = own.y[j2], z2 = own.z[j2];
			const float rho1 = own.rho[j1], rho2 = own.rho[j2];
			float u1[3] = {0.f, 0.f, 0.f}, u2[3] = {0.f, 0.f, 0.f};
			if (VEL) {
				u1[0] = own.vx[j1]; u1[1] = own.vy[j1]; u1[2] = own.vz[j1];
				u2[0] = own.vx[j2]; u2[1] = own.vy[j2]; u2[2] = own.vz[j2];
			}
			if (ty1 == TIDE_FLUID) {
				const float d[3] = {(float)(g[0] - x1) * K.inv_h, (float)(g[1] - y1) * K.inv_h,
				                    (float)(g[2] - z1) * K.inv_h};
				tide_mdbc_add_d(&K, d, rho1, u1[0], u1[1], u1[2], VEL, S);
			}
			if (t2 < total && ty2 == TIDE_FLUID) {
				const float d[3] = {(float)(g[0] - x2) * K.inv_h, (float)(g[1] - y2) * K.inv_h,
				                    (float)(g[2] - z2) * K.inv_h};
				tide_mdbc_add_d(&K, d, rho2, u2[0], u2[1], u2[2], VEL, S);
			}
			r = r2;
		}
		__syncwarp(); /* E, J are the next ghost's */
		/* a dry ghost (a wall above the water: most of a dam break's walls) skips the reduction:
		 * no fluid, so the density stays and the velocity is the wall's (tide_mdbc_finish) */
		if (!__any_sync(FULL_MASK, S[0] > 0.f)) {
			if (VEL && lane == 0) {
				float w2[3];
				tide_mdbc_wall_velocity(&v, b, &M, w2);
				v.vx[b] = w2[0]; v.vy[b] = w2[1]; v.vz[b] = w2[2];
			}
			continue;
		}
#pragma unroll
		for (int q = 0; q < NS; q++)
			for (int d = 16; d > 0; d >>= 1) S[q] += __shfl_xor_sync(FULL_MASK, S[q], d);
		/* the solve is deferred: the lane of the ghost's particle keeps its sums, and after
		 * the window the lanes solve their ghosts' systems side by side (one after another on
		 * lane 0, they took a large part of the pass) */
		const uint32_t p = b - i0;
		if (lane == p)
#pragma unroll
			for (int q = 0; q < NS; q++) S_s[w][q][lane] = S[q];
		pending |= 1u << p;
	}
	__syncwarp();
	if (pending >> lane & 1u) {
		const uint32_t b = i0 + lane;
		float S[TIDE_MDBC_NS], rho, vb[3];
#pragma unroll
		for (int q = 0; q < TIDE_MDBC_NS; q++) S[q] = q < NS ? S_s[w][q][lane] : 0.f;
		const float n2[3] = {v.TIDE_BN_X[b], v.TIDE_BN_Y[b], v.TIDE_BN_Z[b]};
		float vw2[3];
		tide_mdbc_wall_velocity(&v, b, &M, vw2);
		tide_mdbc_finish(&P, VEL ? tide_mdbc_slip_of(&P, &v, b) : TIDE_SLIP_VEL0, S, n2, vw2,
		                 v.rho[b], &rho, vb);
		v.rho[b] = rho;
		if (VEL) { v.vx[b] = vb[0]; v.vy[b] = vb[1]; v.vz[b] = vb[2]; }
	}
}

extern "C" void tide_mdbc_ghost_cuda(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_block_arg A;
	int nh;
	tide_motion_ids M;
	starpu_codelet_unpack_args(cl_arg, &P, &A, &nh, &M, 0);
	STARPU_ASSERT(nh >= 0 && nh <= TIDE_MAX_NEIGHBOURS);
	tide_block_view v = tide_block_view_of(buffers[0]);
	if (v.count == 0) return;
	const uint32_t *start = (const uint32_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
	mdbc_halos H;
	for (int h = 0; h < nh; h++) {
		tide_block_view hv = tide_block_view_of(buffers[2 + h]);
		H.h[h] = tide_mdbc_src_of(&hv);
	}
	cudaStream_t st = starpu_cuda_get_local_stream();
	/* which of the block's cells hold fluid, a byte each, in the block's work space (free from
	 * integrate to sph_forces, block.h; mdbc_ghost runs in that interval with the block RW);
	 * a block with more cells than that space holds bytes goes without (every row scanned) */
	uint32_t ncell = tide_box_ncell(&A);
	uint8_t *flags = NULL;
	if ((size_t)ncell <= (size_t)TIDE_BLOCK_WORK_WORDS * 4u * v.cap) {
		flags = (uint8_t *)v.ax;
		TIDE_CUDA_CHECK(cudaMemsetAsync(flags, 0, ncell, st));
		fluid_cells_kernel<<<tide_blocks_for(v.count, 256), 256, 0, st>>>(start, ncell, v.type,
		                                                                  v.count, flags);
	}
	unsigned nblk = tide_blocks_for(v.count, MDBC_THREADS);
	if (P.mdbc_slip == TIDE_SLIP_VEL0)
		mdbc_ghost_kernel<0><<<nblk, MDBC_THREADS, 0, st>>>(P, A, v, start, flags, H, nh, M);
	else
		mdbc_ghost_kernel<1><<<nblk, MDBC_THREADS, 0, st>>>(P, A, v, start, flags, H, nh, M);
	TIDE_CUDA_CHECK(cudaGetLastError());
}
