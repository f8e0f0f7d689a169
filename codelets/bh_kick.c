// SPDX-License-Identifier: LGPL-2.1-or-later
// bh_kick: the velocity half-step of the leapfrog, v += a dt, for the particles of one walk part.
#include <starpu.h>
#include "tide/bh_codelets.h"

static void kick_cpu(void *buffers[], void *cl_arg)
{
	bh_range R;
	float dt;
	starpu_codelet_unpack_args(cl_arg, &R, &dt);
	float *v = (float *)STARPU_VECTOR_GET_PTR(buffers[0]);
	const bh_acc *a = (const bh_acc *)STARPU_VECTOR_GET_PTR(buffers[1]);
	for (uint32_t i = R.r0; i < R.r1; i++) {
		const bh_acc *ai = &a[i - R.r0];
		v[4 * i + 0] += ai->ax * dt;
		v[4 * i + 1] += ai->ay * dt;
		v[4 * i + 2] += ai->az * dt;
	}
}

static struct starpu_perfmodel kick_model = {
	.type = STARPU_HISTORY_BASED,
	.symbol = "tide_bh_kick",
};

struct starpu_codelet tide_bh_kick_cl = {
	.name = "bh_kick",
	.cpu_funcs = {kick_cpu},
#ifdef TIDE_USE_CUDA
	.cuda_funcs = {tide_bh_kick_cuda},
	.cuda_flags = {STARPU_CUDA_ASYNC},
#endif
	.nbuffers = 2,
	.modes = {STARPU_RW, STARPU_R},
	.model = &kick_model,
};
