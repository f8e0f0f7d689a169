// SPDX-License-Identifier: LGPL-2.1-or-later
// gas_forces: under physics.scheme = gas, the acceleration and internal energy rate of every
// particle of a cell-sorted block (include/tide/gas_math.h: grad-h pressure forces, artificial
// viscosity with the Balsara switch, artificial conductivity), from the block and the halos
// packed after gas_density, and the block's share of the step reduction (the signal-velocity
// and acceleration time step, speed and density range, health).  A gather, as gas_density.
#include <string.h>
#include "tide/gas_codelet.h"
#include "tide/codelet_decl.h"

static void gas_forces_cpu(void *buffers[], void *cl_arg)
{
	tide_gas_task t;
	tide_gas_task_of(buffers, cl_arg, 4, &t);
	tide_step_reduce *red = (tide_step_reduce *)STARPU_VARIABLE_GET_PTR(buffers[2]);
	tide_gas_src own = tide_gas_src_of(&t.v);
	/* the reach map of the block (gas_math.h): every particle of it and of its halos stamps */
	float *M = (float *)STARPU_VECTOR_GET_PTR(buffers[3]);
	memset(M, 0, sizeof(float) * STARPU_VECTOR_GET_NX(buffers[3]));
	for (int s = -1; s < t.H.n; s++) {
		const tide_gas_src *src = s < 0 ? &own : &t.H.h[s];
		for (uint32_t j = 0; j < src->count; j++) {
			if (src->type[j] == TIDE_NBODY) continue;   /* collisionless: no support */
			double x[3] = {src->x[j], src->y[j], src->z[j]};
			tide_gas_reach_stamp(&t.P, &t.A, x, src->h[j], M);
		}
	}
	tide_step_reduce r;
	tide_step_reduce_init(&r);
	for (uint32_t i = 0; i < t.v.count; i++) {
		if (t.v.type[i] == TIDE_BOUND) continue;
		float dt = tide_gas_forces_particle(&t.P, &t.A, &t.v, i, &own, t.start, t.H.h, t.H.n, M);
		tide_gas_reduce_particle(&t.v, i, dt, &r);
	}
	r.count = t.v.count;
	r.fill = t.fill;
	/* this worker's private copy of the reduction: no other task touches it concurrently */
	tide_step_reduce_combine(red, &r);
}

/* Buffers: block (RW), cell starts (R), step reduction (REDUX), the reach map (W: a float per
 * cell of the box, written and read here), then one halo (R) per neighbour, as sph_forces. */
TIDE_CODELET_VARIABLE(gas_forces, gas_forces_cpu, tide_gas_forces_cuda);
