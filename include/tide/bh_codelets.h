/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The Barnes–Hut gravity codelets (codelets/bh_*.c, CPU + CUDA).  Every vector handle is
 * registered with at least one element so that empty inputs are valid; the particle count is a
 * codelet argument (bh_count). */
#ifndef TIDE_BH_CODELETS_H
#define TIDE_BH_CODELETS_H
#include <starpu.h>
#include <stddef.h>
#include <stdint.h>
#include "tide/bh_tree.h"
#include "tide/let_interface.h"

/* bh_build.  Buffers: bodies (RW, bh_body), velocities (RW, float4, permuted with the bodies),
 * cells (W, bh_cell[bh_max_cells]), meta (W, int32[BH_META_LEN]), groups (W, bh_group),
 * scratch (bh_build_scratch_bytes).  Args: uint32_t n, bh_cell universe (the ranks' common
 * root, half 0: none), int leaf (the split threshold, tide_bh_leaf).  Sorts the particles into
 * Morton order and builds the octree and the walk groups. */
extern struct starpu_codelet tide_bh_build_cl;
size_t bh_build_scratch_bytes(uint32_t n);
/* The fill argument of bh_cell_groups for this build: TIDE_BH_GROUPS=cells (default,
 * BH_GROUP_CELL), cells:K, or leaves (0); read at every build. */
int tide_bh_group_fill(void);
/* The split threshold of the build for the parameters P: a cell of more particles is split.
 * BH_LEAF without softening (P->eps == 0, no soft_h), BH_LEAF_SOFT with; TIDE_BH_LEAF (an
 * integer BH_LEAF_MIN .. BH_LEAF_MAX; anything else: a warning and the default) chooses
 * another.  Every rank of a run must use the same (the essential-node buffers are sized with it). */
int tide_bh_leaf(const bh_params *P);

/* bh_moments.  Buffers: bodies (R), cells (R), meta (R), moments (W, bh_mom), velocities (R:
 * the bodies' softenings with bh_params.soft_h, bh_body_eps).  Args: bh_params.  Bottom-up
 * mass, centre of mass, quadrupole, rcrit and largest softening of every cell. */
extern struct starpu_codelet tide_bh_moments_cl;

/* bh_walk.  Buffers: bodies (R), cells (R), moments (R), meta (R), groups (R),
 * acc (W, float4 ax, ay, az, potential for the particles [r0, r1) in Morton order),
 * scratch (bh_walk_scratch_bytes), velocities (R: the softenings, as for bh_moments; pairs
 * softened by bh_soft2).  Args: bh_params, bh_range. */
typedef struct bh_range {
	uint32_t r0, r1;
} bh_range;
extern struct starpu_codelet tide_bh_walk_cl;
size_t bh_walk_scratch_bytes(void);

/* bh_walk_let: the field of the essential nodes received from one other rank, added to acc.
 * Buffers: bodies (R), meta (R), groups (R), received nodes (R, let_interface.h), acc (RW, as for
 * bh_walk), scratch (bh_walk_scratch_bytes), velocities (R, the targets' softenings).  Args:
 * bh_params, bh_range.  With soft_h a received particle is softened by its own softening (sent
 * beside it, bh_let_eps), a received multipole by its cell's largest (bh_mom.eps), as in the
 * local walk. */
extern struct starpu_codelet tide_bh_walk_let_cl;

/* bh_vroot: this rank's virtual root.  Buffers: meta (R), moments (R), cells (R), vroot (W, one
 * bh_vroot).  Args: uint32_t n, int fill (tide_bh_group_fill: how the walk groups were cut), int
 * kmax (boxes of the cover, 1 .. BH_VROOT_BOXES; bh_vroot_cover). */
extern struct starpu_codelet tide_bh_vroot_cl;

/* bh_vgather: a round of the virtual roots' recursive doubling (tasks/gravity.c).  Buffers: out
 * (W, vector), then the blocks placed into it one after the other (R, vectors of out's element
 * size whose lengths add up to out's).  No args. */
extern struct starpu_codelet tide_bh_vgather_cl;

/* bh_essential: the essential nodes of this rank's tree for another rank.  Buffers: bodies (R),
 * cells (R), moments (R), virtual roots (R: the other rank's is element vi), out (W, let_interface.h, capacity: this
 * rank's bh_max_cells and particle count), scratch (BH_ESSENTIAL_SCRATCH bytes), velocities (R:
 * the bodies' softenings, bh_body_eps, sent with the leaves' particles).  Args: uint32_t n (this
 * rank's particles), int whole (1: every cell opened, the whole tree sent: for tests), float far2
 * (>= 0: the coarse tree for far ranks, see bh_let_kind_far; the vroot given is then this rank's
 * own and only says whether it has particles; < 0: the nodes for the vroot's box), bh_params,
 * uint32_t vi (which element of the virtual roots' buffer: 0 for one rank's handle, the rank's
 * place in the buffer gathered by recursive doubling). */
extern struct starpu_codelet tide_bh_essential_cl;
#define BH_ESSENTIAL_SCRATCH 64

/* The buffers and arguments of a bh_essential task (codelets/bh_essential.*), unpacked once for
 * the CPU and CUDA versions; the output's counts are reset to an empty buffer. */
typedef struct bh_essential_io {
	uint32_t n;            /* the sender's particles */
	int whole;             /* send the whole tree (tests) */
	float far2;            /* >= 0: the coarse tree for every box at least sqrt(far2) away
	                        * (bh_let_kind_far; vroot is then the sender's own), < 0: the
	                        * essential nodes for the receiver's box */
	const bh_body *body;
	const bh_cell *cells;
	const bh_mom *mom;
	bh_params P;           /* the softenings: bh_body_eps */
	const bh_vroot *vroot; /* the receiver's */
	const float *vel;      /* the sender's bodies' velocities (softenings) */
	struct tide_let_iface *out;
	bh_cell *oc;           /* the output's cells, moments, particles and their softenings */
	bh_mom *om;
	bh_body *op;
	float *oe;
	void *scratch;
} bh_essential_io;

static inline bh_essential_io bh_essential_unpack(void *buffers[], void *cl_arg)
{
	bh_essential_io io;
	uint32_t vi;
	starpu_codelet_unpack_args(cl_arg, &io.n, &io.whole, &io.far2, &io.P, &vi, 0);
	io.body = (const bh_body *)STARPU_VECTOR_GET_PTR(buffers[0]);
	io.cells = (const bh_cell *)STARPU_VECTOR_GET_PTR(buffers[1]);
	io.mom = (const bh_mom *)STARPU_VECTOR_GET_PTR(buffers[2]);
	io.vroot = (const bh_vroot *)STARPU_VECTOR_GET_PTR(buffers[3]) + vi;
	io.out = TIDE_LET_IFACE(buffers[4]);
	io.oc = bh_let_cells((void *)io.out->ptr);
	io.om = bh_let_moms((void *)io.out->ptr, io.out->cap_cells);
	io.op = bh_let_parts((void *)io.out->ptr, io.out->cap_cells);
	io.oe = bh_let_eps((void *)io.out->ptr, io.out->cap_cells, io.out->cap_parts);
	io.scratch = (void *)STARPU_VECTOR_GET_PTR(buffers[5]);
	io.vel = (const float *)STARPU_VECTOR_GET_PTR(buffers[6]);
	io.out->ncells = io.out->nparts = 0;
	return io;
}

/* bh_direct: double-precision direct sum on sampled particles (the accuracy reference).
 * Buffers: bodies (R), sample indices (R, uint32), out (W, double[4] per sample), velocities (R:
 * the softenings with soft_h; pairs by bh_soft2).  Args: uint32_t n, uint32_t nsample,
 * bh_params (eps, soft_h, G used). */
extern struct starpu_codelet tide_bh_direct_cl;

/* bh_kick: v += a dt for particles [r0, r1).  Buffers: velocities (RW, float4), acc part (R).
 * Args: bh_range, float dt.  bh_drift: x += v dt.  Buffers: bodies (RW), velocities (R).
 * Args: uint32_t n, float dt. */
extern struct starpu_codelet tide_bh_kick_cl;
extern struct starpu_codelet tide_bh_drift_cl;

#ifdef TIDE_USE_CUDA
void tide_bh_build_cuda(void *buffers[], void *cl_arg);
size_t tide_bh_build_cuda_temp_bytes(uint32_t n);
void tide_bh_moments_cuda(void *buffers[], void *cl_arg);
void tide_bh_walk_cuda(void *buffers[], void *cl_arg);
void tide_bh_walk_let_cuda(void *buffers[], void *cl_arg);
void tide_bh_vroot_cuda(void *buffers[], void *cl_arg);
void tide_bh_vgather_cuda(void *buffers[], void *cl_arg);
void tide_bh_essential_cuda(void *buffers[], void *cl_arg);
size_t tide_bh_walk_cuda_scratch_bytes(void);
void tide_bh_direct_cuda(void *buffers[], void *cl_arg);
void tide_bh_kick_cuda(void *buffers[], void *cl_arg);
void tide_bh_drift_cuda(void *buffers[], void *cl_arg);
#endif

#endif
