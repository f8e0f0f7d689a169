// SPDX-License-Identifier: LGPL-2.1-or-later
// mdbc_ghost (with cell_sort and halo_pack before it, over blocks made by tide_sim_setup) against
// what English et al. 2021's ghost interpolation must give, evaluated here independently:
//  - first-order consistency: fluid on a perturbed lattice with a density linear in space,
//    rho(x) = r0 + G . x; boundary particles below the fluid (and at an edge, with diagonal
//    normals) must get rho(x_b), the field itself at their own position (the corrected
//    interpolation at the ghost x_b + 2 n_b extrapolated back along the gradient), within 2e-3
//    kg/m^3 (float storage) — a Shepard or uncorrected sum misses it by |G| 2|n|, 0.3 to 3 kg/m^3
//    here; 2-D and 3-D, both kernels, 1 block and 3 blocks (the ghosts of some particles lie in a
//    neighbour's halo);
//  - Shepard fallback: a ghost that sees three collinear fluid particles (singular moment matrix)
//    gets sum V rho W / sum V W, the kernel written here from its formula;
//  - a ghost without fluid, or a particle without a normal, keeps the particle's density;
//  - a whole step (Verlet and symplectic): the boundary particles' density is then their ghost's,
//    their normal (vx1..vz1) is unchanged, their position and velocity too.
// With --cuda (the test mdbc_cuda) the CUDA codelet must give the CPU values within 1e-5
// relative; without a CUDA worker that test exits 77 (SKIP).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/sph_sim.h"
#include "test_cuda_mode.h"

static int failures;
#define EXPECT(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double urand(void)
{
	rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static const double R0 = 1020, G[3] = {20, 10, -30};   /* rho = R0 + G . x */
static double lin(const double *p) { return R0 + G[0] * p[0] + G[1] * p[1] + G[2] * p[2]; }

static void make_case(tide_case *c, int dim, int kernel, int integrator)
{
	memset(c, 0, sizeof *c);
	snprintf(c->name, sizeof c->name, "mdbc");
	snprintf(c->path, sizeof c->path, "(test)");
	c->dim = dim;
	c->dp = 0.01;
	c->coefh = dim == 2 ? 1.2 : 1.0;
	c->kernel = kernel;
	c->rho0 = 1000;
	c->gamma = 7;
	c->c0 = 30;
	c->visco = 0.1;
	c->gravity[2] = -9.81;
	c->cfl = 0.2;
	c->integrator = integrator;
	c->verlet_steps = 40;
	c->boundary = TIDE_BOUNDARY_MDBC;
	/* elongated along x: slabs along x */
	c->domain.lo[2] = -0.04;
	c->domain.hi[0] = dim == 2 ? 0.6 : 0.24;
	c->domain.hi[1] = dim == 2 ? 0.0 : 0.1;
	c->domain.hi[2] = 0.1;
}

static void push(tide_block_view *v, const double *p, float rho, int bound, const double *nb)
{
	uint32_t i = v->count++;
	v->x[i] = p[0]; v->y[i] = p[1]; v->z[i] = p[2];
	v->vx[i] = v->vy[i] = v->vz[i] = 0.f;
	v->rho[i] = v->rho1[i] = rho;
	v->type[i] = bound ? TIDE_BOUND : TIDE_FLUID;
	v->vx1[i] = bound ? (float)nb[0] : 0.f;
	v->vy1[i] = bound ? (float)nb[1] : 0.f;
	v->vz1[i] = bound ? (float)nb[2] : 0.f;
	v->ax[i] = v->ay[i] = v->az[i] = v->drho[i] = 0.f;
	v->key[i] = 0;
	v->id[i] = i;
}

/* Fluid on a perturbed lattice over z in [0, 0.1) with the linear density, boundary particles in
 * 3 layers below z = 0 with normals (0, 0, depth): their ghosts lie in the fluid.  Every 5th
 * bottom particle near x = 0 gets a diagonal normal (+x too), as an edge particle would. */
static void make_linear(const tide_case *c, tide_block_view *v)
{
	double dp = c->dp;
	int nx = (int)floor(c->domain.hi[0] / dp + 1e-9), ny = c->dim == 3 ? (int)floor(c->domain.hi[1] / dp + 1e-9) : 1;
	v->count = 0;
	for (int i = 0; i < nx; i++)
		for (int j = 0; j < ny; j++) {
			for (int k = 0; k < 10; k++) {
				double p[3] = {(i + 0.5) * dp, c->dim == 3 ? (j + 0.5) * dp : 0, (k + 0.5) * dp};
				for (int d = 0; d < 3; d++)
					if (!(c->dim == 2 && d == 1)) p[d] += 0.3 * dp * (urand() - 0.5);
				push(v, p, (float)lin(p), 0, NULL);
			}
			for (int l = 0; l < 3; l++) {
				double p[3] = {(i + 0.5) * dp, c->dim == 3 ? (j + 0.5) * dp : 0, -(l + 0.5) * dp};
				double nb[3] = {0, 0, (l + 0.5) * dp};
				if (i % 5 == 0 && (c->dim == 2 || (j > 0 && j < ny - 1))) nb[0] = 0.5 * dp;
				push(v, p, 1000.f, 1, nb);
			}
		}
}

typedef struct result {
	float *rho, *rho1, *n[3];   /* by id */
	double *pos[3];
	float *vel;                 /* |v| by id */
	uint32_t n_all;
} result;

static void result_alloc(result *r, uint32_t n)
{
	r->rho = calloc(n, sizeof(float)); r->rho1 = calloc(n, sizeof(float)); r->vel = calloc(n, sizeof(float));
	for (int d = 0; d < 3; d++) { r->n[d] = calloc(n, sizeof(float)); r->pos[d] = calloc(n, sizeof(double)); }
	r->n_all = n;
}
static void result_free(result *r)
{
	free(r->rho); free(r->rho1); free(r->vel);
	for (int d = 0; d < 3; d++) { free(r->n[d]); free(r->pos[d]); }
}

/* The ghost pass alone (steps = 0: the first part of a step, tide_sim_submit_forces_with), or
 * `steps` whole steps; where: the workers of mdbc_ghost. */
static int run(const tide_case *c, const tide_block_view *all, int nblocks, int steps,
               enum tide_where where, result *res)
{
	tide_sim sim;
	if (tide_sim_setup(&sim, c, all, nblocks)) return -1;
	if (sim.nblocks != nblocks) {
		fprintf(stderr, "asked for %d blocks, got %d\n", nblocks, sim.nblocks);
		tide_sim_free(&sim);
		return -1;
	}
	tide_codelet_restrict(&tide_mdbc_ghost_cl, where);
	if (steps == 0) {
		tide_sim_submit_forces_with(&sim, NULL, NULL, NULL);
		starpu_task_wait_for_all();
	}
	for (int s = 0; s < steps; s++)
		if (tide_sim_step(&sim)) { tide_sim_free(&sim); return -1; }
	void *mem = NULL;
	tide_block_view g;
	if (tide_sim_gather(&sim, 0, &mem, &g)) return -1;
	int bad = g.count != all->count;
	for (uint32_t i = 0; i < g.count && !bad; i++) {
		uint32_t id = g.id[i];
		if (id >= res->n_all) { bad = 1; break; }
		res->rho[id] = g.rho[i]; res->rho1[id] = g.rho1[i];
		res->n[0][id] = g.vx1[i]; res->n[1][id] = g.vy1[i]; res->n[2][id] = g.vz1[i];
		res->pos[0][id] = g.x[i]; res->pos[1][id] = g.y[i]; res->pos[2][id] = g.z[i];
		res->vel[id] = sqrtf(g.vx[i] * g.vx[i] + g.vy[i] * g.vy[i] + g.vz[i] * g.vz[i]);
	}
	free(mem);
	tide_sim_free(&sim);
	tide_codelet_restrict(&tide_mdbc_ghost_cl, TIDE_WHERE_ANY);
	if (bad) { fprintf(stderr, "gathered %u particles, expected %u\n", g.count, all->count); return -1; }
	return 0;
}

static void linear(int dim, int kernel, int have_cuda)
{
	tide_case c;
	make_case(&c, dim, kernel, 0);
	uint32_t cap = 40000;
	void *mem = malloc((size_t)cap * TIDE_BLOCK_BPP);
	tide_block_view v = tide_block_view_make(mem, cap, 0);
	make_linear(&c, &v);
	const char *kn = kernel ? "wendland" : "cubic";
	result r1, r3;
	result_alloc(&r1, v.count);
	result_alloc(&r3, v.count);
	int ok = run(&c, &v, 1, 0, TIDE_WHERE_CPU, &r1) == 0 && run(&c, &v, 3, 0, TIDE_WHERE_CPU, &r3) == 0;
	EXPECT(ok, "linear %dD %s: running the codelets failed", dim, kn);
	double worst = 0, worst13 = 0, shep = 0;
	uint32_t nb = 0;
	for (uint32_t i = 0; ok && i < v.count; i++) {
		if (v.type[i] != TIDE_BOUND) continue;
		nb++;
		double p[3] = {v.x[i], v.y[i], v.z[i]}, e = fabs(r1.rho1[i] - lin(p));
		double g2n = 2 * fabs(G[0] * v.vx1[i] + G[1] * v.vy1[i] + G[2] * v.vz1[i]);
		if (g2n > shep) shep = g2n;
		if (e > worst) worst = e;
		double d13 = fabs(r1.rho1[i] - r3.rho1[i]);
		if (d13 > worst13) worst13 = d13;
		/* the step's density itself stays until integrate */
		EXPECT(r1.rho[i] == v.rho[i], "linear %dD %s: mdbc_ghost changed rho", dim, kn);
	}
	EXPECT(worst < 2e-3, "linear %dD %s: boundary density off the linear field by %.3g kg/m^3 "
	       "(limit 2e-3)", dim, kn, worst);
	EXPECT(worst13 < 2e-3, "linear %dD %s: 1 and 3 blocks differ by %.3g kg/m^3", dim, kn, worst13);
	printf("linear %dD %-8s: %u boundary particles, |rho_b - rho(x_b)| <= %.2e (1 block), "
	       "1 vs 3 blocks %.2e; uncorrected would miss by up to %.2f kg/m^3\n", dim, kn, nb, worst,
	       worst13, shep);
	if (have_cuda && ok) {
		result rg;
		result_alloc(&rg, v.count);
		for (int nbk = 1; nbk <= 3; nbk += 2) {
			int okg = run(&c, &v, nbk, 0, TIDE_WHERE_CUDA, &rg) == 0;
			EXPECT(okg, "linear %dD %s: the CUDA run failed", dim, kn);
			double d = 0;
			const result *ref = nbk == 1 ? &r1 : &r3;
			for (uint32_t i = 0; okg && i < v.count; i++)
				if (v.type[i] == TIDE_BOUND)
					d = fmax(d, fabs(rg.rho1[i] - ref->rho1[i]) / ref->rho1[i]);
			EXPECT(d < 1e-5, "linear %dD %s %d blocks: CUDA differs from the CPU by %.3g "
			       "(relative, limit 1e-5)", dim, kn, nbk, d);
			printf("    CUDA vs CPU, %d block(s): %.1e\n", nbk, d);
		}
		result_free(&rg);
	}
	result_free(&r1);
	result_free(&r3);
	free(mem);
}

/* W(r) from its formula (case-format.md's kernels), for the Shepard reference. */
static double ref_w(int kernel, int dim, double h, double r)
{
	double q = r / h;
	if (q >= 2) return 0;
	if (kernel == 0) {
		double a = dim == 2 ? 10.0 / (7.0 * M_PI * h * h) : 1.0 / (M_PI * h * h * h);
		return a * (q < 1 ? 1 - 1.5 * q * q + 0.75 * q * q * q : 0.25 * pow(2 - q, 3));
	}
	double a = dim == 2 ? 7.0 / (4.0 * M_PI * h * h) : 21.0 / (16.0 * M_PI * h * h * h);
	return a * pow(1 - 0.5 * q, 4) * (2 * q + 1);
}

/* Ill-conditioned and empty ghosts, and a particle without a normal (2-D). */
static void fallbacks(int kernel)
{
	tide_case c;
	make_case(&c, 2, kernel, 0);
	uint32_t cap = 64;
	void *mem = malloc((size_t)cap * TIDE_BLOCK_BPP);
	tide_block_view v = tide_block_view_make(mem, cap, 0);
	double dp = c.dp, h = c.coefh * dp;
	/* three fluid particles on a vertical line above x = 0.1: their moment matrix is singular */
	double f[3][3] = {{0.1, 0, 0.5 * dp}, {0.1, 0, 1.5 * dp}, {0.1, 0, 2.5 * dp}};
	float fr[3] = {1003.f, 1007.f, 1011.f};
	for (int k = 0; k < 3; k++) push(&v, f[k], fr[k], 0, NULL);
	double b0[3] = {0.1 + 0.3 * dp, 0, -0.5 * dp}, n0[3] = {0, 0, 0.5 * dp};
	push(&v, b0, 1001.f, 1, n0);                           /* id 3: Shepard */
	double b1[3] = {0.4, 0, -0.5 * dp};
	push(&v, b1, 1002.5f, 1, n0);                          /* id 4: no fluid near its ghost */
	double b2[3] = {0.1, 0, -0.5 * dp}, zero[3] = {0, 0, 0};
	push(&v, b2, 1004.5f, 1, zero);                        /* id 5: no normal */
	result r;
	result_alloc(&r, v.count);
	int ok = run(&c, &v, 1, 0, TIDE_WHERE_CPU, &r) == 0;
	EXPECT(ok, "fallbacks: running the codelet failed");
	if (ok) {
		double g[3] = {b0[0] + 2 * n0[0], 0, b0[2] + 2 * n0[2]}, sw = 0, srw = 0;
		for (int k = 0; k < 3; k++) {
			double w = ref_w(kernel, 2, h, hypot(g[0] - f[k][0], g[2] - f[k][2])) / fr[k];
			sw += w; srw += fr[k] * w;
		}
		double shepard = srw / sw;
		EXPECT(sw > 0 && fabs(r.rho1[3] - shepard) < 2e-3, "fallbacks %s: collinear ghost gave "
		       "%.6f, Shepard %.6f", kernel ? "wendland" : "cubic", r.rho1[3], shepard);
		EXPECT(r.rho1[4] == 1002.5f, "fallbacks: a ghost without fluid gave %.6f, not the "
		       "particle's 1002.5", r.rho1[4]);
		EXPECT(r.rho1[5] == 1004.5f, "fallbacks: a particle without normal gave %.6f, not its "
		       "1004.5", r.rho1[5]);
		printf("fallbacks %-8s: Shepard %.4f (reference %.4f), no fluid %.2f, no normal %.2f\n",
		       kernel ? "wendland" : "cubic", r.rho1[3], shepard, r.rho1[4], r.rho1[5]);
	}
	result_free(&r);
	free(mem);
}

/* Whole steps: boundary density = ghost density, normals, positions and velocities untouched. */
static void steps(int dim, int integrator)
{
	tide_case c;
	make_case(&c, dim, 0, integrator);
	uint32_t cap = 40000;
	void *mem = malloc((size_t)cap * TIDE_BLOCK_BPP);
	tide_block_view v = tide_block_view_make(mem, cap, 0);
	make_linear(&c, &v);
	result r;
	result_alloc(&r, v.count);
	int ok = run(&c, &v, 3, 1, TIDE_WHERE_ANY, &r) == 0;
	EXPECT(ok, "steps %dD %s: the step failed", dim, integrator ? "symplectic" : "verlet");
	double worst = 0;
	int moved = 0;
	for (uint32_t i = 0; ok && i < v.count; i++) {
		if (v.type[i] != TIDE_BOUND) continue;
		double p[3] = {v.x[i], v.y[i], v.z[i]};
		worst = fmax(worst, fabs(r.rho[i] - lin(p)));
		moved += r.n[0][i] != v.vx1[i] || r.n[1][i] != v.vy1[i] || r.n[2][i] != v.vz1[i] ||
		         r.pos[0][i] != v.x[i] || r.pos[1][i] != v.y[i] || r.pos[2][i] != v.z[i] ||
		         r.vel[i] != 0.f;
	}
	EXPECT(worst < 2e-3, "steps %dD %s: boundary density after the step off its ghost's by %.3g",
	       dim, integrator ? "symplectic" : "verlet", worst);
	EXPECT(moved == 0, "steps %dD %s: %d boundary particles changed normal, position or velocity",
	       dim, integrator ? "symplectic" : "verlet", moved);
	printf("step %dD %-10s: boundary rho = ghost rho within %.2e, normals/positions kept\n", dim,
	       integrator ? "symplectic" : "verlet", worst);
	result_free(&r);
	free(mem);
}

int main(int argc, char **argv)
{
	int have_cuda = test_cuda_requested(argc, argv);
	if (starpu_init(NULL) != 0) { fprintf(stderr, "StarPU init failed\n"); return 77; }
	if (have_cuda && test_cuda_missing("mdbc_cuda")) { starpu_shutdown(); return TEST_SKIP; }
	for (int dim = 2; dim <= 3; dim++)
		for (int kernel = 0; kernel < 2; kernel++) linear(dim, kernel, have_cuda);
	for (int kernel = 0; kernel < 2 && !have_cuda; kernel++) fallbacks(kernel);
	for (int dim = 2; dim <= 3 && !have_cuda; dim++)
		for (int integ = 0; integ < 2; integ++) steps(dim, integ);
	starpu_shutdown();
	if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
	printf("mdbc: all checks passed%s\n", have_cuda ? " (CUDA = CPU)" : "");
	return 0;
}
