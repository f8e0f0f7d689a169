/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The SPH interaction of one particle with its neighbours and its time integration, written once
 * for the CPU and the CUDA codelets (host+device inline), so both give the same physics.
 *
 * Weakly compressible SPH as in the multi-GPU paper (shared/reference/sph-multigpu.md):
 *   continuity   drho_i/dt = sum_j m_j v_ij . grad_i W_ij   (+ density diffusion)
 *   momentum     dv_i/dt   = -sum_j m_j (p_i/rho_i^2 + p_j/rho_j^2 + Pi_ij) grad_i W_ij + g
 *   Tait EOS     p = B ((rho/rho0)^gamma - 1), or isothermal p = cs_iso^2 (rho - rho0)
 * with Monaghan's artificial viscosity Pi_ij, dynamic boundary particles (DBC: boundary particles
 * obey continuity but are not moved) and Molteni-Colagrossi or Fourtakas density diffusion.
 * The pair interaction itself, in its scalar and SIMD forms: sph_pair.h. */
#ifndef TIDE_SPH_INTERACT_H
#define TIDE_SPH_INTERACT_H
#include <math.h>
#include "tide/block.h"
#include "tide/sph_kernel.h"
#include "tide/sph_pair.h"
#include "tide/sph_params.h"

/* Pressure of the equation of state.  Isothermal: the weakly compressible form, zero at rho0
 * like Tait's (so a free surface at rest density is at zero pressure), with dp/drho = c0^2. */
TIDE_HD float tide_pressure(const tide_sph_params *P, float rho)
{
	if (P->eos == TIDE_EOS_ISOTHERMAL) return P->c0 * P->c0 * (rho - P->rho0);
	float t = rho * P->inv_rho0;
	float tg;
	if (P->gamma == 7.f) {
		float t2 = t * t;
		tg = t2 * t2 * t2 * t;
	} else {
		tg = powf(t, P->gamma);
	}
	return P->tait_b * (tg - 1.f);
}

/* Speed of sound c = sqrt(dp/drho) = c0 (rho/rho0)^((gamma-1)/2); isothermal: c0 = cs_iso. */
TIDE_HD float tide_sound(const tide_sph_params *P, float rho)
{
	if (P->eos == TIDE_EOS_ISOTHERMAL) return P->c0;
	float t = rho * P->inv_rho0;
	if (P->gamma == 7.f) return P->c0 * t * t * t;
	return P->c0 * powf(t, 0.5f * (P->gamma - 1.f));
}

/* First index i in [0, n) with key[i] >= k (keys sorted). */
TIDE_HD uint32_t tide_lower_bound(const uint32_t *key, uint32_t n, uint32_t k)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (key[mid] < k) lo = mid + 1;
		else hi = mid;
	}
	return lo;
}

/* Pressure term p/rho^2 of a particle (tide_pair's pj_over_rho2). */
TIDE_HD float tide_p_over_rho2(const tide_sph_params *P, float rho)
{
	return tide_fdiv(tide_pressure(P, rho), rho * rho);
}

/* Time-step limits of one particle after its forces (CFL applied by the caller):
 * force term sqrt(h/|a|) for fluid, sound+viscous term h/(c_i + mu_max); with the laminar
 * viscosity also the explicit diffusion limit 0.125 h^2 / nu of Morris et al. 1997 (not scaled
 * by the CFL number: it is a stability bound of its own). */
/* Whether particle i's pair sums are used.  Under mDBC a boundary particle's density comes
 * from its ghost node (mdbc_ghost) and integrate leaves it alone, so its continuity sum and its
 * viscous signal speed serve nothing: the GPU force kernels skip its pair passes (the walls are
 * about a fifth of the particles of a tank), the CPU's symmetric loop drops its sums, and its
 * time-step bound is the sound speed alone (the fluid particles beside it count the same pairs'
 * signal speed in theirs). */
TIDE_HD int tide_pair_sums_used(const tide_sph_params *P, int fluid)
{
	return fluid || P->boundary != TIDE_BOUNDARY_MDBC;
}

TIDE_HD float tide_particle_dt(const tide_sph_params *P, const tide_acc *acc, float rho, int fluid)
{
	float dt = P->h / (tide_sound(P, rho) + acc->mu_max);
	if (fluid) {
		float a = sqrtf(acc->ax * acc->ax + acc->ay * acc->ay + acc->az * acc->az);
		if (a > 0.f) {
			float df = sqrtf(P->h / a);
			if (df < dt) dt = df;
		}
	}
	dt *= P->cfl;
	if (P->viscosity != TIDE_VISC_ARTIFICIAL && P->nu > 0.f) {
		float dv = 0.125f * P->h * P->h / P->nu;
		if (dv < dt) dt = dv;
	}
	return dt;
}

/* Integration of particle i over dt (stage: enum tide_stage in codelets.h).
 *  Verlet  : v+ = v- + 2dt a, rho+ = rho- + 2dt drho, x+ = x + dt v + dt^2/2 a
 *  Euler   : every verlet_steps steps, v+ = v + dt a, rho+ = rho + dt drho (same x update)
 *  Symplectic predictor: x, v, rho advanced by dt/2, old values kept in vx1.., rho1
 *  Symplectic corrector: v+ = v_n + dt a_half, x+ = x_n + dt/2 (v+ + v_n),
 *                        rho+ = rho_n (2 - eps)/(2 + eps), eps = -drho/rho_half dt
 * Boundary particles keep position and velocity, and vx1..vz1, which hold their normal (block.h);
 * under DBC their density is integrated and kept >= rho0, under mDBC mdbc_ghost sets it. */
TIDE_HD void tide_integrate_particle(const tide_sph_params *P, int stage, float dt,
                                     tide_block_view *v, uint32_t i)
{
	int fluid = v->type[i] == TIDE_FLUID;
	if (!fluid && P->boundary == TIDE_BOUNDARY_MDBC)
		return; /* mDBC: the density is the ghost's, set by mdbc_ghost before the forces */
	float rho = v->rho[i], rho1 = v->rho1[i], dr = v->drho[i], rnew;
	if (stage == 0) rnew = rho1 + 2.f * dt * dr;
	else if (stage == 1) rnew = rho + dt * dr;
	else if (stage == 2) rnew = rho + 0.5f * dt * dr;
	else {
		float eps = -dr / rho * dt;
		rnew = rho1 * (2.f - eps) / (2.f + eps);
	}
	if (stage == 2) v->rho1[i] = rho;
	else v->rho1[i] = stage == 3 ? rnew : rho;
	if (!fluid) {
		v->rho[i] = rnew < P->rho0 ? P->rho0 : rnew;
		if (stage == 3) v->rho1[i] = v->rho[i];
		return;
	}
	v->rho[i] = rnew;
	float a[3] = {v->ax[i], v->ay[i], v->az[i]};
	float *vel[3] = {v->vx, v->vy, v->vz};
	float *vel1[3] = {v->vx1, v->vy1, v->vz1};
	double *pos[3] = {v->x, v->y, v->z};
	for (int d = 0; d < 3; d++) {
		float vn = vel[d][i], vm = vel1[d][i], vnew;
		if (stage == 0 || stage == 1) {
			vnew = stage == 0 ? vm + 2.f * dt * a[d] : vn + dt * a[d];
			pos[d][i] += (double)(dt * vn + 0.5f * dt * dt * a[d]);
			vel1[d][i] = vn;
		} else if (stage == 2) {
			vnew = vn + 0.5f * dt * a[d];
			pos[d][i] += (double)(0.5f * dt * vn);
			vel1[d][i] = vn;
		} else {
			/* vm holds v_n; x holds x_n + dt/2 v_n */
			vnew = vm + dt * a[d];
			pos[d][i] += (double)(0.5f * dt * vnew);
			vel1[d][i] = vnew;
		}
		vel[d][i] = vnew;
	}
	if (P->dim == 2) {
		v->y[i] = 0.0;
		v->vy[i] = v->vy1[i] = 0.f;
	}
}

/* Copy particle i of src to slot j of dst (every field, the active aux fields included). */
TIDE_HD void tide_copy_particle(tide_block_view *dst, uint32_t j, const tide_block_view *src,
                                uint32_t i)
{
#define TIDE_X_CP(name, T) dst->name[j] = src->name[i];
	TIDE_BLOCK_FIELDS(TIDE_X_CP)
#undef TIDE_X_CP
	uint32_t k = 0;
#define TIDE_X_CPA(name, T) if (k++ < src->naux) dst->name[j] = src->name[i];
	TIDE_BLOCK_AUX_FIELDS(TIDE_X_CPA)
#undef TIDE_X_CPA
}

#endif
