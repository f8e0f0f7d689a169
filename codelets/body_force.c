// SPDX-License-Identifier: LGPL-2.1-or-later
// body_force: one block's share of the floating bodies' fluid force and torque
// (include/tide/body_force.h), into the block's own sums; the host adds the blocks' sums in
// block order (tasks/sph_step.c), so the result does not depend on how blocks map to ranks.
#include <string.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/body_force.h"
#include "tide/codelets.h"
#include "tide/codelet_decl.h"

static void body_force_cpu(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_body_force_arg A;
	starpu_codelet_unpack_args(cl_arg, &P, &A, 0);
	tide_block_view v = tide_block_view_of(buffers[0]);
	tide_body_sums *out = (tide_body_sums *)STARPU_VARIABLE_GET_PTR(buffers[1]);
	memset(out, 0, sizeof *out);
	for (uint32_t i = 0; i < v.count; i++)
		for (int j = 0; j < A.n; j++) {
			double f[6];
			if (!tide_body_force_particle(&A, j, P.mass[TIDE_BOUND], &v, i, f)) continue;
			for (int q = 0; q < 6; q++) out->s[j][q] += f[q];
			break;
		}
}

TIDE_CODELET(body_force, body_force_cpu, tide_body_force_cuda, 2, STARPU_R, STARPU_W);
