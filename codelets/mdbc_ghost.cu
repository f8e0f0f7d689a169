// SPDX-License-Identifier: LGPL-2.1-or-later
// mdbc_ghost on the GPU: one thread per particle of the block, boundary particles only doing work
// (the same interpolation as the CPU, include/tide/mdbc.h).
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/block_interface.h"
#include "tide/codelets.h"
}
#include "tide/mdbc.h"

struct mdbc_halos {
	tide_mdbc_src h[TIDE_MAX_NEIGHBOURS];
};

__global__ static void mdbc_ghost_kernel(tide_sph_params P, tide_block_arg A, tide_block_view v,
                                         const uint32_t *start, mdbc_halos H, int nh)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= v.count || v.type[i] == TIDE_FLUID) return;
	tide_mdbc_src own = tide_mdbc_src_of(&v);
	const float nb[3] = {v.TIDE_BN_X[i], v.TIDE_BN_Y[i], v.TIDE_BN_Z[i]};
	const double xb[3] = {v.x[i], v.y[i], v.z[i]};
	v.rho[i] = tide_mdbc_particle(&P, &A, &own, start, H.h, nh, nb, xb, v.rho[i]);
}

extern "C" void tide_mdbc_ghost_cuda(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_block_arg A;
	int nh;
	starpu_codelet_unpack_args(cl_arg, &P, &A, &nh);
	STARPU_ASSERT(nh >= 0 && nh <= TIDE_MAX_NEIGHBOURS);
	tide_block_view v = tide_block_view_of(buffers[0]);
	if (v.count == 0) return;
	const uint32_t *start = (const uint32_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
	mdbc_halos H;
	for (int h = 0; h < nh; h++) {
		tide_block_view hv = tide_block_view_of(buffers[2 + h]);
		H.h[h] = tide_mdbc_src_of(&hv);
	}
	mdbc_ghost_kernel<<<tide_blocks_for(v.count, 128), 128, 0, starpu_cuda_get_local_stream()>>>(
	        P, A, v, start, H, nh);
	TIDE_CUDA_CHECK(cudaGetLastError());
}
