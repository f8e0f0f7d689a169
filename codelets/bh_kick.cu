// SPDX-License-Identifier: LGPL-2.1-or-later
// bh_kick on the GPU: v += a dt, one thread per particle.
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/bh_codelets.h"
}

__global__ static void kick_kernel(float4 *v, const bh_acc *a, bh_range R, float dt)
{
	uint32_t i = R.r0 + blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= R.r1) return;
	bh_acc ai = a[i - R.r0];
	float4 w = v[i];
	w.x += ai.ax * dt; w.y += ai.ay * dt; w.z += ai.az * dt;
	v[i] = w;
}

extern "C" void tide_bh_kick_cuda(void *buffers[], void *cl_arg)
{
	bh_range R;
	float dt;
	starpu_codelet_unpack_args(cl_arg, &R, &dt, 0);
	if (R.r1 <= R.r0) return;
	kick_kernel<<<tide_blocks_for(R.r1 - R.r0, 256), 256, 0, starpu_cuda_get_local_stream()>>>(
	        (float4 *)STARPU_VECTOR_GET_PTR(buffers[0]),
	        (const bh_acc *)STARPU_VECTOR_GET_PTR(buffers[1]), R, dt);
	TIDE_CUDA_CHECK(cudaGetLastError());
}
