/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where a particle of a block goes at migration (shared by C and CUDA): it stays, it leaves the
 * domain, or it leaves through a face of the block's box — the face of the first axis, in key
 * order, along which its cell is outside the box.  The neighbour blocks across that face read
 * the face's buffer and each takes the particles inside its own box. */
#ifndef TIDE_MIGRATE_LABEL_H
#define TIDE_MIGRATE_LABEL_H
#include "tide/block.h"
#include "tide/sph_params.h"

enum tide_mig { TIDE_MIG_STAY = 0, TIDE_MIG_GONE = 7, TIDE_MIG_NLABELS = 8 };

/* Label of the face (axis k in key order, side 0 = low, 1 = high): 1 .. 6, i.e. 1 + the face
 * number of tide_face_slots. */
TIDE_HD int tide_mig_face(int k, int side) { return 1 + 2 * k + side; }

/* A particle that crossed a periodic face (the domain's, along a periodic axis) is wrapped
 * here, once, by the period: its position in the block becomes the one on the other side, and
 * it leaves through the block's periodic face on that side toward the blocks there (the label
 * is computed once per particle, by the CPU and the CUDA migrate_pack alike). */
TIDE_HD int tide_migrate_label(const tide_sph_params *P, const tide_block_arg *A,
                               const tide_block_view *v, uint32_t i)
{
	const tide_grid *g = &P->grid;
	double p[3] = {v->x[i], v->y[i], v->z[i]};
	int lo[3], hi[3], cross = 0;
	tide_box_bounds(A, lo, hi);
	for (int j = 2; j >= 0; j--) { /* the first key axis crossed names the face */
		int d = g->axis[j];
		if (!tide_ghost(g, d)) continue;
		int side = p[d] >= P->dom_hi[d] ? 1 : p[d] < P->dom_lo[d] ? 0 : -1;
		if (side < 0) continue;
		p[d] += side ? P->dom_lo[d] - P->dom_hi[d] : P->dom_hi[d] - P->dom_lo[d];
		/* only the block at that end has the face (a particle elsewhere jumped blocks) */
		cross = (side ? hi[j] == g->n[d] - 1 : lo[j] == 1) ? tide_mig_face(j, side) : TIDE_MIG_GONE;
	}
	for (int d = 0; d < 3; d++)
		if (!(p[d] >= P->dom_lo[d] && p[d] <= P->dom_hi[d])) return TIDE_MIG_GONE; /* NaN too */
	if (cross) {
		v->x[i] = p[0];
		v->y[i] = p[1];
		v->z[i] = p[2];
		return cross;
	}
	int k[3];
	tide_cell_k(g, p[0], p[1], p[2], k);
	for (int j = 0; j < 3; j++) {
		if (k[j] < lo[j]) return tide_mig_face(j, 0);
		if (k[j] >= hi[j]) return tide_mig_face(j, 1);
	}
	return TIDE_MIG_STAY;
}

/* Does a particle sent through a face belong to the receiving box R?  Its cell is clamped to one
 * cell around the sender's box S first, so that a particle that moved further than a cell in a
 * step still lands in exactly one neighbour (which moves it on at the next migration).  Along a
 * periodic axis a particle wrapped by the sender is first brought back next to S (by the m real
 * cells of the period) and, after the clamp, into the real cells again. */
TIDE_HD int tide_mig_accept(const tide_grid *g, const tide_block_arg *S, const tide_block_arg *R,
                            double x, double y, double z)
{
	int k[3];
	tide_cell_k(g, x, y, z, k);
	tide_block_arg E = tide_box_grow(g, S);
	int lo[3], hi[3];
	tide_box_bounds(&E, lo, hi);
	for (int j = 0; j < 3; j++) {
		int per = tide_ghost(g, g->axis[j]), m = g->n[g->axis[j]] - 2;
		if (per && k[j] < lo[j]) k[j] += m;
		else if (per && k[j] >= hi[j]) k[j] -= m;
		k[j] = tide_clampi(k[j], lo[j], hi[j] - 1);
		if (per && k[j] < 1) k[j] += m;
		else if (per && k[j] > m) k[j] -= m;
	}
	return tide_box_contains(R, k);
}

#endif
