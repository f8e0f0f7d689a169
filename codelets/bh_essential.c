// SPDX-License-Identifier: LGPL-2.1-or-later
// bh_essential: the locally essential nodes of this rank's tree for one remote rank.  A breadth-
// first traversal from the root against the remote rank's boxes (its virtual root's cover): a cell
// that passes the opening test against every box (minimum distance from the box, so it is safe for
// every point in it) goes out as a multipole; a leaf that fails goes out with its
// particles (and their softenings); an internal cell that fails goes out with its children, which are visited in turn.
// The output is a small tree in the local tree's own layout (children contiguous), so the
// receiver walks it with its groups like its own tree and opens the upper cells where its groups
// are close.  The buffer itself is the traversal queue: a slot's child field holds the local cell
// it stands for until the slot is filled.
#include <string.h>
#include <starpu.h>
#include "tide/bh_codelets.h"
#include "tide/let_interface.h"
#include "tide/codelet_decl.h"

static void essential_cpu(void *buffers[], void *cl_arg)
{
	bh_essential_io io = bh_essential_unpack(buffers, cl_arg);
	if (io.n == 0 || io.vroot->n == 0) return; /* nothing to send, or nobody there to need it */
	bh_cell *oc = io.oc;
	int32_t nc = 1, np = 0;
	oc[0].child = 0;
	for (int32_t i = 0; i < nc; i++) {
		const bh_cell *C = &io.cells[oc[i].child];
		const bh_mom *M = &io.mom[oc[i].child];
		int k = bh_let_choose(C, M, io.vroot, io.whole, io.far2);
		int32_t first = 0;
		if (k == BH_LET_KEEP_OPEN) {
			first = nc;
			for (int32_t c = 0; c < C->nchild; c++) oc[nc++].child = C->child + c;
		} else if (k == BH_LET_KEEP_LEAF) {
			first = np;
			memcpy(io.op + np, io.body + C->pbegin, sizeof(bh_body) * (size_t)(C->pend - C->pbegin));
			for (int32_t j = C->pbegin; j < C->pend; j++)
				io.oe[np + j - C->pbegin] = bh_body_eps(&io.P, io.vel, j);
			np += C->pend - C->pbegin;
		}
		bh_let_fill(&oc[i], &io.om[i], C, M, k, first);
	}
	/* distinct cells and particles of the local tree: within the capacity by construction */
	STARPU_ASSERT((uint32_t)nc <= io.out->cap_cells && (uint32_t)np <= io.out->cap_parts);
	io.out->ncells = (uint32_t)nc;
	io.out->nparts = (uint32_t)np;
}

TIDE_CODELET(bh_essential, essential_cpu, tide_bh_essential_cuda, 7,
             STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_W, STARPU_SCRATCH, STARPU_R);
