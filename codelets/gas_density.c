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

static void stats_print(void);
static void warp_print(void);
static void stats_print_all(void)
{
	stats_print();
	warp_print();
}

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

/* With the stats: the work of the CUDA half's warp gathers (gas_gather.cuh) on the same block,
 * at the h just found, replayed here: for each run of 32 particles of a row of cells, the union
 * of the lanes' cells (tide_cell_ring_cells, the same calls), its tiles of 32 candidates, the
 * ball tests (groups of 8), the pairs in the balls and the warp's visit iterations (the largest
 * count of a lane in each tile); and the density summed over those pairs against the one the
 * pass stored (the union must hold every neighbour). */
static unsigned long long warp_runs, warp_parts, warp_tests, warp_pairs, warp_serial;
static double warp_worst_rho;

static void warp_tiles(const tide_gas_task *t, const tide_gas_src *s, uint32_t ja, uint32_t jb,
                       uint32_t i0, int nl, const int *go, double *sw, unsigned long long w[3])
{
	const tide_sph_params *P = &t->P;
	for (uint32_t t0 = ja; t0 < jb; t0 += 32) {
		uint32_t nt = jb - t0 < 32 ? jb - t0 : 32, most = 0;
		for (int l = 0; l < nl; l++) {
			if (!go[l]) continue;
			uint32_t i = i0 + (uint32_t)l, c = 0;
			float h = t->v.TIDE_GAS_H[i];
			w[0] += (nt + 7) & ~7u;
			for (uint32_t j = t0; j < t0 + nt; j++) {
				if (s->type[j] == TIDE_NBODY) continue;
				float dx = (float)(t->v.x[i] - s->x[j]), dy = (float)(t->v.y[i] - s->y[j]),
				      dz = (float)(t->v.z[i] - s->z[j]);
				float q2 = (dx * dx + dy * dy + dz * dz) / (h * h);
				if (!(q2 < 4.f)) continue;
				c++;
				sw[l] += s->m[j] * tide_kernel_w(P->kernel, sqrtf(q2));
			}
			w[1] += c;
			if (c > most) most = c;
		}
		w[2] += most;
	}
}

static void warp_replay(const tide_gas_task *t, const tide_gas_src *own)
{
	const tide_sph_params *P = &t->P;
	const tide_block_arg *A = &t->A;
	uint32_t n2 = (uint32_t)(A->hi2 - A->lo2), nrow = (uint32_t)(A->l1 - A->l0) * (uint32_t)(A->hi1 - A->lo1);
	unsigned long long runs = 0, parts = 0, w[3] = {0, 0, 0};
	double worst = 0;
	for (uint32_t row = 0; row < nrow; row++) {
		uint32_t ra = t->start[row * n2], rb = t->start[(row + 1) * n2];
		for (uint32_t i0 = ra; i0 < rb; i0 += 32) {
			int nl = rb - i0 < 32 ? (int)(rb - i0) : 32, go[32], rings[32], any = 0;
			tide_cell_rows C[32];
			double sw[32];
			int lo0 = 1 << 30, hi0 = -(1 << 30), lo1 = 1 << 30, hi1 = -(1 << 30);
			for (int l = 0; l < nl; l++) {
				uint32_t i = i0 + (uint32_t)l;
				double x[3] = {t->v.x[i], t->v.y[i], t->v.z[i]};
				go[l] = t->v.type[i] == TIDE_FLUID;
				sw[l] = 0;
				tide_cell_rows_of(P, A, x, &C[l]);
				if (!go[l]) continue;
				any = 1;
				parts++;
				rings[l] = tide_gas_rings(P, 2.f * t->v.TIDE_GAS_H[i]);
				if (C[l].k[0] - rings[l] < lo0) lo0 = C[l].k[0] - rings[l];
				if (C[l].k[0] + rings[l] > hi0) hi0 = C[l].k[0] + rings[l];
				if (C[l].k[1] - rings[l] < lo1) lo1 = C[l].k[1] - rings[l];
				if (C[l].k[1] + rings[l] > hi1) hi1 = C[l].k[1] + rings[l];
			}
			if (!any) continue;
			runs++;
			if (lo0 < 0) lo0 = 0;
			if (lo1 < 0) lo1 = 0;
			if (hi0 > C[0].nk[0] - 1) hi0 = C[0].nk[0] - 1;
			if (hi1 > C[0].nk[1] - 1) hi1 = C[0].nk[1] - 1;
			for (int c0 = lo0; c0 <= hi0; c0++)
				for (int c1 = lo1; c1 <= hi1; c1++) {
					int a = 1 << 30, b = -(1 << 30);
					for (int l = 0; l < nl; l++) {
						int la, lb;
						float h = t->v.TIDE_GAS_H[i0 + (uint32_t)l];
						double r2 = 4.0 * (double)h * (double)h;
						if (!go[l] || !tide_cell_ring_cells(&C[l], rings[l], r2, c0, c1, &la, &lb)) continue;
						if (la < a) a = la;
						if (lb > b) b = lb;
					}
					if (a > b) continue;
					uint32_t ob[2], key[2][2];
					int nkey;
					tide_cell_span(&C[0], A, t->start, c0, c1, a, b, ob, key, &nkey);
					warp_tiles(t, own, ob[0], ob[1], i0, nl, go, sw, w);
					for (int m = 0; m < nkey; m++)
						for (int hh = 0; hh < t->H.n; hh++) {
							const tide_gas_src *s = &t->H.h[hh];
							uint32_t ja = tide_lower_bound(s->key, s->count, key[m][0]);
							uint32_t jb = tide_lower_bound(s->key, s->count, key[m][1]);
							warp_tiles(t, s, ja, jb, i0, nl, go, sw, w);
						}
				}
			for (int l = 0; l < nl; l++) {
				if (!go[l]) continue;
				uint32_t i = i0 + (uint32_t)l;
				double h = t->v.TIDE_GAS_H[i];
				double rho = P->gas.knorm * sw[l] / (h * h * h);
				double e = fabs(rho / t->v.rho[i] - 1);
				if (P->dim == 3 && e > worst) worst = e;
			}
		}
	}
	(void)own;
	__atomic_fetch_add(&warp_runs, runs, __ATOMIC_RELAXED);
	__atomic_fetch_add(&warp_parts, parts, __ATOMIC_RELAXED);
	__atomic_fetch_add(&warp_tests, w[0], __ATOMIC_RELAXED);
	__atomic_fetch_add(&warp_pairs, w[1], __ATOMIC_RELAXED);
	__atomic_fetch_add(&warp_serial, w[2], __ATOMIC_RELAXED);
	static int lock;
	while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE)) {}
	if (worst > warp_worst_rho) warp_worst_rho = worst;
	__atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
}

static void warp_print(void)
{
	if (!warp_parts) return;
	double n = (double)warp_parts;
	fprintf(stderr, "gas_stats CUDA warp gathers replayed (one round at the final h): %llu runs of up to "
	        "32, %.1f particles a run; per particle %.1f ball tests, %.1f pairs, %.1f lane slots "
	        "of the visit loops (lanes busy %.0f %%); density over the warp's pairs vs the pass's: %.2e\n",
	        warp_runs, n / (double)warp_runs, (double)warp_tests / n, (double)warp_pairs / n,
	        (double)warp_serial * 32.0 / n, 100.0 * (double)warp_pairs / (32.0 * (double)warp_serial),
	        warp_worst_rho);
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
			atexit(stats_print_all);
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
	if (on) warp_replay(&t, &own);
}

/* Buffers: block (RW), cell starts (R), then one halo (R) per neighbour, as mdbc_ghost. */
TIDE_CODELET_VARIABLE(gas_density, gas_density_cpu, tide_gas_density_cuda);
