// SPDX-License-Identifier: LGPL-2.1-or-later
// halo_pack: a cell-sorted block's edges — for every neighbour that reads it, the cells its
// support reaches (include/tide/halo_cut.h: the face layer toward it, cut to a strip or a column
// for an edge or a corner neighbour; one layer for WCSPH, tide_halo_layers for the gas scheme's
// deeper supports) — copied into the halo buffers the neighbours' sph_forces read.  A region is
// a sub-box of the block, copied row by row from the cell starts (one run when it is whole along
// key axes 1 and 2), so every halo stays sorted by cell key.  Only the fields in the halo's mask
// (TIDE_HALO_FIELDS: what sph_forces reads) are written and travel.
// Across a periodic face the halo holds the images of the edge (shifted by the period, keyed in
// the ghost layer beyond the neighbour's face: sph_params.h), so sph_forces needs no periodic
// case of its own.
// Under the gas scheme each face carries as many layers as the largest h of the block and of
// the neighbours reading it needs (include/tide/gas_halo.h, halo_widths.h).
// Buffers: block, cell starts, scratch, then one halo per reader (tide_halo_cut's order), then
// (gas, per-block halos) the neighbours' migration buffers, for their records.
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

/* The block being packed: its view, box and cell starts (the cells its particles are in). */
typedef struct packed {
	const tide_grid *g;
	const tide_block_arg *A;
	const tide_block_view *v;
	const uint32_t *start;
	uint32_t ncell;
} packed;

/* Particles from .. from+n-1 of the block into the halo from position `at`: the masked fields,
 * and each particle's global cell key into the halo's keys (block.h, TIDE_HALO_KEY) from the
 * block's cell starts. */
static void copy_span(struct tide_block_iface *dst, const packed *B, uint32_t from, uint32_t n,
                      uint32_t at)
{
	check_cap(at + n, dst->cap);
	for (int f = 0; f < TIDE_BLOCK_MAX_FIELDS; f++) {
		if (!(dst->fields >> f & 1u) || f == TIDE_F_HALO_KEY) continue; /* never read in a halo */
		size_t elem, off;
		tide_block_field(f, &elem, &off);
		memcpy((char *)dst->ptr + off * dst->cap + elem * at,
		       (const char *)B->v->x + off * B->v->cap + elem * from, elem * n);
	}
	tide_block_view h = tide_block_view_of(dst);
	uint32_t *key = tide_halo_keys(&h) + at;
	for (uint32_t i = 0; i < n;) { /* a cell at a time */
		uint32_t c = tide_sorted_cell(B->start, B->ncell, from + i), e = B->start[c + 1] - from;
		uint32_t k = tide_box_key(B->g, B->A, c);
		for (; i < n && i < e; i++) key[i] = k;
	}
}

/* The particles of the cells lo..hi (key coordinates, a sub-box of box A) in key order: each row
 * of cells along key axis 2 is one run of the sorted block, and consecutive runs are merged, so a
 * region whole along axes 1 and 2 is one span. */
static void copy_box(const packed *B, struct tide_block_iface *dst, const int lo[3], const int hi[3])
{
	const tide_block_arg *A = B->A;
	const uint32_t *start = B->start;
	uint32_t n = 0, from = 0, len = 0;
	for (int c0 = lo[0]; c0 < hi[0]; c0++) {
		for (int c1 = lo[1]; c1 < hi[1] && lo[2] < hi[2]; c1++) {
			int a[3] = {c0, c1, lo[2]}, b[3] = {c0, c1, hi[2] - 1};
			uint32_t s = start[tide_box_index(A, a)], e = start[tide_box_index(A, b) + 1];
			if (from + len == s) {
				len += e - s;
				continue;
			}
			copy_span(dst, B, from, len, n);
			n += len;
			from = s;
			len = e - s;
		}
	}
	copy_span(dst, B, from, len, n);
	dst->count = n + len;
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
		tide_periodic_image(&P->grid, f, L, &h.x[i], &h.y[i], &h.z[i], &tide_halo_keys(&h)[i]);
}

/* A face halo of key axis 0 when key axis 1 is periodic too (the blocks then span it): the
 * layer's first and last rows along axis 1 come again as their images across axis 1's faces,
 * the last row's (keyed in ghost row 0) before the layer and the first row's (ghost row n - 1)
 * after it, so the halo stays sorted by key.  These are the corner images a neighbour across
 * both periodic faces needs; the faces of axis 1 carry no images along axis 0, so no image
 * comes twice (sph_params.h). */
static void copy_layer_rows(const tide_sph_params *P, const packed *B, struct tide_block_iface *dst,
                            int layer, uint32_t from, uint32_t n)
{
	const tide_block_arg *A = B->A;
	const uint32_t *start = B->start;
	uint32_t w2 = (uint32_t)(A->hi2 - A->lo2);
	int first[3] = {layer, A->lo1, A->lo2}, last[3] = {layer, A->hi1 - 1, A->lo2};
	uint32_t a = tide_box_index(A, first), b = tide_box_index(A, last);
	uint32_t na = start[a + w2] - start[a], nb = start[b + w2] - start[b];
	copy_span(dst, B, start[b], nb, 0);
	copy_span(dst, B, from, n, nb);
	copy_span(dst, B, start[a], na, nb + n);
	dst->count = nb + n + na;
	make_images(P, 3, dst, 0, nb);
	make_images(P, 2, dst, nb + n, na);
}

static void halo_pack_cpu(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_block_arg A;
	tide_halo_recv R;
	tide_halo_cut H;
	starpu_codelet_unpack_args(cl_arg, &P, &A, &R, &H, 0);
	const tide_grid *g = &P.grid;
	tide_block_view v = tide_block_view_of(buffers[0]);
	const uint32_t *start = (const uint32_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
	packed B = {g, &A, &v, start, tide_box_ncell(&A)};
	int slot[6], L[6], nrec;
	float own, rec[TIDE_MAX_NEIGHBOURS];
	tide_face_slots(g, &A, slot);
	tide_halo_pack_layers(&P, buffers, slot, H.n, &R, L, &own, rec, &nrec);
	for (int r = 0; r < H.n; r++) {
		struct tide_block_iface *dst = TIDE_BLOCK_IFACE(buffers[3 + r]);
		int f = H.face[r], lo[3], hi[3];
		tide_halo_region(&A, &H, r, L, tide_halo_pair_layers(&P, &H, r, own, rec, nrec), lo, hi);
		dst->count = 0;
		dst->hmax = own;
		if (f < 2 && tide_ghost(g, g->axis[1])) {
			/* periodic: one layer (tide_case_gas_h_cell), the whole face (halo_cut.h) */
			int a[3] = {lo[0], lo[1], lo[2]}, b[3] = {hi[0] - 1, hi[1] - 1, hi[2] - 1};
			uint32_t from = start[tide_box_index(&A, a)], to = start[tide_box_index(&A, b) + 1];
			copy_layer_rows(&P, &B, dst, lo[0], from, to - from);
		} else {
			copy_box(&B, dst, lo, hi);
		}
		if (tide_face_periodic(g, &A, f)) make_images(&P, f, dst, 0, dst->count);
	}
}

TIDE_CODELET_VARIABLE(halo_pack, halo_pack_cpu, tide_halo_pack_cuda);
