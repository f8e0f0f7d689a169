// SPDX-License-Identifier: LGPL-2.1-or-later
// The blocks a rank submits tasks for (sph_sim.h's mine[] and near[]): under MPI a rank submits
// only the tasks it runs or sends data to, so that its host work per step grows with its own
// blocks, not with the total (O(total) per rank, O(total x ranks) in a one-process simulation).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tide/sph_sim.h"

void tide_sim_block_lists_free(tide_sim *sim)
{
	free(sim->mine);
	free(sim->near);
	sim->mine = sim->near = NULL;
	sim->nmine = sim->nnear = 0;
}

int tide_sim_block_lists(tide_sim *sim)
{
	int nb = sim->nblocks;
	tide_sim_block_lists_free(sim);
	/* TIDE_PRUNE=0: every rank submits every block's tasks, as before the pruning (the reference
	 * of tests/test_prune_ranks.sh) */
	const char *e = getenv("TIDE_PRUNE");
	sim->prune = sim->mpi && !(e && !strcmp(e, "0"));
	static int warned; /* once, not at every re-split of the blocks */
	if (e && *e && strcmp(e, "0") && strcmp(e, "1") && sim->rank == 0 && !warned++)
		fprintf(stderr, "tide: warning: TIDE_PRUNE='%s' is neither '0' nor '1': pruning the task "
		        "submission (the default).\n", e);
	sim->mine = malloc(sizeof(int) * (size_t)(nb ? nb : 1));
	sim->near = malloc(sizeof(int) * (size_t)(nb ? nb : 1));
	char *in = calloc((size_t)(nb ? nb : 1), 1);
	if (!sim->mine || !sim->near || !in) {
		free(in);
		tide_sim_block_lists_free(sim);
		return -1;
	}
	for (int b = 0; b < nb; b++) {
		const tide_sim_block *k = &sim->blk[b];
		int mine = !sim->prune || k->owner == sim->rank;
		for (int j = 0; j < k->nnb; j++) {
			/* b reads its neighbours' halos and migrants: their writers invalidate my copies */
			if (mine) in[k->nb[j]] = 1;
			/* b reads mine: I send them */
			if (sim->blk[k->nb[j]].owner == sim->rank) in[b] = 1;
		}
		if (mine) in[b] = 1;
	}
	for (int b = 0; b < nb; b++) {
		if (!sim->prune || sim->blk[b].owner == sim->rank) sim->mine[sim->nmine++] = b;
		if (!sim->prune || in[b]) sim->near[sim->nnear++] = b;
	}
	free(in);
	return 0;
}

int tide_sim_block_near(const tide_sim *sim, int b)
{
	/* near[] is ascending */
	int lo = 0, hi = sim->nnear;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (sim->near[mid] < b) lo = mid + 1;
		else hi = mid;
	}
	return lo < sim->nnear && sim->near[lo] == b;
}
