// SPDX-License-Identifier: LGPL-2.1-or-later
// bh_vgather on a GPU worker: the blocks of virtual roots placed one after the other, in main
// memory (the codelet's specific_nodes, codelets/bh_vgather.c), by host-to-host copies on the
// worker's stream; StarPU completes the task when the stream has done them.
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/bh_codelets.h"
}

extern "C" void tide_bh_vgather_cuda(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	int n = STARPU_TASK_GET_NBUFFERS(starpu_task_get_current());
	cudaStream_t s = starpu_cuda_get_local_stream();
	char *out = (char *)STARPU_VECTOR_GET_PTR(buffers[0]);
	size_t off = 0;
	for (int i = 1; i < n; i++) {
		size_t b = (size_t)STARPU_VECTOR_GET_NX(buffers[i]) * STARPU_VECTOR_GET_ELEMSIZE(buffers[i]);
		TIDE_CUDA_CHECK(cudaMemcpyAsync(out + off, (const void *)STARPU_VECTOR_GET_PTR(buffers[i]), b,
		                                cudaMemcpyHostToHost, s));
		off += b;
	}
}
