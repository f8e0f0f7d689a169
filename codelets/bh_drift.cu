// SPDX-License-Identifier: LGPL-2.1-or-later
// bh_drift on the GPU: x += v dt, one thread per particle.
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/bh_codelets.h"
}

__global__ static void drift_kernel(bh_body *b, const float4 *v, uint32_t n, float dt)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n) return;
	float4 w = v[i];
	b[i].x += w.x * dt; b[i].y += w.y * dt; b[i].z += w.z * dt;
}

extern "C" void tide_bh_drift_cuda(void *buffers[], void *cl_arg)
{
	uint32_t n;
	float dt;
	starpu_codelet_unpack_args(cl_arg, &n, &dt, 0);
	if (n == 0) return;
	drift_kernel<<<tide_blocks_for(n, 256), 256, 0, starpu_cuda_get_local_stream()>>>(
	        (bh_body *)STARPU_VECTOR_GET_PTR(buffers[0]),
	        (const float4 *)STARPU_VECTOR_GET_PTR(buffers[1]), n, dt);
	TIDE_CUDA_CHECK(cudaGetLastError());
}
