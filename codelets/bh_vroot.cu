// SPDX-License-Identifier: LGPL-2.1-or-later
// bh_vroot on the GPU: one thread reads the box and the root's moments where the tree was built.
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/bh_codelets.h"
}

__global__ static void vroot_kernel(const int32_t *meta, const bh_mom *mom, const bh_cell *cells,
                                    uint32_t n, int fill, int kmax, bh_vroot *v)
{
	bh_vroot_make(meta, mom, n, v);
	if (n > 0) bh_vroot_cover(cells, fill, kmax, v); /* a few top cells: one thread is enough */
}

extern "C" void tide_bh_vroot_cuda(void *buffers[], void *cl_arg)
{
	uint32_t n;
	int fill, kmax;
	starpu_codelet_unpack_args(cl_arg, &n, &fill, &kmax, 0);
	vroot_kernel<<<1, 1, 0, starpu_cuda_get_local_stream()>>>(
	        (const int32_t *)STARPU_VECTOR_GET_PTR(buffers[0]),
	        (const bh_mom *)STARPU_VECTOR_GET_PTR(buffers[1]),
	        (const bh_cell *)STARPU_VECTOR_GET_PTR(buffers[2]), n, fill, kmax,
	        (bh_vroot *)STARPU_VECTOR_GET_PTR(buffers[3]));
	TIDE_CUDA_CHECK(cudaGetLastError());
}
