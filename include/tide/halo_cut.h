/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Halos cut to what each neighbour reads (issue 25).  A block packs one halo per reader — each
 * neighbour entry that names it (sph_sim.h's nb_halo) — holding only the cells that reader's
 * support reaches: the intersection of the block's face layers along every key axis along which
 * the reader lies outside the block.  A face neighbour gets the face's layer as before; an edge
 * neighbour a strip of it, a corner neighbour a column of cells, where each used to read the
 * whole face (with 26 neighbours a rank received about 4x the bytes it read).  A halo is a
 * sub-box of the block, packed in block order, so it stays sorted by cell key and the readers
 * need no change: they look up in every halo the key ranges of the cells they read, all of
 * which a cut halo holds, and only one block holds a given cell.
 *
 * Depths: along the axis of the face toward the reader, that face's layers as before (L[f]:
 * tide_halo_layers, the gas scheme's per-face width, mDBC's three cells); along a cut axis the
 * larger of that face's layers and the depth the pair of blocks needs (gas_halo.h: the larger of
 * the two records'), so a reader that does not read that face gets no less than its supports
 * reach.
 *
 * Not cut (the whole face, as before): a halo across a periodic face (the images of the far end)
 * and a halo of key axis 0 when key axis 1 is periodic (it carries the corner images of two rows,
 * halo_pack.c's copy_layer_rows): their readers' geometry goes through the ghost layers. */
#ifndef TIDE_HALO_CUT_H
#define TIDE_HALO_CUT_H
#include "tide/codelets.h"
#include "tide/hd.h"
#include "tide/sph_params.h"

/* The halos of one block, in the order of its buffers (halo_pack's, after block, cell starts
 * and scratch). */
typedef struct tide_halo_cut {
	int n;                                    /* halos: one per reader */
	signed char face[TIDE_MAX_NEIGHBOURS];    /* the block's face toward the reader (2 k + side) */
	/* per key axis: -1 the reader lies below the block (the low layer), +1 above it (the high
	 * layer), 0 beside it (the whole range); all 0 along the other axes when not cut */
	signed char side[TIDE_MAX_NEIGHBOURS][3];
	signed char rec[TIDE_MAX_NEIGHBOURS];     /* the reader's index in the block's nb[] (its
	                                           * record, gas_halo.h) */
} tide_halo_cut;

/* The cells of halo r of box A: key coordinates lo[k] .. hi[k] - 1 along each key axis, from the
 * faces' layers L[6] (tide_halo_pack_layers) and the pair's depth `pair` (the layers the larger
 * of the two blocks' records needs; tide_halo_layers when not per block). */
TIDE_HD void tide_halo_region(const tide_block_arg *A, const tide_halo_cut *H, int r,
                              const int L[6], int pair, int lo[3], int hi[3])
{
	tide_box_bounds(A, lo, hi);
	int f = H->face[r];
	for (int k = 0; k < 3; k++) {
		int s = H->side[r][k], fk, depth, first, n;
		if (k == f / 2) {
			fk = f;
			depth = L[f];
		} else if (s) {
			fk = 2 * k + (s > 0);
			depth = L[fk] > pair ? L[fk] : pair;
		} else {
			continue;
		}
		tide_face_layers_n(A, fk, depth, &first, &n);
		lo[k] = first;
		hi[k] = first + n;
	}
}

/* Does the region lo..hi of box A come as one run of the cell-sorted block (whole along key axes
 * 1 and 2)? */
TIDE_HD int tide_halo_region_run(const tide_block_arg *A, const int lo[3], const int hi[3])
{
	return lo[1] == A->lo1 && hi[1] == A->hi1 && lo[2] == A->lo2 && hi[2] == A->hi2;
}

#endif
