// SPDX-License-Identifier: LGPL-2.1-or-later
// The two forms of the SPH pair interaction (sph_pair.h) against each other on random pairs:
// the SIMD form vpair (the CPU codelet's, 4 and, where the CPU has AVX2, 8 floats wide) and the
// scalar form tide_pair_k (the CUDA codelet's, here with the host's IEEE division), for both
// kernels (cubic, Wendland), no / Molteni / Fourtakas density diffusion and both viscosities
// (Monaghan's artificial one; the laminar one of Lo & Shao with nu = 1e-3 m^2/s, about 1 % of
// the pressure term, so a wrong factor or sign in it is far above the tolerance; the laminar
// term is also checked against its formula, evaluated independently in double precision; and
// laminar+sps, whose SPS terms, vsps against tide_pair_sps_k with random tau / rho^2 of 1e-3,
// are compared as two more kinds: the stress force and the velocity gradient).  vpair evaluates a
// pair once for both particles, so each pair is checked against tide_pair_k for i and, with the
// roles exchanged, for j: accelerations (fluid particles), density rates and |mu|.  Pairs are
// inside the support at random distances (some outside it, and i itself, which must give
// exactly nothing), random velocities (a quarter equal to i's, so that the density rate is the
// diffusion alone) and densities around rho0, fluid and boundary particles.  The forms differ
// in how they divide (vpair: one division for the kernel's 1/q, mu and Pi; q = r (1/h)), so they
// agree to rounding: each value within TOL = 2e-6 of the largest magnitude of its kind over the
// pairs of its configuration (measured worst: 4e-7); the density rates of pairs at equal
// velocities, the diffusion alone, are a kind of their own.  A wrong factor, sign or a swapped
// i/j shows as a difference of order one.  The contact force of floating bodies under mDBC
// (tide_contact_*) is checked on the same pairs as if both were boundary particles of different
// bodies, with random relative velocities (the dashpot's sign): the SIMD form for i and, negated,
// for j against tide_pair_contact for each, and tide_pair_contact against the formula
// max(0, kc (dp - r) - gc v_ij.r_ij / r) r_ij / r for r < dp, 0 beyond, in double (about a third
// of the pairs overlap).  Every other batch has mirrored walls (mDBC noslip/freeslip): walls
// with a mirror velocity for the viscous terms and another, own, velocity for the continuity;
// the density rates of the walls themselves (unused under mDBC) are then not compared.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
#include "tide/sph_interact.h"

#define TOL 2e-6      /* of the largest magnitude of the quantity in the configuration */

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double urand(void)
{
	rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

/* A water-like case: dp 0.01 m, h = 1.3 dp, Tait (gamma 7, c0 30 m/s), alpha 0.1, delta 0.1. */
static tide_sph_params params(int kernel, int diffusion, int viscosity)
{
	tide_sph_params P;
	memset(&P, 0, sizeof P);
	double dp = 0.01, h = 1.3 * dp, rho0 = 1000.0, c0 = 30.0, B = rho0 * c0 * c0 / 7.0;
	P.dim = 3;
	P.kernel = kernel;
	P.diffusion = diffusion;
	P.eos = TIDE_EOS_TAIT;
	P.h = (float)h;
	P.h2x4 = (float)(4.0 * h * h);
	P.aw = (float)tide_kernel_alpha(kernel, 3, h);
	P.af = (float)(tide_kernel_alpha(kernel, 3, h) / (h * h));
	P.mass[TIDE_FLUID] = P.mass[TIDE_BOUND] = (float)(rho0 * dp * dp * dp);
	P.rho0 = (float)rho0;
	P.inv_rho0 = (float)(1.0 / rho0);
	P.tait_b = (float)B;
	P.gamma = 7.f;
	P.c0 = (float)c0;
	P.visco = 0.1f;
	P.viscosity = viscosity;
	P.nu = 1e-3f;
	P.eta2 = (float)(0.01 * h * h);
	P.delta_hc0 = (float)(0.1 * h * c0);
	/* tilted: the hydrostatic term's projection on every axis is compared */
	P.rhoh_g[0] = (float)(rho0 * 2.0 / B);
	P.rhoh_g[1] = (float)(rho0 * -1.0 / B);
	P.rhoh_g[2] = (float)(rho0 * -9.81 / B);
	/* the contact force under mDBC (sph_pair.h): kc = (c0 / dp)^2, gc = 2 c0 / dp, dc = dp */
	P.contact_d = (float)dp;
	P.contact_k = (float)(c0 * c0 / (dp * dp));
	P.contact_g = (float)(2.0 * c0 / dp);
	return P;
}

typedef struct particle {
	float x, y, z, vx, vy, vz, rho, pr, cs, m;
	float ox, oy, oz;   /* own velocity (continuity): a mirrored wall's differs from v */
	uint32_t type;
} particle;

/* Every other batch of pairs has mirrored walls (mDBC noslip/freeslip: kconst.own): a boundary
 * particle then shows a random mirror velocity to the viscous terms and has a random own
 * velocity for the continuity (sph_pair.h, tide_wall_velocity); otherwise both are zero. */
static int mirrored;

/* A particle in a cell of side 2h; near: place it at a random offset from that one (mostly
 * inside the support, sometimes outside it or on top of it) and sometimes with its velocity. */
static particle random_particle(const tide_sph_params *P, uint32_t type, const particle *near)
{
	particle p;
	float h = P->h;
	if (!near) {
		p.x = (float)(2.0 * h * urand());
		p.y = (float)(2.0 * h * urand());
		p.z = (float)(2.0 * h * urand());
	} else if (urand() < 0.02) {
		p.x = near->x; p.y = near->y; p.z = near->z;
	} else {
		double d[3], n;
		do {
			for (int k = 0; k < 3; k++) d[k] = 2.0 * urand() - 1.0;
			n = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
		} while (n > 1.0 || n < 1e-3);
		double r = 2.2 * h * (0.02 + 0.98 * urand());
		p.x = near->x - (float)(r * d[0] / n);
		p.y = near->y - (float)(r * d[1] / n);
		p.z = near->z - (float)(r * d[2] / n);
	}
	if (type == TIDE_BOUND) {
		p.vx = p.vy = p.vz = 0.f;
		p.ox = p.oy = p.oz = 0.f;
		if (mirrored) {
			p.vx = (float)(urand() - 0.5);
			p.vy = (float)(urand() - 0.5);
			p.vz = (float)(urand() - 0.5);
			p.ox = (float)(0.2 * (urand() - 0.5));
			p.oy = (float)(0.2 * (urand() - 0.5));
			p.oz = (float)(0.2 * (urand() - 0.5));
		}
	} else if (near && urand() < 0.25) {
		p.vx = near->vx; p.vy = near->vy; p.vz = near->vz;
	} else {
		p.vx = (float)(urand() - 0.5);
		p.vy = (float)(urand() - 0.5);
		p.vz = (float)(urand() - 0.5);
	}
	if (type != TIDE_BOUND) {
		p.ox = p.vx;
		p.oy = p.vy;
		p.oz = p.vz;
	}
	p.rho = (float)(P->rho0 * (0.995 + 0.01 * urand()));
	p.pr = tide_p_over_rho2(P, p.rho);
	p.cs = tide_sound(P, p.rho);
	p.m = P->mass[type];
	p.type = type;
	return p;
}

/* tide_pair_k for particle a with neighbour b, r_ab = (dx, dy, dz). */
static tide_acc scalar(const tide_sph_params *P, int kernel, int diffusion, const particle *a,
                       const particle *b, float dx, float dy, float dz, float r2)
{
	tide_pi pi = {a->x, a->y, a->z, a->vx, a->vy, a->vz, a->rho, a->pr, a->cs,
	              a->type == TIDE_FLUID};
	tide_acc acc = {0.f, 0.f, 0.f, 0.f, 0.f};
	tide_pair_k(P, kernel, diffusion, &pi, dx, dy, dz, r2, b->vx, b->vy, b->vz, b->ox, b->oy,
	            b->oz, b->rho, b->type, b->pr, b->cs, &acc);
	return acc;
}

/* The pairs of one configuration: scalar and vector values of four kinds (0 acceleration,
 * 1 density rate, 2 |mu|, 3 density rate of a pair at equal velocities: the diffusion alone),
 * and more (4, 5: the SPS force and gradient; 6: the contact force of mDBC, tide_contact_f
 * against the SIMD form; 7: tide_contact_f against the formula in double), compared once the
 * largest magnitudes are known. */
#define MAXV 1000000
#define NKIND 8
typedef struct errs {
	int n, masked;
	int kind[MAXV];
	double s[MAXV], v[MAXV];
} errs;

static void compare(errs *E, int kind, float s, float v)
{
	if (E->n == MAXV) return;
	E->kind[E->n] = kind;
	E->s[E->n] = s;
	E->v[E->n] = v;
	E->n++;
}

#define TIDE_CPU_VW 4
#define TIDE_CPU_SFX v4
#include "tide/sph_pair.h"
#include "sph_pair_check.h"
#include "tide/sph_pair_undef.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define HAVE_V8 1
#pragma GCC push_options
#pragma GCC target("avx2")
#define TIDE_CPU_VW 8
#define TIDE_CPU_SFX v8
#include "tide/sph_pair.h"
#include "sph_pair_check.h"
#include "tide/sph_pair_undef.h"
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512vl,avx512bw")
#define TIDE_CPU_VW 16
#define TIDE_CPU_SFX v16
#include "tide/sph_pair.h"
#include "sph_pair_check.h"
#include "tide/sph_pair_undef.h"
#pragma GCC pop_options
#endif

static errs E;

/* Returns the failures of one configuration and width. */
static int judge(const char *what, int kernel, int diffusion, int sps)
{
	static const char *kn[] = {"cubic", "wendland"}, *dn[] = {"none", "molteni", "fourtakas"},
	                  *qn[] = {"acceleration", "density rate", "|mu|", "diffusion", "SPS force",
	                           "SPS gradient", "contact", "contact formula"};
	double big[NKIND] = {0}, worst[NKIND] = {0};
	int fails = 0, count[NKIND] = {0};
	for (int i = 0; i < E.n; i++)
		if (fabs(E.s[i]) > big[E.kind[i]]) big[E.kind[i]] = fabs(E.s[i]);
	for (int i = 0; i < E.n; i++) {
		int k = E.kind[i];
		/* without diffusion, pairs at equal velocities give exactly 0 in both forms */
		double e = big[k] > 0 ? fabs(E.v[i] - E.s[i]) / big[k] : fabs(E.v[i] - E.s[i]);
		count[k]++;
		if (!(e <= TOL)) {
			if (fails++ < 5)
				fprintf(stderr, "FAIL %s %s %s: %s scalar %.9g vector %.9g (%.2g of the "
				        "largest)\n", what, kn[kernel], dn[diffusion], qn[k], E.s[i], E.v[i], e);
		}
		if (e > worst[k] || e != e) worst[k] = e;
	}
	if (E.masked) {
		fprintf(stderr, "FAIL %s %s %s: %d masked lanes gave a value\n", what, kn[kernel],
		        dn[diffusion], E.masked);
		fails++;
	}
	for (int k = 0; k < NKIND; k++)
		if ((k < 3 || (k == 3 && diffusion) || ((k == 4 || k == 5) && sps) || k > 5) &&
		    (count[k] == 0 || !(big[k] > 0))) {
			fprintf(stderr, "FAIL %s %s %s: no %s compared\n", what, kn[kernel], dn[diffusion],
			        qn[k]);
			fails++;
		}
	printf("%s %-8s %-9s: %d values, worst difference of the largest: accel %.1e, drho %.1e, "
	       "mu %.1e, diffusion alone %.1e", what, kn[kernel], dn[diffusion], E.n, worst[0],
	       worst[1], worst[2], worst[3]);
	if (sps) printf(", SPS force %.1e, SPS gradient %.1e", worst[4], worst[5]);
	printf(", contact %.1e (formula %.1e)", worst[6], worst[7]);
	printf("\n");
	return fails;
}

/* The laminar term alone, independently: two fluid particles at equal density (so the pressure
 * terms of tide_pair_k cancel between a run with nu and one without), against the formula in
 * double precision, m_j 4 nu (r.grad W) / ((rho_i + rho_j)(r^2 + eta^2)) v_ij with grad W =
 * F r (the kernel derivative written out here: cubic spline, q < 1 and 1 <= q < 2). */
static int laminar_reference(void)
{
	int fails = 0;
	for (int t = 0; t < 200; t++) {
		tide_sph_params P = params(TIDE_KERNEL_CUBIC, 0, TIDE_VISC_LAMINAR), P0 = P;
		P0.nu = 0.f;
		double h = P.h, q = 0.05 + 1.9 * urand();
		double ux = urand() - 0.5, uy = urand() - 0.5, uz = urand() - 0.5, un = sqrt(ux * ux + uy * uy + uz * uz);
		float dx = (float)(q * h * ux / un), dy = (float)(q * h * uy / un), dz = (float)(q * h * uz / un);
		float r2 = dx * dx + dy * dy + dz * dz;
		float rho = 1000.f;
		tide_pi pi = {0, 0, 0, (float)(urand() - 0.5), (float)(urand() - 0.5), (float)(urand() - 0.5), rho,
		              tide_p_over_rho2(&P, rho), tide_sound(&P, rho), 1};
		float vj[3] = {(float)(urand() - 0.5), (float)(urand() - 0.5), (float)(urand() - 0.5)};
		tide_acc a = {0, 0, 0, 0, 0}, a0 = {0, 0, 0, 0, 0};
		tide_pair_k(&P, 0, 0, &pi, dx, dy, dz, r2, vj[0], vj[1], vj[2], vj[0], vj[1], vj[2], rho, TIDE_FLUID, pi.p_over_rho2, pi.c, &a);
		tide_pair_k(&P0, 0, 0, &pi, dx, dy, dz, r2, vj[0], vj[1], vj[2], vj[0], vj[1], vj[2], rho, TIDE_FLUID, pi.p_over_rho2, pi.c, &a0);
		double r = sqrt((double)r2), qq = r / h;
		double dwdq = qq < 1 ? -3.0 * qq + 2.25 * qq * qq : -0.75 * (2 - qq) * (2 - qq); /* /alpha */
		double F = tide_kernel_alpha(0, 3, h) * dwdq / (h * r); /* (dW/dr) / r */
		double m = P.mass[TIDE_FLUID];
		double k = m * 4.0 * P.nu * F * r * r / ((2.0 * rho) * (r * r + P.eta2));
		double ref[3] = {k * (pi.vx - vj[0]), k * (pi.vy - vj[1]), k * (pi.vz - vj[2])};
		double got[3] = {a.ax - a0.ax, a.ay - a0.ay, a.az - a0.az};
		double big = sqrt(ref[0] * ref[0] + ref[1] * ref[1] + ref[2] * ref[2]);
		for (int d = 0; d < 3; d++)
			if (!(fabs(got[d] - ref[d]) <= 1e-4 * big + 1e-9 * fabs(a0.ax))) {
				if (fails++ < 5)
					fprintf(stderr, "FAIL laminar term q = %.3f axis %d: tide_pair_k %.9g, "
					        "formula %.9g\n", qq, d, got[d], ref[d]);
			}
	}
	printf("laminar term vs its formula: %d failures in 200 pairs\n", fails);
	return fails;
}

int main(void)
{
	int fails = laminar_reference();
	for (int visc = 0; visc < 3; visc++)
	for (int kernel = 0; kernel < 2; kernel++)
		for (int diffusion = 0; diffusion < 3; diffusion++) {
			static const char *n4[] = {"v4", "v4 laminar", "v4 laminar+sps"},
			                  *n8[] = {"v8", "v8 laminar", "v8 laminar+sps"},
			                  *n16[] = {"v16", "v16 laminar", "v16 laminar+sps"};
			const char *w4 = n4[visc], *w8 = n8[visc], *w16 = n16[visc];
			int sps = visc == TIDE_VISC_LAMINAR_SPS;
			E.n = E.masked = 0;
			check_v4(kernel, diffusion, visc, 20000, &E);
			fails += judge(w4, kernel, diffusion, sps);
#ifdef HAVE_V8
			__builtin_cpu_init();
			if (__builtin_cpu_supports("avx2")) {
				E.n = E.masked = 0;
				check_v8(kernel, diffusion, visc, 20000, &E);
				fails += judge(w8, kernel, diffusion, sps);
			}
			if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
			    __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw")) {
				E.n = E.masked = 0;
				check_v16(kernel, diffusion, visc, 20000, &E);
				fails += judge(w16, kernel, diffusion, sps);
			}
#endif
		}
	if (fails) fprintf(stderr, "%d failures\n", fails);
	return fails ? 1 : 0;
}
