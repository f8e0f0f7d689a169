// SPDX-License-Identifier: LGPL-2.1-or-later
// mdbc_ghost: under physics.boundary = mdbc, the density (and with physics.mdbc_slip noslip or
// freeslip the velocity) every boundary particle of a cell-sorted block takes from its ghost
// node (include/tide/mdbc.h), from the fluid of the block and of the halos sph_forces reads,
// written to the particle's rho (and vx, vy, vz).  Only fluid particles are read, so the writes
// never meet the reads.  The halos are packed again afterwards (tasks/sph_step.c), so
// sph_forces sees the new boundary values in every block and halo alike.
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
	tide_mdbc_src halo[TIDE_MAX_NEIGHBOURS];
	for (int h = 0; h < nh; h++) {
		tide_block_view hv = tide_block_view_of(buffers[2 + h]);
		halo[h] = tide_mdbc_src_of(&hv);
	}
	for (uint32_t i = 0; i < v.count; i++)
		if (v.type[i] != TIDE_FLUID) tide_mdbc_particle(&P, &A, &v, i, start, halo, nh);
}

/* Buffers: block (RW), cell starts (R), then one halo (R) per neighbour, as sph_forces. */
TIDE_CODELET_VARIABLE(mdbc_ghost, mdbc_ghost_cpu, tide_mdbc_ghost_cuda);
