// SPDX-License-Identifier: LGPL-2.1-or-later
// gas_integrate: under physics.scheme = gas, the kick-drift of every particle of a block over
// the step's global time step, read from the step reduction (tide_gas_kick of
// include/tide/gas_math.h: leapfrog, one force evaluation per step).
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/gas_math.h"
#include "tide/codelet_decl.h"

static void gas_integrate_cpu(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	starpu_codelet_unpack_args(cl_arg, &P, 0);
	tide_block_view v = tide_block_view_of(buffers[0]);
	const tide_step_reduce *red = (const tide_step_reduce *)STARPU_VARIABLE_GET_PTR(buffers[1]);
	float dt = red->dt;
	for (uint32_t i = 0; i < v.count; i++) tide_gas_kick(&P, dt, &v, i);
}

/* Buffers: block (RW), step reduction (R).  Args: tide_sph_params. */
TIDE_CODELET(gas_integrate, gas_integrate_cpu, tide_gas_integrate_cuda, 2, STARPU_RW, STARPU_R);
