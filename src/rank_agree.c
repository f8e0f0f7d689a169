// SPDX-License-Identifier: LGPL-2.1-or-later
// Start-up agreement of the MPI ranks (src/rank_agree.h), through StarPU-MPI data:
// StarPU-MPI initialises MPI for its own progress thread (MPI_THREAD_SERIALIZED), so the
// program may not call MPI collectives itself while StarPU runs.  Rank r owns a variable with
// its view, rank 0 receives them all, and the verdict is a variable rank 0 owns and sends to
// every rank: 2 (size - 1) messages.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include "rank_agree.h"
#include "runtime.h"

static int same(const tide_rank_view *a, const tide_rank_view *b)
{
	return a->status == b->status && a->input == b->input;
}

void tide_ranks_agree(const tide_rank_view *mine, tide_rank_verdict *verdict)
{
	memset(verdict, 0, sizeof *verdict);
	verdict->rank0 = *mine;
	verdict->first_bad = -1;
	if (!tide_runtime_uses_mpi()) return;
	int rank = starpu_mpi_world_rank(), size = starpu_mpi_world_size();
	tide_rank_view *views = calloc((size_t)size, sizeof *views);
	starpu_data_handle_t *h = calloc((size_t)size + 1, sizeof *h);
	if (!views || !h) {
		fprintf(stderr, "tide: out of host memory at start-up.\n");
		exit(1); /* mpirun stops the other ranks when one exits with an error */
	}
	int64_t tag = starpu_mpi_tags_allocate(size + 1);
	views[rank] = *mine;
	for (int r = 0; r < size; r++) {
		if (r == rank)
			starpu_variable_data_register(&h[r], STARPU_MAIN_RAM, (uintptr_t)&views[r], sizeof *views);
		else
			starpu_variable_data_register(&h[r], -1, 0, sizeof *views);
		starpu_mpi_data_register(h[r], tag + r, r);
		starpu_mpi_get_data_on_node_detached(MPI_COMM_WORLD, h[r], 0, NULL, NULL);
	}
	tide_rank_verdict v = *verdict;
	if (rank == 0)
		for (int r = 1; r < size; r++) {
			starpu_data_acquire(h[r], STARPU_R);
			memcpy(&views[r], (void *)starpu_variable_get_local_ptr(h[r]), sizeof *views);
			starpu_data_release(h[r]);
			if (v.first_bad < 0 && !same(&views[0], &views[r])) {
				v.first_bad = r;
				v.bad = views[r];
			}
		}
	if (rank == 0)
		starpu_variable_data_register(&h[size], STARPU_MAIN_RAM, (uintptr_t)&v, sizeof v);
	else
		starpu_variable_data_register(&h[size], -1, 0, sizeof v);
	starpu_mpi_data_register(h[size], tag + size, 0);
	starpu_mpi_get_data_on_all_nodes_detached(MPI_COMM_WORLD, h[size]);
	starpu_data_acquire(h[size], STARPU_R);
	memcpy(verdict, (void *)starpu_variable_get_local_ptr(h[size]), sizeof *verdict);
	starpu_data_release(h[size]);
	for (int r = 0; r <= size; r++) starpu_data_unregister(h[r]);
	starpu_mpi_tags_free(tag);
	free(views);
	free(h);
}
