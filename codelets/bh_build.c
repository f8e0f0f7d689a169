// SPDX-License-Identifier: LGPL-2.1-or-later
// bh_build: sort-based octree build.  Bounding box → root cube → 63-bit Morton keys → LSD radix
// sort of (key, index) → bodies and velocities gathered into Morton order → cells split level by
// level (breadth first) while they hold more than the leaf threshold (tide_bh_leaf) → walk groups.  A sort-based
// build needs no locks and gives leaves of neighbouring particles, contiguous in memory.
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include "tide/bh_codelets.h"
#include "tide/codelet_decl.h"

/* Scratch: keys A/B (8 bytes each), indices A/B (4 each), gather space (16), CUB's storage. */
size_t bh_build_scratch_bytes(uint32_t n)
{
	size_t m = ((size_t)n + 4) & ~(size_t)3; /* keeps the gather space 16-byte aligned */
	size_t b = m * (2 * sizeof(uint64_t) + 2 * sizeof(uint32_t) + 16) + 1024;
#ifdef TIDE_USE_CUDA
	if (starpu_cuda_worker_get_count() > 0) b += tide_bh_build_cuda_temp_bytes(n);
#endif
	return b;
}

static void radix_sort64(uint32_t n, uint64_t **k, uint64_t **kt, uint32_t **ix, uint32_t **ixt)
{
	for (unsigned shift = 0; shift < 3 * BH_BITS; shift += 8) {
		uint32_t count[257] = {0};
		for (uint32_t i = 0; i < n; i++) count[(((*k)[i] >> shift) & 255u) + 1]++;
		if (count[(((*k)[0] >> shift) & 255u) + 1] == n) continue; /* one digit: skip pass */
		for (int d = 0; d < 256; d++) count[d + 1] += count[d];
		for (uint32_t i = 0; i < n; i++) {
			uint32_t d = (uint32_t)(((*k)[i] >> shift) & 255u), to = count[d]++;
			(*kt)[to] = (*k)[i];
			(*ixt)[to] = (*ix)[i];
		}
		uint64_t *t = *k; *k = *kt; *kt = t;
		uint32_t *u = *ix; *ix = *ixt; *ixt = u;
	}
}

/* First index in [b, e) whose level-L digit is >= o (keys sorted, one prefix in the range). */
static int32_t lower_digit(const uint64_t *key, int32_t b, int32_t e, int L, unsigned o)
{
	while (b < e) {
		int32_t m = b + (e - b) / 2;
		if (bh_digit(key[m], L) < o) b = m + 1;
		else e = m;
	}
	return b;
}

/* Splits cell c of level L into its non-empty octants, appended at *ncells. */
static void split_cell(bh_cell *cells, int32_t c, int L, const uint64_t *key, int32_t *ncells)
{
	bh_cell *p = &cells[c];
	int32_t b = p->pbegin, e = p->pend, first = *ncells;
	for (unsigned o = 0; o < 8; o++) {
		int32_t s = lower_digit(key, b, e, L, o), t = lower_digit(key, s, e, L, o + 1);
		if (t == s) continue;
		bh_cell *ch = &cells[(*ncells)++];
		bh_child_cube(p, o, ch);
		ch->child = 0; ch->nchild = 0; ch->pbegin = s; ch->pend = t;
		b = t;
	}
	p->child = first;
	p->nchild = *ncells - first;
}

/* TIDE_BH_GROUPS: "cells" (default: BH_GROUP_CELL), "cells:K" (2 <= K) or "leaves" (0). */
int tide_bh_group_fill(void)
{
	const char *e = getenv("TIDE_BH_GROUPS");
	if (!e || !*e || !strcmp(e, "cells")) return BH_GROUP_CELL;
	if (!strcmp(e, "leaves")) return 0;
	char *end;
	long k = !strncmp(e, "cells:", 6) ? strtol(e + 6, &end, 10) : -1;
	if (k >= 2 && k <= (1L << 30) && !*end) return (int)k;
	static int warned = 0;
	if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
		fprintf(stderr, "tide bh_build: TIDE_BH_GROUPS must be 'cells', 'cells:K' (K >= 2) or "
		        "'leaves', not '%s'; using cells (K = %d).\n", e, BH_GROUP_CELL);
	return BH_GROUP_CELL;
}

/* TIDE_BH_LEAF: the split threshold, BH_LEAF_MIN .. BH_LEAF_MAX; by default BH_LEAF without
 * softening, BH_LEAF_SOFT with (include/tide/bh_tree.h says why). */
int tide_bh_leaf(const bh_params *P)
{
	int def = P->eps > 0.f || P->soft_h ? BH_LEAF_SOFT : BH_LEAF;
	const char *e = getenv("TIDE_BH_LEAF");
	if (!e || !*e) return def;
	char *end;
	long k = strtol(e, &end, 10);
	if (k >= BH_LEAF_MIN && k <= BH_LEAF_MAX && !*end) return (int)k;
	static int warned = 0;
	if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
		fprintf(stderr, "tide bh_build: TIDE_BH_LEAF must be an integer from %d to %d, not '%s'; "
		        "using %d.\n", BH_LEAF_MIN, BH_LEAF_MAX, e, def);
	return def;
}

static void build_cpu(void *buffers[], void *cl_arg)
{
	uint32_t n;
	bh_cell universe;
	int leaf;
	starpu_codelet_unpack_args(cl_arg, &n, &universe, &leaf, 0);
	bh_body *body = (bh_body *)STARPU_VECTOR_GET_PTR(buffers[0]);
	float *vel = (float *)STARPU_VECTOR_GET_PTR(buffers[1]);
	bh_cell *cells = (bh_cell *)STARPU_VECTOR_GET_PTR(buffers[2]);
	int32_t *meta = (int32_t *)STARPU_VECTOR_GET_PTR(buffers[3]);
	bh_group *groups = (bh_group *)STARPU_VECTOR_GET_PTR(buffers[4]);
	char *scr = (char *)STARPU_VECTOR_GET_PTR(buffers[5]);
	size_t m = ((size_t)n + 4) & ~(size_t)3; /* keeps the gather space 16-byte aligned */
	uint64_t *ka = (uint64_t *)scr, *kb = ka + m;
	uint32_t *ia = (uint32_t *)(kb + m), *ib = ia + m;
	float *tmp = (float *)(ib + m);

	float lo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, hi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
	for (uint32_t i = 0; i < n; i++) {
		const float *p = &body[i].x;
		for (int d = 0; d < 3; d++) {
			lo[d] = p[d] < lo[d] ? p[d] : lo[d];
			hi[d] = p[d] > hi[d] ? p[d] : hi[d];
		}
	}
	if (n == 0) for (int d = 0; d < 3; d++) lo[d] = hi[d] = 0.f;
	bh_root_within(lo, hi, &universe, &cells[0]);
	cells[0].pbegin = 0;
	cells[0].pend = (int32_t)n;

	for (uint32_t i = 0; i < n; i++) {
		ka[i] = bh_key(body[i].x, body[i].y, body[i].z, &cells[0]);
		ia[i] = i;
	}
	uint64_t *k = ka, *kt = kb;
	uint32_t *ix = ia, *ixt = ib;
	if (n) radix_sort64(n, &k, &kt, &ix, &ixt);
	/* bodies and velocities are both 16 bytes per particle */
	float *arrays[2] = {&body[0].x, vel};
	for (int a = 0; a < 2; a++) {
		for (uint32_t i = 0; i < n; i++) memcpy(tmp + 4 * i, arrays[a] + 4 * ix[i], 16);
		memcpy(arrays[a], tmp, 16 * (size_t)n);
	}

	int32_t ncells = 1;
	memset(meta, 0, sizeof(int32_t) * BH_META_LEN);
	bh_meta_set_box(meta, lo, hi); /* the rank's box for the essential nodes of other ranks */
	meta[BH_META_LEVEL + 0] = 0;
	meta[BH_META_LEVEL + 1] = 1;
	for (int L = 0; L <= BH_MAXLEVEL; L++) {
		int32_t c0 = meta[BH_META_LEVEL + L], c1 = meta[BH_META_LEVEL + L + 1];
		if (L < BH_MAXLEVEL)
			for (int32_t c = c0; c < c1; c++)
				if (cells[c].pend - cells[c].pbegin > leaf) split_cell(cells, c, L, k, &ncells);
		if (L + 2 < BH_META_LEN - BH_META_LEVEL) meta[BH_META_LEVEL + L + 2] = ncells;
	}
	int32_t ng = 0, fill = tide_bh_group_fill();
	for (int32_t c = 0; c < ncells; c++)
		if (cells[c].nchild || c == 0) ng += bh_cell_groups(cells, c, groups + ng, fill);
	meta[BH_META_NCELLS] = ncells;
	meta[BH_META_NGROUPS] = ng;
}

TIDE_CODELET(bh_build, build_cpu, tide_bh_build_cuda, 6,
             STARPU_RW, STARPU_RW, STARPU_W, STARPU_W, STARPU_W, STARPU_SCRATCH);
