// SPDX-License-Identifier: LGPL-2.1-or-later
// cell_sort on the GPU: cell keys, CUB device radix sort of (key, index) on StarPU's stream,
// cell start index, reorder of every field.  Asynchronous; all memory comes from the block (its
// work space holds the keys, the indices and the gather space: block.h, tide_sort_space) and the
// scratch buffer (CUB's temporary storage).
#include <cub/device/device_radix_sort.cuh>
#include "tide/cuda_select.cuh"
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
                                     uint32_t ncell)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n) return;
	uint32_t k = key[i];
	uint32_t from = i == 0 ? 0 : key[i - 1] + 1;
	for (uint32_t c = from; c <= k; c++) start[c] = i;
	if (i == n - 1)
		for (uint32_t c = k + 1; c <= ncell; c++) start[c] = n;
}

__global__ static void fill_kernel(uint32_t *p, uint32_t v, uint32_t n)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) p[i] = v;
}

/* CUB's temporary storage for a radix sort of n (key, index) pairs in double buffers, and for a
 * stable selection among n indices (tide_select_if: halo_pack, migrate_pack, migrate_unpack,
 * sink_accrete), each with 256 bytes for its alignment.  A selection's storage depends on the
 * types of its input, output and count, not on its predicate. */
static size_t sort_temp_bytes(size_t n)
{
	size_t bytes = 0;
	cub::DoubleBuffer<uint32_t> k(nullptr, nullptr), v(nullptr, nullptr);
	cub::DeviceRadixSort::SortPairs(nullptr, bytes, k, v, (int)n, 0, 32);
	return bytes + 256;
}

struct select_none {
	__device__ bool operator()(uint32_t) const { return false; }
};

static size_t select_temp_bytes(size_t n)
{
	size_t bytes = 0;
	thrust::counting_iterator<uint32_t> it(0);
	cub::DeviceSelect::If(nullptr, bytes, it, (uint32_t *)nullptr, (uint32_t *)nullptr, (int)n,
	                      select_none{});
	return bytes + 256;
}

/* codelets.h.  The users' layouts: cell_sort: CUB's storage; migrate_pack, sink_accrete: 256
 * bytes of counters, CUB's; halo_pack's side faces, migrate_unpack: an index list of `list`
 * entries (the block's or the migrant buffer's capacity), 64 counters, CUB's. */
extern "C" size_t tide_cuda_scratch_bytes(size_t cap, size_t list)
{
	size_t sort = sort_temp_bytes(cap), sel = select_temp_bytes(cap > list ? cap : list);
	size_t head = 4 * list + 256 > 256 ? 4 * list + 256 : 256;
	size_t b = head + sel > sort ? head + sel : sort;
	return (b + 7) & ~(size_t)7;
}

/* dst[i] = src[perm[i]] for 8-byte values into a 4-byte aligned dst, as two 4-byte words. */
__global__ static void gather_pairs_kernel(uint32_t *dst, const uint32_t *src, const uint32_t *perm,
                                           uint32_t n)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n) return;
	size_t p = 2 * (size_t)perm[i];
	dst[2 * (size_t)i] = src[p];
	dst[2 * (size_t)i + 1] = src[p + 1];
}

/* Reorders the fields of a block by perm, through tmp (8 bytes per unit of capacity, 4-byte
 * aligned), except the work space (tide_block_field_is_work).  tmp moves up to an 8-byte boundary where there is room (count < cap), so that doubles
 * move whole; else as pairs of words. */
static void gather_block(tide_block_view &v, const uint32_t *perm, void *tmp, uint32_t n,
                         cudaStream_t s)
{
	if (((uintptr_t)tmp & 7u) && n < v.cap) tmp = (char *)tmp + 4;
	int aligned = ((uintptr_t)tmp & 7u) == 0;
	for (int f = 0; f < tide_block_nfields(); f++) {
		if (tide_block_field_is_work(f)) continue;
		size_t elem;
		char *p = tide_field_ptr(v, f, &elem);
		if (elem == 8 && aligned)
			tide_gather_kernel<double><<<tide_blocks_for(n, 256), 256, 0, s>>>(
			        (double *)tmp, (const double *)p, perm, n);
		else if (elem == 8)
			gather_pairs_kernel<<<tide_blocks_for(n, 256), 256, 0, s>>>(
			        (uint32_t *)tmp, (const uint32_t *)p, perm, n);
		else if (elem == 4)
			tide_gather_kernel<uint32_t><<<tide_blocks_for(n, 256), 256, 0, s>>>(
			        (uint32_t *)tmp, (const uint32_t *)p, perm, n);
		else /* the type bytes */
			tide_gather_kernel<uint8_t><<<tide_blocks_for(n, 256), 256, 0, s>>>(
			        (uint8_t *)tmp, (const uint8_t *)p, perm, n);
		TIDE_CUDA_CHECK(cudaMemcpyAsync(p, tmp, elem * n, cudaMemcpyDeviceToDevice, s));
	}
}

extern "C" void tide_cell_sort_cuda(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_block_arg A;
	starpu_codelet_unpack_args(cl_arg, &P, &A, 0);
	tide_block_view v = tide_block_view_of(buffers[0]);
	uint32_t *start = (uint32_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
	uint32_t ncell = (uint32_t)STARPU_VECTOR_GET_NX(buffers[1]) - 1;
	char *cub_tmp = (char *)STARPU_VECTOR_GET_PTR(buffers[2]);
	size_t cub_avail = STARPU_VECTOR_GET_NX(buffers[2]) * STARPU_VECTOR_GET_ELEMSIZE(buffers[2]);
	cudaStream_t s = starpu_cuda_get_local_stream();
	uint32_t n = v.count;
	STARPU_ASSERT(ncell == tide_box_ncell(&A));

	if (n == 0) {
		fill_kernel<<<tide_blocks_for(ncell + 1, 256), 256, 0, s>>>(start, 0, ncell + 1);
		return;
	}
	/* keys and indices, double-buffered, in the block's work space (block.h) */
	tide_sort_space w = tide_block_sort_space(&v);

	keys_kernel<<<tide_blocks_for(n, 256), 256, 0, s>>>(P.grid, v.x, v.y, v.z, A, w.ka, w.ia, n);
	cub::DoubleBuffer<uint32_t> keys(w.ka, w.kb), vals(w.ia, w.ib);
	size_t need = 0;
	unsigned bits = tide_key_bits(ncell);
	cub::DeviceRadixSort::SortPairs(nullptr, need, keys, vals, (int)n, 0, bits, s);
	STARPU_ASSERT_MSG(need <= cub_avail, "cell_sort scratch too small (%zu < %zu)", cub_avail,
	                  need);
	TIDE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(cub_tmp, need, keys, vals, (int)n, 0, bits, s));
	/* the starts first: then ka and kb are free for the gather */
	starts_kernel<<<tide_blocks_for(n, 256), 256, 0, s>>>(keys.Current(), n, start, ncell);
	gather_block(v, vals.Current(), w.gather, n, s);
	TIDE_CUDA_CHECK(cudaGetLastError());
}
