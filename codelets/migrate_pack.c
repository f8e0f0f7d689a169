// SPDX-License-Identifier: LGPL-2.1-or-later
// migrate_pack: after integration, the particles that left the block's box go to the buffer of
// the face they left through (include/tide/migrate_label.h); particles that left the domain are
// removed (the host sees the total count drop and reports it).  The block is compacted in place.
// Under the gas scheme the largest h of the block's particles (before any leaves) goes into the
// block's and the face buffers' records (hmax): the neighbours' halo widths of the next step
// (include/tide/gas_halo.h).
// Buffers: the block, the scratch, then the faces that have neighbours (tide_face_slots).
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/gas_halo.h"
#include "tide/sph_interact.h"
#include "tide/migrate_label.h"
#include "tide/codelet_decl.h"

static void migrate_pack_cpu(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_block_arg A;
	starpu_codelet_unpack_args(cl_arg, &P, &A, 0);
	struct tide_block_iface *bi = TIDE_BLOCK_IFACE(buffers[0]);
	int slot[6];
	int nface = tide_face_slots(&P.grid, &A, slot);
	struct tide_block_iface *fi[6];
	tide_block_view fv[6];
	for (int f = 0; f < nface; f++) {
		fi[f] = TIDE_BLOCK_IFACE(buffers[2 + f]);
		fv[f] = tide_block_view_of(fi[f]);
		fi[f]->count = 0;
	}
	tide_block_view v = tide_block_view_of(bi);
	if (P.scheme == TIDE_SCHEME_GAS) {
		float hmax = 0.f;
		for (uint32_t i = 0; i < v.count; i++)
			hmax = v.TIDE_GAS_H[i] > hmax ? v.TIDE_GAS_H[i] : hmax;
		bi->hmax = hmax;
		for (int f = 0; f < nface; f++) fi[f]->hmax = hmax;
	}
	uint32_t keep = 0;
	for (uint32_t i = 0; i < v.count; i++) {
		int lab = tide_migrate_label(&P, &A, &v, i);
		if (lab == TIDE_MIG_STAY) {
			if (keep != i) tide_copy_particle(&v, keep, &v, i);
			keep++;
		} else if (lab != TIDE_MIG_GONE) {
			int f = slot[lab - 1];
			STARPU_ASSERT_MSG(f >= 0, "migration through a face that has no neighbours");
			STARPU_ASSERT_MSG(fi[f]->count < fi[f]->cap, "migration buffer overflow (%u)",
			                  fi[f]->cap);
			tide_copy_particle(&fv[f], fi[f]->count++, &v, i);
		}
	}
	bi->count = keep;
}

TIDE_CODELET_VARIABLE(migrate_pack, migrate_pack_cpu, tide_migrate_pack_cuda);
