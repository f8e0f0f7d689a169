// SPDX-License-Identifier: LGPL-2.1-or-later
// halo_pack: a cell-sorted block's edges — for every face of its box across which it has
// neighbours, the boundary layers of cells (the particles within 2h of the face: one layer for
// WCSPH, tide_halo_layers for the gas scheme's deeper supports, tide_face_layers) — copied into
// the halo buffers the neighbours' sph_forces read.  Along axis[0] (slowest in the key) each
// edge is one contiguous run of the sorted block; along the other axes it is a selection in
// block order, so every halo stays sorted by cell key.  Only the fields in the halo's mask
// (TIDE_HALO_FIELDS: what sph_forces reads) are written and travel.
// Across a periodic face the halo holds the images of the edge (shifted by the period, keyed in
// the ghost layer beyond the neighbour's face: sph_params.h), so sph_forces needs no periodic
// case of its own.
// Under the gas scheme each face carries as many layers as the largest h of the block and of
// the neighbours reading it needs (include/tide/gas_halo.h, halo_widths.h).
// Buffers: block, cell starts, scratch, then the faces that have neighbours (tide_face_slots),
// then (gas, per-block halos) the neighbours' migration buffers, for their records.
#include <string.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/halo_widths.h"
#include "tide/sph_interact.h"
#include "tide/codelet_decl.h"

static void check_cap(uint32_t n, uint32_t cap)
{
	STARPU_ASSERT_MSG(n <= cap,
	                  "halo of %u particles exceeds its capacity %u (particles far denser than "
	                  "at rest: the run has gone unphysical)", n, cap);
}

/* Particles from .. from+n-1 of the block into the halo from position `at`, masked fields only. */
static void copy_span(struct tide_block_iface *dst, const tide_block_view *src, uint32_t from,
                      uint32_t n, uint32_t at)
{
	check_cap(at + n, dst->cap);
	for (int f = 0; f < TIDE_BLOCK_MAX_FIELDS; f++) {
		if (!(dst->fields >> f & 1u)) continue; /* never read in a halo */
		size_t elem, off;
		tide_block_field(f, &elem, &off);
		memcpy((char *)dst->ptr + off * dst->cap + elem * at,
		       (const char *)src->x + off * src->cap + elem * from, elem * n);
	}
}

static void copy_run(struct tide_block_iface *dst, const tide_block_view *src, uint32_t from,
                     uint32_t n)
{
	copy_span(dst, src, from, n, 0);
	dst->count = n;
}

/* The particles whose cell has coordinate layer .. layer + nl - 1 along key axis k: in key
 * order they come in runs (a cell, or a row of cells), each copied as one span of the masked
 * fields. */
static void copy_layer(const tide_grid *g, struct tide_block_iface *dst, const tide_block_view *v,
                       int k, int layer, int nl)
{
	uint32_t n = 0, i = 0;
	while (i < v->count) {
		int c[3];
		tide_key_cell(g, v->key[i], c);
		if (c[k] < layer || c[k] >= layer + nl) { i++; continue; }
		uint32_t j = i + 1;
		for (; j < v->count; j++) {
			tide_key_cell(g, v->key[j], c);
			if (c[k] < layer || c[k] >= layer + nl) break;
		}
		copy_span(dst, v, i, j - i, n);
		n += j - i;
		i = j + 1; /* particle j is outside the layer */
	}
	dst->count = n;
}

/* A halo across a periodic face f holds the images of the edge layer (sph_params.h): those of
 * halo particles [from, from + n). */
static void make_images(const tide_sph_params *P, int f, struct tide_block_iface *dst,
                        uint32_t from, uint32_t n)
{
	tide_block_view h = tide_block_view_of(dst);
	int d = P->grid.axis[f / 2];
	double L = P->dom_hi[d] - P->dom_lo[d];
	for (uint32_t i = from; i < from + n; i++)
		tide_periodic_image(&P->grid, f, L, &h.x[i], &h.y[i], &h.z[i], &h.key[i]);
}

/* A face halo of key axis 0 when key axis 1 is periodic too (the blocks then span it): the
 * layer's first and last rows along axis 1 come again as their images across axis 1's faces,
 * the last row's (keyed in ghost row 0) before the layer and the first row's (ghost row n - 1)
 * after it, so the halo stays sorted by key.  These are the corner images a neighbour across
 * both periodic faces needs; the faces of axis 1 carry no images along axis 0, so no image
 * comes twice (sph_params.h). */
static void copy_layer_rows(const tide_sph_params *P, const tide_block_arg *A,
                            const uint32_t *start, struct tide_block_iface *dst,
                            const tide_block_view *v, int layer, uint32_t from, uint32_t n)
{
	uint32_t w2 = (uint32_t)(A->hi2 - A->lo2);
	int first[3] = {layer, A->lo1, A->lo2}, last[3] = {layer, A->hi1 - 1, A->lo2};
	uint32_t a = tide_box_index(A, first), b = tide_box_index(A, last);
	uint32_t na = start[a + w2] - start[a], nb = start[b + w2] - start[b];
	copy_span(dst, v, start[b], nb, 0);
	copy_span(dst, v, from, n, nb);
	copy_span(dst, v, start[a], na, nb + n);
	dst->count = nb + n + na;
	make_images(P, 3, dst, 0, nb);
	make_images(P, 2, dst, nb + n, na);
}

static void halo_pack_cpu(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_block_arg A;
	tide_halo_recv R;
	starpu_codelet_unpack_args(cl_arg, &P, &A, &R, 0);
	const tide_grid *g = &P.grid;
	tide_block_view v = tide_block_view_of(buffers[0]);
	const uint32_t *start = (const uint32_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
	uint32_t ncell = (uint32_t)STARPU_VECTOR_GET_NX(buffers[1]) - 1;
	int lo[3], hi[3], slot[6], L[6];
	float own;
	tide_box_bounds(&A, lo, hi);
	int nface = tide_face_slots(g, &A, slot);
	tide_halo_pack_layers(&P, buffers, slot, nface, &R, L, &own);
	for (int f = 0; f < 6; f++) {
		if (slot[f] < 0) continue;
		struct tide_block_iface *dst = TIDE_BLOCK_IFACE(buffers[3 + slot[f]]);
		int k = f / 2, side = f % 2, first, nl;
		tide_face_layers_n(&A, f, L[f], &first, &nl);
		dst->count = 0;
		dst->hmax = own;
		if (k == 0) {
			uint32_t layer = ncell / (uint32_t)(A.l1 - A.l0) * (uint32_t)nl;
			uint32_t from = side ? start[ncell - layer] : 0;
			uint32_t n = side ? v.count - from : start[layer];
			if (tide_ghost(g, g->axis[1])) /* periodic: one layer (tide_case_gas_h_cell) */
				copy_layer_rows(&P, &A, start, dst, &v, side ? hi[0] - 1 : lo[0], from, n);
			else
				copy_run(dst, &v, from, n);
		} else {
			copy_layer(g, dst, &v, k, first, nl);
		}
		if (tide_face_periodic(g, &A, f)) make_images(&P, f, dst, 0, dst->count);
	}
}

TIDE_CODELET_VARIABLE(halo_pack, halo_pack_cpu, tide_halo_pack_cuda);
