/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The split of a block's force pass into its interior and its boundary (issue 25): the interior
 * cells are those whose whole neighbour stencil (reach cells on every side: 1 for the 3x3x3
 * cells of 2h that sph_forces reads, tide_box_grow) lies inside the block's own box or outside
 * the grid, so that their particles meet no halo particle and their forces can be computed while
 * the halos travel; the boundary cells are the others, the box's cell layers along the faces
 * that have a neighbour (tide_face_slots).  One home for the formula, for the CPU and the CUDA
 * codelets and for the task submission (tasks/sph_step.c), which prices each part by its cells. */
#ifndef TIDE_CELL_SPLIT_H
#define TIDE_CELL_SPLIT_H
#include <stdint.h>
#include "tide/hd.h"
#include "tide/sph_params.h"

/* How many cells beyond its own a WCSPH force pass reads: the 3x3x3 stencil of cells of 2h
 * (tide_box_grow). */
#define TIDE_FORCES_REACH 1

/* Which cells of the block a force task computes. */
enum tide_cell_part {
	TIDE_CELLS_ALL = 0,      /* every cell: the unsplit task */
	TIDE_CELLS_INTERIOR = 1, /* the interior: no halo is read */
	TIDE_CELLS_BOUNDARY = 2  /* the rest, with the halos */
};

/* The interior of box A as a box: A shrunk by reach cells on every face that has a neighbour.
 * An empty interior has l1 <= l0 (or another axis likewise): no cell is in it. */
TIDE_HD tide_block_arg tide_box_interior(const tide_grid *g, const tide_block_arg *A, int reach)
{
	int slot[6], lo[3], hi[3];
	tide_face_slots(g, A, slot);
	tide_box_bounds(A, lo, hi);
	for (int k = 0; k < 3; k++) {
		if (slot[2 * k] >= 0) lo[k] += reach;
		if (slot[2 * k + 1] >= 0) hi[k] -= reach;
		if (hi[k] < lo[k]) hi[k] = lo[k];
	}
	tide_block_arg I = *A;
	I.l0 = lo[0]; I.l1 = hi[0];
	I.lo1 = lo[1]; I.hi1 = hi[1];
	I.lo2 = lo[2]; I.hi2 = hi[2];
	return I;
}

/* Whether cell k of the block (inside its box) belongs to part `part`; I: tide_box_interior. */
TIDE_HD int tide_cell_in_part(int part, const tide_block_arg *I, const int k[3])
{
	if (part == TIDE_CELLS_ALL) return 1;
	return tide_box_contains(I, k) == (part == TIDE_CELLS_INTERIOR);
}

/* The cells of box A in part `part` (I: tide_box_interior of A). */
TIDE_HD uint32_t tide_part_ncell(int part, const tide_block_arg *A, const tide_block_arg *I)
{
	uint32_t n = tide_box_ncell(A), ni = tide_box_ncell(I);
	return part == TIDE_CELLS_ALL ? n : part == TIDE_CELLS_INTERIOR ? ni : n - ni;
}

#endif
