// SPDX-License-Identifier: LGPL-2.1-or-later
// bh_essential on the GPU: the same breadth-first traversal as the CPU version, one kernel per
// tree level (as in the FLASH4 GPU tree code), one thread per slot of the level; children and
// leaf particles get their places in the buffer by atomicAdd on two counters (children of one
// cell stay contiguous; the order of the cells differs from the CPU's, which the walk does not
// mind).  The level ranges stay on the device; the two counts are read back at the end because
// they are part of the buffer's StarPU interface (they size the MPI message).
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/bh_codelets.h"
#include "tide/let_interface.h"
}

/* ctr: cells used, particles used, first and end slot of the level being visited */
enum { CTR_CELLS, CTR_PARTS, CTR_BEGIN, CTR_END };

__global__ static void let_init(const bh_vroot *vr, bh_cell *oc, int32_t *ctr)
{
	int32_t any = vr->n > 0;
	ctr[CTR_CELLS] = any; ctr[CTR_PARTS] = 0; ctr[CTR_BEGIN] = 0; ctr[CTR_END] = any;
	if (any) oc[0].child = 0;
}

__global__ static void let_level(const bh_body *body, const bh_cell *cells, const bh_mom *mom,
                                 const bh_vroot *vr, bh_cell *oc, bh_mom *om, bh_body *op,
                                 float *oe, const float *vel, bh_params P, int32_t *ctr, int whole,
                                 float far2)
{
	int32_t b = ctr[CTR_BEGIN], e = ctr[CTR_END];
	for (int32_t i = b + blockIdx.x * blockDim.x + threadIdx.x; i < e; i += gridDim.x * blockDim.x) {
		int32_t src = oc[i].child;
		bh_cell C = cells[src];
		bh_mom M = mom[src];
		int k = bh_let_choose(&C, &M, vr, whole, far2);
		int32_t first = 0;
		if (k == BH_LET_KEEP_OPEN) {
			first = atomicAdd(&ctr[CTR_CELLS], C.nchild);
			for (int32_t c = 0; c < C.nchild; c++) oc[first + c].child = C.child + c;
		} else if (k == BH_LET_KEEP_LEAF) {
			first = atomicAdd(&ctr[CTR_PARTS], C.pend - C.pbegin);
			for (int32_t j = C.pbegin; j < C.pend; j++) {
				op[first + j - C.pbegin] = body[j];
				oe[first + j - C.pbegin] = bh_body_eps(&P, vel, j);
			}
		}
		bh_let_fill(&oc[i], &om[i], &C, &M, k, first);
	}
}

/* The next level is what the one just visited appended. */
__global__ static void let_next(int32_t *ctr)
{
	ctr[CTR_BEGIN] = ctr[CTR_END];
	ctr[CTR_END] = ctr[CTR_CELLS];
}

extern "C" void tide_bh_essential_cuda(void *buffers[], void *cl_arg)
{
	bh_essential_io io = bh_essential_unpack(buffers, cl_arg);
	int32_t *ctr = (int32_t *)io.scratch;
	if (io.n == 0) return;
	cudaStream_t s = starpu_cuda_get_local_stream();
	unsigned grid = min(tide_blocks_for(io.out->cap_cells, 256), 1024u);
	let_init<<<1, 1, 0, s>>>(io.vroot, io.oc, ctr);
	for (int level = 0; level <= BH_MAXLEVEL; level++) {
		let_level<<<grid, 256, 0, s>>>(io.body, io.cells, io.mom, io.vroot, io.oc, io.om, io.op,
		                               io.oe, io.vel, io.P, ctr, io.whole, io.far2);
		let_next<<<1, 1, 0, s>>>(ctr);
	}
	int32_t used[2];
	TIDE_CUDA_CHECK(cudaMemcpyAsync(used, ctr, sizeof used, cudaMemcpyDeviceToHost, s));
	TIDE_CUDA_CHECK(cudaStreamSynchronize(s));
	STARPU_ASSERT((uint32_t)used[0] <= io.out->cap_cells && (uint32_t)used[1] <= io.out->cap_parts);
	io.out->ncells = (uint32_t)used[0];
	io.out->nparts = (uint32_t)used[1];
}
