// SPDX-License-Identifier: LGPL-2.1-or-later
// integrate: advances a block by the step's global time step (read from the step reduction, so
// the time step never visits the host before it is used): Verlet with its periodic Euler step,
// or the two stages of the symplectic scheme (sph_interact.h).
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/sph_interact.h"
#include "tide/codelet_decl.h"

static void integrate_cpu(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_integrate_arg I;
	starpu_codelet_unpack_args(cl_arg, &P, &I, 0);
	tide_block_view v = tide_block_view_of(buffers[0]);
	const tide_step_reduce *red = (const tide_step_reduce *)STARPU_VARIABLE_GET_PTR(buffers[1]);
	float dt = red->dt;
	for (uint32_t i = 0; i < v.count; i++) tide_integrate_particle(&P, I.stage, dt, &v, i);
}

TIDE_CODELET(integrate, integrate_cpu, tide_integrate_cuda, 2, STARPU_RW, STARPU_R);
