// SPDX-License-Identifier: LGPL-2.1-or-later
// halo_pack on the GPU (the CPU's halo_pack.c, include/tide/halo_cut.h: one halo per reader, the
// cells its support reaches).  A region whole along key axes 1 and 2 is one run of the block whose
// bounds live in the device's cell-start table; they are read back (8 bytes a halo) because a
// halo's particle count is part of its StarPU interface, then the runs are copied device to device
// on StarPU's stream.  Any other region is a stable selection of the block by cell coordinate,
// whose size comes back the same way.
// Each face's depth (the gas scheme: per block, include/tide/gas_halo.h) comes from the records
// in the interfaces (host memory): nothing more to read back.
#include "tide/cuda_select.cuh"
#include "tide/sph_params.h"

extern "C" {
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/halo_widths.h"
}

static void check_cap(uint32_t n, uint32_t cap)
{
	STARPU_ASSERT_MSG(n <= cap,
	                  "halo of %u particles exceeds its capacity %u (particles far denser than "
	                  "at rest: the run has gone unphysical)", n, cap);
}

/* The block being packed: its view, box and cell starts (on the device). */
struct packed {
	tide_grid g;
	tide_block_arg A;
	tide_block_view v;
	const uint32_t *start;
	uint32_t ncell;
};

/* The global cell key of each halo particle (block.h, TIDE_HALO_KEY) from the block's cell
 * starts: key[i] for block particle list[i] (list NULL: from + i). */
__global__ static void keys_kernel(packed B, const uint32_t *list, uint32_t from, uint32_t n,
                                   uint32_t *key)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n) return;
	uint32_t c = tide_sorted_cell(B.start, B.ncell, list ? list[i] : from + i);
	key[i] = tide_box_key(&B.g, &B.A, c);
}

static void halo_keys(struct tide_block_iface *dst, const packed &B, const uint32_t *list,
                      uint32_t from, uint32_t n, uint32_t at, cudaStream_t s)
{
	if (n == 0) return;
	tide_block_view d = tide_block_view_of(dst);
	keys_kernel<<<tide_blocks_for(n, 256), 256, 0, s>>>(B, list, from, n, tide_halo_keys(&d) + at);
}

static void copy_run(struct tide_block_iface *dst, const packed &B, uint32_t from, uint32_t n,
                     cudaStream_t s)
{
	check_cap(n, dst->cap);
	const tide_block_view &src = B.v;
	tide_block_view d = tide_block_view_of(dst);
	halo_keys(dst, B, nullptr, from, n, 0, s);
	for (int f = 0; f < TIDE_BLOCK_MAX_FIELDS && n; f++) {
		if (!(dst->fields >> f & 1u) || f == TIDE_F_HALO_KEY) continue; /* never read in a halo */
		size_t elem;
		char *sp = tide_field_ptr(src, f, &elem);
		char *dp = tide_field_ptr(d, f, &elem);
		TIDE_CUDA_CHECK(cudaMemcpyAsync(dp, sp + elem * from, elem * n,
		                                cudaMemcpyDeviceToDevice, s));
	}
	dst->count = n;
}

/* Is particle i's cell in the region lo..hi (key coordinates)? */
struct in_box {
	packed B;
	int lo[3], hi[3];
	__device__ bool operator()(uint32_t i) const
	{
		int c[3];
		tide_key_cell(&B.g, tide_box_key(&B.g, &B.A, tide_sorted_cell(B.start, B.ncell, i)), c);
		return c[0] >= lo[0] && c[0] < hi[0] && c[1] >= lo[1] && c[1] < hi[1] && c[2] >= lo[2] &&
		       c[2] < hi[2];
	}
};

/* A region not whole along key axes 1 and 2 (the CPU copies it row by row): a stable selection
 * among the particles of its layers along key axis 0 (one run of the block, [from, to): an edge
 * or corner halo across a face of axis 0 scans that layer only), whose size comes back to the
 * host. */
static void copy_box(const packed &B, struct tide_block_iface *dst, const int lo[3],
                     const int hi[3], uint32_t from, uint32_t to, char *scr, size_t scr_bytes,
                     cudaStream_t s)
{
	if (to <= from) return;
	const tide_block_view &v = B.v;
	uint32_t *list = (uint32_t *)scr, *n_d = list + v.cap;
	char *tmp = (char *)(n_d + 64);
	STARPU_ASSERT((size_t)(tmp - scr) < scr_bytes);
	in_box sel{B, {lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}};
	tide_select_if(from, to - from, sel, list, n_d, tmp, scr_bytes - (size_t)(tmp - scr), s);
	uint32_t n;
	TIDE_CUDA_CHECK(cudaMemcpyAsync(&n, n_d, sizeof n, cudaMemcpyDeviceToHost, s));
	TIDE_CUDA_CHECK(cudaStreamSynchronize(s));
	check_cap(n, dst->cap);
	tide_block_view d = tide_block_view_of(dst);
	tide_copy_fields(d, nullptr, 0, v, list, n, nullptr, s, dst->fields & ~(1u << TIDE_F_HALO_KEY));
	halo_keys(dst, B, list, 0, n, 0, s);
	dst->count = n;
}

/* The images of a halo across a periodic face (sph_params.h), in place. */
__global__ static void image_kernel(tide_grid g, int f, double L, tide_block_view h, uint32_t n)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) tide_periodic_image(&g, f, L, &h.x[i], &h.y[i], &h.z[i], &tide_halo_keys(&h)[i]);
}

/* Images of halo particles [from, from + n). */
static void make_images(const tide_sph_params &P, int f, struct tide_block_iface *dst,
                        uint32_t from, uint32_t n, cudaStream_t s)
{
	if (n == 0) return;
	int d = P.grid.axis[f / 2];
	tide_block_view h = tide_block_view_of(dst);
	h.x += from; h.y += from; h.z += from; h.TIDE_HALO_KEY += from;
	image_kernel<<<tide_blocks_for(n, 256), 256, 0, s>>>(P.grid, f, P.dom_hi[d] - P.dom_lo[d],
	                                                       h, n);
}

/* The masked fields of block particles [from, from + n) into the halo from position at. */
static void copy_span(struct tide_block_iface *dst, const packed &B, uint32_t from, uint32_t n,
                      uint32_t at, cudaStream_t s)
{
	check_cap(at + n, dst->cap);
	const tide_block_view &src = B.v;
	tide_block_view d = tide_block_view_of(dst);
	halo_keys(dst, B, nullptr, from, n, at, s);
	for (int f = 0; f < TIDE_BLOCK_MAX_FIELDS && n; f++) {
		if (!(dst->fields >> f & 1u) || f == TIDE_F_HALO_KEY) continue;
		size_t elem;
		char *sp = tide_field_ptr(src, f, &elem);
		char *dp = tide_field_ptr(d, f, &elem);
		TIDE_CUDA_CHECK(cudaMemcpyAsync(dp + elem * at, sp + elem * from, elem * n,
		                                cudaMemcpyDeviceToDevice, s));
	}
}

/* The CPU's copy_layer_rows (halo_pack.c): a face halo of key axis 0 when key axis 1 is
 * periodic too, with the corner images of the layer's first and last rows. */
static void copy_layer_rows(const tide_sph_params &P, const packed &B,
                            struct tide_block_iface *dst, int layer, uint32_t from, uint32_t n,
                            cudaStream_t s)
{
	const tide_block_arg &A = B.A;
	const uint32_t *start_d = B.start;
	uint32_t w2 = (uint32_t)(A.hi2 - A.lo2), r[4];
	int first[3] = {layer, A.lo1, A.lo2}, last[3] = {layer, A.hi1 - 1, A.lo2};
	uint32_t a = tide_box_index(&A, first), b = tide_box_index(&A, last);
	uint32_t at[4] = {a, a + w2, b, b + w2};
	for (int i = 0; i < 4; i++)
		TIDE_CUDA_CHECK(cudaMemcpyAsync(&r[i], start_d + at[i], sizeof(uint32_t),
		                                cudaMemcpyDeviceToHost, s));
	TIDE_CUDA_CHECK(cudaStreamSynchronize(s));
	uint32_t na = r[1] - r[0], nb = r[3] - r[2];
	copy_span(dst, B, r[2], nb, 0, s);
	copy_span(dst, B, from, n, nb, s);
	copy_span(dst, B, r[0], na, nb + n, s);
	dst->count = nb + n + na;
	make_images(P, 3, dst, 0, nb, s);
	make_images(P, 2, dst, nb + n, na, s);
}

extern "C" void tide_halo_pack_cuda(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_block_arg A;
	tide_halo_recv R;
	tide_halo_cut H;
	starpu_codelet_unpack_args(cl_arg, &P, &A, &R, &H, 0);
	const tide_grid &g = P.grid;
	tide_block_view v = tide_block_view_of(buffers[0]);
	const uint32_t *start = (const uint32_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
	char *scr = (char *)STARPU_VECTOR_GET_PTR(buffers[2]);
	size_t scr_bytes = STARPU_VECTOR_GET_NX(buffers[2]) * STARPU_VECTOR_GET_ELEMSIZE(buffers[2]);
	cudaStream_t s = starpu_cuda_get_local_stream();
	const packed B = {g, A, v, start, tide_box_ncell(&A)};
	int slot[6], L[6], nrec, lo[TIDE_MAX_NEIGHBOURS][3], hi[TIDE_MAX_NEIGHBOURS][3];
	float own, rec[TIDE_MAX_NEIGHBOURS];
	tide_face_slots(&g, &A, slot);
	tide_halo_pack_layers(&P, buffers, slot, H.n, &R, L, &own, rec, &nrec);
	/* the bounds of each region's layers along key axis 0, one run of the block, live in the
	 * device's cell-start table: they come back together.  A region whole along key axes 1 and
	 * 2 (the face halos of axis 0, every halo of slabs) is that run. */
	uint32_t ends[TIDE_MAX_NEIGHBOURS][2];
	int run[TIDE_MAX_NEIGHBOURS];
	for (int r = 0; r < H.n; r++) {
		tide_halo_region(&A, &H, r, L, tide_halo_pair_layers(&P, &H, r, own, rec, nrec), lo[r], hi[r]);
		run[r] = tide_halo_region_run(&A, lo[r], hi[r]);
		ends[r][0] = ends[r][1] = 0;
		if (hi[r][0] <= lo[r][0]) continue;
		int a[3] = {lo[r][0], A.lo1, A.lo2}, b[3] = {hi[r][0] - 1, A.hi1 - 1, A.hi2 - 1};
		TIDE_CUDA_CHECK(cudaMemcpyAsync(&ends[r][0], start + tide_box_index(&A, a), sizeof(uint32_t),
		                                cudaMemcpyDeviceToHost, s));
		TIDE_CUDA_CHECK(cudaMemcpyAsync(&ends[r][1], start + tide_box_index(&A, b) + 1,
		                                sizeof(uint32_t), cudaMemcpyDeviceToHost, s));
	}
	if (H.n) TIDE_CUDA_CHECK(cudaStreamSynchronize(s));
	for (int r = 0; r < H.n; r++) {
		struct tide_block_iface *dst = TIDE_BLOCK_IFACE(buffers[3 + r]);
		int f = H.face[r];
		dst->count = 0;
		dst->hmax = own;
		if (f < 2 && tide_ghost(&g, g.axis[1]))
			/* periodic: one layer, the whole face (halo_cut.h) */
			copy_layer_rows(P, B, dst, lo[r][0], ends[r][0], ends[r][1] - ends[r][0], s);
		else if (run[r]) copy_run(dst, B, ends[r][0], ends[r][1] - ends[r][0], s);
		else copy_box(B, dst, lo[r], hi[r], ends[r][0], ends[r][1], scr, scr_bytes, s);
		if (tide_face_periodic(&g, &A, f)) make_images(P, f, dst, 0, dst->count, s);
	}
	TIDE_CUDA_CHECK(cudaGetLastError());
}
