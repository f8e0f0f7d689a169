/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The SPH pair interaction in its two forms, side by side (as SWIFT keeps the scalar and vector
 * forms of an interaction in one header): the scalar form tide_pair_k (the CUDA codelet, one
 * particle per thread, and the tests' references) and the SIMD form vpair (the CPU codelet, one
 * particle against TIDE_CPU_VW neighbours, each pair once for both particles).  They differ in
 * form only: both take the kernel derivative from tide_kf_* (sph_kernel.h) and the density
 * diffusion from tide_diffusion_* and tide_rho_hydro below, and test_sph_pair compares them on
 * random pairs.
 *
 * The first part (guarded) is the shared maths and the scalar form.  The second is the SIMD
 * form for one vector width: an includer defines TIDE_CPU_VW (floats per vector) and
 * TIDE_CPU_SFX (a name suffix) and includes this header again, once per width
 * (tide/sph_interact_cpu.h does so, and undefines the names afterwards). */
#ifndef TIDE_SPH_PAIR_H
#define TIDE_SPH_PAIR_H
#include <math.h>
#include <stdint.h>
#include "tide/block.h"
#include "tide/sph_kernel.h"
#include "tide/sph_params.h"

/* Division, square root of a positive number and power for the pair physics: IEEE on the host
 * (the CPU codelets and the double-precision test reference see the exact forms), the GPU's
 * approximations on the device: the reciprocal and reciprocal square root instructions alone
 * (rcp / rsqrt.approx.ftz, 1 and 2 ulp, subnormals flushed: tide_rcp_ftz).  nvcc builds without
 * -use_fast_math and -ftz (bh_build needs exactly rounded arithmetic), and the IEEE forms, or
 * __fdividef's and rsqrtf's subnormal scaling, cost more instructions than the rest of a pair
 * interaction.  Divisors and square roots here are never subnormal (h, q > 1, r^2 + eta^2 >=
 * 0.01 h^2, densities, r^2 of two particles apart). */
TIDE_HD float tide_fdiv(float a, float b)
{
#ifdef __CUDA_ARCH__
	return a * tide_rcp_ftz(b);
#else
	return a / b;
#endif
}
TIDE_HD float tide_sqrt_pos(float x) /* x > 0 */
{
#ifdef __CUDA_ARCH__
	float r;
	asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
	return x * r;
#else
	return sqrtf(x);
#endif
}
TIDE_HD float tide_powf(float x, float y)
{
#ifdef __CUDA_ARCH__
	return __powf(x, y);
#else
	return powf(x, y);
#endif
}

/* Density diffusion of particle i from neighbour j (Molteni-Colagrossi; Fourtakas when drho
 * has the hydrostatic part taken off, tide_rho_hydro):
 *   2 delta h c0 drho r_ij^2 / (r_ij^2 + eta^2) F m_j / rho_j
 * dhc0x2 = 2 delta h c0, d1 = r_ij^2 + eta^2, m_over_rho = m_j / rho_j; DIV is the form's
 * division.  For float (the scalar form) here; for the SIMD vectors in the second part. */
#define TIDE_DIFFUSION_FORM_(QUAL, T, S, DIV)                                                   \
	QUAL T tide_diffusion_##S(T dhc0x2, T drho, T d1, T r2, T F, T m_over_rho)              \
	{                                                                                       \
		return DIV(dhc0x2 * drho, d1) * r2 * F * m_over_rho;                            \
	}
#define TIDE_DIFFUSION_FORM(QUAL, T, S, DIV) TIDE_DIFFUSION_FORM_(QUAL, T, S, DIV)
TIDE_DIFFUSION_FORM(TIDE_HD, float, f, tide_fdiv)

/* ---- contact of solid bodies under mDBC ----
 * Under mDBC a boundary particle's density is its ghost node's (mdbc.h), an extrapolation of the
 * fluid's: where a floating body touches a wall the ghosts see no fluid and nothing holds the
 * body off (DBC's repulsion comes from the walls' densities rising by continuity as the body
 * nears, which mDBC overwrites).  So under mDBC a floating particle i and a boundary particle j
 * of another body (a fixed wall, an obstacle, a moving body, another floating body) meet by a
 * soft-sphere contact force instead of the SPH pair terms, as DualSPHysics' DEM contact
 * replaces them between floating and boundary particles: each particle a sphere of diameter
 * dp (its solid's surface lies dp/2 outside its outer particles, so r_ij = dp is the geometric
 * contact of the two surfaces), with overlap delta = dp - r_ij > 0 a linear spring and a
 * dashpot along n = r_ij / r_ij, repulsive only:
 *   a_i = max(0, kc delta - gc v_ij . n) n,      a_j = -a_i    (m_i = m_j)
 *   kc = (c0 / dp)^2,   gc = 2 sqrt(kc) = 2 c0 / dp
 * kc is the fluid's own stiffness at the particle scale (a particle compressed by delta feels
 * the pressure change rho0 c0^2 delta / dp over a face dp^(d-1), on a mass rho0 dp^d), so the
 * contact is as stiff as the water and brings no shorter time scale than the sound speed's CFL
 * limit (omega dt = (c0 / dp) CFL h / c0 < 1); gc damps one pair critically.  A body of density
 * rho_b and height H_b resting on its bottom row of particles overlaps the wall by about
 * delta / dp = (rho_b / rho0) g H_b / c0^2 (plus the water's weight above it), i.e. 0.25 % of
 * dp for tests/data/floating_sink.yaml's box (c0 = 20 sqrt(g 0.4 m)).  No friction: a body slides
 * freely along a wall.  Written once for the scalar (CUDA, the references) and SIMD forms: the
 * coefficient c with a_i = c r_ij, zero unless the pair overlaps and pushes; dvr = v_ij . r_ij,
 * r2 > 0.  KEEP(c, cond) is c where cond and c > 0, else 0. */
#define TIDE_CONTACT_FORM_(QUAL, T, S, SQRT, DIV, KEEP)                                         \
	QUAL T tide_contact_##S(T kc, T gc, T dc, T r2, T dvr)                                  \
	{                                                                                       \
		T r = SQRT(r2);                                                                 \
		T c = DIV(kc * (dc - r) - DIV(gc * dvr, r), r);                                 \
		return KEEP(c, r < dc);                                                         \
	}
#define TIDE_CONTACT_FORM(QUAL, T, S, SQRT, DIV, KEEP) TIDE_CONTACT_FORM_(QUAL, T, S, SQRT, DIV, KEEP)
#define TIDE_CONTACT_KEEP_F(c, cond) ((cond) && (c) > 0.f ? (c) : 0.f)
TIDE_CONTACT_FORM(TIDE_HD, float, f, tide_sqrt_pos, tide_fdiv, TIDE_CONTACT_KEEP_F)

/* Whether the pair of a floating particle with a boundary particle of another body meets by the
 * contact force (mDBC) rather than the SPH pair terms (DBC). */
TIDE_HD int tide_contact_force(const tide_sph_params *P)
{
	return P->boundary == TIDE_BOUNDARY_MDBC;
}

/* Fourtakas' hydrostatic density difference rho0 ((1 + rho0 g . r_ij / B)^(1/gamma) - 1) for
 * r_ij = r_i - r_j = (dx, dy, dz), kg = rho0 g / B: the gravity vector's component along the
 * separation, so that a body force along any axis (a channel driven along x) has its
 * hydrostatic part taken off (for g = -|g| z it is DualSPHysics' rho0 |g| z_ji / B).  Both
 * forms: the SIMD form takes it lane by lane, on its rare path. */
TIDE_HD float tide_rho_hydro(float rho0, const float kg[3], float inv_gamma, float dx, float dy,
                             float dz)
{
	return rho0 * (tide_powf(1.f + kg[0] * dx + kg[1] * dy + kg[2] * dz, inv_gamma) - 1.f);
}

/* ---- the walls' own velocity under mDBC noslip / freeslip ----
 * Under physics.boundary: mdbc with physics.mdbc_slip noslip or freeslip the ghost pass
 * (mdbc.h) overwrites a wall particle's vx, vy, vz with the mirror v_b of the fluid's velocity
 * at its ghost node.  That mirror is what the viscous terms need (Monaghan's Pi_ij and the
 * laminar term, the SPS velocity gradient and the viscous time step's mu_ij): it makes the
 * velocity vary linearly through the wall surface, v_wall there.  The continuity equation
 * drho_i/dt = sum_j m_j (v_i - v_j) . grad_i W_ij must instead see the wall move as it does,
 * with its own velocity v_wall: the mirror there (2 v_wall - v_g for noslip) turns the fluid's
 * own motion near the wall into a spurious compression or expansion (a fluid particle moving
 * toward the floor at u sees the floor come at it at -u, twice the approach rate), which let a
 * floating box landing under noslip squeeze its fluid out through the floor.  DualSPHysics'
 * mDBC likewise keeps the wall's motion velocity for continuity and the mirrored one for the
 * viscosity.  The soft-sphere contact (tide_contact_*) is between solids and reads the own
 * velocity too.  Density diffusion reads densities and positions only.
 *
 * The own velocity needs no field per particle: a fixed wall's is zero, a floating body's
 * particles are never mirrored (mdbc.h, tide_mdbc_slip_of) so their vx is theirs, and a
 * prescribed moving body's is its rigid velocity u0 + w x (x - c), from the table of P
 * (wall_*, at most TIDE_MAX_WALL bodies, set per step by the host at the time the ghost pass
 * mirrored about).  Only the pair code's continuity and contact read it, through this
 * function, and only in the runs where tide_walls_mirrored. */
TIDE_HD int tide_walls_mirrored(const tide_sph_params *P)
{
	return P->boundary == TIDE_BOUNDARY_MDBC && P->mdbc_slip != TIDE_SLIP_VEL0;
}

/* The own velocity o of a particle of type `type` and id `id` at (x, y, z) showing the
 * velocity v in its vx, vy, vz: v itself, except for a wall particle (neither fluid nor
 * floating) of a run whose walls are mirrored (then zero, or its moving body's rigid
 * velocity).  Callers read id only when P->nfloat or P->nwall (halos carry ids only then). */
TIDE_HD void tide_wall_velocity(const tide_sph_params *P, uint32_t type, uint32_t id, double x,
                                double y, double z, float vx, float vy, float vz, float o[3])
{
	o[0] = vx;
	o[1] = vy;
	o[2] = vz;
	if (type != TIDE_BOUND || !tide_walls_mirrored(P) || tide_is_floating(P, id)) return;
	o[0] = o[1] = o[2] = 0.f;
	for (int k = 0; k < P->nwall; k++) {
		if (id < P->wall_id0[k] || id >= P->wall_id1[k]) continue;
		const float *u = P->wall_u0[k], *w = P->wall_w[k], *c = P->wall_c[k];
		float r[3] = {(float)(x - (double)c[0]), (float)(y - (double)c[1]),
		              (float)(z - (double)c[2])};
		o[0] = u[0] + w[1] * r[2] - w[2] * r[1];
		o[1] = u[1] + w[2] * r[0] - w[0] * r[2];
		o[2] = u[2] + w[0] * r[1] - w[1] * r[0];
		return;
	}
}

/* The particle being updated. */
typedef struct tide_pi {
	double x, y, z;
	float vx, vy, vz, rho, p_over_rho2, c;
	int fluid;   /* 1 fluid; 0 boundary (continuity only); 2 a floating body's boundary particle:
	              * continuity as a boundary, and the momentum terms of its fluid neighbours as
	              * a fluid particle would have them (DualSPHysics' floating particles), for the
	              * body's force (include/tide/body_force.h) */
} tide_pi;

typedef struct tide_acc {
	float ax, ay, az, drho;
	float mu_max;   /* max_j |h v_ij.r_ij / (r_ij^2 + eta^2)| for the viscous time step */
} tide_acc;

/* The kernel derivative of a pair as grad_i W = F r_ij (F < 0 inside the support). */
TIDE_HD float tide_pair_F(const tide_sph_params *P, int kernel, float r2)
{
	float r = r2 > 0.f ? tide_sqrt_pos(r2) : 0.f;
	return P->af * tide_kernel_f(kernel, tide_fdiv(r, P->h));
}

/* ---- the SPS turbulence closure (physics.viscosity: laminar+sps) ----
 * Sub-Particle-Scale stress of Gotoh et al. 2001 / Dalrymple & Rogers 2006, as DualSPHysics 5
 * (ViscoLaminarSPS).  Per particle, 6 components in the order xx, xy, xz, yy, yz, zz
 * (TIDE_SPS_XX ...; the block fields are include/tide/sps.h's):
 *  - the velocity gradient g, accumulated in the force pass from every neighbour j (fluid or
 *    boundary) of a fluid particle i as  g += -(m_j/rho_j) sym(v_ij (x) grad_i W), packed as
 *    DualSPHysics does: g_xx = du/dx, g_yy, g_zz the diagonal, g_xy = du/dy + dv/dx = 2 S_xy
 *    and so on (the off-diagonal components are twice the strain rate's);
 *  - tau, made of g after the pass (tide_sps_tau), stored as tau_ij / rho^2 with
 *      tau_ij / rho = 2 nu_t S_ij - 2/3 k delta_ij - 2/3 C_I dp^2 |S|^2 delta_ij,
 *      nu_t = (C_s dp)^2 |S|, |S| = sqrt(2 S_ij S_ij), k = nu_t S_kk
 *    (k makes the first two terms the deviatoric strain, as DualSPHysics' sps_k);
 *  - the pair term of the momentum equation of fluid i, added to the laminar one:
 *      a_i += m_j (tau_i/rho_i^2 + tau_j/rho_j^2) . grad_i W   (tau_j of fluid j only).
 * The force pass reads the tau made after the previous pass: tau lags one force evaluation,
 * as in DualSPHysics. */
enum { TIDE_SPS_XX, TIDE_SPS_XY, TIDE_SPS_XZ, TIDE_SPS_YY, TIDE_SPS_YZ, TIDE_SPS_ZZ };

/* One pair's share of the gradient before its weight: g = sym(dv (x) f), f = grad_i W, packed
 * as above (i's gradient takes it times -m_j/rho_j, j's times -m_i/rho_i: v_ji (x) grad_j W is
 * the same product).  And the SPS force direction t = ts . f for the summed stress ts. */
#define TIDE_SPS_FORMS_(QUAL, T, S)                                                             \
	QUAL void tide_sps_dvf_##S(T dvx, T dvy, T dvz, T fx, T fy, T fz, T g[6])               \
	{                                                                                       \
		g[TIDE_SPS_XX] = dvx * fx;                                                      \
		g[TIDE_SPS_XY] = dvx * fy + dvy * fx;                                           \
		g[TIDE_SPS_XZ] = dvx * fz + dvz * fx;                                           \
		g[TIDE_SPS_YY] = dvy * fy;                                                      \
		g[TIDE_SPS_YZ] = dvy * fz + dvz * fy;                                           \
		g[TIDE_SPS_ZZ] = dvz * fz;                                                      \
	}                                                                                       \
	QUAL void tide_sps_dot_##S(const T ts[6], T fx, T fy, T fz, T *tx, T *ty, T *tz)        \
	{                                                                                       \
		*tx = ts[TIDE_SPS_XX] * fx + ts[TIDE_SPS_XY] * fy + ts[TIDE_SPS_XZ] * fz;       \
		*ty = ts[TIDE_SPS_XY] * fx + ts[TIDE_SPS_YY] * fy + ts[TIDE_SPS_YZ] * fz;       \
		*tz = ts[TIDE_SPS_XZ] * fx + ts[TIDE_SPS_YZ] * fy + ts[TIDE_SPS_ZZ] * fz;       \
	}
#define TIDE_SPS_FORMS(QUAL, T, S) TIDE_SPS_FORMS_(QUAL, T, S)
TIDE_SPS_FORMS(TIDE_HD, float, f)

/* tau / rho^2 of a fluid particle of density rho from its gradient g (smag = (C_s dp)^2,
 * blin = 2/3 C_I dp^2: tide_sph_params' sps_smag, sps_blin).  Returns nu_t. */
TIDE_HD float tide_sps_tau(float smag, float blin, float rho, const float g[6], float tau[6])
{
	float xx = g[TIDE_SPS_XX], yy = g[TIDE_SPS_YY], zz = g[TIDE_SPS_ZZ];
	float d2 = xx * xx + yy * yy + zz * zz;
	/* |S|^2 = 2 S_ij S_ij = 2 (diagonal^2) + (off-diagonal g)^2, g_ab = 2 S_ab */
	float s2 = d2 + d2 + g[TIDE_SPS_XY] * g[TIDE_SPS_XY] + g[TIDE_SPS_XZ] * g[TIDE_SPS_XZ] +
	           g[TIDE_SPS_YZ] * g[TIDE_SPS_YZ];
	float nut = smag * sqrtf(s2);
	float iso = -(2.f / 3.f * nut * (xx + yy + zz) + blin * s2);
	float r = 1.f / rho;
	tau[TIDE_SPS_XX] = r * (2.f * nut * xx + iso);
	tau[TIDE_SPS_YY] = r * (2.f * nut * yy + iso);
	tau[TIDE_SPS_ZZ] = r * (2.f * nut * zz + iso);
	tau[TIDE_SPS_XY] = r * nut * g[TIDE_SPS_XY];
	tau[TIDE_SPS_XZ] = r * nut * g[TIDE_SPS_XZ];
	tau[TIDE_SPS_YZ] = r * nut * g[TIDE_SPS_YZ];
	return nut;
}

/* The SPS pair term of fluid particle i from neighbour j (scalar form; the caller calls it for
 * fluid i only, beside tide_pair_k): the stress force into acc, the gradient into grad.  dv =
 * v_i - v_j, taui and tauj the particles' tau / rho^2 (tauj counts for fluid j only). */
TIDE_HD void tide_pair_sps_k(const tide_sph_params *P, int kernel, const float taui[6], float dx,
                             float dy, float dz, float r2, float dvx, float dvy, float dvz,
                             float rhoj, uint32_t tj, const float tauj[6], tide_acc *acc,
                             float grad[6])
{
	float F = tide_pair_F(P, kernel, r2);
	float fx = F * dx, fy = F * dy, fz = F * dz;
	float mj = tj == TIDE_BOUND ? P->mass[TIDE_BOUND] : P->mass[TIDE_FLUID];
	float ts[6], g[6], tx, ty, tz;
	for (int k = 0; k < 6; k++) ts[k] = taui[k] + (tj == TIDE_FLUID ? tauj[k] : 0.f);
	tide_sps_dot_f(ts, fx, fy, fz, &tx, &ty, &tz);
	acc->ax += mj * tx;
	acc->ay += mj * ty;
	acc->az += mj * tz;
	tide_sps_dvf_f(dvx, dvy, dvz, fx, fy, fz, g);
	float w = -tide_fdiv(mj, rhoj);
	for (int k = 0; k < 6; k++) grad[k] += w * g[k];
}

/* The scalar form.  Neighbour j as a pair term needs it: relative position r_ij = r_i - r_j
 * (inside the support; r_ij = 0, i itself or a particle on top of it, contributes nothing),
 * velocity (vxj..: what it shows, the viscous terms' v_j; oxj..: its own, the continuity's,
 * tide_wall_velocity: the same unless j is a mirrored wall; i's own is pi's: a particle whose
 * sums are used is fluid, floating or a DBC wall, none of them mirrored), density, type, and
 * its pressure term p_j/rho_j^2 and sound speed
 * (tide_pressure(rho_j) / (rho_j rho_j) and tide_sound(rho_j), so that callers which keep them
 * per particle get exactly what callers computing them per pair get).  tide_pair_k takes the
 * kernel and the density diffusion as arguments, so that a caller compiled for one of them
 * (the CUDA codelet) folds them away. */
TIDE_HD void tide_pair_k(const tide_sph_params *P, int kernel, int diffusion, const tide_pi *pi,
                         float dx, float dy, float dz, float r2, float vxj, float vyj, float vzj,
                         float oxj, float oyj, float ozj, float rhoj, uint32_t tj,
                         float pj_over_rho2, float cj, tide_acc *acc)
{
	float F = tide_pair_F(P, kernel, r2); /* grad_i W = F r_ij, F < 0 */
	float dvx = pi->vx - vxj, dvy = pi->vy - vyj, dvz = pi->vz - vzj;
	float dvr = dvx * dx + dvy * dy + dvz * dz;
	/* continuity: the walls' own velocity (the same expression as dvr's, so where o = v the
	 * two are the same number) */
	float dor = (pi->vx - oxj) * dx + (pi->vy - oyj) * dy + (pi->vz - ozj) * dz;
	float mj = tj == TIDE_BOUND ? P->mass[TIDE_BOUND] : P->mass[TIDE_FLUID]; /* no indexed load */
	acc->drho += mj * dor * F;
	float mu = tide_fdiv(P->h * dvr, r2 + P->eta2);
	float amu = fabsf(mu);
	if (amu > acc->mu_max) acc->mu_max = amu;
	if (!pi->fluid) return; /* DBC: boundary particles only integrate continuity */
	float visc = 0.f;
	int artificial = P->viscosity == TIDE_VISC_ARTIFICIAL;
	if (artificial && dvr < 0.f)
		visc = tide_fdiv(-P->visco * 0.5f * (pi->c + cj) * mu, 0.5f * (pi->rho + rhoj));
	float coef = -mj * (pi->p_over_rho2 + pj_over_rho2 + visc) * F;
	acc->ax += coef * dx;
	acc->ay += coef * dy;
	acc->az += coef * dz;
	if (!artificial) {
		/* laminar (Lo & Shao 2002, Morris 1997): m_j 4 nu r_ij.grad W / ((rho_i + rho_j)
		 * (r^2 + eta^2)) v_ij, r_ij.grad W = F r^2; walls (v = 0) give the no-slip drag */
		float lam = tide_fdiv(4.f * P->nu * mj * F * r2, (pi->rho + rhoj) * (r2 + P->eta2));
		acc->ax += lam * dvx;
		acc->ay += lam * dvy;
		acc->az += lam * dvz;
	}
	if (diffusion != 0 && tj == TIDE_FLUID && pi->fluid == 1) {
		float drho = pi->rho - rhoj;
		/* Fourtakas: diffuse only the dynamic part, not the hydrostatic gradient. */
		if (diffusion == 2)
			drho -= tide_rho_hydro(P->rho0, P->rhoh_g, 1.f / P->gamma, dx, dy, dz);
		acc->drho += tide_diffusion_f(P->delta_hc0 * 2.f, drho, r2 + P->eta2, r2, F,
		                              tide_fdiv(mj, rhoj));
	}
}

/* The contact pair (mDBC) of floating particle i with boundary particle j of another body, in
 * the scalar form: i's acceleration into acc (r_ij = (dx, dy, dz), dv = v_i - v_j). */
TIDE_HD void tide_pair_contact(const tide_sph_params *P, float dx, float dy, float dz, float r2,
                               float dvx, float dvy, float dvz, tide_acc *acc)
{
	float c = tide_contact_f(P->contact_k, P->contact_g, P->contact_d, r2,
	                         dvx * dx + dvy * dy + dvz * dz);
	acc->ax += c * dx;
	acc->ay += c * dy;
	acc->az += c * dz;
}

TIDE_HD void tide_pair(const tide_sph_params *P, const tide_pi *pi, float dx, float dy, float dz,
                       float r2, float vxj, float vyj, float vzj, float rhoj, uint32_t tj,
                       float pj_over_rho2, float cj, tide_acc *acc)
{
	tide_pair_k(P, P->kernel, P->diffusion, pi, dx, dy, dz, r2, vxj, vyj, vzj, vxj, vyj, vzj,
	            rhoj, tj, pj_over_rho2, cj, acc);
}
#endif /* TIDE_SPH_PAIR_H */

/* ---- the SIMD form, for one vector width ---------------------------------------------------- */
#if defined(TIDE_CPU_VW) && defined(TIDE_CPU_SFX) && !defined(__CUDACC__)
#define TIDE_CPU_CAT_(a, b) a##_##b
#define TIDE_CPU_CAT(a, b) TIDE_CPU_CAT_(a, b)
#define TIDE_CPU_N(x) TIDE_CPU_CAT(x, TIDE_CPU_SFX)
#define vf TIDE_CPU_N(vf)
#define vi TIDE_CPU_N(vi)
#define vload TIDE_CPU_N(vload)
#define vstore TIDE_CPU_N(vstore)
#define vsplat TIDE_CPU_N(vsplat)
#define vsel TIDE_CPU_N(vsel)
#define vmax TIDE_CPU_N(vmax)
#define vabs TIDE_CPU_N(vabs)
#define vand TIDE_CPU_N(vand)
#define vsqrt TIDE_CPU_N(vsqrt)
#define vany TIDE_CPU_N(vany)
#define vsum TIDE_CPU_N(vsum)
#define vhmax TIDE_CPU_N(vhmax)
#define vdiv TIDE_CPU_N(vdiv)
#define ivals TIDE_CPU_N(ivals)
#define kconst TIDE_CPU_N(kconst)
#define vpair_out TIDE_CPU_N(vpair_out)
#define rho_h TIDE_CPU_N(rho_h)
#define vpair TIDE_CPU_N(vpair)
#define vsps_out TIDE_CPU_N(vsps_out)
#define vsps TIDE_CPU_N(vsps)
#define vkf_cubic_in TIDE_CPU_N(tide_kf_cubic_in)
#define vkf_cubic_out_q TIDE_CPU_N(tide_kf_cubic_out_q)
#define vkf_wendland TIDE_CPU_N(tide_kf_wendland)
#define vdiffusion TIDE_CPU_N(tide_diffusion)
#define vcontact TIDE_CPU_N(tide_contact)
#define VW TIDE_CPU_VW

typedef float vf __attribute__((vector_size(4 * TIDE_CPU_VW)));
typedef int32_t vi __attribute__((vector_size(4 * TIDE_CPU_VW)));

static inline vf vload(const float *p)
{
	vf v;
	memcpy(&v, p, sizeof v);
	return v;
}
static inline void vstore(float *p, vf v) { memcpy(p, &v, sizeof v); }
/* x - 0 is x for every x, -0 included */
static inline vf vsplat(float x) { return x - (vf){0}; }
static inline vf vsel(vi m, vf a, vf b) { return (vf)(((vi)a & m) | ((vi)b & ~m)); }
static inline vf vand(vf a, vi m) { return (vf)((vi)a & m); }
static inline vf vmax(vf a, vf b) { return vsel(a > b, a, b); }
static inline vf vabs(vf a) { return (vf)((vi)a & (0x7fffffff - (vi){0})); }
static inline vf vdiv(vf a, vf b) { return a / b; }
static inline vf vsqrt(vf a)
{
#if TIDE_CPU_VW == 16 && defined(__AVX512F__)
	return (vf)_mm512_sqrt_ps((__m512)a);
#elif TIDE_CPU_VW == 8 && defined(__AVX__)
	return (vf)_mm256_sqrt_ps((__m256)a);
#elif TIDE_CPU_VW == 4 && defined(__SSE__)
	return (vf)_mm_sqrt_ps((__m128)a);
#else
	for (int k = 0; k < VW; k++) a[k] = sqrtf(a[k]);
	return a;
#endif
}
static inline int vany(vi m)
{
#if TIDE_CPU_VW == 16 && defined(__AVX512F__)
	return _mm512_test_epi32_mask((__m512i)m, (__m512i)m) != 0;
#elif TIDE_CPU_VW == 8 && defined(__AVX__)
	return _mm256_movemask_ps((__m256)m) != 0;
#elif TIDE_CPU_VW == 4 && defined(__SSE__)
	return _mm_movemask_ps((__m128)m) != 0;
#else
	int32_t o = 0;
	for (int k = 0; k < VW; k++) o |= m[k];
	return o != 0;
#endif
}
/* pairwise, in a fixed order */
static inline float vsum(vf a)
{
	for (int w = VW; w > 1; w /= 2)
		for (int k = 0; k < w / 2; k++) a[k] = a[2 * k] + a[2 * k + 1];
	return a[0];
}
static inline float vhmax(vf a)
{
	for (int w = VW; w > 1; w /= 2)
		for (int k = 0; k < w / 2; k++) a[k] = a[2 * k] > a[2 * k + 1] ? a[2 * k] : a[2 * k + 1];
	return a[0];
}

/* The shared maths on vectors: the same source as the scalar form's. */
TIDE_KERNEL_F_FORMS(static inline, vf, TIDE_CPU_SFX)
TIDE_DIFFUSION_FORM(static inline, vf, TIDE_CPU_SFX, vdiv)
TIDE_SPS_FORMS(static inline, vf, TIDE_CPU_SFX)
#define TIDE_CONTACT_KEEP_V(c, cond) vand((c), (cond) & ((c) > vsplat(0.f)))
TIDE_CONTACT_FORM(static inline, vf, TIDE_CPU_SFX, vsqrt, vdiv, TIDE_CONTACT_KEEP_V)
#undef TIDE_CONTACT_KEEP_V

/* Particle i, splat: position in the frame of the neighbour cell, velocity, density, p/rho^2,
 * sound speed, mass, fluid flag (1/0) and m/rho. */
typedef struct ivals {
	vf x, y, z, vx, vy, vz, rho, pr, cs, m, fl, mr;
	vf ox, oy, oz;   /* its own velocity (continuity; tide_wall_velocity) */
	vf tau[6];   /* laminar+sps: tau / rho^2 (0 for a boundary particle) */
} ivals;

/* Constants of the pair terms as vectors (from tide_sph_params: h2x4, a tiny r^2 under which a
 * pair is i itself, 1/h, af, h, eta^2, -visco/2 (0 unless artificial), 1, 2, 2 delta h c0),
 * Fourtakas' scalars and 2 nu (0 unless laminar). */
typedef struct kconst {
	vf h2x4, tiny, invh, af, h, eta2, hvisc, one, two, dhc0x2;
	float rho0, rhoh_g[3], inv_gamma;
	vf lam;
	int sps;   /* laminar+sps: the SPS terms (vsps) too */
	vf kc, gc, dc;   /* the contact force under mDBC (tide_contact_*): stiffness, damping, dp */
	int own;   /* tide_walls_mirrored: continuity and contact read the own velocities */
} kconst;

/* Fourtakas' hydrostatic density difference for r_ij = (dx, dy, dz), lane by lane (rare path). */
static inline vf rho_h(const kconst *K, vf dx, vf dy, vf dz, vi m)
{
	vf r = vsplat(0.f);
	for (int k = 0; k < VW; k++)
		if (m[k]) r[k] = tide_rho_hydro(K->rho0, K->rhoh_g, K->inv_gamma, dx[k], dy[k], dz[k]);
	return r;
}

/* What one pair gives both particles: i's acceleration is -m_j t, j's +m_i t, their density
 * rates dri and drj, and |mu_ij| (lanes outside `in` are 0). */
typedef struct vpair_out {
	vf tx, ty, tz, dri, drj, amu;
	vf F;   /* grad_i W = F r_ij (0 outside `in`), for the SPS terms (vsps) */
} vpair_out;

/* The SIMD form: particle i against VW neighbours j (position differences dx = x_i - x_j..,
 * r2 = |r_ij|^2, `in`: the lanes inside the support and not i itself; their velocities (vxj..
 * shown, the viscous terms'; oxj.. own, the continuity's, as tide_pair_k), density, mass,
 * p/rho^2, sound speed and fluid flag).  The same physics as tide_pair_k for i
 * and, with the roles exchanged, for j, but one division for the kernel's 1/q, mu's
 * 1/(r^2 + eta^2) and Pi's 1/rhobar.  fluid_i: i is a fluid particle (full momentum and
 * diffusion); otherwise a boundary particle, whose candidates are all fluid and which itself
 * only integrates continuity.  kernel and diffusion are constants where this is inlined. */
static inline __attribute__((always_inline)) vpair_out
vpair(const kconst *K, const ivals *I, int fluid_i, int kernel, int diffusion, vf dx, vf dy,
      vf dz, vf r2, vi in, vf vxj, vf vyj, vf vzj, vf oxj, vf oyj, vf ozj, vf rhoj, vf mj, vf prj,
      vf csj, vf flj)
{
	vf r = vsqrt(r2);
	vf q = r * K->invh;
	vf dvx = I->vx - vxj;
	vf dvy = I->vy - vyj;
	vf dvz = I->vz - vzj;
	vf dvr = dvx * dx + dvy * dy + dvz * dz;
	vf d1 = r2 + K->eta2, d2 = vsplat(0.5f) * (I->rho + rhoj);
	vf F;
	vf inv;
	if (kernel == TIDE_KERNEL_CUBIC) {
		inv = vsplat(1.f) / (d1 * d2 * q);
		vf fo = vkf_cubic_out_q(q) * (d1 * d2 * inv); /* times 1/q */
		F = K->af * vsel(q < K->one, vkf_cubic_in(q), fo);
		inv = inv * q;           /* 1/(d1 d2) */
	} else {
		inv = vsplat(1.f) / (d1 * d2);
		F = K->af * vkf_wendland(q);
	}
	vf hdvr = K->h * dvr;
	vf mu = hdvr * d2 * inv;
	vf visc = vand(K->hvisc * (I->cs + csj) * hdvr * inv, dvr < vsplat(0.f));
	vf T = vand((I->pr + prj + visc) * F, in);
	vf dor = dvr;   /* continuity's v_ij . r_ij, with the walls' own velocities */
	if (K->own) /* the same for every pair of a run: the other runs pay nothing */
		dor = (I->ox - oxj) * dx + (I->oy - oyj) * dy + (I->oz - ozj) * dz;
	vf cont = vand(dor * F, in);
	vpair_out o;
	o.amu = vand(vabs(mu), in);
	o.tx = T * dx;
	o.ty = T * dy;
	o.tz = T * dz;
	if (K->lam[0] != 0.f) { /* the same for every pair of a run: the artificial path pays nothing */
		/* laminar: 4 nu F r^2 / ((rho_i + rho_j)(r^2 + eta^2)) = 2 nu F r^2 / (d1 d2) along
		 * v_ij, to i with m_j and to j with -m_i (v_ji = -v_ij): folded into t, minus sign */
		vf lam = vand(K->lam * F * r2 * inv, in);
		o.tx -= lam * dvx;
		o.ty -= lam * dvy;
		o.tz -= lam * dvz;
	}
	o.F = vand(F, in);
	o.drj = I->m * cont;
	o.dri = mj * cont;
	if (fluid_i && diffusion != 0) {
		/* fluid-fluid pairs only */
		vi ff = in & (flj > vsplat(0.5f));
		vf di = I->rho - rhoj, dj = rhoj - I->rho;
		if (diffusion == 2) {
			di -= rho_h(K, dx, dy, dz, ff);
			dj -= rho_h(K, -dx, -dy, -dz, ff);
		}
		o.dri += vand(vdiffusion(K->dhc0x2, di, d1, r2, F, mj / rhoj), ff);
		o.drj += vand(vdiffusion(K->dhc0x2, dj, d1, r2, F, I->mr), ff);
	}
	return o;
}

/* The SPS pair terms on vectors (the scalar form's tide_pair_sps_k, for both particles): with
 * F from vpair (0 outside the support), taui i's tau/rho^2 splat and tauj j's (0 for boundary
 * j), the force direction t = (tau_i + tau_j) . grad_i W, which i takes times +m_j and j times
 * -m_i, and the gradient product g, which i takes times -m_j/rho_j and j times -m_i/rho_i. */
typedef struct vsps_out {
	vf tx, ty, tz, g[6];
} vsps_out;

static inline __attribute__((always_inline)) vsps_out
vsps(const vf taui[6], const vf tauj[6], vf F, vf dx, vf dy, vf dz, vf dvx, vf dvy, vf dvz)
{
	vsps_out o;
	vf fx = F * dx, fy = F * dy, fz = F * dz, ts[6];
	for (int k = 0; k < 6; k++) ts[k] = taui[k] + tauj[k];
	TIDE_CPU_N(tide_sps_dot)(ts, fx, fy, fz, &o.tx, &o.ty, &o.tz);
	TIDE_CPU_N(tide_sps_dvf)(dvx, dvy, dvz, fx, fy, fz, o.g);
	return o;
}
#endif /* the SIMD form */
