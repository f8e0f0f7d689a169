// SPDX-License-Identifier: LGPL-2.1-or-later
// cell_sort: the neighbour-search preparation of the SPH paper for one block.  Each particle gets
// the key of its cell (side 2h), the particles are sorted by key with an LSD radix sort, every
// field is reordered, and the first-particle index of each cell is built, so that a particle's
// neighbours are the contiguous runs of its own and the 26 adjacent cells.  The keys are not
// kept: the cell starts tell each particle's cell (tide_sorted_cell, block.h).
#include <string.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/sph_params.h"
#include "tide/codelet_decl.h"

/* The scratch of the sort-based codelets (codelets.h).  The CPU halves use none of it: cell_sort
 * keeps its keys, indices and gather space in the block's work space (block.h). */
size_t tide_sort_scratch_bytes(size_t cap, size_t list)
{
	size_t b = 512;
#ifdef TIDE_USE_CUDA
	if (starpu_cuda_worker_get_count() > 0)
		b = tide_cuda_scratch_bytes(cap, list);
#else
	(void)cap; (void)list;
#endif
	return b;
}

/* LSD radix sort of (key, index) pairs, 8 bits per pass; returns the buffer holding the result. */
static void radix_sort(uint32_t n, unsigned bits, uint32_t **k, uint32_t **kt, uint32_t **ix,
                       uint32_t **ixt)
{
	for (unsigned shift = 0; shift < bits; shift += 8) {
		uint32_t count[257] = {0};
		for (uint32_t i = 0; i < n; i++) count[(((*k)[i] >> shift) & 255u) + 1]++;
		for (int d = 0; d < 256; d++) count[d + 1] += count[d];
		for (uint32_t i = 0; i < n; i++) {
			uint32_t d = ((*k)[i] >> shift) & 255u, to = count[d]++;
			(*kt)[to] = (*k)[i];
			(*ixt)[to] = (*ix)[i];
		}
		uint32_t *t = *k; *k = *kt; *kt = t;
		t = *ix; *ix = *ixt; *ixt = t;
	}
}

/* start[c] = index of the first particle of local cell c; start[ncell] = n. */
static void build_starts(const uint32_t *key, uint32_t n, uint32_t *start, uint32_t ncell)
{
	uint32_t c = 0;
	for (uint32_t i = 0; i < n; i++)
		while (c <= key[i]) start[c++] = i;
	while (c <= ncell) start[c++] = n;
}

/* Reorders every field but the work space by perm, through tmp: the gather space
 * (block.h), 4-byte aligned only, so 8-byte values move by memcpy. */
static void gather_fields(tide_block_view *v, const uint32_t *perm, void *tmp)
{
	for (int f = 0; f < tide_block_nfields(); f++) {
		if (tide_block_field_is_work(f)) continue; /* see cell_sort_cpu */
		size_t elem, off;
		tide_block_field(f, &elem, &off);
		char *field = (char *)v->x + off * v->cap;
		if (elem == 8) {
			char *d = tmp;
			for (uint32_t i = 0; i < v->count; i++) memcpy(d + 8 * (size_t)i, field + 8 * (size_t)perm[i], 8);
		} else if (elem == 4) {
			const uint32_t *s = (const uint32_t *)field;
			uint32_t *d = tmp;
			for (uint32_t i = 0; i < v->count; i++) d[i] = s[perm[i]];
		} else { /* the type bytes */
			const uint8_t *s = (const uint8_t *)field;
			uint8_t *d = tmp;
			for (uint32_t i = 0; i < v->count; i++) d[i] = s[perm[i]];
		}
		memcpy(field, tmp, elem * v->count);
	}
}

static void cell_sort_cpu(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_block_arg A;
	starpu_codelet_unpack_args(cl_arg, &P, &A, 0);
	tide_block_view v = tide_block_view_of(buffers[0]);
	uint32_t *start = (uint32_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
	uint32_t ncell = (uint32_t)STARPU_VECTOR_GET_NX(buffers[1]) - 1;
	uint32_t n = v.count;
	/* keys and indices in the block's work space (block.h), which the gather does not move */
	tide_sort_space w = tide_block_sort_space(&v);
	STARPU_ASSERT(ncell == tide_box_ncell(&A));

	for (uint32_t i = 0; i < n; i++) {
		w.ka[i] = tide_local_key(&P.grid, v.x[i], v.y[i], v.z[i], &A);
		w.ia[i] = i;
	}
	uint32_t *k = w.ka, *kt = w.kb, *ix = w.ia, *ixt = w.ib;
	radix_sort(n, tide_key_bits(ncell), &k, &kt, &ix, &ixt);
	/* the cell starts first: then both key arrays are free for the gather (ix is in ia or ib) */
	build_starts(k, n, start, ncell);
	gather_fields(&v, ix, w.gather);
}

TIDE_CODELET(cell_sort, cell_sort_cpu, tide_cell_sort_cuda, 3, STARPU_RW, STARPU_W, STARPU_SCRATCH);
