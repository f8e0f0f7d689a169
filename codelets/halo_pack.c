// SPDX-License-Identifier: LGPL-2.1-or-later
// halo_pack: a cell-sorted block's edges — for every face of its box across which it has
// neighbours, the boundary layer of cells (the particles within 2h of the face) — copied into
// the halo buffers the neighbours' sph_forces read.  Along axis[0] (slowest in the key) each
// edge is one contiguous run of the sorted block; along the other axes it is a selection in
// block order, so every halo stays sorted by cell key.  Only the fields in the halo's mask
// (TIDE_HALO_FIELDS: what sph_forces reads) are written and travel.
// Buffers: block, cell starts, scratch, then the faces that have neighbours (tide_face_slots).
#include <string.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/sph_interact.h"

static void check_cap(uint32_t n, uint32_t cap)
{
	STARPU_ASSERT_MSG(n <= cap,
	                  "halo of %u particles exceeds its capacity %u (particles far denser than "
	                  "at rest: the run has gone unphysical)", n, cap);
}

static void copy_run(struct tide_block_iface *dst, const tide_block_view *src, uint32_t from,
                     uint32_t n)
{
	check_cap(n, dst->cap);
	for (int f = 0; f < TIDE_BLOCK_NFIELDS; f++) {
		if (!(dst->fields >> f & 1u)) continue; /* never read in a halo */
		size_t elem, off;
		tide_block_field(f, &elem, &off);
		memcpy((char *)dst->ptr + off * dst->cap, (const char *)src->x + off * src->cap + elem * from,
		       elem * n);
	}
	dst->count = n;
}

/* The particles whose cell has coordinate `layer` along key axis k. */
static void copy_layer(const tide_grid *g, struct tide_block_iface *dst, const tide_block_view *v,
                       int k, int layer)
{
	tide_block_view d = tide_block_view_of(dst);
	uint32_t n = 0;
	for (uint32_t i = 0; i < v->count; i++) {
		int c[3];
		tide_key_cell(g, v->key[i], c);
		if (c[k] != layer) continue;
		check_cap(n + 1, dst->cap);
		tide_copy_particle(&d, n++, v, i);
	}
	dst->count = n;
}

static void halo_pack_cpu(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_block_arg A;
	starpu_codelet_unpack_args(cl_arg, &P, &A);
	const tide_grid *g = &P.grid;
	tide_block_view v = tide_block_view_of(buffers[0]);
	const uint32_t *start = (const uint32_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
	uint32_t ncell = (uint32_t)STARPU_VECTOR_GET_NX(buffers[1]) - 1;
	int lo[3], hi[3], slot[6];
	tide_box_bounds(&A, lo, hi);
	tide_face_slots(g, &A, slot);
	for (int f = 0; f < 6; f++) {
		if (slot[f] < 0) continue;
		struct tide_block_iface *dst = TIDE_BLOCK_IFACE(buffers[3 + slot[f]]);
		int k = f / 2, side = f % 2;
		dst->count = 0;
		if (k == 0) {
			uint32_t layer = ncell / (uint32_t)(A.l1 - A.l0);
			if (side == 0) copy_run(dst, &v, 0, start[layer]);
			else copy_run(dst, &v, start[ncell - layer], v.count - start[ncell - layer]);
		} else {
			copy_layer(g, dst, &v, k, side ? hi[k] - 1 : lo[k]);
		}
	}
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
	.nbuffers = STARPU_VARIABLE_NBUFFERS,
	.model = &halo_pack_model,
};
