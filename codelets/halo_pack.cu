// SPDX-License-Identifier: LGPL-2.1-or-later
// halo_pack on the GPU.  Along axis[0] the two edge sizes live in the device's cell-start table;
// they are read back (8 bytes) because a halo's particle count is part of its StarPU interface,
// then the edge runs are copied device to device on StarPU's stream.  Along the other axes an
// edge is a stable selection of the block by cell coordinate, whose size comes back the same way.
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

static void copy_run(struct tide_block_iface *dst, const tide_block_view &src, uint32_t from,
                     uint32_t n, cudaStream_t s)
{
	check_cap(n, dst->cap);
	tide_block_view d = tide_block_view_of(dst);
	for (int f = 0; f < TIDE_BLOCK_MAX_FIELDS && n; f++) {
		if (!(dst->fields >> f & 1u)) continue; /* never read in a halo */
		size_t elem;
		char *sp = tide_field_ptr(src, f, &elem);
		char *dp = tide_field_ptr(d, f, &elem);
		TIDE_CUDA_CHECK(cudaMemcpyAsync(dp, sp + elem * from, elem * n,
		                                cudaMemcpyDeviceToDevice, s));
	}
	dst->count = n;
}

struct in_layer {
	tide_grid g;
	const uint32_t *key;
	int k, layer, nl;
	__device__ bool operator()(uint32_t i) const
	{
		int c[3];
		tide_key_cell(&g, key[i], c);
		return c[k] >= layer && c[k] < layer + nl;
	}
};

static void copy_layer(const tide_grid &g, struct tide_block_iface *dst, const tide_block_view &v,
                       int k, int layer, int nl, char *scr, size_t scr_bytes, cudaStream_t s)
{
	if (v.count == 0) return;
	uint32_t *list = (uint32_t *)scr, *n_d = list + v.cap;
	char *tmp = (char *)(n_d + 64);
	STARPU_ASSERT((size_t)(tmp - scr) < scr_bytes);
	tide_select_if(0, v.count, in_layer{g, v.key, k, layer, nl}, list, n_d, tmp,
	               scr_bytes - (size_t)(tmp - scr), s);
	uint32_t n;
	TIDE_CUDA_CHECK(cudaMemcpyAsync(&n, n_d, sizeof n, cudaMemcpyDeviceToHost, s));
	TIDE_CUDA_CHECK(cudaStreamSynchronize(s));
	check_cap(n, dst->cap);
	tide_block_view d = tide_block_view_of(dst);
	tide_copy_fields(d, nullptr, 0, v, list, n, nullptr, s, dst->fields);
	dst->count = n;
}

/* The images of a halo across a periodic face (sph_params.h), in place. */
__global__ static void image_kernel(tide_grid g, int f, double L, tide_block_view h, uint32_t n)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) tide_periodic_image(&g, f, L, &h.x[i], &h.y[i], &h.z[i], &h.key[i]);
}

/* Images of halo particles [from, from + n). */
static void make_images(const tide_sph_params &P, int f, struct tide_block_iface *dst,
                        uint32_t from, uint32_t n, cudaStream_t s)
{
	if (n == 0) return;
	int d = P.grid.axis[f / 2];
	tide_block_view h = tide_block_view_of(dst);
	h.x += from; h.y += from; h.z += from; h.key += from;
	image_kernel<<<tide_blocks_for(n, 256), 256, 0, s>>>(P.grid, f, P.dom_hi[d] - P.dom_lo[d],
	                                                       h, n);
}

/* The masked fields of block particles [from, from + n) into the halo from position at. */
static void copy_span(struct tide_block_iface *dst, const tide_block_view &src, uint32_t from,
                      uint32_t n, uint32_t at, cudaStream_t s)
{
	check_cap(at + n, dst->cap);
	tide_block_view d = tide_block_view_of(dst);
	for (int f = 0; f < TIDE_BLOCK_MAX_FIELDS && n; f++) {
		if (!(dst->fields >> f & 1u)) continue;
		size_t elem;
		char *sp = tide_field_ptr(src, f, &elem);
		char *dp = tide_field_ptr(d, f, &elem);
		TIDE_CUDA_CHECK(cudaMemcpyAsync(dp + elem * at, sp + elem * from, elem * n,
		                                cudaMemcpyDeviceToDevice, s));
	}
}

/* The CPU's copy_layer_rows (halo_pack.c): a face halo of key axis 0 when key axis 1 is
 * periodic too, with the corner images of the layer's first and last rows. */
static void copy_layer_rows(const tide_sph_params &P, const tide_block_arg &A,
                            const uint32_t *start_d, struct tide_block_iface *dst,
                            const tide_block_view &v, int layer, uint32_t from, uint32_t n,
                            cudaStream_t s)
{
	uint32_t w2 = (uint32_t)(A.hi2 - A.lo2), r[4];
	int first[3] = {layer, A.lo1, A.lo2}, last[3] = {layer, A.hi1 - 1, A.lo2};
	uint32_t a = tide_box_index(&A, first), b = tide_box_index(&A, last);
	uint32_t at[4] = {a, a + w2, b, b + w2};
	for (int i = 0; i < 4; i++)
		TIDE_CUDA_CHECK(cudaMemcpyAsync(&r[i], start_d + at[i], sizeof(uint32_t),
		                                cudaMemcpyDeviceToHost, s));
	TIDE_CUDA_CHECK(cudaStreamSynchronize(s));
	uint32_t na = r[1] - r[0], nb = r[3] - r[2];
	copy_span(dst, v, r[2], nb, 0, s);
	copy_span(dst, v, from, n, nb, s);
	copy_span(dst, v, r[0], na, nb + n, s);
	dst->count = nb + n + na;
	make_images(P, 3, dst, 0, nb, s);
	make_images(P, 2, dst, nb + n, na, s);
}

extern "C" void tide_halo_pack_cuda(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_block_arg A;
	tide_halo_recv R;
	starpu_codelet_unpack_args(cl_arg, &P, &A, &R, 0);
	const tide_grid &g = P.grid;
	tide_block_view v = tide_block_view_of(buffers[0]);
	const uint32_t *start = (const uint32_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
	uint32_t ncell = (uint32_t)STARPU_VECTOR_GET_NX(buffers[1]) - 1;
	char *scr = (char *)STARPU_VECTOR_GET_PTR(buffers[2]);
	size_t scr_bytes = STARPU_VECTOR_GET_NX(buffers[2]) * STARPU_VECTOR_GET_ELEMSIZE(buffers[2]);
	cudaStream_t s = starpu_cuda_get_local_stream();
	int lo[3], hi[3], slot[6], L[6];
	float own;
	tide_box_bounds(&A, lo, hi);
	int nface = tide_face_slots(&g, &A, slot);
	tide_halo_pack_layers(&P, buffers, slot, nface, &R, L, &own);
	/* the two edges along axis[0] are runs: their bounds come back together (each face its
	 * own depth: gas_halo.h) */
	int first0, nl0, first1, nl1;
	tide_face_layers_n(&A, 0, L[0], &first0, &nl0);
	tide_face_layers_n(&A, 1, L[1], &first1, &nl1);
	uint32_t per = ncell / (uint32_t)(A.l1 - A.l0), ends[2] = {0, v.count};
	if (slot[0] >= 0)
		TIDE_CUDA_CHECK(cudaMemcpyAsync(&ends[0], start + per * (uint32_t)nl0, sizeof(uint32_t),
		                                cudaMemcpyDeviceToHost, s));
	if (slot[1] >= 0)
		TIDE_CUDA_CHECK(cudaMemcpyAsync(&ends[1], start + ncell - per * (uint32_t)nl1,
		                                sizeof(uint32_t), cudaMemcpyDeviceToHost, s));
	if (slot[0] >= 0 || slot[1] >= 0) TIDE_CUDA_CHECK(cudaStreamSynchronize(s));
	for (int f = 0; f < 6; f++) {
		if (slot[f] < 0) continue;
		struct tide_block_iface *dst = TIDE_BLOCK_IFACE(buffers[3 + slot[f]]);
		int k = f / 2, side = f % 2, first, nl;
		tide_face_layers_n(&A, f, L[f], &first, &nl);
		dst->count = 0;
		dst->hmax = own;
		if (f < 2 && tide_ghost(&g, g.axis[1]))
			copy_layer_rows(P, A, start, dst, v, side ? hi[0] - 1 : lo[0], f ? ends[1] : 0,
			                f ? v.count - ends[1] : ends[0], s);
		else if (f == 0) copy_run(dst, v, 0, ends[0], s);
		else if (f == 1) copy_run(dst, v, ends[1], v.count - ends[1], s);
		else copy_layer(g, dst, v, k, first, nl, scr, scr_bytes, s);
		if (tide_face_periodic(&g, &A, f)) make_images(P, f, dst, 0, dst->count, s);
	}
	TIDE_CUDA_CHECK(cudaGetLastError());
}
