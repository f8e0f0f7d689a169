// SPDX-License-Identifier: LGPL-2.1-or-later
// bh_walk: potential and acceleration of the particles [r0, r1) (Morton order).  The unit of
// work is a group of up to BH_GROUP consecutive particles (bh_cell_groups): the tree is traversed
// once per group against the group's bounding box (bh_accept), and every accepted node or opened
// leaf acts on all particles of the group.  This is the same algorithm as the warp-per-group CUDA
// walk, so both give the same interaction lists.  Several walk tasks on disjoint ranges spread
// over the cores.
// bh_walk_let walks the same groups through the essential nodes received from another rank and
// adds their field: cells marked BH_LET_MULTIPOLE passed the test against this rank's whole box
// and are used without testing, the other cells are tested against each group as usual.
//
// Why interaction lists: applying each accepted node to the group's particles one at a time
// (bh_m2p per particle, as the code first did) runs at ~26 cycles per interaction, scalar IEEE
// square roots and divisions one after the other.  The traversal now only collects the accepted
// nodes' moments and the opened leaves' particles into two short lists (structure of arrays);
// each full list is applied to the group as one loop over its entries with an inner loop over the
// group's BH_GROUP particles (fixed trip count, structure of arrays), which the compiler turns into
// SIMD code — on x86-64 also an AVX2+FMA clone chosen at run time.  The interactions are
// bh_m2p_lane and bh_p2p_lane of bh_interact.h, beside the reference bh_m2p/bh_p2p (IEEE
// 1/sqrtf; test_bh_interact compares them); only the grouping and summation order differ.
#include <math.h>
#include <time.h>
#include <starpu.h>
#include "tide/bh_codelets.h"
#include "tide/bh_walk_sets.h"
#include "tide/bh_interact.h"
#include "tide/let_interface.h"
#include "tide/codelet_decl.h"

size_t bh_walk_scratch_bytes(void)
{
#ifdef TIDE_USE_CUDA
	if (starpu_cuda_worker_get_count() > 0) return tide_bh_walk_cuda_scratch_bytes();
#endif
	return 256;
}

/* x86-64: an AVX2+FMA clone of the interaction loops next to the baseline (SSE2) one, the loader
 * picks by CPU; FMA contraction allowed in these loops only (ISO C mode turns it off everywhere
 * else, where bh_accept and the tree geometry must round as on the GPU): 8 % on the walk.
 * Elsewhere the baseline only. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define WALK_SIMD_CLONES __attribute__((target_clones("arch=x86-64-v3", "default"), optimize("fp-contract=fast")))
#else
#define WALK_SIMD_CLONES
#endif

#define WALK_LIST 64 /* interactions of one kind collected before they are applied */

/* The group's particles, their softenings (bh_body_eps) and their field, one array per
 * component; entries past the group's np particles repeat its last particle and are computed but
 * never stored. */
typedef struct walk_targets {
	float x[BH_GROUP], y[BH_GROUP], z[BH_GROUP], e[BH_GROUP];
	float ax[BH_GROUP], ay[BH_GROUP], az[BH_GROUP], pot[BH_GROUP];
} walk_targets;

/* Collected multipoles: centre of mass, mass, softening (bh_mom.eps) and (quadrupoles) the six
 * components. */
typedef struct walk_mlist {
	int n;
	float x[WALK_LIST], y[WALK_LIST], z[WALK_LIST], m[WALK_LIST], e[WALK_LIST];
	float qxx[WALK_LIST], qxy[WALK_LIST], qxz[WALK_LIST];
	float qyy[WALK_LIST], qyz[WALK_LIST], qzz[WALK_LIST];
} walk_mlist;

/* Collected source particles and their softenings. */
typedef struct walk_plist {
	int n;
	float x[WALK_LIST], y[WALK_LIST], z[WALK_LIST], m[WALK_LIST], e[WALK_LIST];
} walk_plist;

/* Every listed node on every target (bh_m2p_lane, one target per SIMD lane, the pair's
 * softening bh_soft2); inlined into one clone per order, so that monopoles skip the quadrupole
 * terms. */
static inline __attribute__((always_inline)) void
multipole_loop(walk_targets *restrict T, const walk_mlist *restrict L, const int quad)
{
	for (int j = 0; j < L->n; j++) {
		const float mx = L->x[j], my = L->y[j], mz = L->z[j], mm = L->m[j], me = L->e[j];
		const bh_quad q = {quad ? L->qxx[j] : 0.f, quad ? L->qxy[j] : 0.f,
		                   quad ? L->qxz[j] : 0.f, quad ? L->qyy[j] : 0.f,
		                   quad ? L->qyz[j] : 0.f, quad ? L->qzz[j] : 0.f};
		for (int i = 0; i < BH_GROUP; i++) {
			bh_acc f = bh_m2p_lane(mx - T->x[i], my - T->y[i], mz - T->z[i], mm, q,
			                       bh_soft2(T->e[i], me), quad);
			T->ax[i] += f.ax; T->ay[i] += f.ay; T->az[i] += f.az;
			T->pot[i] += f.pot;
		}
	}
}
WALK_SIMD_CLONES
static void apply_quadrupoles(walk_targets *restrict T, const walk_mlist *restrict L)
{
	multipole_loop(T, L, 1);
}
WALK_SIMD_CLONES
static void apply_monopoles(walk_targets *restrict T, const walk_mlist *restrict L)
{
	multipole_loop(T, L, 0);
}
static void apply_multipoles(walk_targets *T, const walk_mlist *L, int quad)
{
	if (quad) apply_quadrupoles(T, L);
	else apply_monopoles(T, L);
}

/* Every listed particle on every target (bh_p2p_lane). */
WALK_SIMD_CLONES
static void apply_particles(walk_targets *restrict T, const walk_plist *restrict L)
{
	for (int j = 0; j < L->n; j++) {
		const float sx = L->x[j], sy = L->y[j], sz = L->z[j], sm = L->m[j], se = L->e[j];
		for (int i = 0; i < BH_GROUP; i++) {
			bh_acc f = bh_p2p_lane(sx - T->x[i], sy - T->y[i], sz - T->z[i], sm,
			                       bh_soft2(T->e[i], se));
			T->ax[i] += f.ax; T->ay[i] += f.ay; T->az[i] += f.az;
			T->pot[i] += f.pot;
		}
	}
}

/* The far field of received sets (bh_interact.h, bh_m2l/bh_l2p): the far accepted nodes of a
 * group, collected in a walk_mlist with their com relative to the group's centre, are added to
 * the group's local expansion FAR_LANES at a time, one node per SIMD lane, each lane into its own
 * partial coefficients (no reduction in the loop, so it vectorizes without reassociation); the
 * lanes are summed once per group, at its end.  Why: a far node costs one bh_m2l (~120 flops)
 * instead of BH_GROUP bh_m2p_lane, and each particle evaluates the sum once (bh_l2p). */
#define FAR_LANES 8
typedef struct walk_local {
	float c[BH_LOCAL_N][FAR_LANES];
} walk_local;

static inline __attribute__((always_inline)) void
far_loop(walk_local *restrict F, walk_mlist *restrict L, float ge, const int quad)
{
	/* pad to whole lanes with massless nodes at (1, 0, 0): they add zeros (bh_m2l) */
	for (int j = L->n; j % FAR_LANES; j++) {
		L->x[j] = 1.f;
		L->y[j] = L->z[j] = L->m[j] = L->e[j] = 0.f;
		L->qxx[j] = L->qxy[j] = L->qxz[j] = L->qyy[j] = L->qyz[j] = L->qzz[j] = 0.f;
	}
	for (int j0 = 0; j0 < L->n; j0 += FAR_LANES)
		for (int k = 0; k < FAR_LANES; k++) {
			int j = j0 + k;
			bh_m2l(&F->c[0][k], FAR_LANES, L->x[j], L->y[j], L->z[j], L->m[j],
			       quad ? L->qxx[j] : 0.f, quad ? L->qxy[j] : 0.f, quad ? L->qxz[j] : 0.f,
			       quad ? L->qyy[j] : 0.f, quad ? L->qyz[j] : 0.f, quad ? L->qzz[j] : 0.f,
			       bh_soft2(ge, L->e[j]), quad);
		}
	L->n = 0;
}
WALK_SIMD_CLONES
static void far_quadrupoles(walk_local *restrict F, walk_mlist *restrict L, float ge)
{
	far_loop(F, L, ge, 1);
}
WALK_SIMD_CLONES
static void far_monopoles(walk_local *restrict F, walk_mlist *restrict L, float ge)
{
	far_loop(F, L, ge, 0);
}
static void apply_far(walk_local *F, walk_mlist *L, float ge, int quad)
{
	if (quad) far_quadrupoles(F, L, ge);
	else far_monopoles(F, L, ge);
}

/* The far node M, its com relative to the group's centre (bx, by, bz). */
static void push_far(walk_local *F, walk_mlist *L, const bh_mom *M, const bh_params *P,
                     float bx, float by, float bz, float ge)
{
	int k = L->n;
	L->x[k] = M->x - bx; L->y[k] = M->y - by; L->z[k] = M->z - bz; L->m[k] = M->m;
	L->e[k] = P->soft_h ? M->eps : P->eps;
	L->qxx[k] = M->qxx; L->qxy[k] = M->qxy; L->qxz[k] = M->qxz;
	L->qyy[k] = M->qyy; L->qyz[k] = M->qyz; L->qzz[k] = M->qzz;
	if (++L->n == WALK_LIST) apply_far(F, L, ge, P->quadrupole);
}

/* The walk's counts over received sets since the last bh_walk_let_tally (all threads). */
static int64_t let_tally[BH_LET_TALLY_N];
void bh_walk_let_tally(int64_t out[BH_LET_TALLY_N])
{
	for (int k = 0; k < BH_LET_TALLY_N; k++) out[k] = __atomic_exchange_n(&let_tally[k], 0, __ATOMIC_RELAXED);
}
static void tally(int k, int64_t v)
{
	if (v) __atomic_fetch_add(&let_tally[k], v, __ATOMIC_RELAXED);
}
static int64_t thread_cpu_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The node's softening: its bodies' largest (soft_h) or eps. */
static void push_multipole(walk_targets *T, walk_mlist *L, const bh_mom *M, const bh_params *P)
{
	int k = L->n;
	L->x[k] = M->x; L->y[k] = M->y; L->z[k] = M->z; L->m[k] = M->m;
	L->e[k] = P->soft_h ? M->eps : P->eps;
	L->qxx[k] = M->qxx; L->qxy[k] = M->qxy; L->qxz[k] = M->qxz;
	L->qyy[k] = M->qyy; L->qyz[k] = M->qyz; L->qzz[k] = M->qzz;
	if (++L->n == WALK_LIST) { apply_multipoles(T, L, P->quadrupole); L->n = 0; }
}

/* The particles of an opened leaf; with soft_h their own softenings, seps[stride j] (the local
 * tree's velocities, stride 4, or the softenings received with essential nodes, stride 1). */
static void push_particles(walk_targets *T, walk_plist *L, const bh_body *src, const float *seps,
                           int stride, int32_t b, int32_t e, const bh_params *P)
{
	for (int32_t j = b; j < e; j++) {
		int k = L->n;
		L->x[k] = src[j].x; L->y[k] = src[j].y; L->z[k] = src[j].z; L->m[k] = src[j].m;
		L->e[k] = !P->soft_h ? P->eps : seps[(size_t)stride * (size_t)j];
		if (++L->n == WALK_LIST) { apply_particles(T, L); L->n = 0; }
	}
}

/* The bounding box of the particles b[p0, p1). */
static void group_box(const bh_body *b, int32_t p0, int32_t p1, bh_box *box)
{
	float lo[3] = {b[p0].x, b[p0].y, b[p0].z}, hi[3] = {b[p0].x, b[p0].y, b[p0].z};
	for (int32_t i = p0 + 1; i < p1; i++) {
		const float *p = &b[i].x;
		for (int d = 0; d < 3; d++) {
			lo[d] = p[d] < lo[d] ? p[d] : lo[d];
			hi[d] = p[d] > hi[d] ? p[d] : hi[d];
		}
	}
	box->cx = 0.5f * (lo[0] + hi[0]); box->hx = 0.5f * (hi[0] - lo[0]);
	box->cy = 0.5f * (lo[1] + hi[1]); box->hy = 0.5f * (hi[1] - lo[1]);
	box->cz = 0.5f * (lo[2] + hi[2]); box->hz = 0.5f * (hi[2] - lo[2]);
}

/* The field of source trees S[0 .. nsrc) on the groups of the particles tgt[r0, r1) (vel: their
 * velocities, whose first words are their softenings with P.soft_h).  let = 0: the local tree
 * (one source, src = tgt, seps = vel), out = the field without the self-energy; let = 1: essential
 * nodes received from other ranks (seps: the softenings received with them, bh_let_eps), out +=
 * the field of each source in turn (bh_walk_sets.h: the same sums, in the same order, as one
 * bh_walk_let task per source). */
void bh_walk_groups(const bh_body *tgt, const float *vel, const bh_group *groups, int32_t ng,
                    const bh_walk_src *S, int nsrc, bh_acc *out, int let, bh_params P, bh_range R,
                    float far)
{
	/* depth-first, one node at a time: at most 7 pending siblings per level */
	int32_t stack[8 * (BH_MAXLEVEL + 2)];
	walk_targets T;
	walk_mlist ml, fl;
	walk_plist pl;
	walk_local F;
	const int far_on = let && far > 0.f;
	const int64_t t0 = let ? thread_cpu_ns() : 0;
	for (int32_t g = 0; g < ng; g++) {
		int32_t g0 = groups[g].begin, g1 = groups[g].end, p0 = g0, p1 = g1;
		if (p0 < (int32_t)R.r0) p0 = (int32_t)R.r0;
		if (p1 > (int32_t)R.r1) p1 = (int32_t)R.r1;
		if (p0 >= p1) continue;
		int32_t np = p1 - p0;
		for (int i = 0; i < BH_GROUP; i++) {
			int32_t k = p0 + (i < np ? i : np - 1);
			const bh_body *b = &tgt[k];
			T.x[i] = b->x; T.y[i] = b->y; T.z[i] = b->z;
			T.e[i] = bh_body_eps(&P, vel, k);
		}
		/* the box of the whole group even where this task's range cuts it: the same
		 * interaction lists for any number of walk tasks, and the same as the GPU walk's */
		bh_box box;
		group_box(tgt, g0, g1, &box);
		/* received sets: far nodes into the local expansion about the box's centre, with the
		 * group's mean softening (bh_far2) */
		float far2 = INFINITY, ge = 0.f;
		int64_t n_m2p = 0, n_p2p = 0, n_far = 0;
		if (far_on) {
			float elo = T.e[0], ehi = T.e[0];
			for (int i = 1; i < BH_GROUP; i++) {
				elo = T.e[i] < elo ? T.e[i] : elo;
				ehi = T.e[i] > ehi ? T.e[i] : ehi;
			}
			far2 = bh_far2(&box, elo, ehi, far * P.theta);
			ge = sqrtf(0.5f * (elo * elo + ehi * ehi));
			for (int k = 0; k < BH_LOCAL_N; k++)
				for (int l = 0; l < FAR_LANES; l++) F.c[k][l] = 0.f;
			fl.n = 0;
		}
		/* each source's field summed apart from zero and then added: what one task per
		 * source computes, bit for bit */
		for (int s = 0; s < nsrc; s++) {
			const bh_cell *cells = S[s].cells;
			const bh_mom *mom = S[s].mom;
			for (int i = 0; i < BH_GROUP; i++) T.ax[i] = T.ay[i] = T.az[i] = T.pot[i] = 0.f;
			ml.n = pl.n = 0;
			int top = 0;
			stack[top++] = 0;
			while (top > 0) {
				int32_t c = stack[--top];
				const bh_cell *C = &cells[c];
				if (C->nchild == BH_LET_MULTIPOLE || bh_accept(&mom[c], C, &box)) {
					const bh_mom *M = &mom[c];
					float rx = M->x - box.cx, ry = M->y - box.cy, rz = M->z - box.cz;
					if (rx * rx + ry * ry + rz * rz >= far2) {
						push_far(&F, &fl, M, &P, box.cx, box.cy, box.cz, ge);
						n_far++;
					} else {
						push_multipole(&T, &ml, M, &P);
						n_m2p++;
					}
				} else if (C->nchild == 0) {
					push_particles(&T, &pl, S[s].src, S[s].seps, let ? 1 : 4, C->pbegin,
					               C->pend, &P);
					n_p2p += C->pend - C->pbegin;
				} else
					for (int32_t k = C->nchild - 1; k >= 0; k--) stack[top++] = C->child + k;
			}
			apply_multipoles(&T, &ml, P.quadrupole);
			apply_particles(&T, &pl);
			for (int32_t i = 0; i < np; i++) {
				bh_acc *o = &out[p0 + i - (int32_t)R.r0];
				float self = T.e[i] > 0.f && !let ? 1.f / T.e[i] : 0.f;
				bh_acc f = {P.G * T.ax[i], P.G * T.ay[i], P.G * T.az[i],
				            P.G * (T.pot[i] + tgt[p0 + i].m * self)}; /* no self-energy */
				if (let) { o->ax += f.ax; o->ay += f.ay; o->az += f.az; o->pot += f.pot; }
				else *o = f;
			}
		}
		if (!let) continue;
		tally(BH_LET_TALLY_GROUPS, 1);
		tally(BH_LET_TALLY_M2P, n_m2p * np);
		tally(BH_LET_TALLY_P2P, n_p2p * np);
		if (!n_far) continue;
		/* the far nodes of every set: one expansion, each particle evaluates it once */
		apply_far(&F, &fl, ge, P.quadrupole);
		float L[BH_LOCAL_N];
		for (int k = 0; k < BH_LOCAL_N; k++) {
			float v = 0.f;
			for (int l = 0; l < FAR_LANES; l++) v += F.c[k][l];
			L[k] = v;
		}
		for (int32_t i = 0; i < np; i++) {
			bh_acc f = bh_l2p(L, T.x[i] - box.cx, T.y[i] - box.cy, T.z[i] - box.cz);
			bh_acc *o = &out[p0 + i - (int32_t)R.r0];
			o->ax += P.G * f.ax; o->ay += P.G * f.ay; o->az += P.G * f.az; o->pot += P.G * f.pot;
		}
		tally(BH_LET_TALLY_M2L, n_far);
		tally(BH_LET_TALLY_L2P, np);
	}
	if (let) tally(BH_LET_TALLY_CPU_NS, thread_cpu_ns() - t0);
}

static void walk_cpu(void *buffers[], void *cl_arg)
{
	bh_params P;
	bh_range R;
	starpu_codelet_unpack_args(cl_arg, &P, &R, 0);
	const bh_body *body = (const bh_body *)STARPU_VECTOR_GET_PTR(buffers[0]);
	const int32_t *meta = (const int32_t *)STARPU_VECTOR_GET_PTR(buffers[3]);
	const float *vel = (const float *)STARPU_VECTOR_GET_PTR(buffers[7]);
	const bh_walk_src own = {(const bh_cell *)STARPU_VECTOR_GET_PTR(buffers[1]),
	                         (const bh_mom *)STARPU_VECTOR_GET_PTR(buffers[2]), body, vel};
	bh_walk_groups(body, vel, (const bh_group *)STARPU_VECTOR_GET_PTR(buffers[4]),
	               meta[BH_META_NGROUPS], &own, 1, (bh_acc *)STARPU_VECTOR_GET_PTR(buffers[5]), 0,
	               P, R, 0.f);
}

static void walk_let_cpu(void *buffers[], void *cl_arg)
{
	bh_params P;
	bh_range R;
	float far; /* the far nodes' local expansions (bh_walk_sets.h) */
	starpu_codelet_unpack_args(cl_arg, &P, &R, &far, 0);
	const int32_t *meta = (const int32_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
	const struct tide_let_iface *L = TIDE_LET_IFACE(buffers[3]);
	bh_walk_src src;
	if (!bh_walk_src_of(L, &src)) return;
	bh_walk_groups((const bh_body *)STARPU_VECTOR_GET_PTR(buffers[0]),
	               (const float *)STARPU_VECTOR_GET_PTR(buffers[6]),
	               (const bh_group *)STARPU_VECTOR_GET_PTR(buffers[2]), meta[BH_META_NGROUPS], &src,
	               1, (bh_acc *)STARPU_VECTOR_GET_PTR(buffers[4]), 1, P, R, far);
}

TIDE_CODELET(bh_walk, walk_cpu, tide_bh_walk_cuda, 8,
             STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_W, STARPU_SCRATCH, STARPU_R);

TIDE_CODELET(bh_walk_let, walk_let_cpu, tide_bh_walk_let_cuda, 7,
             STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_RW, STARPU_SCRATCH, STARPU_R);
