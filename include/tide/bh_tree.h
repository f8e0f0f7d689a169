/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Barnes–Hut octree layout and the maths shared by the CPU and CUDA codelets (bh_build,
 * bh_moments, bh_walk): Morton keys, the opening test and the particle–particle and
 * node–particle (monopole + quadrupole) interactions, all in single precision.
 *
 * Layout (structure of cells + separate moments, so that the walk streams only what it needs):
 *   bodies  float4 x, y, z, m per particle, reordered in place into Morton order by bh_build
 *   cells   one bh_cell per octree node, breadth first: cell 0 is the root, the children of a
 *           cell are contiguous and in octant order, leaves have nchild == 0
 *   moments one bh_mom per cell: centre of mass, mass, traceless quadrupole, rcrit²
 *   groups  the walk's units of work: runs of at most BH_GROUP consecutive particles that stay
 *           inside one cell of at most BH_GROUP_CELL particles (bh_cell_groups)
 *   meta    int32 counters: cell count, group count, first cell of each level, and the tight
 *           bounding box of the particles (float bits)
 *
 * Across ranks (locally essential trees): every rank's virtual root (bh_vroot: particle box,
 * mass, centre of mass) is known to all; for each other rank a rank sends the part of its tree a
 * walk from anywhere in that rank's box needs (bh_essential), laid out as a small tree of the same
 * cells and moments (bh_let_*), which the receiver walks like its own.
 */
#ifndef TIDE_BH_TREE_H
#define TIDE_BH_TREE_H
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "tide/hd.h"

/* A cell with more particles than the leaf threshold is split (unless at the deepest level).
 * The threshold (tide_bh_leaf): BH_LEAF without softening, BH_LEAF_SOFT with (32 for all
 * until 2026-12-06), TIDE_BH_LEAF within [BH_LEAF_MIN, BH_LEAF_MAX] to choose another.  Why 24:
 * a uniform density of lambda particles per cube of some level gives leaves of lambda / 8^k, the
 * first below the threshold T, i.e. in (T/8, T]; with T = 32 the 4 x 8^k-rank pieces of the
 * scaling runs (lambda = 32 at a level: the cube cut in quarters) got a Poisson mix of leaves of
 * ~32 and ~4 (mean 16.5 per particle) where the cube pieces' held 8, and their own walk 23 %
 * more interactions and ~11 % more CPU time; T = 24 ~ 8 sqrt(8) centres (T/8, T] on 8 in log,
 * splits those cells into leaves of ~4 (mean 6.1) and leaves the cube (8) and half (16) pieces'
 * trees as they were; Plummer 1 M: 4 % fewer interactions, the same errors
 * (bench/results/sim-gravity/2026-12-06-shape, tests/bh_shape_study).  Why not with softening:
 * smaller leaves move near pairs from exact softened sums into multipoles (softened as point
 * masses, bh_interact.h: the likely cause, not isolated); on the small softened tests the errors grew
 * beyond their bounds (test_self_gravity, eps ~ the spacing: 99th percentile 5.6e-4 -> 8.9e-4
 * with quadrupoles; test_gas_nbody with softenings h: 6.6e-4 -> 3.0e-3). */
#define BH_LEAF 24
#define BH_LEAF_SOFT 32
#define BH_LEAF_MIN 8
#define BH_LEAF_MAX 64
#define BH_GROUP 32      /* particles per walk group: one warp */
#define BH_BITS 21       /* Morton bits per dimension: 63-bit keys */
#define BH_MAXLEVEL 21   /* cells at this level are never split */

/* meta[] indices */
#define BH_META_NCELLS 0
#define BH_META_NGROUPS 1
#define BH_META_LEVEL 4  /* meta[BH_META_LEVEL + L] = first cell of level L, L = 0..22 */
#define BH_META_BOX 32   /* meta[32..37]: lo x, y, z and hi x, y, z of the particles (float bits) */
#define BH_META_LEN 40

typedef struct bh_body {
	float x, y, z, m;
} bh_body;

typedef struct bh_cell {
	float cx, cy, cz, half; /* geometric centre and half side of the cube */
	int32_t child, nchild;  /* first child cell and child count (0 for a leaf; BH_LET_MULTIPOLE
	                         * for a received node that passed the test against the whole box) */
	int32_t pbegin, pend;   /* particle range in Morton order */
} bh_cell;

typedef struct bh_mom {
	float x, y, z, m;                  /* centre of mass and mass */
	float qxx, qxy, qxz, qyy;          /* Q_ij = sum m (3 d_i d_j - d^2 delta_ij), d from com */
	float qyz, qzz, rcrit2, eps;       /* rcrit = l/theta + delta, see bh_rcrit2; eps: the
	                                    * largest softening of the cell's bodies (bh_soft2) */
} bh_mom;

typedef struct bh_group {
	int32_t begin, end;
} bh_group;

/* Arguments of the codelets (passed by value). */
typedef struct bh_params {
	float theta;      /* opening angle */
	float eps;        /* Plummer softening length */
	float G;          /* gravitational constant */
	int quadrupole;   /* 1: monopole + quadrupole, 0: monopole */
	int soft_h;       /* 1: every body has its own softening, in the first word of its velocity
	                   * (the SPH self-gravity's bodies have no velocity: sph_gravity_math.h);
	                   * 0: eps for all (bh_soft2) */
} bh_params;

/* Softening of body i (vel: the bodies' velocities, 4 floats each). */
TIDE_HD float bh_body_eps(const bh_params *P, const float *vel, int64_t i)
{
	return P->soft_h ? vel[4 * i] : P->eps;
}

/* The squared Plummer softening of a pair whose sides have softenings ei and ej (a body, or a
 * node: the largest of its bodies'): the mean of the squares, symmetric in i and j so that the
 * pair forces stay equal and opposite, and exactly eps^2 when both are eps (the walks' inner
 * loops then round as with one softening).  A mean rather than a max: it is branch-free, so the
 * CPU walk's loops still vectorize (bh_interact.h). */
TIDE_HD float bh_soft2(float ei, float ej)
{
	return 0.5f * (ei * ei + ej * ej);
}
/* The same mean for the double-precision direct sums (bh_direct), the accuracy reference: the
 * products of floats are exact in double and the sum is rounded once, so the CPU and the GPU
 * (which may contract the float form into an FMA, 3e-7 apart) give the same bits. */
TIDE_HD double bh_soft2_ref(float ei, float ej)
{
	return 0.5 * ((double)ei * ei + (double)ej * ej);
}

/* Upper bounds used to size the handles for n particles.  Cells: leaves are disjoint and
 * non-empty (at most n); a split cell holds more than leaf particles (the build's threshold,
 * tide_bh_leaf) and cells of one level are disjoint, so each of the levels 0..20 has at most
 * n/(leaf+1) of them. */
static inline uint32_t bh_max_cells(uint32_t n, int leaf)
{
	return n + BH_MAXLEVEL * (n / (uint32_t)(leaf + 1) + 1) + 1;
}
/* Groups: each holds at least one particle, so at most n (with margin). */
static inline uint32_t bh_max_groups(uint32_t n) { return n + n / BH_GROUP + 1; }

/* The virtual root of a rank: what every other rank knows of it. */
#define BH_VROOT_BOXES 16
typedef struct bh_vroot {
	float lo[3], hi[3];  /* bounding box of the rank's particles (all 0 without particles) */
	float x, y, z, m;    /* centre of mass and mass */
	uint32_t n;          /* particles */
	uint32_t nbox;       /* boxes in box[]: 1 .. BH_VROOT_BOXES with particles (bh_vroot_cover) */
	uint32_t pad[2];
	float box[BH_VROOT_BOXES][6]; /* lo x, y, z, hi x, y, z: together they hold every walk group */
} bh_vroot;

/* A received essential node used as a multipole for every particle of the receiving rank. */
#define BH_LET_MULTIPOLE (-1)

/* Layout of an essential-node buffer of capacity (cap_cells, cap_parts): cells, their moments,
 * then the particles of the opened leaves (the cells' pbegin/pend index them), then those
 * particles' softenings (bh_body_eps on the sender: with soft_h each its own, so that a pair
 * across ranks is softened by bh_soft2 of the two bodies' own, as on one rank). */
TIDE_HD size_t bh_let_moms_offset(uint32_t cap_cells) { return (size_t)cap_cells * sizeof(bh_cell); }
TIDE_HD size_t bh_let_parts_offset(uint32_t cap_cells)
{
	return (size_t)cap_cells * (sizeof(bh_cell) + sizeof(bh_mom));
}
TIDE_HD size_t bh_let_eps_offset(uint32_t cap_cells, uint32_t cap_parts)
{
	return bh_let_parts_offset(cap_cells) + (size_t)cap_parts * sizeof(bh_body);
}
TIDE_HD size_t bh_let_bytes(uint32_t cap_cells, uint32_t cap_parts)
{
	return bh_let_eps_offset(cap_cells, cap_parts) + (size_t)cap_parts * sizeof(float);
}
TIDE_HD bh_cell *bh_let_cells(void *base) { return (bh_cell *)base; }
TIDE_HD bh_mom *bh_let_moms(void *base, uint32_t cap_cells)
{
	return (bh_mom *)((char *)base + bh_let_moms_offset(cap_cells));
}
TIDE_HD bh_body *bh_let_parts(void *base, uint32_t cap_cells)
{
	return (bh_body *)((char *)base + bh_let_parts_offset(cap_cells));
}
TIDE_HD float *bh_let_eps(void *base, uint32_t cap_cells, uint32_t cap_parts)
{
	return (float *)((char *)base + bh_let_eps_offset(cap_cells, cap_parts));
}

/* Spreads the low 21 bits of v so that there are two zero bits between each. */
TIDE_HD uint64_t bh_spread(uint32_t v)
{
	uint64_t x = v & 0x1fffffu;
	x = (x | x << 32) & 0x1f00000000ffffull;
	x = (x | x << 16) & 0x1f0000ff0000ffull;
	x = (x | x << 8) & 0x100f00f00f00f00full;
	x = (x | x << 4) & 0x10c30c30c30c30c3ull;
	x = (x | x << 2) & 0x1249249249249249ull;
	return x;
}

/* a * b and a + b, each rounded on its own.  nvcc fuses a * b + c into one fused multiply-add
 * (rounded once) wherever it can, the host compiler does not (ISO C mode: -ffp-contract=off), so
 * any arithmetic that decides the Morton order or the tree geometry goes through these, and the
 * CPU and GPU builds give the same keys, the same root cube and the same cells. */
TIDE_HD float bh_mul_rn(float a, float b)
{
#ifdef __CUDA_ARCH__
	return __fmul_rn(a, b);
#else
	return a * b;
#endif
}
TIDE_HD float bh_add_rn(float a, float b)
{
#ifdef __CUDA_ARCH__
	return __fadd_rn(a, b);
#else
	return a + b;
#endif
}

/* Grid coordinate (0 .. 2^21-1) of x in the root cube [lo, lo + 2 half). */
TIDE_HD uint32_t bh_grid(float x, float lo, float inv_side)
{
	float f = bh_mul_rn(bh_mul_rn(bh_add_rn(x, -lo), inv_side), (float)(1u << BH_BITS));
	if (!(f > 0.f)) return 0;                 /* also NaN */
	if (f >= (float)((1u << BH_BITS) - 1)) return (1u << BH_BITS) - 1;
	return (uint32_t)f;
}

TIDE_HD uint64_t bh_key(float x, float y, float z, const bh_cell *root)
{
	float inv = 1.f / (2.f * root->half);
	float lx = root->cx - root->half, ly = root->cy - root->half, lz = root->cz - root->half;
	return bh_spread(bh_grid(x, lx, inv)) << 2 | bh_spread(bh_grid(y, ly, inv)) << 1 |
	       bh_spread(bh_grid(z, lz, inv));
}

/* Octant (0..7) of a key at level L: the digit that selects the child of a level-L cell. */
TIDE_HD unsigned bh_digit(uint64_t key, int L)
{
	return (unsigned)(key >> (3 * (BH_MAXLEVEL - 1 - L))) & 7u;
}

/* Child cube of octant o: bit 2 is x, bit 1 y, bit 0 z (as in the key). */
TIDE_HD void bh_child_cube(const bh_cell *p, unsigned o, bh_cell *c)
{
	float h = 0.5f * p->half;
	c->cx = bh_add_rn(p->cx, (o & 4) ? h : -h);
	c->cy = bh_add_rn(p->cy, (o & 2) ? h : -h);
	c->cz = bh_add_rn(p->cz, (o & 1) ? h : -h);
	c->half = h;
}

/* Root cube from the particles' bounding box: a cube a little larger than the box, never of
 * zero size, so that coincident particles still get a valid (deepest-level) leaf. */
TIDE_HD void bh_root_cube(const float lo[3], const float hi[3], bh_cell *r)
{
	float ext = 0.f, big = 0.f;
	for (int d = 0; d < 3; d++) {
		float e = hi[d] - lo[d];
		ext = e > ext ? e : ext;
		float a = fabsf(lo[d]) > fabsf(hi[d]) ? fabsf(lo[d]) : fabsf(hi[d]);
		big = a > big ? a : big;
	}
	/* not fused (bh_add_rn): nvcc made this fma(0.5 ext, 1.0001, 1e-6 big), one ulp off the
	 * host's value for the 300 k uniform cube of test_bh, and that moved ~1000 particles to
	 * other leaves (keys near cell boundaries), so the CUDA and CPU trees differed */
	float half = bh_add_rn(bh_add_rn(bh_mul_rn(bh_mul_rn(0.5f, ext), 1.0001f), bh_mul_rn(1e-6f, big)),
	                       1e-30f);
	r->cx = 0.5f * (lo[0] + hi[0]);
	r->cy = 0.5f * (lo[1] + hi[1]);
	r->cz = 0.5f * (lo[2] + hi[2]);
	r->half = half;
	r->child = 0; r->nchild = 0;
}

/* The root cube of a rank's tree when the ranks share a universe cube U (U->half > 0): the
 * smallest cell of U's octree that holds the particle box [lo, hi], so that the cells of every
 * rank's tree are cells of one octree (those inside a rank's piece of space are the very cells
 * a single tree of all particles would have, moments included).  Without U, or when the box
 * leaves U, the rank's own cube (bh_root_cube). */
TIDE_HD void bh_root_within(const float lo[3], const float hi[3], const bh_cell *U, bh_cell *r)
{
	int inside = U->half > 0.f;
	const float *uc = &U->cx;
	for (int d = 0; d < 3 && inside; d++)
		inside = lo[d] >= bh_add_rn(uc[d], -U->half) && hi[d] < bh_add_rn(uc[d], U->half);
	if (!inside) {
		bh_root_cube(lo, hi, r);
		return;
	}
	bh_cell c = *U;
	for (int L = 0; L < BH_MAXLEVEL; L++) {
		unsigned olo = (lo[0] >= c.cx) << 2 | (lo[1] >= c.cy) << 1 | (lo[2] >= c.cz);
		unsigned ohi = (hi[0] >= c.cx) << 2 | (hi[1] >= c.cy) << 1 | (hi[2] >= c.cz);
		if (olo != ohi) break;
		bh_cell ch;
		bh_child_cube(&c, olo, &ch);
		c.cx = ch.cx; c.cy = ch.cy; c.cz = ch.cz; c.half = ch.half;
	}
	*r = c;
	r->child = 0; r->nchild = 0;
}

/* [b, e) cut into groups of BH_GROUP particles (the last one shorter), written to out (counted
 * only when out is NULL). */
TIDE_HD int32_t bh_chunk_range(int32_t b, int32_t e, bh_group *out)
{
	int32_t ng = 0;
	for (; b < e; b += BH_GROUP, ng++)
		if (out) { out[ng].begin = b; out[ng].end = b + BH_GROUP < e ? b + BH_GROUP : e; }
	return ng;
}

/* Cell size bound of the default walk groups (bh_cell_groups). */
#define BH_GROUP_CELL 2048

/* The walk groups made under cell c, written to out (counted only when out is NULL):
 *   fill > 1  every cell of at most fill particles whose parent holds more (and every leaf of
 *             a larger parent) is cut whole into runs of BH_GROUP consecutive particles: every
 *             lane of the walk's warp busy but the last run's, and a group never leaves a cell
 *             of fill particles, so its box stays small (default fill: BH_GROUP_CELL);
 *   fill = 0  runs of adjacent leaf children holding at most BH_GROUP particles together
 *             (adjacent children are contiguous in Morton order), over-full deepest-level
 *             leaves cut into BH_GROUP chunks: 23 particles per group on Plummer spheres, a
 *             quarter of the lanes idle.
 * Called for every internal cell, and for the root when it is a leaf.  Why bounded: runs of 32
 * of the whole Morton order were tried, and a run that straddles two large cells gets a box of
 * half the domain and opens every cell it overlaps; a handful of them made the walk 4.7x
 * slower at 16.8 M on the H200.  Measured there (Plummer 16.8 M, theta 0.6, quadrupoles, walk):
 * leaf runs 0.164 s, fill 256 0.148, 512 0.140, 2048 0.136, 8192 0.136, 32768 0.137. */
TIDE_HD int32_t bh_cell_groups(const bh_cell *cells, int32_t c, bh_group *out, int fill)
{
	const bh_cell *P = &cells[c];
	if (P->nchild == 0) return bh_chunk_range(P->pbegin, P->pend, out);
	int32_t ng = 0;
	if (fill > 1) {
		if (P->pend - P->pbegin <= fill) return c == 0 ? bh_chunk_range(P->pbegin, P->pend, out) : 0;
		for (int32_t k = 0; k < P->nchild; k++) {
			const bh_cell *C = &cells[P->child + k];
			if (C->nchild == 0 || C->pend - C->pbegin <= fill)
				ng += bh_chunk_range(C->pbegin, C->pend, out ? out + ng : NULL);
		}
		return ng;
	}
	int32_t rb = -1, re = -1;
	for (int32_t k = 0; k < P->nchild; k++) {
		const bh_cell *C = &cells[P->child + k];
		if (C->nchild == 0 && C->pend - C->pbegin <= BH_GROUP) {
			if (rb >= 0 && C->pend - rb <= BH_GROUP) { re = C->pend; continue; }
			if (rb >= 0) ng += bh_chunk_range(rb, re, out ? out + ng : NULL);
			rb = C->pbegin; re = C->pend;
			continue;
		}
		if (rb >= 0) { ng += bh_chunk_range(rb, re, out ? out + ng : NULL); rb = -1; }
		if (C->nchild == 0) ng += bh_chunk_range(C->pbegin, C->pend, out ? out + ng : NULL);
	}
	if (rb >= 0) ng += bh_chunk_range(rb, re, out ? out + ng : NULL);
	return ng;
}

/* Bounding box of a walk group: centre and half extents. */
typedef struct bh_box {
	float cx, cy, cz, hx, hy, hz;
} bh_box;

/* The particle box stored by bh_build in meta, and read back. */
TIDE_HD void bh_meta_set_box(int32_t *meta, const float lo[3], const float hi[3])
{
	memcpy(meta + BH_META_BOX, lo, 3 * sizeof(float));
	memcpy(meta + BH_META_BOX + 3, hi, 3 * sizeof(float));
}
TIDE_HD void bh_meta_get_box(const int32_t *meta, float lo[3], float hi[3])
{
	memcpy(lo, meta + BH_META_BOX, 3 * sizeof(float));
	memcpy(hi, meta + BH_META_BOX + 3, 3 * sizeof(float));
}

/* Centre and half extents of box i of a rank's virtual root, widened by a few ulps so that
 * rounding the centre cannot leave a particle of the box outside it (the essential nodes must be
 * safe for every point of the box), and by 1e-5 of its largest half side (a particle's Morton key,
 * rounded, may put it that far outside its cell's cube). */
TIDE_HD void bh_vroot_box_i(const bh_vroot *v, int i, bh_box *b)
{
	float c[3], h[3], hm = 0.f;
	const float *lo = v->box[i], *hi = v->box[i] + 3;
	for (int d = 0; d < 3; d++) {
		float e = 0.5f * (hi[d] - lo[d]);
		hm = e > hm ? e : hm;
	}
	for (int d = 0; d < 3; d++) {
		c[d] = 0.5f * (lo[d] + hi[d]);
		float a = fabsf(lo[d]) > fabsf(hi[d]) ? fabsf(lo[d]) : fabsf(hi[d]);
		h[d] = 0.5f * (hi[d] - lo[d]) + 4e-7f * a + 1e-5f * hm + 1e-30f;
	}
	b->cx = c[0]; b->cy = c[1]; b->cz = c[2];
	b->hx = h[0]; b->hy = h[1]; b->hz = h[2];
}

/* The opening test of the group walk: a node is used as a multipole for every particle of the
 * group when its centre of mass is farther than rcrit = l/theta + delta from the group's box,
 * and its cube does not overlap the box (a node that contains the group is always opened, which
 * matters for large theta, where rcrit can be smaller than the cube's diagonal). */
TIDE_HD int bh_accept(const bh_mom *M, const bh_cell *C, const bh_box *b)
{
	float ox = fabsf(C->cx - b->cx), oy = fabsf(C->cy - b->cy), oz = fabsf(C->cz - b->cz);
	if (ox < C->half + b->hx && oy < C->half + b->hy && oz < C->half + b->hz) return 0;
	/* max(., 0) as a comparison: fmaxf's NaN rules cost a libm call on the host */
	float dx = fabsf(M->x - b->cx) - b->hx, dy = fabsf(M->y - b->cy) - b->hy;
	float dz = fabsf(M->z - b->cz) - b->hz;
	dx = dx > 0.f ? dx : 0.f; dy = dy > 0.f ? dy : 0.f; dz = dz > 0.f ? dz : 0.f;
	/* each operation rounded on its own: nvcc would fuse the sum into FMAs, and a node on the
	 * opening boundary would then be accepted on one side and opened on the other */
	float d2 = bh_add_rn(bh_add_rn(bh_mul_rn(dx, dx), bh_mul_rn(dy, dy)), bh_mul_rn(dz, dz));
	return d2 > M->rcrit2;
}

/* The virtual root of a rank from its tree: the particle box bh_build left in meta, and the
 * root's mass and centre of mass. */
TIDE_HD void bh_vroot_make(const int32_t *meta, const bh_mom *root, uint32_t n, bh_vroot *v)
{
	memset(v, 0, sizeof *v);
	v->n = n;
	if (n == 0) return;
	bh_meta_get_box(meta, v->lo, v->hi);
	v->x = root->x; v->y = root->y; v->z = root->z; v->m = root->m;
	v->nbox = 1; /* the whole box, until bh_vroot_cover */
	for (int d = 0; d < 3; d++) { v->box[0][d] = v->lo[d]; v->box[0][3 + d] = v->hi[d]; }
}

/* Whether the cover of bh_vroot_cover may replace cell c by its children: every walk group
 * (bh_cell_groups with that fill) must stay inside one box.  With fill > 1 a group lies in a
 * cell of at most fill particles, or in a leaf: split cells that hold more.  With leaf runs
 * (fill <= 1) a group may span the leaf children of one cell: split only cells without leaf
 * children. */
TIDE_HD int bh_cover_splits(const bh_cell *cells, int32_t c, int fill)
{
	const bh_cell *C = &cells[c];
	if (C->nchild <= 0) return 0;
	if (fill > 1) return C->pend - C->pbegin > fill;
	for (int32_t k = 0; k < C->nchild; k++)
		if (cells[C->child + k].nchild == 0) return 0;
	return 1;
}

/* The boxes of v (after bh_vroot_make): the cubes of at most kmax cells of the rank's tree that
 * together hold all its particles, each cut to the particle box.  From the root, the splittable
 * cell with the largest cube (then the most particles, then the first) is replaced by its children
 * while they fit.  The essential nodes for the rank are then chosen against every box (a cell
 * goes out as a multipole only when it passes against all): a Morton piece of a sphere has a
 * bounding box that overlaps its neighbours' and reaches the dense centre, while its cells' cubes
 * stay near its own particles. */
TIDE_HD void bh_vroot_cover(const bh_cell *cells, int fill, int kmax, bh_vroot *v)
{
	int32_t f[BH_VROOT_BOXES];
	int nf = 1;
	f[0] = 0;
	if (kmax > BH_VROOT_BOXES) kmax = BH_VROOT_BOXES;
	for (;;) {
		int best = -1;
		for (int i = 0; i < nf; i++) {
			const bh_cell *C = &cells[f[i]];
			if (!bh_cover_splits(cells, f[i], fill) || nf - 1 + C->nchild > kmax) continue;
			if (best >= 0) {
				const bh_cell *B = &cells[f[best]];
				if (C->half < B->half) continue;
				if (C->half == B->half && C->pend - C->pbegin <= B->pend - B->pbegin) continue;
			}
			best = i;
		}
		if (best < 0) break;
		const bh_cell *C = &cells[f[best]];
		int32_t first = C->child, nch = C->nchild;
		f[best] = first;
		for (int32_t k = 1; k < nch; k++) f[nf++] = first + k;
	}
	v->nbox = (uint32_t)nf;
	for (int i = 0; i < nf; i++) {
		const bh_cell *C = &cells[f[i]];
		const float c[3] = {C->cx, C->cy, C->cz};
		for (int d = 0; d < 3; d++) {
			float lo = c[d] - C->half, hi = c[d] + C->half;
			v->box[i][d] = lo > v->lo[d] ? lo : v->lo[d];
			v->box[i][3 + d] = hi < v->hi[d] ? hi : v->hi[d];
			if (v->box[i][3 + d] < v->box[i][d]) v->box[i][3 + d] = v->box[i][d];
		}
	}
}

/* What the essential nodes for a remote box keep of a cell of the sender's tree: its multipole
 * when it passes the opening test against the whole box (then it passes it for every group of
 * the receiver, whose boxes lie inside), else its particles (a leaf) or its children (opened). */
enum { BH_LET_KEEP_MULTIPOLE, BH_LET_KEEP_LEAF, BH_LET_KEEP_OPEN };
TIDE_HD int bh_let_kind(const bh_cell *C, const bh_mom *M, const bh_box *b)
{
	if (bh_accept(M, C, b)) return BH_LET_KEEP_MULTIPOLE;
	return C->nchild ? BH_LET_KEEP_OPEN : BH_LET_KEEP_LEAF;
}

/* The same choice for every box at least sqrt(far2) from the sender's particles (the coarse
 * tree that all far ranks share, tasks/gravity.c): the multipole goes when both its opening
 * radius and the diameter of its cube (2 sqrt(3) half: no point of the cube is farther from the
 * centre of mass, which lies inside it) are shorter than that distance.  Then no far box can
 * overlap the cube nor come within rcrit of the centre of mass, so bh_accept takes the cell for
 * every group of a far rank, as bh_let_kind does for one receiver's box.  The caller's far2
 * keeps a margin for the rounding of the receiver's test. */
TIDE_HD int bh_let_kind_far(const bh_cell *C, const bh_mom *M, float far2)
{
	float diam2 = bh_mul_rn(12.f, bh_mul_rn(C->half, C->half));
	float reach2 = M->rcrit2 > diam2 ? M->rcrit2 : diam2;
	if (reach2 < far2) return BH_LET_KEEP_MULTIPOLE;
	return C->nchild ? BH_LET_KEEP_OPEN : BH_LET_KEEP_LEAF;
}

/* The choice of bh_essential (CPU and CUDA): the whole tree (whole, tests), the coarse tree
 * (far2 >= 0) or the essential nodes for the receiver's boxes (v: a multipole only when it passes
 * against every box, since each walk group lies in one of them). */
TIDE_HD int bh_let_choose(const bh_cell *C, const bh_mom *M, const bh_vroot *v, int whole, float far2)
{
	if (whole) return C->nchild ? BH_LET_KEEP_OPEN : BH_LET_KEEP_LEAF;
	if (far2 >= 0.f) return bh_let_kind_far(C, M, far2);
	for (uint32_t i = 0; i < v->nbox; i++) {
		bh_box b;
		bh_vroot_box_i(v, (int)i, &b);
		if (!bh_accept(M, C, &b)) return C->nchild ? BH_LET_KEEP_OPEN : BH_LET_KEEP_LEAF;
	}
	return BH_LET_KEEP_MULTIPOLE;
}

/* Writes the buffer's copy of cell C (moments M) of kind k; first: where its children (opened) or
 * its particles (leaf) go in the buffer, reserved by the caller. */
TIDE_HD void bh_let_fill(bh_cell *out, bh_mom *outm, const bh_cell *C, const bh_mom *M, int k,
                         int32_t first)
{
	*out = *C;
	*outm = *M;
	out->child = k == BH_LET_KEEP_OPEN ? first : 0;
	out->nchild = k == BH_LET_KEEP_OPEN ? C->nchild : k == BH_LET_KEEP_LEAF ? 0 : BH_LET_MULTIPOLE;
	out->pbegin = k == BH_LET_KEEP_LEAF ? first : 0;
	out->pend = k == BH_LET_KEEP_LEAF ? first + (C->pend - C->pbegin) : 0;
}

/* Accumulated field at one particle: acceleration and potential, without G. */
typedef struct bh_acc {
	float ax, ay, az, pot;
} bh_acc;

/* The interactions bh_p2p and bh_m2p, in every form the walks use: bh_interact.h. */

/* Moments of a leaf from its particles: com first, then the quadrupole about it; eps the largest
 * of its bodies' softenings (bh_body_eps). */
TIDE_HD void bh_leaf_moments(const bh_body *b, const float *vel, const bh_params *P, int32_t p0,
                             int32_t p1, bh_mom *M)
{
	double m = 0, sx = 0, sy = 0, sz = 0;
	for (int32_t i = p0; i < p1; i++) {
		m += b[i].m; sx += (double)b[i].m * b[i].x; sy += (double)b[i].m * b[i].y;
		sz += (double)b[i].m * b[i].z;
	}
	float cx = 0.f, cy = 0.f, cz = 0.f;
	if (m > 0) { cx = (float)(sx / m); cy = (float)(sy / m); cz = (float)(sz / m); }
	else if (p1 > p0) { cx = b[p0].x; cy = b[p0].y; cz = b[p0].z; }
	float q[6] = {0, 0, 0, 0, 0, 0};
	for (int32_t i = p0; i < p1; i++) {
		float dx = b[i].x - cx, dy = b[i].y - cy, dz = b[i].z - cz, mi = b[i].m;
		float d2 = dx * dx + dy * dy + dz * dz;
		q[0] += mi * (3.f * dx * dx - d2); q[1] += mi * 3.f * dx * dy;
		q[2] += mi * 3.f * dx * dz;        q[3] += mi * (3.f * dy * dy - d2);
		q[4] += mi * 3.f * dy * dz;        q[5] += mi * (3.f * dz * dz - d2);
	}
	float e = P->eps;
	for (int32_t i = p0; i < p1; i++) {
		float ei = bh_body_eps(P, vel, i);
		e = i == p0 || ei > e ? ei : e;
	}
	M->x = cx; M->y = cy; M->z = cz; M->m = (float)m;
	M->qxx = q[0]; M->qxy = q[1]; M->qxz = q[2]; M->qyy = q[3]; M->qyz = q[4]; M->qzz = q[5];
	M->eps = e;
}

/* Moments of an internal cell from its children (parallel-axis shift of each quadrupole). */
TIDE_HD void bh_merge_moments(const bh_mom *ch, int32_t nch, bh_mom *M)
{
	double m = 0, sx = 0, sy = 0, sz = 0;
	for (int32_t k = 0; k < nch; k++) {
		m += ch[k].m; sx += (double)ch[k].m * ch[k].x; sy += (double)ch[k].m * ch[k].y;
		sz += (double)ch[k].m * ch[k].z;
	}
	float cx = ch[0].x, cy = ch[0].y, cz = ch[0].z;
	if (m > 0) { cx = (float)(sx / m); cy = (float)(sy / m); cz = (float)(sz / m); }
	float q[6] = {0, 0, 0, 0, 0, 0};
	for (int32_t k = 0; k < nch; k++) {
		const bh_mom *c = &ch[k];
		float dx = c->x - cx, dy = c->y - cy, dz = c->z - cz, mi = c->m;
		float d2 = dx * dx + dy * dy + dz * dz;
		q[0] += c->qxx + mi * (3.f * dx * dx - d2); q[1] += c->qxy + mi * 3.f * dx * dy;
		q[2] += c->qxz + mi * 3.f * dx * dz;        q[3] += c->qyy + mi * (3.f * dy * dy - d2);
		q[4] += c->qyz + mi * 3.f * dy * dz;        q[5] += c->qzz + mi * (3.f * dz * dz - d2);
	}
	float e = ch[0].eps;
	for (int32_t k = 1; k < nch; k++) e = ch[k].eps > e ? ch[k].eps : e;
	M->x = cx; M->y = cy; M->z = cz; M->m = (float)m;
	M->qxx = q[0]; M->qxy = q[1]; M->qxz = q[2]; M->qyy = q[3]; M->qyz = q[4]; M->qzz = q[5];
	M->eps = e;
}

/* rcrit² = (l/theta + delta)², delta = |com - centre| (the cube's), and the node size l a multiple
 * of the cube's half side: its diagonal 2 sqrt(3) half with monopoles, 0.675 of that (2.34 half
 * sides, 1.17 x the side) with quadrupoles.  The order-dependent size is measured, not derived
 * (docs/gravity.md, *Opening test* and *The quadrupole node size, measured again*, the numbers of
 * tests/bh_opening_study.c): with the diagonal the monopole 99th percentile at theta 0.5 is 2-9e-4
 * on Plummer spheres and uniform cubes of 1e4-1e6 (the issue allows 1e-3, so nothing smaller
 * fits), while quadrupoles reach that accuracy in much smaller cells.  With 0.675 of the diagonal
 * they keep less error than monopoles at the same theta on every one of those distributions
 * (test_bh checks 1e4-1e5: 0.65-0.97 of the monopoles' 99th percentile) and give 5.2e-4 at theta
 * 0.6 on 16.8 M (the 0.12 s benchmark of issue 5); 3/4 of the diagonal, the size until
 * 2026-12-03, gave 3.5e-4 in 0.140 s.  Other sizes (the side, the particles' bounding box or
 * their largest distance from the com, each scaled) need about as many interactions for the same
 * error.  Every operation rounded on its own (bh_mul_rn, bh_add_rn; IEEE division and sqrtf on
 * both), so the CUDA moments give the CPU's rcrit² from the same centre of mass. */
#define BH_SIZE_MONO 3.4641016f  /* l / half with monopoles: 2 sqrt(3) */
#define BH_SIZE_QUAD 2.3382686f  /* l / half with quadrupoles: 0.675 of 2 sqrt(3) */
TIDE_HD float bh_rcrit2(const bh_cell *C, const bh_mom *M, float theta, int quad)
{
	float dx = bh_add_rn(M->x, -C->cx), dy = bh_add_rn(M->y, -C->cy), dz = bh_add_rn(M->z, -C->cz);
	float d2 = bh_add_rn(bh_add_rn(bh_mul_rn(dx, dx), bh_mul_rn(dy, dy)), bh_mul_rn(dz, dz));
	float l = bh_mul_rn(quad ? BH_SIZE_QUAD : BH_SIZE_MONO, C->half);
	float r = bh_add_rn(l / theta, sqrtf(d2));
	return bh_mul_rn(r, r);
}

#endif
