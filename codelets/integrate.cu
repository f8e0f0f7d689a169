// SPDX-License-Identifier: LGPL-2.1-or-later
// integrate on the GPU: one thread per particle; the time step is read on the device.
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/block_interface.h"
#include "tide/codelets.h"
}
#include "tide/sph_interact.h"

__global__ static void integrate_kernel(tide_sph_params P, int stage, const tide_step_reduce *red,
                                        tide_block_view v)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < v.count) tide_integrate_particle(&P, stage, red->dt, &v, i);
}

extern "C" void tide_integrate_cuda(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_integrate_arg I;
	starpu_codelet_unpack_args(cl_arg, &P, &I, 0);
	tide_block_view v = tide_block_view_of(buffers[0]);
	if (v.count == 0) return;
	const tide_step_reduce *red = (const tide_step_reduce *)STARPU_VARIABLE_GET_PTR(buffers[1]);
	integrate_kernel<<<tide_blocks_for(v.count, 256), 256, 0, starpu_cuda_get_local_stream()>>>(
	        P, I.stage, red, v);
	TIDE_CUDA_CHECK(cudaGetLastError());
}
