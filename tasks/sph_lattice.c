// SPDX-License-Identifier: LGPL-2.1-or-later
// The particle counts of the synthetic fluid box (include/tide/lattice.h) without its particles:
// the lattice is a product of three lines, so the particles of a box of cells are the product of
// each line's particles in the box's cell range, and the cost projected on an axis (what the
// cuts are placed from) is that line's count per cell times the other two lines' totals.
#include <stdlib.h>
#include "tide/decomposition.h"
#include "tide/lattice.h"

/* hist[k]: the particles of the lattice's line along key axis a (physical axis g->axis[a]) in
 * cell k of that axis, each placed by the grid's own cell function (clamp included). */
static uint64_t *axis_hist(const tide_grid *g, const tide_lattice *L, int a)
{
	int d = g->axis[a];
	uint64_t *h = calloc((size_t)g->n[d], sizeof *h);
	if (!h) abort();
	float p[3] = {tide_lattice_coord(L, 0, 0), tide_lattice_coord(L, 1, 0), tide_lattice_coord(L, 2, 0)};
	for (uint32_t i = 0; i < L->n[d]; i++) {
		int k[3];
		p[d] = tide_lattice_coord(L, d, i);
		tide_cell_k(g, p[0], p[1], p[2], k);
		h[k[a]]++;
	}
	return h;
}

static uint64_t line_total(const tide_lattice *L, const tide_grid *g, int a)
{
	return L->n[g->axis[a]];
}

void tide_lattice_cuts(const tide_grid *g, const tide_lattice *L, const int p[3], int *cut[3])
{
	double *w[3];
	for (int a = 0; a < 3; a++) {
		uint64_t *h = axis_hist(g, L, a);
		double others = (double)line_total(L, g, (a + 1) % 3) * (double)line_total(L, g, (a + 2) % 3);
		int n = g->n[g->axis[a]];
		w[a] = malloc(sizeof(double) * (size_t)n);
		if (!w[a]) abort();
		for (int k = 0; k < n; k++) w[a][k] = (double)h[k] * others * tide_decomp_cost(TIDE_FLUID);
		free(h);
	}
	tide_decomp_cuts_projected(g, w, p, cut);
	for (int a = 0; a < 3; a++) free(w[a]);
}

/* The particles of line a in cells [lo, hi). */
static uint64_t range_sum(const uint64_t *h, int lo, int hi)
{
	uint64_t s = 0;
	for (int k = lo; k < hi; k++) s += h[k];
	return s;
}

size_t tide_lattice_block_counts(const tide_grid *g, const tide_lattice *L, const tide_block_arg *box,
                                 int nb, uint32_t *count, uint32_t *face)
{
	uint64_t *h[3];
	for (int a = 0; a < 3; a++) h[a] = axis_hist(g, L, a);
	int depth = tide_halo_max(g);
	size_t total = 0;
	for (int b = 0; b < nb; b++) {
		int lo[3], hi[3];
		uint64_t s[3];
		tide_box_bounds(&box[b], lo, hi);
		for (int a = 0; a < 3; a++) s[a] = range_sum(h[a], lo[a], hi[a]);
		count[b] = (uint32_t)(s[0] * s[1] * s[2]);
		total += count[b];
		for (int a = 0; a < 3; a++) {
			uint64_t rest = s[(a + 1) % 3] * s[(a + 2) % 3];
			int l1 = lo[a] + depth < hi[a] ? lo[a] + depth : hi[a];
			int h0 = hi[a] - depth > lo[a] ? hi[a] - depth : lo[a];
			face[6 * b + 2 * a] = (uint32_t)(range_sum(h[a], lo[a], l1) * rest);
			face[6 * b + 2 * a + 1] = (uint32_t)(range_sum(h[a], h0, hi[a]) * rest);
		}
	}
	for (int a = 0; a < 3; a++) free(h[a]);
	return total;
}
