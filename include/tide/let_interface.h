/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The StarPU data interface of an essential-node buffer (tasks/let_interface.c): what one rank
 * sends another of its tree, a small tree of cells and moments plus the particles of its opened
 * leaves (layout: bh_let_* in bh_tree.h).  The capacity is fixed when the handle is registered
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

/* The buffers and arguments of a bh_essential task (codelets/bh_essential.*), unpacked once for
 * the CPU and CUDA versions; the output's counts are reset to an empty buffer. */
typedef struct bh_essential_io {
	uint32_t n;            /* the sender's particles */
	int whole;             /* send the whole tree (tests) */
	const bh_body *body;
	const bh_cell *cells;
	const bh_mom *mom;
	const bh_vroot *vroot; /* the receiver's */
	struct tide_let_iface *out;
	bh_cell *oc;           /* the output's cells, moments, particles */
	bh_mom *om;
	bh_body *op;
	void *scratch;
} bh_essential_io;

static inline bh_essential_io bh_essential_unpack(void *buffers[], void *cl_arg)
{
	bh_essential_io io;
	starpu_codelet_unpack_args(cl_arg, &io.n, &io.whole);
	io.body = (const bh_body *)STARPU_VECTOR_GET_PTR(buffers[0]);
	io.cells = (const bh_cell *)STARPU_VECTOR_GET_PTR(buffers[1]);
	io.mom = (const bh_mom *)STARPU_VECTOR_GET_PTR(buffers[2]);
	io.vroot = (const bh_vroot *)STARPU_VECTOR_GET_PTR(buffers[3]);
	io.out = TIDE_LET_IFACE(buffers[4]);
	io.oc = bh_let_cells((void *)io.out->ptr);
	io.om = bh_let_moms((void *)io.out->ptr, io.out->cap_cells);
	io.op = bh_let_parts((void *)io.out->ptr, io.out->cap_cells);
	io.scratch = (void *)STARPU_VECTOR_GET_PTR(buffers[5]);
	io.out->ncells = io.out->nparts = 0;
	return io;
}

/* Registers an empty buffer that StarPU allocates where it is first used (home node -1). */
void tide_let_register(starpu_data_handle_t *h, uint32_t cap_cells, uint32_t cap_parts);
/* Counts as seen from the main-memory replica (after an acquire). */
void tide_let_counts(starpu_data_handle_t h, uint32_t *ncells, uint32_t *nparts);
/* Bytes of a message holding ncells cells and nparts particles. */
size_t tide_let_message_bytes(uint32_t ncells, uint32_t nparts);
#endif
