/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The gas scheme's halo widths per block (issue 23).  A pair (i, j) of particles is needed
 * within 2 max(h_i, h_j) (gas_math.h), so the halo a block A sends its neighbour B must hold A's
 * particles within 2 max(hmax_A, hmax_B) of B: the layers of tide_gas_halo_depth (25 % room)
 * for the larger of the two blocks' largest h, not for the step's global largest h.  In a
 * collapse the dense core's blocks then exchange a layer or two where the outskirts need many.
 *
 * The records: migrate_pack writes the largest h of a block's particles (before any leave)
 * into the block and into its migration buffers (block_interface.h, hmax), which go to every
 * neighbour anyway; halo_pack reads the neighbours' ones it already received, and copies its
 * block's into its halos.  Sender and receiver read the same record, on any rank, with no
 * message and no host wait of their own.  In the step that follows:
 *   - the halo of face slot s of A carries tide_gas_face_layers: the depth for the largest of
 *     A's record and those of the neighbours that read that face;
 *   - A's particles take h <= the depth the narrowest halo A reads was made for, the largest
 *     of A's record and that halo's sender's (tide_gas_own_layers; at least A's own record's
 *     depth; tide_halo_own, gas_math.h's tide_gas_h_cap: a particle whose h would grow beyond
 *     it, or that arrives from a block of larger h, is held there for the step, as under one
 *     global width), so every pair across a halo is in it: the halos C -> A and A -> C both
 *     carry at least the depth for max(record_A, record_C);
 *   - A's passes search as far as the widest halo A reads (tide_gas_reach_layers,
 *     tide_halo_layers).
 * A record is not known (hmax < 0) until the first migrate_pack after a registration: the
 * global width of the host's tide_grid.halo_now holds then.  Particles that arrive in A carry
 * an h of their old block's record, held to A's for a step if larger. */
#ifndef TIDE_GAS_HALO_H
#define TIDE_GAS_HALO_H
#include "tide/gas_math.h"

/* Layers the supports of a block whose record is hmax need (tide_gas_halo_depth), or 0 when
 * the record is not known (the global width then). */
TIDE_HD int tide_gas_block_layers(const tide_grid *g, float hmax)
{
	return hmax < 0.f ? 0 : tide_gas_halo_depth(g, hmax);
}

/* Layers of the halo of face slot s of a block whose record is own, read by the neighbours j
 * with slot[j] == s, whose records are rec[j] (n of them): the depth for the largest h of the
 * two sides of every pair it serves; 0 when a record is not known. */
TIDE_HD int tide_gas_face_layers(const tide_grid *g, float own, int n, const signed char *slot,
                                 const float *rec, int s)
{
	float h = own;
	for (int j = 0; j < n; j++) {
		if (slot[j] != s) continue;
		if (rec[j] < 0.f) return 0;
		h = rec[j] > h ? rec[j] : h;
	}
	return tide_gas_block_layers(g, h);
}

/* The layers a block's own supports may reach, from its record own and those of the nh
 * blocks whose halos it reads (rec, which the halos carry): the narrowest of those halos, each
 * made for the larger of own and its sender's record; own's alone without halos; 0 when a
 * record is not known. */
TIDE_HD int tide_gas_own_layers(const tide_grid *g, float own, int nh, const float *rec)
{
	if (own < 0.f) return 0;
	float h = -1.f;
	for (int j = 0; j < nh; j++) {
		if (rec[j] < 0.f) return 0;
		float p = rec[j] > own ? rec[j] : own;
		h = h < 0.f || p < h ? p : h;
	}
	return tide_gas_block_layers(g, h < 0.f ? own : h);
}

/* The layers a block's passes may search beyond its box: the widest halo it reads (the
 * largest record of its own and its neighbours'); 0 when a record is not known. */
TIDE_HD int tide_gas_reach_layers(const tide_grid *g, float own, int nh, const float *rec)
{
	float h = own;
	for (int j = 0; j < nh; j++) {
		if (rec[j] < 0.f) return 0;
		h = rec[j] > h ? rec[j] : h;
	}
	return tide_gas_block_layers(g, h);
}

#endif
