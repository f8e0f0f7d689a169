// SPDX-License-Identifier: LGPL-2.1-or-later
// sgrav_gather on the GPU: one kernel per block (one thread per particle) at the block's offset,
// computed on the host from the blocks' counts (interface metadata, no device read), and one
// for the padding bodies and the last offset.  The CPU version (sgrav_gather.c) says why.
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/block_interface.h"
#include "tide/codelets.h"
}
#include "tide/sph_gravity_math.h"

__global__ static void block_kernel(tide_block_view v, uint32_t k0, int b, double cx, double cy,
                                    double cz, float mass, float h_factor, float eps_nbody, bh_body *body,
                                    float *vel,
                                    uint32_t *offs)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i == 0) offs[b] = k0;
	if (i >= v.count) return;
	const double c[3] = {cx, cy, cz};
	tide_sgrav_body(&v, i, c, mass, &body[k0 + i]);
	tide_sgrav_set_id(vel + 4 * (size_t)(k0 + i), k0 + i);
	tide_sgrav_set_eps(&v, i, h_factor, eps_nbody, vel + 4 * (size_t)(k0 + i));
}

__global__ static void pad_kernel(uint32_t k0, uint32_t n, int nblocks, bh_body *body, float *vel,
                                  uint32_t *offs)
{
	uint32_t k = k0 + blockIdx.x * blockDim.x + threadIdx.x;
	if (k == k0) offs[nblocks] = k0;
	if (k >= n) return;
	bh_body pad = {0.f, 0.f, 0.f, 0.f};
	if (k0 > 0) pad = body[k % k0];   /* a real body, written by the kernels before */
	pad.m = 0.f;
	body[k] = pad;
	tide_sgrav_set_id(vel + 4 * (size_t)k, TIDE_SGRAV_NO_ID);
}

extern "C" void tide_sgrav_gather_cuda(void *buffers[], void *cl_arg)
{
	tide_sgrav_gather_arg A;
	starpu_codelet_unpack_args(cl_arg, &A, 0);
	bh_body *body = (bh_body *)STARPU_VECTOR_GET_PTR(buffers[0]);
	float *vel = (float *)STARPU_VECTOR_GET_PTR(buffers[1]);
	uint32_t *offs = (uint32_t *)STARPU_VECTOR_GET_PTR(buffers[2]);
	cudaStream_t s = starpu_cuda_get_local_stream();
	uint32_t k = 0;
	for (int b = 0; b < A.nblocks; b++) {
		tide_block_view v = tide_block_view_of(buffers[3 + b]);
		STARPU_ASSERT_MSG(k + v.count <= A.n, "sgrav_gather: more particles than bodies");
		unsigned nb = v.count ? tide_blocks_for(v.count, 256) : 1;
		block_kernel<<<nb, 256, 0, s>>>(v, k, b, A.centre[0], A.centre[1], A.centre[2], A.mass,
		                                A.h_factor, A.eps_nbody, body, vel, offs);
		k += v.count;
	}
	/* the pads copy real bodies: same stream, so after the block kernels */
	unsigned np = A.n > k ? tide_blocks_for(A.n - k, 256) : 1;
	pad_kernel<<<np, 256, 0, s>>>(k, A.n, A.nblocks, body, vel, offs);
	TIDE_CUDA_CHECK(cudaGetLastError());
}
