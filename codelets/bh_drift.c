// SPDX-License-Identifier: LGPL-2.1-or-later
// bh_drift: the position step of the leapfrog, x += v dt.
#include <starpu.h>
#include "tide/bh_codelets.h"
#include "tide/codelet_decl.h"

static void drift_cpu(void *buffers[], void *cl_arg)
{
	uint32_t n;
	float dt;
	starpu_codelet_unpack_args(cl_arg, &n, &dt, 0);
	bh_body *b = (bh_body *)STARPU_VECTOR_GET_PTR(buffers[0]);
	const float *v = (const float *)STARPU_VECTOR_GET_PTR(buffers[1]);
	for (uint32_t i = 0; i < n; i++) {
		b[i].x += v[4 * i + 0] * dt;
		b[i].y += v[4 * i + 1] * dt;
		b[i].z += v[4 * i + 2] * dt;
	}
}

TIDE_CODELET(bh_drift, drift_cpu, tide_bh_drift_cuda, 2, STARPU_RW, STARPU_R);
