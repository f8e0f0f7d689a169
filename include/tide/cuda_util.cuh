/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers shared by the CUDA codelets. */
#ifndef TIDE_CUDA_UTIL_CUH
#define TIDE_CUDA_UTIL_CUH
#include <starpu.h>
#include <cuda_runtime.h>
#include "tide/block.h"
#include "tide/sph_params.h"

#define TIDE_CUDA_CHECK(call)                                                            \
	do {                                                                             \
		cudaError_t e_ = (call);                                                 \
		if (e_ != cudaSuccess) STARPU_CUDA_REPORT_ERROR(e_);                     \
	} while (0)

static inline unsigned tide_blocks_for(size_t n, unsigned threads)
{
	return (unsigned)((n + threads - 1) / threads);
}

/* Non-negative floats order like their bit patterns, so integer atomics give float min/max
 * (the step reduction's time step and speed, sph_forces and sgrav_apply). */
__device__ static inline void atomic_min_pos(float *a, float v)
{
	atomicMin((int *)a, __float_as_int(v));
}
__device__ static inline void atomic_max_pos(float *a, float v)
{
	atomicMax((int *)a, __float_as_int(v));
}

/* Count and fill of a block into the step reduction (the fill of its halos is known on the
 * host): the force passes' (sph_forces, gas_forces) one-thread launch. */
__global__ static void tide_count_fill_kernel(uint32_t count, float fill, tide_step_reduce *red)
{
	atomicAdd(&red->count, count);
	atomic_max_pos(&red->fill, fill);
}

/* Field base pointer of field f of a device block. */
static inline char *tide_field_ptr(const tide_block_view &v, int f, size_t *elem)
{
	size_t off;
	tide_block_field(f, elem, &off);
	return (char *)v.x + off * v.cap;
}

/* dst[i] = src[perm[i]] for 1-, 4- or 8-byte elements. */
template <typename T>
__global__ void tide_gather_kernel(T *dst, const T *src, const uint32_t *perm, uint32_t n)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) dst[i] = src[perm[i]];
}

#endif
