// SPDX-License-Identifier: LGPL-2.1-or-later
// The gauges' tasks (include/tide/gauge_tasks.h).  After a step the blocks hold migrated
// particles whose cell lists and halos are out of date, so a measurement first sorts the
// blocks and packs their halos again (the next step's cell_sort then finds them sorted and
// gives the same order: the run's particles are the same with or without gauges):
//   cell_sort(B[b]), halo_pack(B[b]) -> H[b][f]       (tasks/sph_step.c)
//   gauge_sample(B[b], C[b], H[n][f_nb]...) -> R[b]   the block's share of every gauge
//   gauge_combine(R[0..nb-1]) -> S                    on rank 0, block order
// and rank 0 reads S.  Each R[b] lives where its block's task ran (a GPU's R stays there
// until gauge_combine reads it, which may run there too), so what reaches the host is S alone.
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include "tide/codelets.h"
#include "tide/gauge_tasks.h"
#include "tide/step_profile.h"

static void unregister_parts(tide_gauge_tasks *t)
{
	if (!t->part) return;
	for (int b = 0; b < t->nblocks; b++) starpu_data_unregister_no_coherency(t->part[b]);
	starpu_data_unregister(t->sum);
	if (t->mpi && t->tag0 >= 0) starpu_mpi_tags_free(t->tag0);
	free(t->part);
	free(t->owner);
	t->part = NULL;
	t->owner = NULL;
	t->tag0 = -1;
	t->nblocks = 0;
}

/* Handles for the blocks as they are now (again after a rebalance changed them). */
static void register_parts(tide_gauge_tasks *t, const tide_sim *sim)
{
	int same = t->part && t->nblocks == sim->nblocks;
	for (int b = 0; same && b < sim->nblocks; b++) same = t->owner[b] == sim->blk[b].owner;
	if (same) return;
	unregister_parts(t);
	t->mpi = sim->mpi;
	t->nblocks = sim->nblocks;
	t->part = malloc(sizeof *t->part * (size_t)t->nblocks);
	t->owner = malloc(sizeof *t->owner * (size_t)t->nblocks);
	STARPU_ASSERT_MSG(t->part && t->owner, "out of memory");
	if (sim->mpi) t->tag0 = starpu_mpi_tags_allocate(t->nblocks + 1);
	for (int b = 0; b < t->nblocks; b++) {
		t->owner[b] = sim->blk[b].owner;
		/* no home in main memory: it exists where gauge_sample writes it */
		starpu_vector_data_register(&t->part[b], -1, 0, (uint32_t)t->blen, sizeof(double));
		if (sim->mpi) starpu_mpi_data_register(t->part[b], t->tag0 + b, t->owner[b]);
	}
	if (sim->rank == 0)
		starpu_vector_data_register(&t->sum, STARPU_MAIN_RAM, (uintptr_t)t->sum_host,
		                            (uint32_t)t->len, sizeof(double));
	else
		starpu_vector_data_register(&t->sum, -1, 0, (uint32_t)t->len, sizeof(double));
	if (sim->mpi) starpu_mpi_data_register(t->sum, t->tag0 + t->nblocks, 0);
}

int tide_gauge_tasks_init(tide_gauge_tasks *t, const tide_gauge_arg *G)
{
	memset(t, 0, sizeof *t);
	t->G = *G;
	t->tag0 = -1;
	t->len = tide_gauge_len(G);
	t->blen = tide_gauge_block_len(G);
	t->sum_host = calloc(t->len, sizeof *t->sum_host);
	t->result = calloc(t->len, sizeof *t->result);
	if (!t->sum_host || !t->result) {
		fprintf(stderr, "tide: out of host memory for the gauges (%zu values).\n", t->len);
		free(t->sum_host);
		free(t->result);
		t->sum_host = t->result = NULL;
		return -1;
	}
	return 0;
}

/* With --profile the gauge tasks report as "gauges" (the cell_sort and halo_pack before them
 * too: tide_sim_submit_sort_halos). */
#define GAUGE_PROFILE STARPU_CALLBACK_WITH_ARG_NFREE, tide_profile_enabled() ? tide_profile_cb : NULL, \
	tide_profile_arg(TIDE_K_GAUGES, -1)

#define INSERT(sim, ...)                                                                        \
	STARPU_CHECK_RETURN_VALUE((sim)->mpi ? starpu_mpi_task_insert(MPI_COMM_WORLD, __VA_ARGS__) \
	                                     : starpu_task_insert(__VA_ARGS__),                    \
	                          "task insert")

const double *tide_gauge_tasks_measure(tide_gauge_tasks *t, tide_sim *sim)
{
	register_parts(t, sim);
	tide_sim_submit_sort_halos(sim);
	struct starpu_data_descr d[3 + TIDE_MAX_NEIGHBOURS];
	/* a sample reads its block's neighbours' halos (sph_step.c's NEAR tasks: their owners send
	 * them); rank 0 combines every block's part, so it sees every block's write of it */
	for (int b = 0; b < sim->nblocks; b++) {
		if (sim->prune && sim->rank != 0 && !tide_sim_block_near(sim, b)) continue;
		tide_sim_block *k = &sim->blk[b];
		int n = 0, nh = k->nnb;
		d[n++] = (struct starpu_data_descr){k->B, STARPU_R};
		d[n++] = (struct starpu_data_descr){k->C, STARPU_R};
		d[n++] = (struct starpu_data_descr){t->part[b], STARPU_W};
		for (int j = 0; j < nh; j++)
			d[n++] = (struct starpu_data_descr){sim->blk[k->nb[j]].H[k->nb_halo[j]], STARPU_R};
		INSERT(sim, &tide_gauge_sample_cl, STARPU_DATA_MODE_ARRAY, d, n,
		       STARPU_VALUE, &sim->P, sizeof sim->P, STARPU_VALUE, &k->range, sizeof k->range,
		       STARPU_VALUE, &nh, sizeof nh, STARPU_VALUE, &t->G, sizeof t->G,
		       STARPU_NAME, "gauge_sample", GAUGE_PROFILE, 0);
	}
	struct starpu_data_descr *all = malloc(sizeof *all * (size_t)(1 + sim->nblocks));
	STARPU_ASSERT_MSG(all, "out of memory");
	all[0] = (struct starpu_data_descr){t->sum, STARPU_W};
	for (int b = 0; b < sim->nblocks; b++) all[1 + b] = (struct starpu_data_descr){t->part[b], STARPU_R};
	INSERT(sim, &tide_gauge_combine_cl, STARPU_DATA_MODE_ARRAY, all, 1 + sim->nblocks,
	       STARPU_VALUE, &t->len, sizeof t->len, STARPU_NAME, "gauge_combine", GAUGE_PROFILE, 0);
	free(all);
	if (sim->rank != 0) return NULL;
	starpu_data_acquire(t->sum, STARPU_R);
	memcpy(t->result, t->sum_host, sizeof *t->result * t->len);
	starpu_data_release(t->sum);
	return t->result;
}

void tide_gauge_tasks_free(tide_gauge_tasks *t)
{
	/* a measurement's tasks may still run on the other ranks: unregistering waits for them */
	unregister_parts(t);
	free(t->sum_host);
	free(t->result);
	memset(t, 0, sizeof *t);
	t->tag0 = -1;
}
