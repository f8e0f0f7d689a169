// SPDX-License-Identifier: LGPL-2.1-or-later
// bh_walk_sets: the field of every set of nodes received from other ranks on the particles
// [r0, r1), in one task (include/tide/bh_walk_sets.h says why and what).  The CPU version is
// bh_walk's group walk (codelets/bh_walk.c) over the sets in buffer order, each group taking
// them in turn: its targets and box are made once, each set's field is summed from zero and
// added to acc, so the result is that of one bh_walk_let task per set, bit for bit without the
// far field's expansions (with them: to float rounding, bh_walk_sets.h).
#include <stdlib.h>
#include <starpu.h>
#include "tide/bh_walk_sets.h"
#include "tide/codelet_decl.h"

static void walk_sets_cpu(void *buffers[], void *cl_arg)
{
	bh_params P;
	bh_range R;
	int nsets;
	float far; /* the far nodes' local expansions */
	starpu_codelet_unpack_args(cl_arg, &P, &R, &nsets, &far, 0);
	const int32_t *meta = (const int32_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
	bh_walk_src *S = malloc(sizeof(bh_walk_src) * (size_t)(nsets > 0 ? nsets : 1));
	STARPU_ASSERT_MSG(S, "bh_walk_sets: no memory for %d sets", nsets);
	int n = 0; /* the sets with cells (an empty sender's buffer has none) */
	for (int s = 0; s < nsets; s++)
		n += bh_walk_src_of(TIDE_LET_IFACE(buffers[BH_WALK_SETS_FIXED + s]), &S[n]);
	if (n)
		bh_walk_groups((const bh_body *)STARPU_VECTOR_GET_PTR(buffers[0]),
		               (const float *)STARPU_VECTOR_GET_PTR(buffers[5]),
		               (const bh_group *)STARPU_VECTOR_GET_PTR(buffers[2]), meta[BH_META_NGROUPS],
		               S, n, (bh_acc *)STARPU_VECTOR_GET_PTR(buffers[3]), 1, P, R, far);
	free(S);
}

/* the access modes are each task's (bodies, meta, groups R; acc RW; scratch; velocities R; the
 * sets R): tasks/gravity.c, submit_let_walks */
TIDE_CODELET_VARIABLE(bh_walk_sets, walk_sets_cpu, tide_bh_walk_sets_cuda);
