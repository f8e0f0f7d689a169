/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bh_walk_sets: one walk task per part over every set of nodes this rank has received (a near
 * rank's essential nodes, a far rank's coarse tree), instead of one bh_walk_let task per (set,
 * part) (issue 25, Bonsai's one pass over the remote trees).  Why: each walk over a received set
 * takes all of the rank's walk groups through the set's top cells whatever its size; on the
 * H200 a bh_walk_let task costs 363 us before its first interaction (the fit of
 * bench/results/sim-gravity/2026-12-05-reach), 127 sets at 128 ranks 46 ms of a 160 ms step.
 * Merged: one task, one pass of the groups, each group walking the sets in turn.
 *
 * The sums: for each group the sets are walked in the order given (tasks/gravity.c: rank q = 0
 * .. R-1, the order the per-set tasks were submitted in on the same acc handle), each set's field
 * summed from zero and then added to acc, as one bh_walk_let task does.  The CUDA version is the
 * same kernel as bh_walk_let's (codelets/bh_walk_kernels.cuh) with a loop over the sets inside
 * each warp's group: one launch.
 *
 * Far field (the codelets' argument far > 0, tide_gravity.far, TIDE_GRAVITY_FAR_FIELD): an
 * accepted node far from the group (bh_far2, theta_l = far theta) is not applied to each
 * particle: its field's Taylor expansion about the group's centre is added to the group's local
 * expansion (bh_m2l, include/tide/bh_interact.h), which each particle evaluates once (bh_l2p)
 * after the last set: once per group for all sets here, once per set in bh_walk_let.  So the
 * merged walk equals the per-set tasks (TIDE_GRAVITY_LET_WALK=each) bit for bit with far = 0
 * (direct), and to float rounding with the expansions (test_bh_let's walk_sets: 2.7e-7 at most,
 * relative).  Only the walks over received sets expand; the own tree's walk is unchanged.
 *
 * Buffers: bodies (R), meta (R), groups (R), acc (RW, as for bh_walk), scratch
 * (bh_walk_scratch_bytes), velocities (R, the targets' softenings), then the nsets received sets
 * (R, let_interface.h) in the order they are walked.  Args: bh_params, bh_range, int nsets,
 * float far (bh_walk_let: bh_params, bh_range, float far). */
#ifndef TIDE_BH_WALK_SETS_H
#define TIDE_BH_WALK_SETS_H
#include <stdint.h>
#include "tide/bh_codelets.h"
#include "tide/let_interface.h"

#define BH_WALK_SETS_FIXED 6 /* buffers before the sets */

/* One source tree of a walk: its cells, moments, the particles its leaves index and their
 * softenings (stride 4 in the local tree's velocities, 1 in a received buffer). */
typedef struct bh_walk_src {
	const bh_cell *cells;
	const bh_mom *mom;
	const bh_body *src;
	const float *seps;
} bh_walk_src;

/* The source of a received buffer (on the memory node of L); 0 when it holds no cell (an empty
 * sender's): nothing to walk. */
static inline int bh_walk_src_of(const struct tide_let_iface *L, bh_walk_src *s)
{
	if (L->ncells == 0) return 0;
	void *let = (void *)L->ptr;
	s->cells = bh_let_cells(let);
	s->mom = bh_let_moms(let, L->cap_cells);
	s->src = bh_let_parts(let, L->cap_cells);
	s->seps = bh_let_eps(let, L->cap_cells, L->cap_parts);
	return 1;
}

/* The CPU walk of codelets/bh_walk.c over nsrc sources (let = 0: the own tree, one source).
 * far > 0 (let only): the far accepted nodes go into local expansions (far field below). */
void bh_walk_groups(const bh_body *tgt, const float *vel, const bh_group *groups, int32_t ng,
                    const bh_walk_src *S, int nsrc, bh_acc *out, int let, bh_params P, bh_range R,
                    float far);

/* The work of the CPU walks over received sets (bh_walk_let, bh_walk_sets) since the last call,
 * summed over all threads, then zeroed: walk groups, node-particle interactions (bh_m2p),
 * particle-particle interactions (bh_p2p), far nodes added to local expansions (bh_m2l),
 * particles that evaluated an expansion (bh_l2p; once per group and task), and the walks' CPU
 * time (the threads' CPU clock, ns: not disturbed by other processes on the cores). */
enum { BH_LET_TALLY_GROUPS, BH_LET_TALLY_M2P, BH_LET_TALLY_P2P, BH_LET_TALLY_M2L, BH_LET_TALLY_L2P,
       BH_LET_TALLY_CPU_NS, BH_LET_TALLY_N };
void bh_walk_let_tally(int64_t out[BH_LET_TALLY_N]);

extern struct starpu_codelet tide_bh_walk_sets_cl;
void tide_bh_walk_sets_cuda(void *buffers[], void *cl_arg);
#endif
