// SPDX-License-Identifier: LGPL-2.1-or-later
// mdbc_ghost on the GPU (the same interpolation as the CPU, include/tide/mdbc.h), a warp per
// ghost node: each warp takes a window of 32 particles of the cell-sorted block, finds its
// boundary particles with one ballot (a window of fluid alone leaves at once), and for each of
// them in turn its 32 lanes stride through the candidate rows together — coalesced loads, and
// every lane busy, where one thread per boundary particle kept most lanes of a mixed window
// idle while their neighbours each walked ~1700 candidates alone.  Float sums, combined by a
// butterfly of shuffles; lane 0 solves the small system and writes.
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

template <int VEL>
__global__ static void mdbc_ghost_kernel(tide_sph_params P, tide_block_arg A, tide_block_view v,
                                         const uint32_t *start, mdbc_halos H, int nh,
                                         tide_motion_ids M)
{
	constexpr int NS = VEL ? TIDE_MDBC_NS : TIDE_MDBC_NS_RHO;
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
		float vw[3], vb[3], rho;
		tide_mdbc_wall_velocity(&v, b, &M, vw);
		if (nb[0] == 0.f && nb[1] == 0.f && nb[2] == 0.f) {
			if (VEL && lane == 0) { v.vx[b] = vw[0]; v.vy[b] = vw[1]; v.vz[b] = vw[2]; }
			continue;
		}
		const double g[3] = {v.x[b] + 2.0 * (double)nb[0], v.y[b] + 2.0 * (double)nb[1],
		                     v.z[b] + 2.0 * (double)nb[2]};
		tide_mdbc_cells C;
		tide_mdbc_cells_of(&P, &A, g, &C);
		float S[TIDE_MDBC_NS];
#pragma unroll
		for (int q = 0; q < TIDE_MDBC_NS; q++) S[q] = 0.f;
		for (int row = 0; row < 9; row++) {
			uint32_t o[2], key[2][2];
			int nkey;
			tide_mdbc_row(&C, &A, start, row, o, key, &nkey);
			for (uint32_t j = o[0] + lane; j < o[1]; j += 32u) tide_mdbc_add(&K, &own, j, g, VEL, S);
			/* the halo ranges: each lane binary-searches one end of one halo's range at
			 * once (lane 2h + e: halo h, e = 0 the first key, 1 past the last), instead of
			 * the whole warp searching them one after the other */
			for (int m = 0; m < nkey; m++)
				for (int t0 = 0; t0 < 2 * nh; t0 += 32) {
					int t = t0 + (int)lane;
					uint32_t mine = 0;
					if (t < 2 * nh) {
						const tide_mdbc_src *s = &H.h[t >> 1];
						mine = tide_lower_bound(s->key, s->count, key[m][t & 1]);
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
		/* a dry ghost (a wall above the water: most of a dam break's walls) skips the reduction:
		 * no fluid, so the density stays and the velocity is the wall's (tide_mdbc_finish) */
		if (!__any_sync(FULL_MASK, S[0] > 0.f)) {
			if (VEL && lane == 0) { v.vx[b] = vw[0]; v.vy[b] = vw[1]; v.vz[b] = vw[2]; }
			continue;
		}
#pragma unroll
		for (int q = 0; q < NS; q++)
			for (int d = 16; d > 0; d >>= 1) S[q] += __shfl_xor_sync(FULL_MASK, S[q], d);
		if (lane == 0) {
			tide_mdbc_finish(&P, P.mdbc_slip, S, nb, vw, v.rho[b], &rho, vb);
			v.rho[b] = rho;
			if (VEL) { v.vx[b] = vb[0]; v.vy[b] = vb[1]; v.vz[b] = vb[2]; }
		}
	}
}

extern "C" void tide_mdbc_ghost_cuda(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_block_arg A;
	int nh;
	tide_motion_ids M;
	starpu_codelet_unpack_args(cl_arg, &P, &A, &nh, &M);
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
	unsigned nblk = tide_blocks_for(v.count, 128);
	if (P.mdbc_slip == TIDE_SLIP_VEL0)
		mdbc_ghost_kernel<0><<<nblk, 128, 0, st>>>(P, A, v, start, H, nh, M);
	else
		mdbc_ghost_kernel<1><<<nblk, 128, 0, st>>>(P, A, v, start, H, nh, M);
	TIDE_CUDA_CHECK(cudaGetLastError());
}
