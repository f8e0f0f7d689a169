// SPDX-License-Identifier: LGPL-2.1-or-later
// dt_combine: one rank's copy of the step's global reduction record, from every rank's own
// reduction (buffers[0] W: the result; buffers[1..n] R: the ranks' records).  Under MPI each
// rank runs one, so the time step needs one hop of small messages (each rank's record to every
// other), not a reduction towards rank 0 followed by its broadcast (tasks/sph_step.c).
#include <starpu.h>
#include "tide/codelets.h"
#include "tide/sph_params.h"
#include "tide/codelet_decl.h"

static void dt_combine_cpu(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	int n = STARPU_TASK_GET_NBUFFERS(starpu_task_get_current());
	tide_step_reduce *out = (tide_step_reduce *)STARPU_VARIABLE_GET_PTR(buffers[0]);
	tide_step_reduce_init(out);
	for (int i = 1; i < n; i++)
		tide_step_reduce_combine(out, (const tide_step_reduce *)STARPU_VARIABLE_GET_PTR(buffers[i]));
}

TIDE_CODELET_VARIABLE(dt_combine, dt_combine_cpu, tide_dt_combine_cuda);
