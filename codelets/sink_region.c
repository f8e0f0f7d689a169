// SPDX-License-Identifier: LGPL-2.1-or-later
// sink_region: the gas particles of a block within r_acc of the creation candidates being
// tested (include/tide/sink.h), with what the host's tests need (position, velocity, specific
// thermal energy, potential, id), into the block's record.  A particle in several candidates'
// regions is reported once for each.  The host (tasks/sinks.c) gathers every block's record
// and runs the tests on each candidate's region in id order.
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/sink.h"
#include "tide/codelet_decl.h"

static void sink_region_cpu(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_sink_region_arg A;
	starpu_codelet_unpack_args(cl_arg, &P, &A, 0);
	tide_block_view v = tide_block_view_of(buffers[0]);
	tide_sink_region_rec *R = (tide_sink_region_rec *)STARPU_VARIABLE_GET_PTR(buffers[1]);
	uint32_t cap = TIDE_SINK_REGION_CAP(STARPU_VARIABLE_GET_ELEMSIZE(buffers[1]));
	R->n = 0;
	for (uint32_t i = 0; i < v.count; i++)
		for (int c = tide_sink_region_of(&A, &v, i, 0); c >= 0;
		     c = tide_sink_region_of(&A, &v, i, c + 1)) {
			if (R->n < cap) tide_sink_rpart_of(&P, &v, i, c, &R->p[R->n]);
			R->n++;   /* counted on past the room: the host grows it and asks again */
		}
}

/* Buffers: block (R), tide_sink_region_rec (W).  Args: tide_sph_params, tide_sink_region_arg. */
TIDE_CODELET(sink_region, sink_region_cpu, tide_sink_region_cuda, 2, STARPU_R, STARPU_W);
