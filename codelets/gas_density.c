// SPDX-License-Identifier: LGPL-2.1-or-later
// gas_density: under physics.scheme = gas, the smoothing length, density, grad-h factor and
// Balsara switch of every particle of a cell-sorted block, from the positions and velocities
// of the block and of the halos its forces read (the h iteration of include/tide/gas_math.h).
// A gather: each particle sums over its own candidates and writes only its own rho, h, 1/Omega
// and switch, which no particle's sums read.
#include <stdio.h>
#include <stdlib.h>
#include "tide/gas_codelet.h"
#include "tide/codelet_decl.h"

/* TIDE_GAS_STATS=1 (CPU half only; a measuring aid, issue 23): the histogram of the h
 * iterations per particle, in the first step (no kick yet, TIDE_GAS_DTK = 0) and later ones,
 * those ending held at the cap apart, and the candidates the gathers tested, printed to stderr
 * at exit.  Counted with atomics: the workers run blocks at once. */
#define STATS_BINS 34
#define STATS_F0 6   /* the first trial's relative error: < 1e-4, 3e-4, 1e-3, 1e-2, 1e-1, more */
static unsigned long long stats[2][2][STATS_BINS], stats_cand[2][2], stats_f0[2][2][STATS_F0];
static int stats_on = -1;

static void stats_print(void)
{
	static const char *when[2] = {"first step", "later steps"}, *kind[2] = {"free", "at cap"};
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 2; b++) {
			unsigned long long n = 0, it = 0;
			for (int k = 0; k < STATS_BINS; k++) { n += stats[a][b][k]; it += k * stats[a][b][k]; }
			if (!n) continue;
			fprintf(stderr, "gas_stats %s, %s: %llu particle-passes, %.3f iterations, %.1f candidates "
			        "per pass; iterations:", when[a], kind[b], n, (double)it / (double)n,
			        (double)stats_cand[a][b] / (double)n);
			for (int k = 1; k < STATS_BINS; k++)
				if (stats[a][b][k]) fprintf(stderr, " %d:%llu", k, stats[a][b][k]);
			static const char *f0[STATS_F0] = {"<1e-4", "<3e-4", "<1e-3", "<1e-2", "<1e-1", ">=1e-1"};
			fprintf(stderr, "; first trial's |rho h^d / (m eta^d) - 1|:");
			for (int k = 0; k < STATS_F0; k++) fprintf(stderr, " %s:%llu", f0[k], stats_f0[a][b][k]);
			fputc('\n', stderr);
		}
}

static void stats_add(const tide_block_view *v, uint32_t i, float dtk, int it,
                      const tide_gas_hmeas *m, const tide_sph_params *P)
{
	int a = dtk > 0.f, b = v->TIDE_GAS_H[i] >= tide_gas_h_cap(P) && v->TIDE_GAS_FGRAD[i] == 1.f;
	float f = m->f0;
	int k = f < 1e-4f ? 0 : f < 3e-4f ? 1 : f < 1e-3f ? 2 : f < 1e-2f ? 3 : f < 1e-1f ? 4 : 5;
	__atomic_fetch_add(&stats[a][b][it < STATS_BINS ? it : STATS_BINS - 1], 1ull, __ATOMIC_RELAXED);
	__atomic_fetch_add(&stats_cand[a][b], (unsigned long long)m->ncand, __ATOMIC_RELAXED);
	__atomic_fetch_add(&stats_f0[a][b][k], 1ull, __ATOMIC_RELAXED);
}

static void gas_density_cpu(void *buffers[], void *cl_arg)
{
	tide_gas_task t;
	tide_gas_task_of(buffers, cl_arg, 2, &t);
	tide_gas_src own = tide_gas_src_of(&t.v);
	int on = __atomic_load_n(&stats_on, __ATOMIC_RELAXED);
	if (on < 0) {
		const char *e = getenv("TIDE_GAS_STATS");
		int want = e && *e && *e != '0', expect = -1;
		if (__atomic_compare_exchange_n(&stats_on, &expect, want, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST) && want)
			atexit(stats_print);
		on = __atomic_load_n(&stats_on, __ATOMIC_RELAXED);
	}
	for (uint32_t i = 0; i < t.v.count; i++) {
		if (t.v.type[i] != TIDE_FLUID) continue;
		float dtk = t.v.TIDE_GAS_DTK[i];
		tide_gas_hmeas m = {0, 0.f};
		int it = tide_gas_density_particle(&t.P, &t.A, &t.v, i, &own, t.start, t.H.h, t.H.n,
		                                   on ? &m : NULL);
		if (on) stats_add(&t.v, i, dtk, it, &m, &t.P);
	}
}

/* Buffers: block (RW), cell starts (R), then one halo (R) per neighbour, as mdbc_ghost. */
TIDE_CODELET_VARIABLE(gas_density, gas_density_cpu, tide_gas_density_cuda);
