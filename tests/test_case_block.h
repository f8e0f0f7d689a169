/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* For the tests that drive tide_sim directly: load a case file (dp > 0 overrides its dp), build
 * its particles and turn them into one host block (*mem, *all).  nbound (may be NULL) receives
 * the number of boundary particles.  0, or -1 after the loader's message. */
#ifndef TIDE_TEST_CASE_BLOCK_H
#define TIDE_TEST_CASE_BLOCK_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tide/case.h"
#include "case_load.h"
#include "host_blocks.h"
#include "particle_set.h"
#include "tide/sph_sim.h"

/* The particles of a loaded case as one host block (what test_case_block does after loading). */
static inline int test_case_build_block(const tide_case *c, void **mem, tide_block_view *all,
                                        size_t *nbound)
{
	tide_particle_set ps;
	memset(&ps, 0, sizeof ps);
	if (tide_case_build(c, &ps)) return -1;
	int ret = tide_host_block_from_set(&ps, mem, all);
	if (nbound) *nbound = tide_pset_count_type(&ps, TIDE_BOUND);
	tide_pset_free(&ps);
	return ret;
}

static inline int test_case_block(const char *path, double dp, tide_case *c, void **mem,
                                  tide_block_view *all, size_t *nbound)
{
	if (tide_case_load(path, dp, c)) return -1;
	return test_case_build_block(c, mem, all, nbound);
}

/* test_case_block of the shipped case ROOT/cases/NAME.yaml. */
static inline int test_shipped_case_block(const char *root, const char *name, double dp, tide_case *c,
                                          void **mem, tide_block_view *all, size_t *nbound)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/cases/%s.yaml", root, name);
	return test_case_block(path, dp, c, mem, all, nbound);
}

/* A random point (rand()) inside block b's box, away from its faces by a tenth of its width. */
static inline void test_point_in_block(const tide_sim *sim, int b, double p[3])
{
	const tide_grid *g = &sim->P.grid;
	int lo[3], hi[3];
	tide_box_bounds(&sim->blk[b].range, lo, hi);
	for (int k = 0; k < 3; k++) {
		int a = g->axis[k];
		double w = (hi[k] - lo[k]) * (double)g->cell;
		p[a] = g->origin[a] + lo[k] * (double)g->cell + w * (0.1 + 0.8 * (rand() / (RAND_MAX + 1.0)));
	}
}

#endif
