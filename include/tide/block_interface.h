/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The StarPU data interface of a particle block (layout in block.h): interfaces/block_interface.c,
 * its host memory interfaces/block_host.c.  The interfaces sit under the codelets, which include
 * them; they include only include/tide. */
#ifndef TIDE_BLOCK_INTERFACE_H
#define TIDE_BLOCK_INTERFACE_H
#include <starpu.h>
#include "tide/block.h"

struct tide_block_iface {
	uintptr_t ptr;     /* base of the block's arrays on this memory node */
	uint32_t cap;      /* particles the allocation holds (fixed for the handle's life) */
	uint32_t count;    /* particles in use; a codelet that changes it writes it here */
	uint32_t fields;   /* mask of the fields that hold data (block.h): only these are copied
	                    * between memory nodes and sent; the others are allocated but never
	                    * read (TIDE_HALO_FIELDS for halos, TIDE_ALL_FIELDS otherwise) */
	float hmax;        /* the gas scheme: the largest h of the block's particles at its last
	                    * migrate_pack, which writes it into the block and its migration
	                    * buffers (halo_pack copies it into the halos): the per-block record
	                    * from which the halos take their widths (gas_math.h, tide_gas_block_
	                    * layers).  It travels with the data; < 0: not known yet (registered). */
};

#define TIDE_BLOCK_IFACE(buf) ((struct tide_block_iface *)(buf))

/* Registers a block.  home_node -1 (with ptr 0): StarPU allocates it where it is first used
 * (halo and migration buffers, blocks of other ranks); STARPU_MAIN_RAM with ptr: a host block
 * allocated by tide_block_alloc_host(). */
void tide_block_register(starpu_data_handle_t *h, int home_node, void *ptr, uint32_t cap,
                         uint32_t count);
/* The same with the mask of the fields that travel (TIDE_HALO_FIELDS: a halo buffer). */
void tide_block_register_fields(starpu_data_handle_t *h, int home_node, void *ptr, uint32_t cap,
                                uint32_t count, uint32_t fields);
void *tide_block_alloc_host(uint32_t cap);
/* The same for pin = 1; pin = 0: a host-only temporary, neither pinned nor counted towards
 * StarPU's memory limit.  (tide_block_alloc_host pins unless the block is larger than a
 * quarter of the machine's memory.) */
void *tide_block_alloc_host_pin(uint32_t cap, int pin);
void tide_block_free_host(void *ptr, uint32_t cap);

/* View of the replica a codelet was given. */
static inline tide_block_view tide_block_view_of(void *buf)
{
	struct tide_block_iface *b = TIDE_BLOCK_IFACE(buf);
	return tide_block_view_make((void *)b->ptr, b->cap, b->count);
}

/* Count and capacity as seen from the main-memory replica (after an acquire). */
uint32_t tide_block_count(starpu_data_handle_t h);
uint32_t tide_block_cap(starpu_data_handle_t h);

/* Footprint bucket of a count: history-based models are calibrated per bucket of ~19 % width,
 * not per exact particle count (which changes every step). */
uint32_t tide_count_bucket(uint32_t count);

#endif
