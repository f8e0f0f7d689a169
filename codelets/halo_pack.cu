// SPDX-License-Identifier: LGPL-2.1-or-later
// halo_pack on the GPU.  The two edge sizes live in the device's cell-start table; they are read
// back (8 bytes) because the halo's particle count is part of its StarPU interface, then the
// edge runs are copied device to device on StarPU's stream.
#include "tide/cuda_util.cuh"
#include "tide/sph_params.h"

extern "C" {
#include "tide/block_interface.h"
#include "tide/codelets.h"
}

static void copy_run(struct tide_block_iface *dst, const tide_block_view &src, uint32_t from,
                     uint32_t n, cudaStream_t s)
{
	STARPU_ASSERT_MSG(n <= dst->cap,
	                  "halo of %u particles exceeds its capacity %u (particles far denser than "
	                  "at rest: the run has gone unphysical)", n, dst->cap);
	tide_block_view d = tide_block_view_of(dst);
	for (int f = 0; f < TIDE_BLOCK_NFIELDS && n; f++) {
		size_t elem;
		char *sp = tide_field_ptr(src, f, &elem);
		char *dp = tide_field_ptr(d, f, &elem);
		TIDE_CUDA_CHECK(cudaMemcpyAsync(dp, sp + elem * from, elem * n,
		                                cudaMemcpyDeviceToDevice, s));
	}
	dst->count = n;
}

extern "C" void tide_halo_pack_cuda(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_block_arg A;
	starpu_codelet_unpack_args(cl_arg, &P, &A);
	tide_block_view v = tide_block_view_of(buffers[0]);
	const uint32_t *start = (const uint32_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
	uint32_t ncell = (uint32_t)STARPU_VECTOR_GET_NX(buffers[1]) - 1;
	cudaStream_t s = starpu_cuda_get_local_stream();
	uint32_t ends[2];
	TIDE_CUDA_CHECK(cudaMemcpyAsync(&ends[0], start + P.grid.plane, sizeof(uint32_t),
	                                cudaMemcpyDeviceToHost, s));
	TIDE_CUDA_CHECK(cudaMemcpyAsync(&ends[1], start + ncell - P.grid.plane, sizeof(uint32_t),
	                                cudaMemcpyDeviceToHost, s));
	TIDE_CUDA_CHECK(cudaStreamSynchronize(s));
	copy_run(TIDE_BLOCK_IFACE(buffers[2]), v, 0, ends[0], s);
	copy_run(TIDE_BLOCK_IFACE(buffers[3]), v, ends[1], v.count - ends[1], s);
}
