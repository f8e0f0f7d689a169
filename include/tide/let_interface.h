/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The StarPU data interface of an essential-node buffer (interfaces/let_interface.c): what one rank
 * sends another of its tree, a small tree of cells and moments plus the particles of its opened
 * leaves and their softenings (layout: bh_let_* in bh_tree.h).  The capacity is fixed when the handle is registered
 * (the sender's whole tree, the worst case: every node essential); copies between memory nodes
 * and MPI messages move only the used part, with the counts. */
#ifndef TIDE_LET_INTERFACE_H
#define TIDE_LET_INTERFACE_H
#include <starpu.h>
#include "tide/bh_tree.h"

struct tide_let_iface {
	uintptr_t ptr;                /* base of the buffer on this memory node */
	uint32_t cap_cells, cap_parts; /* capacity (fixed for the handle's life) */
	uint32_t ncells, nparts;      /* in use; the bh_essential codelet writes them here */
};

#define TIDE_LET_IFACE(buf) ((struct tide_let_iface *)(buf))

/* Registers an empty buffer that StarPU allocates where it is first used (home node -1). */
void tide_let_register(starpu_data_handle_t *h, uint32_t cap_cells, uint32_t cap_parts);
/* Sets the counts in use on every memory node: a simulation's essential nodes, which no codelet
 * computes, keep them, so that messages take the modelled size (tasks/gravity.c). */
void tide_let_set_counts(starpu_data_handle_t h, uint32_t ncells, uint32_t nparts);
/* Counts as seen from the main-memory replica (after an acquire). */
void tide_let_counts(starpu_data_handle_t h, uint32_t *ncells, uint32_t *nparts);
/* Bytes of a message holding ncells cells and nparts particles. */
size_t tide_let_message_bytes(uint32_t ncells, uint32_t nparts);
#endif
