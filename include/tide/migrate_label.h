/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where a particle of a block goes at migration (shared by C and CUDA). */
#ifndef TIDE_MIGRATE_LABEL_H
#define TIDE_MIGRATE_LABEL_H
#include "tide/block.h"
#include "tide/sph_params.h"

enum tide_mig { TIDE_MIG_STAY = 0, TIDE_MIG_LOW = 1, TIDE_MIG_HIGH = 2, TIDE_MIG_GONE = 3 };

TIDE_HD int tide_migrate_label(const tide_sph_params *P, const tide_block_arg *A,
                               const tide_block_view *v, uint32_t i)
{
	double p[3] = {v->x[i], v->y[i], v->z[i]};
	for (int d = 0; d < 3; d++)
		if (!(p[d] >= P->dom_lo[d] && p[d] <= P->dom_hi[d])) return TIDE_MIG_GONE; /* NaN too */
	int l = tide_layer_of(&P->grid, p[0], p[1], p[2]);
	if (l < A->l0) return TIDE_MIG_LOW;
	if (l >= A->l1) return TIDE_MIG_HIGH;
	return TIDE_MIG_STAY;
}

#endif
