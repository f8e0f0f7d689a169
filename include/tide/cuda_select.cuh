/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Stable selections of particles and field copies by index lists, shared by the CUDA codelets
 * that move a subset of a block (halo_pack's side faces, migrate_pack, migrate_unpack). */
#ifndef TIDE_CUDA_SELECT_CUH
#define TIDE_CUDA_SELECT_CUH
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include "tide/cuda_util.cuh"

/* dst[didx[k] or off + k] = src[sidx[k]] for k < n (and k < *n_dev when n_dev is given). */
template <typename T>
__global__ void tide_scatter_kernel(T *dst, const uint32_t *didx, uint32_t off, const T *src,
                                    const uint32_t *sidx, uint32_t n, const uint32_t *n_dev)
{
	uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
	if (k < n && (!n_dev || k < *n_dev)) dst[didx ? didx[k] : off + k] = src[sidx[k]];
}

/* Every field of `fields` but the work space (block.h: dead while particles move between
 * buffers, and where migrate_pack keeps its index lists): dst[didx[k]] = src[sidx[k]];
 * didx == nullptr writes dst[off + k]. */
static inline void tide_copy_fields(tide_block_view &dst, const uint32_t *didx, uint32_t off,
                                    const tide_block_view &src, const uint32_t *sidx, uint32_t n,
                                    const uint32_t *n_dev, cudaStream_t s,
                                    uint32_t fields = TIDE_ALL_FIELDS)
{
	for (int f = 0; f < TIDE_BLOCK_MAX_FIELDS && n; f++) {
		if (tide_block_field_is_work(f) || !(fields >> f & 1u)) continue;
		size_t elem;
		char *dp = tide_field_ptr(dst, f, &elem);
		char *sp = tide_field_ptr(src, f, &elem);
		if (elem == 8)
			tide_scatter_kernel<double><<<tide_blocks_for(n, 256), 256, 0, s>>>(
			        (double *)dp, didx, off, (const double *)sp, sidx, n, n_dev);
		else if (elem == 4)
			tide_scatter_kernel<uint32_t><<<tide_blocks_for(n, 256), 256, 0, s>>>(
			        (uint32_t *)dp, didx, off, (const uint32_t *)sp, sidx, n, n_dev);
		else /* the type bytes */
			tide_scatter_kernel<uint8_t><<<tide_blocks_for(n, 256), 256, 0, s>>>(
			        (uint8_t *)dp, didx, off, (const uint8_t *)sp, sidx, n, n_dev);
	}
}

/* Stable selection of the indices in [first, first + n) that pass `op`, into out; the count is
 * written to *nsel (device memory). */
template <typename Op>
static void tide_select_if(uint32_t first, uint32_t n, Op op, uint32_t *out, uint32_t *nsel,
                           char *tmp, size_t tmp_bytes, cudaStream_t s)
{
	thrust::counting_iterator<uint32_t> it(first);
	size_t need = 0;
	cub::DeviceSelect::If(nullptr, need, it, out, nsel, (int)n, op, s);
	STARPU_ASSERT_MSG(need <= tmp_bytes, "selection scratch too small (%zu < %zu)", tmp_bytes,
	                  need);
	TIDE_CUDA_CHECK(cub::DeviceSelect::If(tmp, need, it, out, nsel, (int)n, op, s));
}

#endif
