/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The gas scheme (physics.scheme: gas): compressible SPH with adaptive smoothing lengths, an
 * internal energy equation, artificial viscosity with a Balsara switch and artificial
 * conductivity, written once for the CPU and CUDA halves of its codelets (gas_density,
 * gas_forces, gas_integrate), as SWIFT's hydro/<scheme>/ folders hold one scheme each.
 *
 * Kernel: tide's (sph_kernel.h, support 2h), with a per-particle h:
 *   W(r, h) = knorm h^-d w(q),  grad_i W = F x_ij,  F = knorm h^-(d+2) f(q)   (q = r/h)
 *   dW/dh   = -knorm h^-(d+1) (d w(q) + q^2 f(q))     (f = w'(q)/q, tide_kernel_f)
 *
 * Density and h (Springel & Hernquist 2002; Price 2012, "Smoothed particle hydrodynamics and
 * magnetohydrodynamics", J. Comput. Phys. 231, 759, sections 2.3-2.4):
 *   rho_i = sum_j m_j W(r_ij, h_i)  (self included)  with  rho_i h_i^d = m_i (eta)^d
 * solved for h_i by Newton-Raphson on f(h) = rho_sum(h) - m_i (eta/h)^d, kept inside a bracket
 * (bisection when a step leaves it), until |f| <= tol m_i (eta/h)^d or h reaches h_max; the
 * first trial is predicted from dh/dt (tide_gas_h_start), and a root within 0.5 % of a trial
 * is taken from that trial's sums and their h derivatives without another gather
 * (tide_gas_h_model).
 * Every particle carries its own mass (TIDE_GAS_MASS, below), every sum weighs j by m_j.
 *   Omega_i = 1 + sum_j m_j dW/dh (h_i/(d rho_i)) = 1 - S_dw / (d S_w)   (the grad-h factor)
 * A particle held at h_max (too few neighbours: the edge of a cloud) takes Omega = 1, as SWIFT
 * does there.  The same pass gives div v and curl v for the Balsara switch
 *   f_i = |div v| / (|div v| + |curl v| + 1e-4 c_i / h_i).
 *
 * Forces (Price 2012 eqs. 35-36 with Monaghan 1997's viscosity and Price 2008's conductivity):
 *   dv_i/dt = -sum_j m_j [ p_i/(Omega_i rho_i^2) grad_i W(h_i) + p_j/(Omega_j rho_j^2) grad_i W(h_j)
 *                          + Pi_ij grad_i Wbar ]
 *   du_i/dt =  p_i/(Omega_i rho_i^2) sum_j m_j v_ij . grad_i W(h_i)
 *            + 1/2 sum_j m_j Pi_ij v_ij . grad_i Wbar
 *            + sum_j m_j alpha_u v_sig^u (u_i - u_j) / rhobar_ij  rhat_ij . grad_i Wbar
 *   Pi_ij = -alpha (f_i + f_j)/2 v_sig w_ij / (2 rhobar_ij) for w_ij = v_ij . rhat_ij < 0, else 0
 *   v_sig = c_i + c_j - beta w_ij,  v_sig^u = sqrt(|p_i - p_j| / rhobar_ij),
 *   grad Wbar = (grad W(h_i) + grad W(h_j)) / 2, rhobar = (rho_i + rho_j) / 2.
 * Every term is antisymmetric in i, j (momentum conserved pairwise), the du_i terms are the
 * work of those forces (total energy conserved).  The forces are a gather: each particle sums
 * its own terms over the neighbours within 2 max(h_i, h_j), CPU and GPU alike.
 *
 * Neighbours: the cells have side 2 h_cell (gas.h_cell, at most h_max), and a particle
 * searches as many rings of cells around its own as its support needs, rings = ceil(2 h /
 * (2 h_cell)), pruned to the cells within that distance (cell_rows.h).  The density is a
 * gather over r < 2 h_i (at each trial h of the iteration, so its bracket may span several
 * rings).  The forces need every j with r < 2 max(h_i, h_j), i.e. out to i's reach
 *   H_i = max(h_i, max { h_j : r_ij < 2 h_j }),
 * which a gather cannot know from i's own cells: gas_forces first makes the block's reach map,
 * for every cell of its box the largest h of a particle (of the block or its halos) whose
 * support reaches into the cell (tide_gas_reach_stamp: each particle stamps the cells within
 * 2 h of it, a cost like one density evaluation), then sums each particle's forces over the
 * ball 2 max(h_i, map of its cell) >= 2 H_i: every pair is found, and a particle far from any
 * larger h searches no further than its own support.  (The collapsed top-hat of
 * tests/test_gas_collapse.c: the bound is 1.26 H_i on average; 391 force candidates per dense
 * particle.)
 * Halos: made for ceil(h_max / h_cell) cell layers (tide_halo_max; every block at least that
 * wide), they carry each step the layers the support of the last step's largest h needs, with
 * 25 % room (tide_gas_halo_depth): by default the largest h of the two blocks a halo joins
 * (their own records, include/tide/gas_halo.h), with TIDE_GAS_HALOS=global the step's (the step
 * reduction); h is capped there for the step (tide_gas_h_cap).
 *
 * Time step: cfl h_i / max_j v_sig,ij and cfl sqrt(h_i / |a_i|), the global minimum.
 * Integration: kick-drift-kick leapfrog with one force evaluation per step (as GADGET): the
 * integrate pass closes the last step's kick with the new accelerations, opens this step's,
 * drifts, and predicts v and u at the end of the step for the next force pass (tide_gas_kick).
 *
 * Collisionless particles (type TIDE_NBODY: dark matter, stars; SWIFT's PartType1) share the
 * blocks, sorting, halos, migration and checkpoints of the gas but none of its hydrodynamics:
 * they are neither neighbours (tide_gas_visit skips them: no density, pressure, viscosity or
 * conductivity, no say in h or the reach map) nor targets of the density pass, and the forces
 * pass gives them the body force g alone (tide_gas_forces_particle).  Self-gravity treats them
 * as bodies of their mass and softening eps_nbody (sph_gravity_math.h); the same kick-drift-kick
 * moves them, without u; their time step is cfl sqrt(eps_nbody / |a|), no signal speed.  Their
 * h is 0 (so neither the reach map nor the halo depth sees them), their rho 0. */
#ifndef TIDE_GAS_MATH_H
#define TIDE_GAS_MATH_H
#include <math.h>
#include <stdint.h>
#include "tide/block.h"
#include "tide/cell_rows.h"
#include "tide/sph_interact.h" /* tide_lower_bound */
#include "tide/sph_kernel.h"
#include "tide/sph_params.h"

/* ---- per-particle fields: the block's aux fields (block.h) and three base fields ----
 *   aux0  h, the smoothing length              (gas_density; the halos carry it)
 *   aux1  u, specific internal energy          (predicted at the step's end; halos carry it)
 *   aux2  1 / Omega, the grad-h factor         (gas_density; halos)
 *   aux3  the Balsara switch f_i               (gas_density; halos)
 *   aux4  the time step of the particle's last kick (gas_integrate)
 *   aux5  m, the particle's mass                (set at the start; halos carry it: the sums of
 *         the density and forces weigh each neighbour by its own m_j, so a run may mix masses)
 *   aux6  dh/dt = (h / d) div v                 (gas_density: the next step's first trial h)
 *   rho1  u at the half step (the leapfrog's; rho1 is a WCSPH Verlet field the gas never uses)
 *   vx1.. v at the half step (the same)
 *   drho  du/dt (gas_forces to gas_integrate: the same work-space life as WCSPH's drho) */
#define TIDE_GAS_NAUX 7
#define TIDE_GAS_H aux0
#define TIDE_GAS_U aux1
#define TIDE_GAS_FGRAD aux2
#define TIDE_GAS_BALSARA aux3
#define TIDE_GAS_DTK aux4
#define TIDE_GAS_MASS aux5
#define TIDE_GAS_HDOT aux6
#define TIDE_GAS_UHALF rho1
#define TIDE_GAS_DUDT drho
/* What gas_forces reads of a halo besides TIDE_HALO_BASE_FIELDS. */
#define TIDE_GAS_HALO_FIELDS                                                                    \
	(TIDE_FIELD_BIT(aux0) | TIDE_FIELD_BIT(aux1) | TIDE_FIELD_BIT(aux2) | TIDE_FIELD_BIT(aux3) | \
	 TIDE_FIELD_BIT(aux5))

/* ---- equations of state ---- */

TIDE_HD float tide_gas_pressure(const tide_gas_params *G, float rho, float u)
{
	if (G->eos == TIDE_GAS_IDEAL) return (G->gamma - 1.f) * rho * u;
	if (G->eos == TIDE_GAS_BAROTROPIC && rho > G->rho_crit)
		return G->cs2 * G->rho_crit * powf(rho / G->rho_crit, 1.4f);
	return G->cs2 * rho;
}

/* c = sqrt(dp/drho) (at constant entropy for the ideal gas: gamma p / rho). */
TIDE_HD float tide_gas_sound(const tide_gas_params *G, float rho, float u)
{
	if (G->eos == TIDE_GAS_IDEAL) return sqrtf(G->gamma * (G->gamma - 1.f) * (u > 0.f ? u : 0.f));
	if (G->eos == TIDE_GAS_BAROTROPIC && rho > G->rho_crit)
		return sqrtf(1.4f * G->cs2 * powf(rho / G->rho_crit, 0.4f));
	return sqrtf(G->cs2);
}

/* h^-n for the kernel's normalisations (n = d, d + 1, d + 2). */
TIDE_HD float tide_gas_hpow(float inv_h, int n)
{
	float p = 1.f;
	for (int k = 0; k < n; k++) p *= inv_h;
	return p;
}

/* ---- what the passes read of a block or halo (cell-sorted; key: global cell key) ---- */
typedef struct tide_gas_src {
	const double *x, *y, *z;
	const float *vx, *vy, *vz, *rho, *h, *u, *fgrad, *bal, *m;
	const uint8_t *type;
	const uint32_t *key;
	uint32_t count;
} tide_gas_src;

TIDE_HD tide_gas_src tide_gas_src_of(const tide_block_view *v)
{
	tide_gas_src s = {v->x, v->y, v->z, v->vx, v->vy, v->vz, v->rho, v->TIDE_GAS_H,
	                  v->TIDE_GAS_U, v->TIDE_GAS_FGRAD, v->TIDE_GAS_BALSARA, v->TIDE_GAS_MASS, v->type,
	                  tide_halo_keys(v) /* a halo's; a block's own: its cell starts */, v->count};
	return s;
}

/* The halos of a block as the passes read them (the CUDA halves pass them by value). */
typedef struct tide_gas_halos {
	int n;
	tide_gas_src h[TIDE_CELL_ROWS_MAX_SRC];
} tide_gas_halos;

/* The particle a pass works for, and its sums. */
typedef struct tide_gas_ival {
	double x[3];
	float v[3];
	float h, rho, u, p, c, A, bal;   /* A = p fgrad / rho^2 */
} tide_gas_ival;

typedef struct tide_gas_sums {
	/* density pass, each term weighed by m_j: sum m w, sum m (d w + q^2 f), sum m f v_ij.x_ij,
	 * sum m f v_ij x x_ij, sum m q^2 w''(q) (the h iteration's second derivative) */
	float w, dw, div, curl[3], w2;
	/* forces pass: acceleration, du/dt, largest signal velocity */
	float a[3], du, vsig;
	uint32_t ncand;  /* candidates visited (both passes) */
} tide_gas_sums;

enum { TIDE_GAS_PASS_DENSITY = 0, TIDE_GAS_PASS_FORCES = 1 };

/* The largest h of a block's particles this step: h_max, or the support its halos carry for it
 * this step (tide_halo_own cells of side 2 h_cell: with per-block halos, gas_halo.h, the
 * layers of its own record) if smaller. */
TIDE_HD float tide_gas_h_cap(const tide_sph_params *P)
{
	float h = 0.5f * P->grid.cell * (float)tide_halo_own(&P->grid);
	return h < P->gas.h_max ? h : P->gas.h_max;
}

/* The largest h a block's pass may meet this step, its halos' included: h_max, or the widest
 * halo it reads (tide_halo_layers) if smaller. */
TIDE_HD float tide_gas_h_reach(const tide_sph_params *P)
{
	float h = 0.5f * P->grid.cell * (float)tide_halo_layers(&P->grid);
	return h < P->gas.h_max ? h : P->gas.h_max;
}

/* The halo depth of the next step (tide_grid.halo_now) after one whose largest h was hmax:
 * its support with 25 % room for h to grow in a step, in cells, at most the halos' size.  A
 * particle whose h would grow further is held at the cap for that step (tide_gas_h_cap, as at
 * h_max), and the depth follows it in the next. */
TIDE_HD int tide_gas_halo_depth(const tide_grid *g, float hmax)
{
	int n = (int)ceilf(1.25f * hmax / (0.5f * g->cell)), m = tide_halo_max(g);
	return n < 1 ? 1 : n > m ? m : n;
}

/* One neighbour j of src in the density pass (at the trial h of I). */
TIDE_HD void tide_gas_visit_density(const tide_sph_params *P, const tide_gas_ival *I,
                                    const tide_gas_src *s, uint32_t j, tide_gas_sums *S)
{
	float dx[3] = {(float)(I->x[0] - s->x[j]), (float)(I->x[1] - s->y[j]),
	               (float)(I->x[2] - s->z[j])};
	float r2 = dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2], inv_h = 1.f / I->h;
	float q2 = r2 * inv_h * inv_h;
	if (!(q2 < 4.f)) return;
	float q = sqrtf(q2), w = tide_kernel_w(P->kernel, q), f = tide_kernel_f(P->kernel, q);
	float dv[3] = {I->v[0] - s->vx[j], I->v[1] - s->vy[j], I->v[2] - s->vz[j]};
	float mj = s->m[j], mf = mj * f;
	S->w += mj * w;
	S->dw += mj * ((float)P->dim * w + q2 * f);
	S->w2 += mj * q2 * tide_kernel_d2w(P->kernel, q);
	S->div += mf * (dv[0] * dx[0] + dv[1] * dx[1] + dv[2] * dx[2]);
	S->curl[0] += mf * (dv[1] * dx[2] - dv[2] * dx[1]);
	S->curl[1] += mf * (dv[2] * dx[0] - dv[0] * dx[2]);
	S->curl[2] += mf * (dv[0] * dx[1] - dv[1] * dx[0]);
}

/* What the forces pass reads of a neighbour besides its fields: pressure, sound speed and
 * A = p fgrad / rho^2 (once per pair on the CPU, once per tile entry on the GPU). */
typedef struct tide_gas_jstate {
	float p, c, A;
} tide_gas_jstate;

TIDE_HD tide_gas_jstate tide_gas_jstate_of(const tide_gas_params *G, float rho, float u, float fgrad)
{
	tide_gas_jstate js;
	js.p = tide_gas_pressure(G, rho, u);
	js.c = tide_gas_sound(G, rho, u);
	js.A = js.p * fgrad / (rho * rho);
	return js;
}

/* One neighbour j of src, whose state is js, in the forces pass (see the head of the file). */
TIDE_HD void tide_gas_visit_forces_js(const tide_sph_params *P, const tide_gas_ival *I,
                                      const tide_gas_src *s, uint32_t j, tide_gas_jstate js,
                                      tide_gas_sums *S)
{
	const tide_gas_params *G = &P->gas;
	float dx[3] = {(float)(I->x[0] - s->x[j]), (float)(I->x[1] - s->y[j]),
	               (float)(I->x[2] - s->z[j])};
	float r2 = dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2];
	float hj = s->h[j], hi = I->h, hm = hi > hj ? hi : hj;
	if (!(r2 < 4.f * hm * hm) || r2 <= 0.f) return;
	int d = P->dim;
	float r = sqrtf(r2), ihi = 1.f / hi, ihj = 1.f / hj;
	float Fi = r < 2.f * hi ? G->knorm * tide_gas_hpow(ihi, d + 2) * tide_kernel_f(P->kernel, r * ihi) : 0.f;
	float Fj = r < 2.f * hj ? G->knorm * tide_gas_hpow(ihj, d + 2) * tide_kernel_f(P->kernel, r * ihj) : 0.f;
	float rhoj = s->rho[j], uj = s->u[j], pj = js.p, cj = js.c, Aj = js.A;
	float dv[3] = {I->v[0] - s->vx[j], I->v[1] - s->vy[j], I->v[2] - s->vz[j]};
	float vdotr = dv[0] * dx[0] + dv[1] * dx[1] + dv[2] * dx[2];
	float w = vdotr / r, Fbar = 0.5f * (Fi + Fj), rhobar = 0.5f * (I->rho + rhoj);
	float vsig = I->c + cj - G->beta_visc * (w < 0.f ? w : 0.f);
	float Pi = 0.f;
	if (w < 0.f)
		Pi = -0.5f * G->alpha_visc * 0.5f * (I->bal + s->bal[j]) * vsig * w / rhobar;
	float mj = s->m[j], t = mj * (I->A * Fi + Aj * Fj + Pi * Fbar);
	for (int k = 0; k < 3; k++) S->a[k] -= t * dx[k];
	float vsu = sqrtf(fabsf(I->p - pj) / rhobar);
	S->du += mj * (I->A * Fi * vdotr + 0.5f * Pi * Fbar * vdotr +
	               G->alpha_cond * vsu * (I->u - uj) / rhobar * Fbar * r);
	if (vsig > S->vsig) S->vsig = vsig;
}

/* One neighbour j of src in the forces pass. */
TIDE_HD void tide_gas_visit_forces(const tide_sph_params *P, const tide_gas_ival *I,
                                   const tide_gas_src *s, uint32_t j, tide_gas_sums *S)
{
	tide_gas_visit_forces_js(P, I, s, j, tide_gas_jstate_of(&P->gas, s->rho[j], s->u[j], s->fgrad[j]), S);
}

TIDE_HD void tide_gas_visit(const tide_sph_params *P, const tide_gas_ival *I, const tide_gas_src *s,
                            uint32_t j, int pass, tide_gas_sums *S)
{
	S->ncand++;
	if (s->type[j] == TIDE_NBODY) return;   /* collisionless particles: no hydrodynamics */
	if (pass == TIDE_GAS_PASS_DENSITY) tide_gas_visit_density(P, I, s, j, S);
	else tide_gas_visit_forces(P, I, s, j, S);
}

/* The rings of cells a gather to `radius` searches around a particle's own cell: ceil(radius /
 * cell side), at most the halos' layers. */
TIDE_HD int tide_gas_rings(const tide_sph_params *P, float radius)
{
	int L = tide_halo_layers(&P->grid), rings = (int)ceilf(radius / P->grid.cell);
	return rings > L ? L : rings;
}

/* Every candidate neighbour of I within `radius` (the cell rings of cell_rows.h: the block's
 * own cells and the halos' keys), visited by the pass. */
TIDE_HD void tide_gas_gather(const tide_sph_params *P, const tide_block_arg *A, const uint32_t *start,
                             const tide_gas_src *own, const tide_gas_src *halo, int nh,
                             const tide_gas_ival *I, float radius, int pass, tide_gas_sums *S)
{
	tide_cell_rows C;
	tide_cell_rows_of(P, A, I->x, &C);
	int rings = tide_gas_rings(P, radius);
	double r2 = (double)radius * (double)radius;
	for (int row = 0; row < (2 * rings + 1) * (2 * rings + 1); row++) {
		uint32_t o[2], key[2][2];
		int nkey, c0, c1, a, b;
		if (!tide_cell_ring_row(&C, rings, r2, row, &c0, &c1, &a, &b)) continue;
		tide_cell_span(&C, A, start, c0, c1, a, b, o, key, &nkey);
		for (uint32_t j = o[0]; j < o[1]; j++) tide_gas_visit(P, I, own, j, pass, S);
		for (int m = 0; m < nkey; m++)
			for (int hh = 0; hh < nh; hh++) {
				const tide_gas_src *s = &halo[hh];
				uint32_t ja = tide_lower_bound(s->key, s->count, key[m][0]);
				uint32_t jb = tide_lower_bound(s->key, s->count, key[m][1]);
				for (uint32_t j = ja; j < jb; j++) tide_gas_visit(P, I, s, j, pass, S);
			}
	}
}

/* The reach map of a block (head of the file): for every cell of its box, the largest h of
 * a particle (of the block or of its halos) whose support reaches into the cell; M starts at
 * 0 and takes every particle (x, h) once.  A particle i of the cell then has its reach H_i <=
 * max(h_i, M), the ball the forces search (head of the file).  On the GPU the
 * threads of a block's particles stamp at once: an atomic max on the float's bits (positive
 * floats order as their bits do). */
TIDE_HD void tide_gas_reach_stamp(const tide_sph_params *P, const tide_block_arg *A, const double x[3],
                                  float h, float *M)
{
	tide_cell_rows C;
	tide_cell_rows_of(P, A, x, &C);
	int rings = (int)ceilf(2.f * h / P->grid.cell);
	double r2 = 4.0 * (double)h * (double)h;
	for (int row = 0; row < (2 * rings + 1) * (2 * rings + 1); row++) {
		int c0, c1, a, b;
		if (!tide_cell_ring_row(&C, rings, r2, row, &c0, &c1, &a, &b)) continue;
		if (c0 < A->l0 || c0 >= A->l1 || c1 < A->lo1 || c1 >= A->hi1) continue;
		if (a < A->lo2) a = A->lo2;
		if (b > A->hi2 - 1) b = A->hi2 - 1;
		for (int c2 = a; c2 <= b; c2++) {
			int kk[3] = {c0, c1, c2};
			float *m = &M[tide_box_index(A, kk)];
#ifdef __CUDA_ARCH__
			atomicMax((int *)m, __float_as_int(h));
#else
			if (h > *m) *m = h;
#endif
		}
	}
}

/* The forces' reach bound of I from the reach map M of its block: max(h_i, M of its cell) >=
 * H_i (head of the file); a particle outside its block's box (one that moved
 * a cell since the last migration, clamped into the box) takes the largest support. */
TIDE_HD float tide_gas_reach_of(const tide_sph_params *P, const tide_block_arg *A, const float *M,
                                const tide_gas_ival *I)
{
	int k[3];
	tide_cell_k(&P->grid, I->x[0], I->x[1], I->x[2], k);
	if (!tide_box_contains(A, k)) return tide_gas_h_reach(P);
	float m = M[tide_box_index(A, k)];
	return m > I->h ? m : I->h;
}

TIDE_HD void tide_gas_sums_zero(tide_gas_sums *S)
{
	S->w = S->dw = S->div = S->w2 = S->du = S->vsig = 0.f;
	S->ncand = 0;
	for (int k = 0; k < 3; k++) S->curl[k] = S->a[k] = 0.f;
}

TIDE_HD tide_gas_ival tide_gas_ival_of(const tide_block_view *v, uint32_t i)
{
	tide_gas_ival I;
	I.x[0] = v->x[i]; I.x[1] = v->y[i]; I.x[2] = v->z[i];
	I.v[0] = v->vx[i]; I.v[1] = v->vy[i]; I.v[2] = v->vz[i];
	I.h = v->TIDE_GAS_H[i];
	I.rho = v->rho[i];
	I.u = v->TIDE_GAS_U[i];
	I.p = I.c = I.A = 0.f;
	I.bal = v->TIDE_GAS_BALSARA[i];
	return I;
}

/* The h iteration of one particle (the head of the file), as a state that a gather feeds: the
 * trial h, its bracket, the iterations so far.  tide_gas_h_start sets the first trial, then
 * every gather's sums at the trial h go to tide_gas_h_next, which says whether the iteration is
 * over (its sums are the answer) or sets the next trial; tide_gas_h_finish writes the answer.
 * The CPU's loop (tide_gas_density_particle) and the GPU's cooperative gathers (gas_density.cu)
 * share it. */
typedef struct tide_gas_hiter {
	float h, hlo, hhi, hcap, m;
	float f0;          /* the first gather's |f| / (m (eta/h)^d) (a measure of the first trial) */
	int it, clamped;
	int hi_seen;       /* a trial had too many neighbours: hhi bounds the root, not the cap */
} tide_gas_hiter;

/* The first trial h of particle i: its last h drifted by its dh/dt over the step since
 * (TIDE_GAS_HDOT x TIDE_GAS_DTK: from rho h^d = const along the flow,
 * dh/dt = -h / (d rho Omega) drho/dt = (h / d) div v, as SWIFT and GADGET predict it), so
 * that most particles meet the tolerance at their first gather; inside [h_min, cap]. */
TIDE_HD void tide_gas_h_start(const tide_sph_params *P, const tide_block_view *v, uint32_t i,
                              tide_gas_hiter *T)
{
	const tide_gas_params *G = &P->gas;
	float h = v->TIDE_GAS_H[i], hcap = tide_gas_h_cap(P);
	if (!(h > 0.f)) h = 0.5f * hcap;
	float hp = h + v->TIDE_GAS_DTK[i] * v->TIDE_GAS_HDOT[i];
	/* a prediction off by more than a third is no prediction: the last h then */
	if (hp > 0.75f * h && hp < 1.333f * h) h = hp;
	if (h > hcap) h = hcap;
	if (h < G->h_min) h = G->h_min;
	T->h = h;
	T->hlo = 0.f;
	T->hhi = T->hcap = hcap;
	T->m = v->TIDE_GAS_MASS[i];   /* the target rho h^d = m_i eta^d is the particle's own */
	T->it = 1;
	T->clamped = T->hi_seen = 0;
	T->f0 = 0.f;
}

/* The largest relative step |h* / h - 1| that tide_gas_h_model takes without another gather. */
#define TIDE_GAS_H_MODEL 5e-3f

/* The root h* of the density condition from the sums of one gather at h, when it lies within
 * TIDE_GAS_H_MODEL of h: the sums' Taylor series in h, to second order for sum m w (the
 * condition), to first for sum m (d w + q^2 f) (Omega's), whose derivatives the gather's sums
 * give exactly (q = r/h, A1 = sum m q w' = S.dw - d S.w, w2 = sum m q^2 w''):
 *   d S.w / dh = -A1 / h,  d^2 S.w / dh^2 = (2 A1 + w2) / h^2,  d S.dw / dh = -((d+1) A1 + w2) / h.
 * The series' error, ~ (h* / h - 1)^3 of S.w (its third derivative: about 1e-6 at the largest
 * step; float sums carry 1e-7), lies far inside the tolerance: the sums at h* are as a gather
 * there would give them, without that gather (a prediction of h misses by 3e-4 to 1e-2 in rho
 * h^d: the second gather of nearly every particle).  Returns 1 with h* in T and the sums
 * moved to it (div v and curl v stay at h: the switch and dh/dt need no more), else 0. */
TIDE_HD int tide_gas_h_model(const tide_sph_params *P, tide_gas_hiter *T, tide_gas_sums *S,
                             float target)
{
	const tide_gas_params *G = &P->gas;
	float h = T->h, d = (float)P->dim, A1 = S->dw - d * S->w;
	float a = -A1 / h, b = (2.f * A1 + S->w2) / (h * h), c = S->w - target;
	if (!(a > 0.f)) return 0;   /* not the single root of a growing sum */
	float x = -c / a;
	for (int k = 0; k < 2; k++) x -= (c + a * x + 0.5f * b * x * x) / (a + b * x);
	float hs = h + x;
	if (!(fabsf(x) <= TIDE_GAS_H_MODEL * h) || !(hs > T->hlo && hs < T->hhi) || hs > T->hcap ||
	    hs < G->h_min || !(fabsf(c + a * x + 0.5f * b * x * x) <= 0.1f * G->h_tol * target))
		return 0;
	S->w = S->w + a * x + 0.5f * b * x * x;
	S->dw -= x / h * ((d + 1.f) * A1 + S->w2);
	T->h = hs;
	return 1;
}

/* The sums S of a gather at the trial T->h: 1 when the iteration is over (converged, at once or
 * through tide_gas_h_model (S then moved to the root), held at the cap or h_min, or out of
 * iterations: the last iterate is kept), else 0 with the next trial h in T (Newton-Raphson on
 * f(h) = rho_sum(h) - m (eta/h)^d inside the bracket, bisection when a step leaves it). */
TIDE_HD int tide_gas_h_next(const tide_sph_params *P, tide_gas_hiter *T, tide_gas_sums *S)
{
	const tide_gas_params *G = &P->gas;
	int d = P->dim;
	float h = T->h, ih = 1.f / h, hd = tide_gas_hpow(ih, d);
	float rho = G->knorm * hd * S->w, rho_h = T->m * tide_gas_hpow(G->eta, d) * hd;
	float f = rho - rho_h;
	if (T->it == 1) T->f0 = fabsf(f) / rho_h;
	if (fabsf(f) <= G->h_tol * rho_h || T->it > G->h_iter) return 1;
	/* (rho - rho_h) h^d = knorm S.w - m eta^d: the condition on S.w */
	if (tide_gas_h_model(P, T, S, T->m * tide_gas_hpow(G->eta, d) / G->knorm)) return 1;
	if (f < 0.f) {
		/* too few neighbours even at the cap (a cloud's edge): this gather decides */
		if (h >= T->hcap) { T->clamped = 1; return 1; }
		T->hlo = h;
	} else {
		if (h <= G->h_min) return 1;
		T->hhi = h;
		T->hi_seen = 1;
	}
	float dfdh = -G->knorm * hd * ih * S->dw + (float)d * rho_h * ih;
	float hn = dfdh != 0.f ? h - f / dfdh : -1.f;
	if (f < 0.f && !T->hi_seen && !(hn < T->hcap))
		hn = T->hcap; /* Newton leaves through the cap: one gather there decides (bisecting
		               * toward a cap never reached would spend every iteration) */
	else if (!(hn > T->hlo && hn < T->hhi))
		hn = T->hlo > 0.f ? 0.5f * (T->hlo + T->hhi) : 0.5f * h;
	if (hn > T->hcap) hn = T->hcap;
	if (hn < G->h_min) hn = G->h_min;
	T->h = hn;
	T->it++;
	return 0;
}

/* The answer of a finished iteration (sums S at T->h) for particle i: h, rho, 1/Omega, the
 * Balsara switch and dh/dt (the next step's first trial, tide_gas_h_start). */
TIDE_HD void tide_gas_h_finish(const tide_sph_params *P, tide_block_view *v, uint32_t i,
                               const tide_gas_hiter *T, const tide_gas_sums *S)
{
	const tide_gas_params *G = &P->gas;
	int d = P->dim;
	float h = T->h, ih = 1.f / h;
	float rho = G->knorm * tide_gas_hpow(ih, d) * S->w;
	float omega = 1.f - S->dw / ((float)d * S->w);
	float fgrad = T->clamped || !(omega > 0.1f) ? 1.f : 1.f / omega;
	/* div v, |curl v| up to their common factor knorm h^-(d+2) / (Omega rho) */
	float k = G->knorm * tide_gas_hpow(ih, d + 2) * fgrad / rho;
	float divv = -S->div * k;   /* grad_i W = F x_ij with F < 0: sum m F v_ij.x_ij < 0 expands */
	float div = fabsf(divv);
	float curl = sqrtf(S->curl[0] * S->curl[0] + S->curl[1] * S->curl[1] + S->curl[2] * S->curl[2]) * k;
	float c = tide_gas_sound(G, rho, v->TIDE_GAS_U[i]);
	float den = div + curl + 1e-4f * c * ih;
	v->rho[i] = rho;
	v->TIDE_GAS_H[i] = h;
	v->TIDE_GAS_FGRAD[i] = fgrad;
	v->TIDE_GAS_BALSARA[i] = den > 0.f ? div / den : 1.f;
	/* dh/dt = (h / d) div v; none for a particle held at the cap (its h stays there) */
	v->TIDE_GAS_HDOT[i] = T->clamped || !isfinite(divv) ? 0.f : h * divv / (float)d;
}

/* The density pass of particle i of block v (box A, cell starts `start`): h, rho, 1/Omega and
 * the Balsara switch (see the head of the file).  Returns the iterations it took (h_iter + 1:
 * not converged within h_iter; the last iterate is kept).  meas (if not NULL): what the
 * iteration cost, for measuring it (gas_density.c). */
typedef struct tide_gas_hmeas {
	uint32_t ncand;   /* candidates its gathers tested */
	float f0;         /* the first trial's |f| / (m (eta/h)^d) */
} tide_gas_hmeas;
TIDE_HD int tide_gas_density_particle(const tide_sph_params *P, const tide_block_arg *A,
                                      tide_block_view *v, uint32_t i, const tide_gas_src *own,
                                      const uint32_t *start, const tide_gas_src *halo, int nh,
                                      tide_gas_hmeas *meas)
{
	tide_gas_ival I = tide_gas_ival_of(v, i);
	tide_gas_hiter T;
	tide_gas_sums S;
	tide_gas_h_start(P, v, i, &T);
	do {
		I.h = T.h;
		tide_gas_sums_zero(&S);
		tide_gas_gather(P, A, start, own, halo, nh, &I, 2.f * T.h, TIDE_GAS_PASS_DENSITY, &S);
		if (meas) meas->ncand += S.ncand;
	} while (!tide_gas_h_next(P, &T, &S));
	if (meas) meas->f0 = T.f0;
	tide_gas_h_finish(P, v, i, &T, &S);
	return T.it;
}

/* The time step limit cfl sqrt(eps_nbody / |a|) of a collisionless particle whose acceleration
 * is a (3e38: none). */
TIDE_HD float tide_gas_nbody_dt(const tide_sph_params *P, float ax, float ay, float az)
{
	float am = sqrtf(ax * ax + ay * ay + az * az);
	return am > 0.f ? P->cfl * sqrtf(P->gas.eps_nbody / am) : 3.0e38f;
}

/* The forces pass of collisionless particle i: the body force g alone (self-gravity is added by
 * sgrav_apply), no energy rate; returns its time step limit. */
TIDE_HD float tide_gas_nbody_force(const tide_sph_params *P, tide_block_view *v, uint32_t i)
{
	v->ax[i] = P->g[0];
	v->ay[i] = P->g[1];
	v->az[i] = P->g[2];
	v->TIDE_GAS_DUDT[i] = 0.f;
	return tide_gas_nbody_dt(P, P->g[0], P->g[1], P->g[2]);
}

/* The particle i of block v as its forces read it (gas_density done): its state, pressure,
 * sound speed and A = p fgrad / rho^2. */
TIDE_HD tide_gas_ival tide_gas_forces_ival(const tide_sph_params *P, const tide_block_view *v, uint32_t i)
{
	const tide_gas_params *G = &P->gas;
	tide_gas_ival I = tide_gas_ival_of(v, i);
	I.p = tide_gas_pressure(G, I.rho, I.u);
	I.c = tide_gas_sound(G, I.rho, I.u);
	I.A = I.p * v->TIDE_GAS_FGRAD[i] / (I.rho * I.rho);
	return I;
}

/* The sums a force gather starts from: zero, the signal velocity at least 2 c_i. */
TIDE_HD void tide_gas_forces_zero(const tide_gas_ival *I, tide_gas_sums *S)
{
	tide_gas_sums_zero(S);
	S->vsig = 2.f * I->c;
}

/* Particle i's forces from its gather's sums S: writes ax, ay, az (gravity vector included),
 * du/dt, returns the particle's time step limit (see the head of the file). */
TIDE_HD float tide_gas_forces_finish(const tide_sph_params *P, tide_block_view *v, uint32_t i,
                                     const tide_gas_ival *I, const tide_gas_sums *S)
{
	const tide_gas_params *G = &P->gas;
	float a[3] = {S->a[0] + P->g[0], S->a[1] + P->g[1], S->a[2] + P->g[2]};
	v->ax[i] = a[0];
	v->ay[i] = a[1];
	v->az[i] = a[2];
	v->TIDE_GAS_DUDT[i] = G->eos == TIDE_GAS_IDEAL ? S->du : 0.f;
	float dt = S->vsig > 0.f ? I->h / S->vsig : 3.0e38f;
	float am = sqrtf(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
	if (am > 0.f) {
		float df = sqrtf(I->h / am);
		if (df < dt) dt = df;
	}
	return P->cfl * dt;
}

/* Acceleration and energy rate of particle i of block v (gas_density done, halos packed
 * after it): writes ax, ay, az (gravity vector included), du/dt, returns the particle's time
 * step limit (see the head of the file). */
TIDE_HD float tide_gas_forces_particle(const tide_sph_params *P, const tide_block_arg *A,
                                       tide_block_view *v, uint32_t i, const tide_gas_src *own,
                                       const uint32_t *start, const tide_gas_src *halo, int nh,
                                       const float *M)
{
	if (v->type[i] == TIDE_NBODY) return tide_gas_nbody_force(P, v, i);
	tide_gas_ival I = tide_gas_forces_ival(P, v, i);
	tide_gas_sums S;
	tide_gas_forces_zero(&I, &S);
	float reach = tide_gas_reach_of(P, A, M, &I);
	tide_gas_gather(P, A, start, own, halo, nh, &I, 2.f * reach, TIDE_GAS_PASS_FORCES, &S);
	return tide_gas_forces_finish(P, v, i, &I, &S);
}

/* Particle i's share of the step reduction after its forces: its time step (or a bad count
 * when its acceleration, energy rate or density is not finite), speed and density. */
TIDE_HD void tide_gas_reduce_particle(const tide_block_view *v, uint32_t i, float dt,
                                      tide_step_reduce *r)
{
	float rho = v->rho[i];
	int nbody = v->type[i] == TIDE_NBODY;   /* no density: only its acceleration can go bad */
	if (!isfinite(v->ax[i] + v->ay[i] + v->az[i] + v->TIDE_GAS_DUDT[i]) ||
	    (!nbody && (!isfinite(rho) || !(rho > 0.f))))
		r->nbad++;
	else if (dt < r->dt)
		r->dt = dt;
	float sp = sqrtf(v->vx[i] * v->vx[i] + v->vy[i] * v->vy[i] + v->vz[i] * v->vz[i]);
	if (isfinite(sp) && sp > r->vmax) r->vmax = sp;
	if (nbody) return;
	if (v->TIDE_GAS_H[i] > r->hmax) r->hmax = v->TIDE_GAS_H[i];
	if (isfinite(rho) && rho > 0.f) {
		if (rho < r->rho_min) r->rho_min = rho;
		if (rho > r->rho_max) r->rho_max = rho;
	}
}

/* Kick-drift of particle i over the step's dt (the head of the file):
 *   v_n     = v_{n-1/2} + dt_{n-1}/2 a_n        (closes the last step's kick)
 *   v_{n+1/2} = v_n + dt/2 a_n,  x_{n+1} = x_n + dt v_{n+1/2}
 *   v (predicted for the next force pass) = v_{n+1/2} + dt/2 a_n;  u likewise.
 * Collisionless particles move alike, without u; boundary particles (none in the gas cases)
 * stay. */
TIDE_HD void tide_gas_kick(const tide_sph_params *P, float dt, tide_block_view *v, uint32_t i)
{
	if (v->type[i] == TIDE_BOUND) return;
	const tide_gas_params *G = &P->gas;
	float dtk = v->TIDE_GAS_DTK[i], kick = 0.5f * (dtk + dt);
	float a[3] = {v->ax[i], v->ay[i], v->az[i]};
	float *vel[3] = {v->vx, v->vy, v->vz}, *vh[3] = {v->vx1, v->vy1, v->vz1};
	double *pos[3] = {v->x, v->y, v->z};
	for (int k = 0; k < 3; k++) {
		float half = vh[k][i] + kick * a[k];
		pos[k][i] += (double)(dt * half);
		vh[k][i] = half;
		vel[k][i] = half + 0.5f * dt * a[k];
	}
	if (G->eos == TIDE_GAS_IDEAL && v->type[i] == TIDE_FLUID) {
		float du = v->TIDE_GAS_DUDT[i];
		float uh = v->TIDE_GAS_UHALF[i] + kick * du;
		if (uh < G->u_min) uh = G->u_min;
		float un = uh + 0.5f * dt * du;
		v->TIDE_GAS_UHALF[i] = uh;
		v->TIDE_GAS_U[i] = un < G->u_min ? G->u_min : un;
	}
	v->TIDE_GAS_DTK[i] = dt;
	if (P->dim == 2) {
		v->y[i] = 0.0;
		v->vy[i] = v->vy1[i] = 0.f;
	}
}

#endif
