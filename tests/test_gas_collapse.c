// SPDX-License-Identifier: LGPL-2.1-or-later
// The gas scheme with self-gravity: the isothermal top-hat collapse (issue 23), and what the
// adaptive neighbour search (include/tide/gas_math.h, "Neighbours") gains on its collapsed state.
//
// A uniform sphere, mass M = 1, radius R = 1, G = 1 (rho0 = 3 / (4 pi)), at rest, isothermal
// with cs = 0.05: its thermal energy 3/2 M cs^2 = 0.0038 is 0.6 % of |W| = 3/5 G M^2 / R, so it
// falls almost freely.  A pressureless uniform sphere stays uniform and every shell reaches the
// centre at once, at the free-fall time t_ff = sqrt(3 pi / (32 G rho0)) = pi / (2 sqrt 2) =
// 1.1107; its radius follows the cycloid r = R cos^2 b, t = t_ff (b + sin b cos b) / (pi / 2),
// so its density passes 10^3 rho0 (r = R / 10) at t = 0.986 t_ff and diverges at t_ff.  The
// time t_1000 at which the largest density first reaches 10^3 rho0 therefore measures t_ff: it
// falls within a few per cent of t_ff exactly when the collapse runs at the free-fall rate (a
// gravity 10 % too weak would delay it by 5 %; pressure, the softening or a lagging h field
// would slow the core).  The lattice (about 3000 particles), Barnes-Hut gravity (theta 0.5,
// quadrupoles, Plummer softening 0.005) and SPH smoothing make the edge and the centre differ a
// little from the ideal sphere.
// Asserted:
//  - the largest density reaches 10^3 rho0, at t_1000 within 5 % of t_ff;
//  - h follows the density: the densest 1 % of the particles have h = eta (m / rho)^(1/3)
//    within 0.1 % (the h iteration converged in the deep search), and h fell at least 8x;
//  - the forces' search finds every pair: the bound max(h_i, reach map of its cell) that
//    gas_forces searches to is at least the reach H_i = max(h_i, h_j with r_ij < 2 h_j) of a
//    brute-force search over all pairs, for every particle (gas_math.h "Neighbours").
// Printed (the point of the adaptive search): candidates tested per particle by a density
// evaluation and a force evaluation on the collapsed state, with cells of side 2 h_max (the
// search before issue 23's neighbour work: 27 cells around every particle) and with the run's
// cells of side 2 h_cell searched to each particle's own support and reach, at the uniform
// start and at 10^3 rho0.
// Measured: see the commit that added this test and docs/case-format.md "The gas scheme".
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/case.h"
#include "tide/gas_math.h"
#include "tide/sph_sim.h"
#include "case_load.h"
#include "gas_ic.h"
#include "runtime.h"
#include "test_gas_case.h"

static int failures;
#define EXPECT(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

#define NLAT 20          /* lattice points across the diameter: about 4200 in the sphere */
#define ETA 1.2
#define CS 0.05
#define H_MAX 0.3        /* the edge's h (about 0.2) with room */
#define CELL_FRAC 0.1    /* h_cell = CELL_FRAC x the initial h: the h at 10^3 rho0 */

static void make_case(tide_case *c, double a, double rho, double h_cell)
{
	test_gas_case(c, "collapse", a, H_MAX, 1.3);
	c->rho0 = rho; /* m = rho0 dp^3: the lattice's density */
	c->gas.eos = TIDE_GAS_ISOTHERMAL;
	c->gas.cs = CS;
	c->gas.eta = ETA;
	c->gas.h_cell = h_cell;
	c->cfl = 0.1;
	test_gas_self_gravity(c, 0.005);
}

/* ---- a host copy of the gathered particles, cell-sorted on a grid: one block, no halos ---- */
typedef struct sorted {
	double *x, *y, *z;
	float *vx, *vy, *vz, *rho, *h, *u, *one;
	uint8_t *type;
	uint32_t *key, *start, n;
	float *M; /* the reach map (gas_math.h), reach_map */
	tide_block_arg A;
	tide_gas_src s;
} sorted;

static const tide_grid *sort_grid;
static const tide_block_view *sort_v;
static uint32_t key_of(uint32_t i)
{
	int c[3];
	tide_cell_of(sort_grid, sort_v->x[i], sort_v->y[i], sort_v->z[i], c);
	return tide_cell_key(sort_grid, c);
}
static int by_key(const void *a, const void *b)
{
	uint32_t ka = key_of(*(const uint32_t *)a), kb = key_of(*(const uint32_t *)b);
	return ka < kb ? -1 : ka > kb;
}

static void sort_on(const tide_grid *g, const tide_block_view *v, sorted *S)
{
	uint32_t n = v->count, *ord = malloc(sizeof *ord * n);
	uint32_t ncell = (uint32_t)g->n[0] * (uint32_t)g->n[1] * (uint32_t)g->n[2];
	S->n = n;
	S->x = malloc(sizeof(double) * n); S->y = malloc(sizeof(double) * n); S->z = malloc(sizeof(double) * n);
	float **f[] = {&S->vx, &S->vy, &S->vz, &S->rho, &S->h, &S->u, &S->one};
	for (int k = 0; k < 7; k++) *f[k] = malloc(sizeof(float) * n);
	S->type = malloc(sizeof *S->type * n);
	S->key = malloc(sizeof(uint32_t) * n);
	S->start = calloc(ncell + 1, sizeof(uint32_t));
	if (!ord || !S->start) abort();
	for (uint32_t i = 0; i < n; i++) ord[i] = i;
	sort_grid = g;
	sort_v = v;
	qsort(ord, n, sizeof *ord, by_key);
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = ord[k];
		S->x[k] = v->x[i]; S->y[k] = v->y[i]; S->z[k] = v->z[i];
		S->vx[k] = v->vx[i]; S->vy[k] = v->vy[i]; S->vz[k] = v->vz[i];
		S->rho[k] = v->rho[i]; S->h[k] = v->TIDE_GAS_H[i]; S->u[k] = v->TIDE_GAS_U[i];
		S->one[k] = 1.f;
		S->type[k] = TIDE_FLUID;
		S->key[k] = key_of(i);
		S->start[S->key[k] + 1]++;
	}
	for (uint32_t c = 0; c < ncell; c++) S->start[c + 1] += S->start[c];
	/* the whole grid is the block: its box index is the global key */
	S->A = (tide_block_arg){0, g->n[g->axis[0]], 0, g->n[g->axis[1]], 0, g->n[g->axis[2]], 0};
	/* 1/Omega, the switch and the masses: 1 (only the candidates are counted here) */
	S->s = (tide_gas_src){.x = S->x, .y = S->y, .z = S->z, .vx = S->vx, .vy = S->vy, .vz = S->vz,
	                      .rho = S->rho, .h = S->h, .u = S->u, .fgrad = S->one, .bal = S->one,
	                      .m = S->one, .type = S->type, .key = S->key, .count = n};
	S->M = NULL;
	free(ord);
}

/* The reach map of the sorted particles, as gas_forces makes it. */
static void reach_map(const tide_sph_params *P, sorted *S)
{
	S->M = calloc(tide_box_ncell(&S->A), sizeof(float));
	if (!S->M) abort();
	for (uint32_t j = 0; j < S->n; j++) {
		double x[3] = {S->x[j], S->y[j], S->z[j]};
		tide_gas_reach_stamp(P, &S->A, x, S->h[j], S->M);
	}
}

static void sorted_free(sorted *S)
{
	void *p[] = {S->x, S->y, S->z, S->vx, S->vy, S->vz, S->rho, S->h, S->u, S->one, S->type,
	             S->key, S->start, S->M};
	for (size_t k = 0; k < sizeof p / sizeof *p; k++) free(p[k]);
}

static tide_gas_ival ival_of(const sorted *S, uint32_t i)
{
	tide_gas_ival I;
	memset(&I, 0, sizeof I);
	I.x[0] = S->x[i]; I.x[1] = S->y[i]; I.x[2] = S->z[i];
	I.v[0] = S->vx[i]; I.v[1] = S->vy[i]; I.v[2] = S->vz[i];
	I.h = S->h[i];
	I.rho = S->rho[i];
	return I;
}

/* Candidates particle i tests in one density evaluation (at its h) and one force evaluation,
 * as the codelets search with P's grid and S's reach map.  old: the search before the adaptive
 * one (radius 2 h_max everywhere). */
static void candidates(const tide_sph_params *P, const sorted *S, uint32_t i, int old,
                       double *dens, double *forces)
{
	tide_gas_ival I = ival_of(S, i);
	tide_gas_sums s;
	tide_gas_sums_zero(&s);
	float r = old ? 2.f * P->gas.h_max : 2.f * I.h;
	tide_gas_gather(P, &S->A, S->start, &S->s, NULL, 0, &I, r, TIDE_GAS_PASS_DENSITY, &s);
	*dens += s.ncand;
	float reach = old ? P->gas.h_max : tide_gas_reach_of(P, &S->A, S->M, &I);
	tide_gas_sums_zero(&s);
	tide_gas_gather(P, &S->A, S->start, &S->s, NULL, 0, &I, 2.f * reach, TIDE_GAS_PASS_FORCES, &s);
	*forces += s.ncand;
}

/* A grid like g's with cells of side 2 hc and one halo layer (the same origin). */
static tide_grid grid_with_cell(const tide_grid *g, const tide_sph_params *P, double hc)
{
	tide_grid q = *g;
	q.cell = (float)(2.0 * hc);
	q.inv_cell = 1.0 / (2.0 * hc);
	q.halo = 1;
	for (int d = 0; d < 3; d++) q.n[d] = (int)ceil((P->dom_hi[d] - P->dom_lo[d]) / (2.0 * hc));
	q.plane = (uint32_t)q.n[q.axis[1]] * (uint32_t)q.n[q.axis[2]];
	return q;
}

/* Candidates per particle of state g (sorted on P's grid in S, its reach map made) for the
 * densest (rho >= cut, nd of them) and all: with cells of side 2 h_max and 27 of them (the
 * search before), and with P's cells. */
static void print_candidates(const tide_sph_params *P, const sorted *S,
                             const tide_block_view *g, float cut, int nd)
{
	uint32_t n = g->count;
	/* candidates per particle: the densest 1 % and all */
	tide_sph_params Q = *P;
	Q.grid = grid_with_cell(&P->grid, P, P->gas.h_max);
	sorted O;
	sort_on(&Q.grid, g, &O);
	/* [before / now][dense / all][density / forces] */
	double c[2][2][2] = {{{0}}};
	for (int k = 0; k < 2; k++)
		for (uint32_t i = 0; i < n; i++) {
			const sorted *T = k ? S : &O;
			int dense = T->rho[i] >= cut;
			double d = 0, f = 0;
			candidates(k == 0 ? &Q : P, T, i, k == 0, &d, &f);
			c[k][1][0] += d; c[k][1][1] += f;
			if (dense) { c[k][0][0] += d; c[k][0][1] += f; }
		}
	printf("collapse: candidates tested per particle (one density evaluation / one force "
	       "evaluation)%s:\n", nd ? ", the densest 1 % and all" : "");
	for (int k = 0; k < 2; k++) {
		char what[96], dense[64] = "";
		if (k) snprintf(what, sizeof what, "cells of side 2 h_cell = %.4g, own supports",
		                (double)P->grid.cell);
		else snprintf(what, sizeof what, "cells of side 2 h_max = %.4g (27 around each)",
		              2.0 * P->gas.h_max);
		if (nd) snprintf(dense, sizeof dense, "%.0f / %.0f, ", c[k][0][0] / nd, c[k][0][1] / nd);
		printf("  %-50s %s%.0f / %.0f\n", what, dense, c[k][1][0] / n, c[k][1][1] / n);
	}
	sorted_free(&O);
}

/* The collapsed state: h against the density, the reach against a brute-force search, and the
 * candidates per particle with the old and the adaptive search. */
static void examine(const tide_sim *sim, const tide_block_view *g, double m, double h0)
{
	const tide_sph_params *P = &sim->P;
	uint32_t n = g->count;
	/* the densest 1 % */
	float *r = malloc(sizeof(float) * n);
	for (uint32_t i = 0; i < n; i++) r[i] = g->rho[i];
	float cut = 0;
	{
		/* the (n / 100)-th largest density, by a partial selection */
		uint32_t k = n / 100 > 0 ? n / 100 : 1;
		for (uint32_t s = 0; s < k; s++) {
			uint32_t best = s;
			for (uint32_t j = s + 1; j < n; j++)
				if (r[j] > r[best]) best = j;
			float t = r[s]; r[s] = r[best]; r[best] = t;
		}
		cut = r[k - 1];
	}
	free(r);
	double herr = 0, hmean = 0, rhomean = 0;
	int nd = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (g->rho[i] < cut) continue;
		double want = ETA * cbrt(m / g->rho[i]), e = fabs(g->TIDE_GAS_H[i] / want - 1);
		if (e > herr) herr = e;
		hmean += g->TIDE_GAS_H[i];
		rhomean += g->rho[i];
		nd++;
	}
	hmean /= nd;
	rhomean /= nd;
	printf("collapse: the densest %d particles: mean rho %.4g, mean h %.4g = h0 / %.1f, "
	       "max |h / (eta (m/rho)^(1/3)) - 1| %.2e\n", nd, rhomean, hmean, h0 / hmean, herr);
	EXPECT(herr < 1e-3, "h of the densest particles off eta (m/rho)^(1/3) by %.3g", herr);
	EXPECT(hmean < h0 / 8, "h of the densest particles fell only %.2fx", h0 / hmean);

	sorted S;
	sort_on(&P->grid, g, &S);
	/* the reach, brute force, against the reach map's bound */
	uint32_t miss = 0;
	double bound = 0, worst = 0;
	reach_map(P, &S);
	for (uint32_t i = 0; i < n; i++) {
		tide_gas_ival I = ival_of(&S, i);
		float H = I.h;
		for (uint32_t j = 0; j < n; j++) {
			float hj = S.h[j];
			if (!(hj > H)) continue;
			float dx[3] = {(float)(I.x[0] - S.x[j]), (float)(I.x[1] - S.y[j]), (float)(I.x[2] - S.z[j])};
			if (dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2] < 4.f * hj * hj) H = hj;
		}
		float got = tide_gas_reach_of(P, &S.A, S.M, &I);
		bound += got / H;
		if (got / H > worst) worst = got / H;
		if (got < H && miss++ < 2)
			printf("collapse: particle at (%.4f %.4f %.4f) h %.4g: reach bound %.4g, brute force "
			       "%.4g\n", I.x[0], I.x[1], I.x[2], (double)I.h, (double)got, (double)H);
	}
	printf("collapse: the forces' reach H_i = max(h_i, h_j with r_ij < 2 h_j) of %u particles "
	       "against a brute-force search: the reach map's bound is below it for %u, mean bound / "
	       "H_i %.3f, largest %.2f\n", n, miss, bound / n, worst);
	EXPECT(miss == 0, "%u particles' reach bound is below the brute-force reach", miss);
	print_candidates(P, &S, g, cut, nd);
	sorted_free(&S);
}

int main(int argc, char **argv)
{
	int nblocks = argc > 1 && atoi(argv[1]) > 0 ? atoi(argv[1]) : 2;
	if (starpu_init(NULL) != 0) { fprintf(stderr, "StarPU init failed\n"); return 77; }
	const double R = 1.0, M = 1.0, rho0 = 3.0 * M / (4.0 * M_PI * R * R * R);
	const double tff = sqrt(3.0 * M_PI / (32.0 * rho0)), a = 2.0 * R / NLAT, h0 = ETA * a;
	tide_case c;
	make_case(&c, a, rho0, CELL_FRAC * h0);
	tide_sim_set_aux(&c); /* the aux fields first: the block is allocated with them */
	int nmax = NLAT * NLAT * NLAT;
	void *mem = tide_block_alloc_host((uint32_t)nmax);
	if (!mem) return 1;
	tide_block_view all = tide_block_view_make(mem, (uint32_t)nmax, 0);
	for (int i = 0; i < NLAT; i++)
		for (int j = 0; j < NLAT; j++)
			for (int k = 0; k < NLAT; k++) {
				double p[3] = {-R + (i + 0.5) * a, -R + (j + 0.5) * a, -R + (k + 0.5) * a}, v0[3] = {0, 0, 0};
				if (p[0] * p[0] + p[1] * p[1] + p[2] * p[2] < R * R) tide_gas_ic_push(&all, p, v0, rho0, 0, 0, h0); /* m below */
			}
	uint32_t n = all.count;
	double m = M / n;
	make_case(&c, cbrt(m / rho0), rho0, CELL_FRAC * h0); /* m = rho0 dp^3 */
	for (uint32_t i = 0; i < n; i++) all.TIDE_GAS_MASS[i] = (float)m;
	tide_sim sim;
	if (tide_sim_setup(&sim, &c, &all, nblocks, tide_runtime_uses_mpi())) return 1;
	printf("collapse: %u particles of mass %.4g, %d blocks, rho0 %.4g, t_ff %.5f, cs %.3g "
	       "(thermal / |W| = %.4f), h0 %.4g, h_cell %.4g, halos %d cell layers\n", n, m,
	       sim.nblocks, rho0, tff, CS, 1.5 * M * CS * CS / (0.6 * M * M / R), h0,
	       (double)sim.P.grid.cell / 2, tide_halo_layers(&sim.P.grid));
	{
		/* the uniform start (h = h0 = eta dp, halos at full depth) */
		void *gm0 = NULL;
		tide_block_view g0;
		if (!tide_sim_gather(&sim, 0, &gm0, &g0)) {
			sorted S0;
			sort_on(&sim.P.grid, &g0, &S0);
			reach_map(&sim.P, &S0);
			printf("collapse: at the start (uniform, h = %.4g):\n", h0);
			print_candidates(&sim.P, &S0, &g0, 3e38f, 0);
			sorted_free(&S0);
			free(gm0);
		}
	}
	printf("       t    t/t_ff   steps   rho_max/rho0   h_max now   halo layers   halo particles "
	       "(per block: include/tide/gas_halo.h; TIDE_GAS_HALOS=global: one width)\n");
	double t1000 = -1, last_t = 0, last_r = rho0;
	int bad = 0, next = 1;
	while (!bad && sim.t < 1.1 * tff && t1000 < 0) {
		bad = tide_sim_step(&sim);
		double rmax = sim.last.rho_max;
		if (rmax >= 1000 * rho0 && t1000 < 0) /* the crossing, interpolated in log rho */
			t1000 = last_t + (sim.t - last_t) * log(1000 * rho0 / last_r) / log(rmax / last_r);
		last_t = sim.t;
		last_r = rmax;
		if (sim.t >= 0.1 * next * tff || t1000 >= 0) {
			uint64_t hn, hb;
			tide_sim_halo_stats(&sim, &hn, &hb);
			printf("%8.4f %8.4f %7ld %12.2f %11.4g %8d of %d %10llu (%.0f kB)\n", sim.t,
			       sim.t / tff, sim.step, rmax / rho0, (double)sim.last.hmax,
			       tide_halo_layers(&sim.P.grid), tide_halo_max(&sim.P.grid),
			       (unsigned long long)hn, hb / 1e3);
			fflush(stdout);
			while (0.1 * next * tff <= sim.t) next++;
		}
		double fill;
		tide_sim_count(&sim, &fill);
		if (fill > 0.75 && !bad) EXPECT(tide_sim_rebalance(&sim) == 0, "rebalance failed");
	}
	EXPECT(!bad, "the run went unphysical at t = %g", sim.t);
	/* the cycloid: r = R / 10 at b = acos(sqrt(0.1)) */
	double b = acos(sqrt(0.1)), t_cyc = tff * (b + sin(b) * cos(b)) / (M_PI / 2);
	printf("collapse: rho_max reached 10^3 rho0 at t = %.5f = %.4f t_ff (a pressureless uniform "
	       "sphere: %.4f t_ff), %ld steps\n", t1000, t1000 / tff, t_cyc / tff, sim.step);
	EXPECT(t1000 > 0, "rho_max %.4g rho0 at t = %.4g: never reached 10^3 rho0", last_r / rho0, sim.t);
	EXPECT(t1000 > 0 && fabs(t1000 / tff - 1) <= 0.05, "10^3 rho0 at %.4f t_ff, not within 5 %% of t_ff",
	       t1000 / tff);
	void *gm = NULL;
	tide_block_view g;
	if (!bad && !tide_sim_gather(&sim, 0, &gm, &g)) {
		EXPECT(g.count == n, "%u particles left the domain", n - g.count);
		examine(&sim, &g, m, h0);
		free(gm);
	}
	tide_sim_free(&sim);
	tide_block_free_host(mem, all.cap);
	starpu_shutdown();
	if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
	printf("gas_collapse: all checks passed\n");
	return 0;
}
