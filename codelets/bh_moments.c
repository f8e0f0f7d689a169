// SPDX-License-Identifier: LGPL-2.1-or-later
// bh_moments: bottom-up multipoles.  Cells were numbered breadth first, so walking the levels
// from the deepest to the root sees every child before its parent; leaves take their moments from
// their particles, internal cells from their children.  Each cell also gets rcrit² of the opening
// test (l/theta + delta)² (bh_rcrit2: l depends on the multipole order), so that the walk does one
// comparison per node.
#include <starpu.h>
#include "tide/bh_codelets.h"
#include "tide/codelet_decl.h"

static void moments_cpu(void *buffers[], void *cl_arg)
{
	bh_params P;
	starpu_codelet_unpack_args(cl_arg, &P, 0);
	const bh_body *body = (const bh_body *)STARPU_VECTOR_GET_PTR(buffers[0]);
	const bh_cell *cells = (const bh_cell *)STARPU_VECTOR_GET_PTR(buffers[1]);
	const int32_t *meta = (const int32_t *)STARPU_VECTOR_GET_PTR(buffers[2]);
	bh_mom *mom = (bh_mom *)STARPU_VECTOR_GET_PTR(buffers[3]);
	const float *vel = (const float *)STARPU_VECTOR_GET_PTR(buffers[4]); /* softenings (soft_h) */
	for (int L = BH_MAXLEVEL; L >= 0; L--) {
		for (int32_t c = meta[BH_META_LEVEL + L]; c < meta[BH_META_LEVEL + L + 1]; c++) {
			const bh_cell *C = &cells[c];
			if (C->nchild) bh_merge_moments(&mom[C->child], C->nchild, &mom[c]);
			else bh_leaf_moments(body, vel, &P, C->pbegin, C->pend, &mom[c]);
			mom[c].rcrit2 = bh_rcrit2(C, &mom[c], P.theta, P.quadrupole);
		}
	}
}

TIDE_CODELET(bh_moments, moments_cpu, tide_bh_moments_cuda, 5,
             STARPU_R, STARPU_R, STARPU_R, STARPU_W, STARPU_R);
