// SPDX-License-Identifier: LGPL-2.1-or-later
// mdbc_ghost: under physics.boundary = mdbc, the density every boundary particle of a cell-sorted
// block takes from its ghost node (include/tide/mdbc.h), from the fluid of the block and of the
// halos sph_forces reads.  It is written to the particle's TIDE_BN_RHO (rho1), which sph_forces
// never reads and integrate gives the particle at the end of the step: every block and rank
// then sees the same boundary densities during the step, whatever the decomposition.
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/mdbc.h"
#include "tide/codelet_decl.h"

_Static_assert(TIDE_MDBC_MAX_SRC == TIDE_MAX_NEIGHBOURS, "mdbc.h's halo count");

static void mdbc_ghost_cpu(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_block_arg A;
	int nh;
	starpu_codelet_unpack_args(cl_arg, &P, &A, &nh);
	STARPU_ASSERT(nh >= 0 && nh <= TIDE_MAX_NEIGHBOURS);
	tide_block_view v = tide_block_view_of(buffers[0]);
	const uint32_t *start = (const uint32_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
	tide_mdbc_src own = tide_mdbc_src_of(&v), halo[TIDE_MAX_NEIGHBOURS];
	for (int h = 0; h < nh; h++) {
		tide_block_view hv = tide_block_view_of(buffers[2 + h]);
		halo[h] = tide_mdbc_src_of(&hv);
	}
	for (uint32_t i = 0; i < v.count; i++) {
		if (v.type[i] == TIDE_FLUID) continue;
		const float nb[3] = {v.TIDE_BN_X[i], v.TIDE_BN_Y[i], v.TIDE_BN_Z[i]};
		v.TIDE_BN_RHO[i] = tide_mdbc_particle(&P, &A, &own, start, halo, nh, nb, i, v.rho[i]);
	}
}

/* Buffers: block (RW), cell starts (R), then one halo (R) per neighbour, as sph_forces. */
TIDE_CODELET_VARIABLE(mdbc_ghost, mdbc_ghost_cpu, tide_mdbc_ghost_cuda);
