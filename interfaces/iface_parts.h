/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What tide's two StarPU data interfaces (block_interface.c: a particle block,
 * let_interface.c: an essential-node buffer) have in common, written once.  Both are one
 * allocation per memory node whose interface structure starts with the allocation's base
 * (uintptr_t ptr), and whose data in use is a short list of parts (offset and length in
 * bytes): copies between memory nodes and MPI messages move only those, an MPI message being a
 * small header of counts followed by the parts in order.  Private to interfaces/. */
#ifndef TIDE_IFACE_PARTS_H
#define TIDE_IFACE_PARTS_H
#include <stddef.h>
#include <stdint.h>
#include <starpu.h>

#define TIDE_IFACE_MAX_PARTS 32

typedef struct tide_iface_parts {
	int n;
	size_t off[TIDE_IFACE_MAX_PARTS]; /* from the allocation's base */
	size_t len[TIDE_IFACE_MAX_PARTS]; /* bytes in use */
} tide_iface_parts;

/* Bytes of the parts together. */
size_t tide_iface_parts_bytes(const tide_iface_parts *p);

/* Every memory node's interface a copy of the registered one (size bytes, base first), the base
 * kept on home_node only. */
void tide_iface_register_nodes(starpu_data_handle_t handle, int home_node, const void *src,
                               size_t size);

/* Copies part k of src (parts s) to part k of dst (parts d); -EAGAIN if a copy is
 * asynchronous, as StarPU's any_to_any expects. */
int tide_iface_copy_parts(uintptr_t src, unsigned src_node, const tide_iface_parts *s,
                          uintptr_t dst, unsigned dst_node, const tide_iface_parts *d,
                          void *async_data);

/* An MPI message [head (head_len bytes)][the parts in order], allocated on node. */
void *tide_iface_pack(unsigned node, const void *head, size_t head_len, uintptr_t base,
                      const tide_iface_parts *p);
/* Copies the parts of a message (after its head of head_len bytes) into base. */
void tide_iface_unpack(const void *msg, size_t head_len, uintptr_t base, const tide_iface_parts *p);
/* Whether messages carry their size only (tide_block_messages_sized_only): their head may not
 * have been copied either (a large message's payload is not, under SMPI). */
int tide_iface_sized_only(void);
/* Frees a message taken by unpack_data. */
void tide_iface_free_message(unsigned node, void *msg, size_t size);

/* Footprint of a count: history-based models are calibrated per bucket of counts. */
uint32_t tide_iface_footprint(uint32_t count);

/* The base pointer (to_pointer), and the interface structure as MPI metadata (size bytes). */
void *tide_iface_to_pointer(void *data_interface, unsigned node);
int tide_iface_pack_meta(const void *data_interface, size_t size, void **ptr,
                         starpu_ssize_t *count);
int tide_iface_unpack_meta(void **data_interface, const void *ptr, size_t size,
                           starpu_ssize_t *count);
int tide_iface_free_meta(void *data_interface);
#endif
