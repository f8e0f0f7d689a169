/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Snapshot staging (tasks/snapshot_stage.c): at an output time every block's particles are
 * copied by a snap_copy task into a staging block in main memory, in the task graph, so the
 * next step starts as soon as the copies are done while a writer thread writes the files from
 * the staged copy (src/snapshot_writer.c).  Under MPI the copy runs on the block's owner and
 * StarPU-MPI sends every staging block to rank 0 (a detached transfer: nothing waits for it in
 * the step loop).
 *
 * Memory, for the one snapshot that may be pending: a staging block has the layout of a particle
 * block, TIDE_BLOCK_BPP (77) bytes per particle of the block's capacity, pinned main memory; it
 * exists on the block's owner and on rank 0 (so rank 0 holds every block's, as the synchronous
 * gather did).  Only the fields of the mask are copied and sent (at most x, y, z, velocity,
 * density, type and id: 45 bytes per particle).  No device memory is used. */
#ifndef TIDE_SNAPSHOT_STAGE_H
#define TIDE_SNAPSHOT_STAGE_H
#include <starpu.h>
#include "tide/block.h"
#include "tide/sph_sim.h"

typedef struct tide_snap_stage {
	int nblocks, mpi, rank, size;
	uint32_t fields;               /* block.h field mask that is staged */
	starpu_data_handle_t *S;       /* staging block of every block */
	void **host;                   /* its main-memory buffer here (NULL: not held on this rank) */
	uint32_t *cap;
	int *owner;
	int64_t tag0;                  /* MPI tags tag0 .. tag0 + nblocks - 1 */
	int made;                      /* times the staging blocks were made (the caller reports
	                                * each: tasks know nothing of the program's log) */
	double bytes;                  /* main memory they hold on this rank [B] */
} tide_snap_stage;

/* Submits the copy of every block of sim into its staging block (registering the staging blocks
 * again when the blocks changed since the last time) and, under MPI, the transfers to rank 0.
 * Collective: every rank calls it at the same step.  The previous staged snapshot must have
 * been released.  0 or -1 (out of memory, message printed). */
int tide_stage_submit(tide_snap_stage *st, tide_sim *sim, uint32_t fields);

/* Waits for the staged copies and acquires them in main memory: every block (all = 1, rank 0
 * only) or this rank's own blocks (all = 0).  Fills views[] (room for st->nblocks) in block
 * order and returns how many.  May be called from a thread other than the one that submitted
 * (never from a task or callback). */
int tide_stage_acquire(tide_snap_stage *st, int all, tide_block_view *views);
/* Releases what tide_stage_acquire acquired with the same `all`. */
void tide_stage_release(tide_snap_stage *st, int all);

/* Unregisters and frees the staging blocks (collective under MPI). */
void tide_stage_free(tide_snap_stage *st);

#endif
