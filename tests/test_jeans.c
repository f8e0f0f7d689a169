// SPDX-License-Identifier: LGPL-2.1-or-later
// The Jeans resolution check (include/tide/jeans.h, codelet jeans_min) against hand
// computations: M_J = (pi^(5/2) / 6) c_s^3 / sqrt(G^3 rho) of the densest particle of an
// isothermal block in code units (c_s = 0.2, rho = 50: 3.29859e-3) and in cgs (20 K, mu = 2.3,
// rho = 1e-18 g/cm^3: c_s = 2.6784e4 cm/s, M_J = 3.24909e33 g = 1.63 solar masses, values from
// a separate calculation), N_ngb = 57.906 for eta = 1.2, the count of particles under the
// threshold, and an ideal gas whose least M_J is at a cold particle rather than the densest.
// Unequal masses: a block at one density whose particles are resolved by the rho0 dp^3 rule
// (every m taken as the light one's) while the heavy fifth of them are not by their own masses.
// Blocks of two tasks fold into one record in either order.  With --cuda (the test jeans_cuda)
// the CUDA codelet must give the CPU's record (q within 1e-6); without a CUDA worker it exits 77.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelet_decl.h"
#include "tide/codelets.h"
#include "tide/gas_math.h"
#include "tide/jeans.h"
#include "gas_ic.h"
#include "test_util.h"
#include "test_cuda_mode.h"

#define N 500

/* A block of N gas particles: density 1 + i / 20 (i = 0 .. N-1) with rho_top for the last,
 * specific energy u_of(i). */
static void *make_block(double rho_top, int varied_u, tide_block_view *v)
{
	void *mem = tide_block_alloc_host(N);
	*v = tide_block_view_make(mem, N, 0);
	for (int i = 0; i < N; i++) {
		double p[3] = {i * 0.01, 0, 0}, vel[3] = {0, 0, 0};
		double rho = i == N - 1 ? rho_top : 1.0 + i / 20.0;
		double u = varied_u ? (i == 7 ? 0.01 : 1.0 + 0.5 * sin(i)) : 1.0;
		tide_gas_ic_push(v, p, vel, rho, 1e-3, u, 0.1);
	}
	return mem;
}

/* The record of the block's two halves as two tasks (one record, RW | COMMUTE). */
static tide_jeans_min reduce(void *mem, const tide_gas_params *G, float q_res)
{
	tide_jeans_min r;
	tide_jeans_min_init(&r);
	starpu_data_handle_t R, B[2];
	starpu_variable_data_register(&R, STARPU_MAIN_RAM, (uintptr_t)&r, sizeof r);
	/* the same host block seen as two blocks: the first 200 and all 500 (the fold must give
	 * the whole block's minimum and count the first 200 twice) */
	tide_block_register(&B[0], STARPU_MAIN_RAM, mem, N, 200);
	tide_block_register(&B[1], STARPU_MAIN_RAM, mem, N, N);
	for (int b = 0; b < 2; b++) {
		int rc = starpu_task_insert(&tide_jeans_min_cl, STARPU_R, B[b], STARPU_RW | STARPU_COMMUTE, R,
		                            STARPU_VALUE, G, sizeof *G, STARPU_VALUE, &q_res, sizeof q_res, 0);
		CHECK(rc == 0, "task insert: %d", rc);
	}
	starpu_task_wait_for_all();
	for (int b = 0; b < 2; b++) starpu_data_unregister(B[b]);
	starpu_data_unregister(R);
	return r;
}

static int close_to(double a, double b, double tol) { return fabs(a - b) <= tol * fabs(b); }

int main(int argc, char **argv)
{
	int cuda = test_cuda_requested(argc, argv);
	tide_block_set_aux(TIDE_GAS_NAUX, TIDE_GAS_HALO_FIELDS);
	if (starpu_init(NULL) != 0) { fprintf(stderr, "StarPU init failed\n"); return 77; }
	if (cuda && test_cuda_missing("jeans_cuda")) { starpu_shutdown(); return TEST_SKIP; }
	tide_codelet_restrict(&tide_jeans_min_cl, TIDE_WHERE_CPU);

	CHECK(close_to(tide_jeans_ngb(1.2), 57.9058, 1e-5), "N_ngb(1.2) = %g", tide_jeans_ngb(1.2));

	/* isothermal, code units: the densest particle (rho 50) has the least M_J */
	tide_gas_params G = {.eos = TIDE_GAS_ISOTHERMAL, .gamma = 5.f / 3.f, .cs2 = 0.04f, .rho_crit = 1e30f};
	tide_block_view v;
	void *mem = make_block(50.0, 0, &v);
	/* every m_i = 1e-3 (make_block): N_ngb m = 0.0579 */
	double k = tide_jeans_q_res(1.2, 1.0, 1.0); /* the threshold per unit mass: k m_i */
	tide_jeans_min r = reduce(mem, &G, (float)k), rc;
	double mj = tide_jeans_mass_of_q(r.q, 1.0);
	printf("code units: least M_J %.6g at rho %g (hand: 3.29859e-03 at 50), %u under N_ngb m\n", mj,
	       r.rho, r.n_below);
	CHECK(close_to(mj, 3.29859e-3, 2e-5), "least M_J %g, hand 3.29859e-3", mj);
	CHECK(r.rho == 50.f, "least M_J at rho %g, expected 50", r.rho);
	/* below N_ngb m = 0.05791 when rho > (2.91557 * 0.008 / 0.05791)^2 = 0.1623: all 500
	 * particles in the second task and 200 in the first */
	CHECK(r.n_below == 700, "%u particles counted under the threshold, expected 200 + 500", r.n_below);
	if (cuda) {
		tide_codelet_restrict(&tide_jeans_min_cl, TIDE_WHERE_CUDA);
		rc = reduce(mem, &G, (float)k);
		tide_codelet_restrict(&tide_jeans_min_cl, TIDE_WHERE_CPU);
		printf("CUDA: q %.8g rho %g n %u (CPU: q %.8g rho %g n %u)\n", rc.q, rc.rho, rc.n_below,
		       r.q, r.rho, r.n_below);
		CHECK(close_to(rc.q, r.q, 1e-6) && rc.rho == r.rho && rc.n_below == r.n_below, "CUDA record differs");
	}
	tide_block_free_host(mem, N);

	/* unequal masses at rho = 0.1: M_J = 2.91557 * 0.008 / sqrt(0.1) = 0.073757; N_ngb m =
	 * 0.057906 for the light (m = 1e-3: resolved) and 0.11581 for the heavy (m = 2e-3, every
	 * fifth particle: not).  The rho0 dp^3 rule with m = 1e-3 counts none under; each particle's
	 * own mass counts the heavy ones, 40 + 100 in the two tasks, the least M_J / (N_ngb m_i)
	 * 0.073757 / 0.11581 = 0.63687. */
	mem = make_block(0.1, 0, &v);
	for (int i = 0; i < N; i++) {
		v.rho[i] = 0.1f;
		v.TIDE_GAS_MASS[i] = i % 5 == 0 ? 2e-3f : 1e-3f;
	}
	tide_jeans_min same = reduce(mem, &G, 0.f);
	double mj_u = tide_jeans_mass_of_q(same.q, 1.0);
	int old_rule_below = mj_u < tide_jeans_ngb(1.2) * 1e-3;
	r = reduce(mem, &G, (float)k);
	double ratio = r.qm / k;
	printf("unequal masses: least M_J %.6g, rho0 dp^3 rule: %s; own masses: %u under, least "
	       "M_J / (N_ngb m_i) %.6g (hand: 140 under, 0.63687)\n", mj_u,
	       old_rule_below ? "under" : "resolved", r.n_below, ratio);
	CHECK(close_to(mj_u, 0.073757, 1e-4), "unequal masses: least M_J %g, hand 0.073757", mj_u);
	CHECK(!old_rule_below, "the rho0 dp^3 rule should call this block resolved");
	CHECK(r.n_below == 140, "unequal masses: %u under N_ngb m_i, expected 40 + 100", r.n_below);
	CHECK(close_to(ratio, 0.63687, 1e-4), "unequal masses: least M_J / (N_ngb m_i) %g, hand 0.63687", ratio);
	if (cuda) {
		tide_codelet_restrict(&tide_jeans_min_cl, TIDE_WHERE_CUDA);
		rc = reduce(mem, &G, (float)k);
		tide_codelet_restrict(&tide_jeans_min_cl, TIDE_WHERE_CPU);
		CHECK(rc.n_below == r.n_below && close_to(rc.qm, r.qm, 1e-6), "CUDA unequal-mass record differs: n %u qm %g", rc.n_below, rc.qm);
	}
	tide_block_free_host(mem, N);

	/* cgs: 20 K, mu = 2.3 (c_s^2 = k T / (mu m_H)), rho = 1e-18 g/cm^3 */
	double cs = sqrt(1.380649e-16 * 20 / (2.3 * 1.6735575e-24)), Gcgs = 6.674e-8;
	CHECK(close_to(cs, 2.67838e4, 1e-5), "c_s %g cm/s", cs);
	CHECK(close_to(tide_jeans_mass(cs, 1e-18, Gcgs), 3.24909e33, 1e-5), "M_J(cgs) %g g",
	      tide_jeans_mass(cs, 1e-18, Gcgs));
	G.cs2 = (float)(cs * cs);
	mem = make_block(1e-18, 0, &v);
	for (int i = 0; i < N - 1; i++) v.rho[i] = (float)(1e-21 * (1 + i));
	r = reduce(mem, &G, 0.f);
	mj = tide_jeans_mass_of_q(r.q, Gcgs);
	printf("cgs: least M_J %.6g g at rho %g (hand: 3.24909e+33 g at 1e-18)\n", mj, r.rho);
	CHECK(close_to(mj, 3.24909e33, 1e-5), "cgs: least M_J %g g", mj);
	CHECK(r.n_below == 0, "cgs: %u under a zero threshold", r.n_below);
	tide_block_free_host(mem, N);

	/* ideal gas: particle 7 is cold (u = 0.01, rho 1.35): c^3 / sqrt(rho) least there, not at
	 * the densest particle (rho 50, u = 1 + sin(499) / 2) */
	G.eos = TIDE_GAS_IDEAL;
	mem = make_block(50.0, 1, &v);
	r = reduce(mem, &G, 0.f);
	double c7 = sqrt(5.0 / 3.0 * 2.0 / 3.0 * 0.01);
	printf("ideal gas: least q %.6g at rho %g (hand: %.6g at 1.35)\n", r.q, r.rho, c7 * c7 * c7 / sqrt(1.35));
	CHECK(close_to(r.q, c7 * c7 * c7 / sqrt(1.35), 1e-5) && fabs(r.rho - 1.35f) < 1e-6, "ideal gas: q %g at rho %g", r.q, r.rho);
	if (cuda) {
		tide_codelet_restrict(&tide_jeans_min_cl, TIDE_WHERE_CUDA);
		rc = reduce(mem, &G, 0.f);
		CHECK(close_to(rc.q, r.q, 1e-6) && rc.rho == r.rho, "CUDA ideal-gas record differs: q %g rho %g", rc.q, rc.rho);
	}
	tide_block_free_host(mem, N);
	starpu_shutdown();
	if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
	else printf("jeans: all checks passed%s\n", cuda ? " (CUDA = CPU)" : "");
	return failures ? 1 : 0;
}
