// SPDX-License-Identifier: LGPL-2.1-or-later
// migrate_unpack: appends the particles the two neighbouring blocks sent to this block.
#include <string.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"

static void append(struct tide_block_iface *dst, const struct tide_block_iface *src)
{
	STARPU_ASSERT_MSG(dst->count + src->count <= dst->cap,
	                  "block overflow: %u + %u particles for a capacity of %u", dst->count,
	                  src->count, dst->cap);
	for (int f = 0; f < TIDE_BLOCK_NFIELDS && src->count; f++) {
		size_t elem, off;
		tide_block_field(f, &elem, &off);
		memcpy((char *)dst->ptr + off * dst->cap + elem * dst->count,
		       (const char *)src->ptr + off * src->cap, elem * src->count);
	}
	dst->count += src->count;
}

static void migrate_unpack_cpu(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	append(TIDE_BLOCK_IFACE(buffers[0]), TIDE_BLOCK_IFACE(buffers[1]));
	append(TIDE_BLOCK_IFACE(buffers[0]), TIDE_BLOCK_IFACE(buffers[2]));
}

static struct starpu_perfmodel migrate_unpack_model = {
	.type = STARPU_HISTORY_BASED,
	.symbol = "tide_migrate_unpack",
};

struct starpu_codelet tide_migrate_unpack_cl = {
	.name = "migrate_unpack",
	.cpu_funcs = {migrate_unpack_cpu},
#ifdef TIDE_USE_CUDA
	.cuda_funcs = {tide_migrate_unpack_cuda},
	.cuda_flags = {STARPU_CUDA_ASYNC},
#endif
	.nbuffers = 3,
	.modes = {STARPU_RW, STARPU_R, STARPU_R},
	.model = &migrate_unpack_model,
};
