/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The synthetic fluid box (tide run --synthetic, issue 25): a lattice of n[0] x n[1] x n[2]
 * fluid particles of spacing dp from lo, particle (i, j, k) at lo + (i + 1/2, j + 1/2, k + 1/2) dp
 * (2-D cases: n[1] = 1, y = lo[1]).  A normal build makes these particles (src/host_blocks.c);
 * a simulation build makes none and takes the blocks' particle and face counts from the lattice
 * (tasks/sph_lattice.c), which are those the made particles give. */
#ifndef TIDE_LATTICE_H
#define TIDE_LATTICE_H
#include <stddef.h>
#include <stdint.h>
#include "tide/sph_params.h"

typedef struct tide_lattice {
	uint32_t n[3];
	double lo[3];
	double dp;
	int dim;
} tide_lattice;

/* Coordinate along axis d of the lattice's i-th layer, as a particle's float holds it (the one
 * formula both the builder and the counts use). */
static inline float tide_lattice_coord(const tide_lattice *L, int d, uint32_t i)
{
	if (L->dim == 2 && d == 1) return (float)L->lo[1];
	return (float)(L->lo[d] + ((double)i + 0.5) * L->dp);
}

static inline size_t tide_lattice_count(const tide_lattice *L)
{
	return (size_t)L->n[0] * L->n[1] * L->n[2];
}

/* The cuts of the grid p[3] that tide_decomp_cuts places for the lattice's particles (all fluid,
 * estimated costs), from the lattice's projection on each axis (tasks/sph_lattice.c). */
void tide_lattice_cuts(const tide_grid *g, const tide_lattice *L, const int p[3], int *cut[3]);

/* The lattice's particles in each of the nb boxes (count[nb]) and on each of their faces
 * (face[6 nb]: those within tide_halo_max(g) cell layers of face 2k (low) and 2k + 1 (high) of key
 * axis k, as tasks/sph_setup.c counts them for the halo capacity).  Returns the total. */
size_t tide_lattice_block_counts(const tide_grid *g, const tide_lattice *L, const tide_block_arg *box,
                                 int nb, uint32_t *count, uint32_t *face);
#endif
