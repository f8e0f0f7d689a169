// SPDX-License-Identifier: LGPL-2.1-or-later
// halo_fetch: a task that computes nothing and reads one of a split block's halos
// (tasks/sph_step.c, include/tide/cell_split.h) on the worker that runs the block's boundary
// forces.  The boundary task cannot start before the interior task releases the block, and
// StarPU moves a task's data only once the task holds all of it; one such task per halo holds
// that halo alone, so the scheduler takes it (and prefetches the halo onto the GPU) as soon as
// it arrives, while the interior forces still run: the halos' uploads overlap them and each
// other's arrivals instead of following the last one.  Its model is StarPU's
// "nop" one (1 us): no work, the runtime's own cost per task, which the models of the other
// tasks do not count either.
#include <starpu.h>
#include "tide/codelets.h"
#include "tide/codelet_decl.h"

static void halo_fetch_cpu(void *buffers[], void *cl_arg)
{
	(void)buffers;
	(void)cl_arg;
}

TIDE_CODELET_NOWORK(halo_fetch, halo_fetch_cpu, tide_halo_fetch_cuda);
