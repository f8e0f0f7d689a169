// SPDX-License-Identifier: LGPL-2.1-or-later
// bh_vroot: a rank's virtual root (particle box, mass, centre of mass, and the boxes of a few
// top cells that cover its walk groups: bh_vroot_cover) from its tree, the one thing every other
// rank must know of it to choose the essential nodes it sends back.
#include <starpu.h>
#include "tide/bh_codelets.h"
#include "tide/codelet_decl.h"

static void vroot_cpu(void *buffers[], void *cl_arg)
{
	uint32_t n;
	int fill, kmax;
	starpu_codelet_unpack_args(cl_arg, &n, &fill, &kmax, 0);
	const int32_t *meta = (const int32_t *)STARPU_VECTOR_GET_PTR(buffers[0]);
	const bh_mom *mom = (const bh_mom *)STARPU_VECTOR_GET_PTR(buffers[1]);
	const bh_cell *cells = (const bh_cell *)STARPU_VECTOR_GET_PTR(buffers[2]);
	bh_vroot *v = (bh_vroot *)STARPU_VECTOR_GET_PTR(buffers[3]);
	bh_vroot_make(meta, mom, n, v);
	if (n > 0) bh_vroot_cover(cells, fill, kmax, v);
}

TIDE_CODELET(bh_vroot, vroot_cpu, tide_bh_vroot_cuda, 4, STARPU_R, STARPU_R, STARPU_R, STARPU_W);
