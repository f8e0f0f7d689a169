// SPDX-License-Identifier: LGPL-2.1-or-later
// migrate_unpack: appends to a block the particles its neighbours sent through the faces that
// face it.  In a slab decomposition everything in such a buffer is for this block; when more
// than one axis is split a face buffer serves several neighbours, and each takes the particles
// inside its own box (tide_mig_accept).  Buffers: the block, the scratch, then the sources.
#include <string.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/migrate_label.h"
#include "tide/sph_interact.h"
#include "tide/codelet_decl.h"

static void append(struct tide_block_iface *dst, const struct tide_block_iface *src)
{
	STARPU_ASSERT_MSG(dst->count + src->count <= dst->cap,
	                  "block overflow: %u + %u particles for a capacity of %u", dst->count,
	                  src->count, dst->cap);
	for (int f = 0; f < tide_block_nfields() && src->count; f++) {
		size_t elem, off;
		tide_block_field(f, &elem, &off);
		memcpy((char *)dst->ptr + off * dst->cap + elem * dst->count,
		       (const char *)src->ptr + off * src->cap, elem * src->count);
	}
	dst->count += src->count;
}

static void append_accepted(const tide_grid *g, const tide_block_arg *S, const tide_block_arg *R,
                            struct tide_block_iface *dst, struct tide_block_iface *src)
{
	tide_block_view d = tide_block_view_of(dst), v = tide_block_view_of(src);
	for (uint32_t i = 0; i < v.count; i++) {
		if (!tide_mig_accept(g, S, R, v.x[i], v.y[i], v.z[i])) continue;
		STARPU_ASSERT_MSG(dst->count < dst->cap, "block overflow: capacity %u", dst->cap);
		tide_copy_particle(&d, dst->count++, &v, i);
	}
}

static void migrate_unpack_cpu(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_block_arg A;
	tide_unpack_arg U;
	starpu_codelet_unpack_args(cl_arg, &P, &A, &U, 0);
	struct tide_block_iface *dst = TIDE_BLOCK_IFACE(buffers[0]);
	int filter = tide_split_axes(A.split) > 1;
	for (int s = 0; s < U.nsrc; s++) {
		struct tide_block_iface *src = TIDE_BLOCK_IFACE(buffers[2 + s]);
		if (filter) append_accepted(&P.grid, &U.src[s], &A, dst, src);
		else append(dst, src);
	}
}

TIDE_CODELET_VARIABLE(migrate_unpack, migrate_unpack_cpu, tide_migrate_unpack_cuda);
