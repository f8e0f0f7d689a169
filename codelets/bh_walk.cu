// SPDX-License-Identifier: LGPL-2.1-or-later
// bh_walk on the GPU: one warp per group of up to 32 consecutive particles (one particle per
// lane; bh_cell_groups), the whole warp sharing one traversal against the group's bounding box,
// as in the CPU
// version.  Persistent warps take groups from an atomic counter; their traversal stacks live in
// the scratch buffer.  The same kernels walk the essential nodes received from another rank
// (LET = true): sources from the received buffer, BH_LET_MULTIPOLE cells used without testing,
// field added to out.
//
// Two kernels, chosen at run time by the environment variable TIDE_BH_WALK (read at every
// launch, so that a test can switch between evaluations):
//
//   classic  Each round pops up to 32 nodes from the warp's stack (one per lane) and tests them;
//            accepted nodes and opened leaves are then applied by the whole warp one after the
//            other (their data are broadcast loads), opened internal cells push their children
//            (warp prefix sum).
//
//   fast     (default) The same traversal and the same interaction lists, but the interactions
//            are batched through per-warp buffers in shared memory (interaction lists in the
//            manner of Bonsai):
//            - the lane that tests a node has already loaded its moments (the opening test
//              needs the centre of mass and rcrit², and the quadrupole lies in the same 48-byte
//              record), so an accepted node is written by that lane straight into the warp's
//              multipole buffer; no second, dependent global load of the node;
//            - the particles of opened leaves are spread over the lanes (a prefix sum of the
//              leaves' particle counts and a 5-step binary search per lane for the leaf that
//              owns its slot), so every lane loads one source particle, mostly coalesced since a
//              leaf's particles are contiguous, into the warp's particle buffer; small leaves no
//              longer leave most lanes idle in the load and a leaf costs no dependent load of its
//              cell;
//            - each buffer holds 32 entries and is applied when full (and once at the end of the
//              group): every lane reads every entry with a shared-memory broadcast (three 16-byte
//              loads per multipole, one per particle) instead of 13 global loads per node or 4
//              shuffles per particle;
//            - the interactions themselves use MUFU.RSQ (rsqrt.approx, ~2 ulp) instead of 1.f/sqrtf:
//              without fast math that is an IEEE square root and an IEEE division, two
//              multi-instruction sequences with slow-path branches, in every interaction.  The
//              maths are bh_p2p_fast and bh_m2p_fast (bh_interact.h, beside the reference
//              bh_p2p and bh_m2p, which the classic kernel uses), regrouped;
//            - monopole and quadrupole are separate instantiations (no branch in the loop).
//            Same traversal stack, group order and output as classic; only the summation order
//            and the rounding of 1/r differ.
#include "bh_walk_kernels.cuh"

/* Both kernels use the same scratch layout: the group counter (256 bytes), then one stack of
 * WALK_STACK entries for each of at most WALK_MAX_WARPS warps (walk_blocks caps the launch of
 * either kernel there; bh_walk_kernels.cuh).  The fast kernel's interaction buffers are static shared memory, so the
 * size below covers both. */
extern "C" size_t tide_bh_walk_cuda_scratch_bytes(void)
{
	return WALK_SCRATCH_BYTES;
}

extern "C" void tide_bh_walk_cuda(void *buffers[], void *cl_arg)
{
	bh_params P;
	bh_range R;
	starpu_codelet_unpack_args(cl_arg, &P, &R, 0);
	const bh_body *body = (const bh_body *)STARPU_VECTOR_GET_PTR(buffers[0]);
	const float *vel = (const float *)STARPU_VECTOR_GET_PTR(buffers[7]);
	launch_walk<false>(body, vel, (const bh_cell *)STARPU_VECTOR_GET_PTR(buffers[1]),
	                   (const bh_mom *)STARPU_VECTOR_GET_PTR(buffers[2]), body, vel,
	                   (const int32_t *)STARPU_VECTOR_GET_PTR(buffers[3]),
	                   (const bh_group *)STARPU_VECTOR_GET_PTR(buffers[4]),
	                   (bh_acc *)STARPU_VECTOR_GET_PTR(buffers[5]), P, R, 0.f, buffers[6]);
}

extern "C" void tide_bh_walk_let_cuda(void *buffers[], void *cl_arg)
{
	bh_params P;
	bh_range R;
	float far; /* the far nodes' local expansions (bh_walk_sets.h) */
	starpu_codelet_unpack_args(cl_arg, &P, &R, &far, 0);
	const struct tide_let_iface *L = TIDE_LET_IFACE(buffers[3]);
	if (L->ncells == 0) return;
	void *let = (void *)L->ptr;
	launch_walk<true>((const bh_body *)STARPU_VECTOR_GET_PTR(buffers[0]),
	                  (const float *)STARPU_VECTOR_GET_PTR(buffers[6]), bh_let_cells(let),
	                  bh_let_moms(let, L->cap_cells), bh_let_parts(let, L->cap_cells),
	                  bh_let_eps(let, L->cap_cells, L->cap_parts),
	                  (const int32_t *)STARPU_VECTOR_GET_PTR(buffers[1]),
	                  (const bh_group *)STARPU_VECTOR_GET_PTR(buffers[2]),
	                  (bh_acc *)STARPU_VECTOR_GET_PTR(buffers[4]), P, R, far, buffers[5]);
}
