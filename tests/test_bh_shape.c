// SPDX-License-Identifier: LGPL-2.1-or-later
// The own tree's cost must follow the density, not the piece's shape (issue 25, the split
// threshold BH_LEAF of include/tide/bh_tree.h).  Uniform bodies in rank 0's piece of 1 rank (the
// cube, 8 per cell of level 4) and of 4 ranks (a 2 x 1 x 1 quarter of it, 32 per cell of level
// 4: the 4 x 8^k-rank pieces of the scaling runs), the common root of the synthetic domain:
//   - the quarter's leaves are split to a few particles (mean 3-9 per particle; 16.5 with the
//     old threshold 32, a mix of ~32 and ~4), the cube's hold 6-11;
//   - the quarter's walk needs no more interactions per particle than the cube's (5 % margin;
//     it needed 23 % more with the threshold 32);
//   - its forces against a double direct sum: 99th percentile within 1.5x the cube's and below
//     1e-3 (theta 0.6, quadrupoles);
//   - the synthetic domain's model of the own walk (the simulated walk tasks' size) gives the
//     quarter / cube ratio of the real counts within 10 %.
#include <stdio.h>
#include <starpu.h>
#include "bh_shape_measure.h"

static int fails;
#define CHECK(c, ...) do { if (!(c)) { fails++; printf("FAIL: " __VA_ARGS__); printf("\n"); } } while (0)

int main(void)
{
	if (starpu_init(NULL) != 0) return 77;
	bh_shape_result cube, quarter;
	bh_shape_measure(1, 32768, 1500, 1, &cube);
	bh_shape_measure(4, 32768, 1500, 1, &quarter);
	const bh_shape_result *r[2] = {&cube, &quarter};
	const char *name[2] = {"cube", "quarter"};
	for (int k = 0; k < 2; k++)
		printf("%-8s leaf threshold %d: %d cells, leaves of %.2f per particle, %.0f + %.0f "
		       "interactions per particle (model %.0f), 99 %% error %.3e, median %.3e\n", name[k],
		       tide_bh_leaf(&(bh_params){.theta = 0.6f, .quadrupole = 1}), r[k]->cells, r[k]->leaf_occ, r[k]->m2p, r[k]->p2p, r[k]->model,
		       r[k]->err.p99, r[k]->err.median);
	CHECK(quarter.leaf_occ >= 3 && quarter.leaf_occ <= 9, "quarter: leaves of %.2f, not 3-9", quarter.leaf_occ);
	CHECK(cube.leaf_occ >= 6 && cube.leaf_occ <= 11, "cube: leaves of %.2f, not 6-11", cube.leaf_occ);
	double ic = cube.m2p + cube.p2p, iq = quarter.m2p + quarter.p2p;
	CHECK(iq <= 1.05 * ic, "quarter: %.0f interactions per particle, the cube %.0f", iq, ic);
	CHECK(quarter.err.p99 <= 1.5 * cube.err.p99 && quarter.err.p99 < 1e-3,
	      "quarter: 99 %% error %.3e, the cube %.3e", quarter.err.p99, cube.err.p99);
	double real = iq / ic, model = quarter.model / cube.model;
	CHECK(model > 0.9 * real && model < 1.1 * real,
	      "model's quarter/cube %.3f against the real %.3f", model, real);
	starpu_shutdown();
	if (fails) printf("%d failure(s)\n", fails);
	return fails ? 1 : 0;
}
