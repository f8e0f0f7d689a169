// SPDX-License-Identifier: LGPL-2.1-or-later
// StarPU data interface of an essential-node buffer (let_interface.h): one allocation of the
// capacity per memory node; copies and MPI packing move only the ncells cells, their moments and
// the nparts particles in use, so a message is as large as the essential set, not the capacity.
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include "tide/let_interface.h"
#include "iface_parts.h"

_Static_assert(offsetof(struct tide_let_iface, ptr) == 0, "the base first (iface_parts.h)");

static struct starpu_data_interface_ops let_ops;

static void let_register_handle(starpu_data_handle_t handle, int home_node, void *data_interface)
{
	tide_iface_register_nodes(handle, home_node, data_interface, sizeof(struct tide_let_iface));
}

static size_t let_alloc_bytes(const struct tide_let_iface *l)
{
	size_t b = bh_let_bytes(l->cap_cells, l->cap_parts);
	return b ? b : 1;
}

static starpu_ssize_t let_allocate(void *data_interface, unsigned node)
{
	struct tide_let_iface *l = data_interface;
	uintptr_t p = starpu_malloc_on_node(node, let_alloc_bytes(l));
	if (!p) return -ENOMEM;
	l->ptr = p;
	return (starpu_ssize_t)let_alloc_bytes(l);
}

static void let_free(void *data_interface, unsigned node)
{
	struct tide_let_iface *l = data_interface;
	starpu_free_on_node(node, l->ptr, let_alloc_bytes(l));
	l->ptr = 0;
}

/* The four used parts: cells, their moments, particles, the particles' softenings. */
static tide_iface_parts let_parts(const struct tide_let_iface *l)
{
	tide_iface_parts p = {.n = 4};
	p.off[0] = 0;
	p.off[1] = bh_let_moms_offset(l->cap_cells);
	p.off[2] = bh_let_parts_offset(l->cap_cells);
	p.off[3] = bh_let_eps_offset(l->cap_cells, l->cap_parts);
	p.len[0] = (size_t)l->ncells * sizeof(bh_cell);
	p.len[1] = (size_t)l->ncells * sizeof(bh_mom);
	p.len[2] = (size_t)l->nparts * sizeof(bh_body);
	p.len[3] = (size_t)l->nparts * sizeof(float);
	return p;
}

static int let_copy(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node,
                    void *async_data)
{
	struct tide_let_iface *src = src_interface, *dst = dst_interface;
	dst->ncells = src->ncells;
	dst->nparts = src->nparts;
	tide_iface_parts p = let_parts(src);
	return tide_iface_copy_parts(src->ptr, src_node, &p, dst->ptr, dst_node, &p, async_data);
}

static const struct starpu_data_copy_methods let_copy_methods = {.any_to_any = let_copy};

size_t tide_let_message_bytes(uint32_t ncells, uint32_t nparts)
{
	return 2 * sizeof(uint32_t) + (size_t)ncells * (sizeof(bh_cell) + sizeof(bh_mom)) +
	       (size_t)nparts * (sizeof(bh_body) + sizeof(float));
}

static struct tide_let_iface *let_main(starpu_data_handle_t h)
{
	return starpu_data_get_interface_on_node(h, STARPU_MAIN_RAM);
}

static size_t let_get_size(starpu_data_handle_t h)
{
	return tide_let_message_bytes(let_main(h)->ncells, let_main(h)->nparts);
}

static size_t let_get_alloc_size(starpu_data_handle_t h) { return let_alloc_bytes(let_main(h)); }

static uint32_t let_footprint(starpu_data_handle_t h)
{
	return tide_iface_footprint(let_main(h)->ncells + let_main(h)->nparts);
}

static int let_compare(void *a, void *b)
{
	const struct tide_let_iface *x = a, *y = b;
	return x->cap_cells == y->cap_cells && x->cap_parts == y->cap_parts;
}

/* MPI message: [uint32 ncells][uint32 nparts][cells][moments][particles][their softenings],
 * used parts only. */
static int let_pack(starpu_data_handle_t handle, unsigned node, void **ptr, starpu_ssize_t *count)
{
	struct tide_let_iface *l = starpu_data_get_interface_on_node(handle, node);
	*count = (starpu_ssize_t)tide_let_message_bytes(l->ncells, l->nparts);
	if (!ptr) return 0;
	uint32_t head[2] = {l->ncells, l->nparts};
	tide_iface_parts p = let_parts(l);
	*ptr = tide_iface_pack(node, head, sizeof head, l->ptr, &p);
	return 0;
}

static int let_peek(starpu_data_handle_t handle, unsigned node, void *ptr, size_t size)
{
	struct tide_let_iface *l = starpu_data_get_interface_on_node(handle, node);
	uint32_t head[2];
	memcpy(head, ptr, sizeof head);
	uint32_t nc = head[0], np = head[1];
	/* a message of its size only (its head may not have come): the counts registered */
	if (tide_iface_sized_only()) {
		nc = l->ncells;
		np = l->nparts;
	}
	STARPU_ASSERT_MSG(nc <= l->cap_cells && np <= l->cap_parts &&
	                  size == tide_let_message_bytes(nc, np),
	                  "received %u essential cells and %u particles (%zu bytes) for a capacity of "
	                  "%u and %u", nc, np, size, l->cap_cells, l->cap_parts);
	l->ncells = nc;
	l->nparts = np;
	tide_iface_parts p = let_parts(l);
	tide_iface_unpack(ptr, sizeof head, l->ptr, &p);
	return 0;
}

static int let_unpack(starpu_data_handle_t handle, unsigned node, void *ptr, size_t size)
{
	let_peek(handle, node, ptr, size);
	tide_iface_free_message(node, ptr, size);
	return 0;
}

static starpu_ssize_t let_describe(void *data_interface, char *buf, size_t size)
{
	struct tide_let_iface *l = data_interface;
	return snprintf(buf, size, "L%u+%u", l->ncells, l->nparts);
}

static int let_pack_meta(void *data_interface, void **ptr, starpu_ssize_t *count)
{
	return tide_iface_pack_meta(data_interface, sizeof(struct tide_let_iface), ptr, count);
}

static int let_unpack_meta(void **data_interface, void *ptr, starpu_ssize_t *count)
{
	return tide_iface_unpack_meta(data_interface, ptr, sizeof(struct tide_let_iface), count);
}

static struct starpu_data_interface_ops let_ops = {
	.register_data_handle = let_register_handle,
	.allocate_data_on_node = let_allocate,
	.free_data_on_node = let_free,
	.copy_methods = &let_copy_methods,
	.get_size = let_get_size,
	.get_alloc_size = let_get_alloc_size,
	.footprint = let_footprint,
	.compare = let_compare,
	.alloc_compare = let_compare,
	.interfaceid = STARPU_UNKNOWN_INTERFACE_ID,
	.interface_size = sizeof(struct tide_let_iface),
	.to_pointer = tide_iface_to_pointer,
	.pack_data = let_pack,
	.peek_data = let_peek,
	.unpack_data = let_unpack,
	.describe = let_describe,
	.name = "TIDE_LET_INTERFACE",
	.pack_meta = let_pack_meta,
	.unpack_meta = let_unpack_meta,
	.free_meta = tide_iface_free_meta,
};

void tide_let_register(starpu_data_handle_t *h, uint32_t cap_cells, uint32_t cap_parts)
{
	if (let_ops.interfaceid == STARPU_UNKNOWN_INTERFACE_ID)
		let_ops.interfaceid = starpu_data_interface_get_next_id();
	struct tide_let_iface l = {.ptr = 0, .cap_cells = cap_cells, .cap_parts = cap_parts};
	starpu_data_register(h, -1, &l, &let_ops);
}

void tide_let_set_counts(starpu_data_handle_t h, uint32_t ncells, uint32_t nparts)
{
	for (int node = 0; node < (int)STARPU_MAXNODES; node++) { /* as tide_iface_register_nodes */
		struct tide_let_iface *l = starpu_data_get_interface_on_node(h, node);
		l->ncells = ncells;
		l->nparts = nparts;
	}
}

void tide_let_counts(starpu_data_handle_t h, uint32_t *ncells, uint32_t *nparts)
{
	*ncells = let_main(h)->ncells;
	*nparts = let_main(h)->nparts;
}
