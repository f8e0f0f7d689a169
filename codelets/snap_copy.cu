// SPDX-License-Identifier: LGPL-2.1-or-later
// snap_copy on the GPU: the block's masked fields copied device to host (pinned staging buffer
// in main memory) on StarPU's stream; StarPU completes the task when the stream has done it.
#include <cuda_runtime.h>
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/block_interface.h"
#include "tide/codelets.h"
}

extern "C" void tide_snap_copy_cuda(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	tide_block_view src = tide_block_view_of(buffers[0]);
	struct tide_block_iface *dst = TIDE_BLOCK_IFACE(buffers[1]);
	STARPU_ASSERT_MSG(src.count <= dst->cap, "snapshot staging of %u particles for %u", dst->cap,
	                  src.count);
	cudaStream_t s = starpu_cuda_get_local_stream();
	for (int f = 0; f < TIDE_BLOCK_MAX_FIELDS && src.count; f++) {
		if (!(dst->fields >> f & 1u)) continue;
		size_t elem, off;
		tide_block_field(f, &elem, &off);
		TIDE_CUDA_CHECK(cudaMemcpyAsync((char *)dst->ptr + off * dst->cap,
		                                (const char *)src.x + off * src.cap, elem * src.count,
		                                cudaMemcpyDeviceToHost, s));
	}
	dst->count = src.count;
}
