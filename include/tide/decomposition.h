/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* How the domain is cut into blocks (tasks/decomposition.c): 1-D slabs along the longest axis
 * (the multi-GPU paper's scheme) or a 2-D / 3-D grid of boxes.  The grid is aligned: every axis
 * has one list of cuts, placed so that the blocks along it carry about the same estimated cost;
 * a block is the box between consecutive cuts of the three axes.  Blocks are numbered in key
 * order (axis[0] slowest) and given to MPI ranks as boxes of blocks where the counts allow. */
#ifndef TIDE_DECOMPOSITION_H
#define TIDE_DECOMPOSITION_H
#include <stddef.h>
#include <stdint.h>
#include "tide/block.h"
#include "tide/sph_params.h"

/* The most blocks a run may have (every block has a dozen StarPU handles and tasks per step;
 * beyond this the runtime's overhead swamps the work). */
#define TIDE_DECOMP_MAX_BLOCKS 65536

/* Checks a decomposition string: "slabs" (or empty), "2d", "3d", or "NXxNYxNZ" (blocks along
 * x, y and z, e.g. "4x1x2").  0, or -1 with a sentence saying what is allowed in err. */
int tide_decomp_check(const char *spec, char *err, size_t errlen);

/* The block count an explicit "NXxNYxNZ" fixes (NX * NY * NZ); 0 for slabs, 2d and 3d. */
int tide_decomp_fixed_blocks(const char *spec);

/* Blocks along the key axes (p[k] along axis[k]) for `spec` and about nblocks blocks (ignored
 * for NXxNYxNZ): slabs cut axis[0]; 2d / 3d spread the prime factors of nblocks over the two /
 * three axes with most cells, keeping blocks near cubic.  Every p[k] is at most the cells along
 * the axis.  0, or -1 with a sentence in err. */
int tide_decomp_grid(const tide_grid *g, const char *spec, int nblocks, int p[3], char *err,
                     size_t errlen);

/* Before any particle is built: does `spec` fit the grid, and can it make exactly nblocks
 * blocks when nblocks > 0 (the user's --blocks; 0: the default, which is fitted to the grid)?
 * Also refuses a grid of 4e9 cells or more (32-bit cell keys).  0, or -1 with a sentence (no
 * final full stop) in err naming the value, the grid and the limit. */
int tide_decomp_validate(const tide_grid *g, const char *spec, int nblocks, char *err,
                         size_t errlen);

/* Estimated cost of a particle in a step, for placing cuts: a fixed-wall boundary particle only
 * interacts with fluid neighbours, so it costs a fraction of a fluid one. */
float tide_decomp_cost(uint32_t type);

/* Cuts along each key axis: cut[k][0] = 0 < ... < cut[k][p[k]] = cells along axis[k], placed by
 * the particles' cost projected on the axis: w[i] for particle i, or tide_decomp_cost when w is
 * NULL.  cut[k] has p[k] + 1 entries, allocated by the caller. */
void tide_decomp_cuts(const tide_grid *g, const tide_block_view *all, const float *w,
                      const int p[3], int *cut[3]);

/* The same cuts from the cost already projected on the cells of each key axis: w[k][c] for the
 * g->n[axis[k]] cells of axis k, ghost layers included (w[k] unused, may be NULL, when p[k] is
 * 1).  The rebalance without a gather (tasks/sph_setup.c) sums these over the ranks. */
void tide_decomp_cuts_projected(const tide_grid *g, double *const w[3], const int p[3], int *cut[3]);

/* The box of block b of the aligned grid. */
tide_block_arg tide_decomp_box(const int p[3], int *const cut[3], int b);

/* Rank that owns block b of nb = p0 p1 p2 blocks on `size` ranks (case key block_owners: boxes,
 * the default): ranks get boxes of blocks (a grid of ranks dividing the grid of blocks) when the
 * counts allow, contiguous runs of blocks otherwise. */
int tide_decomp_owner(const int p[3], int b, int size);

/* Position of cell (x, y, z) of a 2^bits cube along a 3-D Hilbert curve (Skilling's transpose
 * form, AIP Conf. Proc. 707, 2004): consecutive positions are cells sharing a face, so a run of
 * positions is a compact set of blocks.  bits <= 20. */
uint64_t tide_hilbert3(unsigned bits, uint32_t x, uint32_t y, uint32_t z);

/* Owners of the p0 p1 p2 blocks along the Hilbert curve (case key block_owners: hilbert): the
 * blocks in curve order (tide_hilbert3 over the smallest cube holding the grid of blocks) are
 * cut into `size` contiguous runs whose largest cost is the least any such cut achieves (to a
 * relative 1e-12: the bottleneck found by bisection, runs packed greedily under it), every run at
 * least one block when nb >= size (with fewer blocks, ranks nb.. own none).  The result depends
 * on the costs only, so every rank given the same costs gets the same owners.  owner[] has nb
 * entries. */
void tide_decomp_owners_curve(const int p[3], const double *cost, int size, int *owner);

/* Recovers p and the cuts from the boxes of an aligned grid (a restart); cut[k] must have room
 * for nb + 1 entries.  0, or -1 if the boxes are not an aligned grid in block order. */
int tide_decomp_from_boxes(const tide_grid *g, const tide_block_arg *box, int nb, int p[3],
                           int *cut[3]);

/* The neighbours of block b: blocks whose box touches b's box grown by one cell.  For each,
 * face[j] is the face (2 k + side, tide_face_slots' numbering) of the neighbour that faces b —
 * the first key axis along which b lies outside the neighbour.  Returns how many (<= 26). */
int tide_decomp_neighbours(const tide_grid *g, const tide_block_arg *box, int nb, int b,
                           int *nbr, int *face);

#endif
