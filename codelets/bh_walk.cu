// SPDX-License-Identifier: LGPL-2.1-or-later
// bh_walk on the GPU: one warp per group of up to 32 particles of a leaf (one particle per
// lane), the whole warp sharing one traversal against the group's bounding box, as in the CPU
// version.  Each round pops up to 32 nodes from the warp's stack (one per lane) and tests them;
// accepted nodes and opened leaves are then applied by the whole warp one after the other (their
// data are broadcast loads), opened internal cells push their children (warp prefix sum).
// Persistent warps take groups from an atomic counter; their stacks live in the scratch buffer.
// The same kernel walks the essential nodes received from another rank (LET = true): sources
// from the received buffer, BH_LET_MULTIPOLE cells used without testing, field added to out.
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/bh_codelets.h"
#include "tide/let_interface.h"
}

#define WALK_TPB 128
#define WALK_MAX_WARPS 8192
#define WALK_STACK 8192 /* entries per warp; a round pushes at most 256 */

extern "C" size_t tide_bh_walk_cuda_scratch_bytes(void)
{
	return (size_t)WALK_MAX_WARPS * WALK_STACK * sizeof(int32_t) + 256;
}

__device__ static inline float warp_min(float v)
{
	for (int o = 16; o; o >>= 1) v = fminf(v, __shfl_xor_sync(0xffffffffu, v, o));
	return v;
}
__device__ static inline float warp_max(float v)
{
	for (int o = 16; o; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
	return v;
}

template <bool LET>
__global__ static void __launch_bounds__(WALK_TPB)
walk_kernel(const bh_body *__restrict__ body, const bh_cell *__restrict__ cells,
            const bh_mom *__restrict__ mom, const bh_body *__restrict__ src, const int32_t *meta,
            const bh_group *groups, bh_acc *out, bh_params P, bh_range R, int32_t *counter,
            int32_t *stacks)
{
	const unsigned full = 0xffffffffu;
	int lane = threadIdx.x & 31;
	int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
	int32_t *stack = stacks + (size_t)warp * WALK_STACK;
	int32_t ng = meta[BH_META_NGROUPS];
	float eps2 = P.eps * P.eps, self = P.eps > 0.f && !LET ? 1.f / P.eps : 0.f;
	for (;;) {
		int32_t g = 0;
		if (lane == 0) g = atomicAdd(counter, 1);
		g = __shfl_sync(full, g, 0);
		if (g >= ng) break;
		int32_t p0 = max(groups[g].begin, (int32_t)R.r0), p1 = min(groups[g].end, (int32_t)R.r1);
		if (p0 >= p1) continue;
		int32_t i = p0 + lane;
		bool active = i < p1;
		bh_body me = body[active ? i : p0];
		bh_box box;
		{
			float lx = warp_min(me.x), ly = warp_min(me.y), lz = warp_min(me.z);
			float hx = warp_max(me.x), hy = warp_max(me.y), hz = warp_max(me.z);
			box.cx = 0.5f * (lx + hx); box.hx = 0.5f * (hx - lx);
			box.cy = 0.5f * (ly + hy); box.hy = 0.5f * (hy - ly);
			box.cz = 0.5f * (lz + hz); box.hz = 0.5f * (hz - lz);
		}
		bh_acc a = {0.f, 0.f, 0.f, 0.f};
		int top = 1;
		if (lane == 0) stack[0] = 0;
		__syncwarp();
		while (top > 0) {
			int nb = min(top, 32), base = top - nb;
			int32_t node = lane < nb ? stack[base + lane] : -1;
			__syncwarp();
			bool acc = false, leaf = false;
			int nch = 0;
			int32_t child = 0;
			if (node >= 0) {
				bh_cell C = cells[node];
				bh_mom M = mom[node];
				acc = C.nchild == BH_LET_MULTIPOLE || bh_accept(&M, &C, &box);
				leaf = !acc && C.nchild == 0;
				if (!acc && C.nchild > 0) { nch = C.nchild; child = C.child; }
			}
			int off = nch;
			for (int o = 1; o < 32; o <<= 1) {
				int t = __shfl_up_sync(full, off, o);
				if (lane >= o) off += t;
			}
			int total = __shfl_sync(full, off, 31);
			off -= nch;
			top = base;
			if (top + total > WALK_STACK) {
				if (lane == 0) printf("tide bh_walk: traversal stack overflow\n");
				total = 0; nch = 0;
			}
			for (int k = 0; k < nch; k++) stack[top + off + k] = child + k;
			top += total;
			__syncwarp();
			for (unsigned m = __ballot_sync(full, acc); m; m &= m - 1) {
				int32_t c = __shfl_sync(full, node, __ffs(m) - 1);
				bh_mom M = mom[c];
				bh_m2p(&a, me.x, me.y, me.z, &M, eps2, P.quadrupole);
			}
			for (unsigned m = __ballot_sync(full, leaf); m; m &= m - 1) {
				int32_t c = __shfl_sync(full, node, __ffs(m) - 1);
				int32_t b = cells[c].pbegin, e = cells[c].pend;
				for (int32_t j0 = b; j0 < e; j0 += 32) {
					bh_body s = {0.f, 0.f, 0.f, 0.f};
					if (j0 + lane < e) s = src[j0 + lane];
					int cnt = min(32, e - j0);
					for (int j = 0; j < cnt; j++) {
						bh_body t;
						t.x = __shfl_sync(full, s.x, j);
						t.y = __shfl_sync(full, s.y, j);
						t.z = __shfl_sync(full, s.z, j);
						t.m = __shfl_sync(full, s.m, j);
						bh_p2p(&a, me.x, me.y, me.z, &t, eps2);
					}
				}
			}
		}
		if (active) {
			bh_acc o = {P.G * a.ax, P.G * a.ay, P.G * a.az, P.G * (a.pot + me.m * self)};
			bh_acc *d = &out[i - (int32_t)R.r0];
			if (LET) { d->ax += o.ax; d->ay += o.ay; d->az += o.az; d->pot += o.pot; }
			else *d = o;
		}
	}
}

/* Launches the persistent warps over the groups of the particles [r0, r1). */
template <bool LET>
static void launch_walk(const bh_body *body, const bh_cell *cells, const bh_mom *mom,
                        const bh_body *src, const int32_t *meta, const bh_group *groups, bh_acc *out,
                        bh_params P, bh_range R, void *scratch_buf)
{
	char *scr = (char *)STARPU_VECTOR_GET_PTR(scratch_buf);
	size_t scr_bytes = STARPU_VECTOR_GET_NX(scratch_buf) * STARPU_VECTOR_GET_ELEMSIZE(scratch_buf);
	STARPU_ASSERT_MSG(scr_bytes >= tide_bh_walk_cuda_scratch_bytes(), "bh_walk scratch too small");
	if (R.r1 <= R.r0) return;
	cudaStream_t s = starpu_cuda_get_local_stream();
	int dev = 0, sms = 1, per_sm = 1;
	cudaGetDevice(&dev);
	cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
	cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, walk_kernel<LET>, WALK_TPB, 0);
	int blocks = sms * (per_sm > 0 ? per_sm : 1);
	if (blocks * (WALK_TPB / 32) > WALK_MAX_WARPS) blocks = WALK_MAX_WARPS / (WALK_TPB / 32);
	int32_t *counter = (int32_t *)scr;
	int32_t *stacks = (int32_t *)(scr + 256);
	TIDE_CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof(int32_t), s));
	walk_kernel<LET><<<blocks, WALK_TPB, 0, s>>>(body, cells, mom, src, meta, groups, out, P, R,
	                                              counter, stacks);
	TIDE_CUDA_CHECK(cudaGetLastError());
}

extern "C" void tide_bh_walk_cuda(void *buffers[], void *cl_arg)
{
	bh_params P;
	bh_range R;
	starpu_codelet_unpack_args(cl_arg, &P, &R);
	const bh_body *body = (const bh_body *)STARPU_VECTOR_GET_PTR(buffers[0]);
	launch_walk<false>(body, (const bh_cell *)STARPU_VECTOR_GET_PTR(buffers[1]),
	                   (const bh_mom *)STARPU_VECTOR_GET_PTR(buffers[2]), body,
	                   (const int32_t *)STARPU_VECTOR_GET_PTR(buffers[3]),
	                   (const bh_group *)STARPU_VECTOR_GET_PTR(buffers[4]),
	                   (bh_acc *)STARPU_VECTOR_GET_PTR(buffers[5]), P, R, buffers[6]);
}

extern "C" void tide_bh_walk_let_cuda(void *buffers[], void *cl_arg)
{
	bh_params P;
	bh_range R;
	starpu_codelet_unpack_args(cl_arg, &P, &R);
	const struct tide_let_iface *L = TIDE_LET_IFACE(buffers[3]);
	if (L->ncells == 0) return;
	void *let = (void *)L->ptr;
	launch_walk<true>((const bh_body *)STARPU_VECTOR_GET_PTR(buffers[0]), bh_let_cells(let),
	                  bh_let_moms(let, L->cap_cells), bh_let_parts(let, L->cap_cells),
	                  (const int32_t *)STARPU_VECTOR_GET_PTR(buffers[1]),
	                  (const bh_group *)STARPU_VECTOR_GET_PTR(buffers[2]),
	                  (bh_acc *)STARPU_VECTOR_GET_PTR(buffers[4]), P, R, buffers[5]);
}
