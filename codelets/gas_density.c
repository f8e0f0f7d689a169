// SPDX-License-Identifier: LGPL-2.1-or-later
// gas_density: under physics.scheme = gas, the smoothing length, density, grad-h factor and
// Balsara switch of every particle of a cell-sorted block, from the positions and velocities
// of the block and of the halos its forces read (the h iteration of include/tide/gas_math.h).
// A gather: each particle sums over its own candidates and writes only its own rho, h, 1/Omega
// and switch, which no particle's sums read.
#include "tide/gas_codelet.h"
#include "tide/codelet_decl.h"

static void gas_density_cpu(void *buffers[], void *cl_arg)
{
	tide_gas_task t;
	tide_gas_task_of(buffers, cl_arg, 2, &t);
	tide_gas_src own = tide_gas_src_of(&t.v);
	for (uint32_t i = 0; i < t.v.count; i++)
		if (t.v.type[i] == TIDE_FLUID)
			tide_gas_density_particle(&t.P, &t.A, &t.v, i, &own, t.start, t.H.h, t.H.n);
}

/* Buffers: block (RW), cell starts (R), then one halo (R) per neighbour, as mdbc_ghost. */
TIDE_CODELET_VARIABLE(gas_density, gas_density_cpu, tide_gas_density_cuda);
