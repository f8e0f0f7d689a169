// SPDX-License-Identifier: LGPL-2.1-or-later
// migrate_unpack on the GPU: device-to-device appends on StarPU's stream; the counts are known
// on the host from the interfaces, so nothing waits.
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/block_interface.h"
#include "tide/codelets.h"
}

static void append(struct tide_block_iface *dst, const struct tide_block_iface *src,
                   cudaStream_t s)
{
	STARPU_ASSERT_MSG(dst->count + src->count <= dst->cap,
	                  "block overflow: %u + %u particles for a capacity of %u", dst->count,
	                  src->count, dst->cap);
	tide_block_view d = tide_block_view_of(dst), sv = tide_block_view_of((void *)src);
	for (int f = 0; f < TIDE_BLOCK_NFIELDS && src->count; f++) {
		size_t elem;
		char *dp = tide_field_ptr(d, f, &elem);
		char *sp = tide_field_ptr(sv, f, &elem);
		TIDE_CUDA_CHECK(cudaMemcpyAsync(dp + elem * dst->count, sp, elem * src->count,
		                                cudaMemcpyDeviceToDevice, s));
	}
	dst->count += src->count;
}

extern "C" void tide_migrate_unpack_cuda(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	cudaStream_t s = starpu_cuda_get_local_stream();
	append(TIDE_BLOCK_IFACE(buffers[0]), TIDE_BLOCK_IFACE(buffers[1]), s);
	append(TIDE_BLOCK_IFACE(buffers[0]), TIDE_BLOCK_IFACE(buffers[2]), s);
}
