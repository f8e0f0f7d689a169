// SPDX-License-Identifier: LGPL-2.1-or-later
// Study of the own tree's cost against the piece's shape (not a test; built next to them; issue
// 25, bench/results/sim-gravity/2026-12-06-shape): N uniform bodies in one rank's piece of the
// synthetic domain's cube [-1, 1]^3 (the common root of all ranks' trees, as tide gravity
// --synthetic makes it), the tree built and walked by the real codelets on the CPU, then
//   - the leaves' occupancy (particle-weighted mean, and the share of particles in leaves of more
//     than 16),
//   - the interactions per particle of the walk over the whole tree (every group, bh_accept as
//     bh_walk: multipoles, particles, and per warp of BH_GROUP particles),
//   - the CPU time of the walk (the process's CPU time around the walk tasks, min of R runs),
//   - the 99th percentile and median of |da|/|a| against a double direct sum over the piece.
//   bh_shape_study SHAPE N [SAMPLE] [REPEAT]   SHAPE: a rank count R = 1, 2, 4, ... 64 (rank 0's
//   piece of R ranks, tide_gravity_synth_piece: the cube, a half, a quarter, an eighth ...) or
//   plummer (tide gravity's Plummer sphere with its own root: the 1-GPU benchmark's distribution)
// theta 0.6 with quadrupoles (the scaling runs' settings); the split threshold is the build's
// (TIDE_BH_LEAF).  N bodies in a piece of 1/R of the cube have the density of R N bodies in the
// cube: 262144 bodies of any piece have the leaf arithmetic of 16 M per rank (a factor 8^2 in
// count, two levels).  Also printed: the synthetic domain's model of the same own walk
// (tide_gravity_synth_walk, the size of the simulated walk tasks), for comparison.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include "bh_shape_measure.h"

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: bh_shape_study R|plummer N [SAMPLE] [REPEAT]\n");
		return 2;
	}
	const char *shape = argv[1];
	int plummer = !strcmp(shape, "plummer"), R = plummer ? 1 : atoi(shape);
	if (R < 1 || R > 64 || (R & (R - 1))) {
		fprintf(stderr, "bh_shape_study: the shape must be plummer or a rank count 1, 2, 4, ... 64, not '%s'\n", shape);
		return 2;
	}
	uint32_t n = (uint32_t)atof(argv[2]);
	uint32_t want = argc > 3 ? (uint32_t)atof(argv[3]) : 2000;
	int repeat = argc > 4 ? atoi(argv[4]) : 3;
	if (n < 64 || want < 1 || repeat < 1) {
		fprintf(stderr, "bh_shape_study: N must be >= 64, SAMPLE and REPEAT >= 1\n");
		return 2;
	}
	if (starpu_init(NULL) != 0) return 77;
	bh_shape_result r;
	bh_shape_measure(plummer ? 0 : R, n, want, repeat, &r);
	printf("shape,leaf,n,cells,leaves,leaf_occ,share_gt16,m2p_pp,p2p_pp,inter_pp,model_pp,warp_m2p,"
	       "warp_p2p,walk_cpu_s,p99,median\n");
	printf("%s,%d,%u,%d,%d,%.2f,%.3f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.4f,%.3e,%.3e\n", shape,
	       tide_bh_leaf(&(bh_params){.theta = 0.6f, .quadrupole = 1}), n, r.cells, r.leaves, r.leaf_occ, r.share_gt16, r.m2p, r.p2p,
	       r.m2p + r.p2p, r.model, r.warp_m2p, r.warp_p2p, r.walk_cpu_s, r.err.p99, r.err.median);
	starpu_shutdown();
	return 0;
}
