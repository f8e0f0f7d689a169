// SPDX-License-Identifier: LGPL-2.1-or-later
// sph_forces on the GPU for physics.viscosity = laminar+sps (included by sph_forces.cu only).
// The SPS closure reads every neighbour's tau and accumulates a 6-component velocity gradient
// per particle (sph_pair.h); rather than widen the tiles and the split-run sums of the
// cell-tiled kernel, a laminar+sps run takes this plain kernel: one thread per particle, its 27
// neighbour cells straight from the block (cell starts) and from the halos (binary search by
// key), the pair terms of tide_pair_k plus tide_pair_sps_k, then the same step reduction.  The
// same physics as the CPU codelet; slower than the tiled kernel (no shared-memory tiles).
#include "tide/sps.h"

/* What the kernel reads of a block or a halo: sph_forces' fields and tau. */
struct sps_view {
	const double *x, *y, *z;
	const float *vx, *vy, *vz, *rho;
	const float *tau[6];
	const uint8_t *type;
	const uint32_t *key;
	uint32_t count;
	const uint32_t *id;
};
struct sps_halos {
	sps_view h[TIDE_MAX_NEIGHBOURS];
	int n;
};
__host__ __device__ static sps_view sps_view_of(const tide_block_view &v)
{
	/* the keys: a halo's (the block's own particles are found by its cell starts) */
	sps_view s = {v.x, v.y, v.z, v.vx, v.vy, v.vz, v.rho, TIDE_SPS_TAU_PTRS(v), v.type,
	              tide_halo_keys(&v), v.count, v.id};
	return s;
}

/* Pairs of fluid or boundary particle i with src[ja, jb) (a boundary particle meets fluid only). */
template <int KERNEL, int DIFFUSION>
__device__ static void sps_range(const tide_sph_params &P, const tide_pi &pi, int fi, double xi,
                                 double yi, double zi, const float taui[6], const sps_view &src,
                                 uint32_t ja, uint32_t jb, tide_acc &acc, float grad[6])
{
	for (uint32_t j = ja; j < jb; j++) {
		uint32_t tj = src.type[j];
		if (pi.fluid != 1 && tj != TIDE_FLUID) {
			/* boundary pairs: only a floating particle with another body's (contact, as
			 * sph_forces.c); fi: i's floating index + 1 (0: fixed) */
			int fj = P.nfloat ? tide_floating_index(&P, src.id[j]) + 1 : 0;
			if (!P.nfloat || fj == fi || (fj == 0 && fi == 0)) continue;
		}
		float dx = (float)(xi - src.x[j]), dy = (float)(yi - src.y[j]), dz = (float)(zi - src.z[j]);
		float r2 = dx * dx + dy * dy + dz * dz;
		if (r2 >= P.h2x4) continue;
		float rj = src.rho[j], vxj = src.vx[j], vyj = src.vy[j], vzj = src.vz[j];
		float ov[3]; /* j's own velocity (continuity, contact): sph_pair.h */
		tide_wall_velocity(&P, tj, P.nfloat || P.nwall ? src.id[j] : 0u, src.x[j], src.y[j],
		                   src.z[j], vxj, vyj, vzj, ov);
		if (pi.fluid == 2 && tj != TIDE_FLUID && tide_contact_force(&P)) {
			/* mDBC: another body's particle meets it by the contact force (sph_pair.h) */
			tide_pair_contact(&P, dx, dy, dz, r2, pi.vx - ov[0], pi.vy - ov[1], pi.vz - ov[2],
			                  &acc);
			continue;
		}
		tide_pair_k(&P, KERNEL, DIFFUSION, &pi, dx, dy, dz, r2, vxj, vyj, vzj, ov[0], ov[1],
		            ov[2], rj, tj, tide_p_over_rho2(&P, rj), tide_sound(&P, rj), &acc);
		if (!pi.fluid) continue;   /* floating i: the stress of fluid j (its own tau is 0) */
		float tauj[6];
		for (int k = 0; k < 6; k++) tauj[k] = src.tau[k][j];
		tide_pair_sps_k(&P, KERNEL, taui, dx, dy, dz, r2, pi.vx - vxj, pi.vy - vyj, pi.vz - vzj,
		                rj, tj, tauj, &acc, grad);
	}
}

template <int KERNEL, int DIFFUSION>
__global__ static void forces_sps_kernel(tide_sph_params P, tide_block_arg A, tide_block_view v,
                                         const uint32_t *start, sps_halos H, tide_step_reduce *red,
                                         tide_cell_sel S)
{
	__shared__ block_rec R;
	if (threadIdx.x == 0) rec_init(R);
	__syncthreads();
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	uint32_t key_i = i < v.count ? tide_box_key(&P.grid, &A, tide_sorted_cell(start, tide_box_ncell(&A), i)) : 0;
	if (i < v.count && key_in_part(S, P.grid, key_i)) { /* the other part: its task's */
		const tide_grid &g = P.grid;
		int n[3] = {g.n[g.axis[0]], g.n[g.axis[1]], g.n[g.axis[2]]};
		int k[3];
		tide_key_cell(&g, key_i, k);
		float rho = v.rho[i];
		int fluid = v.type[i] == TIDE_FLUID;
		int fi = fluid ? 0 : tide_floating_index(&P, v.id[i]) + 1, flt = fi > 0;
		tide_pi pi;
		pi.vx = v.vx[i]; pi.vy = v.vy[i]; pi.vz = v.vz[i]; pi.rho = rho;
		pi.p_over_rho2 = tide_p_over_rho2(&P, rho);
		pi.c = tide_sound(&P, rho);
		pi.fluid = fluid ? 1 : flt ? 2 : 0;
		double xi = v.x[i], yi = v.y[i], zi = v.z[i];
		sps_view own = sps_view_of(v);
		float taui[6], grad[6] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
		for (int q = 0; q < 6; q++) taui[q] = fluid ? own.tau[q][i] : 0.f;
		tide_acc acc = {0.f, 0.f, 0.f, 0.f, 0.f};
		int c[3];
		if (tide_pair_sums_used(&P, fluid) || flt)
		for (c[0] = k[0] - 1; c[0] <= k[0] + 1; c[0]++)
			for (c[1] = k[1] - 1; c[1] <= k[1] + 1; c[1]++)
				for (c[2] = k[2] - 1; c[2] <= k[2] + 1; c[2]++) {
					if (c[0] < 0 || c[0] >= n[0] || c[1] < 0 || c[1] >= n[1] || c[2] < 0 ||
					    c[2] >= n[2])
						continue;
					if (tide_box_contains(&A, c)) {
						uint32_t b = tide_box_index(&A, c);
						sps_range<KERNEL, DIFFUSION>(P, pi, fi, xi, yi, zi, taui, own, start[b],
						                             start[b + 1], acc, grad);
						continue;
					}
					uint32_t key = ((uint32_t)c[0] * (uint32_t)n[1] + (uint32_t)c[1]) *
					                       (uint32_t)n[2] + (uint32_t)c[2];
					for (int h = 0; h < H.n; h++) {
						const sps_view &src = H.h[h];
						uint32_t ja = tide_lower_bound(src.key, src.count, key);
						uint32_t jb = tide_lower_bound(src.key, src.count, key + 1);
						sps_range<KERNEL, DIFFUSION>(P, pi, fi, xi, yi, zi, taui, src, ja, jb,
						                             acc, grad);
					}
				}
		if (fluid) {
			acc.ax += P.g[0]; acc.ay += P.g[1]; acc.az += P.g[2];
		} else if (!flt) { /* floating: the pair terms alone (sph_forces.c) */
			acc.ax = acc.ay = acc.az = 0.f;
		}
		if (!tide_pair_sums_used(&P, fluid)) { /* a floating particle under mDBC: as the CPU */
			acc.drho = 0.f;
			acc.mu_max = 0.f;
		}
		v.ax[i] = acc.ax; v.ay[i] = acc.ay; v.az[i] = acc.az; v.drho[i] = acc.drho;
		float *gout[6] = TIDE_SPS_GRAD_PTRS(v);
		for (int q = 0; q < 6; q++) gout[q][i] = fluid ? grad[q] : 0.f;
		rec_particle(R, P, acc, rho, fluid, pi.vx, pi.vy, pi.vz);
	}
	__syncthreads();
	if (threadIdx.x == 0) rec_flush(R, red);
}

/* The laminar+sps launch of tide_sph_forces_cuda (buffers: block, cell starts, reduction, halos). */
static void sph_forces_sps_launch(const tide_sph_params &P, const tide_block_arg &A,
                                  const tide_block_view &v, const uint32_t *start,
                                  void *buffers[], int nh, tide_step_reduce *red, cudaStream_t s,
                                  const tide_cell_sel &S)
{
	sps_halos H;
	H.n = nh;
	for (int h = 0; h < nh; h++) H.h[h] = sps_view_of(tide_block_view_of(buffers[3 + h]));
	const unsigned T = 128;
	auto launch = [&](auto kern) {
		kern<<<tide_blocks_for(v.count, T), T, 0, s>>>(P, A, v, start, H, red, S);
	};
	int kd = 3 * (P.kernel == TIDE_KERNEL_WENDLAND) + P.diffusion;
	switch (kd) {
	case 0: launch(forces_sps_kernel<TIDE_KERNEL_CUBIC, 0>); break;
	case 1: launch(forces_sps_kernel<TIDE_KERNEL_CUBIC, 1>); break;
	case 2: launch(forces_sps_kernel<TIDE_KERNEL_CUBIC, 2>); break;
	case 3: launch(forces_sps_kernel<TIDE_KERNEL_WENDLAND, 0>); break;
	case 4: launch(forces_sps_kernel<TIDE_KERNEL_WENDLAND, 1>); break;
	default: launch(forces_sps_kernel<TIDE_KERNEL_WENDLAND, 2>); break;
	}
}
