/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* How many cell layers each face halo of a halo_pack task carries (its CPU and CUDA halves):
 * tide_halo_layers for all, or, under the gas scheme with per-block halos, each face's from
 * the records of the block and of the neighbours that read it (include/tide/gas_halo.h).
 * Host code, included by the halo_pack codelets only (it reads StarPU's buffers). */
#ifndef TIDE_HALO_WIDTHS_H
#define TIDE_HALO_WIDTHS_H
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/gas_halo.h"

/* L[f] for every face f of box A with a halo (slot[f] >= 0, tide_face_slots; nface of them):
 * buffers as tide_halo_pack_cl's, R its tide_halo_recv.  *own: the block's record, which the
 * halos carry on to their readers. */
static inline void tide_halo_pack_layers(const tide_sph_params *P, void *buffers[],
                                         const int slot[6], int nface, const tide_halo_recv *R,
                                         int L[6], float *own)
{
	*own = TIDE_BLOCK_IFACE(buffers[0])->hmax;
	float rec[TIDE_MAX_NEIGHBOURS];
	int n = P->grid.halo_block ? R->n : 0;
	STARPU_ASSERT(n >= 0 && n <= TIDE_MAX_NEIGHBOURS);
	for (int j = 0; j < n; j++) rec[j] = TIDE_BLOCK_IFACE(buffers[3 + nface + j])->hmax;
	for (int f = 0; f < 6; f++) {
		L[f] = tide_halo_layers(&P->grid);
		if (slot[f] < 0 || !n) continue;
		int l = tide_gas_face_layers(&P->grid, *own, n, R->slot, rec, slot[f]);
		if (l > 0) L[f] = l;
	}
}
#endif
