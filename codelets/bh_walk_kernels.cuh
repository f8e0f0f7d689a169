// SPDX-License-Identifier: LGPL-2.1-or-later
// The Barnes-Hut walk kernels and their launch (codelets/bh_walk.cu describes them), shared by
// bh_walk.cu (the own tree, one received set) and bh_walk_sets.cu (every received set in one
// launch: the same fast kernel body with a loop over the sets inside each warp's group).
#ifndef TIDE_BH_WALK_KERNELS_CUH
#define TIDE_BH_WALK_KERNELS_CUH
#include "tide/cuda_util.cuh"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "tide/bh_codelets.h"
#include "tide/let_interface.h"
}
#include "tide/bh_interact.h"

#define WALK_TPB 128
#define WALK_MAX_WARPS 8192
#define WALK_STACK 8192 /* entries per warp; a round pushes at most 256 */
#define FAST_TPB 128    /* fast kernel: 4 warps per block, 2 KiB of shared memory per warp */

#define WALK_SCRATCH_BYTES ((size_t)WALK_MAX_WARPS * WALK_STACK * sizeof(int32_t) + 256)

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
/* The box (centre, half sides) around the warp's particles, one each lane (both kernels). */
__device__ static inline bh_box warp_box(float x, float y, float z)
{
	float lx = warp_min(x), ly = warp_min(y), lz = warp_min(z);
	float hx = warp_max(x), hy = warp_max(y), hz = warp_max(z);
	bh_box box;
	box.cx = 0.5f * (lx + hx); box.hx = 0.5f * (hx - lx);
	box.cy = 0.5f * (ly + hy); box.hy = 0.5f * (hy - ly);
	box.cz = 0.5f * (lz + hz); box.hz = 0.5f * (hz - lz);
	return box;
}

/* ---------------------------------------------------------------------------------------------
 * the far field of received sets (bh_interact.h: bh_m2l, bh_l2p; the CPU's codelets/bh_walk.c)
 * Each lane adds the far nodes it tested into its own column of the warp's coefficients (no
 * atomics, no shuffles per node); at the group's end lane k < BH_LOCAL_N sums row k (diagonal
 * reads: no bank conflicts) and every lane evaluates the sum at its particle. */
struct walk_far {
	float c[BH_LOCAL_N][32];
};

/* The group's far criterion (bh_far2 with theta_l = far theta over the warp's softenings) and
 * its mean softening *ge; infinity (nothing far) for the own tree or far = 0. */
template <bool LET>
__device__ __forceinline__ float far_start(walk_far &F, int lane, const bh_box &box, float e,
                                           const bh_params &P, float far, float *ge)
{
	*ge = 0.f;
	if (!LET || !(far > 0.f)) return INFINITY;
	float elo = warp_min(e), ehi = warp_max(e);
	*ge = sqrtf(0.5f * (elo * elo + ehi * ehi));
	for (int k = 0; k < BH_LOCAL_N; k++) F.c[k][lane] = 0.f;
	return bh_far2(&box, elo, ehi, far * P.theta);
}

/* The node (com and mass m0, quadrupole m1 = xx xy xz yy, m2.x, m2.y = yz zz, softening ne) into
 * the lane's column when it is far: returns whether it was. */
template <bool QUAD>
__device__ __forceinline__ bool far_add(walk_far &F, int lane, float far2, const bh_box &box,
                                        float4 m0, float4 m1, float4 m2, float ne, float ge)
{
	float rx = m0.x - box.cx, ry = m0.y - box.cy, rz = m0.z - box.cz;
	if (!(rx * rx + ry * ry + rz * rz >= far2)) return false;
	bh_m2l(&F.c[0][lane], 32, rx, ry, rz, m0.w, m1.x, m1.y, m1.z, m1.w, m2.x, m2.y,
	       bh_soft2(ge, ne), QUAD);
	return true;
}

/* The warp's expansion summed and evaluated at the lane's particle (x, y, z), without G. */
__device__ __forceinline__ bh_acc far_eval(walk_far &F, int lane, float x, float y, float z,
                                           const bh_box &box)
{
	__syncwarp();
	if (lane < BH_LOCAL_N) {
		float v = 0.f;
		for (int j = 0; j < 32; j++) v += F.c[lane][(j + lane) & 31];
		F.c[lane][0] = v; /* row lane only: read whole by this lane above */
	}
	__syncwarp();
	float L[BH_LOCAL_N];
	for (int k = 0; k < BH_LOCAL_N; k++) L[k] = F.c[k][0];
	__syncwarp(); /* read before the next group zeroes the columns */
	return bh_l2p(L, x - box.cx, y - box.cy, z - box.cz);
}

/* ---------------------------------------------------------------------------------------------
 * classic kernel */

template <bool LET>
__global__ static void __launch_bounds__(WALK_TPB)
walk_kernel(const bh_body *__restrict__ body, const float *__restrict__ vel,
            const bh_cell *__restrict__ cells, const bh_mom *__restrict__ mom,
            const bh_body *__restrict__ src, const float *__restrict__ seps,
            const int32_t *meta, const bh_group *groups,
            bh_acc *out, bh_params P, bh_range R, float far, int32_t *counter, int32_t *stacks)
{
	__shared__ walk_far far_buf[LET ? WALK_TPB / 32 : 1];
	const unsigned full = 0xffffffffu;
	int lane = threadIdx.x & 31;
	int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
	int32_t *stack = stacks + (size_t)warp * WALK_STACK;
	int32_t ng = meta[BH_META_NGROUPS];
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
		float me_e = bh_body_eps(&P, vel, active ? i : p0); /* softening (bh_soft2) */
		bh_box box = warp_box(me.x, me.y, me.z);
		bh_acc a = {0.f, 0.f, 0.f, 0.f};
		float ge, far2 = far_start<LET>(far_buf[threadIdx.x >> 5], lane, box, me_e, P, far, &ge);
		bool anyfar = false;
		int top = 1;
		if (lane == 0) stack[0] = 0;
		__syncwarp();
		while (top > 0) {
			int nb = min(top, 32), base = top - nb;
			int32_t node = lane < nb ? stack[base + lane] : -1;
			__syncwarp();
			bool acc = false, leaf = false, isfar = false;
			int nch = 0;
			int32_t child = 0;
			if (node >= 0) {
				bh_cell C = cells[node];
				bh_mom M = mom[node];
				acc = C.nchild == BH_LET_MULTIPOLE || bh_accept(&M, &C, &box);
				leaf = !acc && C.nchild == 0;
				if (!acc && C.nchild > 0) { nch = C.nchild; child = C.child; }
				/* received sets: a far accepted node into the local expansion */
				if (LET && acc &&
				    (isfar = far_add<true>(far_buf[threadIdx.x >> 5], lane, far2, box,
				                  make_float4(M.x, M.y, M.z, M.m),
				                  P.quadrupole ? make_float4(M.qxx, M.qxy, M.qxz, M.qyy)
				                               : make_float4(0.f, 0.f, 0.f, 0.f),
				                  P.quadrupole ? make_float4(M.qyz, M.qzz, 0.f, 0.f)
				                               : make_float4(0.f, 0.f, 0.f, 0.f),
				                  P.soft_h ? M.eps : P.eps, ge)))
					acc = false;
			}
			if (LET) anyfar |= __any_sync(full, isfar);
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
				bh_m2p(&a, me.x, me.y, me.z, &M, bh_soft2(me_e, P.soft_h ? M.eps : P.eps),
				       P.quadrupole);
			}
			for (unsigned m = __ballot_sync(full, leaf); m; m &= m - 1) {
				int32_t c = __shfl_sync(full, node, __ffs(m) - 1);
				int32_t b = cells[c].pbegin, e = cells[c].pend;
				for (int32_t j0 = b; j0 < e; j0 += 32) {
					bh_body s = {0.f, 0.f, 0.f, 0.f};
					float se = 0.f;
					if (j0 + lane < e) {
						s = src[j0 + lane];
						/* each its own softening: the local velocities' first word,
						 * or the one received with the essential nodes */
						se = !P.soft_h ? P.eps : seps[(size_t)(LET ? 1 : 4) * (j0 + lane)];
					}
					int cnt = min(32, e - j0);
					for (int j = 0; j < cnt; j++) {
						bh_body t;
						t.x = __shfl_sync(full, s.x, j);
						t.y = __shfl_sync(full, s.y, j);
						t.z = __shfl_sync(full, s.z, j);
						t.m = __shfl_sync(full, s.m, j);
						float te = __shfl_sync(full, se, j);
						bh_p2p(&a, me.x, me.y, me.z, &t, bh_soft2(me_e, te));
					}
				}
			}
		}
		if (LET && anyfar) {
			bh_acc f = far_eval(far_buf[threadIdx.x >> 5], lane, me.x, me.y, me.z, box);
			a.ax += f.ax; a.ay += f.ay; a.az += f.az; a.pot += f.pot;
		}
		if (active) {
			float self = me_e > 0.f && !LET ? 1.f / me_e : 0.f; /* no self-energy */
			bh_acc o = {P.G * a.ax, P.G * a.ay, P.G * a.az, P.G * (a.pot + me.m * self)};
			bh_acc *d = &out[i - (int32_t)R.r0];
			if (LET) { d->ax += o.ax; d->ay += o.ay; d->az += o.az; d->pot += o.pot; }
			else *d = o;
		}
	}
}

/* ---------------------------------------------------------------------------------------------
 * fast kernel */

/* The fast kernel reads cells, moments and particles as 16-byte vectors (launch_walk checks the
 * pointers' alignment and falls back to classic otherwise). */
static_assert(sizeof(bh_cell) == 32, "bh_cell: two 16-byte vectors");
static_assert(sizeof(bh_mom) == 48, "bh_mom: three 16-byte vectors");
static_assert(sizeof(bh_body) == 16, "bh_body: one 16-byte vector");
static_assert(offsetof(bh_mom, qxx) == 16 && offsetof(bh_mom, qyz) == 32 &&
              offsetof(bh_mom, rcrit2) == 40, "bh_mom layout");
static_assert(offsetof(bh_cell, child) == 16 && offsetof(bh_cell, pend) == 28, "bh_cell layout");

/* Per-warp interaction buffers: 32 accepted multipoles (com and mass; qxx qxy qxz qyy; qyz qzz
 * and two unused words: the moments record as loaded) and 32 source particles.  One array per
 * 16-byte word, so that 32 lanes storing consecutive slots hit consecutive addresses, and the
 * broadcast reads of one slot by all lanes are one shared-memory wavefront. */
struct walk_buffers {
	float4 mp[3][32];
	float4 body[32];
	float mpe[32], pe[32];  /* the multipoles' and the particles' softenings (bh_soft2) */
};

/* The interactions: bh_p2p_fast and bh_m2p_fast of bh_interact.h (MUFU.RSQ), beside the
 * reference forms that the classic kernel uses. */
__device__ __forceinline__ void p2p_fast(bh_acc &a, float x, float y, float z, float4 s, float eps2)
{
	bh_p2p_fast(&a, x, y, z, s.x, s.y, s.z, s.w, eps2);
}

/* c0: com, mass; c1, c2: the quadrupole qxx qxy qxz qyy, qyz qzz (the moments record). */
template <bool QUAD>
__device__ __forceinline__ void m2p_fast(bh_acc &a, float x, float y, float z, float4 c0, float4 c1,
                                         float4 c2, float eps2)
{
	bh_m2p_fast(&a, x, y, z, c0.x, c0.y, c0.z, c0.w, c1.x, c1.y, c1.z, c1.w, c2.x, c2.y, eps2,
	            QUAD);
}

/* Entry slot of the multipole buffer (the quadrupole words only when they are used). */
template <bool QUAD>
__device__ __forceinline__ void put_multipole(walk_buffers &B, int slot, float4 m0, float4 m1, float4 m2,
                                              float e)
{
	B.mp[0][slot] = m0;
	if (QUAD) { B.mp[1][slot] = m1; B.mp[2][slot] = m2; }
	B.mpe[slot] = e;
}

/* The first n entries of the multipole / particle buffer on the lane's particle.  Called with
 * n = 32 (a full buffer: constant trip count) or with the rest at the end of a group. */
template <bool QUAD>
__device__ __forceinline__ void apply_multipoles(bh_acc &a, float x, float y, float z, float e,
                                                 const walk_buffers &B, int n)
{
#pragma unroll 4
	for (int j = 0; j < n; j++) {
		float4 c0 = B.mp[0][j], c1 = make_float4(0.f, 0.f, 0.f, 0.f), c2 = c1;
		if (QUAD) { c1 = B.mp[1][j]; c2 = B.mp[2][j]; }
		m2p_fast<QUAD>(a, x, y, z, c0, c1, c2, bh_soft2(e, B.mpe[j]));
	}
}
__device__ __forceinline__ void apply_particles(bh_acc &a, float x, float y, float z, float e,
                                                const walk_buffers &B, int n)
{
#pragma unroll 8
	for (int j = 0; j < n; j++) p2p_fast(a, x, y, z, B.body[j], bh_soft2(e, B.pe[j]));
}

/* Exclusive prefix sum over the warp; *total: the sum of all lanes. */
__device__ static inline int warp_exclusive_sum(int v, int lane, int *total)
{
	int s = v;
	for (int o = 1; o < 32; o <<= 1) {
		int t = __shfl_up_sync(0xffffffffu, s, o);
		if (lane >= o) s += t;
	}
	*total = __shfl_sync(0xffffffffu, s, 31);
	return s - v;
}

/* 8 blocks of 4 warps per SM caps the registers at 64: no spills (ptxas -v), 32 resident warps.
 * Without the bound ptxas took 72 (28 warps) for quadrupoles and, oddly, 56 with 8-16 bytes of
 * spills for monopoles. */
/* The fast walk of the persistent warps over the groups, against each source tree of S in turn
 * (SRC: walk_one_src, one tree, for bh_walk and bh_walk_let; walk_table_src, the received sets
 * of bh_walk_sets): a group's particles, softenings and box are loaded once, and each source's
 * field is summed from zero and added to out (LET), as one launch per source would. */
template <bool LET, bool QUAD, typename SRC>
__device__ __forceinline__ void
walk_fast_warps(const bh_body *__restrict__ body, const float *__restrict__ vel, const SRC &S,
                const int32_t *meta, const bh_group *groups,
                bh_acc *out, bh_params P, bh_range R, float far, int32_t *counter, int32_t *stacks)
{
	__shared__ walk_buffers buffers[FAST_TPB / 32];
	__shared__ walk_far far_buf[LET ? FAST_TPB / 32 : 1];
	const unsigned full = 0xffffffffu;
	const int lane = threadIdx.x & 31;
	const unsigned below = (1u << lane) - 1u; /* lanes before this one */
	walk_buffers &B = buffers[threadIdx.x >> 5];
	int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
	int32_t *stack = stacks + (size_t)warp * WALK_STACK;
	const float4 *body4 = reinterpret_cast<const float4 *>(body);
	int32_t ng = meta[BH_META_NGROUPS];
	for (;;) {
		int32_t g = 0;
		if (lane == 0) g = atomicAdd(counter, 1);
		g = __shfl_sync(full, g, 0);
		if (g >= ng) break;
		int32_t p0 = max(groups[g].begin, (int32_t)R.r0), p1 = min(groups[g].end, (int32_t)R.r1);
		if (p0 >= p1) continue;
		int32_t i = p0 + lane;
		bool active = i < p1;
		float4 me = __ldg(&body4[active ? i : p0]); /* idle lanes compute for p0, unused */
		float me_e = bh_body_eps(&P, vel, active ? i : p0); /* softening (bh_soft2) */
		bh_box box = warp_box(me.x, me.y, me.z);
		bh_acc sum = {0.f, 0.f, 0.f, 0.f}; /* several sets: acc + the sets' fields so far */
		/* received sets: the far nodes of all sets in one expansion (the CPU's bh_walk_groups) */
		walk_far &F = far_buf[LET ? threadIdx.x >> 5 : 0];
		float ge, far2 = far_start<LET>(F, lane, box, me_e, P, far, &ge);
		bool anyfar = false;
		for (int si = 0; si < S.count(); si++) {
			const bh_cell *cells;
			const bh_mom *mom;
			const bh_body *src;
			const float *seps;
			S.get(si, cells, mom, src, seps);
			const float4 *cell4 = reinterpret_cast<const float4 *>(cells);
			const int4 *celli4 = reinterpret_cast<const int4 *>(cells);
			const float4 *mom4 = reinterpret_cast<const float4 *>(mom);
			const float4 *src4 = reinterpret_cast<const float4 *>(src);
			bh_acc a = {0.f, 0.f, 0.f, 0.f};
			int nmp = 0, npart = 0; /* entries waiting in B.mp / B.body (warp-uniform, < 32) */
			int top = 1;
			if (lane == 0) stack[0] = 0;
			__syncwarp();
			while (top > 0) {
				/* pop up to 32 nodes, one per lane, and test them */
				int nb = min(top, 32), base = top - nb;
				int32_t node = lane < nb ? stack[base + lane] : -1;
				__syncwarp(); /* all popped before the children overwrite the slots */
				bool acc = false;
				int nch = 0, lcount = 0;
				int32_t child = 0, lbegin = 0;
				float4 m0 = make_float4(0.f, 0.f, 0.f, 0.f), m1 = m0, m2 = m0;
				if (node >= 0) {
					float4 cg = __ldg(&cell4[2 * (size_t)node]);     /* cx cy cz half */
					int4 ct = __ldg(&celli4[2 * (size_t)node + 1]);  /* child nchild pbegin pend */
					/* the whole moments record: the test needs words 0-2 and 10, and the
					 * quadrupole (words 4-9) lies in the same two or three 32-byte sectors */
					m0 = __ldg(&mom4[3 * (size_t)node]);
					if (QUAD) m1 = __ldg(&mom4[3 * (size_t)node + 1]);
					m2 = __ldg(&mom4[3 * (size_t)node + 2]);
					bh_cell C;
					C.cx = cg.x; C.cy = cg.y; C.cz = cg.z; C.half = cg.w;
					bh_mom M;
					M.x = m0.x; M.y = m0.y; M.z = m0.z; M.rcrit2 = m2.z;
					acc = (LET && ct.y == BH_LET_MULTIPOLE) || bh_accept(&M, &C, &box);
					if (!acc && ct.y == 0) { lbegin = ct.z; lcount = ct.w - ct.z; }
					if (!acc && ct.y > 0) { nch = ct.y; child = ct.x; }
					if (LET && acc && far_add<QUAD>(F, lane, far2, box, m0, m1, m2,
					                                P.soft_h ? m2.w : P.eps, ge)) {
						acc = false;
						anyfar = true; /* this lane's; the warp's after the sets */
					}
				}
				/* push the children of opened cells (as classic) */
				int total, off = warp_exclusive_sum(nch, lane, &total);
				top = base;
				if (top + total > WALK_STACK) {
					if (lane == 0) printf("tide bh_walk: traversal stack overflow\n");
					total = 0; nch = 0;
				}
				for (int k = 0; k < nch; k++) stack[top + off + k] = child + k;
				top += total;
				__syncwarp(); /* pushed before the next round pops */

				/* accepted nodes: append to the multipole buffer, apply it when it is full */
				unsigned am = __ballot_sync(full, acc);
				if (am) {
					int na = __popc(am);
					int slot = nmp + __popc(am & below);
					float ne = P.soft_h ? m2.w : P.eps; /* the node's: bh_mom.eps */
					if (acc && slot < 32) put_multipole<QUAD>(B, slot, m0, m1, m2, ne);
					if (nmp + na >= 32) {
						__syncwarp();
						apply_multipoles<QUAD>(a, me.x, me.y, me.z, me_e, B, 32);
						__syncwarp();
						if (acc && slot >= 32) put_multipole<QUAD>(B, slot - 32, m0, m1, m2, ne);
					}
					nmp = (nmp + na) & 31; /* nmp + na < 64 */
				}

				/* opened leaves: their particles, laid end to end in lane order, 32 at a time */
				int ptotal, pfirst = warp_exclusive_sum(lcount, lane, &ptotal);
				int pend = pfirst + lcount; /* non-decreasing over the lanes */
				for (int s0 = 0; s0 < ptotal; s0 += 32) {
					int s = s0 + lane;
					/* the owner of slot s: the first lane whose pend exceeds s, i.e. the number
					 * of lanes with pend <= s (lanes without particles are skipped: their pend
					 * equals the next lane's pfirst); binary search over the 32 sorted values */
					int owner = 0;
					for (int step = 16; step; step >>= 1) {
						int e = __shfl_sync(full, pend, owner + step - 1);
						if (e <= s) owner += step;
					}
					int j = __shfl_sync(full, lbegin, owner) + (s - __shfl_sync(full, pfirst, owner));
					int k = min(32, ptotal - s0);
					bool valid = lane < k;
					float4 p = make_float4(0.f, 0.f, 0.f, 0.f);
					float pe = 0.f;
					if (valid) {
						p = __ldg(&src4[j]);
						/* its own softening (local: the velocity's first word) */
						pe = !P.soft_h ? P.eps : __ldg(&seps[(size_t)(LET ? 1 : 4) * j]);
					}
					int slot = npart + lane;
					if (valid && slot < 32) { B.body[slot] = p; B.pe[slot] = pe; }
					if (npart + k >= 32) {
						__syncwarp();
						apply_particles(a, me.x, me.y, me.z, me_e, B, 32);
						__syncwarp();
						if (valid && slot >= 32) { B.body[slot - 32] = p; B.pe[slot - 32] = pe; }
					}
					npart = (npart + k) & 31; /* npart + k < 64 */
				}
			}
			/* what is left in the buffers */
			__syncwarp();
			if (nmp) apply_multipoles<QUAD>(a, me.x, me.y, me.z, me_e, B, nmp);
			if (npart) apply_particles(a, me.x, me.y, me.z, me_e, B, npart);
			__syncwarp(); /* read before the next group writes */
			/* after the last set: the far nodes' expansion, added with the last set's field
			 * (one set: with its own, as the CPU's bh_walk_let) */
			if (LET && si == S.count() - 1 && __any_sync(full, anyfar)) {
				bh_acc f = far_eval(F, lane, me.x, me.y, me.z, box);
				a.ax += f.ax; a.ay += f.ay; a.az += f.az; a.pot += f.pot;
			}
			if (active) {
				float self = me_e > 0.f && !LET ? 1.f / me_e : 0.f; /* no self-energy */
				bh_acc o = {P.G * a.ax, P.G * a.ay, P.G * a.az, P.G * (a.pot + me.w * self)};
				bh_acc *d = &out[i - (int32_t)R.r0];
				if (!LET) {
					*d = o;
				} else if (SRC::one) {
					d->ax += o.ax; d->ay += o.ay; d->az += o.az; d->pot += o.pot;
				} else {
					/* several sets: acc read once and written once, the same additions in
					 * the same order as one launch per set (16 M particles x 127 sets
					 * read and written: 65 GB, ~14 ms of the H200's bandwidth) */
					if (si == 0) sum = *d;
					sum.ax += o.ax; sum.ay += o.ay; sum.az += o.az; sum.pot += o.pot;
					if (si == S.count() - 1) *d = sum;
				}
			}
		} /* sources */
	}
}

/* One source tree, the kernel's arguments. */
struct walk_one_src {
	static constexpr bool one = true;
	const bh_cell *__restrict__ cells;
	const bh_mom *__restrict__ mom;
	const bh_body *__restrict__ src;
	const float *__restrict__ seps;
	__device__ __forceinline__ int count() const { return 1; }
	__device__ __forceinline__ void get(int, const bh_cell *&c, const bh_mom *&m, const bh_body *&s,
	                                    const float *&e) const
	{
		c = cells; m = mom; s = src; e = seps;
	}
};

template <bool LET, bool QUAD>
__global__ static void __launch_bounds__(FAST_TPB, 8)
walk_fast_kernel(const bh_body *__restrict__ body, const float *__restrict__ vel,
                 const bh_cell *__restrict__ cells, const bh_mom *__restrict__ mom,
                 const bh_body *__restrict__ src, const float *__restrict__ seps,
                 const int32_t *meta, const bh_group *groups,
                 bh_acc *out, bh_params P, bh_range R, float far, int32_t *counter, int32_t *stacks)
{
	const walk_one_src S = {cells, mom, src, seps};
	walk_fast_warps<LET, QUAD>(body, vel, S, meta, groups, out, P, R, far, counter, stacks);
}

/* ---------------------------------------------------------------------------------------------
 * launch */

/* TIDE_BH_WALK: "fast" (default, also when unset or empty) or "classic". */
static bool walk_use_fast(void)
{
	const char *e = getenv("TIDE_BH_WALK");
	if (!e || !*e || !strcmp(e, "fast")) return true;
	if (!strcmp(e, "classic")) return false;
	static int warned = 0;
	if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
		fprintf(stderr, "tide bh_walk: TIDE_BH_WALK must be 'fast' or 'classic', not '%s'; using "
		                "fast.\n", e);
	return true;
}

template <typename K>
static int walk_blocks(K kernel, int tpb)
{
	int dev = 0, sms = 1, per_sm = 1;
	cudaGetDevice(&dev);
	cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
	cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, tpb, 0);
	int blocks = sms * (per_sm > 0 ? per_sm : 1);
	if (blocks * (tpb / 32) > WALK_MAX_WARPS) blocks = WALK_MAX_WARPS / (tpb / 32);
	return blocks;
}

/* Launches the persistent warps over the groups of the particles [r0, r1). */
template <bool LET>
static void launch_walk(const bh_body *body, const float *vel, const bh_cell *cells,
                        const bh_mom *mom, const bh_body *src, const float *seps,
                        const int32_t *meta,
                        const bh_group *groups, bh_acc *out, bh_params P, bh_range R,
                        float far, void *scratch_buf)
{
	char *scr = (char *)STARPU_VECTOR_GET_PTR(scratch_buf);
	size_t scr_bytes = STARPU_VECTOR_GET_NX(scratch_buf) * STARPU_VECTOR_GET_ELEMSIZE(scratch_buf);
	STARPU_ASSERT_MSG(scr_bytes >= tide_bh_walk_cuda_scratch_bytes(), "bh_walk scratch too small");
	if (R.r1 <= R.r0) return;
	cudaStream_t s = starpu_cuda_get_local_stream();
	int32_t *counter = (int32_t *)scr;
	int32_t *stacks = (int32_t *)(scr + 256);
	TIDE_CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof(int32_t), s));
	/* the fast kernel's vector loads need 16-byte aligned arrays (device allocations are) */
	bool aligned = (((uintptr_t)body | (uintptr_t)cells | (uintptr_t)mom | (uintptr_t)src) & 15) == 0;
	if (walk_use_fast() && aligned) {
		if (P.quadrupole) {
			walk_fast_kernel<LET, true><<<walk_blocks(walk_fast_kernel<LET, true>, FAST_TPB), FAST_TPB, 0,
			                              s>>>(body, vel, cells, mom, src, seps, meta, groups, out, P, R,
			                                   far, counter, stacks);
		} else {
			walk_fast_kernel<LET, false><<<walk_blocks(walk_fast_kernel<LET, false>, FAST_TPB), FAST_TPB,
			                               0, s>>>(body, vel, cells, mom, src, seps, meta, groups, out, P,
			                                       R, far, counter, stacks);
		}
	} else {
		walk_kernel<LET><<<walk_blocks(walk_kernel<LET>, WALK_TPB), WALK_TPB, 0, s>>>(
		        body, vel, cells, mom, src, seps, meta, groups, out, P, R, far, counter, stacks);
	}
	TIDE_CUDA_CHECK(cudaGetLastError());
}

#endif
