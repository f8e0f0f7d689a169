// SPDX-License-Identifier: LGPL-2.1-or-later
// sink_accrete on the GPU: one thread per particle labels it (accreted by sink s, or kept) and
// adds an accreted particle's gain to its sink with double atomics; a candidate is appended to
// the record's raw list, from which one thread keeps the best S.ncand in the CPU's order
// (sink.h: the same list whatever order the raw one was filled in; beyond TIDE_SINK_RAW
// candidates in a block that thread scans the block instead).  The accreted count comes back to the host; when it is not zero the
// block is compacted as migrate_pack.cu does: holes = the accreted below keep = n - nacc,
// tail = the kept from keep on (as many), f[holes[k]] = f[tail[k]] for every field.
#include "tide/cuda_select.cuh"

extern "C" {
#include "tide/block_interface.h"
#include "tide/codelets.h"
}
#include "tide/sink.h"

#define TPB 256

__device__ static void gain_atomic(tide_sink_gain *a, const tide_sink_gain *b)
{
	atomicAdd(&a->m, b->m);
	for (int k = 0; k < 3; k++) {
		atomicAdd(&a->mx[k], b->mx[k]);
		atomicAdd(&a->mvh[k], b->mvh[k]);
		atomicAdd(&a->mv[k], b->mv[k]);
		atomicAdd(&a->L[k], b->L[k]);
	}
}

__global__ static void label_kernel(tide_sph_params P, tide_sink_set S, tide_block_view v,
                                    uint32_t *lab, tide_sink_accrete_rec *R)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= v.count) return;
	int inside;
	int s = tide_sink_target(&S, &v, i, &inside);
	lab[i] = s >= 0;
	if (s >= 0) {
		tide_sink_gain g;
		tide_sink_gain_of(&S, s, &v, i, tide_sink_mass_of(&P, &v, i), &g);
		gain_atomic(&R->g[s], &g);
		atomicAdd(&R->nacc, 1u);
		return;
	}
	tide_sink_cand c;
	if (!inside && tide_sink_cand_pass(&S, &v, i, &c)) {
		uint32_t k = atomicAdd(&R->nraw, 1u);
		if (k < TIDE_SINK_RAW) R->raw[k] = c;
	}
}

/* The block's best S.ncand candidates: from the raw list when it holds them all, else (more
 * than TIDE_SINK_RAW: rare, many dense particles far from every sink) by one thread's scan of
 * the block in the CPU's way, so that no candidate is dropped. */
__global__ static void pick_kernel(tide_sink_set S, tide_block_view v, const uint32_t *lab,
                                   tide_sink_accrete_rec *R)
{
	uint32_t n = R->nraw, cap = (uint32_t)S.ncand;
	R->nall = n;
	if (n <= TIDE_SINK_RAW) {
		for (uint32_t k = 0; k < n; k++) tide_sink_cand_insert(R->cand, &R->ncand, cap, &R->raw[k]);
		return;
	}
	for (uint32_t i = 0; i < v.count; i++) {
		int inside;
		tide_sink_cand c;
		if (lab[i] || tide_sink_target(&S, &v, i, &inside) >= 0 || inside) continue;
		if (tide_sink_cand_pass(&S, &v, i, &c)) tide_sink_cand_insert(R->cand, &R->ncand, cap, &c);
	}
}

struct lab_is {
	const uint32_t *lab;
	uint32_t want;
	__device__ bool operator()(uint32_t i) const { return lab[i] == want; }
};

extern "C" void tide_sink_accrete_cuda(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_sink_set S;
	starpu_codelet_unpack_args(cl_arg, &P, &S, 0);
	struct tide_block_iface *bi = TIDE_BLOCK_IFACE(buffers[0]);
	tide_block_view v = tide_block_view_of(bi);
	char *scr = (char *)STARPU_VECTOR_GET_PTR(buffers[1]);
	size_t scr_bytes = STARPU_VECTOR_GET_NX(buffers[1]) * STARPU_VECTOR_GET_ELEMSIZE(buffers[1]);
	tide_sink_accrete_rec *R = (tide_sink_accrete_rec *)STARPU_VARIABLE_GET_PTR(buffers[2]);
	cudaStream_t st = starpu_cuda_get_local_stream();
	TIDE_CUDA_CHECK(cudaMemsetAsync(R, 0, offsetof(tide_sink_accrete_rec, raw), st));
	uint32_t n = v.count, cap = v.cap;
	if (n == 0) return;
	/* the block's work space (block.h): labels | holes | tail; scratch: counts | CUB */
	uint32_t *lab = (uint32_t *)v.ax, *holes = lab + cap, *tail = holes + cap;
	uint32_t *cnt_d = (uint32_t *)scr;
	char *cub_tmp = scr + 256;
	size_t cub_avail = scr_bytes - 256;
	label_kernel<<<tide_blocks_for(n, TPB), TPB, 0, st>>>(P, S, v, lab, R);
	pick_kernel<<<1, 1, 0, st>>>(S, v, lab, R);
	uint32_t nacc;
	TIDE_CUDA_CHECK(cudaMemcpyAsync(&nacc, &R->nacc, sizeof nacc, cudaMemcpyDeviceToHost, st));
	TIDE_CUDA_CHECK(cudaStreamSynchronize(st));
	if (nacc == 0) return;
	uint32_t keep = n - nacc;
	tide_select_if(0, keep, lab_is{lab, 1u}, holes, cnt_d, cub_tmp, cub_avail, st);
	tide_select_if(keep, nacc, lab_is{lab, 0u}, tail, cnt_d + 1, cub_tmp, cub_avail, st);
	tide_copy_fields(v, holes, 0, v, tail, nacc, cnt_d + 1, st);
	bi->count = keep;
	TIDE_CUDA_CHECK(cudaGetLastError());
}
