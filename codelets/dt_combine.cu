// SPDX-License-Identifier: LGPL-2.1-or-later
// dt_combine on the GPU: the ranks' step reduction records folded into one, by one thread (a
// handful of records; what matters is that the result stays where integrate reads it).
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/codelets.h"
}
#include "tide/sph_params.h"

__global__ static void init_kernel(tide_step_reduce *r) { tide_step_reduce_init(r); }

__global__ static void fold_kernel(tide_step_reduce *a, const tide_step_reduce *b)
{
	tide_step_reduce_combine(a, b);
}

extern "C" void tide_dt_combine_cuda(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	int n = STARPU_TASK_GET_NBUFFERS(starpu_task_get_current());
	cudaStream_t s = starpu_cuda_get_local_stream();
	tide_step_reduce *out = (tide_step_reduce *)STARPU_VARIABLE_GET_PTR(buffers[0]);
	init_kernel<<<1, 1, 0, s>>>(out);
	for (int i = 1; i < n; i++)
		fold_kernel<<<1, 1, 0, s>>>(out, (const tide_step_reduce *)STARPU_VARIABLE_GET_PTR(buffers[i]));
	TIDE_CUDA_CHECK(cudaGetLastError());
}
