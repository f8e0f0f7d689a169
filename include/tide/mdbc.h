/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* mDBC, the modified dynamic boundary condition (English et al. 2021, "Modified dynamic boundary
 * conditions (mDBC) for general-purpose smoothed particle hydrodynamics (SPH)", Comp. Part. Mech.;
 * DualSPHysics 5), written once for the CPU and CUDA halves of the codelet mdbc_ghost.
 *
 * A boundary particle b with normal n_b (block.h: vx1..vz1, pointing into the fluid, of length
 * its distance to the boundary surface) has its ghost node x_g = x_b + 2 n_b in the fluid.  The
 * density there and its gradient come from the fluid particles j around x_g by first-order
 * consistent SPH interpolation (Liu & Liu 2006): with V_j = m_j / rho_j, d_j = x_g - x_j,
 * W_j = W(|d_j|) and grad W_j = F(|d_j|) d_j (the gradient with respect to x_g),
 *
 *   [ sum V W        sum V d^T W      ] [ rho_g       ]   [ sum V rho_j W      ]
 *   [ sum V gradW    sum V gradW d^T  ] [ -grad rho_g ] = [ sum V rho_j gradW  ]
 *
 * (4x4 in 3-D, 3x3 in 2-D: exact for a density linear in space), and the boundary particle takes
 *   rho_b = rho_g + (x_b - x_g) . grad rho_g = u_0 + 2 sum_k u_k n_k,  u = (rho_g, -grad rho_g).
 * As DualSPHysics: when |det| of the matrix is below TIDE_MDBC_DET_LIMIT (too few fluid
 * particles around the ghost, e.g. near a free surface) the Shepard value sum V rho W / sum V W
 * is used instead; with no fluid particle in the ghost's support the particle keeps its
 * density.  The result is kept >= rho0, as for DBC boundary particles in tide (a wall never
 * pulls the fluid).  The velocity of fixed walls stays zero (DualSPHysics 5.0's mDBC for fixed
 * boundaries, SlipMode 1: "DBC vel=0"), so the viscous term sees a no-slip wall.
 *
 * Which fluid particles are seen: those of the block and of its neighbours' halos, i.e. of the
 * block's box grown by one cell (2h).  The ghost's support is entirely inside that when the
 * ghost's cell is a cell of the block's box; a ghost in a neighbour block's cell (only a boundary
 * particle within 2 |n_b| of a block face across which its normal points) sees the cells of its
 * support that lie in the grown box only: a corrected interpolation over fewer particles. */
#ifndef TIDE_MDBC_H
#define TIDE_MDBC_H
#include <math.h>
#include <stdint.h>
#include "tide/block.h"
#include "tide/sph_interact.h"   /* kernels, tide_lower_bound */

#define TIDE_MDBC_DET_LIMIT 1e-3   /* DualSPHysics' DetermLimit; the determinant is dimensionless */
#define TIDE_MDBC_MAX_SRC 26       /* = TIDE_MAX_NEIGHBOURS (codelets.h) */

/* What mdbc_ghost reads of a block or halo (cell-sorted; key: global cell key). */
typedef struct tide_mdbc_src {
	const double *x, *y, *z;
	const float *rho;
	const uint32_t *type, *key;
	uint32_t count;
} tide_mdbc_src;

TIDE_HD tide_mdbc_src tide_mdbc_src_of(const tide_block_view *v)
{
	tide_mdbc_src s = {v->x, v->y, v->z, v->rho, v->type, v->key, v->count};
	return s;
}

/* The moment matrix and right-hand side at one ghost node (rows/columns: 1, x, y, z). */
typedef struct tide_mdbc_sums {
	double a[4][4], b[4];
} tide_mdbc_sums;

/* Adds the fluid particles [ja, jb) of src to the sums of the ghost node g. */
TIDE_HD void tide_mdbc_gather(const tide_sph_params *P, const tide_mdbc_src *src, uint32_t ja,
                              uint32_t jb, const double g[3], tide_mdbc_sums *S)
{
	const float inv_h = 1.f / P->h, m = P->mass[TIDE_FLUID];
	const double h2x4 = (double)P->h2x4;
	/* local sums (kept in registers: S might alias the source arrays as far as the compiler
	 * knows), added to S at the end */
	double a[4][4] = {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}}, b[4] = {0, 0, 0, 0};
	for (uint32_t j = ja; j < jb; j++) {
		if (src->type[j] != TIDE_FLUID) continue; /* (the CPU passes fluid alone) */
		double d[4] = {1.0, g[0] - src->x[j], g[1] - src->y[j], g[2] - src->z[j]};
		double r2 = d[1] * d[1] + d[2] * d[2] + d[3] * d[3];
		if (!(r2 < h2x4)) continue;
		float q = (float)sqrt(r2) * inv_h, rj = src->rho[j];
		double V = (double)(m / rj);
		double w = (double)(P->aw * tide_kernel_w(P->kernel, q)) * V;
		double f = (double)(P->af * tide_kernel_f(P->kernel, q)) * V;
		double row[4] = {w, f * d[1], f * d[2], f * d[3]};
		for (int r = 0; r < 4; r++) {
			for (int c = 0; c < 4; c++) a[r][c] += row[r] * d[c];
			b[r] += row[r] * (double)rj;
		}
	}
	for (int r = 0; r < 4; r++) {
		for (int c = 0; c < 4; c++) S->a[r][c] += a[r][c];
		S->b[r] += b[r];
	}
}

/* Solves the n x n system A u = b (Gaussian elimination with partial pivoting, A and b
 * overwritten); returns the determinant (0 if singular, u then unset). */
TIDE_HD double tide_mdbc_solve(int n, double A[4][4], double b[4], double u[4])
{
	double det = 1.0;
	for (int k = 0; k < n; k++) {
		int p = k;
		for (int r = k + 1; r < n; r++)
			if (fabs(A[r][k]) > fabs(A[p][k])) p = r;
		if (A[p][k] == 0.0) return 0.0;
		if (p != k) {
			for (int c = 0; c < n; c++) { double t = A[k][c]; A[k][c] = A[p][c]; A[p][c] = t; }
			double t = b[k]; b[k] = b[p]; b[p] = t;
			det = -det;
		}
		det *= A[k][k];
		for (int r = k + 1; r < n; r++) {
			double f = A[r][k] / A[k][k];
			for (int c = k; c < n; c++) A[r][c] -= f * A[k][c];
			b[r] -= f * b[k];
		}
	}
	for (int k = n - 1; k >= 0; k--) {
		double s = b[k];
		for (int c = k + 1; c < n; c++) s -= A[k][c] * u[c];
		u[k] = s / A[k][k];
	}
	return det;
}

/* The density of a boundary particle at xb with normal nb from the sums at its ghost node, or
 * `keep` when the ghost has no fluid.  2-D cases (x-z plane) use rows/columns 1, x, z. */
TIDE_HD float tide_mdbc_density(const tide_sph_params *P, const tide_mdbc_sums *S, const float nb[3],
                                float keep)
{
	int n = P->dim == 3 ? 4 : 3;
	int ax[4] = {0, 1, P->dim == 3 ? 2 : 3, 3}; /* sums' row/column of the system's k */
	if (!(S->a[0][0] > 0.0)) return keep;
	double A[4][4], b[4], u[4] = {0, 0, 0, 0};
	for (int r = 0; r < n; r++) {
		for (int c = 0; c < n; c++) A[r][c] = S->a[ax[r]][ax[c]];
		b[r] = S->b[ax[r]];
	}
	double rho, det = tide_mdbc_solve(n, A, b, u);
	if (fabs(det) >= TIDE_MDBC_DET_LIMIT) {
		/* rho_b = rho_g + (x_b - x_g) . grad rho_g, x_b - x_g = -2 n_b, u_k = -grad_k rho_g */
		double nn[3] = {nb[0], nb[1], nb[2]};
		rho = u[0];
		for (int k = 1; k < n; k++) rho += 2.0 * u[k] * nn[ax[k] - 1];
	} else {
		rho = S->b[0] / S->a[0][0]; /* Shepard */
	}
	float r = (float)rho;
	return r < P->rho0 ? P->rho0 : r;
}

/* The density a boundary particle at xb with normal nb of the block of box A takes from its
 * ghost node, reading the fluid of the cell-sorted block `own` (cell starts `start`; it may hold
 * its fluid particles alone) and of its nh halos; `keep` for a particle without a normal or
 * whose ghost has no fluid. */
TIDE_HD float tide_mdbc_particle(const tide_sph_params *P, const tide_block_arg *A,
                                 const tide_mdbc_src *own, const uint32_t *start,
                                 const tide_mdbc_src *halo, int nh, const float nb[3],
                                 const double xb[3], float keep)
{
	if (nb[0] == 0.f && nb[1] == 0.f && nb[2] == 0.f) return keep;
	const tide_grid *gr = &P->grid;
	double g[3] = {xb[0] + 2.0 * (double)nb[0], xb[1] + 2.0 * (double)nb[1],
	               xb[2] + 2.0 * (double)nb[2]};
	int k[3], nk[3] = {gr->n[gr->axis[0]], gr->n[gr->axis[1]], gr->n[gr->axis[2]]};
	tide_cell_k(gr, g[0], g[1], g[2], k);
	tide_block_arg E = tide_box_grow(gr, A);
	tide_mdbc_sums S;
	for (int r = 0; r < 4; r++) {
		S.b[r] = 0.0;
		for (int c = 0; c < 4; c++) S.a[r][c] = 0.0;
	}
	/* the ghost's offsets inside its cell along the key axes: a neighbour cell is read only if
	 * it comes within the support 2h (= the cell side) of the ghost */
	double off[3], cs = (double)gr->cell, r2max = (double)P->h2x4;
	for (int j = 0; j < 3; j++) {
		int a = gr->axis[j];
		off[j] = g[a] - (gr->origin[a] + (double)k[j] * cs);
	}
	for (int c0 = k[0] - 1; c0 <= k[0] + 1; c0++)
		for (int c1 = k[1] - 1; c1 <= k[1] + 1; c1++)
			for (int c2 = k[2] - 1; c2 <= k[2] + 1; c2++) {
				int c[3] = {c0, c1, c2};
				if (c0 < 0 || c1 < 0 || c2 < 0 || c0 >= nk[0] || c1 >= nk[1] || c2 >= nk[2])
					continue;
				double gap2 = 0;
				for (int j = 0; j < 3; j++) {
					double e = c[j] < k[j] ? off[j] : c[j] > k[j] ? cs - off[j] : 0.0;
					if (e > 0) gap2 += e * e;
				}
				if (gap2 >= r2max) continue;
				if (tide_box_contains(A, c)) {
					uint32_t l = tide_box_index(A, c);
					tide_mdbc_gather(P, own, start[l], start[l + 1], g, &S);
				} else if (tide_box_contains(&E, c)) {
					uint32_t key = ((uint32_t)c0 * (uint32_t)nk[1] + (uint32_t)c1) *
					                       (uint32_t)nk[2] + (uint32_t)c2;
					for (int h = 0; h < nh; h++) {
						const tide_mdbc_src *s = &halo[h];
						uint32_t ja = tide_lower_bound(s->key, s->count, key);
						uint32_t jb = tide_lower_bound(s->key, s->count, key + 1);
						tide_mdbc_gather(P, s, ja, jb, g, &S);
					}
				} /* else outside what the block reads (see the head of the file) */
			}
	return tide_mdbc_density(P, &S, nb, keep);
}

#endif
