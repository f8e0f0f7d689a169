// SPDX-License-Identifier: LGPL-2.1-or-later
// halo_pack: a cell-sorted block's edges — its first and its last layer of cells, the particles
// within 2h of its two faces — copied into the halo buffers its neighbours' sph_forces read.
// Because the key orders layers slowest, each edge is one contiguous run of the sorted block.
#include <string.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/sph_params.h"

static void copy_run(struct tide_block_iface *dst, const tide_block_view *src, uint32_t from,
                     uint32_t n)
{
	STARPU_ASSERT_MSG(n <= dst->cap,
	                  "halo of %u particles exceeds its capacity %u (particles far denser than "
	                  "at rest: the run has gone unphysical)", n, dst->cap);
	for (int f = 0; f < TIDE_BLOCK_NFIELDS; f++) {
		size_t elem, off;
		tide_block_field(f, &elem, &off);
		memcpy((char *)dst->ptr + off * dst->cap, (const char *)src->x + off * src->cap + elem * from,
		       elem * n);
	}
	dst->count = n;
}

static void halo_pack_cpu(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_block_arg A;
	starpu_codelet_unpack_args(cl_arg, &P, &A);
	tide_block_view v = tide_block_view_of(buffers[0]);
	const uint32_t *start = (const uint32_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
	uint32_t ncell = (uint32_t)STARPU_VECTOR_GET_NX(buffers[1]) - 1;
	uint32_t nlo = start[P.grid.plane];
	uint32_t hi_from = start[ncell - P.grid.plane];
	copy_run(TIDE_BLOCK_IFACE(buffers[2]), &v, 0, nlo);
	copy_run(TIDE_BLOCK_IFACE(buffers[3]), &v, hi_from, v.count - hi_from);
}

static struct starpu_perfmodel halo_pack_model = {
	.type = STARPU_HISTORY_BASED,
	.symbol = "tide_halo_pack",
};

struct starpu_codelet tide_halo_pack_cl = {
	.name = "halo_pack",
	.cpu_funcs = {halo_pack_cpu},
#ifdef TIDE_USE_CUDA
	.cuda_funcs = {tide_halo_pack_cuda},
	.cuda_flags = {STARPU_CUDA_ASYNC},
#endif
	.nbuffers = 4,
	.modes = {STARPU_R, STARPU_R, STARPU_W, STARPU_W},
	.model = &halo_pack_model,
};
