// SPDX-License-Identifier: LGPL-2.1-or-later
// sink_gravity: the sinks' pull on a gas block's particles (include/tide/sink.h), added to the
// acceleration the gas forces and the self-gravity left, with the time-step limit of the sinks
// (sink-gas distance) and of the new total acceleration into the step reduction (STARPU_REDUX,
// before the step's dt_combine), and the block's pull on every sink, summed in particle order
// into the block's record for the host (tasks/sinks.c).
#include <string.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/sink.h"
#include "tide/codelet_decl.h"

static void sink_gravity_cpu(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_sink_set S;
	starpu_codelet_unpack_args(cl_arg, &P, &S, 0);
	tide_block_view v = tide_block_view_of(buffers[0]);
	tide_sink_force *F = (tide_sink_force *)STARPU_VARIABLE_GET_PTR(buffers[1]);
	tide_step_reduce *red = (tide_step_reduce *)STARPU_VARIABLE_GET_PTR(buffers[2]);
	memset(F, 0, sizeof *F);
	tide_step_reduce r;
	tide_step_reduce_init(&r);
	r.dt = S.dt_max;
	for (uint32_t i = 0; i < v.count; i++) {
		if (v.type[i] != TIDE_FLUID) continue;
		float dt = tide_sink_gravity_one(&P, &S, &v, i);
		if (dt < r.dt) r.dt = dt;
		for (int s = 0; s < S.n; s++) {
			double f[3];
			tide_sink_force_on(&S, s, &v, i, tide_sink_mass_of(&P, &v, i), f);
			for (int k = 0; k < 3; k++) F->f[s][k] += f[k];
		}
	}
	tide_step_reduce_combine(red, &r);
}

/* Buffers: block (RW), tide_sink_force (W), step reduction (REDUX).  Args: tide_sph_params,
 * tide_sink_set. */
TIDE_CODELET(sink_gravity, sink_gravity_cpu, tide_sink_gravity_cuda, 3, STARPU_RW, STARPU_W,
             STARPU_REDUX);
