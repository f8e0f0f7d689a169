// SPDX-License-Identifier: LGPL-2.1-or-later
// halo_fetch on the GPU: nothing to launch; StarPU has brought the halos to the GPU before the
// task starts, which is all the task is for (codelets/halo_fetch.c).
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/codelets.h"
}

extern "C" void tide_halo_fetch_cuda(void *buffers[], void *cl_arg)
{
	(void)buffers;
	(void)cl_arg;
}
