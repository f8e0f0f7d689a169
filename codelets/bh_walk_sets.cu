// SPDX-License-Identifier: LGPL-2.1-or-later
// bh_walk_sets on the GPU (include/tide/bh_walk_sets.h): one launch of the fast walk kernel's
// persistent warps over the groups, each warp walking its group through every received set in
// turn (walk_fast_warps of bh_walk_kernels.cuh, the body of bh_walk_let's kernel, with a table
// of sets for its one source).  Each set's field is summed from zero and added to acc, in the
// table's order, so the result is that of one bh_walk_let launch per set, bit for bit without
// the far field's expansions (with them: to float rounding; the warp's one expansion of all the
// sets' far nodes is evaluated after the last set, bh_walk_sets.h).
//
// The table travels as the kernel's argument (__grid_constant__: read in place from the
// parameter space, no copy per thread): no copy to the device, no host buffer that must outlive
// the asynchronous launch.  Kernel arguments may take 32 764 bytes (CUDA 12.1 and later, Volta
// and later), so a launch takes up to WALK_SETS_PER_LAUNCH sets and more sets take several
// launches, one after the other on the stream (the same sums in the same order).
// TIDE_BH_WALK=classic (the reference kernel) walks the sets with one classic launch each.
#include "bh_walk_kernels.cuh"
extern "C" {
#include "tide/bh_walk_sets.h"
}

#define WALK_SETS_PER_LAUNCH 1984

/* A received set as the kernel finds it: its buffer and capacities (bh_let_cells etc.). */
struct walk_set_ref {
	uintptr_t base;
	uint32_t cap_cells, cap_parts;
};
struct walk_set_table {
	int n;
	walk_set_ref set[WALK_SETS_PER_LAUNCH];
};
static_assert(sizeof(walk_set_table) + 256 <= 32764, "the table and the other kernel arguments");

/* The sets of the table, in order. */
struct walk_table_src {
	static constexpr bool one = false;
	const walk_set_table *t;
	__device__ __forceinline__ int count() const { return t->n; }
	__device__ __forceinline__ void get(int s, const bh_cell *&c, const bh_mom *&m, const bh_body *&p,
	                                    const float *&e) const
	{
		const walk_set_ref r = t->set[s];
		void *base = (void *)r.base;
		c = bh_let_cells(base);
		m = bh_let_moms(base, r.cap_cells);
		p = bh_let_parts(base, r.cap_cells);
		e = bh_let_eps(base, r.cap_cells, r.cap_parts);
	}
};

template <bool QUAD>
__global__ static void __launch_bounds__(FAST_TPB, 8)
walk_sets_fast_kernel(const bh_body *__restrict__ body, const float *__restrict__ vel,
                      const __grid_constant__ walk_set_table T, const int32_t *meta,
                      const bh_group *groups, bh_acc *out, bh_params P, bh_range R, float far,
                      int32_t *counter, int32_t *stacks)
{
	const walk_table_src S = {&T};
	walk_fast_warps<true, QUAD>(body, vel, S, meta, groups, out, P, R, far, counter, stacks);
}

extern "C" void tide_bh_walk_sets_cuda(void *buffers[], void *cl_arg)
{
	bh_params P;
	bh_range R;
	int nsets;
	float far; /* the far nodes' local expansions (bh_walk_sets.h) */
	starpu_codelet_unpack_args(cl_arg, &P, &R, &nsets, &far, 0);
	const bh_body *body = (const bh_body *)STARPU_VECTOR_GET_PTR(buffers[0]);
	const int32_t *meta = (const int32_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
	const bh_group *groups = (const bh_group *)STARPU_VECTOR_GET_PTR(buffers[2]);
	bh_acc *out = (bh_acc *)STARPU_VECTOR_GET_PTR(buffers[3]);
	void *scratch = buffers[4];
	const float *vel = (const float *)STARPU_VECTOR_GET_PTR(buffers[5]);
	if (R.r1 <= R.r0) return;
	if (!walk_use_fast()) {
		/* the reference kernel, set by set (as bh_walk_let's tasks) */
		for (int s = 0; s < nsets; s++) {
			bh_walk_src w;
			if (!bh_walk_src_of(TIDE_LET_IFACE(buffers[BH_WALK_SETS_FIXED + s]), &w)) continue;
			launch_walk<true>(body, vel, w.cells, w.mom, w.src, w.seps, meta, groups, out, P, R, far,
			                  scratch);
		}
		return;
	}
	char *scr = (char *)STARPU_VECTOR_GET_PTR(scratch);
	size_t scr_bytes = STARPU_VECTOR_GET_NX(scratch) * STARPU_VECTOR_GET_ELEMSIZE(scratch);
	STARPU_ASSERT_MSG(scr_bytes >= WALK_SCRATCH_BYTES, "bh_walk_sets scratch too small");
	int32_t *counter = (int32_t *)scr;
	int32_t *stacks = (int32_t *)(scr + 256);
	cudaStream_t st = starpu_cuda_get_local_stream();
	/* 31 KB, not on the worker's stack; a launch copies its arguments, so it may go at once */
	walk_set_table *t = (walk_set_table *)malloc(sizeof *t);
	STARPU_ASSERT_MSG(t, "bh_walk_sets: no memory for the table of sets");
	t->n = 0;
	for (int s = 0; s <= nsets; s++) {
		const struct tide_let_iface *L =
		        s < nsets ? TIDE_LET_IFACE(buffers[BH_WALK_SETS_FIXED + s]) : NULL;
		if (L && L->ncells > 0)
			t->set[t->n++] = walk_set_ref{L->ptr, L->cap_cells, L->cap_parts};
		if (t->n == 0 || (t->n < WALK_SETS_PER_LAUNCH && s < nsets)) continue;
		/* a full table, or the last sets */
		TIDE_CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof(int32_t), st));
		if (P.quadrupole)
			walk_sets_fast_kernel<true><<<walk_blocks(walk_sets_fast_kernel<true>, FAST_TPB), FAST_TPB, 0,
			                             st>>>(body, vel, *t, meta, groups, out, P, R, far, counter, stacks);
		else
			walk_sets_fast_kernel<false><<<walk_blocks(walk_sets_fast_kernel<false>, FAST_TPB), FAST_TPB,
			                              0, st>>>(body, vel, *t, meta, groups, out, P, R, far, counter, stacks);
		TIDE_CUDA_CHECK(cudaGetLastError());
		t->n = 0;
	}
	free(t);
}
