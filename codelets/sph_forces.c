// SPDX-License-Identifier: LGPL-2.1-or-later
// sph_forces: density rate and acceleration of every particle of a cell-sorted block from its own
// cells and its neighbours' halos, plus the block's contribution to the step reduction (CFL time
// step, speed and density range, health).
//
// The CPU version evaluates the same pair terms as sph_interact.h (which the CUDA codelet runs,
// one particle per thread), but each pair once: the block and its two halo layers are copied
// into a per-worker workspace ordered by cell with every cell's fluid particles first, positions
// in float relative to their cell's corner, p/rho^2 and the sound speed precomputed.  Every cell
// then meets the 13 cells "after" it (and itself) and each pair's terms go to both particles
// (a_j gets the opposite of a_i's pair force with m_i in place of m_j; continuity's v_ij.grad W
// and mu_ij are symmetric); boundary-boundary pairs are never visited.  Pairs with a halo
// particle are evaluated the same way, what goes to the halo particle is dropped.  The inner
// loop runs over a contiguous range of the neighbour cell 4, 8 or 16 particles at a time (GCC
// vector extensions; the width the CPU has, chosen at run time).  The summation order depends
// only on the block, its halos and that width.
// With physics.viscosity = laminar+sps the pass also adds the SPS stress force (tau of the last
// sps_tau, the block's and the halos') and writes every fluid particle's velocity gradient for
// sps_tau (vsps of sph_pair.h; the fields are include/tide/sps.h's).
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/cell_split.h"
#include "tide/codelets.h"
#include "tide/sph_interact.h"
#include "tide/sps.h"
#include "tide/codelet_decl.h"
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

/* ---- the per-worker workspace ---- */

/* Particles of the block and its halo layers, cell-ordered, fluid first in every cell. */
typedef struct fws {
	size_t pcap, ccap;
	void *pmem, *cmem;
	float *x, *y, *z, *vx, *vy, *vz, *rho, *pr, *cs, *m, *fl;   /* fl: fluid 1, boundary 0,
	                                                             * floating body k: -(k + 1) */
	float *ax, *ay, *az, *dr, *mu;                               /* accumulators */
	float *ox, *oy, *oz; /* own velocities (tide_wall_velocity): the walls' under mDBC
	                      * noslip/freeslip, whose vx.. hold the mirror; vx.. otherwise */
	uint32_t *src;       /* index in the block, or UINT32_MAX for a halo particle */
	uint32_t *cstart;    /* [ncell + 1] first particle of every cell */
	uint32_t *cfend;     /* [ncell] end of every cell's fluid particles */
	uint32_t *cur_f, *cur_b;
	/* laminar+sps (a third allocation, made only for it): tau / rho^2 and the velocity
	 * gradient accumulators, sph_pair.h's component order */
	size_t scap;
	void *smem;
	float *tau[6], *g[6], *mr;   /* mr: m / rho */
} fws;

#define FWS_PFIELDS 19   /* float arrays */
#define FWS_PAD 16       /* vector loads may read a few particles past a range */

static pthread_key_t fws_key;
static pthread_once_t fws_once = PTHREAD_ONCE_INIT;

static void fws_free(void *p)
{
	fws *w = p;
	if (!w) return;
	free(w->pmem);
	free(w->cmem);
	free(w->smem);
	free(w);
}
static void fws_key_make(void) { pthread_key_create(&fws_key, fws_free); }

static fws *fws_get(size_t np, size_t ncell, int sps)
{
	pthread_once(&fws_once, fws_key_make);
	fws *w = pthread_getspecific(fws_key);
	if (!w) {
		w = calloc(1, sizeof *w);
		if (!w) return NULL;
		pthread_setspecific(fws_key, w);
	}
	if (np + FWS_PAD > w->pcap) {
		size_t cap = (np + FWS_PAD) + (np + FWS_PAD) / 4;
		void *mem = malloc(cap * (FWS_PFIELDS * sizeof(float) + sizeof(uint32_t)));
		if (!mem) return NULL;
		free(w->pmem);
		w->pmem = mem;
		w->pcap = cap;
		float *f = mem;
		float **fields[FWS_PFIELDS] = {&w->x, &w->y, &w->z, &w->vx, &w->vy, &w->vz, &w->rho,
		                               &w->pr, &w->cs, &w->m, &w->fl, &w->ax, &w->ay, &w->az,
		                               &w->dr, &w->mu, &w->ox, &w->oy, &w->oz};
		for (int k = 0; k < FWS_PFIELDS; k++) *fields[k] = f + (size_t)k * cap;
		w->src = (uint32_t *)(f + (size_t)FWS_PFIELDS * cap);
		/* padding stays finite: masked lanes never reach a result, but keep them tame */
		memset(mem, 0, cap * (FWS_PFIELDS * sizeof(float) + sizeof(uint32_t)));
	}
	if (ncell + 1 > w->ccap) {
		size_t cap = ncell + 1 + (ncell + 1) / 4;
		void *mem = malloc(cap * 4 * sizeof(uint32_t));
		if (!mem) return NULL;
		free(w->cmem);
		w->cmem = mem;
		w->ccap = cap;
		w->cstart = mem;
		w->cfend = w->cstart + cap;
		w->cur_f = w->cfend + cap;
		w->cur_b = w->cur_f + cap;
	}
	if (sps && w->scap < w->pcap) {
		void *mem = calloc(w->pcap, 13 * sizeof(float));
		if (!mem) return NULL;
		free(w->smem);
		w->smem = mem;
		w->scap = w->pcap;
		for (int k = 0; k < 6; k++) {
			w->tau[k] = (float *)mem + (size_t)k * w->pcap;
			w->g[k] = (float *)mem + (size_t)(6 + k) * w->pcap;
		}
		w->mr = (float *)mem + (size_t)12 * w->pcap;
	}
	return w;
}

/* ---- pair loops ---- */

/* A neighbour cell of the cell being worked on: its particles and i's shift into its frame. */
typedef struct nbr {
	uint32_t s, fe, e;
	float sx, sy, sz;
	int self;
} nbr;

/* Constants of the pair loops. */
typedef struct tide_kparams {
	float h2x4, tiny, invh, af, h, eta2, hvisc, lam;
	int own;   /* tide_walls_mirrored: the own velocities ox.. for continuity and contact */
	float dhc0x2, rho0, rhoh_g[3], inv_gamma;
	int kernel, diffusion;
	int sps;   /* laminar+sps */
	int contact;   /* floating bodies: pairs of a floating particle with a boundary particle
	                * of another body (walls, obstacles, other floating bodies); 1 under DBC
	                * (SPH pair terms), 2 under mDBC (the contact force, sph_pair.h) */
	float kc, gc, dc;   /* the contact force's constants (tide_sph_params' contact_*) */
} tide_kparams;

/* Four floats per vector (SSE on x86-64) ... */
#define TIDE_CPU_VW 4
#define TIDE_CPU_SFX v4
#include "tide/sph_interact_cpu.h"

/* ... and eight where the CPU has AVX2 (chosen at run time, the same for every task of a run on
 * one machine). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TIDE_CPU_HAVE_V8 1
#pragma GCC push_options
#pragma GCC target("avx2")
#define TIDE_CPU_VW 8
#define TIDE_CPU_SFX v8
#include "tide/sph_interact_cpu.h"
#pragma GCC pop_options

/* ... and sixteen where it has AVX-512 (F, DQ, VL, BW: every AVX-512 CPU since 2017). */
#define TIDE_CPU_HAVE_V16 1
#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512vl,avx512bw")
#define TIDE_CPU_VW 16
#define TIDE_CPU_SFX v16
#include "tide/sph_interact_cpu.h"
#pragma GCC pop_options
#endif

typedef void cell_pairs_fn(const tide_kparams *, fws *, uint32_t, uint32_t, uint32_t, const nbr *,
                           int);
static cell_pairs_fn *cell_pairs_impl;
static pthread_once_t impl_once = PTHREAD_ONCE_INIT;

/* The widest loops the CPU runs; TIDE_CPU_VECTOR=4 or 8 caps the width (to test the narrower
 * loops, or where the wide units slow the clock down). */
static void impl_choose(void)
{
	cell_pairs_impl = cell_pairs_v4;
#ifdef TIDE_CPU_HAVE_V8
	const char *e = getenv("TIDE_CPU_VECTOR");
	int cap = 16;
	if (e && *e) {
		cap = atoi(e);
		if (strcmp(e, "4") && strcmp(e, "8") && strcmp(e, "16")) {
			fprintf(stderr, "tide: warning: TIDE_CPU_VECTOR=%s is not 4, 8 or 16; the widest "
			        "loop this CPU has is used\n", e);
			cap = 16;
		}
	}
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2") && cap >= 8) cell_pairs_impl = cell_pairs_v8;
	if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
	    __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") && cap >= 16)
		cell_pairs_impl = cell_pairs_v16;
#endif
}

/* ---- the codelet ---- */

/* A source of the workspace: the block itself (own: its cells from its cell starts, on its box
 * A) or a halo (its keys, block.h's TIDE_HALO_KEY). */
typedef struct source {
	const tide_block_view *v;
	int own;
	const uint32_t *start;
	const tide_block_arg *A;
} source;

/* The global cell key of particle i of source S, for i = 0, 1, ... in turn (*c: the running
 * cell of the block, from 0). */
static inline uint32_t src_key(const tide_grid *g, const source *S, uint32_t i, uint32_t *c)
{
	if (!S->own) return tide_halo_keys(S->v)[i];
	while (S->start[*c + 1] <= i) (*c)++;
	return tide_box_key(g, S->A, *c);
}

/* Cell coordinates k of a global key and, if the cell lies in E, its index in E (*c). */
static inline int cell_in(const tide_grid *g, const tide_block_arg *E, uint32_t key, int k[3],
                          uint32_t *c)
{
	tide_key_cell(g, key, k);
	if (!tide_box_contains(E, k)) return 0;
	*c = tide_box_index(E, k);
	return 1;
}

/* Copies the block and the halo particles inside its grown box E into the workspace (E's cell
 * order, fluid first in every cell).  Keys are global, so a halo particle's cell in E comes from
 * its key (the block's from its cell starts); halo particles outside E (a face halo also serves the neighbour's other neighbours)
 * are skipped. */
static void fill_workspace(const tide_sph_params *P, fws *W, const source *src, int nsrc,
                           const tide_block_arg *E, uint32_t ncell)
{
	const tide_grid *g = &P->grid;
	memset(W->cur_f, 0, sizeof(uint32_t) * ncell);
	memset(W->cur_b, 0, sizeof(uint32_t) * ncell);
	for (int s = 0; s < nsrc; s++) {
		const tide_block_view *v = src[s].v;
		uint32_t run = 0;
		for (uint32_t i = 0; i < v->count; i++) {
			int k[3];
			uint32_t c;
			if (!cell_in(g, E, src_key(g, &src[s], i, &run), k, &c)) continue;
			if (v->type[i] == TIDE_FLUID) W->cur_f[c]++;
			else W->cur_b[c]++;
		}
	}
	uint32_t at = 0;
	for (uint32_t c = 0; c < ncell; c++) {
		uint32_t nf = W->cur_f[c], nbd = W->cur_b[c];
		W->cstart[c] = at;
		W->cfend[c] = at + nf;
		W->cur_f[c] = at;
		W->cur_b[c] = at + nf;
		at += nf + nbd;
	}
	W->cstart[ncell] = at;
	double cell = (double)g->cell;
	uint32_t lastkey = UINT32_MAX;
	double corner[3] = {0, 0, 0};
	for (int s = 0; s < nsrc; s++) {
		const tide_block_view *v = src[s].v;
		uint32_t run = 0;
		for (uint32_t i = 0; i < v->count; i++) {
			int k[3];
			uint32_t c, key = src_key(g, &src[s], i, &run);
			if (!cell_in(g, E, key, k, &c)) continue;
			if (key != lastkey) {
				for (int j = 0; j < 3; j++)
					corner[g->axis[j]] = g->origin[g->axis[j]] + k[j] * cell;
				lastkey = key;
			}
			int fluid = v->type[i] == TIDE_FLUID;
			uint32_t u = fluid ? W->cur_f[c]++ : W->cur_b[c]++;
			float rho = v->rho[i];
			W->x[u] = (float)(v->x[i] - corner[0]);
			W->y[u] = (float)(v->y[i] - corner[1]);
			W->z[u] = (float)(v->z[i] - corner[2]);
			W->vx[u] = v->vx[i];
			W->vy[u] = v->vy[i];
			W->vz[u] = v->vz[i];
			W->rho[u] = rho;
			W->pr[u] = tide_pressure(P, rho) / (rho * rho);
			W->cs[u] = tide_sound(P, rho);
			W->m[u] = P->mass[v->type[i]];
			int fk = fluid ? -1 : tide_floating_index(P, v->id[i]);
			W->fl[u] = fluid ? 1.f : fk >= 0 ? -(float)(fk + 1) : 0.f;
			if (tide_walls_mirrored(P)) {
				float o[3];
				uint32_t id = P->nfloat || P->nwall ? v->id[i] : 0; /* halos: ids then */
				tide_wall_velocity(P, v->type[i], id, v->x[i], v->y[i], v->z[i], v->vx[i],
				                   v->vy[i], v->vz[i], o);
				W->ox[u] = o[0];
				W->oy[u] = o[1];
				W->oz[u] = o[2];
			}
			W->ax[u] = W->ay[u] = W->az[u] = W->dr[u] = W->mu[u] = 0.f;
			W->src[u] = src[s].own ? i : UINT32_MAX;
			if (P->viscosity == TIDE_VISC_LAMINAR_SPS) {
				const float *tau[6] = TIDE_SPS_TAU_PTRS(*v);
				for (int q = 0; q < 6; q++) {
					W->tau[q][u] = fluid ? tau[q][i] : 0.f;
					W->g[q][u] = 0.f;
				}
				W->mr[u] = W->m[u] / rho;
			}
		}
	}
	/* vector loads past the last particle read finite values */
	for (uint32_t u = at; u < at + FWS_PAD; u++) {
		W->x[u] = W->y[u] = W->z[u] = 1e30f;
		W->vx[u] = W->vy[u] = W->vz[u] = 0.f;
		W->ox[u] = W->oy[u] = W->oz[u] = 0.f;
		W->rho[u] = W->pr[u] = W->cs[u] = W->m[u] = 1.f;
		W->fl[u] = 0.f;
		for (int q = 0; P->viscosity == TIDE_VISC_LAMINAR_SPS && q < 6; q++) W->tau[q][u] = 0.f;
		if (P->viscosity == TIDE_VISC_LAMINAR_SPS) W->mr[u] = 1.f;
	}
}

/* Whether cell k of E is one whose particles the task computes: a cell of the block's box A in
 * the task's part (include/tide/cell_split.h; I: A's interior). */
static inline int cell_wanted(int part, const tide_block_arg *A, const tide_block_arg *I,
                              const int k[3])
{
	return tide_box_contains(A, k) && tide_cell_in_part(part, I, k);
}

/* All pairs with at least one particle of the task's cells: every cell of E meets itself and
 * the cells after it in key order (each unordered pair of adjacent cells once); pairs of two
 * other cells (halo cells, or the block's cells of the other part) are skipped, what a pair
 * gives a particle of another cell is dropped.  A particle of the task's cells so meets the same
 * pairs in the same order as in the unsplit task (part TIDE_CELLS_ALL): the same bits. */
static void block_pairs(const tide_sph_params *P, const tide_kparams *K, fws *W,
                        const tide_block_arg *A, const tide_block_arg *E, int part,
                        const tide_block_arg *I)
{
	const tide_grid *g = &P->grid;
	int a0 = g->axis[0], a1 = g->axis[1], a2 = g->axis[2];
	float cell = g->cell;
	int lo[3], hi[3];
	tide_box_bounds(E, lo, hi);
	int k[3];
	for (k[0] = lo[0]; k[0] < hi[0]; k[0]++)
		for (k[1] = lo[1]; k[1] < hi[1]; k[1]++)
			for (k[2] = lo[2]; k[2] < hi[2]; k[2]++) {
				uint32_t c = tide_box_index(E, k);
				uint32_t cs = W->cstart[c], ce = W->cstart[c + 1], cf = W->cfend[c];
				if (cs == ce) continue;
				int own = cell_wanted(part, A, I, k);
				nbr nb[14];
				int nn = 0, anyf = cf > cs;
				/* offsets after (0,0,0) in key order: (0,0,1), (0,1,*), (1,*,*) */
				for (int o0 = 0; o0 <= 1; o0++) {
					if (k[0] + o0 >= hi[0]) break;
					for (int o1 = o0 ? -1 : 0; o1 <= 1; o1++) {
						if (k[1] + o1 < lo[1] || k[1] + o1 >= hi[1]) continue;
						int o2lo = (o0 || o1) ? -1 : 0;
						for (int o2 = o2lo; o2 <= 1; o2++) {
							if (k[2] + o2 < lo[2] || k[2] + o2 >= hi[2]) continue;
							int kd[3] = {k[0] + o0, k[1] + o1, k[2] + o2};
							if (!own && !cell_wanted(part, A, I, kd)) continue;
							uint32_t d = tide_box_index(E, kd);
							nbr *e = &nb[nn];
							e->s = W->cstart[d];
							e->e = W->cstart[d + 1];
							e->fe = W->cfend[d];
							if (e->s == e->e) continue;
							e->self = d == c;
							if (!e->self && e->fe > e->s) anyf = 1;
							float sh[3];
							sh[a0] = -(float)o0 * cell;
							sh[a1] = -(float)o1 * cell;
							sh[a2] = -(float)o2 * cell;
							e->sx = sh[0]; e->sy = sh[1]; e->sz = sh[2];
							nn++;
						}
					}
				}
				/* walls only: no pair contributes (unless a floating body may touch them) */
				if ((!anyf && !K->contact) || nn == 0) continue;
				cell_pairs_impl(K, W, cs, cf, ce, nb, nn);
			}
}

static void sph_forces_cpu(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_block_arg A;
	int nh, part;
	starpu_codelet_unpack_args(cl_arg, &P, &A, &nh, &part, 0);
	tide_block_view v = tide_block_view_of(buffers[0]);
	tide_step_reduce *red = (tide_step_reduce *)STARPU_VARIABLE_GET_PTR(buffers[2]);
	STARPU_ASSERT(nh >= 0 && nh <= TIDE_MAX_NEIGHBOURS);
	STARPU_ASSERT(part != TIDE_CELLS_INTERIOR || nh == 0);

	tide_block_arg E = tide_box_grow(&P.grid, &A);
	tide_block_arg I = tide_box_interior(&P.grid, &A, TIDE_FORCES_REACH);
	uint32_t ncell = tide_box_ncell(&E);
	tide_block_view halo[TIDE_MAX_NEIGHBOURS];
	source src[TIDE_MAX_NEIGHBOURS + 1];
	int nsrc = 0;
	size_t np = v.count;
	const uint32_t *start = (const uint32_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
	src[nsrc++] = (source){&v, 1, start, &A};
	float hfill = 0.f;
	for (int h = 0; h < nh; h++) {
		halo[h] = tide_block_view_of(buffers[3 + h]);
		src[nsrc++] = (source){&halo[h], 0, NULL, NULL};
		np += halo[h].count;
		float f = tide_fill_of(halo[h].count, halo[h].cap, 0, 0, 0, 0);
		if (f > hfill) hfill = f;
	}
	int sps = P.viscosity == TIDE_VISC_LAMINAR_SPS;
	fws *W = fws_get(np, ncell, sps);
	STARPU_ASSERT_MSG(W, "sph_forces: out of memory for the workspace");
	fill_workspace(&P, W, src, nsrc, &E, ncell);

	pthread_once(&impl_once, impl_choose);
	tide_kparams K;
	K.h2x4 = P.h2x4;
	K.tiny = 1e-18f;
	K.invh = 1.f / P.h;
	K.af = P.af;
	K.h = P.h;
	K.eta2 = P.eta2;
	/* one viscosity at a time (sph_pair.h): the other's constant is 0 */
	K.hvisc = P.viscosity == TIDE_VISC_ARTIFICIAL ? -P.visco * 0.5f : 0.f;
	K.lam = P.viscosity == TIDE_VISC_ARTIFICIAL ? 0.f : 2.f * P.nu;
	K.kernel = P.kernel;
	K.diffusion = P.diffusion;
	K.dhc0x2 = P.delta_hc0 * 2.f;
	K.rho0 = P.rho0;
	for (int d = 0; d < 3; d++) K.rhoh_g[d] = P.rhoh_g[d];
	K.inv_gamma = 1.f / P.gamma;
	K.sps = sps;
	K.contact = P.nfloat > 0 ? (tide_contact_force(&P) ? 2 : 1) : 0;
	K.kc = P.contact_k;
	K.gc = P.contact_g;
	K.dc = P.contact_d;
	K.own = tide_walls_mirrored(&P);
	block_pairs(&P, &K, W, &A, &E, part, &I);

	tide_step_reduce r;
	tide_step_reduce_init(&r);
	uint32_t nw = W->cstart[ncell];
	for (uint32_t u = 0; u < nw; u++) {
		uint32_t i = W->src[u];
		if (i == UINT32_MAX) continue;
		if (part != TIDE_CELLS_ALL) { /* the other part's particles are its task's */
			int k[3];
			uint32_t c = tide_sorted_cell(start, tide_box_ncell(&A), i);
			tide_key_cell(&P.grid, tide_box_key(&P.grid, &A, c), k);
			if (!tide_cell_in_part(part, &I, k)) continue;
		}
		int fluid = v.type[i] == TIDE_FLUID;
		tide_acc a = {0.f, 0.f, 0.f, 0.f, 0.f};
		if (tide_pair_sums_used(&P, fluid)) {
			a.drho = W->dr[u];
			a.mu_max = W->mu[u];
		}
		if (fluid) {
			a.ax = W->ax[u] + P.g[0];
			a.ay = W->ay[u] + P.g[1];
			a.az = W->az[u] + P.g[2];
		} else if (tide_is_floating(&P, v.id[i])) {
			/* a floating body's particle: its fluid neighbours' pair terms alone, no gravity
			 * (the body's weight is M g, include/tide/rigid.h) */
			a.ax = W->ax[u];
			a.ay = W->ay[u];
			a.az = W->az[u];
		}
		v.ax[i] = a.ax;
		v.ay[i] = a.ay;
		v.az[i] = a.az;
		v.drho[i] = a.drho;
		if (sps) { /* the gradient for sps_tau (boundary particles: none) */
			float *g[6] = TIDE_SPS_GRAD_PTRS(v);
			for (int q = 0; q < 6; q++) g[q][i] = fluid ? W->g[q][u] : 0.f;
		}
		if (!isfinite(a.ax + a.ay + a.az + a.drho) || !isfinite(v.rho[i])) r.nbad++;
		float dt = tide_particle_dt(&P, &a, v.rho[i], fluid);
		if (dt < r.dt) r.dt = dt;
		if (fluid) {
			float sp = sqrtf(v.vx[i] * v.vx[i] + v.vy[i] * v.vy[i] + v.vz[i] * v.vz[i]);
			if (sp > r.vmax) r.vmax = sp;
			if (v.rho[i] < r.rho_min) r.rho_min = v.rho[i];
			if (v.rho[i] > r.rho_max) r.rho_max = v.rho[i];
		}
	}
	/* the block's count once: with the boundary part (or unsplit) */
	r.count = part == TIDE_CELLS_INTERIOR ? 0 : v.count;
	r.fill = tide_fill_of(v.count, v.cap, 0, 0, 0, 0);
	if (hfill > r.fill) r.fill = hfill;
	/* this worker's private copy of the reduction: no other task touches it concurrently */
	tide_step_reduce_combine(red, &r);
}

/* The model's size of a task (include/tide/codelet_decl.h): the block's particles, or for one
 * part of a split block (include/tide/cell_split.h) the block's particles times the part's
 * share of the box's cells.  Which particles a part has is not known when the task is submitted
 * (nor at all in a simulation, where no particle exists); the share of the cells is that of the
 * particles in a box of uniform density (the synthetic box of the scaling simulations), and
 * the same task always gets the same size, so that the history of a real run keys each part by
 * it. */
static size_t sph_forces_size(struct starpu_task *task, unsigned nimpl)
{
	size_t n = tide_perfmodel_size(task, nimpl);
	tide_sph_params P;
	tide_block_arg A;
	int nh, part;
	starpu_codelet_unpack_args(task->cl_arg, &P, &A, &nh, &part, 0);
	if (part == TIDE_CELLS_ALL) return n;
	tide_block_arg I = tide_box_interior(&P.grid, &A, TIDE_FORCES_REACH);
	double share = (double)tide_part_ncell(part, &A, &I) / (double)tide_box_ncell(&A);
	size_t m = (size_t)((double)n * share + 0.5);
	return m ? m : 1;
}

/* The access modes come with each task (a variable number of halos); the step reduction is
 * STARPU_REDUX (under MPI into the owner's own record, tasks/sph_step.c). */
TIDE_CODELET_VARIABLE_SIZED(sph_forces, sph_forces_cpu, tide_sph_forces_cuda, sph_forces_size);
