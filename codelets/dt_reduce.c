// SPDX-License-Identifier: LGPL-2.1-or-later
// dt_reduce: the step reduction record (tide_step_reduce) as a StarPU reduction.  sph_forces
// tasks access it in STARPU_REDUX mode; StarPU gives each worker a copy set by the init codelet
// and combines the copies with the redux codelet (min of time steps, max of speeds, sum of bad
// particles).  The init codelet also serves as the reset task at the start of a step.
#include <starpu.h>
#include "tide/codelets.h"
#include "tide/sph_params.h"

static void dt_init_cpu(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	tide_step_reduce_init((tide_step_reduce *)STARPU_VARIABLE_GET_PTR(buffers[0]));
}

static void dt_redux_cpu(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	tide_step_reduce *a = (tide_step_reduce *)STARPU_VARIABLE_GET_PTR(buffers[0]);
	const tide_step_reduce *b = (const tide_step_reduce *)STARPU_VARIABLE_GET_PTR(buffers[1]);
	tide_step_reduce_combine(a, b);
}

static struct starpu_perfmodel dt_init_model = {
	.type = STARPU_HISTORY_BASED,
	.symbol = "tide_dt_init",
};
static struct starpu_perfmodel dt_redux_model = {
	.type = STARPU_HISTORY_BASED,
	.symbol = "tide_dt_redux",
};

struct starpu_codelet tide_dt_init_cl = {
	.name = "dt_init",
	.cpu_funcs = {dt_init_cpu},
#ifdef TIDE_USE_CUDA
	.cuda_funcs = {tide_dt_init_cuda},
	.cuda_flags = {STARPU_CUDA_ASYNC},
#endif
	.nbuffers = 1,
	.modes = {STARPU_W},
	.model = &dt_init_model,
};

struct starpu_codelet tide_dt_redux_cl = {
	.name = "dt_redux",
	.cpu_funcs = {dt_redux_cpu},
#ifdef TIDE_USE_CUDA
	.cuda_funcs = {tide_dt_redux_cuda},
	.cuda_flags = {STARPU_CUDA_ASYNC},
#endif
	.nbuffers = 2,
	.modes = {STARPU_RW | STARPU_COMMUTE, STARPU_R},
	.model = &dt_redux_model,
};
