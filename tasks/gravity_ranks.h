/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the several-rank parts of tide_gravity share (tasks/gravity.c, its graph, and
 * tasks/gravity_ranks.c, particles moved between ranks): the MPI tags, one
 * starpu_mpi_tags_allocate block (tide_gravity_init_ranks): 7 per rank (bodies, cells, moments,
 * meta, velocities, virtual root, coarse tree), one per ordered pair of ranks (essential nodes s → r), two per rank
 * (gathers of particles and of numbers), one per rank and level of the virtual roots' recursive
 * doubling; and the allocation of their buffers. */
#ifndef TIDE_GRAVITY_RANKS_H
#define TIDE_GRAVITY_RANKS_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "tide/bh_gravity.h"

/* The gathers, scatters and splits return nothing: a rank that cannot get their buffers (all
 * particles on the root) ends the run with one sentence and exit code 1 (under mpirun the job
 * stops) rather than crash on a null pointer. */
static inline void *must_alloc(size_t bytes, int zero)
{
	void *p = zero ? calloc(bytes ? bytes : 1, 1) : malloc(bytes ? bytes : 1);
	if (!p) {
		fprintf(stderr, "tide: out of host memory for %.1f MiB of particle buffers (the "
		        "particles exchanged between ranks); use fewer particles or more nodes.\n",
		        bytes / 1048576.0);
		exit(1);
	}
	return p;
}

enum { T_BODY, T_CELLS, T_MOM, T_META, T_VEL, T_VROOT, T_COARSE, T_PER_RANK };

/* Rounds of the virtual roots' recursive doubling: floor(log2 size). */
static inline int tide_gravity_vg_levels(int size)
{
	int l = 0;
	while ((2 << l) <= size) l++;
	return l;
}

/* Tags in the block, for tide_gravity_init_ranks to allocate: those above, then one per rank
 * and level 0 .. vg_levels of the recursive doubling. */
static inline int64_t tide_gravity_ntags(int size)
{
	return (int64_t)(T_PER_RANK + 2 + size + tide_gravity_vg_levels(size) + 1) * size;
}
static inline int64_t tag_rank(const tide_gravity *g, int q, int what) { return g->tag0 + T_PER_RANK * q + what; }
static inline int64_t tag_let(const tide_gravity *g, int s, int r)
{
	return g->tag0 + (int64_t)T_PER_RANK * g->size + (int64_t)s * g->size + r;
}
static inline int64_t tag_gather(const tide_gravity *g, int q)
{
	return g->tag0 + (int64_t)T_PER_RANK * g->size + (int64_t)g->size * g->size + q;
}
/* one tag per handle: StarPU-MPI mismatched a rank's two messages of one tag sent back to back
 * into handles of different sizes (MPI_ERR_TRUNCATE on 4 ranks) */
static inline int64_t tag_values(const tide_gravity *g, int q) { return tag_gather(g, q) + g->size; }
/* rank q's block of virtual roots after k rounds of the recursive doubling */
static inline int64_t tag_vgather(const tide_gravity *g, int k, int q)
{
	return tag_values(g, 0) + g->size + (int64_t)k * g->size + q;
}

#endif
