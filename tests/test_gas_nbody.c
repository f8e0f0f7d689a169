// SPDX-License-Identifier: LGPL-2.1-or-later
// Collisionless particles in gas runs (block.h TIDE_NBODY, include/tide/gas_math.h), through the
// real step:
//  (a) drift: a collisionless particle crossing a uniform isothermal gas cube at twice the sound
//      speed, without gravity, keeps its velocity bit for bit and moves at it (x = x0 + v t),
//      while a gas particle given the same velocity is decelerated (viscosity, pressure); the
//      gas's h, rho and accelerations of the first step are those of the same gas without the
//      collisionless particle (it is no neighbour: no density, no pressure, no viscosity);
//  (b) self-gravity: a gas ball and a ball of collisionless particles of the same mass
//      overlapping it; one step's self-gravity acceleration (the step with and without
//      physics.self_gravity, subtracted) of every gas and collisionless particle against a
//      double-precision direct sum over all particles with their masses and the Plummer
//      softening: 99th percentile of the relative error <= 1e-3 (the tree's tolerance at theta
//      0.5 with quadrupoles, tests/test_self_gravity.c), for the fixed softening and with
//      softening tied to h (gas eps_i = h_factor h_i, collisionless eps_nbody, pairs by the
//      mean of the squares, bh_soft2);
//  (c) energy: a Plummer sphere of collisionless particles (in equilibrium, Aarseth, Henon &
//      Wielen 1974 sampling) with a hot gas ball inside it, to t = 3 t_dyn: the total energy
//      E_kin + E_thermal + W (W the tree's potential) stays within 1 % of |W(0)| (the bound the
//      Evrard test of issue 23 sets for the same integrator and tree, tests/test_gas_evrard.c;
//      measured 1.2e-3, most of it in the first, largest steps).
// With --cuda (test gas_nbody_cuda): (a)'s first step on the CUDA codelets against the CPU's
// (gas_density, gas_forces, gas_integrate); exits 77 (SKIP) without a CUDA worker.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/case.h"
#include "tide/codelets.h"
#include "tide/gas_math.h"
#include "tide/sph_sim.h"
#include "case_load.h"
#include "gas_ic.h"
#include "runtime.h"
#include "test_cuda_mode.h"
#include "test_gas_case.h"

static int failures;
#define EXPECT(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static double uniform01(void)
{
	rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

/* A collisionless particle as gas_input.c makes one (no h, u or density). */
static void push_nbody(tide_block_view *v, const double p[3], const double vel[3], double m)
{
	uint32_t i = v->count;
	tide_gas_ic_push(v, p, vel, 0.0, m, 0.0, 0.0);
	v->type[i] = TIDE_NBODY;
}

/* The particles of the sim after one force evaluation, by id (n ids). */
typedef struct field {
	uint32_t n;
	double *x, *a, *v, *h, *rho, *m;   /* 3 n, 3 n, 3 n, n, n, n */
	uint32_t *type;
} field;

static void field_alloc(field *f, uint32_t n)
{
	f->n = n;
	f->x = calloc(3 * (size_t)n, sizeof(double)); f->a = calloc(3 * (size_t)n, sizeof(double));
	f->v = calloc(3 * (size_t)n, sizeof(double)); f->h = calloc(n, sizeof(double));
	f->rho = calloc(n, sizeof(double)); f->m = calloc(n, sizeof(double));
	f->type = calloc(n, sizeof(uint32_t));
}

static void field_free(field *f)
{
	free(f->x); free(f->a); free(f->v); free(f->h); free(f->rho); free(f->m); free(f->type);
}

static int gather(tide_sim *sim, field *f)
{
	void *mem = NULL;
	tide_block_view g;
	if (tide_sim_gather(sim, 0, &mem, &g)) return -1;
	int ok = g.count == f->n;
	for (uint32_t i = 0; ok && i < g.count; i++) {
		uint32_t id = g.id[i];
		if (id >= f->n) { ok = 0; break; }
		double x[3] = {g.x[i], g.y[i], g.z[i]}, a[3] = {g.ax[i], g.ay[i], g.az[i]},
		       vv[3] = {g.vx[i], g.vy[i], g.vz[i]};
		for (int k = 0; k < 3; k++) {
			f->x[3 * id + k] = x[k];
			f->a[3 * id + k] = a[k];
			f->v[3 * id + k] = vv[k];
		}
		f->h[id] = g.TIDE_GAS_H[i];
		f->rho[id] = g.rho[i];
		f->m[id] = g.TIDE_GAS_MASS[i];
		f->type[id] = g.type[i];
	}
	free(mem);
	return ok ? 0 : -1;
}

static int first_forces(const tide_case *c, const tide_block_view *all, int nblocks,
                        enum tide_where where, field *f)
{
	tide_sim sim;
	if (tide_sim_setup(&sim, c, all, nblocks, tide_runtime_uses_mpi())) return -1;
	tide_codelet_restrict(&tide_gas_density_cl, where);
	tide_codelet_restrict(&tide_gas_forces_cl, where);
	tide_sim_submit_forces_with(&sim, NULL, NULL, NULL);
	starpu_task_wait_for_all();
	int ret = gather(&sim, f);
	tide_sim_free(&sim);
	tide_codelet_restrict(&tide_gas_density_cl, TIDE_WHERE_ANY);
	tide_codelet_restrict(&tide_gas_forces_cl, TIDE_WHERE_ANY);
	return ret;
}

/* ---- (a) drift ---- */

#define DRIFT_N 10      /* gas lattice DRIFT_N^3, spacing 0.1, in [-0.5, 0.5]^3 */
#define DRIFT_V 2.0     /* twice the sound speed */

static void drift_case(tide_case *c)
{
	test_gas_case(c, "gas_nbody_drift", 0.1, 0.3, 1.5);
	c->gas.eos = TIDE_GAS_ISOTHERMAL;
	c->gas.cs = 1.0;
}

/* The gas cube; with_nbody: and the collisionless particle (id n_gas) at (-0.3, -0.05, -0.05),
 * last; the gas particle at (-0.25, 0.15, 0.15) given the same velocity. */
static tide_block_view drift_particles(int with_nbody, void **mem, uint32_t *moving)
{
	uint32_t cap = DRIFT_N * DRIFT_N * DRIFT_N + 1;
	*mem = tide_block_alloc_host(cap);
	tide_block_view v = tide_block_view_make(*mem, cap, 0);
	double m = 0.001, h = 1.2 * 0.1;
	for (int i = 0; i < DRIFT_N; i++)
		for (int j = 0; j < DRIFT_N; j++)
			for (int k = 0; k < DRIFT_N; k++) {
				double p[3] = {-0.45 + 0.1 * i, -0.45 + 0.1 * j, -0.45 + 0.1 * k}, vel[3] = {0, 0, 0};
				if (i == 2 && j == 6 && k == 6) {
					vel[0] = DRIFT_V;
					*moving = v.count;
				}
				tide_gas_ic_push(&v, p, vel, 1.0, m, 0.0, h);
			}
	if (with_nbody) {
		double p[3] = {-0.3, -0.05, -0.05}, vel[3] = {DRIFT_V, 0, 0};
		push_nbody(&v, p, vel, m);
	}
	return v;
}

static void check_drift(void)
{
	tide_case c;
	drift_case(&c);
	void *mem, *mem0;
	uint32_t moving = 0;
	tide_block_view all = drift_particles(1, &mem, &moving), gas = drift_particles(0, &mem0, &moving);
	uint32_t nb = all.count - 1, n = all.count;
	/* the first step's gas is that of the gas alone */
	field f1, f0;
	field_alloc(&f1, n);
	field_alloc(&f0, gas.count);
	EXPECT(first_forces(&c, &all, 2, TIDE_WHERE_CPU, &f1) == 0, "drift: first forces with the body");
	EXPECT(first_forces(&c, &gas, 2, TIDE_WHERE_CPU, &f0) == 0, "drift: first forces without");
	double dmax = 0;
	for (uint32_t i = 0; i < gas.count; i++) {
		dmax = fmax(dmax, fabs(f1.h[i] - f0.h[i]) + fabs(f1.rho[i] - f0.rho[i]));
		for (int k = 0; k < 3; k++) dmax = fmax(dmax, fabs(f1.a[3 * i + k] - f0.a[3 * i + k]));
	}
	printf("drift: the gas's h, rho, a of the first step with the collisionless particle inside "
	       "it and without: largest difference %.3g\n", dmax);
	EXPECT(dmax == 0, "the collisionless particle changes the gas by %g", dmax);
	EXPECT(f1.type[nb] == TIDE_NBODY && f1.a[3 * nb] == 0 && f1.a[3 * nb + 1] == 0 &&
	       f1.a[3 * nb + 2] == 0, "the collisionless particle's acceleration is (%g %g %g), type %u",
	       f1.a[3 * nb], f1.a[3 * nb + 1], f1.a[3 * nb + 2], f1.type[nb]);
	field_free(&f0);
	/* the run: to t = 0.1 (the body crosses 0.2, two lattice spacings) */
	tide_sim sim;
	EXPECT(tide_sim_setup(&sim, &c, &all, 2, tide_runtime_uses_mpi()) == 0, "drift: setup");
	int bad = 0;
	while (!bad && sim.t < 0.1) bad = tide_sim_step(&sim);
	EXPECT(!bad, "drift: the run failed at t = %g", sim.t);
	field f;
	field_alloc(&f, n);
	EXPECT(gather(&sim, &f) == 0, "drift: gather");
	double t = sim.t, xe = -0.3 + DRIFT_V * t;
	printf("drift: t = %.4f after %ld steps: collisionless v = (%.9g %.9g %.9g), x = %.9g (x0 + v t "
	       "= %.9g); gas particle given v = %g: vx = %.6g\n", t, sim.step, f.v[3 * nb], f.v[3 * nb + 1],
	       f.v[3 * nb + 2], f.x[3 * nb], xe, DRIFT_V, f.v[3 * moving]);
	EXPECT(f.v[3 * nb] == (float)DRIFT_V && f.v[3 * nb + 1] == 0 && f.v[3 * nb + 2] == 0,
	       "the collisionless particle's velocity changed");
	EXPECT(fabs(f.x[3 * nb] - xe) < 1e-6 && f.x[3 * nb + 1] == -0.05 && f.x[3 * nb + 2] == -0.05,
	       "the collisionless particle is at (%.9g %.9g %.9g), expected (%.9g -0.05 -0.05)",
	       f.x[3 * nb], f.x[3 * nb + 1], f.x[3 * nb + 2], xe);
	EXPECT(f.v[3 * moving] < 0.9 * DRIFT_V, "the gas particle kept vx = %g of %g", f.v[3 * moving],
	       DRIFT_V);
	field_free(&f);
	field_free(&f1);
	tide_sim_free(&sim);
	tide_block_free_host(mem, all.cap);
	tide_block_free_host(mem0, gas.cap);
}

/* ---- (b) self-gravity against a direct sum ---- */

/* A gas ball of radius 1 (lattice dp 0.2, mass 0.5) and n collisionless particles uniform in
 * the ball of radius rn (mass 0.5), ids: gas first. */
static tide_block_view two_balls(uint32_t n, double rn, double u, void **mem)
{
	uint32_t cap = 700 + n;
	*mem = tide_block_alloc_host(cap);
	tide_block_view v = tide_block_view_make(*mem, cap, 0);
	double dp = 0.2;
	for (int i = -5; i < 5; i++)
		for (int j = -5; j < 5; j++)
			for (int k = -5; k < 5; k++) {
				double p[3] = {(i + 0.5) * dp, (j + 0.5) * dp, (k + 0.5) * dp}, vel[3] = {0, 0, 0};
				if (p[0] * p[0] + p[1] * p[1] + p[2] * p[2] < 1.0) tide_gas_ic_push(&v, p, vel, 0, 0, u, 0);
			}
	uint32_t ng = v.count;
	for (uint32_t i = 0; i < ng; i++) {
		v.TIDE_GAS_MASS[i] = (float)(0.5 / ng);
		v.rho[i] = (float)(0.5 / ng / (dp * dp * dp));
		v.TIDE_GAS_H[i] = (float)(1.2 * dp);
	}
	for (uint32_t i = 0; i < n; i++) {
		double p[3], r2;
		do {
			for (int k = 0; k < 3; k++) p[k] = rn * (2 * uniform01() - 1);
			r2 = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
		} while (r2 >= rn * rn);
		double vel[3] = {0, 0, 0};
		push_nbody(&v, p, vel, 0.5 / n);
	}
	return v;
}

static void gravity_case(tide_case *c, double h_factor)
{
	test_gas_case(c, "gas_nbody_gravity", 0.2, 0.6, 4.0);
	c->gas.eos = TIDE_GAS_IDEAL;
	c->gas.gamma = 5.0 / 3.0;
	c->gas.u = 0.05;
	test_gas_self_gravity(c, 0.05);
	c->self_gravity.h_factor = h_factor;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void check_gravity(double h_factor)
{
	tide_case c, off;
	gravity_case(&c, h_factor);
	off = c;
	off.self_gravity.on = 0;
	void *mem;
	tide_block_view all = two_balls(400, 1.2, 0.05, &mem);
	uint32_t n = all.count;
	field with, without;
	field_alloc(&with, n);
	field_alloc(&without, n);
	EXPECT(first_forces(&c, &all, 3, TIDE_WHERE_CPU, &with) == 0, "gravity: step with");
	EXPECT(first_forces(&off, &all, 3, TIDE_WHERE_CPU, &without) == 0, "gravity: step without");
	double eps = c.self_gravity.softening;
	double *err[2] = {malloc(sizeof(double) * n), malloc(sizeof(double) * n)};
	uint32_t cnt[2] = {0, 0};
	for (uint32_t i = 0; i < n; i++) {
		int t = with.type[i] == TIDE_NBODY;
		double ei = h_factor > 0 && !t ? h_factor * with.h[i] : eps, ref[3] = {0, 0, 0};
		for (uint32_t j = 0; j < n; j++) {
			if (j == i) continue;
			double ej = h_factor > 0 && with.type[j] != TIDE_NBODY ? h_factor * with.h[j] : eps;
			double d[3], r2 = 0.5 * (ei * ei + ej * ej);
			for (int k = 0; k < 3; k++) {
				d[k] = with.x[3 * j + k] - with.x[3 * i + k];
				r2 += d[k] * d[k];
			}
			double w = with.m[j] / (r2 * sqrt(r2));
			for (int k = 0; k < 3; k++) ref[k] += w * d[k];
		}
		double e = 0, r = 0;
		for (int k = 0; k < 3; k++) {
			double a = with.a[3 * i + k] - without.a[3 * i + k];
			e += (a - ref[k]) * (a - ref[k]);
			r += ref[k] * ref[k];
		}
		err[t][cnt[t]++] = sqrt(e / r);
	}
	const char *name[2] = {"gas", "collisionless"};
	for (int t = 0; t < 2; t++) {
		qsort(err[t], cnt[t], sizeof(double), cmp_double);
		double p99 = err[t][(size_t)(0.99 * (cnt[t] - 1) + 0.5)];
		printf("gravity (%s): %u %s particles, relative error against the direct sum: median "
		       "%.3g, 99th percentile %.3g, max %.3g\n", h_factor > 0 ? "softening h_factor h" :
		       "fixed softening", cnt[t], name[t], err[t][cnt[t] / 2], p99, err[t][cnt[t] - 1]);
		EXPECT(cnt[t] > 0 && p99 <= 1e-3, "%s: 99th percentile %.3g, allowed 1e-3", name[t], p99);
		free(err[t]);
	}
	field_free(&with);
	field_free(&without);
	tide_block_free_host(mem, all.cap);
}

/* ---- (c) energy of a Plummer sphere with gas ---- */

/* n collisionless particles of a Plummer sphere of mass M and scale a (G = 1), in equilibrium:
 * radii from the mass profile, speeds by von Neumann rejection on q^2 (1 - q^2)^(7/2) (Aarseth,
 * Henon & Wielen 1974), cut at 5 a. */
static void plummer(tide_block_view *v, uint32_t n, double M, double a)
{
	for (uint32_t i = 0; i < n; i++) {
		double r;
		do r = a / sqrt(pow(uniform01() * 0.999 + 1e-6, -2.0 / 3.0) - 1.0); while (r > 5 * a);
		double ct = 2 * uniform01() - 1, ph = 2 * M_PI * uniform01(), st = sqrt(1 - ct * ct);
		double p[3] = {r * st * cos(ph), r * st * sin(ph), r * ct};
		double q, g;
		do {
			q = uniform01();
			g = 0.1 * uniform01();
		} while (g > q * q * pow(1 - q * q, 3.5));
		double ve = sqrt(2 * M) * pow(r * r + a * a, -0.25), s = q * ve;
		ct = 2 * uniform01() - 1; ph = 2 * M_PI * uniform01(); st = sqrt(1 - ct * ct);
		double vel[3] = {s * st * cos(ph), s * st * sin(ph), s * ct};
		push_nbody(v, p, vel, M / n);
	}
}

static double energy(tide_sim *sim, double *kin_nb, double *w)
{
	void *mem = NULL;
	tide_block_view g;
	*w = tide_sim_self_gravity_energy(sim);
	if (tide_sim_gather(sim, 0, &mem, &g)) return NAN;
	double e = 0;
	*kin_nb = 0;
	for (uint32_t i = 0; i < g.count; i++) {
		double m = g.TIDE_GAS_MASS[i];
		double k = 0.5 * m * ((double)g.vx[i] * g.vx[i] + (double)g.vy[i] * g.vy[i] + (double)g.vz[i] * g.vz[i]);
		e += k;
		if (g.type[i] == TIDE_NBODY) *kin_nb += k;
		else e += m * g.TIDE_GAS_U[i];
	}
	free(mem);
	return e + *w;
}

static void check_energy(void)
{
	tide_case c;
	gravity_case(&c, 0);
	c.self_gravity.softening = 0.05;
	void *mem;
	/* the gas ball (mass 0.5, radius 1, u = 0.05) and a Plummer sphere (mass 1, a = 0.5) */
	tide_block_view all = two_balls(0, 1, 0.05, &mem);
	void *mem2 = tide_block_alloc_host(all.count + 600);
	tide_block_view v = tide_block_view_make(mem2, all.count + 600, 0);
	for (uint32_t i = 0; i < all.count; i++) {
		double p[3] = {all.x[i], all.y[i], all.z[i]}, z[3] = {0, 0, 0};
		tide_gas_ic_push(&v, p, z, all.rho[i], all.TIDE_GAS_MASS[i], 0.05, all.TIDE_GAS_H[i]);
	}
	uint32_t ngas = v.count;
	plummer(&v, 600, 1.0, 0.5);
	/* t_dyn = sqrt(a^3 / (G M)) of the Plummer sphere with its gas: sqrt(0.125 / 1.5) */
	double tdyn = sqrt(0.125 / 1.5), tend = 3 * tdyn;
	tide_sim sim;
	EXPECT(tide_sim_setup(&sim, &c, &v, 3, tide_runtime_uses_mpi()) == 0, "energy: setup");
	double k0, w0, e0 = energy(&sim, &k0, &w0), worst = 0, kn, w;
	printf("energy: %u gas + 600 collisionless particles, t_dyn %.4f: E0 %.6f (W %.6f, K_nbody "
	       "%.6f, 2K/|W| of the collisionless %.3f)\n", ngas, tdyn, e0, w0, k0, 2 * k0 / fabs(w0));
	int bad = 0;
	double next = 0.25 * tdyn, vir_lo = 1e9, vir_hi = 0;
	while (!bad && sim.t < tend) {
		bad = tide_sim_step(&sim);
		if (sim.t >= next || sim.t >= tend) {
			double e = energy(&sim, &kn, &w);
			worst = fmax(worst, fabs(e - e0));
			vir_lo = fmin(vir_lo, 2 * kn / fabs(w));
			vir_hi = fmax(vir_hi, 2 * kn / fabs(w));
			printf("energy: t = %.4f (%.2f t_dyn, %ld steps): E %.6f, (E - E0)/|W0| %+.2e, W %.5f\n",
			       sim.t, sim.t / tdyn, sim.step, e, (e - e0) / fabs(w0), w);
			while (next <= sim.t) next += 0.25 * tdyn;
		}
	}
	EXPECT(!bad, "energy: the run failed at t = %g", sim.t);
	printf("energy: to %.2f t_dyn, largest |E - E0| / |W0| = %.3g (allowed 1e-2); 2K/|W| of the "
	       "collisionless part (of the total W) %.3f .. %.3f\n", sim.t / tdyn, worst / fabs(w0),
	       vir_lo, vir_hi);
	EXPECT(worst <= 1e-2 * fabs(w0), "energy drifts by %.3g of |W0|", worst / fabs(w0));
	tide_sim_free(&sim);
	tide_block_free_host(mem, all.cap);
	tide_block_free_host(mem2, v.cap);
}

/* ---- --cuda: (a)'s first step on the GPU against the CPU ---- */

static void check_cuda(void)
{
	tide_case c;
	drift_case(&c);
	void *mem;
	uint32_t moving = 0;
	tide_block_view all = drift_particles(1, &mem, &moving);
	field a, b;
	field_alloc(&a, all.count);
	field_alloc(&b, all.count);
	EXPECT(first_forces(&c, &all, 2, TIDE_WHERE_CPU, &a) == 0, "cuda: CPU step");
	EXPECT(first_forces(&c, &all, 2, TIDE_WHERE_CUDA, &b) == 0, "cuda: CUDA step");
	double big = 0, d = 0;
	for (uint32_t i = 0; i < all.count; i++)
		for (int k = 0; k < 3; k++) {
			big = fmax(big, fabs(a.a[3 * i + k]));
			d = fmax(d, fabs(a.a[3 * i + k] - b.a[3 * i + k]));
		}
	uint32_t nb = all.count - 1;
	printf("cuda: accelerations CPU vs CUDA, largest difference %.3g of %.3g; collisionless a = "
	       "(%g %g %g), rho %g\n", d, big, b.a[3 * nb], b.a[3 * nb + 1], b.a[3 * nb + 2], b.rho[nb]);
	EXPECT(d <= 1e-3 * big, "CPU and CUDA differ by %g of %g", d, big);
	EXPECT(b.a[3 * nb] == 0 && b.a[3 * nb + 1] == 0 && b.a[3 * nb + 2] == 0 && b.rho[nb] == 0,
	       "the CUDA step gave the collisionless particle a force or a density");
	field_free(&a);
	field_free(&b);
	tide_block_free_host(mem, all.cap);
}

int main(int argc, char **argv)
{
	int cuda = test_cuda_requested(argc, argv);
	if (starpu_init(NULL) != 0) { fprintf(stderr, "StarPU init failed\n"); return 77; }
	if (cuda && test_cuda_missing("gas_nbody_cuda")) { starpu_shutdown(); return TEST_SKIP; }
	tide_case c;
	drift_case(&c);
	tide_sim_set_aux(&c); /* the gas fields, before any block exists */
	if (cuda) {
		check_cuda();
	} else {
		check_drift();
		check_gravity(0);
		check_gravity(0.5);
		check_energy();
	}
	starpu_shutdown();
	if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
	printf("gas_nbody: all checks passed%s\n", cuda ? " (CUDA = CPU)" : "");
	return 0;
}
