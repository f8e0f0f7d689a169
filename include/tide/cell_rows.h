/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The candidate neighbours of one point in a cell-sorted block and its halos, as a gather: the
 * rows of cells within a support of the point, the block's own cells as particle ranges and the
 * halo cells as key ranges to look up in every halo.  Used by every per-particle gather pass
 * (mDBC's ghost nodes, mdbc.h: nine rows, the support 2h = the cell side; the gas scheme's
 * density and forces, gas_math.h: as many rings of cells as the particle's own support needs,
 * tide_cell_ring_rows), host and device alike.  A point in a cell of the block's box sees its
 * whole support up to tide_halo_layers cells beyond the box (what the halos hold); a point in a
 * neighbour block's cell only the part of it in the box grown by that many cells. */
#ifndef TIDE_CELL_ROWS_H
#define TIDE_CELL_ROWS_H
#include <math.h>
#include <stdint.h>
#include "tide/hd.h"
#include "tide/sph_params.h"

#define TIDE_CELL_ROWS_MAX_SRC 26   /* halos of a block at most: TIDE_MAX_NEIGHBOURS (codelets.h) */

/* The cells a point g reads, row by row: a row is a run of cells along the last key
 * axis (consecutive in a cell-sorted block and in key order), and there are nine, (k0 + a,
 * k1 + b) for a, b in -1..1.  A neighbour cell is read only if it comes within the support 2h
 * (= the cell side) of the ghost, as cell by cell. */
typedef struct tide_cell_rows {
	int k[3], nk[3];
	double off[3], cs, r2max;
	tide_block_arg E;  /* the box grown by tide_halo_layers cells: what the halos hold */
} tide_cell_rows;

TIDE_HD void tide_cell_rows_of(const tide_sph_params *P, const tide_block_arg *A, const double g[3],
                                tide_cell_rows *C)
{
	const tide_grid *gr = &P->grid;
	for (int j = 0; j < 3; j++) C->nk[j] = gr->n[gr->axis[j]];
	tide_cell_k(gr, g[0], g[1], g[2], C->k);
	C->E = tide_box_grow_by(gr, A, tide_halo_layers(gr));
	C->cs = (double)gr->cell;
	C->r2max = (double)P->h2x4;
	for (int j = 0; j < 3; j++) {
		int a = gr->axis[j];
		C->off[j] = g[a] - (gr->origin[a] + (double)C->k[j] * C->cs);
	}
}

/* Cells a..b of the row (c0, c1) (key coordinates; along the last key axis): the own block's
 * particle range [own[0], own[1]) (empty if none) and up to two key ranges [key[m][0],
 * key[m][1]) to look up in every halo (*nkey), inside what the block reads (C->E). */
TIDE_HD void tide_cell_span(const tide_cell_rows *C, const tide_block_arg *A, const uint32_t *start,
                            int c0, int c1, int a, int b, uint32_t own[2], uint32_t key[2][2],
                            int *nkey)
{
	own[0] = own[1] = 0;
	*nkey = 0;
	if (a < 0) a = 0;
	if (b > C->nk[2] - 1) b = C->nk[2] - 1;
	if (a > b) return;
	int in_a = c0 >= A->l0 && c0 < A->l1 && c1 >= A->lo1 && c1 < A->hi1;
	int in_e = c0 >= C->E.l0 && c0 < C->E.l1 && c1 >= C->E.lo1 && c1 < C->E.hi1;
	if (!in_e) return; /* outside what the block reads (see the head of the file) */
	/* the halo part: the row's cells in E but not in A */
	int ea = a < C->E.lo2 ? C->E.lo2 : a, eb = b > C->E.hi2 - 1 ? C->E.hi2 - 1 : b;
	uint32_t base = ((uint32_t)c0 * (uint32_t)C->nk[1] + (uint32_t)c1) * (uint32_t)C->nk[2];
	if (!in_a) {
		if (ea <= eb) {
			key[0][0] = base + (uint32_t)ea;
			key[0][1] = base + (uint32_t)eb + 1u;
			*nkey = 1;
		}
		return;
	}
	int oa = a < A->lo2 ? A->lo2 : a, ob = b > A->hi2 - 1 ? A->hi2 - 1 : b;
	if (oa <= ob) {
		int ka[3] = {c0, c1, oa}, kb[3] = {c0, c1, ob};
		own[0] = start[tide_box_index(A, ka)];
		own[1] = start[tide_box_index(A, kb) + 1];
	}
	int m = 0;
	if (ea < A->lo2) { /* below the box along the row */
		int t = eb < A->lo2 - 1 ? eb : A->lo2 - 1;
		key[m][0] = base + (uint32_t)ea;
		key[m][1] = base + (uint32_t)t + 1u;
		m++;
	}
	if (eb >= A->hi2) { /* above it */
		int t = ea > A->hi2 ? ea : A->hi2;
		key[m][0] = base + (uint32_t)t;
		key[m][1] = base + (uint32_t)eb + 1u;
		m++;
	}
	*nkey = m;
}

/* Row `row` (0..8) of the ghost: the own block's particle range [own[0], own[1]) (empty if
 * none) and up to two key ranges [key[m][0], key[m][1]) to look up in every halo (*nkey). */
TIDE_HD void tide_cell_row(const tide_cell_rows *C, const tide_block_arg *A, const uint32_t *start,
                           int row, uint32_t own[2], uint32_t key[2][2], int *nkey)
{
	int c0 = C->k[0] - 1 + row / 3, c1 = C->k[1] - 1 + row % 3;
	own[0] = own[1] = 0;
	*nkey = 0;
	if (c0 < 0 || c1 < 0 || c0 >= C->nk[0] || c1 >= C->nk[1]) return;
	double e0 = c0 < C->k[0] ? C->off[0] : c0 > C->k[0] ? C->cs - C->off[0] : 0.0;
	double e1 = c1 < C->k[1] ? C->off[1] : c1 > C->k[1] ? C->cs - C->off[1] : 0.0;
	double gap2 = e0 * e0 + e1 * e1, lo = C->off[2], hi = C->cs - C->off[2];
	if (gap2 >= C->r2max) return;
	int a = C->k[2] - (gap2 + lo * lo < C->r2max ? 1 : 0);
	int b = C->k[2] + (gap2 + hi * hi < C->r2max ? 1 : 0);
	tide_cell_span(C, A, start, c0, c1, a, b, own, key, nkey);
}

/* The gap between a point at `off` in its cell (side cs) and the cell m cells away along an
 * axis (0 for its own cell). */
TIDE_HD double tide_cell_gap(double off, double cs, int m)
{
	return m < 0 ? off + (double)(-m - 1) * cs : m > 0 ? cs - off + (double)(m - 1) * cs : 0.0;
}

/* The cells of row (c0, c1) (key coordinates) within distance sqrt(r2) of the point, out to
 * `rings` cells from its own along every axis: k2 - lo .. k2 + hi in *a, *b (0: none of the
 * row). */
TIDE_HD int tide_cell_ring_cells(const tide_cell_rows *C, int rings, double r2, int c0, int c1,
                                 int *a, int *b)
{
	int m0 = c0 - C->k[0], m1 = c1 - C->k[1];
	if (m0 < -rings || m0 > rings || m1 < -rings || m1 > rings) return 0;
	if (c0 < 0 || c1 < 0 || c0 >= C->nk[0] || c1 >= C->nk[1]) return 0;
	double e0 = tide_cell_gap(C->off[0], C->cs, m0), e1 = tide_cell_gap(C->off[1], C->cs, m1);
	double gap2 = e0 * e0 + e1 * e1;
	if (gap2 >= r2) return 0;
	/* cells m below (above) are in while their gap lo + (m - 1) cs (hi + ...) < s */
	double s = sqrt(r2 - gap2), lo = C->off[2], hi = C->cs - C->off[2];
	int mlo = s > lo ? (int)ceil((s - lo) / C->cs) : 0, mhi = s > hi ? (int)ceil((s - hi) / C->cs) : 0;
	*a = C->k[2] - (mlo < rings ? mlo : rings);
	*b = C->k[2] + (mhi < rings ? mhi : rings);
	return 1;
}

/* The cells within distance sqrt(r2) of the point, out to `rings` cells from its own along
 * every axis, as (2 rings + 1)^2 rows: row `row` is (k0 + a, k1 + b) with a, b in -rings ..
 * rings, and its cells k2 - lo .. k2 + hi come back in *c0, *c1, *a, *b (0: the row is empty).
 * tide_cell_span then gives its particles.  The gas scheme's search: rings =
 * ceil(support / cell side), up to tide_halo_layers (gas_math.h). */
TIDE_HD int tide_cell_ring_row(const tide_cell_rows *C, int rings, double r2, int row, int *c0,
                               int *c1, int *a, int *b)
{
	int w = 2 * rings + 1;
	*c0 = C->k[0] + row / w - rings;
	*c1 = C->k[1] + row % w - rings;
	return tide_cell_ring_cells(C, rings, r2, *c0, *c1, a, b);
}

#endif
