// SPDX-License-Identifier: LGPL-2.1-or-later
// gauge_combine: the gauges' sums over all blocks (buffers[0] W) from every block's result
// (buffers[1..n] R, in block order): the front is a max, everything else a sum.  Added in block
// order, so that the gauges do not depend on which worker or rank ran a block (a StarPU REDUX
// would add the workers' copies in the order they finish: the last digits would vary from run
// to run, and a restart or another rank count would not reproduce gauges.csv bit for bit).
#include <starpu.h>
#include "tide/codelets.h"
#include "tide/codelet_decl.h"

static void gauge_combine_cpu(void *buffers[], void *cl_arg)
{
	size_t len;
	starpu_codelet_unpack_args(cl_arg, &len, 0);
	int n = STARPU_TASK_GET_NBUFFERS(starpu_task_get_current());
	double *out = (double *)STARPU_VECTOR_GET_PTR(buffers[0]);
	for (size_t e = 0; e < len; e++) {
		double a = ((const double *)STARPU_VECTOR_GET_PTR(buffers[1]))[e];
		for (int b = 2; b < n; b++) {
			double x = ((const double *)STARPU_VECTOR_GET_PTR(buffers[b]))[e];
			if (e == 0) a = x > a ? x : a;
			else a += x;
		}
		out[e] = a;
	}
}

/* Buffers: the sums (W), then every block's result (R), at least one.  Arg: size_t len (the
 * elements to combine, tide_gauge_len). */
TIDE_CODELET_VARIABLE(gauge_combine, gauge_combine_cpu, tide_gauge_combine_cuda);
