/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The own tree's cost on one rank's piece of the synthetic domain (tests/bh_shape_measure.c),
 * for the study tool bh_shape_study and the test test_bh_shape (issue 25). */
#ifndef TIDE_BH_SHAPE_MEASURE_H
#define TIDE_BH_SHAPE_MEASURE_H
#include <stdint.h>
#include "tide/bh_gravity.h"

typedef struct bh_shape_result {
	int32_t cells, leaves;
	double leaf_occ;       /* particle-weighted mean leaf size: sum of size^2 / n */
	double share_gt16;     /* share of the particles in leaves of more than 16 */
	double m2p, p2p;       /* interactions per particle over the whole tree: multipoles, particles */
	double warp_m2p, warp_p2p; /* the same per walk group, per BH_GROUP particles (the GPU's cost) */
	double model;          /* tide_gravity_synth_walk of the same own walk (0 for plummer) */
	double walk_cpu_s;     /* process CPU time of one walk evaluation, min of repeat */
	tide_gravity_err err;  /* |da|/|a| against a double direct sum over the piece, on a sample */
} bh_shape_result;

/* N uniform bodies in rank 0's piece of R ranks of the synthetic cube [-1, 1]^3, with the cube
 * as the common root (R a power of 2 up to 64), or a Plummer sphere of N (R = 0, its own root);
 * theta 0.6, quadrupoles, CPU (StarPU initialised by the caller).  sample: particles checked
 * against the direct sum; repeat: walks timed. */
void bh_shape_measure(int R, uint32_t n, uint32_t sample, int repeat, bh_shape_result *r);
#endif
