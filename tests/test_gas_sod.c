// SPDX-License-Identifier: LGPL-2.1-or-later
// The gas scheme (physics.scheme: gas; include/tide/gas_math.h) on Sod's shock tube in 3-D,
// against the exact solution of the Riemann problem.
//
// Sod (1978): left rho = 1, p = 1, right rho = 0.125, p = 0.1, both at rest, gamma = 1.4, the
// interface at z = 0; compared at t = 0.2 (the first step past it).  The tube runs along z
// (tide's periodic axes are x and y: the tube's cross-section is periodic, 12 x 12 left-state
// spacings), particles of equal mass on cubic lattices of spacing a = 1/80 on the left and 2a
// on the right.  The three lattice layers at each end of the tube (more than the kernel's
// support) are fixed gas particles (type boundary: gas_density and gas_forces read them as
// neighbours with their initial state and never move them), so the tube's ends hold the initial
// states, which is the exact solution there until t = 0.2 (the rarefaction's head reaches
// z = -0.24, the shock z = 0.35; the tube is [-0.5, 0.5]).
//
// The exact solver (tests/riemann_exact.h, independent of the SPH code) is checked first against
// Toro's table 4.2 for Sod's problem (p* = 0.30313, u* = 0.92745).  Asserted: the L1 errors (mean over the moving particles with -0.45 < z < 0.45
// of |q_SPH - q_exact(z, t)|) of density, velocity and pressure below the bounds BOUND_*, about
// 1.3x the errors measured (density 0.0254, velocity 0.0452, pressure 0.0261 at a = 1/80); the
// shock's position (the largest z with rho > 0.2) within 3a of the exact one (measured 1.6a
// behind); the total energy of the moving particles (kinetic + internal; the fixed ones are at
// rest and do no work) conserved within 1e-4.
// Known limits, from the profiles (TIDE_SOD_PROFILE=FILE writes z, rho, v, p, the exact three
// and h of every particle): the right star state and the shock are right (p 0.30, v 0.93, rho
// 0.26), but next to the rarefaction's tail the left star state is 25 % too dense and slow over
// about 6h (rho 0.535, v 0.76 where the exact one has 0.426, 0.927), and the contact is smeared
// by the conductivity.  The lattices matter: with the right lattice's columns between the left
// one's (not moved across, src/gas_ic.c) the contact layer interpenetrates and the whole left star
// state stays at rho 0.49, p 0.39 at a = 1/40 and 1/80 alike; with equal densities on both sides
// (one lattice, SOD_RHOR=1) the plateau converges at first order (L1 velocity 0.040 -> 0.020,
// pressure 0.040 -> 0.022 from a = 1/40 to 1/80).  A relaxed glass on both sides (issue 23) is
// the cure.  SOD_N (1/a), SOD_RHOR, SOD_AC, SOD_AV (alpha_cond, alpha_visc) are there to study it.
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
#include "riemann_exact.h"

static int failures;
#define EXPECT(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

/* ---- the SPH run ---- */
static double A_SP = 1.0 / 80;   /* left-state spacing */
#define NT 12             /* left-state spacings across the tube */
#define GAMMA 1.4
#define T_END 0.2
#define BOUND_RHO 0.033
#define BOUND_V 0.058
#define BOUND_P 0.034

static void make_case(tide_case *c)
{
	test_gas_case(c, "sod", A_SP, 2.5 * A_SP, 0.6); /* the right state's h is 2.4 a */
	c->gas.eos = TIDE_GAS_IDEAL;
	c->gas.gamma = GAMMA;
	c->periodic = 3;            /* x and y: the tube's cross-section */
	c->domain.lo[0] = c->domain.lo[1] = 0;
	c->domain.hi[0] = c->domain.hi[1] = NT * A_SP;
	c->t_end = c->t_out = T_END;
}

int main(int argc, char **argv)
{
	(void)argc; (void)argv;
	/* the exact solver first: Toro's table 4.2, test 1 (Sod) */
	state L = {1, 0, 1}, R = {0.125, 0, 0.1};
	double ps, us;
	star(&L, &R, GAMMA, &ps, &us);
	printf("exact solver: p* = %.5f (Toro 0.30313), u* = %.5f (Toro 0.92745)\n", ps, us);
	EXPECT(fabs(ps - 0.30313) < 2e-5 && fabs(us - 0.92745) < 2e-5, "exact solver: p* %g u* %g", ps, us);

	if (getenv("SOD_N")) A_SP = 1.0 / atof(getenv("SOD_N"));
	if (starpu_init(NULL) != 0) { fprintf(stderr, "StarPU init failed\n"); return 77; }
	tide_case c;
	make_case(&c);
	if (getenv("SOD_AC")) c.gas.alpha_cond = atof(getenv("SOD_AC"));
	if (getenv("SOD_AV")) c.gas.alpha_visc = atof(getenv("SOD_AV"));
	tide_sim_set_aux(&c); /* the gas fields, before any block exists */
	if (getenv("SOD_RHOR")) R.rho = atof(getenv("SOD_RHOR"));
	tide_gas_tube tube = {.axis = 2, .lo = {0, 0, -0.5}, .hi = {NT * A_SP, NT * A_SP, 0.5},
	                      .x0 = 0, .rho = {1, R.rho}, .p = {1, 0.1}, .vel = {0, 0},
	                      .m = A_SP * A_SP * A_SP, .gamma = GAMMA, .eta = 1.2,
	                      .fixed = 3}; /* the three end layers of each state are fixed */
	void *mem = NULL;
	tide_block_view all;
	if (tide_gas_ic_alloc(tide_gas_ic_shock_tube(&tube, NULL), 0, &mem, &all)) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	tide_gas_ic_shock_tube(&tube, &all);
	uint32_t n = all.count;
	double e_init = 0;
	for (uint32_t i = 0; i < all.count; i++)
		if (all.type[i] == TIDE_FLUID) e_init += tube.m * all.TIDE_GAS_U[i];
	int nblocks = argc > 1 && atoi(argv[1]) > 0 ? atoi(argv[1]) : 1;
	tide_sim sim;
	if (tide_sim_setup(&sim, &c, &all, nblocks, tide_runtime_uses_mpi())) return 1;
	printf("sod: %u particles, %d blocks, h_max %.4g, cell %.4g\n", n, sim.nblocks,
	       (double)sim.P.gas.h_max, (double)sim.P.grid.cell);
	double m = tube.m;
	int bad = 0;
	for (int step = 0; sim.t < T_END && !bad; step++) {
		bad = tide_sim_step(&sim);
		if (step % 20 == 0) printf("  step %ld t %.4f dt %.3g rho [%.3g, %.3g]\n", sim.step, sim.t,
		                           (double)sim.last.dt, (double)sim.last.rho_min,
		                           (double)sim.last.rho_max);
	}
	EXPECT(!bad, "the run went unphysical");
	void *gm = NULL;
	tide_block_view g;
	EXPECT(tide_sim_gather(&sim, 0, &gm, &g) == 0 && g.count == n, "gather");
	star(&L, &R, GAMMA, &ps, &us);
	double l1[3] = {0, 0, 0}, zshock = -1, ek = 0, eu = 0;
	int cnt = 0;
	for (uint32_t i = 0; i < g.count; i++) {
		if (g.type[i] != TIDE_FLUID) continue;
		double z = g.z[i], rho = g.rho[i], u = g.TIDE_GAS_U[i], p = (GAMMA - 1) * rho * u;
		ek += 0.5 * m * ((double)g.vx[i] * g.vx[i] + (double)g.vy[i] * g.vy[i] + (double)g.vz[i] * g.vz[i]);
		eu += m * u;
		if (rho > 0.2 && z > zshock) zshock = z;
		if (fabs(z) >= 0.45) continue;
		state e = sample(&L, &R, GAMMA, ps, us, z / sim.t);
		l1[0] += fabs(rho - e.rho);
		l1[1] += fabs(g.vz[i] - e.u);
		l1[2] += fabs(p - e.p);
		cnt++;
	}
	for (int k = 0; k < 3; k++) l1[k] /= cnt;
	if (getenv("TIDE_SOD_PROFILE")) { /* the profile in bins of a, against the exact one */
		FILE *pf = fopen(getenv("TIDE_SOD_PROFILE"), "w");
		for (uint32_t i = 0; pf && i < g.count; i++) {
			state e = sample(&L, &R, GAMMA, ps, us, g.z[i] / sim.t);
			fprintf(pf, "%g %g %g %g %g %g %g %g\n", g.z[i], (double)g.rho[i], (double)g.vz[i],
			        (GAMMA - 1) * g.rho[i] * g.TIDE_GAS_U[i], e.rho, e.u, e.p,
			        (double)g.TIDE_GAS_H[i]);
		}
		if (pf) fclose(pf);
	}
	double c_sh = sqrt(GAMMA * R.p / R.rho);
	double s_sh = c_sh * sqrt((GAMMA + 1) / (2 * GAMMA) * ps / R.p + (GAMMA - 1) / (2 * GAMMA));
	printf("sod at t = %.4f (%ld steps): L1 errors over %d particles: density %.4f (bound %g), "
	       "velocity %.4f (bound %g), pressure %.4f (bound %g); shock at z = %.4f, exact %.4f\n",
	       sim.t, sim.step, cnt, l1[0], BOUND_RHO, l1[1], BOUND_V, l1[2], BOUND_P, zshock,
	       s_sh * sim.t);
	printf("energies: kinetic %.6f internal %.6f total %.6f, initially %.6f\n", ek, eu, ek + eu, e_init);
	EXPECT(fabs(ek + eu - e_init) < 1e-4 * e_init, "energy %g, initially %g", ek + eu, e_init);
	EXPECT(l1[0] < BOUND_RHO, "L1 density %g", l1[0]);
	EXPECT(l1[1] < BOUND_V, "L1 velocity %g", l1[1]);
	EXPECT(l1[2] < BOUND_P, "L1 pressure %g", l1[2]);
	EXPECT(fabs(zshock - s_sh * sim.t) < 3 * A_SP, "shock at %g, exact %g", zshock, s_sh * sim.t);
	free(gm);
	tide_sim_free(&sim);
	tide_block_free_host(mem, all.cap);
	starpu_shutdown();
	if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
	printf("gas_sod: all checks passed\n");
	return 0;
}
