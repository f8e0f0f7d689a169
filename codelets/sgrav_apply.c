// SPDX-License-Identifier: LGPL-2.1-or-later
// sgrav_apply: adds the self-gravity field (from sgrav_unsort, in gather order) to the
// acceleration sph_forces left in a block, for its fluid particles, and puts the CFL force limit
// of the new total acceleration into the step reduction (STARPU_REDUX, the same handle as
// sph_forces': the minimum then covers both before integrate reads the time step).
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/sph_gravity_math.h"
#include "tide/codelet_decl.h"

static void sgrav_apply_cpu(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	int b;   /* the block's index among its rank's blocks */
	starpu_codelet_unpack_args(cl_arg, &P, &b, 0);
	tide_block_view v = tide_block_view_of(buffers[0]);
	const bh_acc *g = (const bh_acc *)STARPU_VECTOR_GET_PTR(buffers[1]);
	const uint32_t *offs = (const uint32_t *)STARPU_VECTOR_GET_PTR(buffers[2]);
	tide_step_reduce *red = (tide_step_reduce *)STARPU_VARIABLE_GET_PTR(buffers[3]);
	STARPU_ASSERT_MSG(offs[b + 1] - offs[b] == v.count,
	                  "sgrav_apply: block %d has %u particles, %u were gathered", b, v.count,
	                  offs[b + 1] - offs[b]);
	tide_step_reduce r;
	tide_step_reduce_init(&r);
	for (uint32_t i = 0; i < v.count; i++) {
		int bad;
		float dt = tide_sgrav_add(&P, &v, i, &g[offs[b] + i], &bad);
		if (dt < r.dt) r.dt = dt;
		r.nbad += (uint32_t)bad;
	}
	/* this worker's private copy of the reduction (count and fill stay sph_forces') */
	tide_step_reduce_combine(red, &r);
}

/* The step reduction is a StarPU reduction (STARPU_REDUX); under MPI it is the owner's own
 * record, which dt_combine then folds with the other ranks' (tasks/sph_step.c). */
TIDE_CODELET(sgrav_apply, sgrav_apply_cpu, tide_sgrav_apply_cuda, 4,
             STARPU_RW, STARPU_R, STARPU_R, STARPU_REDUX);
