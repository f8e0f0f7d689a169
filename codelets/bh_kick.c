// SPDX-License-Identifier: LGPL-2.1-or-later
// bh_kick: the velocity half-step of the leapfrog, v += a dt, for the particles of one walk part.
#include <starpu.h>
#include "tide/bh_codelets.h"
#include "tide/codelet_decl.h"

static void kick_cpu(void *buffers[], void *cl_arg)
{
	bh_range R;
	float dt;
	starpu_codelet_unpack_args(cl_arg, &R, &dt, 0);
	float *v = (float *)STARPU_VECTOR_GET_PTR(buffers[0]);
	const bh_acc *a = (const bh_acc *)STARPU_VECTOR_GET_PTR(buffers[1]);
	for (uint32_t i = R.r0; i < R.r1; i++) {
		const bh_acc *ai = &a[i - R.r0];
		v[4 * i + 0] += ai->ax * dt;
		v[4 * i + 1] += ai->ay * dt;
		v[4 * i + 2] += ai->az * dt;
	}
}

TIDE_CODELET(bh_kick, kick_cpu, tide_bh_kick_cuda, 2, STARPU_RW, STARPU_R);
