// SPDX-License-Identifier: LGPL-2.1-or-later
// cell_sort on the GPU: cell keys, CUB device radix sort of (key, index) on StarPU's stream,
// reorder of every field, cell start index.  Asynchronous; all memory comes from the block (its
// work space holds the keys and indices) and the scratch buffer (one field's gather space and
// CUB's temporary storage).
#include <cub/device/device_radix_sort.cuh>
#include "tide/cuda_util.cuh"
#include "tide/sph_params.h"

extern "C" {
#include "tide/block_interface.h"
#include "tide/codelets.h"
}

__global__ static void keys_kernel(tide_grid g, const double *x, const double *y, const double *z,
                                   tide_block_arg A, uint32_t *key, uint32_t *idx, uint32_t n)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n) return;
	key[i] = tide_local_key(&g, x[i], y[i], z[i], &A);
	idx[i] = i;
}

/* Each particle fills the start entries of the cells between its predecessor's key and its own;
 * the last one fills up to ncell.  Every entry is written exactly once. */
__global__ static void starts_kernel(const uint32_t *key, uint32_t n, uint32_t *start,
                                     uint32_t ncell, tide_grid g, tide_block_arg A,
                                     uint32_t *gkey)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n) return;
	uint32_t k = key[i];
	uint32_t from = i == 0 ? 0 : key[i - 1] + 1;
	for (uint32_t c = from; c <= k; c++) start[c] = i;
	if (i == n - 1)
		for (uint32_t c = k + 1; c <= ncell; c++) start[c] = n;
	gkey[i] = tide_box_key(&g, &A, k);
}

__global__ static void fill_kernel(uint32_t *p, uint32_t v, uint32_t n)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) p[i] = v;
}

extern "C" size_t tide_cuda_sort_temp_bytes(size_t cap)
{
	size_t bytes = 0;
	cub::DoubleBuffer<uint32_t> k(nullptr, nullptr), v(nullptr, nullptr);
	cub::DeviceRadixSort::SortPairs(nullptr, bytes, k, v, (int)cap, 0, 32);
	return bytes + 256;
}

extern "C" void tide_cell_sort_cuda(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_block_arg A;
	starpu_codelet_unpack_args(cl_arg, &P, &A, 0);
	tide_block_view v = tide_block_view_of(buffers[0]);
	uint32_t *start = (uint32_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
	uint32_t ncell = (uint32_t)STARPU_VECTOR_GET_NX(buffers[1]) - 1;
	char *scr = (char *)STARPU_VECTOR_GET_PTR(buffers[2]);
	size_t scr_bytes = STARPU_VECTOR_GET_NX(buffers[2]) * STARPU_VECTOR_GET_ELEMSIZE(buffers[2]);
	cudaStream_t s = starpu_cuda_get_local_stream();
	uint32_t n = v.count, cap = v.cap;
	STARPU_ASSERT(ncell == tide_box_ncell(&A));

	if (n == 0) {
		fill_kernel<<<tide_blocks_for(ncell + 1, 256), 256, 0, s>>>(start, 0, ncell + 1);
		return;
	}
	/* keys and indices, double-buffered, in the block's work space (block.h) */
	uint32_t *ka = (uint32_t *)v.ax, *kb = ka + cap, *ia = kb + cap, *ib = ia + cap;
	void *tmp = scr;
	char *cub_tmp = scr + (size_t)cap * sizeof(double);
	size_t cub_avail = scr_bytes - (size_t)(cub_tmp - scr);

	keys_kernel<<<tide_blocks_for(n, 256), 256, 0, s>>>(P.grid, v.x, v.y, v.z, A, ka, ia, n);
	cub::DoubleBuffer<uint32_t> keys(ka, kb), vals(ia, ib);
	size_t need = 0;
	unsigned bits = tide_key_bits(ncell);
	cub::DeviceRadixSort::SortPairs(nullptr, need, keys, vals, (int)n, 0, bits, s);
	STARPU_ASSERT_MSG(need <= cub_avail, "cell_sort scratch too small (%zu < %zu)", cub_avail,
	                  need);
	TIDE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(cub_tmp, need, keys, vals, (int)n, 0, bits, s));
	tide_gather_block(v, vals.Current(), tmp, n, s);
	starts_kernel<<<tide_blocks_for(n, 256), 256, 0, s>>>(keys.Current(), n, start, ncell, P.grid,
	                                                      A, v.key);
	TIDE_CUDA_CHECK(cudaGetLastError());
}
