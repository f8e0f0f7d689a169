// SPDX-License-Identifier: LGPL-2.1-or-later
// bh_vgather: one round of the virtual roots' recursive doubling (tasks/gravity.c, "Virtual
// roots by recursive doubling"): the blocks of virtual roots given (buffers[1..n], R, vectors
// of one element size: this rank's block and the one received from its partner, lower ranks'
// first) placed one after the other into buffers[0] (W), whose size is their sum.  Every buffer
// is in main memory (specific_nodes), on a GPU worker too: the blocks come from the network and
// go to it, and the host reads the last one (the near/far choice), so a block placed on a GPU
// would cross the bus twice a round for nothing.  A copy of at most R x 440 bytes; its model is
// StarPU's "nop" one (1 us), as for halo_fetch: the runtime's own cost per task, which no
// calibration of the gravity tasks has measured.
#include <string.h>
#include <starpu.h>
#include "tide/bh_codelets.h"
#include "tide/codelet_decl.h"

static void vgather_cpu(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	int n = STARPU_TASK_GET_NBUFFERS(starpu_task_get_current());
	char *out = (char *)STARPU_VECTOR_GET_PTR(buffers[0]);
	size_t off = 0;
	for (int i = 1; i < n; i++) {
		size_t b = (size_t)STARPU_VECTOR_GET_NX(buffers[i]) * STARPU_VECTOR_GET_ELEMSIZE(buffers[i]);
		memcpy(out + off, (const void *)STARPU_VECTOR_GET_PTR(buffers[i]), b);
		off += b;
	}
	STARPU_ASSERT(off == (size_t)STARPU_VECTOR_GET_NX(buffers[0]) * STARPU_VECTOR_GET_ELEMSIZE(buffers[0]));
}

/* (TIDE_CODELET_NOWORK's fields, and the buffers' memory node: at most three of them) */
struct starpu_codelet tide_bh_vgather_cl = {
	.name = "bh_vgather",
	.cpu_funcs = {vgather_cpu},
	TIDE_CODELET_CUDA_(tide_bh_vgather_cuda)
	.model = &starpu_perfmodel_nop,
	.nbuffers = STARPU_VARIABLE_NBUFFERS,
	.specific_nodes = 1,
	.nodes = {STARPU_MAIN_RAM, STARPU_MAIN_RAM, STARPU_MAIN_RAM},
};
