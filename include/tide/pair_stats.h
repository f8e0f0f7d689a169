// SPDX-License-Identifier: LGPL-2.1-or-later
/* The neighbour search's figures for the benchmarks (tide run --pair-stats; issue 20): how many
 * candidates the force pass tests per particle and how many of them are neighbours, so that the
 * time per step can be set against the pair work it does.  Host side, after the timed steps. */
#ifndef TIDE_PAIR_STATS_H
#define TIDE_PAIR_STATS_H
#include <stdint.h>
#include "tide/sph_params.h"

typedef struct tide_pair_stats {
	uint64_t particles, sampled;
	/* means over the sampled particles: the particles of the 3^dim cells of side 2h around a
	 * particle's own (what the CPU and CUDA force passes test, itself included) and the other
	 * particles within 2h (the pairs they evaluate) */
	double candidates, neighbours;
} tide_pair_stats;

/* The figures over every stride-th of n points (x, y, z) in grid g with support radius^2 h2x4
 * (periodic images are not counted).  0, or -1 when memory runs out. */
int tide_pair_stats_points(const tide_grid *g, float h2x4, const double *x, const double *y,
                           const double *z, uint64_t n, uint64_t stride, tide_pair_stats *s);
#endif
