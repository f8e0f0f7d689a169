// SPDX-License-Identifier: LGPL-2.1-or-later
// The synthetic gravity domain: a uniform cube cut into Morton pieces, and the sizes a run of it
// would take from its particles, modelled on a virtual tree (include/tide/gravity_synth.h).
// Expected values, not one random draw: where a cell of a real uniform set is split depends on
// whether its count passes the leaf threshold (tide_bh_leaf), so a cell of expected count lambda counts as split with the
// probability p(lambda) that a Poisson count exceeds it, and its subtree's contributions are
// weighted by p, its leaf's by 1 - p; the counts then vary smoothly with the particles per rank
// (a deterministic tree would jump by 8x in leaf size wherever lambda crosses the threshold).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tide/bh_codelets.h"
#include "tide/bh_gravity.h"
#include "tide/bh_interact.h"
#include "tide/gravity_synth.h"

int tide_gravity_synth_init(tide_gravity_synth *s, int size, double n_rank, bh_params P, int fill,
                            int nbox)
{
	if (size < 1 || (size & (size - 1))) return -1;
	memset(s, 0, sizeof *s);
	s->size = size;
	s->n_rank = n_rank;
	s->n_total = n_rank * size;
	s->theta = P.theta;
	s->quad = P.quadrupole;
	s->fill = fill;
	s->nbox = nbox < 1 ? 1 : nbox > BH_VROOT_BOXES ? BH_VROOT_BOXES : nbox;
	s->leaf = tide_bh_leaf(&P); /* the threshold the real build uses */
	/* the received walks' far field, as tide_gravity_init_ranks chooses it (rank 1: its
	 * warning is printed there) */
	s->far = tide_gravity_far_field_choice(getenv("TIDE_GRAVITY_FAR_FIELD"), 1);
	s->w_m2l = TIDE_SYNTH_W_M2L;
	s->w_l2p = TIDE_SYNTH_W_L2P;
	const float lo[3] = {-1.f, -1.f, -1.f}, hi[3] = {1.f, 1.f, 1.f};
	bh_root_cube(lo, hi, &s->universe);
	return 0;
}

void tide_gravity_synth_piece(const tide_gravity_synth *s, int q, double box[6])
{
	int k = 0;
	while ((1 << k) < s->size) k++;
	double c[3] = {s->universe.cx, s->universe.cy, s->universe.cz}, h = s->universe.half;
	/* the Morton digits of q from the top: an octant (x the high bit, as bh_key) per 3 bits */
	int a = k / 3, b = k % 3;
	for (int i = 0; i < a; i++) {
		unsigned o = (unsigned)(q >> (k - 3 * (i + 1))) & 7u;
		h *= 0.5;
		c[0] += (o & 4) ? h : -h;
		c[1] += (o & 2) ? h : -h;
		c[2] += (o & 1) ? h : -h;
	}
	for (int d = 0; d < 3; d++) { box[d] = c[d] - h; box[3 + d] = c[d] + h; }
	/* the remaining 1 or 2 bits halve the cell along x, then y */
	for (int j = 0; j < b; j++) {
		int bit = (q >> (b - 1 - j)) & 1;
		if (bit) box[j] = c[j];
		else box[3 + j] = c[j];
	}
	for (int d = 0; d < 3; d++) {
		box[d] = fmax(box[d], -1.0);
		box[3 + d] = fmin(box[3 + d], 1.0);
	}
}

/* P(X > leaf) for a Poisson X of mean lam: the probability that a cell is split. */
static double p_split(double lam, int level, int leaf)
{
	if (level >= BH_MAXLEVEL || lam < 1.0) return 0.0;
	if (lam > 200.0) return 1.0;
	double term = exp(-lam), cdf = term;
	for (int k = 1; k <= leaf; k++) cdf += term *= lam / k;
	double p = 1.0 - cdf;
	return p < 1e-9 ? 0.0 : p > 1.0 ? 1.0 : p;
}

#ifndef DELTA_K
#define DELTA_K 1.0
#endif

/* The expected particles of cube C within box P and the virtual moments: the centre of mass is
 * the centre of that part (uniform density), rcrit2 as bh_moments makes it. */
static double cell_part(const tide_gravity_synth *s, const double P[6], const bh_cell *C, bh_mom *M)
{
	const double c[3] = {C->cx, C->cy, C->cz};
	double vol = 1.0, com[3];
	for (int d = 0; d < 3; d++) {
		double lo = fmax(c[d] - C->half, P[d]), hi = fmin(c[d] + C->half, P[3 + d]);
		if (hi <= lo) return 0.0;
		vol *= hi - lo;
		com[d] = 0.5 * (lo + hi);
	}
	double lam = s->n_total * vol / 8.0;
	memset(M, 0, sizeof *M);
	M->x = (float)com[0]; M->y = (float)com[1]; M->z = (float)com[2];
	M->m = (float)(lam / s->n_total);
	/* rcrit = l/theta + delta: a real cell's centre of mass lies off its cube's centre by
	 * delta, whose rms for lam uniform particles is half / sqrt(lam) (each coordinate's spread
	 * half / sqrt(3 lam)); without it the essential sets of real runs came out 15-45 % larger */
	double r = sqrt((double)bh_rcrit2(C, M, s->theta, s->quad)) + DELTA_K * C->half / sqrt(fmax(lam, 1.0));
	M->rcrit2 = (float)(r * r);
	return lam;
}

/* The root of rank q's tree: the smallest cell of the common root holding its box. */
static void piece_root(const tide_gravity_synth *s, const double P[6], bh_cell *r)
{
	float lo[3], hi[3];
	for (int d = 0; d < 3; d++) {
		double e = 1e-6 * (P[3 + d] - P[d]);
		lo[d] = (float)(P[d] + e);
		hi[d] = (float)(P[3 + d] - e);
	}
	bh_root_within(lo, hi, &s->universe, r);
}

void tide_gravity_synth_vroot(const tide_gravity_synth *s, int q, bh_vroot *v)
{
	double P[6];
	tide_gravity_synth_piece(s, q, P);
	memset(v, 0, sizeof *v);
	v->n = (uint32_t)llround(s->n_rank);
	if (v->n == 0) return;
	for (int d = 0; d < 3; d++) {
		double e = 1e-6 * (P[3 + d] - P[d]);
		v->lo[d] = (float)(P[d] + e);
		v->hi[d] = (float)(P[3 + d] - e);
	}
	v->x = 0.5f * (v->lo[0] + v->hi[0]);
	v->y = 0.5f * (v->lo[1] + v->hi[1]);
	v->z = 0.5f * (v->lo[2] + v->hi[2]);
	v->m = (float)(1.0 / s->size);
	/* bh_vroot_cover on the virtual tree: the splittable cell (more than fill particles) with
	 * the largest cube, then the most particles, then the first, replaced by its children
	 * while they fit in nbox */
	bh_cell f[BH_VROOT_BOXES];
	double lam[BH_VROOT_BOXES];
	int nf = 1;
	bh_mom M;
	piece_root(s, P, &f[0]);
	lam[0] = cell_part(s, P, &f[0], &M);
	for (;;) {
		int best = -1, bestn = 0;
		bh_cell ch[8];
		double cl[8];
		for (int i = 0; i < nf; i++) {
			if (lam[i] <= (s->fill > 1 ? s->fill : s->leaf)) continue;
			bh_cell c[8];
			double l[8];
			int nc = 0;
			for (unsigned o = 0; o < 8; o++) {
				bh_child_cube(&f[i], o, &c[nc]);
				l[nc] = cell_part(s, P, &c[nc], &M);
				if (l[nc] > 0) nc++;
			}
			if (nf - 1 + nc > s->nbox) continue;
			if (best >= 0 && (f[i].half < f[best].half ||
			                  (f[i].half == f[best].half && lam[i] <= lam[best])))
				continue;
			best = i;
			bestn = nc;
			memcpy(ch, c, sizeof c);
			memcpy(cl, l, sizeof l);
		}
		if (best < 0) break;
		f[best] = ch[0];
		lam[best] = cl[0];
		for (int k = 1; k < bestn; k++) { f[nf] = ch[k]; lam[nf++] = cl[k]; }
	}
	v->nbox = (uint32_t)nf;
	for (int i = 0; i < nf; i++) {
		const float c[3] = {f[i].cx, f[i].cy, f[i].cz};
		for (int d = 0; d < 3; d++) {
			float lo = c[d] - f[i].half, hi = c[d] + f[i].half;
			v->box[i][d] = lo > v->lo[d] ? lo : v->lo[d];
			v->box[i][3 + d] = hi < v->hi[d] ? hi : v->hi[d];
			if (v->box[i][3 + d] < v->box[i][d]) v->box[i][3 + d] = v->box[i][d];
		}
	}
}

/* bh_let_choose for a virtual cell that may be split (the choice between open and leaf is
 * made by the caller with p). */
static int let_kind(const bh_cell *C, const bh_mom *M, const bh_vroot *to, float far2)
{
	bh_cell c = *C;
	c.nchild = 8;
	return bh_let_choose(&c, M, to, 0, far2);
}

static void let_rec(const tide_gravity_synth *s, const double P[6], const bh_cell *C, int level,
                    const bh_vroot *to, float far2, double w, double *nc, double *np)
{
	bh_mom M;
	double lam = cell_part(s, P, C, &M);
	if (lam <= 0) return;
	*nc += w;
	if (let_kind(C, &M, to, far2) == BH_LET_KEEP_MULTIPOLE) return;
	double p = p_split(lam, level, s->leaf);
	*np += w * (1 - p) * lam;
	if (p <= 0) return;
	for (unsigned o = 0; o < 8; o++) {
		bh_cell ch;
		bh_child_cube(C, o, &ch);
		let_rec(s, P, &ch, level + 1, to, far2, w * p, nc, np);
	}
}

/* The level of cell r in the common root's octree. */
static int level_of(const tide_gravity_synth *s, const bh_cell *r)
{
	int L = 0;
	for (float h = s->universe.half; h > r->half * 1.5f && L < BH_MAXLEVEL; h *= 0.5f) L++;
	return L;
}

static void let_counts(const tide_gravity_synth *s, int from, const bh_vroot *to, float far2,
                       double *ncells, double *nparts)
{
	double P[6];
	bh_cell r;
	tide_gravity_synth_piece(s, from, P);
	piece_root(s, P, &r);
	*ncells = *nparts = 0;
	if (s->n_rank <= 0 || (far2 < 0 && (!to || to->n == 0))) return;
	let_rec(s, P, &r, level_of(s, &r), to, far2, 1.0, ncells, nparts);
}

/* Interactions of one group (box g) with the tree of box P from cell C, weighted by w, into
 * out: a received multipole (let: the sender's choice) or a node the group accepts counts one
 * in out[0], or in out[1] when it is far from the group (received sets, |com - centre|^2 >= gfar2:
 * bh_far2), an opened leaf its particles in out[0]. */
static void walk_rec(const tide_gravity_synth *s, const double P[6], const bh_cell *C, int level,
                     const bh_box *g, int let, const bh_vroot *to, float far2, float gfar2,
                     double w, double out[2])
{
	bh_mom M;
	double lam = cell_part(s, P, C, &M);
	if (lam <= 0) return;
	if ((let && let_kind(C, &M, to, far2) == BH_LET_KEEP_MULTIPOLE) || bh_accept(&M, C, g)) {
		float rx = M.x - g->cx, ry = M.y - g->cy, rz = M.z - g->cz;
		out[let && rx * rx + ry * ry + rz * rz >= gfar2] += w;
		return;
	}
	double p = p_split(lam, level, s->leaf);
	out[0] += w * (1 - p) * lam;
	if (p <= 0) return;
	for (unsigned o = 0; o < 8; o++) {
		bh_cell ch;
		bh_child_cube(C, o, &ch);
		walk_rec(s, P, &ch, level + 1, g, let, to, far2, gfar2, w * p, out);
	}
}

/* Where the walk groups are sampled, per dimension of the receiver's box (fractions of its side)
 * and the share of the side each stands for.  Fine: refined towards the faces, where a
 * neighbour's essential nodes give the groups hundreds of times the interactions of those
 * inside (a uniform lattice missed that layer: half the mean of a face neighbour's).  Coarse:
 * a uniform lattice of 3, for the far ranks' coarse trees, whose field varies slowly. */
static const double fine_u[7] = {0.003, 0.03, 0.2, 0.5, 0.8, 0.97, 0.997};
static const double fine_w[7] = {0.0165, 0.0985, 0.235, 0.3, 0.235, 0.0985, 0.0165};
static const double coarse_u[3] = {1.0 / 6, 0.5, 5.0 / 6};
static const double coarse_w[3] = {1.0 / 3, 1.0 / 3, 1.0 / 3};

/* out[0]: interactions per particle, out[1]: far nodes per group / BH_GROUP (walk_rec). */
static void walk_mean(const tide_gravity_synth *s, int to, int from, const bh_vroot *v,
                      float far2, int fine, double out[2])
{
	double P[6], Q[6];
	bh_cell r;
	tide_gravity_synth_piece(s, from, P);
	tide_gravity_synth_piece(s, to, Q);
	piece_root(s, P, &r);
	out[0] = out[1] = 0;
	if (s->n_rank <= 0) return;
	/* a walk group: 32 particles of the Morton order in a cell of at most fill, about the box
	 * of 48 particles' volume (runs cross leaf boundaries) */
	double half = 0.5 * cbrt(48.0 * 8.0 / s->n_total);
	int L = level_of(s, &r), let = from != to, m = fine ? 7 : 3;
	const double *u = fine ? fine_u : coarse_u, *w = fine ? fine_w : coarse_w;
	/* the far criterion of such a group (one softening: no spread) */
	bh_box g0 = {0.f, 0.f, 0.f, (float)half, (float)half, (float)half};
	float gfar2 = let ? bh_far2(&g0, 0.f, 0.f, s->far * s->theta) : INFINITY;
	for (int i = 0; i < m; i++)
		for (int j = 0; j < m; j++)
			for (int k = 0; k < m; k++) {
				const int ijk[3] = {i, j, k};
				double c[3];
				for (int d = 0; d < 3; d++) c[d] = Q[d] + u[ijk[d]] * (Q[3 + d] - Q[d]);
				bh_box g = {(float)c[0], (float)c[1], (float)c[2], (float)half, (float)half, (float)half};
				walk_rec(s, P, &r, L, &g, let, v, far2, gfar2, w[i] * w[j] * w[k], out);
			}
	out[1] /= BH_GROUP;
}

/* ---- a cache of the results, shared by the ranks of one process ----
 * A simulation runs every rank in one process (SMPI), each computing its own exchange: R^2 pairs
 * whose results depend, the pieces being congruent, only on the sender's offset from the
 * receiver (and far2), so the ranks share them.  SMPI gives each rank its own copy of the
 * program's globals; the environment is the process's, so the table's address goes there. */
#define CACHE_SLOTS 65536
typedef struct cache_entry {
	int used, what, dx, dy, dz;
	uint32_t far2_bits, far_bits;
	double n_rank;
	int size;
	double v[2];
} cache_entry;

static cache_entry *cache_table(void)
{
	const char *e = getenv("TIDE_GRAVITY_SYNTH_CACHE");
	void *p = NULL;
	if (e && !strcmp(e, "off")) return NULL; /* tests: every result computed */
	if (e && sscanf(e, "%p", &p) == 1 && p) return p;
	p = calloc(CACHE_SLOTS, sizeof(cache_entry));
	if (!p) return NULL;
	char buf[64];
	snprintf(buf, sizeof buf, "%p", p);
	setenv("TIDE_GRAVITY_SYNTH_CACHE", buf, 1);
	return p;
}

/* The slot of a result (what: 0 essential nodes, 1 walk) of sender `from` for receiver `to`,
 * or NULL when the table is full. */
static cache_entry *cache_slot(const tide_gravity_synth *s, int what, int from, int to, float far2)
{
	cache_entry *t = cache_table();
	if (!t) return NULL;
	double P[6], Q[6];
	tide_gravity_synth_piece(s, from, P);
	tide_gravity_synth_piece(s, to, Q);
	int o[3];
	for (int d = 0; d < 3; d++)
		o[d] = (int)lround((0.5 * (P[d] + P[3 + d]) - 0.5 * (Q[d] + Q[3 + d])) / (Q[3 + d] - Q[d]));
	if (what == 0 && far2 >= 0) o[0] = o[1] = o[2] = 0; /* a coarse tree is the sender's alone */
	uint32_t f2, fr;
	memcpy(&f2, &far2, sizeof f2);
	memcpy(&fr, &s->far, sizeof fr);
	uint64_t h = (uint64_t)(what + 3) * 0x9e3779b97f4a7c15ull;
	h = (h ^ (uint64_t)(o[0] + 4096)) * 0x100000001b3ull;
	h = (h ^ (uint64_t)(o[1] + 4096)) * 0x100000001b3ull;
	h = (h ^ (uint64_t)(o[2] + 4096)) * 0x100000001b3ull;
	h = (h ^ f2 ^ (uint64_t)s->size << 32) * 0x100000001b3ull;
	h = (h ^ fr) * 0x100000001b3ull;
	for (uint64_t i = 0; i < 64; i++) {
		cache_entry *c = &t[(h + i) % CACHE_SLOTS];
		if (!c->used) {
			*c = (cache_entry){0, what, o[0], o[1], o[2], f2, fr, s->n_rank, s->size, {0, 0}};
			return c;
		}
		if (c->what == what && c->dx == o[0] && c->dy == o[1] && c->dz == o[2] &&
		    c->far2_bits == f2 && c->far_bits == fr && c->n_rank == s->n_rank && c->size == s->size)
			return c;
	}
	return NULL;
}

void tide_gravity_synth_walk_parts(const tide_gravity_synth *s, int to, int from, const bh_vroot *v,
                                   float far2, double out[2])
{
	/* the own tree and near ranks' essential nodes: the fine rule; coarse trees: the coarse one */
	int fine = far2 < 0;
	if (from == to || s->size == 1) { walk_mean(s, to, from, v, far2, fine, out); return; }
	cache_entry *c = cache_slot(s, 1, from, to, far2);
	if (c && c->used) { out[0] = c->v[0]; out[1] = c->v[1]; return; }
	walk_mean(s, to, from, v, far2, fine, out);
	if (c) { c->used = 1; c->v[0] = out[0]; c->v[1] = out[1]; }
}

double tide_gravity_synth_walk(const tide_gravity_synth *s, int to, int from, const bh_vroot *v,
                               float far2)
{
	double w[2];
	tide_gravity_synth_walk_parts(s, to, from, v, far2, w);
	return w[0] + s->w_m2l * w[1];
}

void tide_gravity_synth_weights(tide_gravity_synth *s, const char *v, int rank)
{
	s->w_m2l = TIDE_SYNTH_W_M2L;
	s->w_l2p = TIDE_SYNTH_W_L2P;
	if (!v || !*v) return;
	double a, b;
	char end;
	if (sscanf(v, "%lf,%lf%c", &a, &b, &end) == 2 && a >= 0 && b >= 0 && isfinite(a) && isfinite(b)) {
		s->w_m2l = a;
		s->w_l2p = b;
		return;
	}
	if (rank == 0)
		fprintf(stderr, "tide: warning: TIDE_GRAVITY_SYNTH_WEIGHTS='%s' is not two numbers >= 0 "
		        "'M2L,L2P': using %g,%g.\n", v, TIDE_SYNTH_W_M2L, TIDE_SYNTH_W_L2P);
}

void tide_gravity_synth_let(const tide_gravity_synth *s, int from, int to_rank, const bh_vroot *to,
                            float far2, double *ncells, double *nparts)
{
	cache_entry *c = cache_slot(s, 0, from, to_rank, far2);
	if (c && c->used) {
		*ncells = c->v[0];
		*nparts = c->v[1];
		return;
	}
	let_counts(s, from, to, far2, ncells, nparts);
	if (c) { c->used = 1; c->v[0] = *ncells; c->v[1] = *nparts; }
}
