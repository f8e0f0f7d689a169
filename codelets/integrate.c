// SPDX-License-Identifier: LGPL-2.1-or-later
// integrate: advances a block by the step's global time step (read from the step reduction, so
// the time step never visits the host before it is used): Verlet with its periodic Euler step,
// or the two stages of the symplectic scheme (sph_interact.h).
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/sph_interact.h"

static void integrate_cpu(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_integrate_arg I;
	starpu_codelet_unpack_args(cl_arg, &P, &I);
	tide_block_view v = tide_block_view_of(buffers[0]);
	const tide_step_reduce *red = (const tide_step_reduce *)STARPU_VARIABLE_GET_PTR(buffers[1]);
	float dt = red->dt;
	for (uint32_t i = 0; i < v.count; i++) tide_integrate_particle(&P, I.stage, dt, &v, i);
}

static struct starpu_perfmodel integrate_model = {
	.type = STARPU_HISTORY_BASED,
	.symbol = "tide_integrate",
};

struct starpu_codelet tide_integrate_cl = {
	.name = "integrate",
	.cpu_funcs = {integrate_cpu},
#ifdef TIDE_USE_CUDA
	.cuda_funcs = {tide_integrate_cuda},
	.cuda_flags = {STARPU_CUDA_ASYNC},
#endif
	.nbuffers = 2,
	.modes = {STARPU_RW, STARPU_R},
	.model = &integrate_model,
};
