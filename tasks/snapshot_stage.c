// SPDX-License-Identifier: LGPL-2.1-or-later
// Snapshot staging (include/tide/snapshot_stage.h): snap_copy tasks into main-memory staging
// blocks and, under MPI, their detached transfer to rank 0.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/advice.h"
#include "tide/snapshot_stage.h"

void tide_stage_free(tide_snap_stage *st)
{
	for (int b = 0; b < st->nblocks; b++) {
		if (st->S && st->S[b]) starpu_data_unregister(st->S[b]);
		if (st->host && st->host[b]) tide_block_free_host(st->host[b], st->cap[b]);
	}
	if (st->mpi && st->nblocks) starpu_mpi_tags_free(st->tag0);
	free(st->S);
	free(st->host);
	free(st->cap);
	free(st->owner);
	memset(st, 0, sizeof *st);
}

/* Whether the staging blocks still fit the simulation's blocks (after a rebalance the same
 * blocks with no larger capacities keep them: pinning memory again costs time). */
static int same_layout(const tide_snap_stage *st, const tide_sim *sim, uint32_t fields)
{
	if (!st->S || st->nblocks != sim->nblocks || st->fields != fields) return 0;
	for (int b = 0; b < sim->nblocks; b++)
		if (st->cap[b] < sim->blk[b].cap || st->owner[b] != sim->blk[b].owner) return 0;
	return 1;
}

static int setup(tide_snap_stage *st, tide_sim *sim, uint32_t fields)
{
	int made = st->made;
	tide_stage_free(st);
	st->made = made + 1;
	int n = sim->nblocks;
	st->nblocks = n;
	st->mpi = sim->mpi;
	st->rank = sim->rank;
	st->size = sim->size;
	st->fields = fields;
	st->S = calloc((size_t)n, sizeof *st->S);
	st->host = calloc((size_t)n, sizeof *st->host);
	st->cap = calloc((size_t)n, sizeof *st->cap);
	st->owner = calloc((size_t)n, sizeof *st->owner);
	if (!st->S || !st->host || !st->cap || !st->owner) {
		fprintf(stderr, "tide: out of host memory for the snapshot staging.\n");
		return -1;
	}
	if (st->mpi) st->tag0 = starpu_mpi_tags_allocate(n);
	for (int b = 0; b < n; b++) {
		st->cap[b] = sim->blk[b].cap;
		st->owner[b] = sim->blk[b].owner;
		/* held where it is written (the owner) and where the files are written from (rank 0) */
		int here = !st->mpi || st->owner[b] == st->rank || st->rank == 0;
		if (here) {
			st->host[b] = tide_block_alloc_host(st->cap[b]);
			if (!st->host[b]) {
				fprintf(stderr, "tide: out of host memory for the snapshot staging (%u "
				        "particles)%s.\n", st->cap[b], TIDE_OOM_ADVICE);
				return -1;
			}
		}
		tide_block_register_fields(&st->S[b], here ? STARPU_MAIN_RAM : -1, st->host[b],
		                           st->cap[b], 0, fields);
		if (st->mpi) starpu_mpi_data_register(st->S[b], st->tag0 + b, st->owner[b]);
	}
	for (int b = 0; b < n; b++)
		if (st->host[b]) st->bytes += (double)st->cap[b] * tide_block_bpp();
	return 0;
}

int tide_stage_submit(tide_snap_stage *st, tide_sim *sim, uint32_t fields)
{
	if (!same_layout(st, sim, fields) && setup(st, sim, fields)) {
		tide_stage_free(st);
		return -1;
	}
	for (int b = 0; b < st->nblocks; b++) {
		/* a block's copy concerns its owner (runs it, sends it) and rank 0 (receives it) */
		if (st->mpi && st->rank != 0 && st->owner[b] != st->rank) continue;
		starpu_data_handle_t B = sim->blk[b].B, S = st->S[b];
		/* runs on the owner (it writes S, which the owner owns) */
		int ret = st->mpi ? starpu_mpi_task_insert(MPI_COMM_WORLD, &tide_snap_copy_cl, STARPU_R, B,
		                                           STARPU_W, S, STARPU_NAME, "snap_copy", 0)
		                  : starpu_task_insert(&tide_snap_copy_cl, STARPU_R, B, STARPU_W, S,
		                                       STARPU_NAME, "snap_copy", 0);
		STARPU_CHECK_RETURN_VALUE(ret, "task insert snap_copy");
		if (st->mpi && st->owner[b] != 0)
			starpu_mpi_get_data_on_node_detached(MPI_COMM_WORLD, S, 0, NULL, NULL);
	}
	return 0;
}

static int wanted(const tide_snap_stage *st, int all, int b)
{
	return all ? !st->mpi || st->rank == 0 : !st->mpi || st->owner[b] == st->rank;
}

int tide_stage_acquire(tide_snap_stage *st, int all, tide_block_view *views)
{
	int nv = 0;
	for (int b = 0; b < st->nblocks; b++) {
		if (!wanted(st, all, b)) continue;
		starpu_data_acquire(st->S[b], STARPU_R);
		views[nv++] = tide_block_view_of(starpu_data_get_interface_on_node(st->S[b], STARPU_MAIN_RAM));
	}
	return nv;
}

void tide_stage_release(tide_snap_stage *st, int all)
{
	for (int b = 0; b < st->nblocks; b++)
		if (wanted(st, all, b)) starpu_data_release(st->S[b]);
}
