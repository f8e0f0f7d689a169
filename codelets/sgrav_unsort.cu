// SPDX-License-Identifier: LGPL-2.1-or-later
// sgrav_unsort on the GPU: one thread per sorted body, one kernel per walk part (the CPU
// version, sgrav_unsort.c, says what and why).
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/codelets.h"
}
#include "tide/sph_gravity_math.h"

__global__ static void unsort_kernel(const float *vel, const bh_acc *a, uint32_t r0, uint32_t r1,
                                     bh_acc *out, uint32_t n)
{
	uint32_t i = r0 + blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= r1) return;
	uint32_t id = tide_sgrav_get_id(vel + 4 * (size_t)i);
	if (id < n) out[id] = a[i - r0];
}

extern "C" void tide_sgrav_unsort_cuda(void *buffers[], void *cl_arg)
{
	tide_sgrav_unsort_arg A;
	starpu_codelet_unpack_args(cl_arg, &A, 0);
	const float *vel = (const float *)STARPU_VECTOR_GET_PTR(buffers[0]);
	bh_acc *out = (bh_acc *)STARPU_VECTOR_GET_PTR(buffers[1]);
	uint32_t n = (uint32_t)STARPU_VECTOR_GET_NX(buffers[1]);
	cudaStream_t s = starpu_cuda_get_local_stream();
	for (int p = 0; p < A.nparts; p++) {
		if (A.r1[p] <= A.r0[p]) continue;
		const bh_acc *a = (const bh_acc *)STARPU_VECTOR_GET_PTR(buffers[2 + p]);
		unsort_kernel<<<tide_blocks_for(A.r1[p] - A.r0[p], 256), 256, 0, s>>>(vel, a, A.r0[p],
		                                                                   A.r1[p], out, n);
	}
	TIDE_CUDA_CHECK(cudaGetLastError());
}
