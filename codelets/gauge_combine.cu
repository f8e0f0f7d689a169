// SPDX-License-Identifier: LGPL-2.1-or-later
// gauge_combine on the GPU: one thread per element, the blocks' results added in block order
// (the front: their max), as the CPU half.
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/codelets.h"
}

#define PARTS 64 /* results per kernel launch: their pointers travel as a kernel parameter */

struct part_set {
	const double *p[PARTS];
	int n;
};

__global__ static void combine_kernel(double *out, part_set S, size_t len, int first)
{
	size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (e >= len) return;
	double a = first ? S.p[0][e] : out[e];
	for (int b = first ? 1 : 0; b < S.n; b++) {
		double x = S.p[b][e];
		if (e == 0) a = x > a ? x : a;
		else a += x;
	}
	out[e] = a;
}

extern "C" void tide_gauge_combine_cuda(void *buffers[], void *cl_arg)
{
	size_t len;
	starpu_codelet_unpack_args(cl_arg, &len, 0);
	int n = STARPU_TASK_GET_NBUFFERS(starpu_task_get_current()) - 1;
	double *out = (double *)STARPU_VECTOR_GET_PTR(buffers[0]);
	cudaStream_t st = starpu_cuda_get_local_stream();
	for (int b0 = 0; b0 < n; b0 += PARTS) {
		part_set S;
		S.n = n - b0 < PARTS ? n - b0 : PARTS;
		for (int b = 0; b < S.n; b++) S.p[b] = (const double *)STARPU_VECTOR_GET_PTR(buffers[1 + b0 + b]);
		combine_kernel<<<tide_blocks_for(len, 256), 256, 0, st>>>(out, S, len, b0 == 0);
		TIDE_CUDA_CHECK(cudaGetLastError());
	}
}
