// SPDX-License-Identifier: LGPL-2.1-or-later
// sink_region on the GPU: one thread per particle appends it (once per candidate region that
// holds it) to the record with an atomic counter; the order differs from the CPU's, which the
// host's tests do not see (they sort each region by id).  Past the record's room the count runs
// on and the host grows the record and runs the pass again.
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/block_interface.h"
#include "tide/codelets.h"
}
#include "tide/sink.h"

#define TPB 256

__global__ static void region_kernel(tide_sph_params P, tide_sink_region_arg A,
                                     tide_block_view v, tide_sink_region_rec *R, uint32_t cap)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= v.count) return;
	for (int c = tide_sink_region_of(&A, &v, i, 0); c >= 0; c = tide_sink_region_of(&A, &v, i, c + 1)) {
		uint32_t k = atomicAdd(&R->n, 1u);   /* counted on past the room (the host grows it) */
		if (k < cap) tide_sink_rpart_of(&P, &v, i, c, &R->p[k]);
	}
}

extern "C" void tide_sink_region_cuda(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_sink_region_arg A;
	starpu_codelet_unpack_args(cl_arg, &P, &A, 0);
	tide_block_view v = tide_block_view_of(buffers[0]);
	tide_sink_region_rec *R = (tide_sink_region_rec *)STARPU_VARIABLE_GET_PTR(buffers[1]);
	cudaStream_t st = starpu_cuda_get_local_stream();
	uint32_t cap = TIDE_SINK_REGION_CAP(STARPU_VARIABLE_GET_ELEMSIZE(buffers[1]));
	TIDE_CUDA_CHECK(cudaMemsetAsync(&R->n, 0, sizeof(uint32_t), st));
	if (v.count == 0) return;
	region_kernel<<<tide_blocks_for(v.count, TPB), TPB, 0, st>>>(P, A, v, R, cap);
	TIDE_CUDA_CHECK(cudaGetLastError());
}
