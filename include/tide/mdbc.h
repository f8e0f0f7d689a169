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
 *   [ sum V W        sum V d^T W      ] [ phi_g       ]   [ sum V phi_j W      ]
 *   [ sum V gradW    sum V gradW d^T  ] [ -grad phi_g ] = [ sum V phi_j gradW  ]
 *
 * (4x4 in 3-D, 3x3 in 2-D: exact for a field phi linear in space), and the boundary particle
 * takes rho_b = rho_g + (x_b - x_g) . grad rho_g = u_0 + 2 sum_k u_k n_k, u = (rho_g, -grad rho_g).
 * As DualSPHysics: when |det| of the matrix is below TIDE_MDBC_DET_LIMIT (too few fluid
 * particles around the ghost, e.g. near a free surface) the Shepard value sum V phi W / sum V W
 * is used instead; with no fluid particle in the ghost's support the particle keeps its
 * density.  The result is kept >= rho0, as for DBC boundary particles in tide (a wall never
 * pulls the fluid).
 *
 * Velocity (physics.mdbc_slip): with vel0 (DualSPHysics' default SlipMode 1, "DBC vel=0") the
 * boundary particle keeps its own velocity (zero for fixed walls).  With noslip (SlipMode 2) the
 * fluid velocity v_g at the ghost node, interpolated with the same corrected system (the
 * Shepard value where the density falls back to it), is mirrored across the wall:
 *   v_b = 2 v_wall - v_g,
 * so that the velocity the viscous term sees varies linearly through the wall surface, where it
 * is v_wall (no slip).  With freeslip (SlipMode 3) only its normal part is mirrored:
 *   v_b = v_g + 2 ((v_wall - v_g) . n^) n^,   n^ = n_b / |n_b|
 * (no penetration, no tangential drag).  v_b is written into the particle's vx, vy, vz: that is
 * the velocity the viscous terms of sph_forces and the gauges' forces read of a boundary
 * particle, and the halos, packed again after mdbc_ghost, carry it; integrate never advances a
 * boundary particle's velocity under mDBC.  The continuity equation and the contact of
 * floating bodies read the wall's own velocity v_wall instead (sph_pair.h, tide_wall_velocity,
 * from the particle's id: zero, or its prescribed body's rigid velocity).  v_wall is tide_mdbc_wall_velocity below: zero for fixed walls, the rigid
 * velocity for the moving bodies (motion.h).  A ghost without fluid gives v_b = v_wall.  A
 * floating body's particles are not mirrored (tide_mdbc_slip_of).
 *
 * Precision: the sums are accumulated in float, in a well-conditioned form: offsets from the
 * ghost node in units of h (d^ = d / h), kernel gradients times h^2, and densities as
 * rho_j - rho0 (the system is linear and its first column is the interpolation of 1, so
 * interpolating rho - rho0 and adding rho0 back gives the same rho_g without float's
 * cancellation of ~1000 kg/m^3 values).  Scaling rows and columns by h leaves the determinant as
 * DualSPHysics defines it (dimensionless).  The small system is solved in double.
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
#include "tide/cell_rows.h"      /* the cells a point's support reads */
#include "tide/motion.h"         /* the moving bodies' wall velocity */

/* Loops over the small system with fixed bounds, unrolled on the GPU so that every array index
 * is a constant: an array indexed by a variable goes to local memory, and the sums S with it
 * (they are passed to tide_mdbc_finish), which cost the ghost pass more than the sums
 * themselves. */
#ifdef __CUDA_ARCH__
#define TIDE_MDBC_UNROLL _Pragma("unroll")
#else
#define TIDE_MDBC_UNROLL
#endif

#define TIDE_MDBC_DET_LIMIT 1e-3   /* DualSPHysics' DetermLimit; the determinant is dimensionless */
#define TIDE_MDBC_MAX_SRC 26       /* = TIDE_MAX_NEIGHBOURS (codelets.h) */

/* What mdbc_ghost reads of a block or halo (cell-sorted; key: global cell key). */
typedef struct tide_mdbc_src {
	const double *x, *y, *z;
	const float *vx, *vy, *vz, *rho;
	const uint8_t *type;
	const uint32_t *key;
	uint32_t count;
} tide_mdbc_src;

TIDE_HD tide_mdbc_src tide_mdbc_src_of(const tide_block_view *v)
{
	/* the keys: a halo's (a block's own particles are found by its cell starts) */
	tide_mdbc_src s = {v->x, v->y, v->z, v->vx, v->vy, v->vz, v->rho, v->type, tide_halo_keys(v),
	                   v->count};
	return s;
}

/* The packed float sums at one ghost node (dimensionless, see the head of the file):
 *   [0] sum w   [1..3] sum w d^_k   [4..6] sum f d^_k   [7..12] sum f d^_k d^_l (xx xy xz yy yz zz)
 * then the right-hand sides of the fields phi = rho - rho0, vx, vy, vz, four each:
 *   [13 + 4q] sum w phi_q   [14 + 4q + k] sum f d^_k phi_q
 * with w = V W and f = V F h^2.  Only the first TIDE_MDBC_NS_RHO are summed under vel0. */
#define TIDE_MDBC_NS_RHO 17
#define TIDE_MDBC_NS 29

/* Per-run constants of the sums. */
typedef struct tide_mdbc_k {
	float inv_h, m, rho0, aw, afh2;
	int kernel;
} tide_mdbc_k;

TIDE_HD tide_mdbc_k tide_mdbc_consts(const tide_sph_params *P)
{
	tide_mdbc_k K;
	K.inv_h = 1.f / P->h;
	K.m = P->mass[TIDE_FLUID];
	K.rho0 = P->rho0;
	K.aw = P->aw;
	K.afh2 = P->af * P->h * P->h;
	K.kernel = P->kernel;
	return K;
}

/* Adds a fluid particle at d = (x_g - x_j) / h, of density rj (and velocity, with vel: the
 * velocity right-hand sides, a constant where this is inlined) to the sums S of the ghost
 * node, if it lies within the support. */
TIDE_HD void tide_mdbc_add_d(const tide_mdbc_k *K, const float d[3], float rj, float vx, float vy,
                             float vz, int vel, float S[TIDE_MDBC_NS])
{
	float q2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
	if (!(q2 < 4.f)) return;
	float V = K->m / rj, q = sqrtf(q2);
	float w = K->aw * tide_kernel_w(K->kernel, q) * V;
	float f = K->afh2 * tide_kernel_f(K->kernel, q) * V;
	float fd[3] = {f * d[0], f * d[1], f * d[2]};
	S[0] += w;
	for (int k = 0; k < 3; k++) {
		S[1 + k] += w * d[k];
		S[4 + k] += fd[k];
	}
	S[7] += fd[0] * d[0]; S[8] += fd[0] * d[1]; S[9] += fd[0] * d[2];
	S[10] += fd[1] * d[1]; S[11] += fd[1] * d[2]; S[12] += fd[2] * d[2];
#define TIDE_MDBC_RHS(p, phi) \
	do { \
		float phi_ = (phi); \
		S[13 + 4 * (p)] += w * phi_; \
		for (int k = 0; k < 3; k++) S[14 + 4 * (p) + k] += fd[k] * phi_; \
	} while (0)
	TIDE_MDBC_RHS(0, rj - K->rho0);
	if (vel) {
		TIDE_MDBC_RHS(1, vx);
		TIDE_MDBC_RHS(2, vy);
		TIDE_MDBC_RHS(3, vz);
	}
#undef TIDE_MDBC_RHS
}

/* The same for particle j of src (skipped unless fluid). */
TIDE_HD void tide_mdbc_add(const tide_mdbc_k *K, const tide_mdbc_src *src, uint32_t j,
                           const double g[3], int vel, float S[TIDE_MDBC_NS])
{
	if (src->type[j] != TIDE_FLUID) return;
	float d[3] = {(float)(g[0] - src->x[j]) * K->inv_h, (float)(g[1] - src->y[j]) * K->inv_h,
	              (float)(g[2] - src->z[j]) * K->inv_h};
	tide_mdbc_add_d(K, d, src->rho[j], vel ? src->vx[j] : 0.f, vel ? src->vy[j] : 0.f,
	                vel ? src->vz[j] : 0.f, vel, S);
}

/* Solves the n x n system A u = b for nr right-hand sides b[.][r] (Gaussian elimination with
 * partial pivoting, A and b overwritten); returns the determinant (0 if singular, u unset). */
TIDE_HD double tide_mdbc_solve(int n, int nr, double A[4][4], double b[4][4], double u[4][4])
{
	/* every loop to the fixed bound 4, n and nr as guards, rows swapped by visiting each
	 * candidate row: constant indices once unrolled (TIDE_MDBC_UNROLL) */
	double det = 1.0;
TIDE_MDBC_UNROLL
	for (int k = 0; k < 4; k++) {
		if (k >= n) break;
		int p = k;
		double best = fabs(A[k][k]);
TIDE_MDBC_UNROLL
		for (int r = k + 1; r < 4; r++)
			if (r < n && fabs(A[r][k]) > best) { p = r; best = fabs(A[r][k]); }
		if (best == 0.0) return 0.0;
TIDE_MDBC_UNROLL
		for (int r = k + 1; r < 4; r++) {
			if (r != p) continue;
TIDE_MDBC_UNROLL
			for (int c = 0; c < 4; c++) { double t = A[k][c]; A[k][c] = A[r][c]; A[r][c] = t; }
TIDE_MDBC_UNROLL
			for (int q = 0; q < 4; q++) { double t = b[k][q]; b[k][q] = b[r][q]; b[r][q] = t; }
			det = -det;
		}
		det *= A[k][k];
TIDE_MDBC_UNROLL
		for (int r = k + 1; r < 4; r++) {
			if (r >= n) break;
			double f = A[r][k] / A[k][k];
TIDE_MDBC_UNROLL
			for (int c = k; c < 4; c++) A[r][c] -= f * A[k][c];
TIDE_MDBC_UNROLL
			for (int q = 0; q < 4; q++)
				if (q < nr) b[r][q] -= f * b[k][q];
		}
	}
TIDE_MDBC_UNROLL
	for (int q = 0; q < 4; q++) {
		if (q >= nr) break;
TIDE_MDBC_UNROLL
		for (int k = 3; k >= 0; k--) {
			if (k >= n) continue;
			double s = b[k][q];
TIDE_MDBC_UNROLL
			for (int c = k + 1; c < 4; c++)
				if (c < n) s -= A[k][c] * u[c][q];
			u[k][q] = s / A[k][k];
		}
	}
	return det;
}

/* The wall velocity v_wall of boundary particle i, the velocity at the wall surface that
 * noslip and freeslip mirror the fluid's about.  Fixed walls: zero.  A particle of a moving body
 * (its id in M): its rigid velocity at the step's start, which body_motion wrote into its vx, vy,
 * vz at the end of the last step (or the build left zero), and which this pass then replaces by
 * the mirrored v_b. */
TIDE_HD void tide_mdbc_wall_velocity(const tide_block_view *v, uint32_t i,
                                     const tide_motion_ids *M, float vw[3])
{
	if (M->n && tide_motion_ids_has(M, v->id[i])) {
		vw[0] = v->vx[i]; vw[1] = v->vy[i]; vw[2] = v->vz[i];
		return;
	}
	vw[0] = vw[1] = vw[2] = 0.f;
}

/* The slip mode boundary particle i takes: physics.mdbc_slip, except for a floating body's
 * particle, which keeps the rigid velocity body_motion gave it (TIDE_SLIP_VEL0: its density
 * still comes from its ghost), as DualSPHysics' floating particles, which its no-slip mirror
 * skips.  Why: a floating body's force is the sum of its particles' pair terms, and the mirror
 * v_b = 2 v_wall - v_g feeds the fluid's velocity back into them and into the continuity of the
 * fluid around the body.  Measured on tests/data/floating_box.yaml (a box of density 500
 * released 4 cm above its draft) under noslip with the mirror: it settles 10.8 % high (vel0:
 * 1.8 % low), and with the ghost pass also before the corrector (tasks/sph_step.c,
 * mdbc_before_corrector) still 8.3 % high, though released at its draft it stays there;
 * without the mirror 1.9 % low.  The body's wall is then vel0's, the no-slip plane inside its
 * boundary layers; fixed walls and prescribed moving bodies keep the mode. */
TIDE_HD int tide_mdbc_slip_of(const tide_sph_params *P, const tide_block_view *v, uint32_t i)
{
	return tide_is_floating(P, v->id[i]) ? TIDE_SLIP_VEL0 : P->mdbc_slip;
}

/* The boundary velocity v_b of the slip mode (TIDE_SLIP_NOSLIP or _FREESLIP) from the wall
 * velocity vw, the ghost's fluid velocity vg and the normal nb (see the head of the file). */
TIDE_HD void tide_mdbc_slip_velocity(int slip, const float vw[3], const float vg[3],
                                     const float nb[3], float vb[3])
{
	if (slip == TIDE_SLIP_NOSLIP) {
		for (int k = 0; k < 3; k++) vb[k] = 2.f * vw[k] - vg[k];
		return;
	}
	float nn = sqrtf(nb[0] * nb[0] + nb[1] * nb[1] + nb[2] * nb[2]);
	float e[3] = {nb[0] / nn, nb[1] / nn, nb[2] / nn};
	float dn = (vw[0] - vg[0]) * e[0] + (vw[1] - vg[1]) * e[1] + (vw[2] - vg[2]) * e[2];
	for (int k = 0; k < 3; k++) vb[k] = vg[k] + 2.f * dn * e[k];
}

/* tide_mdbc_finish for a system of n rows whose k-th unknown is the (1, x, y, z) index ax_k
 * (ax_0 = 0): called with constants, so that every index below is one on the GPU. */
TIDE_HD void tide_mdbc_finish_n(const tide_sph_params *P, int slip, const float S[TIDE_MDBC_NS],
                                const float nb[3], const float vw[3], float keep, float *rho,
                                float vb[3], int n, int ax1, int ax2, int ax3)
{
	const int nr = slip == TIDE_SLIP_VEL0 ? 1 : 4;
	const int ax[4] = {0, ax1, ax2, ax3};
	if (!(S[0] > 0.f)) {
		*rho = keep;
		for (int k = 0; k < 3; k++) vb[k] = vw[k];
		return;
	}
	double A[4][4], b[4][4], u[4][4];
	TIDE_MDBC_UNROLL
	for (int r = 0; r < 4; r++) {
		if (r >= n) break;
		const int ar = ax[r];
		TIDE_MDBC_UNROLL
		for (int c = 0; c < 4; c++) {
			if (c >= n) break;
			const int ac = ax[c];
			/* [7..12] hold k <= l: xx xy xz yy yz zz */
			const int p = (ar < ac ? ar : ac) - 1, q = (ar < ac ? ac : ar) - 1;
			const int sym = 7 + 3 * p - p * (p - 1) / 2 + (q - p);
			A[r][c] = (double)(ar == 0 ? S[ac] : ac == 0 ? S[3 + ar] : S[sym]);
		}
		TIDE_MDBC_UNROLL
		for (int q = 0; q < 4; q++)
			if (q < nr) b[r][q] = (double)S[13 + 4 * q + ar];
	}
	double sol[4] = {0.0, 0.0, 0.0, 0.0}, det = tide_mdbc_solve(n, nr, A, b, u);
	double rhod;
	if (fabs(det) >= TIDE_MDBC_DET_LIMIT) {
		/* rho_b = rho_g + (x_b - x_g) . grad rho_g, x_b - x_g = -2 n_b, u_k = -h grad_k rho_g */
		double inv_h = 1.0 / (double)P->h;
		rhod = u[0][0];
		TIDE_MDBC_UNROLL
		for (int k = 1; k < 4; k++)
			if (k < n) rhod += 2.0 * u[k][0] * (double)nb[ax[k] - 1] * inv_h;
		TIDE_MDBC_UNROLL
		for (int q = 1; q < 4; q++)
			if (q < nr) sol[q] = u[0][q];
	} else {
		/* Shepard */
		rhod = (double)S[13] / (double)S[0];
		TIDE_MDBC_UNROLL
		for (int q = 1; q < 4; q++)
			if (q < nr) sol[q] = (double)S[13 + 4 * q] / (double)S[0];
	}
	float r = (float)((double)P->rho0 + rhod);
	*rho = r < P->rho0 ? P->rho0 : r;
	if (nr > 1) {
		float vg[3] = {(float)sol[1], P->dim == 3 ? (float)sol[2] : 0.f, (float)sol[3]};
		tide_mdbc_slip_velocity(slip, vw, vg, nb, vb);
	} else {
		for (int k = 0; k < 3; k++) vb[k] = vw[k];
	}
}

/* From the sums S at the ghost node of a boundary particle with normal nb: its density (`keep`
 * when the ghost has no fluid) and its velocity vb from the wall velocity vw (vw itself under
 * TIDE_SLIP_VEL0, whose sums hold no velocity).  2-D cases (x-z plane) use rows/columns 1, x, z. */
TIDE_HD void tide_mdbc_finish(const tide_sph_params *P, int slip, const float S[TIDE_MDBC_NS],
                              const float nb[3], const float vw[3], float keep, float *rho,
                              float vb[3])
{
	if (P->dim == 3) tide_mdbc_finish_n(P, slip, S, nb, vw, keep, rho, vb, 4, 1, 2, 3);
	else tide_mdbc_finish_n(P, slip, S, nb, vw, keep, rho, vb, 3, 1, 3, 3);
}

/* Whether a boundary particle with normal nb takes its density (and velocity) from a ghost
 * node: it has a normal, and lies less than 2h inside its solid (|n_b| < 2h).  A particle
 * deeper than that meets no fluid particle (the fluid lies beyond the surface), so its density
 * serves no pair; and its ghost, 2 |n_b| >= 4h away, could read beyond the 3 cells of side 2h
 * that a block's halos hold under mDBC (include/tide/case.h, tide_case_halo_layers): with this
 * limit every ghost sees its whole support, whatever the blocks (a ghost in a block's halo
 * cells used to see only the part of its support inside the box grown by one cell, or nothing,
 * and the floating box of tests/data/floating_box.yaml with a block face just under it settled
 * 0.8 mm lower than in one block: issue 22's "GPU drift", 1 block per GPU against 4 on 2 CPU
 * workers). */
TIDE_HD int tide_mdbc_has_ghost(const tide_sph_params *P, const float nb[3])
{
	float n2 = nb[0] * nb[0] + nb[1] * nb[1] + nb[2] * nb[2];
	return n2 > 0.f && n2 < P->h2x4;
}

/* Boundary particle i of block v (box A): its new density and, unless vel0, velocity, from its
 * ghost node (serial: the CPU half), reading the candidates of `own` (the block's particles in
 * cell order, or its fluid particles alone, with the cell starts `start` of that array) and of
 * the nh halos (idem).  vel: P->mdbc_slip is not vel0 (a constant where this is inlined). */
TIDE_HD void tide_mdbc_particle(const tide_sph_params *P, const tide_block_arg *A,
                                tide_block_view *v, uint32_t i, const tide_mdbc_src *own,
                                const uint32_t *start, const tide_mdbc_src *halo, int nh, int vel,
                                const tide_motion_ids *M)
{
	const float nb[3] = {v->TIDE_BN_X[i], v->TIDE_BN_Y[i], v->TIDE_BN_Z[i]};
	int slip = vel ? tide_mdbc_slip_of(P, v, i) : TIDE_SLIP_VEL0;
	float vw[3], vb[3], rho;
	tide_mdbc_wall_velocity(v, i, M, vw);
	if (!tide_mdbc_has_ghost(P, nb)) {
		/* no ghost (no normal, or 2h or more inside its solid): the wall's own velocity */
		if (vel) { v->vx[i] = vw[0]; v->vy[i] = vw[1]; v->vz[i] = vw[2]; }
		return;
	}
	double g[3] = {v->x[i] + 2.0 * (double)nb[0], v->y[i] + 2.0 * (double)nb[1],
	               v->z[i] + 2.0 * (double)nb[2]};
	tide_cell_rows C;
	tide_cell_rows_of(P, A, g, &C);
	tide_mdbc_k K = tide_mdbc_consts(P);
	float S[TIDE_MDBC_NS];
	for (int q = 0; q < TIDE_MDBC_NS; q++) S[q] = 0.f;
	for (int row = 0; row < 9; row++) {
		uint32_t o[2], key[2][2];
		int nkey;
		tide_cell_row(&C, A, start, row, o, key, &nkey);
		for (uint32_t j = o[0]; j < o[1]; j++) tide_mdbc_add(&K, own, j, g, vel, S);
		for (int m = 0; m < nkey; m++)
			for (int h = 0; h < nh; h++) {
				const tide_mdbc_src *s = &halo[h];
				uint32_t ja = tide_lower_bound(s->key, s->count, key[m][0]);
				uint32_t jb = tide_lower_bound(s->key, s->count, key[m][1]);
				for (uint32_t j = ja; j < jb; j++) tide_mdbc_add(&K, s, j, g, vel, S);
			}
	}
	tide_mdbc_finish(P, slip, S, nb, vw, v->rho[i], &rho, vb);
	v->rho[i] = rho;
	if (vel) { v->vx[i] = vb[0]; v->vy[i] = vb[1]; v->vz[i] = vb[2]; }
}

#endif
