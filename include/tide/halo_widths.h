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
#include "tide/halo_cut.h"

/* L[f] for every face f of box A (tide_halo_layers, or, for a face with a halo, slot[f] >= 0
 * (tide_face_slots), its gas width): buffers as tide_halo_pack_cl's (nhalo halos), R its
 * tide_halo_recv.  *own: the block's record, which the halos carry on to their readers;
 * rec[j]: neighbour j's (R->n of them; *nrec = 0 when not per block). */
static inline void tide_halo_pack_layers(const tide_sph_params *P, void *buffers[],
                                         const int slot[6], int nhalo, const tide_halo_recv *R,
                                         int L[6], float *own, float rec[TIDE_MAX_NEIGHBOURS],
                                         int *nrec)
{
	*own = TIDE_BLOCK_IFACE(buffers[0])->hmax;
	int n = P->grid.halo_block ? R->n : 0;
	STARPU_ASSERT(n >= 0 && n <= TIDE_MAX_NEIGHBOURS);
	for (int j = 0; j < n; j++) rec[j] = TIDE_BLOCK_IFACE(buffers[3 + nhalo + j])->hmax;
	*nrec = n;
	for (int f = 0; f < 6; f++) {
		L[f] = tide_halo_layers(&P->grid);
		if (slot[f] < 0 || !n) continue;
		int l = tide_gas_face_layers(&P->grid, *own, n, R->slot, rec, slot[f]);
		if (l > 0) L[f] = l;
	}
}

/* The depth the pair of the block (record own) and the reader of halo r of H needs along a cut
 * axis (gas_halo.h; tide_halo_layers when not per block or a record is not known). */
static inline int tide_halo_pair_layers(const tide_sph_params *P, const tide_halo_cut *H, int r,
                                        float own, const float *rec, int nrec)
{
	int j = H->rec[r];
	if (!nrec || j < 0 || j >= nrec || own < 0.f || rec[j] < 0.f) return tide_halo_layers(&P->grid);
	return tide_gas_block_layers(&P->grid, rec[j] > own ? rec[j] : own);
}
#endif
