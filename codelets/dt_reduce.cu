// SPDX-License-Identifier: LGPL-2.1-or-later
// dt_reduce on the GPU: init and combine of the step reduction record, one thread each.
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/codelets.h"
}
#include "tide/sph_params.h"

__global__ static void init_kernel(tide_step_reduce *r) { tide_step_reduce_init(r); }

__global__ static void redux_kernel(tide_step_reduce *a, const tide_step_reduce *b)
{
	tide_step_reduce_combine(a, b);
}

extern "C" void tide_dt_init_cuda(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	init_kernel<<<1, 1, 0, starpu_cuda_get_local_stream()>>>(
	        (tide_step_reduce *)STARPU_VARIABLE_GET_PTR(buffers[0]));
	TIDE_CUDA_CHECK(cudaGetLastError());
}

extern "C" void tide_dt_redux_cuda(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	redux_kernel<<<1, 1, 0, starpu_cuda_get_local_stream()>>>(
	        (tide_step_reduce *)STARPU_VARIABLE_GET_PTR(buffers[0]),
	        (const tide_step_reduce *)STARPU_VARIABLE_GET_PTR(buffers[1]));
	TIDE_CUDA_CHECK(cudaGetLastError());
}
