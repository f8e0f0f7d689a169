// SPDX-License-Identifier: LGPL-2.1-or-later
// mdbc_ghost (with cell_sort and halo_pack before it, over blocks made by tide_sim_setup) against
// what English et al. 2021's ghost interpolation must give, evaluated here independently:
//  - first-order consistency: fluid on a perturbed lattice with a density linear in space,
//    rho(x) = r0 + G . x; boundary particles below the fluid (and at an edge, with diagonal
//    normals) must get rho(x_b), the field itself at their own position (the corrected
//    interpolation at the ghost x_b + 2 n_b extrapolated back along the gradient), within 2e-3
//    kg/m^3 (float storage) — a Shepard or uncorrected sum misses it by |G| 2|n|, 0.3 to 3 kg/m^3
//    here; 2-D and 3-D, both kernels, 1 block and 3 blocks (the ghosts of some particles lie in a
//    neighbour's halo); sph_forces after it gives the same accelerations on 1 and 3 blocks
//    within 1e-5 (the halos are packed again after the ghost pass);
//  - Shepard fallback: a ghost that sees three collinear fluid particles (singular moment matrix)
//    gets sum V rho W / sum V W, the kernel written here from its formula;
//  - a ghost without fluid, or a particle without a normal, keeps the particle's density;
//  - physics.mdbc_slip: with a fluid velocity linear in space, noslip gives v_b = -v(x_g) and
//    freeslip v_b = v_g - 2 (v_g . n^) n^ within 1e-5 m/s, vel0 leaves 0 (1 and 3 blocks), and
//    sph_forces after it gives the same accelerations on 1 and 3 blocks (halos carry v_b);
//  - moving and floating bodies (bodies(), below): the mirror is about the body's velocity (a
//    fluid moving with the body leaves v_b = the body's), a floating body keeps its own;
//  - the continuity equation under noslip and freeslip (continuity(), below) reads the walls'
//    own velocity, not the mirror: the fluid's density rates equal those of vel0 (where the
//    walls show their own velocity) for fixed walls and for a prescribed moving body, while
//    the accelerations differ (the viscosity reads the mirror); CUDA = CPU with --cuda;
//  - a whole step (Verlet and symplectic): the boundary particles' density is then their ghost's,
//    their normal (vx1..vz1) is unchanged, their position and velocity too.
// With --cuda (the test mdbc_cuda) the CUDA codelet must give the CPU values within 1e-5
// relative (velocities within 1e-5 m/s); without a CUDA worker that test exits 77 (SKIP).
// Also the normals of tank walls and box obstacles against the geometry (normals(), below).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/case.h"
#include "tide/sph_sim.h"
#include "case_load.h"
#include "host_blocks.h"
#include "particle_set.h"
#include "runtime.h"
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
	/* 2h = 2.6 dp: the third wall layer (2.5 dp inside) still meets the fluid and takes a
	 * ghost (tide_mdbc_has_ghost: |n| < 2h) */
	c->coefh = 1.3;
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
	float *rho, *n[3];          /* by id */
	double *pos[3];
	float *vel;                 /* |v| by id */
	float *v[3];                /* velocity by id */
	float *acc[3];              /* acceleration by id (the first part of a step: sph_forces') */
	float *drho;                /* density rate by id (idem) */
	uint32_t n_all;
} result;

static void result_alloc(result *r, uint32_t n)
{
	r->rho = calloc(n, sizeof(float)); r->vel = calloc(n, sizeof(float));
	r->drho = calloc(n, sizeof(float));
	for (int d = 0; d < 3; d++) {
		r->v[d] = calloc(n, sizeof(float));
		r->n[d] = calloc(n, sizeof(float)); r->pos[d] = calloc(n, sizeof(double));
		r->acc[d] = calloc(n, sizeof(float));
	}
	r->n_all = n;
}
static void result_free(result *r)
{
	free(r->rho); free(r->vel); free(r->drho);
	for (int d = 0; d < 3; d++) { free(r->n[d]); free(r->pos[d]); free(r->acc[d]); free(r->v[d]); }
}

/* The ghost pass alone (steps = 0: the first part of a step, tide_sim_submit_forces_with), or
 * `steps` whole steps; where: the workers of mdbc_ghost. */
static int run(const tide_case *c, const tide_block_view *all, int nblocks, int steps,
               enum tide_where where, result *res)
{
	tide_sim sim;
	if (tide_sim_setup(&sim, c, all, nblocks, tide_runtime_uses_mpi())) return -1;
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
		res->rho[id] = g.rho[i]; res->rho[id] = g.rho[i];
		res->n[0][id] = g.vx1[i]; res->n[1][id] = g.vy1[i]; res->n[2][id] = g.vz1[i];
		res->pos[0][id] = g.x[i]; res->pos[1][id] = g.y[i]; res->pos[2][id] = g.z[i];
		res->acc[0][id] = g.ax[i]; res->acc[1][id] = g.ay[i]; res->acc[2][id] = g.az[i];
		res->drho[id] = g.drho[i];
		res->v[0][id] = g.vx[i]; res->v[1][id] = g.vy[i]; res->v[2][id] = g.vz[i];
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
	int fluid_changed = 0;
	for (uint32_t i = 0; ok && i < v.count; i++) {
		if (v.type[i] != TIDE_BOUND) {
			fluid_changed += r1.rho[i] != v.rho[i] || r3.rho[i] != v.rho[i];
			continue;
		}
		nb++;
		double p[3] = {v.x[i], v.y[i], v.z[i]}, e = fabs(r1.rho[i] - lin(p));
		double g2n = 2 * fabs(G[0] * v.vx1[i] + G[1] * v.vy1[i] + G[2] * v.vz1[i]);
		if (g2n > shep) shep = g2n;
		if (e > worst) worst = e;
		double d13 = fabs(r1.rho[i] - r3.rho[i]);
		if (d13 > worst13) worst13 = d13;
	}
	/* the forces after the ghost pass: 1 block = 3 blocks, so the halos carried the new
	 * boundary densities (stale ones, rho0 instead of ~1020, would change the fluid's
	 * acceleration near the floor at the block faces by far more) */
	double amax = 0, da = 0;
	for (uint32_t i = 0; ok && i < v.count; i++)
		for (int d = 0; d < 3; d++) {
			amax = fmax(amax, fabs(r1.acc[d][i]));
			da = fmax(da, fabs(r1.acc[d][i] - r3.acc[d][i]));
		}
	EXPECT(da <= 1e-5 * amax, "linear %dD %s: accelerations of 1 and 3 blocks differ by %.3g of "
	       "the largest %.3g (limit 1e-5): the halos lack the new boundary densities", dim, kn,
	       da / amax, amax);
	EXPECT(fluid_changed == 0, "linear %dD %s: the ghost pass changed %d fluid densities", dim, kn,
	       fluid_changed);
	EXPECT(worst < 2e-3, "linear %dD %s: boundary density off the linear field by %.3g kg/m^3 "
	       "(limit 2e-3)", dim, kn, worst);
	EXPECT(worst13 < 2e-3, "linear %dD %s: 1 and 3 blocks differ by %.3g kg/m^3", dim, kn, worst13);
	printf("linear %dD %-8s: %u boundary particles, |rho_b - rho(x_b)| <= %.2e (1 block), "
	       "1 vs 3 blocks %.2e (forces %.1e); uncorrected would miss by up to %.2f kg/m^3\n", dim,
	       kn, nb, worst, worst13, da / amax, shep);
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
					d = fmax(d, fabs(rg.rho[i] - ref->rho[i]) / ref->rho[i]);
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

/* Ghosts across block faces (issue 22): the floor of make_linear with normals tilted along x
 * (the slab axis) by up to 1.8 dp, so that ghost nodes lie up to 1.5 cells of side 2h beyond
 * their particle's block and read a support one cell further, and a density that is not linear
 * in space (rho + 5 sin(40 x) kg/m^3: a corrected interpolation over part of the support no
 * longer gives the full one's value).  Every boundary particle's density must be the same on 1
 * block and on 2..6 blocks (the blocks' halos hold the ghosts' whole supports: 3 cell layers under
 * mDBC, include/tide/case.h): within 1e-4 kg/m^3 (float sums in another order).  Before, a ghost
 * beyond the box grown by one cell lost part or all of its support, and the floating box of
 * tests/data/floating_box.yaml, with a block face just under it, settled 0.8 mm lower on 4 blocks
 * (2 CPU workers) than on 1 (a GPU).  Particles 2h or more inside their solid take no ghost
 * (tide_mdbc_has_ghost): they keep their density.  With --cuda the CUDA codelet on the same blocks
 * against the CPU's 1 block within 1e-5 relative. */
static void blocks(int have_cuda)
{
	tide_case c;
	make_case(&c, 2, 1, 0);
	uint32_t cap = 40000;
	void *mem = malloc((size_t)cap * TIDE_BLOCK_BPP);
	tide_block_view v = tide_block_view_make(mem, cap, 0);
	make_linear(&c, &v);
	double h2 = 2.0 * c.coefh * c.dp;
	uint32_t deep = 0, tilted = 0, nbnd = 0;
	for (uint32_t i = 0; i < v.count; i++) {
		double p[3] = {v.x[i], v.y[i], v.z[i]};
		if (v.type[i] == TIDE_FLUID) {
			v.rho[i] = v.rho1[i] = (float)(lin(p) + 5.0 * sin(40.0 * p[0]));
			continue;
		}
		/* tilted normals, alternating in sign along x: -1.8 dp .. 1.8 dp */
		nbnd++;
		v.vx1[i] = (float)(1.8 * c.dp * sin(7.0 * (double)i));
		double n = sqrt((double)v.vx1[i] * v.vx1[i] + (double)v.vz1[i] * v.vz1[i]);
		tilted += n < h2 && 2.0 * fabs(v.vx1[i]) > h2; /* the ghost beyond the next cell */
		deep += n >= h2;
	}
	result r1, rn;
	result_alloc(&r1, v.count);
	result_alloc(&rn, v.count);
	int ok = run(&c, &v, 1, 0, TIDE_WHERE_CPU, &r1) == 0;
	EXPECT(ok, "blocks: the 1-block run failed");
	double kept = 0;
	for (uint32_t i = 0; ok && i < v.count; i++) {
		double n = sqrt((double)v.vx1[i] * v.vx1[i] + (double)v.vz1[i] * v.vz1[i]);
		if (v.type[i] == TIDE_BOUND && n >= h2) kept = fmax(kept, fabs(r1.rho[i] - v.rho[i]));
	}
	EXPECT(kept == 0, "blocks: a particle 2h inside its solid changed its density by %.3g", kept);
	for (int nbk = 2; ok && nbk <= 6; nbk++) {
		for (int cu = 0; cu <= (have_cuda ? 1 : 0); cu++) {
			int okn = run(&c, &v, nbk, 0, cu ? TIDE_WHERE_CUDA : TIDE_WHERE_CPU, &rn) == 0;
			EXPECT(okn, "blocks: the %d-block run failed", nbk);
			double d = 0, rel = 0;
			for (uint32_t i = 0; okn && i < v.count; i++) {
				if (v.type[i] != TIDE_BOUND) continue;
				d = fmax(d, fabs(rn.rho[i] - r1.rho[i]));
				rel = fmax(rel, fabs(rn.rho[i] - r1.rho[i]) / r1.rho[i]);
			}
			if (cu)
				EXPECT(rel < 1e-5, "blocks: CUDA on %d blocks differs from the CPU's 1 block by "
				       "%.3g (relative, limit 1e-5)", nbk, rel);
			else
				EXPECT(d < 1e-4, "blocks: boundary densities of 1 and %d blocks differ by up to "
				       "%.3g kg/m^3 (limit 1e-4): a ghost beyond its block lost part of its "
				       "support", nbk, d);
			printf("blocks: %u boundary particles (%u with a ghost more than a cell away along "
			       "x, %u without one), 1 vs %d blocks%s: %.2e kg/m^3\n", nbnd,
			       tilted, deep, nbk, cu ? " (CUDA)" : "", d);
		}
	}
	result_free(&r1);
	result_free(&rn);
	free(mem);
}

/* No-slip and free-slip velocities (physics.mdbc_slip): the fluid moves with a velocity linear in
 * space, v(x) = V0 + Gv x (the lattice of make_linear); the corrected interpolation is exact for
 * it, so a boundary particle must get, from v_g = v(x_g) at its ghost x_g = x_b + 2 n_b and the
 * fixed wall's v_wall = 0: noslip v_b = -v_g; freeslip v_b = v_g - 2 (v_g . n^) n^.  Within 1e-5
 * m/s (float sums of velocities ~0.5 m/s); vel0 leaves the velocity 0.  1 and 3 blocks; with
 * --cuda the CUDA codelet against the CPU one within 1e-5 m/s. */
static const double V0[3] = {0.3, 0.1, -0.2}, GV[3][3] = {{2, 0.5, 3}, {-1, 1, 0.5}, {0.5, -2, 1}};
static void vlin(int dim, const double *p, double *u)
{
	for (int a = 0; a < 3; a++) {
		u[a] = V0[a];
		for (int b = 0; b < 3; b++) u[a] += GV[a][b] * p[b];
	}
	if (dim == 2) u[1] = 0;
}

/* With --cuda: the CUDA codelet's boundary velocities against the CPU ones r[0] (1 block) and
 * r[1] (3 blocks), within 1e-5 m/s. */
static void cuda_velocities(const tide_case *c, const tide_block_view *v, const result r[2],
                            const char *what, const char *mode, int dim, const char *kn)
{
	result rg;
	result_alloc(&rg, v->count);
	for (int k = 0; k < 2; k++) {
		int okg = run(c, v, k ? 3 : 1, 0, TIDE_WHERE_CUDA, &rg) == 0;
		EXPECT(okg, "%s %s %dD %s: the CUDA run failed", what, mode, dim, kn);
		double d = 0;
		for (uint32_t i = 0; okg && i < v->count; i++)
			for (int a = 0; a < 3; a++) d = fmax(d, fabs(rg.v[a][i] - r[k].v[a][i]));
		EXPECT(d < 1e-5, "%s %s %dD %s: CUDA velocities differ from the CPU by %.3g m/s (limit "
		       "1e-5)", what, mode, dim, kn, d);
		printf("    CUDA vs CPU, %d block(s): %.1e m/s\n", k ? 3 : 1, d);
	}
	result_free(&rg);
}

/* make_linear's case and particles (in *mem, to free) with the fluid moving at vlin. */
static tide_block_view moving_linear(tide_case *c, int dim, int kernel, void **mem)
{
	make_case(c, dim, kernel, 0);
	uint32_t cap = 40000;
	*mem = malloc((size_t)cap * TIDE_BLOCK_BPP);
	tide_block_view v = tide_block_view_make(*mem, cap, 0);
	make_linear(c, &v);
	for (uint32_t i = 0; i < v.count; i++) {
		if (v.type[i] != TIDE_FLUID) continue;
		double p[3] = {v.x[i], v.y[i], v.z[i]}, u[3];
		vlin(dim, p, u);
		v.vx[i] = (float)u[0]; v.vy[i] = (float)u[1]; v.vz[i] = (float)u[2];
	}
	return v;
}

static void slip(int dim, int kernel, int have_cuda)
{
	tide_case c;
	void *mem;
	tide_block_view v = moving_linear(&c, dim, kernel, &mem);
	const char *kn = kernel ? "wendland" : "cubic", *mode[] = {"vel0", "noslip", "freeslip"};
	for (int m = 0; m < 3; m++) {
		c.mdbc_slip = m;
		result r[2];
		double worst[2] = {0, 0};
		for (int k = 0; k < 2; k++) {
			result_alloc(&r[k], v.count);
			int ok = run(&c, &v, k ? 3 : 1, 0, TIDE_WHERE_CPU, &r[k]) == 0;
			EXPECT(ok, "slip %s %dD %s: running the codelets failed", mode[m], dim, kn);
			for (uint32_t i = 0; ok && i < v.count; i++) {
				if (v.type[i] != TIDE_BOUND) continue;
				double nb[3] = {v.vx1[i], v.vy1[i], v.vz1[i]}, g[3], vg[3], e[3], want[3];
				for (int a = 0; a < 3; a++) g[a] = (a == 1 ? v.y[i] : a ? v.z[i] : v.x[i]) + 2 * nb[a];
				vlin(dim, g, vg);
				double nn = sqrt(nb[0] * nb[0] + nb[1] * nb[1] + nb[2] * nb[2]), vn = 0;
				for (int a = 0; a < 3; a++) { e[a] = nb[a] / nn; vn += vg[a] * e[a]; }
				for (int a = 0; a < 3; a++)
					want[a] = m == 0 ? 0 : m == 1 ? -vg[a] : vg[a] - 2 * vn * e[a];
				for (int a = 0; a < 3; a++) worst[k] = fmax(worst[k], fabs(r[k].v[a][i] - want[a]));
			}
			EXPECT(worst[k] < 1e-5, "slip %s %dD %s %d block(s): boundary velocity off the "
			       "mirrored linear field by %.3g m/s (limit 1e-5)", mode[m], dim, kn, k ? 3 : 1,
			       worst[k]);
		}
		/* the forces after the ghost pass: 1 block = 3 blocks, so the halos, packed again,
		 * carried the boundary particles' new velocities (the artificial viscosity and the
		 * continuity equation read them) */
		double amax = 0, da = 0;
		for (uint32_t i = 0; i < v.count; i++)
			for (int d = 0; d < 3; d++) {
				amax = fmax(amax, fabs(r[0].acc[d][i]));
				da = fmax(da, fabs(r[0].acc[d][i] - r[1].acc[d][i]));
			}
		EXPECT(da <= 1e-5 * amax, "slip %s %dD %s: accelerations of 1 and 3 blocks differ by %.3g "
		       "of the largest (limit 1e-5): the halos lack the boundary velocities", mode[m], dim,
		       kn, da / amax);
		printf("slip %-8s %dD %-8s: |v_b - expected| <= %.2e m/s (1 block), %.2e (3 blocks); "
		       "forces 1 vs 3 blocks %.1e\n", mode[m], dim, kn, worst[0], worst[1], da / amax);
		if (have_cuda) cuda_velocities(&c, &v, r, "slip", mode[m], dim, kn);
		result_free(&r[0]);
		result_free(&r[1]);
	}
	free(mem);
}

/* Moving and floating bodies under noslip and freeslip (mdbc.h: tide_mdbc_wall_velocity,
 * tide_mdbc_slip_of): every boundary particle belongs to a body moving at U, the velocity
 * body_motion gives its particles (ids [0, n/2): a prescribed body; [n/2, n): a floating one).
 *  - fluid moving rigidly with the bodies (v = U everywhere): every boundary particle keeps
 *    v_b = U, the body's velocity at its ghost, so a wall moving with its fluid exerts no
 *    viscous force (a mirror about a wrong wall velocity, e.g. zero, gives 2 v_wall - U = -U);
 *  - the linear fluid velocity of slip(): the prescribed body's particles get the mirror about
 *    U (noslip 2 U - v_g, freeslip v_g + 2 ((U - v_g) . n^) n^) within 1e-5 m/s, the floating
 *    body's keep U bit for bit (no mirror: the body's force is the sum of its particles' pair
 *    terms, see tide_mdbc_slip_of) and take the same density as under vel0.
 * 1 and 3 blocks; with --cuda the CUDA codelet against the CPU within 1e-5 m/s. */
static const double U[3] = {0.25, -0.15, 0.4};
static void bodies(int dim, int kernel, int have_cuda)
{
	tide_case c;
	make_case(&c, dim, kernel, 0);
	uint32_t cap = 40000;
	void *mem = malloc((size_t)cap * TIDE_BLOCK_BPP);
	tide_block_view v = tide_block_view_make(mem, cap, 0);
	make_linear(&c, &v);
	uint32_t half = v.count / 2;
	c.motion.nbody = 2;
	c.motion.body[0].id0 = 0;
	c.motion.body[0].id1 = half;
	c.motion.body[1].id0 = half;
	c.motion.body[1].id1 = v.count;
	c.motion.body[1].rigid = 1;
	const float u[3] = {(float)U[0], dim == 3 ? (float)U[1] : 0.f, (float)U[2]};
	for (uint32_t i = 0; i < v.count; i++)
		if (v.type[i] != TIDE_FLUID) { v.vx[i] = u[0]; v.vy[i] = u[1]; v.vz[i] = u[2]; }
	const char *kn = kernel ? "wendland" : "cubic", *mode[] = {"vel0", "noslip", "freeslip"};
	result r0;
	result_alloc(&r0, v.count);
	for (uint32_t i = 0; i < v.count; i++)
		if (v.type[i] == TIDE_FLUID) { v.vx[i] = u[0]; v.vy[i] = u[1]; v.vz[i] = u[2]; }
	for (int m = 1; m < 3; m++) {
		c.mdbc_slip = m;
		double worst = 0;
		int ok = run(&c, &v, 1, 0, TIDE_WHERE_CPU, &r0) == 0;
		EXPECT(ok, "bodies %s %dD %s: running the codelets failed", mode[m], dim, kn);
		for (uint32_t i = 0; ok && i < v.count; i++)
			if (v.type[i] == TIDE_BOUND)
				for (int a = 0; a < 3; a++) worst = fmax(worst, fabs(r0.v[a][i] - u[a]));
		EXPECT(worst < 1e-5, "bodies %s %dD %s: with the fluid moving with the bodies a boundary "
		       "particle's velocity is off theirs by %.3g m/s (limit 1e-5)", mode[m], dim, kn,
		       worst);
		printf("bodies %-8s %dD %-8s: fluid moving with the bodies: |v_b - U| <= %.2e m/s\n",
		       mode[m], dim, kn, worst);
	}
	for (uint32_t i = 0; i < v.count; i++) {
		if (v.type[i] != TIDE_FLUID) continue;
		double p[3] = {v.x[i], v.y[i], v.z[i]}, w[3];
		vlin(dim, p, w);
		v.vx[i] = (float)w[0]; v.vy[i] = (float)w[1]; v.vz[i] = (float)w[2];
	}
	c.mdbc_slip = TIDE_SLIP_VEL0;
	int ok0 = run(&c, &v, 1, 0, TIDE_WHERE_CPU, &r0) == 0;
	EXPECT(ok0, "bodies vel0 %dD %s: running the codelets failed", dim, kn);
	for (int m = 1; m < 3; m++) {
		c.mdbc_slip = m;
		result r[2];
		double worst[2] = {0, 0}, fl[2] = {0, 0}, drho = 0;
		uint32_t nfl = 0;
		for (int k = 0; k < 2; k++) {
			result_alloc(&r[k], v.count);
			int ok = run(&c, &v, k ? 3 : 1, 0, TIDE_WHERE_CPU, &r[k]) == 0;
			EXPECT(ok, "bodies %s %dD %s: running the codelets failed", mode[m], dim, kn);
			for (uint32_t i = 0; ok && i < v.count; i++) {
				if (v.type[i] != TIDE_BOUND) continue;
				if (v.id[i] >= half) {
					for (int a = 0; a < 3; a++) fl[k] = fmax(fl[k], fabs(r[k].v[a][i] - u[a]));
					if (k == 0) {
						drho = fmax(drho, fabs(r[k].rho[i] - r0.rho[i]));
						nfl++;
					}
					continue;
				}
				double nb[3] = {v.vx1[i], v.vy1[i], v.vz1[i]}, g[3], vg[3], e[3], want[3];
				for (int a = 0; a < 3; a++) g[a] = (a == 1 ? v.y[i] : a ? v.z[i] : v.x[i]) + 2 * nb[a];
				vlin(dim, g, vg);
				double nn = sqrt(nb[0] * nb[0] + nb[1] * nb[1] + nb[2] * nb[2]), dn = 0;
				for (int a = 0; a < 3; a++) { e[a] = nb[a] / nn; dn += (u[a] - vg[a]) * e[a]; }
				for (int a = 0; a < 3; a++)
					want[a] = m == 1 ? 2 * u[a] - vg[a] : vg[a] + 2 * dn * e[a];
				for (int a = 0; a < 3; a++) worst[k] = fmax(worst[k], fabs(r[k].v[a][i] - want[a]));
			}
			EXPECT(worst[k] < 1e-5, "bodies %s %dD %s %d block(s): the moving body's velocity "
			       "is off the mirror about its own by %.3g m/s (limit 1e-5)", mode[m], dim, kn,
			       k ? 3 : 1, worst[k]);
			EXPECT(fl[k] == 0, "bodies %s %dD %s %d block(s): the ghost pass changed the "
			       "floating body's velocity by %.3g m/s (it must keep its own)", mode[m], dim,
			       kn, k ? 3 : 1, fl[k]);
		}
		EXPECT(nfl > 0 && drho < 1e-3, "bodies %s %dD %s: %u floating particles' densities off "
		       "those of vel0 by %.3g kg/m^3 (limit 1e-3)", mode[m], dim, kn, nfl, drho);
		printf("bodies %-8s %dD %-8s: moving body |v_b - mirror about U| <= %.2e m/s (1 block), "
		       "%.2e (3); floating body |v - U| = %.1e, |rho - rho(vel0)| <= %.1e (%u particles)\n",
		       mode[m], dim, kn, worst[0], worst[1], fl[0] + fl[1], drho, nfl);
		if (have_cuda) cuda_velocities(&c, &v, r, "bodies", mode[m], dim, kn);
		result_free(&r[0]);
		result_free(&r[1]);
	}
	result_free(&r0);
	free(mem);
}

/* The continuity equation under noslip and freeslip (sph_pair.h, tide_wall_velocity): the
 * fluid of slip() (velocity linear in space) over walls that are fixed, or all one prescribed
 * body translating at U (a linear motion segment; the walls show U as body_motion would have
 * set it).  Under vel0 the walls show their own velocity, so vel0's fluid density rates are the
 * reference: under noslip and freeslip the walls show the mirror, and the fluid's density rates
 * must still be vel0's (continuity reads the wall's own velocity; the fluid-fluid terms are the
 * same pairs in the same order), within 1e-6 of the largest, while its accelerations differ
 * (the artificial viscosity reads the mirror).  Reading the mirror instead (as before the
 * fix) misses by 0.9 to 2.7 times the largest rate.  1 and 3 blocks (the moving body's halo
 * particles carry their ids); with --cuda the ghost pass and the forces on the GPU against the
 * CPU. */
static void continuity(int dim, int kernel, int have_cuda)
{
	tide_case c;
	void *mem;
	tide_block_view v = moving_linear(&c, dim, kernel, &mem);
	const char *kn = kernel ? "wendland" : "cubic", *mode[] = {"vel0", "noslip", "freeslip"};
	const float u[3] = {(float)U[0], dim == 3 ? (float)U[1] : 0.f, (float)U[2]};
	for (int moving = 0; moving < 2; moving++) {
		const char *wn = moving ? "moving walls" : "fixed walls";
		if (moving) {
			/* every particle id in one body translating at U from t = 0 on (its fluid ids
			 * do not count: only boundary particles belong to a body) */
			c.motion.nbody = 1;
			c.motion.nseg = 1;
			c.motion.body[0] = (tide_motion_body){.id0 = 0, .id1 = v.count, .seg0 = 0, .nseg = 1};
			c.motion.seg[0] = (tide_motion_seg){.rot = 0, .profile = TIDE_PROFILE_LINEAR,
			                                    .t0 = 0, .t1 = INFINITY,
			                                    .a = {u[0], u[1], u[2]}};
			for (uint32_t i = 0; i < v.count; i++)
				if (v.type[i] == TIDE_BOUND) { v.vx[i] = u[0]; v.vy[i] = u[1]; v.vz[i] = u[2]; }
		}
		result r[3][2];
		for (int m = 0; m < 3; m++) {
			c.mdbc_slip = m;
			tide_sim_set_aux(&c); /* halo ids under noslip/freeslip with a moving body */
			for (int k = 0; k < 2; k++) {
				result_alloc(&r[m][k], v.count);
				int ok = run(&c, &v, k ? 3 : 1, 0, TIDE_WHERE_CPU, &r[m][k]) == 0;
				EXPECT(ok, "continuity %s %s %dD %s: running the codelets failed", wn, mode[m],
				       dim, kn);
			}
		}
		for (int m = 1; m < 3; m++) {
			double dmax = 0, dd = 0, amax = 0, da = 0;
			for (int k = 0; k < 2; k++)
				for (uint32_t i = 0; i < v.count; i++) {
					if (v.type[i] != TIDE_FLUID) continue;
					dmax = fmax(dmax, fabs(r[0][k].drho[i]));
					dd = fmax(dd, fabs(r[m][k].drho[i] - r[0][k].drho[i]));
					for (int a = 0; a < 3; a++) {
						amax = fmax(amax, fabs(r[0][k].acc[a][i]));
						da = fmax(da, fabs(r[m][k].acc[a][i] - r[0][k].acc[a][i]));
					}
				}
			EXPECT(dmax > 0 && dd <= 1e-6 * dmax, "continuity %s %s %dD %s: the fluid's density "
			       "rates differ from vel0's by %.3g of the largest (%.4g kg/m^3/s; limit 1e-6): "
			       "continuity reads the mirrored wall velocities", wn, mode[m], dim, kn,
			       dd / dmax, dmax);
			EXPECT(da > 1e-4 * amax, "continuity %s %s %dD %s: the fluid's accelerations are "
			       "vel0's (%.3g of the largest): the viscosity does not read the mirror", wn,
			       mode[m], dim, kn, da / amax);
			printf("continuity %-12s %-8s %dD %-8s: fluid drho - vel0's <= %.1e of %.4g, "
			       "accelerations differ by %.2g of the largest\n", wn, mode[m], dim, kn,
			       dd / dmax, dmax, da / amax);
		}
		if (have_cuda) {
			tide_codelet_restrict(&tide_sph_forces_cl, TIDE_WHERE_CUDA);
			for (int m = 1; m < 3; m++) {
				c.mdbc_slip = m;
				tide_sim_set_aux(&c);
				result rg;
				result_alloc(&rg, v.count);
				for (int k = 0; k < 2; k++) {
					int okg = run(&c, &v, k ? 3 : 1, 0, TIDE_WHERE_CUDA, &rg) == 0;
					EXPECT(okg, "continuity %s %s %dD %s: the CUDA run failed", wn, mode[m],
					       dim, kn);
					double dmax = 0, dd = 0;
					for (uint32_t i = 0; okg && i < v.count; i++) {
						if (v.type[i] != TIDE_FLUID) continue;
						dmax = fmax(dmax, fabs(r[m][k].drho[i]));
						dd = fmax(dd, fabs(rg.drho[i] - r[m][k].drho[i]));
					}
					EXPECT(okg && dd <= 1e-5 * dmax, "continuity %s %s %dD %s %d block(s): CUDA "
					       "density rates differ from the CPU's by %.3g of the largest (limit "
					       "1e-5)", wn, mode[m], dim, kn, k ? 3 : 1, dd / dmax);
					printf("    CUDA vs CPU, %d block(s): drho %.1e of the largest\n",
					       k ? 3 : 1, dd / dmax);
				}
				result_free(&rg);
			}
			tide_codelet_restrict(&tide_sph_forces_cl, TIDE_WHERE_ANY);
		}
		for (int m = 0; m < 3; m++)
			for (int k = 0; k < 2; k++) result_free(&r[m][k]);
	}
	c.mdbc_slip = TIDE_SLIP_VEL0;
	c.motion.nbody = c.motion.nseg = 0;
	tide_sim_set_aux(&c);
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
		EXPECT(sw > 0 && fabs(r.rho[3] - shepard) < 2e-3, "fallbacks %s: collinear ghost gave "
		       "%.6f, Shepard %.6f", kernel ? "wendland" : "cubic", r.rho[3], shepard);
		EXPECT(r.rho[4] == 1002.5f, "fallbacks: a ghost without fluid gave %.6f, not the "
		       "particle's 1002.5", r.rho[4]);
		EXPECT(r.rho[5] == 1004.5f, "fallbacks: a particle without normal gave %.6f, not its "
		       "1004.5", r.rho[5]);
		printf("fallbacks %-8s: Shepard %.4f (reference %.4f), no fluid %.2f, no normal %.2f\n",
		       kernel ? "wendland" : "cubic", r.rho[3], shepard, r.rho[4], r.rho[5]);
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

/* ---- boundary normals of tank walls and box obstacles (src/case_build.c) ---- */

/* Distance from p to the nearest of a box's faces that `face` (bit 2a + side) selects, by brute
 * force over points of those faces on a grid of step s (the faces of the 2-D x-z plane: y = 0). */
static double face_distance(const double *lo, const double *hi, unsigned face, int dim, const double *p,
                            double s)
{
	double best = INFINITY;
	for (int a = 0; a < 3; a++)
		for (int side = 0; side < 2; side++) {
			if (!(face >> (2 * a + side) & 1u)) continue;
			int b = (a + 1) % 3, e = (a + 2) % 3;
			long nb = dim == 2 && b == 1 ? 0 : (long)ceil((hi[b] - lo[b]) / s);
			long ne = dim == 2 && e == 1 ? 0 : (long)ceil((hi[e] - lo[e]) / s);
			for (long i = 0; i <= nb; i++)
				for (long j = 0; j <= ne; j++) {
					double q[3];
					q[a] = side ? hi[a] : lo[a];
					q[b] = dim == 2 && b == 1 ? 0 : fmin(lo[b] + i * s, hi[b]);
					q[e] = dim == 2 && e == 1 ? 0 : fmin(lo[e] + j * s, hi[e]);
					double d = sqrt((q[0] - p[0]) * (q[0] - p[0]) + (q[1] - p[1]) * (q[1] - p[1]) +
					                (q[2] - p[2]) * (q[2] - p[2]));
					if (d < best) best = d;
				}
		}
	return best;
}

static int inside(const double *lo, const double *hi, int dim, const double *p, double eps)
{
	for (int a = 0; a < 3; a++)
		if (!(dim == 2 && a == 1) && (p[a] < lo[a] - eps || p[a] > hi[a] + eps)) return 0;
	return 1;
}

/* A tank (open or closed top) with an obstacle standing on its floor: for every tank wall
 * particle |n| is its distance to the walls' inner faces (brute force over the faces) and its
 * ghost x + 2n lies in the tank interior; for every obstacle particle x + n lies on an exposed face
 * of the obstacle (not its bottom, which stands on the floor), x + 2n outside it, |n| is the
 * distance to the nearest exposed face, or for an edge or corner particle x + n lies on as many
 * exposed faces as n has components (the edge or corner point); a wall layer's particles away from edges have |n| = (l + 1/2) dp.
 * The normals reach the block the same way through tide_host_block_build (the run's path) and
 * tide_host_block_from_set. */
static void normals(int dim, int open_top)
{
	char path[] = "/tmp/tide-test-mdbc-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	EXPECT(f, "normals: cannot write a temporary case file");
	if (!f) return;
	if (dim == 3)
		fprintf(f, "dim: 3\ndp: 0.02\ntank: {lo: [0, 0, 0], hi: [0.3, 0.2, 0.2], open_top: %s, "
		        "layers: 3}\nfluid:\n  - {lo: [0.15, 0, 0], hi: [0.3, 0.2, 0.1]}\nobstacles:\n"
		        "  - {lo: [0.05, 0.06, 0], hi: [0.11, 0.145, 0.07]}\ntime: {end: 0.1}\n",
		        open_top ? "true" : "false");
	else
		fprintf(f, "dim: 2\ndp: 0.02\ntank: {lo: [0, 0], hi: [0.3, 0.2], open_top: %s, layers: 3}\n"
		        "fluid:\n  - {lo: [0.15, 0], hi: [0.3, 0.1]}\nobstacles:\n  - {lo: [0.05, 0], hi: "
		        "[0.11, 0.07]}\nphysics: {gravity: [0, -9.81]}\ntime: {end: 0.1}\n", open_top ? "true" : "false");
	fclose(f);
	tide_case c;
	void *m1 = NULL, *m2 = NULL;
	tide_block_view v1, v2;
	size_t nf, nbd;
	int ok = tide_case_load(path, 0, &c) == 0;
	remove(path);
	EXPECT(ok, "normals %dD: the case did not load", dim);
	if (!ok) return;
	tide_particle_set ps;
	memset(&ps, 0, sizeof ps);
	ok = tide_case_build(&c, &ps) == 0 && tide_host_block_from_set(&ps, &m1, &v1) == 0 &&
	     tide_host_block_build(&c, 1, &m2, &v2, &nf, &nbd) == 0 && v1.count == v2.count;
	EXPECT(ok, "normals %dD: building the particles failed", dim);
	const tide_box *t = &c.tank.box, *o = &c.obstacle[0];
	unsigned tank_faces = 0, obst_faces = 0;
	for (int a = 0; a < 3; a++) {
		if (dim == 2 && a == 1) continue;
		tank_faces |= 3u << (2 * a);
		obst_faces |= 3u << (2 * a);
	}
	if (open_top) tank_faces &= ~(1u << 5);
	obst_faces &= ~(1u << 4); /* its bottom stands on the floor */
	double dp = c.dp, tol = 1e-6;
	int bad_t = 0, bad_o = 0, bad_layer = 0, differ = 0, nt = 0, no = 0, ncorner = 0;
	for (uint32_t i = 0; ok && i < v1.count; i++) {
		if (v1.type[i] != TIDE_BOUND) {
			differ += v2.type[i] != TIDE_FLUID;
			continue;
		}
		double p[3] = {v1.x[i], v1.y[i], v1.z[i]}, n[3] = {v1.vx1[i], v1.vy1[i], v1.vz1[i]};
		differ += v2.vx1[i] != v1.vx1[i] || v2.vy1[i] != v1.vy1[i] || v2.vz1[i] != v1.vz1[i] ||
		          v2.x[i] != v1.x[i] || v2.z[i] != v1.z[i];
		double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
		double foot[3] = {p[0] + n[0], p[1] + n[1], p[2] + n[2]};
		double ghost[3] = {p[0] + 2 * n[0], p[1] + 2 * n[1], p[2] + 2 * n[2]};
		if (!inside(o->lo, o->hi, dim, p, 0)) { /* a tank wall particle */
			nt++;
			double d = face_distance(t->lo, t->hi, tank_faces, dim, p, dp / 4);
			/* the sampled faces can only be farther than the true surface, by < step/sqrt 2 */
			bad_t += !(len <= d + tol && len >= d - dp / 4) || !inside(t->lo, t->hi, dim, ghost, tol);
			int axes = (n[0] != 0) + (n[1] != 0) + (n[2] != 0);
			if (axes == 1) {
				double l = len / dp - 0.5;
				bad_layer += fabs(l - floor(l + 0.5)) > 1e-4 || l < -1e-4 || l > 2 + 1e-4;
			}
		} else {
			no++;
			double d = face_distance(o->lo, o->hi, obst_faces, dim, p, dp / 50);
			int on = 0; /* exposed faces whose plane holds the foot */
			for (int a = 0; a < 3; a++)
				for (int side = 0; side < 2; side++)
					if (obst_faces >> (2 * a + side) & 1u)
						on += fabs(foot[a] - (side ? o->hi[a] : o->lo[a])) < tol &&
						      inside(o->lo, o->hi, dim, foot, tol);
			int axes = (n[0] != 0) + (n[1] != 0) + (n[2] != 0);
			ncorner += axes > 1;
			/* a face particle: to the nearest face; an edge or corner one: to the edge or
			 * corner point (on as many faces as it has components) */
			bad_o += on < axes || axes == 0 || inside(o->lo, o->hi, dim, ghost, -tol) ||
			         len < d - dp / 50 || (axes == 1 && len > d + tol);
		}
	}
	EXPECT(ok && nt > 0 && no > 0 && ncorner > 0, "normals %dD: %d wall, %d obstacle particles, "
	       "%d at obstacle edges", dim, nt, no, ncorner);
	EXPECT(bad_t == 0 && bad_layer == 0, "normals %dD (%s top): %d of %d tank wall normals are "
	       "not to the nearest inner face or their ghost is outside the tank, %d not at a layer's "
	       "distance", dim, open_top ? "open" : "closed", bad_t, nt, bad_layer);
	EXPECT(bad_o == 0, "normals %dD: %d of %d obstacle normals wrong", dim, bad_o, no);
	EXPECT(differ == 0, "normals %dD: tide_host_block_build and tide_host_block_from_set differ at "
	       "%d particles", dim, differ);
	printf("normals %dD %s top: %d wall and %d obstacle particles (%d at its edges and corners) "
	       "checked\n", dim, open_top ? "open" : "closed", nt, no, ncorner);
	tide_pset_free(&ps);
	free(m1);
	if (m2) tide_block_free_host(m2, v2.cap);
}

int main(int argc, char **argv)
{
	int have_cuda = test_cuda_requested(argc, argv);
	if (starpu_init(NULL) != 0) { fprintf(stderr, "StarPU init failed\n"); return 77; }
	if (have_cuda && test_cuda_missing("mdbc_cuda")) { starpu_shutdown(); return TEST_SKIP; }
	for (int dim = 2; dim <= 3; dim++)
		for (int kernel = 0; kernel < 2; kernel++) linear(dim, kernel, have_cuda);
	blocks(have_cuda);
	for (int dim = 2; dim <= 3; dim++) slip(dim, dim - 2, have_cuda);
	for (int dim = 2; dim <= 3; dim++) bodies(dim, dim - 2, have_cuda);
	for (int dim = 2; dim <= 3; dim++) continuity(dim, dim - 2, have_cuda);
	for (int kernel = 0; kernel < 2 && !have_cuda; kernel++) fallbacks(kernel);
	for (int dim = 2; dim <= 3 && !have_cuda; dim++)
		for (int open = 0; open < 2; open++) normals(dim, open);
	for (int dim = 2; dim <= 3 && !have_cuda; dim++)
		for (int integ = 0; integ < 2; integ++) steps(dim, integ);
	starpu_shutdown();
	if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
	printf("mdbc: all checks passed%s\n", have_cuda ? " (CUDA = CPU)" : "");
	return 0;
}
