// SPDX-License-Identifier: LGPL-2.1-or-later
// The gas scheme's passes (physics.scheme: gas; include/tide/gas_math.h): gas_density and
// gas_forces over blocks made by tide_sim_setup (cell_sort and the two halo packings around
// them: the first part of a gas step, tide_sim_submit_forces_with).
//  - the equations of state: c^2 = dp/drho (ideal along an adiabat, isothermal, barotropic on
//    both sides of rho_crit), the barotropic pressure continuous at rho_crit;
//  - lattice: a cubic lattice of spacing dp at rest with u = 1 (ideal gas): every particle
//    farther than 2 h_max from the lattice's faces has rho within 0.5 % of rho0, rho h^3 =
//    m eta^3 within 3 h_tolerance (the iteration converged), 1/Omega within 5 % of 1, and no
//    acceleration beyond 1e-3 of the pressure scale p / (rho h) (a uniform state is in
//    equilibrium); a particle at a face has a larger h than the interior (fewer neighbours).
//  - a perturbed lattice with a velocity field and a varying internal energy: the same
//    particles on 1 block and on 3 blocks give the same h, rho, 1/Omega, switch, acceleration
//    and du/dt within 1e-5 of the largest magnitude (the halos carry h, u, 1/Omega and the
//    switch: without them the particles at the block faces would differ); total momentum
//    change sum m a within 1e-5 of sum m |a| (pairwise antisymmetric forces) and the energy
//    rate sum m (v . a + du/dt) within 1e-4 of sum m |du/dt| (the du/dt terms are the work of
//    the forces).
// With --cuda (the test gas_cuda) the CUDA gas_density and gas_forces must give the CPU values
// within 1e-3 of the largest magnitude on the perturbed configuration (1 and 3 blocks); without
// a CUDA worker it exits 77 (SKIP).
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
#include "test_gas_case.h"
#include "test_cuda_mode.h"

static int failures;
#define EXPECT(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double urand(void)
{
	rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

#define NX 24
#define NY 10
#define NZ 10
static const double DP = 0.1;

static void make_case(tide_case *c)
{
	test_gas_case(c, "gas", DP, 2.0 * DP, 1);
	c->gas.gamma = 5.0 / 3.0;
	for (int d = 0; d < 3; d++) c->domain.lo[d] = -DP;
	c->domain.hi[0] = (NX + 1) * DP; /* elongated along x: slabs along x */
	c->domain.hi[1] = (NY + 1) * DP;
	c->domain.hi[2] = (NZ + 1) * DP;
}

/* The lattice (perturbed: positions moved by up to 0.2 dp, velocities and u varying). */
static tide_block_view lattice(int perturbed, void **mem)
{
	uint32_t cap = NX * NY * NZ;
	*mem = tide_block_alloc_host(cap);
	tide_block_view v = tide_block_view_make(*mem, cap, 0);
	for (int i = 0; i < NX; i++)
		for (int j = 0; j < NY; j++)
			for (int k = 0; k < NZ; k++) {
				double p[3] = {(i + 0.5) * DP, (j + 0.5) * DP, (k + 0.5) * DP}, vel[3] = {0, 0, 0};
				double u = 1;
				if (perturbed) {
					for (int d = 0; d < 3; d++) p[d] += 0.2 * DP * (urand() - 0.5);
					vel[0] = 0.3 * sin(p[1] * 3) + 0.1 * (urand() - 0.5);
					vel[1] = -0.2 * p[0] + 0.1 * (urand() - 0.5);
					vel[2] = 0.1 * (urand() - 0.5);
					u = 1 + 0.5 * sin(2 * p[0]) + 0.1 * urand();
				}
				tide_gas_ic_push(&v, p, vel, 1.0, u, 1.2 * DP);
			}
	return v;
}

typedef struct result {
	float *q[8]; /* h, rho, fgrad, balsara, ax, ay, az, du */
	uint32_t n;
} result;
static const char *qname[8] = {"h", "rho", "1/Omega", "balsara", "ax", "ay", "az", "du/dt"};

static int run(const tide_case *c, const tide_block_view *all, int nblocks, enum tide_where where,
               result *res)
{
	tide_sim sim;
	if (tide_sim_setup(&sim, c, all, nblocks, tide_runtime_uses_mpi())) return -1;
	if (sim.nblocks != nblocks) {
		fprintf(stderr, "gas: asked for %d blocks, got %d\n", nblocks, sim.nblocks);
		tide_sim_free(&sim);
		return -1;
	}
	tide_codelet_restrict(&tide_gas_density_cl, where);
	tide_codelet_restrict(&tide_gas_forces_cl, where);
	tide_sim_submit_forces_with(&sim, NULL, NULL, NULL);
	starpu_task_wait_for_all();
	void *mem = NULL;
	tide_block_view g;
	int bad = tide_sim_gather(&sim, 0, &mem, &g) != 0 || g.count != all->count;
	res->n = all->count;
	for (int k = 0; k < 8; k++) res->q[k] = calloc(res->n, sizeof(float));
	for (uint32_t i = 0; !bad && i < g.count; i++) {
		uint32_t id = g.id[i];
		if (id >= res->n) { bad = 1; break; }
		const float *src[8] = {g.TIDE_GAS_H, g.rho, g.TIDE_GAS_FGRAD, g.TIDE_GAS_BALSARA, g.ax,
		                       g.ay, g.az, g.TIDE_GAS_DUDT};
		for (int k = 0; k < 8; k++) res->q[k][id] = src[k][i];
	}
	free(mem);
	tide_sim_free(&sim);
	tide_codelet_restrict(&tide_gas_density_cl, TIDE_WHERE_ANY);
	tide_codelet_restrict(&tide_gas_forces_cl, TIDE_WHERE_ANY);
	return bad ? -1 : 0;
}

static void result_free(result *r)
{
	for (int k = 0; k < 8; k++) free(r->q[k]);
}

/* a and b agree within tol of the largest magnitude of each quantity */
static void compare(const char *what, const result *a, const result *b, double tol)
{
	for (int k = 0; k < 8; k++) {
		double big = 0, worst = 0;
		for (uint32_t i = 0; i < a->n; i++) big = fmax(big, fabs(a->q[k][i]));
		for (uint32_t i = 0; i < a->n; i++) worst = fmax(worst, fabs(a->q[k][i] - b->q[k][i]));
		printf("  %s %-8s max |diff| %.3g of max %.3g\n", what, qname[k], worst, big);
		EXPECT(worst <= tol * big + 1e-30, "%s: %s differs by %g (max %g)", what, qname[k], worst, big);
	}
}

static void uniform(const tide_case *c)
{
	void *mem;
	tide_block_view v = lattice(0, &mem);
	result r;
	EXPECT(run(c, &v, 1, TIDE_WHERE_ANY, &r) == 0, "run");
	double m = DP * DP * DP, eta = c->gas.eta, hmax = c->gas.h_max;
	double worst_rho = 0, worst_rh = 0, worst_f = 0, worst_a = 0, h_in = 0, h_face = 0;
	for (uint32_t i = 0; i < v.count; i++) {
		double p[3] = {v.x[i], v.y[i], v.z[i]}, hi[3] = {NX * DP, NY * DP, NZ * DP};
		int inside = 1;
		for (int d = 0; d < 3; d++) inside &= p[d] > 2 * hmax && p[d] < hi[d] - 2 * hmax;
		if (p[0] < DP && p[1] > 4 * DP && p[1] < 6 * DP && p[2] > 4 * DP && p[2] < 6 * DP)
			h_face = r.q[0][i];
		if (!inside) continue;
		double h = r.q[0][i], rho = r.q[1][i];
		h_in = h;
		worst_rho = fmax(worst_rho, fabs(rho - 1));
		worst_rh = fmax(worst_rh, fabs(rho * h * h * h / (m * eta * eta * eta) - 1));
		worst_f = fmax(worst_f, fabs(r.q[2][i] - 1));
		double a = sqrt(r.q[4][i] * r.q[4][i] + r.q[5][i] * r.q[5][i] + r.q[6][i] * r.q[6][i]);
		worst_a = fmax(worst_a, a / ((5.0 / 3.0 - 1) * 1.0 / h)); /* p / (rho h), p = 2/3 */
	}
	printf("lattice: interior |rho - rho0| %.2e, |rho h^3 / (m eta^3) - 1| %.2e, |1/Omega - 1| "
	       "%.2e, |a| / (p / rho h) %.2e; h inside %.4f, at a face %.4f\n", worst_rho, worst_rh,
	       worst_f, worst_a, h_in, h_face);
	EXPECT(worst_rho < 5e-3, "interior density off by %g", worst_rho);
	EXPECT(worst_rh < 3 * c->gas.h_tolerance, "rho h^3 off by %g", worst_rh);
	EXPECT(worst_f < 0.05, "1/Omega off by %g", worst_f);
	EXPECT(worst_a < 1e-3, "uniform state accelerates: %g", worst_a);
	EXPECT(h_face > 1.05 * h_in, "face h %g not above the interior's %g", h_face, h_in);
	result_free(&r);
	tide_block_free_host(mem, v.cap);
}

/* The equations of state (gas_math.h): c^2 = dp/drho (numerically, at constant entropy for
 * the ideal gas: p ~ rho^gamma), the barotropic one continuous at rho_crit and isothermal below. */
static void eos(void)
{
	tide_gas_params G;
	memset(&G, 0, sizeof G);
	G.gamma = 5.f / 3.f;
	G.cs2 = 4.f;
	G.rho_crit = 10.f;
	double worst = 0;
	for (int e = TIDE_GAS_IDEAL; e <= TIDE_GAS_BAROTROPIC; e++) {
		G.eos = e;
		const double rhos[4] = {0.5, 3, 9, 40};
		for (int k = 0; k < 4; k++) {
			double rho = rhos[k], d = 1e-2 * rho, u = 2.0;
			/* along an adiabat u ~ rho^(gamma - 1) (ideal), any u for the others */
			double um = e ? u : u * pow((rho - d) / rho, G.gamma - 1);
			double up = e ? u : u * pow((rho + d) / rho, G.gamma - 1);
			double dpdrho = (tide_gas_pressure(&G, (float)(rho + d), (float)up) -
			                 tide_gas_pressure(&G, (float)(rho - d), (float)um)) / (2 * d);
			double c = tide_gas_sound(&G, (float)rho, (float)u);
			worst = fmax(worst, fabs(c * c / dpdrho - 1));
		}
	}
	G.eos = TIDE_GAS_BAROTROPIC;
	double below = tide_gas_pressure(&G, G.rho_crit * (1 - 1e-6f), 0), above = tide_gas_pressure(&G, G.rho_crit * (1 + 1e-6f), 0);
	double iso = tide_gas_pressure(&G, 2.f, 0);
	printf("eos: |c^2 / (dp/drho) - 1| <= %.2e; barotropic p at rho_crit %.6g | %.6g, p(2) %.6g (cs^2 rho = 8)\n",
	       worst, below, above, iso);
	EXPECT(worst < 1e-3, "c^2 differs from dp/drho by %g", worst);
	EXPECT(fabs(above / below - 1) < 1e-4, "barotropic p jumps at rho_crit: %g | %g", below, above);
	EXPECT(fabs(iso - 8) < 1e-5, "barotropic p below rho_crit %g, expected 8", iso);
}

static void conservation(const tide_block_view *v, const result *r)
{
	double m = DP * DP * DP, P[3] = {0, 0, 0}, Pabs = 0, E = 0, Eabs = 0;
	for (uint32_t i = 0; i < v->count; i++) {
		uint32_t id = v->id[i];
		double a[3] = {r->q[4][id], r->q[5][id], r->q[6][id]}, vel[3] = {v->vx[i], v->vy[i], v->vz[i]};
		for (int d = 0; d < 3; d++) {
			P[d] += m * a[d];
			Pabs += m * fabs(a[d]);
			E += m * vel[d] * a[d];
		}
		E += m * r->q[7][id];
		Eabs += m * fabs(r->q[7][id]);
	}
	double Pn = sqrt(P[0] * P[0] + P[1] * P[1] + P[2] * P[2]);
	printf("conservation: |sum m a| %.3g of sum m |a| %.3g; sum m (v.a + du/dt) %.3g of sum m |du/dt| %.3g\n",
	       Pn, Pabs, E, Eabs);
	EXPECT(Pn < 1e-5 * Pabs, "momentum not conserved: %g of %g", Pn, Pabs);
	EXPECT(fabs(E) < 1e-4 * Eabs, "energy not conserved: %g of %g", E, Eabs);
}

int main(int argc, char **argv)
{
	int cuda = test_cuda_requested(argc, argv);
	if (starpu_init(NULL) != 0) { fprintf(stderr, "StarPU init failed\n"); return 77; }
	if (cuda && test_cuda_missing("gas_cuda")) { starpu_shutdown(); return TEST_SKIP; }
	tide_case c;
	make_case(&c);
	tide_sim_set_aux(&c); /* the gas fields, before any block exists */
	if (!cuda) {
		eos();
		uniform(&c);
	}
	void *mem;
	tide_block_view v = lattice(1, &mem);
	result one, three;
	EXPECT(run(&c, &v, 1, TIDE_WHERE_CPU, &one) == 0, "run on 1 block");
	EXPECT(run(&c, &v, 3, TIDE_WHERE_CPU, &three) == 0, "run on 3 blocks");
	if (!cuda) {
		compare("1 vs 3 blocks", &one, &three, 1e-5);
		conservation(&v, &one);
	} else {
		result g1, g3;
		EXPECT(run(&c, &v, 1, TIDE_WHERE_CUDA, &g1) == 0, "CUDA run on 1 block");
		EXPECT(run(&c, &v, 3, TIDE_WHERE_CUDA, &g3) == 0, "CUDA run on 3 blocks");
		/* the h iteration stops within h_tolerance (1e-4) of rho h^3 = m eta^3: in float, with
		 * the GPU's fast division in the kernel, the two may stop an iteration apart */
		compare("CPU vs CUDA, 1 block", &one, &g1, 1e-3);
		compare("CPU vs CUDA, 3 blocks", &three, &g3, 1e-3);
		result_free(&g1);
		result_free(&g3);
	}
	result_free(&one);
	result_free(&three);
	tide_block_free_host(mem, v.cap);
	starpu_shutdown();
	if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
	printf("gas: all checks passed%s\n", cuda ? " (CUDA = CPU)" : "");
	return 0;
}
