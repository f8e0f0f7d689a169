// SPDX-License-Identifier: LGPL-2.1-or-later
// migrate_pack: after integration, the particles that left the block's range of cell layers go
// to the buffer of the lower or upper neighbour; particles that left the domain are removed (the
// host sees the total count drop and reports it).  The block is compacted in place.
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/sph_interact.h"
#include "tide/migrate_label.h"

static void migrate_pack_cpu(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_block_arg A;
	starpu_codelet_unpack_args(cl_arg, &P, &A);
	struct tide_block_iface *bi = TIDE_BLOCK_IFACE(buffers[0]);
	struct tide_block_iface *li = TIDE_BLOCK_IFACE(buffers[1]);
	struct tide_block_iface *hi = TIDE_BLOCK_IFACE(buffers[2]);
	tide_block_view v = tide_block_view_of(bi);
	tide_block_view lo = tide_block_view_of(li), up = tide_block_view_of(hi);
	uint32_t keep = 0, nlo = 0, nup = 0;
	for (uint32_t i = 0; i < v.count; i++) {
		int lab = tide_migrate_label(&P, &A, &v, i);
		if (lab == TIDE_MIG_STAY) {
			if (keep != i) tide_copy_particle(&v, keep, &v, i);
			keep++;
		} else if (lab == TIDE_MIG_LOW) {
			STARPU_ASSERT_MSG(nlo < lo.cap, "migration buffer overflow (%u)", lo.cap);
			tide_copy_particle(&lo, nlo++, &v, i);
		} else if (lab == TIDE_MIG_HIGH) {
			STARPU_ASSERT_MSG(nup < up.cap, "migration buffer overflow (%u)", up.cap);
			tide_copy_particle(&up, nup++, &v, i);
		}
	}
	bi->count = keep;
	li->count = nlo;
	hi->count = nup;
}

static struct starpu_perfmodel migrate_pack_model = {
	.type = STARPU_HISTORY_BASED,
	.symbol = "tide_migrate_pack",
};

struct starpu_codelet tide_migrate_pack_cl = {
	.name = "migrate_pack",
	.cpu_funcs = {migrate_pack_cpu},
#ifdef TIDE_USE_CUDA
	.cuda_funcs = {tide_migrate_pack_cuda},
	.cuda_flags = {STARPU_CUDA_ASYNC},
#endif
	.nbuffers = 4,
	.modes = {STARPU_RW, STARPU_W, STARPU_W, STARPU_SCRATCH},
	.model = &migrate_pack_model,
};
