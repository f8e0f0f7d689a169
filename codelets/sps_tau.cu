// SPDX-License-Identifier: LGPL-2.1-or-later
// sps_tau on the GPU: one thread per particle (the CPU half, sps_tau.c, says what it does).
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/block_interface.h"
#include "tide/codelets.h"
}
#include "tide/sph_interact.h"
#include "tide/sps.h"

__global__ static void sps_tau_kernel(float smag, float blin, tide_block_view v)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= v.count) return;
	float *tau[6] = TIDE_SPS_TAU_PTRS(v), *grad[6] = TIDE_SPS_GRAD_PTRS(v);
	float g[6], t[6] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
	for (int k = 0; k < 6; k++) g[k] = grad[k][i];
	if (v.type[i] == TIDE_FLUID) tide_sps_tau(smag, blin, v.rho[i], g, t);
	for (int k = 0; k < 6; k++) tau[k][i] = t[k];
}

extern "C" void tide_sps_tau_cuda(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	starpu_codelet_unpack_args(cl_arg, &P, 0);
	tide_block_view v = tide_block_view_of(buffers[0]);
	if (v.count == 0) return;
	sps_tau_kernel<<<tide_blocks_for(v.count, 256), 256, 0, starpu_cuda_get_local_stream()>>>(
	        P.sps_smag, P.sps_blin, v);
	TIDE_CUDA_CHECK(cudaGetLastError());
}
