// SPDX-License-Identifier: LGPL-2.1-or-later
// migrate_unpack on the GPU.  Slab decomposition: device-to-device appends on StarPU's stream;
// the counts are known on the host from the interfaces, so nothing waits.  Boxes: a stable
// selection of the sender's particles inside this block's box, whose size comes back to the
// host (4 bytes per non-empty source) because it is part of the block's interface.
#include "tide/cuda_select.cuh"

extern "C" {
#include "tide/block_interface.h"
#include "tide/codelets.h"
}
#include "tide/migrate_label.h"

static void append(struct tide_block_iface *dst, const struct tide_block_iface *src,
                   cudaStream_t s)
{
	STARPU_ASSERT_MSG(dst->count + src->count <= dst->cap,
	                  "block overflow: %u + %u particles for a capacity of %u", dst->count,
	                  src->count, dst->cap);
	tide_block_view d = tide_block_view_of(dst), sv = tide_block_view_of((void *)src);
	for (int f = 0; f < tide_block_nfields() && src->count; f++) {
		size_t elem;
		char *dp = tide_field_ptr(d, f, &elem);
		char *sp = tide_field_ptr(sv, f, &elem);
		TIDE_CUDA_CHECK(cudaMemcpyAsync(dp + elem * dst->count, sp, elem * src->count,
		                                cudaMemcpyDeviceToDevice, s));
	}
	dst->count += src->count;
}

struct accept_op {
	tide_grid g;
	tide_block_arg S, R;
	const double *x, *y, *z;
	__device__ bool operator()(uint32_t i) const
	{
		return tide_mig_accept(&g, &S, &R, x[i], y[i], z[i]) != 0;
	}
};

static void append_accepted(const tide_sph_params &P, const tide_block_arg &S,
                            const tide_block_arg &R, struct tide_block_iface *dst,
                            struct tide_block_iface *src, char *scr, size_t scr_bytes,
                            cudaStream_t s)
{
	tide_block_view d = tide_block_view_of(dst), v = tide_block_view_of(src);
	if (v.count == 0) return;
	uint32_t *list = (uint32_t *)scr, *n_d = list + v.count;
	char *tmp = (char *)(n_d + 64);
	STARPU_ASSERT((size_t)(tmp - scr) < scr_bytes);
	tide_select_if(0, v.count, accept_op{P.grid, S, R, v.x, v.y, v.z}, list, n_d, tmp,
	               scr_bytes - (size_t)(tmp - scr), s);
	uint32_t n;
	TIDE_CUDA_CHECK(cudaMemcpyAsync(&n, n_d, sizeof n, cudaMemcpyDeviceToHost, s));
	TIDE_CUDA_CHECK(cudaStreamSynchronize(s));
	STARPU_ASSERT_MSG(dst->count + n <= dst->cap,
	                  "block overflow: %u + %u particles for a capacity of %u", dst->count, n,
	                  dst->cap);
	tide_copy_fields(d, nullptr, dst->count, v, list, n, nullptr, s);
	dst->count += n;
}

extern "C" void tide_migrate_unpack_cuda(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_block_arg A;
	tide_unpack_arg U;
	starpu_codelet_unpack_args(cl_arg, &P, &A, &U, 0);
	cudaStream_t s = starpu_cuda_get_local_stream();
	struct tide_block_iface *dst = TIDE_BLOCK_IFACE(buffers[0]);
	char *scr = (char *)STARPU_VECTOR_GET_PTR(buffers[1]);
	size_t scr_bytes = STARPU_VECTOR_GET_NX(buffers[1]) * STARPU_VECTOR_GET_ELEMSIZE(buffers[1]);
	int filter = tide_split_axes(A.split) > 1;
	for (int k = 0; k < U.nsrc; k++) {
		struct tide_block_iface *src = TIDE_BLOCK_IFACE(buffers[2 + k]);
		if (filter) append_accepted(P, U.src[k], A, dst, src, scr, scr_bytes, s);
		else append(dst, src, s);
	}
	TIDE_CUDA_CHECK(cudaGetLastError());
}
