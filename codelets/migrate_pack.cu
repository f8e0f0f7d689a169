// SPDX-License-Identifier: LGPL-2.1-or-later
// migrate_pack on the GPU.  Every particle is labelled (stay / to the lower block / to the upper
// block / gone) and the labels counted; when nobody moves that is all.  Otherwise only the few
// movers are touched, in a fixed order so that runs are reproducible:
//   to_low, to_high = stable selections of the particles by label, gathered into the buffers
//   holes = the movers below keep = n - m; tail = the stayers at keep or above (as many)
//   every field: f[holes[k]] = f[tail[k]], so the stayers end up in [0, keep)
// (cell_sort reorders the block by cell at the next step anyway).  The four counts come back to
// the host (16 bytes): they are part of the interfaces.
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/block_interface.h"
#include "tide/codelets.h"
}
#include "tide/migrate_label.h"

/* Labels, counted per thread block in shared memory first: one global atomic per block and
 * label, not one per particle on the same four addresses (which serialised 13 M atomics). */
__global__ static void label_kernel(tide_sph_params P, tide_block_arg A, tide_block_view v,
                                    uint32_t *lab, uint32_t *cnt)
{
	__shared__ unsigned sc[4];
	if (threadIdx.x < 4) sc[threadIdx.x] = 0;
	__syncthreads();
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < v.count) {
		int l = tide_migrate_label(&P, &A, &v, i);
		lab[i] = (uint32_t)l;
		if (l != TIDE_MIG_STAY) atomicAdd(&sc[l], 1u);
	}
	__syncthreads();
	if (threadIdx.x == 0) {
		uint32_t first = blockIdx.x * blockDim.x;
		uint32_t inblock = v.count - first < blockDim.x ? v.count - first : blockDim.x;
		sc[TIDE_MIG_STAY] = inblock - sc[1] - sc[2] - sc[3];
	}
	__syncthreads();
	if (threadIdx.x < 4 && sc[threadIdx.x]) atomicAdd(&cnt[threadIdx.x], sc[threadIdx.x]);
}

struct label_is {
	const uint32_t *lab;
	uint32_t want;
	int negate;
	__device__ bool operator()(uint32_t i) const { return (lab[i] == want) != (negate != 0); }
};

/* dst[k] = src[sidx[k]], or in place f[didx[k]] = f[sidx[k]] for k < *n_dev. */
template <typename T>
__global__ void scatter_kernel(T *dst, const uint32_t *didx, const T *src, const uint32_t *sidx,
                               uint32_t n, const uint32_t *n_dev)
{
	uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
	if (k < n && (!n_dev || k < *n_dev)) dst[didx ? didx[k] : k] = src[sidx[k]];
}

static void copy_fields(tide_block_view &dst, const uint32_t *didx, const tide_block_view &src,
                        const uint32_t *sidx, uint32_t n, const uint32_t *n_dev, cudaStream_t s)
{
	for (int f = 0; f < TIDE_BLOCK_NFIELDS && n; f++) {
		size_t elem;
		char *dp = tide_field_ptr(dst, f, &elem);
		char *sp = tide_field_ptr(src, f, &elem);
		if (elem == 8)
			scatter_kernel<double><<<tide_blocks_for(n, 256), 256, 0, s>>>(
			        (double *)dp, didx, (const double *)sp, sidx, n, n_dev);
		else
			scatter_kernel<uint32_t><<<tide_blocks_for(n, 256), 256, 0, s>>>(
			        (uint32_t *)dp, didx, (const uint32_t *)sp, sidx, n, n_dev);
	}
}

/* Stable selection of the indices in [first, first + n) whose label passes `op`. */
static void select(uint32_t first, uint32_t n, label_is op, uint32_t *out, uint32_t *nsel,
                   char *tmp, size_t tmp_bytes, cudaStream_t s)
{
	thrust::counting_iterator<uint32_t> it(first);
	size_t need = 0;
	cub::DeviceSelect::If(nullptr, need, it, out, nsel, (int)n, op, s);
	STARPU_ASSERT_MSG(need <= tmp_bytes, "migrate_pack scratch too small (%zu < %zu)", tmp_bytes,
	                  need);
	TIDE_CUDA_CHECK(cub::DeviceSelect::If(tmp, need, it, out, nsel, (int)n, op, s));
}

extern "C" void tide_migrate_pack_cuda(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_block_arg A;
	starpu_codelet_unpack_args(cl_arg, &P, &A);
	struct tide_block_iface *bi = TIDE_BLOCK_IFACE(buffers[0]);
	struct tide_block_iface *li = TIDE_BLOCK_IFACE(buffers[1]);
	struct tide_block_iface *hi = TIDE_BLOCK_IFACE(buffers[2]);
	tide_block_view v = tide_block_view_of(bi);
	char *scr = (char *)STARPU_VECTOR_GET_PTR(buffers[3]);
	size_t scr_bytes = STARPU_VECTOR_GET_NX(buffers[3]) * STARPU_VECTOR_GET_ELEMSIZE(buffers[3]);
	cudaStream_t s = starpu_cuda_get_local_stream();
	uint32_t n = v.count, cap = v.cap;
	li->count = hi->count = 0;
	if (n == 0) return;

	/* scratch: labels | holes | to_low, to_high | tail | (gather space) | counters | CUB */
	uint32_t *lab = (uint32_t *)scr, *movers = lab + cap, *lists = movers + cap,
	         *tail = lists + cap;
	char *after = (char *)(tail + cap) + (size_t)cap * sizeof(double);
	uint32_t *cnt_d = (uint32_t *)after; /* [0..3] labels, [4..7] selection sizes */
	char *cub_tmp = after + 256;
	size_t cub_avail = scr_bytes - (size_t)(cub_tmp - scr);

	TIDE_CUDA_CHECK(cudaMemsetAsync(cnt_d, 0, 4 * sizeof(uint32_t), s));
	label_kernel<<<tide_blocks_for(n, 256), 256, 0, s>>>(P, A, v, lab, cnt_d);
	uint32_t cnt[4];
	TIDE_CUDA_CHECK(cudaMemcpyAsync(cnt, cnt_d, sizeof cnt, cudaMemcpyDeviceToHost, s));
	TIDE_CUDA_CHECK(cudaStreamSynchronize(s));
	uint32_t keep = cnt[TIDE_MIG_STAY], nlo = cnt[TIDE_MIG_LOW], nhi = cnt[TIDE_MIG_HIGH];
	if (keep == n) return;
	STARPU_ASSERT_MSG(nlo <= li->cap && nhi <= hi->cap, "migration buffer overflow (%u, %u > %u)",
	                  nlo, nhi, li->cap);
	uint32_t m = n - keep;

	tide_block_view lo = tide_block_view_of(li), up = tide_block_view_of(hi);
	select(0, n, label_is{lab, TIDE_MIG_LOW, 0}, lists, cnt_d + 4, cub_tmp, cub_avail, s);
	copy_fields(lo, nullptr, v, lists, nlo, nullptr, s);
	select(0, n, label_is{lab, TIDE_MIG_HIGH, 0}, lists + nlo, cnt_d + 5, cub_tmp, cub_avail, s);
	copy_fields(up, nullptr, v, lists + nlo, nhi, nullptr, s);
	/* holes: movers below `keep`; tail: stayers from `keep` on; there are as many of each */
	select(0, keep, label_is{lab, TIDE_MIG_STAY, 1}, movers, cnt_d + 6, cub_tmp, cub_avail, s);
	select(keep, m, label_is{lab, TIDE_MIG_STAY, 0}, tail, cnt_d + 7, cub_tmp, cub_avail, s);
	copy_fields(v, movers, v, tail, m, cnt_d + 7, s);
	li->count = nlo;
	hi->count = nhi;
	bi->count = keep;
	TIDE_CUDA_CHECK(cudaGetLastError());
}
