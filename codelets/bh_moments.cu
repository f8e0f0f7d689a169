// SPDX-License-Identifier: LGPL-2.1-or-later
// bh_moments on the GPU: one kernel per level, deepest first, one thread per cell; the level
// ranges are read from meta on the device, so nothing waits for the host.
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/bh_codelets.h"
}

__global__ static void level_kernel(const bh_body *body, const float *vel, const bh_cell *cells,
                                    const int32_t *meta, bh_mom *mom, bh_params P, int L)
{
	int32_t c0 = meta[BH_META_LEVEL + L], c1 = meta[BH_META_LEVEL + L + 1];
	for (int32_t c = c0 + blockIdx.x * blockDim.x + threadIdx.x; c < c1; c += gridDim.x * blockDim.x) {
		bh_cell C = cells[c];
		bh_mom M;
		if (C.nchild) bh_merge_moments(&mom[C.child], C.nchild, &M);
		else bh_leaf_moments(body, vel, &P, C.pbegin, C.pend, &M);
		M.rcrit2 = bh_rcrit2(&C, &M, P.theta, P.quadrupole);
		mom[c] = M;
	}
}

extern "C" void tide_bh_moments_cuda(void *buffers[], void *cl_arg)
{
	bh_params P;
	starpu_codelet_unpack_args(cl_arg, &P, 0);
	const bh_body *body = (const bh_body *)STARPU_VECTOR_GET_PTR(buffers[0]);
	const bh_cell *cells = (const bh_cell *)STARPU_VECTOR_GET_PTR(buffers[1]);
	const int32_t *meta = (const int32_t *)STARPU_VECTOR_GET_PTR(buffers[2]);
	bh_mom *mom = (bh_mom *)STARPU_VECTOR_GET_PTR(buffers[3]);
	const float *vel = (const float *)STARPU_VECTOR_GET_PTR(buffers[4]);
	size_t ncap = STARPU_VECTOR_GET_NX(buffers[3]);
	cudaStream_t s = starpu_cuda_get_local_stream();
	unsigned grid = min(tide_blocks_for(ncap, 128), 4096u);
	for (int L = BH_MAXLEVEL; L >= 0; L--)
		level_kernel<<<L < 3 ? 8 : grid, 128, 0, s>>>(body, vel, cells, meta, mom, P, L);
	TIDE_CUDA_CHECK(cudaGetLastError());
}
