// SPDX-License-Identifier: LGPL-2.1-or-later
// bh_build on the GPU, the same algorithm as the CPU version: bounding box (block reduction +
// atomics on order-preserving integer images of the floats), Morton keys, CUB radix sort of
// (key, index), gather, then one split kernel per level.  Level sizes stay on the device: each
// level kernel reads its cell range from meta and allocates children with one atomicAdd per
// cell (children stay contiguous and in octant order, so the arithmetic of moments and walk does
// not depend on the order in which cells were numbered).  No host synchronisation.
#include <cub/device/device_radix_sort.cuh>
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/bh_codelets.h"
}

static const int TPB = 256;

/* Monotone map float -> uint32 so that unsigned min/max order equals float order. */
__device__ static inline uint32_t f2u(float f)
{
	uint32_t u = __float_as_uint(f);
	return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
__device__ static inline float u2f(uint32_t u)
{
	return __uint_as_float((u & 0x80000000u) ? (u & 0x7fffffffu) : ~u);
}

__global__ static void box_init(uint32_t *box)
{
	if (threadIdx.x < 3) { box[threadIdx.x] = 0xffffffffu; box[3 + threadIdx.x] = 0u; }
}

__global__ static void box_kernel(const bh_body *b, uint32_t n, uint32_t *box)
{
	__shared__ uint32_t s[6][TPB];
	uint32_t lo[3] = {0xffffffffu, 0xffffffffu, 0xffffffffu}, hi[3] = {0, 0, 0};
	for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
		uint32_t v[3] = {f2u(b[i].x), f2u(b[i].y), f2u(b[i].z)};
		for (int d = 0; d < 3; d++) { lo[d] = min(lo[d], v[d]); hi[d] = max(hi[d], v[d]); }
	}
	for (int d = 0; d < 3; d++) { s[d][threadIdx.x] = lo[d]; s[3 + d][threadIdx.x] = hi[d]; }
	__syncthreads();
	for (int w = TPB / 2; w > 0; w >>= 1) {
		if ((int)threadIdx.x < w)
			for (int d = 0; d < 3; d++) {
				s[d][threadIdx.x] = min(s[d][threadIdx.x], s[d][threadIdx.x + w]);
				s[3 + d][threadIdx.x] = max(s[3 + d][threadIdx.x], s[3 + d][threadIdx.x + w]);
			}
		__syncthreads();
	}
	if (threadIdx.x == 0)
		for (int d = 0; d < 3; d++) { atomicMin(&box[d], s[d][0]); atomicMax(&box[3 + d], s[3 + d][0]); }
}

__global__ static void root_kernel(const uint32_t *box, uint32_t n, bh_cell universe, bh_cell *cells,
                                   int32_t *meta)
{
	float lo[3], hi[3];
	for (int d = 0; d < 3; d++) {
		lo[d] = n ? u2f(box[d]) : 0.f;
		hi[d] = n ? u2f(box[3 + d]) : 0.f;
	}
	bh_root_within(lo, hi, &universe, &cells[0]);
	cells[0].pbegin = 0;
	cells[0].pend = (int32_t)n;
	for (int i = 0; i < BH_META_LEN; i++) meta[i] = 0;
	bh_meta_set_box(meta, lo, hi);
	meta[BH_META_NCELLS] = 1;
	meta[BH_META_LEVEL + 1] = 1;
}

__global__ static void key_kernel(const bh_body *b, uint32_t n, const bh_cell *cells, uint64_t *key,
                                  uint32_t *idx)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n) return;
	key[i] = bh_key(b[i].x, b[i].y, b[i].z, &cells[0]);
	idx[i] = i;
}

__global__ static void gather4(float4 *dst, const float4 *src, const uint32_t *perm, uint32_t n)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) dst[i] = src[perm[i]];
}

__device__ static int32_t lower_digit(const uint64_t *key, int32_t b, int32_t e, int L, unsigned o)
{
	while (b < e) {
		int32_t m = b + (e - b) / 2;
		if (bh_digit(key[m], L) < o) b = m + 1;
		else e = m;
	}
	return b;
}

__global__ static void split_kernel(bh_cell *cells, int32_t *meta, const uint64_t *key, int L, int leaf)
{
	int32_t c0 = meta[BH_META_LEVEL + L], c1 = meta[BH_META_LEVEL + L + 1];
	for (int32_t c = c0 + blockIdx.x * blockDim.x + threadIdx.x; c < c1; c += gridDim.x * blockDim.x) {
		bh_cell p = cells[c];
		if (p.pend - p.pbegin <= leaf || L >= BH_MAXLEVEL) continue;
		int32_t bound[9];
		bound[0] = p.pbegin;
		bound[8] = p.pend;
		int nonempty = 0;
		for (unsigned o = 1; o < 8; o++) bound[o] = lower_digit(key, bound[o - 1], p.pend, L, o);
		for (unsigned o = 0; o < 8; o++) nonempty += bound[o + 1] > bound[o];
		int32_t first = atomicAdd(&meta[BH_META_NCELLS], nonempty), k = first;
		for (unsigned o = 0; o < 8; o++) {
			if (bound[o + 1] == bound[o]) continue;
			bh_cell ch;
			bh_child_cube(&p, o, &ch);
			ch.child = 0; ch.nchild = 0; ch.pbegin = bound[o]; ch.pend = bound[o + 1];
			cells[k++] = ch;
		}
		cells[c].child = first;
		cells[c].nchild = nonempty;
	}
}

/* After level L's split: level L+1 ends where the cell counter stands now. */
__global__ static void level_end_kernel(int32_t *meta, int L)
{
	meta[BH_META_LEVEL + L + 2] = meta[BH_META_NCELLS];
}

__global__ static void groups_kernel(const bh_cell *cells, int32_t *meta, bh_group *groups, int fill)
{
	int32_t nc = meta[BH_META_NCELLS];
	for (int32_t c = blockIdx.x * blockDim.x + threadIdx.x; c < nc; c += gridDim.x * blockDim.x) {
		if (cells[c].nchild == 0 && c != 0) continue;
		int32_t k = bh_cell_groups(cells, c, NULL, fill);
		if (k == 0) continue;
		int32_t g = atomicAdd(&meta[BH_META_NGROUPS], k);
		bh_cell_groups(cells, c, groups + g, fill);
	}
}

extern "C" size_t tide_bh_build_cuda_temp_bytes(uint32_t n)
{
	size_t bytes = 0;
	cub::DoubleBuffer<uint64_t> k(nullptr, nullptr);
	cub::DoubleBuffer<uint32_t> v(nullptr, nullptr);
	cub::DeviceRadixSort::SortPairs(nullptr, bytes, k, v, (int)(n ? n : 1), 0, 3 * BH_BITS);
	return bytes + 1024;
}

extern "C" void tide_bh_build_cuda(void *buffers[], void *cl_arg)
{
	uint32_t n;
	bh_cell universe;
	int leaf;
	starpu_codelet_unpack_args(cl_arg, &n, &universe, &leaf, 0);
	bh_body *body = (bh_body *)STARPU_VECTOR_GET_PTR(buffers[0]);
	float4 *vel = (float4 *)STARPU_VECTOR_GET_PTR(buffers[1]);
	bh_cell *cells = (bh_cell *)STARPU_VECTOR_GET_PTR(buffers[2]);
	int32_t *meta = (int32_t *)STARPU_VECTOR_GET_PTR(buffers[3]);
	bh_group *groups = (bh_group *)STARPU_VECTOR_GET_PTR(buffers[4]);
	char *scr = (char *)STARPU_VECTOR_GET_PTR(buffers[5]);
	size_t scr_bytes = STARPU_VECTOR_GET_NX(buffers[5]) * STARPU_VECTOR_GET_ELEMSIZE(buffers[5]);
	cudaStream_t s = starpu_cuda_get_local_stream();
	size_t m = ((size_t)n + 4) & ~(size_t)3; /* keeps the gather space 16-byte aligned */
	uint64_t *ka = (uint64_t *)scr, *kb = ka + m;
	uint32_t *ia = (uint32_t *)(kb + m), *ib = ia + m;
	float4 *tmp = (float4 *)(ib + m);
	/* the box (6 words) and CUB's storage after the gather space, 256-byte aligned */
	uintptr_t after = ((uintptr_t)(tmp + m) + 255) & ~(uintptr_t)255;
	uint32_t *box = (uint32_t *)after;
	char *cub_tmp = (char *)after + 256;
	size_t cub_avail = scr_bytes - (size_t)(cub_tmp - scr);
	unsigned grid = min(tide_blocks_for(m, TPB), 2048u);

	box_init<<<1, 32, 0, s>>>(box);
	if (n) box_kernel<<<grid, TPB, 0, s>>>(body, n, box);
	root_kernel<<<1, 1, 0, s>>>(box, n, universe, cells, meta);
	const uint64_t *key = ka;
	if (n) {
		key_kernel<<<tide_blocks_for(n, TPB), TPB, 0, s>>>(body, n, cells, ka, ia);
		cub::DoubleBuffer<uint64_t> keys(ka, kb);
		cub::DoubleBuffer<uint32_t> vals(ia, ib);
		size_t need = 0;
		cub::DeviceRadixSort::SortPairs(nullptr, need, keys, vals, (int)n, 0, 3 * BH_BITS, s);
		STARPU_ASSERT_MSG(need <= cub_avail, "bh_build scratch too small (%zu < %zu)", cub_avail, need);
		TIDE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(cub_tmp, need, keys, vals, (int)n, 0,
		                                                3 * BH_BITS, s));
		key = keys.Current();
		const uint32_t *perm = vals.Current();
		gather4<<<tide_blocks_for(n, TPB), TPB, 0, s>>>(tmp, (const float4 *)body, perm, n);
		TIDE_CUDA_CHECK(cudaMemcpyAsync(body, tmp, 16 * (size_t)n, cudaMemcpyDeviceToDevice, s));
		gather4<<<tide_blocks_for(n, TPB), TPB, 0, s>>>(tmp, vel, perm, n);
		TIDE_CUDA_CHECK(cudaMemcpyAsync(vel, tmp, 16 * (size_t)n, cudaMemcpyDeviceToDevice, s));
	}
	unsigned cgrid = min(tide_blocks_for(bh_max_cells(n, leaf), TPB), 4096u);
	for (int L = 0; L <= BH_MAXLEVEL; L++) {
		if (n > (uint32_t)leaf) split_kernel<<<L < 4 ? 8 : cgrid, TPB, 0, s>>>(cells, meta, key, L, leaf);
		level_end_kernel<<<1, 1, 0, s>>>(meta, L);
	}
	groups_kernel<<<cgrid, TPB, 0, s>>>(cells, meta, groups, tide_bh_group_fill());
	TIDE_CUDA_CHECK(cudaGetLastError());
}
