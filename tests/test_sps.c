// SPDX-License-Identifier: LGPL-2.1-or-later
// The SPS turbulence closure (physics.viscosity: laminar+sps; sph_pair.h, include/tide/sps.h):
// sph_forces, then sps_tau, over blocks made by tide_sim_setup (cell_sort and halo_pack before
// them), against fields whose answer is known by hand.  Fluid alone on a 3-D lattice (no walls,
// no gravity, rho = rho0 so that the pressure is zero), particles farther than 2h + dp from the
// lattice's faces checked:
//  - strain: v = G x for a fixed matrix G (du_a/dx_b = G_ab, trace 0.4/s).  The SPH gradient of a
//    linear field on a lattice is G M with M = c I, c = -sum_j V_j F_ij x_ij^2 (the kernel's
//    second moment, 1 up to the lattice's truncation: computed here in double from the kernel's
//    formula).  Asserted: the gradient (aux6..11) within 1e-3 of c G (packed g_ab = G_ab + G_ba
//    off the diagonal) and within 1 % of G itself; tau / rho^2 (aux0..5) within 1e-3 of the
//    analytic stress of c G, which is c^2 times that of G (both terms are quadratic in G), and
//    within 2 % of that of G itself, S = (G + G^T)/2, |S| = sqrt(2 S:S), nu_t = (C_s dp)^2 |S|,
//    tau/rho = 2 nu_t S - 2/3 nu_t tr(S) I - 2/3 C_I dp^2 |S|^2 I (divided by rho once more:
//    the stored tau / rho^2); the eddy viscosity seen through the shear stress, rho^2
//    (tau_xy/rho^2) / (G_xy + G_yx), within 2 % of nu_t (1e-3 of c^2 nu_t).
//  - stress: v = 0 and a hand-set tau / rho^2 = A(x), linear in x: the pair term
//    m_j (A_i + A_j) . grad_i W is rho0 div A (times c) in the interior.  Asserted: the
//    acceleration within 1 % of rho0 div A.
//  - random velocities and tau with a floor of boundary particles, 3 blocks = 1 block within
//    1e-5 (the halos carry tau: without it the particles at the block faces would miss their
//    neighbours' stress); the boundary particles' tau and gradient are zero.
// Both kernels (Wendland at coefh 1.5, cubic at 1.3: lattice moments c within 0.7 % of 1).
//  - the same with the floor's upper layer a floating body under mDBC, pushed 0.3 dp into the
//    lower, fixed layer (the contact force of sph_pair.h, which replaces the SPH and SPS pair
//    terms between them): each of its particles' az within 10 % of kc 0.3 dp, kc = (c0/dp)^2.
// With --cuda (the test sps_cuda) the CUDA sph_forces and sps_tau must give the CPU values
// within 1e-5 of the largest magnitude (accelerations, density rates, gradients, tau) on the
// random configuration with 1 and 3 blocks; without a CUDA worker that test exits 77 (SKIP).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/case.h"
#include "tide/sph_sim.h"
#include "tide/sph_interact.h"
#include "tide/sps.h"
#include "runtime.h"
#include "test_cuda_mode.h"

static int failures;
#define EXPECT(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static uint64_t rng = 0x51A2B3C4D5E6F708ull;
static double urand(void)
{
	rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

#define NL 16          /* lattice of NL^3 fluid particles */
static const double DP = 0.01;
/* du_a/dx_b */
static const double GV[3][3] = {{0.3, 1.0, -0.2}, {0.5, -0.1, 0.4}, {0.7, -0.6, 0.2}};
/* component order of sph_pair.h: xx, xy, xz, yy, yz, zz */
static const int CA[6] = {0, 0, 0, 1, 1, 2}, CB[6] = {0, 1, 2, 1, 2, 2};

static void make_case(tide_case *c, int kernel, int floor)
{
	memset(c, 0, sizeof *c);
	snprintf(c->name, sizeof c->name, "sps");
	snprintf(c->path, sizeof c->path, "(test)");
	c->dim = 3;
	c->dp = DP;
	c->kernel = kernel;
	c->coefh = kernel ? 1.5 : 1.3;
	c->rho0 = 1000;
	c->gamma = 7;
	c->c0 = 20;
	c->visco = 0.1;
	c->viscosity = TIDE_VISC_LAMINAR_SPS;
	c->nu = floor ? 1e-3 : 0;   /* the analytic parts check the SPS terms alone */
	c->sps_cs = 0.12;
	c->sps_ci = 0.0066;
	c->cfl = 0.2;
	c->verlet_steps = 40;
	for (int d = 0; d < 3; d++) c->domain.hi[d] = NL * DP;
	c->domain.lo[2] = -0.04;
	c->domain.hi[0] = NL * DP + 0.001; /* elongated along x: slabs along x */
}

static void push(tide_block_view *v, const double p[3], int bound)
{
	uint32_t i = v->count++;
	v->x[i] = p[0]; v->y[i] = p[1]; v->z[i] = p[2];
	v->vx[i] = v->vy[i] = v->vz[i] = 0.f;
	v->rho[i] = v->rho1[i] = 1000.f;
	v->type[i] = bound ? TIDE_BOUND : TIDE_FLUID;
	v->vx1[i] = v->vy1[i] = 0.f;
	v->vz1[i] = bound ? (float)(0.5 * DP) : 0.f;
	v->ax[i] = v->ay[i] = v->az[i] = v->drho[i] = 0.f;
	v->id[i] = i;
	float *t[6] = TIDE_SPS_TAU_PTRS(*v), *g[6] = TIDE_SPS_GRAD_PTRS(*v);
	for (int k = 0; k < 6; k++) t[k][i] = g[k][i] = 0.f;
}

/* The fluid lattice (and with floor, 2 layers of boundary particles below it). */
static void make_lattice(tide_block_view *v, int floor)
{
	v->count = 0;
	for (int i = 0; i < NL; i++)
		for (int j = 0; j < NL; j++) {
			for (int k = 0; k < NL; k++) {
				double p[3] = {(i + 0.5) * DP, (j + 0.5) * DP, (k + 0.5) * DP};
				push(v, p, 0);
			}
			for (int l = 0; floor && l < 2; l++) {
				double p[3] = {(i + 0.5) * DP, (j + 0.5) * DP, -(l + 0.5) * DP};
				push(v, p, 1);
			}
		}
}

/* The case and its lattice in a host block (*mem, of capacity *cap). */
static tide_block_view lattice_case(int kernel, int floor, tide_case *c, void **mem, uint32_t *cap)
{
	make_case(c, kernel, floor);
	*cap = NL * NL * (NL + 2);
	*mem = tide_block_alloc_host(*cap);
	tide_block_view v = tide_block_view_make(*mem, *cap, 0);
	make_lattice(&v, floor);
	return v;
}

/* What a run gives, by id. */
typedef struct result {
	float *acc[3], *drho, *tau[6], *grad[6];
	float dt;
	uint32_t n;
} result;

static void result_alloc(result *r, uint32_t n)
{
	memset(r, 0, sizeof *r);
	for (int d = 0; d < 3; d++) r->acc[d] = calloc(n, sizeof(float));
	for (int k = 0; k < 6; k++) { r->tau[k] = calloc(n, sizeof(float)); r->grad[k] = calloc(n, sizeof(float)); }
	r->drho = calloc(n, sizeof(float));
	r->n = n;
}
static void result_free(result *r)
{
	for (int d = 0; d < 3; d++) free(r->acc[d]);
	for (int k = 0; k < 6; k++) { free(r->tau[k]); free(r->grad[k]); }
	free(r->drho);
}

/* The first part of a step (sort, halos, sph_forces, sps_tau) on nblocks blocks, sph_forces and
 * sps_tau where `where` says. */
static int run(const tide_case *c, const tide_block_view *all, int nblocks, enum tide_where where,
               result *res)
{
	tide_sim sim;
	if (tide_sim_setup(&sim, c, all, nblocks, tide_runtime_uses_mpi())) return -1;
	if (sim.nblocks != nblocks) {
		fprintf(stderr, "sps: asked for %d blocks, got %d\n", nblocks, sim.nblocks);
		tide_sim_free(&sim);
		return -1;
	}
	tide_codelet_restrict(&tide_sph_forces_cl, where);
	tide_codelet_restrict(&tide_sps_tau_cl, where);
	tide_sim_submit_forces_with(&sim, NULL, NULL, NULL);
	starpu_task_wait_for_all();
	starpu_data_acquire(sim.red, STARPU_R);
	res->dt = ((tide_step_reduce *)starpu_variable_get_local_ptr(sim.red))->dt;
	starpu_data_release(sim.red);
	void *mem = NULL;
	tide_block_view g;
	int bad = tide_sim_gather(&sim, 0, &mem, &g) != 0 || g.count != all->count;
	for (uint32_t i = 0; !bad && i < g.count; i++) {
		uint32_t id = g.id[i];
		if (id >= res->n) { bad = 1; break; }
		res->acc[0][id] = g.ax[i]; res->acc[1][id] = g.ay[i]; res->acc[2][id] = g.az[i];
		res->drho[id] = g.drho[i];
		float *t[6] = TIDE_SPS_TAU_PTRS(g), *gr[6] = TIDE_SPS_GRAD_PTRS(g);
		for (int k = 0; k < 6; k++) { res->tau[k][id] = t[k][i]; res->grad[k][id] = gr[k][i]; }
	}
	free(mem);
	tide_sim_free(&sim);
	tide_codelet_restrict(&tide_sph_forces_cl, TIDE_WHERE_ANY);
	tide_codelet_restrict(&tide_sps_tau_cl, TIDE_WHERE_ANY);
	if (bad) fprintf(stderr, "sps: gathering the particles failed\n");
	return bad ? -1 : 0;
}

/* The kernel's lattice moment c = -sum_j dp^3 F(r_ij) x_ij^2 (M = c I), F = (dW/dr)/r from the
 * kernel's formula (case-format.md). */
static double lattice_moment(int kernel, double h)
{
	double a = kernel ? 21.0 / (16.0 * M_PI * h * h * h) : 1.0 / (M_PI * h * h * h), s = 0;
	int n = (int)(2 * h / DP) + 1;
	for (int i = -n; i <= n; i++)
		for (int j = -n; j <= n; j++)
			for (int k = -n; k <= n; k++) {
				double r = DP * sqrt((double)(i * i + j * j + k * k)), q = r / h, F;
				if (q <= 0 || q >= 2) continue;
				if (kernel) F = -5.0 * pow(1 - 0.5 * q, 3);
				else F = q < 1 ? -3.0 + 2.25 * q : -0.75 * (2 - q) * (2 - q) / q;
				s -= DP * DP * DP * a / (h * h) * F * (i * DP) * (i * DP);
			}
	return s;
}

static int interior(const tide_block_view *v, uint32_t i, double margin)
{
	double p[3] = {v->x[i], v->y[i], v->z[i]};
	for (int d = 0; d < 3; d++)
		if (p[d] < margin || p[d] > NL * DP - margin) return 0;
	return v->type[i] == TIDE_FLUID;
}

static void strain(int kernel)
{
	tide_case c;
	void *mem;
	uint32_t cap;
	tide_block_view v = lattice_case(kernel, 0, &c, &mem, &cap);
	for (uint32_t i = 0; i < v.count; i++) {
		double p[3] = {v.x[i], v.y[i], v.z[i]};
		float *vel[3] = {v.vx, v.vy, v.vz};
		for (int a = 0; a < 3; a++) vel[a][i] = (float)(GV[a][0] * p[0] + GV[a][1] * p[1] + GV[a][2] * p[2]);
	}
	double h = c.coefh * DP, cm = lattice_moment(kernel, h);
	/* the analytic gradient (packed), strain and stress */
	double g[6], S[3][3], s2 = 0, tr = 0;
	for (int k = 0; k < 6; k++) g[k] = CA[k] == CB[k] ? GV[CA[k]][CA[k]] : GV[CA[k]][CB[k]] + GV[CB[k]][CA[k]];
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++) { S[a][b] = 0.5 * (GV[a][b] + GV[b][a]); s2 += 2 * S[a][b] * S[a][b]; }
	for (int a = 0; a < 3; a++) tr += S[a][a];
	double nut = pow(c.sps_cs * DP, 2) * sqrt(s2), tau[6], gmax = 0, tmax = 0;
	for (int k = 0; k < 6; k++) {
		int a = CA[k], b = CB[k];
		tau[k] = (2 * nut * S[a][b] - (a == b ? 2.0 / 3.0 * (nut * tr + c.sps_ci * DP * DP * s2) : 0)) /
		         1000.0;
		gmax = fmax(gmax, fabs(g[k]));
		tmax = fmax(tmax, fabs(tau[k]));
	}
	for (int nb = 1; nb <= 3; nb += 2) {
		result r;
		result_alloc(&r, v.count);
		int ok = run(&c, &v, nb, TIDE_WHERE_CPU, &r) == 0;
		EXPECT(ok, "strain %s: the run failed", kernel ? "wendland" : "cubic");
		double eg = 0, egc = 0, et = 0, etc = 0, enu = 0, enuc = 0;
		int n = 0;
		for (uint32_t i = 0; ok && i < v.count; i++) {
			if (!interior(&v, i, 2 * h + DP)) continue;
			n++;
			for (int k = 0; k < 6; k++) {
				eg = fmax(eg, fabs(r.grad[k][i] - g[k]) / gmax);
				egc = fmax(egc, fabs(r.grad[k][i] - cm * g[k]) / gmax);
				et = fmax(et, fabs(r.tau[k][i] - tau[k]) / tmax);
				etc = fmax(etc, fabs(r.tau[k][i] - cm * cm * tau[k]) / tmax);
			}
			double nus = 1000.0 * r.tau[TIDE_SPS_XY][i] / g[TIDE_SPS_XY];
			enu = fmax(enu, fabs(nus - nut) / nut);
			enuc = fmax(enuc, fabs(nus - cm * cm * nut) / nut);
		}
		EXPECT(n > 100, "strain: only %d interior particles", n);
		EXPECT(egc < 1e-3, "strain %s %d blocks: gradient off c G by %.3g of |G| (limit 1e-3)",
		       kernel ? "wendland" : "cubic", nb, egc);
		EXPECT(eg < 1e-2, "strain %s %d blocks: gradient off G by %.3g (limit 1 %%)",
		       kernel ? "wendland" : "cubic", nb, eg);
		EXPECT(etc < 1e-3, "strain %s %d blocks: tau off the analytic stress of c G by %.3g of "
		       "its largest component (limit 1e-3)", kernel ? "wendland" : "cubic", nb, etc);
		EXPECT(et < 2e-2, "strain %s %d blocks: tau off the analytic stress of G by %.3g of its "
		       "largest component (limit 2 %%)", kernel ? "wendland" : "cubic", nb, et);
		EXPECT(enuc < 1e-3 && enu < 2e-2, "strain %s %d blocks: eddy viscosity (times |g_xy|) "
		       "off (C_s dp)^2 |S| = %.4g by %.3g (limits 2 %%; of c G: %.3g, limit 1e-3)",
		       kernel ? "wendland" : "cubic", nb, nut, enu, enuc);
		printf("strain %-8s %d block(s): %d interior particles, lattice moment c = %.5f; gradient "
		       "vs c G %.1e, vs G %.1e; tau vs c G's %.1e, vs G's %.1e; nu_t g_xy vs c G's %.1e, "
		       "vs G's %.1e (nu_t = %.3g m^2/s)\n", kernel ? "wendland" : "cubic", nb, n, cm,
		       egc, eg, etc, et, enuc, enu, nut);
		result_free(&r);
	}
	tide_block_free_host(mem, cap);
}

/* tau / rho^2 = A(x) = A0 + B x, component k: A0[k] + sum_b B[k][b] x_b */
static const double A0[6] = {2e-3, -1e-3, 5e-4, 1e-3, 3e-4, -2e-3};
static const double AB[6][3] = {{0.02, 0.01, -0.01}, {0.03, -0.02, 0.01}, {-0.01, 0.02, 0.04},
                                {0.01, -0.03, 0.02}, {0.02, 0.01, -0.02}, {-0.02, 0.01, 0.03}};

static void stress(int kernel)
{
	tide_case c;
	void *mem;
	uint32_t cap;
	tide_block_view v = lattice_case(kernel, 0, &c, &mem, &cap);
	float *t[6] = TIDE_SPS_TAU_PTRS(v);
	for (uint32_t i = 0; i < v.count; i++) {
		double p[3] = {v.x[i], v.y[i], v.z[i]};
		for (int k = 0; k < 6; k++) t[k][i] = (float)(A0[k] + AB[k][0] * p[0] + AB[k][1] * p[1] + AB[k][2] * p[2]);
	}
	/* a_a = rho0 sum_b dA_ab / dx_b, A symmetric */
	double ex[3] = {0, 0, 0}, amax = 0, h = c.coefh * DP;
	for (int k = 0; k < 6; k++) {
		int a = CA[k], b = CB[k];
		ex[a] += 1000.0 * AB[k][b];
		if (a != b) ex[b] += 1000.0 * AB[k][a];
	}
	for (int a = 0; a < 3; a++) amax = fmax(amax, fabs(ex[a]));
	result r;
	result_alloc(&r, v.count);
	int ok = run(&c, &v, 3, TIDE_WHERE_CPU, &r) == 0;
	EXPECT(ok, "stress %s: the run failed", kernel ? "wendland" : "cubic");
	double e = 0;
	int n = 0;
	for (uint32_t i = 0; ok && i < v.count; i++) {
		if (!interior(&v, i, 2 * h + DP)) continue;
		n++;
		for (int a = 0; a < 3; a++) e = fmax(e, fabs(r.acc[a][i] - ex[a]) / amax);
	}
	EXPECT(n > 100 && e < 1e-2, "stress %s: acceleration off rho0 div A = (%.3g, %.3g, %.3g) by %.3g "
	       "of its magnitude (limit 1 %%, %d particles)", kernel ? "wendland" : "cubic", ex[0],
	       ex[1], ex[2], e, n);
	printf("stress %-8s: %d interior particles, acceleration vs rho0 div A = (%.1f, %.1f, %.1f) "
	       "m/s^2: %.1e\n", kernel ? "wendland" : "cubic", n, ex[0], ex[1], ex[2], e);
	result_free(&r);
	tide_block_free_host(mem, cap);
}

static double maxdiff(const float *a, const float *b, uint32_t n, double *scale)
{
	double d = 0, s = 0;
	for (uint32_t i = 0; i < n; i++) {
		d = fmax(d, fabs((double)a[i] - b[i]));
		s = fmax(s, fabs((double)a[i]));
	}
	*scale = s;
	return s > 0 ? d / s : d;
}

/* Largest relative difference of two results over accelerations, drho, tau and gradient; what
 * names the worst field. */
static double compare(const result *x, const result *y, const char **what)
{
	static const char *names[] = {"ax", "ay", "az", "drho", "tau_xx", "tau_xy", "tau_xz", "tau_yy",
	                              "tau_yz", "tau_zz", "g_xx", "g_xy", "g_xz", "g_yy", "g_yz", "g_zz"};
	const float *fx[16], *fy[16];
	for (int d = 0; d < 3; d++) { fx[d] = x->acc[d]; fy[d] = y->acc[d]; }
	fx[3] = x->drho; fy[3] = y->drho;
	for (int k = 0; k < 6; k++) {
		fx[4 + k] = x->tau[k]; fy[4 + k] = y->tau[k];
		fx[10 + k] = x->grad[k]; fy[10 + k] = y->grad[k];
	}
	double worst = 0, s;
	*what = names[0];
	for (int f = 0; f < 16; f++) {
		double d = maxdiff(fx[f], fy[f], x->n, &s);
		if (d > worst) { worst = d; *what = names[f]; }
	}
	return worst;
}

/* floating: the floor's upper layer is a floating body under mDBC, moved 0.3 dp down into the
 * lower (fixed) layer and given random velocities: each of its particles overlaps the one below
 * it (r = 0.7 dp), whose contact force (sph_pair.h) is then its acceleration's bulk. */
static void random_field(int kernel, int have_cuda, int floating)
{
	tide_case c;
	void *mem;
	uint32_t cap;
	if (floating) { /* the halos carry the ids: before any block exists */
		make_case(&c, kernel, 1);
		c.nfloating = 1;
		c.motion.nbody = 1;
		c.motion.body[0].rigid = 1;
		tide_sim_set_aux(&c);
	}
	tide_block_view v = lattice_case(kernel, 1, &c, &mem, &cap);
	uint32_t nfl = 0;
	if (floating) {
		c.boundary = TIDE_BOUNDARY_MDBC;
		/* mDBC blocks are at least 3 cells wide (their halos' depth, include/tide/case.h):
		 * room along x for 3 of them beyond the lattice */
		c.domain.hi[0] = 0.3;
		for (uint32_t i = 0; i < v.count; i++) nfl += v.type[i] != TIDE_FLUID && v.z[i] > -DP;
		c.nfloating = 1;
		c.motion.nbody = 1;
		c.motion.body[0].rigid = 1;
		c.motion.body[0].id0 = v.count - nfl;
		c.motion.body[0].id1 = v.count;
		for (uint32_t i = 0, a = 0, b = 0; i < v.count; i++) {
			if (v.type[i] != TIDE_FLUID && v.z[i] > -DP) {
				v.id[i] = v.count - nfl + a++;
				v.z[i] -= 0.3 * DP;
				v.vx[i] = (float)(0.2 * (urand() - 0.5));
				v.vy[i] = (float)(0.2 * (urand() - 0.5));
				v.vz[i] = (float)(0.2 * (urand() - 0.5));
			} else {
				v.id[i] = b++;
			}
		}
	}
	float *t[6] = TIDE_SPS_TAU_PTRS(v);
	for (uint32_t i = 0; i < v.count; i++) {
		if (v.type[i] != TIDE_FLUID) continue;
		v.x[i] += 0.2 * DP * (urand() - 0.5);
		v.z[i] += 0.2 * DP * (urand() - 0.5);
		v.vx[i] = (float)(0.2 * (urand() - 0.5));
		v.vy[i] = (float)(0.2 * (urand() - 0.5));
		v.vz[i] = (float)(0.2 * (urand() - 0.5));
		v.rho[i] = v.rho1[i] = (float)(1000 + 4 * (urand() - 0.5));
		for (int k = 0; k < 6; k++) t[k][i] = (float)(1e-3 * (urand() - 0.5));
	}
	const char *kn = floating ? (kernel ? "wendland, floating layer in contact (mDBC)" :
	                                      "cubic, floating layer in contact (mDBC)")
	                          : kernel ? "wendland" : "cubic";
	result r1, r3;
	result_alloc(&r1, v.count);
	result_alloc(&r3, v.count);
	int ok = run(&c, &v, 1, TIDE_WHERE_CPU, &r1) == 0 && run(&c, &v, 3, TIDE_WHERE_CPU, &r3) == 0;
	EXPECT(ok, "random %s: the runs failed", kn);
	const char *what = "-";
	double d13 = ok ? compare(&r1, &r3, &what) : 1;
	EXPECT(d13 < 1e-5, "random %s: 1 and 3 blocks differ by %.3g in %s (limit 1e-5): the halos "
	       "lack tau?", kn, d13, what);
	int bz = 0;
	for (uint32_t i = 0; ok && i < v.count; i++)
		for (int k = 0; k < 6 && v.type[i] == TIDE_BOUND; k++)
			bz += r1.tau[k][v.id[i]] != 0.f || r1.grad[k][v.id[i]] != 0.f;   /* by id */
	EXPECT(bz == 0, "random %s: %d boundary tau or gradient values are not zero", kn, bz);
	if (floating && ok) {
		/* the contact with the particle below: kc (dp - 0.7 dp) up, kc = (c0 / dp)^2, give or
		 * take the dashpot (gc |v| < 2 c0 / dp 0.1 m/s = 3 % of it) and the fluid's terms */
		double kc = c.c0 * c.c0 / (DP * DP), up = kc * 0.3 * DP, worst = 0;
		for (uint32_t id = v.count - nfl; id < v.count; id++)
			worst = fmax(worst, fabs(r1.acc[2][id] / up - 1));
		EXPECT(worst < 0.1, "random %s: a floating particle's az is %.3g off the contact's "
		       "kc 0.3 dp = %.4g m/s^2", kn, worst, up);
		printf("random %s: floating az within %.3f of the contact's %.4g m/s^2\n", kn, worst, up);
	}
	printf("random %-8s: 1 vs 3 blocks %.1e; boundary particles' tau and gradient zero\n", kn, d13);
	for (int nb = 1; have_cuda && ok && nb <= 3; nb += 2) {
		result rg;
		result_alloc(&rg, v.count);
		int okg = run(&c, &v, nb, TIDE_WHERE_CUDA, &rg) == 0;
		EXPECT(okg, "random %s: the CUDA run failed", kn);
		const result *ref = nb == 1 ? &r1 : &r3;
		double d = okg ? compare(ref, &rg, &what) : 1;
		double ddt = fabs(rg.dt - ref->dt) / ref->dt;
		EXPECT(d < 1e-5, "random %s %d blocks: CUDA differs from the CPU by %.3g in %s (limit "
		       "1e-5 of the largest)", kn, nb, d, what);
		EXPECT(ddt < 1e-5, "random %s %d blocks: CUDA time step %.6g, CPU %.6g", kn, nb, rg.dt,
		       ref->dt);
		printf("    CUDA vs CPU, %d block(s): %.1e (worst: %s), dt %.1e\n", nb, d, what, ddt);
		result_free(&rg);
	}
	result_free(&r1);
	result_free(&r3);
	tide_block_free_host(mem, cap);
}

int main(int argc, char **argv)
{
	int have_cuda = test_cuda_requested(argc, argv);
	if (starpu_init(NULL) != 0) { fprintf(stderr, "StarPU init failed\n"); return 77; }
	if (have_cuda && test_cuda_missing("sps_cuda")) { starpu_shutdown(); return TEST_SKIP; }
	tide_case c0;
	make_case(&c0, 0, 0);
	tide_sim_set_aux(&c0); /* laminar+sps: 12 aux fields, before any block exists */
	for (int kernel = 0; kernel < 2; kernel++) {
		if (!have_cuda) {
			strain(kernel);
			stress(kernel);
		}
		random_field(kernel, have_cuda, 0);
		random_field(kernel, have_cuda, 1);
		tide_sim_set_aux(&c0);
	}
	starpu_shutdown();
	if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
	printf("sps: all checks passed%s\n", have_cuda ? " (CUDA = CPU)" : "");
	return 0;
}
