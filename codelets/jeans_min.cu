// SPDX-License-Identifier: LGPL-2.1-or-later
// jeans_min on the GPU: one thread per particle folding into the record on the device with
// atomics.  q >= 0 and rho >= 0, whose float bit patterns order as unsigned integers: the least
// q by atomicMin, then (a second pass, the record's q now final for this block) the largest
// density among the particles at that q by atomicMax: the CPU's tie rule (jeans.h); the least
// q / m_i by atomicMin too.
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/block_interface.h"
#include "tide/codelets.h"
}
#include "tide/gas_math.h"
#include "tide/jeans.h"

__device__ static float particle_q(const tide_gas_params &G, const tide_block_view &v, uint32_t i)
{
	return tide_jeans_q(tide_gas_sound(&G, v.rho[i], v.TIDE_GAS_U[i]), v.rho[i]);
}

__global__ static void jeans_q_kernel(tide_gas_params G, float k, tide_block_view v,
                                      tide_jeans_min *out)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= v.count || v.type[i] != TIDE_FLUID) return;
	tide_jeans_min one = tide_jeans_one(particle_q(G, v, i), v.rho[i], v.TIDE_GAS_MASS[i], k);
	atomicMin((unsigned int *)&out->q, __float_as_uint(one.q));
	atomicMin((unsigned int *)&out->qm, __float_as_uint(one.qm));
	if (one.n_below) atomicAdd(&out->n_below, 1u);
}

__global__ static void jeans_rho_kernel(tide_gas_params G, tide_block_view v, tide_jeans_min *out)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= v.count || v.type[i] != TIDE_FLUID) return;
	if (particle_q(G, v, i) == out->q)
		atomicMax((unsigned int *)&out->rho, __float_as_uint(v.rho[i]));
}

extern "C" void tide_jeans_min_cuda(void *buffers[], void *cl_arg)
{
	tide_gas_params G;
	float k;
	starpu_codelet_unpack_args(cl_arg, &G, &k, 0);
	tide_block_view v = tide_block_view_of(buffers[0]);
	if (v.count == 0) return;
	tide_jeans_min *out = (tide_jeans_min *)STARPU_VARIABLE_GET_PTR(buffers[1]);
	cudaStream_t s = starpu_cuda_get_local_stream();
	unsigned nb = tide_blocks_for(v.count, 256);
	jeans_q_kernel<<<nb, 256, 0, s>>>(G, k, v, out);
	jeans_rho_kernel<<<nb, 256, 0, s>>>(G, v, out);
	TIDE_CUDA_CHECK(cudaGetLastError());
}
