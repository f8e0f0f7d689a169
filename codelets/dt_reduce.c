// SPDX-License-Identifier: LGPL-2.1-or-later
// dt_reduce: the step reduction record (tide_step_reduce) as a StarPU reduction.  sph_forces
// tasks access it in STARPU_REDUX mode; StarPU gives each worker a copy set by the init codelet
// and combines the copies with the redux codelet (min of time steps, max of speeds, sum of bad
// particles).  The init codelet also serves as the reset task at the start of a step.
#include <starpu.h>
#include "tide/codelets.h"
#include "tide/sph_params.h"
#include "tide/codelet_decl.h"

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

TIDE_CODELET(dt_init, dt_init_cpu, tide_dt_init_cuda, 1, STARPU_W);

/* StarPU runs it as its own (internal) tasks: declared for that (include/tide/codelet_decl.h) */
TIDE_CODELET_REDUX(dt_redux, dt_redux_cpu, tide_dt_redux_cuda, 2, STARPU_RW | STARPU_COMMUTE, STARPU_R);
