/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where the SPS turbulence closure (physics.viscosity: laminar+sps; the maths in sph_pair.h)
 * keeps its per-particle values: the block's optional aux fields (include/tide/block.h), all
 * twelve of them.
 *   aux0 .. aux5   tau / rho^2 (xx, xy, xz, yy, yz, zz), written by sps_tau after a force
 *                  pass and read by the next one, of the particle and of its neighbours: the
 *                  halos of a laminar+sps run carry them (TIDE_SPS_HALO_FIELDS);
 *   aux6 .. aux11  the velocity gradient (same order, off-diagonal components du/dy + dv/dx
 *                  ...), written by sph_forces and read by sps_tau of the same block.
 * Boundary particles hold zeros in both. */
#ifndef TIDE_SPS_H
#define TIDE_SPS_H
#include "tide/block.h"

#define TIDE_SPS_NAUX 12
#define TIDE_SPS_TAU_XX aux0
#define TIDE_SPS_TAU_XY aux1
#define TIDE_SPS_TAU_XZ aux2
#define TIDE_SPS_TAU_YY aux3
#define TIDE_SPS_TAU_YZ aux4
#define TIDE_SPS_TAU_ZZ aux5
#define TIDE_SPS_GRAD_XX aux6
#define TIDE_SPS_GRAD_XY aux7
#define TIDE_SPS_GRAD_XZ aux8
#define TIDE_SPS_GRAD_YY aux9
#define TIDE_SPS_GRAD_YZ aux10
#define TIDE_SPS_GRAD_ZZ aux11

/* The fields a laminar+sps neighbour pass reads of a halo besides TIDE_HALO_FIELDS: tau. */
#define TIDE_SPS_HALO_FIELDS                                                                    \
	(TIDE_FIELD_BIT(aux0) | TIDE_FIELD_BIT(aux1) | TIDE_FIELD_BIT(aux2) |                   \
	 TIDE_FIELD_BIT(aux3) | TIDE_FIELD_BIT(aux4) | TIDE_FIELD_BIT(aux5))

/* A view's tau and gradient arrays in sph_pair.h's component order (TIDE_SPS_XX ...). */
#define TIDE_SPS_TAU_PTRS(v)                                                                    \
	{(v).TIDE_SPS_TAU_XX, (v).TIDE_SPS_TAU_XY, (v).TIDE_SPS_TAU_XZ, (v).TIDE_SPS_TAU_YY,    \
	 (v).TIDE_SPS_TAU_YZ, (v).TIDE_SPS_TAU_ZZ}
#define TIDE_SPS_GRAD_PTRS(v)                                                                   \
	{(v).TIDE_SPS_GRAD_XX, (v).TIDE_SPS_GRAD_XY, (v).TIDE_SPS_GRAD_XZ, (v).TIDE_SPS_GRAD_YY, \
	 (v).TIDE_SPS_GRAD_YZ, (v).TIDE_SPS_GRAD_ZZ}

#endif
