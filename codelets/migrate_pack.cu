// SPDX-License-Identifier: LGPL-2.1-or-later
// migrate_pack on the GPU.  Every particle is labelled (stay / through one of the box's faces /
// gone) and the labels counted; when nobody moves that is all.  Otherwise only the few movers
// are touched, in a fixed order so that runs are reproducible:
//   per face = stable selections of the particles by label, gathered into the face buffers
//   holes = the movers below keep = n - m; tail = the stayers at keep or above (as many)
//   every field: f[holes[k]] = f[tail[k]], so the stayers end up in [0, keep)
// (cell_sort reorders the block by cell at the next step anyway).  The four counts come back to
// the host (32 bytes): they are part of the interfaces; so does, under the gas scheme, the
// largest h (the block's record, include/tide/gas_halo.h).
#include <string.h>
#include "tide/cuda_select.cuh"

extern "C" {
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/gas_halo.h"
}
#include "tide/migrate_label.h"

/* cnt[] (the scratch's counters): the labels' counts, then the selections' sizes, then (the gas
 * scheme) the bits of the largest h (positive floats order as their bits do) */
enum { CNT_HMAX = 16 };

/* Labels, counted per thread block in shared memory first: one global atomic per block and
 * label, not one per particle on the same few addresses (which serialised 13 M atomics); the
 * gas scheme's largest h the same way. */
__global__ static void label_kernel(tide_sph_params P, tide_block_arg A, tide_block_view v,
                                    uint32_t *lab, uint32_t *cnt)
{
	__shared__ unsigned sc[TIDE_MIG_NLABELS];
	__shared__ int sh;
	if (threadIdx.x < TIDE_MIG_NLABELS) sc[threadIdx.x] = 0;
	if (threadIdx.x == 0) sh = 0;
	__syncthreads();
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < v.count) {
		int l = tide_migrate_label(&P, &A, &v, i);
		lab[i] = (uint32_t)l;
		atomicAdd(&sc[l], 1u);
		if (P.scheme == TIDE_SCHEME_GAS) atomicMax(&sh, __float_as_int(fmaxf(v.TIDE_GAS_H[i], 0.f)));
	}
	__syncthreads();
	if (threadIdx.x < TIDE_MIG_NLABELS && sc[threadIdx.x]) atomicAdd(&cnt[threadIdx.x], sc[threadIdx.x]);
	if (threadIdx.x == 0 && sh) atomicMax((int *)&cnt[CNT_HMAX], sh);
}

struct label_is {
	const uint32_t *lab;
	uint32_t want;
	int negate;
	__device__ bool operator()(uint32_t i) const { return (lab[i] == want) != (negate != 0); }
};

/* Buffers: the block, the scratch, then the faces that have neighbours (tide_face_slots). */
extern "C" void tide_migrate_pack_cuda(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_block_arg A;
	starpu_codelet_unpack_args(cl_arg, &P, &A, 0);
	struct tide_block_iface *bi = TIDE_BLOCK_IFACE(buffers[0]);
	int slot[6];
	int nface = tide_face_slots(&P.grid, &A, slot);
	struct tide_block_iface *fi[6];
	for (int f = 0; f < nface; f++) {
		fi[f] = TIDE_BLOCK_IFACE(buffers[2 + f]);
		fi[f]->count = 0;
	}
	tide_block_view v = tide_block_view_of(bi);
	char *scr = (char *)STARPU_VECTOR_GET_PTR(buffers[1]);
	size_t scr_bytes = STARPU_VECTOR_GET_NX(buffers[1]) * STARPU_VECTOR_GET_ELEMSIZE(buffers[1]);
	cudaStream_t s = starpu_cuda_get_local_stream();
	uint32_t n = v.count, cap = v.cap;
	int gas = P.scheme == TIDE_SCHEME_GAS;
	if (n == 0) {
		/* the records of an empty block: no h */
		if (gas) bi->hmax = 0.f;
		for (int f = 0; gas && f < nface; f++) fi[f]->hmax = 0.f;
		return;
	}

	/* the block's work space (block.h; field copies skip it): labels | holes | face lists |
	 * tail; scratch: counters | CUB */
	uint32_t *lab = (uint32_t *)v.ax, *movers = lab + cap, *lists = movers + cap,
	         *tail = lists + cap;
	uint32_t *cnt_d = (uint32_t *)scr; /* [0..7] labels, [8..15] selection sizes, [16] h */
	char *cub_tmp = scr + 256;
	size_t cub_avail = scr_bytes - (size_t)(cub_tmp - scr);

	TIDE_CUDA_CHECK(cudaMemsetAsync(cnt_d, 0, (CNT_HMAX + 1) * sizeof(uint32_t), s));
	label_kernel<<<tide_blocks_for(n, 256), 256, 0, s>>>(P, A, v, lab, cnt_d);
	uint32_t cnt[TIDE_MIG_NLABELS], hbits = 0;
	TIDE_CUDA_CHECK(cudaMemcpyAsync(cnt, cnt_d, sizeof cnt, cudaMemcpyDeviceToHost, s));
	if (gas)
		TIDE_CUDA_CHECK(cudaMemcpyAsync(&hbits, cnt_d + CNT_HMAX, sizeof hbits,
		                                cudaMemcpyDeviceToHost, s));
	TIDE_CUDA_CHECK(cudaStreamSynchronize(s));
	if (gas) {
		float hmax;
		memcpy(&hmax, &hbits, sizeof hmax);
		bi->hmax = hmax;
		for (int f = 0; f < nface; f++) fi[f]->hmax = hmax;
	}
	uint32_t keep = cnt[TIDE_MIG_STAY];
	if (keep == n) return;
	uint32_t m = n - keep, at = 0;

	for (int l = 1; l < TIDE_MIG_GONE; l++) {
		if (!cnt[l]) continue;
		int f = slot[l - 1];
		STARPU_ASSERT_MSG(f >= 0, "migration through a face that has no neighbours");
		STARPU_ASSERT_MSG(cnt[l] <= fi[f]->cap, "migration buffer overflow (%u > %u)", cnt[l],
		                  fi[f]->cap);
		tide_block_view fv = tide_block_view_of(fi[f]);
		tide_select_if(0, n, label_is{lab, (uint32_t)l, 0}, lists + at, cnt_d + 8 + l, cub_tmp,
		               cub_avail, s);
		tide_copy_fields(fv, nullptr, 0, v, lists + at, cnt[l], nullptr, s);
		fi[f]->count = cnt[l];
		at += cnt[l];
	}
	/* holes: movers below `keep`; tail: stayers from `keep` on; there are as many of each */
	tide_select_if(0, keep, label_is{lab, TIDE_MIG_STAY, 1}, movers, cnt_d + 8, cub_tmp,
	               cub_avail, s);
	tide_select_if(keep, m, label_is{lab, TIDE_MIG_STAY, 0}, tail, cnt_d + 15, cub_tmp,
	               cub_avail, s);
	tide_copy_fields(v, movers, 0, v, tail, m, cnt_d + 15, s);
	bi->count = keep;
	TIDE_CUDA_CHECK(cudaGetLastError());
}
