// SPDX-License-Identifier: LGPL-2.1-or-later
// sgrav_unsort: the walk's accelerations, in the tree's Morton order, back into gather order
// (body k = particle offs[b] + i of block b), through the gather index that bh_build moved with
// every body.  After it each block's sgrav_apply reads its own contiguous range.
#include <starpu.h>
#include "tide/codelets.h"
#include "tide/sph_gravity_math.h"
#include "tide/codelet_decl.h"

static void sgrav_unsort_cpu(void *buffers[], void *cl_arg)
{
	tide_sgrav_unsort_arg A;
	starpu_codelet_unpack_args(cl_arg, &A, 0);
	const float *vel = (const float *)STARPU_VECTOR_GET_PTR(buffers[0]);
	bh_acc *out = (bh_acc *)STARPU_VECTOR_GET_PTR(buffers[1]);
	uint32_t n = (uint32_t)STARPU_VECTOR_GET_NX(buffers[1]);
	for (int p = 0; p < A.nparts; p++) {
		const bh_acc *a = (const bh_acc *)STARPU_VECTOR_GET_PTR(buffers[2 + p]);
		for (uint32_t i = A.r0[p]; i < A.r1[p]; i++) {
			uint32_t id = tide_sgrav_get_id(vel + 4 * (size_t)i);
			if (id < n) out[id] = a[i - A.r0[p]];
		}
	}
}

TIDE_CODELET_VARIABLE(sgrav_unsort, sgrav_unsort_cpu, tide_sgrav_unsort_cuda);
