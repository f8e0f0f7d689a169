// SPDX-License-Identifier: LGPL-2.1-or-later
// migrate_pack on the GPU, the paper's way but done only when needed: label every particle
// (stay / to the lower block / to the upper block / gone) and count the labels; when nobody moves
// (most steps) that is all.  Otherwise a stable radix sort by label orders the particles as
// stay | low | high | gone, the movers are gathered into the neighbours' buffers and the stayers
// compacted.  The four counts come back to the host (16 bytes): they are part of the interfaces.
#include <cub/device/device_radix_sort.cuh>
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/block_interface.h"
#include "tide/codelets.h"
}
#include "tide/migrate_label.h"

__global__ static void label_kernel(tide_sph_params P, tide_block_arg A, tide_block_view v,
                                    uint32_t *lab, uint32_t *idx, uint32_t *cnt)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= v.count) return;
	int l = tide_migrate_label(&P, &A, &v, i);
	lab[i] = (uint32_t)l;
	idx[i] = i;
	atomicAdd(&cnt[l], 1u);
}

static void gather_to(struct tide_block_iface *dst, const tide_block_view &src,
                      const uint32_t *perm, uint32_t n, cudaStream_t s)
{
	STARPU_ASSERT_MSG(n <= dst->cap, "migration buffer overflow (%u > %u)", n, dst->cap);
	tide_block_view d = tide_block_view_of(dst);
	for (int f = 0; f < TIDE_BLOCK_NFIELDS && n; f++) {
		size_t elem;
		char *sp = tide_field_ptr(src, f, &elem);
		char *dp = tide_field_ptr(d, f, &elem);
		if (elem == 8)
			tide_gather_kernel<double><<<tide_blocks_for(n, 256), 256, 0, s>>>(
			        (double *)dp, (const double *)sp, perm, n);
		else
			tide_gather_kernel<uint32_t><<<tide_blocks_for(n, 256), 256, 0, s>>>(
			        (uint32_t *)dp, (const uint32_t *)sp, perm, n);
	}
	dst->count = n;
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

	uint32_t *ka = (uint32_t *)scr, *kb = ka + cap, *ia = kb + cap, *ib = ia + cap;
	void *tmp = ib + cap;
	char *tail = (char *)tmp + (size_t)cap * sizeof(double);
	uint32_t *cnt_d = (uint32_t *)tail;
	char *cub_tmp = tail + 256;
	size_t cub_avail = scr_bytes - (size_t)(cub_tmp - scr);

	TIDE_CUDA_CHECK(cudaMemsetAsync(cnt_d, 0, 4 * sizeof(uint32_t), s));
	label_kernel<<<tide_blocks_for(n, 256), 256, 0, s>>>(P, A, v, ka, ia, cnt_d);
	uint32_t cnt[4];
	TIDE_CUDA_CHECK(cudaMemcpyAsync(cnt, cnt_d, sizeof cnt, cudaMemcpyDeviceToHost, s));
	TIDE_CUDA_CHECK(cudaStreamSynchronize(s));
	if (cnt[TIDE_MIG_STAY] == n) return;

	cub::DoubleBuffer<uint32_t> keys(ka, kb), vals(ia, ib);
	size_t need = 0;
	cub::DeviceRadixSort::SortPairs(nullptr, need, keys, vals, (int)n, 0, 2, s);
	STARPU_ASSERT_MSG(need <= cub_avail, "migrate_pack scratch too small");
	TIDE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(cub_tmp, need, keys, vals, (int)n, 0, 2, s));
	const uint32_t *perm = vals.Current();
	uint32_t keep = cnt[TIDE_MIG_STAY], nlo = cnt[TIDE_MIG_LOW], nhi = cnt[TIDE_MIG_HIGH];
	gather_to(li, v, perm + keep, nlo, s);
	gather_to(hi, v, perm + keep + nlo, nhi, s);
	tide_gather_block(v, perm, tmp, keep, s);
	bi->count = keep;
	TIDE_CUDA_CHECK(cudaGetLastError());
}
