// SPDX-License-Identifier: LGPL-2.1-or-later
// Domain decomposition: slabs or an aligned 2-D / 3-D grid of boxes (include/tide/decomposition.h).
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tide/decomposition.h"

/* Relative cost of a fluid and a boundary particle in a step, for placing the cuts: a fixed-wall
 * boundary particle only interacts with fluid neighbours, so it costs a fraction of a fluid one. */
#define TIDE_COST_FLUID 4
#define TIDE_COST_BOUND 1

static const char *const allowed =
        "allowed: slabs, 2d, 3d, or blocks along x, y and z as NXxNYxNZ (e.g. 4x2x1)";

/* Cells of key axis k that particles live in: all, less the two ghost layers of a periodic axis
 * (sph_params.h), which no block's box includes. */
static int real_n(const tide_grid *g, int k)
{
	return g->n[g->axis[k]] - 2 * tide_ghost(g, g->axis[k]);
}

/* Blocks key axis k may have: each at least as wide as a halo may be deep (tide_halo_max), so
 * that the halos of the blocks touching a block hold all it reads (the gas scheme's deep halos;
 * one cell for WCSPH). */
static int max_along(const tide_grid *g, int k)
{
	int n = real_n(g, k) / tide_halo_max(g);
	return n > 1 ? n : 1;
}

/* "NXxNYxNZ" into xyz (each >= 1): 0, or -1 if it is not of that form.  The counts are only
 * read here (up to a billion); their limits are checked by the callers, which say which. */
static int parse_xyz(const char *s, int xyz[3])
{
	for (int a = 0; a < 3; a++) {
		if (!isdigit((unsigned char)*s)) return -1;
		char *end;
		long v = strtol(s, &end, 10);
		if (v < 1 || v > 1000000000) return -1;
		xyz[a] = (int)v;
		s = end;
		if (a < 2) {
			if (*s != 'x') return -1;
			s++;
		}
	}
	return *s ? -1 : 0;
}

int tide_decomp_check(const char *spec, char *err, size_t errlen)
{
	int xyz[3];
	if (!spec[0] || !strcmp(spec, "slabs") || !strcmp(spec, "2d") || !strcmp(spec, "3d"))
		return 0;
	if (!parse_xyz(spec, xyz)) {
		double nb = (double)xyz[0] * xyz[1] * xyz[2];
		if (nb <= TIDE_DECOMP_MAX_BLOCKS) return 0;
		snprintf(err, errlen, "decomposition '%s' asks for %.0f blocks, more than the %d a run "
		         "may have; allowed: NXxNYxNZ with NX*NY*NZ <= %d", spec, nb,
		         TIDE_DECOMP_MAX_BLOCKS, TIDE_DECOMP_MAX_BLOCKS);
		return -1;
	}
	snprintf(err, errlen, "decomposition '%s' is not known; %s", spec, allowed);
	return -1;
}

int tide_decomp_fixed_blocks(const char *spec)
{
	int xyz[3];
	return parse_xyz(spec, xyz) ? 0 : xyz[0] * xyz[1] * xyz[2];
}

/* Spreads the prime factors of nb (largest first) over the axes in `use`, each time to the axis
 * whose blocks are longest in cells. */
static void spread(const tide_grid *g, int nb, const int use[3], int p[3])
{
	int f = nb, primes[32], np = 0;
	for (int d = 2; d * d <= f; d++)
		while (f % d == 0 && np < 32) {
			primes[np++] = d;
			f /= d;
		}
	if (f > 1 && np < 32) primes[np++] = f;
	for (int i = np - 1; i >= 0; i--) {
		int best = -1;
		double len = 0;
		for (int k = 0; k < 3; k++) {
			int n = real_n(g, k);
			if (!use[k] || p[k] * primes[i] > max_along(g, k)) continue;
			double l = (double)n / p[k];
			if (l > len) { len = l; best = k; }
		}
		if (best >= 0) p[best] *= primes[i];
	}
}

int tide_decomp_grid(const tide_grid *g, const char *spec, int nblocks, int p[3], char *err,
                     size_t errlen)
{
	if (tide_decomp_check(spec, err, errlen)) return -1;
	p[0] = p[1] = p[2] = 1;
	int n0 = max_along(g, 0);
	if (nblocks < 1) nblocks = 1;
	int xyz[3];
	if (!parse_xyz(spec, xyz)) {
		for (int k = 0; k < 3; k++) {
			int a = g->axis[k];
			p[k] = xyz[a];
			if (p[k] > max_along(g, k)) {
				if (tide_halo_max(g) > 1)
					snprintf(err, errlen, "decomposition '%s' asks for %d blocks along %c, which "
					         "has only %d cells of side 2 h_cell, room for %d blocks as wide as "
					         "the halos are deep (%d cells: the support 2 gas.h_max, or under "
					         "mDBC the ghost nodes' reach 6h); allowed: at most %d, or (gas) a "
					         "smaller gas.h_max", spec, xyz[a], "xyz"[a],
					         real_n(g, k), max_along(g, k), tide_halo_max(g), max_along(g, k));
				else
					snprintf(err, errlen, "decomposition '%s' asks for %d blocks along %c, which "
					         "has only %d cells of side 2h", spec, xyz[a], "xyz"[a], real_n(g, k));
				return -1;
			}
			/* the halos carry the periodic images a grid of blocks cut along the slab axis
			 * alone needs (halo_pack.c) */
			if (g->periodic && p[k] > 1 && k != 0) {
				snprintf(err, errlen, "decomposition '%s' cuts %c; with periodic boundaries "
				         "allowed: slabs, or blocks along %c only (the slab axis)", spec,
				         "xyz"[a], "xyz"[g->axis[0]]);
				return -1;
			}
		}
		return 0;
	}
	if (!spec[0] || !strcmp(spec, "slabs")) {
		p[0] = nblocks < n0 ? nblocks : n0;
		return 0;
	}
	if (g->periodic) {
		snprintf(err, errlen, "decomposition '%s' cuts more than one axis; with periodic "
		         "boundaries allowed: slabs (along %c), or blocks along %c only", spec,
		         "xyz"[g->axis[0]], "xyz"[g->axis[0]]);
		return -1;
	}
	/* the axes with most cells, as many as the spec says and that have more than one cell */
	int want = !strcmp(spec, "3d") ? 3 : 2, use[3] = {0, 0, 0}, order[3] = {0, 1, 2};
	for (int i = 0; i < 3; i++)
		for (int j = i + 1; j < 3; j++)
			if (g->n[g->axis[order[j]]] > g->n[g->axis[order[i]]]) {
				int t = order[i]; order[i] = order[j]; order[j] = t;
			}
	for (int i = 0; i < want; i++)
		if (g->n[g->axis[order[i]]] > 1) use[order[i]] = 1;
	spread(g, nblocks, use, p);
	return 0;
}

int tide_decomp_validate(const tide_grid *g, const char *spec, int nblocks, char *err,
                         size_t errlen)
{
	double ncells = (double)g->n[0] * g->n[1] * g->n[2];
	if (ncells >= 4.0e9) {
		snprintf(err, errlen, "the domain holds %.3g cells of side 2h, more than the 4e9 a 32-bit "
		         "cell key allows; shrink 'domain' or raise 'dp'", ncells);
		return -1;
	}
	int p[3];
	if (tide_decomp_grid(g, spec, nblocks, p, err, errlen)) return -1;
	int xyz[3], made = p[0] * p[1] * p[2];
	if (nblocks <= 0 || !parse_xyz(spec, xyz)) return 0;
	/* the case's own limit first (the more useful one), then tide's */
	if (made == nblocks && nblocks > TIDE_DECOMP_MAX_BLOCKS) {
		snprintf(err, errlen, "--blocks %d is more than the %d blocks a run may have; allowed: "
		         "--blocks 1 to %d", nblocks, TIDE_DECOMP_MAX_BLOCKS, TIDE_DECOMP_MAX_BLOCKS);
		return -1;
	}
	if (made == nblocks) return 0;
	const char *s = spec[0] ? spec : "slabs";
	char cells[160];
	int L = tide_halo_max(g);
	if (L > 1) /* the gas scheme, mDBC: blocks as wide as their halos are deep */
		snprintf(cells, sizeof cells, "%d x %d x %d (along x, y, z; each block at least %d of "
		         "them wide, the halos' depth for gas.h_max or mDBC's ghosts)", g->n[0], g->n[1],
		         g->n[2], L);
	else
		snprintf(cells, sizeof cells, "%d x %d x %d (along x, y, z)", g->n[0], g->n[1], g->n[2]);
	if (!strcmp(s, "slabs"))
		snprintf(err, errlen, "--blocks %d: decomposition 'slabs' cuts the domain's cells of "
		         "side 2h, %s, along %c only, into at most %d blocks; allowed: --blocks "
		         "1 to %d, or --decomp 2d / 3d for more", nblocks, cells, "xyz"[g->axis[0]],
		         made, made);
	else {
		/* the nearest count below that this decomposition makes exactly */
		int near = nblocks - 1 < TIDE_DECOMP_MAX_BLOCKS ? nblocks - 1 : TIDE_DECOMP_MAX_BLOCKS;
		for (; near > 1; near--) {
			int q[3];
			if (!tide_decomp_grid(g, spec, near, q, err, errlen) && q[0] * q[1] * q[2] == near)
				break;
		}
		snprintf(err, errlen, "--blocks %d: decomposition '%s' can place only %d of them on the "
		         "domain's cells of side 2h, %s, since each prime factor of the "
		         "count must fit along an axis; allowed: e.g. --blocks %d", nblocks, s, made,
		         cells, near);
	}
	return -1;
}

/* Cuts of one axis: n cells with costs w[0..n) into p ranges of about equal cost, each at least
 * minw cells wide (p minw <= n). */
static void cut_axis(const double *w, int n, int p, int minw, int *cut)
{
	double total = 0;
	for (int l = 0; l < n; l++) total += w[l];
	int l = 0;
	double acc = 0;
	cut[0] = 0;
	for (int b = 0; b < p; b++) {
		int first = l;
		double target = total * (b + 1) / p;
		int must_leave = p - 1 - b; /* cells the remaining ranges need */
		while (l < n - must_leave * minw && (l - first < minw || acc + w[l] * 0.5 <= target)) {
			acc += w[l];
			l++;
		}
		if (b == p - 1) l = n;
		cut[b + 1] = l;
	}
}

float tide_decomp_cost(uint32_t type)
{
	return type == TIDE_FLUID ? TIDE_COST_FLUID : TIDE_COST_BOUND;
}

/* The cuts of axis k from the cost projected on its cells. */
static void cuts_of_axis(const tide_grid *g, const double *w, int k, int pk, int *cut)
{
	int n = g->n[g->axis[k]], gh = tide_ghost(g, g->axis[k]);
	if (pk == 1) { /* one range: no need to weigh a billion particles */
		cut[0] = gh;
		cut[1] = n - gh;
		return;
	}
	/* the cuts of the real cells: the ghost layers are no block's */
	int minw = tide_halo_max(g);
	if (minw * pk > n - 2 * gh) minw = 1; /* a grid made before the halos deepened */
	cut_axis(w + gh, n - 2 * gh, pk, minw, cut);
	for (int j = 0; j <= pk; j++) cut[j] += gh;
}

void tide_decomp_cuts(const tide_grid *g, const tide_block_view *all, const float *wt,
                      const int p[3], int *cut[3])
{
	for (int k = 0; k < 3; k++) {
		int n = g->n[g->axis[k]];
		if (p[k] == 1) {
			cuts_of_axis(g, NULL, k, 1, cut[k]);
			continue;
		}
		double *w = calloc((size_t)n, sizeof *w);
		if (!w) abort();
		for (uint32_t i = 0; i < all->count; i++) {
			int c[3];
			tide_cell_k(g, all->x[i], all->y[i], all->z[i], c);
			w[c[k]] += wt ? wt[i] : tide_decomp_cost(all->type[i]);
		}
		cuts_of_axis(g, w, k, p[k], cut[k]);
		free(w);
	}
}

void tide_decomp_cuts_projected(const tide_grid *g, double *const w[3], const int p[3], int *cut[3])
{
	for (int k = 0; k < 3; k++) cuts_of_axis(g, w[k], k, p[k], cut[k]);
}

tide_block_arg tide_decomp_box(const int p[3], int *const cut[3], int b)
{
	int i2 = b % p[2], i1 = (b / p[2]) % p[1], i0 = b / (p[1] * p[2]);
	tide_block_arg A;
	A.l0 = cut[0][i0];
	A.l1 = cut[0][i0 + 1];
	A.lo1 = cut[1][i1];
	A.hi1 = cut[1][i1 + 1];
	A.lo2 = cut[2][i2];
	A.hi2 = cut[2][i2 + 1];
	/* a periodic axis (whose cuts start after its ghost layer) is split even in one block: the
	 * block is its own neighbour across the periodic faces */
	A.split = (p[0] > 1 || cut[0][0] > 0) | (p[1] > 1 || cut[1][0] > 0) << 1 |
	          (p[2] > 1 || cut[2][0] > 0) << 2;
	return A;
}

int tide_decomp_owner(const int p[3], int b, int size)
{
	int nb = p[0] * p[1] * p[2];
	if (size <= 1) return 0;
	/* a grid of ranks q dividing p, built from the prime factors of size */
	int q[3] = {1, 1, 1}, f = size, ok = 1;
	while (f > 1 && ok) {
		int d = 2;
		while (f % d) d++;
		int best = -1;
		for (int k = 0; k < 3; k++)
			if (p[k] % (q[k] * d) == 0 && (best < 0 || p[k] / q[k] > p[best] / q[best])) best = k;
		if (best < 0) ok = 0;
		else { q[best] *= d; f /= d; }
	}
	if (!ok) return (int)((long)b * size / nb);
	int i2 = b % p[2], i1 = (b / p[2]) % p[1], i0 = b / (p[1] * p[2]);
	return ((i0 * q[0] / p[0]) * q[1] + i1 * q[1] / p[1]) * q[2] + i2 * q[2] / p[2];
}

uint64_t tide_hilbert3(unsigned bits, uint32_t x, uint32_t y, uint32_t z)
{
	uint32_t X[3] = {x, y, z};
	if (bits == 0) return 0;
	/* inverse undo of the excess work: reflect or swap the lower bits axis by axis */
	for (uint32_t Q = 1u << (bits - 1); Q > 1; Q >>= 1) {
		uint32_t P = Q - 1;
		for (int i = 0; i < 3; i++) {
			if (X[i] & Q) {
				X[0] ^= P;
			} else {
				uint32_t t = (X[0] ^ X[i]) & P;
				X[0] ^= t;
				X[i] ^= t;
			}
		}
	}
	/* Gray encode */
	X[1] ^= X[0];
	X[2] ^= X[1];
	uint32_t t = 0;
	for (uint32_t Q = 1u << (bits - 1); Q > 1; Q >>= 1)
		if (X[2] & Q) t ^= Q - 1;
	for (int i = 0; i < 3; i++) X[i] ^= t;
	/* the transpose's bits, most significant first, interleaved x y z */
	uint64_t h = 0;
	for (int j = (int)bits - 1; j >= 0; j--)
		for (int i = 0; i < 3; i++) h = h << 1 | (X[i] >> j & 1u);
	return h;
}

/* Runs a greedy walk along c[0..n) needs when no run may exceed T (a block above T alone). */
static int runs_needed(const double *c, int n, double T)
{
	int runs = 0;
	double run = 0;
	for (int i = 0; i < n; i++) {
		if (i == 0 || run + c[i] > T) {
			runs++;
			run = 0;
		}
		run += c[i];
	}
	return runs;
}

typedef struct curve_slot {
	uint64_t key;
	int b;
} curve_slot;

static int by_key(const void *a, const void *b)
{
	const curve_slot *x = a, *y = b;
	return (x->key > y->key) - (x->key < y->key);
}

void tide_decomp_owners_curve(const int p[3], const double *cost, int size, int *owner)
{
	int nb = p[0] * p[1] * p[2];
	if (size <= 1) {
		for (int b = 0; b < nb; b++) owner[b] = 0;
		return;
	}
	unsigned bits = 0;
	while ((1 << bits) < p[0] || (1 << bits) < p[1] || (1 << bits) < p[2]) bits++;
	curve_slot *s = malloc(sizeof *s * (size_t)nb);
	if (!s) abort();
	double total = 0;
	for (int b = 0; b < nb; b++) {
		int i2 = b % p[2], i1 = (b / p[2]) % p[1], i0 = b / (p[1] * p[2]);
		s[b].key = tide_hilbert3(bits, (uint32_t)i0, (uint32_t)i1, (uint32_t)i2);
		s[b].b = b;
		total += cost[b] > 0 ? cost[b] : 0;
	}
	qsort(s, (size_t)nb, sizeof *s, by_key);
	if (nb <= size) {
		/* a block each for the first ranks, in curve order; the others own none */
		for (int i = 0; i < nb; i++) owner[s[i].b] = i;
		free(s);
		return;
	}
	/* the least bottleneck T for which runs of total <= T, taken greedily along the curve, need
	 * at most `size` runs (bisection on T; every rank computes the same doubles) */
	double *c = malloc(sizeof *c * (size_t)nb), cmax = 0;
	if (!c) abort();
	for (int i = 0; i < nb; i++) {
		c[i] = cost[s[i].b] > 0 ? cost[s[i].b] : 0;
		if (c[i] > cmax) cmax = c[i];
	}
	double lo = fmax(cmax, total / size), hi = cmax + total / size;
	for (int it = 0; it < 100 && hi - lo > 1e-12 * hi; it++) {
		double T = 0.5 * (lo + hi);
		if (runs_needed(c, nb, T) <= size) hi = T;
		else lo = T;
	}
	/* the runs at T = hi, then the longest split until every rank has one (nb > size: a split
	 * never raises the bottleneck) */
	int *start = malloc(sizeof *start * (size_t)(size + 1)), nrun = 0;
	if (!start) abort();
	double run = 0;
	for (int i = 0; i < nb; i++) {
		if (i == 0 || run + c[i] > hi) {
			start[nrun++] = i;
			run = 0;
		}
		run += c[i];
	}
	while (nrun < size) {
		int longest = 0;
		for (int r = 1; r < nrun; r++)
			if ((r + 1 < nrun ? start[r + 1] : nb) - start[r] >
			    (longest + 1 < nrun ? start[longest + 1] : nb) - start[longest])
				longest = r;
		int end = longest + 1 < nrun ? start[longest + 1] : nb;
		memmove(start + longest + 2, start + longest + 1, sizeof *start * (size_t)(nrun - longest - 1));
		start[longest + 1] = start[longest] + (end - start[longest]) / 2;
		nrun++;
	}
	for (int r = 0; r < size; r++)
		for (int i = start[r]; i < (r + 1 < size ? start[r + 1] : nb); i++) owner[s[i].b] = r;
	free(start);
	free(c);
	free(s);
}

/* Sorted distinct values of the low bounds along key axis k, and the last high bound. */
static int axis_cuts(const tide_block_arg *box, int nb, int k, int *cut)
{
	int n = 0;
	for (int b = 0; b < nb; b++) {
		int lo[3], hi[3];
		tide_box_bounds(&box[b], lo, hi);
		int seen = 0;
		for (int i = 0; i < n; i++) seen |= cut[i] == lo[k];
		if (!seen) cut[n++] = lo[k];
	}
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (cut[j] < cut[i]) { int t = cut[i]; cut[i] = cut[j]; cut[j] = t; }
	int lo[3], hi[3];
	tide_box_bounds(&box[nb - 1], lo, hi);
	cut[n] = hi[k];
	return n;
}

int tide_decomp_from_boxes(const tide_grid *g, const tide_block_arg *box, int nb, int p[3],
                           int *cut[3])
{
	for (int k = 0; k < 3; k++) {
		int gh = tide_ghost(g, g->axis[k]);
		p[k] = axis_cuts(box, nb, k, cut[k]);
		if (cut[k][0] != gh || cut[k][p[k]] != g->n[g->axis[k]] - gh) return -1;
	}
	if (p[0] * p[1] * p[2] != nb) return -1;
	for (int b = 0; b < nb; b++) {
		tide_block_arg A = tide_decomp_box(p, cut, b);
		if (memcmp(&A, &box[b], sizeof A)) return -1;
	}
	return 0;
}

int tide_decomp_neighbours(const tide_grid *g, const tide_block_arg *box, int nb, int b,
                           int *nbr, int *face)
{
	tide_block_arg E = tide_box_grow(g, &box[b]);
	int elo[3], ehi[3], blo[3], bhi[3], n = 0;
	tide_box_bounds(&E, elo, ehi);
	tide_box_bounds(&box[b], blo, bhi);
	for (int o = 0; o < nb; o++) {
		if (o == b) continue;
		int lo[3], hi[3], touch = 1;
		tide_box_bounds(&box[o], lo, hi);
		for (int k = 0; k < 3; k++) touch &= lo[k] < ehi[k] && hi[k] > elo[k];
		if (!touch) continue;
		int f = -1;
		for (int k = 0; k < 3 && f < 0; k++) {
			if (bhi[k] <= lo[k]) f = 2 * k;          /* b is below o: o's low face */
			else if (blo[k] >= hi[k]) f = 2 * k + 1; /* b is above o: o's high face */
		}
		if (f < 0 || n == 26) abort(); /* overlapping boxes: not a decomposition */
		nbr[n] = o;
		face[n] = f;
		n++;
	}
	/* across a periodic face: the blocks at the other end of the axis (b itself when one block
	 * spans it), whose face on that end faces b */
	for (int k = 0; k < 3; k++) {
		int nk = g->n[g->axis[k]];
		if (!tide_ghost(g, g->axis[k])) continue;
		for (int side = 0; side < 2; side++) {
			if (side ? bhi[k] != nk - 1 : blo[k] != 1) continue;
			for (int o = 0; o < nb; o++) {
				int lo[3], hi[3], touch = 1;
				tide_box_bounds(&box[o], lo, hi);
				if (side ? lo[k] != 1 : hi[k] != nk - 1) continue;
				/* o must not lie beside b along an earlier axis: that neighbour reads o's
				 * face of that axis, whose halo carries the images along k already */
				for (int j = 0; j < 3; j++)
					if (j < k) touch &= lo[j] < bhi[j] && hi[j] > blo[j];
					else if (j > k) touch &= lo[j] < ehi[j] && hi[j] > elo[j];
				if (!touch) continue;
				if (n == 26) abort();
				nbr[n] = o;
				face[n] = side ? 2 * k : 2 * k + 1;
				n++;
			}
		}
	}
	return n;
}
