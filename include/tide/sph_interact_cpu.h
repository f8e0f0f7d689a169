/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CPU pair loops of codelets/sph_forces.c, written once for any vector width: the file
 * includes this header once per width, with TIDE_CPU_VW (4, 8 or 16 floats) and TIDE_CPU_SFX (a
 * name suffix) defined, so there is no include guard.  The includer defines fws (the workspace),
 * nbr (a neighbour cell) and tide_kparams (scalar constants) first.  The pair terms are the SIMD
 * form of the pair interaction, vpair of sph_pair.h (beside the scalar form tide_pair_k),
 * evaluated once per pair for both particles. */
#if !defined(TIDE_CPU_VW) || !defined(TIDE_CPU_SFX)
#error "define TIDE_CPU_VW and TIDE_CPU_SFX before including tide/sph_interact_cpu.h"
#endif
#include "tide/sph_pair.h" /* the SIMD form for this width and its names (vf, vsplat, ...) */

#define isums TIDE_CPU_N(isums)
#define pair_range TIDE_CPU_N(pair_range)
#define cell_pairs_k TIDE_CPU_N(cell_pairs_k)

/* One particle i against the particles [a, b) of the workspace, i's position shifted into the
 * frame of their cell.  Every pair term goes to i's sums and to j's accumulators. */
typedef struct isums {
	vf ax, ay, az, dr, mu;
	vf g[6];   /* laminar+sps: the velocity gradient */
} isums;

/* fluid_i: i is a fluid particle (full momentum); otherwise a boundary particle, whose
 * candidates are all fluid and which itself only integrates continuity.  kernel and diffusion
 * are constants where this is inlined.  contact: 0 fluid candidates; 1 boundary candidates
 * under DBC (the pairs of a floating particle with another body's: the SPH pair terms); 2 the
 * same under mDBC (the contact force of sph_pair.h instead). */
static inline __attribute__((always_inline)) void
pair_range(const kconst *K, fws *W, const ivals *I, isums *S, int fluid_i, int kernel,
           int diffusion, uint32_t a, uint32_t b, int contact)
{
	vi lane;
	for (int k = 0; k < VW; k++) lane[k] = k;
	const float *restrict X = W->x, *restrict Y = W->y, *restrict Z = W->z;
	float *restrict AX = W->ax, *restrict AY = W->ay, *restrict AZ = W->az;
	float *restrict DR = W->dr, *restrict MU = W->mu;
	vf h2x4 = K->h2x4, tiny = K->tiny;
	vf xi = I->x, yi = I->y, zi = I->z;
	for (uint32_t j = a; j < b; j += VW) {
		int32_t left = (int32_t)(b - j);
		vi valid = lane < left - (vi){0};
		vf dx = xi - vload(X + j);
		vf dy = yi - vload(Y + j);
		vf dz = zi - vload(Z + j);
		vf r2 = dx * dx + dy * dy + dz * dz;
		vi in = (r2 < h2x4) & (r2 >= tiny) & valid;
		if (contact) {
			/* boundary-boundary pairs: only a floating particle with a particle of another
			 * body (fl: 0 fixed, -(k + 1) floating body k) */
			vf flj = vload(W->fl + j), zero = vsplat(0.f);
			in &= (flj != I->fl) & ((flj < zero) | (I->fl < zero));
		}
		if (!vany(in)) continue;
		if (contact == 2) {
			/* mDBC: the contact force alone (sph_pair.h), a_i = c r_ij, a_j = -a_i, from
			 * the bodies' own velocities (a mirrored wall's vx.. are the ghost's) */
			const float *OX = K->own ? W->ox : W->vx, *OY = K->own ? W->oy : W->vy,
			            *OZ = K->own ? W->oz : W->vz;
			vf dvr = (I->ox - vload(OX + j)) * dx + (I->oy - vload(OY + j)) * dy +
			         (I->oz - vload(OZ + j)) * dz;
			vf c = vand(vcontact(K->kc, K->gc, K->dc, r2, dvr), in);
			S->ax += c * dx;
			S->ay += c * dy;
			S->az += c * dz;
			vstore(AX + j, vload(AX + j) - c * dx);
			vstore(AY + j, vload(AY + j) - c * dy);
			vstore(AZ + j, vload(AZ + j) - c * dz);
			continue;
		}
		vf mj = vload(W->m + j);
		vf vxj = vload(W->vx + j), vyj = vload(W->vy + j), vzj = vload(W->vz + j);
		vf oxj = vxj, oyj = vyj, ozj = vzj;
		if (K->own) {
			oxj = vload(W->ox + j);
			oyj = vload(W->oy + j);
			ozj = vload(W->oz + j);
		}
		vpair_out o = vpair(K, I, fluid_i, kernel, diffusion, dx, dy, dz, r2, in, vxj, vyj,
		                    vzj, oxj, oyj, ozj, vload(W->rho + j), mj, vload(W->pr + j),
		                    vload(W->cs + j), vload(W->fl + j));
		vf tx = o.tx, ty = o.ty, tz = o.tz, amu = o.amu, drj = o.drj;
		if (K->sps) { /* a constant where this is inlined (cell_pairs_k's sps) */
			vf tj[6];
			for (int k = 0; k < 6; k++) tj[k] = vload(W->tau[k] + j);
			vsps_out q = vsps(I->tau, tj, o.F, dx, dy, dz, I->vx - vload(W->vx + j),
			                  I->vy - vload(W->vy + j), I->vz - vload(W->vz + j));
			/* i takes +m_j t, j -m_i t: folded into t with a minus sign, as the laminar term */
			tx -= q.tx;
			ty -= q.ty;
			tz -= q.tz;
			vf wi = -vload(W->mr + j), wj = -I->mr;   /* -m_j/rho_j, -m_i/rho_i */
			for (int k = 0; k < 6; k++) {
				if (fluid_i) S->g[k] += wi * q.g[k];
				vstore(W->g[k] + j, vload(W->g[k] + j) + wj * q.g[k]);
			}
		}
		/* a boundary i takes its fluid neighbours' momentum terms too: only a floating body's
		 * particle keeps them (sph_forces' write-back), for the body's force */
		S->ax -= mj * tx;
		S->ay -= mj * ty;
		S->az -= mj * tz;
		S->dr += o.dri;
		S->mu = vmax(S->mu, amu);
		vf mi = I->m;
		vstore(AX + j, vload(AX + j) + mi * tx);
		vstore(AY + j, vload(AY + j) + mi * ty);
		vstore(AZ + j, vload(AZ + j) + mi * tz);
		vstore(DR + j, vload(DR + j) + drj);
		vstore(MU + j, vmax(vload(MU + j), amu));
	}
}

static inline __attribute__((always_inline)) void
cell_pairs_k(const tide_kparams *P, fws *W, uint32_t cs, uint32_t cf, uint32_t ce, const nbr *nb,
             int nn, int kernel, int diffusion, int sps)
{
	int contact = P->contact;
	kconst KC = {vsplat(P->h2x4), vsplat(P->tiny), vsplat(P->invh), vsplat(P->af), vsplat(P->h),
	             vsplat(P->eta2), vsplat(P->hvisc), vsplat(1.f), vsplat(2.f),
	             vsplat(P->dhc0x2), P->rho0,
	             {P->rhoh_g[0], P->rhoh_g[1], P->rhoh_g[2]}, P->inv_gamma, vsplat(P->lam), sps,
	             vsplat(P->kc), vsplat(P->gc), vsplat(P->dc), P->own};
	const kconst *K = &KC;
	for (uint32_t i = cs; i < ce; i++) {
		int fluid_i = i < cf;
		ivals I;
		I.vx = vsplat(W->vx[i]); I.vy = vsplat(W->vy[i]); I.vz = vsplat(W->vz[i]);
		I.ox = P->own ? vsplat(W->ox[i]) : I.vx;
		I.oy = P->own ? vsplat(W->oy[i]) : I.vy;
		I.oz = P->own ? vsplat(W->oz[i]) : I.vz;
		I.rho = vsplat(W->rho[i]); I.pr = vsplat(W->pr[i]); I.cs = vsplat(W->cs[i]);
		I.m = vsplat(W->m[i]); I.fl = vsplat(W->fl[i]);
		I.mr = vsplat(W->m[i] / W->rho[i]);   /* m_i / rho_i of j's diffusion */
		isums S;
		S.ax = S.ay = S.az = S.dr = S.mu = vsplat(0.f);
		for (int k = 0; k < 6; k++) {
			I.tau[k] = vsplat(sps ? W->tau[k][i] : 0.f);
			S.g[k] = vsplat(0.f);
		}
		for (int k = 0; k < nn; k++) {
			const nbr *d = &nb[k];
			uint32_t a, b;
			if (fluid_i) {
				a = d->self ? i + 1 : d->s;
				b = d->e;
			} else {
				/* the cell's own fluid particles met i already */
				a = d->self ? d->fe : d->s;
				b = d->fe;
			}
			/* floating bodies: a boundary i also meets the boundary particles of the cell
			 * (in its own, those after it), for the pairs of a floating particle with another
			 * body's: the floating particle's force as a fluid particle's from a wall, and
			 * the wall's continuity (DBC's repulsion), as DualSPHysics' floating particles */
			uint32_t ca = d->self ? i + 1 : d->fe;
			int touch = !fluid_i && contact && ca < d->e;
			if (a >= b && !touch) continue;
			I.x = vsplat(W->x[i] + d->sx);
			I.y = vsplat(W->y[i] + d->sy);
			I.z = vsplat(W->z[i] + d->sz);
			if (a < b) {
				if (fluid_i) pair_range(K, W, &I, &S, 1, kernel, diffusion, a, b, 0);
				else pair_range(K, W, &I, &S, 0, kernel, 0, a, b, 0);
			}
			if (touch) pair_range(K, W, &I, &S, 0, kernel, 0, ca, d->e, contact);
		}
		W->ax[i] += vsum(S.ax);
		W->ay[i] += vsum(S.ay);
		W->az[i] += vsum(S.az);
		W->dr[i] += vsum(S.dr);
		float mu = vhmax(S.mu);
		if (mu > W->mu[i]) W->mu[i] = mu;
		for (int k = 0; sps && k < 6; k++) W->g[k][i] += vsum(S.g[k]);
	}
}

#define TIDE_CPU_ONE(k, d, q)                                                                   \
	static void TIDE_CPU_N(cell_pairs_##k##_##d##_##q)(const tide_kparams *P, fws *W,         \
	                                                   uint32_t cs, uint32_t cf, uint32_t ce,  \
	                                                   const nbr *nb, int nn)                  \
	{                                                                                           \
		cell_pairs_k(P, W, cs, cf, ce, nb, nn, k, d, q);                                    \
	}
/* q: laminar+sps (a constant: the other viscosities' loops stay as they were) */
TIDE_CPU_ONE(0, 0, 0) TIDE_CPU_ONE(0, 1, 0) TIDE_CPU_ONE(0, 2, 0)
TIDE_CPU_ONE(1, 0, 0) TIDE_CPU_ONE(1, 1, 0) TIDE_CPU_ONE(1, 2, 0)
TIDE_CPU_ONE(0, 0, 1) TIDE_CPU_ONE(0, 1, 1) TIDE_CPU_ONE(0, 2, 1)
TIDE_CPU_ONE(1, 0, 1) TIDE_CPU_ONE(1, 1, 1) TIDE_CPU_ONE(1, 2, 1)
#undef TIDE_CPU_ONE

/* All pairs of one cell with the neighbour cells nb (itself among them unless it is a halo
 * cell): cs..cf its fluid particles, cf..ce its boundary particles. */
static void TIDE_CPU_N(cell_pairs)(const tide_kparams *P, fws *W, uint32_t cs, uint32_t cf,
                                   uint32_t ce, const nbr *nb, int nn)
{
	static void (*const fn[2][2][3])(const tide_kparams *, fws *, uint32_t, uint32_t, uint32_t,
	                                 const nbr *, int) = {
		{{TIDE_CPU_N(cell_pairs_0_0_0), TIDE_CPU_N(cell_pairs_0_1_0), TIDE_CPU_N(cell_pairs_0_2_0)},
		 {TIDE_CPU_N(cell_pairs_1_0_0), TIDE_CPU_N(cell_pairs_1_1_0), TIDE_CPU_N(cell_pairs_1_2_0)}},
		{{TIDE_CPU_N(cell_pairs_0_0_1), TIDE_CPU_N(cell_pairs_0_1_1), TIDE_CPU_N(cell_pairs_0_2_1)},
		 {TIDE_CPU_N(cell_pairs_1_0_1), TIDE_CPU_N(cell_pairs_1_1_1), TIDE_CPU_N(cell_pairs_1_2_1)}},
	};
	fn[P->sps != 0][P->kernel != 0][P->diffusion < 0 ? 0 : (P->diffusion > 2 ? 2 : P->diffusion)](
	        P, W, cs, cf, ce, nb, nn);
}

#undef isums
#undef pair_range
#undef cell_pairs_k
#include "tide/sph_pair_undef.h"
