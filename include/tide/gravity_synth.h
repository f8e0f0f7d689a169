/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The synthetic gravity domain (issue 25; tasks/gravity_synth.c, docs/simulation.md *Gravity weak
 * scaling*): R ranks (a power of 2) share a uniform cube [-1, 1]^3 of R x n particles, rank q
 * holding the q-th of R equal ranges of its Morton order, i.e. a box (a cell of the common root's
 * octree, or a half or a quarter of one).  Without particles, the sizes a run takes from them are
 * modelled on a virtual tree of that cube: a cell of expected count lambda (the particles of its
 * cube within the rank's box) is split with the probability that a Poisson count of mean lambda
 * exceeds the build's leaf threshold (tide_bh_leaf), its centre of mass is the centre of its cube's part in the box, and the choices
 * of the real code are made on it (bh_let_choose, bh_accept, bh_rcrit2, bh_vroot_cover's rule):
 *  - the essential nodes one rank sends another (cells + particles), and the coarse tree for far
 *    ranks: expected counts, their messages' sizes in a simulation;
 *  - the interactions per particle of a walk (own tree, or a received set), the mean over walk
 *    groups sampled on a lattice of the receiver's box: the size of the walk tasks' performance
 *    models, in the real runs that calibrate them and in the simulation alike.
 * How well this matches real runs of 2-8 ranks: docs/simulation.md. */
#ifndef TIDE_GRAVITY_SYNTH_H
#define TIDE_GRAVITY_SYNTH_H
#include "tide/bh_tree.h"

typedef struct tide_gravity_synth {
	int size;           /* ranks (a power of 2) */
	double n_rank;      /* particles per rank */
	double n_total;     /* size x n_rank */
	bh_cell universe;   /* the ranks' common root: bh_root_cube of [-1, 1]^3 */
	float theta;
	int quad, fill, nbox; /* quadrupoles; the build's group fill; boxes of a cover */
	int leaf;           /* the build's split threshold (tide_bh_leaf of init's P) */
	float far;          /* the received walks' far field (tide_gravity.far, from
	                     * TIDE_GRAVITY_FAR_FIELD at init): far nodes counted apart */
	double w_m2l, w_l2p; /* their weights in the work (TIDE_SYNTH_W_*, tide_gravity_synth_weights) */
} tide_gravity_synth;

/* The cost of the received walks' far field in the unit of the walk tasks' work (one node or
 * particle on one particle of a group, bh_m2p/bh_p2p): a far node's expansion (bh_m2l, once per
 * group) costs TIDE_SYNTH_W_M2L such interactions, a particle's evaluation of its group's
 * expansion (bh_l2p, once per walk task) TIDE_SYNTH_W_L2P.  Measured: on the H100 (device call D,
 * bench/results/sim-gravity/2026-12-06-far: bh_walk_sets with and without the expansions, 2-4
 * ranks of 1-4 M) a far node costs 14-18 interactions (each lane expands the far node it popped
 * while the others wait); on the CPU (build/tests/bh_local_cost, thread CPU time, the walk's SIMD
 * loops, 8 nodes at a time) 3.7-3.8, and an L2P 1.05-1.08.  The simulation prices GPUs: 16. */
#define TIDE_SYNTH_W_M2L 16.0
#define TIDE_SYNTH_W_L2P 1.05
/* TIDE_GRAVITY_SYNTH_WEIGHTS="M2L,L2P" (two numbers >= 0) replaces the two weights, e.g. with a
 * GPU calibration's, without a rebuild; unset or empty: the defaults; anything else: a warning
 * on rank 0 and the defaults. */
void tide_gravity_synth_weights(tide_gravity_synth *s, const char *v, int rank);

/* 0, or -1 when size is not a power of 2 (the pieces are boxes only then). */
int tide_gravity_synth_init(tide_gravity_synth *s, int size, double n_rank, bh_params P, int fill,
                            int nbox);
/* Rank q's box (lo x, y, z, hi x, y, z) within [-1, 1]^3. */
void tide_gravity_synth_piece(const tide_gravity_synth *s, int q, double box[6]);
/* Rank q's virtual root as bh_vroot_make and bh_vroot_cover would make it: its particle box
 * (the piece, less 1e-6 of its side on each face, as the particles stay inside), mass, centre of
 * mass, and the cover of the virtual tree's top cells. */
void tide_gravity_synth_vroot(const tide_gravity_synth *s, int q, bh_vroot *v);
/* Expected cells and particles of what rank `from` sends: its essential nodes for rank to_rank,
 * whose virtual root is `to` (far2 < 0), or its coarse tree (far2 >= 0, `to` unused),
 * bh_let_choose on the virtual tree. */
void tide_gravity_synth_let(const tide_gravity_synth *s, int from, int to_rank, const bh_vroot *to,
                            float far2, double *ncells, double *nparts);
/* Interactions per particle (multipoles + particles) of rank `to`'s walk groups: over its own
 * tree (from == to), or over what `from` sends it (its essential nodes for vroot v, far2 < 0,
 * or its coarse tree, far2 >= 0); the mean over groups sampled on a product rule of to's box
 * (refined towards its faces, but for coarse trees). */
double tide_gravity_synth_walk(const tide_gravity_synth *s, int to, int from, const bh_vroot *v,
                               float far2);
/* The same walk's parts, per particle: out[0] nodes and particles applied to each particle,
 * out[1] far nodes in the group's local expansion (s->far > 0 and from != to; per group, over
 * BH_GROUP particles).  tide_gravity_synth_walk = out[0] + s->w_m2l out[1] (the L2P,
 * once per walk task over all sets, the caller adds). */
void tide_gravity_synth_walk_parts(const tide_gravity_synth *s, int to, int from, const bh_vroot *v,
                                   float far2, double out[2]);
#endif
