// SPDX-License-Identifier: LGPL-2.1-or-later
// sph_forces on the GPU: one thread block per cell of the block's box, the same pair physics as
// the CPU (tide_pair of sph_interact.h); the step reduction is combined per thread block in
// shared memory and then with one atomic per field into the worker's private reduction copy.
#include <cfloat>
#include <type_traits>
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/block_interface.h"
#include "tide/codelets.h"
}
#include "tide/sph_interact.h"
#include "tide/cell_split.h"

/* The cells a launch computes (include/tide/cell_split.h): its part, the box's interior. */
struct tide_cell_sel {
	int part;
	tide_block_arg I;
};
/* Whether the cell of global key `key` (one of the block's) is in the launch's part. */
__device__ static inline bool key_in_part(const tide_cell_sel &S, const tide_grid &g, uint32_t key)
{
	int k[3];
	tide_key_cell(&g, key, k);
	return tide_cell_in_part(S.part, &S.I, k);
}

/* ---- cell-tiled kernel: one thread block per cell ------------------------------------------
 * The threads of a block are the particles of one cell; for each of the 9 rows of neighbour
 * cells they load the row's particles once into shared memory, as float positions relative to
 * the cell's corner (the double subtraction and conversion are done once per particle and tile,
 * not once per pair) together with each neighbour's pressure term and sound speed.  The part of a
 * row inside the block's box comes from the cell-start table; the rest (rows on the box's edge)
 * from the neighbours' halos, sorted by global key, by binary search.
 *
 * A warp then works through a tile in two passes.  With cells of side 2h only about one
 * candidate in seven of the 27 cells lies inside the support, but the candidates of a tile are in
 * range of some lane almost every time, so a loop that tests and computes runs the whole pair
 * physics for every candidate on every lane.  The first pass only tests (a dozen instructions a
 * candidate, the tile's positions read as broadcasts) and keeps each lane's 64-bit mask of the
 * neighbours in range.  How many neighbours a lane has in one tile depends on where it sits in
 * its cell (a particle near the face toward the tile's cell has many, one at the far side few:
 * on a lattice the per-tile maxima over a warp add up to 2.6 times the 250 neighbours each
 * particle has), so the second pass shares the warp's pairs out evenly: the pairs of the tile are
 * numbered lane by lane, each lane evaluates a contiguous run of ceil(pairs / 32) of them, for
 * whichever particles they belong to, and the partial sums of a particle split between lanes are
 * added by its own lane afterwards in a fixed order (deterministic, no atomics). */
#define TILE 64
#define WARPS (TILE / 32)
/* A boundary particle's tile entry carries BOUND_R2 in w, which a boundary particle of the warp
 * adds to the squared distance: boundary pairs fall out of the range test with no test of
 * their own.  (A particle's own entry stays in: a zero distance contributes nothing.) */
#define BOUND_R2 1e30f
struct tile {
	float4 p[TILE];  /* x, y, z relative to the cell's corner; w: 0 fluid, BOUND_R2 boundary */
	float4 v[TILE];  /* vx, vy, vz, rho */
	float2 pc[TILE]; /* p / rho^2, speed of sound */
	float f[TILE];   /* floating bodies (P.nfloat > 0): k + 1 for body k's particle, else 0 */
};
/* The tile of the launches whose walls are mirrored (mDBC noslip/freeslip, tide_walls_mirrored):
 * each entry's own velocity too, which continuity and the contact read (sph_pair.h,
 * tide_wall_velocity); the other launches keep the plain tile's shared memory. */
struct tile_o : tile {
	float3 o[TILE];
};

/* A warp's particles, their pair masks and sums (shared memory, one per warp). */
struct wshare {
	float4 ip[32];                /* x, y, z relative to the cell's corner; w: 1 for fluid */
	float4 iv[32];                /* vx, vy, vz, rho */
	float2 ipc[32];               /* p / rho^2, speed of sound */
	unsigned long long mask[32];  /* neighbours in the current tile */
	int incl[32];                 /* inclusive prefix sum of the lanes' pair counts */
	tide_acc whole[32];           /* a particle's sums over a tile when one lane had them all */
	tide_acc head[32], tail[32];  /* a lane's first / last run of pairs when split */
};

/* What the kernel reads of a block or a halo. */
struct hview {
	const double *x, *y, *z;
	const float *vx, *vy, *vz, *rho;
	const uint8_t *type;
	const uint32_t *key;
	uint32_t count;
	const uint32_t *id;
};
struct halos {
	hview h[TIDE_MAX_NEIGHBOURS];
	int n;
};
__host__ __device__ static hview hview_of(const tide_block_view &v)
{
	/* the keys: a halo's (the block's own particles are found by its cell starts) */
	return hview{v.x, v.y, v.z, v.vx, v.vy, v.vz, v.rho, v.type, tide_halo_keys(&v), v.count, v.id};
}

__device__ static inline void acc_add(tide_acc &a, const tide_acc &b)
{
	a.ax += b.ax; a.ay += b.ay; a.az += b.az; a.drho += b.drho;
	a.mu_max = fmaxf(a.mu_max, b.mu_max);
}

/* Position of the set bit of rank r (0 = lowest) of m, which has more than r set bits. */
__device__ static inline int nth_set_bit(unsigned long long m, int r)
{
	int pos = 0;
	for (int w = 32; w; w >>= 1) {
		unsigned long long low = m & ((1ull << w) - 1);
		int n = __popcll(low);
		if (r >= n) { r -= n; m >>= w; pos += w; }
	}
	return pos;
}

/* The particle of lane i of this warp, as tide_pair takes it. */
__device__ static inline void load_i(const wshare &W, int i, tide_pi &pi, float &x, float &y,
                                     float &z)
{
	float4 p = W.ip[i], v = W.iv[i];
	float2 pc = W.ipc[i];
	x = p.x; y = p.y; z = p.z;
	pi.fluid = p.w > 0.f ? 1 : p.w < 0.f ? 2 : 0;   /* w: 1 fluid, -(k + 1) floating, 0 boundary */
	pi.vx = v.x; pi.vy = v.y; pi.vz = v.z; pi.rho = v.w;
	pi.p_over_rho2 = pc.x; pi.c = pc.y;
}

/* Bits of the tile entries [0, nt8) within the support of particle me.  The bits are set 8 at a
 * time at fixed positions, so that each candidate costs one predicated OR besides its distance
 * (a bit at a run-time position, a 64-bit shift, select and OR, made the integer pipe the
 * kernel's bottleneck).  BOUNDARY: the warp has boundary particles, for which the entries'
 * BOUND_R2 counts; warps of fluid alone (most) skip that term. */
template <bool BOUNDARY>
__device__ static inline unsigned long long near_mask(const tile &T, float4 me, uint32_t nt8,
                                                      float h2x4)
{
	/* 1: me is a fixed boundary particle; a floating one (w < 0) sees every candidate, those of
	 * its own body dropped in tile_pass */
	const float bw = me.w != 0.f ? 0.f : 1.f;
	uint32_t lo = 0, hi = 0;
	for (uint32_t k0 = 0; k0 < nt8; k0 += 8) {
		uint32_t b = 0;
#pragma unroll
		for (int j = 0; j < 8; j++) {
			float4 q = T.p[k0 + j];
			float dx = me.x - q.x, dy = me.y - q.y, dz = me.z - q.z;
			float r2 = fmaf(dx, dx, fmaf(dy, dy, BOUNDARY ? fmaf(dz, dz, bw * q.w) : dz * dz));
			if (r2 < h2x4) b |= 1u << j;
		}
		if (k0 < 32) lo |= b << k0;
		else hi |= b << (k0 - 32);
	}
	return (unsigned long long)hi << 32 | lo;
}

/* Pairs of the warp's particles with src[ja, jb), a tile at a time (all threads call it with the
 * same range: it synchronises), added to acc.  active: this thread has a particle (in W at its
 * lane) whose pair sums are used.  CONTACT (floating bodies under mDBC, tide_contact_force): a
 * floating particle meets another body's by the contact force of sph_pair.h; a template
 * parameter because the loop runs at its register limit and the branch made ptxas spill more
 * in the runs without it. */
template <int KERNEL, int DIFFUSION, bool CONTACT, bool OWN>
__device__ static void tile_pass(const tide_sph_params &P, tile &T, wshare &W, const hview &src,
                                 uint32_t ja, uint32_t jb, const double o[3], bool active,
                                 tide_acc &acc)
{
	const unsigned full = 0xffffffffu;
	const int lane = threadIdx.x & 31;
	for (uint32_t t0 = ja; t0 < jb; t0 += TILE) {
		uint32_t nt = jb - t0 < TILE ? jb - t0 : TILE;
		uint32_t nt8 = (nt + 7) & ~7u; /* the test runs over groups of 8 entries */
		__syncthreads();
		if (threadIdx.x >= nt && threadIdx.x < nt8) /* padding, out of everyone's range */
			T.p[threadIdx.x] = make_float4(1e18f, 1e18f, 1e18f, 0.f);
		if (threadIdx.x < nt) {
			uint32_t j = t0 + threadIdx.x, k = threadIdx.x;
			float rj = src.rho[j];
			/* a floating body's particle: FLT_MIN, a boundary type whose w a fixed boundary
			 * particle's test does not exclude (contact: sph_forces.c) */
			int fk = P.nfloat && src.type[j] == TIDE_BOUND ? tide_floating_index(&P, src.id[j]) : -1;
			T.p[k] = make_float4((float)(src.x[j] - o[0]), (float)(src.y[j] - o[1]),
			                     (float)(src.z[j] - o[2]),
			                     fk >= 0 ? FLT_MIN : src.type[j] == TIDE_BOUND ? BOUND_R2 : 0.f);
			if (P.nfloat) T.f[k] = (float)(fk + 1);
			T.v[k] = make_float4(src.vx[j], src.vy[j], src.vz[j], rj);
			if (OWN) {
				float ov[3];
				tide_wall_velocity(&P, src.type[j], P.nfloat || P.nwall ? src.id[j] : 0u,
				                   src.x[j], src.y[j], src.z[j], src.vx[j], src.vy[j],
				                   src.vz[j], ov);
				static_cast<tile_o &>(T).o[k] = make_float3(ov[0], ov[1], ov[2]);
			}
			T.pc[k] = make_float2(tide_p_over_rho2(&P, rj), tide_sound(&P, rj));
		}
		__syncthreads();
		/* pass 1: which candidates are neighbours (a boundary particle sees only fluid) */
		unsigned long long near = 0;
		float4 me = W.ip[lane];
		bool all_fluid = __all_sync(full, !active || me.w != 0.f);
		if (active)
			near = all_fluid ? near_mask<false>(T, me, nt8, P.h2x4)
			                 : near_mask<true>(T, me, nt8, P.h2x4);
		/* number the warp's pairs lane by lane */
		int cnt = __popcll(near), incl = cnt;
		for (int d = 1; d < 32; d <<= 1) {
			int y = __shfl_up_sync(full, incl, d);
			if (lane >= d) incl += y;
		}
		int total = __shfl_sync(full, incl, 31);
		if (total == 0) continue; /* the same for the whole warp */
		W.mask[lane] = near;
		W.incl[lane] = incl;
		__syncwarp();
		/* pass 2: this lane's run [p, pend) of the warp's pairs */
		int run = (total + 31) >> 5;
		int p = lane * run, pend = min(p + run, total);
		if (p < pend) {
			int i = 0; /* the particle whose pairs hold number p: first lane with incl > p */
			for (int w = 16; w; w >>= 1)
				if (W.incl[i + w - 1] <= p) i += w;
			unsigned long long m = W.mask[i];
			int r = p - (W.incl[i] - __popcll(m)); /* p's rank among i's pairs */
			bool head = r > 0;                      /* this run starts inside i's pairs */
			m &= ~0ull << nth_set_bit(m, r);
			tide_pi pi;
			float xi, yi, zi;
			load_i(W, i, pi, xi, yi, zi);
			tide_acc a = {0.f, 0.f, 0.f, 0.f, 0.f};
			for (; p < pend; p++) {
				if (m == 0) {
					/* i's pairs are done: a run that began inside them is the head of
					 * this lane, otherwise this lane had all of i's pairs of the tile */
					*(head ? &W.head[lane] : &W.whole[i]) = a;
					head = false;
					do i++; while (W.mask[i] == 0);
					m = W.mask[i];
					load_i(W, i, pi, xi, yi, zi);
					a = tide_acc{0.f, 0.f, 0.f, 0.f, 0.f};
				}
				int k = __ffsll((long long)m) - 1;
				m &= m - 1;
				/* a floating particle meets its own body's particles: no pair (nor with a
				 * fixed boundary particle when it is one: BOUND_R2 left those out) */
				if (pi.fluid == 2 && T.f[k] == -W.ip[i].w) continue;
				float4 q = T.p[k], w = T.v[k];
				float2 pc = T.pc[k];
				float oxj = w.x, oyj = w.y, ozj = w.z; /* j's own velocity */
				if (OWN) {
					float3 ov = static_cast<tile_o &>(T).o[k];
					oxj = ov.x; oyj = ov.y; ozj = ov.z;
				}
				float dx = xi - q.x, dy = yi - q.y, dz = zi - q.z;
				float r2 = dx * dx + dy * dy + dz * dz;
				if (CONTACT && pi.fluid == 2 && q.w != 0.f) {
					/* mDBC: another body's particle meets it by the contact force */
					tide_pair_contact(&P, dx, dy, dz, r2, pi.vx - oxj, pi.vy - oyj,
					                  pi.vz - ozj, &a);
					continue;
				}
				tide_pair_k(&P, KERNEL, DIFFUSION, &pi, dx, dy, dz, r2, w.x, w.y, w.z, oxj, oyj,
				            ozj, w.w, q.w != 0.f ? TIDE_BOUND : TIDE_FLUID, pc.x, pc.y, &a);
			}
			/* begun inside i's pairs (and maybe ending inside), ending inside i's pairs
			 * (continued by the next lanes), or all of them */
			*(head ? &W.head[lane] : m ? &W.tail[lane] : &W.whole[i]) = a;
		}
		__syncwarp();
		/* each particle adds its sums: those of the one lane that had all its pairs, or, split
		 * between lanes ta < tb, the tail of ta and the heads of ta+1 .. tb, in that order */
		if (cnt) {
			int ta = (incl - cnt) / run, tb = (incl - 1) / run;
			if (ta == tb) {
				acc_add(acc, W.whole[lane]);
			} else {
				tide_acc s = W.tail[ta];
				for (int u = ta + 1; u <= tb; u++) acc_add(s, W.head[u]);
				acc_add(acc, s);
			}
		}
		__syncwarp();
	}
}

/* The step record of a CUDA thread block (CFL time step, health, speed and density range),
 * gathered in shared memory and folded into the launch's record once per block: one home for
 * both force kernels (forces_cell_kernel, forces_sps_kernel). */
struct block_rec { float dt, vmax, rmin, rmax; unsigned bad; };
__device__ __forceinline__ static void rec_init(block_rec &r)
{
	r.dt = 3.0e38f; r.vmax = 0.f; r.rmin = 3.0e38f; r.rmax = 0.f; r.bad = 0;
}
/* Particle i's accelerations and density rate: its time-step bound, or a bad count. */
__device__ __forceinline__ static void rec_particle(block_rec &r, const tide_sph_params &P,
                                                    const tide_acc &acc, float rho, int fluid,
                                                    float vx, float vy, float vz)
{
	if (!isfinite(acc.ax + acc.ay + acc.az + acc.drho) || !isfinite(rho))
		atomicAdd(&r.bad, 1u);
	else
		atomic_min_pos(&r.dt, tide_particle_dt(&P, &acc, rho, fluid));
	if (fluid) {
		float sp = sqrtf(vx * vx + vy * vy + vz * vz);
		if (isfinite(sp)) atomic_max_pos(&r.vmax, sp);
		if (isfinite(rho) && rho > 0.f) {
			atomic_min_pos(&r.rmin, rho);
			atomic_max_pos(&r.rmax, rho);
		}
	}
}
__device__ __forceinline__ static void rec_flush(const block_rec &r, tide_step_reduce *red)
{
	atomic_min_pos(&red->dt, r.dt);
	atomic_max_pos(&red->vmax, r.vmax);
	atomic_min_pos(&red->rho_min, r.rmin);
	atomic_max_pos(&red->rho_max, r.rmax);
	if (r.bad) atomicAdd(&red->nbad, r.bad);
}

template <int KERNEL, int DIFFUSION, bool CONTACT, bool OWN>
__global__ static void __launch_bounds__(TILE, 16) /* 64 registers: 32 warps per SM */
forces_cell_kernel(tide_sph_params P, tide_block_arg A, tide_block_view v, const uint32_t *start,
                   halos H, tide_step_reduce *red, tide_cell_sel S)
{
	__shared__ typename std::conditional<OWN, tile_o, tile>::type T;
	__shared__ wshare Ws[WARPS];
	__shared__ block_rec R;
	wshare &W = Ws[threadIdx.x >> 5];
	const int lane = threadIdx.x & 31;
	uint32_t cell = blockIdx.x;
	uint32_t ca = start[cell], cb = start[cell + 1];
	if (ca == cb) return; /* the whole block leaves together */
	const tide_grid &g = P.grid;
	int n0 = g.n[g.axis[0]], n1 = g.n[g.axis[1]], n2 = g.n[g.axis[2]];
	int k[3];
	tide_key_cell(&g, tide_box_key(&g, &A, cell), k);
	/* a cell of the other part (include/tide/cell_split.h): its task's; the same pairs in the
	 * same order as unsplit for the cells of this one */
	if (!tide_cell_in_part(S.part, &S.I, k)) return;
	if (threadIdx.x == 0) rec_init(R);
	double o[3];
	for (int j = 0; j < 3; j++) o[g.axis[j]] = g.origin[g.axis[j]] + (double)k[j] * (double)g.cell;
	int c2lo = k[2] > 0 ? k[2] - 1 : 0, c2hi = k[2] < n2 - 1 ? k[2] + 1 : n2 - 1;
	/* the part of a row inside the box */
	int o2lo = c2lo > A.lo2 ? c2lo : A.lo2, o2hi = c2hi < A.hi2 - 1 ? c2hi : A.hi2 - 1;
	hview own = hview_of(v);
	for (uint32_t i0 = ca; i0 < cb; i0 += TILE) {
		uint32_t i = i0 + threadIdx.x;
		bool active = i < cb;
		bool seek = false; /* active, and its pair sums are used (tide_pair_sums_used) */
		float rho = 0.f;
		int fluid = 0, flt = 0;
		tide_acc acc = {0.f, 0.f, 0.f, 0.f, 0.f};
		__syncwarp();
		W.ip[lane] = make_float4(0.f, 0.f, 0.f, 0.f);
		if (active) {
			rho = v.rho[i];
			fluid = v.type[i] == TIDE_FLUID;
			flt = !fluid && tide_is_floating(&P, v.id[i]);
			W.ip[lane] = make_float4((float)(v.x[i] - o[0]), (float)(v.y[i] - o[1]),
			                         (float)(v.z[i] - o[2]),
			                         fluid ? 1.f : flt ? -(float)(tide_floating_index(&P, v.id[i]) + 1) : 0.f);
			W.iv[lane] = make_float4(v.vx[i], v.vy[i], v.vz[i], rho);
			W.ipc[lane] = make_float2(tide_p_over_rho2(&P, rho), tide_sound(&P, rho));
			/* a floating body's particle always seeks its pairs (its force) */
			seek = tide_pair_sums_used(&P, fluid) || flt;
		}
		__syncwarp();
		/* a wall cell under mDBC (no particle seeks pairs) skips the row passes altogether */
		if (__syncthreads_or(seek))
		for (int lc = k[0] - 1; lc <= k[0] + 1; lc++) {
			if (lc < 0 || lc >= n0) continue;
			for (int c1 = k[1] - 1; c1 <= k[1] + 1; c1++) {
				if (c1 < 0 || c1 >= n1) continue;
				int inbox = lc >= A.l0 && lc < A.l1 && c1 >= A.lo1 && c1 < A.hi1;
				if (inbox) {
					int ka[3] = {lc, c1, o2lo}, kb[3] = {lc, c1, o2hi};
					tile_pass<KERNEL, DIFFUSION, CONTACT, OWN>(P, T, W, own, start[tide_box_index(&A, ka)],
					          start[tide_box_index(&A, kb) + 1], o, seek, acc);
				}
				if (inbox && o2lo == c2lo && o2hi == c2hi) continue;
				uint32_t row = ((uint32_t)lc * (uint32_t)n1 + (uint32_t)c1) * (uint32_t)n2;
				for (int h = 0; h < H.n; h++) {
					const hview &src = H.h[h];
					uint32_t ja = tide_lower_bound(src.key, src.count, row + (uint32_t)c2lo);
					uint32_t jb = tide_lower_bound(src.key, src.count, row + (uint32_t)c2hi + 1);
					tile_pass<KERNEL, DIFFUSION, CONTACT, OWN>(P, T, W, src, ja, jb, o, seek, acc);
				}
			}
		}
		__syncwarp();
		if (active) {
			if (fluid) {
				acc.ax += P.g[0]; acc.ay += P.g[1]; acc.az += P.g[2];
			} else if (!flt) { /* floating: the pair terms alone (sph_forces.c) */
				acc.ax = acc.ay = acc.az = 0.f;
			}
			if (CONTACT && flt) {
				/* a floating particle under mDBC: its continuity sum and signal speed are
				 * not used (tide_pair_sums_used), 0 as on the CPU; only here, where the
				 * launch has floating bodies under mDBC (elsewhere it cost spills) */
				acc.drho = 0.f;
				acc.mu_max = 0.f;
			}
			v.ax[i] = acc.ax; v.ay[i] = acc.ay; v.az[i] = acc.az; v.drho[i] = acc.drho;
			float4 vi = W.iv[lane];
			rec_particle(R, P, acc, rho, fluid, vi.x, vi.y, vi.z);
		}
	}
	__syncthreads();
	if (threadIdx.x == 0) rec_flush(R, red);
}

#include "sph_forces_sps.cuh" /* laminar+sps: its own kernel */

/* The cell kernel for kernel and diffusion kd = 3 (Wendland) + diffusion. */
template <bool CONTACT, bool OWN>
static void launch_cell(int kd, uint32_t ncell, cudaStream_t s, const tide_sph_params &P,
                        const tide_block_arg &A, const tide_block_view &v, const uint32_t *start,
                        const halos &H, tide_step_reduce *red, const tide_cell_sel &S)
{
	auto launch = [&](auto kern) { kern<<<ncell, TILE, 0, s>>>(P, A, v, start, H, red, S); };
	switch (kd) {
	case 0: launch(forces_cell_kernel<TIDE_KERNEL_CUBIC, 0, CONTACT, OWN>); break;
	case 1: launch(forces_cell_kernel<TIDE_KERNEL_CUBIC, 1, CONTACT, OWN>); break;
	case 2: launch(forces_cell_kernel<TIDE_KERNEL_CUBIC, 2, CONTACT, OWN>); break;
	case 3: launch(forces_cell_kernel<TIDE_KERNEL_WENDLAND, 0, CONTACT, OWN>); break;
	case 4: launch(forces_cell_kernel<TIDE_KERNEL_WENDLAND, 1, CONTACT, OWN>); break;
	default: launch(forces_cell_kernel<TIDE_KERNEL_WENDLAND, 2, CONTACT, OWN>); break;
	}
}

/* Buffers: block, cell starts, step reduction, then the nh halos. */
extern "C" void tide_sph_forces_cuda(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_block_arg A;
	int nh;
	tide_cell_sel S;
	starpu_codelet_unpack_args(cl_arg, &P, &A, &nh, &S.part, 0);
	STARPU_ASSERT(nh >= 0 && nh <= TIDE_MAX_NEIGHBOURS);
	STARPU_ASSERT(S.part != TIDE_CELLS_INTERIOR || nh == 0);
	S.I = tide_box_interior(&P.grid, &A, TIDE_FORCES_REACH);
	tide_block_view v = tide_block_view_of(buffers[0]);
	/* an empty block still reports its count and fill (zero) through the reduction's init */
	if (v.count == 0) return;
	const uint32_t *start = (const uint32_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
	tide_step_reduce *red = (tide_step_reduce *)STARPU_VARIABLE_GET_PTR(buffers[2]);
	halos H;
	H.n = nh;
	float fill = tide_fill_of(v.count, v.cap, 0, 0, 0, 0);
	for (int h = 0; h < nh; h++) {
		tide_block_view hv = tide_block_view_of(buffers[3 + h]);
		H.h[h] = hview_of(hv);
		float f = tide_fill_of(hv.count, hv.cap, 0, 0, 0, 0);
		if (f > fill) fill = f;
	}
	cudaStream_t s = starpu_cuda_get_local_stream();
	uint32_t ncell = (uint32_t)STARPU_VECTOR_GET_NX(buffers[1]) - 1;
	/* the block's count once: with the boundary part (or unsplit) */
	tide_count_fill_kernel<<<1, 1, 0, s>>>(S.part == TIDE_CELLS_INTERIOR ? 0u : v.count, fill, red);
	if (P.viscosity == TIDE_VISC_LAMINAR_SPS) {
		sph_forces_sps_launch(P, A, v, start, buffers, nh, red, s, S);
		TIDE_CUDA_CHECK(cudaGetLastError());
		return;
	}
	/* one kernel per smoothing kernel and density diffusion: their branches fold away */
	STARPU_ASSERT(P.diffusion >= 0 && P.diffusion <= 2);
	int kd = 3 * (P.kernel == TIDE_KERNEL_WENDLAND) + P.diffusion;
	bool contact = P.nfloat && tide_contact_force(&P);   /* the contact force (tile_pass) */
	bool own = tide_walls_mirrored(&P);   /* the walls' own velocities (tile_o) */
	if (!contact && !own) launch_cell<false, false>(kd, ncell, s, P, A, v, start, H, red, S);
	else if (!own) launch_cell<true, false>(kd, ncell, s, P, A, v, start, H, red, S);
	else if (!contact) launch_cell<false, true>(kd, ncell, s, P, A, v, start, H, red, S);
	else launch_cell<true, true>(kd, ncell, s, P, A, v, start, H, red, S);
	TIDE_CUDA_CHECK(cudaGetLastError());
}
