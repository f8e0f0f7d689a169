/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Host blocks made from a case (src/host_blocks.c): all particles of a case in the layout of a
 * particle block (block.h), for tide_sim_setup, and particle-set views of host blocks for the
 * output writers and gauges. */
#ifndef TIDE_HOST_BLOCKS_H
#define TIDE_HOST_BLOCKS_H
#include <stddef.h>
#include "tide/block.h"
#include "tide/case.h"
#include "particle_set.h"

/* A host block of all particles (every field) made from a freshly built particle set. */
int tide_host_block_from_set(const tide_particle_set *s, void **mem, tide_block_view *v);

/* Host bytes one process needs at least for a fresh run of n particles in nblocks blocks on
 * `size` ranks with `workers` CPU workers running SPH tasks (0 when GPUs run them alone: their
 * sort scratch is on the GPU), the larger of its two peaks: the set-up (the
 * particles built whole on every rank, then this rank's blocks with their room to grow; one
 * block is the built one itself) and the run (its blocks, a sort scratch per CPU worker: small,
 * its CUDA size where GPUs are used too, tide_sort_scratch_bytes, and on
 * rank 0 with output all particles gathered for the files).  Cell tables and halos are small
 * and left out; tide_sim_check_memory checks them before the first step. */
double tide_host_run_bytes(double n, int nblocks, int size, int rank, int workers, int output);

/* Builds the case's particles straight into one host block (tide_block_alloc_host memory in
 * *mem, view *v; free with tide_block_free_host(*mem, v->cap)), counting them first: no
 * particle set is held beside it.  With nblocks == 1 the block has the capacity of the
 * simulation's single block (tide_sim_block_cap) and tide_sim_setup_take uses it as that
 * block's main-memory replica, so a run of one block holds each particle once on the host
 * (77 B; a billion particles fit a 128 GiB node).  0, -1 (message), or -2 when the case gives
 * no fluid particle (message; tide_case_build). */
int tide_host_block_build(const tide_case *c, int nblocks, void **mem, tide_block_view *v,
                          size_t *n_fluid, size_t *n_bound);

/* The synthetic box's particles (include/tide/lattice.h), fluid at rest at rho0, into one host
 * block as tide_host_block_build makes it.  0 or -1 (message). */
struct tide_lattice;
int tide_host_block_lattice(const tide_case *c, const struct tide_lattice *L, int nblocks, void **mem,
                            tide_block_view *v);

/* A particle-set view of a host block (no copy). */
void tide_set_view_of_block(const tide_block_view *v, tide_particle_set *s);

#endif
